"""One module per algorithm family of the reference simulator (compiled with numba).

:mod:`.common` holds the shared confidence bounds and divergences, :mod:`.schedule` the
flip-time heaps; each other module defines an ``ALGORITHM`` spec (and variants) that
:mod:`duelbound.checks.simulate.simulator` registers.  The ``run_*_core`` loops are
implementation details, not API.
"""

__all__: list[str] = []
