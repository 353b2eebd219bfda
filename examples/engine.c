/* examples/engine.c - a headless hobby engine in one file: how the four
   headers fit together.

   Build (from the repository root; bench/run.sh does all of this):
       cc -O2 -I. -I/usr/include/stb examples/engine.c -o build/engine -lm -ldl -lpthread
       cc -O2 -shared -fPIC -I. examples/plugins/spin.c -o build/plugins/spin.so
       cc -O2 examples/gen_level.c -o build/gen_level -lm
       mkdir -p build/levels && build/gen_level > build/levels/standard.json
       build/engine --plugins build/plugins --level build/levels/standard.json

   What it does, in order:
     1. an ecs_world holding the entities and every component store, each
        registered once by name: two transform managers as in the seeds'
        part 3 ("transform", the game world, and "inventory", the inventory
        screen; a pickaxe entity lives in both, at different places), mesh,
        actor and motion;
     2. the resource compiler and a spawner, both given the world's types in
        one call each (ecs_compiler_register_world, ecs_spawner_register_world:
        transform, mesh and actor compile; every store spawns);
     3. a plugin registry over the world, publishing entities, transforms and
        resources; the plugins in --plugins are loaded (the example's spin.so
        adds a "spin" component that levels can contain, and it joins the
        world);
     4. the level (--level) and the spin demo level are compiled and spawned,
        each in one batch;
     5. --frames frames of: simulate (a few % of the objects move: their local
        transforms are integrated and written with one set_local_many), the
        plugins' tick (spin turns its entities), churn (--spawn prefab crates
        spawned in one call, --destroy of the oldest crates destroyed), exact
        collection of the dead crates' instances in every store of the world
        in one call (ecs_world_collect); the simulation is a query over
        motion and transform; with --reload, the spin plugin is hot-reloaded
        in the middle of the run;
        with --threads N (default 1) the level spawns, the transform updates
        and the collection run on examples/jobs_pthreads.h's pool of N
        threads, with the same results bit for bit (the report's
        world_hash line is the same for every N);
     6. a report: entities alive, instances per manager (after a final full
        collection), time per frame split by system, peak memory;
     7. with --check-snapshot F: the world was saved after frame F
        (ecs_snapshot_save); it is loaded back over the live world
        (ECS_SNAPSHOT_REPLACE) with the engine's own state, the frames after
        F run again, and every frame's ecs_snapshot_world_hash must equal the
        first run's.
     8. with --console PORT (0: a free one): the development console
        (ecs_console.h) on 127.0.0.1 (--console-address for another), its
        first output line "console: listening on ADDRESS:PORT"; the world
        commands, the plugins' commands (the API is published in the
        registry) and the engine's: frame.step (frames), frame.pause,
        frame.resume, frame.stats (since), spawn (prefab, position), quit;
        http://ADDRESS:PORT/ is the inspector page (examples/inspector.html,
        embedded by tools/embed_page.py). It then runs until
        quit (or --max-seconds), --fps frames a second while not paused,
        polling the console once a frame and sleeping in ecs_console_wait.
     9. nodes (see NODES below and README's Nodes): --serve PORT (an
        authoritative node, its node port on 127.0.0.1) and --join
        HOST:PORT (a client: its world is the server's states, its
        world-changing commands go to the server as inputs); --no-timeouts;
        --log-traffic FILE and --replay FILE (the node again from its log,
        the world hash compared at every frame); --fault SPEC and
        --fault-seed N (incoming node messages dropped, held, duplicated,
        reordered); the console commands net.status, net.hash, net.timeouts,
        net.leave, net.join, net.stats. tools/scenarios/boxes.py drives
        three of them; tests/check_nodes.sh tests them.
   The report's lines start with "report:" and are key=value, for scripts
   (tests/check_engine.sh checks them; tests/check_console.sh drives the
   console with tools/ecs_console.py). */
#if !defined(_POSIX_C_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L /* clock_gettime in strict C99 */
#endif
#define ECS_IMPLEMENTATION
#define ECS_TRANSFORM_IMPLEMENTATION
#define ECS_RESOURCE_IMPLEMENTATION
#define ECS_SNAPSHOT_IMPLEMENTATION
#define ECS_PLUGIN_IMPLEMENTATION
#define ECS_CONSOLE_IMPLEMENTATION
#include "ecs.h"
#include "ecs_transform.h"
#include "ecs_resource.h"
#include "ecs_snapshot.h" /* after ecs_resource.h: --check-snapshot */
#include "ecs_plugin.h" /* in any order: with the two above it publishes their APIs */
#include "ecs_console.h" /* after ecs_plugin.h: plugins add console commands */
#include "examples/jobs_pthreads.h" /* --threads: a small pool behind ecs.h's job interface */
#include "examples/node.h" /* the nodes' framing, traffic log and fault rule */
#include "examples/inspector_html.h" /* the inspector page GET / serves (tools/embed_page.py makes it) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <stdarg.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <pthread.h>
#include <unistd.h>
#endif
#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif

/* ---- the engine's own components ------------------------------------------ */

/* mesh and actor from the standard schemas: uint64_t *mesh and uint32_t
   *flags, float *mass and *radius, the records levels compile to; the
   managers spawn them with ecs_manager_spawn */
ECS_MANAGER_DEFINE_SCHEMA(mesh_manager, ECS_RESOURCE_MESH_SCHEMA)
ECS_MANAGER_DEFINE_SCHEMA(actor_manager, ECS_RESOURCE_ACTOR_SCHEMA)

/* velocity of the objects that move (not in levels: the engine picks them) */
#define MOTION_FIELDS(X) X(ecs_vec3, velocity)
ECS_MANAGER_DEFINE(motion_manager, MOTION_FIELDS)

/* A crate with a lid, fired --spawn times a frame. */
static const char crate_prefab[] =
    "{\"entities\": [{\"name\": \"crate\", \"components\": ["
    "  {\"type\": \"transform\"}, {\"type\": \"mesh\", \"mesh\": \"models/crate\", \"flags\": 1},"
    "  {\"type\": \"actor\", \"mass\": 20, \"radius\": 0.7}],"
    " \"children\": [{\"name\": \"lid\", \"components\": ["
    "  {\"type\": \"transform\", \"position\": [0, 0.5, 0]}, {\"type\": \"mesh\", \"mesh\": \"models/crate_lid\"}]}]}]}";

typedef struct options {
    const char *level, *spin_level, *plugins;
    uint32_t frames, spawn, destroy, moving_percent, threads, check_at;
    int reload, quiet, check; /* check: --check-snapshot */
    int console_port;         /* --console PORT, -1: no console */
    const char *console_address;
    uint32_t fps, max_seconds;
    int frames_given;        /* --frames with a console or a node: stop there */
    int serve_port;          /* --serve PORT, -1: not a server */
    const char *join;        /* --join HOST:PORT */
    const char *node_name;   /* --name (a client's, in the server's notes) */
    int no_timeouts;         /* --no-timeouts */
    const char *log_traffic; /* --log-traffic FILE */
    const char *replay;      /* --replay FILE */
    const char *fault;       /* --fault drop=P,dup=P,reorder=P,delay=N */
    uint64_t fault_seed;     /* --fault-seed N */
    char join_host[64];      /* --join's parts */
    int join_port;
} options;

enum { SYS_SIMULATE, SYS_TRANSFORMS, SYS_PLUGINS, SYS_CHURN, SYS_GC, SYS_COUNT };
static const char *const system_names[SYS_COUNT] = {"simulate", "transforms", "plugins", "churn", "collect"};

/* ---- nodes (--serve, --join, --log-traffic, --replay, --fault) -------------------------

   NODES. --serve PORT makes this engine the authoritative node: it runs the
   frames, and after each one sends every joined client the world's state.
   --join HOST:PORT makes it a client: it runs no frames of its own; its
   world is the server's state of the newest frame it has applied (a client
   and the server at the same frame have the same world hash), and the
   commands that change the world (spawn, world.set, world.destroy) typed at
   its console are forwarded to the server as inputs, applied there between
   two frames, and come back to every client in the states. The node port
   is its own, not the console's: the console stays the development port
   (scripts, people, the HTTP inspector) and the node port carries the
   game's traffic, which the fault rule, the traffic log and the node
   timeouts apply to. Messages: examples/node.h.

   Quake 3's model: the server keeps a ring of the last NODE_RING states it
   numbered, each as its digests (ecs_snapshot_world_digest: the world
   hash every frame takes anyway, with each block's digest kept; a state is
   saved only when a client needs it whole); a client acknowledges each
   state it applies; the next state it gets is a delta written from the
   world (ecs_snapshot_delta_from_world: the blocks whose digests changed
   since that state travel) against the newest state it acknowledged that
   the ring still holds, or a full snapshot when there is none (a join, an
   ack too old or missing, a resync). A state not acknowledged within
   NODE_RESEND_MS is sent again (a lost state or ack costs that much).
   What a frame costs the server with clients beyond the frame alone: a
   message queued to each; the deltas are the sender thread's (SENDING,
   below), one for all the clients that acknowledged the same base (the
   common case: all caught up), costing the blocks that changed. Such a
   delta names its states by world hash: a client gives the world hash of the
   state it holds to ecs_snapshot_apply_delta_hashed and compares the world
   hash of what it loads with the one the delta names. net.stats splits
   it; tests/probe_nodes.py measures it. The client keeps the last
   NODE_RING states it applied; a delta against a base it does not hold,
   or one that does not apply (another base hash, corrupt), makes it ask
   for a full snapshot (resync). A state older than
   the client's is ignored (reordered, duplicated) and acknowledged again.
   Every state names the server's world hash after that frame: a client
   whose world hash differs after loading it reports a divergence (stderr,
   a console error line, a NOTE in its traffic log, net.status). Inputs
   carry a sequence number, are resent until a state (or a welcome) says
   the server applied them, and are applied once, in order, also across a
   leave and a join: the client names itself in each hello by a random
   token, and the server keeps the last seq applied for each token (the
   last NODE_KNOWN tokens; a forgotten one is trusted for the hello's
   "inputs": what the client knows applied). A connection that closes
   takes the messages the fault rule holds for it along.

   SENDING. A server's deltas and writes leave the frame thread: a sender
   thread (node_sender, started with the server, joined at its end) writes
   the states' deltas and every peer's queue to its socket. The frame
   thread only queues, in the order of the messages and logging each
   (NET_OUT records, with the frame they were queued in): a message's
   framing and JSON are copied, a state's payload goes once into a shared,
   reference-counted buffer that every client getting the same state
   against the same base references (the buffer of an older payload
   becomes the next one's: no fresh pages). A full snapshot is saved and
   copied there by the frame thread (joins, resyncs: rare); a delta is a
   job (node_shared_job): the sender writes it from the world
   (ecs_snapshot_delta_from_world, the two states' digests in the ring)
   into the payload's buffer, and the messages that carry it wait in their
   queues until it is done (their frame length is set then). The world
   rests meanwhile: the frame thread calls node_world_fence before
   anything that changes the world or the ring's digests (the next frame,
   a console request, a client's input, a new state, a save), which waits
   for the jobs; the frame thread sleeps between frames, so the common case
   waits for nothing (net.stats: fence_us). A job that fails (out of
   memory) leaves an empty payload: the clients find that delta corrupt
   and ask for a snapshot; the frame thread notes it at its next fence.
   With --log-traffic the frame thread waits for each delta before it
   logs the message (the log keeps whole messages, in the order sent).
   The deltas could also be written by the frame thread in its hash's
   pass over the world (ecs_snapshot_world_digest_delta: about a fifth of
   the hash more, 50 us a frame here); on another core they cost the frame
   nothing. While it has peers the sender looks at the queues
   every NODE_SENDER_TICK_MS unwoken (a wake-up cost the frame thread an
   inter-processor interrupt, 20-30 us a frame on the 2-core VM; the tick
   costs the sender's core instead, and a state waits at most that long to
   leave); with none it sleeps until woken, and the rare messages that must
   not wait (a peer closing, the end) wake it, the byte written after the
   lock is let go. On Linux the sender runs as SCHED_BATCH, so it never
   preempts the frame thread: it takes the other core, or waits for the
   frame to end (it preempted the frame's tail and doubled its wall time on
   a 2-core machine). A client whose socket is slow
   only grows its own queue (the sender waits for that socket and writes
   the others'); once over NODE_MAX_OUT bytes it is sent no new states
   until its queue drains. The sender only reports what its writes found:
   the frame thread closes a broken connection (a NOTE, as before) and a
   refused join's once its message is written; closing a peer waits until
   the sender is off its socket. A client's own sends (hello, acks,
   inputs: small) and a replay (no sockets: nothing is sent) have no
   sender thread. net.stats: send_us is the frame thread's part,
   sender_cpu_us the sender thread's CPU time, delta_us the part of it
   writing deltas.

   TIMEOUTS (one place: node_set_timeouts; --no-timeouts, net.timeouts
   on/off): the console's (idle, stalled, linger) and the nodes' (a client
   that says nothing for NODE_IDLE_MS is dropped by the server; a server that
   says nothing for NODE_IDLE_MS is left by the client). Keep-alives every
   NODE_ALIVE_MS and the resends of hellos, states and inputs are no
   timeouts: they go on with timeouts off. */

#define NODE_MAX_PEERS 16u
#define NODE_KNOWN 64u /* clients' tokens the server remembers (more than NODE_MAX_PEERS) */
#define NODE_RING 32u
#define NODE_HISTORY 4096u
#define NODE_RESEND_MS 100.0
#define NODE_HELLO_MS 500.0
#define NODE_INPUT_MS 200.0
#define NODE_ALIVE_MS 1000.0
#define NODE_IDLE_MS 10000.0
#define NODE_MAX_OUT ((size_t)64 << 20) /* a client's unsent bytes before states wait */
#define NODE_IOV 32u /* a peer's queued messages one sendmsg offers (two parts each) */
#define NODE_SENDER_POLL_MS 100 /* the sender's longest sleep (a wake-up ends it sooner) */
#define NODE_SENDER_TICK_MS 1   /* its sleep while it has peers: it looks at the queues that often, unwoken */

enum { ROLE_NONE = 0, ROLE_SERVER, ROLE_CLIENT };

typedef struct node_known { /* a client by its hello's token, across its connections */
    uint64_t token;
    int has_token;   /* 0: a hello without one (the record lives as long as its connection) */
    uint32_t inputs; /* the last input seq applied */
    uint32_t peers;  /* open connections that use it (0 and no token: free) */
    uint64_t used;   /* node_state.known_clock at its last join: the oldest unused goes first */
} node_known;

typedef struct node_peer {
    int used, sock;    /* sock -1: a replayed peer (no socket) */
    uint32_t id;       /* the server's name for a client; the client's for its server: 0 */
    node_buf in;       /* its output: node_state.sender.out[its slot] */
    int joined, closing;
    int64_t acked, sent; /* state ids; -1: none */
    double sent_ms, heard_ms, said_ms;
    node_known *known; /* a joined client's record (its inputs); NULL before the hello */
    char name[64];
} node_peer;

typedef struct node_held { /* a message the fault rule holds back */
    unsigned char *bytes;
    size_t size;
    uint32_t peer;
    double due_ms;
    uint64_t order;
} node_held;

typedef struct node_snap {
    int64_t id;    /* the state's number (-1: empty) */
    uint32_t frame;
    int hashed;    /* a client's: hash is the world hash of the state (taken when it was loaded) */
    uint64_t hash;
    ecs_snapshot_output blob; /* a client's: the state; the server's: its save, when a full snapshot went */
    int saved;                /* the server's: blob holds this state's save */
    ecs_snapshot_digest digest; /* the server's: the state's digests (deltas from the world against it) */
} node_snap;

/* The output side (see SENDING in NODES): what is queued to each peer, and
   a server's sender thread that writes it. */
typedef struct node_shared { /* a state message's payload, made or copied once, shared by every message that sends it */
    int64_t base, state; /* what it holds: state `state` as a delta against state `base` (-1: the snapshot) */
    uint32_t refs;       /* the queued messages and the frame thread's cache (under the sender's lock) */
    size_t size, cap;    /* cap: bytes data holds (a spare's buffer is used again: no fresh pages a frame) */
    unsigned char *data; /* malloc'd; written once (by the frame thread, or by the sender: a job), then only read */
    int ready;           /* under the lock: data holds it (0: a delta the sender thread still writes, a job) */
    const ecs_snapshot_digest *from, *to; /* a job's: the two states' digests in the ring (fenced: node_world_fence) */
    const ecs_world *world;               /* a job's: the world, in state `to` until the job is done */
} node_shared;

typedef struct node_out_msg { /* one queued message */
    struct node_out_msg *next;
    node_shared *payload; /* NULL: head is the whole message */
    size_t head_len;
    unsigned char *head;  /* framing, JSON (and a payload not shared), in the same allocation */
} node_out_msg;

typedef struct node_out { /* a peer's queue, under the sender's lock: the frame thread appends, the writer pops */
    node_out_msg *first, *last;
    size_t done;    /* bytes of first written */
    size_t pending; /* bytes queued, not written (NODE_MAX_OUT) */
    int fd;         /* -1: nothing to write to */
    int blocked;    /* the socket took less than offered: the writer waits for POLLOUT */
    int broken;     /* a write failed (its errno): the frame thread closes the peer */
} node_out;

typedef struct node_sender {
    pthread_mutex_t lock;
    pthread_cond_t cond; /* busy went 0, hold went 0 */
    pthread_t thread;
    int inited, running, stop;
    int busy;            /* the sender thread uses queues and sockets outside the lock (writing, polling) */
    int sleeping, woken; /* it polls; a byte was written to wake[1] */
    int ticking;         /* it sleeps NODE_SENDER_TICK_MS: a queue's new messages need no wake-up */
    int hold;            /* the frame thread waits to drop a queue or close a socket: the sender stays out */
    int wake[2];         /* a pipe: the frame thread wakes the sleeping sender */
    node_out out[NODE_MAX_PEERS];           /* by peer slot */
    node_shared *cache[NODE_MAX_PEERS];     /* the frame thread's: the current state's payloads */
    node_shared *spare; /* the last payload the cache let go of, kept for the next one (no fresh pages a frame) */
    uint32_t next_cache;
    uint64_t bytes_out;
    node_shared *job[NODE_MAX_PEERS];      /* deltas the sender writes from the resting world, oldest first */
    uint32_t jobs;                         /* (the frame thread changes no world while jobs > 0: node_world_fence) */
    double job_ns;                         /* the sender's CPU time writing them, since net.stats' reset */
    uint64_t job_deltas, state_bytes;      /* deltas written; state payload bytes queued (once each is written) */
    char job_error[360];                   /* the last job's failure, for the frame thread to note ("": none) */
    uint32_t fail_jobs;                    /* net.fail_delta (a test aid): the next jobs fail */
} node_sender;

typedef struct node_input { /* a client's forwarded command, until applied */
    uint32_t seq;
    char *text; /* "\"command\": ..., \"args\": {...}" */
} node_input;

typedef struct node_state {
    int role, replaying, timeouts_off, inputs_applied;
    int listener, port;  /* the server's */
    node_peer peers[NODE_MAX_PEERS];
    uint32_t next_id;
    node_known known[NODE_KNOWN];
    uint64_t known_clock;
    node_snap ring[NODE_RING];
    int64_t state_id; /* the server's current state; a client's applied one (-1: none) */
    ecs_snapshot_output scratch;
    ecs_snapshot_digest now; /* the server: the world's digests at its last hash */
    int64_t hist_frame[NODE_HISTORY];
    uint64_t hist_hash[NODE_HISTORY];
    /* the client */
    char host[64];
    int server_port, welcomed;
    uint32_t client_id;
    uint64_t token; /* this client's name for itself in its hellos */
    double hello_ms, inputs_ms;
    node_input *inputs;
    uint32_t num_inputs, inputs_cap, next_seq;
    char refused[300];
    /* the log, the faults */
    FILE *log;
    node_buf logbuf;
    node_faults faults;
    node_held *held;
    uint32_t num_held, held_cap;
    uint64_t held_order;
    ecs_json_doc doc;
    node_buf msg; /* a message being built */
    node_sender sender; /* the peers' queues; a server's writer thread */
    /* what happened */
    uint64_t divergences, resyncs, applied_full, applied_delta, refused_joins, bad_messages;
    uint64_t states_sent, full_sent, bytes_in; /* bytes out: sender.bytes_out */
    double net_ns; /* server: saving, deltas, hashing, sending */
} node_state;

typedef struct engine {
    options opt;
    ecs_jobs_pool pool; /* --threads: opt.threads - 1 threads and the main one */
    ecs_jobs jobs;
    ecs_world world;  /* world.entities: the entity manager */
    ecs_world_query movers; /* motion and transform */
    ecs_world_cursor cursor;
    ecs_transform_manager game, inventory;
    mesh_manager meshes;
    actor_manager actors;
    motion_manager motion;
    ecs_compiler compiler;
    ecs_spawner spawner;
    ecs_plugin_registry *registry;
    ecs_console *console; /* --console */
    uint32_t frame;       /* frames run so far */
    int paused, quit;     /* frame.pause, quit */
    double console_ns;    /* time in ecs_console_poll, for the report */
    uint32_t console_polls;
    struct frame_stat { uint32_t frame, entities; float us; } frame_stats[256]; /* frame.stats: a ring of the last frames */
    uint32_t frame_stats_count;
    char *page; /* the inspector page, joined from inspector_html_lines */
    ecs_plugin spin_plugin;
    int have_spin;
    ecs_compiler_output crate;
    ecs_entity *crates; /* FIFO of spawned crate entities (2 a crate) */
    uint32_t crates_head, crates_count, crates_capacity;
    ecs_instance *move_nodes;
    ecs_mat4 *move_locals;
    double system_ns[SYS_COUNT], system_max_ns[SYS_COUNT];
    uint64_t rng;
    uint32_t crates_spawned, crates_destroyed;
    /* --check-snapshot: the world saved after frame check_at, the engine's
       own state then, and the hash of every later frame */
    ecs_snapshot_output check_snap;
    uint64_t check_rng, *check_hash;
    ecs_entity *check_crates;
    uint32_t check_head, check_count, check_capacity, check_spawned, check_destroyed;
    node_state net; /* --serve, --join, --log-traffic, --replay */
    struct net_stats { /* net.stats: since its last reset */
        uint32_t frames;
        double frame_ns, frame_cpu_ns, node_ns, node_cpu_ns; /* frames: wall and this thread's CPU time */
        double hash_ns, save_ns, send_ns;                  /* node steps (CPU), in frames and between them */
        double fence_ns; /* the frame thread's wait for the sender's deltas before it changed the world */
        uint64_t saves;
        double sender_cpu0_ns; /* the sender thread's CPU time at the reset */
    } stat;
} engine;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The calling thread's CPU time: what a step costs this node, without the
   time other processes had its core (a probe's clients run on the same
   machine). The wall clock where there is no such clock. */
static double cpu_ns(void)
{
#if defined(CLOCK_THREAD_CPUTIME_ID)
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
#endif
    return now_ns();
}

static uint32_t random_below(engine *g, uint32_t n)
{
    uint64_t x = g->rng; /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    g->rng = x;
    return (uint32_t)(((x * 2685821657736338717ull) >> 32) % n);
}

static int fail(const char *what, const ecs_error *err)
{
    fprintf(stderr, "engine: %s: %s (%s)\n", what, err->message, ecs_result_name(err->code));
    return 1;
}

/* A whole regular file, NUL-terminated (the caller frees it), or NULL with
   *why naming what was wrong. A directory, FIFO or device is refused before
   any read (opened O_NONBLOCK: a FIFO does not block the open). */
static char *read_file(const char *path, size_t *len, const char **why)
{
    FILE *f = NULL;
    char *text;
    long n;
#if defined(__unix__) || defined(__APPLE__)
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        *why = "not a regular file";
        return NULL;
    }
    if (fd >= 0 && !(f = fdopen(fd, "rb"))) close(fd);
#else
    f = fopen(path, "rb");
#endif
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        *why = strerror(errno);
        if (f) fclose(f);
        return NULL;
    }
    *why = "out of memory";
    text = (char *)malloc((size_t)n + 1);
    if (text && (fread(text, 1, (size_t)n, f) != (size_t)n || ferror(f))) {
        *why = "a read error (or the file changed while it was read)";
        free(text);
        text = NULL;
    }
    fclose(f);
    if (text) text[n] = '\0';
    *len = (size_t)n;
    return text;
}

/* ---- setup -------------------------------------------------------------------- */

static int setup_worlds(engine *g)
{
    ecs_world_query_desc movers;
    ecs_error err;
    ecs_entity pickaxe;
    ecs_vec3 in_hand = {0.4f, 1.2f, 0.1f}, in_slot = {3.0f, 1.0f, 0.0f};
    ecs_mat4 m;
    if (ecs_world_init(&g->world) != ECS_OK ||
        ecs_transform_manager_init(&g->game, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE) != ECS_OK ||
        ecs_transform_manager_init(&g->inventory, ECS_LOOKUP_HASH, ECS_TRANSFORM_IMMEDIATE) != ECS_OK) {
        ecs_error_set(&err, ECS_ERROR_OUT_OF_MEMORY, "world and transform managers");
        return fail("setup", &err);
    }
    mesh_manager_init(&g->meshes, ECS_LOOKUP_HASH);
    actor_manager_init(&g->actors, ECS_LOOKUP_HASH);
    motion_manager_init(&g->motion, ECS_LOOKUP_HASH);
    /* every store once, by name: the compiler, the spawner, the plugins and
       the queries all take them from here */
    if (ecs_transform_world_register(&g->world, "transform", &g->game, &err) != ECS_OK ||
        ecs_transform_world_register(&g->world, "inventory", &g->inventory, &err) != ECS_OK ||
        ecs_world_add_manager(&g->world, "mesh", &g->meshes.core, &err) != ECS_OK ||
        ecs_world_add_manager(&g->world, "actor", &g->actors.core, &err) != ECS_OK ||
        ecs_world_add_manager(&g->world, "motion", &g->motion.core, &err) != ECS_OK)
        return fail("registering the components", &err);
    memset(&movers, 0, sizeof movers);
    movers.required[0] = "motion";
    movers.required[1] = "transform";
    if (ecs_world_query_make(&g->world, &movers, &g->movers, &err) != ECS_OK) return fail("the movers' query", &err);
    /* one entity, two transform managers: the pickaxe in the player's hand
       and in the inventory screen's slot */
    pickaxe = ecs_entity_create(&g->world.entities);
    m = ecs_mat4_translation(in_hand);
    ecs_transform_create(&g->game, pickaxe, &m, ecs_instance_nil());
    m = ecs_mat4_translation(in_slot);
    ecs_transform_create(&g->inventory, pickaxe, &m, ecs_instance_nil());
    return 0;
}

static int setup_resources(engine *g)
{
    ecs_error err;
    ecs_compiler_init(&g->compiler);
    ecs_spawner_init(&g->spawner);
    if (ecs_compiler_register_world(&g->compiler, &g->world, &err))
        return fail("registering the world's components", &err);
    if (err.message[0]) printf("engine: %s\n", err.message); /* what levels cannot hold, and why */
    if (ecs_spawner_register_world(&g->spawner, &g->world, &err))
        return fail("registering the world's components", &err);
    if (err.message[0]) printf("engine: %s\n", err.message);
    if (ecs_compiler_compile(&g->compiler, crate_prefab, sizeof crate_prefab - 1, ECS_COMPILER_PREFAB, &g->crate, &err) ||
        ecs_resource_verify(g->crate.blob, g->crate.size, &err))
        return fail("compiling the crate prefab", &err);
    return 0;
}

static int setup_plugins(engine *g)
{
    ecs_plugin_registry_desc desc;
    ecs_error err;
    char path[1024];
    memset(&desc, 0, sizeof desc);
    desc.world = &g->world; /* the plugins' managers join it; entities too */
    g->registry = ecs_plugin_registry_create(&desc, &err);
    if (!g->registry) return fail("plugin registry", &err);
    if (ecs_plugin_publish_transforms(g->registry, &g->game, &err) ||
        ecs_plugin_publish_resources(g->registry, &g->compiler, &g->spawner, &err) ||
        (g->console && ecs_console_publish(g->console, g->registry, &err)))
        return fail("publishing engine APIs", &err);
    snprintf(path, sizeof path, "%s/spin%s", g->opt.plugins,
#if defined(_WIN32)
             ".dll"
#elif defined(__APPLE__)
             ".dylib"
#else
             ".so"
#endif
    );
    if (ecs_plugin_load(g->registry, path, &g->spin_plugin, &err)) return fail(path, &err);
    g->have_spin = 1;
    return 0;
}

static int run_frame(engine *g, uint32_t frame);
static double now_ms(void) { return now_ns() / 1e6; }

static void node_set_timeouts(engine *g, int off)
{
    ecs_console_timeouts t;
    memset(&t, 0, sizeof t);
    t.disabled = off ? 1u : 0u;
    g->net.timeouts_off = off;
    if (g->console) ecs_console_set_timeouts(g->console, &t);
}

/* ---- the traffic log ------------------------------------------------------------------ */

/* A record whose body is two parts (a queued message's head and its shared payload). */
static void node_log_parts(engine *g, uint32_t kind, uint32_t peer, const void *body, size_t n, const void *more,
                           size_t more_n)
{
    node_state *s = &g->net;
    if (!s->log) return;
    s->logbuf.len = 0;
    node_log_record(&s->logbuf, kind, g->frame, peer, body, n);
    if (more_n) {
        node_buf_put(&s->logbuf, more, more_n);
        if (!s->logbuf.oom) node_set32(s->logbuf.p, (uint32_t)s->logbuf.len); /* the record's size: both parts */
    }
    if (s->logbuf.oom || fwrite(s->logbuf.p, 1, s->logbuf.len, s->log) != s->logbuf.len) {
        fprintf(stderr, "engine: --log-traffic: writing failed; the log stops here\n");
        fclose(s->log);
        s->log = NULL;
    }
}

static void node_log(engine *g, uint32_t kind, uint32_t peer, const void *body, size_t n)
{
    node_log_parts(g, kind, peer, body, n, NULL, 0);
}

/* A note: printed (divergences and refusals even with --quiet), a console
   line, a NOTE record naming peer (0: none, or the client's server). */
static void node_note_peer(engine *g, uint32_t peer, const char *text)
{
    if (!g->opt.quiet || strstr(text, "divergence") || strstr(text, "refused")) printf("node: %s\n", text);
    fflush(stdout);
    if (g->console && !g->net.replaying) ecs_console_log(g->console, strstr(text, "divergence") ? ECS_CONSOLE_ERROR : ECS_CONSOLE_INFO, "%s", text);
    node_log(g, NODE_LOG_NOTE, peer, text, strlen(text));
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static void node_note(engine *g, const char *format, ...)
{
    char text[600];
    va_list ap;
    va_start(ap, format);
    vsnprintf(text, sizeof text, format, ap);
    va_end(ap);
    node_note_peer(g, 0, text);
}

/* The frame thread, before it changes the world or the ring's digests:
   waits for the sender's jobs, which read them (the common case waits for
   nothing: a frame's deltas are written within the sender's tick, while
   the frame thread sleeps until the next frame). Notes a job's failure. */
static void node_sender_await(node_sender *w);
static void node_world_fence(engine *g)
{
    node_sender *w = &g->net.sender;
    char why[sizeof w->job_error];
    double t0 = 0;
    if (!w->running) return;
    pthread_mutex_lock(&w->lock);
    if (w->jobs) t0 = now_ns();
    while (w->jobs) node_sender_await(w);
    memcpy(why, w->job_error, sizeof why);
    w->job_error[0] = '\0';
    pthread_mutex_unlock(&w->lock);
    if (t0 > 0) g->stat.fence_ns += now_ns() - t0;
    if (why[0]) node_note(g, "%s (the clients that get it ask for a snapshot)", why);
}

/* The console's hook: every request of a socket connection, before it runs. */
static void node_console_request(void *user, const void *bytes, size_t size)
{
    engine *g = (engine *)user;
    node_world_fence(g); /* the request may change the world */
    node_log(g, NODE_LOG_CONSOLE_IN, 0, bytes, size);
}

/* A new state of the world: after a frame ran (kind 0), or when a command
   or an input changed the world between two frames (kind 1: the server
   sees it after its console's poll and after inputs). Its world hash is
   kept for net.hash and written to the log as a FRAME record (peer: the
   kind), and the server numbers the state and sends it to the clients. */
static void node_send_states(engine *g);
static void node_state_done(engine *g, uint32_t kind, uint64_t h)
{
    node_state *s = &g->net;
    unsigned char b[8];
    uint32_t k;
    node_world_fence(g); /* (the ring's digests move) */
    s->hist_frame[g->frame % NODE_HISTORY] = g->frame;
    s->hist_hash[g->frame % NODE_HISTORY] = h;
    for (k = 0; k < 8; ++k) b[k] = (unsigned char)(h >> (56 - 8 * k));
    node_log(g, NODE_LOG_FRAME, kind, b, 8);
    if (s->log) fflush(s->log);
    if (g->console) ecs_console_set_frame(g->console, g->frame);
    if (s->role == ROLE_SERVER) {
        s->state_id++;
        if (!s->replaying) {
            node_snap *r = &s->ring[(uint64_t)s->state_id % NODE_RING];
            ecs_snapshot_digest d = r->digest; /* the digests just taken become this state's */
            r->digest = s->now;
            s->now = d;
            r->id = r->digest.hash == h && r->digest.num_blocks ? s->state_id : -1;
            r->frame = g->frame;
            r->saved = 0;
            node_send_states(g);
        }
    }
}

/* The world hash; a server's keeps its digests in net.now (the state's
   when it is a new one: node_state_done), the base of the deltas its
   sender thread writes. */
static uint64_t node_world_hash(engine *g)
{
    node_state *s = &g->net;
    double t0 = cpu_ns();
    uint64_t h;
    if (s->role == ROLE_SERVER && !s->replaying && ecs_snapshot_world_digest(&g->world, &s->now, NULL) == ECS_OK)
        h = s->now.hash;
    else
        h = ecs_snapshot_world_hash(&g->world); /* (out of memory for the digests: states go whole) */
    g->stat.hash_ns += cpu_ns() - t0;
    return h;
}

/* After run_frame (the frame counter moved on). */
static void node_frame_done(engine *g)
{
    if (!g->net.role && !g->net.log && !g->net.replaying) return; /* a replay compares every frame's hash */
    node_state_done(g, 0, node_world_hash(g));
}

/* The server, between frames: a new state when the world's hash moved. */
static void node_check_change(engine *g)
{
    uint64_t h;
    if (g->net.role != ROLE_SERVER && !g->net.log) return;
    node_world_fence(g);
    h = node_world_hash(g);
    if (g->net.hist_frame[g->frame % NODE_HISTORY] != (int64_t)g->frame || g->net.hist_hash[g->frame % NODE_HISTORY] != h)
        node_state_done(g, 1, h);
}

/* The hash kept for frame f: 1 and *h, or 0. */
static int node_hash_at(const engine *g, uint32_t f, uint64_t *h)
{
    if (g->net.hist_frame[f % NODE_HISTORY] != (int64_t)f) return 0;
    *h = g->net.hist_hash[f % NODE_HISTORY];
    return 1;
}

/* ---- sockets (POSIX) ---------------------------------------------------------------------- */

static int node_nonblocking(int fd)
{
    int one = 1, flags = fcntl(fd, F_GETFL, 0);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, (const char *)&one, sizeof one);
    return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

/* Listens on 127.0.0.1:port (0: a free one): the socket, or -1 with why. */
static int node_listen(int port, int *bound, char *why, size_t why_size)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int one = 1, fd = (int)socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0) {
        snprintf(why, why_size, "socket: %s", strerror(errno));
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, (const char *)&one, sizeof one);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 16) != 0 || !node_nonblocking(fd) ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        snprintf(why, why_size, "127.0.0.1:%d: %s", port, strerror(errno));
        close(fd);
        return -1;
    }
    *bound = ntohs(a.sin_port);
    return fd;
}

/* Connects to host (IPv4 dotted quad or localhost):port: the socket, or -1. */
static int node_connect(const char *host, int port, char *why, size_t why_size)
{
    struct sockaddr_in a;
    int fd;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    if (strcmp(host, "localhost") == 0) a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    else if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
        snprintf(why, why_size, "'%s' is not an IPv4 address (a.b.c.d or localhost)", host);
        return -1;
    }
    if ((fd = (int)socket(AF_INET, SOCK_STREAM, 0)) < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        !node_nonblocking(fd)) {
        snprintf(why, why_size, "connecting to %s:%d: %s", host, port, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    return fd;
}

/* ---- the sender: a server's writes leave the frame thread ------------------------------------ */

/* Under the sender's lock: one reference fewer (the last frees it). */
static void node_shared_free(node_shared *sh)
{
    if (!sh) return;
    free(sh->data);
    free(sh);
}

static void node_shared_release(node_shared *sh)
{
    if (sh && --sh->refs == 0) node_shared_free(sh);
}

/* Under the lock, the frame thread's cache letting go of sh: its last
   reference keeps it as the spare (the larger one of the two). */
static void node_shared_uncache(node_sender *w, node_shared *sh)
{
    if (--sh->refs) return;
    if (w->spare && w->spare->cap >= sh->cap) {
        node_shared_free(sh);
        return;
    }
    node_shared_free(w->spare);
    w->spare = sh;
}

/* Under the lock: frees o's queue and forgets its socket. */
static void node_out_drop(node_out *o)
{
    while (o->first) {
        node_out_msg *m = o->first;
        o->first = m->next;
        node_shared_release(m->payload);
        free(m);
    }
    memset(o, 0, sizeof *o);
    o->fd = -1;
}

/* Under the lock: n bytes of o's queue were written; the messages done are freed. */
static void node_out_wrote(node_sender *w, node_out *o, size_t n)
{
    o->pending -= n;
    w->bytes_out += n;
    while (n) {
        node_out_msg *m = o->first;
        size_t left = m->head_len + (m->payload ? m->payload->size : 0u) - o->done;
        if (n < left) {
            o->done += n;
            return;
        }
        n -= left;
        o->done = 0;
        if (!(o->first = m->next)) o->last = NULL;
        node_shared_release(m->payload);
        free(m);
    }
}

/* Under the lock: m, queued to o, carries a payload that is written (at
   once, or when the sender's job is done): its frame's length and o's
   pending bytes count it. */
static void node_msg_sized(node_sender *w, node_out *o, node_out_msg *m)
{
    size_t n = m->payload->size;
    node_set32(m->head + 4, (uint32_t)(4u + node_get32(m->head + 8) + n));
    o->pending += n;
    w->state_bytes += n;
}

/* Under the lock: sh's job is done (its bytes written, or none when it
   failed: the clients find an empty delta corrupt and ask for a snapshot).
   The messages queued with it can go; the job's reference is let go. */
static void node_job_done(node_sender *w, node_shared *sh)
{
    uint32_t k;
    sh->ready = 1;
    sh->from = sh->to = NULL;
    sh->world = NULL;
    for (k = 0; k < NODE_MAX_PEERS; ++k) {
        node_out_msg *m;
        for (m = w->out[k].first; m; m = m->next)
            if (m->payload == sh) node_msg_sized(w, &w->out[k], m);
    }
    node_shared_release(sh);
}

/* This thread's CPU time (the sender's, around a job). */
static double node_thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The sender thread, lock held on entry and return: its oldest job, the
   delta from the world (which rests in state `to`: the frame thread waits
   in node_world_fence before it changes it) written outside the lock into
   the payload's own buffer. */
static void node_sender_job(node_sender *w)
{
    node_shared *sh = w->job[0];
    ecs_snapshot_output out;
    ecs_error err;
    ecs_result r;
    double c0;
    int fail = w->fail_jobs > 0;
    w->fail_jobs -= (uint32_t)fail;
    out.data = sh->data;
    out.size = sh->cap;
    pthread_mutex_unlock(&w->lock);
    c0 = node_thread_cpu_ns();
    if (fail)
        r = ecs_error_set(&err, ECS_ERROR_OUT_OF_MEMORY, "out of memory (on purpose: net.fail_delta)");
    else
        r = ecs_snapshot_delta_from_world(sh->from, sh->world, sh->to, ECS_SNAPSHOT_REUSE_OUTPUT, &out, &err);
    c0 = node_thread_cpu_ns() - c0;
    pthread_mutex_lock(&w->lock);
    sh->data = (unsigned char *)out.data;
    sh->cap = r == ECS_OK ? out.size : 0u; /* (what the buffer surely holds) */
    sh->size = r == ECS_OK ? out.size : 0u;
    if (r != ECS_OK)
        snprintf(w->job_error, sizeof w->job_error, "the delta from state %ld to %ld failed: %s", (long)sh->base,
                 (long)sh->state, err.message);
    w->job_ns += c0;
    w->job_deltas++;
    memmove(w->job, w->job + 1, (w->jobs - 1u) * sizeof *w->job);
    w->jobs--;
    node_job_done(w, sh);
    pthread_cond_broadcast(&w->cond);
}

/* Under the lock: the parts of o's queue from its first unwritten byte
   (at most NODE_IOV), their count, *offered their bytes. */
static int node_out_gather(const node_out *o, struct iovec *iov, size_t *offered)
{
    const node_out_msg *m;
    size_t skip = o->done;
    int n = 0;
    *offered = 0;
    for (m = o->first; m && n + 2 <= (int)NODE_IOV && (!m->payload || m->payload->ready); m = m->next) {
        const unsigned char *part[2];
        size_t len[2], k;
        part[0] = m->head, len[0] = m->head_len;
        part[1] = m->payload ? m->payload->data : NULL, len[1] = m->payload ? m->payload->size : 0u;
        for (k = 0; k < 2; ++k) {
            if (skip >= len[k]) {
                skip -= len[k];
                continue;
            }
            iov[n].iov_base = (void *)(uintptr_t)(part[k] + skip);
            iov[n++].iov_len = len[k] - skip;
            *offered += len[k] - skip;
            skip = 0;
        }
    }
    return n;
}

/* One non-blocking write of n parts (no SIGPIPE): bytes written, or -1 and errno. */
static ssize_t node_out_sendmsg(int fd, struct iovec *iov, int n)
{
    struct msghdr h;
    memset(&h, 0, sizeof h);
    h.msg_iov = iov;
    h.msg_iovlen = (size_t)n;
    return sendmsg(fd, &h, MSG_NOSIGNAL);
}

/* Under the lock: what a write of offered bytes gave (r, err: its errno). */
static void node_out_result(node_sender *w, node_out *o, ssize_t r, size_t offered, int err)
{
    if (r < 0 && (err == EAGAIN || err == EWOULDBLOCK)) o->blocked = 1;
    else if (r < 0 && err != EINTR) o->broken = err ? err : EIO;
    if (r <= 0) return;
    node_out_wrote(w, o, (size_t)r);
    if ((size_t)r < offered) o->blocked = 1; /* the socket is full: POLLOUT first */
}

/* Under the lock, without a sender thread: writes o's queue on this thread
   as far as its socket takes it. */
static void node_out_write_now(node_sender *w, node_out *o)
{
    struct iovec iov[NODE_IOV];
    size_t offered;
    int n;
    o->blocked = 0;
    while (o->first && o->fd >= 0 && !o->blocked && !o->broken) {
        ssize_t r;
        n = node_out_gather(o, iov, &offered);
        r = node_out_sendmsg(o->fd, iov, n);
        node_out_result(w, o, r, offered, r < 0 ? errno : 0);
    }
}

/* Under the lock: 1 when the sender sleeps and nobody woke it yet (then
   marked woken: the caller writes the byte, node_sender_poke); a queue's
   new messages (urgent 0) not while it ticks: it finds them within
   NODE_SENDER_TICK_MS. */
static int node_sender_claim_wake(node_sender *w, int urgent)
{
    if (!w->sleeping || w->woken || (w->ticking && !urgent)) return 0;
    w->woken = 1;
    return 1;
}

/* The byte that wakes a sleeping sender: written after the lock is let go
   (written under it, the woken sender blocked on the lock at once and the
   unlock had to wake it a second time), or under it on the rare paths. */
static void node_sender_poke(node_sender *w) { (void)!write(w->wake[1], "", 1); }

/* Under the lock: wakes the sender if it sleeps (one byte a sleep). */
static void node_sender_wake(node_sender *w)
{
    if (node_sender_claim_wake(w, 1)) node_sender_poke(w);
}

/* Under the lock, the frame thread: the sender woken if it sleeps, then
   its next broadcast waited for (a job done, a write over, a sleep ended). */
static void node_sender_await(node_sender *w)
{
    node_sender_wake(w);
    pthread_cond_wait(&w->cond, &w->lock);
}

/* The frame thread: waits until sh's job is done. */
static void node_payload_wait(node_sender *w, node_shared *sh)
{
    pthread_mutex_lock(&w->lock);
    while (!sh->ready) node_sender_await(w);
    pthread_mutex_unlock(&w->lock);
}

/* The sender thread's turn, lock held on entry and return: every queue
   with something the socket may take is written once, outside the lock
   (busy: the frame thread neither frees those messages nor closes those
   sockets meanwhile). 1 when it wrote, 0 when there was nothing to. */
static int node_sender_turn(node_sender *w)
{
    struct iovec iov[NODE_MAX_PEERS][NODE_IOV];
    size_t offered[NODE_MAX_PEERS];
    ssize_t r[NODE_MAX_PEERS];
    int n[NODE_MAX_PEERS], fd[NODE_MAX_PEERS], err[NODE_MAX_PEERS], any = 0;
    uint32_t k;
    for (k = 0; k < NODE_MAX_PEERS; ++k) {
        node_out *o = &w->out[k];
        n[k] = o->first && o->fd >= 0 && !o->blocked && !o->broken ? node_out_gather(o, iov[k], &offered[k]) : 0;
        fd[k] = o->fd;
        any |= n[k] > 0;
    }
    if (!any) return 0;
    w->busy = 1;
    pthread_mutex_unlock(&w->lock);
    for (k = 0; k < NODE_MAX_PEERS; ++k)
        if (n[k]) {
            r[k] = node_out_sendmsg(fd[k], iov[k], n[k]);
            err[k] = r[k] < 0 ? errno : 0;
        }
    pthread_mutex_lock(&w->lock);
    for (k = 0; k < NODE_MAX_PEERS; ++k)
        if (n[k]) node_out_result(w, &w->out[k], r[k], offered[k], err[k]);
    w->busy = 0;
    pthread_cond_broadcast(&w->cond);
    return 1;
}

/* The sender thread, lock held on entry and return: sleeps until woken
   (something queued, a peer to close, the end), a full socket takes more,
   or NODE_SENDER_POLL_MS passed; NODE_SENDER_TICK_MS while it has peers.
   Waking a sleeping thread costs the waker an inter-processor interrupt
   (20-30 us of the frame thread's time a frame on the 2-core VM); a tick
   costs the sender's core a few us a millisecond, and a state waits at
   most NODE_SENDER_TICK_MS to leave. */
static void node_sender_sleep(node_sender *w)
{
    struct pollfd fds[NODE_MAX_PEERS + 1];
    uint32_t which[NODE_MAX_PEERS + 1], k;
    nfds_t n = 1;
    char drain[16];
    w->ticking = 0;
    for (k = 0; k < NODE_MAX_PEERS; ++k) w->ticking |= w->out[k].fd >= 0;
    fds[0].fd = w->wake[0], fds[0].events = POLLIN, fds[0].revents = 0;
    for (k = 0; k < NODE_MAX_PEERS; ++k)
        if (w->out[k].first && w->out[k].fd >= 0 && w->out[k].blocked && !w->out[k].broken) {
            fds[n].fd = w->out[k].fd, fds[n].events = POLLOUT, fds[n].revents = 0;
            which[n++] = k;
        }
    w->busy = w->sleeping = 1;
    pthread_mutex_unlock(&w->lock);
    (void)poll(fds, n, w->ticking ? NODE_SENDER_TICK_MS : NODE_SENDER_POLL_MS);
    if (fds[0].revents)
        while (read(w->wake[0], drain, sizeof drain) > 0) continue;
    pthread_mutex_lock(&w->lock);
    for (k = 1; k < n; ++k)
        if (fds[k].revents) w->out[which[k]].blocked = 0; /* writable, or an error the next write names */
    w->busy = w->sleeping = w->woken = w->ticking = 0;
    pthread_cond_broadcast(&w->cond);
}

/* Linux's SCHED_BATCH (<sched.h> names it only with _GNU_SOURCE): a
   thread of that policy never preempts the one that wakes it. */
#define NODE_SCHED_BATCH 3

static void *node_sender_main(void *arg)
{
    node_sender *w = (node_sender *)arg;
#if defined(__linux__)
    { /* the frame thread wakes the sender at the end of its frame: it goes on, the sender waits for a core */
        struct sched_param sp;
        memset(&sp, 0, sizeof sp);
        (void)pthread_setschedparam(pthread_self(), NODE_SCHED_BATCH, &sp);
    }
#endif
    pthread_mutex_lock(&w->lock);
    while (!w->stop) {
        if (w->hold) pthread_cond_wait(&w->cond, &w->lock);
        else if (w->jobs) node_sender_job(w);
        else if (!node_sender_turn(w)) node_sender_sleep(w);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* The sender thread's CPU time so far (read here, by the frame thread: the
   sender reads no clock), 0 where there is no such clock. */
static double node_sender_cpu_ns(node_sender *w)
{
#if defined(_POSIX_THREAD_CPUTIME) && _POSIX_THREAD_CPUTIME >= 0
    clockid_t clock;
    struct timespec ts;
    if (w->running && pthread_getcpuclockid(w->thread, &clock) == 0 && clock_gettime(clock, &ts) == 0)
        return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
#else
    (void)w;
#endif
    return 0;
}

/* Its lock and empty queues; for a server (not a replay) the thread too.
   0, or 1 with a message. */
static int node_sender_start(node_sender *w, int thread)
{
    uint32_t k;
    int flags;
    if (pthread_mutex_init(&w->lock, NULL) != 0) return fprintf(stderr, "engine: cannot make the sender's lock\n"), 1;
    if (pthread_cond_init(&w->cond, NULL) != 0) {
        pthread_mutex_destroy(&w->lock);
        return fprintf(stderr, "engine: cannot make the sender's condition variable\n"), 1;
    }
    w->inited = 1;
    w->wake[0] = w->wake[1] = -1;
    for (k = 0; k < NODE_MAX_PEERS; ++k) w->out[k].fd = -1;
    if (!thread) return 0;
    if (pipe(w->wake) != 0 || (flags = fcntl(w->wake[0], F_GETFL, 0)) < 0 ||
        fcntl(w->wake[0], F_SETFL, flags | O_NONBLOCK) != 0 || fcntl(w->wake[1], F_SETFL, flags | O_NONBLOCK) != 0) {
        fprintf(stderr, "engine: --serve: cannot make the sender's pipe: %s\n", strerror(errno));
        return 1;
    }
    if (pthread_create(&w->thread, NULL, node_sender_main, w) != 0) {
        fprintf(stderr, "engine: --serve: cannot start the sender thread\n");
        return 1;
    }
    w->running = 1;
    return 0;
}

/* Stops and joins the thread, frees every queue and payload (the sockets are the peers'). */
static void node_sender_end(node_sender *w)
{
    uint32_t k;
    if (!w->inited) return;
    if (w->running) {
        pthread_mutex_lock(&w->lock);
        w->stop = 1;
        node_sender_wake(w);
        pthread_cond_broadcast(&w->cond);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
        w->running = 0;
    }
    for (k = 0; k < w->jobs; ++k) node_shared_release(w->job[k]); /* not written: nothing sends them now */
    w->jobs = 0;
    for (k = 0; k < NODE_MAX_PEERS; ++k) {
        node_out_drop(&w->out[k]);
        node_shared_release(w->cache[k]);
        w->cache[k] = NULL;
    }
    node_shared_free(w->spare);
    w->spare = NULL;
    for (k = 0; k < 2; ++k)
        if (w->wake[k] >= 0) close(w->wake[k]);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    w->inited = 0;
}

/* A new peer in slot k writes to sock. */
static void node_out_open(node_sender *w, uint32_t k, int sock)
{
    pthread_mutex_lock(&w->lock);
    node_out_drop(&w->out[k]);
    w->out[k].fd = sock;
    pthread_mutex_unlock(&w->lock);
}

/* The peer in slot k closes: the sender is kept out of its queue and socket
   (woken if it sleeps on them, waited for if it writes) while the queue is
   freed; the caller closes the socket after. */
static void node_out_close(node_sender *w, uint32_t k)
{
    if (!w->inited) return;
    pthread_mutex_lock(&w->lock);
    w->hold++;
    while (w->busy) node_sender_await(w);
    node_out_drop(&w->out[k]);
    w->hold--;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* Bytes written to every peer so far. */
static uint64_t node_bytes_out(node_sender *w)
{
    uint64_t n;
    pthread_mutex_lock(&w->lock);
    n = w->bytes_out;
    pthread_mutex_unlock(&w->lock);
    return n;
}

/* Bytes queued to the peer in slot k and not written yet. */
static size_t node_out_pending(node_sender *w, uint32_t k)
{
    size_t n;
    pthread_mutex_lock(&w->lock);
    n = w->out[k].pending;
    pthread_mutex_unlock(&w->lock);
    return n;
}

/* The frame thread's cache: the shared payload of state `state` against
   `base`, or NULL. */
static node_shared *node_shared_cached(const node_sender *w, int64_t base, int64_t state)
{
    uint32_t k;
    for (k = 0; k < NODE_MAX_PEERS; ++k)
        if (w->cache[k] && w->cache[k]->base == base && w->cache[k]->state == state) return w->cache[k];
    return NULL;
}

/* The frame thread's: a new payload of state `state` against `base` in
   the cache (a spare's buffer when there is one), ready, empty, with room
   for n bytes (NULL: out of memory). The cache keeps one reference to each
   of the current state's payloads; a new state drops the older ones. */
static node_shared *node_shared_new(node_sender *w, int64_t base, int64_t state, size_t n)
{
    node_shared *sh;
    unsigned char *q;
    uint32_t k, slot = NODE_MAX_PEERS;
    pthread_mutex_lock(&w->lock);
    for (k = 0; k < NODE_MAX_PEERS; ++k) {
        if (w->cache[k] && w->cache[k]->state != state) node_shared_uncache(w, w->cache[k]), w->cache[k] = NULL;
        if (!w->cache[k] && slot == NODE_MAX_PEERS) slot = k;
    }
    if (slot == NODE_MAX_PEERS) node_shared_uncache(w, w->cache[slot = w->next_cache++ % NODE_MAX_PEERS]);
    sh = w->spare;
    w->spare = NULL;
    w->cache[slot] = NULL;
    pthread_mutex_unlock(&w->lock);
    if (!sh && (sh = (node_shared *)calloc(1, sizeof *sh)) == NULL) return NULL;
    if (sh->cap < n) { /* nobody else holds it: no lock */
        if (!(q = (unsigned char *)realloc(sh->data, n))) {
            node_shared_free(sh);
            return NULL;
        }
        sh->data = q;
        sh->cap = n;
    }
    sh->base = base, sh->state = state, sh->refs = 1, sh->size = 0, sh->ready = 1;
    w->cache[slot] = sh;
    return sh;
}

/* The frame thread's: a new payload of state `state` against `base`, a
   copy of n bytes at data (NULL: out of memory). */
static node_shared *node_shared_payload(node_sender *w, int64_t base, int64_t state, const void *data, size_t n)
{
    node_shared *sh = node_shared_new(w, base, state, n ? n : 1u);
    if (!sh) return NULL;
    sh->size = n;
    if (n) memcpy(sh->data, data, n);
    return sh;
}

/* The frame thread's: a new payload of the delta from ring state `from`
   to the current state `to` (the world's), made by the sender thread: a job
   (the messages that carry it wait for it; so does the frame thread before
   it changes the world: node_world_fence). NULL: out of memory. */
static node_shared *node_shared_job(node_sender *w, int64_t base, int64_t state, const ecs_snapshot_digest *from,
                                    const ecs_snapshot_digest *to, const ecs_world *world)
{
    node_shared *sh = node_shared_new(w, base, state, 0); /* (the sender's delta sizes the buffer) */
    int poke;
    if (!sh) return NULL;
    sh->from = from, sh->to = to, sh->world = world;
    pthread_mutex_lock(&w->lock);
    while (w->jobs == NODE_MAX_PEERS) node_sender_await(w); /* (only when the cache let go of payloads still being written) */
    sh->ready = 0;
    sh->refs++; /* the job's */
    w->job[w->jobs++] = sh; /* (at most one a cache slot: NODE_MAX_PEERS) */
    poke = node_sender_claim_wake(w, 0); /* a ticking sender finds it within NODE_SENDER_TICK_MS */
    pthread_mutex_unlock(&w->lock);
    if (poke) node_sender_poke(w);
    return sh;
}

static node_peer *node_peer_by_id(engine *g, uint32_t id)
{
    uint32_t k;
    for (k = 0; k < NODE_MAX_PEERS; ++k)
        if (g->net.peers[k].used && g->net.peers[k].id == id) return &g->net.peers[k];
    return NULL;
}

static node_peer *node_peer_open(engine *g, int sock, uint32_t id)
{
    uint32_t k;
    for (k = 0; k < NODE_MAX_PEERS; ++k) {
        node_peer *p = &g->net.peers[k];
        if (p->used) continue;
        node_buf_free(&p->in);
        memset(p, 0, sizeof *p);
        p->used = 1;
        p->sock = sock;
        node_out_open(&g->net.sender, k, sock);
        p->id = id;
        p->acked = p->sent = -1;
        p->heard_ms = p->said_ms = now_ms();
        return p;
    }
    return NULL;
}

/* Drops the messages the fault rule holds for peer id: they belong to
   the connection that closed (a client's server is always id 0). */
static void node_drop_held(engine *g, uint32_t id)
{
    node_state *s = &g->net;
    uint32_t k = 0;
    while (k < s->num_held)
        if (s->held[k].peer == id) {
            free(s->held[k].bytes);
            s->held[k] = s->held[--s->num_held];
        } else {
            ++k;
        }
}

/* Closes p: its socket, its held messages, its hold on its client record.
   A server logs the close as a NOTE naming the peer (a replay closes it
   there), why or not (NULL: not printed, a refused join's or the end's). */
static void node_peer_close(engine *g, node_peer *p, const char *why)
{
    char text[400];
    if (!p->used) return;
    if (g->net.role == ROLE_SERVER) {
        snprintf(text, sizeof text, "client %u (%s) left: %s", (unsigned)p->id, p->name, why ? why : "closed");
        if (why) node_note_peer(g, p->id, text);
        else node_log(g, NODE_LOG_NOTE, p->id, text, strlen(text));
    } else if (why) {
        node_note(g, "left the server %s:%d: %s", g->net.host, g->net.server_port, why);
    }
    if (p->known && --p->known->peers == 0 && !p->known->has_token) memset(p->known, 0, sizeof *p->known);
    node_drop_held(g, p->id);
    node_out_close(&g->net.sender, (uint32_t)(p - g->net.peers)); /* the sender is off it: the socket can go */
    if (p->sock >= 0) close(p->sock);
    node_buf_free(&p->in);
    memset(p, 0, sizeof *p);
    p->sock = -1;
    if (g->net.role == ROLE_CLIENT) g->net.welcomed = 0;
}

/* Queues a message to p, logged (a NET_OUT record, here on the frame
   thread, in the order queued): its head (framing, JSON, and the payload
   unless it is shared) in one allocation, a shared payload referenced. A
   replay, a closing peer, a peer without a socket: nothing. */
static void node_queue(engine *g, node_peer *p, const char *json, size_t json_len, const void *payload, size_t n,
                       node_shared *sh)
{
    node_sender *w = &g->net.sender;
    node_out *o = &w->out[p - g->net.peers];
    size_t frame = payload || sh ? 12u : 8u, size = sh ? 0u : payload ? n : 0u, head = frame + json_len + size;
    node_out_msg *m;
    if (p->sock < 0 || g->net.replaying || p->closing) return;
    if (sh && g->net.log) node_payload_wait(w, sh); /* the log keeps the message whole, in the order sent */
    if (!(m = (node_out_msg *)malloc(sizeof *m + head))) {
        node_peer_close(g, p, "out of memory queueing a message");
        return;
    }
    m->next = NULL;
    m->payload = sh;
    m->head_len = head;
    m->head = (unsigned char *)(m + 1);
    node_set32(m->head, frame == 12u ? 1u : 0u); /* as node_msg_write: type 1 when there is a payload */
    node_set32(m->head + 4, (uint32_t)(frame == 12u ? 4u + json_len + size : json_len)); /* (sh's size: node_msg_sized) */
    if (frame == 12u) node_set32(m->head + 8, (uint32_t)json_len);
    memcpy(m->head + frame, json, json_len);
    if (!sh && payload && size) memcpy(m->head + frame + json_len, payload, size);
    if (g->net.log) { /* (sh written: waited for above) */
        if (sh) node_set32(m->head + 4, (uint32_t)(4u + json_len + sh->size));
        node_log_parts(g, NODE_LOG_NET_OUT, p->id, m->head, head, sh ? sh->data : NULL, sh ? sh->size : 0u);
    }
    pthread_mutex_lock(&w->lock);
    if (sh) sh->refs++;
    if (o->last) o->last->next = m;
    else o->first = m;
    o->last = m;
    o->pending += head;
    if (sh && sh->ready) node_msg_sized(w, o, m);
    pthread_mutex_unlock(&w->lock);
    p->said_ms = now_ms();
}

/* Sends a message to p (queued; written by the sender as the socket takes it), logged. */
static void node_send(engine *g, node_peer *p, const char *json, size_t json_len, const void *payload, size_t n)
{
    node_queue(g, p, json, json_len, payload, n, NULL);
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
static void node_sendf(engine *g, node_peer *p, const char *format, ...)
{
    char text[1024], *big = NULL;
    va_list ap;
    int n;
    va_start(ap, format);
    n = vsnprintf(text, sizeof text, format, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n >= sizeof text && (big = (char *)malloc((size_t)n + 1u)) != NULL) { /* a long input */
        va_start(ap, format);
        vsnprintf(big, (size_t)n + 1u, format, ap);
        va_end(ap);
    }
    if (n < 0 || ((size_t)n >= sizeof text && !big))
        node_note(g, "a message to peer %u (%d bytes) could not be built: out of memory, not sent", (unsigned)p->id, n);
    else node_send(g, p, big ? big : text, (size_t)n, NULL, 0);
    free(big);
}

/* Under the sender's lock, after queueing to the peer in slot k: written
   here when there is no sender thread (a client: acks, inputs and hellos
   are tiny), else *wake set when the sender has something to write; what
   node_flush_done needs. */
static void node_flush_locked(node_sender *w, uint32_t k, int *wake, int *broken, size_t *pending)
{
    node_out *o = &w->out[k];
    if (!w->running) node_out_write_now(w, o);
    else if (o->first && !o->blocked) *wake = 1;
    *broken = o->broken, *pending = o->pending;
}

/* What the writes found, acted on here on the frame thread: a broken
   connection closed, a refused join (closing) closed once its message is
   written. */
static void node_flush_done(engine *g, node_peer *p, int broken, size_t pending)
{
    if (!p->used) return;
    if (broken) node_peer_close(g, p, "the connection broke while sending");
    else if (p->closing && pending == 0) node_peer_close(g, p, NULL); /* a refused join: noted then */
}

/* After queueing to p: its queue written, or the sender woken to write it. */
static void node_flush(engine *g, node_peer *p)
{
    node_sender *w = &g->net.sender;
    int wake = 0, broken;
    size_t pending;
    if (!p->used || p->sock < 0) return;
    pthread_mutex_lock(&w->lock);
    node_flush_locked(w, (uint32_t)(p - g->net.peers), &wake, &broken, &pending);
    wake = wake && node_sender_claim_wake(w, 0);
    pthread_mutex_unlock(&w->lock);
    if (wake) node_sender_poke(w);
    node_flush_done(g, p, broken, pending);
}

/* node_flush for every peer, under one lock and one wake-up of the sender. */
static void node_flush_all(engine *g)
{
    node_sender *w = &g->net.sender;
    int wake = 0, broken[NODE_MAX_PEERS];
    size_t pending[NODE_MAX_PEERS];
    uint32_t k;
    pthread_mutex_lock(&w->lock);
    for (k = 0; k < NODE_MAX_PEERS; ++k)
        if (g->net.peers[k].used && g->net.peers[k].sock >= 0) node_flush_locked(w, k, &wake, &broken[k], &pending[k]);
    wake = wake && node_sender_claim_wake(w, 0);
    pthread_mutex_unlock(&w->lock);
    if (wake) node_sender_poke(w);
    for (k = 0; k < NODE_MAX_PEERS; ++k)
        if (g->net.peers[k].used && g->net.peers[k].sock >= 0) node_flush_done(g, &g->net.peers[k], broken[k], pending[k]);
}

/* ---- receiving: the fault rule, then the log, then the handler ----------------------------- */

static void node_server_handle(engine *g, node_peer *p, const node_msg *m);
static void node_client_handle(engine *g, node_peer *p, const node_msg *m);

/* Hands one whole message from peer id to its handler, logged first (after
   the fault rule: the log holds what the node saw). */
static void node_deliver(engine *g, uint32_t id, const unsigned char *bytes, size_t size)
{
    node_peer *p = node_peer_by_id(g, id);
    node_msg m;
    char why[200];
    if (!p && g->net.replaying) p = node_peer_open(g, -1, id); /* a replay's peers have no socket */
    if (!p || node_msg_parse(bytes, size, NODE_MAX_MESSAGE, &m, why, sizeof why) != 1) return;
    node_log(g, NODE_LOG_NET_IN, id, bytes, size);
    p->heard_ms = now_ms();
    if (g->net.role == ROLE_SERVER) node_server_handle(g, p, &m);
    else node_client_handle(g, p, &m);
}

/* The fault rule on one arriving message: dropped, or held (copied) for
   its frame periods, once or twice; without faults delivered now. */
static void node_arrive(engine *g, node_peer *p, const unsigned char *bytes, size_t size)
{
    node_state *s = &g->net;
    uint32_t hold, copies = node_faults_decide(&s->faults, &hold), c;
    double frame_ms = 1000.0 / (double)g->opt.fps;
    if (!s->faults.on) {
        node_deliver(g, p->id, bytes, size);
        return;
    }
    for (c = 0; c < copies; ++c) {
        node_held *h;
        if (s->num_held == s->held_cap) {
            uint32_t cap = s->held_cap ? s->held_cap * 2u : 16u;
            node_held *q = (node_held *)realloc(s->held, cap * sizeof *q);
            if (!q) return; /* out of memory: as dropped */
            s->held = q;
            s->held_cap = cap;
        }
        h = &s->held[s->num_held];
        if (!(h->bytes = (unsigned char *)malloc(size))) return;
        memcpy(h->bytes, bytes, size);
        h->size = size;
        h->peer = p->id;
        h->due_ms = now_ms() + (double)hold * frame_ms + (double)c * 0.001;
        h->order = s->held_order++;
        s->num_held++;
    }
}

/* Delivers the held messages that are due, earliest first. */
static void node_release_held(engine *g)
{
    node_state *s = &g->net;
    double now = now_ms();
    for (;;) {
        uint32_t k, best = UINT32_MAX;
        node_held h;
        for (k = 0; k < s->num_held; ++k)
            if (s->held[k].due_ms <= now && (best == UINT32_MAX || s->held[k].due_ms < s->held[best].due_ms ||
                                             (s->held[k].due_ms == s->held[best].due_ms && s->held[k].order < s->held[best].order)))
                best = k;
        if (best == UINT32_MAX) return;
        h = s->held[best];
        s->held[best] = s->held[--s->num_held];
        node_deliver(g, h.peer, h.bytes, h.size);
        free(h.bytes);
    }
}

/* Reads what p's socket has, and passes every whole message on. */
static void node_read(engine *g, node_peer *p)
{
    unsigned char chunk[65536];
    size_t at = 0;
    char why[200];
    const char *gone = NULL; /* closed: after the whole messages it sent (a bye) */
    for (;;) {
        ssize_t n = recv(p->sock, chunk, sizeof chunk, 0);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
        if (n <= 0) {
            gone = n == 0 ? "the other side closed the connection" : strerror(errno);
            break;
        }
        node_buf_put(&p->in, chunk, (size_t)n);
        g->net.bytes_in += (uint64_t)n;
        if (p->in.oom) {
            node_peer_close(g, p, "out of memory reading a message");
            return;
        }
    }
    while (p->used && !p->closing) {
        node_msg m;
        int got = node_msg_parse(p->in.p + at, p->in.len - at, NODE_MAX_MESSAGE, &m, why, sizeof why);
        if (got == 0) break;
        if (got < 0) {
            g->net.bad_messages++;
            node_peer_close(g, p, why); /* a stream that lost its framing cannot go on */
            return;
        }
        node_arrive(g, p, p->in.p + at, m.size);
        at += m.size;
    }
    if (p->used) node_buf_consume(&p->in, at);
    if (p->used && gone) node_peer_close(g, p, gone);
}

/* Parses a message's JSON into s->doc: its root object, or NULL (noted). */
static const ecs_json_value *node_parse_json(engine *g, node_peer *p, const node_msg *m, const char **type)
{
    ecs_error err;
    const ecs_json_value *root;
    if (ecs_json_parse(&g->net.doc, m->json, m->json_len, &err) != ECS_OK) {
        g->net.bad_messages++;
        node_note(g, "peer %u: a message that is not JSON, ignored: %s", (unsigned)p->id, err.message);
        return NULL;
    }
    root = ecs_json_root(&g->net.doc);
    if (!root || root->type != ECS_JSON_OBJECT || !(*type = node_json_str(&g->net.doc, root, "type"))) {
        g->net.bad_messages++;
        node_note(g, "peer %u: a message without a \"type\", ignored", (unsigned)p->id);
        return NULL;
    }
    return root;
}

/* ---- the server ---------------------------------------------------------------------------- */

static const char *node_byte_order(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one ? "little" : "big";
}

/* The record of a joining client: the one of its token (a join again),
   else a new one (the oldest record no connection uses makes room), its
   inputs what the hello says the client knows applied. */
static node_known *node_known_take(engine *g, const ecs_json_value *root)
{
    node_state *s = &g->net;
    uint64_t token = 0;
    int has = node_parse_hash(node_json_str(&s->doc, root, "token"), &token);
    double said = 0;
    node_known *r = NULL;
    uint32_t k;
    (void)node_json_int(&s->doc, root, "inputs", 0, 4294967295.0, &said);
    for (k = 0; has && !r && k < NODE_KNOWN; ++k)
        if (s->known[k].has_token && s->known[k].token == token) r = &s->known[k];
    if (!r) { /* a free record first, else the oldest: NODE_KNOWN > NODE_MAX_PEERS, so one is not in use */
        for (k = 0; k < NODE_KNOWN; ++k) {
            node_known *c = &s->known[k];
            if (!c->peers && (!r || (r->has_token && (!c->has_token || c->used < r->used)))) r = c;
        }
        memset(r, 0, sizeof *r);
        r->token = token;
        r->has_token = has;
    }
    if ((uint32_t)said > r->inputs) r->inputs = (uint32_t)said; /* the client knows more: a server that forgot it */
    r->peers++;
    r->used = ++s->known_clock;
    return r;
}

/* A hello: the protocol version and byte order must be ours, else refused
   (named) and closed once the refusal is sent. */
static void node_server_hello(engine *g, node_peer *p, const ecs_json_value *root)
{
    const ecs_json_doc *d = &g->net.doc;
    const char *order = node_json_str(d, root, "byte_order"), *name = node_json_str(d, root, "name");
    double protocol = -1;
    char why[300];
    why[0] = 0;
    if (!node_json_int(d, root, "protocol", 0, 4294967295.0, &protocol))
        snprintf(why, sizeof why, "a hello without a protocol version (this server speaks %u)", NODE_PROTOCOL);
    else if (protocol != (double)NODE_PROTOCOL)
        snprintf(why, sizeof why, "protocol version %.0f: this server speaks %u", protocol, NODE_PROTOCOL);
    else if (!order || strcmp(order, node_byte_order()) != 0)
        snprintf(why, sizeof why, "byte order '%.20s': this server's snapshots are %s-endian", order ? order : "(none)",
                 node_byte_order());
    if (why[0]) {
        node_buf *b = &g->net.msg;
        b->len = 0;
        node_buf_printf(b, "{\"type\": \"refused\", \"error\": ");
        node_json_string(b, why, strlen(why));
        node_buf_put(b, "}", 1);
        node_send(g, p, (const char *)b->p, b->len, NULL, 0);
        p->closing = 1;
        g->net.refused_joins++;
        node_note(g, "client %u: join refused: %s", (unsigned)p->id, why);
        return;
    }
    if (!p->joined) {
        name = name ? name : "?";
        snprintf(p->name, sizeof p->name, "%.*s", (int)node_utf8_cut(name, strlen(name), NODE_NAME_MAX), name);
        p->joined = 1;
        p->known = node_known_take(g, root);
        node_note(g, "client %u (%s) joined at frame %u", (unsigned)p->id, p->name, (unsigned)g->frame);
    }
    p->acked = p->sent = -1; /* a repeated hello (the welcome was lost): from a full snapshot again */
    node_sendf(g, p, "{\"type\": \"welcome\", \"protocol\": %u, \"client\": %u, \"frame\": %u, \"inputs\": %u}",
               NODE_PROTOCOL, (unsigned)p->id, (unsigned)g->frame, (unsigned)p->known->inputs);
}

/* An input: applied once, in order, through the console's in-process
   connection (the same command the server's console runs); the reply goes
   back as input_result. */
static void node_server_input(engine *g, node_peer *p, const ecs_json_value *root)
{
    const ecs_json_doc *d = &g->net.doc;
    const char *cmd = node_json_str(d, root, "command");
    const ecs_json_value *args = ecs_json_member(d, root, "args");
    node_buf *b = &g->net.msg;
    const unsigned char *out;
    size_t n, at = 0;
    double seq;
    if (!node_json_int(d, root, "seq", 1, 4294967295.0, &seq) || (uint32_t)seq != p->known->inputs + 1u) return; /* seen, or early */
    node_world_fence(g);
    p->known->inputs = (uint32_t)seq; /* its client's, on every connection */
    g->net.inputs_applied = 1;
    b->len = 0;
    if (!cmd || (strcmp(cmd, "spawn") != 0 && strcmp(cmd, "world.set") != 0 && strcmp(cmd, "world.destroy") != 0)) {
        const char *name = cmd ? cmd : "(no command)";
        char text[160];
        size_t cut = strlen(name);
        if (cut > 60) /* at most 60 bytes of the name, not cutting a UTF-8 sequence */
            for (cut = 60; cut > 0 && ((unsigned char)name[cut] & 0xC0u) == 0x80u; --cut) continue;
        snprintf(text, sizeof text, "input %u: '%.*s' is no input (spawn, world.set, world.destroy)", (unsigned)seq,
                 (int)cut, name);
        node_buf_printf(b, "{\"type\": \"input_result\", \"seq\": %u, \"frame\": %u, \"reply\": {\"ok\": false, \"error\": ",
                        (unsigned)seq, (unsigned)g->frame);
        node_json_string(b, text, strlen(text)); /* the name may hold quotes, backslashes, control bytes */
        node_buf_put(b, "}}", 2);
        node_send(g, p, (const char *)b->p, b->len, NULL, 0);
        return;
    }
    node_buf_printf(b, "{\"type\": \"command\", \"id\": %u, \"command\": \"%s\", \"args\": ", (unsigned)seq, cmd);
    if (args && args->type == ECS_JSON_OBJECT) node_json_value(b, d, args);
    else node_buf_put(b, "{}", 2);
    node_buf_put(b, "}", 1);
    {
        unsigned char head[8];
        node_set32(head, 0);
        node_set32(head + 4, (uint32_t)b->len);
        ecs_console_feed(g->console, head, 8);
        ecs_console_feed(g->console, b->p, b->len);
    }
    out = ecs_console_feed_output(g->console, &n);
    while (at + 8 <= n) { /* the reply (log lines may come with it) */
        node_msg m;
        char why[100];
        if (node_msg_parse(out + at, n - at, NODE_MAX_MESSAGE, &m, why, sizeof why) != 1) break;
        if (m.json_len > 17 && memcmp(m.json, "{\"type\": \"reply\"", 16) == 0) {
            b->len = 0;
            node_buf_printf(b, "{\"type\": \"input_result\", \"seq\": %u, \"frame\": %u, \"reply\": %.*s}",
                            (unsigned)seq, (unsigned)g->frame, (int)m.json_len, m.json);
            node_send(g, p, (const char *)b->p, b->len, NULL, 0);
        }
        at += m.size;
    }
}

static void node_server_handle(engine *g, node_peer *p, const node_msg *m)
{
    const char *type = NULL;
    const ecs_json_value *root = node_parse_json(g, p, m, &type);
    double f;
    if (!root) return;
    if (strcmp(type, "hello") == 0) node_server_hello(g, p, root);
    else if (!p->joined) node_note(g, "client %u: '%.30s' before its hello, ignored", (unsigned)p->id, type);
    else if (strcmp(type, "ack") == 0) {
        if (node_json_int(&g->net.doc, root, "state", 0, (double)g->net.state_id, &f) && (int64_t)f > p->acked) p->acked = (int64_t)f;
    } else if (strcmp(type, "resync") == 0) {
        const char *why = node_json_str(&g->net.doc, root, "reason");
        g->net.resyncs++;
        node_note(g, "client %u asks for a full snapshot: %s", (unsigned)p->id, why ? why : "(no reason)");
        p->acked = p->sent = -1;
    } else if (strcmp(type, "input") == 0) node_server_input(g, p, root);
    else if (strcmp(type, "bye") == 0) node_peer_close(g, p, "it said bye");
    else if (strcmp(type, "alive") != 0) node_note(g, "client %u: message type '%.30s' unknown, ignored", (unsigned)p->id, type);
}

/* The ring's record of the current state (its digests, taken when it
   became the state), taken now if it is not there: NULL when that failed
   (noted). */
static node_snap *node_current_state(engine *g)
{
    node_state *s = &g->net;
    node_snap *r = &s->ring[(uint64_t)s->state_id % NODE_RING];
    ecs_error err;
    double t0;
    if (r->id == s->state_id) return r;
    node_world_fence(g); /* (r's digests) */
    t0 = cpu_ns();
    r->saved = 0;
    if (ecs_snapshot_world_digest(&g->world, &r->digest, &err) != ECS_OK) {
        node_note(g, "the digests of state %ld (frame %u) failed: %s", (long)s->state_id, (unsigned)g->frame, err.message);
        return NULL;
    }
    g->stat.hash_ns += cpu_ns() - t0;
    r->id = s->state_id;
    r->frame = g->frame;
    return r;
}

/* The current state's snapshot (a join, a resync, a base the ring lost),
   saved once: NULL when the save failed (noted). */
static const ecs_snapshot_output *node_state_blob(engine *g, node_snap *cur)
{
    ecs_snapshot_desc desc;
    ecs_error err;
    double t0 = cpu_ns();
    int ok;
    if (cur->saved) return &cur->blob;
    node_world_fence(g); /* (one reader of the world at a time) */
    memset(&desc, 0, sizeof desc);
    desc.flags = ECS_SNAPSHOT_REUSE_OUTPUT;
    ok = ecs_snapshot_save(&g->world, &desc, &cur->blob, &err) == ECS_OK;
    g->stat.save_ns += cpu_ns() - t0;
    g->stat.saves++;
    if (!ok) {
        node_note(g, "saving state %ld (frame %u) failed: %s", (long)cur->id, (unsigned)cur->frame, err.message);
        return NULL;
    }
    cur->saved = 1;
    return &cur->blob;
}

/* Sends p the current state: a delta against the newest state it
   acknowledged that the ring holds (written by the sender thread, once for
   every client with that base: a job), else the snapshot (saved once). The
   payload is shared by every message that carries it. */
static void node_send_state(engine *g, node_peer *p, node_snap *cur)
{
    node_state *s = &g->net;
    node_sender *w = &s->sender;
    int64_t base = p->acked;
    node_shared *sh;
    const ecs_snapshot_output *whole;
    uint64_t h = 0;
    char json[256];
    int n;
    if (p->sock < 0 || s->replaying || p->closing) return;
    if (base >= 0 && (base >= cur->id || s->ring[(uint64_t)base % NODE_RING].id != base)) base = -1;
    sh = node_shared_cached(w, base, cur->id); /* made for another client */
    if (!sh && base >= 0) {
        sh = node_shared_job(w, base, cur->id, &s->ring[(uint64_t)base % NODE_RING].digest, &cur->digest, &g->world);
    } else if (!sh) {
        if (!(whole = node_state_blob(g, cur))) return;
        sh = node_shared_payload(w, -1, cur->id, whole->data, whole->size);
    }
    if (!sh) {
        node_peer_close(g, p, "out of memory queueing a message");
        return;
    }
    node_hash_at(g, g->frame, &h);
    n = snprintf(json, sizeof json,
                 "{\"type\": \"state\", \"state\": %ld, \"frame\": %u, \"base\": %ld, \"hash\": \"%016llx\", \"inputs\": %u}",
                 (long)cur->id, (unsigned)cur->frame, (long)base, (unsigned long long)h, (unsigned)p->known->inputs);
    node_queue(g, p, json, (size_t)n, NULL, 0, sh);
    p->sent = cur->id;
    p->sent_ms = now_ms();
    s->states_sent++;
    s->full_sent += base < 0;
}

/* After a new state, and from the loop: every joined client that has not
   acknowledged the current state gets it (again after NODE_RESEND_MS). */
static void node_send_states(engine *g)
{
    node_state *s = &g->net;
    double t0 = now_ns(), now = t0 / 1e6, c0 = 0, d0 = 0;
    node_snap *cur = NULL;
    uint32_t k;
    for (k = 0; k < NODE_MAX_PEERS; ++k) {
        node_peer *p = &s->peers[k];
        if (!p->used || !p->joined || p->closing || p->acked == s->state_id ||
            node_out_pending(&s->sender, k) > NODE_MAX_OUT)
            continue;
        if (p->sent == s->state_id && now - p->sent_ms < NODE_RESEND_MS) continue;
        if (!cur) { /* timed once for all the clients (a CPU clock read is a system call), less saves and hashes */
            c0 = cpu_ns();
            d0 = g->stat.save_ns + g->stat.hash_ns;
            if (!(cur = node_current_state(g))) return;
        }
        node_send_state(g, p, cur); /* the delta, the message queued */
    }
    if (cur) { /* then handed to the sender, every client's at once */
        node_flush_all(g);
        g->stat.send_ns += cpu_ns() - c0 - (g->stat.save_ns + g->stat.hash_ns - d0);
    }
    s->net_ns += now_ns() - t0;
}

/* ---- the client ------------------------------------------------------------------------------ */

static void node_client_resync(engine *g, node_peer *p, int64_t id, const char *why)
{
    node_buf *b = &g->net.msg;
    g->net.resyncs++;
    node_note(g, "state %ld: %s: asking for a full snapshot", (long)id, why);
    b->len = 0;
    node_buf_printf(b, "{\"type\": \"resync\", \"state\": %ld, \"reason\": ", (long)id);
    node_json_string(b, why, strlen(why));
    node_buf_put(b, "}", 1);
    node_send(g, p, (const char *)b->p, b->len, NULL, 0);
}

/* Makes the ring slot of state id hold the state of the message: the
   snapshot itself, or the delta applied to the base it names. 1, or 0 and
   a resync asked (the reason noted). */
static int node_client_rebuild(engine *g, node_peer *p, int64_t id, int64_t base, const node_msg *m)
{
    node_state *s = &g->net;
    node_snap *slot = &s->ring[(uint64_t)id % NODE_RING];
    const node_snap *b = base >= 0 ? &s->ring[(uint64_t)base % NODE_RING] : NULL;
    ecs_snapshot_delta_hashes h;
    ecs_error err;
    char why[400];
    slot->id = -1;
    if (base < 0) { /* a copy: 16-byte aligned for the load */
        void *q = realloc(slot->blob.data, m->payload_len ? m->payload_len : 1u);
        if (!q) return node_client_resync(g, p, id, "out of memory"), 0;
        memcpy(q, m->payload, m->payload_len);
        slot->blob.data = q;
        slot->blob.size = m->payload_len;
        slot->hashed = 0;
        return 1;
    }
    if (b->id != base || b == slot) {
        snprintf(why, sizeof why, "a delta against state %ld, which this client does not hold", (long)base);
        return node_client_resync(g, p, id, why), 0;
    }
    {
        void *q = realloc(s->scratch.data, m->payload_len ? m->payload_len : 1u);
        if (!q) return node_client_resync(g, p, id, "out of memory"), 0; /* the old buffer kept (freed at the end) */
        s->scratch.data = q;
    }
    memcpy(s->scratch.data, m->payload, m->payload_len); /* aligned */
    h.known = b->hashed ? ECS_SNAPSHOT_BASE_HASH : 0u; /* its world hash, taken when it was loaded */
    h.base_hash = b->hash;
    if (ecs_snapshot_apply_delta_hashed(b->blob.data, b->blob.size, s->scratch.data, m->payload_len,
                                        ECS_SNAPSHOT_REUSE_OUTPUT, &h, &slot->blob, &err) != ECS_OK) {
        snprintf(why, sizeof why, "its delta does not apply to state %ld: %s", (long)base, err.message);
        return node_client_resync(g, p, id, why), 0;
    }
    slot->hash = h.next_hash;
    slot->hashed = 1;
    return 1;
}

/* Forgets the inputs up to seq applied (a state or a welcome said so). */
static void node_client_forget(engine *g, uint32_t applied)
{
    node_state *s = &g->net;
    while (s->num_inputs && s->inputs[0].seq <= applied) {
        free(s->inputs[0].text);
        memmove(s->inputs, s->inputs + 1, (s->num_inputs - 1u) * sizeof *s->inputs);
        s->num_inputs--;
    }
}

/* A state: rebuilt (snapshot or delta), loaded over the world, its world
   hash compared with the server's, acknowledged. */
static void node_client_state(engine *g, node_peer *p, const ecs_json_value *root, const node_msg *m)
{
    node_state *s = &g->net;
    const ecs_json_doc *d = &s->doc;
    double id, frame, base, inputs;
    uint64_t want, got;
    ecs_error err;
    node_snap *slot;
    if (!m->payload || !node_json_int(d, root, "state", 0, 9007199254740991.0, &id) ||
        !node_json_int(d, root, "frame", 0, 4294967295.0, &frame) || !node_json_int(d, root, "base", -1, id - 1, &base) ||
        !node_json_int(d, root, "inputs", 0, 4294967295.0, &inputs) || !node_parse_hash(node_json_str(d, root, "hash"), &want)) {
        s->bad_messages++;
        node_note(g, "a state message without a payload, or without a whole state, frame, base (-1 or an earlier "
                     "state), inputs or a 16-digit hash: ignored");
        return;
    }
    if ((int64_t)id <= s->state_id) { /* old, or seen: acknowledge the newest again */
        node_sendf(g, p, "{\"type\": \"ack\", \"state\": %ld}", (long)s->state_id);
        return;
    }
    if (!node_client_rebuild(g, p, (int64_t)id, (int64_t)base, m)) return;
    slot = &s->ring[(uint64_t)id % NODE_RING];
    if (ecs_snapshot_load(&g->world, slot->blob.data, slot->blob.size, ECS_SNAPSHOT_REPLACE, NULL, &err) != ECS_OK) {
        char why[400];
        snprintf(why, sizeof why, "its snapshot does not load: %s", err.message);
        node_client_resync(g, p, (int64_t)id, why);
        return;
    }
    slot->id = (int64_t)id;
    slot->frame = (uint32_t)frame;
    s->state_id = (int64_t)id;
    g->frame = (uint32_t)frame;
    if (base < 0) s->applied_full++;
    else s->applied_delta++;
    got = ecs_snapshot_world_hash(&g->world);
    slot->hash = got; /* the world hash of the state loaded: the next delta names its base by it */
    slot->hashed = 1;
    node_state_done(g, 0, got);
    if (got != want) {
        s->divergences++;
        node_note(g, "divergence at frame %u (state %ld): the server's world hash %016llx, this client's %016llx",
                  (unsigned)frame, (long)id, (unsigned long long)want, (unsigned long long)got);
    }
    node_sendf(g, p, "{\"type\": \"ack\", \"state\": %ld}", (long)id);
    node_client_forget(g, (uint32_t)inputs);
}

/* Sends every input not yet applied (after a welcome, and each NODE_INPUT_MS). */
static void node_client_send_inputs(engine *g, node_peer *p)
{
    uint32_t k;
    for (k = 0; k < g->net.num_inputs; ++k)
        node_sendf(g, p, "{\"type\": \"input\", \"seq\": %u, %s}", (unsigned)g->net.inputs[k].seq, g->net.inputs[k].text);
    g->net.inputs_ms = now_ms();
}

static void node_client_handle(engine *g, node_peer *p, const node_msg *m)
{
    node_state *s = &g->net;
    const char *type = NULL;
    const ecs_json_value *root = node_parse_json(g, p, m, &type);
    double id, applied = 0;
    if (!root) return;
    if (strcmp(type, "state") == 0) node_client_state(g, p, root, m);
    else if (strcmp(type, "welcome") == 0) {
        if (s->welcomed || !node_json_int(&s->doc, root, "client", 0, 4294967295.0, &id)) return;
        s->welcomed = 1;
        s->client_id = (uint32_t)id; /* (a state may come before the welcome: reordered) */
        (void)node_json_int(&s->doc, root, "inputs", 0, 4294967295.0, &applied);
        node_client_forget(g, (uint32_t)applied); /* applied on the connection before: the server knows our token */
        node_note(g, "joined %s:%d as client %u", s->host, s->server_port, (unsigned)s->client_id);
        node_client_send_inputs(g, p);
    } else if (strcmp(type, "refused") == 0) {
        const char *why = node_json_str(&s->doc, root, "error");
        snprintf(s->refused, sizeof s->refused, "%s", why ? why : "(no reason given)");
        node_note(g, "the server refused the join: %s", s->refused);
        node_peer_close(g, p, "refused");
    } else if (strcmp(type, "input_result") == 0) {
        const ecs_json_value *reply = ecs_json_member(&s->doc, root, "reply");
        const ecs_json_value *ok = reply ? ecs_json_member(&s->doc, reply, "ok") : NULL;
        const char *err = reply ? node_json_str(&s->doc, reply, "error") : NULL;
        if (g->console)
            ecs_console_log(g->console, ok && ok->type == ECS_JSON_TRUE ? ECS_CONSOLE_INFO : ECS_CONSOLE_WARNING,
                            "input applied by the server: %s", err ? err : "ok");
    } else if (strcmp(type, "alive") != 0) {
        node_note(g, "the server sent message type '%.30s', unknown: ignored", type);
    }
}

/* Connects to the server and says hello (again each NODE_HELLO_MS until
   welcomed). 1, or 0 with why. */
static int node_client_join(engine *g, char *why, size_t why_size)
{
    node_state *s = &g->net;
    node_peer *p;
    int fd;
    if (node_peer_by_id(g, 0)) return 1;
    s->refused[0] = 0;
    s->welcomed = 0;
    s->state_id = -1; /* a new connection: its first state is a full snapshot, whatever its number */
    if ((fd = node_connect(s->host, s->server_port, why, why_size)) < 0) return 0;
    p = node_peer_open(g, fd, 0);
    s->hello_ms = -1e18;
    return p != NULL;
}

static void node_client_tick(engine *g, node_peer *p, double now)
{
    node_state *s = &g->net;
    if (!s->welcomed && now - s->hello_ms >= NODE_HELLO_MS) {
        node_buf *b = &s->msg;
        const char *name = g->opt.node_name;
        b->len = 0, b->oom = 0;
        node_buf_printf(b, "{\"type\": \"hello\", \"protocol\": %u, \"byte_order\": \"%s\", \"name\": ", NODE_PROTOCOL,
                        node_byte_order());
        node_json_string(b, name, node_utf8_cut(name, strlen(name), NODE_NAME_MAX));
        node_buf_printf(b, ", \"token\": \"%016llx\", \"inputs\": %u}", (unsigned long long)s->token,
                        (unsigned)(s->num_inputs ? s->inputs[0].seq - 1u : s->next_seq - 1u)); /* the last known applied */
        if (!b->oom) node_send(g, p, (const char *)b->p, b->len, NULL, 0);
        s->hello_ms = now;
    }
    if (s->welcomed && s->num_inputs && now - s->inputs_ms >= NODE_INPUT_MS) node_client_send_inputs(g, p);
}

/* ---- the loop's part ---------------------------------------------------------------------------- */

/* The server takes new clients (over NODE_MAX_PEERS: refused and closed). */
static void node_accept(engine *g)
{
    for (;;) {
        int fd = (int)accept(g->net.listener, NULL, NULL);
        node_peer *p;
        if (fd < 0) return;
        if (!node_nonblocking(fd) || !(p = node_peer_open(g, fd, ++g->net.next_id))) {
            static const char full[] = "{\"type\": \"refused\", \"error\": \"the server is full (16 clients)\"}";
            unsigned char head[8];
            node_set32(head, 0);
            node_set32(head + 4, (uint32_t)(sizeof full - 1u));
            if (send(fd, head, 8, MSG_NOSIGNAL) == 8) (void)!send(fd, full, sizeof full - 1u, MSG_NOSIGNAL);
            close(fd);
            continue;
        }
    }
}

/* Keep-alives, and the node timeouts (none with timeouts off). */
static void node_keep(engine *g, node_peer *p, double now)
{
    if (!p->used || p->sock < 0) return;
    if (now - p->said_ms >= NODE_ALIVE_MS && !p->closing) node_sendf(g, p, "{\"type\": \"alive\"}");
    if (!g->net.timeouts_off && now - p->heard_ms >= NODE_IDLE_MS)
        node_peer_close(g, p, "nothing heard for 10 s (a node timeout: --no-timeouts or net.timeouts off turns it off)");
}

/* Once a loop: reads and handles what came, releases held messages, sends
   what is due, writes what is queued. Never blocks. */
static void node_poll(engine *g)
{
    node_state *s = &g->net;
    double now = now_ms();
    uint32_t k;
    if (!s->role || s->replaying) return;
    if (s->role == ROLE_SERVER) node_accept(g);
    for (k = 0; k < NODE_MAX_PEERS; ++k)
        if (s->peers[k].used && s->peers[k].sock >= 0) node_read(g, &s->peers[k]);
    node_release_held(g);
    if (s->role == ROLE_SERVER) {
        if (s->inputs_applied) node_check_change(g); /* a new state when they changed the world */
        s->inputs_applied = 0;
        node_send_states(g);
    }
    for (k = 0; k < NODE_MAX_PEERS; ++k) {
        node_peer *p = &s->peers[k];
        if (!p->used || p->sock < 0) continue;
        if (s->role == ROLE_CLIENT) node_client_tick(g, p, now);
        node_keep(g, p, now);
    }
    node_flush_all(g);
}

/* Sleeps until a node socket has something or ms passed (the console is
   polled on the loop's next turn). */
static void node_wait(engine *g, uint32_t ms)
{
    struct pollfd fds[NODE_MAX_PEERS + 1];
    nfds_t n = 0;
    uint32_t k;
    if (g->net.role == ROLE_SERVER) fds[n].fd = g->net.listener, fds[n].events = POLLIN, ++n;
    for (k = 0; k < NODE_MAX_PEERS; ++k)
        if (g->net.peers[k].used && g->net.peers[k].sock >= 0) {
            fds[n].fd = g->net.peers[k].sock;
            fds[n].events = POLLIN; /* and a client's full socket (a server's sender waits for its own) */
            if (!g->net.sender.running && node_out_pending(&g->net.sender, k)) fds[n].events |= POLLOUT;
            ++n;
        }
    if (g->net.num_held && ms > 1u) ms = 1u;
    (void)poll(fds, n, (int)ms);
}

/* ---- node commands ------------------------------------------------------------------------------- */

static void node_status_clients(engine *g, ecs_console_call *call)
{
    uint32_t k, n = 0;
    ecs_console_result_json(call, "[", 1);
    for (k = 0; k < NODE_MAX_PEERS; ++k) {
        const node_peer *p = &g->net.peers[k];
        if (!p->used || !p->joined) continue;
        ecs_console_result_printf(call, "%s{\"id\": %u, \"name\": ", n++ ? ", " : "", (unsigned)p->id);
        ecs_console_result_string(call, p->name, strlen(p->name));
        ecs_console_result_printf(call, ", \"acked\": %ld, \"inputs\": %u}", (long)p->acked, (unsigned)p->known->inputs);
    }
    ecs_console_result_json(call, "]", 1);
}

/* net.status: the node's role, frame, state and counters. */
static ecs_result cmd_net_status(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    node_state *s = &g->net;
    static const char *const roles[] = {"none", "server", "client"};
    ecs_console_result_printf(call, "{\"role\": \"%s\", \"frame\": %u, \"state\": %ld, \"port\": %d, ", roles[s->role],
                              (unsigned)g->frame, (long)s->state_id, s->role == ROLE_SERVER ? s->port : -1);
    ecs_console_result_printf(call, "\"joined\": %s, \"client\": %u, \"clients\": ",
                              s->role == ROLE_CLIENT && s->welcomed ? "true" : "false", (unsigned)s->client_id);
    node_status_clients(g, call);
    ecs_console_result_printf(call,
                              ", \"divergences\": %llu, \"resyncs\": %llu, \"applied_full\": %llu, \"applied_delta\": %llu, "
                              "\"states_sent\": %llu, \"full_sent\": %llu, \"bad_messages\": %llu, \"refused_joins\": %llu, "
                              "\"pending_inputs\": %u, \"timeouts\": \"%s\", \"refused\": ",
                              (unsigned long long)s->divergences, (unsigned long long)s->resyncs,
                              (unsigned long long)s->applied_full, (unsigned long long)s->applied_delta,
                              (unsigned long long)s->states_sent, (unsigned long long)s->full_sent,
                              (unsigned long long)s->bad_messages, (unsigned long long)s->refused_joins,
                              (unsigned)s->num_inputs, s->timeouts_off ? "off" : "on");
    ecs_console_result_string(call, s->refused, strlen(s->refused));
    return ecs_console_result_printf(call,
                                     ", \"faults\": {\"dropped\": %llu, \"duplicated\": %llu, \"delayed\": %llu, "
                                     "\"reordered\": %llu, \"held\": %u}}",
                                     (unsigned long long)s->faults.dropped, (unsigned long long)s->faults.duplicated,
                                     (unsigned long long)s->faults.delayed, (unsigned long long)s->faults.reordered,
                                     (unsigned)s->num_held);
}

/* net.hash frame: the world hash this node had at that frame (its last
   state of that frame). */
static ecs_result cmd_net_hash(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    uint32_t f;
    uint64_t h;
    ecs_result r = ecs_console_arg_u32(call, "frame", &g->frame, &f);
    if (r != ECS_OK) return r;
    if (!node_hash_at(g, f, &h))
        return ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "no hash kept for frame %u (this node is at frame %u; it keeps "
                                "the last %u frames it reached)", (unsigned)f, (unsigned)g->frame, NODE_HISTORY);
    return ecs_console_result_printf(call, "{\"frame\": %u, \"hash\": \"%016llx\"}", (unsigned)f, (unsigned long long)h);
}

/* net.timeouts [on|off]: every timeout of the console and the nodes. */
static ecs_result cmd_net_timeouts(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    const char *want;
    ecs_result r = ecs_console_arg_string(call, "state", g->net.timeouts_off ? "off" : "on", &want);
    if (r != ECS_OK) return r;
    if (strcmp(want, "on") != 0 && strcmp(want, "off") != 0)
        return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "argument 'state': '%.20s' (on or off)", want);
    node_set_timeouts(g, strcmp(want, "off") == 0);
    return ecs_console_result_printf(call, "{\"timeouts\": \"%s\"}", g->net.timeouts_off ? "off" : "on");
}

/* net.stats [reset]: since the last reset, per frame (means, in us): the
   whole frame and its node part (world hash, states, sends), in wall
   time and in this thread's CPU time; the node's steps in CPU time,
   wherever they ran (in frames, and between them: a changed world's
   hash, resends, a joining client's snapshot), send_us being what sending
   costs this thread (queueing, waking the sender), fence_us its wait for
   the sender's deltas before it changed the world; the server's sender
   thread's CPU time (sender_cpu_us, per frame too) and the part of it
   writing deltas (delta_us); the snapshots saved, the deltas made and the
   state bytes queued in all; and bytes_out, the bytes written to the
   peers' sockets since the start (not reset). */
static ecs_result cmd_net_stats(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    const struct net_stats *t = &g->stat;
    node_sender *w = &g->net.sender;
    uint32_t reset, zero = 0;
    double n = t->frames ? (double)t->frames * 1e3 : 1e3, sender_ns = 0, delta_ns;
    uint64_t deltas, state_bytes;
    ecs_result r = ecs_console_arg_u32(call, "reset", &zero, &reset);
    if (r != ECS_OK) return r;
    if (w->running) sender_ns = node_sender_cpu_ns(w);
    delta_ns = 0, deltas = state_bytes = 0;
    if (w->inited) {
        pthread_mutex_lock(&w->lock);
        delta_ns = w->job_ns, deltas = w->job_deltas, state_bytes = w->state_bytes;
        if (reset) w->job_ns = 0, w->job_deltas = w->state_bytes = 0;
        pthread_mutex_unlock(&w->lock);
    }
    ecs_console_result_printf(call, "{\"frames\": %u, \"frame_us\": %.3f, \"node_us\": %.3f, \"frame_cpu_us\": %.3f, "
                              "\"node_cpu_us\": %.3f, \"hash_us\": %.3f, \"save_us\": %.3f, \"send_us\": %.3f, "
                              "\"fence_us\": %.3f, \"sender_cpu_us\": %.3f, \"delta_us\": %.3f, \"saves\": %llu, "
                              "\"deltas\": %llu, \"state_bytes\": %llu, \"bytes_out\": %llu}",
                              (unsigned)t->frames, t->frame_ns / n, t->node_ns / n, t->frame_cpu_ns / n, t->node_cpu_ns / n,
                              t->hash_ns / n, t->save_ns / n, t->send_ns / n, t->fence_ns / n,
                              (sender_ns - t->sender_cpu0_ns) / n, delta_ns / n, (unsigned long long)t->saves,
                              (unsigned long long)deltas, (unsigned long long)state_bytes, (unsigned long long)node_bytes_out(w));
    if (reset) {
        memset(&g->stat, 0, sizeof g->stat);
        g->stat.sender_cpu0_ns = sender_ns;
    }
    return ECS_OK;
}

/* net.leave, net.join: a client leaves its server, joins it again. */
static ecs_result cmd_net_leave(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    node_peer *p = node_peer_by_id(g, 0);
    if (!p) return ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "not joined to a server");
    node_sendf(g, p, "{\"type\": \"bye\"}");
    node_flush(g, p);
    node_peer_close(g, p, "net.leave");
    return ecs_console_result_printf(call, "{\"left\": true, \"frame\": %u}", (unsigned)g->frame);
}

static ecs_result cmd_net_join(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    char why[300];
    if (node_peer_by_id(g, 0)) return ecs_console_fail(call, ECS_ERROR_ALREADY_EXISTS, "joined already (net.leave first)");
    if (!node_client_join(g, why, sizeof why)) return ecs_console_fail(call, ECS_ERROR_IO, "%s", why);
    return ecs_console_result_printf(call, "{\"joining\": \"%s:%d\"}", g->net.host, g->net.server_port);
}

/* A client's spawn, world.set, world.destroy: forwarded to the server as an
   input (its arguments as given), applied there, back in the states. */
static ecs_result cmd_forward(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    node_state *s = &g->net;
    const char *name = ecs_console_call_name(call);
    static const char *const args[] = {"prefab", "position", "entity", "component", "field", "value", "instance", "tree"};
    node_buf b;
    node_peer *p;
    uint32_t k, n = 0;
    memset(&b, 0, sizeof b);
    node_buf_printf(&b, "\"command\": \"%s\", \"args\": {", name);
    for (k = 0; k < sizeof args / sizeof args[0]; ++k) {
        const ecs_json_value *v = ecs_console_arg(call, args[k]);
        if (!v) continue;
        node_buf_printf(&b, "%s\"%s\": ", n++ ? ", " : "", args[k]);
        node_json_value(&b, ecs_console_call_doc(call), v);
    }
    node_buf_put(&b, "}\0", 2);
    if (!b.oom && s->num_inputs == s->inputs_cap) {
        node_input *q = (node_input *)realloc(s->inputs, (s->inputs_cap * 2u + 8u) * sizeof *q);
        if (q) s->inputs = q, s->inputs_cap = s->inputs_cap * 2u + 8u;
    }
    if (b.oom || s->num_inputs == s->inputs_cap) {
        node_buf_free(&b);
        return ecs_console_fail(call, ECS_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    s->inputs[s->num_inputs].seq = s->next_seq++;
    s->inputs[s->num_inputs++].text = (char *)b.p;
    if ((p = node_peer_by_id(g, 0)) != NULL && s->welcomed)
        node_sendf(g, p, "{\"type\": \"input\", \"seq\": %u, %s}", (unsigned)s->inputs[s->num_inputs - 1u].seq, (char *)b.p);
    return ecs_console_result_printf(call, "{\"forwarded\": true, \"input\": %u, \"frame\": %u, \"joined\": %s}",
                                     (unsigned)s->inputs[s->num_inputs - 1u].seq, (unsigned)g->frame,
                                     s->welcomed ? "true" : "false");
}

/* net.tamper (a client's; a test aid): moves the first node of the game
   world by one unit behind the server's back, as a client bug would, so
   that tools/scenarios/boxes.py --tamper shows a divergence being caught. */
static ecs_result cmd_net_tamper(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    ecs_mat4 m;
    if (!ecs_transform_count(&g->game)) return ecs_console_fail(call, ECS_ERROR_NOT_FOUND, "the game world is empty");
    m = *ecs_transform_local(&g->game, ecs_instance_make(0));
    m.m[12] += 1.0f;
    ecs_transform_set_local(&g->game, ecs_instance_make(0), &m);
    return ecs_console_result_printf(call, "{\"tampered\": true, \"frame\": %u}", (unsigned)g->frame);
}

/* net.fail_delta [count] (a server's; a test aid): the sender's next
   `count` deltas (default 1) fail as out of memory would, so that a test
   sees the clients refuse the empty delta and resynchronise. */
static ecs_result cmd_net_fail_delta(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    node_sender *w = &g->net.sender;
    uint32_t n, one = 1;
    ecs_result r = ecs_console_arg_u32(call, "count", &one, &n);
    if (r != ECS_OK) return r;
    if (!w->running) return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "this node has no sender thread");
    pthread_mutex_lock(&w->lock);
    w->fail_jobs = n;
    pthread_mutex_unlock(&w->lock);
    return ecs_console_result_printf(call, "{\"failing\": %u}", (unsigned)n);
}

static ecs_result cmd_client_refuses(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT,
                            "this node is a client of %s:%d: its world and frames come from the server (run %s there)",
                            g->net.host, g->net.server_port, ecs_console_call_name(call));
}

/* The node commands; on a client, the world-changing ones forward. */
static int node_commands(engine *g)
{
    ecs_console_command_desc cmds[] = {
        {"net.status", "the node: role, frame, state, clients, divergences, resyncs, faults", NULL, cmd_net_status, NULL},
        {"net.hash", "the world hash this node had at a frame (default: now)", "frame", cmd_net_hash, NULL},
        {"net.timeouts", "every timeout of the console and the nodes: on or off (no argument: tells)", "state",
         cmd_net_timeouts, NULL},
        {"net.stats", "mean us per frame since the last reset: the frame and its node part (wall, CPU), the node steps",
         "reset",
         cmd_net_stats, NULL},
        {"net.leave", "a client leaves its server", NULL, cmd_net_leave, NULL},
        {"net.join", "a client joins its server again", NULL, cmd_net_join, NULL},
        {"net.tamper", "a test aid: changes this client's world behind the server's back", NULL, cmd_net_tamper, NULL}};
    ecs_console_command_desc fail_delta = {"net.fail_delta", "a test aid: the sender's next deltas fail (out of memory)",
                                           "count", cmd_net_fail_delta, NULL};
    ecs_console_command_desc fwd[] = {
        {"spawn", "forwarded to the server as an input: a prefab at position [x, y, z]", "prefab position", cmd_forward, NULL},
        {"world.set", "forwarded to the server as an input", "entity component field value instance", cmd_forward, NULL},
        {"world.destroy", "forwarded to the server as an input", "entity tree", cmd_forward, NULL},
        {"world.load", "refused: a client's world comes from the server", "strict", cmd_client_refuses, NULL},
        {"frame.step", "refused: a client's frames come from the server", "frames", cmd_client_refuses, NULL},
        {"frame.pause", "refused: a client's frames come from the server", NULL, cmd_client_refuses, NULL},
        {"frame.resume", "refused: a client's frames come from the server", NULL, cmd_client_refuses, NULL}};
    ecs_error err;
    uint32_t k, n = g->net.role == ROLE_CLIENT ? 7u : 4u;
    for (k = 0; k < n; ++k) {
        cmds[k].user = g;
        if (ecs_console_add_command(g->console, &cmds[k], &err) != ECS_OK) return fail("node commands", &err);
    }
    for (k = 0; g->net.role == ROLE_CLIENT && k < sizeof fwd / sizeof fwd[0]; ++k) {
        fwd[k].user = g;
        ecs_console_remove_command(g->console, fwd[k].name);
        if (ecs_console_add_command(g->console, &fwd[k], &err) != ECS_OK) return fail("node commands", &err);
    }
    fail_delta.user = g;
    if (g->net.role == ROLE_SERVER && ecs_console_add_command(g->console, &fail_delta, &err) != ECS_OK)
        return fail("node commands", &err);
    return 0;
}

/* ---- start, replay, stop ------------------------------------------------------------------------- */

/* Whether every argument is text the START record can carry as JSON (a
   replay reads it back): 0, or 1 with a message naming the first that is
   not valid UTF-8 (bytes outside printable ASCII shown as \xNN). */
static int node_log_args_bad(engine *g, int argc, char **argv)
{
    node_buf b;
    ecs_error err;
    int a, bad = 0;
    size_t k;
    memset(&b, 0, sizeof b);
    for (a = 1; a < argc && !bad; ++a) {
        b.len = 0;
        node_json_string(&b, argv[a], strlen(argv[a]));
        if (!b.oom && ecs_json_parse(&g->net.doc, (const char *)b.p, b.len, &err) == ECS_OK) continue;
        bad = 1;
        fprintf(stderr, "engine: --log-traffic: argument %d '", a);
        for (k = 0; argv[a][k]; ++k) {
            unsigned char ch = (unsigned char)argv[a][k];
            if (ch >= 0x20u && ch < 0x7fu) fputc(ch, stderr);
            else fprintf(stderr, "\\x%02x", (unsigned)ch);
        }
        fprintf(stderr, "' is not text the log can hold (%s): its start record keeps the command line as JSON, "
                        "which must be valid UTF-8 for --replay to read it\n", b.oom ? "out of memory" : err.message);
    }
    node_buf_free(&b);
    return bad;
}

/* Writes the log's header and its START record (role and command line). */
static int node_open_log(engine *g, int argc, char **argv)
{
    node_buf b;
    int a;
    if (node_log_args_bad(g, argc, argv)) return 1;
    if (!(g->net.log = fopen(g->opt.log_traffic, "wb"))) {
        fprintf(stderr, "engine: --log-traffic %s: cannot write it: %s\n", g->opt.log_traffic, strerror(errno));
        return 1;
    }
    memset(&b, 0, sizeof b);
    node_log_header(&b);
    if (b.oom || fwrite(b.p, 1, b.len, g->net.log) != b.len) return node_buf_free(&b), 1;
    b.len = 0;
    node_buf_printf(&b, "{\"role\": \"%s\", \"protocol\": %u, \"byte_order\": \"%s\", \"args\": [",
                    g->net.role == ROLE_SERVER ? "server" : g->net.role == ROLE_CLIENT ? "client" : "none", NODE_PROTOCOL,
                    node_byte_order());
    for (a = 1; a < argc; ++a) {
        if (a > 1) node_buf_put(&b, ", ", 2);
        node_json_string(&b, argv[a], strlen(argv[a]));
    }
    node_buf_put(&b, "]}", 2);
    node_log(g, NODE_LOG_START, 0, b.p, b.len);
    node_buf_free(&b);
    return g->net.log ? 0 : 1;
}

/* A client's token (its name for itself in every hello of this run: the
   server applies its inputs once across its connections), and its --name
   checked: cut at NODE_NAME_MAX bytes, it must be text a hello can carry.
   0, or 1 with a message. */
static int node_client_token(engine *g)
{
    node_state *s = &g->net;
    const char *name = g->opt.node_name;
    uint64_t x = (uint64_t)now_ns() ^ (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)g;
    ecs_error err;
    int ok;
    x = (x ^ x >> 30) * 0xBF58476D1CE4E5B9ull; /* splitmix64's finish: the bits spread */
    x = (x ^ x >> 27) * 0x94D049BB133111EBull;
    s->token = x ^ x >> 31;
    s->msg.len = 0;
    node_json_string(&s->msg, name, node_utf8_cut(name, strlen(name), NODE_NAME_MAX));
    ok = !s->msg.oom && ecs_json_parse(&s->doc, (const char *)s->msg.p, s->msg.len, &err) == ECS_OK;
    if (!ok) fprintf(stderr, "engine: --name: not text a hello can carry: %s\n", s->msg.oom ? "out of memory" : err.message);
    return !ok;
}

/* Before the level: the role, the fault rule, the log, the listener (a port
   in use ends the start-up with a message), the node commands. */
static int node_open(engine *g, int argc, char **argv)
{
    node_state *s = &g->net;
    uint32_t k;
    char why[300];
    s->role = g->opt.serve_port >= 0 ? ROLE_SERVER : g->opt.join ? ROLE_CLIENT : s->role;
    snprintf(s->host, sizeof s->host, "%s", g->opt.join_host);
    s->server_port = g->opt.join_port;
    s->listener = -1;
    s->state_id = -1;
    s->next_seq = 1; /* inputs count from 1, on across connections (the hello's token) */
    for (k = 0; k < NODE_HISTORY; ++k) s->hist_frame[k] = -1;
    for (k = 0; k < NODE_RING; ++k) s->ring[k].id = -1;
    for (k = 0; k < NODE_MAX_PEERS; ++k) s->peers[k].sock = -1;
    if (node_sender_start(&s->sender, s->role == ROLE_SERVER && !s->replaying)) return 1;
    s->faults.rng = g->opt.fault_seed * 2654435761ull + 0x9E3779B97F4A7C15ull;
    if (g->opt.fault && !node_faults_parse(g->opt.fault, &s->faults, why, sizeof why)) {
        fprintf(stderr, "engine: %s\n", why);
        return 1;
    }
    if (g->opt.log_traffic && node_open_log(g, argc, argv)) return 1;
    if (s->role == ROLE_CLIENT && !s->replaying && node_client_token(g)) return 1;
    if (s->role == ROLE_SERVER && !s->replaying) {
        if ((s->listener = node_listen(g->opt.serve_port, &s->port, why, sizeof why)) < 0) {
            fprintf(stderr, "engine: --serve: cannot listen on %s\n", why);
            return 1;
        }
    }
    if (g->console && (s->role || s->replaying) && node_commands(g)) return 1;
    if (g->opt.no_timeouts) node_set_timeouts(g, 1);
    return 0;
}

/* After the level: the first state (the world as loaded), and the client's join. */
static int node_start(engine *g)
{
    node_state *s = &g->net;
    char why[300];
    if (!s->role && !s->log && !s->replaying) return 0;
    if (s->role != ROLE_CLIENT) node_frame_done(g); /* the server's state 0 */
    if (s->role == ROLE_SERVER && !s->replaying) printf("node: serving on 127.0.0.1:%d\n", s->port);
    if (s->role == ROLE_CLIENT && !s->replaying) {
        if (!node_client_join(g, why, sizeof why)) {
            fprintf(stderr, "engine: --join %s:%d: %s\n", s->host, s->server_port, why);
            return 1;
        }
        printf("node: joining %s:%d\n", s->host, s->server_port);
    }
    fflush(stdout);
    return 0;
}

static void node_stop(engine *g)
{
    node_state *s = &g->net;
    uint32_t k;
    node_peer *p = s->role == ROLE_CLIENT ? node_peer_by_id(g, 0) : NULL;
    if (p && !s->replaying) {
        node_sendf(g, p, "{\"type\": \"bye\"}");
        node_flush(g, p);
    }
    node_sender_end(&s->sender); /* joined: the peers' sockets close with no writer on them */
    for (k = 0; k < NODE_MAX_PEERS; ++k)
        if (s->peers[k].used) node_peer_close(g, &s->peers[k], NULL);
    if (s->listener >= 0) close(s->listener);
    for (k = 0; k < NODE_RING; ++k) {
        ecs_snapshot_output_free(&s->ring[k].blob);
        ecs_snapshot_digest_free(&s->ring[k].digest);
    }
    ecs_snapshot_digest_free(&s->now);
    ecs_snapshot_output_free(&s->scratch);
    for (k = 0; k < s->num_held; ++k) free(s->held[k].bytes);
    free(s->held);
    for (k = 0; k < s->num_inputs; ++k) free(s->inputs[k].text);
    free(s->inputs);
    if (s->log) fclose(s->log);
    node_buf_free(&s->logbuf);
    node_buf_free(&s->msg);
    ecs_json_doc_free(&s->doc);
}

/* --replay FILE: the node again from its log alone: its console requests
   fed to the in-process connection and its network messages to the
   handlers at the frames they came in, the frames run where the log ran
   them; at each FRAME record the world hash is compared. Returns the exit
   status: 0 every hash equal and the log whole, 3 equal up to a cut, 1 a
   difference. */
static int node_replay(engine *g, const unsigned char *log, size_t n)
{
    size_t at = NODE_LOG_HEADER, out;
    node_log_rec r;
    char why[400] = "";
    uint32_t frames = 0, equal = 0, records = 0;
    long first = -1;
    int got;
    while ((got = node_log_next(log, n, &at, &r, why, sizeof why)) == 1) {
        uint64_t want = 0, have = 0;
        uint32_t k;
        node_peer *closed;
        ++records;
        while (g->net.role != ROLE_CLIENT && r.kind != NODE_LOG_START && g->frame < r.frame && r.kind != NODE_LOG_NOTE &&
               r.kind != NODE_LOG_NET_OUT)
            if (run_frame(g, g->frame++)) return 1;
        if (r.kind == NODE_LOG_NET_IN) node_deliver(g, r.peer, r.body, r.body_len);
        else if (r.kind == NODE_LOG_NOTE && r.peer && g->net.role == ROLE_SERVER && (closed = node_peer_by_id(g, r.peer)))
            node_peer_close(g, closed, NULL); /* a client's connection closed */
        else if (r.kind == NODE_LOG_CONSOLE_IN) {
            ecs_console_feed(g->console, r.body, r.body_len);
            (void)ecs_console_feed_output(g->console, &out);
        }
        if (r.kind != NODE_LOG_FRAME) continue;
        for (k = 0; k < 8; ++k) want = want << 8 | r.body[k];
        if (r.peer == 1) { /* a change between frames: the world now */
            have = ecs_snapshot_world_hash(&g->world);
            g->net.hist_frame[r.frame % NODE_HISTORY] = r.frame;
            g->net.hist_hash[r.frame % NODE_HISTORY] = have;
        } else if (!node_hash_at(g, r.frame, &have)) have = ~want;
        ++frames;
        if (have == want) ++equal;
        else if (first < 0) first = (long)r.frame;
        if (!g->opt.quiet || have != want)
            printf("replay: frame %u hash %016llx %s\n", (unsigned)r.frame, (unsigned long long)have,
                   have == want ? "equal" : "DIFFERENT from the log's");
    }
    printf("report: replay records=%u frames=%u equal=%u first_difference=", (unsigned)records, (unsigned)frames,
           (unsigned)equal);
    if (first < 0) printf("none");
    else printf("%ld", first);
    printf(" end=%s\n", got == 0 ? "complete" : why);
    return equal != frames ? 1 : got == 0 ? 0 : 3;
}

/* A traffic log's START record: its role and args (an array), or 0 with
   why naming the step that failed. */
static int node_replay_start(const unsigned char *log, size_t n, ecs_json_doc *doc, const char **role,
                             const ecs_json_value **args, char *why, size_t why_size)
{
    node_log_rec r;
    size_t at = NODE_LOG_HEADER;
    ecs_error err;
    int got;
    if (!node_log_open(log, n, why, why_size)) return 0;
    if ((got = node_log_next(log, n, &at, &r, why, why_size)) != 1) {
        if (got == 0) snprintf(why, why_size, "the log has no records (its first must be a start record)");
        return 0;
    }
    if (r.kind != NODE_LOG_START) {
        snprintf(why, why_size, "its first record (offset %lu) is a %s record, not a start record", (unsigned long)r.offset,
                 node_log_kind_name(r.kind));
        return 0;
    }
    if (ecs_json_parse(doc, (const char *)r.body, r.body_len, &err) != ECS_OK) {
        snprintf(why, why_size, "its start record is not JSON: %s", err.message);
        return 0;
    }
    if (!(*role = node_json_str(doc, ecs_json_root(doc), "role"))) {
        snprintf(why, why_size, "its start record has no \"role\" (a string)");
        return 0;
    }
    *args = ecs_json_member(doc, ecs_json_root(doc), "args");
    if (!*args || (*args)->type != ECS_JSON_ARRAY) {
        snprintf(why, why_size, "its start record has no \"args\" (an array)");
        return 0;
    }
    return 1;
}

/* Reads a traffic log and its START record: the role and the command line
   it ran with (less the network, console and log switches). 0, or 1 with a
   message. *argv's strings point into the doc. */
static int node_replay_open(const char *path, unsigned char **log, size_t *n, int *role, ecs_json_doc *doc,
                            const char **argv, int *argc, int max_args)
{
    static const char *const dropped[] = {"--serve", "--join", "--console", "--console-address", "--log-traffic",
                                          "--fault", "--fault-seed", "--max-seconds", "--fps", "--frames", "--name"};
    char why[400] = "";
    const ecs_json_value *args, *v;
    const char *rs, *cause;
    if (!(*log = (unsigned char *)read_file(path, n, &cause)))
        return fprintf(stderr, "engine: --replay %s: cannot read it: %s\n", path, cause), 1;
    if (!node_replay_start(*log, *n, doc, &rs, &args, why, sizeof why)) {
        fprintf(stderr, "engine: --replay %s: %s\n", path, why);
        return 1;
    }
    *role = strcmp(rs, "server") == 0 ? ROLE_SERVER : strcmp(rs, "client") == 0 ? ROLE_CLIENT : ROLE_NONE;
    *argc = 1;
    for (v = ecs_json_first(doc, args); v && *argc < max_args; v = ecs_json_next(doc, v)) {
        const char *a = ecs_json_string(doc, v);
        uint32_t k, skip = 0;
        if (!a) continue;
        for (k = 0; k < sizeof dropped / sizeof dropped[0]; ++k) skip |= strcmp(a, dropped[k]) == 0;
        if (skip) v = ecs_json_next(doc, v);
        else if (strcmp(a, "--no-timeouts") != 0) argv[(*argc)++] = a;
        if (!v) break;
    }
    return 0;
}

/* ---- the console (--console) ------------------------------------------------------- */


/* frame.stats' ring: frame number, its time, entities alive after it */
static void record_frame_stat(engine *g, uint32_t frame, double ns)
{
    struct frame_stat *f = &g->frame_stats[g->frame_stats_count++ % 256u];
    f->frame = frame + 1u; /* frames done, as world.hash's frame counts them */
    f->entities = ecs_entity_count(&g->world.entities);
    f->us = (float)(ns / 1e3);
}

/* frame.stats: the frames recorded after `since` (at most the last 256),
   oldest first, for the inspector's plot */
static ecs_result cmd_frame_stats(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    uint32_t since, zero = 0, k, n = g->frame_stats_count < 256u ? g->frame_stats_count : 256u, listed = 0;
    ecs_result r = ecs_console_arg_u32(call, "since", &zero, &since);
    if (r != ECS_OK) return r;
    ecs_console_result_printf(call, "{\"frame\": %u, \"paused\": %s, \"fps\": %u, \"frames\": [", (unsigned)g->frame,
                              g->paused ? "true" : "false", (unsigned)g->opt.fps);
    for (k = g->frame_stats_count - n; k < g->frame_stats_count; ++k) {
        const struct frame_stat *f = &g->frame_stats[k % 256u];
        if (f->frame <= since) continue;
        ecs_console_result_printf(call, "%s[%u, %.1f, %u]", listed++ ? ", " : "", (unsigned)f->frame, (double)f->us,
                                  (unsigned)f->entities);
    }
    return ecs_console_result_json(call, "]}", 2);
}

/* The inspector page (examples/inspector.html, embedded line by line in
   examples/inspector_html.h) as one string for ecs_console_desc.page. */
static char *join_page(size_t *size)
{
    size_t k, n = 0, at = 0, count = sizeof inspector_html_lines / sizeof inspector_html_lines[0];
    char *page;
    for (k = 0; k < count; ++k) n += strlen(inspector_html_lines[k]);
    if (!(page = (char *)malloc(n + 1u))) return NULL;
    for (k = 0; k < count; ++k) {
        size_t len = strlen(inspector_html_lines[k]);
        memcpy(page + at, inspector_html_lines[k], len);
        at += len;
    }
    page[n] = 0;
    *size = n;
    return page;
}

/* frame.step: runs the frames now, inside the command, so that the reply
   (and every request after it) sees the world after them */
static ecs_result cmd_step(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    uint32_t n, one = 1, k;
    ecs_result r = ecs_console_arg_u32(call, "frames", &one, &n);
    if (r != ECS_OK) return r;
    if (n > 100000u)
        return ecs_console_fail(call, ECS_ERROR_INVALID_ARGUMENT, "argument 'frames': %u is more than 100000 at once",
                                (unsigned)n);
    for (k = 0; k < n; ++k)
        if (run_frame(g, g->frame++))
            return ecs_console_fail(call, ECS_ERROR_SPAWN_FAILED, "frame %u failed (the engine's output says why)",
                                    (unsigned)g->frame);
    ecs_console_set_frame(g->console, g->frame);
    return ecs_console_result_printf(call, "{\"frame\": %u, \"paused\": %s}", (unsigned)g->frame,
                                     g->paused ? "true" : "false");
}

static ecs_result cmd_pause(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    g->paused = 1;
    return ecs_console_result_printf(call, "{\"frame\": %u, \"paused\": true}", (unsigned)g->frame);
}

static ecs_result cmd_resume(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    g->paused = 0;
    return ecs_console_result_printf(call, "{\"frame\": %u, \"paused\": false}", (unsigned)g->frame);
}

static ecs_result cmd_quit(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    g->quit = 1;
    return ecs_console_result_printf(call, "{\"frame\": %u, \"quitting\": true}", (unsigned)g->frame);
}

/* The blob spawn's prefab argument names: "crate", or a prefab's JSON text
   (compiled into *compiled, which the caller frees). */
static ecs_result spawn_blob(engine *g, ecs_console_call *call, ecs_compiler_output *compiled, const void **blob,
                             size_t *size)
{
    const char *prefab;
    ecs_error err;
    ecs_result r = ecs_console_arg_string(call, "prefab", NULL, &prefab);
    if (r != ECS_OK) return r;
    if (prefab[0] == '{') {
        if ((r = ecs_compiler_compile(&g->compiler, prefab, strlen(prefab), ECS_COMPILER_PREFAB, compiled, &err)) != ECS_OK)
            return ecs_console_fail(call, r, "argument 'prefab': %s", err.message);
        *blob = compiled->blob;
        *size = compiled->size;
    } else if (strcmp(prefab, "crate") == 0) {
        *blob = g->crate.blob;
        *size = g->crate.size;
    } else {
        return ecs_console_fail(call, ECS_ERROR_NOT_FOUND,
                                "argument 'prefab': no prefab '%.64s' (the engine has: crate; or give a prefab's JSON)", prefab);
    }
    return ECS_OK;
}

/* spawn: a prefab at a position; its entities' ids */
static ecs_result cmd_spawn(void *user, ecs_console_call *call)
{
    engine *g = (engine *)user;
    ecs_compiler_output compiled;
    const void *blob = NULL;
    size_t size = 0;
    float at[3], zero[3] = {0.0f, 0.0f, 0.0f};
    ecs_entity *fresh;
    ecs_instance root;
    ecs_error err;
    uint32_t n, k;
    ecs_result r;
    memset(&compiled, 0, sizeof compiled);
    if ((r = ecs_console_arg_f32_array(call, "position", at, 3, zero)) != ECS_OK ||
        (r = spawn_blob(g, call, &compiled, &blob, &size)) != ECS_OK)
        return r;
    n = ecs_resource_num_entities(blob);
    if (!(fresh = (ecs_entity *)malloc((n + 1u) * sizeof *fresh))) r = ecs_console_fail(call, ECS_ERROR_OUT_OF_MEMORY, "out of memory");
    else if ((r = ecs_spawner_spawn(&g->spawner, &g->world.entities, blob, size, fresh, &err)) != ECS_OK)
        ecs_console_fail(call, r, "%s", err.message);
    if (r == ECS_OK) {
        root = ecs_transform_lookup(&g->game, fresh[0]);
        if (!ecs_instance_is_nil(root)) { /* the prefab's root stands at the position */
            ecs_mat4 m = *ecs_transform_local(&g->game, root);
            m.m[12] = at[0], m.m[13] = at[1], m.m[14] = at[2];
            ecs_transform_set_local(&g->game, root, &m);
        }
        ecs_console_result_printf(call, "{\"entity\": %lu, \"entities\": [", (unsigned long)fresh[0].id);
        for (k = 0; k < n; ++k) ecs_console_result_printf(call, k ? ", %lu" : "%lu", (unsigned long)fresh[k].id);
        r = ecs_console_result_json(call, "]}", 2);
    }
    free(fresh);
    ecs_compiler_output_free(&compiled);
    return r;
}

/* --console: the console on the world, the engine's commands, and the first
   output line, which tools read the port from. */
static int setup_console(engine *g)
{
    ecs_console_command_desc cmds[6] = {
        {"frame.step", "runs frames now (default 1), paused or not", "frames", cmd_step, NULL},
        {"frame.pause", "stops running frames (the console still answers)", NULL, cmd_pause, NULL},
        {"frame.resume", "runs frames again", NULL, cmd_resume, NULL},
        {"spawn", "spawns a prefab (crate, or a prefab's JSON) with its root at position [x, y, z]", "prefab position",
         cmd_spawn, NULL},
        {"quit", "ends the engine after this reply", NULL, cmd_quit, NULL},
        {"frame.stats", "the last frames' [frame, microseconds, entities] after `since` (at most 256)", "since",
         cmd_frame_stats, NULL}};
    ecs_console_desc desc;
    ecs_error err;
    uint32_t k;
    int node = g->opt.serve_port >= 0 || g->opt.join || g->opt.replay || g->opt.log_traffic;
    if (g->opt.console_port < 0 && !node) return 0;
    memset(&desc, 0, sizeof desc);
    desc.address = g->opt.console_address; /* NULL: 127.0.0.1 */
    desc.port = g->opt.replay ? -1 : g->opt.console_port; /* a node without --console: in-process only */
    desc.world = &g->world;
    desc.page = g->page = join_page(&desc.page_size); /* GET /: the inspector (NULL: the console's note) */
    desc.on_request = node_console_request; /* --log-traffic keeps them */
    desc.request_user = g;
    if (!(g->console = ecs_console_create(&desc, &err))) return fail("console", &err);
    for (k = 0; k < 6; ++k) {
        cmds[k].user = g;
        if (ecs_console_add_command(g->console, &cmds[k], &err) != ECS_OK) return fail("console commands", &err);
    }
    if (ecs_console_port(g->console) >= 0)
        printf("console: listening on %s:%d\n", g->opt.console_address ? g->opt.console_address : "127.0.0.1",
               ecs_console_port(g->console));
    fflush(stdout);
    return 0;
}

/* The loop with a console: polled once a frame, --fps frames a second while
   not paused, until quit (or --max-seconds); it sleeps in ecs_console_wait,
   which wakes up when a client sends something. */
static int run_console(engine *g)
{
    double started = now_ns(), next = started, frame_ns = 1e9 / (double)g->opt.fps, t0, wait;
    while (!g->quit) {
        ecs_console_set_frame(g->console, g->frame);
        t0 = now_ns();
        if (ecs_console_poll(g->console) && g->net.role == ROLE_SERVER) node_check_change(g);
        g->console_ns += now_ns() - t0;
        g->console_polls++;
        node_poll(g);
        if (g->quit || (g->opt.frames_given && g->frame >= g->opt.frames)) break;
        if (g->opt.max_seconds && now_ns() - started > (double)g->opt.max_seconds * 1e9) {
            printf("engine: --max-seconds %u passed, quitting\n", (unsigned)g->opt.max_seconds);
            ecs_console_log(g->console, ECS_CONSOLE_WARNING, "--max-seconds %u passed, quitting", (unsigned)g->opt.max_seconds);
            break;
        }
        if (!g->paused && g->net.role != ROLE_CLIENT && now_ns() >= next) {
            if (run_frame(g, g->frame++)) return 1;
            next += frame_ns;
            if (next < now_ns()) next = now_ns(); /* behind: no burst to catch up */
        }
        wait = g->paused || g->net.role == ROLE_CLIENT ? 100.0 : (next - now_ns()) / 1e6 + 0.999; /* whole ms: no spinning */
        if (g->net.role) /* the node's sockets; the console is polled on the next turn */
            node_wait(g, wait < 0 ? 0u : wait > 2.0 ? 2u : (uint32_t)wait);
        else
            ecs_console_wait(g->console, wait < 0 ? 0u : wait > 100.0 ? 100u : (uint32_t)wait);
    }
    ecs_console_log(g->console, ECS_CONSOLE_INFO, "the engine quits after frame %u", (unsigned)g->frame);
    ecs_console_flush(g->console, 2000); /* the reply to quit, and that line */
    return 0;
}

/* Compiles and spawns a level file; returns its entity count or -1. */
static long spawn_level_file(engine *g, const char *path)
{
    ecs_compiler_output out;
    ecs_error err;
    size_t len;
    const char *why = "";
    char *json = read_file(path, &len, &why);
    long n;
    double t0;
    if (!json) {
        fprintf(stderr, "engine: cannot read level %s: %s\n", path, why);
        if (strstr(path, "standard"))
            fprintf(stderr, "  make it with: cc -O2 examples/gen_level.c -o build/gen_level -lm && "
                            "mkdir -p build/levels && build/gen_level > build/levels/standard.json\n");
        return -1;
    }
    t0 = now_ns();
    if (ecs_compiler_compile(&g->compiler, json, len, 0, &out, &err)) {
        free(json);
        fail(path, &err);
        return -1;
    }
    free(json);
    if (ecs_spawner_spawn_jobs(&g->spawner, &g->world.entities, out.blob, out.size, 1, NULL, &g->jobs, &err)) {
        ecs_compiler_output_free(&out);
        fail(path, &err);
        return -1;
    }
    n = (long)ecs_resource_num_entities(out.blob);
    printf("level %s: %ld entities, %u bytes compiled and spawned in %.2f ms\n", path, n, (unsigned)out.size,
           (now_ns() - t0) / 1e6);
    ecs_compiler_output_free(&out);
    return n;
}

/* Gives --moving percent of the game world's nodes a velocity. */
static void pick_movers(engine *g)
{
    uint32_t i, n = ecs_transform_count(&g->game), p = g->opt.moving_percent;
    if (!p) return;
    motion_manager_reserve(&g->motion, (uint32_t)((uint64_t)n * p / 100u) + 1u);
    for (i = 0; i < n; ++i) {
        ecs_instance m;
        if ((uint64_t)i * p % 100u >= p) continue; /* p of every 100 nodes, spread out (p | 100: every 100/p-th) */
        m = motion_manager_create(&g->motion, ecs_transform_entity(&g->game, ecs_instance_make(i)));
        g->motion.velocity[m.i].x = (float)random_below(g, 200) / 100.0f - 1.0f;
        g->motion.velocity[m.i].z = (float)random_below(g, 200) / 100.0f - 1.0f;
    }
}

/* ---- one frame ------------------------------------------------------------------ */

/* pos += velocity * dt for every entity with a motion and a transform,
   written with one set_local_many (its subtree updates across the pool).
   A query walked by hand, not a declared system (ECS_WORLD_SYSTEM_DEFINE):
   the transform store is an ecs_store_interface with no field arrays for a
   typed view, so ecs_world_add_system refuses it (ecs.h SYSTEMS); the
   world drives from motion and looks the transforms up. Every other frame
   step is a store's own call (set_local_many, the plugins' tick, spawn,
   collect): no system here is over managers alone. */
static void frame_simulate(engine *g, float dt, uint32_t *moved)
{
    uint32_t k, n = motion_manager_count(&g->motion), count = 0;
    ecs_world_chunk c;
    g->move_nodes = (ecs_instance *)realloc(g->move_nodes, (n + 1u) * sizeof *g->move_nodes);
    g->move_locals = (ecs_mat4 *)realloc(g->move_locals, (n + 1u) * sizeof *g->move_locals);
    if (!g->move_nodes || !g->move_locals) {
        fprintf(stderr, "engine: out of memory\n");
        exit(1);
    }
    if (ecs_world_cursor_start(&g->cursor, &g->movers, 0, UINT32_MAX) != ECS_OK) return; /* a store left */
    while (ecs_world_cursor_next(&g->cursor, &c))
        for (k = 0; k < c.count; ++k) {
            const ecs_vec3 *v = &g->motion.velocity[ecs_world_chunk_instance(&c, 0, k)];
            ecs_instance t = ecs_instance_make(ecs_world_chunk_instance(&c, 1, k));
            g->move_nodes[count] = t;
            g->move_locals[count] = *ecs_transform_local(&g->game, t);
            g->move_locals[count].m[12] += v->x * dt;
            g->move_locals[count].m[14] += v->z * dt;
            ++count;
        }
    *moved = count;
}

static void frame_transforms(engine *g, uint32_t moved)
{
    ecs_transform_set_local_many_jobs(&g->game, moved, g->move_nodes, g->move_locals, &g->jobs);
}

static int frame_churn(engine *g)
{
    ecs_error err;
    uint32_t per = ecs_resource_num_entities(g->crate.blob), want = g->opt.spawn * per, k, d;
    if (g->crates_count + want > g->crates_capacity) { /* grow the FIFO, keeping order */
        uint32_t cap = (g->crates_count + want) * 2u;
        ecs_entity *q = (ecs_entity *)malloc(cap * sizeof *q);
        if (!q) return 1;
        for (k = 0; k < g->crates_count; ++k) q[k] = g->crates[(g->crates_head + k) % g->crates_capacity];
        free(g->crates);
        g->crates = q;
        g->crates_head = 0;
        g->crates_capacity = cap;
    }
    /* destroy the oldest crates (a crate and its lid) */
    for (d = 0; d < g->opt.destroy && g->crates_count >= per; ++d) {
        for (k = 0; k < per; ++k) {
            ecs_entity_destroy(&g->world.entities, g->crates[g->crates_head]);
            g->crates_head = (g->crates_head + 1u) % g->crates_capacity;
            --g->crates_count;
        }
        ++g->crates_destroyed;
    }
    if (g->opt.spawn) {
        ecs_entity *fresh = (ecs_entity *)malloc(want * sizeof *fresh);
        if (!fresh) return 1;
        /* verified once at setup: the spawner skips the checks */
        if (ecs_spawner_spawn_verified(&g->spawner, &g->world.entities, g->crate.blob, g->opt.spawn, fresh, &err)) {
            free(fresh);
            return fail("spawning crates", &err);
        }
        for (k = 0; k < want; ++k) {
            g->crates[(g->crates_head + g->crates_count) % g->crates_capacity] = fresh[k];
            ++g->crates_count;
        }
        /* scatter the new crates (their lids follow) */
        for (k = 0; k < want; k += per) {
            ecs_vec3 at;
            ecs_mat4 m;
            at.x = (float)random_below(g, 2000) / 10.0f - 100.0f;
            at.y = 0.0f;
            at.z = (float)random_below(g, 2000) / 10.0f - 100.0f;
            m = ecs_mat4_translation(at);
            ecs_transform_set_local(&g->game, ecs_transform_lookup(&g->game, fresh[k]), &m);
        }
        g->crates_spawned += g->opt.spawn;
        free(fresh);
    }
    return 0;
}

/* Crates die every frame: one call runs every store's exact collection (the
   plugins' managers too); each drops exactly the instances of the entities
   that died since its last call (it reads the entity manager's destroy log
   from its own cursor), so nothing dead outlives the frame. */
static void frame_collect(engine *g) { ecs_world_collect(&g->world, &g->jobs); }

static int run_frame(engine *g, uint32_t frame)
{
    const float dt = 1.0f / 60.0f;
    double t[SYS_COUNT + 1], cpu_start = 0, cpu_steps = 0, end, cpu_end;
    uint32_t moved = 0, s;
    const int node = g->net.role || g->net.log || g->net.replaying; /* hash and log each frame; net.stats reads the CPU times (a system call each) */
    ecs_error err;
    if (node) cpu_start = cpu_ns();
    t[0] = now_ns();
    node_world_fence(g); /* the sender's deltas of the last state are written (counted in the frame) */
    frame_simulate(g, dt, &moved);
    t[1] = now_ns();
    frame_transforms(g, moved);
    t[2] = now_ns();
    if (g->opt.reload && frame == g->opt.frames / 2 && g->have_spin) {
        ecs_plugin_info info;
        if (ecs_plugin_reload(g->registry, g->spin_plugin, &err))
            printf("frame %u: reload of spin failed, the old build goes on: %s\n", (unsigned)frame, err.message);
        else if (ecs_plugin_get_info(g->registry, g->spin_plugin, &info) == ECS_OK) {
            printf("frame %u: spin reloaded (reload %u, state kept at %p)\n", (unsigned)frame, (unsigned)info.reloads,
                   info.state);
            if (g->console) ecs_console_log(g->console, ECS_CONSOLE_INFO, "frame %u: spin reloaded", (unsigned)frame);
        }
    }
    if (frame % 16u == 0u) { /* picks up a rebuilt library */
        if (ecs_plugin_poll(g->registry, NULL, &err) != ECS_OK)
            printf("frame %u: a rebuilt plugin failed, the old build goes on: %s\n", (unsigned)frame, err.message);
        else if (err.message[0]) /* a build still writing the file */
            printf("frame %u: %s\n", (unsigned)frame, err.message);
    }
    ecs_plugin_tick(g->registry, dt);
    t[3] = now_ns();
    if (frame_churn(g)) return 1;
    t[4] = now_ns();
    frame_collect(g);
    t[5] = now_ns();
    for (s = 0; s < SYS_COUNT; ++s) {
        double d = t[s + 1] - t[s];
        g->system_ns[s] += d;
        if (d > g->system_max_ns[s]) g->system_max_ns[s] = d;
    }
    record_frame_stat(g, frame, t[5] - t[0]);
    if (node) {
        cpu_steps = cpu_ns();
        node_frame_done(g); /* nodes: the world hash, the log, the server's states */
        end = now_ns(), cpu_end = cpu_ns();
        g->stat.node_ns += end - t[5];
        g->stat.frame_ns += end - t[0];
        g->stat.node_cpu_ns += cpu_end - cpu_steps;
        g->stat.frame_cpu_ns += cpu_end - cpu_start;
        g->stat.frames++;
    }
    if (!g->console && (!g->opt.quiet || frame % (g->opt.frames / 10u + 1u) == 0 || frame + 1u == g->opt.frames))
        printf("frame %4u/%u: %6u entities, %3u moved, %7.1f us\n", (unsigned)frame + 1u, (unsigned)g->opt.frames,
               (unsigned)ecs_entity_count(&g->world.entities), (unsigned)moved, (t[5] - t[0]) / 1e3);
    return 0;
}

/* ---- --check-snapshot: save, load, the same frames again ------------------------ */

/* After frame `frame`: saves the world and the engine's state at check_at,
   records the world's hash after every later frame. */
static int check_record(engine *g, uint32_t frame)
{
    ecs_error err;
    if (!g->opt.check || frame < g->opt.check_at) return 0;
    if (frame > g->opt.check_at) {
        g->check_hash[frame] = ecs_snapshot_world_hash(&g->world);
        return 0;
    }
    if (ecs_snapshot_save(&g->world, NULL, &g->check_snap, &err) != ECS_OK) return fail("saving the snapshot", &err);
    g->check_hash = (uint64_t *)calloc(g->opt.frames, sizeof *g->check_hash);
    g->check_crates = (ecs_entity *)malloc((g->crates_capacity + 1u) * sizeof *g->check_crates);
    if (!g->check_hash || !g->check_crates) return 1;
    if (g->crates_capacity) memcpy(g->check_crates, g->crates, g->crates_capacity * sizeof *g->crates);
    g->check_rng = g->rng;
    g->check_head = g->crates_head;
    g->check_count = g->crates_count;
    g->check_capacity = g->crates_capacity;
    g->check_spawned = g->crates_spawned;
    g->check_destroyed = g->crates_destroyed;
    return 0;
}

/* Loads the saved world over the live one (ECS_SNAPSHOT_REPLACE), restores
   the engine's state and runs the frames after check_at again: every
   frame's hash must be the first run's. */
static int check_replay(engine *g)
{
    ecs_error err;
    uint32_t frame, equal = 0, frames = g->opt.frames - g->opt.check_at - 1u;
    if (ecs_snapshot_load(&g->world, g->check_snap.data, g->check_snap.size, ECS_SNAPSHOT_REPLACE, NULL, &err) != ECS_OK)
        return fail("loading the snapshot", &err);
    free(g->crates);
    g->crates = g->check_crates;
    g->check_crates = NULL;
    g->crates_head = g->check_head;
    g->crates_count = g->check_count;
    g->crates_capacity = g->check_capacity;
    g->crates_spawned = g->check_spawned;
    g->crates_destroyed = g->check_destroyed;
    g->rng = g->check_rng;
    g->opt.reload = 0; /* the same code in both runs */
    for (frame = g->opt.check_at + 1u; frame < g->opt.frames; ++frame) {
        if (run_frame(g, frame)) return 1;
        equal += ecs_snapshot_world_hash(&g->world) == g->check_hash[frame];
    }
    printf("report: snapshot_check at=%u bytes=%lu frames=%u equal=%u\n", (unsigned)g->opt.check_at + 1u,
           (unsigned long)g->check_snap.size, (unsigned)frames, (unsigned)equal);
    return equal == frames ? 0 : 1;
}

/* ---- report --------------------------------------------------------------------- */

static long peak_memory_kb(void)
{
#if defined(__unix__) || defined(__APPLE__)
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) return (long)ru.ru_maxrss;
#endif
    return -1;
}

static void report(engine *g, const char *when)
{
    ecs_manager *spin = ecs_plugin_find_manager(g->registry, "spin");
    printf("report: when=%s entities_alive=%u transforms_game=%u transforms_inventory=%u meshes=%u actors=%u "
           "movers=%u spins=%u crates_spawned=%u crates_destroyed=%u\n",
           when, (unsigned)ecs_entity_count(&g->world.entities), (unsigned)ecs_transform_count(&g->game),
           (unsigned)ecs_transform_count(&g->inventory), (unsigned)mesh_manager_count(&g->meshes),
           (unsigned)actor_manager_count(&g->actors), (unsigned)motion_manager_count(&g->motion),
           spin ? (unsigned)spin->count : 0u, (unsigned)g->crates_spawned, (unsigned)g->crates_destroyed);
}

static void report_times(engine *g)
{
    uint32_t s;
    double total = 0;
    for (s = 0; s < SYS_COUNT; ++s) total += g->system_ns[s];
    printf("report: time per frame (mean, max), %u frames:\n", (unsigned)g->opt.frames);
    for (s = 0; s < SYS_COUNT; ++s)
        printf("report:   %-10s %9.1f us %9.1f us\n", system_names[s], g->system_ns[s] / g->opt.frames / 1e3,
               g->system_max_ns[s] / 1e3);
    printf("report:   %-10s %9.1f us\n", "total", total / g->opt.frames / 1e3);
    if (g->console && g->console_polls)
        printf("report: console_poll_us=%.3f polls=%u (mean ecs_console_poll, clients' requests included)\n",
               g->console_ns / g->console_polls / 1e3, (unsigned)g->console_polls);
    printf("report: peak_memory_kb=%ld\n", peak_memory_kb());
}

/* FNV-1a over the game world's matrices in instance order: equal for every
   --threads N (the parallel calls give the serial results, bit for bit) */
static void report_world_hash(engine *g)
{
    const unsigned char *b = (const unsigned char *)g->game.world;
    size_t k, n = (size_t)g->game.count * sizeof *g->game.world;
    uint32_t h = 2166136261u;
    for (k = 0; k < n; ++k) h = (h ^ b[k]) * 16777619u;
    printf("report: world_hash=%08x threads=%u\n", (unsigned)h, (unsigned)g->opt.threads);
}

static void shutdown_engine(engine *g)
{
    node_stop(g);
    ecs_plugin_registry_destroy(g->registry); /* the plugins first: they use the rest */
    ecs_console_destroy(g->console);          /* after the registry: plugins' commands are gone */
    free(g->page);
    if (g->jobs.parallel_for) ecs_jobs_pool_destroy(&g->pool);
    ecs_compiler_output_free(&g->crate);
    ecs_compiler_free(&g->compiler);
    ecs_spawner_free(&g->spawner);
    ecs_world_free(&g->world); /* its tables and the entity manager; the stores are ours: */
    motion_manager_free(&g->motion);
    actor_manager_free(&g->actors);
    mesh_manager_free(&g->meshes);
    ecs_transform_manager_free(&g->inventory);
    ecs_transform_manager_free(&g->game);
    free(g->crates);
    free(g->check_crates);
    free(g->check_hash);
    ecs_snapshot_output_free(&g->check_snap);
    free(g->move_nodes);
    free(g->move_locals);
}

/* ---- arguments -------------------------------------------------------------------- */

static void usage(FILE *to)
{
    fprintf(to,
            "usage: engine [options]\n"
            "  --level FILE        level JSON (default build/levels/standard.json, from examples/gen_level.c)\n"
            "  --spin-level FILE   level with spin components (default examples/levels/spin_demo.json)\n"
            "  --plugins DIR       folder holding spin.so (default build/plugins)\n"
            "  --frames N          frames to run, at least 1 (default 120)\n"
            "  --spawn N           crates spawned per frame (default 12)\n"
            "  --destroy N         oldest crates destroyed per frame (default 10)\n"
            "  --moving PERCENT    share of objects that move (default 2)\n"
            "  --threads N         threads for spawning, transforms and collection (default 1)\n"
            "  --reload            hot-reload the spin plugin halfway through\n"
            "  --quiet             a progress line every 10%% instead of every frame\n"
            "  --check-snapshot F  save the world after frame F, run on, load it back over the\n"
            "                      live world and run the same frames again: every frame's\n"
            "                      world hash must be equal (report: snapshot_check ...)\n"
            "  --console PORT      the development console on PORT (0: a free one; the first output\n"
            "                      line says which), 127.0.0.1; runs until the command quit\n"
            "  --console-address A the address the console binds instead of 127.0.0.1 (IPv4)\n"
            "  --fps N             frames a second with --console while not paused (default 60)\n"
            "  --max-seconds N     with --console: quit after N seconds anyway (default 0: never)\n"
            "  --serve PORT        an authoritative node on 127.0.0.1:PORT (0: a free one; a line says\n"
            "                      \"node: serving on ADDRESS:PORT\"); clients get its states\n"
            "  --join HOST:PORT    a client of the server there: its world is the server's\n"
            "  --name NAME         the client's name in the server's notes (default: client; at most 60 bytes of UTF-8,\n"
            "                      longer ones cut)\n"
            "  --no-timeouts       no timeout of the console or the nodes (a debugger may stop it)\n"
            "  --log-traffic FILE  every message received (and sent) and each frame's world hash\n"
            "  --replay FILE       runs the node of FILE (a traffic log) again, no network: the same\n"
            "                      world hash at every frame (report: replay ...)\n"
            "  --fault SPEC        drop=P,dup=P,reorder=P,delay=N on incoming node messages\n"
            "  --fault-seed N      the fault rule's seed (default 1)\n"
            "  --help              this text\n");
}

static int parse_number(const char *s, uint32_t *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v > 100000000ul) return 0;
    *out = (uint32_t)v;
    return 1;
}

/* --join HOST:PORT into join_host and join_port. */
static int parse_join(options *o)
{
    const char *colon = strrchr(o->join, ':');
    uint32_t port;
    if (!colon || colon == o->join || (size_t)(colon - o->join) >= sizeof o->join_host || !parse_number(colon + 1, &port) ||
        port == 0 || port > 65535u) {
        fprintf(stderr, "engine: --join '%s': not HOST:PORT (e.g. 127.0.0.1:4000)\n", o->join);
        return 0;
    }
    memcpy(o->join_host, o->join, (size_t)(colon - o->join));
    o->join_host[colon - o->join] = '\0';
    o->join_port = (int)port;
    return 1;
}

static int parse_args(int argc, char **argv, options *o)
{
    int a;
    memset(o, 0, sizeof *o);
    o->level = "build/levels/standard.json";
    o->spin_level = "examples/levels/spin_demo.json";
    o->plugins = "build/plugins";
    o->frames = 120;
    o->spawn = 12;
    o->destroy = 10;
    o->moving_percent = 2;
    o->threads = 1;
    o->console_port = -1;
    o->serve_port = -1;
    o->fps = 60;
    o->fault_seed = 1;
    o->node_name = "client";
    for (a = 1; a < argc; ++a) {
        const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
        int ok = 1;
        if (strcmp(arg, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(arg, "--reload") == 0) o->reload = 1;
        else if (strcmp(arg, "--quiet") == 0) o->quiet = 1;
        else if (strcmp(arg, "--no-timeouts") == 0) o->no_timeouts = 1;
        else if (!val) ok = 0;
        else if (strcmp(arg, "--level") == 0) o->level = val, ++a;
        else if (strcmp(arg, "--spin-level") == 0) o->spin_level = val, ++a;
        else if (strcmp(arg, "--plugins") == 0) o->plugins = val, ++a;
        else if (strcmp(arg, "--frames") == 0) ok = parse_number(val, &o->frames) && o->frames >= 1u, o->frames_given = 1, ++a;
        else if (strcmp(arg, "--join") == 0) o->join = val, ++a;
        else if (strcmp(arg, "--name") == 0) o->node_name = val, ++a;
        else if (strcmp(arg, "--log-traffic") == 0) o->log_traffic = val, ++a;
        else if (strcmp(arg, "--replay") == 0) o->replay = val, ++a;
        else if (strcmp(arg, "--fault") == 0) o->fault = val, ++a;
        else if (strcmp(arg, "--fault-seed") == 0) {
            uint32_t seed;
            ok = parse_number(val, &seed), o->fault_seed = seed, ++a;
        } else if (strcmp(arg, "--serve") == 0) {
            uint32_t port;
            ok = parse_number(val, &port) && port <= 65535u, o->serve_port = (int)port, ++a;
        }
        else if (strcmp(arg, "--spawn") == 0) ok = parse_number(val, &o->spawn), ++a;
        else if (strcmp(arg, "--destroy") == 0) ok = parse_number(val, &o->destroy), ++a;
        else if (strcmp(arg, "--check-snapshot") == 0) ok = parse_number(val, &o->check_at), o->check = 1, ++a;
        else if (strcmp(arg, "--console") == 0) {
            uint32_t port;
            ok = parse_number(val, &port) && port <= 65535u, o->console_port = (int)port, ++a;
        } else if (strcmp(arg, "--console-address") == 0) o->console_address = val, ++a;
        else if (strcmp(arg, "--fps") == 0) ok = parse_number(val, &o->fps) && o->fps >= 1u && o->fps <= 1000u, ++a;
        else if (strcmp(arg, "--max-seconds") == 0) ok = parse_number(val, &o->max_seconds), ++a;
        else if (strcmp(arg, "--moving") == 0) ok = parse_number(val, &o->moving_percent) && o->moving_percent <= 100, ++a;
        else if (strcmp(arg, "--threads") == 0)
            ok = parse_number(val, &o->threads) && o->threads >= 1 && o->threads <= ECS_JOBS_POOL_MAX_THREADS, ++a;
        else ok = 0;
        if (!ok) {
            fprintf(stderr, "engine: bad argument '%s'%s%s\n", arg, val ? " " : "", val ? val : "");
            usage(stderr);
            return 0;
        }
    }
    if (o->check && (o->check_at == 0 || o->check_at >= o->frames)) {
        fprintf(stderr, "engine: --check-snapshot F needs 1 <= F < frames\n");
        return 0;
    }
    if (o->check) --o->check_at; /* frames count from 1 on the command line */
    if (o->log_traffic && o->console_port < 0 && o->serve_port < 0 && !o->join) o->frames_given = 1; /* --frames frames */
    if (o->join && !parse_join(o)) return 0;
    if (o->serve_port >= 0 && o->join) {
        fprintf(stderr, "engine: --serve and --join: a node is a server or a client, not both\n");
        return 0;
    }
    if (o->check && (o->console_port >= 0 || o->serve_port >= 0 || o->join || o->replay || o->log_traffic)) {
        fprintf(stderr, "engine: --check-snapshot runs a fixed number of frames: not with a console or a node\n");
        return 0;
    }
    return 1;
}

/* --replay: the options come from the log's START record (--quiet from
   the command line too). 0, or the exit status. */
static int replay_options(engine *g, int argc, char **argv, unsigned char **log, size_t *n, ecs_json_doc *doc)
{
    const char *args[128];
    int nargs = 0, role = ROLE_NONE, quiet = g->opt.quiet, a;
    const char *path = g->opt.replay;
    for (a = 1; a < argc; ++a)
        if (strcmp(argv[a], "--quiet") != 0 && strcmp(argv[a], "--replay") != 0 && (a == 1 || strcmp(argv[a - 1], "--replay") != 0)) {
            fprintf(stderr, "engine: --replay takes its options from the log (and --quiet): not '%s'\n", argv[a]);
            return 2;
        }
    if (node_replay_open(path, log, n, &role, doc, args, &nargs, 127)) return 1;
    args[0] = argv[0];
    if (!parse_args(nargs, (char **)args, &g->opt)) return 2;
    g->opt.replay = path;
    g->opt.quiet = quiet; /* the replay's own: the hash lines unless --quiet */
    g->opt.log_traffic = NULL;
    g->net.role = role;
    g->net.replaying = 1;
    return 0;
}

int main(int argc, char **argv)
{
    static engine g; /* zero-initialised */
    uint32_t frame;
    unsigned char *log = NULL;
    size_t log_size = 0;
    ecs_json_doc start;
    int rc = 1;
    memset(&start, 0, sizeof start);
    if (!parse_args(argc, argv, &g.opt)) return 2;
    if (g.opt.replay && (rc = replay_options(&g, argc, argv, &log, &log_size, &start)) != 0) {
        free(log);
        ecs_json_doc_free(&start);
        return rc;
    }
    rc = 1;
    g.rng = 0x5EED5EED1234ull;
    if (ecs_jobs_pool_create(&g.pool, g.opt.threads) != ECS_OK) {
        fprintf(stderr, "engine: could not start %u threads\n", (unsigned)g.opt.threads);
        return 1;
    }
    g.jobs = ecs_jobs_pool_jobs(&g.pool);
    if (setup_worlds(&g) || setup_console(&g) || node_open(&g, argc, argv) || setup_resources(&g) || setup_plugins(&g))
        goto done;
    if (spawn_level_file(&g, g.opt.level) < 0 || spawn_level_file(&g, g.opt.spin_level) < 0) goto done;
    pick_movers(&g);
    report(&g, "start");
    if (node_start(&g)) goto done;
    if (g.opt.replay) {
        rc = node_replay(&g, log, log_size);
        report(&g, "end");
        goto done;
    }
    if (g.console) {
        if (run_console(&g)) goto done;
        g.opt.frames = g.frame ? g.frame : 1u; /* the report's means */
    }
    for (frame = 0; !g.console && frame < g.opt.frames; ++frame)
        if (run_frame(&g, frame) || check_record(&g, frame)) goto done;
    report(&g, "end"); /* exact: every frame collected every store */
    report_times(&g);
    report_world_hash(&g);
    if (g.opt.check && check_replay(&g)) goto done;
    rc = 0;
done:
    shutdown_engine(&g);
    free(log);
    ecs_json_doc_free(&start);
    return rc;
}
