"""The wire protocol between the judge (:mod:`.judge`) and the child (:mod:`.child`).

One home for its constants: the judge imports this module; the child, which runs as a
script and imports no part of duelbound, loads this file by its path
(``importlib.util.spec_from_file_location``, from its own folder).  So this module
imports nothing but the standard library.

The child writes each request as 8 bytes (i, j), little-endian int32 (:data:`REQUEST`),
and blocks on a 1-byte answer (:data:`J_WON`, :data:`I_WON`, :data:`INVALID`,
:data:`EXCEEDED`).  Markers in the i field: :data:`TEXT` (j bytes of JSON follow:
exceptions, protocol detection), :data:`READY` (module imported and factory built: the
hang clock starts), :data:`DONE` and :data:`BAD` (a request whose arguments are not
int32 arm indices: j is one of :data:`BAD_REASONS`' codes; the judge records it as an
invalid request before the child raises in the algorithm's code).  Arm indices sent as
requests lie in :data:`INT32`, which leaves the markers out.

What the judge accepts, when (anything else is a protocol error, kind
``unexpected-message``): before READY a TEXT (the load failed) then DONE; READY once;
then requests, BAD, TEXT exception reports, and DONE; nothing after DONE.
"""

from __future__ import annotations

__all__ = ["DONE", "TEXT", "READY", "BAD", "BAD_REASONS", "INT32", "REQUEST", "TEXT_MAX",
           "J_WON", "I_WON", "INVALID", "EXCEEDED", "ANSWERS"]

DONE = -2147483648      # the algorithm has finished
TEXT = -2147483647      # a JSON message of j bytes follows
READY = -2147483646     # module imported and factory(K, T, seed) built
BAD = -2147483645       # a request that is not a pair of int32 arm indices (j: a reason)
#: Why a request was BAD (the code in its j field).
BAD_REASONS = {1: "an arm index that is not an integer (a float, str, bool, None or an "
                  "object whose __index__ fails)",
               2: "an integer arm index outside int32 (far out of range)",
               3: "select() returned something that is not a pair (i, j)"}
#: Range of the integers a request may carry (int32 without the four markers).
INT32 = (-2147483644, 2147483647)
#: struct format of one request (i, j).
REQUEST = "<ii"
#: Longest JSON message, in bytes.
TEXT_MAX = 65536

J_WON = 0       # answer: j won the duel (also the plain acknowledgement of a marker)
I_WON = 1       # answer: i won the duel
INVALID = 2     # answer: invalid request (out of range, not an int): recorded
EXCEEDED = 3    # answer: more than T duels: recorded
#: The answers as the bytes written to the child, indexed by code.
ANSWERS = (bytes([J_WON]), bytes([I_WON]), bytes([INVALID]), bytes([EXCEEDED]))
