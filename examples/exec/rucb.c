/* RUCB (Zoghi et al., 2014) speaking duelbound's line protocol, in C.
 *
 *   cc -O2 -o rucb rucb.c -lm
 *   duelbound verify --exec ./rucb --only cyclic
 *
 * Protocol (docs/verification.md, "Any language"): read the header
 * "duelbound 1 K T SEED"; then T times: write a request "i j" (0-based arms), flush,
 * read the answer "1" (i won), "0" (j won) or "-1 reason" (refused). Exit 0 when done.
 * RUCB assumes a Condorcet winner: on matrices without one, verify says so.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state;

static uint64_t next(void) { /* xorshift64*: the algorithm's own randomness, from SEED */
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 2685821657736338717ULL;
}

int main(void) {
    int K;
    long T;
    unsigned long long seed;
    if (scanf("duelbound 1 %d %ld %llu", &K, &T, &seed) != 3 || K < 2) {
        fprintf(stderr, "rucb: bad header\n");
        return 2;
    }
    state = seed * 0x9E3779B97F4A7C15ULL + 1;
    double *W = calloc((size_t)K * K, sizeof *W), *U = calloc((size_t)K * K, sizeof *U);
    int *cand = calloc((size_t)K, sizeof *cand);
    const double alpha = 0.51;
    for (long t = 1; t <= T; t++) {
        for (int i = 0; i < K; i++)
            for (int j = 0; j < K; j++) {
                double n = W[i * K + j] + W[j * K + i];
                U[i * K + j] = i == j ? 0.5
                             : n > 0 ? W[i * K + j] / n + sqrt(alpha * log((double)t) / n)
                                     : 1.0;
            }
        int nc = 0;
        for (int i = 0; i < K; i++) {
            int ok = 1;
            for (int j = 0; j < K; j++) ok &= U[i * K + j] >= 0.5;
            if (ok) cand[nc++] = i;
        }
        int c = nc ? cand[next() % nc] : (int)(next() % K);
        int d = c;
        double best = -1.0;
        for (int j = 0; j < K; j++) /* the strongest challenger of c, ties at random */
            if (j != c && (U[j * K + c] > best ||
                           (U[j * K + c] == best && next() % 2))) {
                best = U[j * K + c];
                d = j;
            }
        if (best < 0.5) d = c; /* nobody can still beat c: a self-duel */
        printf("%d %d\n", c, d);
        fflush(stdout);
        int won;
        if (scanf("%d%*[^\n]", &won) != 1 || won < 0) {
            fprintf(stderr, "rucb: request %ld refused\n", t);
            return 1;
        }
        if (won) W[c * K + d] += 1.0; else W[d * K + c] += 1.0;
    }
    return 0;
}
