/* tests/test_console_world.c - ecs_console.h's world commands against the
   world they report on: world.entity equals ecs_world_entity_json byte for
   byte (also through a loopback socket), world.set then world.entity shows
   the value, every bad input is an error naming the thing with the world
   unchanged (its hash), stats, components, entities (paged), query,
   destroy, hash, and world.save then world.load into a fresh world gives
   the same hash; a snapshot that does not verify changes nothing. */
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
    {"alive", ECS_FIELD_BOOL, "true"},
    {"target", ECS_FIELD_ENTITY, "null"},
    {"mesh", ECS_FIELD_PATH, "\"models/box\""},
    {"heat", ECS_FIELD_F32, NULL}};
static const ecs_schema_field body_schema[] = {{"position", ECS_FIELD_VEC3, "[0, 0, 0]"},
                                               {"velocity", ECS_FIELD_VEC3, "[0, 0, 0]"}};
static const ecs_field_desc motion_fields[] = {{"speed", 4, 4}};

typedef struct fixture {
    ecs_world w;
    ecs_transform_manager tm;
    ecs_manager *health, *body, *motion;
    ecs_entity e[24];
    ecs_console *console;
} fixture;

static int make_world(fixture *f)
{
    ecs_error err;
    memset(f, 0, sizeof *f);
    if (ecs_world_init(&f->w) != ECS_OK ||
        ecs_transform_manager_init(&f->tm, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE) != ECS_OK)
        return 0;
    f->health = ecs_world_define_schema(&f->w, "health", health_schema, 6, ECS_LOOKUP_HASH, &err);
    f->body = ecs_world_define_schema(&f->w, "body", body_schema, 2, ECS_LOOKUP_DIRECT, &err);
    f->motion = ecs_world_define(&f->w, "motion", motion_fields, 1, ECS_LOOKUP_DENSE, &err);
    return f->health && f->body && f->motion &&
           ecs_transform_world_register(&f->w, "transform", &f->tm, &err) == ECS_OK;
}

static ecs_console *make_console(ecs_world *w, int port)
{
    ecs_console_desc d;
    ecs_error err;
    ecs_console *c;
    memset(&d, 0, sizeof d);
    d.port = port;
    d.world = w;
    c = ecs_console_create(&d, &err);
    if (!c) fprintf(stderr, "console: %s\n", err.message);
    return c;
}

/* 24 entities: health on the even ones (entity 2 has two), a body on every
   third, motion on 5, transforms on 0..5 (1 and 2 children of 0), then 3
   destroyed (their index queued) and collected. */
static void populate(fixture *f)
{
    uint32_t k;
    ecs_mat4 m = ecs_mat4_identity();
    for (k = 0; k < 24; ++k) f->e[k] = ecs_entity_create(&f->w.entities);
    for (k = 0; k < 24; k += 2) {
        ecs_instance i = ecs_manager_create(f->health, f->e[k]);
        float hp = 10.0f * (float)k;
        memcpy(ecs_manager_field(f->health, 0, i.i), &hp, 4);
    }
    ecs_manager_create(f->health, f->e[2]);
    for (k = 0; k < 24; k += 3) {
        ecs_instance i = ecs_manager_create(f->body, f->e[k]);
        float p[3];
        p[0] = (float)k;
        p[1] = 0.5f;
        p[2] = -1.0f;
        memcpy(ecs_manager_field(f->body, 0, i.i), p, 12);
    }
    ecs_manager_create(f->motion, f->e[5]);
    for (k = 0; k < 6; ++k) {
        ecs_instance parent = k == 1 || k == 2 ? ecs_transform_lookup(&f->tm, f->e[0]) : ecs_instance_nil();
        m.m[12] = (float)k;
        ecs_transform_create(&f->tm, f->e[k], &m, parent);
    }
    ecs_entity_destroy(&f->w.entities, f->e[3]);
    ecs_world_collect(&f->w, NULL);
}

static void free_fixture(fixture *f)
{
    ecs_console_destroy(f->console);
    ecs_world_free(&f->w);
    ecs_transform_manager_free(&f->tm);
}

/* The reply to a request (json with %s filled), taken apart into g_doc;
   its JSON text stays in *m for the caller to free. */
static int ask(ecs_console *c, message *m, const char *json)
{
    return feed_request(c, json, m);
}

static char g_text[4096];
static const char *fmt(const char *format, unsigned long a)
{
    snprintf(g_text, sizeof g_text, format, a);
    return g_text;
}

/* The text of the reply's "result" member as it was sent. */
static const char *result_text(const char *json, size_t *n)
{
    const char *at = strstr(json, "\"result\": ");
    if (!at) return NULL;
    at += 10;
    *n = strlen(at) - 1; /* up to the reply's closing brace */
    return at;
}

static void test_entity_json(fixture *f)
{
    uint32_t k;
    message m;
    for (k = 0; k < 24; ++k) {
        ecs_snapshot_output want;
        ecs_error err;
        const char *got;
        size_t n = 0, wn;
        if (!ecs_entity_alive(&f->w.entities, f->e[k])) continue;
        CHECK(ask(f->console, &m, fmt("{\"type\": \"command\", \"id\": 1, \"command\": \"world.entity\", \"args\": {\"entity\": %lu}}",
                                      (unsigned long)f->e[k].id)));
        CHECK(ecs_world_entity_json(&f->w, f->e[k], &want, &err) == ECS_OK);
        got = result_text(m.json, &n);
        for (wn = want.size; wn > 0 && ((const char *)want.data)[wn - 1] == '\n'; --wn) continue;
        CHECK_MSG(got && n == wn && memcmp(got, want.data, wn) == 0, "entity %u: %s", (unsigned)k, m.json);
        ecs_snapshot_output_free(&want);
        message_free(&m);
    }
    CHECK(ask(f->console, &m, fmt("{\"type\": \"command\", \"id\": 1, \"command\": \"world.entity\", \"args\": {\"entity\": %lu}}",
                                  (unsigned long)f->e[3].id)));
    CHECK_MSG(strcmp(reply_error(m.json), fmt("world.entity: argument 'entity': entity %lu is not alive", (unsigned long)f->e[3].id)) == 0,
              "%s", m.json);
    message_free(&m);
    { /* the id e[3]'s queued index carries next: alive by its byte, never handed out (it was answered) */
        uint32_t idx = ecs_entity_index(f->e[3]);
        ecs_entity next = ecs_entity_make(idx, f->w.entities.generation[idx]);
        CHECK(ecs_entity_alive(&f->w.entities, next));
        CHECK(ask(f->console, &m, fmt("{\"type\": \"command\", \"id\": 1, \"command\": \"world.entity\", \"args\": {\"entity\": %lu}}",
                                      (unsigned long)next.id)));
        CHECK_MSG(strstr(reply_error(m.json), "is not alive") != NULL, "%s", m.json);
        message_free(&m);
    }
    CHECK(ask(f->console, &m, "{\"type\": \"command\", \"command\": \"world.entity\", \"args\": {\"entity\": \"x\"}}") &&
          strstr(reply_error(m.json), "expected an entity id"));
    message_free(&m);
    CHECK(ask(f->console, &m, "{\"type\": \"command\", \"command\": \"world.entity\"}") &&
          strstr(reply_error(m.json), "argument 'entity' (an entity id) is missing"));
    message_free(&m);
}

/* world.set: the value lands and world.entity shows it; every refusal
   names what was wrong and leaves the world's hash as it was. */
static void expect_refused(fixture *f, const char *args, const char *want)
{
    uint64_t before = ecs_snapshot_world_hash(&f->w);
    message m;
    char json[1024];
    snprintf(json, sizeof json, "{\"type\": \"command\", \"id\": 4, \"command\": \"world.set\", \"args\": %s}", args);
    CHECK(ask(f->console, &m, json));
    CHECK_MSG(strstr(reply_error(m.json), want), "want '%s': %s", want, m.json);
    CHECK(ecs_snapshot_world_hash(&f->w) == before);
    message_free(&m);
}

static void test_set(fixture *f)
{
    char args[512];
    unsigned long e0 = f->e[0].id, e2 = f->e[2].id;
    message m;
    ecs_instance i;
    float hp, pos[3];
    snprintf(args, sizeof args,
             "{\"type\": \"script\", \"id\": 3, \"script\": \"world.set %lu health hp 250.5\\nworld.set %lu body position [1, 2, 3]\\n"
             "world.set %lu health target %lu\\nworld.set %lu health mesh models/crate\\nworld.set %lu health heat -7\\n"
             "world.set %lu health alive false\\nworld.set %lu health armor 50 instance=1\\nworld.entity %lu\"}",
             e0, e0, e0, e2, e0, e0, e0, e2, e0);
    CHECK(ask(f->console, &m, args) && reply_ok(m.json, 3));
    CHECK_MSG(strstr(m.json, "\"hp\": 250.5") && strstr(m.json, "\"position\": [1, 2, 3]") && strstr(m.json, "\"heat\": -7") &&
                  strstr(m.json, "\"alive\": false"),
              "%s", m.json);
    message_free(&m);
    i = ecs_manager_lookup(f->health, f->e[0]);
    memcpy(&hp, ecs_manager_field(f->health, 0, i.i), 4);
    CHECK(hp == 250.5f);
    CHECK(((const ecs_entity *)ecs_manager_field(f->health, 3, i.i))->id == f->e[2].id);
    CHECK(*(const uint64_t *)ecs_manager_field(f->health, 4, i.i) == ecs_path_hash("models/crate"));
    i = ecs_manager_next(f->health, ecs_manager_lookup(f->health, f->e[2]));
    CHECK(!ecs_instance_is_nil(i) && *(const uint32_t *)ecs_manager_field(f->health, 1, i.i) == 50);
    i = ecs_manager_lookup(f->body, f->e[0]);
    memcpy(pos, ecs_manager_field(f->body, 0, i.i), 12);
    CHECK(pos[0] == 1.0f && pos[1] == 2.0f && pos[2] == 3.0f);
    /* refusals */
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"health\", \"field\": \"armor\", \"value\": 51}", e0);
    expect_refused(f, args, "argument 'value': field 'armor' (u32): armor must be <= 50");
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"health\", \"field\": \"hp\", \"value\": -1}", e0);
    expect_refused(f, args, "field 'hp' (f32): hp must be >= 0");
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"health\", \"field\": \"hp\", \"value\": \"lots\"}", e0);
    expect_refused(f, args, "field 'hp' (f32): expected a number, found string");
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"health\", \"field\": \"armor\", \"value\": 2.5}", e0);
    expect_refused(f, args, "field 'armor' (u32)");
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"body\", \"field\": \"position\", \"value\": [1, 2]}", e0);
    expect_refused(f, args, "field 'position' (vec3): expected an array of 3 numbers");
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"health\", \"field\": \"mesh\", \"value\": \"Models/Crate\"}", e0);
    expect_refused(f, args, "path 'Models/Crate' is not canonical; write 'models/crate'");
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"health\", \"field\": \"target\", \"value\": -3}", e0);
    expect_refused(f, args, "field 'target' (entity): expected an entity id");
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"health\", \"field\": \"shield\", \"value\": 1}", e0);
    expect_refused(f, args, "component 'health' has no field 'shield' (fields: hp, armor, alive, target, mesh, heat)");
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"armour\", \"field\": \"hp\", \"value\": 1}", e0);
    expect_refused(f, args, "the world has no component 'armour' (it has: health, body, motion, transform)");
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"transform\", \"field\": \"local\", \"value\": 1}", e0);
    expect_refused(f, args, "component 'transform' has no schema (a store behind an ecs_store_interface)");
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"motion\", \"field\": \"speed\", \"value\": 1}", e0);
    expect_refused(f, args, "component 'motion' has no schema (a manager without ecs_manager_set_schema)");
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"health\", \"field\": \"hp\", \"value\": 1}", (unsigned long)f->e[1].id);
    expect_refused(f, args, fmt("entity %lu has no instance of 'health'", (unsigned long)f->e[1].id));
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"health\", \"field\": \"hp\", \"value\": 1, \"instance\": 2}", e2);
    expect_refused(f, args, "has no such instance of 'health' (argument 'instance' is past its last)");
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"health\", \"field\": \"hp\", \"value\": 1}", (unsigned long)f->e[3].id);
    expect_refused(f, args, "is not alive");
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"health\", \"field\": \"hp\"}", e0);
    expect_refused(f, args, "argument 'value' (a value of the field's kind) is missing");
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": 7, \"field\": \"hp\", \"value\": 1}", e0);
    expect_refused(f, args, "argument 'component': expected a string, found a number");
    /* a name with a NUL is not the name before it (that set health's hp) */
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"health\\u0000junk\", \"field\": \"hp\", \"value\": 7}", e0);
    expect_refused(f, args, "world.set: argument 'component': holds a NUL byte");
    snprintf(args, sizeof args, "{\"entity\": %lu, \"component\": \"health\", \"field\": \"hp\\u0000\", \"value\": 7}", e0);
    expect_refused(f, args, "world.set: argument 'field': holds a NUL byte");
}

static void test_stats_and_lists(fixture *f)
{
    message m;
    const ecs_json_value *r, *v;
    uint32_t k, with_health = 0, both = 0, alive = 0;
    char json[512];
    for (k = 0; k < 24; ++k) {
        if (!ecs_entity_alive(&f->w.entities, f->e[k])) continue;
        ++alive;
        with_health += !ecs_instance_is_nil(ecs_manager_lookup(f->health, f->e[k]));
        both += !ecs_instance_is_nil(ecs_manager_lookup(f->health, f->e[k])) &&
                !ecs_instance_is_nil(ecs_manager_lookup(f->body, f->e[k]));
    }
    CHECK(alive == ecs_entity_count(&f->w.entities));
    ecs_console_set_frame(f->console, 1234);
    CHECK_MSG(ask(f->console, &m, "{\"type\": \"command\", \"id\": 1, \"command\": \"world.stats\"}") && (r = reply_result(m.json)), "%s", m.json);
    CHECK(number_of(member(r, "entities")) == alive && number_of(member(r, "frame")) == 1234);
    CHECK_MSG(strstr(m.json, "{\"name\": \"health\", \"kind\": \"hash\", \"count\": 13}") &&
          strstr(m.json, "{\"name\": \"transform\", \"kind\": \"store\", \"count\": 5}") &&
          strstr(m.json, "{\"name\": \"body\", \"kind\": \"direct\", \"count\": 7}"), "%s", m.json);
    message_free(&m);
    CHECK(ask(f->console, &m, "{\"type\": \"command\", \"id\": 1, \"command\": \"world.components\"}") && (r = reply_result(m.json)));
    CHECK(r && r->type == ECS_JSON_ARRAY && r->count == 4);
    CHECK(strstr(m.json, "{\"name\": \"armor\", \"size\": 4, \"kind\": \"u32\", \"spec\": \"{\\\"default\\\": 0, \\\"max\\\": 50}\"}") &&
          strstr(m.json, "{\"name\": \"heat\", \"size\": 4, \"kind\": \"f32\", \"spec\": null}") &&
          strstr(m.json, "{\"name\": \"speed\", \"size\": 4, \"kind\": null, \"spec\": null}"));
    CHECK(strstr(m.json, fmt("\"identifier\": %lu", (unsigned long)ecs_resource_identifier("health"))));
    message_free(&m);
    /* paged: every alive entity once, in index order */
    {
        uint32_t seen = 0, page;
        for (page = 0; page < 10; ++page) {
            snprintf(json, sizeof json,
                     "{\"type\": \"command\", \"id\": 1, \"command\": \"world.entities\", \"args\": {\"offset\": %u, \"limit\": 5}}",
                     (unsigned)page * 5u);
            CHECK(ask(f->console, &m, json) && (r = reply_result(m.json)));
            CHECK(number_of(member(r, "total")) == alive);
            for (v = ecs_json_first(&g_doc, member(r, "entities")); v; v = ecs_json_next(&g_doc, v)) {
                ecs_entity e;
                e.id = (uint32_t)v->number;
                CHECK(ecs_entity_alive(&f->w.entities, e) && e.id != f->e[3].id);
                ++seen;
            }
            message_free(&m);
        }
        CHECK(seen == alive);
    }
    CHECK(ask(f->console, &m, "{\"type\": \"command\", \"command\": \"world.entities\", \"args\": {\"with\": [\"health\"], \"limit\": 1000}}") &&
          (r = reply_result(m.json)) && number_of(member(r, "total")) == with_health && member(r, "entities")->count == with_health);
    message_free(&m);
    CHECK(ask(f->console, &m, "{\"type\": \"command\", \"command\": \"world.entities\", \"args\": {\"with\": [\"helth\"]}}") &&
          strstr(reply_error(m.json), "argument 'with': the world has no component 'helth'"));
    message_free(&m);
    CHECK(ask(f->console, &m, "{\"type\": \"command\", \"command\": \"world.entities\", \"args\": {\"with\": [\"health\\u0000zzz\"]}}"));
    CHECK_MSG(strstr(reply_error(m.json), "world.entities: argument 'with'[0]: holds a NUL byte"), "%s", m.json);
    message_free(&m);
    CHECK(ask(f->console, &m, "{\"type\": \"command\", \"command\": \"world.query\", \"args\": {\"all\": [\"body\", \"health\\u0000\"]}}"));
    CHECK_MSG(strstr(reply_error(m.json), "world.query: argument 'all'[1]: holds a NUL byte"), "%s", m.json);
    message_free(&m);
    CHECK(ask(f->console, &m, "{\"type\": \"command\", \"command\": \"world.query\", \"args\": {\"all\": [\"health\", \"body\"]}}") &&
          (r = reply_result(m.json)) && number_of(member(r, "total")) == both && member(r, "matches")->count == both);
    CHECK_MSG(strstr(m.json, fmt("{\"entity\": %lu, \"health\": ", (unsigned long)f->e[0].id)) && strstr(m.json, "\"body\": 1}"), "%s", m.json); /* direct: the instance is the index */
    message_free(&m);
    CHECK(ask(f->console, &m, "{\"type\": \"command\", \"command\": \"world.query\", \"args\": {\"all\": [\"health\"], \"any\": [\"body\", \"motion\"], \"limit\": 1}}") &&
          (r = reply_result(m.json)) && number_of(member(r, "total")) == both && member(r, "matches")->count == 1);
    CHECK(strstr(m.json, "\"motion\": null"));
    message_free(&m);
    CHECK(ask(f->console, &m, "{\"type\": \"command\", \"command\": \"world.query\", \"args\": {\"all\": []}}") &&
          strstr(reply_error(m.json), "argument 'all': expected an array of 1..8 component names"));
    message_free(&m);
    CHECK(ask(f->console, &m, "{\"type\": \"command\", \"command\": \"world.query\", \"args\": {\"all\": [\"body\", \"body\"]}}") &&
          strstr(reply_error(m.json), "world.query: ") && strstr(reply_error(m.json), "body"));
    message_free(&m);
}

static void test_hash_save_load(fixture *f)
{
    fixture g;
    message m, saved;
    bytes b = {NULL, 0, 0};
    const ecs_json_value *r;
    char want[64];
    uint64_t before;
    snprintf(want, sizeof want, "\"hash\": \"%016llx\"", (unsigned long long)ecs_snapshot_world_hash(&f->w));
    CHECK(ask(f->console, &m, "{\"type\": \"command\", \"id\": 1, \"command\": \"world.hash\"}") && strstr(m.json, want));
    message_free(&m);
    CHECK(ask(f->console, &saved, "{\"type\": \"command\", \"id\": 2, \"command\": \"world.save\"}") && saved.type == 1 &&
          reply_ok(saved.json, 2) && strstr(saved.json, want));
    CHECK(saved.payload_size > 0 && ecs_snapshot_verify(saved.payload, saved.payload_size, NULL) == ECS_OK);
    /* a fresh world with the same registrations, and something in it already: replaced */
    CHECK(make_world(&g));
    ecs_entity_create(&g.w.entities);
    g.console = make_console(&g.w, -1);
    if (!g.console) return;
    frame_binary(&b, "{\"type\": \"command\", \"id\": 3, \"command\": \"world.load\"}", saved.payload, saved.payload_size);
    feed_bytes(g.console, b.p, b.n);
    CHECK(take_message(&g_feed_out, &m) && reply_ok(m.json, 3) && strstr(m.json, want));
    message_free(&m);
    CHECK(ecs_snapshot_world_hash(&g.w) == ecs_snapshot_world_hash(&f->w));
    /* a snapshot that does not verify: an error naming the offset, nothing changed */
    before = ecs_snapshot_world_hash(&g.w);
    saved.payload[40] ^= 0x5A;
    b.n = 0;
    frame_binary(&b, "{\"type\": \"command\", \"id\": 4, \"command\": \"world.load\"}", saved.payload, saved.payload_size);
    frame_binary(&b, "{\"type\": \"command\", \"id\": 5, \"command\": \"world.load\"}", saved.payload, saved.payload_size / 2);
    frame_json(&b, "{\"type\": \"command\", \"id\": 6, \"command\": \"world.load\"}");
    frame_binary(&b, "{\"type\": \"command\", \"id\": 7, \"command\": \"world.load\", \"args\": {\"strict\": 1}}", "x", 1);
    feed_bytes(g.console, b.p, b.n);
    CHECK(take_message(&g_feed_out, &m));
    CHECK_MSG(strstr(reply_error(m.json), "world.load: the snapshot does not verify, nothing loaded: snapshot: offset 40"), "%s", m.json);
    message_free(&m);
    CHECK(take_message(&g_feed_out, &m) && strstr(reply_error(m.json), "does not verify"));
    message_free(&m);
    CHECK(take_message(&g_feed_out, &m) && strstr(reply_error(m.json), "needs a snapshot as its binary payload"));
    message_free(&m);
    CHECK(take_message(&g_feed_out, &m) && strstr(reply_error(m.json), "argument 'strict': expected true or false"));
    message_free(&m);
    CHECK(ecs_snapshot_world_hash(&g.w) == before);
    /* a selection */
    CHECK(ask(f->console, &m, "{\"type\": \"command\", \"id\": 8, \"command\": \"world.save\", \"args\": {\"stores\": [\"health\"]}}") &&
          m.type == 1 && reply_ok(m.json, 8) && m.payload_size < saved.payload_size);
    message_free(&m);
    CHECK(ask(f->console, &m, "{\"type\": \"command\", \"id\": 9, \"command\": \"world.save\", \"args\": {\"stores\": [\"x\"]}}") &&
          strstr(reply_error(m.json), "the world has no component 'x'"));
    message_free(&m);
    /* world.save in a script cannot carry its payload */
    CHECK(ask(f->console, &m, "{\"type\": \"script\", \"id\": 10, \"script\": \"world.hash\\nworld.save\"}") &&
          strstr(reply_error(m.json), "line 2 (world.save): world.save answers with a binary payload"));
    message_free(&m);
    message_free(&saved);
    bytes_free(&b);
    free_fixture(&g);
    (void)r;
}

static void test_destroy(fixture *f)
{
    message m;
    char json[256];
    uint32_t n = ecs_entity_count(&f->w.entities);
    snprintf(json, sizeof json, "{\"type\": \"command\", \"id\": 1, \"command\": \"world.destroy\", \"args\": {\"entity\": %lu}}",
             (unsigned long)f->e[7].id);
    CHECK(ask(f->console, &m, json) && reply_ok(m.json, 1) && !ecs_entity_alive(&f->w.entities, f->e[7]));
    message_free(&m);
    CHECK(ask(f->console, &m, json) && strstr(reply_error(m.json), "is not alive"));
    message_free(&m);
    /* a subtree: 0 and its children 1 and 2 */
    snprintf(json, sizeof json, "{\"type\": \"command\", \"id\": 2, \"command\": \"world.destroy\", \"args\": {\"entity\": %lu, \"tree\": \"transform\"}}",
             (unsigned long)f->e[0].id);
    CHECK(ask(f->console, &m, json) && reply_ok(m.json, 2));
    message_free(&m);
    CHECK(!ecs_entity_alive(&f->w.entities, f->e[0]) && !ecs_entity_alive(&f->w.entities, f->e[1]) &&
          !ecs_entity_alive(&f->w.entities, f->e[2]) && ecs_entity_count(&f->w.entities) == n - 4);
    CHECK(ecs_instance_is_nil(ecs_manager_lookup(f->health, f->e[2]))); /* instances too, now */
    snprintf(json, sizeof json, "{\"type\": \"command\", \"id\": 3, \"command\": \"world.destroy\", \"args\": {\"entity\": %lu, \"tree\": \"trans\"}}",
             (unsigned long)f->e[4].id);
    CHECK(ask(f->console, &m, json) && strstr(reply_error(m.json), "argument 'tree': the world has no component 'trans'"));
    message_free(&m);
    /* a tree given is a store to name: a NUL in it, or an empty name, is no plain destroy */
    snprintf(json, sizeof json, "{\"type\": \"command\", \"id\": 3, \"command\": \"world.destroy\", \"args\": {\"entity\": %lu, \"tree\": \"\\u0000bogus\"}}",
             (unsigned long)f->e[4].id);
    CHECK(ask(f->console, &m, json));
    CHECK_MSG(strstr(reply_error(m.json), "world.destroy: argument 'tree': holds a NUL byte"), "%s", m.json);
    message_free(&m);
    snprintf(json, sizeof json, "{\"type\": \"command\", \"id\": 3, \"command\": \"world.destroy\", \"args\": {\"entity\": %lu, \"tree\": \"\"}}",
             (unsigned long)f->e[4].id);
    CHECK(ask(f->console, &m, json));
    CHECK_MSG(strstr(reply_error(m.json), "argument 'tree': the world has no component ''"), "%s", m.json);
    message_free(&m);
    CHECK(ecs_entity_alive(&f->w.entities, f->e[4]));
}

/* The same over a loopback socket: world.entity's bytes and a save/load. */
static void test_socket(fixture *f)
{
    ecs_console *c = make_console(&f->w, 0);
    int fd;
    message m;
    ecs_snapshot_output want;
    ecs_error err;
    const char *got;
    size_t n = 0;
    if (!c) return;
    fd = client_connect(ecs_console_port(c));
    CHECK(fd >= 0 && client_request(c, fd, fmt("{\"type\": \"command\", \"id\": 1, \"command\": \"world.entity\", \"args\": {\"entity\": %lu}}",
                                                (unsigned long)f->e[6].id), &m));
    CHECK(ecs_world_entity_json(&f->w, f->e[6], &want, &err) == ECS_OK);
    got = result_text(m.json, &n);
    CHECK(got && n == want.size - 1 && memcmp(got, want.data, n) == 0);
    ecs_snapshot_output_free(&want);
    message_free(&m);
    CHECK(client_request(c, fd, "{\"type\": \"command\", \"id\": 2, \"command\": \"world.save\"}", &m) && m.type == 1 &&
          ecs_snapshot_verify(m.payload, m.payload_size, NULL) == ECS_OK);
    message_free(&m);
    close(fd);
    ecs_console_destroy(c);
}

int main(void)
{
    fixture f;
    CHECK(make_world(&f));
    populate(&f);
    f.console = make_console(&f.w, -1);
    if (f.console) {
        test_entity_json(&f);
        test_set(&f);
        test_entity_json(&f);
        test_stats_and_lists(&f);
        test_hash_save_load(&f);
        test_socket(&f);
        test_destroy(&f);
        test_entity_json(&f);
    }
    free_fixture(&f);
    bytes_free(&g_feed_out);
    ecs_json_doc_free(&g_doc);
    return test_report("test_console_world");
}
