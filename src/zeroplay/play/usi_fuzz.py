"""Random and mutated USI lines for fuzzing ``zeroplay.play.usi`` (``tests/play/test_usi.py``: 500
lines by default, 10,000 with ``-m slow``).

Valid-looking commands with out-of-range numbers, illegal and malformed moves, SFENs with
broken fields, unknown options and words, binary junk, and mutations (cut, doubled, case
changed, characters replaced) of valid lines. ``quit`` is never produced, so a run goes on.
"""

from __future__ import annotations

import random
import re

REPLY = re.compile(
    r"^(id (name|author) .+|option name \S+ type (spin|check|combo|string) .*|usiok|readyok|"
    r"info .*|bestmove (\S+)( ponder \S+)?|checkmate( \S+)+)$"
)
"""Every line the engine may print."""

_MOVES = ["7g7f", "3c3d", "2g2f", "8c8d", "8h2b+", "3a2b", "B*4e", "P*5e", "1a1b", "9i9h+", "5i5h",
          "7g7g", "0a0b", "7g7f+", "K*5e", "p*5e", "10a1b", "7g", "resign", "win"]
_SFENS = ["lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "7lk/9/8G/9/9/9/9/9/K8 b G 1",
          "4k4/9/9/9/9/9/4P4/9/4K4 b P 1", "k8/7P1/9/9/9/9/9/9/8K b - 1", "9/9/9/9/9/9/9/9/9 b - 1",
          "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1", "8k/9/9/9/9/9/9/9/K8 w 99P 1",
          "RRBBGGGG1/4K4/SS7/9/9/9/9/9/4k4 b 2P 1", "kkkkkkkkk/9/9/9/9/9/9/9/K8 b - 1"]
_OPTIONS = ["USI_Hash", "USI_Ponder", "Engine", "Depth", "Playouts", "HandDominance", "ByoyomiMargin",
            "Model", "Threads", "usi_hash", ""]
_VALUES = ["1", "16", "0", "-1", "99999999999", "true", "false", "AlphaBeta", "mcts", "MCTS", "", "x", "1e3",
           "/nonexistent.safetensors"]


def _number(rng: random.Random) -> str:
    return rng.choice([str(rng.randint(0, 200)), str(rng.randint(0, 3000)), "-1", "0", "9" * rng.randint(5, 30),
                       "x", "", "1.5", "٣"])


def valid_like_line(rng: random.Random) -> str:
    """A command that is valid or nearly so (its arguments may be wrong)."""
    k = rng.random()
    if k < 0.25:
        moves = " ".join(rng.choice(_MOVES) for _ in range(rng.randint(0, 6)))
        start = "startpos" if rng.random() < 0.6 else "sfen " + rng.choice(_SFENS)
        return f"position {start}" + (f" moves {moves}" if moves or rng.random() < 0.3 else "")
    if k < 0.45:
        parts = ["go"]
        for word in rng.sample(["btime", "wtime", "byoyomi", "binc", "winc", "nodes", "depth", "movetime",
                                "infinite", "ponder", "mate"], rng.randint(0, 4)):
            parts.append(word)
            if word not in ("infinite", "ponder"):
                parts.append(rng.choice([_number(rng), "infinite"]) if word == "mate" else _number(rng))
        return " ".join(parts)
    if k < 0.6:
        return f"setoption name {rng.choice(_OPTIONS)} value {rng.choice(_VALUES)}"
    return rng.choice(["usi", "isready", "usinewgame", "stop", "ponderhit", "gameover win", "gameover lose",
                       "gameover draw", "setoption", "position", "go mate", "stop now", "register later"])


def mutate(line: str, rng: random.Random) -> str:
    """A damaged copy of ``line``."""
    k = rng.random()
    if not line or k < 0.25:
        return line[: rng.randint(0, len(line))]
    if k < 0.45:
        return line + " " + line
    if k < 0.6:
        return line.upper() if rng.random() < 0.5 else line.swapcase()
    chars = list(line)
    for _ in range(rng.randint(1, 3)):
        chars[rng.randrange(len(chars))] = rng.choice(["\x00", "\t", " ", "*", "+", "9", "é", "\ufffd", "\x7f"])
    return "".join(chars)


def junk_line(rng: random.Random) -> str:
    """Random characters, sometimes very long."""
    length = rng.choice([1, 5, 40, 300, 5000])
    return "".join(chr(rng.choice([rng.randint(32, 126), rng.randint(0, 0x2FF)])) for _ in range(length))


def random_lines(rng: random.Random, count: int):
    """``count`` lines (no newline), never ``quit``."""
    for _ in range(count):
        k = rng.random()
        line = valid_like_line(rng) if k < 0.55 else mutate(valid_like_line(rng), rng) if k < 0.85 else junk_line(rng)
        if line.strip().lower().startswith("quit"):
            line = "x" + line
        yield line
