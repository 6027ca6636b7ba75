#!/usr/bin/env python3
"""The peer for memora-bench's face scenario: dlib's Python binding running the same pipeline as
DlibFaceAnalyzer (what the `face_recognition` package does): the HOG frontal face detector, the
5-point shape predictor and the ResNet face descriptor, on the same decoded pixels.

Usage: bench-dlib-peer.py MODELS_FOLDER UPSAMPLE IMAGE.rgb WIDTH HEIGHT [IMAGE.rgb WIDTH HEIGHT ...]

Each IMAGE.rgb holds the raw 8-bit RGB pixels memora-bench decoded (so that decoding is not
measured on either side). Loads the models once, runs the pipeline once untimed (warm-up), then
times every image once and prints the total seconds, then one line per image with its face count.
dlib is not in Debian 12 and has no wheel for Linux: `pip install dlib==19.24.2` builds it from
source (cmake and a C++ compiler; several minutes on two cores).
"""
import sys
import time

import dlib
import numpy as np


def main():
    folder, upsample = sys.argv[1], int(sys.argv[2])
    rest = sys.argv[3:]
    images = []
    for index in range(0, len(rest), 3):
        path, width, height = rest[index], int(rest[index + 1]), int(rest[index + 2])
        images.append(np.fromfile(path, dtype=np.uint8).reshape(height, width, 3))
    detector = dlib.get_frontal_face_detector()
    predictor = dlib.shape_predictor(folder + "/dlib/shape_predictor_5_face_landmarks.dat")
    encoder = dlib.face_recognition_model_v1(folder + "/dlib/dlib_face_recognition_resnet_model_v1.dat")

    def faces(image):
        boxes = detector(image, upsample)
        shapes = dlib.full_object_detections()
        for box in boxes:
            shapes.append(predictor(image, box))
        descriptors = encoder.compute_face_descriptor(image, shapes) if len(shapes) else []
        return len(descriptors)

    faces(images[0])  # warm-up: the first call allocates the network's buffers
    start = time.perf_counter()
    counts = [faces(image) for image in images]
    seconds = time.perf_counter() - start
    print(f"{seconds:.6f}")
    for count in counts:
        print(count)


if __name__ == "__main__":
    sys.exit(main())
