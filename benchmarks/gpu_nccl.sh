#!/usr/bin/env bash
# benchmarks/gpu_nccl.sh NCCL_TESTS_SRC TARBALL OUTDIR
# On a machine with NVIDIA GPUs and a PyTorch whose wheels ship NCCL (the
# nvidia-nccl-* and nvidia-cuda-runtime-* packages): unpacks the release
# tarball, runs the portable railkit there (inspect, doctor, env), runs
# `railkit bench all --backend nccl` on every GPU with --nccl-lib pointing at
# PyTorch's site-packages, builds nccl-tests from NCCL_TESTS_SRC (a checkout of
# NVIDIA/nccl-tests) against the same libnccl.so.2, runs its *_perf binaries
# over the same sizes, and prints both tables side by side (algbw, busbw,
# #wrong). Everything each step printed is kept in OUTDIR. Not a test: a GPU
# is never in CI. Needs nvcc (CUDA_HOME, default /usr/local/cuda).
set -uo pipefail
src=${1:?usage: gpu_nccl.sh NCCL_TESTS_SRC TARBALL OUTDIR}
tarball=${2:?usage: gpu_nccl.sh NCCL_TESTS_SRC TARBALL OUTDIR}
out=${3:?usage: gpu_nccl.sh NCCL_TESTS_SRC TARBALL OUTDIR}
min=${MIN_BYTES:-8}
max=${MAX_BYTES:-256M}
factor=${FACTOR:-4}
cuda_home=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$out"
step() { echo; echo "== $*"; }

step machine
{ sed -n 's/^PRETTY_NAME=//p' /etc/os-release; ldd --version | head -1; uname -r; nproc
  lscpu | sed -n 's/^Model name: *//p'; cut -d' ' -f1-3 /proc/loadavg
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } 2>&1 | tee "$out/machine.txt"
gpus=$(nvidia-smi -L | grep -c '^GPU')

step "the release tarball"
work=$(mktemp -d)
tar -xzf "$tarball" -C "$work" || exit 2
rk=$(echo "$work"/railkit-*/bin/railkit)
env -i "$rk" --version
"$rk" inspect >"$out/inspect.txt" 2>&1; echo "inspect: exit $?"
"$rk" inspect --json >"$out/inspect.json" 2>&1; echo "inspect --json: exit $?"
"$rk" doctor >"$out/doctor.txt" 2>&1; echo "doctor: exit $?"
"$rk" env >"$out/env.txt" 2>&1; echo "env: exit $?"
head -40 "$out/inspect.txt"

step "NCCL from PyTorch's wheels"
site=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))') || exit 2
nccl_so=$(find "$site/nvidia" -name 'libnccl.so.2' | head -1)
nccl_h=$(find "$site/nvidia" "$cuda_home/include" /usr/include -name 'nccl.h' 2>/dev/null | head -1)
echo "site-packages $site; $nccl_so; $nccl_h"
[ -n "$nccl_so" ] && [ -n "$nccl_h" ] || { echo "no libnccl.so.2 / nccl.h under $site/nvidia"; exit 2; }

step "railkit bench all --backend nccl --local $gpus"
NCCL_DEBUG=INFO NCCL_DEBUG_FILE="$out/railkit_nccl_debug.%h.%p.log" \
  "$rk" bench all --backend nccl --local "$gpus" --nccl-lib "$site" -b "$min" -e "$max" -f "$factor" \
  --json-out "$out/railkit_bench_all.json" >"$out/railkit_bench_all.txt" 2>&1
status=$?
echo "railkit bench: exit $status"
if [ "$status" -eq 2 ]; then
  # Not found through --nccl-lib and the loader path: say so, then try with
  # the CUDA toolkit's runtime on LD_LIBRARY_PATH.
  head -3 "$out/railkit_bench_all.txt"
  LD_LIBRARY_PATH="$cuda_home/lib64" NCCL_DEBUG=INFO NCCL_DEBUG_FILE="$out/railkit_nccl_debug.%h.%p.log" \
    "$rk" bench all --backend nccl --local "$gpus" --nccl-lib "$site" -b "$min" -e "$max" -f "$factor" \
    --json-out "$out/railkit_bench_all.json" >"$out/railkit_bench_all.txt" 2>&1
  echo "railkit bench (LD_LIBRARY_PATH=$cuda_home/lib64): exit $?"
fi
cat "$out/railkit_bench_all.txt"
"$rk" logs "$out"/railkit_nccl_debug.*.log >"$out/railkit_logs_on_debug.txt" 2>&1; echo "railkit logs (NCCL_DEBUG): exit $?"
cat "$out/railkit_logs_on_debug.txt"

step "nccl-tests from source against the same NCCL"
home=$work/ncclhome
mkdir -p "$home/include" "$home/lib"
ln -s "$nccl_h" "$home/include/nccl.h"
ln -s "$nccl_so" "$home/lib/libnccl.so.2"
ln -s "$nccl_so" "$home/lib/libnccl.so"
if ! make -C "$src/src" -j "$(nproc)" NCCL_HOME="$home" CUDA_HOME="$cuda_home" BUILDDIR="$work/nt" \
     NVCC_GENCODE="${NVCC_GENCODE:--gencode=arch=compute_90,code=sm_90}" >"$out/nccl_tests_build.log" 2>&1; then
  tail -20 "$out/nccl_tests_build.log"; exit 2
fi
for op in all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv; do
  LD_LIBRARY_PATH="$home/lib:$cuda_home/lib64" "$work/nt/${op}_perf" -b "$min" -e "$max" -f "$factor" -g "$gpus" -c 1 \
    >"$out/nccl_tests_$op.txt" 2>&1
  echo "${op}_perf: exit $?"
done
"$rk" logs "$out"/nccl_tests_all_reduce.txt >"$out/railkit_logs_on_nccl_tests.txt" 2>&1
echo "railkit logs (nccl-tests all_reduce): exit $?"

step "side by side (out-of-place algbw GB/s, busbw GB/s, #wrong)"
python3 - "$out" <<'PY'
import re, sys, pathlib
out = pathlib.Path(sys.argv[1])
def tables(text):
    """{op: {size: (algbw, busbw, wrong)}} from nccl-tests-layout text."""
    result, op = {}, None
    for line in text.splitlines():
        m = re.match(r"# Collective test starting: (\w+)", line)
        if m: op = m.group(1)
        f = line.split()
        if len(f) >= 13 and f[0].isdigit() and not line.startswith("#"):
            result.setdefault(op, {})[int(f[0])] = (f[6], f[7], f[8])
    return result
rk = tables((out / "railkit_bench_all.txt").read_text(errors="replace"))
for op in ["all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv"]:
    p = out / f"nccl_tests_{op}.txt"
    nt = tables(p.read_text(errors="replace")).get(None, {}) if p.exists() else {}
    mine = rk.get(op, {})
    print(f"# {op}: size | railkit algbw busbw #wrong | nccl-tests algbw busbw #wrong")
    for size in sorted(set(mine) | set(nt)):
        a, b = mine.get(size, ("-", "-", "-")), nt.get(size, ("-", "-", "-"))
        print(f"{size:>12} | {a[0]:>8} {a[1]:>8} {a[2]:>6} | {b[0]:>8} {b[1]:>8} {b[2]:>6}")
PY
