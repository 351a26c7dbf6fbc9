#!/bin/sh
# derive and db check-proofs on a real database: a 2-operator TASO database is
# verified, derived, and every derivation replays; a derive killed midway
# resumes to the same result; a tampered derivation is
# named by check-proofs (exit 1); a corrupt derivation record, one pointing at
# a missing rule, a step's output ('@') not a number or out of the rule's
# range, and a status out of range are one line naming the rule, exit 2, and
# leave the file unchanged.
#   derive_cli_test.sh SUPEROPT WORKDIR
set -eu
bin=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
fail() { echo "derive_cli_test: FAIL: $*"; exit 1; }

"$bin" enumerate --max-ops 2 --out rules.h5 --force >/dev/null
"$bin" verify rules.h5 >/dev/null
cp rules.h5 killed.h5
"$bin" derive rules.h5 --json > derive.json || fail "derive exited $?"
derived=$(/usr/bin/python3 -c "import json; print(json.load(open('derive.json'))['derived'])")
[ "$derived" -gt 0 ] || fail "nothing derived"
"$bin" db check-proofs rules.h5 > check.txt || fail "check-proofs exited $? on fresh derivations: $(cat check.txt)"
grep -q "$derived derivations replayed, 0 invalid" check.txt || fail "check-proofs: $(cat check.txt)"
"$bin" db info rules.h5 | grep -q "minimal set:" || fail "db info does not report the minimal set"

# A derive killed after a few results (the test hook saves, then dies as a
# preempted job would) keeps them, and a new run ends with the same statuses
# and derivations as one that was never stopped.
set +e
SUPEROPT_TEST_EXIT_AFTER_RULES=3 "$bin" derive killed.h5 >/dev/null 2>&1
code=$?
set -e
[ "$code" = 3 ] || fail "the killed derive exited $code"
"$bin" derive killed.h5 >/dev/null || fail "the resumed derive exited $?"
/usr/bin/python3 - rules.h5 killed.h5 <<'PY' || fail "the resumed derive differs from an uninterrupted one"
import sys, h5py
a, b = (h5py.File(p, "r")["rules"] for p in sys.argv[1:3])
sys.exit(any((a[c][:] != b[c][:]).any() for c in ("status", "derivation", "note")))
PY

# Edits one rule's column with h5py: tamper.py FILE COLUMN ACTION
cat > tamper.py <<'PY'
import h5py, sys
path, column, action = sys.argv[1:4]
with h5py.File(path, "r+") as f:
    rules = f["rules"]
    status = rules["status"][:]
    k = next(i for i, s in enumerate(status) if s == 4)  # the first derived rule
    if column == "derivation":
        d = rules["derivation"]
        old = d[k].decode()
        if action == "other-rule":
            step = old.split(";")[0]
            rule = int(step.split(" ")[1][:-1])
            d[k] = old.replace(step.split(" ")[1], str((rule + 1) % k if k else 0) + step.split(" ")[1][-1], 1)
        elif action == "garbage":
            d[k] = "S twelve> 1,2"
        elif action == "missing":
            d[k] = "S 999999> " + old.split(" ", 2)[2]
        elif action == "output-garbage":  # '@' without an output index
            d[k] = old.split(";")[0] + "@x"
        elif action == "output-range":  # an output the rule does not have
            d[k] = old.split(";")[0] + "@7"
    else:
        rules["status"][k] = 9  # no member of the enum has this value
    print(k)
PY
cp rules.h5 tampered.h5
k=$(/usr/bin/python3 tamper.py tampered.h5 derivation other-rule)
set +e
"$bin" db check-proofs tampered.h5 > tampered.txt 2>&1
code=$?
set -e
[ "$code" = 1 ] || fail "check-proofs exited $code on a tampered derivation: $(cat tampered.txt)"
grep -q "^rule $k: invalid derivation: step 1" tampered.txt || fail "check-proofs did not name rule $k: $(cat tampered.txt)"

for action in garbage missing output-garbage output-range status; do
  cp rules.h5 bad.h5
  if [ $action = status ]; then k=$(/usr/bin/python3 tamper.py bad.h5 status x); else k=$(/usr/bin/python3 tamper.py bad.h5 derivation $action); fi
  before=$(md5sum bad.h5)
  for cmd in "db info" "db check-proofs" "derive"; do
    set +e
    "$bin" $cmd bad.h5 > out.txt 2> err.txt
    code=$?
    set -e
    [ "$code" = 2 ] || fail "$cmd on a bad $action exited $code"
    [ "$(wc -l < err.txt)" = 1 ] || fail "$cmd on a bad $action: not one line: $(cat err.txt)"
    grep -q "rule $k\|rules/status\[$k\]" err.txt || fail "$cmd on a bad $action does not name rule $k: $(cat err.txt)"
    [ "$(md5sum bad.h5)" = "$before" ] || fail "$cmd changed the file"
  done
done
echo "derive_cli_test: ok"
