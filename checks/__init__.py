"""duelbound.checks — the jobs that put the bounds to work.

Four rooms, each a subpackage with one front door (docs/architecture.md):

``duelbound.checks.simulate``
    The reference simulator of the papers' algorithms: :func:`~.simulate.simulate`,
    :func:`~.simulate.run_single`, :data:`~.simulate.ALGORITHMS`.
``duelbound.checks.verify``
    Judging an outside implementation: :func:`~.verify.verify_algorithm`.
``duelbound.checks.claims``
    The papers' claims checked on generated matrices: :func:`~.claims.check_claims`.
``duelbound.checks.sweep``
    Matrices × algorithms × seeds on Dask into SQLite: :func:`~.sweep.sweep`.

and :mod:`duelbound.checks.strategies`, the public hypothesis strategies.  The
subpackages are imported on first use (``import duelbound.checks`` is cheap).
"""

__all__ = ["claims", "simulate", "strategies", "sweep", "verify"]
