"""Shogi behind the Game API, on cshogi's boards (C++ move generation, legality, mate in 1).

Rules (the Japan Shogi Association's, as CSA tournaments apply them):

* A side with no legal move loses (checkmate; shogi has no stalemate draw). cshogi's move
  generator refuses the illegal drops: two unpromoted pawns on a file (nifu), a pawn drop that
  mates (uchifuzume), a piece with no later move (pawn/lance on the last rank, knight on the last
  two), and forces those promotions.
* Repetition (sennichite): the fourth occurrence of a position (board, hands, side to move) ends
  the game. A draw, unless one side gave check with every move of its own since the position
  first occurred (perpetual check): that side loses.
* Entering-king declaration (27-point rule, CSA): a side to move whose king is in the enemy camp
  with enough pieces and points (28 for Black, 27 for White; cshogi's ``LAW_27``) and not in
  check wins by declaring. A State where the mover may declare is terminal, won by the mover (the
  USI engine says ``bestmove win``).
* ``max_moves`` (default 512, dlshogi's and floodgate's later limit): a game that reaches this
  many moves (counted from the SFEN's move number) without another result is a draw.

Actions: dlshogi's move labels (``labels.py``), 0..2186, from the mover's view. A label means a
move only together with its position, so moves are parsed and printed by the state
(``state.parse_move("7g7f")``, ``state.move_text(label)``); ``state.play`` takes either.
``game.kernels`` is None (the Game API's way to say "no compiled fast path"): the rules live in
cshogi, so searches use the Python methods.
"""

from __future__ import annotations

import re

import cshogi
import numpy as np

from zeroplay.games.api import IllegalMoveError
from zeroplay.games.shogi.evaluation import HAND_INDEX_OF_TYPE
from zeroplay.games.shogi.keys import BOARD_KEYS, HAND_KEYS, SIDE_KEY, board_key, hand_aux, hands_key
from zeroplay.games.shogi.labels import NUM_LABELS, label_lookup, move_labels

START_SFEN = cshogi.STARTING_SFEN
DEFAULT_MAX_MOVES = 512
REPETITIONS_TO_END = 4

# termination reasons (``ShogiState.termination``)
CHECKMATE = "checkmate"
SENNICHITE = "sennichite"
PERPETUAL_CHECK = "perpetual check"
DECLARATION = "declaration"
MAX_MOVES = "max moves"

_PIECE_TEXT = ["", "P", "L", "N", "S", "B", "R", "G", "K", "+P", "+L", "+N", "+S", "+B", "+R"]
_HAND_LETTERS = "PLNSGBR"
_LABEL_LISTS = label_lookup()
_BOARD = BOARD_KEYS.tolist()
_HAND = HAND_KEYS.tolist()
_USI_MOVE = re.compile(r"^([1-9][a-i][1-9][a-i]\+?|[PLNSGBR]\*[1-9][a-i])$")


class Shogi:
    """Shogi with its options fixed; ``make("shogi", max_moves=512)``.

    Attributes:
        name: ``"shogi"``. options: as given to ``make``.
        height, width, cells: 9, 9, 81 (square ``file * 9 + rank`` in cshogi's numbering).
        num_actions: 2,187 (dlshogi's move labels).
        kernels: None -- no compiled fast path; searches drive ``ShogiState`` from Python.
        has_hands: True -- positions have pieces in hand (keys: ``state.board_key`` +
            ``state.hand_aux``).
        max_moves: moves after which the game is drawn.
    """

    name = "shogi"
    kernels = None
    has_hands = True
    height = width = 9
    cells = 81
    num_actions = NUM_LABELS

    def __init__(self, max_moves: int = DEFAULT_MAX_MOVES):
        if isinstance(max_moves, bool) or not isinstance(max_moves, (int, np.integer)) or not 1 <= max_moves <= 100_000:
            raise ValueError(f"max_moves must be an integer in 1..100000, got {max_moves!r}")
        self.max_moves = int(max_moves)
        self.options = {"max_moves": self.max_moves}

    def initial(self) -> ShogiState:
        """The start position, Black (player 0) to move."""
        return self.from_sfen(START_SFEN)

    def from_sfen(self, sfen: str) -> ShogiState:
        """A position from SFEN (``board side hands move_number``).

        Raises:
            ValueError: malformed SFEN, or a position cshogi's consistency check refuses.
        """
        return ShogiState(self, _board_from_sfen(sfen), ())

    def from_usi(self, position: str) -> ShogiState:
        """A position from the argument of USI ``position``: ``startpos|sfen SFEN [moves m1 m2 ...]``.

        Raises:
            ValueError: malformed position; IllegalMoveError (a ValueError) naming the first
                illegal move.
        """
        words = position.split()
        if not words:
            raise ValueError("empty position")
        if words[0] == "startpos":
            state, rest = self.initial(), words[1:]
        elif words[0] == "sfen":
            if len(words) < 5:
                raise ValueError("sfen needs 4 fields: board, side, hands, move number")
            state, rest = self.from_sfen(" ".join(words[1:5])), words[5:]
        else:
            raise ValueError(f"position must start with startpos or sfen, got {words[0][:20]!r}")
        if rest:
            if rest[0] != "moves":
                raise ValueError(f"expected 'moves', got {rest[0][:20]!r}")
            state = state.play_many(rest[1:])
        return state

    def __eq__(self, other) -> bool:
        return isinstance(other, Shogi) and self.options == other.options

    def __hash__(self) -> int:
        return hash((self.name, self.max_moves))

    def __repr__(self) -> str:
        return f"make('shogi', max_moves={self.max_moves})"


def _quoted(text: object, limit: int = 120) -> str:
    """``text`` quoted for an error message: whole up to ``limit`` characters (a full SFEN is under
    100), longer ones cut with their length said, so a quote never looks like the whole input."""
    text = str(text)
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text)} characters)"


def _board_from_sfen(sfen: str) -> cshogi.Board:
    if not isinstance(sfen, str) or len(sfen) > 200 or not sfen.isascii() or len(sfen.split()) != 4:
        raise ValueError(f"not an SFEN (board side hands move-number): {_quoted(sfen)}")
    fields = sfen.split()
    if fields[1] not in ("b", "w") or not fields[3].isdigit():
        raise ValueError(f"SFEN side must be b or w and move number a number: {_quoted(sfen)}")
    try:
        board = cshogi.Board(sfen)
    except RuntimeError as e:
        raise ValueError(f"bad SFEN {_quoted(sfen)}: {e}") from None
    # kings first: cshogi's consistency check prints to stdout on a board without its two kings
    kings = [p for p in board.pieces if p in (cshogi.BKING, cshogi.WKING)]
    if sorted(kings) != [cshogi.BKING, cshogi.WKING]:
        raise ValueError(f"bad SFEN {_quoted(sfen)}: each side needs exactly one king")
    # cshogi's parser skips what it cannot read; a board that does not print back is malformed
    rows = fields[0].split("/")
    if len(rows) != 9 or board.sfen().split()[:3] != _canonical(fields)[:3] or not board.is_ok():
        raise ValueError(f"bad SFEN {_quoted(sfen)}: not a consistent shogi position")
    problem = _impossible(board.pieces, fields[2])
    if problem:
        raise ValueError(f"bad SFEN {_quoted(sfen)}: {problem}")
    return board


_SET = {"pawn": 18, "lance": 4, "knight": 4, "silver": 4, "gold": 4, "bishop": 2, "rook": 2, "king": 2}
_KIND = [None, "pawn", "lance", "knight", "silver", "bishop", "rook", "gold", "king",
         "pawn", "lance", "knight", "silver", "bishop", "rook"]
"""cshogi piece type (``piece & 15``) -> the kind it counts as in the set (promoted as its base)."""
_HAND_KIND = {"P": "pawn", "L": "lance", "N": "knight", "S": "silver", "G": "gold", "B": "bishop", "R": "rook"}
_HAND_ITEM = re.compile(r"(\d*)([PLNSGBRplnsgbr])")
_SIDE = ("Black", "White")


def _impossible(pieces, hand_field: str) -> str | None:
    """What makes a position impossible in a game from the start position (more pieces of a kind
    than the set has, a piece that could never move, two unpromoted pawns of a side on a file),
    or None.

    The hand is read from the SFEN text, not from cshogi's board: cshogi keeps a hand count in a
    few bits, so ``99P`` came back as ``L3P`` and passed every check made on the board.
    """
    count = dict.fromkeys(_SET, 0)
    if hand_field != "-":
        if not re.fullmatch(r"(\d*[PLNSGBRplnsgbr])+", hand_field):
            return f"hands {_quoted(hand_field, 40)}: counts and piece letters (PLNSGBR, lower case White's)"
        seen = set()
        for number, letter in _HAND_ITEM.findall(hand_field):
            if letter in seen:  # cshogi keeps the last count: "2P10P" read as 10 pawns
                return f"hands {_quoted(hand_field, 40)} name {letter} twice"
            seen.add(letter)
            if number and int(number) == 0:  # a piece named in hand is there (helper-75: "0P")
                return f"hands {_quoted(hand_field, 40)}: {number}{letter} holds no piece"
            count[_HAND_KIND[letter.upper()]] += int(number or 1)
    pawn_files: set[tuple[int, int]] = set()
    for square, piece in enumerate(pieces):
        if not piece:
            continue
        color, kind = piece >> 4, piece & 15
        count[_KIND[kind]] += 1
        file, rank = square // 9, square % 9
        ahead = rank if color == 0 else 8 - rank  # ranks in front of it, up to its last
        name = f"{_SIDE[color]}'s {_KIND[kind]} on {file + 1}{'abcdefghi'[rank]}"
        if kind in (cshogi.PAWN, cshogi.LANCE) and ahead == 0:
            return f"{name} can never move (an unpromoted pawn or lance on its last rank)"
        if kind == cshogi.KNIGHT and ahead <= 1:
            return f"{name} can never move (an unpromoted knight on its last two ranks)"
        if kind == cshogi.PAWN:
            if (color, file) in pawn_files:
                return f"two of {_SIDE[color]}'s unpromoted pawns on file {file + 1} (nifu)"
            pawn_files.add((color, file))
    for kind, most in _SET.items():
        if count[kind] > most:
            return (f"{count[kind]} {kind}s on the board and in hand (promoted ones counted); "
                    f"the set has {most}")
    return None


def _canonical(fields):
    """SFEN fields with the hand written in cshogi's order, for the round-trip check."""
    hand = fields[2]
    if hand != "-":
        board = cshogi.Board(f"9/9/9/9/9/9/9/9/9 b {hand} 1")
        hand = board.sfen().split()[2]
    return [fields[0], fields[1], hand, fields[3]]


class ShogiState:
    """An immutable shogi position with the game's history needed for repetition.

    Attributes:
        game: the Shogi game. moves: labels of the moves played from the first position.
        usi_moves: the same moves in USI notation. start_sfen: SFEN of the first position.
    """

    __slots__ = ("game", "_board", "moves", "usi_moves", "start_sfen", "_keys", "_in_check",
                 "_legal", "_key", "_winner", "_termination")

    def __init__(self, game: Shogi, board: cshogi.Board, moves: tuple, *, usi_moves: tuple = (),
                 start_sfen: str | None = None, keys: tuple = (), in_check: tuple = (), key: int | None = None):
        self.game = game
        self._board = board
        self.moves = moves
        self.usi_moves = usi_moves
        self.start_sfen = start_sfen if start_sfen is not None else board.sfen()
        self._key = key if key is not None else board_key(board.pieces, board.turn) ^ hands_key(board.pieces_in_hand)
        self._keys = keys + (self._key,)
        self._in_check = in_check + (bool(board.is_check()),)
        self._legal = np.fromiter(board.legal_moves, dtype=np.int64)
        self._winner, self._termination = self._result()

    # --- result ---------------------------------------------------------------------------
    def _result(self):
        board = self._board
        mover = board.turn
        if self._keys.count(self._key) >= REPETITIONS_TO_END:
            first = self._keys.index(self._key)
            # move j leads from position j to j + 1 and gave check iff position j + 1 is in check
            for checker in (0, 1):
                n = len(self._keys) - 1
                movers_moves = [j for j in range(first, n) if (mover + n - j) % 2 == checker]
                if movers_moves and all(self._in_check[j + 1] for j in movers_moves):
                    return 1 - checker, PERPETUAL_CHECK
            return None, SENNICHITE
        if len(self._legal) == 0:
            return 1 - mover, CHECKMATE
        if board.is_nyugyoku(cshogi.LAW_27):
            return mover, DECLARATION
        if board.move_number - 1 >= self.game.max_moves:
            return None, MAX_MOVES
        return None, None

    @property
    def is_terminal(self) -> bool:
        """True when the game is over (see the module docstring for how)."""
        return self._termination is not None

    @property
    def winner(self) -> int | None:
        """0 or 1 for a won game, None otherwise (terminal with None is a draw)."""
        return self._winner

    @property
    def termination(self) -> str | None:
        """Why the game ended: checkmate, sennichite, perpetual check, declaration, max moves; None while on."""
        return self._termination

    # --- fields ---------------------------------------------------------------------------
    @property
    def to_play(self) -> int:
        """Side to move: 0 Black (sente), 1 White (gote)."""
        return int(self._board.turn)

    @property
    def ply(self) -> int:
        """Moves played before this position (SFEN move number - 1)."""
        return int(self._board.move_number) - 1

    @property
    def key(self) -> int:
        """64-bit key in [0, 2^64) of board, hands and side to move (``keys.full_key``)."""
        return self._key

    @property
    def board_key(self) -> int:
        """64-bit board-only key (squares and side to move, no hands), the alpha-beta table's key."""
        return board_key(self._board.pieces, self._board.turn)

    @property
    def hand_aux(self) -> int:
        """The mover's hand packed in 21 bits (``keys.hand_aux``), the alpha-beta table's aux."""
        return hand_aux(self._board.pieces_in_hand[self._board.turn])

    @property
    def hands(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(Black's, White's) counts in hand, cshogi's order P, L, N, S, G, B, R."""
        black, white = self._board.pieces_in_hand
        return tuple(black), tuple(white)

    @property
    def pieces(self) -> np.ndarray:
        """int64 (81,) cshogi piece codes by square ``file * 9 + rank`` (0 empty)."""
        return np.array(self._board.pieces, dtype=np.int64)

    @property
    def in_check(self) -> bool:
        """True when the side to move is in check."""
        return self._in_check[-1]

    @property
    def last_move(self) -> int | None:
        """Label of the last move, None at the first position."""
        return self.moves[-1] if self.moves else None

    def sfen(self) -> str:
        """SFEN of this position."""
        return self._board.sfen()

    def usi_position(self) -> str:
        """The argument of a USI ``position`` command that reaches this state from its start."""
        start = "startpos" if self.start_sfen == START_SFEN else "sfen " + self.start_sfen
        return start + (" moves " + " ".join(self.usi_moves) if self.usi_moves else "")

    def cshogi_board(self) -> cshogi.Board:
        """A new cshogi Board of this position with its move history (for engines; yours to change)."""
        board = cshogi.Board()
        board.set_position(self.usi_position())
        return board

    # --- moves ----------------------------------------------------------------------------
    def legal_moves(self) -> np.ndarray:
        """int64 labels of the legal moves, ascending; empty when the game is over."""
        if self.is_terminal:
            return np.zeros(0, np.int64)
        return np.sort(move_labels(self._legal, self.to_play))

    def legal_cshogi_moves(self) -> np.ndarray:
        """int64 cshogi move numbers of the legal moves (cshogi's order); empty when over."""
        return self._legal.copy() if not self.is_terminal else np.zeros(0, np.int64)

    def label_of(self, cshogi_move: int) -> int:
        """Label of a cshogi move number played here."""
        return int(move_labels(np.array([cshogi_move]), self.to_play)[0])

    def cshogi_move(self, label: int) -> int:
        """cshogi move number of a legal move's label.

        Raises:
            IllegalMoveError: no legal move here has that label.
        """
        if not self.is_terminal and 0 <= label < NUM_LABELS:
            table = _LABEL_LISTS[self.to_play]
            for move in self._legal.tolist():
                if table[move & 0x7FFF] == label:
                    return move
        raise IllegalMoveError(f"move {label!r}: no legal move with this label here")

    def parse_move(self, text: str) -> int:
        """Label of a legal move in USI notation (``7g7f``, ``8h2b+``, ``P*5e``).

        Raises:
            IllegalMoveError: malformed, or not legal here (the message says which).
        """
        if not isinstance(text, str) or not _USI_MOVE.match(text.strip()):
            raise IllegalMoveError(f"move {str(text)[:20]!r}: not a USI move (7g7f, 8h2b+, P*5e)")
        text = text.strip()
        if self.is_terminal:
            raise IllegalMoveError(f"move {text!r}: the game is over ({self.termination})")
        for move in self._legal:
            if cshogi.move_to_usi(int(move)) == text:
                return self.label_of(int(move))
        raise IllegalMoveError(f"move {text!r}: illegal in this position")

    def move_text(self, label: int) -> str:
        """USI text of a legal move's label."""
        return cshogi.move_to_usi(self.cshogi_move(label))

    def play(self, move: int | str) -> ShogiState:
        """The state after ``move``: a label (int) or USI text.

        Raises:
            IllegalMoveError: malformed, illegal, or the game is over; this state is unchanged.
        """
        if isinstance(move, str):
            label = self.parse_move(move)
        elif isinstance(move, bool) or not isinstance(move, (int, np.integer)):
            raise IllegalMoveError(f"move {move!r}: not a label or USI text")
        else:
            if self.is_terminal:
                raise IllegalMoveError(f"move {move!r}: the game is over ({self.termination})")
            label = int(move)
        cs_move = self.cshogi_move(label)
        key = self._next_key(cs_move)
        board = self._board.copy()
        board.push(cs_move)
        return ShogiState(self.game, board, self.moves + (label,), usi_moves=self.usi_moves + (cshogi.move_to_usi(cs_move),),
                          start_sfen=self.start_sfen, keys=self._keys, in_check=self._in_check, key=key)

    def _next_key(self, move: int) -> int:
        """The full key after cshogi ``move``, by XOR from this one (Zobrist's update)."""
        color = self._board.turn
        hand = self._board.pieces_in_hand[color]
        to, origin, offset = move & 0x7F, (move >> 7) & 0x7F, 16 * color
        key = self._key ^ SIDE_KEY
        if origin >= 81:  # drop: piece type origin - 80 leaves the hand
            piece_type = origin - 80
            index = HAND_INDEX_OF_TYPE[piece_type]
            count = hand[index]
            return key ^ _BOARD[to][piece_type + offset] ^ _HAND[color][index][count] ^ _HAND[color][index][count - 1]
        code = ((move >> 16) & 0xF) + offset
        key ^= _BOARD[origin][code] ^ _BOARD[to][code + 8 if (move >> 14) & 1 else code]
        captured = (move >> 20) & 0xF
        if captured:
            index = HAND_INDEX_OF_TYPE[captured]
            count = hand[index]
            key ^= _BOARD[to][captured + 16 - offset] ^ _HAND[color][index][count] ^ _HAND[color][index][count + 1]
        return key

    def play_many(self, moves) -> ShogiState:
        """Play several moves in order (see ``play``)."""
        s = self
        for m in moves:
            s = s.play(m)
        return s

    def winning_moves(self, player: int | None = None) -> np.ndarray:
        """int64 labels of the side to move's mates in one, ascending (empty when over).

        Raises:
            ValueError: ``player`` given and not the side to move (only the mover's are computed).
        """
        if player is not None and player != self.to_play:
            raise ValueError("shogi computes mates in one for the side to move only")
        if self.is_terminal:
            return np.zeros(0, np.int64)
        board = self._board.copy()
        mates = []
        for m in board.check_moves:
            board.push(m)
            if len(board.legal_moves) == 0:
                mates.append(m)
            board.pop()
        return np.sort(move_labels(np.array(mates, np.int64), self.to_play)) if mates else np.zeros(0, np.int64)

    # --- network input --------------------------------------------------------------------
    def planes(self, features: str = "dlshogi") -> np.ndarray:
        """Network input float32 (119, 9, 9) from the mover's view: dlshogi's 62 board planes and
        57 hand/check planes (``zeroplay.games.shogi.features``).

        Raises:
            ValueError: a feature set other than ``"dlshogi"``.
        """
        if features != "dlshogi":
            raise ValueError(f"shogi has the feature set 'dlshogi' only, not {features!r}")
        from zeroplay.games.shogi.features import dlshogi_planes

        return dlshogi_planes(self._board)

    # --- display --------------------------------------------------------------------------
    def __str__(self) -> str:
        pieces = self._board.pieces
        white_hand, black_hand = _hand_text(self.hands[1]), _hand_text(self.hands[0])
        lines = [f"White (gote) in hand: {white_hand}", "  9  8  7  6  5  4  3  2  1"]
        for rank in range(9):
            row = ""
            for file in range(8, -1, -1):
                code = pieces[file * 9 + rank]
                if code == 0:
                    row += "  ."
                else:
                    text = _PIECE_TEXT[code & 15]
                    row += f"{text if code < 16 else text.lower():>3}"
            lines.append(row + "  " + "abcdefghi"[rank])
        lines.append(f"Black (sente) in hand: {black_hand}")
        if self.is_terminal:
            result = "draw" if self.winner is None else ("Black" if self.winner == 0 else "White") + " wins"
            status = f"game over: {self.termination}, {result}"
        else:
            status = ("Black" if self.to_play == 0 else "White") + " to move" + (", in check" if self.in_check else "")
        lines.append(f"move {self.ply + 1}: {status}")
        return "\n".join(lines)

    def __eq__(self, other) -> bool:
        return (isinstance(other, ShogiState) and self.game == other.game
                and self._board.sfen().split()[:3] == other._board.sfen().split()[:3])

    def __hash__(self) -> int:
        return self._key

    def __repr__(self) -> str:
        return f"<ShogiState {self.sfen()!r}>"


def _hand_text(hand) -> str:
    parts = [f"{_HAND_LETTERS[i]}{'x' + str(n) if n > 1 else ''}" for i, n in enumerate(hand) if n]
    return " ".join(parts) if parts else "-"
