#!/usr/bin/env python3
"""Writes the character dictionary of the PP-OCR recogniser (ocr/PP-OCRv6_rec_small_keys.txt) from the model.

    ocr-dictionary.py REC_MODEL OUTPUT

rapidocr 3.10.0 ships no dictionary file for it: its recogniser PP-OCRv6_rec_small.onnx carries
the characters in the model's metadata_props, key "character", one a line, and rapidocr
reads them with str.splitlines(). This script reads that entry with the onnx package (nothing of
rapidocr is imported or run) and writes the characters as UTF-8, one a line, each line ended by
"\\n", in the same order. The output classes of the model are then:

    class 0            the CTC blank (no line in the file)
    class k, 1..N      line k of the file (N = the number of lines, 18708)
    class N + 1        a space " " (no line in the file)

so the model's last output dimension is N + 2 (18710); the script checks that. This is the layout of
PaddleOCR's ppocr_keys_v1.txt with use_space_char (and what rapidocr's CTCLabelDecode builds: the
list, then " " appended, then "blank" inserted at 0).
"""

import os
import sys

import onnx


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    model_path, output = argv[1], argv[2]
    model = onnx.load(model_path, load_external_data=False)
    metadata = {p.key: p.value for p in model.metadata_props}
    if "character" not in metadata:
        print(f"{model_path}: no 'character' entry in the model's metadata_props", file=sys.stderr)
        return 1
    characters = metadata["character"].splitlines()
    bad = [(i, c) for i, c in enumerate(characters) if len(c) != 1]
    if bad:
        print(f"{model_path}: entries that are not one character: {bad[:5]}", file=sys.stderr)
        return 1
    if len(set(characters)) != len(characters):
        print(f"{model_path}: the character list has duplicates", file=sys.stderr)
        return 1
    # The file is read back by splitting at "\n": no entry may contain a character that splitlines()
    # treats as a line break, or the two readings would differ.
    if "\n".join(characters).splitlines() != characters:
        print(f"{model_path}: a character is a line break", file=sys.stderr)
        return 1
    outputs = model.graph.output
    if len(outputs) != 1:
        print(f"{model_path}: expected one output, found {len(outputs)}", file=sys.stderr)
        return 1
    classes = outputs[0].type.tensor_type.shape.dim[-1].dim_value
    if classes != len(characters) + 2:
        print(f"{model_path}: the output has {classes} classes, but the dictionary has {len(characters)} "
              "characters (expected characters + blank + space)", file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(output) or ".", exist_ok=True)
    with open(output, "x", encoding="utf-8", newline="\n") as out:
        out.write("".join(c + "\n" for c in characters))
    os.chmod(output, 0o644)
    print(f"{output}: {len(characters)} characters; classes 0 (blank) .. {classes - 1} (space)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
