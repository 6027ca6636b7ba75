#!/usr/bin/env bash
# Enforces Memora's module layering (Docs/Architecture.md) by reading every
# `import` line under Sources/ and Benchmarks/:
#   - MemoraSystem (the system layer) imports none of our modules, and no other file
#     imports a platform module (Glibc, Darwin, Musl, WinSDK, ...) or calls libc's file
#     and process calls directly: they live in the system layer;
#   - MemoraDatabase, ImageKit and MetadataKit import none of our other modules but MemoraSystem;
#     VaultCrypto and MemoraSync also MemoraDatabase;
#   - MemoraServer (the sync server's library) imports MemoraSystem, MemoraDatabase and MemoraSync;
#   - PhotoVision imports only MemoraSystem and ImageKit;
#   - PhotoIndex may import MemoraDatabase, MetadataKit, ImageKit and PhotoVision;
#   - MemoraCore may import MemoraDatabase, MetadataKit, VaultCrypto, PhotoVision, PhotoIndex, ImageKit and MemoraSync;
#   - exactly one Swift file in the package imports each C module.
# Exits non-zero and names every violation.
set -euo pipefail
cd "$(dirname "$0")/.."

ours=(MemoraSystem MemoraDatabase ImageKit MetadataKit VaultCrypto PhotoVision MemoraSync MemoraHub PhotoIndex MemoraCore MemoraServer MemoraTesting)
c_modules=(CMemoraSystem CSodium CExif CZlib CDeflate CExiv2 CExiv2Library CDlib CDlibLibrary CTurboJPEG CJPEG CPNG CWebP CTIFF CHeif CFreeType CONNXRuntime CBenchPeers CVisionKernels CQREncode CFFmpeg)
platform_modules=(Glibc Darwin Musl WinSDK ucrt Android Bionic WASILibc CRT)

allowed_for() {
  case "$1" in
    MemoraSystem) echo "" ;;
    MemoraDatabase|ImageKit|MetadataKit) echo "MemoraSystem" ;;
    VaultCrypto|MemoraSync) echo "MemoraSystem MemoraDatabase" ;;
    MemoraHub) echo "MemoraSystem MemoraSync MetadataKit" ;;
    MemoraServer) echo "MemoraSystem MemoraDatabase MemoraSync MemoraHub ImageKit MetadataKit" ;;
    PhotoVision) echo "MemoraSystem ImageKit" ;;
    PhotoIndex) echo "MemoraSystem MemoraDatabase MetadataKit ImageKit PhotoVision" ;;
    MemoraCore) echo "MemoraSystem MemoraDatabase MetadataKit VaultCrypto PhotoVision PhotoIndex ImageKit MemoraSync MemoraHub" ;;
    MemoraTesting) echo "MemoraSystem MemoraCore MemoraSync MemoraServer PhotoIndex" ;;
    *) echo "${ours[*]}" ;;  # front ends (memora, memora-bench) may use everything
  esac
}

failures=0
# Every import statement: "path:module", including `@testable`, access-level and
# `import struct X.Y` forms.
imports=$(grep -rEn --include='*.swift' \
  '^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*((public|package|internal|fileprivate|private)[[:space:]]+)?import[[:space:]]+((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?[A-Za-z_][A-Za-z0-9_]*' \
  Sources Benchmarks | sed -E 's/^([^:]+):[0-9]+:.*import[[:space:]]+((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*).*/\1:\4/')

while IFS=: read -r file module; do
  [ -n "$file" ] || continue
  target=$(echo "$file" | cut -d/ -f2)
  for our in "${ours[@]}"; do
    if [ "$module" = "$our" ] && [ "$module" != "$target" ]; then
      allowed=" $(allowed_for "$target") "
      if [[ "$allowed" != *" $module "* ]]; then
        echo "layering: $file imports $module, which $target must not use" >&2
        failures=$((failures + 1))
      fi
    fi
  done
done <<< "$imports"

for c in "${c_modules[@]}"; do
  importers=$(echo "$imports" | awk -F: -v m="$c" '$2 == m { print $1 }' | sort -u)
  count=$(echo -n "$importers" | grep -c . || true)
  if [ "$count" -gt 1 ]; then
    echo "layering: $c is imported by $count files (only one may wrap it):" >&2
    echo "$importers" | sed 's/^/  /' >&2
    failures=$((failures + 1))
  fi
done

# Platform modules: only the system layer imports them (any `#if canImport(...)` form included).
for p in "${platform_modules[@]}"; do
  while IFS=: read -r file module; do
    [ -n "$file" ] || continue
    case "$file" in Sources/MemoraSystem/*) continue ;; esac
    if [ "$module" = "$p" ]; then
      echo "layering: $file imports the platform module $p; only Sources/MemoraSystem may (Docs/Architecture.md)" >&2
      failures=$((failures + 1))
    fi
  done <<< "$imports"
done
# Platform conditionals and raw file/process system calls (Foundation re-exports libc, so an
# import check alone would not see them) live in the system layer too.
raw=$(grep -rnE --include='*.swift' \
  '#if[^\n]*(canImport\((Glibc|Darwin|Musl)\)|os\(Linux\))|(^|[^.A-Za-z_])(errno|strerror|fstat|lstat|flock|mkstemp|fsync|fcntl|pread|pwrite|realpath|opendir|readdir|isatty|ftruncate|fchmod|futimens|posix_fadvise)[[:space:]]*\(|[^.A-Za-z_]errno[^A-Za-z_(]' \
  Sources | grep -v '^Sources/MemoraSystem/' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)
if [ -n "$raw" ]; then
  echo "layering: platform calls or conditionals outside Sources/MemoraSystem:" >&2
  echo "$raw" | sed 's/^/  /' >&2
  failures=$((failures + 1))
fi

if [ "$failures" -gt 0 ]; then
  echo "layering: $failures violation(s); see Docs/Architecture.md" >&2
  exit 1
fi
echo "layering: OK ($(echo "$imports" | grep -c .) import lines checked)"
