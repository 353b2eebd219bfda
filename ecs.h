/* ecs.h - v0.11 - data-oriented entities and component managers for C/C++
   Public domain or MIT (see end of file).

   Entities are 32-bit ids checked by one byte compare; components live in
   managers that store their data as structure-of-arrays in one allocation.
   The design follows the Bitsquid "data-oriented entity system" posts (2014).

   Do this in *one* C or C++ file:
       #define ECS_IMPLEMENTATION
       #include "ecs.h"
   and include "ecs.h" plainly everywhere else. It needs nothing but libc.
   (Forget the implementation and the linker names a symbol ending in
   __needs_ECS_IMPLEMENTATION_in_one_file.)

TABLE OF CONTENTS
   QUICK START, ENTITIES, COMPONENT MANAGERS, SCHEMAS, LOOKUP KINDS,
   COLLECTION, GROUPS, WORLD, SYSTEMS, QUERIES, CONFIGURATION, ERRORS, MEMORY AND
   POINTER STABILITY, THREADING, DOES NOT, REFERENCE, REVISION HISTORY,
   LICENSE (end of file)

QUICK START (compiled and run by tests/check_quickstart.sh)

    #define ECS_IMPLEMENTATION
    #include "ecs.h"

    typedef struct vec3 { float x, y, z; } vec3;

    #define POINT_MASS_FIELDS(X) \
        X(float, mass)           \
        X(vec3,  position)       \
        X(vec3,  velocity)
    ECS_MANAGER_DEFINE(point_mass, POINT_MASS_FIELDS)

    static void point_mass_simulate(point_mass *pm, float dt) {
        uint32_t i, n = point_mass_count(pm);
        for (i = 0; i < n; ++i) {
            pm->position[i].x += pm->velocity[i].x * dt;
            pm->position[i].y += pm->velocity[i].y * dt;
            pm->position[i].z += pm->velocity[i].z * dt;
        }
    }

    int main(void) {
        ecs_entity_manager em;
        point_mass pm;
        ecs_entity e;
        ecs_instance i;
        ecs_entity_manager_init(&em);      // or = {0} in C
        e = ecs_entity_create(&em);
        if (point_mass_init(&pm, ECS_LOOKUP_HASH) != ECS_OK) return 1; // pm.core.error says why
        i = point_mass_create(&pm, e);
        pm.mass[i.i] = 1.0f;
        pm.velocity[i.i].x = 2.0f;
        point_mass_simulate(&pm, 0.5f);
        ecs_entity_destroy(&em, e);
        point_mass_gc(&pm, &em);       // lazily drops the dead entity's data
        point_mass_free(&pm);
        ecs_entity_manager_free(&em);
        return 0;
    }

ENTITIES
   An ecs_entity is { uint32_t id }: bits 0..21 are the index, bits 22..29
   the generation, bits 30..31 are zero and yours (every function here masks
   them off). Index 0 is never handed out, so the all-zero entity is nil and
   is never alive. The manager keeps one generation byte per index and a FIFO
   queue of destroyed indices; an index is reused only while more than
   ECS_MINIMUM_FREE_INDICES indices wait in the queue. A destroy bumps the
   index's generation (one byte), so a dead id tests alive again only at its
   index's 2^ECS_GENERATION_BITS-th destroy and is handed out again one lap
   later: with the defaults, after 255 and 256 laps of at least 1025 destroys
   each through the queue. That wrap is the seed's accepted trade-off: hold
   an id across some 260,000 destroys and it may look alive again.
   Forged ids and queued indices: while an index waits in the queue its
   byte already holds the generation it will be handed out with, so one id
   of it, the one it carries next (never handed out yet), tests alive. One
   byte per index cannot do better (all 2^8 values are generations, and
   alive stays one byte compare), so the rule is: alive is exact for every
   id create handed out; for that one never-handed-out id per queued index
   it says yes, and every call that would act on it refuses it as dead:
   destroy, destroy_many, ecs_world_destroy_now and _destroy_tree (0 or an
   error; an index is never queued twice, whatever id destroy is given),
   and a create in a manager registered in a world or in the transform
   store (an error: it used to be taken, and the next entity create handed
   the id out with that instance already there). ecs_entity_live(em, e)
   is that exact question, for any code that takes ids from outside. They
   ask a bit per index (set while the index is queued; 1/8 byte per index):
   destroy sets it, and a create that takes an index from the queue clears
   it, so alive stays one byte compare, live costs a bit read once anything
   was destroyed, and a create from the queue pays a bit clear (the bits
   of code that writes the state itself are rebuilt by
   ecs_entity_manager_invalidate).
   Out of memory: the queue is a ring that grows with it, so a destroy may
   allocate; it grows the ring first (room for its index and for each
   destroy under way in nested callbacks) and, out of memory, refuses
   before anything changed: 0, em->error ECS_ERROR_OUT_OF_MEMORY, e still
   alive, no callback ran. So every destroyed index is queued and reused;
   none is ever lost (before 0.10 such an index was "retired": kept out of
   the queue by a bit that a rebuild of the bits dropped, after which its
   next id tested live and ecs_entity_count went wrong).
   Code that writes a manager's generations or queue itself (a snapshot
   load) calls ecs_entity_manager_invalidate(em) after it.
   ecs_entity_create / _create_many / _alive / _destroy / _destroy_many /
   _count, ecs_entity_index / _generation / _make / _is_nil. When every index
   is alive, create takes a queued index even below the threshold (a free
   index beats a failure); with the queue empty too it returns nil and sets
   em->error (ECS_ERROR_INDICES_EXHAUSTED). ecs_entity_on_destroy(em, fn,
   user) runs fn for every destroyed entity while it is still alive (for
   components that hold outside resources; fn may destroy other entities);
   ecs_entity_on_destroy_remove undoes it.

COMPONENT MANAGERS
   ECS_MANAGER_DEFINE(name, FIELDS) declares `name`, a struct with a typed
   pointer per field plus `entity`, and static inline one-line wrappers:
     name_init(m, kind)     kind: ECS_LOOKUP_DIRECT, _DENSE or _HASH (below)
     name_free(m)           name_reserve(m, n)
     name_create(m, e)      adds a zero-filled instance for e
     name_create_many(m, n, es, &first)  one growth, one pass; you write the
                            values (dense/hash: instances first.i .. +n-1)
     name_lookup(m, e)      e's first instance, or nil (stale ids: nil)
     name_lookup_many(m, n, es, out)  the same for n entities, misses overlapped
     name_slot(m, e)        direct kind: the fast read, no ownership check
     name_next(m, i)        the next instance of the same entity, or nil
     name_destroy(m, i)     name_destroy_entity(m, e)
     name_gc(m, em)         the seed's lazy collection (random samples)
     name_collect(m, em)    exact collection of everything em destroyed since
     name_gc_all(m, em)     a full sweep
     name_count(m)          the loop bound; name_num_instances(m)
   The fields are plain arrays, m->position[i.i], and stay right after every
   call that moves them (create, reserve, spawn, a plugin's calls on the
   core): no refresh step. All logic lives once in the ecs_manager_*
   functions over a runtime field table, so a plugin can define a layout at
   run time with ecs_manager_init (zero fields make a tag component).
   ecs_instance is { uint32_t i }, an index into the field arrays; nil is
   i == ECS_INSTANCE_NIL (0xFFFFFFFF). An entity's instances:
       for (i = name_lookup(m, e); !ecs_instance_is_nil(i); i = name_next(m, i))

SCHEMAS (what the fields hold, for resources)
   A schema describes a component's fields once, so that ecs_resource.h can
   compile levels into its records, decompile them and spawn them with no
   hand-written code. One X-list gives the typed manager and the schema:
       #define TURRET_SCHEMA(X)                              \
           X(f32, range, "{\"default\": 10, \"min\": 0}")     \
           X(entity, ship, ECS_FIELD_REQUIRED)              \
           X(path, model, "\"models/turret\"")               \
           X(f32, heat, ECS_FIELD_RUNTIME)
       ECS_MANAGER_DEFINE_SCHEMA(turret, TURRET_SCHEMA)
   declares turret with float *range, ecs_entity *ship, uint64_t *model and
   float *heat, ECS_MANAGER_DEFINE's wrappers, and turret_schema(&n) (the
   ecs_schema_field table); turret_init gives the manager its schema. An
   entry is X(kind, field, spec). Kinds and their C types: f32 f64 (float,
   double), i8 u8 i16 u16 i32 u32 u64 (int8_t .. uint64_t), bool (uint8_t),
   vec2 vec3 vec4 quat mat4 (ecs_vec2 .. ecs_mat4), path (uint64_t:
   ecs_path_hash of a resource path), entity (ecs_entity: another entity of
   the same resource). spec is JSON text: the default a resource that omits
   the member gets, or {"default": v, "min": a, "max": b} (each member
   once); ECS_FIELD_REQUIRED ("{}") makes the member required;
   ECS_FIELD_RUNTIME (NULL) marks runtime state, which resources never hold.
   A char or a small enum is a u8 (i8, u16 for more values) whose min and
   max bound it: X(u8, glyph, "64"), X(u8, mode, "{\"default\": 0,
   \"min\": 0, \"max\": 3}") (levels write the number; a value outside
   is a compile error with its line and column).
   Field names: any but "type", which level JSON uses to name the
   component ({"type": "turret", "range": 12}); a schema with a field
   called "type" is refused (ECS_ERROR_INVALID_ARGUMENT; the manager's
   error, or err, says "field 0 needs a name other than \"type\"").
   Runtime managers: ecs_manager_init_schema(m, table, n, lookup) takes the
   field table from the kinds. A manager made any other way (ECS_MANAGER_
   DEFINE with your own types, a plugin's engine-owned one):
   ecs_manager_set_schema(m, table, n), names and sizes matching its fields.
   ECS_MANAGER_VIEW_DEFINE_SCHEMA declares the struct alone (a plugin's view
   of an engine-owned manager). Existing X(type, name) lists and
   ecs_field_desc tables are unchanged.
   With a schema, ecs_manager_spawn and ecs_manager_create_many read the
   schema's records: the fields that are not runtime state, packed in order
   (ecs_manager_record_size, which is schema->record_size).
   Runtime fields start zeroed; an entity field holds the resource index of
   another entity (0xFFFFFFFF: none) and becomes the entity spawned for it in
   the same copy (ecs_spawn_resolve), so a turret spawned three times aims at
   three ships.

LOOKUP KINDS (the seed's three ways from entity to data, part 2)
   ECS_LOOKUP_DIRECT  the instance index IS the entity index: for components
       almost every entity has. One instance per entity (a second create is
       ECS_ERROR_ALREADY_EXISTS). The arrays have holes: count is one past the
       highest slot used since the last gc_all; num_instances counts the
       owned slots. Loop over it with
           for (i = 0; i < name_count(m); ++i) {
               if (ecs_entity_is_nil(m->entity[i])) continue;  // a hole
               ...
           }
       (a loop that also computes over holes is harmless: their bytes are
       left-overs or zero). Two ways in: name_lookup, checked (nil for stale,
       forged and foreign ids), and name_slot, the fast read of one memory
       access, as EnTT's and pico_ecs's release-build gets: the index, masked
       to the slots so every read stays in the manager's memory, and an
       ownership assert in debug builds only. Use name_slot where you know
       the entity is alive and has the component (your own loops over your
       own lists); name_lookup anywhere an id may be stale. Memory: every
       field for every entity index up to the highest one used.
   ECS_LOOKUP_DENSE   an array indexed by entity index holding the owner's
       full id and first instance (8 bytes per index): a lookup reads one
       slot, then the data. For common components. A stale id never matches;
       when a newer id of an index gets an instance, the older (dead) id's
       instances are dropped first. "Newer", in a store no world owns: 1 to
       2^(ECS_GENERATION_BITS-1) generations ahead (wrap-aware); a create
       for any other id of a held index is for the dead one, refused
       (ECS_ERROR_INVALID_ARGUMENT), and the live entity keeps its data.
       Direct and the transform store's dense lookup follow the same rule.
   ECS_LOOKUP_HASH    an open-addressing table of (id, first instance) pairs,
       at most 3/4 full, 8 bytes a slot: for sparse components. One probe
       in the common case.

COLLECTION (a dead entity's data is the manager's to drop)
   name_gc(m, em): the seed's lazy gc, random instances until 4 alive in a
   row: nearly free when nothing died, right for a trickle of deaths.
   name_collect(m, em): exact and proportional to the deaths since the last
   call: the entity manager's free queue is a ring indexed by a running count
   of destroys, so it doubles as a log of the last free_capacity destroyed
   ids (at least 1024; it grows with the queue); each manager reads it from
   its own cursor (any number of managers, no callbacks, nothing per
   destroy). When the log cannot answer (first call, more deaths than it
   holds) collect sweeps instead. Call it
   once a frame when hundreds die a frame. Instances created for entities
   that were already dead are left to gc/gc_all. A logged id that is live
   again (its index's generation wrapped within one window: small
   ECS_GENERATION_BITS or ECS_MINIMUM_FREE_INDICES) is a live entity's and
   is skipped. name_gc_all(m, em): one
   linear sweep, for level unloads and tools. Until one of these runs, a
   dead entity's lookup still finds its instances: check
   ecs_entity_alive(em, e) first where that matters.

GROUPS (managers kept co-sorted: EnTT's owning groups, nested)
   ecs_group_init(&g, members, n, &err) groups 2..ECS_GROUP_MAX_MEMBERS dense
   or hash managers: from then on the entities that own an instance in every
   member are instances 0..g.size-1 of each member, in the same order, so a
   system over them is a loop over plain arrays:
       for (i = 0; i < g.size; ++i) pos.p[i].x += vel.v[i].x * dt; // members pos, vel
   Groups nest: a manager may be in several groups as long as, of any two
   groups that share a member, one holds every member of the other (EnTT's
   rule; else ECS_ERROR_INVALID_ARGUMENT naming both). A member's instances
   are then ordered [the group with the most members | the next one out
   only | ... | the fewest-member group only | the rest]: with {p, v} in
   {p, v, d} in {p, v, d, hp}, p holds the entities of all four first, then
   those of {p, v, d} only, then {p, v} only, so each group's entities are a
   prefix of each of its members. Every call that adds or removes instances
   keeps the order (create, create_many, spawn, destroy, destroy_entity, gc,
   gc_all, collect, the typed wrappers, a plugin's calls, snapshot load and
   clone): an entity joins the groups it completes outermost first and
   leaves them innermost first; instances swap places, so indices change
   (look up again). While grouped a member holds one instance per entity (a
   second create is ECS_ERROR_ALREADY_EXISTS), create_many's first is nil and
   ecs_manager_move is refused. ecs_group_free releases one group; freeing a
   member ends its groups. Managers connected through groups change
   together: ecs_group_top(m) names their nest (one thread at a time).
   ecs_group_sort(g, &err) puts each region of the nest's members in entity
   index order (after a level load: joins and leaves move instances).

WORLD (an entity manager and every store, each registered once by name)
   An ecs_world holds `entities` (create and destroy with the ecs_entity_*
   calls) and the component stores registered in it:
       ecs_world w;
       ecs_world_init(&w);
       point_mass_init(&pm, ECS_LOOKUP_DIRECT);
       ecs_world_add_manager(&w, "point_mass", &pm.core, &err); // stays yours
       hp = ecs_world_define(&w, "health", fields, 1, ECS_LOOKUP_DENSE, &err);
       ecs_transform_world_register(&w, "transform", &tm, &err); // ecs_transform.h
   ecs_world_define and ecs_world_define_schema make managers the world owns
   and frees (they return the manager, or NULL); the stores you register
   stay yours (free them after ecs_world_free). Registrations return an
   ecs_result (the component's index: ecs_world_find). A name's identifier
   is its FNV-1a 32 hash, the resource format's component identifier: a
   name registered twice, two names with one identifier
   (ECS_ERROR_NAME_COLLISION), a manager in another world, a store
   registered twice or a manager whose init failed (the message carries its
   reason) are refused with an error naming them. Stores that are not
   ecs_managers register through an ecs_store_interface (lookup, next,
   count, entity_at, destroy_entity, collect; subtree, spawn, the snapshot
   calls, parent_of, spawn_record and attach optional).
   ecs_world_find / ecs_world_manager by name; ecs_world_remove unregisters
   (queries made before then refuse to start: make them again; systems are
   made again by the next ecs_world_run_systems). ecs_world_group(&w, names,
   n, &err) keeps dense and hash managers co-sorted (ecs_group, nested as
   above; the world frees it).
   Whole entities: ecs_world_components_of(w, e, out, cap) (the components
   e has and their first instances, for tools and consoles);
   ecs_world_destroy_now(w, e) (e, its destroy callbacks seeing every
   instance, then its instances in every store: for when they must go at
   once; ecs_entity_destroy plus a collect per frame stays the default); ecs_world_destroy_tree(w, "transform", e, &err) (e
   and every entity below it with all their instances, all or nothing);
   ecs_world_collect(w, jobs) (every store's exact collection, one call a
   frame; with jobs one task per store, managers connected through groups
   in one task).
   The world knows entities by id only: an entity of another world is
   seen as a dead or unknown one (0, or an error "not alive"), it cannot
   be told apart. A manager registered in a world refuses to create an
   instance for an entity the world does not have alive (an error naming
   the component and the entity; a standalone manager takes any id). The world keeps no per-entity list: it asks the stores.

SYSTEMS (one declaration each; the world runs them)
   A system names its components once and gives the per-entity code:
       #define MOVE(X) X(positions, pos, ECS_WRITE) X(velocities, vel, ECS_READ)
       ECS_WORLD_SYSTEM_DEFINE(move, MOVE, 0) { pos.p[k].x += vel.v[k].x * frame->dt; }
       ...
       ecs_world_add_manager(&w, "positions", &ps.core, &err);  // the type's name
       ecs_world_add_manager(&w, "velocities", &vs.core, &err);
       ecs_world_add_system(&w, &move_system, &err);            // once
       ecs_frame frame = {1.0 / 60, 0, NULL};
       ecs_world_run_systems(&w, &frame, jobs, &err);           // every frame
   A term is X(type, view, access): type a typed manager registered under
   the type's own name, view the name the body reads it by, access
   ECS_READ, ECS_WRITE, ECS_OPTIONAL (read; the entity may lack it) or
   ECS_OPTIONAL_WRITE. The body runs once per match with frame, k, entity
   and one type_view per term (generated by ECS_MANAGER_DEFINE: `entity`
   and each field as a typed pointer): view.field[k] is the match's data.
   In a contiguous chunk the views point at the chunk's first instances and
   k counts up, so the body is a loop over plain arrays (it inlines and
   vectorises); in a scattered chunk the views move to each match and k is
   0; an optional term's view is NULL for an entity without it
   (hp.h ? &hp.h[k] : NULL). No struct of managers, no casts, no
   per-element accessor. flags: 0 or ECS_SERIAL (the body writes something
   besides its match: a frame buffer, a sum; its chunks then run in order
   on one task). frame->user is yours (what systems share).
   ecs_world_run_systems runs the registered systems in registration order,
   in waves (Our Machinery's rule: two systems conflict when one writes a
   component the other reads or writes; of two that conflict the one
   registered first runs entirely first; the others at once), each
   system's matches cut into ranges of ECS_WORLD_SYSTEM_RANGE positions as
   tasks. It plans each system's query again every frame (groups added
   later are used) and makes it again when a store was removed (an error
   naming the system and the component when one of its terms is gone). A
   body that writes a component it did not declare is your bug: the world
   cannot see it, and with jobs it races. Declaration errors (a term over an
   unregistered component or a type whose fields differ from the registered
   manager's, a system added twice, no required term) are refused naming
   the system and the thing. A runtime system (a plugin's) fills an
   ecs_system_desc by hand: terms by name, a chunk function that reads
   chunk->first/index (and mask, below) with the managers it is given.
   A system's terms are ecs_managers: a view is typed pointers into field
   arrays, which a store registered through an ecs_store_interface
   (ecs_transform.h's transforms) does not have, and ecs_world_add_system
   refuses such a term, naming it. A system over one is a query you walk
   (QUERIES; examples/engine.c's frame_simulate), e.g. motion and transform:
       ecs_world_cursor_start(&c, &q, 0, ecs_world_query_span(&q)); // q: {{"motion", "transform"}}
       while (ecs_world_cursor_next(&c, &ch)) for (k = 0; k < ch.count; ++k) { ... }
   where the body reads ecs_world_chunk_instance(&ch, t, k) of each term
   (the transform's through ecs_transform_local and the rest of its API).

QUERIES (what systems are made of; also usable by hand)
   A query names the components a match must have and those it may have
   (nil when absent). Make it once; walk it each frame in chunks of at most
   ECS_WORLD_CHUNK matches (but a contiguous chunk of a group's prefix, of a
   single store, or of a direct query, without optional terms outside the
   group, holds its whole run). In a chunk, term t's instances are
   first[t], first[t] + 1, ... when index[t] is NULL (plain arrays: the loop
   vectorises), else index[t][k]; ecs_world_chunk_instance(&ch, t, k) reads
   either:
       ecs_world_query_desc d = {{"point_mass", "wind"}, {"drag"}};
       ecs_world_query q;                 // terms: required, then optional
       ecs_world_query_make(&w, &d, &q, &err);  // once
       ecs_world_cursor c;                // 9 KB of buffers, no allocation
       ecs_world_chunk ch;
       ecs_world_cursor_start(&c, &q, 0, ecs_world_query_span(&q));
       while (ecs_world_cursor_next(&c, &ch))
           for (k = 0; k < ch.count; ++k) {
               uint32_t i = ecs_world_chunk_instance(&ch, 0, k);
               uint32_t j = ecs_world_chunk_instance(&ch, 1, k);
               uint32_t o = ecs_world_chunk_instance(&ch, 2, k);
               float f = o == ECS_INSTANCE_NIL ? 1.0f : 1.0f - dr->k[o];
               pm->velocity[i].x += wd->force[j].x * f * dt;
           }
   The world picks the path from the required terms (again for every
   system each frame):
     DIRECT  every required store has the direct kind: a lockstep scan of
             the slots. A run of slots that every store owns for one id is
             a contiguous chunk; scattered matches come as an index list.
             A system's walk (no optional terms) is masked instead: chunks
             of up to ECS_WORLD_MASKED_CHUNK slots with a match bit each
             (chunk.mask), found 16 slots per compare; nothing remembered,
             so the first walk after a change costs what every walk costs.
             ecs_world_query_refresh(&q) serves walks by hand: once a
             frame before them, it remembers the longest runs until a
             store's slots change (a walk never trusts stale runs).
     GROUP   the required stores are all members of one group: its prefix,
             contiguous in every term (and in each optional term that is a
             member); when the group has more members than the query has
             terms, then the remainder: the smallest term's instances past
             the prefix, the others looked up (entities owning the terms
             but not the whole group: few, where the group fits the data).
     GROUP_PART  a group holds only required stores, and the query more:
             the group's prefix, contiguous in its members, the other terms
             looked up a chunk at a time.
     LOOKUP  anything else: the required store with the fewest instances
             drives, contiguous in it; the others are looked up a chunk at
             a time (ecs_manager_lookup_many, prefetched) and non-matches
             dropped. Interface stores (transform) are looked up one entity
             at a time, and may drive. One required store walks its own
             instances.
   Which group: the one whose members are exactly the required terms; else
   the group with the fewest members that holds them all (the longest
   prefix); else the group with the most members that they hold. (A group
   can only be a prefix: every match of a held query is in the prefix of
   the smallest group holding it, or in the remainder.)
   Optional terms are index lists, but contiguous (index NULL) in a chunk
   whose entities own consecutive instances of the store (a group member in
   the prefix, or stores filled in the same order): checked against the
   store's entity array, found without its map.
   Which to choose, measured (bench/RESULTS.md, issue 23; ns per entity, a
   shared 2-core machine): the suite's seven systems over one dense
   manager per component with groups {position, velocity} in {position,
   velocity, data} in all seven run at the cost of an archetype store
   (0.87-1.06x its tables over three runs; each system gets its group's
   prefix or a single store); p += v * dt on direct stores with 19% of
   slots unmatched: a system 1.3-1.6 against a hand loop's 2.4-2.6 (1.1-1.2x
   the hand loop with no holes: the match bits cost a read of each store's
   ids); the lookup path at 2^20 entities in random order 9-12 a match (a
   cache miss each). So: dense managers and nested
   groups for components systems share (the groups follow the systems:
   {the terms of the most common system} inside {its terms plus the next
   system's} ...); the direct kind for what nearly every entity has and
   systems over it alone; lookups for rare components. A query sees what
   the stores hold: entities destroyed but not collected yet still match
   (collect first). An entity with several instances in a store matches
   once, with its first instance.
   Threads: cursors on distinct ranges [begin, end) of the span run at once
   (a walk only reads); nothing may add or remove instances of the query's
   stores meanwhile, nor of a store grouped with them (ecs_group_top: a
   group moves every member's instances together).

CONFIGURATION (define before including; the same value in every file)
   ECS_INDEX_BITS            22    bits of index (max entities = 2^bits - 1)
   ECS_GENERATION_BITS       8     bits of generation, at most 8 (one byte)
   ECS_MINIMUM_FREE_INDICES  1024  queue length below which no index is reused
   ECS_DEF / ECS_STATIC      the linkage of every public function of the four
                             headers: extern by default; ECS_STATIC: static
                             (everything in one file); or your own ECS_DEF
                             (e.g. a DLL export)
   ECS_ASSERT(x)             checks of arguments whose misuse would be
                             undefined behaviour, and the direct kind's
                             ownership check (default assert(); off with
                             NDEBUG)
   ECS_ASSERT_MSG(x, msg)    the checks that say in words what went wrong
                             (name_slot's): by default, when x fails,
                             ECS_ASSERT(ecs__misuse(msg)), so the message
                             is what assert prints
   Implementation file only:
   ECS_REALLOC(p, n), ECS_FREE(p)  allocator, both or neither (realloc/free);
                                   ECS_REALLOC(NULL, n) must allocate
   ECS_NO_SIMD               (unset) the direct path's match bits in plain C
                             (default: SSE2 where the target has it)

ERRORS
   Runtime failures (out of memory, exhausted index space, bad input in the
   other headers) return an ecs_result code or a nil value and leave a
   message in an ecs_error the caller owns: the entity manager's `error`
   member, the component manager's `core.error`, or an ecs_error* argument.
   No error state is process-global (the one process-wide value is a
   counter that stamps entity managers' lives for the destroy log; atomic
   with gcc, clang and MSVC). Every failing call changes nothing (tested
   with an allocator that fails at each call, once and from then on, for
   every kind); a manager whose init failed refuses every call. Misuse that
   is cheap to detect (nil, stale, forged or out-of-range entity or
   instance) is a safe no-op with a documented result, in release builds
   too. Sizes that overflow (a reserve whose bytes exceed size_t, a batch
   larger than the index space) fail before anything is allocated or
   written.
   Entities in messages: every message of these headers shows an entity
   one way, as ecs_entity_format writes it: "entity 4194315 (index 11,
   generation 1)", the id in decimal (as JSON and the console write ids)
   and its index and generation; an entity of a resource (its position in
   a blob or a level, before spawning) is "resource entity 3".

MEMORY AND POINTER STABILITY
   One allocation holds the entity array and the field arrays (each aligned
   to at least 16 bytes); it doubles when full. Plus the map (dense: 8 bytes
   per entity index; hash: 8 bytes a slot, at most 3/4 full) and, once an
   entity owns two instances, 4 bytes per instance of next links. The typed
   pointers follow every growth; pointers you copied out do not: re-read
   m->position after a call that can grow the manager. Instance indices
   change when any instance of the same dense or hash manager is destroyed
   or collected (swap-erase): look up again. Direct instances never move.

THREADING
   No locks, and no threads started: calls that can use several cores take
   an ecs_jobs, your parallel-for (NULL: serial on the calling thread;
   ecs_jobs_run runs on the caller whatever your job system did not run).
   Distinct managers may be used from distinct threads; one manager from
   several threads needs your own synchronisation; managers connected
   through groups count as one manager (a call on one member may write them
   all: ecs_group_top names the nest).
   ecs_entity_alive may run concurrently with other alive calls. A world
   changes (registration, remove, group, the whole-entity calls) on one
   thread; query walks (cursors) may run at once while nothing changes the
   query's stores.
   The calls that take an ecs_jobs: ecs_world_run_systems (a frame's
   systems: ranges of each query's walk as tasks, systems whose writes do
   not conflict at once; the rule is at SYSTEMS and "systems" below),
   ecs_world_collect (stores in parallel), ecs_transform.h's
   ecs_transform_world_pass_jobs, _commit_jobs and _set_local_many_jobs,
   ecs_resource.h's ecs_spawner_spawn_jobs; examples/jobs_pthreads.h is a
   small pool to hand them. Determinism: work is cut into ranges that depend
   on the data only, never on the number of workers, and every element is
   computed by the same operations in the same order as in the serial call,
   so results are bit-identical for any number of workers
   (tests/test_threads.c compares 1, 2, 3, 4 and 8 threads, and job systems
   that run tasks backwards or fail to start them, with the serial calls,
   also under ThreadSanitizer). Nothing is allocated per call; while such a
   call runs, only it may use the stores it was given.

DOES NOT
   keep a per-entity list of components (stores own that knowledge; the
   world asks them), call destructors of field data, start threads
   (ecs_world_run_systems runs a frame's systems on your job system; a
   query is also a loop you call when you choose), serialise (snapshots
   and JSON are ecs_resource.h's).

REFERENCE (every public function: signature and what it does; the
   declarations below carry the full contract)
  Results and errors
   const char *ecs_result_name(ecs_result code)   "ECS_ERROR_OUT_OF_MEMORY" ...
   const char *ecs_result_text(ecs_result code)   "out of memory" ...
   ecs_result ecs_error_set(ecs_error *err, ecs_result code, const char *format, ...)
                                                  fills err (may be NULL), returns code
   void ecs_error_clear(ecs_error *err)           back to ECS_OK, empty message
  Entities
   void ecs_entity_manager_init(ecs_entity_manager *em)   same as = {0}
   void ecs_entity_manager_free(ecs_entity_manager *em)   frees; em is empty again
   ecs_entity ecs_entity_create(ecs_entity_manager *em)   new entity, or nil (em->error)
   ecs_result ecs_entity_create_many(ecs_entity_manager *em, uint32_t n, ecs_entity *out)
                                                  n entities, all or nothing
   int ecs_entity_alive(const ecs_entity_manager *em, ecs_entity e)  safe on any value
   int ecs_entity_live(const ecs_entity_manager *em, ecs_entity e)   alive, and handed out
   int ecs_entity_destroy(ecs_entity_manager *em, ecs_entity e)      1, or 0 if not alive
   uint32_t ecs_entity_destroy_many(ecs_entity_manager *em, uint32_t n, const ecs_entity *es)
                                                  how many were alive and destroyed
   void ecs_entity_manager_invalidate(ecs_entity_manager *em)  after writing em's state yourself
   ecs_result ecs_entity_on_destroy(ecs_entity_manager *em, ecs_entity_destroy_fn fn, void *user)
   ecs_result ecs_entity_on_destroy_remove(ecs_entity_manager *em, ecs_entity_destroy_fn fn, void *user)
                                                  add / remove a destroy callback
   uint32_t ecs_entity_count(const ecs_entity_manager *em)  entities alive
   uint32_t ecs_entity_index(ecs_entity e)        the index part
   uint32_t ecs_entity_generation(ecs_entity e)   the generation part
   ecs_entity ecs_entity_make(uint32_t index, uint32_t generation)  an id (unchecked)
   int ecs_entity_is_nil(ecs_entity e)            index 0
   uint32_t ecs_entity_key(ecs_entity e)          the id without the user's top bits
   const char *ecs_entity_format(char *buf, size_t size, ecs_entity e)
                                                  "entity 11 (index 11, generation 0)"
  The destroy log (for component headers with arrays of their own)
   uint32_t ecs_entity_log_pending(const ecs_entity_manager *em, const ecs_entity_log_cursor *c)
                                                  destroys since c's read, or ECS_ENTITY_LOG_LOST
   ecs_entity ecs_entity_log_at(const ecs_entity_manager *em, uint32_t seq)  the id destroyed at seq
   void ecs_entity_log_skip_all(const ecs_entity_manager *em, ecs_entity_log_cursor *c)
                                                  c past everything logged
  Instances
   ecs_instance ecs_instance_make(uint32_t i)     ecs_instance ecs_instance_nil(void)
   int ecs_instance_is_nil(ecs_instance i)
  Component managers (ECS_MANAGER_DEFINE's name_* wrappers call these)
   ecs_result ecs_manager_init(ecs_manager *m, const ecs_field_desc *fields, uint32_t num_fields,
                               ecs_lookup_kind lookup)           a manager over a field table
   ecs_result ecs_manager_init_with_view(ecs_manager *m, const ecs_field_desc *fields,
                               uint32_t num_fields, ecs_lookup_kind lookup)  typed pointers follow m
   void ecs_manager_free(ecs_manager *m)          frees (and ends m's group)
   ecs_result ecs_manager_reserve(ecs_manager *m, uint32_t n)  room for n instances
   ecs_instance ecs_manager_create(ecs_manager *m, ecs_entity e)  a zero-filled instance, or nil
   ecs_instance ecs_manager_create_uninitialized(ecs_manager *m, ecs_entity e)  the same, unfilled
   ecs_result ecs_manager_create_many(ecs_manager *m, uint32_t n, const ecs_entity *entities,
                               const void *records, ecs_instance *first)  n instances, all or nothing
   ecs_instance ecs_manager_lookup(const ecs_manager *m, ecs_entity e)  e's first instance, or nil
   void ecs_manager_lookup_many(const ecs_manager *m, uint32_t n, const ecs_entity *entities,
                               ecs_instance *out)             n lookups, misses overlapped
   ecs_instance ecs_manager_slot(const ecs_manager *m, ecs_entity e)  direct kind's fast read
   ecs_instance ecs_manager_next(const ecs_manager *m, ecs_instance i)  e's next instance, or nil
   int ecs_manager_destroy(ecs_manager *m, ecs_instance i)       removes one instance
   uint32_t ecs_manager_destroy_entity(ecs_manager *m, ecs_entity e)  removes all of e's
   uint32_t ecs_manager_gc(ecs_manager *m, const ecs_entity_manager *em)      lazy, random
   uint32_t ecs_manager_gc_all(ecs_manager *m, const ecs_entity_manager *em)  a full sweep
   uint32_t ecs_manager_collect(ecs_manager *m, const ecs_entity_manager *em) exact, from the log
   int ecs_manager_move(ecs_manager *m, uint32_t from, uint32_t to)  copies an instance over another
   void *ecs_manager_field(const ecs_manager *m, uint32_t k, uint32_t i)  field k of instance i
   size_t ecs_manager_memory(const ecs_manager *m)  heap bytes
   uint32_t ecs_manager_record_size(const ecs_manager *m)  bytes of the record spawn and
                                                  create_many read
   uint32_t ecs_gc_random(uint32_t *rng, const ecs_entity_manager *em, const uint32_t *count,
                          ecs_entity *const *entity, ecs_destroy_instance_fn destroy, void *owner)
                                                  the seed's gc loop over any store
  The entity map (inside every manager; for component headers of your own)
   void ecs_entity_map_init(ecs_entity_map *map, ecs_lookup_kind kind)
   void ecs_entity_map_free(ecs_entity_map *map)
   ecs_result ecs_entity_map_reserve(ecs_entity_map *map, uint32_t keys, uint32_t max_index,
                                     ecs_error *err)    room first, so set never allocates
   void ecs_entity_map_set(ecs_entity_map *map, uint32_t key, uint32_t first)  add/repoint/remove
   size_t ecs_entity_map_memory(const ecs_entity_map *map)
   ecs_result ecs_entity_map_copy(ecs_entity_map *dst, const ecs_entity_map *src,
                                  ecs_error *err)       dst made equal to src (one memcpy)
   uint32_t ecs_entity_map_find(const ecs_entity_map *map, uint32_t key)  first instance or NIL
   uint32_t ecs_entity_map_find_dense(const ecs_entity_map *map, uint32_t key)  (one kind only)
   uint32_t ecs_entity_map_find_hash(const ecs_entity_map *map, uint32_t key)
  Schemas
   ecs_result ecs_manager_init_schema(ecs_manager *m, const ecs_schema_field *schema,
                               uint32_t num_fields, ecs_lookup_kind lookup)  fields from a schema
   ecs_result ecs_manager_init_schema_with_view(ecs_manager *m, const ecs_schema_field *schema,
                               uint32_t num_fields, ecs_lookup_kind lookup)  (typed view)
   ecs_result ecs_manager_set_schema(ecs_manager *m, const ecs_schema_field *schema,
                               uint32_t num_fields)          attaches a (checked) copy
   const ecs_schema *ecs_manager_schema(const ecs_manager *m)  m's schema, or NULL
   uint32_t ecs_field_kind_size(ecs_field_kind kind)  the kind's C size
   const char *ecs_field_kind_name(ecs_field_kind kind)  "f32", "vec3", ...
  Spawning (the seam to ecs_resource.h)
   ecs_result ecs_manager_spawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                               const uint32_t *entity_index, const void *data, uint32_t size)
                                                  an ecs_spawn_fn for any manager
   void ecs_manager_unspawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                            const uint32_t *entity_index, const void *data, uint32_t size)  undoes it
   ecs_entity ecs_spawn_resolve(const ecs_spawn_context *ctx, uint32_t index)  resource index -> entity
  Jobs
   void ecs_jobs_run(const ecs_jobs *jobs, uint32_t num_tasks, ecs_task_fn task, void *user,
                     ecs_result *job_error)       a parallel-for on your task system
  Groups
   ecs_result ecs_group_init(ecs_group *g, ecs_manager *const *members, uint32_t n, ecs_error *err)
                                                  co-sorts 2..8 dense/hash managers (groups nest)
   void ecs_group_free(ecs_group *g)              releases them
   ecs_result ecs_group_sort(ecs_group *g, ecs_error *err)  entity order inside each group's region
   const ecs_group *ecs_group_top(const ecs_manager *m)  the nest m's groups belong to, or NULL
  The world
   ecs_result ecs_world_init(ecs_world *w)        void ecs_world_free(ecs_world *w)
   ecs_result ecs_world_add_manager(ecs_world *w, const char *name, ecs_manager *m, ecs_error *err)
   ecs_manager *ecs_world_define(ecs_world *w, const char *name, const ecs_field_desc *fields,
                    uint32_t num_fields, ecs_lookup_kind lookup, ecs_error *err)  made and owned
   ecs_manager *ecs_world_define_schema(ecs_world *w, const char *name, const ecs_schema_field *schema,
                    uint32_t num_fields, ecs_lookup_kind lookup, ecs_error *err)
   ecs_result ecs_world_add_store(ecs_world *w, const char *name, void *store,
                    const ecs_store_interface *iface, ecs_error *err)  any other store
   int ecs_entity_selected(const uint32_t *keep, uint32_t num_indices, uint32_t id)
                    whether a store's save_selected keeps id's instances
   ecs_result ecs_world_remove(ecs_world *w, const char *name, ecs_error *err)
   uint32_t ecs_world_find(const ecs_world *w, const char *name)  index, or ECS_WORLD_NO_COMPONENT
   ecs_manager *ecs_world_manager(const ecs_world *w, const char *name)  or NULL
   ecs_result ecs_world_group(ecs_world *w, const char *const *names, uint32_t n, ecs_error *err)
   uint32_t ecs_world_components_of(const ecs_world *w, ecs_entity e, ecs_world_has *out, uint32_t cap)
   int ecs_world_destroy_now(ecs_world *w, ecs_entity e)  e and its instances, now
   ecs_result ecs_world_destroy_tree(ecs_world *w, const char *hierarchy, ecs_entity e, ecs_error *err)
   uint32_t ecs_world_collect(ecs_world *w, const ecs_jobs *jobs)  every store's collect
  Queries
   ecs_result ecs_world_query_make(ecs_world *w, const ecs_world_query_desc *desc,
                                   ecs_world_query *q, ecs_error *err)  prepare once
   uint32_t ecs_world_query_span(const ecs_world_query *q)  driver positions to walk
   ecs_result ecs_world_cursor_start(ecs_world_cursor *c, const ecs_world_query *q, uint32_t begin,
                                     uint32_t end)  a walk over [begin, end)
   int ecs_world_cursor_next(ecs_world_cursor *c, ecs_world_chunk *out)  next chunk, or 0
   void ecs_world_query_refresh(ecs_world_query *q)  direct: remember runs (single-threaded)
   uint32_t ecs_world_chunk_instance(const ecs_world_chunk *c, uint32_t t, uint32_t k)
                                                  match k's instance in term t
   int ecs_world_chunk_contiguous(const ecs_world_chunk *c, uint32_t num_terms)  no index lists
   uint32_t ecs_bit_lowest(uint64_t x)            the lowest set bit (a masked chunk's next match)
  Systems
   ECS_WORLD_SYSTEM_DEFINE(name, TERMS, flags) { body }  declares name_system (terms X(type, view, access))
   ecs_result ecs_world_add_system(ecs_world *w, const ecs_system_desc *desc, ecs_error *err)
                                                  registers it after the others
   ecs_result ecs_world_remove_system(ecs_world *w, const char *name, ecs_error *err)
   ecs_result ecs_world_run_systems(ecs_world *w, const ecs_frame *frame, const ecs_jobs *jobs,
                                    ecs_error *err)  every registered system once, in waves
   (ECS_MANAGER_DEFINE also gives name_view, name_view_at(v, m, i), name_layout_matches(m))

REVISION HISTORY
   0.11 ecs_store_interface's visit_state gives exactly save's bytes in
        spans (the world hash cuts its blocks where each span starts, and
        ecs_snapshot_delta_from_world copies them); a visit of another byte
        count is noticed and the store read from a copy of its save
   0.10 a destroy out of memory for the free queue's ring is refused with
        nothing changed (it retired the index, and a rebuild of the queued
        bits lost the mark: the next id tested live and the count went wrong)
   0.9  a standalone dense or direct manager refuses a create (and a batch,
        all or nothing) for an id older than the one holding its index's
        slot: it dropped the live entity's instances for a dead id; a walk
        ends when its world loses a store (cursor_next read the freed
        groups and shifted indices of ecs_world_remove); collect skips a
        logged id that is live again (its index's generation wrapped
        between two collects: it destroyed the live entity's instances);
        the direct lookup below 4 index bits masks the generation off (it
        looked in the wrong slot); ecs_group_init and _free on a world's
        managers keep ecs_world_component.group current (it could point at
        a freed group); ecs_group_sort records its failure in g->error
   0.8  ecs_world_destroy_now and _destroy_tree leave an entity whose
        destroy is refused (its destruction already running, out of memory
        nesting callbacks) as it was, and say so (they stripped its
        instances and returned 1 / ECS_OK); two ECS_SERIAL systems conflict
        (they ran at once, racing on the state they share); a stale
        cursor_start writes nothing but the cursor (it wrote the world's
        error from every walk at once); walks and systems: stores grouped
        with the query's count as its own (documented); ecs_manager_move
        refuses indices past count (a stale slot's chain walk read a NULL
        next); below 10 index bits the dense map has no more slots than
        indices (its mask kept generation bits: instances of reused ids
        were written to one slot and looked up in another)
   0.7  ecs_entity_live (alive, and not the id a queued index carries
        next); a manager registered in a world and the transform store
        refuse that id on create (they took it); a create from the queue
        clears its queued bit, ecs_entity_manager_invalidate rebuilds the
        bits at once; ecs_world_destroy_now runs e's destroy callbacks
        before its instances go (they found them gone); out of memory
        nesting destroy callbacks refuses that destroy (they ran unguarded:
        twice, or without end); live knows an index retired while nothing
        was queued
   0.6  ecs_store_interface gains attach (the world's entity manager while
        a store is registered: the transform store refuses dead entities as
        registered managers do), verify (a snapshot's store section
        checked completely, offsets the blob's, ids of indices handed out,
        the target store's settings) and visit_state (the world hash reads
        a store in place), both optional, at its end
   0.5  systems in one declaration (ECS_WORLD_SYSTEM_DEFINE, typed views from
        ECS_MANAGER_DEFINE's field list, ecs_world_add_system,
        ecs_world_run_systems(w, frame, jobs, err) over the registered
        systems; the array-based ecs_world_system_make is gone); nested
        groups (ecs_group.next, ecs_group_top) and queries that use a group
        holding their terms (prefix + remainder) or held by them
        (ECS_WORLD_QUERY_GROUP_PART), ecs_group_sort; masked chunks on the direct path for
        systems (ECS_NO_SIMD); ecs_world_add_manager and _add_store return
        an ecs_result and carry a failed init's reason;
        an index is never queued twice: destroy, destroy_many,
        ecs_world_destroy_now and _destroy_tree refuse the id a queued index
        carries next (a bit per index that only destroy writes;
        ecs_entity_manager_invalidate for code that writes the state);
        schema kinds i8 u8 i16 u16; a manager in a world refuses instances
        for entities not alive there; ECS_ASSERT_MSG, and name_slot's
        asserts say in words what went wrong; ecs_entity_format, one form
        for an entity in every message; the quick start checks init
   0.4  ecs_store_interface gains save_selected (snapshots of a subtree),
        with ecs_entity_selected for its test
   0.3  groups (ecs_group_init: owning groups, kept co-sorted by every call
        that adds or removes instances); one record size
        (ecs_manager_record_size is the schema's record with a schema, read
        by spawn and create_many); the hash kind's large batch inserts by
        home-slot buckets, and one at least as big as the keys there builds
        the table anew, window by window; direct queries: a contiguous chunk
        holds its whole run without optional terms, and
        ecs_world_query_refresh remembers runs (ecs_manager.version);
        destroy-log cursors carry the entity manager's life; a dense batch
        that meets an older id changes nothing when it fails; layouts whose
        padding overflows are refused at init; the direct fast read asserts
        for nil and after a failed init; the world (ecs_world: every store
        registered once, queries on the direct, group and lookup paths,
        whole-entity calls, one collect), the job interface (ecs_jobs,
        ecs_jobs_run) and systems across threads (ecs_world_run_systems);
        ecs_error_set may wrap err->message itself; REFERENCE
   0.2  the seed's three lookup kinds in one entity map (direct, dense, our
        own open-addressing hash; no stb_ds), create_many / lookup_many /
        the direct kind's fast read, exact collect from the destroy log,
        typed pointers kept current by the core, ECS_DEF / ECS_STATIC
   0.1  entities, the free queue, callbacks, component managers
*/
#ifndef ECS_H_INCLUDED
#define ECS_H_INCLUDED

#define ECS_VERSION_MAJOR 0
#define ECS_VERSION_MINOR 11

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef ECS_INDEX_BITS
#define ECS_INDEX_BITS 22
#endif
#ifndef ECS_GENERATION_BITS
#define ECS_GENERATION_BITS 8
#endif
#ifndef ECS_MINIMUM_FREE_INDICES
#define ECS_MINIMUM_FREE_INDICES 1024
#endif

#if ECS_GENERATION_BITS < 1 || ECS_GENERATION_BITS > 8
#error "ECS_GENERATION_BITS must be 1..8: the manager stores one byte per index"
#endif
#if ECS_INDEX_BITS < 2 || ECS_INDEX_BITS + ECS_GENERATION_BITS > 30
#error "ECS_INDEX_BITS + ECS_GENERATION_BITS must be at most 30 (top two bits are the user's)"
#endif
#if ECS_MINIMUM_FREE_INDICES >= (1 << ECS_INDEX_BITS) - 1
#error "ECS_MINIMUM_FREE_INDICES must be smaller than the index space"
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ECS__UNUSED __attribute__((unused))
#else
#define ECS__UNUSED
#endif

/* The linkage of every public function in the five headers: extern by
   default; ECS_STATIC makes them static (when one file includes all the
   implementations and nothing else uses them), or define ECS_DEF yourself
   (e.g. __declspec(dllexport) when you build them into a DLL). The same in
   every file. */
#ifndef ECS_DEF
#ifdef ECS_STATIC
#define ECS_DEF static ECS__UNUSED
#else
#define ECS_DEF extern
#endif
#endif

#define ECS_INDEX_MASK ((1u << ECS_INDEX_BITS) - 1u)
/* Inline functions' debug checks: ECS_ASSERT if you define it (then in every
   file), else assert(), which NDEBUG turns off. */
#ifdef ECS_ASSERT
#define ECS__HEADER_ASSERT(x) ECS_ASSERT(x)
#else
#include <assert.h>
#define ECS__HEADER_ASSERT(x) assert(x)
#endif
/* A debug check whose failure says in words what went wrong: when x fails,
   ECS_ASSERT (or assert()) is handed ecs__misuse("the message"), which is
   false, so what it prints is the message ("Assertion
   `ecs__misuse("name_slot: the nil entity has no slot")' failed"), not the
   raw expression. Off with NDEBUG unless you define ECS_ASSERT; define
   ECS_ASSERT_MSG(x, msg) yourself (in every file) to route it elsewhere. */
static inline int ecs__misuse(const char *what)
{
    (void)what;
    return 0;
}
#ifndef ECS_ASSERT_MSG
#if defined(ECS_ASSERT) || !defined(NDEBUG)
#define ECS_ASSERT_MSG(x, msg) ((x) ? (void)0 : ECS__HEADER_ASSERT(ecs__misuse(msg)))
#else
#define ECS_ASSERT_MSG(x, msg) ((void)0)
#endif
#endif
#define ECS_ENTITY_GENERATION_MASK ((1u << ECS_GENERATION_BITS) - 1u)
#define ECS_INSTANCE_NIL 0xFFFFFFFFu

#ifdef __cplusplus
extern "C" {
#endif

/* ---- results and errors -------------------------------------------------
   One list gives the codes and their default text, so they never drift. */
#define ECS__RESULT_LIST(X)                                                   \
    X(ECS_OK, "ok")                                                           \
    X(ECS_ERROR_OUT_OF_MEMORY, "out of memory")                               \
    X(ECS_ERROR_INDICES_EXHAUSTED, "entity index space exhausted")            \
    X(ECS_ERROR_INVALID_ARGUMENT, "invalid argument")                         \
    X(ECS_ERROR_NOT_FOUND, "not found")                                       \
    X(ECS_ERROR_ALREADY_EXISTS, "already exists")                             \
    X(ECS_ERROR_CYCLE, "link would create a cycle")                           \
    X(ECS_ERROR_JSON, "malformed JSON")                                       \
    X(ECS_ERROR_COMPILE, "compile error")                                     \
    X(ECS_ERROR_UNKNOWN_COMPONENT, "unknown component type")                  \
    X(ECS_ERROR_NAME_COLLISION, "two names hash to the same identifier")      \
    X(ECS_ERROR_NON_CANONICAL_PATH, "path is not canonical")                  \
    X(ECS_ERROR_CORRUPT_RESOURCE, "corrupt resource")                         \
    X(ECS_ERROR_WRONG_BYTE_ORDER, "wrong byte order")                         \
    X(ECS_ERROR_SPAWN_FAILED, "spawn failed")                                 \
    X(ECS_ERROR_IO, "input/output error")                                     \
    X(ECS_ERROR_PLUGIN_LOAD, "plugin library could not be loaded")            \
    X(ECS_ERROR_PLUGIN_NO_ENTRY, "plugin has no get_plugin_api")              \
    X(ECS_ERROR_PLUGIN_VERSION, "plugin speaks no plugin API version we know") \
    X(ECS_ERROR_PLUGIN_INIT, "plugin init failed")                            \
    X(ECS_ERROR_API_VERSION, "API version not available")                     \
    X(ECS_ERROR_DECOMPILE, "resource cannot be decompiled")

#define ECS__RESULT_ENUM(code, text) code,
/** Result codes: ECS_OK (0) or an ECS_ERROR_* value. */
typedef enum ecs_result { ECS__RESULT_LIST(ECS__RESULT_ENUM) ECS__RESULT_COUNT } ecs_result;
#undef ECS__RESULT_ENUM

/** An error the caller owns: a code and a human-readable message. */
typedef struct ecs_error {
    ecs_result code;
    char message[256];
} ecs_error;

/** The code's name, e.g. "ECS_ERROR_OUT_OF_MEMORY"; "?" for unknown values. */
ECS_DEF const char *ecs_result_name(ecs_result code);
/** The code's default text, e.g. "out of memory". */
ECS_DEF const char *ecs_result_text(ecs_result code);
/** Sets err (if non-NULL) to code and a printf-formatted message; returns code.
    An argument may be err->message itself (a message wrapped in context). */
ECS_DEF ecs_result ecs_error_set(ecs_error *err, ecs_result code, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/** Clears err (if non-NULL) to ECS_OK and an empty message. */
ECS_DEF void ecs_error_clear(ecs_error *err);

/* ---- entities ------------------------------------------------------------ */

/** An entity id: index in bits 0..ECS_INDEX_BITS-1, generation above it. */
typedef struct ecs_entity {
    uint32_t id;
} ecs_entity;

/** Called for every destroyed entity while ecs_entity_alive is still true. */
typedef void (*ecs_entity_destroy_fn)(void *user, ecs_entity e);

typedef struct ecs_entity__callback {
    ecs_entity_destroy_fn fn;
    void *user;
} ecs_entity__callback;

/** Tracks which entities are alive. Zero-initialised is a valid empty manager.
    Read-only members for the curious: `max_index` (the highest index handed
    out so far), `num_free` (queued indices). */
typedef struct ecs_entity_manager {
    uint8_t *generation;       /* one byte per index */
    uint32_t max_index;        /* highest index handed out so far, 0 when none */
    uint32_t capacity;         /* allocated bytes of `generation` */
    uint32_t *free_ring;       /* FIFO of destroyed indices, stored as the id each
                                  index will carry when reissued (ring buffer) */
    uint32_t free_head;        /* destroys ever queued before the queue's front
                                  (a running count; ring slot = count & (capacity-1)),
                                  so the ring doubles as the destroy log */
    uint32_t num_free;         /* indices waiting in the queue */
    uint32_t free_capacity;    /* ring size, a power of two (or 0) */
    uint32_t num_retired;      /* indices lost to out of memory while queueing:
                                  0 since 0.10 (destroy refuses instead); a
                                  snapshot of an older version may carry some */
    uint32_t life;             /* which life of a manager at this address the log
                                  belongs to: a stamp taken at the first allocation
                                  (0 before), so a destroy-log cursor of an earlier
                                  life (freed, initialised again) reads LOST */
    uint32_t *queued;          /* one bit per index, set while it waits in the queue,
                                  so that no id queues it twice
                                  and ecs_entity_live is exact; a pop clears its
                                  bit while the bits are synced (the usual case) */
    uint32_t queued_limit;     /* indices the bits cover; 0: none (rebuilt from
                                  the ring by the next destroy) */
    uint32_t queued_synced;    /* running count up to which popped indices have
                                  had their bits cleared (<= free_head) */
    uint32_t queued_room;      /* destroys the inline path may still queue: ring
                                  slots free of unsynced pops while the bits cover
                                  every index and no callback is registered; 0
                                  sends destroy to the general path */
    ecs_entity__callback *callbacks;
    uint32_t num_callbacks, callbacks_capacity;
    ecs_entity *destroying;    /* entities whose callbacks are running */
    uint32_t num_destroying, destroying_capacity;
    ecs_error error;           /* the last failure, for the caller to read */
} ecs_entity_manager;

/** Same as zero-initialising *em. */
ECS_DEF void ecs_entity_manager_init(ecs_entity_manager *em);
/** Frees all memory; *em is then a valid empty manager again. */
ECS_DEF void ecs_entity_manager_free(ecs_entity_manager *em);

/** Creates an entity. Returns the nil entity (id 0) only when the index space
    is exhausted and no index is queued, or when memory runs out; em->error
    then says which, and nothing else changed. (Inline fast path.) */
static inline ecs_entity ecs_entity_create(ecs_entity_manager *em);
/** Creates n entities into out[0..n-1] with one growth and one pass. All or
    nothing: on failure (ECS_ERROR_INDICES_EXHAUSTED when n exceeds the free
    indices, ECS_ERROR_OUT_OF_MEMORY; em->error set) no entity was created and
    out was not written at all (any n, however large, is checked first). */
ECS_DEF ecs_result ecs_entity_create_many(ecs_entity_manager *em, uint32_t n, ecs_entity *out);
/** True when e is alive. Safe on any value: nil, stale, forged, out of range. */
static inline int ecs_entity_alive(const ecs_entity_manager *em, ecs_entity e);
/** True when e is alive and is an id create handed out: ecs_entity_alive,
    and false for the id a queued index carries next (see ENTITIES). Reads
    only (any number of threads may ask while nobody creates or destroys):
    nothing queued answers at once, else one bit of the queued indices; a
    scan of the queue when the bits are missing (out of memory).
    What a manager registered in a world, the transform store and the
    world's calls ask before they act on an entity. */
static inline int ecs_entity_live(const ecs_entity_manager *em, ecs_entity e);
/** Destroys e: runs the destroy callbacks (e still alive for them), bumps the
    generation and queues the index. Returns 1, or 0 (a no-op) when e is nil,
    dead, already being destroyed, or the id a queued index carries next
    (alive by its byte, never handed out: see ENTITIES). Callbacks may
    destroy other entities. A destroy may grow the queue's ring (4 bytes per
    queued index): out of memory for it, the destroy is refused before
    anything changed (0, em->error says so, e alive, no callback ran). It may
    also allocate or grow the bits that mark queued indices (1/8 byte per
    index); out of memory for those, it scans the queue instead and says so
    in em->error, and still destroys e. Callbacks
    nested more than 16 deep (a callback destroying an entity whose
    callback destroys another ...) grow a list; out of memory for it the
    destroy is refused (0, em->error says so, no callback ran). */
static inline int ecs_entity_destroy(ecs_entity_manager *em, ecs_entity e);
/** Destroys each of es[0..n-1] as ecs_entity_destroy does (duplicates and
    the next ids of queued indices are no-ops); returns how many were alive
    and destroyed. */
ECS_DEF uint32_t ecs_entity_destroy_many(ecs_entity_manager *em, uint32_t n, const ecs_entity *es);
/** Tells em that its generations, free queue or counters were written by
    code other than these calls (ecs_snapshot.h's load and clone do): the
    bits that mark queued indices are rebuilt from the queue now (out of
    memory: they are dropped, ecs_entity_live scans the queue and the next
    destroy builds them; said in em->error). Cannot fail otherwise. Call it
    after such a write and before the next create or destroy; a manager
    written that way without it may queue an index twice. */
ECS_DEF void ecs_entity_manager_invalidate(ecs_entity_manager *em);
/** Registers fn(user, e) to run for every destroyed entity, in registration
    order. Returns ECS_OK or ECS_ERROR_OUT_OF_MEMORY. */
ECS_DEF ecs_result ecs_entity_on_destroy(ecs_entity_manager *em, ecs_entity_destroy_fn fn, void *user);
/** Removes the first registration of (fn, user). ECS_OK, or
    ECS_ERROR_NOT_FOUND. Not from inside a destroy callback. */
ECS_DEF ecs_result ecs_entity_on_destroy_remove(ecs_entity_manager *em, ecs_entity_destroy_fn fn, void *user);
/** Number of entities alive. */
ECS_DEF uint32_t ecs_entity_count(const ecs_entity_manager *em);

/** The index part of e (bits above the generation ignored). */
static inline uint32_t ecs_entity_index(ecs_entity e) { return e.id & ECS_INDEX_MASK; }
/** The generation part of e. */
static inline uint32_t ecs_entity_generation(ecs_entity e) { return (e.id >> ECS_INDEX_BITS) & ECS_ENTITY_GENERATION_MASK; }
/** Builds an id from index and generation (no check that it is alive). */
static inline ecs_entity ecs_entity_make(uint32_t index, uint32_t generation)
{
    ecs_entity e;
    e.id = (index & ECS_INDEX_MASK) | ((generation & ECS_ENTITY_GENERATION_MASK) << ECS_INDEX_BITS);
    return e;
}
/** True for the nil entity (index 0). */
static inline int ecs_entity_is_nil(ecs_entity e) { return (e.id & ECS_INDEX_MASK) == 0; }

/* A raw id (a stored key, a blob's word) as an entity, for messages. */
static inline ecs_entity ecs__as_entity(uint32_t id)
{
    ecs_entity e;
    e.id = id;
    return e;
}

/* Whether stored key id is a later life of owner's index than owner: its
   generation is 1 .. half the generation range ahead (wrap-aware). A store
   that does not know which entities are alive (standalone) lets a dense or
   direct slot's owner go only to such an id: an id it does not supersede
   is the dead one, refused, so that a create for a dead id never drops the
   instances of the live entity that now holds its index. */
static inline int ecs__id_supersedes(uint32_t id, uint32_t owner)
{
    uint32_t ahead = ((id >> ECS_INDEX_BITS) - (owner >> ECS_INDEX_BITS)) & ECS_ENTITY_GENERATION_MASK;
    return ahead != 0 && ahead <= (ECS_ENTITY_GENERATION_MASK + 1u) / 2u;
}

/** Room for any ecs_entity_format text, NUL included. */
#define ECS_ENTITY_TEXT_SIZE 64
/** Writes e as every message of these headers shows an entity: "entity
    4194315 (index 11, generation 1)", its id in decimal (as JSON and the
    console write ids) and then its parts (the user's top bits, if set, show
    in the id only). buf: size bytes (ECS_ENTITY_TEXT_SIZE hold any entity;
    less is cut, always NUL-terminated when size > 0). Returns buf. */
ECS_DEF const char *ecs_entity_format(char *buf, size_t size, ecs_entity e);

static inline int ecs_entity_alive(const ecs_entity_manager *em, ecs_entity e)
{
    uint32_t idx = e.id & ECS_INDEX_MASK;
    /* idx - 1 < max_index rejects index 0 and indices never handed out. */
    return idx - 1u < em->max_index &&
           em->generation[idx] == (uint8_t)((e.id >> ECS_INDEX_BITS) & ECS_ENTITY_GENERATION_MASK);
}

/* The general paths (growth, exhaustion, callbacks, queue growth; a scan
   of the queue when its bits are missing). */
ECS_DEF ecs_entity ecs_entity_create_slow__needs_ECS_IMPLEMENTATION_in_one_file(ecs_entity_manager *em);
ECS_DEF int ecs_entity_destroy_slow__needs_ECS_IMPLEMENTATION_in_one_file(ecs_entity_manager *em, ecs_entity e);
ECS_DEF int ecs_entity_queued_scan__needs_ECS_IMPLEMENTATION_in_one_file(const ecs_entity_manager *em, uint32_t idx);

/* The queue's front (num_free > 0): the id its index carries next. While
   the queued bits are in step with the queue (synced to its front), the
   popped index's bit is cleared here, so a set bit always means queued. */
static inline uint32_t ecs__entity_pop_front(ecs_entity_manager *em)
{
    uint32_t id = em->free_ring[em->free_head & (em->free_capacity - 1u)], idx = id & ECS_INDEX_MASK;
    if (em->queued_synced == em->free_head) {
        if (idx < em->queued_limit) em->queued[idx >> 5] &= ~(1u << (idx & 31u));
        ++em->queued_synced;
    }
    ++em->free_head;
    --em->num_free;
    return id;
}

static inline int ecs_entity_live(const ecs_entity_manager *em, ecs_entity e)
{
    uint32_t idx = e.id & ECS_INDEX_MASK;
    if (!ecs_entity_alive(em, e)) return 0;
    if (em->num_free == 0 && em->num_retired == 0) return 1;
    if (em->queued_limit && em->queued_synced == em->free_head) /* every queued index below the limit, its bit set */
        return idx >= em->queued_limit || !((em->queued[idx >> 5] >> (idx & 31u)) & 1u);
    return !ecs_entity_queued_scan__needs_ECS_IMPLEMENTATION_in_one_file(em, idx);
}

static inline ecs_entity ecs_entity_create(ecs_entity_manager *em)
{
    ecs_entity e;
    uint32_t n = em->max_index + 1u;
    if (em->num_free > ECS_MINIMUM_FREE_INDICES) { /* the queue's front */
        e.id = ecs__entity_pop_front(em);
    } else if (n < em->capacity) {                 /* a fresh index (generation 0) */
        em->max_index = n;
        e.id = n;
    } else {
        return ecs_entity_create_slow__needs_ECS_IMPLEMENTATION_in_one_file(em);
    }
    return e;
}

static inline int ecs_entity_destroy(ecs_entity_manager *em, ecs_entity e)
{
    /* locals: the stores below may alias any member of *em */
    uint32_t idx = e.id & ECS_INDEX_MASK, gen, bit = 1u << (idx & 31u), word, room = em->queued_room;
    uint32_t *queued = em->queued;
    /* no room: callbacks, a full ring (counting the popped entries whose
       bits are not cleared yet), bits missing or not covering every index */
    if (room == 0) return ecs_entity_destroy_slow__needs_ECS_IMPLEMENTATION_in_one_file(em, e);
    if (!ecs_entity_alive(em, e)) return 0; /* alive: idx is below the capacity the bits cover */
    /* set: queued (e is the id it carries next), or popped since the last
       sync: the slow path clears the popped bits and tells them apart */
    word = queued[idx >> 5];
    if (word & bit) return ecs_entity_destroy_slow__needs_ECS_IMPLEMENTATION_in_one_file(em, e);
    gen = (em->generation[idx] + 1u) & ECS_ENTITY_GENERATION_MASK;
    queued[idx >> 5] = word | bit;
    em->generation[idx] = (uint8_t)gen;
    em->free_ring[(em->free_head + em->num_free) & (em->free_capacity - 1u)] = idx | (gen << ECS_INDEX_BITS);
    ++em->num_free;
    em->queued_room = room - 1u;
    return 1;
}

/* ---- the destroy log ---------------------------------------------------------
   The free queue is a ring indexed by a running count of destroys, so it
   doubles as a log of the last free_capacity destroyed ids (at least 1024).
   A component manager keeps a cursor into it and collects exactly the
   entities destroyed since its last read (ecs_manager_collect), with no
   callback per destroy. Component headers with arrays of their own use the
   same three calls. */

/** A reader's position in an entity manager's destroy log. Zero-initialised
    means "never read": the first read reports ECS_ENTITY_LOG_LOST. */
typedef struct ecs_entity_log_cursor {
    const ecs_entity_manager *em; /* the manager read last time */
    uint32_t life;                /* and its life (ecs_entity_manager.life) */
    uint32_t next;                /* destroy count at the last read */
    uint32_t retired;             /* em->num_retired at the last read */
} ecs_entity_log_cursor;

/** ecs_entity_log_pending's answer when destroys were lost to the reader (the
    log overflowed, num_retired changed, or the cursor is new or belongs to
    another manager, or another life of the manager at the same address:
    freed and initialised again; a read before the manager's first entity
    counts as another life): sweep everything instead (e.g.
    ecs_manager_gc_all). */
#define ECS_ENTITY_LOG_LOST 0xFFFFFFFFu

/** Destroys recorded since the cursor's last read: returns how many (read them
    with ecs_entity_log_at(em, c->next + k)), or ECS_ENTITY_LOG_LOST. */
ECS_DEF uint32_t ecs_entity_log_pending(const ecs_entity_manager *em, const ecs_entity_log_cursor *c);
/** The id destroyed at destroy count `seq` (a value in the range pending
    names); the nil entity when that entry was lost (treat as LOST). */
static inline ecs_entity ecs_entity_log_at(const ecs_entity_manager *em, uint32_t seq)
{
    uint32_t next_id = em->free_ring[seq & (em->free_capacity - 1u)]; /* the id the index carries next */
    ecs_entity e;
    e.id = next_id ? (next_id & ECS_INDEX_MASK) |
                         ((((next_id >> ECS_INDEX_BITS) - 1u) & ECS_ENTITY_GENERATION_MASK) << ECS_INDEX_BITS)
                   : 0u;
    return e;
}
/** Moves the cursor past everything em has logged so far. */
ECS_DEF void ecs_entity_log_skip_all(const ecs_entity_manager *em, ecs_entity_log_cursor *c);

/* ---- component managers (runtime core) ---------------------------------- */

/** A handle to one component instance: an index into the field arrays. */
typedef struct ecs_instance {
    uint32_t i;
} ecs_instance;

static inline ecs_instance ecs_instance_make(uint32_t i) { ecs_instance r; r.i = i; return r; }
static inline ecs_instance ecs_instance_nil(void) { return ecs_instance_make(ECS_INSTANCE_NIL); }
static inline int ecs_instance_is_nil(ecs_instance i) { return i.i == ECS_INSTANCE_NIL; }

/** How a manager finds an entity's data: the seed's three ways (part 2). */
typedef enum ecs_lookup_kind {
    ECS_LOOKUP_HASH = 0,  /* open-addressing table keyed by entity id: sparse components */
    ECS_LOOKUP_DENSE = 1, /* array indexed by entity index (owner id, first instance): common ones */
    ECS_LOOKUP_DIRECT = 2 /* the instance index IS the entity index: near-universal ones */
} ecs_lookup_kind;

/** One field of a component layout. */
typedef struct ecs_field_desc {
    const char *name;
    uint32_t size;   /* bytes per instance */
    uint32_t align;  /* alignment; arrays are aligned to max(align, 16) */
} ecs_field_desc;

/* ---- schemas: what a component's fields mean -------------------------------
   A field table says how big each field is; a schema says what it holds, so
   that resources can be compiled, spawned and decompiled from it with no
   hand-written code (ecs_resource.h). One entry per field, in field order.
   ECS_MANAGER_DEFINE_SCHEMA declares a typed manager and its schema from one
   X-macro list; ecs_manager_init_schema makes a runtime manager from a
   schema; ecs_manager_set_schema attaches one to any manager (a typed
   manager of ECS_MANAGER_DEFINE, a plugin's engine-owned one). */

/** Small math types: schema kinds vec2..mat4 and ecs_transform.h use them.
    ecs_mat4 is row-major (m[row * 4 + col]), for row vectors: p' = p * M. */
typedef struct ecs_vec2 {
    float x, y;
} ecs_vec2;
/** A 3-vector. */
typedef struct ecs_vec3 {
    float x, y, z;
} ecs_vec3;
/** A 4-vector. */
typedef struct ecs_vec4 {
    float x, y, z, w;
} ecs_vec4;
/** A rotation quaternion (x, y, z vector part, w scalar part). */
typedef struct ecs_quat {
    float x, y, z, w;
} ecs_quat;
/** A 4x4 matrix, row-major (m[row*4 + col]), for row vectors: p' = p * M. */
typedef struct ecs_mat4 {
    float m[16];
} ecs_mat4;

/** What a schema field holds. The C type a typed manager stores, the bytes
    in a resource record (packed, target byte order) and the JSON form: */
typedef enum ecs_field_kind {
    ECS_FIELD_F32 = 1, /* float         4  a number that fits a float */
    ECS_FIELD_F64,     /* double        8  a number */
    ECS_FIELD_I32,     /* int32_t       4  an integer -2^31..2^31-1 */
    ECS_FIELD_U32,     /* uint32_t      4  an integer 0..2^32-1 */
    ECS_FIELD_U64,     /* uint64_t      8  an integer 0..2^64-1 */
    ECS_FIELD_BOOL,    /* uint8_t       1  true or false (stored as 1 or 0) */
    ECS_FIELD_VEC2,    /* ecs_vec2      8  [x, y] */
    ECS_FIELD_VEC3,    /* ecs_vec3     12  [x, y, z] */
    ECS_FIELD_VEC4,    /* ecs_vec4     16  [x, y, z, w] */
    ECS_FIELD_QUAT,    /* ecs_quat     16  [x, y, z, w], not all zero */
    ECS_FIELD_MAT4,    /* ecs_mat4     64  16 numbers, row-major */
    ECS_FIELD_PATH,    /* uint64_t      8  a resource path, stored as its ecs_path_hash */
    ECS_FIELD_ENTITY,  /* ecs_entity    4  the name of an entity of the same resource, or
                                           null; a record holds its resource index
                                           (ECS_SPAWN_ROOT for null), spawning turns
                                           it into the spawned entity (ecs_spawn_resolve) */
    ECS_FIELD_I8,      /* int8_t        1  an integer -128..127 */
    ECS_FIELD_U8,      /* uint8_t       1  an integer 0..255 (a char, a small enum) */
    ECS_FIELD_I16,     /* int16_t       2  an integer -32768..32767 */
    ECS_FIELD_U16      /* uint16_t      2  an integer 0..65535 */
} ecs_field_kind;
/* (The values are stored in snapshots and plugins' tables: new kinds are
   appended, never renumbered.) */
#define ECS_FIELD_KIND_COUNT 18 /* one past the last kind */

/** spec of a member that a resource must give (no default). */
#define ECS_FIELD_REQUIRED "{}"
/** spec of runtime state: not in resources (no bytes in a record, no JSON
    member); spawning zero-fills it. */
#define ECS_FIELD_RUNTIME ((const char *)0)

/** One field of a schema. spec is JSON text (ecs.h only tells NULL apart):
    the default value a resource that omits the member gets ("1",
    "[0, 1, 0]", "\"models/box\"", "null"); or an object with "default",
    "min" and "max" (numbers; vectors bound each element), e.g.
    "{\"default\": 1, \"min\": 0}"; without "default" the member is required
    (ECS_FIELD_REQUIRED is "{}"); NULL (ECS_FIELD_RUNTIME): runtime state.
    Each member at most once: ecs_resource.h refuses a spec that repeats
    one, naming it, as it refuses level JSON that does. */
typedef struct ecs_schema_field {
    const char *name;
    ecs_field_kind kind;
    const char *spec;
} ecs_schema_field;

/** A manager's own copy of its schema (one allocation; read-only). */
typedef struct ecs_schema {
    ecs_schema_field *fields;    /* num_fields entries; names and specs copied */
    uint32_t num_fields;
    uint32_t record_size;        /* bytes of one resource record: the fields that
                                    are not runtime state, packed in order */
    uint32_t num_entity_fields;  /* ECS_FIELD_ENTITY fields */
    uint32_t num_runtime_fields; /* fields with spec NULL */
} ecs_schema;

/* ---- the entity map: entity -> first instance ------------------------------
   One implementation serves every component manager (dense and hash kinds)
   and the transform manager. Dense: slots[entity index]. Hash: linear
   probing in a power-of-two table at most 3/4 full, keyed by the entity id
   (index and generation, top bits masked off; 0 marks an empty slot), with
   backward-shift deletion (no tombstones). Either way a lookup reads one
   8-byte slot in the common case, and a stale id never matches. Insertion
   never allocates: ecs_entity_map_reserve first, so a failed allocation is
   reported before anything changes. */

typedef struct ecs_entity_map_slot {
    uint32_t id;    /* owner's entity id; 0: empty */
    uint32_t first; /* its first instance (ECS_INSTANCE_NIL in empty slots) */
} ecs_entity_map_slot;

typedef struct ecs_entity_map {
    ecs_entity_map_slot *slots; /* never NULL once initialised: a shared empty table before the first key */
    uint32_t mask;        /* slots - 1 (slots are a power of two) */
    uint32_t count;       /* keys stored */
    uint32_t mult;        /* home slot = ((key * mult) >> shift) & mask: dense 1 and 0 */
    uint32_t shift;       /* (hash: the Fibonacci constant and 32 - log2(slots)) */
    uint32_t allocated;   /* 1 once slots is ours (0: the shared empty table) */
    ecs_lookup_kind kind; /* ECS_LOOKUP_DENSE or ECS_LOOKUP_HASH */
} ecs_entity_map;

/** The id an entity is stored under: index and generation, user bits off. */
static inline uint32_t ecs_entity_key(ecs_entity e)
{
    return e.id & (ECS_INDEX_MASK | (ECS_ENTITY_GENERATION_MASK << ECS_INDEX_BITS));
}
/** An empty map of the given kind (no allocation). Required before any use. */
ECS_DEF void ecs_entity_map_init(ecs_entity_map *map, ecs_lookup_kind kind);
ECS_DEF void ecs_entity_map_free(ecs_entity_map *map);
/** Makes room so that `keys` keys in all (hash) / any key whose index is at
    most max_index (dense) can be set without allocating. ECS_OK, or
    ECS_ERROR_OUT_OF_MEMORY with err set and the map unchanged. */
ECS_DEF ecs_result ecs_entity_map_reserve(ecs_entity_map *map, uint32_t keys, uint32_t max_index, ecs_error *err);
/** Points key at first (a key that is not there yet is added); first ==
    ECS_INSTANCE_NIL removes the key. The room must have been reserved. */
ECS_DEF void ecs_entity_map_set(ecs_entity_map *map, uint32_t key, uint32_t first);
/** Heap bytes of the map. */
ECS_DEF size_t ecs_entity_map_memory(const ecs_entity_map *map);
/** Makes dst (initialised, of src's kind) hold exactly src's keys in src's
    slots: one allocation at most (none when dst's table has src's size),
    then one memcpy. ECS_OK, or ECS_ERROR_OUT_OF_MEMORY with err set and dst
    unchanged. Not thread-safe on dst. */
ECS_DEF ecs_result ecs_entity_map_copy(ecs_entity_map *dst, const ecs_entity_map *src, ecs_error *err);
/** Dense map: key's first instance or ECS_INSTANCE_NIL. One 8-byte read; an
    index beyond the table lands (masked) on a slot whose id cannot match. */
static inline uint32_t ecs_entity_map_find_dense(const ecs_entity_map *map, uint32_t key)
{
    ecs_entity_map_slot s = map->slots[key & map->mask];
    return s.id == key ? s.first : ECS_INSTANCE_NIL; /* slot 0 holds {0, NIL}: key 0 finds nil */
}
/** Hash map: key's first instance or ECS_INSTANCE_NIL. */
static inline uint32_t ecs_entity_map_find_hash(const ecs_entity_map *map, uint32_t key)
{
    uint32_t h = (key * 0x9E3779B1u) >> map->shift;
    for (;; h = (h + 1u) & map->mask) {
        ecs_entity_map_slot s = map->slots[h];
        if (s.id == key) return s.first; /* key 0 meets an empty slot, whose first is NIL */
        if (s.id == 0) return ECS_INSTANCE_NIL;
    }
}
/** key's first instance, or ECS_INSTANCE_NIL (also for 0, stale and unknown
    keys). One code path for both kinds up to the first slot (a dense map is a
    hash map whose home is the index and which never probes further), so a
    loop of lookups carries no kind test before its cache miss. */
static inline uint32_t ecs_entity_map_find(const ecs_entity_map *map, uint32_t key)
{
    uint32_t h = ((key * map->mult) >> map->shift) & map->mask;
    ecs_entity_map_slot s = map->slots[h];
    if (s.id == key) return s.first;
    if (s.id == 0 || map->kind == ECS_LOOKUP_DENSE) return ECS_INSTANCE_NIL;
    for (;;) {
        h = (h + 1u) & map->mask;
        s = map->slots[h];
        if (s.id == key) return s.first;
        if (s.id == 0) return ECS_INSTANCE_NIL;
    }
}

/* ---- the manager ------------------------------------------------------------ */

/** A component manager over a runtime field table. The typed managers made by
    ECS_MANAGER_DEFINE embed one as `core`. Read-only for users except through
    the functions below; the field arrays' contents are yours. */
typedef struct ecs_manager {
    uint32_t count;               /* loop bound: instances are 0..count-1 (direct: slots, some empty) */
    uint32_t num_instances;       /* instances in use (equals count except in the direct kind) */
    uint32_t capacity;            /* instances (direct: slots, a power of two) allocated */
    uint32_t slot_mask;           /* direct: capacity - 1 (0 when empty) */
    ecs_lookup_kind lookup;
    ecs_entity *entity;           /* instance -> owning entity (direct: id 0 marks an empty slot) */
    void **field;                 /* field k's array (num_fields pointers) */
    void *buffer;                 /* the one allocation for entity and field arrays */
    ecs_field_desc *fields;       /* copy of the field table (and the names) */
    uint32_t num_fields;
    uint32_t bytes_per_instance;  /* sum of field sizes, entity included */
    uint32_t *next;               /* instance -> next instance of its entity;
                                     NULL until an entity owns two instances */
    ecs_entity_map map;           /* dense and hash kinds */
    uint32_t flags;               /* ECS__MANAGER_READY, ECS__MANAGER_VIEW */
    uint32_t rng;                 /* gc's random state */
    ecs_entity_log_cursor log;    /* ecs_manager_collect's place in the destroy log */
    ecs_error error;              /* the last failure */
    ecs_schema *schema;           /* ecs_manager_set_schema's copy, or NULL */
    struct ecs_group *group;      /* the outermost group (fewest members) keeping m co-sorted, or NULL;
                                     the others: group->next, ... (ecs_group) */
    struct ecs_world *world;      /* the world m is registered in, or NULL */
    uint32_t version;             /* direct: counts the changes of which slots are taken, from a value of
                                     its own per init (ecs_world_query_refresh's runs are good while it stays) */
} ecs_manager;

#define ECS__MANAGER_READY 1u /* init succeeded */
#define ECS__MANAGER_VIEW 2u  /* typed pointers follow the struct (ECS_MANAGER_DEFINE) */

/** Initialises m for the given fields (the table and the names are copied:
    the caller's may go away). Zero fields make a tag component (entities
    either have it or not). Returns ECS_OK, or ECS_ERROR_INVALID_ARGUMENT /
    ECS_ERROR_OUT_OF_MEMORY: m is then a manager on which every call fails
    cleanly (create returns nil, lookup nil, reserve the error). The direct
    kind allocates its first slots here, so after a successful init its fast
    read (ecs_manager_slot) is always safe; after a failed one there are no
    field arrays to read (ecs_manager_slot asserts init succeeded). */
ECS_DEF ecs_result ecs_manager_init(ecs_manager *m, const ecs_field_desc *fields, uint32_t num_fields,
                            ecs_lookup_kind lookup);
/** ecs_manager_init for a manager that is the first member of a struct whose
    next members are `ecs_entity *entity` and one pointer per field, in field
    order (what ECS_MANAGER_DEFINE declares): every call that moves the arrays
    rewrites those pointers, so they are never stale. */
ECS_DEF ecs_result ecs_manager_init_with_view(ecs_manager *m, const ecs_field_desc *fields, uint32_t num_fields,
                                      ecs_lookup_kind lookup);
/** Frees everything; m must be initialised again before use. A group m is
    in ends (ecs_group_free). */
ECS_DEF void ecs_manager_free(ecs_manager *m);
/** Makes room for n instances in total (direct kind: for entity indices
    below n); ECS_OK or ECS_ERROR_OUT_OF_MEMORY (also when the bytes would
    overflow size_t; nothing allocated or changed then). */
ECS_DEF ecs_result ecs_manager_reserve(ecs_manager *m, uint32_t n);
/** Adds an instance for e (zero-filled fields). Dense and hash kinds: after
    e's other instances (an entity may own several). Direct kind: instance ==
    e's index; a second instance for the same id is refused
    (ECS_ERROR_ALREADY_EXISTS); a slot held by a stale id of the same index
    is taken over (dense: that id's instances go first). Returns nil for a nil entity (ECS_ERROR_INVALID_ARGUMENT)
    or when memory runs out (ECS_ERROR_OUT_OF_MEMORY); m->error says which,
    nothing changed. A manager registered in a world refuses an entity that
    world does not have alive (destroyed, or never created there): nil,
    ECS_ERROR_INVALID_ARGUMENT, and m->error names the component and the
    entity ("component manager 'hp': create for entity 11 (index 11,
    generation 0), which is not alive in its world ..."). A standalone
    manager does not know which entities are alive: creating for a dead
    entity is a mistake that gc/collect later undo, and a create for an id
    older than the one holding its index's slot (dense, direct; LOOKUP
    KINDS says "older") is refused (ECS_ERROR_INVALID_ARGUMENT, "a dead
    id"), so the live entity keeps its instances. */
ECS_DEF ecs_instance ecs_manager_create(ecs_manager *m, ecs_entity e);
/** ecs_manager_create without zero-filling the fields (the caller writes
    every field: the typed wrappers and ecs_manager_spawn use it). */
static inline ecs_instance ecs_manager_create_uninitialized(ecs_manager *m, ecs_entity e);
/** Adds one instance for each of entities[0..n-1] with one growth and one
    pass. records: n packed records (ecs_manager_record_size bytes each, the
    spawn layout: with a schema, runtime fields have no bytes and are
    zero-filled, and entity fields are copied as they are, entity ids, where
    spawn resolves resource indices) to copy in, or NULL to leave the fields
    for the caller to write (every field of every new instance). *first (may be NULL): dense
    and hash kinds: the new instances are first..first+n-1, in order; direct
    kind: nil (entity k's instance is its index); a group member: nil (the
    group may have moved them: look each up). All or nothing: on failure
    (nil entity, out of memory, direct kind: an id listed twice or already
    present; in a world, an entity not alive there, as ecs_manager_create)
    nothing changed and the error is returned and set in m->error. */
ECS_DEF ecs_result ecs_manager_create_many(ecs_manager *m, uint32_t n, const ecs_entity *entities, const void *records,
                                   ecs_instance *first);
/** e's first instance, or nil (also for nil, stale, forged and unknown
    entities, in every kind). Inline: one slot read in the common case. */
static inline ecs_instance ecs_manager_lookup(const ecs_manager *m, ecs_entity e);
/** out[k] = ecs_manager_lookup(m, entities[k]) for k < n, with the cache
    misses of many lookups overlapped (software prefetch). */
ECS_DEF void ecs_manager_lookup_many(const ecs_manager *m, uint32_t n, const ecs_entity *entities, ecs_instance *out);
/** Direct kind only: e's slot without the ownership check, the fast read
    (m->position[ecs_manager_slot(m, e).i]): e's index masked to the slots
    (a power of two; an index past them lands on another slot), so every
    read stays in the manager's memory. Whether e owns the slot (so e is
    not nil) is asserted in debug builds (ECS_ASSERT); in release a stale or
    foreign id reads whatever the slot holds. Precondition: init succeeded
    (also asserted): after a failed init the entity array is one empty slot
    but the field arrays are NULL, so the slot must not index them. Use the
    checked lookup when ids may be stale. */
static inline ecs_instance ecs_manager_slot(const ecs_manager *m, ecs_entity e);
/** The next instance of the same entity, or nil (always nil in the direct
    kind, and for out-of-range instances). */
ECS_DEF ecs_instance ecs_manager_next(const ecs_manager *m, ecs_instance i);
/** Removes instance i. Dense and hash: swap-erase (the last instance moves
    into i). Direct: the slot becomes empty (entity id 0; the field bytes stay
    until the slot is reused). Returns 1, or 0 for a nil, out-of-range or
    empty instance. */
ECS_DEF int ecs_manager_destroy(ecs_manager *m, ecs_instance i);
/** Destroys every instance of e (nil, stale and unknown: 0); returns how many. */
ECS_DEF uint32_t ecs_manager_destroy_entity(ecs_manager *m, ecs_entity e);
/** The seed's lazy collection: look at random instances, destroy those whose
    entity is dead, stop after 4 alive (or empty slots) in a row. Returns how
    many it destroyed. Cheap when nothing is dead; call it every frame when
    deaths come as a trickle. */
ECS_DEF uint32_t ecs_manager_gc(ecs_manager *m, const ecs_entity_manager *em);
/** A full sweep: destroys every instance whose entity is dead, in one linear
    pass from the end; O(count). The direct kind also lowers count past
    trailing empty slots. Returns how many it destroyed. */
ECS_DEF uint32_t ecs_manager_gc_all(ecs_manager *m, const ecs_entity_manager *em);
/** Exact collection: destroys the instances of every entity destroyed in em
    since m's last collect, reading em's destroy log from m's own cursor, so
    any number of managers can collect from one entity manager. Costs O(deaths
    since the last call), however many instances there are; when the log
    cannot say (first call, more deaths than the log holds) it sweeps
    instead (ecs_manager_gc_all). After one call no
    instance of a dead entity remains, except instances created for entities
    that were already dead at creation (gc finds those). Returns how many
    instances it destroyed. */
ECS_DEF uint32_t ecs_manager_collect(ecs_manager *m, const ecs_entity_manager *em);
/** Copies instance `from` (all fields and entity) over instance `to` and
    points its entity's lookup/next links at `to`; `from` is left as it was.
    Dense and hash kinds only, for managers that keep links of their own.
    Returns 1, or 0 (nothing done) when either index is >= count (past the
    instances: a slot there holds no instance) or the manager is direct or
    in a group. */
ECS_DEF int ecs_manager_move(ecs_manager *m, uint32_t from, uint32_t to);
/** Pointer to field k's value for instance i (no checks). */
static inline void *ecs_manager_field(const ecs_manager *m, uint32_t k, uint32_t i)
{
    return (char *)m->field[k] + (size_t)i * m->fields[k].size;
}
/** Heap bytes owned by m (instance data, lookup, links). */
ECS_DEF size_t ecs_manager_memory(const ecs_manager *m);
/** Bytes of one packed record, the one layout ecs_manager_spawn and
    ecs_manager_create_many read: the fields in field order, no padding, the
    owning entity not included. With a schema (ecs_manager_set_schema) the
    schema's record (schema->record_size): runtime fields have no bytes in
    it (both calls zero-fill them); without one every field. 0 for a manager
    whose init failed. */
ECS_DEF uint32_t ecs_manager_record_size(const ecs_manager *m);

/* The general paths behind the inline functions; their names say what a
   linker error about them means. */
ECS_DEF ecs_instance ecs_manager_create_slow__needs_ECS_IMPLEMENTATION_in_one_file(ecs_manager *m, ecs_entity e);

/* The entity manager of the world m is registered in (a world's first
   member, checked where ecs_world is defined), or NULL. */
static inline const ecs_entity_manager *ecs__manager_entities(const ecs_manager *m)
{
    return (const ecs_entity_manager *)(const void *)m->world;
}

/* Whether m may hold an instance of e: any id standalone, in a world only
   an entity alive there (ecs_entity_live). */
static inline int ecs__manager_takes(const ecs_manager *m, ecs_entity e)
{
    return !m->world || ecs_entity_live(ecs__manager_entities(m), e);
}

/* The first instance of m that links to a second instance of its entity
   (m holds two of one entity), or m->count when none: what a group refuses. */
static inline uint32_t ecs__manager_first_twice(const ecs_manager *m)
{
    uint32_t i;
    for (i = 0; m->next && i < m->count; ++i)
        if (m->next[i] != ECS_INSTANCE_NIL) return i;
    return m->count;
}

static inline ecs_instance ecs_manager_create_uninitialized(ecs_manager *m, ecs_entity e)
{
    uint32_t id = ecs_entity_key(e), idx = id & ECS_INDEX_MASK, i = m->count;
    ecs_entity_map_slot *s = m->map.slots + idx;
    /* dense fast path: room, an index the map covers (not 0), no id of this
       index owns an instance, and (asked last) in a world only for an entity
       alive there (the slow path says why not) */
    if (m->lookup == ECS_LOOKUP_DENSE && i < m->capacity && idx - 1u < m->map.mask && s->id == 0 && !m->group &&
        ecs__manager_takes(m, e)) {
        ++m->map.count;
        s->id = id;
        s->first = i;
        m->entity[i].id = id;
        if (m->next) m->next[i] = ECS_INSTANCE_NIL;
        m->count = i + 1u;
        ++m->num_instances;
        return ecs_instance_make(i);
    }
    /* hash fast path: room in the arrays and the table (at most 3/4 full
       after), and the probe meets an empty slot before the key */
    if (m->lookup == ECS_LOOKUP_HASH && i < m->capacity && idx != 0 && m->map.allocated && !m->group &&
        (m->map.count + 1u) * 4u <= (m->map.mask + 1u) * 3u && ecs__manager_takes(m, e)) {
        uint32_t h = (id * 0x9E3779B1u) >> m->map.shift;
        s = m->map.slots;
        while (s[h].id != 0 && s[h].id != id) h = (h + 1u) & m->map.mask;
        if (s[h].id == 0) {
            ++m->map.count;
            s[h].id = id;
            s[h].first = i;
            m->entity[i].id = id;
            if (m->next) m->next[i] = ECS_INSTANCE_NIL;
            m->count = i + 1u;
            ++m->num_instances;
            return ecs_instance_make(i);
        }
    }
    return ecs_manager_create_slow__needs_ECS_IMPLEMENTATION_in_one_file(m, e);
}
static inline ecs_instance ecs_manager_lookup(const ecs_manager *m, ecs_entity e)
{
    /* Every field is read before the kind tests, so that in a loop of lookups
       the compiler keeps them in registers (reads inside one branch would be
       repeated every time): fewer instructions and loads per lookup, so more
       lookups in flight overlapping their cache misses. */
    const ecs_entity_map_slot *slots = m->map.slots;
    const ecs_entity *entity = m->entity;
    uint32_t key = ecs_entity_key(e), mask = m->map.mask, slot_mask = m->slot_mask;
    ecs_lookup_kind kind = m->lookup;
    ecs_entity_map_slot s;
    if (kind == ECS_LOOKUP_DENSE) {
        s = slots[key & mask]; /* an index beyond the table lands on a slot whose id cannot match */
        return ecs_instance_make(s.id == key ? s.first : ECS_INSTANCE_NIL);
    }
    if (kind == ECS_LOOKUP_DIRECT) {
        /* as dense; key != 0: the nil entity never matches an empty slot */
        uint32_t idx = key & ECS_INDEX_MASK & slot_mask; /* below 4 index bits the 16 slots outnumber the indices */
        return ecs_instance_make(entity[idx].id == key && key != 0 ? idx : ECS_INSTANCE_NIL);
    }
    return ecs_instance_make(ecs_entity_map_find_hash(&m->map, key));
}
static inline ecs_instance ecs_manager_slot(const ecs_manager *m, ecs_entity e)
{
    uint32_t idx = e.id & ECS_INDEX_MASK;
    ECS_ASSERT_MSG(m->lookup == ECS_LOOKUP_DIRECT, "name_slot: the manager is not of the direct kind (use name_lookup)");
    ECS_ASSERT_MSG(m->flags & ECS__MANAGER_READY, "name_slot: the manager's init failed, it has no slots to read");
    /* idx != 0: nil's key (0) equals the id an empty slot 0 stores */
    ECS_ASSERT_MSG(idx != 0, "name_slot: the nil entity has no slot");
    /* idx < capacity: false for a manager whose init failed (no slots) */
    ECS_ASSERT_MSG(idx < m->capacity && m->entity[idx].id == ecs_entity_key(e),
                   "name_slot: the entity does not own the slot of its index: it is dead (destroyed), stale, or never given an instance here; name_lookup answers nil for such ids");
    return ecs_instance_make(idx & m->slot_mask);
}

/** Moves every field of instance `from` over instance `to` (the typed
    managers generate one with typed copies; the core's default copies bytes
    field by field). */
typedef void (*ecs_fields_move_fn)(ecs_manager *m, uint32_t from, uint32_t to);
/* The destroying calls with a mover, for ECS_MANAGER_DEFINE's wrappers (the
   ecs_manager_* versions use the default mover). */
ECS_DEF int ecs_manager__destroy_moving(ecs_manager *m, ecs_instance i, ecs_fields_move_fn move);
ECS_DEF uint32_t ecs_manager__destroy_entity_moving(ecs_manager *m, ecs_entity e, ecs_fields_move_fn move);
ECS_DEF uint32_t ecs_manager__gc_moving(ecs_manager *m, const ecs_entity_manager *em, ecs_fields_move_fn move);
ECS_DEF uint32_t ecs_manager__gc_all_moving(ecs_manager *m, const ecs_entity_manager *em, ecs_fields_move_fn move);
ECS_DEF uint32_t ecs_manager__collect_moving(ecs_manager *m, const ecs_entity_manager *em, ecs_fields_move_fn move);

/* The bookkeeping half of removing e's instance from a dense manager whose
   entities own one instance each (no next links): the map, the entity array
   and count. Returns -1 when that case does not apply (the caller takes the
   general path; also for grouped managers), 0 when e owns nothing, 1 when it
   removed e's instance: the
   caller then moves every field of instance *from into *to (swap-erase;
   nothing to move when they are equal). Inline: the typed wrappers move the
   fields with typed copies. */
static inline int ecs_manager__unlink_dense(ecs_manager *m, ecs_entity e, uint32_t *from, uint32_t *to)
{
    uint32_t key = ecs_entity_key(e), i, last;
    ecs_entity_map_slot *s = m->map.slots;
    if (m->lookup != ECS_LOOKUP_DENSE || m->next || m->group) return -1;
    /* an index past the table lands on a slot whose id cannot match; key 0
       would match slot 0 */
    if (s[key & m->map.mask].id != key || key == 0) return 0;
    i = s[key & m->map.mask].first;
    s[key & m->map.mask].id = 0;
    --m->map.count;
    last = --m->count;
    --m->num_instances;
    *from = last;
    *to = i;
    if (i != last) {
        uint32_t moved = m->entity[last].id;
        s[moved & m->map.mask].first = i;
        m->entity[i].id = moved;
    }
    return 1;
}

/* ---- typed managers ------------------------------------------------------ */

#if defined(__cplusplus) && __cplusplus >= 201103L
#define ECS__ALIGNOF(type) alignof(type)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define ECS__ALIGNOF(type) _Alignof(type)
#else
#define ECS__ALIGNOF(type) offsetof(struct { char c; type t; }, t)
#endif

#define ECS__FIELD_MEMBER(type, name) type *name;
#define ECS__FIELD_DESC(type, name) {#name, (uint32_t)sizeof(type), (uint32_t)ECS__ALIGNOF(type)},
#define ECS__FIELD_COUNT(type, name) +1
#define ECS__FIELD_ONE_POINTER(type, name) +sizeof(type *)
#define ECS__FIELD_ZERO(type, name) memset(&m->name[i.i], 0, sizeof(type));
#define ECS__FIELD_MOVE(type, name) m->name[to] = m->name[from];
#define ECS__FIELD_VIEW_AT(type, name) v->name = (type *)*f_++ + i;
#define ECS__FIELD_VIEW_NULL(type, name) v->name = NULL;
#define ECS__FIELD_SIZE_CHECK(type, name) ok_ &= (uint32_t)(k_ < m->num_fields && m->fields[k_].size == sizeof(type)), ++k_;

/* A typed manager's view: name_view (entity and each field as typed
   pointers), name_view_at (points them at instance i of m, NULL for nil)
   and name_layout_matches (whether m's fields have the list's sizes).
   ECS_WORLD_SYSTEM_DEFINE hands a system one view per term. */
#define ECS__MANAGER_VIEWS(name, LIST, MEMBER, AT, NULLED, CHECK)                                           \
    typedef struct name##_view {                                                                            \
        ecs_entity *entity;                                                                                 \
        LIST(MEMBER)                                                                                        \
    } name##_view;                                                                                          \
    ECS__UNUSED static inline void name##_view_at(name##_view *v, const ecs_manager *m, uint32_t i)         \
    {                                                                                                       \
        void *const *f_ = m->field;                                                                         \
        (void)f_;                                                                                           \
        if (i == ECS_INSTANCE_NIL) {                                                                        \
            v->entity = NULL;                                                                               \
            LIST(NULLED)                                                                                    \
            return;                                                                                         \
        }                                                                                                   \
        v->entity = m->entity + i;                                                                          \
        LIST(AT)                                                                                            \
    }                                                                                                       \
    ECS__UNUSED static inline uint32_t name##_layout_matches(const ecs_manager *m)                          \
    {                                                                                                       \
        uint32_t k_ = 0, ok_ = 1;                                                                           \
        LIST(CHECK)                                                                                         \
        return ok_ && k_ == m->num_fields;                                                                  \
    }

/** Declares struct `name`: the runtime core, then `entity` and one typed
    array per field, which the core keeps current (never stale, whatever
    call moved the arrays: create, reserve, spawn, a plugin). FIELDS is an
    X-macro: #define F(X) X(type, field) ... Used by ECS_MANAGER_DEFINE; on
    its own it lets code that did not create a manager view one (a plugin
    viewing an engine-owned manager made with ecs_manager_init_with_view). */
#define ECS_MANAGER_VIEW_DEFINE(name, FIELDS)                                                               \
    typedef struct name {                                                                                   \
        ecs_manager core;                                                                                   \
        ecs_entity *entity;                                                                                 \
        FIELDS(ECS__FIELD_MEMBER)                                                                           \
    } name;                                                                                                 \
    /* the core writes the pointers right after itself: no padding may sit between */                      \
    typedef char name##_layout_check_[offsetof(name, entity) == sizeof(ecs_manager) &&                      \
                                              sizeof(name) == sizeof(ecs_manager) + sizeof(ecs_entity *)    \
                                                                  FIELDS(ECS__FIELD_ONE_POINTER)            \
                                          ? 1                                                               \
                                          : -1];                                                            \
    ECS__MANAGER_VIEWS(name, FIELDS, ECS__FIELD_MEMBER, ECS__FIELD_VIEW_AT, ECS__FIELD_VIEW_NULL,            \
                       ECS__FIELD_SIZE_CHECK)

/* The wrappers both typed-manager macros generate after their init: LIST is
   the field or schema list, ZERO and MOVE its per-entry zeroing and moving. */
#define ECS__MANAGER_WRAPPERS(name, LIST, ZERO, MOVE)                                                       \
    ECS__UNUSED static inline void name##_free(name *m) { ecs_manager_free(&m->core); }                     \
    ECS__UNUSED static inline ecs_result name##_reserve(name *m, uint32_t n) { return ecs_manager_reserve(&m->core, n); } \
    ECS__UNUSED static inline ecs_instance name##_create(name *m, ecs_entity e)                             \
    {                                                                                                       \
        ecs_instance i = ecs_manager_create_uninitialized(&m->core, e);                                     \
        if (!ecs_instance_is_nil(i)) { LIST(ZERO) }                                                         \
        return i;                                                                                           \
    }                                                                                                       \
    ECS__UNUSED static inline ecs_result name##_create_many(name *m, uint32_t n, const ecs_entity *entities, ecs_instance *first) \
    {                                                                                                       \
        return ecs_manager_create_many(&m->core, n, entities, NULL, first);                                 \
    }                                                                                                       \
    ECS__UNUSED static inline ecs_instance name##_lookup(const name *m, ecs_entity e) { return ecs_manager_lookup(&m->core, e); } \
    ECS__UNUSED static inline void name##_lookup_many(const name *m, uint32_t n, const ecs_entity *entities, ecs_instance *out) \
    {                                                                                                       \
        ecs_manager_lookup_many(&m->core, n, entities, out);                                                \
    }                                                                                                       \
    ECS__UNUSED static inline ecs_instance name##_slot(const name *m, ecs_entity e) { return ecs_manager_slot(&m->core, e); } \
    ECS__UNUSED static inline ecs_instance name##_next(const name *m, ecs_instance i) { return ecs_manager_next(&m->core, i); } \
    ECS__UNUSED static void name##_move_fields_(ecs_manager *core, uint32_t from, uint32_t to)              \
    {                                                                                                       \
        name *m = (name *)(void *)core; /* core is name's first member */                                   \
        LIST(MOVE)                                                                                          \
    }                                                                                                       \
    ECS__UNUSED static inline int name##_destroy(name *m, ecs_instance i)                                   \
    {                                                                                                       \
        return ecs_manager__destroy_moving(&m->core, i, name##_move_fields_);                               \
    }                                                                                                       \
    ECS__UNUSED static inline uint32_t name##_destroy_entity(name *m, ecs_entity e)                         \
    {                                                                                                       \
        uint32_t from, to;                                                                                  \
        int r = ecs_manager__unlink_dense(&m->core, e, &from, &to);                                         \
        if (r < 0) return ecs_manager__destroy_entity_moving(&m->core, e, name##_move_fields_);             \
        if (r > 0 && from != to) { LIST(MOVE) }                                                             \
        return (uint32_t)r;                                                                                 \
    }                                                                                                       \
    ECS__UNUSED static inline uint32_t name##_gc(name *m, const ecs_entity_manager *em)                     \
    {                                                                                                       \
        return ecs_manager__gc_moving(&m->core, em, name##_move_fields_);                                   \
    }                                                                                                       \
    ECS__UNUSED static inline uint32_t name##_gc_all(name *m, const ecs_entity_manager *em)                 \
    {                                                                                                       \
        return ecs_manager__gc_all_moving(&m->core, em, name##_move_fields_);                               \
    }                                                                                                       \
    ECS__UNUSED static inline uint32_t name##_collect(name *m, const ecs_entity_manager *em)                \
    {                                                                                                       \
        return ecs_manager__collect_moving(&m->core, em, name##_move_fields_);                              \
    }                                                                                                       \
    ECS__UNUSED static inline uint32_t name##_count(const name *m) { return m->core.count; }                \
    ECS__UNUSED static inline uint32_t name##_num_instances(const name *m) { return m->core.num_instances; }

/** Defines struct `name` (see ECS_MANAGER_VIEW_DEFINE) and its static inline
    one-line wrappers over the ecs_manager_* functions: name_init(m, lookup),
    name_free, name_reserve, name_create, name_create_many(m, n, entities,
    &first), name_lookup, name_lookup_many, name_slot (direct kind's fast
    read), name_next, name_destroy, name_destroy_entity, name_gc, name_gc_all,
    name_collect, name_count (the loop bound), name_num_instances. */
#define ECS_MANAGER_DEFINE(name, FIELDS)                                                                    \
    ECS_MANAGER_VIEW_DEFINE(name, FIELDS)                                                                   \
    ECS__UNUSED static inline ecs_result name##_init(name *m, ecs_lookup_kind lookup)                       \
    {                                                                                                       \
        static const ecs_field_desc fields[] = {FIELDS(ECS__FIELD_DESC)};                                   \
        return ecs_manager_init_with_view(&m->core, fields, 0 FIELDS(ECS__FIELD_COUNT), lookup);           \
    }                                                                                                       \
    ECS__MANAGER_WRAPPERS(name, FIELDS, ECS__FIELD_ZERO, ECS__FIELD_MOVE)

/* ---- typed managers from a schema ------------------------------------------ */

/** Makes m a manager whose fields are the schema's (sizes and alignments of
    the kinds; the schema is copied: ecs_manager_set_schema). ECS_OK, or
    ECS_ERROR_INVALID_ARGUMENT (a bad schema: see ecs_manager_set_schema) /
    ECS_ERROR_OUT_OF_MEMORY: m then refuses every call, as after a failed
    ecs_manager_init. */
ECS_DEF ecs_result ecs_manager_init_schema(ecs_manager *m, const ecs_schema_field *schema, uint32_t num_fields,
                                   ecs_lookup_kind lookup);
/** ecs_manager_init_schema for a manager followed by typed pointers (`entity`,
    then one per field, of the kinds' C types): what ECS_MANAGER_DEFINE_SCHEMA
    declares, or what a plugin views an engine-owned manager as. */
ECS_DEF ecs_result ecs_manager_init_schema_with_view(ecs_manager *m, const ecs_schema_field *schema, uint32_t num_fields,
                                             ecs_lookup_kind lookup);
/** Attaches a copy of schema to an initialised manager (replacing any
    earlier one): one entry per field, in field order, with the field's name
    and a kind whose size is the field's size. The generic spawn then reads
    the schema's records (runtime fields zero-filled, entity references
    resolved). ECS_OK; ECS_ERROR_INVALID_ARGUMENT (count, name, size or kind
    does not match, an empty or repeated name, the name "type"; m->error
    says which field), ECS_ERROR_OUT_OF_MEMORY; m is unchanged then. */
ECS_DEF ecs_result ecs_manager_set_schema(ecs_manager *m, const ecs_schema_field *schema, uint32_t num_fields);
/** m's schema, or NULL when it has none. */
static inline const ecs_schema *ecs_manager_schema(const ecs_manager *m) { return m->schema; }
/** Bytes of one value of kind (the C type's size); 0 for an unknown kind. */
ECS_DEF uint32_t ecs_field_kind_size(ecs_field_kind kind);
/** The kind's name as an X-list writes it ("f32", "vec3", "path", ...), or "?". */
ECS_DEF const char *ecs_field_kind_name(ecs_field_kind kind);

/* The kinds' C types and enum values by the names an X-list uses. */
#define ECS__SCHEMA_TYPE_f32 float
#define ECS__SCHEMA_TYPE_f64 double
#define ECS__SCHEMA_TYPE_i32 int32_t
#define ECS__SCHEMA_TYPE_u32 uint32_t
#define ECS__SCHEMA_TYPE_u64 uint64_t
#define ECS__SCHEMA_TYPE_bool uint8_t
#define ECS__SCHEMA_TYPE_vec2 ecs_vec2
#define ECS__SCHEMA_TYPE_vec3 ecs_vec3
#define ECS__SCHEMA_TYPE_vec4 ecs_vec4
#define ECS__SCHEMA_TYPE_quat ecs_quat
#define ECS__SCHEMA_TYPE_mat4 ecs_mat4
#define ECS__SCHEMA_TYPE_path uint64_t
#define ECS__SCHEMA_TYPE_entity ecs_entity
#define ECS__SCHEMA_TYPE_i8 int8_t
#define ECS__SCHEMA_TYPE_u8 uint8_t
#define ECS__SCHEMA_TYPE_i16 int16_t
#define ECS__SCHEMA_TYPE_u16 uint16_t
#define ECS__SCHEMA_KIND_f32 ECS_FIELD_F32
#define ECS__SCHEMA_KIND_f64 ECS_FIELD_F64
#define ECS__SCHEMA_KIND_i32 ECS_FIELD_I32
#define ECS__SCHEMA_KIND_u32 ECS_FIELD_U32
#define ECS__SCHEMA_KIND_u64 ECS_FIELD_U64
#define ECS__SCHEMA_KIND_bool ECS_FIELD_BOOL
#define ECS__SCHEMA_KIND_vec2 ECS_FIELD_VEC2
#define ECS__SCHEMA_KIND_vec3 ECS_FIELD_VEC3
#define ECS__SCHEMA_KIND_vec4 ECS_FIELD_VEC4
#define ECS__SCHEMA_KIND_quat ECS_FIELD_QUAT
#define ECS__SCHEMA_KIND_mat4 ECS_FIELD_MAT4
#define ECS__SCHEMA_KIND_path ECS_FIELD_PATH
#define ECS__SCHEMA_KIND_entity ECS_FIELD_ENTITY
#define ECS__SCHEMA_KIND_i8 ECS_FIELD_I8
#define ECS__SCHEMA_KIND_u8 ECS_FIELD_U8
#define ECS__SCHEMA_KIND_i16 ECS_FIELD_I16
#define ECS__SCHEMA_KIND_u16 ECS_FIELD_U16

/* The kind argument is only ever pasted, so a kind named like a macro
   (bool under <stdbool.h>) is not expanded first. */
#define ECS__SCHEMA_MEMBER(kind, name, spec) ECS__SCHEMA_TYPE_##kind *name;
#define ECS__SCHEMA_ONE_POINTER(kind, name, spec) +sizeof(void *)
/** Turns an X-list entry X(kind, field, spec) into an ecs_schema_field
    initializer (with its comma): static const ecs_schema_field
    table[] = {MY_SCHEMA(ECS_SCHEMA_FIELD)}; */
#define ECS_SCHEMA_FIELD(kind, name, spec) {#name, ECS__SCHEMA_KIND_##kind, spec},
#define ECS__SCHEMA_COUNT(kind, name, spec) +1
#define ECS__SCHEMA_ZERO(kind, name, spec) memset(&m->name[i.i], 0, sizeof *m->name);
#define ECS__SCHEMA_MOVE(kind, name, spec) m->name[to] = m->name[from];
#define ECS__SCHEMA_VIEW_AT(kind, name, spec) v->name = (ECS__SCHEMA_TYPE_##kind *)*f_++ + i;
#define ECS__SCHEMA_VIEW_NULL(kind, name, spec) v->name = NULL;
#define ECS__SCHEMA_SIZE_CHECK(kind, name, spec)                                                            \
    ok_ &= (uint32_t)(k_ < m->num_fields && m->fields[k_].size == sizeof(ECS__SCHEMA_TYPE_##kind)), ++k_;

/** Declares struct `name` like ECS_MANAGER_VIEW_DEFINE, from a schema list:
    SCHEMA is an X-macro whose entries are X(kind, field, spec), kind one of
    f32 f64 i8 u8 i16 u16 i32 u32 u64 bool vec2 vec3 vec4 quat mat4 path
    entity (the C types of ecs_field_kind), spec as in ecs_schema_field. A plugin uses it to view
    an engine-owned manager defined with the same list. Also declares
    name_schema(&n): the schema table (static, n entries). */
#define ECS_MANAGER_VIEW_DEFINE_SCHEMA(name, SCHEMA)                                                        \
    typedef struct name {                                                                                   \
        ecs_manager core;                                                                                   \
        ecs_entity *entity;                                                                                 \
        SCHEMA(ECS__SCHEMA_MEMBER)                                                                          \
    } name;                                                                                                 \
    typedef char name##_layout_check_[offsetof(name, entity) == sizeof(ecs_manager) &&                      \
                                              sizeof(name) == sizeof(ecs_manager) + sizeof(ecs_entity *)    \
                                                                  SCHEMA(ECS__SCHEMA_ONE_POINTER)           \
                                          ? 1                                                               \
                                          : -1];                                                            \
    ECS__MANAGER_VIEWS(name, SCHEMA, ECS__SCHEMA_MEMBER, ECS__SCHEMA_VIEW_AT, ECS__SCHEMA_VIEW_NULL,         \
                       ECS__SCHEMA_SIZE_CHECK)                                                              \
    ECS__UNUSED static inline const ecs_schema_field *name##_schema(uint32_t *num_fields)                   \
    {                                                                                                       \
        static const ecs_schema_field table_[] = {SCHEMA(ECS_SCHEMA_FIELD)};                               \
        *num_fields = 0 SCHEMA(ECS__SCHEMA_COUNT);                                                          \
        return table_;                                                                                      \
    }

/** ECS_MANAGER_DEFINE from a schema list (see ECS_MANAGER_VIEW_DEFINE_SCHEMA):
    the same struct and wrappers, and name_init gives the manager its schema,
    so ecs_manager_spawn reads the schema's records and ecs_resource.h can
    compile and decompile them (ecs_compiler_register_schema with
    name_schema). Example:
        #define SPIN_SCHEMA(X)                  \
            X(vec3, axis, "[0, 1, 0]")          \
            X(f32, speed, "1")                  \
            X(entity, target, "null")           \
            X(f32, angle, ECS_FIELD_RUNTIME)
        ECS_MANAGER_DEFINE_SCHEMA(spin_manager, SPIN_SCHEMA)
    gives spin_manager with ecs_vec3 *axis, float *speed, ecs_entity *target
    and float *angle. */
#define ECS_MANAGER_DEFINE_SCHEMA(name, SCHEMA)                                                             \
    ECS_MANAGER_VIEW_DEFINE_SCHEMA(name, SCHEMA)                                                            \
    ECS__UNUSED static inline ecs_result name##_init(name *m, ecs_lookup_kind lookup)                       \
    {                                                                                                       \
        uint32_t n_;                                                                                        \
        const ecs_schema_field *table_ = name##_schema(&n_);                                                \
        return ecs_manager_init_schema_with_view(&m->core, table_, n_, lookup);                             \
    }                                                                                                       \
    ECS__MANAGER_WRAPPERS(name, SCHEMA, ECS__SCHEMA_ZERO, ECS__SCHEMA_MOVE)

/* ---- lazy collection for component headers with arrays of their own ------- */

/** Destroys instance i of `owner` (swap-erase or similar); returns 1 if it did. */
typedef int (*ecs_destroy_instance_fn)(void *owner, uint32_t i);
/** The seed's gc loop over any manager: picks random i < *count, destroys it
    when (*entity)[i] is dead, stops after 4 alive in a row. Re-reads *count
    and *entity after each destroy. Returns how many it destroyed. */
ECS_DEF uint32_t ecs_gc_random(uint32_t *rng, const ecs_entity_manager *em, const uint32_t *count,
                       ecs_entity *const *entity, ecs_destroy_instance_fn destroy, void *owner);

/* ---- the seam between resources and components --------------------------
   ecs_resource.h calls spawn functions with this context; component headers
   (ecs_transform.h, yours) provide them without including ecs_resource.h. */

#define ECS_SPAWN_ROOT 0xFFFFFFFFu

/** What a spawn function sees of the resource being spawned. */
typedef struct ecs_spawn_context {
    ecs_entity_manager *entities;    /* the manager the entities live in */
    const ecs_entity *entity;        /* entity[k]: the entity made for resource entity k */
    const uint32_t *parent_index;    /* parent of resource entity k, or ECS_SPAWN_ROOT (no cycle) */
    uint32_t num_entities;
    ecs_error *error;                /* where a failing spawn function explains why */
} ecs_spawn_context;

/** Creates num_instances instances: instance j belongs to
    ctx->entity[entity_index[j]] and its bytes are in data (size bytes in all).
    Returns ECS_OK, or an error (ctx->error set) after undoing its own work. */
typedef ecs_result (*ecs_spawn_fn)(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                                   const uint32_t *entity_index, const void *data, uint32_t size);
/** Undoes a successful spawn function call with the same arguments (used when
    a later block of the same resource fails: spawning is all or nothing). */
typedef void (*ecs_unspawn_fn)(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                               const uint32_t *entity_index, const void *data, uint32_t size);

/** A resource's entity index as the spawned entity: ctx->entity[index] for
    index < ctx->num_entities, the nil entity for ECS_SPAWN_ROOT (a null
    reference) and for anything out of range. For spawn functions that read
    ECS_FIELD_ENTITY values (ecs_compiler_write_entity) themselves. */
static inline ecs_entity ecs_spawn_resolve(const ecs_spawn_context *ctx, uint32_t index)
{
    ecs_entity nil;
    nil.id = 0;
    return index < ctx->num_entities ? ctx->entity[index] : nil;
}

/** A generic ecs_spawn_fn for any manager (user = the ecs_manager*): data
    holds num_instances packed records of ecs_manager_record_size bytes,
    copied into the field arrays (a typed manager's pointers follow). Without
    a schema a record is every field; with one (ecs_manager_set_schema) it is
    the schema's record (schema->record_size): runtime fields are zero-filled and
    entity references become the spawned entities of this copy, and a
    reference past the resource's entities fails the call
    (ECS_ERROR_CORRUPT_RESOURCE) before anything is created. Checks size ==
    num_instances * record size. For a typed manager pass &m->core. */
ECS_DEF ecs_result ecs_manager_spawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                             const uint32_t *entity_index, const void *data, uint32_t size);
/** Undoes ecs_manager_spawn: destroys the instances of the listed entities. */
ECS_DEF void ecs_manager_unspawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                         const uint32_t *entity_index, const void *data, uint32_t size);

/* ---- the job interface: every core, on your own task system ---------------
   The headers start no threads. Calls that can use several cores take an
   ecs_jobs that you fill in (a parallel-for onto your task system, or
   examples/jobs_pthreads.h); NULL or num_workers <= 1 runs serially on the
   calling thread. Results are bit-identical whatever the number of workers:
   work is split into ranges that do not depend on it, and every element is
   computed by the same operations in the same order. */

/** One task of a parallel-for: does task k of the call's work. */
typedef void (*ecs_task_fn)(void *user, uint32_t k);
/** Runs task(user, k) for every k < num_tasks, possibly several at once, and
    returns when every task it started has finished. ECS_OK when it ran them
    all; any error when it could not start some: the library then runs every
    task that did not run on the calling thread (it marks each task done), so
    the result is the serial call's. */
typedef ecs_result (*ecs_parallel_for_fn)(void *context, uint32_t num_tasks, ecs_task_fn task, void *user);
/** Your task system, as the headers see it. Zero-initialised: serial. */
typedef struct ecs_jobs {
    ecs_parallel_for_fn parallel_for; /* NULL: serial */
    void *context;                    /* your pool, handed to parallel_for */
    uint32_t num_workers;             /* threads that run tasks at once (0, 1: serial) */
} ecs_jobs;
/** Most tasks one parallel call hands to parallel_for (the done marks live on
    the caller's stack: no allocation per frame). */
#define ECS_JOBS_MAX_TASKS 256u
/** Runs task(user, k) for k < num_tasks through jobs (serially when jobs is
    NULL or has one worker), then runs on the calling thread every task the
    job system did not run. num_tasks <= ECS_JOBS_MAX_TASKS. Returns ECS_OK;
    the job system's error is reported in *job_error when non-NULL (the work
    is done either way). */
ECS_DEF void ecs_jobs_run(const ecs_jobs *jobs, uint32_t num_tasks, ecs_task_fn task, void *user,
                          ecs_result *job_error);

/* ---- groups: managers kept co-sorted ---------------------------------------
   A group owns two or more dense- or hash-kind managers and keeps them
   sorted so that the entities owning an instance in every member are
   instances 0..size-1 of each member, in the same order: a loop over the
   group is a loop over plain arrays (EnTT's owning group). Kept up by every
   call that adds or removes instances (create, create_many, destroy,
   destroy_entity, gc, gc_all, collect, spawn, a plugin's calls). A member
   holds at most one instance per entity while grouped (a second create is
   ECS_ERROR_ALREADY_EXISTS). Groups nest (EnTT's nested groups): a manager
   may be in several groups as long as, of any two groups sharing a member,
   one holds every member of the other. A member's instances are then
   ordered [the group with the most members | the next one out only | ... |
   the group with the fewest members only | the rest], so every group's
   entities are a prefix of each of its members. */
#define ECS_GROUP_MAX_MEMBERS 8u
typedef struct ecs_group {
    ecs_manager *member[ECS_GROUP_MAX_MEMBERS];
    uint32_t num_members;
    uint32_t size;            /* entities owning every member: instances 0..size-1 */
    ecs_error error;          /* ecs_group_sort's last failure (init's go to its err only) */
    struct ecs_group *next;   /* the smallest group holding every member of this one (more members,
                                 a prefix inside this one's), or NULL: a member's chain of groups is
                                 member->group, ->next, ... */
} ecs_group;
/** Groups members[0..n-1] (2 <= n <= ECS_GROUP_MAX_MEMBERS; dense or hash
    kind, initialised, at most one instance per entity; any group a member
    is in already must nest with this one) and sorts their current
    instances. ECS_OK, or an error (err set; the message names the member
    and the problem) and nothing changed: n out of range
    (ECS_ERROR_INVALID_ARGUMENT), a member NULL, not initialised, of the
    direct kind, listed twice, with an entity owning two instances, or in a
    group that does not nest with this one (INVALID_ARGUMENT), a group of
    the same members (ALREADY_EXISTS). Needs no
    memory. g must stay at its address until ecs_group_free. While grouped,
    an instance index changes on any create or destroy of any member (look
    up again); ecs_manager_move is refused. Not thread-safe: a call on one
    member writes every member. */
ECS_DEF ecs_result ecs_group_init(ecs_group *g, ecs_manager *const *members, uint32_t n, ecs_error *err);
/** Orders the instances of every manager connected to g through groups
    (g's nest: ecs_group_top) by entity index inside each group's region
    (the innermost group's prefix, then each next group's part, then the
    rest): the groups keep their entities, only the order inside a region
    changes. For after a level load: an entity joining a group takes the
    place of another, which moves, so regions drift from creation order
    (and two worlds built in different orders walk in different orders);
    sorted, systems walk entities in the order of their indices, as an
    archetype table filled in that order keeps them.
    ECS_OK; ECS_ERROR_INVALID_ARGUMENT (g NULL or freed) or
    ECS_ERROR_OUT_OF_MEMORY (a scratch of 16 bytes per instance of the
    largest member), err set and nothing changed. Instance indices change
    (look up again). Not while a system or query walk runs. */
ECS_DEF ecs_result ecs_group_sort(ecs_group *g, ecs_error *err);
/** The innermost group of m's chain (the one with the most members), or
    NULL (m NULL or in no group): managers connected through groups (sharing
    one, or nested) have the same one, and a call on one may move the
    instances of all of them, so they belong on one thread together
    (ecs_world_collect, ecs_spawner_spawn_jobs). */
static inline const ecs_group *ecs_group_top(const ecs_manager *m)
{
    const ecs_group *g = m ? m->group : NULL;
    while (g && g->next) g = g->next;
    return g;
}
/** Releases the members from g (their order stays as it is; their other
    groups stay); g may then be initialised again or go away. Freeing a
    member frees its groups too. */
ECS_DEF void ecs_group_free(ecs_group *g);

/* ---- the world: every store registered once ------------------------------
   An ecs_world holds an entity manager (`entities`) and the component stores
   that belong to it, each registered once by name. ecs_manager-based stores
   (typed, runtime, schema) register directly; any other store (the
   transform manager: ecs_transform_world_register) registers through an
   ecs_store_interface. The seed's rule stays: stores own their data and
   layout; the world keeps no per-entity component list and asks them. */

#define ECS_WORLD_MAX_TERMS 8u          /* components one query names */
#define ECS_WORLD_QUERY_RUNS 8u         /* runs a direct query remembers (ecs_world_query_refresh) */
#define ECS_WORLD_CHUNK 256u            /* most matches in a gathered chunk, and in any chunk of a query
                                           with optional terms (a contiguous chunk of a direct query
                                           without them holds a whole run: no buffer is involved) */
#define ECS_WORLD_NO_COMPONENT 0xFFFFFFFFu
#define ECS_WORLD_MASKED_CHUNK 4096u    /* slots in a masked chunk (a system's walk on the direct path) */

/** How the world reaches a store that is not an ecs_manager. Every function
    takes the `store` pointer given at registration. Required: lookup, next
    (may return nil always), count, entity_at, destroy_entity, collect. The
    rest may be NULL (the operation is then refused for that store, with an
    error naming it). */
/** The type of ecs_store_interface's entity_at (a typedef, so that no
    parenthesis follows the type's name: flecs defines a function-like
    macro of that name, and a file may include both). */
typedef ecs_entity ecs_store_entity_at_fn(const void *store, uint32_t i);
/** The type of ecs_store_interface's parent_of (a typedef for the same reason). */
typedef ecs_entity ecs_store_parent_of_fn(const void *store, ecs_entity e);
/** The type of the function ecs_store_interface's visit_state calls with
    each span of the store's state (bytes, n of them; n may be 0). */
typedef void ecs_state_visit_fn(void *ctx, const void *bytes, size_t n);
typedef struct ecs_store_interface {
    ecs_instance (*lookup)(const void *store, ecs_entity e);            /* e's first instance or nil */
    ecs_instance (*next)(const void *store, ecs_instance i);            /* same entity's next or nil */
    uint32_t (*count)(const void *store);                               /* loop bound over instances */
    ecs_store_entity_at_fn *entity_at;                                  /* owner of i, nil for a hole */
    uint32_t (*destroy_entity)(void *store, ecs_entity e);              /* now; returns how many */
    uint32_t (*collect)(void *store, const ecs_entity_manager *em);     /* exact collection */
    /* hierarchies: e and its descendants, e first, depth-first; writes at
       most cap ids to out and returns how many there are (0: e has none) */
    uint32_t (*subtree)(const void *store, ecs_entity e, ecs_entity *out, uint32_t cap);
    /* resources: the spawn functions for this store's records */
    ecs_spawn_fn spawn;
    ecs_unspawn_fn unspawn;
    /* snapshots (ecs_snapshot.h) and clone: the store's whole state as bytes
       in this machine's byte order; with out == NULL returns the size,
       otherwise writes it (cap >= size) and returns it */
    size_t (*save)(const void *store, void *out, size_t cap);
    /* restores save's bytes into the store, which is empty: checks them
       (err names the offset and what is wrong) and changes nothing on
       failure; a store with verify (below) may leave the checks verify
       makes to it: the snapshot calls give load only bytes verify passed */
    ecs_result (*load)(void *store, const void *data, size_t size, ecs_error *err);
    /* empties the store (keeps its settings) */
    void (*clear)(void *store);
    uint32_t save_version;  /* version of save's bytes */
    /* prefabs (ecs_resource_save_subtree), optional: e's parent in this
       hierarchy (nil for a root or an entity the store lacks) */
    ecs_store_parent_of_fn *parent_of;
    /* e's resource record (what spawn reads for one instance) as 32-bit
       words in this machine's byte order: returns its size (0: e has no
       instance) and writes it to out when cap >= size; with
       as_root 1 the record places e where it stands with no parent (the
       transform: its world matrix instead of its local one) */
    uint32_t (*spawn_record)(const void *store, ecs_entity e, int as_root, void *out, uint32_t cap);
    /* clone, optional (else save then load): makes dst, a store of the
       same type and settings, hold src's whole state as save and load
       would; refuses other settings; changes nothing on failure */
    ecs_result (*copy)(void *dst, const void *src, ecs_error *err);
    /* snapshots of a selection (ecs_snapshot_desc's root), optional: save's
       bytes for the instances of the selected entities only, as if the
       others had none (keep[index] is the selected entity's id, or 0;
       keep has num_indices entries); a hierarchy makes a node whose parent
       is not selected a root standing where it stood. With out == NULL
       returns the size; otherwise writes it (cap >= size) and returns it,
       or 0 when it runs out of scratch memory */
    size_t (*save_selected)(const void *store, const uint32_t *keep, uint32_t num_indices, void *out, size_t cap);
    /* snapshots, optional (ecs_snapshot_verify_for, ecs_snapshot_load):
       checks save's bytes completely, so that load accepts whatever passes
       (but for memory, and an empty store); every entity id's index at
       most max_index (the entity manager's highest index handed out); a
       message names offset + the byte's place in data, and the field
       (ECS_ERROR_CORRUPT_RESOURCE). With store (else NULL) also whether
       that store's settings take them (ECS_ERROR_INVALID_ARGUMENT). Only
       reads. */
    ecs_result (*verify)(const void *store, const void *data, size_t size, uint32_t max_index, size_t offset,
                         ecs_error *err);
    /* the world hash (ecs_snapshot_world_hash) and deltas from a world
       (ecs_snapshot_delta_from_world), optional (else save's bytes are
       read from a copy): calls visit(ctx, bytes, n) for spans that joined
       are exactly the bytes save writes, in its order, reading them in
       place where it can (a visit that gives another byte count than save
       is noticed and the store is read from a copy instead) */
    void (*visit_state)(const void *store, ecs_state_visit_fn *visit, void *ctx);
    /* worlds, optional: called with the world's entity manager when the
       store is registered, and with NULL when it leaves the world (removed,
       or the world freed); a store keeps it to refuse instances for
       entities not alive in its world, as a registered manager does */
    void (*attach)(void *store, const ecs_entity_manager *em);
} ecs_store_interface;

/** Whether save_selected's keep (num_indices entries) selects the entity
    with key id (ecs_entity_key): its index is in range and holds that id. */
static inline int ecs_entity_selected(const uint32_t *keep, uint32_t num_indices, uint32_t id)
{
    uint32_t idx = id & ECS_INDEX_MASK;
    return idx < num_indices && id != 0 && keep[idx] == id;
}

/** One registered store (read-only). */
typedef struct ecs_world_component {
    char *name;                         /* the world's copy */
    uint32_t identifier;                /* FNV-1a 32 of name: the resource format's component identifier */
    ecs_manager *manager;               /* an ecs_manager-based store, else NULL */
    void *store;                        /* the store (== manager for managers) */
    const ecs_store_interface *iface;   /* NULL for managers */
    uint32_t owned;                     /* 1: the world created it and frees it */
    ecs_group *group;                   /* the outermost group holding it (manager->group), or NULL */
} ecs_world_component;

/** An entity manager and its stores. Zero-initialised is NOT valid: call
    ecs_world_init. Members are read-only except `entities`, which you use
    with the ecs_entity_* calls (create, destroy, alive). */
typedef struct ecs_world {
    ecs_entity_manager entities;
    ecs_world_component *component;     /* num_components registrations, by index */
    uint32_t num_components, components_capacity;
    ecs_group **groups;                 /* groups the world made */
    uint32_t num_groups, groups_capacity;
    uint32_t epoch;                     /* bumps when a store is removed: stale queries fail */
    ecs_error error;                    /* the last failure */
    struct ecs_world_system *systems;   /* registered systems, in running order */
    uint32_t num_systems, systems_capacity;
} ecs_world;
/* ecs__manager_entities reads a manager's world as its entity manager. */
typedef char ecs__world_entities_come_first[offsetof(ecs_world, entities) == 0 ? 1 : -1];

ECS_DEF ecs_result ecs_world_init(ecs_world *w);
/** Frees the world's tables, its groups, the stores it created
    (ecs_world_define*) and its entity manager; stores you registered are
    yours to free (after this call). */
ECS_DEF void ecs_world_free(ecs_world *w);

/** Registers m (initialised, in no other world) under name; m stays yours
    (free it after ecs_world_free). ECS_OK (the component's index:
    ecs_world_find), or an error naming it, nothing changed (err and
    w->error set): name empty or taken, identifier collision, m NULL, m
    already in a world, out of memory, m's init failed (the message carries
    m's own reason). Every registration call returns an ecs_result; the
    defines return the manager they made (NULL on failure). */
ECS_DEF ecs_result ecs_world_add_manager(ecs_world *w, const char *name, ecs_manager *m, ecs_error *err);
/** Creates, registers and owns a runtime manager (ecs_manager_init). */
ECS_DEF ecs_manager *ecs_world_define(ecs_world *w, const char *name, const ecs_field_desc *fields,
                                      uint32_t num_fields, ecs_lookup_kind lookup, ecs_error *err);
/** The same from a schema (ecs_manager_init_schema): the one way to make a
    schema manager the world, the spawner and the compiler all know. */
ECS_DEF ecs_manager *ecs_world_define_schema(ecs_world *w, const char *name, const ecs_schema_field *schema,
                                             uint32_t num_fields, ecs_lookup_kind lookup, ecs_error *err);
/** Registers any other store through its interface (the interface struct
    must outlive the registration). ECS_OK, or an error as
    ecs_world_add_manager's (and INVALID_ARGUMENT for a store or interface
    missing a required function). */
ECS_DEF ecs_result ecs_world_add_store(ecs_world *w, const char *name, void *store, const ecs_store_interface *iface,
                                       ecs_error *err);
/** Unregisters a component (frees it when the world owns it) and frees the
    groups the world made (ecs_world_group) that hold it; a group you made
    with ecs_group_init stays yours to free (a member the world frees
    leaves it dissolved, as ecs_manager_free does). Queries made
    before fail from then on. ECS_OK or ECS_ERROR_NOT_FOUND. */
ECS_DEF ecs_result ecs_world_remove(ecs_world *w, const char *name, ecs_error *err);
/** The index of the component registered as name, or ECS_WORLD_NO_COMPONENT. */
ECS_DEF uint32_t ecs_world_find(const ecs_world *w, const char *name);
/** The manager registered as name, or NULL (not found, or not a manager). */
ECS_DEF ecs_manager *ecs_world_manager(const ecs_world *w, const char *name);
/** Groups the named managers (see ecs_group). ECS_OK or an error naming the
    manager that cannot be grouped; nothing changed then. */
ECS_DEF ecs_result ecs_world_group(ecs_world *w, const char *const *names, uint32_t n, ecs_error *err);

/* ---- queries: systems over several components -----------------------------
   A query names the components a match must have (required) and those it
   may have (optional: ECS_INSTANCE_NIL when absent), and yields the matches
   in chunks (of at most ECS_WORLD_CHUNK, but see there). The world picks the path from the
   stores: all required stores direct kind (lockstep by entity index), all
   required stores in one group (its prefix, then the remainder when the
   group has more members), a group of required stores only (its prefix,
   the others looked up), else the smallest required store drives and the
   others are looked up in batches (QUERIES in the doc block). */

typedef struct ecs_world_query_desc {
    const char *required[ECS_WORLD_MAX_TERMS + 1]; /* NULL-terminated names */
    const char *optional[ECS_WORLD_MAX_TERMS + 1]; /* NULL-terminated names */
} ecs_world_query_desc;

typedef enum ecs_world_query_path {
    ECS_WORLD_QUERY_DIRECT = 0,     /* every required store direct: runs of slots */
    ECS_WORLD_QUERY_GROUP = 1,      /* every required store in one group: its prefix (contiguous in every
                                       term), then, when the group has more members, the remainder */
    ECS_WORLD_QUERY_LOOKUP = 2,     /* the driver's instances, the others looked up */
    ECS_WORLD_QUERY_GROUP_PART = 3  /* a group of required stores only: its prefix, the other terms looked up */
} ecs_world_query_path;

/** A prepared query (make it once, iterate it every frame). Terms are the
    required names in order, then the optional ones. */
typedef struct ecs_world_query {
    ecs_world *world;
    uint32_t num_terms, num_required;
    uint32_t term[ECS_WORLD_MAX_TERMS];  /* component index of each term */
    ecs_world_query_path path;
    uint32_t driver;                     /* the term whose instances drive the loop */
    const struct ecs_group *group;       /* the group paths' group, else NULL */
    uint32_t group_terms;                /* bit t: term t is one of the group's members */
    uint32_t group_term;                 /* the first required term in the group */
    uint32_t epoch;                      /* world->epoch when made */
    /* the direct path's remembered runs (ecs_world_query_refresh): slots
       run_begin[r] .. run_end[r] - 1 match, as long as every required
       store's version is still run_version[t] (scanned 0: never refreshed) */
    uint32_t scanned, num_runs;
    uint32_t run_begin[ECS_WORLD_QUERY_RUNS], run_end[ECS_WORLD_QUERY_RUNS];
    uint32_t run_version[ECS_WORLD_MAX_TERMS];
} ecs_world_query;

/** One chunk of matches. Match k's instance in term t is
    ecs_world_chunk_instance(c, t, k): first[t] + k where index[t] is NULL
    (a contiguous run: loop over the field arrays from first[t]), else
    index[t][k] (ECS_INSTANCE_NIL for an optional term the entity lacks). */
typedef struct ecs_world_chunk {
    uint32_t count;
    const ecs_entity *entity;                    /* the count matched entities */
    uint32_t first[ECS_WORLD_MAX_TERMS];
    const uint32_t *index[ECS_WORLD_MAX_TERMS];
    /* NULL, except in a masked walk (a system's on the direct path): then
       the chunk is count slots from first[t] in every term (index NULL),
       entity[k] the slot's owner in the first term, and slot k is a match
       exactly when bit k of mask[k / 64] is set */
    const uint64_t *mask;
} ecs_world_chunk;

static inline uint32_t ecs_world_chunk_instance(const ecs_world_chunk *c, uint32_t t, uint32_t k)
{
    return c->index[t] ? c->index[t][k] : c->first[t] + k;
}

/** One walk over a query's matches, from a range of its driver positions
    (ecs_world_query_span) so that several walks can run at once on
    distinct ranges. Holds its own buffers: no allocation. */
typedef struct ecs_world_cursor {
    const ecs_world_query *query;
    uint32_t next, end;                           /* driver positions left */
    uint32_t masked;                              /* 1: masked chunks where the path allows (systems) */
    ecs_entity entity_buffer[ECS_WORLD_CHUNK];
    uint32_t index_buffer[ECS_WORLD_MAX_TERMS][ECS_WORLD_CHUNK];
    uint64_t mask_buffer[ECS_WORLD_MASKED_CHUNK / 64u];
} ecs_world_cursor;

/** Prepares q from desc. ECS_OK, or an error naming the component
    (unregistered name, more than ECS_WORLD_MAX_TERMS terms, none required,
    a name given twice); *q is written only on success. Allocates nothing.
    The path and its group are chosen now (see QUERIES: a group made later
    is not used by this query; systems are planned again every frame); the
    lookup path's driver and a group's remainder driver, the smallest
    required store, are chosen again by every span and walk (q->driver: the
    choice when made). A group freed outside the world while q lives (not
    by ecs_world_remove, which q notices) leaves q pointing at it: make q
    again. */
ECS_DEF ecs_result ecs_world_query_make(ecs_world *w, const ecs_world_query_desc *desc, ecs_world_query *q,
                                        ecs_error *err);
/** Driver positions to walk (the range ecs_world_cursor_start splits); 0
    for a query made before a store was removed. */
ECS_DEF uint32_t ecs_world_query_span(const ecs_world_query *q);
/** Starts a walk over driver positions [begin, end) (end clamped to the
    span). ECS_OK, or ECS_ERROR_NOT_FOUND when a store was removed since q
    was made (make q again; the walk yields nothing). It writes nothing but
    *c, not even q->world->error: several walks of one query may run at once
    on distinct ranges. */
ECS_DEF ecs_result ecs_world_cursor_start(ecs_world_cursor *c, const ecs_world_query *q, uint32_t begin,
                                          uint32_t end);
/** Fills *out with the next chunk (count >= 1) and returns 1, or returns 0
    at the end. Do not add or remove instances of q's stores during a walk,
    nor of a store grouped with one of them (ecs_group_top: leaving or
    joining a group moves the instances of every member). A walk whose
    world loses a store (ecs_world_remove, any store) ends there: 0, and
    ecs_world_query_span(q) says 0 from then on (make q again). */
ECS_DEF int ecs_world_cursor_next(ecs_world_cursor *c, ecs_world_chunk *out);
/** Direct path: makes the walks of q skip reading the required stores'
    entity arrays where it can. When a required store's slots changed since
    the last refresh (or none was made), scans the stores once and
    remembers the ECS_WORLD_QUERY_RUNS longest runs of matching slots; a
    walk then yields a remembered run as one chunk without reading the
    stores, for as long as no required store changed (every walk checks:
    a run is never used after a change, the walk reads the stores as
    without a refresh). Cheap when nothing changed: call it once a frame
    before the walks. No effect on the other paths and on a query made
    before a store was removed. Writes q: not while a walk of q runs (a
    single-threaded step before the parallel walks). Allocates nothing. */
ECS_DEF void ecs_world_query_refresh(ecs_world_query *q);

/* ---- whole entities ------------------------------------------------------ */

/** One component an entity has (ecs_world_components_of). */
typedef struct ecs_world_has {
    uint32_t component;     /* index in w->component */
    ecs_instance instance;  /* the first instance (ecs_manager_next for more) */
} ecs_world_has;
/** Which components e has: writes at most cap entries (component order) and
    returns how many there are. 0 for nil and dead entities. The world
    knows entities by id only: an entity of another world reads as the
    entity of this world with that id, if one is alive. */
ECS_DEF uint32_t ecs_world_components_of(const ecs_world *w, ecs_entity e, ecs_world_has *out, uint32_t cap);
/** Destroys e and every instance it has in every store now (the lazy way,
    ecs_entity_destroy(&w->entities, e), stays the default): its destroy
    callbacks run first and see every instance. Returns 1, or 0 with nothing
    changed for a nil or dead entity (an entity of another world is seen by
    its id, as in ecs_world_components_of) and when ecs_entity_destroy
    refuses e: its destruction is already running (a callback chain back
    to e: that destroy removes the instances once its callbacks are done),
    or out of memory nesting callbacks or growing the free queue
    (w->entities.error says so). */
ECS_DEF int ecs_world_destroy_now(ecs_world *w, ecs_entity e);
/** Destroys e and every entity below it in the hierarchy store `hierarchy`
    (e.g. "transform"), with their instances everywhere (e alone when it
    has no node there), leaves first, each as ecs_world_destroy_now does.
    ECS_OK, or an error (unknown store, store without subtree, e nil or
    not alive, out of memory listing the tree: nothing changed). An entity
    of the tree whose destruction is running already (the call comes from
    its callback) is left to that destroy. Destroys refused for out of
    memory (nesting callbacks, growing the free queue):
    ECS_ERROR_OUT_OF_MEMORY once the rest are
    destroyed (callbacks ran: no going back), the refused ones keep
    everything. */
ECS_DEF ecs_result ecs_world_destroy_tree(ecs_world *w, const char *hierarchy, ecs_entity e, ecs_error *err);
/** Runs every store's exact collection (ecs_manager_collect and the
    interfaces' collect); with jobs, stores in parallel (one task per
    store, a group's members in one task; ecs_jobs_run). Returns how many
    instances were destroyed. */
ECS_DEF uint32_t ecs_world_collect(ecs_world *w, const ecs_jobs *jobs);

/* ---- systems ----------------------------------------------------------------
   A system is a declaration (its terms: the components it reads, writes and
   may have) and a body run for every match; the world keeps the registered
   systems in order and runs them each frame (ecs_world_run_systems):
   - ECS_WORLD_SYSTEM_DEFINE(name, TERMS, flags) { body } declares one. TERMS is an
     X-macro of X(type, view, access): type a typed manager (ECS_MANAGER_DEFINE
     or _DEFINE_SCHEMA) registered in the world under the type's name, view
     the name the body reads it by, access ECS_READ, ECS_WRITE, ECS_OPTIONAL
     (read, may be absent) or ECS_OPTIONAL_WRITE. The body runs with frame
     (the ecs_frame given to ecs_world_run_systems), k, entity and one
     type_view per term: view.field[k] is the match's data, so in a
     contiguous chunk the body is a loop over plain arrays and in a
     scattered one each match is read through its instance (k = 0, the views
     moved to it); an optional term's view holds NULL pointers for an entity
     without it. flags: 0 or ECS_SERIAL (a body that writes anything but its
     match's instances: a frame buffer, a sum). The macro gives name_system,
     the const ecs_system_desc to register with ecs_world_add_system.
   - the rule (Our Machinery's): two systems conflict when one writes a
     component the other reads or writes, or when both are ECS_SERIAL
     (both may write the same shared state). Systems that do not conflict run
     at the same time; of two that conflict, the one registered earlier runs
     entirely before the later one starts. So the systems run in waves: a
     system's wave is one more than the latest wave of the earlier systems
     it conflicts with (0 when none); waves run in order, and a wave's
     systems run together.
   - a system's matches are cut into ranges of ECS_WORLD_SYSTEM_RANGE
     positions of its query's walk (ecs_world_query_span,
     ecs_world_cursor_start: a group's prefix, then its remainder), each
     range a task, so a body runs on several chunks at once and must only
     write the instances of its match (of components it declared as
     written: writing an undeclared one is your bug, which the world cannot
     see). A serial system's chunks run in order on one task (still beside
     the systems it does not conflict with: never beside another serial
     one; a system that reads the shared state a serial one writes is
     serial too).
   - the ranges depend on the stores' sizes only, never on the number of
     workers; with systems that keep to their declarations every result is
     the serial one (the systems one after another in registration order,
     each over its chunks in order), bit for bit.
   - the world plans each system's query again when groups or stores change
     (a group added after the system is used from the next frame) and
     refreshes the direct path's runs itself.
   Nothing is allocated per frame. Do not add or remove instances of a
   running system's stores, or of a store grouped with them (defer them to
   after the call). */

/** Driver positions per task of a system (64 chunks). */
#define ECS_WORLD_SYSTEM_RANGE (64u * ECS_WORLD_CHUNK)

/** A term's access (ecs_system_term.access). */
#define ECS_READ 0u
#define ECS_WRITE 1u
#define ECS_OPTIONAL 2u
#define ECS_OPTIONAL_WRITE 3u
/** ecs_system_desc.flags: the chunks run in order on one task. */
#define ECS_SERIAL 1u

/** What ecs_world_run_systems hands every body: yours to fill each frame. */
typedef struct ecs_frame {
    double dt;          /* seconds since the last frame */
    uint64_t number;    /* the frame's number */
    void *user;         /* what your systems share (a frame buffer, a context) */
} ecs_frame;

/** Runs a system's body over one chunk; term_manager[t] is the manager of
    term t (the desc's order), chunk's first and index too. */
typedef void (*ecs_system_chunk_fn)(const ecs_frame *frame, const ecs_world_chunk *chunk,
                                    ecs_manager *const *term_manager);
/** One term of a system. */
typedef struct ecs_system_term {
    const char *component;                              /* the registered name */
    uint32_t access;                                    /* ECS_READ ... ECS_OPTIONAL_WRITE */
    uint32_t (*layout_matches)(const ecs_manager *m);   /* the declared type's check, or NULL */
} ecs_system_term;
/** A system's declaration (ECS_WORLD_SYSTEM_DEFINE makes one; a runtime system,
    a plugin's, may fill one by hand). Must outlive its registration. */
typedef struct ecs_system_desc {
    const char *name;
    const ecs_system_term *terms;
    uint32_t num_terms;                                 /* 1..ECS_WORLD_MAX_TERMS, one required at least */
    ecs_system_chunk_fn chunk;
    uint32_t flags;                                     /* 0 or ECS_SERIAL */
} ecs_system_desc;

/** A registered system (the world's; read-only). */
typedef struct ecs_world_system {
    const ecs_system_desc *desc;
    ecs_world_query query;                         /* required terms first, then optional */
    uint32_t query_term[ECS_WORLD_MAX_TERMS];      /* desc term t is query term query_term[t] */
    ecs_manager *manager[ECS_WORLD_MAX_TERMS];     /* desc term t's manager */
    uint32_t write[ECS_WORLD_MAX_TERMS];           /* components written (indices in w->component) */
    uint32_t num_writes;
    uint32_t wave;                                 /* the wave it ran in (last run) */
    uint32_t first_task, num_tasks;                /* the run's scratch */
} ecs_world_system;

/** The index of the lowest set bit of x (x != 0). */
static inline uint32_t ecs_bit_lowest(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return (uint32_t)__builtin_ctzll(x);
#else
    uint32_t n = 0;
    while (!(x & 1u)) x >>= 1, ++n;
    return n;
#endif
}

/** Whether the first num_terms terms of chunk c are all contiguous (plain
    arrays from first[t]). */
static inline int ecs_world_chunk_contiguous(const ecs_world_chunk *c, uint32_t num_terms)
{
    uint32_t t;
    for (t = 0; t < num_terms; ++t)
        if (c->index[t]) return 0;
    return 1;
}

/** Registers a system after the ones registered before (its place in the
    frame). ECS_OK, or an error naming the system and the thing, nothing
    changed: desc NULL, no terms, more than ECS_WORLD_MAX_TERMS, no required
    term, NULL chunk function (INVALID_ARGUMENT); registered already, by
    pointer or name (ALREADY_EXISTS); a term's component not registered
    (NOT_FOUND), not an ecs_manager, named twice, or whose manager's fields
    differ from the declared type's (INVALID_ARGUMENT); out of memory. */
ECS_DEF ecs_result ecs_world_add_system(ecs_world *w, const ecs_system_desc *desc, ecs_error *err);
/** Unregisters the system named name. ECS_OK or ECS_ERROR_NOT_FOUND. */
ECS_DEF ecs_result ecs_world_remove_system(ecs_world *w, const char *name, ecs_error *err);
/** Runs every registered system once over its matches, in waves (the rule
    above), across jobs' workers (NULL or one worker: on the calling thread);
    returns when all have finished. frame is handed to every body. ECS_OK,
    or (nothing run) ECS_ERROR_NOT_FOUND naming the system and component when
    a store of a system was removed. A job system that could not start some
    tasks only costs time: they run on the calling thread. Only this call
    may use w meanwhile. */
ECS_DEF ecs_result ecs_world_run_systems(ecs_world *w, const ecs_frame *frame, const ecs_jobs *jobs, ecs_error *err);

/* ECS_WORLD_SYSTEM_DEFINE's pieces: per term X(type, view, access). */
#if defined(__GNUC__) || defined(__clang__)
#define ECS__ALWAYS_INLINE __attribute__((always_inline))
#define ECS__LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define ECS__ALWAYS_INLINE
#define ECS__LIKELY(x) (x)
#endif
#define ECS__SYS_PARAM(type, view, access) , ECS__UNUSED type##_view view
#define ECS__SYS_ARG(type, view, access) , view
#define ECS__SYS_DECL(type, view, access) type##_view view;
#define ECS__SYS_COUNT(type, view, access) +1u
#define ECS__SYS_AT_FIRST(type, view, access) type##_view_at(&view, m_[t_], c_->first[t_]), ++t_;
#define ECS__SYS_AT_MATCH(type, view, access) type##_view_at(&view, m_[t_], ecs_world_chunk_instance(c_, t_, k)), ++t_;
#define ECS__SYS_TERM(type, view, access) {#type, access, type##_layout_matches},

/** Declares system `name` over TERMS (see "systems" above) and gives
    name_system (const ecs_system_desc); the braces that follow are the
    body: per match, with frame, k, entity and one view per term. Example:
        #define MOVE(X) X(position, pos, ECS_WRITE) X(velocity, vel, ECS_READ)
        ECS_WORLD_SYSTEM_DEFINE(move, MOVE, 0) { pos.p[k].x += vel.v[k].x * frame->dt; }
        ecs_world_add_system(&w, &move_system, &err);
    Generates static functions name_each_ (the body, inlined) and
    name_chunk_ (views at first[t] and a loop over k for a contiguous chunk,
    views moved to each match otherwise). */
#define ECS_WORLD_SYSTEM_DEFINE(name, TERMS, flags)                                                         \
    ECS__ALWAYS_INLINE static inline void name##_each_(ECS__UNUSED const ecs_frame *frame, ECS__UNUSED uint32_t k, \
                                                       ECS__UNUSED ecs_entity entity TERMS(ECS__SYS_PARAM));     \
    static void name##_chunk_(const ecs_frame *frame_in_, const ecs_world_chunk *c_, ecs_manager *const *m_) \
    {                                                                                                       \
        TERMS(ECS__SYS_DECL)                                                                                \
        uint32_t k, t_ = 0, w_, end_;                                                                       \
        const ecs_frame frame_copy_ = *frame_in_, *frame_ = &frame_copy_; /* a local: no reload per match */ \
        /* the common case first: the compiler inlines what the body calls there before anywhere else */  \
        if (ECS__LIKELY(!c_->mask && ecs_world_chunk_contiguous(c_, 0u TERMS(ECS__SYS_COUNT)))) {           \
            TERMS(ECS__SYS_AT_FIRST)                                                                        \
            for (k = 0; k < c_->count; ++k) name##_each_(frame_, k, c_->entity[k] TERMS(ECS__SYS_ARG));     \
            return;                                                                                         \
        }                                                                                                   \
        if (c_->mask) { /* slots from first[t], the matches' bits in mask: a word at a time */               \
            TERMS(ECS__SYS_AT_FIRST)                                                                        \
            for (w_ = 0; w_ * 64u < c_->count; ++w_) {                                                      \
                uint64_t bits_ = c_->mask[w_];                                                              \
                end_ = c_->count - w_ * 64u < 64u ? c_->count : w_ * 64u + 64u;                             \
                if (bits_ == ~(uint64_t)0)                                                                  \
                    for (k = w_ * 64u; k < end_; ++k) name##_each_(frame_, k, c_->entity[k] TERMS(ECS__SYS_ARG)); \
                else                                                                                        \
                    for (; bits_; bits_ &= bits_ - 1u) {                                                    \
                        k = w_ * 64u + ecs_bit_lowest(bits_);                                               \
                        name##_each_(frame_, k, c_->entity[k] TERMS(ECS__SYS_ARG));                         \
                    }                                                                                       \
            }                                                                                               \
            return;                                                                                         \
        }                                                                                                   \
        for (k = 0; k < c_->count; ++k) {                                                                   \
            t_ = 0;                                                                                         \
            TERMS(ECS__SYS_AT_MATCH)                                                                        \
            name##_each_(frame_, 0, c_->entity[k] TERMS(ECS__SYS_ARG));                                     \
        }                                                                                                   \
    }                                                                                                       \
    static const ecs_system_term name##_terms_[] = {TERMS(ECS__SYS_TERM)};                                  \
    ECS__UNUSED static const ecs_system_desc name##_system = {                                              \
        #name, name##_terms_, 0u TERMS(ECS__SYS_COUNT), name##_chunk_, flags};                              \
    static inline void name##_each_(ECS__UNUSED const ecs_frame *frame, ECS__UNUSED uint32_t k,               \
                                    ECS__UNUSED ecs_entity entity TERMS(ECS__SYS_PARAM))

#ifdef __cplusplus
}
#endif
#endif /* ECS_H_INCLUDED */

/* ========================================================================== */
#ifdef ECS_IMPLEMENTATION
#ifndef ECS__IMPLEMENTATION_DONE
#define ECS__IMPLEMENTATION_DONE

#include <stdarg.h>
/* SSE2 for the direct path's match bits (ECS_NO_SIMD: plain C everywhere) */
#if !defined(ECS_NO_SIMD) && (defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2))
#include <emmintrin.h>
#define ECS__SIMD 1
#else
#define ECS__SIMD 0
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(ECS_REALLOC) && !defined(ECS_FREE) || !defined(ECS_REALLOC) && defined(ECS_FREE)
#error "define both ECS_REALLOC and ECS_FREE, or neither"
#endif
/* pico_ecs's implementation defines ECS_REALLOC/ECS_FREE as aliases with an
   extra context argument: ignore those. */
#ifndef ECS__REALLOC
#if defined(ECS_REALLOC) && !defined(PICO_ECS_REALLOC)
#define ECS__REALLOC(p, n) ECS_REALLOC(p, n)
#define ECS__FREE(p) ECS_FREE(p)
#else
#define ECS__REALLOC(p, n) realloc(p, n)
#define ECS__FREE(p) free(p)
#endif
#endif
#ifndef ECS__ASSERT
#ifdef ECS_ASSERT
#define ECS__ASSERT(x) ECS_ASSERT(x)
#else
#include <assert.h>
#define ECS__ASSERT(x) assert(x)
#endif
#endif

/* Starts loading the cache line at p (no effect elsewhere). */
#if defined(__GNUC__) || defined(__clang__)
#define ECS__PREFETCH(p) __builtin_prefetch(p)
#else
#define ECS__PREFETCH(p) ((void)(p))
#endif

/* ---- results ------------------------------------------------------------- */

#define ECS__RESULT_NAME(code, text) #code,
#define ECS__RESULT_TEXT(code, text) text,
static const char *const ecs__result_names[] = {ECS__RESULT_LIST(ECS__RESULT_NAME)};
static const char *const ecs__result_texts[] = {ECS__RESULT_LIST(ECS__RESULT_TEXT)};
#undef ECS__RESULT_NAME
#undef ECS__RESULT_TEXT

ECS_DEF const char *ecs_result_name(ecs_result code)
{
    return (unsigned)code < (unsigned)ECS__RESULT_COUNT ? ecs__result_names[code] : "?";
}

ECS_DEF const char *ecs_result_text(ecs_result code)
{
    return (unsigned)code < (unsigned)ECS__RESULT_COUNT ? ecs__result_texts[code] : "unknown error";
}

ECS_DEF ecs_result ecs_error_set(ecs_error *err, ecs_result code, const char *format, ...)
{
    char text[sizeof err->message];
    va_list ap;
    if (!err) return code;
    err->code = code;
    if (!format) {
        snprintf(err->message, sizeof err->message, "%s", ecs_result_text(code));
        return code;
    }
    /* formatted apart, then copied: an argument may be err->message itself
       (a message wrapped in more context), and vsnprintf's source and
       destination must not overlap */
    va_start(ap, format);
    vsnprintf(text, sizeof text, format, ap);
    va_end(ap);
    memcpy(err->message, text, sizeof text);
    return code;
}

ECS_DEF void ecs_error_clear(ecs_error *err)
{
    if (!err) return;
    err->code = ECS_OK;
    err->message[0] = '\0';
}

/* ---- entities ------------------------------------------------------------ */

#define ECS__INDEX_LIMIT ECS_INDEX_MASK /* highest usable index */

ECS_DEF void ecs_entity_manager_init(ecs_entity_manager *em)
{
    memset(em, 0, sizeof *em);
}

ECS_DEF void ecs_entity_manager_free(ecs_entity_manager *em)
{
    ECS__FREE(em->generation);
    ECS__FREE(em->free_ring);
    ECS__FREE(em->queued);
    ECS__FREE(em->callbacks);
    ECS__FREE(em->destroying);
    memset(em, 0, sizeof *em);
}

/* A new stamp for a life of an entity manager. A cursor must tell apart
   two lives of a manager at the same address, which the manager's own
   memory cannot (init zeroes it), so the stamps come from this one counter
   (atomic on gcc, clang and MSVC; elsewhere plain: give entity managers
   their first entities from one thread at a time). The library's only state
   outside the structs you own; it holds no data of yours. */
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#endif
static uint32_t ecs__next_life(void)
{
#if defined(__GNUC__) || defined(__clang__)
    static uint32_t lives;
    uint32_t life = __atomic_add_fetch(&lives, 1u, __ATOMIC_RELAXED);
#elif defined(_MSC_VER)
    static volatile long lives;
    uint32_t life = (uint32_t)_InterlockedIncrement(&lives);
#else
    static uint32_t lives;
    uint32_t life = ++lives;
#endif
    return life ? life : 1u; /* 0 means "no allocation yet" */
}

/* Makes the generation array hold at least `needed` indices. */
static ecs_result ecs__entity_reserve(ecs_entity_manager *em, uint32_t needed)
{
    uint32_t cap;
    uint8_t *g;
    if (needed <= em->capacity) return ECS_OK;
    cap = em->capacity ? em->capacity : 1024u;
    while (cap < needed) cap = cap > 0x7FFFFFFFu / 2 ? needed : cap * 2u;
    if (cap > ECS__INDEX_LIMIT + 1u) cap = ECS__INDEX_LIMIT + 1u;
    g = (uint8_t *)ECS__REALLOC(em->generation, cap);
    if (!g) return ecs_error_set(&em->error, ECS_ERROR_OUT_OF_MEMORY, "entity manager: out of memory growing to %u indices", (unsigned)cap);
    memset(g + em->capacity, 0, cap - em->capacity); /* indices not yet handed out: generation 0 */
    if (em->capacity == 0) em->life = ecs__next_life();
    em->generation = g;
    em->capacity = cap;
    if (em->queued_limit < cap) em->queued_room = 0; /* the next destroy grows the bits */
    return ECS_OK;
}


/* Grows the ring (full, or short of room for the destroys under way) to
   twice its size, keeping every entry at the slot its running count names, so the destroy log stays readable; slots the old
   ring could not hold are zeroed (0 = "lost" for log readers). */
static int ecs__free_grow(ecs_entity_manager *em)
{
    uint32_t cap = em->free_capacity ? em->free_capacity * 2u : 1024u, old = em->free_capacity, k;
    uint32_t end = em->free_head + em->num_free;
    uint32_t *ring = cap > 0x40000000u ? NULL : (uint32_t *)ECS__REALLOC(NULL, (size_t)cap * sizeof *ring);
    if (!ring) return 0;
    memset(ring, 0, (size_t)cap * sizeof *ring);
    for (k = 0; k < old; ++k) { /* entries end-old .. end-1 */
        uint32_t seq = end - old + k;
        ring[seq & (cap - 1u)] = em->free_ring[seq & (old - 1u)];
    }
    ECS__FREE(em->free_ring);
    em->free_ring = ring;
    em->free_capacity = cap;
    return 1;
}

/* ---- the queued bits: no index queued twice -------------------------------
   One generation byte per index cannot mark a queued index: all 2^8 values
   are generations, so the id it carries next always tests alive. destroy
   and ecs_entity_live therefore ask a bit per index, set when the index is
   queued. A pop (create) clears its bit while the bits are
   synced to the queue's front (queued_synced == free_head), which keeps
   them synced; when they are not (built after pops, out of memory), the
   next destroy that meets a set bit, or that would reuse a ring slot whose
   pop is not cleared yet, clears the bits of everything popped since
   queued_synced. The bits are a cache of the ring: dropped (queued_limit
   0) when memory runs out, and rebuilt from the ring's queued entries by
   ecs_entity_manager_invalidate and by the next destroy. */

/* Sets (value 1) or clears (0) the bit of each index in ring[from, to). */
static void ecs__queued_mark(ecs_entity_manager *em, uint32_t from, uint32_t to, int value)
{
    /* locals: the stores below may alias any member of *em */
    const uint32_t *ring = em->free_ring;
    uint32_t *bits = em->queued, s, mask = em->free_capacity - 1u, limit = em->queued_limit;
    if (value) {
        for (s = from; s != to; ++s) {
            uint32_t idx = ring[s & mask] & ECS_INDEX_MASK;
            if (idx < limit) bits[idx >> 5] |= 1u << (idx & 31u);
        }
    } else { /* one word in a register while the pops stay in it (creation order) */
        uint32_t at = 0, word = bits[0];
        for (s = from; s != to; ++s) {
            uint32_t idx = ring[s & mask] & ECS_INDEX_MASK;
            if (idx >= limit) continue;
            if (idx >> 5 != at) {
                bits[at] = word;
                at = idx >> 5;
                word = bits[at];
            }
            word &= ~(1u << (idx & 31u));
        }
        bits[at] = word;
    }
}

/* What the inline destroy may queue before it must come back here: every
   free slot of the ring (nothing popped is left unsynced), while the bits
   cover every index the manager has room for and no callback runs. */
static void ecs__queued_room_update(ecs_entity_manager *em)
{
    int fast = em->queued_limit > 0 && em->queued_limit >= em->capacity && em->num_callbacks == 0 &&
               em->queued_synced == em->free_head;
    em->queued_room = fast ? em->free_capacity - em->num_free : 0u;
}

/* Brings the bits up to date for index idx: builds them when there are none
   (or after an invalidation), grows them to cover idx and every index the
   manager has room for, and clears the bits of the indices popped since the
   last sync. Returns 0 when out of memory (the bits are dropped then). */
static int ecs__queued_sync(ecs_entity_manager *em, uint32_t idx)
{
    uint32_t cover = (em->capacity > idx ? em->capacity : idx + 1u), words = cover / 32u + 1u;
    int rebuild = em->queued_limit == 0 || em->free_head - em->queued_synced > em->free_capacity;
    if (rebuild || cover > em->queued_limit) { /* (cover: idx and every index the manager has room for) */
        uint32_t old = rebuild ? 0u : em->queued_limit / 32u;
        uint32_t *bits = (uint32_t *)ECS__REALLOC(em->queued, (size_t)words * sizeof *bits);
        if (!bits) { /* destroy goes on, scanning the queue; said in em->error */
            ECS__FREE(em->queued);
            em->queued = NULL;
            em->queued_limit = em->queued_room = 0;
            ecs_error_set(&em->error, ECS_ERROR_OUT_OF_MEMORY,
                          "entity manager: out of memory for the bits of queued indices (destroy scans the queue)");
            return 0;
        }
        memset(bits + old, 0, (size_t)(words - old) * sizeof *bits);
        em->queued = bits;
        em->queued_limit = words * 32u;
        if (rebuild) {
            em->queued_synced = em->free_head;
            if (em->free_capacity) ecs__queued_mark(em, em->free_head, em->free_head + em->num_free, 1);
        }
    }
    if (em->queued_synced != em->free_head) ecs__queued_mark(em, em->queued_synced, em->free_head, 0);
    em->queued_synced = em->free_head;
    ecs__queued_room_update(em);
    return 1;
}

/* Whether idx waits in the queue: its next id tests alive, but destroy
   must not queue it again. Without memory for the bits, a scan of the
   queue answers. */
static int ecs__entity_queued(ecs_entity_manager *em, uint32_t idx)
{
    if (ecs__queued_sync(em, idx)) return (int)((em->queued[idx >> 5] >> (idx & 31u)) & 1u);
    return ecs_entity_queued_scan__needs_ECS_IMPLEMENTATION_in_one_file(em, idx);
}

ECS_DEF void ecs_entity_manager_invalidate(ecs_entity_manager *em)
{
    em->queued_limit = em->queued_room = 0;
    if (em->num_free) (void)ecs__queued_sync(em, 0); /* rebuilt now: ecs_entity_live reads them */
}

/* ecs_entity_live's answer without the bits: whether idx waits in the queue. */
ECS_DEF int ecs_entity_queued_scan__needs_ECS_IMPLEMENTATION_in_one_file(const ecs_entity_manager *em, uint32_t idx)
{
    uint32_t s, end = em->free_head + em->num_free;
    for (s = em->free_head; s != end; ++s)
        if ((em->free_ring[s & (em->free_capacity - 1u)] & ECS_INDEX_MASK) == idx) return 1;
    return 0;
}

/* Grows the ring until it has room for `need` more destroys: the one asked
   for and each destroy under way (nested callbacks), so that every one of
   them can queue its index. Before anything changes: 0 when out of memory
   (the destroy of e is refused, em->error says so). */
static int ecs__free_reserve(ecs_entity_manager *em, uint32_t need, ecs_entity e)
{
    char who[ECS_ENTITY_TEXT_SIZE];
    while (em->free_capacity - em->num_free < need)
        if (!ecs__free_grow(em)) {
            ecs_error_set(&em->error, ECS_ERROR_OUT_OF_MEMORY,
                          "entity manager: out of memory growing the free queue past %u indices; the destroy of %s is refused",
                          (unsigned)em->free_capacity, ecs_entity_format(who, sizeof who, e));
            return 0;
        }
    return 1;
}

/* Queues idx (whose generation was just bumped) and sets its bit. The ring
   has room: ecs__free_reserve made it before the destroy changed anything. */
static void ecs__free_push(ecs_entity_manager *em, uint32_t idx)
{
    int marked = ecs__queued_sync(em, idx); /* no unsynced pop left in a slot the push may reuse */
    if (marked) em->queued[idx >> 5] |= 1u << (idx & 31u);
    ECS__ASSERT(em->num_free < em->free_capacity);
    em->free_ring[(em->free_head + em->num_free) & (em->free_capacity - 1u)] = ecs_entity_make(idx, em->generation[idx]).id;
    ++em->num_free;
    if (marked) ecs__queued_room_update(em); /* the ring may have grown */
}

ECS_DEF ecs_entity ecs_entity_create_slow__needs_ECS_IMPLEMENTATION_in_one_file(ecs_entity_manager *em)
{
    ecs_entity e = {0};
    if (em->num_free > ECS_MINIMUM_FREE_INDICES) {
        e.id = ecs__entity_pop_front(em);
    } else if (em->max_index < ECS__INDEX_LIMIT) { /* index 0 stays reserved */
        if (em->max_index + 2u > em->capacity && ecs__entity_reserve(em, em->max_index + 2u) != ECS_OK)
            return e;
        e.id = ++em->max_index;
    } else if (em->num_free > 0) {
        e.id = ecs__entity_pop_front(em); /* a free index beats a failure */
    } else {
        ecs_error_set(&em->error, ECS_ERROR_INDICES_EXHAUSTED,
                      "entity manager: all %u indices are alive (ECS_INDEX_BITS = %d)",
                      (unsigned)ECS__INDEX_LIMIT, ECS_INDEX_BITS);
        return e;
    }
    return e;
}

ECS_DEF ecs_result ecs_entity_create_many(ecs_entity_manager *em, uint32_t n, ecs_entity *out)
{
    uint32_t from_queue = 0, fresh, room, k;
    if (n == 0) return ECS_OK;
    if (!out) return ecs_error_set(&em->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_entity_create_many: out is NULL");
    if (em->num_free > ECS_MINIMUM_FREE_INDICES) {
        from_queue = em->num_free - ECS_MINIMUM_FREE_INDICES;
        if (from_queue > n) from_queue = n;
    }
    fresh = n - from_queue;
    room = ECS__INDEX_LIMIT - em->max_index;
    if (fresh > room) { /* exhausted: the queue's remaining indices fill in */
        uint32_t extra = fresh - room;
        if (extra > em->num_free - from_queue) {
            return ecs_error_set(&em->error, ECS_ERROR_INDICES_EXHAUSTED,
                                 "entity manager: cannot create %u entities, only %u indices left",
                                 (unsigned)n, (unsigned)(room + em->num_free));
        }
        from_queue += extra;
        fresh = room;
    }
    if (fresh && ecs__entity_reserve(em, em->max_index + fresh + 1u) != ECS_OK) {
        return em->error.code;
    }
    if (from_queue) { /* the queue's front, then its bits (in step while synced) in one pass */
        const uint32_t *ring = em->free_ring; /* locals: stores to out may alias *em */
        uint32_t head = em->free_head, mask = em->free_capacity - 1u;
        for (k = 0; k < from_queue; ++k) out[k].id = ring[(head + k) & mask];
        if (em->queued_synced == head) {
            if (em->queued_limit) ecs__queued_mark(em, head, head + from_queue, 0);
            em->queued_synced = head + from_queue;
        }
        em->free_head = head + from_queue;
        em->num_free -= from_queue;
    }
    {
        uint32_t first = em->max_index + 1u; /* a local: stores to out may alias *em */
        for (k = 0; k < fresh; ++k) out[from_queue + k].id = first + k;
        em->max_index = first - 1u + fresh;
    }
    return ECS_OK;
}

static int ecs__entity_is_destroying(const ecs_entity_manager *em, ecs_entity e)
{
    uint32_t k;
    for (k = 0; k < em->num_destroying; ++k)
        if (((em->destroying[k].id ^ e.id) & (ECS_INDEX_MASK | (ECS_ENTITY_GENERATION_MASK << ECS_INDEX_BITS))) == 0) return 1;
    return 0;
}

/* Runs the callbacks for e (not being destroyed already); returns 0 when
   out of memory to mark it so (nothing ran, em->error says so). */
static int ecs__entity_run_callbacks(ecs_entity_manager *em, ecs_entity e)
{
    uint32_t k;
    if (em->num_destroying == em->destroying_capacity) {
        uint32_t cap = em->destroying_capacity ? em->destroying_capacity * 2u : 8u;
        ecs_entity *d = (ecs_entity *)ECS__REALLOC(em->destroying, (size_t)cap * sizeof *d);
        if (!d) { /* unguarded, a callback chain back to e ran them twice or without end: refused */
            ecs_error_set(&em->error, ECS_ERROR_OUT_OF_MEMORY,
                          "entity manager: out of memory nesting destroy callbacks %u deep; the destroy is refused",
                          (unsigned)cap);
            return 0;
        }
        em->destroying = d;
        em->destroying_capacity = cap;
    }
    em->destroying[em->num_destroying++] = e;
    for (k = 0; k < em->num_callbacks; ++k) em->callbacks[k].fn(em->callbacks[k].user, e);
    --em->num_destroying;
    return 1;
}

ECS_DEF int ecs_entity_destroy_slow__needs_ECS_IMPLEMENTATION_in_one_file(ecs_entity_manager *em, ecs_entity e)
{
    uint32_t idx = e.id & ECS_INDEX_MASK;
    if (!ecs_entity_alive(em, e)) return 0;
    if (ecs__entity_queued(em, idx)) return 0; /* the id a queued index carries next: never handed out */
    if (em->num_callbacks && ecs__entity_is_destroying(em, e)) return 0;
    /* room in the ring for e and every destroy under way (each on the
       destroying list), before anything changes: no index is ever lost */
    if (!ecs__free_reserve(em, em->num_destroying + 1u, e)) return 0;
    if (em->num_callbacks) {
        if (!ecs__entity_run_callbacks(em, e)) return 0;
        if (!ecs_entity_alive(em, e)) return 0; /* a callback destroyed it */
    }
    em->generation[idx] = (uint8_t)((em->generation[idx] + 1u) & ECS_ENTITY_GENERATION_MASK);
    ecs__free_push(em, idx);
    return 1;
}

ECS_DEF uint32_t ecs_entity_destroy_many(ecs_entity_manager *em, uint32_t n, const ecs_entity *es)
{
    uint32_t k, destroyed = 0;
    if (!es) return 0;
    if (em->num_callbacks == 0 && em->free_capacity - em->num_free >= n && ecs__queued_sync(em, em->max_index)) {
        /* fast path: no callbacks, the queue has room, the bits cover every
           index and are synced (no pop pending: every free slot is free) */
        /* locals: the byte stores below may alias any member of *em */
        uint32_t mask = em->free_capacity - 1u, tail = em->free_head + em->num_free, limit = em->max_index;
        uint8_t *generation = em->generation;
        uint32_t *ring = em->free_ring, *queued = em->queued;
        for (k = 0; k < n; ++k) {
            uint32_t idx = es[k].id & ECS_INDEX_MASK, gen = (es[k].id >> ECS_INDEX_BITS) & ECS_ENTITY_GENERATION_MASK;
            if (idx - 1u >= limit || generation[idx] != gen) continue; /* not alive */
            if ((queued[idx >> 5] >> (idx & 31u)) & 1u) continue;       /* a queued index's next id */
            queued[idx >> 5] |= 1u << (idx & 31u);
            gen = (gen + 1u) & ECS_ENTITY_GENERATION_MASK;
            generation[idx] = (uint8_t)gen;
            ring[(tail + destroyed) & mask] = idx | (gen << ECS_INDEX_BITS);
            ++destroyed;
        }
        em->num_free += destroyed;
        ecs__queued_room_update(em);
        return destroyed;
    }
    for (k = 0; k < n; ++k) destroyed += (uint32_t)ecs_entity_destroy(em, es[k]);
    return destroyed;
}

ECS_DEF ecs_result ecs_entity_on_destroy(ecs_entity_manager *em, ecs_entity_destroy_fn fn, void *user)
{
    if (!fn) return ecs_error_set(&em->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_entity_on_destroy: fn is NULL");
    if (em->destroying_capacity == 0) { /* so that destroy needs no memory unless callbacks nest deeply */
        em->destroying = (ecs_entity *)ECS__REALLOC(NULL, 16u * sizeof *em->destroying);
        if (!em->destroying) return ecs_error_set(&em->error, ECS_ERROR_OUT_OF_MEMORY, "ecs_entity_on_destroy: out of memory");
        em->destroying_capacity = 16u;
    }
    if (em->num_callbacks == em->callbacks_capacity) {
        uint32_t cap = em->callbacks_capacity ? em->callbacks_capacity * 2u : 4u;
        ecs_entity__callback *c = (ecs_entity__callback *)ECS__REALLOC(em->callbacks, (size_t)cap * sizeof *c);
        if (!c) return ecs_error_set(&em->error, ECS_ERROR_OUT_OF_MEMORY, "ecs_entity_on_destroy: out of memory");
        em->callbacks = c;
        em->callbacks_capacity = cap;
    }
    em->callbacks[em->num_callbacks].fn = fn;
    em->callbacks[em->num_callbacks].user = user;
    ++em->num_callbacks;
    em->queued_room = 0; /* destroys run the callbacks: the general path */
    return ECS_OK;
}

ECS_DEF ecs_result ecs_entity_on_destroy_remove(ecs_entity_manager *em, ecs_entity_destroy_fn fn, void *user)
{
    uint32_t k;
    for (k = 0; k < em->num_callbacks; ++k)
        if (em->callbacks[k].fn == fn && em->callbacks[k].user == user) {
            memmove(em->callbacks + k, em->callbacks + k + 1, (em->num_callbacks - k - 1u) * sizeof *em->callbacks);
            --em->num_callbacks;
            return ECS_OK;
        }
    return ecs_error_set(&em->error, ECS_ERROR_NOT_FOUND, "ecs_entity_on_destroy_remove: no such callback");
}

ECS_DEF const char *ecs_entity_format(char *buf, size_t size, ecs_entity e)
{
    if (size) snprintf(buf, size, "entity %u (index %u, generation %u)", (unsigned)e.id, (unsigned)ecs_entity_index(e),
                       (unsigned)ecs_entity_generation(e));
    return buf;
}

ECS_DEF uint32_t ecs_entity_count(const ecs_entity_manager *em)
{
    return em->max_index - em->num_free - em->num_retired;
}

/* ---- the destroy log ---------------------------------------------------------- */

ECS_DEF uint32_t ecs_entity_log_pending(const ecs_entity_manager *em, const ecs_entity_log_cursor *c)
{
    uint32_t end = em->free_head + em->num_free, pending = end - c->next;
    if (c->em != em || c->life != em->life || c->retired != em->num_retired || pending > em->free_capacity)
        return ECS_ENTITY_LOG_LOST;
    return pending;
}

ECS_DEF void ecs_entity_log_skip_all(const ecs_entity_manager *em, ecs_entity_log_cursor *c)
{
    c->em = em;
    c->life = em->life;
    c->next = em->free_head + em->num_free;
    c->retired = em->num_retired;
}

/* ---- the entity map ---------------------------------------------------------- */

#define ECS__NIL ECS_INSTANCE_NIL

/* True when n elements of `size` bytes fit in size_t (32-bit builds). */
static int ecs__fits(uint64_t n, size_t size)
{
    return n <= (uint64_t)(SIZE_MAX / size);
}

#define ECS__ID_MASK (ECS_INDEX_MASK | (ECS_ENTITY_GENERATION_MASK << ECS_INDEX_BITS))

/* The table every map points at before its first key: two empty slots. */
static ecs_entity_map_slot ecs__map_empty[2] = {{0u, ECS__NIL}, {0u, ECS__NIL}};

ECS_DEF void ecs_entity_map_init(ecs_entity_map *map, ecs_lookup_kind kind)
{
    memset(map, 0, sizeof *map);
    map->kind = kind == ECS_LOOKUP_DENSE ? ECS_LOOKUP_DENSE : ECS_LOOKUP_HASH;
    map->slots = ecs__map_empty;
    /* dense: mask 0 (only slot 0, which no create writes); hash: two empty
       slots, every key's home (shift 31) */
    map->mask = map->kind == ECS_LOOKUP_DENSE ? 0u : 1u;
    map->mult = map->kind == ECS_LOOKUP_DENSE ? 1u : 0x9E3779B1u;
    map->shift = map->kind == ECS_LOOKUP_DENSE ? 0u : 31u;
}

ECS_DEF void ecs_entity_map_free(ecs_entity_map *map)
{
    if (map->allocated) ECS__FREE(map->slots);
    ecs_entity_map_init(map, map->kind);
}

static uint32_t ecs__map_home(const ecs_entity_map *map, uint32_t key)
{
    return (key * 0x9E3779B1u) >> map->shift;
}

/* Hash: puts key (not present) into the table, which has room. */
static void ecs__map_hash_insert(ecs_entity_map *map, uint32_t key, uint32_t first)
{
    uint32_t h = ecs__map_home(map, key);
    while (map->slots[h].id != 0) h = (h + 1u) & map->mask;
    map->slots[h].id = key;
    map->slots[h].first = first;
    ++map->count;
}

static uint32_t ecs__log2(uint32_t pow2)
{
    uint32_t bits = 0;
    while ((1u << bits) < pow2) ++bits;
    return bits;
}

/* Hash: empties slots [from, to). */
static void ecs__map_clear(ecs_entity_map_slot *s, uint32_t from, uint32_t to)
{
    for (; from < to; ++from) {
        s[from].id = 0;
        s[from].first = ECS__NIL;
    }
}

/* Hash: a table of `cap` slots (a power of two >= 2) holding every key. */
static ecs_result ecs__map_rehash(ecs_entity_map *map, uint32_t cap, ecs_error *err)
{
    ecs_entity_map_slot *old = map->slots, *s;
    uint32_t old_slots = map->allocated ? map->mask + 1u : 0u, k;
    if (!ecs__fits(cap, sizeof *s) || !(s = (ecs_entity_map_slot *)ECS__REALLOC(NULL, (size_t)cap * sizeof *s)))
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "entity map: out of memory growing to %u slots", (unsigned)cap);
    ecs__map_clear(s, 0, cap);
    map->slots = s;
    map->mask = cap - 1u;
    map->mult = 0x9E3779B1u; /* (set here too: a zero-initialised map may arrive) */
    map->shift = 32u - ecs__log2(cap);
    map->count = 0;
    for (k = 0; k < old_slots; ++k)
        if (old[k].id) ecs__map_hash_insert(map, old[k].id, old[k].first);
    if (map->allocated) ECS__FREE(old);
    map->allocated = 1u;
    return ECS_OK;
}

/* Dense: covers every index up to max_index. Empty slots are {0, 0} (a
   memset; no key but 0 can match them) except slot 0, which is {0, NIL}. */
static ecs_result ecs__map_dense_reserve(ecs_entity_map *map, uint32_t max_index, ecs_error *err)
{
    /* never more slots than indices: mask must not keep generation bits */
    uint32_t old = map->allocated ? map->mask + 1u : 0u, cap = old ? old : (ECS_INDEX_MASK < 1023u ? ECS_INDEX_MASK + 1u : 1024u);
    ecs_entity_map_slot *s;
    if (max_index < old) return ECS_OK;
    if (max_index > ECS_INDEX_MASK)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "entity map: index %u out of range", (unsigned)max_index);
    while (cap <= max_index) cap *= 2u;
    if (!ecs__fits(cap, sizeof *s) ||
        !(s = (ecs_entity_map_slot *)ECS__REALLOC(map->allocated ? map->slots : NULL, (size_t)cap * sizeof *s)))
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "entity map: out of memory growing to %u entries", (unsigned)cap);
    memset(s + old, 0, (size_t)(cap - old) * sizeof *s);
    s[0].id = 0;
    s[0].first = ECS__NIL;
    map->slots = s;
    map->mask = cap - 1u;
    map->mult = 1u;
    map->shift = 0u;
    map->allocated = 1u;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_entity_map_reserve(ecs_entity_map *map, uint32_t keys, uint32_t max_index, ecs_error *err)
{
    uint32_t cap;
    if (map->kind == ECS_LOOKUP_DENSE) return ecs__map_dense_reserve(map, max_index, err);
    cap = map->allocated ? map->mask + 1u : 16u;
    if (map->allocated && (uint64_t)keys * 4u <= (uint64_t)cap * 3u) return ECS_OK;
    while ((uint64_t)keys * 4u > (uint64_t)cap * 3u) {
        if (cap >= 0x80000000u) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "entity map: %u keys are too many", (unsigned)keys);
        cap *= 2u;
    }
    return ecs__map_rehash(map, cap, err);
}

/* Hash: removes the key in slot h and shifts later members of its probe run
   back, so that no lookup meets a hole before its key. */
static void ecs__map_hash_erase_at(ecs_entity_map *map, uint32_t h)
{
    uint32_t mask = map->mask, j = h;
    for (;;) {
        uint32_t home;
        j = (j + 1u) & mask;
        if (map->slots[j].id == 0) break;
        home = ecs__map_home(map, map->slots[j].id);
        /* j's key may move to h only if h lies on its probe path home..j */
        if (((j - home) & mask) >= ((j - h) & mask)) {
            map->slots[h] = map->slots[j];
            h = j;
        }
    }
    map->slots[h].id = 0;
    map->slots[h].first = ECS__NIL;
    --map->count;
}

ECS_DEF void ecs_entity_map_set(ecs_entity_map *map, uint32_t key, uint32_t first)
{
    if (map->kind == ECS_LOOKUP_DENSE) {
        ecs_entity_map_slot *s = &map->slots[key & map->mask];
        if (first == ECS__NIL && s->id != key) return; /* not there (also: past the table) */
        ECS__ASSERT(map->allocated && (key & ECS_INDEX_MASK) <= map->mask && (key & ECS_INDEX_MASK) != 0);
        map->count += (uint32_t)(s->id == 0 && first != ECS__NIL) - (uint32_t)(s->id != 0 && first == ECS__NIL);
        s->id = first == ECS__NIL ? 0u : key;
        s->first = first == ECS__NIL ? 0u : first;
    } else {
        uint32_t h;
        for (h = ecs__map_home(map, key); map->slots[h].id != 0; h = (h + 1u) & map->mask)
            if (map->slots[h].id == key) {
                if (first == ECS__NIL) ecs__map_hash_erase_at(map, h);
                else map->slots[h].first = first;
                return;
            }
        if (first != ECS__NIL) {
            ECS__ASSERT(map->allocated && (uint64_t)(map->count + 1u) * 4u <= (uint64_t)(map->mask + 1u) * 3u);
            map->slots[h].id = key;
            map->slots[h].first = first;
            ++map->count;
        }
    }
}

ECS_DEF size_t ecs_entity_map_memory(const ecs_entity_map *map)
{
    return map->allocated ? (size_t)(map->mask + 1u) * sizeof *map->slots : 0u;
}

ECS_DEF ecs_result ecs_entity_map_copy(ecs_entity_map *dst, const ecs_entity_map *src, ecs_error *err)
{
    if (!src->allocated) {
        ecs_entity_map_free(dst);
        return ECS_OK;
    }
    if (!dst->allocated || dst->mask != src->mask) {
        ecs_entity_map_slot *slots = (ecs_entity_map_slot *)ECS__REALLOC(NULL, ((size_t)src->mask + 1u) * sizeof *slots);
        if (!slots) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "entity map: out of memory copying %u slots",
                                         (unsigned)(src->mask + 1u));
        if (dst->allocated) ECS__FREE(dst->slots);
        dst->slots = slots;
        dst->allocated = 1u;
    }
    memcpy(dst->slots, src->slots, ((size_t)src->mask + 1u) * sizeof *dst->slots);
    dst->mask = src->mask;
    dst->count = src->count;
    dst->mult = src->mult;
    dst->shift = src->shift;
    return ECS_OK;
}

/* ---- component managers: layout and growth --------------------------------- */

#define ECS__MIN_ALIGN 16u

static size_t ecs__field_align(const ecs_field_desc *f)
{
    return f->align > ECS__MIN_ALIGN ? f->align : ECS__MIN_ALIGN;
}

/* The largest array alignment of m's layout. */
static size_t ecs__max_align(const ecs_manager *m)
{
    size_t a = ECS__MIN_ALIGN;
    uint32_t k;
    for (k = 0; k < m->num_fields; ++k)
        if (ecs__field_align(&m->fields[k]) > a) a = ecs__field_align(&m->fields[k]);
    return a;
}

/* Bytes needed for `cap` instances of the layout `fields`, with each array
   aligned (offsets out), or 0 when that does not fit in size_t. Counted in
   64 bits, which cannot wrap: at most 2^32 instances of at most 2^31 bytes,
   plus at most 65 x 4096 bytes of padding for each of at most 65535 fields. */
static size_t ecs__layout(const ecs_field_desc *fields, uint32_t num_fields, uint32_t cap, size_t *offsets)
{
    uint64_t at = (uint64_t)cap * sizeof(ecs_entity), extra = ECS__MIN_ALIGN;
    uint32_t k;
    for (k = 0; k < num_fields; ++k) {
        uint64_t a = ecs__field_align(&fields[k]);
        if (a > extra) extra = a;
        /* stagger the arrays by a cache line each: with power-of-two
           capacities they would otherwise start at the same offset modulo
           4096, and a loop reading one array while writing another would
           suffer the CPU's 4K-aliasing stalls */
        at = ((at + a - 1u) & ~(a - 1u)) + (uint64_t)(k % 64u + 1u) * (a > 64u ? a : 64u);
        if (offsets) offsets[k] = (size_t)at;
        at += (uint64_t)cap * fields[k].size;
    }
    at += extra; /* room to align the buffer itself */
    return at > (uint64_t)(SIZE_MAX / 2u) ? 0u : (size_t)at;
}

/* Writes the current array pointers into the typed struct that follows the
   core (ECS_MANAGER_DEFINE), so that its typed pointers are never stale. */
static void ecs__publish_view(ecs_manager *m)
{
    char *view = (char *)m + sizeof *m;
    uint32_t k;
    if (!(m->flags & ECS__MANAGER_VIEW)) return;
    memcpy(view, &m->entity, sizeof m->entity);
    for (k = 0; k < m->num_fields; ++k) {
        void *p = m->field ? m->field[k] : NULL;
        memcpy(view + (size_t)(k + 1u) * sizeof p, &p, sizeof p);
    }
}

/* Grows the next-link array to `cap` entries (if there is one). */
static ecs_result ecs__next_reserve(ecs_manager *m, uint32_t cap)
{
    uint32_t *nx;
    if (!m->next) return ECS_OK;
    nx = (uint32_t *)ECS__REALLOC(m->next, (size_t)cap * sizeof *nx);
    if (!nx) return ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY, "component manager: out of memory");
    m->next = nx;
    return ECS_OK;
}

/* The entity array of a manager with no slots yet: one empty slot, so that
   a direct lookup reads memory even before (or after a failed) init. */
static ecs_entity ecs__no_entity[1];

static ecs_result ecs__not_ready(ecs_manager *m)
{
    return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT, "component manager: not initialised (init failed or never ran)");
}

ECS_DEF ecs_result ecs_manager_reserve(ecs_manager *m, uint32_t n)
{
    size_t offsets_small[16], *offsets = offsets_small, bytes, align;
    char *buf, *base;
    uint32_t k;
    if (!(m->flags & ECS__MANAGER_READY)) return ecs__not_ready(m);
    if (n <= m->capacity) return ECS_OK;
    if (m->lookup == ECS_LOOKUP_DIRECT) { /* slots for indices below n: a power of two */
        uint32_t cap = 16u;
        if (n > ECS_INDEX_MASK + 1u) n = ECS_INDEX_MASK + 1u;
        while (cap < n) cap *= 2u;
        n = cap;
    }
    bytes = ecs__layout(m->fields, m->num_fields, n, NULL);
    if (bytes == 0)
        return ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY, "component manager: %u instances of %u bytes do not fit in memory",
                             (unsigned)n, (unsigned)m->bytes_per_instance);
    if (m->num_fields > 16 && !(offsets = (size_t *)ECS__REALLOC(NULL, m->num_fields * sizeof *offsets)))
        return ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY, "component manager: out of memory");
    (void)ecs__layout(m->fields, m->num_fields, n, offsets);
    buf = ecs__next_reserve(m, n) == ECS_OK ? (char *)ECS__REALLOC(NULL, bytes) : NULL;
    if (!buf) {
        if (offsets != offsets_small) ECS__FREE(offsets);
        return ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY,
                             "component manager: out of memory growing to %u instances", (unsigned)n);
    }
    align = ecs__max_align(m);
    base = buf + ((align - ((uintptr_t)buf & (align - 1u))) & (align - 1u));
    /* direct kind: slots past count hold no entity (id 0) */
    if (m->count) memcpy(base, m->entity, (size_t)m->count * sizeof(ecs_entity));
    if (m->lookup == ECS_LOOKUP_DIRECT) memset(base + (size_t)m->count * sizeof(ecs_entity), 0, (size_t)(n - m->count) * sizeof(ecs_entity));
    for (k = 0; k < m->num_fields; ++k) {
        if (m->count) memcpy(base + offsets[k], m->field[k], (size_t)m->count * m->fields[k].size);
        m->field[k] = base + offsets[k];
    }
    m->entity = (ecs_entity *)(void *)base;
    ECS__FREE(m->buffer);
    m->buffer = buf;
    m->capacity = n;
    if (m->lookup == ECS_LOOKUP_DIRECT) m->slot_mask = n - 1u;
    if (offsets != offsets_small) ECS__FREE(offsets);
    ecs__publish_view(m);
    return ECS_OK;
}

/* Room for `needed` instances (direct: slots), growing geometrically. */
static ecs_result ecs__grow_for(ecs_manager *m, uint32_t needed)
{
    uint32_t cap = m->capacity < 8u ? 16u : (m->capacity > 0x7FFFFFFFu ? 0xFFFFFFFFu : m->capacity * 2u);
    if (needed <= m->capacity) return ECS_OK;
    return ecs_manager_reserve(m, needed > cap ? needed : cap);
}

/* Copies the field table and the names into one block. */
static ecs_result ecs__copy_fields(ecs_manager *m, const ecs_field_desc *fields, uint32_t num_fields)
{
    size_t names = 0;
    uint32_t k;
    char *at;
    for (k = 0; k < num_fields; ++k) names += fields[k].name ? strlen(fields[k].name) + 1u : 0u;
    m->fields = (ecs_field_desc *)ECS__REALLOC(NULL, num_fields * sizeof *m->fields + names);
    m->field = (void **)ECS__REALLOC(NULL, num_fields * sizeof *m->field);
    if (!m->fields || !m->field) {
        ECS__FREE(m->fields);
        ECS__FREE(m->field);
        m->fields = NULL;
        m->field = NULL;
        return ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY, "ecs_manager_init: out of memory");
    }
    memcpy(m->fields, fields, num_fields * sizeof *m->fields);
    at = (char *)(m->fields + num_fields);
    for (k = 0; k < num_fields; ++k)
        if (fields[k].name) {
            size_t len = strlen(fields[k].name) + 1u;
            memcpy(at, fields[k].name, len);
            m->fields[k].name = at;
            at += len;
        }
    memset(m->field, 0, num_fields * sizeof *m->field);
    m->num_fields = num_fields;
    return ECS_OK;
}

static ecs_result ecs__check_fields(ecs_manager *m, const ecs_field_desc *fields, uint32_t num_fields)
{
    uint64_t bytes = sizeof(ecs_entity);
    uint32_t k;
    if (num_fields && !fields)
        return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_manager_init: fields is NULL");
    if (num_fields > 0xFFFFu)
        return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_manager_init: %u fields are too many", (unsigned)num_fields);
    for (k = 0; k < num_fields; ++k) {
        uint32_t a = fields[k].align;
        if (fields[k].size == 0 || a == 0 || (a & (a - 1u)) != 0 || a > 4096u)
            return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT,
                                 "ecs_manager_init: field %u (%s) has size %u, align %u", (unsigned)k,
                                 fields[k].name ? fields[k].name : "?", (unsigned)fields[k].size, (unsigned)a);
        bytes += fields[k].size;
    }
    if (bytes > 0x7FFFFFFFu || ecs__layout(fields, num_fields, 16u, NULL) == 0)
        return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_manager_init: %u fields of %llu bytes in all, with their alignment padding, do not fit in memory",
                             (unsigned)num_fields, (unsigned long long)bytes);
    m->bytes_per_instance = (uint32_t)bytes;
    return ECS_OK;
}

static ecs_result ecs__manager_init(ecs_manager *m, const ecs_field_desc *fields, uint32_t num_fields,
                                    ecs_lookup_kind lookup, uint32_t view)
{
    ecs_result r;
    memset(m, 0, sizeof *m);
    m->entity = ecs__no_entity;
    m->flags = view;
    m->lookup = lookup;
    m->rng = 0x9E3779B9u;
    /* each life starts at its own version: a query that remembered runs of
       a manager freed and initialised again at the same address rescans */
    m->version = ecs__next_life() * 0x9E3779B1u;
    ecs_entity_map_init(&m->map, lookup);
    if (lookup != ECS_LOOKUP_HASH && lookup != ECS_LOOKUP_DENSE && lookup != ECS_LOOKUP_DIRECT)
        r = ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_manager_init: unknown lookup kind %d", (int)lookup);
    else if ((r = ecs__check_fields(m, fields, num_fields)) == ECS_OK && num_fields)
        r = ecs__copy_fields(m, fields, num_fields);
    if (r == ECS_OK) {
        m->flags |= ECS__MANAGER_READY;
        /* direct: slot 0 (never owned) always exists, for the fast read */
        if (lookup == ECS_LOOKUP_DIRECT && (r = ecs_manager_reserve(m, 16u)) != ECS_OK) m->flags &= ~ECS__MANAGER_READY;
    }
    if (r != ECS_OK) { /* a manager on which every call fails cleanly */
        ecs_error saved = m->error;
        ecs_manager_free(m);
        ecs_entity_map_init(&m->map, lookup);
        m->entity = ecs__no_entity;
        m->flags = view;
        m->lookup = lookup;
        m->error = saved;
    }
    ecs__publish_view(m);
    return r;
}

ECS_DEF ecs_result ecs_manager_init(ecs_manager *m, const ecs_field_desc *fields, uint32_t num_fields, ecs_lookup_kind lookup)
{
    return ecs__manager_init(m, fields, num_fields, lookup, 0u);
}

ECS_DEF ecs_result ecs_manager_init_with_view(ecs_manager *m, const ecs_field_desc *fields, uint32_t num_fields,
                                      ecs_lookup_kind lookup)
{
    return ecs__manager_init(m, fields, num_fields, lookup, ECS__MANAGER_VIEW);
}

ECS_DEF void ecs_manager_free(ecs_manager *m)
{
    uint32_t view = m->flags & ECS__MANAGER_VIEW, num_fields = m->num_fields;
    ecs_lookup_kind lookup = m->lookup;
    while (m->group) ecs_group_free(m->group); /* each frees the next group of m's chain */
    ECS__FREE(m->buffer);
    ECS__FREE(m->field);
    ECS__FREE(m->fields);
    ECS__FREE(m->next);
    ECS__FREE(m->schema);
    ecs_entity_map_free(&m->map);
    memset(m, 0, sizeof *m);
    /* what is left fails cleanly: lookups find nothing, creates are refused */
    ecs_entity_map_init(&m->map, lookup);
    m->lookup = lookup;
    m->entity = ecs__no_entity;
    if (view) { /* the typed pointers: entity at the empty slot, fields NULL */
        m->flags = ECS__MANAGER_VIEW;
        memset((char *)m + sizeof *m, 0, (size_t)(num_fields + 1u) * sizeof(void *));
        memcpy((char *)m + sizeof *m, &m->entity, sizeof m->entity);
    }
}

/* ---- component managers: create ----------------------------------------------- */

static void ecs__destroy_known(ecs_manager *m, uint32_t i, uint32_t id);
static void ecs__drop_slot_owner(ecs_manager *m, uint32_t id, uint32_t owner);
static void ecs__groups_enter(ecs_manager *m, uint32_t id);
static uint32_t ecs__group_leave(ecs_manager *m, uint32_t i);

/* The first instance of the entity with key id, or NIL (any kind). */
static uint32_t ecs__first(const ecs_manager *m, uint32_t id)
{
    if (m->lookup == ECS_LOOKUP_DIRECT) {
        uint32_t idx = id & ECS_INDEX_MASK;
        return idx < m->capacity && id != 0 && m->entity[idx].id == id ? idx : ECS__NIL;
    }
    return ecs_entity_map_find(&m->map, id);
}

static uint32_t ecs__next_of(const ecs_manager *m, uint32_t i)
{
    return m->next ? m->next[i] : ECS__NIL;
}

/* Creates the next-link array (all NIL) when the first entity gets a second
   instance. */
static ecs_result ecs__need_next(ecs_manager *m)
{
    if (m->next) return ECS_OK;
    m->next = (uint32_t *)ECS__REALLOC(NULL, (size_t)(m->capacity ? m->capacity : 1u) * sizeof *m->next);
    if (!m->next) return ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY, "component manager: out of memory");
    memset(m->next, 0xFF, (size_t)m->capacity * sizeof *m->next);
    return ECS_OK;
}

/* Direct kind: takes slot idx for id (room and id checked by the caller). */
static void ecs__direct_take(ecs_manager *m, uint32_t id)
{
    uint32_t idx = id & ECS_INDEX_MASK;
    m->num_instances += m->entity[idx].id == 0; /* a stale owner's slot is taken over */
    m->entity[idx].id = id;
    if (idx >= m->count) m->count = idx + 1u;
    ++m->version;
}

/* Dense and hash: appends instance `count` for id, after id's other
   instances. Room in the arrays, the map and (if id has an instance) the
   next-link array is the caller's. */
static uint32_t ecs__append(ecs_manager *m, uint32_t id)
{
    uint32_t i = m->count, p = ecs__first(m, id);
    if (p == ECS__NIL) {
        ecs_entity_map_set(&m->map, id, i);
    } else {
        while (m->next[p] != ECS__NIL) p = m->next[p];
        m->next[p] = i;
    }
    m->entity[i].id = id;
    if (m->next) m->next[i] = ECS__NIL;
    m->count = i + 1u;
    ++m->num_instances;
    return i;
}

/* m's name in its world ("?" when not found). */
static const char *ecs__manager_name(const ecs_manager *m)
{
    uint32_t k;
    for (k = 0; m->world && k < m->world->num_components; ++k)
        if (m->world->component[k].manager == m) return m->world->component[k].name;
    return "?";
}

/* A create for an entity its world does not have alive: the error, naming
   both. */
static ecs_result ecs__not_alive_in_world(ecs_manager *m, ecs_entity e, const char *call)
{
    char who[ECS_ENTITY_TEXT_SIZE];
    return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT,
                         "component manager '%s': %s for %s, which is not alive in its world (destroyed, or "
                         "never created there)", ecs__manager_name(m), call, ecs_entity_format(who, sizeof who, e));
}

/* Hash: one probe finds either id (a further instance, chained) or the
   empty slot it goes into. Room for the instance and the key is reserved. */
static ecs_instance ecs__create_hash(ecs_manager *m, uint32_t id)
{
    ecs_entity_map_slot *s = m->map.slots;
    uint32_t h = ecs__map_home(&m->map, id), i = m->count;
    while (s[h].id != 0 && s[h].id != id) h = (h + 1u) & m->map.mask;
    if (s[h].id == id) { /* a further instance */
        uint32_t p = s[h].first;
        if (ecs__need_next(m) != ECS_OK) return ecs_instance_nil();
        while (m->next[p] != ECS__NIL) p = m->next[p];
        m->next[p] = i;
    } else {
        s[h].id = id;
        s[h].first = i;
        ++m->map.count;
    }
    m->entity[i].id = id;
    if (m->next) m->next[i] = ECS__NIL;
    m->count = i + 1u;
    ++m->num_instances;
    return ecs_instance_make(i);
}

/* Dense and direct: the id whose instances hold id's index's slot (0: none). */
static uint32_t ecs__slot_owner(const ecs_manager *m, uint32_t id)
{
    uint32_t idx = id & ECS_INDEX_MASK;
    if (m->lookup == ECS_LOOKUP_DIRECT) return idx < m->capacity ? m->entity[idx].id : 0u;
    return m->lookup == ECS_LOOKUP_DENSE && idx <= m->map.mask ? m->map.slots[idx].id : 0u;
}

/* ECS_OK when id may have its index's slot, which `owner` holds: nobody,
   id itself, or an id that id supersedes (in a world every other id, as
   id is alive there). Else the error naming both: id is the dead one. */
static ecs_result ecs__slot_check(ecs_manager *m, uint32_t id, uint32_t owner, const char *call)
{
    char who[ECS_ENTITY_TEXT_SIZE], whose[ECS_ENTITY_TEXT_SIZE];
    if (owner == 0 || owner == id || m->world || ecs__id_supersedes(id, owner)) return ECS_OK;
    return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT,
                         "component manager: %s for %s, a dead id: its index's slot belongs to %s, a later id (one "
                         "id per index here)", call, ecs_entity_format(who, sizeof who, ecs__as_entity(id)),
                         ecs_entity_format(whose, sizeof whose, ecs__as_entity(owner)));
}

static ecs_instance ecs__create_direct(ecs_manager *m, uint32_t id)
{
    uint32_t idx = id & ECS_INDEX_MASK;
    char who[ECS_ENTITY_TEXT_SIZE];
    if (idx < m->capacity && m->entity[idx].id == id) {
        ecs_error_set(&m->error, ECS_ERROR_ALREADY_EXISTS, "component manager (direct): %s already has an instance",
                      ecs_entity_format(who, sizeof who, ecs__as_entity(id)));
        return ecs_instance_nil();
    }
    if (ecs__grow_for(m, idx + 1u) != ECS_OK) return ecs_instance_nil();
    ecs__direct_take(m, id);
    return ecs_instance_make(idx);
}

ECS_DEF ecs_instance ecs_manager_create_slow__needs_ECS_IMPLEMENTATION_in_one_file(ecs_manager *m, ecs_entity e)
{
    uint32_t id = ecs_entity_key(e), owner;
    if (!(m->flags & ECS__MANAGER_READY)) {
        ecs__not_ready(m);
        return ecs_instance_nil();
    }
    if ((id & ECS_INDEX_MASK) == 0) {
        ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT, "component manager: create for the nil entity");
        return ecs_instance_nil();
    }
    if (!ecs__manager_takes(m, e)) {
        ecs__not_alive_in_world(m, e, "create");
        return ecs_instance_nil();
    }
    owner = ecs__slot_owner(m, id); /* read and judged once: growth below keeps every slot's owner */
    if (ecs__slot_check(m, id, owner, "create") != ECS_OK) return ecs_instance_nil();
    if (m->lookup == ECS_LOOKUP_DIRECT) return ecs__create_direct(m, id);
    if (m->group && ecs__first(m, id) != ECS__NIL) { /* a grouped member: one instance per entity */
        char who[ECS_ENTITY_TEXT_SIZE];
        ecs_error_set(&m->error, ECS_ERROR_ALREADY_EXISTS, "component manager (grouped): %s already has an instance",
                      ecs_entity_format(who, sizeof who, e));
        return ecs_instance_nil();
    }
    if (m->count == 0xFFFFFFFEu) {
        ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY, "component manager: instance count limit reached");
        return ecs_instance_nil();
    }
    if (ecs__grow_for(m, m->count + 1u) != ECS_OK ||
        ecs_entity_map_reserve(&m->map, m->map.count + 1u, id & ECS_INDEX_MASK, &m->error) != ECS_OK)
        return ecs_instance_nil();
    if (m->group) { /* a new instance that completes its entity's set joins the group (and moves) */
        ecs__drop_slot_owner(m, id, owner);
        ecs__append(m, id);
        ecs__groups_enter(m, id);
        return ecs_instance_make(ecs__first(m, id));
    }
    if (m->lookup == ECS_LOOKUP_HASH) return ecs__create_hash(m, id);
    ecs__drop_slot_owner(m, id, owner); /* then id owns its slot or nothing: the two cases below exclude it */
    if (ecs__first(m, id) != ECS__NIL && ecs__need_next(m) != ECS_OK) return ecs_instance_nil();
    return ecs_instance_make(ecs__append(m, id));
}

ECS_DEF ecs_instance ecs_manager_create(ecs_manager *m, ecs_entity e)
{
    ecs_instance i = ecs_manager_create_uninitialized(m, e);
    uint32_t k;
    if (!ecs_instance_is_nil(i))
        for (k = 0; k < m->num_fields; ++k) memset(ecs_manager_field(m, k, i.i), 0, m->fields[k].size);
    return i;
}

/* Copies `size` bytes; the common small sizes as plain loads and stores (a
   switch of memcpy calls may be merged back into one call by the compiler). */
static void ecs__copy(void *dst, const void *src, uint32_t size)
{
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    uint64_t a, b;
    uint32_t c;
    switch (size) {
    case 4: memcpy(&c, s, 4); memcpy(d, &c, 4); break;
    case 8: memcpy(&a, s, 8); memcpy(d, &a, 8); break;
    case 12: memcpy(&a, s, 8); memcpy(&c, s + 8, 4); memcpy(d, &a, 8); memcpy(d + 8, &c, 4); break;
    case 16: memcpy(&a, s, 8); memcpy(&b, s + 8, 8); memcpy(d, &a, 8); memcpy(d + 8, &b, 8); break;
    default: memcpy(d, s, size); break;
    }
}

/* A batch's entity k: es[k], or es[index[k]] for a spawn. */
static ecs_entity ecs__batch_entity(const ecs_entity *es, const uint32_t *index, uint32_t k)
{
    return es[index ? index[k] : k];
}

/* Copies n packed records (ecs_manager_record_size) into the field arrays,
   one field at a time: record j goes to instance first + j (dense, hash) or
   to batch entity j's slot (direct). A schema's runtime fields have no bytes
   in a record and are zero-filled. */
static void ecs__copy_records(ecs_manager *m, uint32_t n, const ecs_entity *es, const uint32_t *index, uint32_t first,
                              const void *records)
{
    uint32_t rec = ecs_manager_record_size(m), j, k;
    const unsigned char *at = (const unsigned char *)records;
    int direct = m->lookup == ECS_LOOKUP_DIRECT;
    for (k = 0; k < m->num_fields; ++k) {
        uint32_t sz = m->fields[k].size;
        unsigned char *base = (unsigned char *)m->field[k];
        const unsigned char *from = at;
        int runtime = m->schema && !m->schema->fields[k].spec;
        for (j = 0; j < n; ++j, from += rec) {
            uint32_t i = direct ? ecs__batch_entity(es, index, j).id & ECS_INDEX_MASK : first + j;
            if (runtime) memset(base + (size_t)i * sz, 0, sz);
            else ecs__copy(base + (size_t)i * sz, from, sz);
        }
        if (!runtime) at += sz;
    }
}

/* A batch's checks that need no memory. */
static ecs_result ecs__batch_check(ecs_manager *m, uint32_t n, const ecs_entity *es)
{
    if (!(m->flags & ECS__MANAGER_READY)) return ecs__not_ready(m);
    if (n && !es) return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT, "create_many: entities is NULL");
    if (m->lookup != ECS_LOOKUP_DIRECT && (uint64_t)m->count + n > 0xFFFFFFFEu)
        return ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY, "create_many: %u more instances exceed the count limit", (unsigned)n);
    return ECS_OK;
}

static ecs_result ecs__batch_nil(ecs_manager *m, uint32_t k)
{
    return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT, "create_many: batch entry %u is the nil entity", (unsigned)k);
}

static ecs_result ecs__batch_grouped_twice(ecs_manager *m, uint32_t id)
{
    char who[ECS_ENTITY_TEXT_SIZE];
    return ecs_error_set(&m->error, ECS_ERROR_ALREADY_EXISTS, "create_many (grouped): %s would own two instances",
                         ecs_entity_format(who, sizeof who, ecs__as_entity(id)));
}

#define ECS__BATCH_MARK 0x80000000u /* never set in a stored id (the top bits are masked off) */

/* Direct kind: claims every batch entity's slot, or fails (nothing changed)
   when an entity is nil or already present, or two batch ids share an index.
   Slots are marked while checking, so no memory is needed. */
static ecs_result ecs__batch_direct(ecs_manager *m, uint32_t n, const ecs_entity *es, const uint32_t *index)
{
    uint32_t k, j, max_index = 0;
    for (k = 0; k < n; ++k) {
        uint32_t idx = ecs__batch_entity(es, index, k).id & ECS_INDEX_MASK;
        if (idx == 0) return ecs__batch_nil(m, k);
        if (idx > max_index) max_index = idx;
    }
    if (ecs__grow_for(m, max_index + 1u) != ECS_OK) return m->error.code;
    for (k = 0; k < n; ++k) {
        uint32_t id = ecs_entity_key(ecs__batch_entity(es, index, k)), *slot = &m->entity[id & ECS_INDEX_MASK].id;
        if (*slot == id || (*slot & ECS__BATCH_MARK) || ecs__slot_check(m, id, *slot, "create_many") != ECS_OK) {
            char who[ECS_ENTITY_TEXT_SIZE];
            int present = *slot == id, twice = (*slot & ECS__BATCH_MARK) != 0; /* else: a dead id (error set) */
            for (j = 0; j < k; ++j) m->entity[ecs__batch_entity(es, index, j).id & ECS_INDEX_MASK].id &= ~ECS__BATCH_MARK;
            if (!present && !twice) return m->error.code;
            return ecs_error_set(&m->error, ECS_ERROR_ALREADY_EXISTS,
                                 present ? "create_many (direct): %s already has an instance"
                                         : "create_many (direct): the index of %s is listed twice",
                                 ecs_entity_format(who, sizeof who, ecs__as_entity(id)));
        }
        *slot |= ECS__BATCH_MARK;
    }
    for (k = 0; k < n; ++k) {
        uint32_t id = ecs_entity_key(ecs__batch_entity(es, index, k));
        m->entity[id & ECS_INDEX_MASK].id &= ~ECS__BATCH_MARK;
        ecs__direct_take(m, id);
    }
    return ECS_OK;
}

/* Dense kind: an index whose slot names another (older, dead) id, `owner`
   (ecs__slot_owner, already judged by ecs__slot_check), loses that id's
   instances before a new entity of that index gets one, so that no
   instance is ever unreachable from the map. */
static void ecs__drop_slot_owner(ecs_manager *m, uint32_t id, uint32_t owner)
{
    uint32_t i;
    if (m->lookup != ECS_LOOKUP_DENSE || owner == 0 || owner == id) return;
    while ((i = ecs_entity_map_find_dense(&m->map, owner)) != ECS__NIL) ecs__destroy_known(m, i, owner);
}

/* Dense: appends batch entities from k on while each one's slot is covered
   and empty (the common case); returns where it stopped. Works in locals:
   the stores may alias *m. */
static uint32_t ecs__batch_dense_run(ecs_manager *m, uint32_t k, uint32_t n, const ecs_entity *es, const uint32_t *index)
{
    ecs_entity_map_slot *slots = m->map.slots;
    ecs_entity *ent = m->entity;
    uint32_t *nx = m->next, mask = m->map.mask, i = m->count, i0 = i;
    for (; k < n; ++k) {
        uint32_t id = ecs_entity_key(es[index ? index[k] : k]), idx = id & ECS_INDEX_MASK;
        if (idx - 1u >= mask || slots[idx].id != 0) break; /* index 0, past the table, or taken */
        slots[idx].id = id;
        slots[idx].first = i;
        ent[i].id = id;
        if (nx) nx[i] = ECS__NIL;
        ++i;
    }
    m->map.count += i - i0;
    m->num_instances += i - i0;
    m->count = i;
    return k;
}

/* The largest entity index among batch entities k.. k+n-1 (for one map
   growth where the run met an index past the table). */
static uint32_t ecs__batch_max_index(uint32_t n, const ecs_entity *es, const uint32_t *index, uint32_t k)
{
    uint32_t max_index = 0, j;
    for (j = k; j < k + n; ++j) {
        uint32_t idx = ecs__batch_entity(es, index, j).id & ECS_INDEX_MASK;
        if (idx > max_index) max_index = idx;
    }
    return max_index;
}

static ecs_result ecs__batch_two_ids(ecs_manager *m, uint32_t idx)
{
    return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT,
                         "create_many: two ids of index %u in one batch (at most one is alive)", (unsigned)idx);
}

/* Dense, a batch that met an older id's slot: checks everything the append
   after the drop could fail on, before anything is dropped (nil entities,
   two ids of one index, an entity twice in a group member; the map's room
   and the next links are made here). Each index's first batch entry marks
   its map slot (the slot is saved in a scratch copy and restored). */
static ecs_result ecs__batch_dense_validate(ecs_manager *m, uint32_t n, const ecs_entity *es, const uint32_t *index)
{
    ecs_entity_map_slot *saved, *s;
    uint32_t k, j, twice = 0; /* an id the batch gives a second instance */
    ecs_result r = ECS_OK;
    if (ecs_entity_map_reserve(&m->map, 0, ecs__batch_max_index(n, es, index, 0), &m->error) != ECS_OK) return m->error.code;
    if (!ecs__fits(n, sizeof *saved) || !(saved = (ecs_entity_map_slot *)ECS__REALLOC(NULL, (size_t)n * sizeof *saved)))
        return ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY, "create_many: out of memory");
    for (k = 0; k < n && r == ECS_OK; ++k) {
        uint32_t id = ecs_entity_key(ecs__batch_entity(es, index, k)), idx = id & ECS_INDEX_MASK;
        s = &m->map.slots[idx];
        if (idx == 0) {
            r = ecs__batch_nil(m, k);
        } else if (s->id & ECS__BATCH_MARK) {
            if ((s->id & ~ECS__BATCH_MARK) != id) r = ecs__batch_two_ids(m, idx);
            twice = id;
        } else if ((r = ecs__slot_check(m, id, s->id, "create_many")) == ECS_OK) {
            saved[k] = *s;
            if (s->id == id) twice = id;
            s->id = id | ECS__BATCH_MARK;
            s->first = k;
        }
    }
    for (j = 0; j < k; ++j) {
        s = &m->map.slots[ecs__batch_entity(es, index, j).id & ECS_INDEX_MASK];
        if ((s->id & ECS__BATCH_MARK) && s->first == j) *s = saved[j];
    }
    ECS__FREE(saved);
    if (r == ECS_OK && twice) r = m->group ? ecs__batch_grouped_twice(m, twice) : ecs__need_next(m);
    return r;
}

/* Dense: what the run could not do for entity k: appends it (ECS_OK), or
   sets *stale (a slot names an older id; nothing done), or fails. */
static ecs_result ecs__batch_dense_one(ecs_manager *m, uint32_t n, const ecs_entity *es, const uint32_t *index,
                                       uint32_t k, uint32_t first, int *stale)
{
    uint32_t id = ecs_entity_key(ecs__batch_entity(es, index, k)), idx = id & ECS_INDEX_MASK;
    ecs_entity_map_slot *s;
    if (idx == 0) return ecs__batch_nil(m, k);
    if (idx > m->map.mask && /* one growth for the rest of the batch */
        ecs_entity_map_reserve(&m->map, 0, ecs__batch_max_index(n - k, es, index, k), &m->error) != ECS_OK)
        return m->error.code;
    s = &m->map.slots[idx];
    if (s->id != 0 && s->id != id) {
        if (s->first >= first) return ecs__batch_two_ids(m, idx);
        *stale = 1;
        return ECS_OK;
    }
    if (s->id == id && m->group) return ecs__batch_grouped_twice(m, id);
    if (s->id == id && ecs__need_next(m) != ECS_OK) return m->error.code;
    ecs__append(m, id);
    return ECS_OK;
}

/* Dense and hash: appends one instance per batch entity (room for the
   instances, and hash map room, reserved by the caller). Returns ECS_OK with
   everything appended; or, having removed what it added, an error, or ECS_OK
   with *stale set (a dense slot names an older id: drop those, try again). */
static ecs_result ecs__batch_append(ecs_manager *m, uint32_t n, const ecs_entity *es, const uint32_t *index, int *stale)
{
    uint32_t k = 0, first = m->count;
    ecs_result r = ECS_OK;
    *stale = 0;
    while (k < n && r == ECS_OK && !*stale) {
        uint32_t id;
        if (m->lookup == ECS_LOOKUP_DENSE && (k = ecs__batch_dense_run(m, k, n, es, index)) == n) break;
        id = ecs_entity_key(ecs__batch_entity(es, index, k));
        if (m->lookup == ECS_LOOKUP_DENSE) {
            r = ecs__batch_dense_one(m, n, es, index, k, first, stale);
        } else if ((id & ECS_INDEX_MASK) == 0) {
            r = ecs__batch_nil(m, k);
        } else {
            if ((m->group || !m->next) && ecs_entity_map_find_hash(&m->map, id) != ECS__NIL)
                r = m->group ? ecs__batch_grouped_twice(m, id) : ecs__need_next(m);
            if (r == ECS_OK) ecs__append(m, id);
        }
        ++k;
    }
    if (r != ECS_OK || *stale) /* ours are the last instances, each the tail of its chain */
        while (m->count > first) ecs__destroy_known(m, m->count - 1u, m->entity[m->count - 1u].id);
    return r;
}

#define ECS__SORT_BITS 11u  /* the hash batch's buckets: at most 2048 */
#define ECS__BUILD_BITS 9u   /* the hash build's buckets: at most 512 (fewer streams to scatter to than 2048) */
#define ECS__WINDOW_BITS 10u /* and its windows: at least 1024 slots (8 KB) */

/* Hash, a large batch: counts the batch's keys by bucket (the top `bits`
   bits of their home slot in a table of 2^(32 - shift) slots). 0 when a key
   is nil. */
static int ecs__batch_bucket_count(uint32_t n, const ecs_entity *es, const uint32_t *index, uint32_t shift, uint32_t bits,
                                   uint32_t *counts)
{
    uint32_t k, drop = 32u - shift - bits;
    memset(counts, 0, sizeof(uint32_t) << bits);
    for (k = 0; k < n; ++k) {
        uint32_t key = ecs_entity_key(ecs__batch_entity(es, index, k));
        if ((key & ECS_INDEX_MASK) == 0) return 0;
        ++counts[((key * 0x9E3779B1u) >> shift) >> drop];
    }
    return 1;
}

/* Turns bucket counts into bucket starts. */
static void ecs__bucket_starts(uint32_t *counts, uint32_t bits)
{
    uint32_t b, sum = 0;
    for (b = 0; b < (1u << bits); ++b) {
        uint32_t c = counts[b];
        counts[b] = sum;
        sum += c;
    }
}

/* Puts (instance << 32) | key of batch entity k, instance first + k, at its
   bucket's next place in `sorted` (counts: the places; each ends as its
   bucket's end), and the key into the entity array. */
static void ecs__batch_bucket_fill(ecs_manager *m, uint32_t n, const ecs_entity *es, const uint32_t *index, uint32_t shift,
                                   uint32_t bits, uint32_t *counts, uint64_t *sorted)
{
    uint32_t k, drop = 32u - shift - bits, first = m->count;
    for (k = 0; k < n; ++k) {
        uint32_t key = ecs_entity_key(ecs__batch_entity(es, index, k));
        sorted[counts[((key * 0x9E3779B1u) >> shift) >> drop]++] = (uint64_t)(first + k) << 32 | key;
        m->entity[first + k].id = key;
    }
}

/* After a batch went in whole: its n instances are counted. */
static void ecs__batch_appended(ecs_manager *m, uint32_t n)
{
    if (m->next) memset(m->next + m->count, 0xFF, (size_t)n * sizeof *m->next);
    m->map.count += n;
    m->count += n;
    m->num_instances += n;
}

/* Hash, a large batch the wholesale build does not take (one smaller than
   the keys already there):
   inserts the keys bucket by bucket of their home slots (a counting sort on
   the top ECS__SORT_BITS bits of the home), so that the probes of one bucket
   stay in a window of the table small enough for the L1 cache, instead of
   one cache miss per key. Returns 1 when every key is in and the instances
   appended; 0, with nothing changed, when the table is small, scratch memory
   fails, or a key is nil or already present (in the map or earlier in the
   batch): the caller takes the general path. The room in the arrays and the
   map is reserved. */
static int ecs__batch_hash_sorted(ecs_manager *m, uint32_t n, const ecs_entity *es, const uint32_t *index)
{
    uint32_t counts[1u << ECS__SORT_BITS], log2cap = 32u - m->map.shift, j;
    uint32_t mask = m->map.mask, shift = m->map.shift;
    ecs_entity_map_slot *slots = m->map.slots;
    uint64_t *sorted;
    if (n < 4096u || log2cap <= ECS__SORT_BITS + 6u || !ecs__fits(n, sizeof *sorted)) return 0;
    if (!ecs__batch_bucket_count(n, es, index, shift, ECS__SORT_BITS, counts)) return 0;
    if (!(sorted = (uint64_t *)ECS__REALLOC(NULL, (size_t)n * sizeof *sorted))) return 0;
    ecs__bucket_starts(counts, ECS__SORT_BITS);
    ecs__batch_bucket_fill(m, n, es, index, shift, ECS__SORT_BITS, counts, sorted);
    for (j = 0; j < n; ++j) {
        uint32_t key = (uint32_t)sorted[j], h = (key * 0x9E3779B1u) >> shift;
        if (j + 16u < n) ECS__PREFETCH(&slots[((uint32_t)sorted[j + 16u] * 0x9E3779B1u) >> shift]);
        while (slots[h].id != 0 && slots[h].id != key) h = (h + 1u) & mask;
        if (slots[h].id == key) break; /* a second instance: the general path chains it */
        slots[h].id = key;
        slots[h].first = (uint32_t)(sorted[j] >> 32);
    }
    if (j < n) { /* undo: take out the keys put in, newest first */
        m->map.count += j; /* (erase counts them down) */
        while (j-- > 0) {
            uint32_t key = (uint32_t)sorted[j], h = (key * 0x9E3779B1u) >> shift;
            while (slots[h].id != key) h = (h + 1u) & mask;
            ecs__map_hash_erase_at(&m->map, h);
        }
        ECS__FREE(sorted);
        return 0;
    }
    ECS__FREE(sorted);
    ecs__batch_appended(m, n);
    return 1;
}

/* Hash build: places the bucketed keys (bucket b: sorted[ends[b-1]..ends[b]),
   bucket b's homes in window b of 2^drop slots) into the new table s, in
   slot order. Each window is emptied just before the keys that may probe
   into it arrive, so every cache line of the table is written once while
   in cache. 0 when a key is met twice. */
static int ecs__map_place(ecs_entity_map_slot *s, uint32_t log2cap, uint32_t drop, const uint64_t *sorted, const uint32_t *ends)
{
    uint32_t mask = (1u << log2cap) - 1u, shift = 32u - log2cap, w = 1u << drop, buckets = 1u << (log2cap - drop);
    uint32_t ready = 0, b, j = 0;
    for (b = 0; b < buckets; ++b) {
        uint32_t top = b + 2u < buckets ? (b + 2u) << drop : mask + 1u;
        if (ready < top) ecs__map_clear(s, ready, top);
        ready = ready < top ? top : ready;
        for (; j < ends[b]; ++j) {
            uint32_t key = (uint32_t)sorted[j], h = (key * 0x9E3779B1u) >> shift;
            while (s[h].id != 0) {
                if (s[h].id == key) return 0;
                h = (h + 1u) & mask;
                if (h == ready) { /* a run longer than a window: empty one more */
                    ecs__map_clear(s, ready, ready + w);
                    ready += w;
                }
            }
            s[h].id = key;
            s[h].first = (uint32_t)(sorted[j] >> 32);
        }
    }
    return 1;
}

/* Hash, a large batch at least as big as the keys already there: builds a
   new table wholesale from the old keys and the batch's, bucketed by home
   slot (as ecs__batch_hash_sorted) and placed window after window
   (ecs__map_place): no probe leaves the cache, and the table is written once.
   Returns 1 when the table holds every key and the instances are appended;
   0, nothing changed, when the batch is small or smaller than the table's
   keys, or a key is nil or present twice (in the map, or in the batch): the
   caller takes the general path; -1, nothing changed, when memory fails
   (m->error set). Room in the arrays is reserved; the map's is not needed. */
static int ecs__batch_hash_build(ecs_manager *m, uint32_t n, const ecs_entity *es, const uint32_t *index)
{
    uint32_t counts[1u << ECS__BUILD_BITS], old_slots = m->map.allocated ? m->map.mask + 1u : 0u, total, cap, log2cap;
    uint32_t shift, bits, drop, k, at;
    ecs_entity_map_slot *old = m->map.slots, *s;
    uint64_t *sorted;
    if (n < 4096u || n < m->map.count || (uint64_t)m->map.count + n > 0x60000000u) return 0;
    total = m->map.count + n;
    for (cap = old_slots > 16u ? old_slots : 16u; (uint64_t)total * 4u > (uint64_t)cap * 3u;) cap *= 2u;
    log2cap = ecs__log2(cap);
    shift = 32u - log2cap;
    bits = log2cap - ECS__WINDOW_BITS < ECS__BUILD_BITS ? log2cap - ECS__WINDOW_BITS : ECS__BUILD_BITS;
    drop = log2cap - bits;
    if (!ecs__batch_bucket_count(n, es, index, shift, bits, counts)) return 0;
    for (k = 0; k < old_slots; ++k)
        if (old[k].id) ++counts[((old[k].id * 0x9E3779B1u) >> shift) >> drop];
    sorted = ecs__fits(total, sizeof *sorted) ? (uint64_t *)ECS__REALLOC(NULL, (size_t)total * sizeof *sorted) : NULL;
    s = sorted && ecs__fits(cap, sizeof *s) ? (ecs_entity_map_slot *)ECS__REALLOC(NULL, (size_t)cap * sizeof *s) : NULL;
    if (!s) {
        ECS__FREE(sorted);
        ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY, "entity map: out of memory building %u slots", (unsigned)cap);
        return -1;
    }
    ecs__bucket_starts(counts, bits);
    ecs__batch_bucket_fill(m, n, es, index, shift, bits, counts, sorted);
    for (k = 0; k < old_slots; ++k)
        if (old[k].id) {
            at = counts[((old[k].id * 0x9E3779B1u) >> shift) >> drop]++;
            sorted[at] = (uint64_t)old[k].first << 32 | old[k].id;
        }
    if (!ecs__map_place(s, log2cap, drop, sorted, counts)) {
        ECS__FREE(s);
        ECS__FREE(sorted);
        return 0;
    }
    ECS__FREE(sorted);
    if (m->map.allocated) ECS__FREE(old);
    m->map.slots = s;
    m->map.mask = cap - 1u;
    m->map.mult = 0x9E3779B1u;
    m->map.shift = shift;
    m->map.allocated = 1u;
    ecs__batch_appended(m, n);
    return 1;
}

/* Adds instances for a batch (spawn and create_many): all or nothing. */
static ecs_result ecs__create_batch(ecs_manager *m, uint32_t n, const ecs_entity *es, const uint32_t *index,
                                    const void *records, ecs_instance *first)
{
    uint32_t k, at;
    int stale = 0;
    ecs_result r = ecs__batch_check(m, n, es);
    if (first) *first = ecs_instance_nil();
    if (r != ECS_OK || n == 0) return r;
    for (k = 0; m->world && k < n; ++k) { /* in a world: every entity alive there (nil: refused below) */
        ecs_entity e = ecs__batch_entity(es, index, k);
        if (!ecs_entity_is_nil(e) && !ecs__manager_takes(m, e))
            return ecs__not_alive_in_world(m, e, "create_many");
    }
    if (m->lookup == ECS_LOOKUP_DIRECT) {
        if ((r = ecs__batch_direct(m, n, es, index)) != ECS_OK) return r;
        at = 0;
    } else {
        int built = 0;
        if (ecs__grow_for(m, m->count + n) != ECS_OK ||
            (m->lookup == ECS_LOOKUP_HASH && (built = ecs__batch_hash_build(m, n, es, index)) < 0) ||
            (m->lookup == ECS_LOOKUP_HASH && !built &&
             ecs_entity_map_reserve(&m->map, m->map.count + n, 0, &m->error) != ECS_OK))
            return m->error.code;
        if (built || (m->lookup == ECS_LOOKUP_HASH && ecs__batch_hash_sorted(m, n, es, index))) r = ECS_OK;
        else if ((r = ecs__batch_append(m, n, es, index, &stale)) == ECS_OK && stale) {
            /* older ids' instances go only once nothing else can fail */
            if ((r = ecs__batch_dense_validate(m, n, es, index)) != ECS_OK) return r;
            for (k = 0; k < n; ++k) {
                uint32_t id = ecs_entity_key(ecs__batch_entity(es, index, k));
                ecs__drop_slot_owner(m, id, ecs__slot_owner(m, id));
            }
            r = ecs__batch_append(m, n, es, index, &stale); /* cannot fail: no stale slot is left */
            ECS__ASSERT(r == ECS_OK && !stale);
        }
        if (r != ECS_OK) return r;
        at = m->count - n;
        if (first) *first = ecs_instance_make(at);
    }
    if (records) ecs__copy_records(m, n, es, index, at, records);
    return ECS_OK;
}

/* After a batch (its records written): the batch entities that now own
   every member join m's group. */
static void ecs__batch_enter_group(ecs_manager *m, uint32_t n, const ecs_entity *es, const uint32_t *index)
{
    uint32_t k;
    if (m->group)
        for (k = 0; k < n; ++k) ecs__groups_enter(m, ecs_entity_key(ecs__batch_entity(es, index, k)));
}

ECS_DEF ecs_result ecs_manager_create_many(ecs_manager *m, uint32_t n, const ecs_entity *entities, const void *records,
                                   ecs_instance *first)
{
    ecs_result r = ecs__create_batch(m, n, entities, NULL, records, first);
    if (r == ECS_OK && m->group) {
        ecs__batch_enter_group(m, n, entities, NULL);
        if (first) *first = ecs_instance_nil(); /* the group moved them: look them up */
    }
    return r;
}

/* ---- component managers: lookup ------------------------------------------------ */

/* How many lookups ahead the batch paths prefetch: about one DRAM latency's
   worth at a few ns a lookup (16 left lookup_many about 25% slower). */
#define ECS__PREFETCH_DISTANCE 64u

/* Starts loading the memory that looking up `key` reads first. */
static void ecs__prefetch_key(const ecs_manager *m, uint32_t key)
{
    uint32_t idx = key & ECS_INDEX_MASK;
    if (m->lookup == ECS_LOOKUP_DIRECT) ECS__PREFETCH(&m->entity[idx & m->slot_mask]);
    else if (m->map.kind == ECS_LOOKUP_DENSE) ECS__PREFETCH(&m->map.slots[idx & m->map.mask]);
    else ECS__PREFETCH(&m->map.slots[ecs__map_home(&m->map, key)]);
}

/* Dense: each slot is loaded ECS__PREFETCH_DISTANCE lookups ahead. */
static void ecs__lookup_many_dense(const ecs_entity_map *map, uint32_t n, const ecs_entity *es, ecs_instance *out)
{
    const ecs_entity_map_slot *slots = map->slots;
    uint32_t k, mask = map->mask;
    for (k = 0; k < n && k < ECS__PREFETCH_DISTANCE; ++k) ECS__PREFETCH(&slots[es[k].id & mask]);
    for (k = 0; k < n; ++k) {
        if (k + ECS__PREFETCH_DISTANCE < n) ECS__PREFETCH(&slots[es[k + ECS__PREFETCH_DISTANCE].id & mask]);
        out[k].i = ecs_entity_map_find_dense(map, ecs_entity_key(es[k]));
    }
}

ECS_DEF void ecs_manager_lookup_many(const ecs_manager *m, uint32_t n, const ecs_entity *entities, ecs_instance *out)
{
    uint32_t k, ahead = n < ECS__PREFETCH_DISTANCE ? n : ECS__PREFETCH_DISTANCE;
    if (m->lookup == ECS_LOOKUP_DENSE) {
        ecs__lookup_many_dense(&m->map, n, entities, out);
        return;
    }
    for (k = 0; k < ahead; ++k) ecs__prefetch_key(m, ecs_entity_key(entities[k]));
    for (k = 0; k < n; ++k) {
        if (k + ahead < n) ecs__prefetch_key(m, ecs_entity_key(entities[k + ahead]));
        out[k] = ecs_manager_lookup(m, entities[k]);
    }
}

ECS_DEF ecs_instance ecs_manager_next(const ecs_manager *m, ecs_instance i)
{
    return ecs_instance_make(i.i < m->count && m->lookup != ECS_LOOKUP_DIRECT ? ecs__next_of(m, i.i) : ECS__NIL);
}

/* ---- component managers: destroy ------------------------------------------------ */

/* Copies every field of instance `from` over instance `to`: the mover of
   managers without a typed view (the typed wrappers pass their own). */
static void ecs__copy_fields_of(ecs_manager *m, uint32_t from, uint32_t to)
{
    uint32_t k;
    for (k = 0; k < m->num_fields; ++k) {
        uint32_t sz = m->fields[k].size;
        unsigned char *base = (unsigned char *)m->field[k];
        ecs__copy(base + (size_t)to * sz, base + (size_t)from * sz, sz);
    }
}

/* Makes whatever points at instance `from` in id's chain point at `to`. */
static void ecs__repoint(ecs_manager *m, uint32_t id, uint32_t from, uint32_t to)
{
    uint32_t p = ecs_entity_map_find(&m->map, id);
    if (p == from) {
        ecs_entity_map_set(&m->map, id, to);
        return;
    }
    while (p != ECS__NIL && m->next[p] != from) p = m->next[p];
    if (p != ECS__NIL) m->next[p] = to;
}

/* Moves instance `from` into `to` (dense and hash), links included. */
static void ecs__move(ecs_manager *m, uint32_t from, uint32_t to, ecs_fields_move_fn move)
{
    uint32_t id = m->entity[from].id;
    ecs__repoint(m, id, from, to);
    m->entity[to].id = id;
    move(m, from, to);
    if (m->next) m->next[to] = m->next[from];
}

/* Swap-erase of instance i (dense, hash), whose entity id the caller knows. */
static void ecs__destroy_known_moving(ecs_manager *m, uint32_t i, uint32_t id, ecs_fields_move_fn move)
{
    uint32_t last = m->count - 1u;
    if (m->group) i = ecs__group_leave(m, i);
    ecs__repoint(m, id, i, ecs__next_of(m, i)); /* unlink i from its chain */
    if (i != last) ecs__move(m, last, i, move);
    m->count = last;
    --m->num_instances;
}

static void ecs__destroy_known(ecs_manager *m, uint32_t i, uint32_t id)
{
    ecs__destroy_known_moving(m, i, id, ecs__copy_fields_of);
}

/* Direct kind: empties slot i. */
static void ecs__direct_clear(ecs_manager *m, uint32_t i)
{
    m->entity[i].id = 0;
    --m->num_instances;
    ++m->version;
}

ECS_DEF int ecs_manager__destroy_moving(ecs_manager *m, ecs_instance inst, ecs_fields_move_fn move)
{
    if (inst.i >= m->count) return 0;
    if (m->lookup == ECS_LOOKUP_DIRECT) {
        if (m->entity[inst.i].id == 0) return 0;
        ecs__direct_clear(m, inst.i);
        return 1;
    }
    ecs__destroy_known_moving(m, inst.i, m->entity[inst.i].id, move);
    return 1;
}

ECS_DEF int ecs_manager_destroy(ecs_manager *m, ecs_instance inst)
{
    return ecs_manager__destroy_moving(m, inst, ecs__copy_fields_of);
}

/* Hash, one instance per entity (no next links): one probe to remove the
   key, one to repoint the instance that moves into the hole. */
static uint32_t ecs__destroy_hash_single(ecs_manager *m, uint32_t key, ecs_fields_move_fn move)
{
    ecs_entity_map_slot *s = m->map.slots;
    uint32_t h = ecs__map_home(&m->map, key), i, last;
    /* the last instance's key is the second probe: start its miss now, so
       that the two overlap */
    if (m->count) ECS__PREFETCH(&s[ecs__map_home(&m->map, m->entity[m->count - 1u].id)]);
    while (s[h].id != key) {
        if (s[h].id == 0) return 0;
        h = (h + 1u) & m->map.mask;
    }
    i = s[h].first;
    ecs__map_hash_erase_at(&m->map, h);
    last = --m->count;
    --m->num_instances;
    if (i != last) {
        uint32_t moved = m->entity[last].id;
        for (h = ecs__map_home(&m->map, moved); s[h].id != moved; h = (h + 1u) & m->map.mask) {}
        s[h].first = i;
        m->entity[i].id = moved;
        move(m, last, i);
    }
    return 1;
}

ECS_DEF uint32_t ecs_manager__destroy_entity_moving(ecs_manager *m, ecs_entity e, ecs_fields_move_fn move)
{
    uint32_t n = 0, id = ecs_entity_key(e), i;
    if ((id & ECS_INDEX_MASK) == 0) return 0;
    if (m->lookup == ECS_LOOKUP_DIRECT) {
        i = ecs__first(m, id);
        if (i == ECS__NIL) return 0;
        ecs__direct_clear(m, i);
        return 1;
    }
    if (!m->next && !m->group) {
        uint32_t from, to;
        if (m->lookup == ECS_LOOKUP_HASH) return ecs__destroy_hash_single(m, id, move);
        if (ecs_manager__unlink_dense(m, e, &from, &to) <= 0) return 0;
        if (from != to) move(m, from, to);
        return 1;
    }
    /* the id is known: no read of the entity array */
    for (; (i = ecs_entity_map_find(&m->map, id)) != ECS__NIL; ++n) ecs__destroy_known_moving(m, i, id, move);
    return n;
}

ECS_DEF uint32_t ecs_manager_destroy_entity(ecs_manager *m, ecs_entity e)
{
    return ecs_manager__destroy_entity_moving(m, e, ecs__copy_fields_of);
}

ECS_DEF int ecs_manager_move(ecs_manager *m, uint32_t from, uint32_t to)
{
    if (from >= m->count || to >= m->count || m->lookup == ECS_LOOKUP_DIRECT || m->group) return 0;
    if (from != to) ecs__move(m, from, to, ecs__copy_fields_of);
    return 1;
}

/* ---- component managers: collection ---------------------------------------------- */

static uint32_t ecs__rand(uint32_t *state)
{
    uint32_t x = *state ? *state : 0x9E3779B9u; /* xorshift32 */
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

ECS_DEF uint32_t ecs_gc_random(uint32_t *rng, const ecs_entity_manager *em, const uint32_t *count,
                       ecs_entity *const *entity, ecs_destroy_instance_fn destroy, void *owner)
{
    uint32_t alive_in_row = 0, destroyed = 0;
    while (*count > 0 && alive_in_row < 4) {
        uint32_t i = (uint32_t)(((uint64_t)ecs__rand(rng) * *count) >> 32);
        ecs_entity e = (*entity)[i];
        if (e.id == 0 || ecs_entity_alive(em, e)) { /* id 0: an empty direct slot */
            ++alive_in_row;
            continue;
        }
        alive_in_row = 0;
        destroyed += (uint32_t)destroy(owner, i);
    }
    return destroyed;
}

/* gc's destroy callback: the manager and its mover. */
typedef struct ecs__gc_owner {
    ecs_manager *m;
    ecs_fields_move_fn move;
} ecs__gc_owner;

static int ecs__destroy_instance(void *owner, uint32_t i)
{
    ecs__gc_owner *o = (ecs__gc_owner *)owner;
    return ecs_manager__destroy_moving(o->m, ecs_instance_make(i), o->move);
}

ECS_DEF uint32_t ecs_manager__gc_moving(ecs_manager *m, const ecs_entity_manager *em, ecs_fields_move_fn move)
{
    ecs__gc_owner o;
    o.m = m;
    o.move = move;
    return ecs_gc_random(&m->rng, em, &m->count, &m->entity, ecs__destroy_instance, &o);
}

ECS_DEF uint32_t ecs_manager_gc(ecs_manager *m, const ecs_entity_manager *em)
{
    return ecs_manager__gc_moving(m, em, ecs__copy_fields_of);
}

ECS_DEF uint32_t ecs_manager__gc_all_moving(ecs_manager *m, const ecs_entity_manager *em, ecs_fields_move_fn move)
{
    uint32_t i = m->count, destroyed = 0;
    while (i-- > 0) { /* what moves into i comes from the end: already checked */
        ecs_entity e = m->entity[i];
        if (e.id != 0 && !ecs_entity_alive(em, e))
            destroyed += (uint32_t)ecs_manager__destroy_moving(m, ecs_instance_make(i), move);
    }
    if (m->lookup == ECS_LOOKUP_DIRECT)
        while (m->count > 0 && m->entity[m->count - 1u].id == 0) --m->count;
    return destroyed;
}

ECS_DEF uint32_t ecs_manager_gc_all(ecs_manager *m, const ecs_entity_manager *em)
{
    return ecs_manager__gc_all_moving(m, em, ecs__copy_fields_of);
}

ECS_DEF uint32_t ecs_manager__collect_moving(ecs_manager *m, const ecs_entity_manager *em, ecs_fields_move_fn move)
{
    uint32_t n = ecs_entity_log_pending(em, &m->log), from = m->log.next, k = 0, destroyed = 0;
    if (n != ECS_ENTITY_LOG_LOST) {
        uint32_t ahead = n < ECS__PREFETCH_DISTANCE ? n : ECS__PREFETCH_DISTANCE;
        for (k = 0; k < ahead; ++k) ecs__prefetch_key(m, ecs_entity_log_at(em, from + k).id);
        for (k = 0; k < n; ++k) {
            ecs_entity dead = ecs_entity_log_at(em, from + k);
            if (dead.id == 0) break; /* an entry lost to the ring's growth */
            if (k + ahead < n) ecs__prefetch_key(m, ecs_entity_log_at(em, from + k + ahead).id);
            if (ecs_entity_live(em, dead)) continue; /* its index came round to this id again: a live entity's */
            destroyed += ecs_manager__destroy_entity_moving(m, dead, move);
        }
    }
    if (n == ECS_ENTITY_LOG_LOST || k < n) destroyed += ecs_manager__gc_all_moving(m, em, move);
    ecs_entity_log_skip_all(em, &m->log);
    return destroyed;
}

ECS_DEF uint32_t ecs_manager_collect(ecs_manager *m, const ecs_entity_manager *em)
{
    return ecs_manager__collect_moving(m, em, ecs__copy_fields_of);
}

/* ---- component managers: the rest ------------------------------------------------ */

ECS_DEF size_t ecs_manager_memory(const ecs_manager *m)
{
    size_t bytes = m->buffer ? ecs__layout(m->fields, m->num_fields, m->capacity, NULL) : 0;
    bytes += m->num_fields * (sizeof *m->fields + sizeof *m->field);
    if (m->next) bytes += (size_t)m->capacity * sizeof *m->next;
    return bytes + ecs_entity_map_memory(&m->map);
}

ECS_DEF uint32_t ecs_manager_record_size(const ecs_manager *m)
{
    if (m->schema) return m->schema->record_size;
    return m->bytes_per_instance ? m->bytes_per_instance - (uint32_t)sizeof(ecs_entity) : 0u;
}

/* ---- schemas ------------------------------------------------------------------ */

static const uint8_t ecs__kind_sizes[ECS_FIELD_KIND_COUNT] = {0, 4, 8, 4, 4, 8, 1, 8, 12, 16, 16, 64, 8, 4, 1, 1, 2, 2};
static const uint8_t ecs__kind_aligns[ECS_FIELD_KIND_COUNT] = {0, 4, 8, 4, 4, 8, 1, 4, 4, 4, 4, 4, 8, 4, 1, 1, 2, 2};
static const char *const ecs__kind_names[ECS_FIELD_KIND_COUNT] = {
    "?", "f32", "f64", "i32", "u32", "u64", "bool", "vec2", "vec3", "vec4", "quat", "mat4", "path", "entity",
    "i8", "u8", "i16", "u16"};

ECS_DEF uint32_t ecs_field_kind_size(ecs_field_kind kind)
{
    return (unsigned)kind < ECS_FIELD_KIND_COUNT ? ecs__kind_sizes[kind] : 0u;
}

ECS_DEF const char *ecs_field_kind_name(ecs_field_kind kind)
{
    return (unsigned)kind < ECS_FIELD_KIND_COUNT ? ecs__kind_names[kind] : "?";
}

/* Checks schema against m's field table. Sets m->error and returns its code
   on failure. */
static ecs_result ecs__schema_check(ecs_manager *m, const ecs_schema_field *schema, uint32_t n)
{
    uint32_t k, j;
    if (n && !schema) return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT, "schema: NULL table");
    if (n != m->num_fields)
        return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT, "schema: %u entries for %u fields", (unsigned)n,
                             (unsigned)m->num_fields);
    for (k = 0; k < n; ++k) {
        const char *name = schema[k].name;
        uint32_t size = ecs_field_kind_size(schema[k].kind);
        if (!name || !name[0] || strcmp(name, "type") == 0)
            return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT,
                                 "schema: field %u needs a name other than \"type\"", (unsigned)k);
        if (size == 0)
            return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT, "schema: field %u (%s) has kind %d, no kind",
                                 (unsigned)k, name, (int)schema[k].kind);
        if (strcmp(name, m->fields[k].name ? m->fields[k].name : "") != 0 || size != m->fields[k].size)
            return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT,
                                 "schema: entry %u is %s %s (%u bytes), field %u is %s (%u bytes)", (unsigned)k,
                                 ecs_field_kind_name(schema[k].kind), name, (unsigned)size, (unsigned)k,
                                 m->fields[k].name ? m->fields[k].name : "?", (unsigned)m->fields[k].size);
        for (j = 0; j < k; ++j)
            if (strcmp(schema[j].name, name) == 0)
                return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT, "schema: two fields are called '%s'", name);
    }
    return ECS_OK;
}

ECS_DEF ecs_result ecs_manager_set_schema(ecs_manager *m, const ecs_schema_field *schema, uint32_t num_fields)
{
    size_t bytes = sizeof(ecs_schema) + (size_t)num_fields * sizeof(ecs_schema_field);
    ecs_schema *copy;
    char *strings;
    uint32_t k;
    ecs_result r;
    if (!(m->flags & ECS__MANAGER_READY)) return ecs__not_ready(m);
    if ((r = ecs__schema_check(m, schema, num_fields)) != ECS_OK) return r;
    for (k = 0; k < num_fields; ++k)
        bytes += strlen(schema[k].name) + 1u + (schema[k].spec ? strlen(schema[k].spec) + 1u : 0u);
    copy = (ecs_schema *)ECS__REALLOC(NULL, bytes);
    if (!copy) return ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY, "schema: out of memory");
    memset(copy, 0, sizeof *copy);
    copy->fields = (ecs_schema_field *)(void *)(copy + 1);
    copy->num_fields = num_fields;
    strings = (char *)(copy->fields + num_fields);
    for (k = 0; k < num_fields; ++k) {
        size_t len = strlen(schema[k].name) + 1u;
        copy->fields[k].kind = schema[k].kind;
        copy->fields[k].name = (const char *)memcpy(strings, schema[k].name, len);
        strings += len;
        copy->fields[k].spec = NULL;
        if (schema[k].spec) {
            len = strlen(schema[k].spec) + 1u;
            copy->fields[k].spec = (const char *)memcpy(strings, schema[k].spec, len);
            strings += len;
            copy->record_size += ecs_field_kind_size(schema[k].kind);
            if (schema[k].kind == ECS_FIELD_ENTITY) ++copy->num_entity_fields;
        } else {
            ++copy->num_runtime_fields;
        }
    }
    ECS__FREE(m->schema);
    m->schema = copy;
    return ECS_OK;
}

static ecs_result ecs__manager_init_schema(ecs_manager *m, const ecs_schema_field *schema, uint32_t n,
                                           ecs_lookup_kind lookup, uint32_t view)
{
    ecs_field_desc small[16], *fields = small;
    uint32_t k;
    ecs_result r;
    int bad = n > 0xFFFFu || (n && !schema);
    if (!bad && n > 16) fields = (ecs_field_desc *)ECS__REALLOC(NULL, n * sizeof *fields);
    if (bad || !fields) {
        ecs__manager_init(m, NULL, 1, lookup, view); /* fails: a manager that refuses every call */
        return ecs_error_set(&m->error, bad ? ECS_ERROR_INVALID_ARGUMENT : ECS_ERROR_OUT_OF_MEMORY,
                             "ecs_manager_init_schema: %s", bad ? "NULL table or too many fields" : "out of memory");
    }
    memset(fields, 0, (n > 16 ? n : 16u) * sizeof *fields);
    for (k = 0; k < n; ++k) {
        fields[k].name = schema[k].name;
        fields[k].size = ecs_field_kind_size(schema[k].kind);
        fields[k].align = (unsigned)schema[k].kind < ECS_FIELD_KIND_COUNT ? ecs__kind_aligns[schema[k].kind] : 0u;
    }
    r = ecs__manager_init(m, fields, n, lookup, view);
    if (fields != small) ECS__FREE(fields);
    if (r == ECS_OK && (r = ecs_manager_set_schema(m, schema, n)) != ECS_OK) {
        ecs_error saved = m->error;
        ecs_manager_free(m); /* what is left refuses every call */
        m->error = saved;
    }
    return r;
}

ECS_DEF ecs_result ecs_manager_init_schema(ecs_manager *m, const ecs_schema_field *schema, uint32_t num_fields,
                                   ecs_lookup_kind lookup)
{
    return ecs__manager_init_schema(m, schema, num_fields, lookup, 0u);
}

ECS_DEF ecs_result ecs_manager_init_schema_with_view(ecs_manager *m, const ecs_schema_field *schema, uint32_t num_fields,
                                             ecs_lookup_kind lookup)
{
    return ecs__manager_init_schema(m, schema, num_fields, lookup, ECS__MANAGER_VIEW);
}

/* The generic spawn for a schema with runtime or entity fields: every entity
   reference is checked first, then the instances are made, then each field
   is filled from the records (runtime fields zeroed, references resolved). */
static ecs_result ecs__schema_spawn(ecs_manager *m, const ecs_spawn_context *ctx, uint32_t n,
                                    const uint32_t *entity_index, const unsigned char *data)
{
    const ecs_schema *s = m->schema;
    uint32_t rec = s->record_size, j, k, at = 0;
    ecs_instance first;
    for (k = 0; k < s->num_fields; ++k) {
        uint32_t ref;
        if (!s->fields[k].spec) continue;
        for (j = 0; s->fields[k].kind == ECS_FIELD_ENTITY && j < n; ++j) {
            memcpy(&ref, data + (size_t)j * rec + at, 4);
            if (ref != ECS_SPAWN_ROOT && ref >= ctx->num_entities)
                return ecs_error_set(ctx->error, ECS_ERROR_CORRUPT_RESOURCE,
                                     "spawn: instance %u's %s refers to resource entity %u, the resource has %u", (unsigned)j,
                                     s->fields[k].name, (unsigned)ref, (unsigned)ctx->num_entities);
        }
        at += m->fields[k].size;
    }
    if (ecs__create_batch(m, n, ctx->entity, entity_index, NULL, &first) != ECS_OK)
        return ecs_error_set(ctx->error, m->error.code, "spawn: %s", m->error.message);
    for (k = 0, at = 0; k < s->num_fields; ++k) {
        uint32_t size = m->fields[k].size;
        unsigned char *base = (unsigned char *)m->field[k];
        for (j = 0; j < n; ++j) {
            uint32_t i = ecs_instance_is_nil(first) ? ctx->entity[entity_index[j]].id & ECS_INDEX_MASK : first.i + j;
            unsigned char *to = base + (size_t)i * size;
            const unsigned char *from = data + (size_t)j * rec + at;
            if (!s->fields[k].spec) {
                memset(to, 0, size);
            } else if (s->fields[k].kind == ECS_FIELD_ENTITY) {
                uint32_t ref;
                ecs_entity e;
                memcpy(&ref, from, 4);
                e = ecs_spawn_resolve(ctx, ref);
                memcpy(to, &e, sizeof e);
            } else {
                memcpy(to, from, size);
            }
        }
        if (s->fields[k].spec) at += size;
    }
    ecs__batch_enter_group(m, n, ctx->entity, entity_index);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_manager_spawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                             const uint32_t *entity_index, const void *data, uint32_t size)
{
    ecs_manager *m = (ecs_manager *)user;
    const ecs_schema *schema = m->schema;
    uint32_t rec = ecs_manager_record_size(m);
    if ((uint64_t)num_instances * rec != size)
        return ecs_error_set(ctx->error, ECS_ERROR_SPAWN_FAILED,
                             "spawn: %u instances of %u bytes need %llu bytes, block has %u", (unsigned)num_instances,
                             (unsigned)rec, (unsigned long long)num_instances * rec, (unsigned)size);
    if (schema && (schema->num_entity_fields || schema->num_runtime_fields))
        return ecs__schema_spawn(m, ctx, num_instances, entity_index, (const unsigned char *)data);
    if (ecs__create_batch(m, num_instances, ctx->entity, entity_index, data, NULL) != ECS_OK)
        return ecs_error_set(ctx->error, m->error.code, "spawn: %s", m->error.message);
    ecs__batch_enter_group(m, num_instances, ctx->entity, entity_index);
    return ECS_OK;
}

ECS_DEF void ecs_manager_unspawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                         const uint32_t *entity_index, const void *data, uint32_t size)
{
    ecs_manager *m = (ecs_manager *)user;
    uint32_t j;
    (void)data;
    (void)size;
    for (j = num_instances; j-- > 0;) ecs_manager_destroy_entity(m, ctx->entity[entity_index[j]]);
}

/* ---- groups ------------------------------------------------------------------- */

/* Swaps n bytes at a and b. */
static void ecs__swap_bytes(unsigned char *a, unsigned char *b, size_t n)
{
    unsigned char t[64];
    while (n) {
        size_t c = n < sizeof t ? n : sizeof t;
        memcpy(t, a, c);
        memcpy(a, b, c);
        memcpy(b, t, c);
        a += c;
        b += c;
        n -= c;
    }
}

/* Swaps instances a and b of a grouped member (one instance per entity, so
   the map points at each directly), fields through the field table. */
static void ecs__swap_instances(ecs_manager *m, uint32_t a, uint32_t b)
{
    uint32_t ida = m->entity[a].id, idb = m->entity[b].id, k;
    if (a == b) return;
    for (k = 0; k < m->num_fields; ++k) {
        size_t sz = m->fields[k].size;
        unsigned char *base = (unsigned char *)m->field[k];
        ecs__swap_bytes(base + (size_t)a * sz, base + (size_t)b * sz, sz);
    }
    m->entity[a].id = idb;
    m->entity[b].id = ida;
    ecs_entity_map_set(&m->map, ida, b);
    ecs_entity_map_set(&m->map, idb, a);
}

/* The entity with key id joins group g when it owns every member and is
   not in yet: its instances move to index size of every member. The groups
   with fewer members that g nests in hold it already (ecs__groups_enter
   goes from the outermost group in). 0 when it lacks a member of g (then
   it lacks one of every group nested in g too). */
static int ecs__group_enter(ecs_group *g, uint32_t id)
{
    uint32_t at[ECS_GROUP_MAX_MEMBERS] = {0}, k;
    for (k = 0; k < g->num_members; ++k)
        if ((at[k] = ecs_entity_map_find(&g->member[k]->map, id)) == ECS__NIL) return 0;
    if (g->num_members == 0 || at[0] < g->size) return 1;
    for (k = 0; k < g->num_members; ++k) ecs__swap_instances(g->member[k], at[k], g->size);
    ++g->size;
    return 1;
}

/* The entity with key id just got an instance of m: it joins every group of
   m's chain it now completes, outermost (fewest members, longest prefix)
   first, so that it reaches each prefix from the one around it. Swaps stay
   inside the regions of the other groups: a member's instances are ordered
   [innermost group | next group out only | ... | outermost only | rest]. */
static void ecs__groups_enter(ecs_manager *m, uint32_t id)
{
    ecs_group *g;
    for (g = m->group; g && ecs__group_enter(g, id);) g = g->next;
}

/* Instance i of grouped m is about to be removed: its entity leaves every
   group of m's chain it is in, innermost first (its instances move to index
   size-1 of every member, which then falls out of that group). Returns i's
   new index in m. */
static uint32_t ecs__group_leave(ecs_manager *m, uint32_t i)
{
    ecs_group *chain[ECS_GROUP_MAX_MEMBERS], *g;
    uint32_t depth = 0, k, last;
    if (i >= m->group->size) return i; /* outside the outermost prefix: in no group */
    for (g = m->group; g && depth < ECS_GROUP_MAX_MEMBERS; g = g->next) chain[depth++] = g;
    while (depth-- > 0) {
        g = chain[depth];
        if (i >= g->size) continue;
        last = --g->size;
        for (k = 0; k < g->num_members; ++k) ecs__swap_instances(g->member[k], i, last); /* in g: at i in each */
        i = last;
    }
    return i;
}

/* Whether every member of a is a member of b. */
static int ecs__group_within(ecs_manager *const *a, uint32_t na, ecs_manager *const *b, uint32_t nb)
{
    uint32_t i, j;
    for (i = 0; i < na; ++i) {
        for (j = 0; j < nb && b[j] != a[i]; ++j) {
        }
        if (j == nb) return 0;
    }
    return 1;
}

/* Why members[k] cannot join a group of members[0..n) (an error set in err),
   or ECS_OK. Every group it is in already must nest with the new one (hold
   all of its members, or hold only members of it: EnTT's rule). */
static ecs_result ecs__group_check(ecs_manager *const *members, uint32_t n, uint32_t k, ecs_error *err)
{
    ecs_manager *m = members[k];
    const ecs_group *g;
    uint32_t j;
    if (!m) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_group_init: member %u is NULL", (unsigned)k);
    if (!(m->flags & ECS__MANAGER_READY))
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_group_init: member %u is not initialised", (unsigned)k);
    if (m->lookup == ECS_LOOKUP_DIRECT)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_group_init: member %u is of the direct kind (dense or hash only)",
                             (unsigned)k);
    for (j = 0; j < k; ++j)
        if (members[j] == m)
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_group_init: members %u and %u are the same manager",
                                 (unsigned)j, (unsigned)k);
    for (g = m->group; g; g = g->next) {
        int inside = ecs__group_within(g->member, g->num_members, members, n);
        int around = ecs__group_within(members, n, g->member, g->num_members);
        if (inside && around)
            return ecs_error_set(err, ECS_ERROR_ALREADY_EXISTS, "ecs_group_init: a group of these %u members exists already",
                                 (unsigned)n);
        if (!inside && !around)
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "ecs_group_init: member %u is in a group of %u members that neither holds every member "
                                 "of the new group nor is held by it (groups that share a member must nest)",
                                 (unsigned)k, (unsigned)g->num_members);
    }
    if ((j = ecs__manager_first_twice(m)) < m->count) {
        char who[ECS_ENTITY_TEXT_SIZE];
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_group_init: member %u: %s owns two instances (a member holds one per entity)",
                             (unsigned)k, ecs_entity_format(who, sizeof who, m->entity[j]));
    }
    return ECS_OK;
}

/* Links g into the chain of each member: after the groups it holds, before
   the groups that hold it (the same ones for every member: a group holding
   g holds all its members, so those groups nest among themselves). */
static void ecs__group_link(ecs_group *g)
{
    uint32_t k;
    g->next = NULL;
    for (k = 0; k < g->num_members; ++k) {
        ecs_group **at = &g->member[k]->group;
        while (*at && *at != g && (*at)->num_members < g->num_members) at = &(*at)->next;
        if (*at == g) continue; /* linked through an earlier member's chain */
        g->next = *at;
        *at = g;
    }
}

static void ecs__world_sync_groups(ecs_world *w);

/* A world's record of its managers' groups follows a group made or freed
   outside it (ecs_group_init / ecs_group_free on its managers). */
static void ecs__group_sync_worlds(ecs_manager *const *members, uint32_t n)
{
    uint32_t k;
    for (k = 0; k < n; ++k)
        if (members[k]->world) ecs__world_sync_groups(members[k]->world);
}

ECS_DEF ecs_result ecs_group_init(ecs_group *g, ecs_manager *const *members, uint32_t n, ecs_error *err)
{
    uint32_t k, i, smallest = 0;
    ecs_result r = ECS_OK;
    if (n < 2 || n > ECS_GROUP_MAX_MEMBERS || !members)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_group_init: %u members (2..%u)", (unsigned)n,
                             (unsigned)ECS_GROUP_MAX_MEMBERS);
    for (k = 0; k < n && r == ECS_OK; ++k) r = ecs__group_check(members, n, k, err);
    if (r != ECS_OK) return r;
    memset(g, 0, sizeof *g);
    for (k = 0; k < n; ++k) {
        g->member[k] = members[k];
        if (members[k]->count < members[smallest]->count) smallest = k;
    }
    g->num_members = n;
    ecs__group_link(g);
    /* every instance of the smallest member, in order: what moves into i
       comes from index size <= i, already seen; a group g holds is a prefix
       of every member, so its entities enter first, where they are */
    for (i = 0; i < members[smallest]->count; ++i) ecs__group_enter(g, members[smallest]->entity[i].id);
    ecs__group_sync_worlds(members, n);
    return ECS_OK;
}

/* ecs_group_sort's scratch: a region's (entity index, instance) pairs, and
   where each of its original instances is now / which one is at a place. */
typedef struct ecs__sort_pair {
    uint32_t key, at;
} ecs__sort_pair;

static int ecs__sort_pair_cmp(const void *a, const void *b)
{
    const ecs__sort_pair *x = (const ecs__sort_pair *)a, *y = (const ecs__sort_pair *)b;
    return x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->at < y->at ? -1 : x->at > y->at);
}

/* Sorts m's instances [lo, hi) by entity index with swaps (pairs, where and
   who: hi - lo entries each). */
static void ecs__sort_region(ecs_manager *m, uint32_t lo, uint32_t hi, ecs__sort_pair *pair, uint32_t *where,
                             uint32_t *who)
{
    uint32_t n = hi - lo, j;
    for (j = 0; j < n; ++j) {
        pair[j].key = m->entity[lo + j].id & ECS_INDEX_MASK;
        pair[j].at = j;
        where[j] = who[j] = j;
    }
    qsort(pair, n, sizeof *pair, ecs__sort_pair_cmp);
    for (j = 0; j < n; ++j) { /* place j gets the instance first at pair[j].at */
        uint32_t from = where[pair[j].at], displaced = who[j];
        if (from == j) continue;
        ecs__swap_instances(m, lo + j, lo + from);
        who[from] = displaced;
        where[displaced] = from;
        who[j] = pair[j].at;
        where[pair[j].at] = j;
    }
}

ECS_DEF ecs_result ecs_group_sort(ecs_group *g, ecs_error *err)
{
    const ecs_group *top = g && g->num_members ? ecs_group_top(g->member[0]) : NULL;
    uint32_t k, most = 1, depth, lo;
    unsigned char *scratch;
    if (!top) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_group_sort: no group (NULL or freed)");
    for (k = 0; k < top->num_members; ++k)
        if (top->member[k]->count > most) most = top->member[k]->count;
    scratch = (unsigned char *)ECS__REALLOC(NULL, (size_t)most * (sizeof(ecs__sort_pair) + 8u));
    if (!scratch) {
        ecs_error_set(&g->error, ECS_ERROR_OUT_OF_MEMORY, "ecs_group_sort: out of memory for %u instances", (unsigned)most);
        if (err) *err = g->error;
        return g->error.code;
    }
    for (k = 0; k < top->num_members; ++k) {
        ecs_manager *m = top->member[k];
        const ecs_group *chain[ECS_GROUP_MAX_MEMBERS], *c;
        uint32_t *where = (uint32_t *)(void *)(scratch + (size_t)most * sizeof(ecs__sort_pair));
        for (depth = 0, c = m->group; c && depth < ECS_GROUP_MAX_MEMBERS; c = c->next) chain[depth++] = c;
        for (lo = 0; depth-- > 0; lo = chain[depth]->size) /* innermost region first */
            ecs__sort_region(m, lo, chain[depth]->size, (ecs__sort_pair *)(void *)scratch, where, where + most);
        ecs__sort_region(m, lo, m->count, (ecs__sort_pair *)(void *)scratch, where, where + most);
    }
    ECS__FREE(scratch);
    return ECS_OK;
}

ECS_DEF void ecs_group_free(ecs_group *g)
{
    uint32_t k;
    for (k = 0; k < g->num_members; ++k) {
        ecs_group **at = &g->member[k]->group;
        while (*at && *at != g) at = &(*at)->next;
        if (*at == g) *at = g->next;
    }
    ecs__group_sync_worlds(g->member, g->num_members);
    g->num_members = 0;
    g->size = 0;
    g->next = NULL;
}

/* ==== the world, queries, whole entities, jobs ==============================
   (issue 16; kept at the end of the implementation) */

/* ---- the job interface ----------------------------------------------------- */

typedef struct ecs__jobs_batch {
    ecs_task_fn task;
    void *user;
    uint32_t base, count;
    uint8_t *done;
} ecs__jobs_batch;

/* What parallel_for runs: task base + k, marked done. */
static void ecs__jobs_marked(void *user, uint32_t k)
{
    ecs__jobs_batch *b = (ecs__jobs_batch *)user;
    if (k >= b->count) return; /* a job system's stray index */
    b->task(b->user, b->base + k);
    b->done[k] = 1;
}

ECS_DEF void ecs_jobs_run(const ecs_jobs *jobs, uint32_t num_tasks, ecs_task_fn task, void *user,
                          ecs_result *job_error)
{
    uint8_t done[ECS_JOBS_MAX_TASKS];
    ecs__jobs_batch b;
    uint32_t k;
    if (job_error) *job_error = ECS_OK;
    if (!jobs || !jobs->parallel_for || jobs->num_workers <= 1u || num_tasks <= 1u) { /* one task: no wake-up */
        for (k = 0; k < num_tasks; ++k) task(user, k);
        return;
    }
    b.task = task;
    b.user = user;
    b.done = done;
    /* more than ECS_JOBS_MAX_TASKS: one call per batch of that many */
    for (b.base = 0; b.base < num_tasks; b.base += b.count) {
        ecs_result r;
        b.count = num_tasks - b.base < ECS_JOBS_MAX_TASKS ? num_tasks - b.base : ECS_JOBS_MAX_TASKS;
        memset(done, 0, b.count);
        r = jobs->parallel_for(jobs->context, b.count, ecs__jobs_marked, &b);
        if (r != ECS_OK && job_error && *job_error == ECS_OK) *job_error = r;
        for (k = 0; k < b.count; ++k)
            if (!done[k]) task(user, b.base + k);
    }
}

/* ---- the world: registration ------------------------------------------------ */

/* FNV-1a 32 of name: the resource format's component identifier (the same
   function as ecs_resource_identifier, which ecs.h cannot call). */
static uint32_t ecs__world_identifier(const char *name)
{
    uint32_t h = 2166136261u;
    for (; *name; ++name) h = (h ^ (uint8_t)*name) * 16777619u;
    return h;
}

ECS_DEF ecs_result ecs_world_init(ecs_world *w)
{
    memset(w, 0, sizeof *w);
    ecs_entity_manager_init(&w->entities);
    return ECS_OK;
}

/* Unhooks component c from the world: its manager forgets the world, an
   owned store is freed, the name copy goes. */
static void ecs__world_release(ecs_world_component *c)
{
    if (c->manager) c->manager->world = NULL;
    if (c->iface && c->iface->attach) c->iface->attach(c->store, NULL);
    if (c->owned) {
        ecs_manager_free(c->manager);
        ECS__FREE(c->manager);
    }
    ECS__FREE(c->name);
}

ECS_DEF void ecs_world_free(ecs_world *w)
{
    uint32_t k;
    for (k = 0; k < w->num_groups; ++k) { /* first: a group touches its members */
        ecs_group_free(w->groups[k]);
        ECS__FREE(w->groups[k]);
    }
    for (k = 0; k < w->num_components; ++k) ecs__world_release(&w->component[k]);
    ECS__FREE(w->groups);
    ECS__FREE(w->systems);
    ECS__FREE(w->component);
    ecs_entity_manager_free(&w->entities);
    memset(w, 0, sizeof *w);
}

ECS_DEF uint32_t ecs_world_find(const ecs_world *w, const char *name)
{
    uint32_t k, id;
    if (!name) return ECS_WORLD_NO_COMPONENT;
    id = ecs__world_identifier(name);
    for (k = 0; k < w->num_components; ++k)
        if (w->component[k].identifier == id && strcmp(w->component[k].name, name) == 0) return k;
    return ECS_WORLD_NO_COMPONENT;
}

ECS_DEF ecs_manager *ecs_world_manager(const ecs_world *w, const char *name)
{
    uint32_t k = ecs_world_find(w, name);
    return k == ECS_WORLD_NO_COMPONENT ? NULL : w->component[k].manager;
}

/* Whether name can be registered: not empty, not taken, no identifier
   collision, and store not registered already. ECS_OK or an error naming
   the thing (w->error and err set). */
static ecs_result ecs__world_check_new(ecs_world *w, const char *what, const char *name, const void *store,
                                       ecs_error *err)
{
    uint32_t k, id = name ? ecs__world_identifier(name) : 0u;
    ecs_result r = ECS_OK;
    if (!name || !name[0])
        r = ecs_error_set(&w->error, ECS_ERROR_INVALID_ARGUMENT, "%s: the component name is empty", what);
    for (k = 0; r == ECS_OK && k < w->num_components; ++k) {
        const ecs_world_component *c = &w->component[k];
        if (strcmp(c->name, name) == 0)
            r = ecs_error_set(&w->error, ECS_ERROR_ALREADY_EXISTS, "%s: component '%s' is already registered", what,
                              name);
        else if (c->identifier == id)
            r = ecs_error_set(&w->error, ECS_ERROR_NAME_COLLISION,
                              "%s: components '%s' and '%s' have the same identifier 0x%08x (FNV-1a 32)", what,
                              c->name, name, (unsigned)id);
        else if (store && c->store == store)
            r = ecs_error_set(&w->error, ECS_ERROR_ALREADY_EXISTS,
                              "%s: the store for '%s' is already registered as '%s'", what, name, c->name);
    }
    if (r != ECS_OK && err) *err = w->error;
    return r;
}

/* Appends a registration (name checked already). Returns its index, or
   ECS_WORLD_NO_COMPONENT on out of memory (nothing changed). */
static uint32_t ecs__world_append(ecs_world *w, const char *what, const char *name, ecs_manager *m, void *store,
                                  const ecs_store_interface *iface, uint32_t owned, ecs_error *err)
{
    size_t len = strlen(name) + 1u;
    char *copy = (char *)ECS__REALLOC(NULL, len);
    ecs_world_component *c;
    if (copy && w->num_components == w->components_capacity) {
        uint32_t cap = w->components_capacity ? w->components_capacity * 2u : 8u;
        c = (ecs_world_component *)ECS__REALLOC(w->component, (size_t)cap * sizeof *c);
        if (c) {
            w->component = c;
            w->components_capacity = cap;
        } else {
            ECS__FREE(copy);
            copy = NULL;
        }
    }
    if (!copy) {
        ecs_error_set(&w->error, ECS_ERROR_OUT_OF_MEMORY, "%s: out of memory registering '%s'", what, name);
        if (err) *err = w->error;
        return ECS_WORLD_NO_COMPONENT;
    }
    memcpy(copy, name, len);
    c = &w->component[w->num_components];
    memset(c, 0, sizeof *c);
    c->name = copy;
    c->identifier = ecs__world_identifier(name);
    c->manager = m;
    c->store = store;
    c->iface = iface;
    c->owned = owned;
    if (m) m->world = w;
    return w->num_components++;
}

ECS_DEF ecs_result ecs_world_add_manager(ecs_world *w, const char *name, ecs_manager *m, ecs_error *err)
{
    const char *what = "ecs_world_add_manager";
    ecs_result r = ECS_OK;
    if (!name || !name[0]) return ecs__world_check_new(w, what, name, m, err); /* before reading m */
    if (!m)
        r = ecs_error_set(&w->error, ECS_ERROR_INVALID_ARGUMENT, "%s: the manager for '%s' is NULL", what,
                          name ? name : "(null)");
    else if (!(m->flags & ECS__MANAGER_READY)) /* its init failed: carry its reason */
        r = ecs_error_set(&w->error, ECS_ERROR_INVALID_ARGUMENT, "%s: the manager for '%s' is not initialised%s%s", what,
                          name ? name : "(null)", m->error.code != ECS_OK ? ": " : "",
                          m->error.code != ECS_OK ? m->error.message : "");
    else if (m->world && m->world != w) /* in this world: ecs__world_check_new names it */
        r = ecs_error_set(&w->error, ECS_ERROR_ALREADY_EXISTS,
                          "%s: the manager for '%s' is already registered in another world", what,
                          name ? name : "(null)");
    if (r != ECS_OK) {
        if (err) *err = w->error;
        return r;
    }
    if ((r = ecs__world_check_new(w, what, name, m, err)) != ECS_OK) return r;
    return ecs__world_append(w, what, name, m, m, NULL, 0u, err) == ECS_WORLD_NO_COMPONENT ? w->error.code : ECS_OK;
}

ECS_DEF ecs_result ecs_world_add_store(ecs_world *w, const char *name, void *store, const ecs_store_interface *iface,
                                       ecs_error *err)
{
    const char *what = "ecs_world_add_store";
    ecs_result r;
    if (!store || !iface || !iface->lookup || !iface->next || !iface->count || !iface->entity_at ||
        !iface->destroy_entity || !iface->collect) {
        ecs_error_set(&w->error, ECS_ERROR_INVALID_ARGUMENT,
                      "%s: '%s' needs a store and an interface with lookup, next, count, entity_at, "
                      "destroy_entity and collect",
                      what, name ? name : "(null)");
        if (err) *err = w->error;
        return ECS_ERROR_INVALID_ARGUMENT;
    }
    if ((r = ecs__world_check_new(w, what, name, store, err)) != ECS_OK) return r;
    if (ecs__world_append(w, what, name, NULL, store, iface, 0u, err) == ECS_WORLD_NO_COMPONENT) return w->error.code;
    if (iface->attach) iface->attach(store, &w->entities);
    return ECS_OK;
}

/* define and define_schema end here: m (allocated by the world, its init
   returned init_result) is registered as a store the world owns, or freed. */
static ecs_manager *ecs__world_define(ecs_world *w, const char *what, const char *name, ecs_result init_result,
                                      ecs_manager *m, ecs_error *err)
{
    if (init_result != ECS_OK) {
        ecs_error_set(&w->error, init_result, "%s: '%s': %s", what, name, m->error.message);
    } else if (ecs__world_append(w, what, name, m, m, NULL, 1u, err) != ECS_WORLD_NO_COMPONENT) {
        return m;
    }
    if (err) *err = w->error;
    ecs_manager_free(m);
    ECS__FREE(m);
    return NULL;
}

/* The checks and the allocation both defines start with: the new manager, or
   NULL (errors set). */
static ecs_manager *ecs__world_define_start(ecs_world *w, const char *what, const char *name, ecs_error *err)
{
    ecs_manager *m;
    if (ecs__world_check_new(w, what, name, NULL, err) != ECS_OK) return NULL;
    m = (ecs_manager *)ECS__REALLOC(NULL, sizeof *m);
    if (!m) {
        ecs_error_set(&w->error, ECS_ERROR_OUT_OF_MEMORY, "%s: out of memory defining '%s'", what, name);
        if (err) *err = w->error;
    }
    return m;
}

ECS_DEF ecs_manager *ecs_world_define(ecs_world *w, const char *name, const ecs_field_desc *fields,
                                      uint32_t num_fields, ecs_lookup_kind lookup, ecs_error *err)
{
    const char *what = "ecs_world_define";
    ecs_manager *m = ecs__world_define_start(w, what, name, err);
    return m ? ecs__world_define(w, what, name, ecs_manager_init(m, fields, num_fields, lookup), m, err) : NULL;
}

ECS_DEF ecs_manager *ecs_world_define_schema(ecs_world *w, const char *name, const ecs_schema_field *schema,
                                             uint32_t num_fields, ecs_lookup_kind lookup, ecs_error *err)
{
    const char *what = "ecs_world_define_schema";
    ecs_manager *m = ecs__world_define_start(w, what, name, err);
    return m ? ecs__world_define(w, what, name, ecs_manager_init_schema(m, schema, num_fields, lookup), m, err)
             : NULL;
}

/* Mirrors each registered manager's outermost group in its component entry. */
static void ecs__world_sync_groups(ecs_world *w)
{
    uint32_t k;
    for (k = 0; k < w->num_components; ++k)
        w->component[k].group = w->component[k].manager ? w->component[k].manager->group : NULL;
}

/* Frees the world's group g; its members stay registered (in the order they
   are in), in their other groups. */
static void ecs__world_drop_group(ecs_world *w, ecs_group *g)
{
    uint32_t k;
    for (k = 0; k < w->num_groups; ++k)
        if (w->groups[k] == g) {
            memmove(&w->groups[k], &w->groups[k + 1u], (size_t)(w->num_groups - k - 1u) * sizeof *w->groups);
            --w->num_groups;
            break;
        }
    ecs_group_free(g);
    ECS__FREE(g);
    ecs__world_sync_groups(w);
}

/* The first group of m's chain that the world made (ecs_world_group), or
   NULL: a group made with ecs_group_init is its maker's to free. */
static ecs_group *ecs__world_own_group(const ecs_world *w, const ecs_manager *m)
{
    const ecs_group *g;
    uint32_t k;
    for (g = m ? m->group : NULL; g; g = g->next)
        for (k = 0; k < w->num_groups; ++k)
            if (w->groups[k] == g) return w->groups[k];
    return NULL;
}

ECS_DEF ecs_result ecs_world_remove(ecs_world *w, const char *name, ecs_error *err)
{
    uint32_t k = ecs_world_find(w, name);
    ecs_group *g;
    if (k == ECS_WORLD_NO_COMPONENT) {
        ecs_error_set(&w->error, ECS_ERROR_NOT_FOUND, "ecs_world_remove: no component '%s'", name ? name : "(null)");
        if (err) *err = w->error;
        return ECS_ERROR_NOT_FOUND;
    }
    while ((g = ecs__world_own_group(w, w->component[k].manager)) != NULL) /* every group of the world's holding it */
        ecs__world_drop_group(w, g);
    ecs__world_release(&w->component[k]);
    memmove(&w->component[k], &w->component[k + 1u], (size_t)(w->num_components - k - 1u) * sizeof *w->component);
    --w->num_components;
    ++w->epoch;
    return ECS_OK;
}

/* The names of g's members as "a, b, c" into out (cap bytes). */
static void ecs__world_group_names(const ecs_world *w, const ecs_group *g, char *out, size_t cap)
{
    size_t at = 0;
    uint32_t k, c;
    out[0] = 0;
    for (k = 0; k < g->num_members && at + 1u < cap; ++k) {
        const char *name = "?";
        for (c = 0; c < w->num_components; ++c)
            if (w->component[c].manager == g->member[k]) name = w->component[c].name;
        at += (size_t)snprintf(out + at, cap - at, "%s%s", k ? ", " : "", name);
    }
}

/* The managers ecs_world_group is asked for, into m, then checked: the kind,
   listed twice, two instances of an entity, and nesting with the groups
   they are in (an error naming both groups). */
static ecs_result ecs__world_group_members(ecs_world *w, const char *const *names, uint32_t n, ecs_manager **m)
{
    uint32_t k, c;
    ecs_error why;
    const ecs_group *g;
    if (n < 2 || n > ECS_GROUP_MAX_MEMBERS || !names)
        return ecs_error_set(&w->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_world_group: %u components (2..%u)",
                             (unsigned)n, (unsigned)ECS_GROUP_MAX_MEMBERS);
    for (k = 0; k < n; ++k) {
        if ((c = ecs_world_find(w, names[k])) == ECS_WORLD_NO_COMPONENT)
            return ecs_error_set(&w->error, ECS_ERROR_NOT_FOUND, "ecs_world_group: no component '%s'",
                                 names[k] ? names[k] : "(null)");
        if (!(m[k] = w->component[c].manager))
            return ecs_error_set(&w->error, ECS_ERROR_INVALID_ARGUMENT,
                                 "ecs_world_group: '%s' is not an ecs_manager (groups hold dense and hash managers)",
                                 names[k]);
    }
    for (k = 0; k < n; ++k) {
        if (ecs__group_check(m, n, k, &why) == ECS_OK) continue;
        for (g = m[k]->group; g; g = g->next) /* a group the new one cannot nest with: name both */
            if (!ecs__group_within(g->member, g->num_members, m, n) && !ecs__group_within(m, n, g->member, g->num_members)) {
                char other[200], mine[200];
                size_t at = 0;
                uint32_t j;
                ecs__world_group_names(w, g, other, sizeof other);
                for (j = 0, mine[0] = 0; j < n && at + 1u < sizeof mine; ++j)
                    at += (size_t)snprintf(mine + at, sizeof mine - at, "%s%s", j ? ", " : "", names[j]);
                return ecs_error_set(&w->error, why.code,
                                     "ecs_world_group: the group {%s} cannot nest with the group {%s}: they share '%s' "
                                     "and neither holds every component of the other",
                                     mine, other, names[k]);
            }
        return ecs_error_set(&w->error, why.code, "ecs_world_group: '%s' cannot be grouped: %s", names[k], why.message);
    }
    return ECS_OK;
}

ECS_DEF ecs_result ecs_world_group(ecs_world *w, const char *const *names, uint32_t n, ecs_error *err)
{
    ecs_manager *m[ECS_GROUP_MAX_MEMBERS];
    ecs_group *g = NULL;
    ecs_result r = ecs__world_group_members(w, names, n, m);
    if (r == ECS_OK && w->num_groups == w->groups_capacity) {
        uint32_t cap = w->groups_capacity ? w->groups_capacity * 2u : 4u;
        ecs_group **gs = (ecs_group **)ECS__REALLOC(w->groups, (size_t)cap * sizeof *gs);
        if (gs) {
            w->groups = gs;
            w->groups_capacity = cap;
        } else {
            r = ecs_error_set(&w->error, ECS_ERROR_OUT_OF_MEMORY, "ecs_world_group: out of memory grouping '%s'",
                              names[0]);
        }
    }
    if (r == ECS_OK && !(g = (ecs_group *)ECS__REALLOC(NULL, sizeof *g)))
        r = ecs_error_set(&w->error, ECS_ERROR_OUT_OF_MEMORY, "ecs_world_group: out of memory grouping '%s'", names[0]);
    if (r == ECS_OK && (r = ecs_group_init(g, m, n, &w->error)) != ECS_OK) ECS__FREE(g);
    if (r != ECS_OK) {
        if (err) *err = w->error;
        return r;
    }
    w->groups[w->num_groups++] = g;
    ecs__world_sync_groups(w);
    return ECS_OK;
}

/* ---- the world: one store, whatever it is ------------------------------------ */

static ecs_instance ecs__store_lookup(const ecs_world_component *c, ecs_entity e)
{
    return c->manager ? ecs_manager_lookup(c->manager, e) : c->iface->lookup(c->store, e);
}

static uint32_t ecs__store_count(const ecs_world_component *c)
{
    return c->manager ? c->manager->count : c->iface->count(c->store);
}

static uint32_t ecs__store_destroy_entity(const ecs_world_component *c, ecs_entity e)
{
    return c->manager ? ecs_manager_destroy_entity(c->manager, e) : c->iface->destroy_entity(c->store, e);
}

/* out[k] = the first instance of es[k] in c, for k < n (batched, prefetched
   for managers). */
static void ecs__store_lookup_many(const ecs_world_component *c, uint32_t n, const ecs_entity *es, uint32_t *out)
{
    uint32_t k;
    if (c->manager) {
        ecs_manager_lookup_many(c->manager, n, es, (ecs_instance *)(void *)out);
        return;
    }
    for (k = 0; k < n; ++k) out[k] = c->iface->lookup(c->store, es[k]).i;
}

/* ---- queries ----------------------------------------------------------------- */

/* A run of consecutive matching slots at least this long is a contiguous
   chunk on the direct path; shorter runs are gathered into an index list.
   Measured (p += v * dt, 2^16 slots, runs of L matches between holes, ns a
   match for L = 1 2 4 8 16 32 64): 16 gives 4.9 4.2 3.7 3.5 2.8 2.1 1.5;
   1 (every run contiguous) 24.7 13.5 8.0 5.0 2.6 2.2 1.6; 256 (gather
   unless a whole chunk is one run) 4.9 4.0 3.7 3.4 3.2 3.1 3.2. */
#define ECS__WORLD_MIN_RUN 16u

/* Adds the terms of a NULL-terminated name list (its array holds
   ECS_WORLD_MAX_TERMS + 1 entries). */
static ecs_result ecs__query_terms(ecs_world *w, const char *const *names, ecs_world_query *q, ecs_error *err)
{
    uint32_t k, j;
    for (k = 0; k <= ECS_WORLD_MAX_TERMS && names[k]; ++k) {
        uint32_t c = ecs_world_find(w, names[k]);
        if (q->num_terms == ECS_WORLD_MAX_TERMS)
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "ecs_world_query_make: more than %u terms ('%s' is one too many)",
                                 (unsigned)ECS_WORLD_MAX_TERMS, names[k]);
        if (c == ECS_WORLD_NO_COMPONENT)
            return ecs_error_set(err, ECS_ERROR_NOT_FOUND, "ecs_world_query_make: no component '%s' in the world",
                                 names[k]);
        for (j = 0; j < q->num_terms; ++j)
            if (q->term[j] == c)
                return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_world_query_make: '%s' is named twice",
                                     names[k]);
        q->term[q->num_terms++] = c;
    }
    return ECS_OK;
}

/* The required term with the fewest instances now (the first of equals):
   the lookup path's driver, chosen again by every span and chunk so that a
   query made before the stores filled (at start-up, before a level) still
   drives from the smallest. Stores do not change during a walk, so a walk
   and its span agree. */
static uint32_t ecs__query_driver(const ecs_world_query *q)
{
    uint32_t t, d = 0, best = 0xFFFFFFFFu;
    for (t = 0; t < q->num_required; ++t) {
        const ecs_world_component *c = &q->world->component[q->term[t]];
        uint32_t size = c->manager ? c->manager->num_instances : c->iface->count(c->store);
        if (size < best) {
            best = size;
            d = t;
        }
    }
    return d;
}

/* How group g relates to q's required terms: 3 its members are exactly
   them, 2 it holds them all and more, 1 they hold all its members and more,
   0 none of these. */
static uint32_t ecs__query_group_rel(const ecs_world *w, const ecs_world_query *q, const ecs_group *g)
{
    uint32_t t, k, held = 0;
    for (t = 0; t < q->num_required; ++t)
        for (k = 0; k < g->num_members; ++k) held += g->member[k] == w->component[q->term[t]].manager;
    if (held == q->num_required) return g->num_members == held ? 3u : 2u;
    return held == g->num_members ? 1u : 0u;
}

/* The group q's matches come from (see QUERIES: exact, then the group
   holding the terms with the fewest members, then the group of terms with
   the most members), or NULL; *rel as ecs__query_group_rel. */
static const ecs_group *ecs__query_best_group(const ecs_world *w, const ecs_world_query *q, uint32_t *rel)
{
    const ecs_group *best = NULL, *g;
    uint32_t t, r;
    *rel = 0;
    for (t = 0; t < q->num_required; ++t) {
        const ecs_manager *m = w->component[q->term[t]].manager;
        for (g = m ? m->group : NULL; g; g = g->next) {
            if ((r = ecs__query_group_rel(w, q, g)) == 0 || r < *rel) continue;
            if (r == *rel && (r == 2u ? g->num_members >= best->num_members : g->num_members <= best->num_members))
                continue;
            best = g;
            *rel = r;
        }
    }
    return best;
}

/* Picks the path of q's required terms. */
static void ecs__query_plan(const ecs_world *w, ecs_world_query *q)
{
    uint32_t t, k, direct = 1, rel = 0;
    const ecs_group *g = NULL;
    for (t = 0; t < q->num_required; ++t) {
        const ecs_world_component *c = &w->component[q->term[t]];
        if (!c->manager || c->manager->lookup != ECS_LOOKUP_DIRECT) direct = 0;
    }
    if (!direct && q->num_required >= 2u) g = ecs__query_best_group(w, q, &rel);
    q->group = g;
    q->group_terms = 0;
    q->group_term = 0;
    for (t = q->num_terms; g && t-- > 0;)
        for (k = 0; k < g->num_members; ++k)
            if (g->member[k] == w->component[q->term[t]].manager) {
                q->group_terms |= 1u << t;
                if (t < q->num_required) q->group_term = t; /* the first required member */
            }
    q->path = direct ? ECS_WORLD_QUERY_DIRECT : rel >= 2u ? ECS_WORLD_QUERY_GROUP
                                              : rel == 1u ? ECS_WORLD_QUERY_GROUP_PART : ECS_WORLD_QUERY_LOOKUP;
    q->driver = g ? q->group_term : ecs__query_driver(q);
}

ECS_DEF ecs_result ecs_world_query_make(ecs_world *w, const ecs_world_query_desc *desc, ecs_world_query *q,
                                        ecs_error *err)
{
    ecs_world_query made;
    ecs_result r;
    memset(&made, 0, sizeof made);
    made.world = w;
    made.epoch = w->epoch;
    r = ecs__query_terms(w, desc->required, &made, &w->error);
    made.num_required = made.num_terms;
    if (r == ECS_OK && made.num_required == 0)
        r = ecs_error_set(&w->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_world_query_make: no required component");
    if (r == ECS_OK) r = ecs__query_terms(w, desc->optional, &made, &w->error);
    if (r != ECS_OK) {
        if (err) *err = w->error;
        return r;
    }
    ecs__query_plan(w, &made);
    *q = made;
    return ECS_OK;
}

ECS_DEF uint32_t ecs_world_query_span(const ecs_world_query *q)
{
    const ecs_world *w = q->world;
    uint32_t t, span;
    if (q->epoch != w->epoch) return 0;
    /* a group's prefix; a group holding more than the terms: then the
       smallest term's instances past it (the remainder) */
    if (q->path == ECS_WORLD_QUERY_GROUP_PART || (q->path == ECS_WORLD_QUERY_GROUP && q->group->num_members == q->num_required))
        return q->group->size;
    span = ecs__store_count(&w->component[q->term[ecs__query_driver(q)]]);
    /* direct: slots past any required store's count match nothing */
    for (t = 0; q->path == ECS_WORLD_QUERY_DIRECT && t < q->num_required; ++t)
        if (w->component[q->term[t]].manager->count < span) span = w->component[q->term[t]].manager->count;
    return span;
}

ECS_DEF ecs_result ecs_world_cursor_start(ecs_world_cursor *c, const ecs_world_query *q, uint32_t begin, uint32_t end)
{
    uint32_t span = ecs_world_query_span(q);
    c->query = q;
    if (q->epoch != q->world->epoch) { /* no message: walks run at once, the world's error is shared */
        c->next = c->end = 0;
        return ECS_ERROR_NOT_FOUND;
    }
    c->end = end < span ? end : span;
    c->next = begin < c->end ? begin : c->end;
    c->masked = 0;
    return ECS_OK;
}

/* The first instance of the n entities es in m when they own consecutive
   instances of it (stores in step: filled together or co-sorted by a
   group), else nil: one compare per entity, no branch on the data. */
static uint32_t ecs__store_run(const ecs_world_component *c, uint32_t n, const ecs_entity *es)
{
    const ecs_manager *m = c->manager;
    uint32_t first, k, same = 1;
    if (!m || m->next || m->lookup == ECS_LOOKUP_DIRECT || n == 0) return ECS_INSTANCE_NIL;
    first = ecs_manager_lookup(m, es[0]).i;
    if (first == ECS_INSTANCE_NIL || n > m->count - first) return ECS_INSTANCE_NIL;
    for (k = 0; k < n; ++k) same &= m->entity[first + k].id == es[k].id;
    return same ? first : ECS_INSTANCE_NIL;
}

/* The optional terms' instances for the chunk's entities (but the terms in
   done, bits: set already): a run (index NULL) where they are in step, else
   an index list. */
static void ecs__cursor_optional(ecs_world_cursor *c, ecs_world_chunk *out, uint32_t done)
{
    const ecs_world_query *q = c->query;
    uint32_t t, first;
    for (t = q->num_required; t < q->num_terms; ++t) {
        const ecs_world_component *comp = &q->world->component[q->term[t]];
        if (done >> t & 1u) continue;
        if ((first = ecs__store_run(comp, out->count, out->entity)) != ECS_INSTANCE_NIL) {
            out->first[t] = first;
            out->index[t] = NULL;
            continue;
        }
        ecs__store_lookup_many(comp, out->count, out->entity, c->index_buffer[t]);
        out->first[t] = 0;
        out->index[t] = c->index_buffer[t];
    }
}

/* Direct path: the id owning slot s in every required store, or 0. No
   branch on the data: scattered matches cost no mispredictions. */
static uint32_t ecs__direct_match(const ecs_entity *const *ent, uint32_t n, uint32_t s)
{
    uint32_t id = ent[0][s].id, same = id != 0, t;
    for (t = 1; t < n; ++t) same &= ent[t][s].id == id;
    return id & (0u - same);
}

/* Whether every slot of [s, s + 16) matches (one branch for 16 slots). */
static int ecs__direct_block(const ecs_entity *const *ent, uint32_t n, uint32_t s)
{
    const ecs_entity *e0 = ent[0] + s;
    uint32_t all = 1, k, t;
    for (k = 0; k < 16u; ++k) all &= e0[k].id != 0;
    for (t = 1; t < n; ++t) {
        const ecs_entity *et = ent[t] + s;
        for (k = 0; k < 16u; ++k) all &= et[k].id == e0[k].id;
    }
    return (int)all;
}

/* Appends the matching slots of [s, s + 16) to slot[n..] and their ids to
   id[n..] (room for 16): the ids of the block first (loops the compiler
   can vectorise), then the list, each entry written and kept on a match.
   Returns the new n. */
static uint32_t ecs__direct_gather(const ecs_entity *const *ent, uint32_t nreq, uint32_t s, uint32_t *slot,
                                   ecs_entity *id, uint32_t n)
{
    const ecs_entity *e0 = ent[0] + s;
    uint32_t match[16], k, t;
    for (k = 0; k < 16u; ++k) match[k] = e0[k].id;
    for (t = 1; t < nreq; ++t) {
        const ecs_entity *et = ent[t] + s;
        for (k = 0; k < 16u; ++k) match[k] &= 0u - (uint32_t)(et[k].id == e0[k].id);
    }
    for (k = 0; k < 16u; ++k) {
        slot[n] = s + k;
        id[n].id = match[k];
        n += match[k] != 0;
    }
    return n;
}

/* The length of the run of matching slots from s, at most limit. */
static uint32_t ecs__direct_run(const ecs_entity *const *ent, uint32_t nreq, uint32_t s, uint32_t limit)
{
    uint32_t run = 0;
    while (run + 16u <= limit && ecs__direct_block(ent, nreq, s + run)) run += 16u;
    while (run < limit && ecs__direct_match(ent, nreq, s + run)) ++run;
    return run;
}

/* The end of the remembered run holding slot s, or 0: none, or the runs
   are out of date. */
static uint32_t ecs__query_run_end(const ecs_world_query *q, uint32_t s)
{
    uint32_t t, r;
    for (t = 0; t < q->num_required && q->num_runs; ++t)
        if (q->world->component[q->term[t]].manager->version != q->run_version[t]) return 0;
    for (r = 0; r < q->num_runs; ++r)
        if (q->run_begin[r] <= s && s < q->run_end[r]) return q->run_end[r];
    return 0;
}

/* The match bits of slots [s, s + 64) (n of them valid, n <= 64): bit j
   when every required store owns slot s + j for one id. SSE2: 16 slots per
   compare and movemask; else the matches as bytes (loops the compiler
   vectorises), then eight bytes of 0/1 to eight bits by one multiply each
   (the bits land apart: no carries). */
static uint64_t ecs__direct_bits(const ecs_entity *const *ent, uint32_t nreq, uint32_t s, uint32_t n)
{
    const ecs_entity *e0 = ent[0] + s;
    uint64_t bits = 0;
    uint32_t j, t;
#if ECS__SIMD
    const __m128i zero = _mm_setzero_si128();
#else
    uint32_t m[64];
    uint8_t b[64];
#endif
    if (n < 64u) { /* the tail: slot by slot */
        for (j = 0; j < n; ++j) bits |= (uint64_t)(ecs__direct_match(ent, nreq, s + j) != 0) << j;
        return bits;
    }
#if ECS__SIMD
    for (j = 0; j < 64u; j += 16u) {
        __m128i a[4], ok[4];
        uint32_t q;
        for (q = 0; q < 4u; ++q) {
            a[q] = _mm_loadu_si128((const __m128i *)(const void *)(e0 + j + 4u * q));
            ok[q] = _mm_xor_si128(_mm_cmpeq_epi32(a[q], zero), _mm_set1_epi32(-1)); /* id != 0 */
        }
        for (t = 1; t < nreq; ++t)
            for (q = 0; q < 4u; ++q)
                ok[q] = _mm_and_si128(ok[q], _mm_cmpeq_epi32(a[q], _mm_loadu_si128((const __m128i *)(const void *)(ent[t] + s + j + 4u * q))));
        bits |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_packs_epi16(_mm_packs_epi32(ok[0], ok[1]), _mm_packs_epi32(ok[2], ok[3])))
                << j;
    }
#else
    for (j = 0; j < 64u; ++j) m[j] = e0[j].id;
    for (t = 1; t < nreq; ++t) {
        const ecs_entity *et = ent[t] + s;
        for (j = 0; j < 64u; ++j) m[j] &= 0u - (uint32_t)(et[j].id == e0[j].id);
    }
    for (j = 0; j < 64u; ++j) b[j] = (uint8_t)(m[j] != 0);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (j = 0; j < 64u; j += 8u) {
        uint64_t x;
        memcpy(&x, b + j, 8);
        bits |= ((x * 0x0102040810204080ull) >> 56) << j;
    }
#else
    for (j = 0; j < 64u; ++j) bits |= (uint64_t)b[j] << j;
#endif
#endif
    return bits;
}

/* Direct path, masked (a system's walk without optional terms): up to
   ECS_WORLD_MASKED_CHUNK slots from c->next with their match bits; chunks
   with no match are skipped. No remembered runs needed: every walk costs
   the same, the first after a change too. */
static int ecs__cursor_direct_masked(ecs_world_cursor *c, ecs_world_chunk *out)
{
    const ecs_world_query *q = c->query;
    const ecs_entity *ent[ECS_WORLD_MAX_TERMS];
    uint32_t t, nreq = q->num_required;
    for (t = 0; t < nreq; ++t) ent[t] = q->world->component[q->term[t]].manager->entity;
    while (c->next < c->end) {
        uint32_t s = c->next, n = c->end - s < ECS_WORLD_MASKED_CHUNK ? c->end - s : ECS_WORLD_MASKED_CHUNK, w;
        uint64_t any = 0;
        for (w = 0; w * 64u < n; ++w)
            any |= c->mask_buffer[w] = ecs__direct_bits(ent, nreq, s + w * 64u, n - w * 64u < 64u ? n - w * 64u : 64u);
        c->next = s + n;
        if (!any) continue;
        for (t = 0; t < nreq; ++t) {
            out->first[t] = s;
            out->index[t] = NULL;
        }
        out->count = n;
        out->entity = ent[0] + s;
        out->mask = c->mask_buffer;
        return 1;
    }
    return 0;
}

static int ecs__cursor_direct(ecs_world_cursor *c, ecs_world_chunk *out)
{
    const ecs_world_query *q = c->query;
    const ecs_entity *ent[ECS_WORLD_MAX_TERMS];
    uint32_t t, s = c->next, end = c->end, run, n = 0, nreq = q->num_required, limit, known;
    for (t = 0; t < nreq; ++t) ent[t] = q->world->component[q->term[t]].manager->entity;
    while (s < end && !ecs__direct_match(ent, nreq, s)) ++s;
    if (s == end) {
        c->next = end;
        return 0;
    }
    /* a contiguous chunk needs no buffer unless optional terms are looked
       up for it: without them it spans its whole run */
    limit = end - s < ECS_WORLD_CHUNK || q->num_terms == nreq ? end - s : ECS_WORLD_CHUNK;
    known = ecs__query_run_end(q, s);
    if (known) run = known - s < limit ? known - s : limit;
    else run = ecs__direct_run(ent, nreq, s, limit);
    if (run >= ECS__WORLD_MIN_RUN || run == limit) { /* a contiguous run */
        for (t = 0; t < nreq; ++t) {
            out->first[t] = s;
            out->index[t] = NULL;
        }
        out->count = run;
        out->entity = ent[0] + s;
        c->next = s + run;
    } else { /* short runs: gather the matching slots into one list */
        uint32_t *slot = c->index_buffer[0];
        ecs_entity *id = c->entity_buffer;
        for (; s + 16u <= end && n + 16u <= ECS_WORLD_CHUNK; s += 16u) n = ecs__direct_gather(ent, nreq, s, slot, id, n);
        for (; s < end && n < ECS_WORLD_CHUNK; ++s) { /* written always, kept on a match */
            slot[n] = s;
            id[n].id = ecs__direct_match(ent, nreq, s);
            n += id[n].id != 0;
        }
        for (t = 0; t < nreq; ++t) {
            out->first[t] = 0;
            out->index[t] = c->index_buffer[0];
        }
        out->count = n;
        out->entity = c->entity_buffer;
        c->next = s;
    }
    ecs__cursor_optional(c, out, 0);
    return 1;
}

static int ecs__cursor_lookup(ecs_world_cursor *c, ecs_world_chunk *out, uint32_t d, uint32_t in_step);

/* Group paths: a chunk of the prefix (contiguous in every member) or, past
   it, of the remainder (the lookup path's walk from the smallest term). */
static int ecs__cursor_group(ecs_world_cursor *c, ecs_world_chunk *out)
{
    const ecs_world_query *q = c->query;
    const ecs_group *g = q->group;
    uint32_t t, s = c->next, n, stop = c->end < g->size ? c->end : g->size;
    uint32_t optional_out = 0; /* optional terms outside the group: looked up, a chunk at a time */
    if (s >= g->size) return ecs__cursor_lookup(c, out, ecs__query_driver(q), 0);
    if (q->path == ECS_WORLD_QUERY_GROUP_PART) return ecs__cursor_lookup(c, out, q->group_term, q->group_terms);
    for (t = q->num_required; t < q->num_terms; ++t) optional_out |= !(q->group_terms >> t & 1u);
    n = stop - s;
    if (optional_out && n > ECS_WORLD_CHUNK) n = ECS_WORLD_CHUNK;
    for (t = 0; t < q->num_terms; ++t)
        if (q->group_terms >> t & 1u) {
            out->first[t] = s;
            out->index[t] = NULL;
        }
    out->count = n;
    out->entity = q->world->component[q->term[q->group_term]].manager->entity + s;
    c->next = s + n;
    ecs__cursor_optional(c, out, q->group_terms);
    return 1;
}

/* Lookup path: the window's entities that own driver instance i as their
   first one, into entity_buffer and di (the driver's index list). Returns
   how many. */
static uint32_t ecs__lookup_window(ecs_world_cursor *c, uint32_t *di, const ecs_world_component *d, uint32_t begin,
                                   uint32_t n)
{
    uint32_t i, k = 0;
    const ecs_manager *m = d->manager;
    for (i = begin; i < begin + n; ++i) {
        ecs_entity e = m ? m->entity[i] : d->iface->entity_at(d->store, i);
        if (ecs_entity_is_nil(e)) continue;
        /* an entity with several instances matches once, at its first */
        if ((m ? m->next != NULL : 1) && ecs__store_lookup(d, e).i != i) continue;
        c->entity_buffer[k] = e;
        di[k++] = i;
    }
    return k;
}

/* Keeps the matches of term t (index_buffer[t][k] not nil) among the n
   candidates ents[k], in order, in entity_buffer and the index lists of the
   terms looked up so far and the driver's (term d). *contiguous: the driver's
   instances are still begin + k (no list yet). Returns how many are kept. */
static uint32_t ecs__lookup_keep(ecs_world_cursor *c, uint32_t d, uint32_t t, const ecs_entity *ents, uint32_t n,
                                 uint32_t begin, uint32_t *contiguous)
{
    uint32_t *di = c->index_buffer[d], k = 0, j, u;
    while (k < n && c->index_buffer[t][k] != ECS_INSTANCE_NIL) ++k;
    if (k == n) return n; /* all kept */
    if (*contiguous)
        for (j = 0; j < n; ++j) di[j] = begin + j;
    *contiguous = 0;
    for (j = 0; j < k; ++j) c->entity_buffer[j] = ents[j]; /* a no-op when ents is the buffer */
    for (; k < n; ++k) {
        if (c->index_buffer[t][k] == ECS_INSTANCE_NIL) continue;
        c->entity_buffer[j] = ents[k];
        for (u = 0; u <= t; ++u) c->index_buffer[u][j] = c->index_buffer[u][k];
        if (d > t) di[j] = di[k];
        ++j;
    }
    return j;
}

/* The lookup walk from driver term d over c's positions; the required terms
   in in_step (bits) sit at the driver's instances (a group's members in its
   prefix) and are not looked up. */
static int ecs__cursor_lookup(ecs_world_cursor *c, ecs_world_chunk *out, uint32_t d, uint32_t in_step)
{
    const ecs_world_query *q = c->query;
    uint32_t t;
    const ecs_world_component *comp = q->world->component, *dc = &comp[q->term[d]];
    /* a dense or hash manager with one instance per entity: its entity
       array is the candidates, no copy */
    int in_place = dc->manager && dc->manager->lookup != ECS_LOOKUP_DIRECT && !dc->manager->next;
    in_step |= 1u << d;
    while (c->next < c->end) {
        uint32_t begin = c->next, w = c->end - begin < ECS_WORLD_CHUNK ? c->end - begin : ECS_WORLD_CHUNK, n;
        uint32_t contiguous;
        const ecs_entity *ents = c->entity_buffer;
        /* one store and no buffer needed: the whole range is one chunk */
        if (in_place && q->num_terms == 1u) w = c->end - begin;
        c->next = begin + w;
        if (in_place) {
            ents = dc->manager->entity + begin;
            n = w;
        } else {
            n = ecs__lookup_window(c, c->index_buffer[d], dc, begin, w);
        }
        contiguous = in_place || n == w;
        for (t = 0; t < q->num_required && n; ++t) {
            uint32_t kept;
            if (in_step >> t & 1u) continue;
            ecs__store_lookup_many(&comp[q->term[t]], n, ents, c->index_buffer[t]);
            kept = ecs__lookup_keep(c, d, t, ents, n, begin, &contiguous);
            if (kept != n) ents = c->entity_buffer;
            n = kept;
        }
        if (n == 0) continue;
        for (t = 0; t < q->num_required; ++t) {
            out->first[t] = 0;
            out->index[t] = c->index_buffer[t];
        }
        if (contiguous) {
            out->first[d] = begin;
            out->index[d] = NULL;
        }
        for (t = 0; t < q->num_terms; ++t) /* in step: the driver's instances */
            if ((in_step >> t & 1u) && t != d) {
                out->first[t] = out->first[d];
                out->index[t] = out->index[d];
            }
        out->count = n;
        out->entity = ents;
        ecs__cursor_optional(c, out, in_step);
        return 1;
    }
    return 0;
}

ECS_DEF int ecs_world_cursor_next(ecs_world_cursor *c, ecs_world_chunk *out)
{
    if (c->next >= c->end) return 0;
    if (c->query->epoch != c->query->world->epoch) { /* a store removed mid-walk: its groups and indices are gone */
        c->next = c->end;
        return 0;
    }
    out->mask = NULL;
    switch (c->query->path) {
    case ECS_WORLD_QUERY_DIRECT:
        return c->masked && c->query->num_terms == c->query->num_required ? ecs__cursor_direct_masked(c, out)
                                                                          : ecs__cursor_direct(c, out);
    case ECS_WORLD_QUERY_GROUP:
    case ECS_WORLD_QUERY_GROUP_PART: return ecs__cursor_group(c, out);
    default: return ecs__cursor_lookup(c, out, ecs__query_driver(c->query), 0);
    }
}

/* Remembers run [begin, end) if it is among the longest (slot order kept). */
static void ecs__query_keep_run(ecs_world_query *q, uint32_t begin, uint32_t end)
{
    uint32_t r, shortest = 0;
    if (q->num_runs == ECS_WORLD_QUERY_RUNS) {
        for (r = 1; r < q->num_runs; ++r)
            if (q->run_end[r] - q->run_begin[r] < q->run_end[shortest] - q->run_begin[shortest]) shortest = r;
        if (q->run_end[shortest] - q->run_begin[shortest] >= end - begin) return;
        for (r = shortest; r + 1u < q->num_runs; ++r) { /* drop it */
            q->run_begin[r] = q->run_begin[r + 1u];
            q->run_end[r] = q->run_end[r + 1u];
        }
        --q->num_runs;
    }
    q->run_begin[q->num_runs] = begin; /* runs arrive in slot order */
    q->run_end[q->num_runs++] = end;
}

ECS_DEF void ecs_world_query_refresh(ecs_world_query *q)
{
    const ecs_entity *ent[ECS_WORLD_MAX_TERMS];
    uint32_t t, s, span, nreq = q->num_required, same = q->scanned;
    if (q->path != ECS_WORLD_QUERY_DIRECT || q->epoch != q->world->epoch) {
        q->scanned = q->num_runs = 0;
        return;
    }
    for (t = 0; t < nreq; ++t) {
        const ecs_manager *m = q->world->component[q->term[t]].manager;
        ent[t] = m->entity;
        same &= m->version == q->run_version[t];
        q->run_version[t] = m->version;
    }
    if (same) return;
    q->scanned = 1u;
    q->num_runs = 0;
    span = ecs_world_query_span(q);
    for (s = 0; s < span;) {
        uint32_t run = ecs__direct_run(ent, nreq, s, span - s);
        if (run >= ECS__WORLD_MIN_RUN) ecs__query_keep_run(q, s, s + run);
        s += run ? run : 1u;
    }
}

/* ---- whole entities ----------------------------------------------------------- */

ECS_DEF uint32_t ecs_world_components_of(const ecs_world *w, ecs_entity e, ecs_world_has *out, uint32_t cap)
{
    uint32_t k, n = 0;
    if (!ecs_entity_alive(&w->entities, e)) return 0;
    for (k = 0; k < w->num_components; ++k) {
        ecs_instance i = ecs__store_lookup(&w->component[k], e);
        if (ecs_instance_is_nil(i)) continue;
        if (n < cap) {
            out[n].component = k;
            out[n].instance = i;
        }
        ++n;
    }
    return n;
}

/* e, then its instances in every store (the stores find them by id): the
   destroy callbacks see e with every instance, as after ecs_entity_destroy.
   Dead already (a callback destroyed it): its instances only. 0 when the
   destroy was refused (e's destruction already running: that destroy
   removes them; out of memory): e keeps everything. */
static int ecs__world_destroy_one(ecs_world *w, ecs_entity e)
{
    uint32_t k;
    if (!ecs_entity_destroy(&w->entities, e) && ecs_entity_alive(&w->entities, e)) return 0;
    for (k = 0; k < w->num_components; ++k) (void)ecs__store_destroy_entity(&w->component[k], e);
    return 1;
}

ECS_DEF int ecs_world_destroy_now(ecs_world *w, ecs_entity e)
{
    return ecs_entity_live(&w->entities, e) && ecs__world_destroy_one(w, e);
}

ECS_DEF ecs_result ecs_world_destroy_tree(ecs_world *w, const char *hierarchy, ecs_entity e, ecs_error *err)
{
    ecs_entity small[64], *list = small;
    uint32_t k = ecs_world_find(w, hierarchy), n, refused;
    const ecs_world_component *h = k == ECS_WORLD_NO_COMPONENT ? NULL : &w->component[k];
    char who[ECS_ENTITY_TEXT_SIZE];
    ecs_result r = ECS_OK;
    if (!h)
        r = ecs_error_set(&w->error, ECS_ERROR_NOT_FOUND, "ecs_world_destroy_tree: no component '%s'",
                          hierarchy ? hierarchy : "(null)");
    else if (!h->iface || !h->iface->subtree)
        r = ecs_error_set(&w->error, ECS_ERROR_INVALID_ARGUMENT,
                          "ecs_world_destroy_tree: component '%s' is not a hierarchy (no subtree)", hierarchy);
    else if (!ecs_entity_live(&w->entities, e))
        r = ecs_error_set(&w->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_world_destroy_tree: %s is not alive in this world",
                          ecs_entity_format(who, sizeof who, e));
    if (r != ECS_OK) {
        if (err) *err = w->error;
        return r;
    }
    n = h->iface->subtree(h->store, e, small, 64u);
    if (n > 64u) { /* room first: all or nothing */
        list = (ecs_entity *)ECS__REALLOC(NULL, (size_t)n * sizeof *list);
        if (!list) {
            ecs_error_set(&w->error, ECS_ERROR_OUT_OF_MEMORY,
                          "ecs_world_destroy_tree: out of memory listing %u entities under %s", (unsigned)n,
                          ecs_entity_format(who, sizeof who, e));
            if (err) *err = w->error;
            return ECS_ERROR_OUT_OF_MEMORY;
        }
        n = h->iface->subtree(h->store, e, list, n);
    }
    if (n == 0) {
        small[0] = e;
        n = 1;
    }
    /* leaves first: no child is made a root only to be destroyed next; one
       whose destruction is running already is left to that destroy */
    for (k = n, refused = 0; k-- > 0;)
        refused += !ecs__world_destroy_one(w, list[k]) && !ecs__entity_is_destroying(&w->entities, list[k]);
    if (list != small) ECS__FREE(list);
    if (!refused) return ECS_OK;
    ecs_error_set(&w->error, ECS_ERROR_OUT_OF_MEMORY,
                  "ecs_world_destroy_tree: %u of the %u entities of %s's tree were refused (out of memory nesting "
                  "destroy callbacks or growing the free queue): they keep their instances, the others are destroyed", (unsigned)refused,
                  (unsigned)n, ecs_entity_format(who, sizeof who, e));
    if (err) *err = w->error;
    return ECS_ERROR_OUT_OF_MEMORY;
}

/* ecs_world_collect's tasks: task k collects component k, and with it the
   other components of its group (a group's members change together). */
typedef struct ecs__world_collect_job {
    ecs_world *w;
    uint32_t first;                       /* component of task 0 */
    uint32_t destroyed[ECS_JOBS_MAX_TASKS];
} ecs__world_collect_job;

static uint32_t ecs__store_collect(ecs_world *w, uint32_t k)
{
    const ecs_world_component *c = &w->component[k];
    return c->manager ? ecs_manager_collect(c->manager, &w->entities) : c->iface->collect(c->store, &w->entities);
}

static void ecs__world_collect_task(void *user, uint32_t task)
{
    ecs__world_collect_job *job = (ecs__world_collect_job *)user;
    ecs_world *w = job->w;
    uint32_t k = job->first + task, j, n = 0;
    const ecs_group *g = ecs_group_top(w->component[k].manager);
    for (j = 0; g && j < k; ++j) /* an earlier component's task does the nest */
        if (ecs_group_top(w->component[j].manager) == g) break;
    if (!g || j == k) {
        n = ecs__store_collect(w, k);
        for (j = k + 1u; g && j < w->num_components; ++j)
            if (ecs_group_top(w->component[j].manager) == g) n += ecs__store_collect(w, j);
    }
    job->destroyed[task] = n;
}

ECS_DEF uint32_t ecs_world_collect(ecs_world *w, const ecs_jobs *jobs)
{
    ecs__world_collect_job job;
    uint32_t total = 0, k;
    job.w = w;
    for (job.first = 0; job.first < w->num_components; job.first += ECS_JOBS_MAX_TASKS) {
        uint32_t n = w->num_components - job.first;
        if (n > ECS_JOBS_MAX_TASKS) n = ECS_JOBS_MAX_TASKS;
        ecs_jobs_run(jobs, n, ecs__world_collect_task, &job, NULL);
        for (k = 0; k < n; ++k) total += job.destroyed[k];
    }
    return total;
}

/* ==== systems ================================================================
   (issues 18, 23; after the world, which they run on) */

/* Makes s's query from its desc's terms (required first, then optional, each
   in the desc's order) and the term maps. ECS_OK or an error naming the
   system and the term (w->error set). */
static ecs_result ecs__system_build(ecs_world *w, ecs_world_system *s)
{
    const ecs_system_desc *d = s->desc;
    ecs_world_query_desc qd;
    uint32_t t, nreq = 0, nopt = 0, c;
    ecs_result r;
    memset(&qd, 0, sizeof qd);
    s->num_writes = 0;
    for (t = 0; t < d->num_terms; ++t) {
        const ecs_system_term *term = &d->terms[t];
        const char *name = term->component ? term->component : "(null)";
        if ((c = ecs_world_find(w, term->component)) == ECS_WORLD_NO_COMPONENT)
            return ecs_error_set(&w->error, ECS_ERROR_NOT_FOUND, "system '%s': no component '%s' in the world", d->name,
                                 name);
        if (!(s->manager[t] = w->component[c].manager))
            return ecs_error_set(&w->error, ECS_ERROR_INVALID_ARGUMENT,
                                 "system '%s': '%s' is not an ecs_manager (a system's terms are managers; walk a "
                                 "query over it by hand: ecs.h SYSTEMS)",
                                 d->name, name);
        if (term->layout_matches && !term->layout_matches(s->manager[t]))
            return ecs_error_set(&w->error, ECS_ERROR_INVALID_ARGUMENT,
                                 "system '%s': the manager registered as '%s' does not have the fields of the declared "
                                 "type '%s' (%u fields)",
                                 d->name, name, name, (unsigned)s->manager[t]->num_fields);
        if (term->access & ECS_OPTIONAL) qd.optional[nopt++] = term->component;
        else qd.required[nreq++] = term->component;
        if (term->access & ECS_WRITE) s->write[s->num_writes++] = c;
    }
    if ((r = ecs_world_query_make(w, &qd, &s->query, NULL)) != ECS_OK)
        return ecs_error_set(&w->error, r, "system '%s': %s", d->name, w->error.message);
    for (t = 0, nreq = 0, nopt = s->query.num_required; t < d->num_terms; ++t)
        s->query_term[t] = d->terms[t].access & ECS_OPTIONAL ? nopt++ : nreq++;
    return ECS_OK;
}

/* Why desc cannot be registered in w (err set), or ECS_OK. */
static ecs_result ecs__system_check(ecs_world *w, const ecs_system_desc *d)
{
    uint32_t k, required = 0;
    if (!d || !d->name || !d->chunk || d->num_terms == 0 || d->num_terms > ECS_WORLD_MAX_TERMS || !d->terms)
        return ecs_error_set(&w->error, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_world_add_system: system '%s' needs a name, a chunk function and 1..%u terms",
                             d && d->name ? d->name : "(null)", (unsigned)ECS_WORLD_MAX_TERMS);
    for (k = 0; k < d->num_terms; ++k) required += !(d->terms[k].access & ECS_OPTIONAL);
    if (!required)
        return ecs_error_set(&w->error, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_world_add_system: system '%s' has no required term", d->name);
    for (k = 0; k < w->num_systems; ++k)
        if (w->systems[k].desc == d || strcmp(w->systems[k].desc->name, d->name) == 0)
            return ecs_error_set(&w->error, ECS_ERROR_ALREADY_EXISTS,
                                 "ecs_world_add_system: system '%s' is registered already", d->name);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_world_add_system(ecs_world *w, const ecs_system_desc *desc, ecs_error *err)
{
    ecs_world_system s;
    ecs_result r = ecs__system_check(w, desc);
    memset(&s, 0, sizeof s);
    s.desc = desc;
    if (r == ECS_OK) r = ecs__system_build(w, &s);
    if (r == ECS_OK && w->num_systems == w->systems_capacity) {
        uint32_t cap = w->systems_capacity ? w->systems_capacity * 2u : 8u;
        ecs_world_system *grown = (ecs_world_system *)ECS__REALLOC(w->systems, (size_t)cap * sizeof *grown);
        if (grown) {
            w->systems = grown;
            w->systems_capacity = cap;
        } else {
            r = ecs_error_set(&w->error, ECS_ERROR_OUT_OF_MEMORY, "ecs_world_add_system: out of memory adding '%s'",
                              desc->name);
        }
    }
    if (r != ECS_OK) {
        if (err) *err = w->error;
        return r;
    }
    w->systems[w->num_systems++] = s;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_world_remove_system(ecs_world *w, const char *name, ecs_error *err)
{
    uint32_t k;
    for (k = 0; name && k < w->num_systems; ++k)
        if (strcmp(w->systems[k].desc->name, name) == 0) {
            memmove(&w->systems[k], &w->systems[k + 1u], (size_t)(w->num_systems - k - 1u) * sizeof *w->systems);
            --w->num_systems;
            return ECS_OK;
        }
    ecs_error_set(&w->error, ECS_ERROR_NOT_FOUND, "ecs_world_remove_system: no system '%s'", name ? name : "(null)");
    if (err) *err = w->error;
    return ECS_ERROR_NOT_FOUND;
}

/* 1 when a writes a component that b reads or writes. */
static int ecs__system_writes_into(const ecs_world_system *a, const ecs_world_system *b)
{
    uint32_t i, j;
    for (i = 0; i < a->num_writes; ++i) {
        for (j = 0; j < b->query.num_terms; ++j)
            if (a->write[i] == b->query.term[j]) return 1;
        for (j = 0; j < b->num_writes; ++j)
            if (a->write[i] == b->write[j]) return 1;
    }
    return 0;
}

/* The rule: one writes what the other reads or writes, or both are serial
   (both may write the same shared state: a frame buffer, a sum). */
static int ecs__systems_conflict(const ecs_world_system *a, const ecs_world_system *b)
{
    if (a->desc->flags & b->desc->flags & ECS_SERIAL) return 1;
    return ecs__system_writes_into(a, b) || ecs__system_writes_into(b, a);
}

/* The waves (the rule); returns how many. O(n^2) pairs, each at most 8 x 16 compares. */
static uint32_t ecs__systems_waves(ecs_world_system *s, uint32_t n)
{
    uint32_t i, j, waves = 0;
    for (j = 0; j < n; ++j) {
        s[j].wave = 0;
        for (i = 0; i < j; ++i)
            if (s[i].wave >= s[j].wave && ecs__systems_conflict(&s[i], &s[j]))
                s[j].wave = s[i].wave + 1u;
        if (s[j].wave >= waves) waves = s[j].wave + 1u;
    }
    return waves;
}

typedef struct ecs__systems_job {
    ecs_world_system *s;
    const ecs_frame *frame;
    uint32_t n, wave, base; /* base: the first task of this ecs_jobs_run */
} ecs__systems_job;

/* Hands one chunk to s's body, its terms in the desc's order. */
static void ecs__system_chunk(const ecs_world_system *s, const ecs_frame *frame, const ecs_world_chunk *c)
{
    ecs_world_chunk mine;
    uint32_t t, same = 1;
    for (t = 0; t < s->desc->num_terms; ++t) same &= s->query_term[t] == t;
    if (same) {
        s->desc->chunk(frame, c, s->manager);
        return;
    }
    mine.count = c->count;
    mine.entity = c->entity;
    mine.mask = c->mask;
    for (t = 0; t < s->desc->num_terms; ++t) {
        mine.first[t] = c->first[s->query_term[t]];
        mine.index[t] = c->index[s->query_term[t]];
    }
    s->desc->chunk(frame, &mine, s->manager);
}

/* Task k of the wave: one range of one of its systems (all of it when serial). */
static void ecs__systems_task(void *user, uint32_t k)
{
    const ecs__systems_job *job = (const ecs__systems_job *)user;
    ecs_world_cursor c;
    ecs_world_chunk chunk;
    uint32_t i, begin, end, serial;
    k += job->base;
    for (i = 0; i < job->n; ++i) {
        const ecs_world_system *s = job->s + i;
        if (s->wave != job->wave || k < s->first_task || k - s->first_task >= s->num_tasks) continue;
        serial = s->desc->flags & ECS_SERIAL;
        begin = serial ? 0 : (k - s->first_task) * ECS_WORLD_SYSTEM_RANGE;
        end = serial ? 0xFFFFFFFFu : begin + ECS_WORLD_SYSTEM_RANGE;
        if (ecs_world_cursor_start(&c, &s->query, begin, end) != ECS_OK) return; /* checked before: cannot happen */
        c.masked = 1;
        while (ecs_world_cursor_next(&c, &chunk)) ecs__system_chunk(s, job->frame, &chunk);
        return;
    }
}

/* Before a frame: each system's query made again when a store was removed
   (an error naming it when its component is gone), planned again (groups
   may have come or gone), direct runs refreshed. */
static ecs_result ecs__systems_prepare(ecs_world *w, ecs_error *err)
{
    uint32_t i;
    for (i = 0; i < w->num_systems; ++i) {
        ecs_world_system *s = &w->systems[i];
        if (s->query.epoch != w->epoch && ecs__system_build(w, s) != ECS_OK) {
            if (err) *err = w->error;
            return w->error.code;
        }
        ecs__query_plan(w, &s->query);
        if (s->query.num_terms != s->query.num_required) ecs_world_query_refresh(&s->query); /* masked walks need none */
    }
    return ECS_OK;
}

ECS_DEF ecs_result ecs_world_run_systems(ecs_world *w, const ecs_frame *frame, const ecs_jobs *jobs, ecs_error *err)
{
    ecs__systems_job job;
    uint32_t i, waves;
    ecs_result r = ecs__systems_prepare(w, err);
    if (r != ECS_OK) return r;
    waves = ecs__systems_waves(w->systems, w->num_systems);
    job.s = w->systems;
    job.n = w->num_systems;
    job.frame = frame;
    for (job.wave = 0; job.wave < waves; ++job.wave) {
        uint32_t tasks = 0;
        for (i = 0; i < job.n; ++i) {
            ecs_world_system *s = w->systems + i;
            uint32_t span = ecs_world_query_span(&s->query);
            if (s->wave != job.wave) continue;
            s->first_task = tasks;
            s->num_tasks = (s->desc->flags & ECS_SERIAL) ? 1u : (span + ECS_WORLD_SYSTEM_RANGE - 1u) / ECS_WORLD_SYSTEM_RANGE;
            tasks += s->num_tasks;
        }
        for (job.base = 0; job.base < tasks; job.base += ECS_JOBS_MAX_TASKS)
            ecs_jobs_run(jobs, tasks - job.base < ECS_JOBS_MAX_TASKS ? tasks - job.base : ECS_JOBS_MAX_TASKS,
                         ecs__systems_task, &job, NULL);
    }
    return ECS_OK;
}

#endif /* ECS__IMPLEMENTATION_DONE */
#endif /* ECS_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
This software is available under 2 licenses -- choose whichever you prefer.
------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2026 the ecs.h authors
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
