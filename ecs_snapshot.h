/* ecs_snapshot.h - v0.12 - snapshots of a live world: save, verify, load,
   clone, byte swap, JSON, subtree selections, the world hash, deltas, for
   ecs.h
   Public domain or MIT (see end of file).

   A live ecs_world (ecs.h) saved into one blob and loaded back into an
   empty world bit-exactly (the same ids, instance order, free queue and
   destroy log, so every later frame matches), cloned into another world
   in memory (rollback), or written as JSON through the schemas. Until
   v0.5 this was part of ecs_resource.h; the names, the format and the
   behaviour are unchanged.

   Needs ecs.h and ecs_resource.h (its JSON reader and writer, schemas and
   byte order helpers), included first (an #error says so otherwise):
       #include "ecs.h"
       #include "ecs_resource.h"
       #include "ecs_snapshot.h"
   Do this in *one* C or C++ file, the one that defines
   ECS_RESOURCE_IMPLEMENTATION, after that header (CONFIGURATION):
       #define ECS_RESOURCE_IMPLEMENTATION
       #include "ecs_resource.h"
       #define ECS_SNAPSHOT_IMPLEMENTATION
       #include "ecs_snapshot.h"
   and include "ecs_snapshot.h" plainly (after the two others) everywhere
   else. ecs_transform.h's store takes part through ecs.h's store interface
   (its ecs_transform_snapshot_* hooks); it needs no order here.

TABLE OF CONTENTS
   QUICK START, SNAPSHOTS, FORMAT (version 1), VERIFY AND LOAD (schema
   evolution, byte order), JSON, SELECTIONS (some stores, a transform
   subtree), WORLD HASH, DELTAS (format version 2), CONFIGURATION, ERRORS,
   MEMORY AND POINTER STABILITY, THREADING, DOES NOT, REFERENCE (every
   function's signature), REVISION HISTORY, LICENSE (end of file)
   The declarations and the implementation follow the same order (the MAP
   at the top of the implementation says what each part holds).

QUICK START (compiled and run by tests/check_quickstart.sh)

    #define ECS_IMPLEMENTATION
    #include "ecs.h"
    #define ECS_RESOURCE_IMPLEMENTATION
    #include "ecs_resource.h"
    #define ECS_SNAPSHOT_IMPLEMENTATION  // same file, after ecs_resource.h's
    #include "ecs_snapshot.h"
    #include <stdio.h>
    #include <string.h>

    // float *mass, *radius: the schema "actor" (ecs_resource.h)
    ECS_MANAGER_DEFINE_SCHEMA(actor_manager, ECS_RESOURCE_ACTOR_SCHEMA)

    // a world with one store, "actor"; returns the store
    static ecs_manager *make_world(ecs_world *w) {
        uint32_t n;
        ecs_error err;
        const ecs_schema_field *schema = actor_manager_schema(&n);
        if (ecs_world_init(w) != ECS_OK) return NULL;
        return ecs_world_define_schema(w, "actor", schema, n, ECS_LOOKUP_HASH, &err);
    }

    int main(void) {
        ecs_world world, fresh;
        ecs_manager *actors = make_world(&world), *loaded = make_world(&fresh);
        ecs_snapshot_output snap, text;
        ecs_snapshot_report report;
        ecs_error err;
        ecs_entity ball;
        ecs_instance i;
        int ok;

        if (!actors || !loaded) return 1;
        ecs_entity_destroy(&world.entities, ecs_entity_create(&world.entities));
        ball = ecs_entity_create(&world.entities);
        i = ecs_manager_create(actors, ball);
        *(float *)ecs_manager_field(actors, 0, i.i) = 2.0f;  // mass
        if (ecs_snapshot_save(&world, NULL, &snap, &err) != ECS_OK) {
            printf("%s\n", err.message);
            return 1;
        }
        // into a fresh world with the same registrations (by name)
        if (ecs_snapshot_load(&fresh, snap.data, snap.size, 0, &report, &err) != ECS_OK) {
            printf("%s\n", err.message);
            return 1;
        }
        i = ecs_manager_lookup(loaded, ball);  // the same id, the same data
        ok = !ecs_instance_is_nil(i) && *(float *)ecs_manager_field(loaded, 0, i.i) == 2.0f;
        ok = ok && ecs_snapshot_world_hash(&fresh) == ecs_snapshot_world_hash(&world);
        // the next create gives the id it would have given in the saved world
        ok = ok && ecs_entity_create(&fresh.entities).id == ecs_entity_create(&world.entities).id;
        // and as JSON: ... "instances": [{"entity": ..., "mass": 2, "radius": 0}] ...
        if (ecs_snapshot_to_json(snap.data, snap.size, &text, &err) == ECS_OK) {
            ok = ok && strstr((const char *)text.data, "\"mass\": 2") != NULL;
            ecs_snapshot_output_free(&text);
        }
        printf("%s\n", ok ? "loaded bit-exactly" : "differs");
        ecs_snapshot_output_free(&snap);
        ecs_world_free(&fresh);
        ecs_world_free(&world);
        return ok ? 0 : 1;
    }

SNAPSHOTS (a live ecs_world saved, loaded, cloned; binary and JSON)
   ecs_snapshot_save(w, desc, &out, &err) writes the whole world (or the
   stores desc->stores names) into one blob; ecs_snapshot_load(target,
   blob, size, flags, &report, &err) restores it into an EMPTY world that
   has the same registrations by name, bit-exactly: the same ids, the same
   instance order, the same free queue and destroy log, the same gc and
   collect state, so the next create returns the id it would have in the
   saved world and a replay after a load runs identically (every frame's
   ecs_snapshot_world_hash equal: tests/test_snapshot.c replays 500 frames).
   ecs_snapshot_clone(dst, src, &err) copies a world into another in memory
   (replacing dst's contents, reusing its allocations: rollback).
       ecs_snapshot_output snap;
       if (ecs_snapshot_save(&world, NULL, &snap, &err) == ECS_OK) {
           ... write snap.data, snap.size; ecs_snapshot_output_free(&snap);
       }
       ecs_snapshot_load(&fresh_world, data, size, 0, &report, &err);
   A game that saves every frame (rollback) passes ECS_SNAPSHOT_REUSE_OUTPUT
   in desc.flags: the save goes into the buffer of the output it passes,
   resized, and a load into an emptied world reuses the stores' memory, so
   neither faults in new pages once the first frame has run.

FORMAT (version 1; every integer in the saver's byte order; sections
   start at multiples of 8)
       0   'E' 'C' 'S' 'S', version, byte order mark 0x01020304, sections
       16  total_size (u64), flags (1: some stores left out), 0
       32  sections, each: kind (1 entities, 2 manager, 3 store), version
           (1; a store's: its save_version), size (u64, the whole section:
           one jump skips it), name_length, pad (a store section: how many
           zero bytes follow the store's bytes, 0 or 4; other sections: 0),
           the name (UTF-8) zero-padded to 8, then the body:
       entities  max_index, free_capacity, free_head, num_free, num_retired
                 (num_free + num_retired <= max_index), ECS_INDEX_BITS |
                 ECS_GENERATION_BITS << 8; generation bytes [max_index + 1];
                 the free ring [free_capacity] (the queue and the destroy
                 log)
       manager   lookup, num_fields, count, num_instances, flags (1: next
                 links, 2: the collect cursor reads the world's entities),
                 gc rng, cursor next and retired, group size, names' bytes;
                 per field {size, align, schema kind (0: none), name_length};
                 the names; entity[count]; next[count]; each field's array
       store     an ecs_store_interface's save bytes (32-bit words; the
                 section's version is the interface's save_version); the
                 transform manager's: ecs_transform_snapshot_save
   Every array is zero-padded to a multiple of 8 bytes, and every field
   byte of a direct manager's hole is zero (a save writes zeros there, not
   what a destroyed instance left): verify refuses other bytes, so a
   snapshot has one form and from_json(to_json(blob)) gives blob's bytes.

VERIFY AND LOAD
   ecs_snapshot_verify checks every section the format defines with the
   resource verifier's promise: the header and section table (one section
   per store: a second one of a name is refused), the entity
   manager (the free queue naming queued indices once with their next ids,
   num_free + num_retired <= max_index), every manager's ids (each of an
   index handed out: 0 < index <= max_index, so no entity created later
   inherits an instance; a direct slot holds an id of its own index), next
   links forming one chain per entity, the field table, zero padding and
   holes; any truncation or mutation is refused with the offset and the
   field. A store section holds an ecs_store_interface's bytes, which only
   that store can read: ecs_snapshot_verify checks them as 32-bit words,
   and ecs_snapshot_verify_for(w, ...) checks them completely through the
   verify hook of w's store of that name (the transform store's: counts,
   ids, links mutual and acyclic, pending ids, and its mode and lookup kind
   against w's), its offsets the blob's. A snapshot that passes
   ecs_snapshot_verify_for loads into w with no further checks of its
   bytes (tests/fuzz_snapshot.c checks it), or loads as a consistent world;
   what a load checks beyond it is the TARGET: empty (without
   ECS_SNAPSHOT_REPLACE), a store of another kind, lookup kind, layout or
   save version, and the world's groups, those it made and those made with
   ecs_group_init over its managers (a snapshot saved without a group the
   world has, or with some members only, is refused).
   What a refused load leaves: everything found before the load starts
   leaves w as it was, ECS_SNAPSHOT_REPLACE too: the verify errors (store
   sections through their hooks included), a non-empty target, a section w
   has no matching store for (kind, lookup kind, layout, field kinds, save
   version; a missing store with ECS_SNAPSHOT_STRICT). What is found while
   loading leaves w empty (its registrations kept; with
   ECS_SNAPSHOT_REPLACE its old contents are gone): a manager's bad ids or
   next links (checked once, as its map is built: ecs_snapshot_verify
   finds them first), a group the snapshot does not keep (or a member of
   it holding two instances of an entity: one per entity while grouped),
   out of memory.
   Schema evolution (schema managers; fields matched by name): a field the
   schema has and the snapshot lacks gets its default (runtime fields and
   entity fields: zero; required fields: zero), one the snapshot has and the
   schema lacks is dropped; both are counted and named in the report. A
   changed kind or size is an error naming component and field. A manager
   without a schema loads raw when its fields (names, sizes) are the same,
   else an error. A section naming a store the world lacks is skipped and
   reported, or an error with ECS_SNAPSHOT_STRICT. ECS_SNAPSHOT_REPLACE
   loads into a live world (emptied once the snapshot is known to fit):
   rollback from a blob (examples/engine.c --check-snapshot does it).
   Byte order: desc.flags ECS_SNAPSHOT_LITTLE_ENDIAN / _BIG_ENDIAN save in
   that order; a load refuses the other order (ECS_ERROR_WRONG_BYTE_ORDER,
   naming ecs_snapshot_swap, which converts a blob in place either way:
   fields by schema kind; a field without a kind and more than one byte
   cannot be swapped, so saving such a manager in the other order is an
   error). Sizes are 64-bit in the file; one that does not fit this
   machine's memory (32-bit) is refused.

JSON
   ecs_snapshot_to_json writes a snapshot as text, stores as
   {"name", "lookup", "count", ..., "fields": [...], "instances": [{"entity":
   id, "position": [1, 2, 3], ...}]} (numbers the shortest that read back
   bit-exactly, non-finite floats and u64/path values as "#hex", fields
   without a kind as hex bytes, direct-kind holes as null, other stores as
   their 32-bit words); ecs_snapshot_from_json reads it back into a binary
   snapshot (then load it): the same bytes (tests/fuzz_snapshot.c checks it
   for every snapshot that verifies). A number read into an f32 must round
   to a finite float and one read into an f64 be finite (the level
   compiler's rule, one function for both: write other values as "#bits");
   a field's size is checked against the format's limits (its kind's size,
   a record of at most 2^31 - 1 bytes) before anything is sized by it. ecs_world_entity_json gives one entity's data
   in the same shape: {"entity": id, "components": [{"type": "health",
   "hp": 100, ...}]}. levelc --snapshot-dump prints a snapshot file as JSON.

SELECTIONS
   desc.stores names the stores to save (the others are left
   out); desc.hierarchy and desc.root save only root and its descendants in
   that hierarchy store (the transform store's name): the entity manager
   is still saved whole (every id keeps its meaning, the next create
   matches), every saved store keeps only the instances of those entities,
   in their order (next links renumbered, the direct kind's other slots
   holes, a group's prefix the kept part of it), and the hierarchy keeps
   their nodes with root as a root standing at its current world matrix
   (its local matrix becomes the world ecs_transform_compute_world gives:
   in deferred mode changes waiting for the commit count too).
   Descendants that are not live (destroyed, their nodes not collected
   yet) are left out with their own descendants: collect removes such a
   node and its live children become roots, out of root's subtree (the
   rule ecs_resource_save_subtree follows too); root must be live.
   Stores behind an interface need its save_selected for this (the
   transform store has it). A selection's header has flags 1, and it
   loads like any snapshot: into an empty world, the subtree's entities
   with their data, every other id alive or dead as saved but without
   instances. Saved again from that world it gives the same bytes.
       ecs_snapshot_desc desc = {0};
       desc.hierarchy = "transform";
       desc.root = vehicle;     // the vehicle and everything under it
       ecs_snapshot_save(&world, &desc, &out, &err);

WORLD HASH
   ecs_snapshot_world_hash(w) is a 64-bit hash of everything a snapshot
   restores: the bytes ecs_snapshot_save(w, NULL, ...) would write (the
   whole world in this machine's byte order: the entity manager, every
   store in registration order with its layout, ids, next links and field
   arrays, a direct manager's holes as zeros), read in place without
   writing them (interface stores through their visit_state hook, which
   gives save's bytes in spans, or from a copy of their save), at memory
   speed (bench: snapshot_hash_gbs). Equal worlds hash equal, so a replay
   compares it frame by frame (tests/test_snapshot.c, examples/engine.c
   --check-snapshot) without saving anything. ecs_snapshot_blob_hash(blob,
   size) hashes bytes (deltas name their snapshots by it).
   How: the bytes go in blocks of ECS_SNAPSHOT_HASH_BLOCK (256) bytes at
   most; each block gets a 64-bit digest (eight lanes of multiply-rotate
   over little-endian 64-bit words, read with memcpy: the value does not
   depend on where the bytes lie, folded with the block's length and
   mixed), and the hash is a chain over the digests, mixed with the total
   length. A blob is cut every 256 bytes from its start; a world also where
   each section, each array and each span of a store's visit_state starts,
   so that an array that grows or shrinks moves the blocks after it
   without changing their digests. So the world hash is not the blob hash
   of the world's save (the same bytes, cut elsewhere), and it depends on
   how a store's visit_state splits its bytes (stores of one kind split
   them alike). ecs_snapshot_world_digest(w, &d, &err) computes it and
   keeps every block's offset and digest in d: a server keeps the digests
   of the states it sends, and two states' digests say which blocks
   changed between them without either state saved
   (ecs_snapshot_delta_from_world, DELTAS).
   What it guarantees: a single changed 64-bit word always changes its
   block's digest and the hash; unrelated states collide with a chance of
   about 2^-64. It is NOT cryptographic: anyone who wants to can build two
   states with one hash. It runs on the calling thread, so thread counts do
   not enter; a blob's hash is the same on every machine, a world's on
   machines of one byte order (field data is hashed as it lies in
   memory).

DELTAS (what turns one snapshot into another: Quake 3's server sends each
   client a delta against the last snapshot that client acknowledged)
   ecs_snapshot_delta(base, base_size, next, next_size, flags, &out, &err)
   writes one; ecs_snapshot_apply_delta(base, base_size, delta, size,
   flags, &out, &err) gives next byte for byte. A delta names its base and
   its result by ecs_snapshot_blob_hash: applied to another base it is
   refused (ECS_ERROR_INVALID_ARGUMENT, both hashes named), and so is a
   result of another hash (ECS_ERROR_CORRUPT_RESOURCE): a delta applies to
   one base and gives one snapshot. Apply checks everything before it
   writes, so a refusal leaves the output as it was. A frame loop, nothing
   allocated once the buffers are big enough (ECS_SNAPSHOT_REUSE_OUTPUT):
       // server, each frame: save, then per client a delta against the
       // snapshot that client acknowledged (keep the last few)
       ecs_snapshot_save(&world, &desc, &history[frame % N], &err);
       ecs_snapshot_delta(acked->data, acked->size, now->data, now->size,
                          ECS_SNAPSHOT_REUSE_OUTPUT, &d, &err);  // send d
       // client: the one snapshot it holds, changed in place, then loaded
       ecs_snapshot_apply_delta(held.data, held.size, d.data, d.size,
                                ECS_SNAPSHOT_REUSE_OUTPUT, &held, &err);
       ecs_snapshot_load(&world, held.data, held.size, ECS_SNAPSHOT_REPLACE,
                         NULL, &err);
   How it is made: sections are matched by kind and name, in order (one
   only next has travels whole; one only base has is left behind). The
   entity section's head, generations and ring, and a manager's head, ids,
   next links and each field's array (when base and next lay the manager
   out alike) are compared as prefixes 64 bytes at a time: an unchanged
   block is a copy from base, a changed one travels, and so does what next
   has past base's length. So instances created or destroyed (swap-erase
   touches the end of the arrays) cost the blocks they change; 1% of 10^6
   entities changing one field cost about 0.5% of the snapshot (bench:
   snapshot_delta_bytes_ratio). A store section (the transform manager's
   words) is one array of words to this header: of the same length, it is
   compared the same way; of another (nodes created or destroyed: its
   arrays moved by different amounts), each block is looked for where the
   last one was found and, failing that (and when none of the next 4
   blocks is there either: a block changed where it lies costs no search),
   at the nearest offsets (256 each way, 4 bytes a step): 5 nodes more in
   a store of 10,000 cost about 5 KB of its 1.5 MB.
   Hashes already known: both directions read every byte of base to hash
   it, and the delta hashes next too. A caller that holds them (a server
   that saves each state once and makes deltas to it and then from it; a
   client that holds the state the last delta gave it, whose hash that
   delta named) passes them in an ecs_snapshot_delta_hashes to
   ecs_snapshot_delta_hashed and ecs_snapshot_apply_delta_hashed, and gets
   the others back: a delta then compares without hashing what it knows,
   and apply hashes only the result, which it always checks (so a wrong
   hash given is refused by apply, never turned into other bytes):
       ecs_snapshot_delta_hashes h = {0};
       h.known = ECS_SNAPSHOT_BASE_HASH;
       h.base_hash = acked_hash;   // from the delta that made acked
       ecs_snapshot_delta_hashed(acked->data, acked->size, now->data,
                                 now->size, ECS_SNAPSHOT_REUSE_OUTPUT, &h,
                                 &d, &err);
       now_hash = h.next_hash;     // the base hash of the next frame's
   From a live world, without saving (a server's frame): the server keeps
   each state's ecs_snapshot_world_digest (its world hash and the digest
   of each block of its save: about 3% of the state's bytes) and writes the
   delta from the state a client acknowledged to the world as it is now
   straight from the world's memory: blocks whose digest base holds too
   are copies (looked for in order from the last one found, so blocks
   changed in place, arrays grown and shrunk keep the rest as copies), the
   others travel. It costs the blocks that changed (in 256-byte blocks:
   more bytes than ecs_snapshot_delta's 64-byte compare) and a walk over
   the world's arrays that reads only those blocks, nothing of the size of
   the state. Such a delta names its base and its result by world hash
   (ECS_SNAPSHOT_DELTA_WORLD_HASHES in its flags): apply needs the base's
   world hash from the caller (ecs_snapshot_apply_delta_hashed: the hash
   the delta that made it named, or ecs_snapshot_world_hash of the world
   it was loaded into) and cannot hash the result (a world hash cuts its
   blocks where the world's arrays start); the caller loads the result and
   compares its ecs_snapshot_world_hash with the delta's next_hash, which
   apply hands back:
       // server, once a frame, after it ran (digest[] keeps the last few)
       ecs_snapshot_world_digest(&world, &digest[frame % N], &err);
       ecs_snapshot_delta_from_world(&digest[acked % N], &world,
                                     &digest[frame % N],
                                     ECS_SNAPSHOT_REUSE_OUTPUT, &d, &err);
       // or both in one pass over the world, when the clients share a base
       // (the changed blocks copied while they are hashed):
       ecs_snapshot_world_digest_delta(&world, &digest[acked % N],
                                       &digest[frame % N],
                                       ECS_SNAPSHOT_REUSE_OUTPUT, &d, &err);
       // client: h.known = ECS_SNAPSHOT_BASE_HASH, h.base_hash = the
       // world hash of the state it holds; apply, load, then
       if (ecs_snapshot_world_hash(&world) != h.next_hash) ... resync
   examples/engine.c's server does this (--serve), and its clients: the
   digest on its frame thread, the delta on its sender thread while the
   world rests between frames (any thread may write a delta from a world
   that no other thread touches meanwhile).
   Format (version 2; integers in the byte order of the snapshots, which
   its mark says: deltas of big-endian snapshots are big-endian):
       0   'E' 'C' 'S' 'D', version, byte order mark 0x01020304, num_ops
       16  total_size (u64): the delta's bytes
       24  base_size (u64), base_hash (u64): ecs_snapshot_blob_hash(base),
           or with ECS_SNAPSHOT_DELTA_WORLD_HASHES the world hash of base
       40  next_size (u64), next_hash (u64): the same of next
       56  flags (u64): 0, or ECS_SNAPSHOT_DELTA_WORLD_HASHES (1)
       64  num_ops ops, in next's order, each: source (u64: an offset of
           base to copy from, or all ones: the bytes follow), length (u64,
           > 0 bytes of next), the bytes when it has them, zero-padded to a
           multiple of 8. Copies lie inside base and go forward through it
           (each starts at or after the end of the copy before); the
           lengths add up to next_size; nothing follows the last op.
   Version 1 (this header before 0.11) named its snapshots by the hash
   before it cut blocks, and had 0 where the flags are: it is refused
   (make the delta again).
   Verified like a snapshot: ecs_snapshot_delta_verify (and apply) refuse
   every truncation and mutation of that structure with the offset and the
   field (tests/fuzz_delta.c), and a mutation of copied or carried bytes
   gives a result of another hash. In place: with ECS_SNAPSHOT_REUSE_OUTPUT
   and base == out->data, apply moves the copies inside the buffer (to
   lower offsets first to last, then to higher ones last to first: as
   copies go forward through base, none overwrites a source still to be
   read) and writes the carried bytes; nothing else is touched.

CONFIGURATION
   Include order: ecs.h, ecs_resource.h, then this header (#error
   otherwise). ECS_SNAPSHOT_IMPLEMENTATION must be defined in the file
   that defines ECS_RESOURCE_IMPLEMENTATION, and this header included there
   after ecs_resource.h: the implementation uses ecs_resource.h's private
   helpers (byte order, the JSON reader and writer, the schema tables).
   Any other place is an #error naming the fix, never a silent failure.
   ECS_DEF / ECS_STATIC, ECS_REALLOC / ECS_FREE: as in ecs.h and
   ecs_resource.h (this implementation allocates through the same macros;
   ECS_REALLOC(NULL, n) must return memory aligned for uint64_t).

ERRORS
   Every function that reads outside bytes returns an ecs_result and fills
   the caller's ecs_error (which may be NULL). Messages say where:
     a blob     "snapshot: offset 16 (total_size): total_size 4096, the
                buffer holds 4000 bytes"; "... (section 2 'actor'): ..."
                                                ECS_ERROR_CORRUPT_RESOURCE;
                the other byte order (naming ecs_snapshot_swap)
                                                ECS_ERROR_WRONG_BYTE_ORDER
     JSON       the JSON reader's line and column (ECS_ERROR_JSON), or the
                JSON path of a missing or wrong member
                (ECS_ERROR_CORRUPT_RESOURCE), then the verify errors
     a delta   "snapshot delta: offset 80 (op 1): ..." ECS_ERROR_CORRUPT_RESOURCE
                (ecs_snapshot_delta: which of base and next is no snapshot,
                and where); another base ECS_ERROR_INVALID_ARGUMENT
     the target ECS_ERROR_INVALID_ARGUMENT naming the store or component
                and field (not empty, another kind, layout, lookup kind or
                save version, a changed field kind or size, a group the
                snapshot does not keep, a grouped member holding two
                instances of an entity; a clone's target: a field's name
                too); ECS_ERROR_UNKNOWN_COMPONENT (a
                store the world lacks, with ECS_SNAPSHOT_STRICT)
     saving     ECS_ERROR_NOT_FOUND (a selected store, the hierarchy or
                root's node missing), ECS_ERROR_INVALID_ARGUMENT (root not
                live, a store without save or save_selected, or whose bytes are not
                32-bit words, a field without a schema kind in the other
                byte order)
   Out of memory anywhere is ECS_ERROR_OUT_OF_MEMORY. A failed clone leaves
   its target world as it was (a store it lacks or lays out differently)
   or empty (a group, out of memory); a failed load leaves it as it was or empty (see
   VERIFY AND LOAD for which); a failed save leaves *out empty (with
   ECS_SNAPSHOT_REUSE_OUTPUT: size 0, its buffer kept).

MEMORY AND POINTER STABILITY
   A snapshot call's output (blob, text or delta) is one allocation until
   ecs_snapshot_output_free (with ECS_SNAPSHOT_REUSE_OUTPUT a save, a delta
   and an apply reuse it); a loaded world owns nothing of the blob. Field pointers of a
   loaded or cloned manager change (ecs_manager_reserve): read them again.

THREADING
   No locks, no globals. ecs_snapshot_save, _clone (of its source),
   _world_hash, _verify_for and ecs_world_entity_json only read the world:
   several threads may save one world that nobody changes meanwhile; load
   and clone write their target. Verify, swap, the blob hash, the JSON
   conversions and the deltas touch only the bytes they are given (and
   memory of their own).

DOES NOT
   save destroy callbacks and the stores' settings: lookup kind, layout,
   schema, the transform manager's mode (the target's registrations give
   them, and a load refuses others). The transform manager's idle_frames
   is saved, loaded and cloned as state, not taken from the target: it
   decides when nodes leave the dirty range, so a replay needs it
   (ecs_transform.h says the same).

REFERENCE (every public function; the declarations below say more:
   ownership, NULL, failure, lifetime)
     ecs_result ecs_snapshot_save(const ecs_world *w, const ecs_snapshot_desc *desc,
                                  ecs_snapshot_output *out, ecs_error *err);
         the world (or desc->stores, or desc->root's subtree) as one blob, in either byte order
     ecs_result ecs_snapshot_verify(const void *blob, size_t size, ecs_error *err);
         checks a snapshot (store sections as words; offset and field on failure)
     ecs_result ecs_snapshot_verify_for(const ecs_world *w, const void *blob, size_t size,
                                        ecs_error *err);
         checks it completely for w: store sections through w's stores' hooks
     ecs_result ecs_snapshot_load(ecs_world *w, const void *blob, size_t size, uint32_t flags,
                                  ecs_snapshot_report *report, ecs_error *err);
         bit-exact into an empty world (ECS_SNAPSHOT_REPLACE: a live one); schema evolution
     ecs_result ecs_snapshot_swap(void *blob, size_t size, ecs_error *err);
         converts a snapshot to the other byte order, in place
     ecs_result ecs_snapshot_clone(ecs_world *dst, const ecs_world *src, ecs_error *err);
         copies a world into another in memory (rollback)
     uint64_t ecs_snapshot_world_hash(const ecs_world *w);
         a hash of everything a snapshot restores (replays compare it)
     ecs_result ecs_snapshot_world_digest(const ecs_world *w, ecs_snapshot_digest *d, ecs_error *err);
     void ecs_snapshot_digest_free(ecs_snapshot_digest *d);
         the world hash with each block's digest kept (a server's states)
     uint64_t ecs_snapshot_blob_hash(const void *blob, size_t size);
         the hash of bytes (the name of a snapshot)
     ecs_result ecs_snapshot_to_json(const void *blob, size_t size, ecs_snapshot_output *out,
                                     ecs_error *err);
     ecs_result ecs_snapshot_from_json(const char *json, size_t len, ecs_snapshot_output *out,
                                       ecs_error *err);
         a snapshot as JSON text and back (bit-exact through the field kinds)
     ecs_result ecs_world_entity_json(const ecs_world *w, ecs_entity e, ecs_snapshot_output *out,
                                      ecs_error *err);
         one entity's components as JSON
     void ecs_snapshot_output_free(ecs_snapshot_output *out);
         frees a snapshot call's bytes
     ecs_result ecs_snapshot_delta(const void *base, size_t base_size, const void *next, size_t next_size,
                                   uint32_t flags, ecs_snapshot_output *out, ecs_error *err);
         what turns base into next
     ecs_result ecs_snapshot_delta_verify(const void *delta, size_t size, ecs_snapshot_delta_info *info,
                                          ecs_error *err);
         checks a delta (offset and field on failure) and reads its header
     ecs_result ecs_snapshot_apply_delta(const void *base, size_t base_size, const void *delta,
                                         size_t delta_size, uint32_t flags, ecs_snapshot_output *out,
                                         ecs_error *err);
         next from base and the delta, byte for byte (in place: base == out->data)
     ecs_result ecs_snapshot_delta_hashed(const void *base, size_t base_size, const void *next,
                                          size_t next_size, uint32_t flags, ecs_snapshot_delta_hashes *hashes,
                                          ecs_snapshot_output *out, ecs_error *err);
     ecs_result ecs_snapshot_apply_delta_hashed(const void *base, size_t base_size, const void *delta,
                                                size_t delta_size, uint32_t flags,
                                                ecs_snapshot_delta_hashes *hashes, ecs_snapshot_output *out,
                                                ecs_error *err);
         the same with the hashes the caller knows (not computed again)
     ecs_result ecs_snapshot_delta_from_world(const ecs_snapshot_digest *base, const ecs_world *w,
                                              const ecs_snapshot_digest *now, uint32_t flags,
                                              ecs_snapshot_output *out, ecs_error *err);
         the delta from a digested state to w's state now, from w's memory (a server's frame)
     ecs_result ecs_snapshot_world_digest_delta(const ecs_world *w, const ecs_snapshot_digest *base,
                                                ecs_snapshot_digest *now, uint32_t flags,
                                                ecs_snapshot_output *out, ecs_error *err);
         w's digest and the delta from base to w in one pass over w
   ecs_snapshot_report, which ecs_snapshot_load fills, is declared in
   ecs_resource.h (ecs_resource_save_subtree fills it too).

REVISION HISTORY
   0.12 ecs_snapshot_world_digest_delta: the world's digest and the delta
        from a digested state in one pass (the blocks that travel copied as
        they are hashed; the blocks unchanged where they lie only lengthen
        a copy, in the hash's loop): a server's frame pays the copies and
        little more for its clients' delta (the bench's 1% case: about an
        eighth over the digest alone).
   0.11 deltas from a live world: ecs_snapshot_world_digest keeps each
        block's digest with the world hash, and
        ecs_snapshot_delta_from_world writes the delta between two digested
        states straight from the world (no save of either); the hash cuts
        its input into blocks of ECS_SNAPSHOT_HASH_BLOCK bytes (a world's
        also where each section, array and store span starts), so every
        blob hash and world hash changed; the world hash reads the bytes a
        save writes (it read a selection of its own: it now tells a group's
        size and the stores' layouts apart too); a save writes next
        links only when an instance has one (an allocated array of none
        and none saved different bytes for one state); delta format 2 (the
        new hashes, and a flags word: ECS_SNAPSHOT_DELTA_WORLD_HASHES);
        version 1 deltas are refused
   0.10 ecs_snapshot_delta refused for an out whose buffer holds base or
        next leaves out->size 0 as its doc says for every failure (it kept
        the size); ecs_snapshot_delta_hashed's doc says what a wrong base
        hash does (ecs_snapshot_apply_delta_hashed given the same one
        applies the delta, the result's hash still checked)
   0.9  ecs_world_entity_json answers ECS_ERROR_NOT_FOUND for the id a
        queued index carries next (it answered with an empty entity). A
        refused load or clone sizes 0 every group of a nested chain (the
        outer group kept its old size over no instances). A selection
        leaves out descendants that are not live, with their subtrees (of
        a dead node and a live one sharing an index it kept the one the
        walk met last, dropping the live one), and refuses a root that is
        not live. A clone refuses an interface store's other settings (a
        transform store's lookup kind or mode) before it writes anything
        (its copy hook refused them after the entities and earlier stores
        were copied, and the clone emptied dst)
   0.8  Load and clone refuse a grouped member holding two instances of an
        entity (the group lost track of it), clone a target whose field
        names or kinds differ (it copied bytes into other fields), a delta
        an output buffer holding any byte of base or next and apply one
        holding base past its start (both read freed memory). JSON lookup
        and kind names are compared with their length ("hash\u0000" is
        none); to_json writes '.' under a decimal point of 2+ bytes (it
        wrote the point's last bytes: from_json refused its own text).
   0.7  fixes: verify refuses a second section for one store (the load
        did, after verify had passed it); a load verifies direct managers'
        holes before it changes anything (a REPLACE load refused for one
        emptied the world); the world hash of a world where no entity was
        ever created equals its load's and clone's; apply refuses an
        output buffer holding the delta (it read freed ops); a load or
        clone checks groups made with ecs_group_init over the world's
        managers too; a delta walks base's sections once
   0.6  a verified snapshot loads: ecs_snapshot_verify_for checks store
        sections through the store interface's new verify hook (the
        transform store's; offsets the blob's), and a load runs it before
        anything changes; a store section's pad word (a deferred transform
        manager with an odd number of pending changes saved a snapshot that
        did not load); num_retired bounded; instances of ids never handed
        out (an index past max_index, or a direct slot 0) refused; clone
        runs load's group check; zero padding and holes (save writes holes
        as zeros: from_json(to_json(blob)) gives blob's bytes); JSON checks
        a field's size before sizing anything by it, and reads f32/f64 by
        the level compiler's rule; the world hash runs at memory speed (a
        new hash: 8 lanes, not FNV-1a; its values changed) with the store
        interface's visit_state; ecs_snapshot_blob_hash; deltas
        (ecs_snapshot_delta, _delta_verify, _apply_delta; format version 1)
   0.5  a header of its own: snapshots move out of ecs_resource.h (v0.4)
        with their names, format (version 1) and behaviour unchanged; the
        implementation goes in ecs_resource.h's implementation file, after it;
        issue 24: the kinds i8 u8 i16 u16 in the JSON form and the byte
        swap; load and clone rebuild the entity manager's queued marks
        (ecs_entity_manager_invalidate); entities in messages as
        ecs_entity_format writes them
   Before, in ecs_resource.h:
   0.4  snapshots of a transform subtree (ecs_snapshot_desc.hierarchy and
        root; the store interface's save_selected); ECS_SNAPSHOT_REUSE_OUTPUT;
        loads about 1.3x faster (stores loaded into their own memory)
   0.3  snapshots (not in ecs_resource.h's own list): format version 1,
        save, verify, load with schema evolution, byte swap, clone, the
        world hash; JSON both ways and ecs_world_entity_json; load checks
        the world's groups
*/
#ifndef ECS_SNAPSHOT_H_INCLUDED
#define ECS_SNAPSHOT_H_INCLUDED

#if !defined(ECS_H_INCLUDED) || !defined(ECS_RESOURCE_H_INCLUDED)
#error "ecs_snapshot.h needs ecs.h and ecs_resource.h: #include \"ecs.h\" and \"ecs_resource.h\" before it"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- SNAPSHOTS ----------------------------------------------------------- */

/** Version of the snapshot format ecs_snapshot_save writes (and the newest
    ecs_snapshot_load reads). */
#define ECS_SNAPSHOT_VERSION 1u
/** ecs_snapshot_desc.flags: write little-endian (default: this machine's order). */
#define ECS_SNAPSHOT_LITTLE_ENDIAN 1u
/** ecs_snapshot_desc.flags: write big-endian. */
#define ECS_SNAPSHOT_BIG_ENDIAN 2u
/** ecs_snapshot_desc.flags: *out holds an earlier snapshot call's output (or
    is zeroed): its buffer is written instead of a new one (shrunk to the
    snapshot's size; one too small is replaced by a new buffer, freed once
    that is there, its bytes not copied), so a save every frame (rollback)
    faults in no new memory. On failure out->size is 0 and out->data stays
    for the next call (free it with ecs_snapshot_output_free). */
#define ECS_SNAPSHOT_REUSE_OUTPUT 4u
/** ecs_snapshot_load flags: a section naming a store the world lacks is an
    error (default: skipped and reported). */
#define ECS_SNAPSHOT_STRICT 1u
/** ecs_snapshot_load flags: w need not be empty; once the snapshot is
    verified (store sections included) and fits w's registrations, w is
    emptied and loaded (rollback from a blob into a live world; a refusal
    before that leaves w as it was, a later failure leaves it empty). */
#define ECS_SNAPSHOT_REPLACE 2u

/** What ecs_snapshot_save writes. Zero-initialised (or a NULL desc): the
    whole world in this machine's byte order. */
typedef struct ecs_snapshot_desc {
    const char *const *stores; /* NULL-terminated names of the stores to save; NULL: every store */
    uint32_t flags;            /* ECS_SNAPSHOT_LITTLE_ENDIAN or _BIG_ENDIAN, | ECS_SNAPSHOT_REUSE_OUTPUT */
    const char *hierarchy;     /* with root: the hierarchy store (the transform store's name) */
    ecs_entity root;           /* not nil: only root and its descendants in hierarchy (see SELECTIONS) */
} ecs_snapshot_desc;

/** Bytes a snapshot call made: one allocation (JSON text is NUL-terminated,
    the NUL not counted in size), owned until ecs_snapshot_output_free. */
typedef struct ecs_snapshot_output {
    void *data;
    size_t size;
} ecs_snapshot_output;

/** Saves w (its entity manager with generations, free queue and destroy log;
    every selected store's instances, ids and field arrays, next links, gc
    and collect state; stores behind an ecs_store_interface through its save)
    into *out (replacing what it held: free it first, or pass
    ECS_SNAPSHOT_REUSE_OUTPUT to write into its buffer). desc may be NULL.
    With desc->hierarchy, only desc->root's subtree's instances (see
    SELECTIONS: descendants not live are left out, with theirs). ECS_OK;
    ECS_ERROR_OUT_OF_MEMORY; ECS_ERROR_NOT_FOUND (a selected name or the
    hierarchy is not registered, root has no node in it);
    ECS_ERROR_INVALID_ARGUMENT (root not live; a store
    without save, or without save_selected for a subtree; a hierarchy
    without subtree; a field without a schema kind when another byte order
    is asked for). On failure *out is empty. w is only read: several
    threads may save one world that nobody changes meanwhile. */
ECS_DEF ecs_result ecs_snapshot_save(const ecs_world *w, const ecs_snapshot_desc *desc, ecs_snapshot_output *out,
                                     ecs_error *err);
/** Checks a snapshot: header, every section's size, the entity manager's
    state (queue entries alive in no other way, generations, the ring, the
    retired count), every manager's ids (indices handed out), next links
    (chains, one per entity), field table, padding and holes; a store
    section as 32-bit words only (its bytes are its store's: see
    ecs_snapshot_verify_for). One that fails is refused with a message
    naming the offset and the field (ECS_ERROR_CORRUPT_RESOURCE;
    ECS_ERROR_WRONG_BYTE_ORDER for the other byte order: see
    ecs_snapshot_swap). Pure apart from scratch memory
    (ECS_ERROR_OUT_OF_MEMORY). */
ECS_DEF ecs_result ecs_snapshot_verify(const void *blob, size_t size, ecs_error *err);
/** ecs_snapshot_verify, and every store section whose name w registers
    (through an ecs_store_interface with a verify hook that reads the
    section's version: the transform store) checked by that hook:
    everything a load into w needs of the bytes, so that a snapshot that
    passes loads into w with no further checks of its bytes (what a load
    still checks is the target: see VERIFY AND LOAD). The same errors; the
    offsets are the blob's. Reads w's registrations only. */
ECS_DEF ecs_result ecs_snapshot_verify_for(const ecs_world *w, const void *blob, size_t size, ecs_error *err);
/** Loads a snapshot into w, which must have the registrations (by name) of
    the saved world and be empty (no entity ever created, every store
    empty; with ECS_SNAPSHOT_REPLACE any state, emptied after the checks):
    verifies it, then restores it bit-exactly (same ids, instance
    order, free queue and destroy log: the next create returns the id it
    would have in the saved world). Stores are matched by name; one the
    world lacks is skipped and counted in report (or an error with
    ECS_SNAPSHOT_STRICT); schema managers match fields by name (see
    VERIFY AND LOAD); managers without a schema load raw when their layout
    is the same. report may be NULL. All or nothing: a refusal found before
    the load starts (the errors of ecs_snapshot_verify_for, w not empty, a
    section w has no matching store for) leaves w as it was, with
    ECS_SNAPSHOT_REPLACE too; one found while loading (a manager's ids or
    next links, a group or a grouped member holding two instances of an
    entity, out of memory) leaves w empty (see VERIFY AND LOAD). Errors: the verify errors; ECS_ERROR_INVALID_ARGUMENT (w not
    empty, a changed field kind or size or layout, naming component and
    field, a store save version the store does not read, another transform
    mode or lookup kind, a group not kept); ECS_ERROR_UNKNOWN_COMPONENT
    (strict); ECS_ERROR_OUT_OF_MEMORY; a store's load error. */
ECS_DEF ecs_result ecs_snapshot_load(ecs_world *w, const void *blob, size_t size, uint32_t flags,
                                     ecs_snapshot_report *report, ecs_error *err);
/** Converts a verified-shape snapshot in place to the other byte order
    (either way): header, sections, ids, links and the fields by their
    schema kind; a store section (ecs_store_interface bytes) as 32-bit
    words. ECS_OK; the verify errors of the input's shape;
    ECS_ERROR_INVALID_ARGUMENT (a field of more than one byte without a
    schema kind: its bytes cannot be swapped); nothing changed on failure. */
ECS_DEF ecs_result ecs_snapshot_swap(void *blob, size_t size, ecs_error *err);
/** Copies src into dst (same registrations by name and layouts), replacing
    dst's entities and instances: the memcpy path of save + load (dst keeps
    its allocations when they are big enough: rollback every frame allocates
    nothing). ECS_OK, or ECS_ERROR_INVALID_ARGUMENT with dst as it was (a
    store of src that dst lacks or lays out differently: its lookup kind, a
    field's name, size or, both with schemas, kind; named; an interface
    store's other settings, as a transform store's lookup kind or mode,
    which its copy hook or its verify refuses before the clone writes
    anything: the stores with a copy hook are copied first, so only a
    second such store refusing after a first was copied empties dst), or
    an error and dst empty (ECS_ERROR_INVALID_ARGUMENT: a group of dst that src's data
    does not keep, or a member of it holding two instances of an entity, as
    ecs_snapshot_load checks it; out of memory). src is only read. */
ECS_DEF ecs_result ecs_snapshot_clone(ecs_world *dst, const ecs_world *src, ecs_error *err);
/** A 64-bit hash of w's state as a snapshot restores it: of the bytes
    ecs_snapshot_save(w, NULL, ...) writes (the whole world, this machine's
    byte order), read in place without writing them (stores through their
    visit_state, else from a copy of their save), in blocks cut where each
    section, array and store span starts (see WORLD HASH: so it is not
    ecs_snapshot_blob_hash of that save). Equal worlds hash equal; replays
    compare it frame by frame. Not cryptographic. Returns 0 for w NULL, or
    out of memory (a store without visit_state copied). Only reads w; the
    calling thread only. */
ECS_DEF uint64_t ecs_snapshot_world_hash(const ecs_world *w);

/** The most bytes of a block of the hash (ecs_snapshot_blob_hash, the
    world hash): each block has a digest (see WORLD HASH). */
#define ECS_SNAPSHOT_HASH_BLOCK 256u

/** One block of a world's save: where it starts, and its digest (it ends
    where the next block starts, the last one at the save's size). */
typedef struct ecs_snapshot_digest_block {
    uint64_t offset, digest;
} ecs_snapshot_digest_block;

/** A world's state as its digests: the world hash, the size of its save
    and each block's place and digest (blocks of ECS_SNAPSHOT_HASH_BLOCK
    bytes at most, cut where each section, array and store span starts).
    Zero it before its first use; ecs_snapshot_world_digest fills it (its
    array reused and grown), ecs_snapshot_digest_free frees it. */
typedef struct ecs_snapshot_digest {
    uint64_t hash;      /* ecs_snapshot_world_hash of the world */
    uint64_t size;      /* bytes of ecs_snapshot_save's blob of the world */
    ecs_snapshot_digest_block *block; /* num_blocks of them, in order, the first at offset 0 */
    size_t num_blocks, capacity;
    int oom;            /* (internal: set while filling when memory ran out) */
} ecs_snapshot_digest;

/** ecs_snapshot_world_hash, keeping every block's digest in *d: a server
    keeps the digest of each state it sends, and ecs_snapshot_delta_from_world
    then finds what changed between two states by comparing digests,
    without saving either. Costs what the world hash costs (about an
    eighth more than a plain read). ECS_OK; ECS_ERROR_INVALID_ARGUMENT (w or
    d NULL); ECS_ERROR_OUT_OF_MEMORY (d then lists nothing: num_blocks 0,
    hash and size 0). Only reads w; the calling thread only. */
ECS_DEF ecs_result ecs_snapshot_world_digest(const ecs_world *w, ecs_snapshot_digest *d, ecs_error *err);
/** Frees d's digests; d is then zeroed (and may be filled again). */
ECS_DEF void ecs_snapshot_digest_free(ecs_snapshot_digest *d);
/** The 64-bit hash of n bytes (a snapshot's: the name a delta gives its
    base and its result), the same on every machine and for any alignment
    (see WORLD HASH for what it guarantees). blob NULL hashes as empty. */
ECS_DEF uint64_t ecs_snapshot_blob_hash(const void *blob, size_t size);
/** Writes a snapshot as JSON text (see JSON for the shape: fields by
    schema kind, readable and diffable) into *out. Verifies it first.
    ECS_OK, the verify errors, ECS_ERROR_OUT_OF_MEMORY. */
ECS_DEF ecs_result ecs_snapshot_to_json(const void *blob, size_t size, ecs_snapshot_output *out, ecs_error *err);
/** Reads ecs_snapshot_to_json's text back into a binary snapshot in this
    machine's byte order (*out), bit-exact for fields with a schema kind.
    ECS_OK; ECS_ERROR_JSON (with line and column); ECS_ERROR_CORRUPT_RESOURCE
    (the JSON path of a missing or wrong member, then the verify errors);
    ECS_ERROR_OUT_OF_MEMORY. */
ECS_DEF ecs_result ecs_snapshot_from_json(const char *json, size_t len, ecs_snapshot_output *out, ecs_error *err);
/** One entity's data as JSON, in the shape of a snapshot's instances:
    {"entity": id, "components": [{"type": "actor", "mass": 2, ...}, ...]}
    (every instance it has in every ecs_manager store; stores behind an
    interface list their instance only). ECS_OK, ECS_ERROR_NOT_FOUND (nil or
    dead entity), ECS_ERROR_OUT_OF_MEMORY. */
ECS_DEF ecs_result ecs_world_entity_json(const ecs_world *w, ecs_entity e, ecs_snapshot_output *out, ecs_error *err);
/** Frees out's bytes; out is then empty. */
ECS_DEF void ecs_snapshot_output_free(ecs_snapshot_output *out);

/* ---- DELTAS ----------------------------------------------------------------- */

/** Version of the delta format ecs_snapshot_delta writes (and the newest
    ecs_snapshot_apply_delta reads). */
#define ECS_SNAPSHOT_DELTA_VERSION 2u

/** A delta's header, as ecs_snapshot_delta_verify reads it. */
typedef struct ecs_snapshot_delta_info {
    uint64_t base_size, base_hash; /* the snapshot it applies to: bytes, ecs_snapshot_blob_hash */
    uint64_t next_size, next_hash; /* the snapshot it gives */
    uint64_t literal_bytes;        /* bytes of next it carries (the others are copied from base) */
    uint32_t num_ops;              /* copies and literal runs */
    uint32_t flags;                /* ECS_SNAPSHOT_DELTA_WORLD_HASHES: the hashes are world hashes */
} ecs_snapshot_delta_info;

/** A delta's flag (ecs_snapshot_delta_info.flags): its base_hash and
    next_hash are the ecs_snapshot_world_hash of the worlds the two
    snapshots load into, not their ecs_snapshot_blob_hash
    (ecs_snapshot_delta_from_world writes such deltas). */
#define ECS_SNAPSHOT_DELTA_WORLD_HASHES 1u

/** Writes what turns the snapshot base into the snapshot next (both
    ecs_snapshot_save's bytes, in one byte order, either) into *out: the
    runs of next that base holds as copies, the rest as bytes, named by
    both snapshots' ecs_snapshot_blob_hash (see DELTAS for the format).
    Sections are matched by kind and name; a manager of the same layout is
    compared array by array and every array block by block (64 bytes), so
    instances appended or removed at the end cost little. flags:
    ECS_SNAPSHOT_REUSE_OUTPUT (out holds an earlier output or is zeroed: its
    buffer is written, and grown only for a delta longer than the one it
    held: a delta every frame allocates nothing once it is big enough).
    Checks base's and next's header and section
    table (the delta reads no more of them); verify or load next to check
    the rest. ECS_OK; ECS_ERROR_CORRUPT_RESOURCE or
    ECS_ERROR_WRONG_BYTE_ORDER naming base or next and the offset;
    ECS_ERROR_INVALID_ARGUMENT (out NULL, out's buffer holding any byte of
    base or next, base and next in different byte orders); ECS_ERROR_OUT_OF_MEMORY.
    On failure out->size is 0 (its buffer kept with
    ECS_SNAPSHOT_REUSE_OUTPUT, else freed), as ecs_snapshot_save leaves it.
    Reads base and next once, side by side (hashing both); any thread. */
ECS_DEF ecs_result ecs_snapshot_delta(const void *base, size_t base_size, const void *next, size_t next_size, uint32_t flags,
                                      ecs_snapshot_output *out, ecs_error *err);
/** Checks a delta's bytes completely as far as they go without its base:
    magic, version, byte order (either), total size, every op inside the
    delta and its copies inside and forward through the base, the ops
    giving exactly next_size bytes, zero padding. ECS_OK and *info (may be
    NULL; zeroed on failure), or ECS_ERROR_CORRUPT_RESOURCE naming the
    offset and the field. Pure. */
ECS_DEF ecs_result ecs_snapshot_delta_verify(const void *delta, size_t size, ecs_snapshot_delta_info *info, ecs_error *err);
/** Applies a delta to base, giving next byte for byte into *out. Checks
    everything before it writes: the delta (ecs_snapshot_delta_verify),
    that base is the snapshot it names (size and hash: else
    ECS_ERROR_INVALID_ARGUMENT, naming both hashes), and that the result
    has the hash the delta names (else ECS_ERROR_CORRUPT_RESOURCE); on any
    failure *out is as it was (data, size and bytes). flags:
    ECS_SNAPSHOT_REUSE_OUTPUT (out holds an earlier output or is zeroed:
    its buffer is written, and grown only for a result longer than the one
    it held). With it, base may be out->data:
    the delta is applied in place, moving and writing only what changed
    (the frame loop's path: one buffer, nothing allocated while next is no
    longer than the buffer); otherwise out's buffer holds no byte of base.
    out's buffer never holds the delta (ECS_ERROR_INVALID_ARGUMENT: the
    result would overwrite the ops it is made from, or free them). Reads
    base (and the delta) once to hash it. A delta named by world hashes
    (ecs_snapshot_delta_from_world) is refused: it needs the base's world
    hash from ecs_snapshot_apply_delta_hashed. Errors: the verify errors,
    ECS_ERROR_INVALID_ARGUMENT (NULL arguments, another base, out's buffer
    holding the delta, or base other than at its start, a delta named by
    world hashes), ECS_ERROR_OUT_OF_MEMORY. */
ECS_DEF ecs_result ecs_snapshot_apply_delta(const void *base, size_t base_size, const void *delta, size_t delta_size,
                                            uint32_t flags, ecs_snapshot_output *out, ecs_error *err);

/** ecs_snapshot_delta_hashes.known's bits: the hashes the caller gives. */
#define ECS_SNAPSHOT_BASE_HASH 1u
#define ECS_SNAPSHOT_NEXT_HASH 2u

/** The ecs_snapshot_blob_hash of a delta's base and of its next, as the
    caller of ecs_snapshot_delta_hashed or ecs_snapshot_apply_delta_hashed
    knows them already (a server that saves a state once and sends deltas
    to it and from it; a client that holds the state a delta gave it).
    known says which of the two it gives; on ECS_OK both are filled and
    known has both bits. */
typedef struct ecs_snapshot_delta_hashes {
    uint64_t base_hash; /* ecs_snapshot_blob_hash(base): given when known has ECS_SNAPSHOT_BASE_HASH */
    uint64_t next_hash; /* ecs_snapshot_blob_hash(next): given when known has ECS_SNAPSHOT_NEXT_HASH */
    uint32_t known;     /* ECS_SNAPSHOT_BASE_HASH | ECS_SNAPSHOT_NEXT_HASH, or 0 */
} ecs_snapshot_delta_hashes;

/** ecs_snapshot_delta with the hashes the caller knows: a hash given is
    written into the delta as it is, and those bytes are not read to hash
    them (the delta then only compares base and next: a server that made a
    delta to a state and later makes deltas from it hashes it once). A
    wrong next hash makes a delta every apply refuses (the result's hash
    is always computed: ECS_ERROR_CORRUPT_RESOURCE). A wrong base hash
    makes a delta that ecs_snapshot_apply_delta refuses (it hashes base:
    ECS_ERROR_INVALID_ARGUMENT) and ecs_snapshot_apply_delta_hashed
    refuses given any other base hash; given the same wrong hash it
    applies it, and since the result's hash is still checked, it succeeds
    only with the bytes of next (from the true base) and hands the wrong
    base hash back in *hashes. Nothing else goes wrong. hashes
    NULL: ecs_snapshot_delta. On ECS_OK *hashes holds the two hashes the
    delta names (the ones computed and the ones given); on failure it is
    as it was. Everything else (flags, out, errors, threads): as
    ecs_snapshot_delta. */
ECS_DEF ecs_result ecs_snapshot_delta_hashed(const void *base, size_t base_size, const void *next, size_t next_size,
                                             uint32_t flags, ecs_snapshot_delta_hashes *hashes, ecs_snapshot_output *out,
                                             ecs_error *err);
/** ecs_snapshot_apply_delta with base's hash given (hashes->known has
    ECS_SNAPSHOT_BASE_HASH): it is compared with the hash the delta names
    (another: ECS_ERROR_INVALID_ARGUMENT before base is read) and base is
    not hashed; the result's hash is computed and checked always, so a
    base that is not the snapshot of the hash given is still refused
    (ECS_ERROR_CORRUPT_RESOURCE, saying so) unless the delta gives the
    right bytes from it anyway. A next_hash given is ignored. A delta named
    by world hashes (ECS_SNAPSHOT_DELTA_WORLD_HASHES) needs base's world
    hash given (else ECS_ERROR_INVALID_ARGUMENT) and its result is not
    hashed: *hashes gets the next_hash it names, which the caller compares
    with the ecs_snapshot_world_hash of the world it loads the result into.
    hashes NULL or known 0: ecs_snapshot_apply_delta. On ECS_OK *hashes holds base's
    hash and the result's (the next_hash to give for it as the next base);
    on failure it and *out are as they were. Everything else: as
    ecs_snapshot_apply_delta. */
ECS_DEF ecs_result ecs_snapshot_apply_delta_hashed(const void *base, size_t base_size, const void *delta, size_t delta_size,
                                                   uint32_t flags, ecs_snapshot_delta_hashes *hashes, ecs_snapshot_output *out,
                                                   ecs_error *err);

/** The delta from the state base describes to w's state now (now: w's
    ecs_snapshot_world_digest, taken since w last changed), written
    straight from w's memory without saving either state: a block of now
    whose digest (and size) base holds is a copy from base, every other
    block travels (so it costs what changed, in blocks of
    ECS_SNAPSHOT_HASH_BLOCK bytes, plus a walk over w's arrays that reads
    only those blocks; see DELTAS). Applied to base's snapshot
    (ecs_snapshot_save's blob of the state base describes, this machine's
    byte order) it gives w's save byte for byte. It names both states by
    world hash (base->hash, now->hash; ECS_SNAPSHOT_DELTA_WORLD_HASHES in
    its flags): ecs_snapshot_apply_delta refuses it, and
    ecs_snapshot_apply_delta_hashed applies it given base's world hash and
    does not check the result, which the caller loads and compares with
    ecs_snapshot_world_hash. A now that is not w's digest (w changed
    since): refused when the save's size differs
    (ECS_ERROR_INVALID_ARGUMENT), else the result's world hash is not
    now->hash, and the caller's compare says so. flags:
    ECS_SNAPSHOT_REUSE_OUTPUT as for ecs_snapshot_delta. Errors:
    ECS_ERROR_INVALID_ARGUMENT (NULL arguments; base or now not a digest:
    blocks not from 0, not forward, or past its size),
    ECS_ERROR_OUT_OF_MEMORY; on failure out->size is 0 (its buffer kept
    with ECS_SNAPSHOT_REUSE_OUTPUT, else freed). Only reads w, base and
    now; the calling thread only. */
ECS_DEF ecs_result ecs_snapshot_delta_from_world(const ecs_snapshot_digest *base, const ecs_world *w,
                                                 const ecs_snapshot_digest *now, uint32_t flags, ecs_snapshot_output *out,
                                                 ecs_error *err);
/** ecs_snapshot_world_digest(w, now) and ecs_snapshot_delta_from_world(base,
    w, now) in one pass over w: the blocks that travel are copied while they
    are hashed (in the cache), and w's arrays are walked once, not twice (a
    server's frame, which digests every state anyway: the delta to the
    state its clients acknowledged costs the copies and little more). *now
    is filled as ecs_snapshot_world_digest fills it (the same digests), and
    the delta applies as ecs_snapshot_delta_from_world's does (the same
    result; its ops may differ: after a changed block it also expects the
    next one where it lies in base, so it may carry fewer bytes). flags: ECS_SNAPSHOT_REUSE_OUTPUT.
    Errors: ECS_ERROR_INVALID_ARGUMENT (NULL arguments; base no digest),
    ECS_ERROR_OUT_OF_MEMORY (then *now lists nothing, as
    ecs_snapshot_world_digest leaves it, and out->size is 0, its buffer kept
    with ECS_SNAPSHOT_REUSE_OUTPUT, else freed). Only reads w and base; the
    calling thread only. */
ECS_DEF ecs_result ecs_snapshot_world_digest_delta(const ecs_world *w, const ecs_snapshot_digest *base,
                                                   ecs_snapshot_digest *now, uint32_t flags, ecs_snapshot_output *out,
                                                   ecs_error *err);

#ifdef __cplusplus
}
#endif
#endif /* ECS_SNAPSHOT_H_INCLUDED */

/* ======================================================================== */
/*                             IMPLEMENTATION                               */
/* ======================================================================== */

/* MAP: the implementation runs in ecs_resource.h's implementation file,
   after it, and uses its private helpers (ECS__REALLOC, byte order, the
   JSON reader, the JSON writer ecs__jout, the schema tables). Under one
   banner, in the order of the declarations:
     SNAPSHOTS    the format; the writer (measure, then write); the section
                  reader and verify (the entities section, a manager
                  section); byte swap; load (plan, then load; schema
                  evolution); clone; the world hash; JSON both ways; one
                  entity's data as JSON; deltas (making one, reading one,
                  applying one: out of place, in place) */

#ifdef ECS_SNAPSHOT_IMPLEMENTATION
#ifndef ECS__SNAPSHOT_IMPLEMENTATION_DONE
#define ECS__SNAPSHOT_IMPLEMENTATION_DONE

#ifndef ECS__RESOURCE_IMPLEMENTATION_DONE
#error "ECS_SNAPSHOT_IMPLEMENTATION: define it in the file that defines ECS_RESOURCE_IMPLEMENTATION, and include ecs_snapshot.h there after ecs_resource.h (it uses that implementation's private helpers)"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <float.h>

/* ---- SNAPSHOTS ----------------------------------------------------------- */

/* -- the format (see FORMAT in the doc block) -- */

#define ECS__SNAP_BOM 0x01020304u
#define ECS__SNAP_HEADER 32u          /* magic, version, bom, sections, total (u64), flags, reserved */
#define ECS__SNAP_SECTION 24u         /* kind, version, size (u64), name_length, reserved */
#define ECS__SNAP_ENTITIES 1u
#define ECS__SNAP_MANAGER 2u
#define ECS__SNAP_STORE 3u
#define ECS__SNAP_ENTITIES_HEAD 24u   /* max_index, free_capacity, free_head, num_free, num_retired, bits */
#define ECS__SNAP_MANAGER_HEAD 40u    /* lookup, num_fields, count, num_instances, flags, rng,
                                         log_next, log_retired, group_size, names_bytes */
#define ECS__SNAP_FIELD 16u           /* size, align, kind, name_length */
#define ECS__SNAP_HAS_NEXT 1u         /* manager flags: next links follow the ids */
#define ECS__SNAP_LOG_WORLD 2u        /* the collect cursor reads the world's entity manager */
#define ECS__SNAP_BITS ((uint32_t)ECS_INDEX_BITS | ((uint32_t)ECS_GENERATION_BITS << 8))
#define ECS__SNAP_NONE 0xFFFFFFFFu
#define ECS__ID_MASK_RES (ECS_INDEX_MASK | (ECS_ENTITY_GENERATION_MASK << ECS_INDEX_BITS))

static size_t ecs__snap_pad8(size_t n) { return (n + 7u) & ~(size_t)7u; }
static uint64_t ecs__snap_pad8_64(uint64_t n) { return (n + 7u) & ~(uint64_t)7u; }

static uint64_t ecs__snap_rd64(const unsigned char *p, int swap)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return swap ? ecs__res_bswap64(v) : v;
}

/* "WHAT: offset N (where): why" as ECS_ERROR_CORRUPT_RESOURCE (what: a
   snapshot or a delta). */
static ecs_result ecs__snap_bad_va(ecs_error *err, const char *what, size_t offset, const char *where, const char *format,
                                   va_list ap)
{
    char why[200];
    vsnprintf(why, sizeof why, format, ap);
    return ecs_error_set(err, ECS_ERROR_CORRUPT_RESOURCE, "%s: offset %lu (%s): %s", what, (unsigned long)offset, where, why);
}

/* "snapshot: offset N (where): why" as ECS_ERROR_CORRUPT_RESOURCE. */
static ecs_result ecs__snap_bad(ecs_error *err, size_t offset, const char *where, const char *format, ...)
    ECS__RES_PRINTF(4, 5);
static ecs_result ecs__snap_bad(ecs_error *err, size_t offset, const char *where, const char *format, ...)
{
    ecs_result r;
    va_list ap;
    va_start(ap, format);
    r = ecs__snap_bad_va(err, "snapshot", offset, where, format, ap);
    va_end(ap);
    return r;
}

/* -- writing: one pass measures (p NULL), the second writes; or, after
   the measure, a stream pass feeds the bytes to a sink without writing
   them (the world hash, the digests, a delta from the world) -- */

typedef struct ecs__snap_secsize {
    uint64_t size;
    uint32_t pad;
} ecs__snap_secsize;

typedef struct ecs__snap_w {
    unsigned char *p;
    size_t at;
    int overflow;
    int oom;                  /* a store's save_selected ran out of scratch memory */
    const char *odd;          /* a store whose bytes are not 32-bit words */
    ecs_state_visit_fn *sink; /* the stream pass: every byte goes here, in order, */
    void (*sink_cut)(void *ctx); /* and this is called where a section, an array or a store's span starts */
    void *sink_ctx;
    ecs__snap_secsize *sizes; /* each section's size and pad: kept by the measure pass, */
    uint32_t num_sizes;       /* written by the stream pass (its begin cannot patch them later) */
    uint64_t total;           /* the stream pass: the measure's total size */
    int copy_stores;          /* the stream pass: stores from a copy of their save, not visit_state */
    int visit_short;          /* a store's visit_state gave other than save's byte count */
} ecs__snap_w;

static void ecs__snap_put(ecs__snap_w *w, const void *src, uint64_t n)
{
    if (w->sink) {
        if (src && n) w->sink(w->sink_ctx, src, (size_t)n);
        w->at += (size_t)n;
        return;
    }
    if (w->overflow || n > (uint64_t)(SIZE_MAX - w->at)) {
        w->overflow = 1;
        return;
    }
    if (w->p && n && src) memcpy(w->p + w->at, src, (size_t)n); /* src NULL: written already */
    w->at += (size_t)n;
}

static void ecs__snap_u32(ecs__snap_w *w, uint32_t v) { ecs__snap_put(w, &v, 4); }

/* A stream pass: a section, an array or a store's span starts here. */
static void ecs__snap_cut(ecs__snap_w *w)
{
    if (w->sink) w->sink_cut(w->sink_ctx);
}

static const unsigned char ecs__snap_zero_bytes[256] = {0};

static void ecs__snap_zeros(ecs__snap_w *w, uint64_t n)
{
    size_t at = w->at;
    if (w->sink) {
        while (n) {
            size_t take = n < sizeof ecs__snap_zero_bytes ? (size_t)n : sizeof ecs__snap_zero_bytes;
            ecs__snap_put(w, ecs__snap_zero_bytes, take);
            n -= take;
        }
        return;
    }
    ecs__snap_put(w, NULL, n);
    if (w->p && !w->overflow && n) memset(w->p + at, 0, (size_t)n);
}

static void ecs__snap_pad(ecs__snap_w *w)
{
    static const unsigned char zeros[8] = {0};
    ecs__snap_put(w, zeros, (8u - (w->at & 7u)) & 7u);
}

/* n elements of `size` bytes, then padding. */
static void ecs__snap_array(ecs__snap_w *w, const void *src, uint64_t n, uint32_t size)
{
    ecs__snap_cut(w);
    ecs__snap_put(w, src, n * size);
    ecs__snap_pad(w);
}

/* Starts a section; returns its offset for ecs__snap_end. */
static size_t ecs__snap_begin(ecs__snap_w *w, uint32_t kind, uint32_t version, const char *name)
{
    size_t at = w->at, len = name ? strlen(name) : 0u;
    ecs__snap_secsize sz = {0, 0};
    if (w->sink) sz = w->sizes[w->num_sizes++]; /* (else patched by ecs__snap_end) */
    ecs__snap_cut(w);
    ecs__snap_u32(w, kind);
    ecs__snap_u32(w, version);
    ecs__snap_put(w, &sz.size, 8);
    ecs__snap_u32(w, (uint32_t)len);
    ecs__snap_u32(w, sz.pad);
    ecs__snap_put(w, name, len);
    ecs__snap_pad(w);
    return at;
}

static void ecs__snap_end(ecs__snap_w *w, size_t at)
{
    uint64_t size = (uint64_t)(w->at - at);
    if (w->p && !w->overflow) memcpy(w->p + at + 8, &size, 8);
    if (w->sizes && !w->sink) { /* a measure for a stream */
        w->sizes[w->num_sizes].size = size;
        w->sizes[w->num_sizes++].pad = 0;
    }
}

/* Ends a store section whose bytes (before the padding) number n: its
   header's pad word says how many zero bytes follow them (0 or 4). */
static void ecs__snap_end_store(ecs__snap_w *w, size_t at, uint64_t n)
{
    uint32_t pad = (uint32_t)((8u - (n & 7u)) & 7u);
    ecs__snap_end(w, at);
    if (w->p && !w->overflow) memcpy(w->p + at + 20, &pad, 4);
    if (w->sizes && !w->sink) w->sizes[w->num_sizes - 1u].pad = pad;
}

static void ecs__snap_write_entities(ecs__snap_w *w, const ecs_entity_manager *em)
{
    size_t at = ecs__snap_begin(w, ECS__SNAP_ENTITIES, 1u, NULL);
    static const uint8_t zero = 0;
    ecs__snap_u32(w, em->max_index);
    ecs__snap_u32(w, em->free_capacity);
    ecs__snap_u32(w, em->free_head);
    ecs__snap_u32(w, em->num_free);
    ecs__snap_u32(w, em->num_retired);
    ecs__snap_u32(w, ECS__SNAP_BITS);
    if (em->generation) ecs__snap_array(w, em->generation, (uint64_t)em->max_index + 1u, 1u);
    else ecs__snap_array(w, &zero, 1u, 1u);
    ecs__snap_array(w, em->free_ring, em->free_capacity, 4u);
    ecs__snap_end(w, at);
}

static uint32_t ecs__snap_kind_of(const ecs_manager *m, uint32_t k)
{
    return m->schema && k < m->schema->num_fields ? (uint32_t)m->schema->fields[k].kind : 0u;
}

/* A selection of entities (ecs_snapshot_desc's root): keep[index] is the id
   of the selected entity with that index, 0 for the others; rank is
   scratch for renumbering next links. keep NULL: every entity. */
typedef struct ecs__snap_sel {
    uint32_t *keep, num_indices;
    uint32_t *rank;
} ecs__snap_sel;

static int ecs__snap_kept(const ecs__snap_sel *sel, uint32_t id)
{
    return !sel->keep || ecs_entity_selected(sel->keep, sel->num_indices, id);
}

/* Whether slot i of m is written as it is (else as zeros: a direct-kind
   hole, or a slot sel leaves out). */
static int ecs__snap_slot_kept(const ecs_manager *m, const ecs__snap_sel *sel, uint32_t i)
{
    uint32_t id = m->entity[i].id;
    return (m->lookup != ECS_LOOKUP_DIRECT || id != 0) && ecs__snap_kept(sel, id);
}

/* What a manager section holds under sel: its count (direct: the slots up
   to the last kept one), instances and group prefix; *end: how many of m's
   instances the arrays are written from. */
static void ecs__snap_kept_counts(const ecs_manager *m, const ecs__snap_sel *sel, uint32_t *count, uint32_t *instances,
                                  uint32_t *group_size, uint32_t *end)
{
    uint32_t i, n = 0, top = 0, g = 0;
    if (!sel->keep) {
        *count = *end = m->count;
        *instances = m->num_instances;
        *group_size = m->group ? m->group->size : 0u;
        return;
    }
    for (i = 0; i < m->count; ++i) {
        if (!ecs__snap_kept(sel, m->entity[i].id)) continue;
        ++n;
        top = i + 1u;
        g += m->group && i < m->group->size;
    }
    *count = m->lookup == ECS_LOOKUP_DIRECT ? top : n;
    *end = m->lookup == ECS_LOOKUP_DIRECT ? top : m->count;
    *instances = n;
    *group_size = g;
}

/* Elements [0, end) of an array of m's (`size` bytes each) that sel keeps,
   in runs; the direct kind's holes and the slots sel leaves out as zeros
   (whatever a destroyed instance left there is not saved); then padding. */
static void ecs__snap_array_kept(ecs__snap_w *w, const ecs_manager *m, const ecs__snap_sel *sel, const void *src,
                                 uint32_t size, uint32_t end)
{
    uint32_t i = 0;
    if (!sel->keep && m->lookup != ECS_LOOKUP_DIRECT) {
        ecs__snap_array(w, src, end, size);
        return;
    }
    ecs__snap_cut(w);
    while (i < end) {
        int kept = ecs__snap_slot_kept(m, sel, i);
        uint32_t j = i + 1u;
        while (j < end && ecs__snap_slot_kept(m, sel, j) == kept) ++j;
        if (kept) ecs__snap_put(w, (const unsigned char *)src + (size_t)i * size, (uint64_t)(j - i) * size);
        else if (m->lookup == ECS_LOOKUP_DIRECT) ecs__snap_zeros(w, (uint64_t)(j - i) * size);
        i = j;
    }
    ecs__snap_pad(w);
}

/* The next links of the kept instances, renumbered (a kept instance's next
   has the same entity, so it is kept too). */
static void ecs__snap_next_kept(ecs__snap_w *w, const ecs_manager *m, const ecs__snap_sel *sel)
{
    uint32_t i, n = 0;
    if (!sel->keep) {
        ecs__snap_array(w, m->next, m->count, 4u);
        return;
    }
    ecs__snap_cut(w);
    if (w->p)
        for (i = 0; i < m->count; ++i) sel->rank[i] = ecs__snap_kept(sel, m->entity[i].id) ? n++ : ECS__SNAP_NONE;
    for (i = 0; i < m->count; ++i)
        if (ecs__snap_kept(sel, m->entity[i].id))
            ecs__snap_u32(w, !w->p || m->next[i] == ECS__SNAP_NONE ? ECS__SNAP_NONE : sel->rank[m->next[i]]);
    ecs__snap_pad(w);
}

/* 1 when an instance sel keeps links to a next one: only then are next
   links written (an array that is allocated and holds none is the same
   state as none allocated, so both save the same bytes). */
static int ecs__snap_has_links(const ecs_manager *m, const ecs__snap_sel *sel)
{
    uint32_t i;
    for (i = 0; m->next && i < m->count; ++i)
        if (m->next[i] != ECS__SNAP_NONE && ecs__snap_kept(sel, m->entity[i].id)) return 1;
    return 0;
}

static void ecs__snap_write_manager(ecs__snap_w *w, const ecs_world *world, const ecs_world_component *c,
                                    const ecs__snap_sel *sel)
{
    const ecs_manager *m = c->manager;
    size_t at = ecs__snap_begin(w, ECS__SNAP_MANAGER, 1u, c->name);
    int links = ecs__snap_has_links(m, sel);
    uint32_t k, names = 0, flags = (links ? ECS__SNAP_HAS_NEXT : 0u) | (m->log.em == &world->entities ? ECS__SNAP_LOG_WORLD : 0u);
    uint32_t count, instances, group_size, end;
    ecs__snap_kept_counts(m, sel, &count, &instances, &group_size, &end);
    for (k = 0; k < m->num_fields; ++k) names += m->fields[k].name ? (uint32_t)strlen(m->fields[k].name) : 0u;
    ecs__snap_u32(w, (uint32_t)m->lookup);
    ecs__snap_u32(w, m->num_fields);
    ecs__snap_u32(w, count);
    ecs__snap_u32(w, instances);
    ecs__snap_u32(w, flags);
    ecs__snap_u32(w, m->rng);
    ecs__snap_u32(w, m->log.next);
    ecs__snap_u32(w, m->log.retired);
    ecs__snap_u32(w, group_size);
    ecs__snap_u32(w, names);
    for (k = 0; k < m->num_fields; ++k) {
        ecs__snap_u32(w, m->fields[k].size);
        ecs__snap_u32(w, m->fields[k].align);
        ecs__snap_u32(w, ecs__snap_kind_of(m, k));
        ecs__snap_u32(w, m->fields[k].name ? (uint32_t)strlen(m->fields[k].name) : 0u);
    }
    for (k = 0; k < m->num_fields; ++k)
        if (m->fields[k].name) ecs__snap_put(w, m->fields[k].name, strlen(m->fields[k].name));
    ecs__snap_pad(w);
    ecs__snap_array_kept(w, m, sel, m->entity, 4u, end);
    if (links) ecs__snap_next_kept(w, m, sel);
    for (k = 0; k < m->num_fields; ++k) ecs__snap_array_kept(w, m, sel, m->field[k], m->fields[k].size, end);
    ecs__snap_end(w, at);
}

/* A visit of a store's state in a stream pass: forwarded, counted. */
typedef struct ecs__snap_visit {
    ecs__snap_w *w;
    size_t n;
} ecs__snap_visit;

static void ecs__snap_visited(void *ctx, const void *bytes, size_t n)
{
    ecs__snap_visit *v = (ecs__snap_visit *)ctx;
    ecs__snap_cut(v->w);
    if (n) v->w->sink(v->w->sink_ctx, bytes, n);
    v->n += n;
}

/* A store's n bytes in a stream pass: read in place through visit_state
   (which gives save's bytes), else from a copy of its save. */
static void ecs__snap_stream_store(ecs__snap_w *w, const ecs_world_component *c, size_t n)
{
    ecs__snap_visit v;
    unsigned char *copy;
    if (!n) return;
    if (c->iface->visit_state && !w->copy_stores) {
        v.w = w;
        v.n = 0;
        c->iface->visit_state(c->store, ecs__snap_visited, &v);
        if (v.n != n) w->visit_short = 1;
        return;
    }
    ecs__snap_cut(w);
    if (!(copy = (unsigned char *)ECS__REALLOC(NULL, n)) || c->iface->save(c->store, copy, n) != n) w->oom = 1;
    else w->sink(w->sink_ctx, copy, n);
    ECS__FREE(copy);
}

static void ecs__snap_write_store(ecs__snap_w *w, const ecs_world_component *c, const ecs__snap_sel *sel)
{
    size_t at = ecs__snap_begin(w, ECS__SNAP_STORE, c->iface->save_version, c->name);
    size_t n = sel->keep ? c->iface->save_selected(c->store, sel->keep, sel->num_indices, NULL, 0)
                         : c->iface->save ? c->iface->save(c->store, NULL, 0) : 0u; /* (no save: a hash of its name) */
    if (w->sink) ecs__snap_stream_store(w, c, n);
    else if (w->p && !w->overflow && n <= SIZE_MAX - w->at) {
        size_t wrote = sel->keep ? c->iface->save_selected(c->store, sel->keep, sel->num_indices, w->p + w->at, n)
                                 : c->iface->save(c->store, w->p + w->at, n);
        if (wrote != n) w->oom = 1;
    }
    if (n & 3u) w->odd = c->name;
    ecs__snap_put(w, NULL, n);
    ecs__snap_pad(w);
    ecs__snap_end_store(w, at, n);
}

/* 1 when component k is selected by desc. */
static int ecs__snap_selected(const ecs_snapshot_desc *desc, const char *name)
{
    const char *const *s;
    if (!desc || !desc->stores) return 1;
    for (s = desc->stores; *s; ++s)
        if (strcmp(*s, name) == 0) return 1;
    return 0;
}

static void ecs__snap_write_world(ecs__snap_w *w, const ecs_world *world, const ecs_snapshot_desc *desc,
                                  const ecs__snap_sel *sel)
{
    uint32_t k, sections = 1, partial = sel->keep != NULL;
    uint64_t total;
    for (k = 0; k < world->num_components; ++k) {
        if (ecs__snap_selected(desc, world->component[k].name)) ++sections;
        else partial = 1;
    }
    ecs__snap_put(w, "ECSS", 4);
    ecs__snap_u32(w, ECS_SNAPSHOT_VERSION);
    ecs__snap_u32(w, ECS__SNAP_BOM);
    ecs__snap_u32(w, sections);
    total = w->total; /* (0 but in a stream pass: patched below) */
    ecs__snap_put(w, &total, 8);
    ecs__snap_u32(w, partial);
    ecs__snap_u32(w, 0);
    ecs__snap_write_entities(w, &world->entities);
    for (k = 0; k < world->num_components; ++k) {
        const ecs_world_component *c = &world->component[k];
        if (!ecs__snap_selected(desc, c->name)) continue;
        if (c->manager) ecs__snap_write_manager(w, world, c, sel);
        else ecs__snap_write_store(w, c, sel);
    }
    total = (uint64_t)w->at;
    if (w->p && !w->overflow) memcpy(w->p + 16, &total, 8);
}

/* The bytes ecs_snapshot_save(world, NULL, ...) would write, fed to sink
   in order without writing them (cut called where a section, an array or
   a store's span starts): a measure pass, then a stream pass.
   copy_stores: every store from a copy of its save (else through
   visit_state). 1; 0 out of memory; -1 when a store's visit_state gave
   other than its save's byte count (the caller streams again, copying). */
static int ecs__snap_stream_world(const ecs_world *world, ecs_state_visit_fn *sink, void (*cut)(void *ctx), void *ctx,
                                  int copy_stores)
{
    ecs__snap_w measure, stream;
    ecs__snap_sel sel;
    ecs__snap_secsize few[32], *sizes = few; /* the hash runs every frame: no allocation for a world of few stores */
    if (world->num_components >= 32u &&
        !(sizes = (ecs__snap_secsize *)ECS__REALLOC(NULL, ((size_t)world->num_components + 1u) * sizeof *sizes)))
        return 0;
    memset(&sel, 0, sizeof sel);
    memset(&measure, 0, sizeof measure);
    measure.sizes = sizes;
    ecs__snap_write_world(&measure, world, NULL, &sel);
    stream = measure;
    stream.at = 0;
    stream.num_sizes = 0;
    stream.total = (uint64_t)measure.at;
    stream.sink = sink;
    stream.sink_cut = cut;
    stream.sink_ctx = ctx;
    stream.copy_stores = copy_stores;
    if (!measure.overflow) ecs__snap_write_world(&stream, world, NULL, &sel);
    if (sizes != few) ECS__FREE(sizes);
    return measure.overflow || stream.oom ? 0 : stream.visit_short ? -1 : 1;
}

/* desc's root and its descendants in desc's hierarchy store as *sel (and
   its scratch: rank words for the largest selected manager with next
   links); no selection without desc->hierarchy. */
static ecs_result ecs__snap_select(const ecs_world *w, const ecs_snapshot_desc *desc, ecs__snap_sel *sel, ecs_error *err)
{
    uint32_t k = desc && desc->hierarchy ? ecs_world_find(w, desc->hierarchy) : ECS_WORLD_NO_COMPONENT, n, i, most = 0;
    const ecs_world_component *c;
    ecs_entity *ids;
    memset(sel, 0, sizeof *sel);
    if (!desc || !desc->hierarchy) return ECS_OK;
    if (k == ECS_WORLD_NO_COMPONENT)
        return ecs_error_set(err, ECS_ERROR_NOT_FOUND, "ecs_snapshot_save: no hierarchy store '%s' is registered",
                             desc->hierarchy);
    c = &w->component[k];
    if (c->manager || !c->iface->subtree)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_save: store '%s' is no hierarchy (no subtree function)",
                             c->name);
    if (desc->root.id && !ecs_entity_live(&w->entities, desc->root)) {
        char who[ECS_ENTITY_TEXT_SIZE];
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_save: root %s is not alive",
                             ecs_entity_format(who, sizeof who, desc->root));
    }
    n = desc->root.id ? c->iface->subtree(c->store, desc->root, NULL, 0) : 0u;
    if (n == 0) {
        char who[ECS_ENTITY_TEXT_SIZE];
        return ecs_error_set(err, ECS_ERROR_NOT_FOUND, "ecs_snapshot_save: root %s has no node in '%s'",
                             ecs_entity_format(who, sizeof who, desc->root), c->name);
    }
    if (!(ids = (ecs_entity *)ECS__REALLOC(NULL, (size_t)n * sizeof *ids)))
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_save: out of memory for %u ids", (unsigned)n);
    (void)c->iface->subtree(c->store, desc->root, ids, n);
    n = ecs__res_live_walk(c, &w->entities, ids, n); /* destroyed ones: left out, with their subtrees */
    for (i = 0; i < n; ++i)
        if ((ids[i].id & ECS_INDEX_MASK) >= sel->num_indices) sel->num_indices = (ids[i].id & ECS_INDEX_MASK) + 1u;
    for (k = 0; k < w->num_components; ++k) {
        const ecs_manager *m = w->component[k].manager;
        if (m && m->next && m->count > most && ecs__snap_selected(desc, w->component[k].name)) most = m->count;
    }
    sel->keep = (uint32_t *)ECS__REALLOC(NULL, (size_t)sel->num_indices * 4u);
    sel->rank = most ? (uint32_t *)ECS__REALLOC(NULL, (size_t)most * 4u) : NULL;
    if (!sel->keep || (most && !sel->rank)) {
        ECS__FREE(ids);
        ECS__FREE(sel->keep);
        ECS__FREE(sel->rank);
        memset(sel, 0, sizeof *sel);
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_save: out of memory selecting %u entities",
                             (unsigned)n);
    }
    memset(sel->keep, 0, (size_t)sel->num_indices * 4u);
    for (i = 0; i < n; ++i) sel->keep[ids[i].id & ECS_INDEX_MASK] = ids[i].id;
    ECS__FREE(ids);
    return ECS_OK;
}

/* Selected names that are not registered, stores that cannot save. */
static ecs_result ecs__snap_check_save(const ecs_world *w, const ecs_snapshot_desc *desc, ecs_error *err)
{
    uint32_t k;
    if (desc && desc->stores) {
        const char *const *s;
        for (s = desc->stores; *s; ++s)
            if (ecs_world_find(w, *s) == ECS_WORLD_NO_COMPONENT)
                return ecs_error_set(err, ECS_ERROR_NOT_FOUND, "ecs_snapshot_save: no store '%s' is registered", *s);
    }
    if (desc && (desc->flags & ECS_SNAPSHOT_LITTLE_ENDIAN) && (desc->flags & ECS_SNAPSHOT_BIG_ENDIAN))
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_save: both byte orders asked for");
    for (k = 0; k < w->num_components; ++k) {
        const ecs_world_component *c = &w->component[k];
        if (!c->manager && ecs__snap_selected(desc, c->name) && (!c->iface || !c->iface->save))
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_save: store '%s' has no save function",
                                 c->name);
        if (!c->manager && desc && desc->hierarchy && ecs__snap_selected(desc, c->name) && !c->iface->save_selected)
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "ecs_snapshot_save: store '%s' cannot save a selection (no save_selected function)", c->name);
    }
    return ECS_OK;
}

ECS_DEF void ecs_snapshot_output_free(ecs_snapshot_output *out)
{
    if (!out) return;
    ECS__FREE(out->data);
    out->data = NULL;
    out->size = 0;
}

/* A buffer for need bytes that will all be written: out's own when it
   holds them (shrunk to need), else a new one and out's freed once it is
   there (its bytes are not copied: a growing snapshot saved every frame
   moves nothing). NULL when out of memory, out's buffer as it was. had:
   the bytes out's buffer holds (0: out has none of its own). */
static unsigned char *ecs__snap_buffer(void *data, size_t had, size_t need)
{
    unsigned char *p;
    if (!need) need = 1u;
    if (data && need <= had) return (unsigned char *)ECS__REALLOC(data, need);
    if ((p = (unsigned char *)ECS__REALLOC(NULL, need)) != NULL) ECS__FREE(data);
    return p;
}

ECS_DEF ecs_result ecs_snapshot_save(const ecs_world *w, const ecs_snapshot_desc *desc, ecs_snapshot_output *out,
                                     ecs_error *err)
{
    ecs__snap_w measure, write;
    ecs__snap_sel sel;
    ecs_result r;
    int big = ecs__res_host_big_endian(), reuse = desc && (desc->flags & ECS_SNAPSHOT_REUSE_OUTPUT);
    size_t had;
    memset(&measure, 0, sizeof measure);
    memset(&write, 0, sizeof write);
    if (!out) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_save: out is NULL");
    if (!reuse) out->data = NULL;
    had = out->data ? out->size : 0u;
    out->size = 0;
    if (!w) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_save: world is NULL");
    if ((r = ecs__snap_check_save(w, desc, err)) != ECS_OK || (r = ecs__snap_select(w, desc, &sel, err)) != ECS_OK) return r;
    ecs__snap_write_world(&measure, w, desc, &sel);
    if (measure.odd)
        r = ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_save: store '%s' saves bytes that are not 32-bit words",
                          measure.odd);
    else if (measure.overflow)
        r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_save: the snapshot does not fit in memory");
    else if (!(write.p = ecs__snap_buffer(out->data, had, measure.at)))
        r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_save: out of memory for %lu bytes",
                          (unsigned long)measure.at);
    else out->data = write.p; /* (reused: the old pointer is gone) */
    if (r == ECS_OK) ecs__snap_write_world(&write, w, desc, &sel);
    if (r == ECS_OK && write.oom) r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_save: out of memory");
    if (r == ECS_OK && desc && ((desc->flags & ECS_SNAPSHOT_BIG_ENDIAN && !big) || (desc->flags & ECS_SNAPSHOT_LITTLE_ENDIAN && big)))
        r = ecs_snapshot_swap(write.p, write.at, err);
    ECS__FREE(sel.keep);
    ECS__FREE(sel.rank);
    if (r != ECS_OK) {
        if (!reuse) ecs_snapshot_output_free(out);
        return r;
    }
    out->size = write.at;
    return ECS_OK;
}

/* -- reading: the header and the sections -- */

typedef struct ecs__snap_sec {
    uint32_t kind, version, name_length, index, pad;
    size_t offset, size, body, body_size; /* offsets in the blob; body_size bytes of body (a store's:
                                             its bytes, pad zero bytes follow) */
    const char *name;
    char where[80];                       /* "section 2 'actor'" for messages */
} ecs__snap_sec;

typedef struct ecs__snap_reader {
    const unsigned char *b;
    size_t size, at;
    uint32_t num_sections, next;
    int swap;
} ecs__snap_reader;

/* The header: magic, byte order (swap: the blob is in the other order, and
   that is what the caller expects), version, total size. */
static ecs_result ecs__snap_open(ecs__snap_reader *rd, const void *blob, size_t size, int allow_swap, ecs_error *err)
{
    const unsigned char *b = (const unsigned char *)blob;
    uint32_t bom, version;
    uint64_t total;
    memset(rd, 0, sizeof *rd);
    if (!blob) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "snapshot: blob is NULL");
    if (size < ECS__SNAP_HEADER) return ecs__snap_bad(err, 0, "header", "%lu bytes, a snapshot has at least 32", (unsigned long)size);
    if (memcmp(b, "ECSS", 4) != 0) return ecs__snap_bad(err, 0, "magic", "not a snapshot (magic is not 'ECSS')");
    memcpy(&bom, b + 8, 4);
    if (bom == ecs__res_bswap32(ECS__SNAP_BOM)) {
        if (!allow_swap)
            return ecs_error_set(err, ECS_ERROR_WRONG_BYTE_ORDER,
                                 "snapshot: offset 8 (byte_order): wrong byte order (the snapshot was saved %s-endian; "
                                 "ecs_snapshot_swap converts it)", ecs__res_host_big_endian() ? "little" : "big");
        rd->swap = 1;
    } else if (bom != ECS__SNAP_BOM) {
        return ecs__snap_bad(err, 8, "byte_order", "0x%08X is no byte order mark", (unsigned)bom);
    }
    version = ecs__res_rd32(b + 4, rd->swap);
    if (version == 0 || version > ECS_SNAPSHOT_VERSION)
        return ecs__snap_bad(err, 4, "version", "version %u; this library reads version 1 to %u", (unsigned)version,
                             (unsigned)ECS_SNAPSHOT_VERSION);
    total = ecs__snap_rd64(b + 16, rd->swap);
    if (total != (uint64_t)size)
        return ecs__snap_bad(err, 16, "total_size", "total_size %llu, the buffer holds %lu bytes",
                             (unsigned long long)total, (unsigned long)size);
    if (ecs__res_rd32(b + 28, rd->swap) != 0 || ecs__res_rd32(b + 24, rd->swap) > 1u)
        return ecs__snap_bad(err, 24, "flags", "unknown flags or a nonzero reserved word");
    rd->num_sections = ecs__res_rd32(b + 12, rd->swap);
    if (rd->num_sections == 0 || rd->num_sections > (size - ECS__SNAP_HEADER) / ECS__SNAP_SECTION)
        return ecs__snap_bad(err, 12, "num_sections", "%u sections cannot fit", (unsigned)rd->num_sections);
    rd->b = b;
    rd->size = size;
    rd->at = ECS__SNAP_HEADER;
    return ECS_OK;
}

/* 1 when the n bytes at p are all zero. */
static int ecs__snap_zero(const unsigned char *p, size_t n)
{
    size_t k;
    for (k = 0; k < n; ++k)
        if (p[k]) return 0;
    return 1;
}

/* The zero bytes that pad n bytes at blob offset `at` to a multiple of 8:
   ECS_OK, or refused naming them (what: the padded array). */
static ecs_result ecs__snap_check_pad(const ecs__snap_reader *rd, size_t at, size_t n, const char *where, const char *what,
                                      ecs_error *err)
{
    size_t pad = ecs__snap_pad8(n) - n;
    if (ecs__snap_zero(rd->b + at + n, pad)) return ECS_OK;
    return ecs__snap_bad(err, at + n, where, "the padding after %s is not zero", what);
}

/* The next section's header into *s. 1 with a section, 0 at the end (after
   checking that the sections fill the blob), -1 on error. */
static int ecs__snap_next(ecs__snap_reader *rd, ecs__snap_sec *s, ecs_error *err)
{
    const unsigned char *p;
    uint64_t size;
    size_t left = rd->size - rd->at;
    if (rd->next == rd->num_sections) {
        if (rd->at == rd->size) return 0;
        ecs__snap_bad(err, rd->at, "end", "%lu bytes after the last section", (unsigned long)left);
        return -1;
    }
    memset(s, 0, sizeof *s);
    s->index = rd->next;
    s->offset = rd->at;
    snprintf(s->where, sizeof s->where, "section %u", (unsigned)s->index);
    if (left < ECS__SNAP_SECTION) {
        ecs__snap_bad(err, rd->at, s->where, "truncated: %lu bytes left, a section header has 24", (unsigned long)left);
        return -1;
    }
    p = rd->b + rd->at;
    s->kind = ecs__res_rd32(p, rd->swap);
    s->version = ecs__res_rd32(p + 4, rd->swap);
    size = ecs__snap_rd64(p + 8, rd->swap);
    s->name_length = ecs__res_rd32(p + 16, rd->swap);
    if (s->kind < ECS__SNAP_ENTITIES || s->kind > ECS__SNAP_STORE || (s->kind == ECS__SNAP_ENTITIES) != (s->index == 0)) {
        ecs__snap_bad(err, rd->at, s->where, "kind %u (the entities section comes first, then managers and stores)",
                      (unsigned)s->kind);
        return -1;
    }
    if (size < ECS__SNAP_SECTION || size > (uint64_t)left || (size & 7u) != 0) {
        ecs__snap_bad(err, rd->at + 8, s->where, "size %llu (%lu bytes left, a multiple of 8 needed)",
                      (unsigned long long)size, (unsigned long)left);
        return -1;
    }
    s->size = (size_t)size;
    if (s->name_length > s->size - ECS__SNAP_SECTION || ecs__snap_pad8(s->name_length) > s->size - ECS__SNAP_SECTION ||
        (s->kind == ECS__SNAP_ENTITIES ? s->name_length != 0 : s->name_length == 0)) {
        ecs__snap_bad(err, rd->at + 16, s->where, "name_length %u in a section of %lu bytes", (unsigned)s->name_length,
                      (unsigned long)s->size);
        return -1;
    }
    s->pad = ecs__res_rd32(p + 20, rd->swap);
    s->body = rd->at + ECS__SNAP_SECTION + ecs__snap_pad8(s->name_length);
    s->body_size = rd->at + s->size - s->body;
    if ((s->kind == ECS__SNAP_STORE ? s->pad != 0 && s->pad != 4u : s->pad != 0) || s->pad > s->body_size ||
        !ecs__snap_zero(rd->b + s->body + s->body_size - s->pad, s->pad)) {
        ecs__snap_bad(err, rd->at + 20, s->where, "pad %u (a store's bytes are followed by 0 or 4 zero bytes, other "
                      "sections' by none)", (unsigned)s->pad);
        return -1;
    }
    s->body_size -= s->pad;
    s->name = (const char *)p + ECS__SNAP_SECTION;
    if (memchr(s->name, 0, s->name_length) || !ecs__utf8_valid((const unsigned char *)s->name, s->name_length)) {
        ecs__snap_bad(err, rd->at + ECS__SNAP_SECTION, s->where, "the name holds a zero byte or is not UTF-8");
        return -1;
    }
    if (ecs__snap_check_pad(rd, rd->at + ECS__SNAP_SECTION, s->name_length, s->where, "the name", err) != ECS_OK) return -1;
    if (s->name_length)
        snprintf(s->where, sizeof s->where, "section %u '%.*s'", (unsigned)s->index,
                 (int)(s->name_length < 40u ? s->name_length : 40u), s->name);
    if (s->kind != ECS__SNAP_STORE && s->version != 1u) {
        ecs__snap_bad(err, rd->at + 4, s->where, "section version %u; this library reads version 1", (unsigned)s->version);
        return -1;
    }
    rd->at += s->size;
    ++rd->next;
    return 1;
}

/* -- the entities section -- */

typedef struct ecs__snap_ents {
    uint32_t max_index, free_capacity, free_head, num_free, num_retired;
    const unsigned char *generation, *ring;
} ecs__snap_ents;

static ecs_result ecs__snap_parse_entities(const ecs__snap_reader *rd, const ecs__snap_sec *s, ecs__snap_ents *e,
                                           ecs_error *err)
{
    const unsigned char *p = rd->b + s->body;
    uint64_t need;
    uint32_t bits;
    if (s->body_size < ECS__SNAP_ENTITIES_HEAD)
        return ecs__snap_bad(err, s->body, s->where, "truncated: %lu body bytes", (unsigned long)s->body_size);
    e->max_index = ecs__res_rd32(p, rd->swap);
    e->free_capacity = ecs__res_rd32(p + 4, rd->swap);
    e->free_head = ecs__res_rd32(p + 8, rd->swap);
    e->num_free = ecs__res_rd32(p + 12, rd->swap);
    e->num_retired = ecs__res_rd32(p + 16, rd->swap);
    bits = ecs__res_rd32(p + 20, rd->swap);
    if (bits != ECS__SNAP_BITS)
        return ecs__snap_bad(err, s->body + 20, s->where,
                             "saved with ECS_INDEX_BITS %u and ECS_GENERATION_BITS %u; this build has %d and %d",
                             (unsigned)(bits & 0xFFu), (unsigned)(bits >> 8), ECS_INDEX_BITS, ECS_GENERATION_BITS);
    if (e->max_index > ECS_INDEX_MASK)
        return ecs__snap_bad(err, s->body, s->where, "max_index %u exceeds the index space", (unsigned)e->max_index);
    if (e->free_capacity != 0 && (e->free_capacity < 1024u || e->free_capacity > 0x40000000u ||
                                  (e->free_capacity & (e->free_capacity - 1u)) != 0))
        return ecs__snap_bad(err, s->body + 4, s->where, "free_capacity %u is not 0 or a power of two >= 1024",
                             (unsigned)e->free_capacity);
    if (e->num_free > e->free_capacity || e->num_free > e->max_index)
        return ecs__snap_bad(err, s->body + 12, s->where, "num_free %u (ring of %u, max_index %u)", (unsigned)e->num_free,
                             (unsigned)e->free_capacity, (unsigned)e->max_index);
    if (e->num_retired > e->max_index - e->num_free) /* (entities alive: max_index - num_free - num_retired) */
        return ecs__snap_bad(err, s->body + 16, s->where, "num_retired %u: max_index %u with %u queued leaves at most %u",
                             (unsigned)e->num_retired, (unsigned)e->max_index, (unsigned)e->num_free,
                             (unsigned)(e->max_index - e->num_free));
    need = ECS__SNAP_ENTITIES_HEAD + ecs__snap_pad8_64((uint64_t)e->max_index + 1u) + ecs__snap_pad8_64((uint64_t)e->free_capacity * 4u);
    if (need != (uint64_t)s->body_size)
        return ecs__snap_bad(err, s->body, s->where, "the body has %lu bytes, max_index %u and free_capacity %u need %llu",
                             (unsigned long)s->body_size, (unsigned)e->max_index, (unsigned)e->free_capacity,
                             (unsigned long long)need);
    e->generation = p + ECS__SNAP_ENTITIES_HEAD;
    e->ring = e->generation + ecs__snap_pad8((size_t)e->max_index + 1u);
    return ecs__snap_check_pad(rd, s->body + ECS__SNAP_ENTITIES_HEAD, (size_t)e->max_index + 1u, s->where, "the generations",
                               err);
}

/* The ring and the generations: every queued id is the id its index
   carries next, each index queued once; log entries name indices handed
   out. (Native order only.) */
static ecs_result ecs__snap_check_entities(const ecs__snap_sec *s, const ecs__snap_ents *e, ecs_error *err)
{
    size_t ring_at = s->body + (size_t)(e->ring - (e->generation - ECS__SNAP_ENTITIES_HEAD));
    uint32_t k, *seen;
    ecs_result r = ECS_OK;
    char who[ECS_ENTITY_TEXT_SIZE];
    if (e->generation[0] != 0) return ecs__snap_bad(err, s->body + ECS__SNAP_ENTITIES_HEAD, s->where, "generation[0] is not 0");
    for (k = 1; k <= e->max_index && ECS_ENTITY_GENERATION_MASK < 0xFFu; ++k) /* (fewer than 8 bits) */
        if ((uint32_t)e->generation[k] & ~(uint32_t)ECS_ENTITY_GENERATION_MASK)
            return ecs__snap_bad(err, s->body + ECS__SNAP_ENTITIES_HEAD + k, s->where, "generation[%u] is %u",
                                 (unsigned)k, (unsigned)e->generation[k]);
    if (!e->free_capacity) return ECS_OK;
    seen = (uint32_t *)ECS__REALLOC(NULL, ((size_t)e->max_index / 32u + 1u) * 4u);
    if (!seen) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "snapshot: out of memory verifying the free queue");
    memset(seen, 0, ((size_t)e->max_index / 32u + 1u) * 4u);
    for (k = 0; k < e->free_capacity && r == ECS_OK; ++k) {
        uint32_t slot = (e->free_head + k) & (e->free_capacity - 1u), id, idx;
        memcpy(&id, e->ring + (size_t)slot * 4u, 4);
        idx = id & ECS_INDEX_MASK;
        if (k < e->num_free) {
            if (idx == 0 || idx > e->max_index || (id >> ECS_INDEX_BITS) != e->generation[idx] || (seen[idx / 32u] >> (idx % 32u)) & 1u)
                r = ecs__snap_bad(err, ring_at + (size_t)slot * 4u, s->where,
                                  "free queue entry %u: %s is not a queued index's next id (once)", (unsigned)k,
                                  ecs_entity_format(who, sizeof who, ecs__as_entity(id)));
            else seen[idx / 32u] |= 1u << (idx % 32u);
        } else if (idx > e->max_index || (id >> ECS_INDEX_BITS) > ECS_ENTITY_GENERATION_MASK) {
            r = ecs__snap_bad(err, ring_at + (size_t)slot * 4u, s->where, "destroy log entry: %s",
                              ecs_entity_format(who, sizeof who, ecs__as_entity(id)));
        }
    }
    ECS__FREE(seen);
    return r;
}

/* -- a manager section -- */

typedef struct ecs__snap_mgr {
    uint32_t lookup, num_fields, count, num_instances, flags, rng, log_next, log_retired, group_size;
    const unsigned char *table, *names, *entity, *next, *data; /* data: the first field's array */
    size_t entity_at, next_at;                                   /* blob offsets, for messages */
} ecs__snap_mgr;

/* Field k of a parsed manager: size, align, kind, name and its data. */
typedef struct ecs__snap_field {
    uint32_t size, align, kind, name_length;
    const char *name;
    const unsigned char *data;
} ecs__snap_field;

/* Walks the field table: field k (k < num_fields, in order). */
static void ecs__snap_field_at(const ecs__snap_mgr *v, uint32_t k, int swap, ecs__snap_field *f, const ecs__snap_field *prev)
{
    const unsigned char *t = v->table + (size_t)k * ECS__SNAP_FIELD;
    f->size = ecs__res_rd32(t, swap);
    f->align = ecs__res_rd32(t + 4, swap);
    f->kind = ecs__res_rd32(t + 8, swap);
    f->name_length = ecs__res_rd32(t + 12, swap);
    f->name = prev ? prev->name + prev->name_length : (const char *)v->names;
    f->data = prev ? prev->data + ecs__snap_pad8((size_t)prev->size * v->count) : v->data;
}

static ecs_result ecs__snap_parse_manager(const ecs__snap_reader *rd, const ecs__snap_sec *s, ecs__snap_mgr *v,
                                          ecs_error *err)
{
    const unsigned char *p = rd->b + s->body;
    uint64_t need, names = 0, data = 0, record = 4;
    ecs__snap_field f, prev;
    uint32_t k, names_bytes;
    if (s->body_size < ECS__SNAP_MANAGER_HEAD)
        return ecs__snap_bad(err, s->body, s->where, "truncated: %lu body bytes", (unsigned long)s->body_size);
    v->lookup = ecs__res_rd32(p, rd->swap);
    v->num_fields = ecs__res_rd32(p + 4, rd->swap);
    v->count = ecs__res_rd32(p + 8, rd->swap);
    v->num_instances = ecs__res_rd32(p + 12, rd->swap);
    v->flags = ecs__res_rd32(p + 16, rd->swap);
    v->rng = ecs__res_rd32(p + 20, rd->swap);
    v->log_next = ecs__res_rd32(p + 24, rd->swap);
    v->log_retired = ecs__res_rd32(p + 28, rd->swap);
    v->group_size = ecs__res_rd32(p + 32, rd->swap);
    names_bytes = ecs__res_rd32(p + 36, rd->swap);
    if (v->lookup > (uint32_t)ECS_LOOKUP_DIRECT)
        return ecs__snap_bad(err, s->body, s->where, "lookup kind %u", (unsigned)v->lookup);
    if (v->num_fields > 0xFFFFu || (uint64_t)v->num_fields * ECS__SNAP_FIELD > s->body_size - ECS__SNAP_MANAGER_HEAD)
        return ecs__snap_bad(err, s->body + 4, s->where, "num_fields %u", (unsigned)v->num_fields);
    if (v->flags & ~(uint32_t)(ECS__SNAP_HAS_NEXT | ECS__SNAP_LOG_WORLD) ||
        (v->lookup == ECS_LOOKUP_DIRECT && (v->flags & ECS__SNAP_HAS_NEXT)))
        return ecs__snap_bad(err, s->body + 16, s->where, "flags 0x%X", (unsigned)v->flags);
    if (v->lookup == ECS_LOOKUP_DIRECT ? v->count > ECS_INDEX_MASK + 1u || v->num_instances > v->count
                                       : v->count > 0xFFFFFFFEu || v->num_instances != v->count)
        return ecs__snap_bad(err, s->body + 8, s->where, "count %u with %u instances", (unsigned)v->count,
                             (unsigned)v->num_instances);
    if (v->group_size > v->count)
        return ecs__snap_bad(err, s->body + 32, s->where, "group_size %u of %u instances", (unsigned)v->group_size,
                             (unsigned)v->count);
    v->table = p + ECS__SNAP_MANAGER_HEAD;
    v->names = v->table + (size_t)v->num_fields * ECS__SNAP_FIELD;
    for (k = 0; k < v->num_fields; ++k) {
        size_t at = s->body + ECS__SNAP_MANAGER_HEAD + (size_t)k * ECS__SNAP_FIELD;
        ecs__snap_field_at(v, k, rd->swap, &f, NULL);
        if (f.size == 0 || f.align == 0 || (f.align & (f.align - 1u)) != 0 || f.align > 4096u)
            return ecs__snap_bad(err, at, s->where, "field %u: size %u, align %u", (unsigned)k, (unsigned)f.size,
                                 (unsigned)f.align);
        if (f.kind >= ECS_FIELD_KIND_COUNT || (f.kind && ecs_field_kind_size((ecs_field_kind)f.kind) != f.size))
            return ecs__snap_bad(err, at + 8, s->where, "field %u: kind %u of %u bytes", (unsigned)k, (unsigned)f.kind,
                                 (unsigned)f.size);
        names += f.name_length;
        record += f.size;
        data += ecs__snap_pad8_64((uint64_t)f.size * v->count);
    }
    if (names != names_bytes || record > 0x7FFFFFFFu)
        return ecs__snap_bad(err, s->body + 36, s->where, "names_bytes %u, the fields' names have %llu; record %llu bytes",
                             (unsigned)names_bytes, (unsigned long long)names, (unsigned long long)record);
    need = ECS__SNAP_MANAGER_HEAD + (uint64_t)v->num_fields * ECS__SNAP_FIELD + ecs__snap_pad8_64(names) +
           ecs__snap_pad8_64((uint64_t)v->count * 4u) * ((v->flags & ECS__SNAP_HAS_NEXT) ? 2u : 1u) + data;
    if (need != (uint64_t)s->body_size)
        return ecs__snap_bad(err, s->body + 8, s->where, "the body has %lu bytes, its counts need %llu",
                             (unsigned long)s->body_size, (unsigned long long)need);
    v->entity_at = s->body + ECS__SNAP_MANAGER_HEAD + (size_t)v->num_fields * ECS__SNAP_FIELD + ecs__snap_pad8((size_t)names);
    v->entity = rd->b + v->entity_at;
    v->next_at = v->entity_at + ecs__snap_pad8((size_t)v->count * 4u);
    v->next = (v->flags & ECS__SNAP_HAS_NEXT) ? rd->b + v->next_at : NULL;
    v->data = rd->b + v->next_at + (v->next ? ecs__snap_pad8((size_t)v->count * 4u) : 0u);
    if (ecs__snap_check_pad(rd, (size_t)(v->names - rd->b), (size_t)names, s->where, "the names", err) != ECS_OK ||
        ecs__snap_check_pad(rd, v->entity_at, (size_t)v->count * 4u, s->where, "entity[]", err) != ECS_OK ||
        (v->next && ecs__snap_check_pad(rd, v->next_at, (size_t)v->count * 4u, s->where, "next[]", err) != ECS_OK))
        return ECS_ERROR_CORRUPT_RESOURCE;
    /* names: no zero byte (two alike: the load keeps the first); arrays padded with zeros */
    for (k = 0; k < v->num_fields; ++k) {
        ecs__snap_field_at(v, k, rd->swap, &f, k ? &prev : NULL);
        if (memchr(f.name, 0, f.name_length) || !ecs__utf8_valid((const unsigned char *)f.name, f.name_length))
            return ecs__snap_bad(err, (size_t)((const unsigned char *)f.name - rd->b), s->where,
                                 "field %u: the name holds a zero byte or is not UTF-8", (unsigned)k);
        if (ecs__snap_check_pad(rd, (size_t)(f.data - rd->b), (size_t)f.size * v->count, s->where, "a field's array", err) != ECS_OK)
            return ECS_ERROR_CORRUPT_RESOURCE;
        prev = f;
    }
    return ECS_OK;
}

static uint32_t ecs__snap_id(const ecs__snap_mgr *v, uint32_t i)
{
    uint32_t id;
    memcpy(&id, v->entity + (size_t)i * 4u, 4);
    return id;
}

static uint32_t ecs__snap_next_of(const ecs__snap_mgr *v, uint32_t i)
{
    uint32_t n;
    if (!v->next) return ECS__SNAP_NONE;
    memcpy(&n, v->next + (size_t)i * 4u, 4);
    return n;
}

/* Direct kind: slot i holds nothing (0, and zero bytes in every field) or
   an id of index i, 0 < i <= max_index (an index handed out). */
static ecs_result ecs__snap_check_direct(const ecs__snap_sec *s, const ecs__snap_mgr *v, uint32_t max_index, ecs_error *err)
{
    const unsigned char *b = v->entity - v->entity_at; /* the blob */
    ecs__snap_field f, prev;
    uint32_t i, k, used = 0;
    for (i = 0; i < v->count; ++i) {
        uint32_t id = ecs__snap_id(v, i);
        if (id == 0) continue;
        if ((id & ECS_INDEX_MASK) != i || id > ECS__ID_MASK_RES || i == 0 || i > max_index) {
            char who[ECS_ENTITY_TEXT_SIZE];
            return ecs__snap_bad(err, v->entity_at + (size_t)i * 4u, s->where,
                                 "entity[%u]: %s in slot %u (slot 0 and the slots past max_index %u are holes)",
                                 (unsigned)i, ecs_entity_format(who, sizeof who, ecs__as_entity(id)), (unsigned)i,
                                 (unsigned)max_index);
        }
        ++used;
    }
    if (used != v->num_instances)
        return ecs__snap_bad(err, s->body + 12, s->where, "num_instances %u, %u slots are used", (unsigned)v->num_instances,
                             (unsigned)used);
    for (k = 0; k < v->num_fields && used != v->count; ++k) {
        ecs__snap_field_at(v, k, 0, &f, k ? &prev : NULL);
        prev = f;
        for (i = 0; i < v->count; ++i)
            if (ecs__snap_id(v, i) == 0 && !ecs__snap_zero(f.data + (size_t)i * f.size, f.size))
                return ecs__snap_bad(err, (size_t)(f.data - b) + (size_t)i * f.size, s->where,
                                     "field %u of the hole in slot %u is not zero", (unsigned)k, (unsigned)i);
    }
    return ECS_OK;
}

/* Dense and hash: ids valid (an index handed out: at most max_index),
   next links chains of one entity's instances, one chain per entity
   (dense: one entity per index), each chain's head in map (reserved and
   empty on entry). The same checks verify and load. */
static ecs_result ecs__snap_links(const ecs__snap_sec *s, const ecs__snap_mgr *v, uint32_t max_index, ecs_entity_map *map,
                                  ecs_error *err)
{
    uint32_t i, heads = 0, top = 0, walked = 0, *pred = NULL;
    ecs_result r = ECS_OK;
    for (i = 0; i < v->count; ++i) {
        uint32_t id = ecs__snap_id(v, i), n = ecs__snap_next_of(v, i);
        if ((id & ECS_INDEX_MASK) == 0 || id > ECS__ID_MASK_RES || (id & ECS_INDEX_MASK) > max_index) {
            char who[ECS_ENTITY_TEXT_SIZE];
            return ecs__snap_bad(err, v->entity_at + (size_t)i * 4u, s->where,
                                 "entity[%u]: %s is not of an index handed out (max_index %u)", (unsigned)i,
                                 ecs_entity_format(who, sizeof who, ecs__as_entity(id)), (unsigned)max_index);
        }
        if (n != ECS__SNAP_NONE && (n >= v->count || n == i || ecs__snap_id(v, n) != id))
            return ecs__snap_bad(err, v->next_at + (size_t)i * 4u, s->where, "next[%u] is %u (not another instance of its entity)",
                                 (unsigned)i, (unsigned)n);
        if ((id & ECS_INDEX_MASK) > top) top = id & ECS_INDEX_MASK;
    }
    if (v->next) {
        pred = (uint32_t *)ECS__REALLOC(NULL, ((size_t)v->count / 32u + 1u) * 4u);
        if (!pred) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "snapshot: out of memory checking next links");
        memset(pred, 0, ((size_t)v->count / 32u + 1u) * 4u);
        for (i = 0; i < v->count && r == ECS_OK; ++i) {
            uint32_t n = ecs__snap_next_of(v, i);
            if (n == ECS__SNAP_NONE) continue;
            if ((pred[n / 32u] >> (n % 32u)) & 1u)
                r = ecs__snap_bad(err, v->next_at + (size_t)i * 4u, s->where, "instance %u is the next of two instances",
                                  (unsigned)n);
            pred[n / 32u] |= 1u << (n % 32u);
        }
        for (i = 0; i < v->count; ++i) heads += !((pred[i / 32u] >> (i % 32u)) & 1u);
    } else {
        heads = v->count;
    }
    if (r == ECS_OK) r = ecs_entity_map_reserve(map, heads, top, err);
    if (r == ECS_OK && !v->next && map->kind == ECS_LOOKUP_DENSE) { /* every instance heads its chain: one slot each */
        for (i = 0; i < v->count; ++i) {
            uint32_t id = ecs__snap_id(v, i);
            ecs_entity_map_slot *slot = &map->slots[id & ECS_INDEX_MASK];
            if (slot->id != 0)
                return ecs__snap_bad(err, v->entity_at + (size_t)i * 4u, s->where,
                                     "entity[%u]: a second chain of instances for index %u", (unsigned)i,
                                     (unsigned)(id & ECS_INDEX_MASK));
            slot->id = id;
            slot->first = i;
        }
        map->count += v->count;
        return ECS_OK;
    }
    for (i = 0; i < v->count && r == ECS_OK; ++i) {
        uint32_t id = ecs__snap_id(v, i), n;
        if (pred && ((pred[i / 32u] >> (i % 32u)) & 1u)) continue;
        if (map->kind == ECS_LOOKUP_DENSE ? map->slots[id & ECS_INDEX_MASK].id != 0 : ecs_entity_map_find(map, id) != ECS_INSTANCE_NIL) {
            char who[ECS_ENTITY_TEXT_SIZE];
            r = map->kind == ECS_LOOKUP_DENSE
                    ? ecs__snap_bad(err, v->entity_at + (size_t)i * 4u, s->where,
                                    "entity[%u]: a second chain of instances for index %u", (unsigned)i,
                                    (unsigned)(id & ECS_INDEX_MASK))
                    : ecs__snap_bad(err, v->entity_at + (size_t)i * 4u, s->where,
                                    "entity[%u]: a second chain of instances for %s", (unsigned)i,
                                    ecs_entity_format(who, sizeof who, ecs__as_entity(id)));
            break;
        }
        ecs_entity_map_set(map, id, i);
        for (n = i; n != ECS__SNAP_NONE; n = ecs__snap_next_of(v, n)) ++walked;
    }
    if (r == ECS_OK && walked != v->count)
        r = ecs__snap_bad(err, v->next_at, s->where, "next links hold a cycle (%u of %u instances reachable)",
                          (unsigned)walked, (unsigned)v->count);
    ECS__FREE(pred);
    return r;
}

/* A manager section's instances (native order). */
static ecs_result ecs__snap_check_manager(const ecs__snap_sec *s, const ecs__snap_mgr *v, uint32_t max_index, ecs_error *err)
{
    ecs_entity_map map;
    ecs_result r;
    if (v->lookup == ECS_LOOKUP_DIRECT) return ecs__snap_check_direct(s, v, max_index, err);
    ecs_entity_map_init(&map, (ecs_lookup_kind)v->lookup);
    r = ecs__snap_links(s, v, max_index, &map, err);
    ecs_entity_map_free(&map);
    return r;
}

static uint32_t ecs__snap_find(const ecs_world *w, const char *name, uint32_t len);

/* A store section through the verify hook of w's store of that name (when
   it has one and reads that version: other stores' sections are the
   load's to refuse): the bytes, and the store's settings; the hook's
   offsets are the blob's. */
static ecs_result ecs__snap_verify_store(const ecs_world *w, const ecs__snap_reader *rd, const ecs__snap_sec *s,
                                         uint32_t max_index, ecs_error *err)
{
    uint32_t k = ecs__snap_find(w, s->name, s->name_length);
    const ecs_world_component *c = k == ECS_WORLD_NO_COMPONENT ? NULL : &w->component[k];
    ecs_result r;
    if (!c || c->manager || !c->iface->verify || c->iface->save_version != s->version) return ECS_OK;
    r = c->iface->verify(c->store, rd->b + s->body, s->body_size, max_index, s->body, err);
    if (r != ECS_OK && err) ecs_error_set(err, r, "snapshot: %s: %s", s->where, err->message);
    return r;
}

/* The names of a blob's manager and store sections, to find a second
   section for one store: sorted once at the end (a blob may hold many). */
typedef struct ecs__snap_name {
    const char *name;
    uint32_t length, index;
    size_t offset;
} ecs__snap_name;

typedef struct ecs__snap_names {
    ecs__snap_name *at;
    uint32_t n, cap;
} ecs__snap_names;

static ecs_result ecs__snap_note_name(ecs__snap_names *ns, const ecs__snap_sec *s, ecs_error *err)
{
    if (ns->n == ns->cap) {
        uint32_t cap = ns->cap ? ns->cap * 2u : 16u;
        ecs__snap_name *at = cap > ns->cap ? (ecs__snap_name *)ECS__REALLOC(ns->at, (size_t)cap * sizeof *at) : NULL;
        if (!at) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "snapshot: out of memory for %u section names", (unsigned)cap);
        ns->at = at;
        ns->cap = cap;
    }
    ns->at[ns->n].name = s->name;
    ns->at[ns->n].length = s->name_length;
    ns->at[ns->n].index = s->index;
    ns->at[ns->n].offset = s->offset;
    ++ns->n;
    return ECS_OK;
}

static int ecs__snap_name_order(const void *a, const void *b)
{
    const ecs__snap_name *x = (const ecs__snap_name *)a, *y = (const ecs__snap_name *)b;
    int c = x->length != y->length ? (x->length < y->length ? -1 : 1) : memcmp(x->name, y->name, x->length);
    return c ? c : (x->index < y->index ? -1 : x->index > y->index);
}

/* One section per store: the first second section of a name is refused. */
static ecs_result ecs__snap_check_names(ecs__snap_names *ns, ecs_error *err)
{
    uint32_t k, bad = ns->n;
    if (ns->n > 1u) qsort(ns->at, ns->n, sizeof *ns->at, ecs__snap_name_order);
    for (k = 1; k < ns->n; ++k)
        if (ns->at[k].length == ns->at[k - 1u].length && memcmp(ns->at[k].name, ns->at[k - 1u].name, ns->at[k].length) == 0 &&
            (bad == ns->n || ns->at[k].index < ns->at[bad].index))
            bad = k;
    if (bad == ns->n) return ECS_OK;
    return ecs__snap_bad(err, ns->at[bad].offset, "section names", "section %u is a second section for '%.*s' (one per store)",
                         (unsigned)ns->at[bad].index, (int)ns->at[bad].length, ns->at[bad].name);
}

/* The whole blob (native order); deep 1: the instance checks too; deep 2:
   the entity manager's and direct managers' only (a load checks the other
   managers' as it builds their maps). w (or NULL): its stores' verify
   hooks check their sections. */
static ecs_result ecs__snap_verify(const ecs_world *w, const void *blob, size_t size, int deep, ecs_error *err)
{
    ecs__snap_reader rd;
    ecs__snap_sec s;
    ecs__snap_names names = {NULL, 0, 0};
    ecs_result r = ecs__snap_open(&rd, blob, size, 0, err);
    uint32_t max_index = 0;
    int more = 1;
    while (r == ECS_OK && (more = ecs__snap_next(&rd, &s, err)) > 0) {
        if (s.kind == ECS__SNAP_ENTITIES) {
            ecs__snap_ents e;
            r = ecs__snap_parse_entities(&rd, &s, &e, err);
            if (r == ECS_OK && deep) r = ecs__snap_check_entities(&s, &e, err);
            max_index = r == ECS_OK ? e.max_index : 0u;
            continue;
        }
        if (s.kind == ECS__SNAP_MANAGER) {
            ecs__snap_mgr v;
            r = ecs__snap_parse_manager(&rd, &s, &v, err);
            if (r == ECS_OK && (deep == 1 || (deep == 2 && v.lookup == ECS_LOOKUP_DIRECT))) /* direct: no map to build */
                r = ecs__snap_check_manager(&s, &v, max_index, err);
        } else if ((s.body_size & 3u) != 0) {
            r = ecs__snap_bad(err, s.body, s.where, "a store's bytes are 32-bit words");
        } else if (w) {
            r = ecs__snap_verify_store(w, &rd, &s, max_index, err);
        }
        if (r == ECS_OK) r = ecs__snap_note_name(&names, &s, err);
    }
    if (more < 0) r = err ? err->code : ECS_ERROR_CORRUPT_RESOURCE;
    if (r == ECS_OK) r = ecs__snap_check_names(&names, err);
    ECS__FREE(names.at);
    return r;
}

ECS_DEF ecs_result ecs_snapshot_verify(const void *blob, size_t size, ecs_error *err)
{
    return ecs__snap_verify(NULL, blob, size, 1, err);
}

ECS_DEF ecs_result ecs_snapshot_verify_for(const ecs_world *w, const void *blob, size_t size, ecs_error *err)
{
    if (!w) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_verify_for: world is NULL");
    return ecs__snap_verify(w, blob, size, 1, err);
}

/* -- byte swap -- */

static void ecs__snap_swap_words(unsigned char *p, size_t n)
{
    size_t k;
    for (k = 0; k < n; ++k) {
        uint32_t v;
        memcpy(&v, p + 4u * k, 4);
        v = ecs__res_bswap32(v);
        memcpy(p + 4u * k, &v, 4);
    }
}

static void ecs__snap_swap_u64(unsigned char *p, size_t n)
{
    size_t k;
    for (k = 0; k < n; ++k) {
        uint64_t v;
        memcpy(&v, p + 8u * k, 8);
        v = ecs__res_bswap64(v);
        memcpy(p + 8u * k, &v, 8);
    }
}

/* Swaps n 16-bit values in place (the i16 and u16 kinds). */
static void ecs__snap_swap_u16(unsigned char *p, size_t n)
{
    size_t k;
    for (k = 0; k < n; ++k) {
        unsigned char t = p[2u * k];
        p[2u * k] = p[2u * k + 1u];
        p[2u * k + 1u] = t;
    }
}

/* Swaps one manager body in place (parsed in the blob's order). */
static void ecs__snap_swap_manager(unsigned char *b, const ecs__snap_sec *s, const ecs__snap_mgr *v, int swap)
{
    ecs__snap_field f, prev;
    uint32_t k;
    for (k = 0; k < v->num_fields; ++k) {
        ecs__snap_field_at(v, k, swap, &f, k ? &prev : NULL);
        prev = f;
        if (f.kind && ecs__kind_element_size((ecs_field_kind)f.kind) == 2u)
            ecs__snap_swap_u16(b + (f.data - b), (size_t)f.size / 2u * v->count);
        else if (f.kind && ecs__kind_element_size((ecs_field_kind)f.kind) == 4u)
            ecs__snap_swap_words(b + (f.data - b), (size_t)f.size / 4u * v->count);
        else if (f.kind && ecs__kind_element_size((ecs_field_kind)f.kind) == 8u)
            ecs__snap_swap_u64(b + (f.data - b), (size_t)f.size / 8u * v->count);
    }
    ecs__snap_swap_words(b + s->body, (ECS__SNAP_MANAGER_HEAD + (size_t)v->num_fields * ECS__SNAP_FIELD) / 4u);
    ecs__snap_swap_words(b + v->entity_at, v->count);
    if (v->next) ecs__snap_swap_words(b + v->next_at, v->count);
}

ECS_DEF ecs_result ecs_snapshot_swap(void *blob, size_t size, ecs_error *err)
{
    ecs__snap_reader rd;
    ecs__snap_sec s;
    unsigned char *b = (unsigned char *)blob;
    ecs_result r = ecs__snap_open(&rd, blob, size, 1, err);
    int more, pass;
    /* pass 0 checks every section's shape and that every field can be
       swapped; pass 1 swaps */
    for (pass = 0; pass < 2 && r == ECS_OK; ++pass) {
        rd.at = ECS__SNAP_HEADER;
        rd.next = 0;
        while ((more = ecs__snap_next(&rd, &s, err)) != 0) {
            if (more < 0) return err ? err->code : ECS_ERROR_CORRUPT_RESOURCE;
            if (s.kind == ECS__SNAP_ENTITIES) {
                ecs__snap_ents e;
                if ((r = ecs__snap_parse_entities(&rd, &s, &e, err)) != ECS_OK) return r;
                if (pass) {
                    ecs__snap_swap_words(b + s.body, ECS__SNAP_ENTITIES_HEAD / 4u);
                    ecs__snap_swap_words(b + (e.ring - b), e.free_capacity);
                }
            } else if (s.kind == ECS__SNAP_MANAGER) {
                ecs__snap_mgr v;
                ecs__snap_field f, prev;
                uint32_t k;
                if ((r = ecs__snap_parse_manager(&rd, &s, &v, err)) != ECS_OK) return r;
                for (k = 0; k < v.num_fields && !pass; ++k) {
                    ecs__snap_field_at(&v, k, rd.swap, &f, k ? &prev : NULL);
                    prev = f;
                    if (!f.kind && f.size > 1u)
                        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                             "snapshot: %s field '%.*s' has no schema kind: its %u-byte values cannot be swapped",
                                             s.where, (int)f.name_length, f.name, (unsigned)f.size);
                }
                if (pass) ecs__snap_swap_manager(b, &s, &v, rd.swap);
            } else if ((s.body_size & 3u) != 0) {
                return ecs__snap_bad(err, s.body, s.where, "a store's bytes are 32-bit words");
            } else if (pass) {
                ecs__snap_swap_words(b + s.body, s.body_size / 4u);
            }
            if (pass) {
                ecs__snap_swap_words(b + s.offset, 2);
                ecs__snap_swap_u64(b + s.offset + 8, 1);
                ecs__snap_swap_words(b + s.offset + 16, 2);
            }
        }
    }
    if (r == ECS_OK) {
        ecs__snap_swap_words(b + 4, 3);
        ecs__snap_swap_u64(b + 16, 1);
        ecs__snap_swap_words(b + 24, 2);
    }
    return r;
}

/* -- loading -- */

/* The component called name[0..len), or ECS_WORLD_NO_COMPONENT. */
static uint32_t ecs__snap_find(const ecs_world *w, const char *name, uint32_t len)
{
    uint32_t k;
    for (k = 0; k < w->num_components; ++k)
        if (strlen(w->component[k].name) == len && memcmp(w->component[k].name, name, len) == 0) return k;
    return ECS_WORLD_NO_COMPONENT;
}

/* The name m is registered under in w. */
static const char *ecs__snap_name_of(const ecs_world *w, const ecs_manager *m)
{
    uint32_t k;
    for (k = 0; k < w->num_components; ++k)
        if (w->component[k].manager == m) return w->component[k].name;
    return "?";
}

static int ecs__snap_world_empty(const ecs_world *w)
{
    uint32_t k;
    if (w->entities.max_index || w->entities.num_free || w->entities.free_head || w->entities.num_retired) return 0;
    for (k = 0; k < w->num_components; ++k) {
        const ecs_world_component *c = &w->component[k];
        if (c->manager ? c->manager->count != 0 : c->iface->count(c->store) != 0) return 0;
    }
    return 1;
}

static void ecs__snap_clear_map(ecs_entity_map *map)
{
    uint32_t k;
    if (!map->allocated) return;
    for (k = 0; k <= map->mask; ++k) {
        map->slots[k].id = 0;
        map->slots[k].first = map->kind == ECS_LOOKUP_DENSE && k ? 0u : ECS_INSTANCE_NIL;
    }
    map->count = 0;
}

/* Empties m (keeps its allocations and settings), and sizes 0 every group
   of its chain (m->group, ->next, ...: a nested group's outer ones too). */
static void ecs__snap_clear_manager(ecs_manager *m)
{
    ecs_group *g;
    if (m->lookup == ECS_LOOKUP_DIRECT && m->count) memset(m->entity, 0, (size_t)m->count * sizeof *m->entity);
    ecs__snap_clear_map(&m->map);
    m->count = 0;
    m->num_instances = 0;
    ++m->version; /* the slots change under any query's remembered runs */
    m->rng = 0x9E3779B9u;
    memset(&m->log, 0, sizeof m->log);
    for (g = m->group; g; g = g->next) g->size = 0;
}

static void ecs__snap_clear_entities(ecs_entity_manager *em)
{
    ECS__FREE(em->generation);
    ECS__FREE(em->free_ring);
    em->generation = NULL;
    em->free_ring = NULL;
    em->max_index = em->capacity = em->free_head = em->num_free = em->free_capacity = em->num_retired = 0;
    ecs_entity_manager_invalidate(em);
}

/* Empties the world (its registrations stay). */
static void ecs__snap_clear_world(ecs_world *w)
{
    uint32_t k;
    ecs__snap_clear_entities(&w->entities);
    for (k = 0; k < w->num_components; ++k) {
        ecs_world_component *c = &w->component[k];
        if (c->manager) ecs__snap_clear_manager(c->manager);
        else if (c->iface->clear) c->iface->clear(c->store);
    }
}

/* Gives em its life stamp (ecs.h stamps a manager at its first allocation,
   and destroy-log cursors compare it): a create on a manager that never
   allocated does it; what it created is replaced by the caller. */
static ecs_result ecs__snap_stamp(ecs_entity_manager *em, ecs_error *err)
{
    if (em->life) return ECS_OK;
    if (ecs_entity_create(em).id == 0)
        return ecs_error_set(err, em->error.code, "snapshot: %s", em->error.message);
    return ECS_OK;
}

static ecs_result ecs__snap_load_entities(ecs_entity_manager *em, const ecs__snap_ents *e, ecs_error *err)
{
    uint32_t cap = e->max_index + 1u < 1024u ? 1024u : e->max_index + 1u;
    uint8_t *g;
    uint32_t *ring;
    ecs_result r = ecs__snap_stamp(em, err);
    if (r != ECS_OK) return r;
    g = (uint8_t *)ECS__REALLOC(NULL, cap);
    ring = e->free_capacity ? (uint32_t *)ECS__REALLOC(NULL, (size_t)e->free_capacity * 4u) : NULL;
    if (!g || (e->free_capacity && !ring)) {
        ECS__FREE(g);
        ECS__FREE(ring);
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_load: out of memory for %u entities",
                             (unsigned)e->max_index);
    }
    memcpy(g, e->generation, (size_t)e->max_index + 1u);
    memset(g + e->max_index + 1u, 0, cap - e->max_index - 1u);
    if (ring) memcpy(ring, e->ring, (size_t)e->free_capacity * 4u);
    ecs__snap_clear_entities(em);
    em->generation = g;
    em->capacity = cap;
    em->max_index = e->max_index;
    em->free_ring = ring;
    em->free_capacity = e->free_capacity;
    em->free_head = e->free_head;
    em->num_free = e->num_free;
    em->num_retired = e->num_retired;
    ecs_entity_manager_invalidate(em); /* its queued bits come from the new ring */
    return ECS_OK;
}

/* Every field of v, in order (out: v->num_fields entries). */
static void ecs__snap_fields(const ecs__snap_mgr *v, ecs__snap_field *out)
{
    uint32_t k;
    for (k = 0; k < v->num_fields; ++k) ecs__snap_field_at(v, k, 0, out + k, k ? out + k - 1 : NULL);
}

/* Where each of m's fields comes from (from[k]: a field of sf, or
   ECS__SNAP_NONE: the default); checks kinds and sizes; notes what is
   dropped and defaulted in rep (may be NULL). */
static ecs_result ecs__snap_map_fields(const ecs_manager *m, const char *name, const ecs__snap_mgr *v,
                                       const ecs__snap_field *sf, uint32_t *from, ecs_snapshot_report *rep, ecs_error *err)
{
    uint32_t k, j;
    if (!m->schema) {
        if (v->num_fields != m->num_fields)
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "ecs_snapshot_load: component '%s' has %u fields and no schema, the snapshot %u",
                                 name, (unsigned)m->num_fields, (unsigned)v->num_fields);
        for (k = 0; k < m->num_fields; ++k) {
            const char *fn = m->fields[k].name ? m->fields[k].name : "";
            if (sf[k].size != m->fields[k].size || sf[k].name_length != strlen(fn) || memcmp(sf[k].name, fn, sf[k].name_length) != 0)
                return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                     "ecs_snapshot_load: component '%s' field %u '%s' (%u bytes, no schema) is '%.*s' of %u bytes in the snapshot",
                                     name, (unsigned)k, fn, (unsigned)m->fields[k].size, (int)sf[k].name_length, sf[k].name,
                                     (unsigned)sf[k].size);
            from[k] = k;
        }
        return ECS_OK;
    }
    for (k = 0; k < m->num_fields; ++k) {
        const ecs_schema_field *f = &m->schema->fields[k];
        size_t len = strlen(f->name);
        from[k] = ECS__SNAP_NONE;
        for (j = 0; j < v->num_fields && from[k] == ECS__SNAP_NONE; ++j)
            if (sf[j].name_length == len && memcmp(sf[j].name, f->name, len) == 0) from[k] = j;
        if (from[k] == ECS__SNAP_NONE) {
            if (rep) ++rep->defaulted;
            ecs__snap_note(rep, "%s.%s: not in the snapshot, set to its default\n", name, f->name);
            continue;
        }
        j = from[k];
        if (sf[j].size != m->fields[k].size || (sf[j].kind && sf[j].kind != (uint32_t)f->kind))
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "ecs_snapshot_load: component '%s' field '%s' is %s (%u bytes), the snapshot has %s (%u bytes)",
                                 name, f->name, ecs_field_kind_name(f->kind), (unsigned)m->fields[k].size,
                                 sf[j].kind ? ecs_field_kind_name((ecs_field_kind)sf[j].kind) : "a field without kind",
                                 (unsigned)sf[j].size);
    }
    for (j = 0; j < v->num_fields && rep; ++j) {
        for (k = 0; k < m->num_fields && from[k] != j; ++k) continue;
        if (k < m->num_fields) continue;
        ++rep->dropped;
        ecs__snap_note(rep, "%s.%.*s: not in the schema, dropped\n", name, (int)sf[j].name_length, sf[j].name);
    }
    return ECS_OK;
}

/* Fills field k of instances [0, n) with its default (schema managers). */
static void ecs__snap_default(ecs_manager *m, uint32_t k, const ecs__schema_info *si, uint32_t n)
{
    const ecs__schema_slot *f = &si->fields[k];
    unsigned char *base = (unsigned char *)m->field[k];
    uint32_t i, size = m->fields[k].size;
    static const unsigned char zero[64] = {0};
    const unsigned char *value = f->runtime || f->required || f->kind == ECS_FIELD_ENTITY ? zero : f->initial;
    for (i = 0; i < n; ++i) memcpy(base + (size_t)i * size, value, size);
}

/* Loads a parsed manager section into the empty manager m, checking its
   ids (indices at most max_index) and links as it builds the map. */
static ecs_result ecs__snap_load_manager(ecs_world *w, ecs_manager *m, const char *name, const ecs__snap_sec *s,
                                         const ecs__snap_mgr *v, uint32_t max_index, ecs_snapshot_report *rep,
                                         ecs_error *err)
{
    ecs__snap_field *sf = (ecs__snap_field *)ECS__REALLOC(NULL, ((size_t)v->num_fields + 1u) * sizeof *sf);
    uint32_t *from = (uint32_t *)ECS__REALLOC(NULL, ((size_t)m->num_fields + 1u) * sizeof *from), k, defaults = 0;
    ecs__schema_info *si = NULL;
    ecs_result r = ECS_OK;
    if (!sf || !from) r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_load: out of memory");
    if (r == ECS_OK) {
        ecs__snap_fields(v, sf);
        r = ecs__snap_map_fields(m, name, v, sf, from, rep, err);
    }
    for (k = 0; k < m->num_fields && r == ECS_OK; ++k) defaults += from[k] == ECS__SNAP_NONE;
    if (r == ECS_OK && defaults) r = ecs__schema_build(name, m->schema->fields, m->schema->num_fields, &si, err);
    if (r == ECS_OK && v->count && ecs_manager_reserve(m, v->count) != ECS_OK)
        r = ecs_error_set(err, m->error.code, "ecs_snapshot_load: '%s': %s", name, m->error.message);
    if (r == ECS_OK && v->next && !m->next && !(m->next = (uint32_t *)ECS__REALLOC(NULL, (size_t)(m->capacity ? m->capacity : 1u) * 4u)))
        r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_load: out of memory");
    if (r == ECS_OK)
        r = v->lookup == ECS_LOOKUP_DIRECT ? ECS_OK : ecs__snap_links(s, v, max_index, &m->map, err); /* direct: verify did */
    if (r == ECS_OK) {
        if (v->count) memcpy(m->entity, v->entity, (size_t)v->count * 4u);
        if (v->next) memcpy(m->next, v->next, (size_t)v->count * 4u);
        else if (m->next && v->count) memset(m->next, 0xFF, (size_t)v->count * 4u);
        for (k = 0; k < m->num_fields; ++k) {
            if (from[k] == ECS__SNAP_NONE) ecs__snap_default(m, k, si, v->count);
            else if (v->count) memcpy(m->field[k], sf[from[k]].data, (size_t)v->count * m->fields[k].size);
        }
        m->count = v->count;
        m->num_instances = v->num_instances;
        m->rng = v->rng;
        m->log.em = (v->flags & ECS__SNAP_LOG_WORLD) ? &w->entities : NULL;
        m->log.life = (v->flags & ECS__SNAP_LOG_WORLD) ? w->entities.life : 0u;
        m->log.next = v->log_next;
        m->log.retired = v->log_retired; /* (group sizes: ecs__snap_group_sizes, from the data) */
    }
    ECS__FREE(si);
    ECS__FREE(sf);
    ECS__FREE(from);
    return r;
}

/* One pass over the sections: pass 0 checks that each can be loaded into
   w (nothing changes); pass 1 loads. */
static ecs_result ecs__snap_run(ecs_world *w, const void *blob, size_t size, uint32_t flags, int pass,
                                ecs_snapshot_report *rep, ecs_error *err)
{
    ecs__snap_reader rd;
    ecs__snap_sec s;
    ecs_result r = ecs__snap_open(&rd, blob, size, 0, err);
    uint32_t max_index = 0;
    int more;
    while (r == ECS_OK && (more = ecs__snap_next(&rd, &s, err)) > 0) {
        ecs__snap_ents e;
        ecs__snap_mgr v;
        uint32_t k;
        const ecs_world_component *c;
        if (s.kind == ECS__SNAP_ENTITIES) {
            r = ecs__snap_parse_entities(&rd, &s, &e, err);
            max_index = e.max_index;
            if (r == ECS_OK && pass) r = ecs__snap_load_entities(&w->entities, &e, err);
            continue;
        }
        k = ecs__snap_find(w, s.name, s.name_length);
        if (k == ECS_WORLD_NO_COMPONENT) {
            /* skipped, but checked as verify would (the loaded ones are checked as they load) */
            if (!pass && s.kind == ECS__SNAP_MANAGER && (r = ecs__snap_parse_manager(&rd, &s, &v, err)) == ECS_OK)
                r = ecs__snap_check_manager(&s, &v, max_index, err);
            if (r != ECS_OK) break;
            if (flags & ECS_SNAPSHOT_STRICT)
                r = ecs_error_set(err, ECS_ERROR_UNKNOWN_COMPONENT, "ecs_snapshot_load: %s: the world has no such store",
                                  s.where);
            else if (pass && rep) {
                ++rep->skipped;
                ecs__snap_note(rep, "%.*s: the world has no such store, skipped\n", (int)s.name_length, s.name);
            }
            continue;
        }
        c = &w->component[k]; /* (one section per store: verify refused a second one) */
        if ((s.kind == ECS__SNAP_MANAGER) != (c->manager != NULL)) {
            r = ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_load: '%s' is %s in the world and %s in the snapshot",
                              c->name, c->manager ? "a manager" : "a store", c->manager ? "a store" : "a manager");
        } else if (s.kind == ECS__SNAP_STORE) {
            if (!c->iface->load || !c->iface->clear || c->iface->save_version != s.version)
                r = ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                  "ecs_snapshot_load: store '%s' %s (the snapshot's bytes are version %u, it reads %u)",
                                  c->name, c->iface->load && c->iface->clear ? "reads another version" : "has no load or clear",
                                  (unsigned)s.version, (unsigned)c->iface->save_version);
            else if (pass)
                r = c->iface->load(c->store, rd.b + s.body, s.body_size, err);
        } else if ((r = ecs__snap_parse_manager(&rd, &s, &v, err)) == ECS_OK) {
            if (v.lookup != (uint32_t)c->manager->lookup)
                r = ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                  "ecs_snapshot_load: component '%s' has lookup kind %u, the snapshot %u", c->name,
                                  (unsigned)c->manager->lookup, (unsigned)v.lookup);
            else if (pass)
                r = ecs__snap_load_manager(w, c->manager, c->name, &s, &v, max_index, rep, err);
            else {
                ecs__snap_field *sf = (ecs__snap_field *)ECS__REALLOC(NULL, ((size_t)v.num_fields + 1u) * sizeof *sf);
                uint32_t *from = (uint32_t *)ECS__REALLOC(NULL, ((size_t)c->manager->num_fields + 1u) * sizeof *from);
                if (!sf || !from) r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_load: out of memory");
                else {
                    ecs__snap_fields(&v, sf);
                    r = ecs__snap_map_fields(c->manager, c->name, &v, sf, from, NULL, err);
                }
                ECS__FREE(sf);
                ECS__FREE(from);
            }
        }
    }
    return r;
}

/* The groups of w's managers (those the world made and those made with
   ecs_group_init over its managers), each once, at its lead member: start
   with *c = 0 and g = NULL, pass the last one back; NULL after the last. */
static ecs_group *ecs__snap_next_group(const ecs_world *w, uint32_t *c, ecs_group *g)
{
    while (*c < w->num_components) {
        const ecs_manager *m = w->component[*c].manager;
        g = g ? g->next : (m ? m->group : NULL);
        while (g && g->member[0] != m) g = g->next;
        if (g) return g;
        ++*c;
    }
    return NULL;
}

/* Every group of w's managers gets its size from the data: the longest run
   of instances, from 0, that every member holds for the same entities (a
   manager's record keeps only its outermost group's size; nested groups
   are prefixes inside it). Then the group must keep its invariant after the
   load or clone (what: the caller's name, source: what it copied from): no
   member holds two instances of one entity, and no entity past that size
   owns every member (a snapshot or a world of other groups, or of some
   members only, breaks it). */
static ecs_result ecs__snap_group_sizes(ecs_world *w, const char *what, const char *source, ecs_error *err)
{
    uint32_t c = 0, k, i, size;
    ecs_group *g = NULL;
    while ((g = ecs__snap_next_group(w, &c, g)) != NULL) {
        const ecs_manager *lead = g->member[0];
        for (k = 0; k < g->num_members && (i = ecs__manager_first_twice(g->member[k])) == g->member[k]->count; ++k) {}
        if (k < g->num_members) {
            char who[ECS_ENTITY_TEXT_SIZE];
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "%s: the group of '%s': member '%s' owns two instances of %s in the %s (a member holds "
                                 "one per entity)", what, ecs__snap_name_of(w, lead), ecs__snap_name_of(w, g->member[k]),
                                 ecs_entity_format(who, sizeof who, g->member[k]->entity[i]), source);
        }
        for (size = 0; size < lead->count; ++size) {
            for (k = 1; k < g->num_members; ++k)
                if (size >= g->member[k]->count || g->member[k]->entity[size].id != lead->entity[size].id) break;
            if (k < g->num_members) break;
        }
        g->size = size;
        for (i = size; i < lead->count; ++i) {
            for (k = 1; k < g->num_members && !ecs_instance_is_nil(ecs_manager_lookup(g->member[k], lead->entity[i])); ++k) continue;
            if (k == g->num_members)
                return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                     "%s: the group of '%s' is not kept by the %s (without the group, or without some of its "
                                     "members)", what, ecs__snap_name_of(w, lead), source);
        }
    }
    return ECS_OK;
}

ECS_DEF ecs_result ecs_snapshot_load(ecs_world *w, const void *blob, size_t size, uint32_t flags,
                                     ecs_snapshot_report *report, ecs_error *err)
{
    ecs_result r;
    if (report) memset(report, 0, sizeof *report);
    if (!w) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_load: world is NULL");
    /* verify's checks (the stores' sections through their hooks), those of
       the managers' ids and links once, while the load builds their maps
       (ecs__snap_links) */
    if ((r = ecs__snap_verify(w, blob, size, 2, err)) != ECS_OK) return r;
    if (!(flags & ECS_SNAPSHOT_REPLACE) && !ecs__snap_world_empty(w))
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_snapshot_load: the world is not empty (load into a fresh world with the same "
                             "registrations, or pass ECS_SNAPSHOT_REPLACE)");
    if ((r = ecs__snap_run(w, blob, size, flags, 0, NULL, err)) != ECS_OK) return r;
    if (flags & ECS_SNAPSHOT_REPLACE) ecs__snap_clear_world(w);
    r = ecs__snap_run(w, blob, size, flags, 1, report, err);
    if (r == ECS_OK) r = ecs__snap_group_sizes(w, "ecs_snapshot_load", "snapshot", err);
    if (r != ECS_OK) {
        ecs__snap_clear_world(w);
        if (report) memset(report, 0, sizeof *report);
    }
    return r;
}

/* -- clone -- */

static ecs_result ecs__snap_copy_entities(ecs_entity_manager *d, const ecs_entity_manager *s, ecs_error *err)
{
    ecs_result r = ecs__snap_stamp(d, err);
    if (r != ECS_OK) return r;
    if (d->capacity < s->max_index + 1u) {
        uint8_t *g = (uint8_t *)ECS__REALLOC(d->generation, s->capacity);
        if (!g) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_clone: out of memory");
        memset(g + d->capacity, 0, s->capacity - d->capacity);
        d->generation = g;
        d->capacity = s->capacity;
    }
    if (d->free_capacity != s->free_capacity) {
        uint32_t *ring = s->free_capacity ? (uint32_t *)ECS__REALLOC(NULL, (size_t)s->free_capacity * 4u) : NULL;
        if (s->free_capacity && !ring) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_clone: out of memory");
        ECS__FREE(d->free_ring);
        d->free_ring = ring;
        d->free_capacity = s->free_capacity;
    }
    if (s->generation) memcpy(d->generation, s->generation, (size_t)s->max_index + 1u);
    if (d->max_index > s->max_index) memset(d->generation + s->max_index + 1u, 0, d->max_index - s->max_index);
    if (s->free_capacity) memcpy(d->free_ring, s->free_ring, (size_t)s->free_capacity * 4u);
    d->max_index = s->max_index;
    d->free_head = s->free_head;
    d->num_free = s->num_free;
    d->num_retired = s->num_retired;
    ecs_entity_manager_invalidate(d); /* its queued bits come from the copied ring */
    return ECS_OK;
}

static ecs_result ecs__snap_copy_manager(ecs_manager *d, const ecs_manager *s, ecs_entity_manager *dem,
                                         const ecs_entity_manager *sem, ecs_error *err)
{
    uint32_t k;
    ecs_result r;
    if (s->count && ecs_manager_reserve(d, s->count) != ECS_OK)
        return ecs_error_set(err, d->error.code, "ecs_snapshot_clone: %s", d->error.message);
    if (s->next && !d->next && !(d->next = (uint32_t *)ECS__REALLOC(NULL, (size_t)(d->capacity ? d->capacity : 1u) * 4u)))
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_clone: out of memory");
    if ((r = ecs_entity_map_copy(&d->map, &s->map, err)) != ECS_OK) return r;
    if (s->count) memcpy(d->entity, s->entity, (size_t)s->count * sizeof *d->entity);
    if (d->lookup == ECS_LOOKUP_DIRECT && d->count > s->count)
        memset(d->entity + s->count, 0, (size_t)(d->count - s->count) * sizeof *d->entity);
    if (s->next && s->count) memcpy(d->next, s->next, (size_t)s->count * 4u);
    else if (d->next && s->count) memset(d->next, 0xFF, (size_t)s->count * 4u);
    for (k = 0; k < d->num_fields; ++k)
        if (s->count) memcpy(d->field[k], s->field[k], (size_t)s->count * d->fields[k].size);
    d->count = s->count;
    d->num_instances = s->num_instances;
    ++d->version; /* the slots change under any query's remembered runs */
    d->rng = s->rng;
    d->log.em = s->log.em == sem ? dem : NULL;
    d->log.life = s->log.em == sem ? dem->life : 0u;
    d->log.next = s->log.next;
    d->log.retired = s->log.retired; /* (group sizes: ecs__snap_group_sizes, from the data) */
    return ECS_OK;
}

/* dst's manager b (the store name) holds what src's a does, field by field:
   the same names (NULL as "") and sizes, and the same kinds when both have
   schemas (a clone copies the bytes by index). */
static ecs_result ecs__snap_check_clone_fields(const ecs_manager *a, const ecs_manager *b, const char *name, ecs_error *err)
{
    uint32_t f;
    for (f = 0; f < a->num_fields; ++f) {
        const char *an = a->fields[f].name ? a->fields[f].name : "", *bn = b->fields[f].name ? b->fields[f].name : "";
        uint32_t ak = ecs__snap_kind_of(a, f), bk = ecs__snap_kind_of(b, f);
        if (a->fields[f].size != b->fields[f].size || strcmp(an, bn) != 0 || (a->schema && b->schema && ak != bk))
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "ecs_snapshot_clone: component '%s' field %u is '%s' (%s, %u bytes) in the source world "
                                 "and '%s' (%s, %u bytes) in the target", name, (unsigned)f, an,
                                 ak ? ecs_field_kind_name((ecs_field_kind)ak) : "no kind", (unsigned)a->fields[f].size, bn,
                                 bk ? ecs_field_kind_name((ecs_field_kind)bk) : "no kind", (unsigned)b->fields[f].size);
    }
    return ECS_OK;
}

/* One interface store's saved bytes (a clone's save-then-load path). */
typedef struct ecs__snap_bytes {
    unsigned char *data;
    size_t size;
} ecs__snap_bytes;

/* Every store of src is in dst, laid out alike. */
static ecs_result ecs__snap_check_clone(const ecs_world *dst, const ecs_world *src, ecs_error *err)
{
    uint32_t k, j;
    for (k = 0; k < src->num_components; ++k) {
        const ecs_world_component *c = &src->component[k], *dc;
        j = ecs_world_find(dst, c->name);
        if (j == ECS_WORLD_NO_COMPONENT)
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_clone: the target has no store '%s'", c->name);
        dc = &dst->component[j];
        if ((dc->manager != NULL) != (c->manager != NULL) ||
            (!c->manager && (!c->iface->save || !dc->iface->load || !dc->iface->clear || c->iface->save_version != dc->iface->save_version)))
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_clone: store '%s' differs in kind, or cannot save and load",
                                 c->name);
        if (c->manager) {
            const ecs_manager *a = c->manager, *b = dc->manager;
            ecs_result r;
            if (a->lookup != b->lookup || a->num_fields != b->num_fields)
                return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_clone: component '%s' is laid out differently in the target",
                                     c->name);
            if ((r = ecs__snap_check_clone_fields(a, b, c->name, err)) != ECS_OK) return r;
        }
    }
    return ECS_OK;
}

/* src's store of the name of dst's component dc, or NULL. */
static const ecs_world_component *ecs__snap_clone_source(const ecs_world *src, const ecs_world_component *dc)
{
    uint32_t j = ecs_world_find(src, dc->name);
    return j == ECS_WORLD_NO_COMPONENT ? NULL : &src->component[j];
}

/* A clone's steps that may refuse, before the rest is written: each
   interface store without a shared copy hook saves its bytes into
   bytes[k] (k: dst's component) and dst's store verifies them (its
   settings too), reading only; then the stores with a copy hook are
   copied (each checks everything before it writes). *written: whether dst
   changed (a copy refused after another succeeded). */
static ecs_result ecs__snap_clone_stores(ecs_world *dst, const ecs_world *src, ecs__snap_bytes *bytes, int *written,
                                         ecs_error *err)
{
    uint32_t k, pass;
    ecs_result r = ECS_OK;
    *written = 0;
    for (pass = 0; pass < 2; ++pass)
        for (k = 0; k < dst->num_components && r == ECS_OK; ++k) {
            ecs_world_component *dc = &dst->component[k];
            const ecs_world_component *c = ecs__snap_clone_source(src, dc);
            int copy = c && !c->manager && c->iface->copy && dc->iface->copy == c->iface->copy;
            if (!c || c->manager || copy != (int)pass) continue;
            if (pass) {
                if ((r = c->iface->copy(dc->store, c->store, err)) == ECS_OK) *written = 1;
                continue;
            }
            bytes[k].size = c->iface->save(c->store, NULL, 0);
            if (!(bytes[k].data = (unsigned char *)ECS__REALLOC(NULL, bytes[k].size ? bytes[k].size : 1u))) {
                r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_clone: out of memory");
                break;
            }
            (void)c->iface->save(c->store, bytes[k].data, bytes[k].size);
            /* another type of store may save the same version: its load
               takes only bytes its verify passed */
            if (dc->iface->verify)
                r = dc->iface->verify(dc->store, bytes[k].data, bytes[k].size, src->entities.max_index, 0, err);
        }
    return r;
}

ECS_DEF ecs_result ecs_snapshot_clone(ecs_world *dst, const ecs_world *src, ecs_error *err)
{
    uint32_t k;
    ecs_result r;
    int written = 0;
    ecs__snap_bytes *bytes;
    if (!dst || !src || dst == src) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_clone: two distinct worlds needed");
    if ((r = ecs__snap_check_clone(dst, src, err)) != ECS_OK) return r;
    bytes = (ecs__snap_bytes *)ECS__REALLOC(NULL, ((size_t)dst->num_components + 1u) * sizeof *bytes);
    if (!bytes) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_clone: out of memory");
    memset(bytes, 0, ((size_t)dst->num_components + 1u) * sizeof *bytes);
    r = ecs__snap_clone_stores(dst, src, bytes, &written, err);
    if (r == ECS_OK) {
        written = 1;
        r = ecs__snap_copy_entities(&dst->entities, &src->entities, err);
    }
    for (k = 0; k < dst->num_components && r == ECS_OK; ++k) {
        ecs_world_component *dc = &dst->component[k];
        const ecs_world_component *c = ecs__snap_clone_source(src, dc);
        if (!c) {
            if (dc->manager) ecs__snap_clear_manager(dc->manager);
            else if (dc->iface->clear) dc->iface->clear(dc->store);
        } else if (c->manager) {
            r = ecs__snap_copy_manager(dc->manager, c->manager, &dst->entities, &src->entities, err);
        } else if (bytes[k].data) { /* (a store with a copy hook: copied already) */
            dc->iface->clear(dc->store);
            r = dc->iface->load(dc->store, bytes[k].data, bytes[k].size, err);
        }
    }
    for (k = 0; k < dst->num_components; ++k) ECS__FREE(bytes[k].data);
    ECS__FREE(bytes);
    if (r == ECS_OK) r = ecs__snap_group_sizes(dst, "ecs_snapshot_clone", "source world", err); /* nested: from the data */
    if (r != ECS_OK && written) ecs__snap_clear_world(dst);
    return r;
}

/* -- the hash: ecs_snapshot_world_hash and ecs_snapshot_blob_hash --

   Two levels. The bytes are cut into blocks of at most
   ECS_SNAPSHOT_HASH_BLOCK bytes: a blob's from its start (the last one
   shorter); a world's save also at the start of each section, each array
   and each span a store's visit_state gives (ecs__hash_cut), so that an
   array that grows or shrinks moves the blocks after it without changing
   them. A block's digest: eight independent lanes, each taking every
   eighth little-endian 64-bit word of the block: lane = rotl((lane ^
   word) * P1, 29), the last partial 64 bytes zero-padded; the lanes
   rotated by 8k - 1 bits (k > 0) and xored with each other and the block's
   byte count times P1, then mixed (murmur3's fmix64). The hash: one
   chain over the digests in order, chain = rotl((chain ^ digest) * P1,
   29), folded with the total byte count and mixed. Each step is a
   bijection of its state for a given input and of the input for a given
   state, and the fold is a bijection of any one lane, so a change in one word
   always changes the result; changes in several words cancel with a chance
   of about 2^-64 for unrelated data. Fast (the lanes are independent; a
   digest costs about an eighth more than the words it covers), not
   cryptographic. The words are read as little-endian whatever the machine
   and wherever the bytes lie (memcpy), so a blob's hash is the same on
   every machine. A stream fed in pieces hashes as the pieces joined. The
   digests are what ecs_snapshot_world_digest keeps: two blocks of the
   same digest hold the same bytes. */

#define ECS__HASH_P1 0x9E3779B97F4A7C15ull
#define ECS__HASH_P2 0xC2B2AE3D27D4EB4Full
#define ECS__HASH_CHUNKS (ECS_SNAPSHOT_HASH_BLOCK / 64u) /* 64-byte steps in a block */

/* A tap on the hash's closed blocks (ecs_snapshot_world_digest_delta).
   The common block, the one base holds where the tap expects it (the
   state unchanged there: after a copy, base's next block; after a changed
   block, base's block in its place), starts or lengthens a run, here; any
   other goes to `block` with its bytes (the run first: ctx reads and ends
   it, and says where to expect the next): its first num_staged bytes in
   stage (they came in earlier feeds, whose bytes may be gone), the rest at
   the feed under way. */
typedef struct ecs__hash_tap {
    void (*block)(void *ctx, struct ecs__hash_tap *t, uint64_t digest, uint64_t size, const unsigned char *rest,
                  size_t num_rest);
    void *ctx;
    const ecs_snapshot_digest *base;
    size_t next;               /* base's block expected next (base->num_blocks: none) */
    uint64_t floor;            /* a run starts at or after this offset of base (copies go forward) */
    size_t run_from;           /* the run: base's blocks from run_from on, run bytes (0: none) */
    uint64_t run;
    const unsigned char *feed; /* the feed under way (NULL: none), whose first byte is the stream's feed_at */
    uint64_t feed_at;
    unsigned char stage[ECS_SNAPSHOT_HASH_BLOCK];
    size_t staged;
} ecs__hash_tap;

typedef struct ecs__hash {
    uint64_t lane[8], start[8], chain, total, seed; /* start: every block's lanes at its start */
    uint64_t block_start;                 /* the open block's first byte */
    unsigned char buf[64];
    size_t fill;                          /* bytes waiting in buf (the open block's) */
    uint32_t chunks;                      /* 64-byte steps of the open block done */
    ecs_snapshot_digest *keep;            /* else NULL: each block's digest appended (ecs_snapshot_world_digest) */
    ecs__hash_tap *tap;                   /* else NULL: each block's digest and bytes handed over */
} ecs__hash;

static void ecs__hash_open_block(ecs__hash *h)
{
    memcpy(h->lane, h->start, sizeof h->lane);
    h->chunks = 0;
    h->block_start = h->total;
}

static void ecs__hash_init(ecs__hash *h, uint64_t seed)
{
    uint32_t k;
    memset(h, 0, sizeof *h);
    h->seed = seed;
    for (k = 0; k < 8u; ++k) h->start[k] = seed + (uint64_t)(k + 1u) * ECS__HASH_P2;
    h->chain = seed ^ ECS__HASH_P1;
    ecs__hash_open_block(h);
}

static uint64_t ecs__hash_rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t ecs__hash_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ull;
    x ^= x >> 33;
    return x;
}

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ECS__HASH_WORD(p) ecs__hash_word_le(p)
static uint64_t ecs__hash_word_le(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
#else
#define ECS__HASH_WORD(p) ecs__hash_word_any(p)
static uint64_t ecs__hash_word_any(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return ecs__res_host_big_endian() ? ecs__res_bswap64(v) : v;
}
#endif

/* How far ahead of the block it hashes the hash asks for bytes (a hint: a
   prefetch never faults, past the end included). Without it a hash of a
   big blob ran at two thirds of the speed a plain sum reads memory at. */
#define ECS__HASH_AHEAD 2048u
#if defined(__GNUC__) || defined(__clang__)
#define ECS__SNAP_PREFETCH(p) __builtin_prefetch(p)
#else
#define ECS__SNAP_PREFETCH(p) ((void)(p))
#endif

/* n whole 64-byte steps at p, inside one block. */
static void ecs__hash_blocks(uint64_t *lane, const unsigned char *p, size_t n)
{
    uint64_t a = lane[0], b = lane[1], c = lane[2], d = lane[3], e = lane[4], f = lane[5], g = lane[6], h = lane[7];
    for (; n; --n, p += 64) {
        ECS__SNAP_PREFETCH(p + ECS__HASH_AHEAD);
        a = ecs__hash_rotl((a ^ ECS__HASH_WORD(p)) * ECS__HASH_P1, 29);
        b = ecs__hash_rotl((b ^ ECS__HASH_WORD(p + 8)) * ECS__HASH_P1, 29);
        c = ecs__hash_rotl((c ^ ECS__HASH_WORD(p + 16)) * ECS__HASH_P1, 29);
        d = ecs__hash_rotl((d ^ ECS__HASH_WORD(p + 24)) * ECS__HASH_P1, 29);
        e = ecs__hash_rotl((e ^ ECS__HASH_WORD(p + 32)) * ECS__HASH_P1, 29);
        f = ecs__hash_rotl((f ^ ECS__HASH_WORD(p + 40)) * ECS__HASH_P1, 29);
        g = ecs__hash_rotl((g ^ ECS__HASH_WORD(p + 48)) * ECS__HASH_P1, 29);
        h = ecs__hash_rotl((h ^ ECS__HASH_WORD(p + 56)) * ECS__HASH_P1, 29);
    }
    lane[0] = a;
    lane[1] = b;
    lane[2] = c;
    lane[3] = d;
    lane[4] = e;
    lane[5] = f;
    lane[6] = g;
    lane[7] = h;
}

/* Appends a block's digest to h->keep (grown by half; out of memory: noted,
   the digests dropped, the hash goes on). */
static void ecs__hash_keep(ecs__hash *h, uint64_t digest)
{
    ecs_snapshot_digest *d = h->keep;
    if (d->oom) return;
    if (d->num_blocks == d->capacity) {
        size_t cap = d->capacity ? d->capacity + d->capacity / 2u : 256u;
        ecs_snapshot_digest_block *p = cap > SIZE_MAX / sizeof *p ? NULL
                                     : (ecs_snapshot_digest_block *)ECS__REALLOC(d->block, cap * sizeof *p);
        if (!p) {
            d->oom = 1;
            return;
        }
        d->block = p;
        d->capacity = cap;
    }
    d->block[d->num_blocks].offset = h->block_start;
    d->block[d->num_blocks++].digest = digest;
}

/* The closed block to h->tap: the run longer, or handed over with its bytes. */
static void ecs__hash_tap_block(ecs__hash *h, uint64_t digest)
{
    ecs__hash_tap *t = h->tap;
    const ecs_snapshot_digest *b = t->base;
    uint64_t size = h->total - h->block_start, from;
    const unsigned char *rest;
    if (t->next < b->num_blocks && b->block[t->next].digest == digest &&
        (t->next + 1u < b->num_blocks ? b->block[t->next + 1u].offset : b->size) - b->block[t->next].offset == size &&
        (t->run || b->block[t->next].offset >= t->floor)) {
        if (!t->run) t->run_from = t->next;
        t->next++;
        t->run += size;
        t->staged = 0;
        return;
    }
    from = h->block_start > t->feed_at ? h->block_start : t->feed_at;
    rest = t->feed ? t->feed + (from - t->feed_at) : NULL;
    t->block(t->ctx, t, digest, size, rest, rest ? (size_t)(h->total - from) : 0u);
    t->staged = 0;
}

/* Closes the open block (its bytes all stepped): its digest joins the chain. */
static void ecs__hash_close_block(ecs__hash *h)
{
    const uint64_t *l = h->lane;
    uint64_t x = (h->total - h->block_start) * ECS__HASH_P1;
    x ^= l[0] ^ ecs__hash_rotl(l[1], 7) ^ ecs__hash_rotl(l[2], 15) ^ ecs__hash_rotl(l[3], 23);
    x ^= ecs__hash_rotl(l[4], 31) ^ ecs__hash_rotl(l[5], 39) ^ ecs__hash_rotl(l[6], 47) ^ ecs__hash_rotl(l[7], 55);
    x = ecs__hash_mix(x);
    h->chain = ecs__hash_rotl((h->chain ^ x) * ECS__HASH_P1, 29);
    if (h->keep) ecs__hash_keep(h, x);
    if (h->tap) ecs__hash_tap_block(h, x);
    ecs__hash_open_block(h);
}

/* n whole 64-byte steps at p inside the open block (h->total counts them
   already); a block that fills up is closed. */
static void ecs__hash_steps(ecs__hash *h, const unsigned char *p, size_t n)
{
    ecs__hash_blocks(h->lane, p, n);
    h->chunks += (uint32_t)n;
    if (h->chunks == ECS__HASH_CHUNKS) ecs__hash_close_block(h);
}

static void ecs__hash_feed_bytes(ecs__hash *h, const unsigned char *p, size_t n)
{
    while (n) {
        if (h->fill || n < 64u) { /* through the buffer */
            size_t take = 64u - h->fill < n ? 64u - h->fill : n;
            memcpy(h->buf + h->fill, p, take);
            h->fill += take;
            h->total += take;
            p += take;
            n -= take;
            if (h->fill < 64u) return;
            h->fill = 0;
            ecs__hash_steps(h, h->buf, 1);
        } else {
            size_t m = n / 64u < ECS__HASH_CHUNKS - h->chunks ? n / 64u : ECS__HASH_CHUNKS - h->chunks;
            h->total += m * 64u;
            ecs__hash_steps(h, p, m);
            p += m * 64u;
            n -= m * 64u;
        }
    }
}

/* Feeds n bytes to h; with a tap, the open block's bytes of this feed
   are staged at its end (the caller's bytes may be gone by the block's
   close). */
static void ecs__hash_feed(ecs__hash *h, const void *bytes, size_t n)
{
    ecs__hash_tap *s = h->tap;
    uint64_t from;
    if (!s) {
        ecs__hash_feed_bytes(h, (const unsigned char *)bytes, n);
        return;
    }
    s->feed = (const unsigned char *)bytes;
    s->feed_at = h->total;
    ecs__hash_feed_bytes(h, s->feed, n);
    from = h->block_start > s->feed_at ? h->block_start : s->feed_at;
    if (h->total > from) { /* (less than a block) */
        memcpy(s->stage + s->staged, s->feed + (from - s->feed_at), (size_t)(h->total - from));
        s->staged += (size_t)(h->total - from);
    }
    s->feed = NULL;
}

/* Ends the open block here (if it holds any bytes): the next byte starts
   a block. */
static void ecs__hash_cut(ecs__hash *h)
{
    if (h->fill) {
        memset(h->buf + h->fill, 0, 64u - h->fill);
        ecs__hash_blocks(h->lane, h->buf, 1);
        h->fill = 0;
    }
    if (h->total > h->block_start) ecs__hash_close_block(h);
}

static uint64_t ecs__hash_final(ecs__hash *h)
{
    ecs__hash_cut(h);
    return ecs__hash_mix(h->chain ^ h->total * ECS__HASH_P2);
}

/* ecs_state_visit_fn feeding a hash, and a cut (the world's stream). */
static void ecs__hash_visit(void *ctx, const void *bytes, size_t n) { ecs__hash_feed((ecs__hash *)ctx, bytes, n); }
static void ecs__hash_cut_at(void *ctx) { ecs__hash_cut((ecs__hash *)ctx); }

ECS_DEF uint64_t ecs_snapshot_blob_hash(const void *blob, size_t size)
{
    ecs__hash h;
    ecs__hash_init(&h, 0);
    if (blob) ecs__hash_feed(&h, blob, size);
    return ecs__hash_final(&h);
}

/* The world's whole save (this machine's byte order) fed to h, without
   writing it: 0 when out of memory (a store without visit_state copied),
   else 1. */
static int ecs__snap_hash_world(const ecs_world *w, ecs__hash *h)
{
    ecs_snapshot_digest *keep = h->keep;
    int r = ecs__snap_stream_world(w, ecs__hash_visit, ecs__hash_cut_at, h, 0);
    if (r >= 0) return r;
    ecs__hash_init(h, h->seed); /* a store's visit_state is not its save: again, from copies */
    h->keep = keep;
    if (keep) keep->num_blocks = 0;
    return ecs__snap_stream_world(w, ecs__hash_visit, ecs__hash_cut_at, h, 1) == 1;
}

ECS_DEF uint64_t ecs_snapshot_world_hash(const ecs_world *w)
{
    ecs__hash h;
    ecs__hash_init(&h, 0);
    if (!w || !ecs__snap_hash_world(w, &h)) return 0;
    return ecs__hash_final(&h);
}

ECS_DEF ecs_result ecs_snapshot_world_digest(const ecs_world *w, ecs_snapshot_digest *d, ecs_error *err)
{
    ecs__hash h;
    int ok;
    if (!w || !d) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_world_digest: %s is NULL", w ? "d" : "w");
    d->num_blocks = 0;
    d->oom = 0;
    d->hash = d->size = 0;
    ecs__hash_init(&h, 0);
    h.keep = d;
    ok = ecs__snap_hash_world(w, &h);
    if (ok) {
        d->hash = ecs__hash_final(&h); /* (its last block's digest kept too) */
        d->size = h.total;
    }
    if (!ok || d->oom) {
        d->num_blocks = 0;
        d->hash = d->size = 0;
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_world_digest: out of memory");
    }
    return ECS_OK;
}

ECS_DEF void ecs_snapshot_digest_free(ecs_snapshot_digest *d)
{
    if (!d) return;
    ECS__FREE(d->block);
    memset(d, 0, sizeof *d);
}

/* -- JSON: a snapshot as text and back -- */

/* "%.17g" of a double: always reads back as v, no read-back needed (not
   always the shortest), '.' whatever the locale. */
static void ecs__format_double17(char *buf, size_t size, double v)
{
    snprintf(buf, size, "%.17g", v);
    ecs__number_dot(buf); /* the locale's point may be more than one byte */
}

static const char *const ecs__snap_lookup_names[3] = {"hash", "dense", "direct"};

static void ecs__snap_juint(ecs__jout *o, uint64_t v)
{
    char buf[24];
    size_t at = sizeof buf;
    do {
        buf[--at] = (char)('0' + (int)(v % 10u));
        v /= 10u;
    } while (v);
    ecs__jout_add(o, buf + at, sizeof buf - at);
}

static void ecs__snap_jhex(ecs__jout *o, uint64_t v, int digits)
{
    char buf[24];
    snprintf(buf, sizeof buf, "\"#%0*llx\"", digits, (unsigned long long)v);
    ecs__jout_text(o, buf);
}

/* One float: the shortest text that reads back as it; "#bits" when it is
   not finite. */
/* Nine significant digits of a finite float, like "%.9g" (ties round up;
   reads back as the same float, through a double too: the digits are
   within 1e-8 of it relatively, the float's neighbours 6e-8 away) but with
   no snprintf: the digits come from one scaling in double arithmetic,
   whose error is far below that margin. buf: at least 17 bytes. */
static void ecs__format_float9(char *buf, float f, uint32_t bits)
{
    double a = f < 0 ? -(double)f : (double)f, s;
    char dig[9];
    uint32_t m;
    int k, n, i, len = 0;
    if (bits >> 31) buf[len++] = '-';
    if (a == 0) {
        memcpy(buf + len, "0", 2);
        return;
    }
    k = (int)floor(log10(a));
    s = a * pow(10.0, (double)(8 - k));
    if (s < 1e8) s = a * pow(10.0, (double)(8 - --k));
    else if (s >= 1e9) s = a * pow(10.0, (double)(8 - ++k));
    m = (uint32_t)(s + 0.5);
    if (m >= 1000000000u) {
        m /= 10u;
        ++k;
    }
    for (i = 8; i >= 0; --i, m /= 10u) dig[i] = (char)('0' + (char)(m % 10u));
    for (n = 9; n > 1 && dig[n - 1] == '0'; --n) {}
    if (k >= 0 && k < 9) { /* 12.5, 300 */
        for (i = 0; i <= k; ++i) buf[len++] = i < n ? dig[i] : '0';
        if (n > k + 1) buf[len++] = '.';
        for (i = k + 1; i < n; ++i) buf[len++] = dig[i];
    } else if (k < 0 && k >= -4) { /* 0.0125 */
        buf[len++] = '0';
        buf[len++] = '.';
        for (i = -1; i > k; --i) buf[len++] = '0';
        for (i = 0; i < n; ++i) buf[len++] = dig[i];
    } else { /* 1.25e-07 */
        buf[len++] = dig[0];
        if (n > 1) buf[len++] = '.';
        for (i = 1; i < n; ++i) buf[len++] = dig[i];
        buf[len++] = 'e';
        buf[len++] = k < 0 ? '-' : '+';
        if (k < 0) k = -k;
        buf[len++] = (char)('0' + (char)(k / 10));
        buf[len++] = (char)('0' + (char)(k % 10));
    }
    buf[len] = 0;
}

static void ecs__snap_jfloat(ecs__jout *o, const unsigned char *p)
{
    float f;
    uint32_t bits;
    char buf[40];
    memcpy(&f, p, 4);
    memcpy(&bits, p, 4);
    if (f != f || f > FLT_MAX || f < -FLT_MAX) {
        ecs__snap_jhex(o, bits, 8);
        return;
    }
    ecs__format_float9(buf, f, bits);
    ecs__jout_text(o, buf);
}

/* One field value by kind (raw: hex bytes). */
static void ecs__snap_jvalue(ecs__jout *o, uint32_t kind, const unsigned char *p, uint32_t size)
{
    uint32_t u, k, n = kind ? ecs__kind_elements((ecs_field_kind)kind) : 0u;
    uint64_t q;
    double d;
    int32_t s;
    char buf[40];
    switch (kind) {
    case ECS_FIELD_F32: ecs__snap_jfloat(o, p); return;
    case ECS_FIELD_VEC2: case ECS_FIELD_VEC3: case ECS_FIELD_VEC4: case ECS_FIELD_QUAT: case ECS_FIELD_MAT4:
        ecs__jout_add(o, "[", 1);
        for (k = 0; k < n; ++k) {
            if (k) ecs__jout_add(o, ", ", 2);
            ecs__snap_jfloat(o, p + 4u * k);
        }
        ecs__jout_add(o, "]", 1);
        return;
    case ECS_FIELD_F64:
        memcpy(&d, p, 8);
        memcpy(&q, p, 8);
        if (d != d || d > DBL_MAX || d < -DBL_MAX) ecs__snap_jhex(o, q, 16);
        else {
            ecs__format_double17(buf, sizeof buf, d);
            ecs__jout_text(o, buf);
        }
        return;
    case ECS_FIELD_I32:
        memcpy(&s, p, 4);
        snprintf(buf, sizeof buf, "%ld", (long)s);
        ecs__jout_text(o, buf);
        return;
    case ECS_FIELD_U32: case ECS_FIELD_ENTITY:
        memcpy(&u, p, 4);
        ecs__snap_juint(o, u);
        return;
    case ECS_FIELD_U64: case ECS_FIELD_PATH:
        memcpy(&q, p, 8);
        ecs__snap_jhex(o, q, 16);
        return;
    case ECS_FIELD_BOOL:
        if (p[0] <= 1u) ecs__jout_text(o, p[0] ? "true" : "false");
        else ecs__snap_juint(o, p[0]);
        return;
    case ECS_FIELD_I8: case ECS_FIELD_U8: case ECS_FIELD_I16: case ECS_FIELD_U16: {
        int neg;
        q = ecs__schema_int_at((ecs_field_kind)kind, p, &neg);
        snprintf(buf, sizeof buf, "%s%llu", neg ? "-" : "", (unsigned long long)q);
        ecs__jout_text(o, buf);
        return;
    }
    default:
        ecs__jout_add(o, "\"", 1);
        for (k = 0; k < size; ++k) {
            snprintf(buf, sizeof buf, "%02x", (unsigned)p[k]);
            ecs__jout_add(o, buf, 2);
        }
        ecs__jout_add(o, "\"", 1);
    }
}

static void ecs__snap_jwords(ecs__jout *o, const unsigned char *p, size_t n, size_t bytes_each)
{
    size_t k;
    ecs__jout_add(o, "[", 1);
    for (k = 0; k < n; ++k) {
        uint32_t v = 0;
        if (k) ecs__jout_add(o, k % 16u ? ", " : ",\n      ", k % 16u ? 2u : 8u);
        memcpy(&v, p + k * bytes_each, bytes_each);
        ecs__snap_juint(o, v);
    }
    ecs__jout_add(o, "]", 1);
}

static void ecs__snap_json_entities(ecs__jout *o, const ecs__snap_ents *e)
{
    ecs__jout_text(o, "  \"entities\": {\"max_index\": ");
    ecs__snap_juint(o, e->max_index);
    ecs__jout_text(o, ", \"free_capacity\": ");
    ecs__snap_juint(o, e->free_capacity);
    ecs__jout_text(o, ", \"free_head\": ");
    ecs__snap_juint(o, e->free_head);
    ecs__jout_text(o, ", \"num_free\": ");
    ecs__snap_juint(o, e->num_free);
    ecs__jout_text(o, ", \"num_retired\": ");
    ecs__snap_juint(o, e->num_retired);
    ecs__jout_text(o, ",\n    \"generation\": ");
    ecs__snap_jwords(o, e->generation, (size_t)e->max_index + 1u, 1u);
    ecs__jout_text(o, ",\n    \"ring\": ");
    ecs__snap_jwords(o, e->ring, e->free_capacity, 4u);
    ecs__jout_text(o, "}");
}

/* One instance as {"entity": id, "field": value, ...} (sf: the fields). */
static void ecs__snap_json_instance(ecs__jout *o, uint32_t id, const ecs__snap_field *sf, uint32_t nf, uint32_t i)
{
    uint32_t k;
    ecs__jout_text(o, "{\"entity\": ");
    ecs__snap_juint(o, id);
    for (k = 0; k < nf; ++k) {
        ecs__jout_add(o, ", ", 2);
        ecs__jout_string(o, sf[k].name, sf[k].name_length);
        ecs__jout_add(o, ": ", 2);
        ecs__snap_jvalue(o, sf[k].kind, sf[k].data + (size_t)i * sf[k].size, sf[k].size);
    }
    ecs__jout_text(o, "}");
}

static ecs_result ecs__snap_json_manager(ecs__jout *o, const ecs__snap_mgr *v, ecs_error *err)
{
    ecs__snap_field *sf = (ecs__snap_field *)ECS__REALLOC(NULL, ((size_t)v->num_fields + 1u) * sizeof *sf);
    uint32_t k, i;
    if (!sf) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_to_json: out of memory");
    ecs__snap_fields(v, sf);
    ecs__jout_text(o, ", \"lookup\": \"");
    ecs__jout_text(o, ecs__snap_lookup_names[v->lookup]);
    ecs__jout_text(o, "\", \"count\": ");
    ecs__snap_juint(o, v->count);
    ecs__jout_text(o, ", \"num_instances\": ");
    ecs__snap_juint(o, v->num_instances);
    ecs__jout_text(o, ", \"rng\": ");
    ecs__snap_juint(o, v->rng);
    ecs__jout_text(o, ", \"log\": [");
    ecs__snap_juint(o, (v->flags & ECS__SNAP_LOG_WORLD) ? 1u : 0u);
    ecs__jout_text(o, ", ");
    ecs__snap_juint(o, v->log_next);
    ecs__jout_text(o, ", ");
    ecs__snap_juint(o, v->log_retired);
    ecs__jout_text(o, "], \"group_size\": ");
    ecs__snap_juint(o, v->group_size);
    ecs__jout_text(o, ",\n     \"fields\": [");
    for (k = 0; k < v->num_fields; ++k) {
        char buf[64];
        ecs__jout_text(o, k ? ", {\"name\": " : "{\"name\": ");
        ecs__jout_string(o, sf[k].name, sf[k].name_length);
        snprintf(buf, sizeof buf, ", \"kind\": \"%s\", \"size\": %u, \"align\": %u}",
                 sf[k].kind ? ecs_field_kind_name((ecs_field_kind)sf[k].kind) : "raw", (unsigned)sf[k].size,
                 (unsigned)sf[k].align);
        ecs__jout_text(o, buf);
    }
    ecs__jout_text(o, "]");
    if (v->next) {
        ecs__jout_text(o, ",\n     \"next\": ");
        ecs__snap_jwords(o, v->next, v->count, 4u);
    }
    ecs__jout_text(o, ",\n     \"instances\": [");
    for (i = 0; i < v->count; ++i) {
        uint32_t id = ecs__snap_id(v, i);
        ecs__jout_text(o, i ? ",\n       " : "\n       ");
        if (id == 0 && v->lookup == ECS_LOOKUP_DIRECT) ecs__jout_text(o, "null");
        else ecs__snap_json_instance(o, id, sf, v->num_fields, i);
    }
    ecs__jout_text(o, "]}");
    ECS__FREE(sf);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_snapshot_to_json(const void *blob, size_t size, ecs_snapshot_output *out, ecs_error *err)
{
    ecs__jout o;
    ecs__snap_reader rd;
    ecs__snap_sec s;
    ecs_result r;
    char buf[64];
    if (!out) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_to_json: out is NULL");
    out->data = NULL;
    out->size = 0;
    if ((r = ecs_snapshot_verify(blob, size, err)) != ECS_OK) return r;
    memset(&o, 0, sizeof o);
    (void)ecs__snap_open(&rd, blob, size, 0, err);
    snprintf(buf, sizeof buf, "{\"snapshot\": %u, \"partial\": %u,\n", (unsigned)ECS_SNAPSHOT_VERSION,
             (unsigned)ecs__res_rd32(rd.b + 24, 0));
    ecs__jout_text(&o, buf);
    while (r == ECS_OK && ecs__snap_next(&rd, &s, err) > 0) {
        if (s.kind == ECS__SNAP_ENTITIES) {
            ecs__snap_ents e;
            (void)ecs__snap_parse_entities(&rd, &s, &e, err);
            ecs__snap_json_entities(&o, &e);
            ecs__jout_text(&o, ",\n  \"stores\": [");
            continue;
        }
        ecs__jout_text(&o, s.index > 1u ? ",\n    {\"name\": " : "\n    {\"name\": ");
        ecs__jout_string(&o, s.name, s.name_length);
        if (s.kind == ECS__SNAP_MANAGER) {
            ecs__snap_mgr v;
            (void)ecs__snap_parse_manager(&rd, &s, &v, err);
            r = ecs__snap_json_manager(&o, &v, err);
        } else {
            ecs__jout_text(&o, ", \"version\": ");
            ecs__snap_juint(&o, s.version);
            ecs__jout_text(&o, ", \"words\": ");
            ecs__snap_jwords(&o, rd.b + s.body, s.body_size / 4u, 4u);
            ecs__jout_text(&o, "}");
        }
    }
    ecs__jout_text(&o, "]}\n");
    if (r == ECS_OK && o.oom) r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_to_json: out of memory");
    if (r != ECS_OK) {
        ECS__FREE(o.buf);
        return r;
    }
    out->data = o.buf;
    out->size = o.len;
    return ECS_OK;
}

/* Reading: the text's values into the writer (measuring, then writing). */
typedef struct ecs__snap_jin {
    const ecs_json_doc *doc;
    ecs__snap_w *w;
    ecs_error *err;
    ecs_result r;
} ecs__snap_jin;

static void ecs__snap_jfail(ecs__snap_jin *in, const ecs_json_value *at, const char *why)
{
    char path[160];
    if (in->r != ECS_OK) return;
    (void)ecs_json_path(in->doc, at, path, sizeof path);
    in->r = ecs_error_set(in->err, ECS_ERROR_CORRUPT_RESOURCE, "ecs_snapshot_from_json: %s (at '%s')", why,
                          path);
}

/* Member key of obj (NULL after an error when required). */
static const ecs_json_value *ecs__snap_jget(ecs__snap_jin *in, const ecs_json_value *obj, const char *key, ecs_json_type type)
{
    const ecs_json_value *v = obj && obj->type == ECS_JSON_OBJECT ? ecs_json_member(in->doc, obj, key) : NULL;
    char why[80];
    if (v && v->type == type) return v;
    snprintf(why, sizeof why, "member '%s' missing or not a%s %s", key, type == ECS_JSON_ARRAY || type == ECS_JSON_OBJECT ? "n" : "",
             ecs_json_type_name(type));
    ecs__snap_jfail(in, obj, why);
    return NULL;
}

static uint64_t ecs__snap_jint(ecs__snap_jin *in, const ecs_json_value *v, uint64_t max)
{
    if (!v || v->type != ECS_JSON_NUMBER || !(v->flags & ECS_JSON_INTEGER) || (v->flags & ECS_JSON_NEGATIVE) || v->integer > max) {
        if (v) ecs__snap_jfail(in, v, "not an integer in range");
        return 0;
    }
    return v->integer;
}

static uint32_t ecs__snap_ju32(ecs__snap_jin *in, const ecs_json_value *obj, const char *key)
{
    return (uint32_t)ecs__snap_jint(in, ecs__snap_jget(in, obj, key, ECS_JSON_NUMBER), 0xFFFFFFFFu);
}

/* An array of integers, each written as `bytes` bytes; n elements expected. */
static void ecs__snap_jarray(ecs__snap_jin *in, const ecs_json_value *a, uint64_t n, uint32_t bytes, uint64_t max)
{
    const ecs_json_value *e;
    if (!a) return;
    if (a->count != n) {
        ecs__snap_jfail(in, a, "wrong number of elements");
        return;
    }
    for (e = ecs_json_first(in->doc, a); e && in->r == ECS_OK; e = ecs_json_next(in->doc, e)) {
        uint32_t v = (uint32_t)ecs__snap_jint(in, e, max);
        ecs__snap_put(in->w, &v, bytes);
    }
    ecs__snap_pad(in->w);
}

/* "#" and hex digits (at most 16). */
static int ecs__snap_jhexval(const ecs__snap_jin *in, const ecs_json_value *v, uint64_t *out)
{
    const char *s = ecs_json_string(in->doc, v);
    uint32_t k;
    *out = 0;
    if (!s || v->count < 2u || v->count > 17u || s[0] != '#') return 0;
    for (k = 1; k < v->count; ++k) {
        int d = ecs__hex_digit(s[k]);
        if (d < 0) return 0;
        *out = *out << 4 | (uint64_t)d;
    }
    return 1;
}

/* A float: a number that rounds to a finite float (the level compiler's
   rule, ecs_json_f32), or "#" and its bits (any float). */
static void ecs__snap_jfloat_in(ecs__snap_jin *in, const ecs_json_value *v, unsigned char *p)
{
    uint64_t bits;
    float f;
    if (v && v->type == ECS_JSON_NUMBER) {
        if (ecs_json_f32(v, &f)) memcpy(p, &f, 4);
        else ecs__snap_jfail(in, v, "a number that does not fit a float (write a non-finite float as \"#\" and its bits)");
    } else if (v && ecs__snap_jhexval(in, v, &bits) && bits <= 0xFFFFFFFFu) {
        uint32_t b = (uint32_t)bits;
        memcpy(p, &b, 4);
    } else {
        ecs__snap_jfail(in, v, "not a float (a number or \"#\" and 8 hex digits)");
    }
}

/* A field without a kind: a string of its size bytes in hex, into p (NULL:
   checked only). */
static void ecs__snap_jraw_in(ecs__snap_jin *in, const ecs_json_value *v, uint32_t size, unsigned char *p)
{
    const char *s = ecs_json_string(in->doc, v);
    uint32_t k;
    if (!s || v->count != 2u * (uint64_t)size) {
        ecs__snap_jfail(in, v, "not a string of the field's bytes in hex");
        return;
    }
    for (k = 0; k < size; ++k) {
        int hi = ecs__hex_digit(s[2u * k]), lo = ecs__hex_digit(s[2u * k + 1u]);
        if (hi < 0 || lo < 0) {
            ecs__snap_jfail(in, v, "not hex");
            return;
        }
        if (p) p[k] = (unsigned char)(hi * 16 + lo);
    }
}

/* A field value by kind into p (size bytes, at most 64 with a kind). */
static void ecs__snap_jvalue_in(ecs__snap_jin *in, const ecs_json_value *v, uint32_t kind, uint32_t size, unsigned char *p)
{
    uint64_t q;
    uint32_t k, n;
    const ecs_json_value *e;
    double d;
    memset(p, 0, size);
    if (!v) return;
    switch (kind) {
    case ECS_FIELD_F32: ecs__snap_jfloat_in(in, v, p); return;
    case ECS_FIELD_VEC2: case ECS_FIELD_VEC3: case ECS_FIELD_VEC4: case ECS_FIELD_QUAT: case ECS_FIELD_MAT4:
        n = ecs__kind_elements((ecs_field_kind)kind);
        if (v->type != ECS_JSON_ARRAY || v->count != n) {
            ecs__snap_jfail(in, v, "not an array of the kind's floats");
            return;
        }
        for (k = 0, e = ecs_json_first(in->doc, v); e; e = ecs_json_next(in->doc, e), ++k) ecs__snap_jfloat_in(in, e, p + 4u * k);
        return;
    case ECS_FIELD_F64:
        if (v->type == ECS_JSON_NUMBER && ecs__json_f64(v, &d)) memcpy(p, &d, 8);
        else if (v->type != ECS_JSON_NUMBER && ecs__snap_jhexval(in, v, &q)) memcpy(p, &q, 8);
        else ecs__snap_jfail(in, v, "not a finite number or \"#\" and 16 hex digits");
        return;
    case ECS_FIELD_I32: {
        int64_t s = v->type == ECS_JSON_NUMBER && (v->flags & ECS_JSON_INTEGER) && v->integer <= 0x80000000ull
                        ? ((v->flags & ECS_JSON_NEGATIVE) ? -(int64_t)v->integer : (int64_t)v->integer) : INT64_MAX;
        int32_t s32 = (int32_t)s;
        if (s < INT32_MIN || s > INT32_MAX) ecs__snap_jfail(in, v, "not a 32-bit integer");
        else memcpy(p, &s32, 4);
        return;
    }
    case ECS_FIELD_U32: case ECS_FIELD_ENTITY: {
        uint32_t u = (uint32_t)ecs__snap_jint(in, v, 0xFFFFFFFFu);
        memcpy(p, &u, 4);
        return;
    }
    case ECS_FIELD_U64: case ECS_FIELD_PATH:
        if (ecs__snap_jhexval(in, v, &q) || (v->type == ECS_JSON_NUMBER && (q = ecs__snap_jint(in, v, UINT64_MAX), 1))) memcpy(p, &q, 8);
        else ecs__snap_jfail(in, v, "not \"#\" and 16 hex digits");
        return;
    case ECS_FIELD_BOOL:
        p[0] = v->type == ECS_JSON_TRUE ? 1u : v->type == ECS_JSON_FALSE ? 0u : (uint8_t)ecs__snap_jint(in, v, 255u);
        return;
    case ECS_FIELD_I8: case ECS_FIELD_U8: case ECS_FIELD_I16: case ECS_FIELD_U16: {
        char why[96];
        if (v->type != ECS_JSON_NUMBER) ecs__snap_jfail(in, v, "not an integer");
        else if (!ecs__schema_int((ecs_field_kind)kind, v, p, why, sizeof why)) ecs__snap_jfail(in, v, why);
        return;
    }
    default:
        ecs__snap_jraw_in(in, v, size, p);
    }
}

/* 1 when the JSON string v is name exactly (its length too: "f64\u0000x"
   is not "f64"). */
static int ecs__snap_jis(const ecs__snap_jin *in, const ecs_json_value *v, const char *name)
{
    const char *s = ecs_json_string(in->doc, v);
    return s && strlen(name) == v->count && memcmp(s, name, v->count) == 0;
}

static uint32_t ecs__snap_jkind(const ecs__snap_jin *in, const ecs_json_value *f)
{
    const ecs_json_value *k = ecs_json_member(in->doc, f, "kind");
    uint32_t kind;
    for (kind = 1; k && kind < ECS_FIELD_KIND_COUNT; ++kind)
        if (ecs__snap_jis(in, k, ecs_field_kind_name((ecs_field_kind)kind))) return kind;
    return 0;
}

/* Field k's array (the field f of the table) from the instances' members. */
static void ecs__snap_jfield(ecs__snap_jin *in, const ecs_json_value *insts, const ecs_json_value *f, uint32_t k)
{
    const ecs_json_value *nm = ecs_json_member(in->doc, f, "name"), *e;
    uint32_t size = ecs__snap_ju32(in, f, "size"), kind = ecs__snap_jkind(in, f);
    unsigned char value[64];
    for (e = ecs_json_first(in->doc, insts); e && in->r == ECS_OK; e = ecs_json_next(in->doc, e)) {
        /* members in field order after "entity" (names may repeat) */
        const ecs_json_value *val = e->type == ECS_JSON_OBJECT ? ecs_json_first(in->doc, e) : NULL;
        uint32_t skip = k + 1u;
        while (val && skip--) val = ecs_json_next(in->doc, val);
        if (e->type != ECS_JSON_NULL &&
            (!val || val->key_length != nm->count || memcmp(ecs_json_key(in->doc, val), ecs_json_string(in->doc, nm), nm->count) != 0))
            ecs__snap_jfail(in, e, "an instance lacks a field (members follow the fields' order)");
        if (!val) { /* a direct-kind hole: zeros */
            ecs__snap_zeros(in->w, size);
        } else if (kind) {
            ecs__snap_jvalue_in(in, val, kind, size, value);
            ecs__snap_put(in->w, value, size);
        } else { /* straight into the blob (measuring: checked only) */
            ecs__snap_jraw_in(in, val, size, in->w->p && !in->w->overflow ? in->w->p + in->w->at : NULL);
            ecs__snap_put(in->w, NULL, size);
        }
    }
    ecs__snap_pad(in->w);
}

static void ecs__snap_jmanager(ecs__snap_jin *in, const ecs_json_value *st)
{
    const ecs_json_value *fields = ecs__snap_jget(in, st, "fields", ECS_JSON_ARRAY), *insts, *f, *lk, *log, *e;
    const ecs_json_value *next = ecs_json_member(in->doc, st, "next");
    uint32_t lookup = 0, count, names = 0, k, flags;
    uint64_t record = 4; /* the entity id */
    if (in->r != ECS_OK) return;
    lk = ecs__snap_jget(in, st, "lookup", ECS_JSON_STRING);
    while (lookup < 3u && !ecs__snap_jis(in, lk, ecs__snap_lookup_names[lookup])) ++lookup;
    if (lookup == 3u) ecs__snap_jfail(in, lk, "lookup is not hash, dense or direct");
    count = ecs__snap_ju32(in, st, "count");
    log = ecs__snap_jget(in, st, "log", ECS_JSON_ARRAY);
    insts = ecs__snap_jget(in, st, "instances", ECS_JSON_ARRAY);
    if (in->r != ECS_OK) return;
    if (log->count != 3u || insts->count != count || (next && (next->type != ECS_JSON_ARRAY || next->count != count))) {
        ecs__snap_jfail(in, st, "log, instances or next do not fit count");
        return;
    }
    for (f = ecs_json_first(in->doc, fields); f; f = ecs_json_next(in->doc, f))
        names += ecs__snap_jget(in, f, "name", ECS_JSON_STRING) ? ecs_json_member(in->doc, f, "name")->count : 0u;
    e = ecs_json_first(in->doc, log);
    flags = (next ? ECS__SNAP_HAS_NEXT : 0u) | (ecs__snap_jint(in, e, 1u) ? ECS__SNAP_LOG_WORLD : 0u);
    ecs__snap_u32(in->w, lookup);
    ecs__snap_u32(in->w, fields->count);
    ecs__snap_u32(in->w, count);
    ecs__snap_u32(in->w, ecs__snap_ju32(in, st, "num_instances"));
    ecs__snap_u32(in->w, flags);
    ecs__snap_u32(in->w, ecs__snap_ju32(in, st, "rng"));
    ecs__snap_u32(in->w, (uint32_t)ecs__snap_jint(in, ecs_json_next(in->doc, e), 0xFFFFFFFFu));
    ecs__snap_u32(in->w, (uint32_t)ecs__snap_jint(in, ecs_json_next(in->doc, ecs_json_next(in->doc, e)), 0xFFFFFFFFu));
    ecs__snap_u32(in->w, ecs__snap_ju32(in, st, "group_size"));
    ecs__snap_u32(in->w, names);
    for (f = ecs_json_first(in->doc, fields); f && in->r == ECS_OK; f = ecs_json_next(in->doc, f)) {
        uint32_t size = ecs__snap_ju32(in, f, "size"), kind = ecs__snap_jkind(in, f);
        /* the format's limits before anything is sized by them */
        record += size;
        if (size == 0 || (kind && ecs_field_kind_size((ecs_field_kind)kind) != size) || record > 0x7FFFFFFFu) {
            ecs__snap_jfail(in, f, "size 0, not the kind's, or a record over 2^31 - 1 bytes");
            return;
        }
        ecs__snap_u32(in->w, size);
        ecs__snap_u32(in->w, ecs__snap_ju32(in, f, "align"));
        ecs__snap_u32(in->w, kind);
        ecs__snap_u32(in->w, ecs_json_member(in->doc, f, "name")->count);
    }
    for (f = ecs_json_first(in->doc, fields); f && in->r == ECS_OK; f = ecs_json_next(in->doc, f)) {
        const ecs_json_value *nm = ecs_json_member(in->doc, f, "name");
        ecs__snap_put(in->w, ecs_json_string(in->doc, nm), nm->count);
    }
    ecs__snap_pad(in->w);
    for (e = ecs_json_first(in->doc, insts); e && in->r == ECS_OK; e = ecs_json_next(in->doc, e)) {
        uint32_t id = e->type == ECS_JSON_NULL ? 0u : ecs__snap_ju32(in, e, "entity");
        ecs__snap_u32(in->w, id);
    }
    ecs__snap_pad(in->w);
    if (next) ecs__snap_jarray(in, next, count, 4u, 0xFFFFFFFFu);
    for (f = ecs_json_first(in->doc, fields), k = 0; f && in->r == ECS_OK; f = ecs_json_next(in->doc, f), ++k)
        ecs__snap_jfield(in, insts, f, k);
}

/* The whole text into w (measuring when w->p is NULL). */
static void ecs__snap_jworld(ecs__snap_jin *in, const ecs_json_value *root)
{
    const ecs_json_value *ents = ecs__snap_jget(in, root, "entities", ECS_JSON_OBJECT);
    const ecs_json_value *stores = ecs__snap_jget(in, root, "stores", ECS_JSON_ARRAY), *st;
    uint32_t max_index, cap;
    uint64_t total = 0;
    size_t at;
    if (in->r != ECS_OK) return;
    ecs__snap_put(in->w, "ECSS", 4);
    ecs__snap_u32(in->w, (uint32_t)ecs__snap_jint(in, ecs__snap_jget(in, root, "snapshot", ECS_JSON_NUMBER), ECS_SNAPSHOT_VERSION));
    ecs__snap_u32(in->w, ECS__SNAP_BOM);
    ecs__snap_u32(in->w, stores->count + 1u);
    ecs__snap_put(in->w, &total, 8);
    ecs__snap_u32(in->w, ecs__snap_ju32(in, root, "partial"));
    ecs__snap_u32(in->w, 0);
    at = ecs__snap_begin(in->w, ECS__SNAP_ENTITIES, 1u, NULL);
    max_index = ecs__snap_ju32(in, ents, "max_index");
    cap = ecs__snap_ju32(in, ents, "free_capacity");
    ecs__snap_u32(in->w, max_index);
    ecs__snap_u32(in->w, cap);
    ecs__snap_u32(in->w, ecs__snap_ju32(in, ents, "free_head"));
    ecs__snap_u32(in->w, ecs__snap_ju32(in, ents, "num_free"));
    ecs__snap_u32(in->w, ecs__snap_ju32(in, ents, "num_retired"));
    ecs__snap_u32(in->w, ECS__SNAP_BITS);
    ecs__snap_jarray(in, ecs__snap_jget(in, ents, "generation", ECS_JSON_ARRAY), (uint64_t)max_index + 1u, 1u, 255u);
    ecs__snap_jarray(in, ecs__snap_jget(in, ents, "ring", ECS_JSON_ARRAY), cap, 4u, 0xFFFFFFFFu);
    ecs__snap_end(in->w, at);
    for (st = stores ? ecs_json_first(in->doc, stores) : NULL; st && in->r == ECS_OK; st = ecs_json_next(in->doc, st)) {
        const ecs_json_value *nm = ecs__snap_jget(in, st, "name", ECS_JSON_STRING), *words = ecs_json_member(in->doc, st, "words");
        if (!nm) return;
        if (words) {
            at = ecs__snap_begin(in->w, ECS__SNAP_STORE, ecs__snap_ju32(in, st, "version"), ecs_json_string(in->doc, nm));
            if (words->type != ECS_JSON_ARRAY) ecs__snap_jfail(in, words, "words is not an array");
            else ecs__snap_jarray(in, words, words->count, 4u, 0xFFFFFFFFu);
            ecs__snap_end_store(in->w, at, words->type == ECS_JSON_ARRAY ? 4u * (uint64_t)words->count : 0u);
        } else {
            at = ecs__snap_begin(in->w, ECS__SNAP_MANAGER, 1u, ecs_json_string(in->doc, nm));
            ecs__snap_jmanager(in, st);
            ecs__snap_end(in->w, at);
        }
    }
    total = in->w->at;
    if (in->w->p && !in->w->overflow && in->r == ECS_OK) memcpy(in->w->p + 16, &total, 8);
}

ECS_DEF ecs_result ecs_snapshot_from_json(const char *json, size_t len, ecs_snapshot_output *out, ecs_error *err)
{
    ecs_json_doc doc;
    ecs__snap_w measure, write;
    ecs__snap_jin in;
    ecs_result r;
    memset(&measure, 0, sizeof measure);
    memset(&write, 0, sizeof write);
    if (!out) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_from_json: out is NULL");
    out->data = NULL;
    out->size = 0;
    memset(&doc, 0, sizeof doc);
    if ((r = ecs_json_parse(&doc, json, len, err)) != ECS_OK) {
        ecs_json_doc_free(&doc);
        return r;
    }
    in.doc = &doc;
    in.err = err;
    in.r = ECS_OK;
    in.w = &measure;
    ecs__snap_jworld(&in, ecs_json_root(&doc));
    if (in.r == ECS_OK && measure.overflow) in.r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_from_json: too big");
    if (in.r == ECS_OK && !(write.p = (unsigned char *)ECS__REALLOC(NULL, measure.at)))
        in.r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_from_json: out of memory");
    if (in.r == ECS_OK) {
        in.w = &write;
        ecs__snap_jworld(&in, ecs_json_root(&doc));
    }
    ecs_json_doc_free(&doc);
    if (in.r == ECS_OK) in.r = ecs_snapshot_verify(write.p, write.at, err);
    if (in.r != ECS_OK) {
        ECS__FREE(write.p);
        return in.r;
    }
    out->data = write.p;
    out->size = write.at;
    return ECS_OK;
}

/* -- one entity's data -- */

ECS_DEF ecs_result ecs_world_entity_json(const ecs_world *w, ecs_entity e, ecs_snapshot_output *out, ecs_error *err)
{
    ecs__jout o;
    uint32_t k, first = 1;
    if (!out) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_world_entity_json: out is NULL");
    out->data = NULL;
    out->size = 0;
    if (!w || !ecs_entity_live(&w->entities, e)) { /* live: not the id a queued index carries next */
        char who[ECS_ENTITY_TEXT_SIZE];
        return ecs_error_set(err, ECS_ERROR_NOT_FOUND, "ecs_world_entity_json: %s is not alive",
                             ecs_entity_format(who, sizeof who, e));
    }
    memset(&o, 0, sizeof o);
    ecs__jout_text(&o, "{\"entity\": ");
    ecs__snap_juint(&o, ecs_entity_key(e));
    ecs__jout_text(&o, ", \"components\": [");
    for (k = 0; k < w->num_components; ++k) {
        const ecs_world_component *c = &w->component[k];
        ecs_instance i = c->manager ? ecs_manager_lookup(c->manager, e) : c->iface->lookup(c->store, e);
        for (; !ecs_instance_is_nil(i); i = c->manager ? ecs_manager_next(c->manager, i) : c->iface->next(c->store, i)) {
            uint32_t f;
            ecs__jout_text(&o, first ? "\n  {\"type\": " : ",\n  {\"type\": ");
            first = 0;
            ecs__jout_string(&o, c->name, (uint32_t)strlen(c->name));
            if (!c->manager) {
                ecs__jout_text(&o, ", \"instance\": ");
                ecs__snap_juint(&o, i.i);
            }
            for (f = 0; c->manager && f < c->manager->num_fields; ++f) {
                const ecs_manager *m = c->manager;
                const char *name = m->fields[f].name ? m->fields[f].name : "";
                ecs__jout_add(&o, ", ", 2);
                ecs__jout_string(&o, name, (uint32_t)strlen(name));
                ecs__jout_add(&o, ": ", 2);
                ecs__snap_jvalue(&o, ecs__snap_kind_of(m, f), (const unsigned char *)ecs_manager_field(m, f, i.i), m->fields[f].size);
            }
            ecs__jout_text(&o, "}");
        }
    }
    ecs__jout_text(&o, "]}\n");
    if (o.oom) {
        ECS__FREE(o.buf);
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_world_entity_json: out of memory");
    }
    out->data = o.buf;
    out->size = o.len;
    return ECS_OK;
}

/* -- deltas (see DELTAS in the doc block) -- */

#define ECS__DELTA_HEAD 64u               /* magic, version, bom, num_ops, total, base size+hash, next size+hash, 0 */
#define ECS__DELTA_OP 16u                 /* source (u64), length (u64) */
#define ECS__DELTA_LITERAL 0xFFFFFFFFFFFFFFFFull
#define ECS__DELTA_BLOCK 64u              /* bytes compared at once: a changed block travels whole */
#define ECS__DELTA_CHUNK 16384u           /* bytes of a copy hashed twice while in cache (apply) */
#define ECS__DELTA_PROBE 1024u            /* bytes hashed, then compared at once: most of a frame's are equal */
#define ECS__DELTA_AHEAD 4096u            /* how far ahead of the piece it compares the delta asks for bytes */

static void ecs__delta_put64(unsigned char *p, uint64_t v, int swap)
{
    if (swap) v = ecs__res_bswap64(v);
    memcpy(p, &v, 8);
}

/* -- making a delta: matched regions of base and next compared in blocks -- */

typedef struct ecs__delta_gen {
    const unsigned char *base, *next;
    size_t base_size, next_size;
    ecs__hash hb, hn;                     /* base's bytes in base's order, next's in next's */
    int hash_base, hash_next;             /* 0: the caller gave that hash (nothing fed) */
    size_t hashed;                        /* base bytes fed to hb so far */
    unsigned char *p;                     /* the delta being written (out->data), cap bytes */
    size_t at, cap;
    int oom, swap;
    uint32_t num_ops, flags;              /* flags: the header's (ECS_SNAPSHOT_DELTA_WORLD_HASHES) */
    size_t op;                            /* the open op's record (0: none) */
    uint64_t op_src, op_len;              /* the open op: source (or literal) and length */
} ecs__delta_gen;

/* Room for n more bytes (the buffer grows by half at least). */
static int ecs__delta_room(ecs__delta_gen *g, size_t n)
{
    size_t want;
    unsigned char *p;
    if (g->oom) return 0;
    if (n <= g->cap - g->at) return 1;
    want = g->at + n;
    p = want < g->at || want > SIZE_MAX - want / 2u ? NULL : (unsigned char *)ECS__REALLOC(g->p, want + want / 2u);
    if (!p) {
        g->oom = 1;
        return 0;
    }
    want += want / 2u;
    g->p = p;
    g->cap = want;
    return 1;
}

/* Writes the open op's record header (and pads its literal bytes). */
static void ecs__delta_close(ecs__delta_gen *g)
{
    if (!g->op || g->oom) return;
    ecs__delta_put64(g->p + g->op, g->op_src, g->swap);
    ecs__delta_put64(g->p + g->op + 8, g->op_len, g->swap);
    if (g->op_src == ECS__DELTA_LITERAL && (g->op_len & 7u) && ecs__delta_room(g, 8)) {
        size_t pad = 8u - (size_t)(g->op_len & 7u);
        memset(g->p + g->at, 0, pad);
        g->at += pad;
    }
    g->op = 0;
}

static void ecs__delta_open_op(ecs__delta_gen *g, uint64_t src)
{
    ecs__delta_close(g);
    if (!ecs__delta_room(g, ECS__DELTA_OP)) return;
    g->op = g->at;
    g->at += ECS__DELTA_OP;
    g->op_src = src;
    g->op_len = 0;
    ++g->num_ops;
}

/* Next's next n bytes are base's at src: one copy, or the open one longer. */
static void ecs__delta_copy(ecs__delta_gen *g, size_t src, size_t n)
{
    if (!g->op || g->op_src == ECS__DELTA_LITERAL || g->op_src + g->op_len != src) ecs__delta_open_op(g, src);
    g->op_len += n;
}

/* Next's next n bytes travel in the delta. */
static void ecs__delta_literal(ecs__delta_gen *g, const unsigned char *bytes, size_t n)
{
    if (!n) return;
    if (!g->op || g->op_src != ECS__DELTA_LITERAL || (g->op_len & 7u)) ecs__delta_open_op(g, ECS__DELTA_LITERAL);
    if (!ecs__delta_room(g, n)) return;
    memcpy(g->p + g->at, bytes, n);
    g->at += n;
    g->op_len += n;
}

/* Feeds base's bytes up to `to` to its hash (bytes no region copies). */
static void ecs__delta_hash_base(ecs__delta_gen *g, size_t to)
{
    if (to > g->hashed && g->hash_base) ecs__hash_feed(&g->hb, g->base + g->hashed, to - g->hashed);
    if (to > g->hashed) g->hashed = to;
}

/* Feeds n bytes of next at offset o to its hash (unless the caller gave it). */
static void ecs__delta_hash_next(ecs__delta_gen *g, size_t o, size_t n)
{
    if (g->hash_next) ecs__hash_feed(&g->hn, g->next + o, n);
}

/* 1 when the n (<= 64) bytes at a and b are equal. */
static int ecs__delta_same(const unsigned char *a, const unsigned char *b, size_t n)
{
    uint64_t x[8], y[8], d = 0;
    uint32_t k;
    if (n != ECS__DELTA_BLOCK) return memcmp(a, b, n) == 0;
    memcpy(x, a, 64);
    memcpy(y, b, 64);
    for (k = 0; k < 8u; ++k) d |= x[k] ^ y[k];
    return d == 0;
}

/* n (<= ECS__DELTA_PROBE) bytes of base at bo and next at no: one copy
   when equal (one memcmp), else block by block. */
static void ecs__delta_compare(ecs__delta_gen *g, size_t bo, size_t no, size_t n)
{
    const unsigned char *b = g->base + bo, *q = g->next + no;
    size_t k;
    if (memcmp(b, q, n) == 0) {
        ecs__delta_copy(g, bo, n);
        return;
    }
    for (k = 0; k < n; k += ECS__DELTA_BLOCK) {
        size_t len = n - k < ECS__DELTA_BLOCK ? n - k : ECS__DELTA_BLOCK;
        if (ecs__delta_same(b + k, q + k, len)) ecs__delta_copy(g, bo + k, len);
        else ecs__delta_literal(g, q + k, len);
    }
}

/* Base's region [bo, bo + bl) against next's [no, no + nl): their common
   length piece by piece (each piece of both hashed, then compared while
   in cache; the two streams read side by side, a few pieces ahead asked
   for), next's rest as literal. */
static void ecs__delta_pair(ecs__delta_gen *g, size_t bo, size_t bl, size_t no, size_t nl)
{
    size_t common = bl < nl ? bl : nl, x, k;
    ecs__delta_hash_base(g, bo);
    for (x = 0; x < common && !g->oom; x += ECS__DELTA_PROBE) {
        size_t n = common - x < ECS__DELTA_PROBE ? common - x : ECS__DELTA_PROBE;
        for (k = 0; k < n && x + ECS__DELTA_AHEAD + k < common; k += 64u) {
            ECS__SNAP_PREFETCH(g->base + bo + x + ECS__DELTA_AHEAD + k);
            ECS__SNAP_PREFETCH(g->next + no + x + ECS__DELTA_AHEAD + k);
        }
        if (g->hash_base) ecs__hash_feed(&g->hb, g->base + bo + x, n);
        ecs__delta_hash_next(g, no + x, n);
        ecs__delta_compare(g, bo + x, no + x, n);
    }
    if (bo + common > g->hashed) g->hashed = bo + common;
    ecs__delta_hash_next(g, no + common, nl - common);
    ecs__delta_literal(g, g->next + no + common, nl - common);
}

#define ECS__DELTA_SEARCH 256u /* offsets tried when a block of a resized opaque region is not where it was */

/* A block of next (len bytes at q) found in base at y = x + d near d (each
   direction, 4 bytes a step, up to ECS__DELTA_SEARCH tries, inside
   [lo, hi] and at or after `from`): 1 and *d, or 0. */
static int ecs__delta_search(const unsigned char *b, size_t bl, const unsigned char *q, size_t x, size_t len, int64_t *d,
                             int64_t lo, int64_t hi, size_t from)
{
    uint32_t k;
    for (k = 1; k <= ECS__DELTA_SEARCH; ++k) {
        int side;
        for (side = 0; side < 2; ++side) {
            int64_t c = side ? *d + 4 * (int64_t)k : *d - 4 * (int64_t)k, y = (int64_t)x + c;
            if (c < lo || c > hi || y < (int64_t)from || (uint64_t)y + len > bl) continue;
            if (ecs__delta_same(b + y, q, len)) {
                *d = c;
                return 1;
            }
        }
    }
    return 0;
}

#define ECS__DELTA_LOOK 4u /* blocks after a changed one tried at its offset before a search */

/* 1 when next's block at x (len bytes) is base's at x + d (inside base,
   at or after `from`). */
static int ecs__delta_at(const unsigned char *b, size_t bl, const unsigned char *q, size_t x, size_t len, int64_t d,
                         size_t from)
{
    int64_t y = (int64_t)x + d;
    return y >= (int64_t)from && (uint64_t)y + len <= bl && ecs__delta_same(b + y, q + x, len);
}

/* 1 when one of the ECS__DELTA_LOOK whole blocks after x (of nl bytes) is
   still at offset d: the block at x changed where it lies, nothing moved. */
static int ecs__delta_changed_here(const unsigned char *b, size_t bl, const unsigned char *q, size_t nl, size_t x, int64_t d,
                                   size_t from)
{
    uint32_t k;
    for (k = 1; k <= ECS__DELTA_LOOK && x + (k + 1u) * ECS__DELTA_BLOCK <= nl; ++k)
        if (ecs__delta_at(b, bl, q, x + k * ECS__DELTA_BLOCK, ECS__DELTA_BLOCK, d, from)) return 1;
    return 0;
}

/* An opaque region (a store's words) whose length changed: its arrays
   moved by different amounts. Block by block at the offset the last block
   was found at; where that fails and none of the next few blocks is there
   either (the start of an array that moved by another amount, and every
   8th block of a run that travels), the nearest offset that holds it. A
   block changed in place (the blocks after it still at the offset) costs
   no search; a piece of ECS__DELTA_PROBE bytes still at the offset is one
   memcmp. */
static void ecs__delta_moved(ecs__delta_gen *g, size_t bo, size_t bl, size_t no, size_t nl)
{
    const unsigned char *b = g->base + bo, *q = g->next + no;
    int64_t d = 0, lo = nl > bl ? -(int64_t)(nl - bl) : 0, hi = bl > nl ? (int64_t)(bl - nl) : 0;
    size_t x, len, from = 0;
    uint32_t missed = 0;
    ecs__delta_hash_base(g, bo + bl);
    ecs__delta_hash_next(g, no, nl);
    for (x = 0; x < nl && !g->oom; x += len) {
        int64_t y = (int64_t)x + d;
        if (x % ECS__DELTA_PROBE == 0 && nl - x >= ECS__DELTA_PROBE && y >= (int64_t)from &&
            (uint64_t)y + ECS__DELTA_PROBE <= bl && memcmp(b + y, q + x, ECS__DELTA_PROBE) == 0) { /* most are */
            len = ECS__DELTA_PROBE;
            ecs__delta_copy(g, bo + (size_t)y, len);
            from = (size_t)y + len;
            missed = 0;
            continue;
        }
        len = nl - x < ECS__DELTA_BLOCK ? nl - x : ECS__DELTA_BLOCK;
        if (ecs__delta_at(b, bl, q, x, len, d, from) ||
            (!ecs__delta_changed_here(b, bl, q, nl, x, d, from) && missed++ % 8u == 0 &&
             ecs__delta_search(b, bl, q + x, x, len, &d, lo, hi, from))) {
            y = (int64_t)x + d;
            ecs__delta_copy(g, bo + (size_t)y, len);
            from = (size_t)y + len;
            missed = 0;
        } else {
            ecs__delta_literal(g, q + x, len);
        }
    }
}

/* The regions of a manager section: its head and field table with the
   names, ids, next links, each field's array. 0 when base's and next's
   layouts differ (another field count, size or kind of links). */
static int ecs__delta_manager(ecs__delta_gen *g, const ecs__snap_reader *rb, const ecs__snap_sec *bs,
                              const ecs__snap_reader *rn, const ecs__snap_sec *ns)
{
    ecs__snap_mgr vb, vn;
    ecs__snap_field fb, fn, pb, pn;
    ecs_error e;
    uint32_t k;
    if (ecs__snap_parse_manager(rb, bs, &vb, &e) != ECS_OK || ecs__snap_parse_manager(rn, ns, &vn, &e) != ECS_OK ||
        vb.num_fields != vn.num_fields || (vb.next == NULL) != (vn.next == NULL))
        return 0;
    for (k = 0; k < vb.num_fields; ++k) {
        ecs__snap_field_at(&vb, k, rb->swap, &fb, k ? &pb : NULL);
        ecs__snap_field_at(&vn, k, rn->swap, &fn, k ? &pn : NULL);
        if (fb.size != fn.size) return 0;
        pb = fb;
        pn = fn;
    }
    ecs__delta_pair(g, bs->body, vb.entity_at - bs->body, ns->body, vn.entity_at - ns->body);
    ecs__delta_pair(g, vb.entity_at, ecs__snap_pad8((size_t)vb.count * 4u), vn.entity_at, ecs__snap_pad8((size_t)vn.count * 4u));
    if (vb.next)
        ecs__delta_pair(g, vb.next_at, ecs__snap_pad8((size_t)vb.count * 4u), vn.next_at, ecs__snap_pad8((size_t)vn.count * 4u));
    for (k = 0; k < vb.num_fields; ++k) {
        ecs__snap_field_at(&vb, k, rb->swap, &fb, k ? &pb : NULL);
        ecs__snap_field_at(&vn, k, rn->swap, &fn, k ? &pn : NULL);
        ecs__delta_pair(g, (size_t)(fb.data - rb->b), ecs__snap_pad8((size_t)fb.size * vb.count), (size_t)(fn.data - rn->b),
                        ecs__snap_pad8((size_t)fn.size * vn.count));
        pb = fb;
        pn = fn;
    }
    return 1;
}

/* A section of base against the section of next with its kind and name:
   its header, then the body by regions (entities: head, generations, ring;
   a manager of the same layout: see above; else the body whole). */
static void ecs__delta_section(ecs__delta_gen *g, const ecs__snap_reader *rb, const ecs__snap_sec *bs,
                               const ecs__snap_reader *rn, const ecs__snap_sec *ns)
{
    size_t bend = bs->offset + bs->size, nend = ns->offset + ns->size;
    ecs__delta_pair(g, bs->offset, bs->body - bs->offset, ns->offset, ns->body - ns->offset);
    if (bs->kind == ECS__SNAP_ENTITIES) {
        ecs__snap_ents eb, en;
        ecs_error e;
        if (ecs__snap_parse_entities(rb, bs, &eb, &e) == ECS_OK && ecs__snap_parse_entities(rn, ns, &en, &e) == ECS_OK) {
            size_t gb = ecs__snap_pad8((size_t)eb.max_index + 1u), gn = ecs__snap_pad8((size_t)en.max_index + 1u);
            ecs__delta_pair(g, bs->body, ECS__SNAP_ENTITIES_HEAD, ns->body, ECS__SNAP_ENTITIES_HEAD);
            ecs__delta_pair(g, bs->body + ECS__SNAP_ENTITIES_HEAD, gb, ns->body + ECS__SNAP_ENTITIES_HEAD, gn);
            ecs__delta_pair(g, bs->body + ECS__SNAP_ENTITIES_HEAD + gb, bend - bs->body - ECS__SNAP_ENTITIES_HEAD - gb,
                            ns->body + ECS__SNAP_ENTITIES_HEAD + gn, nend - ns->body - ECS__SNAP_ENTITIES_HEAD - gn);
            return;
        }
    } else if (bs->kind == ECS__SNAP_MANAGER && ecs__delta_manager(g, rb, bs, rn, ns)) {
        return;
    }
    if (bend - bs->body != nend - ns->body) ecs__delta_moved(g, bs->body, bend - bs->body, ns->body, nend - ns->body);
    else ecs__delta_pair(g, bs->body, bend - bs->body, ns->body, nend - ns->body);
}

/* The first section of base after the reader `from` stands at, with ns's
   kind and name (and a store's version): 1, *bs and *after (the reader past
   it), or 0. Matched sections move `from` on, so base is walked once
   whatever the order, unless next has sections base lacks. */
static int ecs__delta_find(const ecs__snap_reader *from, const ecs__snap_sec *ns, ecs__snap_sec *bs, ecs__snap_reader *after)
{
    ecs__snap_reader rb = *from;
    ecs_error e;
    while (ecs__snap_next(&rb, bs, &e) > 0)
        if (bs->kind == ns->kind && bs->name_length == ns->name_length && memcmp(bs->name, ns->name, ns->name_length) == 0 &&
            (bs->kind != ECS__SNAP_STORE || bs->version == ns->version)) {
            *after = rb;
            return 1;
        }
    return 0;
}

/* Every section of next, against base's of its kind and name (in order),
   or as literal bytes. */
static void ecs__delta_sections(ecs__delta_gen *g, const ecs__snap_reader *rb0, ecs__snap_reader *rn)
{
    ecs__snap_sec ns, bs;
    ecs__snap_reader from = *rb0;
    ecs_error e;
    from.at = ECS__SNAP_HEADER;
    from.next = 0;
    ecs__delta_pair(g, 0, ECS__SNAP_HEADER, 0, ECS__SNAP_HEADER);
    while (!g->oom && ecs__snap_next(rn, &ns, &e) > 0) {
        if (ecs__delta_find(&from, &ns, &bs, &from)) {
            ecs__delta_section(g, rb0, &bs, rn, &ns);
        } else {
            ecs__delta_hash_next(g, ns.offset, ns.size);
            ecs__delta_literal(g, g->next + ns.offset, ns.size);
        }
    }
    ecs__delta_hash_base(g, g->base_size);
    ecs__delta_close(g);
}

/* Checks the shape of a snapshot a delta is made of (header and every
   section's header and layout): what the delta reads of it. */
static ecs_result ecs__delta_shape(const void *blob, size_t size, const char *which, ecs__snap_reader *rd, ecs_error *err)
{
    ecs__snap_reader walk;
    ecs__snap_sec s;
    ecs_result r = ecs__snap_open(rd, blob, size, 1, err);
    int more = 1;
    walk = *rd;
    while (r == ECS_OK && (more = ecs__snap_next(&walk, &s, err)) > 0) {
        ecs__snap_ents e;
        ecs__snap_mgr v;
        if (s.kind == ECS__SNAP_ENTITIES) r = ecs__snap_parse_entities(&walk, &s, &e, err);
        else if (s.kind == ECS__SNAP_MANAGER) r = ecs__snap_parse_manager(&walk, &s, &v, err);
    }
    if (r == ECS_OK && more < 0) r = err ? err->code : ECS_ERROR_CORRUPT_RESOURCE;
    if (r != ECS_OK && err) ecs_error_set(err, r, "ecs_snapshot_delta: %s: %s", which, err->message);
    return r;
}

/* Whether out's buffer, [out->data, out->data + max(out->size, 1)), and
   the n bytes at p overlap (an output written there would overwrite them,
   or free them when it grows). */
static int ecs__snap_out_overlaps(const ecs_snapshot_output *out, const void *p, size_t n)
{
    uintptr_t o = (uintptr_t)out->data, q = (uintptr_t)p;
    return out->data && p && o < q + n && q < o + (out->size ? out->size : 1u);
}

/* Writes the delta's header once its ops are written. */
static void ecs__delta_head(ecs__delta_gen *g, uint64_t base_hash, uint64_t next_hash)
{
    memcpy(g->p, "ECSD", 4);
    ecs__res_wr32(g->p + 4, ECS_SNAPSHOT_DELTA_VERSION, g->swap);
    ecs__res_wr32(g->p + 8, ECS__SNAP_BOM, g->swap);
    ecs__res_wr32(g->p + 12, g->num_ops, g->swap);
    ecs__delta_put64(g->p + 16, g->at, g->swap);
    ecs__delta_put64(g->p + 24, g->base_size, g->swap);
    ecs__delta_put64(g->p + 32, base_hash, g->swap);
    ecs__delta_put64(g->p + 40, g->next_size, g->swap);
    ecs__delta_put64(g->p + 48, next_hash, g->swap);
    ecs__delta_put64(g->p + 56, g->flags, g->swap);
}

ECS_DEF ecs_result ecs_snapshot_delta_hashed(const void *base, size_t base_size, const void *next, size_t next_size,
                                             uint32_t flags, ecs_snapshot_delta_hashes *hashes, ecs_snapshot_output *out,
                                             ecs_error *err)
{
    ecs__snap_reader rb, rn;
    ecs__delta_gen g;
    ecs_result r;
    int reuse = (flags & ECS_SNAPSHOT_REUSE_OUTPUT) != 0;
    uint32_t known = hashes ? hashes->known : 0u;
    uint64_t hb, hn;
    size_t had;
    if (!out) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_delta: out is NULL");
    if (reuse && (ecs__snap_out_overlaps(out, base, base_size) || ecs__snap_out_overlaps(out, next, next_size))) {
        out->size = 0; /* as for every refusal; the buffer is the caller's still */
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_delta: out's buffer holds base or next");
    }
    if (!reuse) out->data = NULL;
    had = out->size;
    out->size = 0;
    if ((r = ecs__delta_shape(base, base_size, "base", &rb, err)) != ECS_OK ||
        (r = ecs__delta_shape(next, next_size, "next", &rn, err)) != ECS_OK)
        return r;
    if (rb.swap != rn.swap)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_delta: base and next are in different byte orders");
    memset(&g, 0, sizeof g);
    g.base = (const unsigned char *)base;
    g.next = (const unsigned char *)next;
    g.base_size = base_size;
    g.next_size = next_size;
    g.swap = rb.swap;
    g.hash_base = !(known & ECS_SNAPSHOT_BASE_HASH);
    g.hash_next = !(known & ECS_SNAPSHOT_NEXT_HASH);
    g.p = (unsigned char *)out->data;
    g.cap = reuse && out->data ? had : 0; /* (the buffer holds at least what it held last) */
    ecs__hash_init(&g.hb, 0);
    ecs__hash_init(&g.hn, 0);
    if (ecs__delta_room(&g, ECS__DELTA_HEAD)) g.at = ECS__DELTA_HEAD;
    ecs__delta_sections(&g, &rb, &rn);
    if (g.oom) {
        if (!reuse) ECS__FREE(g.p);
        out->data = reuse ? g.p : NULL;
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_delta: out of memory for %lu bytes", (unsigned long)g.at);
    }
    hb = g.hash_base ? ecs__hash_final(&g.hb) : hashes->base_hash;
    hn = g.hash_next ? ecs__hash_final(&g.hn) : hashes->next_hash;
    ecs__delta_head(&g, hb, hn);
    if (hashes) {
        hashes->base_hash = hb;
        hashes->next_hash = hn;
        hashes->known = ECS_SNAPSHOT_BASE_HASH | ECS_SNAPSHOT_NEXT_HASH;
    }
    out->data = g.p;
    out->size = g.at;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_snapshot_delta(const void *base, size_t base_size, const void *next, size_t next_size, uint32_t flags,
                                      ecs_snapshot_output *out, ecs_error *err)
{
    return ecs_snapshot_delta_hashed(base, base_size, next, next_size, flags, NULL, out, err);
}

/* -- a delta from a live world: the blocks whose digests changed travel --

   The world's save is streamed again (nothing written, and only the blocks
   that travel read); each block of now is looked for among base's blocks
   from the one after the last found (ECS__DELTA_WINDOW of them, and one
   more for each block missed since: blocks changed in place, grown arrays
   and shrunk ones keep their order; see below for when), and after ECS__DELTA_LOST misses in
   a row once through the rest of base (all such searches of one delta
   together read base's digests twice at most). Most misses are blocks
   changed where they lie, so a miss tries only the two likely places (the
   block after the last found: blocks were inserted; as many on as blocks
   were missed: they changed in place), and the window every
   ECS__DELTA_RETRY misses (blocks removed from base cost that many). */

#define ECS__DELTA_WINDOW 32u
#define ECS__DELTA_LOST 64u
#define ECS__DELTA_RETRY 8u

typedef struct ecs__delta_live {
    ecs__delta_gen *g;
    const ecs_snapshot_digest *base, *now;
    uint64_t at;                          /* bytes of the world's save streamed so far */
    size_t k;                             /* now's next block */
    size_t j;                             /* base's block after the last one found */
    uint64_t copied_to;                   /* the end in base of the last copy (copies go forward) */
    uint32_t lost;                        /* blocks not found in a row */
    int scanned;                          /* the rest of base was searched since the last find */
    size_t budget;                        /* base's digests the searches past the window may still read */
    int copying;                          /* the open block is a copy from base */
    int backward;                         /* now's blocks went back: now is no digest */
} ecs__delta_live;

/* Bytes of block k of d. */
static uint64_t ecs__digest_block_size(const ecs_snapshot_digest *d, size_t k)
{
    return (k + 1u < d->num_blocks ? d->block[k + 1u].offset : d->size) - d->block[k].offset;
}

/* 1 when base's block x holds the bytes of a block of now with that
   digest and size, and lies after the last copy (copies go forward: a base
   whose blocks go back is no digest, and gives no copy from there). */
static int ecs__delta_holds(const ecs__delta_live *d, size_t x, uint64_t digest, uint64_t n)
{
    const ecs_snapshot_digest *b = d->base;
    return b->block[x].digest == digest && ecs__digest_block_size(b, x) == n && b->block[x].offset >= d->copied_to;
}

/* base's block holding the bytes of a block of now with that digest and
   size, at or after d->j: base->num_blocks when there is none. */
static size_t ecs__delta_match(ecs__delta_live *d, uint64_t digest, uint64_t n)
{
    const ecs_snapshot_digest *b = d->base;
    size_t x, reach = (size_t)ECS__DELTA_WINDOW + d->lost;
    size_t end = b->num_blocks - d->j > reach ? d->j + reach : b->num_blocks;
    if (d->lost % ECS__DELTA_RETRY || d->lost == 0) { /* a block changed where it lies, or inside a run of misses */
        if (d->j < end && ecs__delta_holds(d, d->j, digest, n)) return d->j;
        if (d->j + d->lost < end && ecs__delta_holds(d, d->j + d->lost, digest, n)) return d->j + d->lost;
        return b->num_blocks;
    }
    for (x = d->j; x < end && !ecs__delta_holds(d, x, digest, n); ++x) continue;
    if (x == end && (d->lost < ECS__DELTA_LOST || d->scanned || d->budget < b->num_blocks - x)) return b->num_blocks;
    if (x == end) d->budget -= b->num_blocks - x;
    for (; x < b->num_blocks && !ecs__delta_holds(d, x, digest, n); ++x) continue;
    if (x == b->num_blocks) d->scanned = 1;
    return x;
}

/* The next `bytes` bytes of now are base's from its block x on: a copy. */
static void ecs__delta_found(ecs__delta_live *d, size_t x, uint64_t bytes)
{
    ecs__delta_copy(d->g, (size_t)d->base->block[x].offset, (size_t)bytes);
    d->copied_to = d->base->block[x].offset + bytes;
    d->j = x + 1u;
    d->lost = 0;
    d->scanned = 0;
}

/* Now's block k starts here: a copy from base, with the blocks after it
   that follow on in both (one op), or its bytes follow. */
static void ecs__delta_live_block(ecs__delta_live *d)
{
    const ecs_snapshot_digest *b = d->base, *n = d->now;
    size_t x = ecs__delta_match(d, n->block[d->k].digest, ecs__digest_block_size(n, d->k)), k = d->k + 1u, y = x + 1u;
    uint64_t bytes;
    d->copying = x < b->num_blocks;
    if (!d->copying) {
        d->lost++;
        d->k++;
        return;
    }
    while (k < n->num_blocks && y < b->num_blocks && n->block[k].digest == b->block[y].digest) /* (a digest holds the size) */
        ++k, ++y;
    bytes = (k < n->num_blocks ? n->block[k].offset : n->size) - n->block[d->k].offset;
    if ((y < b->num_blocks ? b->block[y].offset : b->size) - b->block[x].offset != bytes) { /* (not digests: block x alone) */
        k = d->k + 1u, y = x + 1u;
        bytes = ecs__digest_block_size(n, d->k);
    }
    ecs__delta_found(d, x, bytes);
    d->k = k;
    d->j = y;
}

/* ecs_state_visit_fn of the world's save: each block a copy from base or
   its bytes (up to the next block's start at a time). */
static void ecs__delta_live_feed(void *ctx, const void *bytes, size_t n)
{
    ecs__delta_live *d = (ecs__delta_live *)ctx;
    const unsigned char *p = (const unsigned char *)bytes;
    while (n) {
        uint64_t to;
        size_t take;
        if (d->k < d->now->num_blocks && d->at == d->now->block[d->k].offset) ecs__delta_live_block(d);
        to = d->k < d->now->num_blocks ? d->now->block[d->k].offset : d->at + n;
        if (to <= d->at) { /* now's blocks do not go forward: no digest */
            d->backward = 1;
            return;
        }
        take = to - d->at < n ? (size_t)(to - d->at) : n;
        if (!d->copying) ecs__delta_literal(d->g, p, take);
        d->at += take;
        p += take;
        n -= take;
    }
}

static void ecs__delta_live_cut(void *ctx) { (void)ctx; /* (now's blocks say where they start) */ }

/* 1 when d's blocks start at 0 and the last one inside its size (that
   they go forward is checked as they are used: ecs__delta_live_feed,
   ecs__delta_match). */
static int ecs__digest_whole(const ecs_snapshot_digest *d)
{
    if (d->num_blocks == 0) return d->size == 0;
    return d->block && d->block[0].offset == 0 && d->block[d->num_blocks - 1u].offset < d->size;
}

/* g and d at the start of a stream of the world (again, for the second pass). */
static void ecs__delta_live_start(ecs__delta_gen *g, ecs__delta_live *d)
{
    g->at = g->num_ops = 0, g->op = 0;
    d->at = d->k = d->j = 0;
    d->copied_to = 0;
    d->lost = 0;
    d->scanned = d->copying = d->backward = 0;
    d->budget = 2u * d->base->num_blocks;
    if (ecs__delta_room(g, ECS__DELTA_HEAD)) g->at = ECS__DELTA_HEAD;
}

/* The delta's ops into g from the world's save (a second stream, from
   copies, when a store's visit_state is not its save): 1, or 0 out of
   memory; d->at the bytes streamed. */
static int ecs__delta_live_ops(ecs__delta_gen *g, ecs__delta_live *d, const ecs_world *w)
{
    int pass, r = 0;
    for (pass = 0; pass < 2; ++pass) {
        ecs__delta_live_start(g, d);
        if ((r = ecs__snap_stream_world(w, ecs__delta_live_feed, ecs__delta_live_cut, d, pass)) != -1) break;
    }
    ecs__delta_close(g);
    return r == 1 && !g->oom;
}

/* The checks both deltas from the world make of their arguments (fn: the
   caller's name; now: its digest, or NULL for the one it fills), and g
   ready to write into out's buffer: ECS_OK, or the error (out->size 0). */
static ecs_result ecs__delta_world_begin(const char *fn, const ecs_snapshot_digest *base, const ecs_world *w,
                                         const ecs_snapshot_digest *now, int need_now, uint32_t flags,
                                         ecs_snapshot_output *out, ecs__delta_gen *g, ecs_error *err)
{
    int reuse = (flags & ECS_SNAPSHOT_REUSE_OUTPUT) != 0;
    size_t had;
    if (!out) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    if (!reuse) out->data = NULL;
    had = out->size;
    out->size = 0;
    if (!base || !w || !now)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, !base ? "base" : !w ? "w" : "now");
    if (!ecs__digest_whole(base) || (need_now && !ecs__digest_whole(now))) {
        const ecs_snapshot_digest *bad = ecs__digest_whole(base) ? now : base;
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "%s: %s is no ecs_snapshot_world_digest (%lu blocks for %llu bytes, "
                             "not starting at 0 and going forward inside them)",
                             fn, bad == now ? "now" : "base", (unsigned long)bad->num_blocks, (unsigned long long)bad->size);
    }
    memset(g, 0, sizeof *g);
    g->base_size = (size_t)base->size;
    g->p = (unsigned char *)out->data;
    g->cap = reuse && out->data ? had : 0;
    g->flags = ECS_SNAPSHOT_DELTA_WORLD_HASHES;
    return ECS_OK;
}

/* The delta in g done: its header, out holding it. */
static ecs_result ecs__delta_world_done(ecs__delta_gen *g, uint64_t base_hash, uint64_t next_size, uint64_t next_hash,
                                        ecs_snapshot_output *out)
{
    g->next_size = (size_t)next_size;
    ecs__delta_head(g, base_hash, next_hash);
    out->data = g->p;
    out->size = g->at;
    return ECS_OK;
}

/* A delta from the world that failed: out's buffer kept (reuse) or freed. */
static void ecs__delta_world_drop(ecs__delta_gen *g, uint32_t flags, ecs_snapshot_output *out)
{
    int reuse = (flags & ECS_SNAPSHOT_REUSE_OUTPUT) != 0;
    if (!reuse) ECS__FREE(g->p);
    out->data = reuse ? g->p : NULL;
}

ECS_DEF ecs_result ecs_snapshot_delta_from_world(const ecs_snapshot_digest *base, const ecs_world *w,
                                                 const ecs_snapshot_digest *now, uint32_t flags, ecs_snapshot_output *out,
                                                 ecs_error *err)
{
    static const char fn[] = "ecs_snapshot_delta_from_world";
    ecs__delta_gen g;
    ecs__delta_live d;
    ecs_result r = ecs__delta_world_begin(fn, base, w, now, 1, flags, out, &g, err);
    int ok;
    if (r != ECS_OK) return r;
    d.g = &g;
    d.base = base;
    d.now = now;
    ok = ecs__delta_live_ops(&g, &d, w);
    if (!ok || d.at != now->size || d.backward) {
        ecs__delta_world_drop(&g, flags, out);
        if (!ok) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
        if (d.backward)
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "%s: now is no ecs_snapshot_world_digest (its blocks do not go forward)", fn);
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "%s: now is not w's digest (w saves %llu bytes, now lists %llu)",
                             fn, (unsigned long long)d.at, (unsigned long long)now->size);
    }
    return ecs__delta_world_done(&g, base->hash, now->size, now->hash, out);
}

/* -- the digest and the delta in one pass: each block handed over as it is hashed -- */

/* The tap's run (if any) as a copy: d goes on after it. */
static void ecs__delta_tap_run(ecs__delta_live *d, ecs__hash_tap *t)
{
    if (!t->run) return;
    ecs__delta_found(d, t->run_from, t->run);
    d->j = t->next;
    t->run = 0;
}

/* ecs__hash_tap's block after the run: a copy from base when base holds
   it (a run starts there), else its bytes (in the cache: they were just
   hashed). */
static void ecs__delta_digested_block(void *ctx, ecs__hash_tap *t, uint64_t digest, uint64_t size, const unsigned char *rest,
                                      size_t num_rest)
{
    ecs__delta_live *d = (ecs__delta_live *)ctx;
    size_t x;
    ecs__delta_tap_run(d, t);
    x = ecs__delta_match(d, digest, size);
    if (x < d->base->num_blocks) {
        ecs__delta_found(d, x, size);
        t->next = d->j; /* a run from the block after it */
    } else {
        ecs__delta_literal(d->g, t->stage, t->staged);
        ecs__delta_literal(d->g, rest, num_rest);
        d->lost++;
        t->next = d->base->num_blocks - d->j > d->lost ? d->j + d->lost : d->base->num_blocks; /* changed in place */
    }
    t->floor = d->copied_to;
}

ECS_DEF ecs_result ecs_snapshot_world_digest_delta(const ecs_world *w, const ecs_snapshot_digest *base,
                                                   ecs_snapshot_digest *now, uint32_t flags, ecs_snapshot_output *out,
                                                   ecs_error *err)
{
    static const char fn[] = "ecs_snapshot_world_digest_delta";
    ecs__delta_gen g;
    ecs__delta_live d;
    ecs__hash h;
    ecs__hash_tap tap;
    ecs_result r = ecs__delta_world_begin(fn, base, w, now, 0, flags, out, &g, err);
    int pass, streamed = 0;
    if (r != ECS_OK) return r;
    memset(&d, 0, sizeof d);
    d.g = &g;
    d.base = base;
    d.now = now;
    for (pass = 0; pass < 2; ++pass) { /* the second from copies, when a store's visit_state is not its save */
        now->num_blocks = 0;
        now->oom = 0;
        ecs__hash_init(&h, 0);
        memset(&tap, 0, sizeof tap);
        tap.block = ecs__delta_digested_block;
        tap.ctx = &d;
        tap.base = base;
        tap.next = base->num_blocks;
        h.keep = now;
        h.tap = &tap;
        ecs__delta_live_start(&g, &d);
        if ((streamed = ecs__snap_stream_world(w, ecs__hash_visit, ecs__hash_cut_at, &h, pass)) != -1) break;
    }
    if (streamed == 1) {
        now->hash = ecs__hash_final(&h); /* (its last block handed over too) */
        now->size = h.total;
        ecs__delta_tap_run(&d, &tap);
    }
    ecs__delta_close(&g);
    if (streamed != 1 || now->oom || g.oom) {
        now->num_blocks = 0;
        now->hash = now->size = 0;
        ecs__delta_world_drop(&g, flags, out);
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    return ecs__delta_world_done(&g, base->hash, now->size, now->hash, out);
}

/* -- reading a delta -- */

/* "snapshot delta: offset N (where): why" as ECS_ERROR_CORRUPT_RESOURCE. */
static ecs_result ecs__delta_bad(ecs_error *err, size_t offset, const char *where, const char *format, ...)
    ECS__RES_PRINTF(4, 5);
static ecs_result ecs__delta_bad(ecs_error *err, size_t offset, const char *where, const char *format, ...)
{
    ecs_result r;
    va_list ap;
    va_start(ap, format);
    r = ecs__snap_bad_va(err, "snapshot delta", offset, where, format, ap);
    va_end(ap);
    return r;
}

typedef struct ecs__delta_rd {
    const unsigned char *d;
    size_t size;
    int swap;
    ecs_snapshot_delta_info info;
} ecs__delta_rd;

typedef struct ecs__delta_op {
    size_t at;            /* the record's offset */
    uint64_t src, len;    /* src: ECS__DELTA_LITERAL for literal bytes (at + 16) */
    size_t next;          /* the next record's offset */
} ecs__delta_op;

static uint64_t ecs__delta_rd64(const ecs__delta_rd *rd, size_t at) { return ecs__snap_rd64(rd->d + at, rd->swap); }

/* The record at `at` (checked by ecs__delta_open). */
static void ecs__delta_op_at(const ecs__delta_rd *rd, size_t at, ecs__delta_op *op)
{
    op->at = at;
    op->src = ecs__delta_rd64(rd, at);
    op->len = ecs__delta_rd64(rd, at + 8);
    op->next = at + ECS__DELTA_OP + (op->src == ECS__DELTA_LITERAL ? ecs__snap_pad8((size_t)op->len) : 0u);
}

/* Op k's record at `at`, given the bytes of next it starts at (out) and
   the lowest base offset it may copy from (*from): checked. */
static ecs_result ecs__delta_check_op(const ecs__delta_rd *rd, uint32_t k, size_t at, uint64_t out, uint64_t *from,
                                      ecs_error *err)
{
    const ecs_snapshot_delta_info *in = &rd->info;
    uint64_t src, len;
    char where[48];
    snprintf(where, sizeof where, "op %u", (unsigned)k);
    if (rd->size - at < ECS__DELTA_OP)
        return ecs__delta_bad(err, at, where, "truncated: %lu bytes left, an op has 16", (unsigned long)(rd->size - at));
    src = ecs__delta_rd64(rd, at);
    len = ecs__delta_rd64(rd, at + 8);
    if (len == 0 || len > in->next_size - out)
        return ecs__delta_bad(err, at + 8, where, "length %llu (%llu of next_size %llu bytes left)", (unsigned long long)len,
                              (unsigned long long)(in->next_size - out), (unsigned long long)in->next_size);
    if (src == ECS__DELTA_LITERAL) {
        size_t room = rd->size - at - ECS__DELTA_OP;
        if (len > room || ecs__snap_pad8((size_t)len) > room)
            return ecs__delta_bad(err, at + 8, where, "%llu literal bytes, %lu bytes left", (unsigned long long)len,
                                  (unsigned long)room);
        if (!ecs__snap_zero(rd->d + at + ECS__DELTA_OP + len, ecs__snap_pad8((size_t)len) - (size_t)len))
            return ecs__delta_bad(err, at + ECS__DELTA_OP + (size_t)len, where, "the padding after the literal bytes is not zero");
        return ECS_OK;
    }
    if (src < *from || src > in->base_size || len > in->base_size - src)
        return ecs__delta_bad(err, at, where, "a copy of %llu bytes from %llu (base has %llu; copies go forward from %llu)",
                              (unsigned long long)len, (unsigned long long)src, (unsigned long long)in->base_size,
                              (unsigned long long)*from);
    *from = src + len;
    return ECS_OK;
}

/* The header and every op: sizes in range, copies forward inside the base,
   the ops giving next_size bytes, nothing after them. */
static ecs_result ecs__delta_open(ecs__delta_rd *rd, const void *delta, size_t size, ecs_error *err)
{
    const unsigned char *d = (const unsigned char *)delta;
    ecs_snapshot_delta_info *in = &rd->info;
    uint32_t bom, version, k;
    uint64_t out = 0, from = 0;
    size_t at = ECS__DELTA_HEAD;
    ecs_result r;
    memset(rd, 0, sizeof *rd);
    if (!delta) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "snapshot delta: delta is NULL");
    if (size < ECS__DELTA_HEAD) return ecs__delta_bad(err, 0, "header", "%lu bytes, a delta has at least 64", (unsigned long)size);
    if (memcmp(d, "ECSD", 4) != 0) return ecs__delta_bad(err, 0, "magic", "not a snapshot delta (magic is not 'ECSD')");
    memcpy(&bom, d + 8, 4);
    if (bom != ECS__SNAP_BOM && bom != ecs__res_bswap32(ECS__SNAP_BOM))
        return ecs__delta_bad(err, 8, "byte_order", "0x%08X is no byte order mark", (unsigned)bom);
    rd->d = d;
    rd->size = size;
    rd->swap = bom != ECS__SNAP_BOM;
    version = ecs__res_rd32(d + 4, rd->swap);
    if (version != ECS_SNAPSHOT_DELTA_VERSION)
        return ecs__delta_bad(err, 4, "version",
                              "version %u; this library reads version %u (version 1 named snapshots by the hash of "
                              "ecs_snapshot.h before 0.11)",
                              (unsigned)version, (unsigned)ECS_SNAPSHOT_DELTA_VERSION);
    in->num_ops = ecs__res_rd32(d + 12, rd->swap);
    in->base_size = ecs__delta_rd64(rd, 24);
    in->base_hash = ecs__delta_rd64(rd, 32);
    in->next_size = ecs__delta_rd64(rd, 40);
    in->next_hash = ecs__delta_rd64(rd, 48);
    if (ecs__delta_rd64(rd, 16) != (uint64_t)size)
        return ecs__delta_bad(err, 16, "total_size", "total_size %llu, the buffer holds %lu bytes",
                              (unsigned long long)ecs__delta_rd64(rd, 16), (unsigned long)size);
    if (ecs__delta_rd64(rd, 56) & ~(uint64_t)ECS_SNAPSHOT_DELTA_WORLD_HASHES)
        return ecs__delta_bad(err, 56, "flags", "0x%llx has bits this library does not know",
                              (unsigned long long)ecs__delta_rd64(rd, 56));
    in->flags = (uint32_t)ecs__delta_rd64(rd, 56);
    if (in->base_size > (uint64_t)SIZE_MAX || in->next_size > (uint64_t)SIZE_MAX)
        return ecs__delta_bad(err, 24, "base_size", "base %llu and next %llu bytes do not fit this machine's memory",
                              (unsigned long long)in->base_size, (unsigned long long)in->next_size);
    if (in->num_ops > (size - ECS__DELTA_HEAD) / ECS__DELTA_OP)
        return ecs__delta_bad(err, 12, "num_ops", "%u ops cannot fit", (unsigned)in->num_ops);
    for (k = 0; k < in->num_ops; ++k) {
        ecs__delta_op op;
        if ((r = ecs__delta_check_op(rd, k, at, out, &from, err)) != ECS_OK) return r;
        ecs__delta_op_at(rd, at, &op);
        out += op.len;
        in->literal_bytes += op.src == ECS__DELTA_LITERAL ? op.len : 0u;
        at = op.next;
    }
    if (at != size) return ecs__delta_bad(err, at, "end", "%lu bytes after the last op", (unsigned long)(size - at));
    if (out != in->next_size)
        return ecs__delta_bad(err, 40, "next_size", "next_size %llu, the ops give %llu bytes", (unsigned long long)in->next_size,
                              (unsigned long long)out);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_snapshot_delta_verify(const void *delta, size_t size, ecs_snapshot_delta_info *info, ecs_error *err)
{
    ecs__delta_rd rd;
    ecs_result r = ecs__delta_open(&rd, delta, size, err);
    if (info && r == ECS_OK) *info = rd.info;
    else if (info) memset(info, 0, sizeof *info);
    return r;
}

/* -- applying a delta -- */

/* Hashes base (unless hb_out is NULL: the caller knows it) and the result
   the delta gives from it (base read once, in order: copies go forward),
   without writing anything. */
static void ecs__delta_hashes(const ecs__delta_rd *rd, const unsigned char *base, uint64_t *hb_out, uint64_t *hn_out)
{
    ecs__hash hb, hn;
    size_t at = ECS__DELTA_HEAD, read = 0;
    uint32_t k;
    ecs__hash_init(&hb, 0);
    ecs__hash_init(&hn, 0);
    for (k = 0; k < rd->info.num_ops; ++k) {
        ecs__delta_op op;
        ecs__delta_op_at(rd, at, &op);
        if (op.src == ECS__DELTA_LITERAL) {
            ecs__hash_feed(&hn, rd->d + at + ECS__DELTA_OP, (size_t)op.len);
        } else {
            size_t x, src = (size_t)op.src, len = (size_t)op.len;
            if (hb_out) ecs__hash_feed(&hb, base + read, src - read);
            for (x = 0; x < len; x += ECS__DELTA_CHUNK) { /* each chunk twice while it is in cache */
                size_t n = len - x < ECS__DELTA_CHUNK ? len - x : ECS__DELTA_CHUNK;
                if (hb_out) ecs__hash_feed(&hb, base + src + x, n);
                ecs__hash_feed(&hn, base + src + x, n);
            }
            read = src + len;
        }
        at = op.next;
    }
    if (hb_out) {
        ecs__hash_feed(&hb, base + read, (size_t)rd->info.base_size - read);
        *hb_out = ecs__hash_final(&hb);
    }
    *hn_out = ecs__hash_final(&hn);
}

/* Writes the result into dst (not base): every op in order. */
static void ecs__delta_write(const ecs__delta_rd *rd, const unsigned char *base, unsigned char *dst)
{
    size_t at = ECS__DELTA_HEAD, o = 0;
    uint32_t k;
    for (k = 0; k < rd->info.num_ops; ++k) {
        ecs__delta_op op;
        ecs__delta_op_at(rd, at, &op);
        memcpy(dst + o, op.src == ECS__DELTA_LITERAL ? rd->d + at + ECS__DELTA_OP : base + op.src, (size_t)op.len);
        o += (size_t)op.len;
        at = op.next;
    }
}

#define ECS__DELTA_STACK 256u /* op records one level of the backward walk remembers */

/* In place, the copies that move bytes to higher offsets, last first (a
   forward walk cannot: each would overwrite the next one's source): the
   `count` of them in the records [at, end), the first at next offset o.
   Up to ECS__DELTA_STACK are remembered and done backwards; more are
   split into ECS__DELTA_STACK runs by a forward walk, done last run first
   (each level walks its records once; three levels cover 2^24 copies). */
static void ecs__delta_rightward(const ecs__delta_rd *rd, unsigned char *buf, size_t at, size_t end, size_t o, uint64_t count)
{
    size_t rec[ECS__DELTA_STACK], pos[ECS__DELTA_STACK];
    uint64_t each = count <= ECS__DELTA_STACK ? 1u : (count + ECS__DELTA_STACK - 1u) / ECS__DELTA_STACK, seen = 0;
    uint32_t n = 0, total;
    while (at < end && n < ECS__DELTA_STACK) {
        ecs__delta_op op;
        ecs__delta_op_at(rd, at, &op);
        if (op.src != ECS__DELTA_LITERAL && op.src < o) {
            if (seen % each == 0) {
                rec[n] = at;
                pos[n++] = o;
            }
            ++seen;
        }
        o += (size_t)op.len;
        at = op.next;
    }
    for (total = n; n--;) {
        if (each == 1u) {
            ecs__delta_op op;
            ecs__delta_op_at(rd, rec[n], &op);
            memmove(buf + pos[n], buf + op.src, (size_t)op.len);
        } else {
            uint64_t left = count - (uint64_t)n * each;
            ecs__delta_rightward(rd, buf, rec[n], n + 1u < total ? rec[n + 1u] : end, pos[n], left < each ? left : each);
        }
    }
}

/* In place (buf holds base, room for next): copies to lower offsets first
   to last, then those to higher offsets last to first, then the literal
   bytes; a copy that stays where it is is skipped. (Copies go forward
   through base, so none of these overwrites a source still to be read.) */
static void ecs__delta_in_place(const ecs__delta_rd *rd, unsigned char *buf)
{
    size_t at = ECS__DELTA_HEAD, o = 0;
    uint64_t rightward = 0;
    uint32_t k;
    for (k = 0; k < rd->info.num_ops; ++k) {
        ecs__delta_op op;
        ecs__delta_op_at(rd, at, &op);
        if (op.src != ECS__DELTA_LITERAL && op.src > o) memmove(buf + o, buf + op.src, (size_t)op.len);
        rightward += op.src != ECS__DELTA_LITERAL && op.src < o;
        o += (size_t)op.len;
        at = op.next;
    }
    if (rightward) ecs__delta_rightward(rd, buf, ECS__DELTA_HEAD, rd->size, 0, rightward);
    for (k = 0, at = ECS__DELTA_HEAD, o = 0; k < rd->info.num_ops; ++k) {
        ecs__delta_op op;
        ecs__delta_op_at(rd, at, &op);
        if (op.src == ECS__DELTA_LITERAL) memcpy(buf + o, rd->d + at + ECS__DELTA_OP, (size_t)op.len);
        o += (size_t)op.len;
        at = op.next;
    }
}

/* The checks of apply that read base: its size and hash (hashes->base_hash
   when the caller knows it, else computed) against the delta's, and the
   hash of the bytes the delta gives from it (always computed). */
static ecs_result ecs__delta_check_base(const ecs__delta_rd *rd, const void *base, size_t base_size,
                                        const ecs_snapshot_delta_hashes *hashes, uint64_t *hb, uint64_t *hn, ecs_error *err)
{
    int known = hashes && (hashes->known & ECS_SNAPSHOT_BASE_HASH), world = rd->info.flags & ECS_SNAPSHOT_DELTA_WORLD_HASHES;
    if (world && !known)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_snapshot_apply_delta: the delta names its base by world hash (%016llx, "
                             "ecs_snapshot_delta_from_world): give the base's world hash to ecs_snapshot_apply_delta_hashed",
                             (unsigned long long)rd->info.base_hash);
    if (rd->info.base_size != (uint64_t)base_size)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_snapshot_apply_delta: the delta applies to the snapshot of %llu bytes with hash %016llx; "
                             "this base has %lu bytes", (unsigned long long)rd->info.base_size,
                             (unsigned long long)rd->info.base_hash, (unsigned long)base_size);
    if (known) *hb = hashes->base_hash;
    if (known && *hb != rd->info.base_hash) /* refused before base is read */
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_snapshot_apply_delta: the delta applies to the snapshot with hash %016llx; this base's hash "
                             "is %016llx (as the caller gave it)", (unsigned long long)rd->info.base_hash,
                             (unsigned long long)*hb);
    if (world) { /* the world hashes of base and of the result: the caller checks after loading it */
        *hn = rd->info.next_hash;
        return ECS_OK;
    }
    ecs__delta_hashes(rd, (const unsigned char *)base, known ? NULL : hb, hn);
    if (*hb != rd->info.base_hash)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_snapshot_apply_delta: the delta applies to the snapshot with hash %016llx; this base's hash "
                             "is %016llx", (unsigned long long)rd->info.base_hash, (unsigned long long)*hb);
    if (*hn != rd->info.next_hash)
        return ecs__delta_bad(err, 48, "next_hash", "the ops give bytes of hash %016llx, the delta names %016llx (a copy or "
                              "a literal byte is corrupt%s)", (unsigned long long)*hn, (unsigned long long)rd->info.next_hash,
                              known ? ", or base is not the snapshot of the hash given for it" : "");
    return ECS_OK;
}

ECS_DEF ecs_result ecs_snapshot_apply_delta_hashed(const void *base, size_t base_size, const void *delta, size_t delta_size,
                                                   uint32_t flags, ecs_snapshot_delta_hashes *hashes, ecs_snapshot_output *out,
                                                   ecs_error *err)
{
    ecs__delta_rd rd;
    ecs_result r;
    uint64_t hb = 0, hn = 0;
    int reuse = (flags & ECS_SNAPSHOT_REUSE_OUTPUT) != 0, in_place;
    unsigned char *dst;
    size_t need;
    if (!out || !base) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_apply_delta: base or out is NULL");
    if (reuse && ecs__snap_out_overlaps(out, delta, delta_size))
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_snapshot_apply_delta: out's buffer holds the delta");
    in_place = reuse && out->data == base;
    if (reuse && !in_place && ecs__snap_out_overlaps(out, base, base_size))
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_snapshot_apply_delta: out's buffer holds base past its start (in place, base is out->data)");
    if ((r = ecs__delta_open(&rd, delta, delta_size, err)) != ECS_OK) return r;
    if ((r = ecs__delta_check_base(&rd, base, base_size, hashes, &hb, &hn, err)) != ECS_OK) return r;
    /* everything checked: now the output */
    need = (size_t)rd.info.next_size;
    if (reuse && out->data && need <= (in_place ? base_size : out->size)) dst = (unsigned char *)out->data; /* big enough */
    else if (in_place) dst = (unsigned char *)ECS__REALLOC(out->data, need ? need : 1u); /* grown, base's bytes kept */
    else dst = ecs__snap_buffer(reuse ? out->data : NULL, reuse ? out->size : 0u, need); /* nothing copied */
    if (!dst)
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_snapshot_apply_delta: out of memory for %lu bytes",
                             (unsigned long)need);
    if (in_place) ecs__delta_in_place(&rd, dst);
    else ecs__delta_write(&rd, (const unsigned char *)base, dst);
    out->data = dst;
    out->size = (size_t)rd.info.next_size;
    if (hashes) {
        hashes->base_hash = hb;
        hashes->next_hash = hn;
        hashes->known = ECS_SNAPSHOT_BASE_HASH | ECS_SNAPSHOT_NEXT_HASH;
    }
    return ECS_OK;
}

ECS_DEF ecs_result ecs_snapshot_apply_delta(const void *base, size_t base_size, const void *delta, size_t delta_size,
                                            uint32_t flags, ecs_snapshot_output *out, ecs_error *err)
{
    return ecs_snapshot_apply_delta_hashed(base, base_size, delta, delta_size, flags, NULL, out, err);
}

#endif /* ECS__SNAPSHOT_IMPLEMENTATION_DONE */
#endif /* ECS_SNAPSHOT_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
This software is available under 2 licenses -- choose whichever you prefer.
------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2026 the ecs.h authors
Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
ALTERNATIVE B - Public Domain (www.unlicense.org)
This is free and unencumbered software released into the public domain.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute this
software, either in source code form or as a compiled binary, for any purpose,
commercial or non-commercial, and by any means.
In jurisdictions that recognize copyright laws, the author or authors of this
software dedicate any and all copyright interest in the software to the public
domain. We make this dedication in perpetuation of all present and future
rights to this software under copyright law.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION
WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------
*/
