#!/usr/bin/env python3
# PyTorch versions of superopt's graphs: one torch op per graph node, built from the same graph
# JSON our runtime reads, timed in eager mode and under torch.compile, or checked against a dump.
"""PyTorch versions of superopt's graphs.

  torch_models.py MODEL [--device cuda|cpu] [--mode eager|compile|script|both] [--repeat N] [--warmup N] [--json]
  torch_models.py MODEL --check-against DUMP.h5     (DUMP from `superopt graph run MODEL --dump DUMP.h5`)

MODEL is builtin:NAME or a graph file. The superopt binary ($SUPEROPT, --superopt, build/superopt
or `superopt` on PATH) exports the graph and gives every tensor's shape (split's part sizes
come from TASO's split trees, which only it tracks). FP32 without TF32, batch as in the graph,
under torch.inference_mode(); GPU times from CUDA events, CPU times from perf_counter.
--mode script is TorchScript: torch.jit.trace, then torch.jit.freeze and
torch.jit.optimize_for_inference (PyTorch 1.13's inference path on the CPU: it folds
batch norms into convolutions and runs convolutions through oneDNN in its formats).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_blas  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class UsageError(Exception):
    """A problem the user can fix; printed as one line, exit 2."""


# ---------------------------------------------------------------- the graph

def find_superopt(explicit):
    for candidate in (explicit, os.environ.get("SUPEROPT"), os.path.join(REPO, "build", "superopt"),
                      shutil.which("superopt")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise UsageError("cannot find the superopt binary (give --superopt BIN, set $SUPEROPT, or build build/superopt)")


def superopt_output(binary, args):
    result = subprocess.run([binary] + args, capture_output=True, text=True)
    if result.returncode != 0:
        raise UsageError(f"superopt {' '.join(args)} failed: {result.stderr.strip() or result.stdout.strip()}")
    return result.stdout


def load_graph(model, binary):
    """The graph as `superopt graph export` writes it (every parameter explicit, every node named),
    and each node's output shapes from `superopt graph check --json`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "graph.json")
        superopt_output(binary, ["graph", "export", model, "--out", path])
        with open(path) as f:
            graph = json.load(f)
        report = json.loads(superopt_output(binary, ["graph", "check", path, "--json"]))
    shapes = {n["name"]: [tuple(s) for s in n["outputs"]] for n in report["nodes"]}
    return graph, shapes


# ---------------------------------------------------------------- the module (the superopt package's)

def import_graph_module():
    """superopt.graph_module: the installed package's or the build tree's (on PYTHONPATH), else the
    source tree's file itself (it needs only torch, not the compiled extension)."""
    try:
        import superopt.graph_module as module
        return module
    except ImportError:
        import importlib.util
        path = os.path.join(REPO, "python", "superopt", "graph_module.py")
        spec = importlib.util.spec_from_file_location("superopt_graph_module", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


_graph_module = import_graph_module()
GraphModule, GraphModuleError, generate = _graph_module.GraphModule, _graph_module.GraphModuleError, _graph_module.generate


# ---------------------------------------------------------------- check against superopt's reference

def check_against(graph, shapes, dump_path):
    """Runs the module in float64 on the CPU with the dump's inputs and weights; returns
    (rows, worst): per output its shape and max |torch - ours| / max |ours|."""
    import h5py
    import numpy as np

    with h5py.File(dump_path, "r") as f:
        if f.attrs.get("format") != "superopt-graph-dump":
            raise UsageError(f"{dump_path}: not a superopt graph dump (superopt graph run MODEL --dump FILE)")
        sources = {name: np.asarray(f["sources"][name]) for name in f["sources"]}
        order = [s.decode() if isinstance(s, bytes) else s for s in f["output_order"][()]]
        expected = [np.asarray(f["outputs"][name]) for name in order]
    missing = [s["name"] for s in graph.get("inputs", []) + graph.get("weights", []) if s["name"] not in sources]
    if missing:
        raise UsageError(f"{dump_path}: no values for {', '.join(missing[:5])} (a dump of another model?)")
    module = GraphModule(graph, shapes, torch.float64, weights=sources)
    inputs = [torch.as_tensor(sources[name], dtype=torch.float64) for name in module.input_names]
    with torch.inference_mode():
        got = module(*inputs)
    if len(got) != len(expected):
        raise UsageError(f"{dump_path}: {len(expected)} outputs, the graph has {len(got)}")
    rows, worst = [], 0.0
    for name, ours, theirs in zip(order, expected, got):
        theirs = theirs.numpy()
        if theirs.shape != ours.shape:
            rows.append((name, ours.shape, math.inf))
            worst = math.inf
            continue
        scale = float(np.max(np.abs(ours))) if ours.size else 0.0
        diff = float(np.max(np.abs(theirs - ours))) if ours.size else 0.0
        error = diff / scale if scale > 0 else diff
        if not math.isfinite(diff):
            error = math.inf
        rows.append((name, ours.shape, error))
        worst = max(worst, error)
    return rows, worst


# ---------------------------------------------------------------- timing

def percentile(sorted_values, q):
    position = (len(sorted_values) - 1) * q
    low, high = math.floor(position), math.ceil(position)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def time_runs(fn, inputs, device, warmup, repeat):
    """Per-run milliseconds: CUDA events around each run on a GPU, perf_counter on the CPU."""
    for _ in range(warmup):
        fn(*inputs)
    times = []
    if device.type == "cuda":
        torch.cuda.synchronize()
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(repeat)]
        for start, end in events:
            start.record()
            fn(*inputs)
            end.record()
        torch.cuda.synchronize()
        times = [start.elapsed_time(end) for start, end in events]
    else:
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn(*inputs)
            times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return {"median_ms": percentile(times, 0.5), "p10_ms": percentile(times, 0.1),
            "p90_ms": percentile(times, 0.9), "repeat": repeat, "warmup": warmup}


def configure_fp32(device):
    """FP32 throughout: TF32 off for matmuls and convolutions (PyTorch 2.9's fp32_precision
    settings where they exist: it deprecates allow_tf32 and warns against mixing the two); cuDNN
    picks its fastest algorithms. Returns how TF32 was turned off."""
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    if hasattr(torch.backends, "fp32_precision"):
        torch.backends.fp32_precision = "ieee"
        torch.backends.cuda.matmul.fp32_precision = "ieee"
        torch.backends.cudnn.conv.fp32_precision = "ieee"
        return "fp32_precision = 'ieee' (matmul, cuDNN conv)"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    return "allow_tf32 = False (cuda.matmul, cudnn)"


def benchmark(graph, shapes, args):
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda: no CUDA device visible to PyTorch (use --device cpu)")
    tf32_setting = configure_fp32(device)
    module = GraphModule(graph, shapes, torch.float32).to(device).eval()
    inputs = module.random_inputs(torch.float32, device)
    results, skipped = [], None
    modes = ["eager", "compile"] if args.mode == "both" else [args.mode]
    no_compile = f"PyTorch {torch.__version__} has no torch.compile"
    if "compile" in modes and not hasattr(torch, "compile"):
        if args.mode == "compile":
            raise UsageError(f"--mode compile: {no_compile}")
        modes.remove("compile")  # --mode both on PyTorch 1: eager only, and say why
        skipped = {"model": graph.get("name", ""), "mode": "compile", "unavailable": no_compile}
    with torch.inference_mode():
        for mode in modes:
            fn, compile_s = module, None
            if mode == "script":
                t0 = time.perf_counter()
                traced = torch.jit.trace(module, tuple(inputs), check_trace=False)
                fn = torch.jit.optimize_for_inference(torch.jit.freeze(traced.eval()))
                fn(*inputs)  # the first calls specialise the graph
                compile_s = time.perf_counter() - t0
            if mode == "compile":
                torch._dynamo.reset()
                fn = torch.compile(module)
                t0 = time.perf_counter()
                fn(*inputs)  # the first call compiles
                if device.type == "cuda":
                    torch.cuda.synchronize()
                compile_s = time.perf_counter() - t0
            r = time_runs(fn, inputs, device, args.warmup, args.repeat)
            r.update({"model": graph.get("name", ""), "mode": mode, "compile_s": compile_s, "tf32_off": tf32_setting})
            results.append(r)
    return results + ([skipped] if skipped else [])


def machine(device):
    info = {"torch": torch.__version__, "device": str(device), "dtype": "float32", "tf32": False,
            "cudnn_benchmark": device.type == "cuda", "threads": torch.get_num_threads()}
    info.update(torch_blas.blas_info(torch))
    if device.type == "cuda" and torch.cuda.is_available():
        info["device_name"] = torch.cuda.get_device_name(device)
        info["cuda"] = torch.version.cuda
        info["cudnn"] = torch.backends.cudnn.version()
    return info


# ---------------------------------------------------------------- command line

def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="builtin:NAME or a graph file (JSON)")
    p.add_argument("--superopt", help="the superopt binary (default: $SUPEROPT, build/superopt, PATH)")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", help="cuda or cpu")
    p.add_argument("--mode", default="both", choices=["eager", "compile", "script", "both"])
    p.add_argument("--repeat", type=int, default=100, help="timed runs (default 100)")
    p.add_argument("--warmup", type=int, default=10, help="untimed runs first (default 10)")
    p.add_argument("--threads", type=int, help="CPU threads for PyTorch")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--check-against", metavar="DUMP.h5",
                   help="compare every output with `superopt graph run MODEL --dump DUMP.h5` (float64, CPU)")
    p.add_argument("--tolerance", type=float, default=1e-9, help="largest relative error for --check-against")
    p.add_argument("--print-code", action="store_true", help="print the generated forward() and stop")
    args = p.parse_args(argv)
    if args.repeat < 1 or args.warmup < 0:
        raise UsageError("--repeat must be at least 1 and --warmup at least 0")
    return args


def main(argv):
    args = parse_args(argv)
    limiter = torch_blas.limit_threads(torch, args.threads) if args.threads else None  # noqa: F841 - kept alive
    graph, shapes = load_graph(args.model, find_superopt(args.superopt))
    if args.print_code:
        print(generate(graph, shapes)[0])
        return 0
    if args.check_against:
        rows, worst = check_against(graph, shapes, args.check_against)
        passed = worst <= args.tolerance
        if args.json:
            print(json.dumps({"model": graph.get("name", ""), "passed": passed, "worst_relative_error": worst,
                              "outputs": [{"name": n, "shape": list(s), "relative_error": e} for n, s, e in rows]}))
        else:
            for name, shape, error in rows:
                print(f"{name:30s} {'x'.join(map(str, shape)) or 'scalar':>16s}  relative error {error:.3e}")
            print(f"{graph.get('name', '')}: {len(rows)} outputs, worst relative error {worst:.3e} "
                  f"(tolerance {args.tolerance:g}): {'PASS' if passed else 'FAIL'}")
        return 0 if passed else 1
    results = benchmark(graph, shapes, args)
    info = machine(torch.device(args.device))
    if args.json:
        print(json.dumps({"machine": info, "results": results}))
        return 0
    print(f"PyTorch {info['torch']} on {info.get('device_name', info['device'])}, FP32, TF32 off, "
          f"batch as in the graph, inference_mode")
    print(torch_blas.blas_text(info))
    for r in results:
        if "unavailable" in r:
            print(f"{r['model']:16s} {r['mode']:8s} unavailable: {r['unavailable']}")
            continue
        compile_note = f", compiled in {r['compile_s']:.1f} s" if r["compile_s"] is not None else ""
        print(f"{r['model']:16s} {r['mode']:8s} median {r['median_ms']:9.3f} ms  p10 {r['p10_ms']:9.3f}  "
              f"p90 {r['p90_ms']:9.3f}  ({r['repeat']} runs{compile_note})")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (UsageError, GraphModuleError) as e:
        print(f"torch_models.py: {e}", file=sys.stderr)
        sys.exit(2)
