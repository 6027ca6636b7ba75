#!/usr/bin/env bash
# Installs the Debian packages Memora builds against, when they are missing.
# As root (or with password-less sudo) it runs apt-get; otherwise it prints the
# exact command to run and fails.
#   scripts/install-deps.sh          build and test dependencies
#   scripts/install-deps.sh --oracle also the tools used to cross-check metadata (exiftool, exiv2)
set -euo pipefail

packages=(
  pkg-config
  libsqlite3-dev      # GRDB's SQLite
  libsodium-dev       # VaultCrypto
  libssl-dev          # the system layer's SHA-256 (OpenSSL's libcrypto: SHA-NI, 3x libsodium's)
  libexif-dev         # MetadataKit (fast EXIF scan)
  zlib1g-dev          # MetadataKit (compressed PNG text chunks)
  libdeflate-dev      # MetadataKit (CRC-32 of image data for snapshots)
  libexiv2-dev        # MetadataKit (EXIF, IPTC, XMP)
  libturbojpeg0-dev   # ImageKit JPEG
  libjpeg62-turbo-dev # ImageKit JPEG, decoded row by row (libjpeg API)
  libpng-dev          # ImageKit PNG
  libwebp-dev         # ImageKit WebP
  libtiff-dev         # ImageKit TIFF
  libheif-dev         # ImageKit HEIC/AVIF (pulls in the x265 and aom encoders the tests use)
  libfreetype-dev     # PhotoIndex: a collage's title line
  fonts-dejavu-core   # PhotoIndex: the title's font (DejaVu Sans)
  libdlib-dev         # CDlib: dlib's face detector, landmarks and face embeddings (pulls in OpenCV core,
                      # X11 and pybind11 headers and libdlib-data's 68-landmark model, never loaded: its
                      # licence is non-commercial). dlib-1.pc also names libpng, zlib, libjpeg and SQLite (above)
  libopenblas-dev     # CDlib: the libblas.so and liblapack.so it links, from OpenBLAS
  libopenblas0-pthread  # CDlib: OpenBLAS as the libblas.so.3 and liblapack.so.3 that run (see check_blas)
  libimage-exiftool-perl  # the MetadataKit tests check what we write with exiftool
  webp                # cwebp makes the WebP fixtures of the MetadataKit tests
  postgresql          # the sync tests run memora-server on PostgreSQL too (scripts/test-postgres.sh)
  libqrencode-dev     # CQREncode: the hub's pairing QR code (memora-server pair, the dashboard)
  libavformat-dev     # CFFmpeg: a video's or voice note's duration and a video's poster frame, on the hub
  libavcodec-dev
  libswscale-dev
  ffmpeg              # the hub's tests and bench make their video and voice fixtures with it
  chromium            # the dashboard's test loads it in a real browser (scripts/dashboard-check.py) and make demo screenshots it
  chromium-driver     # Selenium drives Chromium through it (scripts/dashboard-check.py)
  wamerican           # the word lists a line of text read in a photo is checked against before it is quoted
  wbritish            # (PhotoVisionCore's WordList, Docs/Vision.md "Quoting text"): English both ways, and the
  wngerman            # Latin-script languages PP-OCRv6 reads that Debian packages as plain word lists
  wfrench
  wspanish
  witalian
  wportuguese
  hunspell-es         # Spanish's plain list lacks the inflected forms ("recoger", not "recoge"); its
                      # Hunspell rules have them (wfrench, witalian and wportuguese list theirs already)
  openssl             # scripts/check-pins.sh: the pinned roots' fingerprints
  ca-certificates     # scripts/check-pins.sh compares the pinned roots with Debian's
)
if [ "${1:-}" = "--oracle" ]; then
  packages+=(exiv2)
fi

# dlib's face embedding runs its matrix products through whichever libblas.so.3 Debian's
# alternatives select: OpenBLAS (priority 100) wins in auto mode, but a manual choice of the
# reference BLAS (priority 10) would make it about 10x slower. Warn, never change the choice.
check_blas() {
  command -v update-alternatives >/dev/null 2>&1 || return 0
  local arch name value
  arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
  for name in libblas.so.3 liblapack.so.3; do
    value=$(update-alternatives --query "$name-$arch" 2>/dev/null | sed -n 's/^Value: //p')
    if [ -n "$value" ] && [[ "$value" != *openblas* ]]; then
      echo "warning: $name is $value, not OpenBLAS: face embeddings will be about 10x slower." >&2
      echo "  Fix: sudo update-alternatives --auto $name-$arch" >&2
    fi
  done
}

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  check_blas
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "Missing system libraries: ${missing[*]}" >&2
  echo "This is not a Debian-based system; install the equivalents of those packages with your package manager." >&2
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  echo "Installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  check_blas
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  echo "Installing with sudo: ${missing[*]}" >&2
  sudo -n env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  check_blas
else
  echo "Missing Debian packages: ${missing[*]}" >&2
  echo "Install them with:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
