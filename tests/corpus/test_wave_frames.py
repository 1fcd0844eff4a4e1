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
subroutine) with llvm-symbolizer-19 --inlining --functions=linkage (its
default: C++ names demangled from their linkage names): function names,
file basenames, lines and columns of every frame, innermost first.
Also checks the layer's own numbering: frame I has index I, physical frame
0, and inline depths counting down to 0 at the function.

Usage: test_wave_frames.py --amddwarf PATH --work DIR --build DIR
"""
import json
import os
import sys

from corpus_util import (arguments, check, compile_device, demangled_function_names,
                         link_shared, missing_tool, run,
                         run_json, run_ok, summary, write)

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

def build(work, lang, text, dwarf):
    src = write(os.path.join(work, "inl." + lang), text)
    base = os.path.join(work, "%s-O2-dwarf%d" % (lang, dwarf))
    compile_device(lang, src, base + ".o", flags=["-g", "-gdwarf-%d" % dwarf, "-O2"])
    link_shared(base + ".o", base + ".so")
    return [base + ".o", base + ".so"]


def row_addresses(amddwarf, path):
    """Every address where a line-table row starts, and every 4-byte address
    from the first row to the end of its sequence."""
    tables = run_json([amddwarf, "lines", path, "--all", "--json"])["line_tables"]
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
    """{address: [(function, file basename, line, column)]} from llvm-symbolizer-19
    --functions=short, C++ names then demangled from their linkage names as its
    default --functions=linkage shows them (corpus_util.demangled_function_names)."""
    cxx = demangled_function_names(path)
    r = run(["llvm-symbolizer-19", "--obj=" + path, "--inlining", "--functions=short",
             "--output-style=JSON"], "\n".join(hex(a) for a in addresses) + "\n")
    out = {}
    for a, entry in zip(addresses, [json.loads(l) for l in r.stdout.splitlines() if l]):
        frames = []
        for s in entry.get("Symbol", []):
            name = s.get("FunctionName") or "??"
            file = os.path.basename(s["FileName"]) if s.get("FileName") else "??"
            frames.append((cxx.get(name, name), file, s.get("Line", 0), s.get("Column", 0)))
        out[a] = frames
    return out


def layer_frames(wave_frames, path, addresses):
    """{address: (frames, end status, [(index, physical, inline_depth)])} from wave_frames."""
    r = run_ok([wave_frames, path], stdin="\n".join(hex(a) for a in addresses) + "\n")
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


def check_views(amddwarf, work):
    """The CLI's views of an inlined frame agree with llvm-symbolizer-19:
    `vars --frame 1` is at the call site of frame 1 (its file, line and
    column), and `eval s` at a PC in leaf, where only the inlining `outer`
    has an `s`, names that frame and the command that reads it there."""
    path = os.path.join(work, "cl-O2-dwarf5.so")
    addrs = row_addresses(amddwarf, path)
    theirs = symbolizer_frames(path, addrs)
    places = hints = 0
    for a in addrs:
        frames = theirs.get(a, [])
        if len(frames) < 2 or frames[0][0] == "??":
            continue
        state = write(os.path.join(work, "views-wave.json"),
                      '{"architecture": "gfx900", "pc": "0x%x", "exec": "0x1"}' % a)
        if places < 40:
            first = run_ok([amddwarf, "vars", path, "--state", state, "--frame", "1"]
                           ).stdout.splitlines()[0]
            fn, file, line, column = frames[1]
            check(first.endswith("/%s:%d:%d" % (file, line, column)) or
                  first.endswith(": %s:%d:%d" % (file, line, column)),
                  "0x%x: vars --frame 1 says %r, llvm-symbolizer frame 1 is %s:%d:%d"
                  % (a, first, file, line, column))
            places += 1
        names = [f[0] for f in frames]
        if hints < 20 and names[0] == "leaf" and "outer" in names:
            k = names.index("outer")
            r = run([amddwarf, "eval", path, "--state", state, "s"])
            check(r.returncode == 1 and
                  ("; frame %d (outer) has one (not_found)" % k) in r.stderr and
                  ("note: read it there: amddwarf eval %s --state %s --frame %d s"
                   % (path, state, k)) in r.stderr,
                  "0x%x: eval s (outer is frame %d): %r" % (a, k, r.stderr))
            hints += 1
    check(places >= 40 and hints >= 5, "compared %d call sites and %d hints" % (places, hints))
    print("vars --frame 1 at %d call sites and %d out-of-scope hints agree with "
          "llvm-symbolizer-19" % (places, hints))


def main():
    args = arguments(__doc__, build_required=True)
    if missing_tool("clang-19", "ld.lld-19", "llvm-symbolizer-19"):
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
    check_views(args.amddwarf, work)
    check(compared > 300 and inlined > 100 and deepest >= 4,
          "compared %d addresses, %d with inlined frames, at most %d frames deep"
          % (compared, inlined, deepest))
    print("%d addresses compared with llvm-symbolizer-19, %d with inlined frames, "
          "up to %d frames" % (compared, inlined, deepest))
    return summary()


if __name__ == "__main__":
    sys.exit(main())
