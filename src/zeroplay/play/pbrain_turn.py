"""The Gomocup engine's moves: the warm-up, the engines, the search within the turn, the
heuristic move when there is no time or no search.

``Turns`` is part of ``pbrain_engine.PbrainEngine`` (a mixin: the board, the settings and the
events it reads are set in ``PbrainEngine.__init__``).

Time (``pbrain_limits``): a budget under 0.02 s gets the heuristic move; ``timeout_turn 0`` asks for an
instant move (``FAST_PLAYOUTS`` playouts within ``FAST_SECONDS``, then the VCT guard's check, or
the heuristic move). The turn's clock starts when its command is read (``PbrainEngine.handle``):
the wait for the compiled search and the building of the search's tables count against it. Tree
reuse: the search keeps its tree between turns (a BOARD that continues the game finds its position
in it too); START, RESTART, TAKEBACK and a rule change start fresh. With the numpy net the search
gathers ``NUMPY_BATCH_SIZE`` leaves a round.

Warm-up: the compiled search takes about 20 s to compile the first time in a new environment
(cached on disk afterwards). The engine compiles it in a background thread from the moment it
starts; a move asked for before that is done comes from ``heuristic.quick_move`` (win in one,
block a win in one, else the best heuristic cell), computed in plain numpy within milliseconds.
Once the compiled search is loaded (about 2 s on an installed machine) the engine searches; the
warm-up then loads the 15x15 model and searches with it once (the kernels a network's priors
specialise), and from then on every turn is model-backed. Until that is done, turns of at least
``STOPGAP_MIN_S`` are searched by the search-only engine for a ``STOPGAP_SHARE`` of the turn.
"""

from __future__ import annotations

import threading
import time
import traceback
from pathlib import Path

import numpy as np

from zeroplay.engine import heuristic
from zeroplay.play import yixin
from zeroplay.play.pbrain_base import PbrainBase
from zeroplay.play.pbrain_limits import DEFAULT_MEMORY_BYTES, MIN_MEMORY_BYTES, RULE_RENJU, largest_tables, search_memory
from zeroplay.play.pbrain_protocol import plural

DEFAULT_PLAYOUTS = 3000
"""Default cap on playouts per move (``--playouts`` of ``zeroplay pbrain`` and
``pbrain-zeroplay``); the turn time usually stops the search first."""
MESSAGE_EVERY_S = 1.0
"""Seconds between the MESSAGE progress lines of a search (``yixin.progress_line``)."""
STOPGAP_MIN_S = 3.0
"""Shortest turn (seconds) searched while the model still loads; shorter ones get the heuristic
move then. Importing torch stalled the process 1-3 s at a time on a loaded 2-core machine."""
STOPGAP_SHARE = 0.4
"""Share of the turn such a search may use, the rest left for a stall of the model's loading."""
FAST_PLAYOUTS = 48
"""Playouts for ``timeout_turn 0`` (answer as fast as possible)."""
FAST_SECONDS = 0.3
"""And the most seconds of playouts then, counted from the command (the root VCT's share
included); the VCT guard's time comes on top (``search_seconds``: 0.2 s, its
``vct_guard_min_seconds``), where with playouts alone the threat searches ran to their work
budgets (1.7-2.1 s on game 79). Out of the 0.3 s, the guard's 0.2 s left the playouts 0.1 s, less
than one round of the net on a loaded machine: every move was the root's one playout."""
NUMPY_BATCH_SIZE = 4
"""Leaves a round of the search with the numpy net (``--inference numpy``; the search's default is
16). The numpy net takes as long per leaf in small batches as in large ones (8.7-9.8 ms a leaf in
batches of 1 and 4, 10.3-14.6 ms in 16, loaded 2-core machine), and a timed search stops a round
early rather than run into the VCT guard's time, so a 16-leaf round (0.1-0.2 s) did not fit the
playouts' 0.1-0.26 s of a 500-700 ms turn: 1-33 playouts. In rounds of 4: 9-57 there, and 72-156
against 17-97 at 1,000 ms (the guard's time unchanged)."""


class Turns(PbrainBase):
    """Our move in ``PbrainEngine``: warm-up, engines, search, heuristic fallback."""

    def _warm_up(self) -> None:
        """Load the compiled search (``_ready``: the engine searches from then on), then the
        15x15 engine with its model, and search with it once (``_model_ready``): the kernels a
        network's priors specialise are compiled or loaded here, not in the first turn. Until
        then moves are searched by the search-only engine (``_engine``), not answered by the
        heuristic (the torch backend's import alone took 10 s on a loaded 2-core machine)."""
        import time

        started = time.perf_counter()
        try:
            from zeroplay.engine.factory import warm_up

            seconds = warm_up()
        except BaseException as e:  # never let the thread die silently; fall back to quick moves
            self._warm_error = f"{type(e).__name__}: {e}"
            self._debug(f"warm-up failed, quick moves only: {self._warm_error}")
            self._ready.set()
            self._model_ready.set()
            return
        self._ready.set()
        self._debug(f"search ready in {time.perf_counter() - started:.1f} s (compiled / loaded {seconds:.1f} s)")
        try:
            # the engine of the usual board too: loading a model imports torch (seconds), which
            # must not eat the first move's time
            from zeroplay.games import make

            engine = None
            if not self._model_misfit(15, 15):
                engine = self._load_engine(make("gomoku", width=15, height=15, rule="freestyle"))
                engine.warm_up()  # a model-backed search: its compiled code ready for the first turn
            total = time.perf_counter() - started
            # named as what it is: loaded ahead for 15x15 free-style, which the game being set up
            # may not be ("ready ... model" after "search only ... renju" read as a contradiction; helper-80)
            self._debug(f"ready in {total:.1f} s" + (f" (loaded ahead for 15x15 free-style: {engine.name})"
                                                     if engine is not None else ""))
        except BaseException as e:  # the move's own _engine call will say what is wrong
            self._debug(f"engine not loaded ahead: {type(e).__name__}: {e}")
        finally:
            self._model_ready.set()

    def _evaluate(self, state, seconds: float | None) -> tuple[float, int]:
        """(Q for the side to move in [-1, 1], best move) of ``state`` by the search within
        ``seconds``; without a search (none available, or no time): Q 0 and the heuristic move."""
        if self.use_search and not self._ready.is_set():
            if not any(t.name == "pbrain-warm-up" for t in threading.enumerate()):
                threading.Thread(target=self._warm_up, name="pbrain-warm-up", daemon=True).start()
            self._ready.wait(timeout=0 if seconds is None else max(seconds, 0) * 0.5)
        if self.use_search and self._ready.is_set() and self._warm_error is None \
                and (seconds is None or seconds >= 0.02):
            try:
                searcher = self._get_searcher(state.game)
                searcher.reset()
                stop = self.stop_requested.is_set  # YXSTOP: this and the decision's later searches end at once
                self._mark_searching()
                if seconds is None:
                    result = searcher.search(state, playouts=min(FAST_PLAYOUTS, self.max_playouts), stop=stop)
                else:
                    result = searcher.search(state, playouts=self.max_playouts, seconds=seconds, stop=stop)
                if result.best_move is not None:
                    return float(result.root_q), int(result.best_move)
            except Exception:
                self._debug("SWAP2 search failed:\n" + traceback.format_exc())
        board = state.board.reshape(-1)
        me = state.to_play + 1
        renju = bool(self.rule & RULE_RENJU)
        cell = heuristic.quick_move(board, self.width, self.height, me, 5, self.exact_five or (renju and me == 1),
                                    opponent_exact=self.exact_five or (renju and me == 2))
        legal = state.legal_moves()
        if cell not in set(int(c) for c in legal):  # renju: a forbidden point of Black's
            cell = int(legal[0])
        return 0.0, int(cell)

    def _black_stone(self) -> int:
        """Board code (1 own, 2 the opponent's) of Black's stones: the first mover's, from the
        counts as in ``_state``."""
        own, opp = int((self.board == 1).sum()), int((self.board == 2).sum())
        return 2 if opp == own + 1 or (opp == own and self.opponent_to_move) else 1

    def _game_over(self) -> str | None:
        """Why no move can be asked for here, or None."""
        n = 5
        renju = bool(self.rule & RULE_RENJU)
        for stone, who in ((2, "the opponent has"), (1, "we have")):
            # renju: Black's five is exactly five, White's five or more
            exact = self.exact_five if not renju else stone == self._black_stone()
            for cell in np.flatnonzero(self.board == stone):
                board = self.board.copy()
                board[cell] = 0
                if heuristic.makes_win(board, self.width, self.height, int(cell), stone, n, exact):
                    return f"the game is over: {who} five in a row already"
        if not (self.board == 0).any():
            return "the board is full"
        return None

    def _quick_move(self) -> int:
        """``heuristic.quick_move`` for us; under renju as Black, never a forbidden point (the
        legal cell nearest to the heuristic's choice instead)."""
        renju = bool(self.rule & RULE_RENJU)
        black = self._black_stone()
        # renju: each side by its own colour's rule (as White it blocked Black's overline point,
        # no win for Black, and left Black's five; helper-80)
        exact = self.exact_five or (renju and black == 1)
        theirs = self.exact_five or (renju and black == 2)
        cell = heuristic.quick_move(self.board, self.width, self.height, 1, 5, exact, opponent_exact=theirs)
        if renju and self._black_stone() == 1:
            state = self._state()
            if cell in set(int(c) for c in state.game.forbidden_moves(state)):
                legal = state.legal_moves()
                if len(legal):
                    dist = np.maximum(abs(legal % self.width - cell % self.width),
                                      abs(legal // self.width - cell // self.width))
                    cell = int(legal[int(np.argmin(dist))])
        return int(cell)

    def _reply_move(self) -> None:
        why = self._game_over()
        if why:
            self._say(f"ERROR {why}")
            return
        cell = self._searched_move()
        if cell is None:
            cell = self._quick_move()
        self.board[cell] = 1
        self.opponent_to_move = True
        self._say(f"{cell % self.width},{cell // self.width}")

    def _searched_move(self) -> int | None:
        """The search's move within the turn's budget, or None (logged why) for the heuristic."""
        if not self.use_search:
            return None
        cell = None
        seconds = self.move_seconds()
        started = self._command_started
        if not self._ready.is_set():
            if not any(t.name == "pbrain-warm-up" for t in threading.enumerate()):
                threading.Thread(target=self._warm_up, name="pbrain-warm-up", daemon=True).start()
            # wait for the compile for at most half the move's time, then answer without it
            self._ready.wait(timeout=0 if seconds is None else max(seconds * 0.5 - (time.perf_counter() - started), 0))
        if self._ready.is_set() and self._warm_error is None:
            left = None if seconds is None else seconds - (time.perf_counter() - started)
            if left is not None and seconds is not None and not self._model_ready.is_set():  # (both or neither)
                # the model's torch import holds the GIL for a second or more at a time: a
                # search beside it gets a share of the turn that such a stall cannot overrun
                left = min(left, seconds * STOPGAP_SHARE) if seconds >= STOPGAP_MIN_S else -1.0
            if left is None or left >= 0.02:
                cell = self._search_move(None if left is None else time.perf_counter() + left)
        if cell is None:
            if seconds is not None and seconds < 0.02:
                why = f"no time left for a search (budget {seconds:.2f} s: {self._budget_text()})"
            elif not self._ready.is_set():
                why = "the search is not ready yet"
            elif not self._model_ready.is_set():
                why = f"the model is still loading and the turn ({seconds:.2f} s) is under {STOPGAP_MIN_S:.0f} s"
            else:
                why = "no time left for a search"
            self._debug("quick heuristic move: " + why)
        return cell

    def _search_move(self, deadline: float | None) -> int | None:
        """The search's move by ``deadline`` (``time.perf_counter()``; None: FAST_PLAYOUTS within
        FAST_SECONDS of the command, then the VCT guard's check), or None on failure."""
        try:
            from zeroplay.search import Limits  # noqa: F401  (compiled already: cheap)

            state = self._state()
            searcher = self._get_searcher(state.game)
            if self._fresh_tree:
                searcher.reset()
                self._fresh_tree = False
            # the tables were built (seconds, for gigabytes) and the tree reset on the turn's clock
            now = time.perf_counter()
            if deadline is None:
                seconds = search_seconds(searcher, max(FAST_SECONDS - (now - self._command_started), 0.01))
            else:
                seconds = max(deadline - now, 0.01)
            next_message = [time.perf_counter() + MESSAGE_EVERY_S]

            def stop() -> bool:  # between batches: a MESSAGE line each second; YXSTOP ends it
                if time.perf_counter() >= next_message[0]:
                    next_message[0] += MESSAGE_EVERY_S
                    self._say(yixin.progress_line(searcher.result(), self.width))
                return self.stop_requested.is_set()

            playouts = self.max_playouts if deadline is not None else min(FAST_PLAYOUTS, self.max_playouts)
            self._mark_searching()
            result = searcher.search(state, playouts=playouts, seconds=seconds, stop=stop)
            self._last_result = result
            if self._analysing or result.seconds >= MESSAGE_EVERY_S:  # the final figures too
                self._say(yixin.progress_line(result, self.width))
            guard = yixin.guard_line(result, self.width)
            if guard is not None:
                self._say(guard)
                self._debug("; ".join(n for n in result.notes if n.startswith("VCT guard:")))
            move = result.best_move
            if move is None or self.board[int(move)] != 0:
                return None
            self._debug(f"{plural(result.playouts, 'playout')} in {result.seconds:.2f} s, win rate "
                        f"{100 * result.win_rate:.0f}%, stopped by {result.stopped_by}")
            return int(move)
        except Exception:
            self._debug("search failed, quick move instead:\n" + traceback.format_exc())
            self._searcher = None
            return None

    def _state(self):
        """The position as a Game API State, the side to move = us (the opponent after our reply);
        colours from the counts."""
        from zeroplay.games import make

        game = make("gomoku", width=self.width, height=self.height,
                     rule=self._rule_name())
        own = np.flatnonzero(self.board == 1).tolist()
        opp = np.flatnonzero(self.board == 2).tolist()
        if len(own) == len(opp) and self.opponent_to_move:  # after our reply as White
            return game.from_stones(opp, own, to_play=0)
        if len(own) == len(opp):
            return game.from_stones(own, opp, to_play=0, last_move=self._last_opponent_stone())
        if len(opp) == len(own) + 1:
            return game.from_stones(opp, own, to_play=1, last_move=self._last_opponent_stone())
        return game.from_stones(own, opp, to_play=0)

    def _last_opponent_stone(self) -> int | None:
        last = self.last_opponent
        return last if last is not None and self.board[last] == 2 else None

    def _mark_searching(self) -> None:
        """A search of the command being handled starts now: an END read from here on, with no
        line before it, stops it (``pbrain.run``); ``PbrainEngine.handle`` clears the mark."""
        if self._search_started is None:
            self._search_started = time.perf_counter()

    def _get_searcher(self, game):
        engine = self._engine(game)
        key = (game, self.max_memory, id(engine))
        if self._searcher is None or self._searcher_key != key:
            self._searcher = None  # (its tables are not counted against the new budget)
            self._debug(f"engine: {engine.name}" + (f" -- {engine.note}" if engine.note else ""))
            # the stand-in search while the model (torch) loads: that memory is not in the RSS yet,
            # so the stand-in gets the smallest tables, not what the model will need
            stopgap = self.max_memory > 0 and engine is self._stopgaps.get(game)
            config = {"batch_size": NUMPY_BATCH_SIZE} if self.inference == "numpy" and engine.model_path else {}
            if stopgap:
                budget = MIN_MEMORY_BYTES
            else:
                from zeroplay.files.resident import current_rss

                rss = current_rss()
                budget = search_memory(self.max_memory, rss)
                self._check_memory(rss)
                fitted = largest_tables(budget, game, {**engine.config_overrides, **config})
                if fitted < budget:
                    self._debug(f"search tables cut from {budget / 2**20:.0f} MiB to the largest node table")
                    if self._memory_told != self.max_memory:
                        self._say(f"MESSAGE INFO max_memory {self.max_memory} is more than the search's tables can "
                                  f"take: they are capped at {fitted / 2**20:.0f} MiB")
                        self._memory_told = self.max_memory
                    budget = fitted
            try:
                self._searcher = engine.new_searcher(memory_bytes=budget, **config)
            except MemoryError:
                # refused (overcommit, ulimit): the same tables would be refused every turn
                smaller = min(budget // 2, DEFAULT_MEMORY_BYTES)
                if smaller < MIN_MEMORY_BYTES:
                    raise
                self._debug(f"search tables of {budget / 2**20:.0f} MiB could not be allocated; "
                            f"{smaller / 2**20:.0f} MiB instead")
                budget = smaller
                self._searcher = engine.new_searcher(memory_bytes=budget, **config)
            guard = getattr(self._searcher, "root_guard", None)
            if guard is not None:  # what the VCT guard has shown outlives this searcher (a new max_memory, a rule's round trip)
                guard.memory = self._guard_memory.setdefault(game, guard.memory)
            self._debug(f"search tables: {budget / 2**20:.0f} MiB")
            self._searcher_key = key
            self._fresh_tree = False
        return self._searcher

    def _engine(self, game):
        """The engine for ``game``; while the warm-up still loads the model (torch), the
        search-only engine, so that the first moves are searched rather than guessed."""
        if game in self._engines or self._model_ready.is_set() or not self._ready.is_set():
            return self._load_engine(game)
        if game not in self._stopgaps:
            from dataclasses import replace

            from zeroplay.engine.factory import make_engine

            stopgap = make_engine(game, use_shipped=False)
            coming = self._model_for(game)
            if coming is not None:
                # make_engine's note says "no trained model": false while one is loading
                stopgap = replace(stopgap, note=f"a stand-in while the model {coming} loads: the search-only "
                                                "engine plays until it is in")
                self._debug(f"the model {coming} is still loading: the search-only engine plays until it is in")
            else:  # the note ("no trained model for ...") is true: this engine plays on after the warm-up
                self._debug("no model plays this game: the search-only engine plays")
            self._stopgaps[game] = stopgap
        return self._stopgaps[game]

    def _model_for(self, game) -> str | None:
        """The model that plays ``game`` once loaded (``--model``, else the shipped default), by
        file name without its suffix; None: none does, the search-only engine plays. Reads
        headers only."""
        if self.model is not None:
            return Path(self.model).stem
        from zeroplay.engine.factory import find_model

        try:
            found = find_model(game)
        except ValueError:
            found = None
        return None if found is None else Path(found).stem

    def _load_engine(self, game):
        """The engine for ``game`` (made once per game: a model load imports torch)."""
        if game not in self._engines:
            from zeroplay.engine.factory import make_engine

            self._engines[game] = make_engine(game, self.model, inference=self.inference)
        return self._engines[game]



def search_seconds(searcher, playout_seconds: float) -> float:
    """Seconds of a timed search (``Searcher.search``) of ``searcher`` whose playouts get
    ``playout_seconds`` of them (> 0): its VCT guard's time comes out of a search's seconds, after
    the playouts (``Searcher.start``: ``vct_guard_share`` of them, at least ``vct_guard_min_seconds``
    but at most ``GUARD_MAX_SHARE``), so it is added here; the same seconds without a guard."""
    guard = getattr(searcher, "root_guard", None)
    if guard is None or not guard.enabled or guard.share <= 0:
        return playout_seconds
    from zeroplay.search.root_guard import GUARD_MAX_SHARE

    # the inverse of s - max(s * share, min(least, s * most)), which grows with s
    share, least, most = guard.share, searcher.config.vct_guard_min_seconds, GUARD_MAX_SHARE
    return max(playout_seconds / (1 - share), min(playout_seconds + least, playout_seconds / (1 - most)))
