"""Start-up of the command line against ``import numpy`` (issue 31: ``duelbound --help``
<= 0.5 s; it took 3.5-3.9 s).

Runs each command ``--runs`` times, alternating them so that load on the machine hits both
alike, and prints the median and range of the wall time per command and the ratio of the
medians.  Usage::

    python benchmarks/bench_startup.py [--runs 10]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "duelbound --help": [os.path.join(os.path.dirname(sys.executable), "duelbound"), "--help"],
    "python -m duelbound --help": [sys.executable, "-m", "duelbound", "--help"],
    "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
    "python -c 'pass'": [sys.executable, "-c", "pass"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(args.runs):
        for name, argv in COMMANDS.items():
            t0 = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - t0)
    for name, ts in times.items():
        print(f"{name:<28} median {statistics.median(ts):.3f} s  "
              f"[{min(ts):.3f}, {max(ts):.3f}]  ({args.runs} runs)")
    help_s = statistics.median(times["duelbound --help"])
    numpy_s = statistics.median(times["python -c 'import numpy'"])
    print(f"ratio --help / import numpy: {help_s / numpy_s:.2f}")


if __name__ == "__main__":
    main()
