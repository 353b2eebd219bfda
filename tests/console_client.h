/* tests/console_client.h - the console tests' side of the wire: framing
   messages, reading replies out of the in-process connection
   (ecs_console_feed) or a loopback socket, and looking into a reply with
   the JSON reader. Every socket call is non-blocking and every wait is
   bounded (CLIENT_ROUNDS polls of at most 2 ms). Include after
   ecs_console.h and test.h. POSIX only. */
#ifndef CONSOLE_CLIENT_H_INCLUDED
#define CONSOLE_CLIENT_H_INCLUDED
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#if defined(__GNUC__) || defined(__clang__)
#define CLIENT_FN static __attribute__((unused))
#else
#define CLIENT_FN static
#endif

#define CLIENT_ROUNDS 2500 /* polls a wait gives the console: about 5 s at most */

/* ---- framing ---- */

CLIENT_FN void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}
CLIENT_FN uint32_t get_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* A growable byte string. */
typedef struct bytes {
    unsigned char *p;
    size_t n, cap;
} bytes;
CLIENT_FN void bytes_add(bytes *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->n + n) cap *= 2;
        b->p = (unsigned char *)realloc(b->p, cap);
        if (!b->p) abort();
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, p, n);
    b->n += n;
}
CLIENT_FN void bytes_free(bytes *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

/* Appends a type-0 message holding json. */
CLIENT_FN void frame_json(bytes *b, const char *json)
{
    unsigned char h[8];
    put_be32(h, 0);
    put_be32(h + 4, (uint32_t)strlen(json));
    bytes_add(b, h, 8);
    bytes_add(b, json, strlen(json));
}
/* Appends a type-1 message: json and a binary payload. */
CLIENT_FN void frame_binary(bytes *b, const char *json, const void *payload, size_t n)
{
    unsigned char h[12];
    put_be32(h, 1);
    put_be32(h + 4, (uint32_t)(4 + strlen(json) + n));
    put_be32(h + 8, (uint32_t)strlen(json));
    bytes_add(b, h, 12);
    bytes_add(b, json, strlen(json));
    bytes_add(b, payload, n);
}

/* One message read back. */
typedef struct message {
    uint32_t type;
    char *json;             /* NUL-terminated copy */
    unsigned char *payload; /* type 1 */
    size_t payload_size;
} message;
CLIENT_FN void message_free(message *m)
{
    free(m->json);
    free(m->payload);
    memset(m, 0, sizeof *m);
}

/* Takes the first whole message off b (shifting the rest down); 0 when
   none is whole yet. A malformed one (a framing the console must never
   send) aborts the test program. */
CLIENT_FN int take_message(bytes *b, message *m)
{
    uint32_t len, jl;
    memset(m, 0, sizeof *m);
    if (b->n < 8) return 0;
    len = get_be32(b->p + 4);
    if (b->n - 8 < len) return 0;
    m->type = get_be32(b->p);
    if (m->type == 0) {
        jl = len;
    } else {
        if (m->type != 1 || len < 4 || (jl = get_be32(b->p + 8)) > len - 4) {
            fprintf(stderr, "the console sent a malformed message\n");
            abort();
        }
    }
    m->json = (char *)malloc(jl + 1);
    memcpy(m->json, b->p + 8 + (m->type ? 4 : 0), jl);
    m->json[jl] = 0;
    if (m->type == 1) {
        m->payload_size = len - 4 - jl;
        m->payload = (unsigned char *)malloc(m->payload_size + 1);
        memcpy(m->payload, b->p + 12 + jl, m->payload_size);
    }
    memmove(b->p, b->p + 8 + len, b->n - 8 - len);
    b->n -= 8 + len;
    return 1;
}

/* ---- looking into a reply ---- */

static ecs_json_doc g_doc; /* the last reply looked into */

static void client_doc_free(void) { ecs_json_doc_free(&g_doc); }

/* Parses json into g_doc; the root, or NULL. g_doc is freed at exit (so
   a leak check or a counting ECS_FREE sees nothing left). */
CLIENT_FN const ecs_json_value *parse(const char *json)
{
    static int freed_at_exit;
    ecs_error err;
    if (!freed_at_exit) freed_at_exit = atexit(client_doc_free) == 0;
    if (ecs_json_parse(&g_doc, json, strlen(json), &err) != ECS_OK) {
        fprintf(stderr, "not JSON (%s): %.300s\n", err.message, json);
        return NULL;
    }
    return ecs_json_root(&g_doc);
}
CLIENT_FN const ecs_json_value *member(const ecs_json_value *v, const char *key)
{
    return v ? ecs_json_member(&g_doc, v, key) : NULL;
}
CLIENT_FN const char *string_of(const ecs_json_value *v) { return v ? ecs_json_string(&g_doc, v) : NULL; }
CLIENT_FN double number_of(const ecs_json_value *v) { return v && v->type == ECS_JSON_NUMBER ? v->number : -1.0; }

/* 1 when json is a reply with ok true (and the id, when id >= 0). */
CLIENT_FN int reply_ok(const char *json, long id)
{
    const ecs_json_value *r = json ? parse(json) : NULL, *v;
    if (!r || !(v = member(r, "ok")) || v->type != ECS_JSON_TRUE) return 0;
    if (!(v = member(r, "type")) || strcmp(string_of(v), "reply") != 0) return 0;
    return id < 0 || number_of(member(r, "id")) == (double)id;
}
/* The error text of a failed reply ("" when it is none). */
CLIENT_FN const char *reply_error(const char *json)
{
    const ecs_json_value *r = json ? parse(json) : NULL, *v = member(r, "ok");
    if (!v || v->type != ECS_JSON_FALSE) return "";
    return string_of(member(r, "error"));
}
/* The result of a reply (in g_doc), or NULL. */
CLIENT_FN const ecs_json_value *reply_result(const char *json)
{
    return reply_ok(json, -1) ? member(ecs_json_root(&g_doc), "result") : NULL;
}

/* ---- the in-process connection ---- */

static bytes g_feed_out; /* what the in-process connection was sent, not taken yet */
static int g_feed_open;  /* what the last feed returned */

CLIENT_FN void feed_bytes(ecs_console *c, const void *p, size_t n)
{
    size_t got;
    const unsigned char *out;
    g_feed_open = ecs_console_feed(c, p, n);
    out = ecs_console_feed_output(c, &got);
    bytes_add(&g_feed_out, out, got);
}

/* Sends one request through the in-process connection and returns its
   reply (message m, caller frees) ; 0 when none came. */
CLIENT_FN int feed_request(ecs_console *c, const char *json, message *m)
{
    bytes b = {NULL, 0, 0};
    frame_json(&b, json);
    feed_bytes(c, b.p, b.n);
    bytes_free(&b);
    return take_message(&g_feed_out, m);
}

/* ---- a loopback socket client ---- */

#define CLIENT_MAX_FD 1024 /* the socket numbers client_inbox keeps bytes for */

/* The bytes that came on socket fd after client_request's last reply
   (NULL for a number outside 0..CLIENT_MAX_FD-1). */
CLIENT_FN bytes *client_inbox(int fd)
{
    static bytes inbox[CLIENT_MAX_FD];
    return fd >= 0 && fd < CLIENT_MAX_FD ? &inbox[fd] : NULL;
}

/* A client socket connected to 127.0.0.1:port, non-blocking; rcvbuf > 0
   makes its receive buffer that small (a slow reader backs up sooner). */
CLIENT_FN int client_connect_buf(int port, int rcvbuf)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (fd < 0) return -1;
    if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(0x7F000001u);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) { /* the listen backlog takes it */
        close(fd);
        return -1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK);
    if (client_inbox(fd)) bytes_free(client_inbox(fd)); /* a closed socket's leftovers are not this one's */
    return fd;
}
CLIENT_FN int client_connect(int port) { return client_connect_buf(port, 0); }

/* Sends everything, polling the console while the socket is full. */
CLIENT_FN int client_send(ecs_console *c, int fd, const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    int rounds = 0;
    while (n > 0 && rounds < CLIENT_ROUNDS) {
        ssize_t sent = send(fd, b, n, MSG_NOSIGNAL);
        if (sent > 0) {
            b += sent;
            n -= (size_t)sent;
        } else if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            return 0;
        } else {
            ecs_console_poll(c);
            ecs_console_wait(c, 2);
            ++rounds;
        }
    }
    return n == 0;
}

/* Reads what is there without waiting: 1 bytes came, 0 nothing, -1 EOF or error. */
CLIENT_FN int client_recv_some(int fd, bytes *in)
{
    unsigned char buf[65536];
    ssize_t got = recv(fd, buf, sizeof buf, 0);
    if (got > 0) {
        bytes_add(in, buf, (size_t)got);
        return 1;
    }
    if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return -1;
    return 0;
}

/* Polls the console until a whole message arrives on fd (into m): 1, or 0
   when the connection closed first or the wait ran out. */
CLIENT_FN int client_read(ecs_console *c, int fd, bytes *in, message *m)
{
    int rounds, eof = 0;
    for (rounds = 0; rounds < CLIENT_ROUNDS; ++rounds) {
        if (take_message(in, m)) return 1;
        if (eof) return 0;
        ecs_console_poll(c);
        while (!eof) {
            int got = client_recv_some(fd, in);
            if (got < 0) eof = 1;
            if (got <= 0) break;
        }
        if (!eof && in->n < 8) {
            struct pollfd p;
            p.fd = fd;
            p.events = POLLIN;
            if (poll(&p, 1, 0) == 0) ecs_console_wait(c, 2);
        }
    }
    return take_message(in, m);
}

/* Polls until the console closed fd (EOF); what arrives before is added to in. */
CLIENT_FN int client_sees_close(ecs_console *c, int fd, bytes *in)
{
    int rounds;
    for (rounds = 0; rounds < CLIENT_ROUNDS; ++rounds) {
        ecs_console_poll(c);
        if (client_recv_some(fd, in) < 0) return 1;
        ecs_console_wait(c, 2);
    }
    return 0;
}

/* 1 when m is a pushed log line ({"type": "log", ...}), not a reply. */
CLIENT_FN int is_log_line(const message *m)
{
    ecs_json_doc doc;
    ecs_error err;
    const ecs_json_value *type;
    int log;
    memset(&doc, 0, sizeof doc);
    log = m->type == 0 && ecs_json_parse(&doc, m->json, strlen(m->json), &err) == ECS_OK &&
          (type = ecs_json_member(&doc, ecs_json_root(&doc), "type")) != NULL && type->type == ECS_JSON_STRING &&
          strcmp(ecs_json_string(&doc, type), "log") == 0;
    ecs_json_doc_free(&doc);
    return log;
}

/* One request over a socket and its reply (m, caller frees), log lines
   pushed meanwhile skipped. What arrives after the reply waits in
   client_inbox(fd) for the next client_request on that socket
   (client_connect_buf empties it for each new socket of that number). */
CLIENT_FN int client_request(ecs_console *c, int fd, const char *json, message *m)
{
    bytes out = {NULL, 0, 0}, none = {NULL, 0, 0}, *in = client_inbox(fd) ? client_inbox(fd) : &none;
    int ok, skipped;
    memset(m, 0, sizeof *m);
    frame_json(&out, json);
    ok = client_send(c, fd, out.p, out.n);
    for (skipped = 0; ok && (ok = client_read(c, fd, in, m)) && is_log_line(m) && skipped < CLIENT_ROUNDS; ++skipped)
        message_free(m);
    bytes_free(&out);
    bytes_free(&none);
    return ok && !is_log_line(m);
}
#endif
