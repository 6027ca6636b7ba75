#!/usr/bin/env bash
# The package graph's promise, checked on binaries: a program that imports VaultCrypto alone
# (loca-memory-probe), MetadataKit alone (metadata-linkage-probe) or PhotoIndex alone
# (index-linkage-probe) links none of the server's and the vision models' code: no SwiftNIO, no BoringSSL, no PostgresNIO, no Hummingbird, no dlib, no
# PhotoVision, no MemoraSync, no MemoraCore (and MetadataKit no GRDB or libsodium either); and one
# that imports MemoraCore alone (core-linkage-probe) links no TLS stack and no server: the pinned
# transport (MemoraPinning: SwiftNIO, BoringSSL) is the CLI's to add. A
# dependency declared where it is not needed (MemoraDatabase once declared PostgresNIO) drags all of
# that into every program that encrypts a photo or reads its caption, and this check fails.
# Run by `make test` (Docs/Architecture.md).
#
#   scripts/check-linkage.sh        (DEBUG_FLAGS as the Makefile's; SWIFT for another swift)
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
read -r -a flags <<<"${DEBUG_FLAGS:--Xcxx -O2}"
bin="$("$SWIFT" build "${flags[@]}" --show-bin-path)"
# One build of every product (after `make test`'s, nothing to do but plan: one plan, not one a probe).
"$SWIFT" build "${flags[@]}" >&2
heavy=(7NIOCore 8NIOPosix CNIOBoringSSL_ 11PostgresNIO 11Hummingbird _ZN4dlib 11PhotoVision 10MemoraSync 10MemoraCore 11MemoraHTTP)
failed=0

# check PRODUCT MODULE-SYMBOL PATTERN...: the product's binary has MODULE's symbols and none of the patterns.
check() {
  local product=$1 own=$2
  shift 2
  local symbols
  symbols=$(nm "$bin/$product")
  # Swift symbols carry their module's name with its length in front; C and C++ have their own prefixes.
  if ! grep -q -- "$own" <<<"$symbols"; then
    echo "linkage: $bin/$product has no '$own' symbols; the check cannot read it" >&2
    failed=1
    return
  fi
  local pattern count
  for pattern in "$@"; do
    count=$(grep -c -- "$pattern" <<<"$symbols" || true)
    if [ "$count" -gt 0 ]; then
      echo "linkage: $product imports one library alone but links $count symbols of '$pattern': a target declares a dependency it does not use (see Package.swift)" >&2
      failed=1
    fi
  done
  [ "$failed" -eq 0 ] && echo "linkage: OK ($product: $(du -h "$bin/$product" | cut -f1), none of $*)"
  return 0
}

check loca-memory-probe 11VaultCrypto "${heavy[@]}"
check metadata-linkage-probe 11MetadataKit "${heavy[@]}" 4GRDB 11VaultCrypto crypto_aead_
check index-linkage-probe 10PhotoIndex "${heavy[@]}" cdlib_ OrtGetApiBase cblas_ 11VaultCrypto
check core-linkage-probe 10MemoraCore 7NIOCore 8NIOPosix CNIOBoringSSL_ 11PostgresNIO 11Hummingbird 13MemoraPinning 12MemoraServer 9MemoraHub
exit "$failed"
