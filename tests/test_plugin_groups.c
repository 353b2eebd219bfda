/* tests/test_plugin_groups.c - nested groups stay packed through a plugin's
   calls and its hot reloads (issue 23). The engine's world holds five
   managers and the plugin's pg_shield (tests/plugins/grouped.c, defined
   through ECS_API_COMPONENTS, so it joins the world), in the groups
       {pos, vel} inside {pos, vel, dmg} inside {pos, vel, dmg, hp}
       {shield, armor}
   and the plugin, through the standard engine APIs only, creates
   (one at a time, create_many, new entities with several components),
   destroys (an instance, destroy_entity), kills entities and collects
   (collect, gc_all, gc), thousands of random operations the engine picks,
   some of them the engine's own creates. After every 100 operations, every
   hot reload (a new build), every reload that fails (init fails after
   defining and publishing again; a changed layout) and the final unload:
   each manager holds exactly the model's instances with the right fields,
   and each group's prefix is exactly the entities that own all its members
   (by the model), in the same order in every member; the plugin's typed
   structs read the same (its check call, which is shown to notice one
   wrong value). Run from the repository root (tests/run.sh does). */
#define _FILE_OFFSET_BITS 64 /* readdir in a 32-bit build (tests/plugins/harness.h) */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_PLUGIN_IMPLEMENTATION
#include "ecs_plugin.h"

#include "test.h"
#include "test_rng.h"
#include "plugins/harness.h"
#define PG_ENGINE
#include "plugins/grouped.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_INDEX = 1u << 13, MODEL_SIZE = (MAX_INDEX + 1u) << 8, MAX_LIVE = 2000 };

typedef struct engine {
    ecs_world w;
    pg_pos pos;
    pg_vel vel;
    pg_dmg dmg;
    pg_hp hp;
    pg_armor armor;
    ecs_manager *m[PG_NUM]; /* m[PG_SHIELD]: the plugin's, NULL once it unloaded */
    ecs_plugin_registry *reg;
    ecs_plugin plugin;
    const pg_api_v0 *api;
    unsigned char *has[PG_NUM]; /* the model: has[c][index << 8 | generation] */
    uint32_t count[PG_NUM];
    ecs_entity live[MAX_LIVE + 64];
    uint32_t num_live;
    uint32_t max_prefix; /* the largest group prefix seen (the groups were exercised) */
    uint32_t reused;     /* entities the engine made on a reused index (a dense member drops the old id's instance) */
} engine;

static uint32_t slot_of(uint32_t id) { return (id & ECS_INDEX_MASK) << 8 | ((id >> ECS_INDEX_BITS) & 0xFFu); }
static int in_model(uint32_t id) { return (id & ECS_INDEX_MASK) <= MAX_INDEX; }

static void model_add(engine *g, uint32_t c, uint32_t id)
{
    /* a dense manager drops an older id's instance when a newer id of its index arrives */
    if (g->m[c]->lookup == ECS_LOOKUP_DENSE) {
        uint32_t gen, base = (id & ECS_INDEX_MASK) << 8;
        for (gen = 0; gen < 256u; ++gen)
            if (g->has[c][base | gen]) {
                g->has[c][base | gen] = 0;
                --g->count[c];
            }
    }
    g->has[c][slot_of(id)] = 1;
    ++g->count[c];
}

static void model_remove(engine *g, uint32_t c, uint32_t id)
{
    if (!g->has[c][slot_of(id)]) return;
    g->has[c][slot_of(id)] = 0;
    --g->count[c];
}

static uint32_t comp_of(const engine *g, const ecs_manager *m)
{
    uint32_t c;
    for (c = 0; c < PG_NUM; ++c)
        if (g->m[c] == m) return c;
    return PG_NUM;
}

/* Whether the model says id owns every member of gr. */
static int owns_group(const engine *g, const ecs_group *gr, uint32_t id)
{
    uint32_t k, c;
    for (k = 0; k < gr->num_members; ++k)
        if ((c = comp_of(g, gr->member[k])) == PG_NUM || !g->has[c][slot_of(id)]) return 0;
    return 1;
}

/* Each world group: positions 0..size-1 of every member hold the same
   entity, one that owns every member; no later instance's entity owns them
   all; size is the number of such entities. */
static uint32_t check_groups(engine *g)
{
    uint32_t k, j, i, bad = 0;
    for (k = 0; k < g->w.num_groups; ++k) {
        const ecs_group *gr = g->w.groups[k];
        const ecs_manager *first = gr->member[0];
        uint32_t owners = 0;
        for (j = 0; j < gr->num_members; ++j) {
            const ecs_manager *m = gr->member[j];
            for (i = 0; i < m->count; ++i) {
                int all = owns_group(g, gr, m->entity[i].id);
                if (i < gr->size) bad += m->entity[i].id != first->entity[i].id || !all;
                else bad += (uint32_t)all;
            }
        }
        for (i = 0; i < first->count; ++i) owners += (uint32_t)owns_group(g, gr, first->entity[i].id);
        bad += owners != gr->size;
        if (gr->size > g->max_prefix) g->max_prefix = gr->size;
    }
    return bad;
}

/* The full check: want_groups world groups, every manager against the
   model (instances, lookups, fields), the groups, and the plugin's view. */
static int check_all(engine *g, uint32_t want_groups, const char *when)
{
    uint32_t c, i, bad = 0, groups;
    for (c = 0; c < PG_NUM; ++c) {
        const ecs_manager *m = g->m[c];
        if (!m) continue;
        bad += m->count != g->count[c] || m->num_instances != g->count[c];
        for (i = 0; i < m->count; ++i) {
            ecs_entity e = m->entity[i];
            bad += !in_model(e.id) || !g->has[c][slot_of(e.id)] || ecs_manager_lookup(m, e).i != i;
            bad += !pg_fields_ok(m, c, i) || !ecs_instance_is_nil(ecs_manager_next(m, ecs_instance_make(i)));
        }
    }
    groups = check_groups(g);
    CHECK_MSG(bad == 0 && groups == 0 && g->w.num_groups == want_groups,
              "%s: %u bad instances, %u bad group places, %u groups", when, bad, groups, g->w.num_groups);
    if (g->api && g->m[PG_SHIELD]) CHECK_MSG(g->api->check() == 0, "%s: the plugin's typed structs disagree", when);
    return bad == 0 && groups == 0;
}

static ecs_entity random_live(engine *g) { return g->live[rnd_below(g->num_live)]; }

static void add_live(engine *g, ecs_entity e)
{
    CHECK(in_model(e.id));
    if (in_model(e.id) && g->num_live < MAX_LIVE + 64) g->live[g->num_live++] = e;
}

/* A batch of distinct live entities lacking c; with clash, one of them owns
   c already or is listed twice (the batch is then refused whole). */
static uint32_t pick_batch(engine *g, uint32_t c, ecs_entity *out, uint32_t want, int clash)
{
    uint32_t n = 0, tries, j;
    for (tries = 0; tries < want * 4u && n < want; ++tries) {
        ecs_entity e = random_live(g);
        int dup = g->has[c][slot_of(e.id)] != 0;
        for (j = 0; j < n && !dup; ++j) dup = out[j].id == e.id;
        if (!dup) out[n++] = e;
    }
    if (clash && n > 1) {
        for (tries = 0; tries < 50; ++tries) {
            ecs_entity e = random_live(g);
            if (g->has[c][slot_of(e.id)]) {
                out[rnd_below(n)] = e;
                return n;
            }
        }
        out[n - 1] = out[0];
    }
    return n;
}

static void op_create(engine *g, uint32_t c, int by_engine)
{
    ecs_entity e = random_live(g);
    int had = g->has[c][slot_of(e.id)];
    ecs_result r;
    if (by_engine) { /* the engine's own create, between the plugin's calls */
        ecs_instance i = ecs_manager_create(g->m[c], e);
        r = ecs_instance_is_nil(i) ? g->m[c]->error.code : ECS_OK;
        if (r == ECS_OK) pg_write(g->m[c], c, i.i);
    } else {
        r = g->api->create(c, 1, &e);
    }
    CHECK_MSG(had ? r == ECS_ERROR_ALREADY_EXISTS : r == ECS_OK, "create %s: %s", pg_name(c), ecs_result_name(r));
    if (!had && r == ECS_OK) model_add(g, c, e.id);
}

static void op_create_many(engine *g, uint32_t c)
{
    ecs_entity es[24];
    int clash = rnd_below(5) == 0;
    uint32_t n = pick_batch(g, c, es, 2u + rnd_below(22), clash), j;
    ecs_result r;
    if (n == 0) return; /* every entity tried owns c */
    r = g->api->create(c, n, es);
    if (clash && n > 1) {
        CHECK(r == ECS_ERROR_ALREADY_EXISTS);
        return;
    }
    CHECK_MSG(r == ECS_OK, "create_many %s: %s (%s)", pg_name(c), ecs_result_name(r), g->m[c]->error.message);
    if (r == ECS_OK)
        for (j = 0; j < n; ++j) model_add(g, c, es[j].id);
}

static void op_make(engine *g)
{
    ecs_entity es[8];
    uint32_t n = 1u + rnd_below(8), mask = 1u + rnd_below((1u << PG_NUM) - 1u), c, j;
    ecs_result r = g->api->make(n, mask, es);
    CHECK_MSG(r == ECS_OK, "make: %s", ecs_result_name(r));
    if (r != ECS_OK) return;
    for (j = 0; j < n; ++j) {
        add_live(g, es[j]);
        for (c = 0; c < PG_NUM; ++c)
            if (mask >> c & 1u) model_add(g, c, es[j].id);
    }
}

static void op_destroy(engine *g, uint32_t c)
{
    ecs_manager *m = g->m[c];
    ecs_entity e;
    if (m->count == 0) return;
    e = m->entity[rnd_below(m->count)]; /* alive or dead (not collected yet) */
    CHECK(g->api->destroy(c, e, 0) == 1);
    model_remove(g, c, e.id);
}

static void op_destroy_entity(engine *g, uint32_t c)
{
    ecs_entity e = random_live(g);
    CHECK(g->api->destroy(c, e, 1) == g->has[c][slot_of(e.id)]);
    model_remove(g, c, e.id);
}

static void op_kill(engine *g)
{
    uint32_t j = rnd_below(g->num_live);
    CHECK(g->api->kill(g->live[j]) == 1);
    g->live[j] = g->live[--g->num_live];
}

/* collect (how 0), gc_all (1), gc (2: some) of c: dead entities' instances go */
static void op_collect(engine *g, uint32_t c, int how)
{
    ecs_manager *m = g->m[c];
    uint32_t *dead = (uint32_t *)malloc((m->count + 1u) * sizeof *dead), n = 0, i, got;
    if (!dead) return;
    for (i = 0; i < m->count; ++i)
        if (!ecs_entity_alive(&g->w.entities, m->entity[i])) dead[n++] = m->entity[i].id;
    got = g->api->collect(c, how);
    if (how != 2) CHECK_MSG(got == n, "%s of %s: %u, %u dead", how ? "gc_all" : "collect", pg_name(c), got, n);
    for (i = 0; i < n; ++i) {
        if (how != 2 || ecs_instance_is_nil(ecs_manager_lookup(m, make_id(dead[i])))) model_remove(g, c, dead[i]);
    }
    free(dead);
}

/* ops random operations, the plugin's (and a few of the engine's); a full
   check every 100 */
static void run_ops(engine *g, uint32_t ops, uint32_t want_groups, const char *phase)
{
    uint32_t op;
    for (op = 0; op < ops; ++op) {
        uint32_t r = rnd_below(100), c = rnd_below(PG_NUM);
        if (g->num_live < 50 || (r < 12 && g->num_live < MAX_LIVE)) {
            ecs_entity e = ecs_entity_create(&g->w.entities);
            if (in_model(e.id)) g->live[g->num_live++] = e;
            g->reused += ecs_entity_generation(e) != 0;
        } else if (r < 22) op_kill(g);
        else if (r < 40) op_create(g, c, 0);
        else if (r < 45) op_create(g, c, 1);
        else if (r < 52) op_create_many(g, c);
        else if (r < 55 && g->num_live < MAX_LIVE) op_make(g);
        else if (r < 70) op_destroy(g, c);
        else if (r < 84) op_destroy_entity(g, c);
        else if (r < 90) op_collect(g, c, 0);
        else if (r < 92) op_collect(g, c, 1);
        else op_collect(g, c, 2);
        if (op % 100u == 99u) check_all(g, want_groups, phase);
    }
    check_all(g, want_groups, phase);
}

static int engine_start(engine *g)
{
    static const char *const nest[4] = {"pg_pos", "pg_vel", "pg_dmg", "pg_hp"};
    static const char *const pair[2] = {"pg_shield", "pg_armor"};
    ecs_plugin_registry_desc desc;
    ecs_error err;
    uint32_t c;
    memset(g, 0, sizeof *g);
    CHECK(ecs_world_init(&g->w) == ECS_OK);
    CHECK(pg_pos_init(&g->pos, ECS_LOOKUP_DENSE) == ECS_OK && pg_vel_init(&g->vel, ECS_LOOKUP_HASH) == ECS_OK);
    CHECK(pg_dmg_init(&g->dmg, ECS_LOOKUP_DENSE) == ECS_OK && pg_hp_init(&g->hp, ECS_LOOKUP_HASH) == ECS_OK);
    CHECK(pg_armor_init(&g->armor, ECS_LOOKUP_HASH) == ECS_OK);
    g->m[PG_POS] = &g->pos.core, g->m[PG_VEL] = &g->vel.core, g->m[PG_DMG] = &g->dmg.core;
    g->m[PG_HP] = &g->hp.core, g->m[PG_ARMOR] = &g->armor.core;
    for (c = 0; c < PG_NUM; ++c) g->has[c] = (unsigned char *)calloc(MODEL_SIZE, 1);
    for (c = 0; c < PG_SHIELD; ++c) CHECK(ecs_world_add_manager(&g->w, pg_name(c), g->m[c], &err) == ECS_OK);
    /* the outermost first, then the innermost, then the middle one */
    CHECK_MSG(ecs_world_group(&g->w, nest, 4, &err) == ECS_OK, "%s", err.message);
    CHECK_MSG(ecs_world_group(&g->w, nest, 2, &err) == ECS_OK, "%s", err.message);
    CHECK_MSG(ecs_world_group(&g->w, nest, 3, &err) == ECS_OK, "%s", err.message);
    memset(&desc, 0, sizeof desc);
    desc.world = &g->w;
    desc.copy_dir = g_copies;
    g->reg = ecs_plugin_registry_create(&desc, &err);
    CHECK_MSG(g->reg != NULL, "%s", err.message);
    if (!g->reg) return 0;
    CHECK_MSG(ecs_plugin_load(g->reg, build_path("grouped.so"), &g->plugin, &err) == ECS_OK, "%s", err.message);
    g->m[PG_SHIELD] = ecs_world_manager(&g->w, "pg_shield"); /* the plugin defined it: in the world */
    g->api = (const pg_api_v0 *)ecs_plugin_find_api(g->reg, PG_API, 0);
    CHECK(g->m[PG_SHIELD] != NULL && g->api != NULL && g->api->build() == 1);
    CHECK_MSG(ecs_world_group(&g->w, pair, 2, &err) == ECS_OK, "%s", err.message);
    return g->m[PG_SHIELD] && g->api && g->w.num_groups == 4;
}

static void engine_stop(engine *g)
{
    uint32_t c;
    ecs_plugin_registry_destroy(g->reg);
    ecs_world_free(&g->w);
    pg_pos_free(&g->pos);
    pg_vel_free(&g->vel);
    pg_dmg_free(&g->dmg);
    pg_hp_free(&g->hp);
    pg_armor_free(&g->armor);
    for (c = 0; c < PG_NUM; ++c) free(g->has[c]);
}

/* The plugin's check reads the data: one wrong value shows, then it is right again. */
static void test_check_notices(engine *g)
{
    uint32_t i = g->pos.core.count / 2u, saved;
    CHECK(g->pos.core.count > 0);
    if (g->pos.core.count == 0) return;
    saved = g->pos.value[i];
    g->pos.value[i] = saved + 1u;
    CHECK(g->api->check() > 0);
    g->pos.value[i] = saved;
    CHECK(g->api->check() == 0);
}

/* A reload that fails: the old build goes on, the world, its groups and
   the data as they were. */
static void failed_reload(engine *g, const char *defines, const char *why)
{
    ecs_error err;
    ecs_manager *shield = g->m[PG_SHIELD];
    const ecs_group *pair = shield->group;
    CHECK(build_plugin("tests/plugins/grouped.c", "grouped.so", defines));
    CHECK(ecs_plugin_reload(g->reg, g->plugin, &err) == ECS_ERROR_PLUGIN_INIT);
    CHECK_MSG(strstr(err.message, why) != NULL, "%s", err.message);
    CHECK(ecs_world_manager(&g->w, "pg_shield") == shield && shield->group == pair && pair != NULL);
    CHECK(g->api == ecs_plugin_find_api(g->reg, PG_API, 0) && g->api->build() == 2);
    check_all(g, 4, why);
}

int main(void)
{
    engine *g = (engine *)malloc(sizeof *g);
    ecs_error err;
    env_init();
    rng_state = 0x9E3779B97F4A7C15ull;
    if (!g || !build_plugin("tests/plugins/grouped.c", "grouped.so", "-DPG_BUILD=1") || !engine_start(g)) {
        CHECK(0);
        return test_report("test_plugin_groups");
    }
    run_ops(g, 6000, 4, "build 1");
    test_check_notices(g);
    /* a hot reload midway: the new build gets the same managers, groups and data */
    CHECK(build_plugin("tests/plugins/grouped.c", "grouped.so", "-DPG_BUILD=2"));
    CHECK_MSG(ecs_plugin_reload(g->reg, g->plugin, &err) == ECS_OK, "%s", err.message);
    CHECK(g->api == ecs_plugin_find_api(g->reg, PG_API, 0) && g->api->build() == 2);
    CHECK(ecs_world_manager(&g->w, "pg_shield") == g->m[PG_SHIELD]);
    check_all(g, 4, "after the reload");
    run_ops(g, 6000, 4, "build 2");
    failed_reload(g, "-DPG_BUILD=3 -DPG_FAIL=1", "fails on purpose");
    failed_reload(g, "-DPG_BUILD=4 -DPG_FAIL=2", "changed its layout");
    run_ops(g, 6000, 4, "build 2 after the failed reloads");
    CHECK_MSG(g->max_prefix > 50u, "the largest prefix was %u", g->max_prefix);
    CHECK_MSG(g->reused > 200u, "%u entities on reused indices", g->reused);
    printf("groups of %u, %u, %u and %u entities (largest prefix seen %u); %u entities alive, %u made on reused "
           "indices\n",
           g->w.groups[0]->size, g->w.groups[1]->size, g->w.groups[2]->size, g->w.groups[3]->size, g->max_prefix,
           g->num_live, g->reused);
    /* the unload takes pg_shield out of the world and ends its group; the nest stays packed */
    CHECK(ecs_plugin_unload(g->reg, g->plugin) == ECS_OK);
    CHECK(ecs_world_find(&g->w, "pg_shield") == ECS_WORLD_NO_COMPONENT && g->armor.core.group == NULL);
    g->m[PG_SHIELD] = NULL;
    g->api = NULL;
    check_all(g, 3, "after the unload");
    engine_stop(g);
    free(g);
    return test_report("test_plugin_groups");
}
