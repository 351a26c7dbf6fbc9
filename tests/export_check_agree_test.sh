#!/bin/bash
# Export refuses what check refuses (issue 37, item 9): ONNX import takes an
# input of 65536x65536x65536 (2^48 elements), and `graph export` wrote it to a
# graph file that `graph check` then refused (graph files hold at most 2^40
# elements a tensor). Now the export to JSON is refused in one line, exit 2,
# nothing written; the export to ONNX, which check reads back, still works.
#   export_check_agree_test.sh SUPEROPT
set -u
bin=$1
test_name=export_check_agree_test
. "$(dirname "$0")/temp_work.sh"
cd "$work" || exit 1

/usr/bin/python3 -c '
import onnx
from onnx import helper, TensorProto
dims = [65536, 65536, 65536]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, dims)
graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "cube", [x], [y])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), "cube.onnx")
' || fail "the generator"
"$bin" graph check cube.onnx >/dev/null 2>err.txt || fail "check of the ONNX model: exit $?: $(cat err.txt)"

status=0
"$bin" graph export cube.onnx --out cube.json >out.txt 2>err.txt || status=$?
echo "export to JSON: exit $status: $(cat err.txt)"
if [ $status = 0 ]; then
  "$bin" graph check cube.json >/dev/null 2>check.txt && echo "graph check accepts it too" ||
    fail "export wrote cube.json, which graph check refuses: $(cat check.txt)"
else
  [ $status = 2 ] || fail "export: exit $status, not 2"
  [ "$(wc -l <err.txt)" = 1 ] || fail "export: not one line: $(cat err.txt)"
  grep -q "tensor 'x' of shape 65536x65536x65536: more than 2^40 elements" err.txt || fail "export: $(cat err.txt)"
  [ ! -e cube.json ] || fail "export: cube.json written"
fi

"$bin" graph export cube.onnx --out again.onnx >/dev/null 2>err.txt || fail "export to ONNX: exit $?: $(cat err.txt)"
"$bin" graph check again.onnx >/dev/null 2>err.txt || fail "the exported ONNX model is refused: $(cat err.txt)"
echo "export_check_agree_test: ok"
