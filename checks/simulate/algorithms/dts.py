"""D-TS and D-TS+: Double Thompson Sampling for Copeland dueling bandits ([W16] Alg. 1, §4.3)."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ....compat import require

# the imports below are numba internals, tested on the range pyproject.toml allows
require("numba", nb.__version__)

from llvmlite import ir  # noqa: E402
from numba.core import cgutils, types  # noqa: E402
from numba.extending import intrinsic  # noqa: E402
from numba.np.random.generator_core import next_uint64  # noqa: E402

from ..environment import duel, finished  # noqa: E402
from .common import (  # noqa: E402
    AlgorithmSpec,
    kl_half_scalar,
    lcb_at_most_half,
    random_argmax,
)
from .schedule import ABOVE, new_schedule, pop_due, refresh  # noqa: E402

TWO53 = 9007199254740992.0  # 2**53: a uniform of the generator is k / 2**53, k < 2**53
NBITS = 53
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
ONE64 = np.uint64(1)


@intrinsic
def _popcount(typingctx, x):
    """Number of set bits of a uint64 (LLVM ctpop)."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.ctpop.i64")
        return builder.call(fn, args)
    return types.uint64(types.uint64), codegen


@intrinsic
def _ctz(typingctx, x):
    """Index of the lowest set bit of a non-zero uint64 (LLVM cttz)."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(1)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.cttz.i64")
        return builder.call(fn, (args[0], ir.Constant(ir.IntType(1), 0)))
    return types.uint64(types.uint64), codegen


@nb.njit(cache=True)
def _bits(rng):
    """64 random bits: the next output of the run's generator (PCG64)."""
    return next_uint64(rng.bit_generator)


@nb.njit(cache=True)
def _uniform(rng):
    """The value ``rng.random()`` would return (numpy: (next 64 bits >> 11) / 2**53),
    without numba's per-call overhead."""
    return (_bits(rng) >> np.uint64(11)) * (1.0 / TWO53)


@nb.njit(cache=True)
def _update_above_half(P, LQ, W, i, j, i_won):
    """Keep P[a, b] = P(θ_ab > 1/2), θ_ab ~ Beta(W_ab+1, W_ba+1), after a duel (i, j).

    For integers: P(Beta(W_ab+1, W_ba+1) > 1/2) = F(n, k) := P(Bin(n, 1/2) ≤ k) with
    n = N_ab + 1, k = W_ab. One duel moves n by 1 and F by half a binomial pmf:
    F(n+1, k+1) = F(n, k) + pmf(n, k+1)/2 (a won), F(n+1, k) = F(n, k) − pmf(n, k)/2
    (a lost); LQ[a, b] = log pmf(n, k) follows by the pmf ratios (no lgamma, no
    underflow). ``W`` is already updated; (a, b) = (min, max) of (i, j).
    LQ[b, a] = log pmf(n, W_ba) = log pmf(n, W_ab + 1) (Bin(n, 1/2) is symmetric) is kept
    too, by the expression its readers evaluated per draw before (same bits, one ``log``
    per duel instead of one per phase-2 check: ≈ 10 % of a step at K = 200).
    """
    a = min(i, j)
    b = max(i, j)
    a_won = i_won if i == a else not i_won
    n = W[a, b] + W[b, a]  # = n before the duel (N grew by 1)
    lq = LQ[a, b]
    if a_won:
        k = W[a, b] - 1
        v = P[a, b] + 0.5 * math.exp(lq + math.log((n - k) / (k + 1.0)))
        LQ[a, b] = lq + math.log((n + 1.0) / (2.0 * (k + 1.0)))
    else:
        k = W[a, b]
        v = P[a, b] - 0.5 * math.exp(lq)
        LQ[a, b] = lq + math.log((n + 1.0) / (2.0 * (n + 1.0 - k)))
    w = W[a, b]
    LQ[b, a] = LQ[a, b] + math.log((w + W[b, a] + 1.0 - w) / (w + 1.0))
    v = min(max(v, 0.0), 1.0)
    P[a, b] = v
    P[b, a] = 1.0 - v


@nb.njit(cache=True)
def _beta_above_half(W, P, LQ, rng, i, j):
    """θ ~ Beta(W_ij+1, W_ji+1) conditioned on θ > 1/2 (probability P_ij).

    P_ij ≥ 1/2: rejection (≤ 2 draws on average). Otherwise, exactly with one Beta draw
    and a short walk (the terms below W_ij fall geometrically): with n = N_ij + 1
    uniforms, Beta(W_ij+1, W_ji+1) is the (W_ij+1)-th smallest, and θ > 1/2 ⇔
    k = #{uniforms ≤ 1/2} ≤ W_ij, k ~ Bin(n, 1/2).
    Draw k from that binomial truncated to ≤ W_ij by inverting its CDF downwards from
    W_ij (pmf from ``LQ``, ratios pmf(k−1)/pmf(k) = k/(n−k+1)); given k, the n − k
    uniforms above 1/2 are iid U(1/2, 1), so θ = 1/2 + Beta(W_ij+1−k, W_ji+1)/2.
    """
    a = W[i, j] + 1.0
    b = W[j, i] + 1.0
    p = P[i, j]
    if a == 1.0 and b == 1.0:  # no duel yet: Beta(1, 1) > 1/2 is uniform on (1/2, 1)
        return 0.5 + 0.5 * _uniform(rng)
    if p >= 0.5:
        while True:
            x = rng.beta(a, b)
            if x > 0.5:
                return x
    n = a + b - 1.0
    lp = LQ[i, j]  # log pmf(n, W_ij), both orientations kept by _update_above_half
    k = a - 1.0
    pm = math.exp(lp)
    target = _uniform(rng) * p
    acc = 0.0
    while True:
        acc += pm
        if acc >= target or k <= 0.0:
            break
        pm *= k / (n - k + 1.0)
        k -= 1.0
    return 0.5 + 0.5 * rng.beta(a - k, b)


@nb.njit(cache=True)
def _beta_above_level(W, P, LQ, rng, i, j, m, lm, l1m):
    """For θ ~ Beta(W_ij+1, W_ji+1) conditioned on θ > 1/2 and a level 1/2 < m < 1 (lm =
    log m, l1m = log(1 − m)): θ if θ > m, else -1 (then θ itself is not drawn).

    As in :func:`_beta_above_half` with the level m in place of 1/2: with n = N_ij + 1,
    θ > m ⇔ k ≤ W_ij for k ~ Bin(n, m), and given k, θ = m + (1 − m)·Beta(W_ij+1−k, W_ji+1).
    One uniform u: target = u·P(θ > 1/2); the Bin(n, m) pmf is summed downwards from
    k = W_ij; reaching the target at k means θ > m (probability P(θ > m)/P(θ > 1/2)) with
    that k (the truncated binomial by inversion); the sum stops as soon as its
    remaining terms — decreasing geometrically once their ratio
    k(1 − m)/((n − k + 1)m) is below 1 — cannot reach the target (θ ≤ m).
    """
    a = W[i, j] + 1.0
    b = W[j, i] + 1.0
    p = P[i, j]
    n = a + b - 1.0
    lp = LQ[i, j]  # log pmf(n, W_ij) at 1/2 (both orientations: _update_above_half)
    # pmf at m of k = W_ij: C(n, k) m^k (1 − m)^(n − k), C(n, k) = pmf_{1/2} · 2^n
    k = a - 1.0
    pm = math.exp(lp + n * math.log(2.0) + k * lm + b * l1m)
    q = (1.0 - m) / m
    target = _uniform(rng) * p
    acc = 0.0
    while True:
        acc += pm
        if acc >= target:
            return m + (1.0 - m) * rng.beta(a - k, b)
        if k <= 0.0:
            return -1.0
        r = k / (n - k + 1.0) * q
        pm *= r
        k -= 1.0
        if r < 1.0 and acc + pm / (1.0 - r) * (1.0 + 1e-9) < target:
            return -1.0


@nb.njit(cache=True)
def _lane_prob(P, i, j):
    """c with P(θ_ij > 1/2) = c / 2**53 exactly as ``rng.random() < P[lo, hi]`` draws it
    for (lo, hi) = (min, max) of (i, j): c = ⌈P_lo,hi · 2**53⌉ for i < j, 2**53 − that else."""
    lo = min(i, j)
    hi = max(i, j)
    c = np.int64(math.ceil(P[lo, hi] * TWO53))
    return c if i == lo else np.int64(TWO53) - c


@nb.njit(cache=True)
def _set_lane(CP, ONE, i, j, c):
    """Store c (0 ≤ c ≤ 2**53) as lane j of row i: bit planes CP[i, j // 64, b] hold the
    bits of c from the most significant (b = 0: 2**52); ONE marks c = 2**53 (sure)."""
    w = j >> 6
    bit = ONE64 << np.uint64(j & 63)
    if c >= np.int64(TWO53):
        ONE[i, w] |= bit
        c = 0
    else:
        ONE[i, w] &= ~bit
    keep = ~bit
    cu = np.uint64(c)
    sh = np.uint64(j & 63)
    for b in range(NBITS):  # branch-free: bit b of c (from the top) into lane j
        CP[i, w, b] = (CP[i, w, b] & keep) | (((cu >> np.uint64(NBITS - 1 - b)) & ONE64) << sh)


@nb.njit(cache=True)
def _set_pair(CP, ONE, P, i, j):
    """Lanes (i, j) and (j, i) after P[i, j] changed."""
    c = _lane_prob(P, i, j)
    _set_lane(CP, ONE, i, j, c)
    _set_lane(CP, ONE, j, i, np.int64(TWO53) - c)


@nb.njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@nb.njit(cache=True)
def _seed_bits(rng):
    """State of the lane-bit generator (xoshiro256**), seeded from the run's generator."""
    xs = np.zeros(4, np.uint64)
    while (xs[0] | xs[1] | xs[2] | xs[3]) == 0:
        for k in range(4):
            xs[k] = _bits(rng)
    return xs


@nb.njit(cache=True)
def _draw_word(CP, ONE, i, w, mask, xs):
    """The events θ_ij > 1/2 of the lanes j of word w of row i selected by ``mask``, all at
    once: lane j is [k_j < c_ij] with k_j a uniform 53-bit integer whose bits are drawn
    from the most significant, one 64-bit random word per bit position for all lanes; a
    lane is decided at its first bit differing from c_ij (k_j < c_ij iff k_j has the 0
    there), lanes still equal after all 53 bits have k_j = c_ij (event false). Each lane
    is Bernoulli(c_ij / 2**53) — the law of ``rng.random() < P`` — independently of the
    other lanes; ≈ log2(64) + 1.3 words per call (every undecided lane is decided at each
    bit with probability 1/2). The words come from xoshiro256** (state ``xs``, seeded
    from the run's generator by :func:`_seed_bits`), inlined: 64 random bits cost about a
    third of a call into the generator's bit generator here."""
    out = ONE[i, w] & mask
    und = mask & ~ONE[i, w]
    s0, s1, s2, s3 = xs[0], xs[1], xs[2], xs[3]
    planes = CP[i, w]  # the lane's bit planes, one 1-D view (no 3-D indexing in the loop)
    b = 0
    while und != 0 and b < NBITS:
        r = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
        tt = s1 << np.uint64(17)
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= tt
        s3 = _rotl(s3, 45)
        cb = planes[b]
        out |= und & ~r & cb
        und &= ~(r ^ cb)
        b += 1
    xs[0], xs[1], xs[2], xs[3] = s0, s1, s2, s3
    return out


@nb.njit(cache=True)
def _above_mask(i, w):
    """The lanes j > i of word w."""
    wi = i >> 6
    if w < wi:
        return np.uint64(0)
    if w > wi:
        return ALL
    return (ALL << np.uint64(i & 63)) << ONE64


@nb.njit(cache=True)
def _field_low(width):
    """The bit 0 of every ``width``-bit field of a word (``width`` a power of 2)."""
    low = ONE64
    f = width
    while f < 64:
        low |= low << np.uint64(f)
        f *= 2
    return low


@nb.njit(cache=True)
def _add_column(VC, w, x, low):
    """Add 1 to the column counters of the lanes set in x (word w of lanes).

    SWAR counters, fields of ``width`` = VC.shape[1] bits: VC[w, k] holds the counters of
    the lanes k, k + width, … of word w, lane k + q·width in bits [q·width, (q+1)·width).
    A fixed ``width`` shifted adds, no carry chain to follow (a bit-sliced counter's carry
    loop cost a third of the phase-1 draws at K = 200); a column never counts more than
    K − 1 < 2**width lanes (each pair is drawn once). ``low`` = :func:`_field_low` (width),
    computed once by the caller (a 64-bit division here per word cost 10 % of phase 1)."""
    width = VC.shape[1]
    for k in range(width):
        VC[w, k] += (x >> np.uint64(k)) & low


@nb.njit(cache=True)
def _column_count(VC, j):
    """Column j's counter (see :func:`_add_column`)."""
    width = VC.shape[1]
    lane = j & 63
    field = VC[j >> 6, lane % width] >> np.uint64((lane // width) * width)
    return np.int64(field & ((ONE64 << np.uint64(width)) - ONE64))


@nb.njit(cache=True)
def _draw_rows(CP, ONE, outside, inC, Cm, valid, EB, VC, votes, xs):
    """Draw the events of the pairs touching C (``outside`` False) or of the pairs outside
    C, each pair once: row i ∈ C takes the lanes j ∉ C and the lanes j ∈ C with j > i;
    (``outside``) row i ∉ C the lanes j ∉ C with j > i. votes[i] += #{θ_ij > 1/2} of
    its lanes, the other side (θ_ji > 1/2) is counted in column j's counter VC
    (:func:`_add_column`); the
    drawn words are kept in EB (row of the pair: :func:`_drawn_above`)."""
    K = inC.shape[0]
    nw = Cm.shape[0]
    low = _field_low(VC.shape[1])
    for i in range(K):
        if inC[i] == outside:
            continue
        s = 0
        for w in range(nw):
            out = valid[w] & ~Cm[w]
            if outside:
                out &= _above_mask(i, w)
            else:
                out |= Cm[w] & _above_mask(i, w)
            e = np.uint64(0)
            if out != 0:
                e = _draw_word(CP, ONE, i, w, out, xs)
                s += np.int64(_popcount(e))
                _add_column(VC, w, out & ~e, low)
            EB[i, w] = e
        votes[i] += s


@nb.njit(cache=True)
def _drawn_above(EB, inC, i, j):
    """θ_ij > 1/2 as drawn by :func:`_draw_rows`: in row i if j ∉ C ∋ i or both or neither
    in C and i < j, else (θ_ji's word in row j) its complement."""
    if inC[i] != inC[j]:
        own = inC[i]
    else:
        own = i < j
    if own:
        return (EB[i, j >> 6] >> np.uint64(j & 63)) & ONE64 != 0
    return (EB[j, i >> 6] >> np.uint64(i & 63)) & ONE64 == 0


@nb.njit(cache=True)
def _plus_tie_break(W, P, LQ, CP, ONE, inC, Cm, valid, EB, VC, votes, wins, theta, xs, rng,
                    best, score, mask):
    """D-TS+'s tie-break ([W16] §4.3) among A = {i ∈ C : votes_i = best}: ζ̃ of every arm
    (the events of the pairs outside C are drawn now), θ_ij for the rows of A given their
    side of 1/2 (θ_ji = 1 − θ_ij shared between two rows of A), a1 = argmin_{i∈A} R̃_i with
    R̃_i = Σ_{j≠i} (ζ̃* − (ζ̃_i + ζ̃_j)/2) / d(θ_ij, 1/2); remaining ties at random."""
    K = W.shape[0]
    _draw_rows(CP, ONE, True, inC, Cm, valid, EB, VC, votes, xs)
    top = 0.0
    for i in range(K):
        wins[i] = votes[i] + _column_count(VC, i)
        top = max(top, wins[i])
    zstar = top / (K - 1)
    for i in range(K):
        mask[i] = inC[i] and wins[i] == best
    for i in range(K):
        if mask[i]:
            r = 0.0
            for j in range(K):
                if j == i:
                    continue
                if mask[j] and j < i:  # drawn for row j already
                    th = 1.0 - theta[j, i]
                elif _drawn_above(EB, inC, i, j):
                    th = _beta_above_half(W, P, LQ, rng, i, j)
                else:
                    th = 1.0 - _beta_above_half(W, P, LQ, rng, j, i)
                theta[i, j] = th
                rij = zstar - 0.5 * (wins[i] + wins[j]) / (K - 1)
                r += rij / kl_half_scalar(th)
            score[i] = -r
    return random_argmax(score, mask, rng)


@nb.njit(cache=True)
def new_state(P, rng):
    """The sampler's arrays for a run on K arms with probabilities P (P[i, j] = P(θ_ij > 1/2))."""
    K = P.shape[0]
    nw = (K + 63) // 64
    CP = np.zeros((K, nw, NBITS), np.uint64)
    ONE = np.zeros((K, nw), np.uint64)
    for i in range(K):
        for j in range(K):
            if j != i:
                _set_lane(CP, ONE, i, j, _lane_prob(P, i, j))
    valid = np.zeros(nw, np.uint64)
    for j in range(K):
        valid[j >> 6] |= ONE64 << np.uint64(j & 63)
    width = 1  # counter field width of _add_column: a power of 2 with 2**width > K − 1
    while (1 << width) < K:
        width *= 2
    return (CP, ONE, valid, np.zeros(nw, np.uint64), np.zeros((K, nw), np.uint64),
            np.zeros((nw, width), np.uint64), np.zeros(K, np.int64), np.zeros(K),
            np.zeros((K, K)), np.empty(K), np.zeros(K, np.bool_), np.zeros(K, np.bool_),
            np.zeros(nw, np.uint64), _seed_bits(rng))


@nb.njit(cache=True)
def choose(W, P, LQ, state, zeta, alt, plus, rng):
    """One step of D-TS (D-TS+ when ``plus``): (a1, a2) given the counts W, the event
    probabilities P (log pmf LQ, see :func:`_update_above_half`), ζ̂ (``zeta``) and
    α ln t (``alt``). See :func:`run_dts` for what is drawn."""
    CP, ONE, valid, Cm, EB, VC, votes, wins, theta, score, mask, inC, AL, xs = state
    K = W.shape[0]
    nw = valid.shape[0]
    best = zeta.max()
    nC = 0
    a1 = -1
    Cm[:] = 0
    for i in range(K):
        inC[i] = zeta[i] == best
        if inC[i]:
            if nC == 0:
                a1 = i
            nC += 1
            Cm[i >> 6] |= ONE64 << np.uint64(i & 63)
    if nC > 1:
        VC[:, :] = 0
        votes[:] = 0
        _draw_rows(CP, ONE, False, inC, Cm, valid, EB, VC, votes, xs)
        top = -1.0
        nA = 0
        for i in range(K):
            if inC[i]:
                wins[i] = votes[i] + _column_count(VC, i)
                if wins[i] > top:
                    top = wins[i]
                    nA = 0
                    a1 = i
                nA += wins[i] == top
        if nA > 1:
            if plus:
                a1 = _plus_tie_break(W, P, LQ, CP, ONE, inC, Cm, valid, EB, VC, votes, wins,
                                     theta, xs, rng, top, score, mask)
            else:
                a1 = random_argmax(wins, inC, rng)
    # Phase 2: a2 = argmax θ' over {i : l_{i a1} ≤ 1/2}, θ'_{a1 a1} = 1/2. Only the arms
    # with θ' > 1/2 can beat a1: draw those events first (lanes of row a1: θ'_{i a1} > 1/2
    # is θ_{a1 i} < 1/2), values only if ≥ 2 are up.
    AL[:] = 0
    for i in range(K):
        if i != a1 and lcb_at_most_half(W, i, a1, alt):
            AL[i >> 6] |= ONE64 << np.uint64(i & 63)
    nup = 0
    for w in range(nw):
        if AL[w] != 0:
            AL[w] &= ~_draw_word(CP, ONE, a1, w, AL[w], xs)
            nup += np.int64(_popcount(AL[w]))
    if nup == 0:
        return a1, a1
    if nup == 1:
        for w in range(nw):
            if AL[w] != 0:
                return a1, w * 64 + np.int64(_ctz(AL[w]))
    # ≥ 2 up: a2 is the arm of the largest θ' given θ' > 1/2, revealed record by record:
    # the arms never dueled with a1 have θ' | θ' > 1/2 iid uniform on (1/2, 1), so their
    # maximum (m of them) is 1/2 + V^(1/m)/2, at a uniformly chosen one; each other arm
    # in turn only has to be checked against the running maximum (θ' itself is drawn only
    # when it beats it, :func:`_beta_above_level`). The arms are independent, so the last
    # record holder has the law of argmax θ'.
    m = 0
    for w in range(nw):
        x = AL[w]
        while x != 0:
            i = w * 64 + np.int64(_ctz(x))
            x &= x - ONE64
            m += W[i, a1] + W[a1, i] == 0
    top = 0.5
    a2 = -1
    pick = -1
    first_arm = -1
    if m > 0:
        pick = min(int(_uniform(rng) * m), m - 1)
        top = 0.5 + 0.5 * _uniform(rng) ** (1.0 / m)
    else:  # start with the arm of the largest posterior mean: fewer records later
        first = -1.0
        for w in range(nw):
            x = AL[w]
            while x != 0:
                i = w * 64 + np.int64(_ctz(x))
                x &= x - ONE64
                mean = (W[i, a1] + 1.0) / (W[i, a1] + W[a1, i] + 2.0)
                if mean > first:
                    first = mean
                    a2 = i
        first_arm = a2
        top = _beta_above_half(W, P, LQ, rng, a2, a1)
    lm = 0.0
    l1m = 0.0
    if top < 1.0:
        lm = math.log(top)
        l1m = math.log1p(-top)
    for w in range(nw):
        x = AL[w]
        while x != 0:
            i = w * 64 + np.int64(_ctz(x))
            x &= x - ONE64
            if W[i, a1] + W[a1, i] == 0:
                if pick == 0 and a2 < 0:  # no other arm has beaten the maximum yet
                    a2 = i
                pick -= 1
            elif i != first_arm and top < 1.0:
                th = _beta_above_level(W, P, LQ, rng, i, a1, top, lm, l1m)
                if th > top:
                    top = th
                    a2 = i
                    if top < 1.0:
                        lm = math.log(top)
                        l1m = math.log1p(-top)
    return a1, a2


@nb.njit(cache=True, nogil=True)
def run_dts(env, rng, plus, alpha):
    """D-TS ([W16] Algorithm 1) with α = 0.51; D-TS+ ([W16] §4.3) when ``plus``.

    Phase 1: U, L as in RUCB with α; ζ̂_i = #{j ≠ i : u_ij > 1/2}/(K−1);
    C = argmax ζ̂; θ_ij ~ Beta(B_ij+1, B_ji+1) (i < j), θ_ji = 1 − θ_ij;
    a1 = argmax_{i∈C} #{j ≠ i : θ_ij > 1/2}, ties uniformly at random
    (D-TS+: ties broken by argmin R̃_i = Σ_{j: θ_ij ≠ 1/2} r̃_ij / d(θ_ij, 1/2),
    remaining ties at random). Phase 2: θ'_{i a1} ~ Beta(B_{i a1}+1, B_{a1 i}+1)
    for i ≠ a1, θ'_{a1 a1} = 1/2; a2 = argmax over {i : l_{i a1} ≤ 1/2} of θ'.

    Implementation (same law of the choices, different random stream than drawing
    every θ): phase 1 draws only the events θ_ij > 1/2 it needs — those of the pairs
    touching C, none when |C| = 1 — as Bernoulli(P(θ_ij > 1/2)), 64 pairs at a time
    (:func:`_draw_word`: bit planes of the probabilities, kept exactly up to date in
    O(1) per duel), votes counted by popcount along the rows and SWAR counters
    down the columns; D-TS+ draws the remaining events and the θ values of the tied
    rows given those events only when it must break a tie (θ_ji = 1 − θ_ij shared by two
    tied rows). Phase 2 draws the events θ'_{i a1} > 1/2 of the allowed arms (θ' of arms
    with l_{i a1} > 1/2 are not drawn): none up gives a2 = a1, one up gives that arm, and
    only with two or more are their values drawn, conditioned on > 1/2
    (:func:`_beta_above_half`; the arms never dueled with a1 share one draw, the maximum
    of uniforms). ζ̂ is kept incrementally (:mod:`.schedule`).
    """
    K = env.mu.shape[0]
    T = env.clock[2]
    P = np.full((K, K), 0.5)
    LQ = np.full((K, K), -math.log(2.0))  # log P(Bin(1, 1/2) = 0)
    state = new_state(P, rng)
    # ζ̂ kept incrementally: uhalf[i·K + j] = (u_ij > 1/2), zeta[i] = Σ_j uhalf; a duel re-tests
    # its pair, the crossings of the others (radius growing with t) come from the schedule.
    uhalf = np.ones(K * K, np.bool_)  # N = 0: u = 1
    zeta = np.full(K, K - 1, np.int64)
    heap, size, due = new_schedule(K * K)
    CP, ONE = state[0], state[1]
    while not finished(env):
        t = env.clock[0] + 1
        alt = alpha * math.log(t)  # the bounds of confidence_bounds, compared sqrt-free
        p = pop_due(heap, size, due, t)
        while p >= 0:
            uhalf[p] = True
            zeta[p // K] += 1
            p = pop_due(heap, size, due, t)
        a1, a2 = choose(env.W, P, LQ, state, zeta, alt, plus, rng)
        won = duel(env, rng, a1, a2)
        if a1 != a2:
            _update_above_half(P, LQ, env.W, a1, a2, won)
            _set_pair(CP, ONE, P, a1, a2)
            tn = env.clock[0] + 1  # the next step's t
            zeta[a1] += refresh(ABOVE, env.W, a1, a2, alpha, tn, T, uhalf, heap, size, due)
            zeta[a2] += refresh(ABOVE, env.W, a2, a1, alpha, tn, T, uhalf, heap, size, due)


ALGORITHM = AlgorithmSpec("d-ts", run_dts, {"alpha": 0.51}, "[W16] Alg. 1",
                     prepare=lambda M, env: (False,))
PLUS_SPEC = AlgorithmSpec("d-ts+", run_dts, {"alpha": 0.51}, "[W16] §4.3",
                          prepare=lambda M, env: (True,))
