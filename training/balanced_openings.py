"""Write a file of Gomoku openings that a net rates near even, for ``zeroplay train --selfplay-openings``.

    .venv/bin/python training/balanced_openings.py \
        training/runs/gomoku-15x15-freestyle/checkpoints/iter-000083.safetensors \
        --plies 3 --radius 3 --count 500 --max-value 0.15 --out /tmp/openings-15x15.txt

Draws openings of ``--plies`` stones, each on an empty cell within ``--radius`` cells
(Chebyshev distance) of the centre, uniformly, without repeats (the same stones in another order
count once); keeps those after which the net's value, from Black's view, lies within
``--max-value`` of 0, until ``--count`` are kept or ``--tries`` openings were drawn. Gomocup's
free-style openings are chosen the same way, by engines' evaluations, so that neither side starts
won: in free-style Gomoku Black, who moves first, wins with best play, and self-play from the
empty board gives White mostly lost games (docs/TRAINING.md, "The 15x15 run after iteration 83").

The file holds one opening a line in the game's notation (``h8 i9 g7``), after a ``#`` header
with the command's settings; written atomically. Bad arguments: one line on stderr, status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("checkpoint", type=Path, help="a Gomoku checkpoint (its game and board size are used)")
    p.add_argument("--size", type=int, default=None,
                   help="board width and height (default: the checkpoint's; a fully convolutional net plays others)")
    p.add_argument("--plies", type=int, default=3, help="stones in each opening (default 3)")
    p.add_argument("--radius", type=int, default=3, help="cells from the centre a stone may be (default 3)")
    p.add_argument("--count", type=int, default=500, help="openings to keep (default 500)")
    p.add_argument("--max-value", type=float, default=0.15, help="largest |value| kept, in [0, 1] (default 0.15)")
    p.add_argument("--tries", type=int, default=200_000, help="most openings drawn (default 200000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    if not 1 <= args.plies <= 64 or args.radius < 0 or not 1 <= args.count <= 100_000 or args.tries < 1:
        p.error("--plies 1..64, --radius >= 0, --count 1..100000 and --tries >= 1")
    if not 0.0 <= args.max_value <= 1.0:
        p.error(f"--max-value must be in [0, 1], got {args.max_value}")
    if args.out.is_dir() or not args.out.parent.is_dir():  # before minutes of work, not after
        p.error(f"--out {args.out}: {'a directory' if args.out.is_dir() else 'its folder does not exist'}")

    import numpy as np
    import torch

    from zeroplay.files.atomic import atomic_write_text
    from zeroplay.games import make
    from zeroplay.nn import load_checkpoint
    from zeroplay.nn.evaluator import NetEvaluator
    from zeroplay.nn.record import CheckpointError, checkpoint_game

    torch.set_num_threads(1)
    try:
        name, options = checkpoint_game(args.checkpoint)
        if name != "gomoku":
            raise ValueError(f"{args.checkpoint} plays {name}; openings are drawn for Gomoku")
        if args.size is not None:
            options = {**options, "width": args.size, "height": args.size}
        game = make(name, **options)
        ck = load_checkpoint(args.checkpoint, game=game)
    except (OSError, ValueError, CheckpointError) as e:
        print(f"balanced_openings: {e}", file=sys.stderr)
        return 2
    cy, cx = (game.height - 1) // 2, (game.width - 1) // 2
    near = [y * game.width + x for y in range(game.height) for x in range(game.width)
            if max(abs(y - cy), abs(x - cx)) <= args.radius]
    if len(near) < args.plies:
        p.error(f"--radius {args.radius} holds {len(near)} cells, fewer than --plies {args.plies}")
    ev = NetEvaluator(ck.model, ck.features)
    rng = np.random.default_rng(args.seed)
    kept: list[list[int]] = []
    seen: set = set()
    tries = 0
    while len(kept) < args.count and tries < args.tries:
        batch = []
        for _ in range(min(256, args.tries - tries)):
            tries += 1
            cells = [int(c) for c in rng.choice(near, size=args.plies, replace=False)]
            key = (frozenset(cells[0::2]), frozenset(cells[1::2]))
            if key in seen:
                continue
            seen.add(key)
            actions = [game.cell_to_action(c) for c in cells]
            state = game.initial().play_many(actions)
            if not state.is_terminal:
                batch.append((state, actions))
        if not batch:
            continue
        planes = np.stack([s.planes(ck.features) for s, _ in batch])
        legal = np.ones((len(batch), game.num_actions), bool)  # the value head does not read it
        values = ev.evaluate_planes(planes, legal)[1]
        for (state, actions), v in zip(batch, values):
            black = float(v) if state.to_play == 0 else -float(v)
            if abs(black) <= args.max_value and len(kept) < args.count:
                kept.append(actions)
    if not kept:
        print(f"balanced_openings: none of {tries} openings within {args.max_value} of even; "
              "raise --max-value or --tries", file=sys.stderr)
        return 2
    header = (f"# {len(kept)} openings of {args.plies} stones within {args.radius} of the centre, "
              f"|value| <= {args.max_value} for {args.checkpoint.name} ({tries} drawn, seed {args.seed})\n")
    text = header + "".join(" ".join(game.format_move(a) for a in line) + "\n" for line in kept)
    try:
        atomic_write_text(args.out, text)
    except OSError as e:
        print(f"balanced_openings: --out {args.out}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"{len(kept)} openings from {tries} drawn -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
