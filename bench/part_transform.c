/* bench/part_transform.c - the transform rows of DESIGN.md section 7, for
   bench/bench.c (which includes ecs.h and ecs_transform.h with their
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
                                        (arrays, dense lookup) / nodes */

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

static void bench_transform_rows(void)
{
    bt_chain_rows();
    bt_world_pass_rows();
}
