#!/usr/bin/env python3
# The timing half of scripts/bench/run-gpu.sh: per model, in interleaved rounds, our runtime on the
# input and the optimized graph (`superopt run`, one process per cell), PyTorch eager, torch.compile
# and onnxruntime (CUDA provider on a GPU, CPU provider with --device cpu) on the input graph.
"""e2e_bench.py --models "A B" --raw DIR --results FILE.jsonl [options]

Each model's graph is DIR/M.json (and DIR/M.onnx for onnxruntime, DIR/M.opt.json once optimized).
The process first prepares every model (PyTorch module, onnxruntime session and its output
compared with eager), then waits for --go FILE (run-gpu.sh writes it when the optimizer is done),
then runs up to --rounds rounds; in each, every model's cells run one after the other, so drift
hits all columns alike. Every result and every failure is appended to --results as one JSON line
as soon as it is known, so a crash or the deadline loses nothing already measured. With --resume,
the cells and rounds already in --results are skipped, and so is the cell that was running when
the previous process died (its "start" has no "end"). --warm only compiles (torch.compile) the
models' input graphs once, to fill the inductor cache for the main process.

FP32 with TF32 off everywhere (PyTorch: torch_models.configure_fp32; onnxruntime CUDA: use_tf32=0;
ours: strict FP32 unless --tf32, which we never pass). GPU times: CUDA events (ours, PyTorch),
wall clock around run_with_iobinding (onnxruntime; it synchronizes). Exit 0 when it ran to the
end or the deadline, 2 on bad use.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SYSTEMS = ["ours_input", "ours_optimized", "torch_eager", "torch_compile", "ort"]


class Results:
    """Append-only JSON lines, flushed at once."""

    def __init__(self, path):
        self.path = path
        self.lines = []
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    try:
                        self.lines.append(json.loads(line))
                    except ValueError:
                        pass  # a line cut by a crash
        self.f = open(path, "a")

    def add(self, **record):
        record["t"] = round(time.time(), 3)
        self.f.write(json.dumps(record) + "\n")
        self.f.flush()
        self.lines.append(record)


class Timeout(Exception):
    pass


def alarm(seconds):
    def handler(signum, frame):
        raise Timeout(f"took longer than {seconds} s")
    signal.signal(signal.SIGALRM, handler)
    signal.alarm(max(1, int(seconds)))


def short(e):
    text = f"{type(e).__name__}: {e}".strip()
    return text.splitlines()[0][:400] if text else type(e).__name__


def safe(model):
    return model.replace(":", "_").replace("/", "_")


# ---------------------------------------------------------------- PyTorch and onnxruntime

def import_ort():
    try:
        import onnxruntime
        return onnxruntime, None
    except Exception as e:  # noqa: BLE001 - absent, or present and broken
        return None, ("onnxruntime: not installed" if isinstance(e, ImportError) else f"onnxruntime: {short(e)}")


def onnx_with_weights(onnx_path, module, graph):
    """The exported ONNX model with the PyTorch module's weights as initializers (our export
    leaves weights as graph inputs without data), so both run the same values."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    model = onnx.load(onnx_path)
    weights = {w["name"] for w in graph.get("weights", [])}
    keep = []
    for value in model.graph.input:
        if value.name in weights and value.name in module.weight_attrs:
            array = getattr(module, module.weight_attrs[value.name]).detach().cpu().numpy().astype(np.float32)
            model.graph.initializer.append(numpy_helper.from_array(array, value.name))
        else:
            keep.append(value)
    del model.graph.input[:]
    model.graph.input.extend(keep)
    onnx.checker.check_model(model)
    return model


def relative_error(got, want):
    import numpy as np
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return float("inf")
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    diff = float(np.max(np.abs(got - want))) if want.size else 0.0
    return diff / scale if scale > 0 else diff


class Prepared:
    def __init__(self):
        self.module = self.inputs = self.eager_out = None
        self.compiled = None
        self.ort_fn = None


def prepare_torch(model, args, torch, tm):
    graph, shapes = tm.load_graph(os.path.join(args.raw, safe(model) + ".json"), args.superopt)
    device = torch.device(args.device)
    p = Prepared()
    p.graph = graph
    p.module = tm.GraphModule(graph, shapes, torch.float32).to(device).eval()
    p.inputs = p.module.random_inputs(torch.float32, device)
    with torch.inference_mode():
        p.eager_out = [t.detach().cpu().numpy() for t in p.module(*p.inputs)]
    return p


def prepare_ort(model, p, args, ort, torch):
    onnx_model = onnx_with_weights(os.path.join(args.raw, safe(model) + ".onnx"), p.module, p.graph)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if args.threads:
        options.intra_op_num_threads = args.threads
    data = onnx_model.SerializeToString()
    note = None
    by_name = {name: x.detach().cpu().numpy() for name, x in zip(p.module.input_names, p.inputs)}
    if args.device == "cuda":
        provider = {"device_id": "0", "use_tf32": "0", "cudnn_conv_algo_search": "EXHAUSTIVE"}
        try:
            sess = ort.InferenceSession(data, options, providers=[("CUDAExecutionProvider", provider),
                                                                  "CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001 - an older onnxruntime without use_tf32
            note = f"use_tf32 refused ({short(e)}): TF32 state is the provider's default"
            del provider["use_tf32"]
            sess = ort.InferenceSession(data, options, providers=[("CUDAExecutionProvider", provider),
                                                                  "CPUExecutionProvider"])
        if sess.get_providers()[0] != "CUDAExecutionProvider":
            raise RuntimeError(f"onnxruntime did not take the CUDA provider (providers {sess.get_providers()})")
        binding = sess.io_binding()
        for name, x in by_name.items():
            binding.bind_ortvalue_input(name, ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0))
        for o in sess.get_outputs():
            binding.bind_output(o.name, "cuda")

        def fn():
            sess.run_with_iobinding(binding)
        fn()
        outputs = binding.copy_outputs_to_cpu()
    else:
        sess = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        feeds = by_name

        def fn():
            sess.run(None, feeds)
        outputs = sess.run(None, feeds)
    error = relative_error(outputs[0], p.eager_out[0])
    p.ort_fn = fn
    p.ort_session = sess
    return {"ort_error_vs_eager": error, "providers": sess.get_providers(), "note": note}


def compile_model(p, args, torch):
    """torch.compile of this model's own generated forward as a bound method: its code object is
    the model's alone, so the 14 models never share one dynamo cache entry (compiling the modules
    would: GraphModule.forward is one function, and dynamo's recompile limit (8) would silently
    leave the later models in eager mode). No dynamo reset between models, for the same reason."""
    try:
        import torch._dynamo  # noqa: F401 - lazily imported in some versions
    except ImportError:
        pass
    for name in ("cache_size_limit", "recompile_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, max(64, getattr(torch._dynamo.config, name)))
    fn = torch.compile(types.MethodType(p.module._forward, p.module))
    t0 = time.perf_counter()
    with torch.inference_mode():
        out = fn(*p.inputs)
    if args.device == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    error = relative_error(out[0].detach().cpu().numpy(), p.eager_out[0])
    return fn, seconds, error


# ---------------------------------------------------------------- cells

def time_ours(model, system, args):
    graph = os.path.join(args.raw, safe(model) + (".opt.json" if system == "ours_optimized" else ".json"))
    if not os.path.exists(graph):
        raise RuntimeError(f"no {os.path.basename(graph)} (optimize failed or did not finish)")
    cmd = [args.superopt, "run", graph, "--device", args.device, "--repeat", str(args.repeat),
           "--warmup", str(args.warmup), "--json"]
    if args.device == "cpu" and args.threads:
        cmd += ["--threads", str(args.threads)]
    limit = max(1, min(args.cell_timeout, args.deadline - time.time()))
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"superopt run timed out after {limit:.0f} s")
    if r.returncode != 0:
        tail = (r.stderr.strip() or r.stdout.strip()).splitlines()
        raise RuntimeError(f"superopt run exit {r.returncode}: {tail[-1] if tail else ''}")
    j = json.loads(r.stdout)
    out = {k: j.get(k) for k in ("median_ms", "p10_ms", "p90_ms", "device", "launches")}
    out["_seconds"] = time.time() - t0
    return out


def time_fn(fn, args, torch, tm, cuda_events):
    device = torch.device(args.device if cuda_events else "cpu")
    t0 = time.time()
    with torch.inference_mode():
        r = tm.time_runs(lambda *a: fn(), [], device, args.warmup, args.repeat)
    out = {k: r[k] for k in ("median_ms", "p10_ms", "p90_ms")}
    out["_seconds"] = time.time() - t0
    return out


# ---------------------------------------------------------------- main

def parse(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", required=True)
    p.add_argument("--raw", required=True)
    p.add_argument("--results", required=True)
    p.add_argument("--superopt", default=os.environ.get("SUPEROPT"))
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--repeat", type=int, default=50)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--deadline", type=float, default=time.time() + 3600, help="epoch seconds: stop by then")
    p.add_argument("--go", help="wait for this file before the rounds")
    p.add_argument("--systems", default=" ".join(SYSTEMS))
    p.add_argument("--compile-timeout", type=float, default=120)
    p.add_argument("--cell-timeout", type=float, default=120)
    p.add_argument("--resume", action="store_true")
    p.add_argument("--warm", action="store_true", help="only compile each model once (fills the inductor cache)")
    args = p.parse_args(argv)
    if not args.superopt:
        p.error("no superopt binary (--superopt or $SUPEROPT)")
    args.models = args.models.split()
    args.systems = args.systems.split()
    return args


def warm(args, torch, tm):
    if not hasattr(torch, "compile"):
        return 0
    for model in args.models:
        left = args.deadline - time.time()
        if left < 5:
            break
        try:
            p = prepare_torch(model, args, torch, tm)
            alarm(left)
            _, seconds, _ = compile_model(p, args, torch)
            signal.alarm(0)
            print(f"warm: {model} compiled in {seconds:.1f} s", flush=True)
        except BaseException as e:  # noqa: BLE001
            signal.alarm(0)
            print(f"warm: {model}: {short(e)}", flush=True)
    return 0


def main(argv):
    args = parse(argv)
    import torch
    import torch_models as tm
    tf32 = tm.configure_fp32(torch.device(args.device))
    if args.device == "cpu" and args.threads:
        torch.set_num_threads(args.threads)
    if args.warm:
        return warm(args, torch, tm)
    results = Results(args.results)
    skip = set()
    if args.resume:  # the cell that was running when the last process died is not tried again
        open_starts = {}
        for r in results.lines:
            key = (r.get("model"), r.get("system"), r.get("phase"))
            if r.get("event") == "start":
                open_starts[key] = r
            elif r.get("event") == "end":
                open_starts.pop(key, None)
        for (model, system, phase), r in open_starts.items():
            skip.add((model, system))
            results.add(event="error", model=model, system=system, phase=phase,
                        error="the process died here (crash or kill); skipped on resume")
    ort, ort_missing = import_ort()
    info = {"torch": torch.__version__, "device": args.device, "tf32_off": tf32,
            "onnxruntime": ort.__version__ if ort else ort_missing,
            "torch_compile": hasattr(torch, "compile")}
    if args.device == "cuda" and torch.cuda.is_available():
        info.update(device_name=torch.cuda.get_device_name(0), cuda=torch.version.cuda,
                    cudnn=torch.backends.cudnn.version())
    if ort:
        info["ort_providers"] = ort.get_available_providers()
    results.add(event="env", **info)
    print(f"e2e_bench: {json.dumps(info)}", flush=True)
    if not hasattr(torch, "compile"):
        skip.update((m, "torch_compile") for m in args.models)
        results.add(event="unavailable", system="torch_compile", error=f"PyTorch {torch.__version__} has no torch.compile")
    if not ort:
        skip.update((m, "ort") for m in args.models)
        results.add(event="unavailable", system="ort", error=ort_missing)
    skip.update((m, s) for m in args.models for s in SYSTEMS if s not in args.systems)

    def guarded(model, system, phase, fn):
        """Runs fn with start/end records around it; returns its value or None after recording
        the failure (and skipping the cell from then on)."""
        results.add(event="start", model=model, system=system, phase=phase)
        try:
            value = fn()
            results.add(event="end", model=model, system=system, phase=phase)
            return value
        except BaseException as e:  # noqa: BLE001 - a failure is a record, not the end of the run
            signal.alarm(0)
            if isinstance(e, KeyboardInterrupt):
                raise
            results.add(event="end", model=model, system=system, phase=phase)
            results.add(event="error", model=model, system=system, phase=phase, error=short(e))
            skip.add((model, system))
            print(f"e2e_bench: {model} {system} {phase}: {short(e)}", flush=True)
            return None

    # ------------------------------------------------ prepare (before the optimizer is done)
    prepared = {}
    torch_systems = ("torch_eager", "torch_compile", "ort")
    for model in args.models:
        if time.time() > args.deadline - 5:
            break
        if all((model, s) in skip for s in torch_systems):
            continue
        p = guarded(model, "torch_eager", "prepare", lambda: prepare_torch(model, args, torch, tm))
        if p is None:
            skip.update((model, s) for s in torch_systems)
            continue
        prepared[model] = p
        if (model, "ort") not in skip:
            r = guarded(model, "ort", "prepare", lambda: prepare_ort(model, p, args, ort, torch))
            if r is not None:
                results.add(event="prepared", model=model, system="ort", **r)
        print(f"e2e_bench: prepared {model}", flush=True)

    if args.go:
        while not os.path.exists(args.go) and time.time() < args.deadline:
            time.sleep(0.5)

    # ------------------------------------------------ interleaved rounds
    done = {}
    for r in results.lines:
        if r.get("event") == "result":
            done[(r["model"], r["system"])] = max(done.get((r["model"], r["system"]), 0), r["round"])
    last_round = None
    for round_no in range(1, args.rounds + 1):
        timed = 0.0  # seconds in timing cells this round (not compiling or preparing)
        pending_compile = []
        if last_round is not None and time.time() + last_round > args.deadline:
            results.add(event="stopped", round=round_no, error=f"deadline: round {round_no} would not finish "
                        f"(the last took {last_round:.0f} s)")
            break
        for model in args.models:
            for system in SYSTEMS:
                if (model, system) in skip or done.get((model, system), 0) >= round_no:
                    continue
                if time.time() > args.deadline:
                    break
                p = prepared.get(model)
                if system.startswith("ours"):
                    r = guarded(model, system, f"round {round_no}", lambda: time_ours(model, system, args))
                elif p is None:
                    continue
                elif system == "torch_eager":
                    r = guarded(model, system, f"round {round_no}",
                                lambda: time_fn(lambda: p.module(*p.inputs), args, torch, tm, True))
                elif system == "torch_compile" and p.compiled is None:
                    pending_compile.append(model)  # compiled after this round's other cells
                    continue
                elif system == "torch_compile":
                    r = guarded(model, system, f"round {round_no}",
                                lambda: time_fn(lambda: p.compiled(*p.inputs), args, torch, tm, True))
                else:  # ort: wall clock (run_with_iobinding synchronizes)
                    r = guarded(model, system, f"round {round_no}", lambda: time_fn(p.ort_fn, args, torch, tm, False))
                if r is not None:
                    timed += r.pop("_seconds", 0)
                    results.add(event="result", model=model, system=system, round=round_no, **r)
                    print(f"e2e_bench: round {round_no} {model} {system} {r['median_ms']:.3f} ms", flush=True)
        # Compiling is slow the first time: our runtime's and the other columns of every model come
        # first, then each model not yet compiled is compiled and timed for this round.
        for model in pending_compile:
            system = "torch_compile"
            p = prepared[model]
            if time.time() > args.deadline - 5:
                break

            def do_compile():
                alarm(min(args.compile_timeout, max(1, args.deadline - time.time())))
                compiled = compile_model(p, args, torch)
                signal.alarm(0)
                return compiled
            c = guarded(model, system, "compile", do_compile)
            if c is None:
                continue
            p.compiled = c[0]
            results.add(event="prepared", model=model, system=system, compile_s=c[1], compile_error_vs_eager=c[2])
            r = guarded(model, system, f"round {round_no}",
                        lambda: time_fn(lambda: p.compiled(*p.inputs), args, torch, tm, True))
            if r is not None:
                timed += r.pop("_seconds", 0)
                results.add(event="result", model=model, system=system, round=round_no, **r)
                print(f"e2e_bench: round {round_no} {model} {system} {r['median_ms']:.3f} ms", flush=True)
        last_round = timed
        if time.time() > args.deadline:
            results.add(event="stopped", round=round_no, error="deadline reached during this round")
            break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
