/* tests/plugins/fixture.h - what tests/test_plugin.c and its fixture plugins
   share: test-only API ids and structs, and good.c's state layout (the test
   reads it through ecs_plugin_get_info). */
#ifndef FIXTURE_H_INCLUDED
#define FIXTURE_H_INCLUDED
#include "ecs_plugin.h"

#define FIXTURE_PROBE_API (ECS_API_USER + 0) /* the test publishes v0 */
#define FIXTURE_SIDE_API (ECS_API_USER + 1)  /* the test publishes v0 and v1 side by side */
#define FIXTURE_GOOD_API (ECS_API_USER + 10) /* good.c publishes v0 */
#define FIXTURE_HOOK_API (ECS_API_USER + 2)  /* the test publishes v0 for hooked.c */
#define FIXTURE_LOADER_API (ECS_API_USER + 3) /* the test publishes v0 for loads_dep.c */

/* What fixtures report through the probe. */
enum fixture_event {
    FIXTURE_EVENT_INIT = 1,     /* value: the build (FIXTURE_BUILD) */
    FIXTURE_EVENT_SHUTDOWN,     /* value: the build */
    FIXTURE_EVENT_ENTITIES_V,   /* value: ECS_API_ENTITIES version obtained, -1 none */
    FIXTURE_EVENT_SIDE_V,       /* value: FIXTURE_SIDE_API version obtained, -1 none */
    FIXTURE_EVENT_SIDE_RESULT,  /* value: what the side API computed */
    FIXTURE_EVENT_INIT_FAILS    /* value: the build (FIXTURE_FAIL_INIT, before it fails) */
};

typedef struct fixture_probe_api_v0 {
    void *ctx;
    void (*event)(void *ctx, int what, int value);
} fixture_probe_api_v0;

typedef struct fixture_side_api_v0 {
    int (*twice)(int x);
} fixture_side_api_v0;

/* v1 changed twice's signature: a new struct, v0 stays as it was. */
typedef struct fixture_side_api_v1 {
    int (*twice)(int x, int offset);
    int (*add)(int a, int b);
} fixture_side_api_v1;

/* hooked.c calls call(ctx, its HOOKED_ID, FIXTURE_HOOK_*) from its tick, its
   shutdown and its compile function. */
enum fixture_hook { FIXTURE_HOOK_TICK = 1, FIXTURE_HOOK_SHUTDOWN, FIXTURE_HOOK_COMPILE };
typedef struct fixture_hook_api_v0 {
    void *ctx;
    void (*call)(void *ctx, int id, int what);
} fixture_hook_api_v0;

/* loads_dep.c's init loads its dependency through this (the engine's
   ecs_plugin_load, path chosen by the test) unless FIXTURE_GOOD_API is
   there already; a load that fails is ignored with FIXTURE_DEP_OPTIONAL. */
typedef struct fixture_loader_api_v0 {
    void *ctx;
    ecs_result (*load_dependency)(void *ctx, ecs_error *err);
} fixture_loader_api_v0;

typedef struct fixture_good_api_v0 {
    int (*build)(void); /* the FIXTURE_BUILD of the code that runs */
} fixture_good_api_v0;

#define FIXTURE_STATE_MAGIC 0x46495854u
#define FIXTURE_STATE_LAYOUT 1u

/* The component good.c adds: {"type": "fixture_health", "hp": 5} compiles to
   the 8-byte record {float hp; uint32 compiled_by}; its manager has the fields
   hp (float), compiled_by, spawned_by (uint32: FIXTURE_BUILD of the code that
   compiled / spawned the instance). */
#define FIXTURE_HEALTH_RECORD_SIZE 8u

typedef struct fixture_state {
    uint32_t magic, layout; /* a new build checks these before adopting the state */
    int build;              /* FIXTURE_BUILD of the build whose init ran last */
    int inits;              /* inits that ran on this state */
    long counter;           /* += FIXTURE_STEP per tick */
    const ecs_components_api_v0 *components;
    const fixture_probe_api_v0 *probe;
    ecs_manager *health;
} fixture_state;

#endif
