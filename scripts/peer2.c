/* The two-thread peer of `grundy solve` in scripts/bench.sh (issue 27): a C solver of the chess
 * format on two OpenMP threads, written the way a strong competitive programmer would.
 *   Parse: the file is mapped whole and cut at a newline near its middle; each thread turns its
 * half into tokens (AVX2: a 64-byte digit mask per step, token starts from its bits, each token
 * converted by a SWAR multiply; scalar only for the file's last bytes) in its own region of one
 * token array, walking the records (a count, then that many tokens) as it goes and writing where
 * each starts. The first half knows each record's kind (case header, node, query); the second
 * guesses that its first token starts a node or query record. If the first half's last record
 * does not end exactly at the cut, the guess was wrong: the regions are joined and the rest is
 * re-walked sequentially; a case header in the second half (the guess reads it as a counted
 * record) is caught where it is met, and the rest re-walked from it.
 *   The token array is the CSR: node v's record starts at rec[v] (its degree, then its moves).
 *   Values: a memoised iterative depth-first search on both threads, each taking roots from its
 * half of the ids; one state byte per node (0 unvisited, 1 or 2 busy on thread 0 or 1, 3 + value
 * up to 251, or 255 and the value in a side array), claimed by compare-and-swap; each frame ORs
 * its children's values into a 64-bit mask (full: a stamped table over the values); the records
 * of a frame's children are prefetched. A child busy on the other thread is waited for (spinning,
 * then yielding) once the frame's other children are done: in a DAG two threads never wait on
 * each other, so if both do it is a cycle, reported as is a child busy on this thread's own stack.
 * No reverse graph: each edge is read once, the random reads hit a byte per node. Queries are
 * split between the threads. Prints WIN or LOSE per query, every case, as `grundy solve` does;
 * assumes valid input (as peer.c does).
 *
 *   cc -O2 -march=native -fopenmp -o peer2 scripts/peer2.c && OMP_NUM_THREADS=2 ./peer2 FILE
 */
#include <fcntl.h>
#include <immintrin.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static uint32_t *tok, *rec, *big;   /* tokens, record starts, values over 251 */
static uint8_t *st;                 /* node states */
typedef struct { uint32_t u, e, end, late; uint64_t mask; } Frame;
static Frame *stk[2];
static uint32_t *seen[2], stamp[2], waiting[2] = {~0u, ~0u};
static size_t cap_n;                /* nodes the per-node arrays hold */
static uint64_t cap_tok;            /* token slots: 32-bit indices, so at most 2^32 - 1 */

static void too_many(void) { fprintf(stderr, "error: over 2^32 tokens for 32-bit indices\n"); exit(1); }

static void *grab(size_t bytes) {
    void *q = malloc(bytes ? bytes : 1);
    if (!q) { perror("malloc"); exit(1); }
    return q;
}

static void cycle(uint32_t w) { fprintf(stderr, "error: cycle through node %u\n", w); exit(1); }

/* A record walk: phase 0 expects a case header, 1 node records (left to go), 2 queries,
 * 3 counted records of unknown kind (the second half's guess). */
typedef struct { uint64_t nx; uint32_t r, left, phase; } Walk;
static void walk(Walk *w, uint64_t k) {
    while (w->nx < k) {
        uint32_t s = (uint32_t)w->nx, x = tok[s];
        rec[w->r++] = s;
        if (w->phase == 0) { w->nx = s + 1ull; w->left = x; w->phase = x ? 1 : 2; continue; }
        w->nx = s + 1ull + x;
        if (w->phase == 1 && --w->left == 0) w->phase = 2;
        else if (w->phase == 2 && x == 0) w->phase = 0;
    }
}

static inline int dig(unsigned char c) { return (unsigned)(c - '0') <= 9; }
static inline uint64_t digmask(const unsigned char *p) {   /* bit i: p[i] is a digit */
#ifdef __AVX2__
    const __m256i zero = _mm256_set1_epi8('0'), nine = _mm256_set1_epi8(9);
    __m256i a = _mm256_sub_epi8(_mm256_loadu_si256((const __m256i *)p), zero);
    __m256i b = _mm256_sub_epi8(_mm256_loadu_si256((const __m256i *)(p + 32)), zero);
    uint32_t lo = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(a, nine), a));
    uint32_t hi = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(b, nine), b));
    return lo | (uint64_t)hi << 32;
#else
    uint64_t m = 0;
    for (int i = 0; i < 64; i++) m |= (uint64_t)dig(p[i]) << i;
    return m;
#endif
}
static inline uint32_t eight(const unsigned char *q, unsigned len) {   /* 1 <= len <= 8 digits */
    uint64_t w;
    memcpy(&w, q, 8);
    w <<= 64 - 8 * len;   /* the first digit lowest: shifting in zero bytes = leading zeros */
    w = (w & 0x0F0F0F0F0F0F0F0Full) * 2561 >> 8;
    w = (w & 0x00FF00FF00FF00FFull) * 6553601 >> 16;
    return (uint32_t)((w & 0x0000FFFF0000FFFFull) * 42949672960001ull >> 32);
}

/* Tokens of [p, e) into tok[base..]; walks records as it goes; returns the count. Reads up to
 * 144 bytes past a block, never past fend; the cut (e) is whitespace, so no token crosses it. */
static uint32_t scan(const unsigned char *p, const unsigned char *e, const unsigned char *fend,
                     uint32_t base, Walk *w) {
    uint32_t *out = tok + base, k = 0;
    uint64_t carry = 0, m = p + 144 <= fend ? digmask(p) : 0;
    for (; p + 64 <= e && p + 144 <= fend; p += 64) {
        if ((uint64_t)base + k + 32 > cap_tok) too_many();   /* a block adds at most 32 */
        uint64_t mn = digmask(p + 64), starts = m & ~(m << 1 | carry);
        while (starts) {
            unsigned i = (unsigned)__builtin_ctzll(starts), len;
            starts &= starts - 1;
            const unsigned char *q = p + i;
            uint64_t x = ~m >> i;
            len = x ? (unsigned)__builtin_ctzll(x) : 64 - i + (~mn ? (unsigned)__builtin_ctzll(~mn) : 64);
            if (len <= 8) out[k++] = eight(q, len);
            else if (len <= 16) out[k++] = (uint32_t)(eight(q, len - 8) * 100000000ull + eight(q + len - 8, 8));
            else { uint32_t v = 0; while (q < e && dig(*q)) v = v * 10 + (uint32_t)(*q++ - '0'); out[k++] = v; }
        }
        carry = m >> 63;
        m = mn;
        walk(w, (uint64_t)base + k);
    }
    if (carry) while (p < e && dig(*p)) p++;   /* the rest of a token the last block began */
    for (;;) {
        while (p < e && !dig(*p)) p++;
        if (p >= e) break;
        uint32_t v = 0;
        while (p < e && dig(*p)) v = v * 10 + (uint32_t)(*p++ - '0');
        if ((uint64_t)base + k + 1 > cap_tok) too_many();
        out[k++] = v;
    }
    walk(w, (uint64_t)base + k);
    return k;
}

static inline uint32_t value(uint32_t w) {
    uint8_t s = __atomic_load_n(&st[w], __ATOMIC_RELAXED);
    return s != 255 ? s - 3u : big[w];
}

/* Waits for the children of f busy on the other thread; returns the mask of all the children. */
static uint64_t late(int t, const Frame *f, uint32_t start) {
    uint64_t mask = 0;
    for (uint32_t e = start; e < f->end; e++) {
        uint32_t w = tok[e];
        uint8_t s = __atomic_load_n(&st[w], __ATOMIC_ACQUIRE);
        if (s < 3) {
            __atomic_store_n(&waiting[t], w, __ATOMIC_SEQ_CST);
            for (unsigned spin = 0; (s = __atomic_load_n(&st[w], __ATOMIC_ACQUIRE)) < 3; spin++) {
                uint32_t x = __atomic_load_n(&waiting[1 - t], __ATOMIC_SEQ_CST);
                if (x != ~0u && __atomic_load_n(&st[x], __ATOMIC_SEQ_CST) == 1 + t &&
                    __atomic_load_n(&st[w], __ATOMIC_SEQ_CST) < 3) cycle(w);   /* both stuck */
                if (spin < 4096) _mm_pause(); else sched_yield();   /* a shared machine */
            }
            __atomic_store_n(&waiting[t], ~0u, __ATOMIC_SEQ_CST);
        }
        if (s < 67) mask |= 1ull << (s - 3);
    }
    return mask;
}

static void dfs(int t, uint32_t lo, uint32_t hi, const uint32_t *off) {
    const uint8_t me = (uint8_t)(1 + t);
    Frame *sk = stk[t];
    for (uint32_t root = lo; root < hi; root++) {
        uint8_t z = 0;
        if (st[root] || !__atomic_compare_exchange_n(&st[root], &z, me, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            continue;
        size_t top = 0;
        sk[top++] = (Frame){root, off[root] + 1, off[root] + 1 + tok[off[root]], 0, 0};
        while (top) {
            Frame *f = &sk[top - 1];
            if (f->e < f->end) {
                uint32_t w = tok[f->e++];
                if (f->e < f->end) __builtin_prefetch(&tok[off[tok[f->e]]]);   /* the next sibling */
                uint8_t s = __atomic_load_n(&st[w], __ATOMIC_ACQUIRE);
                if (s == 0) {
                    if (__atomic_compare_exchange_n(&st[w], &s, me, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                        uint32_t o = off[w], d = tok[o];
                        sk[top++] = (Frame){w, o + 1, o + 1 + d, 0, 0};
                        for (uint32_t k = 1; k <= d; k++) __builtin_prefetch(&off[tok[o + k]]);
                        continue;
                    }
                }
                if (s >= 3) { if (s < 67) f->mask |= 1ull << (s - 3); }
                else if (s == me) cycle(w);
                else f->late = 1;   /* busy on the other thread: waited for at the end */
                continue;
            }
            uint32_t u = f->u, start = off[u] + 1, g;
            uint64_t mask = f->late ? late(t, f, start) : f->mask;
            if (~mask) g = (uint32_t)__builtin_ctzll(~mask);
            else {   /* 0..63 all taken: a stamped table (the mex is at most the node count) */
                if (!seen[t] && !(seen[t] = calloc(cap_n + 1, 4))) { perror("calloc"); exit(1); }
                uint32_t *sn = seen[t], sp = ++stamp[t];
                for (uint32_t e = start; e < f->end; e++) sn[value(tok[e])] = sp;
                for (g = 64; sn[g] == sp; g++) {}
            }
            if (g < 252) __atomic_store_n(&st[u], (uint8_t)(g + 3), __ATOMIC_RELEASE);
            else { big[u] = g; __atomic_store_n(&st[u], 255, __ATOMIC_RELEASE); }
            if (--top && g < 64) sk[top - 1].mask |= 1ull << g;
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s FILE\n", argv[0]); return 2; }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) { perror(argv[1]); return 1; }
    struct stat sb;
    fstat(fd, &sb);
    size_t len = (size_t)sb.st_size;
    if (!len) return 0;
    const unsigned char *buf = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0), *fend = buf + len;
    if (buf == MAP_FAILED) { perror("mmap"); return 1; }
    madvise((void *)buf, len, MADV_SEQUENTIAL);
    /* The second half's tokens start past a bound on the first half's (half its bytes), so
     * both halves' indices fit 32 bits for files under 8 GB; a larger file (the billion-edge
     * one, 9.2 GB and 1.1 billion tokens) is read while its tokens fit, which scan checks. */
    if (len >= (1ull << 34) - 16) { fprintf(stderr, "error: file over 16 GB\n"); return 1; }

    /* Parse: the cut is the first newline at or after the middle (none: one thread parses). */
    size_t cut = len / 2;
    while (cut < len && buf[cut] != '\n') cut++;
    if ((cut + 1) / 2 + 1 >= UINT32_MAX) too_many();
    uint32_t T1 = (uint32_t)((cut + 1) / 2 + 1);   /* no more tokens than that before the cut */
    size_t cap = (size_t)T1 + (len - cut + 1) / 2 + 1;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    cap_tok = cap;
    tok = grab(cap * 4); rec = grab(cap * 4);
    Walk w0 = {0, 0, 0, 0}, w1 = {T1, T1, 0, 3};
    uint32_t k0 = 0, k1 = 0;
    #pragma omp parallel for schedule(static, 1)
    for (int t = 0; t < 2; t++)
        if (t == 0) k0 = scan(buf, buf + cut, fend, 0, &w0);
        else if (cut < len) k1 = scan(buf + cut + 1, fend, fend, T1, &w1);
    uint32_t R = w0.r, check = ~0u;   /* rec[0..R): the record starts; check: guessed from here */
    uint64_t ktot = k0;
    if (k1 && w0.nx == k0) {   /* the guess was right: the lists joined, the token gap kept */
        memmove(rec + R, rec + T1, (size_t)(w1.r - T1) * 4);
        check = R; R += w1.r - T1; ktot = (uint64_t)T1 + k1;
    } else if (k1) {           /* a record crosses the cut: tokens joined, the rest re-walked */
        memmove(tok + k0, tok + T1, (size_t)k1 * 4);
        ktot = (uint64_t)k0 + k1;
        walk(&w0, ktot); R = w0.r;
    }

    for (uint32_t i = 0; i < R;) {
        uint32_t s = rec[i], n = tok[s];
        if (i >= check && i + 1 < R && rec[i + 1] != s + 1) {   /* a header the guess misread */
            Walk w = {s, i, 0, 0};
            walk(&w, ktot); R = w.r; check = ~0u;
        }
        if (n > R - i - 1) { fprintf(stderr, "error: input ends inside case\n"); return 1; }
        const uint32_t *off = rec + i + 1;
        if (n > cap_n) {
            cap_n = n;
            free(st); free(big); free(stk[0]); free(stk[1]); free(seen[0]); free(seen[1]);
            st = grab(cap_n); big = grab(cap_n * 4);
            stk[0] = grab(cap_n * sizeof(Frame)); stk[1] = grab(cap_n * sizeof(Frame));
            seen[0] = seen[1] = NULL;
        }
        memset(st, 0, n);
        #pragma omp parallel for schedule(static, 1)
        for (int t = 0; t < 2; t++) dfs(t, t ? n / 2 : 0, t ? n : n / 2, off);
        /* Queries until a 0 (or the end), answered half by each thread into one buffer. */
        uint32_t q0 = i + 1 + n, q1 = q0;
        while (q1 < R && tok[rec[q1]]) q1++;
        uint32_t mid = q0 + (q1 - q0) / 2, used[2] = {0, 0};
        char *out = grab((size_t)(q1 - q0) * 5);
        #pragma omp parallel for schedule(static, 1)
        for (int t = 0; t < 2; t++) {
            char *o = out + (size_t)(t ? mid - q0 : 0) * 5, *o0 = o;
            for (uint32_t j = t ? mid : q0, je = t ? q1 : mid; j < je; j++) {
                uint32_t r = rec[j], m = tok[r], x = 0;
                for (uint32_t k = 1; k <= m; k++) x ^= value(tok[r + k]);
                if (x) { memcpy(o, "WIN\n", 4); o += 4; } else { memcpy(o, "LOSE\n", 5); o += 5; }
            }
            used[t] = (uint32_t)(o - o0);
        }
        fwrite(out, 1, used[0], stdout);
        fwrite(out + (size_t)(mid - q0) * 5, 1, used[1], stdout);
        free(out);
        i = q1 + 1;
    }
    return 0;
}
