"""``zeroplay gtp`` / ``gtp-zeroplay``: Go over GTP v2 (Go Text Protocol 2.0, G. Farnebäck), for
Sabaki, GoGui (twogtp), Lizzie, KGS clients and GNU Go matches.

Commands: the required set (``protocol_version name version known_command list_commands quit
boardsize clear_board komi play genmove``), ``undo showboard time_settings time_left final_score
final_status_list fixed_handicap place_free_handicap set_free_handicap kgs-genmove_cleanup
loadsgf`` (GTP 2.0 section 6.3.5; answers the colour to move, as GNU Go does), ``printsgf`` (GNU
Go's: the game so far as SGF, ``games.go.sgf``), and the analysis commands of GUIs: ``lz-analyze``
/ ``analyze`` (Leela Zero's lines: win rate and prior in 1/100 %), ``kata-analyze`` (KataGo's:
fractions; the score fields where the engine estimates the score: flat Monte-Carlo, and a net with
a score head, whose estimate of the position after each listed move they show; ``ownership
true`` adds an ownership map: where the net has an ownership head, the network's maps of the root
and of its most visited moves' positions averaged by visits, so it follows the search (KataGo's
tree average, to depth one: ``gtp_ownership``); else random playouts' map of the position,
computed once; ``pvVisits``, ``pvEdgeVisits``, ``rootInfo``, and with a net's ownership head
``movesOwnership`` and ``ownershipStdev``, as KataGo prints them), ``genmove_analyze`` /
``lz-genmove_analyze`` / ``kata-genmove_analyze`` (their colour optional, as in KataGo);
KataGo's ``get_komi``, ``clear_cache`` and ``stop``, GoGui's ``cputime`` and KGS's
``kgs-time_settings`` (``none``, ``absolute``, ``byoyomi``: Japanese, ``canadian``);
``maxmoves N`` limits a line to the N best moves. Arguments parse as KataGo parses them
(``gtp_text.parse_analysis``): an unknown key, a missing value or one out of range is answered
``? syntax error: ...`` and starts nothing; ``avoid`` / ``allow`` are refused (not supported).
An analysis answers ``=`` at once, then an
``info ...`` line every interval (centiseconds, default 100, decimals taken) until the next command
or an empty line arrives, then the empty line that ends the reply; a search that ends by itself
(the root proven, full tables that cannot be recycled) waits for that too. After the two passes
that end a game, an analysis without a colour analyses the position with the side to move
playing on (as one with a colour does).

Protocol (GTP 2.0 section 3): control characters other than tab and newline are dropped, tabs
become spaces, ``#`` starts a comment, empty lines are ignored, an optional numeric id comes
back in the reply; every reply is ``=[id] text`` or ``?[id] message`` and ends with an empty
line. Nothing else reaches stdout (file descriptor 1 points at stderr; replies go to a private
copy of it). Vertices skip the letter I, rows count from the bottom; ``genmove`` may answer
``pass`` or ``resign``. Moves out of turn (``play b`` twice), and moves after the two passes that
end a game (KGS's dead-stone settling), are accepted: the stones are set up again with that colour
to move (its ko history starts there; the prisoners are kept), and ``printsgf`` writes them as
moves of that colour (``loadsgf`` reads them back so). Every accepted ``play`` / ``genmove``, passes and moves out of turn included, is
one ``undo`` step, as in GNU Go 3.8 and KataGo; handicap stones and a ``loadsgf`` position are the
start of the game, and ``undo`` with nothing to take back answers ``? cannot undo``.

The engine (named on stderr at start and in ``version``): the compiled PUCT search
(``zeroplay.search``) with a Go network's priors and values -- ``--model``, else the shipped model
that is the default of the board's setting (``go-9x9`` on 9x9 with area scoring), followed through
``boardsize`` / ``komi`` -- or, where none is, with Go priors and random-rollout leaves; or, with
``--engine flat``, flat Monte-Carlo (``zeroplay.engine.go_montecarlo``).
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
import traceback
from typing import Any

import numpy as np

from zeroplay import __version__
from zeroplay.play.gtp_text import (
    COLORS,
    MAX_LINE,
    AnalysisArgs,
    GtpFailure,
    clean_line,
    decimal,
    handicap_points,
    info_line,
    is_count,
    parse_analysis,
    root_info,
)
from zeroplay.play.gtp_time import DEFAULT_MAX_MOVE_SECONDS, TimeControl, TimeError

MAX_ANALYSIS_PLAYOUTS = 100_000_000
"""Playouts after which an analysis stops by itself (the root statistics stay a few arrays)."""
ANALYSIS_IDLE_POLL_S = 0.01
"""How often an analysis whose search has ended looks for the next command (seconds)."""
OWNERSHIP_PLAYOUTS = 400
"""Random games behind ``kata-analyze ... ownership true``'s map (about 0.07 s on 19x19)."""
REQUIRED = ("protocol_version", "name", "version", "known_command", "list_commands", "quit", "boardsize",
            "clear_board", "komi", "play", "genmove")
MAX_SGF_BYTES = 1 << 20
"""Largest SGF file ``loadsgf`` reads (1 MiB: a 19x19 game is a few KB)."""


class GtpSession:
    """One GTP conversation: the game, its history, the engine, time controls.

    Args:
        write: called with each piece of reply text (already ``\\n``-terminated).
        interrupted: anything with ``is_set()`` (a ``threading.Event``), true when a new command is
            waiting: it ends an analysis.
        size, komi, ko, suicide, scoring: the game at start (``boardsize`` / ``komi`` change them).
        playouts: per ``genmove`` without time controls; seconds: fixed seconds per move instead.
        max_seconds: the most seconds any move thinks, whatever ``time_settings`` / ``time_left``
            say (``gtp_time``; ``seconds`` must not exceed it).
        engine: an object with ``name``, ``think`` and ``choose``; default by ``engine_kind``:
            ``"search"`` the PUCT search (``engine.go_search``) with ``model``'s network, or with Go
            priors and random-rollout leaves when ``model`` is None; ``"flat"`` flat Monte-Carlo
            (``engine.go_montecarlo``, no model).
        model: a checked Go checkpoint path for the ``"search"`` engine, or None.
        shipped_default: with ``model`` None, each board is played by the shipped Go model that is
            its setting's default, where one is (``PuctRollout``): ``boardsize 13`` in a session
            started on 9x9 plays as ``zeroplay gtp --size 13`` does.
    """

    def __init__(self, write, *, interrupted: Any = None, size: int = 9, komi: float = 7.5,
                 ko: str = "simple", suicide: str = "off", scoring: str = "area", playouts: int = 2000,
                 seconds: float | None = None, max_seconds: float = DEFAULT_MAX_MOVE_SECONDS, engine=None,
                 engine_kind: str = "search", log=None, model: str | None = None, shipped_default: bool = False):
        from zeroplay.engine.go_montecarlo import FlatMonteCarlo
        from zeroplay.engine.go_search import PuctRollout
        from zeroplay.play.terminal import MEMORY_BYTES

        self.write = write
        self.interrupted = interrupted or threading.Event()
        self._last_info: str | None = None  # the analysis line last written (not written twice)
        self._asked = AnalysisArgs()  # the running analysis's arguments (`maxmoves N`, KataGo's booleans)
        self._told_no_head = False  # the note that movesOwnership / ownershipStdev need a net's head
        self._scores: Any = None  # the running kata analysis's gtp_ownership.ChildScores, if the net has the head
        self.rules = {"ko": ko, "suicide": suicide, "scoring": scoring}
        self.playouts = int(playouts)
        self.seconds = seconds
        if engine is None:
            if engine_kind not in ("search", "flat"):
                raise ValueError(f"engine must be search or flat, got {engine_kind!r}")
            if (model is not None or shipped_default) and engine_kind != "search":
                raise ValueError("a model plays with the search engine (--engine search), not flat Monte-Carlo")
            # tables sized as zeroplay play sizes its own: for the playouts, or to a memory budget
            # when moves are timed by --seconds, or from the first move time controls time
            memory = MEMORY_BYTES if seconds is not None else None
            engine = PuctRollout(self.playouts, memory_bytes=memory, timed_memory_bytes=MEMORY_BYTES, model=model,
                                 shipped_default=shipped_default) \
                if engine_kind == "search" else FlatMonteCarlo(self.playouts)
        self.engine = engine
        self.log = log or sys.stderr
        self.clock = TimeControl(max_seconds)
        if seconds is not None and not 0 < seconds <= self.clock.max_seconds:
            raise ValueError(f"seconds per move must be in (0, {self.clock.max_seconds:g}] (the cap "
                             f"--max-seconds), got {seconds}")
        self._new_game(size, komi)
        self.commands = {name[4:].replace("__", "-"): getattr(self, name) for name in dir(self)
                         if name.startswith("cmd_")}

    # --- game and history -------------------------------------------------------------------
    # ``events`` and ``states`` run in step: states[i + 1] is states[i] after events[i]. An event
    # is ("move", action, color) -- one accepted ``play`` / ``genmove``, so one ``undo`` step, as
    # in GNU Go and KataGo -- or ("setup", black, white, to_play) (handicap stones, ``loadsgf``):
    # the start of the game, which ``undo`` does not take back. A move out of turn, or after the
    # two passes that end a game, is played from the same stones set up with its colour to move
    # (its ko history starts there), inside its own event: undoing it undoes the set-up too.
    def _new_game(self, size: int, komi: float) -> None:
        from zeroplay.games import make

        self.game: Any = make("go", size=size, komi=komi, **self.rules)  # a Go game (from_stones, rules)
        if hasattr(self.engine, "note_board"):  # PuctRollout: which model plays this board, told now
            self.engine.board = self.game
            self.engine.note_board(self.game)
        self.events: list = []
        self.states = [self.game.initial()]

    @property
    def state(self):
        return self.states[-1]

    def _to_move(self, state, color: int):
        """``state``, or its stones set up with ``color`` to move when it is not (or the game has
        ended): the prisoners are kept, as GNU Go and KataGo keep them."""
        if state.to_play != color or state.is_terminal:
            return self.game.from_stones(state.stones(0), state.stones(1), to_play=color,
                                         prisoners=self.game.prisoners(state))
        return state

    def _push(self, event) -> None:
        """Append ``event`` and its position; raises ValueError (and changes nothing) when it is
        illegal."""
        if event[0] == "move":
            s = self._to_move(self.state, event[2]).play(event[1])
        else:
            s = self.game.from_stones(event[1], event[2], to_play=event[3])
        self.events.append(event)
        self.states.append(s)

    def _replay(self, size: int, komi: float) -> None:
        events = self.events
        self._new_game(size, komi)
        for e in events:
            self._push(e)

    # --- parsing ----------------------------------------------------------------------------
    @staticmethod
    def _color(text: str) -> int:
        c = COLORS.get(text.lower())
        if c is None:
            raise GtpFailure("invalid color")
        return c

    def _vertex(self, text: str) -> int:
        try:
            return self.game.parse_move(text)
        except ValueError:
            raise GtpFailure("invalid vertex") from None

    # --- commands ---------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Answer one raw input line; False after ``quit``."""
        if len(line) > MAX_LINE:
            self.write("? line too long\n\n")
            return True
        text = clean_line(line)
        if not text:
            return True
        words = text.split()
        ident = ""
        if is_count(words[0]):
            ident = words.pop(0)
            if not words:
                self.write(f"?{ident} missing command\n\n")
                return True
        name, args = words[0], words[1:]
        method = self.commands.get(name)
        if method is None:
            self.write(f"?{ident} unknown command\n\n")
            return True
        try:
            reply = method(args, ident)
        except GtpFailure as e:
            self.write(f"?{ident} {e}\n\n")
            return True
        except Exception as e:  # never let a command take the engine down
            traceback.print_exc(file=self.log)
            self.write(f"?{ident} internal error: {type(e).__name__}\n\n")
            return True
        if reply is not None:  # streaming commands write their own reply
            self.write(f"={ident} {reply}".rstrip(" ") + "\n\n")
        return name != "quit"

    def cmd_protocol_version(self, args, ident):
        return "2"

    def cmd_name(self, args, ident):
        return "zeroplay"

    def cmd_version(self, args, ident):
        return f"{__version__} ({self.engine.name})"

    def cmd_known_command(self, args, ident):
        if len(args) != 1:
            raise GtpFailure("syntax error")
        return "true" if args[0] in self.commands else "false"

    def cmd_list_commands(self, args, ident):
        return "\n".join(sorted(self.commands))

    def cmd_quit(self, args, ident):
        return ""

    def cmd_boardsize(self, args, ident):
        if len(args) != 1 or not is_count(args[0]):
            raise GtpFailure("syntax error")
        from zeroplay.games.go.game import MAX_SIZE, MIN_SIZE

        size = int(args[0])
        if not MIN_SIZE <= size <= MAX_SIZE:  # the rules' sizes (Go.board_sizes is a person's choice)
            raise GtpFailure("unacceptable size")
        self._new_game(size, self.game.rules.komi)
        return ""

    def cmd_clear_board(self, args, ident):
        self._new_game(self.game.width, self.game.rules.komi)
        return ""

    def cmd_komi(self, args, ident):
        komi = decimal(args[0]) if len(args) == 1 else None  # (float() read "7_5" as 75)
        if komi is None:
            raise GtpFailure("syntax error")
        if not -150 <= komi <= 150:  # before doubling: komi 1e308 would overflow round()
            raise GtpFailure("komi out of range")
        if komi * 2 != round(komi * 2):  # refused as --komi is, not rounded (0.3 was stored as 0.5)
            raise GtpFailure("komi must be a multiple of 0.5")
        self._replay(self.game.width, komi)
        return ""

    def cmd_play(self, args, ident):
        if len(args) != 2:
            raise GtpFailure("syntax error")
        color = self._color(args[0])
        action = self._vertex(args[1])
        try:
            self._push(("move", action, color))
        except ValueError:
            raise GtpFailure("illegal move") from None
        return ""

    def _think(self, state, *, seconds=None, interval=None, analysis=None, until_interrupted=False,
               ownership=None):
        """The engine's root statistics: for ``seconds``, else ``self.playouts`` playouts, or
        (``until_interrupted``) until the next command, at most ``MAX_ANALYSIS_PLAYOUTS``;
        ``info`` lines of style ``analysis`` (with ``ownership``, ``info_line``'s) every
        ``interval`` centiseconds."""
        progress = None
        self._last_info = None
        if analysis is not None:
            def progress(stats):
                self._write_info(state, stats, analysis, ownership)
        if until_interrupted:
            playouts = MAX_ANALYSIS_PLAYOUTS
        else:
            playouts = None if seconds else self.playouts
        return self.engine.think(state, playouts=playouts, seconds=seconds, on_progress=progress,
                                 progress_every_s=(interval or 100) / 100,
                                 stop=self.interrupted if until_interrupted else None)

    def _write_info(self, state, stats, style: str, ownership=None) -> None:
        """The ``info`` line of ``stats``; nothing for no statistics (an analysis stopped before
        its first playout): an empty line would end the reply early, nor for a line the last one
        said (the figures at the stop, when the last report was made after the last playout)."""
        if not stats:
            return
        asked = self._asked
        # over all moves: maxmoves only cuts the list
        owner = None if ownership is None or not asked.ownership else ownership.at(stats)
        spread = None if ownership is None or not asked.ownership_stdev else ownership.stdev(stats)
        every = stats
        if asked.max_moves is not None:  # KataGo's `maxmoves N`: the N best (0: no move parts)
            stats = stats[:asked.max_moves]
        if self._scores is not None:  # the listed moves' score fields (each child's net once)
            stats = self._scores.apply(stats)
        root = None
        if asked.root_info:
            # the root's visits and win rate: the search's own (a proven root is won, whatever its
            # moves' mean) where it keeps them, else over every move; its score over the listed
            # moves' (the rest have none)
            last = getattr(self.engine, "last", None)
            known = None
            if last is not None and getattr(last, "root_visits", 0) > 0:
                known = (int(last.root_visits), float(last.win_rate))
            root = root_info(stats + every[len(stats):], known)
        line = info_line(state, stats, style, owner, pv_visits=asked.pv_visits, pv_edge_visits=asked.pv_edge_visits,
                         moves_ownership=ownership.move_map if ownership is not None and asked.moves_ownership else None,
                         root=root, ownership_stdev=spread)
        if not line:  # `maxmoves 0` without a root field or map: nothing to say
            return
        # a line the last one already said: the stop's figures, or a report slice that ran no
        # playout (shorter than one batch, the slices then grow: a reused tree has lines from the
        # first slice) printed the same line twice (helper-58)
        if line != self._last_info:
            self.write(line + "\n")
        self._last_info = line

    def _child_scores(self, state, *, kata: bool):
        """``gtp_ownership.ChildScores`` of ``state`` for a ``kata-`` analysis where the engine's
        net has a score head (``PuctRollout.scores``: the shipped ``go-9x9``); else None (flat
        Monte-Carlo sets its own score fields)."""
        net = getattr(self.engine, "scores", None)
        if not kata or net is None or net([state])[0] is None:
            return None
        from zeroplay.play.gtp_ownership import ChildScores

        return ChildScores(state, net)

    def _ownership(self, state, asked: AnalysisArgs):
        """For KataGo's ``ownership true`` (and ``ownershipStdev``, ``movesOwnership``): a
        ``gtp_ownership.SearchOwnership`` of ``state`` (its maps from the side to move's view, +1:
        it owns the point at the end, top-left first), or None when none is asked. Where the
        engine's net has an ownership head (``PuctRollout.ownership``: the shipped ``go-9x9``)
        the map follows the search, averaged over the root and its most visited moves; else it
        is the mean over
        ``OWNERSHIP_PLAYOUTS`` random games from ``state`` (``go_montecarlo.ownership``, what
        ``final_status_list`` uses), computed once."""
        if not (asked.ownership or asked.ownership_stdev or asked.moves_ownership):
            return None
        from zeroplay.play.gtp_ownership import SearchOwnership

        net = getattr(self.engine, "ownership", None)
        own = net(state) if net is not None else None
        if own is not None:
            return SearchOwnership(state, own, net)
        if (asked.moves_ownership or asked.ownership_stdev) and not self._told_no_head:
            # KataGo prints what it is asked; a GUI waiting for these maps is told why they stay out
            print("zeroplay gtp: movesOwnership and ownershipStdev need a network with an ownership head "
                  "(the shipped go-9x9 has one); this engine has none, so they are left out", file=self.log, flush=True)
            self._told_no_head = True
        from zeroplay.engine.go_montecarlo import ownership

        black = ownership(state, OWNERSHIP_PLAYOUTS)
        return SearchOwnership(state, black if state.to_play == 0 else -black)

    def _genmove(self, args, ident, *, cleanup=False, analysis=None):
        interval = None
        if analysis:
            parsed = parse_analysis(args, kata=analysis == "kata")  # before `=`: a bad one fails
            color = self.state.to_play if parsed.color is None else parsed.color  # optional (KataGo)
            interval = parsed.interval
        elif not args:
            raise GtpFailure("syntax error")
        else:
            color = self._color(args[0])
        state = self._to_move(self.state, color)
        owner = None
        if analysis:
            self.write(f"={ident}\n")
            owner = self._ownership(state, parsed)
            self._asked = parsed
            self._scores = self._child_scores(state, kata=analysis == "kata")
        seconds = self._move_seconds(color)
        stats = self._think(state, seconds=seconds, interval=interval, analysis=analysis, ownership=owner)
        if cleanup and len(stats) > 1:
            stats = [s for s in stats if s.move != self.game.pass_action] or stats
        move = self.engine.choose(state, stats)
        if analysis:
            self._write_info(state, stats, analysis, owner)
        text = "resign" if move is None else self.game.format_move(move)
        if move is not None:
            self._push(("move", move, color))
        if analysis:
            self.write(f"play {text}\n\n")
            return None
        return text

    def cmd_genmove(self, args, ident):
        return self._genmove(args, ident)

    def cmd_kgs__genmove_cleanup(self, args, ident):
        return self._genmove(args, ident, cleanup=True)

    def cmd_genmove_analyze(self, args, ident):
        return self._genmove(args, ident, analysis="lz")

    def cmd_lz__genmove_analyze(self, args, ident):
        return self._genmove(args, ident, analysis="lz")

    def cmd_kata__genmove_analyze(self, args, ident):
        return self._genmove(args, ident, analysis="kata")

    def cmd_undo(self, args, ident):
        if not self.events or self.events[-1][0] != "move":
            raise GtpFailure("cannot undo")
        self.events.pop()
        self.states.pop()
        return ""

    def cmd_get_komi(self, args, ident):  # KataGo's
        return f"{self.game.rules.komi:g}"

    def cmd_clear_cache(self, args, ident):
        """KataGo's: forget the search tree (and with it the net's cached evaluations), so that
        the next search starts afresh."""
        clear = getattr(self.engine, "clear_cache", None)
        if clear is not None:
            clear()
        return ""

    def cmd_stop(self, args, ident):
        """KataGo's: halt an analysis. Any command does (the reader sets ``interrupted`` on every
        line), so there is nothing left to stop by the time this one runs."""
        return ""

    def cmd_cputime(self, args, ident):
        """GoGui's: CPU seconds this process has used (twogtp records them per game)."""
        return f"{time.process_time():.3f}"

    def cmd_showboard(self, args, ident):
        return "\n" + self.game.render(self.state)

    def cmd_time_settings(self, args, ident):
        return self._set_clock(self.clock.parse_settings, args)

    def cmd_kgs__time_settings(self, args, ident):
        return self._set_clock(self.clock.parse_kgs_settings, args)

    @staticmethod
    def _set_clock(parse, args) -> str:
        try:
            parse(args)
        except TimeError as e:
            raise GtpFailure(f"syntax error: {e}") from None
        return ""

    def cmd_time_left(self, args, ident):
        if not args:
            raise GtpFailure("syntax error")
        color = self._color(args[0])
        try:
            self.clock.parse_left(color, args[1:])
        except TimeError as e:
            raise GtpFailure(f"syntax error: {e}") from None
        return ""

    def _move_seconds(self, color: int) -> float | None:
        """Seconds for this move: ``--seconds``; else from the time controls (``gtp_time``: at
        most ``--max-seconds``), None for playouts instead."""
        if self.seconds:
            return self.seconds
        return self.clock.move_seconds(color)

    def _status(self, state) -> tuple[list[int], list[int]]:
        """(dead stones, stones in seki), sorted cells, by 400 random games that keep a seki
        (``go_montecarlo.ownership_and_seki``): a stone is dead when its point ends the
        opponent's in most games, in seki when it ends most games alive beside shared liberties."""
        from zeroplay.engine.go_montecarlo import ownership_and_seki

        if state.ply == 0 and not state.stones(0).size and not state.stones(1).size:
            return [], []
        owner, seki = ownership_and_seki(state, 400)
        dead = [int(c) for c in state.stones(0) if owner[c] < 0]
        dead += [int(c) for c in state.stones(1) if owner[c] > 0]
        alive = [int(c) for c in (*state.stones(0), *state.stones(1)) if int(c) not in set(dead)]
        return sorted(dead), sorted(c for c in alive if seki[c] > 0.5)

    def cmd_final_score(self, args, ident):
        state = self.state
        dead, seki = self._status(state)
        black = [int(c) for c in state.stones(0) if c not in dead]
        white = [int(c) for c in state.stones(1) if c not in dead]
        clean = self.game.from_stones(black, white)
        score = self.game.score(clean)
        if self.game.rules.scoring == "territory":
            caps = self.game.prisoners(state)
            dead_black = sum(1 for c in dead if state.board.flat[c] == 1)
            score += caps[0] + (len(dead) - dead_black) - caps[1] - dead_black
            black_eyes, white_eyes = self._seki_eyes(clean, set(seki))
            score -= black_eyes - white_eyes  # Japanese rules: an eye in seki is no one's
        return "0" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):g}"

    def _seki_eyes(self, clean, seki: set[int]) -> tuple[int, int]:
        """Points of Black's and of White's empty regions in ``clean`` (dead stones removed) whose
        every bordering stone is in ``seki``: territory under area counting, no one's under
        territory counting."""
        eyes = [0, 0]
        for region, reaches, border in self.game.empty_regions(clean.board.ravel()):
            if reaches in (1, 2) and border <= seki:
                eyes[reaches - 1] += len(region)
        return eyes[0], eyes[1]

    def cmd_final_status_list(self, args, ident):
        if len(args) != 1 or args[0] not in ("alive", "dead", "seki"):
            raise GtpFailure("syntax error")
        state = self.state
        dead, seki = self._status(state)
        if args[0] == "alive":  # the three lists part the stones, as GNU Go's do
            other = set(dead) | set(seki)
            chosen = [int(c) for c in np.flatnonzero(state.board.ravel()) if int(c) not in other]
        else:
            chosen = dead if args[0] == "dead" else seki
        return "\n".join(self.game.format_move(c) for c in chosen)

    def _place_handicap(self, vertices: list[str]) -> None:
        if self.state.board.any():
            raise GtpFailure("board not empty")
        if self.events:
            # passes alone so far (a capture always leaves its capturer's stone): the handicap
            # starts the game afresh, as in GNU Go, whose test is the stones on the board
            del self.events[:]
            del self.states[1:]
        cells = [self._vertex(v) for v in vertices]
        if len(set(cells)) != len(cells) or self.game.pass_action in cells or len(cells) < 2:
            raise GtpFailure("bad vertex list")
        if len(cells) >= self.game.cells:
            raise GtpFailure("bad vertex list")
        try:
            self._push(("setup", cells, [], 1))
        except ValueError:
            raise GtpFailure("bad vertex list") from None

    def cmd_fixed_handicap(self, args, ident):
        if len(args) != 1 or not is_count(args[0]):
            raise GtpFailure("syntax error")
        points = handicap_points(self.game.width, int(args[0]))
        self._place_handicap(points)
        return " ".join(points)

    def cmd_place_free_handicap(self, args, ident):
        if len(args) != 1 or not is_count(args[0]):
            raise GtpFailure("syntax error")
        n = int(args[0])
        try:
            points = handicap_points(self.game.width, n)
        except GtpFailure:
            if not 2 <= n < self.game.cells:
                raise
            order = np.random.default_rng(n).permutation(self.game.cells)[:n]
            points = [self.game.format_move(int(c)) for c in order]
        self._place_handicap(points)
        return " ".join(points)

    def cmd_set_free_handicap(self, args, ident):
        self._place_handicap(args)
        return ""

    # --- SGF --------------------------------------------------------------------------------
    def cmd_loadsgf(self, args, ident):
        """``loadsgf FILE [N]``: the record's set-up and moves (before move N, counted from 1);
        square boards only. A file that does not load leaves the game as it was."""
        from zeroplay.games.go.sgf import read_go_sgf

        if not 1 <= len(args) <= 2 or (len(args) == 2 and not is_count(args[1])):
            raise GtpFailure("syntax error")

        def cannot(reason: str) -> GtpFailure:
            # GTP's answer is GNU Go's words; the reason goes to stderr, where GTP allows notes
            print(f"loadsgf {args[0]}: {reason}", file=self.log, flush=True)
            return GtpFailure("cannot load file")

        try:
            with open(args[0], "rb") as f:
                data = f.read(MAX_SGF_BYTES + 1)
        except OSError as e:
            raise cannot(e.strerror or str(e)) from None
        if len(data) > MAX_SGF_BYTES:
            raise cannot(f"larger than {MAX_SGF_BYTES:,} bytes")
        try:
            # moves out of turn and after two passes are taken, as printsgf writes them
            record = read_go_sgf(data.decode("utf-8-sig", errors="replace"), any_order=True)  # a BOM is no SGF text
        except ValueError as e:
            raise cannot(str(e)) from None
        if record.width != record.height:
            raise cannot(f"the board is {record.width}x{record.height}; GTP boards are square")
        count = max(int(args[1]) - 1, 0) if len(args) == 2 else len(record.moves)
        moves = list(zip(record.moves, record.colors or []))[:count]
        saved = self.game, self.events, self.states
        try:
            self._new_game(record.width, record.komi)
            if record.black_setup or record.white_setup or record.to_play:
                self._push(("setup", record.black_setup, record.white_setup, record.to_play))
            for number, (m, color) in enumerate(moves, start=1):
                try:
                    self._push(("move", m, color))
                except ValueError as e:
                    # the rules name the move by its action number ("move 20: C7 is occupied")
                    raise ValueError(f"move {number}: {str(e).split(': ', 1)[-1]}") from None
        except ValueError as e:
            self.game, self.events, self.states = saved
            raise cannot(str(e)) from None
        return "white" if self.state.to_play else "black"

    def cmd_printsgf(self, args, ident):
        """The game so far as SGF (GNU Go's ``printsgf`` without a file: the text is the reply)."""
        from zeroplay.games.go.sgf import GoRecord, write_go_sgf

        if args:
            raise GtpFailure("printsgf writes no files here: give no argument")
        # the game from its start (or its last handicap / loadsgf set-up): every move, passes,
        # moves out of turn and moves after two passes included, each with its colour
        start = max((i for i, e in enumerate(self.events) if e[0] == "setup"), default=-1)
        moves = self.events[start + 1:]
        g = self.game
        record = GoRecord(g.width, g.height, g.rules.komi, rules=g.rules.scoring, moves=[e[1] for e in moves],
                          colors=[e[2] for e in moves])
        if start >= 0:
            set_up = self.states[start + 1]
            record.black_setup = [int(c) for c in set_up.stones(0)]
            record.white_setup = [int(c) for c in set_up.stones(1)]
            record.to_play = set_up.to_play
        if self.state.is_terminal:
            record.result = g.result_text(self.state)
        return "\n" + write_go_sgf(record).rstrip("\n")

    # --- analysis ---------------------------------------------------------------------------
    def _analyze(self, args, ident, style):
        parsed = parse_analysis(args, kata=style == "kata")  # before `=`: a bad one fails
        state = self.state
        if parsed.color is not None:
            state = self._to_move(state, parsed.color)
        elif state.is_terminal:  # two passes ended it: the side to move plays on, as with a colour
            state = self._to_move(state, state.to_play)
        self.write(f"={ident}\n")
        if not state.is_terminal:
            owner = self._ownership(state, parsed)
            self._asked = parsed
            self._scores = self._child_scores(state, kata=style == "kata")
            stats = self._think(state, interval=parsed.interval, analysis=style, until_interrupted=True, ownership=owner)
            # the figures at the stop, also for an analysis shorter than its interval
            self._write_info(state, stats, style, owner)
        # a search that ended by itself (the root proven, the playout cap) still ends its reply
        # only at the next command or newline, as KataGo's and Leela Zero's do: a GUI takes an
        # early end for a failed engine
        while not self.interrupted.is_set():
            time.sleep(ANALYSIS_IDLE_POLL_S)
        self.write("\n")
        return None

    def cmd_lz__analyze(self, args, ident):
        return self._analyze(args, ident, "lz")

    def cmd_analyze(self, args, ident):
        return self._analyze(args, ident, "lz")

    def cmd_kata__analyze(self, args, ident):
        return self._analyze(args, ident, "kata")


class _Waiting:
    """``is_set()`` while a command waits in ``lines``: what ends an analysis (an Event cleared
    and set by two threads would race)."""

    def __init__(self, lines: queue.Queue):
        self.lines = lines

    def is_set(self) -> bool:
        return not self.lines.empty()


def serve(stdin, write, *, warm_up: bool = True, **options) -> int:
    """Read commands from ``stdin`` (a text stream) until ``quit`` or end of input.

    With ``warm_up`` the engine's compiled search is loaded (compiled on a cold numba cache:
    minutes of CPU) before the first command is read, with notes on stderr (stdout is GTP's),
    as ``zeroplay analyze`` and the Gomocup engine do; a GUI's first ``genmove`` then searches
    for its own time instead of compiling."""
    import time

    from zeroplay.play.terminal import warm_up_with_note

    lines: queue.Queue = queue.Queue()
    session = GtpSession(write, interrupted=_Waiting(lines), **options)

    def note(text: str) -> None:
        print(f"zeroplay gtp: {text.strip()}", file=sys.stderr, flush=True)

    if warm_up:
        started = time.perf_counter()
        try:
            warm_up_with_note(note, session.engine)
            # the count's random games too: compiled at the first final_score, they took 19.8 s
            # on a fresh cache (helper-76), past a GUI's reply timeout
            from zeroplay.engine.go_montecarlo import ownership_and_seki

            ownership_and_seki(session.game.initial().play(0), 2)
            note(f"search loaded in {time.perf_counter() - started:.1f} s")
        except Exception as e:  # the first genmove then compiles (or says what is wrong)
            note(f"warm-up failed, the first genmove compiles instead: {type(e).__name__}: {e}")
    note(f"engine {session.engine.name}; "
         f"{f'{session.seconds:g} s' if session.seconds else f'{session.playouts} playouts'} a move "
         f"unless time controls say otherwise (at most {session.clock.max_seconds:g} s)")

    def reader():
        for line in stdin:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=reader, daemon=True).start()
    while True:
        line = lines.get()
        if line is None or not session.handle(line):
            return 0


def main(argv: list[str] | None = None) -> int:
    """``gtp-zeroplay``: the GTP engine on stdin/stdout."""
    import argparse

    parser = argparse.ArgumentParser(prog="gtp-zeroplay", description="Go engine speaking GTP v2 on stdin/stdout")
    add_gtp_arguments(parser)
    return run(parser.parse_args(argv))


def add_gtp_arguments(parser) -> None:
    """Options of ``zeroplay gtp`` and ``gtp-zeroplay``."""
    parser.add_argument("--size", type=int, default=9,
                        help="board size at start, any size the Go rules take (default 9)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi at start, points (default 7.5)")
    parser.add_argument("--ko", choices=["simple", "positional", "situational"], default="simple",
                        help="ko rule (default simple; positional/situational: superko)")
    parser.add_argument("--suicide", choices=["off", "multi"], default="off",
                        help="multi: multi-stone suicide is legal (default off)")
    parser.add_argument("--scoring", choices=["area", "territory"], default="area", help="default area")
    parser.add_argument("--playouts", type=int, default=2000,
                        help="playouts per move without time controls (default 2000)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="seconds per move (overrides playouts and time controls; at most --max-seconds)")
    parser.add_argument("--max-seconds", type=float, default=DEFAULT_MAX_MOVE_SECONDS,
                        help="the most seconds any move thinks, whatever time_settings / time_left say (a "
                             f"GUI's 'time_settings 1e308 0 0' would otherwise think for ages; default "
                             f"{DEFAULT_MAX_MOVE_SECONDS:g})")
    parser.add_argument("--engine", choices=["search", "flat"], default="search",
                        help="search: the PUCT search, with --model's network or Go priors and random-rollout "
                             "leaves (default); flat: flat Monte-Carlo, UCB1 over the root moves")
    parser.add_argument("--model", default=None,
                        help="a Go model (checkpoint path or shipped name) for the search's priors and values "
                             "on every board of the session (default: the shipped Go model that is the default of "
                             "each board's size and scoring, followed through boardsize, where one is: go-9x9 on "
                             "9x9 area scoring; elsewhere Go priors and rollouts); 'none' for no model")


def _start_model(args) -> str | None:
    """The checked checkpoint path ``--model`` names for the start board, the shipped default
    Go model of that board when none is named (and the flat engine is not asked for), or None.

    Raises:
        zeroplay.nn.CheckpointError: a named model that does not load for Go (a ValueError).
    """
    from zeroplay.engine.factory import check_model, find_model
    from zeroplay.games import make
    from zeroplay.nn.record import CheckpointError

    if args.model is not None and args.model.strip().lower() == "none":
        return None
    game = make("go", size=args.size, komi=args.komi, ko=args.ko, suicide=args.suicide, scoring=args.scoring)
    if args.model is None:
        found = find_model(game) if args.engine == "search" else None
        return None if found is None else str(found)
    if args.engine != "search":
        raise CheckpointError("a model plays with --engine search, not flat")
    return check_model(args.model, game)


def run(args) -> int:
    """Serve GTP with parsed ``args``: fd 1 to stderr, replies to a private copy of it."""
    from zeroplay.games.go.game import MAX_SIZE, MIN_SIZE  # here: the CLI's parser imports this module

    if not MIN_SIZE <= args.size <= MAX_SIZE:
        print(f"zeroplay gtp: error: --size must be in {MIN_SIZE}..{MAX_SIZE}, got {args.size}", file=sys.stderr)
        return 2
    if args.playouts < 1 or (args.seconds is not None and not args.seconds > 0):
        print("zeroplay gtp: error: --playouts must be >= 1 and --seconds > 0", file=sys.stderr)
        return 2
    if not (np.isfinite(args.max_seconds) and args.max_seconds > 0) or \
            (args.seconds is not None and args.seconds > args.max_seconds):
        print(f"zeroplay gtp: error: --max-seconds must be a finite number > 0 and --seconds at most it, got --max-seconds "
              f"{args.max_seconds:g}" + (f" --seconds {args.seconds:g}" if args.seconds is not None else ""),
              file=sys.stderr)
        return 2
    from zeroplay.nn.record import CheckpointError

    try:
        model = _start_model(args)
    except CheckpointError as e:  # no such file, not a Go model, damaged
        print(f"zeroplay gtp: error: --model: {e}", file=sys.stderr)
        return 2
    except ValueError as e:  # the start board's own options (a komi or rule the game refuses)
        print(f"zeroplay gtp: error: {e}", file=sys.stderr)
        return 2
    shipped_default = args.model is None and args.engine == "search"  # the session notes a board without one
    reply_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    replies = os.fdopen(reply_fd, "w", encoding="utf-8", newline="\n")

    def write(text: str) -> None:
        replies.write(text)
        replies.flush()

    stdin = open(sys.stdin.fileno(), encoding="utf-8", errors="replace", newline="", closefd=False)
    try:
        return serve(stdin, write, size=args.size, komi=args.komi, ko=args.ko, suicide=args.suicide,
                     scoring=args.scoring, playouts=args.playouts, seconds=args.seconds,
                     max_seconds=args.max_seconds, engine_kind=args.engine,
                     model=None if shipped_default else model, shipped_default=shipped_default)
    except ValueError as e:
        print(f"zeroplay gtp: error: {e}", file=sys.stderr)
        return 2
    except (BrokenPipeError, KeyboardInterrupt):
        return 0


if __name__ == "__main__":
    sys.exit(main())
