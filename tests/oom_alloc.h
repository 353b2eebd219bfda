/* tests/oom_alloc.h - an allocator that fails call number oom_fail_at (0:
   never), for the tests that check a failed allocation changes nothing;
   oom_largest is the largest size asked for (set it to 0 to start over).
   Include before the implementation of ecs.h. */
#ifndef OOM_ALLOC_H_INCLUDED
#define OOM_ALLOC_H_INCLUDED
#include <stdlib.h>
static unsigned long oom_calls, oom_fail_at;
static size_t oom_largest;
static void *oom_realloc(void *p, size_t n)
{
    ++oom_calls;
    if (n > oom_largest) oom_largest = n;
    if (oom_fail_at && oom_calls == oom_fail_at) return NULL;
    return realloc(p, n);
}
#define ECS_REALLOC(p, n) oom_realloc(p, n)
#define ECS_FREE(p) free(p)
#endif
