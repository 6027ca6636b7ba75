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
  libimage-exiftool-perl  # the MetadataKit tests check what we write with exiftool
  webp                # cwebp makes the WebP fixtures of the MetadataKit tests
)
if [ "${1:-}" = "--oracle" ]; then
  packages+=(exiv2)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
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
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  echo "Installing with sudo: ${missing[*]}" >&2
  sudo -n env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
else
  echo "Missing Debian packages: ${missing[*]}" >&2
  echo "Install them with:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
