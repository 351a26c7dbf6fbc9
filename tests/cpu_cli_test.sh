#!/bin/sh
# The CPU backend's commands end to end: `run --device cpu --check`, `measure
# --device cpu` into a table that `graph check` and `optimize --cost table:` read
# (no fallbacks), `optimize --cost cpu`, `--cost cpu:1@TABLE`, a table of another CPU reported, and
# bad input (unknown device, threads 0 or above the cores, a GPU table to
# append to, `run` without a device) answered with one line and exit 2.
#   cpu_cli_test.sh SUPEROPT RULES_DB GRAPH_FILE GPU_TABLE SCRATCH_DIR
set -u
bin=$1 rules=$2 graph=$3 gpu_table=$4 dir=$5
mkdir -p "$dir" || exit 1
fail() { echo "cpu_cli_test: FAIL: $*"; exit 1; }

"$bin" run builtin:squeezenet --device cpu --check --op-sum --repeat 3 --warmup 1 --json >"$dir/run.json" ||
  fail "run --device cpu --check"
grep -q '"passed": true' "$dir/run.json" || fail "run --check did not pass: $(cat "$dir/run.json")"
grep -q '"op_sum_ms"' "$dir/run.json" || fail "run --op-sum printed no op_sum_ms"
"$bin" run builtin:nasrnn --device cpu --threads 1 --repeat 2 | grep -q "1 threads" || fail "run --threads 1"
"$bin" run builtin:nasrnn --device cpu --threads 1 --repeat 2 --json | grep -q '"thread_trial"' &&
  fail "run --threads 1 tried thread counts"
# Without --threads: 1 and every core tried, the faster run (one core: no trial).
"$bin" run builtin:nasrnn --device cpu --repeat 2 --json >"$dir/threads.json" || fail "run without --threads"
/usr/bin/python3 - "$dir/threads.json" "$(nproc)" <<'PY' || fail "run's thread choice: $(cat "$dir/threads.json")"
import json, sys
r, cores = json.load(open(sys.argv[1])), int(sys.argv[2])
trial = r.get("thread_trial", [])
assert sorted(t["threads"] for t in trial) == ([1, cores] if cores > 1 else []), trial
if trial:
    assert r["threads"] == min(trial, key=lambda t: t["median_ms"])["threads"], (r["threads"], trial)
    assert f"{r['threads']} threads" in r["device"], r["device"]
PY

rm -f "$dir/cpu.h5"
"$bin" measure builtin:squeezenet "$graph" --device cpu --threads 1 --out "$dir/cpu.h5" --repeat 3 --warmup 1 \
  >"$dir/measure.txt" || fail "measure --device cpu"
grep -q "onednn:conv" "$dir/measure.txt" || fail "measure printed no oneDNN convolution"
"$bin" measure builtin:squeezenet --device cpu --threads 1 --out "$dir/cpu.h5" --repeat 3 |
  grep -q '^measured 0 new signatures' || fail "measure did not skip signatures already in the table"
"$bin" graph check builtin:squeezenet --cost "table:$dir/cpu.h5" --json 2>"$dir/check.err" |
  grep -q '"cost_fallbacks": 0' || fail "the measured table does not cover squeezenet"
"$bin" optimize "$graph" --rules "$rules" --allow-unverified --budget 20 --cost "table:$dir/cpu.h5" \
  --out "$dir/opt.json" >/dev/null 2>&1 || fail "optimize --cost table:CPU_TABLE"
"$bin" optimize "$graph" --rules "$rules" --allow-unverified --budget 20 --cost cpu:1 >/dev/null ||
  fail "optimize --cost cpu:1"
"$bin" graph check builtin:squeezenet --cost "cpu:1@$dir/cpu.h5" | grep -q "fallbacks: *0" ||
  fail "--cost cpu:1@TABLE (the live model started from the table)"

# A table measured on another CPU and oneDNN: used, and said so on stderr.
/usr/bin/python3 - "$dir/cpu.h5" "$dir/other.h5" <<'PY' || fail "could not write the foreign table"
import h5py, shutil, sys
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    f.attrs["device"] = "Some Other CPU"
    f.attrs["onednn"] = "9.9.9"
PY
"$bin" graph check builtin:squeezenet --cost "table:$dir/other.h5" >/dev/null 2>"$dir/other.err" ||
  fail "graph check with another machine's table"
grep -q "measured with another CPU 'Some Other CPU'.*oneDNN '9.9.9'" "$dir/other.err" ||
  fail "another machine's table was not reported: $(cat "$dir/other.err")"

expect_usage() {
  regex=$1
  shift
  "$@" >"$dir/out.txt" 2>"$dir/err.txt"
  code=$?
  [ "$code" -eq 2 ] || fail "$* exited $code, expected 2"
  [ "$(wc -l <"$dir/err.txt")" -eq 1 ] || fail "$*: stderr is not one line: $(cat "$dir/err.txt")"
  grep -Eq -e "$regex" "$dir/err.txt" || fail "$*: stderr does not match $regex: $(cat "$dir/err.txt")"
  cat "$dir/err.txt"
}
expect_usage "unknown device 'tpu'" "$bin" run builtin:squeezenet --device tpu
expect_usage "unknown device 'tpu'" "$bin" measure builtin:squeezenet --device tpu --out "$dir/x.h5"
expect_usage "--threads: expected an integer from 1 to" "$bin" run builtin:squeezenet --device cpu --threads 0
expect_usage "--threads 100000 is not between 1" "$bin" run builtin:squeezenet --device cpu --threads 100000
expect_usage "--threads: expected an integer from 1 to" "$bin" measure builtin:squeezenet --device cpu --threads 0
expect_usage "is a cuda cost table, this device is cpu" \
  "$bin" measure builtin:squeezenet --device cpu --out "$gpu_table"
expect_usage "threads must be a positive integer" "$bin" graph check builtin:squeezenet --cost cpu:0
expect_usage "not as this model measures" "$bin" graph check builtin:squeezenet --cost "cpu:1@$gpu_table"
expect_usage "--device cpu.cuda is required" "$bin" run builtin:squeezenet
[ ! -e "$dir/x.h5" ] || fail "measure wrote a table for an unknown device"
echo "cpu_cli_test: ok"
