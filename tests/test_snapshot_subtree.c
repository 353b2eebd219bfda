/* tests/test_snapshot_subtree.c - a snapshot of the entities under a
   transform node (ecs_snapshot_desc's hierarchy and root), checked against
   the saved world instance by instance (entities destroyed inside the
   subtree and not yet collected left out, with everything below them):
   the entity manager whole, every store holding exactly the subtree's
   instances in their order (next links renumbered, direct slots left out
   as holes, the group's prefix), the transform nodes with their links, the
   root standing at its current world matrix,
   the deferred state of the kept nodes; the snapshot saved again from the
   loaded world gives the same bytes; JSON and the other byte order round
   trip; selections that are not closed under descendants through
   ecs_transform_snapshot_save_selected; errors; every allocation failing. */
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

/* The ids of e's subtree in t's transform store (malloc'd, *n of them). */
static ecs_entity *subtree_of(const test_world *t, ecs_entity e, uint32_t *n)
{
    const ecs_store_interface *tf = ecs_transform_store_interface();
    ecs_entity *ids;
    *n = tf->subtree(&t->tm, e, NULL, 0);
    ids = (ecs_entity *)malloc(((size_t)*n + 1u) * sizeof *ids);
    if (ids) (void)tf->subtree(&t->tm, e, ids, *n);
    return ids;
}

static int in_set(const ecs_entity *ids, uint32_t n, uint32_t id)
{
    uint32_t k;
    for (k = 0; k < n; ++k)
        if (ids[k].id == id) return 1;
    return 0;
}

/* Gives e an instance in every manager (the first three: one only). */
static void give_components(test_world *t, ecs_entity e)
{
    uint32_t m;
    for (m = 0; m < NUM_MANAGERS; ++m) {
        ecs_instance i;
        if (m < 3 && !ecs_instance_is_nil(ecs_manager_lookup(t->m[m], e))) continue;
        i = ecs_manager_create(t->m[m], e);
        if (!ecs_instance_is_nil(i)) fill_random(t->m[m], i);
    }
}

/* Grows a subtree of 40 new entities under a node of t (another 40 made
   in between, and churn, mix the instance orders) and returns its root, or
   nil when the churn left fewer than 8 of them under it. */
static ecs_entity grow_subtree(test_world *t)
{
    ecs_instance top = t->tm.count ? ecs_instance_make(rnd_below(t->tm.count)) : ecs_instance_nil();
    ecs_entity members[40], root;
    uint32_t k;
    for (k = 0; k < 40; ++k) {
        ecs_mat4 local = random_local();
        ecs_instance parent = k ? ecs_transform_lookup(&t->tm, members[rnd_below(k)]) : top;
        ecs_entity other = ecs_entity_create(&t->w.entities);
        members[k] = ecs_entity_create(&t->w.entities);
        remember(t, members[k]);
        remember(t, other);
        CHECK(!ecs_instance_is_nil(ecs_transform_create(&t->tm, members[k], &local, parent)));
        give_components(t, members[k]);
        if (k % 3u == 0) give_components(t, members[k]); /* several items */
        give_components(t, other);
        (void)ecs_transform_create(&t->tm, other, &local, top);
        churn(t, 20);
    }
    root = members[0];
    free(subtree_of(t, root, &k));
    return k >= 8u ? root : make_id(0); /* the churn may have cut it down: grow another */
}

/* Destroys two nodes of the subtree ids (not the root), in the entity
   manager only (their nodes and instances wait for a collect): first one
   with children, then any other still live. The number destroyed. */
static uint32_t kill_in_subtree(test_world *t, const ecs_entity *ids, uint32_t n, ecs_entity root)
{
    uint32_t k, killed = 0, start = rnd_below(n), pass;
    for (pass = 0; pass < 2; ++pass)
        for (k = 0; k < n && killed == pass; ++k) {
            ecs_entity e = ids[(start + k) % n];
            ecs_instance x = ecs_transform_lookup(&t->tm, e);
            if (e.id == root.id || !ecs_entity_live(&t->w.entities, e) || ecs_instance_is_nil(x)) continue;
            if (pass == 0 && ecs_instance_is_nil(ecs_transform_first_child(&t->tm, x))) continue;
            killed += ecs_entity_destroy(&t->w.entities, e) ? 1u : 0u;
        }
    return killed;
}

/* What a selection under x keeps (since ecs_snapshot.h 0.9): x and its
   descendants, less every entity that is not live with all below it.
   Appended to out from out[n]; the new count. */
static uint32_t live_subtree(const test_world *t, ecs_instance x, ecs_entity *out, uint32_t n)
{
    ecs_instance c;
    if (!ecs_entity_live(&t->w.entities, t->tm.entity[x.i])) return n;
    out[n++] = t->tm.entity[x.i];
    for (c = ecs_transform_first_child(&t->tm, x); !ecs_instance_is_nil(c); c = ecs_transform_next_sibling(&t->tm, c))
        n = live_subtree(t, c, out, n);
    return n;
}

/* b's manager k holds exactly a's instances of the entities in ids, in
   a's order, with the same bytes and chains (direct: the same slots). */
static int same_kept_instances(const ecs_manager *ma, const ecs_manager *mb, const ecs_entity *ids, uint32_t n)
{
    uint32_t i, j = 0, f, g = 0;
    if (ma->lookup == ECS_LOOKUP_DIRECT) {
        for (i = 0; i < mb->count; ++i) {
            int kept = i < ma->count && ma->entity[i].id && in_set(ids, n, ma->entity[i].id);
            if (mb->entity[i].id != (kept ? ma->entity[i].id : 0u)) return 0;
            for (f = 0; kept && f < ma->num_fields; ++f)
                if (memcmp(ecs_manager_field(ma, f, i), ecs_manager_field(mb, f, i), ma->fields[f].size) != 0) return 0;
            j += kept ? 1u : 0u;
        }
        for (; i < ma->count; ++i)
            if (ma->entity[i].id && in_set(ids, n, ma->entity[i].id)) return 0;
        return j == mb->num_instances;
    }
    for (i = 0; i < ma->count; ++i) {
        ecs_instance xa, xb;
        if (!in_set(ids, n, ma->entity[i].id)) continue;
        if (j >= mb->count || mb->entity[j].id != ma->entity[i].id) return 0;
        for (f = 0; f < ma->num_fields; ++f)
            if (memcmp(ecs_manager_field(ma, f, i), ecs_manager_field(mb, f, j), ma->fields[f].size) != 0) return 0;
        g += ma->group && i < ma->group->size;
        ++j;
        /* the chain from here on: as long, and in the same order of bytes */
        for (xa = ecs_instance_make(i), xb = ecs_instance_make(j - 1u); !ecs_instance_is_nil(xa);
             xa = ecs_manager_next(ma, xa), xb = ecs_manager_next(mb, xb)) {
            if (ecs_instance_is_nil(xb)) return 0;
            for (f = 0; f < ma->num_fields; ++f)
                if (memcmp(ecs_manager_field(ma, f, xa.i), ecs_manager_field(mb, f, xb.i), ma->fields[f].size) != 0) return 0;
        }
        if (!ecs_instance_is_nil(xb)) return 0;
    }
    if (ma->group && (!mb->group || mb->group->size != g)) return 0;
    return j == mb->count && j == mb->num_instances;
}

/* b's transform store holds a's nodes of ids, in a's order; links the same
   (root: a root standing at its current world matrix); deferred state the
   kept part of a's, except that a root whose stored world waits for a
   commit above it is saved as changed (age 0, pending at the end). */
static int same_kept_nodes(const ecs_transform_manager *a, const ecs_transform_manager *b, const ecs_entity *ids,
                           uint32_t n, ecs_entity root)
{
    uint32_t i, j = 0, dirty = 0, k, p = 0;
    for (i = 0; i < a->count; ++i) {
        ecs_instance pa, pb;
        ecs_mat4 now;
        int is_root = a->entity[i].id == root.id;
        if (!in_set(ids, n, a->entity[i].id)) continue;
        if (j >= b->count || b->entity[j].id != a->entity[i].id) return 0;
        if (b->age[j] != a->age[i] && !(is_root && b->age[j] == 0)) return 0;
        if (memcmp(&b->world[j], &a->world[i], sizeof(ecs_mat4)) != 0) return 0;
        ecs_transform_compute_world(a, ecs_instance_make(i), &now);
        if (memcmp(&b->local[j], is_root ? &now : &a->local[i], sizeof(ecs_mat4)) != 0) return 0;
        pa = ecs_transform_parent(a, ecs_instance_make(i));
        pb = ecs_transform_parent(b, ecs_instance_make(j));
        if (is_root ? !ecs_instance_is_nil(pb) : (ecs_instance_is_nil(pb) || b->entity[pb.i].id != a->entity[pa.i].id)) return 0;
        { /* the kept children, in sibling order */
            ecs_instance ca = ecs_transform_first_child(a, ecs_instance_make(i)), cb = ecs_transform_first_child(b, ecs_instance_make(j));
            for (; !ecs_instance_is_nil(ca); ca = ecs_transform_next_sibling(a, ca)) {
                if (!in_set(ids, n, a->entity[ca.i].id)) continue;
                if (ecs_instance_is_nil(cb) || b->entity[cb.i].id != a->entity[ca.i].id) return 0;
                cb = ecs_transform_next_sibling(b, cb);
            }
            if (!ecs_instance_is_nil(cb)) return 0;
        }
        dirty += i >= a->first_dirty;
        ++j;
    }
    for (k = 0; k < a->num_pending; ++k)
        if (in_set(ids, n, a->pending[k]) && (p >= b->num_pending || b->pending[p++] != a->pending[k])) return 0;
    if (p < b->num_pending && b->pending[p] == root.id) ++p; /* the root, saved as changed */
    return j == b->count && b->count - b->first_dirty == dirty && p == b->num_pending;
}

/* The entity managers' whole state is equal. */
static int same_entities(const ecs_entity_manager *a, const ecs_entity_manager *b)
{
    return a->max_index == b->max_index && a->num_free == b->num_free && a->free_head == b->free_head &&
           a->num_retired == b->num_retired && a->free_capacity == b->free_capacity &&
           memcmp(a->generation, b->generation, (size_t)a->max_index + 1u) == 0 &&
           (!a->free_capacity || memcmp(a->free_ring, b->free_ring, (size_t)a->free_capacity * 4u) == 0);
}

static void test_subtree(ecs_transform_mode mode, uint64_t seed)
{
    test_world a, b;
    ecs_snapshot_output out = {NULL, 0}, again = {NULL, 0}, whole = {NULL, 0};
    ecs_snapshot_desc desc;
    ecs_error err;
    ecs_entity root, *ids, *all;
    uint32_t n, k, flags, num_all, num_live = 0;
    CHECK(make_world(&a, mode, WITH_GROUP | WITH_RAW) && make_world(&b, mode, WITH_GROUP | WITH_RAW));
    rng_state = seed;
    churn(&a, 6000);
    do root = grow_subtree(&a); while (root.id == 0);
    if (mode == ECS_TRANSFORM_DEFERRED && a.tm.count) { /* a change waiting for the commit */
        ecs_mat4 local = random_local();
        CHECK(ecs_transform_set_local(&a.tm, ecs_instance_make(a.tm.count - 1u), &local) == ECS_OK);
    }
    CHECK(a.m[0]->group && a.m[0]->group->size > 0);
    /* dead entities inside the subtree, one with children: left out, with everything below them */
    all = subtree_of(&a, root, &num_all);
    CHECK(all != NULL && num_all >= 8u);
    if (!all) return;
    CHECK(kill_in_subtree(&a, all, num_all, root) == 2u);
    for (k = 0; k < num_all; ++k) num_live += ecs_entity_live(&a.w.entities, all[k]) ? 1u : 0u;
    ids = (ecs_entity *)malloc((size_t)num_all * sizeof *ids);
    CHECK(ids != NULL);
    if (!ids) return;
    n = live_subtree(&a, ecs_transform_lookup(&a.tm, root), ids, 0);
    CHECK_MSG(n >= 2u && n < num_live, "%u kept of %u live (%u in the subtree)", (unsigned)n, (unsigned)num_live,
              (unsigned)num_all); /* a live node under a dead one is left out too */
    memset(&desc, 0, sizeof desc);
    desc.hierarchy = "transform";
    desc.root = root;
    CHECK_MSG(ecs_snapshot_save(&a.w, &desc, &out, &err) == ECS_OK, "%s", err.message);
    CHECK_MSG(ecs_snapshot_verify(out.data, out.size, &err) == ECS_OK, "%s", err.message);
    memcpy(&flags, (const char *)out.data + 24, 4);
    CHECK(flags == 1u); /* a selection */
    CHECK_MSG(ecs_snapshot_load(&b.w, out.data, out.size, 0, NULL, &err) == ECS_OK, "%s", err.message);
    CHECK(same_entities(&a.w.entities, &b.w.entities));
    for (k = 0; k < NUM_MANAGERS; ++k) CHECK_MSG(same_kept_instances(a.m[k], b.m[k], ids, n), "manager %u", (unsigned)k);
    CHECK(b.m[0]->num_instances > 0 && b.m[0]->num_instances < a.m[0]->num_instances);
    CHECK(same_kept_nodes(&a.tm, &b.tm, ids, n, root));
    CHECK(b.tm.count == n);
    CHECK(consistent(&b));
    CHECK(ecs_entity_create(&a.w.entities).id == ecs_entity_create(&b.w.entities).id);
    /* saved again from the loaded world: the same bytes; saved whole: only the flags differ */
    CHECK(ecs_snapshot_save(&b.w, &desc, &again, &err) == ECS_OK);
    ecs_entity_destroy(&a.w.entities, root); /* (the create above changed both entity managers alike) */
    ecs_entity_destroy(&b.w.entities, root);
    ecs_snapshot_output_free(&again);
    free_world(&b);
    CHECK(make_world(&b, mode, WITH_GROUP | WITH_RAW));
    CHECK(ecs_snapshot_load(&b.w, out.data, out.size, 0, NULL, &err) == ECS_OK);
    CHECK(ecs_snapshot_save(&b.w, &desc, &again, &err) == ECS_OK);
    CHECK(again.size == out.size && again.data && memcmp(again.data, out.data, out.size) == 0);
    CHECK(ecs_snapshot_save(&b.w, NULL, &whole, &err) == ECS_OK);
    CHECK(whole.size == out.size);
    if (whole.size == out.size) {
        memcpy((char *)whole.data + 24, &flags, 4);
        CHECK(memcmp(whole.data, out.data, out.size) == 0);
    }
    /* the loaded world runs on, the same way from each load of the blob */
    {
        test_world c;
        CHECK(make_world(&c, mode, WITH_GROUP | WITH_RAW));
        CHECK(ecs_snapshot_load(&c.w, out.data, out.size, 0, NULL, &err) == ECS_OK);
        copy_ids(&b, &a);
        copy_ids(&c, &a);
        CHECK(same_future(&b, &c, 2000, seed + 1u));
        free_world(&c);
    }
    free(ids);
    free(all);
    ecs_snapshot_output_free(&out);
    ecs_snapshot_output_free(&again);
    ecs_snapshot_output_free(&whole);
    free_world(&a);
    free_world(&b);
}

/* Stores and a subtree together; JSON; the other byte order. */
static void test_subtree_forms(void)
{
    test_world a, b;
    ecs_snapshot_output out = {NULL, 0}, text = {NULL, 0}, back = {NULL, 0}, other = {NULL, 0};
    static const char *const stores[] = {"body", "transform", NULL};
    ecs_snapshot_desc desc;
    ecs_snapshot_report rep;
    ecs_error err;
    ecs_entity root;
    CHECK(make_world(&a, ECS_TRANSFORM_IMMEDIATE, WITH_GROUP) && make_world(&b, ECS_TRANSFORM_IMMEDIATE, 0));
    rng_state = 808;
    churn(&a, 4000);
    do root = grow_subtree(&a); while (root.id == 0);
    memset(&desc, 0, sizeof desc);
    desc.hierarchy = "transform";
    desc.root = root;
    CHECK(ecs_snapshot_save(&a.w, &desc, &out, &err) == ECS_OK);
    CHECK_MSG(ecs_snapshot_to_json(out.data, out.size, &text, &err) == ECS_OK, "%s", err.message);
    CHECK(text.data && strstr((const char *)text.data, "\"partial\": 1") != NULL);
    CHECK_MSG(ecs_snapshot_from_json((const char *)text.data, text.size, &back, &err) == ECS_OK, "%s", err.message);
    CHECK(back.size == out.size && back.data && memcmp(back.data, out.data, out.size) == 0);
    desc.flags = ecs__res_host_big_endian() ? ECS_SNAPSHOT_LITTLE_ENDIAN : ECS_SNAPSHOT_BIG_ENDIAN;
    CHECK(ecs_snapshot_save(&a.w, &desc, &other, &err) == ECS_OK);
    CHECK(ecs_snapshot_swap(other.data, other.size, &err) == ECS_OK);
    CHECK(other.size == out.size && other.data && memcmp(other.data, out.data, out.size) == 0);
    ecs_snapshot_output_free(&out);
    /* two stores of the subtree: the others are not in the snapshot (skipped by name on load) */
    desc.flags = 0;
    desc.stores = stores;
    CHECK(ecs_snapshot_save(&a.w, &desc, &out, &err) == ECS_OK);
    CHECK_MSG(ecs_snapshot_load(&b.w, out.data, out.size, 0, &rep, &err) == ECS_OK, "%s", err.message);
    CHECK(b.m[1]->count == 0 && b.m[0]->count > 0 && b.tm.count > 0);
    CHECK(b.tm.count < a.tm.count && b.m[0]->count < a.m[0]->count);
    ecs_snapshot_output_free(&out);
    ecs_snapshot_output_free(&text);
    ecs_snapshot_output_free(&back);
    ecs_snapshot_output_free(&other);
    free_world(&a);
    free_world(&b);
}

/* Refusals: nothing written, a message naming the problem. */
static void test_subtree_errors(void)
{
    test_world a;
    ecs_snapshot_output out = {NULL, 0};
    ecs_snapshot_desc desc;
    ecs_store_interface no_selection = *ecs_transform_store_interface();
    ecs_transform_manager other;
    ecs_error err;
    ecs_entity stranger;
    CHECK(make_world(&a, ECS_TRANSFORM_IMMEDIATE, WITH_GROUP));
    rng_state = 4;
    churn(&a, 1000);
    memset(&desc, 0, sizeof desc);
    desc.hierarchy = "nowhere";
    desc.root = a.tm.entity[0];
    CHECK(ecs_snapshot_save(&a.w, &desc, &out, &err) == ECS_ERROR_NOT_FOUND && out.data == NULL);
    CHECK(strstr(err.message, "'nowhere'") != NULL);
    desc.hierarchy = "body";
    CHECK(ecs_snapshot_save(&a.w, &desc, &out, &err) == ECS_ERROR_INVALID_ARGUMENT && out.data == NULL);
    desc.hierarchy = "transform";
    desc.root = make_id(0);
    CHECK(ecs_snapshot_save(&a.w, &desc, &out, &err) == ECS_ERROR_NOT_FOUND && out.data == NULL);
    stranger = ecs_entity_create(&a.w.entities);
    desc.root = stranger;
    CHECK(ecs_snapshot_save(&a.w, &desc, &out, &err) == ECS_ERROR_NOT_FOUND && out.data == NULL);
    CHECK(strstr(err.message, "'transform'") != NULL);
    /* a store that cannot save a selection */
    no_selection.save_selected = NULL;
    CHECK(ecs_transform_manager_init(&other, ECS_LOOKUP_HASH, ECS_TRANSFORM_IMMEDIATE) == ECS_OK);
    CHECK(ecs_world_add_store(&a.w, "other", &other, &no_selection, &err) == ECS_OK);
    desc.root = a.tm.entity[0];
    CHECK(ecs_snapshot_save(&a.w, &desc, &out, &err) == ECS_ERROR_INVALID_ARGUMENT && out.data == NULL);
    CHECK(strstr(err.message, "'other'") != NULL);
    free_world(&a);
    ecs_transform_manager_free(&other);
}

/* Every allocation failing in turn: out of memory and nothing written, or
   the same bytes. */
static void test_subtree_oom(void)
{
    test_world a;
    ecs_snapshot_output out = {NULL, 0}, o2;
    ecs_snapshot_desc desc;
    ecs_error err;
    unsigned long k, saved = 0;
    CHECK(make_world(&a, ECS_TRANSFORM_DEFERRED, WITH_GROUP | WITH_RAW));
    rng_state = 61;
    churn(&a, 3000);
    memset(&desc, 0, sizeof desc);
    desc.hierarchy = "transform";
    do desc.root = grow_subtree(&a); while (desc.root.id == 0);
    CHECK(ecs_snapshot_save(&a.w, &desc, &out, &err) == ECS_OK);
    for (k = 1; k < 50 && !saved; ++k) {
        ecs_result r;
        oom_calls = 0;
        oom_fail_at = k;
        r = ecs_snapshot_save(&a.w, &desc, &o2, &err);
        oom_fail_at = 0;
        CHECK(r == ECS_OK || (r == ECS_ERROR_OUT_OF_MEMORY && o2.data == NULL && o2.size == 0));
        if (r == ECS_OK) {
            saved = k;
            CHECK(o2.size == out.size && memcmp(o2.data, out.data, out.size) == 0);
            ecs_snapshot_output_free(&o2);
        }
    }
    CHECK(saved > 4); /* the selection, its scratch, the blob and the transform's scratch each failed once */
    ecs_snapshot_output_free(&out);
    free_world(&a);
}

/* ecs_transform_snapshot_save_selected with a selection that cuts
   anywhere (not closed under descendants): the nodes kept in order, each
   child list the kept part of the old one, a node whose parent is left out
   a root at its world matrix; the bytes load (links checked). */
static void test_transform_cut(ecs_transform_mode mode)
{
    ecs_entity_manager em;
    ecs_transform_manager a, b;
    uint32_t *keep, i, k, kept = 0;
    size_t size;
    unsigned char *bytes;
    ecs_error err;
    memset(&em, 0, sizeof em);
    CHECK(ecs_transform_manager_init(&a, ECS_LOOKUP_DENSE, mode) == ECS_OK);
    CHECK(ecs_transform_manager_init(&b, ECS_LOOKUP_DENSE, mode) == ECS_OK);
    rng_state = 93 + (uint64_t)mode;
    for (i = 0; i < 600; ++i) {
        ecs_mat4 local = random_local();
        ecs_instance parent = a.count && rnd_below(5) ? ecs_instance_make(rnd_below(a.count)) : ecs_instance_nil();
        CHECK(!ecs_instance_is_nil(ecs_transform_create(&a, ecs_entity_create(&em), &local, parent)));
        if (mode == ECS_TRANSFORM_DEFERRED && rnd_below(7) == 0) ecs_transform_commit(&a);
    }
    for (i = 0; i < 200; ++i) { /* relinking mixes the order */
        (void)ecs_transform_link(&a, ecs_instance_make(rnd_below(a.count)), ecs_instance_make(rnd_below(a.count)));
        if (mode == ECS_TRANSFORM_DEFERRED && rnd_below(9) == 0) ecs_transform_commit(&a);
    }
    keep = (uint32_t *)calloc((size_t)em.max_index + 1u, 4u);
    for (i = 0; keep && i < a.count; ++i)
        if (rnd_below(3)) {
            keep[a.entity[i].id & ECS_INDEX_MASK] = a.entity[i].id;
            ++kept;
        }
    size = ecs_transform_snapshot_save_selected(&a, keep, em.max_index + 1u, NULL, 0);
    bytes = (unsigned char *)malloc(size);
    CHECK(bytes && ecs_transform_snapshot_save_selected(&a, keep, em.max_index + 1u, bytes, size) == size);
    CHECK(ecs_transform_snapshot_save_selected(&a, keep, em.max_index + 1u, bytes, size - 1u) == 0);
    CHECK_MSG(ecs_transform_snapshot_load(&b, bytes, size, &err) == ECS_OK, "%s", err.message);
    CHECK(b.count == kept);
    for (i = 0, k = 0; i < a.count && k < b.count; ++i) {
        ecs_instance pa, pb, ca, cb;
        uint32_t ka;
        if (!keep[a.entity[i].id & ECS_INDEX_MASK]) continue;
        CHECK(b.entity[k].id == a.entity[i].id);
        pa = ecs_transform_parent(&a, ecs_instance_make(i));
        pb = ecs_transform_parent(&b, ecs_instance_make(k));
        if (!ecs_instance_is_nil(pa) && keep[a.entity[pa.i].id & ECS_INDEX_MASK]) {
            CHECK(!ecs_instance_is_nil(pb) && b.entity[pb.i].id == a.entity[pa.i].id);
            CHECK(memcmp(&b.local[k], &a.local[i], sizeof(ecs_mat4)) == 0);
        } else {
            ecs_mat4 now;
            ecs_transform_compute_world(&a, ecs_instance_make(i), &now);
            CHECK(ecs_instance_is_nil(pb) && memcmp(&b.local[k], &now, sizeof(ecs_mat4)) == 0);
        }
        CHECK(memcmp(&b.world[k], &a.world[i], sizeof(ecs_mat4)) == 0);
        /* b's children: a's kept children, in order */
        ca = ecs_transform_first_child(&a, ecs_instance_make(i));
        cb = ecs_transform_first_child(&b, ecs_instance_make(k));
        for (ka = 0; !ecs_instance_is_nil(ca); ca = ecs_transform_next_sibling(&a, ca)) {
            if (!keep[a.entity[ca.i].id & ECS_INDEX_MASK]) continue;
            CHECK(!ecs_instance_is_nil(cb) && b.entity[cb.i].id == a.entity[ca.i].id);
            if (ecs_instance_is_nil(cb)) break;
            cb = ecs_transform_next_sibling(&b, cb);
            ++ka;
        }
        CHECK(ecs_instance_is_nil(cb));
        ++k;
    }
    CHECK(k == b.count);
    if (mode == ECS_TRANSFORM_DEFERRED) {
        ecs_transform_commit(&b); /* the loaded state runs: every world matrix current again */
        CHECK(b.count == kept);
    }
    ecs_transform_commit(&a); /* every kept node stands where it stands in a */
    for (i = 0; i < a.count; ++i) {
        ecs_entity e;
        e.id = a.entity[i].id;
        if (!keep[e.id & ECS_INDEX_MASK]) continue;
        k = ecs_transform_lookup(&b, e).i;
        CHECK_MSG(k < b.count && memcmp(&b.world[k], &a.world[i], sizeof(ecs_mat4)) == 0, "node %u", (unsigned)i);
    }
    free(bytes);
    free(keep);
    ecs_transform_manager_free(&a);
    ecs_transform_manager_free(&b);
    ecs_entity_manager_free(&em);
}

/* Review defect (2026-11-27): a hash-lookup transform store holds the node
   of a destroyed, not yet collected c and that of c2, a live entity that
   reuses c's index; the selection kept one id per index, the last in the
   walk, and dropped c2 (its node and data) when c came after it. Dead ids
   are left out now, with their subtrees (collect removes c's node: its
   live child d becomes a root then, out of r's subtree); a dead root is
   refused. Both walk orders: c2 under r after c, and under a before c. */
static void test_dead_in_subtree(void)
{
    static const ecs_schema_field val_schema[] = {{"v", ECS_FIELD_F32, "0"}};
    uint32_t order, k;
    for (order = 0; order < 2; ++order) {
        ecs_world w, f;
        ecs_transform_manager tm, tf;
        ecs_manager *m, *mf;
        ecs_error err;
        ecs_entity r, a, c, d, c2;
        ecs_snapshot_output out = {NULL, 0};
        ecs_snapshot_desc desc;
        ecs_mat4 id = ecs_mat4_identity();
        ecs_instance i;
        CHECK(ecs_world_init(&w) == ECS_OK && ecs_world_init(&f) == ECS_OK);
        CHECK(ecs_transform_manager_init(&tm, ECS_LOOKUP_HASH, ECS_TRANSFORM_IMMEDIATE) == ECS_OK &&
              ecs_transform_manager_init(&tf, ECS_LOOKUP_HASH, ECS_TRANSFORM_IMMEDIATE) == ECS_OK);
        m = ecs_world_define_schema(&w, "val", val_schema, 1, ECS_LOOKUP_HASH, &err);
        mf = ecs_world_define_schema(&f, "val", val_schema, 1, ECS_LOOKUP_HASH, &err);
        CHECK(m && mf && ecs_transform_world_register(&w, "transform", &tm, &err) == ECS_OK &&
              ecs_transform_world_register(&f, "transform", &tf, &err) == ECS_OK);
        r = ecs_entity_create(&w.entities);
        a = ecs_entity_create(&w.entities);
        c = ecs_entity_create(&w.entities);
        d = ecs_entity_create(&w.entities);
        CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, r, &id, ecs_instance_nil())));
        CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, a, &id, ecs_transform_lookup(&tm, r))));
        CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, c, &id, ecs_transform_lookup(&tm, r))));
        CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, d, &id, ecs_transform_lookup(&tm, c))));
        *(float *)ecs_manager_field(m, 0, ecs_manager_create(m, d).i) = 9.0f;
        CHECK(ecs_entity_destroy(&w.entities, c)); /* its node waits for a collect */
        for (k = 0; k < 1100; ++k) (void)ecs_entity_create(&w.entities);
        for (k = 0; k < 1100; ++k) ecs_entity_destroy(&w.entities, ecs_entity_make(ecs_entity_index(d) + 1u + k, 0));
        c2 = ecs_entity_create(&w.entities); /* over 1024 queued: c's index again */
        CHECK(ecs_entity_index(c2) == ecs_entity_index(c) && c2.id != c.id);
        CHECK(!ecs_instance_is_nil(ecs_transform_create(&tm, c2, &id, ecs_transform_lookup(&tm, order ? a : r))));
        *(float *)ecs_manager_field(m, 0, ecs_manager_create(m, c2).i) = 42.0f;
        CHECK(ecs_transform_store_interface()->subtree(&tm, r, NULL, 0) == 5u); /* r a c d c2 or r a c2 c d */
        memset(&desc, 0, sizeof desc);
        desc.hierarchy = "transform";
        desc.root = r;
        CHECK_MSG(ecs_snapshot_save(&w, &desc, &out, &err) == ECS_OK, "%s", err.message);
        CHECK_MSG(ecs_snapshot_load(&f, out.data, out.size, 0, NULL, &err) == ECS_OK, "%s", err.message);
        i = ecs_manager_lookup(mf, c2);
        CHECK_MSG(!ecs_instance_is_nil(i) && *(float *)ecs_manager_field(mf, 0, i.i) == 42.0f, "order %u: c2's data", (unsigned)order);
        CHECK_MSG(!ecs_instance_is_nil(ecs_transform_lookup(&tf, c2)), "order %u: c2's node", (unsigned)order);
        CHECK(ecs_transform_parent(&tf, ecs_transform_lookup(&tf, c2)).i == ecs_transform_lookup(&tf, order ? a : r).i);
        CHECK(ecs_instance_is_nil(ecs_transform_lookup(&tf, c)) && ecs_instance_is_nil(ecs_transform_lookup(&tf, d)));
        CHECK(ecs_instance_is_nil(ecs_manager_lookup(mf, d)) && tf.count == 3u && mf->count == 1u);
        ecs_snapshot_output_free(&out);
        /* a dead root: refused, nothing written */
        desc.root = c;
        CHECK(ecs_snapshot_save(&w, &desc, &out, &err) == ECS_ERROR_INVALID_ARGUMENT && out.data == NULL &&
              strstr(err.message, "not alive"));
        ecs_world_free(&w);
        ecs_world_free(&f);
        ecs_transform_manager_free(&tm);
        ecs_transform_manager_free(&tf);
    }
}

/* Review defect (2026-11-27): in deferred mode a subtree save wrote the
   stored world of the selection's root as its local, stale while a change
   at or above it waited for commit, and a root's own new local was lost:
   the loaded copy stood where the node stood before the change. body (a
   root) > arm > hand; a change to `moved`, then arm's or body's subtree
   saved and loaded: after a commit each kept node's world equals the
   source's, in both modes, and deferred gives immediate's bits. */
static void test_cut_root_pending(void)
{
    static const int cases[3][2] = {{0, 0}, {1, 1}, {0, 1}}; /* {moved, root}: 0 body, 1 arm */
    ecs_mat4 seen[2][3][3];
    uint32_t c, mode, k;
    for (mode = 0; mode < 2; ++mode)
        for (c = 0; c < 3; ++c) {
            ecs_entity_manager em;
            ecs_transform_manager a, b;
            ecs_entity e[3];
            ecs_vec3 up = {0, 10, 0}, right = {1, 0, 0}, far = {100, 0, 0};
            ecs_mat4 m = ecs_mat4_translation(up);
            uint32_t keep[8] = {0};
            unsigned char bytes[4096];
            size_t size;
            ecs_error err;
            memset(&em, 0, sizeof em);
            CHECK(ecs_transform_manager_init(&a, ECS_LOOKUP_DENSE, (ecs_transform_mode)mode) == ECS_OK);
            CHECK(ecs_transform_manager_init(&b, ECS_LOOKUP_DENSE, (ecs_transform_mode)mode) == ECS_OK);
            for (k = 0; k < 3; ++k) e[k] = ecs_entity_create(&em);
            ecs_transform_create(&a, e[0], &m, ecs_instance_nil());
            m = ecs_mat4_translation(right);
            ecs_transform_create(&a, e[1], &m, ecs_transform_lookup(&a, e[0]));
            ecs_transform_create(&a, e[2], &m, ecs_transform_lookup(&a, e[1]));
            ecs_transform_commit(&a);
            m = ecs_mat4_translation(far);
            CHECK(ecs_transform_set_local(&a, ecs_transform_lookup(&a, e[cases[c][0]]), &m) == ECS_OK);
            for (k = (uint32_t)cases[c][1]; k < 3; ++k) keep[e[k].id & ECS_INDEX_MASK] = e[k].id;
            size = ecs_transform_snapshot_save_selected(&a, keep, 8, NULL, 0);
            CHECK(size <= sizeof bytes && ecs_transform_snapshot_save_selected(&a, keep, 8, bytes, sizeof bytes) == size);
            CHECK_MSG(ecs_transform_snapshot_load(&b, bytes, size, &err) == ECS_OK, "%s", err.message);
            ecs_transform_commit(&a);
            ecs_transform_commit(&b);
            for (k = (uint32_t)cases[c][1]; k < 3; ++k) {
                ecs_mat4 wa, wb;
                ecs_transform_compute_world(&a, ecs_transform_lookup(&a, e[k]), &wa);
                ecs_transform_compute_world(&b, ecs_transform_lookup(&b, e[k]), &wb);
                CHECK_MSG(memcmp(&wa, &wb, sizeof wa) == 0, "mode %u case %u node %u: x %g, saved %g", (unsigned)mode,
                          (unsigned)c, (unsigned)k, (double)wb.m[12], (double)wa.m[12]);
                seen[mode][c][k] = wb;
            }
            ecs_transform_manager_free(&a);
            ecs_transform_manager_free(&b);
            ecs_entity_manager_free(&em);
        }
    for (c = 0; c < 3; ++c)
        for (k = (uint32_t)cases[c][1]; k < 3; ++k) CHECK(memcmp(&seen[0][c][k], &seen[1][c][k], sizeof(ecs_mat4)) == 0);
}

int main(void)
{
    test_cut_root_pending();
    test_subtree(ECS_TRANSFORM_IMMEDIATE, 12);
    test_subtree(ECS_TRANSFORM_DEFERRED, 34);
    test_subtree(ECS_TRANSFORM_IMMEDIATE, 56);
    test_subtree_forms();
    test_subtree_errors();
    test_dead_in_subtree();
    test_subtree_oom();
    test_transform_cut(ECS_TRANSFORM_IMMEDIATE);
    test_transform_cut(ECS_TRANSFORM_DEFERRED);
    return test_report("test_snapshot_subtree");
}
