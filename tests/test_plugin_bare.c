/* tests/test_plugin_bare.c - ecs_plugin.h with ecs.h only (no transform or
   resource header), over a counting allocator that can be told to fail:
   every allocation of the registry is freed in every configuration (not only
   under ASan), and an allocation failing anywhere in a load or a reload
   leaves the registry as it was, with the old build running. Built with
   ECS_PLUGIN_KEEP_COPIES: a loaded copy stays on disk until its unload
   (tests/test_plugin.c covers the default, which unlinks it once loaded). */
#define _FILE_OFFSET_BITS 64 /* readdir in a 32-bit build (tests/plugins/harness.h) */
#include <stddef.h>

static long test_live;         /* allocations not yet freed */
static long test_calls;        /* ECS_REALLOC calls so far */
static long test_fail_at = -1; /* the call that fails, or -1 */

static void *test_realloc(void *p, size_t n);
static void test_free(void *p);
#define ECS_REALLOC(p, n) test_realloc(p, n)
#define ECS_FREE(p) test_free(p)

#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_PLUGIN_KEEP_COPIES
#define ECS_PLUGIN_IMPLEMENTATION
#include "ecs_plugin.h"

#include "test.h"
#include "plugins/fixture.h"
#include "plugins/harness.h"

static void *test_realloc(void *p, size_t n)
{
    void *q;
    if (test_calls++ == test_fail_at) return NULL;
    q = realloc(p, n);
    if (q && !p) ++test_live;
    return q;
}

static void test_free(void *p)
{
    if (p) --test_live;
    free(p);
}

/* Without ecs_transform.h and ecs_resource.h their APIs are not declared
   (a call does not compile), and the registry does not publish them. */
#if defined(ECS_PLUGIN_TRANSFORMS_H_INCLUDED) || defined(ECS_PLUGIN_RESOURCES_H_INCLUDED)
#error "ecs_plugin.h declared its transform or resource API without those headers"
#endif
static void test_without_other_headers(void)
{
    ecs_plugin_registry *reg = ecs_plugin_registry_create(NULL, NULL);
    CHECK(reg != NULL);
    CHECK(ecs_plugin_find_api(reg, ECS_API_TRANSFORMS, 0) == NULL);
    CHECK(ecs_plugin_find_api(reg, ECS_API_RESOURCES, 0) == NULL);
    ecs_plugin_registry_destroy(reg);
    CHECK(test_live == 0);
}

/* Loads good.so with the k-th allocation failing, for every k until a load
   makes no more calls than that: each either succeeds or fails cleanly. */
static void test_load_out_of_memory(void)
{
    ecs_entity_manager em;
    ecs_plugin_registry *reg;
    ecs_error err;
    long k, base_live, failed = 0, unclean = 0;
    uint32_t base_regs;
    int done = 0;

    ecs_entity_manager_init(&em);
    reg = new_registry(&em);
    CHECK(reg != NULL);
    if (!reg) return;
    CHECK(build_plugin("tests/plugins/good.c", "good.so", NULL));
    {   /* warm up: the registry's arrays keep the capacity they grew to */
        ecs_plugin p;
        ecs_plugin_info info;
        FILE *f;
        CHECK(ecs_plugin_load(reg, build_path("good.so"), &p, &err) == ECS_OK);
        /* ECS_PLUGIN_KEEP_COPIES: the copy is on disk while loaded */
        CHECK(count_copies() == 1 && ecs_plugin_get_info(reg, p, &info) == ECS_OK);
        f = fopen(info.loaded_path, "rb");
        CHECK(f != NULL);
        if (f) fclose(f);
        CHECK(ecs_plugin_unload(reg, p) == ECS_OK);
        CHECK(count_copies() == 0);
    }
    base_live = test_live;
    base_regs = ecs_plugin_registration_count(reg);
    for (k = 0; !done && k < 1000; ++k) {
        ecs_plugin p;
        ecs_result r;
        test_calls = 0;
        test_fail_at = k;
        r = ecs_plugin_load(reg, build_path("good.so"), &p, &err);
        test_fail_at = -1;
        done = test_calls <= k; /* the failure point was never reached */
        if (r == ECS_OK) {
            CHECK(ecs_plugin_registration_count(reg) == base_regs + 2); /* manager + API */
            CHECK(ecs_plugin_unload(reg, p) == ECS_OK);
        } else {
            ++failed;
            if (!(r == ECS_ERROR_OUT_OF_MEMORY || (r == ECS_ERROR_PLUGIN_INIT && strstr(err.message, "memory"))))
                ++unclean;
            CHECK_MSG(err.code == r && err.message[0], "k=%ld", k);
            CHECK(p.id == 0 && ecs_plugin_count(reg) == 0);
        }
        CHECK_MSG(ecs_plugin_registration_count(reg) == base_regs && test_live == base_live && count_copies() == 0,
                  "k=%ld: %s", k, ecs_result_name(r));
    }
    CHECK_MSG(done && failed == k - 1 && failed > 5, "done %d, failed %ld of %ld", done, failed, k);
    CHECK_MSG(unclean == 0, "%ld failures were not out-of-memory", unclean);
    ecs_plugin_registry_destroy(reg);
    ecs_entity_manager_free(&em);
    CHECK(test_live == 0);
}

/* Reloads with the k-th allocation failing, for every k (a reload allocates
   the copy's path, the name and the staged API copy): on failure build 1
   keeps running with its registrations; on success build 2 runs. */
static void test_reload_out_of_memory(void)
{
    ecs_entity_manager em;
    ecs_plugin_registry *reg;
    ecs_plugin p;
    ecs_plugin_info info;
    ecs_error err;
    fixture_state *st;
    long k, live_loaded, failed = 0;
    uint32_t regs_loaded;
    int done = 0;

    ecs_entity_manager_init(&em);
    reg = new_registry(&em);
    CHECK(reg != NULL);
    if (!reg) return;
    CHECK(build_plugin("tests/plugins/good.c", "good_v1.so", "-DFIXTURE_BUILD=1 -DFIXTURE_STEP=1"));
    CHECK(build_plugin("tests/plugins/good.c", "good_v2.so", "-DFIXTURE_BUILD=2 -DFIXTURE_STEP=100"));
    for (k = 0; !done && k < 1000; ++k) {
        ecs_result r;
        /* build 1 under the path, loaded; then build 2 under the same path */
        {
            char cmd[4096];
            snprintf(cmd, sizeof cmd, "cp '%s' '%s'", build_path("good_v1.so"), build_path("good_r.so"));
            CHECK(system(cmd) == 0);
            CHECK(ecs_plugin_load(reg, build_path("good_r.so"), &p, &err) == ECS_OK);
            snprintf(cmd, sizeof cmd, "cp '%s' '%s'", build_path("good_v2.so"), build_path("good_r.so"));
            CHECK(system(cmd) == 0);
        }
        regs_loaded = ecs_plugin_registration_count(reg);
        live_loaded = test_live;
        test_calls = 0;
        test_fail_at = k;
        r = ecs_plugin_reload(reg, p, &err);
        test_fail_at = -1;
        done = test_calls <= k;
        CHECK(ecs_plugin_get_info(reg, p, &info) == ECS_OK);
        st = (fixture_state *)info.state;
        ecs_plugin_tick(reg, 0.0f);
        if (r == ECS_OK) {
            CHECK(st->build == 2 && st->counter == 100 && info.reloads == 1);
        } else {
            ++failed;
            CHECK_MSG(err.code == r && err.message[0], "k=%ld", k);
            CHECK_MSG(st->build == 1 && st->counter == 1 && info.reloads == 0, "k=%ld: %s", k, err.message);
        }
        CHECK(((const fixture_good_api_v0 *)ecs_plugin_find_api(reg, FIXTURE_GOOD_API, 0))->build() == st->build);
        CHECK_MSG(ecs_plugin_registration_count(reg) == regs_loaded && test_live == live_loaded, "k=%ld", k);
        CHECK(count_copies() == 1);
        CHECK(ecs_plugin_unload(reg, p) == ECS_OK);
    }
    CHECK_MSG(done && failed == k - 1 && failed >= 3, "done %d, failed %ld of %ld", done, failed, k);
    ecs_plugin_registry_destroy(reg);
    ecs_entity_manager_free(&em);
    CHECK(test_live == 0 && count_copies() == 0);
}

int main(void)
{
    env_init();
    test_without_other_headers();
    test_load_out_of_memory();
    test_reload_out_of_memory();
    return test_report("test_plugin_bare");
}
