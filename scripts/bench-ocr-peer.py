#!/usr/bin/env python3
"""The peer for memora-bench's OCR scenario: RapidOCR 3.10.0's own Python pipeline (PyPI's
rapidocr, the same PP-OCRv6 small models Memora installs) on the same decoded pixels.

Usage: bench-ocr-peer.py ROUNDS IMAGE.rgb WIDTH HEIGHT [IMAGE.rgb WIDTH HEIGHT ...]

Each IMAGE.rgb holds the raw 8-bit RGB pixels memora-bench decoded (decoding is measured on
neither side); RapidOCR takes BGR arrays, so the channels are swapped before timing. Runs the
pipeline once untimed (warm-up), then ROUNDS times over every image, and prints the best round's
total seconds, then one line per image: the texts it read, as a JSON list.
"""
import json
import sys
import time

import numpy as np
from rapidocr import RapidOCR


def main():
    rounds = int(sys.argv[1])
    rest = sys.argv[2:]
    images = []
    for index in range(0, len(rest), 3):
        path, width, height = rest[index], int(rest[index + 1]), int(rest[index + 2])
        rgb = np.fromfile(path, dtype=np.uint8).reshape(height, width, 3)
        images.append(np.ascontiguousarray(rgb[:, :, ::-1]))
    engine = RapidOCR()
    engine(images[0])  # warm-up: sessions allocate on the first run
    best = None
    texts = []
    for _ in range(max(1, rounds)):
        start = time.perf_counter()
        results = [engine(image) for image in images]
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
        texts = [list(result.txts or ()) for result in results]
    print(best)
    for found in texts:
        print(json.dumps(found, ensure_ascii=False))


if __name__ == "__main__":
    main()
