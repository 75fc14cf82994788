"""The web board's games: one ``WebGame`` per game id, kept by a ``GameStore``.

No web framework here: ``server.py`` turns these objects into HTTP; ``webstore`` keeps them by id,
``weboptions`` holds their settings and errors, ``webanalysis`` their searches (moves, analyses,
reviews). Every method validates its input and raises ``GameInputError`` (-> HTTP 400),
``GameConflictError`` (-> 409: not your turn, engine busy, game over) or ``UnknownGameError``
(-> 404: unknown id).

Win rates in the JSON are Black's (player 0) expected score in [0, 1], whatever the side to move,
so the graph reads one way; per-move win rates in an analysis are the side to move's.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from zeroplay.engine.factory import describe, fitting_models
from zeroplay.engine.resign import resignation_result, resigned_by
from zeroplay.games import IllegalMoveError, State, option_names
from zeroplay.play.gametree import NONE, ROOT, GameTree, TreeFullError
from zeroplay.play.review import (
    analysis_props,
    mistake,
    move_drop,
    read_analysis_props,
    winning_line,
)
from zeroplay.play.webanalysis import GameAnalysis
from zeroplay.play.webgo import board_extras, write_go_record
from zeroplay.play.weboptions import (  # noqa: F401  (re-exported: the names' old home)
    DEFAULT_MAX_GAMES,
    DEFAULT_MAX_MEMORY,
    GAMES,
    MAX_WEB_PLAYOUTS,
    MIN_N_IN_ROW,
    GameConflictError,
    GameInputError,
    Options,
    StoreFullError,
    UnknownGameError,
    engine_for,
    held_bytes,
)

GAME_MEMORY_BYTES = 24 << 20
"""Budget of each game's search tables (24 MiB; ``SearchConfig.for_memory``): a search that fills
them recycles its least visited nodes and goes on (pages are touched as used)."""
SEARCH_CONFIG = {"eval_cache_size": 1 << 12}
"""SearchConfig fields of each game's searcher besides its tables.

A game's whole search (node table and payload, edge and stat pools, leaf batch, threat table,
evaluation cache) is ``WebGame.memory_bytes``, measured from its arrays: 24.7 MB on 9x9, 25.0 MB
on 15x15, 25.8 MB on 25x25 (with a new game's tree). That is the most a game can cost; pages
never touched (a short game) cost less."""


class WebGame(GameAnalysis):
    """One game of the web board: its variation tree (``gametree``), the position shown (the
    cursor), the engine's search, and the analyses kept (the searches: ``webanalysis``).

    The *line* is the path from the start to ``line_end`` (a leaf): what the move list shows.
    The cursor is a position on it. The person may play at the cursor: at the line's end only on
    their turn (the game goes on, the engine answers), elsewhere either colour (a variation is
    made and becomes the line, the main line stays the first child). Analyses are stored per
    position, so stepping back shows what was found there.
    """

    def __init__(self, game_id: str, options: Options, moves: tuple[int, ...] = (), model: str | None = None,
                 setup: tuple | None = None):
        """``setup``: (black cells, white cells, side to move or None for the counts' default) of a
        set-up start position (None: the empty board). Raises GameInputError for a set-up the game
        cannot start from (a cell off the board or listed twice, both sides holding a win, a
        game without set-up); IllegalMoveError for a move of ``moves`` that is illegal."""
        self.id = game_id
        self.options = options
        self.game = options.make_game()
        start = None if setup is None else self._set_up(*setup)
        self.engine = engine_for(self.game, model)
        # the models a new game of this setting may choose (none under the server's --model)
        self.models = [] if model is not None and model != options.model else fitting_models(self.game)
        self.searcher = self.engine.new_searcher(memory_bytes=GAME_MEMORY_BYTES, **SEARCH_CONFIG)
        self.tree = GameTree()
        self.memory_bytes = held_bytes(self, skip=(self.engine, self.searcher.evaluator))
        """The most this game's search and tree can cost, in bytes (see SEARCH_CONFIG)."""
        self.start: State = self.game.initial() if start is None else start
        """The start position (the tree's root): the empty board, or a set-up position."""
        self.set_up = start is not None
        s, node = self.start, ROOT
        for i, m in enumerate(moves):
            try:
                s = s.play(m)
            except IllegalMoveError as e:  # name the move by its place in the record, not its cell
                why = str(e).split(": ", 1)[-1]
                raise IllegalMoveError(f"move {i + 1} ({self.game.format_move(int(m))}): {why}") from None
            node = self.tree.add(node, int(m))
        self._mark_result(node, s)
        self.state: State = s
        self.cursor = self.line_end = node
        self.human = 0 if options.color == "black" else 1
        self.analysis: dict | None = None  # the last search snapshot ("node": where)
        self.review: dict | None = None  # the running or last review's progress
        self.busy = threading.Lock()
        self._lock = threading.RLock()  # the tree, the cursor and the line
        self._analysis_cancel: threading.Event | None = None  # set: stop the running analysis
        self._search_cancel: threading.Event | None = None  # the running search's (move or analysis)
        self._review_cancel: threading.Event | None = None  # set: stop the running review
        self.touched = time.monotonic()
        self.closed = False
        self.resigned: dict[int, int] = {}
        """Positions (tree nodes, each a line's end) where a player resigned: node -> that player
        (0 Black, 1 White). The game is over there; undo takes a resignation back."""
        self.rng = np.random.default_rng() if options.vary_opening else None
        """The draw of the engine's early moves (``search.choice.varied_move``); None: its most
        visited move always (``Options.vary_opening`` off)."""

    def _set_up(self, black, white, to_play: int | None) -> State:
        from_stones = getattr(self.game, "from_stones", None)
        if from_stones is None:
            raise GameInputError(f"{describe(self.game)} has no position set-up")
        cells = self.game.num_actions
        black, white = [self._set_up_cell(c) for c in black], [self._set_up_cell(c) for c in white]
        for c in (*black, *white):
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < cells:
                raise GameInputError(f"set-up stone {c!r}: a cell 0..{cells - 1}")
        try:
            return from_stones(list(black), list(white), to_play=to_play)
        except ValueError as e:  # IllegalMoveError too: a cell listed twice
            raise GameInputError(f"cannot set up that position: {e}") from None

    def _set_up_cell(self, c):
        """A set-up stone given as text (``"h8"``, ``"7,7"``, Go's ``"E5"``): its cell; other
        values as they are (checked by the caller)."""
        if not isinstance(c, str):
            return c
        try:
            cell = self.game.parse_move(c)
        except (IllegalMoveError, ValueError):
            raise GameInputError(f"set-up stone {c!r}: not a point of this board") from None
        if cell == self.game.pass_action:
            raise GameInputError(f"set-up stone {c!r}: not a point of this board")
        return cell

    def close(self) -> bool:
        """Free the search arrays now (an evicted game), unless the game is busy; True when done.

        The game keeps ``busy`` held from then on, so no request can start on it; a request that
        found the game just before gets ``UnknownGameError``, as after the eviction."""
        if not self.busy.acquire(blocking=False):
            return False
        self.closed = True
        self.searcher = None  # the arrays go now, not at the next cyclic garbage collection
        return True

    def _check_open(self) -> None:
        if self.closed:
            raise UnknownGameError(self.id)

    # --- views ------------------------------------------------------------------------------
    def fmt(self, move: int) -> str:
        return self.game.format_move(int(move))

    def depth(self, node: int) -> int:
        """Moves from the start to ``node`` (the ply of the line; a set-up start is 0)."""
        return len(self.tree.path(node)) - 1

    def mover(self, depth: int) -> int:
        """The side to move after ``depth`` moves from the start (0 Black, 1 White)."""
        return (self.start.to_play + depth) % 2

    @property
    def at_end(self) -> bool:
        """Whether the shown position is the end of the line (no move after it)."""
        return int(self.tree.first_child[self.cursor]) == NONE

    @property
    def over(self) -> bool:
        """The shown position ends the game: by the rules, or by a resignation there."""
        return self.state.is_terminal or self.cursor in self.resigned

    def _options_json(self) -> dict:
        """The game's settings for the page: the options its game takes (``option_names``: no
        Gomoku rule on a Go game), then the engine's."""
        g = self.game
        takes = option_names(self.options.game)
        out: dict = {"game": self.options.game, "size": g.width}
        if "n_in_row" in takes:
            out.update(n_in_row=g.n_in_row, rule=self.options.rule)
        out.update({name: g.options[name] for name in ("komi", "scoring") if name in takes})
        out.update(color=self.options.color, playouts=self.options.playouts, seconds=self.options.seconds,
                   model=self.options.model, vary_opening=self.options.vary_opening,
                   engine_resigns=self.options.engine_resigns)
        return out

    def to_json(self) -> dict:
        with self._lock:
            return self._json()

    def _json(self) -> dict:
        s, g, tree = self.state, self.game, self.tree
        resigned = self.resigned.get(self.cursor)
        winner = s.winner if resigned is None else 1 - resigned
        if resigned is not None:
            result = f"{('Black', 'White')[winner]} wins {resignation_result(resigned)}"
        elif s.is_terminal:
            result = "draw" if s.winner is None else ("Black wins" if s.winner == 0 else "White wins")
            score = g.final_score_text(s)  # Go: "Black wins B+4.5"
            result = f"{result} {score}" if score else result
        else:
            result = None
        line = tree.path(self.line_end)
        entries, winrates = [], []
        for ply, node in enumerate(line):
            w = tree.winrate(node)
            if w is not None:
                winrates.append({"ply": ply, "black": round(w, 4)})
            if ply == 0:
                continue
            m = int(tree.move[node])
            drop = move_drop(tree, node, ply, self.start.to_play)
            best = int(tree.best_move[int(tree.parent[node])])
            entries.append({"node": node, "ply": ply, "cell": m, "text": self.fmt(m),
                            "gomocup": g.format_move(m, "gomocup"),
                            "drop": None if drop is None else round(drop, 4), "mistake": mistake(drop),
                            "best": None if best == NONE or best == m else self.fmt(best),
                            "alternatives": len(tree.children(int(tree.parent[node]))) - 1})
        after = tree.children(self.cursor)
        analysis = self.analysis if self.analysis and self.analysis.get("node") == self.cursor else None
        return {
            "id": self.id,
            "options": self._options_json(),
            "models": self.models,
            "title": describe(g),
            "width": g.width,
            "height": g.height,
            "engine": self.engine.name,
            "note": self.engine.note,
            "board": [int(v) for v in s.board.reshape(-1)],
            "moves": [{"cell": int(m), "text": self.fmt(m), "gomocup": g.format_move(int(m), "gomocup")}
                      for m in s.moves],
            "last_move": s.last_move,
            # renju: the empty cells the side to move may not play (Black's forbidden points)
            "forbidden": [int(c) for c in g.forbidden_moves(s)],
            "to_play": s.to_play,
            "human": self.human,
            "your_turn": (not self.over) and (s.to_play == self.human or not self.at_end),
            "over": self.over,
            "winner": winner,
            "resigned": resigned,
            "result": result,
            "winning_line": winning_line(s.board.reshape(-1), g.width, g.height, s.last_move,
                                         getattr(g, "n_in_row", None)) if s.winner is not None else [],
            "node": self.cursor,
            "cursor": self.depth(self.cursor),
            # a set-up start: its stones and side to move (None: the empty board, Black first)
            "setup": {"black": [int(c) for c in self.start.stones(0)], "white": [int(c) for c in self.start.stones(1)],
                      "to_play": self.start.to_play} if self.set_up else None,
            "at_end": self.at_end,
            "line": entries,
            "main_line": tree.on_main_line(self.line_end),
            "branch_ply": len(tree.path(tree.main_line_branch(self.line_end))) - 1,
            "next": [{"node": c, "text": self.fmt(int(tree.move[c])), "main": i == 0} for i, c in enumerate(after)],
            "tree_size": tree.used - len(tree.free),
            "winrates": winrates,
            "stored": self._stored(self.cursor),
            "analysis": analysis,
            "review": self.review,
            "busy": self.busy.locked(),
            **board_extras(g, s),  # Go: pass_move, columns, star_points, score (play/webgo.py)
        }

    def _stored(self, node: int) -> dict | None:
        """What the tree keeps about ``node``'s analysis (a review's, or a record's)."""
        tree = self.tree
        w = tree.winrate(node)
        if w is None:
            return None
        best = int(tree.best_move[node])
        return {"black_winrate": round(w, 4), "visits": int(tree.visits[node]),
                "best": None if best == NONE else {"cell": best, "text": self.fmt(best)},
                "pv": [{"cell": m, "text": self.fmt(m)} for m in tree.pv_of(node)],
                "proven": {1: "win", -1: "loss"}.get(int(tree.proven[node]))}

    # --- the line and the cursor --------------------------------------------------------------
    def _show(self, node: int, *, line_end: int | None = None) -> None:
        """Show ``node``; the line goes on through ``line_end`` when given, else stays if it passes
        ``node`` and otherwise follows ``node``'s main continuation."""
        tree = self.tree
        if line_end is None:
            line_end = self.line_end if node in tree.path(self.line_end) else tree.line_end(node)
        self.line_end = line_end
        self.cursor = node
        self.state = self.start.play_many(tree.moves(node))
        self.touched = time.monotonic()

    def _advance(self, move: int, state: State, parent: int | None = None) -> None:
        """``state`` (position ``parent``, default the cursor, played ``move``) enters the tree; it
        becomes the shown position when ``parent`` is shown (the engine's move lands where its
        search started, even if the person has stepped elsewhere meanwhile)."""
        parent = self.cursor if parent is None else parent
        node = self.tree.add(parent, move)
        self._mark_result(node, state)
        if parent == self.line_end or (parent == self.cursor and node not in self.tree.path(self.line_end)):
            self.line_end = self.tree.line_end(node)
        if parent == self.cursor:
            self.cursor = node
            self.state = state
        self.touched = time.monotonic()

    def _mark_result(self, node: int, s: State) -> None:
        """A finished position's win rate is its result (Black: 1 win, 0.5 draw, 0 loss)."""
        if s.is_terminal:
            self.tree.set_analysis(node, 0.5 if s.winner is None else float(s.winner == 0))

    def goto(self, *, ply: int | None = None, node: int | None = None) -> None:
        """Show the line's ``ply``-th position (0: the start), or any ``node`` of the tree (the
        line then follows it). A running analysis of the position left is stopped; a review
        goes on.

        Raises:
            GameInputError: neither or both given, a ply off the line, an unknown node.
        """
        if (ply is None) == (node is None):
            raise GameInputError("give ply or node")
        with self._lock:
            tree = self.tree
            if ply is not None:
                line = tree.path(self.line_end)
                if not 0 <= ply < len(line):
                    raise GameInputError(f"ply must be 0..{len(line) - 1} on this line, not {ply}")
                node = line[ply]
            elif not (0 <= node < tree.used) or node in tree.free or (node != ROOT and tree.parent[node] == NONE):
                raise GameInputError(f"no position {node} in this game")
            if node != self.cursor and self._analysis_cancel is not None:
                self._analysis_cancel.set()
            self._show(int(node))

    def main_line(self) -> None:
        """Back to the main line: its end becomes the line's end, the cursor the position where the
        shown variation left it (the cursor stays when it is on the main line)."""
        with self._lock:
            tree = self.tree
            branch = tree.main_line_branch(self.cursor)
            self._show(branch, line_end=tree.line_end(ROOT))

    def promote(self) -> None:
        """Make the shown line the main line (the other lines stay as variations)."""
        with self._lock:
            self.tree.promote(self.line_end)

    # --- moves ------------------------------------------------------------------------------
    def play_human(self, move, *, either_side: bool = False) -> None:
        """Play the person's move (text ``h8`` / ``x,y`` or a cell number) at the shown position:
        at the end of the line on the person's turn (or for either side with ``either_side``, to
        set up a position while the engine waits), elsewhere for either side (a variation).

        Raises:
            GameInputError: a bad or illegal move, the tree full; GameConflictError: the game over
            here, the engine's turn at the end of the line, the engine thinking, a review running.
        """
        if isinstance(move, bool) or not isinstance(move, (int, str)):
            raise GameInputError("move must be a cell number or text such as 'h8' or '7,7'")
        if isinstance(move, str) and len(move) > 20:
            raise GameInputError("move text too long")
        with self._exclusive(), self._lock:
            s = self.state
            if self.over:
                raise GameConflictError("the game is over")
            if s.to_play != self.human and self.at_end and not either_side:
                raise GameConflictError("it is the engine's turn")
            try:
                after = s.play(move)
            except IllegalMoveError as e:
                raise GameInputError(str(e)) from None
            try:
                self._advance(int(after.moves[-1]), after)  # not last_move: None after a pass (Go)
            except TreeFullError as e:
                raise GameInputError(str(e)) from None

    def _exclusive(self):
        """Hold ``busy`` for a change of the game; GameConflictError if the engine is thinking."""
        game = self

        class _Hold:
            def __enter__(self):
                game._check_open()
                if game.busy.acquire(blocking=False):
                    return
                if game._gives_way():  # an analysis, or a cancelled search, gives way to the person
                    analysis = game._analysis_cancel
                    if analysis is not None:
                        analysis.set()
                    if game.busy.acquire(timeout=5.0):
                        return
                if game._review_cancel is not None:
                    raise GameConflictError("the game is being reviewed: stop the review first")
                raise GameConflictError("the engine is thinking")

            def __exit__(self, *exc):
                game.busy.release()

        return _Hold()

    def undo(self) -> None:
        """At the end of the line: take back its last move, and the one before when that leaves
        the engine to move (so the person's move and the engine's reply go together). Only leaves
        are removed, so no other line of the tree is ever lost.

        Raises:
            GameConflictError: not at the end of the line, no move of the person's to take back,
                the engine thinking or a review running.
        """
        with self._exclusive(), self._lock:
            tree = self.tree
            if self.resigned.get(self.cursor) == self.human:  # the last thing done: take back that alone
                del self.resigned[self.cursor]
                return
            path = tree.path(self.cursor)
            if not any(self.mover(ply - 1) == self.human for ply in range(1, len(path))):
                raise GameConflictError("nothing to undo")
            if not self.at_end:
                raise GameConflictError("undo takes moves back at the end of the line: go to its end "
                                        "(stepping back needs no undo)")
            node = self.cursor
            for _ in range(2):
                back = int(tree.parent[node])
                self.resigned.pop(node, None)  # the node's number may be reused by a later move
                tree.remove(node)
                node = back
                engine_to_move = self.mover(self.depth(node)) != self.human
                if node == ROOT or not engine_to_move or int(tree.first_child[node]) != NONE:
                    break
            self._show(node, line_end=tree.line_end(node))
            self.analysis = None

    def resign(self) -> None:
        """The person resigns at the end of the line (either colour's turn): the game is over
        there, won by the other side (``W+R`` / ``B+R``); ``undo`` takes it back.

        Raises:
            GameConflictError: the game over here, not at the end of the line, the engine
                thinking or a review running.
        """
        with self._exclusive(), self._lock:
            if self.over:
                raise GameConflictError("the game is over")
            if not self.at_end:
                raise GameConflictError("resign at the end of the line: go to its end")
            self.resigned[self.cursor] = self.human

    def resigned_at_end(self, result: str) -> None:
        """A loaded record's ``RE`` of a resignation (``W+R``: Black resigned, ``B+R``: White) is
        the resignation at the end of the main line; any other result changes nothing."""
        player = resigned_by(result)
        if player is not None:
            with self._lock:
                self.resigned[self.tree.line_end(ROOT)] = player

    # --- records ----------------------------------------------------------------------------
    def record(self, fmt: str) -> str:
        """The game as a record with its result and rule: PSQ the line shown (no set-up start:
        PSQ has no set-up stones); SGF the whole variation tree, the set-up start (``AB``/``AW``/
        ``PL``) and each analysed position's win rate and best move (``play.webrecord``).

        Raises:
            GameInputError: a format other than psq or sgf; PSQ of a set-up position.
        """
        from zeroplay import __version__
        from zeroplay.games.records import record_of_game, write_psq
        from zeroplay.play.webrecord import record_of_tree, write_board_sgf

        if fmt not in ("psq", "sgf"):
            raise GameInputError(f"format must be psq or sgf, not {fmt!r}")
        if fmt == "psq" and self.set_up:
            raise GameInputError("a game from a set-up position exports as SGF only (PSQ has no set-up stones)")
        names = ("you", "zeroplay") if self.human == 0 else ("zeroplay", "you")
        if self.game.sgf_game is not None:  # a game with its own SGF (Go, GM[1]): play/webgo.py
            if fmt != "sgf":
                raise GameInputError(f"{self.game.name} records are SGF, not {fmt.upper()}")
            with self._lock:
                moves = [int(self.tree.move[n]) for n in self.tree.path(self.line_end)[1:]]
                resigned = self.resigned.get(self.line_end)
            return write_go_record(self.start, self.set_up, moves, black=names[0], white=names[1], resigned=resigned)
        with self._lock:
            tree = self.tree
            if fmt == "psq":
                line = tree.path(self.line_end)
                rec = record_of_game(self.game, [int(tree.move[n]) for n in line[1:]], black=names[0],
                                     white=names[1], rule=self.options.rule)
                return write_psq(rec)
            end = self.start.play_many(tree.moves(tree.line_end(ROOT)))  # the main line's result
            result = "" if not end.is_terminal else {0: "B+", 1: "W+", None: "0"}[end.winner]
            main_end = tree.line_end(ROOT)
            if main_end in self.resigned:
                result = resignation_result(self.resigned[main_end])
            out = record_of_tree(tree, self.start, self.set_up, self.options.rule,
                                 lambda n: analysis_props(tree, n, self.game.width, self.fmt))
        return write_board_sgf(out, app=f"zeroplay:{__version__}", black_name=names[0], white_name=names[1],
                               result=result)

    def load_record(self, rec) -> None:
        """Add every position of a ``webrecord.BoardRecord`` (its start must be this game's) to
        the tree, each move checked, with the analysis it carries (``ZW``/``ZB``/``ZV``/``ZP``);
        the main line's end is shown.

        Raises:
            GameInputError: an illegal move (named by its position in the record), the tree full.
        """
        with self._lock:
            tree = self.tree
            nodes = [ROOT]
            states = [self.start]
            for k in range(1, len(rec.move)):
                parent = nodes[rec.parent[k]]
                try:
                    after = states[rec.parent[k]].play(int(rec.move[k]))
                    node = tree.add(parent, int(rec.move[k]))
                except IllegalMoveError as e:
                    why = str(e).split(": ", 1)[-1]
                    raise GameInputError(f"the record's move {self.fmt(rec.move[k])} (position {k}): {why}") from None
                except TreeFullError as e:
                    raise GameInputError(str(e)) from None
                self._mark_result(node, after)
                nodes.append(node)
                states.append(after)
            for k, props in enumerate(rec.props):
                if props:
                    read_analysis_props(tree, nodes[k], props, self.game.width, self.game.num_actions)
            self._show(tree.line_end(ROOT), line_end=tree.line_end(ROOT))
