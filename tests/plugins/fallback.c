/* tests/plugins/fallback.c - asks for engine API versions that do not exist
   and falls back: ECS_API_ENTITIES v1 (there is only v0), FIXTURE_SIDE_API v2
   (the test publishes v0 and v1). Reports what it got through the probe. */
#include "fixture.h"

static ecs_result fallback_init(ecs_plugin_get_api_fn get_engine_api, void **state, ecs_error *err)
{
    const fixture_probe_api_v0 *probe = (const fixture_probe_api_v0 *)get_engine_api(FIXTURE_PROBE_API, 0);
    const void *ents;
    const void *side;
    int ents_v = 1, side_v = 2, result = 0;
    if (!probe) return ecs_plugin_set_error(err, ECS_ERROR_API_VERSION, "no probe API");
    while (!(ents = get_engine_api(ECS_API_ENTITIES, (unsigned)ents_v)) && ents_v >= 0) --ents_v;
    while (!(side = get_engine_api(FIXTURE_SIDE_API, (unsigned)side_v)) && side_v >= 0) --side_v;
    if (side_v == 1) result = ((const fixture_side_api_v1 *)side)->twice(20, 1);
    else if (side_v == 0) result = ((const fixture_side_api_v0 *)side)->twice(20);
    probe->event(probe->ctx, FIXTURE_EVENT_ENTITIES_V, ents ? ents_v : -1);
    probe->event(probe->ctx, FIXTURE_EVENT_SIDE_V, side ? side_v : -1);
    probe->event(probe->ctx, FIXTURE_EVENT_SIDE_RESULT, result);
    *state = NULL; /* a plugin may have no state at all */
    return ECS_OK;
}

ECS_PLUGIN_EXPORT void *get_plugin_api(unsigned api, unsigned version)
{
    static ecs_plugin_api_v0 plugin;
    if (api != ECS_API_PLUGIN || version != 0) return NULL;
    plugin.name = "fallback";
    plugin.init = fallback_init;
    return &plugin;
}
