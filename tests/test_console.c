/* tests/test_console.c - ecs_console.h's protocol: the framing split at
   every byte and several messages in one read, bad lengths, types, UTF-8
   and JSON (error reply, then closed; other clients unaffected), HTTP
   detection, commands and scripts, log lines, back-pressure and every
   timeout (a fake clock), through the in-process connection and through
   loopback sockets; every allocation failing in turn. World commands:
   tests/test_console_world.c; plugins: tests/test_console_plugin.c. */
#include "oom_alloc.h"
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#define ECS_SNAPSHOT_IMPLEMENTATION
#include "ecs_snapshot.h"
#define ECS_CONSOLE_IMPLEMENTATION
#include "ecs_console.h"
#include "test.h"
#include "console_client.h"

static uint64_t fake_ms = 1000;
static uint64_t fake_clock(void *user)
{
    (void)user;
    return fake_ms;
}

static ecs_console *new_console(int port, uint32_t max_clients, size_t max_pending)
{
    ecs_console_desc d;
    ecs_error err;
    ecs_console *c;
    memset(&d, 0, sizeof d);
    d.port = port;
    d.max_clients = max_clients;
    d.max_pending = max_pending;
    d.max_message = 8192;
    d.clock = fake_clock;
    c = ecs_console_create(&d, &err);
    if (!c) fprintf(stderr, "console: %s\n", err.message);
    return c;
}

/* ---- test commands ---- */

/* echo: its arguments back, as they came */
static ecs_result cmd_echo(void *user, ecs_console_call *call)
{
    const ecs_json_doc *doc = ecs_console_call_doc(call);
    const ecs_json_value *v;
    (void)user;
    ecs_console_result_json(call, "{", 1);
    for (v = ecs_json_root(doc) ? ecs_json_first(doc, ecs_json_root(doc)) : NULL; v; v = ecs_json_next(doc, v)) {
        const char *key = ecs_json_key(doc, v);
        if (!key || strcmp(key, "type") == 0 || strcmp(key, "id") == 0 || strcmp(key, "command") == 0) continue;
        break;
    }
    {
        const char *names[] = {"a", "b", "c", "name"};
        size_t k;
        int first = 1;
        for (k = 0; k < 4; ++k) {
            double x;
            const char *s;
            v = ecs_console_arg(call, names[k]);
            if (!v) continue;
            ecs_console_result_printf(call, "%s\"%s\": ", first ? "" : ", ", names[k]);
            first = 0;
            if (v->type == ECS_JSON_STRING && ecs_console_arg_string(call, names[k], NULL, &s) == ECS_OK)
                ecs_console_result_string(call, s, strlen(s));
            else if (v->type == ECS_JSON_NUMBER && ecs_console_arg_f64(call, names[k], NULL, &x) == ECS_OK)
                ecs_console_result_printf(call, "%g", x);
            else
                ecs_console_result_printf(call, "\"%s\"", v->type == ECS_JSON_ARRAY ? "array" : "other");
        }
    }
    return ecs_console_result_json(call, "}", 1);
}
static ecs_result cmd_bad_json(void *user, ecs_console_call *call)
{
    (void)user;
    return ecs_console_result_json(call, "{\"open\": ", 9);
}
static ecs_result cmd_fails(void *user, ecs_console_call *call)
{
    (void)user;
    return ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "no such thing as %s", "spoons");
}
static ecs_result cmd_fails_quietly(void *user, ecs_console_call *call)
{
    (void)user;
    (void)call;
    return ECS_ERROR_CORRUPT_RESOURCE;
}
static ecs_result cmd_blob(void *user, ecs_console_call *call)
{
    static unsigned char data[256];
    uint32_t size, k;
    ecs_result r;
    (void)user;
    if ((r = ecs_console_arg_u32(call, "size", NULL, &size)) != ECS_OK) return r;
    if (size > sizeof data) size = sizeof data;
    for (k = 0; k < size; ++k) data[k] = (unsigned char)(k * 7u);
    ecs_console_result_printf(call, "{\"size\": %u}", (unsigned)size);
    return ecs_console_result_payload(call, data, size);
}
/* big: a string of `size` bytes (default 3000) */
static ecs_result cmd_big(void *user, ecs_console_call *call)
{
    static char text[100000];
    uint32_t size, fallback = 3000;
    ecs_result r;
    (void)user;
    if ((r = ecs_console_arg_u32(call, "size", &fallback, &size)) != ECS_OK) return r;
    if (size > sizeof text) size = sizeof text;
    memset(text, 'x', size);
    return ecs_console_result_string(call, text, size);
}
/* sum: a + b, positional in scripts; payload size when given one */
static ecs_result cmd_sum(void *user, ecs_console_call *call)
{
    double a, b, zero = 0;
    size_t n;
    ecs_result r;
    (void)user;
    if ((r = ecs_console_arg_f64(call, "a", NULL, &a)) != ECS_OK || (r = ecs_console_arg_f64(call, "b", &zero, &b)) != ECS_OK)
        return r;
    ecs_console_call_payload(call, &n);
    return ecs_console_result_printf(call, "{\"sum\": %g, \"payload\": %u}", a + b, (unsigned)n);
}

/* once: removes itself, and finds its console's poll and feed doing nothing */
static ecs_result cmd_once(void *user, ecs_console_call *call)
{
    ecs_console *c = (ecs_console *)user;
    int reentered = ecs_console_poll(c) != 0 || ecs_console_feed(c, "x", 1) != 0 || ecs_console_wait(c, 0) != 0;
    if (ecs_console_remove_command(c, "once") != ECS_OK) return ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "not removed");
    return ecs_console_result_printf(call, "{\"reentered\": %s}", reentered ? "true" : "false");
}

/* noisy: logs a line to every framed connection, then answers */
static ecs_result cmd_noisy(void *user, ecs_console_call *call)
{
    ecs_console_log((ecs_console *)user, ECS_CONSOLE_INFO, "noisy ran");
    return ecs_console_result_json(call, "42", 2);
}
/* swap: removes itself, adds "swapped" (likely in its slot), answers with a payload */
static ecs_result cmd_swap(void *user, ecs_console_call *call)
{
    ecs_console *c = (ecs_console *)user;
    ecs_console_command_desc d = {"swapped", "took swap's place", "a b", cmd_sum, NULL};
    if (ecs_console_remove_command(c, "swap") != ECS_OK || ecs_console_add_command(c, &d, NULL) != ECS_OK)
        return ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "not swapped");
    return ecs_console_result_payload(call, "ab", 2);
}

/* floats: v, three floats, answered as their bits in hex */
static ecs_result cmd_floats(void *user, ecs_console_call *call)
{
    float v[3] = {-1.0f, -1.0f, -1.0f};
    uint32_t bits[3];
    ecs_result r;
    (void)user;
    if ((r = ecs_console_arg_f32_array(call, "v", v, 3, NULL)) != ECS_OK) return r;
    memcpy(bits, v, sizeof bits);
    return ecs_console_result_printf(call, "[\"%08lx\", \"%08lx\", \"%08lx\"]", (unsigned long)bits[0], (unsigned long)bits[1],
                                     (unsigned long)bits[2]);
}

static void add_test_commands(ecs_console *c)
{
    ecs_console_command_desc d[] = {
        {"echo", "its arguments back", "a b c", cmd_echo, NULL},
        {"bad-json", "writes half an object", NULL, cmd_bad_json, NULL},
        {"fails", "fails with a message", NULL, cmd_fails, NULL},
        {"fails_quietly", "fails without one", NULL, cmd_fails_quietly, NULL},
        {"blob", "a binary payload of size bytes", "size", cmd_blob, NULL},
        {"big", "a long string", "size", cmd_big, NULL},
        {"sum", "a + b", "a b", cmd_sum, NULL},
        {"floats", "v's three floats as bits", "v", cmd_floats, NULL},
    };
    size_t k;
    ecs_error err;
    for (k = 0; k < sizeof d / sizeof d[0]; ++k) CHECK_MSG(ecs_console_add_command(c, &d[k], &err) == ECS_OK, "%s", err.message);
}

/* ---- the in-process connection ---- */

static void test_requests(void)
{
    ecs_console *c = new_console(-1, 0, 0);
    message m;
    CHECK(c && ecs_console_port(c) == -1);
    if (!c) return;
    add_test_commands(c);
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 3, \"command\": \"help\"}", &m) && reply_ok(m.json, 3));
    CHECK(m.type == 0 && strstr(m.json, "\"name\": \"echo\"") && strstr(m.json, "\"args\": [\"a\", \"b\", \"c\"]"));
    CHECK(strstr(m.json, "\"bad-json\"") < strstr(m.json, "\"echo\"")); /* by name */
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 4, \"command\": \"echo\", \"args\": {\"a\": 1.5, \"b\": \"x\\\"y\"}}", &m));
    CHECK_MSG(reply_ok(m.json, 4) && strstr(m.json, "\"result\": {\"a\": 1.5, \"b\": \"x\\\"y\"}"), "%s", m.json);
    message_free(&m);
    /* a request the console cannot run: an error reply naming it, the connection stays */
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 5, \"command\": \"nope\"}", &m) && g_feed_open);
    CHECK(strstr(reply_error(m.json), "unknown command 'nope'") && number_of(member(ecs_json_root(&g_doc), "id")) == 5);
    message_free(&m);
    /* a name with a NUL is not the command named by what precedes it */
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 5, \"command\": \"sum\\u0000x\", \"args\": {\"a\": 1}}",
                       &m) && g_feed_open);
    CHECK_MSG(strcmp(reply_error(m.json), "unknown command 'sum\\0x' (help lists the commands)") == 0, "%s", m.json);
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"script\", \"id\": 5, \"script\": \"sum\\u0000x 1\"}", &m) && g_feed_open);
    CHECK_MSG(strstr(reply_error(m.json), "unknown command 'sum\\0x'"), "%s", m.json);
    message_free(&m);
    CHECK(feed_request(c, "[1, 2]", &m) && g_feed_open && strstr(reply_error(m.json), "a request is a JSON object, found an array"));
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": -1, \"command\": \"help\"}", &m) && g_feed_open &&
          strstr(reply_error(m.json), "\"id\" must be a whole number"));
    CHECK(member(ecs_json_root(&g_doc), "id")->type == ECS_JSON_NULL);
    message_free(&m);
    CHECK(feed_request(c, "{\"id\": 9, \"command\": \"help\"}", &m) && strstr(reply_error(m.json), "\"type\" must be \"command\" or \"script\", found nothing"));
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"cmd\", \"id\": 9}", &m) && strstr(reply_error(m.json), "found 'cmd'"));
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 9}", &m) && strstr(reply_error(m.json), "needs \"command\""));
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"command\", \"command\": \"echo\", \"args\": [1]}", &m) &&
          strstr(reply_error(m.json), "\"args\" must be an object, found an array"));
    message_free(&m);
    /* handlers that fail, or write a result that is not JSON */
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 1, \"command\": \"fails\"}", &m) &&
          strcmp(reply_error(m.json), "fails: no such thing as spoons") == 0);
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 1, \"command\": \"fails_quietly\"}", &m) &&
          strcmp(reply_error(m.json), "fails_quietly: corrupt resource") == 0);
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 1, \"command\": \"bad-json\"}", &m) &&
          strstr(reply_error(m.json), "bad-json: its result is not JSON"));
    message_free(&m);
    /* arguments: missing, mistyped */
    CHECK(feed_request(c, "{\"type\": \"command\", \"command\": \"sum\", \"args\": {\"b\": 2}}", &m) &&
          strcmp(reply_error(m.json), "sum: argument 'a' (a number) is missing") == 0);
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"command\", \"command\": \"sum\", \"args\": {\"a\": \"2\"}}", &m) &&
          strstr(reply_error(m.json), "argument 'a': expected a finite number, found a string"));
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"command\", \"command\": \"blob\", \"args\": {\"size\": 2.5}}", &m) &&
          strstr(reply_error(m.json), "argument 'size': expected a whole number 0..4294967295"));
    message_free(&m);
    CHECK(g_feed_out.n == 0);
    { /* a handler removing its own command; its console's poll and feed stay out */
        ecs_console_command_desc once = {"once", "removes itself", NULL, cmd_once, NULL};
        ecs_error err;
        once.user = c;
        CHECK(ecs_console_add_command(c, &once, &err) == ECS_OK);
        CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 6, \"command\": \"once\"}", &m) && reply_ok(m.json, 6) &&
              strstr(m.json, "\"reentered\": false"));
        message_free(&m);
        CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 7, \"command\": \"once\"}", &m) &&
              strstr(reply_error(m.json), "unknown command 'once'"));
        message_free(&m);
    }
    ecs_console_destroy(c);
}

static void test_payloads(void)
{
    ecs_console *c = new_console(-1, 0, 0);
    bytes b = {NULL, 0, 0};
    unsigned char data[300];
    message m;
    size_t k;
    if (!c) return;
    add_test_commands(c);
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 2, \"command\": \"blob\", \"args\": {\"size\": 200}}", &m));
    CHECK(m.type == 1 && reply_ok(m.json, 2) && m.payload_size == 200);
    for (k = 0; k < 200 && m.payload; ++k) CHECK(m.payload[k] == (unsigned char)(k * 7u));
    message_free(&m);
    /* a type-1 request: the payload reaches the handler, at any alignment of the json */
    for (k = 0; k < sizeof data; ++k) data[k] = (unsigned char)k;
    frame_binary(&b, "{\"type\": \"command\", \"id\": 7, \"command\": \"sum\", \"args\": {\"a\": 1}}", data, 33);
    frame_binary(&b, "{\"type\": \"command\", \"id\": 8, \"command\": \"sum\", \"args\": {\"a\": 2}} ", data, 0);
    feed_bytes(c, b.p, b.n);
    CHECK(take_message(&g_feed_out, &m) && reply_ok(m.json, 7) && strstr(m.json, "\"payload\": 33"));
    message_free(&m);
    CHECK(take_message(&g_feed_out, &m) && reply_ok(m.json, 8) && strstr(m.json, "\"payload\": 0"));
    message_free(&m);
    /* a reply over max_message (8192 here) is an error reply saying so */
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 9, \"command\": \"big\", \"args\": {\"size\": 9000}}", &m) &&
          strstr(reply_error(m.json), "over the message limit of 8192 bytes") && g_feed_open);
    message_free(&m);
    bytes_free(&b);
    ecs_console_destroy(c);
}

static void test_scripts(void)
{
    ecs_console *c = new_console(-1, 0, 0);
    message m;
    const ecs_json_value *r;
    if (!c) return;
    add_test_commands(c);
    CHECK(feed_request(c, "{\"type\": \"script\", \"id\": 1, \"script\": \"sum 1 2\\n\\n# a comment\\n  sum 5  \\r\\necho [1, 2] name=\\\"a b\\\" c=word\"}", &m));
    CHECK_MSG((r = reply_result(m.json)) && r->type == ECS_JSON_ARRAY && r->count == 3, "%s", m.json);
    CHECK(strstr(m.json, "[{\"sum\": 3, \"payload\": 0}, {\"sum\": 5, \"payload\": 0}, {\"a\": \"array\", \"c\": \"word\", \"name\": \"a b\"}]"));
    message_free(&m);
    /* the first failing line stops the script, named with its number */
    CHECK(feed_request(c, "{\"type\": \"script\", \"id\": 2, \"script\": \"sum 1\\nsum x\\nsum 3\"}", &m));
    CHECK_MSG(strcmp(reply_error(m.json), "line 2 (sum x): sum: argument 'a': expected a finite number, found a string") == 0,
              "%s", m.json);
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"script\", \"id\": 3, \"script\": \"sum 1 2 3\"}", &m) &&
          strstr(reply_error(m.json), "line 1 (sum 1 2 3): sum takes 2 positional arguments (a b); '3' is one too many"));
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"script\", \"id\": 4, \"script\": \"frobnicate 1\"}", &m) &&
          strstr(reply_error(m.json), "line 1 (frobnicate 1): unknown command 'frobnicate'"));
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"script\", \"id\": 5, \"script\": \"blob 3\"}", &m) &&
          strstr(reply_error(m.json), "blob answers with a binary payload: send it as a command"));
    message_free(&m);
    { /* the line's command is named, not the one that took its slot while it ran */
        ecs_console_command_desc d = {"swap", "replaces itself", NULL, cmd_swap, c};
        CHECK(ecs_console_add_command(c, &d, NULL) == ECS_OK);
        CHECK(feed_request(c, "{\"type\": \"script\", \"id\": 5, \"script\": \"swap\"}", &m));
        CHECK_MSG(strcmp(reply_error(m.json), "line 1 (swap): swap answers with a binary payload: send it as a command, not in a script") == 0,
                  "%s", m.json);
        message_free(&m);
    }
    CHECK(feed_request(c, "{\"type\": \"script\", \"id\": 6, \"script\": \"echo a=[1,\"}", &m) &&
          strstr(reply_error(m.json), "line 1 (echo a=[1,): echo: argument 'a' is not JSON: line 1, column"));
    message_free(&m);
    /* a word that starts as JSON is one JSON value: it cannot set other arguments */
    CHECK(feed_request(c, "{\"type\": \"script\", \"id\": 6, \"script\": \"echo a=[1],\\\"b\\\":2\"}", &m));
    CHECK_MSG(strstr(reply_error(m.json), "echo: argument 'a' is not JSON: line 1, column 4"), "%s", m.json);
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"script\", \"id\": 6, \"script\": \"echo \\\"x\\\",\\\"c\\\":2\"}", &m));
    CHECK_MSG(strstr(reply_error(m.json), "echo: argument 'a' is not JSON"), "%s", m.json);
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"script\", \"id\": 6, \"script\": \"echo 1 {}}\"}", &m));
    CHECK_MSG(strstr(reply_error(m.json), "echo: argument 'b' is not JSON"), "%s", m.json);
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"script\", \"id\": 7, \"script\": \"\"}", &m) && reply_ok(m.json, 7) &&
          strstr(m.json, "\"result\": []"));
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"script\", \"id\": 8}", &m) && strstr(reply_error(m.json), "needs \"script\""));
    message_free(&m);
    ecs_console_destroy(c);
}

/* The bits "floats" answers for "[x, y, z]" as a command ("script": as a
   script line), in want ("7f7fffff", "00000000", ...); 0 when refused (the
   error in want). */
static int float_bits(ecs_console *c, const char *xyz, int script, char *want, size_t size)
{
    static char json[1200];
    message m;
    const char *at;
    int ok;
    if (script) snprintf(json, sizeof json, "{\"type\": \"script\", \"id\": 1, \"script\": \"floats %s\"}", xyz);
    else snprintf(json, sizeof json, "{\"type\": \"command\", \"id\": 1, \"command\": \"floats\", \"args\": {\"v\": %s}}", xyz);
    if (!feed_request(c, json, &m)) return snprintf(want, size, "no reply") < 0;
    ok = reply_ok(m.json, 1) && (at = strstr(m.json, "[\"")) != NULL;
    snprintf(want, size, "%s", ok ? at + 1 : reply_error(m.json));
    if (ok && strlen(want) > 34) want[34] = 0; /* the three quoted words */
    message_free(&m);
    return ok;
}

/* f32 arguments: the float nearest the text, rounded once (a double exactly
   halfway between two floats goes the way its text does: ecs_json_f32 and
   the JSON reader's mark), those rounding to infinity refused; the same
   from a script line. */
static void test_f32_arguments(void)
{
    static char tail[400], text[500];
    ecs_console *c = new_console(-1, 0, 0);
    char got[300];
    int script;
    if (!c) return;
    add_test_commands(c);
    memset(tail, '0', 300);
    tail[300] = 0;
    for (script = 0; script < 2; ++script) {
        /* FLT_MAX written with 8 digits is above it as a double, but rounds to it */
        CHECK_MSG(float_bits(c, "[3.4028235e38, -3.4028235e38, 1.5]", script, got, sizeof got) &&
                      strcmp(got, "\"7f7fffff\", \"ff7fffff\", \"3fc00000\"") == 0, "%d: %s", script, got);
        /* halfway between 2^24 and 2^24 + 2 as a double: the text decides; exactly halfway: to even */
        CHECK_MSG(float_bits(c, "[16777217.000000001, 16777216.999999999, 16777217]", script, got, sizeof got) &&
                      strcmp(got, "\"4b800001\", \"4b800000\", \"4b800000\"") == 0, "%d: %s", script, got);
        /* a long text: its last digit decides */
        snprintf(text, sizeof text, "[-16777217.%s1, 0, -0.0]", tail);
        CHECK_MSG(float_bits(c, text, script, got, sizeof got) && strcmp(got, "\"cb800001\", \"00000000\", \"80000000\"") == 0,
                  "%d: %s", script, got);
        /* 2^128 - 2^103, halfway between FLT_MAX and infinity: to even is infinity; just below it: FLT_MAX */
        CHECK_MSG(float_bits(c, "[340282356779733661637539395458142568447.9, 0, 0]", script, got, sizeof got) &&
                      strcmp(got, "\"7f7fffff\", \"00000000\", \"00000000\"") == 0, "%d: %s", script, got);
        CHECK_MSG(!float_bits(c, "[0, 340282356779733661637539395458142568448, 0]", script, got, sizeof got) &&
                      strstr(got, "argument 'v'[1]: expected a number that fits a float"), "%d: %s", script, got);
        CHECK_MSG(!float_bits(c, "[0, 0, -3.4028236e38]", script, got, sizeof got) &&
                      strstr(got, "argument 'v'[2]: expected a number that fits a float"), "%d: %s", script, got);
        CHECK_MSG(!float_bits(c, "[0, 1e39, 0]", script, got, sizeof got) && strstr(got, "'v'[1]"), "%d: %s", script, got);
    }
    ecs_console_destroy(c);
}

static void test_registration(void)
{
    ecs_console_desc d;
    ecs_console_command_desc cmd = {"x", "one\nline", "a", cmd_sum, NULL};
    ecs_console *c;
    ecs_error err;
    message m;
    char name[80];
    memset(&d, 0, sizeof d);
    d.port = -1;
    d.max_commands = 3; /* help and two more */
    CHECK((c = ecs_console_create(&d, &err)) != NULL);
    if (!c) return;
    CHECK(ecs_console_add_command(c, &cmd, &err) == ECS_OK);
    CHECK(ecs_console_add_command(c, &cmd, &err) == ECS_ERROR_ALREADY_EXISTS && strstr(err.message, "'x'"));
    cmd.name = "y";
    CHECK(ecs_console_add_command(c, &cmd, &err) == ECS_OK);
    cmd.name = "z";
    CHECK(ecs_console_add_command(c, &cmd, &err) == ECS_ERROR_OUT_OF_MEMORY && strstr(err.message, "max_commands is 3"));
    cmd.name = "bad name";
    CHECK(ecs_console_add_command(c, &cmd, &err) == ECS_ERROR_INVALID_ARGUMENT && strstr(err.message, "'bad name'"));
    memset(name, 'a', sizeof name - 1);
    name[ECS_CONSOLE_NAME_MAX] = 0; /* one too long */
    cmd.name = name;
    CHECK(ecs_console_add_command(c, &cmd, &err) == ECS_ERROR_INVALID_ARGUMENT);
    name[ECS_CONSOLE_NAME_MAX - 1] = 0;
    CHECK(ecs_console_remove_command(c, "y") == ECS_OK && ecs_console_remove_command(c, "y") == ECS_ERROR_NOT_FOUND);
    CHECK(ecs_console_add_command(c, &cmd, &err) == ECS_OK); /* the longest name, in y's slot */
    cmd.name = "w";
    cmd.fn = NULL;
    CHECK(ecs_console_add_command(c, &cmd, &err) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(feed_request(c, "{\"type\": \"command\", \"command\": \"help\"}", &m));
    CHECK(strstr(m.json, "\"help\": \"one\"")); /* the help text's first line */
    CHECK(strstr(m.json, name) != NULL && strstr(m.json, "\"y\"") == NULL);
    message_free(&m);
    ecs_console_destroy(c);
    d.port = 70000;
    CHECK(ecs_console_create(&d, &err) == NULL && err.code == ECS_ERROR_INVALID_ARGUMENT);
    d.port = 0;
    d.address = "127.0.0.256";
    CHECK(ecs_console_create(&d, &err) == NULL && err.code == ECS_ERROR_INVALID_ARGUMENT && strstr(err.message, "127.0.0.256"));
    d.address = "localhost";
    CHECK((c = ecs_console_create(&d, &err)) != NULL && ecs_console_port(c) > 0);
    { /* the port is taken now */
        ecs_console *again;
        d.port = ecs_console_port(c);
        again = ecs_console_create(&d, &err);
        CHECK(again == NULL && err.code == ECS_ERROR_IO && strstr(err.message, "bind"));
        ecs_console_destroy(again);
    }
    ecs_console_destroy(c);
}

/* The same request split at every byte: one reply, after the last byte only. */
static void test_split_every_byte(void)
{
    ecs_console *c = new_console(-1, 0, 0);
    bytes b = {NULL, 0, 0};
    message m;
    size_t k, first;
    if (!c) return;
    add_test_commands(c);
    frame_json(&b, "{\"type\": \"command\", \"id\": 11, \"command\": \"sum\", \"args\": {\"a\": 40, \"b\": 2}}");
    frame_binary(&b, "{\"type\": \"command\", \"id\": 12, \"command\": \"sum\", \"args\": {\"a\": 1}}", "xyz", 3);
    first = 8u + get_be32(b.p + 4);
    for (k = 0; k < b.n; ++k) {
        feed_bytes(c, b.p + k, 1);
        CHECK(g_feed_open);
        if (k + 1 < first) CHECK_MSG(g_feed_out.n == 0, "a reply after %u bytes", (unsigned)k + 1u);
        if (k + 1 == first) CHECK(g_feed_out.n > 0); /* at once, with the last byte */
    }
    CHECK(take_message(&g_feed_out, &m) && reply_ok(m.json, 11) && strstr(m.json, "\"sum\": 42"));
    message_free(&m);
    CHECK(take_message(&g_feed_out, &m) && reply_ok(m.json, 12) && strstr(m.json, "\"payload\": 3"));
    message_free(&m);
    CHECK(g_feed_out.n == 0);
    /* several messages in one read: all answered, in order */
    b.n = 0;
    for (k = 0; k < 20; ++k) {
        char json[120];
        snprintf(json, sizeof json, "{\"type\": \"command\", \"id\": %u, \"command\": \"sum\", \"args\": {\"a\": %u}}",
                 (unsigned)k, (unsigned)k);
        frame_json(&b, json);
    }
    feed_bytes(c, b.p, b.n);
    for (k = 0; k < 20; ++k) {
        CHECK(take_message(&g_feed_out, &m) && reply_ok(m.json, (long)k));
        message_free(&m);
    }
    bytes_free(&b);
    ecs_console_destroy(c);
}

/* Garbage: an error reply, then the connection closes (feed returns 0),
   and the next feed is a new connection that works. */
static void check_garbage(ecs_console *c, const void *p, size_t n, const char *want)
{
    static const char ok[] = "{\"type\": \"command\", \"id\": 1, \"command\": \"help\"}";
    message m;
    ecs_console_stats before, after;
    ecs_console_get_stats(c, &before);
    feed_bytes(c, p, n);
    CHECK(!g_feed_open);
    CHECK(take_message(&g_feed_out, &m));
    CHECK_MSG(strstr(reply_error(m.json), want), "want '%s', got %s", want, m.json ? m.json : "nothing");
    CHECK(member(ecs_json_root(&g_doc), "id") && member(ecs_json_root(&g_doc), "id")->type == ECS_JSON_NULL);
    message_free(&m);
    CHECK(g_feed_out.n == 0);
    ecs_console_get_stats(c, &after);
    CHECK(after.closed_bad_input == before.closed_bad_input + 1);
    CHECK(feed_request(c, ok, &m) && reply_ok(m.json, 1) && g_feed_open);
    message_free(&m);
}

static void test_garbage(void)
{
    ecs_console *c = new_console(-1, 0, 0);
    unsigned char h[16];
    bytes b = {NULL, 0, 0};
    if (!c) return;
    put_be32(h, 0);
    put_be32(h + 4, 8193); /* over max_message: refused on its header alone */
    check_garbage(c, h, 8, "a message of 8193 bytes is over the limit of 8192 bytes");
    put_be32(h, 7);
    check_garbage(c, h, 4, "message type 7 is unknown");
    put_be32(h, 1);
    put_be32(h + 4, 3);
    check_garbage(c, h, 8, "no room for its json_length");
    put_be32(h + 4, 10);
    put_be32(h + 8, 7); /* 7 > 10 - 4 */
    check_garbage(c, h, 12, "json_length 7 runs past the message's 10 bytes");
    frame_json(&b, "{\"type\": \"command\", \"command\": \"h\xC3\x28\"}");
    check_garbage(c, b.p, b.n, "the message is not JSON");
    b.n = 0;
    frame_json(&b, "{\"type\": \"command\",");
    check_garbage(c, b.p, b.n, "the message is not JSON: line 1, column");
    b.n = 0;
    frame_json(&b, "");
    check_garbage(c, b.p, b.n, "the message is not JSON");
    /* a bad message after a good one in the same read: the good one is answered first */
    b.n = 0;
    frame_json(&b, "{\"type\": \"command\", \"id\": 5, \"command\": \"help\"}");
    put_be32(h, 2);
    bytes_add(&b, h, 4);
    {
        message m;
        feed_bytes(c, b.p, b.n);
        CHECK(!g_feed_open && take_message(&g_feed_out, &m) && reply_ok(m.json, 5));
        message_free(&m);
        CHECK(take_message(&g_feed_out, &m) && strstr(reply_error(m.json), "message type 2 is unknown"));
        message_free(&m);
    }
    bytes_free(&b);
    ecs_console_destroy(c);
}

/* loud: fails with 511 control bytes, each escaped to 6 in the reply */
static ecs_result cmd_fails_loud(void *user, ecs_console_call *call)
{
    char text[512];
    (void)user;
    memset(text, 1, sizeof text - 1);
    text[sizeof text - 1] = 0;
    return ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "%s", text);
}

/* The smallest max_message (4861) holds the longest error reply whole; an
   over-limit reply's error reply is a whole framed reply, never measured
   again (it recursed until the stack overflowed at max_message 64..165). */
static void test_smallest_limit(void)
{
    static const ecs_console_command_desc loud = {"loud", "fails with control bytes", NULL, cmd_fails_loud, NULL};
    ecs_console_desc d;
    ecs_error err;
    ecs_console *c;
    message m;
    unsigned char h[8];
    const char *e;
    size_t k;
    memset(&d, 0, sizeof d);
    d.port = -1;
    d.max_message = 4860;
    CHECK_MSG(ecs_console_create(&d, &err) == NULL && err.code == ECS_ERROR_INVALID_ARGUMENT &&
                  strstr(err.message, "max_message 4860 (4861..)"),
              "4860 refused: %s", err.message);
    d.max_message = 4861;
    CHECK_MSG((c = ecs_console_create(&d, &err)) != NULL, "4861 taken: %s", err.message);
    if (!c) return;
    add_test_commands(c);
    CHECK(ecs_console_add_command(c, &loud, &err) == ECS_OK);
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 9007199254740992, \"command\": \"big\", \"args\": {\"size\": 6000}}", &m) &&
          m.type == 0 && strstr(reply_error(m.json), "the reply of 6067 bytes is over the message limit of 4861 bytes") &&
          g_feed_open);
    message_free(&m);
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 9007199254740992, \"command\": \"loud\"}", &m));
    e = reply_error(m.json);
    CHECK_MSG(strncmp(e, "loud: ", 6) == 0 && strlen(e) == 6 + 511 && strlen(m.json) > 6 * 511, "%.80s", m.json);
    for (k = 6; k < strlen(e); ++k) CHECK(e[k] == 1);
    message_free(&m);
    put_be32(h, 7);
    put_be32(h + 4, 0);
    check_garbage(c, h, 8, "message type 7 is unknown");
    CHECK(g_feed_out.n == 0);
    ecs_console_destroy(c);
}

static void test_http(void)
{
    ecs_console *c = new_console(-1, 0, 0);
    const char *get = "GET /api/help HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    ecs_console_stats s;
    if (!c) return;
    feed_bytes(c, "GE", 2); /* could still be a method: waits */
    CHECK(g_feed_open && g_feed_out.n == 0);
    feed_bytes(c, get + 2, strlen(get) - 2);
    CHECK(!g_feed_open && g_feed_out.n > 12 && memcmp(g_feed_out.p, "HTTP/1.1 200 ", 13) == 0); /* the rest: test_console_http.c */
    ecs_console_get_stats(c, &s);
    CHECK(s.closed_http == 1);
    g_feed_out.n = 0;
    feed_bytes(c, "POSTX", 5); /* no method: read as framing, whose type is then garbage */
    CHECK(!g_feed_open && g_feed_out.n > 8 && get_be32(g_feed_out.p) == 0);
    g_feed_out.n = 0;
    ecs_console_destroy(c);
}

/* Log lines go to framed connections; requests wait while the output is
   over max_pending; a log line that would go over closes the connection. */
static void test_logs_and_pressure(void)
{
    ecs_console *c = new_console(-1, 0, 8000);
    bytes b = {NULL, 0, 0};
    message m;
    ecs_console_stats s;
    int k;
    if (!c) return;
    add_test_commands(c);
    ecs_console_log(c, ECS_CONSOLE_INFO, "nobody hears this");
    feed_bytes(c, "", 0);
    CHECK(g_feed_out.n == 0); /* a connection that has sent nothing gets no log lines */
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 1, \"command\": \"sum\", \"args\": {\"a\": 1}}", &m));
    message_free(&m);
    ecs_console_log(c, ECS_CONSOLE_WARNING, "heat %d%% \"high\" \x01 \xFF end", 99);
    feed_bytes(c, "", 0);
    CHECK(take_message(&g_feed_out, &m) && m.type == 0);
    CHECK_MSG(m.json && strcmp(m.json, "{\"type\": \"log\", \"level\": \"warning\", \"message\": \"heat 99% \\\"high\\\" \\u0001 \\ufffd end\"}") == 0,
              "%s", m.json);
    CHECK(parse(m.json) != NULL); /* valid JSON whatever the bytes */
    message_free(&m);
    /* four requests with 3000-byte replies in one feed: all four are
       answered, over max_pending (the caller takes the output after) */
    for (k = 0; k < 4; ++k) {
        char json[100];
        snprintf(json, sizeof json, "{\"type\": \"command\", \"id\": %d, \"command\": \"big\"}", 20 + k);
        frame_json(&b, json);
    }
    g_feed_open = ecs_console_feed(c, b.p, b.n);
    {
        size_t n;
        const unsigned char *out = ecs_console_feed_output(c, &n);
        bytes_add(&g_feed_out, out, n);
        CHECK_MSG(g_feed_open && n > 12000, "%lu bytes", (unsigned long)n);
    }
    for (k = 0; k < 4; ++k) {
        CHECK(take_message(&g_feed_out, &m) && reply_ok(m.json, 20 + k));
        message_free(&m);
    }
    CHECK(!take_message(&g_feed_out, &m));
    /* output nobody takes: log lines fit while under 8000, then one closes it */
    b.n = 0;
    for (k = 0; k < 2; ++k) frame_json(&b, "{\"type\": \"command\", \"id\": 30, \"command\": \"big\"}");
    g_feed_open = ecs_console_feed(c, b.p, b.n);
    ecs_console_log(c, ECS_CONSOLE_ERROR, "%s", "one more");
    ecs_console_log(c, ECS_CONSOLE_ERROR, "%1500s", "x");
    ecs_console_get_stats(c, &s);
    CHECK(s.closed_pending == 0); /* those still fit */
    ecs_console_log(c, ECS_CONSOLE_ERROR, "%1500s", "y");
    ecs_console_get_stats(c, &s);
    {
        size_t n;
        ecs_console_feed_output(c, &n);
        CHECK(n > 7000 && n <= 8000);
    }
    g_feed_open = ecs_console_feed(c, "", 0);
    CHECK(!g_feed_open);
    ecs_console_get_stats(c, &s);
    CHECK(s.closed_pending == 1 && s.closed_bad_input == 0);
    g_feed_out.n = 0;
    bytes_free(&b);
    ecs_console_destroy(c);
}

/* One pushed log line (its frame taken off the in-process connection):
   within max_message, valid JSON, its message a prefix of text at least
   min_kept bytes long. */
static void check_log_line(ecs_console *c, const char *text, size_t min_kept)
{
    size_t n;
    const unsigned char *out = ecs_console_feed_output(c, &n);
    const char *got;
    bytes b = {NULL, 0, 0};
    message m;
    bytes_add(&b, out, n);
    CHECK_MSG(n >= 8 && get_be32(b.p + 4) <= 4861u, "a log frame of %lu bytes",
              (unsigned long)(n >= 8 ? get_be32(b.p + 4) : 0));
    CHECK(take_message(&b, &m) && b.n == 0);
    CHECK(m.json && parse(m.json) && (got = string_of(member(ecs_json_root(&g_doc), "message"))) != NULL &&
          strlen(got) >= min_kept && strncmp(got, text, strlen(got)) == 0);
    message_free(&m);
    bytes_free(&b);
}

/* A log line fits max_message however much escaping grows it (cut at a
   character, never inside an escape or a UTF-8 sequence), and one that is
   over max_pending on its own does not close a connection with nothing
   pending; one that would take pending output over it still does. */
static void test_log_limits(void)
{
    ecs_console_desc d;
    ecs_console_stats s;
    ecs_console *c;
    message m;
    char text[4001];
    size_t k;
    memset(&d, 0, sizeof d);
    d.port = -1;
    d.max_message = 4861; /* the smallest */
    d.max_pending = 1000; /* less than one long log line */
    d.clock = fake_clock;
    if (!(c = ecs_console_create(&d, NULL))) return;
    add_test_commands(c);
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 1, \"command\": \"sum\", \"args\": {\"a\": 1}}", &m));
    message_free(&m);
    memset(text, '"', 4000); /* each escaped to 2 bytes */
    text[4000] = 0;
    ecs_console_log(c, ECS_CONSOLE_WARNING, "%s", text);
    check_log_line(c, text, 2300);
    for (k = 0; k < 4000; ++k) text[k] = (char)(k < 700 ? 1 : "\xE2\x82\xAC"[(k - 700) % 3]); /* then euros */
    text[3997] = 0; /* whole euros; the cut falls among them */
    ecs_console_log(c, ECS_CONSOLE_INFO, "%s", text);
    check_log_line(c, text, 1000);
    memset(text, 2, 4000); /* each escaped to 6 bytes */
    text[4000] = 0;
    ecs_console_log(c, ECS_CONSOLE_ERROR, "%s", text);
    check_log_line(c, text, 700);
    ecs_console_get_stats(c, &s);
    CHECK(s.closed_pending == 0 && ecs_console_feed(c, "", 0));
    /* output nobody takes: the next line would take it over max_pending */
    ecs_console_log(c, ECS_CONSOLE_INFO, "%s", "first");
    ecs_console_log(c, ECS_CONSOLE_INFO, "%1000s", "second");
    CHECK(!ecs_console_feed(c, "", 0));
    ecs_console_get_stats(c, &s);
    CHECK(s.closed_pending == 1);
    ecs_console_destroy(c);
}

/* ---- loopback sockets ---- */

static void test_sockets(void)
{
    ecs_console *c = new_console(0, 3, 0);
    bytes b = {NULL, 0, 0}, in = {NULL, 0, 0};
    message m;
    ecs_console_stats s;
    int a, bb, port, k, quiet = 1;
    if (!c) return;
    add_test_commands(c);
    port = ecs_console_port(c);
    CHECK(port > 0);
    a = client_connect(port);
    bb = client_connect(port);
    CHECK(a >= 0 && bb >= 0);
    /* a: one request a byte at a time, b answered in between */
    frame_json(&b, "{\"type\": \"command\", \"id\": 77, \"command\": \"sum\", \"args\": {\"a\": 7, \"b\": 70}}");
    for (k = 0; k < (int)b.n; ++k) {
        CHECK(client_send(c, a, b.p + k, 1));
        ecs_console_poll(c);
        if (k + 1 < (int)b.n && client_recv_some(a, &in) != 0) quiet = 0;
        if (k % 16 == 0) {
            CHECK(client_request(c, bb, "{\"type\": \"command\", \"id\": 5, \"command\": \"sum\", \"args\": {\"a\": 5}}", &m) &&
                  reply_ok(m.json, 5));
            message_free(&m);
        }
    }
    CHECK(quiet); /* nothing came back before the last byte */
    CHECK(client_read(c, a, &in, &m) && reply_ok(m.json, 77) && strstr(m.json, "\"sum\": 77"));
    message_free(&m);
    /* several in one send, answered in order */
    b.n = 0;
    for (k = 0; k < 10; ++k) {
        char json[100];
        snprintf(json, sizeof json, "{\"type\": \"command\", \"id\": %d, \"command\": \"sum\", \"args\": {\"a\": %d}}", k, k);
        frame_json(&b, json);
    }
    CHECK(client_send(c, a, b.p, b.n));
    for (k = 0; k < 10; ++k) {
        CHECK(client_read(c, a, &in, &m) && reply_ok(m.json, k));
        message_free(&m);
    }
    /* a third client; a fourth is over max_clients: an error reply, then closed */
    {
        int third = client_connect(port), fourth;
        CHECK(client_request(c, third, "{\"type\": \"command\", \"id\": 1, \"command\": \"help\"}", &m) && reply_ok(m.json, 1));
        message_free(&m);
        fourth = client_connect(port);
        in.n = 0;
        CHECK(client_read(c, fourth, &in, &m) && strstr(reply_error(m.json), "too many clients (3"));
        message_free(&m);
        CHECK(client_sees_close(c, fourth, &in));
        close(fourth);
        /* the third disconnects in the middle of a message: its slot is freed */
        CHECK(client_send(c, third, b.p, 20));
        for (k = 0; k < 5; ++k) ecs_console_poll(c);
        close(third);
        for (k = 0; k < 50; ++k) ecs_console_poll(c);
        ecs_console_get_stats(c, &s);
        CHECK(s.clients == 2 && s.refused == 1 && s.closed_by_peer == 1);
        CHECK(c->num_open == 2);
    }
    /* a sends garbage: an error reply, then closed; b goes on */
    in.n = 0;
    b.n = 0;
    frame_json(&b, "{not json");
    CHECK(client_send(c, a, b.p, b.n));
    CHECK(client_read(c, a, &in, &m) && strstr(reply_error(m.json), "the message is not JSON"));
    message_free(&m);
    CHECK(client_send(c, a, b.p, b.n) || 1); /* more after the error: drained, not answered */
    CHECK(client_sees_close(c, a, &in));
    CHECK(in.n == 0);
    close(a);
    CHECK(client_request(c, bb, "{\"type\": \"command\", \"id\": 6, \"command\": \"help\"}", &m) && reply_ok(m.json, 6));
    message_free(&m);
    { /* client_request skips the log lines pushed before the reply, and loses nothing after it */
        ecs_console_command_desc d = {"noisy", "logs, then answers", NULL, cmd_noisy, c};
        CHECK(ecs_console_add_command(c, &d, NULL) == ECS_OK);
        for (k = 0; k < 3; ++k) {
            CHECK(client_request(c, bb, "{\"type\": \"command\", \"id\": 8, \"command\": \"noisy\"}", &m));
            CHECK_MSG(reply_ok(m.json, 8) && strstr(m.json, "\"result\": 42"), "%s", m.json ? m.json : "(none)");
            message_free(&m);
            ecs_console_log(c, ECS_CONSOLE_INFO, "between");
            CHECK(client_request(c, bb, "{\"type\": \"command\", \"id\": 9, \"command\": \"sum\", \"args\": {\"a\": 9}}", &m));
            CHECK_MSG(reply_ok(m.json, 9), "%s", m.json ? m.json : "(none)");
            message_free(&m);
        }
    }
    /* HTTP on the same port */
    {
        int h = client_connect(port);
        const char *get = "GET / HTTP/1.0\r\nHost: localhost\r\n\r\n"; /* HTTP/1.0: closed after the response */
        in.n = 0;
        CHECK(client_send(c, h, get, strlen(get)));
        CHECK(client_sees_close(c, h, &in));
        CHECK(in.n > 13 && memcmp(in.p, "HTTP/1.1 200 ", 13) == 0);
        close(h);
        for (k = 0; k < 20; ++k) ecs_console_poll(c); /* it sees the close: counted */
    }
    ecs_console_get_stats(c, &s);
    CHECK(s.closed_bad_input == 1 && s.closed_http == 1 && s.accepted == 4);
    close(bb);
    bytes_free(&b);
    bytes_free(&in);
    ecs_console_destroy(c);
}

/* A client that never reads its replies: its requests stop at max_pending,
   the stall timeout closes it (not while timeouts are disabled), the other
   client is answered throughout. An idle client is closed too. */
static void test_socket_timeouts(void)
{
    ecs_console_desc d;
    ecs_console_timeouts t;
    ecs_console *c;
    bytes b = {NULL, 0, 0}, in = {NULL, 0, 0};
    message m;
    ecs_console_stats s;
    ecs_error err;
    int lazy, good, idle, k, woken;
    memset(&d, 0, sizeof d);
    d.max_message = 200000;
    d.max_pending = 256 * 1024;
    d.accept_every = 1; /* every poll looks for new clients */
    d.clock = fake_clock;
    if (!(c = ecs_console_create(&d, &err))) return;
    add_test_commands(c);
    lazy = client_connect_buf(ecs_console_port(c), 4096);
    good = client_connect(ecs_console_port(c));
    /* 300 replies of 100 KB: more than the sockets' buffers hold */
    for (k = 0; k < 300; ++k) frame_json(&b, "{\"type\": \"command\", \"id\": 1, \"command\": \"big\", \"args\": {\"size\": 100000}}");
    for (k = 0; k < 300; ++k) { /* sends what the socket takes; never reads */
        ssize_t sent = b.n ? send(lazy, b.p, b.n, MSG_NOSIGNAL) : 0;
        if (sent > 0) {
            memmove(b.p, b.p + sent, b.n - (size_t)sent);
            b.n -= (size_t)sent;
        }
        ecs_console_poll(c);
    }
    ecs_console_get_stats(c, &s);
    CHECK_MSG(s.requests < 300, "%u", (unsigned)s.requests); /* paced: it waits for the client to read */
    CHECK(s.clients == 2);
    /* the engine paused, waiting: lazy's requests wait for its output to
       drain, so its unread bytes must not wake the wait. Each wait blocks
       its 20 ms when nothing wakes it (0 of 10 return 1); a wait that asks
       for lazy's input returns 1 at once every time (10 of 10). */
    for (k = 0, woken = 0; k < 10; ++k) {
        int r = ecs_console_wait(c, 20);
        if (ecs_console_poll(c) == 0 && r == 1) ++woken;
    }
    CHECK_MSG(woken < 5, "%d of 10 waits returned 1 with nothing to do", woken);
    t.disabled = 1;
    t.idle_ms = t.stalled_ms = t.linger_ms = 0;
    ecs_console_set_timeouts(c, &t);
    fake_ms += 3600 * 1000; /* an hour in a debugger: nobody is closed */
    for (k = 0; k < 3; ++k) ecs_console_poll(c);
    ecs_console_get_stats(c, &s);
    CHECK(s.clients == 2 && s.closed_timeout == 0);
    t.disabled = 0;
    t.idle_ms = ECS_CONSOLE_NEVER;
    t.stalled_ms = 5000;
    ecs_console_set_timeouts(c, &t);
    CHECK(client_request(c, good, "{\"type\": \"command\", \"id\": 2, \"command\": \"help\"}", &m) && reply_ok(m.json, 2));
    message_free(&m);
    fake_ms += 4999;
    ecs_console_poll(c);
    ecs_console_get_stats(c, &s);
    CHECK(s.closed_timeout == 0);
    fake_ms += 1;
    ecs_console_poll(c);
    ecs_console_get_stats(c, &s);
    CHECK_MSG(s.closed_timeout == 1 && s.clients == 1, "timeouts %u clients %u requests %u", (unsigned)s.closed_timeout, (unsigned)s.clients, (unsigned)s.requests);
    CHECK(client_request(c, good, "{\"type\": \"command\", \"id\": 3, \"command\": \"help\"}", &m) && reply_ok(m.json, 3));
    message_free(&m);
    close(lazy);
    /* idle: nothing sent, nothing pending */
    t.idle_ms = 1000;
    ecs_console_set_timeouts(c, &t);
    idle = client_connect(ecs_console_port(c));
    ecs_console_poll(c);
    fake_ms += 999;
    ecs_console_poll(c);
    ecs_console_get_stats(c, &s);
    CHECK(s.clients == 2 && s.closed_timeout == 1);
    fake_ms += 1;
    ecs_console_poll(c); /* good sent its last request 1000 ms ago too */
    ecs_console_get_stats(c, &s);
    CHECK(s.clients == 0 && s.closed_timeout == 3);
    CHECK_MSG(c->num_open == 0, "open connections counted %u after every client closed",
              (unsigned)c->num_open); /* the count an idle poll skips its loops on */
    CHECK(client_sees_close(c, idle, &in));
    close(idle);
    close(good);
    CHECK(ecs_console_flush(c, 10) == ECS_OK);
    bytes_free(&b);
    bytes_free(&in);
    ecs_console_destroy(c);
}

/* New clients: looked for every accept_every polls, or at once after a
   wait that saw one knock. */
static void test_accept_every(void)
{
    ecs_console_desc d;
    ecs_console_stats s;
    ecs_console *c;
    int a, b, k;
    memset(&d, 0, sizeof d);
    d.accept_every = 4;
    if (!(c = ecs_console_create(&d, NULL))) return;
    ecs_console_poll(c); /* the first poll looks */
    a = client_connect(ecs_console_port(c));
    for (k = 0; k < 3; ++k) ecs_console_poll(c);
    ecs_console_get_stats(c, &s);
    CHECK(s.accepted == 0);
    ecs_console_poll(c);
    ecs_console_get_stats(c, &s);
    CHECK(s.accepted == 1);
    b = client_connect(ecs_console_port(c));
    CHECK(ecs_console_wait(c, 1000) == 1); /* it knocks: at once */
    ecs_console_poll(c);
    ecs_console_get_stats(c, &s);
    CHECK(s.accepted == 2 && s.clients == 2);
    CHECK(ecs_console_wait(c, 1) == 0); /* nobody: the next poll does not look */
    close(a);
    close(b);
    ecs_console_destroy(c);
}

/* The steady state allocates nothing: idle polls, and the same requests
   again once the buffers have grown (in-process and over a socket). */
static void test_no_allocation(void)
{
    ecs_console *c = new_console(0, 0, 0);
    bytes b = {NULL, 0, 0}, in = {NULL, 0, 0};
    message m;
    unsigned long before;
    int k, fd, ok = 1;
    if (!c) return;
    add_test_commands(c);
    frame_json(&b, "{\"type\": \"command\", \"id\": 1, \"command\": \"sum\", \"args\": {\"a\": 1}}");
    frame_json(&b, "{\"type\": \"script\", \"id\": 2, \"script\": \"sum 1 2\\nhelp\"}");
    fd = client_connect(ecs_console_port(c));
    for (k = 0; k < 3; ++k) { /* warm: buffers grow to what these need */
        feed_bytes(c, b.p, b.n);
        ok &= client_send(c, fd, b.p, b.n) && client_read(c, fd, &in, &m);
        message_free(&m);
        ok &= client_read(c, fd, &in, &m);
        message_free(&m);
    }
    g_feed_out.n = 0;
    before = oom_calls;
    for (k = 0; k < 1000; ++k) ecs_console_poll(c);
    CHECK(oom_calls == before); /* idle */
    for (k = 0; k < 50; ++k) {
        g_feed_open = ecs_console_feed(c, b.p, b.n);
        ecs_console_feed_output(c, &in.n);
        in.n = 0;
        ok &= client_send(c, fd, b.p, b.n) && client_read(c, fd, &in, &m);
        message_free(&m);
        ok &= client_read(c, fd, &in, &m);
        message_free(&m);
    }
    CHECK(ok);
    CHECK_MSG(oom_calls == before, "%lu allocations", oom_calls - before);
    close(fd);
    bytes_free(&b);
    bytes_free(&in);
    ecs_console_destroy(c);
}

/* A 1000-byte log line a frame, each taken at once: the in-process
   connection's output starts over when all of it was taken, so it does
   not grow by a line each frame (nothing allocated once warm). */
static void test_log_taken_each_frame(void)
{
    ecs_console *c = new_console(-1, 0, 0);
    message m;
    unsigned long before;
    size_t n = 0;
    int k, ok = 1;
    if (!c) return;
    add_test_commands(c);
    CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 1, \"command\": \"sum\", \"args\": {\"a\": 1}}", &m));
    message_free(&m);
    ecs_console_log(c, ECS_CONSOLE_INFO, "%1000s", "warm");
    ecs_console_feed_output(c, &n);
    before = oom_calls;
    for (k = 0; k < 2000; ++k) {
        ecs_console_log(c, ECS_CONSOLE_INFO, "%1000d", k);
        ecs_console_feed_output(c, &n);
        ok &= n > 1000 && n < 1100;
    }
    CHECK(ok);
    CHECK_MSG(oom_calls == before, "%lu allocations", oom_calls - before);
    CHECK_MSG(c->conns[c->num_socks].out.cap < 4096, "capacity %lu", (unsigned long)c->conns[c->num_socks].out.cap);
    ecs_console_destroy(c);
}

/* Every allocation failing in turn while a console is made and answers:
   a failed create leaves nothing; a failed answer closes that connection
   only (ASan: nothing leaks). */
static void test_out_of_memory(void)
{
    unsigned long at;
    int made = 0, answered = 0, got;
    for (at = 1; at < 400 && answered < 20; ++at) {
        ecs_console_desc d;
        ecs_console *c;
        ecs_error err;
        message m;
        memset(&d, 0, sizeof d);
        d.port = -1;
        oom_calls = 0;
        oom_fail_at = at;
        c = ecs_console_create(&d, &err);
        if (!c) {
            CHECK(err.code == ECS_ERROR_OUT_OF_MEMORY);
            continue;
        }
        ++made;
        add_test_commands(c);
        g_feed_out.n = 0;
        got = feed_request(c, "{\"type\": \"script\", \"id\": 1, \"script\": \"big 3000\\nsum 1 2\\nhelp\"}", &m);
        oom_fail_at = 0; /* the checks parse with the same allocator */
        if (got) {
            CHECK_MSG(reply_ok(m.json, 1) || strstr(reply_error(m.json), "out of memory") || !g_feed_open, "%s", m.json);
            answered += reply_ok(m.json, 1);
            message_free(&m);
        } else {
            CHECK(!g_feed_open); /* closed: nothing half-written was sent */
            CHECK(g_feed_out.n == 0);
        }
        g_feed_out.n = 0;
        CHECK(feed_request(c, "{\"type\": \"command\", \"id\": 2, \"command\": \"sum\", \"args\": {\"a\": 2}}", &m) &&
              reply_ok(m.json, 2));
        message_free(&m);
        ecs_console_destroy(c);
    }
    oom_fail_at = 0;
    CHECK(made > 0 && answered > 0);
}

int main(void)
{
    test_requests();
    test_payloads();
    test_scripts();
    test_f32_arguments();
    test_registration();
    test_split_every_byte();
    test_garbage();
    test_smallest_limit();
    test_http();
    test_logs_and_pressure();
    test_log_limits();
    test_sockets();
    test_socket_timeouts();
    test_accept_every();
    test_no_allocation();
    test_log_taken_each_frame();
    test_out_of_memory();
    bytes_free(&g_feed_out);
    ecs_json_doc_free(&g_doc);
    return test_report("test_console");
}
