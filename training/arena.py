"""``zeroplay arena`` with two more player kinds, for docs/STRENGTH.md.

    .venv/bin/python training/arena.py A B --games 100 --game gomoku --size S --playouts N [--json]

Same options and output as ``zeroplay arena`` (which has ``vcf:PATH``, a checkpoint with the
threat solver on); a player may also be

    heuristic:N     the search-only engine of ``zeroplay play`` when no model ships: the same PUCT
                    search guided by ``zeroplay.play.heuristic.HeuristicEvaluator``, N playouts,
                    with the threat solver on as ``zeroplay play`` has it (``heuristic-plain:N``:
                    off).

``zeroplay arena`` cannot offer it itself: the arena (``zeroplay.train``) does not import
``zeroplay.play``.
"""

from __future__ import annotations

import sys


def _register() -> None:
    from zeroplay.train.arena import SearchPlayer, _playouts_arg, register_player_kind, search_config

    def kind(prefix, threat_solver):
        def heuristic(arg, game, options):
            from zeroplay.play.heuristic import HeuristicEvaluator

            n = _playouts_arg(prefix, arg)
            return SearchPlayer(HeuristicEvaluator(), n, name=f"{prefix}:{arg}",
                                opening_moves=options.get("opening_moves", 2), seed=options.get("seed"),
                                config=search_config(n).replace(threat_solver=threat_solver))

        register_player_kind(prefix, heuristic)

    kind("heuristic", True)
    kind("heuristic-plain", False)


def main(argv=None) -> int:
    import torch

    torch.set_num_threads(1)
    _register()
    from zeroplay.cli import main as cli_main

    return cli_main(["arena", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
