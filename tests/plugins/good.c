/* tests/plugins/good.c - the well-behaved fixture plugin, and with defines
   its other builds:
     FIXTURE_BUILD=n      a build number the code reports (default 1)
     FIXTURE_STEP=n       what tick adds (default 1)
     FIXTURE_FAIL_INIT    init registers everything, reports
                          FIXTURE_EVENT_INIT_FAILS, then fails
     FIXTURE_DROP_API     does not publish FIXTURE_GOOD_API
   Built by tests/test_plugin.c: $CC -x c -std=c99 -shared -fPIC -I. ... */
#include "fixture.h"
#include "ecs_resource.h" /* declarations only: ecs_resources_api_v0 */
#include <string.h>

#ifndef FIXTURE_BUILD
#define FIXTURE_BUILD 1
#endif
#ifndef FIXTURE_STEP
#define FIXTURE_STEP 1
#endif

#ifndef FIXTURE_DROP_API
static int good_build(void) { return FIXTURE_BUILD; }
#endif

static void good_probe(const fixture_probe_api_v0 *probe, int what, int value)
{
    if (probe) probe->event(probe->ctx, what, value);
}

/* The resources API the compile function needs (set by init; each image has
   its own copy, and the registry hands the same pointer to every build). */
static const ecs_resources_api_v0 *good_resources;

static ecs_result good_compile(void *user, struct ecs_compiler_context *ctx, const struct ecs_json_value *component)
{
    static const char *const known[] = {"hp"};
    static const float default_hp = 100.0f;
    float hp;
    ecs_result r;
    (void)user;
    if ((r = good_resources->check_members(ctx, component, known, 1)) != ECS_OK) return r;
    if ((r = good_resources->member_f32(ctx, component, "hp", &hp, 1, &default_hp)) != ECS_OK) return r;
    if (hp < 0.0f) return good_resources->error(ctx, NULL, "hp must be >= 0, not %g", (double)hp);
    if ((r = good_resources->write_f32(ctx, hp)) != ECS_OK) return r;
    return good_resources->write_u32(ctx, (uint32_t)FIXTURE_BUILD);
}

static ecs_result good_spawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                             const uint32_t *entity_index, const void *data, uint32_t size)
{
    fixture_state *s = (fixture_state *)user;
    const unsigned char *bytes = (const unsigned char *)data;
    uint32_t j;
    (void)size; /* checked by the spawner: num_instances * 8 */
    for (j = 0; j < num_instances; ++j) {
        ecs_instance i = s->components->create(s->health, ctx->entity[entity_index[j]]);
        float hp;
        uint32_t by;
        if (ecs_instance_is_nil(i)) {
            while (j-- > 0) s->components->destroy_entity(s->health, ctx->entity[entity_index[j]]);
            return ecs_plugin_set_error(ctx->error, ECS_ERROR_OUT_OF_MEMORY, "fixture_health: out of memory");
        }
        memcpy(&hp, bytes + 8 * j, 4);
        memcpy(&by, bytes + 8 * j + 4, 4);
        ((float *)s->health->field[0])[i.i] = hp;
        ((uint32_t *)s->health->field[1])[i.i] = by;
        ((uint32_t *)s->health->field[2])[i.i] = (uint32_t)FIXTURE_BUILD;
    }
    return ECS_OK;
}

static void good_unspawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                         const uint32_t *entity_index, const void *data, uint32_t size)
{
    fixture_state *s = (fixture_state *)user;
    uint32_t j;
    (void)data;
    (void)size;
    for (j = 0; j < num_instances; ++j) s->components->destroy_entity(s->health, ctx->entity[entity_index[j]]);
}

static ecs_result good_init(ecs_plugin_get_api_fn get_engine_api, void **state, ecs_error *err)
{
    static const ecs_field_desc fields[] = {{"hp", 4, 4}, {"compiled_by", 4, 4}, {"spawned_by", 4, 4}};
    fixture_state *old = (fixture_state *)*state, *s = old;
    const ecs_components_api_v0 *components =
        (const ecs_components_api_v0 *)get_engine_api(ECS_API_COMPONENTS, 0);
    const ecs_registry_api_v0 *registry = (const ecs_registry_api_v0 *)get_engine_api(ECS_API_REGISTRY, 0);
    const fixture_probe_api_v0 *probe = (const fixture_probe_api_v0 *)get_engine_api(FIXTURE_PROBE_API, 0);
    const ecs_resources_api_v0 *resources = (const ecs_resources_api_v0 *)get_engine_api(ECS_API_RESOURCES, 0);
    ecs_manager *health;
    ecs_result r;

    if (!components || !registry)
        return ecs_plugin_set_error(err, ECS_ERROR_API_VERSION, "needs ECS_API_COMPONENTS and ECS_API_REGISTRY v0");
    if (old && (old->magic != FIXTURE_STATE_MAGIC || old->layout != FIXTURE_STATE_LAYOUT))
        return ecs_plugin_set_error(err, ECS_ERROR_INVALID_ARGUMENT, "state layout %u is not mine",
                                    (unsigned)old->layout);
    if (!s) {
        s = (fixture_state *)calloc(1, sizeof *s);
        if (!s) return ecs_plugin_set_error(err, ECS_ERROR_OUT_OF_MEMORY, "no memory for the state");
        s->magic = FIXTURE_STATE_MAGIC;
        s->layout = FIXTURE_STATE_LAYOUT;
    }
    /* Register everything; the registry rolls it all back if we fail. The
       state itself is changed only once nothing can fail any more. */
    health = components->define(components->registry, "fixture_health", fields, 3, ECS_LOOKUP_HASH, err);
    if (!health) goto fail;
#ifndef FIXTURE_DROP_API
    {
        fixture_good_api_v0 api;
        api.build = good_build;
        if (registry->publish(registry->registry, FIXTURE_GOOD_API, 0, &api, sizeof api, err) != ECS_OK) goto fail;
    }
#endif
    if (resources) {
        r = resources->register_compile(resources->registry, "fixture_health", 50, good_compile, s, err);
        if (r != ECS_OK) goto fail;
        r = resources->register_spawn(resources->registry, "fixture_health", good_spawn, good_unspawn,
                                      FIXTURE_HEALTH_RECORD_SIZE, s, err);
        if (r != ECS_OK) goto fail;
    }
#ifdef FIXTURE_FAIL_INIT
    {
        static const ecs_field_desc extra[] = {{"x", 4, 4}};
        if (!components->define(components->registry, "fixture_extra", extra, 1, ECS_LOOKUP_DENSE, err)) goto fail;
        good_probe(probe, FIXTURE_EVENT_INIT_FAILS, FIXTURE_BUILD);
        ecs_plugin_set_error(err, ECS_ERROR_INVALID_ARGUMENT, "fixture init fails on purpose (build %d)",
                             FIXTURE_BUILD);
        goto fail;
    }
#endif
    good_resources = resources;
    s->components = components;
    s->probe = probe;
    s->health = health;
    s->build = FIXTURE_BUILD;
    s->inits++;
    *state = s;
    good_probe(probe, FIXTURE_EVENT_INIT, FIXTURE_BUILD);
    return ECS_OK;
fail:
    if (!old) free(s);
    return err->code != ECS_OK ? err->code : ECS_ERROR_INVALID_ARGUMENT;
}

static void good_shutdown(void *state)
{
    fixture_state *s = (fixture_state *)state;
    good_probe(s->probe, FIXTURE_EVENT_SHUTDOWN, FIXTURE_BUILD);
    free(s);
}

static void good_tick(void *state, float dt)
{
    fixture_state *s = (fixture_state *)state;
    float *hp = (float *)s->health->field[0];
    uint32_t i;
    (void)dt;
    s->counter += FIXTURE_STEP;
    for (i = 0; i < s->health->count; ++i) hp[i] += (float)FIXTURE_STEP;
}

ECS_PLUGIN_EXPORT void *get_plugin_api(unsigned api, unsigned version)
{
    static ecs_plugin_api_v0 plugin;
    if (api != ECS_API_PLUGIN || version != 0) return NULL;
    plugin.name = "good";
    plugin.init = good_init;
    plugin.shutdown = good_shutdown;
    plugin.tick = good_tick;
    return &plugin;
}
