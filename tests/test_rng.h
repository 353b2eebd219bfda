/* tests/test_rng.h - the tests' seeded random numbers (xorshift64*) and
   forged entity ids; include after ecs.h. Each test sets rng_state (never 0)
   before drawing, so its sequence does not depend on the other tests. */
#ifndef TEST_RNG_H_INCLUDED
#define TEST_RNG_H_INCLUDED
#include <stdint.h>

static uint64_t rng_state = 1;
static uint32_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return (uint32_t)((x * 2685821657736338717ull) >> 32);
}
static uint32_t rnd_below(uint32_t n) { return (uint32_t)(((uint64_t)rnd() * n) >> 32); }
static ecs_entity make_id(uint32_t id)
{
    ecs_entity e;
    e.id = id;
    return e;
}
#endif
