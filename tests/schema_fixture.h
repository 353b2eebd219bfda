/* tests/schema_fixture.h - a schema with one field of every kind (and a
   runtime field), shared by test_resource_schema.c and fuzz_decompile.c. */
#ifndef SCHEMA_FIXTURE_H
#define SCHEMA_FIXTURE_H
#define GADGET_SCHEMA(X)                                               \
    X(f32, power, "{\"default\": 1, \"min\": 0, \"max\": 100}")        \
    X(f64, precise, "0.1")                                             \
    X(i32, delta, "-1")                                                \
    X(u32, count, "0")                                                 \
    X(u64, serial, "0")                                                \
    X(bool, enabled, "true")                                           \
    X(vec2, uv, "[0, 0]")                                              \
    X(vec3, offset, "[0, 0, 0]")                                       \
    X(vec4, color, "[1, 1, 1, 1]")                                     \
    X(quat, spin, "[0, 0, 0, 1]")                                      \
    X(mat4, frame, "[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]")             \
    X(path, sound, "\"sounds/hum\"")                                   \
    X(entity, target, "null")                                          \
    X(f32, heat, ECS_FIELD_RUNTIME)
#endif
