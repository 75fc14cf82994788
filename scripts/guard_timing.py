"""The VCT guard's time in timed searches, with and without the playouts ending a round early.

Game 79 of training/strength/games/gomoku-15x15-iter83 at ply 32 (White to move: d8 and d6 lose to
Black's VCT, e8 and e10 do not), the shipped 15x15 model, three searches at each of ``SECONDS``,
the two stop rules alternating in one process: "old" lets the last round of playouts run into the
guard's time (``Searcher._update_stop`` without the guard's deadline), "new" is the search as it
is. Prints, per search, the move played, wall time, the guard's seconds, the moves it showed to
lose, the move whose check the time cut, and the playouts (docs/THREATS.md, "The VCT guard").

    .venv/bin/python scripts/guard_timing.py [SECONDS ...]      # default 0.7 1.5
"""

from __future__ import annotations

import sys
import time

from zeroplay.engine.factory import make_engine
from zeroplay.games import make
from zeroplay.search.searcher import Searcher

GAME_79 = "g8 f8 f9 h7 h9 f7 g9 i9 i7 g10 j8 h8 j10 h6 j9 j11 i5 f6 j6 j7 h4 k7 f5 e6 g6 g7 e5 e9 d10 e7 d7"


def main(argv: list[str]) -> None:
    game = make("gomoku", width=15, height=15)
    state = game.initial().play_many(GAME_79.split())
    searcher = make_engine(game).new_searcher(memory_bytes=200 << 20)
    searcher.search(state, playouts=64)  # compiled code and the model loaded
    new = Searcher._update_stop

    def old(self) -> None:
        keep = self._guard_deadline
        self._guard_deadline = None
        try:
            new(self)
        finally:
            self._guard_deadline = keep

    for seconds in [float(a) for a in argv] or [0.7, 1.5]:
        for _ in range(3):
            for name, rule in (("old", old), ("new", new)):
                Searcher._update_stop = rule  # type: ignore[method-assign]
                searcher.reset()
                started = time.perf_counter()
                r = searcher.search(state, playouts=10**6, seconds=seconds)
                guard = searcher.root_guard
                cut = None if guard.checked_in_part is None else game.format_move(guard.checked_in_part)
                print(f"{seconds} {name} {game.format_move(r.best_move)} total {time.perf_counter() - started:.3f} "
                      f"guard {guard.seconds:.3f} lost {[game.format_move(m) for m in guard.lost]} cut {cut} "
                      f"playouts {r.playouts}", flush=True)
    Searcher._update_stop = new  # type: ignore[method-assign]


if __name__ == "__main__":
    main(sys.argv[1:])
