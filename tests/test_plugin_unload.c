/* tests/test_plugin_unload.c - unloads and reloads asked for from inside a
   plugin's own code (issue 19, items 1 and 10), and what ecs_plugin_poll
   says about a library file a build is still writing. The fixture
   tests/plugins/hooked.c calls back into this test from its tick, its
   shutdown and its compile function; the test then does what an engine call made by the plugin would
   (ecs_plugin_unload of itself or of another plugin, ecs_plugin_reload).
   Run from the repository root (tests/run.sh does). */
#define _FILE_OFFSET_BITS 64 /* readdir in a 32-bit build (tests/plugins/harness.h) */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_PLUGIN_IMPLEMENTATION
#include "ecs_plugin.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"

#include "test.h"
#include "plugins/fixture.h"
#include "plugins/harness.h"

enum action { DO_NOTHING, UNLOAD_SELF, UNLOAD_OTHER, RELOAD_SELF };

typedef struct hook_log {
    ecs_plugin_registry *reg;
    ecs_plugin handle[4];      /* by HOOKED_ID */
    int on_tick[4], on_shutdown[4], on_compile[4]; /* enum action */
    int other[4];              /* the id UNLOAD_OTHER unloads */
    int ticks[4], shutdowns[4], compiles[4];
    ecs_result result[4];      /* of the last action */
    ecs_error err;
} hook_log;

static void hook_call(void *ctx, int id, int what)
{
    hook_log *log = (hook_log *)ctx;
    int action = what == FIXTURE_HOOK_TICK       ? log->on_tick[id]
                 : what == FIXTURE_HOOK_SHUTDOWN ? log->on_shutdown[id]
                                                 : log->on_compile[id];
    if (what == FIXTURE_HOOK_TICK) log->ticks[id]++;
    else if (what == FIXTURE_HOOK_SHUTDOWN) log->shutdowns[id]++;
    else log->compiles[id]++;
    if (action == UNLOAD_SELF) log->result[id] = ecs_plugin_unload(log->reg, log->handle[id]);
    if (action == UNLOAD_OTHER) log->result[id] = ecs_plugin_unload(log->reg, log->handle[log->other[id]]);
    if (action == RELOAD_SELF) log->result[id] = ecs_plugin_reload(log->reg, log->handle[id], &log->err);
}

/* A registry with the hook API and the plugins 1..n loaded, in that order. */
static int start(hook_log *log, int n)
{
    fixture_hook_api_v0 api;
    ecs_error err;
    int id;
    memset(log, 0, sizeof *log);
    log->reg = new_registry(NULL);
    if (!log->reg) return 0;
    api.ctx = log;
    api.call = hook_call;
    CHECK(ecs_plugin_publish(log->reg, FIXTURE_HOOK_API, 0, &api, sizeof api, &err) == ECS_OK);
    for (id = 1; id <= n; ++id) {
        char name[32];
        snprintf(name, sizeof name, "hooked%d.so", id);
        CHECK_MSG(ecs_plugin_load(log->reg, build_path(name), &log->handle[id], &err) == ECS_OK, "%s", err.message);
    }
    return (int)ecs_plugin_count(log->reg) == n;
}

static void stop(hook_log *log)
{
    ecs_plugin_registry_destroy(log->reg);
    CHECK(count_copies() == 0);
}

/* Item 1: a plugin unloads itself from its tick, and again from its
   shutdown: the unload waits until the tick returns, runs once. */
static void test_unload_self(void)
{
    hook_log log;
    if (start(&log, 1)) {
        log.on_tick[1] = UNLOAD_SELF;
        log.on_shutdown[1] = UNLOAD_SELF;
        ecs_plugin_tick(log.reg, 0.1f);
        CHECK(log.result[1] == ECS_OK && log.ticks[1] == 1 && log.shutdowns[1] == 1);
        CHECK(ecs_plugin_count(log.reg) == 0);
        CHECK(ecs_plugin_unload(log.reg, log.handle[1]) == ECS_ERROR_NOT_FOUND); /* done: the handle is stale */
        ecs_plugin_tick(log.reg, 0.1f);
        CHECK(log.ticks[1] == 1 && log.shutdowns[1] == 1);
    }
    stop(&log);
}

/* Item 1: a plugin's shutdown (the engine unloads it) unloads itself again,
   and another plugin, which goes at once. */
static void test_unload_from_shutdown(void)
{
    hook_log log;
    if (start(&log, 3)) {
        log.on_shutdown[1] = UNLOAD_OTHER;
        log.other[1] = 2;
        log.on_shutdown[2] = UNLOAD_SELF;
        CHECK(ecs_plugin_unload(log.reg, log.handle[1]) == ECS_OK);
        CHECK(log.result[1] == ECS_OK && log.result[2] == ECS_OK);
        CHECK(log.shutdowns[1] == 1 && log.shutdowns[2] == 1 && log.shutdowns[3] == 0);
        CHECK(ecs_plugin_count(log.reg) == 1);
        ecs_plugin_tick(log.reg, 0.1f);
        CHECK(log.ticks[1] == 0 && log.ticks[2] == 0 && log.ticks[3] == 1);
    }
    stop(&log);
}

/* Item 10: plugin 2's tick unloads plugin 1 (ticked before it): plugin 3
   still ticks in the same frame; later, plugin 3 unloads plugin 2 (which
   is done at once: plugin 2 is not running). */
static void test_tick_after_unload(void)
{
    hook_log log;
    if (start(&log, 3)) {
        log.on_tick[2] = UNLOAD_OTHER;
        log.other[2] = 1;
        ecs_plugin_tick(log.reg, 0.1f);
        CHECK(log.result[2] == ECS_OK && log.shutdowns[1] == 1);
        CHECK_MSG(log.ticks[1] == 1 && log.ticks[2] == 1 && log.ticks[3] == 1, "ticks %d %d %d", log.ticks[1],
                  log.ticks[2], log.ticks[3]);
        CHECK(ecs_plugin_count(log.reg) == 2);
        log.on_tick[2] = DO_NOTHING;
        log.on_tick[3] = UNLOAD_OTHER;
        log.other[3] = 2;
        ecs_plugin_tick(log.reg, 0.1f);
        CHECK(log.ticks[2] == 2 && log.ticks[3] == 2 && log.shutdowns[2] == 1);
        log.on_tick[3] = DO_NOTHING;
        ecs_plugin_tick(log.reg, 0.1f);
        CHECK(log.ticks[2] == 2 && log.ticks[3] == 3 && ecs_plugin_count(log.reg) == 1);
    }
    stop(&log);
}

/* Item 1 from a compile function (the engine calls it, in the middle of
   ecs_compiler_compile): the unload waits for the next ecs_plugin_tick, so
   the compile finishes with the plugin's code and type in place. */
static void test_unload_from_compile(void)
{
    hook_log log;
    ecs_compiler compiler;
    ecs_compiler_output out;
    ecs_error err;
    const char *json = "{\"entities\": [{\"components\": [{\"type\": \"hooked1\"}]}]}";
    ecs_compiler_init(&compiler);
    if (start(&log, 0)) {
        CHECK(ecs_plugin_publish_resources(log.reg, &compiler, NULL, &err) == ECS_OK);
        CHECK_MSG(ecs_plugin_load(log.reg, build_path("hooked1.so"), &log.handle[1], &err) == ECS_OK, "%s",
                  err.message);
        log.on_compile[1] = UNLOAD_SELF;
        CHECK_MSG(ecs_compiler_compile(&compiler, json, strlen(json), 0, &out, &err) == ECS_OK, "%s", err.message);
        if (err.code == ECS_OK) ecs_compiler_output_free(&out);
        CHECK(log.compiles[1] == 1 && log.result[1] == ECS_OK);
        CHECK(ecs_plugin_count(log.reg) == 1 && compiler.num_types == 1); /* not yet */
        ecs_plugin_tick(log.reg, 0.1f);
        CHECK(ecs_plugin_count(log.reg) == 0 && log.ticks[1] == 0 && log.shutdowns[1] == 1);
        CHECK(compiler.num_types == 0);
    }
    stop(&log);
    ecs_compiler_free(&compiler);
}

/* A reload asked from the plugin's own tick would close the code that runs:
   refused, the plugin goes on. */
static void test_reload_self(void)
{
    hook_log log;
    if (start(&log, 1)) {
        log.on_tick[1] = RELOAD_SELF;
        ecs_plugin_tick(log.reg, 0.1f);
        CHECK(log.result[1] == ECS_ERROR_INVALID_ARGUMENT && strstr(log.err.message, "is running") != NULL);
        log.on_tick[1] = DO_NOTHING;
        ecs_plugin_tick(log.reg, 0.1f);
        CHECK(log.ticks[1] == 2 && ecs_plugin_count(log.reg) == 1);
        CHECK(ecs_plugin_reload(log.reg, log.handle[1], &log.err) == ECS_OK); /* between calls: fine */
    }
    stop(&log);
}

/* Polls until the result is not ECS_OK or err carries a message. */
static ecs_result poll_until_said(ecs_plugin_registry *reg, uint32_t *reloaded, ecs_error *err)
{
    ecs_result res = ECS_OK;
    int k;
    for (k = 0; k < 4 && res == ECS_OK; ++k) {
        res = ecs_plugin_poll(reg, reloaded, err);
        if (err->message[0] || *reloaded) break;
    }
    return res;
}

/* A plain "cc -o plugin.so" empties the file before writing it: poll calls
   that "not ready yet", not an error; a finished file that is no library is
   an error; the finished build reloads. */
static void test_poll_half_written(void)
{
    hook_log log;
    uint32_t reloaded = 7;
    if (start(&log, 1)) {
        CHECK(write_file(build_path("hooked1.so"), ""));
        CHECK(poll_until_said(log.reg, &reloaded, &log.err) == ECS_OK);
        CHECK_MSG(reloaded == 0 && log.err.code == ECS_OK && strstr(log.err.message, "not ready yet") != NULL &&
                      strstr(log.err.message, "empty") != NULL,
                  "%s", log.err.message);
        CHECK(write_file(build_path("hooked1.so"), "not a library at all"));
        CHECK(poll_until_said(log.reg, &reloaded, &log.err) == ECS_ERROR_PLUGIN_LOAD);
        CHECK(log.err.code == ECS_ERROR_PLUGIN_LOAD && strstr(log.err.message, "not a shared library") != NULL);
        CHECK(build_plugin("tests/plugins/hooked.c", "hooked1.so", "-DHOOKED_ID=1"));
        CHECK(poll_until_said(log.reg, &reloaded, &log.err) == ECS_OK && reloaded == 1);
        ecs_plugin_tick(log.reg, 0.1f);
        CHECK(log.ticks[1] == 1);
    }
    stop(&log);
}

int main(void)
{
    env_init();
    CHECK(build_plugin("tests/plugins/hooked.c", "hooked1.so", "-DHOOKED_ID=1"));
    CHECK(build_plugin("tests/plugins/hooked.c", "hooked2.so", "-DHOOKED_ID=2"));
    CHECK(build_plugin("tests/plugins/hooked.c", "hooked3.so", "-DHOOKED_ID=3"));
    test_unload_self();
    test_unload_from_shutdown();
    test_tick_after_unload();
    test_unload_from_compile();
    test_reload_self();
    test_poll_half_written();
    return test_report("test_plugin_unload");
}
