/* tests/test_ecs_hardening.c - ecs.h's defects of issue 19: a dense batch
   that meets an older id's instances and then fails changes nothing (6);
   collect after the entity manager was freed and initialised again at the
   same address sweeps instead of reading the new log from the old cursor,
   in all three kinds and in ecs_transform_collect (7); the direct kind's
   fast read asserts for nil (14) and on a manager whose init failed (15).
   Issue 24: name_slot's assert says in words what went wrong. Stop 33: a
   standalone dense or direct store refuses a create for a dead id instead
   of dropping the live entity's instances.
   ECS_ASSERT counts failures instead of aborting, in every build, and keeps
   the text of the last one. */
static unsigned long assert_failures;
static const char *last_assert = "";
#define ECS_ASSERT(x) ((x) ? (void)0 : (void)(++assert_failures, last_assert = #x))
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_TRANSFORM_IMPLEMENTATION
#include "ecs_transform.h"
#include "test.h"

#include <string.h>

static ecs_entity make_id(uint32_t id)
{
    ecs_entity e;
    e.id = id;
    return e;
}

#define HB_FIELDS(X) X(uint32_t, v)
ECS_MANAGER_DEFINE(hb, HB_FIELDS)

/* (6) create_many and spawn: the batch's first entity is a newer id of an
   index an older (dead) id holds instances of; a later entry fails. */
static void test_dense_batch_all_or_nothing(void)
{
    hb m;
    uint32_t k;
    ecs_entity old_id = ecs_entity_make(5, 0), new_id = ecs_entity_make(5, 1), other = ecs_entity_make(9, 0);
    ecs_entity bad[3][3];
    ecs_result want[3] = {ECS_ERROR_INVALID_ARGUMENT, ECS_ERROR_INVALID_ARGUMENT, ECS_ERROR_INVALID_ARGUMENT};
    CHECK(hb_init(&m, ECS_LOOKUP_DENSE) == ECS_OK);
    for (k = 0; k < 4; ++k) { /* three instances of the old id, one of another */
        ecs_instance i = hb_create(&m, k < 3 ? old_id : other);
        m.v[i.i] = k < 3 ? 100u + k : 7u;
    }
    bad[0][0] = new_id, bad[0][1] = other, bad[0][2] = make_id(0);             /* nil last */
    bad[1][0] = new_id, bad[1][1] = ecs_entity_make(5, 2), bad[1][2] = other;  /* two ids of index 5 */
    bad[2][0] = ecs_entity_make(12, 0), bad[2][1] = new_id, bad[2][2] = make_id(1u << ECS_INDEX_BITS); /* nil, generation 1 */
    for (k = 0; k < 3; ++k) {
        ecs_instance first;
        ecs_instance i = hb_lookup(&m, old_id);
        uint32_t n = 0;
        CHECK(hb_create_many(&m, 3, bad[k], &first) == want[k]);
        for (; !ecs_instance_is_nil(i); i = hb_next(&m, i)) CHECK(m.v[i.i] == 100u + n++);
        CHECK_MSG(n == 3u && hb_num_instances(&m) == 4u, "batch %u: the old id keeps %u of 3", k, n);
        CHECK(ecs_instance_is_nil(hb_lookup(&m, new_id)) && m.v[hb_lookup(&m, other).i] == 7u);
    }
    { /* the same through ecs_manager_spawn */
        ecs_spawn_context ctx;
        ecs_error err;
        uint32_t index[3] = {0, 1, 2}, data[3] = {1, 2, 3};
        memset(&ctx, 0, sizeof ctx);
        ctx.entity = bad[0];
        ctx.num_entities = 3;
        ctx.error = &err;
        CHECK(ecs_manager_spawn(&m.core, &ctx, 3, index, data, sizeof data) == ECS_ERROR_INVALID_ARGUMENT);
        CHECK(hb_num_instances(&m) == 4u && !ecs_instance_is_nil(hb_lookup(&m, old_id)));
        ctx.entity = bad[2] + 1; /* new_id alone: the old id's instances go, new_id gets one */
        ctx.num_entities = 1;
        CHECK(ecs_manager_spawn(&m.core, &ctx, 1, index, data, 4) == ECS_OK);
        CHECK(hb_num_instances(&m) == 2u && ecs_instance_is_nil(hb_lookup(&m, old_id)));
        CHECK(m.v[hb_lookup(&m, new_id).i] == 1u);
    }
    hb_free(&m);
}

/* Stop 33: a standalone dense or direct store lets an index's slot go only
   to a later id of the index (1..half the generation range ahead, wrap-
   aware). A create for a dead id (an earlier one) used to drop the live
   entity's instances; now it is refused and nothing changes. */
static void check_dead_refused(ecs_lookup_kind kind, ecs_entity live, ecs_entity dead)
{
    hb m;
    ecs_instance first;
    ecs_entity batch[2];
    ecs_spawn_context ctx;
    ecs_error err;
    uint32_t index[2] = {0, 1}, data[2] = {5, 6};
    CHECK(hb_init(&m, kind) == ECS_OK);
    first = hb_create(&m, live); /* before m.v is read: create grows it */
    m.v[first.i] = 42u;
    CHECK_MSG(ecs_instance_is_nil(hb_create(&m, dead)) && m.core.error.code == ECS_ERROR_INVALID_ARGUMENT,
              "kind %d: create for dead %x over live %x", (int)kind, (unsigned)dead.id, (unsigned)live.id);
    CHECK(strstr(m.core.error.message, "a dead id") != NULL);
    batch[0] = ecs_entity_make(77, 0), batch[1] = dead; /* the bad entry second: the first is undone too */
    CHECK(hb_create_many(&m, 2, batch, &first) == ECS_ERROR_INVALID_ARGUMENT);
    memset(&ctx, 0, sizeof ctx);
    ctx.entity = batch;
    ctx.num_entities = 2;
    ctx.error = &err;
    CHECK(ecs_manager_spawn(&m.core, &ctx, 2, index, data, sizeof data) == ECS_ERROR_INVALID_ARGUMENT);
    first = hb_lookup(&m, live);
    CHECK_MSG(hb_num_instances(&m) == 1u && !ecs_instance_is_nil(first) && m.v[first.i] == 42u,
              "kind %d: the live entity lost its instance", (int)kind);
    CHECK(ecs_instance_is_nil(hb_lookup(&m, dead)) && ecs_instance_is_nil(hb_lookup(&m, batch[0])));
    hb_free(&m);
}

static void check_transform_dead_refused(ecs_transform_mode mode, ecs_entity live, ecs_entity dead)
{
    ecs_transform_manager tm;
    ecs_mat4 at = ecs_mat4_identity();
    ecs_entity batch[2];
    ecs_spawn_context ctx;
    ecs_error err;
    uint32_t index[2] = {0, 1}, parent[2] = {ECS_SPAWN_ROOT, ECS_SPAWN_ROOT};
    float data[32];
    at.m[12] = 9.0f;
    memset(data, 0, sizeof data);
    CHECK(ecs_transform_manager_init(&tm, ECS_LOOKUP_DENSE, mode) == ECS_OK);
    CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, live, &at, ecs_instance_nil())));
    CHECK_MSG(ecs_instance_is_nil(ecs_transform_create(&tm, dead, NULL, ecs_instance_nil())) &&
              tm.error.code == ECS_ERROR_INVALID_ARGUMENT, "mode %d: transform create for a dead id", (int)mode);
    batch[0] = ecs_entity_make(77, 0), batch[1] = dead;
    memset(&ctx, 0, sizeof ctx);
    ctx.entity = batch;
    ctx.parent_index = parent;
    ctx.num_entities = 2;
    ctx.error = &err;
    CHECK(ecs_transform_spawn(&tm, &ctx, 2, index, data, sizeof data) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "is dead") != NULL);
    ecs_transform_commit(&tm);
    CHECK_MSG(tm.count == 1u && !ecs_instance_is_nil(ecs_transform_lookup(&tm, live)) &&
              ecs_transform_local(&tm, ecs_transform_lookup(&tm, live))->m[12] == 9.0f,
              "mode %d: the live entity lost its transform", (int)mode);
    ecs_transform_manager_free(&tm);
}

static void test_dead_id_keeps_live_slot(void)
{
    ecs_entity live = ecs_entity_make(5, 4);
    uint32_t dead_gen[3] = {3, 4 + 129, 200}; /* earlier; 129 ahead (past half the range); far ahead */
    uint32_t k;
    for (k = 0; k < 3 && ECS_GENERATION_BITS == 8; ++k) {
        check_dead_refused(ECS_LOOKUP_DENSE, live, ecs_entity_make(5, dead_gen[k]));
        check_dead_refused(ECS_LOOKUP_DIRECT, live, ecs_entity_make(5, dead_gen[k]));
        check_transform_dead_refused(ECS_TRANSFORM_IMMEDIATE, live, ecs_entity_make(5, dead_gen[k]));
        check_transform_dead_refused(ECS_TRANSFORM_DEFERRED, live, ecs_entity_make(5, dead_gen[k]));
    }
    { /* a later id still takes the slot over, across the generation wrap */
        hb m;
        ecs_transform_manager tm;
        ecs_entity old_id = ecs_entity_make(5, 250), next_id = ecs_entity_make(5, 3);
        CHECK(hb_init(&m, ECS_LOOKUP_DENSE) == ECS_OK);
        CHECK(ecs_transform_manager_init(&tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE) == ECS_OK);
        hb_create(&m, old_id);
        ecs_transform_create(&tm, old_id, NULL, ecs_instance_nil());
        CHECK(!ecs_instance_is_nil(hb_create(&m, next_id)) && hb_num_instances(&m) == 1u);
        CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, next_id, NULL, ecs_instance_nil())) && tm.count == 1u);
        CHECK(ecs_instance_is_nil(hb_lookup(&m, old_id)) && ecs_instance_is_nil(ecs_transform_lookup(&tm, old_id)));
        hb_free(&m);
        ecs_transform_manager_free(&tm);
    }
}

/* (7) The entity manager lives twice at one address. Life 1: 16 entities
   with instances, 8 destroyed and collected. Life 2: the same 16 ids are
   handed out again and the 8 survivors' ids destroyed: their instances must
   go, though the new log's count equals the old cursor's. */
static ecs_entity_manager em_at_one_address;

static void two_lives(ecs_entity *es)
{
    ecs_entity_manager *em = &em_at_one_address;
    ecs_entity_manager_init(em);
    CHECK(ecs_entity_create_many(em, 16, es) == ECS_OK);
}

static void test_collect_two_lives(ecs_lookup_kind kind)
{
    ecs_entity_manager *em = &em_at_one_address;
    ecs_entity es[16], again[16];
    hb m;
    uint32_t k;
    CHECK(hb_init(&m, kind) == ECS_OK);
    two_lives(es);
    for (k = 0; k < 16; ++k) CHECK(!ecs_instance_is_nil(hb_create(&m, es[k])));
    CHECK(hb_collect(&m, em) == 0u); /* the cursor is at this log's end */
    for (k = 0; k < 8; ++k) ecs_entity_destroy(em, es[k]);
    CHECK(hb_collect(&m, em) == 8u);
    ecs_entity_manager_free(em);
    two_lives(again);
    for (k = 0; k < 16; ++k) CHECK(again[k].id == es[k].id); /* the same ids: generation 0 again */
    for (k = 8; k < 16; ++k) ecs_entity_destroy(em, again[k]);
    CHECK_MSG(hb_collect(&m, em) == 8u, "kind %d", (int)kind);
    CHECK(hb_num_instances(&m) == 0u);
    hb_free(&m);
    ecs_entity_manager_free(em);
}

static void test_transform_collect_two_lives(void)
{
    ecs_entity_manager *em = &em_at_one_address;
    ecs_entity es[16], again[16];
    ecs_transform_manager tm;
    uint32_t k;
    CHECK(ecs_transform_manager_init(&tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE) == ECS_OK);
    two_lives(es);
    for (k = 0; k < 16; ++k) CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, es[k], NULL, ecs_instance_nil())));
    CHECK(ecs_transform_collect(&tm, em) == 0u);
    for (k = 0; k < 8; ++k) ecs_entity_destroy(em, es[k]);
    CHECK(ecs_transform_collect(&tm, em) == 8u);
    ecs_entity_manager_free(em);
    two_lives(again);
    for (k = 8; k < 16; ++k) ecs_entity_destroy(em, again[k]);
    CHECK(ecs_transform_collect(&tm, em) == 8u);
    for (k = 8; k < 16; ++k) CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tm, again[k])));
    ecs_transform_manager_free(&tm);
    ecs_entity_manager_free(em);
}

/* (14) and (15): the fast read's assert. */
static void test_slot_asserts(void)
{
    hb m;
    ecs_entity e = ecs_entity_make(3, 0), nil = make_id(0);
    static const ecs_field_desc bad_field[1] = {{"v", 0, 4}}; /* size 0: init fails */
    ecs_manager broken;
    CHECK(hb_init(&m, ECS_LOOKUP_DIRECT) == ECS_OK);
    CHECK(!ecs_instance_is_nil(hb_create(&m, e)));
    assert_failures = 0;
    CHECK(hb_slot(&m, e).i == 3u && assert_failures == 0u);
    (void)hb_slot(&m, nil);
    CHECK_MSG(assert_failures == 1u, "name_slot(nil) passed the ownership assert");
    CHECK_MSG(strcmp(last_assert, "ecs__misuse(\"name_slot: the nil entity has no slot\")") == 0, "%s", last_assert);
    (void)hb_slot(&m, ecs_entity_make(3, 1)); /* stale: a destroyed entity's id */
    CHECK(assert_failures == 2u);
    CHECK_MSG(strstr(last_assert, "\"name_slot: the entity does not own the slot of its index: it is dead (destroyed)") &&
                  !strstr(last_assert, "m->entity"), "%s", last_assert);
    hb_free(&m);
    assert_failures = 0;
    CHECK(ecs_manager_init(&broken, bad_field, 1, ECS_LOOKUP_DIRECT) == ECS_ERROR_INVALID_ARGUMENT);
    (void)ecs_manager_slot(&broken, e);
    CHECK(assert_failures >= 1u && strstr(last_assert, "name_slot: ") != NULL);
    assert_failures = 0;
    (void)ecs_manager_slot(&broken, nil);
    CHECK(assert_failures >= 1u);
    CHECK(ecs_instance_is_nil(ecs_manager_lookup(&broken, e)) && ecs_instance_is_nil(ecs_manager_create(&broken, e)));
    ecs_manager_free(&broken);
}

/* The hash kind's large batch (inserted bucket by bucket of home slots):
   every key found, a key already present or listed twice falls back to the
   general path (a second instance, chained), a nil entity changes nothing. */
static void test_hash_batch(void)
{
    enum { N = 300000 };
    static ecs_entity es[N];
    hb m;
    ecs_instance first;
    uint32_t k, bad = 0;
    CHECK(hb_init(&m, ECS_LOOKUP_HASH) == ECS_OK);
    for (k = 0; k < N; ++k) es[k] = ecs_entity_make(1u + (k * 7919u) % 4000000u, k % 5u);
    CHECK(hb_create_many(&m, N / 2, es, &first) == ECS_OK && first.i == 0);
    for (k = 0; k < N / 2; ++k) m.v[k] = k;
    es[N - 1] = make_id(0); /* nil last: refused, nothing changed */
    CHECK(hb_create_many(&m, N / 2, es + N / 2, &first) == ECS_ERROR_INVALID_ARGUMENT && hb_count(&m) == N / 2);
    es[N - 1] = es[0]; /* es[0] again: a second instance */
    CHECK(hb_create_many(&m, N / 2, es + N / 2, &first) == ECS_OK && first.i == N / 2 && hb_count(&m) == N);
    for (k = N / 2; k < N; ++k) m.v[k] = k;
    for (k = 0; k + 1 < N; ++k) bad += hb_lookup(&m, es[k]).i != k || m.v[k] != k || m.core.entity[k].id != es[k].id;
    CHECK(bad == 0u && hb_next(&m, ecs_instance_make(0)).i == N - 1u && m.core.map.count == N - 1u);
    CHECK(hb_create_many(&m, N / 2, es, &first) == ECS_OK && hb_count(&m) == N + N / 2); /* all present: chained */
    CHECK(hb_destroy_entity(&m, es[0]) == 3u && ecs_instance_is_nil(hb_lookup(&m, es[0])));
    hb_free(&m);
}

/* Keys (generation 0) whose home slot in a table of 2^log2cap slots lies
   in [lo, hi), from index `from` on; returns the next index to try. */
static uint32_t keys_homed(ecs_entity *out, uint32_t n, uint32_t log2cap, uint32_t lo, uint32_t hi, uint32_t from)
{
    uint32_t k = 0;
    for (; k < n; ++from) {
        uint32_t home = (ecs_entity_key(ecs_entity_make(from, 0)) * 0x9E3779B1u) >> (32u - log2cap);
        if (home >= lo && home < hi) out[k++] = ecs_entity_make(from, 0);
    }
    return from;
}

/* Every es[k] is found at instance k, its entity array entry is es[k], and
   the map holds exactly n keys. */
static void check_batch_found(hb *m, const ecs_entity *es, uint32_t n)
{
    uint32_t k, bad = 0;
    for (k = 0; k < n; ++k) bad += hb_lookup(m, es[k]).i != k || m->core.entity[k].id != es[k].id || m->v[k] != k;
    CHECK_MSG(bad == 0u, "%u of %u keys wrong", (unsigned)bad, (unsigned)n);
    CHECK(hb_count(m) == n && m->core.map.count == n && m->core.num_instances == n);
}

/* The hash kind's batch at least as big as the table's keys (built
   wholesale: old and new keys bucketed by home, placed window by window):
   into an empty table; into a table holding keys, with a second instance
   chained; runs longer than a window and runs that wrap around the end;
   a key already present or listed twice falls back, a nil one changes
   nothing. */
static void test_hash_build(void)
{
    enum { N = 4096 };
    static ecs_entity es[3 * N];
    hb m;
    ecs_instance first;
    uint32_t k, from;
    /* 4096 keys: 8192 slots (2^13), windows of 1024; 1500 homed at the end
       of window 0 (a run through window 1 into window 2), 1500 homed in the
       last 16 slots (a run that wraps to slot 0), the rest anywhere */
    from = keys_homed(es, 1500, 13, 1008, 1024, 1);
    from = keys_homed(es + 1500, 1500, 13, 8176, 8192, from);
    for (k = 3000; k < N; ++k) es[k] = ecs_entity_make(from + k * 13u, 1);
    CHECK(hb_init(&m, ECS_LOOKUP_HASH) == ECS_OK);
    CHECK(hb_create_many(&m, N, es, &first) == ECS_OK && first.i == 0 && m.core.map.mask + 1u == 8192u);
    for (k = 0; k < N; ++k) m.v[k] = k;
    check_batch_found(&m, es, N);
    CHECK(ecs_instance_is_nil(hb_lookup(&m, ecs_entity_make(from + 3u, 1))));
    /* a second batch of as many new keys: rebuilt with the old keys (one
       of them with a second instance, chained from its first) */
    CHECK(hb_create(&m, es[7]).i == N);
    m.v[N] = 7;
    for (k = N; k < 2 * N; ++k) es[k + 1] = ecs_entity_make(from + 100000u + k * 5u, 2);
    es[N] = es[7]; /* keep instance N's entity at its place in es */
    CHECK(hb_create_many(&m, N, es + N + 1, &first) == ECS_OK && first.i == N + 1u);
    for (k = N + 1; k < 2 * N + 1; ++k) m.v[k] = k;
    m.v[N] = N;
    for (k = 0; k < 2 * N + 1; ++k) CHECK(k == N || hb_lookup(&m, es[k]).i == k);
    CHECK(hb_next(&m, ecs_instance_make(7)).i == N && m.core.map.count == 2 * N && hb_count(&m) == 2 * N + 1);
    hb_free(&m);
    /* a batch repeating a key already present, or one of its own: the
       general path chains a second instance; nil: refused, nothing changed */
    CHECK(hb_init(&m, ECS_LOOKUP_HASH) == ECS_OK);
    CHECK(hb_create_many(&m, 10, es, &first) == ECS_OK);
    for (k = 0; k < N; ++k) es[2 * N + k] = ecs_entity_make(from + 500000u + k, 3);
    es[3 * N - 1] = es[5]; /* present already */
    CHECK(hb_create_many(&m, N, es + 2 * N, &first) == ECS_OK && first.i == 10u && hb_count(&m) == N + 10u);
    CHECK(hb_next(&m, ecs_instance_make(5)).i == N + 9u && m.core.map.count == N + 9u);
    CHECK(hb_create_many(&m, 2, es + 2 * N + 100, &first) == ECS_OK && hb_count(&m) == N + 12u);
    hb_free(&m);
    CHECK(hb_init(&m, ECS_LOOKUP_HASH) == ECS_OK);
    es[2 * N + 10] = es[2 * N + 20]; /* twice in the batch */
    CHECK(hb_create_many(&m, N, es + 2 * N, &first) == ECS_OK && hb_count(&m) == N && m.core.map.count == N - 1u);
    CHECK(hb_next(&m, ecs_instance_make(10)).i == 20u);
    hb_free(&m);
    CHECK(hb_init(&m, ECS_LOOKUP_HASH) == ECS_OK);
    es[2 * N + 4000] = make_id(0);
    CHECK(hb_create_many(&m, N, es + 2 * N, &first) == ECS_ERROR_INVALID_ARGUMENT && hb_count(&m) == 0u);
    CHECK(m.core.map.count == 0u && ecs_instance_is_nil(hb_lookup(&m, es[2 * N])));
    hb_free(&m);
}

/* A message wrapped in more context through its own buffer (the pattern the
   spawn and plugin paths use): the old text survives inside the new one. */
static void test_error_wraps_own_message(void)
{
    ecs_error err;
    ecs_error_set(&err, ECS_ERROR_OUT_OF_MEMORY, "inner %d", 42);
    ecs_error_set(&err, ECS_ERROR_SPAWN_FAILED, "outer: %s (again: %s)", err.message, err.message);
    CHECK(err.code == ECS_ERROR_SPAWN_FAILED);
    CHECK_MSG(strcmp(err.message, "outer: inner 42 (again: inner 42)") == 0, "got '%s'", err.message);
}

int main(void)
{
    test_error_wraps_own_message();
    test_dense_batch_all_or_nothing();
    test_dead_id_keeps_live_slot();
    test_collect_two_lives(ECS_LOOKUP_DENSE);
    test_collect_two_lives(ECS_LOOKUP_HASH);
    test_collect_two_lives(ECS_LOOKUP_DIRECT);
    test_transform_collect_two_lives();
    test_slot_asserts();
    test_hash_batch();
    test_hash_build();
    return test_report("test_ecs_hardening");
}
