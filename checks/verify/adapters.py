"""Adapters that let libraries whose algorithms drive the environment be verified.

duelpy ([duelpy] 1.0.0, the ``bench`` extra — never a runtime dependency) runs an
algorithm as ``Algorithm(feedback_mechanism=..., time_horizon=...).run()``, where
the feedback mechanism's ``duel(a, b)`` returns whether arm a won.  The
:func:`duelpy_factory` adapter turns such a class into a factory for the
``"duel"`` protocol of :func:`duelbound.checks.verify.harness.verify`.  ``verify`` imports
factories by name in its isolated child, so they must live at module level
(see examples/duelpy_wrapped.py)::

    duelbound verify duelbound.checks.verify.adapters:duelpy_dts --reference d-ts

duelpy 1.0.0 predates NumPy 1.24/2.0 and uses aliases NumPy removed;
:func:`restore_numpy_aliases` puts them back before duelpy is imported.  Without
them duelpy raises AttributeError, which ``verify`` reports as an *environment*
error (exit code 2), not as a fault of the algorithm.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ...theory.errors import DuelboundError

__all__ = ["duelpy_factory", "duelpy_dts", "duelpy_ccb", "duelpy_rucb", "duelpy_rmed1",
           "DUELPY_CLASSES", "NUMPY_ALIASES", "restore_numpy_aliases"]


#: NumPy aliases duelpy 1.0.0 uses that NumPy removed (1.24: np.float, np.int, np.bool,
#: np.object, …; 2.0: np.infty, np.NaN, np.float_): restored before duelpy is imported.
NUMPY_ALIASES = {"float": float, "int": int, "bool": bool, "object": object, "complex": complex,
                 "str": str, "infty": np.inf, "Inf": np.inf, "NaN": np.nan,
                 "float_": np.float64, "int_": np.int64}


def restore_numpy_aliases() -> list[str]:
    """Put back the removed NumPy aliases duelpy needs; returns the names restored."""
    done = []
    for name, value in NUMPY_ALIASES.items():
        if name not in np.__dict__:
            setattr(np, name, value)
            done.append(name)
    return done


def _duelpy() -> tuple[Any, Any]:
    """duelpy's ``algorithms`` module and its ``FeedbackMechanism`` class (an optional
    dependency: imported by name, so that type checking needs no duelpy)."""
    import importlib

    restore_numpy_aliases()
    try:
        algorithms = importlib.import_module("duelpy.algorithms")
        feedback = importlib.import_module("duelpy.feedback")
    except ImportError:
        raise DuelboundError("duelpy is not installed; pip install 'duelbound[bench]' "
                             "(duelpy==1.0.0)") from None
    return algorithms, feedback.FeedbackMechanism


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
            def ask(self: Any, arm_i_index: int, arm_j_index: int) -> bool:
                return duel(int(arm_i_index), int(arm_j_index))

            # a subclass of duelpy's class, made at run time (duelpy is optional)
            feedback = type("_Feedback", (FeedbackMechanism,), {"duel": ask})
            kwargs = dict(params)
            if "random_state" in inspect.signature(cls).parameters:
                kwargs["random_state"] = np.random.RandomState(seed % 2**32)
            cls(feedback_mechanism=feedback(list(range(K))), time_horizon=horizon,
                **kwargs).run()

        return run

    factory.__qualname__ = f"duelpy:{getattr(algorithm, '__name__', algorithm)}"
    return factory


#: The duelpy classes with ready-made factories (each tested).
DUELPY_CLASSES = {"duelpy_dts": "DoubleThompsonSampling", "duelpy_ccb": "CopelandConfidenceBound",
                  "duelpy_rucb": "RelativeUCB", "duelpy_rmed1": "Rmed1"}

#: Ready-made factories for ``duelbound verify duelbound.checks.verify.adapters:duelpy_dts``.
duelpy_dts = duelpy_factory("DoubleThompsonSampling")
duelpy_ccb = duelpy_factory("CopelandConfidenceBound")
duelpy_rucb = duelpy_factory("RelativeUCB")
duelpy_rmed1 = duelpy_factory("Rmed1")
