/* tests/plugins/console_cmd.c - a plugin that adds console commands through
   ECS_API_CONSOLE (ecs_console.h), built by tests/test_console_plugin.c
   with these defines:
     CMD_BUILD=n      the build number plugin.build answers (default 1);
                      build 1 also adds plugin.only1, build 2 plugin.new2
     CMD_FAIL_INIT    init adds its commands, then fails
     CMD_REMOVE_NEW2  init first removes plugin.new2 (a command renamed
                      in this build), and checks a second remove of it
                      answers NOT_FOUND
     CMD_CLASH        init also adds "help", which the engine has
   plugin.add_late adds plugin.late from inside a handler (it belongs to
   this plugin too). */
#include "ecs_plugin.h"
#include "ecs_console.h"
#include <stdlib.h>

#ifndef CMD_BUILD
#define CMD_BUILD 1
#endif

typedef struct cmd_state {
    const ecs_console_api_v0 *con;
    int calls; /* kept across reloads: the state is handed over */
} cmd_state;

static ecs_result cmd_build(void *user, ecs_console_call *call)
{
    cmd_state *s = (cmd_state *)user;
    s->calls++;
    return s->con->result_printf(call, "{\"build\": %d, \"calls\": %d}", CMD_BUILD, s->calls);
}

static ecs_result cmd_add_late(void *user, ecs_console_call *call)
{
    cmd_state *s = (cmd_state *)user;
    ecs_console_command_desc d;
    ecs_error err;
    d.name = "plugin.late";
    d.help = "added by a handler";
    d.args = NULL;
    d.fn = cmd_build;
    d.user = s;
    if (s->con->add_command(s->con->console, &d, &err) != ECS_OK) return s->con->fail(call, err.code, "%s", err.message);
    return s->con->result_json(call, "true", 4);
}

static ecs_result cmd_init(ecs_plugin_get_api_fn get_engine_api, void **state, ecs_error *err)
{
    cmd_state *s = (cmd_state *)*state;
    ecs_console_command_desc d[5];
    ecs_error e;
    int n = 0, k;
    int fresh = s == NULL;
    if (fresh && !(s = (cmd_state *)calloc(1, sizeof *s))) return ecs_plugin_set_error(err, ECS_ERROR_OUT_OF_MEMORY, "no memory");
    s->con = (const ecs_console_api_v0 *)get_engine_api(ECS_API_CONSOLE, 0);
    if (!s->con) {
        if (fresh) free(s);
        return ecs_plugin_set_error(err, ECS_ERROR_API_VERSION, "no console API");
    }
#ifdef CMD_REMOVE_NEW2
    if (s->con->remove_command(s->con->console, "plugin.new2") == ECS_OK &&
        s->con->remove_command(s->con->console, "plugin.new2") != ECS_ERROR_NOT_FOUND) {
        if (fresh) free(s);
        return ecs_plugin_set_error(err, ECS_ERROR_INVALID_ARGUMENT, "plugin.new2 removed twice");
    }
#endif
    d[n].name = "plugin.build", d[n].help = "the plugin's build number", d[n].args = NULL, d[n].fn = cmd_build, ++n;
    d[n].name = "plugin.add_late", d[n].help = "adds plugin.late", d[n].args = NULL, d[n].fn = cmd_add_late, ++n;
#if CMD_BUILD == 1
    d[n].name = "plugin.only1", d[n].help = "only build 1 has it", d[n].args = NULL, d[n].fn = cmd_build, ++n;
#endif
#if CMD_BUILD == 2
    d[n].name = "plugin.new2", d[n].help = "only build 2 has it", d[n].args = NULL, d[n].fn = cmd_build, ++n;
#endif
#ifdef CMD_CLASH
    d[n].name = "help", d[n].help = "mine", d[n].args = NULL, d[n].fn = cmd_build, ++n;
#endif
    for (k = 0; k < n; ++k) {
        d[k].user = s;
        if (s->con->add_command(s->con->console, &d[k], &e) != ECS_OK) {
            if (fresh) free(s);
            return ecs_plugin_set_error(err, e.code, "%s", e.message);
        }
    }
#ifdef CMD_FAIL_INIT
    if (fresh) free(s);
    return ecs_plugin_set_error(err, ECS_ERROR_INVALID_ARGUMENT, "this build fails on purpose");
#else
    *state = s;
    return ECS_OK;
#endif
}

static void cmd_shutdown(void *state) { free(state); }

ECS_PLUGIN_EXPORT void *get_plugin_api(unsigned api, unsigned version)
{
    static ecs_plugin_api_v0 plugin;
    if (api != ECS_API_PLUGIN || version != 0) return NULL;
    plugin.name = "console_cmd";
    plugin.init = cmd_init;
    plugin.shutdown = cmd_shutdown;
    plugin.tick = NULL;
    return &plugin;
}
