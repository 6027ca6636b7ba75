#!/usr/bin/env python3
"""The peer for memora-bench's collage scenario: the same 2x3 collage with Pillow.

Usage: collage_peer.py OUTPUT FILE...   (six files)
Each photo is opened with draft() (libjpeg's DCT scaling, the largest scale still at
least the cell), centre-cropped to the 6:5 cell, resized with Lanczos and pasted into a
1200x1500 white canvas with 6-pixel spacing; the canvas is saved as a JPEG at quality 90.
Prints the seconds spent, interpreter start-up and imports excluded.
"""
import sys
import time

from PIL import Image

WIDTH, HEIGHT, SPACING, COLUMNS, ROWS = 1200, 1500, 6, 2, 3


def cells():
    cell_w = (WIDTH - SPACING * (COLUMNS - 1)) // COLUMNS
    cell_h = (HEIGHT - SPACING * (ROWS - 1)) // ROWS
    for row in range(ROWS):
        for column in range(COLUMNS):
            yield column * (cell_w + SPACING), row * (cell_h + SPACING), cell_w, cell_h


def collage(output, files):
    canvas = Image.new("RGB", (WIDTH, HEIGHT), "white")
    for path, (x, y, w, h) in zip(files, cells()):
        with Image.open(path) as image:
            image.draft("RGB", (w, h))
            image = image.convert("RGB")
            source_w, source_h = image.size
            aspect = w / h
            if source_w / source_h > aspect:
                crop_w, crop_h = round(source_h * aspect), source_h
            else:
                crop_w, crop_h = source_w, round(source_w / aspect)
            left, top = (source_w - crop_w) // 2, (source_h - crop_h) // 2
            tile = image.crop((left, top, left + crop_w, top + crop_h)).resize((w, h), Image.Resampling.LANCZOS)
            canvas.paste(tile, (x, y))
    canvas.save(output, "JPEG", quality=90)


def main():
    output, files = sys.argv[1], sys.argv[2:]
    collage(output, files)  # warm-up
    start = time.perf_counter()
    collage(output, files)
    print(f"{time.perf_counter() - start:.6f}")


if __name__ == "__main__":
    main()
