"""The largest values a run's settings take, checked on the command line (``train.commands``) and
on a resumed run's stored ``config.json`` (``loop.check_run_config``), so that a hand-edited
config cannot bring back what the options refuse."""

from __future__ import annotations

MAX_TRAIN_BATCH = 8192
"""Most ``--batch-size``: a step's activations grow with it (about 2 MB a 15x15 sample in b6c64),
and ``--batch-size 100000000`` grew to 23 GB before the kernel killed it (helper-79)."""
MAX_LR = 10.0
"""Most ``--lr``: far above any rate that trains (1e300 overflowed in the optimizer)."""
MAX_ARENA_GAMES = 1_000_000
"""Most games of one match (``arena --games``, ``train --eval-games``): the match lists them."""
MAX_SEED = 2**62
"""Most ``--seed``: numpy's seeding takes it in int64 (1e23 overflowed after config.json stored it)."""
