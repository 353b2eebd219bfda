/* examples/jobs_pthreads.h - a small pthreads pool behind ecs.h's job interface.
   Public domain or MIT, as the headers.

   The headers start no threads: calls that can use several cores take an
   ecs_jobs whose parallel_for runs tasks on your task system. This file is
   one such system, small enough to read: N - 1 threads that sleep until a
   parallel_for arrives, then they and the calling thread take task numbers
   from one atomic counter until none are left. Used by the tests, the bench
   and examples/engine.c (--threads N). Include it after ecs.h in one file
   (its functions are static inline: a file that calls only some of them
   compiles warning-free); link with -lpthread. Needs gcc or clang (the
   __atomic builtins) and POSIX threads.

       ecs_jobs_pool pool;
       ecs_jobs jobs;
       if (ecs_jobs_pool_create(&pool, 4) != ECS_OK) ...   // 3 threads + yours
       jobs = ecs_jobs_pool_jobs(&pool);
       ecs_transform_world_pass_jobs(&tm, &jobs);
       ...
       ecs_jobs_pool_destroy(&pool);

   No allocation per call: the threads and the one job slot are made by
   create. One parallel_for at a time per pool (a task must not call
   parallel_for on the pool that runs it; use a second pool). A parallel_for
   returns when every task has finished, and everything the tasks wrote is
   visible to the caller then. Waiting threads spin for a few microseconds
   before they sleep, so back-to-back calls (a frame's systems) do not pay a
   wake-up each. */
#ifndef ECS_JOBS_PTHREADS_H_INCLUDED
#define ECS_JOBS_PTHREADS_H_INCLUDED

#include "ecs.h"
#include <pthread.h>
#include <string.h>

/** Most threads a pool runs (the calling thread included). */
#define ECS_JOBS_POOL_MAX_THREADS 64u

/** A pool: create it, hand ecs_jobs_pool_jobs(&pool) to the library, destroy
    it. The members are the pool's own. */
typedef struct ecs_jobs_pool {
    pthread_t thread[ECS_JOBS_POOL_MAX_THREADS];
    uint32_t num_threads;     /* threads started (the caller not counted) */
    pthread_mutex_t lock;
    pthread_cond_t wake;      /* a job arrived, or quit */
    pthread_cond_t finished;  /* the job's last task finished */
    /* the current job; written under lock by parallel_for */
    ecs_task_fn task;
    void *user;
    uint32_t num_tasks;
    uint32_t generation;      /* bumped per job (atomic reads, written under lock) */
    uint64_t claim;           /* atomic: generation << 32 | next task number */
    uint32_t done;            /* atomic: tasks of the current job finished */
    int quit;
} ecs_jobs_pool;

#define ECS__JOBS_POOL_SPIN 256 /* polls before sleeping (a few microseconds) */

static inline void ecs__jobs_pool_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Takes the next task of job `gen`, or returns 0 when that job has none left
   or is over (a thread that woke late must not take tasks of the next job). */
static inline int ecs__jobs_pool_take(ecs_jobs_pool *p, uint32_t gen, uint32_t n, uint32_t *k)
{
    uint64_t v = __atomic_load_n(&p->claim, __ATOMIC_ACQUIRE);
    for (;;) {
        if ((uint32_t)(v >> 32) != gen || (uint32_t)v >= n) return 0;
        if (__atomic_compare_exchange_n(&p->claim, &v, v + 1u, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) break;
    }
    *k = (uint32_t)v;
    return 1;
}

/* Runs tasks of job `gen` until none are left; the thread finishing the last
   one wakes the caller. */
static inline void ecs__jobs_pool_work(ecs_jobs_pool *p, uint32_t gen, ecs_task_fn task, void *user, uint32_t n)
{
    uint32_t k;
    while (ecs__jobs_pool_take(p, gen, n, &k)) {
        task(user, k);
        if (__atomic_add_fetch(&p->done, 1u, __ATOMIC_ACQ_REL) == n) {
            pthread_mutex_lock(&p->lock);
            pthread_cond_signal(&p->finished);
            pthread_mutex_unlock(&p->lock);
        }
    }
}

static inline void *ecs__jobs_pool_main(void *arg)
{
    ecs_jobs_pool *p = (ecs_jobs_pool *)arg;
    uint32_t seen = 0, gen, n;
    ecs_task_fn task;
    void *user;
    for (;;) {
        int spin;
        for (spin = 0; spin < ECS__JOBS_POOL_SPIN && __atomic_load_n(&p->generation, __ATOMIC_ACQUIRE) == seen; ++spin)
            ecs__jobs_pool_pause();
        pthread_mutex_lock(&p->lock);
        while (p->generation == seen && !p->quit) pthread_cond_wait(&p->wake, &p->lock);
        if (p->quit) {
            pthread_mutex_unlock(&p->lock);
            return NULL;
        }
        seen = gen = p->generation;
        task = p->task;
        user = p->user;
        n = p->num_tasks;
        pthread_mutex_unlock(&p->lock);
        ecs__jobs_pool_work(p, gen, task, user, n);
    }
}

/** Stops and joins the pool's threads; the pool can be created again. Call
    it when no parallel_for is running. */
static inline void ecs_jobs_pool_destroy(ecs_jobs_pool *p)
{
    uint32_t t;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (t = 0; t < p->num_threads; ++t) pthread_join(p->thread[t], NULL);
    pthread_cond_destroy(&p->finished);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    p->num_threads = 0;
}

/** Makes a pool that runs tasks on `threads` threads in all: threads - 1 new
    ones plus the thread calling parallel_for (threads 0 or 1: none are
    started, every task runs on the caller). ECS_OK, or
    ECS_ERROR_INVALID_ARGUMENT (more than ECS_JOBS_POOL_MAX_THREADS) or
    ECS_ERROR_OUT_OF_MEMORY (a thread could not start; none is left
    running). */
static inline ecs_result ecs_jobs_pool_create(ecs_jobs_pool *p, uint32_t threads)
{
    uint32_t t;
    memset(p, 0, sizeof *p);
    if (threads > ECS_JOBS_POOL_MAX_THREADS) return ECS_ERROR_INVALID_ARGUMENT;
    if (pthread_mutex_init(&p->lock, NULL) != 0) return ECS_ERROR_OUT_OF_MEMORY;
    if (pthread_cond_init(&p->wake, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        return ECS_ERROR_OUT_OF_MEMORY;
    }
    if (pthread_cond_init(&p->finished, NULL) != 0) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        return ECS_ERROR_OUT_OF_MEMORY;
    }
    for (t = 0; t + 1u < threads; ++t, ++p->num_threads)
        if (pthread_create(&p->thread[t], NULL, ecs__jobs_pool_main, p) != 0) {
            ecs_jobs_pool_destroy(p);
            return ECS_ERROR_OUT_OF_MEMORY;
        }
    return ECS_OK;
}

/** ecs_parallel_for_fn: runs task(user, k) for every k < num_tasks on the
    pool's threads and the calling one; returns ECS_OK when all have
    finished (it never fails: the calling thread can always run them). */
static inline ecs_result ecs_jobs_pool_parallel_for(void *context, uint32_t num_tasks, ecs_task_fn task, void *user)
{
    ecs_jobs_pool *p = (ecs_jobs_pool *)context;
    uint32_t gen;
    int spin;
    if (num_tasks == 0) return ECS_OK;
    pthread_mutex_lock(&p->lock);
    gen = p->generation + 1u;
    p->task = task;
    p->user = user;
    p->num_tasks = num_tasks;
    __atomic_store_n(&p->done, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&p->claim, (uint64_t)gen << 32, __ATOMIC_RELEASE);
    __atomic_store_n(&p->generation, gen, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    ecs__jobs_pool_work(p, gen, task, user, num_tasks);
    for (spin = 0; spin < ECS__JOBS_POOL_SPIN && __atomic_load_n(&p->done, __ATOMIC_ACQUIRE) != num_tasks; ++spin)
        ecs__jobs_pool_pause();
    pthread_mutex_lock(&p->lock);
    while (__atomic_load_n(&p->done, __ATOMIC_ACQUIRE) != num_tasks) pthread_cond_wait(&p->finished, &p->lock);
    pthread_mutex_unlock(&p->lock);
    return ECS_OK;
}

/** The ecs_jobs to hand to the library: parallel_for on this pool, with as
    many workers as it has threads (the caller included). */
static inline ecs_jobs ecs_jobs_pool_jobs(ecs_jobs_pool *p)
{
    ecs_jobs j;
    j.parallel_for = ecs_jobs_pool_parallel_for;
    j.context = p;
    j.num_workers = p->num_threads + 1u;
    return j;
}

#endif /* ECS_JOBS_PTHREADS_H_INCLUDED */
