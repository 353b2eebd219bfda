/* examples/gen_level.c - writes the benchmark's standard level (README, Benchmark) as
   JSON for examples/levelc.c:

     cc -O2 -o gen_level examples/gen_level.c -lm
     ./gen_level > level.json                 10,000 entities, seed 1
     ./gen_level 100000 7 > big.json          entities, seed

   Every entity has a transform; 50% (the even-numbered) a mesh, 10% (number
   % 10 == 5) an actor; 30% (number % 10 < 3) are roots, every other entity
   has a random earlier entity as its parent. Children are written nested
   under their parent, so the compiler renumbers the entities depth-first
   (same shape, parents first). The same arguments always give the same text;
   the random numbers are xorshift64* with the seed, as in bench/bench.c. */
#include <math.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rng;
static uint64_t next_random(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}
/* uniform in [0, n) */
static uint32_t below(uint32_t n) { return (uint32_t)(((next_random() >> 32) * n) >> 32); }
/* uniform in [lo, hi) with 1/1000 steps */
static double between(double lo, double hi) { return lo + (hi - lo) * (double)below(1000) / 1000.0; }

#define NONE 0xFFFFFFFFu
#define CLOSE 0xFFFFFFFEu

/* text as a whole decimal number (nothing after the digits) in *out: 1, or 0. */
static int read_number(const char *text, unsigned long *out)
{
    char *end;
    if (text[0] < '0' || text[0] > '9') return 0;
    errno = 0;
    *out = strtoul(text, &end, 10);
    return *end == '\0' && errno != ERANGE;
}

int main(int argc, char **argv)
{
    uint32_t n = 10000, k, sp = 0, need_comma = 0;
    uint32_t *parent, *first_child, *next_sibling, *last_child, *stack;
    unsigned long seed = 1, wanted = 0;
    if (argc > 1 && read_number(argv[1], &wanted) && wanted >= 1 && wanted <= 4000000ul) n = (uint32_t)wanted;
    else if (argc > 1) n = 0; /* refused below */
    if (argc > 3 || n == 0 || (argc > 2 && !read_number(argv[2], &seed))) {
        fprintf(stderr, "usage: gen_level [entities (1..4000000, default 10000) [seed (default 1)]] > level.json\n");
        return 2;
    }
    rng = seed ? (uint64_t)seed : 1u;
    parent = (uint32_t *)malloc(n * sizeof *parent);
    first_child = (uint32_t *)malloc(n * sizeof *first_child);
    next_sibling = (uint32_t *)malloc(n * sizeof *next_sibling);
    last_child = (uint32_t *)malloc(n * sizeof *last_child);
    stack = (uint32_t *)malloc(2u * n * sizeof *stack);
    if (!parent || !first_child || !next_sibling || !last_child || !stack) {
        fprintf(stderr, "gen_level: out of memory\n");
        return 1;
    }
    for (k = 0; k < n; ++k) {
        parent[k] = k % 10 < 3 ? NONE : below(k);
        first_child[k] = next_sibling[k] = last_child[k] = NONE;
        if (parent[k] != NONE) {
            uint32_t p = parent[k];
            if (last_child[p] == NONE) first_child[p] = k;
            else next_sibling[last_child[p]] = k;
            last_child[p] = k;
        }
    }
    /* depth-first, iteratively: the stack holds entities to write and CLOSE
       marks for the end of a children array */
    printf("{\"entities\": [\n");
    for (k = n; k-- > 0;)
        if (parent[k] == NONE) stack[sp++] = k;
    while (sp) {
        uint32_t v = stack[--sp], c, count = 0;
        double x, y, z, angle;
        if (v == CLOSE) {
            printf("]}");
            need_comma = 1;
            continue;
        }
        if (need_comma) printf(",\n");
        /* one random number after the other (argument order is unspecified) */
        x = between(-100, 100);
        y = between(0, 10);
        z = between(-100, 100);
        angle = between(0, 6.283);
        printf("{\"name\": \"e%u\", \"components\": [{\"type\": \"transform\", \"position\": [%.3f, %.3f, %.3f], "
               "\"rotation\": [0, %.6f, 0, %.6f]}",
               (unsigned)v, x, y, z, sin(angle / 2), cos(angle / 2));
        if (v % 2 == 0) {
            uint32_t prop = below(16), flags = below(4);
            printf(", {\"type\": \"mesh\", \"mesh\": \"models/prop_%02u\", \"flags\": %u}", (unsigned)prop,
                   (unsigned)flags);
        }
        if (v % 10 == 5) {
            double mass = between(1, 100), radius = between(0.25, 2);
            printf(", {\"type\": \"actor\", \"mass\": %.2f, \"radius\": %.2f}", mass, radius);
        }
        printf("]");
        if (first_child[v] == NONE) {
            printf("}");
            need_comma = 1;
            continue;
        }
        printf(", \"children\": [\n");
        stack[sp++] = CLOSE;
        for (c = first_child[v]; c != NONE; c = next_sibling[c]) ++count;
        /* push the children so that the first comes out first */
        sp += count;
        for (c = first_child[v], k = 0; c != NONE; c = next_sibling[c], ++k) stack[sp - 1 - k] = c;
        need_comma = 0;
    }
    printf("\n]}\n");
    free(parent);
    free(first_child);
    free(next_sibling);
    free(last_child);
    free(stack);
    return 0;
}
