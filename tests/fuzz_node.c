/* tests/fuzz_node.c - libFuzzer harness: any bytes as examples/engine.c's
   node messages and as a traffic log (the readers of examples/node.h).

   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -I/usr/include/stb \
         tests/fuzz_node.c -o fuzz_node -lm
   ./fuzz_node NEW_DIR tests/corpus/fuzz_node
   -DFUZZ_STANDALONE gives a main that replays files and directories.

   The input's first byte picks the reader, the rest is its bytes:
   - even: a node connection's stream. node_msg_parse takes whole messages
     while there are: each is inside the bytes, its type 0 or 1, its parts
     adding up to its size; a refusal names why and ends the stream (as the
     engine closes that connection); each message's JSON that parses is
     written back by node_json_value and parses again to the same shape,
     and its first NODE_NAME_MAX bytes at most, cut by node_utf8_cut (as
     a client's --name), written as a JSON string parse (no sequence cut);
     a short message's bytes as a --fault rule (node_faults_parse) are
     taken only with every value in its range (not NaN), else say why.
   - odd: a traffic log. node_log_open and node_log_next take records
     while they are whole: each inside the log and past the last, its body
     checked by its kind; the reader ends cleanly only at the log's end, and
     otherwise says why (offset) without reading past the bytes.
   Beyond "no crash, no sanitizer report, no leak". */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#include "examples/node.h"
#include "fuzz_common.h"

static ecs_json_doc doc, again;
static node_buf text;

/* The JSON of a message, written back and read again: the same number of
   values; its text (UTF-8: it parsed) cut as a name, a JSON string that parses. */
static void check_json(const char *json, size_t n)
{
    ecs_error err;
    size_t cut;
    if (ecs_json_parse(&doc, json, n, &err) != ECS_OK) return;
    cut = node_utf8_cut(json, n, NODE_NAME_MAX);
    FUZZ_CHECK(cut <= n && cut <= NODE_NAME_MAX && (n > NODE_NAME_MAX || cut == n));
    text.len = 0;
    node_json_string(&text, json, cut);
    FUZZ_CHECK(!text.oom && ecs_json_parse(&again, (const char *)text.p, text.len, &err) == ECS_OK);
    text.len = 0;
    node_json_value(&text, &doc, ecs_json_root(&doc));
    FUZZ_CHECK(!text.oom);
    FUZZ_CHECK(ecs_json_parse(&again, (const char *)text.p, text.len, &err) == ECS_OK);
    FUZZ_CHECK(again.num_values == doc.num_values);
}

static void fuzz_stream(const unsigned char *p, size_t n)
{
    size_t at = 0;
    char why[200];
    for (;;) {
        node_msg m;
        int got = node_msg_parse(p + at, n - at, 1u << 20, &m, why, sizeof why);
        if (got == 0) return;
        if (got < 0) {
            FUZZ_CHECK(why[0] != 0);
            return;
        }
        FUZZ_CHECK(m.size >= 8 && m.size <= n - at && m.type <= 1u);
        FUZZ_CHECK((const unsigned char *)m.json >= p + at && (const unsigned char *)m.json + m.json_len <= p + at + m.size);
        if (m.type == 1u) FUZZ_CHECK(12u + m.json_len + m.payload_len == m.size);
        else FUZZ_CHECK(8u + m.json_len == m.size && m.payload == NULL);
        check_json(m.json, m.json_len);
        if (m.json_len < 200) { /* as a --fault rule too */
            char spec[200];
            node_faults fr;
            memset(&fr, 0, sizeof fr);
            memcpy(spec, m.json, m.json_len);
            spec[m.json_len] = 0;
            why[0] = 0;
            if (node_faults_parse(spec, &fr, why, sizeof why)) /* each in range: NaN fails these */
                FUZZ_CHECK(fr.on && fr.drop >= 0.0 && fr.drop <= 1.0 && fr.dup >= 0.0 && fr.dup <= 1.0 &&
                           fr.reorder >= 0.0 && fr.reorder <= 1.0 && fr.delay <= 1000u);
            else
                FUZZ_CHECK(why[0] != 0);
        }
        at += m.size;
    }
}

static void fuzz_log(const unsigned char *p, size_t n)
{
    size_t at = NODE_LOG_HEADER, last = 0;
    node_log_rec r;
    char why[400];
    int got;
    why[0] = 0;
    if (!node_log_open(p, n, why, sizeof why)) {
        FUZZ_CHECK(why[0] != 0);
        return;
    }
    while ((got = node_log_next(p, n, &at, &r, why, sizeof why)) == 1) {
        FUZZ_CHECK(r.offset >= last && r.body >= p + r.offset && r.body + r.body_len <= p + n && at <= n && at > r.offset);
        FUZZ_CHECK(r.kind >= NODE_LOG_START && r.kind <= NODE_LOG_NOTE);
        last = at;
    }
    if (got == 0) FUZZ_CHECK(at == n);
    else FUZZ_CHECK(why[0] != 0 && at < n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *copy;
    if (size == 0) return 0;
    copy = (unsigned char *)malloc(size); /* the readers see exactly the bytes (ASan: no reads past) */
    FUZZ_CHECK(copy != NULL);
    memcpy(copy, data + 1, size - 1u);
    if (data[0] & 1u) fuzz_log(copy, size - 1u);
    else fuzz_stream(copy, size - 1u);
    free(copy);
    return 0;
}

#ifdef FUZZ_STANDALONE
static void fuzz_cleanup(void)
{
    ecs_json_doc_free(&doc);
    ecs_json_doc_free(&again);
    node_buf_free(&text);
}
#endif
