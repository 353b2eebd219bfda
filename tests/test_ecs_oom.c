/* tests/test_ecs_oom.c - an allocator that fails on the k-th call, for every
   k: each failing call reports ECS_ERROR_OUT_OF_MEMORY (or nil) and leaves the
   entity manager and a dense component manager as they were. */
#include <stdlib.h>
#include <string.h>
static unsigned long oom_calls, oom_fail_at;
static void *oom_realloc(void *p, size_t n)
{
    if (++oom_calls == oom_fail_at) return NULL;
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

/* Runs a fixed scenario; returns 1 if some allocation failed. Every step
   checks that a failure changed nothing. */
static int scenario(void)
{
    ecs_entity_manager em;
    oom_mgr m;
    ecs_entity es[3000];
    uint32_t n = 0, k, alive_before, count_before, failed = 0, ok = 1;
    ecs_entity_manager_init(&em);
    if (oom_mgr_init(&m, ECS_LOOKUP_DENSE) != ECS_OK) {
        CHECK(m.core.error.code == ECS_ERROR_OUT_OF_MEMORY);
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
    if (ecs_entity_create_many(&em, 1000, es + n) != ECS_OK) {
        CHECK(em.error.code == ECS_ERROR_OUT_OF_MEMORY && ecs_entity_count(&em) == alive_before);
        CHECK(es[n].id == 0u);
        failed = 1;
    } else {
        n += 1000;
    }
    for (k = 0; k < n; ++k) {
        ecs_instance i;
        count_before = oom_mgr_count(&m);
        i = oom_mgr_create(&m, es[k]);
        if (ecs_instance_is_nil(i)) {
            CHECK(m.core.error.code == ECS_ERROR_OUT_OF_MEMORY && oom_mgr_count(&m) == count_before);
            CHECK(ecs_instance_is_nil(oom_mgr_lookup(&m, es[k])));
            failed = 1;
            continue;
        }
        m.pos[i.i].x = (float)k;
        if (k % 7u == 0u) { /* a second instance: needs the next-link array */
            ecs_instance j = oom_mgr_create(&m, es[k]);
            if (ecs_instance_is_nil(j)) {
                CHECK(oom_mgr_count(&m) == count_before + 1u);
                CHECK(ecs_instance_is_nil(oom_mgr_next(&m, i)));
                failed = 1;
            } else {
                m.pos[j.i].x = -(float)k;
            }
        }
    }
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
    /* destroy never fails; an index that cannot be queued is retired */
    k = ecs_entity_destroy_many(&em, n, es);
    CHECK(k == n);
    CHECK(em.num_free + em.num_retired == n);
    if (em.num_retired) failed = 1;
    for (k = 0; k < 100000 && oom_mgr_count(&m); ++k) oom_mgr_gc(&m, &em);
    CHECK(oom_mgr_count(&m) == 0u);
    oom_mgr_free(&m);
    ecs_entity_manager_free(&em);
    return (int)failed;
}

int main(void)
{
    unsigned long k, total, failures_seen = 0;
    oom_fail_at = 0;
    oom_calls = 0;
    scenario();
    total = oom_calls;
    CHECK(total > 10u);
    for (k = 1; k <= total; ++k) {
        oom_calls = 0;
        oom_fail_at = k;
        failures_seen += (unsigned long)scenario();
    }
    CHECK(failures_seen == total);
    return test_report("test_ecs_oom");
}
