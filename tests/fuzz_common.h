/* tests/fuzz_common.h - what the fuzz harnesses (tests/fuzz_*.c) share
   (include it after ecs_resource.h, and after ecs_transform.h where the
   harness spawns):
   - FUZZ_CHECK(cond): names the failed condition and its line on stderr and
     aborts, so that libFuzzer keeps the input;
   - with ecs_transform.h, fuzz_world: the world a harness spawns into
     (entities, transforms, the standard "mesh" and "actor" managers and
     resource_fixture.h's "label" component, all registered in one spawner;
     its functions are static inline, so a harness that includes
     ecs_transform.h for other reasons compiles warning-free);
   - with FUZZ_STANDALONE, the plain main of a harness: it replays the files
     and folders named on the command line through LLVMFuzzerTestOneInput,
     then calls the harness's fuzz_cleanup(). A folder that cannot be read
     to the end fails the replay. (A 32-bit build needs _FILE_OFFSET_BITS 64
     defined before any include, or readdir may fail with EOVERFLOW:
     tests/test_resource.c shows how.)
   and resource_fixture.h (the "label" component, a file reader). */
#ifndef FUZZ_COMMON_H_INCLUDED
#define FUZZ_COMMON_H_INCLUDED
#include "resource_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

#ifdef ECS_TRANSFORM_H_INCLUDED
typedef struct fuzz_world {
    ecs_entity_manager em;
    ecs_transform_manager tm;
    ecs_manager mesh, actor; /* the standard records' fields */
    label_store labels;      /* label data is bytes: the same in both byte orders */
    ecs_spawner sp;          /* transform, mesh, actor and label */
} fuzz_world;

/* Each lookup kind as given: the harnesses differ there on purpose. */
static inline void fuzz_world_init(fuzz_world *w, ecs_lookup_kind tm_kind, ecs_lookup_kind mesh_kind,
                            ecs_lookup_kind actor_kind)
{
    static const ecs_field_desc mesh_fields[] = {{"mesh", 8, 8}, {"flags", 4, 4}};
    static const ecs_field_desc actor_fields[] = {{"mass", 4, 4}, {"radius", 4, 4}};
    ecs_error err;
    memset(&w->labels, 0, sizeof w->labels);
    ecs_entity_manager_init(&w->em);
    FUZZ_CHECK(ecs_transform_manager_init(&w->tm, tm_kind, ECS_TRANSFORM_IMMEDIATE) == ECS_OK);
    FUZZ_CHECK(ecs_manager_init(&w->mesh, mesh_fields, 2, mesh_kind) == ECS_OK);
    FUZZ_CHECK(ecs_manager_init(&w->actor, actor_fields, 2, actor_kind) == ECS_OK);
    ecs_spawner_init(&w->sp);
    FUZZ_CHECK(ecs_spawner_register(&w->sp, "transform", ecs_transform_spawn, ecs_transform_unspawn,
                                    ECS_RESOURCE_TRANSFORM_SIZE, &w->tm, &err) == ECS_OK);
    FUZZ_CHECK(ecs_spawner_register(&w->sp, "mesh", ecs_manager_spawn, ecs_manager_unspawn, ECS_RESOURCE_MESH_SIZE,
                                    &w->mesh, &err) == ECS_OK);
    FUZZ_CHECK(ecs_spawner_register(&w->sp, "actor", ecs_manager_spawn, ecs_manager_unspawn, ECS_RESOURCE_ACTOR_SIZE,
                                    &w->actor, &err) == ECS_OK);
    FUZZ_CHECK(ecs_spawner_register(&w->sp, "label", label_spawn, label_unspawn, ECS_SPAWNER_VARIABLE_SIZE, &w->labels,
                                    &err) == ECS_OK);
}

/* Component instances alive in the world, of every type. */
static inline uint32_t fuzz_world_instances(const fuzz_world *w)
{
    return ecs_transform_count(&w->tm) + w->mesh.count + w->actor.count + w->labels.live;
}

#ifdef FUZZ_STANDALONE /* only the replay's main frees (a libFuzzer run ends in exit) */
static inline void fuzz_world_free(fuzz_world *w)
{
    ecs_spawner_free(&w->sp);
    ecs_manager_free(&w->mesh);
    ecs_manager_free(&w->actor);
    ecs_transform_manager_free(&w->tm);
    ecs_entity_manager_free(&w->em);
}
#endif
#endif /* ECS_TRANSFORM_H_INCLUDED */

#ifdef FUZZ_STANDALONE
#include <dirent.h>
#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
static void fuzz_cleanup(void);

static int fuzz__replay_file(const char *path)
{
    size_t n = 0;
    char *buf = fixture_read_file(path, &n);
    if (!buf) return 0;
    LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
    free(buf);
    return 1;
}

int main(int argc, char **argv)
{
    int a, files = 0, unread = 0;
    for (a = 1; a < argc; ++a) {
        DIR *d = opendir(argv[a]);
        struct dirent *de;
        if (!d) {
            files += fuzz__replay_file(argv[a]);
            continue;
        }
        for (;;) {
            char path[4096];
            errno = 0;
            if ((de = readdir(d)) == NULL) {
                if (errno != 0) {
                    fprintf(stderr, "%s: reading folder %s: %s\n", argv[0], argv[a], strerror(errno));
                    unread = 1;
                }
                break;
            }
            if (de->d_name[0] == '.') continue;
            snprintf(path, sizeof path, "%s/%s", argv[a], de->d_name);
            files += fuzz__replay_file(path);
        }
        closedir(d);
    }
    printf("%s: replayed %d inputs\n", argv[0], files);
    fuzz_cleanup();
    return files > 0 && !unread ? 0 : 1;
}
#endif
#endif
