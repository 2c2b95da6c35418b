"""The reference simulator: the papers' algorithms against a preference matrix.

Front door: :func:`simulate` (several algorithms × runs, parallel) and
:func:`run_single` (one run); :data:`ALGORITHMS` names the algorithms.  The compiled
algorithm loops live in :mod:`duelbound.checks.simulate.algorithms`, one module per
algorithm family; :mod:`.environment` draws the duels, :mod:`.records` holds results.
"""

from .policy import run_policy
from .records import RunRecord, SimulationResult
from .simulator import ALGORITHMS, get_algorithm, run_single, simulate

__all__ = ["ALGORITHMS", "RunRecord", "SimulationResult", "get_algorithm", "run_policy",
           "run_single", "simulate"]
