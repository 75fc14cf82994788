"""The web board's searches in a game: the engine's move, a live analysis, a review of the line,
and the snapshot of a search the client draws (win rates, top moves, principal variations, the
prior heat map).

``GameAnalysis`` is part of ``webgame.WebGame`` (a mixin: the game, its searcher, tree, cursor and
locks are set in ``WebGame.__init__``). Win rates: a snapshot's ``winrate`` and each top move's are
the side to move's expected score in [0, 1]; ``black_winrate`` is Black's (player 0), as the
tree keeps them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np

from zeroplay.engine.resign import RESIGN_MIN_PLAYOUTS, RESIGN_TURNS, resigns, trusted_win_rate
from zeroplay.games import State
from zeroplay.play.review import MAX_REVIEW_PLAYOUTS, MAX_REVIEW_SECONDS
from zeroplay.play.weboptions import MAX_WEB_PLAYOUTS, GameConflictError, GameInputError
from zeroplay.search import varied_move

TOP_MOVES = 10
PV_SHOWN = 30
"""Moves of a principal variation sent to the client (a proven line is drawn whole up to this)."""
PROGRESS_EVERY_S = 0.15


class GameAnalysis:
    """The searches of ``WebGame``: ``think`` (a move or an analysis), ``run_review``, snapshots."""

    rng: np.random.Generator  # the draw of the engine's early moves (set by WebGame)

    def _gives_way(self) -> bool:
        """Whether the search holding ``busy`` makes way for a newer request: an analysis (the
        person moved on, or the engine is asked to move), or a search already cancelled (its
        client went away: engine against engine stopped) and still winding down."""
        running = self._search_cancel
        return self._analysis_cancel is not None or (running is not None and running.is_set())

    def _acquire(self, *, play: bool) -> None:
        """Take ``busy`` for a search, waiting up to 5 s for a search that gives way
        (``_gives_way``); GameConflictError otherwise."""
        self._check_open()
        if self.busy.acquire(blocking=False):
            return
        if self._gives_way():
            previous = self._analysis_cancel
            if previous is not None:
                previous.set()
            if self.busy.acquire(timeout=5.0):
                return
        if self._review_cancel is not None:
            raise GameConflictError("the game is being reviewed: stop the review first")
        raise GameConflictError("the engine is already thinking in this game")

    def think(self, *, play: bool, playouts: int | None = None,
              progress: Callable[[dict], None] | None = None, cancel: threading.Event | None = None,
              either_side: bool = False) -> dict:
        """Search the shown position; with ``play`` the engine then plays its move there (only at
        the end of the line; on the person's turn too with ``either_side``: engine against engine).

        ``progress(snapshot)`` is called every PROGRESS_EVERY_S seconds from this thread;
        ``cancel`` stops the search early (a closed browser tab) and plays nothing.

        Returns the final snapshot (see ``snapshot``) with ``"move"`` when a move was played.
        """
        if cancel is None:
            cancel = threading.Event()
        self._acquire(play=play)
        self._search_cancel = cancel
        if not play:
            self._analysis_cancel = cancel
        try:
            with self._lock:
                s, node = self.state, self.cursor
                if self.over:
                    raise GameConflictError("the game is over")
                if play and s.to_play == self.human and not either_side:
                    raise GameConflictError("it is your turn, not the engine's")
                if play and not self.at_end:
                    raise GameConflictError("the engine plays on at the end of the line: go to its end")
            seconds = self.options.seconds if play and playouts is None else None
            limit = MAX_WEB_PLAYOUTS if seconds else int(playouts or self.options.playouts)
            result = self._search(s, limit, cancel,
                                  None if progress is None else lambda r: progress(self.snapshot(r, s, node, final=False)),
                                  seconds=seconds)
            snap = self.snapshot(result, s, node, final=True)
            cancelled = cancel.is_set()
            if not cancelled:
                with self._lock:
                    self._store(node, result, snap)
                    self.analysis = snap
                    if play and self._resigns(node, s, result):
                        self.resigned[node] = s.to_play
                        snap["resigned"] = s.to_play
                    elif play:
                        check = getattr(self.searcher, "vct_cleared", None)  # Gomoku's VCT guard
                        move = varied_move(result, s.ply, self.rng,
                                           cleared=None if check is None else lambda m: check(s, m))
                        self._advance(move, s.play(move), parent=node)
                        snap["move"] = {"cell": move, "text": self.fmt(move)}
            self.touched = time.monotonic()
            snap["cancelled"] = cancelled
            return snap
        finally:
            self._analysis_cancel = self._search_cancel = None
            self.busy.release()

    def _resigns(self, node: int, s: State, result) -> bool:
        """Whether the engine to move at ``node`` resigns instead of playing (``engine.resign``):
        a game that resigns (Go), ``Options.engine_resigns``, and its win rate under the
        threshold now (``result``, this search) and at its previous positions of the line, as
        the tree keeps them (each search's ``_store``; one of fewer than
        ``RESIGN_MIN_PLAYOUTS`` visits does not count)."""
        if not (self.game.resigns and self.options.engine_resigns):
            return False
        tree = self.tree

        def mine(n: int) -> float | None:  # the engine's win rate kept at node n, if trusted
            black = tree.winrate(n)
            if black is None or int(tree.visits[n]) < RESIGN_MIN_PLAYOUTS:
                return None
            return black if s.to_play == 0 else 1.0 - black

        path = tree.path(node)
        earlier = [mine(path[-1 - 2 * k]) for k in range(RESIGN_TURNS - 1, 0, -1) if 2 * k < len(path)]
        return resigns([*earlier, trusted_win_rate(result)])

    def _search(self, s: State, playouts: int, cancel: threading.Event, progress=None,
                seconds: float | None = None):
        """One search of ``s`` (``busy`` held) within ``playouts`` (and ``seconds``, when given);
        the SearchResult."""
        from zeroplay.search import Limits

        searcher = self.searcher
        searcher.start(s, Limits(playouts=playouts, seconds=seconds))
        last = time.monotonic()
        while not searcher.done and not cancel.is_set():
            if searcher.gather():
                try:
                    priors, values = searcher.evaluate_queued()
                except BaseException:
                    searcher.abandon()
                    raise
                searcher.finish(priors, values)
            if progress is not None and time.monotonic() - last >= PROGRESS_EVERY_S:
                last = time.monotonic()
                progress(searcher.result())
        return searcher.result()

    def _store(self, node: int, result, snap: dict) -> None:
        """Keep a finished search's findings at ``node`` of the tree."""
        proven = {"win": 1, "loss": -1}.get(result.proven or "", 0)
        self.tree.set_analysis(node, snap["black_winrate"], visits=int(result.root_visits),
                               best=None if result.best_move is None else int(result.best_move),
                               pv=tuple(int(m) for m in result.pv), proven=proven)

    def snapshot(self, result, s: State, node: int, *, final: bool) -> dict:
        """Search statistics of position ``s`` (tree ``node``) for the client (win rates: side to
        move's, except ``black_winrate``; ``proven_distance``: plies to the proven result; each top
        move with its own principal variation ``pv``)."""
        mover = s.to_play
        wr = float(result.win_rate)
        priors = self.searcher.root_priors() if result.moves else np.zeros(self.game.num_actions, np.float32)
        top = []
        for m in result.moves[:TOP_MOVES]:
            if m.visits == 0:
                break
            if not final:
                line = [int(m.move)]
            elif result.proven in ("win", "loss") and int(m.move) == result.best_move:
                line = [int(c) for c in result.pv[:PV_SHOWN]]  # the whole proven line, to the end
            else:
                line = self.searcher.principal_variation(int(m.move))[:PV_SHOWN]
            top.append({"cell": int(m.move), "text": self.fmt(m.move), "visits": int(m.visits),
                        "winrate": round((m.q + 1.0) / 2.0, 4), "prior": round(float(m.prior), 4),
                        "proven": m.proven, "pv": [{"cell": int(c), "text": self.fmt(c)} for c in line]})
        return {
            "node": node,
            "ply": self.depth(node),
            "to_play": mover,
            "final": final,
            "playouts": int(result.playouts),
            "visits": int(result.root_visits),
            "seconds": round(float(result.seconds), 3),
            "winrate": round(wr, 4),
            "black_winrate": round(wr if mover == 0 else 1.0 - wr, 4),
            "best": None if result.best_move is None else {"cell": int(result.best_move),
                                                           "text": self.fmt(result.best_move)},
            "pv": [{"cell": int(m), "text": self.fmt(m)} for m in result.pv[:PV_SHOWN]],
            "top": top,
            **self._policy(priors, s, result.proven),
            "proven": result.proven,
            "proven_distance": result.proven_distance,
            # "full": the game's search tables filled before the playouts asked for (the search
            # plays its best move so far); the notes say so in words
            "stopped_by": result.stopped_by,
            "notes": list(result.notes),
        }

    def _policy(self, priors: np.ndarray, s: State, proven: str | None) -> dict:
        """The prior P of each cell for the heat map, only where it says something: ``policy``
        (num_actions,) in [0, 1], or None with ``policy_note`` saying why it is left out: the
        position is solved (the proven line is what matters), or the priors are uniform over the
        legal moves (no model and no heuristic prior: a heat map would be noise-free and empty of
        meaning). ``policy_source``: "model" (a network's policy head) or "heuristic"."""
        source = "model" if self.engine.model_path is not None else "heuristic"
        legal = s.legal_moves()
        p = priors[legal] if len(legal) else priors[:0]
        if proven is not None:
            return {"policy": None, "policy_source": source, "policy_note": f"solved ({proven}): no heat map"}
        if not len(p) or float(p.max()) <= 0.0:
            return {"policy": None, "policy_source": source, "policy_note": "no priors yet"}
        if float(p.max() - p.min()) <= 1e-3 * float(p.max()):
            return {"policy": None, "policy_source": source,
                    "policy_note": "uniform priors (no model): no heat map"}
        return {"policy": [round(float(x), 4) for x in priors], "policy_source": source, "policy_note": None}

    # --- review -------------------------------------------------------------------------------
    def run_review(self, *, playouts: int, progress: Callable[[dict], None] | None = None,
                   cancel: threading.Event | None = None, max_seconds: float = MAX_REVIEW_SECONDS) -> dict:
        """Analyse every position of the line (start to end) with ``playouts`` each, storing the
        findings in the tree; positions already analysed with at least that many visits are kept.
        One review per game at a time (it holds ``busy``: moves and engine searches wait, the
        cursor moves freely). Stops early on ``cancel`` or after ``max_seconds``.

        ``progress(status)`` after each position. Returns the final status: ``{"playouts":
        per position, "total": positions, "done": analysed so far, "budget": playouts x
        positions, "running", "stopped_by": "done" | "cancelled" | "seconds"}``.

        Raises:
            GameInputError: playouts outside 1..MAX_REVIEW_PLAYOUTS; GameConflictError: busy.
        """
        if not 1 <= playouts <= MAX_REVIEW_PLAYOUTS:
            raise GameInputError(f"review playouts must be 1..{MAX_REVIEW_PLAYOUTS} per position, not {playouts}")
        if cancel is None:
            cancel = threading.Event()
        self._acquire(play=False)  # a live analysis gives way to the review
        self._review_cancel = cancel
        started = time.monotonic()
        try:
            with self._lock:
                line = self.tree.path(self.line_end)
            status = {"playouts": playouts, "total": len(line), "done": 0, "budget": playouts * len(line),
                      "running": True, "stopped_by": None, "max_seconds": max_seconds}
            self.review = dict(status)
            s = self.start
            for i, node in enumerate(line):
                if i:
                    s = s.play(int(self.tree.move[node]))
                if cancel.is_set() or time.monotonic() - started > max_seconds:
                    status["stopped_by"] = "cancelled" if cancel.is_set() else "seconds"
                    break
                if s.is_terminal:
                    self._mark_result(node, s)
                elif self.tree.winrate(node) is None or int(self.tree.visits[node]) < playouts:
                    result = self._search(s, playouts, cancel)
                    if cancel.is_set():
                        continue  # an unfinished search is not stored; the loop says why it stops
                    with self._lock:
                        self._store(node, result, self.snapshot(result, s, node, final=False))
                status["done"] = i + 1
                self.review = dict(status)
                if progress is not None:
                    progress(dict(status, ply=i, node=node, black=self.tree.winrate(node)))
            status["running"] = False
            status["stopped_by"] = status["stopped_by"] or "done"
            status["seconds"] = round(time.monotonic() - started, 2)
            self.review = dict(status)
            self.touched = time.monotonic()
            return status
        finally:
            self._review_cancel = None
            self.busy.release()

    def cancel_review(self) -> bool:
        """Stop the running review (it keeps what it found); True when one was running."""
        cancel = self._review_cancel
        if cancel is None:
            return False
        cancel.set()
        return True
