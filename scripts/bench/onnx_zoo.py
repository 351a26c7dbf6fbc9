#!/usr/bin/env python3
"""The torchvision zoo as a test of breadth (issue 36): every classification and
segmentation model of the installed torchvision, exported at opsets 13 and 17
(eval mode, batch normalization kept as nodes: TrainingMode.PRESERVE skips the
exporter's float32 folding of batch norms into the convolutions), then with
superopt:

  import    `graph check` (the failing operator named when it fails)
  error     `graph run --dump` (CPU reference, float64) against the PyTorch model
            in float64 on the same input, max-norm relative (bound 1e-8)
  optimize  `optimize --rules data/rules/taso-3.h5,data/rules/conv-bias-3.h5,data/rules/conv-activations-3.h5,data/rules/linear-3.h5
            --cost analytic:h100`: claimed speedup (cost before / after) and the
            rules applied
  cpu ms    `optimize --cost cpu:1` (the same rules, costs measured on this CPU at
            1 thread): its end-to-end acceptance times the imported model and its
            best graphs interleaved in one process (medians of 5 rounds) and keeps
            the input unless a graph is faster in every round; before = the input's
            median, after = the returned graph's (the same graph where it kept the
            input: then the two differ by the noise alone). A graph optimized for an
            H100 is not what a CPU user runs. fallback: the operators either runs on
            the executor's reference kernel instead of a oneDNN primitive (as
            `measure` names them)

--no-optimize stops after the error and fallback columns (the breadth run: every model of the zoo
in a few hours), --no-cpu after the claimed column.

Each model runs in its own process under a time limit (a slow or crashing model
is a row, not the end of the table). Inputs are small (1x3x64x64) except where a
model needs more (its `input_size` below). Writes OUT/zoo.csv and OUT/zoo.md and
prints the table as it goes.

  /usr/bin/python3 scripts/bench/onnx_zoo.py --opsets 17 --models resnet18 vgg11
"""
import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

# The command runner and the comparison are onnx_torch.py's (this folder).
from onnx_torch import dump_values, relative_error, run, trained_looking

BOUND = 1e-8
COLUMNS = ["model", "opset", "input", "import", "error", "pass", "claimed", "rules", "cpu_ms_before",
           "cpu_ms_after", "cpu_kept_input", "fallback", "seconds", "note"]


def input_size(name):
    """The smallest square input the model takes without a size-specific export failure."""
    if name.startswith("vit_") or name == "maxvit_t":
        return 224  # fixed image size (position embeddings, window partitions)
    if name.startswith("swin_v2"):
        return 256  # every stage a multiple of the 8x8 window
    if name.startswith("swin"):
        return 224  # every stage a multiple of the 7x7 window: no padding of the middle dimensions
    if name.startswith("vgg") or name == "alexnet":
        return 224  # AdaptiveAvgPool to 7x7 / 6x6 exports only from a multiple of it
    if name == "inception_v3":
        return 96  # needs at least 75
    return 64


def list_models():
    import torchvision
    from torchvision import models
    seg = [("segmentation", n) for n in models.list_models(models.segmentation)]
    return [("classification", n) for n in models.list_models(models)] + seg


class SegmentationOut:
    """The segmentation models return a dict; the export takes its 'out' tensor."""

    @staticmethod
    def wrap(torch, model):
        class Wrapped(torch.nn.Module):
            def __init__(self, m):
                super().__init__()
                self.m = m

            def forward(self, x):
                return self.m(x)["out"]

        return Wrapped(model)


def build(torch, kind, name, seed):
    from torchvision import models
    torch.manual_seed(seed)
    if kind == "segmentation":
        model = models.get_model(name, weights=None, weights_backbone=None, aux_loss=False)
        return trained_looking(torch, SegmentationOut.wrap(torch, model)).eval()
    kwargs = {"aux_logits": False, "init_weights": True} if name in ("inception_v3", "googlenet") else {}
    return trained_looking(torch, models.get_model(name, weights=None, **kwargs)).eval()


def float32_epsilons(torch, model):
    """ONNX holds epsilons as float32 attributes, as it holds the weights."""
    for m in model.modules():
        if isinstance(m, (torch.nn.modules.batchnorm._BatchNorm, torch.nn.LayerNorm)):
            m.eps = float(torch.tensor(m.eps, dtype=torch.float32))


def failing_operator(message):
    m = re.search(r"unsupported operator '([^']+)'", message)
    return m.group(1) if m else message[-120:]


def cpu_ms(args, path):
    out = json.loads(run([args.superopt, "run", path, "--device", "cpu", "--threads", "1", "--repeat",
                          str(args.repeat), "--warmup", "2", "--json"], "run --device cpu"))
    return out["median_ms"]


def fallback_ops(args, paths, folder):
    """The operators the CPU executor runs on its reference kernel: `measure` names
    each signature's algorithm, "reference:OP" for those."""
    text = run([args.superopt, "measure", *paths, "--device", "cpu", "--threads", "1", "--repeat", "1",
                "--warmup", "0", "--out", os.path.join(folder, "measured.h5")], "measure --device cpu")
    return sorted({m.group(1) for m in re.finditer(r"\sreference:(\S+)\s", text)})


def register_zero(torch, opset):
    """PyTorch 1.13 has no ONNX symbolic for aten::zero (Swin V2 zeroes part of a
    cloned bias in place): x - x, which is 0 for the finite weights it meets."""
    torch.onnx.register_custom_op_symbolic("aten::zero", lambda g, x: g.op("Sub", x, x), opset)


def check_one(args, kind, name, opset, row):
    """One model at one opset: fills ROW, a row of the table, column by column (a later
    stage's failure keeps what the earlier ones found)."""
    import onnx
    import torch
    torch.set_num_threads(1)
    register_zero(torch, opset)
    size = input_size(name)
    out = os.path.join(args.out, f"{name}-{opset}")
    os.makedirs(out, exist_ok=True)
    row["input"] = f"1x3x{size}x{size}"
    model = build(torch, kind, name, args.seed)
    path = os.path.join(out, "model.onnx")
    torch.onnx.export(model, torch.zeros(1, 3, size, size), path, opset_version=opset,
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False,
                      input_names=["input"], output_names=["output"])
    try:
        run([args.superopt, "graph", "check", path, "--json"], "import")
    except RuntimeError as e:
        row["import"] = "FAIL " + failing_operator(str(e))
        return
    row["import"] = "ok"
    if args.import_only:
        return
    dump = os.path.join(out, "ours.h5")
    run([args.superopt, "graph", "run", path, "--dump", dump], "graph run")
    sources, ours = dump_values(dump)
    os.remove(dump)
    model = model.double()
    float32_epsilons(torch, model)
    with torch.inference_mode():
        theirs = model(torch.as_tensor(sources["input"], dtype=torch.float64)).numpy()
    row["error"] = relative_error(ours[0], theirs)
    if not theirs.any():  # nothing was compared: a zero output equals any other zero output
        row["pass"] = "FAIL (PyTorch's output is all zero)"
    else:
        row["pass"] = "PASS" if row["error"] <= BOUND else "FAIL"
    if args.no_optimize:
        row["fallback"] = " ".join(fallback_ops(args, [path], out)) or "none"
        return
    opt = os.path.join(out, "optimized.onnx")
    result = json.loads(run([args.superopt, "optimize", path, "--rules", args.rules, "--out", opt, "--json",
                             "--time-limit", str(args.optimize_s)], "optimize"))
    onnx.checker.check_model(opt)
    row["claimed"] = result["cost_before"] / result["cost_after"] if result["cost_after"] > 0 else math.nan
    row["rules"] = sum(result["rules_applied"].values())
    if args.no_cpu:  # the fallback column still names every reference-kernel operator
        row["fallback"] = " ".join(fallback_ops(args, [path, opt], out)) or "none"
        return
    cpu_opt = os.path.join(out, "optimized-cpu.onnx")
    cpu = json.loads(run([args.superopt, "optimize", path, "--rules", args.rules, "--cost", "cpu:1", "--out", cpu_opt,
                          "--json", "--time-limit", str(args.optimize_s)], "optimize --cost cpu:1"))
    e2e = cpu.get("end_to_end")
    # No timing when nothing passed the check or the time limit left none (medians 0).
    if e2e and min(g["median_ms"] for g in e2e["graphs"]) > 0:
        graphs = {g["name"]: g for g in e2e["graphs"]}
        row["cpu_ms_before"] = graphs["input"]["median_ms"]
        row["cpu_ms_after"] = graphs[e2e["chosen"]]["median_ms"]
        row["cpu_kept_input"] = "yes" if e2e["returned_input"] else "no"
    else:  # the input is the result, timed here
        row["cpu_ms_before"] = row["cpu_ms_after"] = cpu_ms(args, path)
        row["cpu_kept_input"] = "yes"
    row["fallback"] = " ".join(fallback_ops(args, [path, opt, cpu_opt], out)) or "none"


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2e}" if abs(v) < 1e-2 or abs(v) >= 1e4 else f"{v:.3f}"
    return str(v)


def child(args):
    kind, name = args.one.split(":")
    t0 = time.time()
    row = {"model": name, "opset": args.opset}
    try:
        check_one(args, kind, name, args.opset, row)
    except Exception as e:  # the import column if the import did not pass, else the note
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        row["import" if row.get("import") != "ok" else "note"] = "ERROR " + msg[:160]
    if not args.keep:  # the large models' files would fill the disk
        shutil.rmtree(os.path.join(args.out, f"{name}-{args.opset}"), ignore_errors=True)
    row["seconds"] = round(time.time() - t0, 1)
    print(json.dumps(row))
    return 0


def parent(args):
    models = list_models()
    if args.models:
        known = {n for _, n in models}
        for m in args.models:
            if m not in known:
                raise ValueError(f"unknown model '{m}'")
        models = [(k, n) for k, n in models if n in args.models]
    os.makedirs(args.out, exist_ok=True)
    rows = []
    print(" | ".join(COLUMNS), flush=True)
    for opset in args.opsets:
        for kind, name in models:
            t0 = time.time()
            cmd = [sys.executable, __file__, "--one", f"{kind}:{name}", "--opset", str(opset)] + passthrough(args)
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.model_s)
                lines = p.stdout.strip().splitlines()
                row = json.loads(lines[-1]) if p.returncode == 0 and lines else {
                    "model": name, "opset": opset, "import": f"CRASH exit {p.returncode}: " +
                    ((p.stderr.strip().splitlines() or [""])[-1])[:160]}
            except subprocess.TimeoutExpired:
                row = {"model": name, "opset": opset, "import": f"TIMEOUT {args.model_s} s",
                       "seconds": round(time.time() - t0, 1)}
            rows.append(row)
            print(" | ".join(fmt(row.get(c)) for c in COLUMNS), flush=True)
            write_tables(args.out, rows)
    return 0


def passthrough(args):
    return ["--superopt", args.superopt, "--rules", args.rules, "--out", args.out, "--seed", str(args.seed),
            "--optimize-s", str(args.optimize_s), "--repeat", str(args.repeat)] + (["--keep"] if args.keep else []) + (
        ["--import-only"] if args.import_only else []) + (["--no-cpu"] if args.no_cpu else []) + (
            ["--no-optimize"] if args.no_optimize else [])


def write_tables(out, rows):
    with open(os.path.join(out, "zoo.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out, "zoo.md"), "w") as f:
        f.write("| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS) + "\n")
        for r in rows:
            f.write("| " + " | ".join(fmt(r.get(c)) for c in COLUMNS) + " |\n")
        f.write("\n" + summary(rows) + "\n")


def summary(rows):
    lines = []
    for opset in sorted({r["opset"] for r in rows}):
        rs = [r for r in rows if r["opset"] == opset]
        imported = sum(r.get("import") == "ok" for r in rs)
        passed = sum(r.get("pass") == "PASS" for r in rs)
        claimed = sorted(r["claimed"] for r in rs if isinstance(r.get("claimed"), float))
        above = sum(c > 1.00 + 1e-9 for c in claimed)
        median = claimed[len(claimed) // 2] if claimed else math.nan
        timed = [r for r in rs if isinstance(r.get("cpu_ms_after"), float)]
        changed = [r for r in timed if r.get("cpu_kept_input") == "no"]
        lines.append(f"opset {opset}: {imported}/{len(rs)} import, {passed}/{len(rs)} equal to PyTorch "
                     f"(<= {BOUND:g}), claimed speedup > 1.00x on {above}/{len(claimed)} (median {median:.3f}x); "
                     f"CPU at 1 thread: a faster graph on {len(changed)}/{len(timed)}, the input kept on the rest")
    return "\n".join(lines)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", nargs="*", help="model names (default: every one)")
    p.add_argument("--opsets", nargs="*", type=int, default=[17, 13])
    p.add_argument("--superopt", default=os.environ.get("SUPEROPT", "build/superopt"))
    p.add_argument("--rules", default="data/rules/taso-3.h5,data/rules/conv-bias-3.h5,data/rules/conv-activations-3.h5,"
                                       "data/rules/linear-3.h5")
    p.add_argument("--out", default="scripts/bench/out/onnx-zoo")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--model-s", type=float, default=600, help="time limit per model and opset (default 600 s)")
    p.add_argument("--optimize-s", type=float, default=30, help="optimize --time-limit (default 30 s)")
    p.add_argument("--repeat", type=int, default=20, help="timed runs of run --device cpu (default 20)")
    p.add_argument("--keep", action="store_true", help="keep each model's ONNX files in OUT")
    p.add_argument("--import-only", action="store_true", help="export and import only (the import column)")
    p.add_argument("--no-cpu", action="store_true",
                   help="skip the cpu:1 optimization and its timing (import, error, claimed, fallback only)")
    p.add_argument("--no-optimize", action="store_true",
                   help="import, error and fallback only (no optimization: the breadth columns)")
    p.add_argument("--one", help=argparse.SUPPRESS)
    p.add_argument("--opset", type=int, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if not os.path.exists(args.superopt):
        p.error(f"no superopt binary at {args.superopt} (--superopt or $SUPEROPT)")
    return child(args) if args.one else parent(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
