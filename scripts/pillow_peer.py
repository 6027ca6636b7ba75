#!/usr/bin/env python3
"""The peer for memora-bench's thumbnail scenario: Pillow's draft() + resize().

Usage: pillow_peer.py SIZE FILE...
Prints one line: the total seconds spent making a SIZE-pixel (long side)
thumbnail of every FILE, file reading included, interpreter start-up excluded.
"""
import sys
import time

from PIL import Image


def thumbnail(path, size):
    with Image.open(path) as image:
        width, height = image.size
        scale = size / max(width, height)
        target = (max(1, round(width * scale)), max(1, round(height * scale)))
        # draft() lets libjpeg decode at the largest DCT scale still >= target.
        image.draft("RGB", target)
        return image.convert("RGB").resize(target, Image.Resampling.LANCZOS)


def main():
    size = int(sys.argv[1])
    files = sys.argv[2:]
    thumbnail(files[0], size)  # warm-up: imports, plugin registration
    start = time.perf_counter()
    for path in files:
        thumbnail(path, size)
    print(f"{time.perf_counter() - start:.6f}")


if __name__ == "__main__":
    main()
