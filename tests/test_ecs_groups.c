/* tests/test_ecs_groups.c - groups (ecs_group_init): members stay co-sorted
   (the entities owning every member are instances 0..size-1 of each, in the
   same order; every other instance's entity lacks a member) through random
   creates, create_many, spawns, unspawns, destroys, destroy_entity, entity
   deaths, collect, gc and gc_all, checked in full against a reference model
   that also checks every instance's field bytes; ecs_group_init's refusals;
   and every allocation failing in turn changes nothing. The same with
   nested groups (issue 23): {a, b} inside {a, b, c}, made before or after
   it, both kept packed by every path; ecs_group_sort puts every region in
   entity order and keeps the groups (its allocation failing: nothing
   changed). */
#include "oom_alloc.h"
#define ECS_IMPLEMENTATION
#include "ecs.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "test_rng.h"

#define A_FIELDS(X)     \
    X(uint32_t, value)  \
    X(double, pad)
ECS_MANAGER_DEFINE(grp_a, A_FIELDS)
#define B_FIELDS(X)     \
    X(uint64_t, wide)   \
    X(uint32_t, value)
ECS_MANAGER_DEFINE(grp_b, B_FIELDS)

/* member 2 is a runtime manager: one 4-byte value and a 72-byte blob (wider
   than the swap's 64-byte buffer) */
static const ecs_field_desc c_fields[2] = {{"value", 4, 4}, {"blob", 72, 8}};

enum { NUM_MEMBERS = 3, MAX_INDEX = 3000, MODEL_SIZE = (MAX_INDEX + 1) << 8 };

/* The value member k stores for entity id (every field derives from it). */
static uint32_t value_of(uint32_t id, uint32_t k) { return id * 2654435761u + k * 977u + 1u; }

typedef struct world {
    ecs_entity_manager em;
    grp_a a;
    grp_b b;
    ecs_manager c;
    ecs_manager *mem[NUM_MEMBERS];
    ecs_group g;
    ecs_group inner; /* nested mode: {a, b}, holding the entities of g and more */
    int nested;
    unsigned char *has[NUM_MEMBERS]; /* model: has[k][index << 8 | generation] */
    uint32_t count[NUM_MEMBERS];
    ecs_entity live[MAX_INDEX];
    uint32_t num_live;
} world;

static uint32_t slot_of(uint32_t id) { return (id & ECS_INDEX_MASK) << 8 | ((id >> ECS_INDEX_BITS) & 0xFFu); }

/* Writes every field of member k's instance i for entity id. */
static void write_fields(world *w, uint32_t k, uint32_t i, uint32_t id)
{
    uint32_t v = value_of(id, k);
    if (k == 0) {
        w->a.value[i] = v;
        w->a.pad[i] = (double)v;
    } else if (k == 1) {
        w->b.value[i] = v;
        w->b.wide[i] = (uint64_t)v << 32 | v;
    } else {
        unsigned char *blob = (unsigned char *)ecs_manager_field(&w->c, 1, i);
        memcpy(ecs_manager_field(&w->c, 0, i), &v, 4);
        memset(blob, (int)(v & 0xFFu), 72);
        memcpy(blob + 68, &v, 4);
    }
}

static int fields_ok(const world *w, uint32_t k, uint32_t i, uint32_t id)
{
    uint32_t v = value_of(id, k), got;
    if (k == 0) return w->a.value[i] == v && w->a.pad[i] == (double)v;
    if (k == 1) return w->b.value[i] == v && w->b.wide[i] == ((uint64_t)v << 32 | v);
    {
        const unsigned char *blob = (const unsigned char *)ecs_manager_field(&w->c, 1, i);
        memcpy(&got, ecs_manager_field(&w->c, 0, i), 4);
        if (got != v || blob[0] != (v & 0xFFu) || blob[40] != (v & 0xFFu)) return 0;
        memcpy(&got, blob + 68, 4);
        return got == v;
    }
}

static void model_add(world *w, uint32_t k, uint32_t id)
{
    /* a dense member drops an older id's instance when a newer id of its index arrives */
    if (w->mem[k]->lookup == ECS_LOOKUP_DENSE) {
        uint32_t g, base = (id & ECS_INDEX_MASK) << 8;
        for (g = 0; g < 256u; ++g)
            if (w->has[k][base | g]) {
                w->has[k][base | g] = 0;
                --w->count[k];
            }
    }
    w->has[k][slot_of(id)] = 1;
    ++w->count[k];
}

static void model_remove(world *w, uint32_t k, uint32_t id)
{
    if (!w->has[k][slot_of(id)]) return;
    w->has[k][slot_of(id)] = 0;
    --w->count[k];
}

static int owns_first(const world *w, ecs_entity e, uint32_t n)
{
    uint32_t k;
    for (k = 0; k < n; ++k)
        if (ecs_instance_is_nil(ecs_manager_lookup(w->mem[k], e))) return 0;
    return 1;
}
static int owns_all(const world *w, ecs_entity e) { return owns_first(w, e, NUM_MEMBERS); }

/* nested mode: {a, b}'s prefix holds exactly the entities owning both, in
   the same order in a and b, and g's prefix is the start of it */
static uint32_t check_inner(const world *w)
{
    uint32_t k, i, bad = 0;
    if (!w->nested) return 0;
    bad += w->inner.size < w->g.size || w->inner.next != &w->g || w->mem[2]->group != &w->g;
    for (k = 0; k < 2; ++k) {
        const ecs_manager *m = w->mem[k];
        bad += m->group != &w->inner;
        for (i = 0; i < m->count; ++i) {
            int both = owns_first(w, m->entity[i], 2);
            if (i < w->inner.size) bad += m->entity[i].id != w->mem[0]->entity[i].id || !both;
            else bad += (uint32_t)both;
        }
    }
    return bad;
}

/* The full check: the model, the fields, the lookups and the group's order. */
static int check_all(const world *w)
{
    uint32_t k, i, bad = 0;
    for (k = 0; k < NUM_MEMBERS; ++k) {
        const ecs_manager *m = w->mem[k];
        bad += m->count != w->count[k] || m->num_instances != w->count[k] || (!w->nested && m->group != &w->g);
        for (i = 0; i < m->count; ++i) {
            ecs_entity e = m->entity[i];
            bad += !w->has[k][slot_of(e.id)] || ecs_manager_lookup(m, e).i != i || !fields_ok(w, k, i, e.id);
            bad += !ecs_instance_is_nil(ecs_manager_next(m, ecs_instance_make(i)));
            if (i < w->g.size) bad += m->entity[i].id != w->mem[0]->entity[i].id || !owns_all(w, e);
            else bad += (uint32_t)owns_all(w, e);
        }
    }
    return bad + check_inner(w) == 0;
}

/* ecs_group_sort: every region of every member (the inner group's prefix,
   the outer's part, the rest) in entity index order, the groups intact;
   with its one allocation failing, nothing changed. */
static int regions_sorted(const world *w)
{
    uint32_t k, i, bad = 0;
    for (k = 0; k < NUM_MEMBERS; ++k) {
        const ecs_manager *m = w->mem[k];
        for (i = 1; i < m->count; ++i) {
            int starts = i == w->g.size || (w->nested && k < 2 && i == w->inner.size); /* a region starts at i */
            bad += !starts && (m->entity[i - 1u].id & ECS_INDEX_MASK) > (m->entity[i].id & ECS_INDEX_MASK);
        }
    }
    return bad == 0;
}

/* Set while allocations fail on purpose: an out-of-memory result is then an
   expected outcome of an operation. */
static int oom_mode;
static int failed_by_oom(ecs_result r) { return oom_mode && r == ECS_ERROR_OUT_OF_MEMORY; }

static void op_sort(world *w)
{
    ecs_error err;
    ecs_result r = ecs_group_sort(w->nested && rnd_below(2) ? &w->inner : &w->g, &err);
    if (failed_by_oom(r)) return;
    CHECK_MSG(r == ECS_OK, "%s", err.message);
    CHECK(regions_sorted(w));
}

static ecs_entity random_live(world *w) { return w->live[rnd_below(w->num_live)]; }

static void remove_live(world *w, uint32_t j)
{
    w->live[j] = w->live[--w->num_live];
}

static void op_create(world *w, uint32_t k)
{
    ecs_entity e = random_live(w);
    int had = w->has[k][slot_of(e.id)];
    ecs_instance i = k == 0 ? grp_a_create(&w->a, e) : k == 1 ? grp_b_create(&w->b, e) : ecs_manager_create(&w->c, e);
    if (had) {
        CHECK(ecs_instance_is_nil(i) && w->mem[k]->error.code == ECS_ERROR_ALREADY_EXISTS);
        return;
    }
    if (ecs_instance_is_nil(i) && failed_by_oom(w->mem[k]->error.code)) return;
    CHECK(!ecs_instance_is_nil(i) && ecs_manager_lookup(w->mem[k], e).i == i.i);
    if (ecs_instance_is_nil(i)) return;
    if (k != 2) CHECK(k == 0 ? w->a.value[i.i] == 0 && w->a.pad[i.i] == 0.0 : w->b.value[i.i] == 0 && w->b.wide[i.i] == 0);
    write_fields(w, k, i.i, e.id);
    model_add(w, k, e.id);
}

/* A batch of distinct live entities; with `clash` one of them already owns
   member k (the batch is then refused whole). Returns its size. */
static uint32_t pick_batch(world *w, uint32_t k, ecs_entity *out, uint32_t want, int clash)
{
    uint32_t n = 0, tries, j;
    for (tries = 0; tries < want * 4u && n < want; ++tries) {
        ecs_entity e = random_live(w);
        int dup = w->has[k][slot_of(e.id)] != 0;
        for (j = 0; j < n && !dup; ++j) dup = out[j].id == e.id;
        if (!dup) out[n++] = e;
    }
    if (clash && n > 1) {
        for (tries = 0; tries < 50; ++tries) {
            ecs_entity e = random_live(w);
            if (w->has[k][slot_of(e.id)]) {
                out[rnd_below(n)] = e;
                return n;
            }
        }
        out[n - 1] = out[0]; /* or an entity listed twice */
    }
    return n;
}

static void op_create_many(world *w, uint32_t k)
{
    ecs_entity es[40];
    ecs_instance first;
    int clash = rnd_below(5) == 0;
    uint32_t n = pick_batch(w, k, es, 1u + rnd_below(40), clash), j;
    ecs_result r;
    if (k == 0) r = grp_a_create_many(&w->a, n, es, &first);
    else if (k == 1) r = grp_b_create_many(&w->b, n, es, &first);
    else r = ecs_manager_create_many(&w->c, n, es, NULL, &first);
    if (clash && n > 1) {
        CHECK(failed_by_oom(r) || (r == ECS_ERROR_ALREADY_EXISTS && w->mem[k]->error.code == ECS_ERROR_ALREADY_EXISTS));
        return;
    }
    if (failed_by_oom(r)) return;
    CHECK(r == ECS_OK && ecs_instance_is_nil(first));
    if (r != ECS_OK) return;
    for (j = 0; j < n; ++j) {
        ecs_instance i = ecs_manager_lookup(w->mem[k], es[j]);
        CHECK(!ecs_instance_is_nil(i));
        if (ecs_instance_is_nil(i)) continue;
        write_fields(w, k, i.i, es[j].id);
        model_add(w, k, es[j].id);
    }
}

/* ecs_manager_spawn (and sometimes ecs_manager_unspawn) into member 2 with a
   fake spawn context: records are the value and the blob, packed. */
static void op_spawn(world *w)
{
    ecs_entity es[16];
    uint32_t index[16], j, n;
    unsigned char data[16 * 76];
    ecs_error err;
    ecs_spawn_context ctx;
    int clash = rnd_below(5) == 0;
    ecs_result r;
    n = pick_batch(w, 2, es, 1u + rnd_below(16), clash);
    for (j = 0; j < n; ++j) index[j] = n - 1u - j; /* instance j belongs to es[n-1-j] */
    for (j = 0; j < n; ++j) {
        uint32_t id = es[index[j]].id, v = value_of(id, 2);
        memcpy(data + j * 76u, &v, 4);
        memset(data + j * 76u + 4u, (int)(v & 0xFFu), 72);
        memcpy(data + j * 76u + 72u, &v, 4);
    }
    memset(&ctx, 0, sizeof ctx);
    ctx.entities = &w->em;
    ctx.entity = es;
    ctx.num_entities = n;
    ctx.error = &err;
    CHECK(ecs_manager_record_size(&w->c) == 76u);
    r = ecs_manager_spawn(&w->c, &ctx, n, index, data, n * 76u);
    if (clash && n > 1) {
        CHECK(failed_by_oom(r) || r == ECS_ERROR_ALREADY_EXISTS);
        return;
    }
    if (failed_by_oom(r)) return;
    CHECK_MSG(r == ECS_OK, "%s", err.message);
    if (r != ECS_OK) return;
    if (rnd_below(4) == 0) {
        ecs_manager_unspawn(&w->c, &ctx, n, index, data, n * 76u);
        return;
    }
    for (j = 0; j < n; ++j) model_add(w, 2, es[j].id);
}

static void op_destroy(world *w, uint32_t k)
{
    ecs_manager *m = w->mem[k];
    uint32_t i, id;
    if (m->count == 0) return;
    i = rnd_below(m->count);
    id = m->entity[i].id;
    if (k == 0) CHECK(grp_a_destroy(&w->a, ecs_instance_make(i)) == 1);
    else if (k == 1) CHECK(grp_b_destroy(&w->b, ecs_instance_make(i)) == 1);
    else CHECK(ecs_manager_destroy(&w->c, ecs_instance_make(i)) == 1);
    model_remove(w, k, id);
}

static void op_destroy_entity(world *w, uint32_t k)
{
    ecs_entity e = random_live(w);
    uint32_t want = w->has[k][slot_of(e.id)], got;
    got = k == 0 ? grp_a_destroy_entity(&w->a, e) : k == 1 ? grp_b_destroy_entity(&w->b, e) : ecs_manager_destroy_entity(&w->c, e);
    CHECK(got == want);
    model_remove(w, k, e.id);
}

/* collect, gc or gc_all on member k: dead entities' instances go (gc: some). */
static void op_collect(world *w, uint32_t k, int how)
{
    ecs_manager *m = w->mem[k];
    uint32_t *dead = (uint32_t *)malloc((m->count + 1u) * sizeof *dead), n = 0, i, got;
    for (i = 0; i < m->count; ++i)
        if (!ecs_entity_alive(&w->em, m->entity[i])) dead[n++] = m->entity[i].id;
    if (how == 0) got = k == 0 ? grp_a_collect(&w->a, &w->em) : k == 1 ? grp_b_collect(&w->b, &w->em) : ecs_manager_collect(&w->c, &w->em);
    else if (how == 1) got = k == 0 ? grp_a_gc_all(&w->a, &w->em) : k == 1 ? grp_b_gc_all(&w->b, &w->em) : ecs_manager_gc_all(&w->c, &w->em);
    else got = k == 0 ? grp_a_gc(&w->a, &w->em) : k == 1 ? grp_b_gc(&w->b, &w->em) : ecs_manager_gc(&w->c, &w->em);
    if (how != 2) CHECK(got == n);
    for (i = 0; i < n; ++i)
        if (how != 2 || ecs_instance_is_nil(ecs_manager_lookup(m, make_id(dead[i])))) model_remove(w, k, dead[i]);
    free(dead);
}

static void world_init_nested(world *w, ecs_lookup_kind ka, ecs_lookup_kind kb, ecs_lookup_kind kc, int nested)
{
    uint32_t k;
    ecs_error err;
    memset(w, 0, sizeof *w);
    CHECK(grp_a_init(&w->a, ka) == ECS_OK);
    CHECK(grp_b_init(&w->b, kb) == ECS_OK);
    CHECK(ecs_manager_init(&w->c, c_fields, 2, kc) == ECS_OK);
    w->mem[0] = &w->a.core;
    w->mem[1] = &w->b.core;
    w->mem[2] = &w->c;
    for (k = 0; k < NUM_MEMBERS; ++k) w->has[k] = (unsigned char *)calloc(MODEL_SIZE, 1);
    w->nested = nested;
    if (nested == 1) CHECK_MSG(ecs_group_init(&w->inner, w->mem, 2, &err) == ECS_OK, "%s", err.message);
    CHECK_MSG(ecs_group_init(&w->g, w->mem, NUM_MEMBERS, &err) == ECS_OK, "%s", err.message);
    if (nested == 2) CHECK_MSG(ecs_group_init(&w->inner, w->mem, 2, &err) == ECS_OK, "%s", err.message);
}

static void world_free(world *w)
{
    uint32_t k;
    ecs_group_free(&w->g);
    if (w->nested) ecs_group_free(&w->inner);
    grp_a_free(&w->a);
    grp_b_free(&w->b);
    ecs_manager_free(&w->c);
    ecs_entity_manager_free(&w->em);
    for (k = 0; k < NUM_MEMBERS; ++k) free(w->has[k]);
}

/* Random operations against the model; a full check every 250. */
static void test_random(ecs_lookup_kind ka, ecs_lookup_kind kb, ecs_lookup_kind kc, uint64_t seed, uint32_t ops,
                        int nested)
{
    world *w = (world *)malloc(sizeof *w);
    uint32_t op, bad = 0, max_size = 0;
    world_init_nested(w, ka, kb, kc, nested);
    rng_state = seed;
    for (op = 0; op < ops; ++op) {
        uint32_t r = rnd_below(100), k = rnd_below(NUM_MEMBERS);
        if (w->num_live < 40 || (r < 12 && w->num_live < MAX_INDEX - 1100)) {
            ecs_entity e = ecs_entity_create(&w->em);
            if (!ecs_entity_is_nil(e) && (e.id & ECS_INDEX_MASK) <= MAX_INDEX) w->live[w->num_live++] = e;
        } else if (r < 20) {
            uint32_t j = rnd_below(w->num_live);
            CHECK(ecs_entity_destroy(&w->em, w->live[j]) == 1);
            remove_live(w, j);
        } else if (r < 50) op_create(w, k);
        else if (r < 56) op_create_many(w, k);
        else if (r < 60) op_spawn(w);
        else if (r < 72) op_destroy(w, k);
        else if (r < 84) op_destroy_entity(w, k);
        else if (r < 90) op_collect(w, k, 0);
        else if (r < 92) op_collect(w, k, 1);
        else if (op % 997u == 0u) op_sort(w);
        else op_collect(w, k, 2);
        if (w->g.size > max_size) max_size = w->g.size;
        if (op % 250u == 0u || op + 1u == ops) bad += !check_all(w);
    }
    CHECK_MSG(bad == 0, "%u failed checks (kinds %d %d %d, nested %d)", bad, (int)ka, (int)kb, (int)kc, nested);
    CHECK(max_size > 50u); /* the group was exercised */
    CHECK(!nested || w->inner.size > w->g.size);
    world_free(w);
    free(w);
}

/* ecs_group_init sorts what the members hold; refusals change nothing. */
static void test_init_and_refusals(void)
{
    ecs_entity_manager em;
    ecs_manager m[4], direct;
    ecs_manager *list[9];
    ecs_group g, g2;
    ecs_error err;
    ecs_entity es[100];
    uint32_t k, i;
    static const ecs_field_desc f[1] = {{"v", 4, 4}};
    ecs_entity_manager_init(&em);
    for (k = 0; k < 4; ++k) CHECK(ecs_manager_init(&m[k], f, 1, k % 2 ? ECS_LOOKUP_HASH : ECS_LOOKUP_DENSE) == ECS_OK);
    CHECK(ecs_manager_init(&direct, f, 1, ECS_LOOKUP_DIRECT) == ECS_OK);
    CHECK(ecs_entity_create_many(&em, 100, es) == ECS_OK);
    for (i = 0; i < 100; ++i) /* member 0: all; 1: even; 2: multiples of 3 */
        for (k = 0; k < 3; ++k)
            if (i % (k + 1u) == 0) {
                ecs_instance in = ecs_manager_create(&m[k], es[99 - i]);
                memcpy(ecs_manager_field(&m[k], 0, in.i), &es[99 - i].id, 4);
            }
    list[0] = &m[0];
    list[1] = &m[1];
    list[2] = &m[2];
    list[3] = &direct;
    CHECK(ecs_group_init(&g, list, 1, &err) == ECS_ERROR_INVALID_ARGUMENT && strstr(err.message, "members"));
    CHECK(ecs_group_init(&g, list, 9, &err) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_group_init(&g, list, 4, &err) == ECS_ERROR_INVALID_ARGUMENT && strstr(err.message, "direct"));
    list[3] = &m[1];
    CHECK(ecs_group_init(&g, list, 4, &err) == ECS_ERROR_INVALID_ARGUMENT && strstr(err.message, "same manager"));
    CHECK(!ecs_instance_is_nil(ecs_manager_create(&m[3], es[5])) && !ecs_instance_is_nil(ecs_manager_create(&m[3], es[5])));
    list[3] = &m[3];
    CHECK(ecs_group_init(&g, list, 4, &err) == ECS_ERROR_INVALID_ARGUMENT && strstr(err.message, "two instances"));
    for (k = 0; k < 4; ++k) CHECK(m[k].group == NULL);
    CHECK(m[0].entity[0].id == es[99].id && m[1].entity[0].id == es[99].id); /* nothing moved */
    CHECK(ecs_group_init(&g, list, 3, &err) == ECS_OK);
    CHECK(g.size == 17u); /* i = 0, 6, ..., 96 */
    for (i = 0; i < 100; ++i) {
        ecs_entity e = es[99 - i];
        uint32_t in0 = ecs_manager_lookup(&m[0], e).i, v;
        int all = i % 6u == 0u;
        CHECK(all ? in0 < g.size : in0 >= g.size);
        for (k = 0; k < 3; ++k) {
            ecs_instance in = ecs_manager_lookup(&m[k], e);
            if (ecs_instance_is_nil(in)) continue;
            memcpy(&v, ecs_manager_field(&m[k], 0, in.i), 4);
            CHECK(v == e.id && m[k].entity[in.i].id == e.id);
            if (all) CHECK(in.i == in0);
        }
    }
    list[0] = &m[2];
    list[1] = &m[3];
    CHECK(ecs_group_init(&g2, list, 2, &err) == ECS_ERROR_INVALID_ARGUMENT && strstr(err.message, "must nest"));
    CHECK(ecs_manager_move(&m[0], 0, 1) == 0); /* refused while grouped */
    CHECK(ecs_instance_is_nil(ecs_manager_create(&m[0], es[0])) && m[0].error.code == ECS_ERROR_ALREADY_EXISTS);
    ecs_group_free(&g);
    for (k = 0; k < 3; ++k) CHECK(m[k].group == NULL);
    CHECK(!ecs_instance_is_nil(ecs_manager_create(&m[0], es[0]))); /* a second instance again */
    /* freeing a member ends its group */
    list[0] = &m[1];
    list[1] = &m[2];
    CHECK(ecs_group_init(&g, list, 2, &err) == ECS_OK && g.size == 17u);
    ecs_manager_free(&m[1]);
    CHECK(m[2].group == NULL && g.num_members == 0);
    for (k = 0; k < 4; ++k) ecs_manager_free(&m[k]);
    ecs_manager_free(&direct);
    ecs_entity_manager_free(&em);
}

/* A snapshot of a world's members for the allocation-failure test. */
typedef struct snapshot {
    uint32_t count[NUM_MEMBERS], size;
    ecs_entity *entity[NUM_MEMBERS];
} snapshot;

static void snap_take(snapshot *s, const world *w)
{
    uint32_t k;
    for (k = 0; k < NUM_MEMBERS; ++k) {
        s->count[k] = w->mem[k]->count;
        s->entity[k] = (ecs_entity *)malloc((s->count[k] + 1u) * sizeof(ecs_entity));
        memcpy(s->entity[k], w->mem[k]->entity, s->count[k] * sizeof(ecs_entity));
    }
    s->size = w->g.size + (w->nested ? w->inner.size << 16 : 0u);
}

static int snap_same(snapshot *s, const world *w)
{
    uint32_t k, same = s->size == w->g.size + (w->nested ? w->inner.size << 16 : 0u);
    for (k = 0; k < NUM_MEMBERS; ++k) {
        same = same && s->count[k] == w->mem[k]->count &&
               memcmp(s->entity[k], w->mem[k]->entity, s->count[k] * sizeof(ecs_entity)) == 0;
        free(s->entity[k]);
    }
    return same && check_all(w);
}

/* Every allocation of a create, a create_many and a spawn failing in turn:
   each failure leaves the members, the order and the group as they were. */
static void test_oom(ecs_lookup_kind kind, int nested)
{
    world *w = (world *)malloc(sizeof *w);
    uint32_t step, failures = 0, j;
    world_init_nested(w, kind, ECS_LOOKUP_HASH, kind, nested);
    rng_state = 99;
    for (j = 0; j < 600; ++j) {
        ecs_entity e = ecs_entity_create(&w->em);
        w->live[w->num_live++] = e;
    }
    for (step = 0; step < 400; ++step) {
        unsigned long k;
        for (k = 1;; ++k) {
            snapshot s;
            uint32_t before[NUM_MEMBERS], m;
            for (m = 0; m < NUM_MEMBERS; ++m) before[m] = w->count[m];
            snap_take(&s, w);
            oom_calls = 0;
            oom_fail_at = k;
            oom_mode = 1;
            rng_state = 1000u + step; /* the same operation for every k */
            if (step % 50u == 49u) op_sort(w);
            else if (step % 3u == 0u) op_create(w, step % NUM_MEMBERS);
            else if (step % 3u == 1u) op_create_many(w, step % NUM_MEMBERS);
            else op_spawn(w);
            oom_fail_at = 0;
            oom_mode = 0;
            if (oom_calls < k) { /* nothing failed: done with this step */
                for (m = 0; m < NUM_MEMBERS; ++m) free(s.entity[m]);
                break;
            }
            ++failures;
            for (m = 0; m < NUM_MEMBERS; ++m) CHECK(before[m] == w->count[m]);
            CHECK_MSG(snap_same(&s, w), "step %u, allocation %lu", step, k);
        }
    }
    CHECK(failures > 20u && w->g.size > 20u);
    world_free(w);
    free(w);
}

/* A schema manager with runtime and entity fields (ecs_manager_spawn's
   schema path) in a group: the spawned instances join in order, their
   fields intact. */
#define AIM_SCHEMA(X)            \
    X(f32, range, "1")           \
    X(entity, target, "null")    \
    X(f32, heat, ECS_FIELD_RUNTIME)
ECS_MANAGER_DEFINE_SCHEMA(aim, AIM_SCHEMA)

static void test_schema_spawn(void)
{
    aim a;
    grp_a other;
    ecs_manager *list[2];
    ecs_group g;
    ecs_error err;
    ecs_entity es[4];
    ecs_spawn_context ctx;
    unsigned char data[3 * 8];
    uint32_t index[3] = {3, 2, 1}, j, ref;
    float range;
    CHECK(aim_init(&a, ECS_LOOKUP_HASH) == ECS_OK && grp_a_init(&other, ECS_LOOKUP_DENSE) == ECS_OK);
    for (j = 0; j < 4; ++j) es[j] = ecs_entity_make(10u + j, 0);
    for (j = 1; j < 4; j += 2) CHECK(!ecs_instance_is_nil(grp_a_create(&other, es[j]))); /* es[1], es[3] */
    CHECK(!ecs_instance_is_nil(grp_a_create(&other, es[0])));
    list[0] = &a.core;
    list[1] = &other.core;
    CHECK(ecs_group_init(&g, list, 2, &err) == ECS_OK && g.size == 0);
    for (j = 0; j < 3; ++j) { /* instance j: range j + 1, aims at resource entity j */
        range = (float)(j + 1u);
        ref = j;
        memcpy(data + j * 8u, &range, 4);
        memcpy(data + j * 8u + 4u, &ref, 4);
    }
    memset(&ctx, 0, sizeof ctx);
    ctx.entity = es;
    ctx.num_entities = 4;
    ctx.error = &err;
    CHECK(ecs_manager_record_size(&a.core) == 8u);
    CHECK_MSG(ecs_manager_spawn(&a.core, &ctx, 3, index, data, sizeof data) == ECS_OK, "%s", err.message);
    CHECK(g.size == 2u); /* es[3] and es[1] own both */
    for (j = 0; j < 3; ++j) {
        ecs_entity e = es[index[j]];
        ecs_instance i = aim_lookup(&a, e);
        CHECK(!ecs_instance_is_nil(i) && a.range[i.i] == (float)(j + 1u) && a.target[i.i].id == es[j].id && a.heat[i.i] == 0.0f);
        CHECK(index[j] == 2 ? i.i >= g.size : i.i < g.size && grp_a_lookup(&other, e).i == i.i);
    }
    ecs_manager_unspawn(&a.core, &ctx, 3, index, data, sizeof data);
    CHECK(g.size == 0 && aim_num_instances(&a) == 0 && grp_a_num_instances(&other) == 3);
    ecs_group_free(&g);
    aim_free(&a);
    grp_a_free(&other);
}

int main(void)
{
    test_init_and_refusals();
    test_schema_spawn();
    test_random(ECS_LOOKUP_DENSE, ECS_LOOKUP_HASH, ECS_LOOKUP_HASH, 11, 120000, 0);
    test_random(ECS_LOOKUP_HASH, ECS_LOOKUP_DENSE, ECS_LOOKUP_DENSE, 12, 120000, 0);
    test_random(ECS_LOOKUP_DENSE, ECS_LOOKUP_DENSE, ECS_LOOKUP_DENSE, 13, 60000, 0);
    test_random(ECS_LOOKUP_DENSE, ECS_LOOKUP_HASH, ECS_LOOKUP_DENSE, 14, 80000, 1);
    test_random(ECS_LOOKUP_HASH, ECS_LOOKUP_DENSE, ECS_LOOKUP_HASH, 15, 80000, 2);
    test_oom(ECS_LOOKUP_DENSE, 0);
    test_oom(ECS_LOOKUP_HASH, 0);
    test_oom(ECS_LOOKUP_DENSE, 1);
    test_oom(ECS_LOOKUP_HASH, 2);
    return test_report("test_ecs_groups");
}
