/* tests/plugins/grouped.c - a plugin that adds and removes instances of
   managers the engine keeps in nested groups (tests/test_plugin_groups.c),
   through the standard engine APIs only: ECS_API_COMPONENTS v1 (find,
   define, create, create_many, lookup, destroy, destroy_entity, collect,
   gc_all, gc), ECS_API_ENTITIES (create_many, destroy) and ECS_API_REGISTRY
   (it publishes pg_api_v0, which the engine calls). It writes and reads
   the data through typed structs (tests/plugins/grouped.h).
   -DPG_BUILD=n: what build() answers. -DPG_FAIL=1: init defines and
   publishes as usual, then fails; -DPG_FAIL=2: init defines pg_shield with
   another layout (refused: init fails). */
#include "grouped.h"

#include <stdlib.h>

#ifndef PG_BUILD
#define PG_BUILD 1
#endif

typedef struct pg_state {
    const ecs_components_api_v1 *c;
    const ecs_entities_api_v0 *ents;
    ecs_manager *m[PG_NUM];
    uint32_t inits;
} pg_state;

static pg_state *g_pg; /* this build's state: the API's calls have no context argument */

static int pg_build(void) { return PG_BUILD; }

static ecs_result pg_create(uint32_t c, uint32_t n, const ecs_entity *es)
{
    ecs_manager *m = g_pg && c < PG_NUM ? g_pg->m[c] : NULL;
    ecs_instance i, first;
    ecs_result r;
    uint32_t j;
    if (!m || n == 0) return ECS_ERROR_INVALID_ARGUMENT;
    if (n == 1) {
        i = g_pg->c->create(m, es[0]);
        if (ecs_instance_is_nil(i)) return m->error.code;
        pg_write(m, c, i.i);
        return ECS_OK;
    }
    if ((r = g_pg->c->create_many(m, n, es, NULL, &first)) != ECS_OK) return r;
    for (j = 0; j < n; ++j) { /* grouped: first is nil, the instances were placed by their groups */
        i = g_pg->c->lookup(m, es[j]);
        if (ecs_instance_is_nil(i)) return ECS_ERROR_NOT_FOUND;
        pg_write(m, c, i.i);
    }
    return ECS_OK;
}

static ecs_result pg_make(uint32_t n, uint32_t mask, ecs_entity *out)
{
    ecs_result r;
    uint32_t c;
    if (!g_pg) return ECS_ERROR_INVALID_ARGUMENT;
    if ((r = g_pg->ents->create_many(g_pg->ents->entities, n, out)) != ECS_OK) return r;
    for (c = 0; c < PG_NUM; ++c)
        if ((mask >> c & 1u) && (r = pg_create(c, n, out)) != ECS_OK) return r;
    return ECS_OK;
}

static uint32_t pg_destroy(uint32_t c, ecs_entity e, int how)
{
    ecs_manager *m = g_pg && c < PG_NUM ? g_pg->m[c] : NULL;
    ecs_instance i;
    if (!m) return 0;
    if (how == 1) return g_pg->c->destroy_entity(m, e);
    i = g_pg->c->lookup(m, e);
    return ecs_instance_is_nil(i) ? 0u : (uint32_t)g_pg->c->destroy(m, i);
}

static int pg_kill(ecs_entity e) { return g_pg ? g_pg->ents->destroy(g_pg->ents->entities, e) : 0; }

static uint32_t pg_collect(uint32_t c, int how)
{
    ecs_manager *m = g_pg && c < PG_NUM ? g_pg->m[c] : NULL;
    const ecs_entity_manager *em = g_pg ? g_pg->ents->entities : NULL;
    if (!m) return 0;
    if (how == 0) return g_pg->c->collect(m, em);
    return how == 1 ? g_pg->c->gc_all(m, em) : g_pg->c->gc(m, em);
}

static uint32_t pg_check(void)
{
    uint32_t c, i, k, bad = 0;
    const ecs_group *g;
    if (!g_pg) return 1;
    for (c = 0; c < PG_NUM; ++c) {
        const ecs_manager *m = g_pg->m[c];
        for (i = 0; i < m->count; ++i) bad += !pg_fields_ok(m, c, i);
        for (g = m->group; g; g = g->next) /* each group's prefix: one entity per position in every member */
            for (k = 0; k < g->num_members; ++k)
                for (i = 0; i < g->size; ++i) bad += g->member[k]->entity[i].id != m->entity[i].id;
    }
    return bad;
}

/* Finds the engine's managers, defines pg_shield (the same manager again at
   a reload) and publishes the API; a failing build fails after that. */
static ecs_result pg_init(ecs_plugin_get_api_fn get_engine_api, void **state, ecs_error *err)
{
#if defined(PG_FAIL) && PG_FAIL == 2
    static const ecs_field_desc shield[] = {{"value", 4, 4}, {"wide", 8, 8}, {"extra", 4, 4}};
#else
    static const ecs_field_desc shield[] = {{"value", 4, 4}, {"wide", 8, 8}};
#endif
    static pg_api_v0 api;
    const ecs_components_api_v1 *c = (const ecs_components_api_v1 *)get_engine_api(ECS_API_COMPONENTS, 1);
    const ecs_entities_api_v0 *ents = (const ecs_entities_api_v0 *)get_engine_api(ECS_API_ENTITIES, 0);
    const ecs_registry_api_v0 *reg = (const ecs_registry_api_v0 *)get_engine_api(ECS_API_REGISTRY, 0);
    pg_state *s = (pg_state *)*state;
    ecs_manager *m[PG_NUM];
    uint32_t k;
    if (!c || !ents || !reg) return ecs_plugin_set_error(err, ECS_ERROR_API_VERSION, "grouped needs components v1");
    m[PG_SHIELD] = c->define(c->registry, "pg_shield", shield, sizeof shield / sizeof shield[0], ECS_LOOKUP_DENSE, err);
    if (!m[PG_SHIELD]) return err->code;
    for (k = 0; k < PG_SHIELD; ++k)
        if (!(m[k] = c->find(c->registry, pg_name(k))))
            return ecs_plugin_set_error(err, ECS_ERROR_NOT_FOUND, "grouped: no component '%s'", pg_name(k));
    api.build = pg_build, api.create = pg_create, api.make = pg_make, api.destroy = pg_destroy;
    api.kill = pg_kill, api.collect = pg_collect, api.check = pg_check;
    if (reg->publish(reg->registry, PG_API, 0, &api, sizeof api, err) != ECS_OK) return err->code;
#ifdef PG_FAIL
    return ecs_plugin_set_error(err, ECS_ERROR_INVALID_ARGUMENT, "grouped build %d fails on purpose", PG_BUILD);
#endif
    if (!s && !(s = (pg_state *)calloc(1, sizeof *s)))
        return ecs_plugin_set_error(err, ECS_ERROR_OUT_OF_MEMORY, "grouped: out of memory");
    s->c = c, s->ents = ents;
    for (k = 0; k < PG_NUM; ++k) s->m[k] = m[k];
    ++s->inits;
    *state = s;
    g_pg = s;
    return ECS_OK;
}

static void pg_shutdown(void *state)
{
    g_pg = NULL;
    free(state);
}

ECS_PLUGIN_EXPORT void *get_plugin_api(unsigned api, unsigned version)
{
    static ecs_plugin_api_v0 plugin;
    if (api != ECS_API_PLUGIN || version != 0) return NULL;
    plugin.name = "grouped";
    plugin.init = pg_init;
    plugin.shutdown = pg_shutdown;
    return &plugin;
}
