/* This machine's random-read ceiling: how many 64-byte lines at random addresses of a large
 * buffer its cores fetch per second, with the reads asked for ahead (software prefetch, as
 * grundy's search, queries and networkx walk do), on 1 thread and on T threads at once.
 * Each thread reads READS random lines, each asked for AHEAD reads before it is read; the
 * buffer (MiB, on 4 KiB pages or, with huge=1, on 2 MiB pages where the kernel gives them)
 * is far larger than the last-level cache. Prints medians of 7 rounds: the seconds of a round
 * and the lines per second of all threads together.
 *
 *   cc -O2 -pthread -o randread scripts/randread.c && ./randread [MIB] [THREADS] [AHEAD] [HUGE]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define READS 2000000
#define ROUNDS 7

static unsigned char *buf;
static size_t lines;
static int ahead;
static pthread_barrier_t start, stop;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *reader(void *arg) {
    uint64_t s = 0x9E3779B97F4A7C15ull * (uintptr_t)arg + 1;
    size_t *at = malloc(READS * sizeof *at);
    for (size_t i = 0; i < READS; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        at[i] = (s % lines) * 64;
    }
    volatile unsigned sink = 0;
    for (int r = 0; r < ROUNDS; r++) {
        pthread_barrier_wait(&start);
        unsigned acc = 0;
        for (size_t i = 0; i < READS; i++) {
            if (i + ahead < READS) __builtin_prefetch(buf + at[i + ahead]);
            acc += buf[at[i]];
        }
        sink += acc;
        pthread_barrier_wait(&stop);
    }
    free(at);
    return NULL;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? strtoul(argv[1], 0, 10) : 1024;
    int threads = argc > 2 ? atoi(argv[2]) : 1;
    ahead = argc > 3 ? atoi(argv[3]) : 16;
    int huge = argc > 4 ? atoi(argv[4]) : 0;
    size_t size = mib << 20;
    buf = mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) return perror("mmap"), 1;
    madvise(buf, size, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    memset(buf, 1, size);
    lines = size / 64;
    pthread_barrier_init(&start, 0, threads + 1);
    pthread_barrier_init(&stop, 0, threads + 1);
    pthread_t t[64];
    for (int i = 0; i < threads && i < 64; i++) pthread_create(&t[i], 0, reader, (void *)(uintptr_t)(i + 1));
    double secs[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        pthread_barrier_wait(&start);
        double t0 = now();
        pthread_barrier_wait(&stop);
        secs[r] = now() - t0;
    }
    for (int i = 0; i < threads && i < 64; i++) pthread_join(t[i], 0);
    qsort(secs, ROUNDS, sizeof *secs, cmp);
    double m = secs[ROUNDS / 2];
    printf("%zu MiB, %d thread(s), %d ahead, %s pages: %.4f s a round, %.1f M lines/s\n", mib,
           threads, ahead, huge ? "2 MiB" : "4 KiB", m, threads * (double)READS / m / 1e6);
    return 0;
}
