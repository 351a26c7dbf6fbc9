"""Writes a damaged copy of a rule database, for the read checks' tests:
    make_malformed_rule_db.py FIXTURE OUT KIND
KIND output_shapes: rule 2's target reads 4x4 inputs, so its output is 4x4 where
the source's is 2x2 (a rule no match could use); KIND opset_not_json: the
'opset' attribute is not JSON; KIND mapping_overflow: rule 0's output_mapping
is 4294967296:0 (read as 0:0 when cut to 32 bits). Run with /usr/bin/python3 (h5py)."""
import json
import shutil
import sys

import h5py

fixture, out, kind = sys.argv[1:4]
shutil.copyfile(fixture, out)
with h5py.File(out, "r+") as f:
    if kind == "output_shapes":
        target = f["rules/target"]
        graph = json.loads(target[2].decode() if isinstance(target[2], bytes) else target[2])
        for source in graph["inputs"]:
            source["shape"] = [4, 4]
        target[2] = json.dumps(graph)
    elif kind == "opset_not_json":
        f.attrs["opset"] = "{\"format\": \"superopt-opset\", "
    elif kind == "mapping_overflow":
        # Variable-length strings (the reader takes them too): the fixed width is too narrow.
        mapping = [m.decode() if isinstance(m, bytes) else m for m in f["rules/output_mapping"][()]]
        mapping[0] = "4294967296:0"
        del f["rules/output_mapping"]
        f["rules"].create_dataset("output_mapping", data=mapping, dtype=h5py.string_dtype())
    else:
        sys.exit("unknown KIND " + kind)
