"""``zeroplay arena`` with two more player kinds, for docs/STRENGTH.md.

    .venv/bin/python training/arena.py A B --games 100 --game gomoku --size S --playouts N [--json]

Same options and output as ``zeroplay arena`` (which has ``vcf:PATH``, a checkpoint with the
threat solver on); a player may also be

    heuristic:N     the search-only engine of ``zeroplay play`` when no model ships: the same PUCT
                    search guided by ``zeroplay.play.heuristic.HeuristicEvaluator``, N playouts.

``zeroplay arena`` cannot offer it itself: the arena (``zeroplay.train``) does not import
``zeroplay.play``.
"""

from __future__ import annotations

import sys


def _register() -> None:
    from zeroplay.train.arena import SearchPlayer, _playouts_arg, register_player_kind

    def heuristic(arg, game, options):
        from zeroplay.play.heuristic import HeuristicEvaluator

        return SearchPlayer(HeuristicEvaluator(), _playouts_arg("heuristic", arg), name=f"heuristic:{arg}",
                            opening_moves=options.get("opening_moves", 2), seed=options.get("seed"))

    register_player_kind("heuristic", heuristic)


def main(argv=None) -> int:
    import torch

    torch.set_num_threads(1)
    _register()
    from zeroplay.cli import main as cli_main

    return cli_main(["arena", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
