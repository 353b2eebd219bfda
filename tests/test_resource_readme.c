/* tests/test_resource_readme.c - the QUICK START of ecs_resource.h, compiled
   and run as it is printed, plus a check that the header still shows exactly
   the code between the QUICK START markers below (run from the repo root). */
#define main quick_start_main
/* QUICK START BEGIN */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#include <stdio.h>
#include <string.h>

// float *mass, *radius, and the schema "actor" levels compile with
ECS_MANAGER_DEFINE_SCHEMA(actor_manager, ECS_RESOURCE_ACTOR_SCHEMA)

int main(void) {
    const char *json = "{\"entities\": [{\"name\": \"ball\", \"components\": ["
                       "{\"type\": \"actor\", \"mass\": 2, \"radius\": 0.25}]}]}";
    ecs_entity_manager em;
    actor_manager actors;
    ecs_compiler compiler;
    ecs_compiler_output out;
    ecs_decompile_output text;
    ecs_spawner spawner;
    ecs_entity ball;
    ecs_error err;
    int ok;

    ecs_entity_manager_init(&em);
    ecs_compiler_init(&compiler);
    ecs_compiler_register_standard(&compiler, &err);  // transform, mesh, actor
    if (ecs_compiler_compile(&compiler, json, strlen(json), 0, &out, &err)) {
        printf("%s\n", err.message);  // "entities[0].components[0] (line 1, ...
        return 1;
    }
    actor_manager_init(&actors, ECS_LOOKUP_HASH);
    ecs_spawner_init(&spawner);
    ecs_spawner_register(&spawner, "actor", ecs_manager_spawn, ecs_manager_unspawn,
                         ECS_RESOURCE_ACTOR_SIZE, &actors.core, &err);
    // verifies the blob, creates the entity, fills the actor manager
    // (the typed pointers, actors.mass and the rest, follow on their own)
    if (ecs_spawner_spawn(&spawner, &em, out.blob, out.size, &ball, &err)) {
        printf("%s\n", err.message);
        return 1;
    }
    ok = actors.mass[actor_manager_lookup(&actors, ball).i] == 2.0f;
    // and back to JSON: {"entities": [ {"components": [ {"type": "actor", "mass": 2, ...
    if (ecs_compiler_decompile(&compiler, out.blob, out.size, 0, &text, &err) == ECS_OK) {
        ok = ok && strstr(text.json, "\"mass\": 2") != NULL;
        ecs_decompile_output_free(&text);
    }
    ecs_compiler_output_free(&out);
    ecs_compiler_free(&compiler);
    ecs_spawner_free(&spawner);
    actor_manager_free(&actors);
    ecs_entity_manager_free(&em);
    return ok ? 0 : 1;
}
/* QUICK START END */
#undef main

#include <string.h>
#include "tests/test.h"

int main(void)
{
    static char doc[8192], code[8192];
    size_t n;
    CHECK(quick_start_main() == 0);
    /* The doc block: from the QUICK START heading to the next section heading. */
    CHECK(test_read_block("ecs_resource.h", "QUICK START (compiled", "FORMAT (version 1", 4, doc, sizeof doc));
    CHECK(test_read_block("tests/test_resource_readme.c", "QUICK START BEGIN", "QUICK START END", 0, code, sizeof code));
    /* the doc block starts with a blank line and ends with one */
    n = strlen(doc);
    CHECK(n > 2 && doc[0] == '\n' && doc[n - 1] == '\n' && doc[n - 2] == '\n');
    if (n > 2) {
        doc[n - 1] = '\0';
        CHECK_MSG(strcmp(doc + 1, code) == 0, "the QUICK START in ecs_resource.h and this file differ");
    }
    return test_report("test_resource_readme");
}
