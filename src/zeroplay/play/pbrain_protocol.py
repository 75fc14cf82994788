"""The Gomocup (Piskvork) protocol's words, as ``zeroplay pbrain`` / ``pbrain-zeroplay`` read them.

Commands (one a line, LF or CR LF; keywords in any case)::

    START n             new n x n game (5..25)                   -> OK | ERROR ...
    RECTSTART w,h       new w x h game                           -> OK | ERROR ...
    RESTART             new game, same board                     -> OK
    BEGIN               we move first                            -> x,y
    TURN x,y            the opponent played x,y                  -> x,y (our move)
    BOARD               whole position, then lines x,y,f, then DONE   -> x,y
                        (f: 1 own stone, 2 opponent's, 3 marker (continuous game), ignored)
    SWAP2BOARD          the SWAP2 opening: lines x,y (0, 3 or 5 stones, Black first), DONE
                        -> x,y x,y x,y | SWAP | x,y | x,y x,y  (``play/swap2.py``)
    TAKEBACK x,y        remove the stone at x,y                  -> OK
    INFO key value      timeout_turn, timeout_match, time_left (ms), max_memory (bytes),
                        game_type, rule (bitmask 1 exactly five, 2 continuous, 4 renju, 8 caro),
                        evaluate, folder                         -> nothing, ever
    ABOUT                                                        -> name="zeroplay", ...
    END                                                          -> exit, status 0
                        (sent while a search runs: the search stops, its move is
                        answered first; one piped in behind its move command waits)

Anything else gets ``UNKNOWN ...``; a command that cannot be done gets ``ERROR ...`` and leaves
the game as it was. A multi-line command (BOARD, SWAP2BOARD, YXBOARD) always reads its block up
to DONE and then answers once, whatever the answer is (an ERROR included); a command word inside
the block ends it early (the block's one answer, an ERROR, then the command runs). Blank lines are
ignored, inside a block too. A block keeps at most one stone line per cell of the board (``BOARD``
and ``YXBOARD``; ``SWAP2BOARD`` 6 lines): more, and its answer at DONE is an ERROR.

A line over ``MAX_LINE`` characters is never read whole: its first ``MAX_LINE`` + 2 characters are
read, the rest is read and dropped up to its line end, and it is answered ``ERROR line too long
(65536 characters at most); line ignored`` (inside a block: the block's one answer at DONE is an
ERROR); the next line is served as usual.

A START or RECTSTART that fails (ERROR) ends the game that was going: until a START succeeds,
RESTART, BEGIN, TURN, BOARD and TAKEBACK answer ``ERROR no game: START n failed; send START
first`` (before any START: ``ERROR no game: send START first``).

Rules: START and RECTSTART only set the board, so they answer OK to any size zeroplay plays
whatever ``INFO rule`` said (RESTART and TAKEBACK likewise only edit the board). The rule applies
to the commands that ask for our move: BEGIN, TURN and BOARD answer ``ERROR rule ...`` while a rule
we do not play (continuous, caro) is set, until a supported rule (0, 1 or 4: renju, RIF rules,
Black's forbidden points never played) arrives; so do they while the ``--model`` given cannot
play the rule (a free-style net and ``INFO rule 1``). A
board size the model cannot play is refused at START. Without ``--model`` a rule no shipped model
plays gets the search-only engine (``engine.make_engine``). A ``--model`` that can play no board,
or whose weights are damaged, stops the engine at start-up (stderr, exit status 2).

Coordinates: x = column, y = row from the top, both from 0.

The engine that answers these is ``pbrain_engine.PbrainEngine`` (its multi-line commands in
``pbrain_blocks``, its ``INFO`` settings and limits in ``pbrain_limits``, its moves in
``pbrain_turn``); the process around it is ``pbrain``. This module holds the command words, the
line patterns and the quoting of untrusted input that they share.
"""

from __future__ import annotations

import re

COORD_LINE = re.compile(r"^\s*(\d{1,9})\s*,\s*(\d{1,9})\s*$", re.ASCII)
BOARD_LINE = re.compile(r"^\s*(\d{1,9})\s*,\s*(\d{1,9})\s*,\s*(\d{1,9})\s*$", re.ASCII)
UNPLAYED_BLOCKS: frozenset[str] = frozenset()
"""Multi-line commands (lines, then DONE) we do not play: the block is read, then UNKNOWN once."""
COMMANDS = frozenset({"START", "RECTSTART", "RESTART", "BEGIN", "TURN", "BOARD", "TAKEBACK", "ABOUT",
                      "END", "INFO", "YXBOARD", "YXNBEST", "YXSTOP", "YXSHOWFORBID", "YXHASHCLEAR", "YXSHOWINFO",
                      "SWAP2BOARD"}) | UNPLAYED_BLOCKS
"""Command words: inside a block one of these ends the block (the manager gave up on it)."""
MOVE_COMMANDS = frozenset({"BEGIN", "TURN", "BOARD", "YXNBEST", "YXSHOWFORBID"})
"""The commands that ask for our move (or, YXSHOWFORBID, for the rule's forbidden points): the
ones an unplayable rule answers with ERROR (YXNBEST analysed the last position under the last
rule that could be played)."""
INT_VALUE = re.compile(r"^\s*-?\d{1,30}\s*$", re.ASCII)
MAX_ECHO = 60  # characters of a bad line quoted back in a message
MAX_LINE = 64 * 1024
"""Longest input line, in characters without its line end. The protocol's longest lines are far
shorter: ``INFO folder`` and its path (at most 4,096 bytes on Linux, 32,767 characters on Windows),
``INFO`` values, ``x,y,field`` block lines; a longer line is refused without being held whole in
memory (``pbrain.run`` reads it in pieces), as ``zeroplay gtp`` and ``zeroplay analyze`` refuse
theirs."""
LINE_TOO_LONG = f"line too long ({MAX_LINE} characters at most)"
"""What an over-long line is called in the ERROR that answers it."""


def plural(n: int, noun: str) -> str:
    """``1 playout``, ``60 playouts``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def quote(text: str) -> str:
    """A short printable rendering of untrusted input for a one-line message: control and other
    unprintable characters (line ends included) become ``?``; printable non-ASCII characters are
    kept (the process's reply stream writes them as ``\\uXXXX`` escapes, ``pbrain.run_from_args``)."""
    shown = "".join(ch if ch.isprintable() else "?" for ch in text[:MAX_ECHO])
    return shown if len(text) <= MAX_ECHO else shown + "..."
