#!/usr/bin/env bash
# Builds a large AMDGPU code object for bench_object: one OpenCL unit with
# many kernels, noinline functions, structs and loops (clang-19 -O0 -g), then
# COPIES relocatable copies with prefixed symbols linked into one shared
# object. Usage: gen_object.sh OUTDIR COPIES ; prints the path of the .so.
set -euo pipefail
out=${1:?OUTDIR}
copies=${2:-200}
mkdir -p "$out"
cd "$out"
if [ -f "big-$copies.so" ]; then echo "$out/big-$copies.so"; exit 0; fi
python3 - <<'PY'
N = 400
out = []
for i in range(N):
    out.append("typedef struct { %s } S%d;" % (" ".join("int m%d_%d; float f%d_%d;" % (j, i, j, i) for j in range(12)), i))
    out.append("__attribute__((noinline)) int f%d(__global int *p, int a) {" % i)
    out.append("  S%d s; int loc[8];" % i)
    for j in range(12):
        out.append("  int v%d = a * %d + p[%d];" % (j, j + 1, j))
        out.append("  s.m%d_%d = v%d; s.f%d_%d = (float)v%d;" % (j, i, j, j, i, j))
    out.append("  for (int k = 0; k < 8; ++k) { int t = k * a; loc[k] = t + s.m3_%d; }" % i)
    out.append("  return loc[a & 7] + (int)s.f1_%d;" % i)
    out.append("}")
    out.append("__kernel void k%d(__global int *p, int a) { p[0] = f%d(p, a); }" % (i, i))
open("big.cl", "w").write("\n".join(out))
PY
clang-19 -target amdgcn-amd-amdhsa -mcpu=gfx900 -nogpulib -g -O0 -c big.cl -o big.o
objs=()
for i in $(seq 1 "$copies"); do
  llvm-objcopy-19 --prefix-symbols="c${i}_" big.o "c$i.o"
  objs+=("c$i.o")
done
ld.lld-19 -shared "${objs[@]}" -o "big-$copies.so"
rm -f "${objs[@]}"
echo "$out/big-$copies.so"
