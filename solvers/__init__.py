"""duelbound.solvers — the regret lower bound C* and ECW-RMED's C^E* ([K16] §3–4).

Definitions: docs/math.md §5–§6.

Public API: :func:`lower_bound` (LP via PuLP + HiGHS, exact certificate),
:func:`ecw_bound` (sorted threshold, numba core), :func:`in_region` (sorting oracle).
"""

# upper bounds and tables (issue 5):
from .bound_terms import BOUNDS, BoundTerm, upper_bound, upper_bounds
from .comparison import BoundTable, bound_table
from .cstar import LowerBoundResult, lower_bound
from .ecw import ECWBoundResult, ecw_bound, ecw_core, ecw_winner_core, threshold_core
from .estimates import CountsAnswer, answer_counts
from .interval import BoundInterval, IntervalReport, PairUncertainty, lower_bound_interval
from .oracle import Constraint, cw_oracle_core, ecw_oracle_core, in_region, tight_constraints
from .tables import Column, Table, render

__all__ = [
    "ecw_bound", "ECWBoundResult", "ecw_core", "ecw_winner_core", "threshold_core",
    "in_region", "cw_oracle_core", "ecw_oracle_core", "Constraint", "tight_constraints",
    "lower_bound", "LowerBoundResult",
]
__all__ += ["bound_table", "BoundTable", "Table", "Column", "render", "BOUNDS", "BoundTerm",
            "upper_bound", "upper_bounds"]
__all__ += ["lower_bound_interval", "IntervalReport", "BoundInterval", "PairUncertainty",
            "answer_counts", "CountsAnswer"]
