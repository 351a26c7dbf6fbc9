#!/usr/bin/env bash
# Puts a shipped rule database in place. The two large ones, taso-4 (59.5 MB)
# and matmul-2d-5 (81.4 MB), left the working tree (issue 33: the tree must
# travel to a GPU machine in 64 MiB) and are one command away: this script
# restores them from the repository's own git history when the clone has it
# (the exact file, checked against the SHA-256 recorded below), else rebuilds
# them with scripts/bench/rules-pipeline.sh (about an hour on 2 cores; it says
# how long before it starts). The small databases (taso-3, matmul-2d-2/3/4)
# stay tracked: for them it says where they are (and copies one to --out).
#   scripts/get-rules.sh NAME [--out PATH] [--dry-run] [--rebuild | --no-rebuild]
# NAME: taso-4, matmul-2d-5 (or taso-3, matmul-2d-2, matmul-2d-3, matmul-2d-4).
# --out PATH   where to put it (default data/rules/NAME.h5, ignored by git)
# --dry-run    only say what it would do
# --rebuild    rebuild with rules-pipeline.sh even when the history has the file
# --no-rebuild restore from history or fail with exit 3 (for scripts that
#              cannot wait an hour: --quick modes, tests)
# An existing PATH is kept (the shipped file or a rebuilt one) unless --rebuild.
# Exit: 0 in place, 1 restore or rebuild failed, 2 bad name or flag, 3 not in
# this clone's history and --no-rebuild.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
usage="usage: scripts/get-rules.sh NAME [--out PATH] [--dry-run] [--rebuild | --no-rebuild] (NAME: taso-4, matmul-2d-5, taso-3, matmul-2d-2, matmul-2d-3, matmul-2d-4)"
say() { echo "get-rules: $*"; }
die() { echo "get-rules: $2" >&2; exit "$1"; }

name='' out='' dry=0 mode=auto
while [ $# -gt 0 ]; do
  case $1 in
    --out) [ $# -ge 2 ] || die 2 "--out needs a path; $usage"; out=$2; shift 2 ;;
    --dry-run) dry=1; shift ;;
    --rebuild) mode=rebuild; shift ;;
    --no-rebuild) mode=history; shift ;;
    -h|--help) echo "$usage"; exit 0 ;;
    -*) die 2 "unknown flag '$1'; $usage" ;;
    *) [ -z "$name" ] || die 2 "one NAME only ('$name', then '$1'); $usage"; name=$1; shift ;;
  esac
done
[ -n "$name" ] || die 2 "no NAME; $usage"

# The large databases as they were last tracked (data/rules/README.md says how
# each was made): size, SHA-256, git blob id, the rebuild's flags and cost.
case $name in
  taso-4)
    bytes=59502410
    sha=355d3f07e35dd82057932509be6afbd2f43d9e31eefdbf24d9ddd71016ed5c93
    blob=e27f256656700c9d2f23a3d3fcf385f4d857627b
    pipeline=(--max-ops 4 --memory-per-rank 3G)
    cost="about 45 min on 2 cores (44.7 min measured), 4 GB per process and 6.5 GB summed over 3 ranks"
    differs="the same 415,786 rules (683 refuted), minimized with 3-step derivations: minimal set 4,663 and 790 unknown where the shipped file has 2,025 and 599 (build/superopt derive FILE --max-steps 4, about 18 min, takes it further)"
    ;;
  matmul-2d-5)
    bytes=81388723
    sha=0fd598cf752d407a9572b23d34fc72fefd82279d9c0013df289bffba16517637
    blob=9a8a0aafe680193da9fc64fd36dc094a46e30f31
    pipeline=(--opset data/opsets/matmul-2d.json --max-ops 5 --derive-steps 2)
    cost="about 60 min on 2 cores (60.4 min measured), 6.3 GB per process and 16 GiB summed over 3 ranks"
    differs="the same 639,840 rules; minimal set 25,851 and 1,216 unknown where the shipped file (an older binary's) has 30,497 and 1,366"
    ;;
  taso-3|matmul-2d-2|matmul-2d-3|matmul-2d-4)
    tracked=data/rules/$name.h5
    [ -f "$root/$tracked" ] || die 1 "$tracked is tracked but missing from this tree: git checkout -- $tracked"
    if [ -z "$out" ] || [ "$(readlink -f "$out")" = "$(readlink -f "$root/$tracked")" ]; then
      say "$tracked is tracked (in the working tree): nothing to restore"
    elif [ "$dry" = 1 ]; then
      say "$tracked is tracked; would copy it to $out"
    else
      cp "$root/$tracked" "$out" && say "$tracked is tracked; copied to $out"
    fi
    exit 0
    ;;
  *) die 2 "unknown database '$name'; $usage" ;;
esac
rel=data/rules/$name.h5
[ -n "$out" ] || out=$root/$rel
case $out in /*) ;; *) out=$PWD/$out ;; esac
mb=$(awk "BEGIN{printf \"%.1f\", $bytes / 1e6}")

if [ -e "$out" ] && [ "$mode" != rebuild ]; then
  # sha256sum reads the whole file (1 s for 80 MB): worth it to say what it is.
  if [ "$(sha256sum "$out" | cut -d' ' -f1)" = "$sha" ]; then
    say "$out is already there (the shipped $name, SHA-256 checked)"
  else
    say "$out is already there, not the shipped file (a rebuild?); kept (--rebuild makes it again, or delete it to restore the shipped one)"
  fi
  exit 0
fi

# Where the history has it: the blob id finds it in any clone that holds the
# commit, whatever happened to the path since.
in_history=0 why=
if ! command -v git >/dev/null; then
  why="no git here"
elif [ "$(git -C "$root" rev-parse --show-toplevel 2>/dev/null)" != "$root" ]; then
  why="$root is not a git checkout, e.g. an installed copy"
elif git -C "$root" cat-file -e "$blob" 2>/dev/null; then
  in_history=1
  # The last commit that had the path (its deletion's parent), for the message.
  commit=$(git -C "$root" log -1 --format=%H -- "$rel" 2>/dev/null || true)
  if [ -n "$commit" ] && ! git -C "$root" cat-file -e "$commit:$rel" 2>/dev/null; then commit=$commit^; fi
  commit=$(git -C "$root" rev-parse --short "${commit:-HEAD}" 2>/dev/null || true)
  where="git history (${commit:+commit $commit, }blob ${blob:0:12})"
elif [ "$(git -C "$root" rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
  why="this clone is shallow; git fetch --unshallow brings the history that has it"
else
  why="this clone's history does not have it"
fi

if [ "$in_history" = 1 ] && [ "$mode" != rebuild ]; then
  if [ "$dry" = 1 ]; then
    say "would restore $out ($mb MB) from $where and check its SHA-256"
    exit 0
  fi
  mkdir -p "$(dirname "$out")"
  tmp=$out.partial.$$
  trap 'rm -f "$tmp"' EXIT
  git -C "$root" cat-file blob "$blob" >"$tmp" || die 1 "git cat-file of $name failed"
  got=$(sha256sum "$tmp" | cut -d' ' -f1)
  [ "$got" = "$sha" ] || die 1 "restored $name has SHA-256 $got, not the recorded $sha"
  mv "$tmp" "$out"
  say "restored $out ($mb MB) from $where; SHA-256 checked"
  exit 0
fi

# Rebuild: the pipeline builds superopt in a source checkout; an installed copy
# hands it its own binary (bin/ two levels above share/superopt/).
why=${why:-"asked with --rebuild"}
[ "$mode" = history ] && die 3 "$name is not restorable without rebuilding ($why); scripts/get-rules.sh $name rebuilds it, $cost"
bin=()
if [ ! -f "$root/CMakeLists.txt" ]; then
  for b in "$root/../../bin/superopt" "$(command -v superopt || true)"; do
    if [ -n "$b" ] && [ -x "$b" ]; then bin=(--superopt "$(cd "$(dirname "$b")" && pwd)/superopt"); break; fi
  done
  [ ${#bin[@]} -gt 0 ] || die 1 "cannot rebuild $name: no source tree to build and no superopt binary (bin/ or PATH)"
fi
command=(bash "$root/scripts/bench/rules-pipeline.sh" "${pipeline[@]}" "${bin[@]}")
say "rebuilding $name ($why): ${command[*]#$root/} --keep $out"
say "that takes $cost; the result is $differs"
if [ "$dry" = 1 ]; then
  say "(dry run: nothing started)"
  exit 0
fi
mkdir -p "$(dirname "$out")"
tmp=$out.partial.$$
trap 'rm -f "$tmp"' EXIT
start=$(date +%s)
"${command[@]}" --keep "$tmp" || die 1 "rules-pipeline.sh failed for $name (its output above)"
[ -s "$tmp" ] || die 1 "rules-pipeline.sh left no database for $name"
mv "$tmp" "$out"
say "rebuilt $out in $((($(date +%s) - start) / 60)) min"
