/* ecs_plugin.h - v0.8 - API registry, plugin loader and hot reload for C/C++
   Public domain or MIT (see end of file).

   The engine publishes versioned API structs in a registry; a plugin is a
   shared library that exports one function, get_plugin_api, and receives
   get_engine_api in its init, as in the Bitsquid post "Building an Engine
   Plugin System" (2014). The loader tracks everything a plugin registers, so
   a failed load leaves nothing behind and a reload can swap code under live,
   engine-owned component data.

   Do this in *one* C or C++ file of the engine:
       #define ECS_PLUGIN_IMPLEMENTATION
       #include "ecs_plugin.h"
   (with ECS_IMPLEMENTATION for ecs.h somewhere too, and ecs_transform.h /
   ecs_resource.h in any order for the APIs over them: INCLUDE ORDER) and
   include "ecs_plugin.h" plainly everywhere else, plugins included: a
   plugin needs only the declarations and links against nothing (not even
   ecs.h's code; it reaches the engine through the API structs). Link the
   engine with -ldl.

TABLE OF CONTENTS
   QUICK START, THE ABI, VERSIONING RULES, STANDARD ENGINE APIS, INCLUDE
   ORDER, LOADING AND HOT RELOAD, CONFIGURATION, ERRORS, MEMORY AND POINTER
   STABILITY, SANITIZERS, THREADING, DOES NOT, REFERENCE, REVISION HISTORY,
   LICENSE (end of file)

QUICK START (compiled and run by tests/check_quickstart.sh)

    ---- plugin.c: cc -std=c99 -shared -fPIC -I. plugin.c -o plugin.so ----
    #include "ecs_plugin.h"
    typedef struct counter { const ecs_entities_api_v0 *ents; int ticks; } counter;
    static ecs_result counter_init(ecs_plugin_get_api_fn get_engine_api, void **state,
                                   ecs_error *err) {
        counter *c = (counter *)*state;            // non-NULL after a reload
        if (!c && !(c = (counter *)calloc(1, sizeof *c)))
            return ecs_plugin_set_error(err, ECS_ERROR_OUT_OF_MEMORY, "no memory");
        c->ents = (const ecs_entities_api_v0 *)get_engine_api(ECS_API_ENTITIES, 0);
        *state = c;
        return ECS_OK;
    }
    static void counter_shutdown(void *state) { free(state); }
    static void counter_tick(void *state, float dt) {
        counter *c = (counter *)state;
        (void)dt;
        if (c->ents && c->ents->count(c->ents->entities) > 0) c->ticks++;
    }
    ECS_PLUGIN_EXPORT void *get_plugin_api(unsigned api, unsigned version) {
        static ecs_plugin_api_v0 plugin;
        if (api != ECS_API_PLUGIN || version != 0) return NULL;
        plugin.name = "counter";
        plugin.init = counter_init;
        plugin.shutdown = counter_shutdown;
        plugin.tick = counter_tick;
        return &plugin;
    }
    ---- engine.c: cc -std=c99 -I. -I/usr/include/stb engine.c -ldl -lm ----
    #define ECS_IMPLEMENTATION
    #define ECS_PLUGIN_IMPLEMENTATION
    #include "ecs_plugin.h"
    #include <stdio.h>
    #include <string.h>
    int main(int argc, char **argv) {
        ecs_entity_manager em;
        ecs_plugin_registry_desc desc;
        ecs_plugin_registry *reg;
        ecs_plugin plugin;
        ecs_error err;
        int frame;
        ecs_entity_manager_init(&em);
        memset(&desc, 0, sizeof desc);             // zero means default
        desc.entities = &em;                       // published as ECS_API_ENTITIES v0
        reg = ecs_plugin_registry_create(&desc, &err);
        if (!reg) return 1;
        ecs_entity_create(&em);
        if (ecs_plugin_load(reg, argc > 1 ? argv[1] : "./plugin.so", &plugin, &err))
            printf("%s: %s\n", ecs_result_name(err.code), err.message);  // goes on
        for (frame = 0; frame < 3; ++frame) {
            if (ecs_plugin_poll(reg, NULL, &err))  // reloads changed libraries
                printf("%s\n", err.message);       // a failed rebuild; the old build goes on
            ecs_plugin_tick(reg, 1.0f / 60.0f);    // every plugin's tick
        }
        ecs_plugin_registry_destroy(reg);          // unloads what is left
        ecs_entity_manager_free(&em);
        return 0;
    }
    ---- end ----

THE ABI
   A plugin exports  void *get_plugin_api(unsigned api, unsigned version)
   (ECS_PLUGIN_EXPORT gives it C linkage and default visibility). The loader
   asks it for ECS_API_PLUGIN, newest version first (ECS_PLUGIN_API_VERSION
   down to 0), and copies the ecs_plugin_api_v0 it returns. init receives
   get_engine_api, a plain  void *(*)(unsigned api, unsigned version)  bound
   to this registry, which the plugin may call at any time (cache the
   pointers in your state). Every API is a struct of function pointers (and
   context pointers such as the entity manager), so a plugin calls no engine
   symbol by name and links against nothing.

VERSIONING RULES
   1. An API id (ECS_API_*) names a family; each version is its own struct
      type, name_vN. Once published, a struct never changes: no member is
      added, removed, reordered or retyped, and no meaning changes.
   2. A change is a new struct, name_v(N+1), published beside the old ones.
      The engine keeps publishing old versions for as long as it supports the
      plugins built against them (several versions side by side).
   3. get_engine_api(id, v) returns exactly version v or NULL. A plugin asks
      for the newest version it knows and falls back to older ones; NULL
      means "not here", never "use the newest".
   4. The same holds the other way round: the loader asks a plugin for the
      newest plugin API version it speaks, then older ones. A plugin that
      answers none is refused with ECS_ERROR_PLUGIN_VERSION.
   5. Ids below ECS_API_USER belong to this header. Use ECS_API_USER and up
      for your own APIs (ecs_plugin_publish, or a plugin through
      ECS_API_REGISTRY).

STANDARD ENGINE APIS
   ECS_API_ENTITIES    ecs_entities_api_v0   the desc's entity manager
   ECS_API_COMPONENTS  ecs_components_api_v0 engine-owned component managers
                       over ecs.h's runtime layouts (define by name and field
                       table; the data survives reloads), and the ecs_manager
                       operations
                       ecs_components_api_v1 the same, plus define_schema (a
                       manager from a schema) and the batch and collection
                       calls
   ECS_API_REGISTRY    ecs_registry_api_v0   a plugin publishes its own APIs
   ECS_API_TRANSFORMS  ecs_transforms_api_v0 (ecs_plugin_publish_transforms):
                       one world's transforms
                       ecs_transforms_api_v1 the same, plus ecs_transform.h's
                       matrix math under the header's names: mat4_compose
                       (translation, rotation, scale), mat4_mul,
                       mat4_inverse_affine, quat_axis_angle, ...
   ECS_API_RESOURCES   ecs_resources_api_v0  register a component's compile
                       and spawn functions (ecs_plugin_publish_resources), so
                       that levels can contain the plugin's component type
                       ecs_resources_api_v1  the same, plus register_schema
                       (compile and decompile from a schema) and
                       register_manager (that, and the generic spawn into an
                       engine-owned manager), write_entity
   ECS_API_CONSOLE     ecs_console_api_v0    (ecs_console.h's ecs_console_publish):
                       console commands a plugin adds; they go when it
                       unloads, and a reload's new build answers them
   Typed access: a manager defined through the registry (either version)
   keeps a typed view current, as ECS_MANAGER_DEFINE's managers do. Declare
   the view with the same list and cast the manager:
       #define SPIN_SCHEMA(X) X(vec3, axis, "[0, 1, 0]") X(f32, speed, "1") \
                              X(f32, angle, ECS_FIELD_RUNTIME)
       ECS_MANAGER_VIEW_DEFINE_SCHEMA(spin_view, SPIN_SCHEMA)
       uint32_t n;
       const ecs_schema_field *schema = spin_view_schema(&n);
       spin_view *s = (spin_view *)c1->define_schema(c1->registry, "spin",
                                                     schema, n, ECS_LOOKUP_HASH, err);
       r1->register_manager(r1->registry, "spin", 300, &s->core, err);
       ... s->angle[i] += s->speed[i] * dt;   // no field indices, no memcpy
   (examples/plugins/spin.c is such a plugin; ECS_MANAGER_VIEW_DEFINE does
   the same for define's field lists.)

INCLUDE ORDER (ECS_API_TRANSFORMS, ECS_API_RESOURCES)
   ecs_transforms_api_v0 and ecs_plugin_publish_transforms are declared once
   ecs_plugin.h and ecs_transform.h are both included, in either order;
   ecs_resources_api_v0/_v1 and ecs_plugin_publish_resources once
   ecs_plugin.h and ecs_resource.h are (the part of this file that needs both
   is read by whichever header comes second). ecs_plugin.h never includes
   them itself, so an engine without transforms or resources needs neither.
     - The engine: the ECS_PLUGIN_IMPLEMENTATION file includes the headers
       of the APIs it publishes (in any order) and compiles their publish
       functions with the rest. Without ecs_transform.h there is no
       ecs_plugin_publish_transforms: a call of it does not compile
       (undeclared), and one in another file that includes both headers does
       not link. No run-time stub.
     - A plugin that uses these APIs includes ecs_transform.h /
       ecs_resource.h beside ecs_plugin.h, for their types only: it still
       links against nothing.

LOADING AND HOT RELOAD
   ecs_plugin_load reads the library into memory once, checks those bytes
   (ecs_plugin_check_image: every part its headers point at lies inside the
   file, and it is a library of this platform and word size), writes them to
   a fresh copy (desc.copy_dir, default: next to the library) and loads the
   copy: the build may overwrite the original at any time, the bytes checked
   are the bytes loaded, and every load gets a fresh image with its own
   globals (a copy's name is never used twice in a process).
   Copies never pile up: on POSIX the copy's name is unlinked as soon as
   dlopen returns (the mapping stays valid), so a copy exists on disk only
   while it is being loaded, and a process that is killed later leaves
   nothing behind. The cost: debuggers and sanitizer symbolizers find a
   loaded plugin's symbols by its file name, and there is none; define
   ECS_PLUGIN_KEEP_COPIES to keep each copy until its unload while you debug
   (then a killed process leaves its copies: delete ecs_plugin_* files in the
   copy folder). Under _WIN32 a loaded DLL cannot be deleted: the copy stays
   until the unload, as with ECS_PLUGIN_KEEP_COPIES.
   ecs_plugin_poll notices a changed library (size, time or inode; or content,
   while the time stamp is too coarse to tell) and reloads it once it has
   looked the same for two polls in a row; ecs_plugin_reload does it now.
   Holding still is no proof that a build is complete (an interrupted build
   or copy also holds still, and a linker may pause between writes): a file
   that is empty, cut short ("truncated", by the check above) or zeros where
   its header goes is not loaded, the old build goes on, and the file is
   tried again when it changes again. ecs_plugin_poll calls such a file "not
   ready yet, retrying" (a note in err, result ECS_OK), not a failure;
   ecs_plugin_load and ecs_plugin_reload, asked for it now, fail with
   ECS_ERROR_PLUGIN_LOAD. So a plain rebuild works:
       cc -shared -fPIC ... -o plugin.so
   but the tidy way is to build to a temporary name and rename, which
   replaces the file in one step (POSIX rename; poll never sees a partial
   file, and a failed build leaves the old file in place):
       cc -shared -fPIC ... -o plugin.so.tmp && mv plugin.so.tmp plugin.so
   A reload:
     1. copies and loads the new build, finds get_plugin_api and a plugin API
        version; on failure the old build goes on untouched;
     2. calls the new init with the old state (*state = old state); what the
        new build registers under the names the old build used is staged;
     3. init failed: the staged registrations and any new ones are rolled
        back, the new library is closed, the old build goes on with its
        state (init must leave the state usable by the old build when it
        fails); init succeeded: staged function pointers and API structs are
        re-pointed in place, whatever the old build registered and the new
        one did not is removed, the old library is closed.
   Component managers defined through ECS_API_COMPONENTS belong to the
   engine: a reload hands the new build the same manager (same data) when it
   defines the same name with the same layout (from a schema: the same field
   names, kinds and runtime fields; new defaults and bounds are taken); a
   changed layout fails init. A schema registered for levels
   (register_schema, register_manager) must stay the same across a reload.
   The old build gets no call at a reload: its state now belongs to the new
   build. shutdown(state) runs only at the final unload, before the plugin's
   registrations are removed and the library is closed.

   Unloading from a plugin's own code. The registry knows whose code is
   running (init, tick, shutdown, and its compile and spawn functions).
   ecs_plugin_unload of a plugin whose code is on the stack (it unloads
   itself, or an engine call it makes ends in that unload) is *deferred*:
   it returns ECS_OK at once and happens once no plugin code is on the
   stack: right after the tick that asked returns (inside ecs_plugin_tick),
   otherwise at the start of the next ecs_plugin_tick or ecs_plugin_poll.
   Until then the plugin stays loaded (its handle valid, its tick skipped).
   An unload asked from the plugin's own shutdown is the unload under way
   (ECS_OK, nothing more). Unloading *another* plugin that is not running
   happens at once, and ecs_plugin_tick still ticks every plugin after it
   that frame. A reload asked while the plugin's code runs is refused
   (ECS_ERROR_INVALID_ARGUMENT): reload from the engine, between calls.

CONFIGURATION
   Implementation file only:
   ECS_REALLOC(p, n), ECS_FREE(p)  allocator, both or neither (realloc/free)
   ECS_PLUGIN_DLOPEN_FLAGS         dlopen flags (RTLD_NOW | RTLD_LOCAL)
   ECS_PLUGIN_KEEP_COPIES          defined: a loaded copy stays on disk until
                                   its unload, for debuggers (POSIX; default:
                                   unlinked once loaded)
   At run time, ecs_plugin_registry_desc (zero = default): entities (the
   entity manager ECS_API_ENTITIES hands out; not published when NULL),
   copy_dir (where loaded copies go), world (an ecs_world the plugins'
   managers join, so that the engine's queries, world collect and
   ecs_spawner_register_world / ecs_compiler_register_world see them: one
   registration).
   At most ECS_PLUGIN_MAX_REGISTRIES (16) registries exist at once in a
   process: get_engine_api has no context argument, so each registry takes
   one of 16 fixed entry points.

ERRORS
   Every failure returns an ecs_result and fills the caller's ecs_error:
     ECS_ERROR_PLUGIN_LOAD     the file is missing or unreadable, a
                               directory or another non-regular file (a FIFO
                               is never opened), empty, not a shared library
                               (no ELF, PE or Mach-O header; an object file or
                               an executable), truncated (the message names
                               the part that lies beyond the end), a library
                               of another platform or word size; or the OS
                               refused it (the message carries dlerror's text)
     ECS_ERROR_PLUGIN_NO_ENTRY the library exports no get_plugin_api
     ECS_ERROR_PLUGIN_VERSION  no plugin API version we speak (the message
                               lists the versions the plugin answers to)
     ECS_ERROR_PLUGIN_INIT     init failed (the message carries the plugin's
                               code and message), e.g. because a name it
                               registers is taken or a manager's layout
                               changed across a reload
     ECS_ERROR_IO              the copy could not be written (a full disk)
     ECS_ERROR_ALREADY_EXISTS  a name or (id, version) is taken
     ECS_ERROR_NOT_FOUND       a stale plugin handle; register_* into a
                               compiler or spawner the engine did not publish
     ECS_ERROR_INVALID_ARGUMENT a reload of a plugin whose code is running;
                               and bad arguments, as everywhere
     ECS_ERROR_OUT_OF_MEMORY   as everywhere
   ecs_plugin_poll returns ECS_OK or the first failure's code; how many
   plugins it reloaded comes through its out parameter, so a count is never
   mistaken for an error:
       uint32_t reloaded;
       if (ecs_plugin_poll(reg, &reloaded, &err) != ECS_OK) log(err.message);
   The engine goes on after every one of them: a failed load or reload
   leaves the registry exactly as it was before.

MEMORY AND POINTER STABILITY
   The registry copies published API structs: get_engine_api returns the
   registry's copy, valid until it is unpublished or its plugin unloaded; a
   reload overwrites it in place, so pointers other plugins hold stay valid
   and reach the new code. ecs_manager pointers from define/find stay valid
   until their plugin is unloaded (reloads keep them). A plugin handle is
   { uint32_t id } with a generation: a stale handle is refused, never
   aliased (a slot whose 65,536 generations are used up is not taken
   again). A plugin's state is the plugin's memory. A load or reload holds
   the whole library file in memory while it checks and copies it (freed
   before dlopen).

SANITIZERS
   Build plugins with the same sanitizer flags as the engine: an ASan engine
   loads ASan plugins, and one runtime serves both (gcc's shared libasan;
   clang's, linked into the executable). LeakSanitizer
   works with unloading: leaks made by a plugin are still reported after its
   library is closed, but their stack frames inside it print as
   "<unknown module>". Keeping libraries mapped (ECS_PLUGIN_DLOPEN_FLAGS with
   RTLD_NODELETE) symbolizes those frames but *hides* every leak still
   reachable from the plugin's globals, so the default unloads. A report
   made while a plugin is loaded names its frames by function and line only
   when the copy is still on disk: define ECS_PLUGIN_KEEP_COPIES for that
   (see LOADING AND HOT RELOAD).

THREADING
   No locks. One registry belongs to one thread; get_engine_api may be called
   from any thread while no other thread changes that registry. Spawn
   functions registered through a registry name it as their store
   (ecs_spawner_set_store): ecs_spawner_spawn_jobs runs them all on one
   task, one at a time. Registry
   create/destroy claim and release their entry point atomically.

DOES NOT
   stop the old build's threads at a reload (join them in a state you can
   hand over, or do not reload such plugins), migrate a state whose layout
   changed (put a version number at its start), unload C++ plugins that glibc
   marks unique (STB_GNU_UNIQUE symbols; build with -fno-gnu-unique), watch
   files with inotify (poll once a frame), sandbox plugins, or offer entity
   destroy callbacks to plugins (a reload would have to re-point them;
   plugins collect their data with gc instead), check Mach-O files beyond
   their magic (they go to dlopen as they are), or choose large-file
   support for you: a 32-bit program built without -D_FILE_OFFSET_BITS=64
   cannot stat a file whose inode number or size does not fit 32 bits (the
   load fails and says so), or let a plugin's own code destroy its registry
   (unloads wait for the plugin's code to return; a destroy cannot).

REFERENCE (every public function; the declarations below have the details)
   Registry (the engine):
     ecs_plugin_registry *ecs_plugin_registry_create(const ecs_plugin_registry_desc *desc, ecs_error *err)
                             a registry with the standard APIs published
     void ecs_plugin_registry_destroy(ecs_plugin_registry *reg)
                             unloads every plugin, frees everything
     ecs_plugin_get_api_fn ecs_plugin_registry_get_api(const ecs_plugin_registry *reg)
                             the get_engine_api that plugins of reg get
     ecs_result ecs_plugin_publish(ecs_plugin_registry *reg, unsigned api, unsigned version,
                                   const void *api_struct, size_t size, ecs_error *err)
                             publishes a copy of an API struct as (api, version)
     ecs_result ecs_plugin_unpublish(ecs_plugin_registry *reg, unsigned api, unsigned version)
                             removes (api, version) (during its owner's reload:
                             when the reload succeeds)
     void *ecs_plugin_find_api(const ecs_plugin_registry *reg, unsigned api, unsigned version)
                             the registry's copy of (api, version), or NULL
   Other headers' registrations (ecs_plugin_tracker: apply and remove callbacks):
     ecs_result ecs_plugin_track(ecs_plugin_registry *reg, const ecs_plugin_tracker *tracker,
                                 const char *name, const void *value, size_t size, ecs_error *err)
                             a named value owned by the calling plugin (or the engine),
                             staged across its reloads, removed at its unload
     ecs_result ecs_plugin_untrack(ecs_plugin_registry *reg, const ecs_plugin_tracker *tracker,
                                   const char *name)
                             removes it now (from a reload's new build:
                             when the reload succeeds)
     ecs_result ecs_plugin_track_call(ecs_plugin_registry *reg, const ecs_plugin_tracker *tracker,
                                      const char *name, void (*fn)(void *user), void *user)
                             calls fn as the name's owner (an unload meanwhile waits)
   Plugins (the engine):
     ecs_result ecs_plugin_load(ecs_plugin_registry *reg, const char *path, ecs_plugin *out, ecs_error *err)
                             loads a library (through a checked copy), calls init
     ecs_result ecs_plugin_unload(ecs_plugin_registry *reg, ecs_plugin plugin)
                             shutdown, registrations removed, library closed
                             (deferred while the plugin's code runs)
     ecs_result ecs_plugin_reload(ecs_plugin_registry *reg, ecs_plugin plugin, ecs_error *err)
                             reloads from the plugin's path now
     ecs_result ecs_plugin_poll(ecs_plugin_registry *reg, uint32_t *reloaded, ecs_error *err)
                             reloads the libraries that changed and held still
     void ecs_plugin_tick(ecs_plugin_registry *reg, float dt)
                             every plugin's tick, in load order
     ecs_result ecs_plugin_check_image(const void *bytes, size_t size, const char *name, ecs_error *err)
                             is this buffer a whole shared library (ELF, PE)?
     ecs_result ecs_plugin_get_info(const ecs_plugin_registry *reg, ecs_plugin plugin, ecs_plugin_info *out)
                             name, paths, state, reloads of a loaded plugin
     uint32_t ecs_plugin_count(const ecs_plugin_registry *reg)
                             plugins loaded
     uint32_t ecs_plugin_registration_count(const ecs_plugin_registry *reg)
                             registrations of every owner
   Engine-owned component managers (also ECS_API_COMPONENTS' define, define_schema, find):
     ecs_manager *ecs_plugin_define_manager(ecs_plugin_registry *reg, const char *name,
                                            const ecs_field_desc *fields, uint32_t num_fields,
                                            ecs_lookup_kind lookup, ecs_error *err)
                             a manager from a field table, kept across reloads
     ecs_manager *ecs_plugin_define_manager_schema(ecs_plugin_registry *reg, const char *name,
                                                   const ecs_schema_field *schema, uint32_t num_fields,
                                                   ecs_lookup_kind lookup, ecs_error *err)
                             the same from a schema (the schema attached)
     ecs_manager *ecs_plugin_find_manager(ecs_plugin_registry *reg, const char *name)
                             a manager defined so far, or NULL
   Standard APIs over the other headers (INCLUDE ORDER):
     ecs_result ecs_plugin_publish_transforms(ecs_plugin_registry *reg, ecs_transform_manager *tm,
                                              ecs_error *err)
                             ECS_API_TRANSFORMS v0 and v1 over tm
     ecs_result ecs_plugin_publish_resources(ecs_plugin_registry *reg, ecs_compiler *compiler,
                                             ecs_spawner *spawner, ecs_error *err)
                             ECS_API_RESOURCES v0 and v1 over a compiler and a spawner
   For plugins (static inline: a plugin links against nothing):
     ecs_result ecs_plugin_set_error(ecs_error *err, ecs_result code, const char *format, ...)
                             fills err with code and a printf-style message
   A plugin exports (THE ABI):
     void *get_plugin_api(unsigned api, unsigned version)
                             its ecs_plugin_api_v0 for (ECS_API_PLUGIN, 0), else NULL
   Types: ecs_plugin (a handle), ecs_plugin_registry, ecs_plugin_registry_desc,
   ecs_plugin_info, ecs_plugin_get_api_fn, ecs_plugin_entity (ecs_entity, for
   function pointers: see its declaration), and the API structs
   ecs_plugin_api_v0, ecs_entities_api_v0, ecs_components_api_v0/_v1,
   ecs_registry_api_v0, ecs_transforms_api_v0/_v1, ecs_resources_api_v0/_v1.

REVISION HISTORY
   0.8  fix: ecs_plugin_untrack from a reloading plugin's new build keeps
        the old build's registration until the reload succeeds (it was
        removed at once, so a failed reload lost the old build's console
        command); so does ecs_plugin_unpublish for an API the old build
        published (a failed reload lost the API)
   0.7  a registry's spawn registrations name the registry as their store,
        so ecs_spawner_spawn_jobs runs them on one task (it ran them on
        several: the thunks raced on the registry, and grouped managers
        defined through it were spawned at once)
   0.6  fix: a load from a plugin's init gets a slot and a place in the load
        order of its own (it took the outer load's slot: a wrong handle, a
        crash in the registry's destroy); a slot whose handle generations
        are used up retires (they wrapped: a stale handle named a new plugin)
   0.5  fix: register_manager is all or nothing (when the spawn half failed,
        the schema half stayed registered and a corrected retry failed)
   0.4  ecs_plugin_track, _untrack and _track_call: registrations of other
        headers (ecs_console.h's commands) that follow a plugin's unloads
        and reloads as the registry's own do; ECS_API_CONSOLE
   0.3  an unload asked while the plugin's code runs (its own tick or
        shutdown) is deferred until it returns, a reload then is refused
        (was a crash); ecs_plugin_tick ticks every plugin after one that
        unloaded an earlier plugin; a reload refused after define_schema
        gave a manager new defaults puts the old schema back;
        ecs_plugin_poll returns ecs_result and gives the count through an
        out parameter (was: returned the count); a library a build is still
        writing (empty, cut short) is "not ready yet" for poll, not an
        error; ecs_transforms_api_v1 (the header's matrix math under its own
        names); ecs_plugin_entity (was ecs__plugin_entity); REFERENCE
   0.2  the library's bytes checked before dlopen (ELF and PE extents,
        truncated files, word size and byte order; directories and FIFOs
        refused), copies unlinked once loaded (ECS_PLUGIN_KEEP_COPIES);
        typed access and components from data (ecs_components_api_v1,
        ecs_resources_api_v1: define_schema, register_schema,
        register_manager, write_entity); the transform and resource APIs
        declared once both headers are in, in either order (no run-time
        stubs, no copies of those headers' types: ecs_plugin_compile_fn is
        ecs_compiler_fn now); ECS_DEF on every public function
   0.1  API registry with versioned ABI, loader (dlopen / LoadLibrary),
        tracked registrations with rollback, hot reload
*/
#ifndef ECS_PLUGIN_H_INCLUDED
#define ECS_PLUGIN_H_INCLUDED

#include "ecs.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- API ids: ids below ECS_API_USER are this header's ------------------- */
#define ECS_API_PLUGIN 0u     /* ecs_plugin_api_v0: what get_plugin_api answers */
#define ECS_API_ENTITIES 1u   /* ecs_entities_api_v0 */
#define ECS_API_COMPONENTS 2u /* ecs_components_api_v0 */
#define ECS_API_TRANSFORMS 3u /* ecs_transforms_api_v0, _v1 */
#define ECS_API_RESOURCES 4u  /* ecs_resources_api_v0 */
#define ECS_API_REGISTRY 5u   /* ecs_registry_api_v0 */
#define ECS_API_CONSOLE 6u    /* ecs_console_api_v0 (ecs_console.h's ecs_console_publish) */
#define ECS_API_USER 256u     /* first id for your own APIs */

/** The newest version of the plugin API (ECS_API_PLUGIN) this header speaks. */
#define ECS_PLUGIN_API_VERSION 0u
/** How many registries may exist at once in one process. */
#define ECS_PLUGIN_MAX_REGISTRIES 16

#if defined(_WIN32)
#define ECS__PLUGIN_VISIBLE __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define ECS__PLUGIN_VISIBLE __attribute__((visibility("default")))
#else
#define ECS__PLUGIN_VISIBLE
#endif
/** Put before a plugin's get_plugin_api definition: exported, C linkage. */
#ifdef __cplusplus
#define ECS_PLUGIN_EXPORT extern "C" ECS__PLUGIN_VISIBLE
#else
#define ECS_PLUGIN_EXPORT ECS__PLUGIN_VISIBLE
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The seed's query function, both ways: get_plugin_api and get_engine_api.
    Returns the struct of that exact (api, version), or NULL. */
typedef void *(*ecs_plugin_get_api_fn)(unsigned api, unsigned version);

/** ECS_API_PLUGIN version 0: what a plugin gives the engine. */
typedef struct ecs_plugin_api_v0 {
    /** The plugin's name for messages and ecs_plugin_get_info (copied at
        load; NULL: the file's name). */
    const char *name;
    /** Required. *state is NULL at a first load and the previous build's state
        at a reload. Set *state and return ECS_OK, or return an error code and
        explain in err (ecs_plugin_set_error); a failing init must leave a
        reload's state usable by the old build. get_engine_api stays valid
        while the plugin is loaded. */
    ecs_result (*init)(ecs_plugin_get_api_fn get_engine_api, void **state, ecs_error *err);
    /** Optional. Final unload only (never at a reload): free the state. The
        plugin's registrations still exist during the call. */
    void (*shutdown)(void *state);
    /** Optional. Called once per ecs_plugin_tick, in load order. */
    void (*tick)(void *state, float dt);
} ecs_plugin_api_v0;

/** The type ecs_entity, under the name the API structs use where a
    function pointer returns one: flecs defines a function-like macro named
    ecs_entity, which would expand the type name wherever an opening
    parenthesis follows it (as in a function pointer member) in a program
    that includes both. Write ecs_entity everywhere else. */
typedef ecs_entity ecs_plugin_entity;

/** ECS_API_ENTITIES version 0: the engine's entity manager and ecs.h's calls. */
typedef struct ecs_entities_api_v0 {
    ecs_entity_manager *entities; /* the manager the engine spawns into */
    ecs_plugin_entity (*create)(ecs_entity_manager *em);
    ecs_result (*create_many)(ecs_entity_manager *em, uint32_t n, ecs_entity *out);
    int (*destroy)(ecs_entity_manager *em, ecs_entity e);
    uint32_t (*destroy_many)(ecs_entity_manager *em, uint32_t n, const ecs_entity *es);
    int (*alive)(const ecs_entity_manager *em, ecs_entity e);
    uint32_t (*count)(const ecs_entity_manager *em);
} ecs_entities_api_v0;

typedef struct ecs_plugin_registry ecs_plugin_registry;

/** ECS_API_COMPONENTS version 0: engine-owned component managers. */
typedef struct ecs_components_api_v0 {
    ecs_plugin_registry *registry; /* pass as the first argument of define/find */
    /** ecs_plugin_define_manager: a new manager owned by the engine and
        removed when the calling plugin unloads; across a reload the same
        name and layout give back the same manager, data intact. */
    ecs_manager *(*define)(ecs_plugin_registry *reg, const char *name, const ecs_field_desc *fields,
                           uint32_t num_fields, ecs_lookup_kind lookup, ecs_error *err);
    /** ecs_plugin_find_manager: any manager defined so far, or NULL. */
    ecs_manager *(*find)(ecs_plugin_registry *reg, const char *name);
    ecs_result (*reserve)(ecs_manager *m, uint32_t n);
    ecs_instance (*create)(ecs_manager *m, ecs_entity e);
    ecs_instance (*lookup)(const ecs_manager *m, ecs_entity e);
    ecs_instance (*next)(const ecs_manager *m, ecs_instance i);
    int (*destroy)(ecs_manager *m, ecs_instance i);
    uint32_t (*destroy_entity)(ecs_manager *m, ecs_entity e);
    uint32_t (*gc)(ecs_manager *m, const ecs_entity_manager *em);
    uint32_t (*record_size)(const ecs_manager *m);
    ecs_spawn_fn spawn;     /* ecs_manager_spawn (user = the ecs_manager*) */
    ecs_unspawn_fn unspawn; /* ecs_manager_unspawn */
} ecs_components_api_v0;

/** ECS_API_COMPONENTS version 1: v0's calls and more. A manager defined
    through the registry (either version) keeps a typed view current, so a
    plugin reads and writes it as a game does a manager of
    ECS_MANAGER_DEFINE: declare the struct with ECS_MANAGER_VIEW_DEFINE(view,
    FIELDS) (define's field list) or ECS_MANAGER_VIEW_DEFINE_SCHEMA(view,
    SCHEMA) (define_schema's), and cast: view *v = (view *)m; v->speed[i.i].
    The pointers stay right after every call that moves the arrays. */
typedef struct ecs_components_api_v1 {
    ecs_plugin_registry *registry; /* pass as the first argument of define/define_schema/find */
    /** ecs_plugin_define_manager (as v0). */
    ecs_manager *(*define)(ecs_plugin_registry *reg, const char *name, const ecs_field_desc *fields,
                           uint32_t num_fields, ecs_lookup_kind lookup, ecs_error *err);
    /** ecs_plugin_define_manager_schema: the fields from a schema (ecs.h's
        ecs_schema_field table, e.g. view_schema(&n) of
        ECS_MANAGER_VIEW_DEFINE_SCHEMA), the schema attached, so spawn reads
        its records; across a reload the same name, kinds and fields give
        back the same manager. */
    ecs_manager *(*define_schema)(ecs_plugin_registry *reg, const char *name, const ecs_schema_field *schema,
                                  uint32_t num_fields, ecs_lookup_kind lookup, ecs_error *err);
    /** ecs_plugin_find_manager: any manager defined so far, or NULL. */
    ecs_manager *(*find)(ecs_plugin_registry *reg, const char *name);
    ecs_result (*reserve)(ecs_manager *m, uint32_t n);
    ecs_instance (*create)(ecs_manager *m, ecs_entity e);
    ecs_result (*create_many)(ecs_manager *m, uint32_t n, const ecs_entity *entities, const void *records,
                              ecs_instance *first);
    ecs_instance (*lookup)(const ecs_manager *m, ecs_entity e);
    void (*lookup_many)(const ecs_manager *m, uint32_t n, const ecs_entity *entities, ecs_instance *out);
    ecs_instance (*next)(const ecs_manager *m, ecs_instance i);
    int (*destroy)(ecs_manager *m, ecs_instance i);
    uint32_t (*destroy_entity)(ecs_manager *m, ecs_entity e);
    uint32_t (*gc)(ecs_manager *m, const ecs_entity_manager *em);
    uint32_t (*gc_all)(ecs_manager *m, const ecs_entity_manager *em);
    uint32_t (*collect)(ecs_manager *m, const ecs_entity_manager *em);
    uint32_t (*record_size)(const ecs_manager *m);
    ecs_spawn_fn spawn;     /* ecs_manager_spawn (user = the ecs_manager*) */
    ecs_unspawn_fn unspawn; /* ecs_manager_unspawn */
} ecs_components_api_v1;

/** ECS_API_REGISTRY version 0: plugins publish APIs for other plugins. */
typedef struct ecs_registry_api_v0 {
    ecs_plugin_registry *registry;
    /** ecs_plugin_publish: the struct is copied; it is removed when the
        calling plugin unloads and re-pointed in place when it reloads. */
    ecs_result (*publish)(ecs_plugin_registry *reg, unsigned api, unsigned version, const void *api_struct,
                          size_t size, ecs_error *err);
} ecs_registry_api_v0;

/** A loaded plugin: index in the low 16 bits, generation above. Zero is nil. */
typedef struct ecs_plugin {
    uint32_t id;
} ecs_plugin;

/** Registry settings; zero-initialised means every default. */
typedef struct ecs_plugin_registry_desc {
    /** Published as ECS_API_ENTITIES v0 when non-NULL. */
    ecs_entity_manager *entities;
    /** Where loaded copies of libraries are written; NULL: the library's own
        folder. Must allow executable mappings (not a noexec mount). */
    const char *copy_dir;
    /** A world (ecs.h) the component types come from, or NULL. Managers
        plugins define are registered in it under their names (and leave it
        when their owner unloads; a reload keeps them registered, data
        intact), a name the world has already is refused, and
        ecs_plugin_find_manager finds the world's managers too. With
        entities NULL, ECS_API_ENTITIES publishes &world->entities. The
        world must outlive the registry. */
    ecs_world *world;
} ecs_plugin_registry_desc;

/** What ecs_plugin_get_info reports. Strings belong to the registry: valid
    until the plugin is reloaded or unloaded. */
typedef struct ecs_plugin_info {
    const char *name;         /* the plugin's name */
    const char *path;         /* the library path given to ecs_plugin_load */
    const char *loaded_path;  /* the copy actually loaded (POSIX: unlinked once
                                 loaded, unless ECS_PLUGIN_KEEP_COPIES) */
    void *state;              /* what init put in *state */
    unsigned api_version;     /* the plugin API version agreed on */
    uint32_t reloads;         /* successful reloads so far */
    uint32_t registrations;   /* things this plugin registered */
} ecs_plugin_info;

/** Creates a registry and publishes the standard APIs (ECS_API_ENTITIES when
    desc->entities is set, ECS_API_COMPONENTS, ECS_API_REGISTRY). desc may be
    NULL. Returns NULL on failure (err: ECS_ERROR_OUT_OF_MEMORY, or
    ECS_ERROR_INVALID_ARGUMENT when ECS_PLUGIN_MAX_REGISTRIES exist). */
ECS_DEF ecs_plugin_registry *ecs_plugin_registry_create(const ecs_plugin_registry_desc *desc, ecs_error *err);
/** Unloads every plugin (shutdown, newest first), removes every registration
    and frees the registry. NULL is a no-op. */
ECS_DEF void ecs_plugin_registry_destroy(ecs_plugin_registry *reg);
/** The get_engine_api function bound to this registry (what plugins get);
    the engine may use it too. Valid until the registry is destroyed. */
ECS_DEF ecs_plugin_get_api_fn ecs_plugin_registry_get_api(const ecs_plugin_registry *reg);

/** Publishes a copy of api_struct (size bytes) as (api, version). Called by
    the engine the registration belongs to the engine; called from a plugin
    (through ECS_API_REGISTRY) it belongs to that plugin. Returns ECS_OK,
    ECS_ERROR_ALREADY_EXISTS, ECS_ERROR_INVALID_ARGUMENT (NULL or size 0),
    ECS_ERROR_OUT_OF_MEMORY. */
ECS_DEF ecs_result ecs_plugin_publish(ecs_plugin_registry *reg, unsigned api, unsigned version, const void *api_struct,
                                      size_t size, ecs_error *err);
/** Removes (api, version), whoever published it. ECS_OK or ECS_ERROR_NOT_FOUND.
    Pointers to the removed struct dangle: unpublish only what no plugin holds.
    Called while a plugin is being reloaded for an API its old build
    published (by the new build, or engine code its init calls), it removes
    the API only when the reload succeeds: the old struct stays published
    meanwhile and stays for good when the reload fails (publishing it again
    after unpublishing it is staged as usual; a second unpublish is
    ECS_ERROR_NOT_FOUND). */
ECS_DEF ecs_result ecs_plugin_unpublish(ecs_plugin_registry *reg, unsigned api, unsigned version);
/** The registry's copy of (api, version), or NULL (what get_engine_api does). */
ECS_DEF void *ecs_plugin_find_api(const ecs_plugin_registry *reg, unsigned api, unsigned version);

/** How another header keeps its own registrations in the registry, so that
    they follow a plugin's life as the registry's own do (ecs_console.h's
    commands use it): ecs_plugin_track copies a value under a name; the
    registry calls apply when the value becomes what the name means and
    remove when the name is gone. The struct (and context) must outlive
    every registration made with it; names are unique per tracker. */
typedef struct ecs_plugin_tracker {
    const char *what;  /* what a name is, for messages: "console command" */
    void *context;     /* handed to apply and remove */
    /** value (the registry's copy, valid until remove) is now what name
        means: called by ecs_plugin_track at a first registration, and when
        a reload succeeds for a name its new build registered again. Copy
        what you keep out of it that points into the plugin (strings): the
        old build's image is closed after a reload. */
    void (*apply)(void *context, const char *name, const void *value);
    /** name is gone: its owner unloaded, a load or reload failed and rolled
        it back, a reload succeeded without registering it again,
        ecs_plugin_untrack, or the registry is being destroyed. */
    void (*remove)(void *context, const char *name);
} ecs_plugin_tracker;
/** Registers name under tracker with a copy of value (size bytes), owned by
    the caller: the plugin whose code is running (its init, or an API call
    it makes), else the engine. A first registration calls tracker->apply
    at once. During a reload of the owner, the new build registering a name
    the old one had is staged: apply runs when the reload succeeds (the old
    value stays in use until then, and comes back when it fails); names the
    new build does not register again are removed. ECS_OK;
    ECS_ERROR_ALREADY_EXISTS (the name is taken, err names the owner);
    ECS_ERROR_INVALID_ARGUMENT (NULL reg, tracker, name or value, size 0,
    or a size that changed across a reload); ECS_ERROR_OUT_OF_MEMORY.
    Nothing changes on failure. */
ECS_DEF ecs_result ecs_plugin_track(ecs_plugin_registry *reg, const ecs_plugin_tracker *tracker, const char *name,
                                    const void *value, size_t size, ecs_error *err);
/** Removes name from tracker's registrations (tracker->remove runs),
    whoever owns it. Called by the new build of a plugin being reloaded
    for a name its old build registered, it removes the name only when the
    reload succeeds: the old value stays in use meanwhile and stays for good
    when the reload fails (a name the new build registers again after
    untracking it is staged as usual). ECS_OK or ECS_ERROR_NOT_FOUND (also
    for a name the new build already untracked). */
ECS_DEF ecs_result ecs_plugin_untrack(ecs_plugin_registry *reg, const ecs_plugin_tracker *tracker, const char *name);
/** Calls fn(user) as name's owner: while it runs, the registry counts the
    owning plugin's code as on the stack (an unload asked meanwhile waits
    until it returns, as for its tick) and what it registers belongs to that
    plugin. For calling a plugin's function that a tracked value holds.
    Returns ECS_OK after the call, or ECS_ERROR_NOT_FOUND (fn not called)
    when tracker has no such name. */
ECS_DEF ecs_result ecs_plugin_track_call(ecs_plugin_registry *reg, const ecs_plugin_tracker *tracker, const char *name,
                                         void (*fn)(void *user), void *user);

/** Loads the library at path (through a copy), agrees on a plugin API
    version and calls init. On success *out is the plugin's handle. On
    failure *out is nil, err says why (ECS_ERROR_PLUGIN_LOAD, _NO_ENTRY,
    _VERSION, _INIT, ECS_ERROR_IO, ECS_ERROR_OUT_OF_MEMORY) and nothing the
    plugin registered is left. out may be NULL. A plugin's init may load
    another plugin (through an API the engine publishes: a dependency it
    needs first); each gets a slot and a place in the load order of its
    own, the inner one first. */
ECS_DEF ecs_result ecs_plugin_load(ecs_plugin_registry *reg, const char *path, ecs_plugin *out, ecs_error *err);
/** Calls shutdown, removes the plugin's registrations (managers included),
    closes the library and deletes its copy if it is still on disk. ECS_OK,
    or ECS_ERROR_NOT_FOUND for a nil or stale handle (a no-op). Asked while
    the plugin's own code runs (from its tick or shutdown, or an engine call
    it makes), the unload is deferred until no plugin code is on the stack
    and ECS_OK is returned at once (LOADING AND HOT RELOAD). */
ECS_DEF ecs_result ecs_plugin_unload(ecs_plugin_registry *reg, ecs_plugin plugin);
/** Reloads now from the plugin's path (see LOADING AND HOT RELOAD). On
    failure the old build is still loaded and running, with its state and
    registrations, and err says why (the load errors, ECS_ERROR_NOT_FOUND
    for a stale handle, ECS_ERROR_INVALID_ARGUMENT when asked while the
    plugin's own code runs). */
ECS_DEF ecs_result ecs_plugin_reload(ecs_plugin_registry *reg, ecs_plugin plugin, ecs_error *err);
/** Looks at every plugin's library file and reloads those that changed and
    then held still for one more poll. *reloaded (may be NULL) is how many
    were reloaded. Returns ECS_OK, or the first failure's code with err (may
    be NULL) saying why (the load errors of ecs_plugin_reload; the other
    plugins are still polled); ECS_ERROR_INVALID_ARGUMENT for a NULL reg. A
    file that looks half-written (empty, cut short, or zeros where its header
    goes: a build still writing it) is no failure: the result stays ECS_OK,
    err->message says "not ready yet ... retrying" (code ECS_OK), and the old
    build goes on. A failed or half-written build is tried again once its
    file changes again. Cheap: one stat per plugin (plus a read of the file
    for a second or so after it changed). */
ECS_DEF ecs_result ecs_plugin_poll(ecs_plugin_registry *reg, uint32_t *reloaded, ecs_error *err);
/** Calls every loaded plugin's tick(state, dt) in load order, each once,
    including those after a plugin whose tick unloaded another one. A plugin
    loaded during the ticks ticks from the next call. */
ECS_DEF void ecs_plugin_tick(ecs_plugin_registry *reg, float dt);

/** Checks that bytes[0, size) hold a whole shared library: an ELF file (32-
    or 64-bit, either byte order) of type ET_DYN whose ELF header, program
    headers, segments' file extents, section header table and sections lie
    inside the buffer; or a PE file with the DLL flag whose DOS and PE
    headers, section table, sections' raw data, COFF symbol and string tables
    and certificate table lie inside it. Mach-O files are recognised but not
    checked. ecs_plugin_load runs it on every copy before the OS loader sees
    it (a cut-short file makes dlopen crash with SIGBUS). Returns ECS_OK, or
    ECS_ERROR_PLUGIN_LOAD with a message that names `name` (NULL: "image")
    and says what is wrong: "truncated" and which part lies beyond the end,
    "empty", or "not a shared library". Reads nothing outside the buffer, with
    overflow-safe arithmetic, whatever the bytes say; bytes may be NULL when
    size is 0. Does not need a registry. */
ECS_DEF ecs_result ecs_plugin_check_image(const void *bytes, size_t size, const char *name, ecs_error *err);

/** Fills *out for a loaded plugin. ECS_OK or ECS_ERROR_NOT_FOUND (stale). */
ECS_DEF ecs_result ecs_plugin_get_info(const ecs_plugin_registry *reg, ecs_plugin plugin, ecs_plugin_info *out);
/** Number of plugins loaded. */
ECS_DEF uint32_t ecs_plugin_count(const ecs_plugin_registry *reg);
/** Number of registrations of every owner (APIs, managers, compile and
    spawn functions): what a failed load must leave unchanged. */
ECS_DEF uint32_t ecs_plugin_registration_count(const ecs_plugin_registry *reg);

/** Defines an engine-owned component manager `name` (ecs_manager_init_with_view
    with fields, copied; the typed view of ECS_MANAGER_VIEW_DEFINE with the
    same field list follows the core: cast the result to it) owned by the
    calling plugin, or by the engine when called outside a plugin. During a
    reload of its owner, the same name with the same layout returns the
    existing manager with its data. NULL on failure:
    ECS_ERROR_ALREADY_EXISTS, ECS_ERROR_INVALID_ARGUMENT (bad name or fields,
    or a layout change across a reload), ECS_ERROR_OUT_OF_MEMORY. */
ECS_DEF ecs_manager *ecs_plugin_define_manager(ecs_plugin_registry *reg, const char *name, const ecs_field_desc *fields,
                                               uint32_t num_fields, ecs_lookup_kind lookup, ecs_error *err);
/** ecs_plugin_define_manager with the field table of a schema (ecs.h's
    ecs_schema_field, see ecs_manager_init_schema) and the schema attached;
    the manager keeps the view of ECS_MANAGER_VIEW_DEFINE_SCHEMA with the same
    list current. Across a reload the same name, field names and kinds (and
    which fields are runtime state) give back the same manager; other spec
    changes (defaults, bounds) replace its schema. NULL on failure, as
    ecs_plugin_define_manager. */
ECS_DEF ecs_manager *ecs_plugin_define_manager_schema(ecs_plugin_registry *reg, const char *name,
                                                      const ecs_schema_field *schema, uint32_t num_fields,
                                                      ecs_lookup_kind lookup, ecs_error *err);
/** The manager defined as `name`, or NULL; with a world
    (ecs_plugin_registry_desc.world) also a manager registered there. Valid
    until its owner unloads (the world's: until it leaves the world). */
ECS_DEF ecs_manager *ecs_plugin_find_manager(ecs_plugin_registry *reg, const char *name);


/** For plugins (which do not link ecs_error_set): sets err (if non-NULL) to
    code and a printf-formatted message; returns code. */
static inline ecs_result ecs_plugin_set_error(ecs_error *err, ecs_result code, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static inline ecs_result ecs_plugin_set_error(ecs_error *err, ecs_result code, const char *format, ...)
{
    va_list ap;
    if (!err) return code;
    err->code = code;
    va_start(ap, format);
    vsnprintf(err->message, sizeof err->message, format, ap);
    va_end(ap);
    return code;
}

#ifdef __cplusplus
}
#endif
#endif /* ECS_PLUGIN_H_INCLUDED */

/* ========================================================================== */
#ifdef ECS_PLUGIN_IMPLEMENTATION
#ifndef ECS__PLUGIN_IMPLEMENTATION_DONE
#define ECS__PLUGIN_IMPLEMENTATION_DONE

#include <errno.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/types.h>

#if defined(ECS_REALLOC) && !defined(ECS_FREE) || !defined(ECS_REALLOC) && defined(ECS_FREE)
#error "define both ECS_REALLOC and ECS_FREE, or neither"
#endif
#ifndef ECS__REALLOC
#if defined(ECS_REALLOC) && !defined(PICO_ECS_REALLOC)
#define ECS__REALLOC(p, n) ECS_REALLOC(p, n)
#define ECS__FREE(p) ECS_FREE(p)
#else
#define ECS__REALLOC(p, n) realloc(p, n)
#define ECS__FREE(p) free(p)
#endif
#endif

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <dlfcn.h>
#include <unistd.h>
#ifndef ECS_PLUGIN_DLOPEN_FLAGS
#define ECS_PLUGIN_DLOPEN_FLAGS (RTLD_NOW | RTLD_LOCAL)
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- platform: the only OS-specific code ---------------------------------- */

typedef void (*ecs__plugin_fn)(void); /* storage for any function pointer */

/* What identifies a version of a file without reading it. */
typedef struct ecs__plugin_stamp {
    long long size, mtime, inode;
    int kind; /* ECS__PLUGIN_REGULAR, _DIRECTORY or _OTHER (not compared) */
} ecs__plugin_stamp;

#define ECS__PLUGIN_REGULAR 0
#define ECS__PLUGIN_DIRECTORY 1
#define ECS__PLUGIN_OTHER 2 /* a FIFO, device or socket: opening it may block */

#ifdef _WIN32
static void *ecs__plugin_dl_open(const char *path, char *msg, size_t msg_size)
{
    HMODULE lib = LoadLibraryA(path);
    if (!lib) {
        DWORD code = GetLastError();
        if (!FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, msg,
                            (DWORD)msg_size, NULL))
            snprintf(msg, msg_size, "LoadLibrary error %lu", (unsigned long)code);
    }
    return (void *)lib;
}
static ecs__plugin_fn ecs__plugin_dl_sym(void *lib, const char *name)
{
    return (ecs__plugin_fn)GetProcAddress((HMODULE)lib, name);
}
/* A loaded DLL's file cannot be deleted: the copy stays until unload. */
static void ecs__plugin_unlink_loaded(const char *path) { (void)path; }
static void ecs__plugin_dl_close(void *lib) { FreeLibrary((HMODULE)lib); }
static unsigned long ecs__plugin_pid(void) { return (unsigned long)GetCurrentProcessId(); }
static int ecs__plugin_stat(const char *path, ecs__plugin_stamp *out)
{
    struct _stat64 st;
    if (_stat64(path, &st) != 0) return 0;
    out->size = (long long)st.st_size;
    out->mtime = (long long)st.st_mtime;
    out->inode = 0;
    out->kind = (st.st_mode & _S_IFMT) == _S_IFREG   ? ECS__PLUGIN_REGULAR
                : (st.st_mode & _S_IFMT) == _S_IFDIR ? ECS__PLUGIN_DIRECTORY
                                                      : ECS__PLUGIN_OTHER;
    return 1;
}
#else
static void *ecs__plugin_dl_open(const char *path, char *msg, size_t msg_size)
{
    void *lib = dlopen(path, ECS_PLUGIN_DLOPEN_FLAGS);
    if (!lib) {
        const char *e = dlerror();
        snprintf(msg, msg_size, "%s", e ? e : "dlopen failed");
    }
    return lib;
}
static ecs__plugin_fn ecs__plugin_dl_sym(void *lib, const char *name)
{
    ecs__plugin_fn fn;
    void *sym = dlsym(lib, name);
    memcpy(&fn, &sym, sizeof fn); /* object to function pointer, as POSIX allows */
    return fn;
}
static void ecs__plugin_dl_close(void *lib) { dlclose(lib); }
/* Removes a loaded copy's name; the mapping stays valid. */
static void ecs__plugin_unlink_loaded(const char *path)
{
#ifdef ECS_PLUGIN_KEEP_COPIES
    (void)path;
#else
    unlink(path);
#endif
}
static unsigned long ecs__plugin_pid(void) { return (unsigned long)getpid(); }
static int ecs__plugin_stat(const char *path, ecs__plugin_stamp *out)
{
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    out->size = (long long)st.st_size;
    out->mtime = (long long)st.st_mtime;
    out->inode = (long long)st.st_ino;
    out->kind = S_ISREG(st.st_mode) ? ECS__PLUGIN_REGULAR
                : S_ISDIR(st.st_mode) ? ECS__PLUGIN_DIRECTORY
                                      : ECS__PLUGIN_OTHER;
    return 1;
}
#endif

/* ---- small helpers -------------------------------------------------------- */

static char *ecs__plugin_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = (char *)ECS__REALLOC(NULL, n);
    if (d) memcpy(d, s, n);
    return d;
}

static const char *ecs__plugin_basename(const char *path)
{
    const char *b = path, *p;
    for (p = path; *p; ++p)
        if (*p == '/' || *p == '\\') b = p + 1;
    return b;
}

static int ecs__plugin_stamp_equal(const ecs__plugin_stamp *a, const ecs__plugin_stamp *b)
{
    return a->size == b->size && a->mtime == b->mtime && a->inode == b->inode;
}

#define ECS__PLUGIN_FNV64_OFFSET 0xcbf29ce484222325ull
#define ECS__PLUGIN_FNV64_PRIME 0x100000001b3ull

static uint64_t ecs__plugin_hash(uint64_t h, const unsigned char *p, size_t n)
{
    size_t k;
    for (k = 0; k < n; ++k) h = (h ^ p[k]) * ECS__PLUGIN_FNV64_PRIME;
    return h;
}

/* FNV-1a 64 of the file's content into *hash; 0 when it cannot be read. */
static int ecs__plugin_hash_file(const char *path, uint64_t *hash)
{
    unsigned char buf[16384];
    uint64_t h = ECS__PLUGIN_FNV64_OFFSET;
    FILE *in = fopen(path, "rb");
    size_t n;
    int ok;
    if (!in) return 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) h = ecs__plugin_hash(h, buf, n);
    ok = !ferror(in);
    fclose(in);
    if (ok) *hash = h;
    return ok;
}

/* Reads the whole file into a new buffer (*out, *size; free with ECS__FREE)
   and hashes it. size_hint: what stat said (the file may still grow). */
static ecs_result ecs__plugin_read_file(const char *path, long long size_hint, unsigned char **out, size_t *size,
                                        uint64_t *hash, ecs_error *err)
{
    FILE *in = fopen(path, "rb");
    unsigned char *buf;
    size_t used = 0, cap, n;
    *out = NULL;
    *size = 0;
    if (!in) return ecs_error_set(err, ECS_ERROR_PLUGIN_LOAD, "cannot open plugin '%s'", path);
    /* one byte more than the size, so that the end shows without a regrowth */
    cap = size_hint > 0 && (unsigned long long)size_hint < (unsigned long long)((size_t)-1 / 4)
              ? (size_t)size_hint + 1
              : 4096;
    for (buf = NULL;;) {
        unsigned char *grown = (unsigned char *)ECS__REALLOC(buf, cap);
        if (!grown) {
            ECS__FREE(buf);
            fclose(in);
            return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "out of memory reading plugin '%s' (%llu bytes)",
                                 path, (unsigned long long)cap);
        }
        buf = grown;
        n = fread(buf + used, 1, cap - used, in);
        used += n;
        if (used < cap || cap > (size_t)-1 / 4) break; /* the end, an error, or too big */
        cap *= 2;                                        /* the file grew since stat */
    }
    if (ferror(in) || used == cap) {
        ECS__FREE(buf);
        fclose(in);
        return ecs_error_set(err, ECS_ERROR_PLUGIN_LOAD, "cannot read plugin '%s'", path);
    }
    fclose(in);
    *out = buf;
    *size = used;
    *hash = ecs__plugin_hash(ECS__PLUGIN_FNV64_OFFSET, buf, used);
    return ECS_OK;
}

/* Writes bytes to a new file dst (the copy of plugin src). */
static ecs_result ecs__plugin_write_file(const char *dst, const unsigned char *p, size_t n, const char *src,
                                         ecs_error *err)
{
    FILE *out = fopen(dst, "wb");
    int ok;
    if (!out) return ecs_error_set(err, ECS_ERROR_IO, "cannot write the copy '%s' of plugin '%s'", dst, src);
    ok = fwrite(p, 1, n, out) == n;
    if (fclose(out) != 0) ok = 0;
    if (!ok) {
        remove(dst);
        return ecs_error_set(err, ECS_ERROR_IO, "cannot write the copy '%s' of plugin '%s' (disk full?)", dst, src);
    }
    return ECS_OK;
}

/* ---- image check: a shared library whole, before the OS loader maps it ----- */

/* A byte buffer read as a file image. Every read goes through
   ecs__plugin_img_in first. */
typedef struct ecs__plugin_img {
    const unsigned char *p;
    uint64_t size;
    int big; /* multi-byte fields are big-endian */
    const char *name;
    ecs_error *err;
} ecs__plugin_img;

/* 1 when bytes [off, off + n) lie inside the image (no overflow). */
static int ecs__plugin_img_in(const ecs__plugin_img *im, uint64_t off, uint64_t n)
{
    return off <= im->size && n <= im->size - off;
}

/* The n-byte (n <= 8) unsigned field at off; the caller has checked that
   the field lies inside the image. */
static uint64_t ecs__plugin_img_get(const ecs__plugin_img *im, uint64_t off, unsigned n)
{
    uint64_t v = 0;
    unsigned k;
    for (k = 0; k < n; ++k) v = (v << 8) | im->p[(size_t)(off + (im->big ? k : n - 1u - k))];
    return v;
}

/* The start of the message of a file cut short (a build still writing it). */
#define ECS__PLUGIN_TRUNCATED "truncated"
static ecs_result ecs__plugin_img_truncated(const ecs__plugin_img *im, const char *what, uint64_t off, uint64_t n)
{
    return ecs_error_set(im->err, ECS_ERROR_PLUGIN_LOAD,
                         ECS__PLUGIN_TRUNCATED " plugin '%s': %s (%llu bytes at offset %llu) lies beyond the "
                         "end of the file (%llu bytes)",
                         im->name, what, (unsigned long long)n, (unsigned long long)off,
                         (unsigned long long)im->size);
}

static ecs_result ecs__plugin_img_invalid(const ecs__plugin_img *im, const char *what, uint64_t value)
{
    return ecs_error_set(im->err, ECS_ERROR_PLUGIN_LOAD, "plugin '%s' is not a valid shared library: %s (%llu)",
                         im->name, what, (unsigned long long)value);
}

/* count entries of entsize bytes at off: inside the image? (no overflow) */
static int ecs__plugin_img_table_in(const ecs__plugin_img *im, uint64_t off, uint64_t count, uint64_t entsize)
{
    return off <= im->size && (count == 0 || (entsize != 0 && count <= (im->size - off) / entsize));
}

/* count * entsize, or UINT64_MAX when that overflows (for messages). */
static uint64_t ecs__plugin_mul_sat(uint64_t count, uint64_t entsize)
{
    return entsize != 0 && count > UINT64_MAX / entsize ? UINT64_MAX : count * entsize;
}

static const char *ecs__plugin_elf_segment_name(uint64_t type)
{
    switch (type) {
    case 1: return "PT_LOAD";
    case 2: return "PT_DYNAMIC";
    case 3: return "PT_INTERP";
    case 4: return "PT_NOTE";
    case 6: return "PT_PHDR";
    case 7: return "PT_TLS";
    case 0x6474e550u: return "PT_GNU_EH_FRAME";
    case 0x6474e552u: return "PT_GNU_RELRO";
    case 0x6474e553u: return "PT_GNU_PROPERTY";
    default: return "segment";
    }
}

/* What the ELF header says about the tables (counts as in the header, or
   the real ones from section header 0 once ecs__plugin_elf_check_tables ran). */
typedef struct ecs__plugin_elf {
    int is64;
    uint64_t phoff, phentsize, phnum; /* program headers */
    uint64_t shoff, shentsize, shnum; /* section headers */
} ecs__plugin_elf;

/* Reads the identification and the ELF header: class, byte order, a
   shared library (ET_DYN), where the tables are. */
static ecs_result ecs__plugin_elf_read_header(ecs__plugin_img *im, ecs__plugin_elf *elf)
{
    unsigned cls, data;
    uint64_t ehsize, type;
    if (!ecs__plugin_img_in(im, 0, 16)) return ecs__plugin_img_truncated(im, "its ELF identification", 0, 16);
    cls = im->p[4];
    data = im->p[5];
    if (cls != 1 && cls != 2) return ecs__plugin_img_invalid(im, "unknown ELF class", cls);
    if (data != 1 && data != 2) return ecs__plugin_img_invalid(im, "unknown ELF byte order", data);
    elf->is64 = cls == 2;
    im->big = data == 2;
    ehsize = elf->is64 ? 64u : 52u;
    if (!ecs__plugin_img_in(im, 0, ehsize)) return ecs__plugin_img_truncated(im, "its ELF header", 0, ehsize);
    type = ecs__plugin_img_get(im, 16, 2);
    if (type != 3) {
        const char *kind = type == 1   ? "a relocatable object (.o)"
                           : type == 2 ? "an executable"
                           : type == 4 ? "a core dump"
                                       : NULL;
        if (kind)
            return ecs_error_set(im->err, ECS_ERROR_PLUGIN_LOAD,
                                 "plugin '%s' is an ELF file but %s, not a shared library (link it with -shared)",
                                 im->name, kind);
        return ecs__plugin_img_invalid(im, "unknown ELF file type", type);
    }
    if (elf->is64) {
        elf->phoff = ecs__plugin_img_get(im, 32, 8);
        elf->shoff = ecs__plugin_img_get(im, 40, 8);
        elf->phentsize = ecs__plugin_img_get(im, 54, 2);
        elf->phnum = ecs__plugin_img_get(im, 56, 2);
        elf->shentsize = ecs__plugin_img_get(im, 58, 2);
        elf->shnum = ecs__plugin_img_get(im, 60, 2);
    } else {
        elf->phoff = ecs__plugin_img_get(im, 28, 4);
        elf->shoff = ecs__plugin_img_get(im, 32, 4);
        elf->phentsize = ecs__plugin_img_get(im, 42, 2);
        elf->phnum = ecs__plugin_img_get(im, 44, 2);
        elf->shentsize = ecs__plugin_img_get(im, 46, 2);
        elf->shnum = ecs__plugin_img_get(im, 48, 2);
    }
    return ECS_OK;
}

/* The section and program header tables lie inside the image. Section
   header 0 first: it holds the real counts when they do not fit the ELF
   header's fields (e_shnum 0, e_phnum PN_XNUM). */
static ecs_result ecs__plugin_elf_check_tables(ecs__plugin_img *im, ecs__plugin_elf *elf)
{
    int is64 = elf->is64;
    if (elf->shoff != 0) {
        if (elf->shentsize < (is64 ? 64u : 40u))
            return ecs__plugin_img_invalid(im, "section header size", elf->shentsize);
        if (!ecs__plugin_img_in(im, elf->shoff, elf->shentsize))
            return ecs__plugin_img_truncated(im, "its section header table", elf->shoff,
                                             ecs__plugin_mul_sat(elf->shnum ? elf->shnum : 1, elf->shentsize));
        if (elf->shnum == 0) elf->shnum = ecs__plugin_img_get(im, elf->shoff + (is64 ? 32u : 20u), is64 ? 8u : 4u);
        if (elf->phnum == 0xFFFFu) elf->phnum = ecs__plugin_img_get(im, elf->shoff + (is64 ? 44u : 28u), 4);
        if (!ecs__plugin_img_table_in(im, elf->shoff, elf->shnum, elf->shentsize))
            return ecs__plugin_img_truncated(im, "its section header table", elf->shoff,
                                             ecs__plugin_mul_sat(elf->shnum, elf->shentsize));
    } else {
        elf->shnum = 0;
    }
    if (elf->phnum > 0) {
        if (elf->phentsize < (is64 ? 56u : 32u))
            return ecs__plugin_img_invalid(im, "program header size", elf->phentsize);
        if (!ecs__plugin_img_table_in(im, elf->phoff, elf->phnum, elf->phentsize))
            return ecs__plugin_img_truncated(im, "its program header table", elf->phoff,
                                             ecs__plugin_mul_sat(elf->phnum, elf->phentsize));
    }
    return ECS_OK;
}

/* Every program segment's and section's bytes in the file lie inside the
   image (the tables themselves were checked: no overflow below). */
static ecs_result ecs__plugin_elf_check_contents(ecs__plugin_img *im, const ecs__plugin_elf *elf)
{
    char what[96];
    int is64 = elf->is64;
    uint64_t k;
    for (k = 0; k < elf->phnum; ++k) {
        uint64_t o = elf->phoff + k * elf->phentsize, ptype, off, filesz;
        ptype = ecs__plugin_img_get(im, o, 4);
        off = ecs__plugin_img_get(im, o + (is64 ? 8u : 4u), is64 ? 8u : 4u);
        filesz = ecs__plugin_img_get(im, o + (is64 ? 32u : 16u), is64 ? 8u : 4u);
        if (filesz != 0 && !ecs__plugin_img_in(im, off, filesz)) {
            snprintf(what, sizeof what, "its program segment %llu (%s)", (unsigned long long)k,
                     ecs__plugin_elf_segment_name(ptype));
            return ecs__plugin_img_truncated(im, what, off, filesz);
        }
    }
    for (k = 1; k < elf->shnum; ++k) { /* section 0 is SHT_NULL */
        uint64_t o = elf->shoff + k * elf->shentsize, stype, off, sz;
        stype = ecs__plugin_img_get(im, o + 4, 4);
        off = ecs__plugin_img_get(im, o + (is64 ? 24u : 16u), is64 ? 8u : 4u);
        sz = ecs__plugin_img_get(im, o + (is64 ? 32u : 20u), is64 ? 8u : 4u);
        if (stype == 0 || stype == 8) continue; /* SHT_NULL, SHT_NOBITS: nothing in the file */
        if (sz != 0 && !ecs__plugin_img_in(im, off, sz)) {
            snprintf(what, sizeof what, "its section %llu", (unsigned long long)k);
            return ecs__plugin_img_truncated(im, what, off, sz);
        }
    }
    return ECS_OK;
}

static ecs_result ecs__plugin_check_elf(ecs__plugin_img *im)
{
    ecs__plugin_elf elf;
    ecs_result res;
    memset(&elf, 0, sizeof elf);
    res = ecs__plugin_elf_read_header(im, &elf);
    if (res == ECS_OK) res = ecs__plugin_elf_check_tables(im, &elf);
    if (res == ECS_OK) res = ecs__plugin_elf_check_contents(im, &elf);
    return res;
}

static ecs_result ecs__plugin_check_pe(ecs__plugin_img *im)
{
    char what[96];
    uint64_t pe, coff, opt, optsize, sections, nsec, chars, symptr, nsyms, k;
    im->big = 0;
    if (!ecs__plugin_img_in(im, 0, 64)) return ecs__plugin_img_truncated(im, "its DOS header", 0, 64);
    pe = ecs__plugin_img_get(im, 0x3C, 4);
    if (!ecs__plugin_img_in(im, pe, 24)) return ecs__plugin_img_truncated(im, "its PE header", pe, 24);
    if (memcmp(im->p + pe, "PE\0\0", 4) != 0)
        return ecs_error_set(im->err, ECS_ERROR_PLUGIN_LOAD,
                             "plugin '%s' is a DOS program, not a shared library (no PE signature)", im->name);
    coff = pe + 4;
    nsec = ecs__plugin_img_get(im, coff + 2, 2);
    symptr = ecs__plugin_img_get(im, coff + 8, 4);
    nsyms = ecs__plugin_img_get(im, coff + 12, 4);
    optsize = ecs__plugin_img_get(im, coff + 16, 2);
    chars = ecs__plugin_img_get(im, coff + 18, 2);
    if (!(chars & 0x2000u))
        return ecs_error_set(im->err, ECS_ERROR_PLUGIN_LOAD,
                             "plugin '%s' is a Windows executable, not a shared library (no DLL flag)", im->name);
    opt = coff + 20;
    if (!ecs__plugin_img_in(im, opt, optsize))
        return ecs__plugin_img_truncated(im, "its optional header", opt, optsize);
    sections = opt + optsize;
    if (!ecs__plugin_img_table_in(im, sections, nsec, 40))
        return ecs__plugin_img_truncated(im, "its section table", sections, nsec * 40u);
    if (optsize >= 64) {
        uint64_t magic = ecs__plugin_img_get(im, opt, 2), headers = ecs__plugin_img_get(im, opt + 60, 4);
        uint64_t ndirs_at = magic == 0x20bu ? 108u : 92u, dirs = ndirs_at + 4u;
        if (!ecs__plugin_img_in(im, 0, headers)) return ecs__plugin_img_truncated(im, "its headers", 0, headers);
        /* the certificate table (data directory 4) holds a file offset */
        if ((magic == 0x10bu || magic == 0x20bu) && optsize >= dirs + 5u * 8u &&
            ecs__plugin_img_get(im, opt + ndirs_at, 4) > 4) {
            uint64_t cert = ecs__plugin_img_get(im, opt + dirs + 32u, 4);
            uint64_t cert_size = ecs__plugin_img_get(im, opt + dirs + 36u, 4);
            if (cert_size != 0 && !ecs__plugin_img_in(im, cert, cert_size))
                return ecs__plugin_img_truncated(im, "its certificate table", cert, cert_size);
        }
    }
    for (k = 0; k < nsec; ++k) {
        uint64_t s = sections + 40u * k;
        uint64_t raw_size = ecs__plugin_img_get(im, s + 16, 4), raw = ecs__plugin_img_get(im, s + 20, 4);
        if (raw_size != 0 && !ecs__plugin_img_in(im, raw, raw_size)) {
            char sname[9];
            unsigned c;
            for (c = 0; c < 8; ++c) {
                unsigned char ch = im->p[(size_t)(s + c)];
                sname[c] = ch >= 0x20 && ch < 0x7f ? (char)ch : '\0';
            }
            sname[8] = '\0';
            snprintf(what, sizeof what, "its section %llu (%s)", (unsigned long long)k, sname);
            return ecs__plugin_img_truncated(im, what, raw, raw_size);
        }
    }
    if (symptr != 0) { /* COFF symbols (18 bytes each), then the string table's size */
        uint64_t strings = symptr + nsyms * 18u; /* nsyms < 2^32: no overflow */
        if (!ecs__plugin_img_table_in(im, symptr, nsyms, 18) || !ecs__plugin_img_in(im, strings, 4))
            return ecs__plugin_img_truncated(im, "its COFF symbol table", symptr, nsyms * 18u + 4u);
        if (!ecs__plugin_img_in(im, strings, ecs__plugin_img_get(im, strings, 4)))
            return ecs__plugin_img_truncated(im, "its COFF string table", strings,
                                             ecs__plugin_img_get(im, strings, 4));
    }
    return ECS_OK;
}

/* Which kind of file the first bytes announce. */
#define ECS__PLUGIN_FORMAT_UNKNOWN 0
#define ECS__PLUGIN_FORMAT_ELF 1
#define ECS__PLUGIN_FORMAT_PE 2
#define ECS__PLUGIN_FORMAT_MACHO 3

static int ecs__plugin_format(const unsigned char *p, size_t size)
{
    if (size >= 4 && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') return ECS__PLUGIN_FORMAT_ELF;
    if (size >= 2 && p[0] == 'M' && p[1] == 'Z') return ECS__PLUGIN_FORMAT_PE;
    if (size >= 4) {
        uint32_t m = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        if (m == 0xfeedfaceu || m == 0xfeedfacfu || m == 0xcefaedfeu || m == 0xcffaedfeu || m == 0xcafebabeu)
            return ECS__PLUGIN_FORMAT_MACHO;
    }
    return ECS__PLUGIN_FORMAT_UNKNOWN;
}

ECS_DEF ecs_result ecs_plugin_check_image(const void *bytes, size_t size, const char *name, ecs_error *err)
{
    ecs__plugin_img im;
    int format;
    im.p = (const unsigned char *)bytes;
    im.size = bytes ? (uint64_t)size : 0;
    im.big = 0;
    im.name = name ? name : "image";
    im.err = err;
    if (im.size == 0)
        return ecs_error_set(err, ECS_ERROR_PLUGIN_LOAD, "plugin '%s' is empty (0 bytes), not a shared library",
                             im.name);
    format = ecs__plugin_format(im.p, size);
    if (format == ECS__PLUGIN_FORMAT_ELF) return ecs__plugin_check_elf(&im);
    if (format == ECS__PLUGIN_FORMAT_PE) return ecs__plugin_check_pe(&im);
    if (format == ECS__PLUGIN_FORMAT_MACHO) return ECS_OK; /* recognised, not checked */
    {
        char start[8 * 4 + 1];
        size_t k, used = 0;
        for (k = 0; k < size && k < 8; ++k) {
            unsigned char c = im.p[k];
            if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"') start[used++] = (char)c;
            else used += (size_t)snprintf(start + used, sizeof start - used, "\\x%02x", c);
        }
        start[used] = '\0';
        return ecs_error_set(err, ECS_ERROR_PLUGIN_LOAD,
                             "plugin '%s' is not a shared library (no ELF, PE or Mach-O header; it starts with "
                             "\"%s\"%s, %llu bytes)",
                             im.name, start, size > 8 ? "..." : "", (unsigned long long)size);
    }
}

/* What this platform's loader takes: the check above plus the format, word
   size and byte order of this process. */
static ecs_result ecs__plugin_check_native(const unsigned char *p, size_t size, const char *name, ecs_error *err)
{
    static const char *const names[] = {"unknown", "ELF", "PE (Windows)", "Mach-O (macOS)"};
    ecs_result res = ecs_plugin_check_image(p, size, name, err);
    int format, want;
    if (res != ECS_OK) return res;
    format = ecs__plugin_format(p, size);
#if defined(_WIN32)
    want = ECS__PLUGIN_FORMAT_PE;
#elif defined(__APPLE__)
    want = ECS__PLUGIN_FORMAT_MACHO;
#else
    want = ECS__PLUGIN_FORMAT_ELF;
#endif
    if (format != want)
        return ecs_error_set(err, ECS_ERROR_PLUGIN_LOAD,
                             "plugin '%s' is a %s library; this platform loads %s libraries", name, names[format],
                             names[want]);
    if (format == ECS__PLUGIN_FORMAT_ELF) { /* the check above read 16 bytes and more */
        unsigned bits = p[4] == 2 ? 64u : 32u;
        const uint16_t one = 1;
        int little = *(const unsigned char *)&one == 1;
        if (bits != (unsigned)(sizeof(void *) * 8))
            return ecs_error_set(err, ECS_ERROR_PLUGIN_LOAD,
                                 "plugin '%s' is a %u-bit library; this process is %u-bit (build both with the "
                                 "same -m32/-m64)",
                                 name, bits, (unsigned)(sizeof(void *) * 8));
        if ((p[5] == 1) != little)
            return ecs_error_set(err, ECS_ERROR_PLUGIN_LOAD,
                                 "plugin '%s' is a %s-endian library; this process is %s-endian", name,
                                 p[5] == 1 ? "little" : "big", little ? "little" : "big");
    }
    return ECS_OK;
}

/* ---- the registry's data ---------------------------------------------------- */

typedef struct ecs__plugin_rec ecs__plugin_rec;

/* What differs between kinds of registration. */
typedef struct ecs__plugin_kind {
    const char *what;
    void (*undo)(ecs_plugin_registry *reg, ecs__plugin_rec *r);    /* take it out of the engine, free */
    void (*commit)(ecs_plugin_registry *reg, ecs__plugin_rec *r);  /* staged value becomes current */
    void (*discard)(ecs_plugin_registry *reg, ecs__plugin_rec *r); /* drop the staged value */
} ecs__plugin_kind;

/* A value a registration holds: the current one and, during a reload, the
   staged one. */
typedef struct ecs__plugin_value {
    void *ptr;            /* API copy, manager, or user pointer */
    ecs__plugin_fn fn[2]; /* e.g. spawn + unspawn */
    uint32_t u;           /* e.g. spawn order or instance size */
} ecs__plugin_value;

#define ECS__PLUGIN_STAGED 1u /* re-registered by the build being loaded */
#define ECS__PLUGIN_NEW 2u    /* first registered by the build being loaded */
#define ECS__PLUGIN_DROPPED 4u /* untracked or unpublished by the build being loaded: kept until it succeeds */

/* One thing registered in the engine: its owner (plugin slot, 0 = engine),
   its key (api/version or name) and value. Heap-allocated one by one so that
   thunks can hold a stable pointer to it. */
struct ecs__plugin_rec {
    const ecs__plugin_kind *kind;
    uint32_t owner;
    uint32_t flags;
    unsigned api, version;
    char *name;
    size_t size;
    ecs__plugin_value cur, staged;
    ecs_plugin_registry *reg;
    const ecs_plugin_tracker *tracker; /* ecs_plugin_track's registrations */
};

typedef struct ecs__plugin_slot {
    uint32_t generation;
    int loaded;
    char *path;        /* as given to load */
    char *copy_path;   /* the file loaded */
    char *name;
    void *lib;
    ecs_plugin_api_v0 api;
    unsigned api_version;
    void *state;
    uint32_t reloads;
    uint64_t seq;              /* load order: larger is newer */
    uint32_t running;          /* calls into this plugin now on the stack */
    int unloading;             /* its unload runs (shutdown is being called) */
    int unload_pending;        /* unload asked while it ran: done once it returns */
    /* change detection */
    ecs__plugin_stamp tried;   /* file stamp of the last load attempt */
    uint64_t tried_hash;       /* its content hash */
    long long tried_at;        /* time() of that attempt */
    ecs__plugin_stamp seen;    /* stamp at the last poll */
    int seen_valid;
} ecs__plugin_slot;

struct ecs_plugin_registry {
    unsigned entry;           /* which get_engine_api entry point */
    ecs__plugin_rec **recs;   /* in registration order */
    uint32_t num_recs, cap_recs;
    ecs__plugin_slot *slots;  /* slot 0 unused */
    uint32_t num_slots, cap_slots;
    uint32_t *order;          /* loaded slots in load order */
    uint32_t num_order, cap_order;
    uint32_t current;         /* slot of the plugin being called, 0 = engine */
    uint32_t staging;         /* slot being reloaded, 0 = none */
    uint32_t depth;           /* calls into plugins now on the stack */
    uint64_t next_seq;        /* the last load's seq */
    char *copy_dir;
    ecs_entity_manager *entities;
    ecs_entities_api_v0 entities_v0;
    ecs_components_api_v0 components_v0;
    ecs_components_api_v1 components_v1;
    ecs_registry_api_v0 registry_v0;
    void *compiler, *spawner; /* what ecs_plugin_publish_resources was given */
    ecs_world *world;         /* desc->world: plugins' managers join it */
};

/* Every call into a plugin's code goes between enter and leave, so that the
   registry knows whose code is on the stack (an unload of it waits). enter
   returns the caller to give back to leave. Slot 0 is the engine (a compile
   or spawn function the engine registered through the API structs). */
static uint32_t ecs__plugin_enter(ecs_plugin_registry *reg, uint32_t slot)
{
    uint32_t saved = reg->current;
    reg->current = slot;
    if (slot != 0) reg->slots[slot].running++;
    reg->depth++;
    return saved;
}
static void ecs__plugin_leave(ecs_plugin_registry *reg, uint32_t slot, uint32_t saved)
{
    if (slot != 0) reg->slots[slot].running--;
    reg->depth--;
    reg->current = saved;
}

/* ---- get_engine_api entry points ------------------------------------------
   The ABI's get_engine_api has no context argument, so each registry takes
   one of a fixed set of functions, each reading its own slot. */

static ecs_plugin_registry *volatile ecs__plugin_entries[ECS_PLUGIN_MAX_REGISTRIES];
/* Copies made through each entry point, over the whole process: a copy's name
   is never used twice in a process, so dlopen cannot mistake a new copy for
   an old image that is still mapped (RTLD_NODELETE, unique symbols). Each
   counter belongs to the registry that holds its entry point. */
static unsigned ecs__plugin_copy_counter[ECS_PLUGIN_MAX_REGISTRIES];

static void *ecs__plugin_entry_get(unsigned k, unsigned api, unsigned version)
{
    ecs_plugin_registry *reg = ecs__plugin_entries[k];
    return reg ? ecs_plugin_find_api(reg, api, version) : NULL;
}

#define ECS__PLUGIN_ENTRY(k)                                              \
    static void *ecs__plugin_entry_##k(unsigned api, unsigned version) \
    {                                                                   \
        return ecs__plugin_entry_get(k, api, version);                  \
    }
ECS__PLUGIN_ENTRY(0) ECS__PLUGIN_ENTRY(1) ECS__PLUGIN_ENTRY(2) ECS__PLUGIN_ENTRY(3)
ECS__PLUGIN_ENTRY(4) ECS__PLUGIN_ENTRY(5) ECS__PLUGIN_ENTRY(6) ECS__PLUGIN_ENTRY(7)
ECS__PLUGIN_ENTRY(8) ECS__PLUGIN_ENTRY(9) ECS__PLUGIN_ENTRY(10) ECS__PLUGIN_ENTRY(11)
ECS__PLUGIN_ENTRY(12) ECS__PLUGIN_ENTRY(13) ECS__PLUGIN_ENTRY(14) ECS__PLUGIN_ENTRY(15)
#undef ECS__PLUGIN_ENTRY

static const ecs_plugin_get_api_fn ecs__plugin_entry_fns[ECS_PLUGIN_MAX_REGISTRIES] = {
    ecs__plugin_entry_0,  ecs__plugin_entry_1,  ecs__plugin_entry_2,  ecs__plugin_entry_3,
    ecs__plugin_entry_4,  ecs__plugin_entry_5,  ecs__plugin_entry_6,  ecs__plugin_entry_7,
    ecs__plugin_entry_8,  ecs__plugin_entry_9,  ecs__plugin_entry_10, ecs__plugin_entry_11,
    ecs__plugin_entry_12, ecs__plugin_entry_13, ecs__plugin_entry_14, ecs__plugin_entry_15};

/* Atomically sets entries[k] from `expect` to `to`; returns 1 on success. */
static int ecs__plugin_entry_swap(unsigned k, ecs_plugin_registry *expect, ecs_plugin_registry *to)
{
#if defined(__GNUC__) || defined(__clang__)
    return __sync_bool_compare_and_swap(&ecs__plugin_entries[k], expect, to);
#elif defined(_MSC_VER)
    return InterlockedCompareExchangePointer((PVOID volatile *)&ecs__plugin_entries[k], (PVOID)to,
                                             (PVOID)expect) == (PVOID)expect;
#else
    if (ecs__plugin_entries[k] != expect) return 0;
    ecs__plugin_entries[k] = to;
    return 1;
#endif
}

/* ---- registrations ---------------------------------------------------------- */

static const char *ecs__plugin_owner_name(const ecs_plugin_registry *reg, uint32_t owner)
{
    if (owner == 0 || owner >= reg->num_slots) return "the engine";
    return reg->slots[owner].name ? reg->slots[owner].name : "a plugin";
}

static ecs__plugin_rec *ecs__plugin_rec_find(const ecs_plugin_registry *reg, const ecs__plugin_kind *kind,
                                             unsigned api, unsigned version, const char *name)
{
    uint32_t i;
    for (i = 0; i < reg->num_recs; ++i) {
        ecs__plugin_rec *r = reg->recs[i];
        if (r->kind != kind) continue;
        if (name ? (r->name && strcmp(r->name, name) == 0) : (r->api == api && r->version == version)) return r;
    }
    return NULL;
}

/* Looks for an existing registration of this key. Returns:
   ECS_OK with *rec NULL: the key is free, register anew;
   ECS_OK with *rec set: the plugin being reloaded registers this key again,
     the caller stages its new value in (*rec)->staged and calls
     ecs__plugin_rec_stage;
   ECS_ERROR_ALREADY_EXISTS: taken (err set). */
/* 1 when r belongs to the plugin whose new build is being loaded, and that
   build's code is what runs now (its init, or engine code it calls). */
static int ecs__plugin_rec_reloading(const ecs_plugin_registry *reg, const ecs__plugin_rec *r)
{
    return reg->staging && r->owner == reg->staging && reg->current == reg->staging;
}

static ecs_result ecs__plugin_rec_claim(ecs_plugin_registry *reg, const ecs__plugin_kind *kind, unsigned api,
                                        unsigned version, const char *name, ecs__plugin_rec **rec, ecs_error *err)
{
    ecs__plugin_rec *r = ecs__plugin_rec_find(reg, kind, api, version, name);
    *rec = NULL;
    if (!r) return ECS_OK;
    if (ecs__plugin_rec_reloading(reg, r) && (r->flags & ~ECS__PLUGIN_DROPPED) == 0) { /* a dropped one too: the caller clears the flag */
        *rec = r;
        return ECS_OK;
    }
    if (name)
        return ecs_error_set(err, ECS_ERROR_ALREADY_EXISTS, "%s '%s' is already registered by %s", kind->what,
                             name, ecs__plugin_owner_name(reg, r->owner));
    return ecs_error_set(err, ECS_ERROR_ALREADY_EXISTS, "%s (id %u, version %u) is already published by %s",
                         kind->what, api, version, ecs__plugin_owner_name(reg, r->owner));
}

/* Adds a new registration owned by the current caller; takes ownership of
   nothing on failure. */
static ecs__plugin_rec *ecs__plugin_rec_add(ecs_plugin_registry *reg, const ecs__plugin_kind *kind, unsigned api,
                                            unsigned version, const char *name, const ecs__plugin_value *value,
                                            ecs_error *err)
{
    ecs__plugin_rec *r;
    if (reg->num_recs == reg->cap_recs) {
        uint32_t cap = reg->cap_recs ? reg->cap_recs * 2 : 16;
        ecs__plugin_rec **recs = (ecs__plugin_rec **)ECS__REALLOC(reg->recs, cap * sizeof *recs);
        if (!recs) goto oom;
        reg->recs = recs;
        reg->cap_recs = cap;
    }
    r = (ecs__plugin_rec *)ECS__REALLOC(NULL, sizeof *r);
    if (!r) goto oom;
    memset(r, 0, sizeof *r);
    if (name && !(r->name = ecs__plugin_strdup(name))) {
        ECS__FREE(r);
        goto oom;
    }
    r->kind = kind;
    r->owner = reg->current;
    r->flags = reg->staging && reg->current == reg->staging ? ECS__PLUGIN_NEW : 0u;
    r->api = api;
    r->version = version;
    r->cur = *value;
    r->reg = reg;
    reg->recs[reg->num_recs++] = r;
    return r;
oom:
    ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "out of memory registering %s", kind->what);
    return NULL;
}

/* Undoes and frees registration i, keeping the others in order. */
static void ecs__plugin_rec_remove(ecs_plugin_registry *reg, uint32_t i)
{
    ecs__plugin_rec *r = reg->recs[i];
    memmove(reg->recs + i, reg->recs + i + 1, (reg->num_recs - i - 1) * sizeof *reg->recs);
    reg->num_recs--;
    r->kind->undo(reg, r);
    ECS__FREE(r->name);
    ECS__FREE(r);
}

/* Removes every registration of owner, newest first. */
static void ecs__plugin_rec_remove_owner(ecs_plugin_registry *reg, uint32_t owner)
{
    uint32_t i = reg->num_recs;
    while (i-- > 0)
        if (reg->recs[i]->owner == owner) ecs__plugin_rec_remove(reg, i);
}

/* Unpublish or untrack registration i. Called by the new build of a plugin
   being reloaded for what its old build registered, it only marks it
   dropped: the old value stays in use until the reload is decided (it goes
   when the reload succeeds, like anything not registered again, and stays
   when it fails); a value the new build staged is dropped now. Otherwise
   removes it at once. ECS_OK, or ECS_ERROR_NOT_FOUND when already dropped. */
static ecs_result ecs__plugin_rec_drop(ecs_plugin_registry *reg, uint32_t i)
{
    ecs__plugin_rec *r = reg->recs[i];
    if (ecs__plugin_rec_reloading(reg, r) && !(r->flags & ECS__PLUGIN_NEW)) {
        if (r->flags & ECS__PLUGIN_DROPPED) return ECS_ERROR_NOT_FOUND;
        if (r->flags & ECS__PLUGIN_STAGED) r->kind->discard(reg, r);
        r->flags = ECS__PLUGIN_DROPPED;
        return ECS_OK;
    }
    ecs__plugin_rec_remove(reg, i);
    return ECS_OK;
}

/* After a reload's init: success keeps what the new build registered and
   drops what only the old one had; failure drops what the new one added. */
static void ecs__plugin_rec_finish_staging(ecs_plugin_registry *reg, uint32_t owner, int success)
{
    uint32_t i = reg->num_recs;
    while (i-- > 0) {
        ecs__plugin_rec *r = reg->recs[i];
        if (r->owner != owner) continue;
        if (success) {
            if (r->flags & ECS__PLUGIN_STAGED) r->kind->commit(reg, r);
            if ((r->flags & ~ECS__PLUGIN_DROPPED) == 0) {
                ecs__plugin_rec_remove(reg, i);
                continue;
            }
        } else {
            if (r->flags & ECS__PLUGIN_NEW) {
                ecs__plugin_rec_remove(reg, i);
                continue;
            }
            if (r->flags & ECS__PLUGIN_STAGED) r->kind->discard(reg, r);
        }
        r->flags = 0;
    }
}

/* ---- published APIs ---------------------------------------------------------- */

static void ecs__plugin_api_undo(ecs_plugin_registry *reg, ecs__plugin_rec *r)
{
    (void)reg;
    ECS__FREE(r->cur.ptr);
    ECS__FREE(r->staged.ptr);
}
static void ecs__plugin_api_commit(ecs_plugin_registry *reg, ecs__plugin_rec *r)
{
    (void)reg;
    memcpy(r->cur.ptr, r->staged.ptr, r->size); /* in place: held pointers stay valid */
    ECS__FREE(r->staged.ptr);
    r->staged.ptr = NULL;
}
static void ecs__plugin_api_discard(ecs_plugin_registry *reg, ecs__plugin_rec *r)
{
    (void)reg;
    ECS__FREE(r->staged.ptr);
    r->staged.ptr = NULL;
}
static const ecs__plugin_kind ecs__plugin_kind_api = {"API", ecs__plugin_api_undo, ecs__plugin_api_commit,
                                                      ecs__plugin_api_discard};

ECS_DEF ecs_result ecs_plugin_publish(ecs_plugin_registry *reg, unsigned api, unsigned version, const void *api_struct,
                                      size_t size, ecs_error *err)
{
    ecs__plugin_rec *r;
    ecs__plugin_value v;
    ecs_result res;
    void *copy;
    if (!reg || !api_struct || size == 0)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "publish: NULL registry or struct, or size 0");
    res = ecs__plugin_rec_claim(reg, &ecs__plugin_kind_api, api, version, NULL, &r, err);
    if (res != ECS_OK) return res;
    if (r && r->size != size)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "API (id %u, version %u) changed size across a reload (%lu to %lu bytes): "
                             "a published struct never changes, publish a new version",
                             api, version, (unsigned long)r->size, (unsigned long)size);
    copy = ECS__REALLOC(NULL, size);
    if (!copy) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "out of memory publishing API %u", api);
    memcpy(copy, api_struct, size);
    if (r) { /* staged by a reload */
        r->staged.ptr = copy;
        r->flags = ECS__PLUGIN_STAGED; /* and no longer dropped */
        return ECS_OK;
    }
    memset(&v, 0, sizeof v);
    v.ptr = copy;
    r = ecs__plugin_rec_add(reg, &ecs__plugin_kind_api, api, version, NULL, &v, err);
    if (!r) {
        ECS__FREE(copy);
        return ECS_ERROR_OUT_OF_MEMORY;
    }
    r->size = size;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_plugin_unpublish(ecs_plugin_registry *reg, unsigned api, unsigned version)
{
    uint32_t i;
    if (!reg) return ECS_ERROR_NOT_FOUND;
    for (i = 0; i < reg->num_recs; ++i) {
        ecs__plugin_rec *r = reg->recs[i];
        if (r->kind == &ecs__plugin_kind_api && r->api == api && r->version == version)
            return ecs__plugin_rec_drop(reg, i);
    }
    return ECS_ERROR_NOT_FOUND;
}

ECS_DEF void *ecs_plugin_find_api(const ecs_plugin_registry *reg, unsigned api, unsigned version)
{
    ecs__plugin_rec *r;
    if (!reg) return NULL;
    r = ecs__plugin_rec_find(reg, &ecs__plugin_kind_api, api, version, NULL);
    return r ? r->cur.ptr : NULL;
}

/* ---- other headers' registrations (ecs_plugin_track) ------------------------- */

static void ecs__plugin_tracked_undo(ecs_plugin_registry *reg, ecs__plugin_rec *r)
{
    (void)reg;
    r->tracker->remove(r->tracker->context, r->name);
    ECS__FREE(r->cur.ptr);
    ECS__FREE(r->staged.ptr);
}
static void ecs__plugin_tracked_commit(ecs_plugin_registry *reg, ecs__plugin_rec *r)
{
    (void)reg;
    memcpy(r->cur.ptr, r->staged.ptr, r->size); /* in place: the pointer apply got stays valid */
    ECS__FREE(r->staged.ptr);
    r->staged.ptr = NULL;
    r->tracker->apply(r->tracker->context, r->name, r->cur.ptr);
}
static const ecs__plugin_kind ecs__plugin_kind_tracked = {"tracked registration", ecs__plugin_tracked_undo,
                                                          ecs__plugin_tracked_commit, ecs__plugin_api_discard};

static uint32_t ecs__plugin_tracked_find(const ecs_plugin_registry *reg, const ecs_plugin_tracker *tracker,
                                         const char *name)
{
    uint32_t i;
    for (i = 0; i < reg->num_recs; ++i) {
        const ecs__plugin_rec *r = reg->recs[i];
        if (r->kind == &ecs__plugin_kind_tracked && r->tracker == tracker && strcmp(r->name, name) == 0) return i;
    }
    return reg->num_recs;
}

ECS_DEF ecs_result ecs_plugin_track(ecs_plugin_registry *reg, const ecs_plugin_tracker *tracker, const char *name,
                                    const void *value, size_t size, ecs_error *err)
{
    ecs__plugin_rec *r;
    ecs__plugin_value v;
    uint32_t at;
    void *copy;
    if (!reg || !tracker || !tracker->apply || !tracker->remove || !name || !value || size == 0)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_plugin_track: NULL argument or size 0");
    at = ecs__plugin_tracked_find(reg, tracker, name);
    r = at < reg->num_recs ? reg->recs[at] : NULL;
    if (r && !(ecs__plugin_rec_reloading(reg, r) && (r->flags & ~ECS__PLUGIN_DROPPED) == 0))
        return ecs_error_set(err, ECS_ERROR_ALREADY_EXISTS, "%s '%s' is already registered by %s",
                             tracker->what ? tracker->what : "name", name, ecs__plugin_owner_name(reg, r->owner));
    if (r && r->size != size)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "%s '%s' changed size across a reload",
                             tracker->what ? tracker->what : "name", name);
    if (!(copy = ECS__REALLOC(NULL, size))) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "out of memory tracking '%s'", name);
    memcpy(copy, value, size);
    if (r) { /* the owner's reload registers it again: applied when the reload succeeds */
        r->staged.ptr = copy;
        r->flags = ECS__PLUGIN_STAGED; /* and no longer dropped */
        return ECS_OK;
    }
    memset(&v, 0, sizeof v);
    v.ptr = copy;
    if (!(r = ecs__plugin_rec_add(reg, &ecs__plugin_kind_tracked, 0, 0, name, &v, err))) {
        ECS__FREE(copy);
        return ECS_ERROR_OUT_OF_MEMORY;
    }
    r->size = size;
    r->tracker = tracker;
    tracker->apply(tracker->context, r->name, r->cur.ptr);
    return ECS_OK;
}

/* The new build of a plugin being reloaded untracking a name its old build
   registered only marks it dropped (ecs__plugin_rec_drop). */
ECS_DEF ecs_result ecs_plugin_untrack(ecs_plugin_registry *reg, const ecs_plugin_tracker *tracker, const char *name)
{
    uint32_t at;
    if (!reg || !tracker || !name) return ECS_ERROR_NOT_FOUND;
    at = ecs__plugin_tracked_find(reg, tracker, name);
    if (at == reg->num_recs) return ECS_ERROR_NOT_FOUND;
    return ecs__plugin_rec_drop(reg, at);
}

ECS_DEF ecs_result ecs_plugin_track_call(ecs_plugin_registry *reg, const ecs_plugin_tracker *tracker, const char *name,
                                         void (*fn)(void *user), void *user)
{
    uint32_t at, owner, saved;
    if (!reg || !tracker || !name || !fn) return ECS_ERROR_NOT_FOUND;
    at = ecs__plugin_tracked_find(reg, tracker, name);
    if (at == reg->num_recs) return ECS_ERROR_NOT_FOUND;
    owner = reg->recs[at]->owner;
    saved = ecs__plugin_enter(reg, owner);
    fn(user);
    ecs__plugin_leave(reg, owner, saved);
    return ECS_OK;
}

/* ---- engine-owned component managers ---------------------------------------- */

/* During a reload that gave a manager new schema specs (defaults, bounds),
   staged.ptr holds its old schema (ecs.h's one-block copy): freed when the
   reload succeeds, put back when it fails. */
static void ecs__plugin_manager_undo(ecs_plugin_registry *reg, ecs__plugin_rec *r)
{
    if (reg->world && ecs_world_manager(reg->world, r->name) == (ecs_manager *)r->cur.ptr)
        ecs_world_remove(reg->world, r->name, NULL);
    ecs_manager_free((ecs_manager *)r->cur.ptr);
    ECS__FREE(r->cur.ptr);
    ECS__FREE(r->staged.ptr);
}
static void ecs__plugin_manager_commit(ecs_plugin_registry *reg, ecs__plugin_rec *r)
{
    (void)reg;
    ECS__FREE(r->staged.ptr);
    r->staged.ptr = NULL;
}
static void ecs__plugin_manager_discard(ecs_plugin_registry *reg, ecs__plugin_rec *r)
{
    ecs_manager *m = (ecs_manager *)r->cur.ptr;
    (void)reg;
    if (!r->staged.ptr) return;
    ECS__FREE(m->schema);
    m->schema = (ecs_schema *)r->staged.ptr;
    r->staged.ptr = NULL;
}
static const ecs__plugin_kind ecs__plugin_kind_manager = {"component manager", ecs__plugin_manager_undo,
                                                          ecs__plugin_manager_commit, ecs__plugin_manager_discard};

/* The reload's define_schema: m takes the new specs; its old schema is
   kept in r->staged.ptr until the reload is decided. */
static ecs_result ecs__plugin_manager_restage(ecs__plugin_rec *r, ecs_manager *m, const ecs_schema_field *schema,
                                              uint32_t num_fields)
{
    ecs_schema *old = m->schema;
    m->schema = NULL; /* set_schema frees the schema it replaces: keep it */
    if (ecs_manager_set_schema(m, schema, num_fields) != ECS_OK) {
        m->schema = old;
        return m->error.code;
    }
    r->staged.ptr = old;
    return ECS_OK;
}

static int ecs__plugin_layout_equal(const ecs_manager *m, const ecs_field_desc *fields, uint32_t n,
                                    ecs_lookup_kind lookup)
{
    uint32_t k;
    if (m->num_fields != n || m->lookup != lookup) return 0;
    for (k = 0; k < n; ++k) {
        const ecs_field_desc *a = &m->fields[k], *b = &fields[k];
        if (a->size != b->size || a->align != b->align) return 0;
        if ((a->name == NULL) != (b->name == NULL) || (a->name && strcmp(a->name, b->name) != 0)) return 0;
    }
    return 1;
}

/* 1 when m was defined from schema (same names, kinds and runtime fields). */
static int ecs__plugin_schema_fits(const ecs_manager *m, const ecs_schema_field *schema, uint32_t n)
{
    uint32_t k;
    if (!m->schema || m->schema->num_fields != n) return 0;
    for (k = 0; k < n; ++k) {
        const ecs_schema_field *a = &m->schema->fields[k], *b = &schema[k];
        if (a->kind != b->kind || !b->name || strcmp(a->name, b->name) != 0 || (a->spec == NULL) != (b->spec == NULL))
            return 0;
    }
    return 1;
}

/* A new manager in one block: the core, then its view (entity and one
   pointer per field, kept current by the core). ecs_manager_init copies the
   field table and its names, so a plugin's strings may go away with its
   build. schema: NULL, or the fields come from it. */
static ecs_manager *ecs__plugin_new_manager(const char *name, const ecs_field_desc *fields,
                                            const ecs_schema_field *schema, uint32_t num_fields,
                                            ecs_lookup_kind lookup, ecs_error *err)
{
    size_t view = ((size_t)num_fields + 1u) * sizeof(void *);
    ecs_manager *m = (ecs_manager *)ECS__REALLOC(NULL, sizeof(ecs_manager) + view);
    ecs_result res;
    if (!m) {
        ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "out of memory defining manager '%s'", name);
        return NULL;
    }
    memset(m, 0, sizeof *m + view);
    if (schema) res = ecs_manager_init_schema_with_view(m, schema, num_fields, lookup);
    else res = ecs_manager_init_with_view(m, fields, num_fields, lookup);
    if (res != ECS_OK) {
        ecs_error_set(err, res, "component manager '%s': %s", name, m->error.message);
        ecs_manager_free(m);
        ECS__FREE(m);
        return NULL;
    }
    return m;
}

/* define and define_schema (schema NULL: from fields). */
static ecs_manager *ecs__plugin_define(ecs_plugin_registry *reg, const char *name, const ecs_field_desc *fields,
                                       const ecs_schema_field *schema, uint32_t num_fields, ecs_lookup_kind lookup,
                                       ecs_error *err)
{
    ecs__plugin_rec *r;
    ecs__plugin_value v;
    ecs_manager *m;
    if (!reg || !name || !name[0] || (num_fields && !fields && !schema)) {
        ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "define manager: NULL registry, empty name or no fields");
        return NULL;
    }
    if (ecs__plugin_rec_claim(reg, &ecs__plugin_kind_manager, 0, 0, name, &r, err) != ECS_OK) return NULL;
    if (r) { /* the build being reloaded defines it again: same data */
        m = (ecs_manager *)r->cur.ptr;
        if (schema ? !ecs__plugin_schema_fits(m, schema, num_fields) || m->lookup != lookup
                   : !ecs__plugin_layout_equal(m, fields, num_fields, lookup)) {
            ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                          "component manager '%s' changed its layout across the reload; its data would not fit "
                          "(define it under a new name and migrate)",
                          name);
            return NULL;
        }
        if (schema && ecs__plugin_manager_restage(r, m, schema, num_fields) != ECS_OK) {
            ecs_error_set(err, m->error.code, "component manager '%s': %s", name, m->error.message);
            return NULL;
        }
        r->flags |= ECS__PLUGIN_STAGED;
        return m;
    }
    if (reg->world && ecs_world_find(reg->world, name) != ECS_WORLD_NO_COMPONENT) {
        ecs_error_set(err, ECS_ERROR_ALREADY_EXISTS, "component manager '%s': the world has a component of that name",
                      name);
        return NULL;
    }
    if (!(m = ecs__plugin_new_manager(name, fields, schema, num_fields, lookup, err))) return NULL;
    memset(&v, 0, sizeof v);
    v.ptr = m;
    if (!ecs__plugin_rec_add(reg, &ecs__plugin_kind_manager, 0, 0, name, &v, err)) {
        ecs_manager_free(m);
        ECS__FREE(m);
        return NULL;
    }
    if (reg->world && ecs_world_add_manager(reg->world, name, m, err) != ECS_OK) {
        ecs__plugin_rec_remove(reg, reg->num_recs - 1); /* frees m */
        return NULL;
    }
    return m;
}

ECS_DEF ecs_manager *ecs_plugin_define_manager(ecs_plugin_registry *reg, const char *name, const ecs_field_desc *fields,
                                               uint32_t num_fields, ecs_lookup_kind lookup, ecs_error *err)
{
    return ecs__plugin_define(reg, name, fields, NULL, num_fields, lookup, err);
}

ECS_DEF ecs_manager *ecs_plugin_define_manager_schema(ecs_plugin_registry *reg, const char *name,
                                                      const ecs_schema_field *schema, uint32_t num_fields,
                                                      ecs_lookup_kind lookup, ecs_error *err)
{
    if (!schema) {
        ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "define manager '%s': NULL schema", name ? name : "?");
        return NULL;
    }
    return ecs__plugin_define(reg, name, NULL, schema, num_fields, lookup, err);
}

ECS_DEF ecs_manager *ecs_plugin_find_manager(ecs_plugin_registry *reg, const char *name)
{
    ecs__plugin_rec *r;
    if (!reg || !name) return NULL;
    r = ecs__plugin_rec_find(reg, &ecs__plugin_kind_manager, 0, 0, name);
    if (!r && reg->world) return ecs_world_manager(reg->world, name);
    return r ? (ecs_manager *)r->cur.ptr : NULL;
}

/* ---- registry ---------------------------------------------------------------- */

static int ecs__plugin_entities_alive(const ecs_entity_manager *em, ecs_entity e) { return ecs_entity_alive(em, e); }

static ecs_result ecs__plugin_publish_components_v1(ecs_plugin_registry *reg, ecs_error *err)
{
    ecs_components_api_v1 *c = &reg->components_v1;
    c->registry = reg;
    c->define = ecs_plugin_define_manager;
    c->define_schema = ecs_plugin_define_manager_schema;
    c->find = ecs_plugin_find_manager;
    c->reserve = ecs_manager_reserve;
    c->create = ecs_manager_create;
    c->create_many = ecs_manager_create_many;
    c->lookup = ecs_manager_lookup;
    c->lookup_many = ecs_manager_lookup_many;
    c->next = ecs_manager_next;
    c->destroy = ecs_manager_destroy;
    c->destroy_entity = ecs_manager_destroy_entity;
    c->gc = ecs_manager_gc;
    c->gc_all = ecs_manager_gc_all;
    c->collect = ecs_manager_collect;
    c->record_size = ecs_manager_record_size;
    c->spawn = ecs_manager_spawn;
    c->unspawn = ecs_manager_unspawn;
    return ecs_plugin_publish(reg, ECS_API_COMPONENTS, 1, c, sizeof *c, err);
}

static ecs_result ecs__plugin_publish_standard(ecs_plugin_registry *reg, ecs_error *err)
{
    ecs_components_api_v0 *c = &reg->components_v0;
    ecs_result res;
    c->registry = reg;
    c->define = ecs_plugin_define_manager;
    c->find = ecs_plugin_find_manager;
    c->reserve = ecs_manager_reserve;
    c->create = ecs_manager_create;
    c->lookup = ecs_manager_lookup;
    c->next = ecs_manager_next;
    c->destroy = ecs_manager_destroy;
    c->destroy_entity = ecs_manager_destroy_entity;
    c->gc = ecs_manager_gc;
    c->record_size = ecs_manager_record_size;
    c->spawn = ecs_manager_spawn;
    c->unspawn = ecs_manager_unspawn;
    res = ecs_plugin_publish(reg, ECS_API_COMPONENTS, 0, c, sizeof *c, err);
    if (res == ECS_OK) res = ecs__plugin_publish_components_v1(reg, err);
    if (res != ECS_OK) return res;
    reg->registry_v0.registry = reg;
    reg->registry_v0.publish = ecs_plugin_publish;
    res = ecs_plugin_publish(reg, ECS_API_REGISTRY, 0, &reg->registry_v0, sizeof reg->registry_v0, err);
    if (res != ECS_OK || !reg->entities) return res;
    reg->entities_v0.entities = reg->entities;
    reg->entities_v0.create = ecs_entity_create;
    reg->entities_v0.create_many = ecs_entity_create_many;
    reg->entities_v0.destroy = ecs_entity_destroy;
    reg->entities_v0.destroy_many = ecs_entity_destroy_many;
    reg->entities_v0.alive = ecs__plugin_entities_alive;
    reg->entities_v0.count = ecs_entity_count;
    return ecs_plugin_publish(reg, ECS_API_ENTITIES, 0, &reg->entities_v0, sizeof reg->entities_v0, err);
}

ECS_DEF ecs_plugin_registry *ecs_plugin_registry_create(const ecs_plugin_registry_desc *desc, ecs_error *err)
{
    ecs_plugin_registry *reg = (ecs_plugin_registry *)ECS__REALLOC(NULL, sizeof *reg);
    unsigned k;
    if (!reg) {
        ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "out of memory creating a plugin registry");
        return NULL;
    }
    memset(reg, 0, sizeof *reg);
    if (desc) {
        reg->world = desc->world;
        reg->entities = desc->entities ? desc->entities : desc->world ? &desc->world->entities : NULL;
        if (desc->copy_dir && !(reg->copy_dir = ecs__plugin_strdup(desc->copy_dir))) {
            ECS__FREE(reg);
            ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "out of memory creating a plugin registry");
            return NULL;
        }
    }
    for (k = 0; k < ECS_PLUGIN_MAX_REGISTRIES; ++k)
        if (ecs__plugin_entries[k] == NULL && ecs__plugin_entry_swap(k, NULL, reg)) break;
    if (k == ECS_PLUGIN_MAX_REGISTRIES) {
        ECS__FREE(reg->copy_dir);
        ECS__FREE(reg);
        ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "%d plugin registries exist already (the most at once)",
                      ECS_PLUGIN_MAX_REGISTRIES);
        return NULL;
    }
    reg->entry = k;
    if (ecs__plugin_publish_standard(reg, err) != ECS_OK) {
        ecs_plugin_registry_destroy(reg);
        return NULL;
    }
    return reg;
}

ECS_DEF ecs_plugin_get_api_fn ecs_plugin_registry_get_api(const ecs_plugin_registry *reg)
{
    return reg ? ecs__plugin_entry_fns[reg->entry] : NULL;
}

ECS_DEF uint32_t ecs_plugin_registration_count(const ecs_plugin_registry *reg) { return reg ? reg->num_recs : 0; }

ECS_DEF uint32_t ecs_plugin_count(const ecs_plugin_registry *reg) { return reg ? reg->num_order : 0; }

/* ---- plugins ------------------------------------------------------------------ */

#define ECS__PLUGIN_INDEX_MASK 0xFFFFu

static ecs__plugin_slot *ecs__plugin_slot_of(const ecs_plugin_registry *reg, ecs_plugin p)
{
    uint32_t i = p.id & ECS__PLUGIN_INDEX_MASK;
    if (!reg || i == 0 || i >= reg->num_slots) return NULL;
    if (!reg->slots[i].loaded || reg->slots[i].generation != p.id >> 16) return NULL;
    return &reg->slots[i];
}

/* A library opened and checked, not yet initialised. */
typedef struct ecs__plugin_build {
    void *lib;
    char *copy_path;
    ecs_plugin_api_v0 api;
    unsigned api_version;
    char *name;            /* the plugin's name, ours */
    ecs__plugin_stamp stamp;
    uint64_t hash;
    int read;              /* the file was read whole: stamp and hash are valid */
    int not_ready;         /* it looked half-written: empty, cut short or zeros at its start */
} ecs__plugin_build;

static void ecs__plugin_build_close(ecs__plugin_build *b)
{
    if (b->lib) ecs__plugin_dl_close(b->lib);
    if (b->copy_path) {
        remove(b->copy_path);
        ECS__FREE(b->copy_path);
    }
    ECS__FREE(b->name);
    b->lib = NULL;
    b->copy_path = NULL;
    b->name = NULL;
}

/* Stamps the file at path into b->stamp; refuses what is missing, cannot be
   stat'ed or is not a regular file. */
static ecs_result ecs__plugin_build_stat(const char *path, ecs__plugin_build *b, ecs_error *err)
{
    errno = 0;
    if (!ecs__plugin_stat(path, &b->stamp)) {
        int e = errno;
        if (e == ENOENT || e == 0) return ecs_error_set(err, ECS_ERROR_PLUGIN_LOAD, "plugin '%s': no such file", path);
#ifdef EOVERFLOW
        if (e == EOVERFLOW)
            return ecs_error_set(err, ECS_ERROR_PLUGIN_LOAD,
                                 "plugin '%s': cannot stat it: %s (a 32-bit program needs -D_FILE_OFFSET_BITS=64 "
                                 "for this file system)",
                                 path, strerror(e));
#endif
        return ecs_error_set(err, ECS_ERROR_PLUGIN_LOAD, "plugin '%s': cannot stat it: %s", path, strerror(e));
    }
    if (b->stamp.kind != ECS__PLUGIN_REGULAR) {
        b->read = 1; /* the stamp is valid; a non-file has no content (hash 0) */
        return ecs_error_set(err, ECS_ERROR_PLUGIN_LOAD, "plugin '%s' is %s, not a shared library", path,
                             b->stamp.kind == ECS__PLUGIN_DIRECTORY ? "a directory"
                                                                    : "a FIFO, device or socket (no regular file)");
    }
    return ECS_OK;
}

/* b->copy_path = <dir>/ecs_plugin_<pid>_<entry>_<n>_<basename>, a name no
   other copy of this process had. */
static ecs_result ecs__plugin_build_name_copy(ecs_plugin_registry *reg, const char *path, ecs__plugin_build *b,
                                              ecs_error *err)
{
    const char *base = ecs__plugin_basename(path);
    size_t dir_len, len;
    if (reg->copy_dir) dir_len = strlen(reg->copy_dir);
    else dir_len = (size_t)(base - path);
    len = dir_len + strlen(base) + 80;
    b->copy_path = (char *)ECS__REALLOC(NULL, len);
    if (!b->copy_path) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "out of memory loading '%s'", path);
    snprintf(b->copy_path, len, "%.*s%secs_plugin_%lu_%u_%u_%s", (int)dir_len, reg->copy_dir ? reg->copy_dir : path,
             dir_len == 0 ? "./"
             : (reg->copy_dir && reg->copy_dir[dir_len - 1] != '/' && reg->copy_dir[dir_len - 1] != '\\' ? "/" : ""),
             ecs__plugin_pid(), reg->entry, ++ecs__plugin_copy_counter[reg->entry], base);
    return ECS_OK;
}

/* Reads the file once, checks those bytes and writes them to b->copy_path:
   a file still being written cannot change between the check and dlopen.
   On failure no copy is left and b->copy_path is freed. */
static ecs_result ecs__plugin_build_write_copy(const char *path, ecs__plugin_build *b, ecs_error *err)
{
    unsigned char *bytes;
    size_t size;
    ecs_result res = ecs__plugin_read_file(path, b->stamp.size, &bytes, &size, &b->hash, err);
    if (res == ECS_OK) {
        b->read = 1;
        res = ecs__plugin_check_native(bytes, size, path, err);
        b->not_ready = res != ECS_OK && (size == 0 || bytes[0] == 0 ||
                                         (err && strncmp(err->message, ECS__PLUGIN_TRUNCATED, 9) == 0));
        if (res == ECS_OK) res = ecs__plugin_write_file(b->copy_path, bytes, size, path, err);
        ECS__FREE(bytes);
    }
    if (res != ECS_OK) {
        ECS__FREE(b->copy_path); /* no file was left */
        b->copy_path = NULL;
    }
    return res;
}

/* Opens the copy and finds its get_plugin_api (*out). */
static ecs_result ecs__plugin_build_dlopen(const char *path, ecs__plugin_build *b, ecs_plugin_get_api_fn *out,
                                           ecs_error *err)
{
    char msg[200];
    ecs__plugin_fn sym;
    b->lib = ecs__plugin_dl_open(b->copy_path, msg, sizeof msg);
    if (!b->lib) return ecs_error_set(err, ECS_ERROR_PLUGIN_LOAD, "plugin '%s' could not be loaded: %s", path, msg);
    ecs__plugin_unlink_loaded(b->copy_path); /* see LOADING AND HOT RELOAD */
    sym = ecs__plugin_dl_sym(b->lib, "get_plugin_api");
    if (!sym) return ecs_error_set(err, ECS_ERROR_PLUGIN_NO_ENTRY, "plugin '%s' exports no get_plugin_api", path);
    *out = (ecs_plugin_get_api_fn)sym;
    return ECS_OK;
}

/* Asks for the newest plugin API version we speak, then older ones; takes
   the first answer into b->api and b->api_version, and the plugin's name. */
static ecs_result ecs__plugin_build_agree(const char *path, ecs_plugin_get_api_fn get_plugin_api,
                                          ecs__plugin_build *b, ecs_error *err)
{
    void *api = NULL;
    unsigned v;
    for (v = ECS_PLUGIN_API_VERSION + 1; v-- > 0 && !api;) {
        api = get_plugin_api(ECS_API_PLUGIN, v);
        if (api) b->api_version = v;
    }
    if (!api) {
        char spoken[64] = "none";
        size_t used = 0;
        for (v = 0; v < 32 && used < sizeof spoken - 12; ++v) {
            if (!get_plugin_api(ECS_API_PLUGIN, v)) continue;
            used += (size_t)snprintf(spoken + used, sizeof spoken - used, "%s%u", used ? ", " : "", v);
        }
        return ecs_error_set(err, ECS_ERROR_PLUGIN_VERSION,
                             "plugin '%s' speaks no plugin API version we know (we speak 0 to %u; it answers "
                             "to: %s)",
                             path, ECS_PLUGIN_API_VERSION, spoken);
    }
    memcpy(&b->api, api, sizeof b->api); /* version 0 is the only one so far */
    b->name = ecs__plugin_strdup(b->api.name && b->api.name[0] ? b->api.name : ecs__plugin_basename(path));
    b->api.name = NULL; /* points into the library; the copy above is ours */
    if (!b->name) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "out of memory loading '%s'", path);
    if (!b->api.init) return ecs_error_set(err, ECS_ERROR_PLUGIN_INIT, "plugin '%s' has no init function", path);
    return ECS_OK;
}

/* Copies path, opens the copy, finds get_plugin_api and a plugin API version.
   On failure everything is closed and removed again. */
static ecs_result ecs__plugin_build_open(ecs_plugin_registry *reg, const char *path, ecs__plugin_build *b,
                                         ecs_error *err)
{
    ecs_plugin_get_api_fn get_plugin_api = NULL;
    ecs_result res;
    memset(b, 0, sizeof *b);
    if ((res = ecs__plugin_build_stat(path, b, err)) != ECS_OK) return res;
    if ((res = ecs__plugin_build_name_copy(reg, path, b, err)) != ECS_OK) return res;
    if ((res = ecs__plugin_build_write_copy(path, b, err)) != ECS_OK) return res;
    res = ecs__plugin_build_dlopen(path, b, &get_plugin_api, err);
    if (res == ECS_OK) res = ecs__plugin_build_agree(path, get_plugin_api, b, err);
    if (res != ECS_OK) ecs__plugin_build_close(b);
    return res;
}

/* Calls the build's init with *state; on failure err carries the plugin's
   message after ours. */
static ecs_result ecs__plugin_build_init(ecs_plugin_registry *reg, uint32_t slot, const char *path,
                                         ecs__plugin_build *b, void **state, ecs_error *err)
{
    ecs_error perr;
    ecs_result res;
    uint32_t saved;
    ecs_error_clear(&perr);
    saved = ecs__plugin_enter(reg, slot);
    res = b->api.init(ecs__plugin_entry_fns[reg->entry], state, &perr);
    ecs__plugin_leave(reg, slot, saved);
    if (res == ECS_OK) return ECS_OK;
    perr.message[sizeof perr.message - 1] = '\0';
    return ecs_error_set(err, ECS_ERROR_PLUGIN_INIT, "plugin '%s' init failed (%s): %s", path,
                         ecs_result_name(perr.code != ECS_OK ? perr.code : res),
                         perr.message[0] ? perr.message : "no message");
}

ECS_DEF ecs_result ecs_plugin_load(ecs_plugin_registry *reg, const char *path, ecs_plugin *out, ecs_error *err)
{
    ecs__plugin_build b;
    ecs__plugin_slot *s;
    ecs_result res;
    uint32_t i;
    void *state = NULL;
    if (out) out->id = 0;
    if (!reg || !path || !path[0])
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "load: NULL registry or empty path");
    /* room first, so that nothing can fail after init succeeded; a slot is
       taken while its path is set (loaded, or being loaded: a load from a
       plugin's init must not take it) or when its 65,536 handle generations
       are used up (generation past 0xFFFF: retired) */
    for (i = 1; i < reg->num_slots && (reg->slots[i].path || reg->slots[i].generation > 0xFFFFu); ++i) {}
    if (i > ECS__PLUGIN_INDEX_MASK)
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "too many plugins loaded (%u)", ECS__PLUGIN_INDEX_MASK);
    if (i >= reg->cap_slots) {
        uint32_t cap = reg->cap_slots ? reg->cap_slots * 2 : 8;
        ecs__plugin_slot *slots = (ecs__plugin_slot *)ECS__REALLOC(reg->slots, cap * sizeof *slots);
        if (!slots) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "out of memory loading '%s'", path);
        memset(slots + reg->cap_slots, 0, (cap - reg->cap_slots) * sizeof *slots);
        reg->slots = slots;
        reg->cap_slots = cap;
    }
    if (i >= reg->cap_order) { /* a place for every slot up to i: each load under way has its own */
        uint32_t cap = reg->cap_order ? reg->cap_order * 2 : 8;
        uint32_t *order = (uint32_t *)ECS__REALLOC(reg->order, cap * sizeof *order);
        if (!order) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "out of memory loading '%s'", path);
        reg->order = order;
        reg->cap_order = cap;
    }
    if (reg->num_slots == 0) reg->num_slots = 1;
    if (i == reg->num_slots) reg->num_slots++;
    s = &reg->slots[i];
    s->path = ecs__plugin_strdup(path);
    if (!s->path) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "out of memory loading '%s'", path);
    res = ecs__plugin_build_open(reg, path, &b, err);
    if (res == ECS_OK) {
        s->name = b.name; /* for messages during init */
        res = ecs__plugin_build_init(reg, i, path, &b, &state, err);
        s = &reg->slots[i]; /* a load during init may have moved the slots */
        if (res != ECS_OK) {
            ecs__plugin_rec_remove_owner(reg, i); /* whatever it registered before failing */
            ecs__plugin_build_close(&b);       /* frees the name too */
        }
    }
    if (res != ECS_OK) {
        ECS__FREE(s->path);
        s->path = s->name = NULL;
        return res;
    }
    b.name = NULL; /* the slot owns it now */
    s->loaded = 1;
    s->lib = b.lib;
    s->copy_path = b.copy_path;
    s->api = b.api;
    s->api_version = b.api_version;
    s->state = state;
    s->reloads = 0;
    s->tried = s->seen = b.stamp;
    s->seen_valid = 1;
    s->tried_hash = b.hash;
    s->tried_at = (long long)time(NULL);
    s->seq = ++reg->next_seq;
    reg->order[reg->num_order++] = i;
    if (out) out->id = i | (s->generation << 16);
    return ECS_OK;
}

/* Shuts plugin i down and removes it; its code is not on the stack. */
static void ecs__plugin_unload_slot(ecs_plugin_registry *reg, uint32_t i)
{
    ecs__plugin_slot *s = &reg->slots[i];
    uint32_t k;
    s->unloading = 1; /* an unload of it from its shutdown is this one */
    if (s->api.shutdown) {
        uint32_t saved = ecs__plugin_enter(reg, i);
        s->api.shutdown(s->state);
        ecs__plugin_leave(reg, i, saved);
        s = &reg->slots[i]; /* a load during shutdown may have moved the slots */
    }
    ecs__plugin_rec_remove_owner(reg, i);
    ecs__plugin_dl_close(s->lib);
    remove(s->copy_path);
    ECS__FREE(s->copy_path);
    ECS__FREE(s->path);
    ECS__FREE(s->name);
    for (k = 0; k < reg->num_order && reg->order[k] != i; ++k) {}
    if (k < reg->num_order) {
        memmove(reg->order + k, reg->order + k + 1, (reg->num_order - k - 1) * sizeof *reg->order);
        reg->num_order--;
    }
    k = s->generation + 1u;
    memset(s, 0, sizeof *s);
    s->generation = k; /* past 0xFFFF: retired (a generation 0 again would make the slot's first handle valid) */
}

ECS_DEF ecs_result ecs_plugin_unload(ecs_plugin_registry *reg, ecs_plugin plugin)
{
    ecs__plugin_slot *s = ecs__plugin_slot_of(reg, plugin);
    if (!s) return ECS_ERROR_NOT_FOUND;
    if (s->unloading) return ECS_OK; /* asked from its own shutdown: under way */
    if (s->running) {                /* its code is on the stack: after it returns */
        s->unload_pending = 1;
        return ECS_OK;
    }
    ecs__plugin_unload_slot(reg, (uint32_t)(s - reg->slots));
    return ECS_OK;
}

/* Does the unloads asked for while their plugins ran, once no plugin code is
   on the stack. */
static void ecs__plugin_unload_deferred(ecs_plugin_registry *reg)
{
    uint32_t k = 0;
    while (reg->depth == 0 && k < reg->num_order) {
        uint32_t i = reg->order[k];
        if (reg->slots[i].unload_pending && !reg->slots[i].unloading) {
            ecs__plugin_unload_slot(reg, i);
            k = 0; /* its shutdown may have changed the order */
        } else {
            ++k;
        }
    }
}

/* The reload itself; s->tried* are updated by the caller. */
static ecs_result ecs__plugin_reload_slot(ecs_plugin_registry *reg, uint32_t i, ecs__plugin_build *b,
                                          ecs_error *err)
{
    ecs__plugin_slot *s = &reg->slots[i];
    ecs_result res;
    void *state = s->state;
    if (reg->staging) /* a reload from inside a plugin call during a reload */
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "plugin '%s': reload while another reload runs",
                             s->path);
    reg->staging = i;
    res = ecs__plugin_build_init(reg, i, s->path, b, &state, err);
    reg->staging = 0;
    s = &reg->slots[i]; /* a load during init may have moved the slots */
    ecs__plugin_rec_finish_staging(reg, i, res == ECS_OK);
    if (res != ECS_OK) return res; /* the old build goes on; s->state untouched */
    ecs__plugin_dl_close(s->lib);
    remove(s->copy_path);
    ECS__FREE(s->copy_path);
    ECS__FREE(s->name);
    s->name = b->name;
    s->lib = b->lib;
    s->copy_path = b->copy_path;
    b->lib = NULL;
    b->copy_path = NULL;
    b->name = NULL;
    s->api = b->api;
    s->api_version = b->api_version;
    s->state = state;
    s->reloads++;
    return ECS_OK;
}

/* Opens path as a new build of slot i and reloads; records the attempt so
   that a failed build is not retried until the file changes again.
   *not_ready (may be NULL): the file looked half-written. */
static ecs_result ecs__plugin_try_reload(ecs_plugin_registry *reg, uint32_t i, int *not_ready, ecs_error *err)
{
    ecs__plugin_slot *s = &reg->slots[i];
    ecs__plugin_build b;
    ecs_result res;
    if (s->running) /* its old code is on the stack: closing it would pull the code from under the call */
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "plugin '%s' is running (a reload asked from its own call); reload it between calls",
                             s->path);
    res = ecs__plugin_build_open(reg, s->path, &b, err);
    if (not_ready) *not_ready = b.not_ready;
    if (b.read) {
        s->tried = b.stamp;
        s->tried_hash = b.hash;
        s->tried_at = (long long)time(NULL);
    }
    if (res != ECS_OK) return res;
    res = ecs__plugin_reload_slot(reg, i, &b, err);
    ecs__plugin_build_close(&b); /* the new build on failure; nothing on success */
    return res;
}

ECS_DEF ecs_result ecs_plugin_reload(ecs_plugin_registry *reg, ecs_plugin plugin, ecs_error *err)
{
    ecs__plugin_slot *s = ecs__plugin_slot_of(reg, plugin);
    if (!s) return ecs_error_set(err, ECS_ERROR_NOT_FOUND, "reload: no such plugin (stale or nil handle)");
    return ecs__plugin_try_reload(reg, (uint32_t)(s - reg->slots), NULL, err);
}

ECS_DEF ecs_result ecs_plugin_poll(ecs_plugin_registry *reg, uint32_t *reloaded, ecs_error *err)
{
    ecs_result first = ECS_OK;
    uint32_t k;
    if (reloaded) *reloaded = 0;
    ecs_error_clear(err);
    if (!reg) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "poll: NULL registry");
    ecs__plugin_unload_deferred(reg);
    for (k = 0; k < reg->num_order; ++k) {
        uint32_t i = reg->order[k];
        ecs__plugin_slot *s = &reg->slots[i];
        ecs__plugin_stamp now;
        int changed, stable;
        if (!ecs__plugin_stat(s->path, &now)) { /* being replaced, or gone: keep the old build */
            s->seen_valid = 0;
            continue;
        }
        stable = s->seen_valid && ecs__plugin_stamp_equal(&now, &s->seen);
        s->seen = now;
        s->seen_valid = 1;
        if (!stable) continue; /* changed since the last poll: wait for it to hold still */
        changed = !ecs__plugin_stamp_equal(&now, &s->tried);
        if (!changed && now.mtime >= s->tried_at) {
            /* The file's time stamp is not older than our last look at it: a
               rebuild within the same second can keep size, time and inode.
               Compare the content. */
            uint64_t h;
            if (now.kind == ECS__PLUGIN_REGULAR && ecs__plugin_hash_file(s->path, &h)) changed = h != s->tried_hash;
            if (!changed && (long long)time(NULL) > now.mtime) s->tried_at = (long long)time(NULL);
        }
        if (!changed) continue;
        {
            ecs_error e;
            int not_ready = 0;
            ecs_result res = ecs__plugin_try_reload(reg, i, &not_ready, &e);
            if (res == ECS_OK) {
                if (reloaded) ++*reloaded;
            } else if (not_ready) { /* a build still writing it: a note, not an error */
                if (err && first == ECS_OK && !err->message[0])
                    snprintf(err->message, sizeof err->message, "not ready yet, retrying once it changes: %.200s",
                             e.message);
            } else if (first == ECS_OK) {
                first = res;
                if (err) *err = e;
            }
        }
    }
    return first;
}

ECS_DEF void ecs_plugin_tick(ecs_plugin_registry *reg, float dt)
{
    uint64_t last, end;
    uint32_t k = 0;
    if (!reg) return;
    ecs__plugin_unload_deferred(reg);
    end = reg->next_seq; /* a plugin loaded by a tick ticks from the next frame */
    while (k < reg->num_order && reg->slots[reg->order[k]].seq <= end) {
        uint32_t i = reg->order[k];
        ecs__plugin_slot *s = &reg->slots[i];
        last = s->seq;
        if (s->api.tick && !s->unload_pending) {
            uint32_t saved = ecs__plugin_enter(reg, i);
            s->api.tick(s->state, dt);
            ecs__plugin_leave(reg, i, saved);
            ecs__plugin_unload_deferred(reg);
        }
        /* the tick may have unloaded plugins before this one: go on with
           the first one loaded after it */
        for (k = 0; k < reg->num_order && reg->slots[reg->order[k]].seq <= last; ++k) {}
    }
}

ECS_DEF ecs_result ecs_plugin_get_info(const ecs_plugin_registry *reg, ecs_plugin plugin, ecs_plugin_info *out)
{
    const ecs__plugin_slot *s = ecs__plugin_slot_of(reg, plugin);
    uint32_t i, n = 0, slot;
    if (!s || !out) return ECS_ERROR_NOT_FOUND;
    slot = (uint32_t)(s - reg->slots);
    for (i = 0; i < reg->num_recs; ++i) n += reg->recs[i]->owner == slot;
    out->name = s->name;
    out->path = s->path;
    out->loaded_path = s->copy_path;
    out->state = s->state;
    out->api_version = s->api_version;
    out->reloads = s->reloads;
    out->registrations = n;
    return ECS_OK;
}

ECS_DEF void ecs_plugin_registry_destroy(ecs_plugin_registry *reg)
{
    if (!reg) return;
    while (reg->num_order > 0) ecs__plugin_unload_slot(reg, reg->order[reg->num_order - 1]);
    while (reg->num_recs > 0) ecs__plugin_rec_remove(reg, reg->num_recs - 1);
    ecs__plugin_entry_swap(reg->entry, reg, NULL);
    ECS__FREE(reg->recs);
    ECS__FREE(reg->slots);
    ECS__FREE(reg->order);
    ECS__FREE(reg->copy_dir);
    ECS__FREE(reg);
}

#ifdef __cplusplus
}
#endif
#endif /* ECS__PLUGIN_IMPLEMENTATION_DONE */
#endif /* ECS_PLUGIN_IMPLEMENTATION */
/* ==========================================================================
   The standard engine APIs over the other headers. Each part below is read
   once both of its headers are included, in either order: here when the
   other header came first, and from the end of the other header's
   declarations (which includes this file again) when ecs_plugin.h came
   first. Its functions are compiled in the ECS_PLUGIN_IMPLEMENTATION file,
   after the code above, when that file includes the other header too. */

/* ---- ECS_API_TRANSFORMS: ecs_plugin.h with ecs_transform.h ---------------- */
#if defined(ECS_TRANSFORM_H_INCLUDED) && !defined(ECS_PLUGIN_TRANSFORMS_H_INCLUDED)
#define ECS_PLUGIN_TRANSFORMS_H_INCLUDED
#ifdef __cplusplus
extern "C" {
#endif

/** ECS_API_TRANSFORMS version 0: one world's transforms (ecs_transform.h's
    functions of the same names; matrices are row-major, row vectors,
    world = local * parent world). */
typedef struct ecs_transforms_api_v0 {
    ecs_transform_manager *transforms; /* the world the engine published */
    ecs_instance (*lookup)(const ecs_transform_manager *tm, ecs_entity e);
    ecs_instance (*create)(ecs_transform_manager *tm, ecs_entity e, const ecs_mat4 *local,
                           ecs_instance parent);
    int (*destroy)(ecs_transform_manager *tm, ecs_instance i);
    ecs_result (*link)(ecs_transform_manager *tm, ecs_instance child, ecs_instance parent);
    ecs_result (*unlink)(ecs_transform_manager *tm, ecs_instance child);
    ecs_instance (*parent)(const ecs_transform_manager *tm, ecs_instance i);
    const ecs_mat4 *(*local)(const ecs_transform_manager *tm, ecs_instance i);
    const ecs_mat4 *(*world)(const ecs_transform_manager *tm, ecs_instance i);
    ecs_result (*set_local)(ecs_transform_manager *tm, ecs_instance i, const ecs_mat4 *m);
    ecs_result (*set_local_many)(ecs_transform_manager *tm, uint32_t n, const ecs_instance *nodes,
                                 const ecs_mat4 *locals);
    /** *out = a * b (apply a, then b); out may alias (ecs_mat4_mul). */
    void (*mul)(ecs_mat4 *out, const ecs_mat4 *a, const ecs_mat4 *b);
    /** *out = the rotation by radians about the axis (normalised; right-handed):
        ecs_mat4_rotation(ecs_quat_axis_angle(axis, radians)). Version 1
        gives those two under their own names instead. */
    void (*rotation)(ecs_mat4 *out, float axis_x, float axis_y, float axis_z, float radians);
} ecs_transforms_api_v0;

/** ECS_API_TRANSFORMS version 1: v0's calls on the world, and ecs_transform.h's
    matrix math under the header's names (mat4_compose is ecs_mat4_compose,
    and so on; same signatures), so that a plugin builds a transform from
    translation, rotation and scale, multiplies and inverts without writing
    matrix code. v0's mul and rotation are here as mat4_mul and
    mat4_rotation(quat_axis_angle(axis, radians)). */
typedef struct ecs_transforms_api_v1 {
    ecs_transform_manager *transforms; /* the world the engine published */
    ecs_instance (*lookup)(const ecs_transform_manager *tm, ecs_entity e);
    ecs_instance (*create)(ecs_transform_manager *tm, ecs_entity e, const ecs_mat4 *local,
                           ecs_instance parent);
    int (*destroy)(ecs_transform_manager *tm, ecs_instance i);
    ecs_result (*link)(ecs_transform_manager *tm, ecs_instance child, ecs_instance parent);
    ecs_result (*unlink)(ecs_transform_manager *tm, ecs_instance child);
    ecs_instance (*parent)(const ecs_transform_manager *tm, ecs_instance i);
    const ecs_mat4 *(*local)(const ecs_transform_manager *tm, ecs_instance i);
    const ecs_mat4 *(*world)(const ecs_transform_manager *tm, ecs_instance i);
    ecs_result (*set_local)(ecs_transform_manager *tm, ecs_instance i, const ecs_mat4 *m);
    ecs_result (*set_local_many)(ecs_transform_manager *tm, uint32_t n, const ecs_instance *nodes,
                                 const ecs_mat4 *locals);
    /* -- matrix math: ecs_transform.h's ecs_mat4_* and ecs_quat_* -- */
    ecs_mat4 (*mat4_identity)(void);
    void (*mat4_mul)(ecs_mat4 *out, const ecs_mat4 *a, const ecs_mat4 *b);
    ecs_mat4 (*mat4_translation)(ecs_vec3 t);
    ecs_mat4 (*mat4_scale)(ecs_vec3 s);
    ecs_mat4 (*mat4_rotation)(ecs_quat q);
    ecs_mat4 (*mat4_compose)(ecs_vec3 t, ecs_quat r, ecs_vec3 s);
    int (*mat4_inverse_affine)(ecs_mat4 *out, const ecs_mat4 *m);
    ecs_vec3 (*mat4_transform_point)(const ecs_mat4 *m, ecs_vec3 p);
    ecs_quat (*quat_axis_angle)(ecs_vec3 axis, float radians);
} ecs_transforms_api_v1;

/** Publishes ECS_API_TRANSFORMS v0 and v1 over tm, which must outlive the
    registry. Returns ECS_OK, ECS_ERROR_INVALID_ARGUMENT (NULL reg or tm),
    ECS_ERROR_ALREADY_EXISTS when published, or ECS_ERROR_OUT_OF_MEMORY
    (nothing published then). */
ECS_DEF ecs_result ecs_plugin_publish_transforms(ecs_plugin_registry *reg, ecs_transform_manager *tm,
                                                 ecs_error *err);

#ifdef __cplusplus
}
#endif
#endif /* ECS_PLUGIN_TRANSFORMS_H_INCLUDED */

#if defined(ECS_PLUGIN_TRANSFORMS_H_INCLUDED) && defined(ECS__PLUGIN_IMPLEMENTATION_DONE)
#ifndef ECS__PLUGIN_TRANSFORMS_IMPLEMENTATION_DONE
#define ECS__PLUGIN_TRANSFORMS_IMPLEMENTATION_DONE
#ifdef __cplusplus
extern "C" {
#endif
static void ecs__plugin_transform_rotation(ecs_mat4 *out, float axis_x, float axis_y, float axis_z, float radians)
{
    ecs_vec3 axis;
    axis.x = axis_x;
    axis.y = axis_y;
    axis.z = axis_z;
    *out = ecs_mat4_rotation(ecs_quat_axis_angle(axis, radians));
}

/* ECS_API_TRANSFORMS version 1: v0's calls on the world, then the math. */
static ecs_result ecs__plugin_publish_transforms_v1(ecs_plugin_registry *reg, const ecs_transforms_api_v0 *a0,
                                                    ecs_error *err)
{
    ecs_transforms_api_v1 a;
    memset(&a, 0, sizeof a);
    a.transforms = a0->transforms;
    a.lookup = a0->lookup;
    a.create = a0->create;
    a.destroy = a0->destroy;
    a.link = a0->link;
    a.unlink = a0->unlink;
    a.parent = a0->parent;
    a.local = a0->local;
    a.world = a0->world;
    a.set_local = a0->set_local;
    a.set_local_many = a0->set_local_many;
    a.mat4_identity = ecs_mat4_identity;
    a.mat4_mul = ecs_mat4_mul;
    a.mat4_translation = ecs_mat4_translation;
    a.mat4_scale = ecs_mat4_scale;
    a.mat4_rotation = ecs_mat4_rotation;
    a.mat4_compose = ecs_mat4_compose;
    a.mat4_inverse_affine = ecs_mat4_inverse_affine;
    a.mat4_transform_point = ecs_mat4_transform_point;
    a.quat_axis_angle = ecs_quat_axis_angle;
    return ecs_plugin_publish(reg, ECS_API_TRANSFORMS, 1, &a, sizeof a, err);
}

ECS_DEF ecs_result ecs_plugin_publish_transforms(ecs_plugin_registry *reg, ecs_transform_manager *tm,
                                                 ecs_error *err)
{
    ecs_transforms_api_v0 a;
    ecs_result res;
    if (!reg || !tm) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "publish transforms: NULL argument");
    memset(&a, 0, sizeof a);
    a.transforms = tm;
    a.lookup = ecs_transform_lookup;
    a.create = ecs_transform_create;
    a.destroy = ecs_transform_destroy;
    a.link = ecs_transform_link;
    a.unlink = ecs_transform_unlink;
    a.parent = ecs_transform_parent;
    a.local = ecs_transform_local;
    a.world = ecs_transform_world;
    a.set_local = ecs_transform_set_local;
    a.set_local_many = ecs_transform_set_local_many;
    a.mul = ecs_mat4_mul;
    a.rotation = ecs__plugin_transform_rotation;
    res = ecs_plugin_publish(reg, ECS_API_TRANSFORMS, 0, &a, sizeof a, err);
    if (res != ECS_OK) return res;
    if ((res = ecs__plugin_publish_transforms_v1(reg, &a, err)) != ECS_OK)
        ecs_plugin_unpublish(reg, ECS_API_TRANSFORMS, 0);
    return res;
}

#ifdef __cplusplus
}
#endif
#endif /* ECS__PLUGIN_TRANSFORMS_IMPLEMENTATION_DONE */
#endif

/* ---- ECS_API_RESOURCES: ecs_plugin.h with ecs_resource.h ------------------ */
#if defined(ECS_RESOURCE_H_INCLUDED) && !defined(ECS_PLUGIN_RESOURCES_H_INCLUDED)
#define ECS_PLUGIN_RESOURCES_H_INCLUDED
#ifdef __cplusplus
extern "C" {
#endif


/** ECS_API_RESOURCES version 0: a plugin adds a component type to levels.
    The registrations are tracked: removed when the plugin unloads, re-pointed
    to the new build's functions when it reloads. The rest are ecs_resource.h's
    functions of the same names (ecs_compiler_*, ecs_json_*, ecs_path_*), here
    because a plugin links against nothing. */
typedef struct ecs_resources_api_v0 {
    ecs_plugin_registry *registry; /* pass as the first argument of register_* */
    /** ecs_compiler_register through the registry: fn compiles {"type": name}.
        Across a reload the spawn order must stay the same. */
    ecs_result (*register_compile)(ecs_plugin_registry *reg, const char *name, int spawn_order,
                                   ecs_compiler_fn fn, void *user, ecs_error *err);
    /** ecs_spawner_register through the registry. Across a reload the
        instance size must stay the same. */
    ecs_result (*register_spawn)(ecs_plugin_registry *reg, const char *name, ecs_spawn_fn spawn,
                                 ecs_unspawn_fn unspawn, uint32_t instance_size, void *user, ecs_error *err);
    /* -- for compile functions -- */
    const ecs_json_doc *(*doc)(const ecs_compiler_context *ctx);
    int (*big_endian)(const ecs_compiler_context *ctx);
    uint32_t (*entity_index)(const ecs_compiler_context *ctx);
    ecs_result (*error)(ecs_compiler_context *ctx, const ecs_json_value *at, const char *format, ...);
    ecs_result (*write)(ecs_compiler_context *ctx, const void *bytes, uint32_t n);
    ecs_result (*write_u8)(ecs_compiler_context *ctx, uint8_t v);
    ecs_result (*write_u16)(ecs_compiler_context *ctx, uint16_t v);
    ecs_result (*write_u32)(ecs_compiler_context *ctx, uint32_t v);
    ecs_result (*write_u64)(ecs_compiler_context *ctx, uint64_t v);
    ecs_result (*write_f32)(ecs_compiler_context *ctx, float v);
    ecs_result (*write_f64)(ecs_compiler_context *ctx, double v);
    ecs_result (*add_dependency)(ecs_compiler_context *ctx, const ecs_json_value *path,
                                 uint64_t *hash);
    ecs_result (*write_reference)(ecs_compiler_context *ctx, const ecs_json_value *path);
    ecs_result (*check_members)(ecs_compiler_context *ctx, const ecs_json_value *obj,
                                const char *const *known, uint32_t n);
    ecs_result (*member_f32)(ecs_compiler_context *ctx, const ecs_json_value *obj, const char *key,
                             float *out, uint32_t n, const float *defaults);
    ecs_result (*member_u32)(ecs_compiler_context *ctx, const ecs_json_value *obj, const char *key,
                             uint32_t *out, const uint32_t *defaults);
    /* -- reading JSON -- */
    const ecs_json_value *(*json_member)(const ecs_json_doc *doc, const ecs_json_value *v,
                                                const char *key);
    const ecs_json_value *(*json_first)(const ecs_json_doc *doc, const ecs_json_value *v);
    const ecs_json_value *(*json_next)(const ecs_json_doc *doc, const ecs_json_value *v);
    const char *(*json_string)(const ecs_json_doc *doc, const ecs_json_value *v);
    const char *(*json_key)(const ecs_json_doc *doc, const ecs_json_value *v);
    /* -- names and paths -- */
    uint32_t (*identifier)(const char *name);
    uint64_t (*path_hash)(const char *path);
    int (*path_is_canonical)(const char *path);
} ecs_resources_api_v0;

/** ECS_API_RESOURCES version 1: v0's entries, then components from data: a
    schema gives a component its compile and decompile functions (nothing
    written by hand, and levelc --plugin can decompile it), register_manager
    also spawns it into an engine-owned manager with ecs_manager_spawn, and
    write_entity lets a hand-written compile function refer to another entity
    of the same resource. */
typedef struct ecs_resources_api_v1 {
    ecs_plugin_registry *registry; /* pass as the first argument of register_* */
    ecs_result (*register_compile)(ecs_plugin_registry *reg, const char *name, int spawn_order,
                                   ecs_compiler_fn fn, void *user, ecs_error *err);
    ecs_result (*register_spawn)(ecs_plugin_registry *reg, const char *name, ecs_spawn_fn spawn,
                                 ecs_unspawn_fn unspawn, uint32_t instance_size, void *user, ecs_error *err);
    const ecs_json_doc *(*doc)(const ecs_compiler_context *ctx);
    int (*big_endian)(const ecs_compiler_context *ctx);
    uint32_t (*entity_index)(const ecs_compiler_context *ctx);
    ecs_result (*error)(ecs_compiler_context *ctx, const ecs_json_value *at, const char *format, ...);
    ecs_result (*write)(ecs_compiler_context *ctx, const void *bytes, uint32_t n);
    ecs_result (*write_u8)(ecs_compiler_context *ctx, uint8_t v);
    ecs_result (*write_u16)(ecs_compiler_context *ctx, uint16_t v);
    ecs_result (*write_u32)(ecs_compiler_context *ctx, uint32_t v);
    ecs_result (*write_u64)(ecs_compiler_context *ctx, uint64_t v);
    ecs_result (*write_f32)(ecs_compiler_context *ctx, float v);
    ecs_result (*write_f64)(ecs_compiler_context *ctx, double v);
    ecs_result (*add_dependency)(ecs_compiler_context *ctx, const ecs_json_value *path,
                                 uint64_t *hash);
    ecs_result (*write_reference)(ecs_compiler_context *ctx, const ecs_json_value *path);
    ecs_result (*check_members)(ecs_compiler_context *ctx, const ecs_json_value *obj,
                                const char *const *known, uint32_t n);
    ecs_result (*member_f32)(ecs_compiler_context *ctx, const ecs_json_value *obj, const char *key,
                             float *out, uint32_t n, const float *defaults);
    ecs_result (*member_u32)(ecs_compiler_context *ctx, const ecs_json_value *obj, const char *key,
                             uint32_t *out, const uint32_t *defaults);
    const ecs_json_value *(*json_member)(const ecs_json_doc *doc, const ecs_json_value *v,
                                                const char *key);
    const ecs_json_value *(*json_first)(const ecs_json_doc *doc, const ecs_json_value *v);
    const ecs_json_value *(*json_next)(const ecs_json_doc *doc, const ecs_json_value *v);
    const char *(*json_string)(const ecs_json_doc *doc, const ecs_json_value *v);
    const char *(*json_key)(const ecs_json_doc *doc, const ecs_json_value *v);
    uint32_t (*identifier)(const char *name);
    uint64_t (*path_hash)(const char *path);
    int (*path_is_canonical)(const char *path);
    /* -- new in version 1 -- */
    /** ecs_compiler_register_schema through the registry: {"type": name}
        compiles and decompiles from the schema (copied). Across a reload the
        schema and the spawn order must stay the same. */
    ecs_result (*register_schema)(ecs_plugin_registry *reg, const char *name, int spawn_order,
                                  const ecs_schema_field *schema, uint32_t num_fields, ecs_error *err);
    /** register_schema with m's schema, and register_spawn of
        ecs_manager_spawn / ecs_manager_unspawn into m (which needs a schema:
        define_schema): the whole component from its description. All or
        nothing: when the spawn half fails (the name taken in the spawner, no
        spawner, out of memory) the schema half is undone and the error
        returned, so a corrected call can succeed. */
    ecs_result (*register_manager)(ecs_plugin_registry *reg, const char *name, int spawn_order, ecs_manager *m,
                                   ecs_error *err);
    /** ecs_compiler_write_entity: a reference to another entity by name. */
    ecs_result (*write_entity)(ecs_compiler_context *ctx, const ecs_json_value *name);
    /** ecs_compiler_entity_instances. */
    uint32_t (*entity_instances)(const ecs_compiler_context *ctx);
} ecs_resources_api_v1;

/** Publishes ECS_API_RESOURCES v0 and v1 over a compiler and a spawner
    (either may be NULL; registering into a missing one fails with
    ECS_ERROR_NOT_FOUND). Both must outlive the registry. Returns ECS_OK,
    ECS_ERROR_INVALID_ARGUMENT (NULL reg), ECS_ERROR_ALREADY_EXISTS when
    published, or ECS_ERROR_OUT_OF_MEMORY (nothing published then). */
ECS_DEF ecs_result ecs_plugin_publish_resources(ecs_plugin_registry *reg, ecs_compiler *compiler,
                                                ecs_spawner *spawner, ecs_error *err);

#ifdef __cplusplus
}
#endif
#endif /* ECS_PLUGIN_RESOURCES_H_INCLUDED */

#if defined(ECS_PLUGIN_RESOURCES_H_INCLUDED) && defined(ECS__PLUGIN_IMPLEMENTATION_DONE)
#ifndef ECS__PLUGIN_RESOURCES_IMPLEMENTATION_DONE
#define ECS__PLUGIN_RESOURCES_IMPLEMENTATION_DONE
#ifdef __cplusplus
extern "C" {
#endif
/* Forgets the newest registration without undoing it (its engine-side
   registration failed). */
static void ecs__plugin_rec_drop_last(ecs_plugin_registry *reg)
{
    ecs__plugin_rec *r = reg->recs[--reg->num_recs];
    ECS__FREE(r->name);
    ECS__FREE(r);
}

static void ecs__plugin_nothing(ecs_plugin_registry *reg, ecs__plugin_rec *r)
{
    (void)reg;
    (void)r;
}

/* Commit for function registrations: the staged pointers become current. */
static void ecs__plugin_value_commit(ecs_plugin_registry *reg, ecs__plugin_rec *r)
{
    (void)reg;
    r->cur = r->staged;
}

/* The engine calls these; they call the owner's current function with the
   owner as the registry's caller, so a reload re-points them in place. */
static ecs_result ecs__plugin_compile_thunk(void *user, ecs_compiler_context *ctx, const ecs_json_value *component)
{
    ecs__plugin_rec *r = (ecs__plugin_rec *)user;
    ecs_plugin_registry *reg = r->reg;
    ecs_compiler_fn fn = (ecs_compiler_fn)r->cur.fn[0];
    uint32_t owner = r->owner, saved = ecs__plugin_enter(reg, owner);
    ecs_result res = fn(r->cur.ptr, ctx, component);
    ecs__plugin_leave(reg, owner, saved);
    return res;
}

static ecs_result ecs__plugin_spawn_thunk(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                                          const uint32_t *entity_index, const void *data, uint32_t size)
{
    ecs__plugin_rec *r = (ecs__plugin_rec *)user;
    ecs_plugin_registry *reg = r->reg;
    ecs_spawn_fn fn = (ecs_spawn_fn)r->cur.fn[0];
    uint32_t owner = r->owner, saved = ecs__plugin_enter(reg, owner);
    ecs_result res = fn(r->cur.ptr, ctx, num_instances, entity_index, data, size);
    ecs__plugin_leave(reg, owner, saved);
    return res;
}

static void ecs__plugin_unspawn_thunk(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                                      const uint32_t *entity_index, const void *data, uint32_t size)
{
    ecs__plugin_rec *r = (ecs__plugin_rec *)user;
    ecs_plugin_registry *reg = r->reg;
    ecs_unspawn_fn fn = (ecs_unspawn_fn)r->cur.fn[1];
    uint32_t owner = r->owner, saved = ecs__plugin_enter(reg, owner);
    fn(r->cur.ptr, ctx, num_instances, entity_index, data, size);
    ecs__plugin_leave(reg, owner, saved);
}

static void ecs__plugin_compile_undo(ecs_plugin_registry *reg, ecs__plugin_rec *r)
{
    ecs_compiler_unregister((ecs_compiler *)reg->compiler, r->name);
}
static void ecs__plugin_spawn_undo(ecs_plugin_registry *reg, ecs__plugin_rec *r)
{
    ecs_spawner_unregister((ecs_spawner *)reg->spawner, r->name);
}
static const ecs__plugin_kind ecs__plugin_kind_compile = {"compile function", ecs__plugin_compile_undo,
                                                          ecs__plugin_value_commit, ecs__plugin_nothing};
static const ecs__plugin_kind ecs__plugin_kind_spawn = {"spawn function", ecs__plugin_spawn_undo,
                                                        ecs__plugin_value_commit, ecs__plugin_nothing};

static ecs_result ecs__plugin_register_compile(ecs_plugin_registry *reg, const char *name, int spawn_order,
                                               ecs_compiler_fn fn, void *user, ecs_error *err)
{
    ecs__plugin_rec *r;
    ecs__plugin_value v;
    ecs_result res;
    if (!reg || !reg->compiler)
        return ecs_error_set(err, ECS_ERROR_NOT_FOUND, "register_compile: the engine published no compiler");
    if (!name || !name[0] || !fn)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "register_compile: empty name or NULL function");
    memset(&v, 0, sizeof v);
    v.ptr = user;
    v.fn[0] = (ecs__plugin_fn)fn;
    v.u = (uint32_t)spawn_order;
    res = ecs__plugin_rec_claim(reg, &ecs__plugin_kind_compile, 0, 0, name, &r, err);
    if (res != ECS_OK) return res;
    if (r) { /* the build being reloaded: re-point at commit */
        if (r->cur.u != v.u)
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "compile function '%s' changed its spawn order across a reload (%d to %d): "
                                 "unload and load the plugin to change it",
                                 name, (int)r->cur.u, spawn_order);
        r->staged = v;
        r->flags |= ECS__PLUGIN_STAGED;
        return ECS_OK;
    }
    r = ecs__plugin_rec_add(reg, &ecs__plugin_kind_compile, 0, 0, name, &v, err);
    if (!r) return ECS_ERROR_OUT_OF_MEMORY;
    res = ecs_compiler_register((ecs_compiler *)reg->compiler, name, ecs__plugin_compile_thunk, r, spawn_order, err);
    if (res != ECS_OK) ecs__plugin_rec_drop_last(reg);
    return res;
}

static ecs_result ecs__plugin_register_spawn(ecs_plugin_registry *reg, const char *name, ecs_spawn_fn spawn,
                                             ecs_unspawn_fn unspawn, uint32_t instance_size, void *user,
                                             ecs_error *err)
{
    ecs__plugin_rec *r;
    ecs__plugin_value v;
    ecs_result res;
    if (!reg || !reg->spawner)
        return ecs_error_set(err, ECS_ERROR_NOT_FOUND, "register_spawn: the engine published no spawner");
    if (!name || !name[0] || !spawn || !unspawn)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "register_spawn: empty name or NULL function");
    memset(&v, 0, sizeof v);
    v.ptr = user;
    v.fn[0] = (ecs__plugin_fn)spawn;
    v.fn[1] = (ecs__plugin_fn)unspawn;
    v.u = instance_size;
    res = ecs__plugin_rec_claim(reg, &ecs__plugin_kind_spawn, 0, 0, name, &r, err);
    if (res != ECS_OK) return res;
    if (r) {
        if (r->cur.u != instance_size)
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "spawn function '%s' changed its instance size across a reload (%u to %u): "
                                 "unload and load the plugin to change it",
                                 name, r->cur.u, instance_size);
        r->staged = v;
        r->flags |= ECS__PLUGIN_STAGED;
        return ECS_OK;
    }
    r = ecs__plugin_rec_add(reg, &ecs__plugin_kind_spawn, 0, 0, name, &v, err);
    if (!r) return ECS_ERROR_OUT_OF_MEMORY;
    res = ecs_spawner_register((ecs_spawner *)reg->spawner, name, ecs__plugin_spawn_thunk, ecs__plugin_unspawn_thunk,
                               instance_size, r, err);
    /* every thunk enters the registry (not thread-safe) and hides its store:
       ecs_spawner_spawn_jobs runs all of a registry's blocks on one task */
    if (res == ECS_OK) (void)ecs_spawner_set_store((ecs_spawner *)reg->spawner, name, reg, err);
    if (res != ECS_OK) ecs__plugin_rec_drop_last(reg);
    return res;
}

/* A schema registration: the compiler holds its copy; the record keeps the
   spawn order (u) and a fingerprint of the schema (size) to hold a reload to
   the same schema. */
static const ecs__plugin_kind ecs__plugin_kind_schema = {"schema", ecs__plugin_compile_undo, ecs__plugin_nothing,
                                                         ecs__plugin_nothing};

/* FNV-1a 32 over the schema's names, kinds and specs. */
static uint32_t ecs__plugin_schema_print(const ecs_schema_field *schema, uint32_t n)
{
    uint32_t h = 0x811C9DC5u, k;
    for (k = 0; k < n; ++k) {
        const char *parts[2];
        int p;
        parts[0] = schema[k].name ? schema[k].name : "";
        parts[1] = schema[k].spec ? schema[k].spec : "\x01runtime";
        h = (h ^ (uint32_t)schema[k].kind) * 0x01000193u;
        for (p = 0; p < 2; ++p) {
            const char *c = parts[p];
            for (; *c; ++c) h = (h ^ (unsigned char)*c) * 0x01000193u;
            h = (h ^ 0xFFu) * 0x01000193u;
        }
    }
    return h;
}

static ecs_result ecs__plugin_register_schema(ecs_plugin_registry *reg, const char *name, int spawn_order,
                                              const ecs_schema_field *schema, uint32_t num_fields, ecs_error *err)
{
    ecs__plugin_rec *r;
    ecs__plugin_value v;
    ecs_result res;
    uint32_t print;
    if (!reg || !reg->compiler)
        return ecs_error_set(err, ECS_ERROR_NOT_FOUND, "register_schema: the engine published no compiler");
    if (!name || !name[0] || !schema)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "register_schema: empty name or NULL schema");
    print = ecs__plugin_schema_print(schema, num_fields);
    res = ecs__plugin_rec_claim(reg, &ecs__plugin_kind_schema, 0, 0, name, &r, err);
    if (res != ECS_OK) return res;
    if (r) { /* the build being reloaded: the compiler keeps its copy */
        if (r->cur.u != (uint32_t)spawn_order || r->size != print)
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "the schema or spawn order of '%s' changed across a reload: unload and load the "
                                 "plugin to change them",
                                 name);
        r->flags |= ECS__PLUGIN_STAGED;
        return ECS_OK;
    }
    memset(&v, 0, sizeof v);
    v.u = (uint32_t)spawn_order;
    r = ecs__plugin_rec_add(reg, &ecs__plugin_kind_schema, 0, 0, name, &v, err);
    if (!r) return ECS_ERROR_OUT_OF_MEMORY;
    r->size = print;
    res = ecs_compiler_register_schema((ecs_compiler *)reg->compiler, name, schema, num_fields, spawn_order, err);
    if (res != ECS_OK) ecs__plugin_rec_drop_last(reg);
    return res;
}

static ecs_result ecs__plugin_register_manager(ecs_plugin_registry *reg, const char *name, int spawn_order,
                                               ecs_manager *m, ecs_error *err)
{
    ecs_result res;
    uint32_t before = reg ? reg->num_recs : 0;
    ecs__plugin_rec *r;
    if (!m || !m->schema)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "register_manager '%s': the manager has no schema (define it with define_schema)",
                             name ? name : "?");
    res = ecs__plugin_register_schema(reg, name, spawn_order, m->schema->fields, m->schema->num_fields, err);
    if (res != ECS_OK) return res;
    res = ecs__plugin_register_spawn(reg, name, ecs_manager_spawn, ecs_manager_unspawn, ecs_manager_record_size(m), m,
                                     err);
    if (res == ECS_OK) return res;
    /* the spawn half failed: the schema half goes too (all or nothing) */
    if (reg->num_recs > before) {
        ecs__plugin_rec_remove(reg, reg->num_recs - 1); /* its kind's undo: out of the compiler */
    } else if ((r = ecs__plugin_rec_find(reg, &ecs__plugin_kind_schema, 0, 0, name)) != NULL) {
        r->flags &= ~ECS__PLUGIN_STAGED; /* a reload's: staged again by nothing */
    }
    return res;
}

/* ECS_API_RESOURCES version 1: v0's entries in v0's order, then the new ones. */
static ecs_result ecs__plugin_publish_resources_v1(ecs_plugin_registry *reg, const ecs_resources_api_v0 *a0,
                                                   ecs_error *err)
{
    ecs_resources_api_v1 a;
    memset(&a, 0, sizeof a);
    a.registry = a0->registry;
    a.register_compile = a0->register_compile;
    a.register_spawn = a0->register_spawn;
    a.doc = a0->doc;
    a.big_endian = a0->big_endian;
    a.entity_index = a0->entity_index;
    a.error = a0->error;
    a.write = a0->write;
    a.write_u8 = a0->write_u8;
    a.write_u16 = a0->write_u16;
    a.write_u32 = a0->write_u32;
    a.write_u64 = a0->write_u64;
    a.write_f32 = a0->write_f32;
    a.write_f64 = a0->write_f64;
    a.add_dependency = a0->add_dependency;
    a.write_reference = a0->write_reference;
    a.check_members = a0->check_members;
    a.member_f32 = a0->member_f32;
    a.member_u32 = a0->member_u32;
    a.json_member = a0->json_member;
    a.json_first = a0->json_first;
    a.json_next = a0->json_next;
    a.json_string = a0->json_string;
    a.json_key = a0->json_key;
    a.identifier = a0->identifier;
    a.path_hash = a0->path_hash;
    a.path_is_canonical = a0->path_is_canonical;
    a.register_schema = ecs__plugin_register_schema;
    a.register_manager = ecs__plugin_register_manager;
    a.write_entity = ecs_compiler_write_entity;
    a.entity_instances = ecs_compiler_entity_instances;
    return ecs_plugin_publish(reg, ECS_API_RESOURCES, 1, &a, sizeof a, err);
}

ECS_DEF ecs_result ecs_plugin_publish_resources(ecs_plugin_registry *reg, ecs_compiler *compiler,
                                                ecs_spawner *spawner, ecs_error *err)
{
    ecs_resources_api_v0 a;
    ecs_result res;
    if (!reg) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "publish resources: NULL registry");
    memset(&a, 0, sizeof a);
    a.registry = reg;
    a.register_compile = ecs__plugin_register_compile;
    a.register_spawn = ecs__plugin_register_spawn;
    a.doc = ecs_compiler_doc;
    a.big_endian = ecs_compiler_big_endian;
    a.entity_index = ecs_compiler_entity_index;
    a.error = ecs_compiler_error;
    a.write = ecs_compiler_write;
    a.write_u8 = ecs_compiler_write_u8;
    a.write_u16 = ecs_compiler_write_u16;
    a.write_u32 = ecs_compiler_write_u32;
    a.write_u64 = ecs_compiler_write_u64;
    a.write_f32 = ecs_compiler_write_f32;
    a.write_f64 = ecs_compiler_write_f64;
    a.add_dependency = ecs_compiler_add_dependency;
    a.write_reference = ecs_compiler_write_reference;
    a.check_members = ecs_compiler_check_members;
    a.member_f32 = ecs_compiler_member_f32;
    a.member_u32 = ecs_compiler_member_u32;
    a.json_member = ecs_json_member;
    a.json_first = ecs_json_first;
    a.json_next = ecs_json_next;
    a.json_string = ecs_json_string;
    a.json_key = ecs_json_key;
    a.identifier = ecs_resource_identifier;
    a.path_hash = ecs_path_hash;
    a.path_is_canonical = ecs_path_is_canonical;
    res = ecs_plugin_publish(reg, ECS_API_RESOURCES, 0, &a, sizeof a, err);
    if (res != ECS_OK) return res;
    if ((res = ecs__plugin_publish_resources_v1(reg, &a, err)) != ECS_OK) {
        ecs_plugin_unpublish(reg, ECS_API_RESOURCES, 0);
        return res;
    }
    reg->compiler = compiler;
    reg->spawner = spawner;
    return ECS_OK;
}

#ifdef __cplusplus
}
#endif
#endif /* ECS__PLUGIN_RESOURCES_IMPLEMENTATION_DONE */
#endif

/*
------------------------------------------------------------------------------
This software is available under 2 licenses -- choose whichever you prefer.
------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2024 the ecs.h authors
Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
ALTERNATIVE B - Public Domain (www.unlicense.org)
This is free and unencumbered software released into the public domain.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute this
software, either in source code form or as a compiled binary, for any purpose,
commercial or non-commercial, and by any means.
In jurisdictions that recognize copyright laws, the author or authors of this
software dedicate any and all copyright interest in the software to the public
domain. We make this dedication for the benefit of the public at large and to
the detriment of our heirs and successors. We intend this dedication to be an
overt act of relinquishment in perpetuity of all present and future rights to
this software under copyright law.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION
WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------
*/
