"""The SWAP2 opening of the Gomocup protocol (``SWAP2BOARD``): what the engine answers, decided
by the search value of the candidate positions.

SWAP2 (Gomocup, RenjuNet): the first player places three stones (Black, White, Black); the second
player then takes Black (``SWAP``), or plays a fourth stone as White and keeps White, or places
two more stones (White, Black) and leaves the choice of colour to the first player, who then
takes Black (``SWAP``) or plays the sixth stone as White. At three and at five stones White is to
move, so one search of that position says which side is better.

The manager sends the stones so far (Gomocup ``x,y`` lines, in the order played, Black first)
between ``SWAP2BOARD`` and ``DONE``; the answers:

    0 stones   three stones ``x,y x,y x,y`` (Black, White, Black): the candidate opening whose
               value is nearest to even (the other player picks the colour afterwards)
    3 stones   ``SWAP`` when White's value Q < -BALANCE; the search's move ``x,y`` (we play
               White) when Q > BALANCE; otherwise two stones ``x,y x,y`` (White's best move, then
               Black's best reply): a near-even position handed back for the opener to choose
    5 stones   the search's move ``x,y`` (we play White) when White's Q >= 0, else ``SWAP``

Values are the search's mean value Q of the root, from the side to move's view (White here), in
[-1, 1].
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from zeroplay.games import Game, IllegalMoveError, State

BALANCE = 0.15
"""|Q| (White's mean value at three stones) under which the position counts as even: the engine
then places two more stones rather than committing to a colour. A choice of ours: about 57 %
against 43 % in win rate, (Q + 1) / 2."""

OPENING_SHAPES: tuple[tuple[tuple[int, int], tuple[int, int], tuple[int, int]], ...] = (
    ((0, 0), (1, -1), (2, 1)),  # Black at the centre, White diagonal, Black a knight's move away
    ((0, 0), (0, -1), (2, 0)),  # White straight above, Black two to the right
    ((0, 0), (1, 1), (-1, 2)),
    ((0, 0), (2, -2), (1, 2)),
    ((0, 0), (-1, 0), (2, 2)),
    ((0, 0), (3, 0), (0, 3)),
)
"""Candidate three-stone openings as (dx, dy) offsets from the board's centre for Black, White,
Black. Shapes with the stones apart and not in one line: none gives either side a four or an
open three at once, so that the search has a real choice between them."""


@dataclass(frozen=True)
class Swap2Answer:
    """One SWAP2 decision.

    Attributes:
        text: the protocol reply (``"x,y x,y x,y"``, ``"SWAP"``, ``"x,y"`` or ``"x,y x,y"``).
        stones: the cells we place, in order (empty for ``SWAP``).
        we_play_black: our colour from here on, as far as it is decided (after three stones of
            ours or two stones handed back, the other player may still choose: False then for
            the two stones, True for the three).
        values: White's Q of each position the decision looked at, in order (for the log).
    """

    text: str
    stones: tuple[int, ...]
    we_play_black: bool
    values: tuple[float, ...]


Evaluate = Callable[[State, int], tuple[float, int]]
"""``evaluate(state, searches_left) -> (q, best_move)``: the mean value Q of ``state`` for its
side to move, in [-1, 1], and the best move (a cell); ``searches_left`` counts this one, so the
caller can share a time budget."""


def gomocup_text(game: Game, cells) -> str:
    """``"x,y x,y ..."`` of ``cells``."""
    return " ".join(game.format_move(int(c), "gomocup") for c in cells)


def opening_candidates(game: Game) -> list[State]:
    """The positions of ``OPENING_SHAPES`` on ``game``'s board (White to move), those that fit."""
    cx, cy = game.width // 2, game.height // 2
    states = []
    for shape in OPENING_SHAPES:
        cells = [(cy + dy) * game.width + cx + dx for dx, dy in shape
                 if 0 <= cx + dx < game.width and 0 <= cy + dy < game.height]
        if len(cells) == 3:
            try:
                states.append(game.initial().play_many(cells))
            except IllegalMoveError:
                continue  # a rule that forbids the shape (none does on 15x15)
    return states


def position(game: Game, stones: list[int]) -> State:
    """The position of the SWAP2 stones (Black first, alternating).

    Raises:
        ValueError: not 0, 3 or 5 stones; a stone twice, off the board or illegal; a finished game.
    """
    if len(stones) not in (0, 3, 5):
        raise ValueError(f"SWAP2BOARD expects 0, 3 or 5 stones, got {len(stones)}")
    state = game.initial().play_many(stones)  # IllegalMoveError is a ValueError
    if state.is_terminal:
        raise ValueError("SWAP2BOARD: the stones already end the game")
    return state


def decide(game: Game, stones: list[int], evaluate: Evaluate) -> Swap2Answer:
    """The SWAP2 answer for ``stones`` (cells, in the order played) on ``game``.

    Raises:
        ValueError: as ``position``.
    """
    state = position(game, stones)
    if not stones:
        candidates = opening_candidates(game)
        values = []
        for i, s in enumerate(candidates):
            values.append(evaluate(s, len(candidates) - i)[0])
        best = min(range(len(candidates)), key=lambda i: (abs(values[i]), i))
        placed = candidates[best].moves
        return Swap2Answer(gomocup_text(game, placed), tuple(placed), True, tuple(values))
    if len(stones) == 3:
        q, white = evaluate(state, 2)
        if q < -BALANCE:
            return Swap2Answer("SWAP", (), True, (q,))
        if q > BALANCE:
            return Swap2Answer(gomocup_text(game, [white]), (white,), False, (q,))
        after = state.play(white)
        q_black, black = evaluate(after, 1)
        placed = (white, black)
        return Swap2Answer(gomocup_text(game, placed), placed, False, (q, -q_black))
    q, white = evaluate(state, 1)
    if q >= 0:
        return Swap2Answer(gomocup_text(game, [white]), (white,), False, (q,))
    return Swap2Answer("SWAP", (), True, (q,))
