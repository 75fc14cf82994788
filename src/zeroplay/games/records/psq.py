"""PSQ, the Piskvork / Gomocup manager's record format (see ``games.records``)."""

from __future__ import annotations

import re

from zeroplay.games.records.record import GameRecord
from zeroplay.games.records.sgf import gomoku_rule

_PSQ_HEADER = re.compile(r"^\s*Piskvorky\s+(\d+)\s*x\s*(\d+)\s*(.*)$", re.IGNORECASE)
_PSQ_MOVE = re.compile(r"^\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*(-?\d+)\s*)?$")
_PSQ_BENT_MOVE = re.compile(r"^\s*-?\d+(?:\.\d*)?\s*[,;:. \t]\s*-?\d+(?:\.\d*)?(?:\s*[,;:. \t]\s*-?\d+(?:\.\d*)?)?\s*$")
_PSQ_LABEL = re.compile(r"^\s*(result|rule)=(\S*)\s*$")


def write_psq(record: GameRecord) -> str:
    """PSQ text of ``record`` (coordinates from 1; names on their own lines; ``-1`` ends it; then
    ``result=B+`` and ``rule=freestyle`` lines when known, after the end marker, where readers of
    the moves do not look)."""
    lines = [f"Piskvorky {record.width}x{record.height}, 11:11, 0"]
    for i, cell in enumerate(record.moves):
        x, y = cell % record.width + 1, cell // record.width + 1
        ms = record.times_ms[i] if i < len(record.times_ms) else 0
        lines.append(f"{x},{y},{ms}")
    if record.black or record.white:
        lines += [one_line(record.black), one_line(record.white)]
    lines.append("-1")
    lines += [f"{key}={one_line(value)}" for key, value in (("result", record.result), ("rule", record.rule)) if value]
    return "\n".join(lines) + "\n"


def read_psq(text: str) -> GameRecord:
    """Parse PSQ text: the header, then ``x,y[,ms]`` lines up to the first other line; the next
    two non-numeric lines, if any, are taken as the players' names.

    Raises:
        ValueError: no header, a move off the board, malformed or repeated, a line among the
            moves that is not one (a move follows it before the ``-1`` end marker; for a line
            beginning with a digit, anywhere after it), a line of two or three numbers that is not a
            move (``9 9 0``, ``9.5,9,0``) before the end marker, an unknown ``rule=`` (the message names
            the line).
    """
    # blank lines and a byte-order mark before the header are an editor's, not the record's
    # (a file starting with an empty line was refused as "not a PSQ record")
    lines = text.removeprefix("\ufeff").splitlines()
    first = next((j for j, line in enumerate(lines) if line.strip()), len(lines))
    m = _PSQ_HEADER.match(lines[first]) if first < len(lines) else None
    if not m:
        raise ValueError("not a PSQ record: the first line must be 'Piskvorky WxH, ...'")
    width, height = int(m.group(1)), int(m.group(2))
    moves, times, seen = [], [], set()
    i = first + 1
    while i < len(lines) and (mv := _PSQ_MOVE.match(lines[i])):
        x, y = int(mv.group(1)), int(mv.group(2))
        if not (1 <= x <= width and 1 <= y <= height):
            raise ValueError(f"PSQ line {i + 1}: move {x},{y} is off the {width}x{height} board (counts from 1)")
        cell = (y - 1) * width + (x - 1)
        if cell in seen:
            raise ValueError(f"PSQ line {i + 1}: cell {x},{y} is played twice")
        seen.add(cell)
        moves.append(cell)
        times.append(int(mv.group(3) or 0))
        i += 1
    if i < len(lines):
        # the moves end at the first other line; a move written wrong there dropped it and every
        # move after it without a word (helper-68: "-3,-3,0" then "8,8,0" loaded an empty game)
        ended = lines[i].strip()
        if re.fullmatch(r"-?\d+\s*,\s*-?\d+\s*(,\s*-?\d+\s*)?", ended):
            raise ValueError(f"PSQ line {i + 1}: move {ended[:40]!r} is off the {width}x{height} board (counts from 1)")
        if re.fullmatch(r"-?\d+\s*,.*", ended):
            raise ValueError(f"PSQ line {i + 1}: move {ended[:40]!r} is malformed, not x,y[,ms] in whole numbers")
        # names end the moves too, so a line is a stray among them only when a move comes after
        # it and before the end marker ("8,8,0 / foo / 9,9,0" dropped the 9,9 without a word);
        # a line that begins as a move's number is one gone wrong wherever a move follows
        end = next((j for j in range(i, len(lines)) if lines[j].strip() == "-1"), len(lines))
        stop = len(lines) if re.match(r"-?\d", ended) else end
        later = next((j for j in range(i + 1, stop) if _PSQ_MOVE.match(lines[j])), None)
        if later is not None and ended != "-1":
            what = repr(ended[:40]) if ended else "an empty line"
            raise ValueError(f"PSQ line {i + 1}: {what} is not a move (x,y[,ms]), and line {later + 1} "
                             f"after it is one")
        # a name never reads as two numbers apart, so such a line before the end marker is a
        # move written wrong, not a name ("8,8,0 / 9 9 0 / -1" dropped the 9,9; helper-75)
        bent = next((j for j in range(i, end) if _PSQ_BENT_MOVE.match(lines[j])), None)
        if bent is not None:
            raise ValueError(f"PSQ line {bent + 1}: {lines[bent].strip()[:40]!r} is not a move (x,y[,ms] "
                             f"in whole numbers) and comes before the end marker -1")
    labels = {}
    for j in range(i, len(lines)):
        if m := _PSQ_LABEL.match(lines[j]):
            key, value = m.group(1), m.group(2)
            labels[key] = gomoku_rule(value, f"PSQ line {j + 1}") if key == "rule" else value
    rest = [ln.strip() for ln in lines[i:] if ln.strip() and not re.fullmatch(r"-?\d+(,.*)?", ln.strip())
            and not _PSQ_LABEL.match(ln)]
    black, white = (rest + ["", ""])[:2]
    return GameRecord(width, height, moves, black, white, labels.get("result", ""), times,
                      rule=labels.get("rule", ""))


def one_line(text: str) -> str:
    """A name on one line of a PSQ or SGF file: runs of white space as one space, "-" when empty."""
    return " ".join(text.split()) or "-"
