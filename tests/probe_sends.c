/* tests/probe_sends.c - the floor under issue 26's node target, measured
   (never asserted): what writing one message of N bytes to each of 3
   loopback TCP clients costs the sending thread, with nothing else of the
   engine around it. tests/check_nodes.sh runs it beside
   tests/probe_nodes.py and prints its rows.

       cc -O2 tests/probe_sends.c -o probe_sends && ./probe_sends 75000 100

   For each size given: a listener on 127.0.0.1 (a free port), 3 child
   processes that connect and read everything until the socket closes, then
   FRAMES rounds of one blocking send() of N bytes to each client (the
   server's TCP_NODELAY, as examples/engine.c sets it) 10 ms apart, as a
   server writes a state once a frame. The row is the median over the
   rounds of the sender's thread CPU time per round (CLOCK_THREAD_CPUTIME_ID):
   on Linux a loopback send also runs the receiving side's TCP work and the
   wake-up of the reader in the sender's context, which is most of it for
   small messages. Every socket call is bounded: the children exit when the
   parent closes (or after 20 s of silence), the parent waits for them. */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#define CLIENTS 3
#define FRAMES 60

static double thread_cpu_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void set_timeout(int fd, int seconds)
{
    struct timeval tv;
    tv.tv_sec = seconds;
    tv.tv_usec = 0;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* A child: connects, reads until the parent closes (or 20 s of silence). */
static void reader(const struct sockaddr_in *at)
{
    static char buf[1 << 16];
    int fd = (int)socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) _exit(1);
    set_timeout(fd, 20);
    if (connect(fd, (const struct sockaddr *)at, sizeof *at) != 0) _exit(1);
    while (read(fd, buf, sizeof buf) > 0) {
    }
    _exit(0);
}

/* The median CPU microseconds of one round of sends of n bytes: -1 on an error. */
static double measure(size_t n)
{
    struct sockaddr_in at;
    socklen_t len = sizeof at;
    int ls = (int)socket(AF_INET, SOCK_STREAM, 0), c[CLIENTS], k, f, one = 1, ok = 1;
    double rounds[FRAMES];
    struct timespec pause = {0, 10000000L}; /* 10 ms between rounds */
    char *msg = (char *)malloc(n);
    if (ls < 0 || !msg) return -1;
    memset(msg, 7, n);
    memset(&at, 0, sizeof at);
    at.sin_family = AF_INET;
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(ls, (struct sockaddr *)&at, sizeof at) != 0 || listen(ls, CLIENTS) != 0 ||
        getsockname(ls, (struct sockaddr *)&at, &len) != 0)
        return -1;
    for (k = 0; k < CLIENTS; ++k)
        if (fork() == 0) reader(&at);
    set_timeout(ls, 10);
    for (k = 0; k < CLIENTS; ++k) {
        c[k] = (int)accept(ls, NULL, NULL);
        if (c[k] < 0) return -1;
        set_timeout(c[k], 10);
        setsockopt(c[k], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    for (f = 0; f < FRAMES && ok; ++f) {
        double t0 = thread_cpu_us();
        for (k = 0; k < CLIENTS && ok; ++k) {
            size_t done = 0;
            while (done < n && ok) {
                ssize_t w = send(c[k], msg + done, n - done, 0);
                ok = w > 0;
                done += ok ? (size_t)w : 0u;
            }
        }
        rounds[f] = thread_cpu_us() - t0;
        nanosleep(&pause, NULL);
    }
    for (k = 0; k < CLIENTS; ++k) close(c[k]);
    close(ls);
    while (wait(NULL) > 0) {
    }
    free(msg);
    qsort(rounds, FRAMES, sizeof rounds[0], cmp_double);
    return ok ? rounds[FRAMES / 2] : -1;
}

int main(int argc, char **argv)
{
    int a;
    for (a = 1; a < argc; ++a) {
        long n = atol(argv[a]);
        double us = n > 0 ? measure((size_t)n) : -1;
        if (us < 0) {
            fprintf(stderr, "probe_sends: %s bytes: the measurement failed\n", argv[a]);
            return 1;
        }
        char name[64];
        snprintf(name, sizeof name, "loopback_send_3x%ld_bytes_cpu_us", n);
        printf("| %-34s | %12.3f | %-5s | %-44s | %-6s |\n", name, us, "us", "", "");
    }
    return 0;
}
