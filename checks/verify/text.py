"""Text that came from judged code, made safe to show: data, never terminal commands.

Whatever the judged code writes — exception messages, its stdout and stderr, the name
of the type it returned, an ImportError's text — reaches the user's terminal, stderr
and the JSON report only through :func:`clean`.  A terminal obeys escape sequences
(ESC ``]`` 52 puts text on the clipboard, ESC ``[`` 2K erases a line, a carriage return
overwrites it), and a bidirectional override (U+202E) makes "FAIL" read as "LIAF"; a
lone surrogate (U+D800) cannot be encoded at all and crashed ``print``.
"""

from __future__ import annotations

import unicodedata

__all__ = ["clean", "LIMIT", "UNSAFE"]

#: Longest text kept from one string of the judged code (characters, before escaping).
LIMIT = 4000

#: Characters escaped besides the C0/C1 controls, DEL and surrogates: the bidirectional
#: embeddings, overrides and isolates, and the line/paragraph separators.
UNSAFE = frozenset(chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A),
                                    0x200E, 0x200F, 0x061C, 0x2028, 0x2029))


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _unsafe(ch: str, newlines: bool) -> bool:
    if ch == "\n":
        return not newlines
    code = ord(ch)
    return (code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code < 0xE000
            or ch in UNSAFE or unicodedata.category(ch) == "Cs")


def clean(text: object, *, newlines: bool = True, limit: int = LIMIT) -> str:
    """``text`` with every character a terminal could act on escaped.

    Parameters
    ----------
    text : object
        A string (or bytes, decoded as UTF-8 with replacement; anything else through
        ``str``) from the judged code.
    newlines : bool
        Keep ``\\n`` (multi-line tails); otherwise it is escaped too (one-line fields).
    limit : int
        Keep the last ``limit`` characters of a longer text, after a marker saying how
        many were cut (the end of an output holds the error).

    Returns
    -------
    str
        Valid Unicode (encodable as UTF-8): C0 and C1 controls (ESC, BEL, CR, TAB ...),
        DEL, lone surrogates and the bidirectional controls appear as ``\\xNN`` /
        ``\\uNNNN``; a backslash is kept as it is; printable text is unchanged.
    """
    if isinstance(text, bytes | bytearray):
        text = bytes(text).decode("utf-8", "replace")
    elif not isinstance(text, str):
        text = str(text)
    cut = ""
    if len(text) > limit:
        cut = f"[{len(text) - limit} characters cut] "
        text = text[-limit:]
    return cut + "".join(_escape(c) if _unsafe(c, newlines) else c for c in text)
