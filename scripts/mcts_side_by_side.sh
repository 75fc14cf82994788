#!/bin/bash
# `zeroplay bench mcts` of an old commit and of this checkout, alternately, in one run (CPU time).
# Usage: scripts/mcts_side_by_side.sh COMMIT [ROUNDS]    (e.g. ec6287c, the dense-edge layout)
set -e
old=$(mktemp -d)
git archive "$1" src | tar -x -C "$old"
PY=${PY:-.venv/bin/python}
PY=$(realpath "$PY")
for round in $(seq 1 "${2:-3}"); do
  for side in old new; do
    dir=$([ $side = old ] && echo "$old" || pwd)
    (cd "$dir" && PYTHONPATH=src "$PY" -m zeroplay bench mcts --no-openspiel --searches 10 --json | sed "s/^/$side $round /")
  done
done
rm -rf "$old"
