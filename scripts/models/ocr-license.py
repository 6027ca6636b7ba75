#!/usr/bin/env python3
"""Writes the licence note of the OCR models (ocr/LICENSE) from the rapidocr-onnxruntime wheel.

    ocr-license.py WHEEL OUTPUT

The wheel has no licence file in its dist-info; its METADATA states "License: Apache-2.0", and the
PaddleOCR-derived modules carry PaddlePaddle's Apache-2.0 header. The note quotes both verbatim,
read from the wheel with zipfile and email.parser (nothing of the package is imported or run).
"""

import email.parser
import os
import sys
import zipfile

FIELDS = ("Name", "Version", "Summary", "Home-page", "Author", "License")
HEADER_OF = "rapidocr_onnxruntime/ch_ppocr_det/text_detect.py"
MODELS = ("ch_PP-OCRv4_det_infer.onnx", "ch_PP-OCRv4_rec_infer.onnx", "ch_ppocr_mobile_v2.0_cls_infer.onnx")


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    wheel, output = argv[1], argv[2]
    with zipfile.ZipFile(wheel) as z:
        metadata_name = next((n for n in z.namelist() if n.endswith(".dist-info/METADATA")), None)
        if metadata_name is None:
            print(f"{wheel}: no METADATA in the wheel", file=sys.stderr)
            return 1
        metadata = email.parser.Parser().parsestr(z.read(metadata_name).decode("utf-8"), headersonly=True)
        source = z.read(HEADER_OF).decode("utf-8")
    if metadata.get("License") != "Apache-2.0":
        print(f"{wheel}: METADATA states License {metadata.get('License')!r}, not Apache-2.0", file=sys.stderr)
        return 1
    header = []
    for line in source.splitlines():
        if not line.startswith("#"):
            break
        header.append(line)
    # Only the licence paragraph, up to the line that ends it (the encoding and author lines follow).
    while header and "limitations under the License" not in header[-1]:
        header.pop()
    if not header:
        print(f"{wheel}: {HEADER_OF} has no licence header", file=sys.stderr)
        return 1
    fields = "\n".join(f"    {name}: {metadata.get(name)}" for name in FIELDS if metadata.get(name))
    text = (
        "Memora's OCR models, installed by scripts/install-models.sh (Docs/Models.md).\n"
        f"{MODELS[0]}, {MODELS[1]} and\n"
        f"{MODELS[2]} are unchanged copies of rapidocr_onnxruntime/models/\n"
        f"from the {metadata['Name']} {metadata['Version']} wheel on PyPI: PaddleOCR's PP-OCRv4 text detector\n"
        "and recogniser and its PP-OCR mobile v2.0 text direction classifier, converted to ONNX by the\n"
        "RapidOCR project. ppocr_keys_v1.txt is the recogniser's character list, written out of the\n"
        "recogniser's metadata by scripts/models/ocr-dictionary.py.\n"
        "\n"
        "The wheel has no licence file. Its METADATA states:\n"
        "\n"
        f"{fields}\n"
        "\n"
        "and its PaddleOCR-derived modules begin with (quoted from\n"
        f"{HEADER_OF}):\n"
        "\n"
        + "\n".join(header)
        + "\n"
    )
    os.makedirs(os.path.dirname(output) or ".", exist_ok=True)
    with open(output, "x", encoding="utf-8") as out:
        out.write(text)
    os.chmod(output, 0o644)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
