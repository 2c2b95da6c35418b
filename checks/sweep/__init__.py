"""Sweeps: matrices × algorithms × seeds on Dask, each finished task committed to SQLite.

Front door: :func:`sweep` (simulations) and :func:`bounds_sweep` (C*, C^E* and the
upper-bound terms per matrix); :class:`SweepStore` reads and writes the store;
:mod:`.runner` holds the tasks, :mod:`.cluster` the Dask side, :mod:`.report` the tables
and plots of a store.
"""

from .runner import SweepResult, bounds_sweep, sweep
from .store import SweepStore

__all__ = ["SweepResult", "SweepStore", "bounds_sweep", "sweep"]
