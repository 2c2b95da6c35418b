"""Result objects of the simulator: one run (:class:`RunRecord`), many (:class:`SimulationResult`).

Plain dataclasses with ``to_dict()`` (JSON-ready); the plot is drawn from the
same data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from duelbound.theory.regret import CONVENTIONS

from .environment import Env, update_regret

__all__ = ["RunRecord", "SimulationResult", "record_from_env", "plot_results"]


@dataclass
class RunRecord:
    """One simulated run.

    Attributes
    ----------
    algorithm, seed, T : the run's identity (with the matrix and ``params`` it is
        reproducible bit for bit).
    checkpoints : (n,) int array of t values (log-spaced by default, ends at T).
    regret : dict convention -> (n,) cumulative regret after duel t, for t in checkpoints.
    final_regret : dict convention -> cumulative regret R(T).
    counts : (K, K) int, N_ij = duels between i and j (symmetric; N_ii = self-duels).
    wins : (K, K) int, W_ij = duels i won against j.
    wall_time : seconds spent in the run (compilation excluded when cached).
    params : the algorithm's parameters actually used.
    pairs, outcomes : the logged duel sequence (only with ``log_pairs=True``).
    """

    algorithm: str
    seed: int
    T: int
    checkpoints: np.ndarray
    regret: dict[str, np.ndarray]
    final_regret: dict[str, float]
    counts: np.ndarray
    wins: np.ndarray
    wall_time: float
    params: dict[str, float] = field(default_factory=dict)
    matrix_hash: str = ""
    pairs: np.ndarray | None = None
    outcomes: np.ndarray | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "algorithm": self.algorithm, "seed": int(self.seed), "T": int(self.T),
            "params": dict(self.params), "matrix_hash": self.matrix_hash,
            "checkpoints": self.checkpoints.tolist(),
            "regret": {c: v.tolist() for c, v in self.regret.items()},
            "final_regret": {c: float(v) for c, v in self.final_regret.items()},
            "counts": self.counts.tolist(), "wins": self.wins.tolist(),
            "wall_time": float(self.wall_time),
        }
        if self.pairs is not None:
            out["pairs"] = self.pairs.tolist()
            out["outcomes"] = self.outcomes.tolist()
        return out


def record_from_env(env: Env, algorithm: str, seed: int, params: dict, wall: float,
                    matrix_hash: str) -> RunRecord:
    """Freeze a finished environment into a :class:`RunRecord`."""
    logged = env.pairs.shape[0] > 0
    update_regret(env)  # R(t) at the current t (the last checkpoint may lie before it)
    return RunRecord(
        algorithm=algorithm, seed=int(seed), T=int(env.clock[2]),
        checkpoints=env.checkpoints.copy(),
        regret={c: env.curve[:, k].copy() for k, c in enumerate(CONVENTIONS)},
        final_regret={c: float(env.cum[k]) for k, c in enumerate(CONVENTIONS)},
        counts=env.N.copy(), wins=env.W.copy(), wall_time=wall, params=dict(params),
        matrix_hash=matrix_hash,
        pairs=env.pairs.copy() if logged else None,
        outcomes=env.outcomes.copy() if logged else None)


@dataclass
class SimulationResult:
    """Many independent runs of one algorithm on one matrix.

    ``mean``, ``std`` and ``quantiles`` (dict q -> curve, q in 0.1/0.5/0.9) are per
    convention over the runs at each checkpoint; ``mean_counts`` is the mean N_ij.
    ``bounds`` holds C* and C^E* of the matrix (komiyama convention) when the
    solvers could compute them, else is empty.
    """

    algorithm: str
    matrix_name: str
    matrix_hash: str
    K: int
    T: int
    seed: int
    params: dict[str, float]
    checkpoints: np.ndarray
    mean: dict[str, np.ndarray]
    std: dict[str, np.ndarray]
    quantiles: dict[str, dict[float, np.ndarray]]
    final_regret: dict[str, np.ndarray]
    mean_counts: np.ndarray
    wall_time: float
    run_seeds: list[int]
    records: list[RunRecord] = field(default_factory=list, repr=False)
    bounds: dict[str, float] = field(default_factory=dict)

    @property
    def runs(self) -> int:
        return len(self.run_seeds)

    @property
    def duels_per_second(self) -> float:
        """Total duels over the summed per-run wall time (per core)."""
        busy = sum(r.wall_time for r in self.records) or self.wall_time
        return self.runs * self.T / busy if busy > 0 else math.inf

    def to_dict(self) -> dict[str, Any]:
        return {
            "algorithm": self.algorithm, "matrix": self.matrix_name,
            "matrix_hash": self.matrix_hash, "K": self.K, "T": self.T, "runs": self.runs,
            "seed": self.seed, "run_seeds": list(self.run_seeds), "params": dict(self.params),
            "checkpoints": self.checkpoints.tolist(),
            "mean": {c: v.tolist() for c, v in self.mean.items()},
            "std": {c: v.tolist() for c, v in self.std.items()},
            "quantiles": {c: {str(q): v.tolist() for q, v in qs.items()}
                          for c, qs in self.quantiles.items()},
            "final_regret": {c: v.tolist() for c, v in self.final_regret.items()},
            "mean_counts": self.mean_counts.tolist(), "wall_time": self.wall_time,
            "bounds": dict(self.bounds),
        }

    @classmethod
    def from_records(cls, records: list[RunRecord], *, matrix_name: str, K: int, seed: int,
                     wall_time: float, bounds: dict[str, float] | None = None
                     ) -> SimulationResult:
        first = records[0]
        curves = {c: np.stack([r.regret[c] for r in records]) for c in CONVENTIONS}
        return cls(
            algorithm=first.algorithm, matrix_name=matrix_name, matrix_hash=first.matrix_hash,
            K=K, T=first.T, seed=seed, params=dict(first.params),
            checkpoints=first.checkpoints.copy(),
            mean={c: v.mean(axis=0) for c, v in curves.items()},
            std={c: v.std(axis=0, ddof=1) if len(records) > 1 else np.zeros(v.shape[1])
                 for c, v in curves.items()},
            quantiles={c: {q: np.quantile(v, q, axis=0) for q in (0.1, 0.5, 0.9)}
                       for c, v in curves.items()},
            final_regret={c: np.array([r.final_regret[c] for r in records])
                          for c in CONVENTIONS},
            mean_counts=np.mean([r.counts for r in records], axis=0),
            wall_time=wall_time, run_seeds=[r.seed for r in records], records=records,
            bounds=dict(bounds or {}))

    def plot(self, path: str | None = None, ax=None, convention: str = "komiyama"):
        """Regret vs t (log-t axis), mean ± 10–90 % band, with C*·log t and C^E*·log t."""
        return plot_results([self], path=path, ax=ax, convention=convention)


def plot_results(results: list[SimulationResult], path: str | None = None, ax=None,
                 convention: str = "komiyama"):
    """Draw several :class:`SimulationResult` on one log-t axis; save to ``path`` if given.

    The lines C*·log t and C^E*·log t ([K16] Th. 2 and Th. 4) are drawn in the
    komiyama convention only (the convention the bounds are stated in).
    """
    import matplotlib

    if ax is None:
        matplotlib.use("Agg") if path else None
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4.5))
    else:
        fig = ax.figure
    for res in results:
        t = res.checkpoints
        line, = ax.plot(t, res.mean[convention], label=f"{res.algorithm} (mean of {res.runs})")
        ax.fill_between(t, res.quantiles[convention][0.1], res.quantiles[convention][0.9],
                        color=line.get_color(), alpha=0.2, linewidth=0)
    bounds = results[0].bounds if results else {}
    if convention == "komiyama" and bounds:
        t = results[0].checkpoints.astype(float)
        logt = np.log(np.maximum(t, 1.0))
        for key, value in bounds.items():  # "C*" (or "C* (uncertified)") and "C^E*"
            ax.plot(t, value * logt, "k:" if key == "C^E*" else "k--",
                    label=f"{key}·log t = {value:.4g}·log t")
    ax.set_xscale("log")
    ax.set_xlabel("t (duels)")
    ax.set_ylabel(f"cumulative regret ({convention})")
    if results:
        ax.set_title(f"{results[0].matrix_name or 'matrix'} (K = {results[0].K})")
    ax.legend(fontsize=8)
    if path:
        fig.savefig(path, dpi=120, bbox_inches="tight")
    return fig
