#!/usr/bin/env python3
"""Same-person and different-person distances of the faces in a photo index, for choosing the
people clustering's distance (Docs/Vision.md, "Choosing the distance").

Index labelled photos first, one folder per person (LABELLED/<person>/<photo>), one face each:

    memora index build LABELLED --db /tmp/faces.sqlite
    scripts/vision/face-distances.py /tmp/faces.sqlite

Prints the spread of the two kinds of distance and, for each candidate threshold, the share of
same-person pairs within it and how many different-person pairs are within it too. Needs numpy.
"""
import itertools
import os
import sqlite3
import sys

import numpy as np


def main():
    database = sqlite3.connect(sys.argv[1])
    rows = database.execute(
        "SELECT p.path, f.embedding FROM faces f JOIN photos p ON p.id = f.photo_id WHERE f.embedding IS NOT NULL").fetchall()
    # Embeddings are stored as little-endian half floats (PhotoIndex's HalfFloat).
    faces = [(os.path.basename(os.path.dirname(path)), np.frombuffer(blob, dtype="<f2").astype(np.float32)) for path, blob in rows]
    same, different = [], []
    for (a, first), (b, second) in itertools.combinations(faces, 2):
        (same if a == b else different).append(float(np.linalg.norm(first - second)))
    same, different = np.array(same), np.array(different)
    print(f"{len(faces)} faces of {len({person for person, _ in faces})} people: "
          f"{len(same)} same-person pairs, {len(different)} different-person pairs")
    for name, values in (("same", same), ("different", different)):
        print(f"{name:9s} min {values.min():.3f}  5% {np.percentile(values, 5):.3f}  median {np.median(values):.3f}  "
              f"95% {np.percentile(values, 95):.3f}  max {values.max():.3f}")
    print("threshold  same-person within  different-person within")
    for threshold in (0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70):
        print(f"  {threshold:.2f}     {np.mean(same <= threshold) * 100:5.1f}%             {int(np.sum(different <= threshold))}")


if __name__ == "__main__":
    main()
