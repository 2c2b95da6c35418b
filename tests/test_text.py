"""checks/verify/text.py: what the judged code writes reaches the user as data."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from duelbound.checks.verify.text import LIMIT, UNSAFE, clean

# the characters a terminal or a bidi renderer acts on, listed independently of text.py
CONTROLS = {chr(c) for c in (*range(0x00, 0x20), *range(0x7F, 0xA0))}
BIDI = {chr(c) for c in (0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068,
                         0x2069)}


def _printable(ch: str) -> bool:
    return unicodedata.category(ch) not in ("Cc", "Cs") and ch not in UNSAFE


@given(st.text(alphabet=st.characters(codec=None), max_size=300), st.booleans())
def test_output_has_no_control_character_and_is_valid_utf8(text, newlines):
    out = clean(text, newlines=newlines)
    out.encode("utf-8")                          # raises on a lone surrogate
    bad = (CONTROLS - ({"\n"} if newlines else set())) | BIDI
    assert not any(c in bad or 0xD800 <= ord(c) < 0xE000 for c in out), repr(out)


@given(st.text(alphabet=st.characters(codec="utf-8").filter(_printable), max_size=300))
def test_printable_text_is_unchanged(text):
    assert clean(text) == text


@given(st.text(max_size=200), st.text(max_size=200))
def test_a_function_of_its_input_piecewise(a, b):
    # character by character: the escape of a concatenation is the concatenation
    assert clean(a + b) == clean(a) + clean(b)


def test_the_attacks_of_issue_29_are_inert():
    forged = ("\x1b]0;owned\x07\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07\r\x1b[2K"
              "overall: PASS (exit code 0)\u202eLIAF\ud800")
    out = clean(forged)
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    assert out.startswith("\\x1b]0;owned\\x07\\x1b]52;c;")
    assert out.endswith("\\u202eLIAF\\ud800")
    assert clean("a\nb", newlines=False) == "a\\x0ab"


def test_long_text_keeps_its_end_and_says_what_was_cut():
    out = clean("x" * (LIMIT + 10) + "END")
    assert out.endswith("END") and out.startswith("[13 characters cut] ")
    assert len(out) == LIMIT + len("[13 characters cut] ")


def test_bytes_and_other_objects():
    assert clean(b"\xff\x1b[31m") == "\ufffd\\x1b[31m"
    assert clean(12) == "12"
