/* tests/test_resource_scalar.c - tests/test_resource.c again with the verify
   loops in plain C (ECS_RESOURCE_NO_SIMD), so that both paths are checked. */
#define ECS_RESOURCE_NO_SIMD 1
#include "test_resource.c"
