#!/usr/bin/env python3
"""Face detection recall and precision of `memora image look` on photos with ground-truth boxes.

  scripts/vision/measure-faces.py FOLDER [--memora PATH] [--iou 0.4]

FOLDER holds the photos and dlib imglab XML files (`<image file=...><box top left width height/>`),
for example ../shared/vision-samples/faces (not part of the project). A detected face counts as
found when its box overlaps a true box with intersection over union >= --iou; each true box is
matched once. Photos without boxes in the XML files are reported separately (their detections
count as false only for a photo the XML lists with no box).
"""
import argparse, glob, json, os, subprocess, sys, time
import xml.etree.ElementTree as ET

def iou(a, b):
    ax, ay, aw, ah = a; bx, by, bw, bh = b
    w = max(0.0, min(ax + aw, bx + bw) - max(ax, bx)); h = max(0.0, min(ay + ah, by + bh) - max(ay, by))
    inter = w * h
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--memora", default=".build/debug/memora")
    parser.add_argument("--iou", type=float, default=0.4)
    args = parser.parse_args()
    truth = {}
    for path in glob.glob(os.path.join(args.folder, "*.xml")):
        for image in ET.parse(path).getroot().iter("image"):
            w, h = float(image.get("width")), float(image.get("height"))
            truth[image.get("file")] = [(float(b.get("left")) / w, float(b.get("top")) / h, float(b.get("width")) / w, float(b.get("height")) / h)
                                        for b in image.iter("box")]
    files = sorted(truth)
    started = time.time()
    out = subprocess.run([args.memora, "image", "look", "--json"] + [os.path.join(args.folder, f) for f in files],
                         capture_output=True, text=True, check=True)
    seconds = time.time() - started
    sights = {os.path.basename(s["path"]): s for s in json.loads(out.stdout)}
    found = detected = correct = 0
    total = sum(len(b) for b in truth.values())
    for name in files:
        boxes = truth[name]
        faces = [(f["x"], f["y"], f["width"], f["height"]) for f in sights[name]["faces"] if f.get("confidence") is not None]
        used = set()
        hits = 0
        for face in faces:
            best = max(((iou(face, box), i) for i, box in enumerate(boxes) if i not in used), default=(0, None))
            if best[1] is not None and best[0] >= args.iou:
                used.add(best[1]); hits += 1
        found += hits; detected += len(faces); correct += hits
        print(f"{name}: {hits}/{len(boxes)} found, {len(faces) - hits} false")
    print(f"recall {found}/{total} = {found / total:.3f}; precision {correct}/{detected} = {correct / max(detected, 1):.3f} "
          f"(IoU >= {args.iou}; {len(files)} photos in {seconds:.1f} s, models loaded once)")

if __name__ == "__main__":
    sys.exit(main())
