#!/usr/bin/env python3
"""`amddwarf lines ADDR...` (with inlined frames) against llvm-symbolizer-19.

Builds OpenCL and HIP kernels with always_inline helpers nested two deep and
a noinline call (clang-19, gfx900 and gfx1030, -O1/-O2, DWARF 4 and 5, .o and
.so) and, for every address where a line-table row starts and the address
after it, compares the chain of frames amddwarf prints (function, file, line,
column, innermost first) with `llvm-symbolizer-19 --inlining` (C++ names
demangled from their linkage names, as its default --functions=linkage shows
them). All the
addresses of an object are asked in one run (`--pc A,B,...`), each answered
in its entry of the JSON document.

Usage: test_object_lines.py --amddwarf PATH --work DIR [--build DIR]
"""
import json
import os
import sys

from corpus_util import (arguments, check, compile_device, demangled_function_names,
                         link_shared, missing_tool, run, summary, write)

OPENCL = r"""
static inline __attribute__((always_inline)) int sq(int v) { return v * v + 1; }
static inline __attribute__((always_inline)) int twice_sq(int v)
{
  int a = sq(v) * 2;
  return a + sq(v + 1);
}
__attribute__((noinline)) int helper(int x) { return twice_sq(x) - x; }
__kernel void k(__global int *out, int n)
{
  int id = __builtin_amdgcn_workitem_id_x();
  int acc = 0;
  for (int i = 0; i < (id & 7); ++i)
    acc += twice_sq(id + i) + helper(n);
  out[id] = acc;
}
"""

HIP = r"""
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
__device__ static inline __attribute__((always_inline)) int sq(int v) { return v * v + 1; }
__device__ static inline __attribute__((always_inline)) int twice_sq(int v)
{
  int a = sq(v) * 2;
  return a + sq(v + 1);
}
__device__ __attribute__((noinline)) int helper(int x) { return twice_sq(x) - x; }
__global__ void k(int *out, int n)
{
  int id = __builtin_amdgcn_workitem_id_x();
  int acc = 0;
  for (int i = 0; i < (id & 7); ++i)
    acc += twice_sq(id + i) + helper(n);
  out[id] = acc;
}
"""

def symbolizer_frames(path, addresses):
    """{address: [(function, file, line, column)]} from llvm-symbolizer: with
    --functions=short, C++ names then demangled from their linkage names as
    llvm-symbolizer's default --functions=linkage shows them (taken from the
    DWARF, since in a relocatable object, where every section starts at 0,
    --functions=linkage names the outermost function by whichever symbol lies
    at the address)."""
    cxx = demangled_function_names(path)
    r = run(["llvm-symbolizer-19", "--obj=" + path, "--inlining", "--functions=short"],
            "\n".join(hex(a) for a in addresses) + "\n")
    out = {}
    blocks = r.stdout.split("\n\n")
    for a, block in zip(addresses, blocks):
        lines = [l for l in block.strip().splitlines() if l]
        frames = []
        for fn, loc in zip(lines[0::2], lines[1::2]):
            file, line, col = loc.rsplit(":", 2)
            frames.append((cxx.get(fn, fn), file, int(line), int(col)))
        out[a] = frames
    return out


def main():
    args = arguments(__doc__)
    if missing_tool("clang-19", "ld.lld-19", "llvm-symbolizer-19"):
        return 0
    work = os.path.join(args.work, "object_lines")
    os.makedirs(work, exist_ok=True)
    compared = 0
    inlined = 0
    for lang, text in (("cl", OPENCL), ("hip", HIP)):
        src = write(os.path.join(work, "inl." + lang), text)
        for cpu in ("gfx900", "gfx1030"):
            for opt in ("-O1", "-O2"):
                for dw in (4, 5):
                    base = os.path.join(work, "%s-%s%s-dwarf%d" % (lang, cpu, opt, dw))
                    compile_device(lang, src, base + ".o", cpu, ["-g", "-gdwarf-%d" % dw, opt])
                    link_shared(base + ".o", base + ".so")
                    for path in (base + ".o", base + ".so"):
                        tables = json.loads(run([args.amddwarf, "lines", path, "--all",
                                                 "--json"]).stdout)["line_tables"]
                        addrs = set()
                        for t in tables:
                            for row in t["rows"]:
                                if "end_sequence" not in row["flags"]:
                                    a = int(row["address"], 16)
                                    addrs.update((a, a + 4))
                        addrs = sorted(addrs)
                        theirs = symbolizer_frames(path, addrs)
                        answers = []
                        for c in range(0, len(addrs), 2000):  # arguments stay short
                            r = run([args.amddwarf, "lines", path, "--json",
                                     "--pc", ",".join(hex(a) for a in addrs[c:c + 2000])])
                            answers += json.loads(r.stdout)["queries"]
                        check(len(answers) == len(addrs), "%s: %d answers for %d addresses"
                              % (path, len(answers), len(addrs)))
                        for a, answer in zip(addrs, answers):
                            check(int(answer["address"], 16) == a,
                                  "%s 0x%x: answered in order" % (path, a))
                            expected = theirs.get(a, [])
                            if expected and expected[0][1] == "??":
                                check("error" in answer, "%s 0x%x: amddwarf found a line, "
                                      "llvm-symbolizer none" % (path, a))
                                continue
                            if "error" in answer:
                                check(False, "%s 0x%x: %s" % (path, a, answer["error"]))
                                continue
                            ours = [(f["function"] or "??", f["file"], f["line"], f["column"])
                                    for f in answer["frames"]]
                            check(ours == expected, "%s 0x%x: %r != llvm-symbolizer %r"
                                  % (os.path.basename(path), a, ours, expected))
                            compared += 1
                            inlined += len(ours) > 1
    check(compared > 500 and inlined > 50,
          "compared %d addresses (%d with inlined frames)" % (compared, inlined))
    print("%d addresses compared with llvm-symbolizer-19, %d with inlined frames"
          % (compared, inlined))
    return summary()


if __name__ == "__main__":
    sys.exit(main())
