#!/bin/bash
# ONNX external data stays inside the model's folder (issue 37, item 1): a
# location that is a link out of the folder (to /etc/passwd, or to /etc with
# the file below it) is refused with one line, exit 2, and nothing written;
# a FIFO as the location is refused at once instead of hanging, and so is a
# FIFO or /dev/zero as the model itself; a link that stays inside the folder
# and a plain weights file still read.
#   onnx_external_link_test.sh SUPEROPT WORKDIR
set -u
bin=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir/model"
cd "$dir/model" || exit 1
fail() { echo "onnx_external_link_test: FAIL: $*"; exit 1; }

# One MatMul model per location, each reading a 3x3 float weight (36 bytes).
/usr/bin/python3 - <<'PY' || fail "cannot write the fixtures"
import numpy as np
from onnx import TensorProto, helper, save
for name, location in [("passwd", "link_passwd"), ("etcdir", "etcdir/passwd"), ("fifo", "weights.fifo"),
                       ("inside", "link_inside"), ("plain", "weights.bin")]:
    w = helper.make_tensor("w", TensorProto.FLOAT, [3, 3], np.zeros(9, np.float32).tobytes(), raw=True)
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    entry = w.external_data.add()
    entry.key, entry.value = "location", location
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], name,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), name + ".onnx")
with open("weights.bin", "wb") as f:
    f.write(np.arange(9, dtype=np.float32).tobytes())
PY
ln -s /etc/passwd link_passwd
ln -s /etc etcdir
ln -s weights.bin link_inside
mkfifo weights.fifo

# refused NAME REGEX: export exits 2 within 20 s with one line matching REGEX.
refused() {
  local name=$1 regex=$2
  timeout 20 "$bin" graph export "$name.onnx" --out "../$name.out.onnx" >out.txt 2>err.txt
  local code=$?
  [ "$code" = 124 ] && fail "$name: hung (killed after 20 s)"
  [ "$code" = 2 ] || fail "$name: exit $code, not 2: $(cat err.txt)"
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "$name: the error is not one line: $(cat err.txt)"
  grep -Eq "$regex" err.txt || fail "$name: unexpected message: $(cat err.txt)"
  [ -e "../$name.out.onnx" ] && fail "$name: an output was written"
  echo "ok: $(cat err.txt)"
}
refused passwd "external data location 'link_passwd' leaves the model's folder \(it resolves to /etc/passwd\)$"
refused etcdir "external data location 'etcdir/passwd' leaves the model's folder \(it resolves to /etc/passwd\)$"
refused fifo "external data location 'weights.fifo' is not a regular file$"

# The model itself (item 7): a FIFO or /dev/zero as the .onnx path is one line, exit 2, at once.
mkfifo model.fifo.onnx
ln -s /dev/zero zero.onnx
refused model.fifo "cannot open model\.fifo\.onnx: not a regular file \(a FIFO\)$"
refused zero "cannot open zero\.onnx: not a regular file \(a character device\)$"

# A link inside the folder and a plain file read the same weights.
for name in inside plain; do
  "$bin" graph export "$name.onnx" --out "../$name.json" 2>err.txt || fail "$name: refused: $(cat err.txt)"
done
# From another working folder, through a relative model path.
(cd .. && "$bin" graph export model/inside.onnx --out inside2.json) 2>err.txt || fail "relative path: $(cat err.txt)"
sed 's/"name": "[a-z]*"/"name": ""/' ../inside.json >a.txt
sed 's/"name": "[a-z]*"/"name": ""/' ../plain.json >b.txt
cmp -s a.txt b.txt || fail "a link inside the folder does not read as the file it names"
# Every tensor external, a Constant node's value and Reshape's shape included
# (onnx.save_model with size_threshold=0, convert_attribute=True): imports from
# another folder (the Constant's data was looked for in the working folder) and
# computes what the model with inline data computes.
/usr/bin/python3 - <<'PY' || fail "cannot write the all-external fixture"
import os
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
nodes = [helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.full((3, 2), 0.5, np.float32))),
         helper.make_node("Reshape", ["x", "shape"], ["r"]), helper.make_node("MatMul", ["r", "c"], ["y"])]
inits = [numpy_helper.from_array(np.array([2, 3], np.int64), "shape")]
graph = helper.make_graph(nodes, "all_external", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.save_model(model, "inline.onnx")
os.makedirs("all_external", exist_ok=True)
onnx.save_model(model, "all_external/model.onnx", save_as_external_data=True, all_tensors_to_one_file=True,
                location="data.bin", size_threshold=0, convert_attribute=True)
m = onnx.load("all_external/model.onnx", load_external_data=False)
assert m.graph.initializer[0].data_location == TensorProto.EXTERNAL
assert m.graph.node[0].attribute[0].t.data_location == TensorProto.EXTERNAL
PY
"$bin" graph run all_external/model.onnx --seed 3 >external_run.txt 2>err.txt || fail "all external: refused: $(cat err.txt)"
"$bin" graph run inline.onnx --seed 3 >inline_run.txt 2>err.txt || fail "inline: refused: $(cat err.txt)"
grep -q "total checksum" inline_run.txt || fail "no checksum: $(cat inline_run.txt)"
[ "$(grep 'total checksum' external_run.txt)" = "$(grep 'total checksum' inline_run.txt)" ] ||
  fail "all external computes another checksum than inline"
echo "ok: every tensor external reads as inline"
echo "onnx_external_link_test: ok"
