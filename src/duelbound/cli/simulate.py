"""Run the reference simulator's algorithms on a matrix (docs/simulator.md).

Prints, per algorithm (named with its parameters), the mean ± std of R(T) in the
komiyama convention, its ratio to log T, the most played arm and the duels/s;
optionally a plot (mean regret vs t on a log-t axis, shaded 10–90 % quantile band over
the runs, C*·log t and C^E*·log t) and JSON (bare ``--json``: the JSON on stdout instead
of the table; ``--json FILE``: the table, and FILE written atomically).  Output paths
are checked before anything runs; the JSON is written before the plot.  A progress bar
per algorithm, over the duels of its runs with the time left (and a one-line notice when
numba compiles the simulator, first run only), goes to stderr when it is a terminal
(``--progress``: always; ``--quiet``: never).  Ctrl-C stops the runs at once:
the algorithms that had finished are kept (printed, and written to --json and --plot),
a one-line note says what was interrupted, and the exit status is 130.

How long: CCB, SCB, D-TS, ECW-RMED, RUCB and RMED1 play 10⁵–10⁶ duels/s at K ≤ 30
(docs/simulator.md, "Speed"); CW-RMED solves an LP in its loop and is slower: at K = 30
about 15 s per run of T = 2·10⁴ and 40 s per run of T = 10⁶, at K = 100 about 5 min per
run of T = 10⁵.

examples:
  duelbound simulate --example cyclic --algorithms ecw-rmed,d-ts --T 1e5 --runs 4
  duelbound simulate matrix.txt --algorithms all --T 1e6 --runs 20 --seed 0 --plot r.png
      (K = 30: CW-RMED alone ~40 s per run, ~7 min for 20 runs on 2 cores; Ctrl-C keeps
      the algorithms that finished)
  duelbound simulate --example cyclic --T 1e5 --plot r.png --log-y --json r.json --quiet
  duelbound simulate --example cyclic --algorithms d-ts --T 1e4 --runs 4 --workers 2 --json
"""

from __future__ import annotations

import argparse
import math
import sys

from ..theory.errors import DuelboundError
from .common import (
    PLOT_EXTENSIONS,
    add_feedback_arguments,
    add_json_option,
    add_matrix_arguments,
    add_workers_option,
    check_json_option,
    check_output_path,
    emit_json,
    feedback,
    horizon,
    json_only,
    load_matrix,
)

NAME = "simulate"
ORDER = 40
HELP = "simulate dueling-bandit algorithms and measure their regret"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_matrix_arguments(parser)
    parser.add_argument("--algorithms", default="ecw-rmed,d-ts", metavar="A,B,...",
                        help="comma-separated names, or 'all' (default: ecw-rmed,d-ts)")
    parser.add_argument("--T", type=horizon, default=10**5, help="horizon (1e6 notation ok)")
    parser.add_argument("--runs", type=int, default=10, help="independent runs (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    add_workers_option(parser, help="worker processes of the runs (default: min(runs, CPUs); 1: "
                                    "in this process)")
    parser.add_argument("--plot", metavar="FILE", help="regret-vs-t plot (.png/.svg/.pdf)")
    parser.add_argument("--log-y", action="store_true", help="logarithmic regret axis in --plot")
    add_json_option(parser)
    add_feedback_arguments(parser)


def run(args: argparse.Namespace) -> int:
    check_output_path(args.plot, PLOT_EXTENSIONS, "--plot")
    check_json_option(args)
    from ..checks.simulate.records import algorithm_label, plot_results
    from ..checks.simulate.simulator import (
        ALGORITHMS,
        SimulationInterrupted,
        get_algorithm,
        matrix_bounds,
        simulate,
    )

    M = load_matrix(args)
    names = list(ALGORITHMS) if args.algorithms.strip() == "all" else [
        get_algorithm(a).name for a in args.algorithms.split(",") if a.strip()]
    if not names:
        raise DuelboundError("--algorithms is empty")
    if args.runs < 1:
        raise DuelboundError("--runs must be ≥ 1")
    bounds = matrix_bounds(M) if args.plot else {}
    results = []
    logT = math.log(args.T) if args.T > 1 else 1.0
    text = not json_only(args)
    width = max(len(algorithm_label(n, ALGORITHMS[n].defaults)) for n in names)
    if text:
        print(f"matrix {M.name or '-'} (K = {M.K}), T = {args.T}, runs = {args.runs}, "
              f"seed = {args.seed}; regret in the komiyama convention")
        print(f"{'algorithm':<{width}} {'R(T) mean':>12} {'std':>10} {'R(T)/log T':>11} "
              f"{'most played arm':<20} {'duels/s':>10}")
    stopped = None
    for name in names:
        try:
            res = simulate(M, name, args.T, args.runs, args.seed, processes=args.workers,
                           progress=feedback(args))
        except SimulationInterrupted as exc:
            stopped = exc
            break
        res.bounds = bounds
        results.append(res)
        if text:
            _print_row(res, width, logT)
    return _write(M, results, stopped, args, plot_results)


def _write(M, results: list, stopped, args: argparse.Namespace, plot_results) -> int:
    """--json first, then --plot (or, after Ctrl-C, :func:`_interrupted`); the exit status."""
    if args.json:
        doc = {"matrix": M.to_dict(), "results": [r.to_dict() for r in results]}
        if stopped is not None:
            doc["interrupted"] = stopped.to_dict()
        emit_json(args, doc)
    if stopped is not None:
        return _interrupted(stopped, results, args, plot_results)
    if args.plot:
        try:
            plot_results(results, path=args.plot, log_y=args.log_y)
        except DuelboundError as exc:
            kept = (f"the results are in {args.json}" if args.json not in (None, "-")
                    else "the results are printed above")
            raise DuelboundError(f"{exc}; {kept}") from None
    return 0


def _print_row(res, width: int, logT: float) -> None:
    """One algorithm's line of the table, as soon as it has finished."""
    fin = res.final_regret["komiyama"]
    std = fin.std(ddof=1) if fin.size > 1 else 0.0
    top = res.most_played()
    played = f"{top['name']} ({top['share']:.0%})"
    print(f"{res.label_with_params:<{width}} {fin.mean():>12.2f} {std:>10.2f} "
          f"{fin.mean() / logT:>11.3f} {played:<20} {res.duels_per_second:>10.3g}", flush=True)


def _interrupted(stopped, results: list, args: argparse.Namespace, plot_results) -> int:
    """Ctrl-C: plot what finished, say in one line what was interrupted, exit 130."""
    kept = [r.algorithm for r in results]
    where = []
    if args.json not in (None, "-"):
        where.append(args.json)
    if args.plot and results:
        plot_results(results, path=args.plot, log_y=args.log_y)
        where.append(args.plot)
    share = stopped.duels_done / stopped.duels if stopped.duels else 0.0
    note = (f"duelbound simulate: interrupted during {stopped.algorithm} "
            f"({stopped.runs_finished} of {stopped.runs} runs finished, {share:.0%} of its "
            f"duels; its runs are dropped)")
    if kept:
        note += f"; finished: {', '.join(kept)}"
        note += f" (written to {' and '.join(where)})" if where else " (printed above)"
    sys.stderr.write(note + "\n")
    return 130
