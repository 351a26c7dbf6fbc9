#!/usr/bin/env python3
# A graph file (JSON) of one long chain for the optimizer's limit tests:
#   make_chain.py OPS COUNT DIM
# COUNT operators on DIMxDIM tensors, cycling through OPS (comma-separated:
# matmul, ewadd, relu); matmul and ewadd take a weight of their own.
import json
import sys

ops, count, dim = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3])
nodes, weights, prev = [], [], "x"
for i in range(count):
    op = ops[i % len(ops)]
    inputs = [prev]
    if op != "relu":
        weights.append({"name": f"w{i}", "shape": [dim, dim]})
        inputs.append(f"w{i}")
    nodes.append({"name": f"n{i}", "op": op, "inputs": inputs})
    prev = f"n{i}"
print(json.dumps({"format": "superopt-graph", "version": 1, "inputs": [{"name": "x", "shape": [dim, dim]}],
                  "weights": weights, "nodes": nodes, "outputs": [prev]}))
