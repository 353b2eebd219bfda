/* tests/test_snapshot_delta.c - snapshot deltas (ecs_snapshot.h, DELTAS):
   1,000 frames of random churn over the snapshot tests' world (every kind
   of store, a group, several instances per entity, transforms immediate
   and deferred, both byte orders, stores left out and back), each frame's
   delta against the last frame (and sometimes ten frames back) applied
   into another buffer and in place, byte-identical to the frame's
   snapshot, and loaded (the same world hash); a frame where 1% of the
   instances change one field gives a small delta; in place with tens of
   thousands of copies moving either way; a delta of another base refused;
   every truncation refused; mutations refused or applied to exactly the
   snapshot; every allocation failing in turn. */
#include "oom_alloc.h"
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_TRANSFORM_IMPLEMENTATION
#include "ecs_transform.h"
#define ECS_RESOURCE_IMPLEMENTATION
#include "ecs_resource.h"
#define ECS_SNAPSHOT_IMPLEMENTATION
#include "ecs_snapshot.h"
#include "test.h"
#include "test_rng.h"

#include "snapshot_fixture.h"

static int same_bytes(const ecs_snapshot_output *a, const ecs_snapshot_output *b)
{
    return a->size == b->size && (a->size == 0 || memcmp(a->data, b->data, a->size) == 0);
}

/* A copy of o in a buffer of its own, from the headers' allocator (applies
   in place grow it and ecs_snapshot_output_free frees it, so a build with
   its own ECS_REALLOC / ECS_FREE needs the same allocator here). */
static ecs_snapshot_output copy_of(const ecs_snapshot_output *o)
{
    ecs_snapshot_output c;
    c.size = o->size;
    c.data = ECS__REALLOC(NULL, o->size ? o->size : 1u);
    if (c.data && o->size) memcpy(c.data, o->data, o->size);
    return c;
}

/* blob, loaded into a fresh world of t's kind (swapped first when it is in
   the other byte order), hashes as t, and runs on as a copy of t does. */
static int loads_as(const test_world *t, const ecs_snapshot_output *blob, ecs_transform_mode mode, int flags)
{
    test_world b, c2;
    ecs_snapshot_output c = copy_of(blob);
    ecs_error err;
    uint64_t rng = rng_state;
    uint32_t bom = 0;
    int ok = c.data != NULL && make_world(&b, mode, flags) && make_world(&c2, mode, flags);
    if (c.data) memcpy(&bom, (const unsigned char *)c.data + 8, 4);
    if (ok && bom != 0x01020304u) ok = ecs_snapshot_swap(c.data, c.size, &err) == ECS_OK;
    ok = ok && ecs_snapshot_load(&b.w, c.data, c.size, 0, NULL, &err) == ECS_OK;
    ok = ok && ecs_snapshot_world_hash(&b.w) == ecs_snapshot_world_hash(&t->w);
    ok = ok && ecs_snapshot_clone(&c2.w, &t->w, &err) == ECS_OK;
    if (ok) {
        copy_ids(&b, t);
        copy_ids(&c2, t);
        ok = same_future(&b, &c2, 200, rng);
    }
    rng_state = rng;
    if (c.data) {
        free_world(&b);
        free_world(&c2);
    }
    ecs_snapshot_output_free(&c);
    return ok;
}

#define FRAMES 1000u
#define HISTORY 10u

/* 1,000 frames: each frame's delta against the last frame (every 7th
   frame also against the frame ten back) gives the frame's bytes, applied
   into a buffer of its own and in place. */
static void test_churn(ecs_transform_mode mode, uint32_t order)
{
    static const char *const some[] = {"body", "heading", "transform", NULL};
    test_world a;
    ecs_snapshot_output hist[HISTORY], d = {NULL, 0}, o = {NULL, 0}, inplace = {NULL, 0};
    ecs_snapshot_desc desc;
    ecs_error err;
    uint32_t f, k, wrong = 0, wrong_in_place = 0, refused = 0, loads = 0, partial = 0;
    int flags = order ? WITH_GROUP : WITH_GROUP | WITH_RAW;
    size_t delta_bytes = 0, snapshot_bytes = 0;
    memset(hist, 0, sizeof hist);
    CHECK(make_world(&a, mode, flags));
    memset(&desc, 0, sizeof desc);
    rng_state = 1234u + mode + order;
    for (f = 0; f < FRAMES; ++f) {
        ecs_snapshot_output *cur = &hist[f % HISTORY], *prev = &hist[(f + HISTORY - 1u) % HISTORY];
        churn(&a, 1u + rnd_below(40));
        (void)ecs_world_collect(&a.w, NULL);
        if (mode == ECS_TRANSFORM_DEFERRED && rnd_below(2)) ecs_transform_commit(&a.tm);
        desc.flags = order | ECS_SNAPSHOT_REUSE_OUTPUT;
        desc.stores = f % 50u >= 45u ? some : NULL; /* stores left out, then back */
        partial += desc.stores != NULL;
        if (ecs_snapshot_save(&a.w, &desc, cur, &err) != ECS_OK) {
            ++refused;
            continue;
        }
        snapshot_bytes += cur->size;
        for (k = 0; k < (f % 7u == 0 && f >= HISTORY ? 2u : 1u) && f; ++k) {
            const ecs_snapshot_output *base = k ? &hist[(f + 1u) % HISTORY] : prev;
            if (ecs_snapshot_delta(base->data, base->size, cur->data, cur->size, ECS_SNAPSHOT_REUSE_OUTPUT, &d, &err) != ECS_OK ||
                ecs_snapshot_apply_delta(base->data, base->size, d.data, d.size, ECS_SNAPSHOT_REUSE_OUTPUT, &o, &err) != ECS_OK) {
                if (refused++ < 3) fprintf(stderr, "frame %u: %s\n", (unsigned)f, err.message);
                continue;
            }
            wrong += !same_bytes(&o, cur);
            if (k == 0) delta_bytes += d.size;
            if (k == 0) { /* in place: inplace holds the last frame */
                if (ecs_snapshot_apply_delta(inplace.data, inplace.size, d.data, d.size, ECS_SNAPSHOT_REUSE_OUTPUT, &inplace, &err) != ECS_OK)
                    ++refused;
                wrong_in_place += !same_bytes(&inplace, cur);
            }
        }
        if (f == 0) { /* the in-place buffer starts as the first frame */
            ecs_snapshot_output_free(&inplace);
            inplace = copy_of(cur);
        }
        if (f % 100u == 20u && !desc.stores) loads += loads_as(&a, &o, mode, flags) ? 1u : 0u;
    }
    CHECK_MSG(refused == 0, "%u deltas refused", (unsigned)refused);
    CHECK_MSG(wrong == 0, "%u deltas gave other bytes", (unsigned)wrong);
    CHECK_MSG(wrong_in_place == 0, "%u deltas gave other bytes in place", (unsigned)wrong_in_place);
    CHECK_MSG(loads == FRAMES / 100u, "%u of %u loads", (unsigned)loads, (unsigned)(FRAMES / 100u));
    CHECK(partial > 0 && delta_bytes < snapshot_bytes / 2u); /* churn of up to 40 steps a frame changes little */
    for (k = 0; k < HISTORY; ++k) ecs_snapshot_output_free(&hist[k]);
    ecs_snapshot_output_free(&d);
    ecs_snapshot_output_free(&o);
    ecs_snapshot_output_free(&inplace);
    free_world(&a);
}

/* A world of n entities with the body (dense) and heading (direct) stores
   and a transform each; its snapshot into *out. */
static void big_world(test_world *t, uint32_t n)
{
    uint32_t k;
    CHECK(make_world(t, ECS_TRANSFORM_IMMEDIATE, WITH_GROUP));
    for (k = 0; k < n; ++k) {
        ecs_entity e = ecs_entity_create(&t->w.entities);
        ecs_mat4 local = ecs_mat4_identity();
        fill_random(t->m[0], ecs_manager_create(t->m[0], e));
        fill_random(t->m[2], ecs_manager_create(t->m[2], e));
        local.m[12] = (float)k;
        (void)ecs_transform_create(&t->tm, e, &local, k % 3u ? ecs_instance_make(rnd_below(k)) : ecs_instance_nil());
    }
}

/* The format on the wire: the header names both snapshots by hash; two
   equal snapshots differ by one copy; 1% of the instances changing one
   field cost a small fraction of the snapshot; the other byte order. */
static void test_format(void)
{
    test_world a;
    ecs_snapshot_output s0 = {NULL, 0}, s1 = {NULL, 0}, d = {NULL, 0}, o = {NULL, 0};
    ecs_snapshot_delta_info info;
    ecs_snapshot_desc desc;
    ecs_error err;
    uint32_t k, n = 20000;
    rng_state = 88;
    big_world(&a, n);
    CHECK(ecs_snapshot_save(&a.w, NULL, &s0, &err) == ECS_OK);
    CHECK(ecs_snapshot_delta(s0.data, s0.size, s0.data, s0.size, 0, &d, &err) == ECS_OK);
    CHECK(d.size == 64u + 16u && ecs_snapshot_delta_verify(d.data, d.size, &info, &err) == ECS_OK);
    CHECK(info.num_ops == 1 && info.literal_bytes == 0 && info.base_size == s0.size && info.next_size == s0.size);
    CHECK(info.base_hash == ecs_snapshot_blob_hash(s0.data, s0.size) && info.next_hash == info.base_hash);
    CHECK(memcmp(d.data, "ECSD", 4) == 0);
    for (k = 0; k < n / 100u; ++k) { /* 1%: one field (position) of random instances */
        float *p = (float *)a.m[0]->field[0] + 3u * rnd_below(a.m[0]->count);
        p[0] += 1.0f;
    }
    CHECK(ecs_snapshot_save(&a.w, NULL, &s1, &err) == ECS_OK);
    ecs_snapshot_output_free(&d);
    CHECK(ecs_snapshot_delta(s0.data, s0.size, s1.data, s1.size, 0, &d, &err) == ECS_OK);
    CHECK_MSG(d.size * 20u < s1.size, "delta %lu bytes, snapshot %lu", (unsigned long)d.size, (unsigned long)s1.size);
    CHECK(ecs_snapshot_apply_delta(s0.data, s0.size, d.data, d.size, 0, &o, &err) == ECS_OK && same_bytes(&o, &s1));
    ecs_snapshot_output_free(&o);
    ecs_snapshot_output_free(&d);
    { /* big-endian (or little, on a big-endian machine) snapshots: a delta in their order */
        ecs_snapshot_output b0 = {NULL, 0}, b1 = {NULL, 0};
        uint32_t other = ecs__res_host_big_endian() ? ECS_SNAPSHOT_LITTLE_ENDIAN : ECS_SNAPSHOT_BIG_ENDIAN;
        memset(&desc, 0, sizeof desc);
        desc.flags = other;
        CHECK(ecs_snapshot_save(&a.w, &desc, &b0, &err) == ECS_OK);
        ((float *)a.m[0]->field[1])[7] += 2.0f;
        CHECK(ecs_snapshot_save(&a.w, &desc, &b1, &err) == ECS_OK);
        ecs_snapshot_output_free(&d);
        CHECK(ecs_snapshot_delta(b0.data, b0.size, b1.data, b1.size, 0, &d, &err) == ECS_OK);
        CHECK(memcmp((const unsigned char *)d.data + 8, (const unsigned char *)b0.data + 8, 4) == 0); /* its byte order mark */
        CHECK(ecs_snapshot_delta_verify(d.data, d.size, &info, &err) == ECS_OK && info.next_size == b1.size);
        CHECK(ecs_snapshot_apply_delta(b0.data, b0.size, d.data, d.size, 0, &o, &err) == ECS_OK && same_bytes(&o, &b1));
        ecs_snapshot_output_free(&d);
        CHECK(ecs_snapshot_delta(s0.data, s0.size, b1.data, b1.size, 0, &d, &err) == ECS_ERROR_INVALID_ARGUMENT);
        CHECK(strstr(err.message, "byte order") != NULL);
        ecs_snapshot_output_free(&b0);
        ecs_snapshot_output_free(&b1);
        ecs_snapshot_output_free(&o);
    }
    { /* a frame loop with reused buffers allocates nothing once they are big enough */
        ecs_snapshot_output dd = {NULL, 0}, held = copy_of(&s0);
        unsigned long calls = 0;
        for (k = 0; k < 6; ++k) {
            const ecs_snapshot_output *from = k % 2u ? &s1 : &s0, *to = k % 2u ? &s0 : &s1;
            if (k == 2) calls = oom_calls;
            CHECK(ecs_snapshot_delta(from->data, from->size, to->data, to->size, ECS_SNAPSHOT_REUSE_OUTPUT, &dd, &err) == ECS_OK);
            CHECK(ecs_snapshot_apply_delta(held.data, held.size, dd.data, dd.size, ECS_SNAPSHOT_REUSE_OUTPUT, &held, &err) == ECS_OK);
            CHECK(same_bytes(&held, to));
        }
        CHECK_MSG(oom_calls == calls, "%lu allocations in 4 frames", oom_calls - calls);
        ecs_snapshot_output_free(&dd);
        ecs_snapshot_output_free(&held);
    }
    { /* the output's buffer may not hold base or next: refused, its size 0 as after any failed delta,
         its buffer and bytes kept */
        ecs_snapshot_output own = copy_of(&s1);
        void *buffer = own.data;
        CHECK(ecs_snapshot_delta(s0.data, s0.size, own.data, own.size, ECS_SNAPSHOT_REUSE_OUTPUT, &own, &err) == ECS_ERROR_INVALID_ARGUMENT);
        CHECK(own.size == 0 && own.data == buffer && memcmp(own.data, s1.data, s1.size) == 0);
        ecs_snapshot_output_free(&own);
    }
    { /* nor any byte of them past its start (the grown delta freed them while they were read); an
         apply's base only at its start (in place) */
        ecs_snapshot_output own, was;
        uint32_t which;
        for (which = 0; which < 3; ++which) {
            const ecs_snapshot_output *held = which == 1 ? &s1 : &s0;
            ecs_result r;
            own.size = 8u + held->size;
            own.data = ECS__REALLOC(NULL, own.size); /* the headers' allocator: output_free frees it */
            CHECK(own.data != NULL);
            if (!own.data) break;
            memset(own.data, 0, 8);
            memcpy((unsigned char *)own.data + 8, held->data, held->size);
            was = copy_of(&own);
            if (which == 0)
                r = ecs_snapshot_delta((unsigned char *)own.data + 8, s0.size, s1.data, s1.size, ECS_SNAPSHOT_REUSE_OUTPUT, &own, &err);
            else if (which == 1)
                r = ecs_snapshot_delta(s0.data, s0.size, (unsigned char *)own.data + 8, s1.size, ECS_SNAPSHOT_REUSE_OUTPUT, &own, &err);
            else {
                CHECK(ecs_snapshot_delta(s0.data, s0.size, s1.data, s1.size, 0, &d, &err) == ECS_OK);
                r = ecs_snapshot_apply_delta((unsigned char *)own.data + 8, s0.size, d.data, d.size, ECS_SNAPSHOT_REUSE_OUTPUT, &own,
                                             &err);
                ecs_snapshot_output_free(&d);
            }
            CHECK_MSG(r == ECS_ERROR_INVALID_ARGUMENT && strstr(err.message, "out's buffer holds base"), "case %u: %d %s",
                      (unsigned)which, (int)r, r == ECS_OK ? "" : err.message);
            /* a delta's out->size is 0 (its buffer kept); an apply's out is as it was */
            CHECK(own.size == (which == 2 ? was.size : 0u) && memcmp(own.data, was.data, was.size) == 0);
            ecs_snapshot_output_free(&own);
            ecs_snapshot_output_free(&was);
        }
    }
    { /* nor, for an apply, the delta (it was freed, or written over, while its ops were read) */
        ecs_snapshot_output own = {NULL, 0}, was;
        CHECK(ecs_snapshot_delta(s0.data, s0.size, s1.data, s1.size, 0, &own, &err) == ECS_OK && own.size > 64u);
        was = copy_of(&own);
        CHECK(ecs_snapshot_apply_delta(s0.data, s0.size, own.data, own.size, ECS_SNAPSHOT_REUSE_OUTPUT, &own, &err) ==
              ECS_ERROR_INVALID_ARGUMENT && strstr(err.message, "holds the delta"));
        CHECK(own.size == was.size && same_bytes(&own, &was));
        ecs_snapshot_output_free(&own);
        ecs_snapshot_output_free(&was);
    }
    { /* not snapshots: refused naming which */
        unsigned char junk[64];
        memset(junk, 7, sizeof junk);
        CHECK(ecs_snapshot_delta(junk, sizeof junk, s1.data, s1.size, 0, &d, &err) == ECS_ERROR_CORRUPT_RESOURCE);
        CHECK(strstr(err.message, "base") != NULL && strstr(err.message, "offset") != NULL && d.data == NULL);
        CHECK(ecs_snapshot_delta(s0.data, s0.size, s1.data, s1.size - 8u, 0, &d, &err) == ECS_ERROR_CORRUPT_RESOURCE);
        CHECK(strstr(err.message, "next") != NULL);
    }
    ecs_snapshot_output_free(&s0);
    ecs_snapshot_output_free(&s1);
    ecs_snapshot_output_free(&d);
    free_world(&a);
}

/* In place with many copies moving to higher offsets (the stores grew: every
   array after the ids moved) and to lower ones (they shrank), between
   changed blocks (every other 64-byte block of two field arrays; each copy
   moves farther than the block between it and the next, so a forward walk
   would overwrite the next copy's source): the same bytes as into a buffer
   of its own. 150,000 moving copies need three
   levels of the backward walk (256 copies remembered per level). */
static void test_in_place(void)
{
    ecs_world w;
    ecs_manager *m;
    ecs_snapshot_output s0 = {NULL, 0}, s1 = {NULL, 0}, d = {NULL, 0}, o = {NULL, 0}, ip;
    ecs_snapshot_delta_info info;
    ecs_error err;
    uint32_t k, round;
    CHECK(ecs_world_init(&w) == ECS_OK);
    m = ecs_world_define_schema(&w, "body", body_schema, 2, ECS_LOOKUP_DENSE, &err);
    CHECK(m != NULL);
    if (!m) return;
    rng_state = 3;
    for (k = 0; k < 400000u; ++k) fill_random(m, ecs_manager_create(m, ecs_entity_create(&w.entities)));
    CHECK(ecs_snapshot_save(&w, NULL, &s0, &err) == ECS_OK);
    for (round = 0; round < 2; ++round) {
        for (k = 0; k < 20; ++k) { /* grow (round 0) or shrink (round 1): the arrays move farther than a block */
            if (round) (void)ecs_manager_destroy(m, ecs_instance_make(m->count - 1u));
            else fill_random(m, ecs_manager_create(m, ecs_entity_create(&w.entities)));
        }
        for (k = 0; 128u * k < (size_t)m->count * 12u; ++k) { /* every other block of both fields */
            ((unsigned char *)m->field[0])[128u * k] ^= 1u;
            ((unsigned char *)m->field[1])[128u * k] ^= 1u;
        }
        CHECK(ecs_snapshot_save(&w, NULL, &s1, &err) == ECS_OK);
        CHECK(ecs_snapshot_delta(s0.data, s0.size, s1.data, s1.size, 0, &d, &err) == ECS_OK);
        CHECK(ecs_snapshot_delta_verify(d.data, d.size, &info, &err) == ECS_OK && info.num_ops > 2u * 65536u);
        CHECK(ecs_snapshot_apply_delta(s0.data, s0.size, d.data, d.size, 0, &o, &err) == ECS_OK && same_bytes(&o, &s1));
        ip = copy_of(&s0);
        CHECK_MSG(ecs_snapshot_apply_delta(ip.data, ip.size, d.data, d.size, ECS_SNAPSHOT_REUSE_OUTPUT, &ip, &err) == ECS_OK, "%s",
                  err.message);
        CHECK_MSG(same_bytes(&ip, &s1), "round %u", (unsigned)round);
        ecs_snapshot_output_free(&ip);
        ecs_snapshot_output_free(&s0);
        ecs_snapshot_output_free(&d);
        ecs_snapshot_output_free(&o);
        s0 = s1;
        s1.data = NULL;
        s1.size = 0;
    }
    ecs_snapshot_output_free(&s0);
    ecs_world_free(&w);
}

/* A store section whose length changed (5 transform nodes more, 3 less:
   its arrays moved by different amounts): the blocks are found where they
   moved, so the delta stays a small part of the section. */
static void test_moved_store(void)
{
    test_world a;
    ecs_snapshot_output s0 = {NULL, 0}, s1 = {NULL, 0}, d = {NULL, 0}, o = {NULL, 0};
    ecs_error err;
    size_t body = 0, body_size = 0;
    uint32_t k, round;
    rng_state = 808;
    big_world(&a, 10000);
    CHECK(ecs_snapshot_save(&a.w, NULL, &s0, &err) == ECS_OK);
    for (round = 0; round < 2; ++round) {
        ecs__snap_reader rd;
        ecs__snap_sec sec;
        for (k = 0; k < (round ? 3u : 5u); ++k) {
            ecs_entity e = ecs_entity_create(&a.w.entities);
            if (round) (void)ecs_transform_destroy(&a.tm, ecs_instance_make(rnd_below(a.tm.count)));
            else (void)ecs_transform_create(&a.tm, e, NULL, ecs_instance_make(rnd_below(a.tm.count)));
        }
        CHECK(ecs_snapshot_save(&a.w, NULL, &s1, &err) == ECS_OK);
        CHECK(ecs_snapshot_delta(s0.data, s0.size, s1.data, s1.size, 0, &d, &err) == ECS_OK);
        CHECK(ecs_snapshot_apply_delta(s0.data, s0.size, d.data, d.size, 0, &o, &err) == ECS_OK && same_bytes(&o, &s1));
        CHECK(ecs__snap_open(&rd, s1.data, s1.size, 0, &err) == ECS_OK);
        while (ecs__snap_next(&rd, &sec, &err) > 0)
            if (sec.kind == ECS__SNAP_STORE) {
                body = sec.body;
                body_size = sec.body_size;
            }
        CHECK_MSG(body && d.size * 10u < body_size, "round %u: delta %lu bytes, the transform section %lu", (unsigned)round,
                  (unsigned long)d.size, (unsigned long)body_size);
        ecs_snapshot_output_free(&s0);
        ecs_snapshot_output_free(&d);
        ecs_snapshot_output_free(&o);
        s0 = s1;
        s1.data = NULL;
        s1.size = 0;
    }
    ecs_snapshot_output_free(&s0);
    free_world(&a);
}

/* Hashes the caller knows (ecs_snapshot_delta_hashed, _apply_delta_hashed):
   the same delta bytes whichever hashes are given; the hashes handed back;
   a frame loop passing each result's hash on as the next base's; a wrong
   base or next hash given refused by apply, and a base that is not the
   snapshot of the hash given for it refused by the result's hash, the
   output and the hashes as they were. */
static void test_known_hashes(void)
{
    test_world a;
    ecs_snapshot_output s[4], d = {NULL, 0}, ref = {NULL, 0}, o = {NULL, 0}, held = {NULL, 0};
    ecs_snapshot_delta_hashes h;
    ecs_error err;
    uint64_t hs[4];
    uint32_t k, known;
    memset(s, 0, sizeof s);
    rng_state = 4242;
    big_world(&a, 3000);
    for (k = 0; k < 4; ++k) {
        CHECK(ecs_snapshot_save(&a.w, NULL, &s[k], &err) == ECS_OK);
        hs[k] = ecs_snapshot_blob_hash(s[k].data, s[k].size);
        churn(&a, 30); /* instances and transform nodes created and destroyed: the store moves */
        (void)ecs_world_collect(&a.w, NULL);
    }
    CHECK(ecs_snapshot_delta(s[0].data, s[0].size, s[1].data, s[1].size, 0, &ref, &err) == ECS_OK);
    for (known = 0; known < 4u; ++known) { /* none, base, next, both given: the same bytes */
        h.known = known;
        h.base_hash = hs[0];
        h.next_hash = hs[1];
        CHECK(ecs_snapshot_delta_hashed(s[0].data, s[0].size, s[1].data, s[1].size, ECS_SNAPSHOT_REUSE_OUTPUT, &h, &d,
                                        &err) == ECS_OK);
        CHECK_MSG(same_bytes(&d, &ref), "known %u: other bytes", (unsigned)known);
        CHECK(h.known == (ECS_SNAPSHOT_BASE_HASH | ECS_SNAPSHOT_NEXT_HASH) && h.base_hash == hs[0] && h.next_hash == hs[1]);
    }
    /* the frame loop: a server gives both hashes it knows, a client its base's */
    held = copy_of(&s[0]);
    for (k = 1; k < 4u; ++k) {
        ecs_snapshot_delta_hashes sh, ch;
        sh.known = ECS_SNAPSHOT_BASE_HASH;
        sh.base_hash = hs[k - 1u];
        sh.next_hash = 0;
        CHECK(ecs_snapshot_delta_hashed(s[k - 1u].data, s[k - 1u].size, s[k].data, s[k].size, ECS_SNAPSHOT_REUSE_OUTPUT, &sh,
                                        &d, &err) == ECS_OK && sh.next_hash == hs[k]);
        ch.known = ECS_SNAPSHOT_BASE_HASH;
        ch.base_hash = hs[k - 1u];
        ch.next_hash = 0;
        CHECK(ecs_snapshot_apply_delta_hashed(held.data, held.size, d.data, d.size, ECS_SNAPSHOT_REUSE_OUTPUT, &ch, &held,
                                              &err) == ECS_OK);
        CHECK(same_bytes(&held, &s[k]) && ch.next_hash == hs[k] && ch.base_hash == hs[k - 1u]);
    }
    /* a wrong base hash given: the delta names it, and apply refuses it */
    h.known = ECS_SNAPSHOT_BASE_HASH;
    h.base_hash = hs[0] ^ 1u;
    CHECK(ecs_snapshot_delta_hashed(s[0].data, s[0].size, s[1].data, s[1].size, ECS_SNAPSHOT_REUSE_OUTPUT, &h, &d, &err) ==
          ECS_OK);
    CHECK(ecs_snapshot_apply_delta(s[0].data, s[0].size, d.data, d.size, 0, &o, &err) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "hash") != NULL && o.data == NULL);
    h.known = ECS_SNAPSHOT_BASE_HASH;
    h.base_hash = hs[0];
    CHECK(ecs_snapshot_apply_delta_hashed(s[0].data, s[0].size, d.data, d.size, 0, &h, &o, &err) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "as the caller gave it") != NULL && o.data == NULL && h.base_hash == hs[0]);
    /* given the same wrong hash, apply_delta_hashed applies it (as its doc says): the result's hash is
       still checked, so it gives next's bytes, and the wrong base hash comes back */
    h.known = ECS_SNAPSHOT_BASE_HASH;
    h.base_hash = hs[0] ^ 1u;
    CHECK(ecs_snapshot_apply_delta_hashed(s[0].data, s[0].size, d.data, d.size, 0, &h, &o, &err) == ECS_OK);
    CHECK(same_bytes(&o, &s[1]) && h.base_hash == (hs[0] ^ 1u) && h.next_hash == hs[1]);
    ecs_snapshot_output_free(&o);
    /* a wrong next hash given: the result's hash refuses it */
    h.known = ECS_SNAPSHOT_NEXT_HASH;
    h.next_hash = hs[1] + 1u;
    CHECK(ecs_snapshot_delta_hashed(s[0].data, s[0].size, s[1].data, s[1].size, ECS_SNAPSHOT_REUSE_OUTPUT, &h, &d, &err) ==
          ECS_OK);
    CHECK(ecs_snapshot_apply_delta(s[0].data, s[0].size, d.data, d.size, 0, &o, &err) == ECS_ERROR_CORRUPT_RESOURCE);
    CHECK(strstr(err.message, "next_hash") != NULL && o.data == NULL);
    /* a base that is not the snapshot of the hash given (a byte the delta
       copies changed): the result's hash differs, refused, nothing written */
    CHECK(ecs_snapshot_delta(s[0].data, s[0].size, s[1].data, s[1].size, ECS_SNAPSHOT_REUSE_OUTPUT, &d, &err) == ECS_OK);
    {
        ecs_snapshot_output liar = copy_of(&s[0]), before;
        size_t at = 64, src = 0;
        for (k = 0; k < 1000u && at + 16u <= d.size; ++k) { /* the first copy op's source */
            uint64_t op[2];
            memcpy(op, (const unsigned char *)d.data + at, 16);
            if (op[0] != ~(uint64_t)0) {
                src = (size_t)op[0];
                break;
            }
            at += 16u + (size_t)((op[1] + 7u) & ~(uint64_t)7u);
        }
        CHECK(ecs_snapshot_apply_delta(s[0].data, s[0].size, d.data, d.size, 0, &o, &err) == ECS_OK);
        before = copy_of(&o);
        ((unsigned char *)liar.data)[src] ^= 0x5a;
        h.known = ECS_SNAPSHOT_BASE_HASH;
        h.base_hash = hs[0];
        h.next_hash = 77;
        CHECK(ecs_snapshot_apply_delta_hashed(liar.data, liar.size, d.data, d.size, ECS_SNAPSHOT_REUSE_OUTPUT, &h, &o, &err) ==
              ECS_ERROR_CORRUPT_RESOURCE);
        CHECK(strstr(err.message, "not the snapshot of the hash given") != NULL);
        CHECK(same_bytes(&o, &before) && h.next_hash == 77u && h.known == ECS_SNAPSHOT_BASE_HASH);
        CHECK(ecs_snapshot_apply_delta_hashed(liar.data, liar.size, d.data, d.size, ECS_SNAPSHOT_REUSE_OUTPUT, &h, &liar, &err) ==
              ECS_ERROR_CORRUPT_RESOURCE); /* in place: refused before it writes */
        ((unsigned char *)liar.data)[src] ^= 0x5a;
        CHECK(same_bytes(&liar, &s[0]));
        ecs_snapshot_output_free(&liar);
        ecs_snapshot_output_free(&before);
    }
    for (k = 0; k < 4u; ++k) ecs_snapshot_output_free(&s[k]);
    ecs_snapshot_output_free(&d);
    ecs_snapshot_output_free(&ref);
    ecs_snapshot_output_free(&o);
    ecs_snapshot_output_free(&held);
    free_world(&a);
}

/* Two snapshots of a churning world and the delta between them. */
static void two_frames(test_world *a, ecs_snapshot_output *s0, ecs_snapshot_output *s1, ecs_snapshot_output *d)
{
    ecs_error err;
    CHECK(make_world(a, ECS_TRANSFORM_DEFERRED, WITH_GROUP | WITH_RAW));
    rng_state = 4242;
    churn(a, 1500);
    CHECK(ecs_snapshot_save(&a->w, NULL, s0, &err) == ECS_OK);
    churn(a, 60);
    CHECK(ecs_snapshot_save(&a->w, NULL, s1, &err) == ECS_OK);
    CHECK(ecs_snapshot_delta(s0->data, s0->size, s1->data, s1->size, 0, d, &err) == ECS_OK);
}

/* out (a reused buffer) still holds what it held before a refused apply. */
static int untouched(const ecs_snapshot_output *out, const void *data, size_t size, const ecs_snapshot_output *was)
{
    return out->data == data && out->size == size && same_bytes(out, was);
}

/* Another base: refused naming both hashes, the output as it was; every
   truncation of the delta refused with an offset; mutations refused, or
   the same bytes as the snapshot (the result's hash is checked). */
static void test_bad_deltas(void)
{
    test_world a;
    ecs_snapshot_output s0 = {NULL, 0}, s1 = {NULL, 0}, d = {NULL, 0}, out, was;
    ecs_error err;
    unsigned char *copy;
    size_t n;
    uint32_t k, bad = 0, applied = 0;
    void *data;
    two_frames(&a, &s0, &s1, &d);
    out = copy_of(&s0); /* a reused output holding bytes of its own */
    was = copy_of(&s0);
    data = out.data;
    CHECK(ecs_snapshot_apply_delta(s1.data, s1.size, d.data, d.size, ECS_SNAPSHOT_REUSE_OUTPUT, &out, &err) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "hash") != NULL && untouched(&out, data, was.size, &was));
    ((unsigned char *)s0.data)[s0.size / 2u] ^= 1u; /* the same size, one bit off */
    CHECK(ecs_snapshot_apply_delta(s0.data, s0.size, d.data, d.size, ECS_SNAPSHOT_REUSE_OUTPUT, &out, &err) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(untouched(&out, data, was.size, &was));
    ((unsigned char *)s0.data)[s0.size / 2u] ^= 1u;
    copy = (unsigned char *)malloc(d.size);
    for (n = 0; copy && n < d.size; ++n) { /* every truncation */
        memcpy(copy, d.data, n);
        if (ecs_snapshot_delta_verify(copy, n, NULL, &err) != ECS_ERROR_CORRUPT_RESOURCE || !strstr(err.message, "offset")) ++bad;
        if (ecs_snapshot_apply_delta(s0.data, s0.size, copy, n, ECS_SNAPSHOT_REUSE_OUTPUT, &out, &err) == ECS_OK) ++bad;
    }
    CHECK_MSG(bad == 0, "%u truncations not refused", (unsigned)bad);
    CHECK(untouched(&out, data, was.size, &was));
    rng_state = 71;
    for (k = 0, bad = 0; copy && k < 4000u; ++k) { /* mutations: refused, or the snapshot's bytes */
        ecs_result r;
        memcpy(copy, d.data, d.size);
        copy[rnd_below((uint32_t)d.size)] ^= (unsigned char)(1u << rnd_below(8));
        if (rnd_below(3) == 0) copy[rnd_below(80)] = (unsigned char)rnd(); /* often in the header and first op */
        r = ecs_snapshot_apply_delta(s0.data, s0.size, copy, d.size, ECS_SNAPSHOT_REUSE_OUTPUT, &out, &err);
        if (r == ECS_OK) {
            ++applied;
            bad += !same_bytes(&out, &s1);
            ecs_snapshot_output_free(&out);
            out = copy_of(&s0);
            data = out.data;
        } else {
            bad += !untouched(&out, data, was.size, &was) || !strstr(err.message, r == ECS_ERROR_CORRUPT_RESOURCE ? "offset" : "hash");
        }
    }
    CHECK_MSG(bad == 0, "%u mutations neither refused cleanly nor applied to the snapshot's bytes", (unsigned)bad);
    CHECK(applied < 4000u);
    { /* the delta's checks name the field */
        memcpy(copy, d.data, d.size);
        memcpy(copy, "ECSX", 4);
        CHECK(ecs_snapshot_delta_verify(copy, d.size, NULL, &err) == ECS_ERROR_CORRUPT_RESOURCE && strstr(err.message, "magic"));
        memcpy(copy, d.data, d.size);
        copy[4] = 3;
        CHECK(ecs_snapshot_delta_verify(copy, d.size, NULL, &err) == ECS_ERROR_CORRUPT_RESOURCE && strstr(err.message, "version"));
        copy[4] = 1; /* named its snapshots by the hash before 0.11 */
        CHECK(ecs_snapshot_delta_verify(copy, d.size, NULL, &err) == ECS_ERROR_CORRUPT_RESOURCE && strstr(err.message, "version 1"));
        memcpy(copy, d.data, d.size);
        copy[64 + 15] = 0x40; /* the first op's length */
        CHECK(ecs_snapshot_delta_verify(copy, d.size, NULL, &err) == ECS_ERROR_CORRUPT_RESOURCE && strstr(err.message, "op 0"));
    }
    free(copy);
    ecs_snapshot_output_free(&out);
    ecs_snapshot_output_free(&was);
    ecs_snapshot_output_free(&s0);
    ecs_snapshot_output_free(&s1);
    ecs_snapshot_output_free(&d);
    free_world(&a);
}

/* Every allocation failing in turn: apply leaves the output as it was
   (buffer, size, bytes), out of place and in place; ecs_snapshot_delta
   leaves size 0 and its buffer (ECS_SNAPSHOT_REUSE_OUTPUT) or nothing; a
   later call gives the same bytes. */
static void test_oom(void)
{
    test_world a;
    ecs_snapshot_output s0 = {NULL, 0}, s1 = {NULL, 0}, d = {NULL, 0}, out, was, small = {NULL, 0};
    ecs_error err;
    unsigned long k, done_apply = 0, done_delta = 0, done_in_place = 0;
    two_frames(&a, &s0, &s1, &d);
    for (k = 1; k < 40u && !(done_apply && done_delta && done_in_place); ++k) {
        ecs_result r;
        void *data;
        out = copy_of(&s0);
        out.size = 24; /* smaller than the result: the buffer must grow */
        was = copy_of(&out);
        data = out.data;
        oom_calls = 0;
        oom_fail_at = k;
        r = ecs_snapshot_apply_delta(s0.data, s0.size, d.data, d.size, ECS_SNAPSHOT_REUSE_OUTPUT, &out, &err);
        oom_fail_at = 0;
        if (r == ECS_OK) done_apply = k;
        CHECK(r == ECS_OK ? same_bytes(&out, &s1) : r == ECS_ERROR_OUT_OF_MEMORY && untouched(&out, data, 24, &was));
        ecs_snapshot_output_free(&out);
        ecs_snapshot_output_free(&was);
        out = copy_of(&s1); /* in place, growing: s1 -> s0 is no shorter? either way */
        was = copy_of(&s1);
        data = out.data;
        {
            ecs_snapshot_output back = {NULL, 0};
            CHECK(ecs_snapshot_delta(s1.data, s1.size, s0.data, s0.size, 0, &back, &err) == ECS_OK);
            oom_calls = 0;
            oom_fail_at = k;
            r = ecs_snapshot_apply_delta(out.data, out.size, back.data, back.size, ECS_SNAPSHOT_REUSE_OUTPUT, &out, &err);
            oom_fail_at = 0;
            if (r == ECS_OK) done_in_place = k;
            CHECK(r == ECS_OK ? same_bytes(&out, &s0) : r == ECS_ERROR_OUT_OF_MEMORY && untouched(&out, data, was.size, &was));
            ecs_snapshot_output_free(&back);
        }
        ecs_snapshot_output_free(&out);
        ecs_snapshot_output_free(&was);
        if (!small.data) small = copy_of(&s0);
        small.size = 16; /* a reused delta buffer that must grow */
        data = small.data;
        oom_calls = 0;
        oom_fail_at = k;
        r = ecs_snapshot_delta(s0.data, s0.size, s1.data, s1.size, ECS_SNAPSHOT_REUSE_OUTPUT, &small, &err);
        oom_fail_at = 0;
        if (r == ECS_OK) done_delta = k;
        CHECK(r == ECS_OK ? same_bytes(&small, &d) : r == ECS_ERROR_OUT_OF_MEMORY && small.size == 0 && small.data != NULL);
        oom_calls = 0;
        oom_fail_at = k;
        out.data = NULL;
        r = ecs_snapshot_delta(s0.data, s0.size, s1.data, s1.size, 0, &out, &err);
        oom_fail_at = 0;
        CHECK(r == ECS_OK ? same_bytes(&out, &d) : out.data == NULL && out.size == 0);
        ecs_snapshot_output_free(&out);
    }
    CHECK(done_apply && done_delta && done_in_place);
    ecs_snapshot_output_free(&small);
    ecs_snapshot_output_free(&s0);
    ecs_snapshot_output_free(&s1);
    ecs_snapshot_output_free(&d);
    free_world(&a);
}


/* ---- deltas from a live world (ecs_snapshot_world_digest, ecs_snapshot_delta_from_world) ---- */

/* A store that is the transform store but for its visit_state, which
   leaves out its last words: the hash and the delta must notice and read
   it from a copy of its save. */
static void short_visit(const void *store, ecs_state_visit_fn *visit, void *ctx)
{
    const ecs_transform_manager *tm = (const ecs_transform_manager *)store;
    size_t n = ecs_transform_snapshot_save(store, NULL, 0), cut = n > 8u ? n - 8u : 0u;
    unsigned char *copy = (unsigned char *)malloc(n ? n : 1u);
    if (copy && ecs_transform_snapshot_save(tm, copy, n) == n) visit(ctx, copy, cut);
    free(copy);
}

/* A save into the buffer out holds (every frame). */
static ecs_result save_again(const ecs_world *w, ecs_snapshot_output *out, ecs_error *err)
{
    ecs_snapshot_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.flags = ECS_SNAPSHOT_REUSE_OUTPUT;
    return ecs_snapshot_save(w, &desc, out, err);
}

/* The digest's blocks cover the world's save (from 0, forward, none over
   ECS_SNAPSHOT_HASH_BLOCK bytes), the save's bytes cut at them hash to
   its world hash with those digests, and it is the world hash. */
static int digest_is_save(const ecs_world *w, const ecs_snapshot_digest *dg, const ecs_snapshot_output *save)
{
    ecs__hash h;
    ecs_snapshot_digest again;
    size_t k;
    int ok = dg->size == save->size && dg->num_blocks > 0 && dg->block[0].offset == 0;
    memset(&again, 0, sizeof again);
    ecs__hash_init(&h, 0);
    h.keep = &again;
    for (k = 0; ok && k < dg->num_blocks; ++k) {
        uint64_t end = k + 1u < dg->num_blocks ? dg->block[k + 1u].offset : dg->size;
        ok = end > dg->block[k].offset && end - dg->block[k].offset <= ECS_SNAPSHOT_HASH_BLOCK;
        if (ok) ecs__hash_feed(&h, (const unsigned char *)save->data + dg->block[k].offset, (size_t)(end - dg->block[k].offset));
        ecs__hash_cut(&h);
    }
    ok = ok && ecs__hash_final(&h) == dg->hash && ecs_snapshot_world_hash(w) == dg->hash && again.num_blocks == dg->num_blocks &&
         memcmp(again.block, dg->block, dg->num_blocks * sizeof *dg->block) == 0;
    ecs_snapshot_digest_free(&again);
    return ok;
}

/* ecs_snapshot_apply_delta_hashed with base's world hash. */
static ecs_result apply_world(const ecs_snapshot_output *base, uint64_t base_hash, const ecs_snapshot_output *d,
                              ecs_snapshot_output *out, uint32_t flags, ecs_error *err)
{
    ecs_snapshot_delta_hashes h;
    h.known = ECS_SNAPSHOT_BASE_HASH;
    h.base_hash = base_hash;
    h.next_hash = 0;
    return ecs_snapshot_apply_delta_hashed(base->data, base->size, d->data, d->size, flags, &h, out, err);
}

/* 1 when a and b list the same digests. */
static int same_digest(const ecs_snapshot_digest *a, const ecs_snapshot_digest *b)
{
    return a->hash == b->hash && a->size == b->size && a->num_blocks == b->num_blocks &&
           (a->num_blocks == 0 || memcmp(a->block, b->block, a->num_blocks * sizeof *a->block) == 0);
}

/* ecs_snapshot_world_digest_delta from base (whose save is base_save) to w
   (saved as now_save, digested as now): the same digests, a delta that
   verifies and applies to now_save's bytes; 1 when all hold. Adds the
   delta's literal bytes to *carried. */
static int digest_delta_holds(const ecs_world *w, const ecs_snapshot_digest *base, const ecs_snapshot_output *base_save,
                              const ecs_snapshot_digest *now, const ecs_snapshot_output *now_save, ecs_snapshot_digest *fused,
                              ecs_snapshot_output *d, ecs_snapshot_output *o, uint64_t *carried)
{
    ecs_snapshot_delta_info info;
    ecs_error err;
    if (ecs_snapshot_world_digest_delta(w, base, fused, ECS_SNAPSHOT_REUSE_OUTPUT, d, &err) != ECS_OK ||
        ecs_snapshot_delta_verify(d->data, d->size, &info, &err) != ECS_OK ||
        apply_world(base_save, base->hash, d, o, ECS_SNAPSHOT_REUSE_OUTPUT, &err) != ECS_OK) {
        fprintf(stderr, "digest_delta: %s\n", err.message);
        return 0;
    }
    if (carried) *carried += info.literal_bytes;
    return same_digest(fused, now) && same_bytes(o, now_save) && info.base_hash == base->hash && info.next_hash == now->hash &&
           info.flags == ECS_SNAPSHOT_DELTA_WORLD_HASHES;
}

/* Frames of churn; each frame's digest, then deltas from the world against
   the state of the last frame and of a few frames back, applied to those
   states' saves (out of place and in place): the frame's save byte for
   byte. Counts each delta's carried bytes against ecs_snapshot_delta's. */
static void test_from_world(ecs_transform_mode mode, int visit_short)
{
    test_world a;
    ecs_store_interface iface;
    ecs_snapshot_output save[HISTORY], d = {NULL, 0}, o = {NULL, 0}, inplace = {NULL, 0}, full = {NULL, 0};
    ecs_snapshot_digest dg[HISTORY], fused;
    ecs_snapshot_delta_info info;
    ecs_error err;
    uint32_t f, k, bad_digest = 0, wrong = 0, refused = 0, deltas = 0, fused_wrong = 0, fused_made = 0;
    uint64_t live_bytes = 0, compared_bytes = 0, fused_bytes = 0;
    memset(&fused, 0, sizeof fused);
    memset(save, 0, sizeof save);
    memset(dg, 0, sizeof dg);
    CHECK(make_world(&a, mode, WITH_GROUP | WITH_RAW));
    if (visit_short) { /* the transform store again, under another name, with a short visit_state */
        iface = *ecs_transform_store_interface();
        iface.visit_state = short_visit;
        CHECK(ecs_world_remove(&a.w, "transform", &err) == ECS_OK &&
              ecs_world_add_store(&a.w, "transform", &a.tm, &iface, &err) == ECS_OK);
    }
    rng_state = 777u + mode + (uint32_t)visit_short;
    for (f = 0; f < FRAMES / 4u; ++f) {
        uint32_t cur = f % HISTORY;
        churn(&a, 1u + rnd_below(40));
        if (mode == ECS_TRANSFORM_DEFERRED && rnd_below(2)) ecs_transform_commit(&a.tm);
        if (ecs_snapshot_world_digest(&a.w, &dg[cur], &err) != ECS_OK ||
            save_again(&a.w, &save[cur], &err) != ECS_OK) {
            ++refused;
            continue;
        }
        bad_digest += !digest_is_save(&a.w, &dg[cur], &save[cur]);
        if (f > 0) { /* the digest and the delta from the last frame in one pass */
            uint32_t b = (f + HISTORY - 1u) % HISTORY;
            fused_wrong += !digest_delta_holds(&a.w, &dg[b], &save[b], &dg[cur], &save[cur], &fused, &d, &o, &fused_bytes);
            ++fused_made;
        }
        for (k = 1; k <= (f % 5u == 0 ? 4u : 1u) && k <= f; ++k) {
            uint32_t b = (f + HISTORY - k) % HISTORY;
            if (ecs_snapshot_delta_from_world(&dg[b], &a.w, &dg[cur], ECS_SNAPSHOT_REUSE_OUTPUT, &d, &err) != ECS_OK ||
                ecs_snapshot_delta_verify(d.data, d.size, &info, &err) != ECS_OK ||
                apply_world(&save[b], dg[b].hash, &d, &o, ECS_SNAPSHOT_REUSE_OUTPUT, &err) != ECS_OK) {
                if (refused++ < 3) fprintf(stderr, "frame %u: %s\n", (unsigned)f, err.message);
                continue;
            }
            ++deltas;
            wrong += !same_bytes(&o, &save[cur]) || info.flags != ECS_SNAPSHOT_DELTA_WORLD_HASHES ||
                     info.base_hash != dg[b].hash || info.next_hash != dg[cur].hash;
            if (k > 1) continue;
            live_bytes += info.literal_bytes;
            if (ecs_snapshot_delta(save[b].data, save[b].size, save[cur].data, save[cur].size, ECS_SNAPSHOT_REUSE_OUTPUT, &full,
                                   &err) == ECS_OK &&
                ecs_snapshot_delta_verify(full.data, full.size, &info, &err) == ECS_OK)
                compared_bytes += info.literal_bytes;
            if (inplace.data && apply_world(&inplace, dg[b].hash, &d, &inplace, ECS_SNAPSHOT_REUSE_OUTPUT, &err) != ECS_OK)
                ++refused;
            wrong += inplace.data && !same_bytes(&inplace, &save[cur]);
        }
        if (!inplace.data) inplace = copy_of(&save[cur]);
        if (f % 50u == 10u && !visit_short) { /* the save loads into a world of that hash (its stores visited alike) */
            test_world c;
            CHECK(make_world(&c, mode, WITH_GROUP | WITH_RAW));
            CHECK(ecs_snapshot_load(&c.w, save[cur].data, save[cur].size, 0, NULL, &err) == ECS_OK &&
                  ecs_snapshot_world_hash(&c.w) == dg[cur].hash);
            free_world(&c);
        }
    }
    CHECK_MSG(refused == 0, "%u refused", (unsigned)refused);
    CHECK_MSG(bad_digest == 0, "%u digests not of the save", (unsigned)bad_digest);
    CHECK_MSG(wrong == 0, "%u of %u deltas gave other bytes", (unsigned)wrong, (unsigned)deltas);
    CHECK_MSG(fused_wrong == 0 && fused_made > 0, "%u of %u digest_deltas wrong", (unsigned)fused_wrong, (unsigned)fused_made);
    /* the one pass also expects a block where it lies after a changed one: no more than the search finds */
    CHECK_MSG(fused_bytes > 0 && fused_bytes <= live_bytes + live_bytes / 50u, "digest_delta carried %llu bytes, delta_from_world %llu",
              (unsigned long long)fused_bytes, (unsigned long long)live_bytes);
    /* blocks of 512 bytes travel where the compare sends 64: more, but a fraction of the states */
    CHECK_MSG(deltas > FRAMES / 4u && live_bytes < (uint64_t)save[0].size * (FRAMES / 4u) / 2u,
              "%u deltas, %llu bytes carried (compared: %llu)", (unsigned)deltas, (unsigned long long)live_bytes,
              (unsigned long long)compared_bytes);
    for (k = 0; k < HISTORY; ++k) {
        ecs_snapshot_output_free(&save[k]);
        ecs_snapshot_digest_free(&dg[k]);
    }
    ecs_snapshot_digest_free(&fused);
    ecs_snapshot_output_free(&d);
    ecs_snapshot_output_free(&o);
    ecs_snapshot_output_free(&inplace);
    ecs_snapshot_output_free(&full);
    free_world(&a);
}

/* A digest taken before the world changed: a delta from it is refused
   (another size) or gives bytes every apply refuses, never other bytes
   under now's hash. Bad arguments are refused. */
static void test_from_world_stale(void)
{
    test_world a;
    ecs_snapshot_output s0 = {NULL, 0}, s1 = {NULL, 0}, d = {NULL, 0}, o = {NULL, 0};
    ecs_snapshot_digest d0, d1, bad;
    ecs_error err;
    uint32_t round, refused = 0, corrupt = 0, applied = 0;
    memset(&d0, 0, sizeof d0);
    memset(&d1, 0, sizeof d1);
    CHECK(make_world(&a, ECS_TRANSFORM_IMMEDIATE, WITH_GROUP));
    rng_state = 99;
    churn(&a, 300);
    for (round = 0; round < 60; ++round) {
        ecs_result r;
        CHECK(ecs_snapshot_world_digest(&a.w, &d0, &err) == ECS_OK && save_again(&a.w, &s0, &err) == ECS_OK);
        churn(&a, 1u + rnd_below(5));
        CHECK(ecs_snapshot_world_digest(&a.w, &d1, &err) == ECS_OK && save_again(&a.w, &s1, &err) == ECS_OK);
        churn(&a, 1u + rnd_below(3)); /* d1 is stale now */
        r = ecs_snapshot_delta_from_world(&d0, &a.w, &d1, 0, &d, &err);
        if (r != ECS_OK) {
            CHECK(r == ECS_ERROR_INVALID_ARGUMENT && strstr(err.message, "not w's digest") && d.data == NULL && d.size == 0);
            ++refused;
            continue;
        }
        r = apply_world(&s0, d0.hash, &d, &o, 0, &err); /* the result is not what d1 names: its world hash tells */
        CHECK(r == ECS_OK);
        if (r == ECS_OK) {
            test_world c;
            CHECK(make_world(&c, ECS_TRANSFORM_IMMEDIATE, WITH_GROUP));
            if (ecs_snapshot_load(&c.w, o.data, o.size, 0, NULL, &err) != ECS_OK || ecs_snapshot_world_hash(&c.w) != d1.hash)
                ++corrupt;
            else
                applied += same_bytes(&o, &s1) ? 1u : 0u; /* only if the churn changed nothing d1 saw */
            free_world(&c);
        }
        ecs_snapshot_output_free(&o);
        ecs_snapshot_output_free(&d);
    }
    CHECK_MSG(corrupt > 0 && refused > 0, "%u refused, %u corrupt, %u applied", (unsigned)refused, (unsigned)corrupt,
              (unsigned)applied);
    { /* a delta from the world needs its base's world hash, and refuses another; unknown flags refused */
        ecs_snapshot_delta_info info;
        CHECK(ecs_snapshot_world_digest(&a.w, &d1, &err) == ECS_OK && save_again(&a.w, &s1, &err) == ECS_OK);
        CHECK(ecs_snapshot_delta_from_world(&d0, &a.w, &d1, 0, &d, &err) == ECS_OK);
        CHECK(ecs_snapshot_apply_delta(s0.data, s0.size, d.data, d.size, 0, &o, &err) == ECS_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "world hash") && o.data == NULL);
        CHECK(apply_world(&s0, d0.hash ^ 1u, &d, &o, 0, &err) == ECS_ERROR_INVALID_ARGUMENT && strstr(err.message, "hash"));
        CHECK(apply_world(&s0, d0.hash, &d, &o, 0, &err) == ECS_OK && same_bytes(&o, &s1));
        ((unsigned char *)d.data)[56] |= 2u;
        CHECK(ecs_snapshot_delta_verify(d.data, d.size, &info, &err) == ECS_ERROR_CORRUPT_RESOURCE && strstr(err.message, "flags"));
        ((unsigned char *)d.data)[56] &= (unsigned char)~2u;
        CHECK(ecs_snapshot_delta_verify(d.data, d.size, &info, &err) == ECS_OK && info.flags == ECS_SNAPSHOT_DELTA_WORLD_HASHES);
        ecs_snapshot_output_free(&o);
        ecs_snapshot_output_free(&d);
    }
    /* bad arguments */
    bad = d1;
    bad.block = (ecs_snapshot_digest_block *)malloc(d1.num_blocks * sizeof *bad.block);
    CHECK(bad.block && d1.num_blocks > 2);
    if (!bad.block) return;
    memcpy(bad.block, d1.block, d1.num_blocks * sizeof *bad.block);
    bad.block[2].offset = bad.block[1].offset; /* not forward */
    CHECK(ecs_snapshot_delta_from_world(&d0, &a.w, &bad, 0, &d, &err) == ECS_ERROR_INVALID_ARGUMENT &&
          strstr(err.message, "now is no ecs_snapshot_world_digest"));
    memcpy(bad.block, d1.block, d1.num_blocks * sizeof *bad.block); /* a base going back: still a delta that verifies */
    bad.block[d1.num_blocks / 2u].offset = bad.block[1].offset + 8u;
    CHECK(ecs_snapshot_delta_from_world(&bad, &a.w, &d1, 0, &d, &err) == ECS_OK &&
          ecs_snapshot_delta_verify(d.data, d.size, NULL, &err) == ECS_OK);
    ecs_snapshot_output_free(&d);
    { /* the same of ecs_snapshot_world_digest_delta: a base going back still gives a delta that verifies; not from 0: refused */
        ecs_snapshot_digest fused;
        memset(&fused, 0, sizeof fused);
        CHECK(ecs_snapshot_world_digest_delta(&a.w, &bad, &fused, 0, &d, &err) == ECS_OK && same_digest(&fused, &d1) &&
              ecs_snapshot_delta_verify(d.data, d.size, NULL, &err) == ECS_OK);
        ecs_snapshot_output_free(&d);
        bad.block[0].offset = 8u;
        CHECK(ecs_snapshot_world_digest_delta(&a.w, &bad, &fused, 0, &d, &err) == ECS_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "base is no ecs_snapshot_world_digest") && d.data == NULL && d.size == 0);
        CHECK(ecs_snapshot_world_digest_delta(&a.w, NULL, &fused, 0, &d, &err) == ECS_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "base is NULL"));
        CHECK(ecs_snapshot_world_digest_delta(&a.w, &d0, NULL, 0, &d, &err) == ECS_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "now is NULL"));
        CHECK(ecs_snapshot_world_digest_delta(NULL, &d0, &fused, 0, &d, &err) == ECS_ERROR_INVALID_ARGUMENT);
        CHECK(ecs_snapshot_world_digest_delta(&a.w, &d0, &fused, 0, NULL, &err) == ECS_ERROR_INVALID_ARGUMENT);
        ecs_snapshot_digest_free(&fused);
    }
    free(bad.block);
    CHECK(ecs_snapshot_delta_from_world(NULL, &a.w, &d1, 0, &d, &err) == ECS_ERROR_INVALID_ARGUMENT && strstr(err.message, "base"));
    CHECK(ecs_snapshot_delta_from_world(&d0, &a.w, &d1, 0, NULL, &err) == ECS_ERROR_INVALID_ARGUMENT);
    CHECK(ecs_snapshot_world_digest(NULL, &d0, &err) == ECS_ERROR_INVALID_ARGUMENT);
    ecs_snapshot_digest_free(&d0);
    ecs_snapshot_digest_free(&d1);
    ecs_snapshot_output_free(&s0);
    ecs_snapshot_output_free(&s1);
    free_world(&a);
}

/* Big changes between two states: a thousand entities destroyed (every
   array shrinks by many blocks: base's extra blocks are skipped), then
   1,500 created (they grow), then both: the delta from the world gives the
   save, and carries far less than the state. */
static void test_from_world_big(void)
{
    test_world a;
    ecs_snapshot_output s0 = {NULL, 0}, s1 = {NULL, 0}, d = {NULL, 0}, o = {NULL, 0};
    ecs_snapshot_digest d0, d1, fused;
    ecs_snapshot_delta_info info;
    ecs_error err;
    uint32_t round, k;
    memset(&d0, 0, sizeof d0);
    memset(&d1, 0, sizeof d1);
    memset(&fused, 0, sizeof fused);
    rng_state = 31;
    big_world(&a, 6000);
    for (round = 0; round < 3; ++round) {
        CHECK(ecs_snapshot_world_digest(&a.w, &d0, &err) == ECS_OK && save_again(&a.w, &s0, &err) == ECS_OK);
        if (round != 1)
            for (k = 0; k < 1000u; ++k) (void)ecs_world_destroy_now(&a.w, a.tm.entity[a.tm.count / 2u]);
        if (round != 0)
            for (k = 0; k < 1500u; ++k) {
                ecs_entity e = ecs_entity_create(&a.w.entities);
                ecs_mat4 local = ecs_mat4_identity();
                fill_random(a.m[0], ecs_manager_create(a.m[0], e));
                (void)ecs_transform_create(&a.tm, e, &local, ecs_instance_nil());
            }
        CHECK(ecs_snapshot_world_digest(&a.w, &d1, &err) == ECS_OK && save_again(&a.w, &s1, &err) == ECS_OK);
        CHECK(ecs_snapshot_delta_from_world(&d0, &a.w, &d1, ECS_SNAPSHOT_REUSE_OUTPUT, &d, &err) == ECS_OK &&
              ecs_snapshot_delta_verify(d.data, d.size, &info, &err) == ECS_OK);
        CHECK(apply_world(&s0, d0.hash, &d, &o, ECS_SNAPSHOT_REUSE_OUTPUT, &err) == ECS_OK && same_bytes(&o, &s1));
        CHECK_MSG(info.literal_bytes < s1.size / 2u, "round %u: %llu of %lu bytes carried", (unsigned)round,
                  (unsigned long long)info.literal_bytes, (unsigned long)s1.size);
        CHECK(digest_delta_holds(&a.w, &d0, &s0, &d1, &s1, &fused, &d, &o, NULL));
    }
    ecs_snapshot_digest_free(&fused);
    ecs_snapshot_digest_free(&d0);
    ecs_snapshot_digest_free(&d1);
    ecs_snapshot_output_free(&s0);
    ecs_snapshot_output_free(&s1);
    ecs_snapshot_output_free(&d);
    ecs_snapshot_output_free(&o);
    free_world(&a);
}

/* Every allocation of a digest and of a delta from the world failing in
   turn: OUT_OF_MEMORY with the documented state, or the right result. */
static void test_from_world_oom(void)
{
    test_world a;
    ecs_snapshot_output s0 = {NULL, 0}, s1 = {NULL, 0}, d = {NULL, 0}, o = {NULL, 0};
    ecs_snapshot_digest d0, d1, fresh;
    ecs_error err;
    unsigned long k, digest_ok = 0, delta_ok = 0, fused_ok = 0;
    memset(&d0, 0, sizeof d0);
    memset(&d1, 0, sizeof d1);
    CHECK(make_world(&a, ECS_TRANSFORM_DEFERRED, WITH_GROUP | WITH_RAW));
    rng_state = 5;
    churn(&a, 400);
    CHECK(ecs_snapshot_world_digest(&a.w, &d0, &err) == ECS_OK && ecs_snapshot_save(&a.w, NULL, &s0, &err) == ECS_OK);
    churn(&a, 20);
    CHECK(ecs_snapshot_world_digest(&a.w, &d1, &err) == ECS_OK && ecs_snapshot_save(&a.w, NULL, &s1, &err) == ECS_OK);
    for (k = 1; k < 40u && !(digest_ok && delta_ok && fused_ok); ++k) {
        ecs_result r;
        memset(&fresh, 0, sizeof fresh);
        oom_calls = 0;
        oom_fail_at = k;
        r = ecs_snapshot_world_digest(&a.w, &fresh, &err);
        oom_fail_at = 0;
        if (r == ECS_OK) digest_ok = k;
        CHECK(r == ECS_OK ? fresh.hash == d1.hash && fresh.num_blocks == d1.num_blocks &&
                                memcmp(fresh.block, d1.block, d1.num_blocks * 8u) == 0
                          : r == ECS_ERROR_OUT_OF_MEMORY && fresh.num_blocks == 0 && fresh.hash == 0);
        ecs_snapshot_digest_free(&fresh);
        oom_calls = 0;
        oom_fail_at = k;
        r = ecs_snapshot_delta_from_world(&d0, &a.w, &d1, 0, &d, &err);
        oom_fail_at = 0;
        if (r == ECS_OK) {
            delta_ok = k;
            CHECK(apply_world(&s0, d0.hash, &d, &o, 0, &err) == ECS_OK && same_bytes(&o, &s1));
            ecs_snapshot_output_free(&o);
        } else {
            CHECK(r == ECS_ERROR_OUT_OF_MEMORY && d.data == NULL && d.size == 0);
        }
        ecs_snapshot_output_free(&d);
        memset(&fresh, 0, sizeof fresh); /* the digest and the delta in one pass */
        oom_calls = 0;
        oom_fail_at = k;
        r = ecs_snapshot_world_digest_delta(&a.w, &d0, &fresh, 0, &d, &err);
        oom_fail_at = 0;
        if (r == ECS_OK) {
            fused_ok = k;
            CHECK(same_digest(&fresh, &d1) && apply_world(&s0, d0.hash, &d, &o, 0, &err) == ECS_OK && same_bytes(&o, &s1));
            ecs_snapshot_output_free(&o);
        } else {
            CHECK(r == ECS_ERROR_OUT_OF_MEMORY && d.data == NULL && d.size == 0 && fresh.num_blocks == 0 && fresh.hash == 0 &&
                  fresh.size == 0);
        }
        ecs_snapshot_digest_free(&fresh);
        ecs_snapshot_output_free(&d);
    }
    CHECK(digest_ok > 1 && delta_ok > 1 && fused_ok > 2);
    ecs_snapshot_digest_free(&d0);
    ecs_snapshot_digest_free(&d1);
    ecs_snapshot_output_free(&s0);
    ecs_snapshot_output_free(&s1);
    free_world(&a);
}

/* ---- tests/corpus/fuzz_delta ------------------------------------------------------------- */

/* DIR/name: a little-endian u32 of a's size, a's bytes, b's bytes. */
static void write_pair(const char *dir, const char *name, const ecs_snapshot_output *a, const ecs_snapshot_output *b)
{
    char path[512];
    unsigned char len[4];
    FILE *f;
    len[0] = (unsigned char)a->size, len[1] = (unsigned char)(a->size >> 8);
    len[2] = (unsigned char)(a->size >> 16), len[3] = (unsigned char)(a->size >> 24);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    CHECK(f && fwrite(len, 1, 4, f) == 4 && fwrite(a->data, 1, a->size, f) == a->size && fwrite(b->data, 1, b->size, f) == b->size);
    if (f) fclose(f);
}

/* `test_snapshot_delta --corpus DIR` writes the fuzz harness's corpus:
   snapshot pairs of a small churning world with the delta between them
   (native and big-endian, stores left out, the world growing) and as two
   snapshots. */
static void write_corpus(const char *dir)
{
    static const char *const some[] = {"body", "transform", NULL};
    test_world a;
    ecs_snapshot_output s[4], d = {NULL, 0};
    ecs_snapshot_desc desc;
    ecs_error err;
    uint32_t k;
    memset(s, 0, sizeof s);
    memset(&desc, 0, sizeof desc);
    CHECK(make_world(&a, ECS_TRANSFORM_DEFERRED, WITH_GROUP)); /* (no raw fields: a big-endian pair too) */
    rng_state = 515;
    churn(&a, 250);
    CHECK(ecs_snapshot_save(&a.w, NULL, &s[0], &err) == ECS_OK);
    churn(&a, 30);
    CHECK(ecs_snapshot_save(&a.w, NULL, &s[1], &err) == ECS_OK);
    desc.stores = some;
    CHECK(ecs_snapshot_save(&a.w, &desc, &s[2], &err) == ECS_OK);
    for (k = 0; k < 12; ++k) remember(&a, ecs_entity_create(&a.w.entities)); /* growth */
    churn(&a, 40);
    CHECK(ecs_snapshot_save(&a.w, NULL, &s[3], &err) == ECS_OK);
    CHECK(ecs_snapshot_delta(s[0].data, s[0].size, s[1].data, s[1].size, 0, &d, &err) == ECS_OK);
    write_pair(dir, "delta.bin", &s[0], &d);
    write_pair(dir, "snapshots.bin", &s[0], &s[1]);
    ecs_snapshot_output_free(&d);
    CHECK(ecs_snapshot_delta(s[1].data, s[1].size, s[2].data, s[2].size, 0, &d, &err) == ECS_OK);
    write_pair(dir, "delta_partial.bin", &s[1], &d);
    ecs_snapshot_output_free(&d);
    CHECK(ecs_snapshot_delta(s[1].data, s[1].size, s[3].data, s[3].size, 0, &d, &err) == ECS_OK);
    write_pair(dir, "delta_grown.bin", &s[1], &d);
    ecs_snapshot_output_free(&d);
    CHECK(ecs_snapshot_delta(s[3].data, s[3].size, s[1].data, s[1].size, 0, &d, &err) == ECS_OK);
    write_pair(dir, "delta_shrunk.bin", &s[3], &d);
    ecs_snapshot_output_free(&d);
    for (k = 0; k < 2; ++k) { /* big-endian */
        ecs_error e2;
        desc.stores = NULL;
        desc.flags = ECS_SNAPSHOT_BIG_ENDIAN;
        ecs_snapshot_output_free(&s[k]);
        CHECK(ecs_snapshot_save(&a.w, &desc, &s[k], &e2) == ECS_OK);
        churn(&a, 20);
    }
    CHECK(ecs_snapshot_delta(s[0].data, s[0].size, s[1].data, s[1].size, 0, &d, &err) == ECS_OK);
    write_pair(dir, "delta_be.bin", &s[0], &d);
    ecs_snapshot_output_free(&d);
    { /* a delta from the world (named by world hashes), with growth */
        ecs_snapshot_digest d0, d1;
        memset(&d0, 0, sizeof d0);
        memset(&d1, 0, sizeof d1);
        ecs_snapshot_output_free(&s[0]);
        CHECK(ecs_snapshot_world_digest(&a.w, &d0, &err) == ECS_OK && ecs_snapshot_save(&a.w, NULL, &s[0], &err) == ECS_OK);
        for (k = 0; k < 12; ++k) remember(&a, ecs_entity_create(&a.w.entities));
        churn(&a, 30);
        CHECK(ecs_snapshot_world_digest(&a.w, &d1, &err) == ECS_OK);
        CHECK(ecs_snapshot_delta_from_world(&d0, &a.w, &d1, 0, &d, &err) == ECS_OK);
        write_pair(dir, "delta_world.bin", &s[0], &d);
        ecs_snapshot_output_free(&d);
        ecs_snapshot_digest_free(&d0);
        ecs_snapshot_digest_free(&d1);
    }
    for (k = 0; k < 4; ++k) ecs_snapshot_output_free(&s[k]);
    free_world(&a);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--corpus") == 0) {
        write_corpus(argv[2]);
        return test_report("test_snapshot_delta --corpus");
    }
    test_format();
    test_bad_deltas();
    test_oom();
    test_in_place();
    test_moved_store();
    test_known_hashes();
    test_churn(ECS_TRANSFORM_IMMEDIATE, 0);
    test_churn(ECS_TRANSFORM_DEFERRED, 0);
    test_churn(ECS_TRANSFORM_IMMEDIATE, ECS_SNAPSHOT_BIG_ENDIAN);
    test_churn(ECS_TRANSFORM_DEFERRED, ECS_SNAPSHOT_LITTLE_ENDIAN);
    test_from_world(ECS_TRANSFORM_IMMEDIATE, 0);
    test_from_world(ECS_TRANSFORM_DEFERRED, 0);
    test_from_world(ECS_TRANSFORM_DEFERRED, 1);
    test_from_world_stale();
    test_from_world_big();
    test_from_world_oom();
    return test_report("test_snapshot_delta");
}
