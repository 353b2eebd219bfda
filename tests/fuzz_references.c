/* tests/fuzz_references.c - libFuzzer harness for ecs_resource.h's
   REFERENCES readers: any bytes as a level for ecs_compiler_references and
   the source patcher, and as two paths for ecs_path_distance and
   ecs_path_renamed.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -I/usr/include/stb \
         tests/fuzz_references.c -o fuzz_references -lm
   ./fuzz_references -dict=tests/fuzz_json.dict NEW_DIR tests/corpus/fuzz_references
   -DFUZZ_STANDALONE: a main that replays files and folders.

   Checks, beyond "no crash, no sanitizer report, no leak":
   - references come sorted, apart, each a string token of the input at its
     line and column; flags say canonical exactly when the path is; an
     error leaves the list empty;
   - when the level compiles, no reference is non-canonical and every one
     is in the compile's dependency list;
   - renaming every canonical reference to "r/" + itself patches only the
     tokens (every other byte kept, in order), and the patched text lists
     the same references with the new paths; renaming them back lists the
     old ones again;
   - ecs_path_distance is symmetric, 0 on equal paths, at most the longer
     length; ecs_path_renamed gives a canonical path starting with the new
     one. */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#include "fuzz_common.h"

static int ready;
static ecs_compiler compiler;

static ecs_result sound_compile(void *user, ecs_compiler_context *ctx, const ecs_json_value *c)
{
    (void)user;
    return ecs_compiler_write_reference(ctx, ecs_json_member(ecs_compiler_doc(ctx), c, "sound"));
}

static void setup(void)
{
    static const ecs_schema_field material[] = {
        {"texture", ECS_FIELD_PATH, ECS_FIELD_REQUIRED},
        {"normal_map", ECS_FIELD_PATH, "\"textures/flat\""},
        {"tint", ECS_FIELD_VEC3, "[1, 1, 1]"},
    };
    static const ecs_schema_field spawner[] = {
        {"prefab", ECS_FIELD_PATH, ECS_FIELD_REQUIRED},
        {"count", ECS_FIELD_U32, "1"},
    };
    ecs_error err;
    ecs_compiler_init(&compiler);
    FUZZ_CHECK(ecs_compiler_register_standard(&compiler, &err) == ECS_OK);
    FUZZ_CHECK(ecs_compiler_register(&compiler, "label", label_compile, NULL, 150, &err) == ECS_OK);
    FUZZ_CHECK(ecs_compiler_register_schema(&compiler, "material", material, 3, 300, &err) == ECS_OK);
    FUZZ_CHECK(ecs_compiler_register(&compiler, "sound", sound_compile, NULL, 400, &err) == ECS_OK);
    FUZZ_CHECK(ecs_compiler_register_schema(&compiler, "spawner", spawner, 2, 500, &err) == ECS_OK);
    ready = 1;
}

/* Each reference well placed in text (sorted, apart, at its line/column). */
static void check_list(const char *text, size_t len, const ecs_reference_list *l)
{
    uint32_t k, line = 1, column = 1;
    size_t pos = 0, end = 0;
    for (k = 0; k < l->count; ++k) {
        const ecs_reference *r = l->refs + k;
        FUZZ_CHECK(r->offset >= end && r->length >= 2 && r->offset + (size_t)r->length <= len);
        FUZZ_CHECK(text[r->offset] == '"' && text[r->offset + r->length - 1] == '"');
        for (; pos < r->offset; ++pos) {
            if (text[pos] == '\n') ++line, column = 1;
            else if (((unsigned char)text[pos] & 0xC0u) != 0x80u) ++column;
        }
        FUZZ_CHECK(r->line == line && r->column == column);
        FUZZ_CHECK(r->flags == 0 ? ecs_path_is_canonical(r->path) : r->flags == ECS_REFERENCE_NON_CANONICAL);
        FUZZ_CHECK(strlen(r->path) + 2 <= r->length); /* decoding never lengthens */
        FUZZ_CHECK(r->flags ? (r->canonical[0] == 0 || ecs_path_is_canonical(r->canonical)) : r->canonical == r->path);
        end = (size_t)r->offset + r->length;
    }
}

/* A compiled level: no reference is non-canonical, each is a dependency. */
static void check_compiled(const char *text, size_t len, const ecs_reference_list *l)
{
    ecs_compiler_output out;
    uint32_t k, d;
    if (ecs_compiler_compile(&compiler, text, len, 0, &out, NULL) != ECS_OK) return;
    for (k = 0; k < l->count; ++k) {
        FUZZ_CHECK(l->refs[k].flags == 0);
        for (d = 0; d < out.num_dependencies && strcmp(out.dependency[d], l->refs[k].path) != 0; ++d) {}
        FUZZ_CHECK(d < out.num_dependencies);
    }
    ecs_compiler_output_free(&out);
}

/* Renames every canonical reference of l with prefix (or, prefix NULL,
   to old[k]'s paths) into *out; checks the bytes between tokens. */
static int patch_all(const char *text, size_t len, const ecs_reference_list *l, const ecs_reference_list *old,
                     ecs_source_output *out)
{
    ecs_source_edit *e = (ecs_source_edit *)calloc(l->count + 1u, sizeof *e);
    char **paths = (char **)calloc(l->count + 1u, sizeof *paths);
    uint32_t k, n = 0;
    size_t from = 0, at = 0;
    ecs_result r;
    FUZZ_CHECK(e && paths);
    for (k = 0; k < l->count; ++k) {
        if (l->refs[k].flags) continue;
        paths[n] = (char *)malloc(strlen(l->refs[k].path) + 3);
        FUZZ_CHECK(paths[n]);
        if (old) strcpy(paths[n], old->refs[k].path);
        else strcpy(paths[n], "r/"), strcat(paths[n], l->refs[k].path);
        e[n].offset = l->refs[k].offset, e[n].length = l->refs[k].length, e[n].path = paths[n];
        ++n;
    }
    r = ecs_source_patch(text, len, e, n, out, NULL);
    FUZZ_CHECK(r == ECS_OK || r == ECS_ERROR_OUT_OF_MEMORY);
    for (k = 0; r == ECS_OK && k <= n; ++k) { /* the bytes before each token, and after the last */
        size_t upto = k < n ? e[k].offset : len;
        FUZZ_CHECK(memcmp(out->text + at, text + from, upto - from) == 0);
        at += upto - from;
        if (k < n) {
            FUZZ_CHECK(out->text[at] == '"' && memcmp(out->text + at + 1, e[k].path, strlen(e[k].path)) == 0);
            at += strlen(e[k].path) + 2, from = (size_t)e[k].offset + e[k].length;
        }
    }
    FUZZ_CHECK(r != ECS_OK || at == out->length);
    for (k = 0; k < n; ++k) free(paths[k]);
    free(paths), free(e);
    return r == ECS_OK;
}

static void check_rename(const char *text, size_t len, const ecs_reference_list *l)
{
    ecs_source_output there, back;
    ecs_reference_list l2, l3;
    uint32_t k;
    if (!patch_all(text, len, l, NULL, &there)) return;
    FUZZ_CHECK(ecs_compiler_references(&compiler, there.text, there.length, &l2, NULL) == ECS_OK);
    FUZZ_CHECK(l2.count == l->count);
    for (k = 0; k < l->count; ++k) {
        FUZZ_CHECK(l2.refs[k].flags == l->refs[k].flags);
        if (l->refs[k].flags) FUZZ_CHECK(strcmp(l2.refs[k].path, l->refs[k].path) == 0);
        else FUZZ_CHECK(memcmp(l2.refs[k].path, "r/", 2) == 0 && strcmp(l2.refs[k].path + 2, l->refs[k].path) == 0);
    }
    if (patch_all(there.text, there.length, &l2, l, &back)) {
        FUZZ_CHECK(ecs_compiler_references(&compiler, back.text, back.length, &l3, NULL) == ECS_OK);
        FUZZ_CHECK(l3.count == l->count);
        for (k = 0; k < l->count; ++k) FUZZ_CHECK(strcmp(l3.refs[k].path, l->refs[k].path) == 0);
        ecs_reference_list_free(&l3);
        ecs_source_output_free(&back);
    }
    ecs_reference_list_free(&l2);
    ecs_source_output_free(&there);
}

static void check_paths(const char *data, size_t size)
{
    char a[160], b[160], out[400];
    size_t half = size / 2, na = half < 159 ? half : 159, nb = size - half < 159 ? size - half : 159;
    uint32_t d, d2;
    long n;
    memcpy(a, data, na), a[na] = 0;
    memcpy(b, data + half, nb), b[nb] = 0;
    d = ecs_path_distance(a, b, 400), d2 = ecs_path_distance(b, a, 400);
    FUZZ_CHECK(d == d2 && d <= (strlen(a) > strlen(b) ? strlen(a) : strlen(b)));
    FUZZ_CHECK(ecs_path_distance(a, a, 0) == 0);
    FUZZ_CHECK(ecs_path_distance(a, b, 3) == (d > 3 ? 4u : d));
    n = ecs_path_renamed(a, b, "x/y", out, sizeof out);
    FUZZ_CHECK(n >= -1 && (n <= 0 || (ecs_path_is_canonical(out) && memcmp(out, "x/y", 3) == 0 && (size_t)n == strlen(out))));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    ecs_reference_list l;
    ecs_result r;
    if (!ready) setup();
    r = ecs_compiler_references(&compiler, text, size, &l, NULL);
    if (r != ECS_OK) {
        FUZZ_CHECK(l.refs == NULL && l.count == 0);
    } else {
        check_list(text, size, &l);
        check_compiled(text, size, &l);
        check_rename(text, size, &l);
        ecs_reference_list_free(&l);
    }
    check_paths(text, size);
    return 0;
}

#ifdef FUZZ_STANDALONE
static void fuzz_cleanup(void)
{
    ecs_compiler_free(&compiler);
}
#endif
