/* tests/snapshot_schemas.h - the components of the snapshot tests' world
   (tests/snapshot_fixture.h) and of tests/fuzz_snapshot.c, which replays
   snapshots of that world: a body (two vec3), a health with every scalar
   kind, an entity reference and a path, a heading (quat), an item (u64,
   i32) and a raw manager without a schema. Include after ecs.h. */
#ifndef SNAPSHOT_SCHEMAS_H_INCLUDED
#define SNAPSHOT_SCHEMAS_H_INCLUDED

static const ecs_schema_field body_schema[] = {
    {"position", ECS_FIELD_VEC3, "[0, 0, 0]"}, {"velocity", ECS_FIELD_VEC3, "[0, 0, 0]"}};
static const ecs_schema_field health_schema[] = {
    {"hp", ECS_FIELD_F32, "100"}, {"armor", ECS_FIELD_U32, "0"}, {"flags", ECS_FIELD_BOOL, "false"},
    {"target", ECS_FIELD_ENTITY, "null"}, {"mesh", ECS_FIELD_PATH, "\"models/box\""}, {"mass", ECS_FIELD_F64, "1"}};
static const ecs_schema_field heading_schema[] = {{"dir", ECS_FIELD_QUAT, "[0, 0, 0, 1]"}};
static const ecs_schema_field item_schema[] = {{"id", ECS_FIELD_U64, "0"}, {"count", ECS_FIELD_I32, "1"}};
static const ecs_field_desc raw_fields[] = {{"bits", 4, 4}, {"byte", 1, 1}};

#endif
