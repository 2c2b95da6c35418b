"""Drive a Python policy object through the simulator's environment (issue 7 protocol).

A policy has ``select() -> (i, j)`` and ``update(i, j, i_won: bool)``. The
environment, counts and regret accounting are the simulator's own
(:func:`duelbound.checks.simulate.environment.duel`), so a policy's RunRecord is directly
comparable with the compiled algorithms'.
"""

from __future__ import annotations

import time

from ...theory.errors import DuelboundError
from ...theory.matrix import PreferenceMatrix
from .environment import duel_py, make_env, make_rng
from .records import RunRecord, record_from_env

__all__ = ["run_policy"]


def run_policy(M, policy, T: int, seed: int, checkpoints=None, *, name: str | None = None,
               log_pairs: bool = False) -> RunRecord:
    """Run ``policy`` for ``T`` duels on ``M`` (pure Python loop).

    Parameters
    ----------
    M : PreferenceMatrix or array-like
    policy : object with ``select()`` and ``update(i, j, i_won)``
    T, seed, checkpoints, log_pairs : as in :func:`duelbound.checks.simulate.simulator.run_single`;
        the environment's outcomes come from PCG64(SeedSequence(seed)), the policy's own
        randomness is its business.
    name : str, optional
        Label stored as ``RunRecord.algorithm`` (default: the policy's class name).

    Raises
    ------
    DuelboundError
        ``select()`` returned something that is not a pair of arm indices.
    """
    if not isinstance(M, PreferenceMatrix):
        M = PreferenceMatrix(M)
    for meth in ("select", "update"):
        if not callable(getattr(policy, meth, None)):
            raise DuelboundError(f"policy has no {meth}() method")
    rng = make_rng(seed)
    env = make_env(M, T, checkpoints, log_pairs)
    start = time.perf_counter()
    for _ in range(int(env.clock[2])):
        pair = policy.select()
        try:
            i, j = (int(x) for x in pair)
        except (TypeError, ValueError):
            raise DuelboundError(
                f"policy.select() must return a pair (i, j), got {pair!r}") from None
        won = duel_py(env, rng, i, j)
        policy.update(i, j, won)
    wall = time.perf_counter() - start
    return record_from_env(env, name or type(policy).__name__, seed, {}, wall,
                           M.content_hash())
