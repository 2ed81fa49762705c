#!/usr/bin/env bash
# Neither --ucx-lib/--mpi-lib nor the loader path has UCX or libmpi: railkit
# runs in a chroot holding only the binary and what ldd says it needs (with
# /proc and /dev bound in a mount namespace of its own), so "nothing found"
# holds whatever this machine has installed. `bench --backend ucx` (--local 2:
# probed once before the fork) and the mpi bootstrap (Open MPI's launcher
# variables, for bench and validate) must each print exactly one line naming
# the library and every place searched, and exit 2. Needs root (chroot,
# unshare); exit 77 otherwise.
# Usage: missing_lib_test.sh RAILKIT
set -euo pipefail
rk=$1
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (chroot)"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: unshare not found"; exit 77; }
root=$(mktemp -d /tmp/railkit-nolib.XXXXXX)
trap 'rm -rf --one-file-system "$root"' EXIT
cp "$rk" "$root/railkit"
# Every library the binary needs, at the path the loader found it (the
# dynamic loader's line has no "=>").
ldd "$rk" | awk '/=> \//{print $3} /^\t\//{print $1}' | while read -r lib; do
  cp --parents -L "$lib" "$root"
done
mkdir -p "$root/proc" "$root/dev" "$root/tmp"
fail=0
# in_root "VAR=VALUE ..." COMMAND...: COMMAND in the chroot, with only those variables.
in_root() {
  local vars=$1
  shift
  # shellcheck disable=SC2086
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin $vars unshare --mount --propagation private sh -c '
      mount --rbind /proc "$0/proc" && mount --rbind /dev "$0/dev" && exec chroot "$0" "$@"' "$root" "$@"
}
# expect NAME ENV ARGS WANT: stderr must be exactly WANT (one line), the status 2.
expect() {
  local name=$1 env=$2 args=$3 want=$4 out rc=0
  # shellcheck disable=SC2086
  out=$(in_root "$env" /railkit $args 2>&1 >/dev/null) || rc=$?
  if [[ $rc -ne 2 || "$out" != "$want" ]]; then
    printf 'FAIL %s: exit %s, stderr:\n%s\nwant exit 2 and:\n%s\n' "$name" "$rc" "$out" "$want" >&2
    fail=1
  else
    printf 'ok %s: %s\n' "$name" "$out"
  fi
}
ucx_hint='install UCX or point --ucx-lib (RAILKIT_UCX_LIB) at its directory'
mpi_hint='install Open MPI (or HPC-X) or point --mpi-lib (RAILKIT_MPI_LIB) at its directory'
mpi_env='OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_LOCAL_RANK=0'
expect "bench --backend ucx --ucx-lib" "" \
  "bench all_reduce --backend ucx --local 2 -b 1K -e 1K --ucx-lib /nonexistent" \
  "railkit: ucx backend: cannot load libucs.so.0 (searched /nonexistent/libucs.so.0, /nonexistent/libucs.so, the loader path); $ucx_hint"
expect "bench --backend ucx, RAILKIT_UCX_LIB" "RAILKIT_UCX_LIB=/opt/ucx/lib" \
  "bench all_reduce --backend ucx --local 2 -b 1K -e 1K" \
  "railkit: ucx backend: cannot load libucs.so.0 (searched /opt/ucx/lib/libucs.so.0, /opt/ucx/lib/libucs.so, the loader path); $ucx_hint"
expect "bench --backend ucx, the loader path only" "" \
  "bench all_reduce --backend ucx --local 2 -b 1K -e 1K" \
  "railkit: ucx backend: cannot load libucs.so.0 (searched the loader path); $ucx_hint"
expect "bench under mpirun --mpi-lib" "$mpi_env" \
  "bench all_reduce --ctrl-if lo --data-if lo -b 1K -e 1K --mpi-lib /nonexistent" \
  "railkit: rank 0: mpi bootstrap: cannot load libmpi.so.40 (searched /nonexistent/libmpi.so.40, /nonexistent/libmpi.so, the loader path); $mpi_hint"
expect "validate under mpirun, RAILKIT_MPI_LIB" "$mpi_env RAILKIT_MPI_LIB=/opt/hpcx/ompi/lib" \
  "validate --ctrl-if lo --data-if lo" \
  "railkit: rank 0: mpi bootstrap: cannot load libmpi.so.40 (searched /opt/hpcx/ompi/lib/libmpi.so.40, /opt/hpcx/ompi/lib/libmpi.so, the loader path); $mpi_hint"
# Everything else works without them.
if ! in_root "" /railkit bench all_reduce --local 2 -b 1K -e 4K >/dev/null 2>&1; then
  echo "FAIL: bench --local 2 over tcp does not run without UCX and MPI" >&2
  fail=1
fi
exit $fail
