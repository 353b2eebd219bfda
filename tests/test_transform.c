/* tests/test_transform.c - ecs_transform.h: matrices (SSE against scalar), links,
   destroy, two worlds, spawn, deferred mode, and a reference model driven by
   random operations (collect among them) on an immediate and a deferred
   manager at once, 2 x 10^5 for each lookup kind (tests/soak.sh: 10^6).
   The 1,000,000-deep chain is in test_transform_chain.c, allocation failures
   in test_transform_oom.c. */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_TRANSFORM_IMPLEMENTATION
#define ECS_TRANSFORM_TEST_COUNTERS
#include "ecs_transform.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tests/test.h"

#define NIL ECS_INSTANCE_NIL
#ifndef TEST_MODEL_OPS /* per run of the model; two runs (tests/soak.sh: 500000) */
#define TEST_MODEL_OPS 100000
#endif

/* ---- helpers ------------------------------------------------------------------ */

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}
static uint32_t rnd_below(uint32_t n) { return (uint32_t)(((uint64_t)rnd() * n) >> 32); }
static float rnd_float(float lo, float hi) { return lo + (hi - lo) * ((float)(rnd() >> 8) / 16777216.0f); }

static ecs_mat4 rnd_transform(void)
{
    ecs_vec3 t, axis, s;
    t.x = rnd_float(-10, 10), t.y = rnd_float(-10, 10), t.z = rnd_float(-10, 10);
    axis.x = rnd_float(-1, 1), axis.y = rnd_float(-1, 1), axis.z = rnd_float(-1, 1);
    s.x = rnd_float(0.8f, 1.25f), s.y = rnd_float(0.8f, 1.25f), s.z = rnd_float(0.8f, 1.25f);
    return ecs_mat4_compose(t, ecs_quat_axis_angle(axis, rnd_float(-3.14159f, 3.14159f)), s);
}

static ecs_mat4 translation(float x, float y, float z)
{
    ecs_vec3 v;
    v.x = x, v.y = y, v.z = z;
    return ecs_mat4_translation(v);
}

static void dmul(double *o, const double *a, const double *b) /* o = a * b, o distinct */
{
    int r, c;
    for (r = 0; r < 4; ++r)
        for (c = 0; c < 4; ++c)
            o[r * 4 + c] = a[r * 4 + 0] * b[0 * 4 + c] + a[r * 4 + 1] * b[1 * 4 + c] + a[r * 4 + 2] * b[2 * 4 + c] +
                           a[r * 4 + 3] * b[3 * 4 + c];
}

/* |a - ref| <= tol * max(1, max |ref|) element-wise */
static int close_d(const float *a, const double *ref, double tol)
{
    double mx = 1.0;
    int k;
    for (k = 0; k < 16; ++k)
        if (fabs(ref[k]) > mx) mx = fabs(ref[k]);
    for (k = 0; k < 16; ++k)
        if (!(fabs((double)a[k] - ref[k]) <= tol * mx)) return 0;
    return 1;
}

static int close_f(const float *a, const float *b, double tol)
{
    double r[16];
    int k;
    for (k = 0; k < 16; ++k) r[k] = b[k];
    return close_d(a, r, tol);
}

/* Checks every link of tm: child lists hold exactly the nodes whose parent is
   that node, prev/next are symmetric, first children have no prev, no cycles,
   every instance's lookup finds it. Returns 1 when all is well. */
static int links_ok(const ecs_transform_manager *tm)
{
    uint32_t n = tm->count, i, ok = 1, listed = 0, nonroots = 0;
    uint8_t *seen = (uint8_t *)calloc(n ? n : 1, 1);
    for (i = 0; i < n && ok; ++i) {
        uint32_t c, prev = NIL, steps = 0, x;
        if (tm->parent[i] != NIL) {
            ++nonroots;
            if (tm->parent[i] >= n) ok = 0;
        }
        for (c = tm->first_child[i]; c != NIL && ok; c = tm->next_sibling[c]) {
            if (c >= n || tm->parent[c] != i || tm->prev_sibling[c] != prev || seen[c] || ++steps > n) ok = 0;
            else seen[c] = 1, prev = c, ++listed;
        }
        if (tm->parent[i] == NIL && (tm->prev_sibling[i] != NIL || tm->next_sibling[i] != NIL)) ok = 0;
        for (x = tm->parent[i], steps = 0; x != NIL && ok; x = x < n ? tm->parent[x] : NIL)
            if (++steps > n || x == i) ok = 0;
        if (ecs_transform_lookup(tm, tm->entity[i]).i != i) ok = 0;
    }
    if (listed != nonroots) ok = 0;
    free(seen);
    return (int)ok;
}

/* ---- matrices ----------------------------------------------------------------------- */

static void test_math(void)
{
    ecs_mat4 a, b, c, d, id = ecs_mat4_identity();
    ecs_vec3 p, q, axis;
    int k, n, exact = 0, within = 0;
    /* row vectors: world = local * parent; translation in m[12..14] */
    a = translation(1, 0, 0);
    b = translation(0, 2, 0);
    ecs_mat4_mul(&c, &a, &b);
    CHECK(c.m[12] == 1.0f && c.m[13] == 2.0f && c.m[14] == 0.0f);
    ecs_mat4_mul(&c, &a, &id);
    CHECK(memcmp(&c, &a, sizeof c) == 0);
    /* 90 degrees about +z takes +x to +y */
    axis.x = 0, axis.y = 0, axis.z = 1;
    a = ecs_mat4_rotation(ecs_quat_axis_angle(axis, 1.5707963f));
    p.x = 1, p.y = 0, p.z = 0;
    q = ecs_mat4_transform_point(&a, p);
    CHECK(fabsf(q.x) < 1e-6f && fabsf(q.y - 1.0f) < 1e-6f && fabsf(q.z) < 1e-6f);
    /* compose = scale, then rotate, then translate */
    {
        ecs_vec3 t, s;
        t.x = 5, t.y = 6, t.z = 7;
        s.x = 2, s.y = 3, s.z = 4;
        a = ecs_mat4_compose(t, ecs_quat_axis_angle(axis, 1.5707963f), s);
        p.x = 1, p.y = 0, p.z = 0; /* scaled to (2,0,0), rotated to (0,2,0), moved to (5,8,7) */
        q = ecs_mat4_transform_point(&a, p);
        CHECK(fabsf(q.x - 5.0f) < 1e-5f && fabsf(q.y - 8.0f) < 1e-5f && fabsf(q.z - 7.0f) < 1e-5f);
        /* same as S * R * T multiplied out */
        d = ecs_mat4_scale(s);
        b = ecs_mat4_rotation(ecs_quat_axis_angle(axis, 1.5707963f));
        ecs_mat4_mul(&c, &d, &b);
        b = ecs_mat4_translation(t);
        ecs_mat4_mul(&c, &c, &b); /* out aliases a */
        CHECK(close_f(c.m, a.m, 1e-6));
    }
    /* inverse of random affine matrices */
    for (n = 0; n < 1000; ++n) {
        a = rnd_transform();
        CHECK(ecs_mat4_inverse_affine(&b, &a) == 1);
        ecs_mat4_mul(&c, &a, &b);
        CHECK(close_f(c.m, id.m, 1e-5));
        ecs_mat4_mul(&c, &b, &a);
        CHECK(close_f(c.m, id.m, 1e-5));
    }
    b = a;
    CHECK(ecs_mat4_inverse_affine(&b, &b) == 1); /* aliasing */
    ecs_mat4_mul(&c, &a, &b);
    CHECK(close_f(c.m, id.m, 1e-5));
    memset(&a, 0, sizeof a);
    a.m[15] = 1;
    CHECK(ecs_mat4_inverse_affine(&b, &a) == 0 && memcmp(&b, &id, sizeof b) == 0);
    /* a zero quaternion is the identity rotation */
    {
        ecs_quat z;
        z.x = z.y = z.z = z.w = 0;
        a = ecs_mat4_rotation(z);
        CHECK(memcmp(&a, &id, sizeof a) == 0);
    }
    /* the SSE path agrees with the scalar reference (same operations, same order) */
    for (n = 0; n < 100000; ++n) {
        float x[16], y[16];
        for (k = 0; k < 16; ++k) x[k] = rnd_float(-100, 100), y[k] = rnd_float(-100, 100);
        memcpy(a.m, x, sizeof x);
        memcpy(b.m, y, sizeof y);
        ecs_mat4_mul_scalar(&c, &a, &b);
#if ECS_TRANSFORM_SSE
        ecs_mat4_mul_sse(&d, &a, &b);
#else
        ecs_mat4_mul(&d, &a, &b);
#endif
        exact += memcmp(&c, &d, sizeof c) == 0;
        within += close_f(d.m, c.m, 1e-6);
        /* against a double-precision product too */
        {
            double da[16], db[16], dc[16];
            for (k = 0; k < 16; ++k) da[k] = x[k], db[k] = y[k];
            dmul(dc, da, db);
            if (n < 1000) CHECK(close_d(c.m, dc, 1e-5));
        }
        if (n % 3 == 0) { /* aliasing out == a and out == b */
            d = a;
            ecs_mat4_mul(&d, &d, &b);
            CHECK(close_f(d.m, c.m, 1e-6));
            d = b;
            ecs_mat4_mul(&d, &a, &d);
            CHECK(close_f(d.m, c.m, 1e-6));
            d = a;
            ecs_mat4_mul_scalar(&d, &d, &b);
            CHECK(memcmp(&d, &c, sizeof d) == 0);
        }
    }
    CHECK_MSG(within == 100000, "SSE and scalar products differ beyond 1e-6 in %d of 100000", 100000 - within);
    printf("test_math: SSE %s, %d of 100000 products bit-identical to scalar\n", ECS_TRANSFORM_SSE ? "on" : "off", exact);
}

/* ---- links, destroy, worlds ---------------------------------------------------------- */

static void test_links_and_destroy(ecs_lookup_kind lookup, ecs_transform_mode mode)
{
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_entity e[6];
    ecs_instance n[6], x;
    ecs_mat4 m, w, before[6];
    uint32_t k;
    int deferred = mode == ECS_TRANSFORM_DEFERRED;
    ecs_entity_manager_init(&em);
    CHECK(ecs_transform_manager_init(&tm, lookup, mode) == ECS_OK);
    for (k = 0; k < 6; ++k) e[k] = ecs_entity_create(&em);
    /* 0 -> 1 -> 2 -> 3, 1 -> 4; 5 alone */
    m = translation(1, 0, 0);
    n[0] = ecs_transform_create(&tm, e[0], &m, ecs_instance_nil());
    n[1] = ecs_transform_create(&tm, e[1], &m, n[0]);
    n[2] = ecs_transform_create(&tm, e[2], &m, n[1]);
    n[3] = ecs_transform_create(&tm, e[3], &m, n[2]);
    n[4] = ecs_transform_create(&tm, e[4], &m, n[1]);
    n[5] = ecs_transform_create(&tm, e[5], NULL, ecs_instance_nil());
    ecs_transform_commit(&tm);
    CHECK(ecs_transform_count(&tm) == 6 && links_ok(&tm));
    CHECK(ecs_transform_world(&tm, ecs_transform_lookup(&tm, e[3]))->m[12] == 4.0f);
    /* one transform per entity */
    x = ecs_transform_create(&tm, e[2], NULL, ecs_instance_nil());
    CHECK(ecs_instance_is_nil(x) && tm.error.code == ECS_ERROR_ALREADY_EXISTS);
    {
        ecs_entity nil = {0};
        x = ecs_transform_create(&tm, nil, NULL, ecs_instance_nil());
        CHECK(ecs_instance_is_nil(x) && tm.error.code == ECS_ERROR_INVALID_ARGUMENT);
        x = ecs_transform_create(&tm, e[5], NULL, ecs_instance_make(77));
        CHECK(ecs_instance_is_nil(x) && tm.error.code == ECS_ERROR_INVALID_ARGUMENT);
    }
    CHECK(ecs_transform_count(&tm) == 6);
    /* self and descendant links are refused, nothing changed */
    for (k = 0; k < 6; ++k) before[k] = *ecs_transform_world(&tm, ecs_transform_lookup(&tm, e[k]));
    for (k = 0; k < 6; ++k) n[k] = ecs_transform_lookup(&tm, e[k]);
    CHECK(ecs_transform_link(&tm, n[1], n[1]) == ECS_ERROR_CYCLE);
    CHECK(ecs_transform_link(&tm, n[0], n[3]) == ECS_ERROR_CYCLE);
    CHECK(ecs_transform_link(&tm, n[1], n[4]) == ECS_ERROR_CYCLE);
    CHECK(ecs_transform_link(&tm, n[1], n[2]) == ECS_ERROR_CYCLE);
    CHECK(tm.error.code == ECS_ERROR_CYCLE && strstr(tm.error.message, "cycle") != NULL);
    CHECK(ecs_transform_link(&tm, n[1], ecs_instance_nil()) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_transform_link(&tm, ecs_instance_make(6), n[1]) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(links_ok(&tm) && tm.num_pending == 0);
    for (k = 0; k < 6; ++k) {
        CHECK(ecs_transform_lookup(&tm, e[k]).i == n[k].i);
        CHECK(memcmp(ecs_transform_world(&tm, n[k]), &before[k], sizeof(ecs_mat4)) == 0);
    }
    CHECK(ecs_transform_parent(&tm, n[1]).i == n[0].i && ecs_transform_parent(&tm, n[2]).i == n[1].i);
    /* a legal relink: 3 under 5 (keeps its local) */
    m = translation(0, 10, 0);
    CHECK(ecs_transform_set_local(&tm, n[5], &m) == ECS_OK);
    CHECK(ecs_transform_link(&tm, n[3], n[5]) == ECS_OK);
    CHECK(ecs_transform_compute_world(&tm, n[3], &w) == ECS_OK && w.m[12] == 1.0f && w.m[13] == 10.0f);
    ecs_transform_commit(&tm);
    for (k = 0; k < 6; ++k) n[k] = ecs_transform_lookup(&tm, e[k]);
    CHECK(ecs_transform_world(&tm, n[3])->m[13] == 10.0f && links_ok(&tm));
    /* unlink keeps the world */
    CHECK(ecs_transform_unlink(&tm, n[3]) == ECS_OK);
    CHECK(ecs_transform_compute_world(&tm, n[3], &w) == ECS_OK && w.m[12] == 1.0f && w.m[13] == 10.0f);
    CHECK(ecs_transform_local(&tm, n[3])->m[13] == 10.0f && ecs_instance_is_nil(ecs_transform_parent(&tm, n[3])));
    CHECK(ecs_transform_unlink(&tm, n[3]) == ECS_OK); /* a root stays a root */
    CHECK(ecs_transform_link(&tm, n[3], n[2]) == ECS_OK);
    ecs_transform_commit(&tm);
    for (k = 0; k < 6; ++k) n[k] = ecs_transform_lookup(&tm, e[k]);
    /* the children of 1 are 2 and 4, newest first; iteration */
    {
        uint32_t kids = 0, sum = 0;
        for (x = ecs_transform_first_child(&tm, n[1]); !ecs_instance_is_nil(x); x = ecs_transform_next_sibling(&tm, x)) {
            ++kids;
            sum += ecs_transform_entity(&tm, x).id;
            if (!ecs_instance_is_nil(ecs_transform_prev_sibling(&tm, x)))
                CHECK(ecs_transform_next_sibling(&tm, ecs_transform_prev_sibling(&tm, x)).i == x.i);
        }
        CHECK(kids == 2 && sum == e[2].id + e[4].id);
        CHECK(ecs_transform_first_child(&tm, n[1]).i == n[4].i);
        /* linking the older child under its own parent again changes nothing */
        CHECK(ecs_transform_link(&tm, n[2], n[1]) == ECS_OK);
        CHECK(ecs_transform_first_child(&tm, n[1]).i == n[4].i && ecs_transform_next_sibling(&tm, n[4]).i == n[2].i);
        CHECK(tm.num_pending == 0 && links_ok(&tm));
    }
    /* destroy a node with children: 2 and 4 become roots at the same place */
    {
        ecs_mat4 w2, w4, w3;
        CHECK(ecs_transform_compute_world(&tm, n[2], &w2) == ECS_OK);
        CHECK(ecs_transform_compute_world(&tm, n[4], &w4) == ECS_OK);
        CHECK(ecs_transform_compute_world(&tm, n[3], &w3) == ECS_OK);
        CHECK(ecs_transform_destroy(&tm, n[1]) == 1);
        CHECK(ecs_transform_count(&tm) == 5 && links_ok(&tm));
        CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tm, e[1])));
        for (k = 0; k < 6; ++k) n[k] = ecs_transform_lookup(&tm, e[k]);
        CHECK(ecs_instance_is_nil(ecs_transform_parent(&tm, n[2])) && ecs_instance_is_nil(ecs_transform_parent(&tm, n[4])));
        CHECK(ecs_transform_compute_world(&tm, n[2], &w) == ECS_OK && memcmp(&w, &w2, sizeof w) == 0);
        CHECK(memcmp(ecs_transform_local(&tm, n[2]), &w2, sizeof w) == 0);
        CHECK(ecs_transform_compute_world(&tm, n[4], &w) == ECS_OK && memcmp(&w, &w4, sizeof w) == 0);
        CHECK(ecs_transform_compute_world(&tm, n[3], &w) == ECS_OK && close_f(w.m, w3.m, 1e-6));
        CHECK(ecs_transform_parent(&tm, n[3]).i == n[2].i);
        if (!deferred) CHECK(memcmp(ecs_transform_world(&tm, n[3]), &w3, sizeof w) == 0);
    }
    CHECK(ecs_transform_destroy(&tm, ecs_instance_make(99)) == 0);
    CHECK(ecs_transform_destroy(&tm, ecs_instance_nil()) == 0);
    /* destroy the last instance, then everything down to the only one */
    CHECK(ecs_transform_destroy(&tm, ecs_instance_make(tm.count - 1)) == 1 && links_ok(&tm));
    while (tm.count > 1) {
        CHECK(ecs_transform_destroy(&tm, ecs_instance_make(0)) == 1);
        CHECK(links_ok(&tm));
    }
    {
        ecs_entity only = tm.entity[0];
        CHECK(ecs_transform_destroy_entity(&tm, only) == 1);
        CHECK(ecs_transform_count(&tm) == 0 && ecs_instance_is_nil(ecs_transform_lookup(&tm, only)));
        CHECK(ecs_transform_destroy_entity(&tm, only) == 0);
        ecs_transform_commit(&tm);
        CHECK(tm.first_dirty == 0);
        /* and the manager works again afterwards */
        x = ecs_transform_create(&tm, only, NULL, ecs_instance_nil());
        CHECK(x.i == 0 && ecs_transform_count(&tm) == 1 && links_ok(&tm));
    }
    /* getters on bad instances */
    CHECK(ecs_transform_world(&tm, ecs_instance_make(5)) == NULL && ecs_transform_local(&tm, ecs_instance_nil()) == NULL);
    CHECK(ecs_instance_is_nil(ecs_transform_first_child(&tm, ecs_instance_make(5))));
    CHECK(ecs_transform_entity(&tm, ecs_instance_make(5)).id == 0);
    CHECK(ecs_transform_compute_world(&tm, ecs_instance_make(5), &w) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_transform_set_local(&tm, ecs_instance_make(5), &m) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_transform_unlink(&tm, ecs_instance_make(5)) == ECS_ERROR_INVALID_ARGUMENT);
    ecs_transform_manager_free(&tm);
    CHECK(tm.count == 0 && tm.mode == mode && tm.map.kind == lookup && ecs_transform_memory(&tm) == 0);
    ecs_entity_manager_free(&em);
}

/* The same entity in two worlds, at different places; destroyed from both
   by the entity manager's destroy callback. Plus gc. */
static void test_two_worlds(void)
{
    ecs_entity_manager em;
    ecs_transform_manager game, inventory;
    ecs_entity pickaxe, player, shelf;
    ecs_instance a, b;
    ecs_mat4 m;
    uint32_t k, collected = 0;
    ecs_entity_manager_init(&em);
    ecs_transform_manager_init(&game, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    ecs_transform_manager_init(&inventory, ECS_LOOKUP_HASH, ECS_TRANSFORM_DEFERRED);
    pickaxe = ecs_entity_create(&em);
    player = ecs_entity_create(&em);
    shelf = ecs_entity_create(&em);
    m = translation(100, 0, 0);
    a = ecs_transform_create(&game, player, &m, ecs_instance_nil());
    m = translation(0, 1, 0);
    a = ecs_transform_create(&game, pickaxe, &m, a); /* in the player's hand */
    m = translation(0, 0, -5);
    b = ecs_transform_create(&inventory, shelf, &m, ecs_instance_nil());
    m = translation(2, 0, 0);
    b = ecs_transform_create(&inventory, pickaxe, &m, b); /* on the shelf */
    ecs_transform_commit(&inventory);
    a = ecs_transform_lookup(&game, pickaxe);
    b = ecs_transform_lookup(&inventory, pickaxe);
    CHECK(!ecs_instance_is_nil(a) && !ecs_instance_is_nil(b));
    CHECK(ecs_transform_world(&game, a)->m[12] == 100.0f && ecs_transform_world(&game, a)->m[13] == 1.0f);
    CHECK(ecs_transform_world(&inventory, b)->m[12] == 2.0f && ecs_transform_world(&inventory, b)->m[14] == -5.0f);
    /* moving it in one world leaves the other alone */
    m = translation(7, 7, 7);
    ecs_transform_set_local(&game, a, &m);
    ecs_transform_commit(&inventory);
    CHECK(ecs_transform_world(&game, a)->m[12] == 107.0f);
    CHECK(ecs_transform_world(&inventory, ecs_transform_lookup(&inventory, pickaxe))->m[12] == 2.0f);
    /* destroy callbacks remove it from both */
    CHECK(ecs_entity_on_destroy(&em, ecs_transform_on_entity_destroy, &game) == ECS_OK);
    CHECK(ecs_entity_on_destroy(&em, ecs_transform_on_entity_destroy, &inventory) == ECS_OK);
    ecs_entity_destroy(&em, pickaxe);
    CHECK(ecs_instance_is_nil(ecs_transform_lookup(&game, pickaxe)));
    CHECK(ecs_instance_is_nil(ecs_transform_lookup(&inventory, pickaxe)));
    CHECK(game.count == 1 && inventory.count == 1 && links_ok(&game) && links_ok(&inventory));
    ecs_transform_manager_free(&game);
    ecs_transform_manager_free(&inventory);
    ecs_entity_manager_free(&em);

    /* gc: half of 1000 entities die; repeated gc collects exactly those */
    {
        ecs_entity_manager em2;
        ecs_transform_manager tm;
        ecs_entity es[1000];
        ecs_entity_manager_init(&em2);
        ecs_transform_manager_init(&tm, ECS_LOOKUP_HASH, ECS_TRANSFORM_IMMEDIATE);
        CHECK(ecs_entity_create_many(&em2, 1000, es) == ECS_OK);
        for (k = 0; k < 1000; ++k) {
            m = rnd_transform();
            ecs_transform_create(&tm, es[k], &m, k ? ecs_transform_lookup(&tm, es[rnd_below(k)]) : ecs_instance_nil());
        }
        CHECK(ecs_transform_gc(&tm, &em2) == 0 && tm.count == 1000);
        for (k = 0; k < 1000; k += 2) ecs_entity_destroy(&em2, es[k]);
        for (k = 0; k < 10000 && tm.count > 500; ++k) collected += ecs_transform_gc(&tm, &em2);
        CHECK(collected == 500 && tm.count == 500 && links_ok(&tm));
        for (k = 0; k < 1000; ++k) CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tm, es[k])) == (k % 2 == 0));
        ecs_transform_manager_free(&tm);
        ecs_entity_manager_free(&em2);
    }
}

/* set_local_many gives the same result as set_local one by one */
static void test_set_local_many(ecs_transform_mode mode)
{
    ecs_entity_manager em;
    ecs_transform_manager a, b;
    ecs_entity es[300];
    ecs_instance ia[400], ib[400];
    ecs_mat4 ms[400];
    uint32_t k, round;
    ecs_entity_manager_init(&em);
    ecs_transform_manager_init(&a, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    ecs_transform_manager_init(&b, ECS_LOOKUP_HASH, mode);
    ecs_entity_create_many(&em, 300, es);
    for (k = 0; k < 300; ++k) { /* a chain of 100, then a random forest */
        ecs_mat4 m = rnd_transform();
        uint32_t p = k == 0 ? NIL : k < 100 ? k - 1 : rnd_below(5) == 0 ? NIL : rnd_below(k);
        ecs_transform_create(&a, es[k], &m, p == NIL ? ecs_instance_nil() : ecs_transform_lookup(&a, es[p]));
        ecs_transform_create(&b, es[k], &m, p == NIL ? ecs_instance_nil() : ecs_transform_lookup(&b, es[p]));
    }
    ecs_transform_commit(&b);
    for (round = 0; round < 50; ++round) {
        uint32_t n = 1 + rnd_below(400);
        for (k = 0; k < n; ++k) {
            uint32_t x = round % 5 == 0 ? (k % 100) : rnd_below(300); /* the whole chain, or random, repeats */
            ms[k] = rnd_transform();
            ia[k] = ecs_transform_lookup(&a, es[x]);
            ib[k] = ecs_transform_lookup(&b, es[x]);
            CHECK(ecs_transform_set_local(&a, ia[k], &ms[k]) == ECS_OK);
        }
        CHECK(ecs_transform_set_local_many(&b, n, ib, ms) == ECS_OK);
        ecs_transform_commit(&b);
        for (k = 0; k < 300; ++k) {
            const ecs_mat4 *wa = ecs_transform_world(&a, ecs_transform_lookup(&a, es[k]));
            const ecs_mat4 *wb = ecs_transform_world(&b, ecs_transform_lookup(&b, es[k]));
            CHECK(close_f(wb->m, wa->m, 1e-5));
        }
    }
    ib[0] = ecs_instance_make(1000);
    CHECK(ecs_transform_set_local_many(&b, 1, ib, ms) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_transform_set_local_many(&b, 1, NULL, ms) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_transform_set_local_many(&b, 0, NULL, NULL) == ECS_OK);
    ecs_transform_manager_free(&a);
    ecs_transform_manager_free(&b);
    ecs_entity_manager_free(&em);
}

/* The O(n) promises, counted: on a chain of n moving nodes, n set_local calls
   compute n(n+1)/2 worlds, one set_local_many computes n; a deferred commit
   moves a clean chain into the dirty range with O(n) swaps. */
static void test_complexity(void)
{
    enum { N = 1000 };
    ecs_entity_manager em;
    ecs_transform_manager tm;
    static ecs_entity es[N];
    static ecs_instance in[N];
    static ecs_mat4 ms[N];
    uint32_t k, f;
    ecs_mat4 m = translation(1, 0, 0);
    ecs_entity_manager_init(&em);
    ecs_transform_manager_init(&tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    ecs_entity_create_many(&em, N, es);
    for (k = 0; k < N; ++k) in[k] = ecs_transform_create(&tm, es[k], &m, k ? in[k - 1] : ecs_instance_nil());
    ecs__tf_count_worlds = 0;
    for (k = 0; k < N; ++k) ecs_transform_set_local(&tm, in[k], &m);
    CHECK(ecs__tf_count_worlds == (unsigned long)N * (N + 1) / 2);
    for (k = 0; k < N; ++k) { /* listed in a scrambled order, some twice */
        uint32_t x = (k * 7919u) % N;
        in[k] = ecs_instance_make(x);
        ms[k] = translation(2, 0, 0);
    }
    in[N - 1] = in[0];
    ecs__tf_count_worlds = 0;
    CHECK(ecs_transform_set_local_many(&tm, N, in, ms) == ECS_OK);
    CHECK_MSG(ecs__tf_count_worlds == N, "set_local_many computed %lu worlds for a chain of %d", ecs__tf_count_worlds, N);
    { /* one node (81) was left out and keeps its local: the leaf is at the sum of the locals */
        float x = 0;
        for (k = 0; k < N; ++k) x += tm.local[k].m[12];
        CHECK(tm.world[N - 1].m[12] == x);
    }
    /* a tree: the changed nodes at the leaves of a deep unchanged chain */
    ecs_transform_manager_free(&tm);
    for (k = 0; k < N; ++k) in[k] = ecs_transform_create(&tm, es[k], &m, k && k < N / 2 ? in[k - 1] : ecs_instance_nil());
    for (k = N / 2; k < N; ++k) ecs_transform_link(&tm, in[k], in[N / 2 - 1]); /* 500 leaves under a 500-deep chain */
    for (k = 0; k < N / 2; ++k) in[k] = ecs_instance_make(N / 2 + k), ms[k] = m;
    ecs__tf_count_worlds = 0;
    CHECK(ecs_transform_set_local_many(&tm, N / 2, in, ms) == ECS_OK);
    CHECK(ecs__tf_count_worlds == N / 2);
    /* the same leaves first, then the chain's root last: one update of everything */
    in[N / 2] = ecs_instance_make(0), ms[N / 2] = m;
    ecs__tf_count_worlds = 0;
    CHECK(ecs_transform_set_local_many(&tm, N / 2 + 1, in, ms) == ECS_OK);
    CHECK_MSG(ecs__tf_count_worlds == N, "set_local_many computed %lu worlds for a tree of %d", ecs__tf_count_worlds, N);
    ecs_transform_manager_free(&tm);
    /* deferred: a clean chain of N moves into the range with O(N) swaps */
    ecs_transform_manager_init(&tm, ECS_LOOKUP_HASH, ECS_TRANSFORM_DEFERRED);
    for (k = 0; k < N; ++k) in[k] = ecs_transform_create(&tm, es[k], &m, k ? in[k - 1] : ecs_instance_nil());
    for (f = 0; f < ECS_TRANSFORM_DEFAULT_IDLE_FRAMES; ++f) ecs_transform_commit(&tm);
    CHECK(tm.first_dirty == N);
    ecs_transform_set_local(&tm, in[0], &m);
    ecs__tf_count_swaps = 0;
    ecs_transform_commit(&tm);
    CHECK(tm.first_dirty == 0 && tm.world[N - 1].m[12] == (float)N);
    CHECK_MSG(ecs__tf_count_swaps <= 2 * N, "commit made %lu swaps for a chain of %d", ecs__tf_count_swaps, N);
    ecs_transform_manager_free(&tm);
    ecs_entity_manager_free(&em);
}

/* reorder: depth-first, so each subtree is a contiguous range that starts at
   its root; the world pass is then one linear sweep */
static int depth_first_ok(const ecs_transform_manager *tm)
{
    uint32_t n = tm->count, i, ok = 1;
    uint32_t *size = (uint32_t *)calloc(n ? n : 1, sizeof *size);
    for (i = n; i-- > 0;) { /* subtree sizes, children after parents */
        size[i] += 1;
        if (tm->parent[i] != NIL) {
            if (tm->parent[i] >= i) ok = 0;
            else size[tm->parent[i]] += size[i];
        }
    }
    for (i = 0; i < n && ok; ++i) { /* the first child follows its parent; a sibling follows the previous subtree */
        uint32_t c = tm->first_child[i];
        if (c != NIL && c != i + 1) ok = 0;
        if (tm->next_sibling[i] != NIL && tm->next_sibling[i] != i + size[i]) ok = 0;
    }
    free(size);
    return (int)ok;
}

static void test_reorder(ecs_lookup_kind lookup, ecs_transform_mode mode)
{
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_entity es[2000];
    ecs_mat4 before[2000];
    uint32_t k;
    ecs_entity_manager_init(&em);
    ecs_transform_manager_init(&tm, lookup, mode);
    ecs_entity_create_many(&em, 2000, es);
    for (k = 0; k < 2000; ++k) ecs_transform_create(&tm, es[k], NULL, ecs_instance_nil());
    for (k = 1; k < 2000; ++k) { /* random forest, links in random order so parents often come later */
        uint32_t c = rnd_below(2000), p = rnd_below(2000);
        ecs_mat4 m = rnd_transform();
        ecs_transform_set_local(&tm, ecs_transform_lookup(&tm, es[c]), &m);
        (void)ecs_transform_link(&tm, ecs_transform_lookup(&tm, es[c]), ecs_transform_lookup(&tm, es[p]));
    }
    ecs_transform_commit(&tm);
    for (k = 0; k < 100; ++k) ecs_transform_destroy_entity(&tm, es[rnd_below(2000)]);
    ecs_transform_commit(&tm);
    for (k = 0; k < 2000; ++k) {
        ecs_instance i = ecs_transform_lookup(&tm, es[k]);
        if (!ecs_instance_is_nil(i)) CHECK(ecs_transform_compute_world(&tm, i, &before[k]) == ECS_OK);
    }
    memset(tm.world, 0, tm.count * sizeof *tm.world); /* the pass must recompute them all */
    if (mode == ECS_TRANSFORM_IMMEDIATE) /* out of order: it notices, and still computes */
        CHECK(ecs_transform_world_pass(&tm) == 0);
    else
        (void)ecs_transform_world_pass(&tm);
    for (k = 0; k < 2000; ++k) {
        ecs_instance i = ecs_transform_lookup(&tm, es[k]);
        if (!ecs_instance_is_nil(i)) CHECK(close_f(ecs_transform_world(&tm, i)->m, before[k].m, 1e-6));
    }
    CHECK(ecs_transform_reorder(&tm) == ECS_OK);
    CHECK(links_ok(&tm) && depth_first_ok(&tm));
    if (mode == ECS_TRANSFORM_DEFERRED) CHECK(tm.first_dirty == tm.count && tm.num_pending == 0);
    for (k = 0; k < 2000; ++k) {
        ecs_instance i = ecs_transform_lookup(&tm, es[k]);
        if (!ecs_instance_is_nil(i)) CHECK(close_f(ecs_transform_world(&tm, i)->m, before[k].m, 1e-6));
    }
    memset(tm.world, 0, tm.count * sizeof *tm.world);
    CHECK(ecs_transform_world_pass(&tm) == 1);
    for (k = 0; k < 2000; ++k) {
        ecs_instance i = ecs_transform_lookup(&tm, es[k]);
        if (!ecs_instance_is_nil(i)) CHECK(close_f(ecs_transform_world(&tm, i)->m, before[k].m, 1e-6));
    }
    ecs_transform_manager_free(&tm);
    CHECK(ecs_transform_reorder(&tm) == ECS_OK); /* empty */
    ecs_entity_manager_free(&em);
}

/* deferred mode: the dirty range, commit, leaving the range */
static void test_deferred(void)
{
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_entity es[100];
    ecs_instance i;
    ecs_mat4 m, w;
    uint32_t k, f;
    ecs_entity_manager_init(&em);
    ecs_transform_manager_init(&tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_DEFERRED);
    tm.idle_frames = 3;
    ecs_entity_create_many(&em, 100, es);
    m = translation(1, 0, 0);
    for (k = 0; k < 100; ++k) /* ten chains of ten */
        ecs_transform_create(&tm, es[k], &m, k % 10 ? ecs_transform_lookup(&tm, es[k - 1]) : ecs_instance_nil());
    CHECK(tm.first_dirty == 0); /* new nodes start dirty */
    for (f = 0; f < 3; ++f) {
        CHECK(tm.first_dirty == 0);
        ecs_transform_commit(&tm);
    }
    CHECK(tm.first_dirty == 100); /* three commits without change: all out */
    for (k = 0; k < 100; ++k) CHECK(ecs_transform_world(&tm, ecs_transform_lookup(&tm, es[k]))->m[12] == (float)(k % 10 + 1));
    /* set_local records; nothing moves, worlds stale until commit */
    i = ecs_transform_lookup(&tm, es[20]); /* root of the third chain */
    m = translation(0, 5, 0);
    CHECK(ecs_transform_set_local(&tm, i, &m) == ECS_OK);
    CHECK(ecs_transform_lookup(&tm, es[20]).i == i.i && tm.num_pending == 1 && tm.first_dirty == 100);
    CHECK(ecs_transform_set_local(&tm, i, &m) == ECS_OK && tm.num_pending == 1); /* once */
    CHECK(ecs_transform_world(&tm, ecs_transform_lookup(&tm, es[29]))->m[13] == 0.0f); /* stale */
    CHECK(ecs_transform_compute_world(&tm, ecs_transform_lookup(&tm, es[29]), &w) == ECS_OK);
    CHECK(w.m[12] == 9.0f && w.m[13] == 5.0f); /* current */
    ecs_transform_commit(&tm);
    CHECK(tm.first_dirty == 90 && tm.num_pending == 0 && links_ok(&tm)); /* the chain moved in */
    for (k = 90; k < 100; ++k) { /* parents first, the chain in order */
        CHECK(tm.parent[k] == (k == 90 ? NIL : k - 1));
        CHECK(tm.entity[k].id == es[20 + k - 90].id);
    }
    CHECK(ecs_transform_world(&tm, ecs_transform_lookup(&tm, es[29]))->m[13] == 5.0f);
    /* a node that keeps moving stays, the rest of its chain with it, while
       another chain that moved once leaves after idle_frames commits */
    m = translation(0, 0, 0);
    CHECK(ecs_transform_set_local(&tm, ecs_transform_lookup(&tm, es[70]), &m) == ECS_OK);
    for (f = 0; f < 10; ++f) {
        m = translation(0, (float)f, 0);
        CHECK(ecs_transform_set_local(&tm, ecs_transform_lookup(&tm, es[20]), &m) == ECS_OK);
        ecs_transform_commit(&tm);
        CHECK_MSG(tm.first_dirty == (f < 2 ? 80u : 90u), "commit %u: first_dirty %u", (unsigned)f, (unsigned)tm.first_dirty);
        CHECK(ecs_transform_world(&tm, ecs_transform_lookup(&tm, es[25]))->m[13] == (float)f);
        for (k = tm.first_dirty; k < tm.count; ++k) CHECK(tm.entity[k].id >= es[20].id && tm.entity[k].id <= es[29].id + (f < 2 ? 50u : 0u));
    }
    for (f = 0; f < 3; ++f) ecs_transform_commit(&tm);
    CHECK(tm.first_dirty == 100);
    /* the middle of a chain moves while its root is dirty: parents before children */
    m = translation(0, 0, 1);
    ecs_transform_set_local(&tm, ecs_transform_lookup(&tm, es[55]), &m);
    ecs_transform_commit(&tm);
    ecs_transform_set_local(&tm, ecs_transform_lookup(&tm, es[50]), &m);
    ecs_transform_link(&tm, ecs_transform_lookup(&tm, es[45]), ecs_transform_lookup(&tm, es[58]));
    ecs_transform_commit(&tm);
    CHECK(links_ok(&tm));
    for (k = 0; k < tm.first_dirty; ++k) CHECK(tm.parent[k] == NIL || tm.parent[k] < tm.first_dirty);
    CHECK(ecs_transform_world(&tm, ecs_transform_lookup(&tm, es[49]))->m[12] == 12.0f);
    CHECK(ecs_transform_world(&tm, ecs_transform_lookup(&tm, es[49]))->m[14] == 2.0f);
    /* immediate-mode commit is a no-op */
    {
        ecs_transform_manager im;
        ecs_transform_manager_init(&im, ECS_LOOKUP_HASH, ECS_TRANSFORM_IMMEDIATE);
        ecs_transform_create(&im, es[0], &m, ecs_instance_nil());
        ecs_transform_commit(&im);
        CHECK(im.first_dirty == im.count && im.count == 1);
        ecs_transform_manager_free(&im);
    }
    ecs_transform_manager_free(&tm);
#ifndef __cplusplus /* an out-of-range enum value is undefined in C++ */
    CHECK(ecs_transform_manager_init(&tm, ECS_LOOKUP_DENSE, (ecs_transform_mode)7) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(tm.mode == ECS_TRANSFORM_IMMEDIATE && tm.map.kind == ECS_LOOKUP_HASH);
    CHECK(ecs_transform_manager_init(&tm, (ecs_lookup_kind)9, ECS_TRANSFORM_IMMEDIATE) == ECS_ERROR_INVALID_ARGUMENT);
#endif
    ecs_entity_manager_free(&em);
}

/* ---- spawn ------------------------------------------------------------------------- */

/* A level: n resource entities, 30% roots, others a random earlier parent;
   every 7th entity has no transform. */
typedef struct level {
    uint32_t n, num;
    uint32_t *parent, *index;
    ecs_mat4 *data;
    ecs_entity *entity;
} level;

static void level_make(level *lv, ecs_entity_manager *em, uint32_t n, int shuffle)
{
    uint32_t k, j;
    lv->n = n;
    lv->parent = (uint32_t *)malloc(n * sizeof *lv->parent);
    lv->index = (uint32_t *)malloc(n * sizeof *lv->index);
    lv->data = (ecs_mat4 *)malloc(n * sizeof *lv->data);
    lv->entity = (ecs_entity *)malloc(n * sizeof *lv->entity);
    for (k = 0; k < n; ++k) lv->parent[k] = k == 0 || rnd_below(10) < 3 ? ECS_SPAWN_ROOT : rnd_below(k);
    for (k = 0, j = 0; k < n; ++k)
        if (k % 7 != 3) lv->index[j] = k, lv->data[j] = rnd_transform(), ++j;
    lv->num = j;
    if (shuffle)
        for (k = j; k > 1; --k) {
            uint32_t r = rnd_below(k), t = lv->index[k - 1];
            ecs_mat4 m = lv->data[k - 1];
            lv->index[k - 1] = lv->index[r], lv->index[r] = t;
            lv->data[k - 1] = lv->data[r], lv->data[r] = m;
        }
    CHECK(ecs_entity_create_many(em, n, lv->entity) == ECS_OK);
}

static void level_free(level *lv)
{
    free(lv->parent), free(lv->index), free(lv->data), free(lv->entity);
}

static void level_context(level *lv, ecs_entity_manager *em, ecs_error *err, ecs_spawn_context *ctx)
{
    ctx->entities = em;
    ctx->entity = lv->entity;
    ctx->parent_index = lv->parent;
    ctx->num_entities = lv->n;
    ctx->error = err;
}

/* Checks the spawned level against a from-scratch computation. */
static void level_check(const level *lv, const ecs_transform_manager *tm)
{
    uint32_t k, j, *slot = (uint32_t *)malloc(lv->n * sizeof *slot);
    double (*ref)[16] = (double (*)[16])malloc(lv->n * sizeof *ref);
    int bad_parent = 0, bad_world = 0;
    for (k = 0; k < lv->n; ++k) slot[k] = NIL;
    for (j = 0; j < lv->num; ++j) slot[lv->index[j]] = j;
    for (k = 0; k < lv->n; ++k) { /* resource order is parent-first */
        uint32_t p = lv->parent[k], j2 = slot[k];
        ecs_instance i = ecs_transform_lookup(tm, lv->entity[k]);
        double l[16];
        int q;
        if (j2 == NIL) {
            CHECK(ecs_instance_is_nil(i));
            continue;
        }
        for (q = 0; q < 16; ++q) l[q] = lv->data[j2].m[q];
        if (p != ECS_SPAWN_ROOT && slot[p] != NIL) {
            dmul(ref[k], l, ref[p]);
            bad_parent += ecs_transform_parent(tm, i).i != ecs_transform_lookup(tm, lv->entity[p]).i;
        } else {
            memcpy(ref[k], l, sizeof l);
            bad_parent += !ecs_instance_is_nil(ecs_transform_parent(tm, i));
        }
        if (!ecs_instance_is_nil(i)) {
            ecs_mat4 w;
            CHECK(ecs_transform_compute_world(tm, i, &w) == ECS_OK);
            bad_world += !close_d(ecs_transform_world(tm, i)->m, ref[k], 1e-5) || !close_d(w.m, ref[k], 1e-5);
        } else {
            ++bad_world;
        }
    }
    CHECK_MSG(bad_parent == 0, "%d wrong parents", bad_parent);
    CHECK_MSG(bad_world == 0, "%d wrong worlds", bad_world);
    free(slot);
    free(ref);
}

static void test_spawn(ecs_lookup_kind lookup, ecs_transform_mode mode, int shuffle)
{
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_spawn_context ctx;
    ecs_error err;
    level lv, lv2;
    ecs_entity extra;
    ecs_mat4 m = translation(3, 3, 3);
    uint32_t before, k, dup;
    ecs_entity_manager_init(&em);
    ecs_transform_manager_init(&tm, lookup, mode);
    extra = ecs_entity_create(&em);
    ecs_transform_create(&tm, extra, &m, ecs_instance_nil()); /* something there before */
    level_make(&lv, &em, 3000, shuffle);
    level_context(&lv, &em, &err, &ctx);
    ecs_error_clear(&err);
    /* bad sizes */
    CHECK(ecs_transform_spawn(&tm, &ctx, lv.num, lv.index, lv.data, lv.num * 64 - 4) == ECS_ERROR_SPAWN_FAILED);
    CHECK(err.code == ECS_ERROR_SPAWN_FAILED && tm.count == 1);
    CHECK(ecs_transform_spawn(&tm, &ctx, 0x04000001u, lv.index, lv.data, 64) == ECS_ERROR_SPAWN_FAILED);
    CHECK(ecs_transform_spawn(&tm, &ctx, 0, lv.index, lv.data, 0) == ECS_OK && tm.count == 1);
    CHECK(ecs_transform_spawn(NULL, &ctx, 1, lv.index, lv.data, 64) == ECS_ERROR_INVALID_ARGUMENT);
    /* an entity listed twice: nothing changes */
    dup = lv.index[lv.num / 2];
    lv.index[lv.num / 2] = lv.index[1];
    CHECK(ecs_transform_spawn(&tm, &ctx, lv.num, lv.index, lv.data, lv.num * 64) == ECS_ERROR_ALREADY_EXISTS);
    CHECK(tm.count == 1 && links_ok(&tm));
    lv.index[lv.num / 2] = dup;
    {
        uint32_t keep = lv.index[5];
        lv.index[5] = lv.n; /* out of range */
        CHECK(ecs_transform_spawn(&tm, &ctx, lv.num, lv.index, lv.data, lv.num * 64) == ECS_ERROR_INVALID_ARGUMENT);
        lv.index[5] = keep;
        CHECK(tm.count == 1);
    }
    { /* a hand-built context whose parents form a cycle: it asserted, or looped in release */
        uint32_t a = lv.index[lv.num - 1], b = lv.index[lv.num - 2], pa = lv.parent[a], pb = lv.parent[b];
        lv.parent[a] = b, lv.parent[b] = a; /* a two-node cycle */
        CHECK(ecs_transform_spawn(&tm, &ctx, lv.num, lv.index, lv.data, lv.num * 64) == ECS_ERROR_INVALID_ARGUMENT);
        CHECK(tm.count == 1 && strstr(err.message, "form a cycle") != NULL);
        lv.parent[b] = b; /* its own parent */
        CHECK(ecs_transform_spawn(&tm, &ctx, lv.num, lv.index, lv.data, lv.num * 64) == ECS_ERROR_INVALID_ARGUMENT);
        CHECK(tm.count == 1 && links_ok(&tm));
        lv.parent[a] = pa, lv.parent[b] = pb;
    }
    /* the real thing */
    CHECK(ecs_transform_spawn(&tm, &ctx, lv.num, lv.index, lv.data, lv.num * 64) == ECS_OK);
    CHECK(tm.count == 1 + lv.num && links_ok(&tm));
    level_check(&lv, &tm);
    CHECK(ecs_transform_world(&tm, ecs_transform_lookup(&tm, extra))->m[12] == 3.0f);
    /* spawning the same entities again fails: they have transforms */
    CHECK(ecs_transform_spawn(&tm, &ctx, lv.num, lv.index, lv.data, lv.num * 64) == ECS_ERROR_ALREADY_EXISTS);
    CHECK(tm.count == 1 + lv.num);
    ecs_transform_commit(&tm);
    /* a second level: the entities the block leaves out (every 7th) get a root
       transform first, so the block's nodes under them link to those (the
       lookup fallback) */
    level_make(&lv2, &em, 500, shuffle);
    for (k = 3; k < 500; k += 7) {
        ecs_mat4 l = rnd_transform();
        CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, lv2.entity[k], &l, ecs_instance_nil())));
    }
    {
        level ref = lv2; /* the block plus those, which are roots */
        uint32_t j;
        ref.index = (uint32_t *)malloc(500 * sizeof *ref.index);
        ref.data = (ecs_mat4 *)malloc(500 * sizeof *ref.data);
        ref.parent = (uint32_t *)malloc(500 * sizeof *ref.parent);
        memcpy(ref.parent, lv2.parent, 500 * sizeof *ref.parent);
        for (j = 0; j < lv2.num; ++j) ref.index[j] = lv2.index[j], ref.data[j] = lv2.data[j];
        for (k = 3; k < 500; k += 7) {
            ref.index[j] = k;
            ref.data[j++] = *ecs_transform_local(&tm, ecs_transform_lookup(&tm, lv2.entity[k]));
            ref.parent[k] = ECS_SPAWN_ROOT;
        }
        ref.num = j;
        level_context(&lv2, &em, &err, &ctx);
        before = tm.count;
        /* first a block that fails at its last instance (its entity already
           has a transform): everything made before it, links to the older
           nodes included, is undone */
        {
            uint32_t last = lv2.index[lv2.num - 1];
            ecs_entity keep = lv2.entity[last];
            lv2.entity[last] = extra;
            CHECK(ecs_transform_spawn(&tm, &ctx, lv2.num, lv2.index, lv2.data, lv2.num * 64) == ECS_ERROR_ALREADY_EXISTS);
            lv2.entity[last] = keep;
        }
        CHECK(tm.count == before && links_ok(&tm));
        for (k = 3; k < 500; k += 7) CHECK(ecs_instance_is_nil(ecs_transform_first_child(&tm, ecs_transform_lookup(&tm, lv2.entity[k]))));
        for (k = 0; k < 500; ++k) CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tm, lv2.entity[k])) == (k % 7 != 3));
        CHECK(ecs_transform_spawn(&tm, &ctx, lv2.num, lv2.index, lv2.data, lv2.num * 64) == ECS_OK);
        CHECK(tm.count == before + lv2.num && links_ok(&tm));
        for (k = 0; k < 500; ++k) { /* nodes whose parent had a transform before are under it */
            uint32_t p = lv2.parent[k];
            if (k % 7 == 3 || p == ECS_SPAWN_ROOT || p % 7 != 3) continue;
            CHECK(ecs_transform_parent(&tm, ecs_transform_lookup(&tm, lv2.entity[k])).i ==
                  ecs_transform_lookup(&tm, lv2.entity[p]).i);
        }
        level_check(&ref, &tm);
        /* unspawn the second level: back to what it was */
        ecs_transform_unspawn(&tm, &ctx, lv2.num, lv2.index, lv2.data, lv2.num * 64);
        CHECK(tm.count == before && links_ok(&tm));
        for (k = 0; k < 500; ++k) CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tm, lv2.entity[k])) == (k % 7 != 3));
        free(ref.index), free(ref.data), free(ref.parent);
    }
    level_context(&lv, &em, &err, &ctx);
    ecs_transform_unspawn(&tm, &ctx, lv.num, lv.index, lv.data, lv.num * 64);
    CHECK(links_ok(&tm));
    for (k = 0; k < lv.n; ++k) CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tm, lv.entity[k])));
    CHECK(!ecs_instance_is_nil(ecs_transform_lookup(&tm, extra)));
    level_free(&lv);
    level_free(&lv2);
    ecs_transform_manager_free(&tm);
    ecs_entity_manager_free(&em);
}

/* ---- bad handles --------------------------------------------------------------------
   ECS_LOOKUP_DIRECT is refused; nil, stale, forged and tagged entities and
   out-of-range instances get their documented results and change nothing;
   a zero-initialised manager works without init. */

static void test_bad_handles(ecs_lookup_kind lookup)
{
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_entity e[5], nil = {0}, forged[4], tagged;
    ecs_instance in[4], bad[3];
    ecs_mat4 m = translation(1, 2, 3), w;
    uint32_t k, b;
    ecs_entity_manager_init(&em);
    CHECK(ecs_entity_create_many(&em, 5, e) == ECS_OK);
    /* direct: refused with a message; tm is a valid empty immediate/hash manager */
    CHECK(ecs_transform_manager_init(&tm, ECS_LOOKUP_DIRECT, ECS_TRANSFORM_DEFERRED) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(tm.error.code == ECS_ERROR_INVALID_ARGUMENT && strstr(tm.error.message, "ECS_LOOKUP_DIRECT") != NULL);
    CHECK(tm.count == 0 && tm.mode == ECS_TRANSFORM_IMMEDIATE && tm.map.kind == ECS_LOOKUP_HASH);
    CHECK(ecs_transform_create(&tm, e[0], &m, ecs_instance_nil()).i == 0 && ecs_transform_lookup(&tm, e[0]).i == 0);
    ecs_transform_manager_free(&tm);

    CHECK(ecs_transform_manager_init(&tm, lookup, ECS_TRANSFORM_IMMEDIATE) == ECS_OK && tm.map.kind == lookup);
    for (k = 0; k < 4; ++k) in[k] = ecs_transform_create(&tm, e[k], &m, k ? in[k - 1] : ecs_instance_nil());
    /* nil */
    CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tm, nil)) && ecs_transform_destroy_entity(&tm, nil) == 0);
    CHECK(ecs_instance_is_nil(ecs_transform_create(&tm, nil, &m, ecs_instance_nil())) &&
          tm.error.code == ECS_ERROR_INVALID_ARGUMENT);
    /* stale: found until collected, then never again */
    CHECK(ecs_entity_destroy(&em, e[3]) == 1);
    CHECK(ecs_transform_lookup(&tm, e[3]).i == in[3].i);
    CHECK(ecs_transform_collect(&tm, &em) == 1 && ecs_transform_count(&tm) == 3);
    CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tm, e[3])) && ecs_transform_destroy_entity(&tm, e[3]) == 0);
    /* forged: a later generation of a live index, an index never handed out,
       the highest index, index 0 with a generation */
    forged[0] = ecs_entity_make(ecs_entity_index(e[1]), ecs_entity_generation(e[1]) + 1u);
    forged[1] = ecs_entity_make(ecs_entity_index(e[4]) + 1u, 0);
    forged[2] = ecs_entity_make(ECS_INDEX_MASK, 3);
    forged[3] = ecs_entity_make(0, 5);
    for (k = 0; k < 4; ++k) {
        CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tm, forged[k])));
        CHECK(ecs_transform_destroy_entity(&tm, forged[k]) == 0);
    }
    CHECK(ecs_instance_is_nil(ecs_transform_create(&tm, forged[3], &m, ecs_instance_nil())));
    /* the top two bits are the user's: masked off, the same entity */
    tagged.id = e[1].id | 0xC0000000u;
    CHECK(ecs_transform_lookup(&tm, tagged).i == in[1].i);
    CHECK(ecs_instance_is_nil(ecs_transform_create(&tm, tagged, &m, ecs_instance_nil())) &&
          tm.error.code == ECS_ERROR_ALREADY_EXISTS);
    CHECK(ecs_transform_count(&tm) == 3 && links_ok(&tm));
    /* out-of-range instances */
    bad[0] = ecs_instance_make(3), bad[1] = ecs_instance_make(1u << 30), bad[2] = ecs_instance_nil();
    for (b = 0; b < 3; ++b) {
        ecs_instance two[2];
        ecs_mat4 ms[2];
        two[0] = in[0], two[1] = bad[b], ms[0] = ms[1] = m;
        CHECK(ecs_transform_world(&tm, bad[b]) == NULL && ecs_transform_local(&tm, bad[b]) == NULL);
        CHECK(ecs_instance_is_nil(ecs_transform_parent(&tm, bad[b])) && ecs_instance_is_nil(ecs_transform_first_child(&tm, bad[b])));
        CHECK(ecs_instance_is_nil(ecs_transform_next_sibling(&tm, bad[b])) &&
              ecs_instance_is_nil(ecs_transform_prev_sibling(&tm, bad[b])));
        CHECK(ecs_transform_entity(&tm, bad[b]).id == 0 && ecs_transform_destroy(&tm, bad[b]) == 0);
        CHECK(ecs_transform_set_local(&tm, bad[b], &m) == ECS_ERROR_INVALID_ARGUMENT);
        CHECK(ecs_transform_set_local_many(&tm, 2, two, ms) == ECS_ERROR_INVALID_ARGUMENT);
        CHECK(ecs_transform_unlink(&tm, bad[b]) == ECS_ERROR_INVALID_ARGUMENT);
        CHECK(ecs_transform_link(&tm, bad[b], in[0]) == ECS_ERROR_INVALID_ARGUMENT);
        CHECK(ecs_transform_link(&tm, in[0], bad[b]) == ECS_ERROR_INVALID_ARGUMENT);
        CHECK(ecs_transform_compute_world(&tm, bad[b], &w) == ECS_ERROR_INVALID_ARGUMENT);
        if (b < 2) CHECK(ecs_instance_is_nil(ecs_transform_create(&tm, e[4], &m, bad[b])));
    }
    CHECK(ecs_transform_count(&tm) == 3 && links_ok(&tm) && ecs_instance_is_nil(ecs_transform_lookup(&tm, e[4])));
    for (k = 0; k < 3; ++k) CHECK(ecs_transform_lookup(&tm, e[k]).i == in[k].i && tm.local[k].m[13] == 2.0f);
    ecs_transform_manager_free(&tm);
    /* zero-initialised: immediate, hash lookup; every call works */
    memset(&tm, 0, sizeof tm);
    CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tm, e[0])) && ecs_transform_destroy_entity(&tm, e[0]) == 0);
    CHECK(ecs_transform_gc(&tm, &em) == 0 && ecs_transform_collect(&tm, &em) == 0 && ecs_transform_gc_all(&tm, &em) == 0);
    CHECK(ecs_transform_memory(&tm) == 0 && ecs_transform_reorder(&tm) == ECS_OK);
    CHECK(ecs_transform_create(&tm, e[0], &m, ecs_instance_nil()).i == 0 && ecs_transform_lookup(&tm, e[0]).i == 0);
    ecs_transform_manager_free(&tm);
    ecs_entity_manager_free(&em);
}

/* ---- index reuse ---------------------------------------------------------------------
   An entity index comes back (with a new generation) once more than
   ECS_MINIMUM_FREE_INDICES wait in the queue. The dense lookup has one slot
   per index: when the new entity gets a transform while the dead one's is
   still there, that one is destroyed first (children become roots keeping
   their world); the hash lookup keeps it until collect. */

typedef struct reuse_case {
    ecs_entity kids[3], keep, old[1100];
    ecs_mat4 kid_world[3];
} reuse_case;

/* old[0] has three children, old[1..4] are roots, keep is a root with old
   entities' indices queued (old all destroyed, not collected). */
static void reuse_setup(reuse_case *rc, ecs_entity_manager *em, ecs_transform_manager *tm)
{
    ecs_mat4 m;
    uint32_t k;
    CHECK(ecs_entity_create_many(em, 3, rc->kids) == ECS_OK && ecs_entity_create_many(em, 1100, rc->old) == ECS_OK);
    rc->keep = ecs_entity_create(em);
    m = rnd_transform();
    (void)ecs_transform_create(tm, rc->old[0], &m, ecs_instance_nil());
    for (k = 0; k < 3; ++k) {
        m = rnd_transform();
        (void)ecs_transform_create(tm, rc->kids[k], &m, ecs_transform_lookup(tm, rc->old[0]));
    }
    for (k = 1; k < 5; ++k) {
        m = translation((float)k, 0, 0);
        (void)ecs_transform_create(tm, rc->old[k], &m, ecs_instance_nil());
    }
    (void)ecs_transform_create(tm, rc->keep, NULL, ecs_instance_nil());
    ecs_transform_commit(tm);
    for (k = 0; k < 3; ++k) CHECK(ecs_transform_compute_world(tm, ecs_transform_lookup(tm, rc->kids[k]), &rc->kid_world[k]) == ECS_OK);
    CHECK(ecs_entity_destroy_many(em, 1100, rc->old) == 1100);
    CHECK(tm->count == 9);
}

static void test_index_reuse(ecs_lookup_kind lookup, ecs_transform_mode mode)
{
    ecs_entity_manager em;
    ecs_transform_manager tm;
    static reuse_case rc;
    ecs_entity f, f2, f3[3];
    ecs_mat4 m = translation(0, 7, 0), w, data[3];
    ecs_spawn_context ctx;
    ecs_error err;
    uint32_t k, parent[3] = {ECS_SPAWN_ROOT, 0, 1}, index[3] = {2, 1, 0}; /* a chain, children first */
    int dense = lookup == ECS_LOOKUP_DENSE;
    ecs_entity_manager_init(&em);
    ecs_transform_manager_init(&tm, lookup, mode);
    reuse_setup(&rc, &em, &tm);
    /* create: f takes old[0]'s index */
    f = ecs_entity_create(&em);
    CHECK(ecs_entity_index(f) == ecs_entity_index(rc.old[0]) && f.id != rc.old[0].id);
    CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, f, &m, ecs_instance_nil())));
    CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tm, rc.old[0])) == dense && tm.count == (dense ? 9u : 10u));
    CHECK(links_ok(&tm));
    for (k = 0; k < 3; ++k) {
        ecs_instance kid = ecs_transform_lookup(&tm, rc.kids[k]);
        CHECK(ecs_instance_is_nil(ecs_transform_parent(&tm, kid)) == dense);
        CHECK(ecs_transform_compute_world(&tm, kid, &w) == ECS_OK && memcmp(&w, &rc.kid_world[k], sizeof w) == 0);
    }
    /* create under the dead entity whose index it takes: dense refuses, nothing changed */
    f2 = ecs_entity_create(&em);
    CHECK(ecs_entity_index(f2) == ecs_entity_index(rc.old[1]));
    k = tm.count;
    if (dense) {
        CHECK(ecs_instance_is_nil(ecs_transform_create(&tm, f2, &m, ecs_transform_lookup(&tm, rc.old[1]))));
        CHECK(tm.error.code == ECS_ERROR_INVALID_ARGUMENT && tm.count == k && !ecs_instance_is_nil(ecs_transform_lookup(&tm, rc.old[1])));
        CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, f2, &m, ecs_transform_lookup(&tm, rc.keep))));
        CHECK(tm.count == k && ecs_instance_is_nil(ecs_transform_lookup(&tm, rc.old[1])));
    } else {
        CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, f2, &m, ecs_transform_lookup(&tm, rc.old[1]))));
        CHECK(tm.count == k + 1u);
    }
    CHECK(links_ok(&tm));
    /* spawn: three entities taking old[2..4]'s indices */
    CHECK(ecs_entity_create_many(&em, 3, f3) == ECS_OK);
    for (k = 0; k < 3; ++k) {
        CHECK(ecs_entity_index(f3[k]) == ecs_entity_index(rc.old[2 + k]));
        data[k] = m;
    }
    ctx.entities = &em, ctx.entity = f3, ctx.parent_index = parent, ctx.num_entities = 3, ctx.error = &err;
    k = tm.count;
    CHECK(ecs_transform_spawn(&tm, &ctx, 3, index, data, 3 * 64) == ECS_OK);
    CHECK(tm.count == (dense ? k : k + 3u) && links_ok(&tm));
    for (k = 0; k < 3; ++k) CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tm, rc.old[2 + k])) == dense);
    CHECK(ecs_transform_compute_world(&tm, ecs_transform_lookup(&tm, f3[2]), &w) == ECS_OK && w.m[13] == 21.0f);
    /* two batch entities of one index (a live one and a stale id): dense refuses */
    if (dense) {
        ecs_entity two[2];
        uint32_t p2[2] = {ECS_SPAWN_ROOT, ECS_SPAWN_ROOT}, i2[2] = {0, 1};
        two[0] = ecs_entity_create(&em), two[1] = ecs_entity_make(ecs_entity_index(two[0]), ecs_entity_generation(two[0]) + 1u);
        ctx.entity = two, ctx.parent_index = p2, ctx.num_entities = 2;
        k = tm.count;
        CHECK(ecs_transform_spawn(&tm, &ctx, 2, i2, data, 2 * 64) == ECS_ERROR_ALREADY_EXISTS && tm.count == k);
        CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tm, two[0])) && links_ok(&tm));
    }
    /* collect: the dead ones go from the hash lookup too; both end the same */
    (void)ecs_transform_collect(&tm, &em);
    CHECK(tm.count == 3u + 1u + 2u + 3u && links_ok(&tm)); /* kids, keep, f and f2, f3 */
    for (k = 0; k < 5; ++k) CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tm, rc.old[k])));
    for (k = 0; k < 3; ++k) {
        CHECK(ecs_transform_compute_world(&tm, ecs_transform_lookup(&tm, rc.kids[k]), &w) == ECS_OK);
        CHECK(memcmp(&w, &rc.kid_world[k], sizeof w) == 0);
    }
    ecs_transform_manager_free(&tm);
    ecs_entity_manager_free(&em);
}

/* ---- a failed spawn leaves the manager as it was ---------------------------------------
   Resource entities 0 P (an older node, with a child Q), 1 A, 2 B under A,
   3 C under B, 4 D under P; the batch lists D, C, B, A (children first), so
   when it stops at A the nodes stored so far point at slots not written
   yet. A takes the index of a dead entity whose transform is not collected
   (dense: the slow path). X has an older transform. Deferred: Q's change is
   pending. A failed spawn must leave the snapshot bytes as they were. */
typedef struct undo_case {
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_entity ent[5], x, old0;
    uint32_t parent[5];
    ecs_mat4 data[4];
    ecs_spawn_context ctx;
    ecs_error err;
    unsigned char before[4096];
    size_t size;
} undo_case;

static void undo_setup(undo_case *u, ecs_lookup_kind lookup, ecs_transform_mode mode)
{
    static ecs_entity old[1100];
    ecs_mat4 m = translation(1, 2, 3);
    ecs_entity q;
    ecs_instance p;
    uint32_t k;
    ecs_entity_manager_init(&u->em);
    ecs_transform_manager_init(&u->tm, lookup, mode);
    CHECK(ecs_entity_create_many(&u->em, 1100, old) == ECS_OK);
    u->old0 = old[0];
    (void)ecs_transform_create(&u->tm, old[0], &m, ecs_instance_nil());
    CHECK(ecs_entity_destroy_many(&u->em, 1100, old) == 1100);
    CHECK(ecs_entity_create_many(&u->em, 5, u->ent) == ECS_OK);
    CHECK(ecs_entity_index(u->ent[0]) == ecs_entity_index(old[0]));
    q = u->ent[0], u->ent[0] = u->ent[1], u->ent[1] = q; /* A takes old[0]'s index */
    q = ecs_entity_create(&u->em);
    u->x = ecs_entity_create(&u->em);
    p = ecs_transform_create(&u->tm, u->ent[0], &m, ecs_instance_nil());
    m = translation(0, 0, 5);
    (void)ecs_transform_create(&u->tm, q, &m, p);
    (void)ecs_transform_create(&u->tm, u->x, NULL, ecs_instance_nil());
    ecs_transform_commit(&u->tm);
    m = translation(0, 0, 6);
    ecs_transform_set_local(&u->tm, ecs_transform_lookup(&u->tm, q), &m);
    u->parent[0] = u->parent[1] = ECS_SPAWN_ROOT, u->parent[2] = 1, u->parent[3] = 2, u->parent[4] = 0;
    for (k = 0; k < 4; ++k) u->data[k] = translation(0, (float)(k + 1), 0);
    memset(&u->err, 0, sizeof u->err);
    u->ctx.entities = &u->em, u->ctx.entity = u->ent, u->ctx.parent_index = u->parent, u->ctx.num_entities = 5;
    u->ctx.error = &u->err;
    u->size = ecs_transform_snapshot_save(&u->tm, u->before, sizeof u->before);
    CHECK(u->size > 0 && u->tm.count == 4u);
}

/* Nothing changed since undo_setup: links and lookup sound, the same bytes. */
static int undo_unchanged(const undo_case *u)
{
    unsigned char now[4096];
    return links_ok(&u->tm) && ecs_transform_snapshot_save(&u->tm, now, sizeof now) == u->size &&
           memcmp(now, u->before, u->size) == 0;
}

static void undo_free(undo_case *u)
{
    ecs_transform_manager_free(&u->tm);
    ecs_entity_manager_free(&u->em);
}

/* A failure at A (last), after D, C and B were stored: before 0.8 the undo
   destroyed them through ecs_transform_destroy, whose deferred world walk
   from C went up through B into A's unwritten slot (ASan: SEGV). Then the
   real batch: dense takes the slow path (its first try stops at A and is
   undone the same way), old[0]'s transform goes, and every world is right. */
static void test_spawn_undo(ecs_lookup_kind lookup, ecs_transform_mode mode)
{
    static const uint32_t index[4] = {4, 3, 2, 1};
    undo_case u;
    ecs_entity keep;
    ecs_mat4 w, want;
    int dense = lookup == ECS_LOOKUP_DENSE;
    undo_setup(&u, lookup, mode);
    keep = u.ent[1];
    u.ent[1] = u.x; /* has a transform */
    CHECK(ecs_transform_spawn(&u.tm, &u.ctx, 4, index, u.data, 4 * 64) == ECS_ERROR_ALREADY_EXISTS);
    CHECK(undo_unchanged(&u));
    u.ent[1] = ecs_entity_make(0, 0); /* nil */
    CHECK(ecs_transform_spawn(&u.tm, &u.ctx, 4, index, u.data, 4 * 64) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(undo_unchanged(&u));
    u.ent[1] = keep;
    CHECK_MSG(ecs_transform_spawn(&u.tm, &u.ctx, 4, index, u.data, 4 * 64) == ECS_OK, "%s", u.err.message);
    CHECK(u.tm.count == (dense ? 7u : 8u) && links_ok(&u.tm));
    CHECK(ecs_instance_is_nil(ecs_transform_lookup(&u.tm, u.old0)) == dense);
    CHECK(ecs_transform_parent(&u.tm, ecs_transform_lookup(&u.tm, u.ent[4])).i == ecs_transform_lookup(&u.tm, u.ent[0]).i);
    CHECK(ecs_transform_parent(&u.tm, ecs_transform_lookup(&u.tm, u.ent[3])).i == ecs_transform_lookup(&u.tm, u.ent[2]).i);
    CHECK(ecs_transform_compute_world(&u.tm, ecs_transform_lookup(&u.tm, u.ent[3]), &w) == ECS_OK);
    want = translation(0, 4 + 3 + 2, 0); /* A, B and C's translations */
    CHECK(memcmp(&w, &want, sizeof w) == 0);
    CHECK(ecs_transform_compute_world(&u.tm, ecs_transform_lookup(&u.tm, u.ent[4]), &w) == ECS_OK);
    want = translation(1, 3, 3);
    CHECK(memcmp(&w, &want, sizeof w) == 0);
    undo_free(&u);
}

/* One transform per entity, also among a batch's parents: a parent without
   an instance in the batch whose entity is a batch entity too is refused
   whichever comes first (before 0.8, found after its node was stored it
   linked the node under itself or into its own batch and returned ECS_OK;
   found before, the node became a root). Dense with A in the batch: the
   slow path's check finds it before old[0]'s transform goes. */
static void test_spawn_listed_twice(ecs_lookup_kind lookup, ecs_transform_mode mode)
{
    static const uint32_t order[5][4] = {{4, 0, 0, 0}, {4, 3, 2, 1}, {2, 4, 0, 0}, {4, 2, 0, 0}, {3, 2, 1, 4}};
    static const uint32_t num[5] = {1, 4, 2, 2, 4}, as[5] = {4, 2, 2, 2, 2};
    undo_case u;
    uint32_t t;
    for (t = 0; t < 5; ++t) {
        undo_setup(&u, lookup, mode);
        u.ent[0] = u.ent[as[t]]; /* D's parent is D (case 0) or B */
        CHECK_MSG(ecs_transform_spawn(&u.tm, &u.ctx, num[t], order[t], u.data, num[t] * 64) == ECS_ERROR_ALREADY_EXISTS,
                  "case %u", (unsigned)t);
        CHECK_MSG(strstr(u.err.message, "(an entity listed twice)") != NULL, "case %u: %s", (unsigned)t, u.err.message);
        CHECK_MSG(undo_unchanged(&u), "case %u", (unsigned)t);
        undo_free(&u);
    }
    { /* the review's case: one entity for two resource entities, the transform only for the second */
        ecs_entity two[2];
        uint32_t parent[2] = {ECS_SPAWN_ROOT, 0}, one = 1;
        undo_setup(&u, lookup, mode);
        two[0] = two[1] = u.ent[4];
        u.ctx.entity = two, u.ctx.parent_index = parent, u.ctx.num_entities = 2;
        CHECK(ecs_transform_spawn(&u.tm, &u.ctx, 1, &one, u.data, 64) == ECS_ERROR_ALREADY_EXISTS && undo_unchanged(&u));
        undo_free(&u);
    }
}

/* ---- collect ---------------------------------------------------------------------------
   Exactly the entities destroyed since the last call lose their transforms;
   children become roots keeping their world; the log path never sweeps (it
   costs O(deaths)); a first call, a lost log and another entity manager
   sweep instead, with the same result; each manager has its own cursor. */

#define COLLECT_N 3000u

/* out[k] = the current world of es[k]'s transform, where it has one */
static void collect_worlds(const ecs_transform_manager *tm, const ecs_entity *es, ecs_mat4 *out)
{
    uint32_t k;
    for (k = 0; k < COLLECT_N; ++k) {
        ecs_instance i = ecs_transform_lookup(tm, es[k]);
        if (!ecs_instance_is_nil(i)) CHECK(ecs_transform_compute_world(tm, i, &out[k]) == ECS_OK);
    }
}

/* every entity in `has` that is alive still has its transform at its world
   before[k]; no other has one; the links hold */
static void collect_expect(const ecs_transform_manager *tm, const ecs_entity_manager *em, const ecs_entity *es,
                           const ecs_mat4 *before, const uint8_t *has)
{
    uint32_t k, bad = 0, live = 0;
    for (k = 0; k < COLLECT_N; ++k) {
        ecs_instance i = ecs_transform_lookup(tm, es[k]);
        ecs_mat4 w;
        if (!has[k] || !ecs_entity_alive(em, es[k])) {
            bad += !ecs_instance_is_nil(i);
            continue;
        }
        ++live;
        bad += ecs_instance_is_nil(i) || ecs_transform_compute_world(tm, i, &w) != ECS_OK || !close_f(w.m, before[k].m, 1e-6);
    }
    CHECK_MSG(bad == 0 && tm->count == live && links_ok(tm), "%u transforms wrong after collect", (unsigned)bad);
}

/* destroys up to n random entities of es; adds the deaths to *dead_a, and
   those of even entities to *dead_b */
static void collect_kill(ecs_entity_manager *em, const ecs_entity *es, uint32_t n, uint32_t *dead_a, uint32_t *dead_b)
{
    uint32_t k;
    for (k = 0; k < n; ++k) {
        uint32_t x = rnd_below(COLLECT_N);
        if (ecs_entity_destroy(em, es[x])) ++*dead_a, *dead_b += x % 2 == 0;
    }
}

static void test_collect(ecs_lookup_kind lookup, ecs_transform_mode mode)
{
    ecs_entity_manager em, other;
    ecs_transform_manager a, b; /* a: every entity; b: the other kind, the even entities */
    static ecs_entity es[COLLECT_N], churn[2048];
    static ecs_mat4 wa[COLLECT_N], wb[COLLECT_N];
    static uint8_t all[COLLECT_N], even[COLLECT_N];
    uint32_t k, dead_a = 0, dead_b = 0, round, got_a, got_b;
    unsigned long sweeps;
    ecs_entity_manager_init(&em);
    ecs_entity_manager_init(&other);
    ecs_transform_manager_init(&a, lookup, mode);
    ecs_transform_manager_init(&b, lookup == ECS_LOOKUP_DENSE ? ECS_LOOKUP_HASH : ECS_LOOKUP_DENSE, mode);
    CHECK(ecs_entity_create_many(&em, COLLECT_N, es) == ECS_OK);
    for (k = 0; k < COLLECT_N; ++k) { /* random forests, parents first */
        ecs_mat4 m = rnd_transform();
        ecs_instance pa = k && rnd_below(10) >= 3 ? ecs_transform_lookup(&a, es[rnd_below(k)]) : ecs_instance_nil();
        ecs_instance pb = k >= 2 && rnd_below(10) >= 3 ? ecs_transform_lookup(&b, es[2 * rnd_below(k / 2)]) : ecs_instance_nil();
        all[k] = 1, even[k] = k % 2 == 0;
        CHECK(!ecs_instance_is_nil(ecs_transform_create(&a, es[k], &m, pa)));
        if (even[k]) CHECK(!ecs_instance_is_nil(ecs_transform_create(&b, es[k], &m, pb)));
    }
    /* first call: no cursor yet, so a sweep; nothing is dead */
    sweeps = ecs__tf_count_sweeps;
    CHECK(ecs_transform_collect(&a, &em) == 0 && ecs_transform_collect(&b, &em) == 0);
    CHECK(ecs__tf_count_sweeps == sweeps + 2 && a.count == COLLECT_N && b.count == COLLECT_N / 2);
    /* rounds of deaths: exactly those, from the log, no sweep */
    for (round = 0; round < 3; ++round) {
        collect_worlds(&a, es, wa);
        collect_worlds(&b, es, wb);
        collect_kill(&em, es, 100, &dead_a, &dead_b);
        sweeps = ecs__tf_count_sweeps;
        got_a = ecs_transform_collect(&a, &em);
        got_b = ecs_transform_collect(&b, &em);
        CHECK(ecs__tf_count_sweeps == sweeps);
        CHECK_MSG(got_a == dead_a && got_b == dead_b, "collected %u and %u of %u and %u", (unsigned)got_a,
                  (unsigned)got_b, (unsigned)dead_a, (unsigned)dead_b);
        collect_expect(&a, &em, es, wa, all);
        collect_expect(&b, &em, es, wb, even);
        CHECK(ecs_transform_collect(&a, &em) == 0 && ecs_transform_collect(&b, &em) == 0 && ecs__tf_count_sweeps == sweeps);
        dead_a = dead_b = 0;
    }
    /* a lost log: after a few deaths, churn (entities without transforms)
       runs more destroys through the ring than it holds */
    collect_worlds(&a, es, wa);
    collect_worlds(&b, es, wb);
    collect_kill(&em, es, 10, &dead_a, &dead_b);
    for (round = 0; round < 64 && ecs_entity_log_pending(&em, &a.log) != ECS_ENTITY_LOG_LOST; ++round) {
        CHECK(ecs_entity_create_many(&em, 2048, churn) == ECS_OK);
        CHECK(ecs_entity_destroy_many(&em, 2048, churn) == 2048);
    }
    CHECK(ecs_entity_log_pending(&em, &a.log) == ECS_ENTITY_LOG_LOST);
    sweeps = ecs__tf_count_sweeps;
    CHECK(ecs_transform_collect(&a, &em) == dead_a && ecs_transform_collect(&b, &em) == dead_b);
    CHECK(ecs__tf_count_sweeps == sweeps + 2);
    collect_expect(&a, &em, es, wa, all);
    collect_expect(&b, &em, es, wb, even);
    /* another entity manager: a sweep against it (where none of these is
       alive); back to em with nothing left: no sweep, the cursor is em's */
    k = b.count;
    CHECK(ecs_transform_collect(&b, &other) == k && b.count == 0 && ecs__tf_count_sweeps == sweeps + 3);
    CHECK(ecs_entity_log_pending(&em, &b.log) == ECS_ENTITY_LOG_LOST);
    CHECK(ecs_transform_collect(&b, &em) == 0 && ecs__tf_count_sweeps == sweeps + 3);
    CHECK(ecs_entity_log_pending(&em, &b.log) == 0);
    /* a against other: every transform goes in one sweep */
    k = a.count;
    CHECK(ecs_transform_collect(&a, &other) == k && a.count == 0 && ecs__tf_count_sweeps == sweeps + 4);
    /* a transform made for an entity already dead is left to gc */
    CHECK(ecs_transform_collect(&a, &em) == 0 && ecs_entity_log_pending(&em, &a.log) == 0);
    for (k = 0; ecs_entity_alive(&em, es[k]); ++k) { /* a dead one */
    }
    CHECK(!ecs_instance_is_nil(ecs_transform_create(&a, es[k], NULL, ecs_instance_nil())));
    for (k = 0; !ecs_entity_alive(&em, es[k]); ++k) { /* a live one */
    }
    CHECK(!ecs_instance_is_nil(ecs_transform_create(&a, es[k], NULL, ecs_instance_nil())));
    CHECK(ecs_transform_collect(&a, &em) == 0 && ecs_transform_gc_all(&a, &em) == 1 && a.count == 1);
    ecs_transform_manager_free(&a);
    ecs_transform_manager_free(&b);
    ecs_entity_manager_free(&em);
    ecs_entity_manager_free(&other);
}

/* ---- the reference model ----------------------------------------------------------
   A plain parent array indexed by entity index, worlds recomputed from scratch
   in double precision. Two managers, one of each lookup kind (one immediate,
   one deferred), get every operation; after each one both must agree with
   the model. A run pairs hash+immediate with dense+deferred, the next
   dense+immediate with hash+deferred. */

#define MAXE (1 << 16)
#define TARGET_LIVE 160

typedef struct mnode {
    int present, dead, parent; /* parent: entity index or -1 */
    ecs_entity e;
    float local[16];
} mnode;

static mnode model[MAXE];
static int live[MAXE], live_pos[MAXE], nlive;
static ecs_entity bare[MAXE]; /* alive entities without a transform */
static int nbare;
static double refw[MAXE][16], reflim[MAXE]; /* reflim: model_check's tolerance for refw */
static unsigned refstamp[MAXE], stamp = 1;
static int refstack[MAXE];

/* max(1, max |ref[k]|): the scale of close_d's tolerance */
static double ref_scale(const double *ref)
{
    double mx = 1.0;
    int k;
    for (k = 0; k < 16; ++k)
        if (fabs(ref[k]) > mx) mx = fabs(ref[k]);
    return mx;
}

static const double *ref_world(int x)
{
    int sp = 0, y = x;
    while (y >= 0 && refstamp[y] != stamp) refstack[sp++] = y, y = model[y].parent;
    while (sp) {
        double l[16];
        int q, p;
        y = refstack[--sp];
        p = model[y].parent;
        for (q = 0; q < 16; ++q) l[q] = model[y].local[q];
        if (p < 0) memcpy(refw[y], l, sizeof l);
        else dmul(refw[y], l, refw[p]);
        reflim[y] = 1e-5 * ref_scale(refw[y]);
        refstamp[y] = stamp;
    }
    return refw[x];
}

static void model_add(int x, ecs_entity e, int parent, const ecs_mat4 *m)
{
    model[x].present = 1, model[x].dead = 0, model[x].parent = parent, model[x].e = e;
    memcpy(model[x].local, m->m, sizeof m->m);
    live_pos[x] = nlive;
    live[nlive++] = x;
}

/* Removes x: its children become roots at their current world. */
static void model_remove(int x)
{
    int k, last;
    ++stamp;
    for (k = 0; k < nlive; ++k) {
        int y = live[k];
        if (model[y].parent == x) {
            const double *w = ref_world(y);
            int q;
            for (q = 0; q < 16; ++q) model[y].local[q] = (float)w[q];
            model[y].parent = -1;
        }
    }
    model[x].present = 0;
    last = live[--nlive];
    live[live_pos[x]] = last;
    live_pos[last] = live_pos[x];
    ++stamp;
}

static int model_is_under(int p, int c) /* p is c or below c */
{
    for (; p >= 0; p = model[p].parent)
        if (p == c) return 1;
    return 0;
}

static unsigned long model_fail;

/* |a - ref| <= lim element-wise */
static int within(const float *a, const double *ref, double lim)
{
    int k;
    for (k = 0; k < 16; ++k)
        if (!(fabs((double)a[k] - ref[k]) <= lim)) return 0;
    return 1;
}

/* Compares a manager with the model: count, lookups, parents, locals, current
   worlds (compute_world), stored worlds where they must be current, links.
   The caller bumps `stamp` once after changing the model (ref_world caches). */
static void model_check(const ecs_transform_manager *tm, int stored_all, const char *what, long op)
{
    int k, bad = 0;
    uint32_t i;
    if (tm->count != (uint32_t)nlive) bad |= 1;
    for (k = 0; k < nlive && !bad; ++k) {
        int x = live[k], p = model[x].parent;
        ecs_instance in = ecs_transform_lookup(tm, model[x].e);
        const double *w;
        double lim;
        ecs_mat4 cw;
        if (ecs_instance_is_nil(in) || tm->entity[in.i].id != model[x].e.id) {
            bad |= 2;
            break;
        }
        if (p < 0 ? tm->parent[in.i] != NIL
                  : tm->parent[in.i] >= tm->count || tm->entity[tm->parent[in.i]].id != model[p].e.id)
            bad |= 4;
        if (memcmp(tm->local[in.i].m, model[x].local, sizeof model[x].local) != 0 &&
            !close_f(tm->local[in.i].m, model[x].local, 1e-5))
            bad |= 8;
        w = ref_world(x);
        lim = reflim[x];
        if (ecs_transform_compute_world(tm, in, &cw) != ECS_OK || !within(cw.m, w, lim)) bad |= 16;
        /* stored worlds: all after a commit (or in immediate mode); clean nodes
           whenever nothing is pending */
        if ((stored_all || (tm->num_pending == 0 && in.i < tm->first_dirty)) &&
            memcmp(tm->world[in.i].m, cw.m, sizeof cw.m) != 0 && !within(tm->world[in.i].m, w, lim))
            bad |= 32;
    }
    if (!links_ok(tm)) bad |= 64;
    if (tm->mode == ECS_TRANSFORM_DEFERRED) { /* a clean node under a dirty one must be pending */
        for (i = 0; i < tm->first_dirty && i < tm->count; ++i)
            if (tm->parent[i] != NIL && tm->parent[i] >= tm->first_dirty && tm->age[i] != 0) bad |= 128;
    } else if (tm->first_dirty != tm->count) {
        bad |= 512;
    }
    CHECK_MSG(bad == 0, "%s after op %ld (%s): mismatch bits 0x%x", tm->mode ? "deferred" : "immediate", op, what, bad);
    if (bad) ++model_fail;
}

/* collect in both managers; afterwards no transform of a dead entity is left
   in either (the model drops its dead nodes too), and the live ones are
   checked by model_check. Counts the collects that read the destroy log
   (and checks those swept nothing) in *logged. */
static uint32_t model_collect(ecs_transform_manager **both, ecs_entity_manager *em, long *logged)
{
    uint32_t collected = 0, i;
    int t, k;
    for (t = 0; t < 2; ++t) {
        int from_log = ecs_entity_log_pending(em, &both[t]->log) != ECS_ENTITY_LOG_LOST;
        unsigned long sweeps = ecs__tf_count_sweeps;
        collected += ecs_transform_collect(both[t], em);
        if (from_log) CHECK(ecs__tf_count_sweeps == sweeps); /* O(deaths): no sweep */
        *logged += from_log;
        CHECK(ecs_entity_log_pending(em, &both[t]->log) == 0);
        for (i = 0; i < both[t]->count; ++i) CHECK(ecs_entity_alive(em, both[t]->entity[i]));
    }
    for (k = 0; k < nlive;) {
        int x = live[k];
        if (model[x].dead) {
            for (t = 0; t < 2; ++t) CHECK(ecs_instance_is_nil(ecs_transform_lookup(both[t], model[x].e)));
            model_remove(x);
        } else {
            ++k;
        }
    }
    return collected;
}

static void model_reset(void)
{
    memset(model, 0, sizeof model);
    nlive = nbare = 0;
    model_fail = 0;
    ++stamp;
}

static void test_model(long ops, ecs_lookup_kind lookup_a, ecs_lookup_kind lookup_b)
{
    ecs_entity_manager em;
    ecs_transform_manager a, b; /* immediate + lookup_a, deferred + lookup_b */
    ecs_transform_manager *both[2];
    ecs_instance *ins[2];
    ecs_mat4 *locals;
    long op, logged = 0;
    int t, k;
    long counts[16];
    uint32_t gc_total = 0, collect_total = 0;
    memset(counts, 0, sizeof counts);
    model_reset();
    ecs_entity_manager_init(&em);
    ecs_transform_manager_init(&a, lookup_a, ECS_TRANSFORM_IMMEDIATE);
    ecs_transform_manager_init(&b, lookup_b, ECS_TRANSFORM_DEFERRED);
    b.idle_frames = 2;
    both[0] = &a, both[1] = &b;
    ins[0] = (ecs_instance *)malloc(64 * sizeof **ins);
    ins[1] = (ecs_instance *)malloc(64 * sizeof **ins);
    locals = (ecs_mat4 *)malloc(64 * sizeof *locals);
    for (op = 0; op < ops && model_fail < 5; ++op) {
        uint32_t r = rnd_below(100);
        const char *what = "";
        int committed = 0;
        if (r < 22 || nlive < 2) { /* create */
            ecs_entity e;
            ecs_mat4 m = rnd_transform();
            int parent = nlive && rnd_below(10) >= 3 ? live[rnd_below((uint32_t)nlive)] : -1, x;
            if (nlive >= TARGET_LIVE) continue;
            if (nbare && rnd_below(4) == 0) e = bare[--nbare];
            else e = ecs_entity_create(&em);
            x = (int)ecs_entity_index(e);
            if (x >= MAXE || model[x].present) { /* model limit; should not happen */
                CHECK(0);
                break;
            }
            for (t = 0; t < 2; ++t) {
                ecs_instance p = parent < 0 ? ecs_instance_nil() : ecs_transform_lookup(both[t], model[parent].e);
                CHECK(!ecs_instance_is_nil(ecs_transform_create(both[t], e, &m, p)));
            }
            model_add(x, e, parent, &m);
            what = "create", ++counts[0];
        } else if (r < 37) { /* link */
            int c = live[rnd_below((uint32_t)nlive)], p = live[rnd_below((uint32_t)nlive)];
            int refuse = model_is_under(p, c);
            for (t = 0; t < 2; ++t) {
                ecs_result res = ecs_transform_link(both[t], ecs_transform_lookup(both[t], model[c].e),
                                                    ecs_transform_lookup(both[t], model[p].e));
                CHECK(res == (refuse ? ECS_ERROR_CYCLE : ECS_OK));
            }
            if (!refuse) model[c].parent = p;
            what = refuse ? "link refused" : "link", ++counts[refuse ? 1 : 2];
        } else if (r < 43) { /* unlink */
            int c = live[rnd_below((uint32_t)nlive)], q;
            const double *w;
            ++stamp;
            w = ref_world(c);
            for (t = 0; t < 2; ++t) CHECK(ecs_transform_unlink(both[t], ecs_transform_lookup(both[t], model[c].e)) == ECS_OK);
            if (model[c].parent >= 0)
                for (q = 0; q < 16; ++q) model[c].local[q] = (float)w[q];
            model[c].parent = -1;
            what = "unlink", ++counts[3];
        } else if (r < 61) { /* set_local */
            int c = live[rnd_below((uint32_t)nlive)];
            ecs_mat4 m = rnd_transform();
            for (t = 0; t < 2; ++t) CHECK(ecs_transform_set_local(both[t], ecs_transform_lookup(both[t], model[c].e), &m) == ECS_OK);
            memcpy(model[c].local, m.m, sizeof m.m);
            what = "set_local", ++counts[4];
        } else if (r < 68) { /* set_local_many: random nodes, or a node and its ancestors */
            uint32_t n = 1 + rnd_below(40), j;
            int chain = rnd_below(2) == 0, c = live[rnd_below((uint32_t)nlive)];
            for (j = 0; j < n; ++j) {
                int x = chain ? c : live[rnd_below((uint32_t)nlive)];
                if (chain) c = model[c].parent >= 0 ? model[c].parent : live[rnd_below((uint32_t)nlive)];
                locals[j] = rnd_transform();
                for (t = 0; t < 2; ++t) ins[t][j] = ecs_transform_lookup(both[t], model[x].e);
                memcpy(model[x].local, locals[j].m, sizeof locals[j].m);
            }
            for (t = 0; t < 2; ++t) CHECK(ecs_transform_set_local_many(both[t], n, ins[t], locals) == ECS_OK);
            what = "set_local_many", ++counts[5];
        } else if (r < 74) { /* destroy a transform; the entity stays */
            int x = live[rnd_below((uint32_t)nlive)];
            for (t = 0; t < 2; ++t) CHECK(ecs_transform_destroy(both[t], ecs_transform_lookup(both[t], model[x].e)) == 1);
            if (!model[x].dead) bare[nbare++] = model[x].e;
            model_remove(x);
            what = "destroy", ++counts[6];
        } else if (r < 79) { /* an entity dies; its transforms wait for gc */
            int x = live[rnd_below((uint32_t)nlive)];
            if (!model[x].dead) {
                ecs_entity_destroy(&em, model[x].e);
                model[x].dead = 1;
            }
            what = "entity dies", ++counts[7];
        } else if (r < 81) { /* gc, then the rest of the dead by hand, so both agree */
            for (t = 0; t < 2; ++t) gc_total += ecs_transform_gc(both[t], &em);
            for (k = 0; k < nlive;) {
                int x = live[k];
                if (model[x].dead) {
                    for (t = 0; t < 2; ++t) (void)ecs_transform_destroy_entity(both[t], model[x].e);
                    model_remove(x);
                } else {
                    ++k;
                }
            }
            what = "gc", ++counts[8];
        } else if (r < 84) { /* exact collection */
            collect_total += model_collect(both, &em, &logged);
            what = "collect", ++counts[12];
        } else if (r < 86) { /* reorder one of them, or both */
            uint32_t which = rnd_below(3);
            for (t = 0; t < 2; ++t)
                if (which == 2 || which == (uint32_t)t) {
                    CHECK(ecs_transform_reorder(both[t]) == ECS_OK);
                    CHECK(depth_first_ok(both[t]));
                }
            committed = which != 0;
            what = "reorder", ++counts[9];
        } else if (r < 88) { /* world pass over wiped worlds: it must compute every one */
            for (t = 0; t < 2; ++t) {
                memset(both[t]->world, 0, both[t]->count * sizeof *both[t]->world);
                (void)ecs_transform_world_pass(both[t]);
            }
            committed = 1;
            what = "world pass", ++counts[10];
        } else { /* commit */
            ecs_transform_commit(&b);
            committed = 1;
            what = "commit", ++counts[11];
        }
        ++stamp;
        model_check(&a, 1, what, op);
        model_check(&b, committed, what, op);
    }
    printf("test_model (%s immediate, %s deferred): %ld ops: create %ld, link %ld (+%ld refused), unlink %ld, "
           "set_local %ld, set_local_many %ld, destroy %ld, deaths %ld, gc %ld (collected %u), collect %ld (%ld from "
           "the log, collected %u), reorder %ld, world pass %ld, commit %ld; %d live\n",
           lookup_a == ECS_LOOKUP_DENSE ? "dense" : "hash", lookup_b == ECS_LOOKUP_DENSE ? "dense" : "hash", op,
           counts[0], counts[2], counts[1], counts[3], counts[4], counts[5], counts[6], counts[7], counts[8],
           (unsigned)gc_total, counts[12], logged, (unsigned)collect_total, counts[9], counts[10], counts[11], nlive);
    CHECK(op == ops);
    /* the interesting cases happened */
    CHECK(counts[1] > ops / 1000 && gc_total > (uint32_t)(ops / 2000) && collect_total > (uint32_t)(ops / 100));
    CHECK(logged > 2 * counts[12] - 10); /* nearly every collect read the log */
    free(ins[0]), free(ins[1]), free(locals);
    ecs_transform_manager_free(&a);
    ecs_transform_manager_free(&b);
    ecs_entity_manager_free(&em);
}

int main(void)
{
    test_math();
    test_links_and_destroy(ECS_LOOKUP_HASH, ECS_TRANSFORM_IMMEDIATE);
    test_links_and_destroy(ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    test_links_and_destroy(ECS_LOOKUP_HASH, ECS_TRANSFORM_DEFERRED);
    test_links_and_destroy(ECS_LOOKUP_DENSE, ECS_TRANSFORM_DEFERRED);
    test_two_worlds();
    test_set_local_many(ECS_TRANSFORM_IMMEDIATE);
    test_set_local_many(ECS_TRANSFORM_DEFERRED);
    test_complexity();
    test_reorder(ECS_LOOKUP_HASH, ECS_TRANSFORM_IMMEDIATE);
    test_reorder(ECS_LOOKUP_DENSE, ECS_TRANSFORM_DEFERRED);
    test_deferred();
    test_spawn(ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE, 0);
    test_spawn(ECS_LOOKUP_HASH, ECS_TRANSFORM_IMMEDIATE, 1);
    test_spawn(ECS_LOOKUP_DENSE, ECS_TRANSFORM_DEFERRED, 1);
    test_spawn(ECS_LOOKUP_HASH, ECS_TRANSFORM_DEFERRED, 0);
    test_bad_handles(ECS_LOOKUP_DENSE);
    test_bad_handles(ECS_LOOKUP_HASH);
    test_index_reuse(ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    test_index_reuse(ECS_LOOKUP_HASH, ECS_TRANSFORM_IMMEDIATE);
    test_index_reuse(ECS_LOOKUP_DENSE, ECS_TRANSFORM_DEFERRED);
    test_index_reuse(ECS_LOOKUP_HASH, ECS_TRANSFORM_DEFERRED);
    test_spawn_undo(ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    test_spawn_undo(ECS_LOOKUP_HASH, ECS_TRANSFORM_IMMEDIATE);
    test_spawn_undo(ECS_LOOKUP_DENSE, ECS_TRANSFORM_DEFERRED);
    test_spawn_undo(ECS_LOOKUP_HASH, ECS_TRANSFORM_DEFERRED);
    test_spawn_listed_twice(ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    test_spawn_listed_twice(ECS_LOOKUP_HASH, ECS_TRANSFORM_DEFERRED);
    test_collect(ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    test_collect(ECS_LOOKUP_HASH, ECS_TRANSFORM_DEFERRED);
    /* each lookup kind gets 2 * TEST_MODEL_OPS operations: TEST_MODEL_OPS in each mode */
    test_model(TEST_MODEL_OPS, ECS_LOOKUP_HASH, ECS_LOOKUP_DENSE);
    test_model(TEST_MODEL_OPS, ECS_LOOKUP_DENSE, ECS_LOOKUP_HASH);
    return test_report("test_transform");
}
