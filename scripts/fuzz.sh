#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME (default 10s). A run fails on a real finding: a failing
# input written to testdata/fuzz, a panic or a failed check. Go's fuzzer can also end a run
# that found nothing with a bare "context deadline exceeded" when its -fuzztime deadline races a
# worker busy with an input (golang/go#75804, most often on a loaded machine); such a run is
# followed by a replay of the target's seed corpus, which must pass, and counts as a pass.
set -uo pipefail
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10s}
failed=0
for dir in $(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do
	for fn in $(grep -h '^func Fuzz' "$dir"/*_test.go | sed 's/func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do
		echo "fuzz $dir $fn ($FUZZTIME)"
		out=$(mktemp)
		if "$GO" test -run='^$' -fuzz="^$fn\$" -fuzztime="$FUZZTIME" "$dir" >"$out" 2>&1; then
			tail -n 1 "$out"
		elif grep -q 'context deadline exceeded' "$out" &&
			! grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:' "$out"; then
			tail -n 3 "$out"
			echo "fuzz $fn: the fuzzer's deadline race, nothing found; replaying the seed corpus"
			"$GO" test -count=1 -run="^$fn\$" "$dir" || failed=1
		else
			cat "$out"
			failed=1
		fi
		rm -f "$out"
	done
done
exit $failed
