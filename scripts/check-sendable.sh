#!/usr/bin/env bash
# What the compiler is told not to check for data races, kept few and explained (Docs/Architecture.md,
# "Concurrency"): every `@unchecked Sendable` and every `nonisolated(unsafe)` in Sources has a comment
# beginning "Unchecked:" on one of the two lines above, the same line or the line below, saying why it is safe;
# there are at most 8 `@unchecked Sendable` types; and `Locked` and `ResultSlots` take only Sendable
# values (so the 40-odd types that keep their state in a `Locked` are checked by the compiler).
# Run by `make lint` (and so by `make test`).
set -euo pipefail
cd "$(dirname "$0")/.."
MAX_UNCHECKED=8
status=0
unchecked=0
while IFS=: read -r file line _; do
    [ "$(sed -n "${line}p" "$file" | sed 's/^[[:space:]]*//' | cut -c1-2)" = "//" ] && continue
    if grep -q "@unchecked Sendable" <(sed -n "${line}p" "$file"); then unchecked=$((unchecked + 1)); fi
    from=$((line > 2 ? line - 2 : 1))
    if ! sed -n "${from},$((line + 1))p" "$file" | grep -q "// Unchecked:"; then
        echo "check-sendable: $file:$line has no '// Unchecked: <why it is safe>' comment beside it"
        status=1
    fi
done < <(grep -rn -E "@unchecked Sendable|nonisolated\(unsafe\)" Sources --include='*.swift')
if [ "$unchecked" -gt "$MAX_UNCHECKED" ]; then
    echo "check-sendable: $unchecked @unchecked Sendable types in Sources, at most $MAX_UNCHECKED: check the new one, or give it a Locked"
    status=1
fi
grep -q "final class Locked<Value: Sendable>" Sources/MemoraSystem/Locked.swift \
    || { echo "check-sendable: Locked must take only Sendable values (Locked<Value: Sendable>)"; status=1; }
grep -q "final class ResultSlots<Value: Sendable>" Sources/MemoraSystem/ParallelWork.swift \
    || { echo "check-sendable: ResultSlots must take only Sendable values"; status=1; }
[ "$status" -eq 0 ] && echo "sendable: OK ($unchecked @unchecked Sendable types, each explained; at most $MAX_UNCHECKED)"
exit "$status"
