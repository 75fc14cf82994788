"""The attributes and methods that ``PbrainEngine``'s mixins (``pbrain_blocks``, ``pbrain_limits``,
``pbrain_turn``) read of one another, declared for the type checker.

``PbrainBase`` holds no state and no code at run time: the attributes are set in
``PbrainEngine.__init__``, the methods are defined by the engine and its mixins; the declarations
only let each mixin be checked on its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

if TYPE_CHECKING:
    from zeroplay.search.result import SearchResult


class PbrainBase:
    """What ``PbrainEngine.__init__`` sets, and the methods one mixin calls on another's."""

    out: Callable[[str], None]
    inference: str
    log: TextIO
    max_playouts: int
    model: str | None
    use_search: bool
    finished: bool
    # game
    width: int
    height: int
    board: np.ndarray
    last_opponent: int | None
    # settings from INFO
    timeout_turn_ms: int
    timeout_match_ms: int
    time_left_ms: int | None
    max_memory: int
    _memory_told: int
    rule: int
    rule_error: str | None
    _no_game: str
    # a multi-line command's block
    _block: str | None
    _board_lines: list[str]
    _board_bad: str | None
    # search
    _ready: threading.Event
    _model_ready: threading.Event
    _warm_error: str | None
    _searcher: Any  # the engine's searcher (its type depends on the engine), or None
    _searcher_key: tuple | None
    _engines: dict
    _stopgaps: dict
    _last_result: SearchResult | None
    _analysing: bool
    stop_requested: threading.Event
    _fresh_tree: bool
    _command_started: float
    _search_started: float | None

    if TYPE_CHECKING:
        # PbrainEngine
        def _say(self, text: str) -> None: ...
        def _debug(self, text: str) -> None: ...
        def _started(self) -> bool: ...

        # InfoLimits
        def _rule_name(self) -> str: ...
        def _model_misfit(self, width: int, height: int) -> str | None: ...
        def _check_memory(self, rss: int) -> None: ...
        @property
        def exact_five(self) -> bool: ...
        def move_seconds(self) -> float | None: ...
        def _budget_text(self) -> str: ...

        # Turns
        def _evaluate(self, state, seconds: float | None) -> tuple[float, int]: ...
        def _reply_move(self) -> None: ...
