#!/usr/bin/env bash
# Commit the resumable state of an ablation run (`zeroplay ablate --out training/ablations/NAME`):
# per side config.json, metrics.jsonl, evals/, shards/ (the replay buffer) and the newest
# checkpoint only (older ones leave the index, kept on disk); the run's options.json, arena.json and
# cputime.jsonl, and once the arena has run, arena.jsonl, RESULT.md and result.json. Commits
# nothing else.
#
#   training/commit_ablation.sh NAME ["message"]
set -eu
cd "$(dirname "$0")/.."
name=$1
dir=training/ablations/$name
[ -d "$dir" ] || { echo "commit_ablation.sh: no $dir" >&2; exit 2; }
for side in a b; do
    s=$dir/$side
    [ -d "$s/checkpoints" ] || continue
    latest=$(ls "$s/checkpoints" | grep -E '^iter-[0-9]+\.safetensors$' | tail -1 || true)
    for f in $(git ls-files "$s/checkpoints"); do
        [ "$f" = "$s/checkpoints/$latest" ] || git rm -q --cached "$f"
    done
    [ -n "$latest" ] && git add -f "$s/checkpoints/$latest"
    for p in config.json metrics.jsonl evals shards; do
        [ -e "$s/$p" ] && git add -f "$s/$p"
    done
done
for p in options.json cputime.jsonl arena.jsonl arena.json RESULT.md result.json; do
    [ -e "$dir/$p" ] && git add -f "$dir/$p"
done
. training/staged_guard.sh
refuse_foreign_staged commit_ablation.sh "$dir/"
state=$(.venv/bin/python - "$dir" <<'PY'
import json, sys
from pathlib import Path
total = {"a": [0.0, 0], "b": [0.0, 0]}
p = Path(sys.argv[1]) / "cputime.jsonl"
for line in (p.read_text().splitlines() if p.exists() else []):
    r = json.loads(line)
    side = r.get("side")
    if side in total:
        total[side][0] += float(r.get("cpu_s", 0.0))
        total[side][1] = max(total[side][1], int(r.get("iterations", 0)))
print(", ".join(f"{k.upper()} {v[0]:.0f} CPU-s in {v[1]} iterations" for k, v in total.items()))
PY
)
git commit -q -m "${2:-training/ablations/$name: resumable state ($state)}"
git log --oneline -1
