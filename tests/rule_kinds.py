"""Checks that a rule database covers every kind of rule the papers describe.

usage: rule_kinds.py RULES.h5   (run by CTest on the taso opset at 3 operators)
Each kind is recognised from the operators on the two sides of a rule; the
script prints the count of each and fails if any kind has none.
"""
import json
import sys

import h5py


def ops(graph_json):
    return [(n["op"], n.get("params", {})) for n in json.loads(graph_json)["nodes"]]


def has(side, op, **params):
    return any(o == op and all(p.get(k) == v for k, v in params.items()) for o, p in side)


def names(side):
    return {o for o, _ in side}


def kinds_of(a, b):
    """The kinds of one rule, trying both directions."""
    found = set()
    for x, y in ((a, b), (b, a)):
        nx, ny = names(x), names(y)
        if nx == ny == {"matmul"} and len(x) == len(y) == 2:
            found.add("matmul associativity")
        if {"ewadd"} <= nx and {"ewadd"} <= ny and len(nx | ny) == 2 and len(x) != len(y):
            found.add("distributivity")
        if {"concat", "split"} <= nx and len(ny & {"matmul", "conv2d"}) == 1 and not ny & {"concat", "split"}:
            op = (ny & {"matmul", "conv2d"}).pop()
            if sum(o == op for o, _ in y) == 2 and sum(o == op for o, _ in x) == 1:
                found.add("fusing two %ss through concat and split" % op)
        if has(x, "conv2d", activation="relu") and has(y, "relu") and has(y, "conv2d", activation="none"):
            found.add("conv+relu fusion")
        if {"enlarge", "conv2d"} <= nx and sum(o == "conv2d" for o, _ in x) < sum(o == "conv2d" for o, _ in y):
            found.add("enlarging a kernel to merge convolutions")
        if sorted(o for o, _ in x) == ["conv2d", "merge_groups"] and [o for o, _ in y] == ["conv2d"]:
            found.add("merging the groups of a grouped convolution")
        if {"C_pool", "conv2d"} <= nx and "pool_avg" in ny:
            found.add("average pooling as a convolution with C_pool")
    return found


def main():
    with h5py.File(sys.argv[1], "r") as f:
        sources, targets = f["rules/source"][:], f["rules/target"][:]
    counts = {k: 0 for k in [
        "matmul associativity", "distributivity", "fusing two matmuls through concat and split",
        "fusing two conv2ds through concat and split", "conv+relu fusion",
        "enlarging a kernel to merge convolutions", "average pooling as a convolution with C_pool",
        "merging the groups of a grouped convolution"]}
    for s, t in zip(sources, targets):
        for kind in kinds_of(ops(s), ops(t)):
            counts[kind] = counts.get(kind, 0) + 1
    for kind, n in counts.items():
        print("%6d  %s" % (n, kind))
    missing = [k for k, n in counts.items() if n == 0]
    if missing:
        print("FAIL: no rule of kind: " + ", ".join(missing))
        return 1
    print("%d rules cover every kind" % len(sources))
    return 0


if __name__ == "__main__":
    sys.exit(main())
