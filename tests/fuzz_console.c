/* tests/fuzz_console.c - libFuzzer harness: any bytes as what a client sends
   to ecs_console.h (its frame parser, protocol detection, request parsing,
   scripts and the world commands' dispatch), through the in-process
   connection, and the same bytes as a script's text.

   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz_console.c -o fuzz_console -lm
   ./fuzz_console NEW_DIR tests/corpus/fuzz_console
   Without libFuzzer, -DFUZZ_STANDALONE gives a main that replays files and
   directories: ./replay tests/corpus/fuzz_console
   With -DFUZZ_WRITE_SNAPSHOT the replay main instead writes
   tests/corpus/fuzz_console/load_snapshot.bin: a world.load request holding
   a snapshot of the harness's world (how that seed was made).

   Checks, beyond "no crash, no sanitizer report, no leak":
   - the console answers the same bytes the same way whether they arrive at
     once or cut into pieces (at points the input's first byte picks), on two
     identical worlds; both worlds end with the same hash;
   - everything it sends is well framed: type 0 or 1, a json_length inside
     the message, valid JSON of type "reply" or "log" (or one HTTP 501
     response, first and alone);
   - replies answer requests: no more replies than complete messages;
   - the world stays consistent: it saves, and its snapshot verifies;
   - the frame parser, called directly on the input, never reports a
     message longer than the bytes it was given. */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#define ECS_SNAPSHOT_IMPLEMENTATION
#include "ecs_snapshot.h"
#include "fuzz_common.h" /* before ecs_transform.h: this harness has a world of its own */
#define ECS_TRANSFORM_IMPLEMENTATION
#include "ecs_transform.h"
#define ECS_CONSOLE_IMPLEMENTATION
#include "ecs_console.h"

static const ecs_schema_field health_schema[] = {
    {"hp", ECS_FIELD_F32, "{\"default\": 100, \"min\": 0, \"max\": 1000}"},
    {"armor", ECS_FIELD_U32, "{\"default\": 0, \"max\": 50}"},
    {"target", ECS_FIELD_ENTITY, "null"},
    {"mesh", ECS_FIELD_PATH, "\"models/box\""},
    {"heat", ECS_FIELD_F64, NULL}};

/* A small world and a console over it (no socket). */
typedef struct fz_side {
    ecs_world w;
    ecs_transform_manager tm;
    ecs_console *console;
    unsigned char *out;
    size_t out_n, out_cap;
} fz_side;

static void fz_side_init(fz_side *s)
{
    ecs_console_desc d;
    ecs_error err;
    ecs_manager *health;
    ecs_mat4 m = ecs_mat4_identity();
    uint32_t k;
    memset(s, 0, sizeof *s);
    FUZZ_CHECK(ecs_world_init(&s->w) == ECS_OK);
    FUZZ_CHECK(ecs_transform_manager_init(&s->tm, ECS_LOOKUP_HASH, ECS_TRANSFORM_IMMEDIATE) == ECS_OK);
    FUZZ_CHECK((health = ecs_world_define_schema(&s->w, "health", health_schema, 5, ECS_LOOKUP_DENSE, &err)) != NULL);
    FUZZ_CHECK(ecs_transform_world_register(&s->w, "transform", &s->tm, &err) == ECS_OK);
    for (k = 0; k < 8; ++k) { /* ids 1..8; 1..3 with transforms (2, 3 under 1), even ones with health */
        ecs_entity e = ecs_entity_create(&s->w.entities);
        if (k % 2 == 0) ecs_manager_create(health, e);
        if (k < 3) ecs_transform_create(&s->tm, e, &m, k ? ecs_transform_lookup(&s->tm, ecs_entity_make(1, 0)) : ecs_instance_nil());
    }
    memset(&d, 0, sizeof d);
    d.port = -1;
    d.world = &s->w;
    d.max_message = 1u << 16;
    d.max_pending = 1u << 20;
    FUZZ_CHECK((s->console = ecs_console_create(&d, &err)) != NULL);
}

static void fz_side_free(fz_side *s)
{
    ecs_console_destroy(s->console);
    ecs_world_free(&s->w);
    ecs_transform_manager_free(&s->tm);
    free(s->out);
    memset(s, 0, sizeof *s);
}

static void fz_take(fz_side *s)
{
    size_t n;
    const unsigned char *p = ecs_console_feed_output(s->console, &n);
    if (s->out_n + n > s->out_cap) {
        size_t cap = s->out_cap ? s->out_cap : 4096;
        while (cap < s->out_n + n) cap *= 2;
        s->out = (unsigned char *)realloc(s->out, cap);
        FUZZ_CHECK(s->out != NULL);
        s->out_cap = cap;
    }
    if (n) memcpy(s->out + s->out_n, p, n);
    s->out_n += n;
}

/* Feeds data in pieces of `step` bytes (0: at once); stops at a close,
   as a client's connection ends there. */
static void fz_feed(fz_side *s, const uint8_t *data, size_t size, size_t step)
{
    size_t at = 0, before;
    int open, rounds;
    do {
        size_t n = step && size - at > step ? step : size - at;
        open = ecs_console_feed(s->console, data + at, n);
        fz_take(s);
        at += n;
    } while (open && at < size);
    for (rounds = 0; open && rounds < 1000; ++rounds) { /* requests back-pressure held back, once the output is taken */
        before = s->out_n;
        open = ecs_console_feed(s->console, "", 0);
        fz_take(s);
        if (s->out_n == before) break;
    }
}

/* Everything sent is well framed, valid JSON replies and logs (or one HTTP
   response); returns the replies. */
static uint32_t fz_check_output(const unsigned char *p, size_t n)
{
    static ecs_json_doc doc;
    uint32_t replies = 0;
    if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
        FUZZ_CHECK(n > 13 && memcmp(p, "HTTP/1.1 501 ", 13) == 0);
        return 0;
    }
    while (n > 0) {
        uint32_t type, len, jl;
        const char *json;
        const ecs_json_value *root, *t;
        ecs_error err;
        FUZZ_CHECK(n >= 8);
        type = ecs__console_get_u32be(p);
        len = ecs__console_get_u32be(p + 4);
        FUZZ_CHECK(type <= 1 && n - 8 >= len);
        jl = type ? ecs__console_get_u32be(p + 8) : len;
        FUZZ_CHECK(type == 0 || (len >= 4 && jl <= len - 4));
        json = (const char *)p + (type ? 12 : 8);
        FUZZ_CHECK(ecs_json_parse(&doc, json, jl, &err) == ECS_OK);
        root = ecs_json_root(&doc);
        t = ecs_json_member(&doc, root, "type");
        FUZZ_CHECK(t && t->type == ECS_JSON_STRING);
        if (strcmp(ecs_json_string(&doc, t), "reply") == 0) {
            FUZZ_CHECK(ecs_json_member(&doc, root, "ok") != NULL);
            ++replies;
        } else {
            FUZZ_CHECK(strcmp(ecs_json_string(&doc, t), "log") == 0);
        }
        p += 8u + len;
        n -= 8u + len;
    }
#ifdef FUZZ_STANDALONE
    ecs_json_doc_free(&doc);
#endif
    return replies;
}

/* Complete messages at the start of data, as the frame parser reads them
   (the bad one that ends a connection counts: it is answered too). */
static uint32_t fz_messages(const uint8_t *data, size_t size)
{
    uint32_t n = 0;
    char why[200];
    for (;;) {
        ecs__console_frame f;
        size_t want = 0;
        int got = ecs__console_frame_parse(data, size, 1u << 16, &f, &want, why, sizeof why);
        if (got == ECS__CONSOLE_BAD) return n + 1;
        if (got == ECS__CONSOLE_MORE) return n;
        FUZZ_CHECK(f.size >= 8 && f.size <= size && f.json_size <= f.size && f.payload_size <= f.size);
        ++n;
        data += f.size;
        size -= f.size;
    }
}

static void fz_check_world(fz_side *s)
{
    ecs_snapshot_output out = {NULL, 0};
    ecs_error err;
    FUZZ_CHECK(ecs_snapshot_save(&s->w, NULL, &out, &err) == ECS_OK);
    FUZZ_CHECK(ecs_snapshot_verify(out.data, out.size, &err) == ECS_OK);
    ecs_snapshot_output_free(&out);
}

/* The input as the text of a script request. */
static void fz_script(const uint8_t *data, size_t size)
{
    fz_side s;
    ecs__console_buf b;
    memset(&b, 0, sizeof b);
    ecs__console_put(&b, "\0\0\0\0\0\0\0\0", 8);
    ecs__console_puts(&b, "{\"type\": \"script\", \"id\": 1, \"script\": ");
    ecs__console_put_string(&b, (const char *)data, size);
    ecs__console_puts(&b, "}");
    FUZZ_CHECK(!b.oom);
    ecs__console_set_u32be(b.p + 4, (uint32_t)(b.len - 8));
    fz_side_init(&s);
    fz_feed(&s, b.p, b.len, 0);
    FUZZ_CHECK(fz_check_output(s.out, s.out_n) == 1); /* one reply: the script's result, or its error */
    fz_check_world(&s);
    fz_side_free(&s);
    free(b.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_side a, b;
    size_t step = size ? 1u + (size_t)(data[0] % 13u) : 1u;
    uint32_t replies;
    fz_side_init(&a);
    fz_side_init(&b);
    fz_feed(&a, data, size, 0);
    fz_feed(&b, data, size, step);
    FUZZ_CHECK(a.out_n == b.out_n && (a.out_n == 0 || memcmp(a.out, b.out, a.out_n) == 0));
    FUZZ_CHECK(ecs_snapshot_world_hash(&a.w) == ecs_snapshot_world_hash(&b.w));
    replies = fz_check_output(a.out, a.out_n);
    FUZZ_CHECK(replies <= fz_messages(data, size));
    fz_check_world(&a);
    fz_side_free(&a);
    fz_side_free(&b);
    if (size < 4096) fz_script(data, size);
    return 0;
}

#ifdef FUZZ_STANDALONE
static void fuzz_cleanup(void) {}
#endif

#ifdef FUZZ_WRITE_SNAPSHOT
/* Writes the seed tests/corpus/fuzz_console/load_snapshot.bin: a world.load
   request holding a snapshot of this harness's world. */
int main(void)
{
    fz_side s;
    ecs_snapshot_output snap = {NULL, 0};
    ecs_error err;
    static const char json[] = "{\"type\": \"command\", \"id\": 1, \"command\": \"world.load\"}";
    unsigned char h[12];
    FILE *f;
    fz_side_init(&s);
    FUZZ_CHECK(ecs_snapshot_save(&s.w, NULL, &snap, &err) == ECS_OK);
    ecs__console_set_u32be(h, 1);
    ecs__console_set_u32be(h + 4, (uint32_t)(4 + sizeof json - 1 + snap.size));
    ecs__console_set_u32be(h + 8, (uint32_t)(sizeof json - 1));
    FUZZ_CHECK((f = fopen("tests/corpus/fuzz_console/load_snapshot.bin", "wb")) != NULL);
    fwrite(h, 1, 12, f);
    fwrite(json, 1, sizeof json - 1, f);
    fwrite(snap.data, 1, snap.size, f);
    fclose(f);
    ecs_snapshot_output_free(&snap);
    fz_side_free(&s);
    return 0;
}
#endif
