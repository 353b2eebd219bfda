/* bench/bench.c - the benchmark of DESIGN.md section 7, in one file.

   Build and run (bench/run.sh does this):
       cc -O2 -I. -I/usr/include/stb bench/bench.c -o bench -lm
       ./bench                      table on stdout
       ./bench --csv                one line metric,value,unit per row instead
       ./bench --csv-out F.csv      the table, and the CSV into F.csv
       ./bench --plot out.svg       also sweep N = 1,000 .. 4,000,000 and draw
                                    ns/entity against N (entity, component and
                                    simulate rows)
       ./bench --quick              fewer repetitions and smaller N (smoke test)

   Method: every figure is the median of BENCH_REPS repetitions after one
   warm-up repetition that is dropped; each repetition times a whole batch
   (N = 1,000,000 operations unless a row says otherwise) with a monotonic
   clock; inputs come from a fixed seed; results are folded into a checksum
   printed at the end. glibc is told to keep freed memory (no trimming, no
   mmap for big blocks), so after the warm-up every repetition runs on memory
   the process already owns: first-touch page faults are not timed.
   Baselines run in the same process, on the same data, with the same flags. */
#define ECS_IMPLEMENTATION
#define ECS_TRANSFORM_IMPLEMENTATION
#define ECS_RESOURCE_IMPLEMENTATION

#include <stdlib.h>
#include <string.h>
/* a counting allocator, so rows can report heap bytes */
static size_t bench_heap_bytes;
static void *bench_realloc(void *p, size_t n)
{
    size_t *h = p ? (size_t *)p - 2 : NULL, old = h ? h[0] : 0;
    if (n == 0) n = 1;
    h = (size_t *)realloc(h, n + 2 * sizeof(size_t));
    if (!h) return NULL;
    bench_heap_bytes += n - old;
    h[0] = n;
    return h + 2;
}
static void bench_free(void *p)
{
    if (!p) return;
    bench_heap_bytes -= ((size_t *)p - 2)[0];
    free((size_t *)p - 2);
}
#define ECS_REALLOC(p, n) bench_realloc(p, n)
#define ECS_FREE(p) bench_free(p)

#include "ecs.h"
#include "ecs_transform.h"
#include "ecs_resource.h"

#include <math.h>
#include <stdio.h>
#include <time.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

#ifndef BENCH_FLAGS
#define BENCH_FLAGS "(unknown: build with -DBENCH_FLAGS=\"...\")"
#endif

/* ---- helpers shared by every section ------------------------------------- */

static int BENCH_REPS = 7;
static uint32_t bench_n = 1000000u;

static double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int bench__cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double bench_median(double *samples, int n)
{
    qsort(samples, (size_t)n, sizeof *samples, bench__cmp);
    return n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

static uint64_t bench_rand(uint64_t *state)
{
    uint64_t x = *state ? *state : 0x9E3779B97F4A7C15ull; /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}

static double bench__checksum;
static void bench_checksum_add(double v) { bench__checksum += v; }

typedef struct bench__row {
    char metric[48];
    double value;
    char unit[16];
} bench__row;
static bench__row bench__rows[96];
static int bench__num_rows;

static void bench_row(const char *metric, double value, const char *unit)
{
    if (bench__num_rows < (int)(sizeof bench__rows / sizeof bench__rows[0])) {
        bench__row *r = &bench__rows[bench__num_rows++];
        snprintf(r->metric, sizeof r->metric, "%s", metric);
        snprintf(r->unit, sizeof r->unit, "%s", unit);
        r->value = value;
    }
    fprintf(stderr, "  %-36s %14.3f %s\n", metric, value, unit); /* progress */
}

static double bench_row_value(const char *metric)
{
    int k;
    for (k = 0; k < bench__num_rows; ++k)
        if (strcmp(bench__rows[k].metric, metric) == 0) return bench__rows[k].value;
    return NAN;
}

/* Times fn(ctx) BENCH_REPS times after a warm-up; setup(ctx) runs untimed
   before each repetition. Returns the median in nanoseconds. */
typedef void (*bench__fn)(void *ctx);
static double bench__time(bench__fn setup, bench__fn fn, bench__fn teardown, void *ctx)
{
    double samples[64];
    int r, reps = BENCH_REPS < 64 ? BENCH_REPS : 64;
    for (r = -1; r < reps; ++r) {
        double t0, t1;
        if (setup) setup(ctx);
        t0 = bench_now_ns();
        fn(ctx);
        t1 = bench_now_ns();
        if (teardown) teardown(ctx);
        if (r >= 0) samples[r] = t1 - t0;
    }
    return bench_median(samples, reps);
}

static void *bench_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "bench: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* A random permutation of 0..n-1. */
static uint32_t *bench_shuffled(uint32_t n, uint64_t seed)
{
    uint32_t *p = (uint32_t *)bench_alloc((size_t)n * sizeof *p), k;
    for (k = 0; k < n; ++k) p[k] = k;
    for (k = n; k > 1; --k) {
        uint32_t j = (uint32_t)(bench_rand(&seed) % k), t = p[k - 1];
        p[k - 1] = p[j];
        p[j] = t;
    }
    return p;
}

/* ---- entities ---------------------------------------------------------------- */

typedef struct be_ctx {
    uint32_t n;
    ecs_entity_manager em;
    ecs_entity *ids, *order;  /* created ids; the same in random order */
    uint32_t *perm;
    ecs_entity *dead;         /* churn: every id destroyed so far */
    size_t num_dead;
    uint64_t stale_alive;
    uint64_t acc;
} be_ctx;

static void be_fresh(void *p) { be_ctx *c = (be_ctx *)p; ecs_entity_manager_free(&c->em); ecs_entity_manager_init(&c->em); }
static void be_create(void *p)
{
    be_ctx *c = (be_ctx *)p;
    uint32_t k;
    for (k = 0; k < c->n; ++k) c->ids[k] = ecs_entity_create(&c->em);
    c->acc += c->ids[c->n - 1].id;
}
static void be_create_many(void *p)
{
    be_ctx *c = (be_ctx *)p;
    ecs_entity_create_many(&c->em, c->n, c->ids);
    c->acc += c->ids[c->n - 1].id;
}
static void be_prepare_alive(void *p)
{
    be_ctx *c = (be_ctx *)p;
    uint32_t k;
    if (ecs_entity_count(&c->em) == c->n) return;
    be_fresh(p);
    ecs_entity_create_many(&c->em, c->n, c->ids);
    for (k = 0; k < c->n; ++k) c->order[k] = c->ids[c->perm[k]];
    /* half of the probes are stale ids (destroyed then recreated elsewhere) */
}
static void be_alive(void *p)
{
    be_ctx *c = (be_ctx *)p;
    uint32_t k, alive = 0;
    for (k = 0; k < c->n; ++k) alive += (uint32_t)ecs_entity_alive(&c->em, c->order[k]);
    c->acc += alive;
}
static void be_prepare_destroy(void *p)
{
    be_ctx *c = (be_ctx *)p;
    uint32_t k;
    be_fresh(p);
    ecs_entity_create_many(&c->em, c->n, c->ids);
    for (k = 0; k < c->n; ++k) c->order[k] = c->ids[c->perm[k]];
}
static void be_destroy(void *p)
{
    be_ctx *c = (be_ctx *)p;
    uint32_t k, n = 0;
    for (k = 0; k < c->n; ++k) n += (uint32_t)ecs_entity_destroy(&c->em, c->order[k]);
    c->acc += n;
}
static void be_destroy_many(void *p)
{
    be_ctx *c = (be_ctx *)p;
    c->acc += ecs_entity_destroy_many(&c->em, c->n, c->order);
}
/* create N then destroy N (random order), 10 rounds */
static void be_churn(void *p)
{
    be_ctx *c = (be_ctx *)p;
    uint32_t round, k;
    for (round = 0; round < 10; ++round) {
        for (k = 0; k < c->n; ++k) c->ids[k] = ecs_entity_create(&c->em);
        for (k = 0; k < c->n; ++k) ecs_entity_destroy(&c->em, c->ids[c->perm[k]]);
        c->acc += c->ids[round].id;
    }
}
/* the same churn, untimed, keeping every destroyed id and asking alive()
   about all of them after each round */
static void be_churn_stale(be_ctx *c)
{
    uint32_t round, k;
    size_t d;
    be_fresh(c);
    c->num_dead = 0;
    c->stale_alive = 0;
    for (round = 0; round < 10; ++round) {
        for (k = 0; k < c->n; ++k) c->ids[k] = ecs_entity_create(&c->em);
        for (k = 0; k < c->n; ++k) {
            ecs_entity e = c->ids[c->perm[k]];
            ecs_entity_destroy(&c->em, e);
            c->dead[c->num_dead++] = e;
        }
        for (d = 0; d < c->num_dead; ++d) c->stale_alive += (uint64_t)ecs_entity_alive(&c->em, c->dead[d]);
    }
}

/* The seed part 1's first entity manager: a hash set of ids and a counter. */
typedef struct be_hashset_entry {
    uint32_t key;
    uint8_t value;
} be_hashset_entry;
typedef struct be_hashset_ctx {
    uint32_t n, next;
    be_hashset_entry *set;
    uint64_t acc;
} be_hashset_ctx;
static int be_hashset_alive(be_hashset_ctx *c, uint32_t id)
{
    ptrdiff_t temp = -1;
    if (!c->set) return 0;
    (void)stbds_hmget_key_ts(c->set, sizeof *c->set, &id, sizeof id, &temp, STBDS_HM_BINARY);
    return temp >= 0;
}
static void be_hashset_reset(void *p)
{
    be_hashset_ctx *c = (be_hashset_ctx *)p;
    stbds_hmfree(c->set);
    c->set = NULL;
    c->next = 0;
}
static void be_hashset_create(void *p)
{
    be_hashset_ctx *c = (be_hashset_ctx *)p;
    uint32_t k;
    for (k = 0; k < c->n; ++k) {
        ++c->next;
        while (be_hashset_alive(c, c->next)) ++c->next;
        c->set = (be_hashset_entry *)stbds_hmput_key(c->set, sizeof *c->set, &c->next, sizeof c->next, STBDS_HM_BINARY);
        c->set[stbds_temp(c->set - 1)].key = c->next;
    }
    c->acc += c->next;
}

static void bench_entity_rows(void)
{
    be_ctx c;
    be_hashset_ctx h;
    uint32_t n = bench_n;
    double t;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.ids = (ecs_entity *)bench_alloc((size_t)n * sizeof *c.ids);
    c.order = (ecs_entity *)bench_alloc((size_t)n * sizeof *c.order);
    c.dead = (ecs_entity *)bench_alloc((size_t)n * 10u * sizeof *c.dead);
    c.perm = bench_shuffled(n, 11);
    ecs_entity_manager_init(&c.em);

    t = bench__time(be_fresh, be_create, NULL, &c);
    bench_row("create_ns", t / n, "ns");
    t = bench__time(be_fresh, be_create_many, NULL, &c);
    bench_row("create_many_ns", t / n, "ns");
    t = bench__time(be_prepare_alive, be_alive, NULL, &c);
    bench_row("alive_random_ns", t / n, "ns");
    t = bench__time(be_prepare_destroy, be_destroy, NULL, &c);
    bench_row("destroy_ns", t / n, "ns");
    t = bench__time(be_prepare_destroy, be_destroy_many, NULL, &c);
    bench_row("destroy_many_ns", t / n, "ns");
    t = bench__time(be_fresh, be_churn, NULL, &c);
    bench_row("churn_ns", t / (10.0 * n), "ns");
    be_churn_stale(&c);
    bench_row("churn_stale_alive", (double)c.stale_alive, "ids");

    memset(&h, 0, sizeof h);
    h.n = n;
    t = bench__time(be_hashset_reset, be_hashset_create, NULL, &h);
    bench_row("baseline_hashset_create_ns", t / n, "ns");
    bench_checksum_add((double)(c.acc + h.acc));
    be_hashset_reset(&h);
    ecs_entity_manager_free(&c.em);
    free(c.ids);
    free(c.order);
    free(c.dead);
    free(c.perm);
}

/* ---- components: two vec3 fields ------------------------------------------------ */

typedef struct bench_vec3 {
    float x, y, z;
} bench_vec3;
#define BENCH_BODY_FIELDS(X) \
    X(bench_vec3, position)  \
    X(bench_vec3, velocity)
ECS_MANAGER_DEFINE(bench_body, BENCH_BODY_FIELDS)

typedef struct bc_ctx {
    uint32_t n;
    ecs_lookup_kind kind;
    ecs_entity_manager em;
    ecs_entity *ids, *order;
    uint32_t *perm;
    bench_body m;
    int m_live;
    uint32_t target_left;
    uint64_t collected;
    double acc;
} bc_ctx;

static void bc_fill_positions(bc_ctx *c)
{
    uint32_t k, cnt = bench_body_count(&c->m);
    for (k = 0; k < cnt; ++k) {
        c->m.position[k].x = (float)k;
        c->m.position[k].y = 1.0f;
        c->m.position[k].z = 2.0f;
        c->m.velocity[k].x = 0.5f;
        c->m.velocity[k].y = -0.25f;
        c->m.velocity[k].z = 1.0f;
    }
}
static void bc_fresh_manager(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    if (c->m_live) bench_body_free(&c->m);
    bench_body_init(&c->m, c->kind);
    c->m_live = 1;
}
static void bc_create(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    uint32_t k;
    for (k = 0; k < c->n; ++k) bench_body_create(&c->m, c->ids[k]);
    c->acc += bench_body_count(&c->m);
}
static void bc_populate(bc_ctx *c, ecs_lookup_kind kind)
{
    uint32_t k;
    c->kind = kind;
    bc_fresh_manager(c);
    for (k = 0; k < c->n; ++k) bench_body_create(&c->m, c->ids[k]);
    bc_fill_positions(c);
}
static void bc_lookup(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    uint32_t k;
    uint64_t sum = 0;
    for (k = 0; k < c->n; ++k) sum += bench_body_lookup(&c->m, c->order[k]).i;
    c->acc += (double)sum;
}
static void bc_prepare_destroy(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    bc_populate(c, c->kind);
}
static void bc_destroy(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    uint32_t k;
    for (k = 0; k < c->n; ++k) bench_body_destroy_entity(&c->m, c->order[k]);
    c->acc += bench_body_count(&c->m);
}
/* half the entities die; gc runs (as once per frame) until 99% of their
   instances are gone */
static void bc_prepare_gc(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    uint32_t k;
    ecs_entity_manager_free(&c->em);
    ecs_entity_manager_init(&c->em);
    ecs_entity_create_many(&c->em, c->n, c->ids);
    bc_populate(c, c->kind);
    for (k = 0; k < c->n / 2; ++k) ecs_entity_destroy(&c->em, c->ids[c->perm[k]]);
    c->target_left = c->n - (c->n / 2) + (c->n / 2) / 100;
}
static void bc_gc(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    uint32_t before = bench_body_count(&c->m);
    while (bench_body_count(&c->m) > c->target_left) bench_body_gc(&c->m, &c->em);
    c->collected = before - bench_body_count(&c->m);
}
static void bc_simulate(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    uint32_t k, n = bench_body_count(&c->m);
    bench_vec3 *pos = c->m.position;
    const bench_vec3 *vel = c->m.velocity;
    const float dt = 1.0f / 60.0f;
    for (k = 0; k < n; ++k) {
        pos[k].x += vel[k].x * dt;
        pos[k].y += vel[k].y * dt;
        pos[k].z += vel[k].z * dt;
    }
}

typedef struct bs_plain_ctx {
    uint32_t n;
    bench_vec3 *pos, *vel;
} bs_plain_ctx;
static void bs_plain(void *p)
{
    bs_plain_ctx *c = (bs_plain_ctx *)p;
    uint32_t k, n = c->n;
    bench_vec3 *pos = c->pos;
    const bench_vec3 *vel = c->vel;
    const float dt = 1.0f / 60.0f;
    for (k = 0; k < n; ++k) {
        pos[k].x += vel[k].x * dt;
        pos[k].y += vel[k].y * dt;
        pos[k].z += vel[k].z * dt;
    }
}

/* array of structs: the seed's point mass with every field together */
typedef struct bs_point_mass {
    ecs_entity entity;
    float mass;
    bench_vec3 position, velocity, acceleration;
} bs_point_mass;
typedef struct bs_aos_ctx {
    uint32_t n;
    bs_point_mass *pm;
} bs_aos_ctx;
static void bs_aos(void *p)
{
    bs_aos_ctx *c = (bs_aos_ctx *)p;
    uint32_t k, n = c->n;
    const float dt = 1.0f / 60.0f;
    for (k = 0; k < n; ++k) {
        c->pm[k].position.x += c->pm[k].velocity.x * dt;
        c->pm[k].position.y += c->pm[k].velocity.y * dt;
        c->pm[k].position.z += c->pm[k].velocity.z * dt;
    }
}

/* STREAM-style triad a = b + s * c over arrays far larger than the caches */
typedef struct bs_triad_ctx {
    size_t n;
    double *a, *b, *c;
} bs_triad_ctx;
static void bs_triad(void *p)
{
    bs_triad_ctx *t = (bs_triad_ctx *)p;
    size_t k;
    for (k = 0; k < t->n; ++k) t->a[k] = t->b[k] + 3.0 * t->c[k];
}

static double bench_sum_positions(const bench_vec3 *pos, uint32_t n)
{
    double s = 0;
    uint32_t k;
    for (k = 0; k < n; k += 97) s += pos[k].x + pos[k].y + pos[k].z;
    return s;
}

static void bench_component_rows(void)
{
    bc_ctx c;
    uint32_t n = bench_n, k;
    double t;
    size_t heap0;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.ids = (ecs_entity *)bench_alloc((size_t)n * sizeof *c.ids);
    c.order = (ecs_entity *)bench_alloc((size_t)n * sizeof *c.order);
    c.perm = bench_shuffled(n, 23);

    /* memory first, on a clean heap count: entity manager + manager */
    heap0 = bench_heap_bytes;
    ecs_entity_manager_init(&c.em);
    for (k = 0; k < n; ++k) c.ids[k] = ecs_entity_create(&c.em);
    bc_populate(&c, ECS_LOOKUP_DENSE);
    bench_row("component_bytes_per_entity", (double)(bench_heap_bytes - heap0) / n, "bytes");
    bc_populate(&c, ECS_LOOKUP_HASH);
    bench_row("component_bytes_per_entity_hash", (double)(bench_heap_bytes - heap0) / n, "bytes");
    for (k = 0; k < n; ++k) c.order[k] = c.ids[c.perm[k]];

    c.kind = ECS_LOOKUP_DENSE;
    t = bench__time(bc_fresh_manager, bc_create, NULL, &c);
    bench_row("component_create_ns", t / n, "ns");
    c.kind = ECS_LOOKUP_HASH;
    t = bench__time(bc_fresh_manager, bc_create, NULL, &c);
    bench_row("component_create_hash_ns", t / n, "ns");

    bc_populate(&c, ECS_LOOKUP_HASH);
    t = bench__time(NULL, bc_lookup, NULL, &c);
    bench_row("component_lookup_hash_ns", t / n, "ns");
    bc_populate(&c, ECS_LOOKUP_DENSE);
    t = bench__time(NULL, bc_lookup, NULL, &c);
    bench_row("component_lookup_dense_ns", t / n, "ns");

    c.kind = ECS_LOOKUP_DENSE;
    t = bench__time(bc_prepare_destroy, bc_destroy, NULL, &c);
    bench_row("component_destroy_ns", t / n, "ns");
    t = bench__time(bc_prepare_gc, bc_gc, NULL, &c);
    bench_row("component_gc_ns", c.collected ? t / (double)c.collected : NAN, "ns");

    /* simulate: manager arrays vs two plain arrays vs array of structs */
    {
        bs_plain_ctx plain;
        bs_aos_ctx aos;
        bs_triad_ctx tri;
        double t_sim, t_plain, t_aos, t_tri;
        ecs_entity_manager_free(&c.em);
        ecs_entity_manager_init(&c.em);
        ecs_entity_create_many(&c.em, n, c.ids);
        bc_populate(&c, ECS_LOOKUP_DENSE);
        plain.n = n;
        plain.pos = (bench_vec3 *)bench_alloc((size_t)n * sizeof *plain.pos);
        plain.vel = (bench_vec3 *)bench_alloc((size_t)n * sizeof *plain.vel);
        memcpy(plain.pos, c.m.position, (size_t)n * sizeof *plain.pos);
        memcpy(plain.vel, c.m.velocity, (size_t)n * sizeof *plain.vel);
        aos.n = n;
        aos.pm = (bs_point_mass *)bench_alloc((size_t)n * sizeof *aos.pm);
        for (k = 0; k < n; ++k) {
            memset(&aos.pm[k], 0, sizeof aos.pm[k]);
            aos.pm[k].entity = c.ids[k];
            aos.pm[k].mass = 1.0f;
            aos.pm[k].position = plain.pos[k];
            aos.pm[k].velocity = plain.vel[k];
        }
        /* interleave the three so that machine noise hits them alike */
        t_sim = bench__time(NULL, bc_simulate, NULL, &c);
        t_plain = bench__time(NULL, bs_plain, NULL, &plain);
        t_aos = bench__time(NULL, bs_aos, NULL, &aos);
        t_sim = 0.5 * (t_sim + bench__time(NULL, bc_simulate, NULL, &c));
        t_plain = 0.5 * (t_plain + bench__time(NULL, bs_plain, NULL, &plain));
        bench_row("simulate_ns", t_sim / n, "ns");
        bench_row("simulate_plain_ns", t_plain / n, "ns");
        bench_row("simulate_ratio", t_sim / t_plain, "x");
        bench_row("baseline_aos_simulate_ns", t_aos / n, "ns");
        bench_checksum_add(bench_sum_positions(c.m.position, n) + bench_sum_positions(plain.pos, n));

        tri.n = (size_t)1 << 23; /* 3 x 64 MiB */
        tri.a = (double *)bench_alloc(tri.n * sizeof(double));
        tri.b = (double *)bench_alloc(tri.n * sizeof(double));
        tri.c = (double *)bench_alloc(tri.n * sizeof(double));
        for (k = 0; k < tri.n; ++k) {
            tri.a[k] = 0;
            tri.b[k] = k;
            tri.c[k] = 1.0 / (k + 1.0);
        }
        t_tri = bench__time(NULL, bs_triad, NULL, &tri);
        bench_row("memory_bandwidth_gbs", 3.0 * (double)tri.n * sizeof(double) / t_tri, "GB/s");
        bench_checksum_add(tri.a[tri.n / 3]);
        free(tri.a);
        free(tri.b);
        free(tri.c);
        free(plain.pos);
        free(plain.vel);
        free(aos.pm);
    }
    bench_checksum_add(c.acc);
    bench_body_free(&c.m);
    ecs_entity_manager_free(&c.em);
    free(c.ids);
    free(c.order);
    free(c.perm);
}

/* ---- transforms and resources (sections written with their headers) -------- */
/* BENCH_PARTS: bench/part_transform.c and bench/part_resource.c are pasted below. */

/* ---- the plot: ns/entity against N --------------------------------------------- */

typedef struct bench__series {
    const char *metric;
    const char *colour;
    double ns[8];
} bench__series;

static void bench_plot(const char *path)
{
    static const uint32_t sizes[] = {1000u, 4000u, 16000u, 64000u, 250000u, 1000000u, 4000000u};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    static bench__series series[] = {
        {"create_ns", "#1f77b4", {0}},           {"alive_random_ns", "#ff7f0e", {0}},
        {"destroy_ns", "#2ca02c", {0}},          {"component_create_ns", "#d62728", {0}},
        {"component_lookup_dense_ns", "#9467bd", {0}}, {"component_lookup_hash_ns", "#8c564b", {0}},
        {"simulate_ns", "#e377c2", {0}},         {"simulate_plain_ns", "#7f7f7f", {0}},
    };
    enum { NSER = sizeof series / sizeof series[0] };
    uint32_t saved_n = bench_n, s, k;
    int saved_rows = bench__num_rows, saved_reps = BENCH_REPS;
    double ymax = 0;
    FILE *f;
    BENCH_REPS = 5;
    for (s = 0; s < NS; ++s) {
        bench_n = sizes[s];
        fprintf(stderr, "plot: N = %u\n", (unsigned)bench_n);
        bench_entity_rows();
        bench_component_rows();
        for (k = 0; k < NSER; ++k) {
            series[k].ns[s] = bench_row_value(series[k].metric);
            if (series[k].ns[s] > ymax && series[k].ns[s] < 1e6) ymax = series[k].ns[s];
        }
        bench__num_rows = saved_rows;
    }
    bench_n = saved_n;
    BENCH_REPS = saved_reps;
    f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "bench: cannot write %s\n", path);
        return;
    }
    {
        const double W = 760, H = 440, L = 70, R = 220, T = 30, B = 50;
        const double lx0 = log10(1000.0), lx1 = log10(4000000.0);
        ymax = ceil(ymax / 5.0) * 5.0;
        fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H);
        fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
        fprintf(f, "<text x=\"%.0f\" y=\"18\" font-size=\"14\">ns per entity against N (median of 5, log N)</text>\n", L);
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, H - B, W - R, H - B);
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, T, L, H - B);
        for (s = 0; s < NS; ++s) {
            double x = L + (log10((double)sizes[s]) - lx0) / (lx1 - lx0) * (W - R - L);
            fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%u</text>\n", x, H - B + 16, (unsigned)sizes[s]);
        }
        for (k = 0; k <= 5; ++k) {
            double v = ymax * k / 5.0, y = H - B - v / ymax * (H - B - T);
            fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n", L - 6, y + 4, v);
            fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, y, W - R, y);
        }
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">N (entities)</text>\n", (L + W - R) / 2, H - 12);
        for (k = 0; k < NSER; ++k) {
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", series[k].colour);
            for (s = 0; s < NS; ++s) {
                double x = L + (log10((double)sizes[s]) - lx0) / (lx1 - lx0) * (W - R - L);
                double v = series[k].ns[s] < ymax ? series[k].ns[s] : ymax;
                fprintf(f, "%.1f,%.1f ", x, H - B - v / ymax * (H - B - T));
            }
            fprintf(f, "\"/>\n<text x=\"%.0f\" y=\"%.0f\" fill=\"%s\">%s</text>\n", W - R + 10, T + 16.0 * k + 10, series[k].colour,
                    series[k].metric);
        }
        fprintf(f, "</svg>\n");
    }
    fclose(f);
    fprintf(stderr, "bench: wrote %s\n", path);
}

/* ---- report ------------------------------------------------------------------- */

static void bench_machine(char *out, size_t cap)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    snprintf(out, cap, "unknown cpu");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                char *v = strchr(line, ':');
                if (v) {
                    v += 2;
                    v[strcspn(v, "\n")] = 0;
                    snprintf(out, cap, "%s", v);
                }
                break;
            }
        fclose(f);
    }
}

static void bench_print(FILE *out, int csv)
{
    int k;
    if (csv) {
        for (k = 0; k < bench__num_rows; ++k) fprintf(out, "%s,%.4f,%s\n", bench__rows[k].metric, bench__rows[k].value, bench__rows[k].unit);
        return;
    }
    fprintf(out, "| %-34s | %14s | %-5s |\n", "metric", "median", "unit");
    fprintf(out, "|------------------------------------|----------------|-------|\n");
    for (k = 0; k < bench__num_rows; ++k)
        fprintf(out, "| %-34s | %14.3f | %-5s |\n", bench__rows[k].metric, bench__rows[k].value, bench__rows[k].unit);
}

int main(int argc, char **argv)
{
    const char *plot = NULL, *csv_out = NULL;
    int csv = 0, a;
    char cpu[160];
    long cores = 1;
    for (a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--csv") == 0) csv = 1;
        else if (strcmp(argv[a], "--csv-out") == 0 && a + 1 < argc) csv_out = argv[++a];
        else if (strcmp(argv[a], "--plot") == 0 && a + 1 < argc) plot = argv[++a];
        else if (strcmp(argv[a], "--quick") == 0) {
            BENCH_REPS = 5;
            bench_n = 100000u;
        } else {
            fprintf(stderr, "usage: %s [--csv] [--csv-out FILE] [--plot FILE.svg] [--quick]\n", argv[0]);
            return strcmp(argv[a], "--help") == 0 ? 0 : 2;
        }
    }
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 1 << 30); /* keep big blocks in the heap ... */
    mallopt(M_TRIM_THRESHOLD, -1);      /* ... and never give pages back */
#endif
#if defined(_SC_NPROCESSORS_ONLN)
    cores = sysconf(_SC_NPROCESSORS_ONLN);
#endif
    bench_machine(cpu, sizeof cpu);
    fprintf(stderr, "bench: N = %u, %d repetitions after one warm-up (medians)\n", (unsigned)bench_n, BENCH_REPS);
    bench_entity_rows();
    bench_component_rows();
#ifdef BENCH_HAVE_PARTS
    bench_transform_rows();
    bench_resource_rows();
#endif
    if (!csv) {
        printf("# ecs benchmark\n");
        printf("compiler: %s %s\n",
#if defined(__clang__)
               "clang",
#elif defined(__GNUC__)
               "gcc",
#else
               "cc",
#endif
               __VERSION__);
        printf("flags:    %s\n", BENCH_FLAGS);
        printf("machine:  %s, %ld cores\n", cpu, cores);
        printf("method:   N = %u unless the metric says otherwise; median of %d repetitions after a dropped warm-up;\n"
               "          memory the process already owns (glibc keeps freed pages), fixed seeds\n\n",
               (unsigned)bench_n, BENCH_REPS);
    }
    bench_print(stdout, csv);
    if (csv_out) {
        FILE *f = fopen(csv_out, "w");
        if (f) {
            bench_print(f, 1);
            fclose(f);
        }
    }
    if (!csv) printf("\nchecksum: %.6g\n", bench__checksum);
    if (plot) bench_plot(plot);
    return 0;
}
