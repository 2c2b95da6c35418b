"""Adapters that let libraries whose algorithms drive the environment be verified.

duelpy ([duelpy] 1.0.0, the ``bench`` extra — never a runtime dependency) runs an
algorithm as ``Algorithm(feedback_mechanism=..., time_horizon=...).run()``, where
the feedback mechanism's ``duel(a, b)`` returns whether arm a won.  The
:func:`duelpy_factory` adapter turns such a class into a factory for the
``"duel"`` protocol of :func:`duelbound.checks.harness.verify`::

    from duelbound.checks.adapters import duelpy_factory
    from duelbound.checks.harness import verify
    report = verify(duelpy_factory("DoubleThompsonSampling"), protocol="duel",
                    reference="d-ts", T=20_000)

or on the command line (module-level factories below)::

    duelbound verify duelbound.checks.adapters:duelpy_dts --protocol duel --reference d-ts
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from duelbound.theory.errors import DuelboundError

__all__ = ["duelpy_factory", "duelpy_dts", "duelpy_ccb", "duelpy_rucb", "duelpy_rmed1"]


def _duelpy():
    if "float" not in np.__dict__:
        # duelpy 1.0.0 annotates with np.float, an alias removed in NumPy 1.24:
        # restore the alias (it is the builtin float) so duelpy can be imported.
        setattr(np, "float", float)  # noqa: B010
    try:
        import duelpy  # noqa: F401
        from duelpy import algorithms
        from duelpy.feedback import FeedbackMechanism
    except ImportError:
        raise DuelboundError("duelpy is not installed; pip install 'duelbound[bench]' "
                             "(duelpy==1.0.0)") from None
    return algorithms, FeedbackMechanism


def duelpy_factory(algorithm: str | type, **params: Any) -> Callable:
    """Factory ``(K, T, seed) -> run(duel, T)`` driving a duelpy algorithm class.

    Parameters
    ----------
    algorithm : str or type
        A class of ``duelpy.algorithms`` or its name (e.g. ``"DoubleThompsonSampling"``).
    **params
        Extra keyword arguments of the class (e.g. ``exploratory_constant=0.51``).

    Notes
    -----
    The algorithm receives ``random_state=np.random.RandomState(seed)`` when its
    constructor accepts one, so a fixed seed gives a fixed duel sequence.
    duelpy stops the algorithm itself when ``time_horizon`` duels have been played.
    """

    def factory(K: int, T: int, seed: int):
        algorithms, FeedbackMechanism = _duelpy()
        cls = getattr(algorithms, algorithm) if isinstance(algorithm, str) else algorithm

        def run(duel: Callable[[int, int], bool], horizon: int) -> None:
            class _Feedback(FeedbackMechanism):
                def duel(self, arm_i_index: int, arm_j_index: int) -> bool:
                    return duel(int(arm_i_index), int(arm_j_index))

            kwargs = dict(params)
            if "random_state" in inspect.signature(cls).parameters:
                kwargs["random_state"] = np.random.RandomState(seed % 2**32)
            cls(feedback_mechanism=_Feedback(list(range(K))), time_horizon=horizon,
                **kwargs).run()

        return run

    factory.__qualname__ = f"duelpy:{getattr(algorithm, '__name__', algorithm)}"
    return factory


#: Ready-made factories for the CLI (``--protocol duel``).
duelpy_dts = duelpy_factory("DoubleThompsonSampling")
duelpy_ccb = duelpy_factory("CopelandConfidenceBound")
duelpy_rucb = duelpy_factory("RelativeUCB")
duelpy_rmed1 = duelpy_factory("Rmed1")
