"""Writes the fuzz seeds for inputs that name other files (issue 37, items 1
and 2) into tests/fuzz/external_seeds/, deterministically:
    make_external_seeds.py RULES COSTS
RULES is the tests' small rule database (build/tests/fixture_rules.h5), COSTS
data/costs/cpu-amd-1t.h5. The seeds name only files that do not exist or the
seed itself, never a system file:
  onnx_external_absolute.onnx  external data at '/etc/passwd' (refused from the text)
  onnx_external_self.onnx      external data in the model file itself (inside its folder: read)
  rules_external_storage.h5    /rules/note kept in 'note.bin' (HDF5 external storage)
  rules_external_link.h5       /rules/note an external link to 'other.h5'
  costs_external_storage.h5    /cost_ms kept in 'costs.bin' (HDF5 external storage)
Run with /usr/bin/python3 (onnx, h5py, numpy)."""
import os
import shutil
import sys

import h5py
import numpy as np
from onnx import TensorProto, helper, save

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "external_seeds")
rules, costs = (os.path.abspath(p) for p in sys.argv[1:3])
os.makedirs(HERE, exist_ok=True)
os.chdir(HERE)


def onnx_seed(name, location):
    w = helper.make_tensor("w", TensorProto.FLOAT, [3, 3], np.zeros(9, np.float32).tobytes(), raw=True)
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    entry = w.external_data.add()
    entry.key, entry.value = "location", location
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "external",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), name)


onnx_seed("onnx_external_absolute.onnx", "/etc/passwd")
onnx_seed("onnx_external_self.onnx", "onnx_external_self.onnx")


def h5_seed(source, name, change):
    shutil.copyfile(source, name)
    with h5py.File(name, "r+") as f:
        change(f)


def note_external(f):
    rows = f["rules/note"].shape[0]
    del f["rules/note"]
    f.create_dataset("rules/note", (rows,), dtype="S64", external=[("note.bin", 0, h5py.h5f.UNLIMITED)])


def note_link(f):
    del f["rules/note"]
    f["rules/note"] = h5py.ExternalLink("other.h5", "/note")


def costs_external(f):
    n = f["cost_ms"].shape[0]
    del f["cost_ms"]
    f.create_dataset("cost_ms", (n,), dtype="<f8", external=[("costs.bin", 0, h5py.h5f.UNLIMITED)])


h5_seed(rules, "rules_external_storage.h5", note_external)
h5_seed(rules, "rules_external_link.h5", note_link)
h5_seed(costs, "costs_external_storage.h5", costs_external)
