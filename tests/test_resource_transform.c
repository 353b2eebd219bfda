/* tests/test_resource_transform.c - ecs_resource.h with ecs_transform.h: the
   compiled transform matches ecs_mat4_compose, spawned hierarchies are linked
   through parent_index with correct world matrices (prefab, level, nested,
   copies, a random level against a reference), and a spawn that fails after
   the transform block leaves no transform and no entity behind. */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_TRANSFORM_IMPLEMENTATION
#include "ecs_transform.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#include "resource_fixture.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MESH_FIELDS(X) X(uint64_t, mesh) X(uint32_t, flags)
ECS_MANAGER_DEFINE(t_mesh, MESH_FIELDS)

typedef struct world {
    ecs_entity_manager em;
    ecs_transform_manager tm;
    t_mesh mesh;
    ecs_spawner sp;
} world;

static void world_init(world *w, ecs_transform_mode mode)
{
    memset(w, 0, sizeof *w);
    CHECK(ecs_transform_manager_init(&w->tm, ECS_LOOKUP_DENSE, mode) == ECS_OK);
    CHECK(t_mesh_init(&w->mesh, ECS_LOOKUP_DENSE) == ECS_OK);
    ecs_spawner_init(&w->sp);
    CHECK(ecs_spawner_register(&w->sp, "transform", ecs_transform_spawn, ecs_transform_unspawn,
                               ECS_RESOURCE_TRANSFORM_SIZE, &w->tm, NULL) == ECS_OK);
    CHECK(ecs_spawner_register(&w->sp, "mesh", ecs_manager_spawn, ecs_manager_unspawn, ECS_RESOURCE_MESH_SIZE,
                               &w->mesh.core, NULL) == ECS_OK);
}

static void world_free(world *w)
{
    ecs_spawner_free(&w->sp);
    ecs_transform_manager_free(&w->tm);
    t_mesh_free(&w->mesh);
    ecs_entity_manager_free(&w->em);
}

static ecs_compiler compiler;

static int near(float a, float b) { return fabsf(a - b) <= 1e-5f * (1.0f + fabsf(a) + fabsf(b)); }

static int mat_near(const ecs_mat4 *a, const ecs_mat4 *b)
{
    int i;
    for (i = 0; i < 16; ++i)
        if (!near(a->m[i], b->m[i])) return 0;
    return 1;
}

static ecs_mat4 world_of(const world *w, ecs_entity e)
{
    ecs_mat4 m;
    ecs_instance i = ecs_transform_lookup(&w->tm, e);
    if (ecs_instance_is_nil(i) || ecs_transform_compute_world(&w->tm, i, &m) != ECS_OK) memset(&m, 0xFF, sizeof m);
    return m;
}

/* the compiled local matrix equals ecs_mat4_compose(t, r, s) */
static void test_compose_matches(void)
{
    const char *json = "{\"entities\": [{\"components\": [{\"type\": \"transform\", \"position\": [1, -2, 3.5],"
                       " \"rotation\": [0.2, -0.4, 0.1, 0.9], \"scale\": [2, 0.5, 3]}]},"
                       " {\"components\": [{\"type\": \"transform\", \"local\": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}]}]}";
    ecs_compiler_output out;
    ecs_error err;
    ecs_vec3 t = {1.0f, -2.0f, 3.5f}, s = {2.0f, 0.5f, 3.0f};
    ecs_quat q = {0.2f, -0.4f, 0.1f, 0.9f};
    ecs_mat4 want = ecs_mat4_compose(t, q, s), got;
    ecs_resource_block blk;
    int i;
    CHECK(ecs_compiler_compile(&compiler, json, strlen(json), 0, &out, &err) == ECS_OK);
    CHECK(ecs_resource_verify(out.blob, out.size, &err) == ECS_OK);
    blk = ecs_resource_block_at(out.blob, ecs_resource_first_block(out.blob));
    CHECK(blk.identifier == ECS_RESOURCE_TRANSFORM_ID && blk.num_instances == 2 && blk.size == 128);
    memcpy(&got, blk.data, 64);
    CHECK_MSG(mat_near(&got, &want), "%g %g %g / %g %g %g", got.m[0], got.m[1], got.m[2], want.m[0], want.m[1], want.m[2]);
    memcpy(&got, (const char *)blk.data + 64, 64);
    for (i = 0; i < 16; ++i) CHECK(got.m[i] == (float)(i + 1));
    ecs_compiler_output_free(&out);
}

static const char *cart_json =
    "{\"entities\": [\n"
    " {\"name\": \"cart\", \"components\": [{\"type\": \"transform\", \"position\": [10, 0, 0]},\n"
    "                                  {\"type\": \"mesh\", \"mesh\": \"models/cart\"}],\n"
    "  \"children\": [\n"
    "   {\"name\": \"axle\", \"components\": [{\"type\": \"transform\", \"position\": [0, 1, 0], \"rotation\": [0, 0, 1, 1]}],\n"
    "    \"children\": [{\"name\": \"wheel\", \"components\": [{\"type\": \"transform\", \"position\": [2, 0, 0]}]}]},\n"
    "   {\"name\": \"flag\", \"components\": [{\"type\": \"transform\", \"scale\": 3}]}]}]}";

static void test_prefab_worlds(ecs_transform_mode mode)
{
    world w;
    ecs_compiler_output out;
    ecs_error err;
    ecs_entity e[4], many[4 * 50];
    ecs_mat4 m;
    uint32_t c;
    world_init(&w, mode);
    CHECK(ecs_compiler_compile(&compiler, cart_json, strlen(cart_json), ECS_COMPILER_PREFAB, &out, &err) == ECS_OK);
    CHECK(ecs_spawner_spawn(&w.sp, &w.em, out.blob, out.size, e, &err) == ECS_OK);
    CHECK(ecs_transform_count(&w.tm) == 4 && t_mesh_count(&w.mesh) == 1);
    /* links follow parent_index: cart <- axle <- wheel, cart <- flag */
    CHECK(ecs_instance_is_nil(ecs_transform_parent(&w.tm, ecs_transform_lookup(&w.tm, e[0]))));
    CHECK(ecs_transform_parent(&w.tm, ecs_transform_lookup(&w.tm, e[1])).i == ecs_transform_lookup(&w.tm, e[0]).i);
    CHECK(ecs_transform_parent(&w.tm, ecs_transform_lookup(&w.tm, e[2])).i == ecs_transform_lookup(&w.tm, e[1]).i);
    CHECK(ecs_transform_parent(&w.tm, ecs_transform_lookup(&w.tm, e[3])).i == ecs_transform_lookup(&w.tm, e[0]).i);
    /* wheel: (2,0,0) rotated 90 degrees about z is (0,2,0), + axle (0,1,0) + cart (10,0,0) */
    m = world_of(&w, e[2]);
    CHECK_MSG(near(m.m[12], 10.0f) && near(m.m[13], 3.0f) && near(m.m[14], 0.0f), "%g %g %g", m.m[12], m.m[13], m.m[14]);
    m = world_of(&w, e[3]);
    CHECK(near(m.m[0], 3.0f) && near(m.m[12], 10.0f));
    if (mode == ECS_TRANSFORM_IMMEDIATE) { /* the stored worlds are current after the spawn */
        const ecs_mat4 *stored = ecs_transform_world(&w.tm, ecs_transform_lookup(&w.tm, e[2]));
        CHECK(stored && near(stored->m[13], 3.0f));
    }
    /* 50 copies in one call: each copy's links stay inside the copy */
    CHECK(ecs_spawner_spawn_copies(&w.sp, &w.em, out.blob, out.size, 50, many, &err) == ECS_OK);
    CHECK(ecs_transform_count(&w.tm) == 204 && ecs_entity_count(&w.em) == 204);
    for (c = 0; c < 50; ++c) {
        ecs_instance wheel = ecs_transform_lookup(&w.tm, many[c * 4 + 2]);
        CHECK(ecs_transform_parent(&w.tm, wheel).i == ecs_transform_lookup(&w.tm, many[c * 4 + 1]).i);
        m = world_of(&w, many[c * 4 + 2]);
        CHECK(near(m.m[12], 10.0f) && near(m.m[13], 3.0f));
    }
    CHECK(ecs_spawner_unspawn(&w.sp, &w.em, out.blob, 50, many) == 200);
    CHECK(ecs_spawner_unspawn(&w.sp, &w.em, out.blob, 1, e) == 4);
    CHECK(ecs_transform_count(&w.tm) == 0 && t_mesh_count(&w.mesh) == 0 && ecs_entity_count(&w.em) == 0);
    world_free(&w);
    ecs_compiler_output_free(&out);
}

/* a spawn that fails after the transform block: no transform, mesh or entity stays */
static ecs_result refuse_spawn(void *user, const ecs_spawn_context *ctx, uint32_t n, const uint32_t *ei, const void *d,
                               uint32_t size)
{
    (void)user, (void)n, (void)ei, (void)d, (void)size;
    return ecs_error_set(ctx->error, ECS_ERROR_SPAWN_FAILED, "no");
}
static void refuse_unspawn(void *user, const ecs_spawn_context *ctx, uint32_t n, const uint32_t *ei, const void *d,
                           uint32_t size)
{
    (void)user, (void)ctx, (void)n, (void)ei, (void)d, (void)size;
}

static void test_failure_leaves_nothing(void)
{
    world w;
    ecs_compiler_output out;
    ecs_error err;
    ecs_entity keep, e[4];
    world_init(&w, ECS_TRANSFORM_IMMEDIATE);
    keep = ecs_entity_create(&w.em); /* something that was there before stays */
    CHECK(!ecs_instance_is_nil(ecs_transform_create(&w.tm, keep, NULL, ecs_instance_nil())));
    CHECK(ecs_spawner_register(&w.sp, "actor", refuse_spawn, refuse_unspawn, ECS_RESOURCE_ACTOR_SIZE, NULL, &err) == ECS_OK);
    {
        const char *json = "{\"entities\": [{\"components\": [{\"type\": \"transform\"}, {\"type\": \"mesh\", \"mesh\": \"m\"},"
                           " {\"type\": \"actor\"}], \"children\": [{\"components\": [{\"type\": \"transform\"}]}]}]}";
        CHECK(ecs_compiler_compile(&compiler, json, strlen(json), 0, &out, &err) == ECS_OK);
    }
    CHECK(ecs_spawner_spawn(&w.sp, &w.em, out.blob, out.size, e, &err) == ECS_ERROR_SPAWN_FAILED);
    CHECK(ecs_entity_count(&w.em) == 1 && ecs_entity_alive(&w.em, keep));
    CHECK(ecs_transform_count(&w.tm) == 1 && ecs_transform_entity(&w.tm, ecs_instance_make(0)).id == keep.id);
    CHECK(t_mesh_count(&w.mesh) == 0);
    CHECK(ecs_spawner_spawn_copies(&w.sp, &w.em, out.blob, out.size, 7, NULL, &err) == ECS_ERROR_SPAWN_FAILED);
    CHECK(ecs_entity_count(&w.em) == 1 && ecs_transform_count(&w.tm) == 1 && t_mesh_count(&w.mesh) == 0);
    world_free(&w);
    ecs_compiler_output_free(&out);
}

/* a random level (nested JSON from random earlier parents), spawned, against
   world matrices computed here from the JSON's own numbers */
static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint32_t rnd(void) { return fixture_rnd(&rng_state); }

#define RL_N 2000
#define RL_CLOSE 0xFFFFFFFEu

typedef struct rl_node {
    uint32_t parent, first_child, next_sibling, last_child;
    int x, y, z;
} rl_node;

static void test_random_level(void)
{
    static rl_node nodes[RL_N];
    static uint32_t order[RL_N], stack[2 * RL_N];
    static ecs_entity ents[RL_N];
    static ecs_mat4 ref[RL_N];
    char *json = (char *)malloc(RL_N * 160 + 64), *o = json;
    uint32_t k, sp = 0, n = 0, bad = 0;
    ecs_compiler_output out;
    ecs_error err;
    world w;
    for (k = 0; k < RL_N; ++k) {
        nodes[k].parent = (k == 0 || rnd() % 10 < 3) ? ECS_RESOURCE_ROOT : rnd() % k;
        nodes[k].first_child = nodes[k].next_sibling = nodes[k].last_child = ECS_RESOURCE_ROOT;
        nodes[k].x = (int)(rnd() % 21) - 10;
        nodes[k].y = (int)(rnd() % 21) - 10;
        nodes[k].z = (int)(rnd() % 21) - 10;
        if (nodes[k].parent != ECS_RESOURCE_ROOT) {
            rl_node *p = nodes + nodes[k].parent;
            if (p->last_child == ECS_RESOURCE_ROOT) p->first_child = k;
            else nodes[p->last_child].next_sibling = k;
            p->last_child = k;
        }
    }
    /* nested JSON, depth-first, written iteratively; order[] = resource numbering.
       The stack holds nodes to write and CLOSE marks for "]}". */
    o += sprintf(o, "{\"entities\": [");
    for (k = RL_N; k-- > 0;)
        if (nodes[k].parent == ECS_RESOURCE_ROOT) stack[sp++] = k; /* roots, the first on top */
    {
        uint32_t need_comma = 0, c, nc, tmp[RL_N];
        while (sp) {
            uint32_t v = stack[--sp];
            if (v == RL_CLOSE) {
                o += sprintf(o, "]}");
                need_comma = 1;
                continue;
            }
            if (need_comma) *o++ = ',';
            order[n++] = v;
            o += sprintf(o, "{\"components\": [{\"type\": \"transform\", \"position\": [%d, %d, %d], \"rotation\": [0, 0, 1, 1]}]",
                         nodes[v].x, nodes[v].y, nodes[v].z);
            if (nodes[v].first_child == ECS_RESOURCE_ROOT) {
                *o++ = '}';
                need_comma = 1;
                continue;
            }
            o += sprintf(o, ", \"children\": [");
            stack[sp++] = RL_CLOSE;
            for (nc = 0, c = nodes[v].first_child; c != ECS_RESOURCE_ROOT; c = nodes[c].next_sibling) tmp[nc++] = c;
            while (nc) stack[sp++] = tmp[--nc];
            need_comma = 0;
        }
    }
    o += sprintf(o, "]}");
    *o = 0;
    CHECK(n == RL_N);
    CHECK(ecs_compiler_compile(&compiler, json, (size_t)(o - json), 0, &out, &err) == ECS_OK);
    CHECK_MSG(err.code == ECS_OK, "%s", err.message);
    world_init(&w, ECS_TRANSFORM_IMMEDIATE);
    CHECK(ecs_spawner_spawn(&w.sp, &w.em, out.blob, out.size, ents, &err) == ECS_OK);
    /* reference: resource entity r is order[r]; world = local * parent world */
    {
        static uint32_t resource_of[RL_N];
        for (k = 0; k < RL_N; ++k) resource_of[order[k]] = k;
        for (k = 0; k < RL_N; ++k) {
            uint32_t node = order[k];
            ecs_vec3 t;
            ecs_quat q = {0.0f, 0.0f, 1.0f, 1.0f};
            ecs_vec3 one = {1.0f, 1.0f, 1.0f};
            ecs_mat4 local;
            const ecs_mat4 *got;
            t.x = (float)nodes[node].x, t.y = (float)nodes[node].y, t.z = (float)nodes[node].z;
            local = ecs_mat4_compose(t, q, one);
            if (nodes[node].parent == ECS_RESOURCE_ROOT) ref[k] = local;
            else ecs_mat4_mul(&ref[k], &local, &ref[resource_of[nodes[node].parent]]);
            CHECK(ecs_resource_parent_index(out.blob)[k] ==
                  (nodes[node].parent == ECS_RESOURCE_ROOT ? ECS_RESOURCE_ROOT : resource_of[nodes[node].parent]));
            got = ecs_transform_world(&w.tm, ecs_transform_lookup(&w.tm, ents[k]));
            if (!got || fabsf(got->m[12] - ref[k].m[12]) > 1e-3f || fabsf(got->m[13] - ref[k].m[13]) > 1e-3f ||
                fabsf(got->m[14] - ref[k].m[14]) > 1e-3f || fabsf(got->m[1] - ref[k].m[1]) > 1e-5f)
                ++bad;
        }
    }
    CHECK_MSG(bad == 0, "%u world matrices differ", (unsigned)bad);
    world_free(&w);
    ecs_compiler_output_free(&out);
    free(json);
}

int main(void)
{
    ecs_error err;
    ecs_compiler_init(&compiler);
    CHECK(ecs_compiler_register_standard(&compiler, &err) == ECS_OK);
    test_compose_matches();
    test_prefab_worlds(ECS_TRANSFORM_IMMEDIATE);
    test_prefab_worlds(ECS_TRANSFORM_DEFERRED);
    test_failure_leaves_nothing();
    test_random_level();
    ecs_compiler_free(&compiler);
    return test_report("test_resource_transform");
}
