/* tests/resource_fixture.h - what the ecs_resource.h tests and fuzz harnesses
   share (include it after ecs_resource.h):
   - the "label" component: variable-size data (per instance a length byte and
     that many bytes) whose spawn function checks its own bytes, with a
     compile function {"type": "label", "text": "..."} and its decompile
     function;
   - a file reader and a random number generator.
   (The fuzz harnesses' own fixture, tests/fuzz_common.h, includes it.) */
#ifndef RESOURCE_FIXTURE_H_INCLUDED
#define RESOURCE_FIXTURE_H_INCLUDED

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct label_store {
    uint32_t live; /* label instances spawned and not unspawned */
    uint32_t spawn_calls, unspawn_calls;
} label_store;

/* ecs_spawn_fn for "label" (user: a label_store*). */
static inline ecs_result label_spawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                                     const uint32_t *entity_index, const void *data, uint32_t size)
{
    label_store *s = (label_store *)user;
    const unsigned char *p = (const unsigned char *)data;
    uint32_t j, at = 0;
    (void)entity_index;
    for (j = 0; j < num_instances; ++j) {
        if (at >= size || p[at] > size - at - 1u)
            return ecs_error_set(ctx->error, ECS_ERROR_CORRUPT_RESOURCE, "label %u runs past the block", (unsigned)j);
        at += 1u + p[at];
    }
    if (at != size)
        return ecs_error_set(ctx->error, ECS_ERROR_CORRUPT_RESOURCE, "%u stray label bytes", (unsigned)(size - at));
    s->live += num_instances;
    ++s->spawn_calls;
    return ECS_OK;
}

/* ecs_unspawn_fn for "label". */
static inline void label_unspawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                                 const uint32_t *entity_index, const void *data, uint32_t size)
{
    label_store *s = (label_store *)user;
    (void)ctx, (void)entity_index, (void)data, (void)size;
    s->live -= num_instances;
    ++s->unspawn_calls;
}

/* ecs_compiler_fn for {"type": "label", "text": "at most 255 bytes"}. */
static inline ecs_result label_compile(void *user, ecs_compiler_context *ctx, const ecs_json_value *c)
{
    static const char *const known[] = {"text"};
    const ecs_json_value *t = ecs_json_member(ecs_compiler_doc(ctx), c, "text");
    ecs_result r;
    (void)user;
    if ((r = ecs_compiler_check_members(ctx, c, known, 1)) != ECS_OK) return r;
    if (!t || t->type != ECS_JSON_STRING || t->count > 255) return ecs_compiler_error(ctx, t, "text: a short string");
    if ((r = ecs_compiler_write_u8(ctx, (uint8_t)t->count)) != ECS_OK) return r;
    return ecs_compiler_write(ctx, ecs_json_string(ecs_compiler_doc(ctx), t), t->count);
}

/* ecs_decompile_fn for "label": {"text": "..."} back from a length byte and
   that many bytes (refused when they run past the block or are not UTF-8). */
static inline ecs_result label_decompile(void *user, ecs_decompile_context *ctx, const void *data, uint32_t size,
                                         uint32_t *used)
{
    const unsigned char *p = (const unsigned char *)data;
    ecs_result r;
    (void)user;
    if (size < 1u || p[0] > size - 1u) return ecs_decompile_error(ctx, "a label runs past the block");
    *used = 1u + p[0];
    if ((r = ecs_decompile_member(ctx, "text")) != ECS_OK) return r;
    return ecs_decompile_string(ctx, (const char *)p + 1, p[0]);
}

/* The whole file (malloc'd, *len bytes), or NULL. */
static inline char *fixture_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    if (!f) return NULL;
    do {
        if (n == cap) {
            char *nb;
            cap = cap ? cap * 2 : 4096;
            nb = (char *)realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got);
    if (ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

/* xorshift64*: the next number of *state (never seed it with 0). */
static inline uint32_t fixture_rnd(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (uint32_t)((x * 2685821657736338717ull) >> 32);
}

#endif
