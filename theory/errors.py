"""The exception types, re-exported from the ground floor :mod:`duelbound.errors`.

``from duelbound.theory.errors import DuelboundError`` keeps working (it is how the
package and its users have always imported them); the classes live in
:mod:`duelbound.errors` so that every layer, and the root utilities below the layers,
can raise them without importing ``theory``.
"""

from __future__ import annotations

from ..errors import *  # noqa: F403 -- a re-export: every public name of duelbound.errors
from ..errors import __all__ as _ERROR_NAMES

__all__ = list(_ERROR_NAMES)
