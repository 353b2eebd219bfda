/* tests/test_systems_scalar.c - all of tests/test_systems.c again with the
   direct path's match bits in plain C (ECS_NO_SIMD), so that both paths are
   checked. */
#define ECS_NO_SIMD 1
#include "test_systems.c"
