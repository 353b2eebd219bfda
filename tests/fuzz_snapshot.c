/* tests/fuzz_snapshot.c - libFuzzer harness: any bytes as a snapshot.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -I/usr/include/stb \
         tests/fuzz_snapshot.c -o fuzz_snapshot -lm
   ./fuzz_snapshot NEW_DIR tests/corpus/fuzz_snapshot
   -DFUZZ_STANDALONE gives a main that replays files and directories.

   Checks, beyond "no crash, no sanitizer report, no leak":
   - verify and load agree: a snapshot verify refuses is refused by the load,
     and the world stays empty (so does a load that fails for a layout the
     world does not have); a snapshot that ecs_snapshot_verify_for passes
     for the world loads (or is refused for the target only: a layout or a
     group the world has otherwise), never refused for its bytes; every
     refusal of bytes names an offset inside the blob;
   - a loaded world is consistent (every instance found from its entity, every
     transform from its entity), runs a collect and a commit, and saves
     again into a snapshot that verifies and loads into the same world (hash);
   - ecs_snapshot_swap twice gives back the same bytes; a refused swap
     changes nothing;
   - a verified snapshot goes to JSON and back into the same bytes. */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_TRANSFORM_IMPLEMENTATION
#include "ecs_transform.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#define ECS_SNAPSHOT_IMPLEMENTATION
#include "ecs_snapshot.h"
#include "fuzz_common.h"

/* The stores of the snapshot tests' world, which made the corpus. */
#include "snapshot_schemas.h"

typedef struct snap_world {
    ecs_world w;
    ecs_transform_manager tm;
} snap_world;

static void snap_world_init(snap_world *s)
{
    static const char *const group[] = {"body", "health"};
    ecs_error err;
    FUZZ_CHECK(ecs_world_init(&s->w) == ECS_OK);
    FUZZ_CHECK(ecs_transform_manager_init(&s->tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_DEFERRED) == ECS_OK);
    FUZZ_CHECK(ecs_world_define_schema(&s->w, "body", body_schema, 2, ECS_LOOKUP_DENSE, &err) != NULL);
    FUZZ_CHECK(ecs_world_define_schema(&s->w, "health", health_schema, 6, ECS_LOOKUP_HASH, &err) != NULL);
    FUZZ_CHECK(ecs_world_define_schema(&s->w, "heading", heading_schema, 1, ECS_LOOKUP_DIRECT, &err) != NULL);
    FUZZ_CHECK(ecs_world_define_schema(&s->w, "items", item_schema, 2, ECS_LOOKUP_HASH, &err) != NULL);
    FUZZ_CHECK(ecs_world_define(&s->w, "tag", NULL, 0, ECS_LOOKUP_DENSE, &err) != NULL);
    FUZZ_CHECK(ecs_world_define(&s->w, "raw", raw_fields, 2, ECS_LOOKUP_DENSE, &err) != NULL);
    FUZZ_CHECK(ecs_transform_world_register(&s->w, "transform", &s->tm, &err) == ECS_OK);
    FUZZ_CHECK(ecs_world_group(&s->w, group, 2, &err) == ECS_OK);
}

static void snap_world_free(snap_world *s)
{
    ecs_world_free(&s->w);
    ecs_transform_manager_free(&s->tm);
}

static int snap_world_empty(const snap_world *s)
{
    uint32_t k;
    for (k = 0; k < s->w.num_components; ++k)
        if (s->w.component[k].manager && s->w.component[k].manager->count) return 0;
    return s->w.entities.max_index == 0 && s->tm.count == 0;
}

static int snap_world_consistent(const snap_world *s)
{
    uint32_t k, i;
    for (k = 0; k < s->w.num_components; ++k) {
        const ecs_manager *m = s->w.component[k].manager;
        for (i = 0; m && i < m->count; ++i) {
            ecs_instance x;
            if (m->lookup == ECS_LOOKUP_DIRECT && m->entity[i].id == 0) continue;
            for (x = ecs_manager_lookup(m, m->entity[i]); !ecs_instance_is_nil(x) && x.i != i; x = ecs_manager_next(m, x)) continue;
            if (x.i != i) return 0;
        }
    }
    for (i = 0; i < s->tm.count; ++i)
        if (ecs_transform_lookup(&s->tm, s->tm.entity[i]).i != i) return 0;
    return 1;
}

/* A loaded world saves into a snapshot that loads into the same world. */
static void check_loaded(snap_world *a)
{
    snap_world b;
    ecs_snapshot_output out = {NULL, 0};
    ecs_error err;
    FUZZ_CHECK(snap_world_consistent(a));
    ecs_transform_commit(&a->tm);
    (void)ecs_world_collect(&a->w, NULL);
    FUZZ_CHECK(snap_world_consistent(a));
    FUZZ_CHECK(ecs_snapshot_save(&a->w, NULL, &out, &err) == ECS_OK);
    FUZZ_CHECK(ecs_snapshot_verify(out.data, out.size, &err) == ECS_OK);
    snap_world_init(&b);
    FUZZ_CHECK(ecs_snapshot_load(&b.w, out.data, out.size, 0, NULL, &err) == ECS_OK);
    FUZZ_CHECK(ecs_snapshot_world_hash(&a->w) == ecs_snapshot_world_hash(&b.w));
    snap_world_free(&b);
    ecs_snapshot_output_free(&out);
}

/* The blob offset an error message names ("offset N (...)"), or -1. */
static long message_offset(const char *message)
{
    const char *at = strstr(message, "offset ");
    return at ? strtol(at + 7, NULL, 10) : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *b = (unsigned char *)malloc(size ? size : 1);
    snap_world s;
    ecs_error e1, e2, e3;
    ecs_result r1, r2, r3;
    if (!b) abort();
    if (size) memcpy(b, data, size);
    r1 = ecs_snapshot_verify(b, size, &e1);
    snap_world_init(&s);
    r3 = ecs_snapshot_verify_for(&s.w, b, size, &e3);
    r2 = ecs_snapshot_load(&s.w, b, size, 0, NULL, &e2);
    if (r1 != ECS_OK) FUZZ_CHECK(r2 != ECS_OK && r3 != ECS_OK); /* (the load may meet another of its faults first) */
    if (r3 == ECS_OK) FUZZ_CHECK(r2 == ECS_OK || r2 == ECS_ERROR_INVALID_ARGUMENT || r2 == ECS_ERROR_OUT_OF_MEMORY);
    if (r1 != ECS_OK && r1 != ECS_ERROR_OUT_OF_MEMORY) FUZZ_CHECK(strstr(e1.message, "offset ") != NULL);
    if (r2 == ECS_ERROR_CORRUPT_RESOURCE) FUZZ_CHECK(message_offset(e2.message) >= 0 && (size_t)message_offset(e2.message) <= size);
    if (r2 != ECS_OK) FUZZ_CHECK(snap_world_empty(&s));
    else check_loaded(&s);
    snap_world_free(&s);
    if (r1 == ECS_OK) {
        ecs_snapshot_output text = {NULL, 0}, back = {NULL, 0};
        FUZZ_CHECK(ecs_snapshot_to_json(b, size, &text, &e1) == ECS_OK);
        FUZZ_CHECK(ecs_snapshot_from_json((const char *)text.data, text.size, &back, &e1) == ECS_OK);
        FUZZ_CHECK(back.size == size && memcmp(back.data, b, size) == 0);
        ecs_snapshot_output_free(&text);
        ecs_snapshot_output_free(&back);
    }
    if (ecs_snapshot_swap(b, size, &e1) == ECS_OK) FUZZ_CHECK(ecs_snapshot_swap(b, size, &e1) == ECS_OK);
    FUZZ_CHECK(size == 0 || memcmp(b, data, size) == 0);
    free(b);
    return 0;
}

#ifdef FUZZ_STANDALONE
static void fuzz_cleanup(void) {}
#endif
