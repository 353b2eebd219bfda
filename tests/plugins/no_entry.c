/* tests/plugins/no_entry.c - a valid library without get_plugin_api. */
#include "ecs_plugin.h"

ECS_PLUGIN_EXPORT int get_plugin_apis(unsigned api, unsigned version); /* a near miss */
ECS_PLUGIN_EXPORT int get_plugin_apis(unsigned api, unsigned version) { return (int)(api + version); }
