"""The player kinds ``heuristic:N`` / ``heuristic-plain:N`` used to exist only here; ``zeroplay
arena`` has them now (``zeroplay.engine.arena``). This script is kept so that the commands recorded
in docs/STRENGTH.md and training/strength/*.jsonl rerun unchanged:

    .venv/bin/python training/arena.py A B ...   ==   .venv/bin/zeroplay arena A B ...

(it also keeps torch to one thread, as those measurements had it).
"""

from __future__ import annotations

import sys


def main(argv=None) -> int:
    import torch

    torch.set_num_threads(1)
    from zeroplay.cli import main as cli_main

    return cli_main(["arena", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
