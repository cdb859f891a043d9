#!/usr/bin/env bash
# The README's `make test`: the whole XCTest suite, in two shards run at once. The live tests
# (a private sound server or D-Bus peer of their own, each in its own scratch folder) mostly wait
# on the wall clock; the rest mostly use the CPU. Side by side the suite takes about as long as
# the longer shard instead of their sum. A class is live when its file starts a sound server or
# a bus daemon, so a new live test joins the live shard by itself.
#
# Each shard's log is kept (.build/test-output.log and .build/test-live.log); the exit status is
# non-zero when either shard fails; the last line sums both up as "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
mkdir -p .build

live=$(grep -rlE 'PrivateSoundServer\.start|dbus-daemon|dbus-run-session' Tests --include='*Tests.swift' \
         | xargs -r grep -hoE '^(final )?class [A-Za-z0-9_]+Tests\b' | awk '{ print $NF }' | sort -u \
         | sed 's|.*|\\.&/|' | paste -sd'|')
if [ -z "$live" ]; then
    echo "run-suite: no live test class found; the pattern above no longer matches the live tests" >&2
    exit 2
fi

# The live shard runs the test binary itself: a second `swift test` would wait for the first's
# lock on .build instead of running beside it.
bin=$(ls -d .build/debug/*PackageTests.xctest 2>/dev/null | head -1)
if [ -z "$bin" ]; then echo "run-suite: no test binary under .build/debug; build with --build-tests first" >&2; exit 2; fi
live_specs=$("$bin" --list-tests 2>/dev/null | grep -E "$live" | sed 's|/.*||' | sort -u | paste -sd,)
if [ -z "$live_specs" ]; then echo "run-suite: the test binary lists none of the live classes ($live)" >&2; exit 2; fi
"$bin" "$live_specs" > .build/test-live.log 2>&1 &
live_pid=$!
"$SWIFT" test --skip-build --disable-swift-testing --skip "$live" 2>&1 | tee .build/test-output.log
rest=$?
wait "$live_pid"
live_status=$?

echo "---- live shard (.build/test-live.log) ----"
cat .build/test-live.log

# Each log's last "Executed" line is its shard's total.
summary() {
    awk '/Executed [0-9]+ tests?, with / { n = $2; f = 0; s = 0;
           for (i = 1; i <= NF; i++) { if ($i ~ /^failures?$/) f = $(i-1); if ($i == "skipped") s = $(i-2) } }
         END { print (n == "" ? 0 : n), (n == "" ? 0 : f), (n == "" ? 0 : s) }' "$1"
}
read -r n1 f1 s1 < <(summary .build/test-output.log)
read -r n2 f2 s2 < <(summary .build/test-live.log)
n=$((n1 + n2)); f=$((f1 + f2)); s=$((s1 + s2))
if [ "$rest" -ne 0 ] || [ "$live_status" -ne 0 ]; then [ "$f" -gt 0 ] || f=$((f + 1)); fi
echo "$((n - f - s)) passed, $f failed$([ "$s" -gt 0 ] && echo ", $s skipped")"
[ "$rest" -eq 0 ] && [ "$live_status" -eq 0 ]
