"""A Dask client for the package's parallel jobs: an existing cluster, or a local one.

Ground floor: imports no layer (only Dask and :mod:`duelbound.errors`), so ``solvers``
(the interval's C* draws) and ``checks`` (sweeps) can both use it.

* ``scheduler="tcp://host:port"``: a client of an existing cluster (``dask scheduler`` and
  ``dask worker`` processes started by the user, on this machine or others);
* otherwise a ``LocalCluster`` of ``workers`` single-threaded worker processes on
  127.0.0.1, closed on exit.

Dask's tested range is the package's dependency ``dask[distributed] >= 2024.1`` (public API
only: ``Client``, ``LocalCluster``, ``as_completed``).

Examples
--------
>>> from duelbound.cluster import dask_client
>>> def square(x):
...     return x * x
>>> if __name__ == "__main__":          # a local cluster starts worker processes
...     with dask_client(workers=2) as client:
...         print(client.submit(square, 3).result())
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from typing import Any

from .errors import DuelboundError

__all__ = ["dask_client", "connect", "local_cluster", "describe"]

#: Seconds to wait for an external scheduler to answer.
CONNECT_TIMEOUT = "20s"


def connect(scheduler: str) -> Any:
    """A ``dask.distributed.Client`` of the existing scheduler at ``scheduler``.

    Raises
    ------
    DuelboundError
        The scheduler does not answer within :data:`CONNECT_TIMEOUT`.
    """
    from dask.distributed import Client

    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise DuelboundError(f"cannot connect to the Dask scheduler at {scheduler} "
                             f"({exc})") from None


def local_cluster(workers: int | None = None) -> Any:
    """A new ``LocalCluster`` of ``workers`` single-threaded worker processes on 127.0.0.1
    (default: the CPU count), with Dask's logs silenced; the caller closes it.

    Raises
    ------
    DuelboundError
        ``workers`` < 1.
    """
    from dask.distributed import LocalCluster

    n = int(workers) if workers is not None else (os.cpu_count() or 1)
    if n < 1:
        raise DuelboundError(f"workers must be >= 1, got {n}")
    return LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                        dashboard_address=None, host="127.0.0.1",
                        silence_logs=logging.CRITICAL)


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None,
                config: dict[str, Any] | None = None) -> Iterator[Any]:
    """A ``dask.distributed.Client`` of the cluster at ``scheduler``, or of a new local one.

    Parameters
    ----------
    scheduler : str, optional
        Address of an existing scheduler (``tcp://host:port``); its workers are the user's.
    workers : int, optional
        Worker processes of the local cluster (one thread each; default: the CPU count).
        Ignored with ``scheduler``.
    config : dict, optional
        Dask settings for the local cluster (``dask.config.set`` keys).

    Raises
    ------
    DuelboundError
        The scheduler does not answer; ``workers`` < 1.
    """
    import dask
    from dask.distributed import Client

    if scheduler:
        with connect(scheduler) as client:
            yield client
        return
    with dask.config.set(config or {}), local_cluster(workers) as cluster, \
            Client(cluster) as client:
        yield client


def describe(scheduler: str | None, workers: int | None) -> str:
    """Where the work runs, for progress bars and messages."""
    if scheduler:
        return f"Dask at {scheduler}"
    return f"{workers or os.cpu_count() or 1} local Dask workers"
