#!/bin/sh
# `superopt verify` refuses bad input with one line and exit 2, leaving the database as it was.
#   verify_errors_test.sh SUPEROPT WORKDIR
set -eu
bin=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
fail() { echo "verify_errors_test: FAIL: $*"; exit 1; }
expect() {  # expect CODE REGEX -- COMMAND...
  code=$1 regex=$2
  shift 3
  set +e
  "$@" >out.txt 2>err.txt
  got=$?
  set -e
  [ "$got" = "$code" ] || fail "$* exited $got, not $code: $(cat err.txt)"
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "$*: stderr is not one line: $(cat err.txt)"
  grep -Eq "$regex" err.txt || fail "$*: stderr does not match $regex: $(cat err.txt)"
}
"$bin" enumerate --max-ops 2 --out rules.h5 --force >/dev/null
before=$(md5sum rules.h5 | cut -d' ' -f1)

printf '# ewadd commutes\naxiom ewadd_comm: forall x:[a,b] y:[a,b]. ewadd(x, y) = ewadd(y, x)\n' > partial.ax
expect 2 "never mention .*matmul" -- "$bin" verify rules.h5 --axioms partial.ax
printf '# broken\naxiom broken: forall x:[a]. relu(x = x\n' > broken.ax
expect 2 "broken.ax:2: " -- "$bin" verify rules.h5 --axioms broken.ax
expect 2 "missing.ax" -- "$bin" verify rules.h5 --axioms missing.ax
expect 2 "nothing.h5" -- "$bin" verify nothing.h5
echo "not a database" > corrupt.h5
expect 2 "corrupt.h5" -- "$bin" verify corrupt.h5
head -c 3000 rules.h5 > truncated.h5
expect 2 "truncated.h5" -- "$bin" verify truncated.h5
expect 2 "timeout-ms" -- "$bin" verify rules.h5 --timeout-ms soon
[ "$(md5sum rules.h5 | cut -d' ' -f1)" = "$before" ] || fail "the database changed"
echo "verify_errors_test: ok"
