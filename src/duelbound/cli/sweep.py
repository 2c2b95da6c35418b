"""Run (or resume) a sweep: matrices × algorithms × runs, on Dask, stored in SQLite.

One task per (matrix, algorithm, run); run r uses a seed derived from (S, matrix
hash, algorithm, r).  Every finished task is committed to the store at once;
running the same command again skips the committed tasks (a killed sweep loses
only the tasks in flight).  A failing task is retried once, then recorded as
failed; the exit code is 1 if any task failed.

The store path is checked before anything runs; one sweep at a time per store (a second
one is refused with the first one's pid and host; sweep-report can read it meanwhile).  A
progress bar goes to stderr on a terminal (--quiet: none, --progress: always).

Without --scheduler the sweep starts an in-process Dask LocalCluster with
--workers processes.  For an existing cluster:

  dask scheduler --host 127.0.0.1 --port 8786 &
  dask worker tcp://127.0.0.1:8786 --nthreads 1 &      # one per core / host

examples:
  duelbound sweep --example cyclic --algorithms uniform,d-ts --T 1e5 --runs 20 \\
      --seed 0 --store results.sqlite
  duelbound sweep --matrices a.txt b.txt --algorithms ecw-rmed --T 1e6 --runs 50 \\
      --seed 1 --store results.sqlite --scheduler tcp://127.0.0.1:8786
  duelbound sweep --matrices big/*.txt --bounds-only --store bounds.sqlite
"""

from __future__ import annotations

import argparse
import json
import logging
import sys

from ..errors import DuelboundError
from .common import (
    add_feedback_arguments,
    add_json_option,
    add_matrix_arguments,
    add_scheduler_option,
    add_workers_option,
    check_json_option,
    check_output_path,
    emit_json,
    feedback,
    horizon,
    json_only,
    load_matrices,
)

NAME = "sweep"
ORDER = 70
HELP = "resumable simulation / bound sweeps on Dask, stored in SQLite"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_matrix_arguments(parser, many=True)
    parser.add_argument("--matrices", nargs="+", default=[], metavar="FILE",
                        help="matrix files (same as the positional FILEs)")
    parser.add_argument("--algorithms", metavar="A,B,...",
                        help="comma-separated simulator algorithms (or plugin module:callable)")
    parser.add_argument("--T", type=horizon, metavar="N", help="horizon (1e6 notation ok)")
    parser.add_argument("--runs", type=int, default=1, metavar="R", help="runs per pair")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="sweep seed S")
    parser.add_argument("--params", metavar="JSON",
                        help='per-algorithm parameters, e.g. \'{"d-ts": {"alpha": 0.51}}\'')
    parser.add_argument("--store", required=True, metavar="FILE.sqlite",
                        help="SQLite store (created if missing, resumed if present)")
    add_scheduler_option(parser, "existing Dask scheduler")
    add_workers_option(parser, help="worker processes of the local cluster (default: CPU count)")
    parser.add_argument("--bounds-only", action="store_true",
                        help="compute C* and C^E* of every matrix instead of simulating")
    parser.add_argument("--skip-failed", action="store_true",
                        help="do not re-run tasks recorded as failed by an earlier sweep")
    add_feedback_arguments(parser)
    add_json_option(parser, "the summary")


def _params(text: str | None) -> dict | None:
    if not text:
        return None
    try:
        params = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DuelboundError(f"--params is not valid JSON ({exc.msg})") from None
    if not isinstance(params, dict) or not all(isinstance(v, dict) for v in params.values()):
        raise DuelboundError('--params must map algorithm names to objects, '
                             'e.g. {"d-ts": {"alpha": 0.51}}')
    return params


def run(args: argparse.Namespace) -> int:
    from ..checks.sweep.runner import bounds_sweep, sweep

    check_output_path(args.store, None, "--store")
    check_json_option(args)
    args.files = list(args.files) + list(args.matrices)
    matrices = load_matrices(args)
    progress = feedback(args)
    # Dask logs every worker death at ERROR level; the sweep reports failures itself
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    if args.bounds_only:
        result = bounds_sweep(matrices, args.store, scheduler=args.scheduler,
                              workers=args.workers, retry_failed=not args.skip_failed,
                              progress=progress)
    else:
        if not args.algorithms:
            raise DuelboundError("give --algorithms (or --bounds-only)")
        if args.T is None:
            raise DuelboundError("give the horizon --T")
        algorithms = [a.strip() for a in args.algorithms.split(",") if a.strip()]
        result = sweep(matrices, algorithms, args.T, args.runs, args.seed, args.store,
                       params=_params(args.params), scheduler=args.scheduler,
                       workers=args.workers, retry_failed=not args.skip_failed,
                       progress=progress)
    emit_json(args, result.to_dict())
    if not json_only(args):
        rate = "" if not result.completed else f", {result.throughput:.2f} tasks/s"
        print(f"{result.total} tasks: {result.completed} done now, {result.skipped} already "
              f"in the store, {len(result.failed)} failed{rate} -> {result.store}")
    for f in result.failed:
        what = (f"{f.get('name') or f['matrix_hash'][:12]}" if result.kind == "bounds" else
                f"matrix {f['matrix_hash'][:12]} {f['algorithm']} run {f['run']}")
        first = str(f["error"]).splitlines()[0][:200]
        sys.stderr.write(f"failed after {f['attempts']} attempts: {what}: {first}\n")
    return 1 if result.failed else 0
