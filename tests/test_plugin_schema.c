/* tests/test_plugin_schema.c - plugins and components from data: a plugin
   (tests/plugins/typed.c) describes its "turret" component once, by a schema
   (ECS_API_COMPONENTS v1 define_schema, ECS_API_RESOURCES v1
   register_manager), and reads and writes engine-owned managers through
   typed views, a schema one and one defined the version 0 way. Checked
   here: a level with turrets aiming at ships by name compiles, spawns (two
   copies, each aiming at its own ships) and decompiles; the typed views the
   plugin and the engine hold stay right through growth; a reload keeps the
   data; a reload whose schema changed is refused and the old build goes on;
   the version 0 APIs still answer; an unload takes the type away;
   register_manager whose spawn half fails (the name taken in the spawner,
   no spawner, every allocation failing in turn) leaves the registry and the
   compiler as they were, and a corrected call then succeeds. Run from the
   repository root (tests/run.sh does). */
#define _FILE_OFFSET_BITS 64 /* readdir in a 32-bit build (tests/plugins/harness.h) */
#include "oom_alloc.h"
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#define ECS_PLUGIN_IMPLEMENTATION
#include "ecs_plugin.h"

#include "test.h"
#include "plugins/harness.h"
#include "plugins/typed.h"

static const char level[] =
    "{\"entities\": [\n"
    " {\"name\": \"frigate\", \"children\": [\n"
    "   {\"name\": \"bow gun\", \"components\": [{\"type\": \"turret\", \"ship\": \"frigate\", \"range\": 12}]},\n"
    "   {\"name\": \"stern gun\", \"components\": [{\"type\": \"turret\", \"ship\": \"frigate\"}]}]},\n"
    " {\"name\": \"cutter\", \"components\": [{\"type\": \"turret\", \"ship\": \"cutter\", \"muzzle\": [1, 2, 3]}]}\n"
    "]}\n";

typedef struct engine {
    ecs_entity_manager em;
    ecs_compiler compiler;
    ecs_spawner spawner;
    ecs_plugin_registry *reg;
    ecs_plugin plugin;
} engine;

static int engine_start(engine *g)
{
    ecs_error err;
    ecs_entity_manager_init(&g->em);
    ecs_compiler_init(&g->compiler);
    ecs_spawner_init(&g->spawner);
    g->reg = new_registry(&g->em);
    CHECK(g->reg != NULL);
    if (!g->reg) return 0;
    CHECK(ecs_plugin_publish_resources(g->reg, &g->compiler, &g->spawner, &err) == ECS_OK);
    CHECK(ecs_plugin_find_api(g->reg, ECS_API_RESOURCES, 1) != NULL && ecs_plugin_find_api(g->reg, ECS_API_RESOURCES, 0));
    CHECK(ecs_plugin_find_api(g->reg, ECS_API_COMPONENTS, 1) != NULL);
    CHECK_MSG(ecs_plugin_load(g->reg, build_path("typed.so"), &g->plugin, &err) == ECS_OK, "%s", err.message);
    return ecs_plugin_count(g->reg) == 1;
}

static void engine_stop(engine *g)
{
    ecs_plugin_registry_destroy(g->reg);
    ecs_spawner_free(&g->spawner);
    ecs_compiler_free(&g->compiler);
    ecs_entity_manager_free(&g->em);
}

/* Resource entities: 0 frigate, 1 bow gun, 2 stern gun, 3 cutter. */
static void check_copy(const turret_view *t, const ecs_entity *e, uint32_t shots)
{
    ecs_instance bow = ecs_manager_lookup(&t->core, e[1]), stern = ecs_manager_lookup(&t->core, e[2]);
    ecs_instance cut = ecs_manager_lookup(&t->core, e[3]);
    CHECK(!ecs_instance_is_nil(bow) && !ecs_instance_is_nil(stern) && !ecs_instance_is_nil(cut));
    if (ecs_instance_is_nil(bow) || ecs_instance_is_nil(stern) || ecs_instance_is_nil(cut)) return;
    CHECK(t->ship[bow.i].id == e[0].id && t->ship[stern.i].id == e[0].id && t->ship[cut.i].id == e[3].id);
    CHECK(t->range[bow.i] == 12.0f && t->range[stern.i] == 10.0f && t->muzzle[stern.i].y == 0.5f);
    CHECK(t->muzzle[cut.i].z == 3.0f && t->shots[bow.i] == shots && t->shots[cut.i] == shots);
}

static void test_level(engine *g, turret_view *t)
{
    ecs_compiler_output out, again;
    ecs_decompile_output text;
    ecs_entity ents[8];
    ecs_error err;
    int k;
    CHECK_MSG(ecs_compiler_compile(&g->compiler, level, sizeof level - 1, 0, &out, &err) == ECS_OK, "%s", err.message);
    CHECK_MSG(ecs_spawner_spawn_copies(&g->spawner, &g->em, out.blob, out.size, 2, ents, &err) == ECS_OK, "%s",
              err.message);
    check_copy(t, ents, 0);
    check_copy(t, ents + 4, 0);
    for (k = 0; k < 3; ++k) ecs_plugin_tick(g->reg, 0.1f); /* the plugin writes through its view */
    check_copy(t, ents, 3);
    check_copy(t, ents + 4, 3);
    /* decompiled with the plugin's type: references come back as names */
    CHECK(ecs_compiler_decompile(&g->compiler, out.blob, out.size, ECS_DECOMPILE_CHECK, &text, &err) == ECS_OK);
    CHECK(text.json && strstr(text.json, "{\"type\": \"turret\", \"ship\": \"#0\", \"range\": 12}") != NULL);
    CHECK(text.json && strstr(text.json, "{\"type\": \"turret\", \"ship\": \"#3\", \"muzzle\": [1, 2, 3]}") != NULL);
    ecs_decompile_output_free(&text);
    CHECK(ecs_compiler_compile(&g->compiler, level, sizeof level - 1, ECS_COMPILER_NAMES, &again, &err) == ECS_OK);
    CHECK(ecs_compiler_decompile(&g->compiler, again.blob, again.size, ECS_DECOMPILE_CHECK, &text, &err) == ECS_OK);
    CHECK(text.json && strstr(text.json, "\"ship\": \"frigate\", \"range\": 12}") != NULL);
    ecs_decompile_output_free(&text);
    ecs_compiler_output_free(&again);
    /* errors of the plugin's schema have their JSON path */
    {
        const char *bad = "{\"entities\": [{\"components\": [{\"type\": \"turret\", \"ship\": \"nobody\"}]}]}";
        CHECK(ecs_compiler_compile(&g->compiler, bad, strlen(bad), 0, &again, &err) == ECS_ERROR_COMPILE);
        CHECK(strstr(err.message, "entities[0].components[0].ship (line 1, column 58): no entity") != NULL);
        bad = "{\"entities\": [{\"name\": \"a\", \"components\": [{\"type\": \"turret\", \"ship\": \"a\", \"shots\": 1}]}]}";
        CHECK(ecs_compiler_compile(&g->compiler, bad, strlen(bad), 0, &again, &err) == ECS_ERROR_COMPILE);
        CHECK(strstr(err.message, "'shots' is runtime state") != NULL);
    }
    CHECK(ecs_spawner_unspawn(&g->spawner, &g->em, out.blob, 2, ents) == 8 && t->core.count == 0);
    ecs_compiler_output_free(&out);
}

/* The engine's and the plugin's typed pointers follow growth. */
static void test_views(engine *g, turret_view *t, flag_view *f)
{
    const ecs_components_api_v1 *c = (const ecs_components_api_v1 *)ecs_plugin_find_api(g->reg, ECS_API_COMPONENTS, 1);
    ecs_entity es[3000];
    ecs_instance first;
    uint32_t k;
    CHECK(c && ecs_entity_create_many(&g->em, 3000, es) == ECS_OK);
    if (!c) return;
    CHECK(c->create_many(&f->core, 3000, es, NULL, &first) == ECS_OK && first.i == 0);
    for (k = 0; k < 3000; ++k) f->bits[k] = k, f->weight[k] = 0.5f;
    CHECK(f->bits == (uint32_t *)f->core.field[0] && f->entity == f->core.entity);
    ecs_plugin_tick(g->reg, 0.1f); /* bits + 1, through the plugin's own view */
    CHECK(f->bits[2999] == 3000u && f->bits[0] == 1u && f->weight[17] == 0.5f);
    CHECK(c->destroy_entity(&f->core, es[0]) == 1 && f->core.count == 2999 && f->bits[0] == 3000u); /* swap-erase */
    CHECK(c->gc_all(&f->core, &g->em) == 0);
    /* one record size: the schema's (the runtime field has no bytes in a record) */
    CHECK(c->record_size(&t->core) == 4 + 4 + 12 && ecs_manager_schema(&t->core)->record_size == 4 + 4 + 12);
    ecs_entity_destroy_many(&g->em, 3000, es);
    CHECK(c->collect(&f->core, &g->em) == 2999 && f->core.count == 0);
}

static void test_reload(engine *g, turret_view *t)
{
    ecs_entity e = ecs_entity_create(&g->em);
    ecs_instance i = ecs_manager_create(&t->core, e);
    ecs_error err;
    CHECK(!ecs_instance_is_nil(i));
    ecs_plugin_tick(g->reg, 0.1f);
    CHECK(t->shots[i.i] == 1u);
    /* a rebuild with the same schema: same manager, same data */
    CHECK(build_plugin("tests/plugins/typed.c", "typed.so", "-DTYPED_REBUILT=1"));
    CHECK_MSG(ecs_plugin_reload(g->reg, g->plugin, &err) == ECS_OK, "%s", err.message);
    CHECK((turret_view *)ecs_plugin_find_manager(g->reg, "turret") == t);
    ecs_plugin_tick(g->reg, 0.1f);
    CHECK(t->shots[i.i] == 2u);
    /* a rebuild whose level format changed is refused; the old build goes on */
    CHECK(build_plugin("tests/plugins/typed.c", "typed.so", "-DTYPED_CHANGED_SCHEMA=1"));
    CHECK(ecs_plugin_reload(g->reg, g->plugin, &err) == ECS_ERROR_PLUGIN_INIT);
    CHECK_MSG(strstr(err.message, "schema or spawn order of 'turret' changed across a reload") != NULL, "%s",
              err.message);
    /* and the manager keeps its old schema: range's default is still 10 (a
       failed reload leaves the registry exactly as it was) */
    CHECK(ecs_manager_schema(&t->core) && strstr(ecs_manager_schema(&t->core)->fields[1].spec, "\"default\": 10"));
    ecs_plugin_tick(g->reg, 0.1f);
    CHECK((turret_view *)ecs_plugin_find_manager(g->reg, "turret") == t && t->shots[i.i] == 3u);
    CHECK(build_plugin("tests/plugins/typed.c", "typed.so", NULL)); /* back for the next test */
    ecs_manager_destroy_entity(&t->core, e);
    ecs_entity_destroy(&g->em, e);
}

static ecs_result spawn_nothing(void *user, const ecs_spawn_context *ctx, uint32_t n, const uint32_t *entity_index,
                                const void *data, uint32_t stride)
{
    (void)user, (void)ctx, (void)n, (void)entity_index, (void)data, (void)stride;
    return ECS_OK;
}
static void unspawn_nothing(void *user, const ecs_spawn_context *ctx, uint32_t n, const uint32_t *entity_index,
                            const void *data, uint32_t stride)
{
    (void)user, (void)ctx, (void)n, (void)entity_index, (void)data, (void)stride;
}

static const ecs_schema_field spin_schema[] = {{"speed", ECS_FIELD_F32, "1"}};

/* register_manager("spin") on a fresh registry over c and sp (sp may be
   NULL), allocation fail_at failing (0: none); 1 when it failed with want
   and left the registry, the compiler and the spawner as they were (then a
   corrected call must succeed), 2 when it succeeded, 0 otherwise. */
static int register_spin(ecs_compiler *c, ecs_spawner *sp, unsigned long fail_at, ecs_result want)
{
    ecs_error err;
    ecs_plugin_registry *reg = ecs_plugin_registry_create(NULL, &err);
    const ecs_resources_api_v1 *r1;
    ecs_manager *m;
    uint32_t recs, types = c->num_types, spawns = sp ? sp->num_entries : 0;
    ecs_result res;
    int outcome = 0;
    if (!reg) return 0;
    r1 = ecs_plugin_publish_resources(reg, c, sp, &err) == ECS_OK
             ? (const ecs_resources_api_v1 *)ecs_plugin_find_api(reg, ECS_API_RESOURCES, 1) : NULL;
    m = r1 ? ecs_plugin_define_manager_schema(reg, "spin", spin_schema, 1, ECS_LOOKUP_HASH, &err) : NULL;
    if (m) {
        recs = ecs_plugin_registration_count(reg);
        oom_calls = 0, oom_fail_at = fail_at;
        res = r1->register_manager(reg, "spin", 100, m, &err);
        oom_fail_at = 0;
        if (res == ECS_OK)
            outcome = 2;
        else
            outcome = res == want && ecs_plugin_registration_count(reg) == recs &&
                      c->num_types == types && ecs_compiler_type_name(c, ecs_resource_identifier("spin")) == NULL &&
                      (!sp || sp->num_entries == spawns);
        /* a corrected call (room, the spawner's "spin" gone) succeeds */
        if (outcome == 1 && sp) {
            if (want == ECS_ERROR_ALREADY_EXISTS) CHECK(ecs_spawner_unregister(sp, "spin") == ECS_OK);
            CHECK_MSG(r1->register_manager(reg, "spin", 100, m, &err) == ECS_OK, "retry: %s", err.message);
            CHECK(ecs_compiler_type_name(c, ecs_resource_identifier("spin")) != NULL);
        }
    }
    ecs_plugin_registry_destroy(reg); /* undoes what it registered */
    CHECK(c->num_types == types);
    return outcome;
}

static void test_register_manager_all_or_nothing(void)
{
    ecs_compiler c;
    ecs_spawner sp;
    ecs_error err;
    unsigned long n;
    int outcome = 0;
    ecs_compiler_init(&c);
    ecs_spawner_init(&sp);
    /* the engine spawns a "spin" of its own: refused, nothing left behind */
    CHECK(ecs_spawner_register(&sp, "spin", spawn_nothing, unspawn_nothing, 4, NULL, &err) == ECS_OK);
    CHECK(register_spin(&c, &sp, 0, ECS_ERROR_ALREADY_EXISTS) == 1);
    /* no spawner published */
    CHECK(register_spin(&c, NULL, 0, ECS_ERROR_NOT_FOUND) == 1);
    /* every allocation failing in turn: out of memory, nothing changed */
    for (n = 1; n < 200 && (outcome = register_spin(&c, &sp, n, ECS_ERROR_OUT_OF_MEMORY)) == 1; ++n) {}
    CHECK_MSG(outcome == 2 && n > 3, "allocation %lu failing: outcome %d", n, outcome);
    CHECK(c.num_types == 0 && sp.num_entries == 0);
    ecs_spawner_free(&sp);
    ecs_compiler_free(&c);
}

int main(void)
{
    engine g;
    turret_view *t;
    flag_view *f;
    env_init();
    test_register_manager_all_or_nothing();
    CHECK(build_plugin("tests/plugins/typed.c", "typed.so", NULL));
    if (!engine_start(&g)) {
        engine_stop(&g);
        return test_report("test_plugin_schema");
    }
    t = (turret_view *)ecs_plugin_find_manager(g.reg, "turret");
    f = (flag_view *)ecs_plugin_find_manager(g.reg, "flag");
    CHECK(t && f && ecs_manager_schema(&t->core) && ecs_manager_schema(&f->core) == NULL);
    if (t && f) {
        test_level(&g, t);
        test_views(&g, t, f);
        test_reload(&g, t);
    }
    /* an unload takes the type and the managers away */
    CHECK(ecs_plugin_unload(g.reg, g.plugin) == ECS_OK && ecs_plugin_find_manager(g.reg, "turret") == NULL);
    {
        ecs_compiler_output out;
        ecs_error err;
        CHECK(ecs_compiler_compile(&g.compiler, level, sizeof level - 1, 0, &out, &err) == ECS_ERROR_UNKNOWN_COMPONENT);
        CHECK(g.compiler.num_types == 0 && g.spawner.num_entries == 0);
    }
    engine_stop(&g);
    return test_report("test_plugin_schema");
}
