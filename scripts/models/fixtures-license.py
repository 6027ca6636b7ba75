#!/usr/bin/env python3
"""Writes the licence note of the photos taken from the scikit-image wheel.

    fixtures-license.py WHEEL OUTPUT                  fixtures/LICENSE (the face test photos)
    fixtures-license.py --demo-photos WHEEL OUTPUT    photos/LICENSE (the demo photos)

The photos' terms are stated in the docstrings of the skimage.data functions that load them
(skimage/data/_fetchers.py, e.g. skimage.data.astronaut()); the note quotes them verbatim, read
from the wheel with zipfile and ast (nothing of the package is imported or run). A photo whose
docstring states no terms is named as such.
"""

import ast
import os
import sys
import zipfile

# (file in skimage/data/, the skimage.data function that loads it)
FIXTURES = (("astronaut.png", "astronaut"), ("camera.png", "camera"))
DEMO_PHOTOS = (
    ("coffee.png", "coffee"),
    ("chelsea.png", "chelsea"),
    ("rocket.jpg", "rocket"),
    ("coins.png", "coins"),
    ("hubble_deep_field.jpg", "hubble_deep_field"),
    ("retina.jpg", "retina"),
    ("brick.png", "brick"),
    ("page.png", "page"),
    ("text.png", "text"),
)
# Words that show that a docstring states the photo's terms.
TERMS = ("copyright", "public domain", "cc0", "creative commons", "licensed", "license")


def main(argv):
    demo = len(argv) == 4 and argv[1] == "--demo-photos"
    if len(argv) != 3 and not demo:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    wheel, output = argv[-2], argv[-1]
    version = os.path.basename(wheel).split("-")[1]
    with zipfile.ZipFile(wheel) as z:
        source = z.read("skimage/data/_fetchers.py").decode("utf-8")
    functions = {node.name: node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)}
    if demo:
        photos = DEMO_PHOTOS
        parts = [
            "Memora's demo photos, installed by scripts/install-models.sh (Docs/Models.md). They are\n"
            f"unchanged copies of files in skimage/data/ of the scikit-image {version} wheel on PyPI.\n"
            "scikit-image's own code is BSD-3-Clause; each photo's terms are those stated in the\n"
            "package's docstring for it, quoted below verbatim. Where the docstring states none, that is\n"
            "said after it: such a photo comes only with the package's own licence.\n"
        ]
    else:
        photos = FIXTURES
        parts = [
            "Memora's face test photos, installed by scripts/install-models.sh (Docs/Models.md).\n"
            f"They are unchanged copies of skimage/data/astronaut.png and skimage/data/camera.png from\n"
            f"the scikit-image {version} wheel on PyPI. scikit-image's own code is BSD-3-Clause; each\n"
            "photo's terms are those stated in the package's docstring for it, quoted below verbatim.\n"
        ]
    for file, name in photos:
        docstring = ast.get_docstring(functions[name], clean=True)
        if not docstring:
            print(f"{wheel}: skimage.data.{name}() has no docstring", file=sys.stderr)
            return 1
        title = f"{file} (skimage.data.{name}())"
        part = f"{title}\n{'-' * len(title)}\n{docstring}\n"
        if demo and not any(word in docstring.lower() for word in TERMS):
            part += f"[The wheel states no terms for {file}: scikit-image's BSD-3-Clause licence only.]\n"
        parts.append(part)
    os.makedirs(os.path.dirname(output) or ".", exist_ok=True)
    with open(output, "x", encoding="utf-8") as out:
        out.write("\n".join(parts))
    os.chmod(output, 0o644)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
