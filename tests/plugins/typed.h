/* tests/plugins/typed.h - the "turret" component of tests/plugins/typed.c,
   shared with tests/test_plugin_schema.c so that the engine side views the
   same manager through the same typed struct. */
#ifndef TYPED_H_INCLUDED
#define TYPED_H_INCLUDED
#include "ecs_plugin.h"

#ifdef TYPED_CHANGED_SCHEMA /* a build whose level format changed: no hot reload */
#define TURRET_RANGE_SPEC "{\"default\": 20, \"min\": 0}"
#else
#define TURRET_RANGE_SPEC "{\"default\": 10, \"min\": 0}"
#endif

/* A turret aims at its ship (an entity of the same level) and counts its
   shots (runtime state: never in levels). */
#define TURRET_SCHEMA(X)                       \
    X(entity, ship, ECS_FIELD_REQUIRED)        \
    X(f32, range, TURRET_RANGE_SPEC)           \
    X(vec3, muzzle, "[0, 0.5, 1]")             \
    X(u32, shots, ECS_FIELD_RUNTIME)
ECS_MANAGER_VIEW_DEFINE_SCHEMA(turret_view, TURRET_SCHEMA)

/* A component defined the version 0 way (a field table), viewed typed too. */
#define FLAG_FIELDS(X) X(uint32_t, bits) X(float, weight)
ECS_MANAGER_VIEW_DEFINE(flag_view, FLAG_FIELDS)
#endif
