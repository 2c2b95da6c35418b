"""Result objects of the simulator: one run (:class:`RunRecord`), many (:class:`SimulationResult`).

Plain dataclasses with ``to_dict()`` (JSON-ready), ``to_pandas()`` (tidy, one row per
observation; needs the ``duelbound[pandas]`` extra) and a short notebook display; the
plots (:func:`plot_results`, and the sweep report's through :func:`regret_figure`) are
drawn from the same data.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...frames import html_table, markdown_table, records_to_frame, short_repr
from ...theory.errors import DuelboundError
from ...theory.regret import CONVENTIONS
from .environment import Env, update_regret

__all__ = ["RunRecord", "SimulationResult", "record_from_env", "plot_results", "Curve",
           "regret_figure", "algorithm_label", "QUANTILES", "BAND"]

#: Quantiles of the regret over runs kept at every checkpoint.
QUANTILES = (0.1, 0.5, 0.9)
#: The quantiles that bound the shaded band of the regret plots.
BAND = (0.1, 0.9)


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
        if self.pairs is not None and self.outcomes is not None:  # logged together
            out["pairs"] = self.pairs.tolist()
            out["outcomes"] = self.outcomes.tolist()
        return out

    def __repr__(self) -> str:
        return short_repr("RunRecord", algorithm=self.algorithm, seed=self.seed, T=self.T,
                          K=self.counts.shape[0], R_T=self.final_regret.get("komiyama"),
                          wall_time=self.wall_time)


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
    solvers could compute them, else is empty; ``arms`` the arm names of the matrix
    (None when its arms are unnamed).

    In a notebook the result shows as a small table (``_repr_html_``); ``to_pandas()``
    gives every observation as a tidy DataFrame.
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
    arms: list[str] | None = None

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
            "bounds": dict(self.bounds), "arms": None if self.arms is None else list(self.arms),
            "most_played": self.most_played(),
        }

    @classmethod
    def from_records(cls, records: list[RunRecord], *, matrix_name: str, K: int, seed: int,
                     wall_time: float, bounds: dict[str, float] | None = None,
                     arms: Sequence[str] | None = None) -> SimulationResult:
        first = records[0]
        curves = {c: np.stack([r.regret[c] for r in records]) for c in CONVENTIONS}
        return cls(
            algorithm=first.algorithm, matrix_name=matrix_name, matrix_hash=first.matrix_hash,
            K=K, T=first.T, seed=seed, params=dict(first.params),
            checkpoints=first.checkpoints.copy(),
            mean={c: v.mean(axis=0) for c, v in curves.items()},
            std={c: v.std(axis=0, ddof=1) if len(records) > 1 else np.zeros(v.shape[1])
                 for c, v in curves.items()},
            quantiles={c: {q: np.quantile(v, q, axis=0) for q in QUANTILES}
                       for c, v in curves.items()},
            final_regret={c: np.array([r.final_regret[c] for r in records])
                          for c in CONVENTIONS},
            mean_counts=np.mean([r.counts for r in records], axis=0),
            wall_time=wall_time, run_seeds=[r.seed for r in records], records=records,
            bounds=dict(bounds or {}), arms=None if arms is None else list(arms))


    # -- labels, tables, notebooks --------------------------------------------------------------
    def label(self, i: int) -> str:
        """The name of arm ``i`` (its index as text when the arms are unnamed)."""
        return self.arms[i] if self.arms is not None else str(int(i))

    @property
    def label_with_params(self) -> str:
        """The algorithm with its parameters, e.g. ``"d-ts (alpha=0.51)"``."""
        return algorithm_label(self.algorithm, self.params)

    def most_played(self) -> dict[str, Any]:
        """The arm in most duels on average (the one the algorithm settles on): index, name,
        share of the T duels it took part in."""
        n = self.mean_counts
        part = n.sum(axis=1) + n.diagonal()  # a self-duel involves the arm twice
        i = int(np.argmax(part))
        return {"arm": i, "name": self.label(i), "share": float(part[i] / (2 * self.T))}

    def summary_rows(self) -> list[dict[str, Any]]:
        """One dict per regret convention: mean, std and quantiles of R(T), R(T)/log T."""
        logT = math.log(self.T) if self.T > 1 else 1.0
        rows = []
        for c in CONVENTIONS:
            v = np.asarray(self.final_regret[c], dtype=np.float64)
            q = np.quantile(v, QUANTILES)
            rows.append({"convention": c, "mean R(T)": float(v.mean()),
                         "std": float(v.std(ddof=1)) if v.size > 1 else 0.0,
                         **{f"q{round(100 * p)}": float(x) for p, x in zip(QUANTILES, q)},
                         "R(T)/log T": float(v.mean()) / logT})
        return rows

    def _caption(self) -> str:
        top = self.most_played()
        return (f"{self.label_with_params} on {self.matrix_name or 'matrix'} (K = {self.K}), "
                f"T = {self.T}, {self.runs} runs, seed {self.seed}; most played arm "
                f"{top['name']} ({top['share']:.0%} of duels)")

    def __repr__(self) -> str:
        mean = float(np.mean(self.final_regret["komiyama"]))
        bounds = {k.replace("^", "").replace("*", "_star").replace(" (uncertified)",
                                                                    "_uncertified"): v
                  for k, v in self.bounds.items()}  # "C^E*" -> CE_star, "C*" -> C_star
        return short_repr("SimulationResult", algorithm=self.label_with_params,
                          matrix=self.matrix_name, K=self.K, T=self.T, runs=self.runs,
                          mean_R_T=mean, **bounds)

    def _repr_html_(self) -> str:
        rows = self.summary_rows()
        return html_table(rows, list(rows[0]), caption=self._caption())

    def _repr_markdown_(self) -> str:
        rows = self.summary_rows()
        return markdown_table(rows, list(rows[0]), caption=self._caption())

    def to_pandas(self, kind: str = "regret") -> Any:
        """The runs as a tidy :class:`pandas.DataFrame` (needs ``duelbound[pandas]``).

        Parameters
        ----------
        kind : {"regret", "final", "counts"}
            ``"regret"``: one row per (run, checkpoint t, convention) with the cumulative
            regret; ``"final"``: one row per (run, convention) with R(T); ``"counts"``: one
            row per (run, pair i ≤ j) with N_ij, W_ij, W_ji and the arm names.

        Returns
        -------
        pandas.DataFrame
            Every row also carries ``algorithm``, ``params`` (text), ``matrix``, ``K``, ``T``,
            ``run`` and ``seed``.

        Raises
        ------
        DuelboundError
            pandas is missing (the message names the extra) or ``kind`` is unknown.
        """
        if kind not in ("regret", "final", "counts"):
            raise DuelboundError(f"unknown kind {kind!r}: use 'regret', 'final' or 'counts'")
        return records_to_frame(self._tidy(kind))

    def _tidy(self, kind: str) -> list[dict[str, Any]]:
        base = {"algorithm": self.algorithm, "params": _params_text(self.params),
                "matrix": self.matrix_name, "K": self.K, "T": self.T}
        rows: list[dict[str, Any]] = []
        for k, rec in enumerate(self.records):
            ident = {**base, "run": k, "seed": rec.seed}
            if kind == "final":
                rows += [{**ident, "convention": c, "regret": float(rec.final_regret[c])}
                         for c in CONVENTIONS]
            elif kind == "regret":
                rows += [{**ident, "t": int(t), "convention": c, "regret": float(y)}
                         for c in CONVENTIONS
                         for t, y in zip(rec.checkpoints, rec.regret[c])]
            else:
                iu, ju = np.triu_indices(self.K)
                rows += [{**ident, "i": int(i), "j": int(j), "arm_i": self.label(int(i)),
                          "arm_j": self.label(int(j)), "N": int(rec.counts[i, j]),
                          "W_ij": int(rec.wins[i, j]), "W_ji": int(rec.wins[j, i])}
                         for i, j in zip(iu, ju)]
        return rows

    def plot(self, path: str | None = None, ax: Any = None, convention: str = "komiyama",
             log_y: bool = False) -> Any:
        """Regret vs t (log-t axis): mean, 10–90 % quantile band, C*·log t and C^E*·log t.

        See :func:`plot_results`.
        """
        return plot_results([self], path=path, ax=ax, convention=convention, log_y=log_y)


# -- plots --------------------------------------------------------------------------------------
def _params_text(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in sorted(params.items()))


def algorithm_label(algorithm: str, params: Mapping[str, Any] | None) -> str:
    """``"name (p=v, ...)"``: how plots and tables name an algorithm with its parameters."""
    text = _params_text(params or {})
    return f"{algorithm} ({text})" if text else algorithm


@dataclass
class Curve:
    """One line of a regret plot: the mean over runs and, optionally, a quantile band.

    Attributes
    ----------
    label : legend text (algorithm with its parameters).
    t : checkpoints.
    mean : mean cumulative regret at ``t``.
    lo, hi : the :data:`BAND` quantiles at ``t`` (None: no band).
    runs : number of runs averaged.
    """

    label: str
    t: np.ndarray
    mean: np.ndarray
    lo: np.ndarray | None = None
    hi: np.ndarray | None = None
    runs: int = 1

    @classmethod
    def from_runs(cls, label: str, t: Sequence[float], ys: np.ndarray) -> Curve:
        """A curve from the regret of several runs (rows of ``ys``) at the same ``t``."""
        ys = np.atleast_2d(np.asarray(ys, dtype=np.float64))
        lo, hi = np.quantile(ys, BAND, axis=0)
        return cls(label, np.asarray(t), ys.mean(axis=0), lo, hi, ys.shape[0])


#: Line styles cycled after the ten colours of the default palette (11+ algorithms).
_STYLES = ("-", "--", "-.", ":")


def _draw_panel(ax: Any, curves: Sequence[Curve], bounds: Mapping[str, float], *,
                convention: str, log_y: bool, title: str) -> None:
    """Draw ``curves`` and the bound lines on one axis (shared by every regret plot)."""
    from matplotlib.patches import Patch

    many = len(curves) > 4
    for k, c in enumerate(curves):
        color = f"C{k % 10}"
        ax.plot(c.t, c.mean, color=color, linestyle=_STYLES[(k // 10) % len(_STYLES)],
                linewidth=1.4, label=f"{c.label}: mean of {c.runs} run"
                                     f"{'s' if c.runs != 1 else ''}")
        if c.lo is not None and c.runs > 1:
            ax.fill_between(c.t, c.lo, c.hi, color=color, alpha=0.1 if many else 0.2,
                            linewidth=0)
    t_max = max((float(c.t[-1]) for c in curves), default=2.0)
    t = np.geomspace(2.0, max(t_max, 3.0), 200)
    if convention == "komiyama":
        for key, value in bounds.items():  # "C*" (or "C* (uncertified)") and "C^E*"
            if value is not None:
                ax.plot(t, value * np.log(t), color="k", linestyle=":" if "E" in key else "--",
                        linewidth=1.1, label=f"{key}·log t ({value:.4g}·log t)")
    ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log", nonpositive="mask")
    ax.set_xlabel("t (duels)")
    ax.set_ylabel(f"cumulative regret R(t), {convention} convention")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if any(c.lo is not None and c.runs > 1 for c in curves):
        lo, hi = (round(100 * q) for q in BAND)
        handles.append(Patch(color="0.5", alpha=0.3))
        labels.append(f"shaded: {lo}–{hi} % quantiles of R(t) over the runs")
    if many:  # outside the axes: ten algorithms do not hide the curves
        ax.legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  frameon=False)
    else:
        ax.legend(handles, labels, fontsize=7, loc="best", framealpha=0.85)


def regret_figure(panels: Sequence[tuple[str, Sequence[Curve], Mapping[str, float]]],
                  path: str | None = None, *, convention: str = "komiyama",
                  log_y: bool = False, ax: Any = None, max_megapixels: float = 4.0) -> Any:
    """A figure of regret curves, one panel per (title, curves, bounds); saved if ``path``.

    Panels wrap after three columns and the resolution is lowered so that the saved
    image stays below ``max_megapixels`` whatever the number of panels or curves.

    Parameters
    ----------
    panels : sequence of (str, sequence of Curve, mapping)
        Title, curves and bound constants (``{"C*": ..., "C^E*": ...}``, komiyama
        convention, drawn as ``value·log t``) of each panel.
    path : str, optional
        ``.png``, ``.svg`` or ``.pdf`` file.
    convention : str
        Regret convention of the curves (the bound lines are drawn for komiyama only).
    log_y : bool
        Logarithmic regret axis.
    ax : matplotlib Axes, optional
        Draw the single panel there instead of a new figure.
    max_megapixels : float
        Upper bound on the saved image's size.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from ...theory.draw import new_figure, save_figure

    n = max(len(panels), 1)
    legend_out = any(len(c) > 4 for _, c, _ in panels)
    if ax is None:
        cols = min(n, 3)
        rows = math.ceil(n / cols)
        width = (5.6 + (2.8 if legend_out else 0.0)) * cols
        fig, axes = new_figure(width, 4.2 * rows, rows=rows, cols=cols)
        axes = list(np.ravel(axes))
    else:
        fig, axes = ax.figure, [ax]
    for a, (title, curves, bounds) in zip(axes, panels):
        _draw_panel(a, curves, bounds, convention=convention, log_y=log_y, title=title)
    for a in axes[len(panels):]:
        a.set_axis_off()
    if path is not None:
        save_figure(fig, path, max_megapixels=max_megapixels)
    return fig


def plot_results(results: Sequence[SimulationResult], path: str | None = None, ax: Any = None,
                 convention: str = "komiyama", log_y: bool = False) -> Any:
    """Draw several :class:`SimulationResult` on one log-t axis; save to ``path`` if given.

    Each algorithm (named with its parameters) is its mean regret over the runs with a
    shaded band between the 10 % and 90 % quantiles over the runs (:data:`BAND`). The
    lines C*·log t and C^E*·log t ([K16] Th. 2 and Th. 4) are drawn in the komiyama
    convention only (the convention the bounds are stated in).

    Parameters
    ----------
    results : sequence of SimulationResult
        Results on the same matrix (the bounds of the first are drawn).
    path : str, optional
        Output file (``.png``, ``.svg``, ``.pdf``).
    ax : matplotlib Axes, optional
        Draw there instead of a new figure.
    convention : str
        Regret convention.
    log_y : bool
        Logarithmic regret axis.

    Returns
    -------
    matplotlib.figure.Figure
    """
    curves = [Curve(r.label_with_params, r.checkpoints, r.mean[convention],
                    r.quantiles[convention][BAND[0]], r.quantiles[convention][BAND[1]],
                    r.runs) for r in results]
    first = results[0] if results else None
    title = ("regret" if first is None else
             f"{first.matrix_name or 'matrix'} (K = {first.K}), T = {first.T}")
    bounds = first.bounds if first is not None else {}
    return regret_figure([(title, curves, bounds)], path, convention=convention,
                         log_y=log_y, ax=ax)
