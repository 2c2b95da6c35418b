"""The bundled matrices under their historical module name.

``examples`` and :mod:`duelbound.theory.datasets` are one registry: published
matrices with their citations (``cyclic``, ``mslr5``, ``arxiv6``) and the
package's own examples (``arithmetic``, ``multi_winner``, ``unique_copeland``).

Examples
--------
>>> from duelbound.theory import examples
>>> examples.names()
['arithmetic', 'arxiv6', 'cyclic', 'mslr5', 'multi_winner', 'unique_copeland']
>>> examples.load("cyclic").K
4
"""

from __future__ import annotations

from .datasets import describe, get, load, names

__all__ = ["names", "load", "describe", "get"]
