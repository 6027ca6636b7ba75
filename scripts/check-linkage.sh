#!/usr/bin/env bash
# The package graph's promise, checked on a binary: a program that imports VaultCrypto alone
# (loca-memory-probe) links none of the server's and the vision models' code: no SwiftNIO, no
# BoringSSL, no PostgresNIO, no Hummingbird, no dlib, no PhotoVision, no MemoraSync. A dependency
# declared where it is not needed (MemoraDatabase once declared PostgresNIO) drags all of that into
# every program that encrypts a photo, and this check fails. Run by `make test` (Docs/Architecture.md).
#
#   scripts/check-linkage.sh        (DEBUG_FLAGS as the Makefile's; SWIFT for another swift)
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
read -r -a flags <<<"${DEBUG_FLAGS:--Xcxx -O2}"
"$SWIFT" build "${flags[@]}" --product loca-memory-probe >&2
binary="$("$SWIFT" build "${flags[@]}" --show-bin-path)/loca-memory-probe"
symbols=$(nm "$binary")
# Swift symbols carry their module's name with its length in front; C and C++ have their own prefixes.
if ! grep -q '11VaultCrypto' <<<"$symbols"; then
  echo "linkage: $binary has no VaultCrypto symbols; the check cannot read it" >&2
  exit 1
fi
failed=0
for pattern in 7NIOCore 8NIOPosix CNIOBoringSSL_ 11PostgresNIO 11Hummingbird _ZN4dlib 11PhotoVision 10MemoraSync 10MemoraCore; do
  count=$(grep -c -- "$pattern" <<<"$symbols" || true)
  if [ "$count" -gt 0 ]; then
    echo "linkage: loca-memory-probe imports VaultCrypto alone but links $count symbols of '$pattern': a target declares a dependency it does not use (see Package.swift)" >&2
    failed=1
  fi
done
[ "$failed" -eq 0 ] && echo "linkage: OK (VaultCrypto alone links no NIO, BoringSSL, PostgresNIO, Hummingbird, dlib or PhotoVision)"
exit "$failed"
