#!/usr/bin/env bash
# Run (or resume) one shipped-model training run in chunks, logging each chunk's CPU time.
#
#   training/run.sh NAME            # NAME = a file training/NAME.args holding the train options
#
# Each chunk is `zeroplay train --run-dir training/runs/NAME $(cat training/NAME.args) --hours H`
# (H = $CHUNK_HOURS, default 0.25). Its wall and CPU seconds (user + sys of the command and its
# self-play workers) go to training/runs/NAME/cputime.tsv when it ends; while it runs, a sampler
# writes the CPU seconds so far to cputime.live every 30 s, so a chunk killed with the session is
# booked (rc "killed", from its last sample) when the run is next started. The run's CPU-hours =
# the sum of the cpu_s column. The loop ends when a chunk adds no checkpoint: the run has the
# --iterations total of its args file. Rerunning this script resumes the run (zeroplay train is
# resumable from its directory). Ctrl-C or a kill of this script stops the running chunk with it;
# a run that has its iterations is left untouched; options zeroplay train refuses (status 2) end
# the script at once, other failures are retried 5 times.
set -u
cd "$(dirname "$0")/.."
if [ $# -ne 1 ]; then
    echo "usage: training/run.sh NAME   (NAME: a training/NAME.args file)" >&2
    exit 2
fi
NAME=$1
ARGS_FILE=training/$NAME.args
# a mistyped name would otherwise start an unbounded run with default settings
if [ ! -f "$ARGS_FILE" ]; then
    echo "training/run.sh: no $ARGS_FILE (runs: $(cd training && ls *.args | sed 's/\.args$//' | tr '\n' ' '))" >&2
    exit 2
fi
RUN=training/runs/$NAME
CHUNK_HOURS=${CHUNK_HOURS:-0.25}
ZP=${ZEROPLAY:-.venv/bin/zeroplay}
TCK=$(getconf CLK_TCK)
mkdir -p "$RUN"
[ -f "$RUN/cputime.tsv" ] || printf 'start\twall_s\tuser_s\tsys_s\tcpu_s\trc\n' > "$RUN/cputime.tsv"
if [ -s "$RUN/cputime.live" ]; then   # the previous chunk was killed: book its last sample
    read -r lstart lwall lcpu < "$RUN/cputime.live"
    printf '%s\t%s\t\t\t%s\tkilled\n' "$lstart" "$lwall" "$lcpu" >> "$RUN/cputime.tsv"
    rm -f "$RUN/cputime.live"
fi

cpu_of_tree() {   # CPU seconds (utime + stime + reaped children) of process $1 and its descendants
    local ticks=0 p f
    for p in $(pstree -pT "$1" 2>/dev/null | grep -o '([0-9]*)' | tr -d '()'); do
        f=$(cat "/proc/$p/stat" 2>/dev/null) || continue
        f=${f##*) }
        set -- $f
        ticks=$((ticks + ${12} + ${13} + ${14} + ${15}))
    done
    awk -v t="$ticks" -v k="$TCK" 'BEGIN { printf "%.1f", t / k }'
}

# A finished run: say so and touch nothing (a chunk would rewrite the committed config.json and
# book a row of CPU time for nothing).
target=$(grep -v '^#' "$ARGS_FILE" | grep -oE -- '--iterations[= ]+[0-9]+' | tail -1 | tr -dc '0-9')
newest=$(ls "$RUN/evals" 2>/dev/null | grep -E '^iter-[0-9]+\.json$' | tail -1 | tr -dc '0-9')
if [ -n "$target" ] && [ -n "$newest" ] && [ $((10#$newest)) -ge "$target" ]; then
    echo "run.sh: $NAME has its $target iterations (training/$NAME.args): nothing to do" >&2
    exit 0
fi

tpid=
sleeper=
stop_chunk() {   # Ctrl-C, kill or hang-up of this script: stop the chunk too, never orphan it
    trap - INT TERM HUP
    [ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
    if [ -n "$tpid" ] && kill -0 "$tpid" 2>/dev/null; then
        printf '%s %s %s\n' "$start" "$(( $(date +%s) - t0 ))" "$(cpu_of_tree "$tpid")" > "$RUN/cputime.live.tmp"
        mv -f "$RUN/cputime.live.tmp" "$RUN/cputime.live"   # booked as "killed" at the next start
        # a background job of a script ignores SIGINT, so the chunk gets TERM; zeroplay train
        # resumes after any kill, and its self-play workers end with it
        pkill -TERM -P "$tpid" 2>/dev/null
        wait "$tpid" 2>/dev/null
    fi
    echo "run.sh: stopped; rerun training/run.sh $NAME to resume" >&2
    exit 130
}
trap stop_chunk INT TERM HUP

fails=0
while :; do
    before=$(ls "$RUN/checkpoints" 2>/dev/null | tail -1)
    start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    t0=$(date +%s)
    tf=$(mktemp)
    # shellcheck disable=SC2046
    /usr/bin/time -f '%e %U %S' -o "$tf" "$ZP" train --run-dir "$RUN" $(grep -v '^#' "$ARGS_FILE") \
        --hours "$CHUNK_HOURS" --no-progress &
    tpid=$!
    polls=0
    while kill -0 "$tpid" 2>/dev/null; do
        # a 1 s poll, a sample every 30: a chunk's end is seen within a second (a 30 s sleep
        # made every chunk, and a refused one, wait out the rest of it)
        sleep 1 & sleeper=$!
        wait "$sleeper"   # wait, unlike sleep, lets a trap run at once
        polls=$((polls + 1))
        [ $((polls % 30)) -eq 0 ] || continue
        kill -0 "$tpid" 2>/dev/null || break
        printf '%s %s %s\n' "$start" "$(( $(date +%s) - t0 ))" "$(cpu_of_tree "$tpid")" > "$RUN/cputime.live.tmp"
        mv -f "$RUN/cputime.live.tmp" "$RUN/cputime.live"
    done
    wait "$tpid"
    rc=$?
    read -r wall user sys < <(tail -1 "$tf")
    rm -f "$tf" "$RUN/cputime.live"
    tpid=
    if [ "$rc" -eq 2 ]; then   # a refused option or setting: no training ran, retrying cannot help
        echo "run.sh: zeroplay train refused the options of training/$NAME.args (above)" >&2
        exit 2
    fi
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$start" "$wall" "$user" "$sys" "$cpu" "$rc" >> "$RUN/cputime.tsv"
    after=$(ls "$RUN/checkpoints" 2>/dev/null | tail -1)
    if [ "$rc" -ne 0 ]; then
        fails=$((fails + 1))
        [ "$fails" -ge 5 ] && { echo "run.sh: 5 failed chunks, giving up" >&2; exit 1; }
        sleep 60
        continue
    fi
    fails=0
    [ "$before" = "$after" ] && break
done
