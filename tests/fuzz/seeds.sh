#!/usr/bin/env bash
# Assembles the seed corpus of each fuzz harness, one folder per harness:
#   seeds.sh SOURCE_DIR BUILD_DIR OUT_DIR
# Text formats take their files from data/ and tests/data/ (malformed ones
# included); the HDF5 formats the content (h5_to_fuzz_json.py) of the small
# files the tests' fixture programs write (BUILD_DIR/tests/make_*_fixture) and
# of data/costs/, not the 10 MB shipped database; ONNX the small test models;
# the command line tests/fuzz/cli_seeds/.
set -euo pipefail
src=$1 build=$2 out=$3
rm -rf "$out"
mkdir -p "$out"/{graph_json,opset,axioms,rule_database,cost_table,device_profile,onnx,cli}
cp "$src"/data/graphs/*.json "$src"/tests/data/*.json "$src"/tests/data/malformed/*.json \
   "$src"/tests/data/search/*.json "$src"/tests/data/torch/*.json "$out/graph_json/"
cp "$src"/data/opsets/*.json "$src"/tests/data/opsets/*.json "$out/opset/"
cp "$src"/verify/axioms/*.ax "$src"/tests/data/axioms/*.ax "$out/axioms/"
# 64-bit dimensions and strides (issue 37, item 5); the ONNX ones are in tests/data/malformed/.
cp "$src"/tests/fuzz/wide_seeds/*.json "$out/graph_json/"
cp "$src"/tests/fuzz/wide_seeds/*.ax "$out/axioms/"
# The HDF5 harnesses read a file's content as JSON (hdf5_from_json.h).
h5_seed() { /usr/bin/python3 "$src/tests/fuzz/h5_to_fuzz_json.py" "$1" >"$2"; }
"$build"/tests/make_rule_fixture "$out/fixture_rules.h5"
"$build"/tests/make_bad_rule_fixture "$out/bad_rules.h5"
"$build"/tests/make_cost_fixture "$out/fixture_costs.h5"
h5_seed "$out/fixture_rules.h5" "$out/rule_database/fixture.json"
# 64-bit values where 32-bit ones go (issue 37, item 5): an output mapping and a
# dimension of a rule's source graph.
sed 's/"0:0,1:1"/"4294967296:0,1:1"/' "$out/rule_database/fixture.json" >"$out/rule_database/mapping_2p32.json"
sed 's/\[4, 8\]/[4, 4294967300]/' "$out/rule_database/fixture.json" >"$out/rule_database/dim_2p32.json"
h5_seed "$out/bad_rules.h5" "$out/rule_database/bad_rules.json"
h5_seed "$out/fixture_costs.h5" "$out/cost_table/fixture.json"
h5_seed "$src/data/costs/cpu-amd-1t.h5" "$out/cost_table/cpu-amd-1t.json"
rm "$out"/*.h5
cp "$src"/data/devices/*.json "$out/device_profile/"
cp "$src"/tests/data/onnx/*.onnx "$src"/tests/data/malformed/*.onnx "$src"/tests/fuzz/external_seeds/*.onnx "$out/onnx/"
cp "$src"/tests/fuzz/cli_seeds/* "$out/cli/"
echo "fuzz seeds: $(find "$out" -type f | wc -l) files in $out"
