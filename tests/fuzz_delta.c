/* tests/fuzz_delta.c - libFuzzer harness: any bytes as a snapshot delta.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -I/usr/include/stb \
         tests/fuzz_delta.c -o fuzz_delta -lm
   ./fuzz_delta NEW_DIR tests/corpus/fuzz_delta
   -DFUZZ_STANDALONE gives a main that replays files and directories.

   An input is a little-endian u32 n, then n bytes of a base snapshot, then
   the rest: a delta against it, or a second snapshot (the corpus holds
   both kinds, from `tests/test_snapshot_delta --corpus DIR`). Checks,
   beyond "no crash, no sanitizer report, no leak":
   - ecs_snapshot_delta_verify refuses with an offset, or passes; what it
     refuses, apply refuses;
   - apply into a reused buffer: refused, the buffer as it was (pointer,
     size, bytes); or the bytes of the size and hash the delta names;
   - apply in place (base in the output's buffer) gives the same bytes, or
     the same refusal with the buffer as it was;
   - apply with base's hash given (ecs_snapshot_apply_delta_hashed): the
     same result as without; with the hash the delta names given instead
     (a lie when base is another snapshot), refused or the bytes of the
     hash the delta names (of its size, for a delta named by world hashes,
     which only that call applies);
   - a delta made with both hashes given has the bytes of one made
     without;
   - when base and the result are snapshots, the delta made from them
     applies to the same bytes; when the rest is a snapshot, the delta from
     base to it applies to exactly it. */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#define ECS_SNAPSHOT_IMPLEMENTATION
#include "ecs_snapshot.h"
#include "fuzz_common.h"

static int same_output(const ecs_snapshot_output *o, const void *bytes, size_t size)
{
    return o->size == size && (size == 0 || memcmp(o->data, bytes, size) == 0);
}

/* The delta from base to next applies to base and gives next's bytes, out
   of place and in place (when the delta can be made: both snapshots). */
static void check_round_trip(const unsigned char *base, size_t base_size, const unsigned char *next, size_t next_size)
{
    ecs_snapshot_output d = {NULL, 0}, o = {NULL, 0}, ip = {NULL, 0};
    ecs_error err;
    if (ecs_snapshot_delta(base, base_size, next, next_size, 0, &d, &err) != ECS_OK) {
        FUZZ_CHECK(d.data == NULL && d.size == 0);
        return;
    }
    FUZZ_CHECK(ecs_snapshot_delta_verify(d.data, d.size, NULL, &err) == ECS_OK);
    FUZZ_CHECK(ecs_snapshot_apply_delta(base, base_size, d.data, d.size, 0, &o, &err) == ECS_OK);
    FUZZ_CHECK(same_output(&o, next, next_size));
    ip.data = malloc(base_size ? base_size : 1u);
    FUZZ_CHECK(ip.data != NULL);
    memcpy(ip.data, base, base_size);
    ip.size = base_size;
    FUZZ_CHECK(ecs_snapshot_apply_delta(ip.data, ip.size, d.data, d.size, ECS_SNAPSHOT_REUSE_OUTPUT, &ip, &err) == ECS_OK);
    FUZZ_CHECK(same_output(&ip, next, next_size));
    {
        ecs_snapshot_output d2 = {NULL, 0};
        ecs_snapshot_delta_hashes h;
        h.known = ECS_SNAPSHOT_BASE_HASH | ECS_SNAPSHOT_NEXT_HASH;
        h.base_hash = ecs_snapshot_blob_hash(base, base_size);
        h.next_hash = ecs_snapshot_blob_hash(next, next_size);
        FUZZ_CHECK(ecs_snapshot_delta_hashed(base, base_size, next, next_size, 0, &h, &d2, &err) == ECS_OK);
        FUZZ_CHECK(same_output(&d2, d.data, d.size));
        ecs_snapshot_output_free(&d2);
    }
    ecs_snapshot_output_free(&d);
    ecs_snapshot_output_free(&o);
    ecs_snapshot_output_free(&ip);
}

/* Apply with base's hash given: r2's result (out's bytes); with `named`
   (the hash the delta names) given instead: refused, or the bytes of the
   hash it names. The output buffer as it was on refusal. */
static void check_hashed(const unsigned char *base, size_t n, const unsigned char *delta, size_t size, ecs_result r2,
                         const ecs_snapshot_output *out, uint64_t named)
{
    static const unsigned char mark[8] = {8, 7, 6, 5, 4, 3, 2, 1};
    ecs_snapshot_delta_hashes h;
    ecs_snapshot_delta_info info;
    ecs_snapshot_output o;
    ecs_error e;
    ecs_result r;
    uint32_t pass;
    for (pass = 0; pass < 2u; ++pass) {
        o.data = malloc(sizeof mark);
        FUZZ_CHECK(o.data != NULL);
        memcpy(o.data, mark, sizeof mark);
        o.size = sizeof mark;
        h.known = ECS_SNAPSHOT_BASE_HASH;
        h.base_hash = pass ? named : ecs_snapshot_blob_hash(base, n);
        h.next_hash = 0;
        r = ecs_snapshot_apply_delta_hashed(base, n, delta, size, ECS_SNAPSHOT_REUSE_OUTPUT, &h, &o, &e);
        if (pass == 0) FUZZ_CHECK(r == r2);
        if (r != ECS_OK) {
            FUZZ_CHECK(same_output(&o, mark, sizeof mark) && h.next_hash == 0);
        } else if (pass == 0) {
            FUZZ_CHECK(same_output(&o, out->data, out->size) && h.next_hash == ecs_snapshot_blob_hash(o.data, o.size));
        } else {
            FUZZ_CHECK(ecs_snapshot_delta_verify(delta, size, &info, &e) == ECS_OK);
            FUZZ_CHECK(o.size == info.next_size && h.next_hash == info.next_hash);
            if (!(info.flags & ECS_SNAPSHOT_DELTA_WORLD_HASHES)) /* (a world hash is checked by loading the result) */
                FUZZ_CHECK(ecs_snapshot_blob_hash(o.data, o.size) == info.next_hash);
        }
        ecs_snapshot_output_free(&o);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned char mark[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    ecs_snapshot_output out, ip;
    ecs_snapshot_delta_info info;
    ecs_error e1, e2, e3;
    ecs_result r1, r2, r3;
    unsigned char *base, *rest;
    size_t n, rest_size;
    uint32_t len;
    if (size < 4) return 0;
    len = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
    n = len <= size - 4u ? len : size - 4u;
    rest_size = size - 4u - n;
    base = (unsigned char *)malloc(n ? n : 1u); /* copies of their own: exact bounds for the sanitizers */
    rest = (unsigned char *)malloc(rest_size ? rest_size : 1u);
    FUZZ_CHECK(base && rest);
    memcpy(base, data + 4, n);
    memcpy(rest, data + 4 + n, rest_size);

    r1 = ecs_snapshot_delta_verify(rest, rest_size, &info, &e1);
    if (r1 == ECS_ERROR_CORRUPT_RESOURCE) FUZZ_CHECK(strstr(e1.message, "offset ") != NULL);
    out.data = malloc(sizeof mark); /* a reused output holding bytes of its own */
    FUZZ_CHECK(out.data != NULL);
    memcpy(out.data, mark, sizeof mark);
    out.size = sizeof mark;
    r2 = ecs_snapshot_apply_delta(base, n, rest, rest_size, ECS_SNAPSHOT_REUSE_OUTPUT, &out, &e2);
    if (r1 != ECS_OK) FUZZ_CHECK(r2 == r1);
    if (r2 != ECS_OK) {
        FUZZ_CHECK(same_output(&out, mark, sizeof mark));
    } else {
        FUZZ_CHECK(out.size == info.next_size && ecs_snapshot_blob_hash(out.data, out.size) == info.next_hash);
        FUZZ_CHECK(ecs_snapshot_blob_hash(base, n) == info.base_hash);
    }
    ip.data = malloc(n ? n : 1u); /* in place */
    FUZZ_CHECK(ip.data != NULL);
    memcpy(ip.data, base, n);
    ip.size = n;
    r3 = ecs_snapshot_apply_delta(ip.data, ip.size, rest, rest_size, ECS_SNAPSHOT_REUSE_OUTPUT, &ip, &e3);
    FUZZ_CHECK(r3 == r2);
    if (r3 == ECS_OK) FUZZ_CHECK(same_output(&ip, out.data, out.size));
    else FUZZ_CHECK(same_output(&ip, base, n));
    check_hashed(base, n, rest, rest_size, r2, &out, r1 == ECS_OK ? info.base_hash : 0);
    if (r2 == ECS_OK) check_round_trip(base, n, (const unsigned char *)out.data, out.size);
    else check_round_trip(base, n, rest, rest_size);
    ecs_snapshot_output_free(&out);
    ecs_snapshot_output_free(&ip);
    free(base);
    free(rest);
    return 0;
}

#ifdef FUZZ_STANDALONE
static void fuzz_cleanup(void) {}
#endif
