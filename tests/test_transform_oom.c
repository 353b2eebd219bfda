/* tests/test_transform_oom.c - every allocation ecs_transform.h makes can fail:
   each operation is retried with the 1st, 2nd, 3rd, ... allocation failing,
   once and also from then on (that one and every later one), until it
   succeeds; after each failure the manager must be exactly as it was
   (instances, matrices, links, lookups, the dirty range) with
   ECS_ERROR_OUT_OF_MEMORY. Both lookup kinds, both modes, and the dense
   lookup's index reuse (create and spawn dropping a dead id's transform).
   The sanitizer builds check that nothing leaks. */
#include <stdlib.h>
#include <string.h>

/* < 0: never fail; 0: fail this call (and with test_alloc_sticky every
   later one); k > 0: k calls succeed first */
static long test_alloc_countdown = -1;
static int test_alloc_sticky;
static unsigned long test_alloc_failures;
static void *test_realloc(void *p, size_t n)
{
    if (test_alloc_countdown == 0) {
        ++test_alloc_failures;
        if (!test_alloc_sticky) test_alloc_countdown = -1;
        return NULL;
    }
    if (test_alloc_countdown > 0) --test_alloc_countdown;
    return realloc(p, n);
}
#define ECS_REALLOC(p, n) test_realloc(p, n)
#define ECS_FREE(p) free(p)

#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_TRANSFORM_IMPLEMENTATION
#include "ecs_transform.h"

#include "tests/test.h"

#define NIL ECS_INSTANCE_NIL

static uint64_t rng_state = 0x1234567887654321ull;
static uint32_t rnd_below(uint32_t n)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((((rng_state * 0x2545F4914F6CDD1Dull) >> 32) * n) >> 32);
}

static ecs_mat4 mat(uint32_t seed)
{
    ecs_vec3 t;
    t.x = (float)(seed % 7), t.y = (float)(seed % 11), t.z = (float)(seed % 13);
    return ecs_mat4_translation(t);
}

/* Everything observable about a manager. */
typedef struct snapshot {
    uint32_t count, first_dirty, num_pending;
    ecs_entity *entity;
    ecs_mat4 *local, *world;
    uint32_t *links, *lookups;
    uint8_t *age;
} snapshot;

static void snap(const ecs_transform_manager *tm, const ecs_entity *es, uint32_t nes, snapshot *s)
{
    uint32_t n = tm->count, k;
    s->count = n, s->first_dirty = tm->first_dirty, s->num_pending = tm->num_pending;
    s->entity = (ecs_entity *)malloc((n + 1) * sizeof *s->entity);
    s->local = (ecs_mat4 *)malloc((n + 1) * sizeof *s->local);
    s->world = (ecs_mat4 *)malloc((n + 1) * sizeof *s->world);
    s->links = (uint32_t *)malloc((4 * n + 1) * sizeof *s->links);
    s->lookups = (uint32_t *)malloc((nes + 1) * sizeof *s->lookups);
    s->age = (uint8_t *)malloc(n + 1);
    if (n) {
        memcpy(s->age, tm->age, n);
        memcpy(s->entity, tm->entity, n * sizeof *s->entity);
        memcpy(s->local, tm->local, n * sizeof *s->local);
        memcpy(s->world, tm->world, n * sizeof *s->world);
        memcpy(s->links, tm->parent, n * sizeof *s->links);
        memcpy(s->links + n, tm->first_child, n * sizeof *s->links);
        memcpy(s->links + 2 * n, tm->next_sibling, n * sizeof *s->links);
        memcpy(s->links + 3 * n, tm->prev_sibling, n * sizeof *s->links);
    }
    for (k = 0; k < nes; ++k) s->lookups[k] = ecs_transform_lookup(tm, es[k]).i;
}

static int same(const ecs_transform_manager *tm, const ecs_entity *es, uint32_t nes, const snapshot *s)
{
    snapshot t;
    int ok;
    uint32_t n = s->count;
    snap(tm, es, nes, &t);
    ok = t.count == n && t.first_dirty == s->first_dirty && t.num_pending == s->num_pending &&
         memcmp(t.entity, s->entity, n * sizeof *t.entity) == 0 && memcmp(t.local, s->local, n * sizeof *t.local) == 0 &&
         memcmp(t.world, s->world, n * sizeof *t.world) == 0 && memcmp(t.links, s->links, 4 * n * sizeof *t.links) == 0 &&
         memcmp(t.lookups, s->lookups, nes * sizeof *t.lookups) == 0 && memcmp(t.age, s->age, n) == 0;
    free(t.entity), free(t.local), free(t.world), free(t.links), free(t.lookups), free(t.age);
    return ok;
}

static void snap_free(snapshot *s)
{
    free(s->entity), free(s->local), free(s->world), free(s->links), free(s->lookups), free(s->age);
}

enum { OP_CREATE, OP_SPAWN, OP_SET_LOCAL, OP_SET_LOCAL_MANY, OP_LINK, OP_REORDER, OP_RESERVE, OP_CREATE_REUSE,
       OP_SPAWN_REUSE, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"create", "spawn", "set_local", "set_local_many", "link", "reorder",
                                               "reserve", "create (index reuse)", "spawn (index reuse)"};

#define NE 6000u /* entities; indices beyond the dense table's first 1024 */

static ecs_entity es[NE];
/* the entities whose lookups the snapshots compare (es, or the reuse test's) */
static const ecs_entity *watch = es;
static uint32_t num_watch = NE;
/* the reuse test: fresh entities that take dead entities' indices */
static ecs_entity reuse_fresh[6], reuse_parent;
static uint32_t next_fresh; /* next entity without a transform */
static uint32_t spawn_parent[64], spawn_index[64];
static ecs_mat4 spawn_data[64];

/* One attempt of op; returns its result. */
static ecs_result attempt(ecs_transform_manager *tm, int op, ecs_entity_manager *em, uint32_t arg)
{
    uint32_t n = tm->count;
    switch (op) {
    case OP_CREATE: {
        ecs_mat4 m = mat(arg);
        ecs_instance p = n && arg % 3 ? ecs_instance_make(arg % n) : ecs_instance_nil();
        return ecs_instance_is_nil(ecs_transform_create(tm, es[next_fresh], &m, p)) ? tm->error.code : ECS_OK;
    }
    case OP_SPAWN: {
        ecs_spawn_context ctx;
        ecs_error err;
        uint32_t k;
        for (k = 0; k < 64; ++k) {
            spawn_parent[k] = k == 0 || k % 4 == 0 ? ECS_SPAWN_ROOT : arg % k;
            spawn_index[k] = 63 - k; /* children first: the slow path too */
            spawn_data[k] = mat(arg + k);
        }
        ctx.entities = em;
        ctx.entity = es + next_fresh;
        ctx.parent_index = spawn_parent;
        ctx.num_entities = 64;
        ctx.error = &err;
        return ecs_transform_spawn(tm, &ctx, 64, spawn_index, spawn_data, 64 * 64);
    }
    case OP_SET_LOCAL: {
        ecs_mat4 m = mat(arg + 5);
        return ecs_transform_set_local(tm, ecs_instance_make(arg % n), &m);
    }
    case OP_SET_LOCAL_MANY: {
        ecs_instance in[40];
        ecs_mat4 ms[40];
        uint32_t k;
        for (k = 0; k < 40; ++k) in[k] = ecs_instance_make((arg + k * 7) % n), ms[k] = mat(arg + k);
        return ecs_transform_set_local_many(tm, 40, in, ms);
    }
    case OP_LINK: {
        ecs_result r = n == 150 ? ecs_transform_link(tm, ecs_instance_make(arg), ecs_instance_make(149)) /* the burst */
                                : ecs_transform_link(tm, ecs_instance_make(arg % n), ecs_instance_make((arg * 7 + 3) % n));
        return r == ECS_ERROR_CYCLE ? ECS_OK : r;
    }
    case OP_REORDER: return ecs_transform_reorder(tm);
    case OP_RESERVE: return ecs_transform_reserve(tm, n + 1000u + arg);
    case OP_CREATE_REUSE: {
        ecs_mat4 m = mat(arg);
        return ecs_instance_is_nil(ecs_transform_create(tm, reuse_fresh[0], &m, ecs_transform_lookup(tm, reuse_parent)))
                   ? tm->error.code
                   : ECS_OK;
    }
    default: { /* OP_SPAWN_REUSE: a chain of five, children first */
        ecs_spawn_context ctx;
        ecs_error err;
        uint32_t k, parent[5] = {ECS_SPAWN_ROOT, 0, 1, 2, 3}, index[5] = {4, 3, 2, 1, 0};
        for (k = 0; k < 5; ++k) spawn_data[k] = mat(arg + k);
        ctx.entities = em, ctx.entity = reuse_fresh + 1, ctx.parent_index = parent, ctx.num_entities = 5, ctx.error = &err;
        return ecs_transform_spawn(tm, &ctx, 5, index, spawn_data, 5 * 64);
    }
    }
}

static unsigned long failures_seen[OP_COUNT];

/* One attempt of op with allocation `at` failing (sticky: and every later
   one). Returns 1 when nothing failed (op ran and succeeded), else checks that
   it reported ECS_ERROR_OUT_OF_MEMORY and changed nothing, and returns 0. */
static int attempt_failing(ecs_transform_manager *tm, int op, ecs_entity_manager *em, uint32_t arg, long at, int sticky)
{
    snapshot s;
    ecs_result r;
    unsigned long before = test_alloc_failures;
    snap(tm, watch, num_watch, &s);
    test_alloc_countdown = at;
    test_alloc_sticky = sticky;
    r = attempt(tm, op, em, arg);
    test_alloc_countdown = -1;
    test_alloc_sticky = 0;
    if (test_alloc_failures == before) { /* nothing failed: done */
        CHECK_MSG(r == ECS_OK, "%s: %s", op_names[op], tm->error.message);
        snap_free(&s);
        return 1;
    }
    ++failures_seen[op];
    if (r == ECS_OK) { /* a failure the operation did not need to report? */
        CHECK_MSG(0, "%s succeeded although allocation %ld failed%s", op_names[op], at, sticky ? " (and all after)" : "");
    } else {
        CHECK_MSG(r == ECS_ERROR_OUT_OF_MEMORY, "%s: %s", op_names[op], ecs_result_name(r));
        CHECK_MSG(same(tm, watch, num_watch, &s), "%s changed the manager although it failed (allocation %ld%s)",
                  op_names[op], at, sticky ? " and all after" : "");
    }
    snap_free(&s);
    return 0;
}

/* Runs op with the 1st, 2nd, ... allocation failing, from then on and once,
   until it succeeds. */
static void sweep(ecs_transform_manager *tm, int op, ecs_entity_manager *em, uint32_t arg)
{
    long at;
    for (at = 0; at < 64; ++at)
        if (attempt_failing(tm, op, em, arg, at, 1) || attempt_failing(tm, op, em, arg, at, 0)) break;
    CHECK_MSG(at < 64, "%s never succeeded", op_names[op]);
    if (op == OP_CREATE) ++next_fresh;
    if (op == OP_SPAWN) next_fresh += 64;
}

static void run(ecs_lookup_kind lookup, ecs_transform_mode mode)
{
    ecs_entity_manager em;
    ecs_transform_manager tm;
    uint32_t k;
    ecs_entity_manager_init(&em);
    CHECK(ecs_entity_create_many(&em, NE, es) == ECS_OK);
    ecs_transform_manager_init(&tm, lookup, mode);
    next_fresh = 0;
    /* spread the entities we use over the index range: dense growth happens */
    for (k = 0; k < 300; ++k) {
        uint32_t j = next_fresh + rnd_below(NE - next_fresh);
        ecs_entity e = es[j];
        es[j] = es[next_fresh], es[next_fresh] = e;
        sweep(&tm, OP_CREATE, &em, k);
        if (k % 50 == 49) {
            sweep(&tm, OP_SPAWN, &em, k);
            ecs_transform_commit(&tm);
        }
        if (k % 3 == 0) sweep(&tm, OP_SET_LOCAL, &em, k * 13);
        if (k % 5 == 0) sweep(&tm, OP_SET_LOCAL_MANY, &em, k * 17);
        if (k % 4 == 0) sweep(&tm, OP_LINK, &em, k * 11);
        if (k % 7 == 0) ecs_transform_commit(&tm);
        if (k % 60 == 0) sweep(&tm, OP_REORDER, &em, k);
        if (k % 100 == 0) sweep(&tm, OP_RESERVE, &em, k);
        if (k == 200 && mode == ECS_TRANSFORM_DEFERRED) { /* bursts that outgrow the pending list */
            uint32_t t, f;
            for (f = 0; f < ECS_TRANSFORM_DEFAULT_IDLE_FRAMES + 1u; ++f) ecs_transform_commit(&tm);
            CHECK(tm.first_dirty == tm.count);
            for (t = 0; t < 150; ++t) sweep(&tm, OP_SET_LOCAL, &em, t);
            ecs_transform_commit(&tm);
            for (f = 0; f < ECS_TRANSFORM_DEFAULT_IDLE_FRAMES + 1u; ++f) ecs_transform_commit(&tm);
            ecs_transform_manager_free(&tm); /* (keeps mode and lookup) */
            for (t = 0; t < 150; ++t) {
                ecs_instance in = ecs_transform_create(&tm, es[next_fresh++], NULL, ecs_instance_nil());
                CHECK(!ecs_instance_is_nil(in));
            }
            for (f = 0; f < ECS_TRANSFORM_DEFAULT_IDLE_FRAMES + 1u; ++f) ecs_transform_commit(&tm);
            for (t = 0; t < 149; ++t) sweep(&tm, OP_LINK, &em, t);
        }
    }
    ecs_transform_commit(&tm);
    sweep(&tm, OP_REORDER, &em, 0);
    ecs_transform_manager_free(&tm);
    ecs_entity_manager_free(&em);
}

/* A spawn whose last entity lies beyond the dense table: the table grows half
   way through, and when that fails the instances made before are undone. */
static void test_spawn_half_way(void)
{
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_entity ents[64], all[3000];
    uint32_t parent[64], index[64], k, done = 0;
    ecs_mat4 data[64];
    ecs_spawn_context ctx;
    ecs_error err;
    long at;
    ecs_entity_manager_init(&em);
    ecs_transform_manager_init(&tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    CHECK(ecs_entity_create_many(&em, 3000, all) == ECS_OK);
    for (k = 0; k < 10; ++k) CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, all[k], NULL, ecs_instance_nil())));
    for (k = 0; k < 64; ++k) {
        ents[k] = all[100 + k];
        parent[k] = k == 0 ? ECS_SPAWN_ROOT : k - 1; /* a chain */
        index[k] = k;
        data[k] = mat(k);
    }
    ents[63] = all[2999]; /* index 3000: beyond the first 1024 */
    ctx.entities = &em, ctx.entity = ents, ctx.parent_index = parent, ctx.num_entities = 64, ctx.error = &err;
    for (at = 0; at < 16 && !done; ++at) {
        snapshot s;
        ecs_result r;
        unsigned long before = test_alloc_failures;
        snap(&tm, all, 3000, &s);
        test_alloc_countdown = at;
        test_alloc_sticky = (int)(at & 1);
        r = ecs_transform_spawn(&tm, &ctx, 64, index, data, 64 * 64);
        test_alloc_countdown = -1;
        test_alloc_sticky = 0;
        if (test_alloc_failures == before) {
            CHECK(r == ECS_OK && tm.count == 74);
            done = 1;
        } else {
            CHECK(r == ECS_ERROR_OUT_OF_MEMORY && err.code == ECS_ERROR_OUT_OF_MEMORY);
            CHECK_MSG(same(&tm, all, 3000, &s), "spawn changed the manager although allocation %ld failed", at);
        }
        snap_free(&s);
    }
    CHECK(done && at >= 3); /* the scratch table, the arrays, the dense map (all before any change) */
    ecs_transform_manager_free(&tm);
    ecs_entity_manager_free(&em);
}

/* The dense lookup's index reuse under failing allocations: create and spawn
   for fresh entities whose indices dead entities' transforms still hold
   (the dense lookup drops those, the hash lookup keeps them) change nothing
   when they fail, the dead ones' transforms and their children included.
   Each runs with the arrays full (count + 1 == capacity), so it must grow
   even when counting the transforms it will drop. */
static void reuse_fill(ecs_transform_manager *tm, ecs_entity_manager *em)
{
    while (tm->count + 1u < tm->capacity) {
        ecs_entity f = ecs_entity_create(em); /* takes a queued index that holds no transform */
        CHECK(!ecs_instance_is_nil(ecs_transform_create(tm, f, NULL, ecs_instance_nil())));
    }
    ecs_transform_commit(tm);
}

static void test_reuse(ecs_lookup_kind lookup, ecs_transform_mode mode)
{
    static ecs_entity old[1100], seen[1100 + 9];
    ecs_entity kids[3];
    ecs_entity_manager em;
    ecs_transform_manager tm;
    uint32_t k, n;
    int dense = lookup == ECS_LOOKUP_DENSE;
    ecs_entity_manager_init(&em);
    ecs_transform_manager_init(&tm, lookup, mode);
    CHECK(ecs_entity_create_many(&em, 3, kids) == ECS_OK && ecs_entity_create_many(&em, 1100, old) == ECS_OK);
    for (k = 0; k < 4; ++k) { /* old[0..3] roots, old[0] with the three kids */
        ecs_mat4 m = mat(k + 1);
        CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, old[k], &m, ecs_instance_nil())));
    }
    for (k = 0; k < 3; ++k) {
        ecs_mat4 m = mat(k + 7);
        CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, kids[k], &m, ecs_transform_lookup(&tm, old[0]))));
    }
    CHECK(ecs_entity_destroy_many(&em, 1100, old) == 1100); /* queued past the threshold: indices come back */
    CHECK(ecs_entity_create_many(&em, 6, reuse_fresh) == ECS_OK);
    for (k = 0; k < 6; ++k) CHECK(ecs_entity_index(reuse_fresh[k]) == ecs_entity_index(old[k]));
    reuse_parent = kids[1];
    for (k = 0; k < 1100; ++k) seen[k] = old[k];
    for (k = 0; k < 3; ++k) seen[1100 + k] = kids[k];
    for (k = 0; k < 6; ++k) seen[1103 + k] = reuse_fresh[k];
    watch = seen, num_watch = 1109;
    /* spawn: five entities, three of them on old[1..3]'s indices */
    reuse_fill(&tm, &em);
    n = tm.count;
    sweep(&tm, OP_SPAWN_REUSE, &em, 2);
    CHECK(tm.count == n + 5u - (dense ? 3u : 0u));
    /* create: on old[0]'s index, under one of old[0]'s children */
    reuse_fill(&tm, &em);
    n = tm.count;
    sweep(&tm, OP_CREATE_REUSE, &em, 1);
    CHECK(tm.count == n + 1u - (dense ? 1u : 0u));
    CHECK(ecs_transform_collect(&tm, &em) == (dense ? 0u : 4u));
    for (k = 0; k < 4; ++k) CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tm, old[k])));
    watch = es, num_watch = NE;
    ecs_transform_manager_free(&tm);
    ecs_entity_manager_free(&em);
}

int main(void)
{
    int op;
    test_spawn_half_way();
    test_reuse(ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    test_reuse(ECS_LOOKUP_HASH, ECS_TRANSFORM_IMMEDIATE);
    test_reuse(ECS_LOOKUP_DENSE, ECS_TRANSFORM_DEFERRED);
    test_reuse(ECS_LOOKUP_HASH, ECS_TRANSFORM_DEFERRED);
    run(ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    run(ECS_LOOKUP_HASH, ECS_TRANSFORM_IMMEDIATE);
    run(ECS_LOOKUP_DENSE, ECS_TRANSFORM_DEFERRED);
    run(ECS_LOOKUP_HASH, ECS_TRANSFORM_DEFERRED);
    for (op = 0; op < OP_COUNT; ++op) {
        printf("%s: %lu injected failures\n", op_names[op], failures_seen[op]);
        if (op != OP_SET_LOCAL && op != OP_LINK) CHECK_MSG(failures_seen[op] > 0, "%s never allocated", op_names[op]);
    }
    CHECK(failures_seen[OP_SET_LOCAL] > 0 && failures_seen[OP_LINK] > 0); /* deferred mode's pending list */
    return test_report("test_transform_oom");
}
