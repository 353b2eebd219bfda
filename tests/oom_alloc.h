/* tests/oom_alloc.h - an allocator that fails call number oom_fail_at (0:
   never), for the tests that check a failed allocation changes nothing.
   Include before the implementation of ecs.h. */
#ifndef OOM_ALLOC_H_INCLUDED
#define OOM_ALLOC_H_INCLUDED
#include <stdlib.h>
static unsigned long oom_calls, oom_fail_at;
static void *oom_realloc(void *p, size_t n)
{
    ++oom_calls;
    if (oom_fail_at && oom_calls == oom_fail_at) return NULL;
    return realloc(p, n);
}
#define ECS_REALLOC(p, n) oom_realloc(p, n)
#define ECS_FREE(p) free(p)
#endif
