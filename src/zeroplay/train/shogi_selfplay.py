"""Shogi self-play training for the dlshogi-style net (the AlphaZero loop, small and local).

Each iteration: ``games`` self-play games by the Python PUCT search (``playouts`` per move,
the current net as evaluator; moves sampled in proportion to visits for the first
``sample_moves`` moves, then the most visited), samples (planes, visit distribution pi, legal
mask, result z from the mover's view), ``steps`` optimizer steps of the AlphaZero loss
((z - v)^2 - pi . log p, ``zeroplay.nn.loss``; Adam, weight decay 1e-4) over the iteration's
samples, then an atomic checkpoint ``net-ITER.safetensors`` (``zeroplay.nn.shogi_net``) and the
iteration's ``selfplay`` and ``train`` records in ``metrics.jsonl`` (``train.metrics``), which
``zeroplay plot`` charts; ``zeroplay export`` writes a checkpoint as a model file.

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


def train_steps(net, optimizer, data, *, steps: int, batch_size: int, rng, parts: list | None = None) -> list[float]:
    """``steps`` minibatch steps on ``data``; returns the total losses. ``parts``, when given,
    gets each step's (value loss, policy loss)."""
    import torch

    from zeroplay.nn.loss import policy_value_loss

    planes, pi, legal, z = data
    net.train()
    losses = []
    for _ in range(steps):
        idx = rng.integers(0, len(z), size=min(batch_size, len(z)))
        logits, values = net(torch.from_numpy(planes[idx]))
        loss, value_loss, policy_loss = policy_value_loss(
            logits, values, torch.from_numpy(pi[idx]), torch.from_numpy(z[idx]), torch.from_numpy(legal[idx]))
        if parts is not None:
            parts.append((value_loss.item(), policy_loss.item()))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    net.eval()
    return losses


MARKER = "python-loop.json"
"""Written in a run directory of this loop (game, net shape): ``zeroplay train`` resumes such a run
here even without ``--game``."""


def _latest_checkpoint(run_dir: Path):
    found = sorted(run_dir.glob("net-[0-9][0-9][0-9][0-9].safetensors"))
    return (int(found[-1].stem.split("-")[1]), found[-1]) if found else (0, None)


def run(run_dir, *, iterations=1, games=2, playouts=16, max_moves=40, steps=20, batch_size=64, blocks=2,
        channels=32, sample_moves=30, seed=0, lr=1e-3, hours=None, log=print) -> dict:
    """The loop (see the module docstring) up to ``iterations`` checkpoints in ``run_dir`` in all
    (None: no limit; ``hours`` then bounds it); returns the last iteration's figures.

    A run directory that holds checkpoints resumes from the newest (its net; the optimizer's
    moments start afresh, as they are not stored); ``blocks`` and ``channels`` must then match it.

    Raises:
        ValueError: a checkpoint of another net shape in ``run_dir``, or one that cannot be read.
    """
    import torch

    from zeroplay.files.atomic import atomic_write_text
    from zeroplay.games.shogi import Shogi
    from zeroplay.nn.shogi_net import ShogiNet, ShogiNetEvaluator, load_shogi_net, save_shogi_net
    from zeroplay.search.python_puct import PythonPuct, PythonPuctConfig
    from zeroplay.train.metrics import METRICS_FILE, MetricsLog, read_metrics

    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    done, latest = _latest_checkpoint(run_dir)
    torch.manual_seed(seed + done)
    rng = np.random.default_rng([seed, done])
    game = Shogi(max_moves=max_moves)
    if latest is not None:
        net, _ = load_shogi_net(latest)
        if (net.blocks_count, net.channels) != (blocks, channels):
            raise ValueError(f"{latest}: a b{net.blocks_count}c{net.channels} net; this run asks for b{blocks}c{channels}")
        log(json.dumps({"resumed_from": str(latest)}))
    else:
        net = ShogiNet(blocks, channels)
    atomic_write_text(run_dir / MARKER, json.dumps({"game": "shogi", "blocks": blocks, "channels": channels}))
    metrics = MetricsLog(run_dir / METRICS_FILE)
    step = max((r.get("step", 0) for r in read_metrics(metrics.path, "train")), default=0)
    optimizer = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=1e-4)
    puct = PythonPuct(ShogiNetEvaluator(net), PythonPuctConfig(capacity=1 << 14, edge_capacity=1 << 19))
    figures = {}
    started = time.monotonic()
    iteration = done
    while (iterations is None or iteration < iterations) and (hours is None or time.monotonic() - started < hours * 3600):
        iteration += 1
        t0 = time.perf_counter()
        parts, results = [], []
        for _ in range(games):
            records, winner = play_game(puct, game, playouts=playouts, sample_moves=sample_moves, rng=rng)
            parts.append(samples_of(records, winner))
            results.append(winner)
        data = tuple(np.concatenate([p[i] for p in parts]) for i in range(4))
        selfplay_s = time.perf_counter() - t0
        split: list = []
        losses = train_steps(net, optimizer, data, steps=steps, batch_size=batch_size, rng=rng, parts=split)
        path = run_dir / f"net-{iteration:04d}.safetensors"
        save_shogi_net(path, net, iteration=iteration, samples=int(len(data[3])), games=games, playouts=playouts)
        # what `zeroplay plot` charts, written after the checkpoint: a resumed run starts after
        # the newest checkpoint, so an iteration killed before it leaves no record behind
        metrics.append("selfplay", iteration=iteration, games=games, moves=int(len(data[3])),
                       seconds=round(selfplay_s, 3), black_wins=results.count(0), white_wins=results.count(1),
                       draws=results.count(None))
        if losses:
            step += len(losses)
            metrics.append("train", iteration=iteration, step=step, loss=float(np.mean(losses)),
                           value_loss=float(np.mean([v for v, _ in split])),
                           policy_loss=float(np.mean([q for _, q in split])))
        figures = {"iteration": iteration, "games": games, "samples": int(len(data[3])), "results": [
            "draw" if w is None else ("black" if w == 0 else "white") for w in results],
            "loss_first": losses[0] if losses else None, "loss_last": losses[-1] if losses else None,
            "selfplay_seconds": round(selfplay_s, 2), "checkpoint": str(path)}
        atomic_write_text(run_dir / "last.json", json.dumps(figures, indent=1))
        log(json.dumps(figures))
    return figures


def is_python_loop_run(run_dir) -> bool:
    """True when ``run_dir`` was started by this loop."""
    return (Path(run_dir) / MARKER).is_file()


def train_command(args) -> int:
    """``zeroplay train`` for shogi (whose rules have no compiled kernels, so the compiled
    self-play pipeline cannot drive them): this loop, with ``--net`` (tiny = b1c16, or bNcM),
    ``--iterations`` (total, default 2), ``--hours``, ``--games-per-iteration`` (default 2),
    ``--playouts`` (default 16), ``--steps`` (default 20), ``--batch-size`` (default 64), ``--lr``
    (default 1e-3), ``--seed``, ``--max-moves`` (default 512: games end by the rules or there, a
    draw). A rerun on the same directory continues from its newest checkpoint. Other train options
    do not apply here; a few that would change the run (workers, Ray, features, arena, window, root
    policy) or that shogi has not (``--size``, ``--n-in-row``, ``--rule``: the board is 9x9) are
    refused when given.

    Raises:
        ValueError: such an option, a bad ``--net`` or ``--max-moves``, a checkpoint of another shape.
    """
    import re

    from zeroplay.games import make
    from zeroplay.games.shogi.game import Shogi
    from zeroplay.train.runlock import RunLock

    unused = [flag for flag, attr in (("--workers", "workers"), ("--address", "address"), ("--features", "features"),
                                      ("--eval-games", "eval_games"), ("--window", "window"),
                                      ("--root-policy", "root_policy"), ("--size", "size"), ("--n-in-row", "n_in_row"),
                                      ("--rule", "rule"), ("--selfplay-openings", "selfplay_openings"))
              if getattr(args, attr, None) is not None
              and not (attr == "eval_games" and args.eval_games == 0)]  # no arena is what this loop does
    if getattr(args, "backend", "local") != "local":
        unused.append("--backend " + args.backend)
    if unused:
        raise ValueError(f"shogi training (the Python loop) does not take {', '.join(unused)}")
    run_dir = Path(args.run_dir)
    stored = json.loads((run_dir / MARKER).read_text()) if is_python_loop_run(run_dir) else None
    net = args.net or ("b{blocks}c{channels}".format(**stored) if stored else "tiny")
    m = re.fullmatch(r"b(\d{1,2})c(\d{1,3})", "b1c16" if net == "tiny" else net)
    if m is None:
        raise ValueError(f"--net for shogi: tiny or bNcM (e.g. b4c64), got {net!r}")
    game = make("shogi") if args.max_moves is None else make("shogi", max_moves=args.max_moves)
    if not isinstance(game, Shogi):
        raise TypeError(f"make('shogi') gave {type(game).__name__}")
    max_moves = game.max_moves
    with RunLock(run_dir):
        figures = run(run_dir, iterations=2 if args.iterations is None and args.hours is None else args.iterations,
                      hours=args.hours, games=args.games_per_iteration or 2, playouts=args.playouts or 16,
                      max_moves=max_moves, steps=args.steps or 20, batch_size=args.batch_size or 64,
                      blocks=int(m.group(1)), channels=int(m.group(2)), seed=args.seed or 0, lr=args.lr or 1e-3)
    shape = f"b{m.group(1)}c{m.group(2)}" + (" (tiny)" if net == "tiny" else "")  # as a resumed run shows it
    print(f"run {run_dir}: shogi (Python loop), net {shape}, last checkpoint {figures.get('checkpoint', '(none new)')}")
    return 0


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
