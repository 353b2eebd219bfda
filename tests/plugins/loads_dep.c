/* tests/plugins/loads_dep.c - a plugin whose init loads the plugin it
   depends on (good.c's FIXTURE_GOOD_API) through an API the engine
   publishes, when that plugin is not loaded yet:
     FIXTURE_DEP_OPTIONAL   a failed load of the dependency is ignored
   Built by tests/test_plugin.c: $CC -x c -std=c99 -shared -fPIC -I. ... */
#include "fixture.h"

static int loads_dep_state;

static ecs_result loads_dep_init(ecs_plugin_get_api_fn get, void **state, ecs_error *err)
{
    const fixture_loader_api_v0 *loader = (const fixture_loader_api_v0 *)get(FIXTURE_LOADER_API, 0);
    if (!get(FIXTURE_GOOD_API, 0)) {
        ecs_result r = loader ? loader->load_dependency(loader->ctx, err) : ECS_ERROR_NOT_FOUND;
#ifndef FIXTURE_DEP_OPTIONAL
        if (r != ECS_OK) return r;
#else
        (void)r;
#endif
    }
    *state = &loads_dep_state;
    return ECS_OK;
}

ECS_PLUGIN_EXPORT void *get_plugin_api(unsigned api, unsigned version)
{
    static ecs_plugin_api_v0 plugin;
    if (api != ECS_API_PLUGIN || version != 0) return NULL;
    plugin.name = "loads_dep";
    plugin.init = loads_dep_init;
    return &plugin;
}
