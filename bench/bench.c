/* bench/bench.c - the benchmark (README, Benchmark: rows and targets), in one file.

   Build and run (bench/run.sh does this):
       cc -O2 -I. -I/usr/include/stb bench/bench.c -o bench -lm -lpthread
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
#if !defined(_POSIX_C_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L /* clock_gettime, sysconf under -std=c99 */
#define _DEFAULT_SOURCE         /* the deps rows: directory entry types (d_type), as levelc */
#ifndef _GNU_SOURCE /* g++ defines it */
#define _GNU_SOURCE             /* and syncfs (levelc_deps.h: a rename flushes once) */
#endif
#endif
#define ECS_IMPLEMENTATION
#define ECS_TRANSFORM_IMPLEMENTATION
#define ECS_RESOURCE_IMPLEMENTATION
#define ECS_SNAPSHOT_IMPLEMENTATION
#define ECS_CONSOLE_IMPLEMENTATION

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
#include "ecs_snapshot.h" /* after ecs_resource.h */
#include "ecs_console.h"  /* the console rows */
#include "examples/jobs_pthreads.h" /* the threads rows' pool */
#include "tests/transform_shapes.h"   /* Bevy's hierarchy shapes */
#include "examples/levelc_deps.h"     /* the dependency checker's rows: levelc's own code */

/* stb_ds, for the baselines only (the headers keep their own containers):
   short names off, its implementation compiled here, its warnings muted. */
#define STBDS_NO_SHORT_NAMES
#define STB_DS_IMPLEMENTATION
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wcast-qual"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#include "stb_ds.h"
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <math.h>
#include <stdio.h>
#include <time.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#include <pthread.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#define BENCH_SOCKETS 1
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
static bench__row bench__rows[192];
static int bench__num_rows;
static int bench__quiet; /* the plot's sweep: no progress lines */

static void bench_row(const char *metric, double value, const char *unit)
{
    if (bench__num_rows < (int)(sizeof bench__rows / sizeof bench__rows[0])) {
        bench__row *r = &bench__rows[bench__num_rows++];
        snprintf(r->metric, sizeof r->metric, "%s", metric);
        snprintf(r->unit, sizeof r->unit, "%s", unit);
        r->value = value;
    }
    if (!bench__quiet) fprintf(stderr, "  %-36s %14.3f %s\n", metric, value, unit); /* progress */
}

static double bench_row_value(const char *metric)
{
    int k;
    for (k = bench__num_rows; k-- > 0;) /* the newest row of that name */
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
    int alive_ready;          /* be_prepare_alive's state is in place */
    uint64_t acc;
} be_ctx;

static void be_fresh(void *p)
{
    be_ctx *c = (be_ctx *)p;
    ecs_entity_manager_free(&c->em);
    ecs_entity_manager_init(&c->em);
    c->alive_ready = 0;
}
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
/* N entities, then half of them (random) destroyed and as many created
   again: the probes are the N first ids in random order, half of them stale */
static void be_prepare_alive(void *p)
{
    be_ctx *c = (be_ctx *)p;
    uint32_t k, half = c->n / 2;
    if (c->alive_ready) return;
    be_fresh(p);
    ecs_entity_create_many(&c->em, c->n, c->ids);
    for (k = 0; k < c->n; ++k) c->order[k] = c->ids[c->perm[k]];
    for (k = 0; k < half; ++k) ecs_entity_destroy(&c->em, c->order[k]);
    for (k = 0; k < half; ++k) ecs_entity_create(&c->em);
    for (k = 0; k < c->n; ++k) c->order[k] = c->ids[c->perm[c->n - 1u - k]]; /* reshuffle: dead and alive mixed */
    c->alive_ready = 1;
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
/* the same, destroying in creation order (the friendliest order) */
static void be_churn_in_order(void *p)
{
    be_ctx *c = (be_ctx *)p;
    uint32_t round, k;
    for (round = 0; round < 10; ++round) {
        for (k = 0; k < c->n; ++k) c->ids[k] = ecs_entity_create(&c->em);
        for (k = 0; k < c->n; ++k) ecs_entity_destroy(&c->em, c->ids[k]);
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
    t = bench__time(be_fresh, be_churn_in_order, NULL, &c);
    bench_row("churn_creation_order_ns", t / (10.0 * n), "ns");
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
    ecs_entity *ids, *order;     /* ids[k]: entity k; order: the same in random order */
    uint32_t *perm;
    ecs_instance *found;         /* lookup_many's output */
    bench_vec3 *plain_pos, *plain_vel; /* the plain-array limits */
    bench_body m;
    int m_live;
    uint32_t target_left;
    uint64_t collected;
    double acc;
} bc_ctx;

static void bc_write_values(bench_body *m, uint32_t i, uint32_t k)
{
    m->position[i].x = (float)k;
    m->position[i].y = 1.0f;
    m->position[i].z = 2.0f;
    m->velocity[i].x = 0.5f;
    m->velocity[i].y = -0.25f;
    m->velocity[i].z = 1.0f;
}
static void bc_fresh_manager(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    if (c->m_live) bench_body_free(&c->m);
    bench_body_init(&c->m, c->kind);
    c->m_live = 1;
}
/* one at a time: create, then write the two fields (as a game adds Pos+Vel) */
static void bc_create(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    uint32_t k;
    for (k = 0; k < c->n; ++k) bc_write_values(&c->m, bench_body_create(&c->m, c->ids[k]).i, k);
    c->acc += bench_body_count(&c->m);
}
/* the typed bulk add: one call for N entities, then their values */
static void bc_create_many(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    ecs_instance first;
    uint32_t k;
    if (bench_body_create_many(&c->m, c->n, c->ids, &first) != ECS_OK) {
        fprintf(stderr, "bench: create_many failed: %s\n", c->m.core.error.message);
        exit(1);
    }
    for (k = 0; k < c->n; ++k) bc_write_values(&c->m, first.i + k, k);
    c->acc += bench_body_count(&c->m);
}
/* its limit: the same stores into plain arrays */
static void bc_fill_plain(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    uint32_t k;
    bench_vec3 *pos = c->plain_pos, *vel = c->plain_vel;
    for (k = 0; k < c->n; ++k) {
        pos[k].x = (float)k;
        pos[k].y = 1.0f;
        pos[k].z = 2.0f;
        vel[k].x = 0.5f;
        vel[k].y = -0.25f;
        vel[k].z = 1.0f;
    }
    c->acc += pos[c->n / 2].x;
}
static void bc_populate(bc_ctx *c, ecs_lookup_kind kind)
{
    uint32_t k;
    c->kind = kind;
    bc_fresh_manager(c);
    for (k = 0; k < c->n; ++k) bc_write_values(&c->m, bench_body_create(&c->m, c->ids[k]).i, k);
}
/* random gets: entity -> instance -> position, as a game reads another
   entity's component; each kind with its own way in */
static void bc_gather_plain(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    uint32_t k;
    const bench_vec3 *pos = c->plain_pos;
    float sum = 0;
    for (k = 0; k < c->n; ++k) {
        const bench_vec3 *v = &pos[c->perm[k]];
        sum += v->x + v->y + v->z;
    }
    c->acc += sum;
}
static void bc_get_direct(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    uint32_t k;
    float sum = 0;
    for (k = 0; k < c->n; ++k) {
        const bench_vec3 *v = &c->m.position[bench_body_slot(&c->m, c->order[k]).i];
        sum += v->x + v->y + v->z;
    }
    c->acc += sum;
}
static void bc_get_checked(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    uint32_t k;
    float sum = 0;
    for (k = 0; k < c->n; ++k) {
        ecs_instance i = bench_body_lookup(&c->m, c->order[k]);
        if (!ecs_instance_is_nil(i)) {
            const bench_vec3 *v = &c->m.position[i.i];
            sum += v->x + v->y + v->z;
        }
    }
    c->acc += sum;
}
static void bc_get_many(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    uint32_t k;
    float sum = 0;
    bench_body_lookup_many(&c->m, c->n, c->order, c->found);
    for (k = 0; k < c->n; ++k)
        if (!ecs_instance_is_nil(c->found[k])) {
            const bench_vec3 *v = &c->m.position[c->found[k].i];
            sum += v->x + v->y + v->z;
        }
    c->acc += sum;
}
static void bc_prepare_remove(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    bc_populate(c, c->kind);
}
static void bc_remove(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    uint32_t k;
    for (k = 0; k < c->n; ++k) bench_body_destroy_entity(&c->m, c->order[k]);
    c->acc += bench_body_count(&c->m);
}
/* fresh entities and a populated manager whose collect cursor is current;
   then 10% of the entities die (random order) */
static void bc_prepare_collect(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    uint32_t k;
    ecs_entity_manager_free(&c->em);
    ecs_entity_manager_init(&c->em);
    ecs_entity_create_many(&c->em, c->n, c->ids);
    bc_populate(c, ECS_LOOKUP_DENSE);
    bench_body_collect(&c->m, &c->em); /* the first call sweeps and sets the cursor */
    for (k = 0; k < c->n / 10; ++k) ecs_entity_destroy(&c->em, c->ids[c->perm[k]]);
}
static void bc_collect(void *p)
{
    bc_ctx *c = (bc_ctx *)p;
    c->collected = bench_body_collect(&c->m, &c->em);
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

/* stb_ds's hash map in the same role: entity id -> instance, then the read */
typedef struct bc_stb_entry {
    uint32_t key;
    uint32_t value;
} bc_stb_entry;
typedef struct bc_stb_ctx {
    bc_ctx *c;
    bc_stb_entry *map;
} bc_stb_ctx;
static void bc_stb_get(void *p)
{
    bc_stb_ctx *s = (bc_stb_ctx *)p;
    bc_ctx *c = s->c;
    uint32_t k;
    float sum = 0;
    for (k = 0; k < c->n; ++k) {
        ptrdiff_t at = -1;
        (void)stbds_hmget_key_ts(s->map, sizeof *s->map, &c->order[k].id, sizeof c->order[k].id, &at, STBDS_HM_BINARY);
        if (at >= 0) {
            const bench_vec3 *v = &c->m.position[s->map[at].value];
            sum += v->x + v->y + v->z;
        }
    }
    c->acc += sum;
}
static double bc_stb_row(bc_ctx *c)
{
    bc_stb_ctx s;
    uint32_t k;
    double t;
    s.c = c;
    s.map = NULL;
    for (k = 0; k < c->n; ++k) {
        uint32_t key = c->m.entity[k].id;
        s.map = (bc_stb_entry *)stbds_hmput_key(s.map, sizeof *s.map, &key, sizeof key, STBDS_HM_BINARY);
        s.map[stbds_temp(s.map - 1)].key = key;
        s.map[stbds_temp(s.map - 1)].value = k;
    }
    t = bench__time(NULL, bc_stb_get, NULL, &s);
    stbds_hmfree(s.map);
    return t;
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
    double t, t_gather;
    size_t heap0;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.ids = (ecs_entity *)bench_alloc((size_t)n * sizeof *c.ids);
    c.order = (ecs_entity *)bench_alloc((size_t)n * sizeof *c.order);
    c.found = (ecs_instance *)bench_alloc((size_t)n * sizeof *c.found);
    c.plain_pos = (bench_vec3 *)bench_alloc((size_t)n * sizeof *c.plain_pos);
    c.plain_vel = (bench_vec3 *)bench_alloc((size_t)n * sizeof *c.plain_vel);
    c.perm = bench_shuffled(n, 23);

    /* memory first, on a clean heap count: entity manager + manager */
    {
        static const ecs_lookup_kind kinds[3] = {ECS_LOOKUP_DENSE, ECS_LOOKUP_HASH, ECS_LOOKUP_DIRECT};
        static const char *const rows[3] = {"component_bytes_per_entity", "component_bytes_per_entity_hash",
                                            "component_bytes_per_entity_direct"};
        for (k = 0; k < 3; ++k) {
            uint32_t j;
            if (c.m_live) bench_body_free(&c.m);
            c.m_live = 0;
            ecs_entity_manager_free(&c.em);
            heap0 = bench_heap_bytes;
            ecs_entity_manager_init(&c.em);
            for (j = 0; j < n; ++j) c.ids[j] = ecs_entity_create(&c.em);
            bc_populate(&c, kinds[k]);
            bench_row(rows[k], (double)(bench_heap_bytes - heap0) / n, "bytes");
        }
    }
    for (k = 0; k < n; ++k) c.order[k] = c.ids[c.perm[k]];

    c.kind = ECS_LOOKUP_DENSE;
    t = bench__time(bc_fresh_manager, bc_create, NULL, &c);
    bench_row("component_create_ns", t / n, "ns");
    c.kind = ECS_LOOKUP_HASH;
    t = bench__time(bc_fresh_manager, bc_create, NULL, &c);
    bench_row("component_create_hash_ns", t / n, "ns");
    c.kind = ECS_LOOKUP_DENSE;
    t = bench__time(bc_fresh_manager, bc_create_many, NULL, &c);
    bench_row("component_create_many_ns", t / n, "ns");
    c.kind = ECS_LOOKUP_HASH;
    t = bench__time(bc_fresh_manager, bc_create_many, NULL, &c);
    bench_row("component_create_many_hash_ns", t / n, "ns");
    c.kind = ECS_LOOKUP_DENSE;
    t = bench__time(NULL, bc_fill_plain, NULL, &c);
    bench_row("fill_plain_ns", t / n, "ns");

    /* random gets; gather_plain_ns is the one-miss limit, same permutation */
    t_gather = bench__time(NULL, bc_gather_plain, NULL, &c);
    bench_row("gather_plain_ns", t_gather / n, "ns");
    bc_populate(&c, ECS_LOOKUP_DIRECT);
    t = bench__time(NULL, bc_get_direct, NULL, &c);
    bench_row("component_get_direct_ns", t / n, "ns");
    bc_populate(&c, ECS_LOOKUP_DENSE);
    t = bench__time(NULL, bc_get_checked, NULL, &c);
    bench_row("component_get_dense_ns", t / n, "ns");
    t = bench__time(NULL, bc_get_many, NULL, &c);
    bench_row("component_get_many_dense_ns", t / n, "ns");
    bc_populate(&c, ECS_LOOKUP_HASH);
    t = bench__time(NULL, bc_get_checked, NULL, &c);
    bench_row("component_get_hash_ns", t / n, "ns");
    t = bc_stb_row(&c);
    bench_row("baseline_stb_ds_lookup_ns", t / n, "ns");

    c.kind = ECS_LOOKUP_DENSE;
    t = bench__time(bc_prepare_remove, bc_remove, NULL, &c);
    bench_row("component_remove_dense_ns", t / n, "ns");
    c.kind = ECS_LOOKUP_HASH;
    t = bench__time(bc_prepare_remove, bc_remove, NULL, &c);
    bench_row("component_remove_hash_ns", t / n, "ns");
    t = bench__time(bc_prepare_collect, bc_collect, NULL, &c);
    bench_row("component_collect_ns", c.collected ? t / (double)c.collected : NAN, "ns");
    c.kind = ECS_LOOKUP_DENSE;
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
        /* the three alternate, one repetition each in turn, so that machine
           noise hits them alike; 3 x BENCH_REPS repetitions, medians */
        {
            double s_sim[64], s_plain[64], s_aos[64], t0;
            int r, reps = 3 * BENCH_REPS < 64 ? 3 * BENCH_REPS : 64;
            bc_simulate(&c); /* warm-up */
            bs_plain(&plain);
            bs_aos(&aos);
            for (r = 0; r < reps; ++r) {
                t0 = bench_now_ns();
                bc_simulate(&c);
                s_sim[r] = bench_now_ns() - t0;
                t0 = bench_now_ns();
                bs_plain(&plain);
                s_plain[r] = bench_now_ns() - t0;
                t0 = bench_now_ns();
                bs_aos(&aos);
                s_aos[r] = bench_now_ns() - t0;
            }
            t_sim = bench_median(s_sim, reps);
            t_plain = bench_median(s_plain, reps);
            t_aos = bench_median(s_aos, reps);
        }
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
    free(c.found);
    free(c.plain_pos);
    free(c.plain_vel);
    free(c.perm);
}

/* ==== transforms ============================================================ */

/* The transform rows (README, Benchmark). This part relies on the top of
   the file (which includes ecs.h and ecs_transform.h with their
   implementations and provides bench_now_ns, bench_median, BENCH_REPS,
   bench_n, bench_row, bench_checksum_add, bench_rand and the counting
   allocator behind bench_heap_bytes).

   The standard level: 10,000 nodes, 30% roots, the rest under a random
   earlier node; locals are random rotations and translations.
     transform_chain_set_local_ns       a chain of 1,000 nodes in an immediate
                                        manager, set_local on every node, root
                                        to leaf (each call updates its whole
                                        subtree: O(n^2)); ns per node
     transform_chain_set_local_many_ns  the same 1,000 locals in one
                                        set_local_many (O(n)); ns per node
     transform_world_pass_ns            bench_n nodes (100 copies of the level
                                        at N = 1,000,000) after reorder,
                                        ecs_transform_world_pass; ns per node
     transform_world_pass_plain_ns      the same products over plain arrays
                                        (local, world, parent) in the same
                                        parent-first order; ns per node
     transform_world_pass_ratio         the two above
     transform_deferred_frame_us        a deferred manager holding the same
                                        nodes (reordered, all clean); a fixed
                                        1% of the nodes move every frame: look
                                        up + set_local for each, then commit.
                                        Timed after warm-up frames, when the
                                        movers and their subtrees sit in the
                                        dirty range (steady state); us per frame
     transform_bytes_per_node           heap bytes of the world-pass manager
                                        (arrays, dense lookup) / nodes
     transform_reorder_ns               the same nodes spawned in a shuffled
                                        instance order (parents anywhere), then
                                        ecs_transform_reorder; ns per node
     transform_create_ns                the same hierarchy built with one
                                        ecs_transform_create per node, parents
                                        first, into a freed manager (growth
                                        included, on memory the process owns
                                        after the warm-up); ns per node */

#define BT_LEVEL 10000u
#define BT_CHAIN 1000u
#define BT_NIL ECS_INSTANCE_NIL

/* The plain loop's product, inlined as a hand-written loop would have it: the
   same operations as the manager's kernel (SSE where ecs_transform.h uses it). */
#if ECS_TRANSFORM_SSE
#include <xmmintrin.h>
static inline void bt_mul(float *o, const float *a, const float *b)
{
    __m128 b0 = _mm_loadu_ps(b), b1 = _mm_loadu_ps(b + 4), b2 = _mm_loadu_ps(b + 8), b3 = _mm_loadu_ps(b + 12);
    int r;
    for (r = 0; r < 16; r += 4) {
        __m128 ar = _mm_loadu_ps(a + r);
        __m128 x = _mm_mul_ps(_mm_shuffle_ps(ar, ar, 0x00), b0);
        x = _mm_add_ps(x, _mm_mul_ps(_mm_shuffle_ps(ar, ar, 0x55), b1));
        x = _mm_add_ps(x, _mm_mul_ps(_mm_shuffle_ps(ar, ar, 0xAA), b2));
        x = _mm_add_ps(x, _mm_mul_ps(_mm_shuffle_ps(ar, ar, 0xFF), b3));
        _mm_storeu_ps(o + r, x);
    }
}
#else
static inline void bt_mul(float *o, const float *a, const float *b)
{
    int r;
    for (r = 0; r < 16; r += 4) {
        float a0 = a[r], a1 = a[r + 1], a2 = a[r + 2], a3 = a[r + 3];
        o[r + 0] = a0 * b[0] + a1 * b[4] + a2 * b[8] + a3 * b[12];
        o[r + 1] = a0 * b[1] + a1 * b[5] + a2 * b[9] + a3 * b[13];
        o[r + 2] = a0 * b[2] + a1 * b[6] + a2 * b[10] + a3 * b[14];
        o[r + 3] = a0 * b[3] + a1 * b[7] + a2 * b[11] + a3 * b[15];
    }
}
#endif

static float bt_unit(uint64_t *rng) { return (float)(bench_rand(rng) >> 40) / 16777216.0f; }

/* a rotation about a random axis and a translation in [-10, 10)^3 */
static ecs_mat4 bt_local(uint64_t *rng)
{
    ecs_vec3 t, axis, one;
    t.x = bt_unit(rng) * 20.0f - 10.0f, t.y = bt_unit(rng) * 20.0f - 10.0f, t.z = bt_unit(rng) * 20.0f - 10.0f;
    axis.x = bt_unit(rng) - 0.5f, axis.y = bt_unit(rng) - 0.5f, axis.z = bt_unit(rng) - 0.5f;
    one.x = one.y = one.z = 1.0f;
    return ecs_mat4_compose(t, ecs_quat_axis_angle(axis, bt_unit(rng) * 6.2831853f), one);
}

/* parent[k] for `copies` standard levels laid end to end (parents first) */
static uint32_t *bt_levels(uint32_t copies, uint64_t seed)
{
    uint64_t rng = seed;
    uint32_t n = copies * BT_LEVEL, k, *parent = (uint32_t *)malloc((size_t)n * sizeof *parent);
    if (!parent) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    for (k = 0; k < n; ++k) {
        uint32_t j = k % BT_LEVEL;
        parent[k] = j == 0 || bench_rand(&rng) % 10u < 3u ? BT_NIL : k - j + (uint32_t)(bench_rand(&rng) % j);
    }
    return parent;
}

/* a manager holding the levels: entity k + 1's node under its parent's */
static void bt_build(ecs_transform_manager *tm, ecs_entity_manager *em, ecs_entity *es, const uint32_t *parent,
                     uint32_t n, ecs_transform_mode mode, uint64_t seed)
{
    uint64_t rng = seed;
    uint32_t k;
    ecs_transform_manager_init(tm, ECS_LOOKUP_DENSE, mode);
    for (k = 0; k < n; ++k) {
        ecs_mat4 m = bt_local(&rng);
        ecs_instance p = parent[k] == BT_NIL ? ecs_instance_nil() : ecs_transform_lookup(tm, es[parent[k]]);
        if (ecs_instance_is_nil(ecs_transform_create(tm, es[k], &m, p))) {
            fprintf(stderr, "bench: transform create failed: %s\n", tm->error.message);
            exit(1);
        }
    }
    (void)em;
}

static void bt_chain_rows(void)
{
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_entity es[BT_CHAIN];
    static ecs_instance in[BT_CHAIN];
    static ecs_mat4 ms[BT_CHAIN];
    double s_one[64], s_many[64];
    uint64_t rng = 0x7A3Bu;
    uint32_t k;
    int r, reps = BENCH_REPS < 64 ? BENCH_REPS : 64, rounds;
    ecs_entity_manager_init(&em);
    ecs_transform_manager_init(&tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    ecs_entity_create_many(&em, BT_CHAIN, es);
    for (k = 0; k < BT_CHAIN; ++k) {
        ms[k] = bt_local(&rng);
        in[k] = ecs_transform_create(&tm, es[k], &ms[k], k ? in[k - 1] : ecs_instance_nil());
    }
    for (r = -1; r < reps; ++r) {
        double t0 = bench_now_ns(), t1;
        for (k = 0; k < BT_CHAIN; ++k) ecs_transform_set_local(&tm, in[k], &ms[k]);
        t1 = bench_now_ns();
        bench_checksum_add(tm.world[BT_CHAIN - 1].m[12]);
        if (r >= 0) s_one[r] = (t1 - t0) / BT_CHAIN;
        /* one call is short: time 100 of them */
        rounds = 100;
        t0 = bench_now_ns();
        while (rounds--) ecs_transform_set_local_many(&tm, BT_CHAIN, in, ms);
        t1 = bench_now_ns();
        bench_checksum_add(tm.world[BT_CHAIN - 1].m[13]);
        if (r >= 0) s_many[r] = (t1 - t0) / (100.0 * BT_CHAIN);
    }
    bench_row("transform_chain_set_local_ns", bench_median(s_one, reps), "ns");
    bench_row("transform_chain_set_local_many_ns", bench_median(s_many, reps), "ns");
    ecs_transform_manager_free(&tm);
    ecs_entity_manager_free(&em);
}

static void bt_world_pass_rows(void)
{
    uint32_t copies = bench_n / BT_LEVEL ? bench_n / BT_LEVEL : 1u, n = copies * BT_LEVEL, k, f;
    uint32_t *parent = bt_levels(copies, 0x5EEDu), *plain_parent, *movers;
    uint8_t *picked;
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_entity *es = (ecs_entity *)malloc((size_t)n * sizeof *es);
    ecs_mat4 *plain_local, *plain_world, *frame_locals;
    double s_pass[192], s_plain[192], s_frame[64], pass, plain;
    size_t heap0;
    int r, reps = BENCH_REPS < 64 ? BENCH_REPS : 64;
    uint64_t rng = 0xF00Du;
    ecs_entity_manager_init(&em);
    if (!es || ecs_entity_create_many(&em, n, es) != ECS_OK) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }

    /* the immediate manager, built node by node, then reordered */
    heap0 = bench_heap_bytes;
    bt_build(&tm, &em, es, parent, n, ECS_TRANSFORM_IMMEDIATE, 0xABCDu);
    if (ecs_transform_reorder(&tm) != ECS_OK) {
        fprintf(stderr, "bench: reorder failed: %s\n", tm.error.message);
        exit(1);
    }
    bench_row("transform_bytes_per_node", (double)(bench_heap_bytes - heap0) / n, "bytes");

    /* the plain arrays: the same locals and parents, in the same order */
    plain_local = (ecs_mat4 *)malloc((size_t)n * sizeof *plain_local);
    plain_world = (ecs_mat4 *)malloc((size_t)n * sizeof *plain_world);
    plain_parent = (uint32_t *)malloc((size_t)n * sizeof *plain_parent);
    if (!plain_local || !plain_world || !plain_parent) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    memcpy(plain_local, tm.local, (size_t)n * sizeof *plain_local);
    memcpy(plain_parent, tm.parent, (size_t)n * sizeof *plain_parent);

    /* pass and plain alternate, in both orders, three times BENCH_REPS
       samples each (a pass is a few ms): machine noise hits both alike */
    for (r = -1; r < 3 * reps; ++r) {
        int q;
        for (q = 0; q < 2; ++q) {
            double t0, t1;
            if ((q == 0) == (r % 2 == 0)) {
                int linear;
                t0 = bench_now_ns();
                linear = ecs_transform_world_pass(&tm);
                t1 = bench_now_ns();
                if (!linear) fprintf(stderr, "bench: world pass was not linear after reorder\n");
                bench_checksum_add(tm.world[n - 1].m[12]);
                if (r >= 0) s_pass[r] = (t1 - t0) / n;
            } else {
                t0 = bench_now_ns();
                for (k = 0; k < n; ++k) {
                    uint32_t p = plain_parent[k];
                    if (p == BT_NIL) plain_world[k] = plain_local[k];
                    else bt_mul(plain_world[k].m, plain_local[k].m, plain_world[p].m);
                }
                t1 = bench_now_ns();
                bench_checksum_add(plain_world[n - 1].m[12]);
                if (r >= 0) s_plain[r] = (t1 - t0) / n;
            }
        }
    }
    if (memcmp(plain_world, tm.world, (size_t)n * sizeof *plain_world) != 0)
        fprintf(stderr, "bench: world pass and plain loop disagree\n");
    pass = bench_median(s_pass, 3 * reps);
    plain = bench_median(s_plain, 3 * reps);
    bench_row("transform_world_pass_ns", pass, "ns");
    bench_row("transform_world_pass_plain_ns", plain, "ns");
    bench_row("transform_world_pass_ratio", pass / plain, "x");
    free(plain_local);
    free(plain_world);
    free(plain_parent);
    ecs_transform_manager_free(&tm);

    /* deferred: the same nodes; a fixed 1% moves every frame */
    bt_build(&tm, &em, es, parent, n, ECS_TRANSFORM_DEFERRED, 0xABCDu);
    ecs_transform_reorder(&tm); /* everything computed and clean */
    {
        uint32_t nm = n / 100u ? n / 100u : 1u;
        movers = (uint32_t *)malloc((size_t)nm * sizeof *movers);
        frame_locals = (ecs_mat4 *)malloc((size_t)nm * 2u * sizeof *frame_locals);
        if (!movers || !frame_locals) {
            fprintf(stderr, "bench: out of memory\n");
            exit(1);
        }
        picked = (uint8_t *)calloc(n, 1);
        if (!picked) {
            fprintf(stderr, "bench: out of memory\n");
            exit(1);
        }
        for (k = 0; k < nm; ++k) { /* distinct random nodes */
            uint32_t x;
            do x = (uint32_t)(bench_rand(&rng) % n);
            while (picked[x]);
            picked[x] = 1;
            movers[k] = x;
            frame_locals[2 * k] = bt_local(&rng);
            frame_locals[2 * k + 1] = bt_local(&rng);
        }
        free(picked);
        for (f = 0; f < 2u * ECS_TRANSFORM_DEFAULT_IDLE_FRAMES + 2u; ++f) { /* into the steady state */
            for (k = 0; k < nm; ++k)
                ecs_transform_set_local(&tm, ecs_transform_lookup(&tm, es[movers[k]]), &frame_locals[2 * k + (f & 1u)]);
            ecs_transform_commit(&tm);
        }
        for (r = -1; r < reps; ++r) {
            double t0 = bench_now_ns(), t1;
            for (f = 0; f < 10u; ++f) {
                for (k = 0; k < nm; ++k)
                    ecs_transform_set_local(&tm, ecs_transform_lookup(&tm, es[movers[k]]), &frame_locals[2 * k + (f & 1u)]);
                ecs_transform_commit(&tm);
            }
            t1 = bench_now_ns();
            bench_checksum_add(tm.world[n - 1].m[12]);
            if (r >= 0) s_frame[r] = (t1 - t0) / 10.0 / 1000.0;
        }
        bench_row("transform_deferred_frame_us", bench_median(s_frame, reps), "us");
        fprintf(stderr, "  (deferred: %u movers, %u nodes in the dirty range)\n", (unsigned)nm,
                (unsigned)(tm.count - tm.first_dirty));
        free(movers);
        free(frame_locals);
    }
    ecs_transform_manager_free(&tm);
    ecs_entity_manager_free(&em);
    free(es);
    free(parent);
}

/* The reorder and create rows' shared state. */
typedef struct bt_ctx {
    uint32_t n;
    const uint32_t *parent;  /* the levels: parent[k] or BT_NIL */
    ecs_entity *es;          /* node k's entity */
    ecs_mat4 *locals;        /* node k's local */
    uint32_t *shuffled;      /* spawn order: a random permutation of 0..n-1 */
    ecs_instance *in;        /* create: node k's instance */
    ecs_transform_manager tm;
    ecs_entity_manager em;
    ecs_error err;
} bt_ctx;

/* A freed manager (glibc keeps the pages), then the levels spawned in one
   call with the instances in shuffled order, so parents land anywhere. */
static void bt_spawn_shuffled(void *p)
{
    bt_ctx *c = (bt_ctx *)p;
    ecs_spawn_context ctx;
    uint32_t k;
    ecs_mat4 *data = (ecs_mat4 *)bench_alloc((size_t)c->n * sizeof *data);
    for (k = 0; k < c->n; ++k) data[k] = c->locals[c->shuffled[k]];
    ecs_transform_manager_free(&c->tm);
    ctx.entities = &c->em;
    ctx.entity = c->es;
    ctx.parent_index = c->parent; /* BT_NIL is ECS_SPAWN_ROOT */
    ctx.num_entities = c->n;
    ctx.error = &c->err;
    if (ecs_transform_spawn(&c->tm, &ctx, c->n, c->shuffled, data, c->n * ECS_RESOURCE_TRANSFORM_SIZE) != ECS_OK) {
        fprintf(stderr, "bench: transform spawn failed: %s\n", c->err.message);
        exit(1);
    }
    free(data);
}
static void bt_reorder(void *p)
{
    bt_ctx *c = (bt_ctx *)p;
    if (ecs_transform_reorder(&c->tm) != ECS_OK) {
        fprintf(stderr, "bench: reorder failed: %s\n", c->tm.error.message);
        exit(1);
    }
}
static void bt_reorder_check(void *p)
{
    bt_ctx *c = (bt_ctx *)p;
    uint32_t i, bad = 0;
    for (i = 0; i < c->tm.count; ++i) bad += c->tm.parent[i] != BT_NIL && c->tm.parent[i] >= i;
    if (bad) fprintf(stderr, "bench: %u nodes before their parent after reorder\n", (unsigned)bad);
    bench_checksum_add((double)c->tm.entity[c->n - 1u].id + c->tm.world[c->n - 1u].m[12]);
}
static void bt_create_fresh(void *p)
{
    ecs_transform_manager_free(&((bt_ctx *)p)->tm);
}
static void bt_create_all(void *p)
{
    bt_ctx *c = (bt_ctx *)p;
    uint32_t k;
    for (k = 0; k < c->n; ++k)
        c->in[k] = ecs_transform_create(&c->tm, c->es[k], &c->locals[k],
                                        c->parent[k] == BT_NIL ? ecs_instance_nil() : c->in[c->parent[k]]);
}
static void bt_create_check(void *p)
{
    bt_ctx *c = (bt_ctx *)p;
    if (c->tm.count != c->n) fprintf(stderr, "bench: transform create failed: %s\n", c->tm.error.message);
    bench_checksum_add(c->tm.world[c->n - 1u].m[13]);
}

static void bt_reorder_create_rows(void)
{
    bt_ctx c;
    uint32_t copies = bench_n / BT_LEVEL ? bench_n / BT_LEVEL : 1u, k;
    uint64_t rng = 0xABCDu;
    memset(&c, 0, sizeof c);
    c.n = copies * BT_LEVEL;
    c.parent = bt_levels(copies, 0x5EEDu);
    c.es = (ecs_entity *)bench_alloc((size_t)c.n * sizeof *c.es);
    c.locals = (ecs_mat4 *)bench_alloc((size_t)c.n * sizeof *c.locals);
    c.in = (ecs_instance *)bench_alloc((size_t)c.n * sizeof *c.in);
    c.shuffled = bench_shuffled(c.n, 0x5107u);
    ecs_entity_manager_init(&c.em);
    if (ecs_entity_create_many(&c.em, c.n, c.es) != ECS_OK) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    for (k = 0; k < c.n; ++k) c.locals[k] = bt_local(&rng);
    ecs_transform_manager_init(&c.tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    bench_row("transform_reorder_ns", bench__time(bt_spawn_shuffled, bt_reorder, bt_reorder_check, &c) / c.n, "ns");
    bench_row("transform_create_ns", bench__time(bt_create_fresh, bt_create_all, bt_create_check, &c) / c.n, "ns");
    ecs_transform_manager_free(&c.tm);
    ecs_entity_manager_free(&c.em);
    free((void *)c.parent);
    free(c.es);
    free(c.locals);
    free(c.in);
    free(c.shuffled);
}

static void bench_transform_rows(void)
{
    bt_chain_rows();
    bt_world_pass_rows();
    bt_reorder_create_rows();
}

/* ==== resources ============================================================== */

/* The resource rows (README, Benchmark). This part relies on the top of
   the file (which includes ecs.h, ecs_transform.h and ecs_resource.h
   with their implementations and provides bench_now_ns, bench_median,
   BENCH_REPS, bench_row, bench_checksum_add, bench_rand).

   The standard level (10,000 entities; all a transform, 50% a mesh
   {uint64 mesh, uint32 flags}, 10% an actor {float mass, radius}; 30% roots,
   the rest under a random earlier entity) is generated as nested JSON, the
   same shape as examples/gen_level.c writes.
     compile_mb_per_s       JSON bytes / median time of ecs_compiler_compile
     spawn_level_10k_us     ecs_spawner_spawn of the blob (verify, one
                            create_many, transform spawn with links and world
                            matrices, mesh and actor through ecs_manager_spawn)
                            into managers that own their memory: one warm-up
                            spawn first, and between repetitions the level is
                            unspawned (entities destroyed, managers emptied,
                            capacity kept)
     spawn_ns_per_entity    the same median / 10,000
     spawn_vs_memcpy_ratio  that median / the median memcpy of the blob into
                            an owned, warm buffer */

#define BR_LEVEL_ENTITIES 10000u
#define BR_NONE 0xFFFFFFFFu
#define BR_CLOSE 0xFFFFFFFEu

typedef struct br_text {
    char *p;
    size_t len, cap;
} br_text;

static void br_put(br_text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1u << 20;
        while (cap < t->len + n + 1) cap *= 2;
        t->p = (char *)realloc(t->p, cap);
        if (!t->p) {
            fprintf(stderr, "bench: out of memory\n");
            exit(1);
        }
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n + 1);
    t->len += n;
}

/* uniform in [lo, hi) in steps of (hi - lo) / 1000 */
static double br_between(uint64_t *rng, double lo, double hi)
{
    return lo + (hi - lo) * (double)(bench_rand(rng) % 1000u) / 1000.0;
}

/* The standard level as nested JSON (malloc'd, NUL-terminated). */
static char *br_level_json(uint32_t n, uint64_t seed, size_t *len)
{
    uint32_t *parent = (uint32_t *)malloc(n * sizeof *parent), *first = (uint32_t *)malloc(n * sizeof *first);
    uint32_t *next = (uint32_t *)malloc(n * sizeof *next), *last = (uint32_t *)malloc(n * sizeof *last);
    uint32_t *stack = (uint32_t *)malloc(2u * n * sizeof *stack), k, sp = 0, need_comma = 0;
    uint64_t rng = seed;
    br_text t = {NULL, 0, 0};
    char buf[320];
    if (!parent || !first || !next || !last || !stack) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    for (k = 0; k < n; ++k) {
        parent[k] = k % 10u < 3u ? BR_NONE : (uint32_t)(bench_rand(&rng) % k);
        first[k] = next[k] = last[k] = BR_NONE;
        if (parent[k] != BR_NONE) {
            if (last[parent[k]] == BR_NONE) first[parent[k]] = k;
            else next[last[parent[k]]] = k;
            last[parent[k]] = k;
        }
    }
    br_put(&t, "{\"entities\": [\n");
    for (k = n; k-- > 0;)
        if (parent[k] == BR_NONE) stack[sp++] = k;
    while (sp) {
        uint32_t v = stack[--sp], c, count = 0;
        double x, y, z, qy, qw;
        if (v == BR_CLOSE) {
            br_put(&t, "]}");
            need_comma = 1;
            continue;
        }
        if (need_comma) br_put(&t, ",\n");
        x = br_between(&rng, -100, 100);
        y = br_between(&rng, 0, 10);
        z = br_between(&rng, -100, 100);
        qy = br_between(&rng, -1, 1);
        qw = br_between(&rng, 0.1, 1); /* about the y axis; the compiler normalises */
        snprintf(buf, sizeof buf,
                 "{\"name\": \"e%u\", \"components\": [{\"type\": \"transform\", \"position\": [%.3f, %.3f, %.3f], "
                 "\"rotation\": [0, %.3f, 0, %.3f]}",
                 (unsigned)v, x, y, z, qy, qw);
        br_put(&t, buf);
        if (v % 2u == 0) {
            uint32_t prop = (uint32_t)(bench_rand(&rng) % 16u), flags = (uint32_t)(bench_rand(&rng) % 4u);
            snprintf(buf, sizeof buf, ", {\"type\": \"mesh\", \"mesh\": \"models/prop_%02u\", \"flags\": %u}",
                     (unsigned)prop, (unsigned)flags);
            br_put(&t, buf);
        }
        if (v % 10u == 5u) {
            double mass = br_between(&rng, 1, 100), radius = br_between(&rng, 0.25, 2);
            snprintf(buf, sizeof buf, ", {\"type\": \"actor\", \"mass\": %.2f, \"radius\": %.2f}", mass, radius);
            br_put(&t, buf);
        }
        br_put(&t, "]");
        if (first[v] == BR_NONE) {
            br_put(&t, "}");
            need_comma = 1;
            continue;
        }
        br_put(&t, ", \"children\": [\n");
        stack[sp++] = BR_CLOSE;
        for (c = first[v]; c != BR_NONE; c = next[c]) ++count;
        sp += count;
        for (c = first[v], k = 0; c != BR_NONE; c = next[c], ++k) stack[sp - 1u - k] = c;
        need_comma = 0;
    }
    br_put(&t, "\n]}\n");
    free(parent);
    free(first);
    free(next);
    free(last);
    free(stack);
    *len = t.len;
    return t.p;
}

static void br_fail(const char *what, const ecs_error *err)
{
    fprintf(stderr, "bench: %s failed: %s\n", what, err->message);
    exit(1);
}

static void bench_resource_rows(void)
{
    static const ecs_field_desc mesh_fields[] = {{"mesh", 8, 8}, {"flags", 4, 4}};
    static const ecs_field_desc actor_fields[] = {{"mass", 4, 4}, {"radius", 4, 4}};
    double samples[64], spawn_ns, copy_ns; /* BENCH_REPS <= 64 */
    size_t json_len = 0;
    char *json = br_level_json(BR_LEVEL_ENTITIES, 0x5EED5EEDull, &json_len);
    ecs_compiler compiler;
    ecs_compiler_output out;
    ecs_error err;
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_manager mesh, actor;
    ecs_spawner sp;
    ecs_entity *ents = (ecs_entity *)malloc(BR_LEVEL_ENTITIES * sizeof *ents);
    unsigned char *copy;
    int rep, r;

    /* compile_mb_per_s: the whole compile, JSON parse included */
    memset(&out, 0, sizeof out);
    ecs_compiler_init(&compiler);
    if (ecs_compiler_register_standard(&compiler, &err) != ECS_OK) br_fail("register", &err);
    for (rep = -1; rep < BENCH_REPS; ++rep) {
        double t0;
        ecs_compiler_output_free(&out);
        t0 = bench_now_ns();
        if (ecs_compiler_compile(&compiler, json, json_len, 0, &out, &err) != ECS_OK) br_fail("compile", &err);
        if (rep >= 0) samples[rep] = bench_now_ns() - t0;
    }
    bench_row("compile_mb_per_s", (double)json_len / 1e6 / (bench_median(samples, BENCH_REPS) / 1e9), "MB/s");
    bench_checksum_add((double)out.size);

    /* spawn_level_10k_us */
    ecs_entity_manager_init(&em);
    ecs_transform_manager_init(&tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    if (ecs_manager_init(&mesh, mesh_fields, 2, ECS_LOOKUP_DENSE) != ECS_OK ||
        ecs_manager_init(&actor, actor_fields, 2, ECS_LOOKUP_DENSE) != ECS_OK) {
        fprintf(stderr, "bench: manager init failed\n");
        exit(1);
    }
    ecs_spawner_init(&sp);
    if (ecs_spawner_register(&sp, "transform", ecs_transform_spawn, ecs_transform_unspawn,
                             ECS_RESOURCE_TRANSFORM_SIZE, &tm, &err) != ECS_OK ||
        ecs_spawner_register(&sp, "mesh", ecs_manager_spawn, ecs_manager_unspawn, ECS_RESOURCE_MESH_SIZE, &mesh,
                             &err) != ECS_OK ||
        ecs_spawner_register(&sp, "actor", ecs_manager_spawn, ecs_manager_unspawn, ECS_RESOURCE_ACTOR_SIZE, &actor,
                             &err) != ECS_OK)
        br_fail("spawner register", &err);
    for (rep = -1; rep < BENCH_REPS; ++rep) {
        double t0 = bench_now_ns();
        if (ecs_spawner_spawn(&sp, &em, out.blob, out.size, ents, &err) != ECS_OK) br_fail("spawn", &err);
        if (rep >= 0) samples[rep] = bench_now_ns() - t0;
        {
            const ecs_mat4 *w = ecs_transform_world(&tm, ecs_transform_lookup(&tm, ents[BR_LEVEL_ENTITIES - 1u]));
            bench_checksum_add((double)(w ? w->m[12] + w->m[13] + w->m[14] : -1.0f));
            bench_checksum_add((double)(ecs_transform_count(&tm) + mesh.count + actor.count));
        }
        /* outside the timing: back to empty managers that keep their memory */
        ecs_spawner_unspawn(&sp, &em, out.blob, 1, ents);
    }
    spawn_ns = bench_median(samples, BENCH_REPS);
    bench_row("spawn_level_10k_us", spawn_ns / 1000.0, "us");
    bench_row("spawn_ns_per_entity", spawn_ns / BR_LEVEL_ENTITIES, "ns");

    /* memcpy of the blob, 100 copies per sample */
    copy = (unsigned char *)malloc(out.size);
    memcpy(copy, out.blob, out.size);
    for (rep = -1; rep < BENCH_REPS; ++rep) {
        double t0 = bench_now_ns();
        for (r = 0; r < 100; ++r) {
            memcpy(copy, out.blob, out.size);
            bench_checksum_add((double)copy[(size_t)r * 7919u % out.size]);
        }
        if (rep >= 0) samples[rep] = (bench_now_ns() - t0) / 100.0;
    }
    copy_ns = bench_median(samples, BENCH_REPS);
    bench_row("spawn_vs_memcpy_ratio", spawn_ns / copy_ns, "x");

    free(copy);
    free(ents);
    free(json);
    ecs_spawner_free(&sp);
    ecs_manager_free(&mesh);
    ecs_manager_free(&actor);
    ecs_transform_manager_free(&tm);
    ecs_entity_manager_free(&em);
    ecs_compiler_output_free(&out);
    ecs_compiler_free(&compiler);
}

/* ---- snapshots ----------------------------------------------------------------
   snapshot_save_gbs / _load_gbs / world_clone_gbs: a world of N entities,
   each with the two-vec3 component in a dense manager and a transform in an
   N-node hierarchy (30% roots, else a random earlier parent; reordered
   depth-first, as an engine keeps it for its linear world pass); bytes of the
   snapshot per second (save: into the buffer of the last save,
   ECS_SNAPSHOT_REUSE_OUTPUT; load: verify included, into an emptied world
   that keeps its stores' memory; clone: into a world that already holds a
   copy; each the rollback case, in memory the process owns).
   snapshot_memcpy_gbs: their limit, a memcpy of the snapshot's bytes into
   a buffer the process owns, same run.
   snapshot_json_*: the same world at N/10, JSON bytes per second (load: text
   to snapshot to world). snapshot_bytes_per_entity and _ratio: the
   snapshot's bytes per entity and against the live data (entity ids,
   fields, transform arrays, generations; no maps). snapshot_1k_roundtrip_us:
   the rust ecs_bench_suite's serialize case, 1,000 entities of a mat4 and
   three vec3, saved and loaded.
   snapshot_hash_gbs: ecs_snapshot_world_hash of the same world, the
   snapshot's bytes per second. Deltas: 1% of the entities (random ones)
   change one field (the position's x) between two snapshots of that world;
   snapshot_delta_bytes_ratio is the delta's bytes / the snapshot's;
   snapshot_delta_gbs the base's bytes per second of ecs_snapshot_delta
   (into the buffer of the last delta); snapshot_apply_delta_gbs of
   ecs_snapshot_apply_delta in place (the base in the output's buffer, as a
   client holding one snapshot does: restored before each repetition,
   untimed), snapshot_apply_delta_copy_gbs into a buffer of its own (the
   last result's). Both delta directions hash the whole base.
   snapshot_delta_compare_gbs: their limit in the same run, a compare of the
   two snapshots' bytes block by block (no early exit: a delta reads both
   whole), both asked for ahead as the delta asks, base bytes per second:
   two streams read at once, so it sits near half of what one stream gets.
   snapshot_world_digest_gbs: ecs_snapshot_world_digest of the world before
   the change (the world hash with each block's digest kept), the
   snapshot's bytes per second; snapshot_delta_from_world_bytes_ratio and
   _gbs: ecs_snapshot_delta_from_world from that digest to the world after
   it (its digest taken untimed), the delta's bytes / the snapshot's, and
   the snapshot's bytes per second (it reads only the blocks that changed:
   256-byte blocks, so 1% of the entities changing one field scattered
   make more bytes than the 64-byte compare's). snapshot_world_digest_delta_gbs:
   ecs_snapshot_world_digest_delta, the digest of the world after the
   change and the delta from the first state's in one pass (a server's
   frame), the snapshot's bytes per second: beside snapshot_world_digest_gbs,
   what the delta adds to a digest taken anyway;
   snapshot_world_digest_delta_over_digest: its time over the digest's,
   measured again just before it (the same buffers, the same world). */

static const ecs_schema_field bs_body_schema[] = {{"position", ECS_FIELD_VEC3, "[0, 0, 0]"},
                                                 {"velocity", ECS_FIELD_VEC3, "[0, 0, 0]"}};
static const ecs_schema_field bs_rust_schema[] = {{"transform", ECS_FIELD_MAT4, "{}"}, {"position", ECS_FIELD_VEC3, "[0, 0, 0]"},
                                                 {"rotation", ECS_FIELD_VEC3, "[0, 0, 0]"}, {"velocity", ECS_FIELD_VEC3, "[0, 0, 0]"}};

typedef struct bs_world {
    ecs_world w;
    ecs_transform_manager tm;
} bs_world;

static void bs_fail(const char *what, const ecs_error *err)
{
    fprintf(stderr, "bench: snapshots: %s: %s\n", what, err->message);
    exit(1);
}

/* The world's stores (empty); with_transform: the hierarchy store too. */
static void bs_init(bs_world *b, const ecs_schema_field *schema, uint32_t num_fields, int with_transform)
{
    ecs_error err;
    if (ecs_world_init(&b->w) != ECS_OK || !ecs_world_define_schema(&b->w, "body", schema, num_fields, ECS_LOOKUP_DENSE, &err))
        bs_fail("world", &err);
    ecs_transform_manager_init(&b->tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    if (with_transform && ecs_transform_world_register(&b->w, "transform", &b->tm, &err) != ECS_OK)
        bs_fail("transform", &err);
}

static void bs_free(bs_world *b)
{
    ecs_world_free(&b->w);
    ecs_transform_manager_free(&b->tm);
}

static void bs_fill(bs_world *b, uint32_t n, int with_transform)
{
    ecs_manager *m = ecs_world_manager(&b->w, "body");
    ecs_entity *es = (ecs_entity *)bench_alloc((size_t)n * sizeof *es);
    uint64_t seed = 0x5A45;
    uint32_t k, f;
    ecs_error err;
    if (ecs_entity_create_many(&b->w.entities, n, es) != ECS_OK || ecs_manager_create_many(m, n, es, NULL, NULL) != ECS_OK) {
        err = m->error;
        bs_fail("fill", &err);
    }
    for (f = 0; f < m->num_fields; ++f)
        for (k = 0; k < n * (m->fields[f].size / 4u); ++k) ((float *)m->field[f])[k] = (float)(bench_rand(&seed) % 1000u);
    for (k = 0; with_transform && k < n; ++k) {
        ecs_mat4 local = ecs_mat4_identity();
        ecs_instance parent = k && bench_rand(&seed) % 10u >= 3u ? ecs_instance_make((uint32_t)(bench_rand(&seed) % k))
                                                                 : ecs_instance_nil();
        local.m[12] = (float)k;
        if (ecs_instance_is_nil(ecs_transform_create(&b->tm, es[k], &local, parent))) bs_fail("transform", &b->tm.error);
    }
    if (with_transform && ecs_transform_reorder(&b->tm) != ECS_OK) bs_fail("reorder", &b->tm.error); /* an engine's steady state */
    free(es);
}

typedef struct bs_ctx {
    bs_world *src, *dst;
    ecs_snapshot_output out, text, back;
    void *copy; /* snapshot_memcpy_gbs's target */
    uint64_t hash;
    ecs_snapshot_output base, delta, held; /* the delta rows: the first snapshot, the delta, a client's copy */
    ecs_snapshot_digest was, now;          /* the first snapshot's state's digests, the world's */
} bs_ctx;

/* Into the buffer of the last save (ECS_SNAPSHOT_REUSE_OUTPUT), as a game
   saving every frame does: memory the process owns. */
static void bs_save(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    ecs_snapshot_desc desc;
    ecs_error err;
    memset(&desc, 0, sizeof desc);
    desc.flags = ECS_SNAPSHOT_REUSE_OUTPUT;
    if (ecs_snapshot_save(&c->src->w, &desc, &c->out, &err) != ECS_OK) bs_fail("save", &err);
}

/* The limit of save, load and clone: one memcpy of the snapshot's bytes
   between two buffers the process owns. */
static void bs_memcpy(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    memcpy(c->copy, c->out.data, c->out.size);
}

static void bs_empty(void *p) { ecs__snap_clear_world(&((bs_ctx *)p)->dst->w); }

static void bs_load(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    ecs_error err;
    if (ecs_snapshot_load(&c->dst->w, c->out.data, c->out.size, 0, NULL, &err) != ECS_OK) bs_fail("load", &err);
}

static void bs_clone(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    ecs_error err;
    if (ecs_snapshot_clone(&c->dst->w, &c->src->w, &err) != ECS_OK) bs_fail("clone", &err);
}

static void bs_check(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    if (ecs_snapshot_world_hash(&c->dst->w) != c->hash) {
        fprintf(stderr, "bench: snapshots: the copy differs\n");
        exit(1);
    }
}

static void bs_to_json(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    ecs_error err;
    ecs_snapshot_output_free(&c->text);
    if (ecs_snapshot_to_json(c->out.data, c->out.size, &c->text, &err) != ECS_OK) bs_fail("to_json", &err);
}

static void bs_from_json(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    ecs_error err;
    ecs_snapshot_output_free(&c->back);
    if (ecs_snapshot_from_json((const char *)c->text.data, c->text.size, &c->back, &err) != ECS_OK ||
        ecs_snapshot_load(&c->dst->w, c->back.data, c->back.size, 0, NULL, &err) != ECS_OK)
        bs_fail("from_json", &err);
}

static void bs_roundtrip(void *p)
{
    bs_save(p);
    bs_load(p);
}

static void bs_hash(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    bench_checksum_add((double)(ecs_snapshot_world_hash(&c->src->w) & 0xFFFFu));
}

/* The world's digests into c->now (its array reused). */
static void bs_digest(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    ecs_error err;
    if (ecs_snapshot_world_digest(&c->src->w, &c->now, &err) != ECS_OK) bs_fail("digest", &err);
    bench_checksum_add((double)(c->now.hash & 0xFFFFu));
}

/* The delta from the first state (c->was) to the world, written from it. */
static void bs_delta_from_world(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    ecs_error err;
    if (ecs_snapshot_delta_from_world(&c->was, &c->src->w, &c->now, ECS_SNAPSHOT_REUSE_OUTPUT, &c->delta, &err) != ECS_OK)
        bs_fail("delta from the world", &err);
}

/* The world's digest (c->now) and the delta from c->was in one pass. */
static void bs_digest_delta(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    ecs_error err;
    if (ecs_snapshot_world_digest_delta(&c->src->w, &c->was, &c->now, ECS_SNAPSHOT_REUSE_OUTPUT, &c->delta, &err) != ECS_OK)
        bs_fail("digest and delta", &err);
}

static void bs_check_applied(void *p);

/* The delta from the world applied to base gives the second snapshot. */
static void bs_check_from_world(bs_ctx *c)
{
    ecs_snapshot_delta_hashes h;
    ecs_error err;
    h.known = ECS_SNAPSHOT_BASE_HASH;
    h.base_hash = c->was.hash;
    if (ecs_snapshot_apply_delta_hashed(c->base.data, c->base.size, c->delta.data, c->delta.size, ECS_SNAPSHOT_REUSE_OUTPUT, &h,
                                        &c->held, &err) != ECS_OK)
        bs_fail("apply the delta from the world", &err);
    bs_check_applied(c);
}

/* base -> out (the second snapshot), into the buffer of the last delta. */
static void bs_delta(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    ecs_error err;
    if (ecs_snapshot_delta(c->base.data, c->base.size, c->out.data, c->out.size, ECS_SNAPSHOT_REUSE_OUTPUT, &c->delta, &err) != ECS_OK)
        bs_fail("delta", &err);
}

/* The client's copy back to the first snapshot (untimed). */
static void bs_restore(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    memcpy(c->held.data, c->base.data, c->base.size);
    c->held.size = c->base.size;
}

static void bs_apply_in_place(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    ecs_error err;
    if (ecs_snapshot_apply_delta(c->held.data, c->held.size, c->delta.data, c->delta.size, ECS_SNAPSHOT_REUSE_OUTPUT, &c->held,
                                 &err) != ECS_OK)
        bs_fail("apply in place", &err);
}

static void bs_apply_copy(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    ecs_error err;
    if (ecs_snapshot_apply_delta(c->base.data, c->base.size, c->delta.data, c->delta.size, ECS_SNAPSHOT_REUSE_OUTPUT, &c->held,
                                 &err) != ECS_OK)
        bs_fail("apply", &err);
}

/* Every 64-byte block of base against next's, both streams asked for 4 KB
   ahead as the delta asks for them (the delta's limit: it reads the same
   two streams, and hashes them too). */
static void bs_compare(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    const unsigned char *a = (const unsigned char *)c->base.data, *b = (const unsigned char *)c->out.data;
    size_t k, j, differ = 0, n = c->base.size < c->out.size ? c->base.size : c->out.size;
    for (k = 0; k + 64u <= n; k += 64u) {
        uint64_t x[8], y[8], d = 0;
        ECS__PREFETCH(a + k + ECS__DELTA_AHEAD);
        ECS__PREFETCH(b + k + ECS__DELTA_AHEAD);
        memcpy(x, a + k, 64);
        memcpy(y, b + k, 64);
        for (j = 0; j < 8u; ++j) d |= x[j] ^ y[j];
        differ += d != 0;
    }
    bench_checksum_add((double)differ);
}

static void bs_check_applied(void *p)
{
    bs_ctx *c = (bs_ctx *)p;
    if (c->held.size != c->out.size || memcmp(c->held.data, c->out.data, c->out.size) != 0) {
        fprintf(stderr, "bench: snapshots: the applied delta differs\n");
        exit(1);
    }
}

/* The delta rows over a's world, whose snapshot c->out holds. */
static void bench_delta_rows(bs_world *a, bs_ctx *c)
{
    ecs_manager *m = ecs_world_manager(&a->w, "body");
    uint64_t seed = 0xDE17A;
    uint32_t k;
    double t, t0;
    c->base.size = c->out.size;
    c->base.data = bench_alloc(c->out.size);
    memcpy(c->base.data, c->out.data, c->out.size);
    t = bench__time(NULL, bs_digest, NULL, c);
    bench_row("snapshot_world_digest_gbs", (double)c->out.size / t, "GB/s");
    c->was = c->now;
    memset(&c->now, 0, sizeof c->now);
    for (k = 0; k < m->count / 100u; ++k) ((float *)m->field[0])[3u * (uint32_t)(bench_rand(&seed) % m->count)] += 1.0f;
    bs_save(c);
    bs_delta(c);
    bench_row("snapshot_delta_bytes_ratio", (double)c->delta.size / (double)c->out.size, "x");
    bench_checksum_add((double)c->delta.size);
    t = bench__time(NULL, bs_delta, NULL, c);
    bench_row("snapshot_delta_gbs", (double)c->base.size / t, "GB/s");
    t = bench__time(NULL, bs_compare, NULL, c);
    bench_row("snapshot_delta_compare_gbs", (double)c->base.size / t, "GB/s");
    c->held.data = bench_realloc(NULL, c->base.size > c->out.size ? c->base.size : c->out.size); /* the library grows it */
    if (!c->held.data) exit(1);
    t = bench__time(bs_restore, bs_apply_in_place, bs_check_applied, c);
    bench_row("snapshot_apply_delta_gbs", (double)c->base.size / t, "GB/s");
    t = bench__time(NULL, bs_apply_copy, bs_check_applied, c);
    bench_row("snapshot_apply_delta_copy_gbs", (double)c->base.size / t, "GB/s");
    bs_digest(c);
    bs_delta_from_world(c);
    bs_check_from_world(c);
    bench_row("snapshot_delta_from_world_bytes_ratio", (double)c->delta.size / (double)c->out.size, "x");
    t = bench__time(NULL, bs_delta_from_world, NULL, c);
    bench_row("snapshot_delta_from_world_gbs", (double)c->out.size / t, "GB/s");
    t0 = bench__time(NULL, bs_digest, NULL, c); /* the digest alone again, beside it: the same buffers, the same world */
    bs_digest_delta(c);
    bs_check_from_world(c);
    t = bench__time(NULL, bs_digest_delta, NULL, c);
    bench_row("snapshot_world_digest_delta_gbs", (double)c->out.size / t, "GB/s");
    bench_row("snapshot_world_digest_delta_over_digest", t / t0, "x");
    ecs_snapshot_digest_free(&c->was);
    ecs_snapshot_digest_free(&c->now);
    free(c->base.data);
    c->base.data = NULL;
    ecs_snapshot_output_free(&c->delta);
    ecs_snapshot_output_free(&c->held);
}

static void bs_free_ctx(bs_ctx *c)
{
    ecs_snapshot_output_free(&c->out);
    ecs_snapshot_output_free(&c->text);
    ecs_snapshot_output_free(&c->back);
}

static void bench_snapshot_rows(void)
{
    bs_world a, b;
    bs_ctx c;
    uint32_t n = bench_n;
    double t, live;
    memset(&c, 0, sizeof c);
    c.src = &a;
    c.dst = &b;
    bs_init(&a, bs_body_schema, 2, 1);
    bs_init(&b, bs_body_schema, 2, 1);
    bs_fill(&a, n, 1);
    c.hash = ecs_snapshot_world_hash(&a.w);
    t = bench__time(NULL, bs_save, NULL, &c);
    bench_row("snapshot_save_gbs", (double)c.out.size / t, "GB/s");
    c.copy = bench_alloc(c.out.size);
    memset(c.copy, 0, c.out.size);
    t = bench__time(NULL, bs_memcpy, NULL, &c);
    bench_row("snapshot_memcpy_gbs", (double)c.out.size / t, "GB/s");
    bench_checksum_add((double)((const unsigned char *)c.copy)[c.out.size / 2u]);
    free(c.copy);
    c.copy = NULL;
    t = bench__time(bs_empty, bs_load, bs_check, &c);
    bench_row("snapshot_load_gbs", (double)c.out.size / t, "GB/s");
    t = bench__time(NULL, bs_clone, bs_check, &c);
    bench_row("world_clone_gbs", (double)c.out.size / t, "GB/s");
    live = (double)n * (4.0 + 24.0) + (double)n * (4.0 + 2.0 * sizeof(ecs_mat4) + 16.0 + 1.0) + (double)n + 1.0;
    bench_row("snapshot_bytes_per_entity", (double)c.out.size / n, "bytes");
    bench_row("snapshot_bytes_ratio", (double)c.out.size / live, "x");
    bench_checksum_add((double)c.out.size);
    t = bench__time(NULL, bs_hash, NULL, &c);
    bench_row("snapshot_hash_gbs", (double)c.out.size / t, "GB/s");
    bench_delta_rows(&a, &c);
    bs_free(&a);
    bs_free(&b);
    bs_free_ctx(&c);

    bs_init(&a, bs_body_schema, 2, 1);
    bs_init(&b, bs_body_schema, 2, 1);
    bs_fill(&a, n / 10u ? n / 10u : 1u, 1);
    c.hash = ecs_snapshot_world_hash(&a.w);
    bs_save(&c);
    t = bench__time(NULL, bs_to_json, NULL, &c);
    bench_row("snapshot_json_save_mb_per_s", (double)c.text.size / 1e6 / (t / 1e9), "MB/s");
    t = bench__time(bs_empty, bs_from_json, bs_check, &c);
    bench_row("snapshot_json_load_mb_per_s", (double)c.text.size / 1e6 / (t / 1e9), "MB/s");
    bench_checksum_add((double)c.text.size);
    bs_free(&a);
    bs_free(&b);
    bs_free_ctx(&c);

    bs_init(&a, bs_rust_schema, 4, 0);
    bs_init(&b, bs_rust_schema, 4, 0);
    bs_fill(&a, 1000u, 0);
    c.hash = ecs_snapshot_world_hash(&a.w);
    t = bench__time(bs_empty, bs_roundtrip, bs_check, &c);
    bench_row("snapshot_1k_roundtrip_us", t / 1000.0, "us");
    bs_free(&a);
    bs_free(&b);
    bs_free_ctx(&c);
}

/* ---- world and systems (DESIGN §7, §8) ------------------------------------------
   abeimler/ecs_benchmark's SystemsUpdate (systems_2: movement P += V*dt and
   the data system) and ComplexSystemsUpdate (systems_7: those two, the
   "more complex" system, health, damage, sprite, and a render into a 320x240
   frame buffer), plain and mixed entities, N = 2^20, one frame per
   repetition, ns per entity per frame. Rebuilt from the suite's definitions
   (src/base/base: components, systems, entity factories):
     every entity: position {0,0}, velocity {1,1}, data;
     players: entity 0 a hero; entity i >= 1 by i % 6 == 0 a random type
       (rng 1..100: <= 3 NPC, <= 30 hero, else monster), else by i % 4 == 0
       an NPC, else by i % 2 == 0 a monster; a player has player, health,
       damage and sprite, stats from its own xoshiro128** (the suite's
       ranges), a position in the spawn area around the frame buffer;
     mixed: the suite's "pathological" pattern (for i in [N/2, 3N/4], every
       10th: i % 7 loses position, i % 11 velocity, i % 13 data; a player
       gets its position back), and players only from N/8 on.
   Every generator is seeded from the entity index (the suite seeds the
   player's from its address): the players' at creation, the more complex
   system's per call from the index and data.thingy, so results do not
   depend on the order a store iterates. Three differences, the same in
   both versions: data.thingy starts at i % 10 (the suite's 0 makes every
   entity take the random branch in the same frame), health starts full, and
   the data system formats dingy with a small fixed-point writer, not fmt.
   Ours: one manager per component, the way the README teaches: direct kind
   for position, velocity and data (nearly every entity has them), dense for
   the rest, {health, damage} and {sprite, player} as groups; each system a
   query. The limit (_plain_ns): the same per-entity functions over an
   archetype store (a table per set of components, a densely packed column
   per component, exactly the entities having them), same data, same run.
   Ours and the limit are timed in turns (a frame of one, a frame of the
   other), so that both see the same load of a shared machine. After the
   runs both hold the same state (checked: the run stops if not).
   query_*: two components, 10^6 entities, per match: both direct; both
   dense and grouped; both dense, not grouped, instances in different random
   orders (the lookup path); query_plain_ns the same loop over two arrays. */

typedef struct bw_vec2 {
    double x, y;
} bw_vec2;
typedef struct bw_data {
    int32_t thingy;
    uint8_t mingy;
    double dingy;
    char stringy[24];
} bw_data;
enum { BW_NPC, BW_MONSTER, BW_HERO };     /* player types */
enum { BW_SPAWN, BW_DEAD, BW_ALIVE };     /* health status */
typedef struct bw_player {
    uint32_t rng[4];
    int32_t type;
} bw_player;
typedef struct bw_health {
    int32_t hp, maxhp, status;
} bw_health;
typedef struct bw_damage {
    int32_t atk, def;
} bw_damage;
typedef struct bw_sprite {
    char character;
} bw_sprite;

/* --- components: begin --- */
#define BW_POSITIONS_FIELDS(X) X(bw_vec2, p)
#define BW_VELOCITIES_FIELDS(X) X(bw_vec2, v)
#define BW_DATA_FIELDS(X) X(bw_data, d)
#define BW_PLAYERS_FIELDS(X) X(bw_player, pl)
#define BW_HEALTH_FIELDS(X) X(bw_health, h)
#define BW_DAMAGE_FIELDS(X) X(bw_damage, dm)
#define BW_SPRITES_FIELDS(X) X(bw_sprite, s)
ECS_MANAGER_DEFINE(bw_positions, BW_POSITIONS_FIELDS)
ECS_MANAGER_DEFINE(bw_velocities, BW_VELOCITIES_FIELDS)
ECS_MANAGER_DEFINE(bw_datas, BW_DATA_FIELDS)
ECS_MANAGER_DEFINE(bw_players, BW_PLAYERS_FIELDS)
ECS_MANAGER_DEFINE(bw_healths, BW_HEALTH_FIELDS)
ECS_MANAGER_DEFINE(bw_damages, BW_DAMAGE_FIELDS)
ECS_MANAGER_DEFINE(bw_sprites, BW_SPRITES_FIELDS)
/* --- components: end --- */

/* xoshiro128** 1.1 with the suite's seeding (seed + the first four primes) */
static uint32_t bw_rotl(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }
static uint32_t bw_next(uint32_t *s)
{
    uint32_t r = bw_rotl(s[1] * 5u, 7) * 9u, t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = bw_rotl(s[3], 11);
    return r;
}
static uint32_t bw_range(uint32_t *s, uint32_t lo, uint32_t hi) { return bw_next(s) % (hi - lo + 1u) + lo; }
static void bw_seed(uint32_t *s, uint32_t seed)
{
    s[0] = seed + 3u, s[1] = seed + 5u, s[2] = seed + 7u, s[3] = seed + 11u;
}

/* ---- the per-entity logic (the suite's systems), shared by both versions ---- */
#define BW_FB_W 320
#define BW_FB_H 240
static inline void bw_move(bw_vec2 *p, const bw_vec2 *v, double dt)
{
    p->x += v->x * dt;
    p->y += v->y * dt;
}
/* "%4.2f" for 0 <= v < 10^7, the data system's string */
static inline void bw_format(char *out, double v)
{
    char digits[16];
    uint32_t cents = v >= 0 && v < 1e7 ? (uint32_t)(v * 100.0 + 0.5) : 0u, n = 0, k = 0;
    digits[n++] = (char)('0' + cents % 10u), cents /= 10u;
    digits[n++] = (char)('0' + cents % 10u), cents /= 10u;
    digits[n++] = '.';
    do digits[n++] = (char)('0' + cents % 10u), cents /= 10u; while (cents);
    for (; n + k < 4; ++k) out[k] = ' ';
    while (n) out[k++] = digits[--n];
    out[k] = 0;
}
static inline void bw_update_data(bw_data *d, double dt)
{
    d->thingy++;
    d->dingy += 0.0001 * dt;
    d->mingy = !d->mingy;
    bw_format(d->stringy, d->dingy);
}
static inline void bw_more_complex(const bw_vec2 *p, bw_vec2 *v, const bw_data *d, uint32_t entity_index)
{
    uint32_t s[4];
    if (d->thingy % 10 != 0) return;
    bw_seed(s, entity_index * 2654435761u ^ (uint32_t)d->thingy);
    if (p->x > p->y) {
        v->x = (double)bw_range(s, 0, 10) - 5.0;
        v->y = (double)bw_range(s, 0, 20) - 10.0;
    } else {
        v->x = (double)bw_range(s, 0, 20) - 10.0;
        v->y = (double)bw_range(s, 0, 10) - 5.0;
    }
}
static inline void bw_update_health(bw_health *h)
{
    if (h->hp <= 0) {
        h->hp = 0;
        h->status = BW_DEAD;
    } else if (h->hp > h->maxhp) {
        h->hp = h->maxhp;
    } else if (h->status == BW_DEAD && h->hp == 0) {
        h->hp = h->maxhp;
        h->status = BW_SPAWN;
    } else {
        h->status = BW_ALIVE;
    }
}
static inline void bw_update_damage(bw_health *h, const bw_damage *d)
{
    int32_t total = d->atk - d->def;
    if (total > 0) h->hp -= total;
}
/* h NULL: a player without health (none here; the query has it optional) */
static inline void bw_update_sprite(bw_sprite *s, const bw_player *pl, const bw_health *h)
{
    static const char alive[3] = {'h', 'k', '@'}; /* NPC, monster, hero */
    int32_t status = h ? h->status : BW_ALIVE;
    s->character = status == BW_ALIVE ? alive[pl->type] : status == BW_DEAD ? '|' : '_';
}
static inline void bw_render(char *fb, const bw_vec2 *p, const bw_sprite *s)
{
    if (p->x >= 0 && p->x < BW_FB_W && p->y >= 0 && p->y < BW_FB_H) fb[(int)p->y * BW_FB_W + (int)p->x] = s->character;
}

/* ---- the entities: what entity i (of n) has, and its starting values ---------- */
enum { BW_P = 1, BW_V = 2, BW_D = 4, BW_PL = 8, BW_H = 16, BW_DM = 32, BW_S = 64, BW_MASKS = 128 };
typedef struct bw_init {
    uint32_t mask;
    bw_vec2 p, v;
    bw_data d;
    bw_player pl;
    bw_health h;
    bw_damage dm;
    bw_sprite s;
} bw_init;
static int bw_player_type(uint32_t i, uint32_t n, int mixed, uint32_t *rng)
{
    uint32_t roll;
    if (i == 0) return BW_HERO;
    if (mixed && i < n / 8) return -1;
    if (i % 6 == 0) {
        roll = bw_range(rng, 1, 100);
        return roll <= 3 ? BW_NPC : roll <= 30 ? BW_HERO : BW_MONSTER;
    }
    return i % 4 == 0 ? BW_NPC : i % 2 == 0 ? BW_MONSTER : -1;
}
static void bw_make(uint32_t i, uint32_t n, int mixed, uint32_t entity_index, bw_init *o)
{
    static const uint32_t stats[3][6] = {{6, 12, 3, 8, 0, 0}, {4, 12, 2, 8, 3, 9}, {5, 15, 2, 6, 4, 10}};
    int type;
    memset(o, 0, sizeof *o);
    o->mask = BW_P | BW_V | BW_D;
    o->v.x = o->v.y = 1.0;
    o->d.thingy = (int32_t)(i % 10u);
    if (mixed && i >= 2 * (n / 4) && i <= 3 * (n / 4) && (i - 2 * (n / 4)) % 10u == 0) {
        if (i % 7 == 0) o->mask &= ~(uint32_t)BW_P;
        if (i % 11 == 0) o->mask &= ~(uint32_t)BW_V;
        if (i % 13 == 0) o->mask &= ~(uint32_t)BW_D;
    }
    bw_seed(o->pl.rng, entity_index);
    type = bw_player_type(i, n, mixed, o->pl.rng);
    if (type < 0) return;
    o->mask |= BW_P | BW_PL | BW_H | BW_DM | BW_S;
    o->pl.type = type;
    o->h.maxhp = o->h.hp = (int32_t)bw_range(o->pl.rng, stats[type][0], stats[type][1]);
    o->dm.def = (int32_t)bw_range(o->pl.rng, stats[type][2], stats[type][3]);
    o->dm.atk = type == BW_NPC ? 0 : (int32_t)bw_range(o->pl.rng, stats[type][4], stats[type][5]);
    o->s.character = '_';
    o->p.x = (double)bw_range(o->pl.rng, 0, BW_FB_W + 100) - 50.0;
    o->p.y = (double)bw_range(o->pl.rng, 0, BW_FB_H + 100) - 50.0;
}

/* An order-independent digest of one component instance of an entity. */
static uint64_t bw_digest(uint32_t entity_index, uint32_t component, const void *bytes, size_t size)
{
    uint64_t h = 0xCBF29CE484222325ull ^ ((uint64_t)entity_index << 8 | component);
    size_t k;
    for (k = 0; k < size; ++k) h = (h ^ ((const unsigned char *)bytes)[k]) * 0x100000001B3ull;
    return h ^ (h >> 29);
}
static const size_t bw_sizes[7] = {sizeof(bw_vec2), sizeof(bw_vec2), sizeof(bw_data), sizeof(bw_player),
                                   sizeof(bw_health), sizeof(bw_damage), sizeof(bw_sprite)};

/* ---- the limit: an archetype store ------------------------------------------ */
typedef struct bw_table {
    uint32_t mask, count;
    uint32_t *entity_index;
    bw_vec2 *p, *v;
    bw_data *d;
    bw_player *pl;
    bw_health *h;
    bw_damage *dm;
    bw_sprite *s;
} bw_table;
typedef struct bw_plain {
    bw_table table[BW_MASKS];
    uint32_t num_tables;
    char fb[BW_FB_W * BW_FB_H];
} bw_plain;

static void *bw_column(uint32_t mask, uint32_t bit, uint32_t count, size_t size)
{
    return (mask & bit) ? bench_alloc((size_t)count * size) : NULL;
}
static void bw_plain_build(bw_plain *a, const bw_init *init, const uint32_t *entity_index, uint32_t n)
{
    uint32_t counts[BW_MASKS] = {0}, at[BW_MASKS], k, m;
    memset(a, 0, sizeof *a);
    for (k = 0; k < n; ++k) counts[init[k].mask]++;
    for (m = 0; m < BW_MASKS; ++m) {
        bw_table *t = &a->table[a->num_tables];
        at[m] = a->num_tables;
        if (!counts[m]) continue;
        t->mask = m;
        t->entity_index = (uint32_t *)bench_alloc(counts[m] * sizeof(uint32_t));
        t->p = (bw_vec2 *)bw_column(m, BW_P, counts[m], sizeof(bw_vec2));
        t->v = (bw_vec2 *)bw_column(m, BW_V, counts[m], sizeof(bw_vec2));
        t->d = (bw_data *)bw_column(m, BW_D, counts[m], sizeof(bw_data));
        t->pl = (bw_player *)bw_column(m, BW_PL, counts[m], sizeof(bw_player));
        t->h = (bw_health *)bw_column(m, BW_H, counts[m], sizeof(bw_health));
        t->dm = (bw_damage *)bw_column(m, BW_DM, counts[m], sizeof(bw_damage));
        t->s = (bw_sprite *)bw_column(m, BW_S, counts[m], sizeof(bw_sprite));
        a->num_tables++;
    }
    for (k = 0; k < n; ++k) {
        const bw_init *o = &init[k];
        bw_table *t = &a->table[at[o->mask]];
        uint32_t r = t->count++;
        t->entity_index[r] = entity_index[k];
        if (t->p) t->p[r] = o->p;
        if (t->v) t->v[r] = o->v;
        if (t->d) t->d[r] = o->d;
        if (t->pl) t->pl[r] = o->pl;
        if (t->h) t->h[r] = o->h;
        if (t->dm) t->dm[r] = o->dm;
        if (t->s) t->s[r] = o->s;
    }
}
static void bw_plain_free(bw_plain *a)
{
    uint32_t k;
    for (k = 0; k < a->num_tables; ++k) {
        bw_table *t = &a->table[k];
        free(t->entity_index), free(t->p), free(t->v), free(t->d), free(t->pl), free(t->h), free(t->dm), free(t->s);
    }
}
static uint64_t bw_plain_digest(const bw_plain *a)
{
    uint64_t sum = 0;
    uint32_t k, r, c;
    for (k = 0; k < a->num_tables; ++k) {
        const bw_table *t = &a->table[k];
        const void *col[7];
        col[0] = t->p, col[1] = t->v, col[2] = t->d, col[3] = t->pl, col[4] = t->h, col[5] = t->dm, col[6] = t->s;
        for (c = 0; c < 7; ++c)
            for (r = 0; col[c] && r < t->count; ++r)
                sum += bw_digest(t->entity_index[r], c, (const char *)col[c] + r * bw_sizes[c], bw_sizes[c]);
    }
    return sum;
}

#define BW_DT (1.0 / 60.0)
/* the systems over the archetype store: every table holding the components */
/* system k of the seven over every table holding its components */
static void bw_plain_system(bw_plain *a, uint32_t k)
{
    static const uint32_t need[7] = {BW_P | BW_V, BW_D, BW_P | BW_V | BW_D, BW_H, BW_H | BW_DM, BW_S | BW_PL, BW_P | BW_S};
    uint32_t i, r;
    for (i = 0; i < a->num_tables; ++i) {
        bw_table *t = &a->table[i];
        if ((t->mask & need[k]) != need[k]) continue;
        switch (k) {
        case 0: for (r = 0; r < t->count; ++r) bw_move(&t->p[r], &t->v[r], BW_DT); break;
        case 1: for (r = 0; r < t->count; ++r) bw_update_data(&t->d[r], BW_DT); break;
        case 2: for (r = 0; r < t->count; ++r) bw_more_complex(&t->p[r], &t->v[r], &t->d[r], t->entity_index[r]); break;
        case 3: for (r = 0; r < t->count; ++r) bw_update_health(&t->h[r]); break;
        case 4: for (r = 0; r < t->count; ++r) bw_update_damage(&t->h[r], &t->dm[r]); break;
        case 5: for (r = 0; r < t->count; ++r) bw_update_sprite(&t->s[r], &t->pl[r], t->h ? &t->h[r] : NULL); break;
        default: for (r = 0; r < t->count; ++r) bw_render(a->fb, &t->p[r], &t->s[r]); break;
        }
    }
}
static void bw_plain_systems_2(void *p)
{
    bw_plain_system((bw_plain *)p, 0);
    bw_plain_system((bw_plain *)p, 1);
}
static void bw_plain_systems_7(void *p)
{
    uint32_t k;
    for (k = 0; k < 7; ++k) bw_plain_system((bw_plain *)p, k);
}

/* ---- ours: a world, a manager per component, the seven systems declared ------
   The README's "Systems" section is this code (tests/check_readme_systems.sh
   compares them); bench prints its size as systems_7_lines. */
typedef struct bw_ours {
    ecs_world w;
    bw_positions pos;
    bw_velocities vel;
    bw_datas data;
    bw_players players;
    bw_healths health;
    bw_damages damage;
    bw_sprites sprites;
    char fb[BW_FB_W * BW_FB_H];
} bw_ours;

static void bw_fail(const char *what, const ecs_error *err)
{
    fprintf(stderr, "bench: systems: %s: %s\n", what, err ? err->message : "failed");
    exit(1);
}

/* --- systems: begin --- */
#define BW_MOVE(X) X(bw_positions, pos, ECS_WRITE) X(bw_velocities, vel, ECS_READ)
ECS_WORLD_SYSTEM_DEFINE(bw_movement, BW_MOVE, 0) { bw_move(&pos.p[k], &vel.v[k], frame->dt); }
#define BW_DATA(X) X(bw_datas, dat, ECS_WRITE)
ECS_WORLD_SYSTEM_DEFINE(bw_data_update, BW_DATA, 0) { bw_update_data(&dat.d[k], frame->dt); }
#define BW_COMPLEX(X) X(bw_positions, pos, ECS_READ) X(bw_velocities, vel, ECS_WRITE) X(bw_datas, dat, ECS_READ)
ECS_WORLD_SYSTEM_DEFINE(bw_complex, BW_COMPLEX, 0) { bw_more_complex(&pos.p[k], &vel.v[k], &dat.d[k], ecs_entity_index(entity)); }
#define BW_HEALTH(X) X(bw_healths, hp, ECS_WRITE)
ECS_WORLD_SYSTEM_DEFINE(bw_health_update, BW_HEALTH, 0) { bw_update_health(&hp.h[k]); }
#define BW_DAMAGE(X) X(bw_healths, hp, ECS_WRITE) X(bw_damages, dmg, ECS_READ)
ECS_WORLD_SYSTEM_DEFINE(bw_damage_update, BW_DAMAGE, 0) { bw_update_damage(&hp.h[k], &dmg.dm[k]); }
#define BW_SPRITE(X) X(bw_sprites, spr, ECS_WRITE) X(bw_players, pl, ECS_READ) X(bw_healths, hp, ECS_OPTIONAL)
ECS_WORLD_SYSTEM_DEFINE(bw_sprite_update, BW_SPRITE, 0) { bw_update_sprite(&spr.s[k], &pl.pl[k], hp.h ? &hp.h[k] : NULL); }
#define BW_RENDER(X) X(bw_positions, pos, ECS_READ) X(bw_sprites, spr, ECS_READ)
ECS_WORLD_SYSTEM_DEFINE(bw_render_frame, BW_RENDER, ECS_SERIAL) { bw_render((char *)frame->user, &pos.p[k], &spr.s[k]); }

static const ecs_system_desc *const bw_systems[7] = {&bw_movement_system, &bw_data_update_system,
    &bw_complex_system, &bw_health_update_system, &bw_damage_update_system, &bw_sprite_update_system,
    &bw_render_frame_system};
/* once: the stores, groups {position, velocity} in {.., data} in all seven, the systems in order */
static ecs_result bw_ours_register(bw_ours *g, ecs_error *err)
{
    static const char *const names[7] = {"bw_positions", "bw_velocities", "bw_datas", "bw_players",
                                         "bw_healths", "bw_damages", "bw_sprites"};
    ecs_manager *m[7] = {&g->pos.core, &g->vel.core, &g->data.core, &g->players.core, &g->health.core,
                         &g->damage.core, &g->sprites.core};
    ecs_result r = ECS_OK;
    uint32_t k;
    for (k = 0; k < 7 && r == ECS_OK; ++k) r = ecs_world_add_manager(&g->w, names[k], m[k], err);
    if (r == ECS_OK) r = ecs_world_group(&g->w, names, 2, err);
    if (r == ECS_OK) r = ecs_world_group(&g->w, names, 3, err);
    if (r == ECS_OK) r = ecs_world_group(&g->w, names, 7, err);
    for (k = 0; k < 7 && r == ECS_OK; ++k) r = ecs_world_add_system(&g->w, bw_systems[k], err);
    return r;
}
/* each frame */
static ecs_result bw_ours_frame(bw_ours *g, const ecs_jobs *jobs, ecs_error *err)
{
    ecs_frame frame = {BW_DT, 0, g->fb};
    return ecs_world_run_systems(&g->w, &frame, jobs, err);
}
/* --- systems: end --- */

static void bw_ours_systems(void *p)
{
    ecs_error err;
    if (bw_ours_frame((bw_ours *)p, NULL, &err) != ECS_OK) bw_fail("run", &err);
}
/* systems_2 runs the first two of the seven: the last five out, then back in order */
static void bw_ours_first_two(bw_ours *g, int only_two)
{
    ecs_error err;
    uint32_t k;
    for (k = 2; k < 7; ++k)
        if ((only_two ? ecs_world_remove_system(&g->w, bw_systems[k]->name, &err)
                      : ecs_world_add_system(&g->w, bw_systems[k], &err)) != ECS_OK)
            bw_fail("systems_2", &err);
}

static void bw_ours_build(bw_ours *g, const bw_init *init, const ecs_entity *ids, uint32_t n)
{
    uint32_t k;
    ecs_error err;
    if (bw_positions_init(&g->pos, ECS_LOOKUP_DENSE) || bw_velocities_init(&g->vel, ECS_LOOKUP_DENSE) ||
        bw_datas_init(&g->data, ECS_LOOKUP_DENSE) || bw_players_init(&g->players, ECS_LOOKUP_DENSE) ||
        bw_healths_init(&g->health, ECS_LOOKUP_DENSE) || bw_damages_init(&g->damage, ECS_LOOKUP_DENSE) ||
        bw_sprites_init(&g->sprites, ECS_LOOKUP_DENSE))
        bw_fail("init", NULL);
    if (bw_ours_register(g, &err) != ECS_OK) bw_fail("register", &err);
    for (k = 0; k < n; ++k) { /* (create first: it may move the arrays; a group may move the instance) */
        const bw_init *o = &init[k];
        ecs_entity e = ids[k];
        if (o->mask & BW_P) bw_positions_create(&g->pos, e), g->pos.p[bw_positions_lookup(&g->pos, e).i] = o->p;
        if (o->mask & BW_V) bw_velocities_create(&g->vel, e), g->vel.v[bw_velocities_lookup(&g->vel, e).i] = o->v;
        if (o->mask & BW_D) bw_datas_create(&g->data, e), g->data.d[bw_datas_lookup(&g->data, e).i] = o->d;
        if (o->mask & BW_PL) bw_players_create(&g->players, e), g->players.pl[bw_players_lookup(&g->players, e).i] = o->pl;
        if (o->mask & BW_H) bw_healths_create(&g->health, e), g->health.h[bw_healths_lookup(&g->health, e).i] = o->h;
        if (o->mask & BW_DM) bw_damages_create(&g->damage, e), g->damage.dm[bw_damages_lookup(&g->damage, e).i] = o->dm;
        if (o->mask & BW_S) bw_sprites_create(&g->sprites, e), g->sprites.s[bw_sprites_lookup(&g->sprites, e).i] = o->s;
    }
}
static uint64_t bw_ours_digest(const bw_ours *g)
{
    const ecs_manager *m[7];
    const void *col[7];
    uint64_t sum = 0;
    uint32_t c, i;
    m[0] = &g->pos.core, m[1] = &g->vel.core, m[2] = &g->data.core, m[3] = &g->players.core;
    m[4] = &g->health.core, m[5] = &g->damage.core, m[6] = &g->sprites.core;
    col[0] = g->pos.p, col[1] = g->vel.v, col[2] = g->data.d, col[3] = g->players.pl;
    col[4] = g->health.h, col[5] = g->damage.dm, col[6] = g->sprites.s;
    for (c = 0; c < 7; ++c)
        for (i = 0; i < m[c]->count; ++i)
            if (!ecs_entity_is_nil(m[c]->entity[i]))
                sum += bw_digest(ecs_entity_index(m[c]->entity[i]), c, (const char *)col[c] + i * bw_sizes[c],
                                 bw_sizes[c]);
    return sum;
}

/* Times a(ca) and b(cb) in turns, BENCH_REPS times each after a warm-up of
   each, so that both see the same state of a shared machine: the medians in
   *ta and *tb (ns). */
static void bw_time_pair(bench__fn a, void *ca, bench__fn b, void *cb, double *ta, double *tb)
{
    double sa[64], sb[64], t0;
    int r, reps = BENCH_REPS < 64 ? BENCH_REPS : 64;
    for (r = -1; r < reps; ++r) {
        t0 = bench_now_ns();
        a(ca);
        if (r >= 0) sa[r] = bench_now_ns() - t0;
        t0 = bench_now_ns();
        b(cb);
        if (r >= 0) sb[r] = bench_now_ns() - t0;
    }
    *ta = bench_median(sa, reps);
    *tb = bench_median(sb, reps);
}

/* Each system alone, ours (its registered query and body, as
   ecs_world_run_systems walks them on one thread) against the limit's, to
   stderr: where the time goes. */
typedef struct bw_one {
    bw_ours *g;
    bw_plain *a;
    uint32_t k;
} bw_one;
static void bw_ours_one(void *p)
{
    const bw_one *o = (const bw_one *)p;
    const ecs_world_system *s = &o->g->w.systems[o->k];
    ecs_frame frame = {BW_DT, 0, NULL};
    ecs_world_cursor c;
    ecs_world_chunk chunk;
    frame.user = o->g->fb;
    ecs_world_cursor_start(&c, &s->query, 0, UINT32_MAX); /* the seven list required terms first */
    while (ecs_world_cursor_next(&c, &chunk)) s->desc->chunk(&frame, &chunk, s->manager);
}
static void bw_plain_one(void *p)
{
    const bw_one *o = (const bw_one *)p;
    bw_plain_system(o->a, o->k);
}
static void bw_each_system(bw_ours *g, bw_plain *a, uint32_t n, const char *what)
{
    bw_one o;
    double t_ours, t_plain;
    o.g = g, o.a = a;
    fprintf(stderr, "bench: systems: %s, each alone, ours / plain ns per entity:", what);
    for (o.k = 0; o.k < 7; ++o.k) {
        bw_time_pair(bw_ours_one, &o, bw_plain_one, &o, &t_ours, &t_plain);
        fprintf(stderr, " %s %.3f / %.3f;", g->w.systems[o.k].desc->name, t_ours / n, t_plain / n);
    }
    fprintf(stderr, "\n");
}

/* One data set (plain or mixed entities, n of them): ours and the limit, same
   run; rows named with suffix ("" or "_2e17"). */
static void bw_scenario(uint32_t n, int mixed, const char *suffix)
{
    bw_ours *g = (bw_ours *)calloc(1, sizeof *g);
    bw_plain *a = (bw_plain *)calloc(1, sizeof *a);
    bw_init *init = (bw_init *)bench_alloc((size_t)n * sizeof *init);
    uint32_t *index = (uint32_t *)bench_alloc((size_t)n * sizeof *index), k;
    ecs_entity *ids = (ecs_entity *)bench_alloc((size_t)n * sizeof *ids);
    uint64_t ours, plain;
    double t_ours, t_plain;
    char row[64];
    if (!g || !a || ecs_world_init(&g->w) != ECS_OK) bw_fail("world", NULL);
    if (ecs_entity_create_many(&g->w.entities, n, ids) != ECS_OK) bw_fail("entities", &g->w.entities.error);
    for (k = 0; k < n; ++k) bw_make(k, n, mixed, index[k] = ecs_entity_index(ids[k]), &init[k]);
    bw_ours_build(g, init, ids, n);
    bw_plain_build(a, init, index, n);
    free(init), free(index), free(ids);
    if (!mixed) {
        bw_ours_first_two(g, 1);
        bw_time_pair(bw_ours_systems, g, bw_plain_systems_2, a, &t_ours, &t_plain);
        bench_row("systems_2_ns", t_ours / n, "ns");
        bench_row("systems_2_plain_ns", t_plain / n, "ns");
        bw_ours_first_two(g, 0);
    }
    bw_time_pair(bw_ours_systems, g, bw_plain_systems_7, a, &t_ours, &t_plain);
    snprintf(row, sizeof row, "systems_7%s%s_ns", mixed ? "_mixed" : "", suffix);
    bench_row(row, t_ours / n, "ns");
    snprintf(row, sizeof row, "systems_7%s%s_plain_ns", mixed ? "_mixed" : "", suffix);
    bench_row(row, t_plain / n, "ns");
    if (!bench__quiet) bw_each_system(g, a, n, row);
    ours = bw_ours_digest(g), plain = bw_plain_digest(a);
    if (ours != plain) {
        fprintf(stderr, "bench: systems: the query version and the plain one disagree (%016llx, %016llx)\n",
                (unsigned long long)ours, (unsigned long long)plain);
        exit(1);
    }
    bench_checksum_add((double)(ours >> 12));
    for (k = 0; k < BW_FB_W * BW_FB_H; ++k) bench_checksum_add((double)(g->fb[k] + a->fb[k]));
    ecs_world_free(&g->w);
    bw_positions_free(&g->pos), bw_velocities_free(&g->vel), bw_datas_free(&g->data);
    bw_players_free(&g->players), bw_healths_free(&g->health), bw_damages_free(&g->damage);
    bw_sprites_free(&g->sprites);
    bw_plain_free(a);
    free(g), free(a);
}

/* Non-blank lines between the lines holding "--- NAME: begin ---" and
   "--- NAME: end ---" of this file that are not comments: -1 when the
   source is not where it was compiled from. */
static double bw_count_lines(const char *name)
{
    FILE *f = fopen(__FILE__, "r");
    char line[512], begin[64], end[64];
    int on = 0, in_comment = 0, n = 0;
    if (!f) return -1;
    snprintf(begin, sizeof begin, "--- %s: begin ---", name);
    snprintf(end, sizeof end, "--- %s: end ---", name);
    while (fgets(line, sizeof line, f)) {
        const char *p = line;
        if (strstr(line, end)) break;
        if (strstr(line, begin)) {
            on = 1;
            continue;
        }
        while (*p == ' ' || *p == '\t') ++p;
        if (!on || *p == '\n' || *p == '\0') continue;
        if (in_comment) {
            in_comment = !strstr(p, "*/");
            continue;
        }
        if (strncmp(p, "//", 2) == 0) continue;
        if (strncmp(p, "/*", 2) == 0) {
            const char *close = strstr(p + 2, "*/");
            if (!close) in_comment = 1;
            else if (close[2 + strspn(close + 2, " \t\r\n")] != '\0') ++n; /* code after the comment */
            continue;
        }
        ++n;
    }
    fclose(f);
    return on ? (double)n : -1;
}

/* ---- query_*: two components, per match ------------------------------------- */
typedef struct bq_ctx {
    ecs_world w;
    bench_body pos, vel; /* position in one manager, velocity in the other */
    ecs_world_query q;
    ecs_world_cursor cursor;
    bench_vec3 *plain_pos, *plain_vel;
    uint32_t n;
} bq_ctx;
static void bq_query(void *p)
{
    bq_ctx *c = (bq_ctx *)p;
    ecs_world_chunk ch;
    uint32_t k;
    ecs_world_query_refresh(&c->q); /* once a frame, timed: the direct path's runs (a check when unchanged) */
    ecs_world_cursor_start(&c->cursor, &c->q, 0, UINT32_MAX);
    while (ecs_world_cursor_next(&c->cursor, &ch)) {
        if (!ch.index[0] && !ch.index[1]) { /* contiguous runs: plain arrays from first[t] */
            bench_vec3 *x = c->pos.position + ch.first[0];
            const bench_vec3 *v = c->vel.velocity + ch.first[1];
            for (k = 0; k < ch.count; ++k)
                x[k].x += v[k].x * 0.016f, x[k].y += v[k].y * 0.016f, x[k].z += v[k].z * 0.016f;
            continue;
        }
        for (k = 0; k < ch.count; ++k) {
            bench_vec3 *x = &c->pos.position[ecs_world_chunk_instance(&ch, 0, k)];
            const bench_vec3 *v = &c->vel.velocity[ecs_world_chunk_instance(&ch, 1, k)];
            x->x += v->x * 0.016f, x->y += v->y * 0.016f, x->z += v->z * 0.016f;
        }
    }
}
static void bq_plain(void *p)
{
    bq_ctx *c = (bq_ctx *)p;
    uint32_t k;
    for (k = 0; k < c->n; ++k) {
        bench_vec3 *x = &c->plain_pos[k];
        const bench_vec3 *v = &c->plain_vel[k];
        x->x += v->x * 0.016f, x->y += v->y * 0.016f, x->z += v->z * 0.016f;
    }
}
/* path 0: both direct; 1: both dense, grouped; 2: both dense, created in two
   different random orders (the lookup path) */
static double bq_row(uint32_t n, int path)
{
    static const char *const names[2] = {"position", "velocity"};
    ecs_world_query_desc desc;
    bq_ctx *c = (bq_ctx *)calloc(1, sizeof *c);
    ecs_entity *ids = (ecs_entity *)bench_alloc((size_t)n * sizeof *ids);
    uint32_t *perm = bench_shuffled(n, path == 2 ? 0xB0B2ull : 0xB0B0ull), *perm2 = bench_shuffled(n, 0xCAFEull), k;
    ecs_lookup_kind kind = path == 0 ? ECS_LOOKUP_DIRECT : ECS_LOOKUP_DENSE;
    ecs_error err;
    double ns;
    if (!c || ecs_world_init(&c->w) != ECS_OK || bench_body_init(&c->pos, kind) || bench_body_init(&c->vel, kind))
        bw_fail("query world", NULL);
    if (ecs_entity_create_many(&c->w.entities, n, ids) != ECS_OK) bw_fail("entities", &c->w.entities.error);
    for (k = 0; k < n; ++k) {
        bench_vec3 one = {1.0f, 2.0f, 3.0f};
        ecs_instance i = bench_body_create(&c->pos, ids[perm[k]]);
        c->pos.position[i.i] = one;
        i = bench_body_create(&c->vel, ids[path == 2 ? perm2[k] : perm[k]]);
        c->vel.velocity[i.i] = one;
    }
    if (ecs_world_add_manager(&c->w, names[0], &c->pos.core, &err) != ECS_OK ||
        ecs_world_add_manager(&c->w, names[1], &c->vel.core, &err) != ECS_OK)
        bw_fail("query register", &err);
    if (path == 1 && ecs_world_group(&c->w, names, 2, &err) != ECS_OK) bw_fail("query group", &err);
    memset(&desc, 0, sizeof desc);
    desc.required[0] = names[0], desc.required[1] = names[1];
    if (ecs_world_query_make(&c->w, &desc, &c->q, &err) != ECS_OK) bw_fail("query make", &err);
    if ((int)c->q.path != path) bw_fail("the query took another path", NULL);
    c->n = n;
    if (path == 0) { /* the limit, timed in turns with the direct path */
        double plain;
        c->plain_pos = (bench_vec3 *)bench_alloc((size_t)n * sizeof(bench_vec3));
        c->plain_vel = (bench_vec3 *)bench_alloc((size_t)n * sizeof(bench_vec3));
        for (k = 0; k < n; ++k) c->plain_pos[k] = c->pos.position[k + 1], c->plain_vel[k] = c->vel.velocity[k + 1];
        bw_time_pair(bq_query, c, bq_plain, c, &ns, &plain);
        bench_row("query_plain_ns", plain / n, "ns");
        bench_checksum_add((double)bench_sum_positions(c->plain_pos, n));
        free(c->plain_pos), free(c->plain_vel);
    } else {
        ns = bench__time(NULL, bq_query, NULL, c);
    }
    ns /= n;
    bench_checksum_add((double)bench_sum_positions(c->pos.position, c->pos.core.count));
    ecs_world_free(&c->w);
    bench_body_free(&c->pos), bench_body_free(&c->vel);
    free(c), free(ids), free(perm), free(perm2);
    return ns;
}

/* ---- query_direct_holes_*: a declared system on the direct path with holes --
   bench_n slots, position and velocity direct, each slot empty in each
   store with probability 1/10 (so about 19% of slots do not match); p += v *
   dt through ecs_world_run_systems (one thread), the same frame after a
   change (a slot of velocity taken and given back before it, so nothing a
   walk remembered may be used), and the loop written by hand over the same
   arrays (skip a slot unless both stores own it for one id). Per slot. */
#define BH_POS(X) X(bench_vec3, p)
#define BH_VEL(X) X(bench_vec3, v)
ECS_MANAGER_DEFINE(bh_position, BH_POS)
ECS_MANAGER_DEFINE(bh_velocity, BH_VEL)
#define BH_MOVE(X) X(bh_position, pos, ECS_WRITE) X(bh_velocity, vel, ECS_READ)
ECS_WORLD_SYSTEM_DEFINE(bh_move, BH_MOVE, 0)
{
    pos.p[k].x += vel.v[k].x * 0.016f, pos.p[k].y += vel.v[k].y * 0.016f, pos.p[k].z += vel.v[k].z * 0.016f;
}
typedef struct bh_ctx {
    ecs_world w;
    bh_position pos;
    bh_velocity vel;
    ecs_entity *ids;
    uint32_t n, frame;
} bh_ctx;
static void bh_system(void *p)
{
    bh_ctx *c = (bh_ctx *)p;
    ecs_frame frame = {0.016, 0, NULL};
    ecs_error err;
    if (ecs_world_run_systems(&c->w, &frame, NULL, &err) != ECS_OK) bw_fail("holes: run", &err);
}
static void bh_hand(void *p)
{
    bh_ctx *c = (bh_ctx *)p;
    uint32_t i, n = c->pos.core.count < c->vel.core.count ? c->pos.core.count : c->vel.core.count;
    for (i = 0; i < n; ++i) {
        uint32_t id = c->pos.entity[i].id;
        if (id == 0 || c->vel.entity[i].id != id) continue;
        c->pos.p[i].x += c->vel.v[i].x * 0.016f, c->pos.p[i].y += c->vel.v[i].y * 0.016f, c->pos.p[i].z += c->vel.v[i].z * 0.016f;
    }
}
static void bh_changed(void *p)
{
    bh_ctx *c = (bh_ctx *)p;
    ecs_entity e = c->ids[(c->frame++ * 7919u) % c->n];
    if (bh_velocity_destroy_entity(&c->vel, e)) bh_velocity_create(&c->vel, e); /* which slots are taken changed */
    bh_system(p);
}
static void bh_rows(uint32_t n)
{
    bh_ctx *c = (bh_ctx *)calloc(1, sizeof *c);
    uint64_t rng = 0x5EEDull;
    uint32_t k;
    double t_sys, t_hand, t_changed;
    ecs_error err;
    if (!c || ecs_world_init(&c->w) != ECS_OK || bh_position_init(&c->pos, ECS_LOOKUP_DIRECT) ||
        bh_velocity_init(&c->vel, ECS_LOOKUP_DIRECT))
        bw_fail("holes world", NULL);
    c->ids = (ecs_entity *)bench_alloc((size_t)n * sizeof *c->ids);
    c->n = n;
    if (ecs_entity_create_many(&c->w.entities, n, c->ids) != ECS_OK) bw_fail("holes: entities", NULL);
    for (k = 0; k < n; ++k) {
        bench_vec3 one = {1.0f, 2.0f, 3.0f};
        ecs_instance i; /* (create first: it may move the arrays) */
        if (bench_rand(&rng) % 10u) i = bh_position_create(&c->pos, c->ids[k]), c->pos.p[i.i] = one;
        if (bench_rand(&rng) % 10u) i = bh_velocity_create(&c->vel, c->ids[k]), c->vel.v[i.i] = one;
    }
    if (ecs_world_add_manager(&c->w, "bh_position", &c->pos.core, &err) != ECS_OK ||
        ecs_world_add_manager(&c->w, "bh_velocity", &c->vel.core, &err) != ECS_OK ||
        ecs_world_add_system(&c->w, &bh_move_system, &err) != ECS_OK)
        bw_fail("holes: register", &err);
    bw_time_pair(bh_system, c, bh_hand, c, &t_sys, &t_hand);
    bw_time_pair(bh_changed, c, bh_hand, c, &t_changed, &t_hand);
    bench_row("query_direct_holes_ns", t_sys / n, "ns");
    bench_row("query_direct_holes_changed_ns", t_changed / n, "ns");
    bench_row("query_direct_holes_hand_ns", t_hand / n, "ns");
    bench_checksum_add((double)bench_sum_positions(c->pos.p, c->pos.core.count));
    ecs_world_free(&c->w);
    bh_position_free(&c->pos), bh_velocity_free(&c->vel);
    free(c->ids), free(c);
}

static void bench_systems_rows(void)
{
    uint32_t n = bench_n >= 1000000u ? 1u << 20 : 1u << 16;
    bw_scenario(n, 0, "");
    bw_scenario(n, 1, "");
    bw_scenario(n >> 3, 1, "_2e17");
    bench_row("systems_7_lines", bw_count_lines("systems"), "lines");
    bench_row("systems_7_component_lines", bw_count_lines("components"), "lines");
    bench_row("query_direct_ns", bq_row(bench_n, 0), "ns");
    bench_row("query_group_ns", bq_row(bench_n, 1), "ns");
    bench_row("query_lookup_ns", bq_row(bench_n, 2), "ns");
    bh_rows(bench_n);
}

/* ---- threads (DESIGN §10): the parallel calls at 1 and 2 threads ---------------
   examples/jobs_pthreads.h's pool with 1 thread (every task on the calling
   thread, through the parallel code) and with 2; the serial call beside
   them, same data, same run. Variants alternate inside every repetition
   (3 x BENCH_REPS samples each), so machine noise hits them alike.
     transform_world_pass_mt{1,2}_ns   ecs_transform_world_pass_jobs, ns per
                          node, the transform_world_pass_ns hierarchy
     transform_world_pass_mt2_speedup  mt1 / mt2 (target >= 1.8 on 2 cores)
     transform_world_pass_mt1_vs_serial mt1 / ecs_transform_world_pass
                          (target <= 1.05)
     bevy_{wide,humanoids,large,chain}_pass_{serial,mt1,mt2}_ns and
     _mt2_speedup         the same on Bevy's transform_hierarchy shapes
                          (tests/transform_shapes.h): wide (a root, 500
                          children, 500 each: 250,501 nodes), humanoids (4,000
                          rigs of 68), large (a full binary tree 18 deep:
                          262,143), chain (2,500 deep), after reorder
     systems_7_mixed_mt{1,2}_ns  ecs_world_run_systems of the seven systems
                          of systems_7_mixed_ns (the same functions, each
                          system a query plus its writes; render serial: it
                          writes the frame buffer), ns per entity per frame
     systems_7_mixed_mt2_speedup, systems_7_mixed_mt1_vs_serial (serial: the
                          seven query loops of systems_7_mixed_ns)
     spawn_level_10k_mt{1,2}_us  ecs_spawner_spawn_jobs of the standard level
                          (as spawn_level_10k_us: unspawned between samples)
     spawn_level_10k_mt2_speedup, spawn_level_10k_mt1_vs_serial */

typedef void (*bth_fn)(void *ctx, int variant); /* variant 0 serial, 1 one thread, 2 two */
static ecs_jobs bth_jobs[3];
static void bth_probe_row(const char *name);

/* medians (ns) of the three variants, alternating in rotating order */
static void bth_time(bth_fn fn, bth_fn between, void *ctx, double *med)
{
    double s[3][192];
    int reps = 3 * BENCH_REPS < 192 ? 3 * BENCH_REPS : 192, r, q, v;
    for (r = -1; r < reps; ++r)
        for (q = 0; q < 3; ++q) {
            double t0;
            v = (q + (r < 0 ? 0 : r)) % 3;
            t0 = bench_now_ns();
            fn(ctx, v);
            if (r >= 0) s[v][r] = bench_now_ns() - t0;
            if (between) between(ctx, v);
        }
    for (v = 0; v < 3; ++v) med[v] = bench_median(s[v], reps);
}

static void bth_pass(void *ctx, int v)
{
    ecs_transform_manager *tm = (ecs_transform_manager *)ctx;
    if (v == 0) ecs_transform_world_pass(tm);
    else ecs_transform_world_pass_jobs(tm, &bth_jobs[v]);
    bench_checksum_add(tm->world[tm->count - 1u].m[13]);
}

/* rows name_serial_ns (when serial_row), name_mt1_ns, name_mt2_ns, speedup, mt1 vs serial */
static void bth_rows(const char *name, const double *med, double per, const char *unit, int serial_row)
{
    char m[48];
    const char *u = unit;
    if (serial_row) snprintf(m, sizeof m, "%s_serial_%s", name, u), bench_row(m, med[0] / per, u);
    snprintf(m, sizeof m, "%s_mt1_%s", name, u), bench_row(m, med[1] / per, u);
    snprintf(m, sizeof m, "%s_mt2_%s", name, u), bench_row(m, med[2] / per, u);
    snprintf(m, sizeof m, "%s_mt2_speedup", name), bench_row(m, med[1] / med[2], "x");
    snprintf(m, sizeof m, "%s_mt1_vs_serial", name), bench_row(m, med[1] / med[0], "x");
}

static void bth_transform_rows(void)
{
    static const struct { shape_kind kind; uint32_t size; const char *name; } bevy[4] = {
        {SHAPE_WIDE, 500, "bevy_wide_pass"}, {SHAPE_HUMANOIDS, 4000, "bevy_humanoids_pass"},
        {SHAPE_LARGE, 18, "bevy_large_pass"}, {SHAPE_CHAIN, 2500, "bevy_chain_pass"}};
    uint32_t n = bench_n / BT_LEVEL * BT_LEVEL, k, b, num_es = n;
    uint32_t *parent = bt_levels(n / BT_LEVEL, 0x1234u);
    ecs_entity *es;
    ecs_entity_manager em;
    ecs_transform_manager tm;
    double med[3];
    for (b = 0; b < 4; ++b) /* the Bevy shapes' entities too (--quick's n is smaller than large's 262,143) */
        if (shape_count(bevy[b].kind, bevy[b].size) > num_es) num_es = shape_count(bevy[b].kind, bevy[b].size);
    es = (ecs_entity *)bench_alloc((size_t)num_es * sizeof *es);
    ecs_entity_manager_init(&em);
    for (k = 0; k < num_es; ++k) es[k] = ecs_entity_create(&em);
    bt_build(&tm, &em, es, parent, n, ECS_TRANSFORM_IMMEDIATE, 0xABCDu);
    if (ecs_transform_reorder(&tm) != ECS_OK) exit(1);
    bth_probe_row("transform_world_pass_probe_mt2_speedup");
    bth_time(bth_pass, NULL, &tm, med);
    bth_rows("transform_world_pass", med, n, "ns", 0);
    ecs_transform_manager_free(&tm);
    free(parent);
    for (b = 0; b < 4; ++b) {
        uint32_t count = shape_count(bevy[b].kind, bevy[b].size);
        uint64_t rng = 77u;
        parent = (uint32_t *)bench_alloc((size_t)count * sizeof *parent);
        shape_build(bevy[b].kind, bevy[b].size, parent, 0x5EEDu);
        ecs_transform_manager_init(&tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
        for (k = 0; k < count; ++k) { /* entity k: es[k] (num_es >= count) */
            ecs_mat4 m = bt_local(&rng);
            ecs_transform_create(&tm, es[k], &m, ecs_instance_make(parent[k]));
        }
        if (ecs_transform_reorder(&tm) != ECS_OK) exit(1);
        bth_time(bth_pass, NULL, &tm, med);
        bth_rows(bevy[b].name, med, count, "ns", 1);
        ecs_transform_manager_free(&tm);
        free(parent);
    }
    free(es);
    ecs_entity_manager_free(&em);
}

/* the seven systems of systems_7_mixed_ns through ecs_world_run_systems:
   variant 0 serial (no jobs), 1 and 2 threads */
static void bth_frame(void *ctx, int v)
{
    ecs_error err;
    if (bw_ours_frame((bw_ours *)ctx, v == 0 ? NULL : &bth_jobs[v], &err) != ECS_OK) bw_fail("run systems", &err);
}

/* the probe: a plain compute loop (no memory traffic) split in two tasks */
static volatile uint32_t bth_probe_sink;
static void bth_probe_task(void *user, uint32_t k)
{
    uint32_t x = 0x9E3779B9u + k, i;
    (void)user;
    for (i = 0; i < 4000000u; ++i) x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    bth_probe_sink = x;
}
static void bth_probe(void *ctx, int v)
{
    (void)ctx;
    if (v == 0) bth_probe_task(NULL, 0), bth_probe_task(NULL, 1);
    else ecs_jobs_run(&bth_jobs[v], 2, bth_probe_task, NULL, NULL);
}
/* row `name`: the two-thread speedup of the probe, measured just before a
   speedup row (a busy machine shows as a low probe) */
static void bth_probe_row(const char *name)
{
    double med[3];
    bth_time(bth_probe, NULL, NULL, med);
    bench_row(name, med[1] / med[2], "x");
}

static void bth_systems_rows(void)
{
    uint32_t n = bench_n >= 1000000u ? 1u << 20 : 1u << 16, k;
    bw_ours *g = (bw_ours *)calloc(1, sizeof *g);
    bw_init *init = (bw_init *)bench_alloc((size_t)n * sizeof *init);
    ecs_entity *ids = (ecs_entity *)bench_alloc((size_t)n * sizeof *ids);
    double med[3];
    if (!g || ecs_world_init(&g->w) != ECS_OK) bw_fail("world", NULL);
    if (ecs_entity_create_many(&g->w.entities, n, ids) != ECS_OK) bw_fail("entities", NULL);
    for (k = 0; k < n; ++k) bw_make(k, n, 1, ecs_entity_index(ids[k]), &init[k]);
    bw_ours_build(g, init, ids, n);
    free(init), free(ids);
    bth_probe_row("thread_probe_mt2_speedup");
    bth_time(bth_frame, NULL, g, med);
    bth_rows("systems_7_mixed", med, n, "ns", 0);
    bench_checksum_add((double)(bw_ours_digest(g) >> 12));
    ecs_world_free(&g->w);
    bw_positions_free(&g->pos), bw_velocities_free(&g->vel), bw_datas_free(&g->data);
    bw_players_free(&g->players), bw_healths_free(&g->health), bw_damages_free(&g->damage);
    bw_sprites_free(&g->sprites);
    free(g);
}

typedef struct bth_spawn {
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_manager mesh, actor;
    ecs_spawner sp;
    ecs_compiler_output out;
    ecs_entity ents[BR_LEVEL_ENTITIES];
} bth_spawn;

static void bth_spawn_once(void *ctx, int v)
{
    bth_spawn *s = (bth_spawn *)ctx;
    ecs_error err;
    ecs_result r = v == 0 ? ecs_spawner_spawn(&s->sp, &s->em, s->out.blob, s->out.size, s->ents, &err)
                          : ecs_spawner_spawn_jobs(&s->sp, &s->em, s->out.blob, s->out.size, 1, s->ents, &bth_jobs[v], &err);
    if (r != ECS_OK) br_fail("spawn", &err);
    bench_checksum_add(s->tm.world[s->tm.count - 1u].m[12] + (float)s->mesh.count);
}

static void bth_unspawn(void *ctx, int v)
{
    bth_spawn *s = (bth_spawn *)ctx;
    (void)v;
    ecs_spawner_unspawn(&s->sp, &s->em, s->out.blob, 1, s->ents);
}

static void bth_spawn_rows(void)
{
    static const ecs_field_desc mesh_fields[] = {{"mesh", 8, 8}, {"flags", 4, 4}};
    static const ecs_field_desc actor_fields[] = {{"mass", 4, 4}, {"radius", 4, 4}};
    bth_spawn *s = (bth_spawn *)calloc(1, sizeof *s);
    size_t json_len = 0;
    char *json = br_level_json(BR_LEVEL_ENTITIES, 0x5EED5EEDull, &json_len);
    ecs_compiler compiler;
    ecs_error err;
    double med[3];
    if (!s) exit(1);
    ecs_compiler_init(&compiler);
    if (ecs_compiler_register_standard(&compiler, &err) != ECS_OK ||
        ecs_compiler_compile(&compiler, json, json_len, 0, &s->out, &err) != ECS_OK)
        br_fail("compile", &err);
    ecs_entity_manager_init(&s->em);
    ecs_transform_manager_init(&s->tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    if (ecs_manager_init(&s->mesh, mesh_fields, 2, ECS_LOOKUP_DENSE) != ECS_OK ||
        ecs_manager_init(&s->actor, actor_fields, 2, ECS_LOOKUP_DENSE) != ECS_OK)
        exit(1);
    ecs_spawner_init(&s->sp);
    if (ecs_spawner_register(&s->sp, "transform", ecs_transform_spawn, ecs_transform_unspawn,
                             ECS_TRANSFORM_SPAWN_INSTANCE_SIZE, &s->tm, &err) != ECS_OK ||
        ecs_spawner_register(&s->sp, "mesh", ecs_manager_spawn, ecs_manager_unspawn, ECS_RESOURCE_MESH_SIZE, &s->mesh,
                             &err) != ECS_OK ||
        ecs_spawner_register(&s->sp, "actor", ecs_manager_spawn, ecs_manager_unspawn, ECS_RESOURCE_ACTOR_SIZE,
                             &s->actor, &err) != ECS_OK)
        br_fail("spawner register", &err);
    bth_probe_row("spawn_level_10k_probe_mt2_speedup");
    bth_time(bth_spawn_once, bth_unspawn, s, med);
    bth_rows("spawn_level_10k", med, 1000.0, "us", 0);
    ecs_spawner_free(&s->sp);
    ecs_manager_free(&s->mesh);
    ecs_manager_free(&s->actor);
    ecs_transform_manager_free(&s->tm);
    ecs_entity_manager_free(&s->em);
    ecs_compiler_output_free(&s->out);
    ecs_compiler_free(&compiler);
    free(json);
    free(s);
}

static void bench_threads_rows(long cores)
{
    ecs_jobs_pool one, two;
    if (ecs_jobs_pool_create(&one, 1) != ECS_OK || ecs_jobs_pool_create(&two, 2) != ECS_OK) {
        fprintf(stderr, "bench: the thread pool could not start\n");
        exit(1);
    }
    memset(&bth_jobs[0], 0, sizeof bth_jobs[0]);
    bth_jobs[1] = ecs_jobs_pool_jobs(&one);
    bth_jobs[2] = ecs_jobs_pool_jobs(&two);
    fprintf(stderr, "bench: threads: 1 and 2 threads on %ld cores\n", cores);
    bth_transform_rows();
    bth_systems_rows();
    bth_spawn_rows();
    ecs_jobs_pool_destroy(&two);
    ecs_jobs_pool_destroy(&one);
}

/* ==== dependency checker ===================================================== */

/* The dependency checker's rows (DESIGN §13, README Benchmark), through the
   tool's own code (examples/levelc_deps.h, as levelc runs it) on a project
   generated in a temporary folder: BD_SOURCES level sources (spread over
   folders of 100), each a few entities with transforms and actors and two
   references to meshes (20,000 references for 10,000 sources; 1,000 of
   them name models/shared), and BD_ASSETS mesh files. The standard
   compiler reads them (mesh paths).
     deps_cold_mb_per_s  source bytes / median time of a check without a
                         cache (walk, read, parse every source, write the cache)
     deps_warm_ratio     median time of a check after one source changed
                         (walk, stat, read that one, write the cache) / the
                         cold median
     deps_walk_ratio     median time of a bare walk that asks every file for
                         its size and time (what a warm check cannot skip) /
                         the cold median: the floor of deps_warm_ratio
     rename_ratio        median time of a rename of models/shared (and back,
                         alternating: 1,000 sources patched, the mesh moved,
                         each new text synced before the renames) / median
                         time to read those 1,000 files and write them back
                         (no sync), same run
     rename_nosync_ratio the same with levelc rename --no-sync
   File-system work: the figures depend on the disk and the page cache (the
   files are warm after the first repetition); quick mode uses 2,000
   sources. */

#define BD_ASSETS 2000u

static unsigned bd_sources = 10000u;

/* Writes source k (version v changes a number); its bytes, 0 on failure. */
static size_t bd_write_source(const char *dir, unsigned k, unsigned v)
{
    char path[512], text[4096], first[64];
    size_t n = 0;
    unsigned e;
    FILE *f;
    if (k < 1000) snprintf(first, sizeof first, "models/shared");
    else snprintf(first, sizeof first, "models/m%u", (k * 7u) % BD_ASSETS);
    n += (size_t)snprintf(text + n, sizeof text - n, "{\"entities\": [\n");
    for (e = 0; e < 6; ++e)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "  {\"name\": \"e%u\", \"components\": [{\"type\": \"transform\", \"position\": [%u.5, %u, -%u.25], "
                              "\"rotation\": [0, 0.70710677, 0, 0.70710677]}, {\"type\": \"actor\", \"mass\": %u, \"radius\": 0.5}"
                              "]},\n",
                              e, k % 97, e + v, e * 3, e + 1);
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "  {\"name\": \"a\", \"components\": [{\"type\": \"mesh\", \"mesh\": \"%s\"}]},\n"
                          "  {\"name\": \"b\", \"components\": [{\"type\": \"mesh\", \"mesh\": \"models/m%u\", \"flags\": 1}]}\n]}\n",
                          first, (k * 13u) % BD_ASSETS);
    snprintf(path, sizeof path, "%s/src/d%02u/s%05u.json", dir, k / 100, k);
    if (!(f = fopen(path, "wb"))) return 0;
    n = fwrite(text, 1, n, f) == n ? n : 0;
    return fclose(f) == 0 ? n : 0;
}

/* Makes the project; its source bytes (0 on failure). */
static size_t bd_make_project(const char *dir)
{
    char path[512];
    size_t bytes = 0, one;
    unsigned k;
    FILE *f;
    snprintf(path, sizeof path, "%s/src", dir);
    if (mkdir(path, 0777) != 0) return 0;
    snprintf(path, sizeof path, "%s/models", dir);
    if (mkdir(path, 0777) != 0) return 0;
    for (k = 0; k < bd_sources; k += 100) {
        snprintf(path, sizeof path, "%s/src/d%02u", dir, k / 100);
        if (mkdir(path, 0777) != 0) return 0;
    }
    for (k = 0; k < bd_sources; ++k) {
        if ((one = bd_write_source(dir, k, 0)) == 0) return 0;
        bytes += one;
    }
    for (k = 0; k <= BD_ASSETS; ++k) {
        if (k < BD_ASSETS) snprintf(path, sizeof path, "%s/models/m%u.mesh", dir, k);
        else snprintf(path, sizeof path, "%s/models/shared.mesh", dir);
        if (!(f = fopen(path, "wb"))) return 0;
        fprintf(f, "mesh %u\n", k);
        if (fclose(f) != 0) return 0;
    }
    return bytes;
}

/* Removes folder path and everything under it. */
static void bd_remove_tree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    char child[1024];
    while (d && (e = readdir(d)) != NULL) {
        struct stat st;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode)) bd_remove_tree(child);
        else remove(child);
    }
    if (d) closedir(d);
    rmdir(path);
}

typedef struct bd_ctx {
    char dir[256];
    ecs_compiler compiler;
    unsigned version, renames;
    double checksum;
    int failed;
} bd_ctx;

static void bd_scan(void *p)
{
    bd_ctx *c = (bd_ctx *)p;
    ldeps_project proj;
    if (!ldeps_scan_project(c->dir, &c->compiler, 0, &proj) || proj.errors) c->failed = 1;
    c->checksum += (double)proj.num_refs + (double)proj.sources_read;
    ldeps_project_free(&proj);
}

static void bd_drop_cache(void *p)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s", ((bd_ctx *)p)->dir, LDEPS_CACHE_NAME);
    remove(path);
}

static void bd_change_one(void *p)
{
    bd_ctx *c = (bd_ctx *)p;
    if (!bd_write_source(c->dir, 4321u % bd_sources, ++c->version)) c->failed = 1;
}

static void bd_rename(void *p)
{
    bd_ctx *c = (bd_ctx *)p;
    int odd = (int)(c->renames++ & 1u);
    if (ldeps_run_rename(c->dir, &c->compiler, 0, odd ? "models/shared2" : "models/shared",
                         odd ? "models/shared" : "models/shared2", 0) != 0)
        c->failed = 1;
}

/* The limit for a warm check: a walk that asks every file for its size and
   time, as the check does (fstatat in each folder), and nothing else. */
static void bd_walk_folder(bd_ctx *c, const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    char child[512];
    while (d && (e = readdir(d)) != NULL) {
        struct stat st;
        if (e->d_name[0] == '.') continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) c->failed = 1;
        else if (S_ISDIR(st.st_mode)) snprintf(child, sizeof child, "%s/%s", path, e->d_name), bd_walk_folder(c, child);
        else c->checksum += (double)st.st_size;
    }
    if (d) closedir(d);
}

static void bd_walk(void *p)
{
    bd_walk_folder((bd_ctx *)p, ((bd_ctx *)p)->dir);
}

/* The limit for a rename: read the 1,000 files naming the shared mesh and
   write each back (same bytes, no sync). */
static void bd_read_write(void *p)
{
    bd_ctx *c = (bd_ctx *)p;
    char path[512];
    unsigned k;
    for (k = 0; k < 1000u && k < bd_sources; ++k) {
        size_t len = 0;
        char *text;
        FILE *f;
        snprintf(path, sizeof path, "%s/src/d%02u/s%05u.json", c->dir, k / 100, k);
        if (!(text = ldeps_read_file(path, &len)) || !(f = fopen(path, "wb"))) {
            free(text);
            c->failed = 1;
            return;
        }
        if (fwrite(text, 1, len, f) != len) c->failed = 1;
        if (fclose(f) != 0) c->failed = 1;
        c->checksum += (double)len;
        free(text);
    }
}

static void bench_deps_rows(void)
{
    bd_ctx c;
    const char *tmp = getenv("TMPDIR");
    double cold, warm, rename, rename_nosync, rw, walk;
    size_t bytes;
    ecs_error err;
    memset(&c, 0, sizeof c);
    snprintf(c.dir, sizeof c.dir, "%s/ecs-bench-deps-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(c.dir)) {
        fprintf(stderr, "bench: deps rows skipped: cannot make a temporary folder (%s)\n", c.dir);
        return;
    }
    if (bench_n < 1000000u) bd_sources = 2000u; /* --quick */
    ecs_compiler_init(&c.compiler);
    bytes = bd_make_project(c.dir);
    if (!bytes || ecs_compiler_register_standard(&c.compiler, &err) != ECS_OK) {
        fprintf(stderr, "bench: deps rows skipped: cannot write the project in %s\n", c.dir);
    } else {
        ldeps_quiet = 1;
        cold = bench__time(bd_drop_cache, bd_scan, NULL, &c);
        warm = bench__time(bd_change_one, bd_scan, NULL, &c);
        rename = bench__time(NULL, bd_rename, NULL, &c);
        ldeps_sync = 0;
        rename_nosync = bench__time(NULL, bd_rename, NULL, &c);
        ldeps_sync = 1;
        rw = bench__time(NULL, bd_read_write, NULL, &c);
        walk = bench__time(NULL, bd_walk, NULL, &c);
        ldeps_quiet = 0;
        if (c.failed) fprintf(stderr, "bench: the deps rows FAILED a check or a rename (figures not meaningful)\n");
        bench_row("deps_cold_mb_per_s", (double)bytes / 1e6 / (cold / 1e9), "MB/s");
        bench_row("deps_warm_ratio", warm / cold, "x");
        bench_row("deps_walk_ratio", walk / cold, "x");
        bench_row("rename_ratio", rename / rw, "x");
        bench_row("rename_nosync_ratio", rename_nosync / rw, "x");
        bench_checksum_add(c.checksum);
    }
    ecs_compiler_free(&c.compiler);
    bd_remove_tree(c.dir);
}

/* ---- console (DESIGN 11): a world.hash round trip against a bare TCP echo ---------- */

#ifdef BENCH_SOCKETS
/* The console side: a thread that waits and polls, as a paused engine does. */
typedef struct bcon_server {
    ecs_console *console;
    volatile int stop;
} bcon_server;
static void *bcon_serve(void *p)
{
    bcon_server *s = (bcon_server *)p;
    while (!s->stop) {
        ecs_console_wait(s->console, 5);
        ecs_console_poll(s->console);
    }
    return NULL;
}

/* The baseline: a blocking echo of whatever arrives, one client. */
static void *bcon_echo(void *p)
{
    int listener = *(int *)p, fd = accept(listener, NULL, NULL), one = 1;
    unsigned char buf[4096];
    ssize_t got;
    if (fd < 0) return NULL;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    while ((got = recv(fd, buf, sizeof buf, 0)) > 0) {
        ssize_t sent = 0;
        while (sent < got) {
            ssize_t n = send(fd, buf + sent, (size_t)(got - sent), MSG_NOSIGNAL);
            if (n <= 0) break;
            sent += n;
        }
    }
    close(fd);
    return NULL;
}

static int bcon_connect(int port)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(0x7F000001u);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        fprintf(stderr, "bench: cannot connect to 127.0.0.1:%d\n", port);
        exit(1);
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void bcon_recv_all(int fd, unsigned char *buf, size_t n)
{
    size_t at = 0;
    while (at < n) {
        ssize_t got = recv(fd, buf + at, n - at, 0);
        if (got <= 0) {
            fprintf(stderr, "bench: the console's connection broke\n");
            exit(1);
        }
        at += (size_t)got;
    }
}

typedef struct bcon_ctx {
    int fd, echo;             /* echo: the reply is the request's bytes */
    unsigned char msg[128], reply[4096];
    size_t msg_size;
    uint32_t trips;
} bcon_ctx;

/* trips requests, each sent when the previous reply has come back. */
static void bcon_trips(void *p)
{
    bcon_ctx *x = (bcon_ctx *)p;
    uint32_t k, length;
    for (k = 0; k < x->trips; ++k) {
        if (send(x->fd, x->msg, x->msg_size, MSG_NOSIGNAL) != (ssize_t)x->msg_size) exit(1);
        if (x->echo) {
            bcon_recv_all(x->fd, x->reply, x->msg_size);
            continue;
        }
        bcon_recv_all(x->fd, x->reply, 8);
        length = (uint32_t)x->reply[4] << 24 | (uint32_t)x->reply[5] << 16 | (uint32_t)x->reply[6] << 8 | x->reply[7];
        if (length > sizeof x->reply - 8) exit(1);
        bcon_recv_all(x->fd, x->reply + 8, length);
    }
    bench_checksum_add((double)x->reply[8]);
}

static double bcon_console_trip_us(bcon_ctx *x, ecs_world *w)
{
    ecs_console_desc d;
    bcon_server server;
    pthread_t thread;
    ecs_error err;
    double ns;
    memset(&d, 0, sizeof d);
    d.world = w;
    if (!(server.console = ecs_console_create(&d, &err))) {
        fprintf(stderr, "bench: console: %s\n", err.message);
        exit(1);
    }
    server.stop = 0;
    pthread_create(&thread, NULL, bcon_serve, &server);
    x->fd = bcon_connect(ecs_console_port(server.console));
    x->echo = 0;
    ns = bench__time(NULL, bcon_trips, NULL, x);
    close(x->fd);
    server.stop = 1;
    pthread_join(thread, NULL);
    ecs_console_destroy(server.console);
    return ns / x->trips / 1e3;
}

static double bcon_echo_trip_us(bcon_ctx *x)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    pthread_t thread;
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    double ns;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(0x7F000001u);
    if (listener < 0 || bind(listener, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(listener, 1) != 0 ||
        getsockname(listener, (struct sockaddr *)&sa, &len) != 0) {
        fprintf(stderr, "bench: the echo server could not listen\n");
        exit(1);
    }
    pthread_create(&thread, NULL, bcon_echo, &listener);
    x->fd = bcon_connect((int)ntohs(sa.sin_port));
    x->echo = 1;
    ns = bench__time(NULL, bcon_trips, NULL, x);
    close(x->fd);
    pthread_join(thread, NULL);
    close(listener);
    return ns / x->trips / 1e3;
}

/* An idle console's poll (a listening socket, no client): what it costs
   a frame. */
static void bcon_polls(void *p)
{
    uint32_t k;
    for (k = 0; k < 100000u; ++k) bench_checksum_add((double)ecs_console_poll((ecs_console *)p));
}

static void bench_console_rows(void)
{
    static const char json[] = "{\"type\": \"command\", \"id\": 1, \"command\": \"world.hash\"}";
    static bcon_ctx x;
    ecs_world w;
    ecs_console *idle;
    double console_us, echo_us;
    fprintf(stderr, "bench: console: world.hash round trips on an empty world against a bare TCP echo\n");
    memset(&x, 0, sizeof x);
    x.msg_size = 8 + sizeof json - 1;
    x.msg[7] = (unsigned char)(sizeof json - 1);
    memcpy(x.msg + 8, json, sizeof json - 1);
    x.trips = bench_n >= 1000000u ? 4000u : 1000u;
    if (ecs_world_init(&w) != ECS_OK) exit(1);
    echo_us = bcon_echo_trip_us(&x);
    console_us = bcon_console_trip_us(&x, &w);
    bench_row("console_roundtrip_us", console_us, "us");
    bench_row("console_echo_roundtrip_us", echo_us, "us");
    bench_row("console_roundtrip_ratio", console_us / echo_us, "x");
    if (!(idle = ecs_console_create(NULL, NULL))) exit(1);
    bench_row("console_poll_idle_ns", bench__time(NULL, bcon_polls, NULL, idle) / 100000.0, "ns");
    ecs_console_destroy(idle);
    ecs_world_free(&w);
}
#else
static void bench_console_rows(void) { fprintf(stderr, "bench: console rows need POSIX sockets here\n"); }
#endif

/* ---- the plot: ns/entity against N --------------------------------------------- */

typedef struct bench__series {
    const char *metric;
    const char *colour;
    double ns[8];
} bench__series;

static const uint32_t bench__sizes[] = {1000u, 4000u, 16000u, 64000u, 250000u, 1000000u, 4000000u};
enum { BENCH__NS = sizeof bench__sizes / sizeof bench__sizes[0] };
static bench__series bench__series_list[] = {
    {"create_ns", "#1f77b4", {0}},
    {"alive_random_ns", "#ff7f0e", {0}},
    {"destroy_ns", "#2ca02c", {0}},
    {"component_create_ns", "#d62728", {0}},
    {"gather_plain_ns", "#000000", {0}},
    {"component_get_direct_ns", "#17becf", {0}},
    {"component_get_dense_ns", "#9467bd", {0}},
    {"component_get_hash_ns", "#8c564b", {0}},
    {"simulate_ns", "#e377c2", {0}},
    {"simulate_plain_ns", "#7f7f7f", {0}},
};
enum { BENCH__NSER = sizeof bench__series_list / sizeof bench__series_list[0] };
static int bench__swept;

/* Repetitions per point of the sweep: fewer than the table's BENCH_REPS (7)
   to keep bench/run.sh short; the plot's title says both. */
#define BENCH__SWEEP_REPS 5

/* Runs the entity and component rows at each N (quietly, BENCH__SWEEP_REPS
   repetitions) and keeps the plotted metrics; the table's rows are left as
   they were. */
static void bench_sweep(void)
{
    uint32_t saved_n = bench_n, s, k;
    int saved_rows = bench__num_rows, saved_reps = BENCH_REPS;
    BENCH_REPS = BENCH__SWEEP_REPS < BENCH_REPS ? BENCH__SWEEP_REPS : BENCH_REPS;
    bench__quiet = 1;
    for (s = 0; s < BENCH__NS; ++s) {
        bench_n = bench__sizes[s];
        fprintf(stderr, "plot: N = %u\n", (unsigned)bench_n);
        bench_entity_rows();
        bench_component_rows();
        for (k = 0; k < BENCH__NSER; ++k) bench__series_list[k].ns[s] = bench_row_value(bench__series_list[k].metric);
        bench__num_rows = saved_rows;
    }
    bench__quiet = 0;
    bench_n = saved_n;
    BENCH_REPS = saved_reps;
    bench__swept = 1;
}

/* The sweep's figures, one CSV line each: metric@N,value,ns. */
static void bench_print_sweep(FILE *out)
{
    uint32_t s, k;
    if (!bench__swept) return;
    for (k = 0; k < BENCH__NSER; ++k)
        for (s = 0; s < BENCH__NS; ++s)
            fprintf(out, "%s@%u,%.4f,ns\n", bench__series_list[k].metric, (unsigned)bench__sizes[s], bench__series_list[k].ns[s]);
}

/* The series drawn (almost) on top of series k, if any: within 5% at every N. */
static int bench__overlap(uint32_t k)
{
    uint32_t j, s;
    for (j = 0; j < k; ++j) {
        int close = 1;
        for (s = 0; s < BENCH__NS; ++s) {
            double a = bench__series_list[j].ns[s], b = bench__series_list[k].ns[s];
            close &= fabs(a - b) <= 0.05 * (a > b ? a : b);
        }
        if (close) return (int)j;
    }
    return -1;
}

static void bench_plot(const char *path, const char *machine)
{
    const double W = 820, H = 470, L = 70, R = 280, T = 46, B = 50;
    const double lx0 = log10(1000.0), lx1 = log10(4000000.0);
    double ymax = 0, ly0 = -1.0, ly1, ly;
    uint32_t s, k;
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "bench: cannot write %s\n", path);
        return;
    }
    for (k = 0; k < BENCH__NSER; ++k)
        for (s = 0; s < BENCH__NS; ++s)
            if (bench__series_list[k].ns[s] > ymax && bench__series_list[k].ns[s] < 1e6) ymax = bench__series_list[k].ns[s];
    ly1 = ceil(log10(ymax > 1.0 ? ymax : 1.0)); /* log axis: 0.1 ns up */
#define BENCH__Y(v) (H - B - (log10((v) > 0.1 ? (v) : 0.1) - ly0) / (ly1 - ly0) * (H - B - T))
#define BENCH__X(n) (L + (log10((double)(n)) - lx0) / (lx1 - lx0) * (W - R - L))
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%.0f\" y=\"18\" font-size=\"14\">ns per entity against N, both axes log: medians of %d repetitions "
               "(the table: %d)</text>\n",
            L, BENCH__SWEEP_REPS < BENCH_REPS ? BENCH__SWEEP_REPS : BENCH_REPS, BENCH_REPS);
    fprintf(f, "<text x=\"%.0f\" y=\"34\" font-size=\"11\" fill=\"#555\">%s; %s, %s</text>\n", L, machine,
#if defined(__clang__)
            "clang "
#elif defined(__GNUC__)
            "gcc "
#else
            "cc "
#endif
            __VERSION__, BENCH_FLAGS);
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, H - B, W - R, H - B);
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, T, L, H - B);
    for (s = 0; s < BENCH__NS; ++s)
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%u</text>\n", BENCH__X(bench__sizes[s]), H - B + 16,
                (unsigned)bench__sizes[s]);
    for (k = 0; k <= (uint32_t)(ly1 - ly0); ++k) {
        double v = pow(10.0, ly0 + k), y = BENCH__Y(v);
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L - 6, y + 4, v);
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, y, W - R, y);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">N (entities)</text>\n", (L + W - R) / 2, H - 12);
    for (k = 0, ly = T + 6; k < BENCH__NSER; ++k, ly += 16.0) {
        int under = bench__overlap(k);
        /* a series on top of another is drawn dashed, and the legend says so
           on a line of its own (in the legend's width) */
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", bench__series_list[k].colour,
                under >= 0 ? " stroke-dasharray=\"6 4\"" : "");
        for (s = 0; s < BENCH__NS; ++s) fprintf(f, "%.1f,%.1f ", BENCH__X(bench__sizes[s]), BENCH__Y(bench__series_list[k].ns[s]));
        fprintf(f, "\"/>\n<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"3\"%s/>",
                W - R + 8, ly, W - R + 26, ly, bench__series_list[k].colour, under >= 0 ? " stroke-dasharray=\"4 3\"" : "");
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", W - R + 32, ly + 4, bench__series_list[k].metric);
        if (under < 0) continue;
        ly += 13.0;
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" fill=\"#555\">dashed: on top of %s</text>\n", W - R + 32,
                ly + 4, bench__series_list[under].metric);
    }
    fprintf(f, "</svg>\n");
#undef BENCH__Y
#undef BENCH__X
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

/* The project's targets (README, Benchmark): value <= factor (x the median of `of`,
   when given) */
typedef struct bench__target {
    const char *metric;
    double factor;
    const char *of;
} bench__target;
static const bench__target bench__targets[] = {
    {"create_ns", 2, NULL},
    {"create_many_ns", 1, NULL},
    {"alive_random_ns", 2, NULL},
    {"destroy_ns", 5, NULL},
    {"churn_ns", 5, NULL},
    {"churn_stale_alive", 0, NULL},
    {"component_create_ns", 4, NULL},
    {"component_create_hash_ns", 3, "component_create_ns"},
    {"component_create_many_ns", 1.5, "fill_plain_ns"},
    {"component_create_many_hash_ns", 1.5, "component_create_many_ns"},
    {"component_get_direct_ns", 1.2, "gather_plain_ns"},
    {"component_get_dense_ns", 2.5, "gather_plain_ns"},
    {"component_get_hash_ns", 3, "gather_plain_ns"},
    {"component_get_many_dense_ns", 1.8, "gather_plain_ns"},
    {"component_remove_dense_ns", 8, "gather_plain_ns"},
    {"component_remove_hash_ns", 1.5, "component_remove_dense_ns"},
    {"component_collect_ns", 1, "component_remove_dense_ns"},
    {"component_bytes_per_entity", 40, NULL},
    {"component_bytes_per_entity_hash", 48, NULL},
    {"simulate_ratio", 1.1, NULL},
    {"transform_world_pass_ratio", 1.2, NULL},
    {"transform_reorder_ns", 200, NULL},
    {"transform_create_ns", 250, NULL},
    {"transform_bytes_per_node", 160, NULL},
    {"spawn_level_10k_us", 100, NULL},
    {"spawn_vs_memcpy_ratio", 5, NULL},
    {"snapshot_bytes_ratio", 1.1, NULL},
    {"snapshot_delta_bytes_ratio", 0.05, NULL},
    {"systems_2_ns", 1.05, "systems_2_plain_ns"},
    {"systems_7_ns", 1.1, "systems_7_plain_ns"},
    {"systems_7_mixed_ns", 1.1, "systems_7_mixed_plain_ns"},
    {"systems_7_mixed_2e17_ns", 1.1, "systems_7_mixed_2e17_plain_ns"},
    {"systems_7_lines", 43, NULL},
    {"query_direct_ns", 1.2, "query_plain_ns"},
    {"query_group_ns", 1.2, "query_plain_ns"},
    {"query_lookup_ns", 2.5, "gather_plain_ns"},
    {"query_direct_holes_ns", 1.2, "query_direct_holes_hand_ns"},
    {"query_direct_holes_changed_ns", 1.2, "query_direct_holes_hand_ns"},
    {"transform_world_pass_mt1_vs_serial", 1.05, NULL},
    {"systems_7_mixed_mt1_vs_serial", 1.05, NULL},
    {"spawn_level_10k_mt1_vs_serial", 1.05, NULL},
    {"deps_warm_ratio", 0.05, NULL},
    {"rename_ratio", 2, NULL},
    {"console_roundtrip_ratio", 3, NULL},
};

/* ... and the floors (README, Benchmark): value >= factor (x the median of `of`) */
static const bench__target bench__floors[] = {
    {"snapshot_save_gbs", 0.5, "memory_bandwidth_gbs"},
    {"snapshot_load_gbs", 0.5, "memory_bandwidth_gbs"},
    {"world_clone_gbs", 0.5, "memory_bandwidth_gbs"},
    {"snapshot_hash_gbs", 0.5, "memory_bandwidth_gbs"},
    {"snapshot_delta_gbs", 0.5, "memory_bandwidth_gbs"},
    {"snapshot_apply_delta_gbs", 0.5, "memory_bandwidth_gbs"},
    {"snapshot_json_save_mb_per_s", 1, "compile_mb_per_s"},
    {"snapshot_json_load_mb_per_s", 1, "compile_mb_per_s"},
    {"transform_world_pass_mt2_speedup", 1.8, NULL},
    {"systems_7_mixed_mt2_speedup", 1.7, NULL},
    {"spawn_level_10k_mt2_speedup", 1.5, NULL},
    {"deps_cold_mb_per_s", 100, NULL},
};

/* The target of a metric as text and whether the run met it: 1 met, 0
   missed, -1 no target (or its reference row did not run). */
static int bench__check(const char *metric, double value, char *text, size_t cap)
{
    size_t k, n_ceil = sizeof bench__targets / sizeof bench__targets[0];
    size_t n_all = n_ceil + sizeof bench__floors / sizeof bench__floors[0];
    text[0] = '\0';
    for (k = 0; k < n_all; ++k) {
        int floor = k >= n_ceil;
        const bench__target *t = floor ? &bench__floors[k - n_ceil] : &bench__targets[k];
        double limit = t->factor;
        if (strcmp(t->metric, metric) != 0) continue;
        /* the systems' speedup counts only on a machine whose probe shows two free cores */
        if (strcmp(metric, "systems_7_mixed_mt2_speedup") == 0 && !(bench_row_value("thread_probe_mt2_speedup") >= 1.9)) {
            snprintf(text, cap, ">= 1.7 (probe < 1.9: busy, not judged)");
            return -1;
        }
        if (t->of) {
            limit *= bench_row_value(t->of);
            if (limit != limit) return -1; /* NAN: the reference row did not run */
            snprintf(text, cap, "%s %g x %s (%.3g)", floor ? ">=" : "<=", t->factor, t->of, limit);
        } else {
            snprintf(text, cap, "%s %g", floor ? ">=" : "<=", t->factor);
        }
        return floor ? value >= limit : value <= limit;
    }
    return -1;
}

static void bench_print(FILE *out, int csv)
{
    int k, met = 0, missed = 0;
    char target[96];
    if (csv) {
        for (k = 0; k < bench__num_rows; ++k) fprintf(out, "%s,%.4f,%s\n", bench__rows[k].metric, bench__rows[k].value, bench__rows[k].unit);
        return;
    }
    fprintf(out, "| %-34s | %12s | %-5s | %-44s | %-6s |\n", "metric", "median", "unit", "target", "met");
    fprintf(out, "|------------------------------------|--------------|-------|----------------------------------------------|--------|\n");
    for (k = 0; k < bench__num_rows; ++k) {
        const bench__row *r = &bench__rows[k];
        int ok = bench__check(r->metric, r->value, target, sizeof target);
        met += ok == 1;
        missed += ok == 0;
        fprintf(out, "| %-34s | %12.3f | %-5s | %-44s | %-6s |\n", r->metric, r->value, r->unit, target,
                ok < 0 ? "" : ok ? "yes" : "MISSED");
    }
    fprintf(out, "\ntargets: %d met, %d missed\n", met, missed);
}

int main(int argc, char **argv)
{
    const char *plot = NULL, *csv_out = NULL, *only = NULL;
    int csv = 0, a;
    char cpu[160];
    long cores = 1;
    for (a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--csv") == 0) csv = 1;
        else if (strcmp(argv[a], "--csv-out") == 0 && a + 1 < argc) csv_out = argv[++a];
        else if (strcmp(argv[a], "--plot") == 0 && a + 1 < argc) plot = argv[++a];
        else if (strcmp(argv[a], "--only") == 0 && a + 1 < argc) only = argv[++a];
        else if (strcmp(argv[a], "--quick") == 0) {
            BENCH_REPS = 5;
            bench_n = 100000u;
        } else {
            fprintf(stderr, "usage: %s [--csv] [--csv-out FILE] [--plot FILE.svg] [--quick]\n"
                            "          [--only entities|components|transforms|resources|systems|threads|snapshots|deps|console]\n", argv[0]);
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
    if (!only || strcmp(only, "entities") == 0) bench_entity_rows();
    if (!only || strcmp(only, "components") == 0) bench_component_rows();
    if (!only || strcmp(only, "transforms") == 0) bench_transform_rows();
    if (!only || strcmp(only, "resources") == 0) bench_resource_rows();
    if (!only || strcmp(only, "snapshots") == 0) bench_snapshot_rows();
    if (!only || strcmp(only, "systems") == 0) bench_systems_rows();
    if (!only || strcmp(only, "threads") == 0) bench_threads_rows(cores);
    if (!only || strcmp(only, "deps") == 0) bench_deps_rows();
    if (!only || strcmp(only, "console") == 0) bench_console_rows();
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
    if (plot) {
        char machine[200];
        snprintf(machine, sizeof machine, "%s, %ld cores", cpu, cores);
        bench_sweep();
        bench_plot(plot, machine);
    }
    bench_print(stdout, csv);
    if (csv) bench_print_sweep(stdout);
    if (csv_out) {
        FILE *f = fopen(csv_out, "w");
        if (f) {
            bench_print(f, 1);
            bench_print_sweep(f);
            fclose(f);
        }
    }
    if (!csv) printf("\nchecksum: %.6g%s\n", bench__checksum, plot ? " (the plot's sweep lines are in the CSV: metric@N)" : "");
    return 0;
}
