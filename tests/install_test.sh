#!/usr/bin/env bash
# `cmake --install` gives a superopt that runs on its own: the prefix is copied
# elsewhere and run from a folder outside the repository, and it must read its
# data and axioms from the copy (a device profile and a broken axiom file that
# exist only there show it), never from the source tree it was built from (a
# copy without share/ must fail naming the paths it tried), and the variables
# still override. Then `optimize` with the installed rules and `verify` of a
# small database made with the installed operator set. Where the build made the
# Python package, the moved copy imports and optimizes with the moved data too.
#   install_test.sh CMAKE BUILD_DIR
set -euo pipefail
cmake=$1 build=$2
test_name=install_test
. "$(dirname "$0")/temp_work.sh"
unset SUPEROPT_DATA_DIR SUPEROPT_AXIOM_DIR
"$cmake" --install "$build" --prefix "$work/prefix" >/dev/null
share=share/superopt
for f in bin/superopt $share/data/rules/taso-3.h5 $share/data/opsets/taso.json $share/data/devices/h100.json \
  $share/data/costs/cpu-amd-1t.h5 $share/axioms/taso.ax $share/slurm/build-rules.sbatch $share/scripts/local-slurm.sh; do
  [ -e "$work/prefix/$f" ] || fail "the install has no $f"
done

# The GPU backend (a CUDA build): installed in lib/superopt/ and, once moved, loaded from there.
gpu_backend=
[ -e "$build/libsuperopt_gpu.so" ] && gpu_backend=lib/superopt/libsuperopt_gpu.so
[ -z "$gpu_backend" ] || [ -e "$work/prefix/$gpu_backend" ] || fail "the install has no $gpu_backend"

# The prefix moved: nothing in it may point back at the build or the source.
cp -a "$work/prefix" "$work/moved"
rm -rf "$work/prefix"
so=$work/moved/bin/superopt
mkdir "$work/elsewhere" && cd "$work/elsewhere"

if [ -n "$gpu_backend" ]; then
  LD_DEBUG=files "$so" version >version.out 2>&1 || fail "version: $(tail -n 1 version.out)"
  grep -q "file=$work/moved/$gpu_backend " version.out ||
    fail "the moved binary did not load the moved GPU backend: $(grep -o 'file=[^ ]*libsuperopt_gpu[^ ]*' version.out)"
fi

# A device profile only the installed data has.
sed 's/"name": "h100"/"name": "installed_only"/' "$work/moved/$share/data/devices/h100.json" \
  >"$work/moved/$share/data/devices/installed_only.json"
"$so" graph check builtin:squeezenet --cost analytic:installed_only >check.out 2>&1 ||
  fail "the installed binary does not read its installed data: $(tail -n 1 check.out)"

# 20 s, scaled as every test's limits are (10x in the sanitizer build, where loading
# and the check alone took 20 s on a loaded machine).
"$so" optimize builtin:squeezenet --rules "$work/moved/$share/data/rules/taso-3.h5" \
  --time-limit $((20 * ${SUPEROPT_TEST_TIME_SCALE:-1})) \
  --out squeezenet.opt.json --json >optimize.json || fail "optimize: $(cat optimize.json)"
/usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["check"]["passed"], r' \
  optimize.json || fail "optimize's result: $(cat optimize.json)"
[ -s squeezenet.opt.json ] || fail "optimize wrote no graph"

# enumerate's default operator set and verify's default axioms come from the install.
"$so" enumerate --max-ops 2 --out small.h5 >enumerate.out 2>&1 || fail "enumerate: $(tail -n 1 enumerate.out)"
"$so" verify small.h5 >verify.out 2>&1 || fail "verify: $(tail -n 1 verify.out)"
grep -q "verified" verify.out || fail "verify printed: $(cat verify.out)"
"$so" db info small.h5 | grep -q verified || fail "db info shows no verified rule"

# A broken axiom file only in the install: verify must name it.
cp -a "$work/moved" "$work/broken"
echo 'axiom nonsense ((' >>"$work/broken/$share/axioms/taso.ax"
set +e
"$work/broken/bin/superopt" verify small.h5 --redecide >broken.out 2>&1
rc=$?
set -e
[ $rc = 2 ] && grep -q "$work/broken/$share/axioms/taso.ax" broken.out ||
  fail "verify with a broken installed axiom file: exit $rc, $(tail -n 1 broken.out)"

# Without share/ the binary must not fall back to the source tree.
mkdir -p "$work/bare/bin" && cp "$so" "$work/bare/bin/"
for command in "verify small.h5" "enumerate --max-ops 1 --out bare.h5" "graph check builtin:squeezenet --cost analytic:h100"; do
  set +e
  # shellcheck disable=SC2086  # the command's words
  "$work/bare/bin/superopt" $command >bare.out 2>&1
  rc=$?
  set -e
  [ $rc = 2 ] && [ "$(wc -l <bare.out)" = 1 ] && grep -q "no data folder: tried $work/bare/$share/" bare.out ||
    fail "'$command' without share/: exit $rc, $(cat bare.out)"
done

# The variables override the install layout.
mkdir -p "$work/mine/devices"
sed 's/"name": "h100"/"name": "mine_only"/' "$work/moved/$share/data/devices/h100.json" >"$work/mine/devices/mine_only.json"
SUPEROPT_DATA_DIR=$work/mine "$so" graph check builtin:squeezenet --cost analytic:mine_only >/dev/null ||
  fail "\$SUPEROPT_DATA_DIR is not used"
set +e
SUPEROPT_AXIOM_DIR=$work/nowhere "$so" verify small.h5 >axioms.out 2>&1
rc=$?
set -e
[ $rc = 2 ] && grep -q "SUPEROPT_AXIOM_DIR=$work/nowhere" axioms.out || fail "\$SUPEROPT_AXIOM_DIR=nowhere: $(cat axioms.out)"
# The Python package (python/), when built: installed under the prefix, it
# reads the moved prefix's data, never the build or source tree's.
if ls "$build"/python/superopt/_superopt*.so >/dev/null 2>&1; then
  pydir=$(sed -n 's/^SUPEROPT_PYTHON_INSTALL_DIR:STRING=//p' "$build/CMakeCache.txt")
  [ -e "$work/moved/$pydir/superopt/__init__.py" ] || fail "the install has no $pydir/superopt"
  PYTHONPATH=$work/moved/$pydir /usr/bin/python3 - "$work/moved" >python.out 2>&1 <<'PY' || fail "the installed package: $(tail -n 3 python.out)"
import os, sys
import superopt
moved = sys.argv[1]
assert superopt.__file__.startswith(moved + "/"), superopt.__file__
assert superopt.data_dir() == os.path.join(moved, "share/superopt/data"), superopt.data_dir()
r = superopt.optimize("builtin:squeezenet", time_limit=20)
assert r.check["passed"] and r.cost_after_ms <= r.cost_before_ms, r
PY
  # Asked for a GPU, the moved package loads the moved GPU backend (lib/superopt/, found from the
  # extension's own folder), whether or not this machine has a device.
  if [ -n "$gpu_backend" ]; then
    PYTHONPATH=$work/moved/$pydir LD_DEBUG=files /usr/bin/python3 -c '
import superopt
try:
    superopt.run(superopt.load("builtin:squeezenet"), device="cuda", repeat=1)
except superopt.Error as e:
    print("no device:", e)
' >python-gpu.out 2>&1 || fail "the installed package asked for a GPU: $(tail -n 1 python-gpu.out)"
    grep -q "file=$work/moved/$gpu_backend " python-gpu.out ||
      fail "the moved package did not load the moved GPU backend: $(grep -o 'file=[^ ]*libsuperopt_gpu[^ ]*' python-gpu.out | head -n 1)"
  fi
fi
echo "install_test: ok"
