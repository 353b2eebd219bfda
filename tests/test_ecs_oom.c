/* tests/test_ecs_oom.c - an allocator that fails on the k-th call (once, or
   from then on), for every k and every lookup kind: each failing call reports
   ECS_ERROR_OUT_OF_MEMORY (or nil) and leaves the entity manager and the
   component manager as they were; nothing leaks (LeakSanitizer). Also: sizes
   that overflow fail before anything is allocated or written. */
#include <stdlib.h>
#include <string.h>
static unsigned long oom_calls, oom_fail_at;
static int oom_fail_after;      /* 1: every call from oom_fail_at on fails */
static size_t oom_largest;      /* the largest size asked for */
static void *oom_realloc(void *p, size_t n)
{
    ++oom_calls;
    if (n > oom_largest) oom_largest = n;
    if (oom_fail_at && (oom_calls == oom_fail_at || (oom_fail_after && oom_calls > oom_fail_at))) return NULL;
    if (n > ((size_t)1 << 30)) return NULL; /* never hand a test a gigabyte */
    return realloc(p, n);
}
#define ECS_REALLOC(p, n) oom_realloc(p, n)
#define ECS_FREE(p) free(p)
#define ECS_IMPLEMENTATION
#include "ecs.h"
#include "test.h"

typedef struct v3 { float x, y, z; } v3;
#define OOM_FIELDS(X) X(v3, pos) X(v3, vel)
ECS_MANAGER_DEFINE(oom_mgr, OOM_FIELDS)

static void noop_cb(void *user, ecs_entity e) { (void)user; (void)e; }

/* Adds instances one at a time (and a second one for some, except in the
   direct kind); every failure must change nothing. Returns 1 if one failed. */
static int add_one_by_one(oom_mgr *m, ecs_lookup_kind kind, const ecs_entity *es, uint32_t n)
{
    uint32_t k, count_before;
    int failed = 0;
    for (k = 0; k < n; ++k) {
        ecs_instance i;
        count_before = oom_mgr_num_instances(m);
        i = oom_mgr_create(m, es[k]);
        if (ecs_instance_is_nil(i)) {
            CHECK(m->core.error.code == ECS_ERROR_OUT_OF_MEMORY && oom_mgr_num_instances(m) == count_before);
            CHECK(ecs_instance_is_nil(oom_mgr_lookup(m, es[k])));
            failed = 1;
            continue;
        }
        m->pos[i.i].x = (float)k;
        if (k % 7u == 0u && kind != ECS_LOOKUP_DIRECT) { /* a second instance: needs the next-link array */
            ecs_instance j = oom_mgr_create(m, es[k]);
            if (ecs_instance_is_nil(j)) {
                CHECK(oom_mgr_num_instances(m) == count_before + 1u);
                CHECK(ecs_instance_is_nil(oom_mgr_next(m, i)));
                failed = 1;
            } else {
                m->pos[j.i].x = -(float)k;
            }
        }
    }
    return failed;
}

/* A batch add: all or nothing. */
static int add_batch(oom_mgr *m, const ecs_entity *es, uint32_t n, uint32_t base)
{
    uint32_t before = oom_mgr_num_instances(m), k;
    ecs_instance first;
    if (oom_mgr_create_many(m, n, es, &first) != ECS_OK) {
        CHECK(m->core.error.code == ECS_ERROR_OUT_OF_MEMORY && oom_mgr_num_instances(m) == before);
        for (k = 0; k < n; ++k) CHECK(ecs_instance_is_nil(oom_mgr_lookup(m, es[k])));
        return 1;
    }
    for (k = 0; k < n; ++k) m->pos[oom_mgr_lookup(m, es[k]).i].x = (float)(base + k);
    return 0;
}

/* Destroys es[0..n-1]; those refused (out of memory growing the free
   queue) must be alive still, and go when asked again with memory.
   Returns 1 if some destroy was refused. */
static int destroy_all(ecs_entity_manager *em, const ecs_entity *es, uint32_t n)
{
    uint32_t count = ecs_entity_count(em), k = ecs_entity_destroy_many(em, n, es), alive = 0;
    unsigned long fail_at = oom_fail_at;
    if (k == n) return 0;
    CHECK(em->error.code == ECS_ERROR_OUT_OF_MEMORY && strstr(em->error.message, "free queue"));
    CHECK(ecs_entity_count(em) == count - k && em->num_retired == 0u);
    for (k = 0; k < n; ++k) alive += (uint32_t)ecs_entity_live(em, es[k]);
    CHECK(ecs_entity_count(em) == count - n + alive);
    oom_fail_at = 0;
    CHECK(ecs_entity_destroy_many(em, n, es) == alive);
    oom_fail_at = fail_at;
    CHECK(ecs_entity_count(em) == count - n);
    return 1;
}

/* Runs a fixed scenario; returns 1 if some allocation failed. */
static int scenario(ecs_lookup_kind kind)
{
    ecs_entity_manager em;
    oom_mgr m;
    ecs_entity es[3000];
    uint32_t n = 0, k, alive_before, ok = 1;
    int failed = 0;
    ecs_entity_manager_init(&em);
    if (oom_mgr_init(&m, kind) != ECS_OK) { /* a manager on which every call fails cleanly */
        CHECK(m.core.error.code == ECS_ERROR_OUT_OF_MEMORY);
        CHECK(ecs_instance_is_nil(oom_mgr_create(&m, ecs_entity_make(1, 0))) && oom_mgr_num_instances(&m) == 0u);
        oom_mgr_free(&m);
        return 1;
    }
    if (ecs_entity_on_destroy(&em, noop_cb, NULL) != ECS_OK) {
        CHECK(em.error.code == ECS_ERROR_OUT_OF_MEMORY && em.num_callbacks == 0u);
        failed = 1;
    }
    for (k = 0; k < 1500; ++k) {
        ecs_entity e = ecs_entity_create(&em);
        if (ecs_entity_is_nil(e)) {
            CHECK(em.error.code == ECS_ERROR_OUT_OF_MEMORY);
            CHECK(ecs_entity_count(&em) == n);
            failed = 1;
            continue;
        }
        es[n++] = e;
    }
    alive_before = ecs_entity_count(&em);
    es[n].id = 12345u;
    if (ecs_entity_create_many(&em, 1000, es + n) != ECS_OK) {
        CHECK(em.error.code == ECS_ERROR_OUT_OF_MEMORY && ecs_entity_count(&em) == alive_before);
        CHECK(es[n].id == 12345u); /* out untouched */
        failed = 1;
    } else {
        n += 1000;
    }
    failed |= add_one_by_one(&m, kind, es, n > 1200 ? 1200 : n);
    if (n > 1200) failed |= add_batch(&m, es + 1200, n - 1200, 1200);
    /* everything that was created is intact */
    for (k = 0; k < n; ++k) {
        ecs_instance i = oom_mgr_lookup(&m, es[k]);
        ok &= (uint32_t)ecs_entity_alive(&em, es[k]);
        if (!ecs_instance_is_nil(i)) {
            ecs_instance j = oom_mgr_next(&m, i);
            ok &= m.pos[i.i].x == (float)k;
            if (!ecs_instance_is_nil(j)) ok &= m.pos[j.i].x == -(float)k;
        }
    }
    CHECK(ok == 1u);
    /* a destroy refused for want of ring memory changes nothing (the
       entity stays alive, no index is lost); asked again, it goes */
    oom_mgr_collect(&m, &em);
    failed |= destroy_all(&em, es, n / 2u);
    oom_mgr_collect(&m, &em);
    for (k = 0; k < oom_mgr_count(&m); ++k)
        if (!ecs_entity_is_nil(m.entity[k])) ok &= (uint32_t)ecs_entity_alive(&em, m.entity[k]);
    CHECK(ok == 1u);
    failed |= destroy_all(&em, es + n / 2u, n - n / 2u);
    CHECK(em.num_free == n && em.num_retired == 0u && ecs_entity_count(&em) == 0u);
    /* the bits that mark queued indices could not be allocated: destroy
       went on (scanning the queue) and said so in em.error */
    if (em.error.code == ECS_ERROR_OUT_OF_MEMORY && strstr(em.error.message, "queued indices")) failed = 1;
    for (k = 0; k < 100000 && oom_mgr_num_instances(&m); ++k) oom_mgr_gc(&m, &em);
    CHECK(oom_mgr_num_instances(&m) == 0u);
    oom_mgr_free(&m);
    ecs_entity_manager_free(&em);
    return failed;
}

/* Sizes that overflow: refused before any allocation or write. */
static void test_oversized(void)
{
    ecs_entity_manager em;
    ecs_entity small[4];
    static const ecs_field_desc big = {"big", 1u << 20, 16};
    ecs_manager m;
    uint32_t k;
    ecs_entity_manager_init(&em);
    for (k = 0; k < 4; ++k) small[k].id = 777u;
    oom_largest = 0;
    CHECK(ecs_entity_create_many(&em, 0xFFFFFFFFu, small) == ECS_ERROR_INDICES_EXHAUSTED);
    CHECK(ecs_entity_create_many(&em, ECS_INDEX_MASK + 1u, small) == ECS_ERROR_INDICES_EXHAUSTED); /* index 0 is never used */
    for (k = 0; k < 4; ++k) CHECK(small[k].id == 777u);
    CHECK(oom_largest == 0u && ecs_entity_count(&em) == 0u);
    CHECK(ecs_manager_init(&m, &big, 1, ECS_LOOKUP_DENSE) == ECS_OK);
    oom_largest = 0;
    CHECK(ecs_manager_reserve(&m, 0xFFFFFFFFu) == ECS_ERROR_OUT_OF_MEMORY);
    /* 4 billion 1 MiB records: on 32-bit the bytes do not fit in size_t and
       nothing is asked for; on 64-bit the ask is the exact size (refused) */
    CHECK(sizeof(size_t) > 4 ? oom_largest >= (size_t)0xFFFFFFFFu * (1u << 20) : oom_largest == 0u);
    CHECK(m.capacity == 0u && m.count == 0u);
    ecs_manager_free(&m);
    ecs_entity_manager_free(&em);
}

/* Issue 19 (2): 32,000 one-byte fields aligned to 4,096 need about 4.4 GB
   for 16 instances with their alignment padding: on 32-bit that wraps
   size_t, so init refuses the layout; on 64-bit the ask is the true size. */
static void test_padding_overflow(void)
{
    enum { N = 32000 };
    ecs_field_desc *fields = (ecs_field_desc *)malloc(N * sizeof *fields);
    static const ecs_lookup_kind kinds[3] = {ECS_LOOKUP_DENSE, ECS_LOOKUP_HASH, ECS_LOOKUP_DIRECT};
    const uint64_t true_size = (uint64_t)4000u << 20;
    uint32_t k;
    for (k = 0; k < N; ++k) {
        fields[k].name = NULL;
        fields[k].size = 1;
        fields[k].align = 4096;
    }
    for (k = 0; k < 3; ++k) {
        ecs_manager m;
        ecs_result r;
        oom_largest = 0;
        r = ecs_manager_init(&m, fields, N, kinds[k]);
        if (sizeof(size_t) == 4) {
            CHECK_MSG(r == ECS_ERROR_INVALID_ARGUMENT && strstr(m.error.message, "do not fit"), "kind %d: %s", (int)kinds[k],
                      m.error.message);
            CHECK(oom_largest < ((size_t)1 << 20) && m.capacity == 0u);
        } else if (kinds[k] == ECS_LOOKUP_DIRECT) { /* init reserves 16 slots: refused by the allocator */
            CHECK(r == ECS_ERROR_OUT_OF_MEMORY && oom_largest >= true_size);
        } else {
            CHECK(r == ECS_OK);
            oom_largest = 0;
            CHECK(ecs_manager_reserve(&m, 16) == ECS_ERROR_OUT_OF_MEMORY && oom_largest >= true_size);
        }
        CHECK(ecs_instance_is_nil(ecs_manager_create(&m, ecs_entity_make(1, 0))) && m.capacity == 0u);
        ecs_manager_free(&m);
    }
    free(fields);
}

/* The hash kind's big batch (built wholesale: scratch and the new table
   come first) into an empty table and into one holding keys (one with a
   second instance), failing at each allocation in turn: a failed call
   changes nothing, the next one succeeds. */
static void test_hash_build_oom(void)
{
    enum { OLD = 300, N = 5000 };
    static ecs_entity es[OLD + N];
    uint32_t k, start, bad;
    unsigned long at;
    for (k = 0; k < OLD + N; ++k) es[k] = ecs_entity_make(1u + k * 3u, k % 3u);
    for (start = 0; start <= OLD; start += OLD) { /* 0: empty table */
        int done = 0;
        for (at = 1; !done; ++at) {
            oom_mgr m;
            ecs_instance first;
            ecs_result r;
            oom_fail_at = 0;
            CHECK(oom_mgr_init(&m, ECS_LOOKUP_HASH) == ECS_OK);
            for (k = 0; k < start; ++k) {
                ecs_instance i = oom_mgr_create(&m, es[k]); /* (before m.pos is read: create may move it) */
                m.pos[i.i].x = (float)k;
            }
            if (start) {
                ecs_instance i = oom_mgr_create(&m, es[1]);
                m.pos[i.i].x = -1.0f;
            }
            oom_calls = 0;
            oom_fail_at = at;
            r = oom_mgr_create_many(&m, N, es + OLD, &first);
            oom_fail_at = 0;
            done = oom_calls < at;
            CHECK(done ? r == ECS_OK : r == ECS_ERROR_OUT_OF_MEMORY);
            CHECK(oom_mgr_count(&m) == (r == ECS_OK ? (uint32_t)N : 0u) + start + (start ? 1u : 0u));
            for (k = 0, bad = 0; k < start; ++k) bad += m.pos[oom_mgr_lookup(&m, es[k]).i].x != (float)k;
            if (start) bad += m.pos[oom_mgr_next(&m, oom_mgr_lookup(&m, es[1])).i].x != -1.0f;
            for (k = 0; k < N; ++k)
                bad += r == ECS_OK ? oom_mgr_lookup(&m, es[OLD + k]).i != first.i + k : !ecs_instance_is_nil(oom_mgr_lookup(&m, es[OLD + k]));
            CHECK_MSG(bad == 0u, "start %u, failing at %lu: %u wrong", (unsigned)start, at, (unsigned)bad);
            oom_mgr_free(&m);
        }
        CHECK(at > 3u); /* the arrays, the scratch and the table could each fail */
    }
}

/* Review defects (2026-11-27), both failed before. Callbacks nested past
   the 16 the list holds, out of memory to grow it: they used to run
   unguarded, so a chain back to an entity ran its callbacks twice (fail
   once) or until the stack overflowed (fail from then on); now that
   destroy is refused, nothing ran for it. And a destroy out of memory for
   the ring's first growth: now refused with nothing changed (it used to
   retire the index; see test_refused_destroy). */
static ecs_entity_manager chain_em;
static ecs_entity chain_next[64];
static int chain_runs[64];
static void chain_cb(void *user, ecs_entity e)
{
    uint32_t idx = ecs_entity_index(e);
    (void)user;
    ++chain_runs[idx];
    if (chain_runs[idx] < 100 && !ecs_entity_is_nil(chain_next[idx])) ecs_entity_destroy(&chain_em, chain_next[idx]);
}
static void check_nested_callbacks(int after)
{
    ecs_entity c[18], warm;
    uint32_t k, twice = 0;
    memset(chain_next, 0, sizeof chain_next);
    memset(chain_runs, 0, sizeof chain_runs);
    ecs_entity_manager_init(&chain_em);
    warm = ecs_entity_create(&chain_em);
    for (k = 0; k < 18; ++k) c[k] = ecs_entity_create(&chain_em);
    for (k = 0; k < 17; ++k) chain_next[ecs_entity_index(c[k])] = c[k + 1]; /* 18 deep ... */
    chain_next[ecs_entity_index(c[17])] = c[16];                            /* ... the last two take each other */
    CHECK(ecs_entity_on_destroy(&chain_em, chain_cb, NULL) == ECS_OK);
    CHECK(ecs_entity_destroy(&chain_em, warm) == 1); /* the ring and bits exist: the next allocation is the list's */
    oom_calls = 0;
    oom_fail_at = 1;
    oom_fail_after = after;
    CHECK(ecs_entity_destroy(&chain_em, c[0]) == 1);
    oom_fail_at = 0;
    oom_fail_after = 0;
    for (k = 0; k < 18; ++k) twice += chain_runs[ecs_entity_index(c[k])] > 1;
    CHECK_MSG(twice == 0u, "%u entities' callbacks ran more than once", (unsigned)twice);
    CHECK(chain_em.error.code == ECS_ERROR_OUT_OF_MEMORY && strstr(chain_em.error.message, "nesting destroy callbacks"));
    CHECK(ecs_entity_alive(&chain_em, c[16]) && chain_runs[ecs_entity_index(c[16])] == 0); /* refused: nothing ran */
    CHECK(!ecs_entity_alive(&chain_em, c[15]) && chain_runs[ecs_entity_index(c[15])] == 1);
    ecs_entity_manager_free(&chain_em);
}
static void test_review_defects(void)
{
    ecs_entity_manager em;
    ecs_entity e[3];
    uint32_t idx, refused = 0;
    unsigned long f;
    check_nested_callbacks(0);
    check_nested_callbacks(1);
    for (f = 1; f <= 4; ++f) { /* the allocation that fails the ring's first growth: e[1]'s destroy is refused */
        ecs_entity_manager_init(&em);
        CHECK(ecs_entity_create_many(&em, 3, e) == ECS_OK);
        oom_calls = 0;
        oom_fail_at = f;
        idx = ecs_entity_index(e[1]);
        if (ecs_entity_destroy(&em, e[1]) == 0) {
            ++refused;
            CHECK(em.error.code == ECS_ERROR_OUT_OF_MEMORY && strstr(em.error.message, "free queue"));
            CHECK(ecs_entity_live(&em, e[1]) && em.num_free == 0u && em.num_retired == 0u && ecs_entity_count(&em) == 3u);
        }
        oom_fail_at = 0;
        CHECK(!ecs_entity_live(&em, e[1]) || ecs_entity_destroy(&em, e[1]) == 1);
        CHECK(ecs_entity_count(&em) == 2u && em.num_free == 1u && em.num_retired == 0u);
        CHECK(!ecs_entity_live(&em, ecs_entity_make(idx, em.generation[idx])) && ecs_entity_live(&em, e[0]));
        ecs_entity_manager_free(&em);
    }
    CHECK(refused == 1u);
}

/* Review defect (stop 34): a destroy out of memory for the ring retired
   the index, kept out of the queue by its queued bit; a rebuild of the
   bits (ecs_entity_manager_invalidate, a second out of memory) dropped
   that bit, and the index's next id, never handed out, tested live:
   destroy took it, ecs_entity_count was one low for good and the index
   was handed out again. Now the destroy is refused with nothing changed.
   rebuild 0: invalidate; 1: the bits lost to a second out of memory. */
static uint32_t live_by_index(const ecs_entity_manager *em)
{
    uint32_t i, n = 0;
    for (i = 1; i <= em->max_index; ++i) n += (uint32_t)ecs_entity_live(em, ecs_entity_make(i, em->generation[i]));
    return n;
}
static ecs_entity refused_es[2101];
static void check_refused_destroy(int rebuild)
{
    ecs_entity_manager em;
    ecs_entity r, next;
    uint32_t k, count;
    ecs_entity_manager_init(&em);
    for (k = 0; k < 2000; ++k) refused_es[k] = ecs_entity_create(&em);
    for (k = 0; k < 1024; ++k) CHECK(ecs_entity_destroy(&em, refused_es[k]) == 1); /* the ring is full */
    r = refused_es[1500];
    next = ecs_entity_make(ecs_entity_index(r), ecs_entity_generation(r) + 1u); /* r's index's next id */
    count = ecs_entity_count(&em);
    oom_calls = 0;
    oom_fail_at = 1; /* the ring cannot grow */
    CHECK(ecs_entity_destroy(&em, r) == 0);
    oom_fail_at = 0;
    CHECK(em.error.code == ECS_ERROR_OUT_OF_MEMORY && strstr(em.error.message, "free queue"));
    CHECK(ecs_entity_live(&em, r) && !ecs_entity_alive(&em, next) && ecs_entity_count(&em) == count);
    CHECK(em.num_free == 1024u && em.num_retired == 0u);
    if (rebuild == 0) {
        ecs_entity_manager_invalidate(&em);
    } else {
        for (k = 2000; k < 2101; ++k) refused_es[k] = ecs_entity_create(&em); /* the bits must grow */
        count += 101u;
        oom_calls = 0;
        oom_fail_at = 1; /* the bits' growth: dropped, then built from the ring */
        CHECK(ecs_entity_destroy(&em, refused_es[2000]) == 1);
        oom_fail_at = 0;
        CHECK(em.error.code == ECS_ERROR_OUT_OF_MEMORY && strstr(em.error.message, "queued indices"));
        CHECK(ecs_entity_destroy(&em, refused_es[2001]) == 1); /* the bits were built again from the ring */
        count -= 2u;
    }
    CHECK_MSG(!ecs_entity_live(&em, next) && ecs_entity_destroy(&em, next) == 0, "rebuild %d", rebuild);
    CHECK_MSG(ecs_entity_count(&em) == count && live_by_index(&em) == count, "rebuild %d: count %u, live %u, want %u",
              rebuild, (unsigned)ecs_entity_count(&em), (unsigned)live_by_index(&em), (unsigned)count);
    CHECK(ecs_entity_live(&em, r) && ecs_entity_destroy(&em, r) == 1 && ecs_entity_count(&em) == count - 1u);
    for (k = 0; k < 3000; ++k) CHECK(ecs_entity_live(&em, ecs_entity_create(&em)));
    CHECK(ecs_entity_count(&em) == count + 2999u && live_by_index(&em) == count + 2999u);
    ecs_entity_manager_free(&em);
}

/* A callback's nested destroy needs a ring slot of its own besides its
   caller's: the caller reserved one, so the nested destroy grows the ring
   first and, out of memory, is refused (its entity keeps living); the
   caller's index is queued. Before, the nested one took the caller's slot
   and the caller's index was retired. */
static ecs_entity_manager nest_em;
static ecs_entity nest_partner;
static uint32_t nest_refused;
static void nest_cb(void *user, ecs_entity e)
{
    (void)user;
    if (!ecs_entity_is_nil(nest_partner) && ecs_entity_index(e) != ecs_entity_index(nest_partner))
        nest_refused += ecs_entity_destroy(&nest_em, nest_partner) == 0;
}
static void check_refused_nested(void)
{
    ecs_entity a;
    uint32_t k, count;
    ecs_entity_manager_init(&nest_em);
    nest_partner.id = 0;
    nest_refused = 0;
    for (k = 0; k < 2000; ++k) refused_es[k] = ecs_entity_create(&nest_em);
    for (k = 0; k < 1023; ++k) CHECK(ecs_entity_destroy(&nest_em, refused_es[k]) == 1); /* one slot left */
    CHECK(ecs_entity_on_destroy(&nest_em, nest_cb, NULL) == ECS_OK);
    a = refused_es[1500];
    nest_partner = refused_es[1600];
    count = ecs_entity_count(&nest_em);
    oom_calls = 0;
    oom_fail_at = 1;
    oom_fail_after = 1; /* nothing can grow */
    CHECK(ecs_entity_destroy(&nest_em, a) == 1);
    oom_fail_at = 0;
    oom_fail_after = 0;
    CHECK(nest_refused == 1u && ecs_entity_live(&nest_em, nest_partner) && !ecs_entity_alive(&nest_em, a));
    CHECK(nest_em.num_retired == 0u && nest_em.num_free == 1024u && ecs_entity_count(&nest_em) == count - 1u);
    CHECK(live_by_index(&nest_em) == count - 1u);
    ecs_entity_manager_free(&nest_em);
}

static void test_refused_destroy(void)
{
    check_refused_destroy(0);
    check_refused_destroy(1);
    check_refused_nested();
}

int main(void)
{
    static const ecs_lookup_kind kinds[3] = {ECS_LOOKUP_HASH, ECS_LOOKUP_DENSE, ECS_LOOKUP_DIRECT};
    unsigned long k, total, failures_seen;
    int kind, after;
    test_review_defects();
    test_refused_destroy();
    for (kind = 0; kind < 3; ++kind)
        for (after = 0; after < 2; ++after) {
            oom_fail_at = 0;
            oom_calls = 0;
            scenario(kinds[kind]);
            total = oom_calls;
            CHECK(total > 10u);
            failures_seen = 0;
            oom_fail_after = after;
            for (k = 1; k <= total; ++k) {
                oom_calls = 0;
                oom_fail_at = k;
                failures_seen += (unsigned long)scenario(kinds[kind]);
            }
            CHECK_MSG(failures_seen == total, "kind %d, after %d: %lu of %lu", kind, after, failures_seen, total);
            oom_fail_at = 0;
            oom_fail_after = 0;
        }
    test_oversized();
    test_padding_overflow();
    test_hash_build_oom();
    return test_report("test_ecs_oom");
}
