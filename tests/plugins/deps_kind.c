/* tests/plugins/deps_kind.c - a plugin adding the component "label" whose
   member "target" is a resource path, or with -DDEPS_KIND_ENTITY an entity
   name (so not a reference levelc's dependency checker follows). The two
   builds differ in one constant and come out the same size: tests/check_deps.sh
   swaps one for the other under the same name, size and time and checks
   that levelc's cache notices the other plugin. */
#include "ecs_plugin.h"
#include "ecs_resource.h" /* declarations only: ecs_resources_api_v1 */

#ifdef DEPS_KIND_ENTITY
#define LABEL_SCHEMA(X) X(entity, target, ECS_FIELD_REQUIRED) X(u64, count, ECS_FIELD_REQUIRED)
#else
#define LABEL_SCHEMA(X) X(path, target, ECS_FIELD_REQUIRED) X(u64, count, ECS_FIELD_REQUIRED)
#endif
ECS_MANAGER_VIEW_DEFINE_SCHEMA(label_view, LABEL_SCHEMA)

static ecs_result label_init(ecs_plugin_get_api_fn get_engine_api, void **state, ecs_error *err)
{
    const ecs_components_api_v1 *components = (const ecs_components_api_v1 *)get_engine_api(ECS_API_COMPONENTS, 1);
    const ecs_resources_api_v1 *resources = (const ecs_resources_api_v1 *)get_engine_api(ECS_API_RESOURCES, 1);
    const ecs_schema_field *fields;
    ecs_manager *m;
    uint32_t num_fields;
    *state = NULL;
    if (!components || !resources)
        return ecs_plugin_set_error(err, ECS_ERROR_API_VERSION, "label: needs ECS_API_COMPONENTS v1 and ECS_API_RESOURCES v1");
    fields = label_view_schema(&num_fields);
    m = components->define_schema(components->registry, "label", fields, num_fields, ECS_LOOKUP_DENSE, err);
    if (!m) return err->code;
    return resources->register_manager(resources->registry, "label", 300, m, err);
}

static void label_shutdown(void *state)
{
    (void)state;
}

ECS_PLUGIN_EXPORT void *get_plugin_api(unsigned api, unsigned version)
{
    static ecs_plugin_api_v0 plugin;
    if (api != ECS_API_PLUGIN || version != 0) return NULL;
    plugin.name = "label";
    plugin.init = label_init;
    plugin.shutdown = label_shutdown;
    return &plugin;
}
