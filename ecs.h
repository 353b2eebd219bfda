/* ecs.h - v0.1 - data-oriented entities and component managers for C/C++
   Public domain or MIT (see end of file).

   Entities are 32-bit ids checked by one byte compare; components live in
   managers that store their data as structure-of-arrays in one allocation.
   The design follows the Bitsquid "data-oriented entity system" posts (2014).

   Do this in *one* C or C++ file:
       #define ECS_IMPLEMENTATION
       #include "ecs.h"
   and include "ecs.h" plainly everywhere else. The implementation uses
   stb_ds.h (hash maps); see STB_DS below.

TABLE OF CONTENTS
   QUICK START, ENTITIES, COMPONENT MANAGERS, CONFIGURATION, STB_DS, ERRORS,
   MEMORY AND POINTER STABILITY, THREADING, DOES NOT, LICENSE (end of file)

QUICK START (compiled and run by tests/check_quickstart.sh)

    #define ECS_IMPLEMENTATION
    #include "ecs.h"

    typedef struct vec3 { float x, y, z; } vec3;

    #define POINT_MASS_FIELDS(X) \
        X(float, mass)           \
        X(vec3,  position)       \
        X(vec3,  velocity)
    ECS_MANAGER_DEFINE(point_mass, POINT_MASS_FIELDS)

    static void point_mass_simulate(point_mass *pm, float dt) {
        uint32_t i, n = point_mass_count(pm);
        for (i = 0; i < n; ++i) {
            pm->position[i].x += pm->velocity[i].x * dt;
            pm->position[i].y += pm->velocity[i].y * dt;
            pm->position[i].z += pm->velocity[i].z * dt;
        }
    }

    int main(void) {
        ecs_entity_manager em;
        point_mass pm;
        ecs_entity e;
        ecs_instance i;
        ecs_entity_manager_init(&em);      // or = {0} in C
        e = ecs_entity_create(&em);
        point_mass_init(&pm, ECS_LOOKUP_HASH);
        i = point_mass_create(&pm, e);
        pm.mass[i.i] = 1.0f;
        pm.velocity[i.i].x = 2.0f;
        point_mass_simulate(&pm, 0.5f);
        ecs_entity_destroy(&em, e);
        point_mass_gc(&pm, &em);       // lazily drops the dead entity's data
        point_mass_free(&pm);
        ecs_entity_manager_free(&em);
        return 0;
    }

ENTITIES
   An ecs_entity is { uint32_t id }: bits 0..21 are the index, bits 22..29
   the generation, bits 30..31 are zero and yours (every function here masks
   them off). Index 0 is never handed out, so the all-zero entity is nil and
   is never alive. The manager keeps one generation byte per index and a FIFO
   queue of destroyed indices; an index is reused only while more than
   ECS_MINIMUM_FREE_INDICES indices wait in the queue. A destroy bumps the
   index's generation (one byte), so a dead id tests alive again only at its
   index's 2^ECS_GENERATION_BITS-th destroy and is handed out again one lap
   later: with the defaults, after 255 and 256 laps of at least 1025 destroys
   each through the queue. That wrap is the seed's accepted trade-off: hold
   an id across some 260,000 destroys and it may look alive again.
   ecs_entity_create / _create_many / _alive / _destroy / _destroy_many /
   _count, ecs_entity_index / _generation / _make / _is_nil. When every index
   is alive, create takes a queued index even below the threshold (a free
   index beats a failure); with the queue empty too it returns nil and sets
   em->error (ECS_ERROR_INDICES_EXHAUSTED). ecs_entity_on_destroy(em, fn,
   user) runs fn for every destroyed entity while it is still alive (for
   components that hold outside resources; fn may destroy other entities);
   ecs_entity_on_destroy_remove undoes it.

COMPONENT MANAGERS
   ECS_MANAGER_DEFINE(name, FIELDS) declares `name`, a struct with a typed
   pointer per field plus `entity`, and static inline one-line wrappers:
     name_init(m, lookup)   lookup is ECS_LOOKUP_HASH (sparse components,
                            stb_ds hash map) or ECS_LOOKUP_DENSE (an array
                            indexed by entity index, for near-universal ones)
     name_free(m)           name_reserve(m, n)         name_count(m)
     name_create(m, e)      adds an instance for e (an entity may own several)
     name_lookup(m, e)      e's first instance, or nil
     name_next(m, i)        the next instance of the same entity, or nil
     name_destroy(m, i)     swap-erase: the last instance moves into i
     name_destroy_entity(m, e)  every instance of e
     name_gc(m, em)         the seed's lazy collection of dead entities' data
     name_gc_all(m, em)     a full linear sweep (level unloads, exact reports)
   The fields are plain arrays: m->position[i.i] for i < name_count(m).
   All logic lives once in the ecs_manager_* functions over a runtime field
   table, so a plugin can define a layout at run time with ecs_manager_init.

   ecs_instance is { uint32_t i }, an index into the field arrays; nil is
   i == ECS_INSTANCE_NIL (0xFFFFFFFF). Iterate an entity's instances with
       for (i = name_lookup(m, e); !ecs_instance_is_nil(i); i = name_next(m, i))

CONFIGURATION (define before including; the same value in every file)
   ECS_INDEX_BITS            22    bits of index (max entities = 2^bits - 1)
   ECS_GENERATION_BITS       8     bits of generation, at most 8 (one byte)
   ECS_MINIMUM_FREE_INDICES  1024  queue length below which no index is reused
   Implementation file only:
   ECS_REALLOC(p, n), ECS_FREE(p)  allocator, both or neither (realloc/free);
                                   ECS_REALLOC(NULL, n) must allocate
   ECS_ASSERT(x)                   checks of arguments whose misuse would be
                                   undefined behaviour (default assert(); off
                                   with NDEBUG)
   ECS_NO_STB_DS_IMPLEMENTATION    you compile STB_DS_IMPLEMENTATION elsewhere

STB_DS
   The implementation includes "stb_ds.h" from the include path (Debian:
   apt-get install libstb-dev, then -I/usr/include/stb; a vendored copy:
   -Ipath/to/your/copy). The ECS_IMPLEMENTATION file also compiles stb_ds's
   implementation (with STBDS_NO_SHORT_NAMES) unless you define
   ECS_NO_STB_DS_IMPLEMENTATION because another file of yours defines
   STB_DS_IMPLEMENTATION: stb_ds must be compiled exactly once.

ERRORS
   Runtime failures (out of memory, exhausted index space, bad input in the
   other headers) return an ecs_result code or a nil value and leave a
   message in an ecs_error the caller owns: the entity manager's `error`
   member, the component manager's `core.error`, or an ecs_error* argument.
   Nothing is process-global. Misuse that is cheap to detect (nil or stale
   entity, out-of-range instance) is a safe no-op with a documented result.

MEMORY AND POINTER STABILITY
   Field array pointers (m->mass, ...) change when a manager grows: re-read
   them after create/reserve. Instance indices change when any instance of the
   same manager is destroyed or collected (swap-erase): look up again.
   The hash manager relies on stb_ds, which does not survive a failing
   allocator; the dense manager and the entity manager do.

THREADING
   No locks. Distinct managers may be used from distinct threads; one manager
   from several threads needs your own synchronisation. ecs_entity_alive may
   run concurrently with other alive calls.

DOES NOT
   keep a per-entity list of components (managers own that knowledge), call
   destructors of field data, run systems or schedule anything, serialise.
*/
#ifndef ECS_H_INCLUDED
#define ECS_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef ECS_INDEX_BITS
#define ECS_INDEX_BITS 22
#endif
#ifndef ECS_GENERATION_BITS
#define ECS_GENERATION_BITS 8
#endif
#ifndef ECS_MINIMUM_FREE_INDICES
#define ECS_MINIMUM_FREE_INDICES 1024
#endif

#if ECS_GENERATION_BITS < 1 || ECS_GENERATION_BITS > 8
#error "ECS_GENERATION_BITS must be 1..8: the manager stores one byte per index"
#endif
#if ECS_INDEX_BITS < 2 || ECS_INDEX_BITS + ECS_GENERATION_BITS > 30
#error "ECS_INDEX_BITS + ECS_GENERATION_BITS must be at most 30 (top two bits are the user's)"
#endif
#if ECS_MINIMUM_FREE_INDICES >= (1 << ECS_INDEX_BITS) - 1
#error "ECS_MINIMUM_FREE_INDICES must be smaller than the index space"
#endif

#define ECS_INDEX_MASK ((1u << ECS_INDEX_BITS) - 1u)
#define ECS_GENERATION_MASK ((1u << ECS_GENERATION_BITS) - 1u)
#define ECS_INSTANCE_NIL 0xFFFFFFFFu

#ifdef __cplusplus
extern "C" {
#endif

/* ---- results and errors -------------------------------------------------
   One list gives the codes and their default text, so they never drift. */
#define ECS__RESULT_LIST(X)                                                   \
    X(ECS_OK, "ok")                                                           \
    X(ECS_ERROR_OUT_OF_MEMORY, "out of memory")                               \
    X(ECS_ERROR_INDICES_EXHAUSTED, "entity index space exhausted")            \
    X(ECS_ERROR_INVALID_ARGUMENT, "invalid argument")                         \
    X(ECS_ERROR_NOT_FOUND, "not found")                                       \
    X(ECS_ERROR_ALREADY_EXISTS, "already exists")                             \
    X(ECS_ERROR_CYCLE, "link would create a cycle")                           \
    X(ECS_ERROR_JSON, "malformed JSON")                                       \
    X(ECS_ERROR_COMPILE, "compile error")                                     \
    X(ECS_ERROR_UNKNOWN_COMPONENT, "unknown component type")                  \
    X(ECS_ERROR_NAME_COLLISION, "two names hash to the same identifier")      \
    X(ECS_ERROR_NON_CANONICAL_PATH, "path is not canonical")                  \
    X(ECS_ERROR_CORRUPT_RESOURCE, "corrupt resource")                         \
    X(ECS_ERROR_WRONG_BYTE_ORDER, "wrong byte order")                         \
    X(ECS_ERROR_SPAWN_FAILED, "spawn failed")                                 \
    X(ECS_ERROR_IO, "input/output error")                                     \
    X(ECS_ERROR_PLUGIN_LOAD, "plugin library could not be loaded")            \
    X(ECS_ERROR_PLUGIN_NO_ENTRY, "plugin has no get_plugin_api")              \
    X(ECS_ERROR_PLUGIN_VERSION, "plugin speaks no plugin API version we know") \
    X(ECS_ERROR_PLUGIN_INIT, "plugin init failed")                            \
    X(ECS_ERROR_API_VERSION, "API version not available")

#define ECS__RESULT_ENUM(code, text) code,
/** Result codes: ECS_OK (0) or an ECS_ERROR_* value. */
typedef enum ecs_result { ECS__RESULT_LIST(ECS__RESULT_ENUM) ECS__RESULT_COUNT } ecs_result;
#undef ECS__RESULT_ENUM

/** An error the caller owns: a code and a human-readable message. */
typedef struct ecs_error {
    ecs_result code;
    char message[256];
} ecs_error;

/** The code's name, e.g. "ECS_ERROR_OUT_OF_MEMORY"; "?" for unknown values. */
const char *ecs_result_name(ecs_result code);
/** The code's default text, e.g. "out of memory". */
const char *ecs_result_text(ecs_result code);
/** Sets err (if non-NULL) to code and a printf-formatted message; returns code. */
ecs_result ecs_error_set(ecs_error *err, ecs_result code, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/** Clears err (if non-NULL) to ECS_OK and an empty message. */
void ecs_error_clear(ecs_error *err);

/* ---- entities ------------------------------------------------------------ */

/** An entity id: index in bits 0..ECS_INDEX_BITS-1, generation above it. */
typedef struct ecs_entity {
    uint32_t id;
} ecs_entity;

/** Called for every destroyed entity while ecs_entity_alive is still true. */
typedef void (*ecs_entity_destroy_fn)(void *user, ecs_entity e);

typedef struct ecs_entity__callback {
    ecs_entity_destroy_fn fn;
    void *user;
} ecs_entity__callback;

/** Tracks which entities are alive. Zero-initialised is a valid empty manager.
    Read-only members for the curious: `max_index` (the highest index handed
    out so far), `num_free` (queued indices). */
typedef struct ecs_entity_manager {
    uint8_t *generation;       /* one byte per index */
    uint32_t max_index;        /* highest index handed out so far, 0 when none */
    uint32_t capacity;         /* allocated bytes of `generation` */
    uint32_t *free_ring;       /* FIFO of destroyed indices, stored as the id each
                                  index will carry when reissued (ring buffer) */
    uint32_t free_head;        /* ring position of the queue's front */
    uint32_t num_free;         /* indices waiting in the queue */
    uint32_t free_capacity;    /* ring size, a power of two (or 0) */
    uint32_t num_retired;      /* indices lost to out-of-memory while queueing */
    ecs_entity__callback *callbacks;
    uint32_t num_callbacks, callbacks_capacity;
    ecs_entity *destroying;    /* entities whose callbacks are running */
    uint32_t num_destroying, destroying_capacity;
    ecs_error error;           /* the last failure, for the caller to read */
} ecs_entity_manager;

/** Same as zero-initialising *em. */
void ecs_entity_manager_init(ecs_entity_manager *em);
/** Frees all memory; *em is then a valid empty manager again. */
void ecs_entity_manager_free(ecs_entity_manager *em);

/** Creates an entity. Returns the nil entity (id 0) only when the index space
    is exhausted and no index is queued, or when memory runs out; em->error
    then says which, and nothing else changed. (Inline fast path.) */
static inline ecs_entity ecs_entity_create(ecs_entity_manager *em);
/** Creates n entities into out[0..n-1] with one growth and one pass. All or
    nothing: on failure (returns the error code, em->error set) no entity was
    created and out is filled with nil. */
ecs_result ecs_entity_create_many(ecs_entity_manager *em, uint32_t n, ecs_entity *out);
/** True when e is alive. Safe on any value: nil, stale, forged, out of range. */
static inline int ecs_entity_alive(const ecs_entity_manager *em, ecs_entity e);
/** Destroys e: runs the destroy callbacks (e still alive for them), bumps the
    generation and queues the index. Returns 1, or 0 (a no-op) when e is nil,
    dead or already being destroyed. Callbacks may destroy other entities. */
static inline int ecs_entity_destroy(ecs_entity_manager *em, ecs_entity e);
/** Destroys each of es[0..n-1]; returns how many were alive and destroyed. */
uint32_t ecs_entity_destroy_many(ecs_entity_manager *em, uint32_t n, const ecs_entity *es);
/** Registers fn(user, e) to run for every destroyed entity, in registration
    order. Returns ECS_OK or ECS_ERROR_OUT_OF_MEMORY. */
ecs_result ecs_entity_on_destroy(ecs_entity_manager *em, ecs_entity_destroy_fn fn, void *user);
/** Removes the first registration of (fn, user). ECS_OK, or
    ECS_ERROR_NOT_FOUND. Not from inside a destroy callback. */
ecs_result ecs_entity_on_destroy_remove(ecs_entity_manager *em, ecs_entity_destroy_fn fn, void *user);
/** Number of entities alive. */
uint32_t ecs_entity_count(const ecs_entity_manager *em);

/** The index part of e (bits above the generation ignored). */
static inline uint32_t ecs_entity_index(ecs_entity e) { return e.id & ECS_INDEX_MASK; }
/** The generation part of e. */
static inline uint32_t ecs_entity_generation(ecs_entity e) { return (e.id >> ECS_INDEX_BITS) & ECS_GENERATION_MASK; }
/** Builds an id from index and generation (no check that it is alive). */
static inline ecs_entity ecs_entity_make(uint32_t index, uint32_t generation)
{
    ecs_entity e;
    e.id = (index & ECS_INDEX_MASK) | ((generation & ECS_GENERATION_MASK) << ECS_INDEX_BITS);
    return e;
}
/** True for the nil entity (index 0). */
static inline int ecs_entity_is_nil(ecs_entity e) { return (e.id & ECS_INDEX_MASK) == 0; }

static inline int ecs_entity_alive(const ecs_entity_manager *em, ecs_entity e)
{
    uint32_t idx = e.id & ECS_INDEX_MASK;
    /* idx - 1 < max_index rejects index 0 and indices never handed out. */
    return idx - 1u < em->max_index &&
           em->generation[idx] == (uint8_t)((e.id >> ECS_INDEX_BITS) & ECS_GENERATION_MASK);
}

/* The general paths (growth, exhaustion, callbacks, queue growth). */
ecs_entity ecs_entity__create_slow(ecs_entity_manager *em);
int ecs_entity__destroy_slow(ecs_entity_manager *em, ecs_entity e);

static inline ecs_entity ecs_entity_create(ecs_entity_manager *em)
{
    ecs_entity e;
    uint32_t n = em->max_index + 1u;
    if (em->num_free > ECS_MINIMUM_FREE_INDICES) { /* the queue's front */
        e.id = em->free_ring[em->free_head];
        em->free_head = (em->free_head + 1u) & (em->free_capacity - 1u);
        --em->num_free;
    } else if (n < em->capacity) {                 /* a fresh index (generation 0) */
        em->max_index = n;
        e.id = n;
    } else {
        return ecs_entity__create_slow(em);
    }
    return e;
}

static inline int ecs_entity_destroy(ecs_entity_manager *em, ecs_entity e)
{
    uint32_t idx = e.id & ECS_INDEX_MASK, gen;
    if (em->num_callbacks || em->num_free == em->free_capacity) return ecs_entity__destroy_slow(em, e);
    if (!ecs_entity_alive(em, e)) return 0;
    gen = (em->generation[idx] + 1u) & ECS_GENERATION_MASK;
    em->generation[idx] = (uint8_t)gen;
    em->free_ring[(em->free_head + em->num_free) & (em->free_capacity - 1u)] = idx | (gen << ECS_INDEX_BITS);
    ++em->num_free;
    return 1;
}

/* ---- component managers (runtime core) ---------------------------------- */

/** A handle to one component instance: an index into the field arrays. */
typedef struct ecs_instance {
    uint32_t i;
} ecs_instance;

static inline ecs_instance ecs_instance_make(uint32_t i) { ecs_instance r; r.i = i; return r; }
static inline ecs_instance ecs_instance_nil(void) { return ecs_instance_make(ECS_INSTANCE_NIL); }
static inline int ecs_instance_is_nil(ecs_instance i) { return i.i == ECS_INSTANCE_NIL; }

/** How a manager maps entities to instances. */
typedef enum ecs_lookup_kind {
    ECS_LOOKUP_HASH = 0,  /* stb_ds hash map keyed by entity id: sparse components */
    ECS_LOOKUP_DENSE = 1  /* array indexed by entity index: near-universal ones */
} ecs_lookup_kind;

/** One field of a component layout. */
typedef struct ecs_field_desc {
    const char *name;
    uint32_t size;   /* bytes per instance */
    uint32_t align;  /* alignment; arrays are aligned to max(align, 16) */
} ecs_field_desc;

typedef struct ecs_manager__map_entry {
    uint32_t key;    /* entity id */
    uint32_t value;  /* first instance */
} ecs_manager__map_entry;

typedef struct ecs_manager__dense_entry {
    uint32_t id;     /* entity id that owns `first` (0: none) */
    uint32_t first;  /* first instance */
} ecs_manager__dense_entry;

/** A component manager over a runtime field table. The typed managers made by
    ECS_MANAGER_DEFINE embed one as `core`. */
typedef struct ecs_manager {
    uint32_t count;               /* instances in use */
    uint32_t capacity;            /* instances allocated */
    void *buffer;                 /* the one allocation for all field arrays */
    ecs_entity *entity;           /* instance -> owning entity */
    void **field;                 /* field k's array (num_fields pointers) */
    ecs_field_desc *fields;       /* copy of the field table */
    uint32_t num_fields;
    uint32_t bytes_per_instance;  /* sum of field sizes, entity included */
    uint32_t *next;               /* instance -> next instance of its entity;
                                     NULL until an entity owns two instances */
    ecs_lookup_kind lookup;
    ecs_manager__dense_entry *dense; /* entity index -> (id, first instance) */
    uint32_t dense_capacity;
    ecs_manager__map_entry *hash; /* stb_ds hash map entity id -> first instance */
    uint32_t rng;                 /* gc's random state */
    ecs_error error;              /* the last failure */
} ecs_manager;

/** Initialises m for the given fields (the table and the names are copied:
    the caller's may go away). Fields: at least one. Returns ECS_OK, or
    ECS_ERROR_INVALID_ARGUMENT / ECS_ERROR_OUT_OF_MEMORY (m is then empty). */
ecs_result ecs_manager_init(ecs_manager *m, const ecs_field_desc *fields, uint32_t num_fields,
                            ecs_lookup_kind lookup);
/** Frees everything; m must be initialised again before use. */
void ecs_manager_free(ecs_manager *m);
/** Makes room for n instances in total; ECS_OK or ECS_ERROR_OUT_OF_MEMORY
    (nothing changed). */
ecs_result ecs_manager_reserve(ecs_manager *m, uint32_t n);
/** Adds an instance for e (zero-filled fields) after e's other instances.
    Returns nil for a nil entity (ECS_ERROR_INVALID_ARGUMENT) or when memory
    runs out (ECS_ERROR_OUT_OF_MEMORY); m->error says which, nothing changed.
    The manager does not know which entities are alive: gc does. */
ecs_instance ecs_manager_create(ecs_manager *m, ecs_entity e);
/** ecs_manager_create without zero-filling the fields (the caller writes
    every field: the typed wrappers and ecs_manager_spawn use it). */
static inline ecs_instance ecs_manager_create_uninitialized(ecs_manager *m, ecs_entity e);
ecs_instance ecs_manager__create_slow(ecs_manager *m, ecs_entity e);
/** e's first instance, or nil (also for nil, stale and unknown entities).
    Dense managers answer inline with one memory access. */
static inline ecs_instance ecs_manager_lookup(const ecs_manager *m, ecs_entity e);
ecs_instance ecs_manager__lookup_hash(const ecs_manager *m, uint32_t id);
/** The next instance of the same entity, or nil. */
ecs_instance ecs_manager_next(const ecs_manager *m, ecs_instance i);
/** Swap-erase: removes i, moves the last instance into i, fixes lookups and
    next links. Returns 1, or 0 for a nil or out-of-range instance. */
int ecs_manager_destroy(ecs_manager *m, ecs_instance i);
/** Destroys every instance of e; returns how many. */
uint32_t ecs_manager_destroy_entity(ecs_manager *m, ecs_entity e);
/** The seed's lazy collection: look at random instances, destroy those whose
    entity is dead, stop after 4 alive in a row. Returns how many it destroyed.
    Cheap when nothing is dead; call it every frame. */
uint32_t ecs_manager_gc(ecs_manager *m, const ecs_entity_manager *em);
/** A full sweep: destroys every instance whose entity is dead, in one linear
    pass from the end. O(count); for level unloads, tools and exact reports,
    where gc's random sampling would leave stragglers. Returns how many. */
uint32_t ecs_manager_gc_all(ecs_manager *m, const ecs_entity_manager *em);
/** Copies instance `from` (all fields and entity) over instance `to` and
    points e's lookup/next links at `to`; `from` is left as it was. Both must
    be < capacity. For managers that keep links of their own (transforms). */
void ecs_manager_move(ecs_manager *m, uint32_t from, uint32_t to);
/** Pointer to field k's value for instance i (no checks). */
static inline void *ecs_manager_field(const ecs_manager *m, uint32_t k, uint32_t i)
{
    return (char *)m->field[k] + (size_t)i * m->fields[k].size;
}
static inline ecs_instance ecs_manager_create_uninitialized(ecs_manager *m, ecs_entity e)
{
    uint32_t id = e.id & (ECS_INDEX_MASK | (ECS_GENERATION_MASK << ECS_INDEX_BITS)), idx = id & ECS_INDEX_MASK;
    uint32_t i = m->count;
    /* dense fast path: room, and the entity owns no instance yet */
    if (m->lookup == ECS_LOOKUP_DENSE && i < m->capacity && idx < m->dense_capacity && idx != 0 &&
        m->dense[idx].id != id) {
        m->dense[idx].id = id;
        m->dense[idx].first = i;
        m->entity[i].id = id;
        if (m->next) m->next[i] = ECS_INSTANCE_NIL;
        m->count = i + 1u;
        return ecs_instance_make(i);
    }
    return ecs_manager__create_slow(m, e);
}
static inline ecs_instance ecs_manager_lookup(const ecs_manager *m, ecs_entity e)
{
    uint32_t id = e.id & (ECS_INDEX_MASK | (ECS_GENERATION_MASK << ECS_INDEX_BITS)), idx = id & ECS_INDEX_MASK;
    if (m->lookup == ECS_LOOKUP_DENSE) {
        ecs_instance r;
        r.i = idx < m->dense_capacity && m->dense[idx].id == id ? m->dense[idx].first : ECS_INSTANCE_NIL;
        return r;
    }
    return ecs_manager__lookup_hash(m, id);
}
/** Heap bytes owned by m (instance data, lookup, links). */
size_t ecs_manager_memory(const ecs_manager *m);
/** Bytes of one packed record: the field sizes added up in field order, no
    padding, entity not included. The layout ecs_manager_spawn reads. */
uint32_t ecs_manager_record_size(const ecs_manager *m);

/* ---- typed managers ------------------------------------------------------ */

#if defined(__cplusplus) && __cplusplus >= 201103L
#define ECS__ALIGNOF(type) alignof(type)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define ECS__ALIGNOF(type) _Alignof(type)
#else
#define ECS__ALIGNOF(type) offsetof(struct { char c; type t; }, t)
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ECS__UNUSED __attribute__((unused))
#else
#define ECS__UNUSED
#endif

#define ECS__FIELD_MEMBER(type, name) type *name;
#define ECS__FIELD_DESC(type, name) {#name, (uint32_t)sizeof(type), (uint32_t)ECS__ALIGNOF(type)},
#define ECS__FIELD_COUNT(type, name) +1
#define ECS__FIELD_ZERO(type, name) memset(&m->name[i.i], 0, sizeof(type));
#define ECS__FIELD_REFRESH(type, name) m->name = (type *)(m->core.field ? m->core.field[k++] : NULL);

/** Defines struct `name` (core + `entity` + a typed array per field) and its
    static inline wrappers name_init, name_free, name_reserve, name_create,
    name_lookup, name_next, name_destroy, name_destroy_entity, name_gc,
    name_count. FIELDS is an X-macro: #define F(X) X(type, field) ... */
#define ECS_MANAGER_DEFINE(name, FIELDS)                                                       \
    typedef struct name {                                                                     \
        ecs_manager core;                                                                     \
        ecs_entity *entity;                                                                   \
        FIELDS(ECS__FIELD_MEMBER)                                                             \
    } name;                                                                                   \
    ECS__UNUSED static inline void name##_refresh_(name *m)                                               \
    {                                                                                         \
        uint32_t k = 0;                                                                       \
        m->entity = m->core.entity;                                                           \
        FIELDS(ECS__FIELD_REFRESH)                                                            \
        (void)k;                                                                              \
    }                                                                                         \
    ECS__UNUSED static inline ecs_result name##_init(name *m, ecs_lookup_kind lookup)                     \
    {                                                                                         \
        static const ecs_field_desc fields[] = {FIELDS(ECS__FIELD_DESC)};                     \
        ecs_result r = ecs_manager_init(&m->core, fields, 0 FIELDS(ECS__FIELD_COUNT), lookup); \
        name##_refresh_(m);                                                                   \
        return r;                                                                             \
    }                                                                                         \
    ECS__UNUSED static inline void name##_free(name *m) { ecs_manager_free(&m->core); name##_refresh_(m); } \
    ECS__UNUSED static inline ecs_result name##_reserve(name *m, uint32_t n)                              \
    {                                                                                         \
        ecs_result r = ecs_manager_reserve(&m->core, n);                                      \
        name##_refresh_(m);                                                                   \
        return r;                                                                             \
    }                                                                                         \
    ECS__UNUSED static inline ecs_instance name##_create(name *m, ecs_entity e)                           \
    {                                                                                         \
        ecs_instance i = ecs_manager_create_uninitialized(&m->core, e);                       \
        if (m->entity != m->core.entity) name##_refresh_(m);                                  \
        if (!ecs_instance_is_nil(i)) { FIELDS(ECS__FIELD_ZERO) }                              \
        return i;                                                                             \
    }                                                                                         \
    ECS__UNUSED static inline ecs_instance name##_lookup(const name *m, ecs_entity e) { return ecs_manager_lookup(&m->core, e); } \
    ECS__UNUSED static inline ecs_instance name##_next(const name *m, ecs_instance i) { return ecs_manager_next(&m->core, i); } \
    ECS__UNUSED static inline int name##_destroy(name *m, ecs_instance i) { return ecs_manager_destroy(&m->core, i); } \
    ECS__UNUSED static inline uint32_t name##_destroy_entity(name *m, ecs_entity e) { return ecs_manager_destroy_entity(&m->core, e); } \
    ECS__UNUSED static inline uint32_t name##_gc(name *m, const ecs_entity_manager *em) { return ecs_manager_gc(&m->core, em); } \
    ECS__UNUSED static inline uint32_t name##_gc_all(name *m, const ecs_entity_manager *em) { return ecs_manager_gc_all(&m->core, em); } \
    ECS__UNUSED static inline uint32_t name##_count(const name *m) { return m->core.count; }

/* ---- the seam between resources and components --------------------------
   ecs_resource.h calls spawn functions with this context; component headers
   (ecs_transform.h, yours) provide them without including ecs_resource.h. */

#define ECS_SPAWN_ROOT 0xFFFFFFFFu

/** What a spawn function sees of the resource being spawned. */
typedef struct ecs_spawn_context {
    ecs_entity_manager *entities;    /* the manager the entities live in */
    const ecs_entity *entity;        /* entity[k]: the entity made for resource entity k */
    const uint32_t *parent_index;    /* parent of resource entity k, or ECS_SPAWN_ROOT */
    uint32_t num_entities;
    ecs_error *error;                /* where a failing spawn function explains why */
} ecs_spawn_context;

/** Creates num_instances instances: instance j belongs to
    ctx->entity[entity_index[j]] and its bytes are in data (size bytes in all).
    Returns ECS_OK, or an error (ctx->error set) after undoing its own work. */
typedef ecs_result (*ecs_spawn_fn)(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                                   const uint32_t *entity_index, const void *data, uint32_t size);
/** Undoes a successful spawn function call with the same arguments (used when
    a later block of the same resource fails: spawning is all or nothing). */
typedef void (*ecs_unspawn_fn)(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                               const uint32_t *entity_index, const void *data, uint32_t size);

/** A generic ecs_spawn_fn for any manager (user = the ecs_manager*): data
    holds num_instances packed records (see ecs_manager_record_size), copied
    into the field arrays. Checks size == num_instances * record size. For a
    typed manager pass &m->core and re-read the field pointers afterwards
    (or call name_reserve(m, 0) to refresh them). */
ecs_result ecs_manager_spawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                             const uint32_t *entity_index, const void *data, uint32_t size);
/** Undoes ecs_manager_spawn: destroys the instances of the listed entities. */
void ecs_manager_unspawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                         const uint32_t *entity_index, const void *data, uint32_t size);

#ifdef __cplusplus
}
#endif
#endif /* ECS_H_INCLUDED */

/* ========================================================================== */
#ifdef ECS_IMPLEMENTATION
#ifndef ECS__IMPLEMENTATION_DONE
#define ECS__IMPLEMENTATION_DONE

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(ECS_REALLOC) && !defined(ECS_FREE) || !defined(ECS_REALLOC) && defined(ECS_FREE)
#error "define both ECS_REALLOC and ECS_FREE, or neither"
#endif
/* pico_ecs's implementation defines ECS_REALLOC/ECS_FREE as aliases with an
   extra context argument: ignore those. */
#ifndef ECS__REALLOC
#if defined(ECS_REALLOC) && !defined(PICO_ECS_REALLOC)
#define ECS__REALLOC(p, n) ECS_REALLOC(p, n)
#define ECS__FREE(p) ECS_FREE(p)
#else
#define ECS__REALLOC(p, n) realloc(p, n)
#define ECS__FREE(p) free(p)
#endif
#endif
#ifndef ECS__ASSERT
#ifdef ECS_ASSERT
#define ECS__ASSERT(x) ECS_ASSERT(x)
#else
#include <assert.h>
#define ECS__ASSERT(x) assert(x)
#endif
#endif

/* stb_ds: short names off, its allocations through ours, and its own
   warnings kept out of the user's build. (We call its functions directly,
   not its macros, which need typeof in strict C99.) */
#ifndef STBDS_NO_SHORT_NAMES
#define STBDS_NO_SHORT_NAMES
#endif
#if !defined(ECS_NO_STB_DS_IMPLEMENTATION) && !defined(STB_DS_IMPLEMENTATION)
#define STB_DS_IMPLEMENTATION
#define ECS__UNDEF_STB_DS_IMPLEMENTATION
#if !defined(STBDS_REALLOC) && !defined(STBDS_FREE)
#define STBDS_REALLOC(c, p, s) ECS__REALLOC(p, s)
#define STBDS_FREE(c, p) ECS__FREE(p)
#endif
#endif
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wcast-qual"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#include "stb_ds.h"
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif
#ifdef ECS__UNDEF_STB_DS_IMPLEMENTATION
#undef STB_DS_IMPLEMENTATION
#undef ECS__UNDEF_STB_DS_IMPLEMENTATION
#endif

/* ---- results ------------------------------------------------------------- */

#define ECS__RESULT_NAME(code, text) #code,
#define ECS__RESULT_TEXT(code, text) text,
static const char *const ecs__result_names[] = {ECS__RESULT_LIST(ECS__RESULT_NAME)};
static const char *const ecs__result_texts[] = {ECS__RESULT_LIST(ECS__RESULT_TEXT)};
#undef ECS__RESULT_NAME
#undef ECS__RESULT_TEXT

const char *ecs_result_name(ecs_result code)
{
    return (unsigned)code < (unsigned)ECS__RESULT_COUNT ? ecs__result_names[code] : "?";
}

const char *ecs_result_text(ecs_result code)
{
    return (unsigned)code < (unsigned)ECS__RESULT_COUNT ? ecs__result_texts[code] : "unknown error";
}

ecs_result ecs_error_set(ecs_error *err, ecs_result code, const char *format, ...)
{
    va_list ap;
    if (!err) return code;
    err->code = code;
    if (!format) {
        snprintf(err->message, sizeof err->message, "%s", ecs_result_text(code));
        return code;
    }
    va_start(ap, format);
    vsnprintf(err->message, sizeof err->message, format, ap);
    va_end(ap);
    return code;
}

void ecs_error_clear(ecs_error *err)
{
    if (!err) return;
    err->code = ECS_OK;
    err->message[0] = '\0';
}

/* ---- entities ------------------------------------------------------------ */

#define ECS__INDEX_LIMIT ECS_INDEX_MASK /* highest usable index */

void ecs_entity_manager_init(ecs_entity_manager *em)
{
    memset(em, 0, sizeof *em);
}

void ecs_entity_manager_free(ecs_entity_manager *em)
{
    ECS__FREE(em->generation);
    ECS__FREE(em->free_ring);
    ECS__FREE(em->callbacks);
    ECS__FREE(em->destroying);
    memset(em, 0, sizeof *em);
}

/* Makes the generation array hold at least `needed` indices. */
static ecs_result ecs__entity_reserve(ecs_entity_manager *em, uint32_t needed)
{
    uint32_t cap;
    uint8_t *g;
    if (needed <= em->capacity) return ECS_OK;
    cap = em->capacity ? em->capacity : 1024u;
    while (cap < needed) cap = cap > 0x7FFFFFFFu / 2 ? needed : cap * 2u;
    if (cap > ECS__INDEX_LIMIT + 1u) cap = ECS__INDEX_LIMIT + 1u;
    g = (uint8_t *)ECS__REALLOC(em->generation, cap);
    if (!g) return ecs_error_set(&em->error, ECS_ERROR_OUT_OF_MEMORY, "entity manager: out of memory growing to %u indices", (unsigned)cap);
    memset(g + em->capacity, 0, cap - em->capacity); /* indices not yet handed out: generation 0 */
    em->generation = g;
    em->capacity = cap;
    return ECS_OK;
}

/* The queue's front: the id its index carries next. */
static uint32_t ecs__free_pop(ecs_entity_manager *em)
{
    uint32_t id = em->free_ring[em->free_head];
    em->free_head = (em->free_head + 1u) & (em->free_capacity - 1u);
    --em->num_free;
    return id;
}

/* Queues idx (whose generation was just bumped); on out of memory the index
   is retired (never reused). */
static void ecs__free_push(ecs_entity_manager *em, uint32_t idx)
{
    if (em->num_free == em->free_capacity) {
        uint32_t cap = em->free_capacity ? em->free_capacity * 2u : 1024u, k;
        uint32_t *ring = (uint32_t *)ECS__REALLOC(NULL, (size_t)cap * sizeof *ring);
        if (!ring) {
            ++em->num_retired;
            ecs_error_set(&em->error, ECS_ERROR_OUT_OF_MEMORY, "entity manager: out of memory queueing index %u; it is retired", (unsigned)idx);
            return;
        }
        for (k = 0; k < em->num_free; ++k) ring[k] = em->free_ring[(em->free_head + k) & (em->free_capacity - 1u)];
        ECS__FREE(em->free_ring);
        em->free_ring = ring;
        em->free_head = 0;
        em->free_capacity = cap;
    }
    em->free_ring[(em->free_head + em->num_free) & (em->free_capacity - 1u)] = ecs_entity_make(idx, em->generation[idx]).id;
    ++em->num_free;
}

ecs_entity ecs_entity__create_slow(ecs_entity_manager *em)
{
    ecs_entity e = {0};
    if (em->num_free > ECS_MINIMUM_FREE_INDICES) {
        e.id = ecs__free_pop(em);
    } else if (em->max_index < ECS__INDEX_LIMIT) { /* index 0 stays reserved */
        if (em->max_index + 2u > em->capacity && ecs__entity_reserve(em, em->max_index + 2u) != ECS_OK)
            return e;
        e.id = ++em->max_index;
    } else if (em->num_free > 0) {
        e.id = ecs__free_pop(em); /* a free index beats a failure */
    } else {
        ecs_error_set(&em->error, ECS_ERROR_INDICES_EXHAUSTED,
                      "entity manager: all %u indices are alive (ECS_INDEX_BITS = %d)",
                      (unsigned)ECS__INDEX_LIMIT, ECS_INDEX_BITS);
        return e;
    }
    return e;
}

ecs_result ecs_entity_create_many(ecs_entity_manager *em, uint32_t n, ecs_entity *out)
{
    uint32_t from_queue = 0, fresh, room, k;
    if (n == 0) return ECS_OK;
    if (!out) return ecs_error_set(&em->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_entity_create_many: out is NULL");
    if (em->num_free > ECS_MINIMUM_FREE_INDICES) {
        from_queue = em->num_free - ECS_MINIMUM_FREE_INDICES;
        if (from_queue > n) from_queue = n;
    }
    fresh = n - from_queue;
    room = ECS__INDEX_LIMIT - em->max_index;
    if (fresh > room) { /* exhausted: the queue's remaining indices fill in */
        uint32_t extra = fresh - room;
        if (extra > em->num_free - from_queue) {
            memset(out, 0, (size_t)n * sizeof *out);
            return ecs_error_set(&em->error, ECS_ERROR_INDICES_EXHAUSTED,
                                 "entity manager: cannot create %u entities, only %u indices left",
                                 (unsigned)n, (unsigned)(room + em->num_free));
        }
        from_queue += extra;
        fresh = room;
    }
    if (fresh && ecs__entity_reserve(em, em->max_index + fresh + 1u) != ECS_OK) {
        memset(out, 0, (size_t)n * sizeof *out);
        return em->error.code;
    }
    for (k = 0; k < from_queue; ++k) out[k].id = ecs__free_pop(em);
    {
        uint32_t first = em->max_index + 1u; /* a local: stores to out may alias *em */
        for (k = 0; k < fresh; ++k) out[from_queue + k].id = first + k;
        em->max_index = first - 1u + fresh;
    }
    return ECS_OK;
}

static int ecs__entity_is_destroying(const ecs_entity_manager *em, ecs_entity e)
{
    uint32_t k;
    for (k = 0; k < em->num_destroying; ++k)
        if (((em->destroying[k].id ^ e.id) & (ECS_INDEX_MASK | (ECS_GENERATION_MASK << ECS_INDEX_BITS))) == 0) return 1;
    return 0;
}

/* Runs the callbacks for e; returns 0 when e is already being destroyed. */
static int ecs__entity_run_callbacks(ecs_entity_manager *em, ecs_entity e)
{
    uint32_t k;
    if (ecs__entity_is_destroying(em, e)) return 0;
    if (em->num_destroying == em->destroying_capacity) {
        uint32_t cap = em->destroying_capacity ? em->destroying_capacity * 2u : 8u;
        ecs_entity *d = (ecs_entity *)ECS__REALLOC(em->destroying, (size_t)cap * sizeof *d);
        if (!d) { /* run the callbacks unguarded rather than skip them */
            for (k = 0; k < em->num_callbacks; ++k) em->callbacks[k].fn(em->callbacks[k].user, e);
            return 1;
        }
        em->destroying = d;
        em->destroying_capacity = cap;
    }
    em->destroying[em->num_destroying++] = e;
    for (k = 0; k < em->num_callbacks; ++k) em->callbacks[k].fn(em->callbacks[k].user, e);
    --em->num_destroying;
    return 1;
}

int ecs_entity__destroy_slow(ecs_entity_manager *em, ecs_entity e)
{
    uint32_t idx = e.id & ECS_INDEX_MASK;
    if (!ecs_entity_alive(em, e)) return 0;
    if (em->num_callbacks) {
        if (!ecs__entity_run_callbacks(em, e)) return 0;
        if (!ecs_entity_alive(em, e)) return 0; /* a callback destroyed it */
    }
    em->generation[idx] = (uint8_t)((em->generation[idx] + 1u) & ECS_GENERATION_MASK);
    ecs__free_push(em, idx);
    return 1;
}

uint32_t ecs_entity_destroy_many(ecs_entity_manager *em, uint32_t n, const ecs_entity *es)
{
    uint32_t k, destroyed = 0;
    if (!es) return 0;
    if (em->num_callbacks == 0 && em->free_capacity - em->num_free >= n) {
        /* fast path: no callbacks, the queue has room */
        /* locals: the byte stores below may alias any member of *em */
        uint32_t mask = em->free_capacity - 1u, tail = em->free_head + em->num_free, limit = em->max_index;
        uint8_t *generation = em->generation;
        uint32_t *ring = em->free_ring;
        for (k = 0; k < n; ++k) {
            uint32_t idx = es[k].id & ECS_INDEX_MASK, gen = (es[k].id >> ECS_INDEX_BITS) & ECS_GENERATION_MASK;
            if (idx - 1u >= limit || generation[idx] != gen) continue; /* not alive */
            gen = (gen + 1u) & ECS_GENERATION_MASK;
            generation[idx] = (uint8_t)gen;
            ring[(tail + destroyed) & mask] = idx | (gen << ECS_INDEX_BITS);
            ++destroyed;
        }
        em->num_free += destroyed;
        return destroyed;
    }
    for (k = 0; k < n; ++k) destroyed += (uint32_t)ecs_entity_destroy(em, es[k]);
    return destroyed;
}

ecs_result ecs_entity_on_destroy(ecs_entity_manager *em, ecs_entity_destroy_fn fn, void *user)
{
    if (!fn) return ecs_error_set(&em->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_entity_on_destroy: fn is NULL");
    if (em->destroying_capacity == 0) { /* so that destroy needs no memory unless callbacks nest deeply */
        em->destroying = (ecs_entity *)ECS__REALLOC(NULL, 16u * sizeof *em->destroying);
        if (!em->destroying) return ecs_error_set(&em->error, ECS_ERROR_OUT_OF_MEMORY, "ecs_entity_on_destroy: out of memory");
        em->destroying_capacity = 16u;
    }
    if (em->num_callbacks == em->callbacks_capacity) {
        uint32_t cap = em->callbacks_capacity ? em->callbacks_capacity * 2u : 4u;
        ecs_entity__callback *c = (ecs_entity__callback *)ECS__REALLOC(em->callbacks, (size_t)cap * sizeof *c);
        if (!c) return ecs_error_set(&em->error, ECS_ERROR_OUT_OF_MEMORY, "ecs_entity_on_destroy: out of memory");
        em->callbacks = c;
        em->callbacks_capacity = cap;
    }
    em->callbacks[em->num_callbacks].fn = fn;
    em->callbacks[em->num_callbacks].user = user;
    ++em->num_callbacks;
    return ECS_OK;
}

ecs_result ecs_entity_on_destroy_remove(ecs_entity_manager *em, ecs_entity_destroy_fn fn, void *user)
{
    uint32_t k;
    for (k = 0; k < em->num_callbacks; ++k)
        if (em->callbacks[k].fn == fn && em->callbacks[k].user == user) {
            memmove(em->callbacks + k, em->callbacks + k + 1, (em->num_callbacks - k - 1u) * sizeof *em->callbacks);
            --em->num_callbacks;
            return ECS_OK;
        }
    return ecs_error_set(&em->error, ECS_ERROR_NOT_FOUND, "ecs_entity_on_destroy_remove: no such callback");
}

uint32_t ecs_entity_count(const ecs_entity_manager *em)
{
    return em->max_index - em->num_free - em->num_retired;
}

/* ---- component managers -------------------------------------------------- */

#define ECS__NIL ECS_INSTANCE_NIL
#define ECS__MIN_ALIGN 16u

static size_t ecs__align_up(size_t x, size_t a)
{
    return (x + a - 1u) & ~(a - 1u);
}

static size_t ecs__field_align(const ecs_field_desc *f)
{
    size_t a = f->align > ECS__MIN_ALIGN ? f->align : ECS__MIN_ALIGN;
    return a;
}

/* The largest array alignment of m's layout. */
static size_t ecs__max_align(const ecs_manager *m)
{
    size_t a = ECS__MIN_ALIGN;
    uint32_t k;
    for (k = 0; k < m->num_fields; ++k)
        if (ecs__field_align(&m->fields[k]) > a) a = ecs__field_align(&m->fields[k]);
    return a;
}

/* Bytes needed for `cap` instances, with each array aligned; offsets out. */
static size_t ecs__layout(const ecs_manager *m, uint32_t cap, size_t *offsets)
{
    size_t at = 0;
    uint32_t k;
    at += (size_t)cap * sizeof(ecs_entity);
    for (k = 0; k < m->num_fields; ++k) {
        size_t a = ecs__field_align(&m->fields[k]);
        /* stagger the arrays by a cache line each: with power-of-two
           capacities they would otherwise start at the same offset modulo
           4096, and a loop reading one array while writing another would
           suffer the CPU's 4K-aliasing stalls */
        at = ecs__align_up(at, a) + (size_t)(k + 1u) * (a > 64u ? a : 64u);
        if (offsets) offsets[k] = at;
        at += (size_t)cap * m->fields[k].size;
    }
    return at + ecs__max_align(m); /* room to align the buffer itself */
}

ecs_result ecs_manager_init(ecs_manager *m, const ecs_field_desc *fields, uint32_t num_fields,
                            ecs_lookup_kind lookup)
{
    uint32_t k;
    memset(m, 0, sizeof *m);
    m->lookup = lookup;
    m->rng = 0x9E3779B9u;
    if (num_fields && !fields)
        return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_manager_init: fields is NULL");
    if (lookup != ECS_LOOKUP_HASH && lookup != ECS_LOOKUP_DENSE)
        return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT, "ecs_manager_init: unknown lookup kind %d", (int)lookup);
    m->bytes_per_instance = (uint32_t)sizeof(ecs_entity);
    for (k = 0; k < num_fields; ++k) {
        uint32_t a = fields[k].align;
        if (fields[k].size == 0 || a == 0 || (a & (a - 1u)) != 0 || a > 4096u)
            return ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT,
                                 "ecs_manager_init: field %u (%s) has size %u, align %u", (unsigned)k,
                                 fields[k].name ? fields[k].name : "?", (unsigned)fields[k].size, (unsigned)a);
        m->bytes_per_instance += fields[k].size;
    }
    if (num_fields) {
        size_t names = 0;
        char *at;
        for (k = 0; k < num_fields; ++k) names += fields[k].name ? strlen(fields[k].name) + 1u : 0u;
        /* one block: the table, then copies of the names (a plugin's strings
           go away with its library) */
        m->fields = (ecs_field_desc *)ECS__REALLOC(NULL, num_fields * sizeof *m->fields + names);
        m->field = (void **)ECS__REALLOC(NULL, num_fields * sizeof *m->field);
        if (!m->fields || !m->field) {
            ECS__FREE(m->fields);
            ECS__FREE(m->field);
            m->fields = NULL;
            m->field = NULL;
            return ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY, "ecs_manager_init: out of memory");
        }
        memcpy(m->fields, fields, num_fields * sizeof *m->fields);
        at = (char *)(m->fields + num_fields);
        for (k = 0; k < num_fields; ++k)
            if (fields[k].name) {
                size_t len = strlen(fields[k].name) + 1u;
                memcpy(at, fields[k].name, len);
                m->fields[k].name = at;
                at += len;
            }
        memset(m->field, 0, num_fields * sizeof *m->field);
    }
    m->num_fields = num_fields;
    return ECS_OK;
}

void ecs_manager_free(ecs_manager *m)
{
    ECS__FREE(m->buffer);
    ECS__FREE(m->field);
    ECS__FREE(m->fields);
    ECS__FREE(m->next);
    ECS__FREE(m->dense);
    stbds_hmfree(m->hash);
    memset(m, 0, sizeof *m);
}

/* Grows the next-link array to the data capacity (cap >= count). */
static ecs_result ecs__next_reserve(ecs_manager *m, uint32_t cap)
{
    uint32_t *nx;
    if (!m->next) return ECS_OK;
    nx = (uint32_t *)ECS__REALLOC(m->next, (size_t)cap * sizeof *nx);
    if (!nx) return ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY, "component manager: out of memory");
    m->next = nx;
    return ECS_OK;
}

ecs_result ecs_manager_reserve(ecs_manager *m, uint32_t n)
{
    size_t offsets_small[16], *offsets = offsets_small, bytes;
    char *buf, *base;
    uint32_t k;
    if (n <= m->capacity) return ECS_OK;
    if (m->num_fields > 16) {
        offsets = (size_t *)ECS__REALLOC(NULL, m->num_fields * sizeof *offsets);
        if (!offsets) return ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY, "component manager: out of memory");
    }
    bytes = ecs__layout(m, n, offsets);
    buf = ecs__next_reserve(m, n) == ECS_OK ? (char *)ECS__REALLOC(NULL, bytes) : NULL;
    if (!buf) {
        if (offsets != offsets_small) ECS__FREE(offsets);
        return ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY,
                             "component manager: out of memory growing to %u instances", (unsigned)n);
    }
    base = buf + ((ecs__max_align(m) - ((uintptr_t)buf & (ecs__max_align(m) - 1u))) & (ecs__max_align(m) - 1u));
    if (m->count) memcpy(base, m->entity, (size_t)m->count * sizeof(ecs_entity));
    for (k = 0; k < m->num_fields; ++k) {
        if (m->count) memcpy(base + offsets[k], m->field[k], (size_t)m->count * m->fields[k].size);
        m->field[k] = base + offsets[k];
    }
    m->entity = (ecs_entity *)(void *)base;
    ECS__FREE(m->buffer);
    m->buffer = buf;
    m->capacity = n;
    if (offsets != offsets_small) ECS__FREE(offsets);
    return ECS_OK;
}

#define ECS__ID_MASK (ECS_INDEX_MASK | (ECS_GENERATION_MASK << ECS_INDEX_BITS))

/* stb_ds's hash functions called directly (its macros need typeof in C). */
static ptrdiff_t ecs__hash_find(const ecs_manager *m, uint32_t id)
{
    ptrdiff_t temp = -1;
    if (!m->hash) return -1;
    (void)stbds_hmget_key_ts(m->hash, sizeof *m->hash, &id, sizeof id, &temp, STBDS_HM_BINARY);
    return temp;
}

/* The first instance of the entity with (masked, non-nil) id, or NIL. */
static uint32_t ecs__map_get(const ecs_manager *m, uint32_t id)
{
    if (m->lookup == ECS_LOOKUP_DENSE) {
        uint32_t idx = id & ECS_INDEX_MASK;
        return idx < m->dense_capacity && m->dense[idx].id == id ? m->dense[idx].first : ECS__NIL;
    } else {
        ptrdiff_t at = ecs__hash_find(m, id);
        return at >= 0 ? m->hash[at].value : ECS__NIL;
    }
}

ecs_instance ecs_manager__lookup_hash(const ecs_manager *m, uint32_t id)
{
    return ecs_instance_make(ecs__map_get(m, id));
}

/* Makes the dense array cover entity index idx. */
static ecs_result ecs__dense_reserve(ecs_manager *m, uint32_t idx)
{
    uint32_t cap;
    ecs_manager__dense_entry *d;
    if (idx < m->dense_capacity) return ECS_OK;
    cap = m->dense_capacity ? m->dense_capacity : 1024u;
    while (cap <= idx) cap *= 2u;
    if (cap > ECS_INDEX_MASK + 1u) cap = ECS_INDEX_MASK + 1u;
    d = (ecs_manager__dense_entry *)ECS__REALLOC(m->dense, (size_t)cap * sizeof *d);
    if (!d) return ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY, "component manager: out of memory growing lookup");
    memset(d + m->dense_capacity, 0, (size_t)(cap - m->dense_capacity) * sizeof *d);
    d[0].first = ECS__NIL; /* the nil entity (id 0) matches slot 0 and finds nothing */
    m->dense = d;
    m->dense_capacity = cap;
    return ECS_OK;
}

/* Points the entity's lookup at instance i (NIL removes it). Dense storage
   must already cover the index (ecs__dense_reserve). */
static void ecs__map_set(ecs_manager *m, uint32_t id, uint32_t i)
{
    if (m->lookup == ECS_LOOKUP_DENSE) {
        m->dense[id & ECS_INDEX_MASK].id = i == ECS__NIL ? 0u : id;
        m->dense[id & ECS_INDEX_MASK].first = i;
    } else if (i == ECS__NIL) {
        if (m->hash)
            m->hash = (ecs_manager__map_entry *)stbds_hmdel_key(m->hash, sizeof *m->hash, &id, sizeof id,
                                                                offsetof(ecs_manager__map_entry, key), STBDS_HM_BINARY);
    } else {
        ptrdiff_t at = ecs__hash_find(m, id);
        if (at < 0) {
            m->hash = (ecs_manager__map_entry *)stbds_hmput_key(m->hash, sizeof *m->hash, &id, sizeof id, STBDS_HM_BINARY);
            at = stbds_temp(m->hash - 1);
            m->hash[at].key = id;
        }
        m->hash[at].value = i;
    }
}

static uint32_t ecs__next_of(const ecs_manager *m, uint32_t i)
{
    return m->next ? m->next[i] : ECS__NIL;
}

/* Replaces whatever points at instance `from` in its entity's chain by `to`. */
static void ecs__repoint(ecs_manager *m, uint32_t id, uint32_t from, uint32_t to)
{
    uint32_t p = ecs__map_get(m, id);
    if (p == from) {
        ecs__map_set(m, id, to);
        return;
    }
    while (p != ECS__NIL && m->next[p] != from) p = m->next[p];
    if (p != ECS__NIL) m->next[p] = to;
}

/* Room for `needed` instances, growing geometrically (amortised O(1)). */
static ecs_result ecs__grow_for(ecs_manager *m, uint32_t needed)
{
    uint32_t cap = m->capacity < 8u ? 16u : (m->capacity > 0x7FFFFFFFu ? 0xFFFFFFFEu : m->capacity * 2u);
    if (needed <= m->capacity) return ECS_OK;
    return ecs_manager_reserve(m, needed > cap ? needed : cap);
}

ecs_instance ecs_manager_create(ecs_manager *m, ecs_entity e)
{
    ecs_instance i = ecs_manager_create_uninitialized(m, e);
    uint32_t k;
    if (!ecs_instance_is_nil(i))
        for (k = 0; k < m->num_fields; ++k) memset(ecs_manager_field(m, k, i.i), 0, m->fields[k].size);
    return i;
}

ecs_instance ecs_manager__create_slow(ecs_manager *m, ecs_entity e)
{
    uint32_t id = e.id & ECS__ID_MASK, first, i;
    if ((id & ECS_INDEX_MASK) == 0) {
        ecs_error_set(&m->error, ECS_ERROR_INVALID_ARGUMENT, "component manager: create for the nil entity");
        return ecs_instance_nil();
    }
    if (m->count == m->capacity && ecs__grow_for(m, m->count + 1u) != ECS_OK) return ecs_instance_nil();
    if (m->lookup == ECS_LOOKUP_DENSE && ecs__dense_reserve(m, id & ECS_INDEX_MASK) != ECS_OK)
        return ecs_instance_nil();
    first = ecs__map_get(m, id);
    if (first != ECS__NIL && !m->next) { /* the first entity with two instances */
        m->next = (uint32_t *)ECS__REALLOC(NULL, (size_t)m->capacity * sizeof *m->next);
        if (!m->next) {
            ecs_error_set(&m->error, ECS_ERROR_OUT_OF_MEMORY, "component manager: out of memory");
            return ecs_instance_nil();
        }
        memset(m->next, 0xFF, (size_t)m->capacity * sizeof *m->next);
    }
    i = m->count;
    if (first == ECS__NIL) {
        ecs__map_set(m, id, i);
    } else {
        while (m->next[first] != ECS__NIL) first = m->next[first];
        m->next[first] = i;
    }
    m->entity[i].id = id;
    if (m->next) m->next[i] = ECS__NIL;
    m->count = i + 1u;
    return ecs_instance_make(i);
}

ecs_instance ecs_manager_next(const ecs_manager *m, ecs_instance i)
{
    return ecs_instance_make(i.i < m->count ? ecs__next_of(m, i.i) : ECS__NIL);
}

/* memcpy with the common small sizes inlined. */
static void ecs__copy(void *dst, const void *src, uint32_t size)
{
    switch (size) {
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 12: memcpy(dst, src, 12); break;
    case 16: memcpy(dst, src, 16); break;
    case 64: memcpy(dst, src, 64); break;
    default: memcpy(dst, src, size); break;
    }
}

void ecs_manager_move(ecs_manager *m, uint32_t from, uint32_t to)
{
    uint32_t k, id;
    ECS__ASSERT(from < m->capacity && to < m->capacity);
    id = m->entity[from].id;
    if (from == to) return;
    ecs__repoint(m, id, from, to);
    m->entity[to] = m->entity[from];
    for (k = 0; k < m->num_fields; ++k)
        ecs__copy(ecs_manager_field(m, k, to), ecs_manager_field(m, k, from), m->fields[k].size);
    if (m->next) m->next[to] = m->next[from];
}

/* Swap-erase of instance i, whose entity id the caller knows. */
static void ecs__destroy_known(ecs_manager *m, uint32_t i, uint32_t id)
{
    uint32_t last = m->count - 1u;
    ecs__repoint(m, id, i, ecs__next_of(m, i)); /* unlink i from its chain */
    if (i != last) ecs_manager_move(m, last, i);
    m->count = last;
}

int ecs_manager_destroy(ecs_manager *m, ecs_instance inst)
{
    if (inst.i >= m->count) return 0;
    ecs__destroy_known(m, inst.i, m->entity[inst.i].id);
    return 1;
}

uint32_t ecs_manager_destroy_entity(ecs_manager *m, ecs_entity e)
{
    uint32_t n = 0, id = e.id & ECS__ID_MASK, i;
    if ((id & ECS_INDEX_MASK) == 0) return 0;
    /* the id is known: no read of the entity array (a cache miss saved) */
    for (; (i = ecs__map_get(m, id)) != ECS__NIL; ++n) ecs__destroy_known(m, i, id);
    return n;
}

static uint32_t ecs__rand(uint32_t *state)
{
    uint32_t x = *state; /* xorshift32 */
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

uint32_t ecs_manager_gc(ecs_manager *m, const ecs_entity_manager *em)
{
    uint32_t alive_in_row = 0, destroyed = 0;
    while (m->count > 0 && alive_in_row < 4) {
        uint32_t i = (uint32_t)(((uint64_t)ecs__rand(&m->rng) * m->count) >> 32);
        if (ecs_entity_alive(em, m->entity[i])) {
            ++alive_in_row;
            continue;
        }
        alive_in_row = 0;
        ecs_manager_destroy(m, ecs_instance_make(i));
        ++destroyed;
    }
    return destroyed;
}

uint32_t ecs_manager_gc_all(ecs_manager *m, const ecs_entity_manager *em)
{
    uint32_t i = m->count, destroyed = 0;
    while (i-- > 0) /* what moves into i comes from the end: already checked */
        if (!ecs_entity_alive(em, m->entity[i])) {
            ecs_manager_destroy(m, ecs_instance_make(i));
            ++destroyed;
        }
    return destroyed;
}

size_t ecs_manager_memory(const ecs_manager *m)
{
    size_t bytes = m->buffer ? ecs__layout(m, m->capacity, NULL) : 0;
    bytes += m->num_fields * (sizeof *m->fields + sizeof *m->field);
    if (m->next) bytes += (size_t)m->capacity * sizeof *m->next;
    bytes += (size_t)m->dense_capacity * sizeof *m->dense;
    if (m->hash) /* entries, plus stb_ds's index: about 16 bytes a slot, 2 slots an entry */
        bytes += (size_t)stbds_arrcap(m->hash) * (sizeof *m->hash + 32u);
    return bytes;
}

uint32_t ecs_manager_record_size(const ecs_manager *m)
{
    return m->bytes_per_instance - (uint32_t)sizeof(ecs_entity);
}

ecs_result ecs_manager_spawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                             const uint32_t *entity_index, const void *data, uint32_t size)
{
    ecs_manager *m = (ecs_manager *)user;
    uint32_t rec = ecs_manager_record_size(m), j, k, first = m->count;
    const unsigned char *src = (const unsigned char *)data, *at;
    if ((uint64_t)num_instances * rec != size)
        return ecs_error_set(ctx->error, ECS_ERROR_SPAWN_FAILED,
                             "spawn: %u instances of %u bytes need %llu bytes, block has %u", (unsigned)num_instances,
                             (unsigned)rec, (unsigned long long)num_instances * rec, (unsigned)size);
    if (ecs__grow_for(m, m->count + num_instances) != ECS_OK)
        return ecs_error_set(ctx->error, m->error.code, "spawn: %s", m->error.message);
    for (j = 0; j < num_instances; ++j) { /* instances first .. first + j, in order */
        ecs_instance i = ecs_manager_create_uninitialized(m, ctx->entity[entity_index[j]]);
        if (ecs_instance_is_nil(i)) { /* undo: ours are the last instances */
            ecs_error_set(ctx->error, m->error.code, "spawn: %s", m->error.message);
            while (m->count > first) ecs_manager_destroy(m, ecs_instance_make(m->count - 1u));
            return ctx->error ? ctx->error->code : ECS_ERROR_SPAWN_FAILED;
        }
    }
    /* then one field at a time: sequential writes into each array */
    for (k = 0, at = src; k < m->num_fields; at += m->fields[k].size, ++k) {
        uint32_t sz = m->fields[k].size;
        unsigned char *dst = (unsigned char *)ecs_manager_field(m, k, first);
        const unsigned char *from = at;
        for (j = 0; j < num_instances; ++j, dst += sz, from += rec) ecs__copy(dst, from, sz);
    }
    return ECS_OK;
}

void ecs_manager_unspawn(void *user, const ecs_spawn_context *ctx, uint32_t num_instances,
                         const uint32_t *entity_index, const void *data, uint32_t size)
{
    ecs_manager *m = (ecs_manager *)user;
    uint32_t j;
    (void)data;
    (void)size;
    for (j = num_instances; j-- > 0;) ecs_manager_destroy_entity(m, ctx->entity[entity_index[j]]);
}

#endif /* ECS__IMPLEMENTATION_DONE */
#endif /* ECS_IMPLEMENTATION */

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
domain. We make this dedication for the benefit of the public at large and to
the detriment of our heirs and successors. We intend this dedication to be an
overt act of relinquishment in perpetuity of all present and future rights to
this software under copyright law.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION
WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------
*/
