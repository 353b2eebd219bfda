/* examples/plugins/spin.c - a plugin that adds the "spin" component.

   Build it with one command from the repository root:
       cc -std=c99 -O2 -shared -fPIC -I. examples/plugins/spin.c -o build/spin.so
   (Windows: cl /LD /I. examples\plugins\spin.c /Fe:build\spin.dll)
   and load it with ecs_plugin_load(registry, "build/spin.so", ...), or give it
   to the level compiler: levelc --plugin build/spin.so level.json level.bin.
   It links against nothing: everything it uses comes through get_engine_api.

   In a level (examples/levels/spin_demo.json):
       {"type": "spin", "axis": [0, 1, 0], "speed": 1.57, "angle": 0}
   axis: the axis to turn about (default [0, 1, 0]; a zero axis does not
   turn); speed: radians per second (default 1); angle: where it starts
   (radians, default 0; each tick keeps it in (-2 pi, 2 pi), and an angle
   past 2^24 turns, where a float has no fraction of a turn left, becomes 0).

   The component is described once, by SPIN_SCHEMA below, and everything
   else comes from that description: the engine-owned manager "spin" (its
   data survives a reload of this plugin), the typed view this plugin reads
   it through (spin_view: s->speed[i], no field numbers, no memcpy), the
   compile and decompile functions and the spawn (ECS_API_RESOURCES v1's
   register_manager, at spawn order 300, after transforms). "base" is
   runtime state, not in levels: the entity's local transform when the
   plugin first sees the spin. Each tick advances every angle by speed * dt
   and, when the engine publishes ECS_API_TRANSFORMS, sets the local
   transform to rotation(axis, angle) * base: the entity turns in place and
   its children turn with it.

   Needs ECS_API_COMPONENTS v1 and ECS_API_RESOURCES v1 (init fails with a
   message otherwise). ECS_API_TRANSFORMS v1 and ECS_API_ENTITIES v0 are
   optional: without transforms the angles still advance; with entities, the
   spins of destroyed entities are collected. */
#include "ecs_plugin.h"
#include "ecs_resource.h"  /* declarations only: ecs_resources_api_v1 */
#include "ecs_transform.h" /* declarations only: ecs_transforms_api_v1 */
#include <string.h>

#define SPIN_STATE_MAGIC 0x5350494eu /* 'SPIN' */
#define SPIN_STATE_LAYOUT 2u
#define SPIN_TWO_PI 6.28318530718f

/* The "spin" component, once: field, kind, what a level that leaves it out
   gets (ECS_FIELD_RUNTIME: not in levels at all). */
#define SPIN_SCHEMA(X)             \
    X(vec3, axis, "[0, 1, 0]")     \
    X(f32, speed, "1")             \
    X(f32, angle, "0")             \
    X(mat4, base, ECS_FIELD_RUNTIME)
/* spin_view: ecs_manager core; ecs_entity *entity; ecs_vec3 *axis;
   float *speed, *angle; ecs_mat4 *base; and spin_view_schema(&n). */
ECS_MANAGER_VIEW_DEFINE_SCHEMA(spin_view, SPIN_SCHEMA)

typedef struct spin_state {
    uint32_t magic, layout; /* checked by a reloaded build before adopting the state */
    const ecs_components_api_v1 *components;
    const ecs_transforms_api_v1 *transforms; /* may be NULL */
    const ecs_entities_api_v0 *entities;     /* may be NULL */
    spin_view *spin;                         /* the engine-owned manager, typed */
    ecs_instance *nodes;                     /* set_local_many's input, grown as needed */
    ecs_mat4 *locals;
    uint32_t scratch_capacity;
} spin_state;

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

/* A spawned spin's base is zero (runtime state starts zeroed): take the
   entity's local transform now, or the identity without one. */
static void spin_capture_base(const spin_state *s, uint32_t i, ecs_instance node)
{
    ecs_mat4 *base = &s->spin->base[i];
    if (base->m[15] != 0.0f) return;
    memset(base, 0, sizeof *base);
    base->m[0] = base->m[5] = base->m[10] = base->m[15] = 1.0f;
    if (!ecs_instance_is_nil(node)) *base = *s->transforms->local(s->transforms->transforms, node);
}

static void spin_tick(void *state, float dt)
{
    spin_state *s = (spin_state *)state;
    spin_view *v = s->spin;
    const ecs_transforms_api_v1 *t = s->transforms;
    uint32_t i, n = 0, count;
    if (s->entities) s->components->gc(&v->core, s->entities->entities);
    count = v->core.count;
    for (i = 0; i < count; ++i) {
        float a = v->angle[i] + v->speed[i] * dt, turns = a / SPIN_TWO_PI;
        /* keep it in (-2 pi, 2 pi); past 2^24 turns (or NaN) a float angle
           has no fraction of a turn left: 0, not an int conversion out of range */
        if (turns > -16777216.0f && turns < 16777216.0f) v->angle[i] = a - SPIN_TWO_PI * (float)(int32_t)turns;
        else v->angle[i] = 0.0f;
    }
    if (!t || spin_reserve_scratch(s, count) != ECS_OK) return;
    for (i = 0; i < count; ++i) {
        ecs_vec3 axis = v->axis[i];
        ecs_instance node = t->lookup(t->transforms, v->entity[i]);
        ecs_mat4 r;
        spin_capture_base(s, i, node);
        if (ecs_instance_is_nil(node) || (axis.x == 0.0f && axis.y == 0.0f && axis.z == 0.0f)) continue;
        r = t->mat4_rotation(t->quat_axis_angle(axis, v->angle[i]));
        t->mat4_mul(&s->locals[n], &r, &v->base[i]);
        s->nodes[n++] = node;
    }
    t->set_local_many(t->transforms, n, s->nodes, s->locals); /* each moved subtree updated once */
}

static ecs_result spin_init(ecs_plugin_get_api_fn get_engine_api, void **state, ecs_error *err)
{
    spin_state *old = (spin_state *)*state, *s = old;
    const ecs_components_api_v1 *components = (const ecs_components_api_v1 *)get_engine_api(ECS_API_COMPONENTS, 1);
    const ecs_resources_api_v1 *resources = (const ecs_resources_api_v1 *)get_engine_api(ECS_API_RESOURCES, 1);
    const ecs_schema_field *schema;
    ecs_manager *m;
    uint32_t n;
    if (!components || !resources)
        return ecs_plugin_set_error(err, ECS_ERROR_API_VERSION,
                                    "spin needs ECS_API_COMPONENTS and ECS_API_RESOURCES version 1");
    if (old && (old->magic != SPIN_STATE_MAGIC || old->layout != SPIN_STATE_LAYOUT))
        return ecs_plugin_set_error(err, ECS_ERROR_INVALID_ARGUMENT, "spin: unknown state layout %u",
                                    (unsigned)old->layout);
    if (!s) {
        s = (spin_state *)calloc(1, sizeof *s);
        if (!s) return ecs_plugin_set_error(err, ECS_ERROR_OUT_OF_MEMORY, "spin: out of memory");
        s->magic = SPIN_STATE_MAGIC;
        s->layout = SPIN_STATE_LAYOUT;
    }
    /* On a reload these find the existing manager and registrations; if
       anything fails the registry rolls back and the old build goes on. */
    schema = spin_view_schema(&n);
    m = components->define_schema(components->registry, "spin", schema, n, ECS_LOOKUP_HASH, err);
    if (!m || resources->register_manager(resources->registry, "spin", 300, m, err) != ECS_OK) {
        if (!old) free(s);
        return err->code;
    }
    s->components = components;
    s->transforms = (const ecs_transforms_api_v1 *)get_engine_api(ECS_API_TRANSFORMS, 1);
    s->entities = (const ecs_entities_api_v0 *)get_engine_api(ECS_API_ENTITIES, 0);
    s->spin = (spin_view *)m; /* the core comes first: the view follows it */
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
