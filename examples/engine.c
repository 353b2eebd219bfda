/* examples/engine.c - a headless hobby engine in one file: how the four
   headers fit together.

   Build (from the repository root; bench/run.sh does all of this):
       cc -O2 -I. -I/usr/include/stb examples/engine.c -o build/engine -lm -ldl -lpthread
       cc -O2 -shared -fPIC -I. examples/plugins/spin.c -o build/plugins/spin.so
       cc -O2 examples/gen_level.c -o build/gen_level -lm
       mkdir -p build/levels && build/gen_level > build/levels/standard.json
       build/engine --plugins build/plugins --level build/levels/standard.json

   What it does, in order:
     1. an ecs_world holding the entities and every component store, each
        registered once by name: two transform managers as in the seeds'
        part 3 ("transform", the game world, and "inventory", the inventory
        screen; a pickaxe entity lives in both, at different places), mesh,
        actor and motion;
     2. the resource compiler and a spawner, both given the world's types in
        one call each (ecs_compiler_register_world, ecs_spawner_register_world:
        transform, mesh and actor compile; every store spawns);
     3. a plugin registry over the world, publishing entities, transforms and
        resources; the plugins in --plugins are loaded (the example's spin.so
        adds a "spin" component that levels can contain, and it joins the
        world);
     4. the level (--level) and the spin demo level are compiled and spawned,
        each in one batch;
     5. --frames frames of: simulate (a few % of the objects move: their local
        transforms are integrated and written with one set_local_many), the
        plugins' tick (spin turns its entities), churn (--spawn prefab crates
        spawned in one call, --destroy of the oldest crates destroyed), exact
        collection of the dead crates' instances in every store of the world
        in one call (ecs_world_collect); the simulation is a query over
        motion and transform; with --reload, the spin plugin is hot-reloaded
        in the middle of the run;
        with --threads N (default 1) the level spawns, the transform updates
        and the collection run on examples/jobs_pthreads.h's pool of N
        threads, with the same results bit for bit (the report's
        world_hash line is the same for every N);
     6. a report: entities alive, instances per manager (after a final full
        collection), time per frame split by system, peak memory;
     7. with --check-snapshot F: the world was saved after frame F
        (ecs_snapshot_save); it is loaded back over the live world
        (ECS_SNAPSHOT_REPLACE) with the engine's own state, the frames after
        F run again, and every frame's ecs_snapshot_world_hash must equal the
        first run's.
     8. with --console PORT (0: a free one): the development console
        (ecs_console.h) on 127.0.0.1 (--console-address for another), its
        first output line "console: listening on ADDRESS:PORT"; the world
        commands, the plugins' commands (the API is published in the
        registry) and the engine's: frame.step (frames), frame.pause,
        frame.resume, frame.stats (since), spawn (prefab, position), quit;
        http://ADDRESS:PORT/ is the inspector page (examples/inspector.html,
        embedded by tools/embed_page.py). It then runs until
        quit (or --max-seconds), --fps frames a second while not paused,
        polling the console once a frame and sleeping in ecs_console_wait.
   The report's lines start with "report:" and are key=value, for scripts
   (tests/check_engine.sh checks them; tests/check_console.sh drives the
   console with tools/ecs_console.py). */
#if !defined(_POSIX_C_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L /* clock_gettime in strict C99 */
#endif
#define ECS_IMPLEMENTATION
#define ECS_TRANSFORM_IMPLEMENTATION
#define ECS_RESOURCE_IMPLEMENTATION
#define ECS_SNAPSHOT_IMPLEMENTATION
#define ECS_PLUGIN_IMPLEMENTATION
#define ECS_CONSOLE_IMPLEMENTATION
#include "ecs.h"
#include "ecs_transform.h"
#include "ecs_resource.h"
#include "ecs_snapshot.h" /* after ecs_resource.h: --check-snapshot */
#include "ecs_plugin.h" /* in any order: with the two above it publishes their APIs */
#include "ecs_console.h" /* after ecs_plugin.h: plugins add console commands */
#include "examples/jobs_pthreads.h" /* --threads: a small pool behind ecs.h's job interface */
#include "examples/inspector_html.h" /* the inspector page GET / serves (tools/embed_page.py makes it) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#endif

/* ---- the engine's own components ------------------------------------------ */

/* mesh and actor from the standard schemas: uint64_t *mesh and uint32_t
   *flags, float *mass and *radius, the records levels compile to; the
   managers spawn them with ecs_manager_spawn */
ECS_MANAGER_DEFINE_SCHEMA(mesh_manager, ECS_RESOURCE_MESH_SCHEMA)
ECS_MANAGER_DEFINE_SCHEMA(actor_manager, ECS_RESOURCE_ACTOR_SCHEMA)

/* velocity of the objects that move (not in levels: the engine picks them) */
#define MOTION_FIELDS(X) X(ecs_vec3, velocity)
ECS_MANAGER_DEFINE(motion_manager, MOTION_FIELDS)

/* A crate with a lid, fired --spawn times a frame. */
static const char crate_prefab[] =
    "{\"entities\": [{\"name\": \"crate\", \"components\": ["
    "  {\"type\": \"transform\"}, {\"type\": \"mesh\", \"mesh\": \"models/crate\", \"flags\": 1},"
    "  {\"type\": \"actor\", \"mass\": 20, \"radius\": 0.7}],"
    " \"children\": [{\"name\": \"lid\", \"components\": ["
    "  {\"type\": \"transform\", \"position\": [0, 0.5, 0]}, {\"type\": \"mesh\", \"mesh\": \"models/crate_lid\"}]}]}]}";

typedef struct options {
    const char *level, *spin_level, *plugins;
    uint32_t frames, spawn, destroy, moving_percent, threads, check_at;
    int reload, quiet, check; /* check: --check-snapshot */
    int console_port;         /* --console PORT, -1: no console */
    const char *console_address;
    uint32_t fps, max_seconds;
} options;

enum { SYS_SIMULATE, SYS_TRANSFORMS, SYS_PLUGINS, SYS_CHURN, SYS_GC, SYS_COUNT };
static const char *const system_names[SYS_COUNT] = {"simulate", "transforms", "plugins", "churn", "collect"};

typedef struct engine {
    options opt;
    ecs_jobs_pool pool; /* --threads: opt.threads - 1 threads and the main one */
    ecs_jobs jobs;
    ecs_world world;  /* world.entities: the entity manager */
    ecs_world_query movers; /* motion and transform */
    ecs_world_cursor cursor;
    ecs_transform_manager game, inventory;
    mesh_manager meshes;
    actor_manager actors;
    motion_manager motion;
    ecs_compiler compiler;
    ecs_spawner spawner;
    ecs_plugin_registry *registry;
    ecs_console *console; /* --console */
    uint32_t frame;       /* frames run so far */
    int paused, quit;     /* frame.pause, quit */
    double console_ns;    /* time in ecs_console_poll, for the report */
    uint32_t console_polls;
    struct frame_stat { uint32_t frame, entities; float us; } frame_stats[256]; /* frame.stats: a ring of the last frames */
    uint32_t frame_stats_count;
    char *page; /* the inspector page, joined from inspector_html_lines */
    ecs_plugin spin_plugin;
    int have_spin;
    ecs_compiler_output crate;
    ecs_entity *crates; /* FIFO of spawned crate entities (2 a crate) */
    uint32_t crates_head, crates_count, crates_capacity;
    ecs_instance *move_nodes;
    ecs_mat4 *move_locals;
    double system_ns[SYS_COUNT], system_max_ns[SYS_COUNT];
    uint64_t rng;
    uint32_t crates_spawned, crates_destroyed;
    /* --check-snapshot: the world saved after frame check_at, the engine's
       own state then, and the hash of every later frame */
    ecs_snapshot_output check_snap;
    uint64_t check_rng, *check_hash;
    ecs_entity *check_crates;
    uint32_t check_head, check_count, check_capacity, check_spawned, check_destroyed;
} engine;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint32_t random_below(engine *g, uint32_t n)
{
    uint64_t x = g->rng; /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    g->rng = x;
    return (uint32_t)(((x * 2685821657736338717ull) >> 32) % n);
}

static int fail(const char *what, const ecs_error *err)
{
    fprintf(stderr, "engine: %s: %s (%s)\n", what, err->message, ecs_result_name(err->code));
    return 1;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    text = (char *)malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    fclose(f);
    if (text) text[n] = '\0';
    *len = (size_t)n;
    return text;
}

/* ---- setup -------------------------------------------------------------------- */

static int setup_worlds(engine *g)
{
    ecs_world_query_desc movers;
    ecs_error err;
    ecs_entity pickaxe;
    ecs_vec3 in_hand = {0.4f, 1.2f, 0.1f}, in_slot = {3.0f, 1.0f, 0.0f};
    ecs_mat4 m;
    if (ecs_world_init(&g->world) != ECS_OK ||
        ecs_transform_manager_init(&g->game, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE) != ECS_OK ||
        ecs_transform_manager_init(&g->inventory, ECS_LOOKUP_HASH, ECS_TRANSFORM_IMMEDIATE) != ECS_OK) {
        ecs_error_set(&err, ECS_ERROR_OUT_OF_MEMORY, "world and transform managers");
        return fail("setup", &err);
    }
    mesh_manager_init(&g->meshes, ECS_LOOKUP_HASH);
    actor_manager_init(&g->actors, ECS_LOOKUP_HASH);
    motion_manager_init(&g->motion, ECS_LOOKUP_HASH);
    /* every store once, by name: the compiler, the spawner, the plugins and
       the queries all take them from here */
    if (ecs_transform_world_register(&g->world, "transform", &g->game, &err) != ECS_OK ||
        ecs_transform_world_register(&g->world, "inventory", &g->inventory, &err) != ECS_OK ||
        ecs_world_add_manager(&g->world, "mesh", &g->meshes.core, &err) != ECS_OK ||
        ecs_world_add_manager(&g->world, "actor", &g->actors.core, &err) != ECS_OK ||
        ecs_world_add_manager(&g->world, "motion", &g->motion.core, &err) != ECS_OK)
        return fail("registering the components", &err);
    memset(&movers, 0, sizeof movers);
    movers.required[0] = "motion";
    movers.required[1] = "transform";
    if (ecs_world_query_make(&g->world, &movers, &g->movers, &err) != ECS_OK) return fail("the movers' query", &err);
    /* one entity, two transform managers: the pickaxe in the player's hand
       and in the inventory screen's slot */
    pickaxe = ecs_entity_create(&g->world.entities);
    m = ecs_mat4_translation(in_hand);
    ecs_transform_create(&g->game, pickaxe, &m, ecs_instance_nil());
    m = ecs_mat4_translation(in_slot);
    ecs_transform_create(&g->inventory, pickaxe, &m, ecs_instance_nil());
    return 0;
}

static int setup_resources(engine *g)
{
    ecs_error err;
    ecs_compiler_init(&g->compiler);
    ecs_spawner_init(&g->spawner);
    if (ecs_compiler_register_world(&g->compiler, &g->world, &err))
        return fail("registering the world's components", &err);
    if (err.message[0]) printf("engine: %s\n", err.message); /* what levels cannot hold, and why */
    if (ecs_spawner_register_world(&g->spawner, &g->world, &err))
        return fail("registering the world's components", &err);
    if (err.message[0]) printf("engine: %s\n", err.message);
    if (ecs_compiler_compile(&g->compiler, crate_prefab, sizeof crate_prefab - 1, ECS_COMPILER_PREFAB, &g->crate, &err) ||
        ecs_resource_verify(g->crate.blob, g->crate.size, &err))
        return fail("compiling the crate prefab", &err);
    return 0;
}

static int setup_plugins(engine *g)
{
    ecs_plugin_registry_desc desc;
    ecs_error err;
    char path[1024];
    memset(&desc, 0, sizeof desc);
    desc.world = &g->world; /* the plugins' managers join it; entities too */
    g->registry = ecs_plugin_registry_create(&desc, &err);
    if (!g->registry) return fail("plugin registry", &err);
    if (ecs_plugin_publish_transforms(g->registry, &g->game, &err) ||
        ecs_plugin_publish_resources(g->registry, &g->compiler, &g->spawner, &err) ||
        (g->console && ecs_console_publish(g->console, g->registry, &err)))
        return fail("publishing engine APIs", &err);
    snprintf(path, sizeof path, "%s/spin%s", g->opt.plugins,
#if defined(_WIN32)
             ".dll"
#elif defined(__APPLE__)
             ".dylib"
#else
             ".so"
#endif
    );
    if (ecs_plugin_load(g->registry, path, &g->spin_plugin, &err)) return fail(path, &err);
    g->have_spin = 1;
    return 0;
}

/* ---- the console (--console) ------------------------------------------------------- */

static int run_frame(engine *g, uint32_t frame);

/* frame.stats' ring: frame number, its time, entities alive after it */
static void record_frame_stat(engine *g, uint32_t frame, double ns)
{
    struct frame_stat *f = &g->frame_stats[g->frame_stats_count++ % 256u];
    f->frame = frame + 1u; /* frames done, as world.hash's frame counts them */
    f->entities = ecs_entity_count(&g->world.entities);
    f->us = (float)(ns / 1e3);
}

/* frame.stats: the frames recorded after `since` (at most the last 256),
   oldest first, for the inspector's plot */
static ecs_result cmd_frame_stats(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    uint32_t since, zero = 0, k, n = g->frame_stats_count < 256u ? g->frame_stats_count : 256u, listed = 0;
    ecs_result r = ecs_console_arg_u32(call, "since", &zero, &since);
    if (r != ECS_OK) return r;
    ecs_console_result_printf(call, "{\"frame\": %u, \"paused\": %s, \"fps\": %u, \"frames\": [", (unsigned)g->frame,
                              g->paused ? "true" : "false", (unsigned)g->opt.fps);
    for (k = g->frame_stats_count - n; k < g->frame_stats_count; ++k) {
        const struct frame_stat *f = &g->frame_stats[k % 256u];
        if (f->frame <= since) continue;
        ecs_console_result_printf(call, "%s[%u, %.1f, %u]", listed++ ? ", " : "", (unsigned)f->frame, (double)f->us,
                                  (unsigned)f->entities);
    }
    return ecs_console_result_json(call, "]}", 2);
}

/* The inspector page (examples/inspector.html, embedded line by line in
   examples/inspector_html.h) as one string for ecs_console_desc.page. */
static char *join_page(size_t *size)
{
    size_t k, n = 0, at = 0, count = sizeof inspector_html_lines / sizeof inspector_html_lines[0];
    char *page;
    for (k = 0; k < count; ++k) n += strlen(inspector_html_lines[k]);
    if (!(page = (char *)malloc(n + 1u))) return NULL;
    for (k = 0; k < count; ++k) {
        size_t len = strlen(inspector_html_lines[k]);
        memcpy(page + at, inspector_html_lines[k], len);
        at += len;
    }
    page[n] = 0;
    *size = n;
    return page;
}

/* frame.step: runs the frames now, inside the command, so that the reply
   (and every request after it) sees the world after them */
static ecs_result cmd_step(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    uint32_t n, one = 1, k;
    ecs_result r = ecs_console_arg_u32(call, "frames", &one, &n);
    if (r != ECS_OK) return r;
    if (n > 100000u)
        return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "argument 'frames': %u is more than 100000 at once",
                                (unsigned)n);
    for (k = 0; k < n; ++k)
        if (run_frame(g, g->frame++))
            return ecs_console_fail(call, ECS_ERROR_SPAWN_FAILED, "frame %u failed (the engine's output says why)",
                                    (unsigned)g->frame);
    ecs_console_set_frame(g->console, g->frame);
    return ecs_console_result_printf(call, "{\"frame\": %u, \"paused\": %s}", (unsigned)g->frame,
                                     g->paused ? "true" : "false");
}

static ecs_result cmd_pause(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    g->paused = 1;
    return ecs_console_result_printf(call, "{\"frame\": %u, \"paused\": true}", (unsigned)g->frame);
}

static ecs_result cmd_resume(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    g->paused = 0;
    return ecs_console_result_printf(call, "{\"frame\": %u, \"paused\": false}", (unsigned)g->frame);
}

static ecs_result cmd_quit(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    g->quit = 1;
    return ecs_console_result_printf(call, "{\"frame\": %u, \"quitting\": true}", (unsigned)g->frame);
}

/* The blob spawn's prefab argument names: "crate", or a prefab's JSON text
   (compiled into *compiled, which the caller frees). */
static ecs_result spawn_blob(engine *g, ecs_console_call *call, ecs_compiler_output *compiled, const void **blob,
                             size_t *size)
{
    const char *prefab;
    ecs_error err;
    ecs_result r = ecs_console_arg_string(call, "prefab", NULL, &prefab);
    if (r != ECS_OK) return r;
    if (prefab[0] == '{') {
        if ((r = ecs_compiler_compile(&g->compiler, prefab, strlen(prefab), ECS_COMPILER_PREFAB, compiled, &err)) != ECS_OK)
            return ecs_console_fail(call, r, "argument 'prefab': %s", err.message);
        *blob = compiled->blob;
        *size = compiled->size;
    } else if (strcmp(prefab, "crate") == 0) {
        *blob = g->crate.blob;
        *size = g->crate.size;
    } else {
        return ecs_console_fail(call, ECS_ERROR_NOT_FOUND,
                                "argument 'prefab': no prefab '%.64s' (the engine has: crate; or give a prefab's JSON)", prefab);
    }
    return ECS_OK;
}

/* spawn: a prefab at a position; its entities' ids */
static ecs_result cmd_spawn(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    ecs_compiler_output compiled;
    const void *blob = NULL;
    size_t size = 0;
    float at[3], zero[3] = {0.0f, 0.0f, 0.0f};
    ecs_entity *fresh;
    ecs_instance root;
    ecs_error err;
    uint32_t n, k;
    ecs_result r;
    memset(&compiled, 0, sizeof compiled);
    if ((r = ecs_console_arg_f32_array(call, "position", at, 3, zero)) != ECS_OK ||
        (r = spawn_blob(g, call, &compiled, &blob, &size)) != ECS_OK)
        return r;
    n = ecs_resource_num_entities(blob);
    if (!(fresh = (ecs_entity *)malloc((n + 1u) * sizeof *fresh))) r = ecs_console_fail(call, ECS_ERROR_OUT_OF_MEMORY, "out of memory");
    else if ((r = ecs_spawner_spawn(&g->spawner, &g->world.entities, blob, size, fresh, &err)) != ECS_OK)
        ecs_console_fail(call, r, "%s", err.message);
    if (r == ECS_OK) {
        root = ecs_transform_lookup(&g->game, fresh[0]);
        if (!ecs_instance_is_nil(root)) { /* the prefab's root stands at the position */
            ecs_mat4 m = *ecs_transform_local(&g->game, root);
            m.m[12] = at[0], m.m[13] = at[1], m.m[14] = at[2];
            ecs_transform_set_local(&g->game, root, &m);
        }
        ecs_console_result_printf(call, "{\"entity\": %lu, \"entities\": [", (unsigned long)fresh[0].id);
        for (k = 0; k < n; ++k) ecs_console_result_printf(call, k ? ", %lu" : "%lu", (unsigned long)fresh[k].id);
        r = ecs_console_result_json(call, "]}", 2);
    }
    free(fresh);
    ecs_compiler_output_free(&compiled);
    return r;
}

/* --console: the console on the world, the engine's commands, and the first
   output line, which tools read the port from. */
static int setup_console(engine *g)
{
    ecs_console_command_desc cmds[6] = {
        {"frame.step", "runs frames now (default 1), paused or not", "frames", cmd_step, NULL},
        {"frame.pause", "stops running frames (the console still answers)", NULL, cmd_pause, NULL},
        {"frame.resume", "runs frames again", NULL, cmd_resume, NULL},
        {"spawn", "spawns a prefab (crate, or a prefab's JSON) with its root at position [x, y, z]", "prefab position",
         cmd_spawn, NULL},
        {"quit", "ends the engine after this reply", NULL, cmd_quit, NULL},
        {"frame.stats", "the last frames' [frame, microseconds, entities] after `since` (at most 256)", "since",
         cmd_frame_stats, NULL}};
    ecs_console_desc desc;
    ecs_error err;
    uint32_t k;
    if (g->opt.console_port < 0) return 0;
    memset(&desc, 0, sizeof desc);
    desc.address = g->opt.console_address; /* NULL: 127.0.0.1 */
    desc.port = g->opt.console_port;
    desc.world = &g->world;
    desc.page = g->page = join_page(&desc.page_size); /* GET /: the inspector (NULL: the console's note) */
    if (!(g->console = ecs_console_create(&desc, &err))) return fail("console", &err);
    for (k = 0; k < 6; ++k) {
        cmds[k].user = g;
        if (ecs_console_add_command(g->console, &cmds[k], &err) != ECS_OK) return fail("console commands", &err);
    }
    printf("console: listening on %s:%d\n", g->opt.console_address ? g->opt.console_address : "127.0.0.1",
           ecs_console_port(g->console));
    fflush(stdout);
    return 0;
}

/* The loop with a console: polled once a frame, --fps frames a second while
   not paused, until quit (or --max-seconds); it sleeps in ecs_console_wait,
   which wakes up when a client sends something. */
static int run_console(engine *g)
{
    double started = now_ns(), next = started, frame_ns = 1e9 / (double)g->opt.fps, t0, wait;
    while (!g->quit) {
        ecs_console_set_frame(g->console, g->frame);
        t0 = now_ns();
        ecs_console_poll(g->console);
        g->console_ns += now_ns() - t0;
        g->console_polls++;
        if (g->quit) break;
        if (g->opt.max_seconds && now_ns() - started > (double)g->opt.max_seconds * 1e9) {
            printf("engine: --max-seconds %u passed, quitting\n", (unsigned)g->opt.max_seconds);
            ecs_console_log(g->console, ECS_CONSOLE_WARNING, "--max-seconds %u passed, quitting", (unsigned)g->opt.max_seconds);
            break;
        }
        if (!g->paused && now_ns() >= next) {
            if (run_frame(g, g->frame++)) return 1;
            next += frame_ns;
            if (next < now_ns()) next = now_ns(); /* behind: no burst to catch up */
        }
        wait = g->paused ? 100.0 : (next - now_ns()) / 1e6 + 0.999; /* whole ms, rounded up: no spinning */
        ecs_console_wait(g->console, wait < 0 ? 0u : wait > 100.0 ? 100u : (uint32_t)wait);
    }
    ecs_console_log(g->console, ECS_CONSOLE_INFO, "the engine quits after frame %u", (unsigned)g->frame);
    ecs_console_flush(g->console, 2000); /* the reply to quit, and that line */
    return 0;
}

/* Compiles and spawns a level file; returns its entity count or -1. */
static long spawn_level_file(engine *g, const char *path)
{
    ecs_compiler_output out;
    ecs_error err;
    size_t len;
    char *json = read_file(path, &len);
    long n;
    double t0;
    if (!json) {
        fprintf(stderr, "engine: cannot read level %s\n", path);
        if (strstr(path, "standard"))
            fprintf(stderr, "  make it with: cc -O2 examples/gen_level.c -o build/gen_level -lm && "
                            "mkdir -p build/levels && build/gen_level > build/levels/standard.json\n");
        return -1;
    }
    t0 = now_ns();
    if (ecs_compiler_compile(&g->compiler, json, len, 0, &out, &err)) {
        free(json);
        fail(path, &err);
        return -1;
    }
    free(json);
    if (ecs_spawner_spawn_jobs(&g->spawner, &g->world.entities, out.blob, out.size, 1, NULL, &g->jobs, &err)) {
        ecs_compiler_output_free(&out);
        fail(path, &err);
        return -1;
    }
    n = (long)ecs_resource_num_entities(out.blob);
    printf("level %s: %ld entities, %u bytes compiled and spawned in %.2f ms\n", path, n, (unsigned)out.size,
           (now_ns() - t0) / 1e6);
    ecs_compiler_output_free(&out);
    return n;
}

/* Gives --moving percent of the game world's nodes a velocity. */
static void pick_movers(engine *g)
{
    uint32_t i, n = ecs_transform_count(&g->game), step;
    if (!g->opt.moving_percent) return;
    step = 100u / g->opt.moving_percent;
    motion_manager_reserve(&g->motion, n / step + 1u);
    for (i = 0; i < n; i += step) {
        ecs_instance m = motion_manager_create(&g->motion, ecs_transform_entity(&g->game, ecs_instance_make(i)));
        g->motion.velocity[m.i].x = (float)random_below(g, 200) / 100.0f - 1.0f;
        g->motion.velocity[m.i].z = (float)random_below(g, 200) / 100.0f - 1.0f;
    }
}

/* ---- one frame ------------------------------------------------------------------ */

/* pos += velocity * dt for every entity with a motion and a transform,
   written with one set_local_many (its subtree updates across the pool).
   A query walked by hand, not a declared system (ECS_WORLD_SYSTEM_DEFINE):
   the transform store is an ecs_store_interface with no field arrays for a
   typed view, so ecs_world_add_system refuses it (ecs.h SYSTEMS); the
   world drives from motion and looks the transforms up. Every other frame
   step is a store's own call (set_local_many, the plugins' tick, spawn,
   collect): no system here is over managers alone. */
static void frame_simulate(engine *g, float dt, uint32_t *moved)
{
    uint32_t k, n = motion_manager_count(&g->motion), count = 0;
    ecs_world_chunk c;
    g->move_nodes = (ecs_instance *)realloc(g->move_nodes, (n + 1u) * sizeof *g->move_nodes);
    g->move_locals = (ecs_mat4 *)realloc(g->move_locals, (n + 1u) * sizeof *g->move_locals);
    if (!g->move_nodes || !g->move_locals) {
        fprintf(stderr, "engine: out of memory\n");
        exit(1);
    }
    if (ecs_world_cursor_start(&g->cursor, &g->movers, 0, UINT32_MAX) != ECS_OK) return; /* a store left */
    while (ecs_world_cursor_next(&g->cursor, &c))
        for (k = 0; k < c.count; ++k) {
            const ecs_vec3 *v = &g->motion.velocity[ecs_world_chunk_instance(&c, 0, k)];
            ecs_instance t = ecs_instance_make(ecs_world_chunk_instance(&c, 1, k));
            g->move_nodes[count] = t;
            g->move_locals[count] = *ecs_transform_local(&g->game, t);
            g->move_locals[count].m[12] += v->x * dt;
            g->move_locals[count].m[14] += v->z * dt;
            ++count;
        }
    *moved = count;
}

static void frame_transforms(engine *g, uint32_t moved)
{
    ecs_transform_set_local_many_jobs(&g->game, moved, g->move_nodes, g->move_locals, &g->jobs);
}

static int frame_churn(engine *g)
{
    ecs_error err;
    uint32_t per = ecs_resource_num_entities(g->crate.blob), want = g->opt.spawn * per, k, d;
    if (g->crates_count + want > g->crates_capacity) { /* grow the FIFO, keeping order */
        uint32_t cap = (g->crates_count + want) * 2u;
        ecs_entity *q = (ecs_entity *)malloc(cap * sizeof *q);
        if (!q) return 1;
        for (k = 0; k < g->crates_count; ++k) q[k] = g->crates[(g->crates_head + k) % g->crates_capacity];
        free(g->crates);
        g->crates = q;
        g->crates_head = 0;
        g->crates_capacity = cap;
    }
    /* destroy the oldest crates (a crate and its lid) */
    for (d = 0; d < g->opt.destroy && g->crates_count >= per; ++d) {
        for (k = 0; k < per; ++k) {
            ecs_entity_destroy(&g->world.entities, g->crates[g->crates_head]);
            g->crates_head = (g->crates_head + 1u) % g->crates_capacity;
            --g->crates_count;
        }
        ++g->crates_destroyed;
    }
    if (g->opt.spawn) {
        ecs_entity *fresh = (ecs_entity *)malloc(want * sizeof *fresh);
        if (!fresh) return 1;
        /* verified once at setup: the spawner skips the checks */
        if (ecs_spawner_spawn_verified(&g->spawner, &g->world.entities, g->crate.blob, g->opt.spawn, fresh, &err)) {
            free(fresh);
            return fail("spawning crates", &err);
        }
        for (k = 0; k < want; ++k) {
            g->crates[(g->crates_head + g->crates_count) % g->crates_capacity] = fresh[k];
            ++g->crates_count;
        }
        /* scatter the new crates (their lids follow) */
        for (k = 0; k < want; k += per) {
            ecs_vec3 at;
            ecs_mat4 m;
            at.x = (float)random_below(g, 2000) / 10.0f - 100.0f;
            at.y = 0.0f;
            at.z = (float)random_below(g, 2000) / 10.0f - 100.0f;
            m = ecs_mat4_translation(at);
            ecs_transform_set_local(&g->game, ecs_transform_lookup(&g->game, fresh[k]), &m);
        }
        g->crates_spawned += g->opt.spawn;
        free(fresh);
    }
    return 0;
}

/* Crates die every frame: one call runs every store's exact collection (the
   plugins' managers too); each drops exactly the instances of the entities
   that died since its last call (it reads the entity manager's destroy log
   from its own cursor), so nothing dead outlives the frame. */
static void frame_collect(engine *g) { ecs_world_collect(&g->world, &g->jobs); }

static int run_frame(engine *g, uint32_t frame)
{
    const float dt = 1.0f / 60.0f;
    double t[SYS_COUNT + 1];
    uint32_t moved = 0, s;
    ecs_error err;
    t[0] = now_ns();
    frame_simulate(g, dt, &moved);
    t[1] = now_ns();
    frame_transforms(g, moved);
    t[2] = now_ns();
    if (g->opt.reload && frame == g->opt.frames / 2 && g->have_spin) {
        ecs_plugin_info info;
        if (ecs_plugin_reload(g->registry, g->spin_plugin, &err))
            printf("frame %u: reload of spin failed, the old build goes on: %s\n", (unsigned)frame, err.message);
        else if (ecs_plugin_get_info(g->registry, g->spin_plugin, &info) == ECS_OK) {
            printf("frame %u: spin reloaded (reload %u, state kept at %p)\n", (unsigned)frame, (unsigned)info.reloads,
                   info.state);
            if (g->console) ecs_console_log(g->console, ECS_CONSOLE_INFO, "frame %u: spin reloaded", (unsigned)frame);
        }
    }
    if (frame % 16u == 0u) { /* picks up a rebuilt library */
        if (ecs_plugin_poll(g->registry, NULL, &err) != ECS_OK)
            printf("frame %u: a rebuilt plugin failed, the old build goes on: %s\n", (unsigned)frame, err.message);
        else if (err.message[0]) /* a build still writing the file */
            printf("frame %u: %s\n", (unsigned)frame, err.message);
    }
    ecs_plugin_tick(g->registry, dt);
    t[3] = now_ns();
    if (frame_churn(g)) return 1;
    t[4] = now_ns();
    frame_collect(g);
    t[5] = now_ns();
    for (s = 0; s < SYS_COUNT; ++s) {
        double d = t[s + 1] - t[s];
        g->system_ns[s] += d;
        if (d > g->system_max_ns[s]) g->system_max_ns[s] = d;
    }
    record_frame_stat(g, frame, t[5] - t[0]);
    if (!g->console && (!g->opt.quiet || frame % (g->opt.frames / 10u + 1u) == 0 || frame + 1u == g->opt.frames))
        printf("frame %4u/%u: %6u entities, %3u moved, %7.1f us\n", (unsigned)frame + 1u, (unsigned)g->opt.frames,
               (unsigned)ecs_entity_count(&g->world.entities), (unsigned)moved, (t[5] - t[0]) / 1e3);
    return 0;
}

/* ---- --check-snapshot: save, load, the same frames again ------------------------ */

/* After frame `frame`: saves the world and the engine's state at check_at,
   records the world's hash after every later frame. */
static int check_record(engine *g, uint32_t frame)
{
    ecs_error err;
    if (!g->opt.check || frame < g->opt.check_at) return 0;
    if (frame > g->opt.check_at) {
        g->check_hash[frame] = ecs_snapshot_world_hash(&g->world);
        return 0;
    }
    if (ecs_snapshot_save(&g->world, NULL, &g->check_snap, &err) != ECS_OK) return fail("saving the snapshot", &err);
    g->check_hash = (uint64_t *)calloc(g->opt.frames, sizeof *g->check_hash);
    g->check_crates = (ecs_entity *)malloc((g->crates_capacity + 1u) * sizeof *g->check_crates);
    if (!g->check_hash || !g->check_crates) return 1;
    if (g->crates_capacity) memcpy(g->check_crates, g->crates, g->crates_capacity * sizeof *g->crates);
    g->check_rng = g->rng;
    g->check_head = g->crates_head;
    g->check_count = g->crates_count;
    g->check_capacity = g->crates_capacity;
    g->check_spawned = g->crates_spawned;
    g->check_destroyed = g->crates_destroyed;
    return 0;
}

/* Loads the saved world over the live one (ECS_SNAPSHOT_REPLACE), restores
   the engine's state and runs the frames after check_at again: every
   frame's hash must be the first run's. */
static int check_replay(engine *g)
{
    ecs_error err;
    uint32_t frame, equal = 0, frames = g->opt.frames - g->opt.check_at - 1u;
    if (ecs_snapshot_load(&g->world, g->check_snap.data, g->check_snap.size, ECS_SNAPSHOT_REPLACE, NULL, &err) != ECS_OK)
        return fail("loading the snapshot", &err);
    free(g->crates);
    g->crates = g->check_crates;
    g->check_crates = NULL;
    g->crates_head = g->check_head;
    g->crates_count = g->check_count;
    g->crates_capacity = g->check_capacity;
    g->crates_spawned = g->check_spawned;
    g->crates_destroyed = g->check_destroyed;
    g->rng = g->check_rng;
    g->opt.reload = 0; /* the same code in both runs */
    for (frame = g->opt.check_at + 1u; frame < g->opt.frames; ++frame) {
        if (run_frame(g, frame)) return 1;
        equal += ecs_snapshot_world_hash(&g->world) == g->check_hash[frame];
    }
    printf("report: snapshot_check at=%u bytes=%lu frames=%u equal=%u\n", (unsigned)g->opt.check_at + 1u,
           (unsigned long)g->check_snap.size, (unsigned)frames, (unsigned)equal);
    return equal == frames ? 0 : 1;
}

/* ---- report --------------------------------------------------------------------- */

static long peak_memory_kb(void)
{
#if defined(__unix__) || defined(__APPLE__)
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) return (long)ru.ru_maxrss;
#endif
    return -1;
}

static void report(engine *g, const char *when)
{
    ecs_manager *spin = ecs_plugin_find_manager(g->registry, "spin");
    printf("report: when=%s entities_alive=%u transforms_game=%u transforms_inventory=%u meshes=%u actors=%u "
           "movers=%u spins=%u crates_spawned=%u crates_destroyed=%u\n",
           when, (unsigned)ecs_entity_count(&g->world.entities), (unsigned)ecs_transform_count(&g->game),
           (unsigned)ecs_transform_count(&g->inventory), (unsigned)mesh_manager_count(&g->meshes),
           (unsigned)actor_manager_count(&g->actors), (unsigned)motion_manager_count(&g->motion),
           spin ? (unsigned)spin->count : 0u, (unsigned)g->crates_spawned, (unsigned)g->crates_destroyed);
}

static void report_times(engine *g)
{
    uint32_t s;
    double total = 0;
    for (s = 0; s < SYS_COUNT; ++s) total += g->system_ns[s];
    printf("report: time per frame (mean, max), %u frames:\n", (unsigned)g->opt.frames);
    for (s = 0; s < SYS_COUNT; ++s)
        printf("report:   %-10s %9.1f us %9.1f us\n", system_names[s], g->system_ns[s] / g->opt.frames / 1e3,
               g->system_max_ns[s] / 1e3);
    printf("report:   %-10s %9.1f us\n", "total", total / g->opt.frames / 1e3);
    if (g->console && g->console_polls)
        printf("report: console_poll_us=%.3f polls=%u (mean ecs_console_poll, clients' requests included)\n",
               g->console_ns / g->console_polls / 1e3, (unsigned)g->console_polls);
    printf("report: peak_memory_kb=%ld\n", peak_memory_kb());
}

/* FNV-1a over the game world's matrices in instance order: equal for every
   --threads N (the parallel calls give the serial results, bit for bit) */
static void report_world_hash(engine *g)
{
    const unsigned char *b = (const unsigned char *)g->game.world;
    size_t k, n = (size_t)g->game.count * sizeof *g->game.world;
    uint32_t h = 2166136261u;
    for (k = 0; k < n; ++k) h = (h ^ b[k]) * 16777619u;
    printf("report: world_hash=%08x threads=%u\n", (unsigned)h, (unsigned)g->opt.threads);
}

static void shutdown_engine(engine *g)
{
    ecs_plugin_registry_destroy(g->registry); /* the plugins first: they use the rest */
    ecs_console_destroy(g->console);          /* after the registry: plugins' commands are gone */
    free(g->page);
    if (g->jobs.parallel_for) ecs_jobs_pool_destroy(&g->pool);
    ecs_compiler_output_free(&g->crate);
    ecs_compiler_free(&g->compiler);
    ecs_spawner_free(&g->spawner);
    ecs_world_free(&g->world); /* its tables and the entity manager; the stores are ours: */
    motion_manager_free(&g->motion);
    actor_manager_free(&g->actors);
    mesh_manager_free(&g->meshes);
    ecs_transform_manager_free(&g->inventory);
    ecs_transform_manager_free(&g->game);
    free(g->crates);
    free(g->check_crates);
    free(g->check_hash);
    ecs_snapshot_output_free(&g->check_snap);
    free(g->move_nodes);
    free(g->move_locals);
}

/* ---- arguments -------------------------------------------------------------------- */

static void usage(FILE *to)
{
    fprintf(to,
            "usage: engine [options]\n"
            "  --level FILE        level JSON (default build/levels/standard.json, from examples/gen_level.c)\n"
            "  --spin-level FILE   level with spin components (default examples/levels/spin_demo.json)\n"
            "  --plugins DIR       folder holding spin.so (default build/plugins)\n"
            "  --frames N          frames to run (default 120)\n"
            "  --spawn N           crates spawned per frame (default 12)\n"
            "  --destroy N         oldest crates destroyed per frame (default 10)\n"
            "  --moving PERCENT    share of objects that move (default 2)\n"
            "  --threads N         threads for spawning, transforms and collection (default 1)\n"
            "  --reload            hot-reload the spin plugin halfway through\n"
            "  --quiet             a progress line every 10%% instead of every frame\n"
            "  --check-snapshot F  save the world after frame F, run on, load it back over the\n"
            "                      live world and run the same frames again: every frame's\n"
            "                      world hash must be equal (report: snapshot_check ...)\n"
            "  --console PORT      the development console on PORT (0: a free one; the first output\n"
            "                      line says which), 127.0.0.1; runs until the command quit\n"
            "  --console-address A the address the console binds instead of 127.0.0.1 (IPv4)\n"
            "  --fps N             frames a second with --console while not paused (default 60)\n"
            "  --max-seconds N     with --console: quit after N seconds anyway (default 0: never)\n"
            "  --help              this text\n");
}

static int parse_number(const char *s, uint32_t *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v > 100000000ul) return 0;
    *out = (uint32_t)v;
    return 1;
}

static int parse_args(int argc, char **argv, options *o)
{
    int a;
    memset(o, 0, sizeof *o);
    o->level = "build/levels/standard.json";
    o->spin_level = "examples/levels/spin_demo.json";
    o->plugins = "build/plugins";
    o->frames = 120;
    o->spawn = 12;
    o->destroy = 10;
    o->moving_percent = 2;
    o->threads = 1;
    o->console_port = -1;
    o->fps = 60;
    for (a = 1; a < argc; ++a) {
        const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
        int ok = 1;
        if (strcmp(arg, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(arg, "--reload") == 0) o->reload = 1;
        else if (strcmp(arg, "--quiet") == 0) o->quiet = 1;
        else if (!val) ok = 0;
        else if (strcmp(arg, "--level") == 0) o->level = val, ++a;
        else if (strcmp(arg, "--spin-level") == 0) o->spin_level = val, ++a;
        else if (strcmp(arg, "--plugins") == 0) o->plugins = val, ++a;
        else if (strcmp(arg, "--frames") == 0) ok = parse_number(val, &o->frames), ++a;
        else if (strcmp(arg, "--spawn") == 0) ok = parse_number(val, &o->spawn), ++a;
        else if (strcmp(arg, "--destroy") == 0) ok = parse_number(val, &o->destroy), ++a;
        else if (strcmp(arg, "--check-snapshot") == 0) ok = parse_number(val, &o->check_at), o->check = 1, ++a;
        else if (strcmp(arg, "--console") == 0) {
            uint32_t port;
            ok = parse_number(val, &port) && port <= 65535u, o->console_port = (int)port, ++a;
        } else if (strcmp(arg, "--console-address") == 0) o->console_address = val, ++a;
        else if (strcmp(arg, "--fps") == 0) ok = parse_number(val, &o->fps) && o->fps >= 1u && o->fps <= 1000u, ++a;
        else if (strcmp(arg, "--max-seconds") == 0) ok = parse_number(val, &o->max_seconds), ++a;
        else if (strcmp(arg, "--moving") == 0) ok = parse_number(val, &o->moving_percent) && o->moving_percent <= 100, ++a;
        else if (strcmp(arg, "--threads") == 0)
            ok = parse_number(val, &o->threads) && o->threads >= 1 && o->threads <= ECS_JOBS_POOL_MAX_THREADS, ++a;
        else ok = 0;
        if (!ok) {
            fprintf(stderr, "engine: bad argument '%s'%s%s\n", arg, val ? " " : "", val ? val : "");
            usage(stderr);
            return 0;
        }
    }
    if (o->frames == 0) o->frames = 1;
    if (o->check && (o->check_at == 0 || o->check_at >= o->frames)) {
        fprintf(stderr, "engine: --check-snapshot F needs 1 <= F < frames\n");
        return 0;
    }
    if (o->check) --o->check_at; /* frames count from 1 on the command line */
    if (o->check && o->console_port >= 0) {
        fprintf(stderr, "engine: --check-snapshot runs a fixed number of frames: not with --console\n");
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    static engine g; /* zero-initialised */
    uint32_t frame;
    int rc = 1;
    if (!parse_args(argc, argv, &g.opt)) return 2;
    g.rng = 0x5EED5EED1234ull;
    if (ecs_jobs_pool_create(&g.pool, g.opt.threads) != ECS_OK) {
        fprintf(stderr, "engine: could not start %u threads\n", (unsigned)g.opt.threads);
        return 1;
    }
    g.jobs = ecs_jobs_pool_jobs(&g.pool);
    if (setup_worlds(&g) || setup_console(&g) || setup_resources(&g) || setup_plugins(&g)) goto done;
    if (spawn_level_file(&g, g.opt.level) < 0 || spawn_level_file(&g, g.opt.spin_level) < 0) goto done;
    pick_movers(&g);
    report(&g, "start");
    if (g.console) {
        if (run_console(&g)) goto done;
        g.opt.frames = g.frame ? g.frame : 1u; /* the report's means */
    }
    for (frame = 0; !g.console && frame < g.opt.frames; ++frame)
        if (run_frame(&g, frame) || check_record(&g, frame)) goto done;
    report(&g, "end"); /* exact: every frame collected every store */
    report_times(&g);
    report_world_hash(&g);
    if (g.opt.check && check_replay(&g)) goto done;
    rc = 0;
done:
    shutdown_engine(&g);
    return rc;
}
