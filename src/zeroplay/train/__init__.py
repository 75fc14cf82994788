"""Training pipeline pieces: targets, replay buffer, metrics and plots.

Modules: ``targets`` (``game_samples``: (planes, pi, z) of a finished game), ``shards`` and
``replay`` (``ReplayBuffer`` on disk), ``metrics`` (JSONL),
``plot`` (PNGs). None of them imports torch; the network side is ``zeroplay.nn``.
"""

from zeroplay.train.metrics import METRICS_FILE, MetricsLog, read_metrics
from zeroplay.train.replay import ReplayBuffer, augment_samples, transform_samples, validation_games
from zeroplay.train.shards import ShardError
from zeroplay.train.targets import FROM_BOARD, Samples, game_samples, z_from_side_to_move

__all__ = [
    "FROM_BOARD",
    "METRICS_FILE",
    "MetricsLog",
    "ReplayBuffer",
    "Samples",
    "ShardError",
    "augment_samples",
    "game_samples",
    "read_metrics",
    "transform_samples",
    "validation_games",
    "z_from_side_to_move",
]
