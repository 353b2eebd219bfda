/* tests/test_references.c - ecs_resource.h's REFERENCES section: every
   reference of a source through the compiler's registrations (schema path
   fields, a hand-written compile function, the standard mesh), with lines,
   columns and token lengths; non-canonical references listed, not fatal;
   the source patcher (only the tokens change, every check refuses with the
   text untouched, a rename and its inverse give the same bytes);
   ecs_path_renamed; ecs_path_distance; every allocation failing in turn. */
#include "oom_alloc.h"
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* A hand-written compile function with a reference: {"sound": PATH}. */
static ecs_result sound_compile(void *user, ecs_compiler_context *ctx, const ecs_json_value *c)
{
    static const char *const known[] = {"sound"};
    ecs_result r;
    (void)user;
    if ((r = ecs_compiler_check_members(ctx, c, known, 1)) != ECS_OK) return r;
    return ecs_compiler_write_reference(ctx, ecs_json_member(ecs_compiler_doc(ctx), c, "sound"));
}

static void make_compiler(ecs_compiler *c)
{
    static const ecs_schema_field material[] = {
        {"texture", ECS_FIELD_PATH, ECS_FIELD_REQUIRED},
        {"normal_map", ECS_FIELD_PATH, "\"textures/flat\""},
        {"shine", ECS_FIELD_F32, "0.5"},
    };
    ecs_error err;
    ecs_compiler_init(c);
    CHECK(ecs_compiler_register_standard(c, &err) == ECS_OK);
    CHECK(ecs_compiler_register_schema(c, "material", material, 3, 300, &err) == ECS_OK);
    CHECK(ecs_compiler_register(c, "sound", sound_compile, NULL, 400, &err) == ECS_OK);
}

static const char level[] =
    "{\"entities\": [\n"
    "  {\"name\": \"a\", \"components\": [\n"
    "    {\"type\": \"mesh\", \"mesh\": \"models/crate\"},\n"                                /* line 3 */
    "    {\"type\": \"material\", \"texture\": \"Textures\\\\Wood\", \"shine\": 1}]},\n"   /* line 4 */
    "  {\"name\": \"b\xc3\xa9\", \"components\": [{\"type\": \"sound\", \"sound\": \"sounds\\/creak\"},\n" /* line 5 */
    "    {\"type\": \"mesh\", \"mesh\": \"#0123456789abcdef\"},\n"
    "    {\"type\": \"material\", \"texture\": \"textures/wood\", \"normal_map\": \"../x\"}]}\n" /* line 7 */
    "]}\n";

/* Byte offset of the n-th (from 0) occurrence of needle in level. */
static uint32_t where(const char *needle, int n)
{
    const char *p = level;
    for (;;) {
        p = strstr(p, needle);
        if (!p || n-- == 0) break;
        ++p;
    }
    return p ? (uint32_t)(p - level) : 0xFFFFFFFFu;
}

static void test_references(void)
{
    ecs_compiler c;
    ecs_reference_list list;
    ecs_compiler_output out;
    ecs_error err;
    const ecs_reference *r;
    make_compiler(&c);
    CHECK(ecs_compiler_references(&c, level, strlen(level), &list, &err) == ECS_OK);
    CHECK_MSG(list.count == 5, "count %u", (unsigned)list.count);
    if (list.count == 5) {
        r = list.refs;
        CHECK(strcmp(r[0].path, "models/crate") == 0 && r[0].line == 3 && r[0].column == 30 && r[0].flags == 0);
        CHECK(r[0].offset == where("\"models/crate\"", 0) && r[0].length == 14 && r[0].canonical == r[0].path);
        CHECK(strcmp(r[1].path, "Textures\\Wood") == 0 && r[1].flags == ECS_REFERENCE_NON_CANONICAL);
        CHECK(strcmp(r[1].canonical, "textures/wood") == 0 && r[1].line == 4 && r[1].column == 37);
        CHECK(r[1].length == 16); /* the escaped backslash is two bytes of the token */
        /* after a name with a two-byte character: columns count characters, not bytes */
        CHECK(strcmp(r[2].path, "sounds/creak") == 0 && r[2].flags == 0 && r[2].line == 5 && r[2].column == 60);
        CHECK(r[2].offset == where("\"sounds\\/creak\"", 0) && r[2].length == 15);
        CHECK(strcmp(r[3].path, "textures/wood") == 0 && r[3].line == 7 && r[3].flags == 0);
        CHECK(strcmp(r[4].path, "../x") == 0 && r[4].flags == ECS_REFERENCE_NON_CANONICAL && r[4].canonical[0] == 0);
        CHECK(r[3].offset < r[4].offset);
    }
    ecs_reference_list_free(&list);
    CHECK(list.refs == NULL && list.count == 0);
    /* the compiler itself refuses the non-canonical ones */
    CHECK(ecs_compiler_compile(&c, level, strlen(level), 0, &out, &err) == ECS_ERROR_NON_CANONICAL_PATH);
    /* other errors stay errors, out empty */
    CHECK(ecs_compiler_references(&c, "{\"entities\": [", 14, &list, &err) == ECS_ERROR_JSON && list.count == 0);
    CHECK(strstr(err.message, "line 1") != NULL);
    CHECK(ecs_compiler_references(&c, "{\"entities\": [{\"components\": [{\"type\": \"nope\"}]}]}", 50, &list, &err) ==
          ECS_ERROR_UNKNOWN_COMPONENT && list.refs == NULL);
    CHECK(ecs_compiler_references(&c, "{\"entities\": [{\"components\": [{\"type\": \"sound\", \"sound\": 3}]}]}", 63,
                                  &list, &err) == ECS_ERROR_COMPILE && list.refs == NULL);
    /* a level without references, and NULL arguments */
    CHECK(ecs_compiler_references(&c, "{\"entities\": []}", 16, &list, &err) == ECS_OK && list.count == 0);
    CHECK(ecs_compiler_references(NULL, "{}", 2, &list, &err) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_compiler_references(&c, "{}", 2, NULL, &err) == ECS_ERROR_INVALID_ARGUMENT);
    ecs_compiler_free(&c);
}

static void test_patch(void)
{
    ecs_compiler c;
    ecs_reference_list list;
    ecs_source_edit e[3];
    ecs_source_output out, back;
    ecs_error err;
    size_t len = strlen(level);
    make_compiler(&c);
    CHECK(ecs_compiler_references(&c, level, len, &list, &err) == ECS_OK && list.count == 5);
    if (list.count != 5) return;
    e[0].offset = list.refs[0].offset, e[0].length = list.refs[0].length, e[0].path = "props/box";
    e[1].offset = list.refs[2].offset, e[1].length = list.refs[2].length, e[1].path = "sounds/creak";
    e[2].offset = list.refs[3].offset, e[2].length = list.refs[3].length, e[2].path = "art/wood/oak";
    CHECK(ecs_source_patch(level, len, e, 3, &out, &err) == ECS_OK);
    CHECK(out.length == len - 14 + 11 - 15 + 14 - 15 + 14 && out.text[out.length] == 0);
    /* every byte before, between and after the tokens as it was */
    CHECK(memcmp(out.text, level, list.refs[0].offset) == 0);
    CHECK(strstr(out.text, "\"mesh\": \"props/box\"},") != NULL && strstr(out.text, "\"sound\": \"sounds/creak\"}") != NULL);
    CHECK(strstr(out.text, "\"texture\": \"art/wood/oak\", \"normal_map\": \"../x\"}]}\n]}\n") != NULL);
    CHECK(strstr(out.text, "\"Textures\\\\Wood\"") != NULL); /* not an edit: untouched */
    /* and back: the references of the patched text, renamed back, give the original bytes */
    ecs_reference_list_free(&list);
    CHECK(ecs_compiler_references(&c, out.text, out.length, &list, &err) == ECS_OK && list.count == 5);
    if (list.count == 5) {
        e[0].offset = list.refs[0].offset, e[0].length = list.refs[0].length, e[0].path = "models/crate";
        e[1].offset = list.refs[3].offset, e[1].length = list.refs[3].length, e[1].path = "textures/wood";
        CHECK(ecs_source_patch(out.text, out.length, e, 2, &back, &err) == ECS_OK);
        /* the escaped "sounds\/creak" came back unescaped: the only difference */
        CHECK(back.length == len - 1 && strstr(back.text, "\"sounds/creak\"") != NULL);
        ecs_source_output_free(&back);
    }
    ecs_source_output_free(&out);
    CHECK(out.text == NULL && out.length == 0);
    ecs_reference_list_free(&list);
    ecs_compiler_free(&c);
}

/* Edits that look like a string token but are not one of the text: the
   bytes `", "` between two strings (a closing quote, then an opening one),
   an escaped quote inside a string up to the string's end, and a token
   after a malformed string; a token after escaped quotes is found. */
static void test_patch_not_a_token(void)
{
    static const char between[] = "{\"mesh\": \"models/a\", \"flags\": 3}";
    static const char inside[] = "{\"note\": \"see \\\"old\\\" here\", \"mesh\": \"models/a\"}";
    static const char broken[] = "[\"a\\q\", \"b\"]";
    ecs_source_edit e[2];
    ecs_source_output out;
    ecs_error err;
    e[0].offset = (uint32_t)(strstr(between, "\", \"flags") - between), e[0].length = 4, e[0].path = "x/y";
    CHECK(ecs_source_patch(between, strlen(between), e, 1, &out, &err) == ECS_ERROR_INVALID_ARGUMENT && !out.text);
    CHECK_MSG(strstr(err.message, "offset 18 is not where a string token") != NULL, "%s", err.message);
    e[0].offset = (uint32_t)(strstr(inside, "\\\"old") - inside) + 1u; /* the '"' after the backslash */
    e[0].length = (uint32_t)(strstr(inside, " here\"") - inside) + 6u - e[0].offset, e[0].path = "models/b";
    CHECK(ecs_source_patch(inside, strlen(inside), e, 1, &out, &err) == ECS_ERROR_INVALID_ARGUMENT && !out.text);
    CHECK_MSG(strstr(err.message, "inside the string token") != NULL, "%s", err.message);
    e[0].offset = (uint32_t)(strstr(inside, "\"models/a") - inside), e[0].length = 10; /* after escaped quotes: fine */
    e[1] = e[0], e[0].offset = 1, e[0].length = 6, e[0].path = "n"; /* a key, then the value */
    CHECK(ecs_source_patch(inside, strlen(inside), e, 2, &out, &err) == ECS_OK);
    CHECK(out.text && strcmp(out.text, "{\"n\": \"see \\\"old\\\" here\", \"mesh\": \"models/b\"}") == 0);
    ecs_source_output_free(&out);
    e[0].offset = (uint32_t)(strstr(broken, "\"b") - broken), e[0].length = 3;
    CHECK(ecs_source_patch(broken, strlen(broken), e, 1, &out, &err) == ECS_ERROR_INVALID_ARGUMENT && !out.text);
    CHECK_MSG(strstr(err.message, "malformed string comes first, at offset 1") != NULL, "%s", err.message);
}

static void test_patch_refusals(void)
{
    static const char text[] = "{\"a\": \"x/y\", \"b\": \"p\\u0041q\", \"c\": 1}";
    ecs_source_edit e[2];
    ecs_source_output out;
    ecs_error err;
    size_t len = strlen(text);
    uint32_t x = (uint32_t)(strstr(text, "\"x/y\"") - text), p = (uint32_t)(strstr(text, "\"p\\u") - text);
    e[0].offset = x, e[0].length = 5, e[0].path = "z";
    e[1].offset = p, e[1].length = 10, e[1].path = "w/v";
    CHECK(ecs_source_patch(text, len, e, 2, &out, &err) == ECS_OK);
    CHECK(out.text && strcmp(out.text, "{\"a\": \"z\", \"b\": \"w/v\", \"c\": 1}") == 0);
    ecs_source_output_free(&out);
    /* each refusal: ECS_ERROR_INVALID_ARGUMENT, a message, no text */
    e[0].path = "Z"; /* not canonical */
    CHECK(ecs_source_patch(text, len, e, 1, &out, &err) == ECS_ERROR_INVALID_ARGUMENT && !out.text);
    CHECK(strstr(err.message, "not canonical") != NULL);
    e[0].path = "z", e[0].length = 4; /* not the whole token */
    CHECK(ecs_source_patch(text, len, e, 1, &out, &err) == ECS_ERROR_INVALID_ARGUMENT && !out.text);
    e[0].length = 5, e[0].offset = x + 1; /* not at a quote */
    CHECK(ecs_source_patch(text, len, e, 1, &out, &err) == ECS_ERROR_INVALID_ARGUMENT && !out.text);
    e[0].offset = (uint32_t)len - 2; /* past the end */
    CHECK(ecs_source_patch(text, len, e, 1, &out, &err) == ECS_ERROR_INVALID_ARGUMENT && !out.text);
    e[0].offset = p, e[0].length = 10, e[1].offset = x, e[1].length = 5; /* out of order */
    CHECK(ecs_source_patch(text, len, e, 2, &out, &err) == ECS_ERROR_INVALID_ARGUMENT && !out.text);
    CHECK(strstr(err.message, "sorted") != NULL);
    e[1] = e[0]; /* overlapping */
    CHECK(ecs_source_patch(text, len, e, 2, &out, &err) == ECS_ERROR_INVALID_ARGUMENT && !out.text);
    e[0].offset = (uint32_t)(strstr(text, "\"a\"") - text), e[0].length = 3; /* a key is a string token too: allowed */
    CHECK(ecs_source_patch(text, len, e, 1, &out, &err) == ECS_OK);
    ecs_source_output_free(&out);
    CHECK(ecs_source_patch("\"a\\q\"", 5, e, 0, &out, &err) == ECS_OK && out.length == 5); /* no edits: a copy */
    ecs_source_output_free(&out);
    e[0].offset = 0, e[0].length = 5;
    CHECK(ecs_source_patch("\"a\\q\"", 5, e, 1, &out, &err) == ECS_ERROR_INVALID_ARGUMENT); /* bad escape */
    CHECK(ecs_source_patch("\"a\nb\"", 5, e, 1, &out, &err) == ECS_ERROR_INVALID_ARGUMENT); /* raw control byte */
    CHECK(ecs_source_patch(NULL, 3, e, 1, &out, &err) == ECS_ERROR_INVALID_ARGUMENT);
    test_patch_not_a_token();
}

static void test_renamed(void)
{
    char out[64];
    CHECK(ecs_path_renamed("textures/rose", "textures/rose", "art/rose", out, sizeof out) == 8 && !strcmp(out, "art/rose"));
    CHECK(ecs_path_renamed("textures/a/b", "textures/a", "art/a", out, sizeof out) == 7 && !strcmp(out, "art/a/b"));
    CHECK(ecs_path_renamed("textures/ab", "textures/a", "art/a", out, sizeof out) == 0); /* not under the folder */
    CHECK(ecs_path_renamed("textures", "textures/a", "art/a", out, sizeof out) == 0);
    CHECK(ecs_path_renamed("textures/a.b", "textures/a", "x", out, sizeof out) == 0); /* another resource */
    CHECK(ecs_path_renamed("textures/a/b", "textures/a", "art/a", out, 7) == -1);    /* no room for the NUL */
    CHECK(ecs_path_renamed("textures/a/b", "textures/a", "art/a", out, 8) == 7);
    CHECK(ecs_path_renamed("Textures/a", "textures/a", "x", out, sizeof out) == -1);
    CHECK(ecs_path_renamed("a", "a", "b/", out, sizeof out) == -1);
    CHECK(ecs_path_renamed(NULL, "a", "b", out, sizeof out) == -1);
    strcpy(out, "aa/b/c"); /* out may be the path itself */
    CHECK(ecs_path_renamed(out, "aa", "x", out, sizeof out) == 5 && strcmp(out, "x/b/c") == 0);
    strcpy(out, "a/b");
    CHECK(ecs_path_renamed(out, "a", "longer", out, sizeof out) == 8 && strcmp(out, "longer/b") == 0);
}

static void test_distance(void)
{
    char a[301], b[301];
    CHECK(ecs_path_distance("kitten", "sitting", 10) == 3);
    CHECK(ecs_path_distance("kitten", "sitting", 2) == 3); /* limit + 1 */
    CHECK(ecs_path_distance("kitten", "sitting", 3) == 3);
    CHECK(ecs_path_distance("models/dock", "models/dok", 4) == 1);
    CHECK(ecs_path_distance("", "abc", 9) == 3 && ecs_path_distance("abc", NULL, 9) == 3);
    CHECK(ecs_path_distance("abc", "abc", 0) == 0 && ecs_path_distance("abc", "abd", 0) == 1);
    CHECK(ecs_path_distance("abcdefgh", "a", 2) == 3); /* lengths too far apart */
    memset(a, 'x', 300), a[300] = 0;
    memset(b, 'x', 300), b[300] = 0;
    b[150] = 'y', b[299] = 'z';
    CHECK(ecs_path_distance(a, b, 5) == 2); /* longer than the stack rows */
    CHECK(ecs_path_distance(a, b, 1) == 2);
}

/* Every allocation of a reference listing and of a patch failing in turn:
   an error and nothing left behind (ASan's leak check), never a crash. */
static void test_out_of_memory(void)
{
    ecs_compiler c;
    ecs_reference_list list;
    ecs_source_output out;
    ecs_source_edit e;
    ecs_error err;
    unsigned long k, failures = 0;
    ecs_result r = ECS_OK;
    make_compiler(&c);
    for (k = 1; k < 200; ++k) {
        oom_calls = 0, oom_fail_at = k;
        r = ecs_compiler_references(&c, level, strlen(level), &list, &err);
        oom_fail_at = 0;
        if (r == ECS_OK) break;
        ++failures;
        CHECK(r == ECS_ERROR_OUT_OF_MEMORY && list.refs == NULL && list.count == 0);
    }
    CHECK(r == ECS_OK && failures > 0 && list.count == 5);
    if (list.count == 5) {
        e.offset = list.refs[0].offset, e.length = list.refs[0].length, e.path = "a/b";
        oom_calls = 0, oom_fail_at = 1;
        CHECK(ecs_source_patch(level, strlen(level), &e, 1, &out, &err) == ECS_ERROR_OUT_OF_MEMORY && !out.text);
        oom_fail_at = 0;
    }
    ecs_reference_list_free(&list);
    ecs_compiler_free(&c);
}

int main(void)
{
    test_references();
    test_patch();
    test_patch_refusals();
    test_renamed();
    test_distance();
    test_out_of_memory();
    return test_report("test_references");
}
