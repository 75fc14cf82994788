"""Supervised bootstrap of the shogi net from our own match records (issue 24: "bootstrapped by
supervised learning from game records that the project generates itself").

    python -m zeroplay.train.shogi_supervised OUT.safetensors --records A.jsonl [B.jsonl ...] \\
        --teacher alphabeta:1000 --net b2c32 --steps 2000

Samples: every position of the recorded games (``zeroplay arena --record`` JSON lines, shogi) from
ply ``--skip-plies`` on (the arena samples the first plies, default 2). The target value z is the
game's result from the mover's view (+1 win, -1 loss, 0 draw) at every position, both sides'; the
target policy is the ``--teacher``'s move (the player named in the records' header, ``a`` or
``b``; one-hot over the 2,187 dlshogi labels) where the teacher was to move, and all zeros (no
policy loss) where its opponent was: the value head sees winners and losers, the policy head
only the teacher. Loss: the AlphaZero loss ((z - v)^2 - pi . log p,
``zeroplay.nn.loss``), Adam with weight decay 1e-4, minibatches drawn uniformly. ``--steps 0``
writes the freshly initialised net (same seed): the "untrained" baseline of a comparison. The
checkpoint is atomic (``zeroplay.nn.shogi_net.save_shogi_net``); its metadata names the records,
the teacher, the sample count and the final losses.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np


def load_samples(paths, teacher: str, skip_plies: int = 2):
    """Arrays (planes float32 (N,119,9,9), pi float32 (N,2187), legal bool (N,2187), z float32 (N,))
    of the positions of the games in ``paths`` (module docstring; pi rows all zero off the teacher's turns).

    Raises:
        ValueError: a file that is not a shogi match record, or one in which ``teacher`` did not play.
    """
    from zeroplay.games.shogi import Shogi
    from zeroplay.games.shogi.labels import NUM_LABELS

    planes, pi, legal, z = [], [], [], []
    for path in paths:
        with open(path) as f:
            header = json.loads(f.readline())
            if header.get("game") != "shogi" or "a" not in header:
                raise ValueError(f"{path}: not a shogi match record")
            if teacher not in (header["a"], header["b"]):
                raise ValueError(f"{path}: {teacher!r} did not play (players {header['a']!r}, {header['b']!r})")
            game = Shogi(**header.get("options", {}))
            teacher_is_a = header["a"] == teacher
            for line in f:
                g = json.loads(line)
                teacher_colour = 0 if g["a_is_black"] == teacher_is_a else 1
                both = header["a"] == header["b"]  # self-play: the teacher moves on both sides
                state = game.initial()
                for ply, move in enumerate(g["moves"]):
                    if ply >= skip_plies:
                        target = np.zeros(NUM_LABELS, np.float32)
                        if both or state.to_play == teacher_colour:
                            target[move] = 1.0
                        mask = np.zeros(NUM_LABELS, bool)
                        mask[state.legal_moves()] = True
                        planes.append(state.planes("dlshogi"))
                        pi.append(target)
                        legal.append(mask)
                        z.append(0.0 if g["winner"] is None else (1.0 if g["winner"] == state.to_play else -1.0))
                    state = state.play(int(move))
    if not z:
        raise ValueError("no samples: the records hold no position past --skip-plies")
    return np.stack(planes), np.stack(pi), np.stack(legal), np.array(z, np.float32)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m zeroplay.train.shogi_supervised", description=__doc__.split("\n\n")[0])
    p.add_argument("out", help="checkpoint to write (.safetensors)")
    p.add_argument("--records", nargs="+", required=True, help="zeroplay arena --record files (shogi)")
    p.add_argument("--teacher", required=True, help="the player whose moves are the policy targets, e.g. alphabeta:1000")
    p.add_argument("--net", default="b2c32", help="bNcM (default b2c32)")
    p.add_argument("--steps", type=int, default=2000, help="optimizer steps (default 2000; 0: the untrained net)")
    p.add_argument("--batch-size", type=int, default=128, help="samples per step (default 128)")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default 1e-3)")
    p.add_argument("--skip-plies", type=int, default=2, help="plies of each game not used (default 2)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    a = p.parse_args(argv)
    import re

    import torch

    from zeroplay.nn.shogi_net import ShogiNet, save_shogi_net
    from zeroplay.train.shogi_selfplay import train_steps

    m = re.fullmatch(r"b(\d{1,2})c(\d{1,3})", a.net)
    if m is None or not 0 <= a.steps <= 10**7 or not 1 <= a.batch_size <= 65536 or a.skip_plies < 0:
        p.error("--net bNcM, --steps 0..10^7, --batch-size 1..65536, --skip-plies >= 0")
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    net = ShogiNet(int(m.group(1)), int(m.group(2)))
    try:
        data = load_samples(a.records, a.teacher, a.skip_plies)
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as e:
        print(f"shogi_supervised: {e}", file=sys.stderr)
        return 2
    started = time.process_time()
    optimizer = torch.optim.Adam(net.parameters(), lr=a.lr, weight_decay=1e-4)
    losses = train_steps(net, optimizer, data, steps=a.steps, batch_size=a.batch_size,
                         rng=np.random.default_rng(a.seed)) if a.steps else []
    tail = losses[-50:]
    facts = {"records": [str(r) for r in a.records], "teacher": a.teacher, "samples": int(len(data[3])),
             "steps": a.steps, "batch_size": a.batch_size, "lr": a.lr, "seed": a.seed,
             "loss_first": losses[0] if losses else None, "loss_last50": float(np.mean(tail)) if tail else None,
             "cpu_seconds": round(time.process_time() - started, 1)}
    save_shogi_net(a.out, net, **facts)
    print(json.dumps(facts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
