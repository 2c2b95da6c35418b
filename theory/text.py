"""Plain-text helpers of the reports that render themselves (structure, bounds)."""

from __future__ import annotations

__all__ = ["LIST_WIDTH", "clip"]

#: Width of the lists in text outputs (the whole line stays under ~120 characters).
LIST_WIDTH = 100


def clip(items: list[str], sep: str = ", ", full: bool = False, width: int = LIST_WIDTH) -> str:
    """Join ``items`` up to ``width`` characters, then "… N more (--json / --full)".

    Whole items only, so a long arm name is never cut into something that looks like
    another arm.

    Examples
    --------
    >>> clip(["a", "b", "c"], width=4)
    'a, b, … 1 more (--json / --full)'
    """
    if full:
        return sep.join(items)
    out: list[str] = []
    used = 0
    for k, item in enumerate(items):
        add = len(item) + (len(sep) if out else 0)
        if out and used + add > width:
            return sep.join(out) + f"{sep}… {len(items) - k} more (--json / --full)"
        out.append(item)
        used += add
    return sep.join(out)
