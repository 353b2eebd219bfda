/* tests/test_transform_scalar.c - all of tests/test_transform.c again with the
   scalar matrix path (ECS_TRANSFORM_SSE 0), so that the manager's loops run on
   the reference kernel too; test_transform.c itself runs the SSE path where
   the target has it and compares the two products directly. */
#define ECS_TRANSFORM_SSE 0
/* the reference model's operations per lookup kind run on the SSE build;
   here 10^5 in all check the scalar kernel under the same calls */
#define TEST_MODEL_OPS 50000
#include "test_transform.c"
