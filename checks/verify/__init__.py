"""Judging an outside dueling-bandit implementation against the theory.

Front door: :func:`verify_algorithm` (the ``duelbound verify`` command; the driver in
:mod:`.harness`, whose docstring maps the rooms in the order of the flow).  The user's
code runs in a separate, limited child process (:mod:`.child`, started by :mod:`.judge`,
the trusted environment, in :mod:`.process`'s sandboxed process); each run is one
:class:`.record.JudgedRun`; :mod:`.verdicts` turns the records into PASS /
INCONCLUSIVE / WARN / FAIL; :mod:`.schedule` re-runs undecided matrices at larger
horizons; :mod:`.report` holds the result; :mod:`.adapters` wraps other libraries'
algorithms.
"""

from .harness import (
    DEFAULT_MATRICES,
    DEFAULT_RUNS,
    DEFAULT_T,
    EXIT_CODES,
    MatrixReport,
    VerifyReport,
    load_factory,
    verify_algorithm,
)

__all__ = ["DEFAULT_MATRICES", "DEFAULT_RUNS", "DEFAULT_T", "EXIT_CODES", "MatrixReport",
           "VerifyReport", "load_factory", "verify_algorithm"]
