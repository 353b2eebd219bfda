/* examples/levelc.c - the level compiler: JSON in, resource blob out.

     cc -O2 -I. -I/usr/include/stb -o levelc examples/levelc.c -lm
     ./levelc level.json level.bin               compile (little-endian)
     ./levelc --big-endian level.json level.bin  compile for a big-endian target
     ./levelc --prefab crate.json crate.bin      also require exactly one root
     ./levelc --deps level.json [level.bin]      list the resources it refers to
     ./levelc --dump level.bin                   print any blob as text

   The standard components (transform, mesh, actor) are registered with
   ecs_compiler_register_standard, the same compile functions an engine uses.
   The blob is written to OUT.tmp and renamed to OUT only when everything
   succeeded, so a failed compile never leaves a half-written blob behind (an
   old OUT stays as it was). Errors go to stderr with the JSON path or line and
   column; the exit status is 0 on success, 1 on a compile or I/O error, 2 on
   a usage error. --dump verifies first and also reads blobs of the other byte
   order (converted with ecs_resource_swap for display). */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: levelc [--big-endian] [--prefab] [--deps] IN.json [OUT]\n"
                    "       levelc --dump IN.blob\n");
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

static const char *standard_name(uint32_t id)
{
    if (id == ECS_RESOURCE_TRANSFORM_ID) return "transform";
    if (id == ECS_RESOURCE_MESH_ID) return "mesh";
    if (id == ECS_RESOURCE_ACTOR_ID) return "actor";
    return NULL;
}

static void dump_hex(const unsigned char *p, uint32_t n)
{
    uint32_t i;
    for (i = 0; i < n; ++i) printf("%s%02X", i ? " " : "", (unsigned)p[i]);
}

/* Prints a verified blob in this machine's byte order. */
static void dump(const void *blob, uint32_t size, const char *order)
{
    uint32_t ne = ecs_resource_num_entities(blob), nt = ecs_resource_num_component_types(blob), k, t, off;
    const uint32_t *parent = ecs_resource_parent_index(blob);
    printf("resource: %u bytes, version %u, %s, %u entities, %u component types\n", (unsigned)size,
           (unsigned)ECS_RESOURCE_VERSION, order, (unsigned)ne, (unsigned)nt);
    printf("entity  parent\n");
    for (k = 0; k < ne; ++k) {
        if (parent[k] == ECS_RESOURCE_ROOT) printf("%6u  root\n", (unsigned)k);
        else printf("%6u  %u\n", (unsigned)k, (unsigned)parent[k]);
    }
    for (t = 0, off = ecs_resource_first_block(blob); t < nt; ++t) {
        ecs_resource_block b = ecs_resource_block_at(blob, off);
        const char *name = standard_name(b.identifier);
        const unsigned char *d = (const unsigned char *)b.data;
        uint32_t j, rec = 0;
        printf("block %u at offset %u: %s (0x%08X), %u instances, %u bytes\n", (unsigned)t, (unsigned)off,
               name ? name : "unknown", (unsigned)b.identifier, (unsigned)b.num_instances, (unsigned)b.size);
        if (b.identifier == ECS_RESOURCE_TRANSFORM_ID) rec = ECS_RESOURCE_TRANSFORM_SIZE;
        if (b.identifier == ECS_RESOURCE_MESH_ID) rec = ECS_RESOURCE_MESH_SIZE;
        if (b.identifier == ECS_RESOURCE_ACTOR_ID) rec = ECS_RESOURCE_ACTOR_SIZE;
        if (rec && (uint64_t)rec * b.num_instances != b.size) rec = 0; /* not the standard layout: hex */
        if (!rec && b.num_instances && b.size % b.num_instances == 0) {
            uint32_t each = b.size / b.num_instances;
            for (j = 0; j < b.num_instances; ++j) {
                printf("  entity %u:%s", (unsigned)b.entity_index[j], each ? " " : " (no data)");
                dump_hex(d + (size_t)j * each, each);
                printf("\n");
            }
        } else if (!rec) {
            printf("  entities:");
            for (j = 0; j < b.num_instances; ++j) printf(" %u", (unsigned)b.entity_index[j]);
            printf("\n  data: ");
            dump_hex(d, b.size);
            printf("\n");
        }
        for (j = 0; rec && j < b.num_instances; ++j, d += rec) {
            printf("  entity %u: ", (unsigned)b.entity_index[j]);
            if (b.identifier == ECS_RESOURCE_TRANSFORM_ID) {
                float m[16];
                int i;
                memcpy(m, d, sizeof m);
                printf("local [");
                for (i = 0; i < 16; ++i) printf("%s%g", i == 0 ? "" : i % 4 == 0 ? " | " : " ", (double)m[i]);
                printf("]\n");
            } else if (b.identifier == ECS_RESOURCE_MESH_ID) {
                uint64_t mesh;
                uint32_t flags;
                memcpy(&mesh, d, 8);
                memcpy(&flags, d + 8, 4);
                printf("mesh 0x%016llX flags %u\n", (unsigned long long)mesh, (unsigned)flags);
            } else {
                float mass, radius;
                memcpy(&mass, d, 4);
                memcpy(&radius, d + 4, 4);
                printf("mass %g radius %g\n", (double)mass, (double)radius);
            }
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

static int run_dump(const char *path)
{
    size_t len = 0;
    char *blob = read_all(path, &len);
    ecs_error err;
    ecs_result r;
    const char *native = host_big_endian() ? "big-endian" : "little-endian";
    const char *foreign = host_big_endian() ? "little-endian" : "big-endian";
    if (!blob) {
        fprintf(stderr, "levelc: cannot read %s\n", path);
        return 1;
    }
    r = ecs_resource_verify(blob, len, &err);
    if (r == ECS_ERROR_WRONG_BYTE_ORDER) { /* convert a copy for display */
        r = ecs_resource_swap(blob, len, ecs_resource_swap_standard, NULL, &err);
        if (r == ECS_OK) dump(blob, (uint32_t)len, foreign);
    } else if (r == ECS_OK) {
        dump(blob, (uint32_t)len, native);
    }
    if (r != ECS_OK) fprintf(stderr, "levelc: %s: %s\n", path, err.message);
    free(blob);
    return r == ECS_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    uint32_t flags = 0, i;
    int deps = 0, a;
    const char *in = NULL, *out = NULL;
    char *json;
    size_t len = 0;
    ecs_compiler compiler;
    ecs_compiler_output blob;
    ecs_error err;
    ecs_result r;
    if (argc == 3 && strcmp(argv[1], "--dump") == 0) return run_dump(argv[2]);
    for (a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--big-endian") == 0) flags |= ECS_COMPILER_BIG_ENDIAN;
        else if (strcmp(argv[a], "--prefab") == 0) flags |= ECS_COMPILER_PREFAB;
        else if (strcmp(argv[a], "--deps") == 0) deps = 1;
        else if (argv[a][0] == '-' && argv[a][1]) return usage();
        else if (!in) in = argv[a];
        else if (!out) out = argv[a];
        else return usage();
    }
    if (!in || (!out && !deps)) return usage();
    json = read_all(in, &len);
    if (!json) {
        fprintf(stderr, "levelc: cannot read %s\n", in);
        return 1;
    }
    ecs_compiler_init(&compiler);
    r = ecs_compiler_register_standard(&compiler, &err);
    if (r == ECS_OK) r = ecs_compiler_compile(&compiler, json, len, flags, &blob, &err);
    free(json);
    ecs_compiler_free(&compiler);
    if (r != ECS_OK) {
        fprintf(stderr, "%s: %s: %s\n", in, ecs_result_name(r), err.message);
        return 1;
    }
    if (deps)
        for (i = 0; i < blob.num_dependencies; ++i) printf("%s\n", blob.dependency[i]);
    if (out && !write_atomically(out, blob.blob, blob.size)) r = ECS_ERROR_IO;
    ecs_compiler_output_free(&blob);
    return r == ECS_OK ? 0 : 1;
}
