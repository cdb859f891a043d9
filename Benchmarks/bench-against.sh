#!/usr/bin/env bash
# The working tree against a baseline revision in one run (`make bench-against REV=...`): REV is
# checked out in a temporary git worktree under /tmp, both are built with
# `swift build -c release --product earshot`, and then, side by side, for each voice count the
# mix's instructions against raw OpenAL (Benchmarks/callgrind-ratio.sh, this tree's copy for
# both sides: it only drives `earshot stress`) and `earshot stress --play-cost`. The temporary
# worktree is removed afterwards, also on failure or Ctrl-C.
#
# The baseline is built offline from the dependencies this tree already has (.build/checkouts,
# .build/repositories): the machine has no internet.
# Usage: Benchmarks/bench-against.sh REV ["VOICES ..."=1024 4096] [SHORT=1] [LONG=3]
set -euo pipefail
rev=$1 voices=${2:-1024 4096} short=${3:-1} long=${4:-3}
root=$(git rev-parse --show-toplevel)
base=$(git -C "$root" rev-parse --verify --quiet "$rev^{commit}") || { echo "bench-against: $rev is not a revision" >&2; exit 1; }
label=${base:0:7}
tag=$(git -C "$root" describe --tags --exact-match "$base" 2> /dev/null) && label="$tag ($label)"
work=$(mktemp -d /tmp/earshot-bench-against.XXXXXX)
cleanup() {
  git -C "$root" worktree remove --force "$work/tree" 2> /dev/null || true
  rm -rf "$work"
  rm -f /tmp/"$(tr / _ <<< "$work/tree")"_*   # SwiftPM's lock files for the baseline's build folder
  git -C "$root" worktree prune
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== building $label (baseline, in $work/tree)"
git -C "$root" worktree add --quiet --detach "$work/tree" "$base"
mkdir -p "$work/tree/.build"
for d in checkouts repositories artifacts workspace-state.json; do
  [[ -e "$root/.build/$d" ]] && cp -a "$root/.build/$d" "$work/tree/.build/"
done
[[ -e "$root/Package.resolved" && ! -e "$work/tree/Package.resolved" ]] && cp "$root/Package.resolved" "$work/tree/"
(cd "$work/tree" && swift build -c release --product earshot 2>&1 | tail -1)
echo "== building the working tree ($root)"
(cd "$root" && swift build -c release --product earshot 2>&1 | tail -1)
before=$work/tree/.build/release/earshot after=$root/.build/release/earshot
printf '%-16s %s\n' "baseline:" "$label" "working tree:" "$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD || echo ' + changes')"

for n in $voices; do
  echo "== instructions (callgrind): $n voices, $((long - short)) s of mix, engine against raw OpenAL"
  printf '  %-14s %12s %14s %12s\n' "" "engine" "raw OpenAL" "ratio"
  for side in baseline "working tree"; do
    bin=$before; [[ $side == "working tree" ]] && bin=$after
    line=$("$root/Benchmarks/callgrind-ratio.sh" "$bin" "$n" "$short" "$long")
    echo "$line" | awk -v side="$side" '{
      for (i = 1; i <= NF; i++) {
        if ($i == "engine" && $(i + 2) == "M,") e = $(i + 1)
        if ($i == "OpenAL" && $(i + 2) == "M:") r = $(i + 1)
      }
      printf "  %-14s %10s M %12s M %12s\n", side, e, r, $NF
    }'
  done
done

echo "== earshot stress --play-cost: baseline | working tree"
"$before" stress --play-cost > "$work/before.txt"
"$after" stress --play-cost > "$work/after.txt"
paste -d '\t' "$work/before.txt" "$work/after.txt" | awk -F '\t' '{ printf "  %-72s | %s\n", $1, $2 }'
