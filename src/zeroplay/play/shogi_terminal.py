"""``zeroplay play --game shogi``: shogi in the terminal against the alpha-beta engine.

The board prints with White's hand above and Black's below (``ShogiState.__str__``); moves are
USI text (``7g7f``, ``8h2b+``, ``P*5e``). Commands: ``undo`` (takes back your last move and the
engine's reply), ``hint`` (the engine's move for you), ``new [black|white]``, ``help``, ``quit``. After each
engine move it prints the depth, score (centipawns or mate, the engine's view) and best line.
``--seconds`` sets the engine's time per move (default 2), ``--model`` plays the MCTS engine
with that network instead (``--playouts`` per move).
"""

from __future__ import annotations

import sys

DEFAULT_SECONDS = 2.0


class ShogiTerminal:
    """A session driven line by line (``handle``); output goes to ``write``."""

    def __init__(self, write, *, human: int = 0, seconds: float = DEFAULT_SECONDS, model: str | None = None,
                 playouts: int = 800):
        from zeroplay.engine.shogi_engines import make_shogi_engine
        from zeroplay.games.shogi import Shogi

        self.write = write
        self.game = Shogi()
        self.seconds = seconds
        self.engine = make_shogi_engine("mcts" if model else "alphabeta", hash_mib=64, playouts=playouts, model=model)
        # loaded before the first move, as ``usi``'s isready does: loading them inside a 0.5 s move
        # left it depth 1 (helper-76)
        self.engine.search(self.game.initial(), depth=1, nodes=64)
        self.finished = False
        self.new(human)

    def new(self, human: int) -> None:
        self.human = human
        self.history = [self.game.initial()]
        self.engine.new_game()
        self.write(f"New game: you play {'Black (moves first)' if human == 0 else 'White'}.")
        self._engine_turn()
        self.show()

    @property
    def state(self):
        return self.history[-1]

    def show(self) -> None:
        self.write(str(self.state))
        if self.state.is_terminal:
            self.write("Type new [black|white] or quit.")
        else:
            self.write("Your move (USI, e.g. 7g7f, 8h2b+, P*5e; undo, hint, new, help, quit):")

    def _engine_turn(self) -> None:
        state = self.state
        if state.is_terminal or state.to_play == self.human:
            return
        result = self.engine.search(state, seconds=self.seconds)
        if result.best_move in ("resign", "win"):
            self.write(f"The engine says {result.best_move}.")
            return
        self.history.append(state.play(result.best_move))
        score = f"mate {result.mate:+d}" if result.mate is not None else f"{result.score:+d} cp"
        self.write(f"Engine plays {result.best_move}  (depth {result.depth}, {score}, line: {' '.join(result.pv[:8])})")

    def handle(self, line: str) -> None:
        words = line.split()
        if not words:
            return
        command = words[0].lower()
        if command in ("quit", "exit", "q"):
            self.finished = True
        elif command in ("help", "?"):
            self.write("Moves in USI notation: from-square to-square (7g7f; files 9-1 right to left, ranks a-i "
                       "top to bottom), + to promote (8h2b+), drops as PIECE*square (P*5e).")
            self.write("Commands: undo, hint, new [black|white], help, quit.")
        elif command == "new":
            side = words[1].lower() if len(words) > 1 else "black"
            if side not in ("black", "white"):
                self.write("new takes black or white")
                return
            self.new(0 if side == "black" else 1)
        elif command == "undo":
            if len(self.history) >= 3 or (len(self.history) == 2 and self.history[0].to_play == self.human):
                self.history.pop()
                while len(self.history) > 1 and self.state.to_play != self.human:
                    self.history.pop()
            else:
                self.write("nothing to undo")
            self.show()
        elif command == "hint":
            if self.state.is_terminal:
                self.write("the game is over")
                return
            result = self.engine.search(self.state, seconds=self.seconds)
            self.write(f"Hint: {result.best_move}")
        else:
            if self.state.is_terminal:
                self.write("the game is over; type new or quit")
                return
            try:
                after = self.state.play(words[0])
            except ValueError as e:
                self.write(str(e))
                return
            self.history.append(after)
            self._engine_turn()
            self.show()


def run(args) -> int:
    """The ``zeroplay play --game shogi`` loop on stdin/stdout."""
    human = 0 if getattr(args, "color", "black") == "black" else 1
    seconds = args.seconds if getattr(args, "seconds", None) else DEFAULT_SECONDS
    session = ShogiTerminal(print, human=human, seconds=seconds, model=getattr(args, "model", None),
                            playouts=getattr(args, "playouts", None) or 800)
    for line in sys.stdin:
        session.handle(line)
        if session.finished:
            break
    return 0
