#!/usr/bin/env bash
# Two builds of the release binaries, measured side by side in one run: each benchmark of
# Benchmarks/README.md runs on BEFORE, then AFTER, then again (A B A B), so that whatever else
# the machine does falls on both. Prints the lines each benchmark's figures come from.
# Usage: Benchmarks/side-by-side.sh BEFORE_DIR AFTER_DIR [ROUNDS=2]
#   (each DIR holds an `earshot` and an `earshot-bench` built with `swift build -c release`)
set -euo pipefail
before=$1 after=$2 rounds=${3:-2}
run() {   # run TITLE GREP-PATTERN COMMAND-ARGS... (the command is `earshot` or `earshot-bench`)
  local title=$1 pattern=$2; shift 2
  echo "== $title"
  for ((i = 1; i <= rounds; i++)); do
    for side in before after; do
      local dir=$before; [[ $side == after ]] && dir=$after
      local tool=$1
      "$dir/$tool" "${@:2}" 2>&1 | grep -E "$pattern" | sed "s/^/  $side $i: /" || true
    done
  done
}
run "stress 1,024 voices, 10 s" 'ns per voice|overhead ratio' earshot stress --voices 1024 --seconds 10
run "stress 4,096 voices, 5 s" 'ns per voice|overhead ratio' earshot stress --voices 4096 --seconds 5
run "stress 10,000 emitters, 1,024 real, 10 s" 'ns per voice|overhead ratio' earshot stress --voices 10000 --max-real 1024 --seconds 10
run "stress 256 voices with reverb sends, 10 s" 'ns per voice|overhead ratio|send' earshot stress --voices 256 --seconds 10 --reverb
run "play cost" '^ *[0-9]|ratio|ns' earshot stress --play-cost
run "limiter" 'ms|%' earshot-bench limiter
run "music streaming, 120 s" 'ms per second|×' earshot-bench music --seconds 120
run "clips" ' ms' earshot-bench clips
run "scenes (validate)" '^ +[0-9]' earshot-bench scenes
for side in before after; do
  dir=$before; [[ $side == after ]] && dir=$after
  echo "== whole process, 1,024 voices, 10 s × 3 ($side)"
  "$(dirname "$0")/whole-process-ratio.sh" "$dir/earshot" 1024 10 3 | tail -1
done
