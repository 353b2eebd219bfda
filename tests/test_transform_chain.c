/* tests/test_transform_chain.c - a chain 1,000,000 nodes deep, in both modes:
   every walk (subtree update, cycle check, deferred insertion into the dirty
   range, reorder, current-world computation, destroy) is iterative, so none
   may overflow the stack, sanitizer build included. The chain is also
   spawned children first into a deferred manager: its first commit lays the
   range out depth-first in O(n) (swaps alone would take O(n^2), hours at
   this depth). Translations by whole numbers keep every coordinate an exact
   float (below 2^24). */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_TRANSFORM_IMPLEMENTATION
#include "ecs_transform.h"

#include <stdlib.h>
#include <string.h>
#include "tests/test.h"

#define N 1000000u
#define NIL ECS_INSTANCE_NIL

static ecs_mat4 tx(float x)
{
    ecs_vec3 v;
    v.x = x, v.y = 0, v.z = 0;
    return ecs_mat4_translation(v);
}

/* x of the leaf's world, stored and current */
static float leaf_x(const ecs_transform_manager *tm, ecs_entity leaf, float *current)
{
    ecs_instance i = ecs_transform_lookup(tm, leaf);
    ecs_mat4 w;
    if (ecs_instance_is_nil(i) || ecs_transform_compute_world(tm, i, &w) != ECS_OK) return -1.0f;
    *current = w.m[12];
    return ecs_transform_world(tm, i)->m[12];
}

/* number of ancestors of e's node */
static uint32_t depth(const ecs_transform_manager *tm, ecs_entity e)
{
    uint32_t d = 0;
    ecs_instance i = ecs_transform_lookup(tm, e);
    while (!ecs_instance_is_nil(i = ecs_transform_parent(tm, i)) && d <= N) ++d;
    return d;
}

static void run(ecs_lookup_kind lookup, ecs_transform_mode mode)
{
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_entity *es = (ecs_entity *)malloc(N * sizeof *es);
    ecs_instance *in = (ecs_instance *)malloc(N * sizeof *in);
    ecs_mat4 *ms = (ecs_mat4 *)malloc(N * sizeof *ms);
    ecs_mat4 one = tx(1), m;
    ecs_instance prev = ecs_instance_nil();
    uint32_t k, f;
    float cur = 0;
    int deferred = mode == ECS_TRANSFORM_DEFERRED;
    CHECK(es && in && ms);
    if (!es || !in || !ms) return;
    ecs_entity_manager_init(&em);
    ecs_transform_manager_init(&tm, lookup, mode);
    CHECK(ecs_entity_create_many(&em, N, es) == ECS_OK);
    CHECK(ecs_transform_reserve(&tm, N) == ECS_OK);
    for (k = 0; k < N; ++k) prev = ecs_transform_create(&tm, es[k], &one, prev);
    CHECK(tm.count == N && !ecs_instance_is_nil(prev));
    ecs_transform_commit(&tm);
    CHECK(leaf_x(&tm, es[N - 1], &cur) == (float)N && cur == (float)N);
    CHECK(depth(&tm, es[N - 1]) == N - 1);
    /* deferred: let everything leave the dirty range first, so the next change
       moves the whole chain back in */
    if (deferred) {
        for (f = 0; f < ECS_TRANSFORM_DEFAULT_IDLE_FRAMES; ++f) ecs_transform_commit(&tm);
        CHECK(tm.first_dirty == N);
    }
    /* the root moves: the whole chain follows */
    m = tx(5);
    CHECK(ecs_transform_set_local(&tm, ecs_transform_lookup(&tm, es[0]), &m) == ECS_OK);
    CHECK(leaf_x(&tm, es[N - 1], &cur) == (deferred ? (float)N : (float)(N + 4)) && cur == (float)(N + 4));
    ecs_transform_commit(&tm);
    CHECK(leaf_x(&tm, es[N - 1], &cur) == (float)(N + 4) && cur == (float)(N + 4));
    if (deferred) CHECK(tm.first_dirty == 0);
    /* linking the root under the leaf (or under itself) is refused */
    CHECK(ecs_transform_link(&tm, ecs_transform_lookup(&tm, es[0]), ecs_transform_lookup(&tm, es[N - 1])) == ECS_ERROR_CYCLE);
    CHECK(ecs_transform_link(&tm, ecs_transform_lookup(&tm, es[N / 3]), ecs_transform_lookup(&tm, es[N - 2])) == ECS_ERROR_CYCLE);
    CHECK(depth(&tm, es[N - 1]) == N - 1);
    /* every node moves at once */
    for (k = 0; k < N; ++k) in[k] = ecs_transform_lookup(&tm, es[N - 1 - k]), ms[k] = tx(2);
    CHECK(ecs_transform_set_local_many(&tm, N, in, ms) == ECS_OK);
    ecs_transform_commit(&tm);
    CHECK(leaf_x(&tm, es[N - 1], &cur) == (float)(2 * N) && cur == (float)(2 * N));
    /* reorder and a world pass */
    CHECK(ecs_transform_reorder(&tm) == ECS_OK);
    CHECK(ecs_transform_lookup(&tm, es[0]).i == 0 && ecs_transform_lookup(&tm, es[N - 1]).i == N - 1);
    CHECK(ecs_transform_world_pass(&tm) == 1);
    CHECK(leaf_x(&tm, es[N - 1], &cur) == (float)(2 * N) && cur == (float)(2 * N));
    /* deferred: a change pending at the root, the current world of the leaf
       multiplies up a million locals */
    m = tx(3);
    CHECK(ecs_transform_set_local(&tm, ecs_transform_lookup(&tm, es[0]), &m) == ECS_OK);
    CHECK(leaf_x(&tm, es[N - 1], &cur) >= 0.0f && cur == (float)(2 * N + 1));
    ecs_transform_commit(&tm);
    /* unlink the middle: it keeps its world, the leaf stays put */
    CHECK(ecs_transform_unlink(&tm, ecs_transform_lookup(&tm, es[N / 2])) == ECS_OK);
    ecs_transform_commit(&tm);
    CHECK(leaf_x(&tm, es[N - 1], &cur) == (float)(2 * N + 1) && cur == (float)(2 * N + 1));
    CHECK(depth(&tm, es[N - 1]) == N - 1 - N / 2);
    /* destroy a node with a deep subtree: its child becomes a root in place */
    CHECK(ecs_transform_destroy_entity(&tm, es[N / 4]) == 1);
    ecs_transform_commit(&tm);
    CHECK(leaf_x(&tm, es[N - 1], &cur) == (float)(2 * N + 1) && cur == (float)(2 * N + 1));
    CHECK(depth(&tm, es[N / 2 - 1]) == N / 2 - 1 - (N / 4 + 1));
    /* and the root again, after all that */
    m = tx(10);
    CHECK(ecs_transform_set_local(&tm, ecs_transform_lookup(&tm, es[N / 2]), &m) == ECS_OK);
    ecs_transform_commit(&tm);
    {
        /* the leaf's world: the new root's local (10) plus 2 for each node below it */
        float expect = 10.0f + 2.0f * (float)(N - 1 - N / 2);
        CHECK(leaf_x(&tm, es[N - 1], &cur) == expect && cur == expect);
    }
    ecs_transform_manager_free(&tm);
    ecs_entity_manager_free(&em);
    free(es);
    free(in);
    free(ms);
}

/* resource entity k under k - 1, instances listed leaf first */
static void spawn_children_first(void)
{
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_spawn_context ctx;
    ecs_error err;
    ecs_entity *es = (ecs_entity *)malloc(N * sizeof *es);
    uint32_t *parent = (uint32_t *)malloc(N * sizeof *parent), *index = (uint32_t *)malloc(N * sizeof *index), k;
    ecs_mat4 *data = (ecs_mat4 *)malloc(N * sizeof *data), w;
    float cur = 0;
    CHECK(es && parent && index && data);
    if (!es || !parent || !index || !data) return;
    ecs_entity_manager_init(&em);
    ecs_transform_manager_init(&tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_DEFERRED);
    CHECK(ecs_entity_create_many(&em, N, es) == ECS_OK);
    for (k = 0; k < N; ++k) parent[k] = k ? k - 1u : ECS_SPAWN_ROOT, index[k] = N - 1u - k, data[k] = tx(1);
    memset(&err, 0, sizeof err);
    ctx.entities = &em, ctx.entity = es, ctx.parent_index = parent, ctx.num_entities = N, ctx.error = &err;
    CHECK(ecs_transform_spawn(&tm, &ctx, N, index, data, N * 64u) == ECS_OK);
    CHECK(tm.first_dirty == 0 && tm.parent[0] == 1u); /* the leaf first, its parent after it */
    CHECK(ecs_transform_compute_world(&tm, ecs_transform_lookup(&tm, es[N - 1]), &w) == ECS_OK && w.m[12] == (float)N);
    ecs_transform_commit(&tm);
    for (k = 1; k < N && (tm.parent[k] == k - 1u); ++k) {
    }
    CHECK(k == N && tm.parent[0] == NIL); /* the range is the chain, root first */
    CHECK(leaf_x(&tm, es[N - 1], &cur) == (float)N && cur == (float)N);
    ecs_transform_manager_free(&tm);
    ecs_entity_manager_free(&em);
    free(es), free(parent), free(index), free(data);
}

int main(void)
{
    spawn_children_first();
    run(ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    run(ECS_LOOKUP_HASH, ECS_TRANSFORM_DEFERRED);
    return test_report("test_transform_chain");
}
