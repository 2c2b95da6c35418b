"""Duels per second per core of the reference simulator; before/after and duelpy comparisons.

Run:  python benchmarks/bench_simulator.py [--K 4,16,64,200] [--T 1e6] [--T-at 200:1e5]
          [--algorithms a,b,...] [--previous HEAD] [--duelpy]
      python benchmarks/bench_simulator.py --readings scb [--T 2e4] [--runs 20]
      python benchmarks/bench_simulator.py --readings ecw [--T 1e5] [--runs 20]
      python benchmarks/bench_simulator.py --versus ecw-rmed,cw-rmed --K 5,30,100 --T 2e4

Matrices: K = 4 the bundled ``cyclic`` example, K = 5 the bundled ``mslr5`` dataset,
other K ``generators.random_matrix(K, seed=0)``. Ours: one process, compiled code
warmed up (compilation excluded), ``RunRecord.wall_time``.

``--previous REV`` also times the implementation of the algorithms at git revision
REV (its ``checks/alg_*.py`` copied into a temporary package, run on the same
environment code), alternating with ours in the same process, and prints the ratio.
``--T-at K:T`` shortens the horizon at one K for both (slow previous versions).
``--duelpy`` adds duelpy 1.0.0 (the ``bench`` extra) at ``--T-duelpy`` (pure Python),
with ours re-timed at that horizon (per-duel cost changes with t, so equal horizons
are the fair comparison).

``--readings`` measures the regret distributions behind docs/simulator.md, "Readings":
``scb``: ours, its two switchable readings (``algorithms.scb.run_scb_core``) and duelpy's SCB
on ``cyclic`` and ``unique_copeland``; ``ecw``: ECW-RMED with ``membership="RE"`` vs
``"R"`` on ``cyclic``, ``mslr5`` and a random K = 16 tournament (Mann–Whitney U test).
Prints markdown tables.
"""

from __future__ import annotations

import argparse
import importlib
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import numpy as np

from duelbound.checks.simulate.environment import make_env, make_rng
from duelbound.checks.simulate.simulator import ALGORITHMS, run_seeds, run_single
from duelbound.theory import datasets, generators
from duelbound.theory.regret import regret_matrix

REPO = Path(__file__).resolve().parents[1]

# our name -> (duelpy module, class name)
DUELPY = {
    "ccb": ("copeland_confidence_bound", "CopelandConfidenceBound"),
    "scb": ("scalable_copeland_bandits", "ScalableCopelandBandits"),
    "cw-rmed": ("cw_rmed", "CwRmed"),
    "d-ts": ("double_thompson_sampling", "DoubleThompsonSampling"),
    "d-ts+": ("double_thompson_sampling", "DoubleThompsonSamplingPlus"),
    "savage": ("savage", "Savage"),
    "rucb": ("relative_ucb", "RelativeUCB"),
    "rmed1": ("rmed", "Rmed1"),
}


def _horizon(text: str) -> int:
    return int(float(text))


def matrix(K: int):
    """The benchmark matrix with K arms (see the module docstring)."""
    if K == 4:
        return datasets.load("cyclic")
    if K == 5:
        return datasets.load("mslr5")
    return generators.random_matrix(K, seed=0, name=f"random{K}")


# -- the previous implementation -------------------------------------------------------------
def load_previous(rev: str) -> dict:
    """name -> AlgorithmSpec of the algorithms at git revision ``rev`` (read-only git)."""
    sha = subprocess.run(["git", "rev-parse", rev], cwd=REPO, capture_output=True, text=True,
                         check=True).stdout.strip()
    root = Path(tempfile.gettempdir()) / f"duelbound_prev_{sha[:12]}"
    pkg = root / "duelbound_prev"
    pkg.mkdir(parents=True, exist_ok=True)
    # the algorithms are checks/alg_*.py before the layout of issue 21 and
    # checks/simulate/algorithms/*.py after it; either way they become duelbound_prev.*
    modules = {}
    for folder, keep in (("checks/", "alg_"), ("checks/simulate/algorithms/", "")):
        names = subprocess.run(["git", "ls-tree", "--name-only", sha, folder], cwd=REPO,
                               capture_output=True, text=True, check=True).stdout.split()
        modules.update({Path(n).name: n for n in names if n.endswith(".py")
                        and Path(n).name.startswith(keep) and Path(n).name != "__init__.py"})
    for name, path in modules.items():
        text = subprocess.run(["git", "show", f"{sha}:{path}"], cwd=REPO,
                              capture_output=True, text=True, check=True).stdout
        # the environment (duel, regret accounting) is the current one: only algorithms differ
        env = "duelbound.checks.simulate.environment"
        text = text.replace("from .environment import", f"from {env} import")
        text = text.replace("from ..environment import", f"from {env} import")
        text = text.replace("from duelbound.checks.simulate.algorithms.", "from duelbound_prev.")
        # relative imports of the package's other layers (issue 30 on) become absolute
        text = re.sub(r"from \.\.\.\.(\w)", r"from duelbound.\1", text)
        target = pkg / name
        if not target.exists() or target.read_text() != text:
            target.write_text(text)
    (pkg / "__init__.py").touch()
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    specs = {}
    for name in modules:
        mod: ModuleType = importlib.import_module(f"duelbound_prev.{Path(name).stem}")
        for value in vars(mod).values():
            if type(value).__name__ == "AlgorithmSpec":
                specs[value.name] = value
    return specs


def _run_spec(spec, M, T: int, seed: int) -> float:
    """Wall time of one run of an AlgorithmSpec (as run_single does it)."""
    env = make_env(M, T)
    rng = make_rng(seed)
    extra = spec.prepare(M, env) if spec.prepare is not None else ()
    args = spec.arguments(None)
    start = time.perf_counter()
    spec.runner(env, rng, *extra, *args)
    return time.perf_counter() - start


def rate(spec, M, T: int, repeats: int = 1) -> float:
    """Duels/s of ``spec`` on M at horizon T (best of ``repeats``; compiled first)."""
    _run_spec(spec, M, min(T, 200), 0)
    return T / min(_run_spec(spec, M, T, 1) for _ in range(repeats))


# -- duelpy ----------------------------------------------------------------------------------
def _duelpy_class(name: str):
    for alias, value in (("float", float), ("infty", np.inf)):  # aliases removed in NumPy 2
        if alias not in np.__dict__:
            setattr(np, alias, value)
    from duelpy.feedback import MatrixFeedback

    mod, cls = DUELPY[name]
    return getattr(importlib.import_module(f"duelpy.algorithms.{mod}"), cls), MatrixFeedback


def duelpy_run(M, name: str, T: int, seed: int) -> tuple[float, np.ndarray]:
    """(duels/s, pair counts N) of duelpy's ``name`` on M for T duels."""
    algo_cls, MatrixFeedback = _duelpy_class(name)
    K = M.K

    class Counting(MatrixFeedback):
        duels = 0
        N = np.zeros((K, K), np.int64)

        def duel(self, a, b):
            self.duels += 1
            self.N[a, b] += 1
            return super().duel(a, b)

        def duel_repeatedly(self, a, b, duel_count):  # batched duels count too
            self.duels += duel_count
            self.N[a, b] += duel_count
            return super().duel_repeatedly(a, b, duel_count)

    fb = Counting(np.array(M.values), random_state=np.random.RandomState(seed))
    kwargs = {"time_horizon": T}
    if name != "savage":
        kwargs["random_state"] = np.random.RandomState(seed)
    algo = algo_cls(fb, **kwargs)
    start = time.perf_counter()
    try:
        while fb.duels < T and not algo.is_finished():
            algo.step()
    except Exception as exc:  # noqa: BLE001 - duelpy signals its budget by an exception
        if type(exc).__name__ != "TimeBudgetExceededException":
            raise
    return fb.duels / (time.perf_counter() - start), fb.N


# -- speed table -----------------------------------------------------------------------------
def speed(args) -> None:
    T_at = dict((int(k), _horizon(v)) for k, v in (x.split(":") for x in args.T_at if x))
    prev = load_previous(args.previous) if args.previous else {}
    print(f"ours T = {args.T:.0e} (at K: {T_at or '-'})"
          + (f"; previous = {args.previous}" if prev else "")
          + (f"; duelpy T = {args.T_duelpy:.0e}" if args.duelpy else ""))
    head = ["algorithm", "K", "T", "ours duels/s"]
    if prev:
        head += ["previous duels/s", "ours / previous"]
    if args.duelpy:
        head += ["duelpy T", "ours at duelpy T", "duelpy duels/s", "ratio (same T)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name in args.algorithms.split(","):
        for K in (int(k) for k in args.K.split(",")):
            M = matrix(K)
            T = T_at.get(K, args.T)
            if prev and name in prev:
                # alternate the two, best of each: the load of a shared machine drifts
                _run_spec(ALGORITHMS[name], M, min(T, 200), 0)
                _run_spec(prev[name], M, min(T, 200), 0)
                t_ours, t_prev = np.inf, np.inf
                for _ in range(args.repeats):
                    t_ours = min(t_ours, _run_spec(ALGORITHMS[name], M, T, 1))
                    t_prev = min(t_prev, _run_spec(prev[name], M, T, 1))
                ours, before = T / t_ours, T / t_prev
            else:
                ours = rate(ALGORITHMS[name], M, T, args.repeats)
            cells = [name, str(K), f"{T:.0e}", f"{ours:.3g}"]
            if prev:
                cells += ([f"{before:.3g}", f"{ours / before:.2f}x"] if name in prev
                          else ["-", "-"])
            if args.duelpy:
                Td = args.T_duelpy
                try:
                    d = duelpy_run(M, name, Td, 1)[0] if name in DUELPY else None
                    note = ""
                except Exception as exc:  # noqa: BLE001 - report duelpy failures, keep going
                    d, note = None, f" ({type(exc).__name__})"
                same = rate(ALGORITHMS[name], M, Td) if d is not None else None
                cells += [f"{Td:.0e}", "-" if same is None else f"{same:.3g}",
                          ("-" if d is None else f"{d:.3g}") + note,
                          "-" if d is None else f"{same / d:.0f}x"]
            print("| " + " | ".join(cells) + " |", flush=True)


def versus(args) -> None:
    """Two algorithms side by side (alternated in one process, best of ``--repeats``):
    duels/s of each and the ratio of their times at the same K and T."""
    T_at = dict((int(k), _horizon(v)) for k, v in (x.split(":") for x in args.T_at if x))
    a, b = (get.strip() for get in args.versus.split(","))
    print(f"| K | T | {a} duels/s | {b} duels/s | time {b} / time {a} |")
    print("|---|---|---|---|---|")
    for K in (int(k) for k in args.K.split(",")):
        M = matrix(K)
        T = T_at.get(K, args.T)
        for name in (a, b):  # compile (and build the first LP model) outside the timing
            _run_spec(ALGORITHMS[name], M, min(T, 200), 0)
        ta = tb = np.inf
        for _ in range(args.repeats):
            ta = min(ta, _run_spec(ALGORITHMS[a], M, T, 1))
            tb = min(tb, _run_spec(ALGORITHMS[b], M, T, 1))
        print(f"| {K} | {T:.0e} | {T / ta:.3g} | {T / tb:.3g} | {tb / ta:.1f} |", flush=True)


# -- readings --------------------------------------------------------------------------------
def _regret_from_counts(M, N: np.ndarray) -> float:
    """R(T) (komiyama) from symmetric counts N (N_ij = duels of i and j, N_ii self-duels)."""
    R = regret_matrix(M, "komiyama")
    return float(np.triu(N * R, 1).sum() + np.trace(N * R))


def _symmetric(N: np.ndarray) -> np.ndarray:
    """Ordered counts (a, b) -> the environment's symmetric counts."""
    S = N + N.T
    np.fill_diagonal(S, np.diag(N))
    return S


def _summary(x) -> str:
    x = np.asarray(x, float)
    return f"{np.median(x):.0f} | {x.mean():.0f} ± {x.std(ddof=1):.0f}"


def readings_scb(args) -> None:
    from duelbound.checks.simulate.algorithms import scb as alg_scb

    variants = {"ours (anytime radius, restart per round)": (True, False),
                "fixed-n radius": (False, False),
                "keep pair statistics across rounds": (True, True),
                "both (duelpy's reading)": (False, True)}
    print(f"SCB regret (komiyama) at T = {args.T:.0e}, {args.runs} runs: median | mean ± std")
    print("| matrix | variant | median | mean ± std |")
    print("|---|---|---|---|")
    for label in ("cyclic", "unique_copeland"):
        M = datasets.load(label)
        seeds = run_seeds(0, args.runs)
        for vname, (anytime, persist) in variants.items():
            out = []
            for s in seeds:
                env = make_env(M, args.T)
                alg_scb.run_scb_core(env, make_rng(s), anytime, persist)
                out.append(_regret_from_counts(M, env.N))
            print(f"| {label} | {vname} | {_summary(out)} |", flush=True)
        dp = [_regret_from_counts(M, _symmetric(duelpy_run(M, "scb", args.T, s % 2**31)[1]))
              for s in seeds]
        print(f"| {label} | duelpy 1.0.0 | {_summary(dp)} |", flush=True)


def readings_ecw(args) -> None:
    from scipy.stats import mannwhitneyu

    print(f"ECW-RMED regret (komiyama) at T = {args.T:.0e}, {args.runs} runs")
    print("| matrix | K | RE: median | RE: mean ± std | R: median | R: mean ± std | "
          "Mann–Whitney p |")
    print("|---|---|---|---|---|---|---|")
    mats = [datasets.load("cyclic"), datasets.load("mslr5"),
            generators.random_matrix(16, seed=0, name="random16")]
    for M in mats:
        res = {}
        for mem in ("RE", "R"):
            res[mem] = [run_single(M, "ecw-rmed", args.T, s, {"membership": mem},
                                   checkpoints=[args.T]).final_regret["komiyama"]
                        for s in run_seeds(0, args.runs)]
        p = mannwhitneyu(res["RE"], res["R"]).pvalue
        print(f"| {M.name} | {M.K} | {_summary(res['RE'])} | {_summary(res['R'])} | "
              f"{p:.2g} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=_horizon, default=10**6)
    ap.add_argument("--K", default="5,16", help="comma-separated arm counts")
    ap.add_argument("--T-at", action="append", default=[], metavar="K:T",
                    help="horizon at one K (repeatable)")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS))
    ap.add_argument("--repeats", type=int, default=1, help="best of this many timings")
    ap.add_argument("--previous", metavar="REV", help="also time the algorithms at git REV")
    ap.add_argument("--duelpy", action="store_true", help="add duelpy 1.0.0 columns")
    ap.add_argument("--T-duelpy", type=_horizon, default=20_000)
    ap.add_argument("--readings", choices=["scb", "ecw"])
    ap.add_argument("--versus", metavar="A,B",
                    help="time two algorithms side by side at each --K (e.g. ecw-rmed,cw-rmed)")
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    if args.readings == "scb":
        readings_scb(args)
    elif args.readings == "ecw":
        readings_ecw(args)
    elif args.versus:
        versus(args)
    else:
        speed(args)


if __name__ == "__main__":
    main()
