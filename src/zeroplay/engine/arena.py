"""Matches between two players: W/D/L, score (draws 1/2), Elo difference with a 95 % interval.

A player is anything with ``name``, ``new_game(game)`` and ``play(state) -> action`` (the
``Player`` protocol). Players by spec (``make_player``):

    PATH            a checkpoint (``.safetensors``): the network with ``playouts`` per move
    NAME            a shipped model by name (``gomoku-8x8-5-freestyle``, ``zeroplay.nn.shipped``):
                    its file in the package; a file of that name here wins
    vcf:PATH        the same with the game's play-time search options on (``game.play_search_options``:
                    for Gomoku the VCF solver, the defence, the root VCT, the VCT guard); also
                    ``vcf:NAME`` (``vcf-noguard:PATH``: the VCT guard off)
    gumbel:PATH     the same with the Gumbel root search (``SearchConfig.root_policy``; no noise
                    in play: g = 0); also ``gumbel:NAME``
    uniform:N       UniformEvaluator, N playouts per move (search guided by the tree alone)
    rollout:N       RolloutEvaluator, N playouts per move (plain random-rollout MCTS)
    heuristic:N     the search-only engine of ``zeroplay play`` where no model ships: the search
                    guided by ``engine.heuristic`` (window counts; Go: ``engine.go_prior``'s
                    priors with rollout values), N playouts per move, with the
                    game's play-time search options as ``zeroplay play`` has them
                    (``heuristic-plain:N``: all off; ``heuristic-nodefence:N``: the defence off)
    pbrain:COMMAND  a Gomocup engine run as a subprocess (``engine/pbrain_player.py``), 1 s a turn;
                    ``pbrain:turn=MS,match=MS:COMMAND`` sets the protocol's time controls
    gtp:COMMAND     a GTP engine for Go run as a subprocess (``engine/gtp_player.py``): GNU Go,
                    ``zeroplay gtp``; an engine's ``resign`` loses the game
    usi:COMMAND     a USI shogi engine run as a subprocess, 1 s byoyomi (``usi:COMMAND@MS``);
                    shogi also has ``alphabeta:NODES``, ``shogimcts:PLAYOUTS[@MODEL]`` and, for any
                    game, ``random:SEED`` (``engine/shogi_players.py``)

A spec is known by its canonical form (``canonical_spec``): ``uniform:08``, ``uniform: 8`` and
``uniform:8`` are one player, named ``uniform:8`` in results and match records.

Other kinds plug in with ``register_player_kind(prefix, factory)`` (e.g. ``pbrain:COMMAND`` for
Gomocup engines). Colours alternate: the first player is Black in games 0, 2, 4, ...

When both players search (``SearchPlayer``), all games run at once in lockstep: each round, the
games where a player is to move are searched together with ``search_many`` (one evaluator call
per round for that player's leaves). Otherwise games are played one after the other.

Search players play their best move (no noise), except for the first ``opening_moves`` plies of
each game, sampled in proportion to the visit counts, so that matches between deterministic
players do not repeat one game. Players that do not sample (engines over a protocol, alpha-beta)
get distinct games from ``openings`` (``engine/arena_openings.py``: random plies or a file), one
opening per pair of games, played once with each colour order.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from zeroplay.engine.elo import EloEstimate, elo_estimate
from zeroplay.engine.gtp_player import Resignation
from zeroplay.games import Game, State
from zeroplay.search import (
    RolloutEvaluator,
    SearchConfig,
    Searcher,
    SearchResult,
    UniformEvaluator,
    apply_temperature,
    search_many,
)
from zeroplay.search.limits import MAX_PLAYOUTS


class Player(Protocol):
    """An arena player. ``new_game`` is called before each game, ``play`` for each own move."""

    name: str

    def new_game(self, game: Game) -> None: ...

    def play(self, state: State) -> int: ...


def search_config(playouts: int, *, game, batch_size: int = 16, **overrides) -> SearchConfig:
    """Play-mode SearchConfig (no noise) sized for ``playouts`` per move of ``game`` plus tree
    reuse by the search's rule (``SearchConfig.for_playouts``).

    Raises:
        ValueError: ``playouts`` above ``MAX_PLAYOUTS``.
    """
    if playouts > MAX_PLAYOUTS:
        raise ValueError(f"at most {MAX_PLAYOUTS:,} playouts a move, got {playouts:,}")
    return SearchConfig.for_playouts(playouts, game, batch_size=batch_size, eval_cache_size=1 << 13,
                                     **overrides)


class SearchPlayer:
    """A PUCT search with an evaluator and a fixed number of playouts per move.

    Args:
        evaluator: NetEvaluator, UniformEvaluator, RolloutEvaluator, ...
        playouts: new playouts per move (the reused subtree's visits come on top).
        name: shown in results.
        opening_moves: plies from the start whose move is sampled from the visits (tau 1).
        config: SearchConfig (default ``search_config(playouts)`` for the game played).
        seed: of the opening sampling; game ``i`` of a match samples from ``game_rng(i)``, drawn
            from the seed and ``i`` alone, so a resumed match does not repeat the games it has.
    """

    def __init__(self, evaluator, playouts: int, *, name: str, opening_moves: int = 2,
                 config: SearchConfig | None = None, seed: int | None = None):
        if playouts < 1:
            raise ValueError(f"playouts must be >= 1, got {playouts}")
        self.evaluator, self.playouts, self.name = evaluator, int(playouts), name
        self.opening_moves = int(opening_moves)
        if playouts > MAX_PLAYOUTS:
            raise ValueError(f"at most {MAX_PLAYOUTS:,} playouts a move, got {playouts:,}")
        self.config = config
        self.seed = int(np.random.SeedSequence(seed).generate_state(1)[0])
        self.rng = np.random.default_rng(self.seed)
        self._searcher: Searcher | None = None

    def game_rng(self, index: int) -> np.random.Generator:
        """The opening sampler of game ``index`` of a match."""
        return np.random.default_rng([self.seed, int(index)])

    def new_searcher(self, game: Game) -> Searcher:
        return Searcher(game, self.evaluator, self.config or search_config(self.playouts, game=game))

    def new_game(self, game: Game) -> None:
        if self._searcher is None or self._searcher.game != game:
            self._searcher = self.new_searcher(game)
        self._searcher.reset()

    def play(self, state: State) -> int:
        if self._searcher is None:
            self.new_game(state.game)
        assert self._searcher is not None  # new_game made it
        self._searcher.search(state, playouts=self.playouts)
        return self.choose(state, self._searcher.result())

    def choose(self, state: State, result: SearchResult, rng: np.random.Generator | None = None) -> int:
        """The best move, or a visit-proportional sample (from ``rng``, default ``self.rng``) during
        the opening plies."""
        if state.ply >= self.opening_moves or result.proven == "win":
            assert result.best_move is not None  # the position is not over: the search has a move
            return int(result.best_move)
        stats = [s for s in result.moves if s.proven != "loss" and s.visits > 0]
        if not stats:
            assert result.best_move is not None  # the position is not over: the search has a move
            return int(result.best_move)
        p = apply_temperature(np.array([s.visits for s in stats], np.float64), 1.0)
        return int(stats[int((rng or self.rng).choice(len(stats), p=p))].move)


# --- player specs ---------------------------------------------------------------------------------
PlayerFactory = Callable[[str, Game, dict], Player]
_KINDS: dict[str, PlayerFactory] = {}
_CANONICAL: dict[str, Callable[[str], str]] = {}


def register_player_kind(prefix: str, factory: PlayerFactory, canonical: Callable[[str], str] | None = None) -> None:
    """Make ``PREFIX:ARG`` specs build players with ``factory(arg, game, options)``.

    ``options`` holds ``playouts`` (for checkpoint players), ``seed``, ``device``,
    ``opening_moves``. ``canonical(arg)``, if given, writes ARG the one way that names its player
    (raising ValueError for a malformed one); ``factory`` then gets that form. Without it, ARG
    stays as typed.
    """
    _KINDS[prefix] = factory
    if canonical is None:
        _CANONICAL.pop(prefix, None)
    else:
        _CANONICAL[prefix] = canonical


def canonical_spec(spec: str) -> str:
    """``spec`` written the one way that names its player: what results show and match records
    (``match_record``) compare. Numbers are plain decimals (``uniform:08``, ``uniform: 8`` and
    ``uniform:+8`` are ``uniform:8``); ``pbrain:`` time controls come as ``turn=MS,match=MS``, those
    at their defaults left out. Checkpoint paths (also after ``vcf:``) and other specs stay as typed
    (a record knows a checkpoint by the SHA-256 of its file). Kinds are lower case: ``Uniform:8`` is
    not one.

    Raises:
        ValueError: a malformed spec of a known kind (``uniform:0``, ``uniform:1e3``, ``vcf:``).
    """
    prefix, sep, arg = spec.lstrip().partition(":")
    if sep and prefix in _CANONICAL:
        return f"{prefix}:{_CANONICAL[prefix](arg)}"
    return spec


def _playouts_arg(kind: str, arg: str) -> int:
    try:
        n = int(arg)
    except ValueError:
        raise ValueError(f"{kind}:N needs a whole number of playouts, got {kind}:{arg}") from None
    if n < 1:
        raise ValueError(f"{kind}:N needs N >= 1, got {kind}:{arg}")
    if n > MAX_PLAYOUTS:
        raise ValueError(f"{kind}:N takes at most {MAX_PLAYOUTS:,} playouts, got {kind}:{arg}")
    return n


def _canonical_playouts(kind: str) -> Callable[[str], str]:
    return lambda arg: str(_playouts_arg(kind, arg))


def _needs_compiled_rules(kind: str, game) -> None:
    """Refuse ``kind:N`` for a game without compiled rules (``game.kernels is None``: shogi on
    cshogi), which the compiled search cannot play, naming the players that can.

    Raises:
        ValueError: ``game`` has no compiled rules.
    """
    if game.kernels is None:
        raise ValueError(f"{kind}:N searches with the compiled rules, which {game.name} does not have: play it "
                         "with its own engines' players (zeroplay arena --help lists them) or random:SEED")


def _uniform(arg, game, options):
    _needs_compiled_rules("uniform", game)
    n = _playouts_arg("uniform", arg)
    return SearchPlayer(UniformEvaluator(), n, name=f"uniform:{arg}", opening_moves=options.get("opening_moves", 2),
                        seed=options.get("seed"), config=search_config(n, game=game))


def _rollout(arg, game, options):
    _needs_compiled_rules("rollout", game)  # (random games run on the game's compiled rollout kernel)
    n = _playouts_arg("rollout", arg)
    return SearchPlayer(RolloutEvaluator(seed=options.get("seed")), n, name=f"rollout:{arg}",
                        opening_moves=options.get("opening_moves", 2), seed=options.get("seed"),
                        config=search_config(n, game=game))


_PBRAIN_TIMES = re.compile(r"^\s*((?:turn|match)=\d+(?:\s*,\s*(?:turn|match)=\d+)*)\s*:(.*)$")
_PBRAIN_DEFAULT_TIMES = {"turn": 1000, "match": 0}


def _pbrain_parts(arg: str) -> tuple[dict, str]:
    """The time controls (ms) and the command of ``pbrain:[turn=MS,match=MS:]COMMAND``."""
    times = dict(_PBRAIN_DEFAULT_TIMES)
    if m := _PBRAIN_TIMES.match(arg):
        for item in m.group(1).split(","):
            key, _, value = item.strip().partition("=")
            times[key] = int(value)
        arg = m.group(2)
    if not arg.strip():
        raise ValueError("pbrain:COMMAND needs the engine's command line, e.g. pbrain:pbrain-zeroplay")
    return times, arg.strip()  # the command is split like a shell would: the spaces around it are nothing


def _canonical_pbrain(arg: str) -> str:
    times, command = _pbrain_parts(arg)
    items = [f"{k}={v}" for k, v in times.items() if v != _PBRAIN_DEFAULT_TIMES[k]]
    if not items and _PBRAIN_TIMES.match(command):  # a command that reads as time controls keeps them
        items = [f"{k}={v}" for k, v in times.items()]
    return f"{','.join(items)}:{command}" if items else command


def _pbrain(arg, game, options):
    """``pbrain:COMMAND`` or, with time controls in ms, ``pbrain:turn=500,match=60000:COMMAND``."""
    from zeroplay.engine.pbrain_player import PbrainPlayer

    times, command = _pbrain_parts(arg)
    return PbrainPlayer(command, timeout_turn_ms=times["turn"], timeout_match_ms=times["match"],
                        name=f"pbrain:{_canonical_pbrain(arg)}")


def _canonical_vcf(arg: str) -> str:
    if not arg:
        raise ValueError("vcf:PATH needs a checkpoint path")
    return arg


def _vcf_noguard(arg, game, options):
    """``vcf-noguard:PATH``: ``vcf:PATH`` with the VCT guard off (``SearchConfig.vct_guard_nodes``
    0), to measure what the guard is worth."""
    p = _vcf(arg, game, options, name="vcf-noguard")
    assert p.config is not None
    p.config = p.config.replace(vct_guard_nodes=0)
    return p


def _vcf(arg, game, options, name: str = "vcf"):
    """``vcf:PATH``: the checkpoint at PATH (or the shipped model NAME) with the Gomoku threat solver
    on (root and new nodes)."""
    _canonical_vcf(arg)
    if not dict(getattr(game, "play_search_options", ())).get("threat_solver", False):  # the games whose engines use it
        raise ValueError(f"vcf:PATH turns on the Gomoku threat solver; this match plays {game.name}")
    path = _checkpoint_path(arg)
    if not os.path.exists(path):
        from zeroplay.nn import CheckpointError
        from zeroplay.nn.shipped import shipped_names

        raise CheckpointError(f"no checkpoint at {arg} (vcf:PATH takes a path, or a shipped model's name: "
                              f"{', '.join(shipped_names()) or 'none ship'})")
    p = checkpoint_player(path, game, playouts=options["playouts"], name=f"{name}:{arg}",
                          opening_moves=options.get("opening_moves", 2), seed=options.get("seed"),
                          device=options.get("device", "cpu"))
    assert p.config is not None  # (a checkpoint player searches)
    p.config = p.config.replace(**dict(game.play_search_options))  # as zeroplay play searches
    return p


def _canonical_gumbel(arg: str) -> str:
    if not arg:
        raise ValueError("gumbel:PATH needs a checkpoint path")
    return arg


def _gumbel(arg, game, options):
    """``gumbel:PATH``: the checkpoint at PATH (or the shipped model NAME) searching with the Gumbel
    root (sequential halving over 16 candidates, no noise: Danihelka et al. 2022)."""
    _canonical_gumbel(arg)
    path = _checkpoint_path(arg)
    if not os.path.exists(path):
        from zeroplay.nn import CheckpointError

        raise CheckpointError(f"no checkpoint at {arg} (gumbel:PATH takes a path, or a shipped model's name)")
    p = checkpoint_player(path, game, playouts=options["playouts"], name=f"gumbel:{arg}",
                          opening_moves=options.get("opening_moves", 2), seed=options.get("seed"),
                          device=options.get("device", "cpu"))
    p.config = p.config.replace(root_policy="gumbel")
    return p


def _heuristic(threat_solver: bool, defence: bool = True):
    def factory(arg, game, options):
        from zeroplay.engine.heuristic import heuristic_evaluator

        prefix = ("heuristic" if defence else "heuristic-nodefence") if threat_solver else "heuristic-plain"
        n = _playouts_arg(prefix, arg)
        evaluator = heuristic_evaluator(game)
        if evaluator is None:
            raise ValueError(f"{prefix}:N plays n-in-a-row games, Connect Four and Go, not {game.name}")
        # as the game's play engines search (``heuristic:N`` plays as the search-only engine does)
        search_options = dict(game.play_search_options) if threat_solver else {}
        if search_options and not defence:
            search_options["defence"] = False
        config = search_config(n, game=game, **search_options)
        # the match's options (seed, opening plies), not the search's: a separate name keeps them
        return SearchPlayer(evaluator, n, name=f"{prefix}:{arg}", opening_moves=options.get("opening_moves", 2),
                            seed=options.get("seed"), config=config)

    return factory


register_player_kind("uniform", _uniform, _canonical_playouts("uniform"))
register_player_kind("rollout", _rollout, _canonical_playouts("rollout"))
register_player_kind("heuristic", _heuristic(True), _canonical_playouts("heuristic"))
register_player_kind("heuristic-plain", _heuristic(False), _canonical_playouts("heuristic-plain"))
register_player_kind("heuristic-nodefence", _heuristic(True, defence=False), _canonical_playouts("heuristic-nodefence"))
register_player_kind("pbrain", _pbrain, _canonical_pbrain)


def _gtp(arg, game, options):
    """``gtp:COMMAND``: a GTP engine for Go, e.g. ``gtp:gnugo --mode gtp --level 1 --chinese-rules
    --capture-all-dead``."""
    from zeroplay.engine.gtp_player import GtpPlayer

    if not arg.strip():
        raise ValueError("gtp:COMMAND needs the engine's command line, e.g. gtp:gnugo --mode gtp --level 1")
    return GtpPlayer(arg.strip(), name=f"gtp:{arg.strip()}")


def gnugo_notes(player, game) -> list[str]:
    """Notes for a Go match whose ``player`` is GNU Go run without the options that make it play
    the arena's rules: ``--capture-all-dead`` and, for area scoring, ``--chinese-rules``.

    The arena counts a Go game ended by two passes Tromp-Taylor (every stone on the board alive,
    as CGOS does), and GNU Go by default passes with its opponent's dead stones still on the board:
    in a 100-game 9x9 match its own ``final_score`` named another winner than the count in 28
    games (docs/STRENGTH.md, "Go 9x9"); ``--capture-all-dead`` makes it remove them first. Its
    default rules are Japanese (territory), so under area scoring it misjudges dame and the count.
    """
    from pathlib import Path

    command = getattr(player, "command", None)
    if game.name != "go" or not command or not player.name.startswith("gtp:") or Path(command[0]).name != "gnugo":
        return []
    notes = []
    if "--capture-all-dead" not in command:
        notes.append(f"{player.name}: a game ended by two passes is counted Tromp-Taylor (every stone on the "
                     "board alive), and GNU Go passes with its opponent's dead stones still on the board unless "
                     "it is given --capture-all-dead: add it, or the count can give GNU Go's won games away")
    if game.rules.scoring == "area" and "--chinese-rules" not in command:
        notes.append(f"{player.name}: the games are counted by area, and GNU Go plays Japanese (territory) rules "
                     "unless it is given --chinese-rules")
    return notes


register_player_kind("gtp", _gtp)
register_player_kind("vcf", _vcf, _canonical_vcf)
register_player_kind("vcf-noguard", _vcf_noguard, _canonical_vcf)
register_player_kind("gumbel", _gumbel, _canonical_gumbel)


def _engine_room_kind(factory_name: str):
    """A player kind made by ``zeroplay.engine.shogi_players`` (imported when the kind is used)."""
    def factory(arg, game, options):
        from zeroplay.engine import shogi_players

        return getattr(shogi_players, factory_name)(arg, game, options)

    return factory


register_player_kind("usi", _engine_room_kind("usi_player"))
register_player_kind("alphabeta", _engine_room_kind("alphabeta_player"))
register_player_kind("shogimcts", _engine_room_kind("shogi_mcts_player"))
register_player_kind("random", _engine_room_kind("random_player"))


def checkpoint_player(path, game: Game, *, playouts: int = 400, name: str | None = None,
                      opening_moves: int = 2, seed: int | None = None, device: str = "cpu") -> SearchPlayer:
    """A SearchPlayer with the network of the checkpoint at ``path`` (checked against ``game``).

    Raises:
        CheckpointError: as ``load_checkpoint``, and for a file that cannot be read (permission
            denied, I/O error), in ``zeroplay play``'s words.
    """
    from zeroplay.nn import CheckpointError, NetEvaluator, load_checkpoint

    try:
        ck = load_checkpoint(path, game=game, device=device)
    except OSError as e:  # one line from the command, not a traceback (play.engine.unreadable's words)
        raise CheckpointError(f"cannot read checkpoint {os.fspath(path)}: {e.strerror or e}") from None
    return SearchPlayer(NetEvaluator(ck.model, ck.features, device=device), playouts,
                        name=name or os.fspath(path), opening_moves=opening_moves, seed=seed,
                        config=search_config(playouts, game=game))


def _checkpoint_path(arg: str) -> str:
    """A checkpoint given by path or by a shipped model's name -> its path (``nn.shipped``: a file
    that exists wins over the name; anything else stays as it is)."""
    from zeroplay.nn.shipped import resolve_model

    return resolve_model(arg)


def checkpoint_file(spec: str) -> str | None:
    """The checkpoint file a player spec plays (``PATH``, ``NAME``, ``vcf:PATH`` or ``vcf:NAME``),
    by ``make_player``'s rule (a registered ``KIND:`` prefix first, then any existing file, then a
    shipped model's name, which gives its file in the package: a name and its path are one player
    to a match record); None for other kinds."""
    prefix, sep, arg = spec.partition(":")
    if sep and prefix in _KINDS:
        return _checkpoint_path(arg) if prefix in ("vcf", "vcf-noguard", "gumbel") else None
    path = _checkpoint_path(spec)
    return path if path != spec or os.path.exists(spec) or spec.endswith(".safetensors") else None


def make_player(spec: str, game: Game, *, playouts: int = 400, seed: int | None = None,
                device: str = "cpu", opening_moves: int = 2) -> Player:
    """The player named by ``spec`` (see the module docstring), with its ``canonical_spec`` as its
    name (checkpoints: the path or shipped model's name as given).

    Args:
        playouts: per move, for checkpoint players (``uniform:N`` / ``rollout:N`` carry their own).

    Raises:
        ValueError: an unknown kind, a bad number, a missing file; CheckpointError /
            CheckpointMismatchError (both ValueError) for a checkpoint that does not fit ``game``.
    """
    spec = canonical_spec(spec)
    prefix, sep, arg = spec.partition(":")
    if sep and prefix in _KINDS:
        return _KINDS[prefix](arg, game, {"playouts": playouts, "seed": seed, "device": device,
                                          "opening_moves": opening_moves})
    path = checkpoint_file(spec)
    if path is not None and os.path.exists(path):
        return checkpoint_player(path, game, playouts=playouts, name=spec, seed=seed, device=device,
                                 opening_moves=opening_moves)
    from zeroplay.nn.shipped import shipped_names

    kinds = ", ".join(f"{k}:..." for k in sorted(_KINDS))
    names = ", ".join(shipped_names()) or "none ship"
    if spec.endswith(".safetensors") or os.sep in spec:
        raise ValueError(f"checkpoint {spec} not found (a player is a checkpoint file, a shipped model's "
                         f"name ({names}) or one of {kinds})")
    raise ValueError(f"player {spec!r} is neither a checkpoint file nor one of {kinds} (nor a shipped "
                     f"model: {names})")


# --- matches --------------------------------------------------------------------------------------
@dataclass
class MatchResult:
    """A match from the first player's (A's) point of view.

    Attributes:
        a, b: player names.
        wins, draws, losses: A's results.
        as_black: A's (wins, draws, losses) in the games A played Black; as_white likewise.
        games: per game, ``(a_is_black, winner, moves)`` (winner 0 / 1 / None).
    """

    a: str
    b: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    as_black: list = field(default_factory=lambda: [0, 0, 0])
    as_white: list = field(default_factory=lambda: [0, 0, 0])
    games: list = field(default_factory=list)

    @property
    def played(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """(wins + draws / 2) / games for A."""
        return (self.wins + 0.5 * self.draws) / self.played if self.played else 0.0

    def elo(self) -> EloEstimate:
        """Elo difference A - B with its 95 % interval."""
        return elo_estimate(self.wins, self.draws, self.losses)

    def add(self, a_is_black: bool, winner: int | None, moves) -> None:
        """Book one finished game."""
        if winner is None:
            k = 1
        else:
            a_won = (winner == 0) == a_is_black
            k = 0 if a_won else 2
        self.wins += k == 0
        self.draws += k == 1
        self.losses += k == 2
        (self.as_black if a_is_black else self.as_white)[k] += 1
        self.games.append((a_is_black, winner, [int(m) for m in moves]))

    def to_dict(self) -> dict:
        e = self.elo()
        return {"a": self.a, "b": self.b, "games": self.played, "wins": self.wins, "draws": self.draws,
                "losses": self.losses, "score": round(self.score, 4), "elo": _num(e.elo),
                "elo_low": _num(e.elo_low), "elo_high": _num(e.elo_high),
                "a_as_black": dict(zip(("wins", "draws", "losses"), self.as_black)),
                "a_as_white": dict(zip(("wins", "draws", "losses"), self.as_white))}

    def __str__(self) -> str:
        return f"{self.a} vs {self.b}: {self.elo()}  ({self.played} games)"


def _num(x: float) -> float | None:
    return None if not np.isfinite(x) else round(float(x), 1)


def play_match(game: Game, a: Player, b: Player, games: int, *, parallel: int = 64,
               progress=None, done=(), on_game: Callable | None = None, openings=None) -> MatchResult:
    """Play ``games`` games between ``a`` and ``b``, A Black in even-numbered games.

    Lockstep (``search_many``) when both are SearchPlayers, else one game after another.

    Args:
        parallel: games at once in lockstep mode.
        progress: optional tqdm-like object, ``update(1)`` per game played here (not for ``done``).
        done: games already played (objects with ``index``, ``a_is_black``, ``winner``, ``moves``,
            e.g. ``match_record.RecordedGame``): booked first; only the other indices in
            ``range(games)`` are played. Those with an index >= ``games`` are ignored.
        on_game: called as ``on_game(index, a_is_black, winner, moves)`` as each game ends
            (``moves`` from the initial position: the opening's first).
        openings: an ``arena_openings.Openings``: game ``index`` starts after
            ``openings.actions(game, index)`` (the same for games 2k and 2k + 1); None: from the
            initial position.
    """
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    result = MatchResult(a.name, b.name)
    booked = set()
    for g in sorted(done, key=lambda g: g.index):
        if g.index < games:
            result.add(g.a_is_black, g.winner, g.moves)
            booked.add(g.index)
    todo = [g for g in range(games) if g not in booked]

    def start(index: int) -> State:
        return game.initial() if openings is None else openings.start(game, index)

    def finish(index: int, state: State, winner: int | None = None) -> None:
        winner = state.winner if winner is None else winner
        result.add(index % 2 == 0, winner, state.moves)
        if on_game is not None:
            on_game(index, index % 2 == 0, winner, state.moves)
        if progress is not None:
            progress.update(1)

    if isinstance(a, SearchPlayer) and isinstance(b, SearchPlayer):
        _lockstep(game, a, b, todo, max(1, parallel), finish, start)
    else:
        for g in todo:
            players = (a, b) if g % 2 == 0 else (b, a)
            for p in players:
                p.new_game(game)
                if isinstance(p, SearchPlayer):
                    p.rng = p.game_rng(g)
            state = start(g)
            winner = None
            try:
                while not state.is_terminal:
                    state = state.play(int(players[state.to_play].play(state)))
            except Resignation:  # a GTP engine's "resign": the game goes to the other side
                winner = 1 - state.to_play
            finish(g, state, winner)
    return result


def _lockstep(game, a: SearchPlayer, b: SearchPlayer, todo: list[int], parallel: int, finish, initial) -> None:
    queue = list(reversed(todo))
    live = []  # [game index, state, {player: searcher}, {player: opening sampler}]

    def start():
        g = queue.pop()
        live.append([g, initial(g), {id(a): a.new_searcher(game), id(b): b.new_searcher(game)},
                     {id(a): a.game_rng(g), id(b): b.game_rng(g)}])

    while queue and len(live) < parallel:
        start()
    while live:
        for player in (a, b):
            turn = [row for row in live if not row[1].is_terminal and _mover(row, a, b) is player]
            if not turn:
                continue
            searchers = [row[2][id(player)] for row in turn]
            results = search_many([row[1] for row in turn], searchers[0].evaluator, playouts=player.playouts,
                                  searchers=searchers)
            for row, res in zip(turn, results):
                row[1] = row[1].play(player.choose(row[1], res, row[3][id(player)]))
        still = []
        for row in live:
            if row[1].is_terminal:
                finish(row[0], row[1])
            else:
                still.append(row)
        live[:] = still
        while queue and len(live) < parallel:
            start()


def _mover(row, a, b):
    a_black = row[0] % 2 == 0
    return a if (row[1].to_play == 0) == a_black else b
