#!/usr/bin/env python3
"""Writes the licence note of the test photos (fixtures/LICENSE) from the scikit-image wheel.

    fixtures-license.py WHEEL OUTPUT

The photos' terms are stated in the docstrings of skimage.data.astronaut() and
skimage.data.camera() (skimage/data/_fetchers.py); the note quotes them verbatim, read from the
wheel with zipfile and ast (nothing of the package is imported or run).
"""

import ast
import os
import sys
import zipfile

PHOTOS = ("astronaut", "camera")


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    wheel, output = argv[1], argv[2]
    version = os.path.basename(wheel).split("-")[1]
    with zipfile.ZipFile(wheel) as z:
        source = z.read("skimage/data/_fetchers.py").decode("utf-8")
    functions = {node.name: node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)}
    parts = [
        "Memora's face test photos, installed by scripts/install-models.sh (Docs/Models.md).\n"
        f"They are unchanged copies of skimage/data/astronaut.png and skimage/data/camera.png from\n"
        f"the scikit-image {version} wheel on PyPI. scikit-image's own code is BSD-3-Clause; each\n"
        "photo's terms are those stated in the package's docstring for it, quoted below verbatim.\n"
    ]
    for name in PHOTOS:
        docstring = ast.get_docstring(functions[name], clean=True)
        if not docstring:
            print(f"{wheel}: skimage.data.{name}() has no docstring", file=sys.stderr)
            return 1
        title = f"{name}.png (skimage.data.{name}())"
        parts.append(f"{title}\n{'-' * len(title)}\n{docstring}\n")
    os.makedirs(os.path.dirname(output) or ".", exist_ok=True)
    with open(output, "x", encoding="utf-8") as out:
        out.write("\n".join(parts))
    os.chmod(output, 0o644)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
