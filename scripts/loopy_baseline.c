/* The baseline of `grundy solve --loopy` in scripts/loopy.sh: a plain single-threaded
 * implementation of the same labelling (stages m = 0, 1, ... with counters and a queue, no
 * peeling, no parallelism), reading the first case of a chess-format file and printing WIN,
 * LOSE or DRAW per query. Written for the benchmark, as a careful C programmer would on a
 * first go: one fread, a hand-written integer scanner, CSR arrays.
 *
 *   cc -O2 -o loopy_baseline scripts/loopy_baseline.c && ./loopy_baseline FILE
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define OPEN 0xfffffffeu
#define INF 0xffffffffu

static unsigned char *buf;
static size_t len, pos;

static int next(uint32_t *out) {
    while (pos < len && (buf[pos] < '0' || buf[pos] > '9')) pos++;
    if (pos >= len) return 0;
    uint64_t x = 0;
    while (pos < len && buf[pos] >= '0' && buf[pos] <= '9') x = x * 10 + (buf[pos++] - '0');
    *out = (uint32_t)x;
    return 1;
}

static void *grab(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) { perror("malloc"); exit(1); }
    return p;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s FILE\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = grab(len);
    if (fread(buf, 1, len, f) != len) { perror("fread"); return 1; }
    fclose(f);

    uint32_t n, d, t;
    if (!next(&n)) return 0;
    uint32_t *off = grab(((size_t)n + 1) * 4);
    size_t cap = 1 << 20, m = 0;
    uint32_t *tgt = grab(cap * 4);
    off[0] = 0;
    for (uint32_t v = 0; v < n; v++) {
        next(&d);
        for (uint32_t k = 0; k < d; k++) {
            next(&t);
            if (m == cap) { cap *= 2; tgt = realloc(tgt, cap * 4); if (!tgt) return 1; }
            tgt[m++] = t;
        }
        off[v + 1] = (uint32_t)m;
    }
    /* Reverse graph. */
    uint32_t *roff = calloc((size_t)n + 1, 4), *rt = grab(m * 4);
    for (size_t e = 0; e < m; e++) roff[tgt[e] + 1]++;
    for (uint32_t v = 0; v < n; v++) roff[v + 1] += roff[v];
    uint32_t *cur = grab((size_t)n * 4);
    for (uint32_t v = 0; v < n; v++) cur[v] = roff[v];
    for (uint32_t v = 0; v < n; v++)
        for (uint32_t e = off[v]; e < off[v + 1]; e++) rt[cur[tgt[e]]++] = v;
    free(cur);

    /* Stages. */
    uint32_t *label = grab((size_t)n * 4), *hits = grab((size_t)n * 4), *owed = grab((size_t)n * 4);
    uint32_t *open = grab((size_t)n * 4), *inf = grab((size_t)n * 4), *queue = grab((size_t)n * 8 + 8);
    size_t nopen = n, ninf = 0, qcap = (size_t)n * 2 + 2;
    for (uint32_t v = 0; v < n; v++) { label[v] = OPEN; open[v] = v; }
    for (uint32_t stage = 0; nopen > 0; stage++) {
        size_t q = 0;
        for (size_t i = 0; i < nopen; i++) hits[open[i]] = 0;
        for (size_t i = 0; i < ninf; i++) hits[inf[i]] = 0;
        for (size_t i = 0; i < nopen; i++) {
            uint32_t u = open[i], c = 0;
            for (uint32_t e = off[u]; e < off[u + 1]; e++) c += label[tgt[e]] >= OPEN;
            owed[u] = c;
            if (c == 0) queue[q++] = u;
        }
        while (q > 0) {
            uint32_t u = queue[--q];
            if (label[u] != OPEN || hits[u] || owed[u]) continue;
            label[u] = stage;
            for (uint32_t e = roff[u]; e < roff[u + 1]; e++) {
                uint32_t v = rt[e];
                if (label[v] < OPEN) continue;
                if (++hits[v] > 1) continue;
                for (uint32_t g = roff[v]; g < roff[v + 1]; g++) {
                    uint32_t w = rt[g];
                    if (label[w] == OPEN && --owed[w] == 0 && hits[w] == 0) {
                        if (q == qcap) { qcap *= 2; queue = realloc(queue, qcap * 4); if (!queue) return 1; }
                        queue[q++] = w;
                    }
                }
            }
        }
        size_t keep = 0;
        for (size_t i = 0; i < nopen; i++) {
            uint32_t u = open[i];
            if (label[u] == OPEN && hits[u] == 0) { label[u] = INF; inf[ninf++] = u; }
            if (label[u] == OPEN) open[keep++] = u;
        }
        nopen = keep;
    }

    /* Queries of the first case. */
    uint32_t k, p;
    char *out = grab(1 << 16);
    size_t used = 0;
    while (next(&k) && k > 0) {
        uint32_t sum = 0, infinite = 0, token = 0;
        for (uint32_t i = 0; i < k; i++) {
            next(&p);
            if (label[p] == INF) { infinite++; token = p; } else sum ^= label[p];
        }
        const char *word;
        if (infinite == 0) word = sum ? "WIN\n" : "LOSE\n";
        else if (infinite > 1) word = "DRAW\n";
        else {
            word = "DRAW\n";
            for (uint32_t e = off[token]; e < off[token + 1]; e++)
                if (label[tgt[e]] == sum) { word = "WIN\n"; break; }
        }
        for (const char *c = word; *c; c++) out[used++] = *c;
        if (used > (1 << 16) - 8) { fwrite(out, 1, used, stdout); used = 0; }
    }
    fwrite(out, 1, used, stdout);
    return 0;
}
