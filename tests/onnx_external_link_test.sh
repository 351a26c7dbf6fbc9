#!/bin/bash
# ONNX external data stays inside the model's folder (issue 37, item 1): a
# location that is a link out of the folder (to /etc/passwd, or to /etc with
# the file below it) is refused with one line, exit 2, and nothing written;
# a FIFO as the location is refused at once instead of hanging; a link that
# stays inside the folder and a plain weights file still read.
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

# A link inside the folder and a plain file read the same weights.
for name in inside plain; do
  "$bin" graph export "$name.onnx" --out "../$name.json" 2>err.txt || fail "$name: refused: $(cat err.txt)"
done
# From another working folder, through a relative model path.
(cd .. && "$bin" graph export model/inside.onnx --out inside2.json) 2>err.txt || fail "relative path: $(cat err.txt)"
sed 's/"name": "[a-z]*"/"name": ""/' ../inside.json >a.txt
sed 's/"name": "[a-z]*"/"name": ""/' ../plain.json >b.txt
cmp -s a.txt b.txt || fail "a link inside the folder does not read as the file it names"
echo "onnx_external_link_test: ok"
