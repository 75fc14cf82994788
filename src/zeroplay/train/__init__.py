"""Training pipeline pieces: targets, replay buffer, game records, Elo, metrics and plots.

Modules: ``targets`` (``game_samples``: (planes, pi, z) of a finished game), ``shards`` and
``replay`` (``ReplayBuffer`` on disk), ``records`` (PSQ / SGF), ``elo``, ``metrics`` (JSONL),
``plot`` (PNGs). None of them imports torch; the network side is ``zeroplay.nn``.
"""

from zeroplay.train.elo import EloEstimate, elo_estimate, elo_from_score, score_from_elo
from zeroplay.train.metrics import METRICS_FILE, MetricsLog, read_metrics
from zeroplay.train.records import (
    GameRecord,
    load_record,
    read_psq,
    read_sgf,
    record_of_game,
    save_record,
    write_psq,
    write_sgf,
)
from zeroplay.train.replay import ReplayBuffer, augment_samples, transform_samples, validation_games
from zeroplay.train.shards import ShardError
from zeroplay.train.targets import FROM_BOARD, Samples, game_samples, z_from_side_to_move

__all__ = [
    "FROM_BOARD",
    "METRICS_FILE",
    "EloEstimate",
    "GameRecord",
    "MetricsLog",
    "ReplayBuffer",
    "Samples",
    "ShardError",
    "augment_samples",
    "elo_estimate",
    "elo_from_score",
    "game_samples",
    "load_record",
    "read_metrics",
    "read_psq",
    "read_sgf",
    "record_of_game",
    "save_record",
    "score_from_elo",
    "transform_samples",
    "validation_games",
    "write_psq",
    "write_sgf",
    "z_from_side_to_move",
]
