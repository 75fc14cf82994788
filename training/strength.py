"""Run the docs/STRENGTH.md matches of a shipped model (resumable) and print their table.

    .venv/bin/python training/strength.py run MODEL [--only SUBSTRING] [--games 100]
    .venv/bin/python training/strength.py table MODEL

MODEL is a key of ``MODELS`` below; its file is ``src/zeroplay/models/FILE.safetensors`` once shipped,
before that the candidate ``training/candidates/FILE.safetensors`` (``training/export_model.py``). ``run`` plays each match of the model that has no result yet in
``training/strength/MODEL.jsonl`` (one JSON line per match: the exact command and its
``zeroplay arena --json`` output), so it can be stopped and rerun; a match's finished games are
recorded in ``training/strength/games/MODEL/`` (``zeroplay arena --record``), so a stopped match
resumes from its last finished game. ``table`` prints the markdown
rows of docs/STRENGTH.md from that file. Matches are ``zeroplay arena`` (``heuristic:N``, the
search-only engine, included; rows recorded before it was, ran ``training/arena.py``, which still
reruns them).
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MODELS = {
    "gomoku-6x6-4-freestyle": {
        "game": ["--game", "gomoku", "--size", "6", "--n-in-row", "4", "--rule", "freestyle"],
        "playouts": 400,
        "previous": "training/runs/gomoku-6x6-4/checkpoints/iter-{prev:06d}.safetensors",
        "extra": ["heuristic:400"],
    },
    # the first 8x8 model (tiny net, PUCT self-play), shipped until 2026-12-05 as
    # src/zeroplay/models/gomoku-8x8-5-freestyle.safetensors: its rows were measured under that
    # name ("measured_as"); the same weights are its run's checkpoint of iteration 154 ("path")
    "gomoku-8x8-5-freestyle": {
        "path": "training/runs/gomoku-8x8-5/checkpoints/iter-000154.safetensors",
        "measured_as": "src/zeroplay/models/gomoku-8x8-5-freestyle.safetensors",
        "previous_iteration": 149,
        "game": ["--game", "gomoku", "--size", "8", "--n-in-row", "5", "--rule", "freestyle"],
        "playouts": 400,
        "previous": "training/runs/gomoku-8x8-5/checkpoints/iter-{prev:06d}.safetensors",
        "extra": ["heuristic:400"],
    },
    # the first 15x15 model (iteration 25, PUCT self-play), shipped until 2026-12-05 under the same
    # file name: its rows were measured under that name ("measured_as"); the same weights are its
    # run's checkpoint of iteration 25 ("path")
    "gomoku-15x15-freestyle": {
        "path": "training/runs/gomoku-15x15-freestyle/checkpoints/iter-000025.safetensors",
        "measured_as": "src/zeroplay/models/gomoku-15x15-freestyle.safetensors",
        "previous_iteration": 22,
        "game": ["--game", "gomoku", "--size", "15", "--n-in-row", "5", "--rule", "freestyle"],
        "playouts": 800,
        "previous": "training/runs/gomoku-15x15-freestyle/checkpoints/iter-{prev:06d}.safetensors",
        "extra": ["heuristic:800"],
    },
    # the second 8x8 model (issue 20's recipe: b4c32, Gumbel self-play, training/gomoku-8x8-5-gumbel.args),
    # shipped under the same file name; its rows go to their own results file, and it meets the
    # model it replaced (the first run's iteration 154) as well as its own run's previous best
    "gomoku-8x8-5-gumbel": {
        "file": "gomoku-8x8-5-freestyle",
        "game": ["--game", "gomoku", "--size", "8", "--n-in-row", "5", "--rule", "freestyle"],
        "playouts": 400,
        "previous": "training/runs/gomoku-8x8-5-gumbel/checkpoints/iter-{prev:06d}.safetensors",
        "opponents": ["rollout:1000", "rollout:5000", "uniform:800", "heuristic:400",
                      ("the model it replaced (first run, iteration 154)",
                       "vcf:training/runs/gomoku-8x8-5/checkpoints/iter-000154.safetensors")],
    },
    # a later 8x8 candidate of the same run (2026-12-06, session 25): iteration 321, the newest
    # checkpoint when measured (4.3 of its 8 CPU-hours), against the two 8x8 targets and
    # the shipped model (iteration 130)
    "gomoku-8x8-5-iter321": {
        "path": "training/runs/gomoku-8x8-5-gumbel/checkpoints/iter-000321.safetensors",
        "game": ["--game", "gomoku", "--size", "8", "--n-in-row", "5", "--rule", "freestyle"],
        "playouts": 400,
        "opponents": ["rollout:5000", "heuristic:400",
                      ("the shipped model (iteration 130)",
                       "vcf:training/runs/gomoku-8x8-5-gumbel/checkpoints/iter-000130.safetensors")],
        "solver_row": False,
    },
    # the 15x15 model of issue 20's recipe (Gumbel self-play from iteration 29), shipped on
    # 2026-12-05 under the same file name as iteration 25 was, until iteration 65 replaced it: its
    # run's checkpoint, measured against the targets (heuristic:800, the model it replaced)
    "gomoku-15x15-gumbel": {
        "path": "training/runs/gomoku-15x15-freestyle/checkpoints/iter-000046.safetensors",
        "previous_iteration": 44,
        "game": ["--game", "gomoku", "--size", "15", "--n-in-row", "5", "--rule", "freestyle"],
        "playouts": 800,
        "previous": "training/runs/gomoku-15x15-freestyle/checkpoints/iter-{prev:06d}.safetensors",
        "opponents": ["heuristic:800",
                      ("the model it replaced (iteration 25)",
                       "vcf:training/runs/gomoku-15x15-freestyle/checkpoints/iter-000025.safetensors"),
                      "rollout:5000", "uniform:800"],
    },
    # the 15x15 model shipped since 2026-12-05 (the same run, issue 20's recipe): iteration 65, the
    # newest checkpoint when it was measured, against the targets and iteration 46, the
    # model it replaced (shipped when the match ran, hence the label)
    "gomoku-15x15-iter65": {
        "path": "training/runs/gomoku-15x15-freestyle/checkpoints/iter-000065.safetensors",
        "game": ["--game", "gomoku", "--size", "15", "--n-in-row", "5", "--rule", "freestyle"],
        "playouts": 800,
        "opponents": ["heuristic:800",
                      ("iteration 25 (the issue's reference)",
                       "vcf:training/runs/gomoku-15x15-freestyle/checkpoints/iter-000025.safetensors"),
                      ("the shipped model (iteration 46)",
                       "vcf:training/runs/gomoku-15x15-freestyle/checkpoints/iter-000046.safetensors")],
        "solver_row": False,
    },
    # a later candidate of the same run (2026-12-05, session 19): iteration 83 against the issue's
    # reference first (the unmet >= 0.80 target), then against iteration 65, the shipped model
    "gomoku-15x15-iter83": {
        "path": "training/runs/gomoku-15x15-freestyle/checkpoints/iter-000083.safetensors",
        "game": ["--game", "gomoku", "--size", "15", "--n-in-row", "5", "--rule", "freestyle"],
        "playouts": 800,
        "opponents": [("iteration 25 (the issue's reference)",
                       "vcf:training/runs/gomoku-15x15-freestyle/checkpoints/iter-000025.safetensors"),
                      ("the shipped model (iteration 65)",
                       "vcf:training/runs/gomoku-15x15-freestyle/checkpoints/iter-000065.safetensors"),
                      "heuristic:800"],
        "solver_row": False,
    },
    # a later 15x15 candidate (2026-12-06, session 25): iteration 141, the newest checkpoint when
    # the match began (about 9.1 of the run's 48 CPU-hours), against the shipped iteration 83
    # first (does it replace it?), then the heuristic:800 row
    "gomoku-15x15-iter141": {
        "path": "training/runs/gomoku-15x15-freestyle/checkpoints/iter-000141.safetensors",
        "game": ["--game", "gomoku", "--size", "15", "--n-in-row", "5", "--rule", "freestyle"],
        "playouts": 800,
        "opponents": [("the shipped model (iteration 83)",
                       "vcf:training/runs/gomoku-15x15-freestyle/checkpoints/iter-000083.safetensors"),
                      "heuristic:800"],
        "solver_row": False,
        "parallel": 8,
    },
    # the newest 15x15 checkpoint of session 26 (2026-12-06): iteration 171 (about 10.5 CPU-hours)
    # against the shipped iteration 83 at play's 800 playouts: whether 141's loss there (0.27)
    # holds for the newest net, which beat 83 at the run's own 100 playouts
    "gomoku-15x15-iter171": {
        "path": "training/runs/gomoku-15x15-freestyle/checkpoints/iter-000171.safetensors",
        "game": ["--game", "gomoku", "--size", "15", "--n-in-row", "5", "--rule", "freestyle"],
        "playouts": 800,
        "opponents": [("the shipped model (iteration 83)",
                       "vcf:training/runs/gomoku-15x15-freestyle/checkpoints/iter-000083.safetensors")],
        "solver_row": False,
        "parallel": 8,
    },
    # the lower-learning-rate branch (docs/TRAINING.md "A branch with a 4x lower learning rate") at
    # iteration 106 (2026-12-07, 23 iterations after its start at 83): an early look at whether it
    # keeps iteration 83's strength at play's 800 playouts, where the run's own 141 lost 0.27
    "gomoku-15x15-lr-iter106": {
        "path": "training/runs/gomoku-15x15-lr/checkpoints/iter-000106.safetensors",
        "game": ["--game", "gomoku", "--size", "15", "--n-in-row", "5", "--rule", "freestyle"],
        "playouts": 800,
        "opponents": [("the shipped model (iteration 83)",
                       "vcf:training/runs/gomoku-15x15-freestyle/checkpoints/iter-000083.safetensors")],
        "solver_row": False,
        "parallel": 8,
    },
    # iteration 65 on 11x11, where the 15x15 file is the default too: the shipping rule's row
    # (at least the search-only engine's strength) before it may play there by default
    "gomoku-15x15-iter65@11x11": {
        "path": "training/runs/gomoku-15x15-freestyle/checkpoints/iter-000065.safetensors",
        "game": ["--game", "gomoku", "--size", "11", "--n-in-row", "5", "--rule", "freestyle"],
        "playouts": 800,
        "opponents": ["heuristic:800"],
        "solver_row": False,
    },
    # iteration 83 (15x15's default since 2026-12-06) on 11x11: the row that decides whether it
    # replaces iteration 65 as 11x11's default
    "gomoku-15x15-iter83@11x11": {
        "path": "training/runs/gomoku-15x15-freestyle/checkpoints/iter-000083.safetensors",
        "game": ["--game", "gomoku", "--size", "11", "--n-in-row", "5", "--rule", "freestyle"],
        "playouts": 800,
        "opponents": ["heuristic:800"],
        "solver_row": False,
    },
    # the 11x11 five-in-row setting, played by the fully convolutional 15x15 model: the two rows
    # that decide whether it plays by default there (the search-only engine) and the target
    "gomoku-15x15-freestyle@11x11": {
        "path": "training/runs/gomoku-15x15-freestyle/checkpoints/iter-000025.safetensors",
        "measured_as": "src/zeroplay/models/gomoku-15x15-freestyle.safetensors",
        "game": ["--game", "gomoku", "--size", "11", "--n-in-row", "5", "--rule", "freestyle"],
        "playouts": 800,
        "opponents": ["rollout:5000", "heuristic:800"],
        "solver_row": False,
    },
    # the 15x15 model of iteration 46 on 11x11, where it was the default too: the two rows of
    # gomoku-15x15-freestyle@11x11 for it
    "gomoku-15x15-gumbel@11x11": {
        "path": "training/runs/gomoku-15x15-freestyle/checkpoints/iter-000046.safetensors",
        "game": ["--game", "gomoku", "--size", "11", "--n-in-row", "5", "--rule", "freestyle"],
        "playouts": 800,
        "opponents": ["rollout:5000", "heuristic:800"],
        "solver_row": False,
    },
    # the first 9x9 Go model (issue 22; iteration 50), shipped until 2026-12-05 under the same file
    # name: its rows were measured under that name ("measured_as"); the same weights are its run's
    # checkpoint of iteration 50 ("path"). Area scoring, komi 7 (its training komi), simple ko; no
    # threat solver (a Gomoku thing); the targets are GNU Go level 1 and rollout:1000, and the
    # shipping rule's opponent is the search-only engine it replaces (heuristic:800)
    "go-9x9": {
        "path": "training/runs/go-9x9/checkpoints/iter-000050.safetensors",
        "measured_as": "src/zeroplay/models/go-9x9.safetensors",
        "previous_iteration": 48,
        "game": ["--game", "go", "--size", "9", "--komi", "7"],
        "playouts": 800,
        # GNU Go captures dead stones before it passes (--capture-all-dead, the -capture wrapper):
        # the games are counted Tromp-Taylor. The first match (training/go/gnugo-level1, without
        # it) is in the results file under its own command
        "opponents": [("GNU Go 3.8 level 1 capturing dead stones (training/go/gnugo-level1-capture)",
                       "gtp:training/go/gnugo-level1-capture"),
                      "rollout:1000", "heuristic:800"],
        "previous": "training/runs/go-9x9/checkpoints/iter-{prev:06d}.safetensors",
        "threat_solver": False,
        "solver_row": False,
    },
    # the second 9x9 Go model (iteration 75 of the same run, trained with the fixed search),
    # shipped since 2026-12-05 under the same file name: its run's checkpoint, measured against the
    # issue's targets, the model it replaced and the stretch target (GNU Go's own level 10)
    "go-9x9-iter75": {
        "path": "training/runs/go-9x9/checkpoints/iter-000075.safetensors",
        "game": ["--game", "go", "--size", "9", "--komi", "7"],
        "playouts": 800,
        "opponents": [("GNU Go 3.8 level 1 capturing dead stones (training/go/gnugo-level1-capture)",
                       "gtp:training/go/gnugo-level1-capture"),
                      "rollout:1000", "heuristic:800",
                      ("the model it replaced (iteration 50)",
                       "training/runs/go-9x9/checkpoints/iter-000050.safetensors"),
                      ("GNU Go 3.8 level 10 capturing dead stones (training/go/gnugo-level10-capture)",
                       "gtp:training/go/gnugo-level10-capture")],
        "threat_solver": False,
        "solver_row": False,
    },
}


def model_path(key: str) -> str:
    """The shipped file, or the candidate in training/candidates/ while the model is not shipped;
    a model no longer shipped: its fixed ``path``."""
    if "path" in MODELS[key]:
        return MODELS[key]["path"]
    name = f"{MODELS[key].get('file', key)}.safetensors"
    shipped = f"src/zeroplay/models/{name}"
    return shipped if (ROOT / shipped).exists() else f"training/candidates/{name}"


def previous_iteration(key: str) -> int | None:
    """The iteration before the shipped one that was the run's best (its ``best_before``), or, when
    its checkpoint is not in the run directory, the newest earlier iteration whose checkpoint is."""
    spec = MODELS[key]
    if "previous" not in spec:
        return None
    if "previous_iteration" in spec:  # a model no longer shipped: as it was measured
        return int(spec["previous_iteration"])
    sys.path.insert(0, str(ROOT / "src"))
    from zeroplay.nn import read_checkpoint_meta

    shipped = read_checkpoint_meta(ROOT / model_path(key))["extra"]["shipped"]
    run_dir = ROOT / "training" / "runs" / shipped["run"]
    ev = json.loads((run_dir / "evals" / f"iter-{shipped['iteration']:06d}.json").read_text())
    prev = ev.get("best_before")
    if prev is None or prev == shipped["iteration"]:
        prev = shipped["iteration"] - 1
    # A row is only worth publishing if anyone can rerun it: when that checkpoint was not kept
    # (15x15 iteration 23), take the newest kept one before it.
    kept = ROOT / spec["previous"].format(prev=prev)
    while not kept.exists() and prev > 0:
        prev -= 1
        kept = ROOT / spec["previous"].format(prev=prev)
    return int(prev)


def matches(key: str, games: int) -> list[tuple[str, list[str]]]:
    """(label, argv) of each match of ``key``; the model is always player A.

    The model plays as ``zeroplay play`` plays it: Gomoku with the threat solver on (``vcf:PATH``;
    one match pits that against the same model with the solver off), other games (``threat_solver``
    False) as the net alone.
    """
    spec = MODELS[key]
    path = model_path(key)
    solver = "vcf:" if spec.get("threat_solver", True) else ""
    me = solver + path
    opp = spec.get("opponents", ["rollout:1000", "rollout:5000", "uniform:800"] + spec.get("extra", []))
    # an opponent is its player spec, or (label, spec) where the spec is a path no table should show
    out = [(o, [me, o]) if isinstance(o, str) else (o[0], [me, o[1]]) for o in opp]
    prev = previous_iteration(key)
    if prev is not None:
        out.append((f"previous model (iteration {prev})", [me, solver + spec["previous"].format(prev=prev)]))
    if spec.get("solver_row", True):
        out.append(("threat solver on vs off", [me, path]))
    # "parallel": fewer games at once, so that a long match records finished games as it goes
    # (the arena's default plays 64 side by side: on 15x15 none ends within half an hour)
    parallel = ["--parallel", str(spec["parallel"])] if "parallel" in spec else []
    common = ["--games", str(games), *spec["game"], "--playouts", str(spec["playouts"]), *parallel,
              "--json", "--no-progress"]
    return [(label, [".venv/bin/zeroplay", "arena", *players, *common]) for label, players in out]


def results_file(key: str) -> Path:
    return ROOT / "training" / "strength" / f"{key}.jsonl"


def record_file(key: str, label: str) -> Path:
    """The match's games (``zeroplay arena --record``): training/strength/games/KEY/LABEL.jsonl."""
    slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
    return ROOT / "training" / "strength" / "games" / key / f"{slug}.jsonl"


def load_results(key: str) -> dict[str, dict]:
    path = results_file(key)
    if not path.exists():
        return {}
    rows = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    return {r["command"]: r for r in rows}


def recorded(done: dict[str, dict], argv: list[str], measured_as: tuple[str, str] | None = None) -> dict | None:
    """The result row of the match ``argv``: recorded under its command, or, for rows measured
    before ``heuristic:N`` was a ``zeroplay arena`` player, under the same arguments run by
    ``.venv/bin/python training/arena.py``; with ``measured_as`` = (path, old path), also under the
    command naming the model's file by the path it had when measured."""
    legacy = [".venv/bin/python", "training/arena.py", *argv[2:]]
    found = done.get(shlex.join(argv)) or done.get(shlex.join(legacy))
    if found is None and measured_as is not None:
        path, old = measured_as
        renamed = [a.replace(path, old) for a in argv]
        return recorded(done, renamed)
    return found


def _measured_as(key: str) -> tuple[str, str] | None:
    spec = MODELS[key]
    return (spec["path"], spec["measured_as"]) if "measured_as" in spec else None


def cmd_run(args) -> int:
    done = load_results(args.model)
    path = results_file(args.model)
    path.parent.mkdir(parents=True, exist_ok=True)
    for label, argv in matches(args.model, args.games):
        command = shlex.join(argv)
        if recorded(done, argv, _measured_as(args.model)) is not None or (args.only and args.only not in label):
            continue
        print(f"{args.model}: {label}: {command}", file=sys.stderr, flush=True)
        # the finished games go to a record, so that a stopped match resumes where it was
        proc = subprocess.run([*argv, "--record", str(record_file(args.model, label).relative_to(ROOT))],
                              cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0:
            print(proc.stderr[-2000:], file=sys.stderr)
            return proc.returncode
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        with path.open("a") as f:
            f.write(json.dumps({"label": label, "command": command, "result": result}) + "\n")
        print(f"  {result['wins']}/{result['draws']}/{result['losses']} score {result['score']}", file=sys.stderr)
    return 0


def _elo(r: dict) -> str:
    """``+263 [+207, +322]``, a sweep ``+inf [+566, +inf]``: ``zeroplay.engine.elo`` (the arena's own
    numbers and interval) computed from the row's W / D / L."""
    if str(ROOT / "src") not in sys.path:
        sys.path.insert(0, str(ROOT / "src"))
    from zeroplay.engine.elo import elo_estimate, format_elo

    e = elo_estimate(r["wins"], r["draws"], r["losses"])
    return f"{format_elo(e.elo)} [{format_elo(e.elo_low)}, {format_elo(e.elo_high)}]"


def _so_far(key: str, label: str, argv: list[str]) -> str:
    """``": 37 games recorded so far, 20 / 5 / 12"`` (A's W / D / L) for a match stopped unfinished;
    empty without a record, or when the record is unreadable or of another match (its specs are
    not this command's; ``zeroplay arena --record`` itself checks the checkpoints' contents)."""
    path = record_file(key, label)
    try:
        header, *lines = path.read_text().splitlines()
        header = json.loads(header)
    except (OSError, UnicodeDecodeError, ValueError):
        return ""
    specs = [argv[2:4]]
    if _measured_as(key) is not None:  # a record made while the model had its shipped name
        path, old = _measured_as(key)
        specs.append([a.replace(path, old) for a in argv[2:4]])
    if not isinstance(header, dict) or [header.get("a"), header.get("b")] not in specs:
        return ""
    games = []
    for line in lines:
        try:
            g = json.loads(line)
            games.append((bool(g["a_is_black"]), g["winner"]))
        except (ValueError, KeyError, TypeError):
            continue  # a cut-off last line
    if not games:
        return ""
    won = sum(w is not None and (w == 0) == black for black, w in games)
    drawn = sum(w is None for _, w in games)
    return f": {len(games)} games recorded so far, {won} / {drawn} / {len(games) - won - drawn}"


def cmd_table(args) -> int:
    done = load_results(args.model)
    print("| opponent | games | W / D / L | as Black | as White | score | Elo [95 %] | seconds | command |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, argv in matches(args.model, args.games):
        command = shlex.join(argv)
        r = recorded(done, argv, _measured_as(args.model))
        if r is None:
            print(f"| {label} | - | pending{_so_far(args.model, label, argv)} | | | | | | `{command}` |")
            continue
        command, r = r["command"], r["result"]  # the command as recorded (a legacy one included)
        colours = " | ".join("{wins} / {draws} / {losses}".format(**r[k]) for k in ("a_as_black", "a_as_white"))
        print(f"| {label} | {r['games']} | {r['wins']} / {r['draws']} / {r['losses']} | {colours} | {r['score']:.3f} "
              f"| {_elo(r)} | {r['seconds']:.0f} | `{command}` |")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("action", choices=["run", "table"])
    p.add_argument("model", choices=sorted(MODELS))
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--only", default=None, help="run only matches whose label contains this")
    args = p.parse_args(argv)
    return cmd_run(args) if args.action == "run" else cmd_table(args)


if __name__ == "__main__":
    sys.exit(main())
