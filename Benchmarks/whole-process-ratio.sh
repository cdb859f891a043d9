#!/usr/bin/env bash
# The engine against raw OpenAL as whole processes: `earshot stress --voices N --no-baseline`
# (the engine alone) and `--baseline-only` (raw OpenAL alone, as many sources), run in turn,
# A B A B …, RUNS times each; prints each pair's user+system CPU ratio and their median.
# Usage: Benchmarks/whole-process-ratio.sh EARSHOT VOICES [SECONDS=30] [RUNS=3]
set -euo pipefail
earshot=$1 voices=$2 seconds=${3:-30} runs=${4:-3}
TIMEFORMAT='%U %S'
cpu() { { time "$earshot" stress --voices "$voices" --seconds "$seconds" "$@" > /dev/null 2>&1; } 2>&1 | awk '{ print $1 + $2 }'; }
ratios=()
for ((i = 1; i <= runs; i++)); do
  a=$(cpu --no-baseline); b=$(cpu --baseline-only)
  r=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')
  echo "  run $i: engine $a s, raw OpenAL $b s of CPU: ratio $r"
  ratios+=("$r")
done
printf '%s\n' "${ratios[@]}" | sort -n | awk -v n="$voices" -v s="$seconds" '{ v[NR] = $1 } END { printf "%d voices, %d s renders, whole-process CPU engine / raw OpenAL: median %.3f (min %.3f, max %.3f)\n", n, s, v[int((NR + 1) / 2)], v[1], v[NR] }'
