/* tests/fuzz_resource.c - libFuzzer harness: any bytes as a resource blob.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -I/usr/include/stb \
         tests/fuzz_resource.c -o fuzz_resource -lm
   ./fuzz_resource NEW_DIR tests/corpus/fuzz_resource
   Without libFuzzer (any compiler), -DFUZZ_STANDALONE gives a main that
   replays files and directories: ./replay tests/corpus/fuzz_resource

   Checks, beyond "no crash, no sanitizer report, no leak":
   - verify and spawn agree: a blob verify rejects is rejected by spawn with
     the same error, and the world is unchanged;
   - a spawn either succeeds with exactly num_entities (x copies) entities,
     or fails and leaves no entity and no component instance behind;
   - unspawn returns the world to empty;
   - ecs_resource_swap twice gives back the same bytes, a refused swap
     changes nothing, and the names reader reads a swapped blob. */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_TRANSFORM_IMPLEMENTATION
#include "ecs_transform.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#include "fuzz_common.h"

static int ready;
static fuzz_world w;

static void setup(void)
{
    fuzz_world_init(&w, ECS_LOOKUP_DENSE, ECS_LOOKUP_HASH, ECS_LOOKUP_DENSE);
    ready = 1;
}

static void spawn_and_check(const unsigned char *b, size_t size, uint32_t copies, ecs_entity *ents)
{
    ecs_error err1, err2;
    ecs_result r1 = ecs_resource_verify(b, size, &err1), r2;
    FUZZ_CHECK(ecs_entity_count(&w.em) == 0 && fuzz_world_instances(&w) == 0);
    r2 = ecs_spawner_spawn_copies(&w.sp, &w.em, b, size, copies, ents, &err2);
    if (r1 != ECS_OK) {
        FUZZ_CHECK(r2 == r1 && strcmp(err1.message, err2.message) == 0);
        FUZZ_CHECK(strstr(err1.message, "offset ") != NULL || r1 == ECS_ERROR_INVALID_ARGUMENT);
        FUZZ_CHECK(ecs_entity_count(&w.em) == 0 && fuzz_world_instances(&w) == 0);
        return;
    }
    if (r2 != ECS_OK) {
        FUZZ_CHECK(r2 != ECS_ERROR_CORRUPT_RESOURCE || strstr(err2.message, "label") != NULL);
        FUZZ_CHECK(ecs_entity_count(&w.em) == 0 && fuzz_world_instances(&w) == 0);
        return;
    }
    FUZZ_CHECK(ecs_entity_count(&w.em) == ecs_resource_num_entities(b) * copies);
    if (!ents) ents = w.sp.entities; /* the table the spawner kept */
    FUZZ_CHECK(ecs_spawner_unspawn(&w.sp, &w.em, b, copies, ents) == ecs_resource_num_entities(b) * copies);
    FUZZ_CHECK(ecs_entity_count(&w.em) == 0 && fuzz_world_instances(&w) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *b = (unsigned char *)malloc(size ? size : 1), *c;
    ecs_entity *ents = (ecs_entity *)malloc((size / 4u + 1u) * 3u * sizeof(ecs_entity));
    ecs_error err;
    if (!ready) setup();
    if (!b || !ents) abort();
    if (size) memcpy(b, data, size);
    spawn_and_check(b, size, 1, ents);
    if (ecs_resource_verify(b, size, &err) == ECS_OK) {
        spawn_and_check(b, size, 3, ents); /* a prefab fired three times */
        spawn_and_check(b, size, 1, NULL); /* the spawner's own table */
    }
    /* swapping twice is the identity; a refused swap changes nothing */
    c = (unsigned char *)malloc(size ? size : 1);
    if (!c) abort();
    if (size) memcpy(c, data, size);
    if (ecs_resource_swap(c, size, ecs_resource_swap_standard, NULL, &err) == ECS_OK) {
        ecs_resource_names names; /* the swap checked the names block and swapped it too */
        FUZZ_CHECK(ecs_resource_names_read(c, size, &names, &err) == ECS_OK);
        ecs_resource_names_free(&names);
        FUZZ_CHECK(ecs_resource_swap(c, size, ecs_resource_swap_standard, NULL, &err) == ECS_OK);
    }
    FUZZ_CHECK(size == 0 || memcmp(c, data, size) == 0);
    free(c);
    free(ents);
    free(b);
    return 0;
}

#ifdef FUZZ_STANDALONE
static void fuzz_cleanup(void)
{
    if (!ready) return;
    fuzz_world_free(&w);
    ready = 0;
}
#endif
