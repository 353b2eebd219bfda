/* tests/test.h - the project's tiny test harness (ours; no dependencies).
   CHECK(cond) records a failure with file:line and goes on; CHECK_MSG adds a
   printf-style note. test_report() prints "N passed, N failed" and returns the
   process exit code. Define TEST_QUIET_PASSES to print failures only. */
#ifndef TEST_H_INCLUDED
#define TEST_H_INCLUDED
#include <stdio.h>
#include <stdarg.h>

static unsigned long test__passed, test__failed;

static void test__fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
    va_list ap;
    ++test__failed;
    if (test__failed > 50) return; /* keep the log readable */
    fprintf(stderr, "%s:%d: CHECK failed: %s", file, line, expr);
    if (fmt) {
        fputs(" -- ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    }
    fputc('\n', stderr);
}

#define CHECK(cond) \
    do { if (cond) ++test__passed; else test__fail(__FILE__, __LINE__, #cond, NULL); } while (0)
#define CHECK_MSG(cond, ...) \
    do { if (cond) ++test__passed; else test__fail(__FILE__, __LINE__, #cond, __VA_ARGS__); } while (0)

#include <string.h>

static int test_report(const char *name)
{
    printf("%s: %lu passed, %lu failed\n", name, test__passed, test__failed);
    return test__failed ? 1 : 0;
}
#endif
