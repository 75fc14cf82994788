"""Hand-set material + piece-square evaluation of shogi positions (centipawns, Black's view).

Game knowledge for the alpha-beta engine (``zeroplay.engine.shogi_alphabeta``), set by hand, not
learned: piece values in the range of the usual shogi programs' (a pawn 100; Bonanza's learned
values are close: pawn ~ 90, gold ~ 540, rook ~ 990), pieces in hand worth a little more than
on the board (they can go anywhere), and small square terms:

* pawns, lances, knights and silvers gain 4-8 per rank advanced (towards the enemy camp);
* every non-king piece gains 15 in the enemy camp (its last three ranks), where it promotes;
* the king loses 30 per rank it stands in front of its own second rank; golds, silvers and
  promoted minor pieces within two squares of their own king's start square (5i for Black,
  5a for White) earn 12 as defenders -- a fixed zone, so that it stays a piece-square table.

Tables are indexed by cshogi piece codes (1..14 Black, 17..30 White) and squares
``file * 9 + rank`` (rank 0 = a, Black's far side). ``PIECE_SQUARE[code][square]`` holds the
signed value from Black's view (White's pieces negative), so a position's score is the sum over
its squares plus ``HAND_VALUE`` for each piece in hand (signed the same way), and a move changes
it by a few table reads (``move_delta``). The score from the side to move's view is
``black_view * (1 - 2 * turn)``.
"""

from __future__ import annotations

import numpy as np

PIECE_VALUE = {1: 100, 2: 300, 3: 350, 4: 500, 5: 800, 6: 950, 7: 550, 8: 0,
               9: 550, 10: 550, 11: 550, 12: 550, 13: 1050, 14: 1250}
"""cshogi piece type -> centipawns on the board (P L N S B R G K, then +P +L +N +S +B +R)."""
HAND_VALUE_BY_TYPE = {1: 110, 2: 330, 3: 380, 4: 550, 5: 880, 6: 1050, 7: 600}
"""Unpromoted piece type -> centipawns in hand."""
HAND_ORDER_TYPES = (1, 2, 3, 4, 7, 5, 6)
"""Piece type of each hand index (cshogi's hand order P, L, N, S, G, B, R)."""
ADVANCE_BONUS = {1: 4, 2: 4, 3: 6, 4: 8}
CAMP_BONUS = 15
KING_FORWARD_PENALTY = 30
DEFENDER_BONUS = 12
MATE_SCORE_LIMIT = 20_000
"""Evaluations stay far below the alpha-beta table's win scores (30,000 - ply)."""


def _relative_rank(square: int, color: int) -> int:
    """0 = the enemy's back rank, 8 = own back rank, from ``color``'s view."""
    rank = square % 9
    return rank if color == 0 else 8 - rank


def _square_term(piece_type: int, square: int, color: int) -> int:
    rel_rank = _relative_rank(square, color)
    advanced = 8 - rel_rank
    score = ADVANCE_BONUS.get(piece_type, 0) * max(0, advanced - 2)
    if piece_type != 8 and rel_rank <= 2:
        score += CAMP_BONUS
    if piece_type == 8:
        score -= KING_FORWARD_PENALTY * max(0, 7 - rel_rank)
    if piece_type in (4, 7, 9, 10, 11, 12):
        king_file, king_rank = 4, (8 if color == 0 else 0)
        if abs(square // 9 - king_file) <= 2 and abs(square % 9 - king_rank) <= 2:
            score += DEFENDER_BONUS
    return score


def _tables():
    table = np.zeros((32, 81), dtype=np.int64)
    for piece_type, value in PIECE_VALUE.items():
        for color in (0, 1):
            sign = 1 if color == 0 else -1
            code = piece_type + 16 * color
            for square in range(81):
                table[code, square] = sign * (value + _square_term(piece_type, square, color))
    hand = np.zeros(7, dtype=np.int64)
    for index, piece_type in enumerate(HAND_ORDER_TYPES):
        hand[index] = HAND_VALUE_BY_TYPE[piece_type]
    return table, hand


_TABLE, _HAND = _tables()
PIECE_SQUARE = _TABLE.tolist()
"""list[32][81] of int: signed Black-view value of piece code on square (0 for empty/unused codes)."""
HAND_VALUE = _HAND.tolist()
"""list[7] of int: value of one piece in hand by hand index (P L N S G B R), for its owner."""
HAND_INDEX_OF_TYPE = [-1, 0, 1, 2, 3, 5, 6, 4, -1, 0, 1, 2, 3, 5, 6]
"""cshogi piece type (promoted or not) -> hand index the piece goes to when captured; -1 king/none."""


def evaluate_black(pieces, hands) -> int:
    """Score from Black's view, centipawns: board (``PIECE_SQUARE``) + hands (``HAND_VALUE``).

    Args:
        pieces: 81 cshogi piece codes. hands: (Black's, White's) 7 counts each.
    """
    codes = np.asarray(pieces, dtype=np.int64)
    score = int(_TABLE[codes, np.arange(81)].sum())
    score += int(np.dot(_HAND, np.asarray(hands[0]))) - int(np.dot(_HAND, np.asarray(hands[1])))
    return score


def evaluate(state) -> int:
    """Score of a ``ShogiState`` from the side to move's view, centipawns."""
    score = evaluate_black(state.pieces, state.hands)
    return score if state.to_play == 0 else -score


def move_delta(move: int, color: int) -> int:
    """Change of the Black-view score when ``color`` plays cshogi ``move`` (before it is played).

    Reads the move number's fields (destination bits 0..6, origin 7..13, promotion 14, moving
    piece type 16..19, captured piece type 20..23), so no board access is needed.
    """
    to = move & 0x7F
    origin = (move >> 7) & 0x7F
    offset = 16 * color
    if origin >= 81:  # drop of piece type origin - 80
        piece_type = origin - 80
        hand_value = HAND_VALUE[HAND_INDEX_OF_TYPE[piece_type]]
        return PIECE_SQUARE[piece_type + offset][to] - (hand_value if color == 0 else -hand_value)
    piece_type = (move >> 16) & 0xF
    new_type = piece_type + 8 if (move >> 14) & 1 else piece_type
    delta = PIECE_SQUARE[new_type + offset][to] - PIECE_SQUARE[piece_type + offset][origin]
    captured = (move >> 20) & 0xF
    if captured:
        delta -= PIECE_SQUARE[captured + 16 - offset][to]
        hand_value = HAND_VALUE[HAND_INDEX_OF_TYPE[captured]]
        delta += hand_value if color == 0 else -hand_value
    return delta
