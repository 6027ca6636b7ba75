#!/usr/bin/env python3
"""The peer for memora-bench's DBSCAN scenario: scikit-learn's DBSCAN(metric="cosine").

Usage: bench-dbscan.py DATA.npy EPS MIN_SAMPLES LABELS_OUT

Loads the half-float matrix DATA.npy and converts it to float32 once, outside the timing
(float32 is scikit-learn's fastest input: float16 would be converted inside fit, float64
doubles the work). Runs one untimed fit on the first 2,000 rows (imports, thread pools),
then times DBSCAN(eps, min_samples, metric="cosine").fit on the whole matrix, writes the
labels to LABELS_OUT as little-endian int32, and prints the seconds of the fit. n_jobs is
left at its default: the distances are one BLAS matrix product per chunk, which OpenBLAS
already spreads over every core (n_jobs=-1 measured no faster here).
"""
import sys
import time

import numpy as np
from sklearn.cluster import DBSCAN


def main():
    path, eps, min_samples, labels_path = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    data = np.load(path).astype(np.float32)
    DBSCAN(eps=eps, min_samples=min_samples, metric="cosine").fit(data[:2000])  # warm-up
    start = time.perf_counter()
    labels = DBSCAN(eps=eps, min_samples=min_samples, metric="cosine").fit(data).labels_
    seconds = time.perf_counter() - start
    labels.astype("<i4").tofile(labels_path)
    print(f"{seconds:.6f}")


if __name__ == "__main__":
    main()
