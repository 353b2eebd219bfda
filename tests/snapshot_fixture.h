/* tests/snapshot_fixture.h - the snapshot tests' world: one store of each
   kind (a grouped dense and hash pair, a direct one, a hash store with
   several instances per entity, a tag, a raw manager, a transform store),
   random churn over it, and a consistency check. Include after the
   implementations of ecs.h, ecs_transform.h, ecs_resource.h and
   ecs_snapshot.h, test.h and test_rng.h. */
#ifndef SNAPSHOT_FIXTURE_H_INCLUDED
#define SNAPSHOT_FIXTURE_H_INCLUDED
#include <stdlib.h>
#include <string.h>

#include "snapshot_schemas.h"

/* ---- a world with one store of each kind ---------------------------------------- */

#define NUM_MANAGERS 6
#define MAX_IDS 4096
#define WITH_GROUP 1
#define WITH_RAW 2 /* a manager without a schema: saved in this machine's order only */
#define WITH_NESTED 4 /* with WITH_GROUP: {body, health} and {tag, raw} nested in {body, health, tag, raw} */
typedef struct test_world {
    ecs_world w;
    ecs_entity ids[MAX_IDS]; /* ids handed out (the churn picks from them; copied with the world) */
    uint32_t num_ids;
    ecs_transform_manager tm;
    ecs_manager *m[NUM_MANAGERS]; /* body (dense, grouped), health (hash, grouped), heading (direct),
                                     items (hash, several per entity), tag (dense, no fields), raw (dense, no schema) */
} test_world;

static int make_world(test_world *t, ecs_transform_mode mode, int flags)
{
    ecs_error err;
    static const char *const group[] = {"body", "health"}, *const nested[] = {"body", "health", "tag", "raw"};
    int ok = ecs_world_init(&t->w) == ECS_OK;
    ok = ok && ecs_transform_manager_init(&t->tm, ECS_LOOKUP_DENSE, mode) == ECS_OK;
    t->m[0] = ok ? ecs_world_define_schema(&t->w, "body", body_schema, 2, ECS_LOOKUP_DENSE, &err) : NULL;
    t->m[1] = t->m[0] ? ecs_world_define_schema(&t->w, "health", health_schema, 6, ECS_LOOKUP_HASH, &err) : NULL;
    t->m[2] = t->m[1] ? ecs_world_define_schema(&t->w, "heading", heading_schema, 1, ECS_LOOKUP_DIRECT, &err) : NULL;
    t->m[3] = t->m[2] ? ecs_world_define_schema(&t->w, "items", item_schema, 2, ECS_LOOKUP_HASH, &err) : NULL;
    t->m[4] = t->m[3] ? ecs_world_define(&t->w, "tag", NULL, 0, ECS_LOOKUP_DENSE, &err) : NULL;
    t->m[5] = t->m[4] ? ecs_world_define(&t->w, "raw", raw_fields, (flags & WITH_RAW) ? 2u : 0u, ECS_LOOKUP_DENSE, &err) : NULL;
    t->num_ids = 0;
    ok = t->m[5] && ecs_transform_world_register(&t->w, "transform", &t->tm, &err) == ECS_OK;
    if (ok && (flags & WITH_GROUP)) ok = ecs_world_group(&t->w, group, 2, &err) == ECS_OK;
    if (ok && (flags & WITH_NESTED))
        ok = ecs_world_group(&t->w, nested + 2, 2, &err) == ECS_OK && ecs_world_group(&t->w, nested, 4, &err) == ECS_OK;
    return ok;
}

static void free_world(test_world *t)
{
    ecs_world_free(&t->w);
    ecs_transform_manager_free(&t->tm);
}

/* A random id handed out so far (alive or not). */
static ecs_entity pick(const test_world *t)
{
    return t->num_ids ? t->ids[rnd_below(t->num_ids)] : make_id(0);
}

static void remember(test_world *t, ecs_entity e)
{
    if (t->num_ids < MAX_IDS) t->ids[t->num_ids++] = e;
    else t->ids[rnd_below(MAX_IDS)] = e;
}

/* b's copy of a's ids (a snapshot restores the world, the test keeps its handles). */
static void copy_ids(test_world *b, const test_world *a)
{
    memcpy(b->ids, a->ids, sizeof a->ids);
    b->num_ids = a->num_ids;
}

static void fill_random(ecs_manager *m, ecs_instance i)
{
    uint32_t k, b;
    for (k = 0; k < m->num_fields; ++k) {
        unsigned char *p = (unsigned char *)ecs_manager_field(m, k, i.i);
        for (b = 0; b < m->fields[k].size; ++b) p[b] = (unsigned char)rnd();
        if (m->schema && m->schema->fields[k].kind == ECS_FIELD_BOOL) p[0] &= 1u;
    }
}

static ecs_mat4 random_local(void)
{
    ecs_vec3 t;
    t.x = (float)rnd_below(100);
    t.y = (float)rnd_below(100) * 0.5f;
    t.z = -(float)rnd_below(50);
    return ecs_mat4_translation(t);
}

/* One random operation; the same sequence on equal worlds keeps them equal. */
static void churn_step(test_world *t)
{
    ecs_entity e = pick(t);
    uint32_t op = rnd_below(16), which = rnd_below(NUM_MANAGERS);
    ecs_manager *m = t->m[which];
    ecs_instance i;
    switch (op) {
    case 0: case 1: case 2:
        remember(t, ecs_entity_create(&t->w.entities));
        break;
    case 3:
        (void)ecs_entity_destroy(&t->w.entities, e);
        break;
    case 4: case 5: case 6:
        if (!ecs_entity_alive(&t->w.entities, e)) break;
        if ((which == 0 || which == 1 || which == 2) && !ecs_instance_is_nil(ecs_manager_lookup(m, e))) break;
        i = ecs_manager_create(m, e);
        if (!ecs_instance_is_nil(i)) fill_random(m, i);
        break;
    case 7:
        i = ecs_manager_lookup(m, e);
        if (!ecs_instance_is_nil(i)) (void)ecs_manager_destroy(m, i);
        break;
    case 8:
        i = ecs_manager_lookup(m, e);
        if (!ecs_instance_is_nil(i)) fill_random(m, i);
        break;
    case 9: {
        ecs_mat4 local = random_local();
        ecs_instance parent = t->tm.count && rnd_below(4) ? ecs_instance_make(rnd_below(t->tm.count)) : ecs_instance_nil();
        if (ecs_entity_alive(&t->w.entities, e)) (void)ecs_transform_create(&t->tm, e, &local, parent);
        break;
    }
    case 10:
        if (t->tm.count > 1) (void)ecs_transform_link(&t->tm, ecs_instance_make(rnd_below(t->tm.count)),
                                                      ecs_instance_make(rnd_below(t->tm.count)));
        break;
    case 11:
        if (t->tm.count) {
            ecs_mat4 local = random_local();
            (void)ecs_transform_set_local(&t->tm, ecs_instance_make(rnd_below(t->tm.count)), &local);
        }
        break;
    case 12:
        if (t->tm.count) (void)ecs_transform_destroy(&t->tm, ecs_instance_make(rnd_below(t->tm.count)));
        break;
    case 13:
        (void)ecs_world_collect(&t->w, NULL);
        break;
    case 14:
        (void)ecs_manager_gc(m, &t->w.entities);
        (void)ecs_transform_gc(&t->tm, &t->w.entities);
        break;
    default:
        if (t->tm.mode == ECS_TRANSFORM_DEFERRED) ecs_transform_commit(&t->tm);
        else if (t->tm.count) (void)ecs_transform_unlink(&t->tm, ecs_instance_make(rnd_below(t->tm.count)));
        break;
    }
}

static void churn(test_world *t, uint32_t steps)
{
    uint32_t k;
    for (k = 0; k < steps; ++k) churn_step(t);
}

/* Every instance of every manager is found from its entity. */
static int consistent(const test_world *t)
{
    uint32_t k, i;
    for (k = 0; k < NUM_MANAGERS; ++k) {
        const ecs_manager *m = t->m[k];
        for (i = 0; i < m->count; ++i) {
            ecs_instance x;
            if (m->lookup == ECS_LOOKUP_DIRECT && m->entity[i].id == 0) continue;
            for (x = ecs_manager_lookup(m, m->entity[i]); !ecs_instance_is_nil(x) && x.i != i; x = ecs_manager_next(m, x)) continue;
            if (x.i != i) return 0;
        }
    }
    for (i = 0; i < t->tm.count; ++i)
        if (ecs_transform_lookup(&t->tm, t->tm.entity[i]).i != i) return 0;
    return 1;
}

/* Runs the same churn on a and b from the same seed: every step's hash equal. */
static int same_future(test_world *a, test_world *b, uint32_t steps, uint64_t seed)
{
    uint32_t k;
    for (k = 0; k < steps; ++k) {
        rng_state = seed + k;
        churn_step(a);
        rng_state = seed + k;
        churn_step(b);
        if (ecs_snapshot_world_hash(&a->w) != ecs_snapshot_world_hash(&b->w)) return 0;
    }
    return consistent(a) && consistent(b);
}

#endif
