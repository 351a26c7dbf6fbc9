"""What the ONNX case tests share: running a superopt command, and running every
case, reporting each (a failing case does not stop the others), ending in one
'NAME: ok' or 'NAME: FAIL' line that CTest's regular expressions read."""
import os
import subprocess


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {(p.stderr or p.stdout).strip()}")
    return p.stdout


def require_cpu_check(superopt, path):
    """run --device cpu --check on the model passes (every operator on oneDNN against the reference)."""
    checked = run([superopt, "run", path, "--device", "cpu", "--threads", "1", "--repeat", "1", "--warmup", "1",
                   "--check"])
    if "check: passed" not in checked:
        raise AssertionError("run --device cpu --check did not pass:\n" + checked)


def run_cases(test_name, argv, cases, check, describe=lambda case: ""):
    """argv: SUPEROPT OUT_DIR. check(superopt, out, *case) returns the case's
    error against PyTorch; describe(case) adds to its line."""
    if len(argv) != 2:
        raise SystemExit(f"usage: {test_name}.py SUPEROPT OUT_DIR")
    superopt, out = argv
    os.makedirs(out, exist_ok=True)
    failed = 0
    for case in cases:
        try:
            err = check(superopt, out, *case)
            print(f"{case[0]}: ok ({describe(case)}error {err:.1e})", flush=True)
        except Exception as e:  # every case is reported
            print(f"{case[0]}: FAIL {e}", flush=True)
            failed += 1
    print(f"{test_name}: " + ("FAIL" if failed else "ok"))
    return 1 if failed else 0
