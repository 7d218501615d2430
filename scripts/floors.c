/* Stage floors for scripts/bench.sh (issue 13): for each stage of `grundy solve`, the memory
 * traffic it cannot avoid, issued as fast as one thread can, with no bookkeeping and no
 * dependence between accesses: parse looks at every byte once; the reverse build makes two
 * random increments per edge (count, scatter); the peel one random byte decrement per edge;
 * evaluation one random read per edge into a 64-bit mask; queries look at their bytes once
 * and read one value per position. Lists are walked in id order, so the floors leave out the
 * random access per node that visiting nodes level by level costs (in the peel and the
 * evaluation): they are optimistic lower bounds, which grundy's stages approach but cannot
 * reach on one thread. Reads the first case of a chess-format file (the structures are built
 * untimed); prints one line, `parse reverse peel evaluate queries`, in seconds.
 *
 *   cc -O3 -march=native -o floors scripts/floors.c && ./floors FILE
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

static const unsigned char *p, *end;

static inline uint32_t next(void) {
    while (p < end && (unsigned)(*p - '0') > 9) p++;
    uint32_t x = 0;
    while (p < end && (unsigned)(*p - '0') <= 9) x = x * 10 + (uint32_t)(*p++ - '0');
    return x;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *grab(size_t bytes) {
    void *q = calloc(bytes ? bytes : 1, 1);
    if (!q) { perror("calloc"); exit(1); }
    return q;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s FILE\n", argv[0]); return 2; }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) { perror(argv[1]); return 1; }
    struct stat st;
    fstat(fd, &st);
    size_t len = (size_t)st.st_size;
    if (!len) return 1;
    p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) { perror("mmap"); return 1; }
    end = p + len;

    /* The structures the floors run over, built untimed. */
    uint32_t n = next();
    uint32_t *off = grab(((size_t)n + 1) * 4), *tgt = NULL;
    size_t m = 0, cap = 0;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t d = next();
        if (m + d > cap) {
            cap = (m + d) * 2;
            tgt = realloc(tgt, cap * 4);
            if (!tgt) { perror("realloc"); return 1; }
        }
        for (uint32_t k = 0; k < d; k++) tgt[m++] = next();
        off[v + 1] = (uint32_t)m;
    }
    const unsigned char *queries = p;
    uint32_t *rstart = grab(((size_t)n + 2) * 4), *rsrc = grab(m * 4);
    for (size_t e = 0; e < m; e++) rstart[tgt[e] + 2]++;
    for (uint32_t v = 0; v < n; v++) rstart[v + 2] += rstart[v + 1];
    for (uint32_t v = 0; v < n; v++)
        for (uint32_t e = off[v]; e < off[v + 1]; e++) rsrc[rstart[tgt[e] + 1]++] = v;
    uint32_t *val = grab((size_t)n * 4), *count = grab((size_t)n * 4);
    unsigned char *pending = grab(n);
    for (uint32_t v = 0; v < n; v++) val[v] = (v * 2654435761u) >> 29;
    uint64_t sink = 0;
    /* Parse: look at every byte once (a vectorised count of the ends of numbers). */
    double t0 = now();
    uint64_t tokens = 0;
    const unsigned char *b = end - len;
    for (size_t i = 0; i + 1 < len; i++)
        tokens += ((unsigned)(b[i] - '0') <= 9) & ((unsigned)(b[i + 1] - '0') > 9);
    sink += tokens;

    /* Reverse: two random increments per edge, independent of each other (count, scatter). */
    double t1 = now();
    for (int pass = 0; pass < 2; pass++)
        for (size_t e = 0; e < m; e++) count[tgt[e]]++;
    sink += count[n / 2];

    /* Peel: one random byte decrement per edge, the reverse lists walked in id order. */
    double t2 = now();
    for (size_t e = 0; e < m; e++) pending[rsrc[e]]--;
    sink += pending[n / 2];

    /* Evaluate: one random read per edge into a mask, the lists walked in id order. */
    double t3 = now();
    for (uint32_t v = 0; v < n; v++) {
        uint64_t mask = 0;
        for (uint32_t e = off[v]; e < off[v + 1]; e++) mask |= 1ull << (val[tgt[e]] & 63);
        sink += (uint64_t)__builtin_ctzll(~mask);
    }

    double evaluated = now();

    /* Queries: look at their bytes once, read one value per position (collected untimed). */
    size_t qlen = (size_t)(end - queries), npos = 0;
    uint32_t *pos = grab(qlen / 2 * 4 + 4);
    for (;;) {
        uint32_t k = next();
        if (k == 0) break;
        for (uint32_t i = 0; i < k; i++) pos[npos++] = next();
    }
    double t4 = now();
    uint64_t bytes = 0;
    for (size_t i = 0; i + 1 < qlen; i++)
        bytes += ((unsigned)(queries[i] - '0') <= 9) & ((unsigned)(queries[i + 1] - '0') > 9);
    uint32_t wins = 0;
    for (size_t i = 0; i < npos; i++) wins ^= val[pos[i]];
    sink += bytes;
    double t5 = now();
    printf("%.4f %.4f %.4f %.4f %.4f\n", t1 - t0, t2 - t1, t3 - t2, evaluated - t3, t5 - t4);
    fprintf(stderr, "%llu\n", (unsigned long long)(sink + wins));
    return 0;
}
