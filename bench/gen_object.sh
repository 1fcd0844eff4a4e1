#!/usr/bin/env bash
# Builds a large AMDGPU code object for bench_object: one OpenCL unit with
# many kernels, noinline functions, structs and loops (clang-19 -O0 -g), then
# COPIES relocatable copies with prefixed symbols linked into one shared
# object. Usage: gen_object.sh OUTDIR COPIES ; prints the path of the .so.
#
# The unit starts with `deep`, whose body inlines a chain of seven
# always_inline functions (d7 calls d6 ... calls d1): a PC in d1's body stands
# in 8 frames, one per inlined call and `deep` itself (bench/debug_layer.sh).
# OUTDIR/big-COPIES.deep holds that PC's offset from `deep`, as
# llvm-dwarfdump-19 gives d1's inlined low_pc in the unit.
set -euo pipefail
out=${1:?OUTDIR}
copies=${2:-200}
mkdir -p "$out"
cd "$out"
if [ -f "big-$copies.so" ]; then echo "$out/big-$copies.so"; exit 0; fi
python3 - <<'PY'
N = 400
out = []
for d in range(1, 8):
    callee = "p[1]" if d == 1 else "d%d(p, a + %d)" % (d - 1, d)
    out.append("__attribute__((always_inline)) static inline int d%d(__global int *p, int a) {" % d)
    out.append("  int w%d = a * %d + %s;" % (d, d + 2, callee))
    out.append("  return w%d ^ p[%d];" % (d, d))
    out.append("}")
out.append("__attribute__((noinline)) int deep(__global int *p, int a) {")
out.append("  int base = a + 3;")
out.append("  return d7(p, base);")
out.append("}")
out.append("__kernel void kdeep(__global int *p, int a) { p[0] = deep(p, a); }")
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
# d1's inlined low_pc minus deep's, both section-relative in big.o.
llvm-dwarfdump-19 --debug-info big.o | python3 -c '
import re, sys
low = {}
current = None
for line in sys.stdin:
    if re.search(r"DW_TAG_(subprogram|inlined_subroutine)", line):
        current = {"tag": line}
    elif current is not None:
        m = re.search(r"DW_AT_(name|abstract_origin).*\"(\w+)\"", line)
        if m and "name" not in current:
            current["name"] = m.group(2)
        m = re.search(r"DW_AT_low_pc\s+\((0x[0-9a-f]+)\)", line)
        if m:
            current["low"] = int(m.group(1), 16)
        if "name" in current and "low" in current:
            kind = "inlined" if "inlined" in current["tag"] else "subprogram"
            low.setdefault((kind, current["name"]), current["low"])
            current = None
print("0x%x" % (low[("inlined", "d1")] - low[("subprogram", "deep")]))
' > "big-$copies.deep"
objs=()
for i in $(seq 1 "$copies"); do
  llvm-objcopy-19 --prefix-symbols="c${i}_" big.o "c$i.o"
  objs+=("c$i.o")
done
ld.lld-19 -shared "${objs[@]}" -o "big-$copies.so"
rm -f "${objs[@]}"
echo "$out/big-$copies.so"
