/* tests/test_ecs_exhaust.c - a small index space (ECS_INDEX_BITS 11) runs
   out: create returns nil and reports, and nothing alive is disturbed. */
#define ECS_INDEX_BITS 11
#define ECS_GENERATION_BITS 8
#define ECS_IMPLEMENTATION
#include "ecs.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    enum { SPACE = (1 << 11) - 1 }; /* indices 1..2047 */
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
    for (k = 0; k < 10; ++k) CHECK(ecs_entity_destroy(&em, es[k * 100u]) == 1);
    CHECK(em.num_free == 10u);
    CHECK(ecs_entity_create_many(&em, 11, batch) == ECS_ERROR_INDICES_EXHAUSTED);
    CHECK(em.num_free == 10u);
    CHECK(ecs_entity_create_many(&em, 4, batch) == ECS_OK);
    CHECK(ecs_entity_index(batch[0]) == ecs_entity_index(es[0]) && ecs_entity_generation(batch[0]) == 1u);
    for (k = 0; k < 6; ++k) {
        e = ecs_entity_create(&em);
        CHECK(!ecs_entity_is_nil(e));
        CHECK(ecs_entity_index(e) == ecs_entity_index(es[(k + 4u) * 100u]));
        CHECK(!ecs_entity_alive(&em, es[(k + 4u) * 100u])); /* the old id stays dead */
    }
    e = ecs_entity_create(&em);
    CHECK(ecs_entity_is_nil(e) && em.error.code == ECS_ERROR_INDICES_EXHAUSTED);
    CHECK(ecs_entity_count(&em) == SPACE);
    for (k = 0, ok = 1; k < n; ++k)
        if (k % 100u != 0u || k >= 1000u) ok &= (uint32_t)ecs_entity_alive(&em, es[k]);
    CHECK(ok == 1u);
    free(es);
    ecs_entity_manager_free(&em);
    return test_report("test_ecs_exhaust");
}
