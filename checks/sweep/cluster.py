"""The Dask side of a sweep: the local cluster, its settings, and dead workers replaced.

:func:`dask_client` gives a client of an existing scheduler or of a new in-process
``LocalCluster`` (one single-threaded worker process per core, settings of
:func:`local_cluster_config`); :class:`Reviver` replaces the worker processes such a cluster
lost for good.  Only Dask's public API is used (docs/dependencies.md).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

from ...cluster import connect, local_cluster

__all__ = ["local_cluster_config", "queueing_safe", "dask_client", "Reviver"]


def local_cluster_config() -> dict[str, Any]:
    """Dask settings of the default ``LocalCluster`` (advised for a ``dask scheduler`` too).

    * ``allowed-failures = 0``: a worker death fails the task at once; the sweep's
      own retry (one resubmission) then applies, so "retried once" means once.
    * ``worker-saturation = 1.0``: a worker is sent at most one task per thread and the
      rest wait in the scheduler's queue, so every task assigned to a worker is running
      and a worker that dies takes no innocent task with it; a freed thread gets its next
      task from the scheduler at once (no client round trip).

    :func:`_execute` checks both on the scheduler (:func:`queueing_safe`) and otherwise
    keeps only one task per worker thread in flight itself (slower, same guarantees).
    """
    return {"distributed.scheduler.allowed-failures": 0,
            "distributed.scheduler.worker-saturation": 1.0}


def queueing_safe(client: Any) -> bool:
    """True if the scheduler runs with the settings of :func:`local_cluster_config`."""
    def probe(dask_scheduler: Any) -> tuple[float, int]:
        return float(dask_scheduler.WORKER_SATURATION), int(dask_scheduler.allowed_failures)

    try:
        saturation, allowed = client.run_on_scheduler(probe)
    except Exception:  # noqa: BLE001 -- a scheduler that refuses `run`: stay conservative
        return False
    return saturation == 1.0 and allowed == 0


@contextlib.contextmanager
def dask_client(scheduler: str | None,
                workers: int | None) -> Iterator[tuple[Any, Callable[[], int]]]:
    """(client, revive): a client of the given scheduler, or of a new ``LocalCluster``.

    ``revive()`` replaces the local cluster's dead worker processes and returns how many
    it replaced (always 0 for an external scheduler, whose workers are not ours).
    """
    import dask
    from dask.distributed import Client

    if scheduler:
        client = connect(scheduler)
        try:
            yield client, lambda: 0
        finally:
            client.close()
        return
    with dask.config.set(local_cluster_config()):
        cluster = local_cluster(workers)
        n = len(cluster.worker_spec)
        client = Client(cluster)
        revive = Reviver(cluster)
        try:
            yield client, revive
        finally:
            # Every result is committed by now.  A worker killed by the last tasks may
            # still be restarting, or its nanny may have given up: let it come back
            # before closing (closing under a starting worker prints its tracebacks),
            # and never let a nanny's failure to close turn a finished sweep into an error.
            with contextlib.suppress(Exception):
                revive.grace = 0.0
                revive()
                client.wait_for_workers(n, timeout=30)
            for close in (client.close, cluster.close):
                with contextlib.suppress(Exception):
                    close()


class Reviver:
    """Replaces the worker processes of a ``LocalCluster`` that are gone for good.

    A nanny restarts its worker process when it dies; but if the new process dies while
    it is still starting (a queued task that kills workers is sent to it the moment it
    registers), the nanny is left without a worker (distributed 2026.8,
    ``Nanny.instantiate``/``_on_worker_exit``) and the cluster shrinks — to nothing, after
    a few such crashes, and the sweep would wait in vain.  ``revive()`` replaces every
    nanny that has had no live worker registered with the scheduler for ``grace``
    seconds (its process dead) or 12 × ``grace`` (process alive but still not
    registered) by a fresh one from the cluster's spec, and returns how many it replaced.
    """

    def __init__(self, cluster: Any, grace: float = 5.0) -> None:
        self.cluster, self.grace = cluster, grace
        self.missing_since: dict[Any, float] = {}

    def __call__(self) -> int:
        from distributed.core import Status

        cluster = self.cluster
        live = set(cluster.scheduler.workers)  # the LocalCluster's scheduler is in-process
        now, gone = time.monotonic(), []
        for name, nanny in list(cluster.workers.items()):
            if nanny.status == Status.running and nanny.worker_address in live:
                self.missing_since.pop(name, None)
                continue
            # a process that is alive may just be slow to start (imports, a busy machine)
            proc = getattr(nanny.process, "process", None)
            grace = self.grace * (12 if proc is not None and proc.is_alive() else 1)
            if now - self.missing_since.setdefault(name, now) >= grace:
                gone.append(name)
        for name in gone:
            self.missing_since.pop(name, None)
            nanny = cluster.workers.pop(name, None)  # the cluster's loop may have dropped it
            if nanny is not None:
                with contextlib.suppress(Exception):
                    cluster.sync(nanny.close, timeout=5)
        if gone:
            # the spec still names the removed nannies: scaling to the spec's size (public
            # SpecCluster API) starts a fresh nanny for each; the sweep waits for workers
            cluster.scale(len(cluster.worker_spec))
        return len(gone)
