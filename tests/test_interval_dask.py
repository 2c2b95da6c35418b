"""The interval's C* draws on Dask (issue 31 item 7): an external ``dask scheduler`` with two
``dask worker`` processes gives the values of the serial run, every tournament among the
draws one task on the cluster (the local cluster of ``workers=2``:
tests/test_interval.py::test_worker_processes_give_the_same_values)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from duelbound.solvers import answer_counts, lower_bound_interval
from duelbound.theory.errors import DuelboundError

# K = 6: arms 0 and 1 tied (the posterior answers), pairs 4-5 never compared
W = np.array([[0, 5, 9, 7, 8, 6], [5, 0, 8, 9, 7, 5], [2, 3, 0, 6, 7, 4],
              [4, 2, 5, 0, 6, 7], [3, 4, 4, 5, 0, 0], [5, 6, 7, 4, 0, 0]])
RUN = {"draws": 40, "seed": 11, "cstar_draws": "all"}


@pytest.fixture(scope="module")
def serial():
    return lower_bound_interval(W, **RUN)


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """A ``dask scheduler`` and two ``dask worker`` processes, found by a scheduler file."""
    from dask.distributed import Client

    dask = Path(sys.executable).parent / "dask"
    where = tmp_path_factory.mktemp("dask") / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,
             "start_new_session": True}
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", where], **quiet)]
    procs += [subprocess.Popen([dask, "worker", "--scheduler-file", where, "--nthreads", "1",
                                "--host", "127.0.0.1", "--no-dashboard"], **quiet)
              for _ in range(2)]
    try:
        deadline = time.monotonic() + 60
        while not where.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        with Client(scheduler_file=str(where), timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
            address = client.scheduler.address
        yield address
    finally:
        _stop(procs)


def _stop(procs: list[subprocess.Popen]) -> None:
    """SIGTERM to every process group, SIGKILL to those still alive after 15 s."""
    deadline = time.monotonic() + 15
    for p in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def _tasks_done(address: str) -> int:
    """How many C* tasks reached memory on the cluster (the scheduler's per-prefix counts of
    state transitions outlive the tasks)."""
    from dask.distributed import Client

    def count(dask_scheduler) -> int:
        prefix = dask_scheduler.task_prefixes.get("cstar_task")
        return 0 if prefix is None else int(prefix.state_counts.get("memory", 0))

    with Client(address, timeout="30s") as client:
        return client.run_on_scheduler(count)


def test_an_external_cluster_solves_every_draw_and_gives_the_serial_values(serial, scheduler):
    before = _tasks_done(scheduler)
    rep = lower_bound_interval(W, scheduler=scheduler, **RUN)
    assert np.array_equal(rep.samples["cstar"], serial.samples["cstar"])
    assert rep.cstar.draws == RUN["draws"] and rep.stats["scheduler"] == scheduler
    # one task per tournament among the draws (this K = 6 posterior has fewer tournaments
    # than draws; at K >= 30 nearly every draw has its own)
    tournaments = len({tuple(row) for row in (rep.samples["mu"] > 0.5)})
    assert _tasks_done(scheduler) - before == tournaments
    assert rep.stats["lp_solves"] == serial.stats["lp_solves"]


def test_the_front_door_passes_the_scheduler_on(serial, scheduler):
    ans = answer_counts(W, scheduler=scheduler, **RUN)
    assert not ans.defined
    assert np.array_equal(ans.interval.samples["cstar"], serial.samples["cstar"])


def test_an_unreachable_scheduler_is_one_clear_error():
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(DuelboundError, match="cannot connect to the Dask scheduler"):
        lower_bound_interval(W, scheduler=f"tcp://127.0.0.1:{port}", **RUN)
