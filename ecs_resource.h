/* ecs_resource.h - v0.11 - entity resources: binary format, verify, spawn,
   JSON compiler and decompiler, schemas, resource paths, for ecs.h
   Public domain or MIT (see end of file).

   A level or a prefab is compiled from JSON into one blob that is spawned
   as-is: all entities with one ecs_entity_create_many, then one call per
   component type (the Bitsquid "entity resources" post, 2014). Needs ecs.h.
   Snapshots of a live world (save, load, clone, JSON, world hash) are in
   ecs_snapshot.h, which builds on this header.

   Do this in *one* C or C++ file (any order with ecs.h's implementation):
       #define ECS_RESOURCE_IMPLEMENTATION
       #include "ecs_resource.h"
   and include "ecs_resource.h" plainly (after "ecs.h") everywhere else.
   ecs_snapshot.h's implementation, when you take it, goes in that same
   file, after this one (CONFIGURATION).

TABLE OF CONTENTS
   QUICK START, FORMAT (version 1), VERIFY AND SPAWN, PATHS, COMPILER (JSON
   input, compile functions, standard components), SCHEMAS, ONE
   REGISTRATION (a world's types), ENTITY REFERENCES, NAMES BLOCK,
   REFERENCES (the dependency checker's readers), DECOMPILE, SAVE SUBTREE (a
   live subtree as a prefab), CONFIGURATION, ERRORS, MEMORY AND POINTER
   STABILITY, THREADING, DOES NOT, REFERENCE (every function's signature),
   REVISION HISTORY, LICENSE (end of file)
   The declarations and the implementation follow the same order: format,
   spawner, paths, JSON reader, compiler, names block, decompiler,
   references, one registration, save subtree (the MAP at the top of the
   implementation says what each part holds).

QUICK START (compiled and run by tests/check_quickstart.sh)

    #define ECS_IMPLEMENTATION
    #include "ecs.h"
    #define ECS_RESOURCE_IMPLEMENTATION
    #include "ecs_resource.h"
    #include <stdio.h>
    #include <string.h>

    // float *mass, *radius, and the schema "actor" levels compile with
    ECS_MANAGER_DEFINE_SCHEMA(actor_manager, ECS_RESOURCE_ACTOR_SCHEMA)

    int main(void) {
        const char *json = "{\"entities\": [{\"name\": \"ball\", \"components\": ["
                           "{\"type\": \"actor\", \"mass\": 2, \"radius\": 0.25}]}]}";
        ecs_entity_manager em;
        actor_manager actors;
        ecs_compiler compiler;
        ecs_compiler_output out;
        ecs_decompile_output text;
        ecs_spawner spawner;
        ecs_entity ball;
        ecs_error err;
        int ok;

        ecs_entity_manager_init(&em);
        ecs_compiler_init(&compiler);
        ecs_compiler_register_standard(&compiler, &err);  // transform, mesh, actor
        if (ecs_compiler_compile(&compiler, json, strlen(json), 0, &out, &err)) {
            printf("%s\n", err.message);  // "entities[0].components[0] (line 1, ...
            return 1;
        }
        actor_manager_init(&actors, ECS_LOOKUP_HASH);
        ecs_spawner_init(&spawner);
        ecs_spawner_register(&spawner, "actor", ecs_manager_spawn, ecs_manager_unspawn,
                             ECS_RESOURCE_ACTOR_SIZE, &actors.core, &err);
        // verifies the blob, creates the entity, fills the actor manager
        // (the typed pointers, actors.mass and the rest, follow on their own)
        if (ecs_spawner_spawn(&spawner, &em, out.blob, out.size, &ball, &err)) {
            printf("%s\n", err.message);
            return 1;
        }
        ok = actors.mass[actor_manager_lookup(&actors, ball).i] == 2.0f;
        // and back to JSON: {"entities": [ {"components": [ {"type": "actor", "mass": 2, ...
        if (ecs_compiler_decompile(&compiler, out.blob, out.size, 0, &text, &err) == ECS_OK) {
            ok = ok && strstr(text.json, "\"mass\": 2") != NULL;
            ecs_decompile_output_free(&text);
        }
        ecs_compiler_output_free(&out);
        ecs_compiler_free(&compiler);
        ecs_spawner_free(&spawner);
        actor_manager_free(&actors);
        ecs_entity_manager_free(&em);
        return ok ? 0 : 1;
    }

FORMAT (version 1, byte exact; every field a uint32 in the target byte order)
   offset  field
   0       magic 'E' 'C' 'S' 'R' (4 bytes, not a number)
   4       version = 1
   8       byte order mark 0x01020304 (reads 0x04030201 in the wrong order)
   12      total_size: bytes in the whole blob
   16      num_entities
   20      num_component_types
   24      parent_index[num_entities]: 0xFFFFFFFF = root, else < own index
   ...     num_component_types blocks, in spawn order:
             component_identifier   FNV-1a 32 of the component name's bytes
             num_instances
             size                   bytes of instance_data
             entity_index[num_instances]   each < num_entities
             instance_data[size]
             zero bytes up to the next multiple of 4 (not counted in size)
   Nothing follows the last block. Every block starts 4-byte aligned, so a
   blob loaded at a 4-byte aligned address can be read in place.

   Example, little-endian: two entities, entity 1 a child of entity 0, and one
   "actor" block (identifier 0x0E8CD7BA) with one instance for entity 1:
   mass 2.0f, radius 0.25f (8 bytes, so no padding). 56 bytes in all:
     00: 45 43 53 52  01 00 00 00  04 03 02 01  38 00 00 00  ECSR v1 bom 56
     10: 02 00 00 00  01 00 00 00  FF FF FF FF  00 00 00 00  2 ents, 1 type,
     20: BA D7 8C 0E  01 00 00 00  08 00 00 00  01 00 00 00  parents, block
     30: 00 00 00 40  00 00 80 3E                            2.0f 0.25f
   (tests/test_resource.c builds exactly these bytes by hand and spawns them.)

   Standard component records (packed, fields in the target byte order), laid
   out so that ecs.h's generic ecs_manager_spawn copies them into a manager
   whose fields are, in this order:
     "transform"  64 bytes  float local[16], row-major, row vectors
                            (world = local * parent_world; translation in
                            local[12..14]), e.g. ecs_transform_spawn
     "mesh"       12 bytes  uint64 mesh (ecs_path_hash of the mesh path),
                            uint32 flags   -> ECS_RESOURCE_MESH_SCHEMA
     "actor"       8 bytes  float mass, float radius -> ECS_RESOURCE_ACTOR_SCHEMA
   (ECS_MANAGER_DEFINE_SCHEMA(meshes, ECS_RESOURCE_MESH_SCHEMA) declares a
   manager that spawns "mesh" blocks.)

VERIFY AND SPAWN
   ecs_resource_verify checks everything a reader relies on: magic, version,
   byte order mark, total_size equal to the buffer size, every count, size
   and index inside the buffer (overflow-safe), parents before children,
   entity indices in range, zero padding, 4-byte aligned address. A verified
   blob is read with no further checks.
   An ecs_spawner maps component names to spawn functions (ecs.h's
   ecs_spawn_fn / ecs_unspawn_fn). A fixed instance size has
   size == num_instances * instance_size checked before the call;
   ECS_SPAWNER_VARIABLE_SIZE leaves the check to the spawn function. Spawning
   verifies, checks every registered block's size, creates all entities with
   one ecs_entity_create_many, then calls each block's spawn function once
   (once per copy with ecs_spawner_spawn_copies) in blob order. Blocks with no
   registered spawner are skipped in one jump. All or nothing: when a spawn
   function fails, the blocks already spawned are unspawned (newest first) and
   the entities destroyed, so nothing stays behind.
   ecs_spawner_spawn_jobs does the same with the blocks spawned across your
   job system's workers after the one create (THREADING).

PATHS
   A canonical resource path is relative to the project root, '/' between
   segments, segments of a-z 0-9 _ - . only, no empty, "." or ".." segment,
   no leading or trailing '/'. ecs_path_canonicalize gives the canonical
   spelling of a sloppy path where one exists: '\' is read as '/', A-Z are
   lowered, empty and "." segments vanish, ".." removes the segment before it,
   a leading '/' means the project root:
     "./././models\../textures\FLOWers/////rose" -> "textures/flowers/rose"
   There is none when ".." climbs above the root, when a character is outside
   the set (spaces, ':', non-ASCII), or when nothing is left.

COMPILER
   Input (RFC 8259 JSON, strict, UTF-8, nesting at most ECS_JSON_MAX_DEPTH):
     {"entities": [ {"name": "crate",
                     "components": [ {"type": "transform", "position": [1,2,3]},
                                     {"type": "mesh", "mesh": "models/crate"} ],
                     "children": [ {"components": [ ... ]} ] } ]}
   "name", "components" and "children" are optional; no other member is
   allowed (typos are errors). Names are for people and for references
   between entities (ENTITY REFERENCES); the blob keeps them only in the
   optional names block. An entity may hold several components of one type. Entities are
   numbered depth-first (an entity, then its children, then its next sibling),
   so parents come first. Blocks are sorted by spawn_order, then by name;
   instances within a block follow entity order. The same input and the same
   registrations always give the same bytes.
   A compile function (ecs_compiler_fn) turns one component object into the
   bytes of one instance through ecs_compiler_context: ecs_compiler_write_*
   write in the target byte order, ecs_compiler_member_* read members with
   defaults and type checks, ecs_compiler_write_reference validates a
   resource path, records it as a dependency and writes its 64-bit hash, and
   ecs_compiler_error reports an error at a JSON path.
   Standard components (ecs_compiler_register_standard registers all three;
   mesh and actor are schemas, the transform is hand-written):
     transform (spawn_order 0)   {"position": [x,y,z], "rotation": [x,y,z,w]
                                  (a quaternion, not all zero, however small:
                                  normalised), "scale": [x,y,z]
                                  or s}, each optional (0 / identity / 1); or
                                  {"local": [16 numbers]} row-major. One
                                  per entity (a second one is an error).
     mesh (spawn_order 100)      {"mesh": "models/crate", "flags": 3}; flags
                                  optional (0), an integer 0..4294967295.
     actor (spawn_order 200)     {"mass": 1.0, "radius": 0.5}, each optional
                                  (1.0, 0.5), finite and >= 0.

SCHEMAS (ecs_compiler_register_schema, ecs_compiler_register_manager)
   A schema (ecs.h's ecs_schema_field table or X-list, see SCHEMAS there)
   gives a component its compile and decompile functions, nothing written by
   hand: {"type": "turret", "range": 12, "ship": "hull"}. Members go by field
   name in any order; a missing member takes its default (a required one is
   an error); an unknown member, a runtime field, a member given twice, a
   wrong type and a number out of range are errors at their JSON path. The
   record is the non-runtime fields packed in order, each in the target
   byte order, so that a manager with the same schema spawns it with
   ecs_manager_spawn. The JSON of each kind:
     f32 f64          a number (an f32 is the float nearest the number as
                      written, and must be finite: ecs_json_f32)
     i8 u8 i16 u16    an integer in range, exactly, in any form of a whole
     i32 u32 u64      number (1e3, 1e19 and 2.50e1 are fine; 1.5 and
                      1.0000000000000000001 are not; nothing is rounded
                      through a double); i8 -128..127, u8 0..255, i16
                      -32768..32767, u16 0..65535 (a small enum: u8 with
                      "min" and "max")
     bool             true or false (one byte: 1 or 0)
     vec2 vec3 vec4   [x, y], [x, y, z], [x, y, z, w]
     quat             [x, y, z, w], not all zero, stored as written
     mat4             16 numbers, row-major
     path             a canonical resource path: its ecs_path_hash (uint64),
                      recorded as a dependency; or "#" and 16 hexadecimal
                      digits (either case), a hash as it is (the decompiler
                      writes that, lower case, for a hash it has no path for)
     entity           the "name" of an entity of the same resource, or null
                      (see ENTITY REFERENCES)
   spec "min" and "max" bound every number of a field (each element of a
   vector); an integer kind's bounds are whole numbers (below 2^64 in
   magnitude) compared exactly (a max of 2^53 refuses 2^53 + 1); a float
   kind's bounds are the floats their numbers read as (an f32 "max" of 0.1
   admits 0.1). Field names, like type names, must be UTF-8. The schema
   is checked when it is registered: every default must be a value the
   compiler would accept. Hand-written compile functions stay
   for special forms (the transform's position/rotation/scale);
   ecs_compiler_set_decompile gives one its inverse.
   One live value with the same checks: ecs_schema_value_read(field, doc,
   v, out, &err) reads a field's value from JSON for a running world (an
   entity field takes a live entity id there, a runtime field any value of
   its kind): ecs_console.h's world.set.

ONE REGISTRATION (ecs_spawner_register_world, ecs_compiler_register_world)
   An ecs_world (ecs.h) registers every component store once, by name;
   these two calls give a spawner and a compiler the world's types:
       ecs_world_define_schema(&world, "turret", turret_schema(&n), n,
                               ECS_LOOKUP_HASH, &err);   // or add_manager
       ecs_transform_world_register(&world, "transform", &tm, &err);
       ecs_compiler_register_world(&compiler, &world, &err);
       ecs_spawner_register_world(&spawner, &world, &err);
   Managers spawn with ecs_manager_spawn and the record size
   ecs_manager_record_size gives (the one documented size: a schema's
   record, or every field); the transform store with its interface's spawn
   function; schema managers compile and decompile from their schemas, the
   store registered as "transform" with the standard transform functions.
   Spawn orders: "transform", "mesh" and "actor" keep the standard ones (the
   same bytes as ecs_compiler_register_standard), the rest follow
   registration order from ECS_RESOURCE_WORLD_ORDER. Either call is all or
   nothing. What a call leaves out (a manager without a schema for the
   compiler, a store without spawn functions for the spawner) it says: on
   ECS_OK, err's message lists those components and why (empty when none):
       if (err.message[0]) printf("%s\n", err.message);  // left out 'sprite' (...)
   The separate calls (ecs_spawner_register, ecs_compiler_register_manager,
   ...) keep working beside them.

ENTITY REFERENCES
   A component may refer to another entity of the same resource by that
   entity's "name" (a turret aiming at its ship, a joint between two
   bodies). Names are resolved once every entity is numbered, so a
   reference may point anywhere in the resource, itself included. An
   unknown name, or one that several entities carry, is a compile error at
   the reference's JSON path (entities may share a name nobody refers to).
   The record holds the entity's resource index (null: 0xFFFFFFFF); the
   spawn maps it through the entity table of its copy, so every copy of
   ecs_spawner_spawn_copies refers to its own entities, and an aborted spawn
   leaves no reference behind. ecs_compiler_write_entity writes a reference
   from a hand-written compile function, ecs.h's ecs_spawn_resolve reads one.

NAMES BLOCK (written with ECS_COMPILER_NAMES; format 1 is unchanged)
   One more component block, always the last, with the reserved identifier
   ECS_RESOURCE_NAMES_ID (FNV-1a 32 of "ecs:names", which no component may
   register): every spawner and reader that does not know it skips it in
   one jump, as any unknown block. Its instances are the entities that have
   a "name" (entity_index ascending); its data, every uint32 in the blob's
   byte order and unaligned:
     num_paths
     per named entity: length, bytes       its "name" (UTF-8, no NUL added)
     per path:         length, bytes       the dependency list (canonical
                                           paths, sorted by their bytes)
   It gives back what hashing took away: the decompiler writes names and
   paths again, levelc --dump shows them, and ecs_resource_names_read hands
   them to a game (debug names, "which mesh was that"). It is left out when
   there is nothing to name (the decompiler refuses an empty one, the names
   reader reads it). Counts the block's bytes cannot hold (each name and
   path takes at least its 4-byte length) are ECS_ERROR_CORRUPT_RESOURCE
   before anything is allocated. ecs_resource_swap swaps its words itself
   (your swap function never sees it) and refuses a malformed one.

REFERENCES (what levelc deps, refs and rename are built on)
   Resources name each other by canonical path; renaming one breaks every
   reference unless a tool patches them (the seed's "Dependency Checker").
   The pure half of that tool lives here, over bytes, for an engine or an
   editor too; walking folders, the cache and writing files live with
   levelc (examples/levelc_deps.h).
   ecs_compiler_references(c, json, len, &list, &err) runs the compiler's
   walk over a level or prefab (the same registrations: schema path fields,
   hand-written compile functions calling ecs_compiler_write_reference, the
   standard mesh) and lists every reference as written, sorted: the byte
   offset and length of its JSON string token, its line and column (columns
   in characters), the decoded path and its canonical spelling. A
   non-canonical path is listed (ECS_REFERENCE_NON_CANONICAL) where the
   compiler would stop; other compile errors stay errors.
       ecs_reference_list refs;
       if (ecs_compiler_references(&compiler, text, len, &refs, &err) == ECS_OK) {
           for (k = 0; k < refs.count; ++k)
               printf("%u:%u: %s\n", refs.refs[k].line, refs.refs[k].column, refs.refs[k].path);
           ecs_reference_list_free(&refs);
       }
   ecs_source_patch(text, len, edits, n, &out, &err) replaces whole string
   tokens by canonical paths and keeps every other byte (a rename changes
   nothing but the references); it checks that each edit is exactly one
   string token of the text first, so stale offsets are refused, not
   written. ecs_path_renamed says what a path becomes when a resource or a
   folder is renamed ("textures/a/b" under "textures/a" -> "art/a":
   "art/a/b"); ecs_path_distance ranks "did you mean" suggestions.
   Not listed: "#" hashes (no path) and schema defaults (no text in the
   source: a turret without "barrel" depends on the default's path, which
   lives in the schema).

DECOMPILE
   ecs_compiler_decompile turns a blob (either byte order) back into level
   JSON with the compiler's registrations. Compiling that text with
   out->compile_flags (the blob's byte order, and ECS_COMPILER_NAMES when it
   has a names block) gives the same bytes, and the decompiler refuses
   (ECS_ERROR_DECOMPILE, with the offset) every blob for which it could not
   promise that: blocks the compiler would not write in that order, an
   empty block, a names block with no names and no paths, instances out of
   entity order, entities not numbered depth first, a NaN, a bool byte of 2,
   a reference it cannot name, a registered type without a decompile
   function, a text that would nest deeper than the JSON reader takes. Every
   blob the compiler makes decompiles (its deepest entity tree too).
   ECS_DECOMPILE_CHECK compiles the text once more and compares (worth it
   with decompile functions of your own).
   The text: an entity per line with its components one per line, members
   equal to their defaults left out (ECS_DECOMPILE_ALL_MEMBERS writes them).
   Without a names block entities have no names except those references
   need ("#3" for entity 3), and paths read "#<hash>"; with one, a decompiled
   level reads like its source. A transform comes back as position, rotation
   and scale (the shortest numbers that give the same 16 floats), else as
   "local". A block whose type is not registered comes out, per instance, as
     {"type": "#0a1b2c3d", "spawn_order": 150, "bytes": "00ff..."}
   (its identifier; a spawn order that keeps it where it is; the bytes split
   evenly, or all on the first instance when they do not divide), which
   compiles back to the same block: a type "#" and 8 hexadecimal digits names
   a block by identifier, sorted by that text among the registered names
   (so no registered name may start with '#').

SAVE SUBTREE (a live subtree as an entity resource: "save selection as
   prefab"; snapshots of a whole world are ecs_snapshot.h's)
       ecs_compiler_output out;     // the prefab's blob and dependencies
       ecs_snapshot_report report;  // what was left out (or pass NULL)
       ecs_resource_save_subtree(&world, "transform", root, 0, &names, &out,
                                 &report, &err);
   writes root and its live descendants (depth-first, parents first: root
   is resource entity 0; a destroyed descendant whose node is not collected
   yet is left out with its subtree, whose live nodes become roots at the
   collect) in the FORMAT above, the blocks in the order a
   compiler with ecs_compiler_register_world writes them: the hierarchy
   store's records through its interface's spawn_record (the transform:
   each node's local matrix, the root's WORLD matrix, so that the prefab
   spawns where it stood; deferred mode: commit first), and each schema
   manager's instances of those entities as schema records (runtime fields
   left out, entity fields as resource indices; a reference to an entity
   outside the subtree is written null, counted in report.dropped and
   named in report.text). Managers without a schema and stores without
   spawn_record are left out; the report counts (report.skipped) and names
   only those that hold instances of the subtree's entities (a store that
   holds none of them loses nothing, so it is not mentioned). Path fields keep
   their hashes; names (the ecs_resource_names of the level the entities
   came from, or NULL) gives the paths it knows for them: they become
   out.dependency and a names block, which also names every referenced
   entity "#k" as the decompiler does. A live value the compiler would
   refuse (under a field's min, a NaN, a bool byte of 2, a zero quaternion)
   fails the save with ECS_ERROR_INVALID_ARGUMENT naming the entity,
   component, field and rule, and nothing is saved; so does a "transform"
   record with a float that is not finite (the root's world matrix
   overflowed: parent and child scales of 1e20; a NaN local matrix), naming
   the entity and the matrix (world or local). The blob verifies,
   decompiles, compiles back to the same bytes and spawns (tests/test_prefab.c); the
   transform lists siblings in the order they were linked, so a spawned
   prefab saved again gives the same bytes (when it refers to nothing
   outside itself).

CONFIGURATION
   ECS_JSON_MAX_DEPTH  256  deepest nesting of arrays and objects the JSON
                            reader accepts (every file; the entity tree can
                            be about half as deep, each level is an object
                            and an array: 127 levels, the deepest without
                            components)
   ECS_DEF / ECS_STATIC     as in ecs.h: the linkage of every public function
                            (extern; static with ECS_STATIC; or your own)
   Implementation file only: ECS_REALLOC / ECS_FREE as in ecs.h (both or
   neither; ECS_REALLOC(NULL, n) must return memory aligned for uint64_t);
   ECS_RESOURCE_NO_SIMD to verify without SSE2 (same answers, slower).
   ECS_SNAPSHOT_IMPLEMENTATION (ecs_snapshot.h) must be compiled in the file
   that compiles this implementation, after it: it uses this part's private
   helpers (an #error says so otherwise).
   The transform compile function uses sqrt: link with -lm.

ERRORS
   Every function that reads outside data returns an ecs_result and fills the
   caller's ecs_error (which may be NULL). Messages say where:
     blobs      "offset 44 (block 0 entity_index[3]): entity 9, the resource
                 has 5 entities"                 ECS_ERROR_CORRUPT_RESOURCE,
                                                 ECS_ERROR_WRONG_BYTE_ORDER
     JSON       "line 3, column 14: expected ',' or ']' after an array
                 element, found '}'"             ECS_ERROR_JSON
     compiling  "entities[3].components[1].mesh (line 9, column 21): path
                 'Models/Crate' is not canonical; write 'models/crate'"
                 ECS_ERROR_COMPILE, ECS_ERROR_UNKNOWN_COMPONENT (lists the
                 registered names), ECS_ERROR_NON_CANONICAL_PATH
     spawning   ECS_ERROR_SPAWN_FAILED (a block's size does not fit its fixed
                instance size), or the code the spawn function returned, or
                the entity manager's code (out of memory, indices exhausted;
                more entities than it has indices left, e.g. too many
                copies, is found before anything is allocated)
     registering  ECS_ERROR_NAME_COLLISION (two names, one identifier; the
                names block's identifier), ECS_ERROR_ALREADY_EXISTS,
                ECS_ERROR_INVALID_ARGUMENT (a bad schema: its message names
                the field and the spec; a name starting with '#')
     decompiling  ECS_ERROR_DECOMPILE "offset 96 (block 'mesh', entity 3):
                a bool byte of 2 ..." (see DECOMPILE), the verify errors
   Out of memory anywhere is ECS_ERROR_OUT_OF_MEMORY and changes nothing.

MEMORY AND POINTER STABILITY
   Compiler output (blob, dependencies) is one allocation each, owned by the
   ecs_compiler_output until ecs_compiler_output_free. ecs_json_doc owns its
   values and strings; pointers into it stay valid until the next parse or
   ecs_json_doc_free, and never point into the source text. A spawner keeps
   scratch memory between spawns (freed by ecs_spawner_free). Spawned entities
   and components own nothing of the blob (spawn functions copy): free it
   after spawning, unless you will undo the spawn with ecs_spawner_unspawn,
   which reads it again. Registered names and schemas are copied (a plugin's
   may go away with its library). Decompiled text is one allocation owned by
   the ecs_decompile_output until ecs_decompile_output_free; an
   ecs_resource_names is one allocation (names and paths copied out of the
   blob) until ecs_resource_names_free. A reference list (ecs_compiler_references)
   and a patched text (ecs_source_patch) are one allocation each, until
   ecs_reference_list_free and ecs_source_output_free; a reference's path
   strings live in its list, not in the source text. ecs_resource_save_subtree's
   blob and dependency list are an ecs_compiler_output's.

THREADING
   No locks, no globals. A compiler, spawner or JSON document is used by one
   thread at a time; ecs_compiler_compile and ecs_compiler_decompile only
   read the compiler, so several threads may compile and decompile with one
   compiler that nobody registers into meanwhile (ecs_compiler_references
   too). Verify, path, names and patch functions are pure.
   ecs_resource_save_subtree only reads the world.
   ecs_spawner_spawn_jobs(sp, em, blob, size, copies, out, jobs, err) spawns
   a blob's blocks on ecs.h's job interface once the entities exist: the
   blocks of one registration `user` (one store) run in blob order on one
   task, distinct users at once, so a spawn function may touch only its
   user's store (ecs.h's and ecs_transform.h's do) and, for an ecs_manager
   in a group, the managers connected to it through groups (a new instance
   that completes a group moves the other members' instances): those
   spawn on one task together. Every store gets the
   serial spawn's calls in the serial order: the same instances, bit for
   bit. All or nothing stays: after a failure every spawned block is
   unspawned, newest first per store, and the error is the first failing
   block's in blob order, as in the serial call.

DOES NOT
   load files (hand it bytes), keep entity names unless asked
   (ECS_COMPILER_NAMES), swap instance data it does
   not understand (a foreign-order blob is rejected; ecs_resource_swap
   converts one with your per-component swap function), resolve or load the
   resources that paths name, read JSON with comments, trailing commas, a
   byte order mark or other extensions.

REFERENCE (every public function, by section; the declarations below say
   more: ownership, NULL, failure, lifetime)
   Format: identifiers, verify, read, byte swap
     uint32_t ecs_resource_identifier(const char *name);
         FNV-1a 32 of a component name: the identifier of its blocks
     ecs_result ecs_resource_verify(const void *blob, size_t size, ecs_error *err);
         checks everything a reader relies on (VERIFY AND SPAWN)
     uint32_t ecs_resource_num_entities(const void *blob);
         num_entities of a verified blob
     uint32_t ecs_resource_num_component_types(const void *blob);
         num_component_types (blocks) of a verified blob
     const uint32_t *ecs_resource_parent_index(const void *blob);
         the parent_index array of a verified blob
     uint32_t ecs_resource_first_block(const void *blob);
         offset of a verified blob's first block
     ecs_resource_block ecs_resource_block_at(const void *blob, uint32_t offset);
         the block at offset (its .next is the next block's offset)
     ecs_result ecs_resource_swap(void *blob, size_t size, ecs_resource_swap_fn swap_data,
                                  void *user, ecs_error *err);
         converts a blob to the other byte order in place
     void ecs_resource_swap_standard(void *user, uint32_t identifier, uint32_t num_instances,
                                     void *data, uint32_t size);
         an ecs_resource_swap_fn for transform, mesh and actor records
   Spawner
     void ecs_spawner_init(ecs_spawner *sp);
     void ecs_spawner_free(ecs_spawner *sp);
         an empty spawner; frees its registrations and scratch
     ecs_result ecs_spawner_register(ecs_spawner *sp, const char *name, ecs_spawn_fn spawn,
                                     ecs_unspawn_fn unspawn, uint32_t instance_size, void *user,
                                     ecs_error *err);
         spawn/unspawn functions for the blocks of component `name`
     ecs_result ecs_spawner_unregister(ecs_spawner *sp, const char *name);
         removes a registration
     ecs_result ecs_spawner_set_store(ecs_spawner *sp, const char *name, const void *store,
                                      ecs_error *err);
         the store a registration's functions write (spawn_jobs: one task per store)
     ecs_result ecs_spawner_spawn(ecs_spawner *sp, ecs_entity_manager *em, const void *blob,
                                  size_t size, ecs_entity *out, ecs_error *err);
         verifies and spawns a blob once, all or nothing
     ecs_result ecs_spawner_spawn_copies(ecs_spawner *sp, ecs_entity_manager *em,
                                         const void *blob, size_t size, uint32_t copies,
                                         ecs_entity *out, ecs_error *err);
         verifies once and spawns `copies` copies, all or nothing
     ecs_result ecs_spawner_spawn_verified(ecs_spawner *sp, ecs_entity_manager *em,
                                           const void *blob, uint32_t copies, ecs_entity *out,
                                           ecs_error *err);
         spawn_copies of a blob verified before (no verify)
     uint32_t ecs_spawner_unspawn(ecs_spawner *sp, ecs_entity_manager *em, const void *blob,
                                  uint32_t copies, const ecs_entity *entities);
         undoes a spawn; returns the entities destroyed
   Paths
     uint64_t ecs_path_hash(const char *path);
         FNV-1a 64 of a path: what a blob holds for a reference
     int ecs_path_is_canonical(const char *path);
         1 when path is canonical (PATHS)
     ecs_result ecs_path_canonicalize(const char *path, char *out, size_t out_size,
                                      ecs_error *err);
         the canonical spelling of a sloppy path
   JSON reader
     ecs_result ecs_json_parse(ecs_json_doc *doc, const char *text, size_t len, ecs_error *err);
         parses strict JSON into doc (values in one array, strings in a pool)
     void ecs_json_doc_free(ecs_json_doc *doc);
         frees a document
     const ecs_json_value *ecs_json_root(const ecs_json_doc *doc);
         the root value, or NULL
     const ecs_json_value *ecs_json_member(const ecs_json_doc *doc, const ecs_json_value *v,
                                           const char *key);
         object v's member `key`, or NULL
     const ecs_json_value *ecs_json_first(const ecs_json_doc *doc, const ecs_json_value *v);
     const ecs_json_value *ecs_json_next(const ecs_json_doc *doc, const ecs_json_value *v);
         the first child of an array or object; the next sibling (NULL after the last)
     const char *ecs_json_string(const ecs_json_doc *doc, const ecs_json_value *v);
     const char *ecs_json_key(const ecs_json_doc *doc, const ecs_json_value *v);
         a string value's bytes; a member's name (NULL otherwise)
     size_t ecs_json_path(const ecs_json_doc *doc, const ecs_json_value *v, char *buf,
                          size_t size);
         writes "entities[3].components[1].mesh" for v (like snprintf)
     const char *ecs_json_type_name(ecs_json_type type);
         "null", "false", "true", "number", "string", "array", "object"
     int ecs_json_f32(const ecs_json_value *v, float *out);
         a number as the float nearest its text (0: not a number, or beyond the floats)
   Compiler: registrations and compiling
     void ecs_compiler_init(ecs_compiler *c);
     void ecs_compiler_free(ecs_compiler *c);
         an empty compiler; frees its registrations
     ecs_result ecs_compiler_register(ecs_compiler *c, const char *name, ecs_compiler_fn fn,
                                      void *user, int spawn_order, ecs_error *err);
         a hand-written compile function for component `name`
     ecs_result ecs_compiler_unregister(ecs_compiler *c, const char *name);
         removes a registration
     ecs_result ecs_compiler_register_schema(ecs_compiler *c, const char *name,
                                             const ecs_schema_field *schema, uint32_t num_fields,
                                             int spawn_order, ecs_error *err);
         compile and decompile functions from a schema (SCHEMAS)
     ecs_result ecs_compiler_register_manager(ecs_compiler *c, const char *name,
                                              const ecs_manager *m, int spawn_order,
                                              ecs_error *err);
         register_schema with a manager's schema
     ecs_result ecs_schema_value_read(const ecs_schema_field *field, const ecs_json_doc *doc,
                                      const ecs_json_value *v, void *out, ecs_error *err);
         one live field value from JSON, checked as the compiler checks it
     ecs_result ecs_compiler_set_decompile(ecs_compiler *c, const char *name, ecs_decompile_fn fn,
                                           void *user, ecs_error *err);
         the inverse of a hand-written compile function
     const char *ecs_compiler_type_name(const ecs_compiler *c, uint32_t identifier);
         the registered name of an identifier, or NULL
     ecs_result ecs_compiler_register_standard(ecs_compiler *c, ecs_error *err);
         registers transform, mesh and actor
     ecs_result ecs_compiler_compile(const ecs_compiler *c, const char *json, size_t len,
                                     uint32_t flags, ecs_compiler_output *out, ecs_error *err);
         level JSON to a blob and its dependency list
     void ecs_compiler_output_free(ecs_compiler_output *out);
         frees a compile's blob and dependencies
   Compiler: for compile functions
     const ecs_json_doc *ecs_compiler_doc(const ecs_compiler_context *ctx);
         the document being compiled
     int ecs_compiler_big_endian(const ecs_compiler_context *ctx);
         1 when writing big-endian
     uint32_t ecs_compiler_entity_index(const ecs_compiler_context *ctx);
     uint32_t ecs_compiler_entity_instances(const ecs_compiler_context *ctx);
         the entity being compiled; its instances of this type so far
     ecs_result ecs_compiler_error(ecs_compiler_context *ctx, const ecs_json_value *at,
                                   const char *format, ...);
         ECS_ERROR_COMPILE with the JSON path, line and column of `at`
     ecs_result ecs_compiler_write(ecs_compiler_context *ctx, const void *bytes, uint32_t n);
     ecs_result ecs_compiler_write_u8(ecs_compiler_context *ctx, uint8_t v);
     ecs_result ecs_compiler_write_u16(ecs_compiler_context *ctx, uint16_t v);
     ecs_result ecs_compiler_write_u32(ecs_compiler_context *ctx, uint32_t v);
     ecs_result ecs_compiler_write_u64(ecs_compiler_context *ctx, uint64_t v);
     ecs_result ecs_compiler_write_f32(ecs_compiler_context *ctx, float v);
     ecs_result ecs_compiler_write_f64(ecs_compiler_context *ctx, double v);
         append to the instance: bytes as they are, numbers in the target byte order
     ecs_result ecs_compiler_add_dependency(ecs_compiler_context *ctx,
                                            const ecs_json_value *path, uint64_t *hash);
         checks a canonical path, records it, gives its hash
     ecs_result ecs_compiler_write_reference(ecs_compiler_context *ctx,
                                             const ecs_json_value *path);
         add_dependency, then writes the hash
     ecs_result ecs_compiler_write_entity(ecs_compiler_context *ctx, const ecs_json_value *name);
         writes a reference to the entity called `name` (or null)
     ecs_result ecs_compiler_check_members(ecs_compiler_context *ctx, const ecs_json_value *obj,
                                           const char *const *known, uint32_t n);
         refuses members other than "type" and known[]
     ecs_result ecs_compiler_member_f32(ecs_compiler_context *ctx, const ecs_json_value *obj,
                                        const char *key, float *out, uint32_t n,
                                        const float *defaults);
         reads a number or an array of n numbers as floats
     ecs_result ecs_compiler_member_u32(ecs_compiler_context *ctx, const ecs_json_value *obj,
                                        const char *key, uint32_t *out, const uint32_t *defaults);
         reads a whole number 0..4294967295, exactly
     ecs_result ecs_resource_compile_transform(void *user, ecs_compiler_context *ctx,
                                               const ecs_json_value *component);
     ecs_result ecs_resource_decompile_transform(void *user, ecs_decompile_context *ctx,
                                                 const void *data, uint32_t size, uint32_t *used);
         the standard transform's compile and decompile functions
   Names block
     ecs_result ecs_resource_names_read(const void *blob, size_t size, ecs_resource_names *out,
                                        ecs_error *err);
         the entity names and paths of a blob's names block
     const char *ecs_resource_names_path(const ecs_resource_names *names, uint64_t hash);
         the path with that hash, or NULL
     void ecs_resource_names_free(ecs_resource_names *names);
         frees what names_read allocated
   Decompiler
     ecs_result ecs_compiler_decompile(const ecs_compiler *c, const void *blob, size_t size,
                                       uint32_t flags, ecs_decompile_output *out, ecs_error *err);
         a blob back to level JSON that compiles to the same bytes
     ecs_result ecs_compiler_decompile_instance(const ecs_compiler *c, uint32_t identifier,
                                                const void *data, uint32_t size, int big_endian,
                                                const ecs_resource_names *names,
                                                ecs_decompile_output *out, uint32_t *used,
                                                ecs_error *err);
         one instance as a JSON object, for listings
     void ecs_decompile_output_free(ecs_decompile_output *out);
         frees decompiled text
   Decompiler: for decompile functions
     int ecs_decompile_big_endian(const ecs_decompile_context *ctx);
         1 when the data is big-endian
     uint32_t ecs_decompile_entity_index(const ecs_decompile_context *ctx);
     uint32_t ecs_decompile_entity_instances(const ecs_decompile_context *ctx);
         the entity being decompiled; its instances of this type before this one
     uint32_t ecs_decompile_read_u32(const ecs_decompile_context *ctx, const void *p);
     uint64_t ecs_decompile_read_u64(const ecs_decompile_context *ctx, const void *p);
     float ecs_decompile_read_f32(const ecs_decompile_context *ctx, const void *p);
     double ecs_decompile_read_f64(const ecs_decompile_context *ctx, const void *p);
         read a value in the data's byte order, any alignment
     ecs_result ecs_decompile_error(ecs_decompile_context *ctx, const char *format, ...);
         refuses the instance: ECS_ERROR_DECOMPILE with its offset
     ecs_result ecs_decompile_member(ecs_decompile_context *ctx, const char *key);
         starts a member (write one value next)
     ecs_result ecs_decompile_f32(ecs_decompile_context *ctx, const float *v, uint32_t n);
     ecs_result ecs_decompile_f64(ecs_decompile_context *ctx, double v);
     ecs_result ecs_decompile_int(ecs_decompile_context *ctx, int64_t v);
     ecs_result ecs_decompile_uint(ecs_decompile_context *ctx, uint64_t v);
     ecs_result ecs_decompile_bool(ecs_decompile_context *ctx, int v);
     ecs_result ecs_decompile_string(ecs_decompile_context *ctx, const char *s, uint32_t n);
         write a value: shortest exact numbers, n floats as an array, escaped strings
     ecs_result ecs_decompile_path(ecs_decompile_context *ctx, uint64_t hash);
         a resource reference: its path, or "#<hash>"
     ecs_result ecs_decompile_entity(ecs_decompile_context *ctx, uint32_t index);
         an entity reference: its name, or null
     ecs_result ecs_decompile_raw(ecs_decompile_context *ctx, const char *json);
         a JSON value as it is
   References (the dependency checker)
     ecs_result ecs_compiler_references(const ecs_compiler *c, const char *json, size_t len,
                                        ecs_reference_list *out, ecs_error *err);
         every resource path a level names: token, line, column, canonical spelling
     void ecs_reference_list_free(ecs_reference_list *list);
         frees a reference list
     ecs_result ecs_source_patch(const char *json, size_t len, const ecs_source_edit *edits,
                                 uint32_t n, ecs_source_output *out, ecs_error *err);
         the text with some string tokens replaced by paths, every other byte kept
     void ecs_source_output_free(ecs_source_output *out);
         frees a patched text
     long ecs_path_renamed(const char *path, const char *old_path, const char *new_path,
                           char *out, size_t out_size);
         what path becomes when old_path (a resource or a folder) is renamed
     uint32_t ecs_path_distance(const char *a, const char *b, uint32_t limit);
         edit distance of two paths, capped at limit + 1
   One registration (a world's types)
     ecs_result ecs_spawner_register_world(ecs_spawner *sp, const ecs_world *w, ecs_error *err);
         every store of w that can spawn, under its name (all or nothing)
     ecs_result ecs_compiler_register_world(ecs_compiler *c, const ecs_world *w, ecs_error *err);
         every schema manager of w and its "transform" store (all or nothing)
   Save subtree (SAVE SUBTREE)
     ecs_result ecs_resource_save_subtree(const ecs_world *w, const char *hierarchy, ecs_entity root,
                                          uint32_t flags, const ecs_resource_names *names,
                                          ecs_compiler_output *out, ecs_snapshot_report *report,
                                          ecs_error *err);
         a live transform subtree as an entity resource (a prefab)

REVISION HISTORY
   0.11 ecs_json_f32 (public: the console reads its float arguments with
        it); fix: a number whose text is just below 2^128 - 2^103 (FLT_MAX
        plus half its last place), and so reads as that double, is FLT_MAX
        as a float (it was refused as beyond the floats: levels, schema
        values and snapshot JSON); on or above it is refused as before
   0.10 fixes found by review: a float field's "min"/"max" is the float its
        number reads as ({"default": 0.1, "max": 0.1} on an f32 was
        refused); a field or type name that is not UTF-8 is refused (the
        decompiler wrote text that did not compile); an f32 is the float
        nearest its text (a double halfway between two floats was rounded
        again, to even); a "#" path hash takes A-F too; the transform
        normalises any rotation other than zero ([1e-7, 0, 0, 0] was "zero
        length"); all five alike with x87 arithmetic (gcc -m32); the
        spawner checks the fixed size of a registered block with 0
        instances too (8 bytes for 0 instances spawned as if they fitted),
        and spawn_jobs finds each step's store key once
   0.9  ecs_resource_save_subtree leaves out descendants that are not live
        (destroyed, not collected yet), with their subtrees: it wrote them,
        and spawning the prefab brought them back with their data;
        ecs_spawner_set_store; spawn_jobs runs a function of one's own over
        an ecs_manager that another registration spawns with
        ecs_manager_spawn on that manager's (group's) task (two tasks wrote
        one grouped manager)
   0.8  fixes: a spec member name with a NUL byte is refused (a path
        default's crashed); a decimal point of several bytes (ps_AF) read
        and written whole; a sloppy live path of 256+ bytes gets its
        canonical spelling in the message (it was told it had none);
        ecs_source_patch refuses an edit that is no string token of the
        text (from a closing quote, or an escaped quote inside a string);
        ecs_resource_save_subtree refuses a "transform" record that is not
        finite (an overflowed world matrix at the root): it did not decompile
   0.7  fixes found by review: ecs_compiler_register_world leaves a taken
        "transform" registered; ecs_resource_swap swaps the names block
        itself (never through swap_data) and refuses a malformed one with
        the blob unchanged; ecs_resource_save_subtree refuses a live schema
        value the compiler refuses (ECS_ERROR_INVALID_ARGUMENT, naming it)
   0.6  ecs_schema_value_read: one live field value from JSON, checked as
        the compiler checks a level's member (the console's world.set)
   0.5  snapshots move to ecs_snapshot.h (names, format and behaviour
        unchanged; ecs_snapshot_report stays here, ecs_resource_save_subtree
        fills it too); ecs_resource_save_subtree has a section of its own;
        REFERENCES: ecs_compiler_references, ecs_source_patch,
        ecs_path_renamed, ecs_path_distance (the dependency checker's pure
        half; levelc deps, refs and rename use them); issue 24: a spec
        member given twice is refused, naming it; the integer kinds i8 u8
        i16 u16 (compile, decompile, bounds, swap);
        ecs_compiler_register_world and ecs_spawner_register_world say in
        err what they leave out; positions in a resource are "resource
        entity N" in messages; save_subtree's report documented as it is
   0.4  snapshots of a transform subtree (ecs_snapshot_desc.hierarchy and
        root; the store interface's save_selected); ECS_SNAPSHOT_REUSE_OUTPUT;
        loads about 1.3x faster (stores loaded into their own memory);
        ecs_compiler_register_schema reports a parser out of memory as such
   0.3  hardening (issue 19): JSON numbers correctly rounded on x87 too;
        exact whole numbers in every form (ECS_JSON_WHOLE; i32/u32/u64
        fields and their bounds compared exactly); a names block's counts
        checked against its bytes; an empty names block refused by the
        decompiler; the deepest entity tree that compiles decompiles;
        array growth that cannot wrap on 32-bit; ECS_DECOMPILE_CHECK keeps
        the compile error and reports out of memory as such; the REFERENCE
        section; ECS_RESOURCE_TRANSFORM_SIZE the one name of the transform
        record (ecs_transform.h's ECS_TRANSFORM_SPAWN_INSTANCE_SIZE is a
        deprecated alias)
   0.2  schemas (ecs_compiler_register_schema, _register_manager), the
        decompiler, the names block, entity references; the header
        reorganised to read top to bottom (a MAP of the implementation);
        ecs_spawner_despawn renamed ecs_spawner_unspawn; ECS_DEF on every
        public function
   0.1  first release: format version 1, verify, spawner, JSON reader,
        compiler, paths
*/
#ifndef ECS_RESOURCE_H_INCLUDED
#define ECS_RESOURCE_H_INCLUDED

#include "ecs.h"
#include <stddef.h>
#include <stdint.h>

#ifndef ECS_JSON_MAX_DEPTH
#define ECS_JSON_MAX_DEPTH 256
#endif
#if ECS_JSON_MAX_DEPTH < 2 || ECS_JSON_MAX_DEPTH > 100000000
#error "ECS_JSON_MAX_DEPTH must be 2..100000000"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- FORMAT: identifiers, verify, read, byte swap ------------------------ */

#define ECS_RESOURCE_VERSION 1u
#define ECS_RESOURCE_BYTE_ORDER_MARK 0x01020304u
#define ECS_RESOURCE_HEADER_SIZE 24u
#define ECS_RESOURCE_BLOCK_HEADER_SIZE 12u
/** parent_index value of a root entity (same as ECS_SPAWN_ROOT). */
#define ECS_RESOURCE_ROOT 0xFFFFFFFFu

/** The names block's component_identifier: FNV-1a 32 of "ecs:names", a name
    no component may register (NAMES BLOCK). */
#define ECS_RESOURCE_NAMES_ID 0x743491DCu

/** Standard component records (see FORMAT). ecs_transform.h defines the
    transform's too (identically): ecs_transform_spawn's instance size. */
#define ECS_RESOURCE_TRANSFORM_SIZE 64u
#define ECS_RESOURCE_MESH_SIZE 12u
#define ECS_RESOURCE_ACTOR_SIZE 8u
/** Their identifiers, FNV-1a 32 of "transform", "mesh", "actor". */
#define ECS_RESOURCE_TRANSFORM_ID 0xE1AD931Bu
#define ECS_RESOURCE_MESH_ID 0xA100BEBCu
#define ECS_RESOURCE_ACTOR_ID 0x0E8CD7BAu

/** The component_identifier of a component name: FNV-1a 32 of its bytes
    (NUL not included). NULL hashes like "". */
ECS_DEF uint32_t ecs_resource_identifier(const char *name);

/** Checks that size bytes at blob are a well-formed version 1 resource in
    this machine's byte order (see VERIFY AND SPAWN). Returns ECS_OK, or
    ECS_ERROR_CORRUPT_RESOURCE / ECS_ERROR_WRONG_BYTE_ORDER /
    ECS_ERROR_INVALID_ARGUMENT (NULL, unaligned) with a message naming the
    offset and the field. Reads nothing outside [blob, blob + size). */
ECS_DEF ecs_result ecs_resource_verify(const void *blob, size_t size, ecs_error *err);

/** One component block of a verified blob. */
typedef struct ecs_resource_block {
    uint32_t identifier;
    uint32_t num_instances;
    uint32_t size;                /* bytes of instance data */
    const uint32_t *entity_index; /* num_instances indices */
    const void *data;             /* size bytes */
    uint32_t offset;              /* where the block starts in the blob */
    uint32_t next;                /* where the next block starts (or total_size) */
} ecs_resource_block;

/** num_entities of a verified blob. */
ECS_DEF uint32_t ecs_resource_num_entities(const void *blob);
/** num_component_types of a verified blob. */
ECS_DEF uint32_t ecs_resource_num_component_types(const void *blob);
/** parent_index array of a verified blob (num_entities entries). */
ECS_DEF const uint32_t *ecs_resource_parent_index(const void *blob);
/** Offset of a verified blob's first block. Walk the blocks with
        for (i = 0, off = ecs_resource_first_block(b); i < ecs_resource_num_component_types(b);
             ++i, off = blk.next) blk = ecs_resource_block_at(b, off); */
ECS_DEF uint32_t ecs_resource_first_block(const void *blob);
/** The block at offset of a verified blob (no checks). */
ECS_DEF ecs_resource_block ecs_resource_block_at(const void *blob, uint32_t offset);

/** Swaps one block's instance data in place (a component knows its layout). */
typedef void (*ecs_resource_swap_fn)(void *user, uint32_t identifier, uint32_t num_instances, void *data,
                                     uint32_t size);
/** Converts a blob in either byte order to the other one, in place: verifies
    it in the order its byte order mark says, swaps every header, parent,
    block and index field and the names block's words itself (NAMES BLOCK;
    never through swap_data), and calls swap_data (if non-NULL) for each
    other block. Returns ECS_OK, or with nothing changed the verify error or
    ECS_ERROR_CORRUPT_RESOURCE for a malformed names block (the errors of
    ecs_resource_names_read). */
ECS_DEF ecs_result ecs_resource_swap(void *blob, size_t size, ecs_resource_swap_fn swap_data, void *user,
                                     ecs_error *err);
/** An ecs_resource_swap_fn for the standard components (transform: 16 floats,
    mesh: u64 + u32 records, actor: 2 floats); other blocks are left as they
    are, and so is a block whose size is not a whole number of records. */
ECS_DEF void ecs_resource_swap_standard(void *user, uint32_t identifier, uint32_t num_instances, void *data,
                                        uint32_t size);

/* ---- SPAWNER ------------------------------------------------------------- */

/** ecs_spawner_register's instance_size for data whose size the spawn
    function checks itself. */
#define ECS_SPAWNER_VARIABLE_SIZE 0xFFFFFFFFu

typedef struct ecs_spawner__entry {
    uint32_t identifier;    /* first: the registrations are sorted by it */
    uint32_t instance_size; /* or ECS_SPAWNER_VARIABLE_SIZE */
    ecs_spawn_fn spawn;
    ecs_unspawn_fn unspawn;
    void *user;
    const void *store; /* what the spawn writes (ecs_spawner_set_store): user unless set */
    char *name;
} ecs_spawner__entry;

typedef struct ecs_spawner__step {
    uint32_t offset; /* block offset */
    uint32_t entry;  /* index into entries */
    uint32_t store;  /* ecs_spawner_spawn_jobs: the number of the entry's user among the blob's */
    const void *key; /* ecs_spawner_spawn_jobs: what the step writes (its group's top for a grouped manager) */
} ecs_spawner__step;

/** Spawn functions by component name, plus scratch memory. Zero-initialised
    is valid (same as ecs_spawner_init). */
typedef struct ecs_spawner {
    ecs_spawner__entry *entries; /* sorted by identifier */
    uint32_t num_entries, entries_capacity;
    ecs_spawner__step *steps;
    uint32_t steps_capacity;
    ecs_entity *entities;        /* lookup table when the caller gives none */
    uint32_t entities_capacity;
} ecs_spawner;

/** Same as zero-initialising *sp. */
ECS_DEF void ecs_spawner_init(ecs_spawner *sp);
/** Frees the spawner's memory; *sp is then empty again. */
ECS_DEF void ecs_spawner_free(ecs_spawner *sp);
/** Registers spawn/unspawn (both required) for blocks whose identifier is
    ecs_resource_identifier(name); user is passed to both. instance_size: the
    bytes of one instance, checked against every block before spawning, or
    ECS_SPAWNER_VARIABLE_SIZE. Returns ECS_OK; ECS_ERROR_ALREADY_EXISTS (name
    registered), ECS_ERROR_NAME_COLLISION (another name has the same
    identifier), ECS_ERROR_INVALID_ARGUMENT, ECS_ERROR_OUT_OF_MEMORY. */
ECS_DEF ecs_result ecs_spawner_register(ecs_spawner *sp, const char *name, ecs_spawn_fn spawn, ecs_unspawn_fn unspawn,
                                        uint32_t instance_size, void *user, ecs_error *err);
/** Removes name's registration. Returns ECS_OK or ECS_ERROR_NOT_FOUND. */
ECS_DEF ecs_result ecs_spawner_unregister(ecs_spawner *sp, const char *name);
/** Names the store that name's spawn and unspawn functions write, for
    ecs_spawner_spawn_jobs (blocks of one store run on one task): by default
    the registration's user. For a function whose user is not the store it
    writes (a wrapper, a plugin's thunk); registrations that name one store
    share a task. ECS_OK or ECS_ERROR_NOT_FOUND (err says which name). */
ECS_DEF ecs_result ecs_spawner_set_store(ecs_spawner *sp, const char *name, const void *store, ecs_error *err);
/** Verifies blob and spawns it once into em. out (NULL, or room for
    num_entities entities) receives the entity made for each resource entity;
    with NULL the spawner keeps the table (sp->entities, until the next
    spawn). All or nothing: on failure no entity stays alive and no spawned
    block stays (its unspawn function ran); what out holds then is not alive
    (nil where it was written). See ERRORS. A spawn function must not spawn
    through the same spawner (its scratch is in use): use a second one. */
ECS_DEF ecs_result ecs_spawner_spawn(ecs_spawner *sp, ecs_entity_manager *em, const void *blob, size_t size,
                                     ecs_entity *out, ecs_error *err);
/** Spawns `copies` copies of one blob (a prefab fired many times) sharing the
    work: one verify, one size check, one ecs_entity_create_many of
    num_entities * copies; then for each block its spawn function once per
    copy, copy c seeing entity table out + c * num_entities. out: NULL or room
    for num_entities * copies entities. All or nothing as ecs_spawner_spawn.
    copies == 0 does nothing and returns ECS_OK.
    Limit: num_entities * copies must not exceed the indices em has left,
    (ECS_INDEX_MASK - em->max_index) + em->num_free: at most ECS_INDEX_MASK
    (2^ECS_INDEX_BITS - 1, 4194303 by default) for an empty manager. A larger
    count fails before anything is allocated or written (em, out and the
    spawner unchanged) with ECS_ERROR_INDICES_EXHAUSTED, or with
    ECS_ERROR_INVALID_ARGUMENT when the product exceeds 2^32 - 1. */
ECS_DEF ecs_result ecs_spawner_spawn_copies(ecs_spawner *sp, ecs_entity_manager *em, const void *blob, size_t size,
                                            uint32_t copies, ecs_entity *out, ecs_error *err);
/** ecs_spawner_spawn_copies without the verify, for a blob that passed
    ecs_resource_verify and has not changed since (undefined behaviour
    otherwise). */
ECS_DEF ecs_result ecs_spawner_spawn_verified(ecs_spawner *sp, ecs_entity_manager *em, const void *blob,
                                              uint32_t copies, ecs_entity *out, ecs_error *err);
/** Undoes a successful spawn of a verified blob: calls every registered
    block's unspawn function for each copy with the same arguments as the
    spawn, then destroys the entities (entities[0 .. num_entities * copies)).
    Returns how many entities were alive and destroyed; 0, doing nothing, when
    num_entities * copies exceeds ECS_INDEX_MASK (no spawn made so many). */
ECS_DEF uint32_t ecs_spawner_unspawn(ecs_spawner *sp, ecs_entity_manager *em, const void *blob, uint32_t copies,
                                     const ecs_entity *entities);
/** ecs_spawner_spawn_copies with the blocks spawned across jobs' workers
    after the one batch create (NULL or one worker: serially, as
    ecs_spawner_spawn_copies). Blocks whose registrations share a store
    (the `user`, or what ecs_spawner_set_store names) run on one task in
    blob order, and so do the blocks of ecs_managers connected through
    groups (ecs_group_top: a spawn into one member moves the others'
    instances; a manager counts as one when any registration spawns it with
    ecs_manager_spawn, whatever function the others use); distinct stores
    run at once, so a spawn function must touch only its store (ecs.h's and
    ecs_transform.h's do, grouped managers aside). Each store sees exactly
    the calls of the serial spawn, in the same order: the same instances,
    bit for bit. All or nothing as ecs_spawner_spawn: on failure every
    block that was spawned is unspawned (newest first per store), the
    entities are destroyed, and the error is the one of the first failing
    block in blob order (the serial call's). After a failure, blocks later
    in blob order than the failing one may have run on other tasks and been
    undone: what such a block dropped of dead entities' instances (a dense
    store's stale owners, which collect drops anyway) stays dropped. A job system that could not start some tasks only costs
    time. At most ECS_SPAWNER_JOBS_TASKS tasks (stores share them beyond). */
ECS_DEF ecs_result ecs_spawner_spawn_jobs(ecs_spawner *sp, ecs_entity_manager *em, const void *blob, size_t size,
                                          uint32_t copies, ecs_entity *out, const ecs_jobs *jobs, ecs_error *err);
/** Most tasks of one ecs_spawner_spawn_jobs (each holds an ecs_error on the
    caller's stack). */
#define ECS_SPAWNER_JOBS_TASKS 16u

/* ---- PATHS --------------------------------------------------------------- */

/** FNV-1a 64 of path's bytes (NUL not included): the value compiled into a
    blob for a resource reference. Hash canonical paths only (the compiler
    does). NULL hashes like "". */
ECS_DEF uint64_t ecs_path_hash(const char *path);
/** 1 when path is canonical (see PATHS), 0 otherwise (also for NULL). */
ECS_DEF int ecs_path_is_canonical(const char *path);
/** Writes the canonical spelling of path to out (NUL-terminated). It is never
    longer than path, so out_size >= strlen(path) + 1 always suffices; out may
    equal path. Returns ECS_OK; ECS_ERROR_NON_CANONICAL_PATH when the path has
    no canonical spelling (err says why and at which byte; out is then "");
    ECS_ERROR_INVALID_ARGUMENT for NULL arguments or a too small out. */
ECS_DEF ecs_result ecs_path_canonicalize(const char *path, char *out, size_t out_size, ecs_error *err);

/* ---- JSON READER --------------------------------------------------------- */

/** "none" in the links of a parsed document: ecs_json_value's parent of the
    root, key of a value that is no object member (and nothing else). */
#define ECS_JSON_NONE 0xFFFFFFFFu

/** JSON value types. */
typedef enum ecs_json_type {
    ECS_JSON_NULL = 0,
    ECS_JSON_FALSE,
    ECS_JSON_TRUE,
    ECS_JSON_NUMBER,
    ECS_JSON_STRING,
    ECS_JSON_ARRAY,
    ECS_JSON_OBJECT
} ecs_json_type;

/** ecs_json_value flags for numbers. */
#define ECS_JSON_INTEGER 1u   /* written without fraction or exponent and its
                                 magnitude fits `integer` exactly */
#define ECS_JSON_NEGATIVE 2u  /* written with a leading '-' */
#define ECS_JSON_WHOLE 4u     /* a whole number, however written (7, 1e19,
                                 2.50e1, -0.0), whose magnitude fits
                                 `integer` exactly; every ECS_JSON_INTEGER
                                 number has it too */

/** One parsed value. Values are stored depth-first in one array: a
    container's children follow it, and `next` is the index just past its
    subtree (so the next sibling, if any, is values[next]). Read-only. */
typedef struct ecs_json_value {
    uint8_t type;        /* ecs_json_type */
    uint8_t flags;       /* numbers: ECS_JSON_INTEGER, ECS_JSON_NEGATIVE, ECS_JSON_WHOLE */
    uint16_t reserved_;  /* private (numbers: how the text rounds to a float) */
    uint32_t count;      /* arrays/objects: children; strings: bytes (no NUL) */
    uint32_t next;       /* index one past this value's subtree */
    uint32_t parent;     /* index of the enclosing array/object, or ECS_JSON_NONE */
    uint32_t key;        /* member of an object: pool offset of its name, else ECS_JSON_NONE */
    uint32_t key_length; /* bytes of the name (no NUL) */
    uint32_t str;        /* strings: pool offset of the decoded UTF-8 bytes */
    uint32_t offset;     /* byte offset of the value in the source text */
    double number;       /* numbers: the value, correctly rounded on every
                            target, x87 too (may be +-inf) */
    uint64_t integer;    /* numbers with ECS_JSON_WHOLE: the exact magnitude */
} ecs_json_value;

/** A parsed JSON text. Zero-initialised is a valid empty document. */
typedef struct ecs_json_doc {
    ecs_json_value *values;  /* values[0] is the root once parsed */
    uint32_t num_values, values_capacity;
    char *pool;              /* decoded strings and names, each NUL-terminated */
    uint32_t pool_size, pool_capacity;
    uint32_t *stack;         /* the parser's open containers */
    uint32_t stack_capacity;
} ecs_json_doc;

/** Parses len bytes of strict RFC 8259 JSON (UTF-8, no byte order mark,
    nesting at most ECS_JSON_MAX_DEPTH) into doc, replacing what doc held
    (its memory is reused). text need not be NUL-terminated and is not
    referenced afterwards. Returns ECS_OK; ECS_ERROR_JSON with "line L, column
    C: ..." in err (columns count characters from 1) and an empty doc;
    ECS_ERROR_OUT_OF_MEMORY; ECS_ERROR_INVALID_ARGUMENT (NULL, or len of 4 GiB
    or more). */
ECS_DEF ecs_result ecs_json_parse(ecs_json_doc *doc, const char *text, size_t len, ecs_error *err);
/** Frees doc's memory; doc is then a valid empty document. */
ECS_DEF void ecs_json_doc_free(ecs_json_doc *doc);
/** The root value, or NULL when doc holds nothing. */
ECS_DEF const ecs_json_value *ecs_json_root(const ecs_json_doc *doc);
/** The first member of object v called key (NUL-terminated, compared by
    bytes), or NULL (also when v is not an object). Linear in v's members. */
ECS_DEF const ecs_json_value *ecs_json_member(const ecs_json_doc *doc, const ecs_json_value *v, const char *key);
/** The first child (element or member value) of array/object v, or NULL. */
ECS_DEF const ecs_json_value *ecs_json_first(const ecs_json_doc *doc, const ecs_json_value *v);
/** The sibling after v in its array/object, or NULL. */
ECS_DEF const ecs_json_value *ecs_json_next(const ecs_json_doc *doc, const ecs_json_value *v);
/** A string value's bytes (NUL-terminated; v->count bytes, may contain NUL),
    or NULL when v is not a string. */
ECS_DEF const char *ecs_json_string(const ecs_json_doc *doc, const ecs_json_value *v);
/** The name of member v (NUL-terminated; v->key_length bytes), or NULL when v
    is not an object member. */
ECS_DEF const char *ecs_json_key(const ecs_json_doc *doc, const ecs_json_value *v);
/** Writes v's path from the root, e.g. "entities[3].components[1].mesh" (""
    for the root), truncated to fit size bytes including the NUL. Returns the
    length it needed (like snprintf). */
ECS_DEF size_t ecs_json_path(const ecs_json_doc *doc, const ecs_json_value *v, char *buf, size_t size);
/** "null", "false", "true", "number", "string", "array", "object". */
ECS_DEF const char *ecs_json_type_name(ecs_json_type type);
/** Number v as a float: the float nearest its text, rounded once as strtof
    rounds it (v->number rounded again to a float is off by one when that
    double lies exactly halfway between two floats; ecs_json_parse marks
    those numbers, so this reads no text and allocates nothing). Returns 1
    and *out; 0, *out unchanged, when v or out is NULL, v is not a number, or
    its nearest float is infinite: the text's magnitude is FLT_MAX plus half
    its last place (2^128 - 2^103) or more (3.4028235e38 and
    340282356779733661637539395458142568447.9 read as FLT_MAX, 3.4028236e38
    is refused). The compiler, schema values, snapshot JSON and the
    console's float arguments all read floats with it. v must come from
    ecs_json_parse (a value filled in by hand lacks the mark). Pure: any
    thread. */
ECS_DEF int ecs_json_f32(const ecs_json_value *v, float *out);

/* ---- COMPILER ------------------------------------------------------------ */

/** ecs_compiler_compile flags. */
#define ECS_COMPILER_BIG_ENDIAN 1u  /* write big-endian (default little-endian) */
#define ECS_COMPILER_PREFAB 2u      /* require exactly one root entity */
#define ECS_COMPILER_NAMES 4u       /* also write the names block (NAMES BLOCK) */

/** Spawn orders ecs_compiler_register_standard uses. */
#define ECS_RESOURCE_TRANSFORM_ORDER 0
#define ECS_RESOURCE_MESH_ORDER 100
#define ECS_RESOURCE_ACTOR_ORDER 200

/** The standard components' schemas as X-lists (X(kind, field, spec), see
    ecs.h's ECS_MANAGER_DEFINE_SCHEMA): the records ecs_compiler_register_standard
    compiles and a manager defined from the same list spawns. */
#define ECS_RESOURCE_MESH_SCHEMA(X) \
    X(path, mesh, ECS_FIELD_REQUIRED) \
    X(u32, flags, "0")
#define ECS_RESOURCE_ACTOR_SCHEMA(X)                     \
    X(f32, mass, "{\"default\": 1, \"min\": 0}") \
    X(f32, radius, "{\"default\": 0.5, \"min\": 0}")

/** What a compile function sees: the document, the target byte order, the
    output of the current instance, the dependency list, the error. */
typedef struct ecs_compiler_context ecs_compiler_context;

/** Turns one component object (which has a "type" member naming this
    function's component) into the bytes of one instance, written with the
    ecs_compiler_write_* functions. Returns ECS_OK or an error code (report
    it with ecs_compiler_error so the message has the JSON path). */
typedef ecs_result (*ecs_compiler_fn)(void *user, ecs_compiler_context *ctx, const ecs_json_value *component);

/** What a decompile function sees: the byte order, the entity, the names,
    the JSON text being written, the error. */
typedef struct ecs_decompile_context ecs_decompile_context;

/** The inverse of a compile function: reads the instance at data (size
    bytes are left in the block from there on: this instance and the ones
    after it), writes its members with ecs_decompile_member and the value
    writers, and sets *used to the instance's bytes. The members must compile
    back to exactly these bytes; where they could not (a value JSON cannot
    hold, a record the compile function would refuse), return
    ecs_decompile_error. */
typedef ecs_result (*ecs_decompile_fn)(void *user, ecs_decompile_context *ctx, const void *data, uint32_t size,
                                       uint32_t *used);

typedef struct ecs_compiler__type {
    uint32_t identifier; /* first: the registrations are sorted by it */
    uint32_t name_length;
    char *name;
    int spawn_order;
    ecs_compiler_fn fn;
    void *user;
    ecs_decompile_fn decompile; /* or NULL */
    void *decompile_user;
    void *schema;               /* owned: ecs_compiler_register_schema's compiled schema */
} ecs_compiler__type;

/** Compile functions by component name. Zero-initialised is valid. */
typedef struct ecs_compiler {
    ecs_compiler__type *types; /* sorted by identifier */
    uint32_t num_types, types_capacity;
} ecs_compiler;

/** What ecs_compiler_compile produced. Free with ecs_compiler_output_free. */
typedef struct ecs_compiler_output {
    void *blob;                /* size bytes, 4-byte aligned, ready to verify and spawn */
    uint32_t size;
    const char **dependency;   /* canonical paths the resource refers to, sorted, unique */
    uint32_t num_dependencies;
} ecs_compiler_output;

/** Same as zero-initialising *c. */
ECS_DEF void ecs_compiler_init(ecs_compiler *c);
/** Frees the registrations; *c is then empty again. */
ECS_DEF void ecs_compiler_free(ecs_compiler *c);
/** Registers fn for components {"type": name}. Blocks are ordered by
    spawn_order, then name. Returns ECS_OK; ECS_ERROR_ALREADY_EXISTS,
    ECS_ERROR_NAME_COLLISION (another registered name has the same
    identifier: both names in the message), ECS_ERROR_INVALID_ARGUMENT (NULL
    or empty name, a name that is not UTF-8, NULL fn), ECS_ERROR_OUT_OF_MEMORY. */
ECS_DEF ecs_result ecs_compiler_register(ecs_compiler *c, const char *name, ecs_compiler_fn fn, void *user,
                                         int spawn_order, ecs_error *err);
/** Removes name's registration. Returns ECS_OK or ECS_ERROR_NOT_FOUND. */
ECS_DEF ecs_result ecs_compiler_unregister(ecs_compiler *c, const char *name);
/** Registers compile and decompile functions made from a schema for
    components {"type": name} (see SCHEMAS): num_fields entries of ecs.h's
    ecs_schema_field, the fields of the record in order. The schema is
    checked (kinds, names: UTF-8, every spec parsed: a default must be a valid
    value within min..max) and copied. Errors as ecs_compiler_register, and
    ECS_ERROR_INVALID_ARGUMENT naming the field for a bad schema. */
ECS_DEF ecs_result ecs_compiler_register_schema(ecs_compiler *c, const char *name, const ecs_schema_field *schema,
                                                uint32_t num_fields, int spawn_order, ecs_error *err);
/** ecs_compiler_register_schema with manager m's schema (ecs.h's
    ecs_manager_set_schema, ecs_manager_init_schema, ECS_MANAGER_DEFINE_SCHEMA):
    levels then spawn into m with ecs_manager_spawn.
    ECS_ERROR_INVALID_ARGUMENT when m has no schema. */
ECS_DEF ecs_result ecs_compiler_register_manager(ecs_compiler *c, const char *name, const ecs_manager *m,
                                                 int spawn_order, ecs_error *err);
/** Reads one live value of a schema field from JSON v (of doc), checked as
    the compiler checks a level's member (see SCHEMAS): the kind's JSON form
    (exact integers in range, an f32 that rounds to a finite float, arrays
    of 2, 3, 4 or 16 numbers, a non-zero quat, a canonical path or "#" and
    16 hex digits), then the spec's "min" and "max". Unlike a level, an
    entity field takes a live entity id (a whole number below 2^32) or null
    (the nil entity), and a runtime field (spec NULL) takes any value of
    its kind. Writes the field's bytes (ecs_field_kind_size(field->kind), in
    this machine's byte order) to out only on success: a debug console's
    "set this field" (ecs_console.h's world.set). ECS_OK;
    ECS_ERROR_INVALID_ARGUMENT (err names the field, what it wants and what
    v is: "field 'mass' (f32): mass must be >= 0 (found -1)"; a path that
    is not canonical: its canonical spelling, whatever its length, or why
    it has none; also a spec that does not parse, and NULL arguments);
    ECS_ERROR_OUT_OF_MEMORY (the spec is parsed, and a path that is not
    canonical respelled, in scratch memory). */
ECS_DEF ecs_result ecs_schema_value_read(const ecs_schema_field *field, const ecs_json_doc *doc, const ecs_json_value *v,
                                         void *out, ecs_error *err);
/** Gives the registered type `name` a decompile function (for a hand-written
    compile function; a schema type has one already, which this replaces).
    ECS_OK, ECS_ERROR_NOT_FOUND, ECS_ERROR_INVALID_ARGUMENT (NULL fn). */
ECS_DEF ecs_result ecs_compiler_set_decompile(ecs_compiler *c, const char *name, ecs_decompile_fn fn, void *user,
                                              ecs_error *err);
/** The name registered for identifier, or NULL. Valid until it is
    unregistered or the compiler freed. */
ECS_DEF const char *ecs_compiler_type_name(const ecs_compiler *c, uint32_t identifier);
/** Registers the standard components transform, mesh and actor (see
    COMPILER) with their ECS_RESOURCE_*_ORDER: transform by its compile and
    decompile functions, mesh and actor by their schemas. Stops at the first
    failure. */
ECS_DEF ecs_result ecs_compiler_register_standard(ecs_compiler *c, ecs_error *err);
/** Compiles len bytes of JSON (see COMPILER) into out. flags: 0 or
    ECS_COMPILER_BIG_ENDIAN | ECS_COMPILER_PREFAB | ECS_COMPILER_NAMES (the
    names block, NAMES BLOCK). Returns ECS_OK (out owns a blob that passes
    ecs_resource_verify on a machine of the target order), or an error with
    out zeroed: ECS_ERROR_JSON (line, column), ECS_ERROR_COMPILE /
    ECS_ERROR_UNKNOWN_COMPONENT / ECS_ERROR_NON_CANONICAL_PATH (JSON path,
    line, column; an unknown or ambiguous entity reference too),
    ECS_ERROR_OUT_OF_MEMORY, ECS_ERROR_INVALID_ARGUMENT. */
ECS_DEF ecs_result ecs_compiler_compile(const ecs_compiler *c, const char *json, size_t len, uint32_t flags,
                                        ecs_compiler_output *out, ecs_error *err);
/** Frees out's blob and dependency list and zeroes it. */
ECS_DEF void ecs_compiler_output_free(ecs_compiler_output *out);

/* -- for compile functions -- */

/** The parsed document (for ecs_json_member and friends). */
ECS_DEF const ecs_json_doc *ecs_compiler_doc(const ecs_compiler_context *ctx);
/** 1 when writing big-endian, 0 for little-endian. */
ECS_DEF int ecs_compiler_big_endian(const ecs_compiler_context *ctx);
/** Resource index of the entity whose component is being compiled. */
ECS_DEF uint32_t ecs_compiler_entity_index(const ecs_compiler_context *ctx);
/** How many instances of the component type being compiled the current
    entity already has (its earlier components of the same type). */
ECS_DEF uint32_t ecs_compiler_entity_instances(const ecs_compiler_context *ctx);
/** Reports a compile error at value `at` (NULL: the current component):
    ECS_ERROR_COMPILE with "path (line L, column C): " and the formatted text.
    Returns ECS_ERROR_COMPILE. */
ECS_DEF ecs_result ecs_compiler_error(ecs_compiler_context *ctx, const ecs_json_value *at, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/** Appends n raw bytes (no byte order change). ECS_OK or out of memory. */
ECS_DEF ecs_result ecs_compiler_write(ecs_compiler_context *ctx, const void *bytes, uint32_t n);
/** Appends one value in the target byte order. ECS_OK or out of memory. */
ECS_DEF ecs_result ecs_compiler_write_u8(ecs_compiler_context *ctx, uint8_t v);
/** See ecs_compiler_write_u8. */
ECS_DEF ecs_result ecs_compiler_write_u16(ecs_compiler_context *ctx, uint16_t v);
/** See ecs_compiler_write_u8. */
ECS_DEF ecs_result ecs_compiler_write_u32(ecs_compiler_context *ctx, uint32_t v);
/** See ecs_compiler_write_u8. */
ECS_DEF ecs_result ecs_compiler_write_u64(ecs_compiler_context *ctx, uint64_t v);
/** See ecs_compiler_write_u8 (IEEE 754 bits). */
ECS_DEF ecs_result ecs_compiler_write_f32(ecs_compiler_context *ctx, float v);
/** See ecs_compiler_write_u8 (IEEE 754 bits). */
ECS_DEF ecs_result ecs_compiler_write_f64(ecs_compiler_context *ctx, double v);
/** Validates the resource path in string value `path`, records it as a
    dependency and returns its ecs_path_hash in *hash (may be NULL). A non-
    canonical path is ECS_ERROR_NON_CANONICAL_PATH with the canonical spelling
    in the message when there is one; a non-string ECS_ERROR_COMPILE. */
ECS_DEF ecs_result ecs_compiler_add_dependency(ecs_compiler_context *ctx, const ecs_json_value *path, uint64_t *hash);
/** ecs_compiler_add_dependency, then writes the hash as a uint64. */
ECS_DEF ecs_result ecs_compiler_write_reference(ecs_compiler_context *ctx, const ecs_json_value *path);
/** Reads string value `name` as the "name" of another entity of the same
    resource, or null, and writes that entity's resource index as a uint32
    (0xFFFFFFFF for null). Names are resolved when every entity is known:
    an unknown or ambiguous name fails the compile with `name`'s JSON path.
    ECS_ERROR_COMPILE for a value that is neither a string nor null. A spawn
    function maps the index with ecs.h's ecs_spawn_resolve (ecs_manager_spawn
    does it for ECS_FIELD_ENTITY fields). */
ECS_DEF ecs_result ecs_compiler_write_entity(ecs_compiler_context *ctx, const ecs_json_value *name);
/** Checks that object obj has no member other than "type" and the n names in
    known, and no member twice. ECS_OK or ECS_ERROR_COMPILE at the member. */
ECS_DEF ecs_result ecs_compiler_check_members(ecs_compiler_context *ctx, const ecs_json_value *obj,
                                              const char *const *known, uint32_t n);
/** Reads member key of obj as n floats: a number when n == 1, else an array
    of exactly n numbers, each finite as a float. A missing member gives
    defaults (n values) or, with defaults NULL, an error. ECS_OK or
    ECS_ERROR_COMPILE at the offending value. */
ECS_DEF ecs_result ecs_compiler_member_f32(ecs_compiler_context *ctx, const ecs_json_value *obj, const char *key,
                                           float *out, uint32_t n, const float *defaults);
/** Reads member key of obj as an integer 0..4294967295, exactly, in any
    form of a whole number (7, 7.0, 0.7e1; not 7.0000000000000000001). A
    missing member gives
    *defaults, or an error when defaults is NULL. */
ECS_DEF ecs_result ecs_compiler_member_u32(ecs_compiler_context *ctx, const ecs_json_value *obj, const char *key,
                                           uint32_t *out, const uint32_t *defaults);

/* -- the transform (user is unused; see COMPILER; mesh and actor are
      schemas: ECS_RESOURCE_MESH_SCHEMA, ECS_RESOURCE_ACTOR_SCHEMA) -- */

/** Compiles a transform into its 64-byte local matrix. */
ECS_DEF ecs_result ecs_resource_compile_transform(void *user, ecs_compiler_context *ctx,
                                                  const ecs_json_value *component);
/** Decompiles a transform: position, rotation and scale when they compile
    back to the same 16 floats, else "local". */
ECS_DEF ecs_result ecs_resource_decompile_transform(void *user, ecs_decompile_context *ctx, const void *data,
                                                    uint32_t size, uint32_t *used);

/* ---- NAMES BLOCK --------------------------------------------------------- */

/** A blob's names block, read: the names of its entities and the paths behind
    its path hashes (NAMES BLOCK). Free with ecs_resource_names_free. */
typedef struct ecs_resource_names {
    const char **entity;           /* entity[k]: resource entity k's name, NUL-terminated
                                      (entity_length[k] bytes; a JSON name may hold NULs),
                                      or NULL for an entity without a name */
    uint32_t *entity_length;
    uint32_t num_entities;         /* the blob's num_entities */
    const char **path;             /* the canonical paths, sorted (the dependency list) */
    uint64_t *path_hash;           /* path_hash[i] = ecs_path_hash(path[i]) */
    const uint32_t *path_by_hash;  /* indices into path, in path_hash order */
    uint32_t num_paths;
    int present;                   /* 1 when the blob has a names block */
    void *memory;                  /* the one allocation behind all of it */
} ecs_resource_names;

/** Reads the names block of a blob in either byte order (the blob is verified
    first, in the order its byte order mark says). A blob without one gives
    ECS_OK, present 0, every name NULL and no paths. Errors: the verify errors;
    ECS_ERROR_CORRUPT_RESOURCE for a malformed names block (a length past its
    data, a name that is not UTF-8, a path that is not canonical, paths out of
    order, bytes left over) with the offset; ECS_ERROR_OUT_OF_MEMORY. out is
    empty (and needs no free) after an error. */
ECS_DEF ecs_result ecs_resource_names_read(const void *blob, size_t size, ecs_resource_names *out, ecs_error *err);
/** The path whose hash is `hash`, or NULL. O(log num_paths). */
ECS_DEF const char *ecs_resource_names_path(const ecs_resource_names *names, uint64_t hash);
/** Frees names' memory and empties it. */
ECS_DEF void ecs_resource_names_free(ecs_resource_names *names);

/* ---- DECOMPILER ---------------------------------------------------------- */

/** ecs_compiler_decompile flags. */
#define ECS_DECOMPILE_ALL_MEMBERS 1u /* also write members equal to their default */
#define ECS_DECOMPILE_CHECK 2u       /* compile the text again and compare the bytes */

/** What ecs_compiler_decompile produced. Free with ecs_decompile_output_free. */
typedef struct ecs_decompile_output {
    char *json;             /* length bytes of JSON, NUL-terminated */
    size_t length;
    uint32_t compile_flags; /* ECS_COMPILER_BIG_ENDIAN | ECS_COMPILER_NAMES as the blob
                               needs: compiling json with them gives the blob again */
} ecs_decompile_output;

/** Turns a blob (either byte order) back into level JSON with c's
    registrations: compiling the text with out->compile_flags and the same
    registrations gives the same bytes (see DECOMPILE). flags: 0 or
    ECS_DECOMPILE_ALL_MEMBERS | ECS_DECOMPILE_CHECK. Returns ECS_OK, the
    verify errors, ECS_ERROR_DECOMPILE (a blob the compiler could not have
    made from JSON, e.g. blocks out of order, a NaN, a registered type without
    a decompile function; the message names the offset), ECS_ERROR_OUT_OF_MEMORY,
    ECS_ERROR_INVALID_ARGUMENT; out is zeroed on failure. */
ECS_DEF ecs_result ecs_compiler_decompile(const ecs_compiler *c, const void *blob, size_t size, uint32_t flags,
                                          ecs_decompile_output *out, ecs_error *err);
/** Decompiles one instance of the registered type `identifier` at data
    (size bytes left in its block, in the given byte order) into a JSON
    object without "type" ({"mass": 2, "radius": 0.5}), every member written;
    names (may be NULL) supplies entity names and paths (references without
    a name are written "#index"). For tools that list a blob block by block.
    *used: the instance's bytes. ECS_ERROR_NOT_FOUND when the type is not
    registered or has no decompile function; the decompile function's
    errors. */
ECS_DEF ecs_result ecs_compiler_decompile_instance(const ecs_compiler *c, uint32_t identifier, const void *data,
                                                   uint32_t size, int big_endian, const ecs_resource_names *names,
                                                   ecs_decompile_output *out, uint32_t *used, ecs_error *err);
/** Frees out's text and zeroes it. */
ECS_DEF void ecs_decompile_output_free(ecs_decompile_output *out);

/* -- for decompile functions -- */

/** 1 when the data being read is big-endian, 0 for little-endian. */
ECS_DEF int ecs_decompile_big_endian(const ecs_decompile_context *ctx);
/** Resource index of the entity whose component is being decompiled. */
ECS_DEF uint32_t ecs_decompile_entity_index(const ecs_decompile_context *ctx);
/** How many instances of this type the entity has before this one. */
ECS_DEF uint32_t ecs_decompile_entity_instances(const ecs_decompile_context *ctx);
/** Reads a value at p (any alignment) in the data's byte order. */
ECS_DEF uint32_t ecs_decompile_read_u32(const ecs_decompile_context *ctx, const void *p);
/** See ecs_decompile_read_u32. */
ECS_DEF uint64_t ecs_decompile_read_u64(const ecs_decompile_context *ctx, const void *p);
/** See ecs_decompile_read_u32 (IEEE 754 bits). */
ECS_DEF float ecs_decompile_read_f32(const ecs_decompile_context *ctx, const void *p);
/** See ecs_decompile_read_u32 (IEEE 754 bits). */
ECS_DEF double ecs_decompile_read_f64(const ecs_decompile_context *ctx, const void *p);
/** Refuses the instance: ECS_ERROR_DECOMPILE with "offset N (block 'x',
    entity k): " and the formatted text. Returns ECS_ERROR_DECOMPILE. */
ECS_DEF ecs_result ecs_decompile_error(ecs_decompile_context *ctx, const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/** Starts member `key` (then write exactly one value). */
ECS_DEF ecs_result ecs_decompile_member(ecs_decompile_context *ctx, const char *key);
/** Writes n floats: a number when n == 1, else an array, each in the
    shortest form that reads back as the same float. A NaN or an infinity is
    refused (JSON has none). */
ECS_DEF ecs_result ecs_decompile_f32(ecs_decompile_context *ctx, const float *v, uint32_t n);
/** Writes a double, shortest exact form; NaN and infinities refused. */
ECS_DEF ecs_result ecs_decompile_f64(ecs_decompile_context *ctx, double v);
/** Writes an integer. */
ECS_DEF ecs_result ecs_decompile_int(ecs_decompile_context *ctx, int64_t v);
/** Writes an unsigned integer. */
ECS_DEF ecs_result ecs_decompile_uint(ecs_decompile_context *ctx, uint64_t v);
/** Writes true or false. */
ECS_DEF ecs_result ecs_decompile_bool(ecs_decompile_context *ctx, int v);
/** Writes n bytes of UTF-8 as a JSON string (escaped). */
ECS_DEF ecs_result ecs_decompile_string(ecs_decompile_context *ctx, const char *s, uint32_t n);
/** Writes a resource reference: its path when the names block knows the
    hash (the compiler records it as a dependency again), else
    "#0123456789abcdef" (the hash itself, which a schema path field reads
    back; hand-written compile functions see a non-canonical path). */
ECS_DEF ecs_result ecs_decompile_path(ecs_decompile_context *ctx, uint64_t hash);
/** Writes a reference to resource entity `index` (ecs_compiler_write_entity's
    value): its name, or null for 0xFFFFFFFF. An index past the entities, or
    an entity whose name is missing or not unique in a blob with a names
    block, is refused. */
ECS_DEF ecs_result ecs_decompile_entity(ecs_decompile_context *ctx, uint32_t index);
/** Writes json as it is (a complete JSON value the caller vouches for). */
ECS_DEF ecs_result ecs_decompile_raw(ecs_decompile_context *ctx, const char *json);

/* ---- REFERENCES: the dependency checker's readers and patcher ------------- */

/** ecs_reference flags. */
#define ECS_REFERENCE_NON_CANONICAL 1u /* written non-canonically (canonical: the fix, or "" when none) */

/** One resource path a JSON source names, found through the compiler's
    registrations (REFERENCES). */
typedef struct ecs_reference {
    uint32_t offset;       /* byte offset of the string token (its opening '"') in the source */
    uint32_t length;       /* bytes of the token, both quotes included */
    uint32_t line, column; /* of the opening quote: lines from 1, columns in characters from 1 */
    uint32_t flags;        /* ECS_REFERENCE_NON_CANONICAL */
    const char *path;      /* the path as written, decoded (NUL-terminated) */
    const char *canonical; /* its canonical spelling ("" when it has none; path itself when canonical) */
} ecs_reference;

/** Every reference of one source, sorted by offset. One allocation: free
    with ecs_reference_list_free. */
typedef struct ecs_reference_list {
    ecs_reference *refs;
    uint32_t count;
} ecs_reference_list;

/** Finds every resource reference of a level or prefab: runs the compiler
    over len bytes of JSON as ecs_compiler_compile would (same registrations,
    same walk, no blob), and keeps each string that a compile function hands
    to ecs_compiler_add_dependency or ecs_compiler_write_reference (schema
    path fields included; "#" hashes and schema defaults are no text of the
    source and are not listed), canonical or not: a non-canonical one is
    listed with ECS_REFERENCE_NON_CANONICAL instead of failing. Entity
    references are not resolved. Returns ECS_OK with out filled (count may
    be 0); ECS_ERROR_JSON (line, column), the compile errors other than a
    non-canonical path (ECS_ERROR_UNKNOWN_COMPONENT, ECS_ERROR_COMPILE with
    the JSON path), ECS_ERROR_OUT_OF_MEMORY, ECS_ERROR_INVALID_ARGUMENT (NULL
    c or out); out is empty then. Pure: only reads c (several threads may
    use one compiler nobody registers into meanwhile). */
ECS_DEF ecs_result ecs_compiler_references(const ecs_compiler *c, const char *json, size_t len,
                                           ecs_reference_list *out, ecs_error *err);
/** Frees list's memory and empties it (NULL or empty: nothing). */
ECS_DEF void ecs_reference_list_free(ecs_reference_list *list);

/** One edit of ecs_source_patch: the JSON string token at
    [offset, offset + length) becomes the string "path". */
typedef struct ecs_source_edit {
    uint32_t offset;  /* byte offset of the token's opening '"' */
    uint32_t length;  /* bytes of the token, both quotes included */
    const char *path; /* a canonical path (NUL-terminated) */
} ecs_source_edit;

/** A patched source: one allocation, free with ecs_source_output_free. */
typedef struct ecs_source_output {
    char *text;    /* length bytes and a NUL */
    size_t length;
} ecs_source_output;

/** Writes json with each edit's string token replaced by its path (as a
    JSON string: canonical paths need no escapes) and every other byte as
    it was. Checks first, changing nothing: edits sorted by offset, none
    overlapping, each inside the text and exactly one complete JSON string
    token (a '"', no raw control byte, valid escapes, the closing '"' at
    offset + length - 1) that is a token of the text: a walk from byte 0,
    skipping each string token whole, lands on the offset (a closing quote
    or an escaped quote inside a string is refused; keys are tokens too),
    each path canonical. Returns ECS_OK; ECS_ERROR_
    INVALID_ARGUMENT naming the edit and what is wrong (out empty);
    ECS_ERROR_OUT_OF_MEMORY. n == 0 copies the text. Pure, thread-safe. */
ECS_DEF ecs_result ecs_source_patch(const char *json, size_t len, const ecs_source_edit *edits, uint32_t n,
                                    ecs_source_output *out, ecs_error *err);
/** Frees out's text and empties it. */
ECS_DEF void ecs_source_output_free(ecs_source_output *out);

/** The path a rename of old_path to new_path (both canonical) gives path:
    new_path when path is old_path, new_path + the rest when path lies under
    the folder old_path ("textures/a/b" with "textures/a" -> "art/a": "art/
    a/b"). Writes it to out (NUL-terminated) and returns its length; returns
    0 when the rename leaves path alone, and -1 when out_size is too small
    or an argument is NULL or not canonical. Pure. */
ECS_DEF long ecs_path_renamed(const char *path, const char *old_path, const char *new_path, char *out,
                              size_t out_size);

/** Edit distance (insertions, deletions, substitutions of bytes) between
    paths a and b, or limit + 1 when it exceeds limit (O(strlen(a) *
    strlen(b)), stopping at the first row past limit; paths whose lengths
    differ by more than limit cost nothing). For "did you mean"
    suggestions. NULL reads as "". Paths of 128 bytes or more take one
    allocation (none available: limit + 1). Pure, thread-safe. */
ECS_DEF uint32_t ecs_path_distance(const char *a, const char *b, uint32_t limit);

/* ---- ONE REGISTRATION: a world's component types ------------------------
   A world (ecs.h's ecs_world) registers each component once; these two
   calls hand its types to a spawner and a compiler, so nobody registers a
   component three times or passes a record size by hand. Spawn orders (the
   order of the blocks in a blob): the standard names keep their
   ECS_RESOURCE_*_ORDER ("transform" 0, "mesh" 100, "actor" 200), so a level
   compiles to the same bytes as with ecs_compiler_register_standard; every
   other component gets ECS_RESOURCE_WORLD_ORDER + its index in the world
   (registration order). */

/** Spawn order of world component k that has no standard order. */
#define ECS_RESOURCE_WORLD_ORDER 1000

/** Registers with sp, under the world's names, every component of w that
    can spawn: a manager (typed, runtime or schema) with ecs_manager_spawn
    and ecs_manager_unspawn (user = the manager, instance size
    ecs_manager_record_size: the record the manager's schema, or its fields,
    define), any other store with its interface's spawn and unspawn (user =
    the store; ECS_RESOURCE_TRANSFORM_SIZE for "transform", else
    ECS_SPAWNER_VARIABLE_SIZE); a store whose interface has no spawn function
    is left out, and said so: on ECS_OK err (if not NULL) has code ECS_OK
    and a message listing what was left out and why
    ("ecs_spawner_register_world: left out 'physics' (its store interface
    has no spawn and unspawn)"), or an empty message when nothing was. All
    or nothing: ECS_OK, or the first failure (as ecs_spawner_register; err
    names the component) with sp as it was. w must
    outlive the registrations (the spawner keeps the managers' pointers). Not
    thread-safe for sp; reads w. */
ECS_DEF ecs_result ecs_spawner_register_world(ecs_spawner *sp, const ecs_world *w, ecs_error *err);
/** Registers with c, under the world's names, every component of w that
    JSON can describe: a manager with a schema through
    ecs_compiler_register_manager (compile and decompile from the schema),
    and the store registered as "transform" with ecs_resource_compile_transform
    and ecs_resource_decompile_transform. Managers without a schema and other
    stores are left out, and said so: on ECS_OK err (if not NULL) has code
    ECS_OK and a message listing them and why ("ecs_compiler_register_world:
    left out 'sprite' (a manager without a schema: give it one with
    ecs_manager_set_schema)"), or an empty message when nothing was. Spawn
    orders: see above. All or nothing: ECS_OK, or
    the first failure (as ecs_compiler_register_manager; err names the
    component) with c as it was. The compiler copies the schemas: w may go
    first. Not thread-safe for c; reads w. */
ECS_DEF ecs_result ecs_compiler_register_world(ecs_compiler *c, const ecs_world *w, ecs_error *err);

/* ---- SAVE SUBTREE: a live subtree as an entity resource (a prefab) ------- */

/** What ecs_resource_save_subtree left out, and what ecs_snapshot.h's
    ecs_snapshot_load left out or filled in (schema evolution, unknown
    stores): counts and one line per event in text (cut at the end, "..."
    then). Declared here, where both headers see it. */
typedef struct ecs_snapshot_report {
    uint32_t skipped;   /* a load: sections of stores the world lacks, not loaded; save_subtree: stores left out */
    uint32_t dropped;   /* a load: fields the snapshot has and the schema lacks; save_subtree: references to
                           entities outside the subtree, written null */
    uint32_t defaulted; /* fields the schema has and the snapshot lacks: given their default */
    char text[1024];
} ecs_snapshot_report;

/** Saves the live subtree of root in the hierarchy store `hierarchy` (an
    ecs_store_interface with subtree, parent_of and spawn_record: the
    transform store) as an entity resource in the FORMAT above, into *out
    (an editor's "save selection as prefab"; see SAVE SUBTREE). Entities: root
    and its live descendants, depth-first, parents first (resource entity 0
    is root, the one root); a descendant that is not live (destroyed, its
    node not collected yet) is left out with its own descendants, as
    ecs_snapshot_save's selections do. Blocks in the order the compiler writes them
    (ecs_compiler_register_world's spawn orders, then names): the hierarchy
    store's records (the transform: each node's local matrix, the root's
    world matrix so the prefab stands where it stood); every schema
    manager's instances of those entities as schema records (target byte
    order; entity fields as resource indices, null for nil and for entities
    outside the subtree); every other interface store with spawn_record.
    Managers without a schema and stores without spawn_record are left out.
    Path fields keep their hashes; with names (a names block read from the
    level the entities came from, or NULL), the paths it knows for those
    hashes become out's dependency list and a names block (which also names
    each referenced entity "#k", as the decompiler does). flags: 0 or
    ECS_COMPILER_BIG_ENDIAN. report (may be NULL): skipped counts the stores
    left out that hold instances of the subtree's entities (a store without
    any of them is not counted or named: nothing of the subtree is lost),
    dropped the references outside the subtree written as null, one line
    each in text ("motion: left out (a manager without a schema)"). The blob verifies, decompiles with a compiler
    that registered the world, compiles back to the same bytes, and spawns
    with a spawner that registered it. ECS_OK; ECS_ERROR_INVALID_ARGUMENT
    (NULL w or out, unknown flags, root not live, not a hierarchy, a blob
    over 4 GiB, a schema field's live value the compiler refuses: out of
    bounds, not finite, a bool byte other than 0 and 1, a zero quaternion,
    with err naming the entity, component, field and rule; a "transform"
    store's 64-byte record with a float that is not finite, as the root's
    world matrix after an overflow, err naming the entity and which matrix,
    world or local; a manager's
    schema the compiler refuses); ECS_ERROR_NOT_FOUND (no such store, root has no node in
    it); ECS_ERROR_OUT_OF_MEMORY. On failure *out and *report are empty. w
    is only read (deferred transforms: commit first, the root's world matrix
    is the last committed one). */
ECS_DEF ecs_result ecs_resource_save_subtree(const ecs_world *w, const char *hierarchy, ecs_entity root,
                                             uint32_t flags, const ecs_resource_names *names,
                                             ecs_compiler_output *out, ecs_snapshot_report *report, ecs_error *err);

#ifdef __cplusplus
}
#endif
#endif /* ECS_RESOURCE_H_INCLUDED */

/* ecs_plugin.h came first: read its ECS_API_RESOURCES part now (it needs
   both headers; see the end of ecs_plugin.h). */
#if defined(ECS_PLUGIN_H_INCLUDED) && !defined(ECS_PLUGIN_RESOURCES_H_INCLUDED)
#include "ecs_plugin.h"
#endif

/* ======================================================================== */
/*                             IMPLEMENTATION                               */
/* ======================================================================== */

/* MAP: after the includes and the allocator macros, the parts of the
   implementation, each under its banner, in the order of the declarations:
     COMMON       byte order, FNV-1a, array growth, the sorted lookup,
                  UTF-8 sequences, the line and column of a text offset
     FORMAT       ecs_resource_identifier, verify (SSE2 where available),
                  the block readers, byte swap
     SPAWNER      registration, spawn (all or nothing), unspawn
     PATHS        ecs_path_hash, canonical paths, the order of paths
     JSON READER  the strict RFC 8259 parser and its accessors
     COMPILER     registration; the context and what compile functions call
                  (errors, writers, dependencies, entity references, member
                  readers); schemas; the standard components; the compile
                  driver (entity walk, references, blob and names block)
     NAMES BLOCK  reading it back (ecs_resource_names_read)
     DECOMPILER   the JSON writer and what decompile functions call; the
                  schema and transform decompile functions; the decompile
                  driver (blocks, their order, the entity tree, the check)
     REFERENCES   the compiler's walk listing references, the source
                  patcher, renamed paths, the edit distance
     ONE REGISTRATION  a world's types to a spawner and a compiler
     SAVE SUBTREE a live subtree as an entity resource (measure, then
                  write)
   ecs_snapshot.h's implementation follows in the same file and uses the
   private helpers here (byte order, the JSON reader and writer, schemas). */

#ifdef ECS_RESOURCE_IMPLEMENTATION
#ifndef ECS__RESOURCE_IMPLEMENTATION_DONE
#define ECS__RESOURCE_IMPLEMENTATION_DONE

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <float.h>
#include <limits.h>
#include <locale.h>
#include <math.h>

#if defined(ECS_REALLOC) && !defined(ECS_FREE) || !defined(ECS_REALLOC) && defined(ECS_FREE)
#error "define both ECS_REALLOC and ECS_FREE, or neither"
#endif
/* Same allocator choice as ecs.h (pico_ecs's implementation defines
   ECS_REALLOC/ECS_FREE with an extra argument: those are ignored). */
#ifndef ECS__REALLOC
#if defined(ECS_REALLOC) && !defined(PICO_ECS_REALLOC)
#define ECS__REALLOC(p, n) ECS_REALLOC(p, n)
#define ECS__FREE(p) ECS_FREE(p)
#else
#define ECS__REALLOC(p, n) realloc(p, n)
#define ECS__FREE(p) free(p)
#endif
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ECS__RES_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ECS__RES_PRINTF(a, b)
#endif

/* ---- COMMON -------------------------------------------------------------- */

static uint32_t ecs__res_bswap32(uint32_t v)
{
    return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

static uint64_t ecs__res_bswap64(uint64_t v)
{
    return ((uint64_t)ecs__res_bswap32((uint32_t)v) << 32) | ecs__res_bswap32((uint32_t)(v >> 32));
}

static int ecs__res_host_big_endian(void)
{
    const uint32_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 0;
}

static uint32_t ecs__res_rd32(const unsigned char *p, int swap)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return swap ? ecs__res_bswap32(v) : v;
}

static void ecs__res_wr32(unsigned char *p, uint32_t v, int swap)
{
    if (swap) v = ecs__res_bswap32(v);
    memcpy(p, &v, 4);
}

static uint32_t ecs__fnv1a32(const char *s, size_t n)
{
    uint32_t h = 0x811C9DC5u;
    size_t i;
    for (i = 0; i < n; ++i) {
        h ^= (unsigned char)s[i];
        h *= 0x01000193u;
    }
    return h;
}

static uint64_t ecs__fnv1a64(const char *s, size_t n)
{
    uint64_t h = 0xCBF29CE484222325ull;
    size_t i;
    for (i = 0; i < n; ++i) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

/* The capacity an array of elem-byte elements grows to from cap so that it
   holds `needed` elements: doubling (at least 16), at most `limit` elements
   and at most SIZE_MAX bytes; 0 when `needed` is past either. Never wraps: a
   32-bit size_t doubled past 2^31 would become 0 and double forever. */
static size_t ecs__res_grown_capacity(size_t cap, size_t needed, size_t elem, size_t limit)
{
    if (limit > (size_t)-1 / elem) limit = (size_t)-1 / elem;
    if (needed > limit) return 0;
    if (cap < 16) cap = 16;
    while (cap < needed) cap = cap > limit / 2u ? limit : cap * 2u;
    return cap < limit ? cap : limit;
}

/* Grows an array to hold `needed` elements (doubling, at most 2^32 - 1). On
   success *out is the (possibly moved) array and *capacity updated; on
   failure nothing changes. */
static int ecs__res_grow(void *ptr, uint32_t *capacity, size_t needed, size_t elem, void **out)
{
    size_t cap;
    void *np;
    *out = ptr;
    if (needed <= *capacity) return 1;
    cap = ecs__res_grown_capacity(*capacity, needed, elem, 0xFFFFFFFFu);
    if (!cap) return 0;
    np = ECS__REALLOC(ptr, cap * elem);
    if (!np) return 0;
    *out = np;
    *capacity = (uint32_t)cap;
    return 1;
}

static char *ecs__res_strdup(const char *s, size_t n)
{
    char *d = (char *)ECS__REALLOC(NULL, n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* The spawner's and the compiler's lookups by name: "no such registration". */
#define ECS__RESOURCE_NOT_REGISTERED 0xFFFFFFFFu

/* First index of an array of n records of `stride` bytes, sorted by the
   uint32 identifier each record starts with, whose identifier is >= id. */
static uint32_t ecs__res_lower(const void *base, uint32_t n, size_t stride, uint32_t id)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u, v;
        memcpy(&v, (const char *)base + (size_t)mid * stride, sizeof v);
        if (v < id) lo = mid + 1u;
        else hi = mid;
    }
    return lo;
}

/* The rules of a new registration that the spawner and the compiler (`who`)
   share: a name may not have the names block's identifier, nor be
   registered already, nor share its identifier with the registered name
   `taken` (NULL: the identifier is free). */
static ecs_result ecs__res_check_new_name(const char *who, const char *name, uint32_t id, const char *taken,
                                          ecs_error *err)
{
    if (id == ECS_RESOURCE_NAMES_ID)
        return ecs_error_set(err, ECS_ERROR_NAME_COLLISION,
                             "%s: '%s' has the identifier 0x%08X of the names block: rename it", who, name, (unsigned)id);
    if (!taken) return ECS_OK;
    if (strcmp(taken, name) == 0)
        return ecs_error_set(err, ECS_ERROR_ALREADY_EXISTS, "%s: component '%s' is already registered", who, name);
    return ecs_error_set(err, ECS_ERROR_NAME_COLLISION,
                         "%s: '%s' and the registered '%s' have the same identifier 0x%08X: rename one", who, name, taken,
                         (unsigned)id);
}

/* Line and column (characters, from 1) of byte offset in text. */
static void ecs__res_text_position(const char *text, size_t len, size_t offset, uint32_t *line, uint32_t *column)
{
    uint32_t l = 1, c = 1;
    size_t i;
    if (offset > len) offset = len;
    for (i = 0; i < offset; ++i) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\n') {
            ++l;
            c = 1;
        } else if ((ch & 0xC0u) != 0x80u) {
            ++c;
        }
    }
    *line = l;
    *column = c;
}

/* Length of the valid UTF-8 sequence (RFC 3629: no overlongs, no surrogates,
   nothing above U+10FFFF) starting at s, or 0. s < end, *s >= 0x80. */
static uint32_t ecs__utf8_sequence(const unsigned char *s, const unsigned char *end)
{
    unsigned c = s[0], lo = 0x80, hi = 0xBF;
    size_t left = (size_t)(end - s);
    if (c < 0xC2) return 0;
    if (c < 0xE0) return left >= 2 && (s[1] & 0xC0u) == 0x80u ? 2u : 0u;
    if (c < 0xF0) {
        if (left < 3) return 0;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
        return s[1] >= lo && s[1] <= hi && (s[2] & 0xC0u) == 0x80u ? 3u : 0u;
    }
    if (c < 0xF5) {
        if (left < 4) return 0;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
        return s[1] >= lo && s[1] <= hi && (s[2] & 0xC0u) == 0x80u && (s[3] & 0xC0u) == 0x80u ? 4u : 0u;
    }
    return 0;
}

/* The bytes of s[0..n) before its first one that is not UTF-8 (n: all). */
static uint32_t ecs__utf8_prefix(const unsigned char *s, uint32_t n)
{
    uint32_t i = 0;
    while (i < n) {
        uint32_t k = s[i] < 0x80 ? 1u : ecs__utf8_sequence(s + i, s + n);
        if (!k) return i;
        i += k;
    }
    return n;
}

/* 1 when s[0..n) is UTF-8 (any byte below 0x80 included). */
static int ecs__utf8_valid(const unsigned char *s, uint32_t n)
{
    return ecs__utf8_prefix(s, n) == n;
}

/* NULL when name is UTF-8, else why not (in buf): "'caf' then byte 0xe9"
   (a message never carries the bad bytes). */
static const char *ecs__name_not_utf8(const char *name, char *buf, size_t size)
{
    uint32_t n = (uint32_t)strlen(name), ok = ecs__utf8_prefix((const unsigned char *)name, n);
    if (ok == n) return NULL;
    snprintf(buf, size, "'%.*s' then byte 0x%02x", (int)(ok < 64u ? ok : 64u), name, (unsigned)(unsigned char)name[ok]);
    return buf;
}

/* ---- FORMAT: identifiers, verify, read, byte swap ------------------------ */

ECS_DEF uint32_t ecs_resource_identifier(const char *name)
{
    return name ? ecs__fnv1a32(name, strlen(name)) : ecs__fnv1a32("", 0);
}

#define ECS__RES_CORRUPT(...) ecs_error_set(err, ECS_ERROR_CORRUPT_RESOURCE, __VA_ARGS__)

/* The two checks over every parent and entity index, 4 at a time with SSE2
   (gcc -O2 does not vectorise the plain loops). Unsigned a > b is signed
   (a ^ 2^31) > (b ^ 2^31). */
#if !defined(ECS_RESOURCE_NO_SIMD) && (defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2))
#define ECS__RES_SSE2 1
#include <emmintrin.h>
#else
#define ECS__RES_SSE2 0
#endif

/* 1 when some parent[k] is neither a root nor < k: parent + 1 > k (the root
   0xFFFFFFFF wraps to 0). n < 2^30. */
static int ecs__res_parents_bad(const uint32_t *parent, uint32_t n)
{
    uint32_t k = 0, bad = 0;
#if ECS__RES_SSE2
    const __m128i bias = _mm_set1_epi32(INT32_MIN), one = _mm_set1_epi32(1), four = _mm_set1_epi32(4);
    __m128i kv = _mm_xor_si128(_mm_setr_epi32(0, 1, 2, 3), bias), acc = _mm_setzero_si128();
    for (; k + 4u <= n; k += 4u) {
        __m128i p = _mm_add_epi32(_mm_loadu_si128((const __m128i *)(const void *)(parent + k)), one);
        acc = _mm_or_si128(acc, _mm_cmpgt_epi32(_mm_xor_si128(p, bias), kv));
        kv = _mm_add_epi32(kv, four);
    }
    bad = (uint32_t)_mm_movemask_epi8(acc);
#endif
    for (; k < n; ++k) bad |= (uint32_t)(parent[k] + 1u > k);
    return bad != 0;
}

/* 1 when some v[j] >= limit. limit < 2^30. */
static int ecs__res_any_at_least(const uint32_t *v, uint32_t n, uint32_t limit)
{
    uint32_t j = 0, bad = 0;
    if (limit == 0) return n != 0;
#if ECS__RES_SSE2
    {
        const __m128i bias = _mm_set1_epi32(INT32_MIN);
        const __m128i last = _mm_xor_si128(_mm_set1_epi32((int)(limit - 1u)), bias);
        __m128i acc = _mm_setzero_si128();
        for (; j + 4u <= n; j += 4u) {
            __m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(v + j)), bias);
            acc = _mm_or_si128(acc, _mm_cmpgt_epi32(x, last));
        }
        bad = (uint32_t)_mm_movemask_epi8(acc);
    }
#endif
    for (; j < n; ++j) bad |= (uint32_t)(v[j] >= limit);
    return bad != 0;
}

/* The header checks: alignment, magic, byte order mark, version, total_size
   equal to size, room for the parent indices. *ne, *nt: the counts. */
static ecs_result ecs__verify_header(const unsigned char *b, size_t size, int swap, uint32_t *ne, uint32_t *nt,
                                     ecs_error *err)
{
    uint32_t bom, version, total;
    if (!b) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "resource: blob is NULL");
    if ((uintptr_t)b & 3u)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "resource: blob address is not 4-byte aligned (load it into aligned memory)");
    if (size < ECS_RESOURCE_HEADER_SIZE)
        return ECS__RES_CORRUPT("offset 0 (header): the blob has %lu bytes, the header alone needs 24",
                                (unsigned long)size);
    if (memcmp(b, "ECSR", 4) != 0)
        return ECS__RES_CORRUPT("offset 0 (magic): expected 'ECSR' (45 43 53 52), found %02X %02X %02X %02X",
                                (unsigned)b[0], (unsigned)b[1], (unsigned)b[2], (unsigned)b[3]);
    bom = ecs__res_rd32(b + 8, swap);
    if (bom == 0x04030201u)
        return ecs_error_set(err, ECS_ERROR_WRONG_BYTE_ORDER,
                             "offset 8 (byte_order_mark): wrong byte order: the blob was written for a %s-endian "
                             "machine (recompile it, or convert it with ecs_resource_swap)",
                             ecs__res_host_big_endian() != swap ? "little" : "big");
    if (bom != ECS_RESOURCE_BYTE_ORDER_MARK)
        return ECS__RES_CORRUPT("offset 8 (byte_order_mark): 0x%08X is not 0x01020304", (unsigned)bom);
    version = ecs__res_rd32(b + 4, swap);
    if (version != ECS_RESOURCE_VERSION)
        return ECS__RES_CORRUPT("offset 4 (version): version %u, this reader knows version 1", (unsigned)version);
    total = ecs__res_rd32(b + 12, swap);
    if ((size_t)total != size)
        return ECS__RES_CORRUPT("offset 12 (total_size): says %u bytes, the buffer has %lu", (unsigned)total,
                                (unsigned long)size);
    /* from here on every offset fits a uint32 because size == total */
    *ne = ecs__res_rd32(b + 16, swap);
    *nt = ecs__res_rd32(b + 20, swap);
    if (*ne > (total - ECS_RESOURCE_HEADER_SIZE) / 4u)
        return ECS__RES_CORRUPT("offset 16 (num_entities): %u entities need %lu bytes of parent_index, only %u bytes "
                                "follow the header",
                                (unsigned)*ne, (unsigned long)*ne * 4ul, (unsigned)(total - ECS_RESOURCE_HEADER_SIZE));
    return ECS_OK;
}

/* Parents before children: every parent_index is a root or an earlier
   entity (the fast check first, the loop that names the culprit after). */
static ecs_result ecs__verify_parents(const unsigned char *b, uint32_t ne, int swap, ecs_error *err)
{
    const uint32_t *parent = (const uint32_t *)(const void *)(b + ECS_RESOURCE_HEADER_SIZE);
    uint32_t bad = 0, k;
    if (!swap) {
        bad = (uint32_t)ecs__res_parents_bad(parent, ne);
    } else {
        for (k = 0; k < ne; ++k) bad |= (uint32_t)(ecs__res_bswap32(parent[k]) + 1u > k);
    }
    for (k = 0; bad && k < ne; ++k) {
        uint32_t p = swap ? ecs__res_bswap32(parent[k]) : parent[k];
        if (p + 1u > k)
            return ECS__RES_CORRUPT("offset %u (parent_index[%u]): parent %u is not an earlier entity (parents "
                                    "come first; 0xFFFFFFFF is a root)",
                                    (unsigned)(ECS_RESOURCE_HEADER_SIZE + 4u * k), (unsigned)k, (unsigned)p);
    }
    return ECS_OK;
}

/* Every entity_index of block t (ni of them at index) is below ne. */
static ecs_result ecs__verify_entity_indices(const uint32_t *index, uint32_t ni, uint32_t ne, uint32_t off, uint32_t t,
                                             int swap, ecs_error *err)
{
    uint32_t bad = 0, j;
    if (!swap) {
        bad = (uint32_t)ecs__res_any_at_least(index, ni, ne);
    } else {
        for (j = 0; j < ni; ++j) bad |= (uint32_t)(ecs__res_bswap32(index[j]) >= ne);
    }
    for (j = 0; bad && j < ni; ++j) {
        uint32_t e = swap ? ecs__res_bswap32(index[j]) : index[j];
        if (e >= ne)
            return ECS__RES_CORRUPT("offset %u (block %u entity_index[%u]): resource entity %u, the resource has %u "
                                    "entities",
                                    (unsigned)(off + ECS_RESOURCE_BLOCK_HEADER_SIZE + 4u * j), (unsigned)t,
                                    (unsigned)j, (unsigned)e, (unsigned)ne);
    }
    return ECS_OK;
}

/* Block t of nt at *off (total bytes in the blob, ne entities): its header,
   entity indices and instance data inside the blob, the indices in range,
   zero padding. Moves *off to the next block. */
static ecs_result ecs__verify_block(const unsigned char *b, uint32_t total, uint32_t ne, uint32_t t, uint32_t nt,
                                    uint32_t *off, int swap, ecs_error *err)
{
    uint32_t o = *off, ni, sz, rem, pad, j;
    ecs_result r;
    if (total - o < ECS_RESOURCE_BLOCK_HEADER_SIZE)
        return ECS__RES_CORRUPT("offset %u (block %u of num_component_types %u): %u bytes left, a block header "
                                "needs 12",
                                (unsigned)o, (unsigned)t, (unsigned)nt, (unsigned)(total - o));
    ni = ecs__res_rd32(b + o + 4, swap);
    sz = ecs__res_rd32(b + o + 8, swap);
    rem = total - o - ECS_RESOURCE_BLOCK_HEADER_SIZE;
    if (ni > rem / 4u)
        return ECS__RES_CORRUPT("offset %u (block %u num_instances): %u instances need %lu bytes of entity_index, "
                                "%u bytes remain",
                                (unsigned)(o + 4), (unsigned)t, (unsigned)ni, (unsigned long)ni * 4ul, (unsigned)rem);
    rem -= 4u * ni;
    if (sz > rem)
        return ECS__RES_CORRUPT("offset %u (block %u size): %u bytes of instance_data, %u bytes remain",
                                (unsigned)(o + 8), (unsigned)t, (unsigned)sz, (unsigned)rem);
    pad = (4u - (sz & 3u)) & 3u;
    if (pad > rem - sz)
        return ECS__RES_CORRUPT("offset %u (block %u padding): %u bytes of padding needed, %u bytes remain",
                                (unsigned)(o + ECS_RESOURCE_BLOCK_HEADER_SIZE + 4u * ni + sz), (unsigned)t,
                                (unsigned)pad, (unsigned)(rem - sz));
    r = ecs__verify_entity_indices((const uint32_t *)(const void *)(b + o + ECS_RESOURCE_BLOCK_HEADER_SIZE), ni, ne,
                                   o, t, swap, err);
    if (r != ECS_OK) return r;
    o += ECS_RESOURCE_BLOCK_HEADER_SIZE + 4u * ni + sz;
    for (j = 0; j < pad; ++j, ++o)
        if (b[o] != 0)
            return ECS__RES_CORRUPT("offset %u (block %u padding): byte 0x%02X, padding must be zero", (unsigned)o,
                                    (unsigned)t, (unsigned)b[o]);
    *off = o;
    return ECS_OK;
}

/* Verifies b in native order (swap == 0) or the other order (swap == 1). */
static ecs_result ecs__resource_verify(const unsigned char *b, size_t size, int swap, ecs_error *err)
{
    uint32_t ne = 0, nt = 0, off, t;
    ecs_result r = ecs__verify_header(b, size, swap, &ne, &nt, err);
    if (r == ECS_OK) r = ecs__verify_parents(b, ne, swap, err);
    off = ECS_RESOURCE_HEADER_SIZE + 4u * ne;
    for (t = 0; r == ECS_OK && t < nt; ++t) r = ecs__verify_block(b, (uint32_t)size, ne, t, nt, &off, swap, err);
    if (r == ECS_OK && off != (uint32_t)size)
        return ECS__RES_CORRUPT("offset %u (total_size): %u bytes follow the last of %u blocks", (unsigned)off,
                                (unsigned)((uint32_t)size - off), (unsigned)nt);
    return r;
}

ECS_DEF ecs_result ecs_resource_verify(const void *blob, size_t size, ecs_error *err)
{
    return ecs__resource_verify((const unsigned char *)blob, size, 0, err);
}

ECS_DEF uint32_t ecs_resource_num_entities(const void *blob)
{
    return ecs__res_rd32((const unsigned char *)blob + 16, 0);
}

ECS_DEF uint32_t ecs_resource_num_component_types(const void *blob)
{
    return ecs__res_rd32((const unsigned char *)blob + 20, 0);
}

ECS_DEF const uint32_t *ecs_resource_parent_index(const void *blob)
{
    return (const uint32_t *)(const void *)((const unsigned char *)blob + ECS_RESOURCE_HEADER_SIZE);
}

ECS_DEF uint32_t ecs_resource_first_block(const void *blob)
{
    return ECS_RESOURCE_HEADER_SIZE + 4u * ecs_resource_num_entities(blob);
}

ECS_DEF ecs_resource_block ecs_resource_block_at(const void *blob, uint32_t offset)
{
    const unsigned char *b = (const unsigned char *)blob + offset;
    const uint32_t *w = (const uint32_t *)(const void *)b;
    ecs_resource_block blk;
    blk.identifier = w[0];
    blk.num_instances = w[1];
    blk.size = w[2];
    blk.entity_index = w + 3;
    blk.data = b + ECS_RESOURCE_BLOCK_HEADER_SIZE + 4u * blk.num_instances;
    blk.offset = offset;
    blk.next = offset + ECS_RESOURCE_BLOCK_HEADER_SIZE + 4u * blk.num_instances + ((blk.size + 3u) & ~3u);
    return blk;
}

static void ecs__res_swap_words(unsigned char *p, uint32_t n)
{
    uint32_t i, v;
    for (i = 0; i < n; ++i, p += 4) {
        memcpy(&v, p, 4);
        v = ecs__res_bswap32(v);
        memcpy(p, &v, 4);
    }
}

static ecs_result ecs__names_check(const unsigned char *b, int swap, ecs_resource_block *blk, int *found,
                                   size_t *string_bytes, uint32_t *num_paths, ecs_error *err);
static void ecs__names_swap(unsigned char *data, uint32_t num_names, int swap);

ECS_DEF ecs_result ecs_resource_swap(void *blob, size_t size, ecs_resource_swap_fn swap_data, void *user,
                                     ecs_error *err)
{
    unsigned char *b = (unsigned char *)blob;
    uint32_t ne, nt, off, t, np;
    int swapped = 0, found;
    size_t string_bytes;
    ecs_resource_block names;
    ecs_result r;
    if (b && size >= 12 && !((uintptr_t)b & 3u) && ecs__res_rd32(b + 8, 0) == 0x04030201u) swapped = 1;
    if ((r = ecs__resource_verify(b, size, swapped, err)) != ECS_OK) return r;
    /* the names block is the library's own: checked now, swapped below */
    if ((r = ecs__names_check(b, swapped, &names, &found, &string_bytes, &np, err)) != ECS_OK) return r;
    ne = ecs__res_rd32(b + 16, swapped);
    nt = ecs__res_rd32(b + 20, swapped);
    ecs__res_swap_words(b + 4, 5u + ne); /* version .. num_component_types, parent_index */
    off = ECS_RESOURCE_HEADER_SIZE + 4u * ne;
    for (t = 0; t < nt; ++t) {
        uint32_t id = ecs__res_rd32(b + off, swapped);
        uint32_t ni = ecs__res_rd32(b + off + 4, swapped);
        uint32_t sz = ecs__res_rd32(b + off + 8, swapped);
        unsigned char *data = b + off + ECS_RESOURCE_BLOCK_HEADER_SIZE + 4u * ni;
        ecs__res_swap_words(b + off, 3u + ni);
        if (id == ECS_RESOURCE_NAMES_ID) ecs__names_swap(data, ni, swapped);
        else if (swap_data) swap_data(user, id, ni, data, sz);
        off += ECS_RESOURCE_BLOCK_HEADER_SIZE + 4u * ni + ((sz + 3u) & ~3u);
    }
    return ECS_OK;
}

ECS_DEF void ecs_resource_swap_standard(void *user, uint32_t identifier, uint32_t num_instances, void *data,
                                        uint32_t size)
{
    unsigned char *p = (unsigned char *)data;
    (void)user;
    if (identifier == ECS_RESOURCE_TRANSFORM_ID || identifier == ECS_RESOURCE_ACTOR_ID) {
        uint32_t rec = identifier == ECS_RESOURCE_TRANSFORM_ID ? ECS_RESOURCE_TRANSFORM_SIZE : ECS_RESOURCE_ACTOR_SIZE;
        if ((uint64_t)num_instances * rec == size) ecs__res_swap_words(p, size / 4u);
    } else if (identifier == ECS_RESOURCE_MESH_ID) {
        uint32_t i;
        if ((uint64_t)num_instances * ECS_RESOURCE_MESH_SIZE != size) return;
        for (i = 0; i < num_instances; ++i, p += ECS_RESOURCE_MESH_SIZE) {
            uint64_t h;
            memcpy(&h, p, 8);
            h = ecs__res_bswap64(h);
            memcpy(p, &h, 8);
            ecs__res_swap_words(p + 8, 1);
        }
    }
}

/* ---- SPAWNER ------------------------------------------------------------- */

ECS_DEF void ecs_spawner_init(ecs_spawner *sp)
{
    memset(sp, 0, sizeof *sp);
}

ECS_DEF void ecs_spawner_free(ecs_spawner *sp)
{
    uint32_t i;
    if (!sp) return;
    for (i = 0; i < sp->num_entries; ++i) ECS__FREE(sp->entries[i].name);
    ECS__FREE(sp->entries);
    ECS__FREE(sp->steps);
    ECS__FREE(sp->entities);
    memset(sp, 0, sizeof *sp);
}

/* Index of the first entry with identifier >= id (entries sorted). */
static uint32_t ecs__spawner_lower(const ecs_spawner *sp, uint32_t id)
{
    return ecs__res_lower(sp->entries, sp->num_entries, sizeof *sp->entries, id);
}

ECS_DEF ecs_result ecs_spawner_register(ecs_spawner *sp, const char *name, ecs_spawn_fn spawn, ecs_unspawn_fn unspawn,
                                        uint32_t instance_size, void *user, ecs_error *err)
{
    uint32_t id, at;
    ecs_spawner__entry e;
    const char *taken;
    ecs_result r;
    void *np;
    if (!sp || !name || !name[0] || !spawn || !unspawn)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_spawner_register: needs a spawner, a non-empty name, a spawn and an unspawn function");
    id = ecs_resource_identifier(name);
    at = ecs__spawner_lower(sp, id);
    taken = at < sp->num_entries && sp->entries[at].identifier == id ? sp->entries[at].name : NULL;
    if ((r = ecs__res_check_new_name("spawner", name, id, taken, err)) != ECS_OK) return r;
    if (!ecs__res_grow(sp->entries, &sp->entries_capacity, (size_t)sp->num_entries + 1, sizeof *sp->entries, &np))
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "spawner: out of memory registering '%s'", name);
    sp->entries = (ecs_spawner__entry *)np;
    e.identifier = id;
    e.instance_size = instance_size;
    e.spawn = spawn;
    e.unspawn = unspawn;
    e.user = user;
    e.store = user;
    e.name = ecs__res_strdup(name, strlen(name));
    if (!e.name) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "spawner: out of memory registering '%s'", name);
    memmove(sp->entries + at + 1, sp->entries + at, (sp->num_entries - at) * sizeof *sp->entries);
    sp->entries[at] = e;
    ++sp->num_entries;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_spawner_set_store(ecs_spawner *sp, const char *name, const void *store, ecs_error *err)
{
    uint32_t at;
    if (!sp || !name) return ecs_error_set(err, ECS_ERROR_NOT_FOUND, "ecs_spawner_set_store: no spawner or name");
    at = ecs__spawner_lower(sp, ecs_resource_identifier(name));
    if (at >= sp->num_entries || strcmp(sp->entries[at].name, name) != 0)
        return ecs_error_set(err, ECS_ERROR_NOT_FOUND, "ecs_spawner_set_store: '%s' is not registered", name);
    sp->entries[at].store = store;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_spawner_unregister(ecs_spawner *sp, const char *name)
{
    uint32_t at;
    if (!sp || !name) return ECS_ERROR_NOT_FOUND;
    at = ecs__spawner_lower(sp, ecs_resource_identifier(name));
    if (at >= sp->num_entries || strcmp(sp->entries[at].name, name) != 0) return ECS_ERROR_NOT_FOUND;
    ECS__FREE(sp->entries[at].name);
    memmove(sp->entries + at, sp->entries + at + 1, (sp->num_entries - at - 1) * sizeof *sp->entries);
    --sp->num_entries;
    return ECS_OK;
}

static uint32_t ecs__spawner_find(const ecs_spawner *sp, uint32_t id)
{
    uint32_t at = ecs__spawner_lower(sp, id);
    return at < sp->num_entries && sp->entries[at].identifier == id ? at : ECS__RESOURCE_NOT_REGISTERED;
}

static void ecs__spawner_unspawn_step(const ecs_spawner *sp, const ecs_spawner__step *step, const void *blob,
                                 ecs_spawn_context *ctx, ecs_entity *entities, uint32_t copy)
{
    const ecs_spawner__entry *e = sp->entries + step->entry;
    ecs_resource_block blk = ecs_resource_block_at(blob, step->offset);
    ctx->entity = entities + (size_t)copy * ctx->num_entities;
    e->unspawn(e->user, ctx, blk.num_instances, blk.entity_index, blk.data, blk.size);
}

/* *n = ne * copies, the entities a spawn creates, when em has that many
   indices left; else fails before anything is allocated or written:
   ecs_entity_create_many would only find out after the entity table (4 bytes
   an entity) had been allocated and cleared. Its rule: the indices never
   handed out plus the queued ones. (n <= ECS_INDEX_MASK < 2^30 then, so the
   table's bytes fit a 32-bit size_t too.) copies > 0. */
static ecs_result ecs__spawner_check_room(const ecs_entity_manager *em, uint32_t ne, uint32_t copies, uint32_t *n,
                                          ecs_error *err)
{
    uint32_t left;
    if (ne > 0xFFFFFFFFu / copies)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "spawn: %u copies of %u entities exceed 2^32 entities",
                             (unsigned)copies, (unsigned)ne);
    *n = ne * copies;
    left = (ECS_INDEX_MASK - em->max_index) + em->num_free;
    if (*n > left)
        return ecs_error_set(err, ECS_ERROR_INDICES_EXHAUSTED,
                             "spawn: %u copies of %u entities need %u entities, the entity manager has %u indices "
                             "left (%u in all, ECS_INDEX_BITS = %d); nothing was created",
                             (unsigned)copies, (unsigned)ne, (unsigned)*n, (unsigned)left, (unsigned)ECS_INDEX_MASK,
                             ECS_INDEX_BITS);
    return ECS_OK;
}

/* Finds the spawner of each block with instances and checks the fixed size
   of every registered block, empty ones too (nothing is created yet):
   sp->steps[0 .. *nsteps), in blob order. */
static ecs_result ecs__spawner_match_blocks(ecs_spawner *sp, const void *blob, uint32_t *nsteps, ecs_error *err)
{
    uint32_t nt = ecs_resource_num_component_types(blob), t, off;
    void *np;
    *nsteps = 0;
    if (!ecs__res_grow(sp->steps, &sp->steps_capacity, nt ? nt : 1, sizeof *sp->steps, &np))
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "spawn: out of memory for %u blocks", (unsigned)nt);
    sp->steps = (ecs_spawner__step *)np;
    for (t = 0, off = ecs_resource_first_block(blob); t < nt; ++t) {
        ecs_resource_block blk = ecs_resource_block_at(blob, off);
        uint32_t entry = ecs__spawner_find(sp, blk.identifier);
        if (entry != ECS__RESOURCE_NOT_REGISTERED) {
            const ecs_spawner__entry *e = sp->entries + entry;
            if (e->instance_size != ECS_SPAWNER_VARIABLE_SIZE &&
                (uint64_t)blk.num_instances * e->instance_size != blk.size)
                return ecs_error_set(err, ECS_ERROR_SPAWN_FAILED,
                                     "offset %u (block %u size): component '%s' has %u bytes for %u instances of %u "
                                     "bytes",
                                     (unsigned)(off + 8), (unsigned)t, e->name, (unsigned)blk.size,
                                     (unsigned)blk.num_instances, (unsigned)e->instance_size);
            if (blk.num_instances) {
                sp->steps[*nsteps].offset = off;
                sp->steps[*nsteps].entry = entry;
                ++*nsteps;
            }
        }
        off = blk.next;
    }
    return ECS_OK;
}

/* All or nothing after spawn function `step` failed for copy `copy`: undoes
   the spawns before it, newest first, then destroys the entities and clears
   out (when given). */
static void ecs__spawner_roll_back(const ecs_spawner *sp, ecs_entity_manager *em, const void *blob,
                                   ecs_spawn_context *ctx, ecs_entity *ents, uint32_t step, uint32_t copy,
                                   uint32_t copies, ecs_entity *out)
{
    uint32_t n = ctx->num_entities * copies, i;
    for (;;) {
        if (copy == 0) {
            if (step == 0) break;
            --step;
            copy = copies;
        }
        --copy;
        ecs__spawner_unspawn_step(sp, sp->steps + step, blob, ctx, ents, copy);
    }
    if (n) ecs_entity_destroy_many(em, n, ents);
    if (out)
        for (i = 0; i < n; ++i) out[i].id = 0;
}

/* Runs step t's spawn function for every copy in order; returns the copy
   that failed (*r its result) or copies (*r = ECS_OK). */
static uint32_t ecs__spawner_step(const ecs_spawner *sp, const void *blob, ecs_spawn_context *ctx, ecs_entity *ents,
                                  uint32_t t, uint32_t copies, ecs_result *r)
{
    const ecs_spawner__entry *e = sp->entries + sp->steps[t].entry;
    ecs_resource_block blk = ecs_resource_block_at(blob, sp->steps[t].offset);
    uint32_t c;
    for (c = 0; c < copies; ++c) {
        ctx->entity = ents + (size_t)c * ctx->num_entities;
        ecs_error_clear(ctx->error);
        *r = e->spawn(e->user, ctx, blk.num_instances, blk.entity_index, blk.data, blk.size);
        if (*r != ECS_OK) return c;
    }
    *r = ECS_OK;
    return copies;
}

/* The error of step t's failure in copy c (ctx->error holds the spawn
   function's own message). */
static void ecs__spawner_fail(const ecs_spawner *sp, const void *blob, const ecs_spawn_context *ctx, uint32_t t,
                              uint32_t c, ecs_result r, ecs_error *err)
{
    const ecs_spawner__entry *e = sp->entries + sp->steps[t].entry;
    ecs_resource_block blk = ecs_resource_block_at(blob, sp->steps[t].offset);
    ecs_error_set(err, r, "offset %u (block '%s', copy %u): spawn failed: %s", (unsigned)blk.offset, e->name,
                  (unsigned)c, ctx->error->message[0] ? ctx->error->message : ecs_result_text(r));
}

/* ---- spawning across threads: one task per store ----------------------------- */

typedef struct ecs__spawner_task {
    ecs_spawn_context ctx;
    ecs_error error;
    uint32_t failed_step, failed_copy; /* failed_step == nsteps: all done */
    ecs_result result;
} ecs__spawner_task;

typedef struct ecs__spawner_job {
    const ecs_spawner *sp;
    const void *blob;
    ecs_entity *ents;
    uint32_t nsteps, copies, tasks;
    ecs__spawner_task task[ECS_SPAWNER_JOBS_TASKS];
} ecs__spawner_job;

/* Task k: the steps of the stores numbered k modulo the tasks, in blob
   order, up to the first failure. */
static void ecs__spawner_task_run(void *user, uint32_t k)
{
    ecs__spawner_job *j = (ecs__spawner_job *)user;
    ecs__spawner_task *tk = j->task + k;
    uint32_t t;
    tk->ctx.error = &tk->error;
    tk->failed_step = j->nsteps;
    for (t = 0; t < j->nsteps; ++t) {
        if (j->sp->steps[t].store % j->tasks != k) continue;
        tk->failed_copy = ecs__spawner_step(j->sp, j->blob, &tk->ctx, j->ents, t, j->copies, &tk->result);
        if (tk->result != ECS_OK) {
            tk->failed_step = t;
            return;
        }
    }
}

/* What a step's spawn may write: its store, or for a grouped ecs_manager
   every manager connected to it through groups (entering a group moves the
   other members' instances), named by ecs_group_top. A store is taken for
   an ecs_manager when any registration spawns it with ecs_manager_spawn, so
   that a function of your own over the same manager shares its task. */
static const void *ecs__spawner_step_key(const ecs_spawner *sp, uint32_t t)
{
    const void *store = sp->entries[sp->steps[t].entry].store;
    uint32_t k;
    for (k = 0; k < sp->num_entries; ++k) {
        const ecs_spawner__entry *e = sp->entries + k;
        if (e->spawn == ecs_manager_spawn && e->user == store) {
            const ecs_group *g = ecs_group_top((const ecs_manager *)e->user);
            return g ? (const void *)g : store;
        }
    }
    return store;
}

/* Numbers the stores (the distinct users, grouped managers counting as one)
   in order of their first step: steps[t].store. Returns how many. */
static uint32_t ecs__spawner_number_stores(ecs_spawner *sp, uint32_t nsteps)
{
    uint32_t t, u, stores = 0;
    for (t = 0; t < nsteps; ++t) { /* each step's key found once (a scan of the entries) */
        const void *key = sp->steps[t].key = ecs__spawner_step_key(sp, t);
        for (u = 0; u < t && sp->steps[u].key != key; ++u) {
        }
        sp->steps[t].store = u == t ? stores++ : sp->steps[u].store;
    }
    return stores;
}

static ecs_result ecs__spawner_steps_jobs(ecs_spawner *sp, ecs_entity_manager *em, const void *blob,
                                          ecs_spawn_context *ctx, ecs_entity *ents, uint32_t nsteps, uint32_t copies,
                                          ecs_entity *out, const ecs_jobs *jobs, ecs_error *err)
{
    ecs__spawner_job j;
    uint32_t k, t, c, first = 0, stores = ecs__spawner_number_stores(sp, nsteps);
    j.sp = sp, j.blob = blob, j.ents = ents, j.nsteps = nsteps, j.copies = copies;
    j.tasks = stores < ECS_SPAWNER_JOBS_TASKS ? stores : ECS_SPAWNER_JOBS_TASKS;
    for (k = 0; k < j.tasks; ++k) j.task[k].ctx = *ctx;
    ecs_jobs_run(jobs, j.tasks, ecs__spawner_task_run, &j, NULL);
    for (k = 0; k < j.tasks; ++k)
        if (j.task[k].failed_step < j.task[first].failed_step) first = k;
    if (j.task[first].failed_step == nsteps) return ECS_OK;
    ecs__spawner_fail(sp, blob, &j.task[first].ctx, j.task[first].failed_step, j.task[first].failed_copy,
                      j.task[first].result, err);
    for (t = nsteps; t-- > 0;) { /* undo what each store took, newest first */
        const ecs__spawner_task *tk = j.task + sp->steps[t].store % j.tasks;
        c = t < tk->failed_step ? copies : t == tk->failed_step ? tk->failed_copy : 0;
        while (c-- > 0) ecs__spawner_unspawn_step(sp, sp->steps + t, blob, ctx, ents, c);
    }
    ecs__spawner_roll_back(sp, em, blob, ctx, ents, 0, 0, copies, out); /* the entities */
    return j.task[first].result;
}

static ecs_result ecs__spawner_spawn(ecs_spawner *sp, ecs_entity_manager *em, const void *blob, uint32_t copies,
                                     ecs_entity *out, const ecs_jobs *jobs, ecs_error *err)
{
    uint32_t ne = ecs_resource_num_entities(blob), n = 0, nsteps = 0, t, c;
    ecs_entity *ents = out;
    ecs_spawn_context ctx;
    ecs_error inner;
    ecs_result r;
    void *np;
    if (!sp || !em) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "spawn: NULL spawner or entity manager");
    if (copies == 0) return ECS_OK;
    if ((r = ecs__spawner_check_room(em, ne, copies, &n, err)) != ECS_OK) return r;
    if ((r = ecs__spawner_match_blocks(sp, blob, &nsteps, err)) != ECS_OK) return r;
    if (!ents) {
        if (!ecs__res_grow(sp->entities, &sp->entities_capacity, n ? n : 1, sizeof *sp->entities, &np))
            return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "spawn: out of memory for %u entities", (unsigned)n);
        sp->entities = (ecs_entity *)np;
        ents = sp->entities;
    }
    if (n && (r = ecs_entity_create_many(em, n, ents)) != ECS_OK) {
        char why[sizeof em->error.message]; /* err may be &em->error */
        memcpy(why, em->error.message, sizeof why);
        return ecs_error_set(err, r, "spawn: could not create %u entities: %s", (unsigned)n, why);
    }
    ctx.entities = em;
    ctx.parent_index = ecs_resource_parent_index(blob);
    ctx.num_entities = ne;
    ctx.error = &inner;
    if (jobs && jobs->parallel_for && jobs->num_workers > 1u && nsteps > 1u)
        return ecs__spawner_steps_jobs(sp, em, blob, &ctx, ents, nsteps, copies, out, jobs, err);
    for (t = 0; t < nsteps; ++t) {
        c = ecs__spawner_step(sp, blob, &ctx, ents, t, copies, &r);
        if (r == ECS_OK) continue;
        ecs__spawner_fail(sp, blob, &ctx, t, c, r, err);
        ecs__spawner_roll_back(sp, em, blob, &ctx, ents, t, c, copies, out);
        return r;
    }
    return ECS_OK;
}

ECS_DEF ecs_result ecs_spawner_spawn_verified(ecs_spawner *sp, ecs_entity_manager *em, const void *blob,
                                              uint32_t copies, ecs_entity *out, ecs_error *err)
{
    return ecs__spawner_spawn(sp, em, blob, copies, out, NULL, err);
}

ECS_DEF ecs_result ecs_spawner_spawn_copies(ecs_spawner *sp, ecs_entity_manager *em, const void *blob, size_t size,
                                            uint32_t copies, ecs_entity *out, ecs_error *err)
{
    ecs_result r = ecs_resource_verify(blob, size, err);
    if (r != ECS_OK) return r;
    return ecs_spawner_spawn_verified(sp, em, blob, copies, out, err);
}

ECS_DEF ecs_result ecs_spawner_spawn(ecs_spawner *sp, ecs_entity_manager *em, const void *blob, size_t size,
                                     ecs_entity *out, ecs_error *err)
{
    return ecs_spawner_spawn_copies(sp, em, blob, size, 1, out, err);
}

ECS_DEF ecs_result ecs_spawner_spawn_jobs(ecs_spawner *sp, ecs_entity_manager *em, const void *blob, size_t size,
                                          uint32_t copies, ecs_entity *out, const ecs_jobs *jobs, ecs_error *err)
{
    ecs_result r = ecs_resource_verify(blob, size, err);
    if (r != ECS_OK) return r;
    return ecs__spawner_spawn(sp, em, blob, copies, out, jobs, err);
}

ECS_DEF uint32_t ecs_spawner_unspawn(ecs_spawner *sp, ecs_entity_manager *em, const void *blob, uint32_t copies,
                                     const ecs_entity *entities)
{
    uint32_t ne = ecs_resource_num_entities(blob), nt = ecs_resource_num_component_types(blob), t, c, off;
    ecs_spawn_context ctx;
    ecs_error inner;
    if (!sp || !em || !entities || copies == 0) return 0;
    /* no spawn made that many entities (it would have failed) */
    if ((uint64_t)ne * copies > ECS_INDEX_MASK) return 0;
    ctx.entities = em;
    ctx.parent_index = ecs_resource_parent_index(blob);
    ctx.num_entities = ne;
    ctx.error = &inner;
    for (t = 0, off = ecs_resource_first_block(blob); t < nt; ++t) {
        ecs_resource_block blk = ecs_resource_block_at(blob, off);
        uint32_t entry = ecs__spawner_find(sp, blk.identifier);
        if (entry != ECS__RESOURCE_NOT_REGISTERED) {
            const ecs_spawner__entry *e = sp->entries + entry;
            for (c = 0; c < copies; ++c) {
                ctx.entity = entities + (size_t)c * ne;
                e->unspawn(e->user, &ctx, blk.num_instances, blk.entity_index, blk.data, blk.size);
            }
        }
        off = blk.next;
    }
    return ecs_entity_destroy_many(em, ne * copies, entities);
}

/* ---- PATHS --------------------------------------------------------------- */

ECS_DEF uint64_t ecs_path_hash(const char *path)
{
    return path ? ecs__fnv1a64(path, strlen(path)) : ecs__fnv1a64("", 0);
}

static int ecs__path_char_ok(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

static int ecs__path_is_canonical(const char *s, size_t n)
{
    size_t i, seg = 0; /* start of the current segment */
    if (n == 0) return 0;
    for (i = 0; i <= n; ++i) {
        if (i == n || s[i] == '/') {
            size_t len = i - seg;
            if (len == 0) return 0; /* empty: leading, trailing or doubled '/' */
            if (s[seg] == '.' && (len == 1 || (len == 2 && s[seg + 1] == '.'))) return 0;
            seg = i + 1;
        } else if (!ecs__path_char_ok((unsigned char)s[i])) {
            return 0;
        }
    }
    return 1;
}

ECS_DEF int ecs_path_is_canonical(const char *path)
{
    return path ? ecs__path_is_canonical(path, strlen(path)) : 0;
}

/* Canonical spelling of s[0..n) into out (room for n + 1 bytes; out may be s).
   Returns the length, or -1 with why/where set when there is none. */
static long ecs__path_canonicalize(const char *s, size_t n, char *out, const char **why, size_t *where)
{
    size_t i = 0, o = 0;
    while (i < n) {
        size_t seg_start = i, seg_out = o, len;
        if (o > 0) out[o++] = '/';
        seg_out = o;
        while (i < n && s[i] != '/' && s[i] != '\\') {
            unsigned char c = (unsigned char)s[i];
            if (c >= 'A' && c <= 'Z') c = (unsigned char)(c - 'A' + 'a');
            if (!ecs__path_char_ok(c)) {
                *why = c == 0 ? "a NUL byte is not allowed" : "this character is not allowed (a-z 0-9 _ - . only)";
                *where = i;
                return -1;
            }
            out[o++] = (char)c;
            ++i;
        }
        len = o - seg_out;
        if (len == 0 || (len == 1 && out[seg_out] == '.')) {
            o = seg_out > 0 ? seg_out - 1 : 0; /* drop the segment and its '/' */
        } else if (len == 2 && out[seg_out] == '.' && out[seg_out + 1] == '.') {
            if (seg_out == 0) {
                *why = "'..' climbs above the project root";
                *where = seg_start;
                return -1;
            }
            o = seg_out - 1; /* drop "/.." */
            while (o > 0 && out[o - 1] != '/') --o;
            o = o > 0 ? o - 1 : 0; /* and the segment before it with its '/' */
        }
        if (i < n) ++i; /* the separator */
    }
    if (o == 0) {
        *why = "it names no resource";
        *where = 0;
        return -1;
    }
    out[o] = 0;
    return (long)o;
}

ECS_DEF ecs_result ecs_path_canonicalize(const char *path, char *out, size_t out_size, ecs_error *err)
{
    const char *why = "";
    size_t where = 0, n;
    if (!path || !out) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_path_canonicalize: NULL argument");
    n = strlen(path);
    if (out_size < n + 1) {
        if (out_size) out[0] = 0;
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_path_canonicalize: out has %lu bytes, needs strlen(path) + 1 = %lu",
                             (unsigned long)out_size, (unsigned long)(n + 1));
    }
    if (ecs__path_canonicalize(path, n, out, &why, &where) < 0) {
        out[0] = 0;
        return ecs_error_set(err, ECS_ERROR_NON_CANONICAL_PATH, "path has no canonical spelling: %s (byte %lu)", why,
                             (unsigned long)where);
    }
    return ECS_OK;
}

/* Byte order of two paths (shorter first on a tie): the order of the dependency
   list and of the names block's paths. */
static int ecs__path_order(const char *a, uint32_t an, const char *b, uint32_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c ? c : (an > bn) - (an < bn);
}

/* ---- JSON READER --------------------------------------------------------- */

typedef struct ecs__json_parser {
    ecs_json_doc *doc;
    const unsigned char *text, *end;
    uint32_t key, key_length; /* pending member name for the next value */
    uint32_t depth;
    ecs_error *err;
} ecs__json_parser;

/* 1 for bytes a string copies as they are: 0x20..0x7F except '"' and '\'. */
static const unsigned char ecs__json_plain[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

static const double ecs__json_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                           1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                           1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static ecs_result ecs__json_fail(const ecs__json_parser *ps, const unsigned char *at, const char *format, ...)
    ECS__RES_PRINTF(3, 4);

static ecs_result ecs__json_fail(const ecs__json_parser *ps, const unsigned char *at, const char *format, ...)
{
    char what[160], found[24];
    uint32_t line, column;
    va_list ap;
    va_start(ap, format);
    vsnprintf(what, sizeof what, format, ap);
    va_end(ap);
    if (at >= ps->end)
        snprintf(found, sizeof found, "end of input");
    else if (*at >= 0x20 && *at < 0x7F)
        snprintf(found, sizeof found, "'%c'", *at);
    else
        snprintf(found, sizeof found, "byte 0x%02X", (unsigned)*at);
    ecs__res_text_position((const char *)ps->text, (size_t)(ps->end - ps->text), (size_t)(at - ps->text), &line,
                           &column);
    return ecs_error_set(ps->err, ECS_ERROR_JSON, "line %u, column %u: %s, found %s", (unsigned)line,
                         (unsigned)column, what, found);
}

static const unsigned char *ecs__json_ws(const unsigned char *p, const unsigned char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
    return p;
}

static int ecs__json_hex4(const unsigned char *s, const unsigned char *end, uint32_t *out)
{
    uint32_t v = 0;
    int i;
    if (end - s < 4) return 0;
    for (i = 0; i < 4; ++i) {
        unsigned c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= c - '0';
        else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
        else return 0;
    }
    *out = v;
    return 1;
}

/* Parses the string at *pp (its opening quote) into the pool. The pool has
   room: decoded bytes plus NUL never exceed the source bytes. */
static ecs_result ecs__json_string(ecs__json_parser *ps, const unsigned char **pp, uint32_t *out_offset,
                                   uint32_t *out_length)
{
    const unsigned char *s = *pp + 1, *end = ps->end;
    uint32_t start = ps->doc->pool_size;
    unsigned char *base = (unsigned char *)ps->doc->pool + start, *o = base;
    for (;;) {
        unsigned c;
        while (s < end && ecs__json_plain[*s]) *o++ = *s++;
        if (s >= end) return ecs__json_fail(ps, s, "unterminated string");
        c = *s;
        if (c == '"') break;
        if (c == '\\') {
            if (s + 1 >= end) return ecs__json_fail(ps, s + 1, "incomplete escape sequence");
            switch (s[1]) {
            case '"': *o++ = '"'; break;
            case '\\': *o++ = '\\'; break;
            case '/': *o++ = '/'; break;
            case 'b': *o++ = '\b'; break;
            case 'f': *o++ = '\f'; break;
            case 'n': *o++ = '\n'; break;
            case 'r': *o++ = '\r'; break;
            case 't': *o++ = '\t'; break;
            case 'u': {
                uint32_t cp, lo;
                if (!ecs__json_hex4(s + 2, end, &cp))
                    return ecs__json_fail(ps, s, "\\u must be followed by 4 hexadecimal digits");
                s += 6;
                if (cp >= 0xDC00 && cp <= 0xDFFF)
                    return ecs__json_fail(ps, s - 6, "unpaired low surrogate \\u%04X", (unsigned)cp);
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (end - s < 2 || s[0] != '\\' || s[1] != 'u' || !ecs__json_hex4(s + 2, end, &lo) ||
                        lo < 0xDC00 || lo > 0xDFFF)
                        return ecs__json_fail(ps, s - 6, "high surrogate \\u%04X is not followed by a low surrogate",
                                              (unsigned)cp);
                    cp = 0x10000u + ((cp - 0xD800u) << 10) + (lo - 0xDC00u);
                    s += 6;
                }
                if (cp < 0x80) {
                    *o++ = (unsigned char)cp;
                } else if (cp < 0x800) {
                    *o++ = (unsigned char)(0xC0u | (cp >> 6));
                    *o++ = (unsigned char)(0x80u | (cp & 0x3Fu));
                } else if (cp < 0x10000) {
                    *o++ = (unsigned char)(0xE0u | (cp >> 12));
                    *o++ = (unsigned char)(0x80u | ((cp >> 6) & 0x3Fu));
                    *o++ = (unsigned char)(0x80u | (cp & 0x3Fu));
                } else {
                    *o++ = (unsigned char)(0xF0u | (cp >> 18));
                    *o++ = (unsigned char)(0x80u | ((cp >> 12) & 0x3Fu));
                    *o++ = (unsigned char)(0x80u | ((cp >> 6) & 0x3Fu));
                    *o++ = (unsigned char)(0x80u | (cp & 0x3Fu));
                }
                continue;
            }
            default:
                return ecs__json_fail(ps, s + 1, "invalid escape sequence (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
            }
            s += 2;
        } else if (c < 0x20) {
            return ecs__json_fail(ps, s, "control character in a string (write it as an escape)");
        } else {
            uint32_t n = ecs__utf8_sequence(s, end);
            if (!n) return ecs__json_fail(ps, s, "invalid UTF-8 in a string");
            memcpy(o, s, n);
            o += n;
            s += n;
        }
    }
    *o = 0;
    *out_offset = start;
    *out_length = (uint32_t)(o - base);
    ps->doc->pool_size = start + *out_length + 1;
    *pp = s + 1;
    return ECS_OK;
}

/* The locale's decimal point, a string: more than one byte in some
   locales (glibc's ps_AF: U+066B, bytes D9 AB). */
static const char *ecs__decimal_point(void)
{
    const struct lconv *lc = localeconv();
    return lc && lc->decimal_point && lc->decimal_point[0] ? lc->decimal_point : ".";
}

/* The number text buf as printf wrote it (the locale's decimal point) with
   '.' in place of that point, the rest moved up. */
static void ecs__number_dot(char *buf)
{
    const char *point = ecs__decimal_point();
    size_t n = strlen(point);
    char *at = point[0] == '.' && n == 1 ? NULL : strstr(buf, point);
    if (!at) return;
    *at = '.';
    memmove(at + 1, at + n, strlen(at + n) + 1u);
}

/* Slow path for numbers the fast path cannot convert exactly: strtod on a
   copy with the locale's decimal point, the whole string in place of '.'
   (strtod honours LC_NUMERIC); strtof to *fout instead when fout is given. */
static int ecs__json_strtod(const unsigned char *s, const unsigned char *e, double *out, float *fout)
{
    char small[96], *buf = small, *o;
    const char *point = ecs__decimal_point();
    size_t n = (size_t)(e - s), pn = strlen(point), i;
    if (n + pn > sizeof small) { /* one '.' at most: n - 1 + pn bytes and the NUL */
        buf = (char *)ECS__REALLOC(NULL, n + pn);
        if (!buf) return 0;
    }
    for (o = buf, i = 0; i < n; ++i) {
        if (s[i] != '.') *o++ = (char)s[i];
        else o = (char *)memcpy(o, point, pn) + pn;
    }
    *o = 0;
    if (fout) *fout = strtof(buf, NULL);
    else *out = strtod(buf, NULL);
    if (buf != small) ECS__FREE(buf);
    return 1;
}

#define ECS__JSON_DIGIT(c) ((unsigned)((c) - '0') < 10u)

/* 2^128 - 2^103, halfway between FLT_MAX and 2^128: every double strictly
   inside +-this rounds to a finite float; this one, to even, to infinity
   (though a text just below it reads as this double and its nearest float
   is FLT_MAX: ecs__json_f32_tie). */
#define ECS__FLOAT_LIMIT 340282356779733661637539395458142568448.0
/* ecs_json_value.reserved_: the number's nearest float is not (float)number
   but that float's neighbour on the other side of number (ecs_json_f32);
   for +-ECS__FLOAT_LIMIT, whose (float)number is taken as +-infinity: the
   nearest float is +-FLT_MAX. */
#define ECS__JSON_F32_OTHER 1u

/* Text -> double -> float rounds twice: a double d exactly halfway between
   two floats goes to the even one, though the text may lie above or below
   d ("1.00000005960464477539062500001" reads as 1 + 2^-24, halfway, and its
   nearest float is 1 + 2^-23, not 1). For such a d (magnitude, of the text
   s[0..e) without its sign) strtof reads the text again; when it disagrees,
   *mark gets ECS__JSON_F32_OTHER. d == ECS__FLOAT_LIMIT is halfway between
   FLT_MAX and 2^128 (even, so infinity: not converted, it is no float).
   0 when out of memory. */
static int ecs__json_f32_tie(const unsigned char *s, const unsigned char *e, double d, uint16_t *mark)
{
    float f = HUGE_VALF, g, t = 0.0f;
    uint64_t bits;
    memcpy(&bits, &d, 8);
    if ((bits & 0x0FFFFFFFu) || !(d > 0.0 && d <= ECS__FLOAT_LIMIT)) return 1; /* a midpoint has 25 bits at most */
    if (d < ECS__FLOAT_LIMIT) {
        f = (float)d;
        if ((double)f == d) return 1;
        g = nextafterf(f, (double)f < d ? HUGE_VALF : 0.0f);
        if (((double)f + (double)g) * 0.5 != d) return 1; /* exact: f and g are neighbours */
    }
    if (!ecs__json_strtod(s, e, NULL, &t)) return 0;
    if (t != f) *mark = (uint16_t)(*mark | ECS__JSON_F32_OTHER);
    return 1;
}

/* The fast path (m * 10^e or m / 10^e, both exact doubles) is correctly
   rounded only where a double operation rounds once. x87 code
   (FLT_EVAL_METHOD 2, gcc -m32) rounds to 64 bits and again to 53 when
   storing: "0.0583072" came out one bit off, about 1 short number in 7,000.
   There only whole numbers (exact, e = 0) take it; the rest go to strtod. */
#if defined(FLT_EVAL_METHOD) && (FLT_EVAL_METHOD == 0 || FLT_EVAL_METHOD == 1)
#define ECS__JSON_FAST_PATH 1
#else
#define ECS__JSON_FAST_PATH 0
#endif

/* 1 when the JSON number s[0..e) (checked already; a fraction or an
   exponent) is a whole number whose magnitude fits uint64_t: *mag. Exact,
   from the digits: D * 10^(exponent - fraction digits), D without its
   trailing zeros. */
static int ecs__json_whole(const unsigned char *s, const unsigned char *e, uint64_t *mag)
{
    uint64_t d = 0;
    int64_t scale = 0, exp = 0, zeros = 0; /* zeros: digits since the last nonzero one */
    int fraction = 0, eneg = 0, big = 0;
    unsigned digit;
    if (*s == '-') ++s;
    for (; s < e && (ECS__JSON_DIGIT(*s) || *s == '.'); ++s) {
        if (*s == '.') {
            fraction = 1;
            continue;
        }
        scale -= fraction;
        if (*s == '0') {
            ++zeros;
            continue;
        }
        for (; zeros > 0 && !big; --zeros) { /* the zeros before this digit */
            big = d > UINT64_MAX / 10u;
            d *= 10u;
        }
        digit = (unsigned)(*s - '0');
        big = big || d > (UINT64_MAX - digit) / 10u;
        d = d * 10u + digit;
        zeros = 0;
    }
    if (s < e) { /* the exponent */
        ++s;
        if (*s == '+' || *s == '-') eneg = *s++ == '-';
        for (; s < e; ++s)
            if (exp < 100000000) exp = exp * 10 + (*s - '0');
    }
    scale += zeros + (eneg ? -exp : exp);
    if (big) return 0; /* at least 2^64 (or, with a negative scale, not whole) */
    if (d == 0) {
        *mag = 0;
        return 1;
    }
    if (scale < 0 || big || scale > 19) return 0;
    for (; scale > 0; --scale) {
        if (d > UINT64_MAX / 10u) return 0;
        d *= 10u;
    }
    *mag = d;
    return 1;
}

/* Reads an exponent's sign and digits at *pp (just past the 'e'), adding
   its value (magnitude capped at 10^8) to *exp10. 0, with *pp where a digit
   was expected, when there is none. */
static int ecs__json_exponent(const unsigned char **pp, const unsigned char *end, int64_t *exp10)
{
    const unsigned char *s = *pp;
    int eneg = 0;
    int64_t e = 0;
    if (s < end && (*s == '+' || *s == '-')) eneg = *s++ == '-';
    *pp = s;
    if (s == end || !ECS__JSON_DIGIT(*s)) return 0;
    for (; s < end && ECS__JSON_DIGIT(*s); ++s)
        if (e < 100000000) e = e * 10 + (*s - '0');
    *exp10 += eneg ? -e : e;
    *pp = s;
    return 1;
}

static ecs_result ecs__json_number(ecs__json_parser *ps, const unsigned char **pp, ecs_json_value *v)
{
    const unsigned char *s = *pp, *start = s, *end = ps->end;
    int neg = 0, is_int = 1, int_overflow = 0, truncated = 0;
    uint64_t m = 0, iv = 0;
    uint32_t ndig = 0;
    int64_t exp10 = 0;
    double val;
    if (*s == '-') {
        neg = 1;
        ++s;
    }
    if (s == end || !ECS__JSON_DIGIT(*s)) return ecs__json_fail(ps, s, "expected a digit");
    if (*s == '0') {
        ++s;
        if (s < end && ECS__JSON_DIGIT(*s)) return ecs__json_fail(ps, s, "a number may not have leading zeros");
    } else {
        while (s < end && ECS__JSON_DIGIT(*s)) {
            unsigned d = (unsigned)(*s - '0');
            if (iv > (UINT64_MAX - d) / 10u) int_overflow = 1;
            else iv = iv * 10u + d;
            if (ndig < 19) {
                m = m * 10u + d;
                ++ndig;
            } else {
                ++exp10;
                if (d) truncated = 1;
            }
            ++s;
        }
    }
    if (s < end && *s == '.') {
        is_int = 0;
        ++s;
        if (s == end || !ECS__JSON_DIGIT(*s)) return ecs__json_fail(ps, s, "expected a digit after the decimal point");
        while (s < end && ECS__JSON_DIGIT(*s)) {
            unsigned d = (unsigned)(*s - '0');
            if (ndig < 19) {
                if (m || d) {
                    m = m * 10u + d;
                    ++ndig;
                }
                --exp10;
            } else if (d) {
                truncated = 1;
            }
            ++s;
        }
    }
    if (s < end && (*s == 'e' || *s == 'E')) {
        is_int = 0;
        ++s;
        if (!ecs__json_exponent(&s, end, &exp10)) return ecs__json_fail(ps, s, "expected a digit in the exponent");
    }
    if (m == 0) {
        val = 0.0;
    } else if (!truncated && m <= (1ull << 53) && (exp10 == 0 || (ECS__JSON_FAST_PATH && exp10 >= -22 && exp10 <= 22))) {
        val = exp10 < 0 ? (double)m / ecs__json_pow10[-exp10] : (double)m * ecs__json_pow10[exp10];
    } else {
        if (!ecs__json_strtod(neg ? start + 1 : start, s, &val, NULL))
            return ecs_error_set(ps->err, ECS_ERROR_OUT_OF_MEMORY, "out of memory reading a number");
    }
    v->number = neg ? -val : val;
    v->flags = (uint8_t)((is_int && !int_overflow ? ECS_JSON_INTEGER | ECS_JSON_WHOLE : 0u) |
                         (neg ? ECS_JSON_NEGATIVE : 0u));
    v->integer = is_int && !int_overflow ? iv : 0;
    if (!ecs__json_f32_tie(neg ? start + 1 : start, s, val, &v->reserved_))
        return ecs_error_set(ps->err, ECS_ERROR_OUT_OF_MEMORY, "out of memory reading a number");
    /* 1.5 reads as a double that is not whole; 1e19, 2.0 and 1.0000000000000000001 as ones that are */
    if (!is_int && val == floor(val) && ecs__json_whole(start, s, &v->integer)) v->flags |= ECS_JSON_WHOLE;
    *pp = s;
    return ECS_OK;
}

/* Appends a value of `type` at source position at; returns its index. */
static ecs_result ecs__json_push(ecs__json_parser *ps, ecs_json_type type, const unsigned char *at, uint32_t *index)
{
    ecs_json_doc *doc = ps->doc;
    ecs_json_value *v;
    uint32_t parent = ps->depth ? doc->stack[ps->depth - 1] : ECS_JSON_NONE;
    if (doc->num_values == doc->values_capacity) {
        void *np;
        if (doc->num_values == ECS_JSON_NONE - 1u ||
            !ecs__res_grow(doc->values, &doc->values_capacity, (size_t)doc->num_values + 1, sizeof(ecs_json_value), &np))
            return ecs_error_set(ps->err, ECS_ERROR_OUT_OF_MEMORY, "out of memory after %u JSON values",
                                 (unsigned)doc->num_values);
        doc->values = (ecs_json_value *)np;
    }
    *index = doc->num_values;
    v = doc->values + doc->num_values++;
    v->type = (uint8_t)type;
    v->flags = 0;
    v->reserved_ = 0;
    v->count = 0;
    v->next = *index + 1;
    v->parent = parent;
    v->key = ps->key;
    v->key_length = ps->key_length;
    v->str = 0;
    v->offset = (uint32_t)(at - ps->text);
    v->number = 0.0;
    v->integer = 0;
    if (parent != ECS_JSON_NONE) ++doc->values[parent].count;
    ps->key = ECS_JSON_NONE;
    ps->key_length = 0;
    return ECS_OK;
}

/* At *pp: optional whitespace, a member name, whitespace, ':' and whitespace. */
static ecs_result ecs__json_member_name(ecs__json_parser *ps, const unsigned char **pp)
{
    const unsigned char *p = *pp;
    ecs_result r;
    if (p >= ps->end || *p != '"') return ecs__json_fail(ps, p, "expected a member name (a string)");
    r = ecs__json_string(ps, &p, &ps->key, &ps->key_length);
    if (r) return r;
    p = ecs__json_ws(p, ps->end);
    if (p >= ps->end || *p != ':') return ecs__json_fail(ps, p, "expected ':' after the member name");
    *pp = ecs__json_ws(p + 1, ps->end);
    return ECS_OK;
}

/* What the parser expects next at p. */
typedef enum ecs__json_state {
    ECS__JSON_VALUE,       /* a value (a member's value once its name is read) */
    ECS__JSON_AFTER_VALUE, /* ',', the closing bracket of the open container, or the end */
    ECS__JSON_DONE         /* the root value is complete and nothing follows it */
} ecs__json_state;

/* Opens the array or object at *pp: then the first element or member value
   (its name read), or, when it closes at once, what follows a value. */
static ecs_result ecs__json_open(ecs__json_parser *ps, const unsigned char **pp, ecs__json_state *next)
{
    ecs_json_doc *doc = ps->doc;
    const unsigned char *p = *pp;
    int is_object = *p == '{';
    uint32_t idx;
    ecs_result r;
    void *np;
    if (ps->depth >= ECS_JSON_MAX_DEPTH)
        return ecs__json_fail(ps, p, "arrays and objects nest deeper than %d", ECS_JSON_MAX_DEPTH);
    if ((r = ecs__json_push(ps, is_object ? ECS_JSON_OBJECT : ECS_JSON_ARRAY, p, &idx)) != ECS_OK) return r;
    if (ps->depth == doc->stack_capacity) {
        if (!ecs__res_grow(doc->stack, &doc->stack_capacity, (size_t)ps->depth + 1, sizeof(uint32_t), &np))
            return ecs_error_set(ps->err, ECS_ERROR_OUT_OF_MEMORY, "out of memory for JSON nesting");
        doc->stack = (uint32_t *)np;
    }
    doc->stack[ps->depth++] = idx;
    p = ecs__json_ws(p + 1, ps->end);
    if (p < ps->end && *p == (is_object ? '}' : ']')) {
        --ps->depth;
        doc->values[idx].next = doc->num_values;
        *pp = p + 1;
        *next = ECS__JSON_AFTER_VALUE;
        return ECS_OK;
    }
    *next = ECS__JSON_VALUE;
    *pp = p;
    return is_object ? ecs__json_member_name(ps, pp) : ECS_OK;
}

/* Reads the string, literal or number at *pp. */
static ecs_result ecs__json_scalar(ecs__json_parser *ps, const unsigned char **pp)
{
    ecs_json_doc *doc = ps->doc;
    const unsigned char *p = *pp;
    uint32_t idx, off, n;
    ecs_result r;
    if (*p == '"') {
        if ((r = ecs__json_push(ps, ECS_JSON_STRING, p, &idx)) != ECS_OK) return r;
        if ((r = ecs__json_string(ps, pp, &off, &n)) != ECS_OK) return r;
        doc->values[idx].str = off;
        doc->values[idx].count = n;
        return ECS_OK;
    }
    if (*p == 't' || *p == 'f' || *p == 'n') {
        const char *word = *p == 't' ? "true" : *p == 'f' ? "false" : "null";
        size_t wl = strlen(word);
        if ((size_t)(ps->end - p) < wl || memcmp(p, word, wl) != 0)
            return ecs__json_fail(ps, p, "invalid literal (expected %s)", word);
        r = ecs__json_push(ps, *p == 't' ? ECS_JSON_TRUE : *p == 'f' ? ECS_JSON_FALSE : ECS_JSON_NULL, p, &idx);
        if (r == ECS_OK) *pp = p + wl;
        return r;
    }
    if (*p == '-' || ECS__JSON_DIGIT(*p)) {
        if ((r = ecs__json_push(ps, ECS_JSON_NUMBER, p, &idx)) != ECS_OK) return r;
        return ecs__json_number(ps, pp, doc->values + idx);
    }
    return ecs__json_fail(ps, p, "expected a value (object, array, string, number, true, false or null)");
}

/* A value starts at *pp. */
static ecs_result ecs__json_value(ecs__json_parser *ps, const unsigned char **pp, ecs__json_state *next)
{
    if (*pp >= ps->end) return ecs__json_fail(ps, *pp, "expected a value");
    if (**pp == '{' || **pp == '[') return ecs__json_open(ps, pp, next);
    *next = ECS__JSON_AFTER_VALUE;
    return ecs__json_scalar(ps, pp);
}

/* After a value: the end of the text (when no container is open), a ','
   (then the next element, or the next member's name and its value) or the
   bracket that closes the innermost container. */
static ecs_result ecs__json_after_value(ecs__json_parser *ps, const unsigned char **pp, ecs__json_state *next)
{
    ecs_json_doc *doc = ps->doc;
    const unsigned char *p = ecs__json_ws(*pp, ps->end);
    uint32_t top;
    int is_object;
    *pp = p;
    if (ps->depth == 0) {
        if (p < ps->end) return ecs__json_fail(ps, p, "unexpected text after the JSON value");
        *next = ECS__JSON_DONE;
        return ECS_OK;
    }
    top = doc->stack[ps->depth - 1];
    is_object = doc->values[top].type == ECS_JSON_OBJECT;
    if (p < ps->end && *p == ',') {
        *pp = ecs__json_ws(p + 1, ps->end);
        *next = ECS__JSON_VALUE;
        return is_object ? ecs__json_member_name(ps, pp) : ECS_OK;
    }
    if (p < ps->end && *p == (is_object ? '}' : ']')) {
        --ps->depth;
        doc->values[top].next = doc->num_values;
        *pp = p + 1;
        *next = ECS__JSON_AFTER_VALUE;
        return ECS_OK;
    }
    return ecs__json_fail(ps, p, is_object ? "expected ',' or '}' after an object member"
                                           : "expected ',' or ']' after an array element");
}

/* Empties doc and makes room for len bytes of text: its strings in the pool
   and a first guess of its values. */
static ecs_result ecs__json_reset(ecs_json_doc *doc, size_t len, ecs_error *err)
{
    void *np;
    doc->num_values = 0;
    doc->pool_size = 0;
    if (len >= 0xFFFFFFF0u)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "JSON text of %lu bytes: 4 GiB or more is not supported",
                             (unsigned long)len);
    if (!ecs__res_grow(doc->pool, &doc->pool_capacity, len + 1, 1, &np))
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "out of memory for %lu bytes of JSON strings",
                             (unsigned long)len);
    doc->pool = (char *)np;
    if (!ecs__res_grow(doc->values, &doc->values_capacity, len / 16 + 16, sizeof(ecs_json_value), &np))
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "out of memory for JSON values");
    doc->values = (ecs_json_value *)np;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_json_parse(ecs_json_doc *doc, const char *text, size_t len, ecs_error *err)
{
    ecs__json_parser ps;
    ecs__json_state state = ECS__JSON_VALUE;
    const unsigned char *p;
    ecs_result r;
    if (!doc || (!text && len))
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_json_parse: NULL argument");
    if ((r = ecs__json_reset(doc, len, err)) != ECS_OK) return r;
    ps.doc = doc;
    ps.text = (const unsigned char *)(text ? text : "");
    ps.end = ps.text + len;
    ps.key = ECS_JSON_NONE;
    ps.key_length = 0;
    ps.depth = 0;
    ps.err = err;
    p = ecs__json_ws(ps.text, ps.end);
    while (r == ECS_OK && state != ECS__JSON_DONE)
        r = state == ECS__JSON_VALUE ? ecs__json_value(&ps, &p, &state) : ecs__json_after_value(&ps, &p, &state);
    if (r != ECS_OK) {
        doc->num_values = 0;
        doc->pool_size = 0;
    }
    return r;
}

ECS_DEF void ecs_json_doc_free(ecs_json_doc *doc)
{
    if (!doc) return;
    ECS__FREE(doc->values);
    ECS__FREE(doc->pool);
    ECS__FREE(doc->stack);
    memset(doc, 0, sizeof *doc);
}

ECS_DEF const ecs_json_value *ecs_json_root(const ecs_json_doc *doc)
{
    return doc && doc->num_values ? doc->values : NULL;
}

ECS_DEF const ecs_json_value *ecs_json_first(const ecs_json_doc *doc, const ecs_json_value *v)
{
    (void)doc;
    if (!v || (v->type != ECS_JSON_ARRAY && v->type != ECS_JSON_OBJECT) || v->count == 0) return NULL;
    return v + 1;
}

ECS_DEF const ecs_json_value *ecs_json_next(const ecs_json_doc *doc, const ecs_json_value *v)
{
    if (!doc || !v || v->parent == ECS_JSON_NONE) return NULL;
    return v->next < doc->values[v->parent].next ? doc->values + v->next : NULL;
}

ECS_DEF const ecs_json_value *ecs_json_member(const ecs_json_doc *doc, const ecs_json_value *v, const char *key)
{
    const ecs_json_value *c;
    size_t n;
    uint32_t i;
    if (!doc || !v || !key || v->type != ECS_JSON_OBJECT) return NULL;
    n = strlen(key);
    for (i = 0, c = v + 1; i < v->count; ++i, c = doc->values + c->next)
        if (c->key_length == n && memcmp(doc->pool + c->key, key, n) == 0) return c;
    return NULL;
}

ECS_DEF const char *ecs_json_string(const ecs_json_doc *doc, const ecs_json_value *v)
{
    return doc && v && v->type == ECS_JSON_STRING ? doc->pool + v->str : NULL;
}

ECS_DEF const char *ecs_json_key(const ecs_json_doc *doc, const ecs_json_value *v)
{
    return doc && v && v->key != ECS_JSON_NONE ? doc->pool + v->key : NULL;
}

ECS_DEF size_t ecs_json_path(const ecs_json_doc *doc, const ecs_json_value *v, char *buf, size_t size)
{
    uint32_t depth = 0, level, target, i;
    size_t n = 0;
    if (buf && size) buf[0] = 0;
    if (!doc || !v) return 0;
    target = (uint32_t)(v - doc->values);
    for (i = target; doc->values[i].parent != ECS_JSON_NONE; i = doc->values[i].parent) ++depth;
    for (level = depth; level > 0; --level) {
        /* the ancestor `level - 1` steps above target */
        const ecs_json_value *a, *parent;
        char piece[48];
        uint32_t up;
        const char *text = piece;
        size_t tl;
        i = target;
        for (up = 1; up < level; ++up) i = doc->values[i].parent;
        a = doc->values + i;
        parent = doc->values + a->parent;
        if (parent->type == ECS_JSON_OBJECT) {
            if (n > 0) {
                if (buf && n + 1 < size) buf[n] = '.';
                ++n;
            }
            text = doc->pool + a->key;
            tl = a->key_length;
        } else {
            const ecs_json_value *c = parent + 1;
            uint32_t index = 0;
            while (c != a) {
                c = doc->values + c->next;
                ++index;
            }
            snprintf(piece, sizeof piece, "[%u]", (unsigned)index);
            tl = strlen(piece);
        }
        if (buf && n < size) {
            size_t room = size - 1 - n;
            memcpy(buf + n, text, tl < room ? tl : room);
        }
        n += tl;
    }
    if (buf && size) buf[n < size ? n : size - 1] = 0;
    return n;
}

ECS_DEF const char *ecs_json_type_name(ecs_json_type type)
{
    static const char *const names[] = {"null", "false", "true", "number", "string", "array", "object"};
    return (unsigned)type < 7u ? names[type] : "?";
}

/* The one rule for a JSON number read into a float (levels, schema values,
   snapshot JSON, console arguments): it must round to a finite float, the
   float nearest the text (not rounded twice through the double:
   ecs__json_f32_tie). */
ECS_DEF int ecs_json_f32(const ecs_json_value *v, float *out)
{
    float f;
    if (!v || !out || v->type != ECS_JSON_NUMBER || !(v->number >= -ECS__FLOAT_LIMIT && v->number <= ECS__FLOAT_LIMIT))
        return 0;
    if (v->number == ECS__FLOAT_LIMIT || v->number == -ECS__FLOAT_LIMIT) { /* to even: infinity, unless the text is below */
        if (!(v->reserved_ & ECS__JSON_F32_OTHER)) return 0;
        f = v->number > 0.0 ? FLT_MAX : -FLT_MAX;
    } else {
        f = (float)v->number;
        if (v->reserved_ & ECS__JSON_F32_OTHER) f = nextafterf(f, (double)f < v->number ? HUGE_VALF : -HUGE_VALF);
    }
    *out = f;
    return 1;
}

/* ---- COMPILER ------------------------------------------------------------ */

/* -- registration -- */

ECS_DEF void ecs_compiler_init(ecs_compiler *c)
{
    memset(c, 0, sizeof *c);
}

ECS_DEF void ecs_compiler_free(ecs_compiler *c)
{
    uint32_t i;
    if (!c) return;
    for (i = 0; i < c->num_types; ++i) {
        ECS__FREE(c->types[i].name);
        ECS__FREE(c->types[i].schema);
    }
    ECS__FREE(c->types);
    memset(c, 0, sizeof *c);
}

static uint32_t ecs__compiler_lower(const ecs_compiler *c, uint32_t id)
{
    return ecs__res_lower(c->types, c->num_types, sizeof *c->types, id);
}

/* The type registered under name[0..n), or ECS__RESOURCE_NOT_REGISTERED. */
static uint32_t ecs__compiler_find(const ecs_compiler *c, const char *name, size_t n)
{
    uint32_t at = ecs__compiler_lower(c, ecs__fnv1a32(name, n));
    if (at < c->num_types && c->types[at].name_length == n && memcmp(c->types[at].name, name, n) == 0) return at;
    return ECS__RESOURCE_NOT_REGISTERED;
}

ECS_DEF ecs_result ecs_compiler_register(ecs_compiler *c, const char *name, ecs_compiler_fn fn, void *user,
                                         int spawn_order, ecs_error *err)
{
    uint32_t id, at;
    ecs_compiler__type t;
    const char *taken;
    char bad[96];
    ecs_result r;
    void *np;
    if (!c || !name || !name[0] || !fn)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_compiler_register: needs a compiler, a non-empty name and a function");
    if (name[0] == '#')
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "compiler: '%s': names starting with '#' are the decompiler's unregistered blocks", name);
    if (ecs__name_not_utf8(name, bad, sizeof bad))
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "compiler: a type name that is not UTF-8: %s", bad);
    id = ecs_resource_identifier(name);
    at = ecs__compiler_lower(c, id);
    taken = at < c->num_types && c->types[at].identifier == id ? c->types[at].name : NULL;
    if ((r = ecs__res_check_new_name("compiler", name, id, taken, err)) != ECS_OK) return r;
    if (!ecs__res_grow(c->types, &c->types_capacity, (size_t)c->num_types + 1, sizeof *c->types, &np))
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "compiler: out of memory registering '%s'", name);
    c->types = (ecs_compiler__type *)np;
    t.name_length = (uint32_t)strlen(name);
    t.name = ecs__res_strdup(name, t.name_length);
    if (!t.name) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "compiler: out of memory registering '%s'", name);
    t.identifier = id;
    t.spawn_order = spawn_order;
    t.fn = fn;
    t.user = user;
    t.decompile = NULL;
    t.decompile_user = NULL;
    t.schema = NULL;
    memmove(c->types + at + 1, c->types + at, (c->num_types - at) * sizeof *c->types);
    c->types[at] = t;
    ++c->num_types;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_compiler_unregister(ecs_compiler *c, const char *name)
{
    uint32_t at;
    if (!c || !name) return ECS_ERROR_NOT_FOUND;
    at = ecs__compiler_find(c, name, strlen(name));
    if (at == ECS__RESOURCE_NOT_REGISTERED) return ECS_ERROR_NOT_FOUND;
    ECS__FREE(c->types[at].name);
    ECS__FREE(c->types[at].schema);
    memmove(c->types + at, c->types + at + 1, (c->num_types - at - 1) * sizeof *c->types);
    --c->num_types;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_compiler_set_decompile(ecs_compiler *c, const char *name, ecs_decompile_fn fn, void *user,
                                              ecs_error *err)
{
    uint32_t at;
    if (!c || !name || !fn)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_compiler_set_decompile: NULL argument");
    at = ecs__compiler_find(c, name, strlen(name));
    if (at == ECS__RESOURCE_NOT_REGISTERED)
        return ecs_error_set(err, ECS_ERROR_NOT_FOUND, "compiler: no component '%s' is registered", name);
    c->types[at].decompile = fn;
    c->types[at].decompile_user = user;
    return ECS_OK;
}

ECS_DEF const char *ecs_compiler_type_name(const ecs_compiler *c, uint32_t identifier)
{
    uint32_t at;
    if (!c) return NULL;
    at = ecs__compiler_lower(c, identifier);
    return at < c->num_types && c->types[at].identifier == identifier ? c->types[at].name : NULL;
}

/* -- the context, and what compile functions call -- */

typedef struct ecs__compile_dep {
    uint64_t hash;  /* ecs_path_hash of the path */
    const char *path; /* in the document's pool (alive for the whole compile) */
    uint32_t length;
} ecs__compile_dep;

typedef struct ecs__compile_block {
    unsigned char *data;
    uint32_t size, data_capacity;
    uint32_t *entity_index;
    uint32_t num_instances, index_capacity;
} ecs__compile_block;

/* An entity reference waiting for every name: the uint32 at block->data +
   offset becomes the index of the entity named by doc value `value`. */
typedef struct ecs__compile_fixup {
    ecs__compile_block *block;
    uint32_t offset;
    uint32_t value;
} ecs__compile_fixup;

struct ecs_compiler_context {
    const ecs_compiler *compiler;
    const ecs_json_doc *doc;
    const char *text;
    size_t text_length;
    int swap;                    /* target order differs from this machine's */
    int big_endian;
    ecs__compile_block *block;   /* where the current instance's bytes go */
    const ecs_json_value *component;
    uint32_t entity;
    ecs_error *error;
    ecs__compile_dep *deps;      /* unique dependencies, in order of appearance */
    uint32_t num_deps, deps_capacity;
    uint32_t *dep_slots;         /* hash set over deps: index + 1, 0 = empty */
    uint32_t dep_slots_capacity; /* a power of two, or 0 */
    ecs__compile_fixup *fixups;  /* entity references to resolve at the end */
    uint32_t num_fixups, fixups_capacity;
    struct ecs__ref_collect *collect; /* ecs_compiler_references: paths are listed here, not checked */
};

/* ecs_compiler_references' hook in ecs_compiler_add_dependency (REFERENCES). */
static ecs_result ecs__refs_record(ecs_compiler_context *ctx, const ecs_json_value *path, uint64_t *hash);

static ecs_result ecs__compile_vfail(ecs_compiler_context *ctx, ecs_result code, const ecs_json_value *at,
                                     const char *format, va_list ap)
{
    char what[224], path[160];
    uint32_t line = 0, column = 0;
    vsnprintf(what, sizeof what, format, ap);
    if (!at) at = ctx->component;
    if (at) {
        ecs_json_path(ctx->doc, at, path, sizeof path);
        ecs__res_text_position(ctx->text, ctx->text_length, at->offset, &line, &column);
    } else {
        path[0] = 0;
    }
    return ecs_error_set(ctx->error, code, "%s (line %u, column %u): %s", path[0] ? path : "(root)", (unsigned)line,
                         (unsigned)column, what);
}

static ecs_result ecs__compile_fail(ecs_compiler_context *ctx, ecs_result code, const ecs_json_value *at,
                                    const char *format, ...) ECS__RES_PRINTF(4, 5);

static ecs_result ecs__compile_fail(ecs_compiler_context *ctx, ecs_result code, const ecs_json_value *at,
                                    const char *format, ...)
{
    ecs_result r;
    va_list ap;
    va_start(ap, format);
    r = ecs__compile_vfail(ctx, code, at, format, ap);
    va_end(ap);
    return r;
}

ECS_DEF ecs_result ecs_compiler_error(ecs_compiler_context *ctx, const ecs_json_value *at, const char *format, ...)
{
    ecs_result r;
    va_list ap;
    va_start(ap, format);
    r = ecs__compile_vfail(ctx, ECS_ERROR_COMPILE, at, format, ap);
    va_end(ap);
    return r;
}

ECS_DEF const ecs_json_doc *ecs_compiler_doc(const ecs_compiler_context *ctx)
{
    return ctx->doc;
}

ECS_DEF int ecs_compiler_big_endian(const ecs_compiler_context *ctx)
{
    return ctx->big_endian;
}

ECS_DEF uint32_t ecs_compiler_entity_index(const ecs_compiler_context *ctx)
{
    return ctx->entity;
}

ECS_DEF uint32_t ecs_compiler_entity_instances(const ecs_compiler_context *ctx)
{
    const ecs__compile_block *b = ctx->block;
    uint32_t n = 0;
    while (n < b->num_instances && b->entity_index[b->num_instances - 1u - n] == ctx->entity) ++n;
    return n;
}

ECS_DEF ecs_result ecs_compiler_write(ecs_compiler_context *ctx, const void *bytes, uint32_t n)
{
    ecs__compile_block *b = ctx->block;
    if (n > 0xFFFFFFFFu - b->size)
        return ecs__compile_fail(ctx, ECS_ERROR_COMPILE, NULL, "component data exceeds 4 GiB");
    if (b->size + n > b->data_capacity) {
        void *np;
        if (!ecs__res_grow(b->data, &b->data_capacity, (size_t)b->size + n, 1, &np))
            return ecs__compile_fail(ctx, ECS_ERROR_OUT_OF_MEMORY, NULL, "out of memory for component data");
        b->data = (unsigned char *)np;
    }
    if (n) memcpy(b->data + b->size, bytes, n);
    b->size += n;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_compiler_write_u8(ecs_compiler_context *ctx, uint8_t v)
{
    return ecs_compiler_write(ctx, &v, 1);
}

ECS_DEF ecs_result ecs_compiler_write_u16(ecs_compiler_context *ctx, uint16_t v)
{
    if (ctx->swap) v = (uint16_t)((v >> 8) | (v << 8));
    return ecs_compiler_write(ctx, &v, 2);
}

ECS_DEF ecs_result ecs_compiler_write_u32(ecs_compiler_context *ctx, uint32_t v)
{
    if (ctx->swap) v = ecs__res_bswap32(v);
    return ecs_compiler_write(ctx, &v, 4);
}

ECS_DEF ecs_result ecs_compiler_write_u64(ecs_compiler_context *ctx, uint64_t v)
{
    if (ctx->swap) v = ecs__res_bswap64(v);
    return ecs_compiler_write(ctx, &v, 8);
}

ECS_DEF ecs_result ecs_compiler_write_f32(ecs_compiler_context *ctx, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    return ecs_compiler_write_u32(ctx, bits);
}

ECS_DEF ecs_result ecs_compiler_write_f64(ecs_compiler_context *ctx, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    return ecs_compiler_write_u64(ctx, bits);
}

/* Records canonical path s[0..n) (alive for the whole compile) as a
   dependency unless it is one already; at: where an error is reported. */
static ecs_result ecs__compile_record_dep(ecs_compiler_context *ctx, const char *s, uint32_t n, uint64_t h,
                                          const ecs_json_value *at)
{
    void *np;
    /* already recorded? (an open-addressing set over the 64-bit hashes) */
    if (ctx->dep_slots_capacity) {
        uint32_t mask = ctx->dep_slots_capacity - 1u, i = (uint32_t)h & mask;
        for (; ctx->dep_slots[i]; i = (i + 1u) & mask) {
            const ecs__compile_dep *d = ctx->deps + ctx->dep_slots[i] - 1u;
            if (d->hash == h && d->length == n && memcmp(d->path, s, n) == 0) return ECS_OK;
        }
    }
    if (!ecs__res_grow(ctx->deps, &ctx->deps_capacity, (size_t)ctx->num_deps + 1, sizeof *ctx->deps, &np))
        return ecs__compile_fail(ctx, ECS_ERROR_OUT_OF_MEMORY, at, "out of memory recording a dependency");
    ctx->deps = (ecs__compile_dep *)np;
    if ((ctx->num_deps + 1u) * 2u > ctx->dep_slots_capacity) { /* grow the set and put every entry back */
        uint32_t cap = ctx->dep_slots_capacity ? ctx->dep_slots_capacity * 2u : 64u, k;
        uint32_t *slots = (uint32_t *)ECS__REALLOC(NULL, cap * sizeof *slots);
        if (!slots) return ecs__compile_fail(ctx, ECS_ERROR_OUT_OF_MEMORY, at, "out of memory recording a dependency");
        memset(slots, 0, cap * sizeof *slots);
        for (k = 0; k < ctx->num_deps; ++k) {
            uint32_t i = (uint32_t)ctx->deps[k].hash & (cap - 1u);
            while (slots[i]) i = (i + 1u) & (cap - 1u);
            slots[i] = k + 1u;
        }
        ECS__FREE(ctx->dep_slots);
        ctx->dep_slots = slots;
        ctx->dep_slots_capacity = cap;
    }
    {
        uint32_t mask = ctx->dep_slots_capacity - 1u, i = (uint32_t)h & mask;
        while (ctx->dep_slots[i]) i = (i + 1u) & mask;
        ctx->dep_slots[i] = ctx->num_deps + 1u;
    }
    ctx->deps[ctx->num_deps].hash = h;
    ctx->deps[ctx->num_deps].path = s;
    ctx->deps[ctx->num_deps].length = n;
    ++ctx->num_deps;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_compiler_add_dependency(ecs_compiler_context *ctx, const ecs_json_value *path, uint64_t *hash)
{
    const char *s;
    uint32_t n;
    uint64_t h;
    if (!path || path->type != ECS_JSON_STRING)
        return ecs_compiler_error(ctx, path, "expected a resource path (a string), found %s",
                                  path ? ecs_json_type_name((ecs_json_type)path->type) : "nothing");
    if (ctx->collect) return ecs__refs_record(ctx, path, hash);
    s = ctx->doc->pool + path->str;
    n = path->count;
    if (!ecs__path_is_canonical(s, n)) {
        const char *why = "";
        size_t where = 0;
        char *fix = (char *)ECS__REALLOC(NULL, (size_t)n + 1);
        ecs_result r;
        if (!fix) return ecs__compile_fail(ctx, ECS_ERROR_OUT_OF_MEMORY, path, "out of memory checking a path");
        if (ecs__path_canonicalize(s, n, fix, &why, &where) >= 0)
            r = ecs__compile_fail(ctx, ECS_ERROR_NON_CANONICAL_PATH, path, "path '%.96s' is not canonical; write '%.96s'",
                                  s, fix);
        else
            r = ecs__compile_fail(ctx, ECS_ERROR_NON_CANONICAL_PATH, path,
                                  "path '%.96s' is not canonical and has no canonical spelling: %s (byte %lu)", s, why,
                                  (unsigned long)where);
        ECS__FREE(fix);
        return r;
    }
    h = ecs__fnv1a64(s, n);
    if (hash) *hash = h;
    return ecs__compile_record_dep(ctx, s, n, h, path);
}

ECS_DEF ecs_result ecs_compiler_write_reference(ecs_compiler_context *ctx, const ecs_json_value *path)
{
    uint64_t h = 0;
    ecs_result r = ecs_compiler_add_dependency(ctx, path, &h);
    return r ? r : ecs_compiler_write_u64(ctx, h);
}

ECS_DEF ecs_result ecs_compiler_write_entity(ecs_compiler_context *ctx, const ecs_json_value *name)
{
    ecs__compile_block *b = ctx->block;
    void *np;
    if (name && name->type == ECS_JSON_NULL) return ecs_compiler_write_u32(ctx, ECS_RESOURCE_ROOT);
    if (!name || name->type != ECS_JSON_STRING)
        return ecs_compiler_error(ctx, name, "expected the name of an entity of this resource (a string) or null, found %s",
                                  name ? ecs_json_type_name((ecs_json_type)name->type) : "nothing");
    if (!ecs__res_grow(ctx->fixups, &ctx->fixups_capacity, (size_t)ctx->num_fixups + 1, sizeof *ctx->fixups, &np))
        return ecs__compile_fail(ctx, ECS_ERROR_OUT_OF_MEMORY, name, "out of memory for an entity reference");
    ctx->fixups = (ecs__compile_fixup *)np;
    ctx->fixups[ctx->num_fixups].block = b;
    ctx->fixups[ctx->num_fixups].offset = b->size;
    ctx->fixups[ctx->num_fixups].value = (uint32_t)(name - ctx->doc->values);
    ++ctx->num_fixups;
    return ecs_compiler_write_u32(ctx, ECS_RESOURCE_ROOT); /* the placeholder */
}

/* Finds an earlier member of the same object with v's name. */
static int ecs__json_duplicate(const ecs_json_doc *doc, const ecs_json_value *obj, const ecs_json_value *v)
{
    const ecs_json_value *c;
    for (c = obj + 1; c != v; c = doc->values + c->next)
        if (c->key_length == v->key_length && memcmp(doc->pool + c->key, doc->pool + v->key, v->key_length) == 0)
            return 1;
    return 0;
}

ECS_DEF ecs_result ecs_compiler_check_members(ecs_compiler_context *ctx, const ecs_json_value *obj,
                                              const char *const *known, uint32_t n)
{
    const ecs_json_doc *doc = ctx->doc;
    const ecs_json_value *m;
    uint32_t i, k;
    if (!obj || obj->type != ECS_JSON_OBJECT) return ecs_compiler_error(ctx, obj, "expected an object");
    for (i = 0, m = obj + 1; i < obj->count; ++i, m = doc->values + m->next) {
        const char *key = doc->pool + m->key;
        int ok = m->key_length == 4 && memcmp(key, "type", 4) == 0;
        for (k = 0; k < n && !ok; ++k) ok = strlen(known[k]) == m->key_length && memcmp(known[k], key, m->key_length) == 0;
        if (!ok) {
            char list[160];
            size_t used = 0;
            list[0] = 0;
            for (k = 0; k < n && used < sizeof list; ++k)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "", known[k]);
            return ecs_compiler_error(ctx, m, "unknown member '%.64s' (known: type%s%s)", key, n ? ", " : "", list);
        }
        if (ecs__json_duplicate(doc, obj, m)) return ecs_compiler_error(ctx, m, "member '%.64s' appears twice", key);
    }
    return ECS_OK;
}

/* A JSON number read into a double (the rule ecs_json_f32 is for a float):
   finite. */
static int ecs__json_f64(const ecs_json_value *v, double *out)
{
    if (v->type != ECS_JSON_NUMBER || !(v->number >= -DBL_MAX && v->number <= DBL_MAX)) return 0;
    *out = v->number;
    return 1;
}

static ecs_result ecs__compile_f32(ecs_compiler_context *ctx, const ecs_json_value *v, float *out)
{
    if (v->type != ECS_JSON_NUMBER)
        return ecs_compiler_error(ctx, v, "expected a number, found %s", ecs_json_type_name((ecs_json_type)v->type));
    if (!ecs_json_f32(v, out)) return ecs_compiler_error(ctx, v, "number %g does not fit a float", v->number);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_compiler_member_f32(ecs_compiler_context *ctx, const ecs_json_value *obj, const char *key,
                                           float *out, uint32_t n, const float *defaults)
{
    const ecs_json_value *v = ecs_json_member(ctx->doc, obj, key), *e;
    uint32_t i;
    ecs_result r;
    if (!v) {
        if (!defaults) return ecs_compiler_error(ctx, obj, "missing member '%s'", key);
        memcpy(out, defaults, n * sizeof *out);
        return ECS_OK;
    }
    if (n == 1 && v->type == ECS_JSON_NUMBER) return ecs__compile_f32(ctx, v, out);
    if (v->type != ECS_JSON_ARRAY || v->count != n) {
        if (n == 1) return ecs_compiler_error(ctx, v, "expected a number");
        return ecs_compiler_error(ctx, v, "expected an array of %u numbers", (unsigned)n);
    }
    for (i = 0, e = v + 1; i < n; ++i, e = ctx->doc->values + e->next)
        if ((r = ecs__compile_f32(ctx, e, out + i)) != ECS_OK) return r;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_compiler_member_u32(ecs_compiler_context *ctx, const ecs_json_value *obj, const char *key,
                                           uint32_t *out, const uint32_t *defaults)
{
    const ecs_json_value *v = ecs_json_member(ctx->doc, obj, key);
    if (!v) {
        if (!defaults) return ecs_compiler_error(ctx, obj, "missing member '%s'", key);
        *out = *defaults;
        return ECS_OK;
    }
    if (v->type != ECS_JSON_NUMBER)
        return ecs_compiler_error(ctx, v, "expected an integer 0..4294967295, found %s",
                                  ecs_json_type_name((ecs_json_type)v->type));
    if (!(v->flags & ECS_JSON_WHOLE) || v->integer > 0xFFFFFFFFu || ((v->flags & ECS_JSON_NEGATIVE) && v->integer != 0))
        return ecs_compiler_error(ctx, v, "expected an integer 0..4294967295, found %.17g", v->number);
    *out = (uint32_t)v->integer;
    return ECS_OK;
}

/* -- schemas -- */

/* (defined with the decompiler; ecs_compiler_register_schema installs it) */
static ecs_result ecs__schema_decompile(void *user, ecs_decompile_context *ctx, const void *data, uint32_t size,
                                        uint32_t *used);

/* One field of a registered schema, ready to compile and decompile. */
typedef struct ecs__schema_slot {
    const char *name;           /* in the schema's own memory */
    uint32_t name_length;
    ecs_field_kind kind;
    uint32_t size, offset;      /* bytes in the record and where (runtime state: 0, 0) */
    uint8_t runtime, required, has_min, has_max;
    double min, max;            /* bounds of every number (has_min, has_max) */
    uint8_t min_neg, max_neg;   /* integer kinds: the bounds exactly, as a sign */
    uint64_t min_int, max_int;  /*   and a magnitude */
    unsigned char initial[64];  /* the default's bytes, in this machine's order */
    const char *initial_path;   /* a path default: its canonical text, else NULL */
    uint32_t initial_path_length;
} ecs__schema_slot;

/* A registered schema: the compile and decompile functions' user pointer. */
typedef struct ecs__schema_info {
    uint32_t num_fields, record_size;
    ecs__schema_slot *fields;
    const char *type_name;
} ecs__schema_info;

/* Element count and size of a kind's value (vectors are arrays of floats). */
static uint32_t ecs__kind_elements(ecs_field_kind kind)
{
    switch (kind) {
    case ECS_FIELD_VEC2: return 2;
    case ECS_FIELD_VEC3: return 3;
    case ECS_FIELD_VEC4: case ECS_FIELD_QUAT: return 4;
    case ECS_FIELD_MAT4: return 16;
    default: return 1;
    }
}

/* An integer kind's bytes, whether it is signed and its largest value (a
   signed kind also reaches -(max + 1)); 0 for any other kind. */
static uint32_t ecs__int_kind(ecs_field_kind kind, int *is_signed, uint64_t *max)
{
    switch (kind) {
    case ECS_FIELD_I8: *is_signed = 1, *max = 0x7Fu; return 1;
    case ECS_FIELD_U8: *is_signed = 0, *max = 0xFFu; return 1;
    case ECS_FIELD_I16: *is_signed = 1, *max = 0x7FFFu; return 2;
    case ECS_FIELD_U16: *is_signed = 0, *max = 0xFFFFu; return 2;
    case ECS_FIELD_I32: *is_signed = 1, *max = 0x7FFFFFFFu; return 4;
    case ECS_FIELD_U32: *is_signed = 0, *max = 0xFFFFFFFFu; return 4;
    case ECS_FIELD_U64: *is_signed = 0, *max = UINT64_MAX; return 8;
    default: *is_signed = 0, *max = 0; return 0;
    }
}

static int ecs__kind_is_int(ecs_field_kind kind)
{
    int is_signed;
    uint64_t max;
    return ecs__int_kind(kind, &is_signed, &max) != 0;
}

static uint32_t ecs__kind_element_size(ecs_field_kind kind)
{
    if (kind == ECS_FIELD_F64 || kind == ECS_FIELD_U64 || kind == ECS_FIELD_PATH) return 8u;
    return kind == ECS_FIELD_BOOL || kind == ECS_FIELD_I8 || kind == ECS_FIELD_U8 ? 1u
           : kind == ECS_FIELD_I16 || kind == ECS_FIELD_U16                      ? 2u
                                                                                 : 4u;
}

static int ecs__kind_is_float(ecs_field_kind kind)
{
    return kind == ECS_FIELD_F32 || (kind >= ECS_FIELD_VEC2 && kind <= ECS_FIELD_MAT4);
}

static int ecs__kind_is_number(ecs_field_kind kind)
{
    return ecs__kind_is_float(kind) || kind == ECS_FIELD_F64 || ecs__kind_is_int(kind);
}

/* Copies a record field between this machine's order and the target order
   (the same swap both ways). */
static void ecs__schema_order(ecs_field_kind kind, unsigned char *to, const unsigned char *from, int swap)
{
    uint32_t e = ecs__kind_element_size(kind), n = ecs_field_kind_size(kind), k;
    if (!swap || e == 1) {
        memcpy(to, from, n);
        return;
    }
    for (k = 0; k < n; k += e) {
        if (e == 2) {
            to[k] = from[k + 1];
            to[k + 1] = from[k];
        } else if (e == 4) {
            uint32_t v;
            memcpy(&v, from + k, 4);
            v = ecs__res_bswap32(v);
            memcpy(to + k, &v, 4);
        } else {
            uint64_t v;
            memcpy(&v, from + k, 8);
            v = ecs__res_bswap64(v);
            memcpy(to + k, &v, 8);
        }
    }
}

/* Reads number v as an integer of kind into out (native bytes): exactly, in
   any form JSON writes a whole number (ECS_JSON_WHOLE). 0 with why, which
   gives the kind's range. */
static int ecs__schema_int(ecs_field_kind kind, const ecs_json_value *v, unsigned char *out, char *why, size_t n)
{
    int is_signed, neg = (v->flags & ECS_JSON_NEGATIVE) && v->integer != 0; /* -0 is 0 */
    uint64_t max, mag = v->integer;
    uint32_t size = ecs__int_kind(kind, &is_signed, &max);
    char range[48];
    if (is_signed) snprintf(range, sizeof range, "-%llu..%llu", (unsigned long long)max + 1u, (unsigned long long)max);
    else snprintf(range, sizeof range, "0..%llu", (unsigned long long)max);
    if (!(v->flags & ECS_JSON_WHOLE)) {
        snprintf(why, n, "expected an integer %s, found %.17g", range, v->number);
        return 0;
    }
    if ((neg && !is_signed) || mag > max + (uint64_t)(neg != 0)) {
        snprintf(why, n, "expected an integer %s, found %s%llu", range, neg ? "-" : "", (unsigned long long)mag);
        return 0;
    }
    if (neg) mag = 0u - mag; /* two's complement, cut to size below */
    if (size == 8) {
        memcpy(out, &mag, 8);
    } else if (size == 4) {
        uint32_t w = (uint32_t)mag;
        memcpy(out, &w, 4);
    } else if (size == 2) {
        uint16_t h = (uint16_t)mag;
        memcpy(out, &h, 2);
    } else {
        out[0] = (unsigned char)mag;
    }
    return 1;
}

/* The value of an integer kind's native bytes as a sign and a magnitude. */
static uint64_t ecs__schema_int_at(ecs_field_kind kind, const unsigned char *bytes, int *neg)
{
    int is_signed;
    uint64_t max, bits = 0, top;
    uint32_t size = ecs__int_kind(kind, &is_signed, &max);
    if (size == 8) {
        memcpy(&bits, bytes, 8);
    } else if (size == 4) {
        uint32_t w;
        memcpy(&w, bytes, 4);
        bits = w;
    } else if (size == 2) {
        uint16_t h;
        memcpy(&h, bytes, 2);
        bits = h;
    } else {
        bits = bytes[0];
    }
    *neg = 0;
    if (!is_signed) return bits;
    top = (uint64_t)1 << (8u * size - 1u); /* the sign bit (signed kinds have at most 4 bytes) */
    *neg = (bits & top) != 0;
    return *neg ? (0u - bits) & ((top << 1) - 1u) : bits;
}

/* 1 when the integer (a_neg, a) is below (b_neg, b) (signs and magnitudes,
   -0 written as 0). */
static int ecs__int_below(int a_neg, uint64_t a, int b_neg, uint64_t b)
{
    if (a_neg != b_neg) return a_neg;
    return a_neg ? a > b : a < b;
}

/* Checks an integer field's exact bounds; 0 with why. */
static int ecs__schema_int_in_range(const ecs__schema_slot *f, const unsigned char *bytes, char *why, size_t n)
{
    int neg;
    uint64_t v = ecs__schema_int_at(f->kind, bytes, &neg);
    const char *sign = neg ? "-" : "";
    if (f->has_min && ecs__int_below(neg, v, f->min_neg, f->min_int)) {
        snprintf(why, n, "%s must be >= %s%llu (found %s%llu)", f->name, f->min_neg ? "-" : "",
                 (unsigned long long)f->min_int, sign, (unsigned long long)v);
        return 0;
    }
    if (f->has_max && ecs__int_below(f->max_neg, f->max_int, neg, v)) {
        snprintf(why, n, "%s must be <= %s%llu (found %s%llu)", f->name, f->max_neg ? "-" : "",
                 (unsigned long long)f->max_int, sign, (unsigned long long)v);
        return 0;
    }
    return 1;
}

/* The number a value of a float kind holds at element k (for range checks). */
static double ecs__schema_number_at(ecs_field_kind kind, const unsigned char *bytes, uint32_t k)
{
    float fv;
    double dv;
    if (kind == ECS_FIELD_F64) {
        memcpy(&dv, bytes, 8);
        return dv;
    }
    memcpy(&fv, bytes + 4u * k, 4);
    return (double)fv;
}

/* Checks f's bounds on every element of a value; 0 with why and the failing
   element in *at. */
static int ecs__schema_in_range(const ecs__schema_slot *f, const unsigned char *bytes, uint32_t *at, char *why,
                                size_t n)
{
    uint32_t k, count = ecs__kind_elements(f->kind);
    if (!ecs__kind_is_number(f->kind)) return 1;
    *at = 0;
    if (ecs__kind_is_int(f->kind)) return ecs__schema_int_in_range(f, bytes, why, n);
    for (k = 0; k < count; ++k) {
        double d = ecs__schema_number_at(f->kind, bytes, k);
        if ((f->has_min && !(d >= f->min)) || (f->has_max && !(d <= f->max))) {
            *at = k;
            if (f->has_min && !(d >= f->min)) snprintf(why, n, "%s must be >= %.17g (found %.17g)", f->name, f->min, d);
            else snprintf(why, n, "%s must be <= %.17g (found %.17g)", f->name, f->max, d);
            return 0;
        }
    }
    return 1;
}

/* 1 when a value of field f (native bytes) is one the compiler gives and the
   decompiler writes: in f's bounds, finite, a bool byte of 0 or 1, a
   quaternion other than zero (path and entity values: any); else 0 with why.
   The decompiler and ecs_resource_save_subtree both ask it. */
static int ecs__schema_value_ok(const ecs__schema_slot *f, const unsigned char *bytes, char *why, size_t n)
{
    uint32_t k, bad;
    float q[4];
    if (!ecs__schema_in_range(f, bytes, &bad, why, n)) return 0;
    if (f->kind == ECS_FIELD_BOOL && bytes[0] > 1) {
        snprintf(why, n, "%s: a bool byte of %u (only 0 and 1 exist)", f->name, bytes[0]);
        return 0;
    }
    if (f->kind == ECS_FIELD_QUAT) {
        memcpy(q, bytes, 16);
        if (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f) {
            snprintf(why, n, "%s: a zero quaternion", f->name);
            return 0;
        }
    }
    for (k = 0; (ecs__kind_is_float(f->kind) || f->kind == ECS_FIELD_F64) && k < ecs__kind_elements(f->kind); ++k) {
        double d = ecs__schema_number_at(f->kind, bytes, k);
        if (!(d >= -DBL_MAX && d <= DBL_MAX)) {
            snprintf(why, n, "%s: a %s that is not finite (JSON has no NaN or infinity)", f->name,
                     f->kind == ECS_FIELD_F64 ? "double" : "float");
            return 0;
        }
    }
    return 1;
}

/* Reads JSON value v as a value of slot f (every kind but path and entity)
   into out, in this machine's byte order, bounds checked. Returns NULL, or
   the offending value with why written. */
static const ecs_json_value *ecs__schema_value(const ecs__schema_slot *f, const ecs_json_doc *doc,
                                               const ecs_json_value *v, unsigned char *out, char *why, size_t n)
{
    uint32_t count = ecs__kind_elements(f->kind), k, bad = 0;
    const ecs_json_value *e = v;
    if (f->kind == ECS_FIELD_BOOL) {
        if (v->type != ECS_JSON_TRUE && v->type != ECS_JSON_FALSE) {
            snprintf(why, n, "expected true or false, found %s", ecs_json_type_name((ecs_json_type)v->type));
            return v;
        }
        out[0] = v->type == ECS_JSON_TRUE;
        return NULL;
    }
    if (count > 1 && (v->type != ECS_JSON_ARRAY || v->count != count)) {
        snprintf(why, n, "expected an array of %u numbers", (unsigned)count);
        return v;
    }
    for (k = 0, e = count > 1 ? v + 1 : v; k < count; ++k, e = doc->values + e->next) {
        if (e->type != ECS_JSON_NUMBER) {
            snprintf(why, n, "expected %s, found %s", ecs__kind_is_int(f->kind) ? "an integer" : "a number",
                     ecs_json_type_name((ecs_json_type)e->type));
            return e;
        }
        if (ecs__kind_is_float(f->kind)) {
            float x;
            if (!ecs_json_f32(e, &x)) {
                snprintf(why, n, "number %g does not fit a float", e->number);
                return e;
            }
            memcpy(out + 4u * k, &x, 4);
        } else if (f->kind == ECS_FIELD_F64) {
            double x;
            if (!ecs__json_f64(e, &x)) {
                snprintf(why, n, "number %g does not fit a double", e->number);
                return e;
            }
            memcpy(out, &x, 8);
        } else if (!ecs__schema_int(f->kind, e, out, why, n)) {
            return e;
        }
    }
    if (f->kind == ECS_FIELD_QUAT) {
        float q[4];
        memcpy(q, out, 16);
        if (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f) {
            snprintf(why, n, "the quaternion has zero length");
            return v;
        }
    }
    if (!ecs__schema_in_range(f, out, &bad, why, n)) {
        for (k = 0, e = count > 1 ? v + 1 : v; k < bad; ++k) e = doc->values + e->next;
        return e;
    }
    return NULL;
}

/* "#" and 16 hexadecimal digits (either case): a path hash given as it is. */
static int ecs__path_hash_text(const char *s, uint32_t n, uint64_t *hash)
{
    uint64_t h = 0;
    uint32_t k;
    if (n != 17 || s[0] != '#') return 0;
    for (k = 1; k < 17; ++k) {
        char c = s[k];
        uint32_t d = c >= '0' && c <= '9'   ? (uint32_t)(c - '0')
                     : c >= 'a' && c <= 'f' ? (uint32_t)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (uint32_t)(c - 'A' + 10)
                                            : 16u;
        if (d == 16u) return 0;
        h = (h << 4) | d;
    }
    *hash = h;
    return 1;
}

/* Appends a field's value (native bytes) in the target byte order. */
static ecs_result ecs__schema_put(ecs_compiler_context *ctx, ecs_field_kind kind, const unsigned char *bytes)
{
    unsigned char buf[64];
    ecs__schema_order(kind, buf, bytes, ctx->swap);
    return ecs_compiler_write(ctx, buf, ecs_field_kind_size(kind));
}

/* Finds each field's member in one pass over the component's members
   (found[k], or NULL) and refuses unknown members, runtime fields and
   members given twice. */
static ecs_result ecs__schema_members(ecs_compiler_context *ctx, const ecs__schema_info *si, const ecs_json_value *obj,
                                      const ecs_json_value **found)
{
    const ecs_json_doc *doc = ctx->doc;
    const ecs_json_value *m;
    uint32_t i, k;
    for (k = 0; k < si->num_fields; ++k) found[k] = NULL;
    for (i = 0, m = obj + 1; i < obj->count; ++i, m = doc->values + m->next) {
        const char *key = doc->pool + m->key;
        if (m->key_length == 4 && memcmp(key, "type", 4) == 0) {
            if (ecs__json_duplicate(doc, obj, m)) return ecs_compiler_error(ctx, m, "member 'type' appears twice");
            continue;
        }
        for (k = 0; k < si->num_fields; ++k)
            if (si->fields[k].name_length == m->key_length && memcmp(si->fields[k].name, key, m->key_length) == 0) break;
        if (k == si->num_fields || si->fields[k].runtime) {
            char list[200];
            size_t used = 0;
            uint32_t j;
            list[0] = 0;
            for (j = 0; j < si->num_fields && used < sizeof list; ++j)
                if (!si->fields[j].runtime)
                    used += (size_t)snprintf(list + used, sizeof list - used, ", %s", si->fields[j].name);
            if (k < si->num_fields)
                return ecs_compiler_error(ctx, m, "'%.64s' is runtime state, not read from resources (known: type%s)", key,
                                          list);
            return ecs_compiler_error(ctx, m, "unknown member '%.64s' (known: type%s)", key, list);
        }
        if (found[k]) return ecs_compiler_error(ctx, m, "member '%.64s' appears twice", key);
        found[k] = m;
    }
    return ECS_OK;
}

/* Appends field f's value given by v, or its default (v NULL). */
static ecs_result ecs__schema_field(ecs_compiler_context *ctx, const ecs__schema_slot *f, const ecs_json_value *v,
                                    const ecs_json_value *component)
{
    const ecs_json_value *bad;
    unsigned char bytes[64];
    char why[160];
    uint64_t h;
    ecs_result r;
    if (!v) {
        if (f->required)
            return ecs_compiler_error(ctx, component, "missing member '%s' (%s)", f->name, ecs_field_kind_name(f->kind));
        if (f->initial_path &&
            (r = ecs__compile_record_dep(ctx, f->initial_path, f->initial_path_length,
                                         ecs__fnv1a64(f->initial_path, f->initial_path_length), component)) != ECS_OK)
            return r;
        return ecs__schema_put(ctx, f->kind, f->initial);
    }
    if (f->kind == ECS_FIELD_ENTITY) return ecs_compiler_write_entity(ctx, v);
    if (f->kind == ECS_FIELD_PATH) {
        if (!(v->type == ECS_JSON_STRING && ecs__path_hash_text(ctx->doc->pool + v->str, v->count, &h)) &&
            (r = ecs_compiler_add_dependency(ctx, v, &h)) != ECS_OK)
            return r;
        memcpy(bytes, &h, 8);
        return ecs__schema_put(ctx, f->kind, bytes);
    }
    if ((bad = ecs__schema_value(f, ctx->doc, v, bytes, why, sizeof why)) != NULL)
        return ecs_compiler_error(ctx, bad, "%s", why);
    return ecs__schema_put(ctx, f->kind, bytes);
}

/* The compile function of every schema type (user: its ecs__schema_info). */
static ecs_result ecs__schema_compile(void *user, ecs_compiler_context *ctx, const ecs_json_value *component)
{
    const ecs__schema_info *si = (const ecs__schema_info *)user;
    const ecs_json_value *small[16], **found = small;
    uint32_t k;
    ecs_result r;
    if (si->num_fields > 16 && !(found = (const ecs_json_value **)ECS__REALLOC(NULL, si->num_fields * sizeof *found)))
        return ecs__compile_fail(ctx, ECS_ERROR_OUT_OF_MEMORY, component, "out of memory");
    r = ecs__schema_members(ctx, si, component, found);
    for (k = 0; k < si->num_fields && r == ECS_OK; ++k)
        if (!si->fields[k].runtime) r = ecs__schema_field(ctx, si->fields + k, found[k], component);
    if (found != small) ECS__FREE(found);
    return r;
}

/* A bound ("min", "max") of a field of kind: for a float kind the float the
   compiler reads from the same number (so {"max": 0.1} admits 0.1, which
   reads as 0.100000001f); a number beyond the floats stays as written (no
   finite float passes it, or every one does); else the number itself. */
static double ecs__schema_bound(ecs_field_kind kind, const ecs_json_value *m)
{
    float f;
    if (ecs__kind_is_int(kind) || kind == ECS_FIELD_F64 || !ecs_json_f32(m, &f)) return m->number;
    return (double)f;
}

/* Reads spec (see ecs_schema_field) into slot f: default bytes, bounds,
   required; *initial_out (when not NULL): the default's value in doc, or
   NULL. 0 with why; -1 when the parser ran out of memory. doc: scratch.
   Member names compare with their length: "max\u0000" is not "max". */
static int ecs__schema_spec(ecs__schema_slot *f, const char *spec, ecs_json_doc *doc, const ecs_json_value **initial_out,
                            char *why, size_t n)
{
    const ecs_json_value *root, *initial, *m;
    ecs_error perr;
    uint32_t i;
    if (ecs_json_parse(doc, spec, strlen(spec), &perr) != ECS_OK) {
        snprintf(why, n, "%s%.150s", perr.code == ECS_ERROR_OUT_OF_MEMORY ? "" : "spec is not JSON: ", perr.message);
        return perr.code == ECS_ERROR_OUT_OF_MEMORY ? -1 : 0;
    }
    root = initial = ecs_json_root(doc);
    if (root->type == ECS_JSON_OBJECT) {
        initial = NULL;
        for (i = 0, m = root + 1; i < root->count; ++i, m = doc->values + m->next) {
            const char *key = doc->pool + m->key;
            int is_min = m->key_length == 3 && memcmp(key, "min", 3) == 0;
            int is_max = m->key_length == 3 && memcmp(key, "max", 3) == 0;
            if (ecs__json_duplicate(doc, root, m)) { /* as level JSON: one value per member */
                snprintf(why, n, "spec member '%.32s' appears twice", key);
                return 0;
            }
            if (memchr(key, 0, m->key_length)) { /* "max\u0000" is not "max" */
                snprintf(why, n, "spec member '%.32s\\u0000...' has a NUL byte in its name", key);
                return 0;
            }
            if (m->key_length == 7 && memcmp(key, "default", 7) == 0) {
                initial = m;
            } else if ((is_min || is_max) && m->type == ECS_JSON_NUMBER && ecs__kind_is_number(f->kind)) {
                int neg = (m->flags & ECS_JSON_NEGATIVE) && m->integer != 0;
                if (ecs__kind_is_int(f->kind) && !(m->flags & ECS_JSON_WHOLE)) {
                    snprintf(why, n, "\"%s\" of an integer kind must be a whole number below 2^64 in magnitude", key);
                    return 0;
                }
                double bound = ecs__schema_bound(f->kind, m);
                if (is_min) f->has_min = 1, f->min = bound, f->min_neg = (uint8_t)neg, f->min_int = m->integer;
                else f->has_max = 1, f->max = bound, f->max_neg = (uint8_t)neg, f->max_int = m->integer;
            } else {
                snprintf(why, n, "spec member '%.32s' is not \"default\", or a number \"min\"/\"max\" of a numeric kind", key);
                return 0;
            }
        }
    }
    f->required = initial == NULL;
    if (initial_out) *initial_out = initial;
    memset(f->initial, 0, sizeof f->initial);
    if (!initial) return 1;
    if (f->kind == ECS_FIELD_ENTITY) {
        uint32_t none = ECS_RESOURCE_ROOT;
        if (initial->type != ECS_JSON_NULL) {
            snprintf(why, n, "an entity field's default can only be null");
            return 0;
        }
        memcpy(f->initial, &none, 4);
        return 1;
    }
    if (f->kind == ECS_FIELD_PATH) {
        uint64_t h = 0;
        const char *p = initial->type == ECS_JSON_STRING ? doc->pool + initial->str : NULL;
        if (!p || !(ecs__path_hash_text(p, initial->count, &h) || ecs__path_is_canonical(p, initial->count))) {
            snprintf(why, n, "a path default must be a canonical path (or \"#\" and 16 hex digits)");
            return 0;
        }
        if (p[0] != '#') h = ecs__fnv1a64(p, initial->count);
        memcpy(f->initial, &h, 8);
        return 1;
    }
    return ecs__schema_value(f, doc, initial, f->initial, why, n) == NULL;
}

/* Checks a schema's names and kinds; adds the bytes its strings need. */
static ecs_result ecs__schema_names(const char *type, const ecs_schema_field *schema, uint32_t n, size_t *bytes,
                                    ecs_error *err)
{
    uint32_t k, j;
    char bad[96];
    if (!schema || n == 0 || n > 0xFFFFu)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "schema of '%s': needs 1..65535 fields", type);
    for (k = 0; k < n; ++k) {
        const char *name = schema[k].name;
        if (!name || !name[0] || strcmp(name, "type") == 0 || ecs_field_kind_size(schema[k].kind) == 0)
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "schema of '%s': field %u needs a name other than \"type\" and a kind", type, (unsigned)k);
        if (ecs__name_not_utf8(name, bad, sizeof bad))
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "schema of '%s': the name of field %u is not UTF-8: %s", type, (unsigned)k, bad);
        for (j = 0; j < k; ++j)
            if (strcmp(schema[j].name, name) == 0)
                return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "schema of '%s': two fields are called '%s'", type,
                                     name);
        *bytes += strlen(name) + 1u + (schema[k].spec ? strlen(schema[k].spec) + 1u : 0u);
    }
    return ECS_OK;
}

/* Builds the ecs__schema_info of a schema in one allocation (*out), or
   fails with err. */
static ecs_result ecs__schema_build(const char *type, const ecs_schema_field *schema, uint32_t n,
                                    ecs__schema_info **out, ecs_error *err)
{
    size_t bytes = sizeof(ecs__schema_info) + (size_t)n * sizeof(ecs__schema_slot) + strlen(type) + 1u;
    ecs__schema_info *si;
    ecs_json_doc doc;
    char *strings, why[200];
    uint32_t k, offset = 0;
    ecs_result r = ecs__schema_names(type, schema, n, &bytes, err);
    if (r != ECS_OK) return r;
    si = (ecs__schema_info *)ECS__REALLOC(NULL, bytes);
    if (!si) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "schema of '%s': out of memory", type);
    memset(si, 0, sizeof(ecs__schema_info) + (size_t)n * sizeof(ecs__schema_slot));
    si->num_fields = n;
    si->fields = (ecs__schema_slot *)(void *)(si + 1);
    strings = (char *)(si->fields + n);
    memset(&doc, 0, sizeof doc);
    for (k = 0; k < n && r == ECS_OK; ++k) {
        ecs__schema_slot *f = si->fields + k;
        const ecs_json_value *d = NULL;
        int got;
        f->name_length = (uint32_t)strlen(schema[k].name);
        f->name = (const char *)memcpy(strings, schema[k].name, f->name_length + 1u);
        strings += f->name_length + 1u;
        f->kind = schema[k].kind;
        f->runtime = schema[k].spec == NULL;
        if (f->runtime) continue;
        f->size = ecs_field_kind_size(f->kind);
        f->offset = offset;
        offset += f->size;
        got = ecs__schema_spec(f, schema[k].spec, &doc, &d, why, sizeof why);
        if (got <= 0) {
            r = ecs_error_set(err, got < 0 ? ECS_ERROR_OUT_OF_MEMORY : ECS_ERROR_INVALID_ARGUMENT,
                              "schema of '%s': field '%s' (%s), spec '%.60s': %s", type, f->name,
                              ecs_field_kind_name(f->kind), schema[k].spec, why);
        } else if (f->kind == ECS_FIELD_PATH && d) { /* d: the default ecs__schema_spec checked */
            if (doc.pool[d->str] != '#') {
                f->initial_path_length = d->count;
                f->initial_path = (const char *)memcpy(strings, doc.pool + d->str, d->count + 1u);
                strings += d->count + 1u;
            }
        }
    }
    ecs_json_doc_free(&doc);
    if (r != ECS_OK) {
        ECS__FREE(si);
        return r;
    }
    si->record_size = offset;
    si->type_name = (const char *)memcpy(strings, type, strlen(type) + 1u);
    *out = si;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_compiler_register_schema(ecs_compiler *c, const char *name, const ecs_schema_field *schema,
                                                uint32_t num_fields, int spawn_order, ecs_error *err)
{
    ecs__schema_info *si = NULL;
    ecs_error local;
    ecs_result r;
    uint32_t at;
    if (!err) err = &local;
    if (!c || !name || !name[0])
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_compiler_register_schema: needs a compiler and a name");
    if ((r = ecs__schema_build(name, schema, num_fields, &si, err)) != ECS_OK) return r;
    if ((r = ecs_compiler_register(c, name, ecs__schema_compile, si, spawn_order, err)) != ECS_OK) {
        ECS__FREE(si);
        return r;
    }
    at = ecs__compiler_find(c, name, strlen(name));
    c->types[at].schema = si;
    c->types[at].decompile = ecs__schema_decompile;
    c->types[at].decompile_user = si;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_compiler_register_manager(ecs_compiler *c, const char *name, const ecs_manager *m,
                                                 int spawn_order, ecs_error *err)
{
    if (!m || !m->schema)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_compiler_register_manager: the manager has no schema (ecs_manager_set_schema)");
    return ecs_compiler_register_schema(c, name, m->schema->fields, m->schema->num_fields, spawn_order, err);
}

/* A live entity field's value: an id below 2^32 or null. */
static int ecs__schema_live_entity(const ecs_json_value *v, unsigned char *out, char *why, size_t n)
{
    uint32_t id = 0;
    if (v->type == ECS_JSON_NUMBER && (v->flags & ECS_JSON_WHOLE) && !((v->flags & ECS_JSON_NEGATIVE) && v->integer) &&
        v->integer <= 0xFFFFFFFFu)
        id = (uint32_t)v->integer;
    else if (v->type != ECS_JSON_NULL) {
        snprintf(why, n, "expected an entity id (a whole number 0..4294967295) or null, found %s",
                 ecs_json_type_name((ecs_json_type)v->type));
        return 0;
    }
    memcpy(out, &id, 4);
    return 1;
}

/* A live path field's value: "#" and 16 hex digits, or a canonical path.
   1; 0 with why; -1 out of memory. */
static int ecs__schema_live_path(const ecs_json_doc *doc, const ecs_json_value *v, unsigned char *out, char *why,
                                 size_t n)
{
    const char *p = v->type == ECS_JSON_STRING ? doc->pool + v->str : NULL;
    uint64_t h;
    if (!p) {
        snprintf(why, n, "expected a resource path (a string), found %s", ecs_json_type_name((ecs_json_type)v->type));
        return 0;
    }
    if (!ecs__path_hash_text(p, v->count, &h)) {
        if (!ecs__path_is_canonical(p, v->count)) {
            const char *bad = "";
            size_t where = 0;
            char *fix = (char *)ECS__REALLOC(NULL, (size_t)v->count + 1u); /* never longer than the path */
            if (!fix) return -1;
            if (ecs__path_canonicalize(p, v->count, fix, &bad, &where) >= 0)
                snprintf(why, n, "path '%.80s' is not canonical; write '%.80s'", p, fix);
            else
                snprintf(why, n, "path '%.80s' is not canonical and has no canonical spelling: %s (byte %lu)", p, bad,
                         (unsigned long)where);
            ECS__FREE(fix);
            return 0;
        }
        h = ecs__fnv1a64(p, v->count);
    }
    memcpy(out, &h, 8);
    return 1;
}

ECS_DEF ecs_result ecs_schema_value_read(const ecs_schema_field *field, const ecs_json_doc *doc, const ecs_json_value *v,
                                         void *out, ecs_error *err)
{
    ecs__schema_slot f;
    ecs_json_doc scratch;
    unsigned char bytes[64];
    char why[200];
    int ok;
    if (!field || !field->name || !doc || !v || !out || ecs_field_kind_size(field->kind) == 0)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_schema_value_read: NULL argument or a field without a kind");
    memset(&f, 0, sizeof f);
    f.name = field->name;
    f.kind = field->kind;
    f.runtime = field->spec == NULL;
    why[0] = 0;
    if (field->spec) {
        memset(&scratch, 0, sizeof scratch);
        ok = ecs__schema_spec(&f, field->spec, &scratch, NULL, why, sizeof why);
        ecs_json_doc_free(&scratch);
        if (ok < 0) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "field '%.64s': out of memory", field->name);
        if (ok == 0)
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "field '%.64s' (%s): its spec: %s", field->name,
                                 ecs_field_kind_name(field->kind), why);
    }
    if (f.kind == ECS_FIELD_ENTITY) ok = ecs__schema_live_entity(v, bytes, why, sizeof why);
    else if (f.kind == ECS_FIELD_PATH) ok = ecs__schema_live_path(doc, v, bytes, why, sizeof why);
    else ok = ecs__schema_value(&f, doc, v, bytes, why, sizeof why) == NULL;
    if (ok < 0) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "field '%.64s': out of memory", field->name);
    if (!ok)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "field '%.64s' (%s): %s", field->name,
                             ecs_field_kind_name(field->kind), why);
    memcpy(out, bytes, ecs_field_kind_size(field->kind));
    return ECS_OK;
}

/* -- the standard components -- */

/* The local matrix of position, rotation (normalised here) and scale, as the
   compile function computes it: 0, or 1 for a zero-length (or not finite)
   quaternion, 2 when an element overflows a float. q is first scaled by a
   power of two near its largest element's magnitude (exact: every matrix
   is the bits it was without it), so however small a quaternion is it
   normalises: [1e-7, 0, 0, 0] as [1, 0, 0, 0]. */
static int ecs__transform_matrix(const float pos[3], const float q[4], const float s[3], float m[16])
{
    double x = q[0], y = q[1], z = q[2], w = q[3], big = fabs(x), len2, inv, md[16];
    int i, e;
    for (i = 1; i < 4; ++i) big = fabs((double)q[i]) > big ? fabs((double)q[i]) : big;
    if (!(big > 0.0 && big <= DBL_MAX)) return 1;
    (void)frexp(big, &e); /* big = f * 2^e, f in [0.5, 1) */
    x = ldexp(x, -e), y = ldexp(y, -e), z = ldexp(z, -e), w = ldexp(w, -e);
    len2 = x * x + y * y + z * z + w * w;
    if (!(len2 >= 0.25 && len2 <= 4.0)) return 1; /* a NaN element */
    inv = 1.0 / sqrt(len2);
    x *= inv, y *= inv, z *= inv, w *= inv;
    /* row vectors: v' = v * S * R * T; row k of R is the image of axis k */
    md[0] = s[0] * (1.0 - 2.0 * (y * y + z * z));
    md[1] = s[0] * (2.0 * (x * y + z * w));
    md[2] = s[0] * (2.0 * (x * z - y * w));
    md[3] = 0.0;
    md[4] = s[1] * (2.0 * (x * y - z * w));
    md[5] = s[1] * (1.0 - 2.0 * (x * x + z * z));
    md[6] = s[1] * (2.0 * (y * z + x * w));
    md[7] = 0.0;
    md[8] = s[2] * (2.0 * (x * z + y * w));
    md[9] = s[2] * (2.0 * (y * z - x * w));
    md[10] = s[2] * (1.0 - 2.0 * (x * x + y * y));
    md[11] = 0.0;
    md[12] = pos[0];
    md[13] = pos[1];
    md[14] = pos[2];
    md[15] = 1.0;
    for (i = 0; i < 16; ++i) {
        if (!(md[i] >= -3.4028234663852886e38 && md[i] <= 3.4028234663852886e38)) return 2;
        m[i] = (float)md[i];
    }
    return 0;
}

ECS_DEF ecs_result ecs_resource_compile_transform(void *user, ecs_compiler_context *ctx,
                                                  const ecs_json_value *component)
{
    static const char *const known[] = {"position", "rotation", "scale", "local"};
    static const float zero3[3] = {0.0f, 0.0f, 0.0f}, one3[3] = {1.0f, 1.0f, 1.0f};
    static const float identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    const ecs_json_doc *doc = ctx->doc;
    const ecs_json_value *local, *scale;
    float m[16], pos[3], q[4], s[3];
    uint32_t words[16];
    ecs_result r;
    int i;
    (void)user;
    if ((r = ecs_compiler_check_members(ctx, component, known, 4)) != ECS_OK) return r;
    if (ecs_compiler_entity_instances(ctx) > 0)
        return ecs_compiler_error(ctx, component, "an entity has at most one transform");
    local = ecs_json_member(doc, component, "local");
    scale = ecs_json_member(doc, component, "scale");
    if (local) {
        const ecs_json_value *other = ecs_json_member(doc, component, "position");
        if (!other) other = ecs_json_member(doc, component, "rotation");
        if (!other) other = scale;
        if (other) return ecs_compiler_error(ctx, other, "give either \"local\" or position/rotation/scale, not both");
        if ((r = ecs_compiler_member_f32(ctx, component, "local", m, 16, NULL)) != ECS_OK) return r;
    } else {
        if ((r = ecs_compiler_member_f32(ctx, component, "position", pos, 3, zero3)) != ECS_OK) return r;
        if ((r = ecs_compiler_member_f32(ctx, component, "rotation", q, 4, identity)) != ECS_OK) return r;
        if (scale && scale->type == ECS_JSON_NUMBER) {
            if ((r = ecs_compiler_member_f32(ctx, component, "scale", s, 1, NULL)) != ECS_OK) return r;
            s[1] = s[2] = s[0];
        } else if ((r = ecs_compiler_member_f32(ctx, component, "scale", s, 3, one3)) != ECS_OK) {
            return r;
        }
        switch (ecs__transform_matrix(pos, q, s, m)) {
        case 1:
            return ecs_compiler_error(ctx, ecs_json_member(doc, component, "rotation"),
                                      "the rotation quaternion has zero length");
        case 2: return ecs_compiler_error(ctx, scale, "scale times rotation overflows a float");
        default: break;
        }
    }
    memcpy(words, m, sizeof words);
    if (ctx->swap)
        for (i = 0; i < 16; ++i) words[i] = ecs__res_bswap32(words[i]);
    return ecs_compiler_write(ctx, words, sizeof words);
}

static const ecs_schema_field ecs__mesh_schema[] = {ECS_RESOURCE_MESH_SCHEMA(ECS_SCHEMA_FIELD)};
static const ecs_schema_field ecs__actor_schema[] = {ECS_RESOURCE_ACTOR_SCHEMA(ECS_SCHEMA_FIELD)};

ECS_DEF ecs_result ecs_compiler_register_standard(ecs_compiler *c, ecs_error *err)
{
    ecs_result r = ecs_compiler_register(c, "transform", ecs_resource_compile_transform, NULL,
                                         ECS_RESOURCE_TRANSFORM_ORDER, err);
    if (r == ECS_OK) r = ecs_compiler_set_decompile(c, "transform", ecs_resource_decompile_transform, NULL, err);
    if (r == ECS_OK) r = ecs_compiler_register_schema(c, "mesh", ecs__mesh_schema, 2, ECS_RESOURCE_MESH_ORDER, err);
    if (r == ECS_OK) r = ecs_compiler_register_schema(c, "actor", ecs__actor_schema, 2, ECS_RESOURCE_ACTOR_ORDER, err);
    return r;
}

/* -- the compile driver -- */

typedef struct ecs__compile_frame {
    uint32_t next;      /* doc index of the next entity in this array */
    uint32_t remaining; /* entities left in this array */
    uint32_t parent;    /* resource index of their parent */
} ecs__compile_frame;

/* A block of a type nobody registered ({"type": "#0a1b2c3d", ...}: what the
   decompiler writes for such a block). */
typedef struct ecs__compile_raw {
    uint32_t identifier;
    int spawn_order;
    char name[12]; /* "#0a1b2c3d": sorts among the registered names */
    ecs__compile_block block;
} ecs__compile_raw;

/* An entity row's name when the entity has no "name". */
#define ECS__COMPILE_UNNAMED 0xFFFFFFFFu

/* What the compiler keeps of resource entity k. */
typedef struct ecs__compile_entity_row {
    uint32_t parent; /* resource index, or ECS_RESOURCE_ROOT */
    uint32_t object; /* its JSON object (doc index) */
    uint32_t name;   /* its "name" string (doc index), or ECS__COMPILE_UNNAMED */
} ecs__compile_entity_row;

typedef struct ecs__compile_state {
    ecs_compiler_context ctx;
    ecs__compile_block *blocks;      /* one per registered type */
    ecs__compile_entity_row *rows;   /* one per entity */
    uint32_t num_entities, rows_capacity;
    ecs__compile_frame *frames;
    uint32_t num_frames, frames_capacity;
    ecs__compile_raw *raws;
    uint32_t num_raws, raws_capacity;
    uint32_t flags;
} ecs__compile_state;

static ecs_result ecs__compile_unknown(ecs__compile_state *st, const ecs_json_value *type)
{
    const ecs_compiler *c = st->ctx.compiler;
    char list[200];
    size_t used = 0;
    uint32_t i, j, printed = 0;
    const char *last = "";
    list[0] = 0;
    /* the registered names in byte order (selection by "smallest above last") */
    for (i = 0; i < c->num_types && used < sizeof list; ++i) {
        const char *best = NULL;
        for (j = 0; j < c->num_types; ++j) {
            const char *n = c->types[j].name;
            if ((printed == 0 || strcmp(n, last) > 0) && (!best || strcmp(n, best) < 0)) best = n;
        }
        if (!best) break;
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", printed ? ", " : "", best);
        last = best;
        ++printed;
    }
    return ecs__compile_fail(&st->ctx, ECS_ERROR_UNKNOWN_COMPONENT, type,
                             "unknown component type '%.64s' (registered: %s)",
                             ecs_json_string(st->ctx.doc, type), c->num_types ? list : "none");
}

/* 1 when s[0..n) is "#" and 8 lowercase hexadecimal digits (a raw block's
   type, written by the decompiler); its identifier in *id. */
static int ecs__raw_type(const char *s, uint32_t n, uint32_t *id)
{
    uint32_t v = 0, k;
    if (n != 9 || s[0] != '#') return 0;
    for (k = 1; k < 9; ++k) {
        char c = s[k];
        if (c >= '0' && c <= '9') v = (v << 4) | (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v = (v << 4) | (uint32_t)(c - 'a' + 10);
        else return 0;
    }
    *id = v;
    return 1;
}

static int ecs__hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The raw block for identifier id with spawn order `order` (created when
   new), or NULL after an error at `at`. */
static ecs__compile_raw *ecs__compile_raw_block(ecs__compile_state *st, uint32_t id, int order, const ecs_json_value *at)
{
    ecs__compile_raw *raw;
    uint32_t i;
    void *np;
    for (i = 0; i < st->num_raws; ++i) {
        if (st->raws[i].identifier != id) continue;
        if (st->raws[i].spawn_order == order) return st->raws + i;
        ecs_compiler_error(&st->ctx, at, "spawn_order %d differs from the %d given before for '%s'", order,
                           st->raws[i].spawn_order, st->raws[i].name);
        return NULL;
    }
    if (!ecs__res_grow(st->raws, &st->raws_capacity, (size_t)st->num_raws + 1, sizeof *st->raws, &np)) {
        ecs__compile_fail(&st->ctx, ECS_ERROR_OUT_OF_MEMORY, at, "out of memory");
        return NULL;
    }
    st->raws = (ecs__compile_raw *)np;
    raw = st->raws + st->num_raws++;
    memset(raw, 0, sizeof *raw);
    raw->identifier = id;
    raw->spawn_order = order;
    snprintf(raw->name, sizeof raw->name, "#%08x", (unsigned)id);
    return raw;
}

/* Compiles {"type": "#0a1b2c3d", "spawn_order": n, "bytes": "hex"}: an
   instance of a block nobody registered, bytes as they are. */
static ecs_result ecs__compile_raw_component(ecs__compile_state *st, const ecs_json_value *m,
                                             const ecs_json_value *type, uint32_t id)
{
    static const char *const known[] = {"spawn_order", "bytes"};
    ecs_compiler_context *ctx = &st->ctx;
    const ecs_json_value *order = ecs_json_member(ctx->doc, m, "spawn_order"), *bytes = ecs_json_member(ctx->doc, m, "bytes");
    const char *hex = bytes && bytes->type == ECS_JSON_STRING ? ctx->doc->pool + bytes->str : "";
    const char *taken = ecs_compiler_type_name(ctx->compiler, id);
    ecs__compile_raw *raw;
    uint32_t k, n = bytes && bytes->type == ECS_JSON_STRING ? bytes->count : 0;
    ecs_result r;
    void *np;
    if ((r = ecs_compiler_check_members(ctx, m, known, 2)) != ECS_OK) return r;
    if (taken) return ecs_compiler_error(ctx, type, "'%s' is the registered component '%s': write {\"type\": \"%s\", ...}",
                                         ctx->doc->pool + type->str, taken, taken);
    if (id == ECS_RESOURCE_NAMES_ID) return ecs_compiler_error(ctx, type, "this identifier is the names block's");
    if (!order || order->type != ECS_JSON_NUMBER || !(order->flags & ECS_JSON_WHOLE) ||
        order->integer > ((order->flags & ECS_JSON_NEGATIVE) ? 2147483648u : 2147483647u))
        return ecs_compiler_error(ctx, order ? order : m, "a raw block needs \"spawn_order\", an int");
    if ((bytes && bytes->type != ECS_JSON_STRING) || (n & 1u))
        return ecs_compiler_error(ctx, bytes, "\"bytes\" must be a string of hexadecimal digit pairs");
    for (k = 0; k < n; ++k)
        if (ecs__hex_digit(hex[k]) < 0) return ecs_compiler_error(ctx, bytes, "\"bytes\": '%c' is not a hexadecimal digit", hex[k]);
    raw = ecs__compile_raw_block(st, id, (order->flags & ECS_JSON_NEGATIVE) ? (int)(0 - (int64_t)order->integer)
                                                                             : (int)order->integer, order);
    if (!raw) return ctx->error->code;
    if (!ecs__res_grow(raw->block.entity_index, &raw->block.index_capacity, (size_t)raw->block.num_instances + 1,
                       sizeof(uint32_t), &np))
        return ecs__compile_fail(ctx, ECS_ERROR_OUT_OF_MEMORY, m, "out of memory");
    raw->block.entity_index = (uint32_t *)np;
    ctx->block = &raw->block;
    for (k = 0; k < n; k += 2) {
        uint8_t b = (uint8_t)(ecs__hex_digit(hex[k]) * 16 + ecs__hex_digit(hex[k + 1]));
        if ((r = ecs_compiler_write(ctx, &b, 1)) != ECS_OK) return r;
    }
    raw->block.entity_index[raw->block.num_instances++] = ctx->entity;
    return ECS_OK;
}

/* Compiles one component object m of the current entity. */
static ecs_result ecs__compile_component(ecs__compile_state *st, const ecs_json_value *m)
{
    ecs_compiler_context *ctx = &st->ctx;
    const ecs_json_doc *doc = ctx->doc;
    const ecs_json_value *type;
    const ecs_compiler__type *t;
    ecs__compile_block *b;
    uint32_t ti, raw_id;
    ecs_result r;
    void *np;
    ctx->component = m;
    if (m->type != ECS_JSON_OBJECT)
        return ecs_compiler_error(ctx, m, "a component must be an object with a \"type\", found %s",
                                  ecs_json_type_name((ecs_json_type)m->type));
    type = ecs_json_member(doc, m, "type");
    if (!type) return ecs_compiler_error(ctx, m, "the component has no \"type\"");
    if (type->type != ECS_JSON_STRING) return ecs_compiler_error(ctx, type, "\"type\" must be a string naming a component");
    ti = ecs__compiler_find(ctx->compiler, doc->pool + type->str, type->count);
    if (ti == ECS__RESOURCE_NOT_REGISTERED) {
        if (ecs__raw_type(doc->pool + type->str, type->count, &raw_id))
            return ecs__compile_raw_component(st, m, type, raw_id);
        return ecs__compile_unknown(st, type);
    }
    t = ctx->compiler->types + ti;
    b = st->blocks + ti;
    ctx->block = b;
    if (b->num_instances == b->index_capacity) {
        if (!ecs__res_grow(b->entity_index, &b->index_capacity, (size_t)b->num_instances + 1, sizeof(uint32_t), &np))
            return ecs__compile_fail(ctx, ECS_ERROR_OUT_OF_MEMORY, m, "out of memory");
        b->entity_index = (uint32_t *)np;
    }
    ecs_error_clear(ctx->error);
    r = t->fn(t->user, ctx, m);
    if (r != ECS_OK) {
        if (ctx->error->code == ECS_OK)
            ecs__compile_fail(ctx, r, m, "the compile function of '%s' failed: %s", t->name, ecs_result_text(r));
        return r;
    }
    b->entity_index[b->num_instances++] = ctx->entity;
    return ECS_OK;
}

/* Gives entity k (object ent, name value or NULL, parent) its tables' rows. */
static ecs_result ecs__compile_add_entity(ecs__compile_state *st, const ecs_json_value *ent, const ecs_json_value *name,
                                          uint32_t parent)
{
    uint32_t k = st->num_entities;
    void *np;
    if (k >= ECS_RESOURCE_ROOT - 1u) return ecs_compiler_error(&st->ctx, ent, "too many entities");
    if (k == st->rows_capacity) {
        if (!ecs__res_grow(st->rows, &st->rows_capacity, (size_t)k + 1, sizeof *st->rows, &np))
            return ecs__compile_fail(&st->ctx, ECS_ERROR_OUT_OF_MEMORY, ent, "out of memory");
        st->rows = (ecs__compile_entity_row *)np;
    }
    st->rows[k].parent = parent;
    st->rows[k].object = (uint32_t)(ent - st->ctx.doc->values);
    st->rows[k].name = name ? (uint32_t)(name - st->ctx.doc->values) : ECS__COMPILE_UNNAMED;
    st->num_entities = k + 1;
    st->ctx.entity = k;
    return ECS_OK;
}

/* Compiles entity `ent` (resource index = st->num_entities) and returns its
   non-empty "children" array in *children (or NULL). */
static ecs_result ecs__compile_entity(ecs__compile_state *st, const ecs_json_value *ent, uint32_t parent,
                                      const ecs_json_value **children)
{
    ecs_compiler_context *ctx = &st->ctx;
    const ecs_json_doc *doc = ctx->doc;
    const ecs_json_value *m, *components = NULL, *name = NULL;
    uint32_t i;
    ecs_result r;
    *children = NULL;
    ctx->component = NULL;
    if (ent->type != ECS_JSON_OBJECT)
        return ecs_compiler_error(ctx, ent, "an entity must be an object, found %s",
                                  ecs_json_type_name((ecs_json_type)ent->type));
    for (i = 0, m = ent + 1; i < ent->count; ++i, m = doc->values + m->next) {
        const char *key = doc->pool + m->key;
        if (ecs__json_duplicate(doc, ent, m)) return ecs_compiler_error(ctx, m, "member '%.64s' appears twice", key);
        if (m->key_length == 4 && memcmp(key, "name", 4) == 0) {
            if (m->type != ECS_JSON_STRING) return ecs_compiler_error(ctx, m, "an entity's name must be a string");
            name = m;
        } else if (m->key_length == 10 && memcmp(key, "components", 10) == 0) {
            if (m->type != ECS_JSON_ARRAY) return ecs_compiler_error(ctx, m, "\"components\" must be an array");
            components = m;
        } else if (m->key_length == 8 && memcmp(key, "children", 8) == 0) {
            if (m->type != ECS_JSON_ARRAY) return ecs_compiler_error(ctx, m, "\"children\" must be an array");
            if (m->count) *children = m;
        } else {
            return ecs_compiler_error(ctx, m, "unknown member '%.64s' in an entity (known: name, components, children)",
                                      key);
        }
    }
    if ((r = ecs__compile_add_entity(st, ent, name, parent)) != ECS_OK || !components) return r;
    for (i = 0, m = components + 1; i < components->count; ++i, m = doc->values + m->next)
        if ((r = ecs__compile_component(st, m)) != ECS_OK) return r;
    return ECS_OK;
}

/* An entity name for resolving references. */
typedef struct ecs__compile_name {
    const char *s;
    uint32_t n, entity;
} ecs__compile_name;

/* Byte order of the names, then entity order. */
static int ecs__compile_name_cmp(const void *a, const void *b)
{
    const ecs__compile_name *x = (const ecs__compile_name *)a, *y = (const ecs__compile_name *)b;
    int c = memcmp(x->s, y->s, x->n < y->n ? x->n : y->n);
    if (c) return c;
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    return (x->entity > y->entity) - (x->entity < y->entity);
}

/* Resolves every entity reference (ecs_compiler_write_entity) by name. */
static ecs_result ecs__compile_resolve(ecs__compile_state *st)
{
    ecs_compiler_context *ctx = &st->ctx;
    const ecs_json_doc *doc = ctx->doc;
    ecs__compile_name *all;
    uint32_t n = 0, k, f;
    ecs_result r = ECS_OK;
    if (!ctx->num_fixups) return ECS_OK;
    all = (ecs__compile_name *)ECS__REALLOC(NULL, (size_t)(st->num_entities ? st->num_entities : 1) * sizeof *all);
    if (!all) return ecs_error_set(ctx->error, ECS_ERROR_OUT_OF_MEMORY, "compiler: out of memory resolving names");
    for (k = 0; k < st->num_entities; ++k) {
        if (st->rows[k].name == ECS__COMPILE_UNNAMED) continue;
        all[n].s = doc->pool + doc->values[st->rows[k].name].str;
        all[n].n = doc->values[st->rows[k].name].count;
        all[n++].entity = k;
    }
    qsort(all, n, sizeof *all, ecs__compile_name_cmp);
    ctx->component = NULL;
    for (f = 0; f < ctx->num_fixups && r == ECS_OK; ++f) {
        const ecs_json_value *v = doc->values + ctx->fixups[f].value;
        ecs__compile_name key;
        uint32_t lo = 0, hi = n;
        key.s = doc->pool + v->str, key.n = v->count, key.entity = 0;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2u;
            if (ecs__compile_name_cmp(all + mid, &key) < 0) lo = mid + 1u;
            else hi = mid;
        }
        if (lo == n || all[lo].n != key.n || memcmp(all[lo].s, key.s, key.n) != 0) {
            r = ecs_compiler_error(ctx, v, "no entity of this resource is called '%.64s'", key.s);
        } else if (lo + 1u < n && all[lo + 1u].n == key.n && memcmp(all[lo + 1u].s, key.s, key.n) == 0) {
            char a[96], b[96];
            ecs_json_path(doc, doc->values + st->rows[all[lo].entity].object, a, sizeof a);
            ecs_json_path(doc, doc->values + st->rows[all[lo + 1u].entity].object, b, sizeof b);
            r = ecs_compiler_error(ctx, v, "the name '%.64s' is ambiguous: %s and %s both have it", key.s, a, b);
        } else {
            ecs__res_wr32(ctx->fixups[f].block->data + ctx->fixups[f].offset, all[lo].entity, ctx->swap);
        }
    }
    ECS__FREE(all);
    return r;
}

/* Byte order of the paths (canonical paths hold no NUL). */
static int ecs__compile_dep_cmp(const void *a, const void *b)
{
    const ecs__compile_dep *x = (const ecs__compile_dep *)a, *y = (const ecs__compile_dep *)b;
    return ecs__path_order(x->path, x->length, y->path, y->length);
}

/* One block of the output, in the order blocks are written. */
typedef struct ecs__compile_ref {
    int spawn_order;
    const char *name;
    uint32_t identifier;
    const ecs__compile_block *block;
} ecs__compile_ref;

/* The blocks in use, registered and raw, by spawn order then name
   (insertion sort: few types). Returns how many. */
static uint32_t ecs__compile_order(const ecs__compile_state *st, ecs__compile_ref *refs)
{
    const ecs_compiler *c = st->ctx.compiler;
    uint32_t n = 0, i, j, total = c->num_types + st->num_raws;
    for (i = 0; i < total; ++i) {
        ecs__compile_ref r;
        if (i < c->num_types) {
            r.spawn_order = c->types[i].spawn_order, r.name = c->types[i].name;
            r.identifier = c->types[i].identifier, r.block = st->blocks + i;
        } else {
            const ecs__compile_raw *raw = st->raws + (i - c->num_types);
            r.spawn_order = raw->spawn_order, r.name = raw->name, r.identifier = raw->identifier, r.block = &raw->block;
        }
        if (!r.block->num_instances) continue;
        for (j = n; j > 0; --j) {
            const ecs__compile_ref *u = refs + j - 1;
            if (u->spawn_order < r.spawn_order || (u->spawn_order == r.spawn_order && strcmp(u->name, r.name) < 0)) break;
            refs[j] = refs[j - 1];
        }
        refs[j] = r;
        ++n;
    }
    return n;
}

/* The names block's data (NAMES BLOCK): its size, and when p is non-NULL
   its bytes (and the named entities' indices at index). */
static uint64_t ecs__compile_names(const ecs__compile_state *st, unsigned char *p, uint32_t *index, uint32_t *named)
{
    const ecs_compiler_context *ctx = &st->ctx;
    uint64_t size = 4;
    uint32_t k, n = 0;
    if (p) ecs__res_wr32(p, ctx->num_deps, ctx->swap), p += 4;
    for (k = 0; k < st->num_entities; ++k) {
        const ecs_json_value *v;
        if (st->rows[k].name == ECS__COMPILE_UNNAMED) continue;
        v = ctx->doc->values + st->rows[k].name;
        size += 4u + (uint64_t)v->count;
        if (p) {
            index[n] = k;
            ecs__res_wr32(p, v->count, ctx->swap);
            memcpy(p + 4, ctx->doc->pool + v->str, v->count);
            p += 4u + v->count;
        }
        ++n;
    }
    for (k = 0; k < ctx->num_deps; ++k) {
        size += 4u + (uint64_t)ctx->deps[k].length;
        if (p) {
            ecs__res_wr32(p, ctx->deps[k].length, ctx->swap);
            memcpy(p + 4, ctx->deps[k].path, ctx->deps[k].length);
            p += 4u + ctx->deps[k].length;
        }
    }
    *named = n;
    return size;
}

/* Writes one block at p; returns where the next one starts. */
static unsigned char *ecs__compile_write_block(unsigned char *p, uint32_t id, uint32_t ni, const uint32_t *index,
                                               const unsigned char *data, uint32_t size, int swap)
{
    uint32_t k, pad = (4u - (size & 3u)) & 3u;
    ecs__res_wr32(p, id, swap);
    ecs__res_wr32(p + 4, ni, swap);
    ecs__res_wr32(p + 8, size, swap);
    p += ECS_RESOURCE_BLOCK_HEADER_SIZE;
    for (k = 0; k < ni; ++k, p += 4) ecs__res_wr32(p, index[k], swap);
    if (size) memcpy(p, data, size);
    p += size;
    for (k = 0; k < pad; ++k) *p++ = 0;
    return p;
}

/* The sorted dependency list, packed into one allocation, into out. */
static ecs_result ecs__compile_dep_list(ecs_compiler_context *ctx, ecs_compiler_output *out)
{
    size_t bytes = 0;
    char *strings;
    const char **list;
    uint32_t i;
    if (!ctx->num_deps) return ECS_OK;
    for (i = 0; i < ctx->num_deps; ++i) bytes += ctx->deps[i].length + 1u;
    list = (const char **)ECS__REALLOC(NULL, ctx->num_deps * sizeof(char *) + bytes);
    if (!list) return ecs__compile_fail(ctx, ECS_ERROR_OUT_OF_MEMORY, NULL, "out of memory for the dependency list");
    strings = (char *)(list + ctx->num_deps);
    for (i = 0; i < ctx->num_deps; ++i) {
        memcpy(strings, ctx->deps[i].path, ctx->deps[i].length);
        strings[ctx->deps[i].length] = 0;
        list[i] = strings;
        strings += ctx->deps[i].length + 1u;
    }
    out->dependency = list;
    out->num_dependencies = ctx->num_deps;
    return ECS_OK;
}

/* Builds the blob and the dependency list from the finished state. */
static ecs_result ecs__compile_finish(ecs__compile_state *st, ecs_compiler_output *out)
{
    ecs_compiler_context *ctx = &st->ctx;
    uint32_t nrefs = ctx->compiler->num_types + st->num_raws, nblocks, i, k, named = 0, *named_index = NULL;
    uint64_t total = ECS_RESOURCE_HEADER_SIZE + 4ull * st->num_entities, names_size = 0;
    ecs__compile_ref *refs = (ecs__compile_ref *)ECS__REALLOC(NULL, (nrefs ? nrefs : 1u) * sizeof *refs);
    unsigned char *blob, *p;
    int with_names;
    ctx->component = NULL;
    if (!refs) return ecs__compile_fail(ctx, ECS_ERROR_OUT_OF_MEMORY, NULL, "out of memory");
    nblocks = ecs__compile_order(st, refs);
    for (i = 0; i < nblocks; ++i)
        total += ECS_RESOURCE_BLOCK_HEADER_SIZE + 4ull * refs[i].block->num_instances + ((refs[i].block->size + 3ull) & ~3ull);
    if (ctx->num_deps) qsort(ctx->deps, ctx->num_deps, sizeof *ctx->deps, ecs__compile_dep_cmp);
    if ((with_names = (st->flags & ECS_COMPILER_NAMES) != 0)) {
        names_size = ecs__compile_names(st, NULL, NULL, &named);
        with_names = named || ctx->num_deps; /* nothing to name: no block */
        if (with_names) total += ECS_RESOURCE_BLOCK_HEADER_SIZE + 4ull * named + ((names_size + 3u) & ~3ull);
    }
    if (total > 0xFFFFFFFFull) {
        ECS__FREE(refs);
        return ecs__compile_fail(ctx, ECS_ERROR_COMPILE, NULL, "the resource would be %llu bytes, more than 4 GiB",
                                 (unsigned long long)total);
    }
    blob = (unsigned char *)ECS__REALLOC(NULL, (size_t)total);
    if (with_names && blob) named_index = (uint32_t *)ECS__REALLOC(NULL, 4u * (size_t)named + (size_t)names_size);
    if (!blob || (with_names && !named_index)) {
        ECS__FREE(refs);
        ECS__FREE(blob);
        return ecs__compile_fail(ctx, ECS_ERROR_OUT_OF_MEMORY, NULL, "out of memory for a %lu-byte blob",
                                 (unsigned long)total);
    }
    memcpy(blob, "ECSR", 4);
    ecs__res_wr32(blob + 4, ECS_RESOURCE_VERSION, ctx->swap);
    ecs__res_wr32(blob + 8, ECS_RESOURCE_BYTE_ORDER_MARK, ctx->swap);
    ecs__res_wr32(blob + 12, (uint32_t)total, ctx->swap);
    ecs__res_wr32(blob + 16, st->num_entities, ctx->swap);
    ecs__res_wr32(blob + 20, nblocks + (with_names ? 1u : 0u), ctx->swap);
    p = blob + ECS_RESOURCE_HEADER_SIZE;
    for (k = 0; k < st->num_entities; ++k, p += 4) ecs__res_wr32(p, st->rows[k].parent, ctx->swap);
    for (i = 0; i < nblocks; ++i)
        p = ecs__compile_write_block(p, refs[i].identifier, refs[i].block->num_instances, refs[i].block->entity_index,
                                     refs[i].block->data, refs[i].block->size, ctx->swap);
    if (with_names) { /* named_index: the named entities, then the block's data */
        unsigned char *data = (unsigned char *)(named_index + named);
        ecs__compile_names(st, data, named_index, &named);
        ecs__compile_write_block(p, ECS_RESOURCE_NAMES_ID, named, named_index, data, (uint32_t)names_size, ctx->swap);
    }
    ECS__FREE(refs);
    ECS__FREE(named_index);
    if (ecs__compile_dep_list(ctx, out) != ECS_OK) {
        ECS__FREE(blob);
        return ctx->error->code;
    }
    out->blob = blob;
    out->size = (uint32_t)total;
    return ECS_OK;
}

/* The root object's "entities" array, or an error. */
static ecs_result ecs__compile_root(ecs__compile_state *st, const ecs_json_value **entities)
{
    const ecs_json_doc *doc = st->ctx.doc;
    const ecs_json_value *root = ecs_json_root(doc), *m;
    uint32_t i;
    *entities = NULL;
    if (root->type != ECS_JSON_OBJECT)
        return ecs_compiler_error(&st->ctx, root, "a resource is an object {\"entities\": [...]}, found %s",
                                  ecs_json_type_name((ecs_json_type)root->type));
    for (i = 0, m = root + 1; i < root->count; ++i, m = doc->values + m->next) {
        if (m->key_length != 8 || memcmp(doc->pool + m->key, "entities", 8) != 0)
            return ecs_compiler_error(&st->ctx, m, "unknown member '%.64s' (a resource has only \"entities\")",
                                      doc->pool + m->key);
        if (*entities) return ecs_compiler_error(&st->ctx, m, "member 'entities' appears twice");
        *entities = m;
    }
    if (!*entities) return ecs_compiler_error(&st->ctx, root, "missing member 'entities' (an array of entities)");
    if ((*entities)->type != ECS_JSON_ARRAY)
        return ecs_compiler_error(&st->ctx, *entities, "\"entities\" must be an array, found %s",
                                  ecs_json_type_name((ecs_json_type)(*entities)->type));
    return ECS_OK;
}

/* Pushes a frame for the entities of array arr (children of parent). */
static ecs_result ecs__compile_push(ecs__compile_state *st, const ecs_json_value *arr, uint32_t parent)
{
    ecs__compile_frame *f;
    void *np;
    if (!ecs__res_grow(st->frames, &st->frames_capacity, (size_t)st->num_frames + 1, sizeof *st->frames, &np))
        return ecs_error_set(st->ctx.error, ECS_ERROR_OUT_OF_MEMORY, "compiler: out of memory");
    st->frames = (ecs__compile_frame *)np;
    f = st->frames + st->num_frames++;
    f->next = (uint32_t)(arr - st->ctx.doc->values) + 1u;
    f->remaining = arr->count;
    f->parent = parent;
    return ECS_OK;
}

/* Compiles every entity, depth-first: an entity, then its children, then
   its next sibling; then checks the prefab rule. */
static ecs_result ecs__compile_walk(ecs__compile_state *st, const ecs_json_value *entities)
{
    const ecs_json_doc *doc = st->ctx.doc;
    ecs_result r;
    uint32_t i, roots = 0;
    if (entities->count && (r = ecs__compile_push(st, entities, ECS_RESOURCE_ROOT)) != ECS_OK) return r;
    while (st->num_frames) {
        ecs__compile_frame *f = st->frames + st->num_frames - 1;
        const ecs_json_value *ent, *children;
        uint32_t parent = f->parent;
        if (f->remaining == 0) {
            --st->num_frames;
            continue;
        }
        ent = doc->values + f->next;
        f->next = ent->next;
        --f->remaining;
        if ((r = ecs__compile_entity(st, ent, parent, &children)) != ECS_OK) return r;
        if (children && (r = ecs__compile_push(st, children, st->num_entities - 1u)) != ECS_OK) return r;
    }
    if (!(st->flags & ECS_COMPILER_PREFAB)) return ECS_OK;
    for (i = 0; i < st->num_entities; ++i) roots += st->rows[i].parent == ECS_RESOURCE_ROOT;
    if (roots == 1) return ECS_OK;
    st->ctx.component = NULL;
    return ecs_compiler_error(&st->ctx, entities, "a prefab has exactly one root entity, this has %u", (unsigned)roots);
}

/* Compiles parsed doc (the text of json) into out; with collect (out
   NULL) lists the references instead: walks, but resolves and writes
   nothing (ecs_compiler_references). */
static ecs_result ecs__compile_run(const ecs_compiler *c, const ecs_json_doc *doc, const char *json, size_t len,
                                   uint32_t flags, ecs_compiler_output *out, struct ecs__ref_collect *collect,
                                   ecs_error *err)
{
    ecs__compile_state st;
    const ecs_json_value *entities = NULL;
    ecs_result r = ECS_OK;
    uint32_t i;
    memset(&st, 0, sizeof st);
    st.ctx.compiler = c;
    st.ctx.doc = doc;
    st.ctx.collect = collect;
    st.ctx.text = json;
    st.ctx.text_length = len;
    st.ctx.big_endian = (flags & ECS_COMPILER_BIG_ENDIAN) != 0;
    st.ctx.swap = st.ctx.big_endian != ecs__res_host_big_endian();
    st.ctx.error = err;
    st.flags = flags;
    if (c->num_types) {
        st.blocks = (ecs__compile_block *)ECS__REALLOC(NULL, c->num_types * sizeof *st.blocks);
        if (!st.blocks) r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "compiler: out of memory");
        else memset(st.blocks, 0, c->num_types * sizeof *st.blocks);
    }
    if (r == ECS_OK) r = ecs__compile_root(&st, &entities);
    if (r == ECS_OK) r = ecs__compile_walk(&st, entities);
    if (r == ECS_OK && !collect) r = ecs__compile_resolve(&st);
    if (r == ECS_OK && !collect) r = ecs__compile_finish(&st, out);
    if (r == ECS_OK) ecs_error_clear(err);
    for (i = 0; st.blocks && i < c->num_types; ++i) {
        ECS__FREE(st.blocks[i].data);
        ECS__FREE(st.blocks[i].entity_index);
    }
    for (i = 0; i < st.num_raws; ++i) {
        ECS__FREE(st.raws[i].block.data);
        ECS__FREE(st.raws[i].block.entity_index);
    }
    ECS__FREE(st.blocks);
    ECS__FREE(st.raws);
    ECS__FREE(st.rows);
    ECS__FREE(st.frames);
    ECS__FREE(st.ctx.deps);
    ECS__FREE(st.ctx.dep_slots);
    ECS__FREE(st.ctx.fixups);
    return r;
}

ECS_DEF ecs_result ecs_compiler_compile(const ecs_compiler *c, const char *json, size_t len, uint32_t flags,
                                        ecs_compiler_output *out, ecs_error *err)
{
    ecs_json_doc doc;
    ecs_error local;
    ecs_result r;
    if (!err) err = &local;
    if (out) memset(out, 0, sizeof *out);
    if (!c || !out || (!json && len))
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_compiler_compile: NULL argument");
    if (flags & ~(ECS_COMPILER_BIG_ENDIAN | ECS_COMPILER_PREFAB | ECS_COMPILER_NAMES))
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_compiler_compile: unknown flags 0x%X",
                             (unsigned)flags);
    memset(&doc, 0, sizeof doc);
    if ((r = ecs_json_parse(&doc, json, len, err)) == ECS_OK) r = ecs__compile_run(c, &doc, json, len, flags, out, NULL, err);
    ecs_json_doc_free(&doc);
    return r;
}

ECS_DEF void ecs_compiler_output_free(ecs_compiler_output *out)
{
    if (!out) return;
    ECS__FREE(out->blob);
    ECS__FREE((void *)out->dependency);
    memset(out, 0, sizeof *out);
}

/* ---- NAMES BLOCK --------------------------------------------------------- */

/* Reads the u32 at data + *pos (the names block's data, n bytes) into *v;
   0 when it does not fit. */
static int ecs__names_u32(const unsigned char *data, uint32_t n, uint32_t *pos, int swap, uint32_t *v)
{
    if (*pos > n || n - *pos < 4u) return 0;
    *v = ecs__res_rd32(data + *pos, swap);
    *pos += 4u;
    return 1;
}

/* Walks a names block's data: checks it (see NAMES BLOCK) and, when out is
   non-NULL, fills the tables. *strings: bytes the strings need (with NULs). */
static ecs_result ecs__names_walk(const unsigned char *b, const ecs_resource_block *blk, int swap,
                                  ecs_resource_names *out, char *strings, size_t *string_bytes, uint32_t *num_paths,
                                  ecs_error *err)
{
    const unsigned char *data = (const unsigned char *)blk->data;
    uint32_t pos = 0, j, len, np, prev_at = 0, prev_len = 0, data_off = (uint32_t)(data - b);
    size_t bytes = 0;
    if (!ecs__names_u32(data, blk->size, &pos, swap, &np))
        return ECS__RES_CORRUPT("offset %u (names block): no room for the path count", (unsigned)data_off);
    /* every name and path takes at least its 4-byte length: counts the block
       cannot hold are refused before anything is read or allocated (and
       their sum, below 2^30 then, cannot wrap) */
    if ((uint64_t)blk->num_instances + np > (blk->size - pos) / 4u)
        return ECS__RES_CORRUPT("offset %u (names block): %u names and %u paths need at least %llu bytes, the block "
                                "has %u", (unsigned)data_off, (unsigned)blk->num_instances, (unsigned)np,
                                4ull * ((uint64_t)blk->num_instances + np) + 4u, (unsigned)blk->size);
    for (j = 0; j < blk->num_instances + np; ++j) {
        uint32_t at = pos;
        int is_path = j >= blk->num_instances;
        if (!ecs__names_u32(data, blk->size, &pos, swap, &len) || blk->size - pos < len)
            return ECS__RES_CORRUPT("offset %u (names block %s %u): the length runs past the block", (unsigned)(data_off + at),
                                    is_path ? "path" : "name", (unsigned)(is_path ? j - blk->num_instances : j));
        if (!is_path && !ecs__utf8_valid(data + pos, len))
            return ECS__RES_CORRUPT("offset %u (names block name %u): not UTF-8", (unsigned)(data_off + pos), (unsigned)j);
        if (is_path && (!ecs__path_is_canonical((const char *)data + pos, len) ||
                        (j > blk->num_instances &&
                         ecs__path_order((const char *)data + prev_at, prev_len, (const char *)data + pos, len) >= 0)))
            return ECS__RES_CORRUPT("offset %u (names block path %u): not a canonical path in order",
                                    (unsigned)(data_off + pos), (unsigned)(j - blk->num_instances));
        if (!is_path && j > 0 && ecs__res_rd32((const unsigned char *)(blk->entity_index + j), swap) <=
                                     ecs__res_rd32((const unsigned char *)(blk->entity_index + j - 1), swap))
            return ECS__RES_CORRUPT("offset %u (names block entity_index[%u]): entities out of order",
                                    (unsigned)(blk->offset + 12u + 4u * j), (unsigned)j);
        if (out) {
            char *copy = (char *)memcpy(strings + bytes, data + pos, len);
            copy[len] = 0;
            if (is_path) {
                out->path[j - blk->num_instances] = copy;
                out->path_hash[j - blk->num_instances] = ecs__fnv1a64(copy, len);
            } else {
                uint32_t k = ecs__res_rd32((const unsigned char *)(blk->entity_index + j), swap);
                out->entity[k] = copy;
                out->entity_length[k] = len;
            }
        }
        prev_at = pos, prev_len = len;
        pos += len;
        bytes += (size_t)len + 1u;
    }
    if (pos != blk->size)
        return ECS__RES_CORRUPT("offset %u (names block): %u bytes left over", (unsigned)(data_off + pos),
                                (unsigned)(blk->size - pos));
    *string_bytes = bytes;
    *num_paths = np;
    return ECS_OK;
}

/* Finds the names block of a blob verified in order `swap`: its block in
   *blk (native header values), or 0. More than one is an error (-1). */
static int ecs__names_find(const unsigned char *b, int swap, ecs_resource_block *blk)
{
    uint32_t nt = ecs__res_rd32(b + 20, swap), off = ECS_RESOURCE_HEADER_SIZE + 4u * ecs__res_rd32(b + 16, swap), t;
    int found = 0;
    for (t = 0; t < nt; ++t) {
        uint32_t id = ecs__res_rd32(b + off, swap), ni = ecs__res_rd32(b + off + 4, swap);
        uint32_t sz = ecs__res_rd32(b + off + 8, swap);
        if (id == ECS_RESOURCE_NAMES_ID) {
            if (found) return -1;
            found = 1;
            blk->identifier = id, blk->num_instances = ni, blk->size = sz, blk->offset = off;
            blk->entity_index = (const uint32_t *)(const void *)(b + off + ECS_RESOURCE_BLOCK_HEADER_SIZE);
            blk->data = b + off + ECS_RESOURCE_BLOCK_HEADER_SIZE + 4u * ni;
        }
        off += ECS_RESOURCE_BLOCK_HEADER_SIZE + 4u * ni + ((sz + 3u) & ~3u);
        if (found) blk->next = off;
    }
    return found;
}

/* Finds and checks the names block of a blob verified in order `swap`
   (*found: 0 none, 1 in *blk with its string bytes and path count). */
static ecs_result ecs__names_check(const unsigned char *b, int swap, ecs_resource_block *blk, int *found,
                                   size_t *string_bytes, uint32_t *num_paths, ecs_error *err)
{
    *found = ecs__names_find(b, swap, blk);
    *string_bytes = 0, *num_paths = 0;
    if (*found < 0) return ECS__RES_CORRUPT("offset 20 (num_component_types): more than one names block");
    return *found ? ecs__names_walk(b, blk, swap, NULL, NULL, string_bytes, num_paths, err) : ECS_OK;
}

/* Swaps the data of a checked names block in order `swap` (its words:
   num_paths and each name's and path's length) to the other order. */
static void ecs__names_swap(unsigned char *data, uint32_t num_names, int swap)
{
    uint32_t pos = 4, j, n = num_names + ecs__res_rd32(data, swap);
    ecs__res_swap_words(data, 1);
    for (j = 0; j < n; ++j) {
        uint32_t len = ecs__res_rd32(data + pos, swap);
        ecs__res_swap_words(data + pos, 1);
        pos += 4u + len;
    }
}

typedef struct ecs__hash_index {
    uint64_t hash;
    uint32_t index;
} ecs__hash_index;

static int ecs__hash_index_cmp(const void *a, const void *b)
{
    const ecs__hash_index *x = (const ecs__hash_index *)a, *y = (const ecs__hash_index *)b;
    return x->hash < y->hash ? -1 : x->hash > y->hash ? 1 : (x->index > y->index) - (x->index < y->index);
}

/* Allocates and fills out's tables for ne entities and a names block blk
   (NULL: none) already checked by ecs__names_walk. */
static ecs_result ecs__names_fill(const unsigned char *b, const ecs_resource_block *blk, uint32_t ne, int swap,
                                  size_t string_bytes, uint32_t np, ecs_resource_names *out, ecs_error *err)
{
    uint64_t wide = (uint64_t)ne * (sizeof(char *) + 4u) + (uint64_t)np * (sizeof(char *) + 8u + 4u) + string_bytes + 8u;
    size_t bytes = (size_t)wide; /* checked below: a 32-bit size_t may not hold it */
    unsigned char *mem = wide <= (size_t)-1 ? (unsigned char *)ECS__REALLOC(NULL, bytes) : NULL;
    ecs__hash_index *order = NULL;
    uint32_t *by_hash;
    size_t dummy;
    uint32_t i, dummy_np;
    if (!mem || (np && !(order = (ecs__hash_index *)ECS__REALLOC(NULL, np * sizeof *order)))) {
        ECS__FREE(mem);
        return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "names: out of memory");
    }
    memset(mem, 0, bytes);
    out->memory = mem;
    out->path_hash = (uint64_t *)(void *)mem; /* the 8-byte aligned things first */
    out->entity = (const char **)(void *)(mem + (size_t)np * 8u);
    out->path = out->entity + ne;
    out->entity_length = (uint32_t *)(void *)(out->path + np);
    out->num_entities = ne;
    out->num_paths = np;
    out->present = blk != NULL;
    by_hash = out->entity_length + ne;
    out->path_by_hash = by_hash;
    if (blk) ecs__names_walk(b, blk, swap, out, (char *)(by_hash + np), &dummy, &dummy_np, err);
    for (i = 0; i < np; ++i) order[i].hash = out->path_hash[i], order[i].index = i;
    if (np) qsort(order, np, sizeof *order, ecs__hash_index_cmp);
    for (i = 0; i < np; ++i) by_hash[i] = order[i].index;
    ECS__FREE(order);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_resource_names_read(const void *blob, size_t size, ecs_resource_names *out, ecs_error *err)
{
    const unsigned char *b = (const unsigned char *)blob;
    ecs_resource_block blk;
    size_t string_bytes = 0;
    uint32_t np = 0, ne;
    int swap = 0, found;
    ecs_result r;
    if (!out) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_resource_names_read: out is NULL");
    memset(out, 0, sizeof *out);
    if (b && size >= 12 && !((uintptr_t)b & 3u) && ecs__res_rd32(b + 8, 0) == 0x04030201u) swap = 1;
    if ((r = ecs__resource_verify(b, size, swap, err)) != ECS_OK) return r;
    ne = ecs__res_rd32(b + 16, swap);
    if ((r = ecs__names_check(b, swap, &blk, &found, &string_bytes, &np, err)) != ECS_OK) return r;
    return ecs__names_fill(b, found ? &blk : NULL, ne, swap, string_bytes, np, out, err);
}

ECS_DEF const char *ecs_resource_names_path(const ecs_resource_names *names, uint64_t hash)
{
    uint32_t lo = 0, hi;
    if (!names) return NULL;
    hi = names->num_paths;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (names->path_hash[names->path_by_hash[mid]] < hash) lo = mid + 1u;
        else hi = mid;
    }
    return lo < names->num_paths && names->path_hash[names->path_by_hash[lo]] == hash
               ? names->path[names->path_by_hash[lo]]
               : NULL;
}

ECS_DEF void ecs_resource_names_free(ecs_resource_names *names)
{
    if (!names) return;
    ECS__FREE(names->memory);
    memset(names, 0, sizeof *names);
}

/* ---- DECOMPILER ---------------------------------------------------------- */

/* -- the JSON text, the context, and what decompile functions call -- */

/* The JSON text being written (dry: only counted). */
typedef struct ecs__jout {
    char *buf;
    size_t len, cap;
    int oom, dry;
} ecs__jout;

static void ecs__jout_add(ecs__jout *o, const char *s, size_t n)
{
    if (o->oom || o->dry) return;
    if (n >= (size_t)-1 - o->len) {
        o->oom = 1;
        return;
    }
    if (o->len + n + 1u > o->cap) {
        size_t cap = ecs__res_grown_capacity(o->cap ? o->cap : 4096u, o->len + n + 1u, 1, (size_t)-1);
        char *nb = cap ? (char *)ECS__REALLOC(o->buf, cap) : NULL;
        if (!nb) {
            o->oom = 1;
            return;
        }
        o->buf = nb;
        o->cap = cap;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = 0;
}

static void ecs__jout_text(ecs__jout *o, const char *s)
{
    ecs__jout_add(o, s, strlen(s));
}

static void ecs__jout_indent(ecs__jout *o, uint32_t levels)
{
    static const char spaces[] = "                                ";
    uint32_t n = 2u * levels;
    while (n) {
        uint32_t k = n < 32u ? n : 32u;
        ecs__jout_add(o, spaces, k);
        n -= k;
    }
}

/* s[0..n) as a JSON string (UTF-8 passes through; controls, '"' and '\'
   escaped). */
static void ecs__jout_string(ecs__jout *o, const char *s, uint32_t n)
{
    uint32_t i, run = 0;
    ecs__jout_add(o, "\"", 1);
    for (i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        ecs__jout_add(o, s + run, i - run);
        if (c == '"' || c == '\\') snprintf(esc, sizeof esc, "\\%c", (char)c);
        else snprintf(esc, sizeof esc, "\\u%04x", (unsigned)c);
        ecs__jout_text(o, esc);
        run = i + 1u;
    }
    ecs__jout_add(o, s + run, n - run);
    ecs__jout_add(o, "\"", 1);
}

/* The shortest "%.Ng" text of v (N from 1 to 17) that reads back as v
   (as a float when is_float), with '.' whatever the locale says; no
   exponent for magnitudes from 1e-4 to 1e15 (90, not 9e+01). */
static void ecs__format_number(char *buf, size_t size, double v, int is_float)
{
    int prec, plain = (v >= 1e-4 && v < 1e15) || (v <= -1e-4 && v > -1e15);
    for (prec = 1; prec <= 17; ++prec) {
        double back = 0.0;
        float fback = 0.0f;
        snprintf(buf, size, "%.*g", prec, v);
        if (plain && prec < 17 && strchr(buf, 'e')) continue;
        ecs__number_dot(buf);
        ecs__json_strtod((const unsigned char *)buf, (const unsigned char *)buf + strlen(buf), &back,
                         is_float ? &fback : NULL); /* a float as the compiler reads it: the nearest */
        if (is_float ? fback == (float)v : back == v) break;
    }
}

/* One block of the blob being decompiled. */
typedef struct ecs__dblock {
    uint32_t identifier, num_instances, size, offset, data_offset; /* offsets in the blob */
    const unsigned char *index, *data;  /* entity_index words and instance data (blob order) */
    const ecs_compiler__type *type;     /* NULL: nobody registered it (a raw block) */
    int spawn_order;
    char raw_name[12];
    uint32_t cursor, at, run_start;     /* next instance, its data offset, first instance of its entity */
} ecs__dblock;

struct ecs_decompile_context {
    const ecs_compiler *compiler;
    ecs__jout *out;
    const ecs_resource_names *names;
    int swap, big_endian, lenient;  /* lenient: one instance for a listing, no round trip promised */
    uint32_t flags;
    uint32_t num_entities, entity, instances, members, offset;
    const char *type_name;
    const uint8_t *unique;          /* names block: 1 when entity k's name is unique */
    uint8_t *referenced;            /* no names block: entities some component refers to */
    uint8_t *path_used;             /* names block: paths some component wrote */
    ecs_error *error;
};

static int ecs__decompile_all_members(const ecs_decompile_context *ctx)
{
    return (ctx->flags & ECS_DECOMPILE_ALL_MEMBERS) != 0;
}

ECS_DEF int ecs_decompile_big_endian(const ecs_decompile_context *ctx) { return ctx->big_endian; }
ECS_DEF uint32_t ecs_decompile_entity_index(const ecs_decompile_context *ctx) { return ctx->entity; }
ECS_DEF uint32_t ecs_decompile_entity_instances(const ecs_decompile_context *ctx) { return ctx->instances; }

ECS_DEF uint32_t ecs_decompile_read_u32(const ecs_decompile_context *ctx, const void *p)
{
    return ecs__res_rd32((const unsigned char *)p, ctx->swap);
}

ECS_DEF uint64_t ecs_decompile_read_u64(const ecs_decompile_context *ctx, const void *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return ctx->swap ? ecs__res_bswap64(v) : v;
}

ECS_DEF float ecs_decompile_read_f32(const ecs_decompile_context *ctx, const void *p)
{
    uint32_t bits = ecs_decompile_read_u32(ctx, p);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

ECS_DEF double ecs_decompile_read_f64(const ecs_decompile_context *ctx, const void *p)
{
    uint64_t bits = ecs_decompile_read_u64(ctx, p);
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

ECS_DEF ecs_result ecs_decompile_error(ecs_decompile_context *ctx, const char *format, ...)
{
    char what[192];
    va_list ap;
    va_start(ap, format);
    vsnprintf(what, sizeof what, format, ap);
    va_end(ap);
    return ecs_error_set(ctx->error, ECS_ERROR_DECOMPILE, "offset %u (block '%s', resource entity %u): %s", (unsigned)ctx->offset,
                         ctx->type_name ? ctx->type_name : "?", (unsigned)ctx->entity, what);
}

ECS_DEF ecs_result ecs_decompile_member(ecs_decompile_context *ctx, const char *key)
{
    if (ctx->members++) ecs__jout_add(ctx->out, ", ", 2);
    ecs__jout_string(ctx->out, key, (uint32_t)strlen(key));
    ecs__jout_add(ctx->out, ": ", 2);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_decompile_f32(ecs_decompile_context *ctx, const float *v, uint32_t n)
{
    char buf[40];
    uint32_t k;
    for (k = 0; k < n; ++k)
        if (!(v[k] >= -FLT_MAX && v[k] <= FLT_MAX))
            return ecs_decompile_error(ctx, "a float that is not finite (JSON has no NaN or infinity)");
    if (n != 1) ecs__jout_add(ctx->out, "[", 1);
    for (k = 0; k < n; ++k) {
        ecs__format_number(buf, sizeof buf, (double)v[k], 1);
        if (k) ecs__jout_add(ctx->out, ", ", 2);
        ecs__jout_text(ctx->out, buf);
    }
    if (n != 1) ecs__jout_add(ctx->out, "]", 1);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_decompile_f64(ecs_decompile_context *ctx, double v)
{
    char buf[40];
    if (!(v >= -DBL_MAX && v <= DBL_MAX))
        return ecs_decompile_error(ctx, "a double that is not finite (JSON has no NaN or infinity)");
    ecs__format_number(buf, sizeof buf, v, 0);
    ecs__jout_text(ctx->out, buf);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_decompile_int(ecs_decompile_context *ctx, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    ecs__jout_text(ctx->out, buf);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_decompile_uint(ecs_decompile_context *ctx, uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    ecs__jout_text(ctx->out, buf);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_decompile_bool(ecs_decompile_context *ctx, int v)
{
    ecs__jout_text(ctx->out, v ? "true" : "false");
    return ECS_OK;
}

ECS_DEF ecs_result ecs_decompile_string(ecs_decompile_context *ctx, const char *s, uint32_t n)
{
    if (!ecs__utf8_valid((const unsigned char *)s, n)) return ecs_decompile_error(ctx, "a string that is not UTF-8");
    ecs__jout_string(ctx->out, s, n);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_decompile_raw(ecs_decompile_context *ctx, const char *json)
{
    ecs__jout_text(ctx->out, json);
    return ECS_OK;
}

/* ecs__decompile_find_path's "the names block has no path with this hash". */
#define ECS__RESOURCE_NO_PATH 0xFFFFFFFFu

/* The names block's index of the path with hash h, or ECS__RESOURCE_NO_PATH. */
static uint32_t ecs__decompile_find_path(const ecs_decompile_context *ctx, uint64_t h)
{
    const char *p = ecs_resource_names_path(ctx->names, h);
    uint32_t i;
    if (!p) return ECS__RESOURCE_NO_PATH;
    for (i = 0; ctx->names->path[i] != p; ++i) {}
    return i;
}

ECS_DEF ecs_result ecs_decompile_path(ecs_decompile_context *ctx, uint64_t hash)
{
    uint32_t i = ecs__decompile_find_path(ctx, hash);
    char buf[24];
    if (i != ECS__RESOURCE_NO_PATH) {
        if (ctx->path_used) ctx->path_used[i] = 1;
        ecs__jout_string(ctx->out, ctx->names->path[i], (uint32_t)strlen(ctx->names->path[i]));
        return ECS_OK;
    }
    snprintf(buf, sizeof buf, "#%016llx", (unsigned long long)hash);
    ecs__jout_string(ctx->out, buf, 17);
    return ECS_OK;
}

ECS_DEF ecs_result ecs_decompile_entity(ecs_decompile_context *ctx, uint32_t index)
{
    const ecs_resource_names *nm = ctx->names;
    char buf[16];
    if (index == ECS_RESOURCE_ROOT) {
        ecs__jout_text(ctx->out, "null");
        return ECS_OK;
    }
    if (index >= ctx->num_entities && !ctx->lenient)
        return ecs_decompile_error(ctx, "a reference to resource entity %u, the resource has %u", (unsigned)index,
                                   (unsigned)ctx->num_entities);
    if (index < nm->num_entities && nm->entity[index] && (ctx->lenient || ctx->unique[index])) {
        ecs__jout_string(ctx->out, nm->entity[index], nm->entity_length[index]);
        return ECS_OK;
    }
    if (nm->present && !ctx->lenient)
        return ecs_decompile_error(ctx, "resource entity %u is referred to, but its name is %s", (unsigned)index,
                                   nm->entity[index] ? "not unique" : "missing from the names block");
    if (ctx->referenced) ctx->referenced[index] = 1;
    snprintf(buf, sizeof buf, "#%u", (unsigned)index);
    ecs__jout_text(ctx->out, "\"");
    ecs__jout_text(ctx->out, buf);
    ecs__jout_text(ctx->out, "\"");
    return ECS_OK;
}

/* -- the decompile functions of schemas and of the transform -- */

/* Writes field f's value (native bytes) as JSON; refuses what would not
   compile back to the same bytes. */
static ecs_result ecs__schema_write_value(ecs_decompile_context *ctx, const ecs__schema_slot *f,
                                          const unsigned char *bytes)
{
    char why[160];
    int32_t iv;
    uint32_t uv;
    uint64_t lv;
    double dv;
    if (!ecs__schema_value_ok(f, bytes, why, sizeof why)) return ecs_decompile_error(ctx, "%s", why);
    switch (f->kind) {
    case ECS_FIELD_F64: memcpy(&dv, bytes, 8); return ecs_decompile_f64(ctx, dv);
    case ECS_FIELD_I32: memcpy(&iv, bytes, 4); return ecs_decompile_int(ctx, iv);
    case ECS_FIELD_U32: memcpy(&uv, bytes, 4); return ecs_decompile_uint(ctx, uv);
    case ECS_FIELD_U64: memcpy(&lv, bytes, 8); return ecs_decompile_uint(ctx, lv);
    case ECS_FIELD_I8: case ECS_FIELD_U8: case ECS_FIELD_I16: case ECS_FIELD_U16: {
        int neg;
        lv = ecs__schema_int_at(f->kind, bytes, &neg);
        return neg ? ecs_decompile_int(ctx, -(int64_t)lv) : ecs_decompile_uint(ctx, lv);
    }
    case ECS_FIELD_BOOL: return ecs_decompile_bool(ctx, bytes[0]);
    case ECS_FIELD_PATH: memcpy(&lv, bytes, 8); return ecs_decompile_path(ctx, lv);
    case ECS_FIELD_ENTITY: memcpy(&uv, bytes, 4); return ecs_decompile_entity(ctx, uv);
    default: {
        float v[16];
        memcpy(v, bytes, ecs_field_kind_size(f->kind));
        return ecs_decompile_f32(ctx, v, ecs__kind_elements(f->kind));
    }
    }
}

/* 1 when field f holding `bytes` (native) may be left out: the compiler
   gives it the same bytes (and, with a names block, the same dependency). */
static int ecs__schema_is_default(ecs_decompile_context *ctx, const ecs__schema_slot *f, const unsigned char *bytes)
{
    uint32_t i;
    if (f->required || (ctx->flags & ECS_DECOMPILE_ALL_MEMBERS) || memcmp(bytes, f->initial, f->size) != 0) return 0;
    if (!f->initial_path || !ctx->names->present) return 1;
    i = ecs__decompile_find_path(ctx, ecs__fnv1a64(f->initial_path, f->initial_path_length));
    if (i == ECS__RESOURCE_NO_PATH) return 0; /* written as "#hash": no dependency */
    if (ctx->path_used) ctx->path_used[i] = 1;
    return 1;
}

/* The decompile function of every schema type (user: its ecs__schema_info). */
static ecs_result ecs__schema_decompile(void *user, ecs_decompile_context *ctx, const void *data, uint32_t size,
                                        uint32_t *used)
{
    const ecs__schema_info *si = (const ecs__schema_info *)user;
    uint32_t k;
    ecs_result r;
    if (size < si->record_size)
        return ecs_decompile_error(ctx, "a record has %u bytes, %u are left", (unsigned)si->record_size, (unsigned)size);
    for (k = 0; k < si->num_fields; ++k) {
        const ecs__schema_slot *f = si->fields + k;
        unsigned char bytes[64];
        if (f->runtime) continue;
        ecs__schema_order(f->kind, bytes, (const unsigned char *)data + f->offset, ctx->swap);
        if (ecs__schema_is_default(ctx, f, bytes)) continue;
        if ((r = ecs_decompile_member(ctx, f->name)) != ECS_OK || (r = ecs__schema_write_value(ctx, f, bytes)) != ECS_OK)
            return r;
    }
    *used = si->record_size;
    return ECS_OK;
}

/* The rotation of a matrix whose rows are scaled rotation rows (scale s),
   as a quaternion with w >= 0. */
static void ecs__transform_rotation(const float m[16], const double s[3], double q[4])
{
    double r[3][3], t;
    int i, j;
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 3; ++j) r[i][j] = m[i * 4 + j] / s[i];
    t = r[0][0] + r[1][1] + r[2][2];
    if (t > 0.0) {
        double w = sqrt(1.0 + t) * 0.5;
        q[0] = (r[1][2] - r[2][1]) / (4.0 * w), q[1] = (r[2][0] - r[0][2]) / (4.0 * w);
        q[2] = (r[0][1] - r[1][0]) / (4.0 * w), q[3] = w;
    } else if (r[0][0] >= r[1][1] && r[0][0] >= r[2][2]) {
        double x = sqrt(1.0 + r[0][0] - r[1][1] - r[2][2]) * 0.5;
        q[0] = x, q[1] = (r[0][1] + r[1][0]) / (4.0 * x);
        q[2] = (r[0][2] + r[2][0]) / (4.0 * x), q[3] = (r[1][2] - r[2][1]) / (4.0 * x);
    } else if (r[1][1] >= r[2][2]) {
        double y = sqrt(1.0 - r[0][0] + r[1][1] - r[2][2]) * 0.5;
        q[0] = (r[0][1] + r[1][0]) / (4.0 * y), q[1] = y;
        q[2] = (r[1][2] + r[2][1]) / (4.0 * y), q[3] = (r[2][0] - r[0][2]) / (4.0 * y);
    } else {
        double z = sqrt(1.0 - r[0][0] - r[1][1] + r[2][2]) * 0.5;
        q[0] = (r[0][2] + r[2][0]) / (4.0 * z), q[1] = (r[1][2] + r[2][1]) / (4.0 * z);
        q[2] = z, q[3] = (r[0][1] - r[1][0]) / (4.0 * z);
    }
    if (q[3] < 0.0)
        for (i = 0; i < 4; ++i) q[i] = -q[i];
}

/* v rounded to `decimals` places (8: v itself), as a float. */
static float ecs__round_decimals(double v, int decimals)
{
    double scale = 1.0;
    int i;
    if (decimals >= 8) return (float)v;
    for (i = 0; i < decimals; ++i) scale *= 10.0;
    return (float)(floor(v * scale + 0.5) / scale);
}

/* 1 when the matrix of pos, q, s is m bit for bit. When it equals m only
   by value, the signs of q's zero elements (and of q itself) are tried too:
   they decide the signs of m's zeros. */
static int ecs__transform_same(const float m[16], const float pos[3], float q[4], const float s[3])
{
    float test[16], base[4];
    int i, pattern, zeros = 0, by_value = 1;
    if (ecs__transform_matrix(pos, q, s, test) != 0) return 0;
    if (memcmp(test, m, sizeof test) == 0) return 1;
    for (i = 0; i < 16; ++i) by_value &= test[i] == m[i];
    for (i = 0; i < 4; ++i) zeros |= (q[i] == 0.0f) << i;
    if (!by_value || !zeros) return 0;
    memcpy(base, q, sizeof base);
    for (pattern = 1; pattern < 32; ++pattern) { /* bit 4: negate q; bits 0..3: flip a zero's sign */
        if (pattern & 15 & ~zeros) continue;
        for (i = 0; i < 4; ++i) q[i] = (pattern & 16 ? -base[i] : base[i]) * ((pattern >> i) & 1 ? -1.0f : 1.0f);
        if (ecs__transform_matrix(pos, q, s, test) == 0 && memcmp(test, m, sizeof test) == 0) return 1;
    }
    memcpy(q, base, sizeof base);
    return 0;
}

/* 1 when position, rotation q (scaled by 1 + stretch before rounding to
   `decimals` places) and one of the scale roundings compile to exactly m. */
static int ecs__transform_try(const float m[16], const float pos[3], const double sd[3], const double qd[4],
                              int decimals, double stretch, float q[4], float s[3])
{
    int i, sa;
    for (sa = 1; sa <= 8; ++sa) {
        for (i = 0; i < 4; ++i) q[i] = ecs__round_decimals(qd[i] * (1.0 + stretch), decimals);
        for (i = 0; i < 3; ++i) s[i] = ecs__round_decimals(sd[i], sa);
        if (ecs__transform_same(m, pos, q, s)) return 1;
    }
    return 0;
}

/* Finds position, rotation and scale that compile to exactly m, preferring
   short numbers: rounded to 1..7 decimals (the rotation also as written
   slightly off unit length, since the compiler normalises it), then as they
   are. 1 if found. */
static int ecs__transform_decompose(const float m[16], float pos[3], float q[4], float s[3])
{
    double sd[3], qd[4];
    int i, qa, k;
    if (m[3] != 0.0f || m[7] != 0.0f || m[11] != 0.0f || m[15] != 1.0f) return 0;
    for (i = 0; i < 3; ++i) {
        double a = m[i * 4], b = m[i * 4 + 1], c = m[i * 4 + 2];
        sd[i] = sqrt(a * a + b * b + c * c);
        if (!(sd[i] > 0.0) || !(sd[i] < 3.0e38)) return 0;
        pos[i] = m[12 + i];
    }
    ecs__transform_rotation(m, sd, qd);
    for (qa = 1; qa <= 8; ++qa)
        for (k = 0; k <= (qa < 8 ? 16 : 0); ++k)
            if (ecs__transform_try(m, pos, sd, qd, qa, (k & 1 ? -1e-7 : 1e-7) * (double)((k + 1) / 2), q, s)) return 1;
    return 0;
}

ECS_DEF ecs_result ecs_resource_decompile_transform(void *user, ecs_decompile_context *ctx, const void *data,
                                                    uint32_t size, uint32_t *used)
{
    static const float zero3[3] = {0.0f, 0.0f, 0.0f}, identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    float m[16], pos[3], q[4], s[3];
    int k, all = ecs__decompile_all_members(ctx);
    ecs_result r = ECS_OK;
    (void)user;
    if (size < ECS_RESOURCE_TRANSFORM_SIZE)
        return ecs_decompile_error(ctx, "a transform has 64 bytes, %u are left", (unsigned)size);
    if (ecs_decompile_entity_instances(ctx) > 0) return ecs_decompile_error(ctx, "an entity has at most one transform");
    for (k = 0; k < 16; ++k) m[k] = ecs_decompile_read_f32(ctx, (const unsigned char *)data + 4 * k);
    *used = ECS_RESOURCE_TRANSFORM_SIZE;
    if (!ecs__transform_decompose(m, pos, q, s))
        return (r = ecs_decompile_member(ctx, "local")) != ECS_OK ? r : ecs_decompile_f32(ctx, m, 16);
    if ((all || memcmp(pos, zero3, sizeof pos) != 0) &&
        ((r = ecs_decompile_member(ctx, "position")) != ECS_OK || (r = ecs_decompile_f32(ctx, pos, 3)) != ECS_OK))
        return r;
    if ((all || memcmp(q, identity, sizeof q) != 0) &&
        ((r = ecs_decompile_member(ctx, "rotation")) != ECS_OK || (r = ecs_decompile_f32(ctx, q, 4)) != ECS_OK))
        return r;
    if (all || s[0] != 1.0f || s[1] != 1.0f || s[2] != 1.0f)
        r = (r = ecs_decompile_member(ctx, "scale")) != ECS_OK ? r
            : ecs_decompile_f32(ctx, s, s[0] == s[1] && s[1] == s[2] ? 1u : 3u);
    return r;
}

/* -- the decompile driver -- */

/* Writes a raw block's next instance: its spawn order and its bytes as hex
   (equal shares when the size divides, else all of them on the first). */
static void ecs__decompile_raw(ecs_decompile_context *ctx, const ecs__dblock *b, uint32_t *used)
{
    static const char digits[] = "0123456789abcdef";
    uint32_t n = b->size % b->num_instances == 0 ? b->size / b->num_instances : b->cursor == 0 ? b->size : 0, k, fill = 0;
    char buf[64];
    ecs_decompile_member(ctx, "spawn_order");
    ecs_decompile_int(ctx, b->spawn_order);
    if (n) {
        ecs_decompile_member(ctx, "bytes");
        ecs__jout_add(ctx->out, "\"", 1);
        for (k = 0; k < n; ++k) {
            buf[fill++] = digits[b->data[b->at + k] >> 4];
            buf[fill++] = digits[b->data[b->at + k] & 15u];
            if (fill == sizeof buf || k + 1u == n) ecs__jout_add(ctx->out, buf, fill), fill = 0;
        }
        ecs__jout_add(ctx->out, "\"", 1);
    }
    *used = n;
}

/* Writes block b's next instance as a component object. */
static ecs_result ecs__decompile_component(ecs_decompile_context *ctx, ecs__dblock *b)
{
    uint32_t used = 0, left = b->size - b->at;
    ecs_result r = ECS_OK;
    if (b->cursor == 0 || ecs__res_rd32(b->index + 4u * (b->cursor - 1u), ctx->swap) != ctx->entity)
        b->run_start = b->cursor;
    ctx->instances = b->cursor - b->run_start;
    ctx->members = 1;
    ctx->offset = b->data_offset + b->at;
    ctx->type_name = b->type ? b->type->name : b->raw_name;
    ecs__jout_text(ctx->out, "{\"type\": ");
    ecs__jout_string(ctx->out, ctx->type_name, (uint32_t)strlen(ctx->type_name));
    if (b->type) r = b->type->decompile(b->type->decompile_user, ctx, b->data + b->at, left, &used);
    else ecs__decompile_raw(ctx, b, &used);
    if (r != ECS_OK) return r;
    if (used > left) return ecs_decompile_error(ctx, "the decompile function used %u of %u bytes", (unsigned)used, (unsigned)left);
    if (b->cursor + 1u == b->num_instances && used != left)
        return ecs_decompile_error(ctx, "%u bytes follow the block's last instance", (unsigned)(left - used));
    ecs__jout_add(ctx->out, "}", 1);
    b->at += used;
    ++b->cursor;
    return ECS_OK;
}

/* Reads the blob's blocks into blocks[] (the names block left out) and checks
   what the compiler always does: every block has instances, identifiers are
   unique, registered types can be decompiled, instances follow entity order,
   blocks follow spawn order then name, the names block comes last. Raw blocks
   get the spawn order that puts them where they are. */
static ecs_result ecs__decompile_blocks(ecs_decompile_context *ctx, const unsigned char *b, ecs__dblock *blocks,
                                        uint32_t *nb)
{
    uint32_t nt = ecs__res_rd32(b + 20, ctx->swap), off = ECS_RESOURCE_HEADER_SIZE + 4u * ctx->num_entities, t, j, n = 0;
    for (t = 0; t < nt; ++t) {
        ecs__dblock *d = blocks + n;
        uint32_t at;
        memset(d, 0, sizeof *d);
        d->identifier = ecs__res_rd32(b + off, ctx->swap), d->num_instances = ecs__res_rd32(b + off + 4, ctx->swap);
        d->size = ecs__res_rd32(b + off + 8, ctx->swap), d->offset = off;
        d->index = b + off + ECS_RESOURCE_BLOCK_HEADER_SIZE;
        d->data_offset = off + ECS_RESOURCE_BLOCK_HEADER_SIZE + 4u * d->num_instances;
        d->data = b + d->data_offset;
        off = d->data_offset + ((d->size + 3u) & ~3u);
        ctx->offset = d->offset;
        ctx->type_name = NULL;
        if (d->identifier == ECS_RESOURCE_NAMES_ID) {
            if (t + 1u != nt) return ecs_decompile_error(ctx, "the names block is not the last block");
            if (!d->num_instances && !ctx->names->num_paths)
                return ecs_decompile_error(ctx, "a names block with no names and no paths (the compiler leaves it out)");
            continue;
        }
        at = ecs__res_lower(ctx->compiler->types, ctx->compiler->num_types, sizeof *ctx->compiler->types, d->identifier);
        if (at < ctx->compiler->num_types && ctx->compiler->types[at].identifier == d->identifier) {
            d->type = ctx->compiler->types + at, d->spawn_order = d->type->spawn_order, ctx->type_name = d->type->name;
            if (!d->type->decompile) return ecs_decompile_error(ctx, "'%s' has no decompile function", d->type->name);
        }
        snprintf(d->raw_name, sizeof d->raw_name, "#%08x", (unsigned)d->identifier);
        if (!d->num_instances) return ecs_decompile_error(ctx, "a block without instances (the compiler writes none)");
        for (j = 0; j < n; ++j)
            if (blocks[j].identifier == d->identifier) return ecs_decompile_error(ctx, "a second block of this type");
        for (j = 1; j < d->num_instances; ++j)
            if (ecs__res_rd32(d->index + 4u * j, ctx->swap) < ecs__res_rd32(d->index + 4u * (j - 1u), ctx->swap))
                return ecs_decompile_error(ctx, "instances out of entity order at entity_index[%u]", (unsigned)j);
        ++n;
    }
    *nb = n;
    return ECS_OK;
}

static const char *ecs__dblock_name(const ecs__dblock *d)
{
    return d->type ? d->type->name : d->raw_name;
}

/* Gives the raw blocks of run [i, j) spawn orders that sort them where they
   are: as high as the registered block after the run allows, or (no block
   after) as low as the one before allows. 0 when int has no room. */
static int ecs__decompile_run_order(ecs__dblock *blocks, uint32_t i, uint32_t j, uint32_t n)
{
    const char *next = j < n ? ecs__dblock_name(blocks + j) : NULL, *prev = i ? ecs__dblock_name(blocks + i - 1u) : NULL;
    int64_t o = j < n ? blocks[j].spawn_order : i ? blocks[i - 1u].spawn_order : 0;
    uint32_t k;
    if (next) {
        for (k = j; k-- > i; next = blocks[k].raw_name) {
            if (strcmp(blocks[k].raw_name, next) >= 0) --o; /* the same order needs a smaller name */
            if (o < INT_MIN) return 0;
            blocks[k].spawn_order = (int)o;
        }
        return 1;
    }
    for (k = i; k < j; prev = blocks[k++].raw_name) {
        if (prev && strcmp(blocks[k].raw_name, prev) <= 0) ++o;
        if (o > INT_MAX) return 0;
        blocks[k].spawn_order = (int)o;
    }
    return 1;
}

/* Gives raw blocks the spawn orders that keep them where they are and checks
   that every block sorts after the one before it. */
static ecs_result ecs__decompile_order(ecs_decompile_context *ctx, ecs__dblock *blocks, uint32_t n)
{
    uint32_t i = 0, j, run = 0;
    int fits = 1;
    while (i < n && fits) {
        for (j = i; j < n && !blocks[j].type; ++j) {}
        if (j > i) fits = ecs__decompile_run_order(blocks, run = i, j, n);
        i = j > i ? j : i + 1u;
    }
    for (i = 1; fits && i < n; ++i) {
        const ecs__dblock *d = blocks + i, *prev = blocks + i - 1u;
        if (!(prev->spawn_order < d->spawn_order ||
              (prev->spawn_order == d->spawn_order && strcmp(ecs__dblock_name(prev), ecs__dblock_name(d)) < 0)))
            break;
    }
    if (fits && i >= n) return ECS_OK;
    if (!fits) i = run;
    ctx->offset = blocks[i].offset;
    ctx->type_name = ecs__dblock_name(blocks + i);
    return ecs_decompile_error(ctx, "the block does not sort after the one before it (spawn order, then name)");
}

/* Writes entity k's members: its name and its components. *wrote: 1 when
   it wrote any. */
static ecs_result ecs__decompile_members(ecs_decompile_context *ctx, ecs__dblock *blocks, uint32_t nb, uint32_t k,
                                         uint32_t level, int *wrote)
{
    const ecs_resource_names *nm = ctx->names;
    uint32_t i, written = 0;
    int named = nm->entity[k] != NULL || (!nm->present && ctx->referenced && ctx->referenced[k]);
    ecs_result r;
    ctx->entity = k;
    if (nm->entity[k]) {
        ecs__jout_text(ctx->out, "\"name\": ");
        ecs__jout_string(ctx->out, nm->entity[k], nm->entity_length[k]);
    } else if (named) {
        char buf[24];
        snprintf(buf, sizeof buf, "\"name\": \"#%u\"", (unsigned)k);
        ecs__jout_text(ctx->out, buf);
    }
    for (i = 0; i < nb; ++i) {
        ecs__dblock *d = blocks + i;
        while (d->cursor < d->num_instances && ecs__res_rd32(d->index + 4u * d->cursor, ctx->swap) == k) {
            if (written++) ecs__jout_add(ctx->out, ",\n", 2);
            else ecs__jout_text(ctx->out, named ? ", \"components\": [\n" : "\"components\": [\n");
            ecs__jout_indent(ctx->out, level + 2u);
            if ((r = ecs__decompile_component(ctx, d)) != ECS_OK) return r;
        }
    }
    if (written) {
        ecs__jout_add(ctx->out, "\n", 1);
        ecs__jout_indent(ctx->out, level + 1u);
        ecs__jout_add(ctx->out, "]", 1);
    }
    *wrote = named || written;
    return ECS_OK;
}

/* Closes the entity open at `level` (and its children array). open[level]:
   bit 0 its children array is open, bit 1 it has members. */
static void ecs__decompile_close(ecs_decompile_context *ctx, const uint8_t *open, uint32_t level)
{
    if (open[level] & 1u) {
        ecs__jout_add(ctx->out, "\n", 1);
        ecs__jout_indent(ctx->out, level + 1u);
        ecs__jout_add(ctx->out, "]}", 2);
    } else {
        ecs__jout_add(ctx->out, "}", 1);
    }
}

/* Writes the entity tree (one pass over the entities in index order, which
   must be depth-first: each parent is on the path to the entity before). */
static ecs_result ecs__decompile_tree(ecs_decompile_context *ctx, const unsigned char *b, ecs__dblock *blocks,
                                      uint32_t nb, uint32_t *stack, uint8_t *open, uint32_t max_levels)
{
    uint32_t k, sp = 0;
    int wrote = 0;
    ecs_result r;
    ecs__jout_text(ctx->out, "{\"entities\": [");
    for (k = 0; k < ctx->num_entities; ++k) {
        uint32_t p = ecs__res_rd32(b + ECS_RESOURCE_HEADER_SIZE + 4u * k, ctx->swap);
        while (sp && stack[sp - 1u] != p) ecs__decompile_close(ctx, open, --sp);
        ctx->entity = k, ctx->type_name = "(entities)", ctx->offset = ECS_RESOURCE_HEADER_SIZE + 4u * k;
        if (p != ECS_RESOURCE_ROOT && sp == 0)
            return ecs_decompile_error(ctx, "entities are not in depth-first order (resource entity %u is not an "
                                            "ancestor of resource entity %u)", (unsigned)p, (unsigned)(k - 1u));
        if (sp >= max_levels)
            return ecs_decompile_error(ctx, "entities nest deeper than JSON of depth %d can hold", ECS_JSON_MAX_DEPTH);
        if (sp) {
            ecs__jout_text(ctx->out, (open[sp - 1u] & 1u) ? ",\n" : (open[sp - 1u] & 2u) ? ", \"children\": [\n"
                                                                                        : "\"children\": [\n");
            open[sp - 1u] |= 1u;
        } else {
            ecs__jout_text(ctx->out, k ? ",\n" : "\n");
        }
        ecs__jout_indent(ctx->out, sp + 1u);
        ecs__jout_add(ctx->out, "{", 1);
        if ((r = ecs__decompile_members(ctx, blocks, nb, k, sp, &wrote)) != ECS_OK) return r;
        stack[sp] = k;
        open[sp++] = (uint8_t)(wrote ? 2u : 0u);
    }
    while (sp) ecs__decompile_close(ctx, open, --sp);
    ecs__jout_text(ctx->out, "\n]}\n");
    return ECS_OK;
}

/* Marks the entities whose names are unique in the names block (unique[]). */
static ecs_result ecs__decompile_unique(const ecs_resource_names *nm, uint8_t *unique)
{
    ecs__compile_name *all;
    uint32_t k, n = 0;
    if (!nm->num_entities) return ECS_OK;
    all = (ecs__compile_name *)ECS__REALLOC(NULL, nm->num_entities * sizeof *all);
    if (!all) return ECS_ERROR_OUT_OF_MEMORY;
    for (k = 0; k < nm->num_entities; ++k)
        if (nm->entity[k]) all[n].s = nm->entity[k], all[n].n = nm->entity_length[k], all[n++].entity = k;
    qsort(all, n, sizeof *all, ecs__compile_name_cmp);
    for (k = 0; k < n; ++k) {
        int same_before = k > 0 && all[k - 1u].n == all[k].n && memcmp(all[k - 1u].s, all[k].s, all[k].n) == 0;
        int same_after = k + 1u < n && all[k + 1u].n == all[k].n && memcmp(all[k + 1u].s, all[k].s, all[k].n) == 0;
        unique[all[k].entity] = (uint8_t)!(same_before || same_after);
    }
    ECS__FREE(all);
    return ECS_OK;
}

/* One pass over the blob: the entity tree with its components (dry: only
   checks and notes which entities are referred to). An entity at level L
   (roots: 0) is an object at nesting depth 3 + 2L of the text, so levels
   past (ECS_JSON_MAX_DEPTH - 1) / 2 are refused here; its components nest
   deeper still (ecs__decompile_too_deep checks the text). */
static ecs_result ecs__decompile_pass(ecs_decompile_context *ctx, const unsigned char *b, ecs__dblock *blocks,
                                      uint32_t nb, uint32_t *stack, uint8_t *open, int dry)
{
    uint32_t i, max_levels = (ECS_JSON_MAX_DEPTH - 1) / 2;
    for (i = 0; i < nb; ++i) blocks[i].cursor = blocks[i].at = blocks[i].run_start = 0;
    ctx->out->dry = dry;
    return ecs__decompile_tree(ctx, b, blocks, nb, stack, open, max_levels);
}

/* Refuses a decompiled text (JSON the writer made: strings escaped) that
   nests deeper than the JSON reader takes, which a component nested deep
   in the entity tree can make: what compiles decompiles, and the other way. */
static ecs_result ecs__decompile_too_deep(const char *text, size_t len, ecs_error *err)
{
    size_t i;
    uint32_t depth = 0, line, column;
    int in_string = 0;
    for (i = 0; i < len; ++i) {
        char ch = text[i];
        if (in_string) {
            if (ch == '\\') ++i;
            else if (ch == '"') in_string = 0;
        } else if (ch == '"') {
            in_string = 1;
        } else if (ch == '[' || ch == '{') {
            if (++depth <= ECS_JSON_MAX_DEPTH) continue;
            ecs__res_text_position(text, len, i, &line, &column);
            return ecs_error_set(err, ECS_ERROR_DECOMPILE, "line %u, column %u of the text: nesting deeper than the "
                                 "JSON reader takes (ECS_JSON_MAX_DEPTH %d); the entities nest too deep for their "
                                 "components", (unsigned)line, (unsigned)column, ECS_JSON_MAX_DEPTH);
        } else if (ch == ']' || ch == '}') {
            --depth;
        }
    }
    return ECS_OK;
}

/* Compiles the decompiled text and compares it with the blob. */
static ecs_result ecs__decompile_check(const ecs_compiler *c, const ecs_decompile_output *out, const void *blob,
                                       size_t size, ecs_error *err)
{
    ecs_compiler_output again;
    ecs_result r = ecs_compiler_compile(c, out->json, out->length, out->compile_flags, &again, err);
    size_t k = 0;
    if (r == ECS_ERROR_OUT_OF_MEMORY) return r; /* err says so already */
    if (r != ECS_OK) {
        char why[sizeof err->message]; /* err->message may not be an argument of its own ecs_error_set */
        memcpy(why, err->message, sizeof why);
        return ecs_error_set(err, ECS_ERROR_DECOMPILE, "the decompiled text does not compile: %.200s", why);
    }
    while (k < size && k < again.size && ((const unsigned char *)blob)[k] == ((const unsigned char *)again.blob)[k]) ++k;
    r = k == size && again.size == size ? ECS_OK
        : ecs_error_set(err, ECS_ERROR_DECOMPILE, "the decompiled text compiles to other bytes (%u, not %u; first "
                        "difference at offset %lu)", (unsigned)again.size, (unsigned)size, (unsigned long)k);
    ecs_compiler_output_free(&again);
    return r;
}

/* The scratch a decompile needs, in one allocation. */
typedef struct ecs__decompile_scratch {
    ecs__dblock *blocks;
    uint32_t *stack;
    uint8_t *open, *unique, *referenced, *path_used;
} ecs__decompile_scratch;

static void *ecs__decompile_alloc(ecs__decompile_scratch *s, uint32_t nt, uint32_t ne, uint32_t np)
{
    uint32_t levels = ECS_JSON_MAX_DEPTH / 2 + 2;
    uint64_t wide = (uint64_t)(nt ? nt : 1u) * sizeof(ecs__dblock) + (uint64_t)levels * 5u + 3u * (uint64_t)ne + np + 16u;
    size_t bytes = (size_t)wide; /* checked: a 32-bit size_t may not hold it */
    unsigned char *mem = wide <= (size_t)-1 ? (unsigned char *)ECS__REALLOC(NULL, bytes) : NULL;
    if (!mem) return NULL;
    memset(mem, 0, bytes);
    s->blocks = (ecs__dblock *)(void *)mem;
    s->stack = (uint32_t *)(void *)(s->blocks + (nt ? nt : 1u));
    s->open = (uint8_t *)(s->stack + levels);
    s->unique = s->open + levels;
    s->referenced = s->unique + ne;
    s->path_used = s->referenced + ne;
    return mem;
}

ECS_DEF ecs_result ecs_compiler_decompile(const ecs_compiler *c, const void *blob, size_t size, uint32_t flags,
                                          ecs_decompile_output *out, ecs_error *err)
{
    const unsigned char *b = (const unsigned char *)blob;
    ecs_decompile_context ctx;
    ecs__decompile_scratch s;
    ecs_resource_names names;
    ecs__jout jout;
    ecs_error local;
    uint32_t nb = 0, i;
    void *mem = NULL;
    ecs_result r;
    if (!err) err = &local;
    if (out) memset(out, 0, sizeof *out);
    memset(&s, 0, sizeof s);
    if (!c || !out || (flags & ~(ECS_DECOMPILE_ALL_MEMBERS | ECS_DECOMPILE_CHECK)))
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_compiler_decompile: NULL argument or unknown flags");
    if ((r = ecs_resource_names_read(blob, size, &names, err)) != ECS_OK) return r; /* verifies */
    memset(&ctx, 0, sizeof ctx);
    memset(&jout, 0, sizeof jout);
    ctx.compiler = c, ctx.out = &jout, ctx.names = &names, ctx.flags = flags, ctx.error = err;
    ctx.swap = ecs__res_rd32(b + 8, 0) != ECS_RESOURCE_BYTE_ORDER_MARK;
    ctx.big_endian = ecs__res_host_big_endian() != ctx.swap;
    ctx.num_entities = names.num_entities;
    if (!(mem = ecs__decompile_alloc(&s, ecs__res_rd32(b + 20, ctx.swap), names.num_entities, names.num_paths)) ||
        ecs__decompile_unique(&names, s.unique) != ECS_OK)
        r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "decompile: out of memory");
    if (r == ECS_OK && (r = ecs__decompile_blocks(&ctx, b, s.blocks, &nb)) == ECS_OK)
        r = ecs__decompile_order(&ctx, s.blocks, nb);
    ctx.unique = s.unique;
    ctx.path_used = names.present ? s.path_used : NULL;
    ctx.referenced = names.present ? NULL : s.referenced;
    if (r == ECS_OK && !names.present) r = ecs__decompile_pass(&ctx, b, s.blocks, nb, s.stack, s.open, 1);
    if (r == ECS_OK) r = ecs__decompile_pass(&ctx, b, s.blocks, nb, s.stack, s.open, 0);
    for (i = 0; r == ECS_OK && i < names.num_paths; ++i)
        if (!s.path_used[i])
            r = ecs_error_set(err, ECS_ERROR_DECOMPILE, "names block: no component refers to path '%.96s'", names.path[i]);
    if (r == ECS_OK && jout.oom) r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "decompile: out of memory for the text");
    if (r == ECS_OK) r = ecs__decompile_too_deep(jout.buf, jout.len, err);
    if (r == ECS_OK) {
        out->json = jout.buf, out->length = jout.len, jout.buf = NULL;
        out->compile_flags = (ctx.big_endian ? ECS_COMPILER_BIG_ENDIAN : 0u) | (names.present ? ECS_COMPILER_NAMES : 0u);
        if ((flags & ECS_DECOMPILE_CHECK) && (r = ecs__decompile_check(c, out, blob, size, err)) != ECS_OK)
            ecs_decompile_output_free(out);
    }
    if (r == ECS_OK) ecs_error_clear(err);
    ECS__FREE(jout.buf);
    ECS__FREE(mem);
    ecs_resource_names_free(&names);
    return r;
}

ECS_DEF ecs_result ecs_compiler_decompile_instance(const ecs_compiler *c, uint32_t identifier, const void *data,
                                                   uint32_t size, int big_endian, const ecs_resource_names *names,
                                                   ecs_decompile_output *out, uint32_t *used, ecs_error *err)
{
    ecs_resource_names empty;
    ecs_decompile_context ctx;
    ecs__jout jout;
    const char *name = ecs_compiler_type_name(c, identifier);
    const ecs_compiler__type *t = name ? c->types + ecs__compiler_lower(c, identifier) : NULL;
    ecs_result r;
    if (out) memset(out, 0, sizeof *out);
    if (!out || !used || (!data && size)) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "decompile_instance: NULL argument");
    if (!t || !t->decompile)
        return ecs_error_set(err, ECS_ERROR_NOT_FOUND, "decompile: 0x%08X is %s", (unsigned)identifier,
                             t ? "registered without a decompile function" : "not registered");
    memset(&empty, 0, sizeof empty);
    memset(&ctx, 0, sizeof ctx);
    memset(&jout, 0, sizeof jout);
    ctx.compiler = c, ctx.out = &jout, ctx.names = names ? names : &empty, ctx.lenient = 1;
    ctx.swap = (big_endian != 0) != ecs__res_host_big_endian(), ctx.big_endian = big_endian != 0;
    ctx.flags = ECS_DECOMPILE_ALL_MEMBERS, ctx.error = err, ctx.type_name = t->name;
    ctx.num_entities = ctx.names->num_entities;
    ecs__jout_add(&jout, "{", 1);
    *used = 0;
    r = t->decompile(t->decompile_user, &ctx, data, size, used);
    ecs__jout_add(&jout, "}", 1);
    if (r == ECS_OK && *used > size) r = ecs_decompile_error(&ctx, "the decompile function used %u of %u bytes", (unsigned)*used, (unsigned)size);
    if (r == ECS_OK && jout.oom) r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "decompile: out of memory");
    if (r == ECS_OK) out->json = jout.buf, out->length = jout.len, jout.buf = NULL;
    ECS__FREE(jout.buf);
    return r;
}

ECS_DEF void ecs_decompile_output_free(ecs_decompile_output *out)
{
    if (!out) return;
    ECS__FREE(out->json);
    memset(out, 0, sizeof *out);
}

/* ---- REFERENCES ------------------------------------------------------------ */

/* What ecs_compiler_references collects: the doc index of every path string
   a compile function handed to ecs_compiler_add_dependency. */
typedef struct ecs__ref_collect {
    uint32_t *value; /* doc indices */
    uint32_t count, capacity;
} ecs__ref_collect;

static ecs_result ecs__refs_record(ecs_compiler_context *ctx, const ecs_json_value *path, uint64_t *hash)
{
    ecs__ref_collect *rc = ctx->collect;
    void *np;
    if (!ecs__res_grow(rc->value, &rc->capacity, (size_t)rc->count + 1, sizeof *rc->value, &np))
        return ecs__compile_fail(ctx, ECS_ERROR_OUT_OF_MEMORY, path, "out of memory listing a reference");
    rc->value = (uint32_t *)np;
    rc->value[rc->count++] = (uint32_t)(path - ctx->doc->values);
    if (hash) *hash = ecs__fnv1a64(ctx->doc->pool + path->str, path->count);
    return ECS_OK;
}

/* Length of the JSON string token at text[at] ('"' ... '"'), or 0 when there
   is no complete, well-formed one (raw control bytes, bad escapes). */
static size_t ecs__json_string_token(const char *text, size_t len, size_t at)
{
    static const char hex[] = "0123456789abcdefABCDEF";
    size_t i = at + 1, k;
    if (at >= len || text[at] != '"') return 0;
    while (i < len) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"') return i + 1 - at;
        if (c < 0x20) return 0;
        if (c != '\\') {
            ++i;
            continue;
        }
        if (i + 1 >= len) return 0;
        c = (unsigned char)text[i + 1];
        if (c == 'u') {
            for (k = 0; k < 4; ++k)
                if (i + 2 + k >= len || text[i + 2 + k] == 0 || !strchr(hex, text[i + 2 + k])) return 0;
            i += 6;
        } else if (c && strchr("\"\\/bfnrt", c)) {
            i += 2;
        } else {
            return 0;
        }
    }
    return 0;
}

static int ecs__refs_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* out from the collected doc indices (doc order is text order): sorted,
   each once, with line, column, token length and canonical spelling. */
static ecs_result ecs__refs_build(const ecs_json_doc *doc, const char *json, size_t len, ecs__ref_collect *rc,
                                  ecs_reference_list *out, ecs_error *err)
{
    size_t bytes = 0, at = 0, pos = 0;
    uint32_t i, n = 0, line = 1, column = 1;
    char *strings;
    if (rc->count) qsort(rc->value, rc->count, sizeof *rc->value, ecs__refs_cmp);
    for (i = 0; i < rc->count; ++i)
        if (i == 0 || rc->value[i] != rc->value[n - 1]) rc->value[n++] = rc->value[i];
    if (!n) return ECS_OK;
    for (i = 0; i < n; ++i) bytes += 2u * ((size_t)doc->values[rc->value[i]].count + 1u);
    out->refs = (ecs_reference *)ECS__REALLOC(NULL, n * sizeof *out->refs + bytes);
    if (!out->refs) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "references: out of memory");
    strings = (char *)(out->refs + n);
    for (i = 0; i < n; ++i) {
        const ecs_json_value *v = doc->values + rc->value[i];
        ecs_reference *r = out->refs + i;
        const char *why = "";
        size_t where = 0;
        for (; pos < v->offset && pos < len; ++pos) { /* line and column, counted on from the last one */
            unsigned char ch = (unsigned char)json[pos];
            if (ch == '\n') ++line, column = 1;
            else if ((ch & 0xC0u) != 0x80u) ++column;
        }
        r->offset = v->offset;
        r->length = (uint32_t)ecs__json_string_token(json, len, v->offset);
        r->line = line;
        r->column = column;
        r->path = (const char *)memcpy(strings + at, doc->pool + v->str, v->count + 1u);
        at += v->count + 1u;
        r->flags = ecs__path_is_canonical(r->path, v->count) ? 0u : ECS_REFERENCE_NON_CANONICAL;
        r->canonical = r->flags ? strings + at : r->path;
        if (r->flags && ecs__path_canonicalize(r->path, v->count, strings + at, &why, &where) < 0) strings[at] = 0;
        if (r->flags) at += v->count + 1u;
    }
    out->count = n;
    return ECS_OK;
}

ECS_DEF ecs_result ecs_compiler_references(const ecs_compiler *c, const char *json, size_t len,
                                           ecs_reference_list *out, ecs_error *err)
{
    ecs_json_doc doc;
    ecs__ref_collect rc;
    ecs_error local;
    ecs_result r;
    if (!err) err = &local;
    if (out) memset(out, 0, sizeof *out);
    if (!c || !out || (!json && len))
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_compiler_references: NULL argument");
    memset(&doc, 0, sizeof doc);
    memset(&rc, 0, sizeof rc);
    if ((r = ecs_json_parse(&doc, json, len, err)) == ECS_OK) r = ecs__compile_run(c, &doc, json, len, 0, NULL, &rc, err);
    if (r == ECS_OK) r = ecs__refs_build(&doc, json, len, &rc, out, err);
    ECS__FREE(rc.value);
    ecs_json_doc_free(&doc);
    return r;
}

ECS_DEF void ecs_reference_list_free(ecs_reference_list *list)
{
    if (!list) return;
    ECS__FREE(list->refs);
    memset(list, 0, sizeof *list);
}

/* Walks json from pos (outside any string token) towards to, skipping each
   string token whole: returns to when to is outside string tokens, a
   position past to when to lies inside a token (the token's end), or the
   position of a '"' before to that begins no well-formed token. */
static size_t ecs__patch_walk(const char *json, size_t len, size_t pos, size_t to)
{
    while (pos < to) {
        const char *q = (const char *)memchr(json + pos, '"', to - pos);
        size_t t;
        if (!q) return to;
        pos = (size_t)(q - json);
        if ((t = ecs__json_string_token(json, len, pos)) == 0) return pos;
        pos += t;
    }
    return pos;
}

/* Checks edits against the text; 0 with err set when one is wrong. One
   walk from byte 0 knows where string tokens start: an edit must begin at
   one (not at a closing quote, not at an escaped quote inside a string). */
static int ecs__patch_check(const char *json, size_t len, const ecs_source_edit *edits, uint32_t n, size_t *out_len,
                            ecs_error *err)
{
    size_t total = len, end = 0, walk = 0;
    uint32_t i;
    for (i = 0; i < n; ++i) {
        const ecs_source_edit *e = edits + i;
        size_t pl = e->path ? strlen(e->path) : 0;
        if (!e->path || !ecs__path_is_canonical(e->path, pl))
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "edit %u: the new path '%.96s' is not canonical",
                                 (unsigned)i, e->path ? e->path : "(null)"), 0;
        if (i && e->offset < end)
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "edit %u at offset %u: edits must be sorted by offset and not overlap", (unsigned)i,
                                 (unsigned)e->offset), 0;
        if ((size_t)e->offset >= len || e->length < 2 || e->length > len - e->offset ||
            ecs__json_string_token(json, len, e->offset) != e->length)
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "edit %u: bytes %u..%u are not one JSON string token of the text (%lu bytes)",
                                 (unsigned)i, (unsigned)e->offset, (unsigned)(e->offset + e->length),
                                 (unsigned long)len), 0;
        walk = ecs__patch_walk(json, len, walk, e->offset);
        if (walk != e->offset)
            return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                                 "edit %u: offset %u is not where a string token of the text starts (%s %lu)",
                                 (unsigned)i, (unsigned)e->offset,
                                 walk > e->offset ? "it lies inside the string token closed at offset"
                                                  : "a malformed string comes first, at offset",
                                 (unsigned long)(walk > e->offset ? walk - 1u : walk)), 0;
        end = walk = (size_t)e->offset + e->length;
        total = total - e->length + pl + 2u;
    }
    *out_len = total;
    return 1;
}

ECS_DEF ecs_result ecs_source_patch(const char *json, size_t len, const ecs_source_edit *edits, uint32_t n,
                                    ecs_source_output *out, ecs_error *err)
{
    size_t total = 0, from = 0, o = 0;
    uint32_t i;
    ecs_error local;
    if (!err) err = &local;
    if (out) memset(out, 0, sizeof *out);
    if (!out || (!json && len) || (!edits && n))
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_source_patch: NULL argument");
    if (!ecs__patch_check(json, len, edits, n, &total, err)) return ECS_ERROR_INVALID_ARGUMENT;
    out->text = (char *)ECS__REALLOC(NULL, total + 1u);
    if (!out->text) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_source_patch: out of memory");
    for (i = 0; i < n; ++i) {
        size_t pl = strlen(edits[i].path);
        memcpy(out->text + o, json + from, edits[i].offset - from);
        o += edits[i].offset - from;
        out->text[o++] = '"';
        memcpy(out->text + o, edits[i].path, pl);
        o += pl;
        out->text[o++] = '"';
        from = (size_t)edits[i].offset + edits[i].length;
    }
    if (len > from) memcpy(out->text + o, json + from, len - from);
    o += len - from;
    out->text[o] = 0;
    out->length = o;
    ecs_error_clear(err);
    return ECS_OK;
}

ECS_DEF void ecs_source_output_free(ecs_source_output *out)
{
    if (!out) return;
    ECS__FREE(out->text);
    memset(out, 0, sizeof *out);
}

ECS_DEF long ecs_path_renamed(const char *path, const char *old_path, const char *new_path, char *out,
                              size_t out_size)
{
    size_t pl, ol, nl;
    if (!path || !old_path || !new_path || !out) return -1;
    pl = strlen(path), ol = strlen(old_path), nl = strlen(new_path);
    if (!ecs__path_is_canonical(path, pl) || !ecs__path_is_canonical(old_path, ol) ||
        !ecs__path_is_canonical(new_path, nl))
        return -1;
    if (pl < ol || memcmp(path, old_path, ol) != 0 || (pl > ol && path[ol] != '/')) return 0;
    if (nl + (pl - ol) + 1u > out_size || nl + (pl - ol) > 0x7FFFFFFFu) return -1;
    memmove(out + nl, path + ol, pl - ol + 1u); /* the rest and the NUL first: out may be path */
    memcpy(out, new_path, nl);
    return (long)(nl + pl - ol);
}

ECS_DEF uint32_t ecs_path_distance(const char *a, const char *b, uint32_t limit)
{
    uint32_t small[2][129], *prev = small[0], *cur = small[1], *heap = NULL, best = 0;
    size_t la = a ? strlen(a) : 0, lb = b ? strlen(b) : 0, i, j;
    if (!a) a = "";
    if (!b) b = "";
    if (limit > 0xFFFFFFF0u) limit = 0xFFFFFFF0u;
    if ((la > lb ? la - lb : lb - la) > limit) return limit + 1u;
    if (lb >= 128) {
        if (lb > 0x3FFFFFFFu || !(heap = (uint32_t *)ECS__REALLOC(NULL, 2u * (lb + 1u) * sizeof *heap)))
            return limit + 1u; /* no memory for the rows: "too far" */
        prev = heap, cur = heap + lb + 1u;
    }
    for (j = 0; j <= lb; ++j) prev[j] = j > limit ? limit + 1u : (uint32_t)j;
    for (i = 1; i <= la && best <= limit; ++i) {
        uint32_t *t;
        cur[0] = i > limit ? limit + 1u : (uint32_t)i;
        best = cur[0];
        for (j = 1; j <= lb; ++j) {
            uint32_t d = prev[j - 1] + (uint32_t)(a[i - 1] != b[j - 1]);
            if (prev[j] + 1u < d) d = prev[j] + 1u;
            if (cur[j - 1] + 1u < d) d = cur[j - 1] + 1u;
            cur[j] = d > limit ? limit + 1u : d;
            if (cur[j] < best) best = cur[j];
        }
        t = prev, prev = cur, cur = t;
    }
    best = best > limit ? limit + 1u : prev[lb];
    ECS__FREE(heap);
    return best;
}

/* ---- ONE REGISTRATION ---------------------------------------------------- */

static int ecs__world_spawn_order(const ecs_world *w, uint32_t k)
{
    const char *name = w->component[k].name;
    if (strcmp(name, "transform") == 0) return ECS_RESOURCE_TRANSFORM_ORDER;
    if (strcmp(name, "mesh") == 0) return ECS_RESOURCE_MESH_ORDER;
    if (strcmp(name, "actor") == 0) return ECS_RESOURCE_ACTOR_ORDER;
    return ECS_RESOURCE_WORLD_ORDER + (int)k;
}

/* The note a world registration leaves in err when it succeeds: which
   components it left out and why ("call: left out 'a' (why), 'b' (why)"),
   cut with "..." when it does not fit; an empty message when none was.
   Collected here (the registrations in between may write err). */
typedef struct ecs__left_out {
    char text[sizeof(((ecs_error *)0)->message)];
    const char *call;
    uint32_t count;
} ecs__left_out;

static void ecs__left_out_add(ecs__left_out *l, const char *name, const char *why)
{
    size_t used = l->count++ ? strlen(l->text) : (size_t)snprintf(l->text, sizeof l->text, "%s: left out", l->call);
    size_t room = sizeof l->text;
    if (used + 5u >= room) return; /* cut already */
    if ((size_t)snprintf(l->text + used, room - used, "%s '%s' (%s)", l->count > 1 ? "," : "", name, why) >= room - used)
        memcpy(l->text + room - 5u, " ...", 5);
}

static void ecs__left_out_done(const ecs__left_out *l, ecs_error *err)
{
    ecs_error_clear(err);
    if (err && l->count) memcpy(err->message, l->text, sizeof err->message);
}

ECS_DEF ecs_result ecs_spawner_register_world(ecs_spawner *sp, const ecs_world *w, ecs_error *err)
{
    ecs__left_out note;
    ecs_result r = ECS_OK;
    uint32_t k, done;
    if (!sp || !w) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "spawner_register_world: NULL argument");
    note.call = "ecs_spawner_register_world", note.count = 0;
    for (k = 0; k < w->num_components && r == ECS_OK; ++k) {
        const ecs_world_component *wc = w->component + k;
        if (wc->manager)
            r = ecs_spawner_register(sp, wc->name, ecs_manager_spawn, ecs_manager_unspawn,
                                     ecs_manager_record_size(wc->manager), wc->manager, err);
        else if (wc->iface && wc->iface->spawn && wc->iface->unspawn)
            r = ecs_spawner_register(sp, wc->name, wc->iface->spawn, wc->iface->unspawn,
                                     strcmp(wc->name, "transform") == 0 ? ECS_RESOURCE_TRANSFORM_SIZE
                                                                        : ECS_SPAWNER_VARIABLE_SIZE,
                                     wc->store, err);
        else
            ecs__left_out_add(&note, wc->name, "its store interface has no spawn and unspawn");
    }
    if (r == ECS_OK) {
        ecs__left_out_done(&note, err);
        return ECS_OK;
    }
    for (done = 0; done + 1 < k; ++done) {
        const ecs_world_component *wc = w->component + done;
        if (wc->manager || (wc->iface && wc->iface->spawn && wc->iface->unspawn))
            ecs_spawner_unregister(sp, wc->name);
    }
    return r;
}

ECS_DEF ecs_result ecs_compiler_register_world(ecs_compiler *c, const ecs_world *w, ecs_error *err)
{
    ecs__left_out note;
    ecs_result r = ECS_OK;
    uint32_t k, done;
    if (!c || !w) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "compiler_register_world: NULL argument");
    note.call = "ecs_compiler_register_world", note.count = 0;
    for (k = 0; k < w->num_components && r == ECS_OK; ++k) {
        const ecs_world_component *wc = w->component + k;
        if (wc->manager && wc->manager->schema) {
            r = ecs_compiler_register_manager(c, wc->name, wc->manager, ecs__world_spawn_order(w, k), err);
        } else if (!wc->manager && strcmp(wc->name, "transform") == 0) {
            r = ecs_compiler_register(c, wc->name, ecs_resource_compile_transform, NULL, ECS_RESOURCE_TRANSFORM_ORDER,
                                      err);
            /* unregister only what this call registered: a taken name is an earlier registration's */
            if (r == ECS_OK && (r = ecs_compiler_set_decompile(c, wc->name, ecs_resource_decompile_transform, NULL,
                                                               err)) != ECS_OK)
                ecs_compiler_unregister(c, wc->name);
        } else {
            ecs__left_out_add(&note, wc->name,
                              wc->manager ? "a manager without a schema: give it one with ecs_manager_set_schema"
                                          : "a store JSON cannot describe: ecs_compiler_register its functions");
        }
    }
    if (r == ECS_OK) {
        ecs__left_out_done(&note, err);
        return ECS_OK;
    }
    for (done = 0; done + 1 < k; ++done) {
        const ecs_world_component *wc = w->component + done;
        if ((wc->manager && wc->manager->schema) || (!wc->manager && strcmp(wc->name, "transform") == 0))
            ecs_compiler_unregister(c, wc->name);
    }
    return r;
}

/* ---- SAVE SUBTREE -------------------------------------------------------- */

/* One line of what was left out, appended to rep->text (cut with "..." at the end). */
static void ecs__snap_note(ecs_snapshot_report *rep, const char *format, ...) ECS__RES_PRINTF(2, 3);
static void ecs__snap_note(ecs_snapshot_report *rep, const char *format, ...)
{
    size_t len;
    va_list ap;
    if (!rep) return;
    len = strlen(rep->text);
    if (len + 5u >= sizeof rep->text) return;
    va_start(ap, format);
    vsnprintf(rep->text + len, sizeof rep->text - len, format, ap);
    va_end(ap);
    if (strlen(rep->text) + 1u >= sizeof rep->text) memcpy(rep->text + sizeof rep->text - 5u, "...\n", 5);
}

/* Leaves out of ids[0..n-1], a walk of the hierarchy store h from a root
   (its subtree hook: a node first, then its descendants, depth-first, so
   each node's subtree follows it whole), every id not live in em, with its
   subtree: collect removes a destroyed node, and its live children become
   roots then, out of this subtree. Keeps the rest in walk order; returns
   how many. Shared by ecs_resource_save_subtree and ecs_snapshot.h's
   selections (one rule for both). */
static uint32_t ecs__res_live_walk(const ecs_world_component *h, const ecs_entity_manager *em, ecs_entity *ids, uint32_t n)
{
    uint32_t i = 0, kept = 0, below;
    while (i < n) {
        if (ecs_entity_live(em, ids[i])) {
            ids[kept++] = ids[i++];
            continue;
        }
        below = h->iface->subtree(h->store, ids[i], NULL, 0); /* the dead node and its descendants */
        i += below && below <= n - i ? below : 1u;
    }
    return kept;
}

/* -- a live subtree as an entity resource (ecs_resource_save_subtree) -- */

typedef struct ecs__sub_block {
    uint32_t k;                       /* the world component */
    int order;                        /* its spawn order (ONE REGISTRATION) */
    uint32_t num_instances;
    uint64_t size;                    /* bytes of instance data */
} ecs__sub_block;

typedef struct ecs__sub_state {
    const ecs_world *w;
    ecs_entity *ents;                 /* the subtree, resource order */
    uint64_t *sorted;                 /* entity id << 32 | resource index, ascending */
    uint8_t *referenced;              /* entities that a kept reference names */
    uint64_t *hashes;                 /* path hashes met (measure pass) */
    uint32_t n, num_hashes, hashes_capacity;
    int swap, oom;
    ecs_snapshot_report *report;
    ecs__schema_info *si;             /* the schema of the manager being measured (its values' checks) */
    int transform;                    /* the store being measured is "transform": its records are checked */
    ecs_result bad;                   /* a value the compiler refuses (err says which), or a schema that fails */
    ecs_error *err;
} ecs__sub_state;

static int ecs__sub_cmp64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* e's resource index, or ECS_RESOURCE_ROOT when e is not in the subtree. */
static uint32_t ecs__sub_index(const ecs__sub_state *st, ecs_entity e)
{
    uint32_t lo = 0, hi = st->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        uint32_t id = (uint32_t)(st->sorted[mid] >> 32);
        if (id == e.id) return (uint32_t)st->sorted[mid];
        if (id < e.id) lo = mid + 1u;
        else hi = mid;
    }
    return ECS_RESOURCE_ROOT;
}

/* Refuses (st->bad, st->err) field f of instance i of c when its value is
   one the compiler would not give: the blob would not decompile. */
static void ecs__sub_check(ecs__sub_state *st, const ecs_world_component *c, uint32_t i, uint32_t f,
                           const unsigned char *from)
{
    const ecs__schema_slot *slot = st->si->fields + f;
    char why[160], who[ECS_ENTITY_TEXT_SIZE];
    if (ecs__schema_value_ok(slot, from, why, sizeof why)) return;
    st->bad = ecs_error_set(st->err, ECS_ERROR_INVALID_ARGUMENT,
                            "ecs_resource_save_subtree: %s, component '%s', field '%s' (%s): %s (the compiler refuses "
                            "it: nothing saved)", ecs_entity_format(who, sizeof who, c->manager->entity[i]), c->name,
                            slot->name, ecs_field_kind_name(slot->kind), why);
}

/* Refuses (st->bad, st->err) resource entity e's "transform" record when
   one of its 16 floats is not finite: the decompiler that
   ecs_compiler_register_world sets for "transform"
   (ecs_resource_decompile_transform) refuses it. The record is the root's
   world matrix (a product of scales overflows easily), else the local one.
   Records of another size are not the transform's: not checked. */
static void ecs__sub_check_transform(ecs__sub_state *st, const ecs_world_component *c, uint32_t e)
{
    float m[16];
    char who[ECS_ENTITY_TEXT_SIZE];
    uint32_t k;
    if (c->iface->spawn_record(c->store, st->ents[e], e == 0, m, (uint32_t)sizeof m) != ECS_RESOURCE_TRANSFORM_SIZE)
        return;
    for (k = 0; k < 16u && m[k] >= -FLT_MAX && m[k] <= FLT_MAX; ++k) {}
    if (k == 16u) return;
    st->bad = ecs_error_set(st->err, ECS_ERROR_INVALID_ARGUMENT,
                            "ecs_resource_save_subtree: %s, component '%s', its %s matrix: element %u is a float that "
                            "is not finite (JSON has no NaN or infinity; the compiler refuses it: nothing saved)",
                            ecs_entity_format(who, sizeof who, st->ents[e]), c->name, e == 0 ? "world" : "local",
                            (unsigned)k);
}

/* Instance i's schema record at p (target order); with p NULL only notes
   what it refers to (path hashes, references inside and outside) and checks
   its values (ecs__sub_check). */
static void ecs__sub_record(ecs__sub_state *st, const ecs_world_component *c, uint32_t i, unsigned char *p)
{
    const ecs_manager *m = c->manager;
    const ecs_schema *s = m->schema;
    uint32_t f;
    for (f = 0; f < s->num_fields; ++f) {
        const unsigned char *from = (const unsigned char *)ecs_manager_field(m, f, i);
        ecs_field_kind kind = s->fields[f].kind;
        if (!s->fields[f].spec) continue;
        if (!p && st->si && !st->bad && kind != ECS_FIELD_ENTITY) ecs__sub_check(st, c, i, f, from);
        if (kind == ECS_FIELD_ENTITY) {
            ecs_entity e;
            uint32_t ref;
            memcpy(&e, from, sizeof e);
            ref = ecs_entity_is_nil(e) ? ECS_RESOURCE_ROOT : ecs__sub_index(st, e);
            if (p) {
                ecs__res_wr32(p, ref, st->swap);
            } else if (ref != ECS_RESOURCE_ROOT) {
                st->referenced[ref] = 1;
            } else if (!ecs_entity_is_nil(e)) {
                char who[ECS_ENTITY_TEXT_SIZE], whom[ECS_ENTITY_TEXT_SIZE];
                ++st->report->dropped;
                ecs__snap_note(st->report, "%s.%s of %s refers to %s outside the subtree: null\n", c->name,
                               s->fields[f].name, ecs_entity_format(who, sizeof who, m->entity[i]),
                               ecs_entity_format(whom, sizeof whom, e));
            }
        } else if (p) {
            ecs__schema_order(kind, p, from, st->swap);
        } else if (kind == ECS_FIELD_PATH) {
            void *np;
            if (!ecs__res_grow(st->hashes, &st->hashes_capacity, (size_t)st->num_hashes + 1u, 8u, &np)) {
                st->oom = 1;
                return;
            }
            st->hashes = (uint64_t *)np;
            memcpy(&st->hashes[st->num_hashes++], from, 8);
        }
        if (p) p += ecs_field_kind_size(kind);
    }
}

/* One pass over component b's instances of the subtree's entities: with
   p NULL measures b (and notes references), else writes its block at p.
   An interface store gives one record per entity (spawn_record). */
static unsigned char *ecs__sub_block_pass(ecs__sub_state *st, ecs__sub_block *b, unsigned char *p)
{
    const ecs_world_component *c = &st->w->component[b->k];
    unsigned char *data = p ? p + ECS_RESOURCE_BLOCK_HEADER_SIZE + 4u * b->num_instances : NULL;
    uint32_t e, j = 0;
    uint64_t at = 0;
    for (e = 0; e < st->n; ++e) {
        if (c->manager) {
            uint32_t rec = c->manager->schema->record_size;
            ecs_instance i;
            for (i = ecs_manager_lookup(c->manager, st->ents[e]); !ecs_instance_is_nil(i);
                 i = ecs_manager_next(c->manager, i), ++j, at += rec) {
                if (p) ecs__res_wr32(p + ECS_RESOURCE_BLOCK_HEADER_SIZE + 4u * j, e, st->swap);
                ecs__sub_record(st, c, i.i, data ? data + (size_t)at : NULL);
            }
        } else {
            uint32_t size = c->iface->spawn_record(c->store, st->ents[e], e == 0, data ? data + (size_t)at : NULL, 0);
            if (!size) continue;
            if (!p && st->transform && !st->bad) ecs__sub_check_transform(st, c, e);
            if (p) {
                ecs__res_wr32(p + ECS_RESOURCE_BLOCK_HEADER_SIZE + 4u * j, e, st->swap);
                c->iface->spawn_record(c->store, st->ents[e], e == 0, data + (size_t)at, size);
                if (st->swap) ecs__res_swap_words(data + (size_t)at, size / 4u);
            }
            ++j;
            at += size;
        }
    }
    if (!p) {
        b->num_instances = j;
        b->size = at;
        return NULL;
    }
    ecs__res_wr32(p, ecs_resource_identifier(c->name), st->swap);
    ecs__res_wr32(p + 4, j, st->swap);
    ecs__res_wr32(p + 8, (uint32_t)at, st->swap);
    for (p = data + (size_t)at; at & 3u; ++at) *p++ = 0;
    return p;
}

/* Keeps b in blocks[0..*nb) sorted as the compiler writes them: by spawn
   order, then by name. */
static void ecs__sub_insert(const ecs_world *w, ecs__sub_block *blocks, uint32_t *nb, ecs__sub_block b)
{
    uint32_t j;
    for (j = *nb; j > 0; --j) {
        const ecs__sub_block *u = blocks + j - 1;
        if (u->order < b.order || (u->order == b.order && strcmp(w->component[u->k].name, w->component[b.k].name) < 0))
            break;
        blocks[j] = blocks[j - 1];
    }
    blocks[j] = b;
    ++*nb;
}

/* Measures component b (ecs__sub_block_pass); a schema manager's values are
   checked with its schema as the compiler reads it (built here: a schema the
   compiler refuses fails the save too), the "transform" store's records as
   its decompiler reads them (ecs__sub_check_transform). */
static void ecs__sub_measure(ecs__sub_state *st, ecs__sub_block *b)
{
    const ecs_world_component *c = &st->w->component[b->k];
    ecs_result r;
    if (c->manager && !st->bad &&
        (r = ecs__schema_build(c->name, c->manager->schema->fields, c->manager->schema->num_fields, &st->si,
                               st->err)) != ECS_OK) {
        st->bad = r;
        st->si = NULL;
    }
    st->transform = !c->manager && strcmp(c->name, "transform") == 0;
    ecs__sub_block_pass(st, b, NULL);
    st->transform = 0;
    ECS__FREE(st->si);
    st->si = NULL;
}

/* Measures every store: the blocks to write, in order; the stores left out
   (instances in the subtree, but no schema or record) reported. */
static uint32_t ecs__sub_plan(ecs__sub_state *st, ecs__sub_block *blocks)
{
    const ecs_world *w = st->w;
    uint32_t k, e, nb = 0;
    for (k = 0; k < w->num_components; ++k) {
        const ecs_world_component *c = &w->component[k];
        ecs__sub_block b;
        if ((c->manager && c->manager->schema) || (!c->manager && c->iface->spawn_record)) {
            b.k = k;
            b.order = ecs__world_spawn_order(w, k);
            ecs__sub_measure(st, &b);
            if (b.num_instances) ecs__sub_insert(w, blocks, &nb, b);
            continue;
        }
        for (e = 0; e < st->n; ++e)
            if (!ecs_instance_is_nil(c->manager ? ecs_manager_lookup(c->manager, st->ents[e])
                                                : c->iface->lookup(c->store, st->ents[e])))
                break;
        if (e == st->n) continue;
        ++st->report->skipped;
        ecs__snap_note(st->report, "%s: left out (%s)\n", c->name,
                       c->manager ? "a manager without a schema" : "a store without spawn_record");
    }
    return nb;
}

/* The paths of names whose hashes the records hold, into out's dependency
   list (sorted by their bytes, as names has them); their bytes in *bytes. */
static ecs_result ecs__sub_paths(ecs__sub_state *st, const ecs_resource_names *names, ecs_compiler_output *out,
                                 uint64_t *bytes)
{
    uint32_t i, n = 0;
    size_t chars = 0;
    char *strings;
    *bytes = 0;
    if (st->num_hashes) qsort(st->hashes, st->num_hashes, 8u, ecs__sub_cmp64);
    for (i = 0; names && i < names->num_paths; ++i)
        if (bsearch(&names->path_hash[i], st->hashes, st->num_hashes, 8u, ecs__sub_cmp64))
            ++n, chars += strlen(names->path[i]) + 1u;
    if (!n) return ECS_OK;
    out->dependency = (const char **)ECS__REALLOC(NULL, n * sizeof(char *) + chars);
    if (!out->dependency) return ECS_ERROR_OUT_OF_MEMORY;
    strings = (char *)(out->dependency + n);
    for (i = 0; i < names->num_paths; ++i) {
        size_t len = strlen(names->path[i]);
        if (!bsearch(&names->path_hash[i], st->hashes, st->num_hashes, 8u, ecs__sub_cmp64)) continue;
        memcpy(strings, names->path[i], len + 1u);
        out->dependency[out->num_dependencies++] = strings;
        strings += len + 1u;
        *bytes += 4u + len;
    }
    return ECS_OK;
}

/* The names block (NAMES BLOCK) at p: the referenced entities named "#k"
   as the decompiler names them, then the paths. names_size: its data's
   bytes. Returns where the next block would start. */
static unsigned char *ecs__sub_names(const ecs__sub_state *st, const ecs_compiler_output *out, uint32_t named,
                                     uint32_t names_size, unsigned char *p)
{
    unsigned char *data = p + ECS_RESOURCE_BLOCK_HEADER_SIZE + 4u * named;
    uint32_t e, j = 0, i;
    ecs__res_wr32(p, ECS_RESOURCE_NAMES_ID, st->swap);
    ecs__res_wr32(p + 4, named, st->swap);
    ecs__res_wr32(p + 8, names_size, st->swap);
    ecs__res_wr32(data, out->num_dependencies, st->swap);
    data += 4;
    for (e = 0; e < st->n; ++e) {
        char buf[16];
        uint32_t len;
        if (!st->referenced[e]) continue;
        len = (uint32_t)snprintf(buf, sizeof buf, "#%u", (unsigned)e);
        ecs__res_wr32(p + ECS_RESOURCE_BLOCK_HEADER_SIZE + 4u * j++, e, st->swap);
        ecs__res_wr32(data, len, st->swap);
        memcpy(data + 4, buf, len);
        data += 4u + len;
    }
    for (i = 0; i < out->num_dependencies; ++i) {
        uint32_t len = (uint32_t)strlen(out->dependency[i]);
        ecs__res_wr32(data, len, st->swap);
        memcpy(data + 4, out->dependency[i], len);
        data += 4u + len;
    }
    for (; names_size & 3u; ++names_size) *data++ = 0;
    return data;
}

/* Writes the whole blob (total bytes, measured) at blob. */
static void ecs__sub_write(ecs__sub_state *st, const ecs_world_component *h, ecs__sub_block *blocks, uint32_t nb,
                           const ecs_compiler_output *out, uint32_t named, uint32_t names_size, unsigned char *blob,
                           uint32_t total)
{
    unsigned char *p = blob + ECS_RESOURCE_HEADER_SIZE;
    uint32_t e, i, with_names = out->num_dependencies != 0;
    memcpy(blob, "ECSR", 4);
    ecs__res_wr32(blob + 4, ECS_RESOURCE_VERSION, st->swap);
    ecs__res_wr32(blob + 8, ECS_RESOURCE_BYTE_ORDER_MARK, st->swap);
    ecs__res_wr32(blob + 12, total, st->swap);
    ecs__res_wr32(blob + 16, st->n, st->swap);
    ecs__res_wr32(blob + 20, nb + with_names, st->swap);
    for (e = 0; e < st->n; ++e, p += 4)
        ecs__res_wr32(p, e ? ecs__sub_index(st, h->iface->parent_of(h->store, st->ents[e])) : ECS_RESOURCE_ROOT,
                      st->swap);
    for (i = 0; i < nb; ++i) p = ecs__sub_block_pass(st, blocks + i, p);
    if (with_names) ecs__sub_names(st, out, named, names_size, p);
}

ECS_DEF ecs_result ecs_resource_save_subtree(const ecs_world *w, const char *hierarchy, ecs_entity root,
                                             uint32_t flags, const ecs_resource_names *names,
                                             ecs_compiler_output *out, ecs_snapshot_report *report, ecs_error *err)
{
    ecs__sub_state st;
    ecs_snapshot_report quiet;
    ecs__sub_block *blocks;
    const ecs_world_component *h;
    void *mem;
    char who[ECS_ENTITY_TEXT_SIZE];
    uint32_t k, e, nb, named = 0;
    uint64_t total, names_size = 0;
    ecs_result r = ECS_OK;
    if (out) memset(out, 0, sizeof *out);
    if (!report) report = &quiet;
    memset(report, 0, sizeof *report);
    if (!w || !out) return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_resource_save_subtree: NULL argument");
    if (flags & ~ECS_COMPILER_BIG_ENDIAN)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_resource_save_subtree: unknown flags 0x%X",
                             (unsigned)flags);
    k = hierarchy ? ecs_world_find(w, hierarchy) : ECS_WORLD_NO_COMPONENT;
    if (k == ECS_WORLD_NO_COMPONENT)
        return ecs_error_set(err, ECS_ERROR_NOT_FOUND, "ecs_resource_save_subtree: no component '%s'",
                             hierarchy ? hierarchy : "(null)");
    h = &w->component[k];
    if (h->manager || !h->iface->subtree || !h->iface->parent_of || !h->iface->spawn_record)
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT,
                             "ecs_resource_save_subtree: component '%s' is not a hierarchy (subtree, parent_of, "
                             "spawn_record)", hierarchy);
    if (!ecs_entity_live(&w->entities, root))
        return ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_resource_save_subtree: %s is not alive in this world",
                             ecs_entity_format(who, sizeof who, root));
    memset(&st, 0, sizeof st);
    st.w = w;
    st.report = report, st.err = err;
    st.swap = ((flags & ECS_COMPILER_BIG_ENDIAN) != 0) != ecs__res_host_big_endian();
    st.n = h->iface->subtree(h->store, root, NULL, 0);
    if (!st.n)
        return ecs_error_set(err, ECS_ERROR_NOT_FOUND, "ecs_resource_save_subtree: %s has no '%s'",
                             ecs_entity_format(who, sizeof who, root), hierarchy);
    /* one allocation: sorted ids, blocks, the subtree, the reference marks */
    mem = ECS__REALLOC(NULL, (size_t)st.n * 13u + (size_t)w->num_components * sizeof *blocks);
    if (!mem) return ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_resource_save_subtree: out of memory");
    st.sorted = (uint64_t *)mem;
    blocks = (ecs__sub_block *)(st.sorted + st.n);
    st.ents = (ecs_entity *)(blocks + w->num_components);
    st.referenced = (uint8_t *)(st.ents + st.n);
    memset(st.referenced, 0, st.n);
    h->iface->subtree(h->store, root, st.ents, st.n);
    st.n = ecs__res_live_walk(h, &w->entities, st.ents, st.n); /* destroyed descendants: left out, with theirs */
    for (e = 0; e < st.n; ++e) st.sorted[e] = (uint64_t)st.ents[e].id << 32 | e;
    qsort(st.sorted, st.n, 8u, ecs__sub_cmp64);
    nb = ecs__sub_plan(&st, blocks);
    if ((r = st.bad) == ECS_OK && (st.oom || ecs__sub_paths(&st, names, out, &names_size) != ECS_OK))
        r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_resource_save_subtree: out of memory");
    total = ECS_RESOURCE_HEADER_SIZE + 4ull * st.n;
    for (k = 0; k < nb; ++k) total += ECS_RESOURCE_BLOCK_HEADER_SIZE + 4ull * blocks[k].num_instances + ((blocks[k].size + 3u) & ~3ull);
    if (out->num_dependencies) {
        for (e = 0; e < st.n; ++e)
            if (st.referenced[e]) named++, names_size += 4u + (uint64_t)snprintf(NULL, 0, "#%u", (unsigned)e);
        names_size += 4u;
        total += ECS_RESOURCE_BLOCK_HEADER_SIZE + 4ull * named + ((names_size + 3u) & ~3ull);
    }
    if (r == ECS_OK && total > 0xFFFFFFFFull)
        r = ecs_error_set(err, ECS_ERROR_INVALID_ARGUMENT, "ecs_resource_save_subtree: the resource would be %llu "
                          "bytes, more than 4 GiB", (unsigned long long)total);
    if (r == ECS_OK && (out->blob = ECS__REALLOC(NULL, (size_t)total)) == NULL)
        r = ecs_error_set(err, ECS_ERROR_OUT_OF_MEMORY, "ecs_resource_save_subtree: out of memory for a %llu-byte "
                          "blob", (unsigned long long)total);
    if (r == ECS_OK) {
        ecs__sub_write(&st, h, blocks, nb, out, named, (uint32_t)names_size, (unsigned char *)out->blob, (uint32_t)total);
        out->size = (uint32_t)total;
    } else {
        ecs_compiler_output_free(out);
        memset(report, 0, sizeof *report);
    }
    ECS__FREE(st.hashes);
    ECS__FREE(mem);
    return r;
}

#endif /* ECS__RESOURCE_IMPLEMENTATION_DONE */
#endif /* ECS_RESOURCE_IMPLEMENTATION */

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
