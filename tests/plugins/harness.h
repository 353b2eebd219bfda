/* tests/plugins/harness.h - building fixture plugins from a test program
   (static helpers; include once, after the headers under test).
   env CC and CFLAGS_CONFIG come from tests/run.sh; -std and -x options are
   replaced by -x c -std=c99 (plugins are C), everything else (sanitizers,
   warnings, -O) is kept, so an ASan test loads ASan plugins. The plugins get
   the test's own word size: -m32 is added when the test is a 32-bit x86
   program and dropped when it is a 64-bit one, whatever CFLAGS_CONFIG says.
   Outputs go to $BUILD_DIR, loaded copies to $BUILD_DIR/copies (where
   new_registry's registries put them).

   A test that includes this file defines _FILE_OFFSET_BITS 64 before its
   first #include: in a 32-bit process, readdir (count_copies) fails with
   EOVERFLOW on a filesystem with 64-bit inode numbers or directory offsets
   unless it is built for large files. */
#ifndef HARNESS_H_INCLUDED
#define HARNESS_H_INCLUDED
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ecs_plugin.h"

#if defined(__GLIBC__) && !defined(__LP64__) && (!defined(_FILE_OFFSET_BITS) || _FILE_OFFSET_BITS != 64)
#error "define _FILE_OFFSET_BITS 64 before the first #include (readdir fails with EOVERFLOW in 32-bit builds)"
#endif

#if defined(__GNUC__) || defined(__clang__)
#define HARNESS_UNUSED __attribute__((unused))
#else
#define HARNESS_UNUSED
#endif

static char g_cc[256] = "cc";
static char g_flags[2048];          /* CFLAGS_CONFIG without -std / -x */
static char g_build[1024] = "build/test_plugin";
static char g_copies[1100];         /* where registries put loaded copies */

HARNESS_UNUSED static void env_init(void)
{
    const char *cc = getenv("CC"), *flags = getenv("CFLAGS_CONFIG"), *dir = getenv("BUILD_DIR");
    char buf[2048], cmd[1200];
    char *tok;
    if (cc && cc[0]) snprintf(g_cc, sizeof g_cc, "%s", cc);
    if (dir && dir[0]) snprintf(g_build, sizeof g_build, "%s", dir);
    snprintf(buf, sizeof buf, "%s", flags ? flags : "");
    for (tok = strtok(buf, " \t"); tok; tok = strtok(NULL, " \t")) {
        if (strncmp(tok, "-std=", 5) == 0) continue;
        if (strcmp(tok, "-x") == 0) { /* and its argument */
            if (!strtok(NULL, " \t")) break;
            continue;
        }
        if (strcmp(tok, "-m32") == 0) continue; /* decided below, by this program's word size */
        if (strlen(g_flags) + strlen(tok) + 2 < sizeof g_flags) {
            strcat(g_flags, " ");
            strcat(g_flags, tok);
        }
    }
#if defined(__i386__)
    /* plugins built here match this test */
    if (strlen(g_flags) + 6 < sizeof g_flags) strcat(g_flags, " -m32");
#endif
    snprintf(g_copies, sizeof g_copies, "%s/copies", g_build);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", g_copies);
    if (system(cmd) != 0) fprintf(stderr, "cannot create %s\n", g_copies);
}

/* Builds src (a .c file) into $BUILD_DIR/out with the extra defines, as C. */
HARNESS_UNUSED static int build_plugin(const char *src, const char *out, const char *defines)
{
    char cmd[8192];
    int rc, n;
    n = snprintf(cmd, sizeof cmd, "%s -x c -std=c99%s -shared -fPIC -I. %s %s -o '%s/%s' >'%s/%s.log' 2>&1", g_cc,
                 g_flags, defines ? defines : "", src, g_build, out, g_build, out);
    if (n < 0 || (size_t)n >= sizeof cmd) return 0;
    rc = system(cmd);
    if (rc != 0) {
        fprintf(stderr, "build failed (%d): %s\n", rc, cmd);
        n = snprintf(cmd, sizeof cmd, "cat '%s/%s.log' >&2", g_build, out);
        if (n > 0 && (size_t)n < sizeof cmd && system(cmd) != 0) fprintf(stderr, "(no log)\n");
    }
    return rc == 0;
}

HARNESS_UNUSED static const char *build_path(const char *name)
{
    static char paths[4][1200];
    static int next;
    char *p = paths[next++ & 3];
    snprintf(p, sizeof paths[0], "%s/%s", g_build, name);
    return p;
}

/* A registry over em (NULL: no ECS_API_ENTITIES) that puts loaded copies in
   $BUILD_DIR/copies (after env_init), otherwise the defaults; NULL, with the
   reason on stderr, when it cannot be created. */
HARNESS_UNUSED static ecs_plugin_registry *new_registry(ecs_entity_manager *em)
{
    ecs_plugin_registry_desc desc;
    ecs_plugin_registry *reg;
    ecs_error err;
    memset(&desc, 0, sizeof desc);
    desc.entities = em;
    desc.copy_dir = g_copies;
    reg = ecs_plugin_registry_create(&desc, &err);
    if (!reg) fprintf(stderr, "registry: %s\n", err.message);
    return reg;
}

/* Files in the copy folder (copies not deleted), or -1 when the folder
   cannot be read to its end (never a silent 0). */
HARNESS_UNUSED static int count_copies(void)
{
    DIR *d = opendir(g_copies);
    struct dirent *e;
    int n = 0;
    if (!d) return -1;
    for (;;) {
        errno = 0;
        e = readdir(d);
        if (!e) break;
        if (strncmp(e->d_name, "ecs_plugin_", 11) == 0) ++n;
    }
    if (errno != 0) {
        fprintf(stderr, "count_copies: readdir('%s'): %s\n", g_copies, strerror(errno));
        n = -1;
    }
    closedir(d);
    return n;
}

HARNESS_UNUSED static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fputs(text, f);
    return fclose(f) == 0;
}

HARNESS_UNUSED static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = (char *)malloc((size_t)n + 1);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        if (buf) {
            buf[n] = '\0';
            *len = (size_t)n;
        }
    }
    fclose(f);
    return buf;
}

#endif
