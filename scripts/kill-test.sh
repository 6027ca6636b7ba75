#!/usr/bin/env bash
# The kill test of MetadataKit's writer: `memora metadata write` on many files is
# killed with SIGKILL at random moments; afterwards every photo must be either its
# old self (byte for byte) or completely written (the new caption reads back), and
# must still decode. Temporary files a killed writer could not remove are reported
# (they never replace a photo). Run by `make test`; needs exiftool.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-12}
swift build --product memora >/dev/null
MEMORA=.build/debug/memora
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work/state"

"$MEMORA" demo --output "$work/demo" >/dev/null 2>&1
mkdir -p "$work/originals"
i=0
for source in "$work"/demo/library/*.jpg "$work"/demo/library/*.png; do
  "$MEMORA" image info "$source" >/dev/null 2>&1 || continue
  for copy in 1 2 3; do cp "$source" "$work/originals/photo-$i.${source##*.}"; i=$((i + 1)); done
done

failures=0
leftovers=0
written=0
untouched=0
for round in $(seq 1 "$ROUNDS"); do
  rm -rf "$work/run" && cp -r "$work/originals" "$work/run"
  caption="Round $round: a killed write must never leave half a photo"
  "$MEMORA" metadata write --caption "$caption" "$work"/run/* >/dev/null 2>&1 &
  writer=$!
  sleep "0.$(( RANDOM % 40 ))"
  kill -9 "$writer" 2>/dev/null || true
  wait "$writer" 2>/dev/null || true
  for file in "$work"/run/*; do
    case "$(basename "$file")" in .*) continue ;; esac
    original="$work/originals/$(basename "$file")"
    if cmp -s "$file" "$original"; then untouched=$((untouched + 1)); continue; fi
    if [ "$(exiftool -s3 -XMP-dc:Description "$file")" = "$caption" ] && "$MEMORA" image info "$file" >/dev/null 2>&1; then
      written=$((written + 1))
      continue
    fi
    echo "kill test: $(basename "$file") is neither the original nor completely written (round $round)" >&2
    failures=$((failures + 1))
  done
  leftovers=$((leftovers + $(find "$work/run" -name '.*memora-*' | wc -l)))
done
echo "kill test: $ROUNDS rounds over $i files: $written completely written, $untouched untouched, $failures damaged; $leftovers temporary files left by killed writers"
[ "$failures" -eq 0 ]
