/* ecs_transform.h - v0.11 - transform component (scene graph) for ecs.h
   Public domain or MIT (see end of file).

   Places entities in a world: each transform has a local matrix relative to
   its parent and a world matrix, and parent/child links form the scene graph.
   One ecs_transform_manager per world; an entity may have a transform in
   several managers (worlds) at once, at different places. The design follows
   part 3 of the Bitsquid "data-oriented entity system" posts (2014).

   Do this in *one* C or C++ file:
       #define ECS_TRANSFORM_IMPLEMENTATION
       #include "ecs_transform.h"
   and include "ecs_transform.h" plainly everywhere else. It includes "ecs.h"
   (keep the two side by side); one file must also define ECS_IMPLEMENTATION.

TABLE OF CONTENTS
   QUICK START, CONVENTION, API, LOOKUP, COLLECTION, MODES (when world
   matrices are current), SPAWN DATA, CONFIGURATION, ERRORS, MEMORY AND
   POINTER STABILITY, THREADING, DOES NOT, REFERENCE, REVISION HISTORY,
   LICENSE (end of file)

QUICK START (compiled and run by tests/check_quickstart.sh)

    #define ECS_IMPLEMENTATION
    #include "ecs.h"
    #define ECS_TRANSFORM_IMPLEMENTATION
    #include "ecs_transform.h"
    #include <stdio.h>

    int main(void) {
        ecs_entity_manager em;
        ecs_transform_manager world;
        ecs_entity car, wheel;
        ecs_vec3 right = {1, 0, 0}, up = {0, 2, 0};
        ecs_mat4 m = ecs_mat4_translation(right);
        ecs_instance c, w;
        const ecs_mat4 *at;
        char text[ECS_ENTITY_TEXT_SIZE];

        ecs_entity_manager_init(&em);
        car = ecs_entity_create(&em);
        wheel = ecs_entity_create(&em);
        ecs_transform_manager_init(&world, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
        ecs_entity_on_destroy(&em, ecs_transform_on_entity_destroy, &world);
        c = ecs_transform_create(&world, car, NULL, ecs_instance_nil()); // root at 0,0,0
        w = ecs_transform_create(&world, wheel, &m, c);                  // 1 right of the car
        m = ecs_mat4_translation(up);
        ecs_transform_set_local(&world, c, &m);  // the car moves up, the wheel follows
        at = ecs_transform_world(&world, w);
        printf("wheel at %g %g %g\n", at->m[12], at->m[13], at->m[14]); // 1 2 0
        for (w = ecs_transform_first_child(&world, c); !ecs_instance_is_nil(w);
             w = ecs_transform_next_sibling(&world, w))
            printf("child of the car: %s\n", ecs_entity_format(text, sizeof text, ecs_transform_entity(&world, w)));
        ecs_entity_destroy(&em, car);  // its transform goes; the wheel stays where it was
        at = ecs_transform_world(&world, ecs_transform_lookup(&world, wheel));
        printf("wheel at %g %g %g\n", at->m[12], at->m[13], at->m[14]); // 1 2 0
        ecs_transform_manager_free(&world);
        ecs_entity_manager_free(&em);
        return 0;
    }

CONVENTION
   ecs_mat4 is 16 floats, row-major: m[row*4 + col]. Points are row vectors,
   p' = p * M, so the translation sits in m[12], m[13], m[14] and transforms
   chain left to right, as in the seed:  world = local * parent_world.
   Example: the car's world is a translation by (0,2,0) and the wheel's local
   a translation by (1,0,0); the wheel's world is T(1,0,0) * T(0,2,0) =
   T(1,2,0). ecs_mat4_compose(t, r, s) = S * R * T: scale, rotate, translate.

API (instance handles are ecs_instance from ecs.h; nil = ECS_INSTANCE_NIL)
   ecs_transform_manager_init(tm, kind, mode)  kind: ECS_LOOKUP_DENSE or
       ECS_LOOKUP_HASH (LOOKUP); mode: ECS_TRANSFORM_IMMEDIATE or _DEFERRED
   ecs_transform_manager_free / _reserve / _count / _memory
   ecs_transform_create(tm, e, local or NULL, parent or nil)  one per entity
   ecs_transform_lookup(tm, e), ecs_transform_entity(tm, i)
   ecs_transform_destroy(tm, i), _destroy_entity(tm, e)
       destroy is a swap-erase that keeps every link intact; the destroyed
       node's children become roots and keep their world matrix.
   ecs_transform_collect / _gc / _gc_all(tm, em), ecs_transform_on_entity_destroy
       the transforms of dead entities (COLLECTION)
   ecs_transform_link(tm, child, parent)   keeps the child's local; refuses
       to link a node under itself or a descendant (ECS_ERROR_CYCLE); under
       its current parent it changes nothing (sibling order kept)
   ecs_transform_unlink(tm, child)         the child becomes a root and keeps
       its world matrix (its local becomes that world)
   ecs_transform_set_local / _set_local_many / _local / _world /
   ecs_transform_compute_world (the current world in either mode)
   ecs_transform_parent / _first_child / _next_sibling / _prev_sibling
       for (c = ecs_transform_first_child(tm, p); !ecs_instance_is_nil(c);
            c = ecs_transform_next_sibling(tm, c)) ...
   ecs_transform_reorder(tm)     depth-first order: parents first, siblings
       together, so that ecs_transform_world_pass(tm) is one linear sweep
   ecs_transform_commit(tm)      deferred mode: compute the dirty worlds
   ecs_transform_world_pass_jobs / _commit_jobs / _set_local_many_jobs
       the same across your job system's workers (THREADING)
   ecs_transform_spawn / _unspawn  ecs_spawn_fn / ecs_unspawn_fn (SPAWN DATA)
   ecs_transform_world_register(w, "transform", tm, &err)  makes tm a store
       of an ecs_world (ecs.h) through ecs_transform_store_interface():
       queries can name it, ecs_world_collect collects it, create and
       spawn refuse entities not alive in w (until ecs_world_remove or
       _free; tm is in one world at a time), and
       ecs_world_destroy_tree(w, "transform", e, &err) destroys e and every
       entity below it with all their instances
   ecs_mat4_identity / _mul / _translation / _rotation / _scale / _compose /
   _inverse_affine / _transform_point, ecs_quat_axis_angle

LOOKUP (entity -> instance: ecs.h's ecs_entity_map, as its managers use it)
   ECS_LOOKUP_DENSE  a slot per entity index (8 bytes: owner id, instance):
       a lookup reads one slot. For worlds that most entities are in. One
       slot per index, so when an entity gets a transform here while a dead
       id of its index still has one (not collected yet), that one is
       destroyed first, as gc would destroy it: its children become roots
       and keep their world, and instances move (swap-erase).
   ECS_LOOKUP_HASH   an open-addressing table of (id, instance) slots, 8 bytes
       each, at most 3/4 full: for worlds that few entities are in.
   ECS_LOOKUP_DIRECT is refused by init (ECS_ERROR_INVALID_ARGUMENT): it
       makes the instance the entity index, and destroy, reorder and commit
       move instances.
   In both kinds a lookup of a nil, stale, forged or unknown id is nil.

COLLECTION (a dead entity's transform is the manager's to drop)
   Until it is dropped, ecs_transform_lookup still finds it: check
   ecs_entity_alive first where that matters. Every way below destroys as
   ecs_transform_destroy does (children become roots keeping their world;
   instances move). Pick one per manager:
   ecs_transform_collect(tm, em)  once a frame (or wherever the dead must be
       gone): exactly the transforms of the entities em destroyed since the
       last call, read from em's destroy log at tm's own cursor. O(deaths),
       nothing per destroy, any number of managers and worlds per entity
       manager. The choice when many die per frame. It sweeps once instead
       when the log cannot answer: the first call, more deaths since the
       last call than the log holds (at least 1024; it grows with em's free
       queue), an index retired (only in a snapshot of ecs.h before 0.10).
   ecs_transform_gc(tm, em)  the seed's lazy gc, ecs.h's ecs_gc_random:
       random instances until 4 alive in a row. Nearly free when nothing
       died; clears a trickle of deaths over a few frames, so a dead
       transform may linger a while.
   ecs_entity_on_destroy(em, ecs_transform_on_entity_destroy, tm)  the
       transform goes inside ecs_entity_destroy, so none is ever seen dead;
       but every destroy pays a callback and a lookup per registered
       manager, also for entities without a transform there, and
       ecs_entity_destroy leaves its inline fast path while any callback is
       registered. For few managers and rare destroys.
   ecs_transform_gc_all(tm, em)  one sweep, O(count): level unloads, tools.

MODES (chosen at init, per manager)
   ECS_TRANSFORM_IMMEDIATE: every call that changes a local matrix or a link
   (create, set_local, set_local_many, link, unlink, destroy, gc, spawn)
   leaves every world matrix current when it returns. set_local updates the
   node's whole subtree at once, iteratively (any depth). n calls of
   set_local on a moving chain of n nodes cost O(n^2); one set_local_many
   updates each affected subtree once, O(n).
   ECS_TRANSFORM_DEFERRED: set_local, link and unlink only record the node as
   changed (O(1), instance indices unchanged); ecs_transform_world and the
   world array may be stale until ecs_transform_commit. Commit moves each
   changed node's subtree into a dirty range at the end of the arrays (one
   swap a node), computes every world in the range in one pass with parents
   before children, and moves nodes that had no change for idle_frames
   commits (default 5) out again. A child found before its parent swaps with
   it, as in the seed; when that would take more than half a swap per node
   in the range, the rest of the range is laid out depth-first in one pass
   instead. So commit costs O(nodes in the range) whatever the order of the
   arrays (a chain spawned children first too, which swaps alone make
   O(depth^2)), allocates nothing and never fails. New nodes (create, spawn)
   start in the range. Right after commit (and after reorder) every world
   matrix is current.
   Exactness: both modes compute a world only as local * (the parent's
   current world), parents first, with the same kernel; unlink and destroy
   make the old world a local in that same way. So deferred mode gives bit
   for bit what immediate mode gives for the same calls: after commit every
   local and world equals the immediate manager's.
   In both modes ecs_transform_compute_world returns the current world of any
   node. That is the stored world in immediate mode, and in deferred mode for
   a clean node while nothing is pending; otherwise it multiplies down from
   the root or the nearest such node in the order above (O(depth)), which
   gives exactly the world the next commit will store.

SPAWN DATA (component "transform", for ecs_resource.h's spawner)
   Register ecs_transform_spawn / ecs_transform_unspawn with user = the
   ecs_transform_manager* and instance size ECS_RESOURCE_TRANSFORM_SIZE.
   instance_data is num_instances records of 64 bytes: the local matrix as 16
   floats (IEEE 754 single, in the producer's byte order, which the spawner
   only accepts when it is the native one), row-major in the CONVENTION above.
   size must equal num_instances * 64. Instance j belongs to
   ctx->entity[entity_index[j]]; it is linked under the transform of its
   resource parent's entity (ctx->parent_index) when that entity has one in
   this manager, and is a root otherwise (a parent without a transform cuts
   the chain); parent indices that form a cycle (a hand-built context: a
   verified blob lists parents first) fail the spawn. World matrices of the whole batch are computed in one pass in
   parent-first order (instances listed children first work too, by a walk
   from each batch root). One transform per entity: an entity listed twice
   (dense lookup: two entities of one index; also a resource parent without
   an instance in the batch whose entity is a batch entity, which would
   link a node under itself or its own batch), or one that already has a
   transform here, fails the spawn. Registered in a world, an entity not
   alive there fails it too, as in create. Dense lookup: transforms still
   held by dead ids of the batch's indices are destroyed first, as in
   create (only once the whole batch has passed every check). Any failure
   (out of memory included) leaves the manager as it was: a problem found
   while storing takes out the instances stored so far, last first (no
   world matrix is read), which restores the links and the map exactly.
   Cost: one allocation for a scratch table, at
   most one growth of the arrays and one of the map, two passes over the
   batch, no per-instance hashing with the dense lookup (the hash lookup
   probes twice per instance); about 10 ns a node.

CONFIGURATION (define before including; the same value in every file)
   ECS_TRANSFORM_SSE   default 1 when the compiler targets SSE (x86-64 always),
                       else 0. 1: matrix products use SSE intrinsics; 0: the
                       portable scalar path (the reference). Both compute each
                       element with the same operations in the same order, so
                       they give the same bits, except the sign and payload of
                       a NaN (which the two instruction sets may propagate
                       differently).
   ECS_REALLOC, ECS_FREE, ECS_ASSERT as in ecs.h (implementation file only).
   ECS_TRANSFORM_TEST_COUNTERS  tests only: the implementation counts world
                       computations (subtree updates, commit), swaps, node
                       moves (a swap is 3) and full sweeps (gc_all, collect's
                       fallback) in static counters.

ERRORS
   Calls that can fail return an ecs_result (or a nil instance) and leave a
   message in tm->error; spawn writes ctx->error. An out-of-range instance or
   NULL argument is ECS_ERROR_INVALID_ARGUMENT; a link that would make a cycle
   ECS_ERROR_CYCLE; a second transform for one entity
   ECS_ERROR_ALREADY_EXISTS; a failed allocation ECS_ERROR_OUT_OF_MEMORY. In
   every case nothing changed. Getters return NULL / nil / the nil entity for
   a bad instance. Every call that allocates makes its room (arrays, map,
   scratch) before it changes anything, or (spawn) undoes exactly what it
   stored when a later step fails, so a failing allocator never corrupts a
   manager (tests/test_transform_oom.c fails every allocation in turn, once
   and from then on, with both lookup kinds and both modes).

MEMORY AND POINTER STABILITY
   One allocation holds the arrays (149 bytes per instance: local, world,
   entity, parent, first_child, next_sibling, prev_sibling, age; each array
   64-byte aligned), with one spare slot that swaps go through; it doubles
   when full, and ecs_transform_reserve and ecs_transform_reorder size it
   to fit. Plus the map (dense: 8 bytes per entity index up to the highest
   one seen, in a power-of-two table; hash: 8 bytes a slot, at most 3/4
   full), 4 bytes per pending change (deferred), and 4 bytes per instance
   once set_local_many was used (immediate mode). For 1,000,000 nodes with
   the dense lookup: about 157 bytes a node after reorder, up to 165 while
   the arrays have room to grow into.
   Pointers from ecs_transform_local/_world and the tm->local, tm->world, ...
   arrays change when the manager grows (create, spawn, reserve) and on
   reorder. Instance indices change on destroy, collect, gc, gc_all,
   reorder, (deferred mode) commit, and (dense lookup) a create or spawn
   that drops a dead id's transform (LOOKUP): keep entities, and look them
   up again after those calls.

THREADING
   No locks. Distinct managers may be used from distinct threads. Getters and
   ecs_transform_compute_world only read, and may run concurrently with each
   other; anything else on one manager needs your own synchronisation.
   Every core (ecs.h's job interface; no threads of ours):
   ecs_transform_world_pass_jobs(tm, jobs) cuts the nodes into ranges of
   about 16,384 that start at a root where one is near (after reorder every
   root's subtree is contiguous, so a range is whole subtrees); inside a
   huge tree (Bevy's wide and deep shapes) a range starts where it must, and
   its task first recomputes on its stack the worlds of the few ancestors
   its nodes hang from (up to 64; a deeper chain is finished by the calling
   thread). No task reads a world another task writes; no barrier.
   Other parents-first orders (creation order, commit's dirty range) work
   the same way, a task recomputing more such chains (at most a quarter of
   its range in extra products).
   ecs_transform_commit_jobs does commit's ordering on the calling thread and
   the dirty range's worlds across workers; set_local_many_jobs updates the
   changed subtrees across workers. Results are the serial calls', bit for
   bit (same kernel, same operands), for any number of workers.

DOES NOT
   store scale/rotation/translation separately (compose them into the local
   matrix, decompose yourself), keep a model's bone hierarchy (the seed keeps
   that apart), interpolate, cull, or make a transform for an entity twice in
   one manager (use a second manager for a second world).

REFERENCE (every public function; the declarations below have the details)
   Matrices (row-major, row vectors: CONVENTION):
     ecs_mat4 ecs_mat4_identity(void)                    the identity
     void ecs_mat4_mul(ecs_mat4 *out, const ecs_mat4 *a, const ecs_mat4 *b)
                                                         *out = a * b (a, then b); out may alias
     void ecs_mat4_mul_scalar(ecs_mat4 *out, const ecs_mat4 *a, const ecs_mat4 *b)
                                                         the same, portable scalar code
     void ecs_mat4_mul_sse(ecs_mat4 *out, const ecs_mat4 *a, const ecs_mat4 *b)
                                                         the same with SSE (ECS_TRANSFORM_SSE only)
     ecs_mat4 ecs_mat4_translation(ecs_vec3 t)           a translation by t
     ecs_mat4 ecs_mat4_scale(ecs_vec3 s)                 a scale along x, y, z
     ecs_mat4 ecs_mat4_rotation(ecs_quat q)              the rotation of a quaternion
     ecs_mat4 ecs_mat4_compose(ecs_vec3 t, ecs_quat r, ecs_vec3 s)
                                                         S * R * T: scale, rotate, translate
     int ecs_mat4_inverse_affine(ecs_mat4 *out, const ecs_mat4 *m)
                                                         inverse of an affine matrix; 0 if singular
     ecs_vec3 ecs_mat4_transform_point(const ecs_mat4 *m, ecs_vec3 p)
                                                         p * m (w = 1)
     ecs_quat ecs_quat_axis_angle(ecs_vec3 axis, float radians)
                                                         the rotation about an axis (right-handed)
   A rotation about an axis as a matrix is
   ecs_mat4_rotation(ecs_quat_axis_angle(axis, radians)). Plugins (which
   link against nothing) reach these through ecs_plugin.h's
   ECS_API_TRANSFORMS v1, whose mat4_compose is ecs_mat4_compose, mat4_mul
   ecs_mat4_mul, quat_axis_angle ecs_quat_axis_angle, and so on.
   The manager:
     ecs_result ecs_transform_manager_init(ecs_transform_manager *tm, ecs_lookup_kind lookup,
                                           ecs_transform_mode mode)
                                                         an empty manager (LOOKUP, MODES)
     void ecs_transform_manager_free(ecs_transform_manager *tm)
                                                         frees all memory
     ecs_result ecs_transform_reserve(ecs_transform_manager *tm, uint32_t n)
                                                         room for n instances
     uint32_t ecs_transform_count(const ecs_transform_manager *tm)
                                                         number of instances
     size_t ecs_transform_memory(const ecs_transform_manager *tm)
                                                         heap bytes owned
   Instances:
     ecs_instance ecs_transform_create(ecs_transform_manager *tm, ecs_entity e, const ecs_mat4 *local,
                                       ecs_instance parent)
                                                         e's transform (local NULL: identity)
     ecs_instance ecs_transform_lookup(const ecs_transform_manager *tm, ecs_entity e)
                                                         e's transform, or nil
     ecs_entity ecs_transform_entity(const ecs_transform_manager *tm, ecs_instance i)
                                                         the entity owning i
     int ecs_transform_destroy(ecs_transform_manager *tm, ecs_instance i)
                                                         swap-erase; children become roots
     int ecs_transform_destroy_entity(ecs_transform_manager *tm, ecs_entity e)
                                                         destroys e's transform, if any
   Collection (COLLECTION):
     uint32_t ecs_transform_collect(ecs_transform_manager *tm, const ecs_entity_manager *em)
                                                         exact, from em's destroy log
     uint32_t ecs_transform_gc(ecs_transform_manager *tm, const ecs_entity_manager *em)
                                                         lazy, random samples
     uint32_t ecs_transform_gc_all(ecs_transform_manager *tm, const ecs_entity_manager *em)
                                                         a full sweep
     void ecs_transform_on_entity_destroy(void *user, ecs_entity e)
                                                         an ecs_entity_destroy_fn (user = tm)
   The scene graph:
     ecs_result ecs_transform_link(ecs_transform_manager *tm, ecs_instance child, ecs_instance parent)
                                                         child under parent, keeping its local
     ecs_result ecs_transform_unlink(ecs_transform_manager *tm, ecs_instance child)
                                                         child a root, keeping its world
     ecs_instance ecs_transform_parent(const ecs_transform_manager *tm, ecs_instance i)
     ecs_instance ecs_transform_first_child(const ecs_transform_manager *tm, ecs_instance i)
     ecs_instance ecs_transform_next_sibling(const ecs_transform_manager *tm, ecs_instance i)
     ecs_instance ecs_transform_prev_sibling(const ecs_transform_manager *tm, ecs_instance i)
                                                         the links, nil at the ends
   Matrices of instances (MODES):
     ecs_result ecs_transform_set_local(ecs_transform_manager *tm, ecs_instance i, const ecs_mat4 *m)
                                                         sets i's local
     ecs_result ecs_transform_set_local_many(ecs_transform_manager *tm, uint32_t n,
                                             const ecs_instance *nodes, const ecs_mat4 *locals)
                                                         sets n locals, each subtree updated once
     const ecs_mat4 *ecs_transform_local(const ecs_transform_manager *tm, ecs_instance i)
                                                         i's local matrix
     const ecs_mat4 *ecs_transform_world(const ecs_transform_manager *tm, ecs_instance i)
                                                         i's stored world matrix
     ecs_result ecs_transform_compute_world(const ecs_transform_manager *tm, ecs_instance i, ecs_mat4 *out)
                                                         i's current world, in either mode
     ecs_result ecs_transform_reorder(ecs_transform_manager *tm)
                                                         depth-first order, parents first
     int ecs_transform_world_pass(ecs_transform_manager *tm)
                                                         every world from the locals, one sweep
     void ecs_transform_commit(ecs_transform_manager *tm)
                                                         deferred mode: the dirty worlds
   Spawning (SPAWN DATA):
     ecs_result ecs_transform_spawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                                    const uint32_t *entity_index, const void *data, uint32_t size)
                                                         ecs_spawn_fn of "transform" (user = tm)
     void ecs_transform_unspawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                                const uint32_t *entity_index, const void *data, uint32_t size)
                                                         its ecs_unspawn_fn
   The world (ecs.h's WORLD):
     const ecs_store_interface *ecs_transform_store_interface(void)
                                                         the manager as an ecs_world store
     ecs_result ecs_transform_world_register(ecs_world *w, const char *name, ecs_transform_manager *tm,
                                             ecs_error *err)
                                                         registers tm in w (queries, destroy_tree)
   Snapshots (ecs_snapshot.h, through the store interface):
     size_t ecs_transform_snapshot_save(const void *tm, void *out, size_t cap)
                                                         the whole state as 32-bit words
     size_t ecs_transform_snapshot_save_selected(const void *tm, const uint32_t *keep, uint32_t num_indices,
                                                 void *out, size_t cap)
                                                         the selected entities' nodes only (a subtree)
     ecs_result ecs_transform_snapshot_load(void *tm, const void *data, size_t size, ecs_error *err)
                                                         checked, bit-exact, into an empty manager
     ecs_result ecs_transform_snapshot_verify(const void *data, size_t size, uint32_t max_index, size_t offset,
                                              ecs_error *err)
                                                         the same checks without a manager (the store's verify)
     void ecs_transform_snapshot_clear(void *tm)         empties tm, keeps its settings
     ecs_result ecs_transform_snapshot_copy(void *dst, const void *src, ecs_error *err)
                                                         src's whole state into dst (clone: memcpy)

REVISION HISTORY
   0.11 the store's visit_state gives save's bytes exactly (the ages as
        32-bit words, as save writes them: it gave them as bytes)
   0.10 a selection's save (save_selected) in deferred mode gives a node
        whose parent is left out its current world as its local (it wrote
        the stored world, stale while a change at or above it waited for
        commit, and a root's own new local was lost), and saves it as
        changed when a change above it waits, so the loaded commit puts the
        subtree where the source's commit puts it
   0.9  a standalone dense manager refuses create and spawn for an id older
        than the one holding its index's slot (it destroyed the live
        entity's transform); spawn refuses parent indices that form a
        cycle (a hand-built context's cycle asserted, or looped forever in a
        release build); collect skips a logged id that is live again (a
        generation wrap between two collects); a save or clone carries the
        collect cursor only when it reads the log of tm's own world (one
        from an entity manager tm was collected with before it was
        registered was adopted by the loaded copy, which then left a dead
        entity's transform in place)
   0.8  fixes: a spawn's undo takes its nodes out itself (it destroyed them,
        whose deferred world walk read batch slots not stored yet: SEGV or
        an endless loop); spawn in a world refuses entities not alive there,
        as create does; a manager registered in another world is refused
        (ECS_ERROR_ALREADY_EXISTS); spawn refuses a parent entity that is
        also a batch entity (it linked a node under itself)
   0.7  fixes: snapshot verify (and so load) refuses deferred bytes whose
        clean range breaks what commit relies on (a clean node with age 0,
        or under a dirty parent, that is not pending: commit asserted or
        wrote past the arrays); create in a world refuses the id a queued
        index carries next (ecs_entity_live)
   0.6  registered in a world, ecs_transform_create refuses entities not
        alive there (the store interface's attach hook; tm->entities);
        ecs_transform_snapshot_verify (the store interface's verify hook:
        its offsets the blob's, ids of indices handed out, pending ids), the
        interface's visit_state (the world hash reads the arrays in place);
        the interface's load leaves the link checks to verify; idle_frames
        is state a snapshot carries (ecs_snapshot.h's DOES NOT says so too)
   0.5  ecs_transform_world_register returns an ecs_result (ecs.h's
        registrations: one convention; the index by ecs_world_find);
        entities in messages as ecs_entity_format writes them (the quick
        start prints one so)
   0.4  ecs_transform_snapshot_save_selected (a subtree's or any selection's
        nodes, for snapshots of a subtree); a snapshot load reuses the
        manager's arrays, map and pending list
   0.3  REFERENCE (every function's signature); the plugin API's matrix math
        (ECS_API_TRANSFORMS v1) takes these functions' names
   0.2  entity -> instance through ecs.h's entity map (dense and hash; the
        direct kind refused) and lazy gc through ecs.h's ecs_gc_random;
        ecs_transform_collect (exact, from the destroy log, O(deaths)) and
        _gc_all; deferred commit costs O(dirty range) for any order of the
        arrays and multiplies parents first, as immediate mode does; spawn
        in two passes that check everything before the first change and
        undo exactly on failure; reorder writes the links during its walk
        and sizes the arrays to fit; ECS_DEF on every public function; with
        ecs_plugin.h, ECS_API_TRANSFORMS in either include order
   0.1  the transform manager (links, swap-erase destroy, immediate and
        deferred modes, set_local_many, reorder, world pass, spawn), mat4
        math with SSE and scalar paths
*/
#ifndef ECS_TRANSFORM_H_INCLUDED
#define ECS_TRANSFORM_H_INCLUDED

#include "ecs.h"

#ifndef ECS_TRANSFORM_SSE
#if defined(__SSE__) || defined(_M_X64) || defined(_M_AMD64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 1)
#define ECS_TRANSFORM_SSE 1
#else
#define ECS_TRANSFORM_SSE 0
#endif
#endif

/** Bytes per instance in a "transform" resource block: the local matrix.
    The same name and value as in ecs_resource.h (an identical definition,
    so either header may come first). */
#define ECS_RESOURCE_TRANSFORM_SIZE 64u
/** Deprecated: the old name of ECS_RESOURCE_TRANSFORM_SIZE (goes in 1.0). */
#define ECS_TRANSFORM_SPAWN_INSTANCE_SIZE ECS_RESOURCE_TRANSFORM_SIZE
/** Commits without change before a node leaves the dirty range (deferred mode). */
#define ECS_TRANSFORM_DEFAULT_IDLE_FRAMES 5u

#ifdef __cplusplus
extern "C" {
#endif

/* ecs_mat4, ecs_vec3 and ecs_quat come from ecs.h (the schema kinds share them). */

/** When world matrices are computed; see MODES. */
typedef enum ecs_transform_mode {
    ECS_TRANSFORM_IMMEDIATE = 0, /* every change updates the worlds before it returns */
    ECS_TRANSFORM_DEFERRED = 1   /* changes are recorded; ecs_transform_commit computes */
} ecs_transform_mode;

/** A world's transforms. Zero-initialised is a valid empty manager (immediate
    mode, hash lookup). The arrays are public for tight loops: for
    i < count, local[i], world[i], entity[i], and the links parent[i],
    first_child[i], next_sibling[i], prev_sibling[i] (ECS_INSTANCE_NIL for
    none). Change matrices and links only through the functions. */
typedef struct ecs_transform_manager {
    uint32_t count;          /* instances in use */
    uint32_t capacity;       /* instances allocated (> count: a spare slot) */
    ecs_mat4 *local;         /* local matrix, relative to the parent */
    ecs_mat4 *world;         /* world = local * parent world (see MODES) */
    ecs_entity *entity;      /* owning entity */
    uint32_t *parent;        /* parent instance or nil */
    uint32_t *first_child;   /* first child instance or nil */
    uint32_t *next_sibling;  /* next child of the same parent or nil */
    uint32_t *prev_sibling;  /* previous child of the same parent or nil */
    uint8_t *age;            /* deferred: commits since the last change (0 = changed) */
    void *buffer;            /* the one allocation behind the arrays above */
    ecs_transform_mode mode;
    uint32_t first_dirty;    /* deferred: [first_dirty, count) is the dirty range; immediate: count */
    uint32_t idle_frames;    /* deferred: commits without change before leaving the range (0 = 5) */
    uint32_t *pending;       /* deferred: entity ids of nodes changed since the last commit */
    uint32_t num_pending, pending_capacity;
    ecs_entity_map map;      /* entity -> instance: ecs.h's map, map.kind is the
                                lookup kind; a slot's `first` is the instance */
    uint32_t *mark;          /* set_local_many's scratch (immediate mode) */
    uint32_t mark_capacity, mark_stamp;
    uint32_t rng;            /* gc's random state */
    ecs_entity_log_cursor log; /* ecs_transform_collect's place in the destroy log */
    ecs_error error;         /* the last failure */
    const ecs_entity_manager *entities; /* its world's, while registered in one (else NULL):
                                           create refuses entities not alive there */
} ecs_transform_manager;

/* ---- matrices ------------------------------------------------------------ */

/** The identity matrix. */
ECS_DEF ecs_mat4 ecs_mat4_identity(void);
/** *out = a * b (apply a, then b). out may alias a or b. Uses the SSE path
    when ECS_TRANSFORM_SSE is 1, else the scalar one. */
ECS_DEF void ecs_mat4_mul(ecs_mat4 *out, const ecs_mat4 *a, const ecs_mat4 *b);
/** *out = a * b with the portable scalar code (the reference). out may alias. */
ECS_DEF void ecs_mat4_mul_scalar(ecs_mat4 *out, const ecs_mat4 *a, const ecs_mat4 *b);
#if ECS_TRANSFORM_SSE
/** *out = a * b with SSE; same operations in the same order as the scalar
    path. out may alias a or b. Only when ECS_TRANSFORM_SSE is 1. */
ECS_DEF void ecs_mat4_mul_sse(ecs_mat4 *out, const ecs_mat4 *a, const ecs_mat4 *b);
#endif
/** A translation by t. */
ECS_DEF ecs_mat4 ecs_mat4_translation(ecs_vec3 t);
/** A scale by s along x, y, z. */
ECS_DEF ecs_mat4 ecs_mat4_scale(ecs_vec3 s);
/** The rotation of quaternion q (normalised here; a zero q gives identity). */
ECS_DEF ecs_mat4 ecs_mat4_rotation(ecs_quat q);
/** S * R * T: scale by s, then rotate by r, then translate by t. */
ECS_DEF ecs_mat4 ecs_mat4_compose(ecs_vec3 t, ecs_quat r, ecs_vec3 s);
/** Inverse of an affine matrix (last column 0,0,0,1, which is assumed).
    Returns 1, or 0 when the 3x3 part is singular (then *out = identity).
    out may alias m. */
ECS_DEF int ecs_mat4_inverse_affine(ecs_mat4 *out, const ecs_mat4 *m);
/** p * m for the point p (w = 1). */
ECS_DEF ecs_vec3 ecs_mat4_transform_point(const ecs_mat4 *m, ecs_vec3 p);
/** The rotation by `radians` about `axis` (normalised here; right-handed:
    90 degrees about +z takes +x to +y). */
ECS_DEF ecs_quat ecs_quat_axis_angle(ecs_vec3 axis, float radians);

/* ---- the manager ----------------------------------------------------------- */

/** Initialises tm as an empty manager with the given lookup kind
    (ECS_LOOKUP_DENSE or ECS_LOOKUP_HASH) and mode. Returns ECS_OK, or
    ECS_ERROR_INVALID_ARGUMENT for ECS_LOOKUP_DIRECT (instances move, so the
    instance cannot be the entity index), an unknown kind or an unknown mode
    (tm is then a valid empty immediate/hash manager). Allocates nothing. */
ECS_DEF ecs_result ecs_transform_manager_init(ecs_transform_manager *tm, ecs_lookup_kind lookup,
                                              ecs_transform_mode mode);
/** Frees all memory; tm is then a valid empty manager of the same lookup kind,
    mode and idle_frames. */
ECS_DEF void ecs_transform_manager_free(ecs_transform_manager *tm);
/** Makes room for n instances in total (arrays and lookup), so that creating
    up to n does not allocate (dense lookup: for entity indices seen so far).
    Returns ECS_OK or ECS_ERROR_OUT_OF_MEMORY (nothing changed). */
ECS_DEF ecs_result ecs_transform_reserve(ecs_transform_manager *tm, uint32_t n);
/** Number of instances. */
ECS_DEF uint32_t ecs_transform_count(const ecs_transform_manager *tm);
/** Heap bytes owned by tm (arrays, lookup, scratch). */
ECS_DEF size_t ecs_transform_memory(const ecs_transform_manager *tm);

/** Creates e's transform with the given local matrix (NULL: identity) under
    `parent` (nil: a root); its world is computed at once (deferred mode:
    from the parent's stored world, and again at the next commit). Returns
    the instance, or nil with tm->error set: ECS_ERROR_INVALID_ARGUMENT (nil
    entity, parent out of range), ECS_ERROR_ALREADY_EXISTS (e has one here),
    ECS_ERROR_OUT_OF_MEMORY; nothing changed then. Field pointers may change
    (growth). Dense lookup: a transform still held by a dead id of e's index
    is destroyed first (see LOOKUP; instances move, `parent` is followed),
    and when that transform is `parent` itself the call is refused
    (ECS_ERROR_INVALID_ARGUMENT). Registered in a world
    (ecs_transform_world_register), tm refuses an e that is not alive in
    that world (ECS_ERROR_INVALID_ARGUMENT, naming e); a standalone manager
    takes any id and leaves dead ones to gc and collect, except (dense) an
    id older than the one holding its index's slot (ecs.h's LOOKUP KINDS):
    that one is dead, refused (ECS_ERROR_INVALID_ARGUMENT), and the live
    entity keeps its transform; spawn refuses it the same way. */
ECS_DEF ecs_instance ecs_transform_create(ecs_transform_manager *tm, ecs_entity e, const ecs_mat4 *local,
                                          ecs_instance parent);
/** e's transform in this manager, or nil (also for nil and unknown or stale
    entities). O(1). */
ECS_DEF ecs_instance ecs_transform_lookup(const ecs_transform_manager *tm, ecs_entity e);
/** The entity owning instance i, or the nil entity when i is out of range. */
ECS_DEF ecs_entity ecs_transform_entity(const ecs_transform_manager *tm, ecs_instance i);

/** Destroys instance i by swap-erase: another instance moves into i (links
    and lookup follow it). i's children become roots and keep their world
    matrix (their local becomes it). Returns 1, or 0 for a nil or
    out-of-range i. Instance indices change: look up again afterwards. */
ECS_DEF int ecs_transform_destroy(ecs_transform_manager *tm, ecs_instance i);
/** Destroys e's transform if it has one here; returns 1 or 0. */
ECS_DEF int ecs_transform_destroy_entity(ecs_transform_manager *tm, ecs_entity e);
/** An ecs_entity_destroy_fn (user = the ecs_transform_manager*): register it
    with ecs_entity_on_destroy to destroy transforms together with their
    entities instead of collecting them (see COLLECTION for the costs). */
ECS_DEF void ecs_transform_on_entity_destroy(void *user, ecs_entity e);
/** The seed's lazy collection (ecs.h's ecs_gc_random): looks at random
    instances, destroys those whose entity is dead in em, stops after 4
    alive in a row. Cheap when nothing is dead; call it once a frame when
    deaths come as a trickle. Returns how many it destroyed. See COLLECTION. */
ECS_DEF uint32_t ecs_transform_gc(ecs_transform_manager *tm, const ecs_entity_manager *em);
/** Exact collection: destroys the transforms of every entity destroyed in em
    since tm's last collect, reading em's destroy log from tm's own cursor
    (tm->log), so any number of managers can collect from one entity manager.
    Children of a destroyed node become roots and keep their world, as in
    ecs_transform_destroy. Costs O(deaths since the last call) whatever the
    number of transforms; when the log cannot say (first call, more deaths
    than the log holds, an index retired in an old snapshot, another entity
    manager than last time) it sweeps instead (ecs_transform_gc_all). After
    it no transform of a dead entity remains, except those created for
    entities that were already dead then (gc finds those). Never fails,
    allocates nothing. Returns how many it destroyed. See COLLECTION. */
ECS_DEF uint32_t ecs_transform_collect(ecs_transform_manager *tm, const ecs_entity_manager *em);
/** A full sweep: destroys every transform whose entity is dead in em, in one
    pass from the end; O(count). For level unloads and tools. Returns how
    many it destroyed. */
ECS_DEF uint32_t ecs_transform_gc_all(ecs_transform_manager *tm, const ecs_entity_manager *em);

/** Makes child a child of parent (unlinking it from its old parent first),
    keeping its local matrix: its subtree's worlds follow the new parent
    (immediate mode: at once; deferred: at commit). Refuses with
    ECS_ERROR_CYCLE when parent is child or one of its descendants; with
    ECS_ERROR_INVALID_ARGUMENT for out-of-range instances (use unlink for
    "no parent"); deferred mode may fail with ECS_ERROR_OUT_OF_MEMORY. In every
    failure nothing changed. O(depth of parent) for the cycle check. Linking
    a child under the parent it already has is a no-op that returns ECS_OK
    and keeps its place among its siblings. */
ECS_DEF ecs_result ecs_transform_link(ecs_transform_manager *tm, ecs_instance child, ecs_instance parent);
/** Makes child a root that keeps its world matrix (its local becomes its
    current world). A root is left as it is. ECS_OK or
    ECS_ERROR_INVALID_ARGUMENT. */
ECS_DEF ecs_result ecs_transform_unlink(ecs_transform_manager *tm, ecs_instance child);
/** The parent of i, or nil (also for a bad i). */
ECS_DEF ecs_instance ecs_transform_parent(const ecs_transform_manager *tm, ecs_instance i);
/** The first child of i, or nil. Children come newest-linked first. */
ECS_DEF ecs_instance ecs_transform_first_child(const ecs_transform_manager *tm, ecs_instance i);
/** The next child of i's parent after i, or nil. */
ECS_DEF ecs_instance ecs_transform_next_sibling(const ecs_transform_manager *tm, ecs_instance i);
/** The previous child of i's parent before i, or nil. */
ECS_DEF ecs_instance ecs_transform_prev_sibling(const ecs_transform_manager *tm, ecs_instance i);

/** Sets i's local matrix. Immediate mode: updates i's world and its whole
    subtree before returning (iteratively; any depth). Deferred mode: records
    i as changed (O(1)); worlds follow at commit, and may fail with
    ECS_ERROR_OUT_OF_MEMORY (nothing changed). ECS_ERROR_INVALID_ARGUMENT for
    a bad i or NULL m. */
ECS_DEF ecs_result ecs_transform_set_local(ecs_transform_manager *tm, ecs_instance i, const ecs_mat4 *m);
/** Sets local[nodes[k]] = locals[k] for k < n (a repeated node: the last one
    wins), then updates each affected subtree once: O(n + nodes updated),
    where n set_local calls on a moving chain cost O(n^2). Checks every
    instance first: ECS_ERROR_INVALID_ARGUMENT or ECS_ERROR_OUT_OF_MEMORY
    (scratch of 4 bytes per instance, kept) leave everything unchanged. */
ECS_DEF ecs_result ecs_transform_set_local_many(ecs_transform_manager *tm, uint32_t n, const ecs_instance *nodes,
                                                const ecs_mat4 *locals);
/** Pointer to i's local matrix, or NULL for a bad i. Valid until the manager
    grows or reorders; read-only (use set_local). */
ECS_DEF const ecs_mat4 *ecs_transform_local(const ecs_transform_manager *tm, ecs_instance i);
/** Pointer to i's stored world matrix, or NULL for a bad i. Current in
    immediate mode; in deferred mode as of the last commit (see MODES). */
ECS_DEF const ecs_mat4 *ecs_transform_world(const ecs_transform_manager *tm, ecs_instance i);
/** Writes i's current world matrix to *out in either mode: bit for bit the
    world that immediate mode holds, and that the next commit stores (see
    MODES). Deferred mode, when changes are pending or i is dirty: O(depth),
    multiplying down the chain; no allocation, fixed stack use. ECS_OK or
    ECS_ERROR_INVALID_ARGUMENT (out untouched). Read-only. */
ECS_DEF ecs_result ecs_transform_compute_world(const ecs_transform_manager *tm, ecs_instance i, ecs_mat4 *out);

/** Puts the instances in depth-first order: each root (in current index
    order) followed by its subtree, parents before children, siblings
    together; fixes every link and the lookup. Afterwards
    ecs_transform_world_pass is one linear sweep. Deferred mode: also computes
    every world and empties the dirty range. O(count): one walk of the trees
    that also writes the new links, one copy of the data in the new order
    into a fresh allocation sized to fit (count + 1: no slack is kept; the
    next create grows it again by doubling), one pass over the map, and 8
    bytes of scratch per instance. ECS_ERROR_OUT_OF_MEMORY leaves all
    unchanged. Instance indices and array pointers change. */
ECS_DEF ecs_result ecs_transform_reorder(ecs_transform_manager *tm);
/** Recomputes every world matrix from the local matrices. One linear sweep
    while parents come before children (as after reorder or a spawn into an
    empty manager); otherwise it notices and walks the trees from the roots
    (still O(count)). Returns 1 for the linear sweep, 0 for the walk. */
ECS_DEF int ecs_transform_world_pass(ecs_transform_manager *tm);
/** Deferred mode: moves the nodes changed since the last commit, with their
    subtrees, into the dirty range; computes every world in the range, parents
    first (fixing the order on the way); moves nodes unchanged for
    idle_frames commits out. Afterwards every world matrix is current and
    equals immediate mode's bit for bit. O(nodes in the range) for any order
    of the arrays (see MODES). Immediate mode: nothing. Never fails, allocates
    nothing; instance indices change. */
ECS_DEF void ecs_transform_commit(ecs_transform_manager *tm);

/* ---- threads: every core, through ecs.h's job interface (see THREADING) ---- */

/** ecs_transform_world_pass across jobs' workers (NULL or one worker: on the
    calling thread): the nodes are cut into ranges of whole subtrees that
    depend on the node count only; a huge tree is cut inside (a task
    recomputes the few ancestors it starts under on its stack). Every world
    is bit for bit the serial call's, for any number of workers. Returns as
    ecs_transform_world_pass (1: parents came first; 0: it walked the trees
    on the calling thread). Allocates nothing; a job system that could not
    run some tasks only costs time (ecs_jobs_run runs them). Only this call
    may use tm meanwhile. */
ECS_DEF int ecs_transform_world_pass_jobs(ecs_transform_manager *tm, const ecs_jobs *jobs);
/** ecs_transform_commit with the worlds of the dirty range computed across
    jobs' workers: the same layout, ages and worlds, bit for bit, as
    ecs_transform_commit (the ordering runs on the calling thread first).
    Immediate mode: nothing. Never fails, allocates nothing. */
ECS_DEF void ecs_transform_commit_jobs(ecs_transform_manager *tm, const ecs_jobs *jobs);
/** ecs_transform_set_local_many with the affected subtrees updated across
    jobs' workers (immediate mode; deferred mode only records, as the serial
    call). The same checks, failures and results, bit for bit. Subtrees are
    whole tasks: one huge moving subtree runs on one worker. Uses up to 8 KB
    of stack. */
ECS_DEF ecs_result ecs_transform_set_local_many_jobs(ecs_transform_manager *tm, uint32_t n, const ecs_instance *nodes,
                                                     const ecs_mat4 *locals, const ecs_jobs *jobs);

/** ecs_spawn_fn for the "transform" component (user = the
    ecs_transform_manager*); see SPAWN DATA. Returns ECS_OK, or an error in
    ctx->error with nothing changed: ECS_ERROR_SPAWN_FAILED (size is not
    num_instances * 64), ECS_ERROR_INVALID_ARGUMENT (index out of range, nil
    entity; registered in a world, an entity not alive there, named),
    ECS_ERROR_ALREADY_EXISTS (also: dense lookup, two batch entities of one
    index; a parent's entity that is a batch entity too),
    ECS_ERROR_OUT_OF_MEMORY. */
ECS_DEF ecs_result ecs_transform_spawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                                       const uint32_t *entity_index, const void *data, uint32_t size);
/** ecs_unspawn_fn: destroys the transforms of the listed entities (last
    first, so undoing the latest spawn moves nothing). */
ECS_DEF void ecs_transform_unspawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                                   const uint32_t *entity_index, const void *data, uint32_t size);

/* ---- the world: the transform manager as an ecs_world store --------------- */

/** The ecs_store_interface of an ecs_transform_manager (store = the
    ecs_transform_manager*): lookup, next (always nil: one transform per
    entity), count, entity_at, destroy_entity, collect (ecs_transform_collect),
    subtree (e's node and its descendants, depth-first, parents first,
    siblings in the order they were linked),
    spawn/unspawn (ecs_transform_spawn/_unspawn), the snapshot calls,
    parent_of and spawn_record (the 64-byte "transform" record: the local
    matrix, or as a root the world matrix, as of the last commit in deferred
    mode; ecs_resource_save_subtree). Static; never NULL. */
ECS_DEF const ecs_store_interface *ecs_transform_store_interface(void);
/** Registers tm in w under name (usually "transform") through
    ecs_transform_store_interface: queries can then name it, and
    ecs_world_destroy_tree(w, name, e) destroys e's subtree. tm stays yours
    (free it after ecs_world_free or ecs_world_remove). ECS_OK (the
    component's index: ecs_world_find), or an error (err set, nothing
    changed: name empty or taken, tm registered already, in w or in another
    world: ECS_ERROR_ALREADY_EXISTS, out of memory). One world at a time:
    ecs_world_remove or ecs_world_free lets tm register elsewhere. */
ECS_DEF ecs_result ecs_transform_world_register(ecs_world *w, const char *name, ecs_transform_manager *tm,
                                                ecs_error *err);

/* ---- snapshots: the transform manager's whole state as bytes -------------
   What ecs_snapshot.h's ecs_snapshot_save/_load/_clone/_verify_for use
   through the store interface (save, load, clear, save_version, verify,
   visit_state): every array in instance order (entity, links, age, local
   and world matrices), the deferred state (dirty range, pending ids, idle
   frames: idle_frames travels as state, not as a setting of the target),
   the gc and collect state; all 32-bit words in this machine's byte order.
   A load restores it bit-exactly: the same instances in the same order,
   the same results from every later call. The mode and lookup kind are
   settings: a load into a manager with others is refused. */

/** Version of ecs_transform_snapshot_save's bytes. */
#define ECS_TRANSFORM_SNAPSHOT_VERSION 1u
/** Writes tm's (an ecs_transform_manager*) state: with out NULL returns the
    size, else writes it when cap >= size and returns it (0 when cap is
    smaller). Only reads tm. */
ECS_DEF size_t ecs_transform_snapshot_save(const void *tm, void *out, size_t cap);
/** The same for the selected entities' nodes only (the store interface's
    save_selected, for ecs_snapshot_desc's root): keep[index] is the id of
    the selected entity with that index, or 0 (num_indices entries). Kept
    nodes keep their order and matrices, links skip the nodes left out, and
    a node whose parent is left out becomes a root whose local matrix is its
    current world matrix (ecs_transform_compute_world's: it stands where it
    stands, in both modes). The dirty range and pending ids are those of the
    kept nodes; in deferred mode such a root whose world waits for a change
    above it (a commit) is saved as changed too (age 0, its id pending last),
    so the loaded manager's commit recomputes its subtree.
    Returns the size (out NULL), or writes it when cap >= size; 0 when cap
    is smaller or scratch memory (4 bytes per node) runs out. Only reads tm. */
ECS_DEF size_t ecs_transform_snapshot_save_selected(const void *tm, const uint32_t *keep, uint32_t num_indices,
                                                    void *out, size_t cap);
/** Restores save's bytes into tm, which must be empty (count 0) and have
    the saved lookup kind and mode. Checks everything (ids, one transform per
    entity, links consistent and acyclic, sizes): ECS_OK, or
    ECS_ERROR_CORRUPT_RESOURCE naming the offset and field,
    ECS_ERROR_INVALID_ARGUMENT (not empty, other lookup or mode),
    ECS_ERROR_OUT_OF_MEMORY; nothing changed on failure. tm's arrays, map
    and pending list take the state where they are big enough (loading a
    rollback every frame allocates nothing). The collect cursor is taken
    over by the first entity manager ecs_transform_collect reads. */
ECS_DEF ecs_result ecs_transform_snapshot_load(void *tm, const void *data, size_t size, ecs_error *err);
/** Checks save's bytes completely, as ecs_transform_snapshot_load does but
    without a manager: the header (sizes, mode, lookup kind, dirty range),
    every id an entity id whose index is at most max_index (a snapshot's
    entity manager's highest index handed out; ECS_INDEX_MASK: any), one
    transform per entity (dense: per index), the links consistent and
    acyclic, ages, the pending ids, and in deferred mode what commit relies
    on (a clean node with age 0, or under a dirty parent, is pending: such
    bytes made the next commit assert, or write past the arrays without
    asserts). ECS_OK, or ECS_ERROR_CORRUPT_RESOURCE
    naming offset + the byte's place in data and the field (offset: where
    data lies in a bigger blob, or 0), ECS_ERROR_OUT_OF_MEMORY (scratch of
    a bit per index), ECS_ERROR_INVALID_ARGUMENT (data NULL). Bytes it
    passes load into an empty manager of the saved mode and lookup kind
    (the store interface's verify: ecs_snapshot_verify_for and
    ecs_snapshot_load run it, and the interface's load then checks no link
    again). Pure; any thread. */
ECS_DEF ecs_result ecs_transform_snapshot_verify(const void *data, size_t size, uint32_t max_index, size_t offset,
                                                 ecs_error *err);
/** Empties tm (keeps its lookup kind, mode, idle frames and allocations). */
ECS_DEF void ecs_transform_snapshot_clear(void *tm);
/** Makes dst (an ecs_transform_manager*, any contents) hold src's whole
    state, as a save of src loaded into an emptied dst would, with memcpy
    and no checks: the store interface's copy (ecs_snapshot_clone). Both
    must have the same lookup kind and mode. ECS_OK, or
    ECS_ERROR_INVALID_ARGUMENT (other settings), ECS_ERROR_OUT_OF_MEMORY;
    dst unchanged on failure. Reads src only. */
ECS_DEF ecs_result ecs_transform_snapshot_copy(void *dst, const void *src, ecs_error *err);

#ifdef __cplusplus
}
#endif
#endif /* ECS_TRANSFORM_H_INCLUDED */

/* ecs_plugin.h came first: read its ECS_API_TRANSFORMS part now (it needs
   both headers; see the end of ecs_plugin.h). */
#if defined(ECS_PLUGIN_H_INCLUDED) && !defined(ECS_PLUGIN_TRANSFORMS_H_INCLUDED)
#include "ecs_plugin.h"
#endif

/* ========================================================================== */
#ifdef ECS_TRANSFORM_IMPLEMENTATION
#ifndef ECS__TRANSFORM_IMPLEMENTATION_DONE
#define ECS__TRANSFORM_IMPLEMENTATION_DONE

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
#ifndef ECS__TF_ASSERT
#ifdef ECS_ASSERT
#define ECS__TF_ASSERT(x) ECS_ASSERT(x)
#else
#include <assert.h>
#define ECS__TF_ASSERT(x) assert(x)
#endif
#endif

#if ECS_TRANSFORM_SSE
#include <xmmintrin.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ECS__TF_INLINE static inline __attribute__((always_inline))
#define ECS__TF_NOINLINE static __attribute__((noinline))
#define ECS__TF_RESTRICT __restrict__
#elif defined(_MSC_VER)
#define ECS__TF_INLINE static __forceinline
#define ECS__TF_NOINLINE static __declspec(noinline)
#define ECS__TF_RESTRICT __restrict
#else
#define ECS__TF_INLINE static inline
#define ECS__TF_NOINLINE static
#define ECS__TF_RESTRICT
#endif

/* Starts loading the cache line at p (a hint; no effect on results). */
#if defined(__GNUC__) || defined(__clang__)
#define ECS__TF_PREFETCH(p) __builtin_prefetch(p)
#else
#define ECS__TF_PREFETCH(p) ((void)(p))
#endif
#define ECS__TF_PREFETCH_DISTANCE 16u

/* Tests count world computations, swaps, node moves (a swap is three moves)
   and full sweeps to check the cost promises without timing anything. */
#ifdef ECS_TRANSFORM_TEST_COUNTERS
static unsigned long ecs__tf_count_worlds, ecs__tf_count_swaps, ecs__tf_count_moves, ecs__tf_count_sweeps;
#define ECS__TF_COUNT(counter, n) ((counter) += (unsigned long)(n))
#else
#define ECS__TF_COUNT(counter, n) ((void)0)
#endif

#define ECS__TF_NIL ECS_INSTANCE_NIL
#define ECS__TF_ID_MASK (ECS_INDEX_MASK | (ECS_ENTITY_GENERATION_MASK << ECS_INDEX_BITS))
#define ECS__TF_ALIGN 64u

/* ---- matrix kernels --------------------------------------------------------
   Row r of a*b = a[r][0]*b.row0 + a[r][1]*b.row1 + a[r][2]*b.row2 + a[r][3]*b.row3,
   added left to right in both paths, so they give the same bits (no FMA). */

ECS__TF_INLINE void ecs__tf_mul_scalar(float *ECS__TF_RESTRICT o, const float *ECS__TF_RESTRICT a,
                                       const float *ECS__TF_RESTRICT b)
{
    int r;
    for (r = 0; r < 16; r += 4) {
        float a0 = a[r], a1 = a[r + 1], a2 = a[r + 2], a3 = a[r + 3];
        o[r + 0] = a0 * b[0] + a1 * b[4] + a2 * b[8] + a3 * b[12];
        o[r + 1] = a0 * b[1] + a1 * b[5] + a2 * b[9] + a3 * b[13];
        o[r + 2] = a0 * b[2] + a1 * b[6] + a2 * b[10] + a3 * b[14];
        o[r + 3] = a0 * b[3] + a1 * b[7] + a2 * b[11] + a3 * b[15];
    }
}

#if ECS_TRANSFORM_SSE
/* Safe when o aliases a or b: b is loaded first, row r of a before row r of o
   is stored. */
ECS__TF_INLINE void ecs__tf_mul_sse(float *o, const float *a, const float *b)
{
    __m128 b0 = _mm_loadu_ps(b), b1 = _mm_loadu_ps(b + 4), b2 = _mm_loadu_ps(b + 8), b3 = _mm_loadu_ps(b + 12);
    int r;
    for (r = 0; r < 16; r += 4) {
        __m128 ar = _mm_loadu_ps(a + r);
        __m128 x = _mm_mul_ps(_mm_shuffle_ps(ar, ar, 0x00), b0);
        x = _mm_add_ps(x, _mm_mul_ps(_mm_shuffle_ps(ar, ar, 0x55), b1));
        x = _mm_add_ps(x, _mm_mul_ps(_mm_shuffle_ps(ar, ar, 0xAA), b2));
        x = _mm_add_ps(x, _mm_mul_ps(_mm_shuffle_ps(ar, ar, 0xFF), b3));
        _mm_storeu_ps(o + r, x);
    }
}
#define ecs__tf_mul ecs__tf_mul_sse
#else
#define ecs__tf_mul ecs__tf_mul_scalar
#endif

ECS_DEF ecs_mat4 ecs_mat4_identity(void)
{
    ecs_mat4 r;
    memset(&r, 0, sizeof r);
    r.m[0] = r.m[5] = r.m[10] = r.m[15] = 1.0f;
    return r;
}

ECS_DEF void ecs_mat4_mul(ecs_mat4 *out, const ecs_mat4 *a, const ecs_mat4 *b)
{
#if ECS_TRANSFORM_SSE
    ecs__tf_mul_sse(out->m, a->m, b->m);
#else
    ecs_mat4 t;
    ecs__tf_mul_scalar(t.m, a->m, b->m);
    *out = t;
#endif
}

ECS_DEF void ecs_mat4_mul_scalar(ecs_mat4 *out, const ecs_mat4 *a, const ecs_mat4 *b)
{
    ecs_mat4 t;
    ecs__tf_mul_scalar(t.m, a->m, b->m);
    *out = t;
}

#if ECS_TRANSFORM_SSE
ECS_DEF void ecs_mat4_mul_sse(ecs_mat4 *out, const ecs_mat4 *a, const ecs_mat4 *b)
{
    ecs__tf_mul_sse(out->m, a->m, b->m);
}
#endif

ECS_DEF ecs_mat4 ecs_mat4_translation(ecs_vec3 t)
{
    ecs_mat4 r = ecs_mat4_identity();
    r.m[12] = t.x;
    r.m[13] = t.y;
    r.m[14] = t.z;
    return r;
}

ECS_DEF ecs_mat4 ecs_mat4_scale(ecs_vec3 s)
{
    ecs_mat4 r = ecs_mat4_identity();
    r.m[0] = s.x;
    r.m[5] = s.y;
    r.m[10] = s.z;
    return r;
}

ECS_DEF ecs_mat4 ecs_mat4_rotation(ecs_quat q)
{
    ecs_mat4 r = ecs_mat4_identity();
    float n = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w, s;
    float xx, yy, zz, xy, xz, yz, wx, wy, wz;
    if (!(n > 0.0f)) return r;
    s = 2.0f / n;
    xx = q.x * q.x * s, yy = q.y * q.y * s, zz = q.z * q.z * s;
    xy = q.x * q.y * s, xz = q.x * q.z * s, yz = q.y * q.z * s;
    wx = q.w * q.x * s, wy = q.w * q.y * s, wz = q.w * q.z * s;
    /* the transpose of the column-vector matrix: rows are the images of the axes */
    r.m[0] = 1.0f - (yy + zz);
    r.m[1] = xy + wz;
    r.m[2] = xz - wy;
    r.m[4] = xy - wz;
    r.m[5] = 1.0f - (xx + zz);
    r.m[6] = yz + wx;
    r.m[8] = xz + wy;
    r.m[9] = yz - wx;
    r.m[10] = 1.0f - (xx + yy);
    return r;
}

ECS_DEF ecs_mat4 ecs_mat4_compose(ecs_vec3 t, ecs_quat q, ecs_vec3 s)
{
    ecs_mat4 r = ecs_mat4_rotation(q);
    int k;
    for (k = 0; k < 3; ++k) {
        r.m[k] *= s.x;
        r.m[4 + k] *= s.y;
        r.m[8 + k] *= s.z;
    }
    r.m[12] = t.x;
    r.m[13] = t.y;
    r.m[14] = t.z;
    return r;
}

ECS_DEF int ecs_mat4_inverse_affine(ecs_mat4 *out, const ecs_mat4 *m)
{
    const float *a = m->m;
    double c00 = (double)a[5] * a[10] - (double)a[6] * a[9];
    double c01 = (double)a[6] * a[8] - (double)a[4] * a[10];
    double c02 = (double)a[4] * a[9] - (double)a[5] * a[8];
    double det = a[0] * c00 + a[1] * c01 + a[2] * c02, inv, r[9];
    double t0 = a[12], t1 = a[13], t2 = a[14];
    ecs_mat4 o;
    int k;
    if (!(det != 0.0) || !(fabs(det) < HUGE_VAL) || !(fabs(1.0 / det) < HUGE_VAL)) {
        *out = ecs_mat4_identity();
        return 0;
    }
    inv = 1.0 / det;
    r[0] = c00 * inv;
    r[1] = ((double)a[2] * a[9] - (double)a[1] * a[10]) * inv;
    r[2] = ((double)a[1] * a[6] - (double)a[2] * a[5]) * inv;
    r[3] = c01 * inv;
    r[4] = ((double)a[0] * a[10] - (double)a[2] * a[8]) * inv;
    r[5] = ((double)a[2] * a[4] - (double)a[0] * a[6]) * inv;
    r[6] = c02 * inv;
    r[7] = ((double)a[1] * a[8] - (double)a[0] * a[9]) * inv;
    r[8] = ((double)a[0] * a[5] - (double)a[1] * a[4]) * inv;
    for (k = 0; k < 3; ++k) {
        o.m[4 * k + 0] = (float)r[3 * k + 0];
        o.m[4 * k + 1] = (float)r[3 * k + 1];
        o.m[4 * k + 2] = (float)r[3 * k + 2];
        o.m[4 * k + 3] = 0.0f;
    }
    /* translation row: -t * A^-1 */
    o.m[12] = (float)-(t0 * r[0] + t1 * r[3] + t2 * r[6]);
    o.m[13] = (float)-(t0 * r[1] + t1 * r[4] + t2 * r[7]);
    o.m[14] = (float)-(t0 * r[2] + t1 * r[5] + t2 * r[8]);
    o.m[15] = 1.0f;
    *out = o;
    return 1;
}

ECS_DEF ecs_vec3 ecs_mat4_transform_point(const ecs_mat4 *m, ecs_vec3 p)
{
    const float *a = m->m;
    ecs_vec3 r;
    r.x = p.x * a[0] + p.y * a[4] + p.z * a[8] + a[12];
    r.y = p.x * a[1] + p.y * a[5] + p.z * a[9] + a[13];
    r.z = p.x * a[2] + p.y * a[6] + p.z * a[10] + a[14];
    return r;
}

ECS_DEF ecs_quat ecs_quat_axis_angle(ecs_vec3 axis, float radians)
{
    ecs_quat q;
    float len = sqrtf(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z), s;
    if (!(len > 0.0f)) {
        q.x = q.y = q.z = 0.0f;
        q.w = 1.0f;
        return q;
    }
    s = sinf(radians * 0.5f) / len;
    q.x = axis.x * s;
    q.y = axis.y * s;
    q.z = axis.z * s;
    q.w = cosf(radians * 0.5f);
    return q;
}

/* ---- storage ------------------------------------------------------------------ */

enum { ECS__TF_A_LOCAL, ECS__TF_A_WORLD, ECS__TF_A_ENTITY, ECS__TF_A_PARENT, ECS__TF_A_FIRST,
       ECS__TF_A_NEXT, ECS__TF_A_PREV, ECS__TF_A_AGE, ECS__TF_A_COUNT };

/* One set of array pointers over one allocation. */
typedef struct ecs__tf_arrays {
    ecs_mat4 *local, *world;
    ecs_entity *entity;
    uint32_t *parent, *first_child, *next_sibling, *prev_sibling;
    uint8_t *age;
    void *buffer;
} ecs__tf_arrays;

/* Bytes one instance takes in the arrays, padding aside: local, world,
   entity, parent, first_child, next_sibling, prev_sibling, age (149). */
#define ECS__TF_INSTANCE_BYTES (2u * sizeof(ecs_mat4) + sizeof(ecs_entity) + 4u * sizeof(uint32_t) + sizeof(uint8_t))

/* Bytes for `cap` instances, each array starting on a 64-byte boundary. */
static size_t ecs__tf_layout(uint32_t cap, size_t *off)
{
    static const size_t elem[ECS__TF_A_COUNT] = {sizeof(ecs_mat4), sizeof(ecs_mat4), sizeof(ecs_entity),
                                                 sizeof(uint32_t), sizeof(uint32_t), sizeof(uint32_t),
                                                 sizeof(uint32_t), sizeof(uint8_t)};
    size_t at = 0;
    int k;
    for (k = 0; k < ECS__TF_A_COUNT; ++k) {
        if (off) off[k] = at;
        at += (elem[k] * cap + (ECS__TF_ALIGN - 1u)) & ~(size_t)(ECS__TF_ALIGN - 1u);
    }
    return at + ECS__TF_ALIGN; /* room to align the start */
}

static int ecs__tf_alloc(uint32_t cap, ecs__tf_arrays *a)
{
    size_t off[ECS__TF_A_COUNT], bytes;
    char *raw, *base;
    bytes = ecs__tf_layout(cap, off);
    /* The true size is at least cap * ECS__TF_INSTANCE_BYTES; less means the
       sum wrapped around size_t (32-bit targets). */
    if (bytes / ECS__TF_INSTANCE_BYTES < cap) return 0;
    raw = (char *)ECS__REALLOC(NULL, bytes);
    if (!raw) return 0;
    base = raw + ((ECS__TF_ALIGN - ((uintptr_t)raw & (ECS__TF_ALIGN - 1u))) & (ECS__TF_ALIGN - 1u));
    a->buffer = raw;
    a->local = (ecs_mat4 *)(void *)(base + off[ECS__TF_A_LOCAL]);
    a->world = (ecs_mat4 *)(void *)(base + off[ECS__TF_A_WORLD]);
    a->entity = (ecs_entity *)(void *)(base + off[ECS__TF_A_ENTITY]);
    a->parent = (uint32_t *)(void *)(base + off[ECS__TF_A_PARENT]);
    a->first_child = (uint32_t *)(void *)(base + off[ECS__TF_A_FIRST]);
    a->next_sibling = (uint32_t *)(void *)(base + off[ECS__TF_A_NEXT]);
    a->prev_sibling = (uint32_t *)(void *)(base + off[ECS__TF_A_PREV]);
    a->age = (uint8_t *)(base + off[ECS__TF_A_AGE]);
    return 1;
}

static void ecs__tf_adopt(ecs_transform_manager *tm, const ecs__tf_arrays *a, uint32_t cap)
{
    ECS__FREE(tm->buffer);
    tm->buffer = a->buffer;
    tm->local = a->local;
    tm->world = a->world;
    tm->entity = a->entity;
    tm->parent = a->parent;
    tm->first_child = a->first_child;
    tm->next_sibling = a->next_sibling;
    tm->prev_sibling = a->prev_sibling;
    tm->age = a->age;
    tm->capacity = cap;
}

/* tm's arrays (buffer: tm's). */
static ecs__tf_arrays ecs__tf_view(const ecs_transform_manager *tm)
{
    ecs__tf_arrays a;
    a.local = tm->local;
    a.world = tm->world;
    a.entity = tm->entity;
    a.parent = tm->parent;
    a.first_child = tm->first_child;
    a.next_sibling = tm->next_sibling;
    a.prev_sibling = tm->prev_sibling;
    a.age = tm->age;
    a.buffer = tm->buffer;
    return a;
}

/* Copies n instances of every array from s to a. */
static void ecs__tf_copy_arrays(const ecs__tf_arrays *a, const ecs_transform_manager *s, uint32_t n)
{
    if (!n) return;
    memcpy(a->local, s->local, (size_t)n * sizeof *a->local);
    memcpy(a->world, s->world, (size_t)n * sizeof *a->world);
    memcpy(a->entity, s->entity, (size_t)n * sizeof *a->entity);
    memcpy(a->parent, s->parent, (size_t)n * sizeof *a->parent);
    memcpy(a->first_child, s->first_child, (size_t)n * sizeof *a->first_child);
    memcpy(a->next_sibling, s->next_sibling, (size_t)n * sizeof *a->next_sibling);
    memcpy(a->prev_sibling, s->prev_sibling, (size_t)n * sizeof *a->prev_sibling);
    memcpy(a->age, s->age, (size_t)n);
}

/* Makes capacity >= need (need counts the spare slot). */
static ecs_result ecs__tf_grow(ecs_transform_manager *tm, uint32_t need)
{
    ecs__tf_arrays a;
    uint32_t cap, n = tm->count;
    if (need <= tm->capacity) return ECS_OK;
    cap = tm->capacity ? tm->capacity : 16u;
    while (cap < need) cap = cap > 0x7FFFFFFFu ? need : cap * 2u;
    if (!ecs__tf_alloc(cap, &a))
        return ecs_error_set(&tm->error, ECS_ERROR_OUT_OF_MEMORY, "transform manager: out of memory growing to %u instances",
                             (unsigned)cap);
    ecs__tf_copy_arrays(&a, tm, n);
    ecs__tf_adopt(tm, &a, cap);
    return ECS_OK;
}

/* ---- lookup: ecs.h's entity map ------------------------------------------------
   Every instance i is in the map as entity[i] -> i, and nothing else is:
   create, spawn and every move keep it so. */

/* The instance of the entity stored under `key`, or NIL (also for key 0 and
   for a zero-initialised manager, whose map has no table yet). */
static uint32_t ecs__tf_find(const ecs_transform_manager *tm, uint32_t key)
{
    return tm->count ? ecs_entity_map_find(&tm->map, key) : ECS__TF_NIL;
}

/* Dense lookup: the other id of key's index that owns key's slot (a dead
   entity whose index key's entity reuses, its transform not collected yet),
   or 0. One slot per index: that transform must go before key's can enter. */
static uint32_t ecs__tf_stale_owner(const ecs_transform_manager *tm, uint32_t key)
{
    uint32_t idx = key & ECS_INDEX_MASK, id;
    if (tm->map.kind != ECS_LOOKUP_DENSE || idx > tm->map.mask || tm->count == 0) return 0;
    id = tm->map.slots[idx].id;
    return id != key ? id : 0;
}

/* Enters key -> i. key is not in the map; dense: its slot is present and
   empty; hash: room is reserved. The dense case is ecs_entity_map_set's
   insert into an empty slot, inline (create and spawn call it per node). */
ECS__TF_INLINE void ecs__tf_map_enter(ecs_transform_manager *tm, uint32_t key, uint32_t i)
{
    if (tm->map.kind == ECS_LOOKUP_DENSE) {
        ecs_entity_map_slot *s = &tm->map.slots[key & ECS_INDEX_MASK];
        ECS__TF_ASSERT((key & ECS_INDEX_MASK) <= tm->map.mask && s->id == 0);
        s->id = key;
        s->first = i;
        ++tm->map.count;
    } else {
        ecs_entity_map_set(&tm->map, key, i);
    }
}

/* Points key, which is in the map, at instance i (a move). Dense: the slot
   at key's index is key's, so only its instance changes. */
ECS__TF_INLINE void ecs__tf_map_point(ecs_transform_manager *tm, uint32_t key, uint32_t i)
{
    if (tm->map.kind == ECS_LOOKUP_DENSE) {
        ECS__TF_ASSERT(tm->map.slots[key & ECS_INDEX_MASK].id == key);
        tm->map.slots[key & ECS_INDEX_MASK].first = i;
    } else {
        ecs_entity_map_set(&tm->map, key, i);
    }
}

/* ---- links and moves ------------------------------------------------------------ */

/* c (detached) becomes p's first child. */
static void ecs__tf_attach(ecs_transform_manager *tm, uint32_t c, uint32_t p)
{
    uint32_t n = tm->first_child[p];
    tm->parent[c] = p;
    tm->prev_sibling[c] = ECS__TF_NIL;
    tm->next_sibling[c] = n;
    if (n != ECS__TF_NIL) tm->prev_sibling[n] = c;
    tm->first_child[p] = c;
}

/* Takes c out of its parent's child list; c keeps its own children. */
static void ecs__tf_detach(ecs_transform_manager *tm, uint32_t c)
{
    uint32_t p = tm->parent[c], pr, nx;
    if (p == ECS__TF_NIL) return;
    pr = tm->prev_sibling[c];
    nx = tm->next_sibling[c];
    if (pr != ECS__TF_NIL) tm->next_sibling[pr] = nx;
    else tm->first_child[p] = nx;
    if (nx != ECS__TF_NIL) tm->prev_sibling[nx] = pr;
    tm->parent[c] = tm->prev_sibling[c] = tm->next_sibling[c] = ECS__TF_NIL;
}

/* Copies instance `from`, all but its world matrix, to slot `to` (which
   nothing refers to) and points every reference to `from` (parent, siblings,
   children, lookup) at `to`. */
static void ecs__tf_move_links(ecs_transform_manager *tm, uint32_t from, uint32_t to)
{
    uint32_t p, pr, nx, c;
    ECS__TF_COUNT(ecs__tf_count_moves, 1);
    tm->entity[to] = tm->entity[from];
    tm->local[to] = tm->local[from];
    p = tm->parent[to] = tm->parent[from];
    c = tm->first_child[to] = tm->first_child[from];
    nx = tm->next_sibling[to] = tm->next_sibling[from];
    pr = tm->prev_sibling[to] = tm->prev_sibling[from];
    tm->age[to] = tm->age[from];
    if (pr != ECS__TF_NIL) tm->next_sibling[pr] = to;
    else if (p != ECS__TF_NIL) tm->first_child[p] = to;
    if (nx != ECS__TF_NIL) tm->prev_sibling[nx] = to;
    for (; c != ECS__TF_NIL; c = tm->next_sibling[c]) tm->parent[c] = to;
    ecs__tf_map_point(tm, tm->entity[to].id, to);
}

/* Moves instance `from` with its world matrix to slot `to` (see above). */
static void ecs__tf_move(ecs_transform_manager *tm, uint32_t from, uint32_t to)
{
    tm->world[to] = tm->world[from];
    ecs__tf_move_links(tm, from, to);
}

/* The seed's swap in three steps through the spare slot at `count`:
   [count] <- [a]; [a] <- [b]; [b] <- [count]. Each step moves one instance
   into a slot nothing refers to, so the links stay intact throughout. */
static void ecs__tf_swap(ecs_transform_manager *tm, uint32_t a, uint32_t b)
{
    uint32_t s = tm->count;
    if (a == b) return;
    ECS__TF_ASSERT(s < tm->capacity);
    ECS__TF_COUNT(ecs__tf_count_swaps, 1);
    ecs__tf_move(tm, a, s);
    ecs__tf_move(tm, b, a);
    ecs__tf_move(tm, s, b);
}

/* Points every map entry at its instance's new place newpos[instance], the
   arrays already in the new order. Dense: each instance's own slot (at its
   entity's index), O(count) however sparse the indices. Hash: one pass over
   the slots (an empty one has id 0), O(table) = O(count). */
static void ecs__tf_map_remap(ecs_transform_manager *tm, const uint32_t *newpos)
{
    ecs_entity_map_slot *s = tm->map.slots;
    uint32_t k, n = tm->count, slots = tm->map.allocated ? tm->map.mask + 1u : 0u;
    if (tm->map.kind == ECS_LOOKUP_DENSE) {
        for (k = 0; k < n; ++k) s[tm->entity[k].id & ECS_INDEX_MASK].first = k;
        return;
    }
    for (k = 0; k < slots; ++k)
        if (s[k].id) s[k].first = newpos[s[k].first];
}

/* ---- world updates -------------------------------------------------------------- */

/* world of r from its parent's stored world, then r's whole subtree in
   pre-order, without a stack: down first_child, along next_sibling, up parent. */
static void ecs__tf_update_subtree(ecs_transform_manager *tm, uint32_t r)
{
    ecs_mat4 *ECS__TF_RESTRICT w = tm->world;
    const ecs_mat4 *ECS__TF_RESTRICT l = tm->local;
    const uint32_t *par = tm->parent, *fc = tm->first_child, *ns = tm->next_sibling;
    uint32_t p = par[r], n;
    if (p == ECS__TF_NIL) w[r] = l[r];
    else ecs__tf_mul(w[r].m, l[r].m, w[p].m);
    n = fc[r];
    ECS__TF_COUNT(ecs__tf_count_worlds, 1);
    while (n != ECS__TF_NIL) {
        ECS__TF_COUNT(ecs__tf_count_worlds, 1);
        ecs__tf_mul(w[n].m, l[n].m, w[par[n]].m);
        if (fc[n] != ECS__TF_NIL) {
            n = fc[n];
            continue;
        }
        while (ns[n] == ECS__TF_NIL) {
            n = par[n];
            if (n == r) return;
        }
        n = ns[n];
    }
}

/* Nodes a chain walk keeps on the stack: ecs__tf_chain_down recurses at most
   6 levels deep (64^6 > 2^32 nodes), 256 bytes a level. */
#define ECS__TF_CHAIN 64u

/* The chain x_0 = x, x_1 = parent(x_0), ... x_(len-1), applied top first:
   *acc = local[x_k] * *acc for k = len-1 down to 0, where *started = 0 means
   that *acc holds nothing yet (x_(len-1) is a root: its world is its local).
   So with *acc = the stored world of x_(len-1)'s parent, *acc ends as x's
   world computed exactly as commit and immediate mode compute it: each world
   is local * (the parent's world), parents first. A chain longer than
   ECS__TF_CHAIN is cut into at most ECS__TF_CHAIN pieces, found by one walk up,
   and each piece is done the same way, top piece first. O(len) products and
   O(len * log64 len) parent reads, whatever the depth. */
static void ecs__tf_chain_down(const ecs_transform_manager *tm, uint32_t x, uint32_t len, ecs_mat4 *acc, int *started)
{
    uint32_t at[ECS__TF_CHAIN], k, m = 0, step, left;
    if (len <= ECS__TF_CHAIN) {
        for (k = 0; k < len; ++k, x = tm->parent[x]) at[k] = x;
        while (k-- > 0) {
            if (*started) ecs_mat4_mul(acc, &tm->local[at[k]], acc);
            else *acc = tm->local[at[k]];
            *started = 1;
        }
        return;
    }
    step = (len + ECS__TF_CHAIN - 1u) / ECS__TF_CHAIN; /* piece length: at most ECS__TF_CHAIN pieces */
    for (k = 0, left = 0; k < len; ++k, x = tm->parent[x], --left)
        if (left == 0) at[m++] = x, left = step; /* the bottom node of each piece */
    while (m-- > 0) ecs__tf_chain_down(tm, at[m], m == (len - 1u) / step ? len - m * step : step, acc, started);
}

/* i's current world into *out (see ecs_transform_compute_world). A stored
   world is current for a clean node while nothing is pending; otherwise the
   chain from the nearest such ancestor (or the root) down to i is multiplied
   top first, the order commit uses, so the result is the world commit will
   store, bit for bit. O(1) or O(depth). */
static void ecs__tf_current_world(const ecs_transform_manager *tm, uint32_t i, ecs_mat4 *out)
{
    uint32_t x, len = 0;
    int clean_ok = tm->num_pending == 0, started = 0;
    if (tm->mode == ECS_TRANSFORM_IMMEDIATE || (clean_ok && i < tm->first_dirty)) {
        *out = tm->world[i];
        return;
    }
    for (x = i; x != ECS__TF_NIL && !(clean_ok && x < tm->first_dirty); x = tm->parent[x]) ++len;
    if (x != ECS__TF_NIL) {
        *out = tm->world[x];
        started = 1;
    }
    ecs__tf_chain_down(tm, i, len, out, &started);
}

/* Deferred: 1 when something at or above x is pending or dirty (so a clean,
   unchanged node below x may hold a stale world). */
static int ecs__tf_stale_from(const ecs_transform_manager *tm, uint32_t x)
{
    if (tm->num_pending == 0) return 0;
    for (; x != ECS__TF_NIL; x = tm->parent[x])
        if (x >= tm->first_dirty || tm->age[x] == 0) return 1;
    return 0;
}

/* Deferred: records i as changed. A clean node with age 0 is already pending;
   a dirty one only needs its age reset. */
static ecs_result ecs__tf_touch(ecs_transform_manager *tm, uint32_t i)
{
    if (i >= tm->first_dirty || tm->age[i] == 0) {
        tm->age[i] = 0;
        return ECS_OK;
    }
    if (tm->num_pending == tm->pending_capacity) {
        uint32_t cap = tm->pending_capacity ? tm->pending_capacity * 2u : 64u;
        uint32_t *p = (uint32_t *)ECS__REALLOC(tm->pending, (size_t)cap * sizeof *p);
        if (!p) return ecs_error_set(&tm->error, ECS_ERROR_OUT_OF_MEMORY, "transform manager: out of memory recording a change");
        tm->pending = p;
        tm->pending_capacity = cap;
    }
    tm->pending[tm->num_pending++] = tm->entity[i].id;
    tm->age[i] = 0;
    return ECS_OK;
}

/* Deferred commit: the node after n in a pre-order walk of root's subtree
   that skips the nodes at or after `skip` (already dirty; their subtrees are
   dirty too), or NIL after the last. Each link is followed a bounded number
   of times over a whole walk, so a walk is O(subtree). */
static uint32_t ecs__tf_next_clean(const ecs_transform_manager *tm, uint32_t n, uint32_t root, uint32_t skip)
{
    uint32_t c;
    for (c = tm->first_child[n]; c != ECS__TF_NIL && c >= skip; c = tm->next_sibling[c]) {
    }
    while (c == ECS__TF_NIL) {
        if (n == root) return ECS__TF_NIL;
        for (c = tm->next_sibling[n]; c != ECS__TF_NIL && c >= skip; c = tm->next_sibling[c]) {
        }
        if (c == ECS__TF_NIL) n = tm->parent[n];
    }
    return c;
}

/* Deferred commit: moves clean node x and its clean descendants into the
   dirty range, just before it, in pre-order (parents first). One walk counts
   them (m); a second puts the k-th node into slot first_dirty - m + k with one
   swap. Placed nodes never move again and the walk follows links, so the
   swaps do not disturb it. O(m) swaps. */
static void ecs__tf_insert_subtree(ecs_transform_manager *tm, uint32_t x)
{
    const uint32_t skip = tm->first_dirty;
    uint32_t m = 0, n, t, root;
    ECS__TF_ASSERT(x < skip);
    for (n = x; n != ECS__TF_NIL; n = ecs__tf_next_clean(tm, n, x, skip)) ++m;
    root = t = tm->first_dirty = skip - m;
    for (n = x; n != ECS__TF_NIL; n = ecs__tf_next_clean(tm, t++, root, skip)) {
        ecs__tf_swap(tm, n, t);
        tm->age[t] = 0;
    }
}

/* Commit's ordering scratch: the first 4 bytes of world[k], for slots of the
   dirty range whose worlds this commit has not computed yet (it computes
   them right after, so nothing is lost and no memory is needed). */
static uint32_t ecs__tf_scratch(const ecs_transform_manager *tm, uint32_t k)
{
    uint32_t v;
    memcpy(&v, tm->world[k].m, sizeof v);
    return v;
}

static void ecs__tf_scratch_set(ecs_transform_manager *tm, uint32_t k, uint32_t v)
{
    memcpy(tm->world[k].m, &v, sizeof v);
}

/* Writes the slots of r's subtree in pre-order to scratch t, t+1, ...;
   returns the next t. Iterative (any depth). */
static uint32_t ecs__tf_order_subtree(ecs_transform_manager *tm, uint32_t r, uint32_t t)
{
    uint32_t x = r;
    for (;;) {
        ECS__TF_ASSERT(t < tm->count);
        ecs__tf_scratch_set(tm, t++, x);
        if (tm->first_child[x] != ECS__TF_NIL) {
            x = tm->first_child[x];
            continue;
        }
        while (x != r && tm->next_sibling[x] == ECS__TF_NIL) x = tm->parent[x];
        if (x == r) return t;
        x = tm->next_sibling[x];
    }
}

/* Deferred commit: lays [v, count) out depth-first: each node whose parent
   lies before v (or that has none), in slot order, followed by its subtree.
   Needs: no child before its parent in [first_dirty, v) and no clean node
   under a dirty one, so that every subtree of those nodes lies inside
   [v, count). The target order goes to the scratch; then each cycle of the
   permutation is followed once through the spare slot at count, so every
   node moves once (plus one move per cycle) and keeps its links. Worlds are
   not moved (their slots hold the scratch; the sweep recomputes them).
   O(count - v). */
static void ecs__tf_relay(ecs_transform_manager *tm, uint32_t v)
{
    const uint32_t n = tm->count;
    uint32_t s, t = v, cur, src;
    ECS__TF_ASSERT(n < tm->capacity);
    for (s = v; s < n; ++s)
        if (tm->parent[s] == ECS__TF_NIL || tm->parent[s] < v) t = ecs__tf_order_subtree(tm, s, t);
    ECS__TF_ASSERT(t == n);
    for (s = v; s < n; ++s) {
        if (ecs__tf_scratch(tm, s) == s) continue; /* in place, or placed by an earlier cycle */
        ecs__tf_move_links(tm, s, n);
        for (cur = s;; cur = src) {
            src = ecs__tf_scratch(tm, cur); /* the node that belongs in slot cur */
            ecs__tf_scratch_set(tm, cur, cur);
            if (src == s) break;
            ecs__tf_move_links(tm, src, cur);
        }
        ecs__tf_move_links(tm, n, cur);
    }
}

static uint32_t ecs__tf_idle(const ecs_transform_manager *tm)
{
    uint32_t t = tm->idle_frames ? tm->idle_frames : ECS_TRANSFORM_DEFAULT_IDLE_FRAMES;
    return t > 255u ? 255u : t;
}

/* ---- the manager ------------------------------------------------------------- */

ECS_DEF ecs_result ecs_transform_manager_init(ecs_transform_manager *tm, ecs_lookup_kind lookup,
                                              ecs_transform_mode mode)
{
    memset(tm, 0, sizeof *tm);
    tm->idle_frames = ECS_TRANSFORM_DEFAULT_IDLE_FRAMES;
    ecs_entity_map_init(&tm->map, ECS_LOOKUP_HASH);
    if (lookup == ECS_LOOKUP_DIRECT)
        return ecs_error_set(&tm->error, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_transform_manager_init: ECS_LOOKUP_DIRECT is not a transform lookup (instances move "
                             "on destroy, reorder and commit); use ECS_LOOKUP_DENSE");
    if ((lookup != ECS_LOOKUP_HASH && lookup != ECS_LOOKUP_DENSE) ||
        (mode != ECS_TRANSFORM_IMMEDIATE && mode != ECS_TRANSFORM_DEFERRED))
        return ecs_error_set(&tm->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_transform_manager_init: unknown lookup %d or mode %d",
                             (int)lookup, (int)mode);
    ecs_entity_map_init(&tm->map, lookup);
    tm->mode = mode;
    return ECS_OK;
}

ECS_DEF void ecs_transform_manager_free(ecs_transform_manager *tm)
{
    ecs_lookup_kind lookup = tm->map.kind;
    ecs_transform_mode mode = tm->mode;
    uint32_t idle = tm->idle_frames;
    ECS__FREE(tm->buffer);
    ecs_entity_map_free(&tm->map);
    ECS__FREE(tm->pending);
    ECS__FREE(tm->mark);
    memset(tm, 0, sizeof *tm);
    ecs_entity_map_init(&tm->map, lookup);
    tm->mode = mode;
    tm->idle_frames = idle;
}

ECS_DEF ecs_result ecs_transform_reserve(ecs_transform_manager *tm, uint32_t n)
{
    ecs_result r;
    if (n >= 0xFFFFFFFDu) return ecs_error_set(&tm->error, ECS_ERROR_OUT_OF_MEMORY, "ecs_transform_reserve: too many");
    r = ecs__tf_grow(tm, n + 1u);
    if (r == ECS_OK && tm->map.kind == ECS_LOOKUP_HASH) r = ecs_entity_map_reserve(&tm->map, n, 0, &tm->error);
    return r;
}

ECS_DEF uint32_t ecs_transform_count(const ecs_transform_manager *tm) { return tm->count; }

ECS_DEF size_t ecs_transform_memory(const ecs_transform_manager *tm)
{
    size_t bytes = tm->buffer ? ecs__tf_layout(tm->capacity, NULL) : 0;
    bytes += ecs_entity_map_memory(&tm->map);
    bytes += (size_t)tm->pending_capacity * sizeof *tm->pending;
    bytes += (size_t)tm->mark_capacity * sizeof *tm->mark;
    return bytes;
}

/* create's checks that need no memory: ECS_OK, or the error (tm->error set). */
static ecs_result ecs__tf_create_check(ecs_transform_manager *tm, uint32_t key, uint32_t p, uint32_t stale)
{
    char who[ECS_ENTITY_TEXT_SIZE], whose[ECS_ENTITY_TEXT_SIZE];
    if ((key & ECS_INDEX_MASK) == 0)
        return ecs_error_set(&tm->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_transform_create: nil entity");
    if (p != ECS__TF_NIL && p >= tm->count)
        return ecs_error_set(&tm->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_transform_create: parent %u out of range (count %u)",
                             (unsigned)p, (unsigned)tm->count);
    if (ecs__tf_find(tm, key) != ECS__TF_NIL)
        return ecs_error_set(&tm->error, ECS_ERROR_ALREADY_EXISTS,
                             "ecs_transform_create: %s already has a transform here",
                             ecs_entity_format(who, sizeof who, ecs__as_entity(key)));
    if (stale && !tm->entities && !ecs__id_supersedes(key, stale))
        return ecs_error_set(&tm->error, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_transform_create: %s is a dead id: its index's slot belongs to %s, a later id",
                             ecs_entity_format(who, sizeof who, ecs__as_entity(key)),
                             ecs_entity_format(whose, sizeof whose, ecs__as_entity(stale)));
    if (stale && p != ECS__TF_NIL && tm->entity[p].id == stale)
        return ecs_error_set(&tm->error, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_transform_create: the parent belongs to %s, a dead id of the index of %s",
                             ecs_entity_format(whose, sizeof whose, ecs__as_entity(stale)),
                             ecs_entity_format(who, sizeof who, ecs__as_entity(key)));
    if (tm->entities && !ecs_entity_live(tm->entities, ecs__as_entity(key)))
        return ecs_error_set(&tm->error, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_transform_create: %s is not alive in the manager's world (destroyed, or never "
                             "created there)", ecs_entity_format(who, sizeof who, ecs__as_entity(key)));
    if (tm->count >= 0xFFFFFFFDu)
        return ecs_error_set(&tm->error, ECS_ERROR_OUT_OF_MEMORY, "ecs_transform_create: too many instances");
    return ECS_OK;
}

/* Destroys the transform of `stale` (see ecs__tf_stale_owner); returns where
   instance p, which is not stale's, is afterwards (destroy moves instances). */
static uint32_t ecs__tf_drop_stale(ecs_transform_manager *tm, uint32_t stale, uint32_t p)
{
    uint32_t pkey = p != ECS__TF_NIL ? tm->entity[p].id : 0u;
    (void)ecs_transform_destroy(tm, ecs_instance_make(ecs_entity_map_find_dense(&tm->map, stale)));
    return pkey ? ecs_entity_map_find_dense(&tm->map, pkey) : ECS__TF_NIL;
}

/* create's room: the arrays (the new node and the spare slot) and the map.
   The common case, room in both, costs a few compares and no call. */
static ecs_result ecs__tf_create_room(ecs_transform_manager *tm, uint32_t key)
{
    uint32_t idx = key & ECS_INDEX_MASK;
    if (tm->count + 2u > tm->capacity && ecs__tf_grow(tm, tm->count + 2u) != ECS_OK) return tm->error.code;
    if (tm->map.kind == ECS_LOOKUP_DENSE && tm->map.allocated && idx <= tm->map.mask) return ECS_OK; /* the slot exists */
    return ecs_entity_map_reserve(&tm->map, tm->map.count + 1u, idx, &tm->error);
}

ECS_DEF ecs_instance ecs_transform_create(ecs_transform_manager *tm, ecs_entity e, const ecs_mat4 *local,
                                          ecs_instance parent)
{
    uint32_t key = ecs_entity_key(e), i, p = parent.i, stale = ecs__tf_stale_owner(tm, key);
    if (ecs__tf_create_check(tm, key, p, stale) != ECS_OK || ecs__tf_create_room(tm, key) != ECS_OK)
        return ecs_instance_nil();
    if (stale) p = ecs__tf_drop_stale(tm, stale, p);
    i = tm->count;
    tm->entity[i].id = key;
    tm->local[i] = local ? *local : ecs_mat4_identity();
    tm->first_child[i] = ECS__TF_NIL;
    tm->age[i] = 0;
    ecs__tf_map_enter(tm, key, i);
    if (p == ECS__TF_NIL) {
        tm->parent[i] = tm->prev_sibling[i] = tm->next_sibling[i] = ECS__TF_NIL;
        tm->world[i] = tm->local[i];
    } else {
        ecs__tf_attach(tm, i, p);
        ecs__tf_mul(tm->world[i].m, tm->local[i].m, tm->world[p].m);
    }
    tm->count = i + 1u;
    if (tm->mode == ECS_TRANSFORM_IMMEDIATE) tm->first_dirty = tm->count;
    return ecs_instance_make(i);
}

ECS_DEF ecs_instance ecs_transform_lookup(const ecs_transform_manager *tm, ecs_entity e)
{
    return ecs_instance_make(ecs__tf_find(tm, ecs_entity_key(e)));
}

ECS_DEF ecs_entity ecs_transform_entity(const ecs_transform_manager *tm, ecs_instance i)
{
    ecs_entity nil = {0};
    return i.i < tm->count ? tm->entity[i.i] : nil;
}

ECS_DEF int ecs_transform_destroy(ecs_transform_manager *tm, ecs_instance inst)
{
    uint32_t i = inst.i, c, last, fd;
    int deferred = tm->mode == ECS_TRANSFORM_DEFERRED, stale = 0;
    if (i >= tm->count) return 0;
    /* children become roots that keep their world */
    if (deferred && tm->first_child[i] != ECS__TF_NIL) stale = ecs__tf_stale_from(tm, i);
    for (c = tm->first_child[i]; c != ECS__TF_NIL;) {
        uint32_t nx = tm->next_sibling[c];
        ecs_mat4 w;
        ecs__tf_current_world(tm, c, &w);
        tm->local[c] = tm->world[c] = w;
        tm->parent[c] = tm->prev_sibling[c] = tm->next_sibling[c] = ECS__TF_NIL;
        /* deferred: a clean, unchanged child under a pending ancestor has a
           stale subtree that no pending node covers any more: bring it up to date */
        if (stale && c < tm->first_dirty && tm->age[c] != 0) ecs__tf_update_subtree(tm, c);
        c = nx;
    }
    tm->first_child[i] = ECS__TF_NIL;
    ecs__tf_detach(tm, i);
    ecs_entity_map_set(&tm->map, tm->entity[i].id, ECS__TF_NIL);
    /* fill the hole, keeping the dirty range [first_dirty, count) contiguous */
    last = tm->count - 1u;
    fd = tm->first_dirty;
    if (i < fd) {
        if (i != fd - 1u) ecs__tf_move(tm, fd - 1u, i);
        if (fd - 1u != last) ecs__tf_move(tm, last, fd - 1u);
        tm->first_dirty = fd - 1u;
    } else if (i != last) {
        ecs__tf_move(tm, last, i);
    }
    tm->count = last;
    return 1;
}

ECS_DEF int ecs_transform_destroy_entity(ecs_transform_manager *tm, ecs_entity e)
{
    ecs_instance i = ecs_transform_lookup(tm, e);
    return ecs_instance_is_nil(i) ? 0 : ecs_transform_destroy(tm, i);
}

ECS_DEF void ecs_transform_on_entity_destroy(void *user, ecs_entity e)
{
    if (user) (void)ecs_transform_destroy_entity((ecs_transform_manager *)user, e);
}

static int ecs__tf_destroy_instance(void *tm, uint32_t i)
{
    return ecs_transform_destroy((ecs_transform_manager *)tm, ecs_instance_make(i));
}

ECS_DEF uint32_t ecs_transform_gc(ecs_transform_manager *tm, const ecs_entity_manager *em)
{
    return ecs_gc_random(&tm->rng, em, &tm->count, &tm->entity, ecs__tf_destroy_instance, tm);
}

ECS_DEF uint32_t ecs_transform_gc_all(ecs_transform_manager *tm, const ecs_entity_manager *em)
{
    uint32_t i = tm->count, destroyed = 0;
    ECS__TF_COUNT(ecs__tf_count_sweeps, 1);
    /* what a destroy moves into i (or into first_dirty - 1) comes from
       further up: already checked */
    while (i-- > 0)
        if (!ecs_entity_alive(em, tm->entity[i])) destroyed += (uint32_t)ecs_transform_destroy(tm, ecs_instance_make(i));
    return destroyed;
}

/* Starts loading the map slot that looking up `key` reads first (the home
   slot of ecs_entity_map_find_dense / _find_hash). */
static void ecs__tf_prefetch_key(const ecs_transform_manager *tm, uint32_t key)
{
    const ecs_entity_map *m = &tm->map;
    if (m->kind == ECS_LOOKUP_DENSE) ECS__TF_PREFETCH(&m->slots[key & ECS_INDEX_MASK & m->mask]);
    else ECS__TF_PREFETCH(&m->slots[(key * 0x9E3779B1u) >> m->shift]);
}

/* A collect cursor a snapshot load restored: the first collect takes it
   over for the entity manager it is given (the loaded world's). */
#define ECS__TF_LOG_ADOPT(tm) ((const ecs_entity_manager *)(const void *)&(tm)->log)

ECS_DEF uint32_t ecs_transform_collect(ecs_transform_manager *tm, const ecs_entity_manager *em)
{
    uint32_t n, from, k = 0, destroyed = 0;
    if (tm->log.em == ECS__TF_LOG_ADOPT(tm)) {
        tm->log.em = em;
        tm->log.life = em->life;
    }
    n = ecs_entity_log_pending(em, &tm->log);
    from = tm->log.next;
    if (tm->count == 0) n = 0; /* nothing to collect, whatever the log says */
    if (n != ECS_ENTITY_LOG_LOST) {
        uint32_t ahead = n < ECS__TF_PREFETCH_DISTANCE ? n : ECS__TF_PREFETCH_DISTANCE;
        for (k = 0; k < ahead; ++k) ecs__tf_prefetch_key(tm, ecs_entity_log_at(em, from + k).id);
        for (k = 0; k < n; ++k) {
            ecs_entity dead = ecs_entity_log_at(em, from + k);
            if (dead.id == 0) break; /* an entry lost to the ring's growth */
            if (k + ahead < n) ecs__tf_prefetch_key(tm, ecs_entity_log_at(em, from + k + ahead).id);
            if (ecs_entity_live(em, dead)) continue; /* its index came round to this id again: a live entity's */
            destroyed += (uint32_t)ecs_transform_destroy_entity(tm, dead);
        }
    }
    if (n == ECS_ENTITY_LOG_LOST || k < n) destroyed += ecs_transform_gc_all(tm, em);
    ecs_entity_log_skip_all(em, &tm->log);
    return destroyed;
}

ECS_DEF ecs_result ecs_transform_link(ecs_transform_manager *tm, ecs_instance child, ecs_instance parent)
{
    uint32_t c = child.i, p = parent.i, x;
    if (c >= tm->count || p >= tm->count)
        return ecs_error_set(&tm->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_transform_link: child %u or parent %u out of range (count %u)",
                             (unsigned)c, (unsigned)p, (unsigned)tm->count);
    if (tm->parent[c] == p) return ECS_OK;
    for (x = p; x != ECS__TF_NIL; x = tm->parent[x])
        if (x == c)
            return ecs_error_set(&tm->error, ECS_ERROR_CYCLE,
                                 "ecs_transform_link: instance %u is %s instance %u; linking would make a cycle",
                                 (unsigned)p, p == c ? "the same as" : "a descendant of", (unsigned)c);
    if (tm->mode == ECS_TRANSFORM_DEFERRED) {
        ecs_result r = ecs__tf_touch(tm, c);
        if (r != ECS_OK) return r;
    }
    ecs__tf_detach(tm, c);
    ecs__tf_attach(tm, c, p);
    if (tm->mode == ECS_TRANSFORM_IMMEDIATE) ecs__tf_update_subtree(tm, c);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_transform_unlink(ecs_transform_manager *tm, ecs_instance child)
{
    uint32_t c = child.i;
    ecs_mat4 w;
    int stale;
    if (c >= tm->count)
        return ecs_error_set(&tm->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_transform_unlink: instance %u out of range (count %u)",
                             (unsigned)c, (unsigned)tm->count);
    if (tm->parent[c] == ECS__TF_NIL) return ECS_OK;
    stale = tm->mode == ECS_TRANSFORM_DEFERRED && c < tm->first_dirty && tm->age[c] != 0 &&
            ecs__tf_stale_from(tm, tm->parent[c]);
    ecs__tf_current_world(tm, c, &w);
    ecs__tf_detach(tm, c);
    tm->local[c] = tm->world[c] = w;
    if (stale) ecs__tf_update_subtree(tm, c); /* see ecs_transform_destroy */
    return ECS_OK;
}

ECS_DEF ecs_instance ecs_transform_parent(const ecs_transform_manager *tm, ecs_instance i)
{
    return ecs_instance_make(i.i < tm->count ? tm->parent[i.i] : ECS__TF_NIL);
}

ECS_DEF ecs_instance ecs_transform_first_child(const ecs_transform_manager *tm, ecs_instance i)
{
    return ecs_instance_make(i.i < tm->count ? tm->first_child[i.i] : ECS__TF_NIL);
}

ECS_DEF ecs_instance ecs_transform_next_sibling(const ecs_transform_manager *tm, ecs_instance i)
{
    return ecs_instance_make(i.i < tm->count ? tm->next_sibling[i.i] : ECS__TF_NIL);
}

ECS_DEF ecs_instance ecs_transform_prev_sibling(const ecs_transform_manager *tm, ecs_instance i)
{
    return ecs_instance_make(i.i < tm->count ? tm->prev_sibling[i.i] : ECS__TF_NIL);
}

ECS_DEF ecs_result ecs_transform_set_local(ecs_transform_manager *tm, ecs_instance inst, const ecs_mat4 *m)
{
    uint32_t i = inst.i;
    if (i >= tm->count || !m)
        return ecs_error_set(&tm->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_transform_set_local: instance %u out of range (count %u) or NULL matrix",
                             (unsigned)i, (unsigned)tm->count);
    if (tm->mode == ECS_TRANSFORM_DEFERRED) {
        ecs_result r = ecs__tf_touch(tm, i);
        if (r != ECS_OK) return r;
        tm->local[i] = *m;
        return ECS_OK;
    }
    tm->local[i] = *m;
    ecs__tf_update_subtree(tm, i);
    return ECS_OK;
}

/* set_local_many's marks: (stamp << 2) | code, valid for one call. */
#define ECS__TF_CHANGED 0u /* local written in this call */
#define ECS__TF_DONE 1u    /* changed, and its subtree was updated */
#define ECS__TF_CLEAR 2u   /* unchanged, no changed ancestor */
#define ECS__TF_COVERED 3u /* unchanged, below a changed node */

/* set_local_many, step 1: checks every instance, then (deferred mode) records
   the changes, or (immediate mode) writes the locals and marks them changed
   under a new stamp, *stamp (0: nothing more to do). */
static ecs_result ecs__tf_many_prepare(ecs_transform_manager *tm, uint32_t n, const ecs_instance *nodes,
                                       const ecs_mat4 *locals, uint32_t *stamp)
{
    uint32_t k, s, *mark;
    *stamp = 0;
    if (n == 0) return ECS_OK;
    if (!nodes || !locals)
        return ecs_error_set(&tm->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_transform_set_local_many: NULL array");
    for (k = 0; k < n; ++k)
        if (nodes[k].i >= tm->count)
            return ecs_error_set(&tm->error, ECS_ERROR_INVALID_ARGUMENT,
                                 "ecs_transform_set_local_many: nodes[%u] = %u out of range (count %u)", (unsigned)k,
                                 (unsigned)nodes[k].i, (unsigned)tm->count);
    if (tm->mode == ECS_TRANSFORM_DEFERRED) {
        /* make room for every pending entry first, so that nothing fails half way */
        uint64_t need = (uint64_t)tm->num_pending + n;
        if (need > tm->pending_capacity) {
            uint32_t cap = tm->pending_capacity ? tm->pending_capacity : 64u, *p;
            while (cap < need && cap < 0x80000000u) cap *= 2u;
            p = cap >= need ? (uint32_t *)ECS__REALLOC(tm->pending, (size_t)cap * sizeof *p) : NULL;
            if (!p) return ecs_error_set(&tm->error, ECS_ERROR_OUT_OF_MEMORY, "ecs_transform_set_local_many: out of memory");
            tm->pending = p;
            tm->pending_capacity = cap;
        }
        for (k = 0; k < n; ++k) {
            (void)ecs__tf_touch(tm, nodes[k].i);
            tm->local[nodes[k].i] = locals[k];
        }
        return ECS_OK;
    }
    if (tm->mark_capacity < tm->count) {
        uint32_t *m = (uint32_t *)ECS__REALLOC(tm->mark, (size_t)tm->capacity * sizeof *m);
        if (!m) return ecs_error_set(&tm->error, ECS_ERROR_OUT_OF_MEMORY, "ecs_transform_set_local_many: out of memory");
        memset(m + tm->mark_capacity, 0, (size_t)(tm->capacity - tm->mark_capacity) * sizeof *m);
        tm->mark = m;
        tm->mark_capacity = tm->capacity;
    }
    mark = tm->mark;
    if (++tm->mark_stamp >= (1u << 30)) { /* stamps ran out: start again from clean marks */
        memset(mark, 0, (size_t)tm->mark_capacity * sizeof *mark);
        tm->mark_stamp = 1;
    }
    s = tm->mark_stamp << 2;
    for (k = 0; k < n; ++k) {
        tm->local[nodes[k].i] = locals[k];
        mark[nodes[k].i] = s | ECS__TF_CHANGED;
    }
    *stamp = s;
    return ECS_OK;
}

/* set_local_many, step 2, for each listed node i in turn: 1 when i is the top
   of a subtree to update (no ancestor changed; then marked done, so a node
   listed twice is a top once). A changed node is such a top when no ancestor
   changed. Each walk up stops at the first node with a mark, and marks the
   nodes it passed, so every node is walked over at most once. */
static int ecs__tf_many_top(ecs_transform_manager *tm, uint32_t s, uint32_t i)
{
    uint32_t *mark = tm->mark, x, y, covered = 0;
    if (mark[i] == (s | ECS__TF_DONE)) return 0; /* listed twice */
    for (x = tm->parent[i]; x != ECS__TF_NIL; x = tm->parent[x]) {
        uint32_t v = mark[x];
        if (v == (s | ECS__TF_CLEAR)) break;
        if ((v & ~3u) == s) {
            covered = 1;
            break;
        }
    }
    for (y = tm->parent[i]; y != x; y = tm->parent[y]) mark[y] = s | (covered ? ECS__TF_COVERED : ECS__TF_CLEAR);
    if (covered) return 0;
    mark[i] = s | ECS__TF_DONE;
    return 1;
}

ECS_DEF ecs_result ecs_transform_set_local_many(ecs_transform_manager *tm, uint32_t n, const ecs_instance *nodes,
                                                const ecs_mat4 *locals)
{
    uint32_t k, s;
    ecs_result r = ecs__tf_many_prepare(tm, n, nodes, locals, &s);
    if (r != ECS_OK || s == 0) return r;
    for (k = 0; k < n; ++k)
        if (ecs__tf_many_top(tm, s, nodes[k].i)) ecs__tf_update_subtree(tm, nodes[k].i);
    return ECS_OK;
}

ECS_DEF const ecs_mat4 *ecs_transform_local(const ecs_transform_manager *tm, ecs_instance i)
{
    return i.i < tm->count ? &tm->local[i.i] : NULL;
}

ECS_DEF const ecs_mat4 *ecs_transform_world(const ecs_transform_manager *tm, ecs_instance i)
{
    return i.i < tm->count ? &tm->world[i.i] : NULL;
}

ECS_DEF ecs_result ecs_transform_compute_world(const ecs_transform_manager *tm, ecs_instance i, ecs_mat4 *out)
{
    if (i.i >= tm->count || !out) return ECS_ERROR_INVALID_ARGUMENT;
    ecs__tf_current_world(tm, i.i, out);
    return ECS_OK;
}

/* Reorder, step 1: the depth-first walk. Visits the trees from each root in
   index order, children in list order, and writes for the k-th node visited
   (old instance x): order[k] = x, newpos[x] = k, and its links in the new
   layout a, which follow from the walk itself (the first child comes right
   after its parent; a next sibling is linked when it is reached), so no link
   is translated afterwards. Climbing reads the new arrays just written
   (a->parent, order), not the old ones. Each node's next sibling is
   prefetched when the node is reached, so the step to it after the subtree
   finds its links in cache. No stack: any depth. */
static void ecs__tf_reorder_walk(const ecs_transform_manager *tm, ecs__tf_arrays *a, uint32_t *order, uint32_t *newpos)
{
    const uint32_t n = tm->count, *fc = tm->first_child, *ns = tm->next_sibling;
    uint32_t *par = a->parent, *first = a->first_child, *next = a->next_sibling, *prev = a->prev_sibling;
    uint32_t r, t = 0;
    for (r = 0; r < n; ++r) {
        uint32_t x = r, tx, pt = ECS__TF_NIL, pv = ECS__TF_NIL;
        if (tm->parent[r] != ECS__TF_NIL) continue;
        for (;;) {
            uint32_t c = fc[x], s = ns[x];
            tx = t++;
            order[tx] = x;
            newpos[x] = tx;
            par[tx] = pt;
            prev[tx] = pv;
            first[tx] = next[tx] = ECS__TF_NIL;
            if (pv != ECS__TF_NIL) next[pv] = tx;
            else if (pt != ECS__TF_NIL) first[pt] = tx;
            if (s != ECS__TF_NIL) {
                ECS__TF_PREFETCH(&fc[s]);
                ECS__TF_PREFETCH(&ns[s]);
            }
            if (c != ECS__TF_NIL) { /* down to the first child */
                pt = tx, pv = ECS__TF_NIL, x = c;
                continue;
            }
            while (x != r && ns[x] == ECS__TF_NIL) tx = par[tx], x = order[tx]; /* up to a node with a next sibling */
            if (x == r) break;
            pv = tx, pt = par[tx], x = ns[x];
        }
    }
    ECS__TF_ASSERT(t == n);
}

/* Reorder, step 2: copies the data (matrices, entity, age) into the new
   layout in the walk's order; the source lines are random, so they are
   prefetched a few nodes ahead. */
static void ecs__tf_reorder_gather(const ecs_transform_manager *tm, ecs__tf_arrays *a, const uint32_t *order)
{
    const uint32_t n = tm->count, ahead = 8u;
    uint32_t t;
    for (t = 0; t < n; ++t) {
        uint32_t o = order[t];
        if (t + ahead < n) {
            uint32_t f = order[t + ahead];
            ECS__TF_PREFETCH(&tm->local[f]);
            ECS__TF_PREFETCH(&tm->world[f]);
            ECS__TF_PREFETCH(&tm->entity[f]);
        }
        a->local[t] = tm->local[o];
        a->world[t] = tm->world[o];
        a->entity[t] = tm->entity[o];
        a->age[t] = tm->age[o];
    }
}

ECS_DEF ecs_result ecs_transform_reorder(ecs_transform_manager *tm)
{
    uint32_t n = tm->count, *order;
    ecs__tf_arrays a;
    if (n == 0) {
        tm->first_dirty = 0;
        tm->num_pending = 0;
        return ECS_OK;
    }
    order = (uint32_t *)ECS__REALLOC(NULL, (size_t)n * 2u * sizeof *order);
    if (!order || !ecs__tf_alloc(n + 1u, &a)) { /* fitted: the nodes and the spare slot */
        ECS__FREE(order);
        return ecs_error_set(&tm->error, ECS_ERROR_OUT_OF_MEMORY, "ecs_transform_reorder: out of memory for %u instances",
                             (unsigned)n);
    }
    ecs__tf_reorder_walk(tm, &a, order, order + n);
    ecs__tf_reorder_gather(tm, &a, order);
    ecs__tf_adopt(tm, &a, n + 1u);
    ecs__tf_map_remap(tm, order + n);
    ECS__FREE(order);
    if (tm->mode == ECS_TRANSFORM_DEFERRED) {
        (void)ecs_transform_world_pass(tm);
        memset(tm->age, (int)ecs__tf_idle(tm), n);
        tm->first_dirty = n;
        tm->num_pending = 0;
    }
    return ECS_OK;
}

ECS_DEF int ecs_transform_world_pass(ecs_transform_manager *tm)
{
    ecs_mat4 *ECS__TF_RESTRICT w = tm->world;
    const ecs_mat4 *ECS__TF_RESTRICT l = tm->local;
    const uint32_t *par = tm->parent;
    uint32_t n = tm->count, i, r;
    for (i = 0; i < n; ++i) {
        uint32_t p = par[i];
        if (p < i) ecs__tf_mul(w[i].m, l[i].m, w[p].m);
        else if (p == ECS__TF_NIL) w[i] = l[i];
        else break; /* a parent after its child: walk the trees instead */
    }
    if (i == n) return 1;
    for (r = 0; r < n; ++r)
        if (par[r] == ECS__TF_NIL) ecs__tf_update_subtree(tm, r);
    return 0;
}

/* Commit step 2, when the sweep finds the node at i before its parent:
   puts a node whose parent comes earlier (or that has none) at i and
   returns that parent. Swaps the child with its parent, as the seed does
   (cheap when such children are few and shallow, as after nodes left the
   range); once the swaps have cost what laying out the whole range would
   (*swaps_left starts at half a swap per node: a swap is 3 moves, the
   layout about 1.5 a node), lays out the rest of the range depth-first in
   one pass instead (ecs__tf_relay). So a sweep makes O(range) moves for any
   order, where swaps alone make O(depth^2) for a chain listed children
   first. Only touches slots from i on. Kept out of line: the sweep's loop
   stays as tight as it was. */
ECS__TF_NOINLINE uint32_t ecs__tf_fix_order(ecs_transform_manager *tm, uint32_t i, uint32_t *swaps_left)
{
    uint32_t p;
    while ((p = tm->parent[i]) != ECS__TF_NIL && p > i) {
        if (*swaps_left == 0) {
            ecs__tf_relay(tm, i);
            p = tm->parent[i];
            ECS__TF_ASSERT(p == ECS__TF_NIL || p < i);
            return p;
        }
        --*swaps_left;
        ecs__tf_swap(tm, i, p);
    }
    return p;
}

/* Commit step 2: computes the worlds and ages of the dirty range in one
   sweep, parents first (ecs__tf_fix_order puts right a child found before
   its parent; everything before i is settled). The age is the number of
   commits since the node or a dirty ancestor changed, so a child is never
   older than its dirty parent. Returns 1 when some node reached idle_frames.
   worlds == 0 (ecs_transform_commit_jobs): the same order and ages, no world
   (the worlds of the range are computed afterwards, across threads). */
ECS__TF_INLINE int ecs__tf_sweep(ecs_transform_manager *tm, int worlds)
{
    const uint32_t fd = tm->first_dirty, n = tm->count, idle = ecs__tf_idle(tm);
    uint32_t i, swaps_left = (n - fd) / 2u;
    int leaving = 0;
    for (i = fd; i < n; ++i) {
        uint32_t p = tm->parent[i], a;
        if (p != ECS__TF_NIL && p > i) p = ecs__tf_fix_order(tm, i, &swaps_left);
        a = tm->age[i] + 1u;
        ECS__TF_COUNT(ecs__tf_count_worlds, worlds);
        if (p == ECS__TF_NIL) {
            if (worlds) tm->world[i] = tm->local[i];
        } else {
            if (p >= fd && tm->age[p] < a) a = tm->age[p];
            if (worlds) ecs__tf_mul(tm->world[i].m, tm->local[i].m, tm->world[p].m);
        }
        tm->age[i] = (uint8_t)(a > 255u ? 255u : a);
        leaving |= a >= idle;
    }
    return leaving;
}

/* Commit step 1: the nodes changed since the last commit (and their
   subtrees) into the dirty range. */
static void ecs__tf_commit_gather(ecs_transform_manager *tm)
{
    uint32_t k, i;
    for (k = 0; k < tm->num_pending; ++k) {
        i = ecs__tf_find(tm, tm->pending[k]);
        if (i != ECS__TF_NIL && i < tm->first_dirty) ecs__tf_insert_subtree(tm, i);
    }
    tm->num_pending = 0;
}

/* Commit step 3: nodes unchanged for idle_frames commits leave the range
   (their dirty parents are at least as old, so they leave too). */
static void ecs__tf_commit_leave(ecs_transform_manager *tm)
{
    uint32_t i, idle = ecs__tf_idle(tm), n = tm->count;
    for (i = tm->first_dirty; i < n; ++i)
        if (tm->age[i] >= idle) {
            ecs__tf_swap(tm, i, tm->first_dirty); /* the node from first_dirty was seen already */
            ++tm->first_dirty;
        }
}

ECS_DEF void ecs_transform_commit(ecs_transform_manager *tm)
{
    if (tm->mode != ECS_TRANSFORM_DEFERRED) return;
    ecs__tf_commit_gather(tm);
    if (ecs__tf_sweep(tm, 1)) ecs__tf_commit_leave(tm);
}

/* ---- threads: the world pass, commit and set_local_many across cores --------
   A span of nodes [begin, end) in parents-first order is cut into ranges of
   about ECS__TF_GRAIN nodes (so the ranges depend on the span only, never on
   the number of workers), each range a task. A cut is moved to the first
   node within ECS__TF_CUT_SCAN after it whose parent lies outside the span
   (a root, or a clean node in commit): then the range starts with whole
   subtrees. Where there is none (inside a huge tree), the range starts
   inside a subtree. A node whose parent lies in an earlier range takes the
   parent's world from the task's own chain: the worlds of that parent and
   its ancestors within the span (at most ECS__TF_CHAIN_MAX), recomputed on
   the task's stack top first with the same kernel. In depth-first order
   (after reorder) those parents are the ancestors of the range's first
   node, one chain; in other orders (commit's dirty range) a task rebuilds
   its chain as it meets other parents, while the extra products stay
   within a quarter of its range. So a task never reads a world another
   task writes, and there is no barrier. A task that cannot go on (the
   budget spent, a chain deeper than ECS__TF_CHAIN_MAX, a parent after its
   child) stops; the calling thread then computes the rest of each stopped
   range, in range order, after every task has finished. Every world is
   local * (the parent's world) with the one kernel, so the result is bit
   for bit the serial one, whatever ran where. */

#define ECS__TF_GRAIN 16384u    /* nodes per task */
#define ECS__TF_CUT_SCAN 256u   /* nodes searched for a subtree start after a cut */
#define ECS__TF_CHAIN_MAX 64u   /* ancestors a task recomputes (4 KB of stack) */
#define ECS__TF_MANY_BATCH 2048u /* set_local_many_jobs: subtree tops per parallel call */

typedef struct ecs__tf_pass {
    ecs_transform_manager *tm;
    uint32_t begin, end;  /* the span */
    uint32_t clean;       /* parents below it are outside the span: their stored world is current */
    uint32_t grain, tasks;
    uint32_t stop[ECS_JOBS_MAX_TASKS]; /* per task: the first node it did not compute */
} ecs__tf_pass;

/* Where range k starts: its nominal start, or the first node after it (within
   ECS__TF_CUT_SCAN) whose parent is outside the span. */
static uint32_t ecs__tf_cut(const ecs__tf_pass *ps, uint32_t k)
{
    const uint32_t *par = ps->tm->parent;
    uint32_t x, lim, j;
    if (k == 0) return ps->begin;
    if (k >= ps->tasks) return ps->end;
    x = ps->begin + k * ps->grain;
    if (x >= ps->end) return ps->end;
    lim = ps->end - x > ECS__TF_CUT_SCAN ? x + ECS__TF_CUT_SCAN : ps->end;
    for (j = x; j < lim; ++j)
        if (par[j] == ECS__TF_NIL || par[j] < ps->clean) return j;
    return x;
}

/* The worlds of x and its ancestors inside the span, x first: anc[0] = x,
   anc[1] = parent(x), ... up to the first ancestor outside the span (a root,
   or a clean node), each computed top first with the one kernel, exactly
   as the serial pass computes it. Returns how many, or 0 when there are
   more than ECS__TF_CHAIN_MAX or a parent comes after its child. */
static uint32_t ecs__tf_chain_worlds(const ecs__tf_pass *ps, uint32_t x, uint32_t *anc, ecs_mat4 *cw)
{
    const ecs_transform_manager *tm = ps->tm;
    uint32_t len = 0, j, p;
    for (; x != ECS__TF_NIL && x >= ps->clean; x = p) {
        p = tm->parent[x];
        if (len == ECS__TF_CHAIN_MAX || (p != ECS__TF_NIL && p >= x)) return 0;
        anc[len++] = x;
    }
    for (j = len; j-- > 0;) {
        uint32_t q = tm->parent[anc[j]];
        if (j + 1u < len) ecs__tf_mul(cw[j].m, tm->local[anc[j]].m, cw[j + 1u].m);
        else if (q == ECS__TF_NIL) cw[j] = tm->local[anc[j]];
        else ecs__tf_mul(cw[j].m, tm->local[anc[j]].m, tm->world[q].m);
    }
    return len;
}

/* A range task's chain: the worlds of a parent in an earlier range and of
   its ancestors within the span (ecs__tf_chain_worlds), and what the task
   may still spend on rebuilding it. */
typedef struct ecs__tf_chain {
    uint32_t anc[ECS__TF_CHAIN_MAX], len, budget;
    ecs_mat4 cw[ECS__TF_CHAIN_MAX];
} ecs__tf_chain;

/* Node i's world when its parent p lies in an earlier range (p < s): from
   the chain, rebuilt from p when p is not in it. Returns 0 when the task
   must stop (the budget spent, the chain too deep, a parent after its
   child). Out of line: the range's loop stays as tight as the serial
   pass's. */
ECS__TF_NOINLINE int ecs__tf_chain_node(const ecs__tf_pass *ps, ecs__tf_chain *ch, uint32_t i, uint32_t p)
{
    ecs_transform_manager *tm = ps->tm;
    uint32_t j;
    for (j = 0; j < ch->len && ch->anc[j] != p; ++j) {
    }
    if (j == ch->len) {
        if (ch->budget < ECS__TF_CHAIN_MAX) return 0;
        ch->len = ecs__tf_chain_worlds(ps, p, ch->anc, ch->cw);
        ch->budget -= ch->len;
        if (ch->len == 0) return 0;
        j = 0;
    }
    ecs__tf_mul(tm->world[i].m, tm->local[i].m, ch->cw[j].m);
    return 1;
}

/* One range's worlds; returns the first node not computed (e when all). A
   node whose parent p lies in an earlier range takes p's world from the
   task's chain, while the extra products stay within a quarter of the range
   (ranges that start inside a tree in depth-first order need one chain;
   other orders may need many). */
static uint32_t ecs__tf_pass_range(const ecs__tf_pass *ps, uint32_t s, uint32_t e)
{
    ecs_transform_manager *tm = ps->tm;
    ecs_mat4 *ECS__TF_RESTRICT w = tm->world;
    const ecs_mat4 *ECS__TF_RESTRICT l = tm->local;
    const uint32_t *par = tm->parent, clean = ps->clean;
    uint32_t i;
    ecs__tf_chain ch;
    ch.len = 0;
    ch.budget = ECS__TF_CHAIN_MAX + (e - s) / 4u;
    for (i = s; i < e; ++i) {
        uint32_t p = par[i];
        if (p - s < i - s || p < clean) { /* parent in this range before i, or clean */
            ecs__tf_mul(w[i].m, l[i].m, w[p].m);
        } else if (p == ECS__TF_NIL) {
            w[i] = l[i];
        } else if (p > i || !ecs__tf_chain_node(ps, &ch, i, p)) {
            return i;
        }
    }
    return e;
}

static void ecs__tf_pass_task(void *user, uint32_t k)
{
    ecs__tf_pass *ps = (ecs__tf_pass *)user;
    ps->stop[k] = ecs__tf_pass_range(ps, ecs__tf_cut(ps, k), ecs__tf_cut(ps, k + 1u));
}

/* The worlds of [begin, end) across jobs. Returns 1, or 0 when a node comes
   before its parent (the caller then walks the trees). */
static int ecs__tf_pass_run(ecs_transform_manager *tm, uint32_t begin, uint32_t end, uint32_t clean,
                            const ecs_jobs *jobs)
{
    ecs__tf_pass ps;
    uint32_t k, n = end - begin;
    if (n == 0) return 1;
    ps.tm = tm;
    ps.begin = begin;
    ps.end = end;
    ps.clean = clean;
    ps.tasks = (n + ECS__TF_GRAIN - 1u) / ECS__TF_GRAIN;
    if (ps.tasks > ECS_JOBS_MAX_TASKS) ps.tasks = ECS_JOBS_MAX_TASKS;
    ps.grain = (n + ps.tasks - 1u) / ps.tasks;
    ecs_jobs_run(jobs, ps.tasks, ecs__tf_pass_task, &ps, NULL);
    for (k = 0; k < ps.tasks; ++k) { /* the rest of the stopped ranges, in order: every parent is done */
        uint32_t i, e = ecs__tf_cut(&ps, k + 1u);
        for (i = ps.stop[k]; i < e; ++i) {
            uint32_t p = tm->parent[i];
            if (p == ECS__TF_NIL) tm->world[i] = tm->local[i];
            else if (p < i) ecs__tf_mul(tm->world[i].m, tm->local[i].m, tm->world[p].m);
            else return 0;
        }
    }
    return 1;
}

ECS_DEF int ecs_transform_world_pass_jobs(ecs_transform_manager *tm, const ecs_jobs *jobs)
{
    if (ecs__tf_pass_run(tm, 0, tm->count, 0, jobs)) return 1;
    return ecs_transform_world_pass(tm); /* not parents first: walks the trees (0) */
}

ECS_DEF void ecs_transform_commit_jobs(ecs_transform_manager *tm, const ecs_jobs *jobs)
{
    int leaving, ok;
    if (tm->mode != ECS_TRANSFORM_DEFERRED) return;
    ecs__tf_commit_gather(tm);
    leaving = ecs__tf_sweep(tm, 0); /* the serial commit's order and ages */
    ok = ecs__tf_pass_run(tm, tm->first_dirty, tm->count, tm->first_dirty, jobs);
    ECS__TF_ASSERT(ok); /* the sweep left the range parents first */
    (void)ok;
    ECS__TF_COUNT(ecs__tf_count_worlds, tm->count - tm->first_dirty);
    if (leaving) ecs__tf_commit_leave(tm);
}

typedef struct ecs__tf_many_job {
    ecs_transform_manager *tm;
    const uint32_t *top;
    uint32_t num_tops, tasks;
} ecs__tf_many_job;

static void ecs__tf_many_task(void *user, uint32_t k)
{
    const ecs__tf_many_job *mj = (const ecs__tf_many_job *)user;
    uint32_t a = (uint32_t)((uint64_t)mj->num_tops * k / mj->tasks), b = (uint32_t)((uint64_t)mj->num_tops * (k + 1u) / mj->tasks);
    for (; a < b; ++a) ecs__tf_update_subtree(mj->tm, mj->top[a]);
}

/* Updates the subtrees of top[0..n) (disjoint: no top is below another). */
static void ecs__tf_many_flush(ecs_transform_manager *tm, const uint32_t *top, uint32_t n, const ecs_jobs *jobs)
{
    ecs__tf_many_job mj;
    mj.tm = tm;
    mj.top = top;
    mj.num_tops = n;
    mj.tasks = n < 64u ? n : 64u;
    if (n) ecs_jobs_run(jobs, mj.tasks, ecs__tf_many_task, &mj, NULL);
}

ECS_DEF ecs_result ecs_transform_set_local_many_jobs(ecs_transform_manager *tm, uint32_t n, const ecs_instance *nodes,
                                                     const ecs_mat4 *locals, const ecs_jobs *jobs)
{
    uint32_t top[ECS__TF_MANY_BATCH], num_tops = 0, k, s;
    ecs_result r = ecs__tf_many_prepare(tm, n, nodes, locals, &s);
    if (r != ECS_OK || s == 0) return r;
    for (k = 0; k < n; ++k) {
        if (!ecs__tf_many_top(tm, s, nodes[k].i)) continue;
        top[num_tops++] = nodes[k].i;
        if (num_tops == ECS__TF_MANY_BATCH) {
            ecs__tf_many_flush(tm, top, num_tops, jobs);
            num_tops = 0;
        }
    }
    ecs__tf_many_flush(tm, top, num_tops, jobs);
    return ECS_OK;
}

/* ---- spawning --------------------------------------------------------------------- */

/* Spawn. The usual path is two passes over the batch: positions (at[k], the
   batch position of resource entity k; catches bad and repeated indices),
   then append, which checks each instance as it stores it and, on a
   failure, takes out what it appended (last first: that moves nothing and
   restores the links and the map exactly). Append stops short at a dense
   slot held by another id (a dead entity whose index the batch reuses): that
   transform must go, which cannot be undone, so then the whole batch is
   checked first without changing anything (the map's slots are marked to
   catch two entities of one index, and a parent's entity that is a batch
   entity: append catches that one when it looks the parent up, or once
   all are stored if the parent came first), the transforms in the way are
   destroyed, and append runs again (it cannot fail then). Allocation comes
   before any change: the scratch, the arrays and the hash map up front; the
   dense map grows inside a pass before that pass changes anything. */

#define ECS__TF_MARK 0x80000000u /* never set in a stored id (the top bits are masked off) */

static ecs_result ecs__tf_spawn_reserve(ecs_transform_manager *tm, const ecs_spawn_context *ctx, uint32_t num)
{
    if (ecs__tf_grow(tm, tm->count + num + 1u) != ECS_OK ||
        (tm->map.kind == ECS_LOOKUP_HASH && ecs_entity_map_reserve(&tm->map, tm->map.count + num, 0, &tm->error) != ECS_OK))
        return ecs_error_set(ctx->error, ECS_ERROR_OUT_OF_MEMORY, "transform spawn: out of memory for %u instances (%s)",
                             (unsigned)num, tm->error.message);
    return ECS_OK;
}

/* at[k] = position in the batch of resource entity k's instance, NIL for none. */
static ecs_result ecs__tf_spawn_positions(const ecs_spawn_context *ctx, uint32_t num, const uint32_t *entity_index,
                                          uint32_t *at)
{
    uint32_t j;
    memset(at, 0xFF, (size_t)ctx->num_entities * sizeof *at);
    for (j = 0; j < num; ++j) {
        uint32_t k = entity_index[j];
        if (k >= ctx->num_entities)
            return ecs_error_set(ctx->error, ECS_ERROR_INVALID_ARGUMENT,
                                 "transform spawn: entity_index[%u] = %u out of range (%u entities)", (unsigned)j,
                                 (unsigned)k, (unsigned)ctx->num_entities);
        if (at[k] != ECS__TF_NIL)
            return ecs_error_set(ctx->error, ECS_ERROR_ALREADY_EXISTS, "transform spawn: resource entity %u has two transforms",
                                 (unsigned)k);
        at[k] = j;
    }
    return ECS_OK;
}

/* Resource entity k's entity (key) is not alive in tm's world: the error. */
ECS__TF_NOINLINE ecs_result ecs__tf_spawn_not_alive(const ecs_spawn_context *ctx, uint32_t k, uint32_t key)
{
    char who[ECS_ENTITY_TEXT_SIZE];
    return ecs_error_set(ctx->error, ECS_ERROR_INVALID_ARGUMENT,
                         "transform spawn: the entity of resource entity %u, %s, is not alive in the manager's world "
                         "(destroyed, or never created there)", (unsigned)k,
                         ecs_entity_format(who, sizeof who, ecs__as_entity(key)));
}

/* The checks of resource entity k's instance that need no map (in a world:
   its entity is alive there, as create asks): ECS_OK or
   ECS_ERROR_INVALID_ARGUMENT. */
ECS__TF_INLINE ecs_result ecs__tf_spawn_check_entity(const ecs_transform_manager *tm, const ecs_spawn_context *ctx,
                                                     uint32_t k, uint32_t key)
{
    uint32_t pk = ctx->parent_index[k];
    if ((key & ECS_INDEX_MASK) == 0 || (pk != ECS_SPAWN_ROOT && pk >= ctx->num_entities))
        return ecs_error_set(ctx->error, ECS_ERROR_INVALID_ARGUMENT,
                             "transform spawn: resource entity %u has a nil entity or a bad parent", (unsigned)k);
    if (tm->entities && !ecs_entity_live(tm->entities, ecs__as_entity(key))) return ecs__tf_spawn_not_alive(ctx, k, key);
    return ECS_OK;
}

static ecs_result ecs__tf_spawn_exists(const ecs_spawn_context *ctx, uint32_t k)
{
    return ecs_error_set(ctx->error, ECS_ERROR_ALREADY_EXISTS,
                         "transform spawn: the entity of resource entity %u already has a transform (or is listed twice, or shares its index)",
                         (unsigned)k);
}

/* Dense, standalone: resource entity k's id is dead (a later id of its
   index holds the slot): the error. */
ECS__TF_NOINLINE ecs_result ecs__tf_spawn_dead(const ecs_spawn_context *ctx, uint32_t k, uint32_t key, uint32_t owner)
{
    char who[ECS_ENTITY_TEXT_SIZE], whose[ECS_ENTITY_TEXT_SIZE];
    return ecs_error_set(ctx->error, ECS_ERROR_INVALID_ARGUMENT,
                         "transform spawn: resource entity %u's id %s is dead: its index's slot belongs to %s, a later id",
                         (unsigned)k, ecs_entity_format(who, sizeof who, ecs__as_entity(key)),
                         ecs_entity_format(whose, sizeof whose, ecs__as_entity(owner)));
}

/* Resource entity k's parent pk has no instance in the batch, but its
   entity has one (an entity listed twice: linking would put a node under
   itself or its own batch): the error. */
ECS__TF_NOINLINE ecs_result ecs__tf_spawn_twice(const ecs_spawn_context *ctx, uint32_t k, uint32_t pk)
{
    char who[ECS_ENTITY_TEXT_SIZE];
    return ecs_error_set(ctx->error, ECS_ERROR_ALREADY_EXISTS,
                         "transform spawn: %s, the entity of resource entity %u (the parent of %u), is also the entity of an "
                         "instance of the batch (an entity listed twice)",
                         ecs_entity_format(who, sizeof who, ctx->entity[pk]), (unsigned)pk, (unsigned)k);
}

/* Dense: grows the table to cover index idx (keeping its contents): ECS_OK,
   or ECS_ERROR_OUT_OF_MEMORY with ctx->error set. */
ECS__TF_NOINLINE ecs_result ecs__tf_spawn_grow_map(ecs_transform_manager *tm, const ecs_spawn_context *ctx, uint32_t idx)
{
    if (ecs_entity_map_reserve(&tm->map, 0, idx, &tm->error) == ECS_OK) return ECS_OK;
    return ecs_error_set(ctx->error, ECS_ERROR_OUT_OF_MEMORY, "transform spawn: %s", tm->error.message);
}

/* Dense: key's slot, the table grown to cover it first; NULL when that fails
   (ctx->error set). */
ECS__TF_INLINE ecs_entity_map_slot *ecs__tf_spawn_slot(ecs_transform_manager *tm, const ecs_spawn_context *ctx, uint32_t key)
{
    uint32_t idx = key & ECS_INDEX_MASK;
    if (idx > tm->map.mask && ecs__tf_spawn_grow_map(tm, ctx, idx) != ECS_OK) return NULL;
    return &tm->map.slots[idx];
}

/* The slow path's check of the parents outside the batch (dense, every
   batch slot marked, its `first` the batch position): a parent's entity that
   is a batch entity too is listed twice. */
static ecs_result ecs__tf_spawn_check_parents(const ecs_transform_manager *tm, const ecs_spawn_context *ctx, uint32_t num,
                                              const uint32_t *entity_index, const uint32_t *at)
{
    uint32_t j;
    for (j = 0; j < num; ++j) {
        uint32_t k = entity_index[j], pk = ctx->parent_index[k], pkey, idx;
        const ecs_entity_map_slot *s;
        if (pk == ECS_SPAWN_ROOT || at[pk] != ECS__TF_NIL) continue;
        pkey = ecs_entity_key(ctx->entity[pk]);
        idx = pkey & ECS_INDEX_MASK;
        if (idx > tm->map.mask || !((s = &tm->map.slots[idx])->id & ECS__TF_MARK)) continue;
        if (ecs_entity_key(ctx->entity[entity_index[s->first]]) == pkey) return ecs__tf_spawn_twice(ctx, k, pk);
    }
    return ECS_OK;
}

/* The slow path's check of the whole batch: ECS_OK with *stale = how many
   batch slots other ids hold (dense), or the error; either way nothing
   changed (the marks are cleared again). While marked, a batch slot's
   `first` is its batch position, the one it held kept in the parent array
   past count (free until append writes it). */
static ecs_result ecs__tf_spawn_check(ecs_transform_manager *tm, const ecs_spawn_context *ctx, uint32_t num,
                                      const uint32_t *entity_index, const uint32_t *at, uint32_t *stale)
{
    uint32_t j, marked = 0;
    ecs_result r = ECS_OK;
    *stale = 0;
    for (j = 0; j < num && r == ECS_OK; ++j) {
        uint32_t k = entity_index[j], key = ecs_entity_key(ctx->entity[k]);
        ecs_entity_map_slot *s;
        if ((r = ecs__tf_spawn_check_entity(tm, ctx, k, key)) != ECS_OK) break;
        if (tm->map.kind != ECS_LOOKUP_DENSE) {
            if (ecs__tf_find(tm, key) != ECS__TF_NIL) r = ecs__tf_spawn_exists(ctx, k);
        } else if (!(s = ecs__tf_spawn_slot(tm, ctx, key))) {
            r = ECS_ERROR_OUT_OF_MEMORY;
        } else if ((s->id & ECS__TF_MARK) || s->id == key) {
            r = ecs__tf_spawn_exists(ctx, k);
        } else if (s->id != 0 && !tm->entities && !ecs__id_supersedes(key, s->id)) {
            r = ecs__tf_spawn_dead(ctx, k, key, s->id);
        } else {
            *stale += s->id != 0;
            s->id |= ECS__TF_MARK;
            tm->parent[tm->count + j] = s->first;
            s->first = j;
            marked = j + 1u;
        }
    }
    if (r == ECS_OK && tm->map.kind == ECS_LOOKUP_DENSE) r = ecs__tf_spawn_check_parents(tm, ctx, num, entity_index, at);
    for (j = 0; j < marked; ++j) { /* one slot each (a second entity of an index fails), none past the table */
        ecs_entity_map_slot *s = &tm->map.slots[ctx->entity[entity_index[j]].id & ECS_INDEX_MASK];
        s->id &= ~ECS__TF_MARK;
        s->first = tm->parent[tm->count + j];
    }
    return r;
}

/* Dense: destroys the transforms whose slots the batch's entities take. */
static void ecs__tf_spawn_drop_stale(ecs_transform_manager *tm, const ecs_spawn_context *ctx, uint32_t num,
                                     const uint32_t *entity_index)
{
    uint32_t j, stale;
    for (j = 0; j < num; ++j)
        if ((stale = ecs__tf_stale_owner(tm, ecs_entity_key(ctx->entity[entity_index[j]]))) != 0)
            (void)ecs__tf_drop_stale(tm, stale, ECS__TF_NIL);
}

/* Enters key -> i in the map: ECS_OK, ECS_ERROR_ALREADY_EXISTS, out of
   memory (dense growth), or ECS_OK with *stale set and nothing done (a
   dense slot held by another id). */
ECS__TF_INLINE ecs_result ecs__tf_spawn_enter(ecs_transform_manager *tm, const ecs_spawn_context *ctx, uint32_t k, uint32_t key,
                                      uint32_t i, int *stale)
{
    ecs_entity_map_slot *s;
    if (tm->map.kind != ECS_LOOKUP_DENSE) {
        if (ecs__tf_find(tm, key) != ECS__TF_NIL) return ecs__tf_spawn_exists(ctx, k);
        ecs__tf_map_enter(tm, key, i); /* room reserved up front */
        return ECS_OK;
    }
    if (!(s = ecs__tf_spawn_slot(tm, ctx, key))) return ECS_ERROR_OUT_OF_MEMORY;
    if (s->id == key) return ecs__tf_spawn_exists(ctx, k);
    if (s->id != 0) {
        *stale = 1;
        return ECS_OK;
    }
    ecs__tf_map_enter(tm, key, i);
    return ECS_OK;
}

/* Takes the batch's instances (n0 ..) out again, last first: one under an
   older node leaves that node's child list, each leaves the map; the links
   among batch nodes need no repair (they all go) and nothing moves, so the
   links and the map are as before. Reads no world and no link of a batch
   slot not stored yet (a parent listed after its child points there). */
static void ecs__tf_spawn_undo(ecs_transform_manager *tm, uint32_t n0)
{
    while (tm->count > n0) {
        uint32_t i = --tm->count;
        if (tm->parent[i] < n0) ecs__tf_detach(tm, i);
        ecs_entity_map_set(&tm->map, tm->entity[i].id, ECS__TF_NIL);
    }
}

/* After a complete append whose nodes include `cut` roots under a resource
   parent without a transform: such a parent's entity must not have got one
   in the batch since (listed twice, under another resource entity). */
static ecs_result ecs__tf_spawn_recheck(const ecs_transform_manager *tm, const ecs_spawn_context *ctx, uint32_t num,
                                        const uint32_t *entity_index, const uint32_t *at, uint32_t cut)
{
    uint32_t j, n0 = tm->count - num;
    for (j = 0; j < num && cut > 0; ++j) {
        uint32_t k = entity_index[j], pk = ctx->parent_index[k], p;
        if (pk == ECS_SPAWN_ROOT || at[pk] != ECS__TF_NIL || tm->parent[n0 + j] != ECS__TF_NIL) continue;
        --cut;
        p = ecs__tf_find(tm, ecs_entity_key(ctx->entity[pk]));
        if (p != ECS__TF_NIL && p >= n0) return ecs__tf_spawn_twice(ctx, k, pk);
    }
    return ECS_OK;
}

/* Appends the batch as instances count.. (resource entity k's is count +
   at[k]), checking each: ECS_OK (*ordered cleared when a parent came after
   its child), or, with everything appended taken out again, an error or
   ECS_OK with *stale set (see above). */
/* A batch linked with some parents after their children: ECS_OK when every
   batch node's chain of parents leaves the batch (or ends at a root), else
   the error naming a node of the cycle (a hand-built context; a verified
   blob lists parents first). Marks in the batch's age bytes (0 on entry and
   on return): 1 on the chain walked now, 2 known to leave. O(num). */
static ecs_result ecs__tf_spawn_acyclic(ecs_transform_manager *tm, const ecs_spawn_context *ctx, uint32_t n0, uint32_t num,
                                        const uint32_t *entity_index)
{
    uint32_t j, x, cycle = ECS__TF_NIL;
    for (j = 0; j < num && cycle == ECS__TF_NIL; ++j) {
        for (x = n0 + j; x != ECS__TF_NIL && x >= n0 && tm->age[x] == 0; x = tm->parent[x]) tm->age[x] = 1;
        if (x != ECS__TF_NIL && x >= n0 && tm->age[x] == 1) cycle = x;
        for (x = n0 + j; x != ECS__TF_NIL && x >= n0 && tm->age[x] == 1; x = tm->parent[x]) tm->age[x] = 2;
    }
    memset(tm->age + n0, 0, num);
    if (cycle == ECS__TF_NIL) return ECS_OK;
    return ecs_error_set(ctx->error, ECS_ERROR_INVALID_ARGUMENT,
                         "transform spawn: resource entity %u is its own ancestor (the parent indices form a cycle)",
                         (unsigned)entity_index[cycle - n0]);
}

static ecs_result ecs__tf_spawn_append(ecs_transform_manager *tm, const ecs_spawn_context *ctx, uint32_t num,
                                       const uint32_t *entity_index, const unsigned char *src, const uint32_t *at,
                                       int *ordered, int *stale)
{
    const uint32_t n0 = tm->count;
    uint32_t j, cut = 0;
    int in_order = 1, in_the_way = 0;
    ecs_result r = ECS_OK;
    memset(tm->first_child + n0, 0xFF, (size_t)num * sizeof *tm->first_child);
    memset(tm->age + n0, 0, num);
    for (j = 0; j < num; ++j) {
        uint32_t i = n0 + j, k = entity_index[j], key = ecs_entity_key(ctx->entity[k]), pk = ctx->parent_index[k], p;
        if ((r = ecs__tf_spawn_check_entity(tm, ctx, k, key)) != ECS_OK ||
            (r = ecs__tf_spawn_enter(tm, ctx, k, key, i, &in_the_way)) != ECS_OK || in_the_way)
            break;
        tm->entity[i].id = key;
        tm->count = i + 1u; /* so that an undo sees this instance */
        memcpy(&tm->local[i], src + (size_t)j * ECS_RESOURCE_TRANSFORM_SIZE, sizeof(ecs_mat4));
        p = pk == ECS_SPAWN_ROOT ? ECS__TF_NIL : at[pk] != ECS__TF_NIL ? n0 + at[pk] : ecs__tf_find(tm, ecs_entity_key(ctx->entity[pk]));
        if (p == ECS__TF_NIL || (p >= n0 && at[pk] == ECS__TF_NIL)) {
            tm->parent[i] = tm->prev_sibling[i] = tm->next_sibling[i] = ECS__TF_NIL;
            tm->world[i] = tm->local[i];
            if (p != ECS__TF_NIL) {
                r = ecs__tf_spawn_twice(ctx, k, pk);
                break;
            }
            cut += pk != ECS_SPAWN_ROOT;
        } else {
            ecs__tf_attach(tm, i, p);
            if (p < i) ecs__tf_mul(tm->world[i].m, tm->local[i].m, tm->world[p].m);
            else in_order = 0;
        }
    }
    if (r == ECS_OK && !in_the_way && !in_order) r = ecs__tf_spawn_acyclic(tm, ctx, n0, num, entity_index);
    if (r == ECS_OK && !in_the_way && cut > 0) r = ecs__tf_spawn_recheck(tm, ctx, num, entity_index, at, cut);
    if (r != ECS_OK || in_the_way) ecs__tf_spawn_undo(tm, n0);
    *ordered = in_order;
    *stale = in_the_way;
    return r;
}

/* The two passes, and the slow path when a dense slot is in the way. */
static ecs_result ecs__tf_spawn_all(ecs_transform_manager *tm, const ecs_spawn_context *ctx, uint32_t num,
                                    const uint32_t *entity_index, const unsigned char *src, uint32_t *at, int *ordered)
{
    uint32_t in_the_way;
    int stale = 0;
    ecs_result r = ecs__tf_spawn_reserve(tm, ctx, num);
    if (r == ECS_OK) r = ecs__tf_spawn_positions(ctx, num, entity_index, at);
    if (r == ECS_OK) r = ecs__tf_spawn_append(tm, ctx, num, entity_index, src, at, ordered, &stale);
    if (r != ECS_OK || !stale) return r;
    if ((r = ecs__tf_spawn_check(tm, ctx, num, entity_index, at, &in_the_way)) != ECS_OK) return r;
    ecs__tf_spawn_drop_stale(tm, ctx, num, entity_index);
    r = ecs__tf_spawn_append(tm, ctx, num, entity_index, src, at, ordered, &stale);
    ECS__TF_ASSERT(r == ECS_OK && !stale && in_the_way > 0);
    return r;
}

ECS_DEF ecs_result ecs_transform_spawn(void *user, const ecs_spawn_context *ctx, uint32_t num,
                                       const uint32_t *entity_index, const void *data, uint32_t size)
{
    ecs_transform_manager *tm = (ecs_transform_manager *)user;
    ecs_error *err = ctx ? ctx->error : NULL;
    uint32_t j, n0, *at;
    int ordered = 1;
    ecs_result r;
    if (!tm || !ctx) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "transform spawn: NULL manager or context");
    if ((uint64_t)num * ECS_RESOURCE_TRANSFORM_SIZE != size)
        return ecs_error_set(err, ECS_ERROR_SPAWN_FAILED, "transform spawn: %u instances of 64 bytes need %llu bytes, block has %u",
                             (unsigned)num, (unsigned long long)num * ECS_RESOURCE_TRANSFORM_SIZE, (unsigned)size);
    if (num == 0) return ECS_OK;
    if (!entity_index || !data || !ctx->entity || !ctx->parent_index)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "transform spawn: NULL array");
    if ((uint64_t)tm->count + num + 1u >= 0xFFFFFFFFull)
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "transform spawn: too many instances");
    at = (uint32_t *)ECS__REALLOC(NULL, (size_t)(ctx->num_entities ? ctx->num_entities : 1u) * sizeof *at);
    if (!at) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "transform spawn: out of memory for %u entities",
                                  (unsigned)ctx->num_entities);
    r = ecs__tf_spawn_all(tm, ctx, num, entity_index, (const unsigned char *)data, at, &ordered);
    ECS__FREE(at);
    if (tm->mode == ECS_TRANSFORM_IMMEDIATE) tm->first_dirty = tm->count;
    if (r != ECS_OK || ordered) return r;
    n0 = tm->count - num;
    for (j = 0; j < num; ++j) { /* instances listed children first: walk from each batch root */
        uint32_t p = tm->parent[n0 + j];
        if (p == ECS__TF_NIL || p < n0) ecs__tf_update_subtree(tm, n0 + j);
    }
    return ECS_OK;
}

ECS_DEF void ecs_transform_unspawn(void *user, const ecs_spawn_context *ctx, uint32_t num, const uint32_t *entity_index,
                                   const void *data, uint32_t size)
{
    ecs_transform_manager *tm = (ecs_transform_manager *)user;
    uint32_t j;
    (void)data;
    (void)size;
    if (!tm || !ctx || !entity_index || !ctx->entity) return;
    for (j = num; j-- > 0;) {
        uint32_t k = entity_index[j];
        if (k < ctx->num_entities) (void)ecs_transform_destroy_entity(tm, ctx->entity[k]);
    }
}

/* ---- the world: the transform manager as an ecs_world store --------------- */

static ecs_instance ecs__tf_store_lookup(const void *store, ecs_entity e)
{
    return ecs_transform_lookup((const ecs_transform_manager *)store, e);
}

static ecs_instance ecs__tf_store_next(const void *store, ecs_instance i)
{
    (void)store;
    (void)i;
    return ecs_instance_nil();
}

static uint32_t ecs__tf_store_count(const void *store) { return ((const ecs_transform_manager *)store)->count; }

static ecs_entity ecs__tf_store_entity_at(const void *store, uint32_t i)
{
    return ecs_transform_entity((const ecs_transform_manager *)store, ecs_instance_make(i));
}

static uint32_t ecs__tf_store_destroy_entity(void *store, ecs_entity e)
{
    return (uint32_t)ecs_transform_destroy_entity((ecs_transform_manager *)store, e);
}

static uint32_t ecs__tf_store_collect(void *store, const ecs_entity_manager *em)
{
    return ecs_transform_collect((ecs_transform_manager *)store, em);
}

/* e's node, then its descendants depth-first, siblings in the order they
   were linked (a link puts a child first, so from the last child back by
   prev_sibling: a spawned resource's entities come back in resource
   order); climbing by parent: no stack, any depth, O(subtree). */
static uint32_t ecs__tf_store_subtree(const void *store, ecs_entity e, ecs_entity *out, uint32_t cap)
{
    const ecs_transform_manager *tm = (const ecs_transform_manager *)store;
    uint32_t root = ecs_transform_lookup(tm, e).i, i = root, n = 0;
    if (root == ECS__TF_NIL) return 0;
    for (;;) {
        if (n < cap) out[n] = tm->entity[i];
        ++n;
        if (tm->first_child[i] != ECS__TF_NIL) {
            for (i = tm->first_child[i]; tm->next_sibling[i] != ECS__TF_NIL;) i = tm->next_sibling[i];
            continue;
        }
        while (i != root && tm->prev_sibling[i] == ECS__TF_NIL) i = tm->parent[i];
        if (i == root) return n;
        i = tm->prev_sibling[i];
    }
}

static ecs_entity ecs__tf_store_parent_of(const void *store, ecs_entity e)
{
    const ecs_transform_manager *tm = (const ecs_transform_manager *)store;
    uint32_t i = ecs_transform_lookup(tm, e).i;
    if (i == ECS__TF_NIL || tm->parent[i] == ECS__TF_NIL) return ecs_entity_make(0, 0);
    return tm->entity[tm->parent[i]];
}

/* The 64-byte "transform" record: e's local matrix, or as a root its world
   matrix (deferred mode: as of the last commit). */
static uint32_t ecs__tf_store_spawn_record(const void *store, ecs_entity e, int as_root, void *out, uint32_t cap)
{
    const ecs_transform_manager *tm = (const ecs_transform_manager *)store;
    uint32_t i = ecs_transform_lookup(tm, e).i;
    if (i == ECS__TF_NIL) return 0;
    if (cap >= sizeof(ecs_mat4)) memcpy(out, as_root ? &tm->world[i] : &tm->local[i], sizeof(ecs_mat4));
    return (uint32_t)sizeof(ecs_mat4);
}

/* (in SNAPSHOTS below) */
static ecs_result ecs__tf_store_load(void *store, const void *data, size_t size, ecs_error *err);
static ecs_result ecs__tf_store_verify(const void *store, const void *data, size_t size, uint32_t max_index, size_t offset,
                                       ecs_error *err);
static void ecs__tf_store_visit_state(const void *store, ecs_state_visit_fn *visit, void *ctx);
static void ecs__tf_store_attach(void *store, const ecs_entity_manager *em)
{
    ((ecs_transform_manager *)store)->entities = em;
}

static const ecs_store_interface ecs__tf_store = {
    ecs__tf_store_lookup, ecs__tf_store_next, ecs__tf_store_count, ecs__tf_store_entity_at,
    ecs__tf_store_destroy_entity, ecs__tf_store_collect, ecs__tf_store_subtree, ecs_transform_spawn,
    ecs_transform_unspawn, ecs_transform_snapshot_save, ecs__tf_store_load, ecs_transform_snapshot_clear,
    ECS_TRANSFORM_SNAPSHOT_VERSION, ecs__tf_store_parent_of, ecs__tf_store_spawn_record, ecs_transform_snapshot_copy,
    ecs_transform_snapshot_save_selected, ecs__tf_store_verify, ecs__tf_store_visit_state, ecs__tf_store_attach};

ECS_DEF const ecs_store_interface *ecs_transform_store_interface(void) { return &ecs__tf_store; }

ECS_DEF ecs_result ecs_transform_world_register(ecs_world *w, const char *name, ecs_transform_manager *tm,
                                                ecs_error *err)
{
    if (w && tm && tm->entities && tm->entities != &w->entities) { /* in w: add_store names it */
        ecs_error_set(&w->error, ECS_ERROR_ALREADY_EXISTS,
                      "ecs_transform_world_register: the transform manager for '%s' is already registered in another world",
                      name ? name : "(null)");
        if (err) *err = w->error;
        return ECS_ERROR_ALREADY_EXISTS;
    }
    return ecs_world_add_store(w, name, tm, &ecs__tf_store, err);
}

/* ---- snapshots ------------------------------------------------------------ */

#define ECS__TF_SNAP_HEAD 10u /* words: count, mode, first_dirty, idle_frames, num_pending, rng,
                                 log_state, log_next, log_retired, lookup */
#define ECS__TF_SNAP_WORDS 38u /* words per instance: entity, 4 links, age, 2 x 16 floats */
#define ECS__TF_SNAP_AHEAD 64u /* map slots a load starts reading ahead of the one it writes */
#if defined(__GNUC__) || defined(__clang__)
#define ECS__TF_PREFETCH(p) __builtin_prefetch(p)
#else
#define ECS__TF_PREFETCH(p) ((void)(p))
#endif

static size_t ecs__tf_snap_size(uint32_t count, uint32_t pending)
{
    uint64_t words = ECS__TF_SNAP_HEAD + (uint64_t)count * ECS__TF_SNAP_WORDS + pending;
    return words * 4u > (uint64_t)SIZE_MAX ? 0u : (size_t)(words * 4u);
}

static unsigned char *ecs__tf_snap_put(unsigned char *at, const void *src, size_t n)
{
    if (n) memcpy(at, src, n);
    return at + n;
}

/* Whether tm's collect cursor may go with its state (a save, a clone): it
   reads the log of the world tm is in (or tm is standalone, or waits to
   adopt the next manager). A cursor left from another entity manager
   (collected elsewhere before it was registered here) does not: adopted by
   a loaded copy it read the wrong part of the new world's log. */
static int ecs__tf_log_travels(const ecs_transform_manager *tm)
{
    if (!tm->log.em) return 0;
    return tm->log.em == ECS__TF_LOG_ADOPT(tm) || !tm->entities ||
           (tm->log.em == tm->entities && tm->log.life == tm->entities->life);
}

/* The header words for count instances, first_dirty and num_pending. */
static void ecs__tf_snap_head_words(uint32_t *head, const ecs_transform_manager *tm, uint32_t count,
                                    uint32_t first_dirty, uint32_t num_pending)
{
    head[0] = count;
    head[1] = (uint32_t)tm->mode;
    head[2] = first_dirty;
    head[3] = tm->idle_frames;
    head[4] = num_pending;
    head[5] = tm->rng;
    head[6] = ecs__tf_log_travels(tm) ? 1u : 0u;
    head[7] = tm->log.next;
    head[8] = tm->log.retired;
    head[9] = (uint32_t)tm->map.kind;
}

static unsigned char *ecs__tf_snap_put_head(unsigned char *at, const ecs_transform_manager *tm, uint32_t count,
                                            uint32_t first_dirty, uint32_t num_pending)
{
    uint32_t head[ECS__TF_SNAP_HEAD];
    ecs__tf_snap_head_words(head, tm, count, first_dirty, num_pending);
    return ecs__tf_snap_put(at, head, sizeof head);
}

/* The ages as save writes them (32-bit words), a stack's worth at a time. */
static void ecs__tf_visit_ages(const ecs_transform_manager *tm, ecs_state_visit_fn *visit, void *ctx)
{
    uint32_t words[256], k = 0, j;
    while (k < tm->count) {
        uint32_t n = tm->count - k < 256u ? tm->count - k : 256u;
        for (j = 0; j < n; ++j) words[j] = tm->age[k + j];
        visit(ctx, words, (size_t)n * 4u);
        k += n;
    }
}

/* The store interface's visit_state: the bytes save writes, in its order,
   read in place (the ages widened to words as save writes them), for the
   world hash and ecs_snapshot_delta_from_world. */
static void ecs__tf_store_visit_state(const void *store, ecs_state_visit_fn *visit, void *ctx)
{
    const ecs_transform_manager *tm = (const ecs_transform_manager *)store;
    uint32_t head[ECS__TF_SNAP_HEAD];
    size_t n = tm->count;
    ecs__tf_snap_head_words(head, tm, tm->count, tm->first_dirty, tm->num_pending);
    visit(ctx, head, sizeof head);
    visit(ctx, tm->entity, n * 4u);
    visit(ctx, tm->parent, n * 4u);
    visit(ctx, tm->first_child, n * 4u);
    visit(ctx, tm->next_sibling, n * 4u);
    visit(ctx, tm->prev_sibling, n * 4u);
    ecs__tf_visit_ages(tm, visit, ctx);
    visit(ctx, tm->local, n * sizeof(ecs_mat4));
    visit(ctx, tm->world, n * sizeof(ecs_mat4));
    visit(ctx, tm->pending, (size_t)tm->num_pending * 4u);
}

ECS_DEF size_t ecs_transform_snapshot_save(const void *store, void *out, size_t cap)
{
    const ecs_transform_manager *tm = (const ecs_transform_manager *)store;
    size_t size = ecs__tf_snap_size(tm->count, tm->num_pending), n = tm->count;
    uint32_t k;
    unsigned char *at = (unsigned char *)out;
    if (!out) return size;
    if (cap < size || size == 0) return 0;
    at = ecs__tf_snap_put_head(at, tm, tm->count, tm->first_dirty, tm->num_pending);
    at = ecs__tf_snap_put(at, tm->entity, n * 4u);
    at = ecs__tf_snap_put(at, tm->parent, n * 4u);
    at = ecs__tf_snap_put(at, tm->first_child, n * 4u);
    at = ecs__tf_snap_put(at, tm->next_sibling, n * 4u);
    at = ecs__tf_snap_put(at, tm->prev_sibling, n * 4u);
    for (k = 0; k < tm->count; ++k) {
        uint32_t age = tm->age[k];
        at = ecs__tf_snap_put(at, &age, 4u);
    }
    at = ecs__tf_snap_put(at, tm->local, n * sizeof(ecs_mat4));
    at = ecs__tf_snap_put(at, tm->world, n * sizeof(ecs_mat4));
    (void)ecs__tf_snap_put(at, tm->pending, (size_t)tm->num_pending * 4u);
    return size;
}

/* -- a selection of entities (ecs_snapshot_desc's root) -- */

/* The first kept node (rank not nil) of the sibling list from i on, as its
   new index; nil when none. Over a whole save every node is stepped over at
   most once per direction: the walk from a kept node stops at the next kept
   one. */
static uint32_t ecs__tf_kept_sibling(const uint32_t *sibling, uint32_t i, const uint32_t *rank)
{
    while (i != ECS__TF_NIL && rank[i] == ECS__TF_NIL) i = sibling[i];
    return i == ECS__TF_NIL ? ECS__TF_NIL : rank[i];
}

/* Writes the link word of each kept node (a: 1 parent, 2 first_child, 3
   next_sibling, 4 prev_sibling), renumbered through rank (nil: left out);
   links to nodes left out skip them, and a node whose parent is left out is
   a root. */
static unsigned char *ecs__tf_snap_put_links(unsigned char *at, const ecs_transform_manager *tm, uint32_t a,
                                             const uint32_t *rank)
{
    uint32_t i;
    for (i = 0; i < tm->count; ++i) {
        uint32_t p = tm->parent[i], v = ECS__TF_NIL;
        int rooted = p == ECS__TF_NIL || rank[p] == ECS__TF_NIL;
        if (rank[i] == ECS__TF_NIL) continue;
        if (a == 1u) v = rooted ? ECS__TF_NIL : rank[p];
        else if (a == 2u) v = ecs__tf_kept_sibling(tm->next_sibling, tm->first_child[i], rank);
        else if (!rooted) v = ecs__tf_kept_sibling(a == 3u ? tm->next_sibling : tm->prev_sibling,
                                                   a == 3u ? tm->next_sibling[i] : tm->prev_sibling[i], rank);
        at = ecs__tf_snap_put(at, &v, 4u);
    }
    return at;
}

/* Deferred: 1 when kept node i becomes a root by the cut (its parent left
   out) while a change above it waits for commit: its stored world is stale,
   so the saved node is marked changed (age 0, pending) and the loaded
   manager's commit recomputes its subtree from the current world saved as
   its local. */
static int ecs__tf_cut_stale(const ecs_transform_manager *tm, const uint32_t *keep, uint32_t num_indices, uint32_t i)
{
    uint32_t p = tm->parent[i];
    return tm->mode == ECS_TRANSFORM_DEFERRED && p != ECS__TF_NIL && i < tm->first_dirty && tm->age[i] != 0 &&
           !ecs_entity_selected(keep, num_indices, tm->entity[p].id) && ecs__tf_stale_from(tm, p);
}

ECS_DEF size_t ecs_transform_snapshot_save_selected(const void *store, const uint32_t *keep, uint32_t num_indices,
                                                    void *out, size_t cap)
{
    const ecs_transform_manager *tm = (const ecs_transform_manager *)store;
    uint32_t i, k, n = 0, first_dirty = 0, pending = 0, *rank;
    unsigned char *at = (unsigned char *)out;
    size_t size;
    for (i = 0; i < tm->count; ++i) {
        if (!ecs_entity_selected(keep, num_indices, tm->entity[i].id)) continue;
        first_dirty += i < tm->first_dirty;
        pending += (uint32_t)ecs__tf_cut_stale(tm, keep, num_indices, i);
        ++n;
    }
    for (k = 0; k < tm->num_pending; ++k) pending += ecs_entity_selected(keep, num_indices, tm->pending[k]) ? 1u : 0u;
    size = ecs__tf_snap_size(n, pending);
    if (!out) return size;
    if (cap < size || size == 0) return 0;
    rank = (uint32_t *)ECS__REALLOC(NULL, ((size_t)tm->count + 1u) * sizeof *rank);
    if (!rank) return 0;
    for (i = 0, n = 0; i < tm->count; ++i) rank[i] = ecs_entity_selected(keep, num_indices, tm->entity[i].id) ? n++ : ECS__TF_NIL;
    at = ecs__tf_snap_put_head(at, tm, n, first_dirty, pending);
    for (i = 0; i < tm->count; ++i)
        if (rank[i] != ECS__TF_NIL) at = ecs__tf_snap_put(at, &tm->entity[i], 4u);
    for (k = 1; k <= 4u; ++k) at = ecs__tf_snap_put_links(at, tm, k, rank);
    for (i = 0; i < tm->count; ++i) {
        uint32_t age = ecs__tf_cut_stale(tm, keep, num_indices, i) ? 0u : tm->age[i];
        if (rank[i] != ECS__TF_NIL) at = ecs__tf_snap_put(at, &age, 4u);
    }
    for (i = 0; i < tm->count; ++i) { /* a root of the selection stands where it stands now (its current world) */
        uint32_t p = tm->parent[i];
        ecs_mat4 w;
        if (rank[i] == ECS__TF_NIL) continue;
        if (p == ECS__TF_NIL || rank[p] == ECS__TF_NIL) ecs__tf_current_world(tm, i, &w);
        else w = tm->local[i];
        at = ecs__tf_snap_put(at, &w, sizeof(ecs_mat4));
    }
    for (i = 0; i < tm->count; ++i)
        if (rank[i] != ECS__TF_NIL) at = ecs__tf_snap_put(at, &tm->world[i], sizeof(ecs_mat4));
    for (k = 0; k < tm->num_pending; ++k)
        if (ecs_entity_selected(keep, num_indices, tm->pending[k])) at = ecs__tf_snap_put(at, &tm->pending[k], 4u);
    for (i = 0; i < tm->count; ++i)
        if (rank[i] != ECS__TF_NIL && ecs__tf_cut_stale(tm, keep, num_indices, i)) at = ecs__tf_snap_put(at, &tm->entity[i], 4u);
    ECS__FREE(rank);
    return size;
}

/* Word k of array `a` (0 entity, 1 parent, 2 first_child, 3 next, 4 prev,
   5 age) of a saved state with n instances. */
static uint32_t ecs__tf_snap_word(const unsigned char *d, uint32_t n, uint32_t a, uint32_t k)
{
    uint32_t v;
    memcpy(&v, d + 4u * (ECS__TF_SNAP_HEAD + (size_t)a * n + k), 4);
    return v;
}

/* Saved bytes being checked: d (n instances) at offset base of a blob (0
   when they stand alone): messages name the blob's offsets. */
typedef struct ecs__tf_snap_in {
    const unsigned char *d;
    uint32_t n;
    size_t base;
} ecs__tf_snap_in;

static ecs_result ecs__tf_snap_bad(ecs_error *err, const ecs__tf_snap_in *in, uint32_t a, uint32_t k, const char *why)
{
    static const char *const names[6] = {"entity", "parent", "first_child", "next_sibling", "prev_sibling", "age"};
    return ecs_error_set(err, ECS_ERROR_CORRUPT_RESOURCE, "transform snapshot: offset %lu (%s[%u] = %u): %s",
                         (unsigned long)(in->base + 4u * (ECS__TF_SNAP_HEAD + (size_t)a * in->n + k)), names[a], (unsigned)k,
                         (unsigned)ecs__tf_snap_word(in->d, in->n, a, k), why);
}

/* No cycle through parents. state: n bytes of scratch, stack n words. */
static ecs_result ecs__tf_snap_acyclic(const ecs__tf_snap_in *in, uint8_t *state, uint32_t *stack, ecs_error *err)
{
    uint32_t i, n = in->n;
    memset(state, 0, n); /* 0 new, 1 on the current walk, 2 known to reach a root */
    for (i = 0; i < n; ++i) {
        uint32_t x = i, depth = 0;
        while (x != ECS__TF_NIL && state[x] == 0) {
            state[x] = 1;
            stack[depth++] = x;
            x = ecs__tf_snap_word(in->d, n, 1, x);
        }
        if (x != ECS__TF_NIL && state[x] == 1) return ecs__tf_snap_bad(err, in, 1, x, "a cycle through parents");
        while (depth) state[stack[--depth]] = 2;
    }
    return ECS_OK;
}

/* Links: in range, mutual, children lists holding exactly each node's
   children, no cycle through parents. Two walks are skipped when the order
   rules out what they look for, as a reordered manager's does: no ring of
   siblings can be when every next sibling comes after its node, and no
   cycle through parents when every parent comes before its children. */
static ecs_result ecs__tf_snap_links(const ecs__tf_snap_in *in, ecs_error *err)
{
    const unsigned char *d = in->d;
    uint32_t i, n = in->n, listed = 0, children = 0, *stack;
    int ordered = 1, siblings_ordered = 1;
    uint8_t *state;
    ecs_result r;
    for (i = 0; i < n; ++i) {
        uint32_t p = ecs__tf_snap_word(d, n, 1, i), c = ecs__tf_snap_word(d, n, 2, i);
        uint32_t nx = ecs__tf_snap_word(d, n, 3, i), pr = ecs__tf_snap_word(d, n, 4, i);
        if (p != ECS__TF_NIL && (p >= n || p == i)) return ecs__tf_snap_bad(err, in, 1, i, "not an instance");
        if (p == ECS__TF_NIL && (nx != ECS__TF_NIL || pr != ECS__TF_NIL)) return ecs__tf_snap_bad(err, in, 3, i, "a root with siblings");
        if (c != ECS__TF_NIL && (c >= n || ecs__tf_snap_word(d, n, 1, c) != i || ecs__tf_snap_word(d, n, 4, c) != ECS__TF_NIL))
            return ecs__tf_snap_bad(err, in, 2, i, "not a first child of this node");
        if (nx != ECS__TF_NIL && (nx >= n || ecs__tf_snap_word(d, n, 4, nx) != i || ecs__tf_snap_word(d, n, 1, nx) != p))
            return ecs__tf_snap_bad(err, in, 3, i, "not a sibling pointing back");
        if (pr != ECS__TF_NIL && (pr >= n || ecs__tf_snap_word(d, n, 3, pr) != i))
            return ecs__tf_snap_bad(err, in, 4, i, "not a sibling pointing back");
        if (p != ECS__TF_NIL && pr == ECS__TF_NIL && ecs__tf_snap_word(d, n, 2, p) != i)
            return ecs__tf_snap_bad(err, in, 4, i, "a first sibling its parent does not list first");
        if (ecs__tf_snap_word(d, n, 5, i) > 255u) return ecs__tf_snap_bad(err, in, 5, i, "more than 255");
        children += p != ECS__TF_NIL;
        ordered &= p == ECS__TF_NIL || p < i;
        siblings_ordered &= nx == ECS__TF_NIL || nx > i;
    }
    for (i = 0; i < n && !siblings_ordered; ++i) { /* walk every child list: together they hold every child once */
        uint32_t c;
        for (c = ecs__tf_snap_word(d, n, 2, i); c != ECS__TF_NIL && listed <= children; c = ecs__tf_snap_word(d, n, 3, c)) ++listed;
    }
    if (!siblings_ordered && listed != children)
        return ecs__tf_snap_bad(err, in, 3, 0, "the sibling lists do not hold every child once");
    if (ordered) return ECS_OK;
    state = (uint8_t *)ECS__REALLOC(NULL, (size_t)n + 1u);
    stack = (uint32_t *)ECS__REALLOC(NULL, ((size_t)n + 1u) * 4u);
    r = state && stack ? ecs__tf_snap_acyclic(in, state, stack, err)
                       : ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "transform snapshot: out of memory");
    ECS__FREE(state);
    ECS__FREE(stack);
    return r;
}

/* Reads the header words into h and checks them: the sizes, mode, lookup
   kind, dirty range and collect state (not yet against a manager). */
static ecs_result ecs__tf_snap_head(const unsigned char *d, size_t size, size_t base, uint32_t *h, ecs_error *err)
{
    if (size < 4u * ECS__TF_SNAP_HEAD)
        return ecs_error_set(err, ECS_ERROR_CORRUPT_RESOURCE, "transform snapshot: offset %lu (header): %lu bytes, the header has 40",
                             (unsigned long)base, (unsigned long)size);
    memcpy(h, d, 4u * ECS__TF_SNAP_HEAD);
    if ((uint64_t)h[0] * ECS__TF_SNAP_WORDS + h[4] > (size - 4u * ECS__TF_SNAP_HEAD) / 4u ||
        ecs__tf_snap_size(h[0], h[4]) != size || h[0] >= 0xFFFFFFFDu)
        return ecs_error_set(err, ECS_ERROR_CORRUPT_RESOURCE,
                             "transform snapshot: offset %lu (count %u, num_pending %u): %lu bytes do not fit them",
                             (unsigned long)base, (unsigned)h[0], (unsigned)h[4], (unsigned long)size);
    if (h[1] != (uint32_t)ECS_TRANSFORM_IMMEDIATE && h[1] != (uint32_t)ECS_TRANSFORM_DEFERRED)
        return ecs_error_set(err, ECS_ERROR_CORRUPT_RESOURCE, "transform snapshot: offset %lu (mode): mode %u",
                             (unsigned long)(base + 4u), (unsigned)h[1]);
    if (h[9] != (uint32_t)ECS_LOOKUP_HASH && h[9] != (uint32_t)ECS_LOOKUP_DENSE)
        return ecs_error_set(err, ECS_ERROR_CORRUPT_RESOURCE, "transform snapshot: offset %lu (lookup): lookup kind %u",
                             (unsigned long)(base + 36u), (unsigned)h[9]);
    if (h[2] > h[0] || (h[1] == ECS_TRANSFORM_IMMEDIATE && h[2] != h[0]) || h[6] > 1u)
        return ecs_error_set(err, ECS_ERROR_CORRUPT_RESOURCE, "transform snapshot: offset %lu (first_dirty %u of %u, log %u)",
                             (unsigned long)(base + 8u), (unsigned)h[2], (unsigned)h[0], (unsigned)h[6]);
    return ECS_OK;
}

/* tm can take bytes with header h: the same mode and lookup kind, empty. */
static ecs_result ecs__tf_snap_target(const ecs_transform_manager *tm, const uint32_t *h, ecs_error *err)
{
    if (h[1] != (uint32_t)tm->mode || h[9] != (uint32_t)tm->map.kind)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "transform snapshot: saved with mode %u and lookup %u, this manager has %u and %u",
                             (unsigned)h[1], (unsigned)h[9], (unsigned)tm->mode, (unsigned)tm->map.kind);
    if (tm->count) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "transform snapshot: the manager is not empty");
    return ECS_OK;
}

/* Two transforms of one entity (hash kind) among the saved ids: a scratch
   map, when the index check met some index twice. */
static ecs_result ecs__tf_snap_twice(const ecs__tf_snap_in *in, uint32_t top, ecs_error *err)
{
    ecs_entity_map map;
    uint32_t i;
    ecs_result r;
    ecs_entity_map_init(&map, ECS_LOOKUP_HASH);
    r = ecs_entity_map_reserve(&map, in->n, top, err);
    for (i = 0; i < in->n && r == ECS_OK; ++i) {
        uint32_t id = ecs__tf_snap_word(in->d, in->n, 0, i);
        if (ecs_entity_map_find(&map, id) != ECS__TF_NIL) r = ecs__tf_snap_bad(err, in, 0, i, "a second transform of this entity");
        else ecs_entity_map_set(&map, id, i);
    }
    ecs_entity_map_free(&map);
    return r;
}

/* Every id an entity id whose index is at most max_index; with unique,
   one transform per entity too (dense: per index). */
static ecs_result ecs__tf_snap_check_ids(const ecs__tf_snap_in *in, int dense, uint32_t max_index, int unique, ecs_error *err)
{
    uint32_t i, top = 0, *seen, twice = 0;
    for (i = 0; i < in->n; ++i) {
        uint32_t id = ecs__tf_snap_word(in->d, in->n, 0, i);
        if ((id & ECS_INDEX_MASK) == 0 || id > ECS__TF_ID_MASK) return ecs__tf_snap_bad(err, in, 0, i, "not an entity id");
        if ((id & ECS_INDEX_MASK) > max_index) return ecs__tf_snap_bad(err, in, 0, i, "an index the entity manager never handed out");
        if ((id & ECS_INDEX_MASK) > top) top = id & ECS_INDEX_MASK;
    }
    if (!unique || in->n < 2u) return ECS_OK;
    if (!(seen = (uint32_t *)ECS__REALLOC(NULL, ((size_t)top / 32u + 1u) * 4u)))
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "transform snapshot: out of memory checking %u ids", (unsigned)in->n);
    memset(seen, 0, ((size_t)top / 32u + 1u) * 4u);
    for (i = 0; i < in->n; ++i) {
        uint32_t idx = ecs__tf_snap_word(in->d, in->n, 0, i) & ECS_INDEX_MASK;
        if ((seen[idx / 32u] >> (idx % 32u)) & 1u) {
            if (dense) {
                ECS__FREE(seen);
                return ecs__tf_snap_bad(err, in, 0, i, "a second transform of this index");
            }
            twice = 1; /* the hash kind keeps one per id: look closer */
        }
        seen[idx / 32u] |= 1u << (idx % 32u);
    }
    ECS__FREE(seen);
    return twice ? ecs__tf_snap_twice(in, top, err) : ECS_OK;
}

/* The pending ids (deferred: nodes changed since the last commit) are
   entity ids whose index is at most max_index. */
static ecs_result ecs__tf_snap_check_pending(const ecs__tf_snap_in *in, uint32_t num_pending, uint32_t max_index,
                                             ecs_error *err)
{
    uint32_t k;
    for (k = 0; k < num_pending; ++k) {
        size_t at = 4u * (ECS__TF_SNAP_HEAD + (size_t)in->n * ECS__TF_SNAP_WORDS + k);
        uint32_t id;
        memcpy(&id, in->d + at, 4);
        if ((id & ECS_INDEX_MASK) == 0 || id > ECS__TF_ID_MASK || (id & ECS_INDEX_MASK) > max_index)
            return ecs_error_set(err, ECS_ERROR_CORRUPT_RESOURCE,
                                 "transform snapshot: offset %lu (pending[%u] = %u): not an id the entity manager handed out",
                                 (unsigned long)(in->base + at), (unsigned)k, (unsigned)id);
    }
    return ECS_OK;
}

/* Deferred: what commit relies on in the clean range [0, first_dirty): a
   clean node with age 0, or under a dirty parent, is pending (its id in the
   pending list; link and set_local record it so), so commit moves it, with
   its clean subtree, into the dirty range before laying that range out. */
static ecs_result ecs__tf_snap_check_clean(const ecs__tf_snap_in *in, uint32_t first_dirty, uint32_t num_pending,
                                           ecs_error *err)
{
    ecs_entity_map pending;
    ecs_result r;
    uint32_t i, k;
    ecs_entity_map_init(&pending, ECS_LOOKUP_HASH);
    r = ecs_entity_map_reserve(&pending, num_pending, ECS_INDEX_MASK, err);
    for (k = 0; k < num_pending && r == ECS_OK; ++k) /* (the pending ids: the column after the arrays) */
        ecs_entity_map_set(&pending, ecs__tf_snap_word(in->d, in->n, ECS__TF_SNAP_WORDS, k), k);
    for (i = 0; i < first_dirty && r == ECS_OK; ++i) {
        uint32_t p = ecs__tf_snap_word(in->d, in->n, 1, i), age = ecs__tf_snap_word(in->d, in->n, 5, i);
        int waits = ecs_entity_map_find(&pending, ecs__tf_snap_word(in->d, in->n, 0, i)) != ECS__TF_NIL;
        if (age == 0 && !waits) r = ecs__tf_snap_bad(err, in, 5, i, "a clean node with age 0 that is not pending");
        else if (p != ECS__TF_NIL && p >= first_dirty && !waits)
            r = ecs__tf_snap_bad(err, in, 1, i, "a clean node under a dirty parent that is not pending");
    }
    ecs_entity_map_free(&pending);
    return r;
}

/* Every check of saved bytes that needs no manager (h: the header words). */
static ecs_result ecs__tf_snap_check(const unsigned char *d, size_t size, uint32_t max_index, size_t base, int unique,
                                     uint32_t *h, ecs_error *err)
{
    ecs__tf_snap_in in;
    ecs_result r = ecs__tf_snap_head(d, size, base, h, err);
    if (r != ECS_OK) return r;
    in.d = d;
    in.n = h[0];
    in.base = base;
    if ((r = ecs__tf_snap_links(&in, err)) != ECS_OK) return r;
    if ((r = ecs__tf_snap_check_ids(&in, h[9] == (uint32_t)ECS_LOOKUP_DENSE, max_index, unique, err)) != ECS_OK) return r;
    if ((r = ecs__tf_snap_check_pending(&in, h[4], max_index, err)) != ECS_OK) return r;
    return h[1] == (uint32_t)ECS_TRANSFORM_DEFERRED ? ecs__tf_snap_check_clean(&in, h[2], h[4], err) : ECS_OK;
}

ECS_DEF ecs_result ecs_transform_snapshot_verify(const void *data, size_t size, uint32_t max_index, size_t offset,
                                                 ecs_error *err)
{
    uint32_t h[ECS__TF_SNAP_HEAD];
    if (!data) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "transform snapshot: data is NULL");
    return ecs__tf_snap_check((const unsigned char *)data, size, max_index, offset, 1, h, err);
}

/* The store interface's verify: the bytes, and whether store (if not NULL)
   has their mode and lookup kind (emptiness is the load's: a REPLACE load
   empties it first). */
static ecs_result ecs__tf_store_verify(const void *store, const void *data, size_t size, uint32_t max_index, size_t offset,
                                       ecs_error *err)
{
    const ecs_transform_manager *tm = (const ecs_transform_manager *)store;
    uint32_t h[ECS__TF_SNAP_HEAD];
    ecs_result r;
    if (!data) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "transform snapshot: data is NULL");
    r = ecs__tf_snap_check((const unsigned char *)data, size, max_index, offset, 1, h, err);
    if (r == ECS_OK && tm && (h[1] != (uint32_t)tm->mode || h[9] != (uint32_t)tm->map.kind))
        r = ecs__tf_snap_target(tm, h, err);
    return r;
}

/* Every id into map once (dense: one per index); the ids are valid. */
static ecs_result ecs__tf_snap_ids(const ecs__tf_snap_in *in, ecs_entity_map *map, ecs_error *err)
{
    const unsigned char *d = in->d;
    uint32_t i, n = in->n, top = 0;
    ecs_result r;
    for (i = 0; i < n; ++i)
        if ((ecs__tf_snap_word(d, n, 0, i) & ECS_INDEX_MASK) > top) top = ecs__tf_snap_word(d, n, 0, i) & ECS_INDEX_MASK;
    if ((r = ecs_entity_map_reserve(map, n, top, err)) != ECS_OK) return r;
    for (i = 0; i < n; ++i) {
        uint32_t id = ecs__tf_snap_word(d, n, 0, i);
        /* the ids come in any order: start the slot's miss some nodes ahead */
        if (map->kind == ECS_LOOKUP_DENSE && i + ECS__TF_SNAP_AHEAD < n)
            ECS__TF_PREFETCH(&map->slots[ecs__tf_snap_word(d, n, 0, i + ECS__TF_SNAP_AHEAD) & ECS_INDEX_MASK]);
        if (map->kind == ECS_LOOKUP_DENSE ? map->slots[id & ECS_INDEX_MASK].id != 0 : ecs_entity_map_find(map, id) != ECS__TF_NIL)
            return ecs__tf_snap_bad(err, in, 0, i, "a second transform of this entity (or index)");
        ecs_entity_map_set(map, id, i);
    }
    return ECS_OK;
}

/* Empties tm's map (keeps its slots). */
static void ecs__tf_map_clear(ecs_transform_manager *tm)
{
    uint32_t k;
    if (!tm->map.allocated) return;
    for (k = 0; k <= tm->map.mask; ++k) {
        tm->map.slots[k].id = 0;
        tm->map.slots[k].first = tm->map.kind == ECS_LOOKUP_DENSE && k ? 0u : ECS__TF_NIL;
    }
    tm->map.count = 0;
}

/* Copies checked bytes (header h) into tm, which can take them. */
static ecs_result ecs__tf_snap_restore(ecs_transform_manager *tm, const unsigned char *d, const uint32_t *h, ecs_error *err)
{
    uint32_t n = h[0], k, cap = n + 1u < 16u ? 16u : n + 1u, *pending;
    ecs__tf_snap_in in;
    ecs__tf_arrays a;
    ecs_result r;
    in.d = d;
    in.n = n;
    in.base = 0;
    /* tm is empty: its map, arrays and pending list take the state where
       they are big enough (a rollback every frame allocates nothing) */
    if ((r = ecs__tf_snap_ids(&in, &tm->map, err)) != ECS_OK) {
        ecs__tf_map_clear(tm);
        return r;
    }
    pending = h[4] <= tm->pending_capacity ? tm->pending : (uint32_t *)ECS__REALLOC(NULL, (size_t)h[4] * 4u);
    a = ecs__tf_view(tm);
    if ((h[4] && !pending) || (tm->capacity < n + 1u && !ecs__tf_alloc(cap, &a))) {
        if (pending != tm->pending) ECS__FREE(pending);
        ecs__tf_map_clear(tm);
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "transform snapshot: out of memory for %u nodes", (unsigned)n);
    }
    d += 4u * ECS__TF_SNAP_HEAD;
    memcpy(a.entity, d, (size_t)n * 4u);
    memcpy(a.parent, d + (size_t)n * 4u, (size_t)n * 4u);
    memcpy(a.first_child, d + (size_t)n * 8u, (size_t)n * 4u);
    memcpy(a.next_sibling, d + (size_t)n * 12u, (size_t)n * 4u);
    memcpy(a.prev_sibling, d + (size_t)n * 16u, (size_t)n * 4u);
    for (k = 0; k < n; ++k) {
        uint32_t age;
        memcpy(&age, d + (size_t)n * 20u + 4u * k, 4);
        a.age[k] = (uint8_t)age;
    }
    memcpy(a.local, d + (size_t)n * 24u, (size_t)n * sizeof(ecs_mat4));
    memcpy(a.world, d + (size_t)n * 24u + (size_t)n * sizeof(ecs_mat4), (size_t)n * sizeof(ecs_mat4));
    if (h[4]) memcpy(pending, d + (size_t)n * 24u + (size_t)n * 2u * sizeof(ecs_mat4), (size_t)h[4] * 4u);
    if (a.buffer != tm->buffer) ecs__tf_adopt(tm, &a, cap);
    if (pending != tm->pending) {
        ECS__FREE(tm->pending);
        tm->pending = pending;
        tm->pending_capacity = h[4];
    }
    tm->num_pending = h[4];
    tm->count = n;
    tm->first_dirty = h[2];
    tm->idle_frames = h[3];
    tm->rng = h[5];
    tm->log.em = h[6] ? ECS__TF_LOG_ADOPT(tm) : NULL;
    tm->log.next = h[7];
    tm->log.retired = h[8];
    return ECS_OK;
}

ECS_DEF ecs_result ecs_transform_snapshot_load(void *store, const void *data, size_t size, ecs_error *err)
{
    ecs_transform_manager *tm = (ecs_transform_manager *)store;
    uint32_t h[ECS__TF_SNAP_HEAD];
    ecs_result r;
    if (!tm || !data) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "transform snapshot: NULL argument");
    /* (one transform per entity: checked as the map is built) */
    if ((r = ecs__tf_snap_check((const unsigned char *)data, size, ECS_INDEX_MASK, 0, 0, h, err)) != ECS_OK ||
        (r = ecs__tf_snap_target(tm, h, err)) != ECS_OK)
        return r;
    return ecs__tf_snap_restore(tm, (const unsigned char *)data, h, err);
}

/* The store interface's load: the snapshot calls give it only bytes
   ecs_transform_snapshot_verify passed, so it checks what verify cannot
   know (the manager: mode, lookup kind, empty) and no link again. */
static ecs_result ecs__tf_store_load(void *store, const void *data, size_t size, ecs_error *err)
{
    ecs_transform_manager *tm = (ecs_transform_manager *)store;
    uint32_t h[ECS__TF_SNAP_HEAD];
    ecs_result r;
    if (!tm || !data) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "transform snapshot: NULL argument");
    if ((r = ecs__tf_snap_head((const unsigned char *)data, size, 0, h, err)) != ECS_OK ||
        (r = ecs__tf_snap_target(tm, h, err)) != ECS_OK)
        return r;
    return ecs__tf_snap_restore(tm, (const unsigned char *)data, h, err);
}

ECS_DEF ecs_result ecs_transform_snapshot_copy(void *dst, const void *src, ecs_error *err)
{
    ecs_transform_manager *d = (ecs_transform_manager *)dst;
    const ecs_transform_manager *s = (const ecs_transform_manager *)src;
    uint32_t n, cap, *pending = NULL;
    ecs__tf_arrays a;
    ecs_result r;
    if (!d || !s || d == s) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "transform copy: two distinct managers needed");
    if (d->mode != s->mode || d->map.kind != s->map.kind)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "transform copy: mode %u and lookup %u into mode %u and lookup %u",
                             (unsigned)s->mode, (unsigned)s->map.kind, (unsigned)d->mode, (unsigned)d->map.kind);
    n = s->count;
    cap = n + 1u < 16u ? 16u : n + 1u;
    a = ecs__tf_view(d);
    if (d->capacity < n + 1u && !ecs__tf_alloc(cap, &a))
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "transform copy: out of memory for %u nodes", (unsigned)n);
    if (d->pending_capacity < s->num_pending && !(pending = (uint32_t *)ECS__REALLOC(NULL, (size_t)s->num_pending * 4u))) {
        if (a.buffer != d->buffer) ECS__FREE(a.buffer);
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "transform copy: out of memory for %u pending ids", (unsigned)s->num_pending);
    }
    if ((r = ecs_entity_map_copy(&d->map, &s->map, err)) != ECS_OK) {
        if (a.buffer != d->buffer) ECS__FREE(a.buffer);
        ECS__FREE(pending);
        return r;
    }
    ecs__tf_copy_arrays(&a, s, n);
    if (a.buffer != d->buffer) ecs__tf_adopt(d, &a, cap);
    if (pending) {
        ECS__FREE(d->pending);
        d->pending = pending;
        d->pending_capacity = s->num_pending;
    }
    if (s->num_pending) memcpy(d->pending, s->pending, (size_t)s->num_pending * 4u);
    d->num_pending = s->num_pending;
    d->count = n;
    d->first_dirty = s->first_dirty;
    d->idle_frames = s->idle_frames;
    d->rng = s->rng;
    d->log = s->log;
    d->log.em = ecs__tf_log_travels(s) ? ECS__TF_LOG_ADOPT(d) : NULL;
    return ECS_OK;
}

ECS_DEF void ecs_transform_snapshot_clear(void *store)
{
    ecs_transform_manager *tm = (ecs_transform_manager *)store;
    ecs__tf_map_clear(tm);
    tm->count = 0;
    tm->first_dirty = 0;
    tm->num_pending = 0;
    tm->rng = 0;
    memset(&tm->log, 0, sizeof tm->log);
}

#endif /* ECS__TRANSFORM_IMPLEMENTATION_DONE */
#endif /* ECS_TRANSFORM_IMPLEMENTATION */

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
