/* tests/transform_shapes.h - hierarchy shapes for test_threads.c and
   bench/bench.c: Bevy's transform_hierarchy stress shapes and the random
   hierarchy of the standard level. A shape is a parent array in creation
   order (each parent before its children, SHAPE_ROOT for a root), built
   level by level as a spawner would create it. */
#ifndef TRANSFORM_SHAPES_H_INCLUDED
#define TRANSFORM_SHAPES_H_INCLUDED
#include <stdint.h>

#define SHAPE_ROOT 0xFFFFFFFFu

typedef enum shape_kind {
    SHAPE_WIDE,      /* a root, `size` children, `size` children each (Bevy: depth 3, 500) */
    SHAPE_HUMANOIDS, /* `size` rigs of 68 nodes (Bevy: 4,000) */
    SHAPE_LARGE,     /* a full binary tree `size` levels deep (Bevy's large tree: depth 18) */
    SHAPE_CHAIN,     /* one chain `size` deep (Bevy: 2,500) */
    SHAPE_RANDOM     /* `size` nodes, 30% roots, the rest under a random earlier node */
} shape_kind;

/* The nodes a shape has. */
static uint32_t shape_count(shape_kind kind, uint32_t size)
{
    switch (kind) {
    case SHAPE_WIDE: return 1u + size + size * size;
    case SHAPE_HUMANOIDS: return 68u * size;
    case SHAPE_LARGE: return (1u << size) - 1u;
    default: return size;
    }
}

/* One 68-node rig from parent[base]: hips, a spine of 4, neck and head 5 on
   top, two arms of 4 with 5 fingers of 4 each, two legs of 5. */
static uint32_t shape_rig(uint32_t *parent, uint32_t base)
{
    uint32_t n = base, top, side, f, k, p;
    parent[n++] = SHAPE_ROOT; /* hips */
    for (k = 0, p = base; k < 4; ++k) parent[n] = p, p = n++;
    top = p;
    for (k = 0; k < 5; ++k) parent[n] = p, p = n++;
    for (side = 0; side < 2; ++side) {
        uint32_t hand;
        for (k = 0, p = top; k < 4; ++k) parent[n] = p, p = n++;
        hand = p;
        for (f = 0; f < 5; ++f)
            for (k = 0, p = hand; k < 4; ++k) parent[n] = p, p = n++;
    }
    for (side = 0; side < 2; ++side)
        for (k = 0, p = base; k < 5; ++k) parent[n] = p, p = n++;
    return n;
}

/* Fills parent[0 .. shape_count(kind, size)) and returns the count. rng is
   the random shape's state (xorshift64*, non-zero). */
static uint32_t shape_build(shape_kind kind, uint32_t size, uint32_t *parent, uint64_t rng)
{
    uint32_t n = shape_count(kind, size), i, k;
    switch (kind) {
    case SHAPE_WIDE:
        parent[0] = SHAPE_ROOT;
        for (i = 1; i < n; ++i) parent[i] = i <= size ? 0u : 1u + (i - 1u - size) / size;
        break;
    case SHAPE_HUMANOIDS:
        for (k = 0, i = 0; k < size; ++k) i = shape_rig(parent, i);
        break;
    case SHAPE_LARGE:
        parent[0] = SHAPE_ROOT;
        for (i = 1; i < n; ++i) parent[i] = (i - 1u) / 2u;
        break;
    case SHAPE_CHAIN:
        for (i = 0; i < n; ++i) parent[i] = i ? i - 1u : SHAPE_ROOT;
        break;
    case SHAPE_RANDOM:
        for (i = 0; i < n; ++i) {
            uint32_t r;
            rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
            r = (uint32_t)((rng * 2685821657736338717ull) >> 32);
            parent[i] = i == 0 || r % 10u < 3u ? SHAPE_ROOT : (uint32_t)(((uint64_t)(r >> 4) * i) >> 28);
        }
        break;
    }
    return n;
}
#endif
