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
   scaled down (wide, humanoids, large, chain), and an order with children
   before parents (the walk). tests/run.sh also builds this file with
   -fsanitize=thread (clang-tsan-c99). */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_TRANSFORM_IMPLEMENTATION
#include "ecs_transform.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
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
    {SHAPE_CHAIN, 2500, "chain 2500"},
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

int main(void)
{
    jobs_setup();
    test_pool_runs_each_task_once();
    test_world_pass();
    test_commit();
    test_set_local_many();
    jobs_teardown();
    return test_report("test_threads");
}
