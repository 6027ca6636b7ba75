#!/usr/bin/env python3
"""Copies named files out of an sdist (.tar.gz) or a wheel (.whl, a zip) without installing it.

    extract.py ARCHIVE MEMBER=DESTINATION [MEMBER=DESTINATION ...]

Only the named members are read, only regular files, each to the destination given (never to a
path taken from the archive); a missing member is an error. Files are written with mode 0644.
"""

import os
import shutil
import sys
import tarfile
import zipfile


def main(argv):
    if len(argv) < 3 or any("=" not in a for a in argv[2:]):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    archive = argv[1]
    wanted = dict(a.split("=", 1) for a in argv[2:])
    done = set()

    def write(source, member):
        destination = wanted[member]
        os.makedirs(os.path.dirname(destination) or ".", exist_ok=True)
        with open(destination, "xb") as out:
            shutil.copyfileobj(source, out, 1 << 20)
        os.chmod(destination, 0o644)
        done.add(member)

    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            for member in wanted:
                try:
                    info = z.getinfo(member)
                except KeyError:
                    continue
                if not info.is_dir():
                    with z.open(info) as source:
                        write(source, member)
    else:
        with tarfile.open(archive, "r:*") as t:
            for info in t:
                if info.name in wanted and info.isreg() and info.name not in done:
                    with t.extractfile(info) as source:
                        write(source, info.name)
                    if len(done) == len(wanted):
                        break
    missing = sorted(set(wanted) - done)
    if missing:
        print(f"{archive}: no such file in the archive: {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
