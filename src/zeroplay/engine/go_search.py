"""The PUCT graph search (``zeroplay.search.Searcher``) as a Go engine with the interface of
``go_montecarlo.FlatMonteCarlo`` (``think`` / ``choose``), for ``zeroplay gtp --engine search``.

Without a Go network the evaluator is ``go_prior.GoPriorEvaluator``: compiled local-knowledge
priors (no own-eye fills or self-atari, captures and escapes first, the first two lines avoided
early, random tie-breaks) and the result of one random game per leaf (Go's ``rollout`` kernel:
eye-respecting random playouts scored by area or territory with komi) -- the search-only engine of
``zeroplay play`` and ``serve``, which beat uniform priors with the same rollouts 98 / 0 / 2 over 100
9x9 games at equal playouts (docs/STRENGTH.md). Tree reuse between moves; the search's PV feeds
the analysis lines.
Win rates here are (Q + 1) / 2 of the side to move.
"""

from __future__ import annotations

import time

import numpy as np

from zeroplay.engine.go_montecarlo import MoveStats

ENGINE_NAME = "zeroplay PUCT search with Go priors and random-rollout leaves (no network)"


def no_model_note(game) -> str:
    """Why the search plays ``game`` (a Go game) without a network: the shipped Go models and the
    setting each is the default of (``factory.DEFAULT_MODELS``), and which of them would load here
    by name (``factory.fitting_models``: a fully convolutional net plays any size, not another
    scoring), so that another size or scoring does not drop the model silently."""
    from zeroplay.engine.factory import DEFAULT_MODELS, fitting_models

    shipped = [f"{name.removesuffix('.safetensors')} ({w}x{h} area scoring's default)"
               for (kind, w, h, _, _), name in DEFAULT_MODELS.items() if kind == "go"]
    fits = fitting_models(game)
    told = (f"the shipped {', '.join(shipped)} is not measured on this board or scoring" if shipped
            else "none ships")
    named = f"--model {fits[0]} plays it anyway, --model PATH another" if fits else "--model PATH names one"
    return (f"no Go model is the default for {game.width}x{game.height} with {game.rules.scoring} scoring ({told}): "
            f"the search plays with the Go priors; {named}")


class PuctRollout:
    """``think(state, ...)`` -> root moves by visits; ``choose`` -> the move or None to resign.

    Args:
        playouts: per move when no time is given; the search's tables are sized for them
            (``SearchConfig.for_playouts``, as ``zeroplay play``, ``analyze`` and the arena size
            theirs), unless ``memory_bytes`` is given.
        memory_bytes: size the tables to this budget instead (``SearchConfig.for_memory``: the
            front-end searches by time). A search longer than its tables hold recycles its least
            visited nodes and goes on (``search/gc.py``).
        timed_memory_bytes: the budget of the tables once a search is timed (``think`` with
            ``seconds`` and no ``playouts``: GTP's ``time_settings``) or asks for more playouts
            than ``playouts`` (an analysis) while ``memory_bytes`` is None: the playout-sized
            tables are replaced by ones sized to it at that search (the tree is not reused across
            that switch) and kept for every later search. None: the
            playout-sized tables serve timed searches too, recycling when full.
        resign_below: resign when the root win rate is under this after 1000 playouts (0 never).
        batch_size: leaves per evaluator call.
        model: a Go checkpoint (path or shipped name, checked with ``factory.check_model``): the
            search's priors and values come from its network instead (``factory.make_engine``:
            its threads, its notes, e.g. a komi it was not trained with). A board it does not
            load for (a size-specific net after ``boardsize``) gets the Go priors, with a note on
            stderr. None: the Go priors and rollouts, or the shipped default of each board with
            ``shipped_default``.
        shipped_default: with ``model`` None, each board (``boardsize``, ``komi``, rules) is
            played by the shipped Go model that is the default of its setting
            (``factory.find_model``; ``go-9x9`` on 9x9 area scoring), and by the Go priors, with a
            note on stderr naming the shipped models, where none is. So a session that changes
            its board behaves as one started on that board (``zeroplay gtp --size``).
    """

    def __init__(self, playouts: int = 2000, *, memory_bytes: int | None = None, resign_below: float = 0.03,
                 batch_size: int = 16, seed: int = 0, timed_memory_bytes: int | None = None,
                 model: str | None = None, shipped_default: bool = False):
        if playouts < 1:
            raise ValueError(f"playouts must be >= 1, got {playouts}")
        if model is not None and shipped_default:
            raise ValueError("a named model or the shipped default, not both")
        self.model = model
        self.shipped_default = bool(shipped_default)
        self.playouts = int(playouts)
        self.memory_bytes = memory_bytes
        self.timed_memory_bytes = timed_memory_bytes
        self.resign_below = float(resign_below)
        self.batch_size = int(batch_size)
        self.seed = seed
        self._searcher = None
        self._game = None
        self._noted: set = set()  # the settings told to have no model
        self._on_priors = False  # the last board noted had no model
        self._told: set[str] = set()
        self.board = None  # the board a session is on (GtpSession sets it): warm-up, name, notes
        self.last = None

    @property
    def name(self) -> str:
        """Which evaluator plays: the network's file name, or the Go priors (GTP ``version``).
        With ``shipped_default``, that of ``board`` (else of the last board searched)."""
        from pathlib import Path

        game = self.board if self.board is not None else self._game
        if game is None and self.shipped_default:
            return "zeroplay PUCT search with the shipped Go model of the board where one ships, else Go priors"
        model = self.model if game is None else self.model_for(game)
        return ENGINE_NAME if model is None else f"zeroplay PUCT search with the network {Path(model).name}"

    def model_for(self, game) -> str | None:
        """The checkpoint that plays ``game``: ``model``, the shipped default of ``game`` with
        ``shipped_default`` (None where none ships), else None (the Go priors)."""
        if self.model is not None or not self.shipped_default:
            return self.model
        from zeroplay.engine.factory import find_model

        found = find_model(game)
        return None if found is None else str(found)

    def note_board(self, game) -> None:
        """With ``shipped_default``, on stderr: that ``game`` is played by the Go priors because no
        shipped model is the default of its setting (``no_model_note``, once per setting), and
        that a shipped model plays again when the session comes back to its setting."""
        if not self.shipped_default:
            return
        import sys
        from pathlib import Path

        setting = (game.width, game.height, game.rules.scoring, game.rules.ko, game.rules.suicide)
        model = self.model_for(game)
        if model is None and setting not in self._noted:
            self._noted.add(setting)
            print(f"zeroplay gtp: {no_model_note(game)}", file=sys.stderr, flush=True)
        elif model is not None and self._on_priors:
            print(f"zeroplay gtp: the shipped {Path(model).stem} plays this board ({game.width}x{game.height}, "
                  f"{game.rules.scoring} scoring)", file=sys.stderr, flush=True)
        self._on_priors = model is None

    def _tell(self, note: str) -> None:
        """An engine's note on stderr, once a session (a searcher remade for a timed move made it
        again)."""
        import sys

        if note not in self._told:
            self._told.add(note)
            print(f"zeroplay gtp: {note}", file=sys.stderr, flush=True)

    def _engine(self, game, *, quiet: bool = False, model: str | None = None):
        """The factory's ``Engine`` of ``game`` with this engine's evaluator (``model`` instead
        where given): its searchers are made, sized and warmed up the way every front-end's are."""

        from zeroplay.engine.factory import Engine, make_engine
        from zeroplay.engine.go_prior import GoPriorEvaluator
        from zeroplay.nn.record import CheckpointError

        model = model if model is not None else self.model_for(game)
        if not quiet:
            self.note_board(game)
        if model is not None:
            try:
                engine = make_engine(game, model, use_shipped=False)
                if engine.note and not quiet:
                    self._tell(engine.note)
                return engine
            except CheckpointError as e:
                if not quiet:
                    self._tell(f"{e}; this board is played with the Go priors")
        return Engine(game, GoPriorEvaluator(seed=self.seed), ENGINE_NAME,
                      config_overrides=dict(game.play_search_options))

    def _searcher_for(self, game):
        if self._searcher is None or self._game != game:
            self._searcher = self._engine(game).new_searcher(playouts=self.playouts, memory_bytes=self.memory_bytes,
                                                             batch_size=self.batch_size)
            self._game = game
        return self._searcher

    def clear_cache(self) -> None:
        """Forget the search tree and the evaluator's cache (GTP's ``clear_cache``, KataGo's): the
        next search builds both afresh, at the cost of the first one's set-up."""
        self._searcher = None
        self._game = None

    def ownership(self, state):
        """The network's ownership of ``state`` (its ownership head: ``-own`` nets, KataGo's):
        float32 (cells,) in [-1, 1], each point's predicted final owner from the side to move's
        view (+1: its own), in the board's cell order; None where the evaluator has no such head
        (the Go priors, a net without it)."""
        evaluator = self._searcher_for(state.game).evaluator
        head, features = getattr(evaluator, "ownership", None), getattr(evaluator, "features", None)
        if head is None or features is None:
            return None
        own = head(state.planes(features)[None])
        return None if own is None else own[0]

    def score(self, state) -> float | None:
        """The network's score estimate of ``state`` (its score head: ``-own`` nets, KataGo's):
        the predicted final margin in points from the side to move's view, komi included; None
        where the evaluator has no such head. The net's input says only who receives komi, so a
        net trained at komi K0 estimates margins at K0: at komi K (the same sign) the margin is
        moved by K - K0 (White gains it). Where K is 0 or of the other sign, the input differs
        from every position the net was trained on, and the result is None."""
        return self.scores([state])[0]

    def scores(self, states) -> list[float | None]:
        """``score`` of each of ``states`` (positions of one game), the net run once on them all."""
        if not states:
            return []
        game = states[0].game
        evaluator = self._searcher_for(game).evaluator
        head, features = getattr(evaluator, "score", None), getattr(evaluator, "features", None)
        if head is None or features is None:
            return [None] * len(states)
        margin = head(np.stack([s.planes(features) for s in states]))
        if margin is None:
            return [None] * len(states)
        komi, trained = game.options.get("komi"), self._trained_komi(game)
        if komi is not None and trained is not None and komi != trained and (komi == 0 or (komi > 0) != (trained > 0)):
            return [None] * len(states)
        shift = 0.0 if komi is None or trained is None else komi - trained
        return [float(m) * game.cells + shift * (1 if s.to_play == 1 else -1) for s, m in zip(states, margin)]

    def _trained_komi(self, game) -> float | None:
        """The komi of the checkpoint that plays ``game`` (its game options), None if unknown."""
        from zeroplay.nn.record import CheckpointError, checkpoint_game
        from zeroplay.nn.shipped import resolve_model

        model = self.model_for(game)
        if model is None:
            return None
        try:
            komi = checkpoint_game(resolve_model(model))[1].get("komi")
        except (CheckpointError, OSError):
            return None
        return None if komi is None else float(komi)

    def warm_up(self, playouts: int = 16) -> None:
        """Compile (or load from numba's disk cache) the kernels this engine's searches use: Go's
        rules, priors and rollouts in the search, by two tiny searches on a 5x5 board
        (``Engine.warm_up``; the kernels do not depend on the size). The engine's own searcher
        is untouched. A cold cache otherwise makes the first ``genmove`` compile for minutes. The
        network is the one of ``board`` with ``shipped_default``."""
        from zeroplay.games import make

        model = self.model_for(self.board) if self.board is not None else self.model
        self._engine(make("go", size=5), quiet=True, model=model).warm_up(playouts)

    def think(self, state, *, playouts: int | None = None, seconds: float | None = None, on_progress=None,
              progress_every_s: float = 0.5, stop=None) -> list[MoveStats]:
        """Search ``state``; stops at ``playouts`` (default ``self.playouts`` when no ``seconds``),
        after ``seconds``, or when ``stop.is_set()``; ``on_progress(stats)`` between slices."""
        if state.is_terminal:
            raise ValueError("the game is over")
        open_ended = (seconds is not None and playouts is None) or (playouts is not None and playouts > self.playouts)
        if open_ended and self.memory_bytes is None and self.timed_memory_bytes:
            # a timed move, or an analysis (GTP's lz-analyze: playouts until the next command), can
            # run far past the playouts the tables were sized for; tables that small cannot be
            # recycled either (on 19x19 the root's own edges fill them) and the search stopped "full"
            self.memory_bytes, self._searcher = self.timed_memory_bytes, None
        searcher = self._searcher_for(state.game)
        if playouts is None and seconds is None:
            playouts = self.playouts
        start = time.monotonic()
        slice_s = progress_every_s if on_progress is not None else None
        done = 0
        while True:
            left_s = None if seconds is None else seconds - (time.monotonic() - start)
            if left_s is not None and left_s <= 0:
                break
            step_s = left_s if slice_s is None else (slice_s if left_s is None else min(slice_s, left_s))
            step_n = None if playouts is None else playouts - done
            result = searcher.search(state, playouts=step_n, seconds=step_s,
                                     stop=(lambda: stop.is_set()) if stop is not None else None)
            done += result.playouts
            self.last = result
            if on_progress is not None:
                on_progress(self._stats(result, searcher))
            if result.playouts == 0 and result.stopped_by == "seconds" and step_s is not None \
                    and (left_s is None or step_s < left_s) and not (stop is not None and stop.is_set()):
                # a report slice shorter than one batch (the root's set-up, a slow net; GTP's
                # `genmove_analyze b 1` asks 10 ms): longer slices, not the end of the search
                slice_s = 2 * step_s
                continue
            if (playouts is not None and done >= playouts) or (stop is not None and stop.is_set()) \
                    or result.stopped_by in ("proven", "full", "game over") or result.playouts == 0:
                break
        return self._stats(self.last, searcher)

    @staticmethod
    def _stats(result, searcher) -> list[MoveStats]:
        """The visited root moves of ``result`` with their network prior, principal variation and
        the visits along it (what GTP analysis, ``lz-analyze`` / ``kata-analyze``, shows per
        move)."""
        out = []
        for m in result.moves:
            if m.visits <= 0:
                continue
            pv = tuple(searcher.principal_variation(int(m.move)))
            nodes, edges = searcher.line_visits(pv)
            out.append(MoveStats(int(m.move), int(m.visits), (m.q + 1) / 2, max((m.lcb + 1) / 2, 0.0), None, None,
                                 prior=float(m.prior), pv=pv, pv_visits=tuple(nodes), pv_edge_visits=tuple(edges)))
        return out

    def choose(self, state, stats: list[MoveStats]) -> int | None:
        """The search's choice (``SearchResult.best_move``: the proof's move where the root is
        proven, else the most visited) when ``stats`` holds it, else the first of ``stats`` (the
        most visited; ``stats`` may have been filtered, e.g. pass taken out for
        ``kgs-genmove_cleanup``); None (resign) when the root win rate is under ``resign_below``
        after at least 1000 root visits."""
        result = self.last
        assert result is not None, "think before choose"
        if self.resign_below > 0 and result.root_visits >= 1000 and (result.root_q + 1) / 2 < self.resign_below:
            return None
        best = int(result.best_move)  # the search's choice: a proven win before a more visited move
        if any(s.move == best for s in stats) or not stats:
            return best
        return stats[0].move
