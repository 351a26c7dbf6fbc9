# Sourced by the reproduction scripts after they set $usage and $accepts (the
# valued flags they take of --models, --sizes, --alphas, --budget, --time-limit).
# Parses the shared flags (--quick, --out DIR, --superopt BIN, --rules FILE,
# --rules-dir DIR, --opset FILE, --allow-unverified, --minimal-rules) and those into $models, $sizes,
# $alphas, $budget, $time_limit, $search (empty unless given), builds superopt
# unless --superopt names one, lets MPI run as root, makes a scratch folder
# $work (removed on exit), and defines rules_for N (a rule database of up to N
# operators: generated, then verified unless --allow-unverified) and get_rules
# NAME (the large databases that scripts/get-rules.sh brings back).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
quick=0
out=$root/scripts/reproduce/out
superopt=
rules=
rules_dir=$root/data/rules
opset=$root/data/opsets/taso.json
unverified=
minimal=
models= sizes= alphas= budget= time_limit= search=
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1; shift ;;
    --out) out=$2; shift 2 ;;
    --superopt) superopt=$2; shift 2 ;;
    --rules) rules=$2; shift 2 ;;
    --rules-dir) rules_dir=$2; shift 2 ;;
    --opset) opset=$2; shift 2 ;;
    --allow-unverified) unverified=--allow-unverified; shift ;;
    --minimal-rules) minimal=--minimal-rules; shift ;;
    -h|--help) echo "$usage"; exit 0 ;;
    --models|--sizes|--alphas|--budget|--time-limit|--search)
      if [[ " ${accepts-} " != *" $1 "* ]] || [ $# -lt 2 ]; then echo "$usage" >&2; exit 2; fi
      name=${1#--}
      printf -v "${name//-/_}" '%s' "$2"
      shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
if [ -z "$superopt" ]; then
  (cd "$root" && bash scripts/build.sh >/dev/null)
  superopt=$root/build/superopt
fi
# A binary copied elsewhere finds no data folder and every row would say FAILED: say why first.
if ! why=$("$superopt" graph check builtin:nasrnn --cost analytic:h100 2>&1 >/dev/null); then
  echo "$0: $superopt cannot cost a graph: ${why:-no message} (a copied binary: set SUPEROPT_DATA_DIR and SUPEROPT_AXIOM_DIR)" >&2
  exit 2
fi
# The opset's name ("taso") names its databases: NAME-N.h5.
if [ ! -f "$opset" ]; then echo "$0: no opset file '$opset'" >&2; exit 2; fi
opset_name=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["name"])' "$opset" 2>/dev/null) ||
  { echo "$0: '$opset' is not an operator set file (JSON with a \"name\")" >&2; exit 2; }
# The shipped verified 3-operator database spares generating and verifying it.
for dir in "$rules_dir" "$root/data/rules"; do
  if [ -z "$rules" ] && [ -f "$dir/$opset_name-3.h5" ]; then rules=$dir/$opset_name-3.h5; fi
done
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
plot=$root/scripts/reproduce/plot.py

# Prints the path of a database of rules of up to $1 operators of --opset
# (default taso): for 3 operators --rules, or NAME-3.h5 in --rules-dir (default
# data/rules); NAME-N.h5 from --rules-dir for the other sizes; else generated
# into $work and verified with 2 workers unless --allow-unverified.
rules_for() {
  local n=$1 db=$work/$opset_name-$1.h5
  if [ "$n" = 3 ] && [ -n "$rules" ]; then echo "$rules"; return; fi
  # A proven database of other sizes in --rules-dir (default data/rules)
  # likewise, unless candidates were asked for. The large ones (taso-4,
  # matmul-2d-5) are not in the working tree: get_rules puts them there.
  if [ "$n" != 3 ] && [ -z "$unverified" ] && [ "$rules_dir" = "$root/data/rules" ]; then
    get_rules "$opset_name-$n" || true
  fi
  if [ "$n" != 3 ] && [ -z "$unverified" ] && [ -f "$rules_dir/$opset_name-$n.h5" ]; then
    echo "$rules_dir/$opset_name-$n.h5"; return
  fi
  if [ ! -f "$db" ]; then
    "$superopt" enumerate --max-ops "$n" --opset "$opset" --out "$db" >/dev/null 2>&1
    if [ -z "$unverified" ]; then
      mpirun -n 3 --oversubscribe "$superopt" verify "$db" >/dev/null 2>&1
    fi
  fi
  echo "$db"
}

# get_rules NAME: data/rules/NAME.h5 for the large databases that are not
# tracked (taso-4, matmul-2d-5): scripts/get-rules.sh restores one from the git
# history in seconds, or rebuilds it (about an hour, announced first; --quick
# does not wait: it says so and returns 1, and the caller does without or
# generates as before). Other names: nothing to do.
get_rules() {
  case $1 in taso-4|matmul-2d-5) ;; *) return 0 ;; esac
  [ -f "$root/data/rules/$1.h5" ] && return 0
  if [ "$quick" = 1 ]; then
    bash "$root/scripts/get-rules.sh" "$1" --no-rebuild >&2 && return 0
    echo "$0: --quick: $1.h5 is not in this clone's history and --quick does not wait to rebuild it (scripts/get-rules.sh $1 does, in about an hour)" >&2
    return 1
  fi
  bash "$root/scripts/get-rules.sh" "$1" >&2
}

# "verified" or "candidates (unverified)": what the optimizer may use.
rules_kind() { if [ -n "$unverified" ]; then echo "candidates (unverified)"; else echo verified; fi; }
