/* tests/fuzz_deps_cache.c - libFuzzer harness for the dependency checker's
   cache reader (examples/levelc_deps.h, ldeps_cache_parse: the file
   DIR/.ecs-deps is outside bytes). Each input is read twice: as it is, and
   with its configuration and checksum made right (so the fuzzer gets past
   the checksum into the records).

   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz_deps_cache.c -o fuzz_deps_cache -lm
   ./fuzz_deps_cache NEW_DIR tests/corpus/fuzz_deps_cache
   -DFUZZ_STANDALONE: a main that replays files and folders.

   Checks, beyond "no crash, no sanitizer report, no leak": a cache that is
   accepted writes back to exactly its bytes (nothing is read that the
   writer would not write), every reference lies in a source, and a
   refused one leaves the project empty. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#include "fuzz_common.h"
#include "examples/levelc_deps.h"

/* fixed: the checksum was made right, so the reader must get past it. */
static void read_cache(const unsigned char *data, size_t size, uint64_t config, int fixed)
{
    ldeps_project p;
    ldeps_writer w;
    char why[96];
    uint32_t i, refs = 0;
    memset(&p, 0, sizeof p);
    if (!ldeps_cache_parse(data, size, config, &p, why, sizeof why)) {
        FUZZ_CHECK(p.num_files == 0 && p.files == NULL && p.arena == NULL && why[0]);
        FUZZ_CHECK(!fixed || strstr(why, "checksum") == NULL); /* else the harness tests the checksum only */
        return;
    }
    for (i = 0; i < p.num_files; ++i) {
        FUZZ_CHECK(p.files[i].first_ref == refs && (p.files[i].kind == LDEPS_SOURCE || !p.files[i].num_refs));
        refs += p.files[i].num_refs;
    }
    FUZZ_CHECK(refs == p.num_refs);
    memset(&w, 0, sizeof w);
    ldeps_cache_bytes(&p, config, &w);
    FUZZ_CHECK(w.oom || (w.length == size && memcmp(w.bytes, data, size) == 0));
    free(w.bytes);
    ldeps_project_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *copy;
    uint64_t config = 0, sum;
    if (size >= 24) memcpy(&config, data + 16, 8);
    read_cache(data, size, config, 0);
    if (size < 48 || !(copy = (unsigned char *)malloc(size))) return 0;
    memcpy(copy, data, size);
    memcpy(copy, "ECSDEPS", 8);
    sum = ldeps_checksum(copy, size - 8); /* the reader's own checksum */
    memcpy(copy + size - 8, &sum, 8);
    read_cache(copy, size, config, 1);
    free(copy);
    return 0;
}

#ifdef FUZZ_STANDALONE
static void fuzz_cleanup(void) {}
#endif
