/* tests/test_systems.c - declared systems (ECS_WORLD_SYSTEM_DEFINE) and their
   typed chunks against a naive reference, over random creates, destroys
   (now and lazily, then collect, gc or gc_all), adds and removes of six
   components of every lookup kind, with nested groups ({c, d} inside
   {c, d, e}), groups that hold a system's terms, groups a system's terms
   hold, and optional terms. After every batch of operations every system
   runs once (one thread: tests/test_threads.c runs systems on pools): each
   must visit every matching entity exactly once, with every view pointing
   at that entity's data (or NULL for an optional term it lacks), and the
   one writing system's writes must land where the reference says. Also: the bad input of ecs_world_add_system and
   ecs_world_group (errors naming the thing, nothing changed). */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "test_rng.h"

/* six components, each one uint32 (the entity's key and the component mixed)
   and a pad of a size of its own (so a wrong field base shows) */
#define F_A(X) X(uint32_t, v) X(uint16_t, pad)
#define F_B(X) X(uint32_t, v) X(uint64_t, pad)
#define F_C(X) X(uint32_t, v) X(uint8_t, pad)
#define F_D(X) X(uint32_t, v) X(double, pad)
#define F_E(X) X(uint32_t, v) X(uint32_t, pad)
#define F_F(X) X(uint32_t, v)
ECS_MANAGER_DEFINE(ca, F_A) /* direct */
ECS_MANAGER_DEFINE(cb, F_B) /* direct */
ECS_MANAGER_DEFINE(cc, F_C) /* dense, in both groups */
ECS_MANAGER_DEFINE(cd, F_D) /* hash, in both groups */
ECS_MANAGER_DEFINE(ce, F_E) /* dense, in the outer group */
ECS_MANAGER_DEFINE(cf, F_F) /* hash, no group */

enum { NC = 6, NS = 8, MAX_INDEX = 6000 };

static uint32_t value_of(uint32_t id, uint32_t c) { return id * 2654435761u ^ (c + 1u) * 0x9E3779B9u; }

/* the test's state: the world and the reference */
typedef struct model {
    ecs_world w;
    ca a;
    cb b;
    cc c;
    cd d;
    ce e;
    cf f;
    ecs_manager *m[NC];
    uint32_t has[MAX_INDEX + 1];   /* bit c: the entity of this index owns component c */
    uint32_t val[NC][MAX_INDEX + 1]; /* its value there */
    ecs_entity id[MAX_INDEX + 1];    /* the alive id of the index, or nil */
    ecs_entity live[MAX_INDEX];
    uint32_t num_live;
    /* per run of the systems */
    uint8_t visits[NS][MAX_INDEX + 1];
    uint32_t wrong[NS];
} model;

/* A visit by system s of entity e whose views of components (bits of cs)
   read values vs[]; bits of absent: optional components it lacks. */
static void visit(model *md, uint32_t s, ecs_entity e, uint32_t cs, const uint32_t *const *vs, uint32_t absent)
{
    uint32_t idx = ecs_entity_index(e), c, j = 0;
    if (idx > MAX_INDEX || md->id[idx].id != e.id) {
        ++md->wrong[s];
        return;
    }
    ++md->visits[s][idx];
    for (c = 0; c < NC; ++c) {
        if (!(cs >> c & 1u)) continue;
        if (absent >> c & 1u) md->wrong[s] += (md->has[idx] >> c & 1u) != 0 || vs[j] != NULL;
        else md->wrong[s] += !vs[j] || *vs[j] != md->val[c][idx];
        ++j;
    }
}

#define P(view) (const uint32_t *)(view.v ? &view.v[k] : NULL)
#define USER ((model *)frame->user)
/* 0: both direct (runs of slots) */
#define S0(X) X(ca, a, ECS_READ) X(cb, b, ECS_READ)
ECS_WORLD_SYSTEM_DEFINE(s0, S0, 0) { const uint32_t *vs[2] = {P(a), P(b)}; visit(USER, 0, entity, 3u, vs, 0); }
/* 1: exactly the inner group (its prefix); writes c */
#define S1(X) X(cc, c, ECS_WRITE) X(cd, d, ECS_READ)
ECS_WORLD_SYSTEM_DEFINE(s1, S1, 0)
{
    const uint32_t *vs[2] = {P(c), P(d)};
    visit(USER, 1, entity, 12u, vs, 0);
    c.v[k] += 7u; /* the systems after it read c: the reference follows at once */
    USER->val[2][ecs_entity_index(entity)] += 7u;
}
/* 2: held by the outer group with more members (prefix + remainder) */
#define S2(X) X(ce, e, ECS_READ) X(cc, c, ECS_READ)
ECS_WORLD_SYSTEM_DEFINE(s2, S2, 0) { const uint32_t *vs[2] = {P(c), P(e)}; visit(USER, 2, entity, 20u, vs, 0); }
/* 3: holds the inner group and more: its prefix, f and a looked up */
#define S3(X) X(cf, f, ECS_READ) X(cd, d, ECS_READ) X(ca, a, ECS_READ) X(cc, c, ECS_READ)
ECS_WORLD_SYSTEM_DEFINE(s3, S3, 0) { const uint32_t *vs[4] = {P(a), P(c), P(d), P(f)}; visit(USER, 3, entity, 45u, vs, 0); }
/* 4: lookup with optional terms, an optional one first */
#define S4(X) X(cd, d, ECS_OPTIONAL) X(ca, a, ECS_READ) X(cf, f, ECS_READ) X(cb, b, ECS_OPTIONAL)
ECS_WORLD_SYSTEM_DEFINE(s4, S4, 0)
{
    const uint32_t *vs[4] = {P(a), P(b), P(d), P(f)};
    visit(USER, 4, entity, 43u, vs, (b.v ? 0u : 2u) | (d.v ? 0u : 8u));
}
/* 5: one store, optional terms in and out of its group */
#define S5(X) X(ce, e, ECS_READ) X(cc, c, ECS_OPTIONAL) X(cf, f, ECS_OPTIONAL)
ECS_WORLD_SYSTEM_DEFINE(s5, S5, 0)
{
    const uint32_t *vs[3] = {P(c), P(e), P(f)};
    visit(USER, 5, entity, 52u, vs, (c.v ? 0u : 4u) | (f.v ? 0u : 32u));
}
/* 6: exactly the outer group, an optional term outside it */
#define S6(X) X(cd, d, ECS_READ) X(ce, e, ECS_READ) X(cc, c, ECS_READ) X(cb, b, ECS_OPTIONAL)
ECS_WORLD_SYSTEM_DEFINE(s6, S6, 0)
{
    const uint32_t *vs[4] = {P(b), P(c), P(d), P(e)};
    visit(USER, 6, entity, 30u, vs, b.v ? 0u : 2u);
}
/* 7: direct and grouped together (the lookup path), serial */
#define S7(X) X(cb, b, ECS_READ) X(ce, e, ECS_READ)
ECS_WORLD_SYSTEM_DEFINE(s7, S7, ECS_SERIAL) { const uint32_t *vs[2] = {P(b), P(e)}; visit(USER, 7, entity, 18u, vs, 0); }

static const ecs_system_desc *const systems[NS] = {&s0_system, &s1_system, &s2_system, &s3_system,
                                                   &s4_system, &s5_system, &s6_system, &s7_system};
static const uint32_t required[NS] = {3u, 12u, 20u, 45u, 33u, 16u, 28u, 18u};
static const char *const names[NC] = {"ca", "cb", "cc", "cd", "ce", "cf"};

static ecs_instance add_instance(model *md, uint32_t c, ecs_entity e)
{
    switch (c) {
    case 0: return ca_create(&md->a, e);
    case 1: return cb_create(&md->b, e);
    case 2: return cc_create(&md->c, e);
    case 3: return cd_create(&md->d, e);
    case 4: return ce_create(&md->e, e);
    default: return cf_create(&md->f, e);
    }
}

/* e gets component c with its value (create first: the group may move it) */
static void op_add(model *md, ecs_entity e, uint32_t c)
{
    uint32_t idx = ecs_entity_index(e), v = value_of(e.id, c) + (uint32_t)rnd_below(5);
    if (md->has[idx] >> c & 1u) return;
    CHECK(!ecs_instance_is_nil(add_instance(md, c, e)));
    *(uint32_t *)ecs_manager_field(md->m[c], 0, ecs_manager_lookup(md->m[c], e).i) = v;
    md->has[idx] |= 1u << c;
    md->val[c][idx] = v;
}

static void op_remove(model *md, ecs_entity e, uint32_t c)
{
    uint32_t idx = ecs_entity_index(e);
    CHECK(ecs_manager_destroy_entity(md->m[c], e) == (md->has[idx] >> c & 1u));
    md->has[idx] &= ~(1u << c);
}

static void op_create(model *md)
{
    ecs_entity e = ecs_entity_create(&md->w.entities);
    uint32_t c, idx = ecs_entity_index(e);
    if (ecs_entity_is_nil(e) || idx > MAX_INDEX || make_id(e.id).id != e.id) return;
    md->id[idx] = e;
    md->has[idx] = 0;
    md->live[md->num_live++] = e;
    for (c = 0; c < NC; ++c)
        if (rnd_below(3) != 0) op_add(md, e, c);
}

/* destroys live[j]: now (every store at once), or lazily (its instances stay
   until the next collection) */
static void op_destroy(model *md, uint32_t j, int now)
{
    ecs_entity e = md->live[j];
    uint32_t idx = ecs_entity_index(e);
    if (now) CHECK(ecs_world_destroy_now(&md->w, e) == 1);
    else CHECK(ecs_entity_destroy(&md->w.entities, e) == 1);
    md->id[idx].id = 0;
    md->has[idx] = 0;
    md->live[j] = md->live[--md->num_live];
}

/* dead entities' instances go: ecs_world_collect, or gc_all per store */
static void op_collect(model *md, int how)
{
    uint32_t c;
    if (how == 0) (void)ecs_world_collect(&md->w, NULL);
    else
        for (c = 0; c < NC; ++c) (void)ecs_manager_gc_all(md->m[c], &md->w.entities);
}

/* The systems once; every match visited once with the right data; s1's
   writes in the reference. Returns how many entities matched in all. */
static uint32_t run_and_check(model *md)
{
    ecs_frame frame = {0.0, 0, NULL};
    ecs_error err;
    uint32_t s, i, matched = 0;
    memset(md->visits, 0, sizeof md->visits);
    memset(md->wrong, 0, sizeof md->wrong);
    frame.user = md;
    CHECK_MSG(ecs_world_run_systems(&md->w, &frame, NULL, &err) == ECS_OK, "%s", err.message);
    for (s = 0; s < NS; ++s) {
        uint32_t missed = 0;
        for (i = 1; i <= MAX_INDEX; ++i) {
            int alive = md->id[i].id != 0;
            uint32_t want = alive && (md->has[i] & required[s]) == required[s];
            missed += md->visits[s][i] != want;
            matched += want;
        }
        CHECK_MSG(missed == 0 && md->wrong[s] == 0, "system %u: %u entities visited a wrong number of times, %u wrong views",
                  (unsigned)s, (unsigned)missed, (unsigned)md->wrong[s]);
    }
    return matched;
}

/* Every entity's values in every store are the reference's (the s1 writes
   included), and no store holds anything else alive. */
static int same_data(const model *md)
{
    uint32_t c, i, bad = 0;
    for (c = 0; c < NC; ++c) {
        const ecs_manager *m = md->m[c];
        for (i = 0; i < m->count; ++i) {
            ecs_entity e = m->entity[i];
            uint32_t idx = ecs_entity_index(e);
            if (e.id == 0 || !ecs_entity_alive(&md->w.entities, e)) continue;
            bad += !(md->has[idx] >> c & 1u) || *(const uint32_t *)ecs_manager_field(m, 0, i) != md->val[c][idx];
        }
    }
    return bad == 0;
}

static void model_init(model *md, int groups_first)
{
    static const char *const inner[2] = {"cc", "cd"}, *const outer[3] = {"cc", "cd", "ce"};
    ecs_error err;
    uint32_t c;
    memset(md, 0, sizeof *md);
    CHECK(ecs_world_init(&md->w) == ECS_OK);
    CHECK(ca_init(&md->a, ECS_LOOKUP_DIRECT) == ECS_OK && cb_init(&md->b, ECS_LOOKUP_DIRECT) == ECS_OK);
    CHECK(cc_init(&md->c, ECS_LOOKUP_DENSE) == ECS_OK && cd_init(&md->d, ECS_LOOKUP_HASH) == ECS_OK);
    CHECK(ce_init(&md->e, ECS_LOOKUP_DENSE) == ECS_OK && cf_init(&md->f, ECS_LOOKUP_HASH) == ECS_OK);
    md->m[0] = &md->a.core, md->m[1] = &md->b.core, md->m[2] = &md->c.core;
    md->m[3] = &md->d.core, md->m[4] = &md->e.core, md->m[5] = &md->f.core;
    for (c = 0; c < NC; ++c) CHECK(ecs_world_add_manager(&md->w, names[c], md->m[c], &err) == ECS_OK);
    for (c = 0; c < NS; ++c) CHECK_MSG(ecs_world_add_system(&md->w, systems[c], &err) == ECS_OK, "%s", err.message);
    if (!groups_first) return; /* the groups come later: the systems are planned again */
    CHECK(ecs_world_group(&md->w, inner, 2, &err) == ECS_OK && ecs_world_group(&md->w, outer, 3, &err) == ECS_OK);
}

static void model_free(model *md)
{
    ecs_world_free(&md->w);
    ca_free(&md->a), cb_free(&md->b), cc_free(&md->c), cd_free(&md->d), ce_free(&md->e), cf_free(&md->f);
}

static void test_random(uint64_t seed, uint32_t ops, int groups_first)
{
    static const char *const inner[2] = {"cc", "cd"}, *const outer[3] = {"cc", "cd", "ce"};
    static const ecs_world_query_path want[NS] = {ECS_WORLD_QUERY_DIRECT, ECS_WORLD_QUERY_GROUP, ECS_WORLD_QUERY_GROUP,
                                                  ECS_WORLD_QUERY_GROUP_PART, ECS_WORLD_QUERY_LOOKUP, ECS_WORLD_QUERY_LOOKUP,
                                                  ECS_WORLD_QUERY_GROUP, ECS_WORLD_QUERY_LOOKUP};
    model *md = (model *)malloc(sizeof *md);
    ecs_error err;
    uint32_t op, s, matched = 0, checks = 0;
    model_init(md, groups_first);
    rng_state = seed;
    for (op = 0; op < ops; ++op) {
        uint32_t r = rnd_below(100);
        if (md->num_live < 100 || (r < 10 && md->num_live < MAX_INDEX - 1200)) op_create(md);
        else if (r < 14) op_destroy(md, rnd_below(md->num_live), 1);
        else if (r < 17) op_destroy(md, rnd_below(md->num_live), 0);
        else if (r < 58) op_add(md, md->live[rnd_below(md->num_live)], rnd_below(NC));
        else if (r < 98) op_remove(md, md->live[rnd_below(md->num_live)], rnd_below(NC));
        else op_collect(md, rnd_below(2) == 0);
        if (!groups_first && op == ops / 3u)
            CHECK(ecs_world_group(&md->w, outer, 3, &err) == ECS_OK && ecs_world_group(&md->w, inner, 2, &err) == ECS_OK);
        if (op % 20000u == 19999u || op + 1u == ops) {
            op_collect(md, 0); /* a query sees what the stores hold: collect first */
            matched += run_and_check(md);
            CHECK(same_data(md));
            ++checks;
        }
    }
    for (s = 0; s < NS; ++s)
        CHECK_MSG(md->w.systems[s].query.path == want[s], "system %u path %u", (unsigned)s, (unsigned)md->w.systems[s].query.path);
    CHECK(matched > 1000u * checks && md->w.groups[0]->size > 100u);
    model_free(md);
    free(md);
}

/* The bad input: a clear error naming the thing, nothing changed. */
static void test_refusals(void)
{
    static const char *const bad_nest[2] = {"ce", "cf"}, *const outer[3] = {"cc", "cd", "ce"};
    static const ecs_system_term no_such[1] = {{"nope", ECS_READ, NULL}};
    static const ecs_system_term wrong_layout[1] = {{"cf", ECS_READ, cd_layout_matches}};
    static const ecs_system_term only_optional[1] = {{"ca", ECS_OPTIONAL, NULL}};
    static const ecs_system_term twice[2] = {{"ca", ECS_READ, NULL}, {"ca", ECS_WRITE, NULL}};
    ecs_system_desc d;
    model *md = (model *)malloc(sizeof *md);
    ecs_error err;
    uint32_t n;
    model_init(md, 1);
    n = md->w.num_systems;
    CHECK(ecs_world_add_system(&md->w, &s3_system, &err) == ECS_ERROR_ALREADY_EXISTS && strstr(err.message, "'s3'"));
    d = s3_system; /* another desc, the same name */
    CHECK(ecs_world_add_system(&md->w, &d, &err) == ECS_ERROR_ALREADY_EXISTS && strstr(err.message, "'s3'"));
    d.name = "lost", d.terms = no_such, d.num_terms = 1;
    CHECK(ecs_world_add_system(&md->w, &d, &err) == ECS_ERROR_NOT_FOUND && strstr(err.message, "'lost'") && strstr(err.message, "'nope'"));
    d.terms = wrong_layout;
    CHECK(ecs_world_add_system(&md->w, &d, &err) == ECS_ERROR_INVALID_ARGUMENT && strstr(err.message, "'cf'"));
    d.terms = only_optional;
    CHECK(ecs_world_add_system(&md->w, &d, &err) == ECS_ERROR_INVALID_ARGUMENT && strstr(err.message, "no required"));
    d.terms = twice, d.num_terms = 2;
    CHECK(ecs_world_add_system(&md->w, &d, &err) == ECS_ERROR_INVALID_ARGUMENT && strstr(err.message, "'ca'"));
    d.num_terms = 0;
    CHECK(ecs_world_add_system(&md->w, &d, &err) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_world_add_system(&md->w, NULL, &err) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(md->w.num_systems == n);
    /* groups that cannot nest: both named, nothing changed */
    CHECK(ecs_world_group(&md->w, bad_nest, 2, &err) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "{ce, cf}") && strstr(err.message, "{cc, cd, ce}") && md->w.num_groups == 2 && md->f.core.group == NULL);
    CHECK(ecs_world_group(&md->w, outer, 3, &err) == ECS_ERROR_ALREADY_EXISTS && md->w.num_groups == 2);
    /* remove a system; a removed store: the run names the system and the store */
    CHECK(ecs_world_remove_system(&md->w, "s0", &err) == ECS_OK && md->w.num_systems == n - 1u);
    CHECK(ecs_world_remove_system(&md->w, "s0", &err) == ECS_ERROR_NOT_FOUND && strstr(err.message, "'s0'"));
    CHECK(ecs_world_remove(&md->w, "cf", &err) == ECS_OK);
    {
        ecs_frame frame = {0.0, 0, NULL};
        frame.user = md;
        CHECK(ecs_world_run_systems(&md->w, &frame, NULL, &err) == ECS_ERROR_NOT_FOUND);
        CHECK(strstr(err.message, "'s3'") && strstr(err.message, "'cf'"));
    }
    model_free(md);
    free(md);
}

int main(void)
{
    test_refusals();
    test_random(21, 1000000u, 1);
    test_random(22, 300000u, 0);
    return test_report("test_systems");
}
