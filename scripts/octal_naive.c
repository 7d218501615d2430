/* The baseline of `grundy octal` in scripts/bench.sh (issue 14): the plain method, one thread,
 * written for the benchmark as a careful C programmer would: for every heap, every move's
 * value marked in a byte array, then the mex. Octal codes whose moves leave at most two heaps.
 * Prints the CSV `n,grundy` that `grundy octal -o` writes.
 *
 *   cc -O2 -march=native -o octal_naive scripts/octal_naive.c && ./octal_naive 0.007 100000
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s CODE N\n", argv[0]); return 2; }
    const char *code = argv[1], *dot = strchr(code, '.');
    long n = atol(argv[2]);
    if (!dot || n < 0) { fprintf(stderr, "error: expected CODE like 0.07 and N >= 0\n"); return 2; }
    int digits[64], k = 0;
    digits[k++] = dot > code ? code[0] - '0' : 0;
    for (const char *c = dot + 1; *c && k < 64; c++) digits[k++] = *c - '0';
    for (int j = 0; j < k; j++)
        if (digits[j] < 0 || digits[j] > 7) { fprintf(stderr, "error: not an octal code\n"); return 2; }
    uint32_t *g = malloc(((size_t)n + 1) * 4);
    size_t cap = 1024;
    unsigned char *seen = calloc(cap, 1);
    if (!g || !seen) { perror("malloc"); return 1; }
    uint32_t top = 0; /* every value so far is below top, a power of two */
    for (long h = 0; h <= n; h++) {
        uint32_t bound = top ? top : 1; /* every move's value is below it */
        memset(seen, 0, bound + 1);
        for (int j = 0; j < k; j++) {
            int d = digits[j];
            if ((d & 1) && h == j) seen[0] = 1;
            if ((d & 2) && h > j) seen[g[h - j]] = 1;
            if (d & 4) {
                long m = h - j;
                for (long a = 1; a <= m / 2; a++) seen[g[a] ^ g[m - a]] = 1;
            }
        }
        uint32_t x = 0;
        while (seen[x]) x++;
        g[h] = x;
        while (x >= top) top = top ? top * 2 : 1;
        if (top + 1 > cap) {
            cap = (size_t)top * 2;
            seen = realloc(seen, cap);
            if (!seen) { perror("realloc"); return 1; }
        }
    }
    printf("n,grundy\n");
    for (long h = 0; h <= n; h++) printf("%ld,%u\n", h, g[h]);
    return 0;
}
