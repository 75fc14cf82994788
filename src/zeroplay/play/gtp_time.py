"""GTP time controls (``time_settings`` / ``time_left``, GTP 2.0 sections 4.2, 6.3.3) and the
think time per ``genmove`` they give, with a cap on every move.

A GUI or a peer sends these numbers: ``time_settings 1e308 0 0`` is valid GTP (absolute time,
about 10^300 years), and 1/30 of it as the move's time would never end. So every move's time is
at most ``max_seconds`` (``zeroplay gtp --max-seconds``, default ``DEFAULT_MAX_MOVE_SECONDS``),
and values that are not finite numbers are refused.
"""

from __future__ import annotations

import math

DEFAULT_MAX_MOVE_SECONDS = 600.0
"""Most seconds one ``genmove`` thinks, whatever the time controls say (10 minutes: more than
1/30 of a 4-hour main time; ``--max-seconds`` changes it)."""
MIN_MOVE_SECONDS = 0.05
"""Least seconds a timed move thinks (a clock near zero still gets a searched move)."""
MAIN_TIME_SHARE = 30
"""Moves the main time left is shared over (a move thinks 1/30 of it)."""
BYO_YOMI_SHARE = 0.8
"""Share of a byo-yomi period's time per stone a move thinks, less ``BYO_YOMI_MARGIN_S``."""
BYO_YOMI_MARGIN_S = 0.2
"""Seconds kept back per byo-yomi move for the reply to reach the clock."""


class TimeError(ValueError):
    """A ``time_settings`` / ``time_left`` argument that is not a finite number >= 0."""


def _seconds(text: str, what: str) -> float:
    from zeroplay.play.gtp_text import decimal

    value = decimal(text)  # ASCII digits only: float() also reads "7_5" and other scripts' digits
    if value is None:
        raise TimeError(f"{what} must be a finite number of seconds >= 0, not {text[:20]!r}")
    if not math.isfinite(value) or value < 0:
        raise TimeError(f"{what} must be a finite number of seconds >= 0, not {text[:20]}")
    return value


def _stones(text: str, what: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise TimeError(f"{what} must be a whole number >= 0, not {text[:20]!r}")
    return int(text)


class TimeControl:
    """The clock of a GTP game: main time, Canadian byo-yomi (``byo_s`` seconds for
    ``byo_stones`` stones) or Japanese byo-yomi (``periods`` periods of ``byo_s`` seconds, a move
    each: KGS's ``kgs-time_settings byoyomi``), and what ``time_left`` last said for each colour.

    Args:
        max_seconds: the cap on one move's think time, seconds (finite, > 0).

    Raises:
        ValueError: ``max_seconds`` not a finite number > 0.
    """

    def __init__(self, max_seconds: float = DEFAULT_MAX_MOVE_SECONDS):
        if not (math.isfinite(max_seconds) and max_seconds > 0):
            raise ValueError(f"max_seconds must be a finite number > 0, got {max_seconds!r}")
        self.max_seconds = float(max_seconds)
        self.settings(0.0, 0.0, 0)

    def settings(self, main_s: float, byo_s: float, byo_stones: int, periods: int = 0) -> None:
        """``time_settings``: a new clock for both colours (what ``time_left`` said is dropped).
        ``periods`` > 0: Japanese byo-yomi, ``byo_s`` per move in each of ``periods`` periods
        (``byo_stones`` is then 1); its ``time_left`` gives the current period's seconds and the
        periods left."""
        self.main_s, self.byo_s, self.byo_stones = float(main_s), float(byo_s), int(byo_stones)
        self.periods = int(periods)
        self.left: dict[int, tuple[float, int] | None] = {0: None, 1: None}

    def parse_kgs_settings(self, args: list[str]) -> None:
        """KGS's ``kgs-time_settings`` (kgsGtp): ``none``, ``absolute MAIN``, ``byoyomi MAIN
        PERIOD_TIME PERIODS`` (Japanese) or ``canadian MAIN BYO_TIME STONES``, times in seconds;
        raises TimeError (the clock unchanged) on bad input."""
        kind = args[0].lower() if args else ""
        counts = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}
        if kind not in counts or len(args) != 1 + counts[kind]:
            raise TimeError("kgs-time_settings takes none, absolute MAIN, byoyomi MAIN PERIOD_TIME PERIODS "
                            "or canadian MAIN BYO_TIME STONES")
        if kind == "none":
            self.settings(0.0, 0.0, 0)
        elif kind == "absolute":
            self.settings(_seconds(args[1], "main time"), 0.0, 0)
        elif kind == "canadian":
            self.settings(_seconds(args[1], "main time"), _seconds(args[2], "byo-yomi time"),
                          _stones(args[3], "byo-yomi stones"))
        else:
            main, period, periods = _seconds(args[1], "main time"), _seconds(args[2], "period time"), \
                _stones(args[3], "periods")
            if period > 0 and periods == 0:
                raise TimeError("byoyomi with a period time needs at least one period")
            self.settings(main, period, 1 if periods else 0, periods)

    def parse_settings(self, args: list[str]) -> None:
        """``time_settings MAIN BYO STONES``; raises TimeError (the clock unchanged) on bad input."""
        if len(args) != 3:
            raise TimeError("time_settings takes main time, byo-yomi time and byo-yomi stones")
        self.settings(_seconds(args[0], "main time"), _seconds(args[1], "byo-yomi time"),
                      _stones(args[2], "byo-yomi stones"))

    def parse_left(self, color: int, args: list[str]) -> None:
        """``time_left COLOR SECONDS STONES`` (``args``: SECONDS STONES); raises TimeError.
        Negative seconds (a clock past zero) count as 0."""
        if len(args) != 2:
            raise TimeError("time_left takes a colour, seconds and stones")
        try:
            seconds = float(args[0])
        except ValueError:
            raise TimeError(f"time left must be a number of seconds, not {args[0][:20]!r}") from None
        if not math.isfinite(seconds):
            raise TimeError(f"time left must be a finite number of seconds, not {args[0][:20]}")
        self.left[color] = (max(seconds, 0.0), _stones(args[1], "stones"))

    @property
    def unlimited(self) -> bool:
        """No time limits: no time_settings yet (or all zero), or byo-yomi time with 0 stones
        (GTP 2.0 section 4.2's "no time limit")."""
        return (self.main_s <= 0 and self.byo_s <= 0) or (self.byo_s > 0 and self.byo_stones == 0)

    def move_seconds(self, color: int) -> float | None:
        """Seconds ``color``'s next move may think, in [MIN_MOVE_SECONDS, max_seconds]; None when
        there are no time limits (the engine's playouts decide).

        In byo-yomi (stones to play in the period > 0; Japanese: periods left > 0): 80 % of the
        period's time per stone less 0.2 s; in main time: 1/30 of what is left."""
        if self.unlimited:
            return None
        left = self.left[color]
        if left is None:
            left = (self.main_s, 0) if self.main_s > 0 else (self.byo_s, self.byo_stones)
        seconds, stones = left
        if stones > 0 and self.periods:  # Japanese: the stones field counts periods, a move each
            stones = 1
        if stones > 0:
            think = BYO_YOMI_SHARE * seconds / stones - BYO_YOMI_MARGIN_S
        else:
            think = seconds / MAIN_TIME_SHARE
        return min(max(MIN_MOVE_SECONDS, think), self.max_seconds)
