"""Checking a VCF line on real states (rules only, no solver code): the test of a threat proof.

Used by the tests, ``zeroplay bench vcf`` and anyone holding a line from ``ThreatSolver``.
"""

from __future__ import annotations

from zeroplay.games import IllegalMoveError


def check_vcf_line(state, line) -> str | None:
    """Replay ``line`` from ``state`` and check it is a VCF for ``state``'s side to move A.

    Checks, on real ``State``s (rules only): every move is legal; every A move but the last
    makes a four (A then has a winning cell) and blocks D's winning cell when D has one; every D
    move is A's only winning cell (or, after an open or double four, one of them, the next A
    move then being the five); D never has a five to play instead; the last move is A's five
    under the rule in force.

    Returns:
        None when the line is a VCF, else the reason it is not.
    """
    a = state.to_play
    s = state
    line = [int(m) for m in line]
    if not line:
        return "empty line"
    if s.is_terminal:
        return "the game is over"
    open_four = False
    for i, m in enumerate(line):
        last = i == len(line) - 1
        if i % 2 == 0:
            threats = {int(c) for c in s.winning_moves(1 - a)}
            try:
                s = s.play(m)
            except IllegalMoveError as e:
                return f"ply {i}: illegal: {e}"
            if last:
                return None if s.is_terminal and s.winner == a else f"ply {i}: the last move is not a five"
            if s.is_terminal:
                return f"ply {i}: the game ended before the line did"
            if open_four:
                return f"ply {i}: an open or double four must be followed by the five"
            if threats and (len(threats) > 1 or m not in threats):
                return f"ply {i}: the defender had a five at {sorted(threats)} and it was not blocked"
            wins = s.num_winning_moves(a)
            if wins == 0:
                return f"ply {i}: not a four"
            if s.num_winning_moves(1 - a) > 0:
                return f"ply {i}: the defender can play a five"
        else:
            if last:
                return f"ply {i}: the line ends with a defender move"
            blocks = {int(c) for c in s.winning_moves(a)}
            if m not in blocks:
                return f"ply {i}: the defender's move is not the block of {sorted(blocks)}"
            open_four = len(blocks) >= 2
            try:
                s = s.play(m)
            except IllegalMoveError as e:
                return f"ply {i}: illegal: {e}"
            if s.is_terminal:
                return f"ply {i}: the defender's block ended the game"
    return "the line does not end"
