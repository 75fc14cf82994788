"""The web board's parts for scored games with a pass (Go): what the page draws besides the stones,
and Go SGF records (``GM[1]``) in and out. No game names here: the game says what it has
(``Game.pass_action``, ``star_points``, ``column_labels``, ``score_details``, ``sgf_game``).
"""

from __future__ import annotations

import re

from zeroplay.games import Game, State
from zeroplay.play.weboptions import GameInputError

_GM = re.compile(r"GM\s*\[\s*(\d+)\s*\]")


def board_extras(game: Game, state: State) -> dict:
    """The game JSON's fields for the page: ``pass_move`` (the pass action, None without one),
    ``columns`` (column letters, None: a, b, c, ...), ``star_points`` (cells, None: the page's
    own), ``score`` (``Game.score_details`` of the shown position, None for games won by a
    line)."""
    return {"pass_move": game.pass_action, "columns": game.column_labels(),
            "star_points": game.star_points(), "score": game.score_details(state)}


def sgf_game_number(text: str) -> int | None:
    """The ``GM`` of an SGF text's root (1 Go, 4 Gomoku), None when it names none or the text
    is not SGF."""
    if not text.lstrip().startswith("("):
        return None
    m = _GM.search(text[:2000])
    return int(m.group(1)) if m else None


def read_go_record(text: str):
    """The ``GoRecord`` of a Go SGF text the web board can play (moves from the empty board).

    Raises:
        GameInputError: unreadable SGF, a board outside 5..19 or not square, set-up stones (the
            board replays moves from the empty board only).
    """
    from zeroplay.games.go.sgf import read_go_sgf

    try:
        rec = read_go_sgf(text)
    except ValueError as e:
        raise GameInputError(f"cannot read the SGF record: {e}") from None
    if rec.width != rec.height or not 5 <= rec.width <= 19:
        raise GameInputError(f"record board {rec.width}x{rec.height}: the web board plays Go on square boards of 5..19")
    if rec.black_setup or rec.white_setup or rec.to_play:
        raise GameInputError("the record sets up stones (AB/AW/PL): the web board replays games from the empty board")
    if rec.komi * 2 != int(rec.komi * 2) or not -150 <= rec.komi <= 150:
        raise GameInputError(f"record komi {rec.komi:g}: komi must be a multiple of 0.5 in -150..150")
    return rec


def write_go_record(game: Game, moves: list[int], *, black: str, white: str) -> str:
    """Go SGF (``GM[1]``, ``SZ``, ``KM``, ``RU``, ``RE`` when the line is finished) of ``moves``."""
    from zeroplay.games.go.sgf import record_of_state, write_go_sgf

    state = game.initial().play_many(moves)
    return write_go_sgf(record_of_state(state, black=black, white=white))
