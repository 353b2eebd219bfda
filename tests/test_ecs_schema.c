/* tests/test_ecs_schema.c - ecs.h's schemas: ECS_MANAGER_DEFINE_SCHEMA (the
   typed struct, the kinds' C types, the table it gives), a runtime manager
   from a schema, a schema attached to a typed manager of ECS_MANAGER_DEFINE,
   every refusal of ecs_manager_set_schema, and ecs_manager_spawn reading
   schema records: runtime fields zero-filled, entity references resolved per
   copy in every lookup kind, a reference past the resource refused before
   anything is created. An allocator that fails at every call checks that a
   failing init or set_schema changes nothing and leaks nothing. */
#include <stdbool.h> /* `bool` is a macro here: the kind name must still work */
#include <stdlib.h>
#include <string.h>
#include "oom_alloc.h"
#define ECS_IMPLEMENTATION
#include "ecs.h"
#include "test.h"

/* A turret: every kind once, a reference to its ship, runtime state. */
#define TURRET_SCHEMA(X)                                      \
    X(f32, range, "{\"default\": 10, \"min\": 0}")            \
    X(f64, cooldown, "0.5")                                   \
    X(i32, ammo, "-1")                                        \
    X(u32, flags, "0")                                        \
    X(u64, seed, "0")                                         \
    X(bool, armed, "true")                                    \
    X(vec2, aim, "[0, 0]")                                    \
    X(vec3, offset, "[0, 1, 0]")                              \
    X(vec4, tint, "[1, 1, 1, 1]")                             \
    X(quat, turn, "[0, 0, 0, 1]")                             \
    X(mat4, mount, "[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]")    \
    X(path, model, "\"models/turret\"")                       \
    X(entity, ship, ECS_FIELD_REQUIRED)                       \
    X(entity, target, "null")                                 \
    X(f32, heat, ECS_FIELD_RUNTIME)                           \
    X(mat4, world, ECS_FIELD_RUNTIME)
ECS_MANAGER_DEFINE_SCHEMA(turret, TURRET_SCHEMA)

/* The record size: every field but the two runtime ones. */
#define TURRET_RECORD (4 + 8 + 4 + 4 + 8 + 1 + 8 + 12 + 16 + 16 + 64 + 8 + 4 + 4)
#define TURRET_SHIP_AT (4 + 8 + 4 + 4 + 8 + 1 + 8 + 12 + 16 + 16 + 64 + 8)

/* The small integer kinds (issue 24): a sprite's char and a small enum. */
#define SPRITE_SCHEMA(X)                                        \
    X(u8, glyph, "{\"default\": 64, \"min\": 32, \"max\": 126}") \
    X(i8, layer, "-1")                                           \
    X(u16, frame, "0")                                           \
    X(i16, offset, "-300")
ECS_MANAGER_DEFINE_SCHEMA(sprite, SPRITE_SCHEMA)

static void test_small_kinds(void)
{
    sprite s;
    uint32_t n;
    const ecs_schema_field *table = sprite_schema(&n);
    ecs_instance i;
    CHECK(sizeof *s.glyph == 1 && sizeof *s.layer == 1 && sizeof *s.frame == 2 && sizeof *s.offset == 2);
    CHECK(n == 4 && table[0].kind == ECS_FIELD_U8 && table[1].kind == ECS_FIELD_I8 && table[2].kind == ECS_FIELD_U16 &&
          table[3].kind == ECS_FIELD_I16);
    CHECK(strcmp(ecs_field_kind_name(ECS_FIELD_I8), "i8") == 0 && strcmp(ecs_field_kind_name(ECS_FIELD_U16), "u16") == 0);
    CHECK(ecs_field_kind_size(ECS_FIELD_U8) == 1 && ecs_field_kind_size(ECS_FIELD_I16) == 2);
    CHECK(sprite_init(&s, ECS_LOOKUP_DENSE) == ECS_OK && ecs_manager_record_size(&s.core) == 6u);
    i = sprite_create(&s, ecs_entity_make(3, 0));
    s.layer[i.i] = -1;
    s.offset[i.i] = -300;
    CHECK(s.layer[i.i] < 0 && s.offset[i.i] == -300); /* signed C types */
    sprite_free(&s);
}

typedef struct v3 {
    float x, y, z;
} v3;
#define BODY_FIELDS(X) X(v3, pos) X(ecs_entity, other)
ECS_MANAGER_DEFINE(body, BODY_FIELDS)

static void test_typed(void)
{
    turret t;
    uint32_t n, k;
    const ecs_schema_field *table = turret_schema(&n);
    ecs_entity_manager em;
    ecs_entity e;
    ecs_instance i;
    CHECK(n == 16 && strcmp(table[5].name, "armed") == 0 && table[5].kind == ECS_FIELD_BOOL);
    CHECK(table[12].kind == ECS_FIELD_ENTITY && strcmp(table[12].spec, ECS_FIELD_REQUIRED) == 0);
    CHECK(table[14].spec == NULL && table[15].spec == ECS_FIELD_RUNTIME);
    /* the kinds' C types */
    CHECK(sizeof *t.range == 4 && sizeof *t.cooldown == 8 && sizeof *t.armed == 1 && sizeof *t.offset == 12);
    CHECK(sizeof *t.turn == sizeof(ecs_quat) && sizeof *t.mount == 64 && sizeof *t.model == 8);
    CHECK(sizeof *t.ship == sizeof(ecs_entity));
    for (k = 0; k < n; ++k) CHECK(ecs_field_kind_size(table[k].kind) > 0);
    CHECK(strcmp(ecs_field_kind_name(ECS_FIELD_VEC3), "vec3") == 0 && strcmp(ecs_field_kind_name((ecs_field_kind)ECS_FIELD_KIND_COUNT), "?") == 0);
    CHECK(ecs_field_kind_size((ecs_field_kind)0) == 0 && ecs_field_kind_size(ECS_FIELD_MAT4) == 64);

    ecs_entity_manager_init(&em);
    CHECK(turret_init(&t, ECS_LOOKUP_DENSE) == ECS_OK);
    CHECK(ecs_manager_schema(&t.core) != NULL);
    CHECK(ecs_manager_schema(&t.core)->record_size == TURRET_RECORD);
    CHECK(ecs_manager_schema(&t.core)->num_entity_fields == 2 && ecs_manager_schema(&t.core)->num_runtime_fields == 2);
    CHECK(ecs_manager_schema(&t.core)->fields != table); /* a copy */
    e = ecs_entity_create(&em);
    i = turret_create(&t, e);
    CHECK(!ecs_instance_is_nil(i) && t.armed[i.i] == 0 && t.heat[i.i] == 0.0f); /* create zero-fills */
    t.offset[i.i].y = 2.0f;
    t.ship[i.i] = e;
    CHECK(turret_lookup(&t, e).i == i.i && turret_destroy_entity(&t, e) == 1 && turret_count(&t) == 0);
    turret_free(&t);
    CHECK(ecs_manager_schema(&t.core) == NULL);
    ecs_entity_manager_free(&em);
}

static void test_set_schema(void)
{
    static const ecs_schema_field good[] = {{"pos", ECS_FIELD_VEC3, "[0, 0, 0]"}, {"other", ECS_FIELD_ENTITY, "null"}};
    static const ecs_schema_field renamed[] = {{"pos", ECS_FIELD_VEC3, "0"}, {"another", ECS_FIELD_ENTITY, "null"}};
    static const ecs_schema_field resized[] = {{"pos", ECS_FIELD_VEC4, "0"}, {"other", ECS_FIELD_ENTITY, "null"}};
    static const ecs_schema_field typed[] = {{"pos", ECS_FIELD_VEC3, "0"}, {"type", ECS_FIELD_ENTITY, "null"}};
    static const ecs_schema_field nokind[] = {{"pos", ECS_FIELD_VEC3, "0"}, {"other", (ecs_field_kind)0, "null"}};
    static const ecs_schema_field twice[] = {{"pos", ECS_FIELD_F32, "0"}, {"pos", ECS_FIELD_F32, "0"}};
    static const ecs_field_desc two_floats[] = {{"pos", 4, 4}, {"pos", 4, 4}};
    body b;
    ecs_manager m;
    CHECK(body_init(&b, ECS_LOOKUP_HASH) == ECS_OK);
    CHECK(ecs_manager_set_schema(&b.core, good, 1) == ECS_ERROR_INVALID_ARGUMENT && strstr(b.core.error.message, "1 entries for 2"));
    CHECK(ecs_manager_set_schema(&b.core, renamed, 2) == ECS_ERROR_INVALID_ARGUMENT && strstr(b.core.error.message, "another"));
    CHECK(ecs_manager_set_schema(&b.core, resized, 2) == ECS_ERROR_INVALID_ARGUMENT && strstr(b.core.error.message, "16 bytes"));
    CHECK(ecs_manager_set_schema(&b.core, typed, 2) == ECS_ERROR_INVALID_ARGUMENT && strstr(b.core.error.message, "\"type\""));
    CHECK(ecs_manager_set_schema(&b.core, nokind, 2) == ECS_ERROR_INVALID_ARGUMENT && strstr(b.core.error.message, "no kind"));
    CHECK(ecs_manager_set_schema(&b.core, NULL, 2) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_manager_schema(&b.core) == NULL);
    CHECK(ecs_manager_set_schema(&b.core, good, 2) == ECS_OK && ecs_manager_schema(&b.core)->record_size == 16);
    CHECK(ecs_manager_set_schema(&b.core, good, 2) == ECS_OK); /* replaces (no leak) */
    body_free(&b);
    CHECK(ecs_manager_init(&m, two_floats, 2, ECS_LOOKUP_DENSE) == ECS_OK);
    CHECK(ecs_manager_set_schema(&m, twice, 2) == ECS_ERROR_INVALID_ARGUMENT && strstr(m.error.message, "two fields"));
    ecs_manager_free(&m);
    /* a runtime manager straight from a schema; a bad schema leaves one that refuses every call */
    CHECK(ecs_manager_init_schema(&m, good, 2, ECS_LOOKUP_DIRECT) == ECS_OK && m.num_fields == 2 && m.fields[0].size == 12);
    ecs_manager_free(&m);
    CHECK(ecs_manager_init_schema(&m, twice, 2, ECS_LOOKUP_HASH) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_manager_reserve(&m, 4) == ECS_ERROR_INVALID_ARGUMENT && ecs_manager_schema(&m) == NULL);
    ecs_manager_free(&m);
    CHECK(ecs_manager_init_schema(&m, nokind, 2, ECS_LOOKUP_HASH) == ECS_ERROR_INVALID_ARGUMENT);
    ecs_manager_free(&m);
    CHECK(ecs_manager_init_schema(&m, NULL, 3, ECS_LOOKUP_HASH) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_instance_is_nil(ecs_manager_create(&m, ecs_entity_make(1, 0))));
    ecs_manager_free(&m);
}

/* Packs one turret record: ship and target are resource entity indices. */
static void turret_record(unsigned char *rec, float range, uint32_t ship, uint32_t target)
{
    memset(rec, 0, TURRET_RECORD);
    memcpy(rec, &range, 4);
    rec[4 + 8 + 4 + 4 + 8] = 1; /* armed */
    memcpy(rec + TURRET_SHIP_AT, &ship, 4);
    memcpy(rec + TURRET_SHIP_AT + 4, &target, 4);
}

/* Spawns 3 copies of a 4-entity resource with 3 turrets (entity 1 aims at
   its ship 0 and at entity 3; entity 2's ship is itself, no target;
   entity 3's ship is 0) into t and checks every reference. */
static void spawn_copies(turret *t, ecs_entity_manager *em)
{
    unsigned char data[3 * TURRET_RECORD];
    uint32_t index[3] = {1, 2, 3}, c, j;
    ecs_entity ents[12];
    ecs_spawn_context ctx;
    ecs_error err;
    turret_record(data, 5.0f, 0, 3);
    turret_record(data + TURRET_RECORD, 6.0f, 2, ECS_SPAWN_ROOT);
    turret_record(data + 2 * TURRET_RECORD, 7.0f, 0, 1);
    CHECK(ecs_entity_create_many(em, 12, ents) == ECS_OK);
    ctx.entities = em, ctx.parent_index = NULL, ctx.num_entities = 4, ctx.error = &err;
    for (c = 0; c < 3; ++c) {
        ctx.entity = ents + 4 * c;
        /* heat is garbage before: spawn must zero it */
        CHECK_MSG(ecs_manager_spawn(&t->core, &ctx, 3, index, data, sizeof data) == ECS_OK, "%s", err.message);
    }
    CHECK(turret_num_instances(t) == 9);
    for (c = 0; c < 3; ++c)
        for (j = 0; j < 3; ++j) {
            ecs_instance i = turret_lookup(t, ents[4 * c + 1 + j]);
            CHECK(!ecs_instance_is_nil(i));
            if (ecs_instance_is_nil(i)) continue;
            CHECK(t->range[i.i] == 5.0f + (float)j && t->armed[i.i] == 1 && t->heat[i.i] == 0.0f);
            CHECK(t->world[i.i].m[5] == 0.0f);
            CHECK(t->ship[i.i].id == ents[4 * c + (j == 1 ? 2 : 0)].id);
            CHECK(t->target[i.i].id == (j == 0 ? ents[4 * c + 3].id : j == 1 ? 0u : ents[4 * c + 1].id));
        }
    for (c = 0; c < 3; ++c) {
        ctx.entity = ents + 4 * c;
        ecs_manager_unspawn(&t->core, &ctx, 3, index, data, sizeof data);
    }
    CHECK(turret_num_instances(t) == 0);
    /* a reference past the resource: refused before anything is created */
    turret_record(data + TURRET_RECORD, 6.0f, 4, ECS_SPAWN_ROOT);
    ctx.entity = ents;
    CHECK(ecs_manager_spawn(&t->core, &ctx, 3, index, data, sizeof data) == ECS_ERROR_CORRUPT_RESOURCE);
    CHECK(strstr(err.message, "instance 1's ship refers to resource entity 4") != NULL && turret_num_instances(t) == 0);
    CHECK(ecs_manager_spawn(&t->core, &ctx, 3, index, data, sizeof data - 1) == ECS_ERROR_SPAWN_FAILED);
    ecs_entity_destroy_many(em, 12, ents);
}

static void test_spawn(void)
{
    ecs_lookup_kind kinds[3] = {ECS_LOOKUP_HASH, ECS_LOOKUP_DENSE, ECS_LOOKUP_DIRECT};
    ecs_entity_manager em;
    int k;
    ecs_entity_manager_init(&em);
    for (k = 0; k < 3; ++k) {
        turret t;
        CHECK(turret_init(&t, kinds[k]) == ECS_OK);
        spawn_copies(&t, &em);
        turret_free(&t);
    }
    /* ecs_spawn_resolve */
    {
        ecs_entity es[2];
        ecs_spawn_context ctx;
        es[0] = ecs_entity_make(5, 1), es[1] = ecs_entity_make(6, 2);
        ctx.entity = es, ctx.num_entities = 2;
        CHECK(ecs_spawn_resolve(&ctx, 1).id == es[1].id && ecs_spawn_resolve(&ctx, ECS_SPAWN_ROOT).id == 0);
        CHECK(ecs_spawn_resolve(&ctx, 2).id == 0);
    }
    ecs_entity_manager_free(&em);
}

/* One record size: ecs_manager_record_size is the schema's record, which
   spawn and create_many both read (runtime fields zero-filled; create_many
   copies entity fields as entity ids). */
static void test_record_size(void)
{
    ecs_lookup_kind kinds[3] = {ECS_LOOKUP_HASH, ECS_LOOKUP_DENSE, ECS_LOOKUP_DIRECT};
    unsigned char data[2 * TURRET_RECORD];
    ecs_entity es[2];
    int k;
    es[0] = ecs_entity_make(7, 0), es[1] = ecs_entity_make(9, 3);
    turret_record(data, 3.0f, es[1].id, 0);
    turret_record(data + TURRET_RECORD, 4.0f, es[0].id, es[1].id);
    for (k = 0; k < 3; ++k) {
        turret t;
        ecs_instance first;
        uint32_t j;
        CHECK(turret_init(&t, kinds[k]) == ECS_OK);
        CHECK(ecs_manager_record_size(&t.core) == TURRET_RECORD && ecs_manager_schema(&t.core)->record_size == TURRET_RECORD);
        CHECK(ecs_manager_create_many(&t.core, 2, es, data, &first) == ECS_OK);
        for (j = 0; j < 2; ++j) {
            ecs_instance i = turret_lookup(&t, es[j]);
            CHECK(!ecs_instance_is_nil(i) && t.range[i.i] == 3.0f + (float)j && t.armed[i.i] == 1);
            CHECK(t.ship[i.i].id == es[1 - j].id && t.target[i.i].id == (j ? es[1].id : 0u));
            CHECK(t.heat[i.i] == 0.0f && t.world[i.i].m[15] == 0.0f);
        }
        turret_free(&t);
    }
}

/* Every allocation of init (with its schema copy) and set_schema failing. */
static void test_out_of_memory(void)
{
    static const ecs_schema_field good[] = {{"pos", ECS_FIELD_VEC3, "[0, 0, 0]"}, {"other", ECS_FIELD_ENTITY, "null"}};
    unsigned long at;
    for (at = 1; at < 20; ++at) {
        turret t;
        body b;
        ecs_result r;
        oom_calls = 0, oom_fail_at = at;
        r = turret_init(&t, ECS_LOOKUP_DENSE);
        CHECK(r == ECS_OK || (r == ECS_ERROR_OUT_OF_MEMORY && ecs_manager_schema(&t.core) == NULL &&
                              ecs_manager_reserve(&t.core, 1) != ECS_OK));
        turret_free(&t);
        oom_fail_at = 0;
        CHECK(body_init(&b, ECS_LOOKUP_HASH) == ECS_OK);
        oom_calls = 0, oom_fail_at = at;
        r = ecs_manager_set_schema(&b.core, good, 2);
        CHECK(r == ECS_OK || (r == ECS_ERROR_OUT_OF_MEMORY && ecs_manager_schema(&b.core) == NULL));
        oom_fail_at = 0;
        body_free(&b);
    }
}

int main(void)
{
    test_typed();
    test_small_kinds();
    test_set_schema();
    test_spawn();
    test_record_size();
    test_out_of_memory();
    return test_report("test_ecs_schema");
}
