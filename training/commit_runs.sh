#!/usr/bin/env bash
# Commit the state of the shipped-model training runs that a later session needs to resume them:
# training/NAME.args, config.json, metrics.jsonl, cputime.tsv (+ cputime.live), evals/, shards/ (the whole replay buffer: training
# samples from it after a resume), plots/, and of checkpoints/ only the newest and the
# run's best (evals: best_after of the newest evaluation), which the next arena plays against,
# and those named in runs/NAME/KEEP (previous models that docs/STRENGTH.md plays against).
# Older checkpoints are dropped from the index (kept on disk). Commits nothing else.
#
#   training/commit_runs.sh "message" NAME [NAME...]
set -eu
cd "$(dirname "$0")/.."
msg=$1; shift
paths=()
for name in "$@"; do
    run=training/runs/$name
    [ -d "$run/checkpoints" ] || continue
    latest=$(ls "$run/checkpoints" | grep -E '^iter-[0-9]+\.safetensors$' | tail -1)
    newest_eval=$(ls "$run/evals" | tail -1)
    best=$(.venv/bin/python -c "import json,sys; print('iter-%06d.safetensors' % json.load(open(sys.argv[1]))['best_after'])" "$run/evals/$newest_eval")
    keep=("$run/checkpoints/$latest")
    [ -f "$run/checkpoints/$best" ] && keep+=("$run/checkpoints/$best")
    # checkpoints that docs/STRENGTH.md plays against (the "previous model"), one name a line
    if [ -f "$run/KEEP" ]; then
        while read -r k; do [ -n "$k" ] && keep+=("$run/checkpoints/$k"); done < "$run/KEEP"
        git add "$run/KEEP"
    fi
    for f in $(git ls-files "$run/checkpoints"); do
        case " ${keep[*]} " in *" $f "*) ;; *) git rm -q --cached "$f" ;; esac
    done
    git add -f "${keep[@]}"
    paths+=("$run" "${keep[@]}")
    git add "$run/config.json" "$run/metrics.jsonl" "$run/cputime.tsv" "$run/evals" "$run/shards" "$run/plots"
    # the CPU seconds so far of the chunk that is running (run.sh books them if the chunk is killed)
    if [ -f "$run/cputime.live" ]; then git add "$run/cputime.live"
    else git rm -q --cached --ignore-unmatch "$run/cputime.live"; fi
    [ -f "training/$name.args" ] && git add "training/$name.args"
done
. training/staged_guard.sh
refuse_foreign_staged commit_runs.sh training/
for i in 1 2 3 4 5; do
    git commit -q -m "$msg" && break
    sleep 5
done
git log --oneline -1
