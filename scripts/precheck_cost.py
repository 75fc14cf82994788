"""What the VCT guard's checks during a search (``RootGuard.precheck``) cost and buy, side by side
in one process: timed searches of the shipped 15x15 model with the checks on and off
(``precheck_due`` answering False), alternating, each from a fresh tree and a fresh guard memory.
Prints per search: the move played, playouts, the guard's seconds at the end, the moves it showed
to lose and whether the played move's check was cut (docs/THREATS.md, "The VCT guard").

Positions: game 79 at ply 32 (White to move; d8 and d6 lose to Black's VCT) and game 45 at ply 9,
as ``scripts/pbrain_reply_times.py``.

    .venv/bin/python scripts/precheck_cost.py [SECONDS [ROUNDS]]      # default 3 3
"""

from __future__ import annotations

import sys

from zeroplay.engine.factory import make_engine
from zeroplay.games import make
from zeroplay.search.root_guard import GuardMemory, RootGuard

POSITIONS = {
    "g79": "g8 f8 f9 h7 h9 f7 g9 i9 i7 g10 j8 h8 j10 h6 j9 j11 i5 f6 j6 j7 h4 k7 f5 e6 g6 g7 e5 e9 d10 e7 d7",
    "g45p9": "h7 h6 g6 g7 f8 f7 e7 g9 e6",
}


def main(argv: list[str]) -> None:
    seconds = float(argv[0]) if argv else 3.0
    rounds = int(argv[1]) if len(argv) > 1 else 3
    game = make("gomoku", width=15, height=15)
    searcher = make_engine(game).new_searcher(memory_bytes=200 << 20)
    searcher.search(game.initial(), playouts=64)  # compiled code and the model loaded
    due = RootGuard.precheck_due
    totals: dict[tuple[str, str], list[int]] = {}
    for r in range(rounds):
        for name, moves in POSITIONS.items():
            state = game.initial().play_many(moves.split())
            for mode in (("on", "off") if r % 2 == 0 else ("off", "on")):
                RootGuard.precheck_due = due if mode == "on" else (lambda self: False)  # type: ignore[method-assign]
                searcher.reset()
                searcher.root_guard.memory = GuardMemory()
                result = searcher.search(state, seconds=seconds)
                guard = searcher.root_guard
                cut = "cut" if result.best_move in (guard.checked_in_part, guard.unchecked) else ""
                print(f"round {r} {name} prechecks {mode:3}: {game.format_move(result.best_move):4} "
                      f"{result.playouts:5} playouts, guard {guard.seconds:.2f} s, lost "
                      f"{[game.format_move(m) for m in result.vct_lost]} {cut}", flush=True)
                totals.setdefault((name, mode), []).append(result.playouts)
    RootGuard.precheck_due = due  # type: ignore[method-assign]
    for (name, mode), playouts in sorted(totals.items()):
        print(f"{name} prechecks {mode}: {sum(playouts)} playouts in {len(playouts)} searches")


if __name__ == "__main__":
    main(sys.argv[1:])
