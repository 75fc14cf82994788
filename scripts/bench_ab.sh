#!/usr/bin/env bash
# Side-by-side benchmark of two source trees in one run (rounds alternate the trees, so machine
# load hits both alike). Usage: scripts/bench_ab.sh OLD_TREE NEW_TREE [ROUNDS] -- BENCH ARGS...
# e.g. git worktree add --detach /tmp/old ec6287c
#      scripts/bench_ab.sh /tmp/old . 2 -- mcts --searches 10 --no-openspiel --json
set -euo pipefail
old=$1 new=$2 rounds=${3:-2}
shift 3; [ "${1:-}" = "--" ] && shift
python=${PYTHON:-$(command -v python3)}
for round in $(seq "$rounds"); do
  for tree in "$old" "$new"; do
    echo "== $tree round $round"
    (cd "$tree" && PYTHONPATH=src "$python" -m zeroplay bench "$@" | tail -1)
  done
done
