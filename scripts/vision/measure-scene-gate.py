#!/usr/bin/env python3
"""How confident must the scene model be before a description names a photo's main subject?

  scripts/vision/measure-scene-gate.py --scenes DIR --captions DIR [--models DIR] [--per-photo]

Runs the scene model (`scene/mobilenet_v2.onnx` in the models folder, installed by
scripts/install-models.sh) on labelled photos, turns the logits into softmax probabilities, sums
them over the classes that share a plain noun (SceneNouns.table, read from the generated
Sources/PhotoVisionCore/Scenes/SceneNouns+Table.swift; classes with no noun are left out) and takes
the top noun with its summed probability. For thresholds 0.10 to 0.90 it prints
  precision: of the photos whose top probability reaches the threshold, how many get a right noun;
  coverage:  the share of all photos that get a noun at all,
for the summed nouns and, for comparison, for the top single class (its own probability, named
by its noun).

Photos and truth (not part of the project, e.g. ../shared):
  --scenes DIR    vision-samples/scenes: THEMES.tsv gives each photo's ImageNet class; a noun is
                  right when it is that class's noun or one listed in SYNONYMS below.
  --captions DIR  caption-samples: FACTS.tsv gives subject_words; a noun is right when it contains
                  one of them as whole words (the README's rule), or as judged in JUDGED below.
  --people DIR    optional, vision-samples/faces: photos of people at parties, dinners, portraits,
                  whose subject is the people (named by the face detector, not by this model): any
                  noun named there is wrong, except those in PEOPLE_RIGHT (dogs.jpg shows dogs).

Preprocessing as Docs/Models.md says (torchvision's evaluation transform): EXIF orientation
applied, RGB, shorter side to 256 (bilinear), centre crop 224, x / 255, mean/std normalised.
Needs numpy, Pillow and onnxruntime (a private venv, e.g. ~/.cache/memora/wn-venv).
"""
import argparse, os, re, sys, unicodedata

import numpy as np
from PIL import Image, ImageOps
import onnxruntime as ort

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = os.path.join(ROOT, "Sources/PhotoVisionCore/Scenes/SceneNouns+Table.swift")
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)

# vision-samples: nouns also right for a photo besides its class's own noun (judged by looking at
# the photos' subjects: a schooner is a sailing boat and a boat, a dam photo shows a lake, ...).
SYNONYMS = {
    "beach_sea-sandbar.jpg": {"shore", "sea"},
    "beach_sea-breakwater.jpg": {"pier"},
    "beach_sea-pier.jpg": {"breakwater", "dock"},
    "beach_sea-schooner.jpg": {"boat", "pirate ship"},
    "beach_sea-yawl.jpg": {"boat", "catamaran"},
    "beach_sea-paddle.jpg": {"canoe"},
    "mountains-mountain_tent.jpg": {"tent"},
    "mountains-ibex.jpg": {"goat"},
    "food-hot_pot.jpg": {"soup"},
    "food-potpie.jpg": {"pie"},
    "food-French_loaf.jpg": {"baguette"},
    "buildings-monastery.jpg": {"church", "palace"},  # El Escorial: a monastery and a royal palace
    "buildings-bell_cote.jpg": {"church"},
    "buildings-stupa.jpg": {"temple"},
    "snow-snowplow.jpg": {"truck"},
    "snow-dogsled.jpg": {"dog"},
    "cars-pickup.jpg": {"car"},
    "cars-racer.jpg": {"go-kart"},
}
PEOPLE_RIGHT = {"dogs.jpg": {"dog"}}
# caption-samples: (file, noun) pairs judged right or wrong where the words differ.
JUDGED = {
    ("22-fluffy-bunny.jpg", "hare"): True,         # a grey rabbit; "hare" is close enough
    ("25-sea-lion-beach.jpg", "seal"): True,
    ("09-stoneware-jug.jpg", "bottle"): False,
    ("16-eraser-sheet-music.jpg", "rubber"): True,
    ("06-truck-school-cab.jpg", "fire engine"): False,
    ("10-rolodex-organiser.jpg", "calculator"): False,
}


def norm(s):
    s = "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c)).lower()
    return " ".join(re.sub(r"[\W_]+", " ", s).split())


def read_table(path):
    text = open(path, encoding="utf-8").read()
    body = re.search(r"static let table: \[String\] = \[(.*?)\n    \]", text, re.S).group(1)
    nouns = [json_unescape(m) for m in re.findall(r'"((?:[^"\\]|\\.)*)"', body)]
    if len(nouns) != 1000:
        sys.exit(f"measure-scene-gate: {path} has {len(nouns)} nouns, not 1000")
    return nouns


def json_unescape(s):
    return s.replace('\\"', '"').replace("\\\\", "\\")


def tensor(path):
    image = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
    w, h = image.size
    scale = 256 / min(w, h)
    image = image.resize((max(256, round(w * scale)), max(256, round(h * scale))), Image.BILINEAR)
    w, h = image.size
    left, top = (w - 224) // 2, (h - 224) // 2
    image = image.crop((left, top, left + 224, top + 224))
    x = (np.asarray(image, dtype=np.float32) / 255 - MEAN) / STD
    return x.transpose(2, 0, 1)[None].astype(np.float32)


def softmax(logits):
    e = np.exp(logits - logits.max())
    return e / e.sum()


def read_tsv(path):
    rows = [l.rstrip("\n").split("\t") for l in open(path, encoding="utf-8") if l.strip() and not l.startswith("#")]
    return rows


def main():
    parser = argparse.ArgumentParser()
    models = os.environ.get("MEMORA_MODELS") or os.path.join(os.environ.get("XDG_DATA_HOME", os.path.expanduser("~/.local/share")), "memora", "models")
    parser.add_argument("--models", default=models)
    parser.add_argument("--scenes", required=True)
    parser.add_argument("--captions", required=True)
    parser.add_argument("--people")
    parser.add_argument("--table", default=TABLE)
    parser.add_argument("--per-photo", action="store_true")
    args = parser.parse_args()

    nouns = read_table(args.table)
    labels = open(os.path.join(args.models, "scene", "imagenet-labels.txt"), encoding="utf-8").read().splitlines()
    options = ort.SessionOptions(); options.intra_op_num_threads = 1
    session = ort.InferenceSession(os.path.join(args.models, "scene", "mobilenet_v2.onnx"), options, providers=["CPUExecutionProvider"])

    photos = []  # (set, file, truth description, is_right(noun) function)
    for file, theme, cls in read_tsv(os.path.join(args.scenes, "THEMES.tsv")):
        index = labels.index(cls.replace("_", " "))
        right = {nouns[index]} | SYNONYMS.get(file, set())
        photos.append(("scenes", os.path.join(args.scenes, file), f"{cls} -> {nouns[index]}", lambda n, r=right: n in r))
    facts = read_tsv(os.path.join(args.captions, "FACTS.tsv"))
    for file, subject, words, *_ in facts[1:]:
        def right(n, f=file, w=words):
            if (f, n) in JUDGED:
                return JUDGED[(f, n)]
            return any(f" {norm(x)} " in f" {norm(n)} " for x in w.split("|"))
        photos.append(("captions", os.path.join(args.captions, file), subject, right))

    if args.people:
        for file in sorted(os.listdir(args.people)):
            if file.lower().endswith((".jpg", ".jpeg", ".png")):
                right = PEOPLE_RIGHT.get(file, set())
                photos.append(("people", os.path.join(args.people, file), "/".join(sorted(right)) or "(people: name nothing)",
                               lambda n, r=right: n in r))

    results = []
    names = sorted({n for n in nouns if n})
    member = np.zeros((len(names), 1000), dtype=np.float32)
    for i, n in enumerate(nouns):
        if n:
            member[names.index(n), i] = 1
    for kind, path, truth, right in photos:
        logits = session.run(["logits"], {"image": tensor(path)})[0][0]
        p = softmax(logits.astype(np.float64))
        summed = member @ p
        best = int(summed.argmax())
        top_class = int(p.argmax())
        results.append(dict(kind=kind, file=os.path.basename(path), truth=truth,
                            noun=names[best], prob=float(summed[best]), ok=right(names[best]),
                            cls=labels[top_class], cls_noun=nouns[top_class], cls_prob=float(p[top_class]),
                            cls_ok=bool(nouns[top_class]) and right(nouns[top_class])))

    if args.per_photo:
        for r in results:
            print(f"{r['file']:38} {r['noun']:>18} {r['prob']:.2f} {'right' if r['ok'] else 'WRONG':5} | "
                  f"top class {r['cls']} ({r['cls_noun'] or '-'}) {r['cls_prob']:.2f} {'right' if r['cls_ok'] else 'WRONG'} | {r['truth']}")
        print()

    def table(title, subset):
        print(f"{title} ({len(subset)} photos)")
        print("threshold | summed noun: precision  coverage | top class: precision  coverage")
        for t in [x / 100 for x in range(10, 95, 5)]:
            named = [r for r in subset if r["prob"] >= t]
            named_c = [r for r in subset if r["cls_prob"] >= t and r["cls_noun"]]
            def pc(rows, key):
                ok = sum(r[key] for r in rows)
                return f"{ok:2}/{len(rows):2} {ok / len(rows):4.0%}" if rows else "  -/ 0   -"
            print(f"   {t:.2f}   |  {pc(named, 'ok'):>13}  {len(named) / len(subset):5.0%}    |  "
                  f"{pc(named_c, 'cls_ok'):>13}  {len(named_c) / len(subset):5.0%}")
        print()

    table("all", results)
    table("vision-samples/scenes", [r for r in results if r["kind"] == "scenes"])
    table("caption-samples", [r for r in results if r["kind"] == "captions"])
    if args.people:
        table("people photos (vision-samples/faces)", [r for r in results if r["kind"] == "people"])


if __name__ == "__main__":
    main()
