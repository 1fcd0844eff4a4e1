#!/usr/bin/env python3
"""The debugger layer's inlined frames against llvm-symbolizer-19 --inlining.

Builds OpenCL and HIP kernels whose always_inline helpers nest three deep
(one of them with a lexical block of its own, one called twice from the same
caller, and a noinline function that inlines the chain too) with clang-19
-target amdgcn-amd-amdhsa -mcpu=gfx900 -O2 -g (DWARF 5 and 4; relocatable .o
and ld.lld-19 shared object), and for every address where a line-table row
starts, and every 4-byte address of each sequence, compares the frames the debugger layer
makes of a wave stopped there (tests/corpus/wave_frames.c: amddwarf_wave_open
with the PC as an option, amddwarf_wave_frame while the frame is an inlined
subroutine) with llvm-symbolizer-19 --inlining --functions=short: function
names, file basenames, lines and columns of every frame, innermost first.
Also checks the layer's own numbering: frame I has index I, physical frame
0, and inline depths counting down to 0 at the function.

Usage: test_wave_frames.py --amddwarf PATH --work DIR --build DIR
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

OPENCL = r"""
static inline __attribute__((always_inline)) int leaf(int v)
{
  return v * v + 1;
}
static inline __attribute__((always_inline)) int middle(int v, int n)
{
  int a = leaf(v) * 2;
  if (n > 3) {
    int b = leaf(v + n);
    a += b * 3;
  }
  return a + leaf(v + 1);
}
static inline __attribute__((always_inline)) int outer(int v, int n)
{
  int s = 0;
  for (int i = 0; i < (n & 7); ++i)
    s += middle(v + i, n) ^ i;
  return s;
}
__attribute__((noinline)) int helper(int x)
{
  return outer(x, x >> 2) - x;
}
__kernel void k(__global int *out, int n)
{
  int id = __builtin_amdgcn_workitem_id_x();
  int acc = outer(id, n);
  if (id & 1)
    acc += helper(n + id);
  out[id] = acc + middle(acc, id);
}
"""

HIP = r"""
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
__device__ static inline __attribute__((always_inline)) int leaf(int v)
{
  return v * v + 1;
}
__device__ static inline __attribute__((always_inline)) int middle(int v, int n)
{
  int a = leaf(v) * 2;
  if (n > 3) {
    int b = leaf(v + n);
    a += b * 3;
  }
  return a + leaf(v + 1);
}
__device__ static inline __attribute__((always_inline)) int outer(int v, int n)
{
  int s = 0;
  for (int i = 0; i < (n & 7); ++i)
    s += middle(v + i, n) ^ i;
  return s;
}
__device__ __attribute__((noinline)) int helper(int x)
{
  return outer(x, x >> 2) - x;
}
__global__ void k(int *out, int n)
{
  int id = __builtin_amdgcn_workitem_id_x();
  int acc = outer(id, n);
  if (id & 1)
    acc += helper(n + id);
  out[id] = acc + middle(acc, id);
}
"""

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)


def run(args, stdin=None):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, input=stdin,
                          universal_newlines=True)


def build(work, lang, text, dwarf):
    src = os.path.join(work, "inl." + lang)
    with open(src, "w") as f:
        f.write(text)
    base = os.path.join(work, "%s-O2-dwarf%d" % (lang, dwarf))
    common = ["-target", "amdgcn-amd-amdhsa", "-mcpu=gfx900", "-nogpulib", "-g",
              "-gdwarf-%d" % dwarf, "-O2"]
    if lang == "cl":
        r = run(["clang-19"] + common + ["-c", src, "-o", base + ".o"])
    else:
        r = run(["clang-19", "-x", "hip", "--cuda-device-only", "-nogpuinc", "-nogpulib",
                 "--offload-arch=gfx900", "-g", "-gdwarf-%d" % dwarf, "-O2", "-emit-llvm",
                 "-c", src, "-o", base + ".bc"])
        if r.returncode == 0:
            r = run(["clang-19"] + common + ["-c", base + ".bc", "-o", base + ".o"])
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    r = run(["ld.lld-19", "-shared", base + ".o", "-o", base + ".so"])
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    return [base + ".o", base + ".so"]


def row_addresses(amddwarf, path):
    """Every address where a line-table row starts, and every 4-byte address
    from the first row to the end of its sequence."""
    tables = json.loads(run([amddwarf, "lines", path, "--all", "--json"]).stdout)["line_tables"]
    addrs = set()
    for t in tables:
        start = None
        for row in t["rows"]:
            a = int(row["address"], 16)
            if start is None:
                start = a
            if "end_sequence" in row["flags"]:
                addrs.update(range(start, a, 4))
                start = None
            else:
                addrs.add(a)
    return sorted(addrs)


def symbolizer_frames(path, addresses):
    """{address: [(function, file basename, line, column)]} from llvm-symbolizer-19."""
    r = run(["llvm-symbolizer-19", "--obj=" + path, "--inlining", "--functions=short",
             "--output-style=JSON"], "\n".join(hex(a) for a in addresses) + "\n")
    out = {}
    for a, entry in zip(addresses, [json.loads(l) for l in r.stdout.splitlines() if l]):
        frames = []
        for s in entry.get("Symbol", []):
            name = s.get("FunctionName") or "??"
            file = os.path.basename(s["FileName"]) if s.get("FileName") else "??"
            frames.append((name, file, s.get("Line", 0), s.get("Column", 0)))
        out[a] = frames
    return out


def layer_frames(wave_frames, path, addresses):
    """{address: (frames, end status, [(index, physical, inline_depth)])} from wave_frames."""
    r = run([wave_frames, path], "\n".join(hex(a) for a in addresses) + "\n")
    if r.returncode != 0:
        raise RuntimeError("wave_frames %s: %s" % (path, r.stderr))
    out, frames, numbers = {}, [], []
    for line in r.stdout.splitlines():
        fields = line.split("\t")
        if fields[0] == "frame":
            index, physical, depth, fn, file, ln, col = fields[1:]
            frames.append((fn, os.path.basename(file) if file != "??" else "??",
                           int(ln), int(col)))
            numbers.append((int(index), int(physical), int(depth)))
        else:
            _, pc, status = line.split()
            out[int(pc, 16)] = (frames, status, numbers)
            frames, numbers = [], []
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--amddwarf", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--build", required=True)
    args = ap.parse_args()
    for tool in ("clang-19", "ld.lld-19", "llvm-symbolizer-19"):
        if shutil.which(tool) is None:
            print("skipped: %s not found\n0 passed, 0 failed" % tool)
            return 0
    wave_frames = os.path.join(args.build, "tests", "wave_frames")
    work = os.path.join(args.work, "wave_frames")
    os.makedirs(work, exist_ok=True)
    compared = inlined = deepest = 0
    for lang, text in (("cl", OPENCL), ("hip", HIP)):
        for dwarf in (5, 4):
            for path in build(work, lang, text, dwarf):
                label = os.path.basename(path)
                addrs = row_addresses(args.amddwarf, path)
                theirs = symbolizer_frames(path, addrs)
                ours = layer_frames(wave_frames, path, addrs)
                for a in addrs:
                    expected = theirs.get(a, [])
                    frames, status, numbers = ours.get(a, ([], "missing", []))
                    if not expected or expected[0][0] == "??":
                        # No function covers A (padding after the last one).
                        check(len(frames) == 1 and frames[0][0] == "??",
                              "%s 0x%x: the layer has %r, llvm-symbolizer no function"
                              % (label, a, frames))
                        continue
                    check(status == "ok", "%s 0x%x: the frame list ended with %s"
                          % (label, a, status))
                    check(frames == expected, "%s 0x%x: layer %r != llvm-symbolizer %r"
                          % (label, a, frames, expected))
                    n = len(numbers)
                    check(numbers == [(i, 0, n - 1 - i) for i in range(n)],
                          "%s 0x%x: frame numbers %r" % (label, a, numbers))
                    compared += 1
                    inlined += len(frames) > 1
                    deepest = max(deepest, len(frames))
    check(compared > 300 and inlined > 100 and deepest >= 4,
          "compared %d addresses, %d with inlined frames, at most %d frames deep"
          % (compared, inlined, deepest))
    print("%d addresses compared with llvm-symbolizer-19, %d with inlined frames, "
          "up to %d frames" % (compared, inlined, deepest))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
