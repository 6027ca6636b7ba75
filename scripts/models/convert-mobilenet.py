#!/usr/bin/env python3
"""Converts torchvision's ImageNet MobileNetV2 weights to ONNX, without torch.

    convert-mobilenet.py --weights mobilenet_v2-b0353104.pth --output mobilenet_v2.onnx
        [--torchvision-wheel torchvision-*.whl --labels-output imagenet-labels.txt]

The graph is built by hand with the `onnx` package, the architecture of torchvision's
`mobilenet_v2()` (width 1.0): a 3x3 stride-2 stem, 17 inverted residual blocks, a 1x1 conv to
1280 channels, a global average pool and the 1000-way classifier. Each batch norm is folded into
the convolution before it (in float64, then rounded to float32); ReLU6 is `Clip(0, 6)`.

Input:   `image`    float32 [1, 3, 224, 224], RGB, ImageNet-normalised
                    ((x / 255 - mean) / std, mean 0.485 0.456 0.406, std 0.229 0.224 0.225).
Outputs: `features` float32 [1, 1280], the pooled vector before the classifier;
         `logits`   float32 [1, 1000], in torchvision's class order.

The output is byte-for-byte deterministic (fixed IR version, opset, producer fields and names;
no timestamps), so its SHA-256 can be committed. The labels, when asked for, are read from
torchvision's own list (`torchvision/models/_meta.py`, `_IMAGENET_CATEGORIES`) inside the
torchvision wheel, parsed with `ast` (nothing of the wheel is imported or run).
"""

import argparse
import ast
import os
import sys
import zipfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pth_reader  # noqa: E402

IR_VERSION = 8
OPSET = 17
PRODUCER_NAME = "memora-convert-mobilenet"
PRODUCER_VERSION = "1"
BN_EPSILON = 1e-5

# torchvision's MobileNetV2 settings: expansion t, output channels c, repeats n, first stride s.
INVERTED_RESIDUAL_SETTING = [
    (1, 16, 1, 1),
    (6, 24, 2, 2),
    (6, 32, 3, 2),
    (6, 64, 4, 2),
    (6, 96, 3, 1),
    (6, 160, 3, 2),
    (6, 320, 1, 1),
]


def layer_plan():
    """The convolutions in order, as (state-dict prefix of the conv, of its batch norm, stride,
    groups-are-depthwise, ReLU6 after it), grouped per feature block with its residual flag."""
    blocks = [("features.0", [("features.0.0", "features.0.1", 2, False, True)], False)]
    index = 1
    in_channels = 32
    for t, c, n, s in INVERTED_RESIDUAL_SETTING:
        for i in range(n):
            stride = s if i == 0 else 1
            p = f"features.{index}.conv"
            if t == 1:
                convs = [(f"{p}.0.0", f"{p}.0.1", stride, True, True), (f"{p}.1", f"{p}.2", 1, False, False)]
            else:
                convs = [
                    (f"{p}.0.0", f"{p}.0.1", 1, False, True),
                    (f"{p}.1.0", f"{p}.1.1", stride, True, True),
                    (f"{p}.2", f"{p}.3", 1, False, False),
                ]
            blocks.append((f"features.{index}", convs, stride == 1 and in_channels == c))
            in_channels = c
            index += 1
    blocks.append((f"features.{index}", [(f"features.{index}.0", f"features.{index}.1", 1, False, True)], False))
    return blocks


def fold_batch_norm(weights, state, bn):
    gamma = state[f"{bn}.weight"].astype(np.float64)
    beta = state[f"{bn}.bias"].astype(np.float64)
    mean = state[f"{bn}.running_mean"].astype(np.float64)
    var = state[f"{bn}.running_var"].astype(np.float64)
    scale = gamma / np.sqrt(var + BN_EPSILON)
    folded_w = (weights.astype(np.float64) * scale[:, None, None, None]).astype(np.float32)
    folded_b = (beta - mean * scale).astype(np.float32)
    return folded_w, folded_b


def build_model(state):
    nodes = []
    initializers = []
    used = set()

    def initializer(name, array):
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))

    initializer("relu6_min", np.array(0.0, dtype=np.float32))
    initializer("relu6_max", np.array(6.0, dtype=np.float32))

    x = "image"
    for block_name, convs, residual in layer_plan():
        block_input = x
        for conv, bn, stride, depthwise, relu6 in convs:
            w = state[f"{conv}.weight"]
            used.update({f"{conv}.weight", f"{bn}.weight", f"{bn}.bias", f"{bn}.running_mean",
                         f"{bn}.running_var", f"{bn}.num_batches_tracked"})
            out_channels, in_per_group, kh, kw = w.shape
            groups = out_channels if depthwise else 1
            if depthwise and in_per_group != 1:
                raise ValueError(f"{conv}: a depthwise weight of shape {w.shape}")
            folded_w, folded_b = fold_batch_norm(w, state, bn)
            initializer(f"{conv}.weight", folded_w)
            initializer(f"{conv}.bias", folded_b)
            pad = kh // 2
            y = f"{conv}.out"
            nodes.append(helper.make_node(
                "Conv", [x, f"{conv}.weight", f"{conv}.bias"], [y], name=f"{conv}.conv",
                kernel_shape=[kh, kw], strides=[stride, stride], pads=[pad, pad, pad, pad],
                dilations=[1, 1], group=groups))
            x = y
            if relu6:
                y = f"{conv}.relu6"
                nodes.append(helper.make_node("Clip", [x, "relu6_min", "relu6_max"], [y], name=f"{conv}.clip"))
                x = y
        if residual:
            y = f"{block_name}.add"
            nodes.append(helper.make_node("Add", [block_input, x], [y], name=f"{block_name}.add"))
            x = y
        # A readable name for each block's output (the checker compares some of them).
        nodes.append(helper.make_node("Identity", [x], [f"{block_name}.output"], name=f"{block_name}.output"))
        x = f"{block_name}.output"

    nodes.append(helper.make_node("GlobalAveragePool", [x], ["pooled"], name="avgpool"))
    nodes.append(helper.make_node("Flatten", ["pooled"], ["features"], name="flatten", axis=1))
    classifier_w = state["classifier.1.weight"]
    classifier_b = state["classifier.1.bias"]
    used.update({"classifier.1.weight", "classifier.1.bias"})
    initializer("classifier.weight", classifier_w)
    initializer("classifier.bias", classifier_b)
    nodes.append(helper.make_node(
        "Gemm", ["features", "classifier.weight", "classifier.bias"], ["logits"], name="classifier", transB=1))

    unused = sorted(set(state) - used)
    if unused:
        raise ValueError(f"weights left unused (not a torchvision MobileNetV2?): {unused[:5]}")
    if classifier_w.shape != (1000, 1280):
        raise ValueError(f"unexpected classifier shape {classifier_w.shape}")

    graph = helper.make_graph(
        nodes, "mobilenet_v2",
        inputs=[helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 224, 224])],
        outputs=[
            helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, 1280]),
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000]),
        ],
        initializer=initializers,
        doc_string="torchvision MobileNetV2 (ImageNet, mobilenet_v2-b0353104.pth), batch norms folded.",
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        ir_version=IR_VERSION,
        producer_name=PRODUCER_NAME,
        producer_version=PRODUCER_VERSION,
        model_version=1,
        doc_string="Input `image` float32 [1,3,224,224] RGB, (x/255 - mean)/std with mean 0.485,0.456,0.406 "
                   "and std 0.229,0.224,0.225. Outputs `features` [1,1280] (pooled, before the classifier) "
                   "and `logits` [1,1000] (torchvision's ImageNet class order).",
    )
    helper.set_model_props(model, {
        "source": "torchvision mobilenet_v2-b0353104.pth (BSD-3-Clause)",
        "mean": "0.485,0.456,0.406",
        "std": "0.229,0.224,0.225",
    })
    onnx.checker.check_model(model, full_check=True)
    return model


def read_torchvision_labels(wheel):
    with zipfile.ZipFile(wheel) as archive:
        source = archive.read("torchvision/models/_meta.py").decode("utf-8")
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "_IMAGENET_CATEGORIES" for t in node.targets):
            labels = ast.literal_eval(node.value)
            break
    else:
        raise ValueError(f"{wheel}: no _IMAGENET_CATEGORIES in torchvision/models/_meta.py")
    if len(labels) != 1000 or len(set(labels)) != 1000 or not all(isinstance(x, str) and x and "\n" not in x for x in labels):
        raise ValueError(f"{wheel}: _IMAGENET_CATEGORIES is not 1000 distinct one-line labels")
    return labels


def write_atomically(path, data):
    temporary = f"{path}.partial"
    with open(temporary, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", required=True, help="mobilenet_v2-b0353104.pth")
    parser.add_argument("--output", required=True, help="the .onnx file to write")
    parser.add_argument("--torchvision-wheel", help="a torchvision wheel to read the ImageNet labels from")
    parser.add_argument("--labels-output", help="the labels file to write (1000 lines)")
    args = parser.parse_args()
    if bool(args.torchvision_wheel) != bool(args.labels_output):
        parser.error("--torchvision-wheel and --labels-output go together")

    state = pth_reader.load_state_dict(args.weights)
    model = build_model(state)
    write_atomically(args.output, model.SerializeToString())
    if args.labels_output:
        labels = read_torchvision_labels(args.torchvision_wheel)
        write_atomically(args.labels_output, ("\n".join(labels) + "\n").encode("utf-8"))


if __name__ == "__main__":
    main()
