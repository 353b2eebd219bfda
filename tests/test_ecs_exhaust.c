/* tests/test_ecs_exhaust.c - a small index space (ECS_INDEX_BITS 9) runs
   out: create returns nil and reports, and nothing alive is disturbed; a
   dense manager over it finds an entity whose generation is not 0 (below
   10 bits its map started at 1024 slots, more than the indices: create
   wrote one slot and lookup read another). */
#define ECS_INDEX_BITS 9
#define ECS_MINIMUM_FREE_INDICES 256
#define ECS_GENERATION_BITS 8
#define ECS_IMPLEMENTATION
#include "ecs.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    enum { SPACE = (1 << 9) - 1, STEP = 50 }; /* indices 1..511 */
    ecs_entity_manager em;
    ecs_entity *es = (ecs_entity *)malloc((SPACE + 10) * sizeof *es), e, batch[16];
    uint32_t n = 0, k, ok = 1;
    ecs_entity_manager_init(&em);
    for (;;) {
        e = ecs_entity_create(&em);
        if (ecs_entity_is_nil(e)) break;
        es[n++] = e;
        if (n > SPACE) break;
    }
    CHECK(n == SPACE);
    CHECK(e.id == 0u);
    CHECK(em.error.code == ECS_ERROR_INDICES_EXHAUSTED);
    CHECK(strstr(em.error.message, "exhausted") != NULL || strstr(em.error.message, "indices") != NULL);
    for (k = 0; k < n; ++k) ok &= (uint32_t)ecs_entity_alive(&em, es[k]) & (ecs_entity_index(es[k]) == k + 1u);
    CHECK(ok == 1u);
    CHECK(ecs_entity_count(&em) == SPACE);
    /* batch creation fails whole, out untouched, nothing changed */
    memset(batch, 0xAB, sizeof batch);
    CHECK(ecs_entity_create_many(&em, 4, batch) == ECS_ERROR_INDICES_EXHAUSTED);
    for (k = 0; k < 4; ++k) CHECK(batch[k].id == 0xABABABABu);
    CHECK(ecs_entity_count(&em) == SPACE);
    /* a few destroyed: the queue is far below the minimum, but a free index
       beats a failure */
    for (k = 0; k < 10; ++k) CHECK(ecs_entity_destroy(&em, es[k * STEP]) == 1);
    CHECK(em.num_free == 10u);
    CHECK(ecs_entity_create_many(&em, 11, batch) == ECS_ERROR_INDICES_EXHAUSTED);
    CHECK(em.num_free == 10u);
    CHECK(ecs_entity_create_many(&em, 4, batch) == ECS_OK);
    CHECK(ecs_entity_index(batch[0]) == ecs_entity_index(es[0]) && ecs_entity_generation(batch[0]) == 1u);
    for (k = 0; k < 6; ++k) {
        e = ecs_entity_create(&em);
        CHECK(!ecs_entity_is_nil(e));
        CHECK(ecs_entity_index(e) == ecs_entity_index(es[(k + 4u) * STEP]));
        CHECK(!ecs_entity_alive(&em, es[(k + 4u) * STEP])); /* the old id stays dead */
    }
    e = ecs_entity_create(&em);
    CHECK(ecs_entity_is_nil(e) && em.error.code == ECS_ERROR_INDICES_EXHAUSTED);
    CHECK(ecs_entity_count(&em) == SPACE);
    for (k = 0, ok = 1; k < n; ++k)
        if (k % STEP != 0u || k >= 10u * STEP) ok &= (uint32_t)ecs_entity_alive(&em, es[k]);
    CHECK(ok == 1u);
    { /* batch[0] reuses an index: generation 1 */
        static const ecs_field_desc one[] = {{"value", 4, 4}};
        ecs_manager m;
        ecs_instance i;
        CHECK(ecs_manager_init(&m, one, 1, ECS_LOOKUP_DENSE) == ECS_OK);
        CHECK(!ecs_instance_is_nil(ecs_manager_create(&m, es[1]))); /* the map made: the next create takes the fast path */
        i = ecs_manager_create(&m, batch[0]);
        CHECK(!ecs_instance_is_nil(i) && ecs_manager_lookup(&m, batch[0]).i == i.i);
        CHECK(ecs_manager_destroy_entity(&m, batch[0]) == 1u && m.count == 1u && ecs_manager_lookup(&m, es[1]).i == 0u);
        ecs_manager_free(&m);
    }
    free(es);
    ecs_entity_manager_free(&em);
    return test_report("test_ecs_exhaust");
}
