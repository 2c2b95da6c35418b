"""What a sweep store holds, as tables and plots: summaries per (matrix, algorithm, T).

:func:`summarise` gives one record per (matrix, algorithm, parameters, T) with the final
regret's mean, spread and quantiles next to C* and C^E* ([K16] Theorem 2, §4.2) in the
chosen regret convention; :func:`report_table` and :func:`bounds_report_table` make
:class:`~duelbound.render.Table` objects of a simulation or a bound sweep (the same renderers
as the bound tables); :func:`plot_report` draws the regret curves.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ...errors import DuelboundError
from ...render import Cell, Column, Table
from ...theory.matrix import PreferenceMatrix
from ...theory.regret import check_convention, conversion_factor
from .store import CONVENTION_COLUMNS, SweepStore

__all__ = ["summarise", "report_table", "bounds_report_table", "plot_report"]


def _bound_values(store: SweepStore, matrices: dict[str, PreferenceMatrix],
                  ) -> tuple[dict[str, dict[str, float | None]], list[str]]:
    """C*, C^E* (komiyama convention) per matrix: from the store's bound rows, else computed.

    Returns the values and the reasons for values that are missing.
    """
    stored = {r["matrix_hash"]: r for r in store.bounds("ok")}
    out, missing = {}, []
    for h, M in matrices.items():
        if h in stored:
            out[h] = {"c_star": stored[h]["c_star"], "c_ecw": stored[h]["c_ecw"]}
            continue
        from ...solvers import ecw_bound, lower_bound  # the LP solvers: only when needed

        vals: dict[str, float | None] = {"c_star": None, "c_ecw": None}
        for key, fn in (("c_star", lower_bound), ("c_ecw", ecw_bound)):
            try:
                vals[key] = float(fn(M).value)
            except DuelboundError as exc:
                missing.append(f"{fn.__name__} failed on {M.name or h[:12]}: {exc}")
        out[h] = vals
    return out, sorted(set(missing))


def summarise(store: str | Path, convention: str = "komiyama") -> list[dict[str, Any]]:
    """One dict per (matrix, algorithm, params, T) of the store's runs.

    Keys: ``matrix``, ``matrix_hash``, ``K``, ``algorithm``, ``params``, ``T``, ``runs``
    (finished), ``failed``, ``mean``, ``std`` (ddof = 1), ``q10``, ``median``, ``q90``
    of the final regret in ``convention``, ``per_log_T`` = mean / ln T, ``c_star`` and
    ``c_ecw`` (C* and C^E* of [K16] Th. 2 / §4.2, komiyama convention, converted by
    ``conversion_factor`` when a constant factor exists, else None), ``ratio`` =
    per_log_T / C*, and ``notes`` (why a bound is missing).
    """
    import numpy as np


    check_convention(convention)
    col = CONVENTION_COLUMNS[convention]
    with SweepStore(store, readonly=True) as st:
        matrices = st.matrices()
        rows = st.runs(None, decode=False, fields=["matrix_hash", "algorithm", "params", "T",
                                                  "status", col])
        bounds, notes = _bound_values(st, {h: M for h, M in matrices.items()
                                           if any(r["matrix_hash"] == h for r in rows)})
    try:
        factor: float | None = conversion_factor("komiyama", convention)
    except DuelboundError:
        factor = None
    groups: dict[tuple, dict[str, Any]] = {}
    for r in rows:
        g = groups.setdefault((r["matrix_hash"], r["algorithm"], r["params"], r["T"]),
                              {"values": [], "failed": 0})
        if r["status"] == "ok":
            g["values"].append(r[col])
        else:
            g["failed"] += 1
    out = []
    for (h, alg, params, T), g in groups.items():
        v = np.asarray(g["values"], dtype=np.float64)
        M = matrices[h]
        b = bounds[h]
        conv = {k: (None if (x := b[k]) is None or factor is None else x * factor)
                for k in ("c_star", "c_ecw")}
        n = v.size
        mean = float(v.mean()) if n else None
        per_log = mean / math.log(T) if (mean is not None and T > 1) else None
        q10, med, q90 = (np.quantile(v, [0.1, 0.5, 0.9]).tolist() if n else (None,) * 3)
        out.append({
            "matrix": M.name or h[:12], "matrix_hash": h, "K": M.K, "algorithm": alg,
            "params": json.loads(params), "T": T, "runs": n, "failed": g["failed"],
            "mean": mean, "std": float(v.std(ddof=1)) if n > 1 else None,
            "q10": q10, "median": med, "q90": q90, "per_log_T": per_log,
            **conv,
            "ratio": (per_log / c_star) if (per_log is not None and (c_star := conv["c_star"]))
            else None,
            "notes": notes,
        })
    out.sort(key=lambda d: (d["matrix"], d["matrix_hash"], d["algorithm"], d["T"],
                            json.dumps(d["params"], sort_keys=True)))
    return out


def report_table(store: str | Path, convention: str = "komiyama") -> Any:
    """The sweep summary as a :class:`duelbound.render.Table` (same renderers as the
    bound tables)."""

    summary = summarise(store, convention)
    foot = {
        "a": "mean and sample std (ddof = 1) of the final cumulative regret R(T) over the "
             "finished runs; q10/median/q90 are linear-interpolation quantiles",
        "b": "R(T) / ln T: an empirical ratio at a finite horizon, not a limit",
        "c": "[K16] Theorem 2 lower-bound constant C* and ECW-RMED constant C^E* (§4.2), "
             "coefficients of log T, computed by duelbound.solvers",
    }
    notes = []
    if convention != "komiyama":
        notes.append("C* and C^E* are stated in the komiyama convention by [K16]; "
                     + ("converted by the constant factor of theory.regret.conversion_factor."
                        if convention == "zoghi" else
                        "no constant factor converts them to this convention, so they are "
                        "not shown."))
    missing = sorted({m for row in summary for m in row["notes"]})
    notes += [f"missing bound: {m}" for m in missing]
    cols = [Column("matrix", "matrix", align="l"), Column("K", "K"),
            Column("algorithm", "algorithm", align="l"), Column("T", "T", fmt="d"),
            Column("runs", "runs"), Column("failed", "failed"),
            Column("mean", "mean R(T)", notes=("a",), fmt=".4g"),
            Column("std", "std", notes=("a",), fmt=".3g"),
            Column("q10", "q10", fmt=".4g"), Column("median", "median", fmt=".4g"),
            Column("q90", "q90", fmt=".4g"),
            Column("per_log_T", "R(T)/ln T", notes=("b",), fmt=".4g"),
            Column("c_star", "C*", unit="x log T", notes=("c",), fmt=".4g"),
            Column("c_ecw", "C^E*", unit="x log T", notes=("c",), fmt=".4g"),
            Column("ratio", "(R(T)/ln T)/C*", notes=("b",), fmt=".3g")]
    rows = []
    for s in summary:
        alg = s["algorithm"] + (f" {json.dumps(s['params'], sort_keys=True)}"
                                if s["params"] else "")
        rows.append({c.key: (alg if c.key == "algorithm" else s[c.key]) for c in cols})
    return Table("Sweep results: final regret per matrix and algorithm", cols, rows,
                 footnotes=foot, convention=convention, notes=notes)


def bounds_report_table(store: str | Path) -> Any:
    """The rows of a ``--bounds-only`` sweep as a :class:`~duelbound.render.Table`:
    C* with its certificate status, C^E*, and every upper-bound term of the bound table in
    the komiyama convention, labelled by kind."""

    with SweepStore(store, readonly=True) as st:
        names = st.matrix_names()
        rows = st.bounds("ok")
    foot = {"c": "[K16] Theorem 2 lower-bound constant C* and ECW-RMED constant C^E* "
                 "(§4.2), coefficients of log T, komiyama convention",
            "o": "order term (no constant): not comparable with C*",
            "l": "coefficient of log log T"}
    cols = [Column("matrix", "matrix", align="l"), Column("K", "K"),
            Column("c_star", "C*", unit="x log T", notes=("c",), fmt=".6g"),
            Column("certificate", "C* certificate", align="l"),
            Column("c_ecw", "C^E*", unit="x log T", notes=("c",), fmt=".6g")]
    body = []
    for r in rows:
        res = r["result"]
        row: dict[str, Any] = {"matrix": names.get(r["matrix_hash"], r["matrix_hash"][:12]),
                               "K": res["entry"]["K"], "c_star": r["c_star"],
                               "certificate": res.get("certificate"), "c_ecw": r["c_ecw"]}
        for b in res["entry"]["bounds"]:
            key = f"bound:{b['name']}"
            if key not in {c.key for c in cols}:
                cols.append(Column(key, b["name"], unit=f"x {b['multiplies']}", fmt=".4g"))
            note = {"order term (no constant)": ("o",),
                    "coefficient of log log T": ("l",)}.get(b["kind"], ())
            row[key] = Cell(b["converted"]["value"], notes=note)
        body.append(row)
    return Table("Bound sweep: C*, C^E* and upper-bound terms per matrix", cols, body,
                 footnotes=foot, convention="komiyama")


def _with_defaults(algorithm: str, params: dict[str, Any]) -> dict[str, Any]:
    """A simulator algorithm's parameters with its paper defaults filled in (plugins: as
    given), so that labels say what actually ran."""
    if ":" in algorithm:
        return dict(params)
    from ..simulate.simulator import ALGORITHMS

    spec = ALGORITHMS.get(algorithm)
    return {**(spec.defaults if spec is not None else {}), **params}


def plot_report(store: str | Path, path: str | Path | None, convention: str = "komiyama",
                log_y: bool = False) -> Any:
    """Regret curves of a store: one panel per (matrix, T), one curve per algorithm.

    Each curve is the mean over the runs with a shaded band between the 10 % and 90 %
    quantiles over the runs, labelled with the algorithm and its parameters; C*·ln t and
    C^E*·ln t are drawn in the komiyama convention.  Panels wrap after three columns and
    the image stays below a few megapixels
    (:func:`duelbound.checks.simulate.records.regret_figure`).
    Runs whose checkpoints differ from the group's first run are left out.

    Parameters
    ----------
    store : path of the store.
    path : output file (``.png``, ``.svg``, ``.pdf``), or None to only return the figure.
    convention : regret convention of the curves.
    log_y : logarithmic regret axis.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import numpy as np

    from ..simulate.records import Curve, algorithm_label, regret_figure

    summary = {(s["matrix_hash"], s["T"]): s for s in summarise(store, convention)}
    with SweepStore(store, readonly=True) as st:
        names = st.matrix_names()
        curves: dict[tuple, dict[str, list]] = {}
        for r in st.iter_runs("ok", fields=["matrix_hash", "algorithm", "params", "T",
                                            "checkpoints", "regret"]):
            key = (r["matrix_hash"], r["T"])
            alg = algorithm_label(r["algorithm"], _with_defaults(r["algorithm"], r["params"]))
            curves.setdefault(key, {}).setdefault(alg, []).append(
                (r["checkpoints"], r["regret"][convention]))
    if not curves:
        raise DuelboundError(f"{store} holds no finished run to plot")
    panels = []
    for key, algs in sorted(curves.items(), key=lambda kv: (summary[kv[0]]["K"],
                                                           names.get(kv[0][0], ""), kv[0])):
        lines = []
        for alg, runs in sorted(algs.items()):
            cps = runs[0][0]
            ys = np.array([y for c, y in runs if c == cps], dtype=np.float64)
            lines.append(Curve.from_runs(alg, cps, ys))
        s = summary[key]
        bounds = {"C*": s["c_star"], "C^E*": s["c_ecw"]}
        panels.append((f"{names.get(key[0], key[0][:12])} (K = {s['K']}), T = {key[1]}",
                       lines, {k: v for k, v in bounds.items() if v is not None}))
    return regret_figure(panels, None if path is None else str(path), convention=convention,
                         log_y=log_y)
