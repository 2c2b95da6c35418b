"""The record of one run, as the judge measured it: :class:`JudgedRun`.

One type from the judge to the report: :func:`duelbound.checks.verify.judge.judge_run`
(and a bundled algorithm's run in :mod:`.runs`) builds it in the trusted worker, it
crosses the worker's pipe as it is, the verdicts (:mod:`.verdicts`) read it and the
report (:mod:`.report`) prints it.  Every statistic in it is computed from the judge's
own record of the duels (:func:`duel_summary`), never from anything the child says.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from ...theory.errors import DuelboundError
from ...theory.matrix import PreferenceMatrix
from ...theory.regret import CONVENTIONS, regret_matrix

__all__ = ["DYADIC", "JudgedRun", "NOT_RUN", "duel_summary", "trajectory"]

#: Error kinds of runs that were not judged to the end (neither is the algorithm's fault).
NOT_RUN = ("budget", "interrupted")
#: The record holds the regret at exactly H / 2^b for b = 0..DYADIC (H: the run's duels).
DYADIC = 6
#: Keys of :meth:`JudgedRun.to_dict` derived from the fields (accepted back, recomputed).
DERIVED = ("ok", "error")


@dataclass(frozen=True, kw_only=True)
class JudgedRun:
    """One run of an algorithm on one matrix, as the judge recorded it.

    Attributes
    ----------
    seed, T : int
        The algorithm's seed and the horizon asked for.
    environment_seed : int or None
        Seed of the environment's generator (None for a bundled algorithm's reference
        run and for a run that was never started).
    steps : int
        Valid duels recorded.
    errors : tuple of dict
        The first 20 protocol errors, each ``{"kind", "step", "message", ...}``.
    error_counts : dict
        Errors per kind (all of them).
    environment_error, usage_error : dict or None
        The sandbox did not start; the module could not be used as a factory.
    checkpoints, regret, final_regret, counts, pairs_sha256 :
        The summary of the recorded duels (:func:`duel_summary`).
    wall_time, cpu_time, duels_per_s, startup_s : float
        Measured by the judge.
    exit_status : str
        How the algorithm's process ended (``"exit code 0"``, ``"signal SIGKILL"``).
    leftover_processes : int
        Processes the algorithm started that were still running after it (killed).
    stdout_tail, stderr_tail : str
        The last 2000 bytes of its output (text from the child).
    isolation : str
        How the run was isolated (:meth:`.sandbox.Isolation.describe`).
    relabeled : bool
        Arms presented under the run's secret relabeling.
    cleanup : str
        What removing the run's working folder left behind (``""``: removed); a cleanup
        failure is recorded here, never raised, and never costs the run its record.
    """

    seed: int
    T: int = 0
    environment_seed: int | None = None
    steps: int = 0
    errors: tuple[dict[str, Any], ...] = ()
    error_counts: dict[str, int] = field(default_factory=dict)
    environment_error: dict[str, Any] | None = None
    usage_error: dict[str, Any] | None = None
    checkpoints: list[int] | None = None
    regret: dict[str, list[float]] | None = None
    final_regret: dict[str, float] | None = None
    counts: dict[str, list] | None = None
    pairs_sha256: str = ""
    wall_time: float = 0.0
    cpu_time: float = math.nan
    duels_per_s: float = 0.0
    startup_s: float = 0.0
    exit_status: str = ""
    leftover_processes: int = 0
    stdout_tail: str = ""
    stderr_tail: str = ""
    isolation: str = ""
    relabeled: bool = False
    cleanup: str = ""

    @property
    def ok(self) -> bool:
        """All T duels played with no error of any kind."""
        return not self.errors and self.environment_error is None and \
            self.usage_error is None and self.steps == self.T

    @property
    def error(self) -> dict[str, Any] | None:
        """The first error (None when there is none)."""
        return self.errors[0] if self.errors else None

    @classmethod
    def failed(cls, *, seed: int, T: int, kind: str, message: str,
               environment_seed: int | None = None) -> JudgedRun:
        """A run that was not judged to its end for a reason outside the algorithm
        (budget, interruption, the judge's own failure)."""
        return cls(seed=seed, T=T, environment_seed=environment_seed,
                   errors=({"kind": kind, "step": None, "message": message},))

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["errors"] = list(self.errors)
        out.update(ok=self.ok, error=self.error)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JudgedRun:
        """The inverse of :meth:`to_dict`; unknown keys are refused, not dropped."""
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names - set(DERIVED))
        if unknown:
            raise DuelboundError(f"not fields of a judged run: {', '.join(unknown)}")
        kw = {k: v for k, v in data.items() if k in names}
        kw["errors"] = tuple(kw.get("errors") or ())
        return cls(**kw)


def trajectory(M: PreferenceMatrix, pairs: np.ndarray, checkpoints: np.ndarray
               ) -> dict[str, np.ndarray]:
    """Cumulative regret of the recorded duels at ``checkpoints`` (≤ number of duels).

    Computed from the judge's record only: per-step regret r_c(i_t, j_t) of each
    convention (:func:`duelbound.theory.regret.regret_matrix`), summed.
    """
    n = pairs.shape[0]
    ck = np.asarray(checkpoints, dtype=np.int64)
    ck = ck[(ck >= 1) & (ck <= n)]
    out = {}
    for c in CONVENTIONS:
        R = regret_matrix(M, c)
        per = R[pairs[:, 0], pairs[:, 1]] if n else np.zeros(0)
        cum = np.cumsum(per)
        out[c] = cum[ck - 1] if ck.size else np.zeros(0)
    out["checkpoints"] = ck
    return out


def _counts_at(pairs: np.ndarray, K: int, upto: int) -> list:
    N = np.zeros((K, K), dtype=np.int64)
    if upto > 0:
        p = pairs[:upto]
        np.add.at(N, (p[:, 0], p[:, 1]), 1)
        off = p[:, 0] != p[:, 1]
        np.add.at(N, (p[off, 1], p[off, 0]), 1)
    return N.tolist()


def duel_summary(M: PreferenceMatrix, pairs: np.ndarray, T: int) -> dict[str, Any]:
    """The :class:`JudgedRun` fields computed from a recorded duel sequence ``pairs``
    ((steps, 2) arm indices of ``M``): regret curves at log-spaced checkpoints and at
    exactly steps / 2^b (b = 0..:data:`DYADIC`), pair
    counts at a quarter, half and all of the duels, the sequence's SHA-256 and steps."""
    from ..simulate.environment import log_checkpoints  # numba: only when a run is judged

    n = int(pairs.shape[0])
    ck = log_checkpoints(T)
    # the exact dyadic horizons n/2, n/4, ..., n/64 and n itself: the growth ratios of
    # :mod:`.verdicts` read R there, never interpolated between log-spaced checkpoints
    ck = np.union1d(ck[ck <= n], [n >> b for b in range(DYADIC + 1) if n >> b >= 1])
    tr = trajectory(M, pairs, ck)
    final = {c: float(v[-1]) if v.size else 0.0 for c, v in tr.items() if c != "checkpoints"}
    return {"checkpoints": tr["checkpoints"].tolist(),
            "regret": {c: v.tolist() for c, v in tr.items() if c != "checkpoints"},
            "final_regret": final,
            "counts": {"quarter": _counts_at(pairs, M.K, n // 4),
                       "half": _counts_at(pairs, M.K, n // 2),
                       "final": _counts_at(pairs, M.K, n)},
            "pairs_sha256": hashlib.sha256(np.ascontiguousarray(pairs, "<i4").tobytes()
                                           ).hexdigest(),
            "steps": n}
