"""Shogi self-play training for the dlshogi-style net (the AlphaZero loop, small and local).

Each iteration: ``games`` self-play games by the Python PUCT search (``playouts`` per move,
the current net as evaluator; moves sampled in proportion to visits for the first
``sample_moves`` moves, then the most visited), samples (planes, visit distribution pi, legal
mask, result z from the mover's view), ``steps`` optimizer steps of the AlphaZero loss
((z - v)^2 - pi . log p, ``zeroplay.nn.loss``; Adam, weight decay 1e-4) over the iteration's
samples, then an atomic checkpoint ``net-ITER.safetensors`` (``zeroplay.nn.shogi_net``).

Games end by the rules or at ``max_moves`` (a draw, z = 0): with a fresh net most early games
are long, so a short limit keeps a smoke run short.

    python -m zeroplay.train.shogi_selfplay --run-dir runs/shogi --iterations 1 --games 2 \\
        --playouts 16 --max-moves 40 --steps 20
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


def play_game(puct, game, *, playouts: int, sample_moves: int, rng) -> tuple[list, float | None]:
    """One self-play game: ([(planes, pi, legal, mover)], winner or None)."""
    from zeroplay.games.shogi.labels import NUM_LABELS

    state = game.initial()
    records = []
    while not state.is_terminal:
        result = puct.search(state, playouts=playouts)
        pi = np.zeros(NUM_LABELS, np.float32)
        for m in result.moves:
            pi[m.action] = m.visits
        if pi.sum() == 0:
            pi[[m.action for m in result.moves]] = 1.0
        pi /= pi.sum()
        legal = np.zeros(NUM_LABELS, bool)
        legal[state.legal_moves()] = True
        records.append((state.planes("dlshogi"), pi, legal, state.to_play))
        if state.ply < sample_moves:
            action = int(rng.choice(NUM_LABELS, p=pi))
        else:
            action = result.best_move
        state = state.play(action)
    return records, state.winner


def samples_of(records, winner):
    """Arrays (planes (N,119,9,9), pi (N,2187), legal (N,2187), z (N,)) of one game, z from each mover."""
    planes = np.stack([r[0] for r in records])
    pi = np.stack([r[1] for r in records])
    legal = np.stack([r[2] for r in records])
    z = np.array([0.0 if winner is None else (1.0 if winner == r[3] else -1.0) for r in records], np.float32)
    return planes, pi, legal, z


def train_steps(net, optimizer, data, *, steps: int, batch_size: int, rng) -> list[float]:
    """``steps`` minibatch steps on ``data``; returns the total losses."""
    import torch

    from zeroplay.nn.loss import policy_value_loss

    planes, pi, legal, z = data
    net.train()
    losses = []
    for _ in range(steps):
        idx = rng.integers(0, len(z), size=min(batch_size, len(z)))
        logits, values = net(torch.from_numpy(planes[idx]))
        loss, _, _ = policy_value_loss(logits, values, torch.from_numpy(pi[idx]), torch.from_numpy(z[idx]),
                                       torch.from_numpy(legal[idx]))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    net.eval()
    return losses


def run(run_dir, *, iterations=1, games=2, playouts=16, max_moves=40, steps=20, batch_size=64, blocks=2,
        channels=32, sample_moves=30, seed=0, log=print) -> dict:
    """The loop (see the module docstring); returns the last iteration's figures."""
    import torch

    from zeroplay.files.atomic import atomic_write_text
    from zeroplay.games.shogi import Shogi
    from zeroplay.nn.shogi_net import ShogiNet, ShogiNetEvaluator, save_shogi_net
    from zeroplay.search.python_puct import PythonPuct, PythonPuctConfig

    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    game = Shogi(max_moves=max_moves)
    net = ShogiNet(blocks, channels)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=1e-4)
    puct = PythonPuct(ShogiNetEvaluator(net), PythonPuctConfig(capacity=1 << 14, edge_capacity=1 << 19))
    figures = {}
    for iteration in range(1, iterations + 1):
        t0 = time.perf_counter()
        parts, results = [], []
        for _ in range(games):
            records, winner = play_game(puct, game, playouts=playouts, sample_moves=sample_moves, rng=rng)
            parts.append(samples_of(records, winner))
            results.append(winner)
        data = tuple(np.concatenate([p[i] for p in parts]) for i in range(4))
        selfplay_s = time.perf_counter() - t0
        losses = train_steps(net, optimizer, data, steps=steps, batch_size=batch_size, rng=rng)
        path = run_dir / f"net-{iteration:04d}.safetensors"
        save_shogi_net(path, net, iteration=iteration, samples=int(len(data[3])), games=games, playouts=playouts)
        figures = {"iteration": iteration, "games": games, "samples": int(len(data[3])), "results": [
            "draw" if w is None else ("black" if w == 0 else "white") for w in results],
            "loss_first": losses[0] if losses else None, "loss_last": losses[-1] if losses else None,
            "selfplay_seconds": round(selfplay_s, 2), "checkpoint": str(path)}
        atomic_write_text(run_dir / "last.json", json.dumps(figures, indent=1))
        log(json.dumps(figures))
    return figures


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m zeroplay.train.shogi_selfplay", description=__doc__.splitlines()[0])
    p.add_argument("--run-dir", required=True, help="directory for checkpoints and last.json")
    for name, default, help_text in [("iterations", 1, "self-play + training iterations"), ("games", 2, "games per iteration"),
                                     ("playouts", 16, "playouts per move"), ("max-moves", 40, "moves before a draw"),
                                     ("steps", 20, "optimizer steps per iteration"), ("blocks", 2, "residual blocks"),
                                     ("channels", 32, "channels per block"), ("seed", 0, "random seed")]:
        p.add_argument(f"--{name}", type=int, default=default, help=f"{help_text} (default {default})")
    a = p.parse_args(argv)
    for name in ("iterations", "games", "playouts", "max_moves", "steps", "blocks"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    run(a.run_dir, iterations=a.iterations, games=a.games, playouts=a.playouts, max_moves=a.max_moves, steps=a.steps,
        blocks=a.blocks, channels=a.channels, seed=a.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
