/* The peer of `grundy solve` in scripts/bench.sh: a plain single-threaded C solver of the
 * chess format, written for the benchmark the way a strong competitive programmer would:
 * the file mapped whole, a tight integer scanner, targets parsed straight into the CSR array,
 * an iterative depth-first search (post-order, no recursion), the mex of up to 64 values in a
 * bitmask. Prints WIN or LOSE per query, every case, as `grundy solve` does; on a cycle it
 * prints an error and exits 1 (grundy names the cycle; the peer is never given one).
 *
 *   cc -O2 -march=native -o peer scripts/peer.c && ./peer FILE
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const unsigned char *p, *end;

/* The next unsigned integer; 0 at the end of the input (the format's terminator anyway). */
static inline uint32_t next(void) {
    while (p < end && (unsigned)(*p - '0') > 9) p++;
    uint32_t x = 0;
    while (p < end && (unsigned)(*p - '0') <= 9) x = x * 10 + (uint32_t)(*p++ - '0');
    return x;
}

static void *grab(size_t bytes) {
    void *q = malloc(bytes ? bytes : 1);
    if (!q) { perror("malloc"); exit(1); }
    return q;
}

static char out[1 << 16];
static size_t used;

static void put(const char *word, size_t len) {
    if (used + len > sizeof out) { fwrite(out, 1, used, stdout); used = 0; }
    memcpy(out + used, word, len);
    used += len;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s FILE\n", argv[0]); return 2; }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) { perror(argv[1]); return 1; }
    struct stat st;
    fstat(fd, &st);
    size_t len = (size_t)st.st_size;
    const unsigned char *buf = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    if (len && buf == MAP_FAILED) { perror("mmap"); return 1; }
    if (len) madvise((void *)buf, len, MADV_SEQUENTIAL);
    p = buf;
    end = buf + len;

    uint32_t *off = NULL, *tgt = NULL, *val = NULL, *stack = NULL, *edge = NULL;
    size_t cap_nodes = 0, cap_edges = 0;
    for (;;) {
        while (p < end && (unsigned)(*p - '0') > 9) p++;
        if (p >= end) break;
        uint32_t n = next();
        if (n + 1 > cap_nodes) {
            cap_nodes = n + 1;
            free(off); free(val); free(stack); free(edge);
            off = grab(cap_nodes * 4); val = grab(cap_nodes * 4);
            stack = grab(cap_nodes * 4); edge = grab(cap_nodes * 4);
        }
        /* Edges: grown by doubling, filled as parsed. */
        size_t m = 0;
        off[0] = 0;
        for (uint32_t v = 0; v < n; v++) {
            uint32_t d = next();
            if (m + d > cap_edges) {
                cap_edges = (m + d) * 2;
                tgt = realloc(tgt, cap_edges * 4);
                if (!tgt) { perror("realloc"); return 1; }
            }
            for (uint32_t k = 0; k < d; k++) tgt[m++] = next();
            off[v + 1] = (uint32_t)m;
        }
        /* Iterative DFS: val = UNSEEN, ONSTACK, or the Grundy value. */
        const uint32_t UNSEEN = 0xffffffffu, ONSTACK = 0xfffffffeu;
        memset(val, 0xff, (size_t)n * 4);
        for (uint32_t root = 0; root < n; root++) {
            if (val[root] != UNSEEN) continue;
            size_t top = 0;
            stack[top] = root; edge[top] = off[root]; val[root] = ONSTACK; top++;
            while (top) {
                uint32_t u = stack[top - 1];
                uint32_t e = edge[top - 1];
                if (e < off[u + 1]) {
                    edge[top - 1] = e + 1;
                    uint32_t w = tgt[e];
                    if (val[w] == UNSEEN) {
                        stack[top] = w; edge[top] = off[w]; val[w] = ONSTACK; top++;
                    } else if (val[w] == ONSTACK) {
                        fprintf(stderr, "error: cycle through node %u\n", w);
                        return 1;
                    }
                    continue;
                }
                /* All moves done: the mex. */
                uint32_t d = off[u + 1] - off[u], g;
                if (d < 64) {
                    uint64_t mask = 0;
                    for (uint32_t k = off[u]; k < off[u + 1]; k++)
                        if (val[tgt[k]] < 64) mask |= 1ull << val[tgt[k]];
                    g = (uint32_t)__builtin_ctzll(~mask);
                } else {
                    unsigned char *seen = calloc(d + 1, 1);
                    for (uint32_t k = off[u]; k < off[u + 1]; k++)
                        if (val[tgt[k]] <= d) seen[val[tgt[k]]] = 1;
                    g = 0;
                    while (seen[g]) g++;
                    free(seen);
                }
                val[u] = g;
                top--;
            }
        }
        /* Queries until a 0. */
        for (;;) {
            uint32_t k = next();
            if (k == 0) break;
            uint32_t sum = 0;
            for (uint32_t i = 0; i < k; i++) sum ^= val[next()];
            if (sum) put("WIN\n", 4); else put("LOSE\n", 5);
        }
    }
    fwrite(out, 1, used, stdout);
    return 0;
}
