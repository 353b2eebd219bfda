/* tests/test_console_plugin.c - console commands from a plugin
   (ECS_API_CONSOLE, tracked by the registry): a plugin adds commands; a
   hot reload's new build answers them, drops the ones it no longer adds
   and adds its new ones; a reload that fails keeps the old build's; the
   unload removes them all (a call is then an error naming the command); a
   command added from inside a handler belongs to the plugin; a name the
   engine has is refused and the load fails cleanly; the console and the
   registry destroyed in either order (ASan: nothing leaks or dangles).
   The fixture is tests/plugins/console_cmd.c, built here as
   tests/test_plugin.c builds its own (tests/plugins/harness.h). */
#define _FILE_OFFSET_BITS 64 /* readdir in a 32-bit build (tests/plugins/harness.h) */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#define ECS_SNAPSHOT_IMPLEMENTATION
#include "ecs_snapshot.h"
#define ECS_PLUGIN_IMPLEMENTATION
#include "ecs_plugin.h" /* before ecs_console.h: ecs_console_publish */
#define ECS_CONSOLE_IMPLEMENTATION
#include "ecs_console.h"

#include "test.h"
#include "plugins/harness.h"
#include "console_client.h"

/* The reply to command name (id 1), kept in *m. */
static int call(ecs_console *c, const char *name, message *m)
{
    char json[200];
    snprintf(json, sizeof json, "{\"type\": \"command\", \"id\": 1, \"command\": \"%s\"}", name);
    return feed_request(c, json, m);
}

/* Whether command name answers ok (and, build > 0, from that build). */
static int answers(ecs_console *c, const char *name, int build)
{
    message m;
    int ok = call(c, name, &m) && reply_ok(m.json, 1);
    if (ok && build > 0) {
        char want[40];
        snprintf(want, sizeof want, "\"build\": %d,", build);
        ok = strstr(m.json, want) != NULL;
    }
    message_free(&m);
    return ok;
}

/* Whether calling name is an error naming it as unknown. */
static int unknown(ecs_console *c, const char *name)
{
    message m;
    char want[100];
    int ok;
    snprintf(want, sizeof want, "unknown command '%s'", name);
    ok = call(c, name, &m) && strstr(reply_error(m.json), want) != NULL;
    message_free(&m);
    return ok;
}

static ecs_console *new_console(void)
{
    ecs_console_desc d;
    ecs_error err;
    ecs_console *c;
    memset(&d, 0, sizeof d);
    d.port = -1;
    c = ecs_console_create(&d, &err);
    if (!c) fprintf(stderr, "console: %s\n", err.message);
    return c;
}

static void test_reload_and_unload(void)
{
    ecs_plugin_registry *reg = new_registry(NULL);
    ecs_console *c = new_console();
    const char *path = build_path("console_cmd.so");
    ecs_plugin p;
    ecs_error err;
    message m;
    uint32_t base;
    if (!reg || !c) return;
    base = ecs_plugin_registration_count(reg);
    CHECK(ecs_console_publish(c, reg, &err) == ECS_OK);
    CHECK(ecs_console_publish(c, reg, &err) == ECS_ERROR_ALREADY_EXISTS);
    CHECK(ecs_plugin_find_api(reg, ECS_API_CONSOLE, 0) != NULL);
    CHECK(build_plugin("tests/plugins/console_cmd.c", "console_cmd.so", "-DCMD_BUILD=1"));
    CHECK_MSG(ecs_plugin_load(reg, path, &p, &err) == ECS_OK, "%s", err.message);
    CHECK(answers(c, "plugin.build", 1) && answers(c, "plugin.only1", 1) && unknown(c, "plugin.new2"));
    CHECK(call(c, "help", &m) && strstr(m.json, "\"name\": \"plugin.build\", \"help\": \"the plugin's build number\""));
    message_free(&m);
    /* a command added by a handler is the plugin's */
    CHECK(answers(c, "plugin.add_late", 0) && answers(c, "plugin.late", 1));
    /* hot reload: the new build answers; build 1's own command goes, build 2's comes */
    CHECK(build_plugin("tests/plugins/console_cmd.c", "console_cmd.so", "-DCMD_BUILD=2"));
    CHECK_MSG(ecs_plugin_reload(reg, p, &err) == ECS_OK, "%s", err.message);
    CHECK(answers(c, "plugin.build", 2) && answers(c, "plugin.new2", 2) && unknown(c, "plugin.only1"));
    CHECK(unknown(c, "plugin.late")); /* build 2 did not add it again */
    CHECK(call(c, "plugin.build", &m) && strstr(m.json, "\"calls\": ")); /* the state came across */
    message_free(&m);
    /* a reload whose init fails: build 2's commands stay and answer */
    CHECK(build_plugin("tests/plugins/console_cmd.c", "console_cmd.so", "-DCMD_BUILD=3 -DCMD_FAIL_INIT"));
    CHECK(ecs_plugin_reload(reg, p, &err) == ECS_ERROR_PLUGIN_INIT && strstr(err.message, "fails on purpose"));
    CHECK(answers(c, "plugin.build", 2) && answers(c, "plugin.new2", 2));
    /* a failing reload whose init removed build 2's plugin.new2 first: it stays and answers */
    CHECK(build_plugin("tests/plugins/console_cmd.c", "console_cmd.so", "-DCMD_BUILD=3 -DCMD_FAIL_INIT -DCMD_REMOVE_NEW2"));
    CHECK(ecs_plugin_reload(reg, p, &err) == ECS_ERROR_PLUGIN_INIT && strstr(err.message, "fails on purpose"));
    CHECK(answers(c, "plugin.build", 2) && answers(c, "plugin.new2", 2));
    /* removed then added again by a build that succeeds: the new build answers it */
    CHECK(build_plugin("tests/plugins/console_cmd.c", "console_cmd.so", "-DCMD_BUILD=2 -DCMD_REMOVE_NEW2"));
    CHECK_MSG(ecs_plugin_reload(reg, p, &err) == ECS_OK, "%s", err.message);
    CHECK(answers(c, "plugin.build", 2) && answers(c, "plugin.new2", 2));
    /* removed by a build that succeeds without it: gone */
    CHECK(build_plugin("tests/plugins/console_cmd.c", "console_cmd.so", "-DCMD_BUILD=3 -DCMD_REMOVE_NEW2"));
    CHECK_MSG(ecs_plugin_reload(reg, p, &err) == ECS_OK, "%s", err.message);
    CHECK(answers(c, "plugin.build", 3) && unknown(c, "plugin.new2"));
    /* the unload: every command gone, a call names it */
    CHECK(ecs_plugin_unload(reg, p) == ECS_OK);
    CHECK(unknown(c, "plugin.build") && unknown(c, "plugin.new2") && unknown(c, "plugin.add_late"));
    CHECK(answers(c, "help", 0));
    CHECK(ecs_plugin_registration_count(reg) == base + 2); /* the API and the console's own entry */
    /* a plugin that adds a name the engine has: refused, the load fails, nothing is left */
    CHECK(build_plugin("tests/plugins/console_cmd.c", "console_clash.so", "-DCMD_CLASH"));
    CHECK(ecs_plugin_load(reg, build_path("console_clash.so"), &p, &err) == ECS_ERROR_PLUGIN_INIT);
    CHECK(strstr(err.message, "console command 'help' is already registered by the engine"));
    CHECK(unknown(c, "plugin.build") && ecs_plugin_registration_count(reg) == base + 2);
    /* loaded again, then the registry goes first: its unload removes the commands */
    CHECK(build_plugin("tests/plugins/console_cmd.c", "console_cmd.so", "-DCMD_BUILD=1"));
    CHECK(ecs_plugin_load(reg, path, &p, &err) == ECS_OK && answers(c, "plugin.build", 1));
    ecs_plugin_registry_destroy(reg);
    CHECK(unknown(c, "plugin.build") && answers(c, "help", 0));
    ecs_console_destroy(c);
    CHECK(count_copies() == 0);
}

/* The console goes first while a plugin is loaded: it takes its commands and
   its API out of the registry, whose later unload calls nothing freed. */
static void test_console_first(void)
{
    ecs_plugin_registry *reg = new_registry(NULL);
    ecs_console *c = new_console();
    ecs_plugin p;
    ecs_error err;
    uint32_t base;
    if (!reg || !c) return;
    base = ecs_plugin_registration_count(reg);
    CHECK(ecs_console_publish(c, reg, &err) == ECS_OK);
    CHECK(ecs_plugin_load(reg, build_path("console_cmd.so"), &p, &err) == ECS_OK);
    CHECK(answers(c, "plugin.only1", 1));
    ecs_console_destroy(c);
    CHECK(ecs_plugin_find_api(reg, ECS_API_CONSOLE, 0) == NULL);
    CHECK(ecs_plugin_registration_count(reg) == base);
    CHECK(ecs_plugin_unload(reg, p) == ECS_OK);
    ecs_plugin_registry_destroy(reg);
}

int main(void)
{
    env_init();
    test_reload_and_unload();
    test_console_first();
    bytes_free(&g_feed_out);
    ecs_json_doc_free(&g_doc);
    return test_report("test_console_plugin");
}
