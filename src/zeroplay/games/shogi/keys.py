"""Shogi position keys: a board-only 64-bit Zobrist key, the mover's hand packed in 21 bits.

Zobrist (1970) numbers from zeroplay's SplitMix64 generator (``zeroplay.hashing``) at their own
seed, ``SHOGI_ZOBRIST_SEED``, so they never coincide with the stone keys of the other games:

* ``BOARD_KEYS`` uint64 (81, 32): [square, piece code]; square = cshogi's ``file * 9 + rank``
  (1a = 0, 1b = 1, ..., 9i = 80), piece code = cshogi's (1..14 Black, 17..30 White; row 0 of
  column 0 is zero so an empty square adds nothing).
* ``SIDE_KEY``: XORed in when White (player 1) is to move.
* ``HAND_KEYS`` uint64 (2, 7, 19): [colour, hand piece, count] for the full key (``full_key``),
  which the MCTS node table uses, since its identity has no ``aux`` field.

The alpha-beta table keys an entry by ``board_key`` (squares + side to move) and keeps the
**mover's hand packed exactly** in the entry's 21-bit ``aux`` field (``hand_aux``): counts per
hand piece type, in cshogi's hand order P, L, N, S, G, B, R with 5, 3, 3, 3, 3, 2, 2 bits (18
pawns, 4 of the small pieces, 2 of the big ones: 21 bits). The opponent's hand is not stored: with
the board fixed, each type's pieces not on the board are in one of the two hands, so the mover's
hand determines the other one. Board key + aux is therefore the exact identity of a position (up
to 64-bit key collisions), and two positions with the same board and different hands never share
an entry (Bonanza compared board *and* hand with ``&&`` where ``||`` was needed to tell them apart).
Packed counts (not a hash) let the table compare hands for the dominance rule
(``zeroplay.tt.ab_table.ab_probe_dominance``).
"""

from __future__ import annotations

import numpy as np

from zeroplay.hashing import splitmix64_stream

SHOGI_ZOBRIST_SEED = 0x73686F6769 ^ 0x7A65726F706C6179
"""Seed of the shogi key stream ("shogi" XOR "zeroplay" in ASCII)."""

SQUARES = 81
PIECE_CODES = 32
HAND_TYPES = 7
MAX_IN_HAND = (18, 4, 4, 4, 4, 2, 2)
"""Most pieces of each hand type (cshogi's order P, L, N, S, G, B, R) one side can hold."""
HAND_FIELD_BITS = np.array([5, 3, 3, 3, 3, 2, 2], dtype=np.int64)
"""Bits per hand type in ``hand_aux``, lowest field first; they sum to 21 (the table's aux)."""
HAND_FIELD_SHIFTS = np.concatenate([[0], np.cumsum(HAND_FIELD_BITS)[:-1]]).astype(np.int64)

_stream = splitmix64_stream(SHOGI_ZOBRIST_SEED, SQUARES * PIECE_CODES + 1 + 2 * HAND_TYPES * 19)
BOARD_KEYS = _stream[: SQUARES * PIECE_CODES].reshape(SQUARES, PIECE_CODES).copy()
BOARD_KEYS[:, 0] = 0
BOARD_KEYS.setflags(write=False)
SIDE_KEY = int(_stream[SQUARES * PIECE_CODES])
HAND_KEYS = _stream[SQUARES * PIECE_CODES + 1 :].reshape(2, HAND_TYPES, 19).copy()
HAND_KEYS[:, :, 0] = 0
HAND_KEYS.setflags(write=False)
# int64 views for arithmetic in numba / numpy without uint64 promotion surprises
BOARD_KEYS_I64 = BOARD_KEYS.view(np.int64)
HAND_KEYS_I64 = HAND_KEYS.view(np.int64)
_SQUARE_INDEX = np.arange(SQUARES)


def board_key(pieces, turn: int) -> int:
    """Board-only key in [0, 2^64): the 81 squares' pieces and the side to move, no hands.

    Args:
        pieces: 81 cshogi piece codes (``cshogi.Board.pieces``), square ``file * 9 + rank``.
        turn: 0 Black to move, 1 White.
    """
    codes = np.asarray(pieces, dtype=np.int64)
    key = int(np.bitwise_xor.reduce(BOARD_KEYS[_SQUARE_INDEX, codes]))
    return key ^ SIDE_KEY if turn else key


def hand_aux(hand) -> int:
    """The 21-bit packing of one side's hand (7 counts in cshogi's order P, L, N, S, G, B, R).

    Raises:
        ValueError: a count outside 0..MAX_IN_HAND of its type.
    """
    aux = 0
    for i, count in enumerate(hand):
        if not 0 <= count <= MAX_IN_HAND[i]:
            raise ValueError(f"hand count {count} of type {i} outside 0..{MAX_IN_HAND[i]}")
        aux |= int(count) << int(HAND_FIELD_SHIFTS[i])
    return aux


def aux_hand(aux: int) -> tuple[int, ...]:
    """The 7 counts packed by ``hand_aux`` (inverse)."""
    return tuple((aux >> int(s)) & ((1 << int(b)) - 1) for s, b in zip(HAND_FIELD_SHIFTS, HAND_FIELD_BITS))


def hands_key(hands) -> int:
    """Zobrist key of both hands: XOR of ``HAND_KEYS[colour, type, count]`` (0 for empty hands)."""
    key = 0
    for colour in (0, 1):
        for i, count in enumerate(hands[colour]):
            key ^= int(HAND_KEYS[colour, i, count])
    return key


def full_key(pieces, turn: int, hands) -> int:
    """Board key XOR hands key: the position's identity as one 64-bit number (MCTS node table)."""
    return board_key(pieces, turn) ^ hands_key(hands)


def to_int64(key: int) -> int:
    """A key in [0, 2^64) as the int64 with the same bits (what the compiled tables take)."""
    return key - (1 << 64) if key >= 1 << 63 else key
