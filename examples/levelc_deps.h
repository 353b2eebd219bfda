/* examples/levelc_deps.h - levelc's dependency checker (DESIGN §13): the
   file-system side of `levelc deps`, `levelc refs` and `levelc rename`.

   What lives where: ecs_resource.h has the pure parts (REFERENCES: every
   reference of one JSON source through the compiler's registrations, the
   source patcher, ecs_path_renamed, ecs_path_distance); this file walks a
   project folder, keeps the cache DIR/.ecs-deps, and writes and renames
   files. examples/levelc.c and bench/bench.c include it (one translation
   unit each: every function is static). POSIX only (dirent, stat, rename,
   fsync): define _POSIX_C_SOURCE 200809L (and _FILE_OFFSET_BITS 64 on
   32-bit systems) before any include, then include ecs.h and ecs_resource.h
   before this file.

   The project (DIR): every file under it whose name does not start with '.'
   (so .git, the cache and the temporaries are left out). A resource path P
   names the files P.TYPE and its variants P.VARIANT.TYPE (TYPE and VARIANT
   without dots; a file P.X.TYPE is both the resource P.X and a variant of P,
   and a rename of P moves it: ldeps_is_named_by). Files ending in ".json"
   are sources (levels and prefabs, read through the compiler: its standard
   types, --schema and --plugin);
   files ending in ".schema.json" are schema files (neither); all others are
   assets. Sources under levels/ are the entry points: --unused never lists
   them.

   The cache (DIR/.ecs-deps): every file's size, mtime, content hash and, for
   a source, its references (or its error). A file is read again only when
   its size or mtime changed and then its content hash too (so touching a
   file costs one read, and a warm check of an unchanged project reads no
   source); a file modified within LDEPS_RACY_NS of the cache's writing is
   stored as "check the hash next time" (its mtime could still change within
   one timestamp tick). A source that could not be read is stored with a
   size no file has, so the next scan tries it again (a read error is never
   taken from the cache). The file: "ECSDEPS" and a zero byte, version, byte
   order mark, the configuration hash (the --schema files' bytes and the
   --plugin files' paths and bytes: a different compiler reads references
   differently),
   counts, the records, and last a checksum of everything before it. A
   cache that is missing, truncated, corrupt, of another version, byte order
   or configuration is rebuilt (a note on stderr), never trusted.

   Memory: the walk streams (one directory entry at a time); per file one
   small record, its relative path and a few hash slots, per reference one
   record and its path; no source text is kept (measured: 100,000 files in
   about 20 MB, so a million in about 200 MB). */
#ifndef LEVELC_DEPS_H_INCLUDED
#define LEVELC_DEPS_H_INCLUDED

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200809L
#error "levelc_deps.h: define _POSIX_C_SOURCE 200809L before any include"
#endif

/* A program uses some of these static functions (the bench: the scan and
   the rename): the others are no warning. */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

#define LDEPS_CACHE_NAME ".ecs-deps"
#define LDEPS_CACHE_VERSION 1u
#define LDEPS_NONE 0xFFFFFFFFu
#define LDEPS_RACY_NS 50000000 /* 50 ms: a file newer than the cache minus this is hashed next time */
#define LDEPS_MAX_PATH 4096

enum { LDEPS_SOURCE = 1, LDEPS_ASSET = 2, LDEPS_SCHEMA = 3 };

/* One reference of a source: where, and the path (arena offsets). */
typedef struct ldeps_ref {
    uint32_t offset, length, line, column, flags; /* as ecs_reference */
    uint32_t path, canonical;                     /* arena offsets (NUL-terminated) */
} ldeps_ref;

/* One file of the project. */
typedef struct ldeps_file {
    uint32_t name;       /* arena offset: the path relative to DIR */
    uint32_t kind;       /* LDEPS_SOURCE, _ASSET, _SCHEMA */
    uint32_t first_ref;  /* its references: refs[first_ref .. first_ref + num_refs) */
    uint32_t num_refs;
    uint32_t error;      /* arena offset of why the source could not be read, or LDEPS_NONE */
    uint32_t racy;       /* 1: check the content hash next time whatever the mtime says */
    uint64_t size, hash; /* hash: ldeps_checksum of the content (sources; 0 for assets) */
    int64_t mtime_ns;
} ldeps_file;

/* A project's files and references (or a cache's, read back). */
typedef struct ldeps_project {
    ldeps_file *files;
    uint32_t num_files, files_capacity;
    ldeps_ref *refs;
    uint32_t num_refs, refs_capacity;
    char *arena;
    size_t arena_length, arena_capacity;
    int oom;
    /* what the last scan did (the bench and the tests read these) */
    uint32_t sources_read, files_hashed, sources_from_cache, errors;
} ldeps_project;

/* ---- small containers ---------------------------------------------------- */

static void *ldeps_grow(void *p, uint32_t *capacity, size_t need, size_t elem, int *oom)
{
    size_t cap = *capacity;
    void *np;
    if (need <= cap) return p;
    cap = cap ? cap : 16;
    while (cap < need) cap *= 2;
    if (cap > 0xFFFFFFF0u || cap > (size_t)-1 / elem || !(np = realloc(p, cap * elem))) {
        *oom = 1;
        return p;
    }
    *capacity = (uint32_t)cap;
    return np;
}

/* Copies n bytes and a NUL into the arena; its offset (LDEPS_NONE when out of memory). */
static uint32_t ldeps_intern(ldeps_project *p, const char *s, size_t n)
{
    size_t off = p->arena_length;
    if (p->oom) return LDEPS_NONE;
    if (off + n + 1 > p->arena_capacity) {
        size_t cap = p->arena_capacity ? p->arena_capacity : 65536;
        char *na;
        while (cap < off + n + 1) cap *= 2;
        if (cap > 0xFFFFFFF0u || !(na = (char *)realloc(p->arena, cap))) {
            p->oom = 1;
            return LDEPS_NONE;
        }
        p->arena = na, p->arena_capacity = cap;
    }
    memcpy(p->arena + off, s, n);
    p->arena[off + n] = 0;
    p->arena_length = off + n + 1;
    return (uint32_t)off;
}

static void ldeps_project_free(ldeps_project *p)
{
    free(p->files);
    free(p->refs);
    free(p->arena);
    memset(p, 0, sizeof *p);
}

static uint64_t ldeps_fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = (const unsigned char *)data;
    size_t i;
    for (i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001B3ull;
    return h;
}
#define LDEPS_FNV_START 0xCBF29CE484222325ull

/* The cache file's checksum and the sources' content hash: FNV-1a's step
   over 8-byte words (and the bytes left), about eight times faster than
   bytewise over megabytes; it notices changes and damage, it is no defence
   against an attacker. */
static uint64_t ldeps_checksum(const void *data, size_t n)
{
    const unsigned char *b = (const unsigned char *)data;
    uint64_t h = LDEPS_FNV_START, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x100000001B3ull;
        h ^= h >> 29;
    }
    return ldeps_fnv(h, b + i, n - i);
}

/* A set (or map to a uint32) of 64-bit keys, open addressing; key 0 is
   stored as 1 (a 64-bit hash of 0 is as likely as any other clash). */
typedef struct ldeps_map {
    uint64_t *keys;
    uint32_t *values;
    uint32_t count, capacity; /* capacity: a power of two or 0 */
    int oom;
} ldeps_map;

static void ldeps_map_free(ldeps_map *m)
{
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}

/* The slot of key (empty or holding it); the map must have room. */
static uint32_t ldeps_map_slot(const ldeps_map *m, uint64_t key)
{
    uint32_t mask = m->capacity - 1u, i = (uint32_t)(key ^ (key >> 32)) & mask;
    while (m->keys[i] && m->keys[i] != key) i = (i + 1u) & mask;
    return i;
}

/* Puts key -> value unless key is there already (the first value stays). */
static void ldeps_map_put(ldeps_map *m, uint64_t key, uint32_t value)
{
    uint32_t i;
    key = key ? key : 1u;
    if ((m->count + 1u) * 2u > m->capacity) {
        uint32_t cap = m->capacity ? m->capacity * 2u : 1024u, k;
        uint64_t *keys = (uint64_t *)calloc(cap, sizeof *keys);
        uint32_t *values = (uint32_t *)malloc(cap * sizeof *values);
        ldeps_map old = *m;
        if (!keys || !values || cap < m->capacity) {
            free(keys), free(values);
            m->oom = 1;
            return;
        }
        m->keys = keys, m->values = values, m->capacity = cap;
        for (k = 0; k < old.capacity; ++k)
            if (old.keys[k]) {
                uint32_t j = ldeps_map_slot(m, old.keys[k]);
                m->keys[j] = old.keys[k], m->values[j] = old.values[k];
            }
        free(old.keys), free(old.values);
    }
    i = ldeps_map_slot(m, key);
    if (m->keys[i]) return;
    m->keys[i] = key, m->values[i] = value;
    ++m->count;
}

/* key's value, or LDEPS_NONE. */
static uint32_t ldeps_map_get(const ldeps_map *m, uint64_t key)
{
    uint32_t i;
    if (!m->capacity) return LDEPS_NONE;
    i = ldeps_map_slot(m, key ? key : 1u);
    return m->keys[i] ? m->values[i] : LDEPS_NONE;
}

static uint64_t ldeps_hash_str(const char *s, size_t n)
{
    return ldeps_fnv(LDEPS_FNV_START, s, n);
}

/* ---- names: resources of a file, sorting --------------------------------- */

/* Length of name without its last extension (".TYPE" after the last '/'),
   or 0 when it has none. */
static size_t ldeps_strip_ext(const char *name, size_t n)
{
    size_t i = n;
    while (i > 0 && name[i - 1] != '/' && name[i - 1] != '.') --i;
    if (i <= 1 || name[i - 1] != '.' || name[i - 2] == '/') return 0;
    return i - 1;
}

static int ldeps_ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), e = strlen(end);
    return n >= e && memcmp(s + n - e, end, e) == 0;
}

static int ldeps_file_cmp_by_name(const ldeps_project *p, const ldeps_file *a, const ldeps_file *b)
{
    return strcmp(p->arena + a->name, p->arena + b->name);
}

static const ldeps_project *ldeps__sorting;
static int ldeps_file_cmp(const void *a, const void *b)
{
    return ldeps_file_cmp_by_name(ldeps__sorting, (const ldeps_file *)a, (const ldeps_file *)b);
}

static int ldeps_str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ---- the cache file ------------------------------------------------------- */

typedef struct ldeps_writer {
    unsigned char *bytes;
    size_t length, capacity;
    int oom;
} ldeps_writer;

/* Room for n more bytes (0 when memory ran out: w->oom). */
static int ldeps_reserve(ldeps_writer *w, size_t n)
{
    size_t cap = w->capacity ? w->capacity : 65536;
    unsigned char *nb;
    if (w->oom) return 0;
    if (w->length + n <= w->capacity) return 1;
    while (cap < w->length + n) cap *= 2;
    if (!(nb = (unsigned char *)realloc(w->bytes, cap))) return w->oom = 1, 0;
    w->bytes = nb, w->capacity = cap;
    return 1;
}

static void ldeps_put(ldeps_writer *w, const void *data, size_t n)
{
    if (!ldeps_reserve(w, n)) return;
    memcpy(w->bytes + w->length, data, n);
    w->length += n;
}

static void ldeps_put32(ldeps_writer *w, uint32_t v) { ldeps_put(w, &v, 4); }
static void ldeps_put64(ldeps_writer *w, uint64_t v) { ldeps_put(w, &v, 8); }

/* Unchecked writes into room reserved before (the records' hot loop). */
static unsigned char *ldeps_raw32(unsigned char *at, uint32_t v) { return (unsigned char *)memcpy(at, &v, 4) + 4; }
static unsigned char *ldeps_raw64(unsigned char *at, uint64_t v) { return (unsigned char *)memcpy(at, &v, 8) + 8; }

/* A string as its length and bytes (LDEPS_NONE: none), unchecked. */
static unsigned char *ldeps_raw_str(unsigned char *at, const ldeps_project *p, uint32_t off)
{
    uint32_t n = off == LDEPS_NONE ? LDEPS_NONE : (uint32_t)strlen(p->arena + off);
    at = ldeps_raw32(at, n);
    if (off == LDEPS_NONE) return at;
    memcpy(at, p->arena + off, n);
    return at + n;
}

/* Bytes of file record f in the cache (at most). */
static size_t ldeps_record_size(const ldeps_project *p, const ldeps_file *f)
{
    size_t n = 48 + strlen(p->arena + f->name) + (f->error == LDEPS_NONE ? 0 : strlen(p->arena + f->error));
    uint32_t k;
    for (k = f->first_ref; k < f->first_ref + f->num_refs; ++k)
        n += 28 + 2 * strlen(p->arena + p->refs[k].path) + 2;
    return n;
}

/* One file record and its references. */
static void ldeps_put_file(ldeps_writer *w, const ldeps_project *p, const ldeps_file *f)
{
    unsigned char *at;
    uint32_t k;
    if (!ldeps_reserve(w, ldeps_record_size(p, f))) return; /* once for the whole record */
    at = w->bytes + w->length;
    at = ldeps_raw_str(at, p, f->name);
    at = ldeps_raw32(at, f->kind), at = ldeps_raw32(at, f->racy);
    at = ldeps_raw64(at, f->size), at = ldeps_raw64(at, (uint64_t)f->mtime_ns), at = ldeps_raw64(at, f->hash);
    at = ldeps_raw_str(at, p, f->error);
    at = ldeps_raw32(at, f->num_refs);
    for (k = f->first_ref; k < f->first_ref + f->num_refs; ++k) {
        const ldeps_ref *r = p->refs + k;
        at = ldeps_raw32(at, r->offset), at = ldeps_raw32(at, r->length), at = ldeps_raw32(at, r->line);
        at = ldeps_raw32(at, r->column), at = ldeps_raw32(at, r->flags);
        at = ldeps_raw_str(at, p, r->path);
        at = ldeps_raw_str(at, p, r->canonical == r->path ? LDEPS_NONE : r->canonical);
    }
    w->length = (size_t)(at - w->bytes);
}

/* The cache bytes of p (in this machine's byte order; see the top). */
static void ldeps_cache_bytes(const ldeps_project *p, uint64_t config, ldeps_writer *w)
{
    uint32_t i;
    ldeps_put(w, "ECSDEPS", 8);
    ldeps_put32(w, LDEPS_CACHE_VERSION);
    ldeps_put32(w, 0x01020304u);
    ldeps_put64(w, config);
    ldeps_put32(w, p->num_files);
    ldeps_put32(w, p->num_refs);
    for (i = 0; i < p->num_files; ++i) ldeps_put_file(w, p, p->files + i);
    ldeps_put64(w, ldeps_checksum(w->bytes, w->oom ? 0 : w->length));
}

/* A cursor over cache bytes: every read is bounds-checked (bad: set). */
typedef struct ldeps_reader {
    const unsigned char *at, *end;
    int bad;
} ldeps_reader;

static uint32_t ldeps_get32(ldeps_reader *r)
{
    uint32_t v = 0;
    if (r->bad || (size_t)(r->end - r->at) < 4) return r->bad = 1, 0u;
    memcpy(&v, r->at, 4);
    r->at += 4;
    return v;
}

static uint64_t ldeps_get64(ldeps_reader *r)
{
    uint64_t v = 0;
    if (r->bad || (size_t)(r->end - r->at) < 8) return r->bad = 1, 0u;
    memcpy(&v, r->at, 8);
    r->at += 8;
    return v;
}

/* A string into p's arena (LDEPS_NONE when the cache said none and that is
   allowed); no NUL inside, at most LDEPS_MAX_PATH bytes. */
static uint32_t ldeps_get_str(ldeps_reader *r, ldeps_project *p, int none_ok)
{
    uint32_t n = ldeps_get32(r), off;
    if (r->bad) return LDEPS_NONE;
    if (n == LDEPS_NONE && none_ok) return LDEPS_NONE;
    if (n > LDEPS_MAX_PATH || (size_t)(r->end - r->at) < n || memchr(r->at, 0, n)) return r->bad = 1, LDEPS_NONE;
    off = ldeps_intern(p, (const char *)r->at, n);
    r->at += n;
    if (off == LDEPS_NONE) r->bad = 1;
    return off;
}

/* One file record and its references into p. */
static void ldeps_get_file(ldeps_reader *r, ldeps_project *p, uint32_t refs_left)
{
    ldeps_file f;
    uint32_t k;
    memset(&f, 0, sizeof f);
    f.name = ldeps_get_str(r, p, 0);
    f.kind = ldeps_get32(r);
    f.racy = ldeps_get32(r);
    f.size = ldeps_get64(r);
    f.mtime_ns = (int64_t)ldeps_get64(r);
    f.hash = ldeps_get64(r);
    f.error = ldeps_get_str(r, p, 1);
    f.num_refs = ldeps_get32(r);
    f.first_ref = p->num_refs;
    if (f.kind < LDEPS_SOURCE || f.kind > LDEPS_SCHEMA || f.racy > 1 || f.num_refs > refs_left ||
        (f.num_refs && f.kind != LDEPS_SOURCE))
        r->bad = 1;
    for (k = 0; k < f.num_refs && !r->bad; ++k) {
        ldeps_ref *ref;
        p->refs = (ldeps_ref *)ldeps_grow(p->refs, &p->refs_capacity, (size_t)p->num_refs + 1, sizeof *p->refs, &p->oom);
        if (p->oom) {
            r->bad = 1;
            break;
        }
        ref = p->refs + p->num_refs++;
        ref->offset = ldeps_get32(r), ref->length = ldeps_get32(r), ref->line = ldeps_get32(r);
        ref->column = ldeps_get32(r), ref->flags = ldeps_get32(r);
        ref->path = ldeps_get_str(r, p, 0);
        ref->canonical = ldeps_get_str(r, p, 1);
        if (ref->canonical == LDEPS_NONE) ref->canonical = ref->path;
    }
    p->files = (ldeps_file *)ldeps_grow(p->files, &p->files_capacity, (size_t)p->num_files + 1, sizeof *p->files,
                                        &p->oom);
    if (p->oom) r->bad = 1;
    if (!r->bad) p->files[p->num_files++] = f;
}

/* Reads cache bytes into p (empty before). 1 when they are a cache of this
   version, byte order and configuration, whole and intact; else 0 with why
   and p emptied. */
static int ldeps_cache_parse(const unsigned char *data, size_t size, uint64_t config, ldeps_project *p, char *why,
                             size_t why_size)
{
    ldeps_reader r;
    uint32_t files, refs, i;
    uint64_t sum;
    const char *what = NULL;
    if (size < 48 || memcmp(data, "ECSDEPS", 8) != 0) what = "not a dependency cache";
    else if (memcpy(&sum, data + size - 8, 8), sum != ldeps_checksum(data, size - 8)) what = "checksum mismatch (corrupt)";
    r.at = data + 8, r.end = data + size - 8, r.bad = 0;
    if (!what && ldeps_get32(&r) != LDEPS_CACHE_VERSION) what = "another version";
    if (!what && ldeps_get32(&r) != 0x01020304u) what = "another byte order";
    if (!what && ldeps_get64(&r) != config) what = "made with other --schema/--plugin files";
    if (!what) {
        files = ldeps_get32(&r), refs = ldeps_get32(&r);
        for (i = 0; i < files && !r.bad; ++i) ldeps_get_file(&r, p, refs - p->num_refs);
        if (r.bad || p->num_refs != refs || r.at != r.end) what = "malformed records";
    }
    if (!what) return 1;
    snprintf(why, why_size, "%s", what);
    ldeps_project_free(p);
    return 0;
}

/* Writes p's cache to DIR/.ecs-deps through a temporary and a rename; racy
   files are marked first. 0 (and a note) when it could not. */
static int ldeps_cache_save(const char *dir, ldeps_project *p, uint64_t config)
{
    char path[LDEPS_MAX_PATH + 32], tmp[LDEPS_MAX_PATH + 40];
    ldeps_writer w;
    struct timespec now;
    int64_t now_ns;
    uint32_t i;
    FILE *f;
    int ok;
    clock_gettime(CLOCK_REALTIME, &now);
    now_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
    for (i = 0; i < p->num_files; ++i) p->files[i].racy = p->files[i].mtime_ns > now_ns - LDEPS_RACY_NS;
    memset(&w, 0, sizeof w);
    ldeps_cache_bytes(p, config, &w);
    snprintf(path, sizeof path, "%s/%s", dir, LDEPS_CACHE_NAME);
    snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, LDEPS_CACHE_NAME);
    ok = !w.oom && (f = fopen(tmp, "wb")) != NULL;
    if (ok) {
        ok = fwrite(w.bytes, 1, w.length, f) == w.length;
        ok = (fclose(f) == 0) && ok;
        ok = ok && rename(tmp, path) == 0;
        if (!ok) remove(tmp);
    }
    if (!ok) fprintf(stderr, "levelc: note: cannot write the cache %s (%s); the next check reads every source\n", path,
                     w.oom ? "out of memory" : strerror(errno));
    free(w.bytes);
    return ok;
}

/* Reads a whole file (malloc'd; *len its size). NULL with errno set. */
static char *ldeps_read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    char *buf = NULL;
    size_t got = 0;
    if (fd < 0) return NULL;
    if (fstat(fd, &st) == 0 && (buf = (char *)malloc((size_t)st.st_size + 1)) != NULL) {
        while (got < (size_t)st.st_size) {
            ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
            if (n <= 0) break;
            got += (size_t)n;
        }
        if (got != (size_t)st.st_size) {
            free(buf);
            buf = NULL;
            errno = errno ? errno : EIO;
        }
    }
    close(fd);
    *len = got;
    return buf;
}

/* Reads DIR/.ecs-deps into old (empty when there is none or it is not to
   be trusted: a note on stderr then). */
static void ldeps_cache_load(const char *dir, uint64_t config, ldeps_project *old)
{
    char path[LDEPS_MAX_PATH + 32], why[96];
    unsigned char *data;
    size_t size = 0;
    memset(old, 0, sizeof *old);
    snprintf(path, sizeof path, "%s/%s", dir, LDEPS_CACHE_NAME);
    errno = 0;
    data = (unsigned char *)ldeps_read_file(path, &size);
    if (!data) {
        if (errno != ENOENT) fprintf(stderr, "levelc: note: cannot read %s; rebuilding it\n", path);
        return; /* no cache yet: a cold check */
    }
    if (!ldeps_cache_parse(data, size, config, old, why, sizeof why))
        fprintf(stderr, "levelc: note: %s: %s; rebuilding it\n", path, why);
    free(data);
}

/* ---- the scan: walk the folder, reuse the cache, read what changed ------- */

/* The cache, read back, is the project the walk updates in place: a file
   that is as the cache knew it costs a lookup and nothing else. */
typedef struct ldeps_scan {
    const char *dir;
    const ecs_compiler *compiler;
    ldeps_project *p;     /* the cache's records first, then new files */
    ldeps_map index;      /* hash of a cached file's name -> its record */
    unsigned char *seen;  /* per cached record: the walk found the file */
    uint32_t num_cached;
    int dirty;            /* the cache must be written again */
} ldeps_scan;

/* Reads source text into record f's references (or its error); the old
   ones, if any, are left behind in the arrays (the cache drops them). */
static void ldeps_read_refs(ldeps_scan *s, uint32_t f, const char *text, size_t len)
{
    ldeps_project *p = s->p;
    ecs_reference_list list;
    ecs_error err;
    uint32_t k;
    p->files[f].first_ref = p->num_refs;
    p->files[f].num_refs = 0;
    p->files[f].error = LDEPS_NONE;
    if (ecs_compiler_references(s->compiler, text, len, &list, &err) != ECS_OK) {
        p->files[f].error = ldeps_intern(p, err.message, strlen(err.message));
        return;
    }
    p->refs = (ldeps_ref *)ldeps_grow(p->refs, &p->refs_capacity, (size_t)p->num_refs + list.count, sizeof *p->refs,
                                      &p->oom);
    for (k = 0; k < list.count && !p->oom; ++k) {
        const ecs_reference *r = list.refs + k;
        ldeps_ref *n = p->refs + p->num_refs++;
        n->offset = r->offset, n->length = r->length, n->line = r->line, n->column = r->column, n->flags = r->flags;
        n->path = ldeps_intern(p, r->path, strlen(r->path));
        n->canonical = r->canonical == r->path ? n->path : ldeps_intern(p, r->canonical, strlen(r->canonical));
        ++p->files[f].num_refs;
    }
    ecs_reference_list_free(&list);
}

/* Source record f whose size or mtime changed (or that is new, or racy):
   hash it, and read its references unless the content is what the cache
   knew (known: the record came from the cache). */
static void ldeps_scan_source(ldeps_scan *s, const char *full, uint32_t f, int known)
{
    size_t len = 0;
    char *text = ldeps_read_file(full, &len);
    ldeps_project *p = s->p;
    uint64_t hash;
    if (!text) {
        char why[300];
        snprintf(why, sizeof why, "cannot read: %s", strerror(errno));
        p->files[f].error = ldeps_intern(p, why, strlen(why));
        p->files[f].num_refs = 0;
        p->files[f].size = UINT64_MAX; /* no file's size: the next scan reads it again, never trusts the error */
        return;
    }
    hash = ldeps_checksum(text, len);
    ++p->files_hashed;
    if (known && p->files[f].hash == hash && p->files[f].size == len) {
        ++p->sources_from_cache; /* touched, not changed */
    } else {
        p->files[f].hash = hash, p->files[f].size = len;
        ++p->sources_read;
        ldeps_read_refs(s, f, text, len);
    }
    free(text);
}

/* A record for a file the cache did not know (LDEPS_NONE: out of memory). */
static uint32_t ldeps_new_record(ldeps_scan *s, const char *rel, uint32_t kind)
{
    ldeps_project *p = s->p;
    ldeps_file *f;
    p->files = (ldeps_file *)ldeps_grow(p->files, &p->files_capacity, (size_t)p->num_files + 1, sizeof *p->files, &p->oom);
    if (p->oom) return LDEPS_NONE;
    f = p->files + p->num_files;
    memset(f, 0, sizeof *f);
    f->name = ldeps_intern(p, rel, strlen(rel));
    f->kind = kind;
    f->error = LDEPS_NONE;
    f->first_ref = p->num_refs;
    return p->num_files++;
}

/* One regular file at rel (full: DIR/rel; st: its size and time, zero for
   an asset whose entry type spared the stat). */
static void ldeps_scan_file(ldeps_scan *s, const char *rel, const char *full, const struct stat *st)
{
    ldeps_project *p = s->p;
    uint32_t kind = ldeps_ends_with(rel, ".schema.json") ? LDEPS_SCHEMA
                  : ldeps_ends_with(rel, ".json") ? LDEPS_SOURCE : LDEPS_ASSET;
    uint32_t f = ldeps_map_get(&s->index, ldeps_hash_str(rel, strlen(rel)));
    uint64_t size = (uint64_t)st->st_size;
    int64_t mtime = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
    int known = f != LDEPS_NONE && !s->seen[f] && p->files[f].kind == kind && strcmp(p->arena + p->files[f].name, rel) == 0;
    if (known) s->seen[f] = 1;
    else if ((f = ldeps_new_record(s, rel, kind)) == LDEPS_NONE) return;
    if (known && p->files[f].size == size && p->files[f].mtime_ns == mtime && !p->files[f].racy) {
        if (kind == LDEPS_SOURCE) ++p->sources_from_cache;
    } else {
        s->dirty = 1;
        p->files[f].mtime_ns = mtime, p->files[f].racy = 0;
        if (kind == LDEPS_SOURCE) ldeps_scan_source(s, full, f, known);
        else p->files[f].size = size;
    }
    if (p->files[f].error != LDEPS_NONE) ++p->errors;
}

/* What entry e of folder dfd is: 'd' a folder to walk, 'f' a regular file
   (*st filled when need_stat, or when the entry had to be asked), 0 to
   skip (a symbolic link to a folder: no loops; anything else), -1 when it
   cannot be asked (errno set). The entry's type spares the stat of
   folders and of files that need none (assets) where the system gives it. */
static int ldeps_entry_kind(int dfd, const struct dirent *e, int need_stat, struct stat *st)
{
    (void)need_stat; /* read only where the system gives entry types */
#if defined(DT_DIR) && defined(DT_REG)
    if (e->d_type == DT_DIR) return 'd';
    if (e->d_type == DT_REG && !need_stat) return 'f';
    if (e->d_type == DT_REG) return fstatat(dfd, e->d_name, st, AT_SYMLINK_NOFOLLOW) == 0 ? 'f' : -1;
#endif
    if (fstatat(dfd, e->d_name, st, AT_SYMLINK_NOFOLLOW) != 0) return -1;
    if (S_ISDIR(st->st_mode)) return 'd';
    if (S_ISLNK(st->st_mode) && fstatat(dfd, e->d_name, st, 0) != 0) return -1;
    return S_ISREG(st->st_mode) ? 'f' : 0;
}

/* Walks one folder (rel: its path in the project, "" for the root):
   scans its files, pushes its folders on *stack. 0 when memory ran out. */
static int ldeps_walk_folder(ldeps_scan *s, const char *folder, char ***stack, uint32_t *depth, uint32_t *cap)
{
    char full[2 * LDEPS_MAX_PATH + 4], rel[LDEPS_MAX_PATH + 2];
    size_t dl = strlen(s->dir), fl = strlen(folder), rel_at = fl ? fl + 1 : 0, full_at, nl;
    struct dirent *e;
    DIR *d;
    int oom = 0;
    if (dl + 1 + fl > LDEPS_MAX_PATH) return fprintf(stderr, "levelc: %s/%s: path too long\n", s->dir, folder), 1;
    memcpy(full, s->dir, dl), full[dl] = '/', memcpy(full + dl + 1, folder, fl + 1);
    if (!fl) full[dl] = 0;
    memcpy(rel, folder, fl), rel[fl] = '/';
    full_at = dl + 1 + rel_at;
    if (!(d = opendir(full))) {
        fprintf(stderr, "levelc: %s: cannot read the folder: %s\n", full, strerror(errno));
        return ++s->p->errors, 1;
    }
    if (fl) full[dl + 1 + fl] = '/';
    else full[dl] = '/';
    while (!oom && !s->p->oom && (e = readdir(d)) != NULL) {
        struct stat st;
        int kind;
        if (e->d_name[0] == '.') continue; /* ., .., hidden files, the cache, temporaries */
        nl = strlen(e->d_name);
        if (fl + 1 + nl > LDEPS_MAX_PATH || dl + 1 + fl + 1 + nl > LDEPS_MAX_PATH) {
            fprintf(stderr, "levelc: %s/%s/%s: path too long\n", s->dir, folder, e->d_name), ++s->p->errors;
            continue;
        }
        memcpy(rel + rel_at, e->d_name, nl + 1); /* rel and full share the folder's part */
        memcpy(full + full_at, e->d_name, nl + 1);
        memset(&st, 0, sizeof st);
        kind = ldeps_entry_kind(dirfd(d), e, ldeps_ends_with(e->d_name, ".json"), &st);
        if (kind < 0) {
            fprintf(stderr, "levelc: %s: %s\n", full, strerror(errno)), ++s->p->errors;
        } else if (kind == 'd') {
            char *copy = (char *)malloc(strlen(rel) + 1);
            *stack = (char **)ldeps_grow(*stack, cap, (size_t)*depth + 1, sizeof **stack, &oom);
            if (!copy || oom) oom = 1, free(copy);
            else (*stack)[(*depth)++] = strcpy(copy, rel);
        } else if (kind == 'f') {
            ldeps_scan_file(s, rel, full, &st);
        }
    }
    closedir(d);
    return !oom;
}

/* Walks DIR depth first (a stack of folders; entries streamed one at a
   time), scanning every file. Errors are printed and counted. */
static void ldeps_walk(ldeps_scan *s)
{
    char **stack = NULL;
    uint32_t depth = 0, cap = 0;
    int oom = 0;
    stack = (char **)ldeps_grow(stack, &cap, 1, sizeof *stack, &oom);
    if (oom || !(stack[depth] = (char *)calloc(1, 1))) oom = 1; /* "" : the project root */
    else ++depth;
    while (depth && !oom && !s->p->oom) {
        char *folder = stack[--depth];
        oom = !ldeps_walk_folder(s, folder, &stack, &depth, &cap);
        free(folder);
    }
    while (depth) free(stack[--depth]);
    free(stack);
    if (oom) s->p->oom = 1;
}

/* Scans project dir into p (emptied first): every file, every source's
   references, through the cache (read, and written again when anything
   changed). config: the hash of what decides how sources read (the
   --schema and --plugin files). Returns 0 when memory ran out (printed);
   per-file errors are in p (files[i].error, errors). */
/* Keeps only the references of p's files (a changed source's old ones and
   those of files gone are dropped), in file order. */
static void ldeps_compact_refs(ldeps_project *p)
{
    uint32_t i, live = 0, at = 0;
    ldeps_ref *refs;
    for (i = 0; i < p->num_files; ++i) live += p->files[i].num_refs;
    if (live == p->num_refs) return;
    if (!(refs = (ldeps_ref *)malloc((live + 1u) * sizeof *refs))) {
        p->oom = 1;
        return;
    }
    for (i = 0; i < p->num_files; ++i) {
        memcpy(refs + at, p->refs + p->files[i].first_ref, p->files[i].num_refs * sizeof *refs);
        p->files[i].first_ref = at;
        at += p->files[i].num_refs;
    }
    free(p->refs);
    p->refs = refs, p->num_refs = live, p->refs_capacity = live + 1u;
}

static int ldeps_scan_project(const char *dir, const ecs_compiler *c, uint64_t config, ldeps_project *p)
{
    ldeps_scan s;
    struct stat st;
    uint32_t i, kept = 0;
    int appended;
    memset(p, 0, sizeof *p);
    errno = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "levelc: %s: not a project folder: %s\n", dir, errno ? strerror(errno) : "not a folder");
        return 0;
    }
    memset(&s, 0, sizeof s);
    s.dir = dir, s.compiler = c, s.p = p;
    ldeps_cache_load(dir, config, p);
    s.num_cached = p->num_files;
    s.dirty = p->num_files == 0;
    s.seen = (unsigned char *)calloc(p->num_files + 1u, 1);
    if (!s.seen) p->oom = 1;
    for (i = 0; i < s.num_cached; ++i) {
        const char *name = p->arena + p->files[i].name;
        ldeps_map_put(&s.index, ldeps_hash_str(name, strlen(name)), i);
    }
    if (!p->oom && !s.index.oom) ldeps_walk(&s);
    appended = p->num_files > s.num_cached; /* new records: sort again */
    for (i = 0; i < p->num_files; ++i) /* drop the files that went away */
        if (i >= s.num_cached || (s.seen && s.seen[i])) p->files[kept++] = p->files[i];
    s.dirty |= kept != p->num_files;
    p->num_files = kept;
    if (appended && p->num_files > 1 && !p->oom) { /* (out of memory: names may be missing) */
        ldeps__sorting = p;
        qsort(p->files, p->num_files, sizeof *p->files, ldeps_file_cmp);
    }
    if (!p->oom) ldeps_compact_refs(p);
    if (!p->oom && !s.index.oom && s.dirty) ldeps_cache_save(dir, p, config);
    if (getenv("LEVELC_DEPS_STATS")) /* what the cache saved (tests, tuning) */
        fprintf(stderr, "levelc: stats: %u files, %u sources parsed, %u hashed, %u from the cache, cache %s\n",
                (unsigned)p->num_files, (unsigned)p->sources_read, (unsigned)p->files_hashed,
                (unsigned)p->sources_from_cache, s.dirty ? "written" : "unchanged");
    free(s.seen);
    ldeps_map_free(&s.index);
    if (p->oom || s.index.oom) fprintf(stderr, "levelc: %s: out of memory\n", dir);
    return !p->oom && !s.index.oom;
}

/* ---- deps: what is broken ------------------------------------------------- */

/* The names a project has: resources (every file's name less its type, and
   less its variant too), the files by lower-case name, sources by resource. */
typedef struct ldeps_index {
    ldeps_map exists;   /* resource name -> a file */
    ldeps_map primary;  /* name less its type -> the file */
    ldeps_map source;   /* a source's name less ".json" -> the file */
    ldeps_map folded;   /* lower-case file name -> the file */
} ldeps_index;

static void ldeps_index_free(ldeps_index *x)
{
    ldeps_map_free(&x->exists);
    ldeps_map_free(&x->primary);
    ldeps_map_free(&x->source);
    ldeps_map_free(&x->folded);
}

/* The resource length of a file name: less its type (the whole name when it
   has none). */
static size_t ldeps_resource_length(const char *name)
{
    size_t n = strlen(name), r = ldeps_strip_ext(name, n);
    return r ? r : n;
}

static uint64_t ldeps_folded_hash(const char *s)
{
    uint64_t h = LDEPS_FNV_START;
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c - 'A' + 'a');
        h = (h ^ c) * 0x100000001B3ull;
    }
    return h;
}

/* Builds x over p's files; prints the files whose names differ only in case
   (errors, counted in *errors) and notes names no reference can spell. */
static int ldeps_index_build(const char *dir, const ldeps_project *p, ldeps_index *x, uint32_t *errors)
{
    uint32_t i;
    memset(x, 0, sizeof *x);
    for (i = 0; i < p->num_files; ++i) {
        const ldeps_file *f = p->files + i;
        const char *name = p->arena + f->name;
        size_t n1 = ldeps_resource_length(name), n2 = ldeps_strip_ext(name, n1);
        uint32_t twin = ldeps_map_get(&x->folded, ldeps_folded_hash(name));
        if (twin != LDEPS_NONE) {
            fprintf(stderr, "levelc: %s/%s and %s/%s: names differ only in case (canonical paths are lower case: rename one)\n",
                    dir, p->arena + p->files[twin].name, dir, name);
            ++*errors;
        }
        ldeps_map_put(&x->folded, ldeps_folded_hash(name), i);
        if (!ecs_path_is_canonical(name))
            fprintf(stderr, "levelc: note: %s/%s: not a canonical name (a-z 0-9 _ - . and '/'): no reference can name it\n",
                    dir, name);
        if (f->kind == LDEPS_SCHEMA) continue;
        ldeps_map_put(&x->exists, ldeps_hash_str(name, n1), i);
        ldeps_map_put(&x->primary, ldeps_hash_str(name, n1), i);
        if (n2) ldeps_map_put(&x->exists, ldeps_hash_str(name, n2), i);
        if (f->kind == LDEPS_SOURCE) ldeps_map_put(&x->source, ldeps_hash_str(name, n1), i);
    }
    return !(x->exists.oom || x->primary.oom || x->source.oom || x->folded.oom);
}

static int ldeps_exists(const ldeps_index *x, const char *path)
{
    return ldeps_map_get(&x->exists, ldeps_hash_str(path, strlen(path))) != LDEPS_NONE;
}

/* The two resource names nearest to path (edit distance at most 2 + a
   quarter of its length, capped at 8), closest first, ties by name. */
static void ldeps_nearest(const ldeps_project *p, const char *path, const char *best[2])
{
    uint32_t i, d[2], limit = 2u + (uint32_t)(strlen(path) / 4u);
    char name[LDEPS_MAX_PATH + 1];
    static char keep[2][LDEPS_MAX_PATH + 1];
    if (limit > 8) limit = 8;
    best[0] = best[1] = NULL;
    d[0] = d[1] = limit + 1u;
    for (i = 0; i < p->num_files; ++i) {
        const char *full = p->arena + p->files[i].name;
        size_t n = ldeps_resource_length(full);
        uint32_t dist, slot;
        if (p->files[i].kind == LDEPS_SCHEMA || n > LDEPS_MAX_PATH) continue;
        memcpy(name, full, n), name[n] = 0;
        if ((best[0] && strcmp(best[0], name) == 0) || (best[1] && strcmp(best[1], name) == 0)) continue;
        dist = ecs_path_distance(path, name, limit);
        if (dist > limit) continue;
        slot = (dist < d[0] || (dist == d[0] && strcmp(name, best[0]) < 0)) ? 0u
             : (dist < d[1] || (dist == d[1] && (!best[1] || strcmp(name, best[1]) < 0))) ? 1u : 2u;
        if (slot == 2u) continue;
        if (slot == 0u && best[0]) { /* the old best moves down */
            memcpy(keep[1], keep[0], sizeof keep[0]);
            best[1] = keep[1], d[1] = d[0];
        }
        memcpy(keep[slot], name, n + 1);
        best[slot] = keep[slot], d[slot] = dist;
    }
}

/* Prints the broken and non-canonical references, file by file, line by
   line; returns how many. */
static uint32_t ldeps_report_refs(const char *shown, const ldeps_project *p, const ldeps_index *x)
{
    uint32_t i, k, broken = 0;
    for (i = 0; i < p->num_files; ++i) {
        const ldeps_file *f = p->files + i;
        for (k = f->first_ref; k < f->first_ref + f->num_refs; ++k) {
            const ldeps_ref *r = p->refs + k;
            const char *path = p->arena + r->path, *best[2];
            if (r->flags & ECS_REFERENCE_NON_CANONICAL) {
                printf("%s%s:%u:%u: non-canonical path '%s' (canonical '%s')\n", shown, p->arena + f->name,
                       (unsigned)r->line, (unsigned)r->column, path, p->arena + r->canonical);
                ++broken;
                continue;
            }
            if (ldeps_exists(x, path)) continue;
            ++broken;
            printf("%s%s:%u:%u: broken reference '%s'", shown, p->arena + f->name, (unsigned)r->line, (unsigned)r->column,
                   path);
            ldeps_nearest(p, path, best);
            if (best[0]) printf(" (nearest: '%s'%s%s%s)", best[0], best[1] ? ", '" : "", best[1] ? best[1] : "", best[1] ? "'" : "");
            printf("\n");
        }
    }
    return broken;
}

/* The source a reference names (a prefab, a level), or LDEPS_NONE. */
static uint32_t ldeps_ref_source(const ldeps_project *p, const ldeps_index *x, const ldeps_ref *r)
{
    const char *path = p->arena + r->canonical;
    if (r->flags & ECS_REFERENCE_NON_CANONICAL) return LDEPS_NONE;
    return ldeps_map_get(&x->source, ldeps_hash_str(path, strlen(path)));
}

static void ldeps_print_resource(const ldeps_project *p, uint32_t file)
{
    const char *name = p->arena + p->files[file].name;
    printf("%.*s", (int)ldeps_resource_length(name), name);
}

/* Prints every cycle of sources (a prefab that contains itself through its
   references) found by a depth-first walk in file order: "cycle: A -> B ->
   A". Returns how many. */
static uint32_t ldeps_report_cycles(const ldeps_project *p, const ldeps_index *x)
{
    unsigned char *color = (unsigned char *)calloc(p->num_files + 1u, 1); /* 0 new, 1 on the stack, 2 done */
    uint32_t *stack = (uint32_t *)malloc((p->num_files + 1u) * sizeof *stack);
    uint32_t *next = (uint32_t *)malloc((p->num_files + 1u) * sizeof *next); /* each stacked file's next reference */
    uint32_t i, depth, found = 0;
    if (!color || !stack || !next) {
        fprintf(stderr, "levelc: out of memory looking for cycles\n");
        free(color), free(stack), free(next);
        return 1;
    }
    for (i = 0; i < p->num_files; ++i) {
        if (p->files[i].kind != LDEPS_SOURCE || color[i]) continue;
        stack[0] = i, next[0] = 0, color[i] = 1, depth = 1;
        while (depth) {
            uint32_t at = stack[depth - 1], to, k;
            const ldeps_file *f = p->files + at;
            if (next[depth - 1] == f->num_refs) {
                color[at] = 2, --depth;
                continue;
            }
            to = ldeps_ref_source(p, x, p->refs + f->first_ref + next[depth - 1]++);
            if (to == LDEPS_NONE || color[to] == 2) continue;
            if (color[to] == 0) {
                stack[depth] = to, next[depth] = 0, color[to] = 1, ++depth;
                continue;
            }
            for (k = depth; stack[k - 1] != to; --k) {} /* to is on the stack: the cycle is stack[k-1 ..] */
            printf("cycle: ");
            for (--k; k < depth; ++k) ldeps_print_resource(p, stack[k]), printf(" -> ");
            ldeps_print_resource(p, to);
            printf("\n");
            ++found;
        }
    }
    free(color), free(stack), free(next);
    return found;
}

/* Prints "PATH: unused" for every resource nothing refers to (sorted):
   assets and prefabs; sources under levels/ are entry points. A variant
   file (P.VARIANT.TYPE beside a P.TYPE) belongs to P. */
static void ldeps_report_unused(const ldeps_project *p, const ldeps_index *x)
{
    ldeps_map used;
    char **names = (char **)malloc((p->num_files + 1u) * sizeof *names);
    uint32_t i, k, n = 0;
    memset(&used, 0, sizeof used);
    for (k = 0; k < p->num_refs; ++k) {
        const char *c = p->arena + p->refs[k].canonical;
        if (c[0]) ldeps_map_put(&used, ldeps_hash_str(c, strlen(c)), 1);
    }
    for (i = 0; names && i < p->num_files; ++i) {
        const ldeps_file *f = p->files + i;
        const char *name = p->arena + f->name;
        size_t n1 = ldeps_resource_length(name), n2 = ldeps_strip_ext(name, n1), len = n1;
        if (f->kind == LDEPS_SCHEMA || (f->kind == LDEPS_SOURCE && strncmp(name, "levels/", 7) == 0)) continue;
        if (n2 && ldeps_map_get(&x->primary, ldeps_hash_str(name, n2)) != LDEPS_NONE) len = n2; /* a variant */
        if (ldeps_map_get(&used, ldeps_hash_str(name, len)) != LDEPS_NONE ||
            ldeps_map_get(&used, ldeps_hash_str(name, n1)) != LDEPS_NONE)
            continue;
        if ((names[n] = (char *)malloc(len + 1)) == NULL) break;
        memcpy(names[n], name, len), names[n][len] = 0;
        ++n;
    }
    if (n) qsort(names, n, sizeof *names, ldeps_str_cmp);
    for (i = 0; i < n; ++i)
        if (i == 0 || strcmp(names[i], names[i - 1]) != 0) printf("%s: unused\n", names[i]);
    for (i = 0; i < n; ++i) free(names[i]);
    free(names);
    ldeps_map_free(&used);
}

/* "DIR/" to print before a project's file names ("" for "."). */
static void ldeps_shown_prefix(const char *dir, char *out, size_t size)
{
    snprintf(out, size, "%s", strcmp(dir, ".") == 0 ? "" : dir);
    if (out[0]) snprintf(out + strlen(out), size - strlen(out), "/");
}

/* Prints the errors of sources that could not be read; returns how many. */
static uint32_t ldeps_report_errors(const char *shown, const ldeps_project *p)
{
    uint32_t i, n = 0;
    for (i = 0; i < p->num_files; ++i)
        if (p->files[i].error != LDEPS_NONE)
            fprintf(stderr, "levelc: %s%s: %s\n", shown, p->arena + p->files[i].name, p->arena + p->files[i].error), ++n;
    return n;
}

/* levelc deps DIR [--unused]: see DESIGN §13. Exit status 0 when nothing
   is broken (no broken or non-canonical reference, no cycle, no source
   that cannot be read, no two names differing only in case), else 1. */
static int ldeps_run_deps(const char *dir, const ecs_compiler *c, uint64_t config, int unused)
{
    ldeps_project p;
    ldeps_index x;
    char shown[LDEPS_MAX_PATH + 2];
    uint32_t errors = 0, broken = 0, cycles = 0, sources = 0, i;
    int ok = ldeps_scan_project(dir, c, config, &p);
    errors = p.errors;
    memset(&x, 0, sizeof x);
    ldeps_shown_prefix(dir, shown, sizeof shown);
    if (ok) ok = ldeps_index_build(shown[0] ? dir : ".", &p, &x, &errors);
    if (ok) {
        errors += ldeps_report_errors(shown, &p);
        broken = ldeps_report_refs(shown, &p, &x);
        if (unused) ldeps_report_unused(&p, &x);
        cycles = ldeps_report_cycles(&p, &x);
        for (i = 0; i < p.num_files; ++i) sources += p.files[i].kind == LDEPS_SOURCE;
        printf("%u sources, %u references, %u broken\n", (unsigned)sources, (unsigned)p.num_refs, (unsigned)broken);
    }
    ldeps_index_free(&x);
    ldeps_project_free(&p);
    return ok && !broken && !cycles && !errors ? 0 : 1;
}

/* Whether name is path's: path itself, path.* (its types, its variants and
   the resources path.X, variants of it too; no '/' after path) or under the
   folder path. What a rename of path moves, and where it moves to. */
static int ldeps_is_named_by(const char *name, const char *path)
{
    size_t n = strlen(path);
    if (strncmp(name, path, n) != 0) return 0;
    return name[n] == '\0' || name[n] == '/' || (name[n] == '.' && !strchr(name + n, '/'));
}

/* Prints the references to path (as ldeps_run_refs), the canonical ones or
   the non-canonical ones (marked: rename does not patch them); how many,
   and in how many files (*files). */
static uint32_t ldeps_refs_list(const ldeps_project *p, const char *shown, const char *path, int non_canonical,
                                uint32_t *files)
{
    uint32_t i, k, count = 0;
    *files = 0;
    for (i = 0; i < p->num_files; ++i) {
        const ldeps_file *f = p->files + i;
        uint32_t before = count;
        for (k = f->first_ref; k < f->first_ref + f->num_refs; ++k) {
            const ldeps_ref *r = p->refs + k;
            if (!ecs_path_is_canonical(p->arena + r->canonical) || !ldeps_is_named_by(p->arena + r->canonical, path) ||
                !(r->flags & ECS_REFERENCE_NON_CANONICAL) != !non_canonical)
                continue;
            printf("%s%s:%u:%u: '%s'%s\n", shown, p->arena + f->name, (unsigned)r->line, (unsigned)r->column,
                   p->arena + r->path, non_canonical ? ": not canonical, not patched by rename (fix it first)" : "");
            ++count;
        }
        *files += count != before;
    }
    return count;
}

/* levelc refs DIR PATH: every reference to PATH, to PATH.X or to a path
   under the folder PATH (exactly what a rename of PATH patches), from the
   cache, and their count; then the non-canonical references to them (by
   their canonical spelling), marked as not patched. 0, or 1 for a bad PATH
   or a failed scan. */
static int ldeps_run_refs(const char *dir, const ecs_compiler *c, uint64_t config, const char *path)
{
    ldeps_project p;
    char shown[LDEPS_MAX_PATH + 2];
    uint32_t count, files;
    int ok;
    if (!ecs_path_is_canonical(path)) {
        fprintf(stderr, "levelc: '%s' is not a canonical path\n", path);
        return 1;
    }
    ok = ldeps_scan_project(dir, c, config, &p);
    ldeps_shown_prefix(dir, shown, sizeof shown);
    if (ok) {
        count = ldeps_refs_list(&p, shown, path, 0, &files);
        printf("%u references in %u files\n", (unsigned)count, (unsigned)files);
        ldeps_refs_list(&p, shown, path, 1, &files);
        ldeps_report_errors(shown, &p); /* who could not be read may refer to it too */
    }
    ldeps_project_free(&p);
    return ok ? 0 : 1;
}

/* ---- rename: move a resource (or folder) and patch every reference ------- */

/* The injected failure (tests): LEVELC_FAIL_AT=N makes the Nth file-system
   change of a rename (a folder made, a temporary opened, written, synced,
   a rename) fail as an I/O error would. */
static long ldeps__fail_at = -1, ldeps__changes = 0;
/* The injected interruption (tests, not documented outside this file):
   LEVELC_SIGNAL_AT=N makes a rename raise SIGTERM on itself right after the
   Nth rename(2) of its commit, as a Ctrl-C or a kill there would (SIGTERM:
   a shell starts background commands with SIGINT ignored, SIGTERM never). */
static long ldeps__signal_at = -1, ldeps__renames = 0;
/* 1: a rename prints no plan and no summary (the bench). */
static int ldeps_quiet;
/* 0 (levelc rename --no-sync): the new texts are not synced to the disk
   before the renames. Still all or nothing against errors; a power cut
   could then leave empty or old files where the renames happened.
   How they are synced: where syncfs is declared (Linux, with _GNU_SOURCE
   defined before any include, as levelc.c and the bench do) every new text
   is written first and then the project's file system is flushed once (one
   journal commit instead of one per file: a rename of 1,000 files costs
   about what writing them does); elsewhere each file is fsync'ed after it
   is written. Either way no rename runs before every new text is on the
   disk. */
static int ldeps_sync = 1;
#if defined(__linux__) && defined(_GNU_SOURCE)
#define LDEPS_SYNC_ONCE 1
#else
#define LDEPS_SYNC_ONCE 0
#endif

static int ldeps_injected(void)
{
    if (++ldeps__changes != ldeps__fail_at) return 0;
    errno = EIO;
    return 1;
}

/* One file a rename changes. */
typedef struct ldeps_op {
    uint32_t file;          /* in the project */
    char *src, *dst;        /* full paths; dst NULL: patched where it is */
    char *tmp, *backup;     /* beside dst (or src): the new text; the old file until the end */
    unsigned mode;          /* the old file's permissions (the new text gets them) */
    ecs_source_output text; /* the patched text (NULL: moved as it is) */
    int tmp_written;
} ldeps_op;

/* A rename made (from, to point into the ops). */
typedef struct ldeps_step {
    const char *from, *to;
} ldeps_step;

/* A rename (undone in reverse on failure) and the folders it made. */
typedef struct ldeps_plan {
    const char *dir, *old_path, *new_path, *shown;
    ldeps_project p;
    ldeps_index x;
    ldeps_op *ops;
    uint32_t num_ops, ops_capacity, moves, patched_refs, patched_files;
    char **made;            /* folders made, in order */
    uint32_t num_made, made_capacity;
    ldeps_step *done;       /* renames done, in order */
    uint32_t num_done, done_capacity;
    int oom;
} ldeps_plan;

static char *ldeps_join(const char *a, const char *b, const char *c)
{
    size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
    char *s = (char *)malloc(na + nb + nc + 1);
    if (!s) return NULL;
    memcpy(s, a, na), memcpy(s + na, b, nb), memcpy(s + na + nb, c, nc + 1);
    return s;
}

/* "folder/.name" + suffix for full path `path` (a temporary beside it). */
static char *ldeps_beside(const char *path, const char *suffix)
{
    const char *slash = strrchr(path, '/');
    size_t head = slash ? (size_t)(slash - path) + 1 : 0;
    char *s = (char *)malloc(strlen(path) + strlen(suffix) + 2);
    if (!s) return NULL;
    memcpy(s, path, head);
    s[head] = '.';
    strcpy(s + head + 1, path + head);
    strcat(s, suffix);
    return s;
}

/* The new name of file `name` when old_path becomes new_path (see
   ldeps_is_named_by) in out: 1, 0 when name is not old_path's, -1 when the
   new name is longer than LDEPS_MAX_PATH or out (an error, never "not
   named"). */
static int ldeps_moved_name(const char *name, const char *old_path, const char *new_path, char *out, size_t size)
{
    int n;
    if (!ldeps_is_named_by(name, old_path)) return 0;
    n = snprintf(out, size, "%s%s", new_path, name + strlen(old_path));
    return n >= 0 && n < (int)size && n <= LDEPS_MAX_PATH ? 1 : -1;
}

/* What reference path becomes when old_path becomes new_path: as
   ecs_path_renamed, and old_path.X (a moved file's own resource) becomes
   new_path.X. Its length, 0 when left alone, -1 when longer than
   LDEPS_MAX_PATH or out. */
static long ldeps_renamed_reference(const char *path, const char *old_path, const char *new_path, char *out,
                                    size_t size)
{
    long n = ecs_path_renamed(path, old_path, new_path, out, size);
    if (n > LDEPS_MAX_PATH) return -1;
    if (n != 0 || !ldeps_is_named_by(path, old_path)) return n; /* (left: old_path.X) */
    return ldeps_moved_name(path, old_path, new_path, out, size) > 0 ? (long)strlen(out) : -1;
}

static ldeps_op *ldeps_plan_op(ldeps_plan *pl, uint32_t file)
{
    ldeps_op *op;
    uint32_t k;
    for (k = 0; k < pl->num_ops; ++k)
        if (pl->ops[k].file == file) return pl->ops + k;
    pl->ops = (ldeps_op *)ldeps_grow(pl->ops, &pl->ops_capacity, (size_t)pl->num_ops + 1, sizeof *pl->ops, &pl->oom);
    if (pl->oom) return NULL;
    op = pl->ops + pl->num_ops++;
    memset(op, 0, sizeof *op);
    op->file = file;
    op->src = ldeps_join(pl->dir, "/", pl->p.arena + pl->p.files[file].name);
    if (!op->src) pl->oom = 1;
    return op;
}

/* Finds the files to move and refuses conflicts (a target that exists, a
   name differing only in case). 0 after an error (printed). */
static int ldeps_plan_moves(ldeps_plan *pl)
{
    char to[LDEPS_MAX_PATH + 2];
    struct stat st;
    uint32_t i, folder = 0;
    for (i = 0; i < pl->p.num_files; ++i) {
        const char *name = pl->p.arena + pl->p.files[i].name;
        ldeps_op *op;
        uint32_t twin;
        int moved = ldeps_moved_name(name, pl->old_path, pl->new_path, to, sizeof to);
        if (moved < 0) {
            fprintf(stderr, "levelc: rename refused: %s%s: new name too long (more than %d bytes)\n", pl->shown, name,
                    LDEPS_MAX_PATH);
            return 0;
        }
        if (!moved) continue;
        folder |= name[strlen(pl->old_path)] == '/';
        twin = ldeps_map_get(&pl->x.folded, ldeps_folded_hash(to));
        if (twin != LDEPS_NONE) {
            fprintf(stderr, "levelc: rename refused: %s%s would become %s%s, and %s%s exists\n", pl->shown, name, pl->shown,
                    to, pl->shown, pl->p.arena + pl->p.files[twin].name);
            return 0;
        }
        if (!(op = ldeps_plan_op(pl, i)) || !(op->dst = ldeps_join(pl->dir, "/", to))) return pl->oom = 1, 0;
        if (lstat(op->dst, &st) == 0) {
            fprintf(stderr, "levelc: rename refused: %s exists\n", op->dst);
            return 0;
        }
        ++pl->moves;
    }
    if (ldeps_exists(&pl->x, pl->new_path)) {
        fprintf(stderr, "levelc: rename refused: '%s' exists (%s%s)\n", pl->new_path, pl->shown,
                pl->p.arena + pl->p.files[ldeps_map_get(&pl->x.exists, ldeps_hash_str(pl->new_path, strlen(pl->new_path)))].name);
        return 0;
    }
    for (i = 0; i < pl->p.num_files; ++i)
        if (ldeps_is_named_by(pl->p.arena + pl->p.files[i].name, pl->new_path)) {
            fprintf(stderr, "levelc: rename refused: %s%s exists, named by '%s'\n", pl->shown,
                    pl->p.arena + pl->p.files[i].name, pl->new_path);
            return 0;
        }
    snprintf(to, sizeof to, "%s/%s", pl->dir, pl->new_path);
    if (lstat(to, &st) == 0) {
        fprintf(stderr, "levelc: rename refused: %s exists\n", to);
        return 0;
    }
    if (folder && strncmp(pl->new_path, pl->old_path, strlen(pl->old_path)) == 0 &&
        pl->new_path[strlen(pl->old_path)] == '/') {
        fprintf(stderr, "levelc: rename refused: cannot move the folder '%s' into itself\n", pl->old_path);
        return 0;
    }
    return 1;
}

/* Whether name's first n bytes are canonical path's first n in another
   case (so name is no canonical name). */
static int ldeps_case_twin(const char *name, const char *path, size_t n)
{
    size_t i;
    int differs = 0;
    for (i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)name[i];
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c - 'A' + 'a'), differs = 1;
        if (c == 0 || c != (unsigned char)path[i]) return 0;
    }
    return differs;
}

/* Refuses a NEW differing only in case from a resource, a variant, a file
   NEW.* or a folder, and a folder of NEW's differing only in case from a
   folder (the exact names are ldeps_plan_moves's). */
static int ldeps_plan_case(const ldeps_plan *pl)
{
    size_t n = strlen(pl->new_path), j;
    uint32_t i;
    for (i = 0; i < pl->p.num_files; ++i) {
        const char *name = pl->p.arena + pl->p.files[i].name;
        for (j = 1; j <= n; ++j) {
            int folder;
            if ((j < n && pl->new_path[j] != '/') || !ldeps_case_twin(name, pl->new_path, j)) continue;
            folder = name[j] == '/';
            if (folder || (j == n && (name[j] == '\0' || (name[j] == '.' && !strchr(name + j, '/'))))) {
                fprintf(stderr, "levelc: rename refused: %s%s%.*s differs only in case from '%.*s'\n", folder ? "the folder " : "",
                        pl->shown, folder ? (int)j : (int)strlen(name), name, (int)j, pl->new_path);
                return 0;
            }
        }
    }
    return 1;
}

/* Patches file i's text with n edits into its op. 0 after an error
   (printed). */
static int ldeps_plan_text(ldeps_plan *pl, uint32_t i, const ecs_source_edit *edits, uint32_t n)
{
    const ldeps_file *f = pl->p.files + i;
    ldeps_op *op = ldeps_plan_op(pl, i);
    ecs_error err;
    size_t len = 0;
    char *text = op ? ldeps_read_file(op->src, &len) : NULL;
    int ok = 0;
    if (!op) return 0;
    if (!text)
        fprintf(stderr, "levelc: rename refused: cannot read %s: %s\n", op->src, strerror(errno));
    else if (len != f->size || ldeps_checksum(text, len) != f->hash)
        fprintf(stderr, "levelc: rename refused: %s changed while the rename was planned; run it again\n", op->src);
    else if (ecs_source_patch(text, len, edits, n, &op->text, &err) != ECS_OK)
        fprintf(stderr, "levelc: rename refused: %s: %s\n", op->src, err.message);
    else
        ok = 1;
    free(text);
    pl->patched_refs += n;
    ++pl->patched_files;
    return ok;
}

/* The references to patch, file by file: reads each such source again
   (it must be what the scan saw) and patches it in memory. 0 after an
   error (printed). */
static int ldeps_plan_patches(ldeps_plan *pl)
{
    char to[LDEPS_MAX_PATH + 2];
    uint32_t i, k;
    for (i = 0; i < pl->p.num_files; ++i) {
        const ldeps_file *f = pl->p.files + i;
        ecs_source_edit *edits = NULL;
        uint32_t n = 0, cap = 0;
        int failed = 0;
        for (k = f->first_ref; k < f->first_ref + f->num_refs; ++k) {
            const ldeps_ref *r = pl->p.refs + k;
            long len = ldeps_renamed_reference(pl->p.arena + r->canonical, pl->old_path, pl->new_path, to, sizeof to);
            if (len == 0) continue;
            if (r->flags & ECS_REFERENCE_NON_CANONICAL) {
                fprintf(stderr, "levelc: note: %s%s:%u:%u: '%s' is not canonical: not patched (fix it first)\n", pl->shown,
                        pl->p.arena + f->name, (unsigned)r->line, (unsigned)r->column, pl->p.arena + r->path);
                continue;
            }
            if (len < 0) {
                fprintf(stderr, "levelc: rename refused: %s%s:%u:%u: '%s': new name too long (more than %d bytes)\n",
                        pl->shown, pl->p.arena + f->name, (unsigned)r->line, (unsigned)r->column, pl->p.arena + r->path,
                        LDEPS_MAX_PATH);
                failed = 1;
                break;
            }
            edits = (ecs_source_edit *)ldeps_grow(edits, &cap, (size_t)n + 1, sizeof *edits, &failed);
            if (failed || !(edits[n].path = ldeps_join(to, "", ""))) {
                failed = pl->oom = 1;
                break;
            }
            edits[n].offset = r->offset, edits[n].length = r->length;
            ++n;
        }
        if (n && !failed) failed = !ldeps_plan_text(pl, i, edits, n);
        for (k = 0; k < n; ++k) free((void *)edits[k].path);
        free(edits);
        if (failed) return 0;
    }
    return 1;
}

/* Refuses files a rename would change that are read-only, and sources to
   patch that are symbolic links (the new text would replace the link, and
   its target would keep the old text). */
static int ldeps_plan_writable(ldeps_plan *pl)
{
    uint32_t k;
    for (k = 0; k < pl->num_ops; ++k) {
        struct stat st;
        if (pl->ops[k].text.text && lstat(pl->ops[k].src, &st) == 0 && S_ISLNK(st.st_mode)) {
            fprintf(stderr, "levelc: rename refused: %s is a symbolic link (patch its target yourself); nothing changed\n",
                    pl->ops[k].src);
            return 0;
        }
        pl->ops[k].mode = 0;
        if (stat(pl->ops[k].src, &st) == 0) pl->ops[k].mode = (unsigned)(st.st_mode & 07777);
        if (!(pl->ops[k].mode & S_IWUSR)) {
            fprintf(stderr, "levelc: rename refused: %s is read-only (make it writable first); nothing changed\n",
                    pl->ops[k].src);
            return 0;
        }
    }
    return 1;
}

/* Makes the folders above full path `path` that are missing (recorded). */
static int ldeps_make_parents(ldeps_plan *pl, const char *path)
{
    char *dir = ldeps_join(path, "", ""), *slash;
    size_t base = strlen(pl->dir) + 1;
    int ok = dir != NULL;
    for (slash = dir ? strchr(dir + base, '/') : NULL; ok && slash; slash = strchr(slash + 1, '/')) {
        struct stat st;
        *slash = 0;
        if (stat(dir, &st) != 0) {
            pl->made = (char **)ldeps_grow(pl->made, &pl->made_capacity, (size_t)pl->num_made + 1, sizeof *pl->made, &pl->oom);
            if (pl->oom || ldeps_injected() || mkdir(dir, 0777) != 0) {
                fprintf(stderr, "levelc: cannot make the folder %s: %s\n", dir, pl->oom ? "out of memory" : strerror(errno));
                ok = 0;
            } else if (!(pl->made[pl->num_made++] = ldeps_join(dir, "", ""))) {
                ok = 0;
            }
        }
        *slash = '/';
    }
    free(dir);
    return ok;
}

/* Writes op's new text beside its target (mode of the old file), synced. */
static int ldeps_write_temporary(ldeps_plan *pl, ldeps_op *op)
{
    const char *target = op->dst ? op->dst : op->src;
    size_t done = 0;
    int fd = -1, ok;
    op->tmp = ldeps_beside(target, ".ecs-new");
    op->backup = ldeps_beside(op->src, ".ecs-old");
    ok = op->tmp && op->backup && (!op->dst || ldeps_make_parents(pl, target));
    if (ok && !ldeps_injected()) fd = open(op->tmp, O_WRONLY | O_CREAT | O_EXCL, (mode_t)op->mode);
    ok = ok && fd >= 0;
    if (ok) op->tmp_written = 1;
    while (ok && done < op->text.length) {
        ssize_t n = ldeps_injected() ? -1 : write(fd, op->text.text + done, op->text.length - done);
        if (n <= 0) ok = 0;
        else done += (size_t)n;
    }
    if (ok && ldeps_sync && !LDEPS_SYNC_ONCE && (ldeps_injected() || fsync(fd) != 0)) ok = 0;
    if (fd >= 0 && close(fd) != 0) ok = 0;
    if (!ok) fprintf(stderr, "levelc: cannot write %s: %s\n", op->tmp ? op->tmp : target, strerror(errno));
    return ok;
}

/* After every new text is written: the project's file system flushed once
   (LDEPS_SYNC_ONCE; see ldeps_sync). */
static int ldeps_sync_written(const ldeps_plan *pl)
{
#if LDEPS_SYNC_ONCE
    int fd, ok;
    if (!ldeps_sync) return 1;
    fd = ldeps_injected() ? -1 : open(pl->dir, O_RDONLY);
    ok = fd >= 0 && syncfs(fd) == 0;
    if (!ok) fprintf(stderr, "levelc: cannot sync the new texts under %s: %s\n", pl->dir, strerror(errno));
    if (fd >= 0) close(fd);
    return ok;
#else
    (void)pl;
    return 1;
#endif
}

/* rename(from, to), journaled for the undo. */
static int ldeps_commit_rename(ldeps_plan *pl, const char *from, const char *to)
{
    pl->done = (ldeps_step *)ldeps_grow(pl->done, &pl->done_capacity, (size_t)pl->num_done + 1, sizeof *pl->done, &pl->oom);
    if (pl->oom || ldeps_injected() || rename(from, to) != 0) {
        fprintf(stderr, "levelc: cannot rename %s to %s: %s\n", from, to, pl->oom ? "out of memory" : strerror(errno));
        return 0;
    }
    pl->done[pl->num_done].from = from;
    pl->done[pl->num_done++].to = to;
    if (++ldeps__renames == ldeps__signal_at) raise(SIGTERM);
    return 1;
}

/* Puts every op in place: the old file aside, the new one in. */
static int ldeps_commit(ldeps_plan *pl)
{
    uint32_t k;
    for (k = 0; k < pl->num_ops; ++k) {
        ldeps_op *op = pl->ops + k;
        int ok;
        if (!op->text.text) ok = ldeps_make_parents(pl, op->dst) && ldeps_commit_rename(pl, op->src, op->dst);
        else if (!op->dst) ok = ldeps_commit_rename(pl, op->src, op->backup) && ldeps_commit_rename(pl, op->tmp, op->src);
        else ok = ldeps_commit_rename(pl, op->tmp, op->dst) && ldeps_commit_rename(pl, op->src, op->backup);
        if (!ok) return 0;
    }
    return 1;
}

/* After a failure: every rename undone (newest first), every temporary and
   made folder removed. Loud when the project could not be restored. */
static void ldeps_rollback(ldeps_plan *pl)
{
    uint32_t k;
    int lost = 0;
    while (pl->num_done) {
        --pl->num_done;
        const ldeps_step *st = pl->done + pl->num_done;
        if (rename(st->to, st->from) != 0) {
            fprintf(stderr, "levelc: UNDO FAILED: cannot rename %s back to %s: %s\n", st->to, st->from, strerror(errno));
            lost = 1;
        }
    }
    for (k = 0; k < pl->num_ops; ++k)
        if (pl->ops[k].tmp_written && unlink(pl->ops[k].tmp) != 0) lost = 1;
    for (k = pl->num_made; k-- > 0;)
        if (rmdir(pl->made[k]) != 0) lost = 1;
    fprintf(stderr, lost ? "levelc: rename failed and the project could NOT be fully restored (see above)\n"
                         : "levelc: rename failed; nothing changed\n");
}

/* Removes folder `path`'s empty parents (after a move), up to DIR. */
static void ldeps_remove_empty_parents(const char *dir, const char *path)
{
    char *d = ldeps_join(path, "", ""), *slash;
    size_t base = strlen(dir);
    while (d && (slash = strrchr(d, '/')) != NULL && (size_t)(slash - d) > base) {
        *slash = 0;
        if (rmdir(d) != 0) break;
    }
    free(d);
}

/* Prints what the rename does (or would do): the moves, then each patched
   reference, file by file. */
static void ldeps_plan_print(const ldeps_plan *pl)
{
    char to[LDEPS_MAX_PATH + 2];
    uint32_t i, k;
    for (k = 0; k < pl->num_ops; ++k)
        if (pl->ops[k].dst)
            printf("move %s -> %s\n", pl->ops[k].src, pl->ops[k].dst);
    for (i = 0; i < pl->p.num_files; ++i) {
        const ldeps_file *f = pl->p.files + i;
        for (k = f->first_ref; k < f->first_ref + f->num_refs; ++k) {
            const ldeps_ref *r = pl->p.refs + k;
            if (r->flags ||
                ldeps_renamed_reference(pl->p.arena + r->canonical, pl->old_path, pl->new_path, to, sizeof to) <= 0)
                continue;
            printf("%s%s:%u:%u: '%s' -> '%s'\n", pl->shown, pl->p.arena + f->name, (unsigned)r->line, (unsigned)r->column,
                   pl->p.arena + r->path, to);
        }
    }
}

static void ldeps_plan_free(ldeps_plan *pl)
{
    uint32_t k;
    for (k = 0; k < pl->num_ops; ++k) {
        free(pl->ops[k].src), free(pl->ops[k].dst), free(pl->ops[k].tmp), free(pl->ops[k].backup);
        ecs_source_output_free(&pl->ops[k].text);
    }
    for (k = 0; k < pl->num_made; ++k) free(pl->made[k]);
    free(pl->ops), free(pl->made), free(pl->done);
    ldeps_index_free(&pl->x);
    ldeps_project_free(&pl->p);
}

/* Checks the arguments and the project, then plans. 0 after a refusal. */
static int ldeps_plan_make(ldeps_plan *pl, const ecs_compiler *c, uint64_t config)
{
    uint32_t errors = 0;
    if (!ecs_path_is_canonical(pl->old_path) || !ecs_path_is_canonical(pl->new_path)) {
        fprintf(stderr, "levelc: rename: '%s' is not a canonical path (a-z 0-9 _ - . between '/')\n",
                ecs_path_is_canonical(pl->old_path) ? pl->new_path : pl->old_path);
        return 0;
    }
    if (strcmp(pl->old_path, pl->new_path) == 0) {
        fprintf(stderr, "levelc: rename: '%s' is its own name already\n", pl->old_path);
        return 0;
    }
    if (!ldeps_scan_project(pl->dir, c, config, &pl->p) || !ldeps_index_build(pl->dir, &pl->p, &pl->x, &errors))
        return 0;
    errors += ldeps_report_errors(pl->shown, &pl->p) + pl->p.errors;
    if (errors) {
        fprintf(stderr, "levelc: rename refused: the project has errors (above); their references are unknown\n");
        return 0;
    }
    if (!ldeps_plan_moves(pl) || !ldeps_plan_case(pl) || !ldeps_plan_patches(pl) || !ldeps_plan_writable(pl)) return 0;
    if (pl->num_ops == 0) {
        fprintf(stderr, "levelc: rename: nothing is called '%s' in %s, and nothing refers to it\n", pl->old_path, pl->dir);
        return 0;
    }
    return !pl->oom;
}

/* levelc rename DIR OLD NEW [--dry-run]: see DESIGN §13. All or nothing:
   every new text is written beside its file and synced (ldeps_sync), then the renames
   run (the old files kept aside); any failure undoes what was done. From
   the first write until the old files are removed (or the undo is done)
   SIGINT, SIGTERM, SIGHUP and SIGQUIT are blocked: one that comes then
   ends the program after, with the project whole (as it was or fully
   renamed), and no temporary left. (SIGKILL and a power cut cannot be
   blocked: see ldeps_sync.) */
static int ldeps_run_rename(const char *dir, const ecs_compiler *c, uint64_t config, const char *old_path,
                            const char *new_path, int dry_run)
{
    ldeps_plan pl;
    char shown[LDEPS_MAX_PATH + 2];
    const char *env = getenv("LEVELC_FAIL_AT"), *signal_at = getenv("LEVELC_SIGNAL_AT");
    sigset_t stop, old_mask;
    uint32_t k;
    int ok;
    memset(&pl, 0, sizeof pl);
    ldeps_shown_prefix(dir, shown, sizeof shown);
    pl.dir = dir, pl.old_path = old_path, pl.new_path = new_path, pl.shown = shown;
    ldeps__fail_at = env ? atol(env) : -1, ldeps__changes = 0;
    ldeps__signal_at = signal_at ? atol(signal_at) : -1, ldeps__renames = 0;
    ok = ldeps_plan_make(&pl, c, config);
    if (ok && !dry_run) {
        sigemptyset(&stop), sigaddset(&stop, SIGINT), sigaddset(&stop, SIGTERM);
        sigaddset(&stop, SIGHUP), sigaddset(&stop, SIGQUIT);
        sigprocmask(SIG_BLOCK, &stop, &old_mask);
        for (k = 0; ok && k < pl.num_ops; ++k) ok = !pl.ops[k].text.text || ldeps_write_temporary(&pl, pl.ops + k);
        ok = ok && ldeps_sync_written(&pl) && ldeps_commit(&pl);
        if (!ok) ldeps_rollback(&pl);
        for (k = 0; ok && k < pl.num_ops; ++k) {
            if (pl.ops[k].text.text && unlink(pl.ops[k].backup) != 0)
                fprintf(stderr, "levelc: note: cannot remove %s: %s\n", pl.ops[k].backup, strerror(errno));
            if (pl.ops[k].dst) ldeps_remove_empty_parents(dir, pl.ops[k].src);
        }
        sigprocmask(SIG_SETMASK, &old_mask, NULL); /* a signal that came meanwhile ends the program here */
    }
    if (ok) {
        if (!ldeps_quiet) ldeps_plan_print(&pl);
        if (!ldeps_quiet)
            printf("%u files %s, %u references in %u files %s\n", (unsigned)pl.moves, dry_run ? "to move" : "moved",
                   (unsigned)pl.patched_refs, (unsigned)pl.patched_files, dry_run ? "to patch (dry run)" : "patched");
    } else if (pl.oom) {
        fprintf(stderr, "levelc: rename: out of memory; nothing changed\n");
    }
    ldeps_plan_free(&pl);
    return ok ? 0 : 1;
}

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif /* LEVELC_DEPS_H_INCLUDED */
