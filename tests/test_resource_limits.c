/* tests/test_resource_limits.c - impossible entity counts fail before any
   memory is touched. ecs_spawner_spawn_copies asked for more entities than
   the entity manager has indices left (0xFFFFFFFF copies, a product past the
   index space or past 2^32, or just one more than a partly used manager can
   give) returns an error without allocating, without writing the caller's
   table and without changing the entity manager or the spawner; the exact
   limit still spawns. ecs_spawner_unspawn refuses a copy count no spawn can
   have made. The growth of arrays never wraps (a JSON text just over 2 GiB
   on 32-bit), and a names block's counts are checked against its bytes
   before anything is allocated. A small index space (ECS_INDEX_BITS 12: 4095 entities) keeps the
   limit cases fast; a counting allocator records every call and refuses any
   request over 1 MiB (nothing here legitimately needs that much). */
#define ECS_INDEX_BITS 12
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static unsigned long alloc_calls;
static size_t alloc_largest;
#define ALLOC_REFUSE_ABOVE ((size_t)1 << 20)
static void *counting_realloc(void *p, size_t n)
{
    ++alloc_calls;
    if (n > alloc_largest) alloc_largest = n;
    if (n > ALLOC_REFUSE_ABOVE) return NULL;
    return realloc(p, n);
}
#define ECS_REALLOC(p, n) counting_realloc(p, n)
#define ECS_FREE(p) free(p)

#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#include "test.h"

#define SPACE 4095u /* ECS_INDEX_MASK: entities an empty manager can hold */

static int has(const char *text, const char *part) { return strstr(text, part) != NULL; }

#define ACTOR_FIELDS(X) X(float, mass) X(float, radius)
ECS_MANAGER_DEFINE(t_actor, ACTOR_FIELDS)

typedef struct world {
    ecs_entity_manager em;
    t_actor actor;
    ecs_spawner sp;
} world;

static void world_init(world *w)
{
    memset(w, 0, sizeof *w);
    ecs_entity_manager_init(&w->em);
    CHECK(t_actor_init(&w->actor, ECS_LOOKUP_DENSE) == ECS_OK);
    ecs_spawner_init(&w->sp);
    CHECK(ecs_spawner_register(&w->sp, "actor", ecs_manager_spawn, ecs_manager_unspawn, ECS_RESOURCE_ACTOR_SIZE,
                               &w->actor.core, NULL) == ECS_OK);
}

static void world_free(world *w)
{
    ecs_spawner_free(&w->sp);
    t_actor_free(&w->actor);
    ecs_entity_manager_free(&w->em);
}

/* What a refused spawn must leave as it was. */
typedef struct snapshot {
    unsigned long alloc_calls;
    uint32_t max_index, num_free, count, actors, steps_capacity, entities_capacity;
} snapshot;

static snapshot take(const world *w)
{
    snapshot s;
    s.alloc_calls = alloc_calls;
    s.max_index = w->em.max_index;
    s.num_free = w->em.num_free;
    s.count = ecs_entity_count(&w->em);
    s.actors = t_actor_count(&w->actor);
    s.steps_capacity = w->sp.steps_capacity;
    s.entities_capacity = w->sp.entities_capacity;
    return s;
}

static int unchanged(const world *w, snapshot s)
{
    snapshot now = take(w);
    return now.alloc_calls == s.alloc_calls && now.max_index == s.max_index && now.num_free == s.num_free &&
           now.count == s.count && now.actors == s.actors && now.steps_capacity == s.steps_capacity &&
           now.entities_capacity == s.entities_capacity;
}

static void compile_or_fail(const char *json, ecs_compiler_output *out)
{
    ecs_compiler c;
    ecs_error err;
    ecs_compiler_init(&c);
    CHECK(ecs_compiler_register_standard(&c, &err) == ECS_OK);
    CHECK_MSG(ecs_compiler_compile(&c, json, strlen(json), 0, out, &err) == ECS_OK, "%s", err.message);
    ecs_compiler_free(&c);
}

/* one entity with an actor */
static const char *one_json = "{\"entities\": [{\"components\": [{\"type\": \"actor\", \"mass\": 3}]}]}";
/* four entities: an actor with three children */
static const char *four_json = "{\"entities\": [{\"components\": [{\"type\": \"actor\"}], "
                               "\"children\": [{}, {}, {}]}]}";

/* An empty manager: the whole index space and no more. */
static void test_empty_manager(void)
{
    world w;
    ecs_compiler_output one, four;
    ecs_error err;
    snapshot s;
    ecs_result r;
    ecs_entity *table = (ecs_entity *)malloc((SPACE + 1u) * sizeof *table);
    uint32_t k, sentinel_kept;
    compile_or_fail(one_json, &one);
    compile_or_fail(four_json, &four);
    CHECK(table != NULL);
    if (!table || !one.blob || !four.blob) return;
    world_init(&w);

    /* 0xFFFFFFFF copies of one entity: 16 GiB of entity table on 64-bit, more
       than a 32-bit size_t holds; refused with no allocation at all */
    s = take(&w);
    r = ecs_spawner_spawn_copies(&w.sp, &w.em, one.blob, one.size, 0xFFFFFFFFu, NULL, &err);
    CHECK_MSG(r == ECS_ERROR_INDICES_EXHAUSTED, "%s: %s", ecs_result_text(r), err.message);
    CHECK_MSG(unchanged(&w, s), "%lu allocations, the largest %lu bytes", alloc_calls - s.alloc_calls,
              (unsigned long)alloc_largest);
    CHECK_MSG(has(err.message, "4294967295 copies of 1 entities") && has(err.message, "4095"), "%s", err.message);
    CHECK(ecs_spawner_spawn_verified(&w.sp, &w.em, one.blob, 0xFFFFFFFFu, NULL, &err) ==
          ECS_ERROR_INDICES_EXHAUSTED);
    CHECK(unchanged(&w, s));

    /* one past the index space, spawner table or caller's table */
    CHECK(ecs_spawner_spawn_copies(&w.sp, &w.em, one.blob, one.size, SPACE + 1u, NULL, &err) ==
          ECS_ERROR_INDICES_EXHAUSTED);
    CHECK(unchanged(&w, s));
    for (k = 0; k <= SPACE; ++k) table[k].id = 0xABABABABu;
    CHECK(ecs_spawner_spawn_copies(&w.sp, &w.em, four.blob, four.size, 1024u, table, &err) ==
          ECS_ERROR_INDICES_EXHAUSTED); /* 4096 entities */
    CHECK(unchanged(&w, s));
    for (k = 0, sentinel_kept = 0; k <= SPACE; ++k) sentinel_kept += table[k].id == 0xABABABABu;
    CHECK_MSG(sentinel_kept == SPACE + 1u, "%u of %u table entries written", (unsigned)(SPACE + 1u - sentinel_kept),
              (unsigned)(SPACE + 1u));

    /* a product past 2^32 stays an invalid argument, also with no allocation */
    CHECK(ecs_spawner_spawn_copies(&w.sp, &w.em, four.blob, four.size, 0x40000000u, NULL, &err) ==
          ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_spawner_spawn_copies(&w.sp, &w.em, four.blob, four.size, 0xFFFFFFFFu, table, &err) ==
          ECS_ERROR_INVALID_ARGUMENT);
    CHECK(unchanged(&w, s));

    /* exactly the index space: spawns */
    CHECK_MSG(ecs_spawner_spawn_copies(&w.sp, &w.em, one.blob, one.size, SPACE, table, &err) == ECS_OK, "%s",
              err.message);
    CHECK(ecs_entity_count(&w.em) == SPACE && t_actor_count(&w.actor) == SPACE);
    CHECK(ecs_entity_alive(&w.em, table[0]) && ecs_entity_alive(&w.em, table[SPACE - 1u]));
    (void)t_actor_reserve(&w.actor, 0);
    {
        ecs_instance i = t_actor_lookup(&w.actor, table[SPACE - 1u]);
        CHECK(!ecs_instance_is_nil(i) && w.actor.mass[i.i] == 3.0f);
    }
    /* full: even one more entity is refused up front */
    s = take(&w);
    CHECK(ecs_spawner_spawn_copies(&w.sp, &w.em, one.blob, one.size, 1, NULL, &err) == ECS_ERROR_INDICES_EXHAUSTED);
    CHECK(unchanged(&w, s));
    CHECK(ecs_spawner_unspawn(&w.sp, &w.em, one.blob, SPACE, table) == SPACE);
    CHECK(ecs_entity_count(&w.em) == 0 && t_actor_count(&w.actor) == 0);

    world_free(&w);
    ecs_compiler_output_free(&one);
    ecs_compiler_output_free(&four);
    free(table);
}

/* A manager whose fresh indices are used up: what is left are the queued
   indices, and the spawner's limit is the very one ecs_entity_create_many
   applies (one fewer copy spawns, one more is refused before any work). */
static void test_partly_used_manager(void)
{
    world w;
    ecs_compiler_output four;
    ecs_error err;
    snapshot s;
    ecs_entity *all = (ecs_entity *)malloc(SPACE * sizeof *all), got[100];
    compile_or_fail(four_json, &four);
    CHECK(all != NULL);
    if (!all || !four.blob) return;
    world_init(&w);
    CHECK(ecs_entity_create_many(&w.em, SPACE, all) == ECS_OK);
    CHECK(ecs_entity_destroy_many(&w.em, 100, all) == 100);
    CHECK(w.em.max_index == SPACE && w.em.num_free == 100);

    s = take(&w);
    CHECK(ecs_spawner_spawn_copies(&w.sp, &w.em, four.blob, four.size, 26, NULL, &err) ==
          ECS_ERROR_INDICES_EXHAUSTED); /* 104 > 100 */
    CHECK(unchanged(&w, s));
    CHECK_MSG(has(err.message, "100 indices left"), "%s", err.message);
    CHECK_MSG(ecs_spawner_spawn_copies(&w.sp, &w.em, four.blob, four.size, 25, got, &err) == ECS_OK, "%s",
              err.message);
    CHECK(ecs_entity_count(&w.em) == SPACE && t_actor_count(&w.actor) == 25);
    CHECK(ecs_spawner_unspawn(&w.sp, &w.em, four.blob, 25, got) == 100);
    CHECK(ecs_entity_count(&w.em) == SPACE - 100u && t_actor_count(&w.actor) == 0);
    world_free(&w);
    ecs_compiler_output_free(&four);
    free(all);
}

/* unspawn with a copy count no spawn can have made: nothing happens (the
   product used to wrap, and the unspawn loop ran past the caller's table) */
static void test_unspawn_impossible_copies(void)
{
    world w;
    ecs_compiler_output one, four;
    ecs_error err;
    ecs_entity ents[4];
    compile_or_fail(one_json, &one);
    compile_or_fail(four_json, &four);
    if (!one.blob || !four.blob) return;
    world_init(&w);
    CHECK(ecs_spawner_spawn(&w.sp, &w.em, four.blob, four.size, ents, &err) == ECS_OK);
    CHECK(ecs_spawner_unspawn(&w.sp, &w.em, four.blob, 0x40000001u, ents) == 0); /* 4 * that wraps to 4 */
    CHECK(ecs_spawner_unspawn(&w.sp, &w.em, one.blob, 0xFFFFFFFFu, ents) == 0);
    CHECK(ecs_spawner_unspawn(&w.sp, &w.em, one.blob, SPACE + 1u, ents) == 0);
    CHECK(ecs_entity_count(&w.em) == 4 && t_actor_count(&w.actor) == 1);
    CHECK(ecs_spawner_unspawn(&w.sp, &w.em, four.blob, 1, ents) == 4);
    CHECK(ecs_entity_count(&w.em) == 0 && t_actor_count(&w.actor) == 0);
    world_free(&w);
    ecs_compiler_output_free(&one);
    ecs_compiler_output_free(&four);
}

/* The growth of every array (the JSON reader's pool and values, the
   decompiled text) at sizes no test can allocate: ecs__res_grown_capacity
   (the implementation's own, visible here) never wraps. On 32-bit, doubling
   past 2^31 used to give 0, and ecs_json_parse of a text just over 2 GiB
   doubled 0 forever. The parse itself is tried with such a length: the
   allocator refuses the pool (over 1 MiB), so not one byte of the text is
   read (only its first bytes exist) and the answer comes at once. */
static void test_growth_at_the_limit(void)
{
    static const struct {
        size_t cap, needed, elem, limit;
    } cases[] = {
        {16, 0x80000001u, 1, 0xFFFFFFFFu},           /* a text just over 2 GiB */
        {0x80000000u, 0x80000001u, 1, 0xFFFFFFFFu},  /* a pool of 2 GiB, one byte more */
        {16, 0xFFFFFFFFu, 1, 0xFFFFFFFFu},
        {4096, (size_t)-1 / 2u + 2u, 1, (size_t)-1}, /* the decompiled text, past half the address space */
        {16, 0x08000001u, 48, 0xFFFFFFFFu},          /* JSON values of 48 bytes */
        {1u << 20, 0x7FFFFFFFu, 16, 0xFFFFFFFFu},
    };
    uint32_t k;
    for (k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        size_t limit = cases[k].limit < (size_t)-1 / cases[k].elem ? cases[k].limit : (size_t)-1 / cases[k].elem;
        size_t got = ecs__res_grown_capacity(cases[k].cap, cases[k].needed, cases[k].elem, cases[k].limit);
        if (cases[k].needed > limit)
            CHECK_MSG(got == 0, "case %u: %lu", (unsigned)k, (unsigned long)got);
        else
            CHECK_MSG(got >= cases[k].needed && got <= limit, "case %u: %lu for %lu", (unsigned)k, (unsigned long)got,
                      (unsigned long)cases[k].needed);
    }
    CHECK(ecs__res_grown_capacity(16, 17, 1, 0xFFFFFFFFu) == 32); /* doubling as before */
    CHECK(ecs__res_grown_capacity(0, 5, 4, 0xFFFFFFFFu) == 16);
    {
        static const char text[] = "[1, 2, 3]";
        ecs_json_doc doc;
        ecs_error err;
        ecs_result r;
        size_t largest = alloc_largest; /* this one request is meant to be refused */
        memset(&doc, 0, sizeof doc);
        r = ecs_json_parse(&doc, text, 0x80000001u, &err);
        CHECK_MSG(r == ECS_ERROR_OUT_OF_MEMORY, "%s: %s", ecs_result_name(r), err.message);
        CHECK(alloc_largest == 0xFFFFFFFFu); /* the pool at the 4 GiB limit, not a wrapped size */
        alloc_largest = largest;
        CHECK(ecs_json_parse(&doc, text, 0xFFFFFFF0u, &err) == ECS_ERROR_INVALID_ARGUMENT);
        CHECK(ecs_json_parse(&doc, text, sizeof text - 1u, &err) == ECS_OK && doc.num_values == 4);
        ecs_json_doc_free(&doc);
    }
}

/* A names block whose counts its bytes cannot hold (48 bytes of blob: one
   entity, a name count of 1 and a path count of 0xFFFFFFFF, whose sum
   wrapped to 0 so that nothing was checked and about 86 GB were asked for;
   on i386 the size itself wrapped). Refused as corrupt before anything is
   allocated, by the reader and the decompiler. */
static void test_names_block_counts(void)
{
    static const struct {
        uint32_t names, paths, size;
    } cases[] = {
        {1, 0xFFFFFFFFu, 4},  /* the sum wraps to 0 */
        {2, 0xFFFFFFFEu, 4},  /* to 0 with two names */
        {1, 0xFFFFFFFFu, 12}, /* to 0, with bytes for the name */
        {1, 1000000u, 12},    /* no wrap, just far more than the bytes */
        {1, 2, 12},           /* one 4-byte length short */
    };
    uint32_t k;
    ecs_compiler c;
    ecs_compiler_init(&c);
    for (k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        uint32_t words[32], at = 0, j, ne = cases[k].names;
        ecs_resource_names names;
        ecs_decompile_output out;
        ecs_error err;
        ecs_result r;
        unsigned long calls = alloc_calls;
        memcpy(words, "ECSR", 4);
        words[1] = 1, words[2] = ECS_RESOURCE_BYTE_ORDER_MARK, words[4] = ne, words[5] = 1;
        at = 6;
        for (j = 0; j < ne; ++j) words[at++] = j ? j - 1u : ECS_RESOURCE_ROOT;
        words[at++] = ECS_RESOURCE_NAMES_ID, words[at++] = cases[k].names, words[at++] = cases[k].size;
        for (j = 0; j < cases[k].names; ++j) words[at++] = j;
        words[at++] = cases[k].paths;
        for (j = 4; j < cases[k].size; j += 4) words[at++] = 1u; /* lengths of 1 ... */
        words[3] = at * 4u;
        CHECK_MSG(ecs_resource_verify(words, at * 4u, &err) == ECS_OK, "%s", err.message);
        r = ecs_resource_names_read(words, at * 4u, &names, &err);
        CHECK_MSG(r == ECS_ERROR_CORRUPT_RESOURCE && strstr(err.message, "names block") != NULL, "case %u: %s: %s",
                  (unsigned)k, ecs_result_name(r), err.message);
        CHECK_MSG(alloc_calls == calls, "case %u: %lu allocations", (unsigned)k, alloc_calls - calls);
        r = ecs_compiler_decompile(&c, words, at * 4u, 0, &out, &err);
        CHECK_MSG(r == ECS_ERROR_CORRUPT_RESOURCE, "case %u: %s: %s", (unsigned)k, ecs_result_name(r), err.message);
        if (r == ECS_OK) ecs_decompile_output_free(&out);
        if (r == ECS_OK) ecs_resource_names_free(&names);
    }
    ecs_compiler_free(&c);
}

int main(void)
{
    test_empty_manager();
    test_partly_used_manager();
    test_unspawn_impossible_copies();
    test_growth_at_the_limit();
    test_names_block_counts();
    CHECK_MSG(alloc_largest <= ALLOC_REFUSE_ABOVE, "largest allocation request: %lu bytes",
              (unsigned long)alloc_largest);
    return test_report("test_resource_limits");
}
