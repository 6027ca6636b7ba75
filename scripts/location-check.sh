#!/usr/bin/env bash
# Counts the location fields exiftool still shows with a value in each file given (its Location and
# GPS groups, the GPS date and time, GIMP's top-level XMP City and CountryName, Ricoh's RMETA
# Location; GPSVersionID aside, which says nothing about a place). Prints each file that holds any,
# then the totals. Used to measure `memora metadata strip-location` (Docs/Metadata.md).
#
#   scripts/location-check.sh PHOTO...
set -euo pipefail
command -v exiftool >/dev/null || { echo "exiftool is needed (Debian: libimage-exiftool-perl)" >&2; exit 2; }
files=0
fields=0
for file in "$@"; do
  count=$(exiftool -q -q -a -u -e -s -G0:1 -n -Location:all -GPS:GPSDateStamp -GPS:GPSTimeStamp -XMP-exif:GPSDateTime \
            -XMP-iptcExt:City -XMP-iptcExt:CountryName -RMETA:Location "$file" 2>/dev/null \
          | grep -v -e ': *$' -e 'GPSVersionID' | wc -l || true)
  if [ "$count" -gt 0 ]; then
    files=$((files + 1))
    fields=$((fields + count))
    echo "$count  $file"
  fi
done
echo "files with location: $files, fields: $fields"
