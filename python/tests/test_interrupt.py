"""Ctrl-C during a search stops it: KeyboardInterrupt comes promptly, the search thread is joined
(the process uses no CPU afterwards and the call's time limit is not waited for), and the GIL is
free while it searches."""
import os
import signal
import subprocess
import sys
import textwrap
import time

from conftest import REPO

SEARCH = textwrap.dedent("""
    import sys, threading, time
    import superopt
    g = superopt.load("builtin:inception_v3")
    rules = superopt.RuleDatabase()
    ticks = []
    def tick():  # runs only while the search has released the GIL
        while len(ticks) < 10**6 and not stopped:
            ticks.append(time.monotonic()); time.sleep(0.01)
    stopped = False
    threading.Thread(target=tick, daemon=True).start()
    print("searching", flush=True)
    try:
        superopt.optimize(g, rules=rules, time_limit=60, alpha=2.0, budget=10**9)
        print("finished", flush=True)
    except KeyboardInterrupt:
        returned = time.monotonic()
        stopped = True
        cpu = time.process_time()
        time.sleep(0.5)  # a search still running would use the CPU meanwhile
        print("interrupted", returned, len(ticks), time.process_time() - cpu, flush=True)
""")


def test_ctrl_c_stops_a_search():
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-c", SEARCH], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env, cwd=REPO)
    assert p.stdout.readline().strip() == "searching"
    time.sleep(2.5)  # past the input's half of the numerical check, into the search
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    line = p.stdout.readline().split()
    out, err = p.communicate(timeout=60)
    assert line and line[0] == "interrupted", (line, out, err)
    assert float(line[1]) - sent < 1.0  # stopped and joined, not left to its 60 s time limit
    assert int(line[2]) > 50  # Python threads ran during the search
    assert float(line[3]) < 0.2  # no search left running in the background
    assert p.returncode == 0, err
