/* tests/test_transform_readme.c - the QUICK START of ecs_transform.h, compiled
   and run as it is printed, plus a check that the header still shows exactly
   the code between the QUICK START markers below (run from the repo root). */
#define main quick_start_main
/* QUICK START BEGIN */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_TRANSFORM_IMPLEMENTATION
#include "ecs_transform.h"
#include <stdio.h>

int main(void) {
    ecs_entity_manager em;
    ecs_transform_manager world;
    ecs_entity car, wheel;
    ecs_vec3 right = {1, 0, 0}, up = {0, 2, 0};
    ecs_mat4 m = ecs_mat4_translation(right);
    ecs_instance c, w;
    const ecs_mat4 *at;

    ecs_entity_manager_init(&em);
    car = ecs_entity_create(&em);
    wheel = ecs_entity_create(&em);
    ecs_transform_manager_init(&world, ECS_LOOKUP_DENSE, ECS_TRANSFORM_IMMEDIATE);
    ecs_entity_on_destroy(&em, ecs_transform_on_entity_destroy, &world);
    c = ecs_transform_create(&world, car, NULL, ecs_instance_nil()); // root at 0,0,0
    w = ecs_transform_create(&world, wheel, &m, c);                  // 1 right of the car
    m = ecs_mat4_translation(up);
    ecs_transform_set_local(&world, c, &m);  // the car moves up, the wheel follows
    at = ecs_transform_world(&world, w);
    printf("wheel at %g %g %g\n", at->m[12], at->m[13], at->m[14]); // 1 2 0
    for (w = ecs_transform_first_child(&world, c); !ecs_instance_is_nil(w);
         w = ecs_transform_next_sibling(&world, w))
        printf("child of the car: entity %u\n", (unsigned)ecs_transform_entity(&world, w).id);
    ecs_entity_destroy(&em, car);  // its transform goes; the wheel stays where it was
    at = ecs_transform_world(&world, ecs_transform_lookup(&world, wheel));
    printf("wheel at %g %g %g\n", at->m[12], at->m[13], at->m[14]); // 1 2 0
    ecs_transform_manager_free(&world);
    ecs_entity_manager_free(&em);
    return 0;
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
    CHECK(test_read_block("ecs_transform.h", "QUICK START (compiled", "CONVENTION", 4, doc, sizeof doc));
    CHECK(test_read_block("tests/test_transform_readme.c", "QUICK START BEGIN", "QUICK START END", 0, code, sizeof code));
    /* the doc block starts with a blank line and ends with one */
    n = strlen(doc);
    CHECK(n > 2 && doc[0] == '\n' && doc[n - 1] == '\n' && doc[n - 2] == '\n');
    if (n > 2) {
        doc[n - 1] = '\0';
        CHECK_MSG(strcmp(doc + 1, code) == 0, "the QUICK START in ecs_transform.h and this file differ");
    }
    return test_report("test_transform_readme");
}
