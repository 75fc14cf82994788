"""``zeroplay analyze``: a JSON-lines analysis engine on stdin/stdout, in the manner of KataGo's
analysis engine, so that other front-ends can drive zeroplay.

One query per input line (a JSON object), one answer per query (a JSON object on one line), in
the order the queries came. Query fields (all but ``id`` optional)::

    id         string, echoed in the answer (at most 200 characters)
    moves      the game so far, Black first: ["h8", "i9", ...] in text notation or "x,y"
               (Gomocup: column, row from the top); at most size * size moves
    size       board width and height, 5..25 (default 15)
    n_in_row   stones in a row that win, 3..size (default 5)
    rule       "freestyle" (five or more wins), "standard" (exactly five) or "renju" (RIF rules:
               Black's forbidden points are never suggested; n_in_row 5) (default freestyle)
    playouts   playouts of the search, 1..--max-playouts (default 800, or --max-playouts when
               that is less)
    top        moves reported, 1..50 (default 10)
    seconds    most seconds of search, > 0 and at most 86,400 (default: none; the playouts
               bound it)

Answer::

    {"id": ..., "turnNumber": plies played, "currentPlayer": "B" | "W",
     "rootInfo": {"visits": N(root), "winrate": W, "playouts": P, "seconds": S, "proven": ...},
     "moveInfos": [{"move": "h8", "gomocup": "7,7", "order": 0, "visits": N(root, a),
                    "winrate": W, "prior": P(root, a), "pv": ["h8", "i9", ...]}, ...],
     "engine": the engine's name}

Win rates are the side to move's expected score (Q + 1) / 2 in [0, 1] (KataGo reports the side
to move's too); ``proven`` is "win", "loss" or "draw" for the side to move when the search proved
it, else null. The engine's chosen move is always listed, first when it has no visits (a root the
threat solver proved before any playout; a move the VCT guard traded in), with its line as ``pv``
and the root's win rate. A query that cannot be answered gets ``{"id": ..., "error": message}`` (id null
when the line did not give one). Bounds: a line over ``MAX_LINE_BYTES`` is refused without being
parsed; the search tables are sized for the playouts and capped at ``MEMORY_CAP_BYTES``.

Cancelling, as KataGo's analysis engine does: ``{"id": ID, "action": "terminate", "terminateId":
QID}`` stops the query ``QID`` (``"action": "terminate_all"`` every query before it). It is read
while a search runs and acknowledged at once with ``{"id": ID, "action": ..., "terminateId": ...}``.
A query it stops still gets its one answer, in its turn: the search so far with ``"terminated":
true``, or ``{"id": QID, "error": "terminated before its search began"}`` for one still queued.
At the end of the input the queries read are answered, then the engine exits (KataGo's way;
``terminate_all`` first ends them sooner, as does an interrupt). The session -- reading while a
worker searches -- is ``play.analyze_session``; this module answers one query.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

MAX_LINE_BYTES = 64 * 1024
"""Longest query line (a 25x25 game's 625 moves as text take under 5 KB)."""
MAX_ID = 200
"""Longest ``id``."""
MAX_TOP = 50
PV_PLIES = 20
"""Most moves of a principal variation in an answer."""
DEFAULT_PLAYOUTS = 800
DEFAULT_MAX_PLAYOUTS = 100_000
"""``zeroplay analyze --max-playouts``: most playouts a query may ask for."""
MEMORY_CAP_BYTES = 1 << 30
"""Most memory one game setting's search tables take (1 GiB)."""
MAX_SECONDS = 86_400.0
"""Longest ``seconds`` a query may ask for (a day)."""
_FIELDS = {"id", "moves", "size", "n_in_row", "rule", "playouts", "top", "seconds"}


class QueryError(ValueError):
    """A query that cannot be answered; its message goes back in the answer's ``error``."""


def _int(query: dict, name: str, default: int, low: int, high: int) -> int:
    value = query.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise QueryError(f"{name} must be a whole number {low}..{high}, got {json.dumps(value)[:40]}")
    return value


class Analyzer:
    """Answers queries; keeps one searcher per game setting (tables are reused, trees are not).

    Args:
        model: a checkpoint or shipped model name that plays every setting it fits (None: the
            shipped model per setting, else the search-only engine, as ``zeroplay play``).
        max_playouts: the most playouts a query may ask for; a query without ``playouts`` gets
            ``DEFAULT_PLAYOUTS`` or this, whichever is less.
    """

    def __init__(self, model: str | None = None, max_playouts: int = DEFAULT_MAX_PLAYOUTS):
        self.model = model
        self.max_playouts = max_playouts
        self._searchers: dict = {}

    def answer_line(self, line: str, stop: Callable[[], bool] | None = None) -> dict:
        """The answer to one input line (never raises for bad input); ``stop``: asked between
        batches of the search, True ends it with what it found (``"terminated": true``)."""
        query = parse_line(line)
        if "error" in query:
            return query
        try:
            return {"id": query["id"], **self.analyze(query, stop)}
        except QueryError as e:
            return {"id": query["id"], "error": str(e)}

    def analyze(self, query: dict, stop: Callable[[], bool] | None = None) -> dict:
        """The answer's fields for a parsed query (see the module docstring).

        Raises:
            QueryError: unknown fields, values out of range, illegal or unreadable moves, a
                finished game.
        """
        from zeroplay.games import IllegalMoveError, make

        unknown = sorted(set(query) - _FIELDS)
        if unknown:
            raise QueryError(f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)[:100]}")
        size = _int(query, "size", 15, 5, 25)
        n_in_row = _int(query, "n_in_row", 5, 3, size)
        playouts = _int(query, "playouts", min(DEFAULT_PLAYOUTS, self.max_playouts), 1, self.max_playouts)
        top = _int(query, "top", 10, 1, MAX_TOP)
        seconds = query.get("seconds")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                    or not math.isfinite(seconds) or not 0 < seconds <= MAX_SECONDS):
            raise QueryError(f"seconds must be a number > 0 and at most {MAX_SECONDS:,.0f}, "
                             f"got {json.dumps(seconds)[:40]}")
        rule = query.get("rule", "freestyle")
        if rule not in ("freestyle", "standard", "renju"):
            raise QueryError(f"rule must be freestyle, standard or renju, got {json.dumps(rule)[:40]}")
        if rule == "renju" and n_in_row != 5:
            raise QueryError(f"renju is played five in a row, got n_in_row {n_in_row}")
        moves = query.get("moves", [])
        if not isinstance(moves, list) or len(moves) > size * size or not all(isinstance(m, str) for m in moves):
            raise QueryError(f"moves must be a list of at most {size * size} strings such as \"h8\" or \"7,7\"")
        game = make("gomoku", width=size, height=size, n_in_row=n_in_row, rule=rule)
        state = game.initial()
        for i, text in enumerate(moves):
            try:
                state = state.play(text[:20])
            except (IllegalMoveError, ValueError) as e:
                raise QueryError(f"move {i + 1} ({text[:20]!r}): {str(e).split(': ', 1)[-1][:200]}") from None
        if state.is_terminal:
            raise QueryError("the game is over: nothing to analyse")
        engine, searcher = self._searcher(game, playouts)
        searcher.reset()
        result = searcher.search(state, playouts=playouts, seconds=seconds, stop=stop)

        def fmt(cell) -> str:
            return game.format_move(int(cell))

        shown = [(m, (m.q + 1) / 2, _pv(searcher, int(m.move))) for m in result.moves if m.visits > 0]
        best = result.best_move
        if best is not None and all(int(m.move) != int(best) for m, _, _ in shown):
            # the engine's move has no visits: the threat solver proved the root before a playout
            # (a win answered with no move at all, helper-68), or the VCT guard traded it in
            stat = next(m for m in result.moves if int(m.move) == int(best))
            line = list(result.pv) if result.pv and int(result.pv[0]) == int(best) else [int(best)]
            shown.insert(0, (stat, result.win_rate, line))
        infos = []
        for order, (m, rate, line) in enumerate(shown[:top]):
            infos.append({"move": fmt(m.move), "gomocup": game.format_move(int(m.move), "gomocup"), "order": order,
                          "visits": int(m.visits), "winrate": round(rate, 4),
                          "prior": round(float(m.prior), 4), "pv": [fmt(c) for c in line]})
        return {"turnNumber": state.ply, "currentPlayer": "BW"[state.to_play],
                "rootInfo": {"visits": int(result.root_visits), "winrate": round((result.root_q + 1) / 2, 4),
                             "playouts": int(result.playouts), "seconds": round(float(result.seconds), 3),
                             "proven": result.proven},
                "moveInfos": infos, "engine": engine.name,
                **({"terminated": True} if result.stopped_by == "stop" else {})}

    def _searcher(self, game, playouts: int):
        from zeroplay.engine.factory import make_engine
        from zeroplay.search import SearchConfig

        # the search's sizing rule for the playouts, or the cap's budget when that is less
        sized = {"playouts": playouts}
        if (SearchConfig.for_playouts(playouts, game).memory_bytes or 0) > MEMORY_CAP_BYTES:
            sized = {"memory_bytes": MEMORY_CAP_BYTES}
        key = (game, *sized.items())
        if key not in self._searchers:
            try:
                engine = make_engine(game, self.model)
            except ValueError as e:  # a --model that does not fit this setting
                raise QueryError(str(e)) from None
            self._searchers = {key: (engine, engine.new_searcher(**sized))}
        return self._searchers[key]


def _pv(searcher, first: int, plies: int = PV_PLIES) -> list[int]:
    """The principal variation after root move ``first``: the most visited edge at each node
    (``Searcher.stats_at``), at most ``plies`` moves."""
    line = [first]
    while len(line) < plies:
        stats = searcher.stats_at(line)
        visited = [e for e in (stats or {}).get("edges", ()) if e["visits"] > 0]
        if not visited:
            break
        line.append(max(visited, key=lambda e: e["visits"])["move"])
    return line


def parse_line(line: str) -> dict:
    """A query line's JSON object with a checked ``id``, or ``{"id": None, "error": ...}``."""
    if len(line.encode("utf-8", "replace")) > MAX_LINE_BYTES:
        return {"id": None, "error": f"query line over {MAX_LINE_BYTES} bytes"}
    try:
        query = json.loads(line)
    except (ValueError, RecursionError) as e:
        return {"id": None, "error": f"not a JSON object: {str(e)[:200]}"}
    if not isinstance(query, dict):
        return {"id": None, "error": "a query is a JSON object"}
    qid = query.get("id")
    if not isinstance(qid, str) or len(qid) > MAX_ID:
        return {"id": None, "error": f"id must be a string of at most {MAX_ID} characters"}
    if not is_unicode_text(qid):
        return {"id": None, "error": "id must be Unicode text (no lone surrogates)"}
    return query


def is_unicode_text(text: str) -> bool:
    """Whether ``text`` is Unicode text: a lone surrogate ("\\ud800", which JSON can escape) is
    not, and strict UTF-8 readers refuse its echo."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_analyze_model(model: str) -> str:
    """``--model`` checked at start-up, before the compile and the ready line: its checkpoint path.

    The file is checked as ``zeroplay play --model`` checks it (``engine.factory.check_model``),
    its weights' checksum too (``load_model`` with the torch-free loader), and it must be a
    Gomoku model: the queries are Gomoku positions, so a model of another game fits none of them.

    Raises:
        zeroplay.nn.CheckpointError: no such file (the message lists the shipped models), an
            unreadable, foreign or damaged one (a ``ValueError``, one line).
        ValueError: a model of another game.
    """
    from zeroplay.engine.factory import check_model, load_model
    from zeroplay.nn.record import checkpoint_game

    path = check_model(model)
    name, _ = checkpoint_game(path)
    if name != "gomoku":
        raise ValueError(f"{path} is a {name} model: zeroplay analyze analyses Gomoku positions")
    load_model(path, inference="numpy")
    return path
