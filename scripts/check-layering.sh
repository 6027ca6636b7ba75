#!/usr/bin/env bash
# Enforces Memora's module layering (Docs/Architecture.md) by reading every
# `import` line under Sources/ and Benchmarks/:
#   - no file outside MemoraSystem (the system layer) imports a platform module (Glibc, Darwin, Musl,
#     WinSDK, ...) or calls libc's file and process calls directly: they live in the system layer;
#   - the package graph has none of the forbidden edges listed in FORBIDDEN below (the graph itself
#     is the one truth of what each module uses; the list names only what must never be added,
#     directly or through another module, each with its reason);
#   - exactly one Swift file in the package imports each C module.
# And it reads the package graph (`swift package dump-package`) and checks it against the source:
#   - every Swift target (Sources/, Benchmarks/, Tests/) imports each dependency it declares, and
#     declares each of our targets and each product it imports (Apple's and the platforms' modules
#     aside; a system library that only gives a C target its link flags, and an executable a test
#     target runs, need no import);
#   - every folder of Swift files is a target, and the lists below name every module of the graph;
#   - Docs/Architecture.md holds the module table generated from the graph, between
#     <!-- module-graph:begin --> and <!-- module-graph:end -->.
# Exits non-zero and names every violation.
#
#   scripts/check-layering.sh                 the checks (`make lint`, `make test`)
#   scripts/check-layering.sh --print-table   prints the generated module table
#   scripts/check-layering.sh --write-table   writes it into Docs/Architecture.md between the markers
set -euo pipefail
cd "$(dirname "$0")/.."

mode=check
case "${1:-}" in
  "") ;;
  --print-table) mode=print ;;
  --write-table) mode=write ;;
  *) echo "usage: $0 [--print-table | --write-table]" >&2; exit 2 ;;
esac

ours=(MemoraSystem MemoraDatabase MemoraHTTP MemoraPinning ImageKit MetadataKit VaultCrypto PhotoVisionCore PhotoVision MemoraSync MemoraHub PhotoIndex MemoraCore MemoraServer MemoraTesting MemoraSyncTesting MemoraDemo)
c_modules=(CMemoraSystem CSodium CExif CZlib CDeflate CExiv2 CExiv2Library CDlib CDlibLibrary CTurboJPEG CJPEG CPNG CWebP CTIFF CHeif CFreeType CONNXRuntime CBenchPeers CVisionKernels CQREncode CFFmpeg)
platform_modules=(Glibc Darwin Musl WinSDK ucrt Android Bionic WASILibc CRT)

# The package graph, as SwiftPM reads Package.swift (its own scratch path: no wait on a build's lock).
dump_file=$(mktemp)
dump_errors=$(mktemp)
trap 'rm -f "$dump_file" "$dump_errors"' EXIT
read_graph() {
  if ! "${SWIFT:-swift}" package --scratch-path "${TMPDIR:-/tmp}/.build-layering" dump-package >"$dump_file" 2>"$dump_errors"; then
    echo "layering: swift package dump-package failed, so the package graph was not checked:" >&2
    sed 's/^/  /' "$dump_errors" >&2
    return 1
  fi
}
# Arguments: mode (check, print, write), the dump, the ours list, the C module list. In check mode
# it prints its violations on stderr and "<violations> <files>" on stdout.
check_graph() {
  python3 - "$@" <<'PY'
import difflib, functools, json, os, re, sys

mode, dump_path = sys.argv[1], sys.argv[2]
DOC = "Docs/Architecture.md"
BEGIN, END = "<!-- module-graph:begin -->", "<!-- module-graph:end -->"
# Apple's, the toolchain's and the platforms' own modules: never declared in Package.swift.
SYSTEM = set("""
Swift _Concurrency _StringProcessing _Differentiation RegexBuilder Distributed Cxx CxxStdlib SwiftShims
Foundation FoundationEssentials FoundationInternationalization FoundationNetworking FoundationXML
CoreFoundation Dispatch XCTest Testing Synchronization Observation os OSLog ObjectiveC
Glibc Darwin Musl WinSDK ucrt Android Bionic WASILibc CRT SwiftGlibc SwiftWASILibc
Combine CryptoKit CommonCrypto Security Network SystemConfiguration UniformTypeIdentifiers
CoreGraphics CoreImage CoreText ImageIO CoreServices CoreLocation CoreML Vision Photos PhotosUI
AVFoundation Accelerate simd Metal MetalKit UIKit AppKit SwiftUI BackgroundTasks
""".split())

with open(dump_path) as f:
    dump = json.load(f)
targets = dump["targets"]
by_name = {t["name"]: t for t in targets}


def module_name(name):
    """A target's module name: its name with every character that cannot be in an identifier made `_`."""
    m = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return "_" + m if m[:1].isdigit() else m


module_to_target = {module_name(n): n for n in by_name}


def target_dir(t):
    if t.get("path"):
        return t["path"]
    return ("Tests/" if t["type"] == "test" else "Sources/") + t["name"]


def swift_files(t):
    root = os.path.normpath(target_dir(t))
    if not os.path.isdir(root):
        return root, None
    excluded = [os.path.normpath(os.path.join(root, e)) for e in t.get("exclude") or []]
    starts = [os.path.normpath(os.path.join(root, s)) for s in t.get("sources") or []] or [root]
    files = []
    for start in starts:
        walk = [(os.path.dirname(start), [], [os.path.basename(start)])] if os.path.isfile(start) else os.walk(start)
        for folder, dirs, names in walk:
            dirs.sort()
            for n in sorted(names):
                p = os.path.join(folder, n)
                if n.endswith(".swift") and not any(p == e or p.startswith(e + os.sep) for e in excluded):
                    files.append(p)
    return root, files


def dependencies(t):
    """[(module, name as declared, 'target' | 'product', package or None)]"""
    out = []
    for d in t.get("dependencies") or []:
        if "byName" in d:
            name = d["byName"][0]
            out.append((module_name(name), name, "target" if name in by_name else "product", None))
        elif "target" in d:
            name = d["target"][0]
            out.append((module_name(name), name, "target", None))
        elif "product" in d:
            name, package, aliases = d["product"][0], d["product"][1], d["product"][2]
            out.append(((aliases or {}).get(name, name), name, "product", package))
    return out


# Swift source: comments and string literals (multi-line and raw ones included) are skipped, so an
# `import` in a doc comment or in an embedded script is not one. `#if canImport(X)` is not an import.
TOKEN = re.compile(
    r"""(?P<line>//[^\n]*)
      | (?P<block>/\*)
      | (?P<multi>(?P<h1>\#*)\"\"\"(?:\\.|[^\\])*?\"\"\"(?P=h1))
      | (?P<string>(?P<h2>\#*)"(?:\\.|[^"\\\n])*"(?P=h2))
      | ^[ \t]*(?:@\w+(?:\([^)\n]*\))?[ \t]+)*(?:(?:public|package|internal|fileprivate|private|open)[ \t]+)?
        import[ \t]+(?:(?:typealias|struct|class|enum|protocol|let|var|func)[ \t]+)?(?P<module>[A-Za-z_]\w*)""",
    re.M | re.X)
BLOCK = re.compile(r"/\*|\*/")


def imports_of(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    found, pos = [], 0
    while True:
        m = TOKEN.search(text, pos)
        if not m:
            return found
        pos = m.end()
        if m.group("block"):
            depth = 1
            while depth:
                b = BLOCK.search(text, pos)
                if not b:
                    return found
                depth += 1 if b.group() == "/*" else -1
                pos = b.end()
        elif m.group("module"):
            found.append(m.group("module"))


@functools.lru_cache(maxsize=None)
def checkout_products():
    """Products of the resolved packages (transitive ones included), from .build/checkouts if present."""
    pins = {}
    try:
        with open("Package.resolved") as f:
            for p in json.load(f).get("pins", []):
                pins[p["identity"].lower()] = p
    except (OSError, ValueError):
        pass
    out = {}
    root = ".build/checkouts"
    if not os.path.isdir(root):
        return out
    for d in sorted(os.listdir(root)):
        try:
            with open(os.path.join(root, d, "Package.swift"), encoding="utf-8", errors="replace") as f:
                manifest = f.read()
        except OSError:
            continue
        pin = pins.get(d.lower(), {})
        for name in re.findall(r'\.library\(\s*name:\s*"([^"]+)"', manifest):
            out.setdefault(name, (d, pin.get("location"), (pin.get("state") or {}).get("version")))
    return out


swift_targets = []  # (target, root, files)
missing = []  # targets whose folder does not exist
for t in targets:
    if t["type"] not in ("regular", "executable", "test"):
        continue
    root, files = swift_files(t)
    if files is None:
        missing.append((t["name"], root))
    elif files:
        swift_targets.append((t, root, files))
swift_names = {t["name"] for t, _, _ in swift_targets}

# System libraries that exist only to give a C target its link flags (CExiv2Library, CDlibLibrary).
link_only = {d[1] for t in targets if t["type"] == "regular" and t["name"] not in swift_names
             for d in dependencies(t) if d[2] == "target" and by_name[d[1]]["type"] == "system"}
declared_products = {}
for t in targets:
    for module, name, kind, package in dependencies(t):
        if kind == "product" and package:
            declared_products.setdefault(module, (name, package))


# The generated table of Docs/Architecture.md: every non-test Swift target, lowest layer first.
depth_memo = {}


def depth(name):
    if name not in depth_memo:
        depth_memo[name] = 0
        below = [d[1] for d in dependencies(by_name[name]) if d[2] == "target" and d[1] in swift_names]
        depth_memo[name] = 1 + max(map(depth, below)) if below else 0
    return depth_memo[name]


def table():
    rows = ["| Module | Depends on (ours) | External |", "| --- | --- | --- |"]
    modules = [t for t, _, _ in swift_targets if t["type"] != "test"]
    for t in sorted(modules, key=lambda t: (depth(t["name"]), t["name"].lower())):
        deps = dependencies(t)
        ours = sorted((d[1] for d in deps if d[2] == "target" and d[1] in swift_names), key=lambda n: (depth(n), n.lower()))
        ours += sorted((d[1] for d in deps if d[2] == "target" and d[1] not in swift_names), key=str.lower)
        packages = {}
        for module, name, kind, package in deps:
            if kind == "product":
                packages.setdefault(package or name, []).append(name)
        external = "; ".join(", ".join(sorted(ps, key=str.lower)) + " (" + p + ")" for p, ps in sorted(packages.items(), key=lambda kv: kv[0].lower()))
        label = t["name"] + (" (executable)" if t["type"] == "executable" else "")
        rows.append("| %s | %s | %s |" % (label, ", ".join(ours) or "—", external or "—"))
    return "\n".join(rows)


if mode == "print":
    print(table())
    sys.exit(0)

doc_text = open(DOC, encoding="utf-8").read()
span = re.search(re.escape(BEGIN) + r"\n(.*?)\n?" + re.escape(END), doc_text, re.S)
if mode == "write":
    if not span:
        sys.exit("layering: %s has no %s ... %s markers to write the table between" % (DOC, BEGIN, END))
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(doc_text[:span.start(1)] + table() + "\n" + doc_text[span.end(1):].lstrip("\n"))
    print("layering: wrote the module table into %s" % DOC)
    sys.exit(0)

problems = []


def report(message):
    problems.append("layering: " + message)


for t, root, files in swift_targets:
    name, own = t["name"], module_name(t["name"])
    imported = {}
    for path in files:
        for module in imports_of(path):
            imported.setdefault(module, []).append(path)
    declared = {}
    for d in dependencies(t):
        declared.setdefault(d[0], d)
    for module, (_, dep, kind, package) in declared.items():
        if module in imported:
            continue
        if kind == "target" and dep in link_only:
            continue
        if t["type"] == "test" and kind == "target" and by_name[dep]["type"] == "executable":
            continue  # a test that runs the built executable
        entry = '"%s"' % dep if kind == "target" or not package else '.product(name: "%s", package: "%s")' % (dep, package)
        report("Package.swift: target %s declares %s but no file in %s imports it — remove %s from %s's dependencies"
               % (name, dep, root, entry, name))
    for module, paths in sorted(imported.items()):
        if module == own or module in SYSTEM or module in declared:
            continue
        where = paths[0] + (" and %d more file%s" % (len(paths) - 1, "s" if len(paths) > 2 else "") if len(paths) > 1 else "")
        if module in module_to_target:
            dep = module_to_target[module]
            report('Package.swift: target %s does not declare %s, imported by %s — add "%s" to %s\'s dependencies (or remove the import)'
                   % (name, dep, where, dep, name))
        elif module in declared_products:
            product, package = declared_products[module]
            report('Package.swift: target %s does not declare %s, imported by %s — add .product(name: "%s", package: "%s") to %s\'s dependencies (or remove the import)'
                   % (name, module, where, product, package, name))
        else:
            known = checkout_products().get(module)
            folder = next((os.path.join(top, module) for top in ("Sources", "Tests", "Benchmarks") if os.path.isdir(os.path.join(top, module))), None)
            if folder:
                report('Package.swift: target %s does not declare %s, imported by %s, and its folder %s is not a target in Package.swift — add a target "%s" and "%s" to %s\'s dependencies'
                       % (name, module, where, folder, module, module, name))
            elif known:
                package, url, version = known
                report('Package.swift: target %s does not declare %s, imported by %s; %s is a product of %s, which the package reaches only through another dependency — add .package(url: "%s", from: "%s") to the package\'s dependencies and .product(name: "%s", package: "%s") to %s\'s (or remove the import)'
                       % (name, module, where, module, package, url or "…", version or "…", module, package, name))
            else:
                report("Package.swift: target %s does not declare %s, imported by %s, and %s is neither one of our targets nor a product Package.swift names — declare the product that provides it in %s's dependencies (if it is an Apple or platform module, add it to SYSTEM in scripts/check-layering.sh)"
                       % (name, module, where, module, name))

# Forbidden edges, checked against each target's dependencies as Package.swift declares them, followed
# through our other targets (a module reached through another is linked all the same). The graph is the
# one truth of what each module uses; this list names only what must never be added, and why.
libraries = {t["name"] for t, root, _ in swift_targets if t["type"] == "regular" and root.startswith("Sources" + os.sep)}
executables = {t["name"] for t in targets if t["type"] == "executable"}
test_support = {"MemoraTesting", "MemoraSyncTesting"}
ANY = libraries | executables
FORBIDDEN = [
    ({"MemoraSystem"}, ANY, "the system layer is the bottom: it imports none of our modules"),
    ({"ImageKit", "MetadataKit", "MemoraDatabase", "MemoraHTTP"}, ANY - {"MemoraSystem"},
     "a leaf library stands alone on the system layer: its users link nothing else of ours"),
    ({"VaultCrypto"}, ANY - {"MemoraSystem", "MemoraDatabase"}, "the vault needs only the system layer and its catalogue's database"),
    ({"PhotoVisionCore"}, {"PhotoVision", "MetadataKit", "MemoraDatabase", "VaultCrypto"},
     "what every vision engine shares links no engine, no metadata and no database"),
    ({"PhotoIndex"}, {"PhotoVision", "VaultCrypto", "MemoraHTTP"},
     "the index builds on PhotoVisionCore (no model engine), holds no keys and calls no server"),
    ({"MemoraSync"}, {"MemoraServer", "MemoraHub", "MemoraCore", "PhotoVision", "PhotoIndex"},
     "a device's sync client links no server, no hub and no vision"),
    ({"MemoraHub"}, {"PhotoVision", "MemoraServer", "MemoraCore"},
     "the hub's wire types are shared with the server, which must not link dlib; the face analyser is injected"),
    ({"MemoraServer"}, {"MemoraCore", "PhotoVision", "PhotoIndex", "MemoraPinning", "VaultCrypto"},
     "the server links no vision engine, no caption job and no client-side pinning"),
    (libraries - test_support - {"MemoraDemo"}, test_support | {"MemoraDemo"},
     "a library never links test support or the demo"),
    (libraries - test_support - {"MemoraDemo", "MemoraCore"}, {"MemoraCore"},
     "MemoraCore composes the libraries: only the front ends, the demo and MemoraTesting build on it"),
    (libraries, executables, "nothing links a front end"),
]


@functools.lru_cache(maxsize=None)
def reach(name):
    """Our targets `name` depends on, directly or through others."""
    out = set()
    for d in dependencies(by_name[name]):
        if d[2] == "target" and d[1] in by_name and d[1] != name:
            out.add(d[1])
            out |= reach(d[1])
    return frozenset(out)


for sources, banned, reason in FORBIDDEN:
    for source in sorted(sources & set(by_name)):
        direct = {d[1] for d in dependencies(by_name[source]) if d[2] == "target"}
        for target in sorted(reach(source) & banned - {source}):
            via = "" if target in direct else " (through %s)" % ", ".join(sorted(d for d in direct if target in reach(d)))
            report("Package.swift: %s depends on %s%s, a forbidden edge: %s" % (source, target, via, reason))

for name, root in missing:
    report("Package.swift: target %s has no folder %s — create it or give the target its path" % (name, root))

# Folders of Swift files that no target builds: their imports would go unchecked (and uncompiled).
roots = {os.path.normpath(target_dir(t)) for t in targets}
for top in ("Sources", "Tests", "Benchmarks"):
    for d in sorted(os.listdir(top)) if os.path.isdir(top) else []:
        folder = os.path.join(top, d)
        if os.path.isdir(folder) and folder not in roots and any(n.endswith(".swift") for _, _, ns in os.walk(folder) for n in ns):
            report("%s holds Swift files but no target in Package.swift has that path — add a target for it (or move the files into one)" % folder)

# The lists at the top of this script must name every module of the graph, or its rules skip it.
listed_ours, listed_c = set(sys.argv[3].split()), set(sys.argv[4].split())
for t, root, _ in swift_targets:
    if t["type"] == "regular" and root.startswith("Sources" + os.sep) and t["name"] not in listed_ours:
        report("scripts/check-layering.sh: the library target %s is not in the ours list — add it there, and to FORBIDDEN what it must never depend on" % t["name"])
for t in targets:
    if (t["type"] == "system" or (t["type"] == "regular" and t["name"] not in swift_names and os.path.isdir(target_dir(t)))) and t["name"] not in listed_c:
        report("scripts/check-layering.sh: the C target %s is not in the c_modules list — add it there (one Swift file may import it)" % t["name"])

# Docs/Architecture.md's generated module table.
if not span:
    report("%s has no module table between %s and %s — add the two markers below the Modules table and run scripts/check-layering.sh --write-table"
           % (DOC, BEGIN, END))
elif span.group(1).strip() != table():
    diff = difflib.unified_diff(span.group(1).strip().splitlines(), table().splitlines(), DOC, "Package.swift (dump-package)", lineterm="", n=0)
    report("%s: the module table between %s and %s does not match Package.swift — run scripts/check-layering.sh --write-table (or paste the output of --print-table):\n%s"
           % (DOC, BEGIN, END, "\n".join("  " + l for l in diff)))

for p in problems:
    print(p, file=sys.stderr)
print("%d %d" % (len(problems), sum(len(f) for _, _, f in swift_targets)))
PY
}

if [ "$mode" != check ]; then
  read_graph
  check_graph "$mode" "$dump_file" "${ours[*]}" "${c_modules[*]}"
  exit 0
fi

failures=0
# Every import statement: "path:module", including `@testable`, access-level and
# `import struct X.Y` forms.
imports=$(grep -rEn --include='*.swift' \
  '^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*((public|package|internal|fileprivate|private)[[:space:]]+)?import[[:space:]]+((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?[A-Za-z_][A-Za-z0-9_]*' \
  Sources Benchmarks | sed -E 's/^([^:]+):[0-9]+:.*import[[:space:]]+((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*).*/\1:\4/')

for c in "${c_modules[@]}"; do
  importers=$(echo "$imports" | awk -F: -v m="$c" '$2 == m { print $1 }' | sort -u)
  count=$(echo -n "$importers" | grep -c . || true)
  if [ "$count" -gt 1 ]; then
    echo "layering: $c is imported by $count files (only one may wrap it):" >&2
    echo "$importers" | sed 's/^/  /' >&2
    failures=$((failures + 1))
  fi
done

# One HTTP transport: only MemoraHTTP imports FoundationNetworking (URLSession on Linux).
while IFS=: read -r file module; do
  [ -n "$file" ] || continue
  case "$file" in Sources/MemoraHTTP/*) continue ;; esac
  if [ "$module" = "FoundationNetworking" ]; then
    echo "layering: $file imports FoundationNetworking; HTTP goes through MemoraHTTP's one transport (Docs/Architecture.md)" >&2
    failures=$((failures + 1))
  fi
done <<< "$imports"

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

# The package graph against the imports, and Docs/Architecture.md's module table against the graph.
graph_files=0
if read_graph; then
  if graph_out=$(check_graph check "$dump_file" "${ours[*]}" "${c_modules[*]}"); then
    read -r graph_failures graph_files <<< "$graph_out"
    failures=$((failures + graph_failures))
  else
    echo "layering: the package graph check itself failed (above)" >&2
    failures=$((failures + 1))
  fi
else
  failures=$((failures + 1))
fi

if [ "$failures" -gt 0 ]; then
  echo "layering: $failures violation(s); see Docs/Architecture.md" >&2
  exit 1
fi
echo "layering: OK ($(echo "$imports" | grep -c .) import lines checked; the imports of $graph_files Swift files checked against Package.swift)"
