/* tests/test_ecs_storage.c - ecs.h's storage core: the entity map, the three
   lookup kinds (direct's holes, second instances, fast read), batch create
   and lookup, the destroy log and exact collection, typed pointers that are
   never stale, and bad input in every kind. */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "test_rng.h"

typedef struct v3 {
    float x, y, z;
} v3;
#define BODY_FIELDS(X) \
    X(v3, pos)         \
    X(uint32_t, tag)
ECS_MANAGER_DEFINE(body, BODY_FIELDS)

static const ecs_lookup_kind all_kinds[3] = {ECS_LOOKUP_HASH, ECS_LOOKUP_DENSE, ECS_LOOKUP_DIRECT};

/* ---- the entity map against a reference, both kinds ---------------------------- */
static void test_entity_map(ecs_lookup_kind kind)
{
    enum { RANGE = 5000, OPS = 200000 };
    ecs_entity_map map;
    uint32_t *ref = (uint32_t *)calloc(RANGE * 4u, sizeof *ref); /* key = index | gen << 22, gen < 4 */
    uint32_t op, k, bad = 0, count = 0;
    ecs_error err;
    ecs_entity_map_init(&map, kind);
    CHECK(ecs_entity_map_find(&map, 0) == ECS_INSTANCE_NIL);
    CHECK(ecs_entity_map_find(&map, 12345) == ECS_INSTANCE_NIL);
    CHECK(ecs_entity_map_memory(&map) == 0u);
    rng_state = 77u + (uint32_t)kind;
    for (op = 0; op < OPS; ++op) {
        uint32_t idx = 1u + rnd_below(RANGE - 1u), gen = rnd_below(4), key = idx | (gen << ECS_INDEX_BITS);
        uint32_t *r = &ref[idx * 4u + gen];
        if (rnd_below(3) == 0) {
            if (*r) --count;
            ecs_entity_map_set(&map, key, ECS_INSTANCE_NIL);
            *r = 0;
        } else if (kind == ECS_LOOKUP_HASH || (ref[idx * 4u] | ref[idx * 4u + 1] | ref[idx * 4u + 2] | ref[idx * 4u + 3]) == *r) {
            /* dense holds one id per index: only set a key whose index is free or its own */
            uint32_t v = rnd_below(1000000);
            CHECK(ecs_entity_map_reserve(&map, count + 1u, idx, &err) == ECS_OK);
            if (!*r) ++count;
            ecs_entity_map_set(&map, key, v);
            *r = v + 1u;
        }
        if (op % 997u == 0u) {
            for (k = 0; k < RANGE * 4u; ++k) {
                uint32_t key2 = (k / 4u) | ((k % 4u) << ECS_INDEX_BITS);
                uint32_t want = ref[k] ? ref[k] - 1u : ECS_INSTANCE_NIL;
                bad += ecs_entity_map_find(&map, key2) != want;
            }
            bad += map.count != count;
        }
    }
    CHECK_MSG(bad == 0u, "kind %d: %u mismatches", (int)kind, (unsigned)bad);
    /* keys never stored, past the table, and key 0 */
    CHECK(ecs_entity_map_find(&map, 0) == ECS_INSTANCE_NIL);
    CHECK(ecs_entity_map_find(&map, ECS_INDEX_MASK) == ECS_INSTANCE_NIL);
    CHECK(ecs_entity_map_find(&map, RANGE + 7u) == ECS_INSTANCE_NIL);
    CHECK(ecs_entity_map_find(&map, (3u << ECS_INDEX_BITS)) == ECS_INSTANCE_NIL);
    if (kind == ECS_LOOKUP_HASH) CHECK((uint64_t)map.count * 4u <= (uint64_t)(map.mask + 1u) * 3u);
    ecs_entity_map_free(&map);
    CHECK(ecs_entity_map_find(&map, 1) == ECS_INSTANCE_NIL);
    free(ref);
}

/* ---- the direct kind ---------------------------------------------------------- */
static void test_direct(void)
{
    ecs_entity_manager em;
    body m;
    ecs_entity es[3000], stale;
    ecs_instance i;
    uint32_t k, sum = 0, want = 0, holes = 0, ok = 1;
    ecs_entity_manager_init(&em);
    CHECK(body_init(&m, ECS_LOOKUP_DIRECT) == ECS_OK);
    CHECK(ecs_entity_create_many(&em, 3000, es) == ECS_OK);
    /* every third entity gets the component: instance = entity index */
    for (k = 0; k < 3000; k += 3) {
        i = body_create(&m, es[k]);
        CHECK(i.i == ecs_entity_index(es[k]));
        m.tag[i.i] = k + 1u;
        m.pos[i.i].x = (float)k;
        want += k + 1u;
    }
    CHECK(body_num_instances(&m) == 1000u);
    CHECK(body_count(&m) == ecs_entity_index(es[2997]) + 1u); /* one past the highest slot in use */
    /* the documented idiom: 0..count-1, skipping slots whose entity is nil */
    for (k = 0; k < body_count(&m); ++k) {
        if (ecs_entity_is_nil(m.entity[k])) {
            ++holes;
            continue;
        }
        sum += m.tag[k];
    }
    CHECK(sum == want && holes == body_count(&m) - 1000u);
    /* growth kept every value; lookup and the fast read agree */
    for (k = 0; k < 3000; ++k) {
        ecs_instance l = body_lookup(&m, es[k]);
        if (k % 3u) {
            ok &= (uint32_t)ecs_instance_is_nil(l);
            continue;
        }
        ok &= l.i == ecs_entity_index(es[k]) && m.tag[l.i] == k + 1u && m.pos[l.i].x == (float)k;
        ok &= body_slot(&m, es[k]).i == l.i;
    }
    CHECK(ok == 1u);
    /* a second instance is refused and changes nothing */
    CHECK(ecs_instance_is_nil(body_create(&m, es[0])));
    CHECK(m.core.error.code == ECS_ERROR_ALREADY_EXISTS);
    CHECK(m.tag[ecs_entity_index(es[0])] == 1u && body_num_instances(&m) == 1000u);
    CHECK(ecs_instance_is_nil(body_next(&m, body_lookup(&m, es[0]))));
    /* destroy clears the slot */
    CHECK(body_destroy_entity(&m, es[3]) == 1u);
    CHECK(ecs_entity_is_nil(m.entity[ecs_entity_index(es[3])]));
    CHECK(ecs_instance_is_nil(body_lookup(&m, es[3])));
    CHECK(body_destroy_entity(&m, es[3]) == 0u);
    CHECK(body_destroy(&m, ecs_instance_make(ecs_entity_index(es[3]))) == 0); /* an empty slot */
    CHECK(body_num_instances(&m) == 999u);
    /* stale and forged ids never match; the fast read stays in bounds */
    stale = es[0];
    ecs_entity_destroy(&em, es[0]);
    stale.id = ecs_entity_make(ecs_entity_index(es[0]), 1u).id; /* a later id of that index */
    CHECK(ecs_instance_is_nil(body_lookup(&m, stale)));
    CHECK(ecs_instance_is_nil(body_lookup(&m, make_id(0))));
    rng_state = 5;
    for (k = 0; k < 100000; ++k) {
        ecs_entity f = make_id(rnd());
        ecs_instance l = body_lookup(&m, f);
        if (!ecs_instance_is_nil(l)) ok &= m.entity[l.i].id == ecs_entity_key(f);
#ifdef NDEBUG /* the fast read of a foreign id: asserted in debug builds, in bounds in release */
        {
            volatile float sink = m.pos[body_slot(&m, f).i].x; /* in the manager's memory (ASan) */
            (void)sink;
            ok &= body_slot(&m, f).i < m.core.capacity;
        }
#endif
    }
    CHECK(ok == 1u);
    /* a newer id of a slot's index takes the slot over */
    i = body_create(&m, stale);
    CHECK(i.i == ecs_entity_index(stale) && m.entity[i.i].id == stale.id && body_num_instances(&m) == 999u);
    CHECK(ecs_instance_is_nil(body_lookup(&m, es[0])));
    /* gc_all removes the dead and lowers count past trailing holes */
    for (k = 0; k < 3000; ++k) ecs_entity_destroy(&em, es[k]);
    /* (stale is index 0's next id: alive for the entity manager, as any id
       whose generation matches) */
    CHECK(body_gc_all(&m, &em) == 998u);
    CHECK(body_num_instances(&m) == 1u && body_count(&m) == ecs_entity_index(stale) + 1u);
    CHECK(body_destroy_entity(&m, stale) == 1u);
    CHECK(body_gc_all(&m, &em) == 0u && body_count(&m) == 0u);
    body_free(&m);
    ecs_entity_manager_free(&em);
}

/* ---- create_many and lookup_many, every kind --------------------------------- */
static void test_batches(ecs_lookup_kind kind)
{
    enum { N = 5000 };
    ecs_entity_manager em;
    body m;
    ecs_entity *es = (ecs_entity *)malloc(N * sizeof *es), probe[8];
    ecs_instance first, *out = (ecs_instance *)malloc(N * sizeof *out);
    unsigned char records[3 * 16];
    uint32_t k, ok = 1, count;
    ecs_entity_manager_init(&em);
    CHECK(body_init(&m, kind) == ECS_OK);
    CHECK(ecs_entity_create_many(&em, N, es) == ECS_OK);
    CHECK(body_create_many(&m, N / 2, es, &first) == ECS_OK);
    for (k = 0; k < N / 2; ++k) {
        uint32_t i = kind == ECS_LOOKUP_DIRECT ? ecs_entity_index(es[k]) : first.i + k;
        ok &= m.entity[i].id == es[k].id;
        m.tag[i] = k;
    }
    CHECK(ok == 1u);
    CHECK(kind == ECS_LOOKUP_DIRECT ? ecs_instance_is_nil(first) : first.i == 0u);
    /* lookup_many agrees with lookup, for owners, non-owners, nil and forged */
    for (k = 0; k < N; ++k) es[k].id |= (k % 7u == 0u) ? 0xC0000000u : 0u; /* user bits: ignored */
    body_lookup_many(&m, N, es, out);
    for (k = 0; k < N; ++k) ok &= out[k].i == body_lookup(&m, es[k]).i && (k < N / 2) != ecs_instance_is_nil(out[k]);
    for (k = 0; k < N; ++k) es[k].id &= 0x3FFFFFFFu;
    probe[0] = make_id(0);
    probe[1] = make_id(0xFFFFFFFFu);
    probe[2] = ecs_entity_make(ecs_entity_index(es[0]), 3);
    probe[3] = make_id(ECS_INDEX_MASK);
    body_lookup_many(&m, 4, probe, out);
    for (k = 0; k < 4; ++k) ok &= (uint32_t)ecs_instance_is_nil(out[k]);
    CHECK(ok == 1u);
    /* refusals change nothing: a nil entity in the batch, and (direct) an id
       already present or listed twice */
    count = body_num_instances(&m);
    probe[0] = es[N - 1];
    probe[1] = make_id(0);
    CHECK(body_create_many(&m, 2, probe, &first) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(body_num_instances(&m) == count && ecs_instance_is_nil(body_lookup(&m, es[N - 1])));
    if (kind == ECS_LOOKUP_DIRECT) {
        probe[0] = es[N - 1];
        probe[1] = es[0];
        CHECK(body_create_many(&m, 2, probe, &first) == ECS_ERROR_ALREADY_EXISTS);
        probe[1] = es[N - 1];
        ecs_error_clear(&m.core.error); /* the code must be this call's, not the last one's */
        CHECK(body_create_many(&m, 2, probe, &first) == ECS_ERROR_ALREADY_EXISTS);
        CHECK(strstr(m.core.error.message, "listed twice") != NULL);
        CHECK(body_num_instances(&m) == count && ecs_instance_is_nil(body_lookup(&m, es[N - 1])));
        for (k = 0; k < body_count(&m); ++k) ok &= (m.entity[k].id & 0x80000000u) == 0u; /* no mark left */
        CHECK(ok == 1u);
    } else { /* the same entity twice: two instances, in order */
        probe[0] = es[N - 1];
        probe[1] = es[N - 1];
        CHECK(body_create_many(&m, 2, probe, &first) == ECS_OK);
        CHECK(body_lookup(&m, es[N - 1]).i == first.i && body_next(&m, first).i == first.i + 1u);
    }
    /* records are copied in, packed in field order (pos: 12 bytes, tag: 4) */
    for (k = 0; k < 3; ++k) {
        v3 p;
        uint32_t tag = 900u + k;
        p.x = (float)k;
        p.y = 2.0f;
        p.z = -1.0f;
        memcpy(records + 16u * k, &p, 12);
        memcpy(records + 16u * k + 12u, &tag, 4);
        probe[k] = es[N - 10 + (int)k];
    }
    CHECK(ecs_manager_record_size(&m.core) == 16u);
    CHECK(ecs_manager_create_many(&m.core, 3, probe, records, &first) == ECS_OK);
    for (k = 0; k < 3; ++k) {
        ecs_instance i = body_lookup(&m, probe[k]);
        ok &= !ecs_instance_is_nil(i) && m.tag[i.i] == 900u + k && m.pos[i.i].x == (float)k && m.pos[i.i].z == -1.0f;
    }
    CHECK(ok == 1u);
    free(es);
    free(out);
    body_free(&m);
    ecs_entity_manager_free(&em);
}

/* Dense: an index reused by a new entity while the old (dead) id still has
   instances. The old id's data goes when the new one gets an instance (one
   id per index in the map), in single creates and batches alike. */
static void test_dense_reuse(void)
{
    ecs_entity_manager em;
    body m;
    ecs_entity a, b = {0}, churn[1100], batch[2];
    ecs_instance first;
    uint32_t k;
    ecs_entity_manager_init(&em);
    CHECK(body_init(&m, ECS_LOOKUP_DENSE) == ECS_OK);
    a = ecs_entity_create(&em);
    body_create(&m, a);
    body_create(&m, a);
    ecs_entity_destroy(&em, a);
    CHECK(ecs_entity_create_many(&em, 1100, churn) == ECS_OK);
    ecs_entity_destroy_many(&em, 1100, churn);
    for (k = 0; k < 2000 && ecs_entity_index(b) != ecs_entity_index(a); ++k) b = ecs_entity_create(&em);
    CHECK(ecs_entity_index(b) == ecs_entity_index(a) && b.id != a.id);
    CHECK(body_lookup(&m, a).i != ECS_INSTANCE_NIL); /* still there, until ... */
    batch[0] = b;
    CHECK(body_create_many(&m, 1, batch, &first) == ECS_OK);
    CHECK(body_num_instances(&m) == 1u && first.i == 0u); /* ... b's instance replaced a's two */
    CHECK(ecs_instance_is_nil(body_lookup(&m, a)) && body_lookup(&m, b).i == 0u);
    /* two ids of one index in a batch: refused, nothing changes */
    batch[0] = churn[5];
    batch[1] = ecs_entity_make(ecs_entity_index(churn[5]), ecs_entity_generation(churn[5]) + 1u);
    CHECK(body_create_many(&m, 2, batch, &first) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(body_num_instances(&m) == 1u && ecs_instance_is_nil(body_lookup(&m, batch[0])));
    body_free(&m);
    ecs_entity_manager_free(&em);
}

/* ---- the destroy log and exact collection ---------------------------------------- */
static void test_log(void)
{
    ecs_entity_manager em;
    ecs_entity_log_cursor c;
    ecs_entity es[3000];
    uint32_t k, ok = 1;
    memset(&c, 0, sizeof c);
    ecs_entity_manager_init(&em);
    CHECK(ecs_entity_log_pending(&em, &c) == ECS_ENTITY_LOG_LOST); /* a new cursor */
    ecs_entity_log_skip_all(&em, &c);
    CHECK(ecs_entity_log_pending(&em, &c) == 0u);
    CHECK(ecs_entity_create_many(&em, 3000, es) == ECS_OK);
    /* the first entity began the manager's life (its stamp): read before it, LOST once */
    CHECK(ecs_entity_log_pending(&em, &c) == ECS_ENTITY_LOG_LOST);
    ecs_entity_log_skip_all(&em, &c);
    for (k = 0; k < 900; ++k) ecs_entity_destroy(&em, es[k * 3u]);
    CHECK(ecs_entity_log_pending(&em, &c) == 900u);
    for (k = 0; k < 900; ++k) ok &= ecs_entity_log_at(&em, c.next + k).id == es[k * 3u].id; /* oldest first */
    CHECK(ok == 1u);
    ecs_entity_log_skip_all(&em, &c);
    CHECK(ecs_entity_log_pending(&em, &c) == 0u);
    /* the ring grows past 1024: the log keeps what the old ring held */
    for (k = 0; k < 3000; ++k)
        if (k % 3u) ecs_entity_destroy(&em, es[k]);
    CHECK(ecs_entity_log_pending(&em, &c) == 2000u);
    for (k = 0; k < 2000; ++k) ok &= ecs_entity_log_at(&em, c.next + k).id == es[k + k / 2u + 1u].id;
    CHECK(ok == 1u);
    /* another manager's cursor is not ours */
    {
        ecs_entity_manager other;
        ecs_entity_manager_init(&other);
        CHECK(ecs_entity_log_pending(&other, &c) == ECS_ENTITY_LOG_LOST);
        ecs_entity_manager_free(&other);
    }
    ecs_entity_manager_free(&em);
}

/* Several managers of every kind read one entity manager's log; every frame
   some entities die, some are born (indices get reused), instances come and
   go; after one collect per manager no dead entity's instance is left and
   every live one is intact. */
static void run_collect_frames(uint32_t deaths_per_frame, uint32_t frames, uint32_t seed, int expect_overflow)
{
    enum { M = 4, LIVE = 2000 };
    static const ecs_lookup_kind kinds[M] = {ECS_LOOKUP_DENSE, ECS_LOOKUP_HASH, ECS_LOOKUP_DIRECT, ECS_LOOKUP_HASH};
    ecs_entity_manager em;
    body ms[M];
    ecs_entity *live = (ecs_entity *)malloc(LIVE * sizeof *live);
    uint32_t frame, k, j, bad = 0, collected_total = 0, overflows = 0;
    ecs_entity_manager_init(&em);
    rng_state = seed;
    for (j = 0; j < M; ++j) CHECK(body_init(&ms[j], kinds[j]) == ECS_OK);
    CHECK(ecs_entity_create_many(&em, LIVE, live) == ECS_OK);
    for (k = 0; k < LIVE; ++k)
        for (j = 0; j < M; ++j)
            if (rnd_below(4) != 0) {
                ecs_instance i = body_create(&ms[j], live[k]);
                ms[j].tag[i.i] = live[k].id;
                if (j == 3 && rnd_below(2)) { /* several */
                    i = body_create(&ms[j], live[k]); /* (may move the arrays: read m.tag after) */
                    ms[j].tag[i.i] = live[k].id;
                }
            }
    for (j = 0; j < M; ++j) body_collect(&ms[j], &em); /* first call: a sweep that sets the cursor */
    for (frame = 0; frame < frames; ++frame) {
        for (k = 0; k < deaths_per_frame; ++k) { /* a random live entity dies and a new one takes its place */
            uint32_t at = rnd_below(LIVE);
            ecs_entity_destroy(&em, live[at]);
            live[at] = ecs_entity_create(&em);
            for (j = 0; j < M; ++j)
                if (rnd_below(3) == 0) {
                    ecs_instance i = body_create(&ms[j], live[at]);
                    ms[j].tag[i.i] = live[at].id;
                }
        }
        overflows += ecs_entity_log_pending(&em, &ms[0].core.log) == ECS_ENTITY_LOG_LOST;
        for (j = 0; j < M; ++j) {
            uint32_t before = body_num_instances(&ms[j]), alive_instances = 0;
            collected_total += body_collect(&ms[j], &em);
            for (k = 0; k < body_count(&ms[j]); ++k) {
                ecs_entity e = ms[j].entity[k];
                if (ecs_entity_is_nil(e)) continue;
                bad += !ecs_entity_alive(&em, e);      /* nothing dead is left */
                bad += ms[j].tag[k] != e.id;           /* live data intact (moved, not mixed up) */
                ++alive_instances;
            }
            bad += alive_instances != body_num_instances(&ms[j]) || body_num_instances(&ms[j]) > before;
        }
    }
    CHECK_MSG(bad == 0u, "deaths %u: %u problems", (unsigned)deaths_per_frame, (unsigned)bad);
    CHECK(collected_total > 0u);
    CHECK_MSG(expect_overflow ? overflows > 0u : overflows == 0u, "%u frames overflowed the log", (unsigned)overflows);
    for (j = 0; j < M; ++j) body_free(&ms[j]);
    free(live);
    ecs_entity_manager_free(&em);
}

/* ---- typed pointers are never stale ---------------------------------------------- */
static void test_typed_pointers(ecs_lookup_kind kind)
{
    ecs_entity_manager em;
    body m;
    ecs_entity es[600];
    ecs_spawn_context ctx;
    ecs_error err;
    uint32_t idx[600], k, ok = 1;
    unsigned char *data = (unsigned char *)malloc(600u * 16u);
    ecs_instance first;
    ecs_entity_manager_init(&em);
    CHECK(body_init(&m, kind) == ECS_OK);
    CHECK(m.entity == m.core.entity && (void *)m.pos == m.core.field[0] && (void *)m.tag == m.core.field[1]);
    CHECK(ecs_entity_create_many(&em, 600, es) == ECS_OK);
    /* spawn through the core grows the arrays: the typed pointers follow */
    for (k = 0; k < 300; ++k) {
        uint32_t tag = 7000u + k;
        v3 p;
        p.x = (float)k, p.y = p.z = 0;
        memcpy(data + 16u * k, &p, 12);
        memcpy(data + 16u * k + 12u, &tag, 4);
        idx[k] = k;
    }
    memset(&ctx, 0, sizeof ctx);
    ctx.entities = &em;
    ctx.entity = es;
    ctx.num_entities = 600;
    ctx.error = &err;
    CHECK(ecs_manager_spawn(&m.core, &ctx, 300, idx, data, 300u * 16u) == ECS_OK);
    for (k = 0; k < 300; ++k) { /* read through the typed pointers (ASan: never freed memory) */
        ecs_instance i = body_lookup(&m, es[k]);
        ok &= m.tag[i.i] == 7000u + k && m.pos[i.i].x == (float)k;
    }
    CHECK(ok == 1u && m.pos == (v3 *)m.core.field[0]);
    /* reserve, create_many and one-at-a-time growth */
    CHECK(body_reserve(&m, 4096) == ECS_OK);
    CHECK(m.pos == (v3 *)m.core.field[0] && m.entity == m.core.entity);
    CHECK(body_create_many(&m, 200, es + 300, &first) == ECS_OK);
    for (k = 0; k < 200; ++k) m.tag[body_lookup(&m, es[300 + k]).i] = 1u;
    CHECK(ecs_manager_reserve(&m.core, 100000) == ECS_OK); /* the core alone */
    for (k = 0; k < 100; ++k) {
        ecs_instance i = body_create(&m, es[500 + k]);
        m.tag[i.i] = 2u;
    }
    for (k = 0; k < 600; ++k) ok &= m.tag[body_lookup(&m, es[k]).i] == (k < 300 ? 7000u + k : k < 500 ? 1u : 2u);
    CHECK(ok == 1u && (void *)m.tag == m.core.field[1]);
    body_free(&m);
    CHECK(m.pos == NULL && m.tag == NULL);
    CHECK(ecs_instance_is_nil(body_lookup(&m, es[0]))); /* a freed manager fails cleanly */
    CHECK(ecs_instance_is_nil(body_create(&m, es[0])));
    free(data);
    ecs_entity_manager_free(&em);
}

/* ---- bad input, every kind: defined results, never a crash ----------------------- */
static void test_bad_input(ecs_lookup_kind kind)
{
    ecs_entity_manager em;
    body m;
    ecs_entity a, b;
    ecs_instance i;
    uint32_t k, ok = 1;
    ecs_entity_manager_init(&em);
    CHECK(body_init(&m, kind) == ECS_OK);
    a = ecs_entity_create(&em);
    b = ecs_entity_create(&em);
    i = body_create(&m, a);
    m.tag[i.i] = 42;
    CHECK(ecs_instance_is_nil(body_create(&m, make_id(0))) && m.core.error.code == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_instance_is_nil(body_create(&m, make_id(0xC0000000u))));
    CHECK(body_destroy(&m, ecs_instance_nil()) == 0 && body_destroy(&m, ecs_instance_make(999999)) == 0);
    CHECK(ecs_instance_is_nil(body_next(&m, ecs_instance_make(0xFFFFFFF0u))));
    CHECK(body_destroy_entity(&m, make_id(0)) == 0u && body_destroy_entity(&m, b) == 0u);
    CHECK(body_destroy_entity(&m, make_id(0xFFFFFFFFu)) == 0u);
    CHECK(ecs_manager_move(&m.core, 0, 0xFFFFFFFFu) == 0 && ecs_manager_move(&m.core, 0xFFFFFFFFu, 0) == 0);
    /* past count but below capacity: no instance there (from: a stale id's chain walk read a NULL next) */
    if (kind != ECS_LOOKUP_DIRECT) { /* (direct: move is refused whatever the indices) */
        CHECK(m.core.count == 1u && m.core.capacity > 1u);
        CHECK(ecs_manager_move(&m.core, 0, 1) == 0 && ecs_manager_move(&m.core, 1, 0) == 0 && m.tag[body_lookup(&m, a).i] == 42u);
    }
    rng_state = 99u + (uint32_t)kind;
    for (k = 0; k < 100000; ++k) { /* forged ids */
        ecs_entity f = make_id(rnd());
        ecs_instance l = body_lookup(&m, f);
        ok &= ecs_instance_is_nil(l) || ecs_entity_key(f) == a.id;
        ok &= body_destroy_entity(&m, make_id(f.id | 1u << 21)) == 0u || ecs_entity_key(f) == a.id;
    }
    CHECK(ok == 1u && m.tag[body_lookup(&m, a).i] == 42u);
    body_free(&m);
    /* a failed init: every call fails cleanly */
    {
        ecs_field_desc badf = {"bad", 4, 3};
        ecs_manager rm;
        CHECK(ecs_manager_init(&rm, &badf, 1, kind) == ECS_ERROR_INVALID_ARGUMENT);
        CHECK(ecs_instance_is_nil(ecs_manager_create(&rm, a)) && rm.error.code == ECS_ERROR_INVALID_ARGUMENT);
        CHECK(ecs_instance_is_nil(ecs_manager_lookup(&rm, a)));
        CHECK(ecs_manager_reserve(&rm, 10) != ECS_OK);
        CHECK(ecs_manager_create_many(&rm, 1, &a, NULL, NULL) != ECS_OK);
        CHECK(ecs_manager_destroy_entity(&rm, a) == 0u && ecs_manager_gc(&rm, &em) == 0u && ecs_manager_collect(&rm, &em) == 0u);
        ecs_manager_free(&rm);
        CHECK(ecs_manager_init(&rm, NULL, 0, (ecs_lookup_kind)3) == ECS_ERROR_INVALID_ARGUMENT);
        CHECK(ecs_instance_is_nil(ecs_manager_create(&rm, a)));
        ecs_manager_free(&rm);
        /* zero fields: a tag component */
        CHECK(ecs_manager_init(&rm, NULL, 0, kind) == ECS_OK);
        CHECK(!ecs_instance_is_nil(ecs_manager_create(&rm, a)) && !ecs_instance_is_nil(ecs_manager_lookup(&rm, a)));
        CHECK(ecs_instance_is_nil(ecs_manager_lookup(&rm, b)) && ecs_manager_record_size(&rm) == 0u);
        ecs_manager_free(&rm);
    }
    ecs_entity_manager_free(&em);
}

int main(void)
{
    uint32_t k;
    test_entity_map(ECS_LOOKUP_DENSE);
    test_entity_map(ECS_LOOKUP_HASH);
    test_direct();
    test_dense_reuse();
    test_log();
    for (k = 0; k < 3; ++k) {
        test_batches(all_kinds[k]);
        test_typed_pointers(all_kinds[k]);
        test_bad_input(all_kinds[k]);
    }
    run_collect_frames(30, 100, 11, 0);  /* a few deaths a frame: read from the log */
    run_collect_frames(600, 100, 12, 0); /* heavy: more deaths than live entities over a few frames */
    run_collect_frames(3000, 20, 13, 1); /* more deaths per frame than the log holds: sweeps */
    return test_report("test_ecs_storage");
}
