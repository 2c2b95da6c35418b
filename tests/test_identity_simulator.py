"""Speed-ups of the simulator change no run: golden duel sequences of every algorithm.

The fingerprints in ``tests/golden/simulator_identity.json`` were recorded from the
implementation before the incremental updates of issue 14 (per-duel cost O(K²) → ≈ O(K)).
Each is a SHA-256 over the logged pairs, outcomes and final counts N of one seeded run,
so a test failure means some duel of some run differs, not only its regret.

Re-record (only when a change of the random stream is intended and documented in
docs/simulator.md):  ``python tests/test_identity_simulator.py --record``
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from duelbound.checks.simulate.simulator import ALGORITHMS, run_single
from duelbound.theory import datasets, generators

GOLDEN = Path(__file__).resolve().parent / "golden" / "simulator_identity.json"

#: (matrix label, T, seeds): every duel is hashed for T ≤ 2·10⁴; the long runs hash the
#: final counts and the regret curve only (the log would be large).
CASES = [("cyclic", 20_000, (0, 1)), ("random16", 20_000, (0, 1)),
         ("random64", 20_000, (0,)), ("random16", 200_000, (2,))]
#: CW-RMED solves an LP in its loop: small K and T only.
CW_CASES = [("cyclic", 3000, (0, 1))]


def matrix(label: str):
    """The matrices of the golden runs (bundled or generated: nothing outside the repo)."""
    if label == "cyclic":
        return datasets.load("cyclic")
    K = int(label.removeprefix("random"))
    return generators.random_matrix(K, seed=K)


def fingerprint(M, algorithm: str, T: int, seed: int, params: dict | None = None) -> str:
    """SHA-256 of one run: every (i, j, outcome) when T ≤ 2·10⁴, the final N, the curve."""
    full = T <= 20_000
    rec = run_single(M, algorithm, T, seed, params, log_pairs=full)
    h = hashlib.sha256()
    if full:
        h.update(np.ascontiguousarray(rec.pairs, np.int64).tobytes())
        h.update(np.ascontiguousarray(rec.outcomes, np.bool_).tobytes())
    h.update(np.ascontiguousarray(rec.counts, np.int64).tobytes())
    h.update(np.ascontiguousarray(rec.regret["komiyama"], np.float64).round(6).tobytes())
    return h.hexdigest()


def cases() -> list[tuple[str, str, int, int]]:
    """(algorithm, matrix label, T, seed) of every golden run."""
    out = []
    for alg in ALGORITHMS:
        for label, T, seeds in (CW_CASES if alg == "cw-rmed" else CASES):
            out += [(alg, label, T, s) for s in seeds]
    return out


def _key(alg: str, label: str, T: int, seed: int) -> str:
    return f"{alg}/{label}/T={T}/seed={seed}"


@pytest.fixture(scope="module")
def golden() -> dict[str, str]:
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("alg, label, T, seed", cases())
def test_run_identical_to_golden(golden, alg, label, T, seed):
    key = _key(alg, label, T, seed)
    if alg == "cw-rmed":
        pytest.importorskip("highspy")
    assert fingerprint(matrix(label), alg, T, seed) == golden[key], key


def record() -> None:
    """Write the fingerprints of the current implementation."""
    out = {}
    for alg, label, T, seed in cases():
        key = _key(alg, label, T, seed)
        out[key] = fingerprint(matrix(label), alg, T, seed)
        print(key, out[key][:12], flush=True)
    GOLDEN.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if "--record" in sys.argv:
        record()

