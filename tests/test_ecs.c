/* tests/test_ecs.c - entity manager and component managers of ecs.h. */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "test_rng.h"

#ifndef TEST_COMPONENT_OPS /* random operations per lookup kind on the reference model (tests/soak.sh: 10^6) */
#define TEST_COMPONENT_OPS 200000
#endif

/* ---- ids, nil, forged ids ------------------------------------------------ */
static void test_layout_and_nil(void)
{
    ecs_entity_manager em;
    ecs_entity nil = make_id(0), a, b;
    uint32_t k;
    ecs_entity_manager_init(&em);
    CHECK(!ecs_entity_alive(&em, nil)); /* empty manager: no read at all */
    CHECK(!ecs_entity_alive(&em, make_id(12345)));
    a = ecs_entity_create(&em);
    b = ecs_entity_create(&em);
    CHECK(a.id == 1u); /* index 1, generation 0: index 0 is never handed out */
    CHECK(ecs_entity_index(a) == 1u && ecs_entity_generation(a) == 0u);
    CHECK(ecs_entity_index(b) == 2u);
    CHECK((a.id >> 30) == 0u);
    CHECK(ecs_entity_is_nil(nil) && !ecs_entity_is_nil(a));
    CHECK(!ecs_entity_alive(&em, nil));
    /* index 0 with any generation, and ids never handed out, are never alive */
    for (k = 0; k <= ECS_ENTITY_GENERATION_MASK; ++k) CHECK(!ecs_entity_alive(&em, ecs_entity_make(0, k)));
    CHECK(!ecs_entity_alive(&em, ecs_entity_make(3, 0)));
    CHECK(!ecs_entity_alive(&em, ecs_entity_make(ECS_INDEX_MASK, 0)));
    CHECK(!ecs_entity_alive(&em, make_id(0xFFFFFFFFu)));
    /* the two top bits are the user's: ignored */
    CHECK(ecs_entity_alive(&em, make_id(a.id | 0xC0000000u)));
    CHECK(ecs_entity_index(make_id(a.id | 0xC0000000u)) == 1u);
    /* forged ids: random values, never a sanitizer report, alive only if real */
    rng_state = 42;
    for (k = 0; k < 100000; ++k) {
        ecs_entity f = make_id(rnd());
        int real = ((f.id & 0x3FFFFFFFu) == a.id) || ((f.id & 0x3FFFFFFFu) == b.id);
        CHECK(ecs_entity_alive(&em, f) == real);
    }
    CHECK(ecs_entity_count(&em) == 2u);
    ecs_entity_manager_free(&em);
    CHECK(!ecs_entity_alive(&em, a));
}

static void test_double_destroy(void)
{
    ecs_entity_manager em;
    ecs_entity a, b;
    ecs_entity_manager_init(&em);
    a = ecs_entity_create(&em);
    b = ecs_entity_create(&em);
    CHECK(ecs_entity_destroy(&em, a) == 1);
    CHECK(!ecs_entity_alive(&em, a));
    CHECK(em.num_free == 1u);
    CHECK(ecs_entity_destroy(&em, a) == 0); /* dead: no-op */
    CHECK(ecs_entity_destroy(&em, make_id(0)) == 0);
    CHECK(ecs_entity_destroy(&em, make_id(999999)) == 0);
    CHECK(em.num_free == 1u); /* never queued twice */
    CHECK(ecs_entity_destroy_many(&em, 1, &a) == 0u);
    CHECK(em.num_free == 1u);
    CHECK(ecs_entity_alive(&em, b));
    CHECK(ecs_entity_count(&em) == 1u);
    ecs_entity_manager_free(&em);
}

/* ---- the free queue ---------------------------------------------------------- */
static void test_fifo_threshold(void)
{
    ecs_entity_manager em;
    ecs_entity es[2000], e;
    uint32_t k;
    ecs_entity_manager_init(&em);
    for (k = 0; k < 2000; ++k) es[k] = ecs_entity_create(&em);
    for (k = 0; k < ECS_MINIMUM_FREE_INDICES; ++k) ecs_entity_destroy(&em, es[k]);
    CHECK(em.num_free == ECS_MINIMUM_FREE_INDICES);
    e = ecs_entity_create(&em); /* queue not above the minimum: a fresh index */
    CHECK(ecs_entity_index(e) == 2001u);
    ecs_entity_destroy(&em, es[ECS_MINIMUM_FREE_INDICES]);
    CHECK(em.num_free == ECS_MINIMUM_FREE_INDICES + 1u);
    e = ecs_entity_create(&em); /* now the front: the first index destroyed */
    CHECK(ecs_entity_index(e) == ecs_entity_index(es[0]));
    CHECK(ecs_entity_generation(e) == 1u);
    CHECK(!ecs_entity_alive(&em, es[0]));
    CHECK(ecs_entity_alive(&em, e));
    e = ecs_entity_create(&em); /* back at the minimum: fresh again */
    CHECK(ecs_entity_index(e) == 2002u);
    ecs_entity_manager_free(&em);
}

/* Worst-case churn: create one, destroy it, forever. Index 1 runs a lap of
   MINIMUM+1 cycles through the queue. Its first id (1) tests alive again at
   index 1's 2^GENERATION_BITS-th destroy, while the index still waits in the
   queue, and create hands it out again one lap later: the seed's arithmetic.
   No other captured id is alive before that. */
static void test_exact_wrap_lap(void)
{
    ecs_entity_manager em;
    const uint32_t lap = ECS_MINIMUM_FREE_INDICES + 1u;
    const uint32_t laps = 1u << ECS_GENERATION_BITS;
    const uint32_t expected_alive = 1u + (laps - 1u) * lap;
    const uint32_t expected_reissue = 1u + laps * lap;
    uint8_t *seen = (uint8_t *)calloc((size_t)(lap + 1u) << ECS_GENERATION_BITS, 1);
    ecs_entity *history = (ecs_entity *)malloc((size_t)expected_reissue * sizeof *history);
    uint32_t cycle, first_repeat = 0, first_alive = 0, stale_alive = 0;
    ecs_entity_manager_init(&em);
    rng_state = 7;
    for (cycle = 1; cycle <= expected_reissue + 10u && !first_repeat; ++cycle) {
        ecs_entity e = ecs_entity_create(&em);
        uint32_t key = (ecs_entity_index(e) << ECS_GENERATION_BITS) | ecs_entity_generation(e);
        CHECK_MSG(ecs_entity_index(e) <= lap, "index %u", (unsigned)ecs_entity_index(e));
        if (ecs_entity_index(e) > lap) break;
        if (seen[key]) first_repeat = cycle;
        seen[key] = 1;
        history[cycle - 1u] = e;
        ecs_entity_destroy(&em, e);
        if (!first_alive && ecs_entity_alive(&em, history[0])) first_alive = cycle;
        if (!first_alive) { /* a few captured dead ids: none may be alive */
            uint32_t s;
            for (s = 0; s < 4; ++s) stale_alive += (uint32_t)ecs_entity_alive(&em, history[rnd_below(cycle)]);
        }
    }
    CHECK_MSG(first_alive == expected_alive, "id 1 alive again at cycle %u, expected %u", (unsigned)first_alive,
              (unsigned)expected_alive);
    CHECK_MSG(first_repeat == expected_reissue, "first repeat at cycle %u, expected %u", (unsigned)first_repeat,
              (unsigned)expected_reissue);
    CHECK(first_repeat && ecs_entity_index(history[first_repeat - 1u]) == 1u);
    CHECK(stale_alive == 0u);
    free(seen);
    free(history);
    ecs_entity_manager_free(&em);
}

/* Random create/destroy against a reference queue, many seeds: same ids, and
   no captured dead id is ever alive (all runs stay far below the wrap). */
static void test_random_churn(void)
{
    enum { MAX_LIVE = 3000, OPS = 60000 };
    uint32_t seed;
    for (seed = 1; seed <= 12; ++seed) {
        ecs_entity_manager em;
        ecs_entity *live = (ecs_entity *)malloc(MAX_LIVE * sizeof *live);
        ecs_entity *dead = (ecs_entity *)malloc(OPS * sizeof *dead);
        uint32_t *ref_queue = (uint32_t *)malloc((OPS + 1) * sizeof *ref_queue);
        uint8_t *ref_gen = (uint8_t *)calloc(OPS + 2, 1);
        uint32_t n_live = 0, n_dead = 0, q_head = 0, q_tail = 0, ref_next = 1, op, k, mismatch = 0, stale = 0;
        ecs_entity_manager_init(&em);
        rng_state = seed * 0x9E3779B97F4A7C15ull;
        for (op = 0; op < OPS; ++op) {
            int create = n_live == 0 || (n_live < MAX_LIVE && rnd_below(100) < (seed % 2 ? 55u : 50u));
            if (create) {
                ecs_entity e = ecs_entity_create(&em);
                uint32_t idx;
                if (q_tail - q_head > ECS_MINIMUM_FREE_INDICES) idx = ref_queue[q_head++];
                else idx = ref_next++;
                mismatch += e.id != ecs_entity_make(idx, ref_gen[idx]).id;
                live[n_live++] = e;
            } else {
                uint32_t at = rnd_below(n_live);
                ecs_entity e = live[at];
                uint32_t idx = ecs_entity_index(e);
                live[at] = live[--n_live];
                CHECK(ecs_entity_destroy(&em, e) == 1);
                ref_gen[idx] = (uint8_t)((ref_gen[idx] + 1u) & ECS_ENTITY_GENERATION_MASK);
                ref_queue[q_tail++] = idx;
                dead[n_dead++] = e;
            }
            if (n_dead && (op % 16u) == 0u) stale += (uint32_t)ecs_entity_alive(&em, dead[rnd_below(n_dead)]);
        }
        for (k = 0; k < n_dead; ++k) stale += (uint32_t)ecs_entity_alive(&em, dead[k]);
        for (k = 0; k < n_live; ++k) CHECK(ecs_entity_alive(&em, live[k]));
        CHECK_MSG(mismatch == 0u, "seed %u: %u ids differ from the reference queue", (unsigned)seed, (unsigned)mismatch);
        CHECK_MSG(stale == 0u, "seed %u: %u stale ids alive", (unsigned)seed, (unsigned)stale);
        CHECK(ecs_entity_count(&em) == n_live);
        free(live);
        free(dead);
        free(ref_queue);
        free(ref_gen);
        ecs_entity_manager_free(&em);
    }
}

/* Issue 24, defect 7: a queued index's generation byte already holds the
   generation it is handed out with, so the id it carries next (never handed
   out) tests alive while it waits: one byte cannot hold a value no id
   matches. destroy, destroy_many and the callback path must refuse that id:
   before the fix each queued the index a second time (num_free 2, count
   off by one, and a later create handed out an index twice). */
static int destroy_counted;
static void count_destroy(void *user, ecs_entity e)
{
    (void)user;
    (void)e;
    ++destroy_counted;
}
static void test_forged_next_id(void)
{
    ecs_entity_manager em;
    ecs_entity es[2200], forged;
    uint32_t k, handed = 0;
    ecs_entity_manager_init(&em);
    for (k = 0; k < 2200; ++k) es[k] = ecs_entity_create(&em);
    CHECK(ecs_entity_destroy(&em, es[5]) == 1);
    forged = ecs_entity_make(ecs_entity_index(es[5]), 1u);
    CHECK(ecs_entity_alive(&em, forged)); /* documented: the one id a queued index matches */
    CHECK(ecs_entity_destroy(&em, forged) == 0);
    CHECK(ecs_entity_destroy_many(&em, 1, &forged) == 0u);
    CHECK_MSG(em.num_free == 1u && ecs_entity_count(&em) == 2199u, "num_free %u, count %u", (unsigned)em.num_free,
              (unsigned)ecs_entity_count(&em));
    CHECK(ecs_entity_on_destroy(&em, count_destroy, NULL) == ECS_OK); /* the callback path */
    destroy_counted = 0;
    CHECK(ecs_entity_destroy(&em, forged) == 0);
    CHECK(destroy_counted == 0 && em.num_free == 1u);
    CHECK(ecs_entity_on_destroy_remove(&em, count_destroy, NULL) == ECS_OK);
    for (k = 100; k < 1200; ++k) CHECK(ecs_entity_destroy(&em, es[k]) == 1); /* the queue passes the minimum */
    for (k = 0; k < 1101u - ECS_MINIMUM_FREE_INDICES; ++k) { /* drain it down to the minimum */
        ecs_entity e = ecs_entity_create(&em);
        handed += ecs_entity_index(e) == ecs_entity_index(es[5]);
        if (k == 0) CHECK(e.id == forged.id); /* the front: es[5]'s index, once */
    }
    CHECK_MSG(handed == 1u, "index %u handed out %u times", (unsigned)ecs_entity_index(es[5]), (unsigned)handed);
    CHECK(ecs_entity_destroy(&em, forged) == 1); /* now it is a real id */
    ecs_entity_manager_free(&em);
}

/* The same against a reference queue, at random: live ids, dead ids and the
   next ids of queued indices, one at a time and in batches (with
   duplicates), with and without callbacks; every create must match the
   reference and the counts stay exact. */
static void test_forged_next_id_model(void)
{
    enum { MAX_LIVE = 2500, OPS = 40000 };
    uint32_t seed;
    for (seed = 1; seed <= 6; ++seed) {
        ecs_entity_manager em;
        ecs_entity *live = (ecs_entity *)malloc(MAX_LIVE * sizeof *live);
        uint32_t *ref_queue = (uint32_t *)malloc((OPS + 1) * sizeof *ref_queue);
        uint8_t *ref_gen = (uint8_t *)calloc(OPS + 2, 1);
        uint32_t n_live = 0, q_head = 0, q_tail = 0, ref_next = 1, op, mismatch = 0, wrong = 0;
        ecs_entity_manager_init(&em);
        rng_state = seed * 0x2545F4914F6CDD1Dull;
        for (op = 0; op < OPS; ++op) {
            uint32_t r = rnd_below(100);
            if (r < 2) { /* callbacks on or off: the slow path or the inline one */
                if (em.num_callbacks) ecs_entity_on_destroy_remove(&em, count_destroy, NULL);
                else ecs_entity_on_destroy(&em, count_destroy, NULL);
            } else if (n_live == 0 || (n_live < MAX_LIVE && r < 50)) {
                ecs_entity e = ecs_entity_create(&em);
                uint32_t idx = q_tail - q_head > ECS_MINIMUM_FREE_INDICES ? ref_queue[q_head++] : ref_next++;
                mismatch += e.id != ecs_entity_make(idx, ref_gen[idx]).id;
                live[n_live++] = e;
            } else if (r < 85 || q_tail == q_head) { /* a live one, sometimes with forged ids in a batch */
                uint32_t at = rnd_below(n_live), idx = ecs_entity_index(live[at]);
                ecs_entity batch[3];
                batch[0] = live[at];
                batch[1] = live[at];
                batch[2] = q_tail != q_head ? ecs_entity_make(ref_queue[q_head + rnd_below(q_tail - q_head)], 0) : live[at];
                batch[2] = ecs_entity_make(ecs_entity_index(batch[2]), ref_gen[ecs_entity_index(batch[2])]);
                if (r & 1u) wrong += ecs_entity_destroy(&em, live[at]) != 1;
                else wrong += ecs_entity_destroy_many(&em, 3, batch) != 1u;
                live[at] = live[--n_live];
                ref_gen[idx] = (uint8_t)((ref_gen[idx] + 1u) & ECS_ENTITY_GENERATION_MASK);
                ref_queue[q_tail++] = idx;
            } else { /* the next id of a queued index: alive by its byte, never destroyed */
                uint32_t idx = ref_queue[q_head + rnd_below(q_tail - q_head)];
                wrong += ecs_entity_destroy(&em, ecs_entity_make(idx, ref_gen[idx])) != 0;
            }
            wrong += em.num_free != q_tail - q_head || ecs_entity_count(&em) != n_live;
        }
        CHECK_MSG(mismatch == 0u && wrong == 0u, "seed %u: %u creates differ from the reference, %u wrong results or counts",
                  (unsigned)seed, (unsigned)mismatch, (unsigned)wrong);
        free(live);
        free(ref_queue);
        free(ref_gen);
        ecs_entity_manager_free(&em);
    }
}

/* Issue 24: one form for an entity in every message. */
static void test_entity_format(void)
{
    char buf[ECS_ENTITY_TEXT_SIZE], tiny[12];
    ecs_entity e = ecs_entity_make(11, 1);
    CHECK(strcmp(ecs_entity_format(buf, sizeof buf, e), "entity 4194315 (index 11, generation 1)") == 0 ||
          ECS_INDEX_BITS != 22);
    CHECK(strcmp(ecs_entity_format(buf, sizeof buf, make_id(0)), "entity 0 (index 0, generation 0)") == 0);
    CHECK(ecs_entity_format(tiny, sizeof tiny, e) == tiny && strcmp(tiny, "entity 4194") == 0); /* cut, terminated */
    CHECK(ecs_entity_format(buf, sizeof buf, make_id(0xFFFFFFFFu)) == buf && strlen(buf) < sizeof buf);
}

static void test_create_many(void)
{
    ecs_entity_manager em;
    ecs_entity *es = (ecs_entity *)malloc(5000 * sizeof *es), one;
    uint32_t k, distinct = 1;
    ecs_entity_manager_init(&em);
    CHECK(ecs_entity_create_many(&em, 3000, es) == ECS_OK);
    for (k = 0; k < 3000; ++k) {
        CHECK(ecs_entity_alive(&em, es[k]));
        distinct &= ecs_entity_index(es[k]) == k + 1u;
    }
    CHECK(distinct == 1u);
    CHECK(ecs_entity_destroy_many(&em, 1500, es) == 1500u);
    CHECK(em.num_free == 1500u);
    /* 476 come from the queue (down to the minimum), the rest are fresh */
    CHECK(ecs_entity_create_many(&em, 1000, es) == ECS_OK);
    CHECK(ecs_entity_index(es[0]) == 1u && ecs_entity_generation(es[0]) == 1u);
    CHECK(ecs_entity_index(es[475]) == 476u);
    CHECK(ecs_entity_index(es[476]) == 3001u);
    CHECK(em.num_free == ECS_MINIMUM_FREE_INDICES);
    one = ecs_entity_create(&em);
    CHECK(ecs_entity_index(one) == 3525u);
    CHECK(ecs_entity_count(&em) == 1500u + 1000u + 1u);
    CHECK(ecs_entity_create_many(&em, 0, es) == ECS_OK);
    free(es);
    ecs_entity_manager_free(&em);
}

/* ---- destruction callbacks -------------------------------------------------- */
typedef struct cb_log {
    ecs_entity_manager *em;
    ecs_entity seen[64];
    int alive_when_called[64];
    uint32_t n;
    ecs_entity child_of[64]; /* by index: destroy this one too */
} cb_log;

static void cb_record(void *user, ecs_entity e)
{
    cb_log *log = (cb_log *)user;
    if (log->n < 64) {
        log->seen[log->n] = e;
        log->alive_when_called[log->n] = ecs_entity_alive(log->em, e);
    }
    ++log->n;
}

static void cb_cascade(void *user, ecs_entity e)
{
    cb_log *log = (cb_log *)user;
    uint32_t idx = ecs_entity_index(e);
    CHECK(ecs_entity_destroy(log->em, e) == 0); /* destroying itself again: no-op */
    if (idx < 64 && !ecs_entity_is_nil(log->child_of[idx])) ecs_entity_destroy(log->em, log->child_of[idx]);
}

static void test_callbacks(void)
{
    ecs_entity_manager em;
    cb_log log;
    ecs_entity a, b, c, d;
    uint32_t k;
    memset(&log, 0, sizeof log);
    ecs_entity_manager_init(&em);
    log.em = &em;
    CHECK(ecs_entity_on_destroy(&em, cb_record, &log) == ECS_OK);
    CHECK(ecs_entity_on_destroy(&em, cb_cascade, &log) == ECS_OK);
    CHECK(ecs_entity_on_destroy(&em, NULL, NULL) == ECS_ERROR_INVALID_ARGUMENT);
    a = ecs_entity_create(&em);
    b = ecs_entity_create(&em);
    c = ecs_entity_create(&em);
    d = ecs_entity_create(&em);
    log.child_of[ecs_entity_index(a)] = b; /* a -> b -> c */
    log.child_of[ecs_entity_index(b)] = c;
    CHECK(ecs_entity_destroy(&em, a) == 1);
    CHECK(log.n == 3u);
    CHECK(log.seen[0].id == a.id && log.seen[1].id == b.id && log.seen[2].id == c.id);
    for (k = 0; k < 3; ++k) CHECK(log.alive_when_called[k] == 1);
    CHECK(!ecs_entity_alive(&em, a) && !ecs_entity_alive(&em, b) && !ecs_entity_alive(&em, c));
    CHECK(ecs_entity_alive(&em, d));
    CHECK(em.num_free == 3u);
    CHECK(ecs_entity_destroy(&em, b) == 0); /* already dead: no callback */
    CHECK(log.n == 3u);
    CHECK(ecs_entity_destroy_many(&em, 1, &d) == 1u);
    CHECK(log.n == 4u && log.seen[3].id == d.id);
    CHECK(ecs_entity_count(&em) == 0u);
    /* removing a callback */
    CHECK(ecs_entity_on_destroy_remove(&em, cb_cascade, &log) == ECS_OK);
    CHECK(ecs_entity_on_destroy_remove(&em, cb_cascade, &log) == ECS_ERROR_NOT_FOUND);
    a = ecs_entity_create(&em);
    ecs_entity_destroy(&em, a);
    CHECK(log.n == 5u && log.seen[4].id == a.id); /* the other one still runs */
    CHECK(ecs_entity_on_destroy_remove(&em, cb_record, &log) == ECS_OK);
    a = ecs_entity_create(&em);
    ecs_entity_destroy(&em, a);
    CHECK(log.n == 5u);
    ecs_entity_manager_free(&em);
}

/* ---- component managers ------------------------------------------------------ */
typedef struct payload {
    double d;
    uint32_t tag;
} payload;
typedef struct wide {
    float v[4];
} wide;

#define TEST_FIELDS(X) \
    X(uint32_t, tag)   \
    X(uint8_t, small)  \
    X(payload, pay)    \
    X(wide, w)
ECS_MANAGER_DEFINE(test_mgr, TEST_FIELDS)

static void set_instance(test_mgr *m, uint32_t i, uint32_t tag)
{
    m->tag[i] = tag;
    m->small[i] = (uint8_t)(tag * 7u);
    m->pay[i].d = tag * 0.5;
    m->pay[i].tag = ~tag;
    m->w[i].v[0] = (float)(tag & 0xFFFFu);
    m->w[i].v[3] = -(float)(tag & 0xFFFFu);
}

static int instance_intact(const test_mgr *m, uint32_t i)
{
    uint32_t tag = m->tag[i];
    return m->small[i] == (uint8_t)(tag * 7u) && m->pay[i].d == tag * 0.5 && m->pay[i].tag == ~tag &&
           m->w[i].v[0] == (float)(tag & 0xFFFFu) && m->w[i].v[3] == -(float)(tag & 0xFFFFu);
}

/* Reference model: per entity slot, the tags of its instances in order. */
enum { MODEL_ENTITIES = 48, MODEL_MAX_INST = 8 };
typedef struct model {
    ecs_entity e[MODEL_ENTITIES];
    int alive[MODEL_ENTITIES];
    uint32_t tags[MODEL_ENTITIES][MODEL_MAX_INST];
    uint32_t n[MODEL_ENTITIES];
    uint32_t total;
} model;

static int model_slot_of(const model *md, ecs_entity e)
{
    int s;
    for (s = 0; s < MODEL_ENTITIES; ++s)
        if (md->e[s].id == e.id && md->n[s] > 0) return s;
    return -1;
}

static void model_remove_tag(model *md, int s, uint32_t tag)
{
    uint32_t k, j;
    for (k = 0; k < md->n[s]; ++k)
        if (md->tags[s][k] == tag) {
            for (j = k + 1; j < md->n[s]; ++j) md->tags[s][j - 1] = md->tags[s][j];
            --md->n[s];
            --md->total;
            return;
        }
    CHECK_MSG(0, "tag %u not in the model", (unsigned)tag);
}

/* Everything the manager says agrees with the model. Returns 0 on mismatch.
   Walks the arrays with the documented idiom: instances 0..count-1, skipping
   empty slots (entity id 0, the direct kind's holes). */
static int check_against_model(const test_mgr *m, const model *md)
{
    uint32_t i, s, ok = 1, seen = 0;
    if (test_mgr_num_instances(m) != md->total) return 0;
    if (m->core.lookup != ECS_LOOKUP_DIRECT && test_mgr_count(m) != md->total) return 0;
    for (i = 0; i < test_mgr_count(m); ++i) {
        /* the entity maps back to this instance exactly once */
        uint32_t hits = 0, steps = 0;
        ecs_instance it;
        if (m->entity[i].id == 0) continue; /* a hole */
        ++seen;
        for (it = test_mgr_lookup(m, m->entity[i]); !ecs_instance_is_nil(it) && steps < 64; it = test_mgr_next(m, it), ++steps)
            hits += it.i == i;
        ok &= hits == 1u && instance_intact(m, i);
    }
    ok &= seen == md->total;
    for (s = 0; s < MODEL_ENTITIES; ++s) {
        ecs_instance it = test_mgr_lookup(m, md->e[s]);
        uint32_t k = 0;
        for (; !ecs_instance_is_nil(it) && k < MODEL_MAX_INST + 1u; it = test_mgr_next(m, it), ++k)
            ok &= k < md->n[s] && m->tag[it.i] == md->tags[s][k];
        ok &= ecs_instance_is_nil(it) && k == md->n[s];
    }
    return (int)ok;
}

/* After gc or collect: rebuilds the dead slots of the model from what is
   left (gc removes instances one by one in random order); counts how many
   instances of live entities went missing. Returns how many of the dead
   entities' instances were removed. */
static uint32_t model_after_collection(const test_mgr *m, model *md, const uint32_t *before, uint32_t *removed_live)
{
    uint32_t k, dead_total = 0;
    for (k = 0; k < MODEL_ENTITIES; ++k) {
        uint32_t left = 0;
        ecs_instance it;
        for (it = test_mgr_lookup(m, md->e[k]); !ecs_instance_is_nil(it); it = test_mgr_next(m, it)) ++left;
        if (md->alive[k]) {
            *removed_live += left != before[k];
        } else {
            uint32_t j = 0;
            for (it = test_mgr_lookup(m, md->e[k]); !ecs_instance_is_nil(it); it = test_mgr_next(m, it))
                md->tags[k][j++] = m->tag[it.i];
            dead_total += before[k] - left;
            md->total -= before[k] - left;
            md->n[k] = left;
        }
    }
    return dead_total;
}

/* An instance of the manager, at random: for the direct kind an occupied
   slot (or nil when there is none nearby). */
static ecs_instance random_instance(const test_mgr *m)
{
    uint32_t i, tries;
    if (test_mgr_count(m) == 0) return ecs_instance_nil();
    for (tries = 0; tries < 64; ++tries) {
        i = rnd_below(test_mgr_count(m));
        if (m->entity[i].id != 0) return ecs_instance_make(i);
    }
    return ecs_instance_nil();
}

static void run_component_model(ecs_lookup_kind kind, uint32_t ops)
{
    ecs_entity_manager em;
    test_mgr m;
    model md;
    int direct = kind == ECS_LOOKUP_DIRECT;
    uint32_t max_inst = direct ? 1u : (uint32_t)MODEL_MAX_INST;
    uint32_t op, next_tag = 1, bad = 0, gc_removed_live = 0, s;
    memset(&md, 0, sizeof md);
    ecs_entity_manager_init(&em);
    CHECK(test_mgr_init(&m, kind) == ECS_OK);
    for (s = 0; s < MODEL_ENTITIES; ++s) {
        md.e[s] = ecs_entity_create(&em);
        md.alive[s] = 1;
    }
    rng_state = 1234u + (uint32_t)kind;
    for (op = 0; op < ops; ++op) {
        uint32_t r = rnd_below(100);
        s = rnd_below(MODEL_ENTITIES);
        if (r < 30) { /* create */
            if (md.alive[s] && md.n[s] < max_inst) {
                ecs_instance i = test_mgr_create(&m, md.e[s]);
                CHECK(!ecs_instance_is_nil(i));
                CHECK(!direct || i.i == ecs_entity_index(md.e[s]));
                set_instance(&m, i.i, next_tag);
                md.tags[s][md.n[s]++] = next_tag++;
                ++md.total;
            } else if (md.alive[s] && direct) { /* a second instance: refused, nothing changes */
                CHECK(ecs_instance_is_nil(test_mgr_create(&m, md.e[s])));
                CHECK(m.core.error.code == ECS_ERROR_ALREADY_EXISTS);
            }
        } else if (r < 35) { /* create_many for a few entities */
            ecs_entity batch[4];
            uint32_t slots[4], nb = 0, k, j;
            ecs_instance first;
            for (k = 0; k < 4; ++k) {
                uint32_t t = rnd_below(MODEL_ENTITIES), dup = 0;
                for (j = 0; j < nb; ++j) dup |= slots[j] == t;
                if (!md.alive[t] || md.n[t] + (dup ? 2u : 1u) > max_inst || (direct && dup)) continue;
                if (dup) { /* the same entity twice in a batch: fine but for direct */
                    uint32_t c = 0;
                    for (j = 0; j < nb; ++j) c += slots[j] == t;
                    if (md.n[t] + c + 1u > max_inst) continue;
                }
                slots[nb] = t;
                batch[nb++] = md.e[t];
            }
            CHECK(test_mgr_create_many(&m, nb, batch, &first) == ECS_OK);
            for (k = 0; k < nb; ++k) {
                ecs_instance i = direct ? ecs_instance_make(ecs_entity_index(batch[k])) : ecs_instance_make(first.i + k);
                CHECK(m.entity[i.i].id == batch[k].id);
                set_instance(&m, i.i, next_tag);
                md.tags[slots[k]][md.n[slots[k]]++] = next_tag++;
                ++md.total;
            }
        } else if (r < 57) { /* destroy a random instance */
            ecs_instance i = random_instance(&m);
            if (!ecs_instance_is_nil(i)) {
                int slot = model_slot_of(&md, m.entity[i.i]);
                CHECK(slot >= 0);
                if (slot >= 0) model_remove_tag(&md, slot, m.tag[i.i]);
                CHECK(test_mgr_destroy(&m, i) == 1);
            }
        } else if (r < 70) { /* lookup + next walk: checked below */
            ecs_instance i = test_mgr_lookup(&m, md.e[s]);
            CHECK(ecs_instance_is_nil(i) == (md.n[s] == 0));
        } else if (r < 75) { /* destroy all instances of one entity */
            uint32_t expect = md.n[s];
            CHECK(test_mgr_destroy_entity(&m, md.e[s]) == expect);
            md.total -= md.n[s];
            md.n[s] = 0;
        } else if (r < 83) { /* entity dies; its data waits for gc or collect */
            if (md.alive[s]) {
                ecs_entity_destroy(&em, md.e[s]);
                md.alive[s] = 0;
            }
        } else if (r < 95) { /* gc or collect: only dead entities' instances go */
            uint32_t before[MODEL_ENTITIES], k, removed, dead_total, dead_left = 0;
            int exact = r >= 90;
            for (k = 0; k < MODEL_ENTITIES; ++k) before[k] = md.n[k];
            removed = exact ? test_mgr_collect(&m, &em) : test_mgr_gc(&m, &em);
            dead_total = model_after_collection(&m, &md, before, &gc_removed_live);
            CHECK(removed == dead_total);
            if (exact) { /* nothing dead is left after one collect */
                for (k = 0; k < MODEL_ENTITIES; ++k) dead_left += md.alive[k] ? 0u : md.n[k];
                CHECK(dead_left == 0u);
            }
        } else { /* replace a dead entity by a new one */
            if (!md.alive[s] && md.n[s] == 0) {
                md.e[s] = ecs_entity_create(&em);
                md.alive[s] = 1;
            }
        }
        if (!check_against_model(&m, &md)) {
            ++bad;
            if (bad < 3) CHECK_MSG(0, "kind %d: model mismatch after op %u (r=%u)", (int)kind, (unsigned)op, (unsigned)r);
        }
    }
    CHECK(bad == 0u);
    CHECK(gc_removed_live == 0u);
    /* gc eventually removes exactly the dead entities' instances */
    for (s = 0; s < MODEL_ENTITIES; ++s)
        if (md.alive[s]) ecs_entity_destroy(&em, md.e[s]);
    for (s = 0; s < 10000 && test_mgr_num_instances(&m); ++s) test_mgr_gc(&m, &em);
    CHECK(test_mgr_num_instances(&m) == 0u);
    test_mgr_free(&m);
    ecs_entity_manager_free(&em);
}

static void test_component_edges(ecs_lookup_kind kind)
{
    ecs_entity_manager em;
    test_mgr m;
    ecs_entity a, b, stale;
    ecs_instance i, j;
    ecs_entity_manager_init(&em);
    CHECK(test_mgr_init(&m, kind) == ECS_OK);
    a = ecs_entity_create(&em);
    b = ecs_entity_create(&em);
    /* the only instance */
    i = test_mgr_create(&m, a);
    CHECK(i.i == 0u);
    set_instance(&m, i.i, 5);
    CHECK(test_mgr_destroy(&m, i) == 1);
    CHECK(test_mgr_count(&m) == 0u);
    CHECK(ecs_instance_is_nil(test_mgr_lookup(&m, a)));
    CHECK(test_mgr_destroy(&m, i) == 0); /* out of range now */
    CHECK(test_mgr_destroy(&m, ecs_instance_nil()) == 0);
    CHECK(ecs_instance_is_nil(test_mgr_next(&m, ecs_instance_nil())));
    /* the last instance */
    i = test_mgr_create(&m, a);
    j = test_mgr_create(&m, b);
    set_instance(&m, i.i, 1);
    set_instance(&m, j.i, 2);
    CHECK(test_mgr_destroy(&m, j) == 1);
    CHECK(test_mgr_lookup(&m, a).i == 0u && ecs_instance_is_nil(test_mgr_lookup(&m, b)));
    CHECK(m.tag[0] == 1u && instance_intact(&m, 0));
    /* nil entity refused and never found; stale entity finds nothing */
    CHECK(ecs_instance_is_nil(test_mgr_lookup(&m, make_id(0))));
    CHECK(ecs_instance_is_nil(test_mgr_lookup(&m, make_id(0xC0000000u))));
    CHECK(ecs_instance_is_nil(test_mgr_create(&m, make_id(0))));
    CHECK(m.core.error.code == ECS_ERROR_INVALID_ARGUMENT);
    stale = a;
    ecs_entity_destroy(&em, a);
    CHECK(test_mgr_lookup(&m, stale).i == 0u); /* the manager holds it until gc */
    while (test_mgr_gc(&m, &em)) {}
    CHECK(test_mgr_count(&m) == 0u);
    {
        /* recreate at a reused index after enough churn: the stale id must not
           find the new entity's instance (dense checks the generation) */
        ecs_entity es[1100], reused = {0};
        uint32_t k;
        for (k = 0; k < 1100; ++k) es[k] = ecs_entity_create(&em);
        for (k = 0; k < 1100; ++k) ecs_entity_destroy(&em, es[k]);
        for (k = 0; k < 200 && ecs_entity_index(reused) != ecs_entity_index(stale); ++k) reused = ecs_entity_create(&em);
        CHECK(ecs_entity_index(reused) == ecs_entity_index(stale));
        i = test_mgr_create(&m, reused);
        CHECK(test_mgr_lookup(&m, reused).i == i.i);
        CHECK(ecs_instance_is_nil(test_mgr_lookup(&m, stale)));
    }
    /* growth keeps values; alignment of every field array */
    {
        uint32_t k, ok = 1;
        ecs_entity *es = (ecs_entity *)malloc(3000 * sizeof *es);
        test_mgr_free(&m);
        CHECK(test_mgr_init(&m, kind) == ECS_OK);
        CHECK(ecs_entity_create_many(&em, 3000, es) == ECS_OK);
        for (k = 0; k < 3000; ++k) {
            ecs_instance x = test_mgr_create(&m, es[k]);
            set_instance(&m, x.i, k + 100u);
        }
        for (k = 0; k < 3000; ++k) ok &= m.tag[test_mgr_lookup(&m, es[k]).i] == k + 100u && instance_intact(&m, k);
        CHECK(ok == 1u);
        CHECK(((uintptr_t)m.entity % 16u) == 0u && ((uintptr_t)m.tag % 16u) == 0u && ((uintptr_t)m.small % 16u) == 0u);
        CHECK(((uintptr_t)m.pay % 16u) == 0u && ((uintptr_t)m.w % 16u) == 0u);
        CHECK(ecs_manager_memory(&m.core) >= 3000u * m.core.bytes_per_instance);
        free(es);
    }
    test_mgr_free(&m);
    ecs_entity_manager_free(&em);
}

/* A dead entity's instances wait for gc while its index is reused by a new
   entity that gets instances of its own: lookups and gc stay right. */
static void test_reused_index_before_gc(ecs_lookup_kind kind)
{
    ecs_entity_manager em;
    test_mgr m;
    ecs_entity a, b = {0}, churn[1100];
    ecs_instance i;
    uint32_t k, n;
    ecs_entity_manager_init(&em);
    CHECK(test_mgr_init(&m, kind) == ECS_OK);
    a = ecs_entity_create(&em);
    for (k = 0; k < 3; ++k) set_instance(&m, test_mgr_create(&m, a).i, 10u + k);
    ecs_entity_destroy(&em, a);
    CHECK(ecs_entity_create_many(&em, 1100, churn) == ECS_OK);
    for (k = 0; k < 1100; ++k) set_instance(&m, test_mgr_create(&m, churn[k]).i, 1000u + k);
    ecs_entity_destroy_many(&em, 1100, churn);
    for (k = 0; k < 2000 && ecs_entity_index(b) != ecs_entity_index(a); ++k) b = ecs_entity_create(&em);
    CHECK(ecs_entity_index(b) == ecs_entity_index(a) && b.id != a.id);
    for (k = 0; k < 2; ++k) set_instance(&m, test_mgr_create(&m, b).i, 20u + k);
    for (i = test_mgr_lookup(&m, b), n = 0; !ecs_instance_is_nil(i); i = test_mgr_next(&m, i), ++n)
        CHECK(m.tag[i.i] == 20u + n);
    CHECK(n == 2u);
    for (k = 0; k < 100000 && test_mgr_count(&m) > 2u; ++k) test_mgr_gc(&m, &em);
    CHECK(test_mgr_count(&m) == 2u);
    for (i = test_mgr_lookup(&m, b), n = 0; !ecs_instance_is_nil(i); i = test_mgr_next(&m, i), ++n)
        CHECK(m.tag[i.i] == 20u + n && instance_intact(&m, i.i) && m.entity[i.i].id == b.id);
    CHECK(n == 2u);
    CHECK(ecs_instance_is_nil(test_mgr_lookup(&m, a)));
    CHECK(test_mgr_destroy_entity(&m, b) == 2u && test_mgr_count(&m) == 0u);
    test_mgr_free(&m);
    ecs_entity_manager_free(&em);
}

/* gc_all: one sweep removes exactly the dead entities' instances. */
static void test_gc_all(ecs_lookup_kind kind)
{
    enum { N = 3000 };
    ecs_entity_manager em;
    test_mgr m;
    ecs_entity *es = (ecs_entity *)malloc(N * sizeof *es);
    int *dead = (int *)calloc(N, sizeof *dead);
    uint32_t k, live = 0, ok = 1;
    ecs_entity_manager_init(&em);
    CHECK(test_mgr_init(&m, kind) == ECS_OK);
    CHECK(ecs_entity_create_many(&em, N, es) == ECS_OK);
    rng_state = 99;
    for (k = 0; k < N; ++k) {
        uint32_t copies = 1u + (k % 3u), c;
        for (c = 0; c < copies; ++c) set_instance(&m, test_mgr_create(&m, es[k]).i, k * 4u + c);
    }
    for (k = 0; k < N; ++k)
        if (rnd_below(2)) {
            dead[k] = 1;
            ecs_entity_destroy(&em, es[k]);
        } else {
            live += 1u + (k % 3u);
        }
    k = test_mgr_count(&m);
    CHECK(test_mgr_gc_all(&m, &em) == k - live);
    CHECK(test_mgr_count(&m) == live);
    for (k = 0; k < N; ++k) {
        ecs_instance i = test_mgr_lookup(&m, es[k]);
        uint32_t c = 0;
        if (dead[k]) {
            ok &= (uint32_t)ecs_instance_is_nil(i);
            continue;
        }
        for (; !ecs_instance_is_nil(i); i = test_mgr_next(&m, i), ++c) ok &= m.tag[i.i] == k * 4u + c && instance_intact(&m, i.i);
        ok &= c == 1u + (k % 3u);
    }
    CHECK(ok == 1u);
    CHECK(test_mgr_gc_all(&m, &em) == 0u);
    free(es);
    free(dead);
    test_mgr_free(&m);
    ecs_entity_manager_free(&em);
}

static void test_runtime_layout_and_spawn(void)
{
    static const ecs_field_desc fields[] = {{"a", 3, 1}, {"b", 8, 64}, {"c", 4, 4}};
    ecs_manager m;
    ecs_entity_manager em;
    ecs_entity es[4];
    ecs_spawn_context ctx;
    ecs_error err;
    unsigned char data[2 * 15];
    uint32_t idx[2] = {3, 1}, k;
    ecs_field_desc bad = {"bad", 4, 3};
    char *name = (char *)malloc(8);
    ecs_field_desc named;
    ecs_entity_manager_init(&em);
    CHECK(ecs_manager_init(&m, &bad, 1, ECS_LOOKUP_HASH) == ECS_ERROR_INVALID_ARGUMENT);
    ecs_manager_free(&m);
    CHECK(ecs_manager_init(&m, fields, 3, ECS_LOOKUP_DENSE) == ECS_OK);
    CHECK(ecs_manager_record_size(&m) == 15u);
    CHECK(ecs_entity_create_many(&em, 4, es) == ECS_OK);
    for (k = 0; k < sizeof data; ++k) data[k] = (unsigned char)(k + 1u);
    memset(&ctx, 0, sizeof ctx);
    ecs_error_clear(&err);
    ctx.entities = &em;
    ctx.entity = es;
    ctx.num_entities = 4;
    ctx.error = &err;
    CHECK(ecs_manager_spawn(&m, &ctx, 2, idx, data, 29) == ECS_ERROR_SPAWN_FAILED); /* wrong size */
    CHECK(err.code == ECS_ERROR_SPAWN_FAILED && strstr(err.message, "30") != NULL);
    CHECK(m.count == 0u);
    CHECK(ecs_manager_spawn(&m, &ctx, 2, idx, data, 30) == ECS_OK);
    CHECK(m.count == 2u);
    {
        ecs_instance i0 = ecs_manager_lookup(&m, es[3]), i1 = ecs_manager_lookup(&m, es[1]);
        CHECK(!ecs_instance_is_nil(i0) && !ecs_instance_is_nil(i1));
        CHECK(memcmp(ecs_manager_field(&m, 0, i0.i), data, 3) == 0);
        CHECK(memcmp(ecs_manager_field(&m, 1, i0.i), data + 3, 8) == 0);
        CHECK(memcmp(ecs_manager_field(&m, 2, i1.i), data + 15 + 11, 4) == 0);
        CHECK(((uintptr_t)m.field[1] % 64u) == 0u);
    }
    ecs_manager_unspawn(&m, &ctx, 2, idx, data, 30);
    CHECK(m.count == 0u);
    ecs_manager_free(&m);
    /* the field table and its names are copied */
    memcpy(name, "speed", 6);
    named.name = name;
    named.size = 4;
    named.align = 4;
    CHECK(ecs_manager_init(&m, &named, 1, ECS_LOOKUP_HASH) == ECS_OK);
    memcpy(name, "XXXXX", 6);
    free(name);
    CHECK(strcmp(m.fields[0].name, "speed") == 0);
    ecs_manager_free(&m);
    ecs_entity_manager_free(&em);
}

static void test_results(void)
{
    ecs_error err;
    CHECK(strcmp(ecs_result_name(ECS_ERROR_OUT_OF_MEMORY), "ECS_ERROR_OUT_OF_MEMORY") == 0);
    CHECK(strcmp(ecs_result_text(ECS_OK), "ok") == 0);
    CHECK(strcmp(ecs_result_name(ECS__RESULT_COUNT), "?") == 0);
    CHECK(ecs_error_set(&err, ECS_ERROR_JSON, "line %d", 3) == ECS_ERROR_JSON);
    CHECK(err.code == ECS_ERROR_JSON && strcmp(err.message, "line 3") == 0);
    CHECK(ecs_error_set(NULL, ECS_ERROR_IO, "x") == ECS_ERROR_IO);
    ecs_error_clear(&err);
    CHECK(err.code == ECS_OK && err.message[0] == '\0');
}

int main(void)
{
    test_results();
    test_layout_and_nil();
    test_double_destroy();
    test_fifo_threshold();
    test_exact_wrap_lap();
    test_random_churn();
    test_forged_next_id();
    test_forged_next_id_model();
    test_entity_format();
    test_create_many();
    test_callbacks();
    run_component_model(ECS_LOOKUP_HASH, TEST_COMPONENT_OPS);
    run_component_model(ECS_LOOKUP_DENSE, TEST_COMPONENT_OPS);
    run_component_model(ECS_LOOKUP_DIRECT, TEST_COMPONENT_OPS);
    test_component_edges(ECS_LOOKUP_HASH);
    test_component_edges(ECS_LOOKUP_DENSE);
    test_reused_index_before_gc(ECS_LOOKUP_HASH);
    test_reused_index_before_gc(ECS_LOOKUP_DENSE);
    test_gc_all(ECS_LOOKUP_HASH);
    test_gc_all(ECS_LOOKUP_DENSE);
    test_runtime_layout_and_spawn();
    return test_report("test_ecs");
}
