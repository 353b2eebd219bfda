/* bench/part_resource.c - the resource rows of DESIGN.md section 7, for
   bench/bench.c (which includes ecs.h, ecs_transform.h and ecs_resource.h
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
                            despawned (entities destroyed, managers emptied,
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
    double samples[BENCH_REPS], spawn_ns, copy_ns;
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
                             ECS_TRANSFORM_SPAWN_INSTANCE_SIZE, &tm, &err) != ECS_OK ||
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
        ecs_spawner_despawn(&sp, &em, out.blob, 1, ents);
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
