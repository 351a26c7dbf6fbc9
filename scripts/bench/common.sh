# Sourced by the benchmark scripts: builds superopt (not with NO_BUILD=1, for a
# build/superopt already made), lets MPI run as root (containers), makes a
# scratch folder $work removed on exit, and names the machine the figures are from.
[ "${NO_BUILD:-0}" = 1 ] || bash scripts/build.sh >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
machine="$(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
