#!/usr/bin/env bash
# The engine against raw OpenAL in instructions, not CPU time: CPU time on a shared machine
# varies by ±30 % run to run, callgrind's instruction counts repeat. Counts
# `earshot stress --voices N --no-baseline` (the engine alone) and `--baseline-only` (raw OpenAL
# alone, as many sources), each rendering SHORT and LONG seconds; the difference between the two
# renders of a side is what LONG − SHORT seconds of the mix cost it (start-up, loading and
# shutdown cancel). Prints both marginal counts and engine / raw OpenAL.
#
# Debian 12's valgrind 3.19 cannot read Swift's DWARF: a `strip --strip-debug` copy is counted
# (the symbols stay). Under callgrind a process runs ~50× slower: 4,096 voices take minutes.
# Usage: Benchmarks/callgrind-ratio.sh EARSHOT VOICES [SHORT=1] [LONG=3]
set -euo pipefail
earshot=$1 voices=$2 short=${3:-1} long=${4:-3}
command -v valgrind > /dev/null || { echo "callgrind-ratio: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
strip --strip-debug -o "$work/earshot" "$earshot"

# Instructions of one whole process (every thread): callgrind's summary line.
count() {
  local seconds=$1; shift
  if ! valgrind --tool=callgrind --callgrind-out-file="$work/out" "$work/earshot" stress --voices "$voices" \
       --seconds "$seconds" "$@" > /dev/null 2> "$work/log"; then
    cat "$work/log" >&2
    exit 1
  fi
  awk '/^summary:/ { print $2 }' "$work/out"
}

e1=$(count "$short" --no-baseline); e3=$(count "$long" --no-baseline)
b1=$(count "$short" --baseline-only); b3=$(count "$long" --baseline-only)
awk -v n="$voices" -v s="$short" -v l="$long" -v e1="$e1" -v e3="$e3" -v b1="$b1" -v b3="$b3" 'BEGIN {
  e = e3 - e1; b = b3 - b1
  if (e <= 0 || b <= 0) { print "callgrind-ratio: a longer render counted no more instructions" > "/dev/stderr"; exit 1 }
  printf "%d voices, instructions of %g s of mix (%g s render less %g s): engine %.1f M, raw OpenAL %.1f M: engine / raw OpenAL %.3f\n",
         n, l - s, l, s, e / 1e6, b / 1e6, e / b
}'
