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

/* For tests that compare a doc block with the code they compile: lines of
   `path` from the line after the one containing `from` up to
   the line containing `to`, with `indent` leading spaces removed from each. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((unused))
#endif
static int test_read_block(const char *path, const char *from, const char *to, int indent, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    char line[512];
    size_t used = 0;
    int inside = 0, found = 0;
    if (!f) return 0;
    out[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        if (!inside) {
            if (strstr(line, from)) inside = 1;
            continue;
        }
        if (strstr(line, to)) {
            found = 1;
            break;
        }
        {
            const char *s = line;
            int k;
            size_t len;
            for (k = 0; k < indent && *s == ' '; ++k) ++s;
            len = strlen(s);
            if (used + len + 1 > cap) break;
            memcpy(out + used, s, len + 1);
            used += len;
        }
    }
    fclose(f);
    return found;
}

static int test_report(const char *name)
{
    printf("%s: %lu passed, %lu failed\n", name, test__passed, test__failed);
    return test__failed ? 1 : 0;
}
#endif
