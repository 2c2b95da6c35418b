"""duelbound.checks — simulation and verification of the bounds' claims."""

from .simulator import ALGORITHMS, RunRecord, SimulationResult, run_policy, run_single, simulate
from .store import SweepStore
from .sweep import SweepResult  # the function is duelbound.checks.sweep.sweep (no shadowing)

__all__ = ["ALGORITHMS", "RunRecord", "SimulationResult", "run_policy", "run_single", "simulate"]
__all__ += ["SweepStore", "SweepResult"]
from .claims import CLAIMS, check_claims  # noqa: E402  (issue 7)
from .harness import verify  # noqa: E402

__all__ += ["CLAIMS", "check_claims", "verify"]
