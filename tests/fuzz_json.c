/* tests/fuzz_json.c - libFuzzer harness: any bytes as JSON for the reader,
   the level compiler, and as a resource path.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -I/usr/include/stb \
         tests/fuzz_json.c -o fuzz_json -lm
   ./fuzz_json -dict=tests/fuzz_json.dict NEW_DIR tests/corpus/fuzz_json
   Without libFuzzer, -DFUZZ_STANDALONE gives a main that replays files and
   directories: ./replay tests/corpus/fuzz_json

   Checks, beyond "no crash, no sanitizer report, no leak":
   - a parsed document is well formed (links, counts, keys, string lengths)
     and parsing is deterministic; a failure says "line L, column C";
   - what compiles verifies, spawns (all entities, every instance) and
     unspawns to an empty world; compiling twice gives the same bytes, and
     the big-endian output swapped is the little-endian output;
   - a compile failure leaves the output empty;
   - as a path: a canonical spelling is canonical, a fixed point, and equal
     to the input when the input was canonical. */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_TRANSFORM_IMPLEMENTATION
#include "ecs_transform.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#include "fuzz_common.h"

static int ready;
static ecs_compiler compiler;
static ecs_json_doc doc;
static fuzz_world w;

static void setup(void)
{
    ecs_error err;
    ecs_compiler_init(&compiler);
    FUZZ_CHECK(ecs_compiler_register_standard(&compiler, &err) == ECS_OK);
    FUZZ_CHECK(ecs_compiler_register(&compiler, "label", label_compile, NULL, 150, &err) == ECS_OK);
    memset(&doc, 0, sizeof doc);
    fuzz_world_init(&w, ECS_LOOKUP_HASH, ECS_LOOKUP_DENSE, ECS_LOOKUP_HASH);
    ready = 1;
}

static int host_little(void)
{
    const uint32_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 1;
}

static void check_doc(const ecs_json_doc *d)
{
    uint32_t i;
    FUZZ_CHECK(d->num_values > 0 && d->values[0].parent == ECS_JSON_NONE && d->values[0].next == d->num_values);
    for (i = 0; i < d->num_values; ++i) {
        const ecs_json_value *v = d->values + i, *c;
        uint32_t n = 0;
        FUZZ_CHECK(v->next > i && v->next <= d->num_values && v->type <= ECS_JSON_OBJECT);
        if (i) FUZZ_CHECK(v->parent < i && v->next <= d->values[v->parent].next);
        if (v->type == ECS_JSON_STRING) FUZZ_CHECK(v->str + v->count < d->pool_size && d->pool[v->str + v->count] == 0);
        if (v->key != ECS_JSON_NONE) {
            FUZZ_CHECK(v->parent != ECS_JSON_NONE && d->values[v->parent].type == ECS_JSON_OBJECT);
            FUZZ_CHECK(v->key + v->key_length < d->pool_size && d->pool[v->key + v->key_length] == 0);
        } else if (i) {
            FUZZ_CHECK(d->values[v->parent].type == ECS_JSON_ARRAY);
        }
        if (v->type == ECS_JSON_ARRAY || v->type == ECS_JSON_OBJECT) {
            for (c = ecs_json_first(d, v); c; c = ecs_json_next(d, c)) {
                FUZZ_CHECK(c->parent == i);
                ++n;
            }
            FUZZ_CHECK(n == v->count);
        } else {
            FUZZ_CHECK(v->next == i + 1);
        }
    }
    {
        char path[64];
        size_t need = ecs_json_path(d, d->values + d->num_values - 1, path, sizeof path);
        FUZZ_CHECK(strlen(path) <= (need < sizeof path ? need : sizeof path - 1)); /* names may hold NUL */
    }
}

static void check_compile(const char *text, size_t size)
{
    ecs_compiler_output le, le2, be;
    ecs_error err;
    ecs_result r = ecs_compiler_compile(&compiler, text, size, 0, &le, &err), r2;
    if (r != ECS_OK) {
        FUZZ_CHECK(le.blob == NULL && le.size == 0 && le.dependency == NULL && err.code == r);
        return;
    }
    FUZZ_CHECK(ecs_compiler_compile(&compiler, text, size, 0, &le2, &err) == ECS_OK);
    FUZZ_CHECK(le.size == le2.size && memcmp(le.blob, le2.blob, le.size) == 0);
    FUZZ_CHECK(le.num_dependencies == le2.num_dependencies);
    FUZZ_CHECK(ecs_compiler_compile(&compiler, text, size, ECS_COMPILER_BIG_ENDIAN, &be, &err) == ECS_OK);
    FUZZ_CHECK(be.size == le.size);
    {
        ecs_compiler_output *native = host_little() ? &le : &be, *foreign = host_little() ? &be : &le;
        uint32_t ne, k, instances = 0, t, off;
        FUZZ_CHECK(ecs_resource_verify(native->blob, native->size, &err) == ECS_OK);
        FUZZ_CHECK(ecs_resource_verify(foreign->blob, foreign->size, &err) == ECS_ERROR_WRONG_BYTE_ORDER);
        FUZZ_CHECK(ecs_resource_swap(foreign->blob, foreign->size, ecs_resource_swap_standard, NULL, &err) == ECS_OK);
        FUZZ_CHECK(memcmp(foreign->blob, native->blob, native->size) == 0);
        for (k = 0; k < native->num_dependencies; ++k) {
            FUZZ_CHECK(ecs_path_is_canonical(native->dependency[k]));
            if (k) FUZZ_CHECK(strcmp(native->dependency[k - 1], native->dependency[k]) < 0);
        }
        ne = ecs_resource_num_entities(native->blob);
        for (t = 0, off = ecs_resource_first_block(native->blob); t < ecs_resource_num_component_types(native->blob); ++t) {
            ecs_resource_block blk = ecs_resource_block_at(native->blob, off);
            instances += blk.num_instances;
            off = blk.next;
        }
        if (ne <= 100000) { /* what compiles spawns, completely */
            ecs_entity *ents = (ecs_entity *)malloc((ne ? ne : 1) * sizeof *ents);
            if (!ents) abort();
            r2 = ecs_spawner_spawn(&w.sp, &w.em, native->blob, native->size, ents, &err);
            if (r2 != ECS_OK) fprintf(stderr, "fuzz_json: spawn failed: %s\n", err.message);
            FUZZ_CHECK(r2 == ECS_OK);
            FUZZ_CHECK(ecs_entity_count(&w.em) == ne);
            FUZZ_CHECK(fuzz_world_instances(&w) == instances);
            FUZZ_CHECK(ecs_spawner_unspawn(&w.sp, &w.em, native->blob, 1, ents) == ne);
            FUZZ_CHECK(ecs_entity_count(&w.em) == 0 && fuzz_world_instances(&w) == 0);
            free(ents);
        }
    }
    ecs_compiler_output_free(&le);
    ecs_compiler_output_free(&le2);
    ecs_compiler_output_free(&be);
}

static void check_path(const uint8_t *data, size_t size)
{
    char in[128], out1[128], out2[128];
    size_t n = size < sizeof in - 1 ? size : sizeof in - 1;
    memcpy(in, data, n);
    in[n] = 0;
    if (ecs_path_canonicalize(in, out1, sizeof out1, NULL) == ECS_OK) {
        FUZZ_CHECK(ecs_path_is_canonical(out1));
        FUZZ_CHECK(ecs_path_canonicalize(out1, out2, sizeof out2, NULL) == ECS_OK && strcmp(out1, out2) == 0);
        if (ecs_path_is_canonical(in)) FUZZ_CHECK(strcmp(in, out1) == 0);
    } else {
        FUZZ_CHECK(!ecs_path_is_canonical(in) && out1[0] == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = (char *)malloc(size ? size : 1); /* exactly size bytes: no NUL to lean on */
    ecs_error err;
    ecs_result r;
    if (!ready) setup();
    if (!text) abort();
    if (size) memcpy(text, data, size);
    r = ecs_json_parse(&doc, text, size, &err);
    if (r == ECS_OK) {
        uint32_t n = doc.num_values;
        check_doc(&doc);
        FUZZ_CHECK(ecs_json_parse(&doc, text, size, &err) == ECS_OK && doc.num_values == n);
    } else {
        FUZZ_CHECK(r == ECS_ERROR_JSON && strncmp(err.message, "line ", 5) == 0 && strstr(err.message, ", column "));
        FUZZ_CHECK(ecs_json_root(&doc) == NULL);
    }
    check_compile(text, size);
    check_path(data, size);
    free(text);
    return 0;
}

#ifdef FUZZ_STANDALONE
static void fuzz_cleanup(void)
{
    if (!ready) return;
    fuzz_world_free(&w);
    ecs_json_doc_free(&doc);
    ecs_compiler_free(&compiler);
    ready = 0;
}
#endif
