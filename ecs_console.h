/* ecs_console.h - v0.9 - the development console: framed JSON over TCP,
   commands, a world's built-in commands, HTTP for an inspector page, for
   ecs.h
   Public domain or MIT (see end of file).

   A running engine opens a port that scripts, tools and people talk to, as
   every Bitsquid game did in development mode ("Scripted Network
   Debugging", 2014): a client sends a command as JSON, the engine answers
   in the same framing, and pushes its log lines. The console is polled
   from the frame loop: no threads, no blocking, nothing allocated per frame
   once its buffers have grown. Needs ecs.h, ecs_resource.h (the JSON
   reader, schemas) and ecs_snapshot.h (world.save, world.load, world.hash,
   world.entity), which it includes; POSIX sockets, or Winsock under _WIN32.

   FOR DEVELOPMENT BUILDS. Anyone who reaches the port can read and change
   the world, load snapshots and run every registered command; there is no
   authentication. It binds 127.0.0.1 unless you name another address:
   leave it out of shipping builds, or never give it an outside address.

   Do this in *one* C or C++ file (after the implementations of ecs.h,
   ecs_resource.h and ecs_snapshot.h when they are in the same file):
       #define ECS_CONSOLE_IMPLEMENTATION
       #include "ecs_console.h"
   and include "ecs_console.h" plainly everywhere else. Link with ws2_32
   under _WIN32 (MSVC: a #pragma does it). For plugin commands include
   ecs_plugin.h BEFORE ecs_console.h in the implementation file (PLUGINS).

TABLE OF CONTENTS
   QUICK START, PROTOCOL (framing, requests, replies, log lines), COMMANDS
   (registering, handlers, the script form), BUILT-IN WORLD COMMANDS,
   PLUGINS, CONNECTIONS (one state machine, limits, back-pressure,
   timeouts), HTTP (the inspector page, /api/NAME, status codes, who may
   call), CONFIGURATION, ERRORS, MEMORY, THREADING, DOES NOT,
   REFERENCE, REVISION HISTORY, LICENSE (end of file)

QUICK START (compiled and run by tests/check_quickstart.sh)

    #define ECS_IMPLEMENTATION
    #include "ecs.h"
    #define ECS_RESOURCE_IMPLEMENTATION
    #include "ecs_resource.h"
    #define ECS_SNAPSHOT_IMPLEMENTATION
    #include "ecs_snapshot.h"
    #define ECS_CONSOLE_IMPLEMENTATION
    #include "ecs_console.h"
    #include <stdio.h>
    #include <string.h>

    static int paused;

    // a command: parsed JSON arguments in, a JSON result out
    static ecs_result cmd_pause(void *user, ecs_console_call *call) {
        (void)user;
        paused = 1;
        return ecs_console_result_json(call, "{\"paused\": true}", 16);
    }

    int main(void) {
        ecs_world world;
        ecs_console_desc desc;
        ecs_console_command_desc pause = {"frame.pause", "stops the frame loop", NULL, cmd_pause, NULL};
        ecs_console *console;
        ecs_error err;
        const unsigned char *reply;
        size_t n;
        int frame;
        // a request in the seed's framing: type 0 (JSON), its length, the JSON
        const char *json = "{\"type\": \"command\", \"id\": 1, \"command\": \"frame.pause\"}";
        unsigned char msg[128] = {0, 0, 0, 0, 0, 0, 0, 0};
        msg[7] = (unsigned char)strlen(json);
        memcpy(msg + 8, json, strlen(json));

        ecs_world_init(&world);
        memset(&desc, 0, sizeof desc);   // zero means default
        desc.port = 0;                   // a free port on 127.0.0.1: ecs_console_port
        desc.world = &world;             // help, world.stats, world.entity, ...
        console = ecs_console_create(&desc, &err);
        if (!console) {
            printf("%s\n", err.message);
            return 1;
        }
        ecs_console_add_command(console, &pause, &err);
        for (frame = 0; frame < 3 && !paused; ++frame) {
            ecs_console_poll(console);   // clients, requests, replies: what is pending
            // ... the frame ...
            // a client would send msg to the port; this one is handed in by hand:
            if (frame == 1) ecs_console_feed(console, msg, 8 + strlen(json));
        }
        reply = ecs_console_feed_output(console, &n);    // what a client would read
        printf("paused=%d after frame %d\n%.*s\n", paused, frame, (int)(n - 8), (const char *)reply + 8);
        ecs_console_destroy(console);
        ecs_world_free(&world);
        return 0;
    }

PROTOCOL (DESIGN.md section 11: outside checks rely on it; keep it)
   Framing, both ways (the seed's [type, length].pack("NN") + json): a
   big-endian u32 type, a big-endian u32 length, then length bytes.
     type 0  UTF-8 JSON
     type 1  JSON with a binary payload: a big-endian u32 json_length, the
             JSON, then length - 4 - json_length bytes of binary
   Requests (one message each; "id" is optional, a whole number 0..2^53,
   echoed; "args" optional):
     {"type": "command", "id": 7, "command": "world.entity", "args": {"entity": 5}}
     {"type": "script", "id": 8, "script": "world.entity 5\nworld.hash"}
   A type-1 request hands its payload to the command (world.load).
   Replies, one per request, in request order per connection:
     {"type": "reply", "id": 7, "ok": true, "result": {...}}
     {"type": "reply", "id": 7, "ok": false, "error": "world.entity: argument 'entity': entity 99 is not alive"}
   A command that answers with a payload (world.save) sends a type-1 reply.
   Pushed log lines (ecs_console_log), to every connection that has sent a
   message:
     {"type": "log", "level": "info" | "warning" | "error", "message": "..."}
   Entities are their 32-bit ids as numbers (ecs_entity.id); 64-bit hashes
   are strings of 16 lowercase hex digits.

COMMANDS
   A command is a name ("world.hash": letters, digits, '.', '_', '-'; at
   most ECS_CONSOLE_NAME_MAX - 1 bytes), a one-line help text, the names of
   its arguments in order (for the script form) and a handler:
       static ecs_result cmd_spawn(void *user, ecs_console_call *call) {
           engine *g = (engine *)user;
           const char *prefab;
           float at[3], zero[3] = {0, 0, 0};
           ecs_result r;
           if ((r = ecs_console_arg_string(call, "prefab", NULL, &prefab)) ||  // required
               (r = ecs_console_arg_f32_array(call, "position", at, 3, zero)))  // optional
               return r;                          // the error names the argument
           ...
           if (failed) return ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "no prefab '%s'", prefab);
           return ecs_console_result_printf(call, "{\"entity\": %u}", (unsigned)e.id);
       }
       ecs_console_command_desc d = {"spawn", "spawns a prefab at a position",
                                     "prefab position", cmd_spawn, &engine};
       ecs_console_add_command(console, &d, &err);
   The handler reads its arguments (ecs_console_arg_* with a fallback, or
   NULL for a required one; ecs_console_arg for any JSON value), writes one
   JSON value as its result (ecs_console_result_json / _string / _printf,
   appended in pieces; nothing written: null) and may attach a binary
   payload (ecs_console_result_payload); or it fails (ecs_console_fail). The
   reply's error is "NAME: message". A result that is not valid JSON is
   caught and answered as an error, never sent.
   The script form runs lines through the same table, so a person can type
   at it: one command a line, NAME ARG ARG ... where each ARG is a JSON
   value (5, [1, 2, 3], "a b", true) or a bare word taken as a string
   (crate, models/crate); a word starting with '"', '[' or '{' must be one
   JSON value ("argument 'NAME' is not JSON: ..." otherwise); positional
   arguments take the names the command declared in order, KEY=VALUE names
   one. Blank lines and lines starting with '#' are skipped. The reply's
   result is the array of the lines' results; the first line that fails
   stops the script and the error says "line 2 (world.entity 99): ...". A
   command that answers with a payload cannot run in a script.

BUILT-IN WORLD COMMANDS (desc.world set; names and shapes in DESIGN.md 11)
   help                     every command: [{"name", "help", "args": [...]}]
   world.stats              {"entities": alive, "max_index", "frame",
                             "stores": [{"name", "kind", "count"}]}
                             kind: direct, dense, hash or store (interface)
   world.components         [{"name", "identifier", "kind", "count",
                              "fields": [{"name", "size", "kind", "spec"}]}]
   world.entities           offset (0), limit (100), with ([names]):
                            {"total", "offset", "entities": [ids]}, alive
                            entities by index, those owning every `with`
   world.entity             entity: ecs_world_entity_json's object (every
                            instance through the schemas)
   world.query              all ([names], required), any ([names]), limit
                            (100): {"total", "matches": [{"entity", NAME:
                            instance or null, ...}]}; any: a match owns at
                            least one of them (ecs.h's optional terms)
   world.set                entity, component, field, value (instance: the
                            entity's k-th instance, 0): one field of a schema
                            manager's instance, checked as the compiler
                            checks a level (ecs_schema_value_read: kind,
                            min, max); {"entity", "component", "field",
                            "instance"}
   world.destroy            entity (tree: a hierarchy store's name to take
                            its subtree too): ecs_world_destroy_now
   world.tree               entity (omitted or null: the roots), store (a
                            hierarchy store: one with parent_of, default
                            the first such), offset (0), limit (100):
                            {"store", "entity", "parent", "children":
                            [{"entity", "descendants"}], "total",
                            "offset"}: one pass over the store's instances
                            (an inspector's lazy tree: children on expand)
   world.hash               {"hash": "16 hex digits", "frame": N}
                            (ecs_snapshot_world_hash; frame:
                            ecs_console_set_frame)
   world.save               stores ([names], all): a type-1 reply, the
                            snapshot as its payload, {"bytes", "hash"}
   world.load               a type-1 request holding a snapshot (strict:
                            false): verified, then loaded over the live world
                            (ECS_SNAPSHOT_REPLACE); {"bytes", "hash",
                            "skipped", "dropped", "defaulted", "report"}
   Bad input is an error reply naming the thing: an unknown command, a
   missing or mistyped argument, a dead entity or one without an instance
   in that store, an unknown component or field, a name holding a NUL
   byte, a value outside the schema's bounds, a snapshot that does not
   verify (offset and field); the world is unchanged then. world.load keeps a copy of the world and puts
   it back when the load fails after verifying (out of memory).

PLUGINS (ECS_API_CONSOLE: plugins add commands, as the seed's plugin adds
   Lua functions)
   ecs_console_publish(console, registry, &err) publishes
   ecs_console_api_v0 (ecs_plugin.h's id ECS_API_CONSOLE, version 0): the
   console pointer and every call a handler needs, since a plugin links
   against nothing. A plugin's init:
       const ecs_console_api_v0 *con =
           (const ecs_console_api_v0 *)get_engine_api(ECS_API_CONSOLE, 0);
       if (con) con->add_command(con->console, &desc, err);  // NULL: no console
   and its handler calls con->arg_u32(call, ...), con->result_printf(...).
   The registry tracks each command (ecs_plugin_track): it is removed when
   the plugin unloads; a hot reload's new build answers the commands it
   registers again (the old build's stay in use until the reload
   succeeds), and those it does not register go. A handler runs as its
   plugin's code (ecs_plugin_track_call): an unload asked meanwhile waits.
   Destroy the registry first, then the console (the usual order: plugins
   before what they use); the other order also works (the console takes its
   commands and API back out), but plugins still holding the API pointer
   must not call it then.

CONNECTIONS
   Each connection runs one state machine, which ecs_console_feed (the
   in-process connection: tests, fuzzing, an editor linked into the engine)
   shares with sockets. The first bytes decide the protocol in one place: a
   request line starting with an HTTP method ("GET ", "POST ", ...) goes to
   the HTTP path (HTTP below); anything else is read as framed messages.
   A message whose length is over desc.max_message (16 MiB), of a type
   other than 0 and 1, with a json_length past its end, or whose JSON is
   not valid UTF-8 JSON gets an error reply and the connection is closed
   (after the reply is sent: its unread input is drained, not reset); the
   engine goes on. A well-formed request the console cannot run (unknown
   "type" or command, bad arguments) gets an error reply and the connection
   stays. A client over desc.max_clients (8) takes the slot of the
   keep-alive HTTP connection idle longest if there is one (closed: a
   browser opens another when it needs one); else it waits in one of two
   refusing slots until its first bytes arrive (at most 4 polls): HTTP gets
   "503 Service Unavailable", anything else the framed error reply; then it
   is closed. With both refusing slots taken it gets the framed error reply
   at once.
   Back-pressure: a connection's requests are handled only while its
   unsent output is below desc.max_pending (2 x max_message), and
   ecs_console_wait does not wake for its input meanwhile; a log line that
   would take it over closes it, unless nothing is pending (a log line is
   cut to fit max_message). So pending output never exceeds max_pending
   plus one reply or log line; a reply over max_message is an error reply
   instead. The in-process connection's requests are the exception: a feed
   answers every complete request it was given, whatever is pending (its
   caller takes the output when the feed returns).
   Timeouts, all in ecs_console_timeouts (desc.timeouts,
   ecs_console_set_timeouts): idle_ms closes a connection that sent nothing
   and had nothing to send for that long (10 minutes), stalled_ms one whose
   pending output made no progress for that long (it never reads its
   replies: 10 s), linger_ms ends the draining of a closing connection (2
   s). disabled = 1 turns every one off (a debugger sitting on a breakpoint
   loses no client). Time comes from desc.clock (milliseconds; default a
   monotonic clock).
   Budget: one ecs_console_poll handles at most desc.requests_per_poll (64)
   requests, one connection after another, and reads at most
   desc.read_per_poll (4 MiB) from each connection; the rest waits for the
   next poll. ecs_console_wait(console, ms) sleeps until a connection or a
   new client needs the console (a paused engine's loop; a connection at
   max_pending only when its output can move).
   What an idle poll costs: with no connection open, a look at a count (no
   clock read, no slot touched), plus a system call (accept) when it looks
   for new clients: after an ecs_console_wait that saw one knocking, else
   every desc.accept_every (16) polls. With connections, a clock read and
   a look at each slot. So a console polled once a frame stays under 1% of
   a small engine's frame, cold caches included (bench:
   console_poll_idle_ns; examples/engine.c's report: console_poll_us,
   0.62-0.70 us against a 10k-entity frame of 83-85 us at 60 fps on the
   2-core VM, 1.3-1.4 us before the count). A client connecting to a loop
   that never waits is taken within accept_every frames.

HTTP (DESIGN.md 11: the inspector page; curl and scripts see the same data)
   A connection whose first bytes are an HTTP method speaks HTTP/1.1, GET
   only, within the same limits and budget as the framed protocol (a
   request counts as one of requests_per_poll; its response waits while the
   connection's output is over max_pending; the same timeouts):
     GET /  (or /index.html)  the page desc.page holds (text/html), e.g.
                              examples/inspector.html; without one a short
                              page saying where the inspector is
     GET /api/NAME?ARG=VALUE&...
                              runs command NAME through the same table as
                              the framed protocol; each VALUE (percent-
                              decoded; '+' is a plus, write %20 for a space)
                              is one JSON value, or a bare word (a string,
                              as in the script form): /api/world.entities?
                              offset=100&limit=50&with=["mesh"],
                              /api/spawn?prefab=crate&position=[1,0,2]. The
                              body is the command's result as JSON
                              (200, application/json); a failure is
                              {"error": "NAME: message"} with the status
                              below
   Status codes: 400 a malformed request line or header, a bad percent-
   encoding (a '%' without two hex digits, or %00), an argument without a
   value, arguments that are not JSON, a GET with a body, a command's
   argument error, a command that answers with a binary payload
   (world.save: use the framed protocol); 403 a Host header naming another
   machine (DNS rebinding), or an /api request from another site's page
   (below); 404 another path, an unknown command, a command's "not found"
   (a dead entity); 405 a method other than GET (with Allow: GET); 409 a
   command's "already exists"; 413 a request line and headers over
   ECS_CONSOLE_HTTP_MAX_HEAD (8 KiB), or (with desc.on_request) an /api
   request whose framed equivalent is over max_message; 500 out of memory,
   a result over max_message; 503 too many connections. After 400 for a malformed
   request, 405, 413 and 503 the connection closes (its unread input
   drained); otherwise HTTP/1.1 keeps it open (keep-alive) unless the
   request says "Connection: close" or is HTTP/1.0. Requests sent back to
   back (pipelined) are answered in order.
   Who may call /api: the console still has no authentication (FOR
   DEVELOPMENT BUILDS), but a browser visits other sites too, and any page
   can make it send a GET to 127.0.0.1. So a request whose Origin header is
   neither "null" (a page opened from disk: examples/inspector.html?port=N)
   nor http://localhost, 127.0.0.1, [::1] or the bound address (any port,
   nothing else after the name),
   or that has no Origin but says "Sec-Fetch-Site: cross-site" or
   "same-site" (an <img> or link on another site), gets 403; an allowed
   Origin is echoed in Access-Control-Allow-Origin. Clients that are not
   browsers (curl, scripts) send neither header. A sandboxed frame also
   sends Origin "null": on a machine where you browse untrusted sites while
   an engine's console is open, that page could drive it.

CONFIGURATION
   At run time, ecs_console_desc (zero means default): address
   ("127.0.0.1"; "0.0.0.0" for every interface, IPv4 only), port (0: a free
   port, ecs_console_port tells it; -1: no socket, ecs_console_feed only),
   world (NULL: only help), max_message (at least 4861 bytes, so that any
   error reply fits whole), max_clients, max_pending,
   max_commands (256), requests_per_poll, read_per_poll, accept_every
   (16), timeouts, clock and clock_user, page and page_size (GET /),
   on_request and request_user (each framed request of a socket connection,
   and each GET /api/NAME that runs a command as the framed request it
   equals, before it is answered: a traffic log; examples/engine.c's
   --log-traffic; an /api request whose framed request would be over
   max_message, which a replay would refuse, gets 413 and does not run:
   a small max_message and a head near 8 KiB make one).
   ECS_CONSOLE_HTTP_MAX_HEAD (8192; implementation file only): bytes of an
   HTTP request line and its headers.
   ECS_DEF / ECS_STATIC as in ecs.h. Implementation file only: ECS_REALLOC
   / ECS_FREE as in ecs.h. Under strict C99 (no _POSIX_C_SOURCE) the
   default clock is gettimeofday, which is not monotonic; define
   _POSIX_C_SOURCE 200112L before the first #include for clock_gettime.

ERRORS
   Setup calls return an ecs_result (or NULL) and fill the caller's
   ecs_error: ecs_console_create (ECS_ERROR_IO: the socket could not be
   made, bound to that address and port, or listened on, with the OS's
   message; ECS_ERROR_INVALID_ARGUMENT: an address that is not IPv4
   dotted-quad or "localhost", a port over 65535; ECS_ERROR_OUT_OF_MEMORY),
   ecs_console_add_command (ECS_ERROR_INVALID_ARGUMENT: a bad name, no
   handler; ECS_ERROR_ALREADY_EXISTS; ECS_ERROR_OUT_OF_MEMORY: the table of
   max_commands is full). What clients send never fails a call of yours:
   it is answered (error replies) or the connection closes, counted in
   ecs_console_get_stats. Out of memory while answering closes that
   connection only.

MEMORY
   ecs_console_create allocates the command table and the connection
   slots; a connection's buffers grow to the largest message it sent or was
   answered and are kept for the next client of that slot (those up to 64
   KiB; bigger ones are freed when the connection closes). world.save and
   world.load keep a snapshot-sized buffer each for their next call; the
   HTTP path one as big as its largest request's path and arguments. The
   page (desc.page) is the caller's, read where it is. A call
   (ecs_console_call) and the pointers it hands out (arguments, payload)
   live until the handler returns. ecs_console_feed_output's bytes stay until the next feed,
   poll, log or destroy (the in-process connection's output buffer starts
   over once all of it was taken). Strings of a command desc are copied (a plugin's may go
   away with its library).

THREADING
   None inside. One console belongs to one thread: the one that polls it
   calls every handler, and ecs_console_log may be called by that thread
   only (queue lines yourself from others). A handler may add and remove
   commands (its own too) and log; its console's poll, wait, flush and
   feed do nothing while it runs (no re-entry).

DOES NOT
   authenticate or encrypt (development builds, loopback), speak IPv6,
   answer HTTP methods other than GET, read HTTP request bodies, chunk or
   compress responses, serve files other than the one page,
   run handlers on other threads, time out a handler (a long command holds
   the frame), stream a reply bigger than max_message, or keep a request
   waiting across frames (a command answers when it returns: frame.step in
   examples/engine.c runs its frames inside the handler).

REFERENCE (every public function; the declarations below have the details)
   The console
     ecs_console *ecs_console_create(const ecs_console_desc *desc, ecs_error *err)
         listens (or not: port -1), registers help and the world commands
     void ecs_console_destroy(ecs_console *c)
         closes every connection, frees everything
     int ecs_console_port(const ecs_console *c)
         the port it listens on (the one picked for port 0), -1 for none
     uint32_t ecs_console_poll(ecs_console *c)
         accepts, reads, answers, sends within the budget; requests handled
     int ecs_console_wait(ecs_console *c, uint32_t max_ms)
         sleeps until the console has work or max_ms passed; 1 if work
     ecs_result ecs_console_flush(ecs_console *c, uint32_t max_ms)
         sends pending output for at most max_ms (before quitting)
     void ecs_console_set_frame(ecs_console *c, uint64_t frame)
         the frame number world.hash reports
     void ecs_console_set_timeouts(ecs_console *c, const ecs_console_timeouts *t)
         every timeout at once (disabled = 1: none)
     void ecs_console_get_stats(const ecs_console *c, ecs_console_stats *out)
         connections, requests, closes by reason, bytes
     void ecs_console_log(ecs_console *c, ecs_console_level level, const char *format, ...)
         pushes a log line to every connection
   Commands
     ecs_result ecs_console_add_command(ecs_console *c, const ecs_console_command_desc *desc,
                                        ecs_error *err)
     ecs_result ecs_console_remove_command(ecs_console *c, const char *name)
   In a handler
     const char *ecs_console_call_name(const ecs_console_call *call)
     const ecs_json_doc *ecs_console_call_doc(const ecs_console_call *call)
     const ecs_json_value *ecs_console_arg(const ecs_console_call *call, const char *name)
     ecs_result ecs_console_arg_f64(ecs_console_call *call, const char *name,
                                    const double *fallback, double *out)
     ecs_result ecs_console_arg_u32(ecs_console_call *call, const char *name,
                                    const uint32_t *fallback, uint32_t *out)
     ecs_result ecs_console_arg_string(ecs_console_call *call, const char *name,
                                       const char *fallback, const char **out)
     ecs_result ecs_console_arg_f32_array(ecs_console_call *call, const char *name, float *out,
                                          uint32_t n, const float *fallback)
     ecs_result ecs_console_arg_entity(ecs_console_call *call, const char *name, ecs_entity *out)
     const void *ecs_console_call_payload(const ecs_console_call *call, size_t *size)
     ecs_result ecs_console_result_json(ecs_console_call *call, const char *json, size_t n)
     ecs_result ecs_console_result_string(ecs_console_call *call, const char *s, size_t n)
     ecs_result ecs_console_result_printf(ecs_console_call *call, const char *format, ...)
     ecs_result ecs_console_result_payload(ecs_console_call *call, const void *data, size_t size)
     ecs_result ecs_console_fail(ecs_console_call *call, ecs_result code, const char *format, ...)
   The in-process connection
     int ecs_console_feed(ecs_console *c, const void *bytes, size_t n)
         bytes as if a client sent them; 0 once that connection closed
     const unsigned char *ecs_console_feed_output(ecs_console *c, size_t *size)
         what it answered since (framed), taken
   Plugins (the implementation file includes ecs_plugin.h first)
     ecs_result ecs_console_publish(ecs_console *c, ecs_plugin_registry *reg, ecs_error *err)
         ecs_console_api_v0 as (ECS_API_CONSOLE, 0); commands follow their plugin

REVISION HISTORY
   0.9  ecs_console_arg_f32_array reads each number with ecs_json_f32 (the
        JSON reader marks, as it parses, a number whose double rounds to
        the wrong float): the console's own re-read of the request text
        with strtof, and its buffer, are gone; same floats, same refusals
   0.8  fix: ecs_console_arg_f32_array reads each number as the float
        nearest its text (it rounded the double again, so a double exactly
        halfway between two floats went to the wrong one, and 3.4028235e38,
        which rounds to FLT_MAX, was refused); desc.on_request also sees
        each HTTP GET /api/NAME that runs a command, as the framed command
        request it equals (no id), just before it runs (an engine's traffic
        log missed them, so its replay differed); out of memory building
        it, the command does not run (500), nor when that request is over
        max_message (413: a replay would refuse it)
   0.7  fixes: the in-process connection's output starts over when a log
        line finds all of it taken (logged-and-taken lines grew it without
        bound); a string argument or component name holding a NUL byte is
        refused ("health", a NUL, "junk" set health); world.destroy tree ""
        names no store (it was a plain destroy); a feed answers every
        complete request it holds, as documented (max_pending held the
        rest); a script's error names the line's command, not the one a
        handler put in its slot
   0.6  fixes: ecs_console_wait no longer wakes at once, again and again,
        for a client whose output is at max_pending while it keeps
        sending; an /api VALUE or script word starting with '"', '[' or '{'
        must be one JSON value (with=[],"limit":1 set limit); a log line
        fits max_message (escaping grew it past) and does not close a
        connection with nothing pending; a command name holding a NUL is
        unknown (it ran the command named by the bytes before the NUL)
   0.5  fixes: a reply over max_message is replaced by its error reply once
        (it recursed until the stack overflowed when the error reply was
        over the limit too; max_message's minimum is now 4861, the longest
        error reply); an HTTP Host or Origin is a name then nothing or ':'
        and digits ('[::1]evil.example' passed); an entity argument is
        refused for the id a queued index carries next (ecs_entity_live)
   0.4  an idle poll with no connection open reads no clock and touches no
        connection slot (a count says so): under 1% of the engine's frame
   0.3  desc.on_request: each framed request of a socket connection, for a
        traffic log that a replay feeds back
   0.2  HTTP on the console port: GET / serves desc.page (the inspector),
        GET /api/NAME?ARG=JSON runs a command; keep-alive; 400, 403, 404,
        405, 413, 503; a client over max_clients that speaks HTTP gets 503,
        an idle keep-alive HTTP connection gives its slot to a new client;
        world.tree (a hierarchy's children or roots, paged)
   0.1  the console: framing, commands and scripts, the world commands,
        plugin commands through the registry, the in-process connection,
        HTTP detected (501 until the inspector)
*/
#ifndef ECS_CONSOLE_H_INCLUDED
#define ECS_CONSOLE_H_INCLUDED

#include "ecs.h"
#include "ecs_resource.h"
#include "ecs_snapshot.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Message types of the framing (PROTOCOL). */
#define ECS_CONSOLE_JSON 0u
#define ECS_CONSOLE_JSON_BINARY 1u
/** Bytes of a command name, its NUL included. */
#define ECS_CONSOLE_NAME_MAX 64u
/** Bytes of a command's help text kept, its NUL included (longer is cut). */
#define ECS_CONSOLE_HELP_MAX 200u
/** Bytes of a command's argument names kept, its NUL included. */
#define ECS_CONSOLE_ARGS_MAX 128u
/** An ecs_console_timeouts value meaning "never". */
#define ECS_CONSOLE_NEVER 0xFFFFFFFFu

/** A console: a listening socket, its connections and a command table. */
typedef struct ecs_console ecs_console;
/** One command being run: its arguments and the result it writes. Lives
    until the handler returns. */
typedef struct ecs_console_call ecs_console_call;

/** A log line's level. */
typedef enum ecs_console_level {
    ECS_CONSOLE_INFO = 0,
    ECS_CONSOLE_WARNING = 1,
    ECS_CONSOLE_ERROR = 2
} ecs_console_level;

/** A command's handler: reads call's arguments, writes a result (or
    fails) and returns ECS_OK or an error code. user is the desc's. */
typedef ecs_result (*ecs_console_fn)(void *user, ecs_console_call *call);

/** A command to register (strings copied). */
typedef struct ecs_console_command_desc {
    const char *name; /* [A-Za-z0-9._-], 1..ECS_CONSOLE_NAME_MAX - 1 bytes */
    const char *help; /* one line (NULL: none) */
    const char *args; /* argument names in script order, space-separated ("entity component"), or NULL */
    ecs_console_fn fn;
    void *user;
} ecs_console_command_desc;

/** Every timeout of the console (the seed's "single place for disabling
    timeouts"). In ecs_console_desc, a 0 member means its default;
    ECS_CONSOLE_NEVER means never. */
typedef struct ecs_console_timeouts {
    uint32_t disabled;   /* non-zero: no timeout at all (debugging) */
    uint32_t idle_ms;    /* nothing received and nothing to send for this long: closed (600000) */
    uint32_t stalled_ms; /* pending output made no progress for this long: closed (10000) */
    uint32_t linger_ms;  /* a closing connection's input is drained for at most this long (2000) */
} ecs_console_timeouts;

/** A clock in milliseconds (any origin, never going backwards). */
typedef uint64_t (*ecs_console_clock_fn)(void *user);
/** Sees one framed request (its 8-byte header and body, as the client sent
    it) that a socket connection sent, just before it is answered, on the
    polling thread: a traffic log keeps them so that a replay can hand the
    same bytes to ecs_console_feed. An HTTP GET /api/NAME?ARGS whose command
    exists and whose arguments are JSON is passed too, just before the
    command runs, as the framed request it is equivalent to: a type-0
    message {"type": "command", "command": NAME, "args": {...}} (no "id";
    the arguments as the command gets them); out of memory building it, the
    command does not run (HTTP 500). Not passed: requests given to
    ecs_console_feed, other HTTP requests (the page, a refused one). bytes
    live until it returns. */
typedef void (*ecs_console_request_fn)(void *user, const void *bytes, size_t size);

/** Console settings; zero-initialised means every default. */
typedef struct ecs_console_desc {
    const char *address;        /* IPv4 to bind: NULL "127.0.0.1" (loopback only) */
    int port;                   /* 0: a free port (ecs_console_port); -1: no socket (ecs_console_feed only) */
    ecs_world *world;           /* the world commands' world (NULL: help only); must outlive the console */
    uint32_t max_message;       /* bytes of a message either way; 0: 16 MiB; at least 4861, the longest error
                                   reply (an 800-byte message, each byte escaped to 6) */
    uint32_t max_clients;       /* connections at once; 0: 8 */
    size_t max_pending;         /* unsent bytes before a connection waits or closes; 0: 2 x max_message */
    uint32_t max_commands;      /* size of the command table; 0: 256 */
    uint32_t requests_per_poll; /* most requests one poll handles; 0: 64 */
    uint32_t read_per_poll;     /* most bytes one poll reads from one connection; 0: 4 MiB */
    uint32_t accept_every;      /* polls not after an ecs_console_wait between two looks for new clients; 0: 16 */
    ecs_console_timeouts timeouts;
    ecs_console_clock_fn clock; /* NULL: a monotonic clock */
    void *clock_user;
    const void *page;           /* what GET / serves (text/html, UTF-8), kept by pointer: must outlive the console;
                                   NULL: a short page that says where the inspector is (HTTP) */
    size_t page_size;           /* bytes of page */
    ecs_console_request_fn on_request; /* NULL: none; sees each socket request (an /api one as its framed
                                          equivalent) before it is answered */
    void *request_user;
} ecs_console_desc;

/** What ecs_console_get_stats reports (counts since create). */
typedef struct ecs_console_stats {
    uint32_t clients;           /* socket connections open now */
    uint64_t accepted;          /* connections taken */
    uint64_t refused;           /* turned away: max_clients reached */
    uint64_t requests;          /* requests answered (replies) */
    uint64_t errors;            /* of them, error replies */
    uint64_t closed_by_peer;    /* the client closed (or the socket failed) */
    uint64_t closed_bad_input;  /* garbage: bad framing, JSON, type, size */
    uint64_t closed_pending;    /* back-pressure: output over max_pending */
    uint64_t closed_timeout;    /* idle or stalled */
    uint64_t closed_http;       /* HTTP connections the console closed (Connection: close, an error, a
                                   keep-alive one idle when a new client needed its slot) */
    uint64_t closed_memory;     /* out of memory answering */
    uint64_t bytes_in, bytes_out;
} ecs_console_stats;

/** Creates a console: binds desc->address:desc->port (non-blocking,
    127.0.0.1 by default) unless port is -1, and registers "help" and, with
    desc->world, the world commands (BUILT-IN WORLD COMMANDS). desc may be
    NULL (port 0 on 127.0.0.1, no world). Returns the console, or NULL with
    err set: ECS_ERROR_IO (socket, bind, listen failed: the OS's message,
    with address and port), ECS_ERROR_INVALID_ARGUMENT (address not IPv4
    dotted-quad or "localhost", port over 65535 or below -1),
    ECS_ERROR_OUT_OF_MEMORY. */
ECS_DEF ecs_console *ecs_console_create(const ecs_console_desc *desc, ecs_error *err);
/** Closes every connection (without sending what is pending: call
    ecs_console_flush first), takes a published API and plugin commands
    back out of a registry still alive, frees everything. NULL: no-op. */
ECS_DEF void ecs_console_destroy(ecs_console *c);
/** The port the console listens on (the one the OS picked for port 0), or
    -1 without a socket. */
ECS_DEF int ecs_console_port(const ecs_console *c);
/** Does what is pending, once a frame: accepts new clients, reads what
    they sent, answers complete requests (at most desc.requests_per_poll,
    fairly across connections), sends replies and log lines, closes
    connections that timed out or broke a limit. Never blocks. Returns the
    number of requests answered. Allocates nothing once buffers have grown
    (an idle console with no connection open touches nothing but its
    count and, every accept_every polls, makes one accept call). */
ECS_DEF uint32_t ecs_console_poll(ecs_console *c);
/** Blocks until a client connects or sends, pending output can be sent,
    a complete request waits (left by the budget), or max_ms passed.
    Returns 1 when there is work for ecs_console_poll, 0 on timeout. For a
    paused engine's loop: poll, wait, poll... without spinning. */
ECS_DEF int ecs_console_wait(ecs_console *c, uint32_t max_ms);
/** Sends pending output, waiting for clients to take it for at most
    max_ms (before the engine quits, so the reply to "quit" arrives).
    ECS_OK when nothing is left, else ECS_ERROR_IO. */
ECS_DEF ecs_result ecs_console_flush(ecs_console *c, uint32_t max_ms);
/** The frame number world.hash reports (the engine's count). */
ECS_DEF void ecs_console_set_frame(ecs_console *c, uint64_t frame);
/** Replaces every timeout at once (members 0: default; disabled: none),
    e.g. from an engine's --no-timeouts; every connection's timers start
    again from now. */
ECS_DEF void ecs_console_set_timeouts(ecs_console *c, const ecs_console_timeouts *t);
/** Fills *out with the counters. */
ECS_DEF void ecs_console_get_stats(const ecs_console *c, ecs_console_stats *out);
/** Pushes {"type": "log", "level", "message"} to every connection that has
    sent a framed message (printf format; the message is cut at 4000 bytes,
    invalid UTF-8 replaced, and its escaped text cut at a character so that
    the line fits max_message). A connection with pending output that the
    line would take over max_pending is closed; one with nothing pending
    always takes it. From the polling thread only. */
ECS_DEF void ecs_console_log(ecs_console *c, ecs_console_level level, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** Registers a command (see COMMANDS; strings copied). ECS_OK, or
    ECS_ERROR_INVALID_ARGUMENT (NULL desc or fn, a name of other characters
    or length), ECS_ERROR_ALREADY_EXISTS (the name is taken),
    ECS_ERROR_OUT_OF_MEMORY (the table of desc.max_commands is full); err
    names the command. A handler may call it. */
ECS_DEF ecs_result ecs_console_add_command(ecs_console *c, const ecs_console_command_desc *desc, ecs_error *err);
/** Removes a command (built-in ones too; a plugin's through its API).
    ECS_OK or ECS_ERROR_NOT_FOUND. A handler may remove any command, its
    own too (the running call finishes). */
ECS_DEF ecs_result ecs_console_remove_command(ecs_console *c, const char *name);

/** The command's name, as registered. */
ECS_DEF const char *ecs_console_call_name(const ecs_console_call *call);
/** The parsed JSON that holds the arguments (for ecs_json_* calls on the
    values ecs_console_arg returns). */
ECS_DEF const ecs_json_doc *ecs_console_call_doc(const ecs_console_call *call);
/** The argument called name (any JSON value), or NULL when not given. */
ECS_DEF const ecs_json_value *ecs_console_arg(const ecs_console_call *call, const char *name);
/** Reads a number argument into *out; missing: *fallback, or (fallback
    NULL) an error. ECS_OK or ECS_ERROR_INVALID_ARGUMENT with the call's
    error naming the argument and what it was. */
ECS_DEF ecs_result ecs_console_arg_f64(ecs_console_call *call, const char *name, const double *fallback, double *out);
/** Reads a whole number 0..4294967295 (as ecs_console_arg_f64). */
ECS_DEF ecs_result ecs_console_arg_u32(ecs_console_call *call, const char *name, const uint32_t *fallback, uint32_t *out);
/** Reads a string (NUL-terminated, valid while the call runs); missing:
    fallback, or (fallback NULL) an error; so is a string holding a NUL
    byte (it would read as its part before the NUL). */
ECS_DEF ecs_result ecs_console_arg_string(ecs_console_call *call, const char *name, const char *fallback, const char **out);
/** Reads an array of n numbers that fit a float ([x, y, z]): each is the
    float nearest its text, as ecs_resource.h's ecs_json_f32 reads it
    (rounded once, as strtof does: 3.4028235e38 reads as FLT_MAX), and a
    number whose nearest float is infinite is refused; missing: fallback's
    n floats, or (fallback NULL) an error. Allocates nothing. On failure out
    is as it was. */
ECS_DEF ecs_result ecs_console_arg_f32_array(ecs_console_call *call, const char *name, float *out, uint32_t n,
                                             const float *fallback);
/** Reads a required entity id (a whole number 0..2^32-1) that is alive in
    the console's world, as ecs_entity_live says (the id a queued index
    carries next is not; without a world: any non-nil id). Errors name the
    argument: missing, not a number, "entity 99 is not alive". */
ECS_DEF ecs_result ecs_console_arg_entity(ecs_console_call *call, const char *name, ecs_entity *out);
/** A type-1 request's binary payload (16-byte aligned) and its size, or
    NULL and 0. Valid while the call runs. */
ECS_DEF const void *ecs_console_call_payload(const ecs_console_call *call, size_t *size);
/** Appends n bytes of JSON text to the result (the whole result must be
    one JSON value; it is checked before it is sent). ECS_OK or
    ECS_ERROR_OUT_OF_MEMORY. */
ECS_DEF ecs_result ecs_console_result_json(ecs_console_call *call, const char *json, size_t n);
/** Appends s (n bytes of UTF-8) as a JSON string, quoted and escaped. */
ECS_DEF ecs_result ecs_console_result_string(ecs_console_call *call, const char *s, size_t n);
/** Appends printf-formatted JSON text. */
ECS_DEF ecs_result ecs_console_result_printf(ecs_console_call *call, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/** Answers with a binary payload beside the JSON result (a type-1 reply).
    data is read when the handler has returned: keep it valid until then. */
ECS_DEF ecs_result ecs_console_result_payload(ecs_console_call *call, const void *data, size_t size);
/** Fails the call: the reply's error is "NAME: " and the message. Returns
    code (ECS_ERROR_INVALID_ARGUMENT when code is ECS_OK), for
    `return ecs_console_fail(...)`. */
ECS_DEF ecs_result ecs_console_fail(ecs_console_call *call, ecs_result code, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** Hands bytes to the in-process connection as if a client had sent them
    through a socket: the same state machine (protocol detection, framing,
    limits, scripts, replies in order), every complete request answered at
    once (no budget). Returns 1 while that connection is open, 0 once it
    closed (bad input, a limit, an HTTP response that closes); the next
    call starts a new one. It receives log lines too, and counts for nothing in max_clients. */
ECS_DEF int ecs_console_feed(ecs_console *c, const void *bytes, size_t n);
/** What the in-process connection was sent since the last call (framed
    replies and log lines, or an HTTP response), and empties it. Valid until
    the next feed, poll, log or destroy. *size 0 (and a non-NULL pointer)
    when nothing. */
ECS_DEF const unsigned char *ecs_console_feed_output(ecs_console *c, size_t *size);

/** ECS_API_CONSOLE version 0 (ecs_console_publish): the console's calls for
    plugins, which link against nothing. Each member is the ecs_console_*
    function of the same name; json_* are ecs_resource.h's readers. */
typedef struct ecs_console_api_v0 {
    ecs_console *console; /* the first argument of add_command, remove_command, log */
    ecs_result (*add_command)(ecs_console *c, const ecs_console_command_desc *desc, ecs_error *err);
    ecs_result (*remove_command)(ecs_console *c, const char *name);
    void (*log)(ecs_console *c, ecs_console_level level, const char *format, ...);
    const char *(*call_name)(const ecs_console_call *call);
    const ecs_json_doc *(*call_doc)(const ecs_console_call *call);
    const ecs_json_value *(*arg)(const ecs_console_call *call, const char *name);
    ecs_result (*arg_f64)(ecs_console_call *call, const char *name, const double *fallback, double *out);
    ecs_result (*arg_u32)(ecs_console_call *call, const char *name, const uint32_t *fallback, uint32_t *out);
    ecs_result (*arg_string)(ecs_console_call *call, const char *name, const char *fallback, const char **out);
    ecs_result (*arg_f32_array)(ecs_console_call *call, const char *name, float *out, uint32_t n,
                                const float *fallback);
    ecs_result (*arg_entity)(ecs_console_call *call, const char *name, ecs_entity *out);
    const void *(*call_payload)(const ecs_console_call *call, size_t *size);
    ecs_result (*result_json)(ecs_console_call *call, const char *json, size_t n);
    ecs_result (*result_string)(ecs_console_call *call, const char *s, size_t n);
    ecs_result (*result_printf)(ecs_console_call *call, const char *format, ...);
    ecs_result (*result_payload)(ecs_console_call *call, const void *data, size_t size);
    ecs_result (*fail)(ecs_console_call *call, ecs_result code, const char *format, ...);
    const ecs_json_value *(*json_member)(const ecs_json_doc *doc, const ecs_json_value *v, const char *key);
    const ecs_json_value *(*json_first)(const ecs_json_doc *doc, const ecs_json_value *v);
    const ecs_json_value *(*json_next)(const ecs_json_doc *doc, const ecs_json_value *v);
    const char *(*json_string)(const ecs_json_doc *doc, const ecs_json_value *v);
} ecs_console_api_v0;

#ifdef __cplusplus
}
#endif
#endif /* ECS_CONSOLE_H_INCLUDED */

/* The plugin part: declared once ecs_plugin.h is in (before this point). */
#if defined(ECS_PLUGIN_H_INCLUDED) && !defined(ECS__CONSOLE_PLUGIN_DECLARED)
#define ECS__CONSOLE_PLUGIN_DECLARED
#ifdef __cplusplus
extern "C" {
#endif
/** Publishes ecs_console_api_v0 in reg as (ECS_API_CONSOLE, 0), so that
    plugins add commands (PLUGINS): each is tracked by the registry
    (ecs_plugin_track) and removed when its plugin unloads; a reload's new
    build answers it. One registry per console. ECS_OK;
    ECS_ERROR_ALREADY_EXISTS (the API is published, or this console was
    published before); ECS_ERROR_INVALID_ARGUMENT (NULL);
    ECS_ERROR_OUT_OF_MEMORY. */
ECS_DEF ecs_result ecs_console_publish(ecs_console *c, ecs_plugin_registry *reg, ecs_error *err);
#ifdef __cplusplus
}
#endif
#endif

/* ========================================================================== */
#ifdef ECS_CONSOLE_IMPLEMENTATION
#ifndef ECS__CONSOLE_IMPLEMENTATION_DONE
#define ECS__CONSOLE_IMPLEMENTATION_DONE

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(ECS_REALLOC) && !defined(ECS_FREE) || !defined(ECS_REALLOC) && defined(ECS_FREE)
#error "define both ECS_REALLOC and ECS_FREE, or neither"
#endif
#ifndef ECS__REALLOC
#if defined(ECS_REALLOC) && !defined(PICO_ECS_REALLOC)
#define ECS__REALLOC(p, n) ECS_REALLOC(p, n)
#define ECS__FREE(p) ECS_FREE(p)
#else
#define ECS__REALLOC(p, n) realloc(p, n)
#define ECS__FREE(p) free(p)
#endif
#endif

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#ifdef _MSC_VER
#pragma comment(lib, "ws2_32")
#endif
typedef SOCKET ecs__console_sock;
#define ECS__CONSOLE_NO_SOCK INVALID_SOCKET
#else
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <fcntl.h>
#include <errno.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
typedef int ecs__console_sock;
#define ECS__CONSOLE_NO_SOCK (-1)
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ECS__CONSOLE_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ECS__CONSOLE_PRINTF(a, b)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* MAP of the implementation: platform (sockets, clock), bytes and JSON text
   (buffers, escaping), framing (the pure parsers the fuzz harness drives),
   the command table, calls (arguments, results), dispatch (a request to
   its reply, scripts), connections (the state machine, poll, wait, flush,
   feed), log lines, the world commands, plugins, create and destroy. */

/* ---- platform: the only OS-specific code ------------------------------------ */

/* recv/send results: bytes moved (> 0), or one of these */
#define ECS__CONSOLE_IO_CLOSED 0   /* the peer closed (recv) */
#define ECS__CONSOLE_IO_AGAIN (-1) /* would block */
#define ECS__CONSOLE_IO_ERROR (-2) /* the connection broke */

#ifdef _WIN32
static int ecs__console_net_start(void)
{
    WSADATA data;
    return WSAStartup(MAKEWORD(2, 2), &data) == 0;
}
static void ecs__console_net_stop(void) { WSACleanup(); }
static void ecs__console_close(ecs__console_sock s) { closesocket(s); }
static int ecs__console_nonblocking(ecs__console_sock s)
{
    u_long on = 1;
    return ioctlsocket(s, (long)FIONBIO, &on) == 0; /* FIONBIO is an unsigned expression, ioctlsocket takes a long */
}
static int ecs__console_would_block(void)
{
    int e = WSAGetLastError();
    return e == WSAEWOULDBLOCK || e == WSAEINTR;
}
static void ecs__console_os_error(char *buf, size_t n)
{
    snprintf(buf, n, "Winsock error %d", WSAGetLastError());
}
static long ecs__console_recv(ecs__console_sock s, void *buf, size_t n)
{
    int got = recv(s, (char *)buf, n > 0x40000000u ? 0x40000000 : (int)n, 0);
    if (got > 0) return got;
    if (got == 0) return ECS__CONSOLE_IO_CLOSED;
    return ecs__console_would_block() ? ECS__CONSOLE_IO_AGAIN : ECS__CONSOLE_IO_ERROR;
}
static long ecs__console_send(ecs__console_sock s, const void *buf, size_t n)
{
    int sent = send(s, (const char *)buf, n > 0x40000000u ? 0x40000000 : (int)n, 0);
    if (sent >= 0) return sent > 0 ? sent : ECS__CONSOLE_IO_AGAIN;
    return ecs__console_would_block() ? ECS__CONSOLE_IO_AGAIN : ECS__CONSOLE_IO_ERROR;
}
static void ecs__console_shutdown_send(ecs__console_sock s) { shutdown(s, SD_SEND); }
static uint64_t ecs__console_default_clock(void *user)
{
    (void)user;
    return (uint64_t)GetTickCount64();
}
#else
static int ecs__console_net_start(void) { return 1; }
static void ecs__console_net_stop(void) {}
static void ecs__console_close(ecs__console_sock s) { close(s); }
static int ecs__console_nonblocking(ecs__console_sock s)
{
    int flags = fcntl(s, F_GETFL, 0);
    return flags != -1 && fcntl(s, F_SETFL, flags | O_NONBLOCK) != -1;
}
static int ecs__console_would_block(void) { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR; }
static void ecs__console_os_error(char *buf, size_t n) { snprintf(buf, n, "%s", strerror(errno)); }
static long ecs__console_recv(ecs__console_sock s, void *buf, size_t n)
{
    ssize_t got = recv(s, buf, n, 0);
    if (got > 0) return (long)got;
    if (got == 0) return ECS__CONSOLE_IO_CLOSED;
    return ecs__console_would_block() ? ECS__CONSOLE_IO_AGAIN : ECS__CONSOLE_IO_ERROR;
}
#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* macOS: SO_NOSIGPIPE on the socket instead */
#endif
static long ecs__console_send(ecs__console_sock s, const void *buf, size_t n)
{
    ssize_t sent = send(s, buf, n, MSG_NOSIGNAL);
    if (sent >= 0) return sent > 0 ? (long)sent : ECS__CONSOLE_IO_AGAIN;
    return ecs__console_would_block() ? ECS__CONSOLE_IO_AGAIN : ECS__CONSOLE_IO_ERROR;
}
static void ecs__console_shutdown_send(ecs__console_sock s) { shutdown(s, SHUT_WR); }
static uint64_t ecs__console_default_clock(void *user)
{
    (void)user;
#if defined(CLOCK_MONOTONIC)
    {
        struct timespec ts;
        if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0) return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
    }
#endif
    {
        struct timeval tv;
        gettimeofday(&tv, NULL);
        return (uint64_t)tv.tv_sec * 1000u + (uint64_t)tv.tv_usec / 1000u;
    }
}
#endif

/* A new connection's socket: non-blocking, no Nagle delay (a request and
   its reply are small: waiting to batch them would cost a round trip),
   no SIGPIPE where MSG_NOSIGNAL is missing. 0 when it cannot be set up. */
static int ecs__console_setup_client(ecs__console_sock s)
{
    int one = 1;
    if (!ecs__console_nonblocking(s)) return 0;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, (const char *)&one, sizeof one);
#if defined(SO_NOSIGPIPE)
    setsockopt(s, SOL_SOCKET, SO_NOSIGPIPE, (const char *)&one, sizeof one);
#endif
    return 1;
}

/* "a.b.c.d" (each 0..255) or "localhost" to a host-order IPv4 address. */
static int ecs__console_parse_ipv4(const char *s, uint32_t *out)
{
    uint32_t addr = 0, part, k, digits;
    if (strcmp(s, "localhost") == 0) {
        *out = 0x7F000001u;
        return 1;
    }
    for (k = 0; k < 4; ++k) {
        for (part = 0, digits = 0; *s >= '0' && *s <= '9' && digits < 4; ++s, ++digits)
            part = part * 10u + (uint32_t)(*s - '0');
        if (digits == 0 || digits > 3 || part > 255u) return 0;
        addr = addr << 8 | part;
        if (k < 3 && *s++ != '.') return 0;
    }
    if (*s) return 0;
    *out = addr;
    return 1;
}

/* A listening, non-blocking socket on address:port; *port_out the port
   bound. ECS__CONSOLE_NO_SOCK with err set on failure. */
static ecs__console_sock ecs__console_listen(const char *address, int port, int *port_out, ecs_error *err)
{
    struct sockaddr_in sa;
    socklen_t len = (socklen_t)sizeof sa;
    uint32_t host;
    int one = 1;
    char why[128];
    const char *step = "socket";
    ecs__console_sock s;
    if (!ecs__console_parse_ipv4(address, &host)) {
        ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "console: address '%.64s' is not IPv4 a.b.c.d or localhost", address);
        return ECS__CONSOLE_NO_SOCK;
    }
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(host);
    s = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
    if (s != ECS__CONSOLE_NO_SOCK) {
#ifndef _WIN32 /* Windows' SO_REUSEADDR lets another process take the port too */
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, (const char *)&one, sizeof one);
#endif
        (void)one;
        step = "bind";
        if (bind(s, (const struct sockaddr *)&sa, sizeof sa) == 0) {
            step = "listen";
            if (listen(s, 16) == 0) {
                step = "set non-blocking";
                if (ecs__console_nonblocking(s)) {
                    step = "getsockname";
                    if (getsockname(s, (struct sockaddr *)&sa, &len) == 0) {
                        *port_out = (int)ntohs(sa.sin_port);
                        return s;
                    }
                }
            }
        }
    }
    ecs__console_os_error(why, sizeof why);
    if (s != ECS__CONSOLE_NO_SOCK) ecs__console_close(s);
    ecs_error_set(err, ECS_ERROR_IO, "console: %s on %.64s:%d failed: %s", step, address, port, why);
    return ECS__CONSOLE_NO_SOCK;
}

/* ---- bytes and JSON text ------------------------------------------------------- */

/* A growable byte buffer; oom is set (and sticks) when a growth fails. */
typedef struct ecs__console_buf {
    unsigned char *p;
    size_t len, cap;
    int oom;
} ecs__console_buf;

/* Room for `extra` more bytes; 0 (and b->oom) when it cannot grow. */
static int ecs__console_reserve(ecs__console_buf *b, size_t extra)
{
    size_t cap;
    unsigned char *p;
    if (b->oom) return 0;
    if (extra <= b->cap - b->len) return 1;
    if (extra > (size_t)-1 / 2 - b->len) {
        b->oom = 1;
        return 0;
    }
    cap = b->cap ? b->cap : 256u;
    while (cap - b->len < extra) cap *= 2u;
    if (!(p = (unsigned char *)ECS__REALLOC(b->p, cap))) {
        b->oom = 1;
        return 0;
    }
    b->p = p;
    b->cap = cap;
    return 1;
}
static void ecs__console_put(ecs__console_buf *b, const void *bytes, size_t n)
{
    if (n && ecs__console_reserve(b, n)) {
        memcpy(b->p + b->len, bytes, n);
        b->len += n;
    }
}
static void ecs__console_puts(ecs__console_buf *b, const char *s) { ecs__console_put(b, s, strlen(s)); }
static void ecs__console_vprintf(ecs__console_buf *b, const char *format, va_list ap)
{
    va_list again;
    int n;
    va_copy(again, ap);
    n = vsnprintf(NULL, 0, format, ap);
    if (n > 0 && ecs__console_reserve(b, (size_t)n + 1u)) {
        vsnprintf((char *)b->p + b->len, (size_t)n + 1u, format, again);
        b->len += (size_t)n;
    }
    va_end(again);
}
static void ecs__console_printf(ecs__console_buf *b, const char *format, ...) ECS__CONSOLE_PRINTF(2, 3);
static void ecs__console_printf(ecs__console_buf *b, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    ecs__console_vprintf(b, format, ap);
    va_end(ap);
}
static uint32_t ecs__console_get_u32be(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
static void ecs__console_set_u32be(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Bytes of the valid UTF-8 sequence at s (n bytes available), or 0. */
static size_t ecs__console_utf8_length(const unsigned char *s, size_t n)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xBF;
    size_t need, k;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) need = 2;
    else if (c >= 0xE0 && c <= 0xEF) need = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4) need = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else return 0;
    if (n < need || s[1] < lo || s[1] > hi) return 0;
    for (k = 2; k < need; ++k)
        if (s[k] < 0x80 || s[k] > 0xBF) return 0;
    return need;
}

/* Appends s (n bytes) as a quoted JSON string of at most max bytes (at
   least 2), quotes included: quotes, backslashes and control characters
   escaped, invalid UTF-8 replaced by U+FFFD, so the text is valid JSON
   whatever the bytes. A string over max is cut before the first character
   that does not fit (never inside an escape or a UTF-8 sequence). */
static void ecs__console_put_string_max(ecs__console_buf *b, const char *s, size_t n, size_t max)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, run, room = max - 2, need, len = 0;
    ecs__console_put(b, "\"", 1);
    while (i < n) {
        for (run = 0; run < room && i + run < n && u[i + run] >= 0x20 && u[i + run] < 0x80 && u[i + run] != '"' &&
                      u[i + run] != '\\';)
            ++run;
        ecs__console_put(b, u + i, run);
        i += run;
        room -= run;
        if (i == n) break;
        if (u[i] == '"' || u[i] == '\\') need = 2;
        else if (u[i] < 0x20 || (len = ecs__console_utf8_length(u + i, n - i)) == 0) need = 6;
        else need = len;
        if (need > room) break;
        room -= need;
        if (u[i] == '"' || u[i] == '\\') {
            char esc[2] = {'\\', (char)u[i]};
            ecs__console_put(b, esc, 2);
            ++i;
        } else if (u[i] < 0x20) {
            ecs__console_printf(b, "\\u%04x", (unsigned)u[i]);
            ++i;
        } else if (len != 0) {
            ecs__console_put(b, u + i, len);
            i += len;
        } else {
            ecs__console_put(b, "\\ufffd", 6);
            ++i;
        }
    }
    ecs__console_put(b, "\"", 1);
}
static void ecs__console_put_string(ecs__console_buf *b, const char *s, size_t n)
{
    ecs__console_put_string_max(b, s, n, (size_t)-1);
}

/* ---- framing: the pure parsers (tests/fuzz_console.c drives them) ---------------- */

/* ecs__console_frame_parse's results */
#define ECS__CONSOLE_BAD (-1)
#define ECS__CONSOLE_MORE 0
#define ECS__CONSOLE_MESSAGE 1

/* One complete message of the framing. */
typedef struct ecs__console_frame {
    uint32_t type;                /* ECS_CONSOLE_JSON or ECS_CONSOLE_JSON_BINARY */
    size_t size;                  /* bytes of the whole message, header included */
    const char *json;
    size_t json_size;
    const unsigned char *payload; /* type 1: the binary part (may be empty) */
    size_t payload_size;
} ecs__console_frame;

/* Looks at n received bytes: ECS__CONSOLE_MORE (a message has not fully
   arrived; *want, when non-NULL, is how many bytes it needs in all, once its
   header is in), ECS__CONSOLE_MESSAGE (*f is the first message), or
   ECS__CONSOLE_BAD with why: a type other than 0 and 1, a length over
   max_message, a type-1 json_length past the end. A bad header is found as
   soon as its bytes are in, before the body. */
static int ecs__console_frame_parse(const unsigned char *p, size_t n, uint32_t max_message, ecs__console_frame *f,
                                    size_t *want, char *why, size_t why_size)
{
    uint32_t type, length, json_length;
    if (want) *want = 8;
    if (n < 4) return ECS__CONSOLE_MORE;
    type = ecs__console_get_u32be(p);
    if (type > ECS_CONSOLE_JSON_BINARY) {
        snprintf(why, why_size, "message type %lu is unknown (0: JSON, 1: JSON with a binary payload)", (unsigned long)type);
        return ECS__CONSOLE_BAD;
    }
    if (n < 8) return ECS__CONSOLE_MORE;
    length = ecs__console_get_u32be(p + 4);
    if (length > max_message) {
        snprintf(why, why_size, "a message of %lu bytes is over the limit of %lu bytes", (unsigned long)length,
                 (unsigned long)max_message);
        return ECS__CONSOLE_BAD;
    }
    if (type == ECS_CONSOLE_JSON_BINARY && length < 4) {
        snprintf(why, why_size, "a type-1 message of %lu bytes has no room for its json_length", (unsigned long)length);
        return ECS__CONSOLE_BAD;
    }
    if (want) *want = 8u + (size_t)length;
    if (type == ECS_CONSOLE_JSON_BINARY && n >= 12 && (json_length = ecs__console_get_u32be(p + 8)) > length - 4u) {
        snprintf(why, why_size, "json_length %lu runs past the message's %lu bytes", (unsigned long)json_length,
                 (unsigned long)length);
        return ECS__CONSOLE_BAD;
    }
    if (n - 8u < (size_t)length) return ECS__CONSOLE_MORE;
    f->type = type;
    f->size = 8u + (size_t)length;
    if (type == ECS_CONSOLE_JSON) {
        f->json = (const char *)p + 8;
        f->json_size = length;
        f->payload = NULL;
        f->payload_size = 0;
    } else {
        json_length = ecs__console_get_u32be(p + 8);
        f->json = (const char *)p + 12;
        f->json_size = json_length;
        f->payload = p + 12 + json_length;
        f->payload_size = (size_t)length - 4u - json_length;
    }
    return ECS__CONSOLE_MESSAGE;
}

/* ecs__console_detect's results */
#define ECS__CONSOLE_PROTO_MORE 0
#define ECS__CONSOLE_PROTO_FRAMED 1
#define ECS__CONSOLE_PROTO_HTTP 2

/* The one place that tells the protocols apart, from a connection's first
   n bytes: a request line starting with an HTTP method and a space is HTTP,
   anything else the framed protocol (whose first byte, the top of a type 0
   or 1, is zero). MORE while the bytes are a method's beginning. */
static int ecs__console_detect(const unsigned char *p, size_t n)
{
    static const char *const methods[] = {"GET ",   "HEAD ",  "POST ",    "PUT ",  "DELETE ",
                                          "PATCH ", "TRACE ", "OPTIONS ", "CONNECT "};
    size_t k, len;
    int maybe = 0;
    if (n == 0) return ECS__CONSOLE_PROTO_MORE;
    if (p[0] < 'A' || p[0] > 'Z') return ECS__CONSOLE_PROTO_FRAMED;
    for (k = 0; k < sizeof methods / sizeof methods[0]; ++k) {
        len = strlen(methods[k]);
        if (memcmp(p, methods[k], n < len ? n : len) != 0) continue;
        if (n >= len) return ECS__CONSOLE_PROTO_HTTP;
        maybe = 1;
    }
    return maybe ? ECS__CONSOLE_PROTO_MORE : ECS__CONSOLE_PROTO_FRAMED;
}

#ifndef ECS_CONSOLE_HTTP_MAX_HEAD
#define ECS_CONSOLE_HTTP_MAX_HEAD 8192u /* bytes of a request line and its headers (413 over it) */
#endif
#define ECS__CONSOLE_REFUSE_POLLS 4u /* polls a refused client's first bytes are awaited */

/* Bytes of the head at p (request line and headers, up to and including the
   empty line), 0 while it has not all arrived within
   ECS_CONSOLE_HTTP_MAX_HEAD bytes. */
static size_t ecs__console_http_head(const unsigned char *p, size_t n)
{
    size_t k, max = n < ECS_CONSOLE_HTTP_MAX_HEAD ? n : ECS_CONSOLE_HTTP_MAX_HEAD;
    for (k = 0; k + 1 < max; ++k) {
        if (p[k] != '\n') continue;
        if (p[k + 1] == '\n') return k + 2;
        if (p[k + 1] == '\r' && k + 2 < max && p[k + 2] == '\n') return k + 3;
    }
    return 0;
}

/* ---- the console's state ------------------------------------------------------ */

/* One registered command. */
typedef struct ecs__console_cmd {
    char name[ECS_CONSOLE_NAME_MAX];
    char help[ECS_CONSOLE_HELP_MAX];
    char args[ECS_CONSOLE_ARGS_MAX];
    ecs_console_fn fn;
    void *user;
    uint8_t used;
    uint8_t tracked; /* a plugin's: the registry owns the registration (ecs_plugin_track) */
} ecs__console_cmd;

/* connection states */
#define ECS__CONSOLE_FREE 0     /* slot unused */
#define ECS__CONSOLE_DETECT 1   /* no byte yet tells the protocol */
#define ECS__CONSOLE_FRAMED 2   /* the framed protocol */
#define ECS__CONSOLE_CLOSING 3  /* sends what is pending, reads nothing more, then drains */
#define ECS__CONSOLE_DRAINING 4 /* everything sent and sending shut down: input discarded until EOF or linger */
#define ECS__CONSOLE_REFUSERS 2u /* socket slots beyond max_clients where a refused client says which protocol it speaks */
#define ECS__CONSOLE_HTTP 5     /* HTTP/1.1 requests (the inspector's), one after another (keep-alive) */

/* One connection: a socket client, or the in-process one (local). */
typedef struct ecs__console_conn {
    ecs__console_sock sock;
    uint32_t state;
    int local;
    ecs__console_buf in;   /* received: in.p[in_start .. in.len) not handled yet */
    size_t in_start;
    ecs__console_buf out;  /* to send: out.p[out_start .. out.len) */
    size_t out_start;
    uint64_t last_in;       /* when a byte last arrived (or it connected) */
    uint64_t last_progress; /* when output last moved, or was queued onto none */
    uint64_t closing_since; /* when it started draining */
    int peer_closed;        /* the client shut down its sending side */
    int discard;            /* closing for back-pressure: drop what is pending, at once */
    uint32_t refusing;      /* over max_clients: polls its first bytes were awaited (0: a regular connection) */
    uint64_t *close_count;  /* the stats counter its closing counts in */
} ecs__console_conn;

/* A request's "id": echoed in the reply (null when absent). */
typedef struct ecs__console_id {
    int present;
    uint64_t value;
} ecs__console_id;

struct ecs_console_call {
    ecs_console *console;
    const char *name;
    const ecs_json_doc *doc;
    const ecs_json_value *args; /* an object, or NULL */
    const void *payload;
    size_t payload_size;
    ecs__console_buf *result;
    const void *out_payload;
    size_t out_payload_size;
    int has_payload;
    int failed;
    char error[512];
    char name_copy[ECS_CONSOLE_NAME_MAX]; /* the handler may remove its own command */
};

struct ecs_console {
    ecs__console_sock listener;
    int port;
    ecs_world *world;
    uint32_t max_message, max_clients, max_commands, requests_per_poll, read_per_poll;
    size_t max_pending;
    ecs_console_timeouts timeouts; /* resolved: milliseconds, ECS_CONSOLE_NEVER for none */
    ecs_console_clock_fn clock;
    void *clock_user;
    ecs_console_request_fn on_request;
    void *request_user;
    uint32_t num_open;            /* socket connections not FREE (a poll never serves the in-process one): 0 makes a poll one look */
    uint64_t now, frame;
    ecs__console_cmd *cmds;       /* max_commands slots */
    uint32_t *order;              /* help's scratch: command slots by name */
    ecs__console_conn *conns;     /* max_clients sockets, ECS__CONSOLE_REFUSERS refusing ones, the in-process one */
    uint32_t num_socks;           /* socket slots: max_clients + ECS__CONSOLE_REFUSERS; conns[num_socks] is local */
    uint32_t num_conns;           /* num_socks + 1 */
    uint32_t next_conn;           /* where the next poll's round starts (fairness) */
    int busy;                     /* a poll or feed runs: a handler's own poll, feed or flush does nothing */
    int waited;                   /* ecs_console_wait ran since the last poll ... */
    int listener_ready;           /* ... and saw a client waiting to be accepted */
    uint32_t accept_every;        /* polls without a wait between two looks for new clients */
    uint32_t polls_unaccepted;    /* polls since the last look */
#ifndef _WIN32
    struct pollfd *fds;           /* ecs_console_wait's set: the listener and num_socks */
#endif
    ecs_json_doc doc;             /* the request being answered */
    ecs_json_doc args_doc;        /* a script line's arguments */
    ecs_json_doc check_doc;       /* scratch: results checked, script words classified */
    ecs__console_buf result;      /* a call's result text */
    ecs__console_buf script;      /* a script's results */
    ecs__console_buf line;        /* a script line's arguments as JSON */
    ecs__console_buf log;         /* a log line's message */
    ecs__console_buf http;        /* an HTTP request's decoded path and arguments */
    const void *page;             /* GET / (desc.page) */
    size_t page_size;
    char address[64];             /* the address bound: a Host an HTTP request may name */
    unsigned char *aligned;       /* a payload's aligned copy */
    size_t aligned_cap;
    ecs_snapshot_output save;     /* world.save's buffer (reused) */
    ecs_snapshot_output backup;   /* world.load's copy of the world */
    ecs_world_cursor cursor;      /* world.query's walk */
    ecs_console_stats stats;
    int net_started;
#ifdef ECS_PLUGIN_H_INCLUDED
    ecs_plugin_registry *registry; /* ecs_console_publish's, until it is destroyed */
    ecs_plugin_tracker tracker;    /* plugin commands */
    ecs_plugin_tracker self;       /* this console's publication: tells when the registry goes */
#endif
};

/* ---- the command table ------------------------------------------------------------ */

static ecs__console_cmd *ecs__console_find(const ecs_console *c, const char *name, size_t n)
{
    uint32_t k;
    if (n == 0 || n >= ECS_CONSOLE_NAME_MAX) return NULL;
    for (k = 0; k < c->max_commands; ++k) {
        ecs__console_cmd *cmd = &c->cmds[k];
        if (cmd->used && cmd->name[0] == name[0] && memcmp(cmd->name, name, n) == 0 && cmd->name[n] == 0) return cmd;
    }
    return NULL;
}

/* A name as sent (its first 64 bytes) for an error message, in out (129
   bytes): a NUL byte shown as \0, where printf would stop. */
static const char *ecs__console_name_text(char *out, const char *name, size_t n)
{
    size_t i, o = 0;
    for (i = 0; i < n && i < 64; ++i) {
        if (name[i] == 0) out[o++] = '\\';
        out[o++] = name[i] ? name[i] : '0';
    }
    out[o] = 0;
    return out;
}

static ecs__console_cmd *ecs__console_free_slot(const ecs_console *c)
{
    uint32_t k;
    for (k = 0; k < c->max_commands; ++k)
        if (!c->cmds[k].used) return &c->cmds[k];
    return NULL;
}

/* 1 when name is 1..NAME_MAX-1 bytes of [A-Za-z0-9._-]. */
static int ecs__console_name_ok(const char *name)
{
    size_t k;
    if (!name) return 0;
    for (k = 0; name[k]; ++k) {
        char ch = name[k];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
              ch == '_' || ch == '-'))
            return 0;
    }
    return k > 0 && k < ECS_CONSOLE_NAME_MAX;
}

/* Copies s into dst (size bytes), cut at a line break and at size - 1 bytes. */
static void ecs__console_copy_line(char *dst, size_t size, const char *s)
{
    size_t k = 0;
    if (s)
        for (; s[k] && s[k] != '\n' && s[k] != '\r' && k + 1 < size; ++k) dst[k] = s[k];
    dst[k] = 0;
}

/* Fills a slot from desc (the strings are copied now). */
static void ecs__console_fill(ecs__console_cmd *cmd, const ecs_console_command_desc *desc, uint8_t tracked)
{
    ecs__console_copy_line(cmd->name, sizeof cmd->name, desc->name);
    ecs__console_copy_line(cmd->help, sizeof cmd->help, desc->help);
    ecs__console_copy_line(cmd->args, sizeof cmd->args, desc->args);
    cmd->fn = desc->fn;
    cmd->user = desc->user;
    cmd->tracked = tracked;
    cmd->used = 1;
}

/* What add_command checks before anything changes. */
static ecs_result ecs__console_check_desc(const ecs_console *c, const ecs_console_command_desc *desc, ecs_error *err)
{
    if (!c || !desc || !desc->fn)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "console: add_command needs a console, a desc and a handler");
    if (!ecs__console_name_ok(desc->name))
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "console: command name '%.64s' is not 1..%u characters of A-Z a-z 0-9 . _ -",
                             desc->name ? desc->name : "(null)", (unsigned)ECS_CONSOLE_NAME_MAX - 1u);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_console_add_command(ecs_console *c, const ecs_console_command_desc *desc, ecs_error *err)
{
    ecs__console_cmd *slot;
    ecs_result r = ecs__console_check_desc(c, desc, err);
    if (r != ECS_OK) return r;
    if (ecs__console_find(c, desc->name, strlen(desc->name)))
        return ecs_error_set(err, ECS_ERROR_ALREADY_EXISTS, "console: command '%s' is already registered", desc->name);
    if (!(slot = ecs__console_free_slot(c)))
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "console: no room for command '%s' (max_commands is %u)",
                             desc->name, (unsigned)c->max_commands);
    ecs__console_fill(slot, desc, 0);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_console_remove_command(ecs_console *c, const char *name)
{
    ecs__console_cmd *cmd = c && name ? ecs__console_find(c, name, strlen(name)) : NULL;
    if (!cmd) return ECS_ERROR_NOT_FOUND;
#ifdef ECS_PLUGIN_H_INCLUDED
    if (cmd->tracked && c->registry) return ecs_plugin_untrack(c->registry, &c->tracker, name);
#endif
    memset(cmd, 0, sizeof *cmd);
    return ECS_OK;
}

/* ---- calls: arguments and results ----------------------------------------------------- */

static ecs_result ecs__console_vfail(ecs_console_call *call, ecs_result code, const char *format, va_list ap)
{
    if (code == ECS_OK) code = ECS_ERROR_INVALID_ARGUMENT;
    if (!call->failed) { /* the first failure explains best */
        vsnprintf(call->error, sizeof call->error, format, ap);
        call->failed = 1;
    }
    return code;
}

ECS_DEF ecs_result ecs_console_fail(ecs_console_call *call, ecs_result code, const char *format, ...)
{
    va_list ap;
    ecs_result r;
    va_start(ap, format);
    r = ecs__console_vfail(call, code, format, ap);
    va_end(ap);
    return r;
}

ECS_DEF const char *ecs_console_call_name(const ecs_console_call *call) { return call->name; }
ECS_DEF const ecs_json_doc *ecs_console_call_doc(const ecs_console_call *call) { return call->doc; }

ECS_DEF const ecs_json_value *ecs_console_arg(const ecs_console_call *call, const char *name)
{
    return call->args && name ? ecs_json_member(call->doc, call->args, name) : NULL;
}

ECS_DEF const void *ecs_console_call_payload(const ecs_console_call *call, size_t *size)
{
    if (size) *size = call->payload ? call->payload_size : 0u;
    return call->payload;
}

/* "a number", "a string", ... for messages */
static const char *ecs__console_type_name(const ecs_json_value *v)
{
    static const char *const names[] = {"null", "false", "true", "a number", "a string", "an array", "an object"};
    return v->type <= ECS_JSON_OBJECT ? names[v->type] : "?";
}

static ecs_result ecs__console_missing(ecs_console_call *call, const char *name, const char *what)
{
    return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "argument '%.64s' (%s) is missing", name, what);
}

ECS_DEF ecs_result ecs_console_arg_f64(ecs_console_call *call, const char *name, const double *fallback, double *out)
{
    const ecs_json_value *v = ecs_console_arg(call, name);
    if (!v) {
        if (!fallback) return ecs__console_missing(call, name, "a number");
        *out = *fallback;
        return ECS_OK;
    }
    if (v->type != ECS_JSON_NUMBER || !(v->number >= -1.7976931348623157e308 && v->number <= 1.7976931348623157e308))
        return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "argument '%.64s': expected a finite number, found %s",
                                name, ecs__console_type_name(v));
    *out = v->number;
    return ECS_OK;
}

/* A whole number 0..max from v, or 0 with why written. */
static int ecs__console_whole(const ecs_json_value *v, uint64_t max, uint64_t *out)
{
    if (v->type != ECS_JSON_NUMBER || !(v->flags & ECS_JSON_WHOLE) || ((v->flags & ECS_JSON_NEGATIVE) && v->integer) ||
        v->integer > max)
        return 0;
    *out = v->integer;
    return 1;
}

ECS_DEF ecs_result ecs_console_arg_u32(ecs_console_call *call, const char *name, const uint32_t *fallback, uint32_t *out)
{
    const ecs_json_value *v = ecs_console_arg(call, name);
    uint64_t x;
    if (!v) {
        if (!fallback) return ecs__console_missing(call, name, "a whole number");
        *out = *fallback;
        return ECS_OK;
    }
    if (!ecs__console_whole(v, 0xFFFFFFFFu, &x))
        return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT,
                                "argument '%.64s': expected a whole number 0..4294967295, found %s", name,
                                v->type == ECS_JSON_NUMBER ? "another number" : ecs__console_type_name(v));
    *out = (uint32_t)x;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_console_arg_string(ecs_console_call *call, const char *name, const char *fallback, const char **out)
{
    const ecs_json_value *v = ecs_console_arg(call, name);
    if (!v) {
        if (!fallback) return ecs__console_missing(call, name, "a string");
        *out = fallback;
        return ECS_OK;
    }
    if (v->type != ECS_JSON_STRING)
        return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "argument '%.64s': expected a string, found %s", name,
                                ecs__console_type_name(v));
    if (memchr(ecs_json_string(call->doc, v), 0, v->count)) /* a name cut at the NUL would pass as another */
        return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "argument '%.64s': holds a NUL byte", name);
    *out = ecs_json_string(call->doc, v);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_console_arg_f32_array(ecs_console_call *call, const char *name, float *out, uint32_t n,
                                             const float *fallback)
{
    const ecs_json_value *v = ecs_console_arg(call, name), *e;
    uint32_t k;
    float x;
    if (!v) {
        if (!fallback) return ecs__console_missing(call, name, "an array of numbers");
        for (k = 0; k < n; ++k) out[k] = fallback[k];
        return ECS_OK;
    }
    if (v->type != ECS_JSON_ARRAY || v->count != n)
        return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "argument '%.64s': expected an array of %u numbers, found %s",
                                name, (unsigned)n, ecs__console_type_name(v));
    for (k = 0, e = ecs_json_first(call->doc, v); e; e = ecs_json_next(call->doc, e), ++k)
        if (!ecs_json_f32(e, &x)) /* the float nearest the text, marked when the JSON was parsed */
            return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT,
                                    "argument '%.64s'[%u]: expected a number that fits a float (rounds to a finite one)",
                                    name, (unsigned)k);
    for (k = 0, e = ecs_json_first(call->doc, v); e; e = ecs_json_next(call->doc, e), ++k)
        (void)ecs_json_f32(e, &out[k]); /* each fits: checked above */
    return ECS_OK;
}

ECS_DEF ecs_result ecs_console_arg_entity(ecs_console_call *call, const char *name, ecs_entity *out)
{
    const ecs_json_value *v = ecs_console_arg(call, name);
    uint64_t x;
    ecs_entity e;
    if (!v) return ecs__console_missing(call, name, "an entity id");
    if (!ecs__console_whole(v, 0xFFFFFFFFu, &x))
        return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT,
                                "argument '%.64s': expected an entity id (a whole number 0..4294967295), found %s", name,
                                v->type == ECS_JSON_NUMBER ? "another number" : ecs__console_type_name(v));
    e.id = (uint32_t)x;
    if (call->console->world ? !ecs_entity_live(&call->console->world->entities, e) : ecs_entity_is_nil(e))
        return ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "argument '%.64s': entity %lu is not alive", name,
                                (unsigned long)e.id);
    *out = e;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_console_result_json(ecs_console_call *call, const char *json, size_t n)
{
    ecs__console_put(call->result, json, n);
    return call->result->oom ? ECS_ERROR_OUT_OF_MEMORY : ECS_OK;
}

/* Appends NUL-terminated JSON text to the result. */
static ecs_result ecs__console_text(ecs_console_call *call, const char *json)
{
    return ecs_console_result_json(call, json, strlen(json));
}

ECS_DEF ecs_result ecs_console_result_string(ecs_console_call *call, const char *s, size_t n)
{
    ecs__console_put_string(call->result, s, n);
    return call->result->oom ? ECS_ERROR_OUT_OF_MEMORY : ECS_OK;
}

ECS_DEF ecs_result ecs_console_result_printf(ecs_console_call *call, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    ecs__console_vprintf(call->result, format, ap);
    va_end(ap);
    return call->result->oom ? ECS_ERROR_OUT_OF_MEMORY : ECS_OK;
}

ECS_DEF ecs_result ecs_console_result_payload(ecs_console_call *call, const void *data, size_t size)
{
    if (!data && size) return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "a payload of %lu bytes at NULL", (unsigned long)size);
    call->out_payload = data;
    call->out_payload_size = size;
    call->has_payload = 1;
    return ECS_OK;
}

/* ---- dispatch: a request to its reply ----------------------------------------------- */

static void ecs__console_close_later(ecs__console_conn *k, uint64_t *counter);

/* Bytes of a framed error reply's message with its NUL: longer ones are cut. */
#define ECS__CONSOLE_ERROR_TEXT 800u
/* The longest framed error reply, the bytes after its 8-byte head (4861):
   the largest id and ECS__CONSOLE_ERROR_TEXT - 1 bytes of message each
   escaped to 6 ("\u001f", or "\ufffd" for a byte that is not UTF-8).
   ecs_console_create takes no smaller max_message, so every error reply
   fits whole. */
#define ECS__CONSOLE_MIN_MESSAGE                                                                                      \
    (sizeof "{\"type\": \"reply\", \"id\": 9007199254740992, \"ok\": false, \"error\": \"\"}" - 1u +                       \
     6u * (ECS__CONSOLE_ERROR_TEXT - 1u))

/* Appends a reply's frame to b with its head zeroed (12 bytes when binary,
   else 8): the JSON (ok with text as the result, or an error with text as
   the message) and the payload. Returns the bytes after the 8-byte head;
   *json_size the JSON's. */
static size_t ecs__console_put_reply(ecs__console_buf *b, const ecs__console_id *id, int ok, const char *text, size_t n,
                                     int binary, const void *payload, size_t payload_size, size_t *json_size)
{
    static const unsigned char zeros[12] = {0};
    size_t start = b->len, json_at;
    ecs__console_put(b, zeros, binary ? 12u : 8u);
    json_at = b->len;
    ecs__console_puts(b, "{\"type\": \"reply\", \"id\": ");
    if (id->present) ecs__console_printf(b, "%llu", (unsigned long long)id->value);
    else ecs__console_puts(b, "null");
    ecs__console_puts(b, ok ? ", \"ok\": true, \"result\": " : ", \"ok\": false, \"error\": ");
    if (ok) ecs__console_put(b, text, n);
    else ecs__console_put_string(b, text, n);
    ecs__console_puts(b, "}");
    *json_size = b->len - json_at;
    if (binary) ecs__console_put(b, payload, payload_size);
    return b->len - start - 8u;
}

/* Queues a reply on k: ok with text as the result (JSON) and an optional
   payload (a type-1 reply), or an error with text as the message. A reply
   over max_message becomes an error reply saying so, which is not measured
   again: it is at most ECS__CONSOLE_MIN_MESSAGE bytes, under the smallest
   max_message ecs_console_create takes. */
static void ecs__console_reply(ecs_console *c, ecs__console_conn *k, const ecs__console_id *id, int ok, const char *text,
                               size_t n, int binary, const void *payload, size_t payload_size)
{
    ecs__console_buf *b = &k->out;
    size_t start = b->len, json_size, total;
    binary = binary && ok;
    if (k->out_start == b->len) k->last_progress = c->now; /* the stall clock starts when output is queued onto none */
    total = ecs__console_put_reply(b, id, ok, text, n, binary, payload, payload_size, &json_size);
    if (!b->oom && total > c->max_message) {
        char why[160];
        b->len = start;
        snprintf(why, sizeof why, "the reply of %llu bytes is over the message limit of %lu bytes (ecs_console_desc.max_message)",
                 (unsigned long long)total, (unsigned long)c->max_message);
        ok = binary = 0;
        total = ecs__console_put_reply(b, id, 0, why, strlen(why), 0, NULL, 0, &json_size);
    }
    if (b->oom) return; /* the caller closes k */
    ecs__console_set_u32be(b->p + start, binary ? ECS_CONSOLE_JSON_BINARY : ECS_CONSOLE_JSON);
    ecs__console_set_u32be(b->p + start + 4, (uint32_t)total);
    if (binary) ecs__console_set_u32be(b->p + start + 8, (uint32_t)json_size);
    c->stats.requests++;
    c->stats.errors += !ok;
}

static void ecs__console_reply_error(ecs_console *c, ecs__console_conn *k, const ecs__console_id *id, const char *format,
                                     ...) ECS__CONSOLE_PRINTF(4, 5);
static void ecs__console_reply_error(ecs_console *c, ecs__console_conn *k, const ecs__console_id *id, const char *format,
                                     ...)
{
    char msg[ECS__CONSOLE_ERROR_TEXT];
    va_list ap;
    va_start(ap, format);
    vsnprintf(msg, sizeof msg, format, ap);
    va_end(ap);
    ecs__console_reply(c, k, id, 0, msg, strlen(msg), 0, NULL, 0);
}

#ifdef ECS_PLUGIN_H_INCLUDED
typedef struct ecs__console_thunk {
    ecs__console_cmd *cmd;
    ecs_console_call *call;
    ecs_result r;
} ecs__console_thunk;
static void ecs__console_thunk_run(void *user)
{
    ecs__console_thunk *t = (ecs__console_thunk *)user;
    t->r = t->cmd->fn(t->cmd->user, t->call);
}
#endif

/* Runs cmd with args (an object of doc, or NULL) and payload; on success
   c->result holds its result (checked JSON; "null" when it wrote none), on
   failure msg holds "NAME: why". */
static ecs_result ecs__console_run(ecs_console *c, ecs__console_cmd *cmd, const ecs_json_doc *doc,
                                   const ecs_json_value *args, const void *payload, size_t payload_size,
                                   ecs_console_call *call, char *msg, size_t msg_size)
{
    ecs_error perr;
    ecs_result r;
    memset(call, 0, sizeof *call);
    call->console = c;
    memcpy(call->name_copy, cmd->name, sizeof call->name_copy);
    call->name = call->name_copy;
    call->doc = doc;
    call->args = args;
    call->payload = payload;
    call->payload_size = payload_size;
    call->result = &c->result;
    c->result.len = 0;
    c->result.oom = 0;
#ifdef ECS_PLUGIN_H_INCLUDED
    if (cmd->tracked && c->registry) {
        ecs__console_thunk t;
        t.cmd = cmd;
        t.call = call;
        t.r = ECS_ERROR_NOT_FOUND;
        if (ecs_plugin_track_call(c->registry, &c->tracker, cmd->name, ecs__console_thunk_run, &t) != ECS_OK)
            ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "the plugin's command is gone");
        r = t.r;
    } else
#endif
        r = cmd->fn(cmd->user, call);
    if (r == ECS_OK && c->result.oom) r = ecs_console_fail(call, ECS_ERROR_OUT_OF_MEMORY, "out of memory writing the result");
    if (r == ECS_OK && c->result.len == 0) ecs__console_puts(&c->result, "null");
    if (r == ECS_OK && ecs_json_parse(&c->check_doc, (const char *)c->result.p, c->result.len, &perr) != ECS_OK)
        r = ecs_console_fail(call, perr.code == ECS_ERROR_OUT_OF_MEMORY ? ECS_ERROR_OUT_OF_MEMORY : ECS_ERROR_INVALID_ARGUMENT,
                             "its result is not JSON (%s)", perr.message);
    if (r != ECS_OK) snprintf(msg, msg_size, "%s: %s", call->name, call->failed ? call->error : ecs_result_text(r));
    return r;
}

/* A payload at a 16-byte aligned address (copied when it is not there), or NULL. */
static const void *ecs__console_aligned(ecs_console *c, const unsigned char *p, size_t n)
{
    if (n == 0 || ((size_t)(const void *)p & 15u) == 0) return p;
    if (n > c->aligned_cap) {
        unsigned char *a = (unsigned char *)ECS__REALLOC(c->aligned, n);
        if (!a) return NULL;
        c->aligned = a;
        c->aligned_cap = n;
    }
    memcpy(c->aligned, p, n);
    return c->aligned;
}

static void ecs__console_answer_command(ecs_console *c, ecs__console_conn *k, const ecs__console_id *id,
                                        const ecs__console_frame *f)
{
    const ecs_json_value *root = ecs_json_root(&c->doc), *name = ecs_json_member(&c->doc, root, "command");
    const ecs_json_value *args = ecs_json_member(&c->doc, root, "args");
    const void *payload = NULL;
    ecs__console_cmd *cmd;
    ecs_console_call call;
    char msg[ECS__CONSOLE_ERROR_TEXT], shown[129];
    if (!name || name->type != ECS_JSON_STRING) {
        ecs__console_reply_error(c, k, id, "a command request needs \"command\": a name (a string)");
        return;
    }
    if (args && args->type == ECS_JSON_NULL) args = NULL;
    if (args && args->type != ECS_JSON_OBJECT) {
        ecs__console_reply_error(c, k, id, "\"args\" must be an object, found %s", ecs__console_type_name(args));
        return;
    }
    if (!(cmd = ecs__console_find(c, ecs_json_string(&c->doc, name), name->count))) {
        ecs__console_reply_error(c, k, id, "unknown command '%s' (help lists the commands)",
                                 ecs__console_name_text(shown, ecs_json_string(&c->doc, name), name->count));
        return;
    }
    if (f->type == ECS_CONSOLE_JSON_BINARY && !(payload = ecs__console_aligned(c, f->payload, f->payload_size))) {
        ecs__console_reply_error(c, k, id, "%s: out of memory copying the payload", cmd->name);
        return;
    }
    if (ecs__console_run(c, cmd, &c->doc, args, payload, f->payload_size, &call, msg, sizeof msg) != ECS_OK)
        ecs__console_reply(c, k, id, 0, msg, strlen(msg), 0, NULL, 0);
    else
        ecs__console_reply(c, k, id, 1, (const char *)c->result.p, c->result.len, call.has_payload, call.out_payload,
                           call.out_payload_size);
}

/* The next word of s[*at .. n): a run of characters that are not blanks
   outside quotes and brackets. 0 at the end. */
static int ecs__console_word(const char *s, size_t n, size_t *at, size_t *start, size_t *len)
{
    size_t i = *at;
    int depth = 0, quoted = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) ++i;
    if (i == n) return 0;
    *start = i;
    for (; i < n; ++i) {
        char ch = s[i];
        if (quoted) {
            if (ch == '\\' && i + 1 < n) ++i;
            else if (ch == '"') quoted = 0;
        } else if (ch == '"') {
            quoted = 1;
        } else if (ch == '[' || ch == '{') {
            ++depth;
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            --depth;
        } else if ((ch == ' ' || ch == '\t') && depth == 0) {
            break;
        }
    }
    *len = i - *start;
    *at = i;
    return 1;
}

/* The k-th name of a command's argument list ("entity component"), or 0. */
static int ecs__console_nth_arg(const char *args, uint32_t k, size_t *start, size_t *len)
{
    size_t at = 0;
    uint32_t i;
    for (i = 0; ecs__console_word(args, strlen(args), &at, start, len); ++i)
        if (i == k) return 1;
    return 0;
}

/* Appends one script word's value (argument name, name_n bytes) as JSON:
   one JSON value as it is, any other word as a string. 0 with why when a
   word that starts as JSON ('"', '[' or '{') is not one JSON value: it
   would be copied into the arguments' object and could set others. */
static int ecs__console_word_value(ecs_console *c, const char *name, size_t name_n, const char *v, size_t n, char *why,
                                   size_t why_size)
{
    ecs_error perr;
    if (n > 0 && ecs_json_parse(&c->check_doc, v, n, &perr) == ECS_OK) {
        ecs__console_put(&c->line, v, n);
    } else if (n > 0 && perr.code == ECS_ERROR_OUT_OF_MEMORY) {
        c->line.oom = 1; /* not a string for want of memory */
    } else if (n > 0 && (v[0] == '"' || v[0] == '[' || v[0] == '{')) {
        snprintf(why, why_size, "argument '%.*s' is not JSON: %s", (int)(name_n < 64 ? name_n : 64), name,
                 perr.message);
        return 0;
    } else {
        ecs__console_put_string(&c->line, v, n);
    }
    return 1;
}

/* Builds a script line's arguments (the words after the name) as a JSON
   object in c->line. 0 with msg when a word has no argument to go to. */
static int ecs__console_line_args(ecs_console *c, const ecs__console_cmd *cmd, const char *s, size_t n, size_t at,
                                  char *msg, size_t msg_size)
{
    size_t start, len, e, nstart, nlen;
    uint32_t positional = 0, words = 0;
    char why[400];
    c->line.len = 0;
    c->line.oom = 0;
    ecs__console_puts(&c->line, "{");
    while (ecs__console_word(s, n, &at, &start, &len)) {
        const char *w = s + start, *name = w, *v = w;
        for (e = 0; e < len && ((w[e] >= 'a' && w[e] <= 'z') || (w[e] >= 'A' && w[e] <= 'Z') || w[e] == '_' ||
                                (e > 0 && w[e] >= '0' && w[e] <= '9'));)
            ++e;
        if (words++) ecs__console_puts(&c->line, ", ");
        if (e > 0 && e < len && w[e] == '=') { /* KEY=VALUE */
            v = w + e + 1;
            len -= e + 1;
        } else if (ecs__console_nth_arg(cmd->args, positional, &nstart, &nlen)) {
            ++positional;
            name = cmd->args + nstart;
            e = nlen;
        } else {
            snprintf(msg, msg_size, "%s takes %u positional argument%s (%s); '%.*s' is one too many", cmd->name,
                     (unsigned)positional, positional == 1 ? "" : "s", cmd->args[0] ? cmd->args : "none",
                     (int)(len < 64 ? len : 64), w);
            return 0;
        }
        ecs__console_put_string(&c->line, name, e);
        ecs__console_puts(&c->line, ": ");
        if (!ecs__console_word_value(c, name, e, v, len, why, sizeof why)) {
            snprintf(msg, msg_size, "%s: %s", cmd->name, why);
            return 0;
        }
    }
    ecs__console_puts(&c->line, "}");
    return 1;
}

/* Runs one script line (trimmed, not empty); appends its result to
   c->script. 0 with msg on failure. */
static int ecs__console_script_line(ecs_console *c, const char *s, size_t n, char *msg, size_t msg_size)
{
    size_t at = 0, start, len;
    ecs__console_cmd *cmd;
    ecs_console_call call;
    ecs_error perr;
    char shown[129];
    ecs__console_word(s, n, &at, &start, &len);
    if (!(cmd = ecs__console_find(c, s + start, len))) {
        snprintf(msg, msg_size, "unknown command '%s' (help lists the commands)",
                 ecs__console_name_text(shown, s + start, len));
        return 0;
    }
    if (!ecs__console_line_args(c, cmd, s, n, at, msg, msg_size)) return 0;
    if (c->line.oom || ecs_json_parse(&c->args_doc, (const char *)c->line.p, c->line.len, &perr) != ECS_OK) {
        snprintf(msg, msg_size, "%s: the arguments are not JSON (%s)", cmd->name, c->line.oom ? "out of memory" : perr.message);
        return 0;
    }
    if (ecs__console_run(c, cmd, &c->args_doc, ecs_json_root(&c->args_doc), NULL, 0, &call, msg, msg_size) != ECS_OK)
        return 0;
    if (call.has_payload) {
        snprintf(msg, msg_size, "%s answers with a binary payload: send it as a command, not in a script", call.name);
        return 0;
    }
    if (c->script.len > 1) ecs__console_puts(&c->script, ", ");
    ecs__console_put(&c->script, c->result.p, c->result.len);
    return 1;
}

static void ecs__console_answer_script(ecs_console *c, ecs__console_conn *k, const ecs__console_id *id)
{
    const ecs_json_value *root = ecs_json_root(&c->doc), *text = ecs_json_member(&c->doc, root, "script");
    const char *s;
    size_t at = 0, end, n, b, e;
    uint32_t line = 0;
    char msg[800];
    if (!text || text->type != ECS_JSON_STRING) {
        ecs__console_reply_error(c, k, id, "a script request needs \"script\": lines of NAME ARG ... (a string)");
        return;
    }
    s = ecs_json_string(&c->doc, text);
    n = text->count;
    c->script.len = 0;
    c->script.oom = 0;
    ecs__console_puts(&c->script, "[");
    for (; at < n; at = end + 1) {
        const char *nl = (const char *)memchr(s + at, '\n', n - at);
        end = nl ? (size_t)(nl - s) : n;
        ++line;
        for (b = at; b < end && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r'); ++b) continue;
        for (e = end; e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r'); --e) continue;
        if (b == e || s[b] == '#') continue;
        if (!ecs__console_script_line(c, s + b, e - b, msg, sizeof msg)) {
            ecs__console_reply_error(c, k, id, "line %u (%.*s): %s", (unsigned)line, (int)(e - b < 80 ? e - b : 80), s + b, msg);
            return;
        }
    }
    ecs__console_puts(&c->script, "]");
    if (c->script.oom) ecs__console_reply_error(c, k, id, "out of memory collecting the script's results");
    else ecs__console_reply(c, k, id, 1, (const char *)c->script.p, c->script.len, 0, NULL, 0);
}

/* Answers one complete message. Bad JSON is garbage: an error reply, then
   the connection closes. */
static void ecs__console_answer(ecs_console *c, ecs__console_conn *k, const ecs__console_frame *f)
{
    const ecs_json_value *root, *v;
    ecs__console_id id = {0, 0};
    ecs_error perr;
    if (ecs_json_parse(&c->doc, f->json, f->json_size, &perr) != ECS_OK) {
        int oom = perr.code == ECS_ERROR_OUT_OF_MEMORY;
        ecs__console_reply_error(c, k, &id, "%s%s", oom ? "out of memory reading the message: " : "the message is not JSON: ",
                                 perr.message);
        ecs__console_close_later(k, oom ? &c->stats.closed_memory : &c->stats.closed_bad_input);
        return;
    }
    root = ecs_json_root(&c->doc);
    if (root->type != ECS_JSON_OBJECT) {
        ecs__console_reply_error(c, k, &id, "a request is a JSON object, found %s", ecs__console_type_name(root));
        return;
    }
    if ((v = ecs_json_member(&c->doc, root, "id")) != NULL && v->type != ECS_JSON_NULL) {
        if (!ecs__console_whole(v, 9007199254740992ull, &id.value)) {
            ecs__console_reply_error(c, k, &id, "\"id\" must be a whole number 0..9007199254740992, found %s",
                                     v->type == ECS_JSON_NUMBER ? "another number" : ecs__console_type_name(v));
            return;
        }
        id.present = 1;
    }
    v = ecs_json_member(&c->doc, root, "type");
    if (v && v->type == ECS_JSON_STRING && strcmp(ecs_json_string(&c->doc, v), "command") == 0)
        ecs__console_answer_command(c, k, &id, f);
    else if (v && v->type == ECS_JSON_STRING && strcmp(ecs_json_string(&c->doc, v), "script") == 0)
        ecs__console_answer_script(c, k, &id);
    else
        ecs__console_reply_error(c, k, &id, "\"type\" must be \"command\" or \"script\", found %s%.32s%s",
                                 v && v->type == ECS_JSON_STRING ? "'" : "",
                                 v ? (v->type == ECS_JSON_STRING ? ecs_json_string(&c->doc, v) : ecs__console_type_name(v)) : "nothing",
                                 v && v->type == ECS_JSON_STRING ? "'" : "");
}

/* ---- connections: one state machine for sockets and the in-process one -------------- */

#define ECS__CONSOLE_KEEP_BYTES 65536u /* a closed connection's buffers up to this size are kept for the next */

static size_t ecs__console_pending(const ecs__console_conn *k) { return k->out.len - k->out_start; }
/* Whether k reads requests (not closing or closed). */
static int ecs__console_reading(const ecs__console_conn *k)
{
    return k->state == ECS__CONSOLE_DETECT || k->state == ECS__CONSOLE_FRAMED || k->state == ECS__CONSOLE_HTTP;
}
/* k's unanswered input (a valid pointer even before anything arrived). */
static const unsigned char *ecs__console_input(const ecs__console_conn *k)
{
    return k->in.p ? k->in.p + k->in_start : (const unsigned char *)"";
}

/* k stops reading; what is queued is still sent (the error reply), then
   its input is drained; counter counts the close. */
static void ecs__console_close_later(ecs__console_conn *k, uint64_t *counter)
{
    if (k->state == ECS__CONSOLE_FREE || k->state == ECS__CONSOLE_CLOSING || k->state == ECS__CONSOLE_DRAINING) return;
    k->state = ECS__CONSOLE_CLOSING;
    k->close_count = counter;
    k->in_start = k->in.len; /* what it sent after this is not answered */
}

static void ecs__console_release(ecs__console_buf *b)
{
    if (b->cap > ECS__CONSOLE_KEEP_BYTES) {
        ECS__FREE(b->p);
        b->p = NULL;
        b->cap = 0;
    }
    b->len = 0;
    b->oom = 0;
}

/* Closes k now (counter: why; NULL: the reason close_later gave). The
   in-process connection keeps its output until it is taken. */
static void ecs__console_drop(ecs_console *c, ecs__console_conn *k, uint64_t *counter)
{
    if (!k->local && k->state != ECS__CONSOLE_FREE) --c->num_open;
    if (counter) ++*counter;
    else if (k->close_count) ++*k->close_count;
    if (!k->local) {
        if (k->sock != ECS__CONSOLE_NO_SOCK) ecs__console_close(k->sock);
        c->stats.clients--;
        ecs__console_release(&k->out);
        k->out_start = 0;
    }
    k->sock = ECS__CONSOLE_NO_SOCK;
    k->state = ECS__CONSOLE_FREE;
    ecs__console_release(&k->in);
    k->in_start = 0;
    k->peer_closed = 0;
    k->discard = 0;
    k->refusing = 0;
    k->close_count = NULL;
}

static void ecs__console_open(ecs_console *c, ecs__console_conn *k, ecs__console_sock s)
{
    if (!k->local && k->state == ECS__CONSOLE_FREE) ++c->num_open;
    k->sock = s;
    k->state = ECS__CONSOLE_DETECT;
    k->in.len = 0;
    k->in_start = 0;
    k->last_in = k->last_progress = c->now;
    k->peer_closed = 0;
    k->discard = 0;
    k->close_count = NULL;
}

/* The framed error reply a client over max_clients gets, in msg (208
   bytes); its size, or 0. */
static size_t ecs__console_refusal_message(const ecs_console *c, unsigned char *msg)
{
    char json[200];
    int n = snprintf(json, sizeof json,
                     "{\"type\": \"reply\", \"id\": null, \"ok\": false, \"error\": \"console: too many clients (%u; "
                     "ecs_console_desc.max_clients)\"}",
                     (unsigned)c->max_clients);
    if (n <= 0 || (size_t)n >= sizeof json) return 0;
    ecs__console_set_u32be(msg, ECS_CONSOLE_JSON);
    ecs__console_set_u32be(msg + 4, (uint32_t)n);
    memcpy(msg + 8, json, (size_t)n);
    return 8u + (size_t)n;
}

/* Turns away a client over max_clients when no refusing slot is free: the
   framed error reply (best effort: the socket is fresh, its buffer empty)
   and a close. */
static void ecs__console_refuse(ecs_console *c, ecs__console_sock s)
{
    unsigned char msg[208];
    size_t n = ecs__console_refusal_message(c, msg);
    if (n && ecs__console_nonblocking(s)) (void)ecs__console_send(s, msg, n);
    ecs__console_close(s);
    c->stats.refused++;
}

/* The slot a new client takes: a free one of the max_clients, else that of
   the keep-alive HTTP connection idle longest (closed: browsers open a new
   one when they need it), else a free refusing slot (*refusing = 1: its
   first bytes pick 503 or the framed error reply), else NULL. */
static ecs__console_conn *ecs__console_slot_for(ecs_console *c, int *refusing)
{
    ecs__console_conn *idle = NULL;
    uint32_t i;
    *refusing = 0;
    for (i = 0; i < c->max_clients; ++i) {
        ecs__console_conn *k = &c->conns[i];
        if (k->state == ECS__CONSOLE_FREE) return k;
        if (k->state == ECS__CONSOLE_HTTP && k->in.len == k->in_start && ecs__console_pending(k) == 0 &&
            (!idle || k->last_in < idle->last_in))
            idle = k;
    }
    if (idle) {
        ecs__console_drop(c, idle, &c->stats.closed_http);
        return idle;
    }
    *refusing = 1;
    for (i = c->max_clients; i < c->num_socks; ++i)
        if (c->conns[i].state == ECS__CONSOLE_FREE) return &c->conns[i];
    return NULL;
}

static void ecs__console_accept(ecs_console *c)
{
    uint32_t tries;
    if (c->listener == ECS__CONSOLE_NO_SOCK) return;
    /* a look costs a system call (accept), the most an idle console does:
       made when the last wait saw a client knock, else every accept_every polls */
    if (c->waited ? !c->listener_ready : ++c->polls_unaccepted < c->accept_every) return;
    c->polls_unaccepted = 0;
    c->now = c->clock(c->clock_user); /* a new connection's clocks start now */
    for (tries = 0; tries < c->max_clients + 4u; ++tries) {
        ecs__console_sock s = accept(c->listener, NULL, NULL);
        ecs__console_conn *k;
        int refusing;
        if (s == ECS__CONSOLE_NO_SOCK) return; /* none waiting (or a failed accept: the next poll tries again) */
        k = ecs__console_slot_for(c, &refusing);
        if (!k || !ecs__console_setup_client(s)) {
            ecs__console_refuse(c, s);
            continue;
        }
        ecs__console_open(c, k, s);
        k->refusing = (uint32_t)refusing; /* counted as refused, answered by ecs__console_refusal */
        if (refusing) c->stats.refused++;
        else c->stats.accepted++;
        c->stats.clients++;
    }
}

/* Whether k holds a request the next handle would answer (or refuse). */
static int ecs__console_ready(const ecs_console *c, const ecs__console_conn *k)
{
    const unsigned char *p = ecs__console_input(k);
    size_t n = k->in.len - k->in_start;
    ecs__console_frame f;
    char why[8];
    if (k->state == ECS__CONSOLE_DETECT)
        return ecs__console_detect(p, n) != ECS__CONSOLE_PROTO_MORE || k->refusing > ECS__CONSOLE_REFUSE_POLLS;
    if (k->state == ECS__CONSOLE_HTTP)
        return ecs__console_pending(k) < c->max_pending &&
               (n >= ECS_CONSOLE_HTTP_MAX_HEAD || ecs__console_http_head(p, n) != 0);
    if (k->state != ECS__CONSOLE_FRAMED || ecs__console_pending(k) >= c->max_pending) return 0;
    return ecs__console_frame_parse(p, n, c->max_message, &f, NULL, why, sizeof why) != ECS__CONSOLE_MORE;
}

/* Bytes k's input should hold: all of its first message once the header is in. */
static size_t ecs__console_in_want(const ecs_console *c, const ecs__console_conn *k)
{
    size_t want = 4096u, need = 0;
    ecs__console_frame f;
    char why[8];
    if (k->state == ECS__CONSOLE_HTTP) return ECS_CONSOLE_HTTP_MAX_HEAD + 1u; /* a whole head, or enough to refuse it */
    if (k->state == ECS__CONSOLE_FRAMED &&
        ecs__console_frame_parse(ecs__console_input(k), k->in.len - k->in_start, c->max_message, &f, &need, why,
                                 sizeof why) == ECS__CONSOLE_MORE &&
        need > want)
        want = need;
    return want;
}

/* Discards what a closing client still sends; drops it at its EOF. */
static void ecs__console_drain(ecs_console *c, ecs__console_conn *k)
{
    unsigned char sink[4096];
    uint32_t rounds;
    for (rounds = 0; rounds < 64u; ++rounds) {
        long got = ecs__console_recv(k->sock, sink, sizeof sink);
        if (got == ECS__CONSOLE_IO_AGAIN) return;
        if (got <= 0) {
            ecs__console_drop(c, k, NULL);
            return;
        }
    }
}

/* Moves k's unhandled input to the front of its buffer. */
static void ecs__console_compact_input(ecs__console_conn *k)
{
    if (!k->in_start) return;
    memmove(k->in.p, k->in.p + k->in_start, k->in.len - k->in_start);
    k->in.len -= k->in_start;
    k->in_start = 0;
}

/* Reads what k sent, at most read_per_poll bytes. */
static void ecs__console_read(ecs_console *c, ecs__console_conn *k)
{
    size_t budget = c->read_per_poll, want, room;
    long got;
    if (k->state == ECS__CONSOLE_DRAINING) {
        ecs__console_drain(c, k);
        return;
    }
    if (k->state == ECS__CONSOLE_CLOSING || k->peer_closed) return;
    ecs__console_compact_input(k);
    while (budget > 0) {
        want = ecs__console_in_want(c, k);
        if (k->in.len >= want && k->in.len == k->in.cap) return; /* full: answer first */
        if (!ecs__console_reserve(&k->in, want > k->in.len ? want - k->in.len : 1u)) {
            ecs__console_close_later(k, &c->stats.closed_memory);
            return;
        }
        room = k->in.cap - k->in.len;
        got = ecs__console_recv(k->sock, k->in.p + k->in.len, room < budget ? room : budget);
        if (got == ECS__CONSOLE_IO_AGAIN) return;
        if (got == ECS__CONSOLE_IO_CLOSED) {
            k->peer_closed = 1; /* its requests are still answered */
            return;
        }
        if (got < 0) {
            ecs__console_drop(c, k, &c->stats.closed_by_peer);
            return;
        }
        k->in.len += (size_t)got;
        budget -= (size_t)got < budget ? (size_t)got : budget;
        c->stats.bytes_in += (uint64_t)got;
        k->last_in = c->now;
        if ((size_t)got < room) return; /* the socket had no more: the next poll reads what comes */
    }
}

/* ---- HTTP: the inspector's requests on the console port ------------------------------ */


/* What a request's head says (pointers into the connection's input). */
typedef struct ecs__console_http_req {
    const char *target;      /* "/api/world.stats?limit=5", not NUL-terminated */
    size_t target_n;
    int is_get;              /* the method is GET */
    int keep_alive;          /* HTTP/1.1 without "Connection: close" */
    int body;                /* Content-Length other than 0, or Transfer-Encoding */
    int host_ok;             /* no Host, or one naming this machine or the bound address */
    int foreign;             /* from another site's page: Origin not allowed, or Sec-Fetch-Site cross/same-site without one */
    const char *origin;      /* the Origin header's value when allowed (echoed for CORS), else NULL */
    size_t origin_n;
} ecs__console_http_req;

static int ecs__console_lower_eq(const char *s, size_t n, const char *lower)
{
    size_t k;
    for (k = 0; k < n && lower[k]; ++k)
        if ((s[k] >= 'A' && s[k] <= 'Z' ? s[k] + 32 : s[k]) != lower[k]) return 0;
    return k == n && lower[k] == 0;
}

/* Whether s[0..n) is nothing or ":" and 1..5 digits (a port). */
static int ecs__console_port_ok(const char *s, size_t n)
{
    size_t k;
    if (n == 0) return 1;
    if (s[0] != ':' || n < 2 || n > 6) return 0;
    for (k = 1; k < n && s[k] >= '0' && s[k] <= '9'; ++k) continue;
    return k == n;
}

/* Whether host[0..n) (a Host header, or an origin's host part, with an
   optional ":port": nothing else may follow the name) names this machine
   or the bound address. */
static int ecs__console_host_ok(const ecs_console *c, const char *host, size_t n)
{
    size_t end = n;
    if (n > 0 && host[0] == '[') /* [::1]:port */
        return n >= 5 && memcmp(host, "[::1]", 5) == 0 && ecs__console_port_ok(host + 5, n - 5);
    for (end = 0; end < n && host[end] != ':'; ++end) continue;
    if (!ecs__console_port_ok(host + end, n - end)) return 0;
    if (strcmp(c->address, "0.0.0.0") == 0) return 1; /* every interface: any name may reach it */
    return ecs__console_lower_eq(host, end, "localhost") || (end == 9 && memcmp(host, "127.0.0.1", 9) == 0) ||
           (end == strlen(c->address) && memcmp(host, c->address, end) == 0);
}

/* One header line into r. */
static void ecs__console_http_header(const ecs_console *c, const char *name, size_t nn, const char *v, size_t vn,
                                     ecs__console_http_req *r)
{
    if (ecs__console_lower_eq(name, nn, "connection")) {
        if (ecs__console_lower_eq(v, vn, "close")) r->keep_alive = 0;
    } else if (ecs__console_lower_eq(name, nn, "content-length")) {
        r->body |= !(vn == 1 && v[0] == '0');
    } else if (ecs__console_lower_eq(name, nn, "transfer-encoding")) {
        r->body = 1;
    } else if (ecs__console_lower_eq(name, nn, "host")) {
        r->host_ok = ecs__console_host_ok(c, v, vn);
    } else if (ecs__console_lower_eq(name, nn, "origin")) {
        /* "null": a page opened from disk (file://); else http://HOST[:PORT] */
        if ((vn == 4 && memcmp(v, "null", 4) == 0) ||
            (vn > 7 && memcmp(v, "http://", 7) == 0 && ecs__console_host_ok(c, v + 7, vn - 7))) {
            r->origin = v;
            r->origin_n = vn;
        } else {
            r->foreign = 1;
        }
    } else if (ecs__console_lower_eq(name, nn, "sec-fetch-site")) {
        if (ecs__console_lower_eq(v, vn, "cross-site") || ecs__console_lower_eq(v, vn, "same-site")) r->foreign |= 2;
    }
}

/* Parses the head (n bytes at p) into r; 0 with why when it is malformed. */
static int ecs__console_http_parse(const ecs_console *c, const char *p, size_t n, ecs__console_http_req *r,
                                   const char **why)
{
    size_t at, end, sp1, sp2, colon, vb, ve;
    memset(r, 0, sizeof *r);
    r->host_ok = 1;
    for (end = 0; end < n && p[end] != '\n'; ++end) continue;
    ve = end > 0 && p[end - 1] == '\r' ? end - 1 : end;
    for (sp1 = 0; sp1 < ve && p[sp1] != ' '; ++sp1) continue;
    for (sp2 = sp1 + 1; sp2 < ve && p[sp2] != ' '; ++sp2) continue;
    if (sp1 >= ve || sp2 >= ve || sp2 == sp1 + 1 || ve - sp2 != 9 || memcmp(p + sp2 + 1, "HTTP/1.", 7) != 0 ||
        (p[ve - 1] != '0' && p[ve - 1] != '1')) {
        *why = "the request line is not METHOD TARGET HTTP/1.x";
        return 0;
    }
    r->is_get = sp1 == 3 && memcmp(p, "GET", 3) == 0;
    r->target = p + sp1 + 1;
    r->target_n = sp2 - sp1 - 1;
    r->keep_alive = p[ve - 1] == '1';
    for (at = end + 1; at < n; at = end + 1) {
        for (end = at; end < n && p[end] != '\n'; ++end) continue;
        ve = end > at && p[end - 1] == '\r' ? end - 1 : end;
        if (ve == at) break; /* the empty line */
        for (colon = at; colon < ve && p[colon] != ':'; ++colon) continue;
        if (colon == ve || colon == at || p[at] == ' ' || p[at] == '\t') {
            *why = "a header line is not NAME: VALUE";
            return 0;
        }
        for (vb = colon + 1; vb < ve && (p[vb] == ' ' || p[vb] == '\t'); ++vb) continue;
        while (ve > vb && (p[ve - 1] == ' ' || p[ve - 1] == '\t')) --ve;
        ecs__console_http_header(c, p + at, colon - at, p + vb, ve - vb, r);
    }
    if (r->origin) r->foreign &= 1; /* an allowed Origin settles it */
    return 1;
}

static const char *ecs__console_http_reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 413: return "Content Too Large";
    case 503: return "Service Unavailable";
    default: return "Internal Server Error";
    }
}

/* Queues one response on k (r NULL: closes after it); a status of 400 and
   over counts as an error. */
static void ecs__console_http_respond(ecs_console *c, ecs__console_conn *k, const ecs__console_http_req *r, int status,
                                      const char *type, const void *body, size_t n)
{
    int keep = r && r->keep_alive && status != 405 && status != 413;
    if (ecs__console_pending(k) == 0) k->last_progress = c->now;
    ecs__console_printf(&k->out,
                        "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %lu\r\nCache-Control: no-store\r\n"
                        "X-Content-Type-Options: nosniff\r\nConnection: %s\r\n%s",
                        status, ecs__console_http_reason(status), type, (unsigned long)n, keep ? "keep-alive" : "close",
                        status == 405 ? "Allow: GET\r\n" : "");
    if (r && r->origin) {
        ecs__console_puts(&k->out, "Access-Control-Allow-Origin: ");
        ecs__console_put(&k->out, r->origin, r->origin_n);
        ecs__console_puts(&k->out, "\r\nVary: Origin\r\n");
    }
    ecs__console_put(&k->out, "\r\n", 2);
    ecs__console_put(&k->out, body, n);
    c->stats.requests++;
    c->stats.errors += status >= 400;
    if (!keep) ecs__console_close_later(k, &c->stats.closed_http);
}

/* An error response: {"error": message} (r NULL: and close). */
static void ecs__console_http_error(ecs_console *c, ecs__console_conn *k, const ecs__console_http_req *r, int status,
                                    const char *format, ...) ECS__CONSOLE_PRINTF(5, 6);
static void ecs__console_http_error(ecs_console *c, ecs__console_conn *k, const ecs__console_http_req *r, int status,
                                    const char *format, ...)
{
    char msg[800];
    va_list ap;
    va_start(ap, format);
    vsnprintf(msg, sizeof msg, format, ap);
    va_end(ap);
    c->http.len = 0;
    c->http.oom = 0;
    ecs__console_puts(&c->http, "{\"error\": ");
    ecs__console_put_string(&c->http, msg, strlen(msg));
    ecs__console_puts(&c->http, "}");
    if (c->http.oom) k->out.oom = 1; /* the caller closes k */
    else ecs__console_http_respond(c, k, r, status, "application/json", c->http.p, c->http.len);
}

static int ecs__console_hex(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* Appends s[0..n) percent-decoded to b ('+' stays '+'); 0 on a '%' not
   followed by two hex digits or one that decodes to a NUL byte. */
static int ecs__console_decode(ecs__console_buf *b, const char *s, size_t n)
{
    size_t k;
    for (k = 0; k < n; ++k) {
        unsigned char ch = (unsigned char)s[k];
        if (ch == '%') {
            int hi = k + 2 < n ? ecs__console_hex(s[k + 1]) : -1, lo = hi >= 0 ? ecs__console_hex(s[k + 2]) : -1;
            if (hi < 0 || lo < 0 || (hi | lo) == 0) return 0;
            ch = (unsigned char)(hi * 16 + lo);
            k += 2;
        }
        ecs__console_put(b, &ch, 1);
    }
    return 1;
}

/* The arguments of an /api request (the query q: NAME=VALUE&..., each
   percent-decoded; a VALUE is read as a script word is: JSON, else a
   string) as one JSON object in c->line. 0 with why on bad input. */
static int ecs__console_http_args(ecs_console *c, const char *q, size_t n, char *why, size_t why_size)
{
    size_t at, end, eq, start;
    int first = 1;
    c->line.len = 0;
    c->line.oom = 0;
    ecs__console_puts(&c->line, "{");
    for (at = 0; at < n; at = end + 1) {
        for (end = at; end < n && q[end] != '&'; ++end) continue;
        if (end == at) continue;
        for (eq = at; eq < end && q[eq] != '='; ++eq) continue;
        c->http.len = 0;
        c->http.oom = 0;
        if (!ecs__console_decode(&c->http, q + at, eq - at) || eq == at) {
            snprintf(why, why_size, "argument name '%.*s' is empty or its percent-encoding is bad", (int)(eq - at < 64 ? eq - at : 64),
                     q + at);
            return 0;
        }
        start = c->http.len;
        if (eq == end || !ecs__console_decode(&c->http, q + eq + 1, end - eq - 1)) {
            snprintf(why, why_size, "argument '%.*s': %s", (int)(start < 64 ? start : 64), (const char *)c->http.p,
                     eq == end ? "no value (write NAME=JSON)" : "bad percent-encoding (a '%' needs two hex digits, not 00)");
            return 0;
        }
        if (!first) ecs__console_puts(&c->line, ", ");
        first = 0;
        ecs__console_put_string(&c->line, (const char *)c->http.p, start);
        ecs__console_puts(&c->line, ": ");
        if (c->http.oom) c->line.oom = 1; /* a value cut short for want of memory: not refused as not JSON */
        else if (!ecs__console_word_value(c, (const char *)c->http.p, start, (const char *)c->http.p + start,
                                          c->http.len - start, why, why_size))
            return 0;
    }
    ecs__console_puts(&c->line, "}");
    return 1;
}

/* An error code's HTTP status. */
static int ecs__console_http_status(ecs_result r)
{
    return r == ECS_ERROR_NOT_FOUND ? 404 : r == ECS_ERROR_ALREADY_EXISTS ? 409 : r == ECS_ERROR_OUT_OF_MEMORY ? 500 : 400;
}

/* Hands desc.on_request the framed request an /api request is equivalent
   to (cmd with the arguments in c->line, no id), built in c->http: a
   traffic log keeps it and a replay feeds it back. 1 passed; 0 out of
   memory; -1 not passed, its JSON is over max_message (a replay would
   refuse it). */
static int ecs__console_http_pass(ecs_console *c, const ecs__console_cmd *cmd)
{
    c->http.len = 0;
    c->http.oom = 0;
    ecs__console_put(&c->http, "\0\0\0\0\0\0\0\0", 8); /* the header, set below */
    ecs__console_puts(&c->http, "{\"type\": \"command\", \"command\": ");
    ecs__console_put_string(&c->http, cmd->name, strlen(cmd->name));
    ecs__console_puts(&c->http, ", \"args\": ");
    ecs__console_put(&c->http, c->line.p, c->line.len);
    ecs__console_puts(&c->http, "}");
    if (c->http.oom) return 0;
    if (c->http.len - 8u > c->max_message) return -1;
    ecs__console_set_u32be(c->http.p, ECS_CONSOLE_JSON);
    ecs__console_set_u32be(c->http.p + 4, (uint32_t)(c->http.len - 8u));
    c->on_request(c->request_user, c->http.p, c->http.len);
    return 1;
}

/* GET /api/NAME?ARGS: runs command NAME (path: NAME as sent, n bytes) with
   the arguments as the framed protocol would; its result is the body. */
static void ecs__console_http_api(ecs_console *c, ecs__console_conn *k, const ecs__console_http_req *r, const char *path,
                                  size_t n, const char *query, size_t qn)
{
    ecs__console_cmd *cmd;
    ecs_console_call call;
    ecs_error perr;
    ecs_result res;
    char msg[800], shown[129];
    int passed;
    c->http.len = 0;
    c->http.oom = 0;
    if (!ecs__console_decode(&c->http, path, n)) {
        ecs__console_http_error(c, k, r, 400, "the path's percent-encoding is bad (a '%%' needs two hex digits, not 00)");
        return;
    }
    if (!(cmd = ecs__console_find(c, (const char *)c->http.p, c->http.len))) {
        ecs__console_http_error(c, k, r, 404, "unknown command '%s' (GET /api/help lists the commands)",
                                ecs__console_name_text(shown, (const char *)c->http.p, c->http.len));
        return;
    }
    if (!ecs__console_http_args(c, query, qn, msg, sizeof msg)) {
        ecs__console_http_error(c, k, r, 400, "%s: %s", cmd->name, msg);
        return;
    }
    if (c->line.oom || ecs_json_parse(&c->args_doc, (const char *)c->line.p, c->line.len, &perr) != ECS_OK) {
        ecs__console_http_error(c, k, r, c->line.oom ? 500 : 400, "%s: the arguments are not JSON (%s)", cmd->name,
                                c->line.oom ? "out of memory" : perr.message);
        return;
    }
    if (c->on_request && !k->local && (passed = ecs__console_http_pass(c, cmd)) != 1) {
        if (passed < 0)
            ecs__console_http_error(c, k, r, 413,
                                    "%s: the framed request it equals (for desc.on_request) is %lu bytes, over the "
                                    "message limit of %lu bytes (ecs_console_desc.max_message): not run",
                                    cmd->name, (unsigned long)(c->http.len - 8u), (unsigned long)c->max_message);
        else
            ecs__console_http_error(c, k, r, 500, "%s: out of memory passing the request on (desc.on_request): not run",
                                    cmd->name);
        return;
    }
    if ((res = ecs__console_run(c, cmd, &c->args_doc, ecs_json_root(&c->args_doc), NULL, 0, &call, msg, sizeof msg)) != ECS_OK) {
        ecs__console_http_error(c, k, r, ecs__console_http_status(res), "%s", msg);
        return;
    }
    if (call.has_payload) {
        ecs__console_http_error(c, k, r, 400, "%s answers with a binary payload: use the framed protocol", call.name);
        return;
    }
    if (c->result.len > c->max_message) {
        ecs__console_http_error(c, k, r, 500, "%s: the result of %lu bytes is over the message limit of %lu bytes",
                                call.name, (unsigned long)c->result.len, (unsigned long)c->max_message);
        return;
    }
    ecs__console_http_respond(c, k, r, 200, "application/json", c->result.p, c->result.len);
}

/* GET / without a page of the engine's (desc.page). */
static const char ecs__console_no_page[] =
    "<!doctype html><meta charset=\"utf-8\"><title>ecs_console</title><p>This is the port of an ecs_console.h console. "
    "GET /api/help lists its commands (GET /api/NAME?ARG=JSON runs one). The engine gave no inspector page "
    "(ecs_console_desc.page); open examples/inspector.html?port=PORT from disk instead.</p>\n";

/* Answers the HTTP request at the front of k's input: 1 when it answered
   one, 0 while its head has not all arrived. */
static int ecs__console_http_one(ecs_console *c, ecs__console_conn *k)
{
    const char *p = (const char *)ecs__console_input(k), *why = "";
    size_t n = k->in.len - k->in_start, head = ecs__console_http_head((const unsigned char *)p, n), path;
    ecs__console_http_req r;
    if (head == 0 && n < ECS_CONSOLE_HTTP_MAX_HEAD) return 0;
    if (head == 0) {
        ecs__console_http_error(c, k, NULL, 413, "the request line and headers are over %u bytes", (unsigned)ECS_CONSOLE_HTTP_MAX_HEAD);
        return 1;
    }
    k->in_start += head; /* p stays valid: nothing moves the input while it is answered */
    if (!ecs__console_http_parse(c, p, head, &r, &why)) {
        ecs__console_http_error(c, k, NULL, 400, "%s", why);
    } else if (!r.is_get) {
        ecs__console_http_error(c, k, &r, 405, "only GET is answered on this port (ecs_console.h)");
    } else if (r.body) {
        ecs__console_http_error(c, k, NULL, 400, "a GET request with a body (Content-Length or Transfer-Encoding)");
    } else {
        for (path = 0; path < r.target_n && r.target[path] != '?'; ++path) continue;
        if (!r.host_ok)
            ecs__console_http_error(c, k, &r, 403, "the Host header names another machine (DNS rebinding?)");
        else if ((path == 1 && r.target[0] == '/') || (path == 11 && memcmp(r.target, "/index.html", 11) == 0))
            ecs__console_http_respond(c, k, &r, 200, "text/html; charset=utf-8", c->page ? c->page : ecs__console_no_page,
                                      c->page ? c->page_size : sizeof ecs__console_no_page - 1u);
        else if (path < 5 || memcmp(r.target, "/api/", 5) != 0)
            ecs__console_http_error(c, k, &r, 404, "nothing at '%.*s' (GET / is the inspector, GET /api/NAME?ARG=JSON runs a command)",
                                    (int)(path < 100 ? path : 100), r.target);
        else if (r.foreign)
            ecs__console_http_error(c, k, &r, 403, "a request from another site's page (Origin or Sec-Fetch-Site): refused");
        else
            ecs__console_http_api(c, k, &r, r.target + 5, path - 5, r.target + path + (path < r.target_n),
                                  r.target_n - path - (path < r.target_n));
    }
    return 1;
}

/* A client over max_clients in a refusing slot, answered by its first
   bytes: HTTP gets 503, the framed protocol (or nothing within
   ECS__CONSOLE_REFUSE_POLLS polls) the framed error reply; then it closes.
   1 when it was answered. */
static int ecs__console_refusal(ecs_console *c, ecs__console_conn *k)
{
    unsigned char msg[208];
    size_t n;
    int got = ecs__console_detect(ecs__console_input(k), k->in.len - k->in_start);
    if (k->state != ECS__CONSOLE_DETECT) return 0;
    if (got == ECS__CONSOLE_PROTO_MORE && k->refusing <= ECS__CONSOLE_REFUSE_POLLS && !k->peer_closed) return 0;
    if (got == ECS__CONSOLE_PROTO_HTTP) {
        ecs__console_http_error(c, k, NULL, 503, "too many connections (%u, ecs_console_desc.max_clients): try again later",
                                (unsigned)c->max_clients);
        return 1;
    }
    if ((n = ecs__console_refusal_message(c, msg)) != 0) {
        if (ecs__console_pending(k) == 0) k->last_progress = c->now;
        ecs__console_put(&k->out, msg, n);
    }
    ecs__console_close_later(k, NULL);
    return 1;
}

/* Answers k's next complete request (framed or HTTP); 1 when it answered
   (or refused) one. */
static int ecs__console_request(ecs_console *c, ecs__console_conn *k)
{
    const unsigned char *p = ecs__console_input(k);
    size_t n = k->in.len - k->in_start, want;
    ecs__console_frame f;
    ecs__console_id none = {0, 0};
    char why[200];
    int got;
    if (k->state == ECS__CONSOLE_DETECT) {
        got = ecs__console_detect(p, n);
        if (got == ECS__CONSOLE_PROTO_MORE) return 0;
        k->state = got == ECS__CONSOLE_PROTO_HTTP ? ECS__CONSOLE_HTTP : ECS__CONSOLE_FRAMED;
    }
    if (k->state != ECS__CONSOLE_FRAMED && k->state != ECS__CONSOLE_HTTP) return 0;
    if (!k->local && ecs__console_pending(k) >= c->max_pending) return 0; /* a feed answers all: its caller takes after */
    if (k->state == ECS__CONSOLE_HTTP) {
        if (!ecs__console_http_one(c, k)) return 0;
    } else if ((got = ecs__console_frame_parse(p, n, c->max_message, &f, &want, why, sizeof why)) == ECS__CONSOLE_MORE) {
        return 0;
    } else if (got == ECS__CONSOLE_BAD) {
        ecs__console_reply_error(c, k, &none, "%s", why);
        ecs__console_close_later(k, &c->stats.closed_bad_input);
    } else {
        if (c->on_request && !k->local) c->on_request(c->request_user, p, f.size);
        ecs__console_answer(c, k, &f);
        if (k->state == ECS__CONSOLE_FRAMED) k->in_start += f.size;
    }
    return 1;
}

/* Answers k's next request, or refuses k (over max_clients); 1 when it did. */
static int ecs__console_handle_one(ecs_console *c, ecs__console_conn *k)
{
    size_t before = k->out.len;
    int answered = k->refusing ? ecs__console_refusal(c, k) : ecs__console_request(c, k);
    if (answered && k->out.oom) { /* nothing half-written goes out: the stream ends at a message */
        k->out.len = before;
        k->out.oom = 0;
        ecs__console_close_later(k, &c->stats.closed_memory);
    }
    return answered;
}

/* Sends what k has pending, as far as the socket takes it. */
static void ecs__console_send_pending(ecs_console *c, ecs__console_conn *k)
{
    if (k->local || k->state == ECS__CONSOLE_FREE) return;
    while (k->out_start < k->out.len) {
        long sent = ecs__console_send(k->sock, k->out.p + k->out_start, k->out.len - k->out_start);
        if (sent == ECS__CONSOLE_IO_AGAIN) break;
        if (sent < 0) {
            ecs__console_drop(c, k, &c->stats.closed_by_peer);
            return;
        }
        k->out_start += (size_t)sent;
        k->last_progress = c->now;
        c->stats.bytes_out += (uint64_t)sent;
    }
    if (k->out_start == k->out.len) {
        k->out_start = k->out.len = 0;
    } else if (k->out_start > ECS__CONSOLE_KEEP_BYTES && k->out_start > k->out.len / 2u) {
        memmove(k->out.p, k->out.p + k->out_start, k->out.len - k->out_start);
        k->out.len -= k->out_start;
        k->out_start = 0;
    }
}

/* After a poll's work: closes, drains, and the timeouts. */
static void ecs__console_settle(ecs_console *c, ecs__console_conn *k)
{
    const ecs_console_timeouts *t = &c->timeouts;
    uint64_t quiet = c->now - (k->last_in > k->last_progress ? k->last_in : k->last_progress);
    size_t pending = ecs__console_pending(k);
    if (k->discard) {
        ecs__console_drop(c, k, NULL);
        return;
    }
    if (k->state == ECS__CONSOLE_CLOSING && pending == 0) {
        ecs__console_shutdown_send(k->sock);
        k->state = ECS__CONSOLE_DRAINING;
        k->closing_since = c->now;
    }
    if (k->refusing && k->state == ECS__CONSOLE_DETECT) ++k->refusing; /* polls its first bytes were awaited */
    if (ecs__console_reading(k) && k->peer_closed && pending == 0 && !ecs__console_ready(c, k)) {
        ecs__console_drop(c, k, &c->stats.closed_by_peer); /* what is left is half a message */
        return;
    }
    if (t->disabled) return;
    if (ecs__console_reading(k) && pending == 0 && t->idle_ms != ECS_CONSOLE_NEVER && quiet >= t->idle_ms)
        ecs__console_drop(c, k, &c->stats.closed_timeout);
    else if (pending > 0 && t->stalled_ms != ECS_CONSOLE_NEVER && c->now - k->last_progress >= t->stalled_ms)
        ecs__console_drop(c, k, &c->stats.closed_timeout);
    else if (k->state == ECS__CONSOLE_DRAINING && t->linger_ms != ECS_CONSOLE_NEVER &&
             c->now - k->closing_since >= t->linger_ms)
        ecs__console_drop(c, k, NULL);
}

/* A poll's work on the open connections: read, answer within the budget,
   send, settle. The number of requests handled. */
static uint32_t ecs__console_serve(ecs_console *c)
{
    uint32_t handled = 0, i, n = c->num_socks, any;
    for (i = 0; i < n; ++i) {
        ecs__console_send_pending(c, &c->conns[i]);
        if (c->conns[i].state != ECS__CONSOLE_FREE) ecs__console_read(c, &c->conns[i]);
    }
    do { /* rounds of one request per connection, while the budget lasts */
        any = 0;
        for (i = 0; i < n && handled < c->requests_per_poll; ++i) {
            ecs__console_conn *k = &c->conns[(c->next_conn + i) % n];
            if (k->state != ECS__CONSOLE_FREE && ecs__console_handle_one(c, k)) {
                ++handled;
                any = 1;
            }
        }
    } while (any && handled < c->requests_per_poll);
    c->next_conn = (c->next_conn + 1u) % n;
    for (i = 0; i < n; ++i) {
        ecs__console_send_pending(c, &c->conns[i]);
        if (c->conns[i].state != ECS__CONSOLE_FREE) ecs__console_settle(c, &c->conns[i]);
    }
    return handled;
}

ECS_DEF uint32_t ecs_console_poll(ecs_console *c)
{
    uint32_t handled = 0;
    if (!c || c->busy) return 0;
    c->busy = 1;
    ecs__console_accept(c);
    c->waited = 0;
    if (c->num_open) { /* idle: no clock read, no connection's memory touched */
        c->now = c->clock(c->clock_user);
        handled = ecs__console_serve(c);
    }
    c->busy = 0;
    return handled;
}

/* Whether a wait asks for k's input: open, its peer not gone, and its
   unsent output under max_pending (over it, its requests wait, so unread
   bytes would wake every wait at once). */
static int ecs__console_takes_input(const ecs_console *c, const ecs__console_conn *k)
{
    return k->state != ECS__CONSOLE_CLOSING && !k->peer_closed && ecs__console_pending(k) < c->max_pending;
}

/* Blocks until the listener or a reading connection has input, or a
   connection with pending output can send (only that when reading is 0),
   or max_ms passed. 1 when something is ready. A connection whose output
   is at max_pending is not asked for input: its requests wait for the
   output to drain, and its unread bytes would wake every wait at once. */
static int ecs__console_block(ecs_console *c, uint32_t max_ms, int reading)
{
    uint32_t i;
    int timeout = max_ms > 0x7FFFFFFFu ? 0x7FFFFFFF : (int)max_ms;
#ifdef _WIN32
    fd_set rd, wr;
    struct timeval tv;
    int any = 0;
    FD_ZERO(&rd);
    FD_ZERO(&wr);
    if (reading && c->listener != ECS__CONSOLE_NO_SOCK) {
        FD_SET(c->listener, &rd);
        any = 1;
    }
    for (i = 0; i < c->num_socks; ++i) {
        const ecs__console_conn *k = &c->conns[i];
        if (k->state == ECS__CONSOLE_FREE) continue;
        if (reading && ecs__console_takes_input(c, k)) {
            FD_SET(k->sock, &rd);
            any = 1;
        }
        if (ecs__console_pending(k)) {
            FD_SET(k->sock, &wr);
            any = 1;
        }
    }
    if (!any) {
        Sleep((DWORD)timeout);
        return 0;
    }
    tv.tv_sec = timeout / 1000;
    tv.tv_usec = (timeout % 1000) * 1000;
    any = select(0, &rd, &wr, NULL, &tv);
    if (reading) { /* the next poll accepts only when the listener had a client */
        c->waited = 1;
        c->listener_ready = any < 0 || (c->listener != ECS__CONSOLE_NO_SOCK && FD_ISSET(c->listener, &rd));
    }
    return any > 0;
#else
    nfds_t n = 0;
    if (reading && c->listener != ECS__CONSOLE_NO_SOCK) {
        c->fds[n].fd = c->listener;
        c->fds[n++].events = POLLIN;
    }
    for (i = 0; i < c->num_socks; ++i) {
        const ecs__console_conn *k = &c->conns[i];
        short events = 0;
        if (k->state == ECS__CONSOLE_FREE) continue;
        if (reading && ecs__console_takes_input(c, k)) events |= POLLIN;
        if (ecs__console_pending(k)) events |= POLLOUT;
        if (!events) continue;
        c->fds[n].fd = k->sock;
        c->fds[n++].events = events;
    }
    for (i = 0; i < (uint32_t)n; ++i) c->fds[i].revents = 0;
    i = (uint32_t)poll(c->fds, n, timeout);
    if (reading) { /* the next poll accepts only when the listener had a client */
        c->waited = 1;
        c->listener_ready = (int)i < 0 || (c->listener != ECS__CONSOLE_NO_SOCK && c->fds[0].revents != 0);
    }
    return (int)i > 0;
#endif
}

ECS_DEF int ecs_console_wait(ecs_console *c, uint32_t max_ms)
{
    uint32_t i;
    if (!c || c->busy) return 0;
    for (i = 0; i < c->num_socks; ++i)
        if (c->conns[i].state != ECS__CONSOLE_FREE && ecs__console_ready(c, &c->conns[i])) return 1;
    return ecs__console_block(c, max_ms, 1);
}

ECS_DEF ecs_result ecs_console_flush(ecs_console *c, uint32_t max_ms)
{
    uint64_t start, now;
    uint32_t i;
    size_t pending;
    if (!c || c->busy) return ECS_OK;
    start = c->clock(c->clock_user);
    for (;;) {
        c->now = now = c->clock(c->clock_user);
        for (i = 0, pending = 0; i < c->num_socks; ++i) {
            ecs__console_send_pending(c, &c->conns[i]);
            if (c->conns[i].state != ECS__CONSOLE_FREE) pending += ecs__console_pending(&c->conns[i]);
        }
        if (pending == 0) return ECS_OK;
        if (now - start >= max_ms) return ECS_ERROR_IO;
        ecs__console_block(c, (uint32_t)(max_ms - (now - start)), 0);
    }
}

ECS_DEF int ecs_console_feed(ecs_console *c, const void *bytes, size_t n)
{
    ecs__console_conn *k;
    int open;
    if (!c || c->busy) return 0;
    c->busy = 1;
    k = &c->conns[c->num_socks];
    c->now = c->clock(c->clock_user);
    if (k->out_start == k->out.len) k->out_start = k->out.len = 0; /* the last output was taken */
    if (k->state == ECS__CONSOLE_FREE) ecs__console_open(c, k, ECS__CONSOLE_NO_SOCK);
    ecs__console_compact_input(k);
    if (ecs__console_reading(k)) {
        ecs__console_put(&k->in, bytes, n);
        if (k->in.oom) ecs__console_close_later(k, &c->stats.closed_memory);
        c->stats.bytes_in += n;
    }
    while (ecs__console_handle_one(c, k)) continue;
    open = !(k->discard || k->state == ECS__CONSOLE_CLOSING);
    if (!open) ecs__console_drop(c, k, NULL);
    c->busy = 0;
    return open;
}

ECS_DEF const unsigned char *ecs_console_feed_output(ecs_console *c, size_t *size)
{
    static const unsigned char nothing[1] = {0};
    ecs__console_conn *k;
    const unsigned char *p;
    *size = 0;
    if (!c) return nothing;
    k = &c->conns[c->num_socks];
    *size = ecs__console_pending(k);
    p = *size ? k->out.p + k->out_start : nothing;
    k->out_start = k->out.len;
    return p;
}

/* ---- log lines ------------------------------------------------------------------------ */

ECS_DEF void ecs_console_log(ecs_console *c, ecs_console_level level, const char *format, ...)
{
    static const char *const names[] = {"info", "warning", "error"};
    static const unsigned char zeros[8] = {0};
    char text[4001];
    va_list ap;
    size_t start, size, head;
    uint32_t i;
    if (!c || !format) return;
    va_start(ap, format);
    vsnprintf(text, sizeof text, format, ap);
    va_end(ap);
    c->log.len = 0;
    c->log.oom = 0;
    ecs__console_put(&c->log, zeros, 8);
    ecs__console_printf(&c->log, "{\"type\": \"log\", \"level\": \"%s\", \"message\": ", names[(unsigned)level <= 2u ? level : 2]);
    if (c->log.oom) return;
    head = c->log.len - 8u; /* the message gets what max_message leaves after it and the closing brace */
    ecs__console_put_string_max(&c->log, text, strlen(text), c->max_message - head - 1u);
    ecs__console_puts(&c->log, "}");
    if (c->log.oom) return;
    ecs__console_set_u32be(c->log.p + 4, (uint32_t)(c->log.len - 8u));
    for (i = 0; i < c->num_conns; ++i) {
        ecs__console_conn *k = &c->conns[i];
        if (k->state != ECS__CONSOLE_FRAMED) continue;
        size = ecs__console_pending(k);
        if (size > 0 && size + c->log.len > c->max_pending) { /* back-pressure: it does not read */
            ecs__console_close_later(k, &c->stats.closed_pending);
            k->discard = 1;
            continue;
        }
        if (k->local && size == 0) k->out_start = k->out.len = 0; /* all taken: the buffer starts over */
        start = k->out.len;
        if (size == 0) k->last_progress = c->now;
        ecs__console_put(&k->out, c->log.p, c->log.len);
        if (k->out.oom) {
            k->out.len = start;
            k->out.oom = 0;
            ecs__console_close_later(k, &c->stats.closed_memory);
        }
    }
}

ECS_DEF int ecs_console_port(const ecs_console *c) { return c && c->listener != ECS__CONSOLE_NO_SOCK ? c->port : -1; }
ECS_DEF void ecs_console_set_frame(ecs_console *c, uint64_t frame)
{
    if (c) c->frame = frame;
}
ECS_DEF void ecs_console_get_stats(const ecs_console *c, ecs_console_stats *out)
{
    if (c && out) *out = c->stats;
}

/* Every timeout resolved: 0 takes the default, disabled stays as given. */
static ecs_console_timeouts ecs__console_resolve_timeouts(const ecs_console_timeouts *t)
{
    ecs_console_timeouts r;
    memset(&r, 0, sizeof r);
    if (t) r = *t;
    if (r.idle_ms == 0) r.idle_ms = 600000u;
    if (r.stalled_ms == 0) r.stalled_ms = 10000u;
    if (r.linger_ms == 0) r.linger_ms = 2000u;
    return r;
}
ECS_DEF void ecs_console_set_timeouts(ecs_console *c, const ecs_console_timeouts *t)
{
    uint32_t k;
    if (!c) return;
    c->timeouts = ecs__console_resolve_timeouts(t);
    c->now = c->clock(c->clock_user);
    for (k = 0; k < c->num_conns; ++k) /* they count from now: a debugging session's hour closes nobody */
        c->conns[k].last_in = c->conns[k].last_progress = c->conns[k].closing_since = c->now;
}

/* ---- the world commands ---------------------------------------------------------------- */

static ecs_instance ecs__console_lookup(const ecs_world_component *wc, ecs_entity e)
{
    return wc->manager ? ecs_manager_lookup(wc->manager, e) : wc->iface->lookup(wc->store, e);
}
static const char *ecs__console_store_kind(const ecs_world_component *wc)
{
    if (!wc->manager) return "store";
    return wc->manager->lookup == ECS_LOOKUP_DIRECT ? "direct" : wc->manager->lookup == ECS_LOOKUP_DENSE ? "dense" : "hash";
}
static uint32_t ecs__console_store_count(const ecs_world_component *wc)
{
    return wc->manager ? wc->manager->num_instances : wc->iface->count(wc->store);
}

/* The world component a name argument names; ECS_WORLD_NO_COMPONENT after
   failing the call with the names there are. */
static uint32_t ecs__console_component_named(ecs_console_call *call, const char *arg, const char *name)
{
    const ecs_world *w = call->console->world;
    char known[300];
    size_t used = 0;
    uint32_t k = ecs_world_find(w, name);
    if (k != ECS_WORLD_NO_COMPONENT) return k;
    known[0] = 0;
    for (k = 0; k < w->num_components && used + 1u < sizeof known; ++k)
        used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", k ? ", " : "", w->component[k].name);
    ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "argument '%s': the world has no component '%.64s' (it has: %s)", arg, name,
                     w->num_components ? known : "none");
    return ECS_WORLD_NO_COMPONENT;
}

/* Reads an argument that is an array of component names into out (at most
   cap, NULL-terminated) and idx (their indices, may be NULL). Missing: 0
   names when optional. */
static ecs_result ecs__console_names(ecs_console_call *call, const char *arg, int required, const char **out,
                                     uint32_t *idx, uint32_t cap, uint32_t *n)
{
    const ecs_json_value *v = ecs_console_arg(call, arg), *e;
    *n = 0;
    out[0] = NULL;
    if (!v) return required ? ecs__console_missing(call, arg, "an array of component names") : ECS_OK;
    if (v->type != ECS_JSON_ARRAY || v->count > cap || (required && v->count == 0))
        return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "argument '%s': expected an array of %s%u component names",
                                arg, required ? "1.." : "0..", (unsigned)cap);
    for (e = ecs_json_first(call->doc, v); e; e = ecs_json_next(call->doc, e)) {
        uint32_t k;
        if (e->type != ECS_JSON_STRING)
            return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "argument '%s'[%u]: expected a component name, found %s",
                                    arg, (unsigned)*n, ecs__console_type_name(e));
        if (memchr(ecs_json_string(call->doc, e), 0, e->count))
            return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "argument '%s'[%u]: holds a NUL byte", arg, (unsigned)*n);
        if ((k = ecs__console_component_named(call, arg, ecs_json_string(call->doc, e))) == ECS_WORLD_NO_COMPONENT)
            return ECS_ERROR_NOT_FOUND;
        if (idx) idx[*n] = k;
        out[(*n)++] = ecs_json_string(call->doc, e);
        out[*n] = NULL;
    }
    return ECS_OK;
}

static ecs_result ecs__console_cmd_help(void *user, ecs_console_call *call)
{
    ecs_console *c = (ecs_console *)user;
    uint32_t k, n = 0, j;
    size_t at, start, len;
    for (k = 0; k < c->max_commands; ++k) { /* by name: an insertion sort of at most max_commands */
        if (!c->cmds[k].used) continue;
        for (j = n++; j > 0 && strcmp(c->cmds[c->order[j - 1]].name, c->cmds[k].name) > 0; --j) c->order[j] = c->order[j - 1];
        c->order[j] = k;
    }
    ecs__console_text(call, "[");
    for (j = 0; j < n; ++j) {
        const ecs__console_cmd *cmd = &c->cmds[c->order[j]];
        ecs_console_result_printf(call, "%s{\"name\": \"%s\", \"help\": ", j ? ",\n " : "", cmd->name);
        ecs_console_result_string(call, cmd->help, strlen(cmd->help));
        ecs__console_text(call, ", \"args\": [");
        for (at = 0, k = 0; ecs__console_word(cmd->args, strlen(cmd->args), &at, &start, &len); ++k) {
            if (k) ecs__console_text(call, ", ");
            ecs_console_result_string(call, cmd->args + start, len);
        }
        ecs__console_text(call, "]}");
    }
    return ecs__console_text(call, "]");
}

static ecs_result ecs__console_cmd_stats(void *user, ecs_console_call *call)
{
    const ecs_world *w = ((ecs_console *)user)->world;
    uint32_t k;
    ecs_console_result_printf(call, "{\"entities\": %lu, \"max_index\": %lu, \"frame\": %llu, \"stores\": [",
                              (unsigned long)ecs_entity_count(&w->entities), (unsigned long)w->entities.max_index,
                              (unsigned long long)((ecs_console *)user)->frame);
    for (k = 0; k < w->num_components; ++k) {
        const ecs_world_component *wc = &w->component[k];
        ecs__console_text(call, k ? ", {\"name\": " : "{\"name\": ");
        ecs_console_result_string(call, wc->name, strlen(wc->name));
        ecs_console_result_printf(call, ", \"kind\": \"%s\", \"count\": %lu}", ecs__console_store_kind(wc),
                                  (unsigned long)ecs__console_store_count(wc));
    }
    return ecs__console_text(call, "]}");
}

/* One manager's fields for world.components. */
static void ecs__console_fields(ecs_console_call *call, const ecs_manager *m)
{
    uint32_t f;
    ecs__console_text(call, "[");
    for (f = 0; m && f < m->num_fields; ++f) {
        const char *name = m->fields[f].name ? m->fields[f].name : "";
        const ecs_schema_field *sf = m->schema && f < m->schema->num_fields ? &m->schema->fields[f] : NULL;
        ecs__console_text(call, f ? ", {\"name\": " : "{\"name\": ");
        ecs_console_result_string(call, name, strlen(name));
        ecs_console_result_printf(call, ", \"size\": %lu, \"kind\": ", (unsigned long)m->fields[f].size);
        if (sf) ecs_console_result_printf(call, "\"%s\", \"spec\": ", ecs_field_kind_name(sf->kind));
        else ecs__console_text(call, "null, \"spec\": ");
        if (sf && sf->spec) ecs_console_result_string(call, sf->spec, strlen(sf->spec));
        else ecs__console_text(call, "null");
        ecs__console_text(call, "}");
    }
    ecs__console_text(call, "]");
}

static ecs_result ecs__console_cmd_components(void *user, ecs_console_call *call)
{
    const ecs_world *w = ((ecs_console *)user)->world;
    uint32_t k;
    ecs__console_text(call, "[");
    for (k = 0; k < w->num_components; ++k) {
        const ecs_world_component *wc = &w->component[k];
        ecs__console_text(call, k ? ",\n {\"name\": " : "{\"name\": ");
        ecs_console_result_string(call, wc->name, strlen(wc->name));
        ecs_console_result_printf(call, ", \"identifier\": %lu, \"kind\": \"%s\", \"count\": %lu, \"fields\": ",
                                  (unsigned long)wc->identifier, ecs__console_store_kind(wc),
                                  (unsigned long)ecs__console_store_count(wc));
        ecs__console_fields(call, wc->manager);
        ecs__console_text(call, "}");
    }
    return ecs__console_text(call, "]");
}

static ecs_result ecs__console_cmd_entities(void *user, ecs_console_call *call)
{
    const ecs_world *w = ((ecs_console *)user)->world;
    const char *names[ECS_WORLD_MAX_TERMS + 1];
    uint32_t idx[ECS_WORLD_MAX_TERMS], n, offset, limit, i, t, total = 0, listed = 0;
    uint32_t zero = 0, hundred = 100;
    ecs_result r;
    if ((r = ecs_console_arg_u32(call, "offset", &zero, &offset)) != ECS_OK ||
        (r = ecs_console_arg_u32(call, "limit", &hundred, &limit)) != ECS_OK ||
        (r = ecs__console_names(call, "with", 0, names, idx, ECS_WORLD_MAX_TERMS, &n)) != ECS_OK)
        return r;
    ecs__console_text(call, "{\"entities\": [");
    for (i = 1; i <= w->entities.max_index; ++i) {
        ecs_entity e = ecs_entity_make(i, w->entities.generation[i]);
        if (!ecs_entity_live(&w->entities, e)) continue; /* (a queued index's byte makes the id it carries next) */
        for (t = 0; t < n && !ecs_instance_is_nil(ecs__console_lookup(&w->component[idx[t]], e)); ++t) continue;
        if (t < n || total++ < offset || listed >= limit) continue;
        ecs_console_result_printf(call, listed++ ? ", %lu" : "%lu", (unsigned long)e.id);
    }
    return ecs_console_result_printf(call, "], \"total\": %lu, \"offset\": %lu}", (unsigned long)total, (unsigned long)offset);
}

static ecs_result ecs__console_cmd_entity(void *user, ecs_console_call *call)
{
    const ecs_world *w = ((ecs_console *)user)->world;
    ecs_snapshot_output out;
    ecs_entity e;
    ecs_error err;
    ecs_result r;
    size_t n;
    if ((r = ecs_console_arg_entity(call, "entity", &e)) != ECS_OK) return r;
    if ((r = ecs_world_entity_json(w, e, &out, &err)) != ECS_OK) return ecs_console_fail(call, r, "%s", err.message);
    for (n = out.size; n > 0 && (((const char *)out.data)[n - 1] == '\n' || ((const char *)out.data)[n - 1] == ' '); --n)
        continue;
    r = ecs_console_result_json(call, (const char *)out.data, n);
    ecs_snapshot_output_free(&out);
    return r;
}

/* Whether match k has one of the optional terms (`any`), when there are any. */
static int ecs__console_query_has(const ecs_world_chunk *ch, uint32_t k, uint32_t terms, uint32_t required)
{
    uint32_t t;
    if (terms == required) return 1;
    for (t = required; t < terms; ++t)
        if (ecs_world_chunk_instance(ch, t, k) != ECS_INSTANCE_NIL) return 1;
    return 0;
}

static void ecs__console_query_write(ecs_console_call *call, const ecs_world_chunk *ch, uint32_t k, const char **names,
                                     uint32_t terms)
{
    uint32_t t;
    ecs_console_result_printf(call, "{\"entity\": %lu", (unsigned long)ch->entity[k].id);
    for (t = 0; t < terms; ++t) {
        uint32_t i = ecs_world_chunk_instance(ch, t, k);
        ecs__console_text(call, ", ");
        ecs_console_result_string(call, names[t], strlen(names[t]));
        if (i == ECS_INSTANCE_NIL) ecs__console_text(call, ": null");
        else ecs_console_result_printf(call, ": %lu", (unsigned long)i);
    }
    ecs__console_text(call, "}");
}

static ecs_result ecs__console_cmd_query(void *user, ecs_console_call *call)
{
    ecs_console *c = (ecs_console *)user;
    ecs_world_query_desc desc;
    ecs_world_query q;
    ecs_world_chunk ch;
    const char *names[ECS_WORLD_MAX_TERMS + 1];
    uint32_t nall, nany, limit, hundred = 100, total = 0, listed = 0, t, k;
    ecs_error err;
    ecs_result r;
    memset(&desc, 0, sizeof desc);
    if ((r = ecs__console_names(call, "all", 1, desc.required, NULL, ECS_WORLD_MAX_TERMS, &nall)) != ECS_OK ||
        (r = ecs__console_names(call, "any", 0, desc.optional, NULL, ECS_WORLD_MAX_TERMS - nall, &nany)) != ECS_OK ||
        (r = ecs_console_arg_u32(call, "limit", &hundred, &limit)) != ECS_OK)
        return r;
    for (t = 0; t < nall; ++t) names[t] = desc.required[t];
    for (t = 0; t < nany; ++t) names[nall + t] = desc.optional[t];
    if ((r = ecs_world_query_make(c->world, &desc, &q, &err)) != ECS_OK) return ecs_console_fail(call, r, "%s", err.message);
    if ((r = ecs_world_cursor_start(&c->cursor, &q, 0, ecs_world_query_span(&q))) != ECS_OK)
        return ecs_console_fail(call, r, "%s", c->world->error.message);
    ecs__console_text(call, "{\"matches\": [");
    while (ecs_world_cursor_next(&c->cursor, &ch))
        for (k = 0; k < ch.count; ++k) {
            if (!ecs_entity_alive(&c->world->entities, ch.entity[k])) continue; /* destroyed, not collected yet */
            if (!ecs__console_query_has(&ch, k, nall + nany, nall)) continue;
            ++total;
            if (listed >= limit) continue;
            if (listed++) ecs__console_text(call, ",\n ");
            ecs__console_query_write(call, &ch, k, names, nall + nany);
        }
    return ecs_console_result_printf(call, "], \"total\": %lu}", (unsigned long)total);
}

/* The field of manager m called name: its index, or num_fields. */
static uint32_t ecs__console_field_named(const ecs_manager *m, const char *name)
{
    uint32_t f;
    for (f = 0; f < m->num_fields; ++f)
        if (m->fields[f].name && strcmp(m->fields[f].name, name) == 0) break;
    return f;
}

/* world.set's target: the manager, the field (index in the manager and in
   its schema) and the instance. ECS_OK or the call failed. */
static ecs_result ecs__console_set_target(ecs_console_call *call, ecs_entity e, const char *component, const char *field,
                                          uint32_t nth, ecs_manager **m, uint32_t *f, uint32_t *sf, ecs_instance *i)
{
    const ecs_world *w = call->console->world;
    uint32_t k = ecs__console_component_named(call, "component", component), j;
    char list[300];
    size_t used = 0;
    if (k == ECS_WORLD_NO_COMPONENT) return ECS_ERROR_NOT_FOUND;
    *m = w->component[k].manager;
    if (!*m || !(*m)->schema)
        return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT,
                                "component '%.64s' has no schema (%s): world.set changes fields of schema managers", component,
                                *m ? "a manager without ecs_manager_set_schema" : "a store behind an ecs_store_interface");
    *f = ecs__console_field_named(*m, field);
    for (*sf = 0; *sf < (*m)->schema->num_fields && strcmp((*m)->schema->fields[*sf].name, field) != 0; ++*sf) continue;
    if (*f == (*m)->num_fields || *sf == (*m)->schema->num_fields) {
        list[0] = 0;
        for (j = 0; j < (*m)->schema->num_fields && used + 1u < sizeof list; ++j)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", j ? ", " : "", (*m)->schema->fields[j].name);
        return ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "component '%.64s' has no field '%.64s' (fields: %s)", component,
                                field, list);
    }
    for (*i = ecs_manager_lookup(*m, e), j = 0; j < nth && !ecs_instance_is_nil(*i); ++j) *i = ecs_manager_next(*m, *i);
    if (ecs_instance_is_nil(*i))
        return ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "entity %lu has %s instance of '%.64s'%s", (unsigned long)e.id,
                                j == 0 ? "no" : "no such", component, j == 0 ? "" : " (argument 'instance' is past its last)");
    return ECS_OK;
}

static ecs_result ecs__console_cmd_set(void *user, ecs_console_call *call)
{
    const char *component, *field;
    const ecs_json_value *value = ecs_console_arg(call, "value");
    uint32_t nth, zero = 0, f = 0, sf = 0;
    unsigned char bytes[64];
    ecs_manager *m = NULL;
    ecs_instance i = {ECS_INSTANCE_NIL};
    ecs_entity e;
    ecs_error err;
    ecs_result r;
    (void)user;
    if ((r = ecs_console_arg_entity(call, "entity", &e)) != ECS_OK ||
        (r = ecs_console_arg_string(call, "component", NULL, &component)) != ECS_OK ||
        (r = ecs_console_arg_string(call, "field", NULL, &field)) != ECS_OK ||
        (r = ecs_console_arg_u32(call, "instance", &zero, &nth)) != ECS_OK)
        return r;
    if (!value) return ecs__console_missing(call, "value", "a value of the field's kind");
    if ((r = ecs__console_set_target(call, e, component, field, nth, &m, &f, &sf, &i)) != ECS_OK) return r;
    if (m->fields[f].size != ecs_field_kind_size(m->schema->fields[sf].kind) || m->fields[f].size > sizeof bytes)
        return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "field '%.64s' of '%.64s' is not laid out as its kind", field,
                                component);
    if ((r = ecs_schema_value_read(&m->schema->fields[sf], call->doc, value, bytes, &err)) != ECS_OK)
        return ecs_console_fail(call, r, "argument 'value': %s", err.message);
    memcpy(ecs_manager_field(m, f, i.i), bytes, m->fields[f].size); /* nothing changed before this line */
    ecs_console_result_printf(call, "{\"entity\": %lu, \"component\": ", (unsigned long)e.id);
    ecs_console_result_string(call, component, strlen(component));
    ecs__console_text(call, ", \"field\": ");
    ecs_console_result_string(call, field, strlen(field));
    return ecs_console_result_printf(call, ", \"instance\": %lu}", (unsigned long)nth);
}

static ecs_result ecs__console_cmd_destroy(void *user, ecs_console_call *call)
{
    ecs_world *w = ((ecs_console *)user)->world;
    const char *tree;
    int has_tree = ecs_console_arg(call, "tree") != NULL; /* given, even empty: a store to name */
    ecs_entity e;
    ecs_error err;
    ecs_result r;
    if ((r = ecs_console_arg_entity(call, "entity", &e)) != ECS_OK ||
        (r = ecs_console_arg_string(call, "tree", "", &tree)) != ECS_OK)
        return r;
    if (has_tree && ecs__console_component_named(call, "tree", tree) == ECS_WORLD_NO_COMPONENT) return ECS_ERROR_NOT_FOUND;
    if (has_tree && (r = ecs_world_destroy_tree(w, tree, e, &err)) != ECS_OK)
        return ecs_console_fail(call, r, "%s", err.message);
    if (!has_tree && !ecs_world_destroy_now(w, e))
        return ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "entity %lu is not alive", (unsigned long)e.id);
    return ecs_console_result_printf(call, "{\"destroyed\": %lu}", (unsigned long)e.id);
}

/* The hierarchy store world.tree walks, in *k: the `store` argument, or
   the first store with parent_of. ECS_OK, or the call failed. */
static ecs_result ecs__console_hierarchy(ecs_console_call *call, uint32_t *k)
{
    const ecs_world *w = call->console->world;
    const ecs_store_interface *iface;
    const char *name;
    ecs_result r;
    if ((r = ecs_console_arg_string(call, "store", "", &name)) != ECS_OK) return r;
    if (name[0] && (*k = ecs__console_component_named(call, "store", name)) == ECS_WORLD_NO_COMPONENT)
        return ECS_ERROR_NOT_FOUND;
    if (!name[0])
        for (*k = 0; *k < w->num_components && !(w->component[*k].iface && w->component[*k].iface->parent_of); ++*k) continue;
    if (*k == w->num_components)
        return ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "argument 'store': the world has no hierarchy store");
    iface = w->component[*k].iface;
    if (!iface || !iface->parent_of || !iface->subtree)
        return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "argument 'store': '%.64s' is not a hierarchy (no parent_of)",
                                name);
    return ECS_OK;
}

/* world.tree: a node's children (or the roots) in a hierarchy store, a page
   at a time, each with its number of descendants; one pass over the store. */
static ecs_result ecs__console_cmd_tree(void *user, ecs_console_call *call)
{
    const ecs_world *w = ((ecs_console *)user)->world;
    const ecs_world_component *wc;
    ecs_entity node = {0}, parent = {0};
    uint32_t k = 0, i, n, offset, limit, zero = 0, hundred = 100, total = 0, listed = 0;
    ecs_result r;
    if ((r = ecs__console_hierarchy(call, &k)) != ECS_OK ||
        (r = ecs_console_arg_u32(call, "offset", &zero, &offset)) != ECS_OK ||
        (r = ecs_console_arg_u32(call, "limit", &hundred, &limit)) != ECS_OK)
        return r;
    wc = &w->component[k];
    if (ecs_console_arg(call, "entity") && ecs_console_arg(call, "entity")->type != ECS_JSON_NULL) {
        if ((r = ecs_console_arg_entity(call, "entity", &node)) != ECS_OK) return r;
        if (ecs_instance_is_nil(wc->iface->lookup(wc->store, node)))
            return ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "entity %lu has no instance of '%s'", (unsigned long)node.id,
                                    wc->name);
        parent = wc->iface->parent_of(wc->store, node);
    }
    ecs__console_text(call, "{\"store\": ");
    ecs_console_result_string(call, wc->name, strlen(wc->name));
    ecs_console_result_printf(call, node.id ? ", \"entity\": %lu, \"parent\": " : ", \"entity\": null, \"parent\": ",
                              (unsigned long)node.id);
    ecs_console_result_printf(call, parent.id ? "%lu, \"children\": [" : "null, \"children\": [", (unsigned long)parent.id);
    for (i = 0, n = wc->iface->count(wc->store); i < n; ++i) {
        ecs_entity e = wc->iface->entity_at(wc->store, i);
        if (ecs_entity_is_nil(e) || !ecs_entity_alive(&w->entities, e) || wc->iface->parent_of(wc->store, e).id != node.id)
            continue;
        if (total++ < offset || listed >= limit) continue;
        ecs_console_result_printf(call, "%s{\"entity\": %lu, \"descendants\": %lu}", listed++ ? ", " : "",
                                  (unsigned long)e.id, (unsigned long)(wc->iface->subtree(wc->store, e, NULL, 0) - 1u));
    }
    return ecs_console_result_printf(call, "], \"total\": %lu, \"offset\": %lu}", (unsigned long)total,
                                     (unsigned long)offset);
}

static ecs_result ecs__console_cmd_hash(void *user, ecs_console_call *call)
{
    ecs_console *c = (ecs_console *)user;
    uint64_t h = ecs_snapshot_world_hash(c->world);
    if (h == 0) return ecs_console_fail(call, ECS_ERROR_OUT_OF_MEMORY, "out of memory hashing the world");
    return ecs_console_result_printf(call, "{\"hash\": \"%016llx\", \"frame\": %llu}", (unsigned long long)h,
                                     (unsigned long long)c->frame);
}

static ecs_result ecs__console_cmd_save(void *user, ecs_console_call *call)
{
    ecs_console *c = (ecs_console *)user;
    const char *names[65];
    ecs_snapshot_desc desc;
    uint32_t n;
    ecs_error err;
    ecs_result r;
    memset(&desc, 0, sizeof desc);
    if ((r = ecs__console_names(call, "stores", 0, names, NULL, 64, &n)) != ECS_OK) return r;
    desc.stores = n ? names : NULL;
    desc.flags = ECS_SNAPSHOT_REUSE_OUTPUT;
    if ((r = ecs_snapshot_save(c->world, &desc, &c->save, &err)) != ECS_OK) return ecs_console_fail(call, r, "%s", err.message);
    ecs_console_result_printf(call, "{\"bytes\": %llu, \"hash\": \"%016llx\"}", (unsigned long long)c->save.size,
                              (unsigned long long)ecs_snapshot_world_hash(c->world));
    return ecs_console_result_payload(call, c->save.data, c->save.size);
}

static ecs_result ecs__console_cmd_load(void *user, ecs_console_call *call)
{
    ecs_console *c = (ecs_console *)user;
    const ecs_json_value *strict = ecs_console_arg(call, "strict");
    ecs_snapshot_desc keep;
    ecs_snapshot_report report;
    size_t size;
    const void *blob = ecs_console_call_payload(call, &size);
    ecs_error err;
    ecs_result r;
    if (!blob)
        return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "needs a snapshot as its binary payload (a type-1 request)");
    if (strict && strict->type != ECS_JSON_TRUE && strict->type != ECS_JSON_FALSE)
        return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "argument 'strict': expected true or false, found %s",
                                ecs__console_type_name(strict));
    if ((r = ecs_snapshot_verify(blob, size, &err)) != ECS_OK)
        return ecs_console_fail(call, r, "the snapshot does not verify, nothing loaded: %s", err.message);
    memset(&keep, 0, sizeof keep);
    keep.flags = ECS_SNAPSHOT_REUSE_OUTPUT;
    if ((r = ecs_snapshot_save(c->world, &keep, &c->backup, &err)) != ECS_OK)
        return ecs_console_fail(call, r, "cannot keep a copy of the world, nothing loaded: %s", err.message);
    r = ecs_snapshot_load(c->world, blob, size, ECS_SNAPSHOT_REPLACE | (strict && strict->type == ECS_JSON_TRUE ? ECS_SNAPSHOT_STRICT : 0u),
                          &report, &err);
    if (r != ECS_OK) {
        ecs_result back = ecs_snapshot_load(c->world, c->backup.data, c->backup.size, ECS_SNAPSHOT_REPLACE, NULL, NULL);
        return ecs_console_fail(call, r, "%s (%s)", err.message,
                                back == ECS_OK ? "the world is as it was" : "the world could not be put back: it is empty");
    }
    ecs_console_result_printf(call,
                              "{\"bytes\": %llu, \"hash\": \"%016llx\", \"skipped\": %lu, \"dropped\": %lu, "
                              "\"defaulted\": %lu, \"report\": ",
                              (unsigned long long)size, (unsigned long long)ecs_snapshot_world_hash(c->world),
                              (unsigned long)report.skipped, (unsigned long)report.dropped, (unsigned long)report.defaulted);
    ecs_console_result_string(call, report.text, strlen(report.text));
    return ecs__console_text(call, "}");
}

/* help, and the world commands when there is a world. */
static ecs_result ecs__console_builtins(ecs_console *c, ecs_error *err)
{
    static const struct {
        const char *name, *help, *args;
        ecs_console_fn fn;
    } list[] = {
        {"help", "every command, its arguments and its one-line help", NULL, ecs__console_cmd_help},
        {"world.stats", "entities alive, and each store's name, kind and instance count", NULL, ecs__console_cmd_stats},
        {"world.components", "every store with its fields (kinds and specs from the schemas)", NULL,
         ecs__console_cmd_components},
        {"world.entities", "alive entities by index, a page at a time (with: only those owning every named store)",
         "offset limit with", ecs__console_cmd_entities},
        {"world.entity", "one entity's components through the schemas (ecs_world_entity_json)", "entity",
         ecs__console_cmd_entity},
        {"world.query", "the entities owning all of `all` (and, given `any`, one of those), with their instances",
         "all any limit", ecs__console_cmd_query},
        {"world.set", "sets one field of an entity's instance, checked against the schema", "entity component field value",
         ecs__console_cmd_set},
        {"world.destroy", "destroys an entity and its instances now (tree: and its subtree in that hierarchy)",
         "entity tree", ecs__console_cmd_destroy},
        {"world.tree", "a node's children in a hierarchy store (no entity: its roots), a page at a time",
         "entity store offset limit", ecs__console_cmd_tree},
        {"world.hash", "the world's hash (16 hex digits) and the frame number", NULL, ecs__console_cmd_hash},
        {"world.save", "a snapshot of the world (or of `stores`) as the reply's binary payload", "stores",
         ecs__console_cmd_save},
        {"world.load", "loads the snapshot in the request's binary payload over the world", "strict", ecs__console_cmd_load},
    };
    uint32_t k, n = c->world ? (uint32_t)(sizeof list / sizeof list[0]) : 1u;
    ecs_result r;
    for (k = 0; k < n; ++k) {
        ecs_console_command_desc d;
        d.name = list[k].name;
        d.help = list[k].help;
        d.args = list[k].args;
        d.fn = list[k].fn;
        d.user = c;
        if ((r = ecs_console_add_command(c, &d, err)) != ECS_OK) return r;
    }
    return ECS_OK;
}

/* ---- plugins: commands the registry tracks -------------------------------------------- */

#ifdef ECS_PLUGIN_H_INCLUDED
static void ecs__console_track_apply(void *context, const char *name, const void *value)
{
    ecs_console *c = (ecs_console *)context;
    ecs__console_cmd *cmd = ecs__console_find(c, name, strlen(name));
    if (!cmd) cmd = ecs__console_free_slot(c); /* add_command made sure there is one */
    if (cmd) ecs__console_fill(cmd, (const ecs_console_command_desc *)value, 1);
}
static void ecs__console_track_remove(void *context, const char *name)
{
    ecs_console *c = (ecs_console *)context;
    ecs__console_cmd *cmd = ecs__console_find(c, name, strlen(name));
    if (cmd && cmd->tracked) memset(cmd, 0, sizeof *cmd);
}
static void ecs__console_self_apply(void *context, const char *name, const void *value)
{
    (void)context;
    (void)name;
    (void)value;
}
static void ecs__console_self_remove(void *context, const char *name)
{
    (void)name;
    ((ecs_console *)context)->registry = NULL; /* the registry is being destroyed (or we unpublish) */
}

/* add_command as plugins reach it: through the registry, owned by the calling plugin. */
static ecs_result ecs__console_api_add(ecs_console *c, const ecs_console_command_desc *desc, ecs_error *err)
{
    ecs__console_cmd *cmd;
    ecs_result r = ecs__console_check_desc(c, desc, err);
    if (r != ECS_OK) return r;
    if (!c->registry) return ecs_console_add_command(c, desc, err);
    cmd = ecs__console_find(c, desc->name, strlen(desc->name));
    if (cmd && !cmd->tracked)
        return ecs_error_set(err, ECS_ERROR_ALREADY_EXISTS, "console command '%s' is already registered by the engine",
                             desc->name);
    if (!cmd && !ecs__console_free_slot(c))
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "console: no room for command '%s' (max_commands is %u)",
                             desc->name, (unsigned)c->max_commands);
    return ecs_plugin_track(c->registry, &c->tracker, desc->name, desc, sizeof *desc, err);
}
static ecs_result ecs__console_api_remove(ecs_console *c, const char *name)
{
    ecs__console_cmd *cmd = c && name ? ecs__console_find(c, name, strlen(name)) : NULL;
    if (!cmd || !cmd->tracked || !c->registry) return ECS_ERROR_NOT_FOUND;
    return ecs_plugin_untrack(c->registry, &c->tracker, name);
}

ECS_DEF ecs_result ecs_console_publish(ecs_console *c, ecs_plugin_registry *reg, ecs_error *err)
{
    ecs_console_api_v0 api;
    ecs_console *self = c;
    ecs_result r;
    if (!c || !reg) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_console_publish: NULL console or registry");
    if (c->registry) return ecs_error_set(err, ECS_ERROR_ALREADY_EXISTS, "ecs_console_publish: this console is published already");
    memset(&api, 0, sizeof api);
    api.console = c;
    api.add_command = ecs__console_api_add;
    api.remove_command = ecs__console_api_remove;
    api.log = ecs_console_log;
    api.call_name = ecs_console_call_name;
    api.call_doc = ecs_console_call_doc;
    api.arg = ecs_console_arg;
    api.arg_f64 = ecs_console_arg_f64;
    api.arg_u32 = ecs_console_arg_u32;
    api.arg_string = ecs_console_arg_string;
    api.arg_f32_array = ecs_console_arg_f32_array;
    api.arg_entity = ecs_console_arg_entity;
    api.call_payload = ecs_console_call_payload;
    api.result_json = ecs_console_result_json;
    api.result_string = ecs_console_result_string;
    api.result_printf = ecs_console_result_printf;
    api.result_payload = ecs_console_result_payload;
    api.fail = ecs_console_fail;
    api.json_member = ecs_json_member;
    api.json_first = ecs_json_first;
    api.json_next = ecs_json_next;
    api.json_string = ecs_json_string;
    c->tracker.what = "console command";
    c->tracker.context = c;
    c->tracker.apply = ecs__console_track_apply;
    c->tracker.remove = ecs__console_track_remove;
    c->self.what = "console";
    c->self.context = c;
    c->self.apply = ecs__console_self_apply;
    c->self.remove = ecs__console_self_remove;
    c->registry = reg;
    if ((r = ecs_plugin_track(reg, &c->self, "ecs_console", &self, sizeof self, err)) != ECS_OK) {
        c->registry = NULL;
        return r;
    }
    if ((r = ecs_plugin_publish(reg, ECS_API_CONSOLE, 0, &api, sizeof api, err)) != ECS_OK)
        ecs_plugin_untrack(reg, &c->self, "ecs_console");
    return r;
}
#endif

/* ---- create and destroy ------------------------------------------------------------------ */

ECS_DEF void ecs_console_destroy(ecs_console *c)
{
    uint32_t k;
    if (!c) return;
#ifdef ECS_PLUGIN_H_INCLUDED
    if (c->registry) { /* the registry lives on: take the plugins' commands and the API back out */
        ecs_plugin_registry *reg = c->registry;
        for (k = 0; k < c->max_commands && c->cmds; ++k)
            if (c->cmds[k].used && c->cmds[k].tracked) ecs_plugin_untrack(reg, &c->tracker, c->cmds[k].name);
        ecs_plugin_unpublish(reg, ECS_API_CONSOLE, 0);
        ecs_plugin_untrack(reg, &c->self, "ecs_console");
    }
#endif
    for (k = 0; k < c->num_conns && c->conns; ++k) {
        ecs__console_conn *conn = &c->conns[k];
        if (!conn->local && conn->state != ECS__CONSOLE_FREE) ecs__console_close(conn->sock);
        ECS__FREE(conn->in.p);
        ECS__FREE(conn->out.p);
    }
    if (c->listener != ECS__CONSOLE_NO_SOCK) ecs__console_close(c->listener);
    if (c->net_started) ecs__console_net_stop();
    ecs_json_doc_free(&c->doc);
    ecs_json_doc_free(&c->args_doc);
    ecs_json_doc_free(&c->check_doc);
    ECS__FREE(c->result.p);
    ECS__FREE(c->script.p);
    ECS__FREE(c->line.p);
    ECS__FREE(c->log.p);
    ECS__FREE(c->http.p);
    ECS__FREE(c->aligned);
    ecs_snapshot_output_free(&c->save);
    ecs_snapshot_output_free(&c->backup);
    ECS__FREE(c->cmds);
    ECS__FREE(c->order);
    ECS__FREE(c->conns);
#ifndef _WIN32
    ECS__FREE(c->fds);
#endif
    ECS__FREE(c);
}

/* The desc with every default filled in; 0 with err when a value is out of range. */
static int ecs__console_settings(const ecs_console_desc *desc, ecs_console_desc *d, ecs_error *err)
{
    memset(d, 0, sizeof *d);
    if (desc) *d = *desc;
    if (!d->address) d->address = "127.0.0.1";
    if (!d->max_message) d->max_message = 16u << 20;
    if (!d->max_clients) d->max_clients = 8u;
    if (!d->max_pending) d->max_pending = 2u * (size_t)d->max_message;
    if (!d->max_commands) d->max_commands = 256u;
    if (!d->requests_per_poll) d->requests_per_poll = 64u;
    if (!d->read_per_poll) d->read_per_poll = 4u << 20;
    if (!d->accept_every) d->accept_every = 16u;
    if (!d->clock) d->clock = ecs__console_default_clock;
    if (d->port < -1 || d->port > 65535 || d->max_clients > 60u || d->max_message < ECS__CONSOLE_MIN_MESSAGE ||
        d->max_commands > 65536u) {
        ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                      "ecs_console_create: port %d (-1..65535), max_clients %u (1..60), max_message %lu (%lu..), "
                      "max_commands %u (1..65536): one is out of range",
                      d->port, (unsigned)d->max_clients, (unsigned long)d->max_message,
                      (unsigned long)ECS__CONSOLE_MIN_MESSAGE, (unsigned)d->max_commands);
        return 0;
    }
    return 1;
}

/* The console's tables, all allocated here once (each zeroed as it comes:
   destroy frees what there is). */
static int ecs__console_tables(ecs_console *c)
{
    uint32_t k;
    if (!(c->cmds = (ecs__console_cmd *)ECS__REALLOC(NULL, (size_t)c->max_commands * sizeof *c->cmds))) return 0;
    memset(c->cmds, 0, (size_t)c->max_commands * sizeof *c->cmds);
    if (!(c->conns = (ecs__console_conn *)ECS__REALLOC(NULL, (size_t)c->num_conns * sizeof *c->conns))) return 0;
    memset(c->conns, 0, (size_t)c->num_conns * sizeof *c->conns);
    for (k = 0; k < c->num_conns; ++k) c->conns[k].sock = ECS__CONSOLE_NO_SOCK;
    c->conns[c->num_socks].local = 1;
    if (!(c->order = (uint32_t *)ECS__REALLOC(NULL, (size_t)c->max_commands * sizeof *c->order))) return 0;
#ifndef _WIN32
    if (!(c->fds = (struct pollfd *)ECS__REALLOC(NULL, (size_t)c->num_conns * sizeof *c->fds))) return 0;
#endif
    return 1;
}

ECS_DEF ecs_console *ecs_console_create(const ecs_console_desc *desc, ecs_error *err)
{
    ecs_console_desc d;
    ecs_console *c;
    if (!ecs__console_settings(desc, &d, err)) return NULL;
    if (!(c = (ecs_console *)ECS__REALLOC(NULL, sizeof *c))) {
        ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_console_create: out of memory");
        return NULL;
    }
    memset(c, 0, sizeof *c);
    c->listener = ECS__CONSOLE_NO_SOCK;
    c->port = -1;
    c->world = d.world;
    c->max_message = d.max_message;
    c->max_clients = d.max_clients;
    c->max_pending = d.max_pending;
    c->max_commands = d.max_commands;
    c->requests_per_poll = d.requests_per_poll;
    c->read_per_poll = d.read_per_poll;
    c->accept_every = d.accept_every;
    c->polls_unaccepted = d.accept_every - 1u; /* the first poll looks */
    c->timeouts = ecs__console_resolve_timeouts(&d.timeouts);
    c->clock = d.clock;
    c->clock_user = d.clock_user;
    c->page = d.page;
    c->page_size = d.page ? d.page_size : 0u;
    snprintf(c->address, sizeof c->address, "%s", d.address);
    c->num_socks = d.max_clients + ECS__CONSOLE_REFUSERS;
    c->num_conns = c->num_socks + 1u;
    c->on_request = d.on_request;
    c->request_user = d.request_user;
    c->now = c->clock(c->clock_user);
    if (!ecs__console_tables(c)) {
        ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_console_create: out of memory");
        ecs_console_destroy(c);
        return NULL;
    }
    if (d.port >= 0) {
        if (!(c->net_started = ecs__console_net_start())) {
            ecs_error_set(err, ECS_ERROR_IO, "ecs_console_create: the network could not be started");
            ecs_console_destroy(c);
            return NULL;
        }
        if ((c->listener = ecs__console_listen(d.address, d.port, &c->port, err)) == ECS__CONSOLE_NO_SOCK) {
            ecs_console_destroy(c);
            return NULL;
        }
    }
    if (ecs__console_builtins(c, err) != ECS_OK) {
        ecs_console_destroy(c);
        return NULL;
    }
    return c;
}

#ifdef __cplusplus
}
#endif
#endif /* ECS__CONSOLE_IMPLEMENTATION_DONE */
#endif /* ECS_CONSOLE_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
This software is available under 2 licenses -- choose whichever you prefer.
------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2026 the ecs.h authors
Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
ALTERNATIVE B - Public Domain (www.unlicense.org)
This is free and unencumbered software released into the public domain.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute this
software, either in source code form or as a compiled binary, for any purpose,
commercial or non-commercial, and by any means.
In jurisdictions that recognize copyright laws, the author or authors of this
software dedicate any and all copyright interest in the software to the public
domain. We make this dedication in perpetuation of all present and future
rights to this software under copyright law.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION
WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------
*/
