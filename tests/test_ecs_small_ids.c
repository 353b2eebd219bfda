/* tests/test_ecs_small_ids.c - ids at the small end of the configuration
   (ECS_INDEX_BITS 3, ECS_GENERATION_BITS 2, ECS_MINIMUM_FREE_INDICES 0: an
   index comes round to the same id after 4 destroys). The direct kind finds
   an instance whose generation is not 0 (its 16 slots outnumber the 7
   indices, and lookup kept the generation bits: it read another slot), and
   exact collection leaves alone a live entity whose id was logged dead
   earlier in the same window (the generation wrapped: every kind, the
   transform store, ecs_world_collect). */
#define ECS_INDEX_BITS 3
#define ECS_GENERATION_BITS 2
#define ECS_MINIMUM_FREE_INDICES 0
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_TRANSFORM_IMPLEMENTATION
#include "ecs_transform.h"
#include "test.h"

#define HP_FIELDS(X) X(float, hp)
ECS_MANAGER_DEFINE(small_hp, HP_FIELDS)

static void test_direct_lookup(void)
{
    ecs_entity_manager em;
    small_hp m;
    ecs_entity e;
    uint32_t k, found = 0, made = 0;
    ecs_entity_manager_init(&em);
    CHECK(small_hp_init(&m, ECS_LOOKUP_DIRECT) == ECS_OK);
    for (k = 0; k < 12; ++k) { /* every generation of the first indices */
        ecs_instance i;
        e = ecs_entity_create(&em);
        i = small_hp_create(&m, e);
        made += !ecs_instance_is_nil(i);
        found += !ecs_instance_is_nil(i) && small_hp_lookup(&m, e).i == i.i;
        CHECK(small_hp_destroy_entity(&m, e) == 1u && ecs_instance_is_nil(small_hp_lookup(&m, e)));
        ecs_entity_destroy(&em, e);
    }
    CHECK(ecs_entity_generation(e) != 0u);
    CHECK_MSG(made == 12u && found == 12u, "%u of %u instances found by lookup", found, made);
    small_hp_free(&m);
    ecs_entity_manager_free(&em);
}

/* One collect window in which index x is destroyed 4 times (its id comes
   round) and then handed out live with instances in every store. */
static void check_collect_window(ecs_lookup_kind kind)
{
    ecs_world w;
    ecs_error err;
    small_hp m;
    ecs_transform_manager tm;
    ecs_entity first, e;
    uint32_t k;
    CHECK(ecs_world_init(&w) == ECS_OK);
    CHECK(small_hp_init(&m, kind) == ECS_OK && ecs_world_add_manager(&w, "hp", &m.core, &err) == ECS_OK);
    CHECK(ecs_transform_manager_init(&tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE) == ECS_OK);
    CHECK(ecs_transform_world_register(&w, "transform", &tm, &err) == ECS_OK);
    (void)ecs_entity_create(&w.entities); /* a first entity: a log read before it counts as another life */
    (void)ecs_world_collect(&w, NULL);    /* the stores' logs start here */
    first = ecs_entity_create(&w.entities);
    for (k = 0; k < 4; ++k) { /* destroyed: first, then three more lives of its index */
        e = k == 0 ? first : ecs_entity_create(&w.entities);
        CHECK(ecs_entity_index(e) == ecs_entity_index(first));
        ecs_entity_destroy(&w.entities, e);
    }
    e = ecs_entity_create(&w.entities);
    CHECK(e.id == first.id && ecs_entity_live(&w.entities, e)); /* the same id, alive again */
    {
        ecs_instance i = small_hp_create(&m, e); /* before m.hp is read: create grows it */
        CHECK(!ecs_instance_is_nil(i));
        if (!ecs_instance_is_nil(i)) m.hp[i.i] = 7.0f;
    }
    CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, e, NULL, ecs_instance_nil())));
    CHECK(ecs_world_collect(&w, NULL) == 0u);
    CHECK_MSG(!ecs_instance_is_nil(small_hp_lookup(&m, e)) && m.hp[small_hp_lookup(&m, e).i] == 7.0f,
              "kind %d: collect destroyed the live entity's instance", (int)kind);
    CHECK_MSG(!ecs_instance_is_nil(ecs_transform_lookup(&tm, e)), "kind %d: collect destroyed its transform", (int)kind);
    ecs_entity_destroy(&w.entities, e); /* and a real death is still collected */
    CHECK(ecs_world_collect(&w, NULL) == 2u && small_hp_num_instances(&m) == 0u && tm.count == 0u);
    ecs_world_free(&w);
    small_hp_free(&m);
    ecs_transform_manager_free(&tm);
}

int main(void)
{
    test_direct_lookup();
    check_collect_window(ECS_LOOKUP_DIRECT);
    check_collect_window(ECS_LOOKUP_DENSE);
    check_collect_window(ECS_LOOKUP_HASH);
    return test_report("test_ecs_small_ids");
}
