"""RUCB (Zoghi et al., 2014) speaking duelbound's line protocol, in Python: what a program
in any language does (see rucb.c for the same in C)::

    duelbound verify --exec "python3 examples/exec/rucb_lines.py" --only cyclic
"""

import math
import random
import sys


def main() -> int:
    header = sys.stdin.readline().split()
    if header[:2] != ["duelbound", "1"]:
        print(f"bad header {header!r}", file=sys.stderr)
        return 2
    K, T, seed = (int(x) for x in header[2:5])
    rng = random.Random(seed)
    W = [[0.0] * K for _ in range(K)]
    alpha = 0.51

    def ucb(i, j, log_t):
        n = W[i][j] + W[j][i]
        return 0.5 if i == j else (W[i][j] / n + math.sqrt(alpha * log_t / n) if n else 1.0)

    for t in range(1, T + 1):
        def u(i, j, log_t=math.log(t)):  # noqa: B008 — this round's log t
            return ucb(i, j, log_t)
        cand = [i for i in range(K) if all(u(i, j) >= 0.5 for j in range(K))]
        c = rng.choice(cand) if cand else rng.randrange(K)
        others = [j for j in range(K) if j != c]
        top = max(u(j, c) for j in others)
        d = rng.choice([j for j in others if u(j, c) == top]) if top >= 0.5 else c
        print(c, d, flush=True)
        answer = sys.stdin.readline().split()
        if not answer or answer[0] == "-1":
            print(f"request {t} refused: {' '.join(answer[1:])}", file=sys.stderr)
            return 1
        if answer[0] == "1":
            W[c][d] += 1
        else:
            W[d][c] += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
