/* tests/plugins/grouped.h - what tests/test_plugin_groups.c and its plugin
   tests/plugins/grouped.c share: six components, their typed structs, the
   values every instance holds, and the API the plugin publishes.

   The engine registers pg_pos, pg_vel, pg_dmg, pg_hp and pg_armor in its
   world (ECS_MANAGER_DEFINE: define PG_ENGINE before including) and keeps
   them in groups; the plugin defines pg_shield through ECS_API_COMPONENTS
   and reaches the engine's managers with find. Both sides view every
   manager through the same typed structs (the plugin through
   ECS_MANAGER_VIEW_DEFINE: it links against nothing). */
#ifndef GROUPED_H_INCLUDED
#define GROUPED_H_INCLUDED
#include "ecs_plugin.h"

/* Field types of different sizes, so that an instance moved by a wrong
   stride or a field left behind shows. */
#define PG_POS_FIELDS(X) X(uint32_t, value) X(float, x)
#define PG_VEL_FIELDS(X) X(uint64_t, wide) X(uint32_t, value)
#define PG_DMG_FIELDS(X) X(uint32_t, value) X(uint8_t, tag)
#define PG_HP_FIELDS(X) X(uint32_t, value) X(double, pad)
#define PG_ARMOR_FIELDS(X) X(uint32_t, value)
#define PG_SHIELD_FIELDS(X) X(uint32_t, value) X(uint64_t, wide) /* the plugin's define table, in this order */

#ifdef PG_ENGINE
ECS_MANAGER_DEFINE(pg_pos, PG_POS_FIELDS)
ECS_MANAGER_DEFINE(pg_vel, PG_VEL_FIELDS)
ECS_MANAGER_DEFINE(pg_dmg, PG_DMG_FIELDS)
ECS_MANAGER_DEFINE(pg_hp, PG_HP_FIELDS)
ECS_MANAGER_DEFINE(pg_armor, PG_ARMOR_FIELDS)
#else
ECS_MANAGER_VIEW_DEFINE(pg_pos, PG_POS_FIELDS)
ECS_MANAGER_VIEW_DEFINE(pg_vel, PG_VEL_FIELDS)
ECS_MANAGER_VIEW_DEFINE(pg_dmg, PG_DMG_FIELDS)
ECS_MANAGER_VIEW_DEFINE(pg_hp, PG_HP_FIELDS)
ECS_MANAGER_VIEW_DEFINE(pg_armor, PG_ARMOR_FIELDS)
#endif
ECS_MANAGER_VIEW_DEFINE(pg_shield, PG_SHIELD_FIELDS) /* defined by the plugin on both sides */

enum { PG_POS, PG_VEL, PG_DMG, PG_HP, PG_ARMOR, PG_SHIELD, PG_NUM };

static inline const char *pg_name(uint32_t c)
{
    static const char *const names[PG_NUM] = {"pg_pos", "pg_vel", "pg_dmg", "pg_hp", "pg_armor", "pg_shield"};
    return c < PG_NUM ? names[c] : "?";
}

/* The value component c's instance of entity id holds; the other field
   derives from it. */
static inline uint32_t pg_value(uint32_t id, uint32_t c) { return id * 2654435761u + c * 977u + 1u; }

/* Writes every field of component c's instance i (m is its manager) for the
   entity it belongs to, through the typed struct. */
static inline void pg_write(ecs_manager *m, uint32_t c, uint32_t i)
{
    uint32_t v = pg_value(m->entity[i].id, c);
    switch (c) {
    case PG_POS: ((pg_pos *)m)->value[i] = v, ((pg_pos *)m)->x[i] = (float)(v & 0xFFFFu); break;
    case PG_VEL: ((pg_vel *)m)->value[i] = v, ((pg_vel *)m)->wide[i] = (uint64_t)v << 32 | v; break;
    case PG_DMG: ((pg_dmg *)m)->value[i] = v, ((pg_dmg *)m)->tag[i] = (uint8_t)(v >> 24); break;
    case PG_HP: ((pg_hp *)m)->value[i] = v, ((pg_hp *)m)->pad[i] = (double)v; break;
    case PG_ARMOR: ((pg_armor *)m)->value[i] = v; break;
    default: ((pg_shield *)m)->value[i] = v, ((pg_shield *)m)->wide[i] = ~((uint64_t)v << 32 | v); break;
    }
}

/* Whether component c's instance i holds what pg_write wrote for its entity. */
static inline int pg_fields_ok(const ecs_manager *m, uint32_t c, uint32_t i)
{
    uint32_t v = pg_value(m->entity[i].id, c);
    switch (c) {
    case PG_POS: return ((const pg_pos *)m)->value[i] == v && ((const pg_pos *)m)->x[i] == (float)(v & 0xFFFFu);
    case PG_VEL: return ((const pg_vel *)m)->value[i] == v && ((const pg_vel *)m)->wide[i] == ((uint64_t)v << 32 | v);
    case PG_DMG: return ((const pg_dmg *)m)->value[i] == v && ((const pg_dmg *)m)->tag[i] == (uint8_t)(v >> 24);
    case PG_HP: return ((const pg_hp *)m)->value[i] == v && ((const pg_hp *)m)->pad[i] == (double)v;
    case PG_ARMOR: return ((const pg_armor *)m)->value[i] == v;
    default:
        return ((const pg_shield *)m)->value[i] == v && ((const pg_shield *)m)->wide[i] == ~((uint64_t)v << 32 | v);
    }
}

/* The plugin publishes PG_API version 0 (through ECS_API_REGISTRY); every
   call works on the engine's managers through ECS_API_COMPONENTS v1 and
   ECS_API_ENTITIES, c being a PG_* component. */
#define PG_API (ECS_API_USER + 20)
typedef struct pg_api_v0 {
    int (*build)(void); /* the PG_BUILD of the code that runs */
    /* n == 1: create; n > 1: create_many (records NULL). Then writes each
       new instance's fields (pg_write). ECS_OK or the manager's error. */
    ecs_result (*create)(uint32_t c, uint32_t n, const ecs_entity *es);
    /* n new entities (the entities API's create_many) into out, each with
       an instance of every component whose bit is set in mask */
    ecs_result (*make)(uint32_t n, uint32_t mask, ecs_entity *out);
    /* how 0: e's instance looked up and destroyed; 1: destroy_entity */
    uint32_t (*destroy)(uint32_t c, ecs_entity e, int how);
    int (*kill)(ecs_entity e); /* the entities API's destroy */
    /* how 0: collect, 1: gc_all, 2: gc; what the call returned */
    uint32_t (*collect)(uint32_t c, int how);
    /* Reads every instance of every component through the plugin's typed
       structs: instances whose fields are wrong, plus group positions
       whose members disagree on the entity. */
    uint32_t (*check)(void);
} pg_api_v0;

#endif
