/* tests/test_threads.c - every result across threads is the serial result.
   Each parallel call runs beside its serial counterpart on an identical copy
   of the data, and the two are compared with memcmp (no tolerance), with
   the job systems in JOBS: the pthreads pool of examples/jobs_pthreads.h
   with 1, 2, 3, 4 and 8 threads, a job system that runs the tasks in
   reverse order (a task that depended on an earlier one would read stale
   data), and two that fail to start some or all of the tasks (the library
   runs those itself: still the serial result). Shapes: random hierarchies
   in creation order (parents first, not depth-first: ranges stop and the
   caller finishes them) and reordered, Bevy's transform_hierarchy shapes
   scaled down (wide, humanoids, large, chains of 2,500 and 40,000), and an
   order with children before parents (the walk). Calls: the world pass,
   deferred commit over frames of changes and relinks, set_local_many, the
   spawner (a level, 1 and 3 copies, a store that fails in the last copy:
   same error, nothing left; two registrations of one store keep their
   order; a grouped manager behind a function of one's own, and managers
   registered through a plugin registry, spawn from one task), and a frame's systems (waves, the lookup path, an optional term,
   a serial reduction; a removed store refused). tests/run.sh also builds
   this file with -fsanitize=thread (clang-tsan-c99). */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_TRANSFORM_IMPLEMENTATION
#include "ecs_transform.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#define ECS_PLUGIN_IMPLEMENTATION
#include "ecs_plugin.h"
#include "examples/jobs_pthreads.h"

#include <stdlib.h>
#include <string.h>
#include "tests/test.h"
#include "tests/test_rng.h"
#include "tests/transform_shapes.h"

/* ---- job systems ------------------------------------------------------------- */

/* Runs the tasks on the calling thread, last first. */
static ecs_result reverse_parallel_for(void *context, uint32_t n, ecs_task_fn task, void *user)
{
    (void)context;
    while (n-- > 0) task(user, n);
    return ECS_OK;
}

/* Starts only the odd tasks, then reports that it could not start the rest. */
static ecs_result failing_parallel_for(void *context, uint32_t n, ecs_task_fn task, void *user)
{
    uint32_t k;
    (void)context;
    for (k = 1; k < n; k += 2) task(user, k);
    return ECS_ERROR_OUT_OF_MEMORY;
}

/* Starts nothing. */
static ecs_result refusing_parallel_for(void *context, uint32_t n, ecs_task_fn task, void *user)
{
    (void)context, (void)n, (void)task, (void)user;
    return ECS_ERROR_INVALID_ARGUMENT;
}

#define NUM_POOLS 5
static const uint32_t pool_threads[NUM_POOLS] = {1, 2, 3, 4, 8};
static ecs_jobs_pool pools[NUM_POOLS];
#define NUM_JOBS (NUM_POOLS + 4)
static ecs_jobs jobs_list[NUM_JOBS];
static const char *jobs_name[NUM_JOBS];

static void jobs_setup(void)
{
    uint32_t k;
    static char names[NUM_POOLS][32];
    for (k = 0; k < NUM_POOLS; ++k) {
        CHECK(ecs_jobs_pool_create(&pools[k], pool_threads[k]) == ECS_OK);
        jobs_list[k] = ecs_jobs_pool_jobs(&pools[k]);
        sprintf(names[k], "pool of %u", (unsigned)pool_threads[k]);
        jobs_name[k] = names[k];
    }
    jobs_list[k].parallel_for = reverse_parallel_for, jobs_list[k].num_workers = 4, jobs_name[k++] = "reverse";
    jobs_list[k].parallel_for = failing_parallel_for, jobs_list[k].num_workers = 3, jobs_name[k++] = "failing";
    jobs_list[k].parallel_for = refusing_parallel_for, jobs_list[k].num_workers = 2, jobs_name[k++] = "refusing";
    jobs_list[k].parallel_for = NULL, jobs_list[k].num_workers = 0, jobs_name[k++] = "zero";
}

static void jobs_teardown(void)
{
    uint32_t k;
    for (k = 0; k < NUM_POOLS; ++k) ecs_jobs_pool_destroy(&pools[k]);
}

/* ---- the pool itself ----------------------------------------------------------- */

typedef struct count_job {
    uint32_t runs[ECS_JOBS_MAX_TASKS];
} count_job;

static void count_task(void *user, uint32_t k) { ((count_job *)user)->runs[k] += 1u; }

/* every task runs exactly once, call after call, for every task count */
static void test_pool_runs_each_task_once(void)
{
    uint32_t p, n, k, round;
    for (p = 0; p < NUM_POOLS; ++p)
        for (round = 0; round < 20; ++round)
            for (n = 0; n <= ECS_JOBS_MAX_TASKS; n += n < 8 ? 1u : 37u) {
                count_job cj;
                int ok = 1;
                memset(&cj, 0, sizeof cj);
                CHECK(ecs_jobs_pool_parallel_for(&pools[p], n, count_task, &cj) == ECS_OK);
                for (k = 0; k < ECS_JOBS_MAX_TASKS; ++k) ok &= cj.runs[k] == (k < n ? 1u : 0u);
                CHECK_MSG(ok, "pool of %u threads, %u tasks", (unsigned)pool_threads[p], (unsigned)n);
            }
}

/* ---- transforms ----------------------------------------------------------------- */

static float rnd_float(float lo, float hi) { return lo + (hi - lo) * ((float)(rnd() >> 8) / 16777216.0f); }

/* a rotation, a scale near 1 and a translation: products round differently
   when associated differently */
static ecs_mat4 rnd_transform(void)
{
    ecs_vec3 t, axis, s;
    t.x = rnd_float(-10, 10), t.y = rnd_float(-10, 10), t.z = rnd_float(-10, 10);
    axis.x = rnd_float(-1, 1), axis.y = rnd_float(-1, 1), axis.z = rnd_float(-1, 1);
    s.x = rnd_float(0.99f, 1.01f), s.y = rnd_float(0.99f, 1.01f), s.z = rnd_float(0.99f, 1.01f);
    return ecs_mat4_compose(t, ecs_quat_axis_angle(axis, rnd_float(-3.14159f, 3.14159f)), s);
}

/* tm gets the shape's nodes with random locals (seeded: two calls with one
   seed build identical managers). */
static void build_shape(ecs_transform_manager *tm, ecs_transform_mode mode, shape_kind kind, uint32_t size,
                        uint64_t seed)
{
    uint32_t n = shape_count(kind, size), i;
    uint32_t *parent = (uint32_t *)malloc((size_t)n * sizeof *parent);
    ecs_transform_manager_init(tm, ECS_LOOKUP_DENSE, mode);
    shape_build(kind, size, parent, seed);
    rng_state = seed;
    CHECK(ecs_transform_reserve(tm, n) == ECS_OK);
    for (i = 0; i < n; ++i) {
        ecs_mat4 m = rnd_transform();
        ecs_instance p;
        p.i = parent[i];
        ecs_transform_create(tm, make_id((1u << ECS_INDEX_BITS) | (i + 1u)), &m, p);
    }
    free(parent);
}

/* the whole state of two managers: arrays and counters */
static int same_managers(const ecs_transform_manager *a, const ecs_transform_manager *b)
{
    size_t n = a->count;
    if (a->count != b->count || a->first_dirty != b->first_dirty || a->num_pending != b->num_pending) return 0;
    return memcmp(a->world, b->world, n * sizeof *a->world) == 0 && memcmp(a->local, b->local, n * sizeof *a->local) == 0 &&
           memcmp(a->entity, b->entity, n * sizeof *a->entity) == 0 && memcmp(a->parent, b->parent, n * 4u) == 0 &&
           memcmp(a->first_child, b->first_child, n * 4u) == 0 && memcmp(a->next_sibling, b->next_sibling, n * 4u) == 0 &&
           memcmp(a->prev_sibling, b->prev_sibling, n * 4u) == 0 && memcmp(a->age, b->age, n) == 0;
}

/* garbage in every world: a node the pass misses keeps it */
static void scribble_worlds(ecs_transform_manager *tm) { memset(tm->world, 0x7F, (size_t)tm->count * sizeof *tm->world); }

typedef struct shape_case {
    shape_kind kind;
    uint32_t size;
    const char *name;
} shape_case;

static const shape_case shapes[] = {
    {SHAPE_RANDOM, 40000, "random"},       {SHAPE_WIDE, 150, "wide (depth 3, 150 each)"},
    {SHAPE_HUMANOIDS, 300, "humanoids (300 rigs)"}, {SHAPE_LARGE, 15, "large (depth 15)"},
    {SHAPE_CHAIN, 2500, "chain 2500"},     {SHAPE_CHAIN, 40000, "chain 40000 (ranges stop: the caller finishes them)"},
};
#define NUM_SHAPES (sizeof shapes / sizeof shapes[0])

/* world_pass_jobs against world_pass: creation order, reordered, and with
   children before parents */
static void test_world_pass(void)
{
    uint32_t s, layout, j;
    for (s = 0; s < NUM_SHAPES; ++s)
        for (layout = 0; layout < 3; ++layout) {
            ecs_transform_manager ref, par;
            int want;
            build_shape(&ref, ECS_TRANSFORM_IMMEDIATE, shapes[s].kind, shapes[s].size, 11u + s);
            build_shape(&par, ECS_TRANSFORM_IMMEDIATE, shapes[s].kind, shapes[s].size, 11u + s);
            if (layout == 1) {
                CHECK(ecs_transform_reorder(&ref) == ECS_OK);
                CHECK(ecs_transform_reorder(&par) == ECS_OK);
            }
            if (layout == 2) { /* destroying node 0 moves the last node (a leaf) before its parent */
                ecs_transform_destroy(&ref, ecs_instance_make(0));
                ecs_transform_destroy(&par, ecs_instance_make(0));
            }
            scribble_worlds(&ref);
            want = ecs_transform_world_pass(&ref);
            if (layout < 2) CHECK(want == 1); /* parents first: the linear sweep */
            for (j = 0; j < NUM_JOBS; ++j) {
                scribble_worlds(&par);
                CHECK_MSG(ecs_transform_world_pass_jobs(&par, &jobs_list[j]) == want, "%s, %s", shapes[s].name,
                          jobs_name[j]);
                CHECK_MSG(same_managers(&ref, &par), "%s, layout %u, %s", shapes[s].name, (unsigned)layout,
                          jobs_name[j]);
            }
            ecs_transform_manager_free(&ref);
            ecs_transform_manager_free(&par);
        }
}

/* frames of changes on two deferred managers, one committed serially and one
   across jobs: identical arrays after every commit */
static void test_commit(void)
{
    uint32_t s, j, frame, k;
    for (s = 0; s < NUM_SHAPES; ++s)
        for (j = 0; j < NUM_JOBS; j += 2) {
            ecs_transform_manager ref, par;
            int ok = 1;
            build_shape(&ref, ECS_TRANSFORM_DEFERRED, shapes[s].kind, shapes[s].size, 5u + s);
            build_shape(&par, ECS_TRANSFORM_DEFERRED, shapes[s].kind, shapes[s].size, 5u + s);
            if (s & 1u) {
                CHECK(ecs_transform_reorder(&ref) == ECS_OK);
                CHECK(ecs_transform_reorder(&par) == ECS_OK);
            }
            rng_state = 99u + s;
            for (frame = 0; frame < 12 && ok; ++frame) {
                uint32_t moves = frame == 0 ? 0 : 1u + ref.count / 50u;
                for (k = 0; k < moves; ++k) {
                    ecs_instance i = ecs_instance_make(rnd_below(ref.count));
                    ecs_mat4 m = rnd_transform();
                    if (rnd_below(20) == 0) { /* relink: a random node under another (cycles refused alike) */
                        ecs_instance p = ecs_instance_make(rnd_below(ref.count));
                        CHECK(ecs_transform_link(&ref, i, p) == ecs_transform_link(&par, i, p));
                    } else {
                        CHECK(ecs_transform_set_local(&ref, i, &m) == ECS_OK);
                        CHECK(ecs_transform_set_local(&par, i, &m) == ECS_OK);
                    }
                }
                ecs_transform_commit(&ref);
                ecs_transform_commit_jobs(&par, &jobs_list[j]);
                ok = same_managers(&ref, &par);
                CHECK_MSG(ok, "%s, frame %u, %s", shapes[s].name, (unsigned)frame, jobs_name[j]);
            }
            ecs_transform_manager_free(&ref);
            ecs_transform_manager_free(&par);
        }
}

/* set_local_many_jobs against set_local_many: random lists with repeats and
   nodes under other listed nodes, more tops than one batch */
static void test_set_local_many(void)
{
    uint32_t s, j, round, k;
    for (s = 0; s < NUM_SHAPES; ++s)
        for (j = 0; j < NUM_JOBS; ++j) {
            ecs_transform_manager ref, par;
            build_shape(&ref, ECS_TRANSFORM_IMMEDIATE, shapes[s].kind, shapes[s].size, 3u + s);
            build_shape(&par, ECS_TRANSFORM_IMMEDIATE, shapes[s].kind, shapes[s].size, 3u + s);
            if (j & 1u) {
                CHECK(ecs_transform_reorder(&ref) == ECS_OK);
                CHECK(ecs_transform_reorder(&par) == ECS_OK);
            }
            rng_state = 7u + s * 31u + j;
            for (round = 0; round < 3; ++round) {
                uint32_t n = round == 0 ? 5000u : 1u + rnd_below(300);
                ecs_instance *nodes = (ecs_instance *)malloc(n * sizeof *nodes);
                ecs_mat4 *locals = (ecs_mat4 *)malloc(n * sizeof *locals);
                for (k = 0; k < n; ++k) {
                    nodes[k] = ecs_instance_make(k && rnd_below(8) == 0 ? nodes[rnd_below(k)].i : rnd_below(ref.count));
                    locals[k] = rnd_transform();
                }
                CHECK(ecs_transform_set_local_many(&ref, n, nodes, locals) == ECS_OK);
                CHECK(ecs_transform_set_local_many_jobs(&par, n, nodes, locals, &jobs_list[j]) == ECS_OK);
                CHECK_MSG(same_managers(&ref, &par), "%s, round %u, %s", shapes[s].name, (unsigned)round, jobs_name[j]);
                free(nodes);
                free(locals);
            }
            { /* a bad instance: refused, nothing changed */
                ecs_instance bad[2];
                ecs_mat4 l[2];
                bad[0] = ecs_instance_make(0), bad[1] = ecs_instance_make(par.count);
                l[0] = l[1] = rnd_transform();
                CHECK(ecs_transform_set_local_many_jobs(&par, 2, bad, l, &jobs_list[j]) == ECS_ERROR_INVALID_ARGUMENT);
                CHECK(same_managers(&ref, &par));
            }
            ecs_transform_manager_free(&ref);
            ecs_transform_manager_free(&par);
        }
}

/* ---- the spawner ------------------------------------------------------------------ */

/* a level: `roots` trees of up to 3 children with up to 2 children each;
   every entity a transform, every second a mesh, every fifth an actor */
static char *level_json(uint32_t roots, size_t *len)
{
    size_t cap = (size_t)roots * 16u * 400u + 64u, at = 0;
    char *t = (char *)malloc(cap);
    uint32_t r, c, g, id = 0, nc, ng;
    at += (size_t)sprintf(t + at, "{\"entities\": [");
    for (r = 0; r < roots; ++r) {
        nc = rnd_below(4);
        at += (size_t)sprintf(t + at, "%s", r ? "," : "");
        for (c = 0; c <= nc; ++c) {
            ng = c ? rnd_below(3) : 0;
            for (g = 0; g <= ng; ++g) {
                float x = rnd_float(-50, 50), y = rnd_float(-50, 50), q = rnd_float(-1, 1);
                ++id;
                at += (size_t)sprintf(t + at,
                                      "%s{\"components\": [{\"type\": \"transform\", \"position\": [%.3f, %.3f, 1], "
                                      "\"rotation\": [0, %.3f, 0, 1]}",
                                      (c > 1 && g == 0) || g > 1 ? "," : "", x, y, q);
                if (id % 2u == 0) at += (size_t)sprintf(t + at, ", {\"type\": \"mesh\", \"mesh\": \"m/%u\", \"flags\": %u}", (unsigned)(id % 7u), (unsigned)id);
                if (id % 5u == 0) at += (size_t)sprintf(t + at, ", {\"type\": \"actor\", \"mass\": %.2f, \"radius\": 1}", x + 50.0f);
                at += (size_t)sprintf(t + at, "]%s", (c == 0 && nc) || (g == 0 && ng) ? ", \"children\": [" : "}");
                if (g && g == ng) at += (size_t)sprintf(t + at, "]}");
            }
        }
        if (nc) at += (size_t)sprintf(t + at, "]}");
    }
    at += (size_t)sprintf(t + at, "]}");
    *len = at;
    return t;
}

typedef struct level_stores {
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_manager mesh, actor;
    ecs_spawner sp;
    ecs_group group; /* {mesh, actor} when grouped */
} level_stores;

/* an actor spawn function that fails once `*armed` reaches 1 */
static int actor_bomb_armed;
static ecs_result actor_bomb(void *user, const ecs_spawn_context *ctx, uint32_t n, const uint32_t *index,
                             const void *data, uint32_t size)
{
    if (actor_bomb_armed && --actor_bomb_armed == 0)
        return ecs_error_set(ctx->error, ECS_ERROR_SPAWN_FAILED, "the actor store refuses");
    return ecs_manager_spawn(user, ctx, n, index, data, size);
}

static void level_stores_init(level_stores *ls, int bomb, int grouped)
{
    static const ecs_field_desc mesh_fields[] = {{"mesh", 8, 8}, {"flags", 4, 4}};
    static const ecs_field_desc actor_fields[] = {{"mass", 4, 4}, {"radius", 4, 4}};
    ecs_error err;
    ecs_entity_manager_init(&ls->em);
    ecs_transform_manager_init(&ls->tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    CHECK(ecs_manager_init(&ls->mesh, mesh_fields, 2, ECS_LOOKUP_DENSE) == ECS_OK);
    CHECK(ecs_manager_init(&ls->actor, actor_fields, 2, ECS_LOOKUP_DENSE) == ECS_OK);
    ecs_spawner_init(&ls->sp);
    CHECK(ecs_spawner_register(&ls->sp, "transform", ecs_transform_spawn, ecs_transform_unspawn,
                               ECS_TRANSFORM_SPAWN_INSTANCE_SIZE, &ls->tm, &err) == ECS_OK);
    CHECK(ecs_spawner_register(&ls->sp, "mesh", ecs_manager_spawn, ecs_manager_unspawn, ECS_RESOURCE_MESH_SIZE,
                               &ls->mesh, &err) == ECS_OK);
    CHECK(ecs_spawner_register(&ls->sp, "actor", bomb ? actor_bomb : ecs_manager_spawn, ecs_manager_unspawn,
                               ECS_RESOURCE_ACTOR_SIZE, &ls->actor, &err) == ECS_OK);
    if (grouped) {
        ecs_manager *members[2];
        members[0] = &ls->mesh, members[1] = &ls->actor;
        CHECK(ecs_group_init(&ls->group, members, 2, &err) == ECS_OK);
    }
}

static void level_stores_free(level_stores *ls)
{
    ecs_spawner_free(&ls->sp);
    ecs_manager_free(&ls->mesh);
    ecs_manager_free(&ls->actor);
    ecs_transform_manager_free(&ls->tm);
    ecs_entity_manager_free(&ls->em);
}

/* the same instances with the same bytes (a direct manager's empty slots,
   entity id 0, hold nothing) */
static int same_manager_data(const ecs_manager *a, const ecs_manager *b)
{
    uint32_t f, i;
    if (a->count != b->count || memcmp(a->entity, b->entity, a->count * sizeof *a->entity) != 0) return 0;
    for (f = 0; f < a->num_fields; ++f) {
        size_t size = a->fields[f].size;
        for (i = 0; i < a->count; ++i)
            if (a->entity[i].id && memcmp((const char *)a->field[f] + i * size, (const char *)b->field[f] + i * size, size))
                return 0;
    }
    return 1;
}

static int same_levels(const level_stores *a, const level_stores *b)
{
    return ecs_entity_count(&a->em) == ecs_entity_count(&b->em) && same_managers(&a->tm, &b->tm) && same_manager_data(&a->mesh, &b->mesh) &&
           same_manager_data(&a->actor, &b->actor);
}

/* one store behind two registrations: a log of the calls it got (no lock:
   the spawner must run both registrations on one task, in blob order) */
typedef struct call_log {
    uint32_t calls[64], n;
} call_log;
static ecs_result log_spawn(void *user, const ecs_spawn_context *ctx, uint32_t n, const uint32_t *index,
                            const void *data, uint32_t size)
{
    call_log *lg = (call_log *)user;
    (void)ctx, (void)index, (void)data;
    if (lg->n < 64) lg->calls[lg->n++] = n * 1000u + size % 997u;
    return ECS_OK;
}
static void log_unspawn(void *user, const ecs_spawn_context *ctx, uint32_t n, const uint32_t *index,
                        const void *data, uint32_t size)
{
    (void)user, (void)ctx, (void)n, (void)index, (void)data, (void)size;
}

/* mesh and actor into one logging store, transform into the transform
   manager; 3 copies; jobs NULL: the serial spawn */
static void spawn_logged(const ecs_compiler_output *out, const ecs_jobs *jobs, call_log *lg)
{
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_spawner sp;
    ecs_error err;
    memset(lg, 0, sizeof *lg);
    ecs_entity_manager_init(&em);
    ecs_transform_manager_init(&tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    ecs_spawner_init(&sp);
    CHECK(ecs_spawner_register(&sp, "mesh", log_spawn, log_unspawn, ECS_SPAWNER_VARIABLE_SIZE, lg, &err) == ECS_OK);
    CHECK(ecs_spawner_register(&sp, "transform", ecs_transform_spawn, ecs_transform_unspawn,
                               ECS_TRANSFORM_SPAWN_INSTANCE_SIZE, &tm, &err) == ECS_OK);
    CHECK(ecs_spawner_register(&sp, "actor", log_spawn, log_unspawn, ECS_SPAWNER_VARIABLE_SIZE, lg, &err) == ECS_OK);
    if (jobs) CHECK(ecs_spawner_spawn_jobs(&sp, &em, out->blob, out->size, 3, NULL, jobs, &err) == ECS_OK);
    else CHECK(ecs_spawner_spawn_copies(&sp, &em, out->blob, out->size, 3, NULL, &err) == ECS_OK);
    CHECK(tm.count > 0);
    ecs_spawner_free(&sp);
    ecs_transform_manager_free(&tm);
    ecs_entity_manager_free(&em);
}

/* two registrations of one store run on one task, in blob order */
static void test_spawn_shared_store(const ecs_compiler_output *out)
{
    uint32_t j;
    call_log want, got;
    spawn_logged(out, NULL, &want);
    CHECK(want.n == 6u);
    for (j = 0; j < NUM_JOBS; ++j) {
        spawn_logged(out, &jobs_list[j], &got);
        CHECK_MSG(got.n == want.n && memcmp(got.calls, want.calls, want.n * sizeof want.calls[0]) == 0,
                  "%s: %u calls", jobs_name[j], (unsigned)got.n);
    }
}

/* ecs_spawner_spawn_jobs against ecs_spawner_spawn_copies: the same stores,
   bit for bit; with a store that fails in a later copy, the same error and
   nothing left, in both */
/* A job system on the calling thread that watches which tasks change the
   mesh and actor managers (their entity arrays and map): a store changed by
   two tasks was written from two tasks, a race on a real pool. */
typedef struct touch_watch {
    const ecs_manager *m[2];
    uint32_t changed_by[2]; /* 1 + the task that changed it, 0: none */
    uint32_t shared;        /* stores changed by a second task */
} touch_watch;
static uint64_t manager_digest(const ecs_manager *m)
{
    uint64_t h = 1469598103934665603ull ^ m->count;
    uint32_t i;
    for (i = 0; i < m->count; ++i) h = (h ^ m->entity[i].id) * 1099511628211ull;
    return h;
}
static ecs_result watching_parallel_for(void *context, uint32_t n, ecs_task_fn task, void *user)
{
    touch_watch *t = (touch_watch *)context;
    uint32_t k, s;
    for (k = 0; k < n; ++k) {
        uint64_t before[2];
        for (s = 0; s < 2; ++s) before[s] = manager_digest(t->m[s]);
        task(user, k);
        for (s = 0; s < 2; ++s) {
            if (manager_digest(t->m[s]) == before[s]) continue;
            t->shared += t->changed_by[s] != 0 && t->changed_by[s] != k + 1u;
            t->changed_by[s] = k + 1u;
        }
    }
    return ECS_OK;
}

/* One thread: with {mesh, actor} grouped, a spawn through jobs changes each
   store from one task only (before issue 24's fix the actor task moved the
   mesh manager's instances too). */
static void test_spawn_grouped_one_task(const ecs_compiler_output *out)
{
    level_stores ls;
    touch_watch watch;
    ecs_jobs jobs;
    ecs_error err;
    memset(&watch, 0, sizeof watch);
    level_stores_init(&ls, 0, 1);
    watch.m[0] = &ls.mesh, watch.m[1] = &ls.actor;
    jobs.parallel_for = watching_parallel_for, jobs.context = &watch, jobs.num_workers = 2;
    CHECK(ecs_spawner_spawn_jobs(&ls.sp, &ls.em, out->blob, out->size, 2, NULL, &jobs, &err) == ECS_OK);
    CHECK(watch.changed_by[0] != 0 && watch.changed_by[0] == watch.changed_by[1] && watch.shared == 0);
    CHECK(ls.group.size > 0);
    level_stores_free(&ls);
}

/* {pa, pb}: two grouped schema managers, and a blob of n entities, each with
   pb and one of pa / pa2 (pa2: a second registration over pa's manager). */
static const ecs_schema_field one_x[] = {{"x", ECS_FIELD_F32, "0"}};
static void two_function_blob(ecs_compiler_output *out, uint32_t n)
{
    ecs_compiler c;
    ecs_error err;
    char *json = (char *)malloc((size_t)n * 90u + 32u);
    size_t at = 0;
    uint32_t k;
    ecs_compiler_init(&c);
    CHECK(ecs_compiler_register_schema(&c, "pa", one_x, 1, 100, &err) == ECS_OK);
    CHECK(ecs_compiler_register_schema(&c, "pb", one_x, 1, 101, &err) == ECS_OK);
    CHECK(ecs_compiler_register_schema(&c, "pa2", one_x, 1, 102, &err) == ECS_OK);
    at += (size_t)sprintf(json + at, "{\"entities\": [");
    for (k = 0; k < n; ++k)
        at += (size_t)sprintf(json + at, "%s{\"components\": [{\"type\": \"%s\", \"x\": %u}, {\"type\": \"pb\", \"x\": %u}]}",
                              k ? ", " : "", k % 2 ? "pa" : "pa2", (unsigned)k, (unsigned)k);
    at += (size_t)sprintf(json + at, "]}");
    memset(out, 0, sizeof *out);
    CHECK_MSG(ecs_compiler_compile(&c, json, at, 0, out, &err) == ECS_OK, "%s", err.message);
    ecs_compiler_free(&c);
    free(json);
}
static ecs_result own_spawn(void *user, const ecs_spawn_context *ctx, uint32_t n, const uint32_t *index,
                            const void *data, uint32_t size)
{
    return ecs_manager_spawn(user, ctx, n, index, data, size);
}

/* pa's manager behind ecs_manager_spawn ("pa") and a function of one's own
   ("pa2"): both are its store, spawned from the group's one task (the own
   function's blocks ran on a task of their own, beside the group's: two
   threads in one manager). */
static void test_spawn_own_function(const ecs_compiler_output *out)
{
    ecs_entity_manager em;
    ecs_manager a, b;
    ecs_manager *members[2];
    ecs_group g;
    ecs_spawner sp;
    ecs_error err;
    touch_watch watch;
    ecs_jobs jobs;
    ecs_entity_manager_init(&em);
    CHECK(ecs_manager_init_schema(&a, one_x, 1, ECS_LOOKUP_DENSE) == ECS_OK);
    CHECK(ecs_manager_init_schema(&b, one_x, 1, ECS_LOOKUP_DENSE) == ECS_OK);
    members[0] = &a, members[1] = &b;
    CHECK(ecs_group_init(&g, members, 2, &err) == ECS_OK);
    ecs_spawner_init(&sp);
    CHECK(ecs_spawner_register(&sp, "pa", ecs_manager_spawn, ecs_manager_unspawn, 4, &a, &err) == ECS_OK);
    CHECK(ecs_spawner_register(&sp, "pb", ecs_manager_spawn, ecs_manager_unspawn, 4, &b, &err) == ECS_OK);
    CHECK(ecs_spawner_register(&sp, "pa2", own_spawn, ecs_manager_unspawn, 4, &a, &err) == ECS_OK);
    memset(&watch, 0, sizeof watch);
    watch.m[0] = &a, watch.m[1] = &b;
    jobs.parallel_for = watching_parallel_for, jobs.context = &watch, jobs.num_workers = 2;
    CHECK(ecs_spawner_spawn_jobs(&sp, &em, out->blob, out->size, 2, NULL, &jobs, &err) == ECS_OK);
    CHECK_MSG(watch.changed_by[0] == watch.changed_by[1] && watch.shared == 0, /* one task (0: run inline) */
              "a changed by task %u, b by %u, %u changed by a second task", (unsigned)watch.changed_by[0],
              (unsigned)watch.changed_by[1], (unsigned)watch.shared);
    CHECK(g.size == a.count && a.count == 80u);
    ecs_spawner_free(&sp);
    ecs_group_free(&g);
    ecs_manager_free(&a);
    ecs_manager_free(&b);
    ecs_entity_manager_free(&em);
}

/* pa and pb defined and registered through a plugin registry (its spawn
   thunks enter the registry, which is not thread-safe, and hide the
   managers) and grouped in the world: one task spawns both. */
static void test_spawn_through_registry(const ecs_compiler_output *out)
{
    ecs_world w;
    ecs_plugin_registry_desc d;
    ecs_plugin_registry *reg;
    ecs_compiler c;
    ecs_spawner sp;
    ecs_error err;
    ecs_manager *a, *b;
    const ecs_resources_api_v1 *res;
    static const char *names[2] = {"pa", "pb"};
    touch_watch watch;
    ecs_jobs jobs;
    CHECK(ecs_world_init(&w) == ECS_OK);
    memset(&d, 0, sizeof d);
    d.world = &w;
    reg = ecs_plugin_registry_create(&d, &err);
    CHECK_MSG(reg != NULL, "%s", err.message);
    if (!reg) return;
    ecs_compiler_init(&c);
    ecs_spawner_init(&sp);
    CHECK(ecs_plugin_publish_resources(reg, &c, &sp, &err) == ECS_OK);
    a = ecs_plugin_define_manager_schema(reg, "pa", one_x, 1, ECS_LOOKUP_DENSE, &err);
    b = ecs_plugin_define_manager_schema(reg, "pb", one_x, 1, ECS_LOOKUP_DENSE, &err);
    res = (const ecs_resources_api_v1 *)ecs_plugin_registry_get_api(reg)(ECS_API_RESOURCES, 1);
    CHECK(a && b && res);
    if (a && b && res) {
        CHECK(res->register_manager(res->registry, "pa", 100, a, &err) == ECS_OK);
        CHECK(res->register_manager(res->registry, "pb", 101, b, &err) == ECS_OK);
        CHECK(ecs_spawner_register(&sp, "pa2", own_spawn, ecs_manager_unspawn, 4, a, &err) == ECS_OK);
        CHECK(ecs_spawner_set_store(&sp, "pa2", reg, &err) == ECS_OK); /* it calls into pa: the registry's task */
        CHECK(ecs_spawner_set_store(&sp, "nothing", reg, &err) == ECS_ERROR_NOT_FOUND);
        CHECK(ecs_world_group(&w, names, 2, &err) == ECS_OK);
        memset(&watch, 0, sizeof watch);
        watch.m[0] = a, watch.m[1] = b;
        jobs.parallel_for = watching_parallel_for, jobs.context = &watch, jobs.num_workers = 2;
        CHECK_MSG(ecs_spawner_spawn_jobs(&sp, &w.entities, out->blob, out->size, 2, NULL, &jobs, &err) == ECS_OK, "%s",
                  err.message);
        CHECK_MSG(watch.changed_by[0] == watch.changed_by[1] && watch.shared == 0, /* one task (0: run inline) */
                  "registry: a changed by task %u, b by %u, %u by a second task", (unsigned)watch.changed_by[0],
                  (unsigned)watch.changed_by[1], (unsigned)watch.shared);
        CHECK(a->count == 80u && b->count == 80u);
    }
    ecs_plugin_registry_destroy(reg);
    ecs_spawner_free(&sp);
    ecs_compiler_free(&c);
    ecs_world_free(&w);
}

static void test_spawn(void)
{
    ecs_compiler compiler;
    ecs_compiler_output out;
    ecs_error err, err2;
    size_t len;
    char *json;
    uint32_t j, copies, bomb, grouped;
    rng_state = 1234;
    json = level_json(300, &len);
    memset(&out, 0, sizeof out);
    ecs_compiler_init(&compiler);
    CHECK(ecs_compiler_register_standard(&compiler, &err) == ECS_OK);
    CHECK_MSG(ecs_compiler_compile(&compiler, json, len, 0, &out, &err) == ECS_OK, "%s", err.message);
    /* grouped: {mesh, actor} an owning group, so spawning one moves the
       other's instances: the two must spawn on one task (issue 24; with the
       "reverse" job system, on one thread, the order differed before) */
    for (grouped = 0; grouped <= 1; ++grouped)
    for (j = 0; j < NUM_JOBS; ++j)
        for (copies = 1; copies <= 3; copies += 2)
            for (bomb = 0; bomb <= (grouped ? 0 : copies); bomb += copies) { /* 0: no failure; copies: the last copy's actors fail */
                level_stores ref, par;
                ecs_result r1, r2;
                level_stores_init(&ref, bomb != 0, (int)grouped);
                level_stores_init(&par, bomb != 0, (int)grouped);
                actor_bomb_armed = (int)bomb;
                r1 = ecs_spawner_spawn_copies(&ref.sp, &ref.em, out.blob, out.size, copies, NULL, &err);
                actor_bomb_armed = (int)bomb;
                r2 = ecs_spawner_spawn_jobs(&par.sp, &par.em, out.blob, out.size, copies, NULL, &jobs_list[j], &err2);
                CHECK(r1 == (bomb ? ECS_ERROR_SPAWN_FAILED : ECS_OK));
                CHECK_MSG(r1 == r2 && (r1 == ECS_OK || strcmp(err.message, err2.message) == 0), "%s: %s / %s",
                          jobs_name[j], err.message, err2.message);
                CHECK_MSG(same_levels(&ref, &par), "%s, %u copies, bomb %u, grouped %u", jobs_name[j], (unsigned)copies,
                          (unsigned)bomb, (unsigned)grouped);
                if (grouped) CHECK(par.group.size > 0 && par.group.size == ref.group.size);
                if (bomb) CHECK(ecs_entity_count(&par.em) == 0 && par.tm.count == 0 && par.mesh.count == 0 && par.actor.count == 0);
                else CHECK(par.tm.count > 600u * copies && par.mesh.count > 0 && par.actor.count > 0);
                level_stores_free(&ref);
                level_stores_free(&par);
            }
    test_spawn_shared_store(&out);
    test_spawn_grouped_one_task(&out);
    {
        ecs_compiler_output two;
        two_function_blob(&two, 40);
        test_spawn_own_function(&two);
        test_spawn_through_registry(&two);
        ecs_compiler_output_free(&two);
    }
    ecs_compiler_output_free(&out);
    ecs_compiler_free(&compiler);
    free(json);
}

/* ---- systems ---------------------------------------------------------------------- */

/* A world of N_SYS entities: position and velocity (direct), data, health
   and armor (dense, grouped {data, health} inside {data, health, armor}),
   each one float field; the same values in plain per-entity arrays for the
   naive reference (entity k is index k + 1). */
#define N_SYS 70000u
#define ONE_FLOAT(X) X(float, v)
ECS_MANAGER_DEFINE(t_position, ONE_FLOAT)
ECS_MANAGER_DEFINE(t_velocity, ONE_FLOAT)
ECS_MANAGER_DEFINE(t_data, ONE_FLOAT)
ECS_MANAGER_DEFINE(t_health, ONE_FLOAT)
ECS_MANAGER_DEFINE(t_armor, ONE_FLOAT)
typedef struct sys_world {
    ecs_world w;
    t_position pos;
    t_velocity vel;
    t_data data;
    t_health health;
    t_armor armor;
    double sum; /* the serial system's reduction */
} sys_world;

#define MOVE(X) X(t_position, p, ECS_WRITE) X(t_velocity, v, ECS_READ)
ECS_WORLD_SYSTEM_DEFINE(sys_move, MOVE, 0) { p.v[k] += v.v[k] / 60.0f; }
#define STEER(X) X(t_velocity, v, ECS_WRITE) X(t_position, p, ECS_READ)
ECS_WORLD_SYSTEM_DEFINE(sys_steer, STEER, 0) { v.v[k] = v.v[k] * 0.99f - p.v[k] * 0.001f; }
#define DATA(X) X(t_data, d, ECS_WRITE)
ECS_WORLD_SYSTEM_DEFINE(sys_data, DATA, 0) { d.v[k] = d.v[k] * 1.5f + 0.25f; }
#define HURT(X) X(t_health, h, ECS_WRITE) X(t_position, p, ECS_READ) /* the lookup path */
ECS_WORLD_SYSTEM_DEFINE(sys_hurt, HURT, 0) { h.v[k] -= p.v[k] * 0.5f; }
#define SUM(X) X(t_position, p, ECS_READ) /* a reduction: serial */
ECS_WORLD_SYSTEM_DEFINE(sys_sum, SUM, ECS_SERIAL) { ((sys_world *)frame->user)->sum += (double)p.v[k] * 1.0000001; }
#define TALLY(X) X(t_data, d, ECS_READ) /* serial too, into the same sum: never beside sys_sum (it used to be) */
ECS_WORLD_SYSTEM_DEFINE(sys_tally, TALLY, ECS_SERIAL) { ((sys_world *)frame->user)->sum += (double)d.v[k] * 0.5; }
#define DATA_OPT(X) X(t_health, h, ECS_OPTIONAL) X(t_data, d, ECS_WRITE) /* optional first: reordered */
ECS_WORLD_SYSTEM_DEFINE(sys_data_opt, DATA_OPT, 0) { d.v[k] -= h.v ? h.v[k] : 1.0f; }
#define HEAL(X) X(t_health, h, ECS_WRITE) X(t_data, d, ECS_READ) /* exactly the inner group */
ECS_WORLD_SYSTEM_DEFINE(sys_heal, HEAL, 0) { h.v[k] += d.v[k] * 0.001f; }
#define WEAR(X) X(t_armor, a, ECS_WRITE) X(t_data, d, ECS_READ) /* held by the outer group: prefix + remainder */
ECS_WORLD_SYSTEM_DEFINE(sys_wear, WEAR, 0) { a.v[k] = a.v[k] * 0.5f + d.v[k]; }

typedef struct sys_ref { /* the naive reference: plain arrays by entity */
    float pos[N_SYS], vel[N_SYS], data[N_SYS], health[N_SYS], armor[N_SYS];
    uint8_t has[N_SYS]; /* bits: 1 vel, 2 data, 4 health, 8 armor (every entity has a position) */
    double sum;
} sys_ref;

static void sys_ref_frame(sys_ref *r)
{
    uint32_t k;
    for (k = 0; k < N_SYS; ++k) if (r->has[k] & 1u) r->pos[k] += r->vel[k] / 60.0f;
    for (k = 0; k < N_SYS; ++k) if (r->has[k] & 1u) r->vel[k] = r->vel[k] * 0.99f - r->pos[k] * 0.001f;
    for (k = 0; k < N_SYS; ++k) if (r->has[k] & 2u) r->data[k] = r->data[k] * 1.5f + 0.25f;
    for (k = 0; k < N_SYS; ++k) if (r->has[k] & 4u) r->health[k] -= r->pos[k] * 0.5f;
    for (k = 0; k < N_SYS; ++k) r->sum += (double)r->pos[k] * 1.0000001;
    for (k = 0; k < N_SYS; ++k) if (r->has[k] & 2u) r->sum += (double)r->data[k] * 0.5;
    for (k = 0; k < N_SYS; ++k) if (r->has[k] & 2u) r->data[k] -= (r->has[k] & 4u) ? r->health[k] : 1.0f;
    for (k = 0; k < N_SYS; ++k) if ((r->has[k] & 6u) == 6u) r->health[k] += r->data[k] * 0.001f;
    for (k = 0; k < N_SYS; ++k) if ((r->has[k] & 10u) == 10u) r->armor[k] = r->armor[k] * 0.5f + r->data[k];
}

/* whether entity k's values in s are the reference's, bit for bit */
static int sys_same(const sys_world *s, const sys_ref *r)
{
    uint32_t k, bad = 0;
    for (k = 0; k < N_SYS && !bad; ++k) {
        ecs_entity e = ecs_entity_make(k + 1u, 0);
        ecs_instance i;
        bad += memcmp(&s->pos.v[t_position_lookup(&s->pos, e).i], &r->pos[k], 4) != 0;
        if (r->has[k] & 1u) bad += memcmp(&s->vel.v[t_velocity_lookup(&s->vel, e).i], &r->vel[k], 4) != 0;
        if (!ecs_instance_is_nil(i = t_data_lookup(&s->data, e))) bad += !(r->has[k] & 2u) || memcmp(&s->data.v[i.i], &r->data[k], 4);
        if (!ecs_instance_is_nil(i = t_health_lookup(&s->health, e))) bad += !(r->has[k] & 4u) || memcmp(&s->health.v[i.i], &r->health[k], 4);
        if (!ecs_instance_is_nil(i = t_armor_lookup(&s->armor, e))) bad += !(r->has[k] & 8u) || memcmp(&s->armor.v[i.i], &r->armor[k], 4);
    }
    return !bad && s->data.core.num_instances + s->health.core.num_instances > 0 && memcmp(&s->sum, &r->sum, sizeof s->sum) == 0;
}

/* e gets value v in m (create first: it may move the arrays; a group may move the instance) */
static void set_value(ecs_manager *m, ecs_entity e, float v)
{
    ecs_manager_create(m, e);
    ((float *)m->field[0])[ecs_manager_lookup(m, e).i] = v;
}

static void sys_world_build(sys_world *s, sys_ref *r)
{
    static const char *const inner[] = {"t_data", "t_health"}, *const outer[] = {"t_data", "t_health", "t_armor"};
    static const ecs_system_desc *const systems[9] = {&sys_move_system, &sys_steer_system, &sys_data_system,
                                                      &sys_hurt_system, &sys_sum_system,   &sys_tally_system,
                                                      &sys_data_opt_system,
                                                      &sys_heal_system, &sys_wear_system};
    ecs_error err;
    uint32_t k;
    memset(s, 0, sizeof *s);
    memset(r, 0, sizeof *r);
    CHECK(ecs_world_init(&s->w) == ECS_OK);
    CHECK(t_position_init(&s->pos, ECS_LOOKUP_DIRECT) == ECS_OK && t_velocity_init(&s->vel, ECS_LOOKUP_DIRECT) == ECS_OK);
    CHECK(t_data_init(&s->data, ECS_LOOKUP_DENSE) == ECS_OK && t_health_init(&s->health, ECS_LOOKUP_DENSE) == ECS_OK);
    CHECK(t_armor_init(&s->armor, ECS_LOOKUP_HASH) == ECS_OK);
    CHECK(ecs_world_add_manager(&s->w, "t_position", &s->pos.core, &err) == ECS_OK);
    CHECK(ecs_world_add_manager(&s->w, "t_velocity", &s->vel.core, &err) == ECS_OK);
    CHECK(ecs_world_add_manager(&s->w, "t_data", &s->data.core, &err) == ECS_OK);
    CHECK(ecs_world_add_manager(&s->w, "t_health", &s->health.core, &err) == ECS_OK);
    CHECK(ecs_world_add_manager(&s->w, "t_armor", &s->armor.core, &err) == ECS_OK);
    CHECK(ecs_world_group(&s->w, outer, 3, &err) == ECS_OK); /* the outer one first: the inner nests after */
    rng_state = 4242;
    for (k = 0; k < N_SYS; ++k) {
        ecs_entity e = ecs_entity_create(&s->w.entities);
        set_value(&s->pos.core, e, r->pos[k] = (float)rnd_below(1000) * 0.37f);
        if (k % 5u != 3u) set_value(&s->vel.core, e, r->vel[k] = (float)rnd_below(100) * 0.11f), r->has[k] |= 1u;
        if (k % 2u == 0u) set_value(&s->data.core, e, r->data[k] = (float)k * 0.01f), r->has[k] |= 2u;
        if (k % 3u == 0u) set_value(&s->health.core, e, r->health[k] = 100.0f), r->has[k] |= 4u;
        if (k % 7u < 3u) set_value(&s->armor.core, e, r->armor[k] = (float)(k % 11u)), r->has[k] |= 8u;
    }
    CHECK(ecs_world_group(&s->w, inner, 2, &err) == ECS_OK);
    for (k = 0; k < 9; ++k) CHECK_MSG(ecs_world_add_system(&s->w, systems[k], &err) == ECS_OK, "%s", err.message);
}

static void test_systems(void)
{
    /* sys_tally (5) after sys_sum (4): both serial, so never in one wave */
    static const uint32_t want_wave[9] = {0, 1, 0, 1, 1, 2, 3, 4, 4};
    static const ecs_world_query_path want_path[9] = {ECS_WORLD_QUERY_DIRECT, ECS_WORLD_QUERY_DIRECT, ECS_WORLD_QUERY_LOOKUP,
        ECS_WORLD_QUERY_LOOKUP, ECS_WORLD_QUERY_DIRECT, ECS_WORLD_QUERY_LOOKUP, ECS_WORLD_QUERY_LOOKUP, ECS_WORLD_QUERY_GROUP,
        ECS_WORLD_QUERY_GROUP};
    uint32_t j, i;
    uint64_t frame;
    ecs_error err;
    sys_ref *r = (sys_ref *)malloc(sizeof *r);
    for (j = 0; j < NUM_JOBS; ++j) {
        sys_world *par = (sys_world *)malloc(sizeof *par);
        ecs_frame f = {1.0 / 60.0, 0, NULL};
        sys_world_build(par, r);
        f.user = par;
        for (frame = 0; frame < 3; ++frame) {
            f.number = frame;
            sys_ref_frame(r);
            CHECK(ecs_world_run_systems(&par->w, &f, &jobs_list[j], &err) == ECS_OK);
            CHECK_MSG(sys_same(par, r), "%s, frame %u", jobs_name[j], (unsigned)frame);
        }
        for (i = 0; i < 9; ++i) {
            CHECK_MSG(par->w.systems[i].wave == want_wave[i], "system %u wave %u", (unsigned)i, (unsigned)par->w.systems[i].wave);
            CHECK_MSG(par->w.systems[i].query.path == want_path[i], "system %u path %u", (unsigned)i,
                      (unsigned)par->w.systems[i].query.path);
        }
        CHECK(r->sum != 0.0);
        /* a removed store: refused naming the system and the component, nothing run */
        CHECK(ecs_world_remove(&par->w, "t_health", &err) == ECS_OK);
        par->sum = 0;
        CHECK(ecs_world_run_systems(&par->w, &f, &jobs_list[j], &err) == ECS_ERROR_NOT_FOUND);
        CHECK(strstr(err.message, "'sys_hurt'") && strstr(err.message, "'t_health'") && par->sum == 0.0);
        ecs_world_free(&par->w);
        t_position_free(&par->pos), t_velocity_free(&par->vel), t_data_free(&par->data);
        t_health_free(&par->health), t_armor_free(&par->armor);
        free(par);
    }
    free(r);
}

int main(void)
{
    jobs_setup();
    test_pool_runs_each_task_once();
    test_world_pass();
    test_commit();
    test_set_local_many();
    test_spawn();
    test_systems();
    jobs_teardown();
    return test_report("test_threads");
}
