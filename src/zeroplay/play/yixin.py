"""The lines of the Yixin/Gomocup protocol extensions that analysis GUIs (Yixin-Board, Piskvork's
renju builds) read from the engine, beside the plain Gomocup replies (``play/pbrain.py``).

What ``pbrain-zeroplay`` answers (coordinates are Gomocup ``x,y``: column, row from the top):

    YXBOARD / x,y,field lines / DONE   set the position (fields as BOARD: 1 own, 2 opponent);
                                       no move is played and nothing is answered
    YXNBEST n                          search the position for the side to move (the turn's time
                                       budget); one ``MESSAGE nbest`` line per move for the n most
                                       visited (1 <= n <= 10; the move answered first, unvisited ones
                                       by prior after them), then that move as ``x,y``; the stone
                                       is not placed (an analysis)
    YXSTOP                             stop the search now running; it answers as if its time had
                                       run out (the reader thread sees it while the search runs;
                                       a search whose command was sent before the YXSTOP but starts
                                       after it, queued behind the running one, stops at once too)
    YXSHOWFORBID                       ``FORBID xxyy...xxyy.``: Black's forbidden points under
                                       renju (``INFO rule 4``), whoever is to move; ``FORBID .``
                                       when none, and always under free-style and exactly five
    YXHASHCLEAR                        the next search starts from an empty tree; no answer
    YXSHOWINFO                         no answer (Yixin-Board's thread, hash and depth options
                                       are not zeroplay's)
    SWAP2BOARD / x,y lines / DONE      the SWAP2 opening (``play/swap2.py``); YXSTOP ends its
                                       searches, which then answer from what they have
    ABOUT                              name, version and the model that plays

During every search, once a second and at its end, a ``MESSAGE`` line in the spirit of Rapfi's
real-time output: ``MESSAGE depth D | ev E | winrate W% | n N | n/s R | tm T | pv x,y x,y ...``
with D the principal variation's length in plies, E the mean value Q of the root mover scaled to
-1000..1000 (Q in [-1, 1], the side to move's view), N the playouts so far, T milliseconds
(the VCT guard's checks included). When the VCT guard (search/root_guard.py) traded the search's
choice for another move, a ``MESSAGE VCT guard: x,y loses to a forced win by threats; x,y
instead`` line follows, and ``YXNBEST`` marks the moves it showed to lose ``| loses to a VCT``.
"""

from __future__ import annotations

MAX_NBEST = 10
"""Most moves ``YXNBEST`` reports (the web board's top list has as many)."""
PV_PLIES = 12
"""Plies of a principal variation printed in a MESSAGE line."""


def gomocup(cell: int, width: int) -> str:
    """``x,y`` of ``cell`` (``row * width + col``)."""
    return f"{cell % width},{cell // width}"


def progress_line(result, width: int) -> str:
    """The real-time ``MESSAGE`` line of a search result (``SearchResult``): ev in [-1000, 1000]
    and winrate from the mover's view, both from ``SearchResult.win_rate`` (a proven result reads
    as certain; after the VCT guard's trade, the played move's value)."""
    pv = " ".join(gomocup(int(m), width) for m in result.pv[:PV_PLIES])
    score = float(result.win_rate)
    ev = round(1000 * (2 * score - 1))
    rate = result.playouts / result.seconds if result.seconds > 0 else 0.0
    line = (f"MESSAGE depth {len(result.pv)} | ev {ev} | winrate {100 * score:.1f}% | "
            f"n {result.playouts} | n/s {rate:.0f} | tm {1000 * result.seconds:.0f}")
    if result.proven:
        line += f" | {result.proven} in {result.proven_distance}"
    return line + (f" | pv {pv}" if pv else "")


def nbest_lines(result, width: int, n: int, lost: set[int] | frozenset[int] = frozenset()) -> list[str]:
    """``n`` ``MESSAGE nbest`` lines, the move the engine answers (``best_move``) first:
    ``MESSAGE nbest K x,y | visits V | winrate W% | prior P%`` (the mover's win rate, (Q + 1) / 2;
    V counts the tree's visits, a reused tree's earlier playouts included, as KataGo's analysis
    does). Then the other visited moves by visits, then the unvisited ones by prior (no win rate:
    ``MESSAGE nbest K x,y | visits 0 | prior P%``; a search stopped at once, or proven by the
    threat search). A move the VCT guard showed to lose (``result.vct_lost``, or ``lost``: those
    its memory holds, ``Searcher.vct_known_lost``) is marked ``| loses to a VCT``. Fewer lines
    when the root has fewer candidate moves (a forced defence keeps only the blocks)."""
    lost = set(lost) | set(result.vct_lost)
    best = None if result.best_move is None else int(result.best_move)

    def rank(m) -> tuple:
        return (int(m.move) != best, m.visits == 0, -m.visits, -m.prior)

    lines = []
    for k, move in enumerate(sorted(result.moves, key=rank)[:n], start=1):
        value = f" | winrate {100 * (move.q + 1) / 2:.1f}%" if move.visits else ""
        lines.append(f"MESSAGE nbest {k} {gomocup(int(move.move), width)} | visits {move.visits}{value} | "
                     f"prior {100 * move.prior:.1f}%" + (" | loses to a VCT" if int(move.move) in lost else ""))
    return lines


def guard_line(result, width: int) -> str | None:
    """``MESSAGE VCT guard: ...``: what the VCT guard did in ``result`` (its note in
    ``SearchResult.notes``, with the moves in ``x,y``), else None: the moves it showed to lose
    (``vct_lost``) and the move played instead, or that every move checked loses and the
    search's choice stays; with the note's "(checked in part ...)" / "(not checked ...)" when
    the time cut the played move's check."""
    note = next((n for n in result.notes if n.startswith("VCT guard:")), None)
    if note is None or result.best_move is None:
        return None
    best = gomocup(int(result.best_move), width)
    cut = next((why for why in ("checked in part", "not checked") if f"{why}: the time was up" in note), None)
    if not result.vct_lost:
        return f"MESSAGE VCT guard: {best} {cut or 'checked'}: the time was up"
    lost = [gomocup(int(m), width) for m in result.vct_lost]
    verb = "loses" if len(lost) == 1 else "lose"
    tail = (f"every move checked loses, {best} stays" if int(result.best_move) in result.vct_lost
            else f"{best} instead" + (f" ({cut}: the time was up)" if cut else ""))
    return f"MESSAGE VCT guard: {' '.join(lost)} {verb} to a forced win by threats (VCT); {tail}"


def forbid_line(cells: list[int], width: int) -> str:
    """``FORBID xxyy...xxyy.`` (two digits each for x and y) or ``FORBID .`` when none."""
    return "FORBID " + "".join(f"{c % width:02d}{c // width:02d}" for c in cells) + "."
