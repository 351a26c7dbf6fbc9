"""Writes the fuzz seeds for inputs that name other files (issue 37, items 1
and 2) into tests/fuzz/external_seeds/, deterministically:
    make_external_seeds.py [RULES COSTS]
(the ONNX seeds alone without them). RULES is the tests' small rule database
(build/tests/fixture_rules.h5), COSTS data/costs/cpu-amd-1t.h5. The seeds name
only files that do not exist, the seed itself or, through the links written
beside them, files of this repository, never a system file:
  onnx_external_absolute.onnx  external data at '/etc/passwd' (refused from the text)
  onnx_external_self.onnx      external data in the model file itself (inside its folder: read)
  onnx_external_link_inside.onnx   through link_inside, a link to that file (read)
  onnx_external_link_outside.onnx  through link_outside, a link out of the folder (refused)
  onnx_external_outside_dir.onnx   outside_dir/help.txt, below a link to another folder (refused)
  onnx_external_fifo.onnx      weights.fifo: a FIFO in onnx_fuzz's folder (refused, no hang)
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
# Links beside the model (committed here as links; onnx_fuzz.cc makes the same
# names in its model folder, and a FIFO): one inside the folder (read), one out
# of it and one through a linked folder outside (refused once resolved).
onnx_seed("onnx_external_link_inside.onnx", "link_inside")
onnx_seed("onnx_external_link_outside.onnx", "link_outside")
onnx_seed("onnx_external_outside_dir.onnx", "outside_dir/help.txt")
onnx_seed("onnx_external_fifo.onnx", "weights.fifo")
for link, target in [("link_inside", "onnx_external_self.onnx"), ("link_outside", "../cli_seeds/help.txt"),
                     ("outside_dir", "../cli_seeds")]:
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(target, link)
if len(sys.argv) < 3:  # the HDF5 seeds need the fixture files
    sys.exit(0)


rules, costs = (os.path.abspath(p) for p in sys.argv[1:3])


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
