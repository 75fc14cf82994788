"""What the Gomocup manager's ``INFO`` lines set, and the limits they put on a turn.

``InfoLimits`` is part of ``pbrain_engine.PbrainEngine`` (a mixin: the attributes it reads,
``timeout_turn_ms``, ``time_left_ms``, ``max_memory``, ``rule``, ``rule_error``, ``model``, ... are
set in ``PbrainEngine.__init__``).

Time: the search gets ``min(timeout_turn, time_left / 16) * 0.8 - 0.1 s`` (at most ``--playouts``
playouts), with ``time_left`` the last one the manager sent, whatever ``timeout_match`` says (the
protocol: managers send ``INFO time_left`` before each move of a timed match, 2147483647 when the
match time is unlimited, so a brain relies on it and not on ``timeout_match``; a negative one
counts as 0): ``InfoLimits.move_seconds``. The three times are clamped to ``MAX_PROTOCOL_MS``
(the protocol's 32-bit "unlimited"), so that no timer or wait gets a time the platform cannot hold.
The turn's clock starts when its command is read (``PbrainEngine.handle``): building the search's
tables counts against it.

Rules: ``INFO rule`` is a bitmask (1 exactly five, 2 continuous, 4 renju, 8 caro); zeroplay plays
0, 1 and 4, and the commands that ask for a move answer ``ERROR rule ...`` while another is set,
or while the ``--model`` given cannot play it (``model_error``).

Memory: the net runs in numpy by default (``--inference numpy``, ``nn.numpy_net``): torch is never
imported, which saves about 190 MiB of the ``INFO max_memory`` that the whole process must stay
under; the search's tables get what ``max_memory`` leaves after the process's resident memory
(``search_memory``), at most ``MAX_TABLE_BYTES`` and ``PHYSICAL_MEMORY_SHARE`` of the machine's
physical memory (``table_cap``: the tables are built within a turn) and the largest node table the
search accepts (``largest_tables``). A ``max_memory`` the process cannot
keep to is said in a ``MESSAGE`` once (``memory_shortfall``): at the ``INFO`` line when the process
already holds more, else when the searcher is made; so is one beyond ``table_cap``
(``memory_capped``). A negative ``max_memory`` is taken as 0 (the protocol's "no limit"), said in
a ``MESSAGE``.
"""

from __future__ import annotations

import os
from typing import Any

from zeroplay.games import option_names
from zeroplay.games.gomoku import MAX_SIZE, MIN_SIZE
from zeroplay.play.pbrain_base import PbrainBase
from zeroplay.play.pbrain_protocol import INT_VALUE, quote

DEFAULT_TURN_MS = 5000
"""Turn time assumed until the manager sends ``INFO timeout_turn``."""

MAX_PROTOCOL_MS = 2**31 - 1
"""Most milliseconds ``timeout_turn``, ``timeout_match`` and ``time_left`` are taken as: the
protocol's 32-bit "unlimited" (24.8 days). 99999999999999999999999 ms reached the threat search's
``threading.Timer``, whose thread failed each time ("timestamp out of range for platform time_t")."""

RULE_EXACT5, RULE_CONTINUOUS, RULE_RENJU, RULE_CARO = 1, 2, 4, 8
UNSUPPORTED_RULES = {RULE_CONTINUOUS: "continuous game", RULE_CARO: "caro"}


class InfoLimits(PbrainBase):
    """``INFO`` settings of ``PbrainEngine``: the rule, the turn's time budget, the model's fit."""

    def _cmd_info(self, arg: str) -> None:
        key, _, value = arg.partition(" ")
        key, value = key.lower(), value.strip()
        if key not in ("timeout_turn", "timeout_match", "time_left", "max_memory", "game_type", "rule"):
            return  # evaluate, folder and keys of future protocol versions: nothing to do
        if not INT_VALUE.match(value):
            self._debug(f"ignored INFO {key} with a non-integer value {quote(value)!r}")
            return
        number = int(value)
        if key in ("timeout_turn", "timeout_match", "time_left"):
            ms = min(max(number, 0), MAX_PROTOCOL_MS)
            if ms != max(number, 0):
                self._debug(f"INFO {key} {number} taken as {ms} ms")
            if key == "timeout_turn":
                self.timeout_turn_ms = ms
            elif key == "timeout_match":
                self.timeout_match_ms = ms
            else:
                self.time_left_ms = ms
        elif key == "max_memory":
            if number < 0:  # not the protocol's; taken as its "no limit" (0), and said so
                self._say(f"MESSAGE INFO max_memory {number} is negative: taken as 0, no limit")
            self.max_memory = max(number, 0)
            from zeroplay.files.resident import current_rss  # (not the search's: the warm-up may be importing it)

            self._check_memory(current_rss())
        elif key == "rule":
            self._set_rule(number)

    def _check_memory(self, rss: int) -> None:
        """Say once per ``max_memory`` value (a ``MESSAGE``, ``memory_shortfall``) that the process,
        holding ``rss`` bytes, cannot keep to it: at ``INFO max_memory`` when the process already
        holds too much, else when the searcher is made (the net loaded by then); or that the
        search's tables are capped below what it leaves (``memory_capped``)."""
        if self.max_memory == self._memory_told:
            return
        if (short := memory_shortfall(self.max_memory, rss) or memory_capped(self.max_memory, rss)) is not None:
            self._say(short)  # the manager's limit cannot hold: said, not silently exceeded
            self._memory_told = self.max_memory

    def _set_rule(self, bits: int) -> None:
        # a number outside the protocol's bits is named as such, not read as bits it would set
        # ("rule -1 (continuous game, caro, bits -1)"; helper-80)
        unsupported = (["not a sum of the protocol's bits 1, 2, 4, 8"] if bits < 0 or bits >= 16
                       else [name for bit, name in UNSUPPORTED_RULES.items() if bits & bit])
        if unsupported:
            self.rule_error = (f"rule {bits} ({', '.join(unsupported)}) is not supported; "
                               "zeroplay plays free-style (rule 0), exactly five (rule 1) and renju (rule 4)")
            return
        self.rule_error = None
        if bits != self.rule:
            self.rule = bits
            self._fresh_tree = True
        if self.model is not None and self.use_search:
            # as a board the model cannot play (START): ERROR at each move command, not quick moves
            # for the whole game; without --model the search-only engine plays a rule no shipped
            # model fits (make_engine)
            self.rule_error = model_error(self.model, rule=self._rule_name())

    def _rule_name(self) -> str:
        """The Game API's rule for ``INFO rule``: ``"renju"`` (bit 4), ``"standard"`` (exactly
        five) or ``"freestyle"``."""
        if self.rule & RULE_RENJU:
            return "renju"
        return "standard" if self.exact_five else "freestyle"

    def _model_misfit(self, width: int, height: int) -> str | None:
        """Why ``--model`` cannot play a ``width`` x ``height`` board (None: it can, or no model)."""
        if self.model is None or not self.use_search:
            return None
        return model_error(self.model, width, height)

    @property
    def exact_five(self) -> bool:
        return bool(self.rule & RULE_EXACT5)

    def move_seconds(self) -> float | None:
        """Seconds the search may take for this move; None = answer at once (timeout_turn 0).

        The turn time and, once the manager has sent ``INFO time_left``, 1/16 of the time left
        (whatever ``timeout_match`` says: the protocol has the brain rely on time_left alone);
        then 80 % of that less 0.1 s for start-up and the reply, the margin on a loaded machine.
        """
        if self.timeout_turn_ms == 0:
            return None
        budget = self.timeout_turn_ms / 1000.0  # (at most MAX_PROTOCOL_MS: a time any timer holds)
        if self.time_left_ms is not None:
            budget = min(budget, self.time_left_ms / 1000.0 / 16.0)
        return max(budget * 0.8 - 0.1, 0.0)

    def _budget_text(self) -> str:
        """The limits ``move_seconds`` used, for the log."""
        text = f"timeout_turn {self.timeout_turn_ms} ms"
        return text + (f", time_left {self.time_left_ms} ms" if self.time_left_ms is not None else "")


def model_error(model: str, width: int | None = None, height: int | None = None, *, rule: str | None = None,
                load: bool = False, inference: str = "numpy") -> str | None:
    """Why ``model`` (a path or a shipped model's name) cannot play the protocol's game on a
    ``width`` x ``height`` board, in ``zeroplay play``'s words (``engine.check_model``); None: it can.

    The protocol's game is Gomoku, five in a row. ``rule`` is the one ``INFO rule`` asked for
    (``"freestyle"``, ``"standard"`` or ``"renju"``); None takes the model's own, as at START (``INFO rule`` may
    come after it). Without a size (the start-up check, before any START, and a rule change) the
    board is the model's own where the protocol has it, so only the game and its options are
    checked then. ``load`` also loads the weights (their checksum) with ``inference``'s loader, as
    ``zeroplay play`` does before its first move: the start-up check, so that damaged weights
    stop the engine instead of leaving it to quick heuristic moves.
    """
    from zeroplay.engine.factory import check_model, load_model
    from zeroplay.games import make
    from zeroplay.nn.record import CheckpointError, CheckpointMismatchError, checkpoint_game

    try:
        path = check_model(model)
        name, options = checkpoint_game(path)
        if width is None or height is None:
            own: tuple[Any, ...] = (options.get("width"), options.get("height")) if "size" in option_names(name) else ()
            playable = len(own) == 2 and all(isinstance(v, int) and MIN_SIZE <= v <= MAX_SIZE for v in own)
            width, height = own if playable else (15, 15)
        if rule is None:
            rule = options.get("rule") if options.get("rule") in ("freestyle", "standard", "renju") else "freestyle"
        game = make("gomoku", width=width, height=height, n_in_row=5, rule=rule)
        check_model(path, game)
        if load:
            load_model(path, game, inference=inference)
    except CheckpointMismatchError as e:
        # "wanted 5" or "wanted 'standard'" alone does not say who wants it
        who = []
        if any(d.startswith(("game:", "game option n_in_row")) for d in e.differences):
            who.append("the Gomocup protocol plays five in a row")
        if any(d.startswith("game option rule") for d in e.differences):
            asked: dict[str | None, str] = {"standard": "1 asks for exactly five", "renju": "4 asks for renju"}
            who.append("INFO rule " + asked.get(rule, "0 asks for free-style"))
        return f"{e} ({'; '.join(who)})" if who else str(e)
    except CheckpointError as e:
        return str(e)
    return None


DEFAULT_MEMORY_BYTES = 256 << 20
"""Budget of the search's tables when the manager sends no ``INFO max_memory`` (256 MiB)."""
MEMORY_MARGIN_BYTES = 64 << 20
"""Part of ``max_memory`` kept free beyond what the process holds when its searcher is made:
leaf batches, the network's activations, compiled code loaded by the first searches, Python's own
growth (64 MiB). Measured: the process grew 34 MiB beyond its tables over its first three turns
(numpy net, 15x15; ``scripts/pbrain_memory_full.py``, docs/BENCHMARKS.md)."""
MIN_MEMORY_BYTES = 4 << 20
"""Smallest budget the search gets, however little ``max_memory`` leaves (4 MiB)."""
MAX_TABLE_BYTES = 2 << 30
"""Most bytes the search's tables get, whatever ``max_memory`` allows (2 GiB, the cap of the
search's own sizing by playouts, ``search.config.MAX_PLAYOUT_MEMORY``). The tables are built, and
emptied for each new game, inside a turn: 8 GiB took 0.8 s to build on a loaded 2-core machine,
6 GiB 0.6 s (a 1 s turn's move was then the root's one playout), and a user's 100 GB answered 8 s
into a 1 s turn. No search of this engine fills 2 GiB: 15x15 tables of that size hold about 4
million nodes, and a search adds about two a playout at 100-200 playouts a second (a full table
recycles its least visited nodes and the search goes on)."""
PHYSICAL_MEMORY_SHARE = 0.25
"""Most of the machine's physical memory the search's tables get (on a machine of under 8 GiB,
less than ``MAX_TABLE_BYTES``): the rest is the manager's, the opponent's and the system's."""
MAX_NODE_CAPACITY = 1 << 31
"""Most hash slots of the search's node table (``tt.node_table.new_node_table``): a bigger budget
is cut to the largest whose table has no more (``largest_tables``). Under ``MAX_TABLE_BYTES`` no
board comes near it (2^24 slots on 5x5); it holds should that cap be raised, as 10 TB once asked
for 2^34 and the search failed every turn after."""


def physical_memory() -> int | None:
    """Bytes of physical memory of this machine, or None where the platform does not say."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return pages * size if pages > 0 and size > 0 else None


def _measured(rss: int | None, physical: int | None) -> tuple[int, int]:
    """``rss`` and ``physical``, measured where None (``physical`` 0: unknown)."""
    if rss is None:
        from zeroplay.files.resident import current_rss

        rss = current_rss()
    if physical is None:
        physical = physical_memory() or 0
    return int(rss), int(physical)


def table_cap(physical: int | None = None) -> int:
    """Most bytes the search's tables get on a machine of ``physical`` bytes of memory (None:
    this one's, ``physical_memory``; 0: unknown): ``MAX_TABLE_BYTES``, at most
    ``PHYSICAL_MEMORY_SHARE`` of that memory, at least ``MIN_MEMORY_BYTES``."""
    _, physical = _measured(0, physical)
    cap = MAX_TABLE_BYTES if physical <= 0 else min(MAX_TABLE_BYTES, int(physical * PHYSICAL_MEMORY_SHARE))
    return max(MIN_MEMORY_BYTES, cap)


def search_memory(max_memory: int, rss: int | None = None, physical: int | None = None) -> int:
    """Bytes the search's tables may take (``SearchConfig.for_memory``): what ``max_memory``
    leaves after the process's resident memory now (``rss``, measured when None; the model and
    torch are loaded by then) and ``MEMORY_MARGIN_BYTES``, at least ``MIN_MEMORY_BYTES`` and at
    most ``table_cap(physical)`` (``physical``: the machine's memory in bytes; None: measured;
    0: unknown); ``DEFAULT_MEMORY_BYTES`` when max_memory is 0 (no limit sent). A search that
    fills its tables recycles its least visited nodes and goes on for the whole turn."""
    if max_memory <= 0:
        return DEFAULT_MEMORY_BYTES
    rss, physical = _measured(rss, physical)
    return max(MIN_MEMORY_BYTES, min(int(max_memory) - rss - MEMORY_MARGIN_BYTES, table_cap(physical)))


def memory_capped(max_memory: int, rss: int, physical: int | None = None) -> str | None:
    """The ``MESSAGE`` line for a ``max_memory`` (bytes) that leaves the search more than
    ``table_cap(physical)`` after the process's ``rss`` (bytes): its tables are capped there;
    None when they are not (or no limit was sent)."""
    rss, physical = _measured(rss, physical)
    cap = table_cap(physical)
    if max_memory <= 0 or int(max_memory) - rss - MEMORY_MARGIN_BYTES <= cap:
        return None
    mib = 2**20
    machine = f", {PHYSICAL_MEMORY_SHARE:.0%} of this machine's {physical / mib:.0f} MiB" if physical > 0 else ""
    # whole-number rounding: a float's MiB of 1e23 bytes read 95367431640624992 (helper-75)
    asked = (int(max_memory) + mib // 2) // mib
    return (f"MESSAGE INFO max_memory {max_memory} ({asked} MiB) is more than the search uses: its "
            f"tables are capped at {cap / mib:.0f} MiB (at most {MAX_TABLE_BYTES / mib:.0f} MiB{machine}; they are "
            "built within the turn)")


def largest_tables(budget: int, game, overrides: dict) -> int:
    """``budget`` (bytes), or, where its node table would pass ``MAX_NODE_CAPACITY`` slots, the
    largest budget below it whose table does not (``SearchConfig.for_memory`` for ``game`` with
    the searcher's config ``overrides``). Arithmetic only: nothing is allocated."""
    from zeroplay.search import SearchConfig

    def fits(nbytes: int) -> bool:
        return SearchConfig.for_memory(nbytes, game, **overrides).node_capacity <= MAX_NODE_CAPACITY

    if fits(budget):
        return budget
    low, high = MIN_MEMORY_BYTES, budget - 1  # fits(low), not fits(high + 1)
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if fits(mid) else (low, mid - 1)
    return low


def memory_shortfall(max_memory: int, rss: int) -> str | None:
    """The ``MESSAGE`` line for a manager whose ``INFO max_memory`` (bytes) the process cannot keep
    to: below its resident memory ``rss`` (bytes: the interpreter, compiled kernels, the net)
    plus ``MEMORY_MARGIN_BYTES`` and the smallest tables; None when it can (or no limit was sent)."""
    need = rss + MEMORY_MARGIN_BYTES + MIN_MEMORY_BYTES
    if max_memory <= 0 or max_memory >= need:
        return None
    mib = 2**20
    return (f"MESSAGE INFO max_memory {max_memory} ({max_memory / mib:.0f} MiB) is below what this engine needs: "
            f"the process holds {rss / mib:.0f} MiB before it searches (the interpreter, compiled kernels, the "
            f"net); it plays with the smallest tables ({MIN_MEMORY_BYTES / mib:.0f} MiB), about {need / mib:.0f} "
            "MiB in all")
