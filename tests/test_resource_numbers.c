/* tests/test_resource_numbers.c - JSON numbers, on every target the same:
   - correct rounding: 60,000 random short decimals (1 to 9 significant
     digits, exponents that the fast path takes) parse to exactly strtod's
     double and compile, as f32, to exactly strtof's float (glibc's strtod
     and strtof are correctly rounded). In the -m32 build (x87, FLT_EVAL_METHOD
     2) the fast path used to round twice: "0.0583072" and about 1 number in
     7,000 came out one bit off;
   - the float limit 2^128 - 2^103: a text just below it (whose nearest
     double is that limit) is FLT_MAX, one on or above it is refused, by
     ecs_json_f32, schema values and the compiler (it was refused below too);
   - exact integers: ECS_JSON_WHOLE and `integer` for every form of a whole
     number (1e19, 2.50e1, 1.8446744073709551615e19), and i32/u32/u64 schema
     fields and their "min"/"max" compared exactly in the whole range (a u64
     of 1e19 used to be refused; a max of 2^53 let 2^53 + 1 through), and
     ecs_compiler_member_u32 the same;
   - the small integer kinds i8 u8 i16 u16 (issue 24): each bound compiles
     and decompiles, one past it is refused with the range, line and column,
     in both byte orders; a u8 enum bounded by min/max; the same values
     through a snapshot, its JSON, its byte swap and ecs_world_entity_json;
   - a locale whose decimal point is more than one byte (U+066B, bytes D9
     AB, as glibc's ps_AF has): numbers read, compiled, decompiled and
     written to snapshot JSON exactly as in the C locale (the JSON reader
     and writers used to take the point's first byte only: 1.5e30 read as
     1). The locale is ps_AF when installed, else one localedef builds in a
     temporary folder (LOCPATH; about 0.3 s); neither: a printed note. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv: the locale test */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#define ECS_SNAPSHOT_IMPLEMENTATION
#include "ecs_snapshot.h" /* the small kinds through a snapshot */
#include "test.h"
#include "test_rng.h"

#include <float.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A random short decimal in one of the forms a level holds: "0.0583072",
   "-123.4567", "98765.4", "7.25e-9", "31E+12". */
static void random_number(char *buf, size_t size)
{
    char digits[10];
    uint32_t n = 1u + rnd_below(9), k, point;
    int len = 0;
    for (k = 0; k < n; ++k) digits[k] = (char)('0' + rnd_below(10));
    if (digits[0] == '0') digits[0] = (char)('1' + rnd_below(9));
    digits[n] = 0;
    if (rnd_below(2)) len = snprintf(buf, size, "-");
    switch (rnd_below(3)) {
    case 0: /* 0.000ddd */
        len += snprintf(buf + len, size - (size_t)len, "0.%.*s%s", (int)rnd_below(6), "000000", digits);
        break;
    case 1: /* ddd.ddd */
        point = 1u + rnd_below(n);
        len += snprintf(buf + len, size - (size_t)len, "%.*s", (int)point, digits);
        if (point < n) len += snprintf(buf + len, size - (size_t)len, ".%s", digits + point);
        break;
    default: /* d.ddde-x */
        len += snprintf(buf + len, size - (size_t)len, "%c", digits[0]);
        if (n > 1) len += snprintf(buf + len, size - (size_t)len, ".%s", digits + 1);
        snprintf(buf + len, size - (size_t)len, "%s%d", rnd_below(2) ? "e" : "E", (int)rnd_below(31) - 15);
        break;
    }
}

#define NUM_RANDOM 60000u

static void test_correct_rounding(void)
{
    char *text = (char *)malloc(NUM_RANDOM * 24u + 16u), *p;
    char (*numbers)[24] = (char (*)[24])malloc(NUM_RANDOM * sizeof *numbers);
    ecs_json_doc doc;
    ecs_error err;
    const ecs_json_value *v;
    uint32_t k, wrong_double = 0, wrong_float = 0;
    CHECK(text && numbers);
    if (!text || !numbers) return;
    rng_state = 0x9E3779B97F4A7C15ull;
    p = text;
    *p++ = '[';
    strcpy(numbers[0], "0.0583072"); /* the example of the report */
    for (k = 0; k < NUM_RANDOM; ++k) {
        if (k) random_number(numbers[k], sizeof numbers[k]);
        p += sprintf(p, "%s%s", k ? "," : "", numbers[k]);
    }
    *p++ = ']';
    memset(&doc, 0, sizeof doc);
    CHECK_MSG(ecs_json_parse(&doc, text, (size_t)(p - text), &err) == ECS_OK, "%s", err.message);
    for (k = 0, v = ecs_json_first(&doc, ecs_json_root(&doc)); v && k < NUM_RANDOM; ++k, v = ecs_json_next(&doc, v)) {
        double want = strtod(numbers[k], NULL);
        float want_f = strtof(numbers[k], NULL), got_f = (float)v->number;
        if (memcmp(&v->number, &want, sizeof want) != 0 && wrong_double++ < 5)
            fprintf(stderr, "  %s: %.17g, strtod says %.17g\n", numbers[k], v->number, want);
        if (memcmp(&got_f, &want_f, sizeof want_f) != 0 && wrong_float++ < 5)
            fprintf(stderr, "  %s: %.9g as a float, strtof says %.9g\n", numbers[k], (double)got_f, (double)want_f);
    }
    CHECK(k == NUM_RANDOM);
    CHECK_MSG(wrong_double == 0, "%u of %u numbers not rounded like strtod (FLT_EVAL_METHOD %d)",
              (unsigned)wrong_double, (unsigned)NUM_RANDOM, (int)FLT_EVAL_METHOD);
    CHECK_MSG(wrong_float == 0, "%u of %u numbers not rounded like strtof", (unsigned)wrong_float, (unsigned)NUM_RANDOM);
    ecs_json_doc_free(&doc);

    /* and through the compiler: an actor's mass is the float strtof gives */
    {
        ecs_compiler c;
        ecs_compiler_output out;
        const char *json = "{\"entities\": [{\"components\": [{\"type\": \"actor\", \"mass\": 0.0583072}]}]}";
        float want = strtof("0.0583072", NULL), got = 0.0f;
        ecs_compiler_init(&c);
        CHECK(ecs_compiler_register_standard(&c, &err) == ECS_OK);
        CHECK(ecs_compiler_compile(&c, json, strlen(json), 0, &out, &err) == ECS_OK);
        if (out.blob) memcpy(&got, (const unsigned char *)out.blob + out.size - 8, 4);
        CHECK_MSG(memcmp(&got, &want, 4) == 0, "%.9g, strtof says %.9g", (double)got, (double)want);
        ecs_compiler_output_free(&out);
        ecs_compiler_free(&c);
    }
    free(numbers);
    free(text);
}

/* A number whose double lies exactly halfway between two floats is read
   as the float nearest its text, not rounded twice (text -> double ->
   float, ties to even): "1.00000005960464477539062500001" is 1 + 2^-23 (it
   was stored as 1), one just below that midpoint still 1, the midpoint
   itself the even 1; around 1 + 3 * 2^-24 the even neighbour is the upper
   one, so there the text below goes down; 2^-150 and a little more is the
   smallest float, not 0; a text just below 2^128 - 2^103 (FLT_MAX plus half
   its last place) reads as that double and is FLT_MAX (it was refused).
   Both signs; through ecs_json_parse + ecs_schema_value_read and through
   the compiler and the decompiler (whose text compiles back to the same
   bytes). */
static void test_f32_midpoints(void)
{
    static const ecs_schema_field field = {"f", ECS_FIELD_F32, "0"};
    static const struct {
        const char *text;
        float want;
    } cases[] = {
        {"1.00000005960464477539062500001", 1.00000011920928955078125f},     /* above 1 + 2^-24 */
        {"1.00000005960464477539062499999", 1.0f},                           /* below it */
        {"1.000000059604644775390625", 1.0f},                                /* on it: even */
        {"1.000000178813934326171874999", 1.00000011920928955078125f},       /* below 1 + 3 * 2^-24 */
        {"1.000000178813934326171875000001", 1.0000002384185791015625f},     /* above it */
        {"7.0064923216240853546186479164495806564013097093825788587853414194489554134293030074331909418106079101"
         "5625000001e-46", 1.40129846432481707092372958328991613e-45f}, /* above 2^-150 */
        {"340282356779733661637539395458142568447.9", FLT_MAX}}; /* below 2^128 - 2^103, that double: FLT_MAX */
    ecs_compiler c;
    ecs_json_doc doc;
    ecs_error err;
    char json[512];
    uint32_t k, sign;
    ecs_compiler_init(&c);
    CHECK(ecs_compiler_register_schema(&c, "s", &field, 1, 0, &err) == ECS_OK);
    memset(&doc, 0, sizeof doc);
    for (k = 0; k < sizeof cases / sizeof *cases; ++k) {
        for (sign = 0; sign < 2; ++sign) {
            float want = sign ? -cases[k].want : cases[k].want, got = 0.0f, back = 0.0f;
            ecs_compiler_output out, again;
            ecs_decompile_output text;
            int n = snprintf(json, sizeof json, "%s%s", sign ? "-" : "", cases[k].text);
            CHECK(ecs_json_parse(&doc, json, (size_t)n, &err) == ECS_OK);
            CHECK(ecs_schema_value_read(&field, &doc, ecs_json_root(&doc), &got, &err) == ECS_OK);
            CHECK_MSG(got == want && got == strtof(json, NULL), "%s: %.9g, want %.9g", json, (double)got, (double)want);
            n = snprintf(json, sizeof json, "{\"entities\": [{\"components\": [{\"type\": \"s\", \"f\": %s%s}]}]}",
                         sign ? "-" : "", cases[k].text);
            CHECK_MSG(ecs_compiler_compile(&c, json, (size_t)n, 0, &out, &err) == ECS_OK, "%s", err.message);
            if (out.blob) memcpy(&back, (const unsigned char *)out.blob + out.size - 4, 4);
            CHECK_MSG(back == want, "%s%s compiles to %.9g", sign ? "-" : "", cases[k].text, (double)back);
            CHECK(ecs_compiler_decompile(&c, out.blob, out.size, ECS_DECOMPILE_CHECK, &text, &err) == ECS_OK);
            CHECK(ecs_compiler_compile(&c, text.json, text.length, text.compile_flags, &again, &err) == ECS_OK &&
                  again.size == out.size && memcmp(again.blob, out.blob, out.size) == 0);
            ecs_decompile_output_free(&text);
            ecs_compiler_output_free(&again);
            ecs_compiler_output_free(&out);
        }
    }
    ecs_json_doc_free(&doc);
    ecs_compiler_free(&c);
}

/* The float limit, 2^128 - 2^103 (halfway between FLT_MAX and 2^128, even:
   infinity): a text below it is FLT_MAX, one on or above it is refused by
   ecs_json_f32, ecs_schema_value_read and the compiler ("does not fit a
   float"), both signs; ecs_json_f32 refuses NULL and what is not a number,
   leaving *out as it was. */
static void test_f32_limit(void)
{
    static const ecs_schema_field field = {"f", ECS_FIELD_F32, "0"};
    static const struct {
        const char *text;
        int fits;
    } cases[] = {
        {"340282356779733661637539395458142568447.9", 1},         /* below the limit, reads as it */
        {"340282356779733661637539395458142568447.99999999999", 1}, /* the same, closer */
        {"3.40282356779733661637539395458142568447e38", 1},       /* the same, with an exponent */
        {"3.4028235e38", 1},                                       /* below the limit as a double too */
        {"340282356779733661637539395458142568448", 0},           /* on it: to even, infinity */
        {"340282356779733661637539395458142568448.00000000001", 0}, /* above it, reads as it */
        {"3.4028236e38", 0}};
    ecs_compiler c;
    ecs_json_doc doc;
    ecs_error err;
    char json[512];
    uint32_t k, sign;
    float got, before = 7.0f, want;
    ecs_compiler_init(&c);
    CHECK(ecs_compiler_register_schema(&c, "s", &field, 1, 0, &err) == ECS_OK);
    memset(&doc, 0, sizeof doc);
    for (k = 0; k < sizeof cases / sizeof *cases; ++k) {
        for (sign = 0; sign < 2; ++sign) {
            ecs_compiler_output out;
            int n = snprintf(json, sizeof json, "%s%s", sign ? "-" : "", cases[k].text), fits;
            want = sign ? -FLT_MAX : FLT_MAX;
            got = before;
            CHECK(ecs_json_parse(&doc, json, (size_t)n, &err) == ECS_OK);
            fits = ecs_json_f32(ecs_json_root(&doc), &got);
            CHECK_MSG(fits == cases[k].fits && (fits ? got == want : got == before), "%s: %d, %.9g", json, fits,
                      (double)got);
            got = before;
            CHECK_MSG((ecs_schema_value_read(&field, &doc, ecs_json_root(&doc), &got, &err) == ECS_OK) == cases[k].fits,
                      "%s: %s", json, err.message);
            CHECK_MSG(cases[k].fits ? got == want : strstr(err.message, "fit") != NULL, "%s: %.9g %s", json, (double)got,
                      err.message);
            n = snprintf(json, sizeof json, "{\"entities\": [{\"components\": [{\"type\": \"s\", \"f\": %s%s}]}]}",
                         sign ? "-" : "", cases[k].text);
            got = before;
            if (ecs_compiler_compile(&c, json, (size_t)n, 0, &out, &err) == ECS_OK) {
                memcpy(&got, (const unsigned char *)out.blob + out.size - 4, 4);
                ecs_compiler_output_free(&out);
                CHECK_MSG(cases[k].fits && got == want, "%s%s compiles to %.9g", sign ? "-" : "", cases[k].text,
                          (double)got);
            } else {
                CHECK_MSG(!cases[k].fits && strstr(err.message, "does not fit a float"), "%s%s: %s",
                          sign ? "-" : "", cases[k].text, err.message);
            }
        }
    }
    CHECK(ecs_json_parse(&doc, "[\"1\"]", 5, &err) == ECS_OK);
    got = before;
    CHECK(!ecs_json_f32(ecs_json_root(&doc), &got) && !ecs_json_f32(ecs_json_first(&doc, ecs_json_root(&doc)), &got) &&
          !ecs_json_f32(NULL, &got) && got == before);
    ecs_json_doc_free(&doc);
    ecs_compiler_free(&c);
}

/* Parses one number: its flags and integer. */
static int parse_number(const char *text, uint8_t *flags, uint64_t *integer)
{
    ecs_json_doc doc;
    ecs_error err;
    int ok;
    memset(&doc, 0, sizeof doc);
    ok = ecs_json_parse(&doc, text, strlen(text), &err) == ECS_OK;
    *flags = ok ? doc.values[0].flags : 0;
    *integer = ok ? doc.values[0].integer : 0;
    ecs_json_doc_free(&doc);
    return ok;
}

static void test_whole_numbers(void)
{
    static const struct {
        const char *text;
        int whole;
        uint64_t integer;
    } cases[] = {
        {"7", 1, 7},
        {"1e19", 1, 10000000000000000000ull},
        {"2.50e1", 1, 25},
        {"100e-2", 1, 1},
        {"0.0001e4", 1, 1},
        {"-0.0", 1, 0},
        {"0e999", 1, 0},
        {"18446744073709551615", 1, 18446744073709551615ull},
        {"18446744073709551615e0", 1, 18446744073709551615ull},
        {"1.8446744073709551615e19", 1, 18446744073709551615ull},
        {"184467440737095516150e-1", 1, 18446744073709551615ull},
        {"9007199254740993.0", 1, 9007199254740993ull}, /* the double is 2^53 */
        {"1.8446744073709551616e19", 0, 0},             /* 2^64 */
        {"18446744073709551616", 0, 0},
        {"1e20", 0, 0},
        {"1.0000000000000000001", 0, 0},                /* reads as the double 1 */
        {"0.5", 0, 0},
        {"1e-400", 0, 0},
        {"123456789012345678901234e-10", 0, 0},
        {"1e100000000000", 0, 0},
    };
    uint32_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        uint8_t flags = 0;
        uint64_t integer = 0;
        CHECK(parse_number(cases[k].text, &flags, &integer));
        CHECK_MSG(((flags & ECS_JSON_WHOLE) != 0) == cases[k].whole, "%s: flags %u", cases[k].text, (unsigned)flags);
        if (cases[k].whole)
            CHECK_MSG(integer == cases[k].integer, "%s: %llu", cases[k].text, (unsigned long long)integer);
    }
}

/* A component with one field of each integer kind, bounded. */
#define WIDE_SCHEMA(X)                                                                   \
    X(u64, big, "0")                                                                     \
    X(u64, capped, "{\"default\": 0, \"max\": 9007199254740992}")                         \
    X(i32, signed_value, "{\"default\": 0, \"min\": -5e0, \"max\": 2147483647}")          \
    X(u32, small, "{\"default\": 1, \"min\": 1}")
ECS_MANAGER_DEFINE_SCHEMA(wide, WIDE_SCHEMA)

/* Compiles one "wide" component with the given members; the record's bytes
   (native order) in *record when it compiles. */
static ecs_result compile_wide(const ecs_compiler *c, const char *members, unsigned char *record, ecs_error *err)
{
    char json[512];
    ecs_compiler_output out;
    ecs_result r;
    snprintf(json, sizeof json, "{\"entities\": [{\"components\": [{\"type\": \"wide\"%s%s}]}]}", members[0] ? ", " : "",
             members);
    r = ecs_compiler_compile(c, json, strlen(json), 0, &out, err);
    if (r == ECS_OK) memcpy(record, (const unsigned char *)out.blob + out.size - 24, 24);
    ecs_compiler_output_free(&out);
    return r;
}

static uint64_t u64_at(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static ecs_result compile_u32(void *user, ecs_compiler_context *ctx, const ecs_json_value *component)
{
    uint32_t v;
    ecs_result r = ecs_compiler_member_u32(ctx, component, "v", &v, NULL);
    (void)user;
    return r != ECS_OK ? r : ecs_compiler_write_u32(ctx, v);
}

static void test_integer_fields(void)
{
    static const struct {
        const char *members;
        int ok;
        uint64_t big, capped;
        int32_t signed_value;
        uint32_t small;
    } cases[] = {
        {"\"big\": 1e19", 1, 10000000000000000000ull, 0, 0, 1},
        {"\"big\": 1.8446744073709551615e19", 1, 18446744073709551615ull, 0, 0, 1},
        {"\"big\": 18446744073709551615", 1, 18446744073709551615ull, 0, 0, 1},
        {"\"big\": 9007199254740993.0", 1, 9007199254740993ull, 0, 0, 1},
        {"\"big\": 18446744073709551616", 0, 0, 0, 0, 0},
        {"\"big\": 1.5", 0, 0, 0, 0, 0},
        {"\"big\": -1", 0, 0, 0, 0, 0},
        {"\"big\": -0", 1, 0, 0, 0, 1},
        {"\"capped\": 9007199254740992", 1, 0, 9007199254740992ull, 0, 1},
        {"\"capped\": 9007199254740993", 0, 0, 0, 0, 0}, /* 2^53 + 1: the same double as the max */
        {"\"capped\": 9.007199254740993e15", 0, 0, 0, 0, 0},
        {"\"signed_value\": -5", 1, 0, 0, -5, 1},
        {"\"signed_value\": -6", 0, 0, 0, 0, 0},
        {"\"signed_value\": 2.147483647e9", 1, 0, 0, 2147483647, 1},
        {"\"signed_value\": 2147483648", 0, 0, 0, 0, 0},
        {"\"small\": 4294967295.0", 1, 0, 0, 0, 4294967295u},
        {"\"small\": 4.294967296e9", 0, 0, 0, 0, 0},
        {"\"small\": 4294967295.0000000001", 0, 0, 0, 0, 0},
        {"\"small\": 0", 0, 0, 0, 0, 0},
    };
    ecs_compiler c;
    ecs_error err;
    uint32_t n, k;
    const ecs_schema_field *schema = wide_schema(&n);
    unsigned char rec[24];
    ecs_compiler_init(&c);
    CHECK_MSG(ecs_compiler_register_schema(&c, "wide", schema, n, 0, &err) == ECS_OK, "%s", err.message);
    CHECK(ecs_compiler_register(&c, "plain", compile_u32, NULL, 1, &err) == ECS_OK);
    for (k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        ecs_result r = compile_wide(&c, cases[k].members, rec, &err);
        int32_t sv;
        uint32_t small;
        CHECK_MSG((r == ECS_OK) == cases[k].ok, "%s: %s", cases[k].members, r == ECS_OK ? "compiles" : err.message);
        if (r != ECS_OK || !cases[k].ok) continue;
        memcpy(&sv, rec + 16, 4), memcpy(&small, rec + 20, 4);
        CHECK_MSG(u64_at(rec) == cases[k].big && u64_at(rec + 8) == cases[k].capped && sv == cases[k].signed_value &&
                      small == cases[k].small,
                  "%s: %llu %llu %d %u", cases[k].members, (unsigned long long)u64_at(rec),
                  (unsigned long long)u64_at(rec + 8), (int)sv, (unsigned)small);
    }
    CHECK(compile_wide(&c, "\"capped\": 9007199254740993", rec, &err) == ECS_ERROR_COMPILE &&
          strstr(err.message, "capped must be <= 9007199254740992 (found 9007199254740993)") != NULL);
    /* a hand-written compile function reads u32s the same way */
    {
        static const char *const good[] = {"4294967295", "4.294967295e9", "7.0", "0"};
        static const char *const bad[] = {"4294967296", "7.0000000000000000001", "-1", "0.5"};
        char json[160];
        ecs_compiler_output out;
        for (k = 0; k < 8; ++k) {
            const char *v = k < 4 ? good[k] : bad[k - 4];
            snprintf(json, sizeof json, "{\"entities\": [{\"components\": [{\"type\": \"plain\", \"v\": %s}]}]}", v);
            CHECK_MSG((ecs_compiler_compile(&c, json, strlen(json), 0, &out, &err) == ECS_OK) == (k < 4), "%s", v);
            ecs_compiler_output_free(&out);
        }
    }
    /* bounds of an integer kind are whole numbers */
    {
        static const ecs_schema_field half[] = {{"n", ECS_FIELD_I32, "{\"default\": 0, \"max\": 2.5}"}};
        static const ecs_schema_field exact[] = {{"n", ECS_FIELD_U64, "{\"default\": 0, \"max\": 1.8446744073709551615e19}"}};
        CHECK(ecs_compiler_register_schema(&c, "half", half, 1, 0, &err) == ECS_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "whole number") != NULL);
        CHECK_MSG(ecs_compiler_register_schema(&c, "exact", exact, 1, 0, &err) == ECS_OK, "%s", err.message);
    }
    /* a u64 of 1e19 decompiles and compiles back to the same bytes */
    {
        const char *json = "{\"entities\": [{\"components\": [{\"type\": \"wide\", \"big\": 1e19, \"small\": 3e0}]}]}";
        ecs_compiler_output out, again;
        ecs_decompile_output text;
        memset(&again, 0, sizeof again);
        CHECK(ecs_compiler_compile(&c, json, strlen(json), 0, &out, &err) == ECS_OK);
        CHECK_MSG(ecs_compiler_decompile(&c, out.blob, out.size, ECS_DECOMPILE_CHECK, &text, &err) == ECS_OK, "%s",
                  err.message);
        CHECK(text.json && strstr(text.json, "\"big\": 10000000000000000000") != NULL);
        CHECK(text.json && ecs_compiler_compile(&c, text.json, text.length, 0, &again, &err) == ECS_OK &&
              again.size == out.size && memcmp(again.blob, out.blob, out.size) == 0);
        ecs_compiler_output_free(&again);
        ecs_decompile_output_free(&text);
        ecs_compiler_output_free(&out);
    }
    ecs_compiler_free(&c);
}

/* ---- the small integer kinds ---------------------------------------------------- */

#define SMALL_SCHEMA(X)                                      \
    X(i8, a, "0")                                            \
    X(u8, b, "0")                                            \
    X(i16, c, "0")                                           \
    X(u16, d, "0")                                           \
    X(u8, mode, "{\"default\": 1, \"min\": 1, \"max\": 3}")
ECS_MANAGER_DEFINE_SCHEMA(small, SMALL_SCHEMA)
#define SMALL_RECORD 7u

/* Compiles one "small" component with the given members (flags: byte
   order); its record's bytes in rec when it compiles. */
static ecs_result compile_small(const ecs_compiler *c, const char *members, uint32_t flags, unsigned char *rec,
                                ecs_error *err, char *json, size_t size)
{
    ecs_compiler_output out;
    ecs_result r;
    snprintf(json, size, "{\"entities\": [{\"components\": [{\"type\": \"small\", %s}]}]}", members);
    r = ecs_compiler_compile(c, json, strlen(json), flags, &out, err);
    if (r == ECS_OK) memcpy(rec, (const unsigned char *)out.blob + out.size - 8u, SMALL_RECORD); /* 1 byte of padding */
    ecs_compiler_output_free(&out);
    return r;
}

static void test_small_kinds_compile(void)
{
    static const struct {
        const char *members;
        unsigned char le[SMALL_RECORD], be[SMALL_RECORD];
    } good[] = {
        {"\"a\": -128, \"b\": 0, \"c\": -32768, \"d\": 0, \"mode\": 1", {0x80, 0, 0x00, 0x80, 0, 0, 1}, {0x80, 0, 0x80, 0x00, 0, 0, 1}},
        {"\"a\": 127, \"b\": 255, \"c\": 32767, \"d\": 65535, \"mode\": 3",
         {0x7F, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 3}, {0x7F, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 3}},
        {"\"a\": -1, \"b\": 2.55e2, \"c\": -300, \"d\": 258.0", {0xFF, 0xFF, 0xD4, 0xFE, 0x02, 0x01, 1}, {0xFF, 0xFF, 0xFE, 0xD4, 0x01, 0x02, 1}},
    };
    static const struct {
        const char *members, *value, *message;
    } bad[] = {
        {"\"a\": -129", "-129", "expected an integer -128..127, found -129"},
        {"\"a\": 128", "128", "expected an integer -128..127, found 128"},
        {"\"b\": -1", "-1", "expected an integer 0..255, found -1"},
        {"\"b\": 256", "256", "expected an integer 0..255, found 256"},
        {"\"c\": -32769", "-32769", "expected an integer -32768..32767, found -32769"},
        {"\"c\": 32768", "32768", "expected an integer -32768..32767, found 32768"},
        {"\"d\": 65536", "65536", "expected an integer 0..65535, found 65536"},
        {"\"d\": -1", "-1", "expected an integer 0..65535, found -1"},
        {"\"d\": 1.5", "1.5", "expected an integer 0..65535, found 1.5"},
        {"\"b\": true", "true", "expected an integer, found true"},
        {"\"mode\": 4", "4", "mode must be <= 3 (found 4)"},
        {"\"mode\": 0", "0", "mode must be >= 1 (found 0)"},
    };
    ecs_compiler c;
    ecs_error err;
    uint32_t n, k, o;
    const ecs_schema_field *schema = small_schema(&n);
    unsigned char rec[SMALL_RECORD];
    char json[300];
    ecs_compiler_init(&c);
    CHECK_MSG(ecs_compiler_register_schema(&c, "small", schema, n, 0, &err) == ECS_OK, "%s", err.message);
    for (k = 0; k < sizeof good / sizeof good[0]; ++k)
        for (o = 0; o < 2; ++o) {
            ecs_compiler_output out, again;
            ecs_decompile_output text;
            CHECK_MSG(compile_small(&c, good[k].members, o ? ECS_COMPILER_BIG_ENDIAN : 0u, rec, &err, json, sizeof json) == ECS_OK,
                      "%s: %s", good[k].members, err.message);
            CHECK_MSG(memcmp(rec, o ? good[k].be : good[k].le, SMALL_RECORD) == 0, "%s: bytes (%s)", good[k].members, o ? "big" : "little");
            memset(&again, 0, sizeof again);
            memset(&text, 0, sizeof text);
            if (ecs_compiler_compile(&c, json, strlen(json), o ? ECS_COMPILER_BIG_ENDIAN : 0u, &out, &err) != ECS_OK) continue;
            CHECK_MSG(ecs_compiler_decompile(&c, out.blob, out.size, ECS_DECOMPILE_CHECK | ECS_DECOMPILE_ALL_MEMBERS, &text,
                                             &err) == ECS_OK, "%s", err.message);
            CHECK(text.json && ecs_compiler_compile(&c, text.json, text.length, o ? ECS_COMPILER_BIG_ENDIAN : 0u, &again, &err) == ECS_OK &&
                  again.size == out.size && memcmp(again.blob, out.blob, out.size) == 0);
            if (k == 0) CHECK(text.json && strstr(text.json, "\"a\": -128, \"b\": 0, \"c\": -32768, \"d\": 0, \"mode\": 1") != NULL);
            ecs_decompile_output_free(&text);
            ecs_compiler_output_free(&again);
            ecs_compiler_output_free(&out);
        }
    for (k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        char where[40];
        CHECK(compile_small(&c, bad[k].members, 0, rec, &err, json, sizeof json) == ECS_ERROR_COMPILE);
        snprintf(where, sizeof where, "(line 1, column %u)", (unsigned)(strstr(json, bad[k].value) - json) + 1u);
        CHECK_MSG(strstr(err.message, bad[k].message) && strstr(err.message, where), "%s: '%s' lacks '%s' or '%s'",
                  bad[k].members, err.message, bad[k].message, where);
    }
    ecs_compiler_free(&c);
}

/* The same bounds in a world saved as a snapshot: JSON and back, the other
   byte order and back, and an entity's JSON. */
static void test_small_kinds_snapshot(void)
{
    ecs_world w;
    ecs_error err;
    small m;
    ecs_entity e[2];
    ecs_snapshot_output snap = {NULL, 0}, json = {NULL, 0}, back = {NULL, 0}, ent = {NULL, 0};
    uint32_t k;
    CHECK(ecs_world_init(&w) == ECS_OK && small_init(&m, ECS_LOOKUP_DENSE) == ECS_OK);
    CHECK(ecs_world_add_manager(&w, "small", &m.core, &err) == ECS_OK);
    for (k = 0; k < 2; ++k) {
        ecs_instance i;
        e[k] = ecs_entity_create(&w.entities);
        i = small_create(&m, e[k]);
        m.a[i.i] = k ? 127 : -128;
        m.b[i.i] = k ? 255 : 0;
        m.c[i.i] = k ? 32767 : -32768;
        m.d[i.i] = k ? 65535 : 0;
        m.mode[i.i] = 3;
    }
    CHECK(ecs_snapshot_save(&w, NULL, &snap, &err) == ECS_OK);
    CHECK_MSG(ecs_snapshot_to_json(snap.data, snap.size, &json, &err) == ECS_OK, "%s", err.message);
    CHECK(json.data && strstr((const char *)json.data, "-128") && strstr((const char *)json.data, "-32768") &&
          strstr((const char *)json.data, "65535"));
    CHECK_MSG(json.data && ecs_snapshot_from_json((const char *)json.data, json.size, &back, &err) == ECS_OK, "%s", err.message);
    CHECK(back.size == snap.size && back.data && memcmp(back.data, snap.data, snap.size) == 0);
    ecs_snapshot_output_free(&back);
    { /* the other byte order and back: the 16-bit fields swap */
        ecs_snapshot_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.flags = ecs__res_host_big_endian() ? ECS_SNAPSHOT_LITTLE_ENDIAN : ECS_SNAPSHOT_BIG_ENDIAN;
        CHECK(ecs_snapshot_save(&w, &desc, &back, &err) == ECS_OK);
        CHECK(back.size == snap.size && back.data && memcmp(back.data, snap.data, snap.size) != 0);
        CHECK_MSG(ecs_snapshot_swap(back.data, back.size, &err) == ECS_OK, "%s", err.message);
        CHECK(back.data && memcmp(back.data, snap.data, snap.size) == 0);
    }
    CHECK(ecs_world_entity_json(&w, e[0], &ent, &err) == ECS_OK);
    CHECK_MSG(ent.data && strstr((const char *)ent.data, "-128") && strstr((const char *)ent.data, "-32768"), "%s",
              ent.data ? (const char *)ent.data : err.message);
    ecs_snapshot_output_free(&ent);
    { /* out of range in snapshot JSON: refused with the range */
        char *text = (char *)malloc(json.size + 1u), *at;
        if (text) memcpy(text, json.data, json.size + 1u);
        at = text ? strstr(text, "65535") : NULL;
        if (at) memcpy(at, "65536", 5);
        CHECK(at && ecs_snapshot_from_json(text, json.size, &ent, &err) == ECS_ERROR_CORRUPT_RESOURCE &&
              strstr(err.message, "0..65535") != NULL);
        free(text);
    }
    ecs_snapshot_output_free(&snap);
    ecs_snapshot_output_free(&json);
    ecs_snapshot_output_free(&back);
    ecs_snapshot_output_free(&ent);
    ecs_world_free(&w);
    small_free(&m);
}

/* ---- a decimal point of more than one byte ------------------------------------ */

#define POINT_U066B "\xD9\xAB"

/* What the JSON code makes of numbers in the locale in force. */
typedef struct number_texts {
    double parsed[4];
    ecs_compiler_output blob;
    ecs_decompile_output level;
    ecs_snapshot_output snapshot, json, back;
} number_texts;

static void make_number_texts(number_texts *t)
{
    static const char *const numbers = "[1.5e30, 0.12345678901234567890123, -7.25e-300, 2.5]";
    static const char *const level =
        "{\"entities\": [{\"components\": [{\"type\": \"actor\", \"mass\": 1.5e30, \"radius\": 0.12345678901234567890123}]}]}";
    static const ecs_schema_field clock[] = {{"t", ECS_FIELD_F64, "0"}, {"f", ECS_FIELD_F32, "0"}};
    const ecs_json_value *v;
    ecs_json_doc doc;
    ecs_compiler c;
    ecs_world w;
    ecs_manager *m;
    ecs_error err;
    double d = 0.1;
    float f = 0.25f;
    uint32_t k = 0;
    memset(t, 0, sizeof *t);
    memset(&doc, 0, sizeof doc);
    CHECK(ecs_json_parse(&doc, numbers, strlen(numbers), &err) == ECS_OK);
    for (v = ecs_json_first(&doc, ecs_json_root(&doc)); v && k < 4; v = ecs_json_next(&doc, v)) t->parsed[k++] = v->number;
    ecs_json_doc_free(&doc);
    ecs_compiler_init(&c);
    CHECK(ecs_compiler_register_standard(&c, &err) == ECS_OK);
    CHECK_MSG(ecs_compiler_compile(&c, level, strlen(level), 0, &t->blob, &err) == ECS_OK, "%s", err.message);
    CHECK_MSG(ecs_compiler_decompile(&c, t->blob.blob, t->blob.size, ECS_DECOMPILE_CHECK, &t->level, &err) == ECS_OK,
              "%s", err.message);
    ecs_compiler_free(&c);
    CHECK(ecs_world_init(&w) == ECS_OK);
    m = ecs_world_define_schema(&w, "clock", clock, 2, ECS_LOOKUP_HASH, &err);
    CHECK(m != NULL);
    if (m) {
        ecs_instance i = ecs_manager_create(m, ecs_entity_create(&w.entities));
        memcpy(ecs_manager_field(m, 0, i.i), &d, 8);
        memcpy(ecs_manager_field(m, 1, i.i), &f, 4);
    }
    CHECK(ecs_snapshot_save(&w, NULL, &t->snapshot, &err) == ECS_OK);
    CHECK(ecs_snapshot_to_json(t->snapshot.data, t->snapshot.size, &t->json, &err) == ECS_OK);
    CHECK_MSG(t->json.data && ecs_snapshot_from_json((const char *)t->json.data, t->json.size, &t->back, &err) == ECS_OK,
              "%s", err.message);
    ecs_world_free(&w);
}

static void free_number_texts(number_texts *t)
{
    ecs_compiler_output_free(&t->blob);
    ecs_decompile_output_free(&t->level);
    ecs_snapshot_output_free(&t->snapshot);
    ecs_snapshot_output_free(&t->json);
    ecs_snapshot_output_free(&t->back);
}

static int point_is_u066b(void)
{
    const struct lconv *lc = localeconv();
    return lc && lc->decimal_point && strcmp(lc->decimal_point, POINT_U066B) == 0;
}

/* Removes set_point_locale's folder: 1 when it is gone. */
static int remove_point_dir(const char *dir)
{
    char path[700];
    if (snprintf(path, sizeof path, "%s/point.src", dir) >= (int)sizeof path) return 0;
    (void)remove(path);
    if (remove(dir) == 0) return 1; /* nothing built in it */
    return snprintf(path, sizeof path, "rm -rf '%s'", dir) < (int)sizeof path && system(path) == 0;
}

/* Sets LC_NUMERIC to a locale whose decimal point is U+066B: glibc's ps_AF
   when installed, else one that localedef builds from a few lines into a
   new folder dir under BUILD_DIR (TMPDIR, /tmp), through LOCPATH (dir[0]
   is 0 when no folder was made). 0 when neither works. */
static int set_point_locale(char *dir, size_t size)
{
    static const char *const source = "comment_char %\nescape_char /\nLC_NUMERIC\ndecimal_point \"<U066B>\"\n"
                                      "thousands_sep \"\"\ngrouping -1\nEND LC_NUMERIC\n";
    const char *base = getenv("BUILD_DIR");
    char cmd[1400];
    FILE *file;
    dir[0] = 0;
    if ((setlocale(LC_NUMERIC, "ps_AF.UTF-8") || setlocale(LC_NUMERIC, "ps_AF.utf8")) && point_is_u066b()) return 1;
    if (!base || !base[0]) base = getenv("TMPDIR");
    if (!base || !base[0] || strchr(base, '\'')) base = "/tmp";
    if (snprintf(dir, size, "%s/ecs_point_XXXXXX", base) >= (int)size || !mkdtemp(dir)) {
        dir[0] = 0;
        return 0;
    }
    if (snprintf(cmd, sizeof cmd, "%s/point.src", dir) >= (int)sizeof cmd || !(file = fopen(cmd, "w"))) return 0;
    fputs(source, file);
    fclose(file);
    /* -c: it writes the locale though it warns of the categories left out (exit status 1) */
    if (snprintf(cmd, sizeof cmd, "localedef -c -i '%s/point.src' -f UTF-8 '%s/ecs_point.UTF-8' >/dev/null 2>&1", dir,
                 dir) >= (int)sizeof cmd ||
        system(cmd) == -1)
        return 0;
    return setenv("LOCPATH", dir, 1) == 0 && setlocale(LC_NUMERIC, "ecs_point.UTF-8") && point_is_u066b();
}

/* Everything the C locale gives, the same bytes under a decimal point of
   two bytes. */
static void test_multibyte_decimal_point(void)
{
    number_texts in_c, in_point;
    char dir[600];
    const char *locpath = getenv("LOCPATH");
    char *old_locpath = locpath ? (char *)malloc(strlen(locpath) + 1u) : NULL;
    uint32_t k;
    if (old_locpath) strcpy(old_locpath, locpath);
    CHECK(setlocale(LC_NUMERIC, "C") != NULL);
    make_number_texts(&in_c);
    CHECK_MSG(in_c.parsed[0] == (double)1.5e30, "%.17g", in_c.parsed[0]);
    CHECK_MSG(in_c.level.json && strstr(in_c.level.json, "\"mass\": 1.5e+30") != NULL, "%s",
              in_c.level.json ? in_c.level.json : "(none)");
    if (!set_point_locale(dir, sizeof dir)) {
        printf("NOTE: test_multibyte_decimal_point NOT RUN: no locale with a decimal point of 2 bytes (ps_AF.UTF-8 "
               "is not installed and localedef could not build one)\n");
    } else {
        char text[8];
        snprintf(text, sizeof text, "%.1f", 1.5);
        CHECK(strcmp(text, "1" POINT_U066B "5") == 0); /* printf writes the two bytes */
        make_number_texts(&in_point);
        for (k = 0; k < 4; ++k) CHECK_MSG(in_point.parsed[k] == in_c.parsed[k], "%u: %.17g", (unsigned)k, in_point.parsed[k]);
        CHECK(in_point.blob.size == in_c.blob.size && in_point.blob.blob && in_c.blob.blob &&
              memcmp(in_point.blob.blob, in_c.blob.blob, in_c.blob.size) == 0);
        CHECK_MSG(in_point.level.json && in_c.level.json && strcmp(in_point.level.json, in_c.level.json) == 0, "%s",
                  in_point.level.json ? in_point.level.json : "(none)");
        CHECK_MSG(in_point.json.size == in_c.json.size && in_point.json.data && in_c.json.data &&
                      memcmp(in_point.json.data, in_c.json.data, in_c.json.size) == 0,
                  "%s", in_point.json.data ? (const char *)in_point.json.data : "(none)");
        CHECK(in_point.back.size == in_c.snapshot.size && in_point.back.data && in_c.snapshot.data &&
              memcmp(in_point.back.data, in_c.snapshot.data, in_c.snapshot.size) == 0);
        free_number_texts(&in_point);
    }
    CHECK(setlocale(LC_NUMERIC, "C") != NULL);
    if (old_locpath) setenv("LOCPATH", old_locpath, 1);
    else unsetenv("LOCPATH");
    if (dir[0]) CHECK(remove_point_dir(dir));
    free(old_locpath);
    free_number_texts(&in_c);
}

int main(void)
{
    (void)make_id; /* test_rng.h's forged ids: not needed here */
    test_correct_rounding();
    test_f32_midpoints();
    test_f32_limit();
    test_whole_numbers();
    test_integer_fields();
    test_small_kinds_compile();
    test_small_kinds_snapshot();
    test_multibyte_decimal_point();
    return test_report("test_resource_numbers");
}
