"""Verifying a third-party library: duelpy 1.0.0 through the bundled adapter.

duelpy runs an algorithm as ``Algorithm(feedback_mechanism=..., time_horizon=...).run()``.
:func:`duelbound.checks.verify.adapters.duelpy_factory` wraps such a class into a duel-protocol
factory (and restores the NumPy aliases duelpy 1.0.0 still uses).  The factories
below are what ``duelbound verify`` imports — in its isolated child only::

    pip install 'duelbound[bench]'          # duelpy==1.0.0
    duelbound verify examples.duelpy_wrapped:dts --reference d-ts --only cyclic

An ``ImportError`` or a removed NumPy alias raised inside duelpy is reported as an
*environment* error (exit code 2), not as a bug of the algorithm.
"""

from __future__ import annotations

from duelbound.checks.verify.adapters import duelpy_factory

dts = duelpy_factory("DoubleThompsonSampling")
ccb = duelpy_factory("CopelandConfidenceBound")
rucb = duelpy_factory("RelativeUCB", exploratory_constant=0.51)
