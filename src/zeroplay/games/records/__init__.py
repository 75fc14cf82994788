"""Gomoku game records a person can replay: PSQ (Piskvork) and SGF, written and read back.

PSQ (the Piskvork / Gomocup manager's format)::

    Piskvorky 15x15, 11:11, 0        header: board width x height, then fields kept as is
    8,8,0                            one move per line: x,y,ms -- column and row from the TOP,
    9,8,0                            both counted from 1 (Gomocup's 0-based x,y plus one)
    Black's name                     optional player lines
    White's name
    -1                               end marker
    result=B+                        zeroplay's labels after the end marker, when known: the
    rule=freestyle                   result (as SGF's RE) and the rule

SGF (FF[4], GM[4] = Gomoku)::

    (;FF[4]GM[4]CA[UTF-8]AP[zeroplay:0.1.0]SZ[15]PB[..]PW[..]RE[B+];B[hh];W[ih])

with a move's letters = column then row from the top (``a`` = 0), ``SZ[w:h]`` on non-square
boards, ``RE`` = ``B+`` / ``W+`` (``B+R``: by resignation) / ``0`` (draw) / absent, and ``RU``
the rule. Properties zeroplay does not interpret are kept per node (``GameRecord.node_props``,
written back as they were). Readers take the main line only (the first variation at each branch).
"""


from zeroplay.games.records.psq import read_psq, write_psq
from zeroplay.games.records.record import GameRecord, load_record, record_of_game, save_record
from zeroplay.games.records.sgf import read_sgf, write_sgf

__all__ = ["GameRecord", "load_record", "read_psq", "read_sgf", "record_of_game", "save_record", "write_psq",
           "write_sgf"]
