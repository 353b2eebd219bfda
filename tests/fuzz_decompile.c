/* tests/fuzz_decompile.c - libFuzzer harness for the decompiler.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -I/usr/include/stb \
         tests/fuzz_decompile.c -o fuzz_decompile -lm
   ./fuzz_decompile NEW_DIR tests/corpus/fuzz_decompile
   Without libFuzzer (any compiler), -DFUZZ_STANDALONE gives a main that
   replays files and directories: ./replay tests/corpus/fuzz_decompile

   An input starting with 'E' is a blob (either byte order); anything else is
   level JSON, compiled first (flags from the input's length). The compiler
   knows transform, mesh, actor, a schema with every kind and references,
   "small" (the 8- and 16-bit kinds, a bounded u8 enum) and "label"
   (hand-written compile and decompile functions).
   Checks, beyond "no crash, no sanitizer report, no leak":
   - a blob either decompiles to JSON that compiles back to the same bytes
     (with out.compile_flags; also with every member written), or is refused
     with an error code and no output;
   - a blob that does not verify in either byte order is refused;
   - JSON that compiles decompiles (also the deepest entity chain the JSON
     reader takes) and round-trips, with and without names;
   - ecs_compiler_decompile_instance and ecs_resource_names_read on any
     verified blob return an answer and leak nothing. */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#include "fuzz_common.h"

#include "schema_fixture.h"
static const ecs_schema_field gadget_schema[] = {GADGET_SCHEMA(ECS_SCHEMA_FIELD)};
static const ecs_schema_field joint_schema[] = {
    {"a", ECS_FIELD_ENTITY, ECS_FIELD_REQUIRED}, {"b", ECS_FIELD_ENTITY, "null"}, {"stiffness", ECS_FIELD_F32, "1"}};
static const ecs_schema_field small_schema[] = {{"a", ECS_FIELD_I8, "0"},
                                                {"mode", ECS_FIELD_U8, "{\"default\": 1, \"min\": 1, \"max\": 3}"},
                                                {"c", ECS_FIELD_I16, "-2"},
                                                {"d", ECS_FIELD_U16, "7"}};

static int ready;
static ecs_compiler compiler;

static void setup(void)
{
    ecs_error err;
    ecs_compiler_init(&compiler);
    FUZZ_CHECK(ecs_compiler_register_standard(&compiler, &err) == ECS_OK);
    FUZZ_CHECK(ecs_compiler_register_schema(&compiler, "gadget", gadget_schema, 14, 150, &err) == ECS_OK);
    FUZZ_CHECK(ecs_compiler_register_schema(&compiler, "joint", joint_schema, 3, 300, &err) == ECS_OK);
    FUZZ_CHECK(ecs_compiler_register_schema(&compiler, "small", small_schema, 4, 170, &err) == ECS_OK);
    FUZZ_CHECK(ecs_compiler_register(&compiler, "label", label_compile, NULL, 160, &err) == ECS_OK);
    FUZZ_CHECK(ecs_compiler_set_decompile(&compiler, "label", label_decompile, NULL, &err) == ECS_OK);
    ready = 1;
}

/* compile(text, flags) must give exactly blob. */
static void check_compiles_back(const ecs_decompile_output *text, const unsigned char *blob, size_t size)
{
    ecs_compiler_output again;
    ecs_error err;
    ecs_result r = ecs_compiler_compile(&compiler, text->json, text->length, text->compile_flags, &again, &err);
    if (r != ECS_OK) fprintf(stderr, "fuzz_decompile: %s\n%.2000s\n", err.message, text->json);
    FUZZ_CHECK(r == ECS_OK);
    FUZZ_CHECK(again.size == size && memcmp(again.blob, blob, size) == 0);
    ecs_compiler_output_free(&again);
}

/* 1 when the blob verifies in its own byte order. */
static int verifies(const unsigned char *b, size_t size)
{
    ecs_error err;
    unsigned char *copy;
    int ok;
    ecs_result r = ecs_resource_verify(b, size, &err);
    if (r != ECS_ERROR_WRONG_BYTE_ORDER) return r == ECS_OK;
    copy = (unsigned char *)malloc(size);
    if (!copy) abort();
    memcpy(copy, b, size);
    ok = ecs_resource_swap(copy, size, NULL, NULL, &err) == ECS_OK;
    free(copy);
    return ok;
}

/* Every block of a verified native-order blob through decompile_instance. */
static void list_blocks(const unsigned char *b, size_t size)
{
    ecs_resource_names names;
    ecs_error err;
    uint32_t t, off;
    if (ecs_resource_verify(b, size, &err) != ECS_OK) return;
    FUZZ_CHECK(ecs_resource_names_read(b, size, &names, &err) == ECS_OK || err.code == ECS_ERROR_CORRUPT_RESOURCE);
    for (t = 0, off = ecs_resource_first_block(b); t < ecs_resource_num_component_types(b); ++t) {
        ecs_resource_block blk = ecs_resource_block_at(b, off);
        const unsigned char *d = (const unsigned char *)blk.data;
        uint32_t j, at = 0, used;
        for (j = 0; j < blk.num_instances && at <= blk.size; ++j) {
            ecs_decompile_output one;
            if (ecs_compiler_decompile_instance(&compiler, blk.identifier, d + at, blk.size - at, 0,
                                                names.memory ? &names : NULL, &one, &used, &err) != ECS_OK)
                break;
            FUZZ_CHECK(one.json && one.json[0] == '{' && used <= blk.size - at);
            ecs_decompile_output_free(&one);
            if (used == 0) break;
            at += used;
        }
        off = blk.next;
    }
    ecs_resource_names_free(&names);
}

static void check_blob(const unsigned char *b, size_t size)
{
    ecs_decompile_output text;
    ecs_error err;
    uint32_t flags;
    for (flags = 0; flags <= ECS_DECOMPILE_ALL_MEMBERS; ++flags) {
        ecs_result r = ecs_compiler_decompile(&compiler, b, size, flags, &text, &err);
        if (r == ECS_OK) {
            FUZZ_CHECK(verifies(b, size));
            check_compiles_back(&text, b, size);
        } else {
            FUZZ_CHECK(text.json == NULL && err.code == r);
            FUZZ_CHECK(r == ECS_ERROR_DECOMPILE || r == ECS_ERROR_CORRUPT_RESOURCE || r == ECS_ERROR_INVALID_ARGUMENT);
            FUZZ_CHECK(r == ECS_ERROR_DECOMPILE || r == ECS_ERROR_INVALID_ARGUMENT || strstr(err.message, "offset "));
        }
        ecs_decompile_output_free(&text);
    }
    list_blocks(b, size);
}

static void check_json(const char *json, size_t len)
{
    ecs_compiler_output out;
    ecs_decompile_output text;
    ecs_error err;
    uint32_t flags = (len % 2u ? ECS_COMPILER_NAMES : 0u) | (len % 3u == 1u ? ECS_COMPILER_BIG_ENDIAN : 0u);
    ecs_result r;
    if (ecs_compiler_compile(&compiler, json, len, flags, &out, &err) != ECS_OK) return;
    r = ecs_compiler_decompile(&compiler, out.blob, out.size, 0, &text, &err);
    if (r != ECS_OK) fprintf(stderr, "fuzz_decompile: %s\n", err.message);
    FUZZ_CHECK(r == ECS_OK);
    if (r == ECS_OK) {
        FUZZ_CHECK(text.compile_flags == flags || (!(text.compile_flags & ECS_COMPILER_NAMES) &&
                                                    text.compile_flags == (flags & ECS_COMPILER_BIG_ENDIAN)));
        check_compiles_back(&text, (const unsigned char *)out.blob, out.size);
    }
    ecs_decompile_output_free(&text);
    ecs_compiler_output_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *b = (unsigned char *)malloc(size ? size : 1); /* aligned, exactly size bytes */
    if (!ready) setup();
    if (!b) abort();
    if (size) memcpy(b, data, size);
    if (size && b[0] == 'E') check_blob(b, size);
    else check_json((const char *)b, size);
    free(b);
    return 0;
}

#ifdef FUZZ_STANDALONE
static void fuzz_cleanup(void)
{
    if (!ready) return;
    ecs_compiler_free(&compiler);
    ready = 0;
}
#endif
