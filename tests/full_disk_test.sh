#!/bin/bash
# Every output on a full disk: one line naming the file and the system's reason,
# exit 2, the file that was there byte for byte unchanged, no temporary file
# left, no crash. The disk is "full" through a file size limit (ulimit -f) with
# SIGXFSZ ignored, so writes fail with EFBIG as they would with ENOSPC, and no
# root is needed.
#   full_disk_test.sh SUPEROPT WORKDIR DATA_DIR
set -u
bin=$1
dir=$2
data=$3
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
# Open MPI's PMIx keeps its start-up store in files larger than the limits used
# here; the hash store keeps it in memory.
export PMIX_MCA_gds=hash OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "full_disk_test: FAIL: $*"; exit 1; }

# full KIB FILE COMMAND...: runs COMMAND with files limited to KIB KiB, expecting
# it to fail writing FILE, which must stay as it was.
full() {
  local limit_kib=$1 file=$2
  shift 2
  local before
  before=$(md5sum "$file" | cut -d' ' -f1)
  (trap '' XFSZ; ulimit -f "$limit_kib"; exec "$@") >out.txt 2>err.txt
  local code=$?
  [ "$code" = 2 ] || fail "$*: exit $code, not 2: $(cat err.txt)"
  # Progress lines (enumerate prints them on stderr) may come first; the error is one line.
  [ "$(grep -c '^superopt' err.txt)" -eq 1 ] || fail "$*: the error is not one line: $(cat err.txt)"
  grep -Eq "cannot write .*$file: File too large$" err.txt || fail "$*: unexpected message: $(cat err.txt)"
  [ "$(md5sum "$file" | cut -d' ' -f1)" = "$before" ] || fail "$*: $file changed"
  ls | grep -q "\.tmp" && fail "$*: a temporary file was left: $(ls)"
  echo "ok: $(cat err.txt)"
}

echo '{"old": "graph"}' >graph.json
full 1 graph.json "$bin" graph export builtin:resnet50 --out graph.json
echo 'old model' >model.onnx
full 1 model.onnx "$bin" graph export builtin:resnet50 --out model.onnx
echo '{"old": "optimized"}' >optimized.json
full 1 optimized.json "$bin" optimize builtin:squeezenet --rules "$data/rules/taso-3.h5" \
  --budget 1 --out optimized.json
echo 'old database' >rules.h5
full 20 rules.h5 "$bin" enumerate --max-ops 2 --opset "$data/opsets/small.json" --out rules.h5 --force
# verify saves the database it decides: the one on disk stays as it was.
"$bin" enumerate --max-ops 2 --opset "$data/opsets/small.json" --out rules.h5 --force >/dev/null ||
  fail "enumerate without a limit"
full 20 rules.h5 "$bin" verify rules.h5
echo "full_disk_test: ok"
