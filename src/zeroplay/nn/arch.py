"""Architecture specs: the names users type (``tiny``, ``b6c64``) and the dict a checkpoint stores.

An ``ArchSpec`` fixes everything needed to rebuild a network's modules, so that a checkpoint's
``arch`` metadata plus its weights give back the same model with no code of the user's run.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from zeroplay.games import Game
from zeroplay.games.planes import FEATURE_CHANNELS, check_features

PRESETS = ("tiny", "b6c64", "b10c128")
"""Named presets; any ``bNcM`` (N residual blocks of M channels) is accepted as well, with the
options ``-gpool`` (KataGo's global pooling blocks), ``-opp`` (an auxiliary opponent-reply
policy head) and ``-own`` (auxiliary final-ownership and score heads) appended in that order,
e.g. ``b6c64-gpool-opp`` or ``b6c64-gpool-own``."""
OPTION_GPOOL = "-gpool"
OPTION_OPP = "-opp"
OPTION_OWN = "-own"

PLANES_VERSION = 1
"""Version of the ``State.planes`` encodings; bump when a feature set's planes change meaning
(checkpoints and replay shards record it and refuse another)."""

HEAD_CELLS = "cells"
HEAD_COLUMNS = "columns"
HEAD_CELLS_PASS = "cells+pass"
HEADS = (HEAD_CELLS, HEAD_COLUMNS, HEAD_CELLS_PASS)
_TOWER = re.compile(r"^b(\d+)c(\d+)(-gpool)?(-opp)?(-own)?$")

TOWER_HEAD_CHANNELS = 32
"""Channels of a tower's policy, value and opponent-reply heads (their 1x1 convolutions)."""
VALUE_HIDDEN = 64
"""Width of the value head's hidden dense layer (towers and ``tiny``)."""
TINY_CONVS = (32, 64, 128)
"""``tiny``'s three 3x3 convolutions, output channels in order."""
TINY_POLICY_FILTERS, TINY_VALUE_FILTERS = 4, 2
"""``tiny``'s 1x1 head convolutions before their dense layers."""


def global_pool_blocks(blocks: int) -> set[int]:
    """Indices (from 0) of the global pooling blocks of a ``blocks``-block tower: every third
    (2, 5, 8, ...), or the last when there are fewer than three."""
    return set(range(2, blocks, 3)) or {blocks - 1}


def global_pool_channels(channels: int) -> int:
    """G, the pooled channels of a global pooling block of a ``channels``-wide tower: max(8, C // 4)."""
    return max(8, channels // 4)


@dataclass(frozen=True)
class ArchSpec:
    """What a network is, independent of its weights.

    Attributes:
        name: ``"tiny"`` or ``"bNcM"``.
        kind: ``"tiny"`` (size-specific dense heads) or ``"tower"`` (fully convolutional).
        in_channels: input planes, from the feature set (``"basic"`` 3, ``"alphazero-gomoku"`` 4,
            ``"basic+threats"`` 11: ``games.planes.FEATURE_CHANNELS``).
        blocks, channels: residual blocks and their width (towers; 0 for ``tiny``).
        head: how cell logits become action logits: ``"cells"`` (action = cell, Gomoku) or
            ``"columns"`` (action = column, gravity games such as Connect Four; the column's
            logit is the log-sum-exp of its cells' logits, i.e. its probability is the sum of
            theirs), or ``"cells+pass"`` (the cells, then a pass logit from the pooled policy
            features: Othello, Go). ``tiny`` has a dense head over actions and ignores it.
        height, width, num_actions: the board ``tiny`` was built for (0 for towers: any size).
        global_pool: towers: every third residual block (and the last of a tower under three)
            is a global pooling block (KataGo, Wu 2019 section 3.4). Absent from records written
            before it existed, which read as False.
        opp_head: towers: a second policy head predicting the opponent's reply (KataGo's
            auxiliary policy target, Wu 2019 section 3.3); play ignores it.
        own_head: towers: KataGo's auxiliary heads of the final position (Wu 2019 section
            3.3): ownership, one number per cell in [-1, 1] (+1: the side to move's at the end),
            and the final score margin from the side to move (in board-area units: points / cells);
            play ignores them. Absent from older records, which read as False.
    """

    name: str
    kind: str
    in_channels: int
    blocks: int = 0
    channels: int = 0
    head: str = HEAD_CELLS
    height: int = 0
    width: int = 0
    num_actions: int = 0
    global_pool: bool = False
    opp_head: bool = False
    own_head: bool = False

    @property
    def size_specific(self) -> bool:
        """True when the weights only fit one board size (``tiny``'s dense heads)."""
        return self.kind == "tiny"

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> ArchSpec:
        """Inverse of ``to_dict``; raises ValueError on unknown or missing fields."""
        fields = set(cls.__dataclass_fields__)
        unknown = set(d) - fields
        if unknown:
            raise ValueError(f"unknown architecture fields {sorted(unknown)}")
        try:
            return cls(**d)
        except TypeError as e:
            raise ValueError(f"bad architecture record: {e}") from None


def action_head(game: Game) -> str:
    """The game's ``policy_layout`` (``"cells"``, ``"columns"`` or ``"cells+pass"``), checked
    against its number of actions.

    Raises:
        ValueError: an unknown layout, or one that does not match ``game.num_actions`` (the fully
            convolutional head cannot map such actions; ``tiny``'s dense head can).
    """
    layout = getattr(game, "policy_layout", HEAD_CELLS)
    expected = {HEAD_CELLS: game.cells, HEAD_COLUMNS: game.width, HEAD_CELLS_PASS: game.cells + 1}
    if layout not in expected:
        raise ValueError(f"{game!r}: unknown policy layout {layout!r}; one of {HEADS}")
    if game.num_actions != expected[layout]:
        raise ValueError(
            f"{game!r}: {game.num_actions} actions on a {game.height}x{game.width} board do not fit its "
            f"policy layout {layout!r} ({expected[layout]} actions); a fully convolutional policy head cannot "
            "map them (use 'tiny')"
        )
    return layout


def arch_spec(name: str, game: Game, features: str) -> ArchSpec:
    """The spec of preset ``name`` for ``game`` with input feature set ``features``.

    Raises:
        ValueError: unknown name or feature set, threat planes (``basic+threats``) for a game
            without them, or a game the head cannot serve.
    """
    check_features(game, features)
    in_channels = FEATURE_CHANNELS[features]
    if name == "tiny":
        return ArchSpec("tiny", "tiny", in_channels, height=game.height, width=game.width,
                        num_actions=game.num_actions)
    m = _TOWER.match(name)
    if not m:
        raise ValueError(f"unknown architecture {name!r}; use one of {PRESETS} or 'bNcM' "
                         "(N residual blocks of M channels), optionally with -gpool, -opp and/or -own (in that order)")
    blocks, channels = int(m.group(1)), int(m.group(2))
    if not (1 <= blocks <= 64 and 8 <= channels <= 1024):
        raise ValueError(f"architecture {name!r}: blocks must be 1..64 and channels 8..1024")
    return ArchSpec(name, "tower", in_channels, blocks, channels, action_head(game),
                    global_pool=m.group(3) is not None, opp_head=m.group(4) is not None,
                    own_head=m.group(5) is not None)
