/* tests/test_transform_deferred_scalar.c - all of tests/test_transform_deferred.c
   again with the scalar matrix path (ECS_TRANSFORM_SSE 0): deferred and
   immediate mode must agree bit for bit on the reference kernel too. */
#define ECS_TRANSFORM_SSE 0
#include "test_transform_deferred.c"
