/* tests/plugins/hooked.c - a plugin whose tick, shutdown and compile
   function call back into the test (FIXTURE_HOOK_API), so that the test can
   do from inside them what an engine call made by a plugin would: unload
   this plugin or another one, reload it. Built with -DHOOKED_ID=n (1, 2, 3:
   the same code under three names); its compile function, registered when
   the engine publishes ECS_API_RESOURCES, compiles {"type": "hookedN"} to
   the u32 N. tests/test_plugin_unload.c. */
#include "fixture.h"
#include "ecs_resource.h" /* declarations only: ecs_resources_api_v0 */

#ifndef HOOKED_ID
#define HOOKED_ID 1
#endif

static const fixture_hook_api_v0 *hooks;
static const ecs_resources_api_v0 *resources;

static ecs_result hooked_compile(void *user, struct ecs_compiler_context *ctx, const struct ecs_json_value *component)
{
    (void)user;
    (void)component;
    hooks->call(hooks->ctx, HOOKED_ID, FIXTURE_HOOK_COMPILE);
    return resources->write_u32(ctx, (uint32_t)HOOKED_ID);
}

static ecs_result hooked_init(ecs_plugin_get_api_fn get_engine_api, void **state, ecs_error *err)
{
    char name[16];
    hooks = (const fixture_hook_api_v0 *)get_engine_api(FIXTURE_HOOK_API, 0);
    resources = (const ecs_resources_api_v0 *)get_engine_api(ECS_API_RESOURCES, 0);
    if (!hooks) return ecs_plugin_set_error(err, ECS_ERROR_API_VERSION, "hooked needs FIXTURE_HOOK_API v0");
    snprintf(name, sizeof name, "hooked%d", HOOKED_ID);
    if (resources && resources->register_compile(resources->registry, name, 10, hooked_compile, NULL, err) != ECS_OK)
        return err->code;
    *state = NULL;
    return ECS_OK;
}

static void hooked_tick(void *state, float dt)
{
    (void)state;
    (void)dt;
    hooks->call(hooks->ctx, HOOKED_ID, FIXTURE_HOOK_TICK);
}

static void hooked_shutdown(void *state)
{
    (void)state;
    hooks->call(hooks->ctx, HOOKED_ID, FIXTURE_HOOK_SHUTDOWN);
}

ECS_PLUGIN_EXPORT void *get_plugin_api(unsigned api, unsigned version)
{
    static ecs_plugin_api_v0 plugin;
    if (api != ECS_API_PLUGIN || version != 0) return NULL;
    plugin.name = "hooked";
    plugin.init = hooked_init;
    plugin.shutdown = hooked_shutdown;
    plugin.tick = hooked_tick;
    return &plugin;
}
