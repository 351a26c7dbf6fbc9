#!/usr/bin/env bash
# Ctrl-C stops verify: SIGINT ends the command within seconds, alone or under
# mpirun, no lock file is left and the database still reads. Z3 catches SIGINT
# during a check unless told not to (its "ctrl_c" parameter, off in prover.cc):
# it would answer "canceled", leave that rule unknown and go on. A script's
# background job starts with SIGINT ignored: hence the launcher below.
#   verify_interrupt_test.sh SUPEROPT RULES_H5 WORK_DIR
set -euo pipefail
superopt=$1 rules=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "verify_interrupt_test: FAIL: $*"; exit 1; }

# Runs a command with SIGINT at its default action (a script's background job
# would ignore it), interrupts it once it holds the database's lock plus 2 s,
# and prints how long it took to end. A launch that fails before the interrupt
# (an mpirun that cannot start under a loaded ctest -j) is retried twice and
# reported with its exit status and last error lines.
interrupt() {
  /usr/bin/python3 - "$@" <<'PY'
import os, signal, subprocess, sys, tempfile, time
lock = sys.argv[1]; command = sys.argv[2:]
for attempt in range(3):
    log = tempfile.TemporaryFile()
    p = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 30
    while p.poll() is None and not os.path.exists(lock) and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(2)
    if p.poll() is None:
        break
    log.seek(0)
    err = log.read().decode(errors="replace").strip().splitlines()[-3:]
    if p.returncode == 0:
        print("finished before the interrupt (exit 0): " + " | ".join(err)); sys.exit(0)
    print("attempt %d ended before the interrupt with exit %d: %s"
          % (attempt + 1, p.returncode, " | ".join(err)), file=sys.stderr)
else:
    print("did not start in 3 attempts"); sys.exit(0)
start = time.time(); p.send_signal(signal.SIGINT)
try:
    p.wait(timeout=30); print("ended after %.1f s" % (time.time() - start))
except subprocess.TimeoutExpired:
    p.kill(); print("still running 30 s after SIGINT")
PY
}

for launcher in "" "mpirun -n 2 --oversubscribe"; do
  cp "$rules" "$work/rules.h5"
  # --redecide: every rule goes to Z3 again, a run of many seconds.
  result=$(interrupt "$work/rules.h5.lock" $launcher "$superopt" verify "$work/rules.h5" --redecide --no-derive)
  case $result in
    "ended after "*) ;;
    *) fail "${launcher:-alone}: $result" ;;
  esac
  [ ! -e "$work/rules.h5.lock" ] || fail "${launcher:-alone}: lock file left behind"
  "$superopt" db info "$work/rules.h5" >/dev/null || fail "${launcher:-alone}: the database no longer reads"
done
rm -rf "$work"
echo "verify_interrupt_test: ok"
