"""The web board's parts for scored games with a pass (Go): what the page draws besides the stones,
and Go SGF records (``GM[1]``) in and out. No game names here: the game says what it has
(``Game.pass_action``, ``star_points``, ``column_labels``, ``score_details``, ``sgf_game``).
"""

from __future__ import annotations

import re

from zeroplay.engine.resign import resignation_result
from zeroplay.games import Game, State  # noqa: F401
from zeroplay.play.weboptions import GameInputError

_GM = re.compile(r"GM\s*\[\s*(\d+)\s*\]")


def board_extras(game: Game, state: State) -> dict:
    """The game JSON's fields for the page: ``pass_move`` (the pass action, None without one),
    ``columns`` (column letters, None: a, b, c, ...), ``star_points`` (cells, None: the page's
    own), ``score`` (``Game.score_details`` of the shown position, None for games won by a
    line), ``resigns`` (``Game.resigns``: the page offers a resign button)."""
    return {"pass_move": game.pass_action, "columns": game.column_labels(),
            "star_points": game.star_points(), "score": game.score_details(state), "resigns": game.resigns}


def sgf_game_number(text: str) -> int | None:
    """The ``GM`` of an SGF text's root (1 Go, 4 Gomoku), None when it names none or the text
    is not SGF."""
    start = text.find("(")
    if start < 0 and "[" not in text:
        return None  # (PSQ)
    # from the first '(': the SGF readers skip any text before it (a mail's "Game record:" line)
    start = max(start, 0)
    m = _GM.search(text[start:start + 2000])
    return int(m.group(1)) if m else None


def read_go_record(text: str):
    """The ``GoRecord`` of a Go SGF text the web board can play (moves from the empty board).

    Raises:
        GameInputError: unreadable SGF, a board outside the game's ``board_sizes`` (Go: 5..19) or
            not square, a bad komi.
    """
    from zeroplay.games.go.game import Go
    from zeroplay.games.go.sgf import read_go_sgf

    lo, hi = Go.board_sizes
    try:
        rec = read_go_sgf(text, sizes=Go.board_sizes)
    except ValueError as e:
        raise GameInputError(f"cannot read the SGF record: {e}") from None
    if rec.width != rec.height:
        raise GameInputError(f"record board {rec.width}x{rec.height}: the web board plays Go on square boards of "
                             f"{lo}..{hi}")
    # range first: KM[1e308], KM[inf] and KM[nan] must not reach int()
    if not -150 <= rec.komi <= 150 or rec.komi * 2 != int(rec.komi * 2):
        raise GameInputError(f"record komi {rec.komi:g}: komi must be a multiple of 0.5 in -150..150")
    return rec


def write_go_record(start: State, set_up: bool, moves: list[int], *, black: str, white: str,
                    resigned: int | None = None) -> str:
    """Go SGF (``GM[1]``, ``SZ``, ``KM``, ``RU``, ``AB``/``AW``/``PL`` for a ``set_up`` start, ``RE``
    when the line is finished, ``W+R`` / ``B+R`` when the player ``resigned`` at its end) of
    ``moves`` from ``start``."""
    from zeroplay.games.go.game import Go
    from zeroplay.games.go.sgf import record_of_state, write_go_sgf

    go = start.game
    if not isinstance(go, Go):  # the board sends only Go games here (its sgf_game capability)
        raise TypeError(f"write_go_record: a Go state, got {go.name}")
    end = start.play_many(moves)
    result = go.result_text(end) if end.is_terminal else ""
    if resigned is not None:
        result = resignation_result(resigned)
    rec = record_of_state(start, black=black, white=white, result=result)
    rec.moves = [int(m) for m in moves]
    if set_up:
        rec.black_setup = [int(c) for c in start.stones(0)]
        rec.white_setup = [int(c) for c in start.stones(1)]
        rec.to_play = start.to_play
    return write_go_sgf(rec)
