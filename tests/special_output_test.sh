#!/bin/bash
# --out that is not a regular file (issue 37, item 3), through the command line:
# a FIFO is written in place to its reader, a FIFO without a reader is refused
# at once, a character device (our own node, a copy of /dev/null's 1,3; skipped
# without root) stays a device, a read-only file and a directory are refused
# with one line, exit 2, and left as they were. Never the system's /dev/null.
#   special_output_test.sh SUPEROPT GRAPH WORKDIR
set -u
bin=$1
graph=$2
dir=$3
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
fail() { echo "special_output_test: FAIL: $*"; exit 1; }
export_to() { timeout 20 "$bin" graph export "$graph" --out "$1" >out.txt 2>err.txt; }

mkfifo out.fifo
timeout 20 cat out.fifo >got.json &
reader=$!
sleep 0.5  # the reader's open() must come first, or the FIFO has no reader yet
export_to out.fifo || fail "FIFO with a reader: exit $?: $(cat err.txt)"
wait "$reader"
[ -p out.fifo ] || fail "the FIFO was replaced"
grep -q '"format": "superopt-graph"' got.json || fail "the reader got no graph: $(head -c 200 got.json)"

# refused PATH REGEX: exit 2, one line matching REGEX.
refused() {
  export_to "$1"
  local code=$?
  [ "$code" = 2 ] || fail "$1: exit $code, not 2: $(cat err.txt)"
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "$1: the error is not one line: $(cat err.txt)"
  grep -Eq "$2" err.txt || fail "$1: unexpected message: $(cat err.txt)"
  echo "ok: $(cat err.txt)"
}
refused out.fifo "cannot write out\.fifo: a FIFO with no reader$"
[ -p out.fifo ] || fail "the FIFO without a reader was replaced"
echo old >readonly.json
chmod 0444 readonly.json
refused readonly.json "cannot write readonly\.json: the file is read-only \(mode 0444\), not replaced$"
[ "$(cat readonly.json)" = old ] || fail "the read-only file was replaced"
mkdir folder
refused folder "cannot write folder: Is a directory$"
[ -d folder ] || fail "the directory was replaced"

if mknod null c 1 3 2>/dev/null; then
  export_to null || fail "device: exit $?: $(cat err.txt)"
  [ -c null ] || fail "the character device was replaced by a regular file"
else
  echo "skipped the character device (mknod needs root)"
fi
ls | grep -q "\.tmp" && fail "a temporary file was left: $(ls)"
echo "special_output_test: ok"
