"""``zeroplay play``: a person against the engine in the terminal.

The board prints with its coordinates (columns a.., rows numbered from the bottom, ``)`` after
the last move). A move is ``h8`` or Gomocup ``x,y`` (column, row from the top, from 0); in
Connect Four it is the column digit ``1``..``7`` (the board prints with row 1 at the bottom).
Commands: ``undo`` (take back your last move and the reply), ``hint`` (what the engine would
play for you), ``new [black|white]``, ``help``, ``quit``. After each engine move: its playouts,
its win rate and the best line it sees. Bad input is explained and asked again; Ctrl-C or the
end of input ends the program cleanly.
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from zeroplay.engine.factory import PLAY_PLAYOUTS, Engine, describe
from zeroplay.engine.resign import RESIGN_BELOW, RESIGN_TURNS, resigns, trusted_win_rate
from zeroplay.games import Game, IllegalMoveError, State

if TYPE_CHECKING:
    import numpy

COMMANDS = "Commands: undo, hint, resign, new [black|white], help, quit."
COLOURS = ("black", "white")


COMMAND_HELP = (
    "Commands:",
    "  undo               take back your last move and the engine's reply",
    "  hint               the engine searches your position: its move, top moves with your win rate, best line",
    "  resign             give up this game (in Go the engine resigns a lost game too)",
    "  new [black|white]  a new game, playing the colour given (else the same as before)",
    "  help, ?            this text",
    "  quit, exit, q      leave (Ctrl-D too)",
    "Ctrl-C while the engine thinks makes it play its best move so far.",
)
"""What ``help`` prints after the notation: each command with what it does (the start prints
the one-line ``COMMANDS``; ``help`` repeating that line was a new user's remark)."""


def help_text(game: Game) -> str:
    """The notation (the game's ``move_help``: ``h8`` / ``7,7`` at the board's centre for
    Gomoku, column digits for Connect Four) and the commands."""
    return f"{game.move_help()}\n{COMMANDS}"


def full_help(game: Game, limits: str) -> str:
    """``help``: the game, the engine's limit per move (``limits``, e.g. ``800 playouts``), the
    notation and every command with what it does."""
    threats = (("Before it plays, the engine checks its move against your forced wins by threes and fours "
                "(VCT). It prints a note only when the check changed something: a move of its choice that "
                "loses to one and the move it plays instead (\"Note: VCT guard: ...\"), or a check the time "
                "cut short. No note: no forced win of yours was found after its move.",
                "\"proven win (main line N plies)\" is the proof's main line, not a count to the end: fours "
                "the loser plays off that line make the game longer, never change its result.")
               if getattr(game, "threat_space", False) else ())
    return "\n".join((f"Playing {describe(game)}; the engine thinks {limits} per move.", game.move_help(),
                      *COMMAND_HELP, *threats))


def side_names(game: Game) -> tuple[str, str]:
    """How the two players are called: ``Black (X)`` / ``White (O)``; Connect Four has no colours
    on the board, so ``X (first)`` / ``O (second)`` (``--color black`` plays X)."""
    marks = ("X", "O")  # the board's marks
    names = game.player_names
    if names == marks:
        return (f"{names[0]} (first)", f"{names[1]} (second)")
    return (f"{names[0]} ({marks[0]})", f"{names[1]} ({marks[1]})")


def result_text(game: Game, winner: int | None, human: int) -> str:
    """The end of a game in one line: ``Draw.``, ``White (zeroplay) wins.``, ``Black (you) wins.``;
    the colour as the board prints it (Connect Four: X and O). The internal player number is left
    out: a player thinks in colours and in who played them (a new user's remark)."""
    if winner is None:
        return "Draw."
    colours = game.player_names
    who = "you" if winner == human else "zeroplay"
    return f"{colours[winner]} ({who}) wins."


SOLVE_FROM_PLY = 12
"""Connect Four: stones on the board from which the search-only engine plays the exact solver's
move (Pons' middle-game sets, 14+ stones, solve in milliseconds here; openings can take minutes)."""

MEMORY_BYTES = 1 << 30
"""Memory budget of the terminal's search tables with ``--seconds`` alone (1 GiB); with
``--playouts`` they are sized for the playouts (``SearchConfig.for_playouts``, at most 2 GiB).
A search that fills them recycles its least visited nodes and goes on (``search/gc.py``)."""


def search_memory(playouts: int | None, seconds: float | None) -> int | None:
    """The budget a search of ``--seconds`` alone gets (``MEMORY_BYTES``); None: sized by playouts."""
    return MEMORY_BYTES if playouts is None and seconds is not None else None


class TerminalGame:
    """One session of human-vs-engine games, driven line by line (``handle``) or by ``run``.

    Args:
        game: the Game.
        engine: the Engine (``zeroplay.engine.factory.make_engine``).
        human: 0 to play Black (first), 1 for White.
        playouts / seconds: the engine's limits per move (either or both).
        out: where text goes (one call per message).
    """

    def __init__(self, game: Game, engine: Engine, human: int = 0, *, playouts: int | None = PLAY_PLAYOUTS,
                 seconds: float | None = None, out: Callable[[str], None] = print,
                 rng: numpy.random.Generator | None = None, resign: bool = True):
        """``rng``: the draw of the engine's early moves (``search.choice.varied_move``); None: it
        always plays its most visited move (deterministic). ``resign``: in a game whose
        ``Game.resigns`` is set (Go), the engine resigns once its win rate has been under
        ``RESIGN_BELOW`` for ``RESIGN_TURNS`` moves of its own (``engine.resign``); False: it
        plays every game to its end."""
        self.game, self.engine, self.human = game, engine, human
        self.rng = rng
        self.playouts, self.seconds = playouts, seconds
        if playouts is None and seconds is None:
            self.playouts = PLAY_PLAYOUTS
        self.out = out
        self.searcher = engine.new_searcher(playouts=self.playouts, memory_bytes=search_memory(self.playouts, self.seconds))
        self._hint_searcher = None  # the hint's own tables, made at the first hint (``hint_searcher``)
        self.state: State = game.initial()
        self.quit = False
        self.noted: set[str] = set()  # the search's notes already printed in this game
        self.resign_below = RESIGN_BELOW if resign and game.resigns else 0.0
        self.engine_rates: dict[int, float | None] = {}
        """The engine's win rate (``trusted_win_rate``) at each ply it searched to move, on the
        line played: the record ``resigns`` reads; undo drops what it takes back."""
        self.resigned: int | None = None  # the player who resigned this game, if one did

    @property
    def over(self) -> bool:
        """The game has ended: by its rules, or by a resignation."""
        return self.state.is_terminal or self.resigned is not None

    # --- text ---------------------------------------------------------------------------------
    def side_name(self, player: int) -> str:
        return side_names(self.game)[player]

    def prompt(self) -> str:
        if self.over:
            return "game over: new, undo or quit> "
        return f"{self.side_name(self.state.to_play)} to move> "

    def show_board(self) -> None:
        # the board without its status line: "X to move" the prompt that follows says, and who won
        # report_end says, naming the player ("White (player 1) wins" followed by "zeroplay wins."
        # said it twice)
        self.out(str(self.state).rsplit("\n", 1)[0])

    def fmt(self, move: int) -> str:
        return self.game.format_move(move)

    def captured(self, before: State) -> str:
        """`` (captures 2)`` when the move from ``before`` to the shown position took stones
        (scored games: ``Game.score_details``), else ``""``."""
        was, now = self.game.score_details(before), self.game.score_details(self.state)
        if was is None or now is None:
            return ""
        taken = sum(now["prisoners"]) - sum(was["prisoners"])
        return f" (captures {taken})" if taken > 0 else ""

    # --- the engine -----------------------------------------------------------------------------
    def hint_searcher(self):
        """The searcher of ``hint``: its own tables, sized as the engine's.

        A hint searched with the engine's searcher made its tree reuse run one ply at a time (the
        hint's position, then the engine's reply to it): each search kept most of the last one,
        the tree grew past the tables sized for the playouts (``SearchConfig.for_playouts``: one
        search plus what a reply two plies on keeps), and by the fifth Connect Four move of a game
        with hints they filled and recycled. With its own tables the hint reuses its own tree two
        plies on, as the engine does, and a hint changes nothing in the engine's play. The tables
        are zeroed pages: memory is taken only as the hint's searches use it."""
        if self._hint_searcher is None:
            self._hint_searcher = self.engine.new_searcher(
                playouts=self.playouts, memory_bytes=search_memory(self.playouts, self.seconds))
        return self._hint_searcher

    def _search(self, state: State, searcher=None):
        """The search (the engine's searcher unless ``searcher``); Ctrl-C during it stops it and
        the best move so far is played (as in KataGo's and Leela's consoles), instead of ending
        the program and losing the game."""
        searcher = searcher or self.searcher
        if threading.current_thread() is not threading.main_thread():
            return searcher.search(state, playouts=self.playouts, seconds=self.seconds)
        import signal

        interrupted = threading.Event()
        previous = signal.signal(signal.SIGINT, lambda *_: interrupted.set())
        try:
            result = searcher.search(state, playouts=self.playouts, seconds=self.seconds, stop=interrupted.is_set)
        finally:
            signal.signal(signal.SIGINT, previous)
        if interrupted.is_set():
            self.out("(search stopped by Ctrl-C: the best move so far)")
        return result

    def report_notes(self, result) -> None:
        """Print the search's notes (a full table, a proof that failed verification), each once
        per game; the VCT guard's each time (they are about the move just played, which an
        ``undo`` may bring back)."""
        for note in result.notes:
            if note in self.noted:
                continue
            if not note.startswith("VCT guard:"):
                self.noted.add(note)
            if result.stopped_by == "full" and "full" in note:
                asked = (f"of {self.playouts:,} playouts" if self.playouts is not None
                         else f"playouts of its {self.seconds:g} s")
                self.out(f"Note: the search stopped at {result.playouts:,} {asked}: {note}. It plays its "
                         f"best move so far; this note is shown once per game.")
            else:
                self.out(f"Note: {note}.")

    def _solved(self):
        """Connect Four without ``--model``: from ``SOLVE_FROM_PLY`` stones on, the exact solver
        (``solvers.connect4_solver``, Pons' scores) answers at once, so the search-only engine
        plays perfectly in the middle and end game. ``(score, best column)`` for the side to
        move, or None (another game, a model playing, or too early: openings take seconds to
        minutes to solve)."""
        if not self.game.exact_solver or self.engine.model_path is not None or self.state.ply < SOLVE_FROM_PLY:
            return None
        from zeroplay.solvers.connect4_solver import Connect4Solver

        if getattr(self, "_c4", None) is None:
            self._c4 = Connect4Solver()
        r = self._c4.solve(self.state)
        return r.score, self.game.parse_move(r.best_move), r.seconds

    def _solved_text(self, score: int, mover: str) -> str:
        """Pons' score (side to move's view; ``mover`` names that side) in words: who wins with
        best play and after how many plies from now."""
        ply = self.state.ply
        s = "" if mover == "you" else "s"
        if score > 0:  # the mover wins with its (22 - score)-th stone; it has ply // 2 now
            return f"{mover} win{s} in {_count(2 * (22 - score - ply // 2) - 1, 'ply', 'plies')} with best play"
        if score < 0:  # the other side wins with its (22 + score)-th stone; it has (ply + 1) // 2
            return (f"{mover} lose{s} in {_count(2 * (22 + score - (ply + 1) // 2), 'ply', 'plies')} "
                    f"against best play")
        return "a draw with best play"

    def engine_move(self) -> int | None:
        """Search, play the engine's move, report it; returns the move, or None when the engine
        resigns instead (``resign``)."""
        solved = self._solved()
        if solved is not None:
            score, move, seconds = solved
            text = self._solved_text(score, "zeroplay")
            self.state = self.state.play(move)
            self.out(f"zeroplay plays {self.fmt(move)}: solved exactly in {seconds:.2f} s: {text}")
            self.show_board()
            self.report_end()
            return move
        from zeroplay.search import varied_move

        result = self._search(self.state)
        ply = self.state.ply
        self.engine_rates[ply] = trusted_win_rate(result)
        if resigns([self.engine_rates.get(p) for p in range(ply - 2 * (RESIGN_TURNS - 1), ply + 1, 2)],
                   self.resign_below):
            self.resigned = self.state.to_play
            self.show_board()  # the position it resigns in, your last move on it
            self.out(f"zeroplay resigns: its win rate has been under {100 * RESIGN_BELOW:g}% for {RESIGN_TURNS} moves "
                     f"({self.summary(result)}). {result_text(self.game, 1 - self.resigned, self.human)} "
                     "Type new for another game, undo to take back your last move, or quit.")
            return None
        check = getattr(self.searcher, "vct_cleared", None)  # Gomoku's VCT guard (search/root_guard.py)
        move = varied_move(result, self.state.ply, self.rng,
                           cleared=None if check is None else lambda m: check(self.state, m))
        before, self.state = self.state, self.state.play(move)
        picked = result.best_move is not None and move != int(result.best_move)
        varied = ("" if not picked else
                  f" (an opening pick among moves rated about as good; --deterministic plays the "
                  f"search's best, {self.fmt(int(result.best_move))})")
        # the line of the move played: a fresh player read the best move's line as this one's
        line = self.searcher.principal_variation(move) if picked else None
        self.out(f"zeroplay plays {self.fmt(move)}{self.captured(before)}: {self.summary(result, line)}{varied}")
        self.report_notes(result)
        self.show_board()
        self.report_end()
        return move

    def summary(self, result, line: list[int] | None = None) -> str:
        """``1,000 playouts in 0.4 s, win rate 55% for zeroplay, best line h9 i10 g8``; ``line``
        replaces the result's principal variation (the line of a move other than its best).

        The win rate is the root mover's (zeroplay's) expected score, ``SearchResult.win_rate``:
        (Q + 1) / 2, or 100 % / 0 % / 50 % once the result is proven. A result the root threat
        search proved with no playout reads ``threat search in 4.0 s``.
        """
        # the proof's main line, not a bound on the game: a threat proof leaves out the delaying
        # fours the defender may interpose (a fresh player saw "in 5 plies" twice running)
        proven = (f", proven {result.proven} (main line {_count(result.proven_distance, 'ply', 'plies')})"
                  if result.proven else "")
        line_text = " ".join(self.fmt(m) for m in (result.pv if line is None else line)[:8])
        # a result the threat search proved before the tree ran reads as "0 playouts", as if the
        # engine had not thought; say what did the work
        work = (("threat search" if self.game.threat_space else "proof") if result.proven and result.playouts == 0
                else _count(result.playouts, 'playout'))
        return (f"{work} in {result.seconds:.1f} s, win rate "
                f"{100 * result.win_rate:.0f}% for zeroplay{proven}, best line {line_text}")

    def report_end(self) -> None:
        s = self.state
        if not s.is_terminal:
            return
        score = self.game.final_score_text(s)  # Go: "Score B+4.5."; games won by a line: none
        details = self.game.score_details(s)
        if details is not None:  # the count: what each side has, as the rules count it
            what = "stones + territory" if details["scoring"] == "area" else "territory + prisoners"
            self.out(f"Two passes end the game. Count ({what}): Black {details['points'][0]}, White "
                     f"{details['points'][1]} + komi {details['komi']:g}.")
        self.out(f"{f'Score {score}. ' if score else ''}{result_text(self.game, s.winner, self.human)} "
                 "Type new for another game, undo, or quit.")

    # --- input ----------------------------------------------------------------------------------
    def handle(self, line: str) -> None:
        """Act on one line of input: a command or a move (then the engine's reply)."""
        words = line.strip().split()
        if not words:
            return
        cmd = words[0].lower()
        if cmd in ("quit", "exit", "q"):
            self.quit = True
            return
        if cmd in ("help", "?"):
            self.out(full_help(self.game, _limits_text(self)))  # the start line's words
            return
        if cmd == "new":
            if len(words) > 1 and words[1].lower() not in COLOURS:
                self.out(f"new takes black or white, not {words[1]!r}")
                return
            if len(words) > 1:
                self.human = COLOURS.index(words[1].lower())
            self.new_game()
            return
        if cmd == "undo":
            self.undo()
            return
        if cmd == "hint":
            self.hint()
            return
        if cmd == "resign":
            self.resign()
            return
        if self.over:
            self.out("The game is over: type new for another game, undo, or quit.")
            return
        if self.state.to_play != self.human:
            self.out("It is the engine's turn.")
            return
        before = self.state
        try:
            self.state = self.state.play(line.strip())
        except IllegalMoveError as e:
            why = str(e) if len(str(e)) <= 200 else str(e)[:200] + "..."  # a pasted page is not echoed back
            self.out(f"Illegal: {why}. Type help for the notation and commands.")
            return
        # said before the board also when the move ends the game (a fresh player's winning move
        # went unechoed, straight to the board and the result)
        self.out(f"You play {self.fmt(self.state.moves[-1])}{self.captured(before)}.")
        if self.state.is_terminal:
            self.show_board()
            self.report_end()
        else:
            self.engine_move()

    def resign(self) -> None:
        """The person gives up the game in progress."""
        if self.over:
            self.out("The game is over: type new for another game, undo, or quit.")
            return
        self.resigned = self.human
        self.out(f"You resign. {result_text(self.game, 1 - self.human, self.human)} "
                 "Type new for another game, undo to take back the resignation, or quit.")

    def new_game(self) -> None:
        self.resigned = None
        self.engine_rates.clear()
        self.state = self.game.initial()
        self.searcher.reset()
        if self._hint_searcher is not None:
            self._hint_searcher.reset()
        self.noted.clear()
        self.out(f"New game: you play {self.side_name(self.human)}.")
        self.show_board()
        if self.state.to_play != self.human:
            self.engine_move()

    def undo(self) -> None:
        if self.resigned is not None and self.resigned == self.human:
            self.resigned = None  # the last thing done: take back that alone
            self.out("Took back your resignation.")
            return
        moves = list(self.state.moves)
        human_moves = [i for i in range(len(moves)) if i % 2 == self.human]
        if not human_moves:
            self.out("Nothing to undo.")
            return
        keep = human_moves[-1]  # drop your last move and everything after it
        self.resigned = None  # a resignation is taken back with the moves before it
        self.engine_rates = {p: w for p, w in self.engine_rates.items() if p < keep}
        self.state = self.game.initial().play_many(moves[:keep])
        self.out(f"Took back {' '.join(self.fmt(m) for m in moves[keep:])}.")
        self.show_board()

    def hint(self) -> None:
        if self.over:
            self.out("No hint: the game is over.")
            return
        if self.state.to_play != self.human:
            self.out("No hint: it is not your move.")
            return
        solved = self._solved()
        if solved is not None:
            score, move, _ = solved
            self.out(f"Hint: {self.fmt(move)} (solved exactly: {self._solved_text(score, 'you')}).")
            return
        result = self._search(self.state, self.hint_searcher())
        self.report_notes(result)
        # the recommended move first: in a lost position the search picks the longest proven
        # loss, which need not be the most visited move
        best = int(result.best_move)
        shown = sorted(result.moves, key=lambda s: int(s.move) != best)[:3]
        top = ", ".join(f"{self.fmt(s.move)} ({_count(s.visits, 'visit')}, {100 * (s.q + 1) / 2:.0f}%)"
                        for s in shown)
        self.out(f"Hint: {self.fmt(int(result.best_move))}. Top moves (visits, your win rate): {top}. "
                 f"Best line: {' '.join(self.fmt(m) for m in result.pv[:8])}")

    def start(self) -> None:
        """Print the first board; the engine moves first when it plays Black."""
        self.show_board()
        if self.state.to_play != self.human and not self.over:
            self.engine_move()


def warm_up_with_note(out: Callable[[str], None], engine: Engine | None = None,
                      grace_seconds: float = 2.0) -> None:
    """Compile the search (in a thread, so Ctrl-C still works); say why when it takes a while.

    With ``engine``, also the kernels its own game and evaluator specialise (``Engine.warm_up``),
    so that the first move's search time is the search's, not a silent compile's. A warm-up that
    lasts past ``grace_seconds`` (a cold numba cache: minutes of CPU on a busy machine) prints a
    line per compile stage as it starts and ends, as ``make venv`` does, instead of one line and
    then silence."""
    from zeroplay.engine.factory import warm_up, warm_up_stages

    errors: list[BaseException] = []
    lines: queue.SimpleQueue[str] = queue.SimpleQueue()

    def work():
        try:
            # the engine's own stage is counted in the numbering (a new user saw "2/2" and then
            # waited on a third, unnumbered stage)
            ours = 1 if engine is not None else 0
            warm_up(lines.put, more_stages=ours)
            if engine is not None:
                n = len(warm_up_stages()) + 1
                stage = f"compiling or loading {n}/{n}"
                lines.put(f"{stage}: the kernels of this game and engine ...")
                engine.warm_up()
                lines.put(f"{stage}: the kernels of this game and engine done")
        except BaseException as e:  # reported below in the main thread
            errors.append(e)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(grace_seconds)
    if thread.is_alive():
        out("Loading the search (numba compiles it the first time, then caches it on disk; "
            "a few minutes of CPU)...")
        while thread.is_alive() or not lines.empty():
            try:
                out("  " + lines.get(timeout=0.2))
            except queue.Empty:
                pass
    if errors:
        raise errors[0]


def model_game(model) -> dict | None:
    """``{"name": ..., "options": {...}}`` of the checkpoint ``model`` (a path or a shipped name),
    read from its header; None without a model or when it does not read (loading it then says
    why)."""
    if model is None:
        return None
    from zeroplay.engine.factory import resolve_model
    from zeroplay.nn.record import CheckpointError, checkpoint_game

    try:
        name, options = checkpoint_game(resolve_model(str(model)))
    except (CheckpointError, OSError):
        return None
    return {"name": name, "options": options}


_model_game = model_game  # the older private name


def game_settings(model_info: dict | None, game: str | None = None, size: int | None = None,
                  n_in_row: int | None = None, rule: str | None = None) -> tuple[str, int | None, int | None, str | None]:
    """``(game, size, n_in_row, rule)`` to play: those not given come from the model's game
    (``model_game``; a size-specific net names its board), else the defaults: gomoku 15x15
    free-style, five in a row (4 on 6x6: ``engine.default_n_in_row``). For a game other than
    Gomoku the Gomoku options stay as given (None unless given; the caller refuses them).
    ``zeroplay play`` and the web board (``zeroplay serve``) both choose with it."""
    from zeroplay.engine.factory import default_n_in_row
    from zeroplay.games import option_names

    name = game or (model_info or {}).get("name") or "gomoku"
    if "n_in_row" not in option_names(name):  # a game without the board options
        return name, size, n_in_row, rule
    opts = model_info["options"] if model_info and model_info["name"] == name else {}
    if size is None:
        size = opts.get("width", 15) if opts.get("width") == opts.get("height") else 15
    rule = rule or opts.get("rule", "freestyle")
    if n_in_row is None:
        n_in_row = opts["n_in_row"] if opts.get("width") == size and "n_in_row" in opts else default_n_in_row(size)
    return name, size, n_in_row, rule


def run(args, inp: Callable[[str], str] = input, out: Callable[[str], None] = print) -> int:
    """``zeroplay play``: returns the exit status (0; 2 for bad options)."""
    from zeroplay.engine.factory import fitting_models, make_engine
    from zeroplay.games import make, option_names

    try:
        # options not given come from --model's game, else the defaults (game_settings)
        name, size, n_in_row, rule = game_settings(
            model_game(args.model), getattr(args, "game", None), getattr(args, "size", None),
            getattr(args, "n_in_row", None), getattr(args, "rule", None))
        # the options this game takes pass on (make checks them); the others are refused
        takes = option_names(name)
        options = {key: value for key, value in (("size", size), ("n_in_row", n_in_row), ("rule", rule))
                   if value is not None}
        refused = ["--" + key.replace("_", "-") for key in options if key not in takes]
        if refused:
            raise ValueError(f"{', '.join(refused)}: Gomoku options; {name} has none")
        if getattr(args, "komi", None) is not None:
            if "komi" not in takes:
                raise ValueError(f"--komi: a Go option; {name} has none")
            options["komi"] = args.komi
        game = make(name, **options)
        engine = make_engine(game, args.model)
    except ValueError as e:
        from zeroplay.engine.options import option_words

        print(f"zeroplay play: error: {option_words(str(e))}", file=sys.stderr)
        return 2
    human = COLOURS.index(args.color)
    try:
        out(f"zeroplay -- {describe(game)}. You play {side_names(game)[human]}. "
            f"Engine: {engine.name}, {_limits_text(args)} per move.")
        if engine.note and engine.model_path is not None:
            out(f"Note: {engine.note}")
        elif engine.note:
            fits = fitting_models(game)
            out(f"Note: {engine.note} Pass --model PATH to use a checkpoint"
                + (f", or --model {fits[0]} to play a shipped one." if fits else "."))
        out(help_text(game))
        details = game.score_details(game.initial())
        if details is not None:  # Go: the rules the game is counted by
            out(f"Rules: {details['scoring']} scoring, komi {details['komi']:g}, {details['ko']} ko; two passes "
                "end the game and it is counted (no dead-stone removal: capture what is dead).")
        warm_up_with_note(out, engine)
        import numpy as np

        rng = None if getattr(args, "deterministic", True) else np.random.default_rng(getattr(args, "seed", None))
        session = TerminalGame(game, engine, human, playouts=args.playouts, seconds=args.seconds, out=out, rng=rng,
                               resign=getattr(args, "resign", True))
        session.start()
        while not session.quit:
            try:
                line = inp(session.prompt())
            except EOFError:
                out("")
                break
            session.handle(line)
    except KeyboardInterrupt:
        out("")
    out("Bye.")
    return 0


def _limits_text(args) -> str:
    parts = []
    if args.playouts is not None:
        parts.append(f"{args.playouts:,} playouts")
    if args.seconds is not None:
        parts.append(f"{args.seconds:g} s")
    return " or ".join(parts) if parts else f"{PLAY_PLAYOUTS:,} playouts"


def _count(n: int, one: str, many: str | None = None) -> str:
    """``1 playout``, ``1,000 playouts``."""
    return f"{n:,} {one if n == 1 else (many or one + 's')}"
