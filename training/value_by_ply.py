"""How a run's checkpoints judge recorded games: each net's value, from Black's view, by ply range.

    .venv/bin/python training/value_by_ply.py training/runs/gomoku-15x15-freestyle 83,141,171 \
        training/strength/games/gomoku-15x15-iter83/heuristic-800.jsonl [more records ...]

For every checkpoint named (iterations of RUN_DIR's ``checkpoints/``), every position of every
decided game in the match records (``zeroplay arena --record`` files: a header line, then one game
a line with ``moves`` and ``winner`` 0 Black / 1 White) is evaluated by the value head. Printed per
net: the value of the empty board and, per ply range, the mean value from Black's view (in
[-1, 1]) and its mean squared error against the game's result (+1 Black won, -1 White won). The
games should be ones the nets did not train on, such as strength-match records. A net whose
value of the empty board climbs while the MSE does not fall has learned its self-play's colour
balance rather than the positions (docs/TRAINING.md, "The 15x15 run after iteration 83").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

PLY_RANGES = ((0, 1), (1, 6), (6, 12), (12, 20), (20, 40), (40, 400))


def _positions(game, records: list[Path]):
    """(planes float32 (N, C, H, W), ply int (N,), black_to_move bool (N,), black_won float (N,) +-1).

    Raises:
        ValueError: a record that does not parse, or whose header names another game or board.
    """
    import numpy as np

    planes, ply, btm, z = [], [], [], []
    for path in records:
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path} line {number}: not JSON ({e.msg})") from None
            if "zeroplay_match" in row:  # the header: the record's game must be the run's
                if row.get("game") != game.name or any(row.get("options", {}).get(k) != v
                                                       for k, v in game.options.items()):
                    raise ValueError(f"{path}: a record of {row.get('game')} {row.get('options')}, "
                                     f"the run plays {game.name} {dict(game.options)}")
                continue
            if "moves" not in row or row.get("winner") not in (0, 1):
                continue  # a draw
            state = game.initial()
            for i, move in enumerate(row["moves"]):
                planes.append(state.planes("basic"))
                ply.append(i)
                btm.append(state.to_play == 0)
                z.append(1.0 if row["winner"] == 0 else -1.0)
                state = state.play(int(move))
    if not planes:
        raise ValueError("the records hold no decided game")
    return np.stack(planes), np.array(ply), np.array(btm), np.array(z)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir", type=Path)
    p.add_argument("iterations", help="comma-separated checkpoint iterations, e.g. 83,141")
    p.add_argument("records", type=Path, nargs="+", help="zeroplay arena --record files")
    args = p.parse_args(argv)
    try:
        iterations = [int(x) for x in args.iterations.split(",")]
    except ValueError:
        p.error(f"iterations: comma-separated numbers, not {args.iterations!r}")
    import numpy as np
    import torch

    from zeroplay.games import make
    from zeroplay.nn import load_checkpoint
    from zeroplay.nn.evaluator import NetEvaluator

    torch.set_num_threads(1)
    try:
        config = json.loads((args.run_dir / "config.json").read_text())
        game = make(config["game"], **config["game_options"])
        first = load_checkpoint(args.run_dir / "checkpoints" / f"iter-{iterations[0]:06d}.safetensors", game=game)
        planes, ply, btm, z = _positions(game, args.records)
    except (OSError, ValueError, KeyError) as e:
        print(f"value_by_ply: {e}", file=sys.stderr)
        return 2
    if first.features != "basic":
        print(f"value_by_ply: the nets take {first.features!r} planes; only 'basic' is supported", file=sys.stderr)
        return 2
    legal = np.ones((len(planes), game.num_actions), bool)
    print(f"{len(planes)} positions; Black won {(z[ply == 0] > 0).mean():.2f} of the games")
    for it in iterations:
        try:
            ck = load_checkpoint(args.run_dir / "checkpoints" / f"iter-{it:06d}.safetensors", game=game)
        except (OSError, ValueError) as e:
            print(f"value_by_ply: {e}", file=sys.stderr)
            return 2
        ev = NetEvaluator(ck.model, ck.features)
        v = np.concatenate([ev.evaluate_planes(planes[i:i + 512], legal[i:i + 512])[1] for i in range(0, len(planes), 512)])
        black = np.where(btm, v, -v)
        cells = []
        for lo, hi in PLY_RANGES:
            m = (ply >= lo) & (ply < hi)
            if m.any():
                cells.append(f"ply {lo}-{hi - 1}: {black[m].mean():+.2f} (MSE {((black[m] - z[m]) ** 2).mean():.2f})")
        print(f"iteration {it}: " + "; ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
