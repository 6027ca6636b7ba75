#!/usr/bin/env python3
"""Mutation run of `memora metadata write`: nothing lost, and no success another reader cannot see.

Makes small photos of every format MetadataKit writes (JPEG, PNG, TIFF, WebP) with Pillow,
gives some of them the metadata cameras and editors write (exiftool: EXIF and XMP captions,
IPTC, GPS, keywords, two XMP packets), mutates them (bytes flipped where the metadata is,
truncations, inserted bytes, segments duplicated or dropped), and writes a caption into every
mutant with one `memora metadata write` per batch. Then, for each file:

- refused: the file must be byte for byte what it was;
- written: exiftool must read the file without an error and every caption it finds (EXIF
  ImageDescription, XMP dc:description, IPTC Caption-Abstract, every copy of each) must be the
  new caption, and there must be at least one.

    python3 scripts/mutation-run.py [--count 3000] [--seed 1] [--memora .build/debug/memora]

Exits 1 when any file breaks a rule, naming it. Needs Pillow (`pip install Pillow`) and exiftool.
"""

import argparse
import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

from PIL import Image

CAPTION = "Mutation run: the caption every reader must see"
ALT_TEXT = "A test photo."
CAPTION_TAGS = ("ImageDescription", "Description", "Caption-Abstract")


def base_images(folder):
    """Small real photos of each format, plain and with the metadata other programs write."""
    rng = random.Random(7)
    paths = []
    for index, (fmt, ext) in enumerate([("JPEG", "jpg"), ("PNG", "png"), ("TIFF", "tif"), ("WEBP", "webp")]):
        image = Image.new("RGB", (96, 64), (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
        for x in range(0, 96, 8):
            for y in range(0, 64, 8):
                image.putpixel((x, y), (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
        plain = os.path.join(folder, f"base-{index}-plain.{ext}")
        image.save(plain, fmt)
        paths.append(plain)
        tagged = os.path.join(folder, f"base-{index}-tagged.{ext}")
        shutil.copy(plain, tagged)
        arguments = ["-XMP-dc:Description=Old caption", "-XMP:City=Lyon", "-XMP:GPSLatitude=45.76", "-XMP:GPSLongitude=4.84",
                     "-XMP-dc:Subject=holiday", "-XMP-dc:Subject=family"]
        if fmt in ("JPEG", "TIFF", "WEBP", "PNG"):
            arguments += ["-EXIF:ImageDescription=Old caption", "-EXIF:Make=Camera", "-EXIF:GPSLatitude=45.76", "-EXIF:GPSLatitudeRef=N"]
        if fmt in ("JPEG", "TIFF"):
            arguments += ["-IPTC:Caption-Abstract=Old caption", "-IPTC:Keywords=holiday"]
        subprocess.run(["exiftool", "-q", "-q", "-overwrite_original", *arguments, tagged], check=False)
        paths.append(tagged)
    return paths


def jpeg_segments(data):
    """(start, end) of each marker segment before the image data of a JPEG, or [] when it is not one."""
    if data[:2] != b"\xff\xd8":
        return []
    segments, offset = [], 2
    while offset + 4 <= len(data) and data[offset] == 0xFF:
        marker = data[offset + 1]
        if marker == 0xDA:
            break
        length = int.from_bytes(data[offset + 2:offset + 4], "big")
        segments.append((offset, offset + 2 + length))
        offset += 2 + length
    return segments


def mutate(data, rng):
    """One mutation of `data`, mostly where the metadata lives (its first few kilobytes)."""
    data = bytearray(data)
    head = min(len(data), 4096)
    kind = rng.randrange(7)
    if kind <= 2:  # a few bytes flipped
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(head)] ^= 1 << rng.randrange(8)
    elif kind == 3:  # cut off
        del data[rng.randrange(len(data) // 4, len(data)):]
    elif kind == 4:  # bytes inserted
        at = rng.randrange(head)
        data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
    elif kind == 5:  # a length or offset field overwritten with an extreme value
        at = rng.randrange(max(1, head - 4))
        data[at:at + 4] = rng.choice([b"\xff\xff\xff\xff", b"\x00\x00\x00\x00", b"\x7f\xff\xff\xff", b"\x00\x00\xff\xff"])
    else:  # a JPEG segment duplicated or dropped (other formats: a block repeated)
        segments = jpeg_segments(bytes(data))
        if segments:
            start, end = rng.choice(segments)
            if rng.random() < 0.5:
                data[end:end] = data[start:end]
            else:
                del data[start:end]
        else:
            start = rng.randrange(head)
            data[start:start] = data[start:start + rng.randint(4, 256)]
    return bytes(data)


def captions_seen(files):
    """exiftool's view of each file: (error or None, [every caption value it reports])."""
    result = {}
    for batch in range(0, len(files), 400):
        chunk = files[batch:batch + 400]
        run = subprocess.run(["exiftool", "-j", "-a", "-G1:4", "-m", *(f"-{tag}" for tag in CAPTION_TAGS), *chunk],
                             capture_output=True, text=True, check=False)
        try:
            entries = json.loads(run.stdout) if run.stdout.strip() else []
        except json.JSONDecodeError:
            entries = []
        for entry in entries:
            values = [str(value) for key, value in entry.items() if key.split(":")[-1] in CAPTION_TAGS]
            result[entry["SourceFile"]] = (entry.get("Error"), values)
    for path in files:
        result.setdefault(path, ("exiftool gave no answer", []))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--memora", default=".build/debug/memora")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    options = parser.parse_args()
    memora = os.path.abspath(options.memora)
    work = tempfile.mkdtemp(prefix="memora-mutation-")
    rng = random.Random(options.seed)
    bases = base_images(work)
    mutants = os.path.join(work, "mutants")
    os.makedirs(mutants)
    digests = {}
    for index in range(options.count):
        base = bases[index % len(bases)]
        with open(base, "rb") as handle:
            data = mutate(handle.read(), rng)
        path = os.path.join(mutants, f"m{index:05d}{os.path.splitext(base)[1]}")
        with open(path, "wb") as handle:
            handle.write(data)
        digests[path] = hashlib.sha256(data).hexdigest()

    environment = dict(os.environ, XDG_DATA_HOME=os.path.join(work, "data"), XDG_STATE_HOME=os.path.join(work, "state"),
                       XDG_CONFIG_HOME=os.path.join(work, "config"))
    files = sorted(digests)
    written = set()
    for batch in range(0, len(files), 500):
        run = subprocess.run([memora, "metadata", "write", "--caption", CAPTION, "--alt-text", ALT_TEXT, *files[batch:batch + 500]],
                             capture_output=True, text=True, env=environment, check=False)
        written.update(line.strip() for line in run.stdout.splitlines() if line.strip() in digests)

    problems = []
    for path in files:
        if path in written:
            continue
        with open(path, "rb") as handle:
            if hashlib.sha256(handle.read()).hexdigest() != digests[path]:
                problems.append(f"{path}: refused, but the file changed")
    seen = captions_seen(sorted(written))
    for path in sorted(written):
        error, values = seen[path]
        if error:
            problems.append(f"{path}: written, but exiftool reports: {error}")
        elif not values:
            problems.append(f"{path}: written, but exiftool finds no caption")
        elif any(value != CAPTION for value in values):
            problems.append(f"{path}: written, but exiftool also sees {sorted(set(values) - {CAPTION})}")

    by_format = {}
    for path in files:
        ext = os.path.splitext(path)[1]
        done, total = by_format.get(ext, (0, 0))
        by_format[ext] = (done + (path in written), total + 1)
    summary = ", ".join(f"{ext[1:]} {done}/{total} written" for ext, (done, total) in sorted(by_format.items()))
    print(f"mutation run: {len(files)} mutants, {len(written)} written and checked with exiftool, "
          f"{len(files) - len(written)} refused and checked byte for byte ({summary}); {len(problems)} problems")
    for problem in problems[:50]:
        print("  " + problem)
    if options.keep:
        print(f"work folder: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
