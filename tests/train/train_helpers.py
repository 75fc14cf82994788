"""Helpers for the train tests: a run opened with ``zeroplay train``'s own option parsing."""

from __future__ import annotations


def open_run_with(run, *options):
    """``open_run`` of the run directory ``run`` with ``zeroplay train`` OPTIONS parsed by the CLI's
    parser: the run's resolved config (what the first start stores, or a resume keeps)."""
    from zeroplay.cli import build_parser
    from zeroplay.train.commands import _overrides, net_name
    from zeroplay.train.loop import open_run

    args = build_parser().parse_args(["train", "--run-dir", str(run), *options])
    structural = {"game": args.game, "net": net_name(args), "features": args.features,
                  "game_options": None if args.size is None else {"size": args.size}}
    return open_run(run, structural, _overrides(args))
