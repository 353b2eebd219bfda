/* tests/test_resource_schema.c - components from data: schemas compiled,
   spawned and decompiled with no hand-written code; entity references
   (resolved per copy, rolled back with a failed spawn); the names block;
   the decompiler's round trip (byte-identical, both byte orders, with and
   without names, the standard level, unregistered blocks, the deepest
   entity chain that compiles) and its refusals (their messages kept);
   every error with its JSON path; and an allocator that fails at each call
   of a compile and a decompile (nothing leaks, nothing half-done). */
#include <stdlib.h>
#include <string.h>
#include "oom_alloc.h"
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#include "resource_fixture.h"
#include "test.h"

#include <math.h>
#include <stdio.h>

static int has(const char *text, const char *part) { return strstr(text, part) != NULL; }

/* Every kind once, a reference, runtime state. */
#include "schema_fixture.h"
ECS_MANAGER_DEFINE_SCHEMA(gadget, GADGET_SCHEMA)
#define GADGET_RECORD (4 + 8 + 4 + 4 + 8 + 1 + 8 + 12 + 16 + 16 + 64 + 8 + 4)

/* A joint between two bodies: two required references. */
#define JOINT_SCHEMA(X) X(entity, a, ECS_FIELD_REQUIRED) X(entity, b, ECS_FIELD_REQUIRED) X(f32, stiffness, "1")
ECS_MANAGER_DEFINE_SCHEMA(joint, JOINT_SCHEMA)

/* The transform's record is a mat4: a plain manager spawns it. */
#define XFORM_SCHEMA(X) X(mat4, local, ECS_FIELD_REQUIRED)
ECS_MANAGER_DEFINE_SCHEMA(xform, XFORM_SCHEMA)
ECS_MANAGER_DEFINE_SCHEMA(meshes, ECS_RESOURCE_MESH_SCHEMA)

/* Nested children, several gadgets on one entity, references forwards,
   backwards, to itself and to nobody, every kind away from its default. */
static const char *const all_kinds =
    "{\"entities\": [\n"
    " {\"name\": \"ship\", \"components\": [\n"
    "   {\"type\": \"transform\", \"position\": [1, 2, 3], \"rotation\": [0, 0.707107, 0, 0.707107]},\n"
    "   {\"type\": \"gadget\", \"power\": 99.5, \"precise\": 1e-300, \"delta\": -2147483648, \"count\": 4294967295,\n"
    "    \"serial\": 18446744073709551615, \"enabled\": false, \"uv\": [0.25, -0.5], \"offset\": [1e-40, -0, 3],\n"
    "    \"color\": [0.1, 0.2, 0.3, 0.4], \"spin\": [0, 0, 1, 0], \"frame\": [2,0,0,0, 0,2,0,0, 0,0,2,0, 5,6,7,1],\n"
    "    \"sound\": \"sounds/engine\", \"target\": \"turret 2\"},\n"
    "   {\"type\": \"gadget\", \"target\": \"ship\", \"sound\": \"#0123456789abcdef\"},\n"
    "   {\"type\": \"mesh\", \"mesh\": \"models/hull\", \"flags\": 7}],\n"
    "  \"children\": [\n"
    "   {\"name\": \"turret 1\", \"components\": [{\"type\": \"gadget\", \"target\": \"ship\", \"power\": 0}],\n"
    "    \"children\": [{\"name\": \"barrel\", \"components\": [{\"type\": \"joint\", \"a\": \"turret 1\", \"b\": \"barrel\"}]}]},\n"
    "   {\"name\": \"turret 2\", \"components\": [{\"type\": \"gadget\", \"target\": null, \"delta\": 7},\n"
    "                                         {\"type\": \"joint\", \"a\": \"ship\", \"b\": \"turret 2\", \"stiffness\": 0.5}]}]},\n"
    " {\"name\": \"caf\\u00e9 \\\"\\u0001\\\"\", \"components\": [{\"type\": \"actor\", \"mass\": 3},\n"
    "                                       {\"type\": \"joint\", \"a\": \"ship\", \"b\": \"barrel\"}]},\n"
    " {\"components\": [{\"type\": \"transform\", \"scale\": [1, 2, 3]}]},\n"
    " {\"name\": \"twin\"}, {\"name\": \"twin\"}\n"
    "]}\n";

static ecs_compiler compiler; /* standard + gadget + joint */

static void register_all(ecs_compiler *c)
{
    ecs_error err;
    uint32_t n;
    const ecs_schema_field *g = gadget_schema(&n);
    ecs_compiler_init(c);
    CHECK(ecs_compiler_register_standard(c, &err) == ECS_OK);
    CHECK_MSG(ecs_compiler_register_schema(c, "gadget", g, n, 150, &err) == ECS_OK, "%s", err.message);
    g = joint_schema(&n);
    CHECK_MSG(ecs_compiler_register_schema(c, "joint", g, n, 300, &err) == ECS_OK, "%s", err.message);
}

static int same_bytes(const ecs_compiler_output *a, const ecs_compiler_output *b)
{
    return a->size == b->size && memcmp(a->blob, b->blob, a->size) == 0;
}

/* compile(json, flags) == compile(decompile(compile(json, flags))), also with
   every member written; returns the decompiled text (caller frees). */
static char *round_trip(const ecs_compiler *c, const char *json, size_t len, uint32_t flags)
{
    ecs_compiler_output first, again;
    ecs_decompile_output text, all;
    ecs_error err;
    char *kept = NULL;
    CHECK_MSG(ecs_compiler_compile(c, json, len, flags, &first, &err) == ECS_OK, "%s", err.message);
    CHECK_MSG(ecs_compiler_decompile(c, first.blob, first.size, ECS_DECOMPILE_CHECK, &text, &err) == ECS_OK, "%s",
              err.message);
    CHECK(text.compile_flags == (flags & (ECS_COMPILER_BIG_ENDIAN | ECS_COMPILER_NAMES)));
    CHECK(ecs_compiler_compile(c, text.json, text.length, text.compile_flags, &again, &err) == ECS_OK);
    CHECK_MSG(same_bytes(&first, &again), "flags %u: %u bytes, then %u", (unsigned)flags, (unsigned)first.size,
              (unsigned)again.size);
    ecs_compiler_output_free(&again);
    CHECK(ecs_compiler_decompile(c, first.blob, first.size, ECS_DECOMPILE_ALL_MEMBERS, &all, &err) == ECS_OK);
    CHECK(all.length > text.length);
    CHECK(ecs_compiler_compile(c, all.json, all.length, all.compile_flags, &again, &err) == ECS_OK);
    CHECK(same_bytes(&first, &again));
    if (text.json) kept = (char *)malloc(text.length + 1);
    if (kept) memcpy(kept, text.json, text.length + 1);
    ecs_compiler_output_free(&first);
    ecs_compiler_output_free(&again);
    ecs_decompile_output_free(&text);
    ecs_decompile_output_free(&all);
    return kept;
}

static void test_round_trips(void)
{
    uint32_t flags;
    for (flags = 0; flags < 8; flags += 1) {
        char *text;
        if (flags & ECS_COMPILER_PREFAB) continue;
        text = round_trip(&compiler, all_kinds, strlen(all_kinds), flags);
        if (!text) continue;
        if (flags & ECS_COMPILER_NAMES) {
            /* with names it reads like its source */
            CHECK(has(text, "{\"name\": \"ship\", \"components\": [") && has(text, "\"sound\": \"sounds/engine\""));
            CHECK(has(text, "\"target\": \"turret 2\"") && has(text, "\"name\": \"caf\xc3\xa9 \\\"\\u0001\\\"\""));
            CHECK(has(text, "{\"type\": \"joint\", \"a\": \"turret 1\", \"b\": \"barrel\"}"));
            CHECK(has(text, "\"mesh\": \"models/hull\""));
        } else {
            /* without: referenced entities get index names, paths their hashes */
            CHECK(has(text, "{\"name\": \"#0\", \"components\": [") && has(text, "\"target\": \"#3\""));
            CHECK(!has(text, "ship") && has(text, "\"sound\": \"#"));
        }
        CHECK(has(text, "\"sound\": \"#0123456789abcdef\"") && has(text, "\"serial\": 18446744073709551615"));
        CHECK(has(text, "\"delta\": -2147483648") && has(text, "\"offset\": [1e-40, -0, 3]"));
        CHECK(has(text, "{\"type\": \"transform\", \"position\": [1, 2, 3], \"rotation\": [0, 0.707, 0, 0.707]}"));
        CHECK(has(text, "{\"type\": \"transform\", \"scale\": [1, 2, 3]}"));
        CHECK(!has(text, "\"heat\""));
        free(text);
    }
}

/* A level like examples/gen_level.c's: transforms with rotations about y,
   meshes on even entities, actors on every tenth, 30% roots, the others
   children of the entity before (chains at most 6 deep). */
static size_t close_entities(char *s, size_t cap, uint32_t open)
{
    size_t used = (size_t)snprintf(s, cap, "}");
    while (open-- > 1) used += (size_t)snprintf(s + used, cap - used, "]}");
    return used;
}

static char *standard_level(uint32_t n, size_t *len)
{
    size_t cap = (size_t)n * 400u + 64u, used = 0;
    char *s = (char *)malloc(cap);
    uint64_t rng = 7;
    uint32_t k, open = 0;
    used += (size_t)snprintf(s + used, cap - used, "{\"entities\": [\n");
    for (k = 0; k < n; ++k) {
        double angle = (double)(fixture_rnd(&rng) % 6283u) / 1000.0;
        if (k > 0 && k % 10u >= 3u && open < 6u) {
            used += (size_t)snprintf(s + used, cap - used, ", \"children\": [\n");
        } else if (k > 0) {
            used += close_entities(s + used, cap - used, open);
            used += (size_t)snprintf(s + used, cap - used, ",\n");
            open = 0;
        }
        used += (size_t)snprintf(s + used, cap - used,
                                 "{\"name\": \"e%u\", \"components\": [{\"type\": \"transform\", \"position\": [%.3f, %.3f, "
                                 "%.3f], \"rotation\": [0, %.6f, 0, %.6f]}",
                                 (unsigned)k, (double)(fixture_rnd(&rng) % 200000u) / 1000.0 - 100.0,
                                 (double)(fixture_rnd(&rng) % 10000u) / 1000.0,
                                 (double)(fixture_rnd(&rng) % 200000u) / 1000.0 - 100.0, sin(angle / 2), cos(angle / 2));
        if (k % 2u == 0)
            used += (size_t)snprintf(s + used, cap - used, ", {\"type\": \"mesh\", \"mesh\": \"models/prop_%02u\", \"flags\": %u}",
                                     (unsigned)(fixture_rnd(&rng) % 16u), (unsigned)(fixture_rnd(&rng) % 4u));
        if (k % 10u == 5)
            used += (size_t)snprintf(s + used, cap - used, ", {\"type\": \"actor\", \"mass\": %.2f, \"radius\": %.2f}",
                                     1.0 + (double)(fixture_rnd(&rng) % 9900u) / 100.0,
                                     0.25 + (double)(fixture_rnd(&rng) % 175u) / 100.0);
        used += (size_t)snprintf(s + used, cap - used, "]");
        ++open;
    }
    used += close_entities(s + used, cap - used, open);
    used += (size_t)snprintf(s + used, cap - used, "\n]}\n");
    *len = used;
    return s;
}

static void test_standard_level(void)
{
    size_t len;
    char *json = standard_level(3000, &len), *text;
    uint32_t flags;
    for (flags = 0; flags < 8; ++flags) {
        if (flags & ECS_COMPILER_PREFAB) continue;
        text = round_trip(&compiler, json, len, flags);
        /* the transforms read like their source: position, rotation, no "local" */
        CHECK(text && !has(text, "\"local\"") && has(text, "\"rotation\": [0, "));
        if (flags & ECS_COMPILER_NAMES) CHECK(text && has(text, "{\"name\": \"e2999\"") && has(text, "models/prop_"));
        free(text);
    }
    free(json);
}

/* ---- spawning references ----------------------------------------------------- */

typedef struct world {
    ecs_entity_manager em;
    xform xf;
    meshes mesh;
    gadget g;
    joint j;
    ecs_spawner sp;
} world;

static ecs_result failing_spawn(void *user, const ecs_spawn_context *ctx, uint32_t n, const uint32_t *index,
                                const void *data, uint32_t size)
{
    (void)user, (void)n, (void)index, (void)data, (void)size;
    return ecs_error_set(ctx->error, ECS_ERROR_SPAWN_FAILED, "actors refuse today");
}

static void failing_unspawn(void *user, const ecs_spawn_context *ctx, uint32_t n, const uint32_t *index,
                            const void *data, uint32_t size)
{
    (void)user, (void)ctx, (void)n, (void)index, (void)data, (void)size;
}

static void world_init(world *w, int actors_fail)
{
    ecs_entity_manager_init(&w->em);
    CHECK(xform_init(&w->xf, ECS_LOOKUP_DENSE) == ECS_OK && meshes_init(&w->mesh, ECS_LOOKUP_HASH) == ECS_OK);
    CHECK(gadget_init(&w->g, ECS_LOOKUP_HASH) == ECS_OK && joint_init(&w->j, ECS_LOOKUP_DENSE) == ECS_OK);
    ecs_spawner_init(&w->sp);
    CHECK(ecs_spawner_register(&w->sp, "transform", ecs_manager_spawn, ecs_manager_unspawn, 64, &w->xf.core, NULL) == 0);
    CHECK(ecs_spawner_register(&w->sp, "mesh", ecs_manager_spawn, ecs_manager_unspawn, ECS_RESOURCE_MESH_SIZE,
                               &w->mesh.core, NULL) == ECS_OK);
    CHECK(ecs_spawner_register(&w->sp, "gadget", ecs_manager_spawn, ecs_manager_unspawn, GADGET_RECORD, &w->g.core,
                               NULL) == ECS_OK);
    CHECK(ecs_spawner_register(&w->sp, "joint", ecs_manager_spawn, ecs_manager_unspawn,
                               ecs_manager_schema(&w->j.core)->record_size, &w->j.core, NULL) == ECS_OK);
    if (actors_fail)
        CHECK(ecs_spawner_register(&w->sp, "actor", failing_spawn, failing_unspawn, 8, NULL, NULL) == ECS_OK);
}

static void world_free(world *w)
{
    ecs_spawner_free(&w->sp);
    xform_free(&w->xf);
    meshes_free(&w->mesh);
    gadget_free(&w->g);
    joint_free(&w->j);
    ecs_entity_manager_free(&w->em);
}

/* Resource entities of all_kinds: 0 ship, 1 turret 1, 2 barrel, 3 turret 2,
   4 café, 5 unnamed, 6 and 7 twins. */
static void check_copy(const world *w, const ecs_entity *e)
{
    ecs_instance i = gadget_lookup(&w->g, e[0]), k;
    CHECK(!ecs_instance_is_nil(i) && w->g.target[i.i].id == e[3].id && w->g.power[i.i] == 99.5f);
    CHECK(w->g.serial[i.i] == 18446744073709551615ull && w->g.enabled[i.i] == 0 && w->g.delta[i.i] == INT32_MIN);
    CHECK(w->g.sound[i.i] == ecs_path_hash("sounds/engine") && w->g.frame[i.i].m[12] == 5.0f);
    k = gadget_next(&w->g, i); /* the second gadget of the ship aims at the ship */
    CHECK(!ecs_instance_is_nil(k) && w->g.target[k.i].id == e[0].id && w->g.sound[k.i] == 0x0123456789abcdefull);
    i = gadget_lookup(&w->g, e[1]);
    CHECK(!ecs_instance_is_nil(i) && w->g.target[i.i].id == e[0].id && w->g.sound[i.i] == ecs_path_hash("sounds/hum"));
    i = gadget_lookup(&w->g, e[3]);
    CHECK(!ecs_instance_is_nil(i) && w->g.target[i.i].id == 0 && w->g.delta[i.i] == 7 && w->g.heat[i.i] == 0.0f);
    i = joint_lookup(&w->j, e[2]);
    CHECK(!ecs_instance_is_nil(i) && w->j.a[i.i].id == e[1].id && w->j.b[i.i].id == e[2].id);
    i = joint_lookup(&w->j, e[4]);
    CHECK(!ecs_instance_is_nil(i) && w->j.a[i.i].id == e[0].id && w->j.b[i.i].id == e[2].id && w->j.stiffness[i.i] == 1.0f);
}

static void test_spawn_references(void)
{
    ecs_compiler_output out;
    ecs_error err;
    ecs_entity ents[24];
    world w;
    uint32_t c;
    CHECK(ecs_compiler_compile(&compiler, all_kinds, strlen(all_kinds), ECS_COMPILER_NAMES, &out, &err) == ECS_OK);
    world_init(&w, 0);
    CHECK_MSG(ecs_spawner_spawn(&w.sp, &w.em, out.blob, out.size, ents, &err) == ECS_OK, "%s", err.message);
    check_copy(&w, ents);
    CHECK(ecs_spawner_unspawn(&w.sp, &w.em, out.blob, 1, ents) == 8);
    /* three copies, each aiming at its own entities */
    CHECK_MSG(ecs_spawner_spawn_copies(&w.sp, &w.em, out.blob, out.size, 3, ents, &err) == ECS_OK, "%s", err.message);
    for (c = 0; c < 3; ++c) check_copy(&w, ents + 8 * c);
    CHECK(gadget_num_instances(&w.g) == 12 && joint_num_instances(&w.j) == 9);
    CHECK(ecs_spawner_unspawn(&w.sp, &w.em, out.blob, 3, ents) == 24 && gadget_num_instances(&w.g) == 0);
    world_free(&w);
    /* all or nothing: actors (after gadgets, before joints) fail: the gadgets
       with their references are undone, no entity stays */
    world_init(&w, 1);
    CHECK(ecs_spawner_spawn_copies(&w.sp, &w.em, out.blob, out.size, 2, ents, &err) == ECS_ERROR_SPAWN_FAILED);
    CHECK(has(err.message, "actors refuse today") && ecs_entity_count(&w.em) == 0);
    CHECK(gadget_num_instances(&w.g) == 0 && joint_num_instances(&w.j) == 0 && xform_num_instances(&w.xf) == 0);
    world_free(&w);
    ecs_compiler_output_free(&out);
}

/* ---- errors ------------------------------------------------------------------- */

static void expect_error(const char *json, ecs_result code, const char *part)
{
    ecs_compiler_output out;
    ecs_error err;
    ecs_result r = ecs_compiler_compile(&compiler, json, strlen(json), 0, &out, &err);
    CHECK_MSG(r == code, "%s: got %s: %s", json, ecs_result_name(r), err.message);
    CHECK_MSG(has(err.message, part), "%s: message '%s' lacks '%s'", json, err.message, part);
    CHECK(out.blob == NULL);
}

#define ONE(components) "{\"entities\": [{\"name\": \"a\", \"components\": [" components "]}]}"

static void test_compile_errors(void)
{
    expect_error(ONE("{\"type\": \"gadget\", \"powr\": 1}"), ECS_ERROR_COMPILE,
                 "entities[0].components[0].powr (line 1, column 71): unknown member 'powr' (known: type, power, precise");
    expect_error(ONE("{\"type\": \"gadget\", \"heat\": 1}"), ECS_ERROR_COMPILE, "'heat' is runtime state");
    expect_error(ONE("{\"type\": \"gadget\", \"enabled\": 1}"), ECS_ERROR_COMPILE,
                 "components[0].enabled (line 1, column 74): expected true or false, found number");
    expect_error(ONE("{\"type\": \"gadget\", \"power\": \"high\"}"), ECS_ERROR_COMPILE,
                 "components[0].power (line 1, column 72): expected a number, found string");
    expect_error(ONE("{\"type\": \"gadget\", \"offset\": [1, 2]}"), ECS_ERROR_COMPILE, "expected an array of 3 numbers");
    expect_error(ONE("{\"type\": \"gadget\", \"color\": [1, 2, 3, \"4\"]}"), ECS_ERROR_COMPILE,
                 "components[0].color[3] (line 1, column 82): expected a number, found string");
    expect_error(ONE("{\"type\": \"gadget\", \"count\": -1}"), ECS_ERROR_COMPILE,
                 "components[0].count (line 1, column 72): expected an integer 0..4294967295, found -1");
    expect_error(ONE("{\"type\": \"gadget\", \"delta\": 2147483648}"), ECS_ERROR_COMPILE,
                 "expected an integer -2147483648..2147483647, found 2147483648");
    expect_error(ONE("{\"type\": \"gadget\", \"serial\": 18446744073709551616}"), ECS_ERROR_COMPILE,
                 "components[0].serial (line 1, column 73): expected an integer 0..18446744073709551615");
    expect_error(ONE("{\"type\": \"gadget\", \"serial\": 1.5}"), ECS_ERROR_COMPILE, "found 1.5");
    expect_error(ONE("{\"type\": \"gadget\", \"power\": 100.5}"), ECS_ERROR_COMPILE, "power must be <= 100 (found 100.5)");
    expect_error(ONE("{\"type\": \"actor\", \"mass\": -1}"), ECS_ERROR_COMPILE,
                 "components[0].mass (line 1, column 70): mass must be >= 0 (found -1)");
    expect_error(ONE("{\"type\": \"gadget\", \"spin\": [0, 0, 0, 0]}"), ECS_ERROR_COMPILE, "zero length");
    expect_error(ONE("{\"type\": \"gadget\", \"sound\": \"./Sounds\\\\Hum\"}"), ECS_ERROR_NON_CANONICAL_PATH,
                 "components[0].sound (line 1, column 72): path './Sounds\\Hum' is not canonical; write 'sounds/hum'");
    expect_error(ONE("{\"type\": \"gadget\", \"sound\": \"#0123\"}"), ECS_ERROR_NON_CANONICAL_PATH, "'#0123' is not canonical");
    expect_error(ONE("{\"type\": \"gadget\", \"target\": \"nobody\"}"), ECS_ERROR_COMPILE,
                 "entities[0].components[0].target (line 1, column 73): no entity of this resource is called 'nobody'");
    expect_error(ONE("{\"type\": \"gadget\", \"target\": 3}"), ECS_ERROR_COMPILE,
                 "expected the name of an entity of this resource (a string) or null, found number");
    expect_error("{\"entities\": [{\"name\": \"x\", \"components\": [{\"type\": \"joint\", \"a\": \"x\", \"b\": \"twin\"}]},\n"
                 " {\"name\": \"twin\"}, {\"children\": [{\"name\": \"twin\"}]}]}",
                 ECS_ERROR_COMPILE,
                 "entities[0].components[0].b (line 1, column 77): the name 'twin' is ambiguous: entities[1] and "
                 "entities[2].children[0] both have it");
    expect_error(ONE("{\"type\": \"joint\", \"b\": \"a\"}"), ECS_ERROR_COMPILE,
                 "entities[0].components[0] (line 1, column 44): missing member 'a' (entity)");
    expect_error(ONE("{\"type\": \"#0e8cd7ba\", \"spawn_order\": 1}"), ECS_ERROR_COMPILE,
                 "'#0e8cd7ba' is the registered component 'actor'");
    expect_error(ONE("{\"type\": \"#00000001\", \"spawn_order\": 1, \"bytes\": \"0\"}"), ECS_ERROR_COMPILE,
                 "pairs");
    expect_error(ONE("{\"type\": \"#00000001\", \"spawn_order\": 1, \"bytes\": \"0g\"}"), ECS_ERROR_COMPILE,
                 "'g' is not a hexadecimal digit");
    expect_error(ONE("{\"type\": \"#00000001\"}"), ECS_ERROR_COMPILE, "needs \"spawn_order\"");
    expect_error(ONE("{\"type\": \"#00000001\", \"spawn_order\": 1}, {\"type\": \"#00000001\", \"spawn_order\": 2}"),
                 ECS_ERROR_COMPILE, "spawn_order 2 differs from the 1 given before for '#00000001'");
    expect_error(ONE("{\"type\": \"#743491dc\", \"spawn_order\": 1}"), ECS_ERROR_COMPILE, "the names block's");
    expect_error(ONE("{\"type\": \"#0E8CD7BA\", \"spawn_order\": 1}"), ECS_ERROR_UNKNOWN_COMPONENT, "unknown component type");
}

static void test_registration(void)
{
    static const ecs_schema_field not_json[] = {{"x", ECS_FIELD_F32, "1,"}};
    static const ecs_schema_field out_of_range[] = {{"x", ECS_FIELD_F32, "{\"default\": -1, \"min\": 0}"}};
    static const ecs_schema_field bool_bound[] = {{"x", ECS_FIELD_BOOL, "{\"default\": true, \"max\": 1}"}};
    static const ecs_schema_field entity_default[] = {{"x", ECS_FIELD_ENTITY, "\"ship\""}};
    static const ecs_schema_field path_default[] = {{"x", ECS_FIELD_PATH, "\"Models/A\""}};
    static const ecs_schema_field bad_member[] = {{"x", ECS_FIELD_U32, "{\"defualt\": 1}"}};
    static const ecs_schema_field typed[] = {{"type", ECS_FIELD_U32, "0"}};
    static const ecs_schema_field twice[] = {{"x", ECS_FIELD_U32, "0"}, {"x", ECS_FIELD_U32, "0"}};
    static const ecs_schema_field wrong_kind[] = {{"x", ECS_FIELD_VEC2, "[1, 2, 3]"}};
    static const ecs_schema_field good[] = {{"x", ECS_FIELD_U32, "0"}};
    ecs_compiler c;
    ecs_manager plain;
    ecs_error err;
    static const ecs_field_desc one[] = {{"x", 4, 4}};
    ecs_compiler_init(&c);
    CHECK(ecs_compiler_register_schema(&c, "a", not_json, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT &&
          has(err.message, "schema of 'a': field 'x' (f32), spec '1,': spec is not JSON"));
    CHECK(ecs_compiler_register_schema(&c, "a", out_of_range, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT &&
          has(err.message, "x must be >= 0 (found -1)"));
    CHECK(ecs_compiler_register_schema(&c, "a", bool_bound, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT && has(err.message, "'max'"));
    CHECK(ecs_compiler_register_schema(&c, "a", entity_default, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT &&
          has(err.message, "only be null"));
    CHECK(ecs_compiler_register_schema(&c, "a", path_default, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT &&
          has(err.message, "canonical"));
    CHECK(ecs_compiler_register_schema(&c, "a", bad_member, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT && has(err.message, "defualt"));
    CHECK(ecs_compiler_register_schema(&c, "a", typed, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_compiler_register_schema(&c, "a", twice, 2, 0, &err) == ECS_ERROR_INVALID_ARGUMENT && has(err.message, "two fields"));
    CHECK(ecs_compiler_register_schema(&c, "a", wrong_kind, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT &&
          has(err.message, "array of 2 numbers"));
    CHECK(ecs_compiler_register_schema(&c, "a", good, 0, 0, &err) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_compiler_register_schema(&c, "#a", good, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT && has(err.message, "'#'"));
    CHECK(ecs_compiler_register_schema(&c, "ecs:names", good, 1, 0, &err) == ECS_ERROR_NAME_COLLISION);
    CHECK(c.num_types == 0);
    CHECK(ecs_compiler_register_schema(&c, "a", good, 1, 0, &err) == ECS_OK);
    CHECK(ecs_compiler_register_schema(&c, "a", good, 1, 0, &err) == ECS_ERROR_ALREADY_EXISTS); /* no leak */
    CHECK(ecs_compiler_set_decompile(&c, "b", ecs_resource_decompile_transform, NULL, &err) == ECS_ERROR_NOT_FOUND);
    CHECK(strcmp(ecs_compiler_type_name(&c, ecs_resource_identifier("a")), "a") == 0);
    CHECK(ecs_compiler_type_name(&c, 12345) == NULL);
    CHECK(ecs_compiler_unregister(&c, "a") == ECS_OK && c.num_types == 0);
    CHECK(ecs_manager_init(&plain, one, 1, ECS_LOOKUP_HASH) == ECS_OK);
    CHECK(ecs_compiler_register_manager(&c, "p", &plain, 0, &err) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_manager_set_schema(&plain, good, 1) == ECS_OK && ecs_compiler_register_manager(&c, "p", &plain, 0, &err) == ECS_OK);
    ecs_manager_free(&plain);
    ecs_compiler_free(&c);
    {
        ecs_spawner sp;
        ecs_spawner_init(&sp);
        CHECK(ecs_spawner_register(&sp, "ecs:names", failing_spawn, failing_unspawn, 1, NULL, &err) == ECS_ERROR_NAME_COLLISION);
        ecs_spawner_free(&sp);
    }
}

/* Issue 24, defect 8: a spec with a member twice (two "default"s of a path
   field: the record took the last one's hash, the names block and the
   dependencies the first) is refused with a message naming the member, as
   level JSON refuses it; before the fix it registered. Through a world
   (ecs_compiler_register_world) too. */
static void test_duplicate_spec_members(void)
{
    static const ecs_schema_field two_defaults[] = {
        {"model", ECS_FIELD_PATH, "{\"default\": \"Models/A\", \"default\": \"models/b\"}"}};
    static const ecs_schema_field two_mins[] = {{"hp", ECS_FIELD_U32, "{\"default\": 5, \"min\": 0, \"min\": 9}"}};
    ecs_compiler c;
    ecs_world w;
    ecs_error err;
    ecs_compiler_init(&c);
    CHECK_MSG(ecs_compiler_register_schema(&c, "a", two_defaults, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT &&
                  has(err.message, "field 'model' (path)") && has(err.message, "spec member 'default' appears twice"),
              "%s", err.message);
    CHECK_MSG(ecs_compiler_register_schema(&c, "b", two_mins, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT &&
                  has(err.message, "spec member 'min' appears twice"),
              "%s", err.message);
    CHECK(c.num_types == 0);
    CHECK(ecs_world_init(&w) == ECS_OK);
    CHECK(ecs_world_define_schema(&w, "prop", two_defaults, 1, ECS_LOOKUP_HASH, &err) != NULL);
    CHECK_MSG(ecs_compiler_register_world(&c, &w, &err) == ECS_ERROR_INVALID_ARGUMENT &&
                  has(err.message, "'default' appears twice") && c.num_types == 0,
              "%s", err.message);
    ecs_world_free(&w);
    ecs_compiler_free(&c);
}

/* A spec member whose name has a NUL byte in it ("default\u0000",
   "max\u0000", "max\u0000imum") is none of "default", "min", "max": it is
   refused, naming it. Before the fix the names were compared up to the NUL:
   a path field's "default\u0000" crashed the registration (the default was
   looked up again by its exact name: NULL), "max\u0000" slipped past the
   "appears twice" check and "max\u0000imum" was taken for "max". Through a
   world (ecs_compiler_register_world) and ecs_schema_value_read too. */
static void test_spec_member_nul(void)
{
    static const ecs_schema_field path_default[] = {{"model", ECS_FIELD_PATH, "{\"default\\u0000\": \"models/crate\"}"}};
    static const ecs_schema_field max_twice[] = {{"hp", ECS_FIELD_I32, "{\"default\": 1, \"max\": 10, \"max\\u0000\": 1000}"}};
    static const ecs_schema_field max_longer[] = {{"hp", ECS_FIELD_I32, "{\"default\": 1, \"max\\u0000imum\": 10}"}};
    static const char *const level = "{\"entities\": [{\"components\": [{\"type\": \"prop\", \"hp\": 500}]}]}";
    ecs_compiler c;
    ecs_compiler_output out;
    ecs_world w;
    ecs_error err;
    ecs_json_doc doc;
    int32_t hp = 7;
    ecs_result r;
    ecs_compiler_init(&c);
    CHECK_MSG(ecs_compiler_register_schema(&c, "prop", path_default, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT &&
                  has(err.message, "field 'model' (path)") && has(err.message, "'default\\u0000...' has a NUL byte"),
              "%s", err.message);
    CHECK_MSG(ecs_compiler_register_schema(&c, "prop", max_twice, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT &&
                  has(err.message, "'max\\u0000...' has a NUL byte"),
              "%s", err.message);
    CHECK_MSG(ecs_compiler_register_schema(&c, "prop", max_longer, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT &&
                  has(err.message, "'max\\u0000...' has a NUL byte"),
              "%s", err.message);
    CHECK(c.num_types == 0);
    /* nothing registered: the level's type is unknown (before, hp 500 > "max" 10 was the error) */
    r = ecs_compiler_compile(&c, level, strlen(level), 0, &out, &err);
    CHECK_MSG(r == ECS_ERROR_UNKNOWN_COMPONENT, "%s", err.message);
    if (r == ECS_OK) ecs_compiler_output_free(&out);
    CHECK(ecs_world_init(&w) == ECS_OK);
    CHECK(ecs_world_define_schema(&w, "prop", path_default, 1, ECS_LOOKUP_HASH, &err) != NULL);
    CHECK_MSG(ecs_compiler_register_world(&c, &w, &err) == ECS_ERROR_INVALID_ARGUMENT && has(err.message, "NUL byte") &&
                  c.num_types == 0,
              "%s", err.message);
    ecs_world_free(&w);
    memset(&doc, 0, sizeof doc);
    CHECK(ecs_json_parse(&doc, "5", 1, &err) == ECS_OK);
    CHECK_MSG(ecs_schema_value_read(max_twice, &doc, ecs_json_root(&doc), &hp, &err) == ECS_ERROR_INVALID_ARGUMENT &&
                  has(err.message, "its spec") && has(err.message, "NUL byte") && hp == 7,
              "%s", err.message);
    ecs_json_doc_free(&doc);
    ecs_compiler_free(&c);
}

/* ecs_schema_value_read of a path that is not canonical names its
   canonical spelling whatever its length: a sloppy path of 256 bytes or
   more used to get "has no canonical spelling" (it was respelled into 256
   bytes); one with none says why. */
static void test_value_read_long_path(void)
{
    static const ecs_schema_field model = {"model", ECS_FIELD_PATH, "\"models/crate\""};
    static const char *const sloppy[3] = {"Models/", "./models//", "models\\\\"};
    char json[400], want[300], zeros[301];
    ecs_json_doc doc;
    ecs_error err;
    uint64_t h = 0;
    uint32_t k;
    int n;
    memset(zeros, '0', 300);
    zeros[300] = 0;
    memset(&doc, 0, sizeof doc);
    for (k = 0; k < 3; ++k) {
        n = snprintf(json, sizeof json, "\"%s%s\"", sloppy[k], zeros);
        CHECK(ecs_json_parse(&doc, json, (size_t)n, &err) == ECS_OK && ecs_json_root(&doc)->count > 300);
        snprintf(want, sizeof want, "is not canonical; write 'models/%.73s'", zeros); /* the message shows 80 bytes */
        CHECK_MSG(ecs_schema_value_read(&model, &doc, ecs_json_root(&doc), &h, &err) == ECS_ERROR_INVALID_ARGUMENT &&
                      has(err.message, "field 'model' (path)") && has(err.message, want) && h == 0,
                  "%s", err.message);
    }
    n = snprintf(json, sizeof json, "\"../%s\"", zeros);
    CHECK(ecs_json_parse(&doc, json, (size_t)n, &err) == ECS_OK);
    CHECK_MSG(ecs_schema_value_read(&model, &doc, ecs_json_root(&doc), &h, &err) == ECS_ERROR_INVALID_ARGUMENT &&
                  has(err.message, "has no canonical spelling: '..' climbs above the project root (byte 0)"),
              "%s", err.message);
    n = snprintf(json, sizeof json, "\"Models/%s\\u0000\"", zeros);
    CHECK(ecs_json_parse(&doc, json, (size_t)n, &err) == ECS_OK);
    CHECK_MSG(ecs_schema_value_read(&model, &doc, ecs_json_root(&doc), &h, &err) == ECS_ERROR_INVALID_ARGUMENT &&
                  has(err.message, "has no canonical spelling: a NUL byte is not allowed (byte 307)"),
              "%s", err.message);
    n = snprintf(json, sizeof json, "\"models/%s\"", zeros); /* canonical: read */
    CHECK(ecs_json_parse(&doc, json, (size_t)n, &err) == ECS_OK);
    CHECK(ecs_schema_value_read(&model, &doc, ecs_json_root(&doc), &h, &err) == ECS_OK &&
          h == ecs_path_hash(ecs_json_string(&doc, ecs_json_root(&doc))));
    ecs_json_doc_free(&doc);
}

/* ---- the decompiler's refusals and unregistered blocks ----------------------- */

static ecs_resource_block find_block(const void *blob, uint32_t id)
{
    ecs_resource_block blk;
    uint32_t t, off = ecs_resource_first_block(blob);
    memset(&blk, 0, sizeof blk);
    for (t = 0; t < ecs_resource_num_component_types(blob); ++t, off = blk.next) {
        blk = ecs_resource_block_at(blob, off);
        if (blk.identifier == id) return blk;
    }
    memset(&blk, 0, sizeof blk);
    return blk;
}

static void expect_refusal(const ecs_compiler *c, const void *blob, uint32_t size, const char *part)
{
    ecs_decompile_output out;
    ecs_error err;
    ecs_result r = ecs_compiler_decompile(c, blob, size, 0, &out, &err);
    CHECK_MSG(r == ECS_ERROR_DECOMPILE && has(err.message, part), "%s: %s", ecs_result_name(r), err.message);
    CHECK(out.json == NULL);
}

/* Compiles json with the standard compiler and changes byte `at` of block
   id's data (offset into its data) to value, then expects a refusal. */
static void refuse_changed(const char *json, uint32_t flags, uint32_t id, uint32_t at, const void *value, uint32_t n,
                           const char *part)
{
    ecs_compiler_output out;
    ecs_error err;
    CHECK(ecs_compiler_compile(&compiler, json, strlen(json), flags, &out, &err) == ECS_OK);
    if (!out.blob) return;
    memcpy((unsigned char *)(uintptr_t)find_block(out.blob, id).data + at, value, n);
    expect_refusal(&compiler, out.blob, out.size, part);
    ecs_compiler_output_free(&out);
}

/* A blob by hand: ne entities with parents, and (ni > 0) one block `id` of
   ni records of rec bytes (every float 1) for entities index[]. */
static uint32_t hand_blob(uint32_t *words, uint32_t ne, const uint32_t *parents, uint32_t id, uint32_t rec, uint32_t ni,
                          const uint32_t *index)
{
    uint32_t k, at = 6;
    memcpy(words, "ECSR", 4);
    words[1] = 1, words[2] = ECS_RESOURCE_BYTE_ORDER_MARK, words[4] = ne, words[5] = ni ? 1u : 0u;
    for (k = 0; k < ne; ++k) words[at++] = parents[k];
    if (ni) {
        words[at++] = id, words[at++] = ni, words[at++] = rec * ni;
        for (k = 0; k < ni; ++k) words[at++] = index[k];
        for (k = 0; k < rec * ni / 4u; ++k) {
            float one = 1.0f;
            memcpy(&words[at++], &one, 4);
        }
    }
    words[3] = at * 4u;
    return at * 4u;
}

/* Appends a block (ni instances of entities index[], size bytes of data)
   to the hand-made blob whose first `at` words are written; fixes the
   header; returns the new word count. */
static uint32_t add_block(uint32_t *words, uint32_t at, uint32_t id, uint32_t ni, const uint32_t *index,
                          const void *data, uint32_t size)
{
    uint32_t k;
    words[at++] = id, words[at++] = ni, words[at++] = size;
    for (k = 0; k < ni; ++k) words[at++] = index[k];
    memset(words + at, 0, (size + 3u) & ~3u);
    if (size) memcpy(words + at, data, size);
    at += (size + 3u) / 4u;
    words[3] = at * 4u, words[5] += 1;
    return at;
}

static void test_refusals(void)
{
    static const uint32_t depth_first_not[] = {ECS_RESOURCE_ROOT, ECS_RESOURCE_ROOT, 0};
    static const uint32_t order_ok[] = {0, 0, 1}, order_bad[] = {1, 0, 1};
    uint32_t words[4096], parents[1000], k, size;
    float nan_value = (float)NAN;
    uint8_t two = 2;
    uint32_t far = 99;
    ecs_compiler late, bare;
    ecs_error err;
    const char *gadget_json = ONE("{\"type\": \"gadget\", \"target\": \"a\"}");
    refuse_changed(gadget_json, 0, ecs_resource_identifier("gadget"), 29, &nan_value, 4, "not finite");
    refuse_changed(gadget_json, 0, ecs_resource_identifier("gadget"), 28, &two, 1, "a bool byte of 2");
    refuse_changed(gadget_json, 0, ecs_resource_identifier("gadget"), GADGET_RECORD - 4, &far, 4, "resource entity 99");
    nan_value = 200.0f;
    refuse_changed(gadget_json, 0, ecs_resource_identifier("gadget"), 0, &nan_value, 4, "power must be <= 100");
    /* entities must be numbered depth-first, instances in entity order */
    size = hand_blob(words, 3, depth_first_not, 0, 0, 0, NULL);
    expect_refusal(&compiler, words, size, "not in depth-first order");
    for (k = 0; k < 1000; ++k) parents[k] = k ? k - 1u : ECS_RESOURCE_ROOT;
    size = hand_blob(words, 1, parents, ECS_RESOURCE_TRANSFORM_ID, 64, 2, order_ok);
    expect_refusal(&compiler, words, size, "at most one transform");
    size = hand_blob(words, 3, parents, ECS_RESOURCE_ACTOR_ID, 8, 3, order_bad);
    expect_refusal(&compiler, words, size, "out of entity order");
    size = hand_blob(words, 3, parents, ECS_RESOURCE_ACTOR_ID, 8, 3, order_ok);
    CHECK(ecs_resource_verify(words, size, &err) == ECS_OK);
    {
        ecs_decompile_output out;
        CHECK_MSG(ecs_compiler_decompile(&compiler, words, size, ECS_DECOMPILE_CHECK, &out, &err) == ECS_OK, "%s", err.message);
        ecs_decompile_output_free(&out);
    }
    /* too deep for the JSON reader: refused; as deep as it takes: fine */
    size = hand_blob(words, 200, parents, 0, 0, 0, NULL);
    expect_refusal(&compiler, words, size, "nest deeper");
    size = hand_blob(words, (ECS_JSON_MAX_DEPTH - 6) / 2 + 1, parents, 0, 0, 0, NULL);
    {
        ecs_decompile_output out;
        CHECK_MSG(ecs_compiler_decompile(&compiler, words, size, ECS_DECOMPILE_CHECK, &out, &err) == ECS_OK, "%s", err.message);
        ecs_decompile_output_free(&out);
    }
    /* blocks the compiler never writes: empty, twice, a names block before
       another block, two names blocks, a names block listing a path nobody
       uses */
    {
        static const uint32_t no_paths[1] = {0}, zero[1] = {0}, one = 1, three = 3;
        unsigned char one_path[11];
        uint32_t b[64], at;
        memcpy(one_path, &one, 4), memcpy(one_path + 4, &three, 4), memcpy(one_path + 8, "a/b", 3);
        at = add_block(b, hand_blob(b, 1, parents, 0, 0, 0, NULL) / 4u, ECS_RESOURCE_ACTOR_ID, 0, zero, NULL, 0);
        expect_refusal(&compiler, b, at * 4u, "a block without instances");
        at = hand_blob(b, 1, parents, ECS_RESOURCE_ACTOR_ID, 8, 1, order_ok) / 4u;
        at = add_block(b, at, ECS_RESOURCE_ACTOR_ID, 1, zero, b + 10, 8);
        expect_refusal(&compiler, b, at * 4u, "a second block of this type");
        at = add_block(b, hand_blob(b, 1, parents, 0, 0, 0, NULL) / 4u, ECS_RESOURCE_NAMES_ID, 0, zero, no_paths, 4);
        at = add_block(b, at, ECS_RESOURCE_ACTOR_ID, 1, zero, one_path, 8);
        CHECK(ecs_resource_verify(b, at * 4u, &err) == ECS_OK);
        expect_refusal(&compiler, b, at * 4u, "the names block is not the last block");
        at = add_block(b, at, ECS_RESOURCE_NAMES_ID, 0, zero, no_paths, 4);
        {
            ecs_decompile_output out;
            CHECK(ecs_compiler_decompile(&compiler, b, at * 4u, 0, &out, &err) == ECS_ERROR_CORRUPT_RESOURCE &&
                  has(err.message, "more than one names block"));
            CHECK(ecs_compiler_decompile(&compiler, b, at * 4u, 0, NULL, &err) == ECS_ERROR_INVALID_ARGUMENT);
        }
        at = add_block(b, hand_blob(b, 1, parents, 0, 0, 0, NULL) / 4u, ECS_RESOURCE_NAMES_ID, 0, zero, one_path, 11);
        expect_refusal(&compiler, b, at * 4u, "no component refers to path 'a/b'");
    }
    /* a reference to an entity whose name is not unique */
    {
        ecs_compiler_output out;
        ecs_resource_block blk;
        uint32_t twin = 6;
        CHECK(ecs_compiler_compile(&compiler, all_kinds, strlen(all_kinds), ECS_COMPILER_NAMES, &out, &err) == ECS_OK);
        blk = find_block(out.blob, ecs_resource_identifier("joint"));
        memcpy((unsigned char *)(uintptr_t)blk.data + 2 * 12 + 4, &twin, 4); /* cafe's joint: b = twin */
        expect_refusal(&compiler, out.blob, out.size, "resource entity 6 is referred to, but its name is not unique");
        twin = 5; /* the unnamed one */
        memcpy((unsigned char *)(uintptr_t)blk.data + 2 * 12 + 4, &twin, 4);
        expect_refusal(&compiler, out.blob, out.size, "missing from the names block");
        ecs_compiler_output_free(&out);
    }
    /* a block whose registration does not sort where it is; no decompile function */
    ecs_compiler_init(&late);
    CHECK(ecs_compiler_register_standard(&late, &err) == ECS_OK && ecs_compiler_unregister(&late, "mesh") == ECS_OK);
    CHECK(ecs_compiler_register_schema(&late, "mesh", (const ecs_schema_field *)meshes_schema(&k), 2, 300, &err) == 0);
    {
        ecs_compiler_output out;
        CHECK(ecs_compiler_compile(&compiler, ONE("{\"type\": \"mesh\", \"mesh\": \"m\"}, {\"type\": \"actor\"}"), 80, 0,
                                   &out, &err) != ECS_OK || 1);
        ecs_compiler_output_free(&out);
        CHECK(ecs_compiler_compile(&compiler, ONE("{\"type\": \"mesh\", \"mesh\": \"m\"}, {\"type\": \"actor\"}"),
                                   strlen(ONE("{\"type\": \"mesh\", \"mesh\": \"m\"}, {\"type\": \"actor\"}")), 0, &out,
                                   &err) == ECS_OK);
        expect_refusal(&late, out.blob, out.size, "does not sort after");
        CHECK(ecs_compiler_unregister(&late, "mesh") == ECS_OK);
        CHECK(ecs_compiler_register(&late, "mesh", label_compile, NULL, 100, &err) == ECS_OK);
        expect_refusal(&late, out.blob, out.size, "'mesh' has no decompile function");
        ecs_compiler_output_free(&out);
    }
    ecs_compiler_free(&late);
    /* unregistered blocks: written by identifier, compiled back in place */
    ecs_compiler_init(&bare);
    {
        ecs_compiler_output out, again;
        ecs_decompile_output text;
        const char *json = "{\"entities\": [{\"components\": [{\"type\": \"label\", \"text\": \"abc\"}, {\"type\": \"actor\"},"
                           " {\"type\": \"label\", \"text\": \"de\"}]}, {\"components\": [{\"type\": \"label\", \"text\": \"\"},"
                           " {\"type\": \"mesh\", \"mesh\": \"m\"}, {\"type\": \"gadget\"}]}]}";
        ecs_compiler with_label;
        register_all(&with_label);
        CHECK(ecs_compiler_register(&with_label, "label", label_compile, NULL, 150, &err) == ECS_OK);
        CHECK(ecs_compiler_register(&bare, "mesh", label_compile, NULL, 100, &err) == ECS_OK); /* no decompile: refused */
        CHECK(ecs_compiler_unregister(&bare, "mesh") == ECS_OK);
        CHECK(ecs_compiler_compile(&with_label, json, strlen(json), ECS_COMPILER_BIG_ENDIAN, &out, &err) == ECS_OK);
        CHECK_MSG(ecs_compiler_decompile(&bare, out.blob, out.size, ECS_DECOMPILE_CHECK, &text, &err) == ECS_OK, "%s",
                  err.message);
        CHECK(text.json && has(text.json, "{\"type\": \"#0e8cd7ba\", \"spawn_order\": ") &&
              has(text.json, "\"bytes\": \"0361626302646500\"}"));
        CHECK(ecs_compiler_compile(&bare, text.json, text.length, text.compile_flags, &again, &err) == ECS_OK &&
              same_bytes(&out, &again));
        ecs_compiler_output_free(&again);
        ecs_decompile_output_free(&text);
        expect_refusal(&with_label, out.blob, out.size, "'label' has no decompile function");
        ecs_compiler_output_free(&out);
        ecs_compiler_free(&with_label);
    }
    ecs_compiler_free(&bare);
}

/* ---- what compiles decompiles; refusals keep their reason -------------------- */

/* A chain of `levels` entities, each the only child of the one before; the
   one at level `xform_at` (or none) has a transform with a position, the
   last one a name. */
static char *chain_json(uint32_t levels, uint32_t xform_at)
{
    char *json = (char *)malloc(levels * 80u + 64u), *p = json;
    uint32_t k;
    if (!json) return NULL;
    p += sprintf(p, "{\"entities\": [");
    for (k = 0; k < levels; ++k) {
        p += sprintf(p, "{");
        if (k == xform_at) p += sprintf(p, "\"components\": [{\"type\": \"transform\", \"position\": [1, 2, 3]}], ");
        if (k + 1u == levels) p += sprintf(p, "\"name\": \"tip\"");
        else p += sprintf(p, "\"children\": [");
    }
    for (k = 0; k + 1u < levels; ++k) p += sprintf(p, "}]");
    sprintf(p, "}]}");
    return json;
}

/* ECS_JSON_MAX_DEPTH 256 holds 127 levels of entities (the deepest at depth
   255, with no components; the one above it can have a transform whose
   position is at 256): they compile, so they must decompile and compile
   back to the same bytes (the decompiler used to stop at 126 levels). One
   level more does not compile and is refused by the decompiler; a component
   on the 127th level (the text would nest 257 deep) too. */
/* Compiles one component of a level; ECS_OK and its record's last 4 bytes
   (a float field last) in *last, or the error. */
static ecs_result compile_one(const ecs_compiler *c, const char *component, void *last, ecs_error *err)
{
    char json[256];
    ecs_compiler_output out;
    ecs_result r;
    snprintf(json, sizeof json, "{\"entities\": [{\"components\": [%s]}]}", component);
    r = ecs_compiler_compile(c, json, strlen(json), 0, &out, err);
    if (r == ECS_OK && last) memcpy(last, (const unsigned char *)out.blob + out.size - 4, 4);
    ecs_compiler_output_free(&out);
    return r;
}

/* A float field's "min" and "max" are the floats their numbers read as:
   {"default": 0.1, "max": 0.1} on an f32 registers (0.1 read as 0.100000001f
   was above the double 0.1: refused, also through ecs_compiler_register_world),
   x = 0.7 passes "min": 0.7 (0.699999988f was below it), a vec3 and
   ecs_schema_value_read likewise; one float past a bound is still refused;
   a bound beyond the floats bounds nothing or everything; f64 bounds stay
   doubles. */
static void test_float_bounds(void)
{
    static const ecs_schema_field at_max[] = {{"x", ECS_FIELD_F32, "{\"default\": 0.1, \"max\": 0.1}"}};
    static const ecs_schema_field at_min[] = {{"x", ECS_FIELD_F32, "{\"default\": 1, \"min\": 0.7}"}};
    static const ecs_schema_field vec[] = {{"v", ECS_FIELD_VEC3, "{\"default\": [0, 0, 0], \"min\": 0, \"max\": 0.1}"}};
    static const ecs_schema_field wide[] = {{"x", ECS_FIELD_F32, "{\"default\": 0, \"min\": -1e39, \"max\": 1e300}"}};
    static const ecs_schema_field beyond[] = {{"x", ECS_FIELD_F32, "{\"default\": 3.4e38, \"min\": 1e39}"}};
    static const ecs_schema_field dbl[] = {{"d", ECS_FIELD_F64, "{\"default\": 0.1, \"max\": 0.1}"}};
    ecs_compiler c;
    ecs_world w;
    ecs_error err;
    ecs_json_doc doc;
    float f = 0.0f;
    /* the floats nearest 0.1 and 0.7, held in floats: with x87 arithmetic
       (FLT_EVAL_METHOD 2, gcc -m32 -std=c99) the constants 0.1f and 0.7f
       themselves have long double precision, so `f == 0.1f` compares with
       0.1L and fails on the right float (f, then err.message: it may be
       an earlier call's) */
    const float tenth = 0.1f, seven_tenths = 0.7f;
    ecs_compiler_init(&c);
    CHECK_MSG(ecs_compiler_register_schema(&c, "a", at_max, 1, 0, &err) == ECS_OK, "%s", err.message);
    CHECK_MSG(ecs_compiler_register_schema(&c, "b", at_min, 1, 0, &err) == ECS_OK, "%s", err.message);
    CHECK_MSG(ecs_compiler_register_schema(&c, "c", vec, 1, 0, &err) == ECS_OK, "%s", err.message);
    CHECK_MSG(ecs_compiler_register_schema(&c, "w", wide, 1, 0, &err) == ECS_OK, "%s", err.message);
    CHECK_MSG(ecs_compiler_register_schema(&c, "d", dbl, 1, 0, &err) == ECS_OK, "%s", err.message);
    CHECK_MSG(ecs_compiler_register_schema(&c, "e", beyond, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT &&
                  has(err.message, "x must be >= 9.9999999999999994e+38 (found 3.3999999521443642e+38)"),
              "%s", err.message);
    CHECK_MSG(compile_one(&c, "{\"type\": \"a\", \"x\": 0.1}", &f, &err) == ECS_OK && f == tenth, "%.9g %s", (double)f,
              err.message);
    CHECK(compile_one(&c, "{\"type\": \"a\", \"x\": 0.10000001}", NULL, &err) == ECS_ERROR_COMPILE &&
          has(err.message, "x must be <= 0.10000000149011612 (found 0.10000000894069672)"));
    CHECK_MSG(compile_one(&c, "{\"type\": \"b\", \"x\": 0.7}", &f, &err) == ECS_OK && f == seven_tenths, "%.9g %s",
              (double)f, err.message);
    CHECK_MSG(compile_one(&c, "{\"type\": \"b\", \"x\": 0.69999993}", NULL, &err) == ECS_ERROR_COMPILE &&
                  has(err.message, "x must be >= 0.69999998807907104 (found 0.69999992847442627)"),
              "%s", err.message);
    CHECK_MSG(compile_one(&c, "{\"type\": \"c\", \"v\": [0.1, 0.1, 0.1]}", &f, &err) == ECS_OK && f == tenth, "%.9g %s",
              (double)f, err.message);
    CHECK(compile_one(&c, "{\"type\": \"c\", \"v\": [0.1, 0.1, 0.10000001]}", NULL, &err) == ECS_ERROR_COMPILE);
    CHECK_MSG(compile_one(&c, "{\"type\": \"w\", \"x\": -3.4028234e38}", &f, &err) == ECS_OK && f == -FLT_MAX, "%s",
              err.message);
    CHECK_MSG(compile_one(&c, "{\"type\": \"d\", \"d\": 0.1}", NULL, &err) == ECS_OK, "%s", err.message);
    CHECK(compile_one(&c, "{\"type\": \"d\", \"d\": 0.10000000000000002}", NULL, &err) == ECS_ERROR_COMPILE);
    memset(&doc, 0, sizeof doc);
    CHECK(ecs_json_parse(&doc, "0.1", 3, &err) == ECS_OK);
    f = 0.0f;
    CHECK_MSG(ecs_schema_value_read(at_max, &doc, ecs_json_root(&doc), &f, &err) == ECS_OK && f == tenth, "%.9g %s",
              (double)f, err.message);
    CHECK(ecs_json_parse(&doc, "0.10000001", 10, &err) == ECS_OK);
    CHECK(ecs_schema_value_read(at_max, &doc, ecs_json_root(&doc), &f, &err) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(f == tenth); /* untouched */
    ecs_json_doc_free(&doc);
    ecs_compiler_free(&c);
    ecs_compiler_init(&c);
    CHECK(ecs_world_init(&w) == ECS_OK);
    CHECK(ecs_world_define_schema(&w, "mover", at_max, 1, ECS_LOOKUP_HASH, &err) != NULL);
    CHECK_MSG(ecs_compiler_register_world(&c, &w, &err) == ECS_OK && c.num_types == 1, "%s", err.message);
    ecs_world_free(&w);
    ecs_compiler_free(&c);
}

/* A field or type name that is not UTF-8 is refused when registered,
   naming the field and the bad byte (the message carries none of it); it
   used to register, and the decompiler then wrote text that did not
   compile back. Through ecs_compiler_register_world too. */
static void test_names_not_utf8(void)
{
    static const ecs_schema_field bad_field[] = {{"x", ECS_FIELD_U32, "0"}, {"caf\xe9", ECS_FIELD_U32, "0"}};
    static const ecs_schema_field good[] = {{"caf\xc3\xa9", ECS_FIELD_U32, "0"}};
    ecs_compiler c;
    ecs_world w;
    ecs_error err;
    ecs_compiler_init(&c);
    CHECK_MSG(ecs_compiler_register_schema(&c, "s", bad_field, 2, 0, &err) == ECS_ERROR_INVALID_ARGUMENT &&
                  has(err.message, "schema of 's': the name of field 1 is not UTF-8: 'caf' then byte 0xe9"),
              "%s", err.message);
    CHECK_MSG(ecs_compiler_register_schema(&c, "t\xe9", good, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT &&
                  has(err.message, "a type name that is not UTF-8: 't' then byte 0xe9"),
              "%s", err.message);
    CHECK_MSG(ecs_compiler_register(&c, "\xc3\x28", ecs_resource_compile_transform, NULL, 0, &err) ==
                      ECS_ERROR_INVALID_ARGUMENT && has(err.message, "'' then byte 0xc3"),
              "%s", err.message);
    CHECK(c.num_types == 0);
    CHECK_MSG(ecs_compiler_register_schema(&c, "t\xc3\xa9", good, 1, 0, &err) == ECS_OK, "%s", err.message);
    CHECK(ecs_world_init(&w) == ECS_OK);
    CHECK(ecs_world_define_schema(&w, "prop", bad_field, 2, ECS_LOOKUP_HASH, &err) != NULL);
    CHECK_MSG(ecs_compiler_register_world(&c, &w, &err) == ECS_ERROR_INVALID_ARGUMENT &&
                  has(err.message, "not UTF-8") && c.num_types == 1,
              "%s", err.message);
    ecs_world_free(&w);
    ecs_compiler_free(&c);
}

/* A "#" path hash takes upper-case hexadecimal digits too (SCHEMAS: "a
   hash as it is"): the same bytes as lower case, in a level, a default and
   ecs_schema_value_read; it was refused as not canonical. */
static void test_hash_upper_case(void)
{
    static const ecs_schema_field upper[] = {{"p", ECS_FIELD_PATH, "{\"default\": \"#00000000000000AB\"}"}};
    static const ecs_schema_field lower[] = {{"p", ECS_FIELD_PATH, "{\"default\": \"#00000000000000ab\"}"}};
    ecs_compiler c;
    ecs_compiler_output a, b;
    ecs_error err;
    ecs_json_doc doc;
    uint64_t h = 0;
    const char *up = "{\"entities\": [{\"components\": [{\"type\": \"u\", \"p\": \"#0123456789ABCDEF\"}]}]}";
    const char *low = "{\"entities\": [{\"components\": [{\"type\": \"u\", \"p\": \"#0123456789abcdef\"}]}]}";
    const char *none = "{\"entities\": [{\"components\": [{\"type\": \"u\"}]}]}"; /* its default */
    ecs_compiler_init(&c);
    CHECK_MSG(ecs_compiler_register_schema(&c, "u", upper, 1, 0, &err) == ECS_OK, "%s", err.message);
    CHECK_MSG(ecs_compiler_register_schema(&c, "l", lower, 1, 0, &err) == ECS_OK, "%s", err.message);
    CHECK_MSG(ecs_compiler_compile(&c, up, strlen(up), 0, &a, &err) == ECS_OK, "%s", err.message);
    CHECK(ecs_compiler_compile(&c, low, strlen(low), 0, &b, &err) == ECS_OK && same_bytes(&a, &b));
    ecs_compiler_output_free(&a);
    ecs_compiler_output_free(&b);
    CHECK(ecs_compiler_compile(&c, none, strlen(none), 0, &a, &err) == ECS_OK && a.size >= 8);
    if (a.blob) memcpy(&h, (const unsigned char *)a.blob + a.size - 8, 8);
    CHECK(h == 0xABu);
    ecs_compiler_output_free(&a);
    memset(&doc, 0, sizeof doc);
    CHECK(ecs_json_parse(&doc, "\"#0123456789ABCDEF\"", 19, &err) == ECS_OK);
    h = 0;
    CHECK_MSG(ecs_schema_value_read(upper, &doc, ecs_json_root(&doc), &h, &err) == ECS_OK &&
                  h == 0x0123456789ABCDEFull,
              "%s", err.message);
    CHECK(ecs_json_parse(&doc, "\"#0123456789ABCDEG\"", 19, &err) == ECS_OK);
    CHECK(ecs_schema_value_read(upper, &doc, ecs_json_root(&doc), &h, &err) == ECS_ERROR_INVALID_ARGUMENT);
    ecs_json_doc_free(&doc);
    ecs_compiler_free(&c);
}

static void test_deepest_chain(void)
{
    const uint32_t levels = (ECS_JSON_MAX_DEPTH - 1) / 2;
    uint32_t words[1200], parents[200], k, size, index[1];
    char *json = chain_json(levels, levels - 2u), *text;
    ecs_compiler_output out;
    ecs_error err;
    CHECK(json != NULL && levels == 127);
    if (!json) return;
    CHECK_MSG(ecs_compiler_compile(&compiler, json, strlen(json), ECS_COMPILER_NAMES, &out, &err) == ECS_OK, "%s",
              err.message);
    CHECK(ecs_resource_num_entities(out.blob) == levels);
    ecs_compiler_output_free(&out);
    text = round_trip(&compiler, json, strlen(json), ECS_COMPILER_NAMES);
    CHECK(text && has(text, "\"name\": \"tip\""));
    free(text);
    text = round_trip(&compiler, json, strlen(json), 0);
    free(text);
    free(json);
    json = chain_json(levels + 1u, ECS_RESOURCE_ROOT);
    CHECK(json && ecs_compiler_compile(&compiler, json, strlen(json), 0, &out, &err) == ECS_ERROR_JSON);
    free(json);
    for (k = 0; k < 200; ++k) parents[k] = k ? k - 1u : ECS_RESOURCE_ROOT;
    size = hand_blob(words, levels + 1u, parents, 0, 0, 0, NULL);
    expect_refusal(&compiler, words, size, "nest deeper");
    index[0] = levels - 1u;
    size = hand_blob(words, levels, parents, ECS_RESOURCE_ACTOR_ID, 8, 1, index);
    CHECK(ecs_resource_verify(words, size, &err) == ECS_OK);
    expect_refusal(&compiler, words, size, "nesting deeper than the JSON reader takes");
    index[0] = levels - 2u;
    size = hand_blob(words, levels, parents, ECS_RESOURCE_ACTOR_ID, 8, 1, index);
    {
        ecs_decompile_output dec;
        CHECK_MSG(ecs_compiler_decompile(&compiler, words, size, ECS_DECOMPILE_CHECK, &dec, &err) == ECS_OK, "%s",
                  err.message);
        ecs_decompile_output_free(&dec);
    }
}

/* A names block with no names and no paths: the compiler never writes one
   (NAMES BLOCK: "left out when there is nothing to name"), so the
   decompiler refuses it (it used to decompile it with the names flag, which
   compiles back to 28 bytes, not 44); the names reader still reads it. */
static void test_empty_names_block(void)
{
    static const uint32_t root[1] = {ECS_RESOURCE_ROOT}, no_paths[1] = {0};
    uint32_t b[32], at;
    ecs_resource_names names;
    ecs_error err;
    at = add_block(b, hand_blob(b, 1, root, 0, 0, 0, NULL) / 4u, ECS_RESOURCE_NAMES_ID, 0, NULL, no_paths, 4);
    CHECK(at * 4u == 44 && ecs_resource_verify(b, at * 4u, &err) == ECS_OK);
    expect_refusal(&compiler, b, at * 4u, "no names and no paths");
    CHECK(ecs_resource_names_read(b, at * 4u, &names, &err) == ECS_OK && names.present && names.num_paths == 0 &&
          names.entity[0] == NULL);
    ecs_resource_names_free(&names);
}

/* "gadget" whose decompile function writes a member its compile function
   refuses: ECS_DECOMPILE_CHECK reports the compile error in its message
   (the message used to be its own argument, and was lost). */
static ecs_result bad_decompile(void *user, ecs_decompile_context *ctx, const void *data, uint32_t size, uint32_t *used)
{
    ecs_result r;
    (void)user, (void)data;
    *used = size;
    if ((r = ecs_decompile_member(ctx, "text")) != ECS_OK) return r;
    return ecs_decompile_int(ctx, 12345);
}

static void test_check_message(void)
{
    ecs_compiler c;
    ecs_compiler_output out;
    ecs_decompile_output dec;
    ecs_error err;
    const char *json = "{\"entities\": [{\"components\": [{\"type\": \"label\", \"text\": \"abc\"}]}]}";
    ecs_result r;
    ecs_compiler_init(&c);
    CHECK(ecs_compiler_register(&c, "label", label_compile, NULL, 0, &err) == ECS_OK);
    CHECK(ecs_compiler_set_decompile(&c, "label", bad_decompile, NULL, &err) == ECS_OK);
    CHECK(ecs_compiler_compile(&c, json, strlen(json), 0, &out, &err) == ECS_OK);
    r = ecs_compiler_decompile(&c, out.blob, out.size, ECS_DECOMPILE_CHECK, &dec, &err);
    CHECK_MSG(r == ECS_ERROR_DECOMPILE && has(err.message, "the decompiled text does not compile: ") &&
                  has(err.message, "entities[0].components[0]") && has(err.message, "text: a short string"),
              "%s: %s", ecs_result_name(r), err.message);
    CHECK(dec.json == NULL);
    ecs_compiler_output_free(&out);
    ecs_compiler_free(&c);
}

/* ---- the names block ---------------------------------------------------------- */

static void test_names(void)
{
    ecs_compiler_output out;
    ecs_resource_names names;
    ecs_decompile_output one;
    ecs_error err;
    ecs_resource_block blk;
    uint32_t used, k;
    unsigned char *before;
    CHECK(ecs_compiler_compile(&compiler, all_kinds, strlen(all_kinds), ECS_COMPILER_NAMES | ECS_COMPILER_BIG_ENDIAN, &out,
                               &err) == ECS_OK);
    CHECK(ecs_resource_names_read(out.blob, out.size, &names, &err) == ECS_OK && names.present);
    CHECK(names.num_entities == 8 && names.entity[5] == NULL && strcmp(names.entity[3], "turret 2") == 0);
    CHECK(names.entity_length[4] == 9 && memcmp(names.entity[4], "caf\xc3\xa9 \"\x01\"", 9) == 0);
    CHECK(names.num_paths == 3 && strcmp(names.path[0], "models/hull") == 0 && strcmp(names.path[2], "sounds/hum") == 0);
    CHECK(strcmp(ecs_resource_names_path(&names, ecs_path_hash("sounds/engine")), "sounds/engine") == 0);
    CHECK(ecs_resource_names_path(&names, 42) == NULL);
    ecs_resource_names_free(&names);
    /* a spawner skips the block; the last block is it */
    CHECK(ecs_resource_swap(out.blob, out.size, NULL, NULL, &err) == ECS_OK); /* headers to this machine's order */
    blk = find_block(out.blob, ECS_RESOURCE_NAMES_ID);
    CHECK(blk.num_instances == 7 && blk.next == out.size);
    /* one instance for a listing: every member, names from the block */
    CHECK(ecs_resource_swap(out.blob, out.size, NULL, NULL, &err) == ECS_OK); /* back to big-endian */
    CHECK(ecs_resource_names_read(out.blob, out.size, &names, &err) == ECS_OK);
    CHECK(ecs_resource_swap(out.blob, out.size, NULL, NULL, &err) == ECS_OK);
    blk = find_block(out.blob, ECS_RESOURCE_MESH_ID);
    CHECK(ecs_compiler_decompile_instance(&compiler, ECS_RESOURCE_MESH_ID, blk.data, blk.size, 1, &names, &one, &used,
                                          &err) == ECS_OK);
    CHECK(used == 12 && one.json && strcmp(one.json, "{\"mesh\": \"models/hull\", \"flags\": 7}") == 0);
    ecs_decompile_output_free(&one);
    CHECK(ecs_compiler_decompile_instance(&compiler, 77, blk.data, blk.size, 1, &names, &one, &used, &err) ==
          ECS_ERROR_NOT_FOUND);
    ecs_resource_names_free(&names);
    /* a broken names block is refused with its offset, by the reader and the decompiler */
    blk = find_block(out.blob, ECS_RESOURCE_NAMES_ID);
    CHECK(ecs_resource_swap(out.blob, out.size, NULL, NULL, &err) == ECS_OK);
    before = (unsigned char *)malloc(out.size);
    CHECK(before != NULL);
    for (k = 0; k < 4 && before; ++k) {
        unsigned char *d = (unsigned char *)(uintptr_t)blk.data, saved = d[7];
        d[7] = (unsigned char)(k == 0 ? 0xFF : k == 1 ? 'A' : k == 2 ? 0xC3 : 'p');
        if (k == 1) d[7] = saved, d[blk.size - 3] = 'A';   /* a path that is not canonical */
        if (k == 2) d[7] = saved, d[12] = 0xC3;            /* a name that is not UTF-8 */
        if (k == 3) d[7] = saved, d[3] = 2;                /* fewer paths: bytes left over */
        CHECK_MSG(ecs_resource_names_read(out.blob, out.size, &names, &err) == ECS_ERROR_CORRUPT_RESOURCE &&
                      has(err.message, "names block"), "case %u: %s", (unsigned)k, err.message);
        CHECK(ecs_compiler_decompile(&compiler, out.blob, out.size, 0, &one, &err) == ECS_ERROR_CORRUPT_RESOURCE);
        /* the swap checks the block before it changes anything */
        memcpy(before, out.blob, out.size);
        CHECK(ecs_resource_swap(out.blob, out.size, NULL, NULL, &err) == ECS_ERROR_CORRUPT_RESOURCE &&
              has(err.message, "names block"));
        CHECK(memcmp(before, out.blob, out.size) == 0);
        ecs_compiler_output_free(&out);
        CHECK(ecs_compiler_compile(&compiler, all_kinds, strlen(all_kinds), ECS_COMPILER_NAMES | ECS_COMPILER_BIG_ENDIAN,
                                   &out, &err) == ECS_OK);
        CHECK(ecs_resource_swap(out.blob, out.size, NULL, NULL, &err) == ECS_OK);
        blk = find_block(out.blob, ECS_RESOURCE_NAMES_ID);
        CHECK(ecs_resource_swap(out.blob, out.size, NULL, NULL, &err) == ECS_OK);
    }
    free(before);
    ecs_compiler_output_free(&out);
    /* nothing to name: no block */
    CHECK(ecs_compiler_compile(&compiler, "{\"entities\": [{}]}", 18, ECS_COMPILER_NAMES, &out, &err) == ECS_OK);
    CHECK(ecs_resource_num_component_types(out.blob) == 0);
    CHECK(ecs_resource_names_read(out.blob, out.size, &names, &err) == ECS_OK && !names.present && names.num_entities == 1);
    ecs_resource_names_free(&names);
    ecs_compiler_output_free(&out);
}

/* ---- out of memory ------------------------------------------------------------- */

static void test_out_of_memory(void)
{
    unsigned long at;
    ecs_compiler_output out, ref;
    ecs_decompile_output text;
    ecs_error err;
    int compiles = 0, decompiles = 0;
    CHECK(ecs_compiler_compile(&compiler, all_kinds, strlen(all_kinds), ECS_COMPILER_NAMES, &ref, &err) == ECS_OK);
    for (at = 1; at < 400; ++at) {
        ecs_result r;
        oom_calls = 0, oom_fail_at = at;
        r = ecs_compiler_compile(&compiler, all_kinds, strlen(all_kinds), ECS_COMPILER_NAMES, &out, &err);
        CHECK(r == ECS_OK || (r == ECS_ERROR_OUT_OF_MEMORY && out.blob == NULL));
        compiles += r == ECS_OK;
        if (r == ECS_OK) CHECK(same_bytes(&out, &ref));
        ecs_compiler_output_free(&out);
        oom_calls = 0;
        r = ecs_compiler_decompile(&compiler, ref.blob, ref.size, ECS_DECOMPILE_CHECK, &text, &err);
        CHECK_MSG(r == ECS_OK || (r == ECS_ERROR_OUT_OF_MEMORY && text.json == NULL), "failing call %lu: %s: %s", at,
                  ecs_result_name(r), err.message); /* out of memory is never a decompile error */
        decompiles += r == ECS_OK;
        ecs_decompile_output_free(&text);
        oom_fail_at = 0;
    }
    CHECK(compiles > 0 && compiles < 399 && decompiles > 0 && decompiles < 399);
    { /* registering a schema: out of memory while its specs are parsed is out of memory, not a bad spec */
        ecs_compiler c;
        uint32_t n;
        const ecs_schema_field *g = gadget_schema(&n);
        int registered = 0, refused = 0;
        for (at = 1; at < 60 && !registered; ++at) {
            ecs_result r;
            ecs_compiler_init(&c);
            oom_calls = 0, oom_fail_at = at;
            r = ecs_compiler_register_schema(&c, "gadget", g, n, 150, &err);
            oom_fail_at = 0;
            CHECK_MSG(r == ECS_OK || r == ECS_ERROR_OUT_OF_MEMORY, "failing call %lu: %s: %s", at, ecs_result_name(r),
                      err.message);
            registered += r == ECS_OK;
            refused += r == ECS_ERROR_OUT_OF_MEMORY;
            ecs_compiler_free(&c);
        }
        CHECK(registered == 1 && refused > 2);
    }
    /* a spawn whose entities cannot be made, reported into the entity
       manager's own error: the message keeps the manager's reason (it used
       to be an argument of its own ecs_error_set) */
    {
        ecs_entity_manager em;
        ecs_spawner sp;
        int refused = 0;
        for (at = 1; at < 20; ++at) {
            ecs_result r;
            ecs_spawner_init(&sp);
            ecs_entity_manager_init(&em);
            oom_calls = 0, oom_fail_at = at;
            r = ecs_spawner_spawn(&sp, &em, ref.blob, ref.size, NULL, &em.error);
            oom_fail_at = 0;
            if (r == ECS_ERROR_OUT_OF_MEMORY && has(em.error.message, "could not create")) {
                ++refused;
                CHECK_MSG(has(em.error.message, "could not create 8 entities: entity manager: out of memory"), "%s",
                          em.error.message);
            }
            CHECK(r == ECS_OK || r == ECS_ERROR_OUT_OF_MEMORY);
            ecs_spawner_free(&sp);
            ecs_entity_manager_free(&em);
        }
        CHECK(refused > 0);
    }
    ecs_compiler_output_free(&ref);
}

int main(void)
{
    register_all(&compiler);
    test_round_trips();
    test_standard_level();
    test_spawn_references();
    test_compile_errors();
    test_registration();
    test_duplicate_spec_members();
    test_spec_member_nul();
    test_value_read_long_path();
    test_refusals();
    test_float_bounds();
    test_names_not_utf8();
    test_hash_upper_case();
    test_deepest_chain();
    test_empty_names_block();
    test_check_message();
    test_names();
    test_out_of_memory();
    ecs_compiler_free(&compiler);
    return test_report("test_resource_schema");
}
