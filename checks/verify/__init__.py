"""Judging an outside dueling-bandit implementation against the theory.

Front door: :func:`verify_algorithm` (the ``duelbound verify`` command).  The user's code
runs in a separate, limited child process (:mod:`.child`, started by :mod:`.judge`, the
trusted environment); :mod:`.verdicts` turns the judge's records into PASS /
INCONCLUSIVE / WARN / FAIL; :mod:`.adapters` wraps other libraries' algorithms.
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
