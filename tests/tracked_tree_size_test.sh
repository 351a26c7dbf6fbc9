#!/usr/bin/env bash
# Issue 33: the tracked tree must travel to a GPU machine (64 MiB with the
# bundle), so it stays under LIMIT_MIB (default 20). Sums the sizes of the
# files `git ls-files` lists (as committed: a file deleted or changed in the
# working tree counts at its index size) and fails naming the largest ones.
# Large rule databases belong outside it (scripts/get-rules.sh).
# Exit 77 (CTest's SKIP_RETURN_CODE) when SOURCE_DIR is not a git checkout.
#   tests/tracked_tree_size_test.sh SOURCE_DIR [LIMIT_MIB]
set -euo pipefail
src=$(cd "${1:?usage: tracked_tree_size_test.sh SOURCE_DIR [LIMIT_MIB]}" && pwd -P)
limit_mib=${2:-20}
if ! command -v git >/dev/null || [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" != "$src" ]; then
  echo "tracked_tree_size: $src is not a git checkout: skipped"
  exit 77
fi
# Sizes from the index (ls-files -s gives each blob; cat-file --batch-check its
# size), so that a file missing or edited in the working tree still counts.
sizes=$(git -C "$src" ls-files -s -z | tr '\0' '\n' | awk '{print $2}' |
  git -C "$src" cat-file --batch-check='%(objectsize)' | paste - <(git -C "$src" ls-files -s -z | tr '\0' '\n' | cut -f2-))
total=$(awk -F'\t' '{s += $1} END {print s + 0}' <<<"$sizes")
mib=$(awk "BEGIN{printf \"%.1f\", $total / 1048576}")
if [ "$total" -gt $((limit_mib * 1048576)) ]; then
  # awk reads to the end (no head): under pipefail, sort killed by SIGPIPE would fail the line (exit 141).
  largest=$(sort -t$'\t' -k1,1 -rn <<<"$sizes" | awk -F'\t' 'NR <= 5 {printf "%s%s (%.1f MiB)", (NR > 1 ? ", " : ""), $2, $1 / 1048576}')
  echo "tracked_tree_size: FAIL: the tracked tree is $mib MiB, over $limit_mib MiB; largest: $largest (large rule databases: scripts/get-rules.sh)" >&2
  exit 1
fi
echo "tracked_tree_size: ok: $mib MiB in $(wc -l <<<"$sizes") tracked files, limit $limit_mib MiB"
