/* tests/test_plugin_flecs_macro.c - ecs_plugin.h (declarations and
   implementation) compiles in a file that has a function-like macro named
   ecs_entity, as flecs.h defines one: users compile one benchmark file that
   includes several entity systems. The macro is defined after ecs.h and
   before ecs_plugin.h; any place where ecs_plugin.h writes the type name
   followed by an opening parenthesis would expand it and fail to compile. */
#define ECS_IMPLEMENTATION
#include "ecs.h"

#define ecs_entity(world, ...) flecs_style_macro_expanded_here(world, __VA_ARGS__)

#define ECS_PLUGIN_IMPLEMENTATION
#include "ecs_plugin.h"
#include "ecs_plugin.h" /* twice: the include guard */

#include "test.h"

#include <string.h>

int main(void)
{
    ecs_entity_manager em;
    ecs_plugin_registry_desc desc;
    ecs_plugin_registry *reg;
    const ecs_entities_api_v0 *ents;
    ecs_error err;
    ecs_entity_manager_init(&em);
    memset(&desc, 0, sizeof desc);
    desc.entities = &em;
    reg = ecs_plugin_registry_create(&desc, &err);
    CHECK(reg != NULL);
    if (reg) {
        ents = (const ecs_entities_api_v0 *)ecs_plugin_registry_get_api(reg)(ECS_API_ENTITIES, 0);
        CHECK(ents != NULL);
        if (ents) {
            ecs_entity e = ents->create(ents->entities); /* the type name, not followed by a parenthesis */
            CHECK(ents->alive(&em, e) && ents->count(&em) == 1);
            CHECK(ents->destroy(&em, e) == 1 && !ents->alive(&em, e));
        }
        ecs_plugin_registry_destroy(reg);
    }
    ecs_entity_manager_free(&em);
    return test_report("test_plugin_flecs_macro");
}
