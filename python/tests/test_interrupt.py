"""Ctrl-C during a search raises KeyboardInterrupt at once (the search is left to stop at its time
limit, in the background), and the GIL is free while it searches."""
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
        while True:
            ticks.append(time.monotonic()); time.sleep(0.01)
    threading.Thread(target=tick, daemon=True).start()
    print("searching", flush=True)
    try:
        superopt.optimize(g, rules=rules, time_limit=6, alpha=2.0, budget=10**9)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", time.monotonic(), len(ticks), flush=True)
""")


def test_ctrl_c_interrupts_a_search():
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-c", SEARCH], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env, cwd=REPO)
    assert p.stdout.readline().strip() == "searching"
    time.sleep(1.5)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    line = p.stdout.readline().split()
    out, err = p.communicate(timeout=60)
    assert line and line[0] == "interrupted", (line, out, err)
    assert float(line[1]) - sent < 0.5  # at once, not at the time limit
    assert int(line[2]) > 50  # Python threads ran during the search
    assert p.returncode == 0, err
