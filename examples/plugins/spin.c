/* examples/plugins/spin.c - a plugin that adds the "spin" component.

   Build it with one command from the repository root:
       cc -std=c99 -O2 -shared -fPIC -I. examples/plugins/spin.c -o build/spin.so
   (Windows: cl /LD /I. examples\plugins\spin.c /Fe:build\spin.dll)
   and load it with ecs_plugin_load(registry, "build/spin.so", ...). It links
   against nothing: everything it uses comes through get_engine_api.

   In a level (examples/levels/spin_demo.json):
       {"type": "spin", "axis": [0, 1, 0], "speed": 1.57}
   axis: any non-zero vector (default [0, 1, 0]); speed: radians per second
   (default 1). It compiles to 16 bytes, {float axis[3]; float speed}, at
   spawn order 300, after transforms (0).

   The data lives in the engine-owned manager "spin" (fields axis, speed,
   angle, base), so it survives a reload of this plugin. Spawn records the
   entity's local transform as its base pose; each tick advances every angle
   by speed * dt and, when the engine publishes ECS_API_TRANSFORMS, sets the
   local transform to rotation(axis, angle) * base: the entity turns in place
   and its children turn with it.

   Needs ECS_API_COMPONENTS v0 and ECS_API_RESOURCES v0 (without the latter
   levels cannot contain spins; init fails). ECS_API_TRANSFORMS v0 and
   ECS_API_ENTITIES v0 are optional: without transforms the angles still
   advance; with entities, the spins of destroyed entities are collected. */
#include "ecs_plugin.h"
#include "ecs_transform.h" /* for ecs_mat4 only: its functions come through the API */
#include <string.h>

#define SPIN_STATE_MAGIC 0x5350494eu /* 'SPIN' */
#define SPIN_STATE_LAYOUT 1u
#define SPIN_RECORD_SIZE 16u
#define SPIN_TWO_PI 6.28318530718f

/* Field numbers in the "spin" manager. */
enum { SPIN_AXIS, SPIN_SPEED, SPIN_ANGLE, SPIN_BASE };

typedef struct spin_state {
    uint32_t magic, layout; /* checked by a reloaded build before adopting the state */
    const ecs_components_api_v0 *components;
    const ecs_resources_api_v0 *resources;
    const ecs_transforms_api_v0 *transforms; /* may be NULL */
    const ecs_entities_api_v0 *entities;     /* may be NULL */
    ecs_manager *spin;
    ecs_instance *nodes; /* set_local_many's input, grown as needed */
    ecs_mat4 *locals;
    uint32_t scratch_capacity;
} spin_state;

static ecs_result spin_compile(void *user, struct ecs_compiler_context *ctx, const struct ecs_json_value *c)
{
    static const char *const known[] = {"axis", "speed"};
    static const float default_axis[3] = {0.0f, 1.0f, 0.0f};
    static const float default_speed = 1.0f;
    const ecs_resources_api_v0 *r = ((const spin_state *)user)->resources;
    float axis[3], speed;
    ecs_result res;
    if ((res = r->check_members(ctx, c, known, 2)) != ECS_OK) return res;
    if ((res = r->member_f32(ctx, c, "axis", axis, 3, default_axis)) != ECS_OK) return res;
    if ((res = r->member_f32(ctx, c, "speed", &speed, 1, &default_speed)) != ECS_OK) return res;
    if (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2] <= 0.0f)
        return r->error(ctx, r->json_member(r->doc(ctx), c, "axis"), "the spin axis must not be zero");
    if ((res = r->write_f32(ctx, axis[0])) != ECS_OK || (res = r->write_f32(ctx, axis[1])) != ECS_OK ||
        (res = r->write_f32(ctx, axis[2])) != ECS_OK || (res = r->write_f32(ctx, speed)) != ECS_OK)
        return res;
    return ECS_OK;
}

static void spin_unspawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                         const uint32_t *entity_index, const void *data, uint32_t size)
{
    spin_state *s = (spin_state *)user;
    uint32_t j;
    (void)data;
    (void)size;
    for (j = 0; j < num_instances; ++j) s->components->destroy_entity(s->spin, ctx->entity[entity_index[j]]);
}

static ecs_result spin_spawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                             const uint32_t *entity_index, const void *data, uint32_t size)
{
    spin_state *s = (spin_state *)user;
    const unsigned char *rec = (const unsigned char *)data;
    uint32_t j;
    (void)size; /* the spawner checked size == num_instances * 16 */
    if (s->components->reserve(s->spin, s->spin->count + num_instances) != ECS_OK)
        return ecs_plugin_set_error(ctx->error, ECS_ERROR_OUT_OF_MEMORY, "spin: out of memory");
    for (j = 0; j < num_instances; ++j, rec += SPIN_RECORD_SIZE) {
        ecs_entity e = ctx->entity[entity_index[j]];
        ecs_instance i = s->components->create(s->spin, e);
        ecs_mat4 *base;
        if (ecs_instance_is_nil(i)) { /* cannot happen after reserve; undo anyway */
            spin_unspawn(user, ctx, j, entity_index, data, size);
            return ecs_plugin_set_error(ctx->error, ECS_ERROR_OUT_OF_MEMORY, "spin: out of memory");
        }
        memcpy(ecs_manager_field(s->spin, SPIN_AXIS, i.i), rec, 12);
        memcpy(ecs_manager_field(s->spin, SPIN_SPEED, i.i), rec + 12, 4);
        base = (ecs_mat4 *)ecs_manager_field(s->spin, SPIN_BASE, i.i);
        memset(base, 0, sizeof *base);
        base->m[0] = base->m[5] = base->m[10] = base->m[15] = 1.0f;
        if (s->transforms) {
            ecs_instance t = s->transforms->lookup(s->transforms->transforms, e);
            if (!ecs_instance_is_nil(t)) *base = *s->transforms->local(s->transforms->transforms, t);
        }
    }
    return ECS_OK;
}

static ecs_result spin_reserve_scratch(spin_state *s, uint32_t n)
{
    ecs_instance *nodes;
    ecs_mat4 *locals;
    if (n <= s->scratch_capacity) return ECS_OK;
    nodes = (ecs_instance *)realloc(s->nodes, n * sizeof *nodes);
    if (!nodes) return ECS_ERROR_OUT_OF_MEMORY;
    s->nodes = nodes;
    locals = (ecs_mat4 *)realloc(s->locals, n * sizeof *locals);
    if (!locals) return ECS_ERROR_OUT_OF_MEMORY;
    s->locals = locals;
    s->scratch_capacity = n;
    return ECS_OK;
}

static void spin_tick(void *state, float dt)
{
    spin_state *s = (spin_state *)state;
    ecs_manager *m = s->spin;
    const ecs_transforms_api_v0 *t = s->transforms;
    float *speed, *angle;
    uint32_t i, n = 0;
    if (s->entities) s->components->gc(m, s->entities->entities);
    speed = (float *)m->field[SPIN_SPEED];
    angle = (float *)m->field[SPIN_ANGLE];
    for (i = 0; i < m->count; ++i) {
        float a = angle[i] + speed[i] * dt;
        angle[i] = a - SPIN_TWO_PI * (float)(int)(a / SPIN_TWO_PI); /* keep it in (-2 pi, 2 pi) */
    }
    if (!t || spin_reserve_scratch(s, m->count) != ECS_OK) return;
    for (i = 0; i < m->count; ++i) {
        const float *axis = (const float *)ecs_manager_field(m, SPIN_AXIS, i);
        ecs_instance node = t->lookup(t->transforms, m->entity[i]);
        ecs_mat4 r;
        if (ecs_instance_is_nil(node)) continue;
        t->rotation(&r, axis[0], axis[1], axis[2], angle[i]);
        t->mul(&s->locals[n], &r, (const ecs_mat4 *)ecs_manager_field(m, SPIN_BASE, i));
        s->nodes[n++] = node;
    }
    t->set_local_many(t->transforms, n, s->nodes, s->locals); /* each moved subtree updated once */
}

static ecs_result spin_init(ecs_plugin_get_api_fn get_engine_api, void **state, ecs_error *err)
{
    static const ecs_field_desc fields[] = {
        {"axis", 12, 4}, {"speed", 4, 4}, {"angle", 4, 4}, {"base", (uint32_t)sizeof(ecs_mat4), 4}};
    spin_state *old = (spin_state *)*state, *s = old;
    const ecs_components_api_v0 *components =
        (const ecs_components_api_v0 *)get_engine_api(ECS_API_COMPONENTS, 0);
    const ecs_resources_api_v0 *resources = (const ecs_resources_api_v0 *)get_engine_api(ECS_API_RESOURCES, 0);
    ecs_manager *m;
    if (!components || !resources)
        return ecs_plugin_set_error(err, ECS_ERROR_API_VERSION,
                                    "spin needs ECS_API_COMPONENTS and ECS_API_RESOURCES version 0");
    if (old && (old->magic != SPIN_STATE_MAGIC || old->layout != SPIN_STATE_LAYOUT))
        return ecs_plugin_set_error(err, ECS_ERROR_INVALID_ARGUMENT, "spin: unknown state layout %u",
                                    (unsigned)old->layout);
    if (!s) {
        s = (spin_state *)calloc(1, sizeof *s);
        if (!s) return ecs_plugin_set_error(err, ECS_ERROR_OUT_OF_MEMORY, "spin: out of memory");
        s->magic = SPIN_STATE_MAGIC;
        s->layout = SPIN_STATE_LAYOUT;
        s->resources = resources; /* the compile function reads it */
    }
    /* On a reload these find the existing manager and re-point the functions;
       if anything fails the registry rolls back and the old build goes on. */
    m = components->define(components->registry, "spin", fields, 4, ECS_LOOKUP_HASH, err);
    if (!m || resources->register_compile(resources->registry, "spin", 300, spin_compile, s, err) != ECS_OK ||
        resources->register_spawn(resources->registry, "spin", spin_spawn, spin_unspawn, SPIN_RECORD_SIZE, s,
                                  err) != ECS_OK) {
        if (!old) free(s);
        return err->code;
    }
    s->components = components;
    s->resources = resources;
    s->transforms = (const ecs_transforms_api_v0 *)get_engine_api(ECS_API_TRANSFORMS, 0);
    s->entities = (const ecs_entities_api_v0 *)get_engine_api(ECS_API_ENTITIES, 0);
    s->spin = m;
    *state = s;
    return ECS_OK;
}

static void spin_shutdown(void *state)
{
    spin_state *s = (spin_state *)state;
    free(s->nodes);
    free(s->locals);
    free(s);
}

ECS_PLUGIN_EXPORT void *get_plugin_api(unsigned api, unsigned version)
{
    static ecs_plugin_api_v0 plugin;
    if (api != ECS_API_PLUGIN || version != 0) return NULL;
    plugin.name = "spin";
    plugin.init = spin_init;
    plugin.shutdown = spin_shutdown;
    plugin.tick = spin_tick;
    return &plugin;
}
