#!/usr/bin/env bash
# The kill test of MetadataKit's writer: `memora metadata write` on many files is
# killed with SIGKILL at random moments; afterwards every photo must be either its
# old self (byte for byte) or completely written (the new caption reads back), and
# must still decode. Temporary files a killed writer could not remove are reported
# (they never replace a photo). Run by `make test`; needs exiftool.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-12}
swift build -Xcxx -O2 --product memora >/dev/null  # the flags of `make test` (Makefile)
MEMORA=.build/debug/memora
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work/state"

# The sample library only (no vision models: the demo's real photos and faces are not needed here).
mkdir -p "$work/no-models"
MEMORA_MODELS="$work/no-models" "$MEMORA" demo --output "$work/demo" >/dev/null 2>&1
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

# The kill test of the captioning queue: `memora caption` over many photos is killed
# with SIGKILL mid-batch, then run again. Afterwards every photo must be captioned
# exactly once (one history entry, the caption in the file equal to it, also after a killed
# and a complete `caption --force` run that make the same caption again) and the queue
# must hold nothing pending, processing or failed.
QUEUE_ROUNDS=${QUEUE_ROUNDS:-4}
queue_failures=0
# The queue's crash safety does not depend on what the description says: the on-device description
# runs here without the vision models (an empty models folder), from the photos' metadata and
# colours, so each round takes seconds, not the minutes OCR in a debug build would.
export MEMORA_MODELS="$work/no-models"
killed_at=""
# Uncaptioned photos: upright re-encodings of the samples (the demo captioned the samples themselves).
mkdir -p "$work/uncaptioned"
b=0
for source in "$work"/originals/*.jpg; do
  "$MEMORA" image thumbnail "$source" --output "$work/uncaptioned/u-$b.jpg" --size 1200 >/dev/null 2>&1 && b=$((b + 1))
done
for round in $(seq 1 "$QUEUE_ROUNDS"); do
  rm -rf "$work/queue" && mkdir -p "$work/queue/photos"
  n=0
  for source in "$work"/uncaptioned/*.jpg; do
    for copy in 1 2 3 4 5 6; do cp "$source" "$work/queue/photos/q-$n.jpg"; n=$((n + 1)); done
  done
  db="$work/queue/memora.sqlite"
  "$MEMORA" caption --now --fallback basic --db "$db" "$work/queue/photos" >/dev/null 2>&1 &
  worker=$!
  sleep "0.$(( RANDOM % 60 + 20 ))"
  kill -9 "$worker" 2>/dev/null || true
  wait "$worker" 2>/dev/null || true
  killed_at="$killed_at $("$MEMORA" queue status --json --db "$db" 2>/dev/null | python3 -c "import json,sys; c=json.load(sys.stdin)['counts']; print('%d/%d' % (c['completed'], sum(c.values())))" 2>/dev/null || echo 'before-the-database')"
  "$MEMORA" caption --now --fallback basic --db "$db" "$work/queue/photos" >/dev/null 2>&1 || true
  # Killed `--force` runs re-caption what is done; the same caption must not add a second entry.
  "$MEMORA" caption --now --fallback basic --force --db "$db" "$work/queue/photos" >/dev/null 2>&1 &
  worker=$!
  sleep "0.$(( RANDOM % 60 + 20 ))"
  kill -9 "$worker" 2>/dev/null || true
  wait "$worker" 2>/dev/null || true
  "$MEMORA" caption --now --fallback basic --force --db "$db" "$work/queue/photos" >/dev/null 2>&1 || true
  status=$("$MEMORA" queue status --json --db "$db")
  for state in pending processing failed; do
    count=$(echo "$status" | python3 -c "import json,sys; print(json.load(sys.stdin)['counts']['$state'])")
    if [ "$count" != 0 ]; then echo "queue kill test: $count photos $state after the second run (round $round)" >&2; queue_failures=$((queue_failures + 1)); fi
  done
  for file in "$work"/queue/photos/*.jpg; do
    verdict=$("$MEMORA" history --json --db "$db" "$file" | python3 -c "
import json, sys
report = json.load(sys.stdin)
entries = report['entries']
ok = len(entries) == 1 and entries[0]['caption'] == report['current']
print('ok' if ok else 'bad: %d entries, current %r' % (len(entries), report['current']))")
    if [ "$verdict" != ok ]; then echo "queue kill test: $(basename "$file"): $verdict (round $round)" >&2; queue_failures=$((queue_failures + 1)); fi
  done
done
echo "queue kill test: $QUEUE_ROUNDS rounds over $n photos, killed with these completed:$killed_at; $queue_failures problems"
[ "$queue_failures" -eq 0 ]

# The kill test of `memora vault add --remove-originals`: killed with SIGKILL at random moments,
# then run again to the end. At every moment each photo must be either still in place, byte for
# byte, or in the vault, decrypting to exactly its bytes (the original is removed only after its
# encrypted copy was written, synced, read back and verified). The first photo is captured with
# `--stdin` before each round, as a camera would. After the second run no original may be left:
# the vault holds every one, and a rerun proves each copy and finishes the move.
MOVE_ROUNDS=${MOVE_ROUNDS:-6}
move_failures=0
removed_total=0
kept_total=0
left_total=0
mkdir -p "$work/unique"
n=0
for source in "$work"/originals/*; do
  cp "$source" "$work/unique/photo-$n.${source##*.}"
  printf 'unique %d' "$n" >> "$work/unique/photo-$n.${source##*.}"  # after the image's end: still a photo, its own content
  n=$((n + 1))
done
check_moved() {  # $1: round, $2: when
  local listing
  listing=$("$MEMORA" vault list --vault "$work/vault" --key-file "$work/vault.key" --json 2>/dev/null || echo '[]')
  for original in "$work"/unique/*; do
    local name; name=$(basename "$original")
    if [ -e "$work/move/$name" ]; then
      if cmp -s "$work/move/$name" "$original"; then kept_total=$((kept_total + 1)); continue; fi
      echo "move kill test: $name was changed in place ($2, round $1)" >&2; move_failures=$((move_failures + 1)); continue
    fi
    local id
    id=$(printf '%s' "$listing" | python3 -c "import json,sys; print(next((p['id'] for p in json.load(sys.stdin) if p['filename'] in (sys.argv[1], 'captured-' + sys.argv[1])), ''))" "$name")
    rm -f "$work/exported"
    if [ -n "$id" ] && "$MEMORA" vault export --vault "$work/vault" --key-file "$work/vault.key" "$id" --output "$work/exported" >/dev/null 2>&1 \
       && cmp -s "$work/exported" "$original"; then
      removed_total=$((removed_total + 1))
      continue
    fi
    echo "move kill test: $name is neither in place nor in the vault ($2, round $1)" >&2
    move_failures=$((move_failures + 1))
  done
}
for round in $(seq 1 "$MOVE_ROUNDS"); do
  rm -rf "$work/move" "$work/vault" "$work/vault.key" && cp -r "$work/unique" "$work/move"
  "$MEMORA" vault init --vault "$work/vault" --key-file "$work/vault.key" >/dev/null 2>&1
  first=$(basename "$(ls "$work"/move/* | head -1)")
  "$MEMORA" vault add --vault "$work/vault" --key-file "$work/vault.key" --stdin "captured-$first" < "$work/move/$first" >/dev/null 2>&1
  "$MEMORA" vault add --remove-originals --yes --vault "$work/vault" --key-file "$work/vault.key" "$work"/move/* >/dev/null 2>&1 &
  mover=$!
  sleep "0.$(( RANDOM % 60 ))"
  kill -9 "$mover" 2>/dev/null || true
  wait "$mover" 2>/dev/null || true
  check_moved "$round" "after the kill"
  if compgen -G "$work/move/*" >/dev/null; then
    "$MEMORA" vault add --remove-originals --yes --vault "$work/vault" --key-file "$work/vault.key" "$work"/move/* >/dev/null 2>&1 || true
  fi
  check_moved "$round" "after a second run"
  for left in "$work"/move/*; do
    [ -e "$left" ] || continue
    echo "move kill test: $(basename "$left") is still in place after the second run, though the vault holds it (round $round)" >&2
    left_total=$((left_total + 1)); move_failures=$((move_failures + 1))
  done
done
echo "move kill test: $MOVE_ROUNDS rounds over $n photos (one captured with --stdin first): $removed_total times in the vault only (verified), $kept_total times still in place, $left_total left after a rerun; $move_failures problems"
[ "$move_failures" -eq 0 ]
