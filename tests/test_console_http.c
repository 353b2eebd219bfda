/* tests/test_console_http.c - ecs_console.h's HTTP path (the inspector's
   requests): GET / serves the page, GET /api/NAME?ARG=JSON answers what the
   framed protocol answers (byte for byte), world.set through HTTP changes
   the world and a refused one leaves its hash; every bad request gets its
   status (400 malformed or bad percent-encoding, 403 another site's page or
   Host, 404 path or command, 405 not GET, 413 too long) and the console
   goes on; keep-alive, pipelining, the same bytes at once or a byte at a
   time; over sockets: keep-alive, 503 for an HTTP client over max_clients,
   the framed refusal for a silent one, an idle keep-alive connection giving
   its slot to a new client; an /api request reaches desc.on_request as the
   framed request it equals (fed to another console, the same change), or
   413 when that request is over max_message;
   world.tree (roots, children, paging); every
   allocation failing in turn during HTTP requests. */
#include "oom_alloc.h"
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_TRANSFORM_IMPLEMENTATION
#include "ecs_transform.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#define ECS_SNAPSHOT_IMPLEMENTATION
#include "ecs_snapshot.h"
#define ECS_CONSOLE_IMPLEMENTATION
#include "ecs_console.h"
#include "test.h"
#include "console_client.h"

static const ecs_schema_field health_schema[] = {
    {"hp", ECS_FIELD_F32, "{\"default\": 100, \"min\": 0, \"max\": 1000}"},
    {"armor", ECS_FIELD_U32, "{\"default\": 0, \"max\": 50}"},
    {"target", ECS_FIELD_ENTITY, "null"}};

static const char page[] = "<!doctype html><title>inspector</title><p>the page</p>\n";

typedef struct fixture {
    ecs_world w;
    ecs_transform_manager tm;
    ecs_manager *health;
    ecs_entity e[8];
    ecs_console *console;
} fixture;

/* desc.on_request of the next make_fixture (its user: the fixture's world) */
static ecs_console_request_fn g_fixture_hook;
/* desc.max_message of the next make_fixture (0: 64 KiB) */
static uint32_t g_fixture_max_message;

/* 8 entities, health on each; transforms: 0 root with children 1, 2; 3
   under 1; 4 and 5 roots; 6 and 7 without. */
static int make_fixture(fixture *f, int port, uint32_t max_clients, int with_page)
{
    ecs_console_desc d;
    ecs_error err;
    ecs_mat4 m = ecs_mat4_identity();
    static const int parent[6] = {-1, 0, 0, 1, -1, -1};
    uint32_t k;
    memset(f, 0, sizeof *f);
    if (ecs_world_init(&f->w) != ECS_OK ||
        ecs_transform_manager_init(&f->tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE) != ECS_OK)
        return 0;
    f->health = ecs_world_define_schema(&f->w, "health", health_schema, 3, ECS_LOOKUP_HASH, &err);
    if (!f->health || ecs_transform_world_register(&f->w, "transform", &f->tm, &err) != ECS_OK) return 0;
    for (k = 0; k < 8; ++k) {
        f->e[k] = ecs_entity_create(&f->w.entities);
        ecs_manager_create(f->health, f->e[k]);
    }
    for (k = 0; k < 6; ++k)
        ecs_transform_create(&f->tm, f->e[k], &m,
                             parent[k] < 0 ? ecs_instance_nil() : ecs_transform_lookup(&f->tm, f->e[parent[k]]));
    memset(&d, 0, sizeof d);
    d.port = port;
    d.world = &f->w;
    d.max_clients = max_clients;
    d.max_message = g_fixture_max_message ? g_fixture_max_message : 1u << 16;
    d.on_request = g_fixture_hook;
    d.request_user = &f->w;
    if (with_page) {
        d.page = page;
        d.page_size = sizeof page - 1u;
    }
    f->console = ecs_console_create(&d, &err);
    if (!f->console) fprintf(stderr, "console: %s\n", err.message);
    return f->console != NULL;
}

static void free_fixture(fixture *f)
{
    ecs_console_destroy(f->console);
    ecs_world_free(&f->w);
    ecs_transform_manager_free(&f->tm);
}

/* One HTTP response taken off the front of b: status, the value of a
   header (want, NULL: none), the body (NUL-terminated copy). 0 when b
   holds no whole response. */
typedef struct response {
    int status;
    char header[200];
    char *body;
    size_t body_n;
    int closes; /* Connection: close */
} response;

static int header_value(const char *head, size_t n, const char *name, char *out, size_t cap)
{
    size_t k, len = strlen(name);
    for (k = 0; k + len + 1 < n; ++k) {
        if (head[k] == '\n' && strncmp(head + k + 1, name, len) == 0 && head[k + 1 + len] == ':') {
            const char *v = head + k + 2 + len, *end;
            while (*v == ' ') ++v;
            end = strstr(v, "\r\n");
            if (!end || (size_t)(end - v) >= cap) return 0;
            memcpy(out, v, (size_t)(end - v));
            out[end - v] = 0;
            return 1;
        }
    }
    return 0;
}

static int take_response(bytes *b, const char *want, response *r)
{
    const char *p = (const char *)b->p, *end;
    char len[32], conn[32];
    size_t head, size;
    memset(r, 0, sizeof *r);
    if (b->n < 12 || !(end = strstr(p, "\r\n\r\n")) || (size_t)(end - p) > b->n) return 0;
    head = (size_t)(end - p) + 4u;
    if (strncmp(p, "HTTP/1.1 ", 9) != 0 || !header_value(p, head, "Content-Length", len, sizeof len)) return 0;
    size = (size_t)strtoul(len, NULL, 10);
    if (b->n < head + size) return 0;
    r->status = atoi(p + 9);
    if (want && !header_value(p, head, want, r->header, sizeof r->header)) r->header[0] = 0;
    r->closes = header_value(p, head, "Connection", conn, sizeof conn) && strcmp(conn, "close") == 0;
    r->body = (char *)malloc(size + 1u);
    memcpy(r->body, p + head, size);
    r->body[size] = 0;
    r->body_n = size;
    memmove(b->p, b->p + head + size, b->n - head - size);
    b->n -= head + size;
    if (b->n < b->cap) b->p[b->n] = 0;
    return 1;
}

/* GET target with extra header lines through the in-process connection. */
static int get(ecs_console *c, const char *target, const char *headers, const char *want, response *r)
{
    char req[9000];
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:4000\r\n%s\r\n", target, headers ? headers : "");
    g_feed_out.n = 0;
    bytes_add(&g_feed_out, "", 1); /* keeps the buffer NUL-terminated for strstr */
    g_feed_out.n = 0;
    feed_bytes(c, req, strlen(req));
    bytes_add(&g_feed_out, "", 1);
    g_feed_out.n--;
    return take_response(&g_feed_out, want, r);
}

/* The framed reply's result for a command with args, as text. */
static char *framed_result(ecs_console *c, const char *command, const char *args)
{
    char json[400];
    message m;
    const ecs_json_value *v;
    char *out = NULL;
    feed_bytes(c, "GET / HTTP/1.0\r\n\r\n", 18); /* HTTP/1.0 closes: the next bytes start a new connection */
    g_feed_out.n = 0;
    snprintf(json, sizeof json, "{\"type\": \"command\", \"id\": 1, \"command\": \"%s\", \"args\": %s}", command, args);
    if (feed_request(c, json, &m) && (v = reply_result(m.json)) != NULL) {
        const char *start = strstr(m.json, "\"result\": ") + 10;
        size_t n = strlen(start) - 1; /* up to the reply's closing brace */
        out = (char *)malloc(n + 1);
        memcpy(out, start, n);
        out[n] = 0;
        (void)v;
    }
    if (m.json) message_free(&m);
    feed_bytes(c, "\0\0\0\x09\0\0\0\0", 8); /* an unknown type closes it: the next bytes start a new connection */
    g_feed_out.n = 0;
    return out;
}

static void test_page_and_api(void)
{
    fixture f;
    response r;
    char *framed, target[100];
    if (!make_fixture(&f, -1, 0, 1)) return;
    CHECK(get(f.console, "/", NULL, "Content-Type", &r) && r.status == 200 && strcmp(r.body, page) == 0 &&
          strcmp(r.header, "text/html; charset=utf-8") == 0 && !r.closes);
    free(r.body);
    CHECK(g_feed_open); /* keep-alive */
    CHECK(get(f.console, "/index.html", NULL, NULL, &r) && r.status == 200 && strcmp(r.body, page) == 0);
    free(r.body);
    CHECK(get(f.console, "/api/help", NULL, "Content-Type", &r) && r.status == 200 &&
          strcmp(r.header, "application/json") == 0 && strstr(r.body, "\"name\": \"world.tree\""));
    free(r.body);
    /* the same bytes as the framed protocol's result */
    snprintf(target, sizeof target, "/api/world.entity?entity=%lu", (unsigned long)f.e[3].id);
    CHECK(get(f.console, target, NULL, NULL, &r) && r.status == 200);
    snprintf(target, sizeof target, "{\"entity\": %lu}", (unsigned long)f.e[3].id);
    framed = framed_result(f.console, "world.entity", target);
    CHECK_MSG(framed && strcmp(framed, r.body) == 0, "%s vs %s", framed ? framed : "(none)", r.body);
    free(framed);
    free(r.body);
    CHECK(get(f.console, "/api/world.stats", NULL, NULL, &r) && r.status == 200);
    framed = framed_result(f.console, "world.stats", "{}");
    CHECK(framed && strcmp(framed, r.body) == 0);
    free(framed);
    free(r.body);
    /* arguments: JSON values, bare words, percent-encoded names and values */
    CHECK(get(f.console, "/api/world.entities?offset=2&limit=3&with=%5B%22health%22%5D", NULL, NULL, &r) &&
          r.status == 200 && strstr(r.body, "\"total\": 8, \"offset\": 2"));
    free(r.body);
    CHECK(get(f.console, "/api/world%2Eentities?li%6Dit=1", NULL, NULL, &r) && r.status == 200 &&
          strstr(r.body, "{\"entities\": [1]"));
    free(r.body);
    free_fixture(&f);
}

static void test_set_through_http(void)
{
    fixture f;
    response r;
    char target[200];
    uint64_t before;
    float hp;
    if (!make_fixture(&f, -1, 0, 0)) return;
    snprintf(target, sizeof target, "/api/world.set?entity=%lu&component=health&field=hp&value=250.5",
             (unsigned long)f.e[2].id);
    before = ecs_snapshot_world_hash(&f.w);
    CHECK(get(f.console, target, NULL, NULL, &r) && r.status == 200 && strstr(r.body, "\"field\": \"hp\""));
    free(r.body);
    memcpy(&hp, ecs_manager_field(f.health, 0, ecs_manager_lookup(f.health, f.e[2]).i), 4);
    CHECK(hp == 250.5f && ecs_snapshot_world_hash(&f.w) != before);
    /* out of the schema's bounds: 400 with the message, nothing changed */
    before = ecs_snapshot_world_hash(&f.w);
    snprintf(target, sizeof target, "/api/world.set?entity=%lu&component=health&field=armor&value=51",
             (unsigned long)f.e[2].id);
    CHECK(get(f.console, target, NULL, NULL, &r) && r.status == 400 &&
          strstr(r.body, "{\"error\": \"world.set: argument 'value': field 'armor' (u32): armor must be <= 50 (found 51)\"}") &&
          !r.closes);
    free(r.body);
    CHECK(ecs_snapshot_world_hash(&f.w) == before && g_feed_open);
    /* a dead entity: 404 */
    CHECK(get(f.console, "/api/world.entity?entity=999", NULL, NULL, &r) && r.status == 404 && strstr(r.body, "is not alive"));
    free(r.body);
    /* world.save answers with a payload: not over HTTP */
    CHECK(get(f.console, "/api/world.save", NULL, NULL, &r) && r.status == 400 && strstr(r.body, "binary payload"));
    free(r.body);
    /* the fallback page without desc.page */
    CHECK(get(f.console, "/", NULL, NULL, &r) && r.status == 200 && strstr(r.body, "ecs_console_desc.page"));
    free(r.body);
    free_fixture(&f);
}

/* A request that gets `status` (and closes when `closes`), then a good
   request answered on a fresh connection. */
static void expect_status(fixture *f, const char *raw, int status, int closes, const char *text)
{
    response r;
    g_feed_out.n = 0;
    feed_bytes(f->console, raw, strlen(raw));
    bytes_add(&g_feed_out, "", 1);
    g_feed_out.n--;
    CHECK_MSG(take_response(&g_feed_out, "Allow", &r) && r.status == status && r.closes == closes &&
                  (!text || strstr(r.body, text)),
              "%s -> %d %s", raw, r.status, r.body ? r.body : "");
    CHECK_MSG(g_feed_open == !closes, "%s", raw);
    if (status == 405) CHECK(strcmp(r.header, "GET") == 0);
    free(r.body);
    feed_bytes(f->console, "", 0);
    CHECK(get(f->console, "/api/world.hash", NULL, NULL, &r) && r.status == 200);
    free(r.body);
}

static void test_bad_requests(void)
{
    fixture f;
    char big[9000];
    ecs_console_stats s;
    if (!make_fixture(&f, -1, 0, 1)) return;
    expect_status(&f, "POST /api/quit HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", 405, 1, "only GET");
    expect_status(&f, "HEAD / HTTP/1.1\r\n\r\n", 405, 1, NULL);
    expect_status(&f, "GET /nothing HTTP/1.1\r\n\r\n", 404, 0, "nothing at '/nothing'");
    expect_status(&f, "GET /api/nope HTTP/1.1\r\n\r\n", 404, 0, "unknown command 'nope'");
    expect_status(&f, "GET /api/world.entity?entity=%G1 HTTP/1.1\r\n\r\n", 400, 0, "bad percent-encoding");
    { /* a NUL byte in the name: not the command its first bytes name */
        static const char raw[] = "GET /api/world.hash\0x HTTP/1.1\r\n\r\n";
        response r;
        g_feed_out.n = 0;
        feed_bytes(f.console, raw, sizeof raw - 1);
        bytes_add(&g_feed_out, "", 1);
        g_feed_out.n--;
        CHECK_MSG(take_response(&g_feed_out, NULL, &r) && r.status == 404 &&
                      strstr(r.body, "unknown command 'world.hash\\\\0x'"),
                  "%d %s", r.status, r.body ? r.body : "");
        free(r.body);
    }
    expect_status(&f, "GET /api/world.entity?entity=%4 HTTP/1.1\r\n\r\n", 400, 0, "bad percent-encoding");
    expect_status(&f, "GET /api/world.entity?entity=1%00 HTTP/1.1\r\n\r\n", 400, 0, "bad percent-encoding");
    expect_status(&f, "GET /api/world%ZZ HTTP/1.1\r\n\r\n", 400, 0, "path's percent-encoding");
    expect_status(&f, "GET /api/world.entity?entity HTTP/1.1\r\n\r\n", 400, 0, "argument 'entity': no value");
    expect_status(&f, "GET /api/world.entity?entity=[1 HTTP/1.1\r\n\r\n", 400, 0,
                  "world.entity: argument 'entity' is not JSON: line 1, column");
    /* a VALUE is one JSON value: it cannot set other arguments (limit here) */
    expect_status(&f, "GET /api/world.entities?with=[],%22limit%22:1 HTTP/1.1\r\n\r\n", 400, 0,
                  "world.entities: argument 'with' is not JSON: line 1, column");
    expect_status(&f, "GET /api/world.entities?with=%22health%22,%22limit%22:1 HTTP/1.1\r\n\r\n", 400, 0,
                  "argument 'with' is not JSON");
    expect_status(&f, "GET /api/world.entities?offset=0&limit={}}&with=[] HTTP/1.1\r\n\r\n", 400, 0,
                  "argument 'limit' is not JSON");
    expect_status(&f, "GET /api/world.entity?entity=%22x%22 HTTP/1.1\r\n\r\n", 400, 0, "expected an entity id");
    expect_status(&f, "GET /api/world.hash HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", 400, 1, "with a body");
    expect_status(&f, "GET / HTTP/2.0\r\n\r\n", 400, 1, "not METHOD TARGET HTTP/1.x");
    expect_status(&f, "GET  HTTP/1.1\r\n\r\n", 400, 1, NULL);
    expect_status(&f, "GET / HTTP/1.1\r\nno colon here\r\n\r\n", 400, 1, "NAME: VALUE");
    expect_status(&f, "GET /api/world.hash HTTP/1.1\r\nHost: evil.example:80\r\n\r\n", 403, 0, "Host");
    expect_status(&f, "GET /api/world.hash HTTP/1.1\r\nOrigin: http://evil.example\r\n\r\n", 403, 0, "another site");
    /* after the name only ":" and digits: [::1] was taken whatever followed its ']' */
    expect_status(&f, "GET /api/world.hash HTTP/1.1\r\nHost: [::1]evil.example\r\n\r\n", 403, 0, "Host");
    expect_status(&f, "GET /api/world.hash HTTP/1.1\r\nHost: [::1]:80x\r\n\r\n", 403, 0, "Host");
    expect_status(&f, "GET /api/world.hash HTTP/1.1\r\nHost: localhost:.evil.example\r\n\r\n", 403, 0, "Host");
    expect_status(&f, "GET /api/world.hash HTTP/1.1\r\nOrigin: http://[::1].evil.example\r\n\r\n", 403, 0, "another site");
    expect_status(&f, "GET /api/world.hash HTTP/1.1\r\nOrigin: http://127.0.0.1:1@evil.example\r\n\r\n", 403, 0,
                  "another site");
    expect_status(&f, "GET /api/world.hash HTTP/1.1\r\nHost: [::1]:4000\r\n\r\n", 200, 0, "\"hash\"");
    expect_status(&f, "GET /api/world.hash HTTP/1.1\r\nHost: [::1]\r\n\r\n", 200, 0, "\"hash\"");
    expect_status(&f, "GET /api/world.hash HTTP/1.1\r\nSec-Fetch-Site: cross-site\r\n\r\n", 403, 0, "another site");
    expect_status(&f, "GET /api/world.hash HTTP/1.1\r\nConnection: close\r\n\r\n", 200, 1, "\"hash\"");
    expect_status(&f, "GET /api/world.hash HTTP/1.0\r\n\r\n", 200, 1, "\"hash\"");
    /* a head over ECS_CONSOLE_HTTP_MAX_HEAD: 413, and closed */
    memset(big, 'a', sizeof big);
    memcpy(big, "GET /?", 6);
    big[sizeof big - 1] = 0;
    expect_status(&f, big, 413, 1, "over 8192 bytes");
    /* just under it: answered */
    memcpy(big + 8000, " HTTP/1.1\r\n\r\n", 14);
    big[8014] = 0;
    expect_status(&f, big, 200, 0, NULL);
    ecs_console_get_stats(f.console, &s);
    CHECK(s.errors >= 18 && s.closed_http >= 9);
    free_fixture(&f);
}

static void test_origins_and_pipelining(void)
{
    fixture f;
    response r;
    const char *two = "GET /api/world.hash HTTP/1.1\r\n\r\nGET /api/help HTTP/1.1\r\n\r\n";
    bytes whole = {NULL, 0, 0};
    size_t k;
    if (!make_fixture(&f, -1, 0, 1)) return;
    /* a page opened from disk (Origin: null) and our own origin: allowed, echoed */
    CHECK(get(f.console, "/api/world.hash", "Origin: null\r\nSec-Fetch-Site: cross-site\r\n", "Access-Control-Allow-Origin", &r) &&
          r.status == 200 && strcmp(r.header, "null") == 0);
    free(r.body);
    CHECK(get(f.console, "/api/world.hash", "Origin: http://localhost:4000\r\n", "Access-Control-Allow-Origin", &r) &&
          r.status == 200 && strcmp(r.header, "http://localhost:4000") == 0);
    free(r.body);
    CHECK(get(f.console, "/api/world.hash", "Origin: http://[::1]:4000\r\n", "Access-Control-Allow-Origin", &r) &&
          r.status == 200 && strcmp(r.header, "http://[::1]:4000") == 0);
    free(r.body);
    CHECK(get(f.console, "/api/world.hash", "Sec-Fetch-Site: same-origin\r\n", NULL, &r) && r.status == 200);
    free(r.body);
    /* the page itself may be fetched by anyone on this machine */
    CHECK(get(f.console, "/", "Sec-Fetch-Site: cross-site\r\n", NULL, &r) && r.status == 200);
    free(r.body);
    /* two requests in one send: two responses, in order; the same bytes a byte at a time */
    feed_bytes(f.console, "", 0);
    g_feed_out.n = 0;
    feed_bytes(f.console, two, strlen(two));
    bytes_add(&whole, g_feed_out.p, g_feed_out.n);
    bytes_add(&g_feed_out, "", 1);
    g_feed_out.n--;
    CHECK(take_response(&g_feed_out, NULL, &r) && r.status == 200 && strstr(r.body, "\"hash\""));
    free(r.body);
    CHECK(take_response(&g_feed_out, NULL, &r) && r.status == 200 && strstr(r.body, "world.tree"));
    free(r.body);
    g_feed_out.n = 0;
    for (k = 0; k < strlen(two); ++k) feed_bytes(f.console, two + k, 1);
    CHECK(g_feed_open && g_feed_out.n == whole.n && memcmp(g_feed_out.p, whole.p, whole.n) == 0);
    bytes_free(&whole);
    free_fixture(&f);
}

static void test_tree(void)
{
    fixture f;
    response r;
    char target[120], want[300];
    if (!make_fixture(&f, -1, 0, 0)) return;
    CHECK(get(f.console, "/api/world.tree", NULL, NULL, &r) && r.status == 200);
    snprintf(want, sizeof want,
             "{\"store\": \"transform\", \"entity\": null, \"parent\": null, \"children\": [{\"entity\": %lu, \"descendants\": 3}, "
             "{\"entity\": %lu, \"descendants\": 0}, {\"entity\": %lu, \"descendants\": 0}], \"total\": 3, \"offset\": 0}",
             (unsigned long)f.e[0].id, (unsigned long)f.e[4].id, (unsigned long)f.e[5].id);
    CHECK_MSG(strcmp(r.body, want) == 0, "%s", r.body);
    free(r.body);
    snprintf(target, sizeof target, "/api/world.tree?entity=%lu&limit=1&offset=1&store=transform", (unsigned long)f.e[0].id);
    CHECK(get(f.console, target, NULL, NULL, &r) && r.status == 200);
    snprintf(want, sizeof want, "\"entity\": %lu, \"parent\": null, \"children\": [{\"entity\": %lu, \"descendants\": 0}], \"total\": 2",
             (unsigned long)f.e[0].id, (unsigned long)f.e[2].id);
    CHECK_MSG(strstr(r.body, want) != NULL, "%s", r.body);
    free(r.body);
    snprintf(target, sizeof target, "/api/world.tree?entity=%lu", (unsigned long)f.e[3].id);
    CHECK(get(f.console, target, NULL, NULL, &r) && r.status == 200);
    snprintf(want, sizeof want, "\"parent\": %lu, \"children\": [], \"total\": 0", (unsigned long)f.e[1].id);
    CHECK(strstr(r.body, want) != NULL);
    free(r.body);
    snprintf(target, sizeof target, "/api/world.tree?entity=%lu", (unsigned long)f.e[7].id);
    CHECK(get(f.console, target, NULL, NULL, &r) && r.status == 404 && strstr(r.body, "has no instance of 'transform'"));
    free(r.body);
    CHECK(get(f.console, "/api/world.tree?store=health", NULL, NULL, &r) && r.status == 400 &&
          strstr(r.body, "'health' is not a hierarchy"));
    free(r.body);
    CHECK(get(f.console, "/api/world.tree?store=nope", NULL, NULL, &r) && r.status == 404 && strstr(r.body, "no component 'nope'"));
    free(r.body);
    /* a destroyed node is not listed */
    ecs_world_destroy_now(&f.w, f.e[4]);
    CHECK(get(f.console, "/api/world.tree", NULL, NULL, &r) && r.status == 200 && strstr(r.body, "\"total\": 2"));
    free(r.body);
    free_fixture(&f);
}

/* Reads a whole HTTP response from fd (polling the console). */
static int client_response(ecs_console *c, int fd, bytes *in, response *r)
{
    int rounds;
    for (rounds = 0; rounds < CLIENT_ROUNDS; ++rounds) {
        bytes_add(in, "", 1);
        in->n--;
        if (take_response(in, NULL, r)) return 1;
        ecs_console_poll(c);
        if (client_recv_some(fd, in) < 0) break;
        ecs_console_wait(c, 2);
    }
    bytes_add(in, "", 1);
    in->n--;
    return take_response(in, NULL, r);
}

static void test_sockets(void)
{
    fixture f;
    response r;
    bytes in = {NULL, 0, 0};
    message m;
    ecs_console_stats s;
    const char *get_hash = "GET /api/world.hash HTTP/1.1\r\nHost: localhost\r\n\r\n";
    int a, b, h, silent, k, port;
    if (!make_fixture(&f, 0, 2, 1)) return;
    port = ecs_console_port(f.console);
    /* keep-alive: two requests on one connection */
    h = client_connect(port);
    for (k = 0; k < 2; ++k) {
        CHECK(client_send(f.console, h, get_hash, strlen(get_hash)));
        CHECK(client_response(f.console, h, &in, &r) && r.status == 200 && !r.closes && strstr(r.body, "\"hash\""));
        free(r.body);
    }
    /* a framed client needs a slot: the idle HTTP connection gives it up */
    a = client_connect(port);
    b = client_connect(port);
    CHECK(client_request(f.console, a, "{\"type\": \"command\", \"id\": 1, \"command\": \"help\"}", &m) && reply_ok(m.json, 1));
    message_free(&m);
    CHECK(client_request(f.console, b, "{\"type\": \"command\", \"id\": 2, \"command\": \"help\"}", &m) && reply_ok(m.json, 2));
    message_free(&m);
    in.n = 0;
    CHECK(client_sees_close(f.console, h, &in) && in.n == 0);
    close(h);
    /* both slots framed: an HTTP client gets 503, a silent one the framed refusal */
    h = client_connect(port);
    CHECK(client_send(f.console, h, get_hash, strlen(get_hash)));
    CHECK(client_response(f.console, h, &in, &r) && r.status == 503 && r.closes && strstr(r.body, "too many connections (2"));
    free(r.body);
    CHECK(client_sees_close(f.console, h, &in));
    close(h);
    silent = client_connect(port);
    in.n = 0;
    CHECK(client_read(f.console, silent, &in, &m) && strstr(reply_error(m.json), "too many clients (2"));
    message_free(&m);
    CHECK(client_sees_close(f.console, silent, &in));
    close(silent);
    /* the framed clients go on */
    CHECK(client_request(f.console, a, "{\"type\": \"command\", \"id\": 3, \"command\": \"world.hash\"}", &m) && reply_ok(m.json, 3));
    message_free(&m);
    for (k = 0; k < 20; ++k) ecs_console_poll(f.console);
    ecs_console_get_stats(f.console, &s);
    CHECK_MSG(s.refused == 2 && s.accepted == 3 && s.clients == 2, "refused %lu accepted %lu clients %u",
              (unsigned long)s.refused, (unsigned long)s.accepted, (unsigned)s.clients);
    close(a);
    close(b);
    bytes_free(&in);
    free_fixture(&f);
}

/* What desc.on_request saw last, how often, and the world's hash then. */
static bytes g_hooked;
static unsigned g_hook_calls;
static uint64_t g_hook_hash;
static void record_request(void *user, const void *p, size_t n)
{
    ++g_hook_calls;
    g_hooked.n = 0;
    bytes_add(&g_hooked, p, n);
    g_hook_hash = ecs_snapshot_world_hash((ecs_world *)user);
}

/* An /api request over a socket reaches desc.on_request, before it runs, as
   the framed request it equals: fed to a second console (as a traffic
   log's replay does), it makes the same change. A refused request and
   the page are not passed. */
static void test_request_hook(void)
{
    fixture f, twin;
    response r;
    bytes in = {NULL, 0, 0};
    message m;
    const ecs_json_value *root, *args;
    char req[300];
    uint64_t before;
    int h;
    g_fixture_hook = record_request;
    if (!make_fixture(&f, 0, 2, 0)) return;
    g_fixture_hook = NULL;
    if (!make_fixture(&twin, -1, 0, 0)) return;
    before = ecs_snapshot_world_hash(&f.w);
    CHECK(before == ecs_snapshot_world_hash(&twin.w));
    h = client_connect(ecs_console_port(f.console));
    snprintf(req, sizeof req, "GET /api/world.set?entity=%lu&component=health&field=hp&value=7.5 HTTP/1.1\r\n"
             "Host: localhost\r\n\r\n", (unsigned long)f.e[5].id);
    CHECK(client_send(f.console, h, req, strlen(req)));
    CHECK(client_response(f.console, h, &in, &r) && r.status == 200);
    free(r.body);
    CHECK_MSG(g_hook_calls == 1, "the hook ran %u times", g_hook_calls);
    CHECK(g_hook_hash == before && ecs_snapshot_world_hash(&f.w) != before); /* it saw the request before it ran */
    /* a type-0 message: {"type": "command", "command": "world.set", "args": {...}}, no id */
    CHECK(g_hooked.n > 8 && get_be32(g_hooked.p) == 0 && get_be32(g_hooked.p + 4) == g_hooked.n - 8u);
    bytes_add(&g_hooked, "", 1);
    root = g_hooked.n > 9 ? parse((const char *)g_hooked.p + 8) : NULL;
    args = member(root, "args");
    CHECK(root && strcmp(string_of(member(root, "type")), "command") == 0 && !member(root, "id") &&
          strcmp(string_of(member(root, "command")), "world.set") == 0);
    CHECK(args && number_of(member(args, "entity")) == (double)f.e[5].id && number_of(member(args, "value")) == 7.5 &&
          strcmp(string_of(member(args, "component")), "health") == 0);
    /* fed back as a replay does: the same world */
    g_feed_out.n = 0;
    feed_bytes(twin.console, g_hooked.p, g_hooked.n - 1u);
    CHECK(take_message(&g_feed_out, &m) && reply_ok(m.json, -1));
    if (m.json) message_free(&m);
    CHECK(ecs_snapshot_world_hash(&twin.w) == ecs_snapshot_world_hash(&f.w));
    /* an unknown command (404) and the page are not passed */
    snprintf(req, sizeof req, "GET /api/nope HTTP/1.1\r\nHost: localhost\r\n\r\nGET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
    CHECK(client_send(f.console, h, req, strlen(req)));
    CHECK(client_response(f.console, h, &in, &r) && r.status == 404);
    free(r.body);
    CHECK(client_response(f.console, h, &in, &r) && r.status == 200);
    free(r.body);
    CHECK_MSG(g_hook_calls == 1, "the hook ran %u times", g_hook_calls);
    close(h);
    bytes_free(&in);
    bytes_free(&g_hooked);
    free_fixture(&twin);
    free_fixture(&f);
}

/* GET /api/world.hash?pad="N a's" over a new connection to f: its status
   and whether it closed. */
static int pad_request(fixture *f, size_t pad, response *r)
{
    static char req[8192];
    bytes in = {NULL, 0, 0};
    int h = client_connect(ecs_console_port(f->console)), got;
    size_t n = (size_t)snprintf(req, sizeof req, "GET /api/world.hash?pad=%%22");
    memset(r, 0, sizeof *r);
    if (n + pad + 60u > sizeof req) {
        close(h);
        return 0;
    }
    memset(req + n, 'a', pad);
    snprintf(req + n + pad, sizeof req - n - pad, "%%22 HTTP/1.1\r\nHost: localhost\r\n\r\n");
    got = client_send(f->console, h, req, strlen(req)) && client_response(f->console, h, &in, r);
    close(h);
    bytes_free(&in);
    return got;
}

/* Review defect (2026-11-27 late), failed before: with a small max_message
   an /api request (head under 8 KiB) could equal a framed request over
   max_message; desc.on_request got it, so a replay of the traffic log
   refused it. Now such a request gets 413 and does not run; one exactly at
   the limit is passed and runs. */
static void test_request_hook_limit(void)
{
    fixture f;
    response r;
    size_t small = 100, at_limit;
    unsigned calls;
    g_fixture_hook = record_request;
    g_fixture_max_message = 4861; /* the least ecs_console_create takes */
    if (!make_fixture(&f, 0, 2, 0)) {
        g_fixture_hook = NULL;
        g_fixture_max_message = 0;
        return;
    }
    g_fixture_hook = NULL;
    g_fixture_max_message = 0;
    g_hook_calls = 0;
    /* the framed request grows by one byte per byte of pad */
    CHECK(pad_request(&f, small, &r) && r.status == 200);
    free(r.body);
    CHECK(g_hook_calls == 1 && g_hooked.n > 8u);
    at_limit = small + 4861u - (g_hooked.n - 8u);
    CHECK(pad_request(&f, at_limit, &r) && r.status == 200);
    free(r.body);
    CHECK(g_hook_calls == 2 && g_hooked.n == 8u + 4861u && get_be32(g_hooked.p + 4) == 4861u);
    /* one byte more: refused before it runs, the hook not called */
    calls = g_hook_calls;
    CHECK(pad_request(&f, at_limit + 1u, &r));
    CHECK_MSG(r.status == 413 && r.closes && strstr(r.body, "world.hash: the framed request it equals") &&
                  strstr(r.body, "is 4862 bytes, over the message limit of 4861 bytes"),
              "%d %s", r.status, r.body ? r.body : "");
    free(r.body);
    CHECK_MSG(g_hook_calls == calls, "the hook got a request over max_message");
    /* the console goes on */
    CHECK(pad_request(&f, small, &r) && r.status == 200);
    free(r.body);
    bytes_free(&g_hooked);
    free_fixture(&f);
}

/* Every allocation failing in turn while HTTP requests are answered: no
   crash, no leak, and a request after it is answered. */
static void test_out_of_memory(void)
{
    const char *reqs = "GET /api/world.entities?limit=3&with=[\"health\"] HTTP/1.1\r\n\r\n"
                       "GET /api/nope HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n";
    unsigned long at, calls;
    fixture f;
    response r;
    if (!make_fixture(&f, -1, 0, 1)) return;
    oom_calls = 0;
    feed_bytes(f.console, reqs, strlen(reqs));
    calls = oom_calls;
    free_fixture(&f);
    for (at = 1; at <= calls + 2; ++at) {
        if (!make_fixture(&f, -1, 0, 1)) continue;
        oom_calls = 0;
        oom_fail_at = at;
        feed_bytes(f.console, reqs, strlen(reqs));
        oom_fail_at = 0;
        feed_bytes(f.console, "", 0);
        CHECK(get(f.console, "/api/world.hash", NULL, NULL, &r) && r.status == 200);
        free(r.body);
        free_fixture(&f);
    }
}

int main(void)
{
    test_page_and_api();
    test_set_through_http();
    test_bad_requests();
    test_origins_and_pipelining();
    test_tree();
    test_sockets();
    test_request_hook();
    test_request_hook_limit();
    test_out_of_memory();
    bytes_free(&g_feed_out);
    return test_report("test_console_http");
}
