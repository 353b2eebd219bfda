/* tests/plugins/typed.c - a plugin whose component comes from its schema
   (ECS_API_COMPONENTS v1 define_schema, ECS_API_RESOURCES v1
   register_manager) and which reads and writes the engine-owned managers
   through typed views: each tick adds 1 to every turret's shots and to
   every flag's bits (a manager defined the v0 way, with a field table). */
#include "typed.h"
#include "ecs_resource.h" /* declarations only: ecs_resources_api_v1 */

typedef struct typed_state {
    turret_view *turrets;
    flag_view *flags;
    uint32_t ticks;
} typed_state;

static ecs_result typed_init(ecs_plugin_get_api_fn get_engine_api, void **state, ecs_error *err)
{
    static const ecs_field_desc flag_fields[] = {{"bits", 4, 4}, {"weight", 4, 4}};
    const ecs_components_api_v1 *c = (const ecs_components_api_v1 *)get_engine_api(ECS_API_COMPONENTS, 1);
    const ecs_components_api_v0 *c0 = (const ecs_components_api_v0 *)get_engine_api(ECS_API_COMPONENTS, 0);
    const ecs_resources_api_v1 *r = (const ecs_resources_api_v1 *)get_engine_api(ECS_API_RESOURCES, 1);
    typed_state *s = (typed_state *)*state;
    const ecs_schema_field *schema;
    ecs_manager *turrets, *flags;
    uint32_t n;
    if (!c || !c0 || !r) return ecs_plugin_set_error(err, ECS_ERROR_API_VERSION, "typed needs the v1 APIs");
    schema = turret_view_schema(&n);
    turrets = c->define_schema(c->registry, "turret", schema, n, ECS_LOOKUP_DENSE, err);
    if (!turrets || r->register_manager(r->registry, "turret", 200, turrets, err) != ECS_OK) return err->code;
    flags = c0->define(c0->registry, "flag", flag_fields, 2, ECS_LOOKUP_HASH, err);
    if (!flags) return err->code;
    if (!s && !(s = (typed_state *)calloc(1, sizeof *s)))
        return ecs_plugin_set_error(err, ECS_ERROR_OUT_OF_MEMORY, "typed: out of memory");
    s->turrets = (turret_view *)turrets;
    s->flags = (flag_view *)flags;
    *state = s;
    return ECS_OK;
}

static void typed_tick(void *state, float dt)
{
    typed_state *s = (typed_state *)state;
    uint32_t i;
    (void)dt;
    for (i = 0; i < s->turrets->core.count; ++i) s->turrets->shots[i] += 1u;
    for (i = 0; i < s->flags->core.count; ++i) s->flags->bits[i] += 1u;
    ++s->ticks;
}

static void typed_shutdown(void *state) { free(state); }

ECS_PLUGIN_EXPORT void *get_plugin_api(unsigned api, unsigned version)
{
    static ecs_plugin_api_v0 plugin;
    if (api != ECS_API_PLUGIN || version != 0) return NULL;
    plugin.name = "typed";
    plugin.init = typed_init;
    plugin.shutdown = typed_shutdown;
    plugin.tick = typed_tick;
    return &plugin;
}
