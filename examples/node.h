/* examples/node.h - the pieces of examples/engine.c's nodes that do not need
   the engine: message framing, JSON text, the traffic log's format, the
   fault rule and non-blocking TCP sockets (POSIX). Static functions, for
   one file (the engine; tests/fuzz_node.c fuzzes the readers). Needs ecs.h
   and ecs_resource.h (the JSON reader) before it.

   THE NODE PROTOCOL (its own port, not the console's: see engine.c NODES)
   Framing as the console's (DESIGN.md 11): a big-endian u32 type, a
   big-endian u32 length, then length bytes; type 0 is UTF-8 JSON, type 1 a
   big-endian u32 json_length, the JSON, then the binary payload. A message
   is at most NODE_MAX_MESSAGE bytes. Every message is a JSON object with a
   "type":
     client -> server
       {"type": "hello", "protocol": 2, "byte_order": "little", "name": "...",
        "token": "16 hex", "inputs": N}
                name: at most NODE_NAME_MAX bytes (longer: cut at a UTF-8
                boundary); token: the client's own random name, the same on
                every connection of one run; inputs: the last input seq it
                knows the server applied (token and inputs may be left out:
                then the inputs count from 1 on this connection alone)
       {"type": "ack", "state": S}                 state S is applied
       {"type": "resync", "state": S, "reason": "..."}   state S did not apply:
                                                   send a full snapshot
       {"type": "input", "seq": N, "command": "spawn", "args": {...}}
                seq counts from 1 for a token, on across its connections
       {"type": "alive"}                           nothing else to say for 1 s
       {"type": "bye"}
     server -> client
       {"type": "welcome", "protocol": 2, "client": ID, "frame": F, "inputs": N}
                inputs: the last input seq of this token the server applied
                (the client forgets those, resends the rest)
       {"type": "refused", "error": "..."}         then the server closes
       type 1: {"type": "state", "state": S, "frame": F, "base": B,
                "hash": "16 hex", "inputs": N} + payload: the server's state
                number S (one after each frame, and one more when commands
                or inputs changed the world between two frames) as a
                snapshot (base -1) or a delta against state B, the newest
                this client acknowledged; F is the server's frame then;
                hash is the server's world hash in state S (the client
                compares its own); inputs is the last input seq applied
       {"type": "input_result", "seq": N, "frame": F, "reply": {...}}
                reply: the console's reply to the command ("ok", "result"
                or "error")
       {"type": "alive"}
   The server keeps the last input seq applied for each token (the last
   64 tokens: engine.c NODE_KNOWN), so an input is applied once however often its
   client leaves and joins again; a client whose token the server has
   forgotten (a restart, more tokens since) is trusted for its "inputs".

   THE TRAFFIC LOG (--log-traffic FILE, version 1; every integer big-endian)
     header, 16 bytes: "ECSTRAFF", u32 version (1), u32 header size (16)
     records, one after another, each:
       u32 size   bytes of the record, these 16 included (16 .. 16 + 8 +
                  NODE_MAX_MESSAGE)
       u32 frame  the node's frame when it happened (frames run so far; a
                  client's: the server frame of the state it has applied)
       u8  kind   NODE_LOG_START, _NET_IN, _CONSOLE_IN, _NET_OUT, _FRAME,
                  _NOTE (below)
       u8  reserved[3], zero
       u32 peer   the server's client id (the client: 0, the server)
       size - 16 bytes of body:
         START       JSON {"role": "server" | "client", "protocol", "byte_order",
                     "args": [the command line]}: the first record (an
                     argument that is not UTF-8 is refused at start-up)
         NET_IN      one framed node message as it was handled (after the
                     fault rule: a replay reproduces a faulty run)
         CONSOLE_IN  one framed console request as it was handled (an HTTP
                     GET /api/NAME: the framed command request it equals)
         NET_OUT     one framed node message sent (replay skips them)
         FRAME       u64 the world hash once the frame (the record's) was
                     reached: after a frame ran, or a state was applied
         NOTE        UTF-8 text: joins, leaves, divergences (replay skips);
                     peer 0, or on a server the client whose connection
                     closed (a bye, a refusal, a broken or silent socket, bad
                     framing): a replay closes that peer then
   A reader takes records while they are whole; a log cut short ends at the
   last whole record and the reader says where (node_log_next). */
#ifndef EXAMPLES_NODE_H
#define EXAMPLES_NODE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* every function static; those a file does not call are no warning */
#if defined(__GNUC__) || defined(__clang__)
#define NODE_FN static __attribute__((unused))
#else
#define NODE_FN static
#endif

#define NODE_PROTOCOL 2u
#define NODE_MAX_MESSAGE (256u << 20)
#define NODE_LOG_VERSION 1u
#define NODE_LOG_HEADER 16u
#define NODE_LOG_RECORD 16u
#define NODE_NAME_MAX 60u /* bytes of a client's name, in its hello */

enum { NODE_LOG_START = 1, NODE_LOG_NET_IN, NODE_LOG_CONSOLE_IN, NODE_LOG_NET_OUT, NODE_LOG_FRAME, NODE_LOG_NOTE };

/* ---- bytes ------------------------------------------------------------------------ */

typedef struct node_buf {
    unsigned char *p;
    size_t len, cap;
    int oom; /* a put failed: the contents are incomplete */
} node_buf;

NODE_FN uint32_t node_get32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

NODE_FN void node_set32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

NODE_FN int node_buf_reserve(node_buf *b, size_t extra)
{
    size_t cap;
    unsigned char *p;
    if (b->oom) return 0;
    if (b->len + extra <= b->cap) return 1;
    cap = b->cap ? b->cap : 256u;
    while (cap < b->len + extra) cap *= 2u;
    if (!(p = (unsigned char *)realloc(b->p, cap))) {
        b->oom = 1;
        return 0;
    }
    b->p = p;
    b->cap = cap;
    return 1;
}

NODE_FN void node_buf_put(node_buf *b, const void *d, size_t n)
{
    if (!n || !node_buf_reserve(b, n)) return;
    memcpy(b->p + b->len, d, n);
    b->len += n;
}

NODE_FN void node_buf_put32(node_buf *b, uint32_t v)
{
    unsigned char q[4];
    node_set32(q, v);
    node_buf_put(b, q, 4);
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
NODE_FN void node_buf_printf(node_buf *b, const char *format, ...)
{
    va_list ap;
    int n;
    va_start(ap, format);
    n = vsnprintf(NULL, 0, format, ap);
    va_end(ap);
    if (n < 0 || !node_buf_reserve(b, (size_t)n + 1u)) return;
    va_start(ap, format);
    vsnprintf((char *)b->p + b->len, (size_t)n + 1u, format, ap);
    va_end(ap);
    b->len += (size_t)n;
}

NODE_FN void node_buf_free(node_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* Drops the first n bytes. */
NODE_FN void node_buf_consume(node_buf *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
        return;
    }
    memmove(b->p, b->p + n, b->len - n);
    b->len -= n;
}

/* ---- framing ------------------------------------------------------------------------ */

typedef struct node_msg {
    uint32_t type;                 /* 0 or 1 */
    size_t size;                   /* bytes of the whole message, header included */
    const char *json;              /* not NUL-terminated */
    size_t json_len;
    const unsigned char *payload;  /* type 1: the binary part (NULL for type 0) */
    size_t payload_len;
} node_msg;

/* Reads the message at p (n bytes there): 1 and *m when it is whole, 0 when
   more bytes are needed, -1 when it is bad (why says what: a type other
   than 0 and 1, a length over max, a json_length past its end). */
NODE_FN int node_msg_parse(const unsigned char *p, size_t n, uint32_t max, node_msg *m, char *why, size_t why_size)
{
    uint32_t type, len, jl;
    memset(m, 0, sizeof *m);
    if (n < 8) return 0;
    type = node_get32(p);
    len = node_get32(p + 4);
    if (type > 1u) {
        snprintf(why, why_size, "message type %u (0: JSON, 1: JSON with a payload)", (unsigned)type);
        return -1;
    }
    if (len > max) {
        snprintf(why, why_size, "message of %u bytes, over the limit of %u", (unsigned)len, (unsigned)max);
        return -1;
    }
    if (type == 1u && len < 4u) {
        snprintf(why, why_size, "type 1 message of %u bytes: no room for its json_length", (unsigned)len);
        return -1;
    }
    if (n - 8u < len) return 0;
    m->type = type;
    m->size = 8u + (size_t)len;
    if (type == 0u) {
        m->json = (const char *)p + 8;
        m->json_len = len;
        return 1;
    }
    jl = node_get32(p + 8);
    if (jl > len - 4u) {
        snprintf(why, why_size, "json_length %u past the message's %u bytes", (unsigned)jl, (unsigned)len);
        return -1;
    }
    m->json = (const char *)p + 12;
    m->json_len = jl;
    m->payload = p + 12 + jl;
    m->payload_len = len - 4u - jl;
    return 1;
}

/* Appends one framed message: type 0 without a payload, else type 1. */
NODE_FN void node_msg_write(node_buf *b, const char *json, size_t json_len, const void *payload, size_t payload_len)
{
    if (!payload) {
        node_buf_put32(b, 0u);
        node_buf_put32(b, (uint32_t)json_len);
    } else {
        node_buf_put32(b, 1u);
        node_buf_put32(b, (uint32_t)(4u + json_len + payload_len));
        node_buf_put32(b, (uint32_t)json_len);
    }
    node_buf_put(b, json, json_len);
    if (payload) node_buf_put(b, payload, payload_len);
}

/* ---- JSON text ---------------------------------------------------------------------- */

NODE_FN void node_json_string(node_buf *b, const char *s, size_t n)
{
    size_t k;
    node_buf_put(b, "\"", 1);
    for (k = 0; k < n; ++k) {
        unsigned char ch = (unsigned char)s[k];
        if (ch == '"' || ch == '\\') {
            char e[2] = {'\\', (char)ch};
            node_buf_put(b, e, 2);
        } else if (ch < 0x20u) {
            node_buf_printf(b, "\\u%04x", (unsigned)ch);
        } else {
            node_buf_put(b, &s[k], 1);
        }
    }
    node_buf_put(b, "\"", 1);
}

/* How many of s's n bytes to keep for at most max: n, or less so that no
   UTF-8 sequence is cut. */
NODE_FN size_t node_utf8_cut(const char *s, size_t n, size_t max)
{
    size_t cut = n;
    if (cut > max)
        for (cut = max; cut > 0 && ((unsigned char)s[cut] & 0xC0u) == 0x80u; --cut) continue;
    return cut;
}

/* Writes a parsed value back as JSON text (numbers: whole ones exactly, the
   others with 17 digits, which read back to the same double). */
NODE_FN void node_json_value(node_buf *b, const ecs_json_doc *doc, const ecs_json_value *v)
{
    const ecs_json_value *c;
    int first = 1;
    switch (v->type) {
    case ECS_JSON_NULL: node_buf_put(b, "null", 4); return;
    case ECS_JSON_FALSE: node_buf_put(b, "false", 5); return;
    case ECS_JSON_TRUE: node_buf_put(b, "true", 4); return;
    case ECS_JSON_STRING: node_json_string(b, ecs_json_string(doc, v), v->count); return;
    case ECS_JSON_NUMBER:
        if ((v->flags & ECS_JSON_WHOLE) && v->integer <= 9007199254740992ull)
            node_buf_printf(b, "%s%llu", (v->flags & ECS_JSON_NEGATIVE) ? "-" : "", (unsigned long long)v->integer);
        else if (v->number > 1.7976931348623157e308 || v->number < -1.7976931348623157e308)
            node_buf_put(b, v->number > 0 ? "1e999" : "-1e999", v->number > 0 ? 5u : 6u); /* read back as inf */
        else
            node_buf_printf(b, "%.17g", v->number);
        return;
    default: break;
    }
    node_buf_put(b, v->type == ECS_JSON_ARRAY ? "[" : "{", 1);
    for (c = ecs_json_first(doc, v); c; c = ecs_json_next(doc, c), first = 0) {
        if (!first) node_buf_put(b, ", ", 2);
        if (v->type == ECS_JSON_OBJECT) {
            node_json_string(b, ecs_json_key(doc, c), c->key_length);
            node_buf_put(b, ": ", 2);
        }
        node_json_value(b, doc, c);
    }
    node_buf_put(b, v->type == ECS_JSON_ARRAY ? "]" : "}", 1);
}

/* A member that must be a whole number in [lo, hi]: 1 and *out, else 0. */
NODE_FN int node_json_int(const ecs_json_doc *doc, const ecs_json_value *obj, const char *key, double lo, double hi,
                         double *out)
{
    const ecs_json_value *v = ecs_json_member(doc, obj, key);
    if (!v || v->type != ECS_JSON_NUMBER || !(v->flags & ECS_JSON_WHOLE) || v->number < lo || v->number > hi) return 0;
    *out = v->number;
    return 1;
}

/* A string member, or NULL. */
NODE_FN const char *node_json_str(const ecs_json_doc *doc, const ecs_json_value *obj, const char *key)
{
    const ecs_json_value *v = ecs_json_member(doc, obj, key);
    return v && v->type == ECS_JSON_STRING ? ecs_json_string(doc, v) : NULL;
}

/* "0123456789abcdef" -> value; 1 when s is exactly 16 hex digits. */
NODE_FN int node_parse_hash(const char *s, uint64_t *out)
{
    uint64_t h = 0;
    int k;
    if (!s) return 0;
    for (k = 0; k < 16; ++k) {
        char ch = s[k];
        uint64_t d;
        if (ch >= '0' && ch <= '9') d = (uint64_t)(ch - '0');
        else if (ch >= 'a' && ch <= 'f') d = (uint64_t)(ch - 'a' + 10);
        else return 0;
        h = h << 4 | d;
    }
    if (s[16] != '\0') return 0;
    *out = h;
    return 1;
}

/* ---- the traffic log ------------------------------------------------------------------ */

typedef struct node_log_rec {
    uint32_t frame, kind, peer;
    const unsigned char *body;
    size_t body_len;
    size_t offset; /* of the record in the log */
} node_log_rec;

NODE_FN const char *node_log_kind_name(uint32_t kind)
{
    static const char *const names[] = {"?", "start", "net-in", "console-in", "net-out", "frame", "note"};
    return kind >= 1u && kind <= 6u ? names[kind] : "?";
}

/* Writes the log's header. */
NODE_FN void node_log_header(node_buf *b)
{
    node_buf_put(b, "ECSTRAFF", 8);
    node_buf_put32(b, NODE_LOG_VERSION);
    node_buf_put32(b, NODE_LOG_HEADER);
}

/* Appends one record (head and body). */
NODE_FN void node_log_record(node_buf *b, uint32_t kind, uint32_t frame, uint32_t peer, const void *body, size_t n)
{
    unsigned char head[NODE_LOG_RECORD];
    node_set32(head, (uint32_t)(NODE_LOG_RECORD + n));
    node_set32(head + 4, frame);
    head[8] = (unsigned char)kind;
    head[9] = head[10] = head[11] = 0;
    node_set32(head + 12, peer);
    node_buf_put(b, head, sizeof head);
    node_buf_put(b, body, n);
}

/* Checks the header of a log of n bytes: 1, or 0 with why. */
NODE_FN int node_log_open(const unsigned char *p, size_t n, char *why, size_t why_size)
{
    if (n < NODE_LOG_HEADER || memcmp(p, "ECSTRAFF", 8) != 0) {
        snprintf(why, why_size, "not a traffic log: %s", n < NODE_LOG_HEADER ? "shorter than its 16-byte header"
                                                                              : "no \"ECSTRAFF\" at offset 0");
        return 0;
    }
    if (node_get32(p + 8) != NODE_LOG_VERSION || node_get32(p + 12) != NODE_LOG_HEADER) {
        snprintf(why, why_size, "traffic log version %u (header %u bytes): this build reads version %u",
                 (unsigned)node_get32(p + 8), (unsigned)node_get32(p + 12), (unsigned)NODE_LOG_VERSION);
        return 0;
    }
    return 1;
}

/* Checks a record's body by its kind: 1, or 0 with why. */
NODE_FN int node_log_body_ok(const node_log_rec *r, char *why, size_t why_size)
{
    node_msg m;
    char inner[160];
    if (r->kind < NODE_LOG_START || r->kind > NODE_LOG_NOTE) {
        snprintf(why, why_size, "record at offset %lu: kind %u unknown", (unsigned long)r->offset, (unsigned)r->kind);
        return 0;
    }
    if (r->kind == NODE_LOG_FRAME && r->body_len != 8u) {
        snprintf(why, why_size, "record at offset %lu: a frame record of %lu body bytes, not 8", (unsigned long)r->offset,
                 (unsigned long)r->body_len);
        return 0;
    }
    if (r->kind == NODE_LOG_NET_IN || r->kind == NODE_LOG_CONSOLE_IN || r->kind == NODE_LOG_NET_OUT) {
        int got = node_msg_parse(r->body, r->body_len, NODE_MAX_MESSAGE, &m, inner, sizeof inner);
        if (got <= 0 || m.size != r->body_len) {
            snprintf(why, why_size, "record at offset %lu (%s, frame %u): its message %s", (unsigned long)r->offset,
                     node_log_kind_name(r->kind), (unsigned)r->frame,
                     got < 0 ? inner : got == 0 ? "is cut short" : "is shorter than the record");
            return 0;
        }
    }
    return 1;
}

/* The record at *offset of a log of n bytes: 1 and *r (offset moves past
   it), 0 at the clean end, -1 when the log is cut inside a record or the
   record is bad: why names the offset, the frame and what was wrong. */
NODE_FN int node_log_next(const unsigned char *p, size_t n, size_t *offset, node_log_rec *r, char *why, size_t why_size)
{
    size_t at = *offset, left = n - at;
    uint32_t size;
    memset(r, 0, sizeof *r);
    if (at == n) return 0;
    if (left < NODE_LOG_RECORD) {
        snprintf(why, why_size, "the log ends inside a record head at offset %lu (%lu of %u bytes)", (unsigned long)at,
                 (unsigned long)left, (unsigned)NODE_LOG_RECORD);
        return -1;
    }
    size = node_get32(p + at);
    r->offset = at;
    r->frame = node_get32(p + at + 4);
    r->kind = p[at + 8];
    r->peer = node_get32(p + at + 12);
    if (size < NODE_LOG_RECORD || size > NODE_LOG_RECORD + 8u + NODE_MAX_MESSAGE || p[at + 9] || p[at + 10] || p[at + 11]) {
        snprintf(why, why_size, "record at offset %lu (frame %u): size %u or its reserved bytes are not valid",
                 (unsigned long)at, (unsigned)r->frame, (unsigned)size);
        return -1;
    }
    if (size > left) {
        snprintf(why, why_size, "the log ends inside a record at offset %lu (frame %u, %s): %lu of its %u bytes",
                 (unsigned long)at, (unsigned)r->frame, node_log_kind_name(r->kind), (unsigned long)left, (unsigned)size);
        return -1;
    }
    r->body = p + at + NODE_LOG_RECORD;
    r->body_len = size - NODE_LOG_RECORD;
    if (!node_log_body_ok(r, why, why_size)) return -1;
    *offset = at + size;
    return 1;
}

/* ---- faults ------------------------------------------------------------------------------ */

/* --fault drop=P,dup=P,reorder=P,delay=N: each incoming node message is
   dropped with probability drop, else delivered twice with probability dup;
   held for 0..delay frame periods (uniformly); with probability reorder
   held one or two frame periods more, so that later ones overtake it. The
   decisions come from --fault-seed's generator, in arrival order. */
typedef struct node_faults {
    int on;
    double drop, dup, reorder;
    uint32_t delay;
    uint64_t rng;
    uint64_t dropped, duplicated, delayed, reordered;
} node_faults;

NODE_FN double node_faults_uniform(node_faults *f) /* [0, 1) */
{
    uint64_t x = f->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    f->rng = x;
    return (double)((x * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/* Parses "drop=0.05,delay=3,..." into f: 1, or 0 with why. */
NODE_FN int node_faults_parse(const char *spec, node_faults *f, char *why, size_t why_size)
{
    const char *s = spec;
    while (*s) {
        char key[16];
        size_t k = 0;
        char *end;
        double v, limit;
        while (*s && *s != '=' && k + 1 < sizeof key) key[k++] = *s++;
        key[k] = 0;
        if (*s != '=') {
            snprintf(why, why_size, "--fault '%.60s': '%s' has no '=VALUE'", spec, key);
            return 0;
        }
        v = strtod(++s, &end);
        limit = strcmp(key, "delay") == 0 ? 1000.0 : 1.0;
        if (end == s || (*end && *end != ',') || !(v >= 0.0 && v <= limit)) { /* NaN fails it too */
            snprintf(why, why_size, "--fault '%.60s': %s needs %s", spec, key,
                     strcmp(key, "delay") == 0 ? "frames 0..1000" : "a probability 0..1");
            return 0;
        }
        if (strcmp(key, "drop") == 0) f->drop = v;
        else if (strcmp(key, "dup") == 0) f->dup = v;
        else if (strcmp(key, "reorder") == 0) f->reorder = v;
        else if (strcmp(key, "delay") == 0) f->delay = (uint32_t)v;
        else {
            snprintf(why, why_size, "--fault '%.60s': unknown '%s' (drop, dup, reorder, delay)", spec, key);
            return 0;
        }
        s = *end ? end + 1 : end;
    }
    f->on = 1;
    return 1;
}

/* The fault rule for one arriving message: the number of copies to
   deliver (0, 1 or 2) and the frame periods each waits. */
NODE_FN uint32_t node_faults_decide(node_faults *f, uint32_t *hold)
{
    uint32_t copies = 1;
    *hold = 0;
    if (!f->on) return 1;
    if (node_faults_uniform(f) < f->drop) {
        f->dropped++;
        return 0;
    }
    if (node_faults_uniform(f) < f->dup) copies = 2, f->duplicated++;
    if (f->delay) {
        *hold = (uint32_t)(node_faults_uniform(f) * (double)(f->delay + 1u));
        if (*hold > f->delay) *hold = f->delay;
        f->delayed += *hold != 0;
    }
    if (node_faults_uniform(f) < f->reorder) *hold += 1u + (node_faults_uniform(f) < 0.5), f->reordered++;
    return copies;
}

#endif /* EXAMPLES_NODE_H */
