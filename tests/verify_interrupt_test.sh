#!/usr/bin/env bash
# Ctrl-C stops verify: SIGINT ends the command within seconds, alone or under
# mpirun (a Z3 that caught SIGINT during a check would answer "canceled", leave
# that rule unknown and go on), no lock file is left and the database still
# reads. (An earlier "Ctrl-C is swallowed" was a script's background job, which
# starts with SIGINT ignored: hence the launcher below.)
#   verify_interrupt_test.sh SUPEROPT RULES_H5 WORK_DIR
set -euo pipefail
superopt=$1 rules=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "verify_interrupt_test: FAIL: $*"; exit 1; }

# Runs a command with SIGINT at its default action (a script's background job
# would ignore it), interrupts it after 3 s and prints how long it took to end.
interrupt() {
  /usr/bin/python3 - "$@" <<'PY'
import signal, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
time.sleep(3)
if p.poll() is not None:
    print("finished before the interrupt"); sys.exit(0)
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
  result=$(interrupt $launcher "$superopt" verify "$work/rules.h5" --redecide --no-derive)
  case $result in
    "ended after "*) ;;
    *) fail "${launcher:-alone}: $result" ;;
  esac
  [ ! -e "$work/rules.h5.lock" ] || fail "${launcher:-alone}: lock file left behind"
  "$superopt" db info "$work/rules.h5" >/dev/null || fail "${launcher:-alone}: the database no longer reads"
done
rm -rf "$work"
echo "verify_interrupt_test: ok"
