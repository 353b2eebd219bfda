/* tests/test_plugin_image.c - ecs_plugin.h meets plugin files that are not
   whole libraries. A real plugin cut short at many points is refused as
   "truncated" by ecs_plugin_load and by ecs_plugin_poll's hot reload (which
   keeps the old build running and takes the complete file later); each of
   those runs in a forked child, so that a crash (dlopen of a cut-short file
   dies with SIGBUS) fails the test instead of ending the suite.
   ecs_plugin_check_image is run on synthetic ELF images (32- and 64-bit, both
   byte orders, extended numbering) and PE images cut at every byte, and on
   thousands of mutations of a real plugin's first 4 KB (under ASan in the
   sanitizer configurations: the buffer is always exactly as long as the
   image). Directories, empty files, FIFOs, object files and other
   platforms' libraries get messages that say what is wrong, and no copy of
   a library is left behind, not even by a process killed with SIGKILL while
   it had a plugin loaded. POSIX only (fork). Run from the repository root. */
#define _FILE_OFFSET_BITS 64     /* readdir in a 32-bit build (tests/plugins/harness.h) */
#define _POSIX_C_SOURCE 200809L /* fork, kill, mkfifo, alarm */
#define ECS_IMPLEMENTATION
#include "ecs.h"
#define ECS_PLUGIN_IMPLEMENTATION
#include "ecs_plugin.h"

#include "test.h"
#include "plugins/fixture.h"
#include "plugins/harness.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------- */

static unsigned char *g_v1, *g_v2; /* good.c build 1 (tick adds 1) and build 2 (adds 100) */
static size_t g_v1_size, g_v2_size;

static int write_bytes(const char *path, const unsigned char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok;
    if (!f) return 0;
    ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* Runs fn(arg) in a child process: passes when the child exits with 0, fails
   when it returns anything else or dies of a signal. */
static void in_child(int (*fn)(size_t), size_t arg, const char *what)
{
    int status = 0;
    pid_t pid;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) _exit(fn(arg)); /* no atexit handlers, no leak check of the copied heap */
    CHECK_MSG(pid > 0, "%s: fork failed", what);
    if (pid <= 0) return;
    CHECK(waitpid(pid, &status, 0) == pid);
    if (WIFSIGNALED(status))
        CHECK_MSG(0, "%s (arg %lu): the child died of signal %d", what, (unsigned long)arg, WTERMSIG(status));
    else
        CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s (arg %lu): the child failed (exit %d)", what,
                  (unsigned long)arg, WEXITSTATUS(status));
}

/* Child-side check: prints and counts instead of test.h's counters (which
   the parent would never see). */
static int g_child_failures;
#define EXPECT(cond)                                                                       \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: child check failed: %s\n", __FILE__, __LINE__, #cond); \
            ++g_child_failures;                                                            \
        }                                                                                  \
    } while (0)

/* ---- a cut-short plugin through ecs_plugin_load --------------------------------- */

static int child_load_cut(size_t cut)
{
    ecs_entity_manager em;
    ecs_plugin_registry *reg;
    ecs_plugin p;
    ecs_error err;
    ecs_result r;
    uint32_t regs;
    ecs_entity_manager_init(&em);
    reg = new_registry(&em);
    if (!reg) return 1;
    regs = ecs_plugin_registration_count(reg);
    p.id = 99;
    r = ecs_plugin_load(reg, build_path("cut.so"), &p, &err);
    if (r != ECS_ERROR_PLUGIN_LOAD || !strstr(err.message, "truncated"))
        fprintf(stderr, "cut at %lu of %lu bytes: %s: %s\n", (unsigned long)cut, (unsigned long)g_v1_size,
                ecs_result_name(r), r == ECS_OK ? "(loaded)" : err.message);
    EXPECT(r == ECS_ERROR_PLUGIN_LOAD && err.code == r);
    EXPECT(strstr(err.message, "truncated") != NULL && strstr(err.message, "cut.so") != NULL);
    EXPECT(p.id == 0 && ecs_plugin_count(reg) == 0 && ecs_plugin_registration_count(reg) == regs);
    EXPECT(count_copies() == 0);
    ecs_plugin_registry_destroy(reg);
    ecs_entity_manager_free(&em);
    return g_child_failures != 0;
}

/* The cut points: per mille of the file, and two inside the ELF header. */
static const unsigned g_permille[] = {10, 50, 250, 500, 750, 900, 990, 999};

static size_t cut_at(size_t size, unsigned permille) { return (size_t)((unsigned long long)size * permille / 1000u); }

static void test_load_cut(void)
{
    size_t k;
    for (k = 0; k < sizeof g_permille / sizeof g_permille[0] + 3; ++k) {
        size_t cut = k < 8 ? cut_at(g_v1_size, g_permille[k]) : k == 8 ? 8 : k == 9 ? 40 : g_v1_size - 1;
        CHECK(write_bytes(build_path("cut.so"), g_v1, cut));
        in_child(child_load_cut, cut, "ecs_plugin_load of a cut-short plugin");
        CHECK(count_copies() == 0);
    }
    /* the whole file loads (the same child code would fail on it) */
    CHECK(write_bytes(build_path("cut.so"), g_v1, g_v1_size));
    {
        ecs_entity_manager em;
        ecs_plugin_registry *reg;
        ecs_plugin p;
        ecs_plugin_info info;
        ecs_error err;
        ecs_entity_manager_init(&em);
        reg = new_registry(&em);
        CHECK(reg != NULL);
        if (!reg) return;
        CHECK_MSG(ecs_plugin_load(reg, build_path("cut.so"), &p, &err) == ECS_OK, "%s", err.message);
        CHECK(ecs_plugin_get_info(reg, p, &info) == ECS_OK);
        /* the copy is unlinked once loaded: nothing on disk to leave behind */
        CHECK(count_copies() == 0);
        CHECK(info.loaded_path != NULL && strstr(info.loaded_path, "ecs_plugin_") != NULL);
        if (info.loaded_path) {
            FILE *f = fopen(info.loaded_path, "rb");
            CHECK(f == NULL);
            if (f) fclose(f);
        }
        ecs_plugin_registry_destroy(reg);
        ecs_entity_manager_free(&em);
        CHECK(count_copies() == 0);
    }
}

/* ---- a cut-short build met by hot reload ----------------------------------------- */

static int child_reload_cut(size_t cut)
{
    ecs_entity_manager em;
    ecs_plugin_registry *reg;
    ecs_plugin p;
    ecs_plugin_info info;
    ecs_error err;
    fixture_state *st;
    const fixture_good_api_v0 *api;
    const char *path = build_path("hot.so");
    uint32_t polls, reloaded, regs, n = 0;
    ecs_result res = ECS_OK;
    ecs_entity_manager_init(&em);
    reg = new_registry(&em);
    if (!reg) return 1;
    if (!write_bytes(path, g_v1, g_v1_size)) return 1;
    if (ecs_plugin_load(reg, path, &p, &err) != ECS_OK) {
        fprintf(stderr, "load: %s\n", err.message);
        return 1;
    }
    EXPECT(ecs_plugin_get_info(reg, p, &info) == ECS_OK);
    st = (fixture_state *)info.state;
    api = (const fixture_good_api_v0 *)ecs_plugin_find_api(reg, FIXTURE_GOOD_API, 0);
    if (!st || !api) return 1;
    regs = ecs_plugin_registration_count(reg);
    ecs_plugin_tick(reg, 0.0f);
    EXPECT(st->counter == 1);

    /* build 2, cut short, replaces the file and holds still: poll calls it
       "not ready yet", no error */
    EXPECT(write_bytes(path, g_v2, cut));
    reloaded = 0;
    ecs_error_clear(&err);
    for (polls = 0; polls < 4 && res == ECS_OK && !err.message[0]; ++polls) {
        res = ecs_plugin_poll(reg, &n, &err);
        reloaded += n;
    }
    if (res != ECS_OK || !strstr(err.message, "not ready yet") || !strstr(err.message, "truncated"))
        fprintf(stderr, "poll, cut at %lu: %s: %s\n", (unsigned long)cut, ecs_result_name(res), err.message);
    EXPECT(reloaded == 0 && res == ECS_OK && err.code == ECS_OK);
    EXPECT(strstr(err.message, "not ready yet") != NULL && strstr(err.message, "truncated") != NULL);
    /* the old build goes on, with its state and registrations */
    ecs_plugin_tick(reg, 0.0f);
    EXPECT(st->counter == 2 && st->build == 1 && api->build() == 1);
    EXPECT(ecs_plugin_registration_count(reg) == regs && ecs_plugin_count(reg) == 1);
    EXPECT(ecs_plugin_get_info(reg, p, &info) == ECS_OK && info.reloads == 0);
    /* the same file is not tried again until it changes */
    EXPECT(ecs_plugin_poll(reg, &n, &err) == ECS_OK && n == 0 && !err.message[0]);
    EXPECT(ecs_plugin_poll(reg, &n, &err) == ECS_OK && n == 0 && !err.message[0]);
    /* an explicit reload tries it, and refuses it the same way */
    EXPECT(ecs_plugin_reload(reg, p, &err) == ECS_ERROR_PLUGIN_LOAD && strstr(err.message, "truncated") != NULL);
    EXPECT(api->build() == 1 && count_copies() == 0);

    /* the build finishes writing: the complete file reloads */
    EXPECT(write_bytes(path, g_v2, g_v2_size));
    reloaded = 0;
    for (polls = 0; polls < 4 && reloaded == 0; ++polls) {
        res = ecs_plugin_poll(reg, &n, &err);
        reloaded += n;
    }
    if (reloaded != 1) fprintf(stderr, "complete file, after cut at %lu: %s\n", (unsigned long)cut, err.message);
    EXPECT(reloaded == 1 && res == ECS_OK && err.code == ECS_OK);
    EXPECT(st->build == 2 && api->build() == 2);
    ecs_plugin_tick(reg, 0.0f);
    EXPECT(st->counter == 102);
    EXPECT(ecs_plugin_get_info(reg, p, &info) == ECS_OK && info.reloads == 1 && info.state == (void *)st);
    EXPECT(count_copies() == 0);
    EXPECT(ecs_plugin_unload(reg, p) == ECS_OK);
    EXPECT(count_copies() == 0);
    ecs_plugin_registry_destroy(reg);
    ecs_entity_manager_free(&em);
    return g_child_failures != 0;
}

static void test_reload_cut(void)
{
    size_t k;
    for (k = 0; k < sizeof g_permille / sizeof g_permille[0] + 2; ++k) {
        size_t cut = k < 8 ? cut_at(g_v2_size, g_permille[k]) : k == 8 ? 40 : g_v2_size - 1;
        in_child(child_reload_cut, cut, "hot reload of a cut-short plugin");
        CHECK(count_copies() == 0);
    }
}

/* ---- a process killed while it has a plugin loaded -------------------------------- */

static void test_killed_process(void)
{
    int fds[2];
    char c = 0;
    int status = 0;
    pid_t pid;
    CHECK(write_bytes(build_path("killed.so"), g_v1, g_v1_size));
    CHECK(pipe(fds) == 0);
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        ecs_entity_manager em;
        ecs_plugin_registry *reg;
        ecs_plugin p;
        ecs_error err;
        char ok;
        ecs_entity_manager_init(&em);
        reg = new_registry(&em);
        ok = reg && ecs_plugin_load(reg, build_path("killed.so"), &p, &err) == ECS_OK ? '1' : '0';
        if (write(fds[1], &ok, 1) != 1) _exit(1);
        for (;;) pause(); /* until SIGKILL */
    }
    CHECK(pid > 0);
    if (pid <= 0) return;
    CHECK(read(fds[0], &c, 1) == 1 && c == '1'); /* the child has the plugin loaded */
    CHECK(count_copies() == 0);
    CHECK(kill(pid, SIGKILL) == 0);
    CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    CHECK(count_copies() == 0); /* nothing left behind to pile up */
    close(fds[0]);
    close(fds[1]);
}

/* ---- files that are not libraries: messages that say what is wrong --------------- */

static void check_load_message(const char *path, const char *needle)
{
    ecs_entity_manager em;
    ecs_plugin_registry *reg;
    ecs_plugin p;
    ecs_error err;
    ecs_result r;
    ecs_entity_manager_init(&em);
    reg = new_registry(&em);
    CHECK(reg != NULL);
    if (!reg) return;
    r = ecs_plugin_load(reg, path, &p, &err);
    CHECK_MSG(r == ECS_ERROR_PLUGIN_LOAD && err.code == r, "%s: %s (%s)", path, ecs_result_name(r), err.message);
    CHECK_MSG(strstr(err.message, needle) != NULL, "message '%s' lacks '%s'", err.message, needle);
    CHECK(strstr(err.message, path) != NULL); /* names the file */
    CHECK(p.id == 0 && ecs_plugin_count(reg) == 0);
    CHECK(count_copies() == 0);
    ecs_plugin_registry_destroy(reg);
    ecs_entity_manager_free(&em);
}

static int child_fifo(size_t unused)
{
    unsigned long before = test__failed;
    (void)unused;
    alarm(60); /* opening a FIFO without a writer blocks: that would be the failure */
    check_load_message(build_path("fifo.so"), "is a FIFO, device or socket (no regular file), not a shared library");
    return test__failed != before;
}

/* ---- synthetic images ------------------------------------------------------------- */

static void put(unsigned char *p, size_t off, unsigned n, uint64_t v, int big)
{
    unsigned k;
    for (k = 0; k < n; ++k) p[off + (big ? n - 1u - k : k)] = (unsigned char)(v >> (8u * k));
}

/* A small ELF shared object: header, 2 program headers, 64 bytes of data,
   then 4 section headers (NULL, PROGBITS over the data, NOBITS far beyond
   the file, STRTAB) at the end. xnum: extended numbering (e_shnum 0 and
   e_phnum PN_XNUM, the counts in section 0). Returns the size. */
static size_t make_elf(unsigned char *p, int is64, int big, int xnum)
{
    const size_t eh = is64 ? 64u : 52u, ph = is64 ? 56u : 32u, sh = is64 ? 64u : 40u;
    const size_t phoff = eh, data = eh + 2 * ph, shoff = data + 64, size = shoff + 4 * sh;
    const unsigned w = is64 ? 8u : 4u;
    size_t k;
    memset(p, 0, size);
    p[0] = 0x7f;
    p[1] = 'E';
    p[2] = 'L';
    p[3] = 'F';
    p[4] = (unsigned char)(is64 ? 2 : 1);
    p[5] = (unsigned char)(big ? 2 : 1);
    p[6] = 1;
    put(p, 16, 2, 3, big);                     /* ET_DYN */
    put(p, 18, 2, is64 ? 62u : 3u, big);       /* x86-64 / i386 */
    put(p, 20, 4, 1, big);                     /* version */
    put(p, is64 ? 32u : 28u, w, phoff, big);   /* e_phoff */
    put(p, is64 ? 40u : 32u, w, shoff, big);   /* e_shoff */
    put(p, is64 ? 52u : 40u, 2, eh, big);      /* e_ehsize */
    put(p, is64 ? 54u : 42u, 2, ph, big);      /* e_phentsize */
    put(p, is64 ? 56u : 44u, 2, xnum ? 0xFFFFu : 2u, big);
    put(p, is64 ? 58u : 46u, 2, sh, big);      /* e_shentsize */
    put(p, is64 ? 60u : 48u, 2, xnum ? 0u : 4u, big);
    put(p, is64 ? 62u : 50u, 2, 3, big);       /* e_shstrndx */
    /* PT_LOAD over the whole file, PT_DYNAMIC over the data */
    put(p, phoff, 4, 1, big);
    put(p, phoff + (is64 ? 32u : 16u), w, size, big);
    put(p, phoff + ph, 4, 2, big);
    put(p, phoff + ph + (is64 ? 8u : 4u), w, data, big);
    put(p, phoff + ph + (is64 ? 32u : 16u), w, 64, big);
    for (k = 0; k < 64; ++k) p[data + k] = (unsigned char)k;
    if (xnum) {
        put(p, shoff + (is64 ? 32u : 20u), w, 4, big); /* sh_size: the section count */
        put(p, shoff + (is64 ? 44u : 28u), 4, 2, big); /* sh_info: the program header count */
    }
    put(p, shoff + sh + 4, 4, 1, big); /* PROGBITS over the data */
    put(p, shoff + sh + (is64 ? 24u : 16u), w, data, big);
    put(p, shoff + sh + (is64 ? 32u : 20u), w, 64, big);
    put(p, shoff + 2 * sh + 4, 4, 8, big); /* NOBITS: takes no room in the file */
    put(p, shoff + 2 * sh + (is64 ? 24u : 16u), w, 0x7fffff00u, big);
    put(p, shoff + 2 * sh + (is64 ? 32u : 20u), w, 0x10000u, big);
    put(p, shoff + 3 * sh + 4, 4, 3, big); /* STRTAB: 1 byte of the data */
    put(p, shoff + 3 * sh + (is64 ? 24u : 16u), w, data, big);
    put(p, shoff + 3 * sh + (is64 ? 32u : 20u), w, 1, big);
    return size;
}

/* A small PE32+ DLL: DOS header, PE header, 240-byte optional header, two
   sections of 512 bytes, a certificate table and a COFF symbol table with
   its string table at the end. Returns the size. */
static size_t make_pe(unsigned char *p)
{
    const size_t pe = 64, opt = pe + 24, sect = opt + 240, size = 0x600 + 0x40 + 2 * 18 + 8;
    size_t k;
    memset(p, 0, size);
    p[0] = 'M';
    p[1] = 'Z';
    put(p, 0x3C, 4, pe, 0);
    memcpy(p + pe, "PE\0\0", 4);
    put(p, pe + 4, 2, 0x8664u, 0);     /* machine */
    put(p, pe + 6, 2, 2, 0);           /* sections */
    put(p, pe + 12, 4, 0x640, 0);      /* symbol table */
    put(p, pe + 16, 4, 2, 0);          /* symbols */
    put(p, pe + 20, 2, 240, 0);        /* optional header size */
    put(p, pe + 22, 2, 0x2022u, 0);    /* DLL | executable | large address aware */
    put(p, opt, 2, 0x20bu, 0);         /* PE32+ */
    put(p, opt + 60, 4, 0x200, 0);     /* SizeOfHeaders */
    put(p, opt + 108, 4, 16, 0);       /* data directories */
    put(p, opt + 112 + 32, 4, 0x600, 0); /* certificate table: a file offset */
    put(p, opt + 112 + 36, 4, 0x40, 0);
    memcpy(p + sect, ".text", 5);
    put(p, sect + 16, 4, 0x200, 0);
    put(p, sect + 20, 4, 0x200, 0);
    memcpy(p + sect + 40, ".data", 5);
    put(p, sect + 40 + 16, 4, 0x200, 0);
    put(p, sect + 40 + 20, 4, 0x400, 0);
    for (k = 0x200; k < 0x600; ++k) p[k] = (unsigned char)(k * 7u);
    put(p, 0x640 + 36, 4, 8, 0); /* the string table: its size, then "abcd" */
    memcpy(p + 0x640 + 40, "abcd", 4);
    return size;
}

/* check_image on exactly n bytes (a heap copy, so ASan sees any overread). */
static ecs_result check_bytes(const unsigned char *p, size_t n, ecs_error *err)
{
    unsigned char *copy = (unsigned char *)malloc(n ? n : 1);
    ecs_result r;
    if (!copy) return ECS_ERROR_OUT_OF_MEMORY;
    if (n) memcpy(copy, p, n);
    r = ecs_plugin_check_image(n ? copy : NULL, n, "img", err);
    free(copy);
    return r;
}

/* Every cut of image[0, size) is refused: "truncated" once the magic is
   there, the empty file and a partial magic get their own messages. */
static void check_every_cut(const unsigned char *image, size_t size, size_t magic, const char *what)
{
    size_t cut;
    unsigned long wrong = 0;
    ecs_error err;
    for (cut = 0; cut < size; ++cut) {
        ecs_result r = check_bytes(image, cut, &err);
        const char *needle = cut == 0 ? "is empty" : cut < magic ? "not a shared library" : "truncated";
        if (r != ECS_ERROR_PLUGIN_LOAD || err.code != r || !strstr(err.message, needle)) {
            if (wrong++ == 0)
                fprintf(stderr, "%s cut at %lu of %lu: %s: %s\n", what, (unsigned long)cut, (unsigned long)size,
                        ecs_result_name(r), err.message);
        }
    }
    CHECK_MSG(wrong == 0, "%s: %lu cuts not refused as expected", what, wrong);
}

static void test_synthetic_images(void)
{
    static unsigned char img[4096];
    ecs_error err;
    size_t n;
    int is64, big, xnum;

    for (is64 = 0; is64 < 2; ++is64)
        for (big = 0; big < 2; ++big)
            for (xnum = 0; xnum < 2; ++xnum) {
                char what[64];
                snprintf(what, sizeof what, "ELF%d %s%s", is64 ? 64 : 32, big ? "big-endian" : "little-endian",
                         xnum ? " extended numbering" : "");
                n = make_elf(img, is64, big, xnum);
                CHECK_MSG(check_bytes(img, n, &err) == ECS_OK, "%s: %s", what, err.message);
                check_every_cut(img, n, 4, what);
            }

    /* what the ELF header says, taken at its word */
    n = make_elf(img, 1, 0, 0);
    put(img, 16, 2, 1, 0); /* ET_REL */
    CHECK(check_bytes(img, n, &err) == ECS_ERROR_PLUGIN_LOAD && strstr(err.message, "relocatable object"));
    put(img, 16, 2, 2, 0); /* ET_EXEC */
    CHECK(check_bytes(img, n, &err) == ECS_ERROR_PLUGIN_LOAD && strstr(err.message, "an executable"));
    n = make_elf(img, 1, 0, 0);
    put(img, 32, 8, 0xFFFFFFFFFFFFFFF0ull, 0); /* e_phoff near 2^64 */
    CHECK(check_bytes(img, n, &err) == ECS_ERROR_PLUGIN_LOAD && strstr(err.message, "truncated") &&
          strstr(err.message, "program header table"));
    n = make_elf(img, 1, 0, 0);
    put(img, 64 + 56 + 8, 8, 0xFFFFFFFFFFFFFF00ull, 0); /* PT_DYNAMIC's offset: wraps when added */
    CHECK(check_bytes(img, n, &err) == ECS_ERROR_PLUGIN_LOAD && strstr(err.message, "truncated") &&
          strstr(err.message, "PT_DYNAMIC"));
    n = make_elf(img, 1, 0, 1);
    put(img, 64 + 2 * 56 + 64 + 32, 8, 0x0400000000000001ull, 0); /* section count * 64 wraps */
    CHECK(check_bytes(img, n, &err) == ECS_ERROR_PLUGIN_LOAD && strstr(err.message, "section header table"));
    n = make_elf(img, 0, 1, 0);
    img[4] = 3; /* no such class */
    CHECK(check_bytes(img, n, &err) == ECS_ERROR_PLUGIN_LOAD && strstr(err.message, "not a valid shared library"));

    n = make_pe(img);
    CHECK_MSG(check_bytes(img, n, &err) == ECS_OK, "PE: %s", err.message);
    check_every_cut(img, n, 2, "PE");
    put(img, 64 + 22, 2, 0x0022u, 0); /* no DLL flag */
    CHECK(check_bytes(img, n, &err) == ECS_ERROR_PLUGIN_LOAD && strstr(err.message, "not a shared library") &&
          strstr(err.message, "DLL"));
    n = make_pe(img);
    memcpy(img + 64, "NE\0\0", 4);
    CHECK(check_bytes(img, n, &err) == ECS_ERROR_PLUGIN_LOAD && strstr(err.message, "no PE signature"));
    n = make_pe(img);
    put(img, 0x3C, 4, 0xFFFFFFF0u, 0);
    CHECK(check_bytes(img, n, &err) == ECS_ERROR_PLUGIN_LOAD && strstr(err.message, "truncated"));

    /* the real plugin: whole it passes, cut anywhere it is refused */
    CHECK_MSG(check_bytes(g_v1, g_v1_size, &err) == ECS_OK, "%s", err.message);
    check_every_cut(g_v1, g_v1_size, 4, "good.so");
    /* NULL, and a name by default */
    CHECK(ecs_plugin_check_image(NULL, 0, NULL, &err) == ECS_ERROR_PLUGIN_LOAD && strstr(err.message, "empty"));
    CHECK(ecs_plugin_check_image(NULL, 100, NULL, NULL) == ECS_ERROR_PLUGIN_LOAD);
}

/* ---- fuzz: mutated headers never crash the checker ------------------------------ */

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(uint32_t n)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)((g_rng >> 11) % n);
}

/* rounds mutations of src[0, n): a few bytes overwritten (a random byte, or a
   0x00/0xFF/0x7F/0x80 run, often inside the first 64 bytes where the
   offsets and counts live), sometimes cut or cut to a random length. */
static void fuzz(const unsigned char *src, size_t n, unsigned rounds, const char *what)
{
    unsigned char *buf = (unsigned char *)malloc(n);
    unsigned long ok = 0, refused = 0, odd = 0;
    unsigned round;
    if (!buf) return;
    for (round = 0; round < rounds; ++round) {
        uint32_t flips = 1 + rnd(8), k;
        size_t len = n;
        ecs_error err;
        ecs_result r;
        memcpy(buf, src, n);
        for (k = 0; k < flips; ++k) {
            size_t at = rnd(2) ? rnd(n < 64 ? (uint32_t)n : 64u) : rnd((uint32_t)n);
            static const unsigned char special[] = {0x00, 0xFF, 0x7F, 0x80, 0x01, 0xFE};
            uint32_t run = 1 + rnd(8), j;
            unsigned char v = rnd(3) ? (unsigned char)rnd(256) : special[rnd((uint32_t)sizeof special)];
            for (j = 0; j < run && at + j < n; ++j) buf[at + j] = v;
        }
        if (rnd(4) == 0) len = rnd((uint32_t)n + 1);
        err.code = ECS_OK;
        err.message[0] = '\0';
        r = check_bytes(buf, len, &err);
        if (r == ECS_OK) ++ok;
        else if (r == ECS_ERROR_PLUGIN_LOAD && err.code == r && err.message[0] && strstr(err.message, "img")) ++refused;
        else if (odd++ == 0) fprintf(stderr, "%s round %u: %s: %s\n", what, round, ecs_result_name(r), err.message);
    }
    free(buf);
    CHECK_MSG(odd == 0, "%s: %lu results neither ECS_OK nor a named ECS_ERROR_PLUGIN_LOAD", what, odd);
    CHECK_MSG(refused > rounds / 4, "%s: only %lu of %u mutations refused", what, refused, rounds);
    (void)ok;
}

static void test_fuzz(void)
{
    static unsigned char img[4096];
    size_t n, k;
    fuzz(g_v1, g_v1_size < 4096 ? g_v1_size : 4096, 4000, "good.so's first 4 KB");
    fuzz(g_v1, g_v1_size, 1000, "good.so");
    n = make_elf(img, 0, 1, 1);
    fuzz(img, n, 2000, "ELF32 big-endian");
    n = make_elf(img, 1, 0, 1);
    fuzz(img, n, 2000, "ELF64 little-endian");
    n = make_pe(img);
    fuzz(img, n, 2000, "PE");
    /* random bytes behind each magic */
    for (k = 0; k < 3; ++k) {
        size_t j;
        for (j = 0; j < sizeof img; ++j) img[j] = (unsigned char)rnd(256);
        if (k == 0) memcpy(img, "\x7f" "ELF\x02\x01\x01", 7);
        if (k == 1) memcpy(img, "\x7f" "ELF\x01\x02\x01", 7);
        if (k == 2) memcpy(img, "MZ", 2);
        fuzz(img, 512, 1000, "random bytes");
    }
}

/* ---- load-time messages ------------------------------------------------------------- */

static void test_messages(void)
{
    static unsigned char img[4096];
    char cmd[4096];
    size_t n;
    int made;

    /* a directory given as the plugin */
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", build_path("a_dir.so"));
    CHECK(system(cmd) == 0);
    check_load_message(build_path("a_dir.so"), "is a directory, not a shared library");
    /* an empty file (a build that has only just begun) */
    CHECK(write_bytes(build_path("empty.so"), img, 0));
    check_load_message(build_path("empty.so"), "is empty (0 bytes)");
    /* text */
    CHECK(write_file(build_path("text.so"), "#!/bin/sh\necho not a library\n"));
    check_load_message(build_path("text.so"), "is not a shared library (no ELF, PE or Mach-O header");
    /* an object file, not linked with -shared */
    snprintf(cmd, sizeof cmd, "%s -x c -std=c99%s -fPIC -c -I. tests/plugins/good.c -o '%s' >'%s.log' 2>&1", g_cc,
             g_flags, build_path("good.o"), build_path("good.o"));
    CHECK_MSG(system(cmd) == 0, "%s", cmd);
    check_load_message(build_path("good.o"), "relocatable object");
    /* a library for another word size, and one for another platform */
    n = make_elf(img, sizeof(void *) == 4, 0, 0);
    CHECK(write_bytes(build_path("other_bits.so"), img, n));
    check_load_message(build_path("other_bits.so"), sizeof(void *) == 4
                                                        ? "is a 64-bit library; this process is 32-bit"
                                                        : "is a 32-bit library; this process is 64-bit");
    n = make_pe(img);
    CHECK(write_bytes(build_path("windows.dll"), img, n));
    check_load_message(build_path("windows.dll"), "is a PE (Windows) library; this platform loads ELF");
    /* a FIFO: opening it would block, so it is refused before */
    remove(build_path("fifo.so"));
    made = mkfifo(build_path("fifo.so"), 0600) == 0;
    CHECK(made);
    if (made) in_child(child_fifo, 0, "a FIFO given as the plugin");
    CHECK(count_copies() == 0);
}

int main(void)
{
    size_t len = 0;
    env_init();
    CHECK(build_plugin("tests/plugins/good.c", "img_v1.so", "-DFIXTURE_BUILD=1 -DFIXTURE_STEP=1"));
    CHECK(build_plugin("tests/plugins/good.c", "img_v2.so", "-DFIXTURE_BUILD=2 -DFIXTURE_STEP=100"));
    g_v1 = (unsigned char *)read_file(build_path("img_v1.so"), &len);
    g_v1_size = len;
    len = 0;
    g_v2 = (unsigned char *)read_file(build_path("img_v2.so"), &len);
    g_v2_size = len;
    CHECK(g_v1 != NULL && g_v2 != NULL && g_v1_size > 4096 && g_v2_size > 4096);
    CHECK(count_copies() == 0);
    if (g_v1 && g_v2 && g_v1_size > 4096 && g_v2_size > 4096) {
        test_synthetic_images();
        test_fuzz();
        test_messages();
        test_load_cut();
        test_reload_cut();
        test_killed_process();
    }
    free(g_v1);
    free(g_v2);
    return test_report("test_plugin_image");
}
