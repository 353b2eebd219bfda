/* examples/levelc.c - the level compiler: JSON in, resource blob out, and
   back.

     cc -O2 -I. -I/usr/include/stb -o levelc examples/levelc.c -lm -ldl
     ./levelc level.json level.bin               compile (little-endian)
     ./levelc --big-endian level.json level.bin  compile for a big-endian target
     ./levelc --names level.json level.bin       also write the names block
     ./levelc --prefab crate.json crate.bin      also require exactly one root
     ./levelc --deps level.json [level.bin]      list the resources it refers to
     ./levelc --dump level.bin                   print any blob as text
     ./levelc --decompile level.bin [out.json]   the blob as level JSON again
                                                 (--all-members: defaults too)
     ./levelc --snapshot-dump world.snap         a world snapshot (ecs_snapshot_save)
                                                 as JSON on stdout, either byte order
     ./levelc --plugin build/spin.so spin_demo.json spin.bin
                                                 a plugin's component types too
                                                 (repeatable; with any mode)
     ./levelc --schema examples/levels/game.schema.json game_demo.json game.bin
                                                 a game's component types from
                                                 a schema file (repeatable; with
                                                 any mode; see --schema FILE)
     ./levelc [TYPES] deps DIR [--unused]        check a project: broken and
                                                 non-canonical references,
                                                 cycles of prefabs, unused
                                                 resources (examples/levelc_deps.h)
     ./levelc [TYPES] refs DIR PATH              who refers to PATH (PATH.X,
                                                 PATH/...)
     ./levelc [TYPES] rename DIR OLD NEW [--dry-run] [--no-sync]
                                                 move a resource (its variants,
                                                 or a folder) and patch every
                                                 reference, all or nothing

   The standard components (transform, mesh, actor) are registered with
   ecs_compiler_register_standard, the same compile functions an engine uses.
   --plugin LIB loads a plugin through ecs_plugin.h as an engine would (a
   registry that publishes this compiler, and a spawner nothing spawns
   with): the component types it registers compile, decompile and dump
   like the standard ones. A plugin that fails to load is an error (1).
   --schema FILE defines a game's components without a plugin (the format is
   above load_schemas): each becomes a schema manager of an ecs_world, and
   ecs_compiler_register_world gives the compiler the world's types. A bad
   schema file (malformed JSON, an unknown kind, two fields of one name, a
   member twice in an object, a default out of its bounds) is an error (1)
   naming the file, line and column, component and field; a spec is quoted
   as the file writes it.
   Output files (the blob, the decompiled JSON) are written to OUT.tmp and
   renamed to OUT only when everything succeeded, so a failure never leaves a
   half-written file behind (an old OUT stays as it was). Errors go to stderr
   with the JSON path or line and column, or the blob offset; the exit status
   is 0 on success, 1 on a compile, decompile or I/O error, 2 on a usage
   error (a missing --plugin argument too). --dump and --decompile verify
   first and read blobs of either byte
   order. --decompile checks that its text compiles back to the same bytes
   and says on stderr which flags do that (--big-endian, --names).

   The dependency checker (DESIGN §13; README "Renaming a resource"):
   TYPES (--schema, --plugin) decide how sources read, as for compiling.
   A project is the folder DIR without the names starting with '.'; *.json
   files are sources (levels, prefabs), *.schema.json schema files, the rest
   assets; a resource path P names P.TYPE and its variants P.VARIANT.TYPE.
   deps prints "FILE:LINE:COLUMN: broken reference 'P'" (with "(nearest:
   'A', 'B')"), "FILE:LINE:COLUMN: non-canonical path 'AS WRITTEN'
   (canonical 'P')" ('' when there is none), with --unused "P: unused"
   (assets and prefabs; sources under levels/ are entry points), "cycle: A
   -> B -> A" for prefabs that contain themselves, and last "N sources, N
   references, N broken" (non-canonical counted as broken); exit 0 when
   nothing is broken, 1 otherwise (also for unreadable sources, named on
   stderr, and for file names differing only in case). The cache is
   DIR/.ecs-deps (see levelc_deps.h). rename refuses, changing nothing, when
   NEW exists (a resource, a variant, a file NEW.*, a folder, a name
   differing only in case), a file to change is read-only, or a source cannot be read; a
   failure while writing undoes everything. LEVELC_FAIL_AT=N (tests) fails
   the Nth file-system change of a rename. */
#if !defined(_POSIX_C_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L /* the dependency checker walks folders (levelc_deps.h) */
#define _DEFAULT_SOURCE         /* and reads the entries' types (d_type) where the system has them */
#ifndef _GNU_SOURCE /* g++ defines it */
#define _GNU_SOURCE             /* and syncfs on Linux: a rename flushes its new files once */
#endif
#endif
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64 /* 32-bit systems: stat and readdir of any file */
#endif
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#define ECS_SNAPSHOT_IMPLEMENTATION /* after ecs_resource.h's, in the same file */
#include "ecs_snapshot.h"
#define ECS_PLUGIN_IMPLEMENTATION
#include "ecs_plugin.h" /* in any order: with ecs_resource.h it publishes ECS_API_RESOURCES */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(_WIN32)
#include "examples/levelc_deps.h" /* deps, refs, rename: the file-system side (POSIX) */
#endif

static int usage(void)
{
    fprintf(stderr, "usage: levelc [TYPES] [--big-endian] [--prefab] [--names] [--deps] IN.json [OUT]\n"
                    "       levelc [TYPES] --dump IN.blob\n"
                    "       levelc [TYPES] [--all-members] --decompile IN.blob [OUT.json]\n"
                    "       levelc --snapshot-dump IN.snap\n"
                    "       levelc [TYPES] deps DIR [--unused]\n"
                    "       levelc [TYPES] refs DIR PATH\n"
                    "       levelc [TYPES] rename DIR OLD NEW [--dry-run] [--no-sync]\n"
                    "TYPES: --schema FILE.schema.json and --plugin LIB, each repeatable\n");
    return 2;
}

/* Reads a whole file into memory (malloc'd, 4-byte aligned). */
static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f) return NULL;
    for (;;) {
        size_t got;
        if (n == cap) {
            char *nb;
            cap = cap ? cap * 2 : 65536;
            nb = (char *)realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

/* Writes size bytes to path through path.tmp and a rename. */
static int write_atomically(const char *path, const void *data, size_t size)
{
    size_t pl = strlen(path);
    char *tmp = (char *)malloc(pl + 5);
    FILE *f;
    int ok;
    if (!tmp) return 0;
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".tmp", 5);
    f = fopen(tmp, "wb");
    if (!f) {
        fprintf(stderr, "levelc: cannot write %s\n", tmp);
        free(tmp);
        return 0;
    }
    ok = fwrite(data, 1, size, f) == size;
    ok = (fflush(f) == 0) && ok;
    ok = (fclose(f) == 0) && ok;
    if (ok && rename(tmp, path) != 0) {
        fprintf(stderr, "levelc: cannot rename %s to %s\n", tmp, path);
        ok = 0;
    } else if (!ok) {
        fprintf(stderr, "levelc: error writing %s\n", tmp);
    }
    if (!ok) remove(tmp);
    free(tmp);
    return ok;
}

static void dump_hex(const unsigned char *p, uint32_t n)
{
    uint32_t i;
    for (i = 0; i < n; ++i) printf("%s%02X", i ? " " : "", (unsigned)p[i]);
}

/* Prints n bytes as a JSON string (names may hold any UTF-8, even NULs). */
static void print_string(const char *s, uint32_t n)
{
    uint32_t i;
    putchar('"');
    for (i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", (unsigned)c);
        else putchar(c);
    }
    putchar('"');
}

/* Prints the instances of a block: as JSON where the type is registered
   (and its bytes make sense), else as hex. */
static void dump_instances(const ecs_compiler *c, const ecs_resource_block *b, int big_endian,
                           const ecs_resource_names *names)
{
    const unsigned char *d = (const unsigned char *)b->data;
    uint32_t j = 0, at = 0;
    for (; j < b->num_instances; ++j) {
        ecs_decompile_output one;
        ecs_error err;
        uint32_t used = 0, k = b->entity_index[j];
        if (ecs_compiler_decompile_instance(c, b->identifier, d + at, b->size - at, big_endian, names, &one, &used,
                                            &err) != ECS_OK)
            break;
        printf("  entity %u", (unsigned)k);
        if (k < names->num_entities && names->entity[k]) putchar(' '), print_string(names->entity[k], names->entity_length[k]);
        printf(": %s\n", one.json);
        ecs_decompile_output_free(&one);
        at += used;
    }
    if (j == b->num_instances) return;
    if (b->num_instances && b->size % b->num_instances == 0 && j == 0) {
        uint32_t each = b->size / b->num_instances;
        for (j = 0; j < b->num_instances; ++j) {
            printf("  entity %u:%s", (unsigned)b->entity_index[j], each ? " " : " (no data)");
            dump_hex(d + (size_t)j * each, each);
            printf("\n");
        }
        return;
    }
    printf("  entities:");
    for (; j < b->num_instances; ++j) printf(" %u", (unsigned)b->entity_index[j]);
    printf("\n  data: ");
    dump_hex(d + at, b->size - at);
    printf("\n");
}

/* Prints a verified blob whose headers are in this machine's byte order
   (the instance data in `order`). */
static void dump(const ecs_compiler *c, const void *blob, uint32_t size, const char *order, int big_endian,
                 const ecs_resource_names *names)
{
    uint32_t ne = ecs_resource_num_entities(blob), nt = ecs_resource_num_component_types(blob), k, t, off;
    const uint32_t *parent = ecs_resource_parent_index(blob);
    printf("resource: %u bytes, version %u, %s, %u entities, %u component types%s\n", (unsigned)size,
           (unsigned)ECS_RESOURCE_VERSION, order, (unsigned)ne, (unsigned)nt, names->present ? ", names block" : "");
    printf("entity  parent  name\n");
    for (k = 0; k < ne; ++k) {
        if (parent[k] == ECS_RESOURCE_ROOT) printf("%6u  root  ", (unsigned)k);
        else printf("%6u  %4u  ", (unsigned)k, (unsigned)parent[k]);
        if (names->entity[k]) print_string(names->entity[k], names->entity_length[k]);
        printf("\n");
    }
    for (t = 0, off = ecs_resource_first_block(blob); t < nt; ++t) {
        ecs_resource_block b = ecs_resource_block_at(blob, off);
        const char *name = ecs_compiler_type_name(c, b.identifier);
        if (b.identifier == ECS_RESOURCE_NAMES_ID) name = "names block";
        printf("block %u at offset %u: %s (0x%08X), %u instances, %u bytes\n", (unsigned)t, (unsigned)off,
               name ? name : "unknown", (unsigned)b.identifier, (unsigned)b.num_instances, (unsigned)b.size);
        if (b.identifier == ECS_RESOURCE_NAMES_ID) {
            printf("  %u named entities (above), %u paths:\n", (unsigned)b.num_instances, (unsigned)names->num_paths);
            for (k = 0; k < names->num_paths; ++k)
                printf("  path %s  #%016llx\n", names->path[k], (unsigned long long)names->path_hash[k]);
        } else {
            dump_instances(c, &b, big_endian, names);
        }
        off = b.next;
    }
}

static int host_big_endian(void)
{
    const uint32_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 0;
}

static int run_dump(const ecs_compiler *c, const char *path)
{
    size_t len = 0;
    char *blob = read_all(path, &len);
    ecs_resource_names names;
    ecs_error err;
    ecs_result r;
    int big = host_big_endian();
    if (!blob) {
        fprintf(stderr, "levelc: cannot read %s\n", path);
        return 1;
    }
    r = ecs_resource_names_read(blob, len, &names, &err); /* verifies, in either order */
    if (r == ECS_OK && ecs_resource_verify(blob, len, &err) == ECS_ERROR_WRONG_BYTE_ORDER) {
        big = !big; /* headers to this machine's order for display; the data stays as it is */
        r = ecs_resource_swap(blob, len, NULL, NULL, &err);
    }
    if (r == ECS_OK) dump(c, blob, (uint32_t)len, big ? "big-endian" : "little-endian", big, &names);
    else fprintf(stderr, "levelc: %s: %s\n", path, err.message);
    ecs_resource_names_free(&names);
    free(blob);
    return r == ECS_OK ? 0 : 1;
}

static int run_decompile(const ecs_compiler *c, const char *in, const char *out, uint32_t flags)
{
    size_t len = 0;
    char *blob = read_all(in, &len);
    ecs_decompile_output text;
    ecs_error err;
    ecs_result r;
    int ok;
    if (!blob) {
        fprintf(stderr, "levelc: cannot read %s\n", in);
        return 1;
    }
    r = ecs_compiler_decompile(c, blob, len, flags | ECS_DECOMPILE_CHECK, &text, &err);
    free(blob);
    if (r != ECS_OK) {
        fprintf(stderr, "%s: %s: %s\n", in, ecs_result_name(r), err.message);
        return 1;
    }
    if (text.compile_flags)
        fprintf(stderr, "levelc: compile it with%s%s to get %s again\n",
                (text.compile_flags & ECS_COMPILER_BIG_ENDIAN) ? " --big-endian" : "",
                (text.compile_flags & ECS_COMPILER_NAMES) ? " --names" : "", in);
    ok = out ? write_atomically(out, text.json, text.length) : fwrite(text.json, 1, text.length, stdout) == text.length;
    ecs_decompile_output_free(&text);
    return ok ? 0 : 1;
}

/* ---- --schema FILE: a game's component types without a plugin -----------
   {"components": [{"name": "health", "fields": [
       {"name": "hp", "kind": "i32", "default": 10, "min": 0, "max": 1000},
       {"name": "regen", "kind": "f32", "runtime": true}]}]}
   Each field: a name, a kind (ecs.h's kinds: f32 f64 i8 u8 i16 u16 i32 u32
   u64 bool vec2 vec3 vec4 quat mat4 path entity) and its spec as members:
   "default" (none:
   the member is required in levels), "min" and "max" (numeric kinds), or
   "runtime": true (runtime state, not in levels). Every component becomes a
   schema manager of a world (ecs_world_define_schema), and the world's
   types go to the compiler in one call (ecs_compiler_register_world). */

typedef struct text_buffer {
    char *bytes;
    size_t length, capacity;
    int oom;
} text_buffer;

static void text_add(text_buffer *t, const char *s, size_t n)
{
    if (t->oom) return;
    if (t->length + n + 1 > t->capacity) {
        size_t cap = (t->length + n + 1) * 2;
        char *nb = (char *)realloc(t->bytes, cap);
        if (!nb) {
            t->oom = 1;
            return;
        }
        t->bytes = nb, t->capacity = cap;
    }
    memcpy(t->bytes + t->length, s, n);
    t->length += n;
    t->bytes[t->length] = 0;
}

/* The schema file being read: its text, so that a spec quotes the file and
   a message gives a line and column. */
static const char *schema_source;
static size_t schema_source_length;

/* How many bytes of the schema file the JSON value starting at `at` spans
   (a number, string, literal or bracketed array/object, as written). */
static size_t source_span(size_t at)
{
    const char *t = schema_source;
    size_t i;
    int depth = 0, in_string = 0;
    for (i = at; i < schema_source_length; ++i) {
        char c = t[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"' && (in_string = 0, depth == 0)) return i + 1 - at;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '[' || c == '{') {
            ++depth;
        } else if (c == ']' || c == '}') {
            if (depth == 0) return i - at;       /* the enclosing container ends a scalar */
            if (--depth == 0) return i + 1 - at; /* the value's own bracket */
        } else if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
            return i - at;
        }
    }
    return i - at;
}

/* Writes v as the schema file writes it. */
static void text_value(text_buffer *t, const ecs_json_value *v)
{
    text_add(t, schema_source + v->offset, source_span(v->offset));
}

/* Line and column (characters, from 1) of a byte offset in the schema file. */
static void source_position(size_t offset, unsigned *line, unsigned *column)
{
    size_t i;
    *line = 1, *column = 1;
    for (i = 0; i < offset && i < schema_source_length; ++i) {
        unsigned char c = (unsigned char)schema_source[i];
        if (c == '\n') *line += 1, *column = 1;
        else if ((c & 0xC0) != 0x80) *column += 1; /* UTF-8 continuation bytes add no column */
    }
}

/* Prints "levelc: FILE:LINE:COLUMN: PATH: what 'name'" for value v (0 returned). */
static int schema_error(const char *file, const ecs_json_doc *doc, const ecs_json_value *v, const char *what,
                        const char *name)
{
    char path[200];
    unsigned line, column;
    ecs_json_path(doc, v, path, sizeof path);
    source_position(v->offset, &line, &column);
    fprintf(stderr, "levelc: %s:%u:%u: %s%s%s '%s'\n", file, line, column, path, path[0] ? ": " : "", what, name);
    return 0;
}

/* The first member of object obj whose name an earlier member has, or NULL. */
static const ecs_json_value *duplicate_member(const ecs_json_doc *doc, const ecs_json_value *obj)
{
    const ecs_json_value *m, *e;
    if (obj->type != ECS_JSON_OBJECT) return NULL;
    for (m = ecs_json_first(doc, obj); m; m = ecs_json_next(doc, m))
        for (e = ecs_json_first(doc, obj); e != m; e = ecs_json_next(doc, e))
            if (m->key_length == e->key_length && memcmp(ecs_json_key(doc, m), ecs_json_key(doc, e), m->key_length) == 0)
                return m;
    return NULL;
}

/* Refuses an object with a member twice, as level JSON does (0 returned). */
static int schema_unique(const char *file, const ecs_json_doc *doc, const ecs_json_value *obj)
{
    const ecs_json_value *d = duplicate_member(doc, obj);
    return d ? schema_error(file, doc, d, "a member appears twice:", ecs_json_key(doc, d)) : 1;
}

static int kind_by_name(const char *name, ecs_field_kind *kind)
{
    int k;
    for (k = 1; k < ECS_FIELD_KIND_COUNT; ++k)
        if (strcmp(ecs_field_kind_name((ecs_field_kind)k), name) == 0) {
            *kind = (ecs_field_kind)k;
            return 1;
        }
    return 0;
}

/* "unknown kind (f32 f64 ... entity), found": every kind ecs.h has. */
static const char *unknown_kind_text(char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "unknown kind (");
    int k;
    for (k = 1; k < ECS_FIELD_KIND_COUNT && used < size; ++k)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", k > 1 ? " " : "", ecs_field_kind_name((ecs_field_kind)k));
    if (used < size) snprintf(buf + used, size - used, "), found");
    return buf;
}

/* Field object f into *out; its spec text (or none: runtime) into spec,
   each value as the file writes it. */
static int schema_field(const char *file, const ecs_json_doc *doc, const ecs_json_value *f, ecs_schema_field *out,
                        text_buffer *spec)
{
    const ecs_json_value *m, *name = ecs_json_member(doc, f, "name"), *kind = ecs_json_member(doc, f, "kind");
    char kinds[200];
    int runtime = 0, members = 0;
    if (f->type != ECS_JSON_OBJECT) return schema_error(file, doc, f, "a field is an object, not", "this");
    if (!schema_unique(file, doc, f)) return 0;
    if (!name || name->type != ECS_JSON_STRING) return schema_error(file, doc, f, "a field needs a string", "name");
    if (!kind || kind->type != ECS_JSON_STRING) return schema_error(file, doc, f, "a field needs a string", "kind");
    if (!kind_by_name(ecs_json_string(doc, kind), &out->kind))
        return schema_error(file, doc, kind, unknown_kind_text(kinds, sizeof kinds), ecs_json_string(doc, kind));
    out->name = ecs_json_string(doc, name);
    text_add(spec, "{", 1);
    for (m = ecs_json_first(doc, f); m; m = ecs_json_next(doc, m)) {
        const char *key = ecs_json_key(doc, m);
        if (strcmp(key, "name") == 0 || strcmp(key, "kind") == 0) continue;
        if (strcmp(key, "runtime") == 0 && m->type == ECS_JSON_TRUE) {
            runtime = 1;
            continue;
        }
        if (strcmp(key, "default") != 0 && strcmp(key, "min") != 0 && strcmp(key, "max") != 0)
            return schema_error(file, doc, m, "unknown field member (name, kind, default, min, max, runtime: true)", key);
        if (members++) text_add(spec, ", ", 2);
        text_add(spec, "\"", 1);
        text_add(spec, key, strlen(key));
        text_add(spec, "\": ", 3);
        text_value(spec, m);
    }
    text_add(spec, "}", 1);
    if (runtime && members) return schema_error(file, doc, f, "a runtime field has no default, min or max:", out->name);
    if (spec->oom) return schema_error(file, doc, f, "out of memory at field", out->name);
    if (runtime) spec->length = 0;
    return 1;
}

/* Defines component c (an object of the schema file) in w. */
static int schema_component(const char *file, const ecs_json_doc *doc, const ecs_json_value *c, ecs_world *w)
{
    const ecs_json_value *name = ecs_json_member(doc, c, "name"), *fields = ecs_json_member(doc, c, "fields"), *f;
    ecs_schema_field *table;
    text_buffer *specs;
    ecs_error err;
    uint32_t k, n;
    int ok = 1;
    if (c->type != ECS_JSON_OBJECT || !name || name->type != ECS_JSON_STRING || !fields || fields->type != ECS_JSON_ARRAY)
        return schema_error(file, doc, c, "a component is {\"name\": ..., \"fields\": [...]}:", "not this");
    if (!schema_unique(file, doc, c)) return 0;
    n = fields->count;
    table = (ecs_schema_field *)calloc(n ? n : 1, sizeof *table);
    specs = (text_buffer *)calloc(n ? n : 1, sizeof *specs);
    for (f = ecs_json_first(doc, fields), k = 0; ok && table && specs && f; f = ecs_json_next(doc, f), ++k)
        ok = schema_field(file, doc, f, table + k, specs + k);
    for (k = 0; ok && table && specs && k < n; ++k) table[k].spec = specs[k].length ? specs[k].bytes : NULL;
    if (ok && (!table || !specs)) ok = schema_error(file, doc, c, "out of memory at component", ecs_json_string(doc, name));
    if (ok) { /* the specs' checks (the compiler's), here where the file's position is known */
        ecs_compiler check;
        ecs_compiler_init(&check);
        if (ecs_compiler_register_schema(&check, ecs_json_string(doc, name), table, n, 0, &err) == ECS_OK &&
            ecs_world_define_schema(w, ecs_json_string(doc, name), table, n, ECS_LOOKUP_HASH, &err))
            ok = 2;
        ecs_compiler_free(&check);
    }
    if (ok == 1) {
        unsigned line, column;
        source_position(c->offset, &line, &column);
        ok = 0, fprintf(stderr, "levelc: %s:%u:%u: component '%s': %s\n", file, line, column, ecs_json_string(doc, name),
                        err.message);
    }
    for (k = 0; specs && k < n; ++k) free(specs[k].bytes);
    free(specs);
    free(table);
    return ok == 2;
}

/* Reads every --schema file into w. 0 after an error (printed). */
/* Refuses a schema file whose names, kinds or string values hold a NUL byte
   (\u0000): every name is used as a C string, so "f32\u0000zz" would read
   as f32 (0 returned). */
static int schema_no_nul(const char *file, const ecs_json_doc *doc)
{
    uint32_t k;
    for (k = 0; k < doc->num_values; ++k) {
        const ecs_json_value *v = doc->values + k;
        if (v->key != ECS_JSON_NONE && strlen(ecs_json_key(doc, v)) != v->key_length)
            return schema_error(file, doc, v, "a member name holds a NUL byte (\\u0000):", ecs_json_key(doc, v));
        if (v->type == ECS_JSON_STRING && strlen(ecs_json_string(doc, v)) != v->count)
            return schema_error(file, doc, v, "a string holds a NUL byte (\\u0000):", ecs_json_string(doc, v));
    }
    return 1;
}

static int load_schemas(const char *const *files, uint32_t num_files, ecs_world *w)
{
    uint32_t i;
    for (i = 0; i < num_files; ++i) {
        size_t len = 0;
        char *text = read_all(files[i], &len);
        ecs_json_doc doc;
        ecs_error err;
        const ecs_json_value *list, *c;
        int ok = 1;
        if (!text) {
            fprintf(stderr, "levelc: cannot read %s\n", files[i]);
            return 0;
        }
        memset(&doc, 0, sizeof doc);
        schema_source = text;
        schema_source_length = len;
        if (ecs_json_parse(&doc, text, len, &err) != ECS_OK) {
            fprintf(stderr, "levelc: %s: %s\n", files[i], err.message);
            ok = 0;
        } else if (!(list = ecs_json_member(&doc, ecs_json_root(&doc), "components")) || list->type != ECS_JSON_ARRAY) {
            ok = schema_error(files[i], &doc, ecs_json_root(&doc), "a schema file is {\"components\": [...]}:", "no array");
        } else if (!schema_no_nul(files[i], &doc)) {
            ok = 0;
        } else if (schema_unique(files[i], &doc, ecs_json_root(&doc))) {
            for (c = ecs_json_first(&doc, list); ok && c; c = ecs_json_next(&doc, c)) ok = schema_component(files[i], &doc, c, w);
        }
        ecs_json_doc_free(&doc);
        free(text);
        if (!ok) return 0;
    }
    return 1;
}

#define MAX_PLUGINS 16

typedef struct options {
    uint32_t flags, decompile_flags, num_plugins, num_schemas;
    int deps, dump, decompile, unused, dry_run, no_sync;
    const char *command; /* "deps", "refs", "rename" (the dependency checker), or NULL */
    const char *in, *out, *third;
    const char *plugins[MAX_PLUGINS];
    const char *schemas[MAX_PLUGINS];
} options;

/* The dependency checker's arguments (after parse): 0 for a usage error. */
static int parse_command(const options *o)
{
    int args = (o->in != NULL) + (o->out != NULL) + (o->third != NULL);
    if (o->flags || o->deps || o->dump || o->decompile || o->decompile_flags) return 0;
    if (strcmp(o->command, "deps") == 0) return args == 1 && !o->dry_run && !o->no_sync;
    if (strcmp(o->command, "refs") == 0) return args == 2 && !o->dry_run && !o->unused && !o->no_sync;
    return args == 3 && !o->unused; /* rename */
}

/* Reads the command line into o; 0 for a usage error. */
static int parse(int argc, char **argv, options *o)
{
    int a;
    memset(o, 0, sizeof *o);
    for (a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--big-endian") == 0) o->flags |= ECS_COMPILER_BIG_ENDIAN;
        else if (strcmp(argv[a], "--prefab") == 0) o->flags |= ECS_COMPILER_PREFAB;
        else if (strcmp(argv[a], "--names") == 0) o->flags |= ECS_COMPILER_NAMES;
        else if (strcmp(argv[a], "--deps") == 0) o->deps = 1;
        else if (strcmp(argv[a], "--dump") == 0) o->dump = 1;
        else if (strcmp(argv[a], "--decompile") == 0) o->decompile = 1;
        else if (strcmp(argv[a], "--all-members") == 0) o->decompile_flags |= ECS_DECOMPILE_ALL_MEMBERS;
        else if (strcmp(argv[a], "--unused") == 0) o->unused = 1;
        else if (strcmp(argv[a], "--dry-run") == 0) o->dry_run = 1;
        else if (strcmp(argv[a], "--no-sync") == 0) o->no_sync = 1;
        else if (strcmp(argv[a], "--plugin") == 0 && a + 1 < argc && o->num_plugins < MAX_PLUGINS)
            o->plugins[o->num_plugins++] = argv[++a];
        else if (strcmp(argv[a], "--schema") == 0 && a + 1 < argc && o->num_schemas < MAX_PLUGINS)
            o->schemas[o->num_schemas++] = argv[++a];
        else if (argv[a][0] == '-' && argv[a][1]) return 0;
        else if (!o->command && !o->in && (!strcmp(argv[a], "deps") || !strcmp(argv[a], "refs") || !strcmp(argv[a], "rename")))
            o->command = argv[a];
        else if (!o->in) o->in = argv[a];
        else if (!o->out) o->out = argv[a];
        else if (o->command && !o->third) o->third = argv[a];
        else return 0;
    }
    if (o->command) return parse_command(o);
    if (o->unused || o->dry_run || o->no_sync) return 0;
    if (!o->in || o->dump + o->decompile + (o->flags || o->deps) > 1) return 0;
    if (o->dump) return o->out == NULL && !o->decompile_flags;
    if (o->decompile) return 1;
    return (o->out || o->deps) && !o->decompile_flags;
}

static int run_compile(const ecs_compiler *c, const options *o)
{
    size_t len = 0;
    char *json = read_all(o->in, &len);
    ecs_compiler_output blob;
    ecs_error err;
    ecs_result r;
    uint32_t i;
    if (!json) {
        fprintf(stderr, "levelc: cannot read %s\n", o->in);
        return 1;
    }
    r = ecs_compiler_compile(c, json, len, o->flags, &blob, &err);
    free(json);
    if (r != ECS_OK) {
        fprintf(stderr, "%s: %s: %s\n", o->in, ecs_result_name(r), err.message);
        return 1;
    }
    if (o->deps)
        for (i = 0; i < blob.num_dependencies; ++i) printf("%s\n", blob.dependency[i]);
    if (o->out && !write_atomically(o->out, blob.blob, blob.size)) r = ECS_ERROR_IO;
    ecs_compiler_output_free(&blob);
    return r == ECS_OK ? 0 : 1;
}

/* A registry that publishes the compiler (and a spawner that never spawns:
   plugins register spawn functions too), with every --plugin loaded. NULL
   after an error (printed). */
static ecs_plugin_registry *load_plugins(const options *o, ecs_compiler *c, ecs_spawner *sp)
{
    ecs_plugin_registry *reg;
    ecs_error err;
    uint32_t i;
    if (!o->num_plugins) return NULL;
    reg = ecs_plugin_registry_create(NULL, &err);
    if (reg && ecs_plugin_publish_resources(reg, c, sp, &err) == ECS_OK) {
        for (i = 0; i < o->num_plugins; ++i)
            if (ecs_plugin_load(reg, o->plugins[i], NULL, &err) != ECS_OK) break;
        if (i == o->num_plugins) return reg;
        fprintf(stderr, "levelc: plugin %s: %s: %s\n", o->plugins[i], ecs_result_name(err.code), err.message);
    } else {
        fprintf(stderr, "levelc: plugins: %s\n", err.message);
    }
    ecs_plugin_registry_destroy(reg);
    return NULL;
}

/* --snapshot-dump: a snapshot (either byte order) as JSON on stdout. */
static int run_snapshot_dump(const char *path)
{
    size_t len = 0;
    char *blob = read_all(path, &len);
    ecs_snapshot_output text = {NULL, 0};
    ecs_error err;
    ecs_result r;
    if (!blob) {
        fprintf(stderr, "levelc: cannot read %s\n", path);
        return 1;
    }
    r = ecs_snapshot_verify(blob, len, &err);
    if (r == ECS_ERROR_WRONG_BYTE_ORDER) r = ecs_snapshot_swap(blob, len, &err);
    if (r == ECS_OK) r = ecs_snapshot_to_json(blob, len, &text, &err);
    if (r == ECS_OK && fwrite(text.data, 1, text.size, stdout) != text.size) r = ECS_ERROR_IO;
    if (r != ECS_OK) fprintf(stderr, "levelc: %s: %s\n", path, r == ECS_ERROR_IO ? "cannot write stdout" : err.message);
    ecs_snapshot_output_free(&text);
    free(blob);
    return r == ECS_OK ? 0 : 1;
}

/* What decides how sources read, for the cache: every --schema file's bytes
   and every --plugin file's path and bytes (not its size and time: a plugin
   rebuilt within the same second to the same size is another plugin). */
#if !defined(_WIN32)
static uint64_t types_hash(const options *o)
{
    uint64_t h = ldeps_fnv(LDEPS_FNV_START, "levelc types", 12);
    uint32_t i;
    for (i = 0; i < o->num_schemas + o->num_plugins; ++i) {
        int schema = i < o->num_schemas;
        const char *file = schema ? o->schemas[i] : o->plugins[i - o->num_schemas];
        size_t len = 0;
        char *bytes = read_all(file, &len);
        if (!schema) h = ldeps_fnv(h, file, strlen(file) + 1);
        h = ldeps_fnv(h, bytes ? bytes : "", bytes ? len : 0);
        h = ldeps_fnv(h, &len, sizeof len);
        free(bytes);
    }
    return h;
}

/* deps, refs, rename (examples/levelc_deps.h). */
static int run_checker(const ecs_compiler *c, const options *o)
{
    char dir[LDEPS_MAX_PATH + 1];
    size_t n = strlen(o->in);
    while (n > 1 && o->in[n - 1] == '/') --n; /* "project/" prints as "project/levels/a.json" */
    if (n > LDEPS_MAX_PATH) {
        fprintf(stderr, "levelc: %s: path too long\n", o->in);
        return 1;
    }
    memcpy(dir, o->in, n), dir[n] = 0;
    if (strcmp(o->command, "deps") == 0) return ldeps_run_deps(dir, c, types_hash(o), o->unused);
    if (strcmp(o->command, "refs") == 0) return ldeps_run_refs(dir, c, types_hash(o), o->out);
    ldeps_sync = !o->no_sync;
    return ldeps_run_rename(dir, c, types_hash(o), o->out, o->third, o->dry_run);
}
#else
static int run_checker(const ecs_compiler *c, const options *o)
{
    (void)c;
    fprintf(stderr, "levelc: %s: the dependency checker needs a POSIX system (examples/levelc_deps.h)\n", o->command);
    return 2;
}
#endif

int main(int argc, char **argv)
{
    options o;
    ecs_compiler compiler;
    ecs_spawner spawner;
    ecs_plugin_registry *plugins = NULL;
    ecs_world world;
    ecs_error err;
    int status = 1, types;
    if (argc == 3 && strcmp(argv[1], "--snapshot-dump") == 0) return run_snapshot_dump(argv[2]);
    if (!parse(argc, argv, &o)) return usage();
    ecs_compiler_init(&compiler);
    ecs_spawner_init(&spawner);
    if (ecs_compiler_register_standard(&compiler, &err) != ECS_OK) {
        fprintf(stderr, "levelc: %s\n", err.message);
        return 1;
    }
    if (ecs_world_init(&world) != ECS_OK) {
        fprintf(stderr, "levelc: out of memory\n");
        return 1;
    }
    types = load_schemas(o.schemas, o.num_schemas, &world);
    if (types && ecs_compiler_register_world(&compiler, &world, &err) != ECS_OK) {
        fprintf(stderr, "levelc: %s: %s\n", o.num_schemas == 1 ? o.schemas[0] : "--schema", err.message);
        types = 0;
    }
    if (types) plugins = load_plugins(&o, &compiler, &spawner);
    if (types && (!o.num_plugins || plugins)) {
        if (o.command) status = run_checker(&compiler, &o);
        else if (o.dump) status = run_dump(&compiler, o.in);
        else if (o.decompile) status = run_decompile(&compiler, o.in, o.out, o.decompile_flags);
        else status = run_compile(&compiler, &o);
    }
    ecs_plugin_registry_destroy(plugins); /* unloads, and takes the plugins' types out of the compiler */
    ecs_spawner_free(&spawner);
    ecs_compiler_free(&compiler);
    ecs_world_free(&world);
    return status;
}
