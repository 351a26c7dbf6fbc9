#!/usr/bin/env bash
# scripts/get-rules.sh, for CTest (issue 33):
#   get_rules_test.sh SOURCE_DIR dry-run NAME WORKDIR
#     --dry-run into WORKDIR/NAME.h5 says what it would do (restore from the
#     history, rebuild, or copy a tracked file) and writes nothing;
#   get_rules_test.sh SOURCE_DIR restore NAME WORKDIR
#     --no-rebuild restores NAME into WORKDIR (SHA-256 checked by the script),
#     a second call keeps it; exit 77 (skip) when this clone's history lacks it.
# Prints "get_rules_test: ok" on success, "get_rules_test: FAIL: ..." otherwise.
set -euo pipefail
src=$1 what=$2 name=$3 work=$4
get=$src/scripts/get-rules.sh
fail() { echo "get_rules_test: FAIL: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
out=$work/$name.h5
case $what in
  dry-run)
    said=$(bash "$get" "$name" --dry-run --out "$out") || fail "--dry-run exited $?"
    echo "$said"
    grep -Eq "would restore .* from git history|dry run: nothing started|is tracked; would copy" <<<"$said" ||
      fail "--dry-run did not say what it would do"
    [ ! -e "$out" ] || fail "--dry-run wrote $out"
    [ -z "$(ls -A "$work")" ] || fail "--dry-run left $(ls -A "$work")"
    ;;
  restore)
    rc=0
    said=$(bash "$get" "$name" --no-rebuild --out "$out" 2>&1) || rc=$?
    echo "$said"
    if [ "$rc" = 3 ]; then echo "get_rules_test: $name is not in this clone's history: skipped"; exit 77; fi
    [ "$rc" = 0 ] || fail "restore exited $rc"
    grep -q "SHA-256 checked" <<<"$said" || fail "restore did not check the SHA-256"
    [ -s "$out" ] || fail "no $out"
    [ "$(ls -A "$work")" = "$name.h5" ] || fail "left behind: $(ls -A "$work")"
    said=$(bash "$get" "$name" --no-rebuild --out "$out") || fail "second call exited $?"
    grep -q "already there (the shipped $name" <<<"$said" || fail "second call did not keep the file: $said"
    ;;
  *) fail "unknown mode $what" ;;
esac
echo "get_rules_test: ok"
