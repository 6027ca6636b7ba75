#!/usr/bin/env python3
"""Writes the licence note of the OCR models (ocr/LICENSE) from the rapidocr wheel's licence files.

    ocr-license.py WHEEL LICENSE MODEL_LICENSES OUTPUT

WHEEL is PyPI's rapidocr 3.10.0 wheel; LICENSE and MODEL_LICENSES are its
dist-info/licenses/LICENSE (Apache-2.0) and MODEL_LICENSES.md (the models' provenance,
attribution and SHA-256), already unpacked by extract.py. The note names the installed files and
where they come from, then quotes both licence files verbatim. The wheel's METADATA is read with
zipfile and email.parser to check that it states Apache-2.0 (nothing of the package is imported or
run), and MODEL_LICENSES.md must list the SHA-256 of each model installed from it.
"""

import email.parser
import hashlib
import os
import sys
import zipfile

# Installed name, name in the wheel's rapidocr/models/.
MODELS = (
    ("PP-OCRv6_det_small.onnx", "PP-OCRv6_det_small.onnx"),
    ("PP-OCRv6_rec_small.onnx", "PP-OCRv6_rec_small.onnx"),
    ("ch_ppocr_mobile_v2.0_cls_infer.onnx", "ch_ppocr_mobile_v2.0_cls_mobile.onnx"),
)


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    wheel, license_path, model_licenses_path, output = argv[1:]
    with zipfile.ZipFile(wheel) as z:
        metadata_name = next((n for n in z.namelist() if n.endswith(".dist-info/METADATA")), None)
        if metadata_name is None:
            print(f"{wheel}: no METADATA in the wheel", file=sys.stderr)
            return 1
        metadata = email.parser.Parser().parsestr(z.read(metadata_name).decode("utf-8"), headersonly=True)
        digests = {name: hashlib.sha256(z.read(f"rapidocr/models/{name}")).hexdigest() for _, name in MODELS}
    stated = metadata.get("License-Expression") or metadata.get("License")
    if stated != "Apache-2.0":
        print(f"{wheel}: METADATA states the licence {stated!r}, not Apache-2.0", file=sys.stderr)
        return 1
    with open(license_path, encoding="utf-8") as f:
        license_text = f.read()
    with open(model_licenses_path, encoding="utf-8") as f:
        model_licenses = f.read()
    for name, digest in digests.items():
        if digest not in model_licenses:
            print(f"{model_licenses_path}: does not list {name} with its SHA-256 {digest}", file=sys.stderr)
            return 1
    installed = "\n".join(f"    {installed:<40} rapidocr/models/{name}" for installed, name in MODELS)
    text = (
        "Memora's OCR models, installed by scripts/install-models.sh (Docs/Models.md).\n"
        f"They are unchanged copies of these files of the {metadata['Name']} {metadata['Version']} wheel on PyPI:\n"
        "\n"
        f"{installed}\n"
        "\n"
        "PaddleOCR's PP-OCRv6 small text detector and recogniser and its PP-OCR mobile v2.0 text\n"
        "direction classifier, as the RapidOCR project distributes them in ONNX form.\n"
        "PP-OCRv6_rec_small_keys.txt is the recogniser's character list, written out of the\n"
        "recogniser's metadata by scripts/models/ocr-dictionary.py.\n"
        "\n"
        "The wheel's licence files follow verbatim: its dist-info/licenses/MODEL_LICENSES.md (the\n"
        "models' provenance and attribution), then dist-info/licenses/LICENSE (Apache-2.0).\n"
        "\n"
        "==== MODEL_LICENSES.md ====\n"
        "\n"
        + model_licenses.rstrip("\n")
        + "\n\n==== LICENSE ====\n\n"
        + license_text.rstrip("\n")
        + "\n"
    )
    os.makedirs(os.path.dirname(output) or ".", exist_ok=True)
    with open(output, "x", encoding="utf-8") as out:
        out.write(text)
    os.chmod(output, 0o644)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
