"""Shogi game records in KIF and CSA, written and read with cshogi's exporters and parsers.

Writes are atomic: the record goes to a temporary file beside the target, then ``os.replace``.
KIF files named ``*.kif`` are cp932 (the format's usual encoding; ``*.kifu`` are UTF-8), CSA is
ASCII, as cshogi writes them.
"""

from __future__ import annotations

import codecs
import os
import tempfile
from pathlib import Path

import cshogi
from cshogi import CSA, KIF

from zeroplay.games.shogi.game import Shogi, ShogiState


def _end_reason(state: ShogiState) -> tuple[str, str]:
    """(KIF reason, CSA end line) of a state: resign for a lost position, else what ended it."""
    reasons = {"checkmate": ("resign", "%TORYO"), "sennichite": ("sennichite", "%SENNICHITE"),
               "perpetual check": ("illegal_lose", "%ILLEGAL_MOVE"), "declaration": ("win", "%KACHI"),
               "max moves": ("draw", "%JISHOGI")}
    return reasons.get(state.termination, ("", "%CHUDAN"))


def _atomic(path, suffix: str, write) -> None:
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=suffix)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _cshogi_moves(state: ShogiState) -> list[int]:
    board = cshogi.Board(state.start_sfen)
    moves = []
    for usi in state.usi_moves:
        m = board.move_from_usi(usi)
        moves.append(m)
        board.push(m)
    return moves


def write_kif(state: ShogiState, path, names=("Black", "White")) -> None:
    """Write the game that led to ``state`` as KIF (atomic)."""
    def write(tmp):
        ex = KIF.Exporter()
        enc = "utf-8" if str(path).endswith(".kifu") else "cp932"
        ex.kifu = open(tmp, "w", encoding=enc)
        ex.prev_move, ex.move_number = None, 1
        start = None if state.start_sfen == cshogi.STARTING_SFEN else cshogi.Board(state.start_sfen)
        ex.header(list(names), handicap=start)
        for m in _cshogi_moves(state):
            ex.move(m)
        reason, _ = _end_reason(state)
        if reason:
            ex.end(reason)
        ex.close()
    _atomic(path, ".tmp", write)


def write_csa(state: ShogiState, path, names=("Black", "White")) -> None:
    """Write the game that led to ``state`` as CSA (atomic)."""
    def write(tmp):
        ex = CSA.Exporter(tmp)
        ex.info(cshogi.Board(state.start_sfen) if state.start_sfen != cshogi.STARTING_SFEN else None, names=list(names))
        for m in _cshogi_moves(state):
            ex.move(m)
        if state.is_terminal:
            ex.endgame(_end_reason(state)[1])
        ex.close()
    _atomic(path, ".tmp", write)


def read_record(path, game: Shogi | None = None) -> ShogiState:
    """The final state of a KIF (``.kif``/``.kifu``) or CSA (``.csa``) record.

    Raises:
        ValueError: unreadable record or an illegal move in it.
    """
    game = game or Shogi()
    text_path = str(path)
    try:
        if text_path.endswith((".kif", ".kifu")):
            parsed = KIF.Parser.parse_file(text_path)
            sfen, moves = parsed.sfen, parsed.moves
        elif text_path.endswith(".csa"):
            with open(text_path, "rb") as f:
                bom = f.read(3) == codecs.BOM_UTF8
            # cshogi's CSA reader takes a byte-order mark (Windows Notepad's) for part of line 1
            parsed = (CSA.Parser.parse_str(Path(text_path).read_text(encoding="utf-8-sig")) if bom
                      else CSA.Parser.parse_file(text_path))[0]
            sfen, moves = parsed.sfen, parsed.moves
        else:
            raise ValueError(f"{path}: record files end in .kif, .kifu or .csa")
    except (OSError, UnicodeDecodeError, IndexError, KeyError, RuntimeError) as e:
        raise ValueError(f"{path}: not a readable record ({e})") from None
    state = game.from_sfen(sfen)
    return state.play_many(cshogi.move_to_usi(m) for m in moves)
