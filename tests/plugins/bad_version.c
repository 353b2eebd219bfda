/* tests/plugins/bad_version.c - speaks only plugin API version 7, which this
   engine does not know: the loader must refuse it (ECS_ERROR_PLUGIN_VERSION). */
#include "ecs_plugin.h"

typedef struct future_plugin_api_v7 {
    int (*init_with_everything)(ecs_plugin_get_api_fn get_engine_api, void *options, void **state);
} future_plugin_api_v7;

static int future_init(ecs_plugin_get_api_fn get_engine_api, void *options, void **state)
{
    (void)get_engine_api;
    (void)options;
    (void)state;
    return 0;
}

ECS_PLUGIN_EXPORT void *get_plugin_api(unsigned api, unsigned version)
{
    static future_plugin_api_v7 plugin;
    if (api != ECS_API_PLUGIN || version != 7) return NULL;
    plugin.init_with_everything = future_init;
    return &plugin;
}
