#!/usr/bin/env python3
"""`amddwarf dump` prints DIEs as llvm-dwarfdump-19 --debug-info does.

Builds OpenCL and HIP kernels with Debian's clang-19 and ld.lld-19 (gfx90a,
-O0 and -O2, DWARF 4 and 5) as relocatable .o files and linked .so files,
runs `amddwarf dump OBJECT` and `llvm-dwarfdump-19 --debug-info OBJECT`, and
requires the two texts to be equal line for line after the normalizations
that specs/code-objects.md ("amddwarf dump") documents, and only those:

  * the header lines of each tool are dropped (llvm-dwarfdump's file format
    and "Compile Unit:" lines; amddwarf's object summary and unit lines),
    and so are blank lines;
  * llvm-dwarfdump's NULL lines (the entries that end a list of children)
    are dropped: amddwarf lists DIEs only;
  * llvm-dwarfdump-19 names AMDGPU DWARF registers by their 16-bit low
    halves ("VGPR3_LO16"); the suffix is dropped;
  * llvm-dwarfdump-19 names an anonymous struct, union, class or enum type
    "structure " ("union ", "class ", "enumeration "); amddwarf's type
    names say "<anonymous struct>" ("<anonymous enum>", ...).

Usage: test_dump_dwarfdump.py --amddwarf PATH --work DIR [--build DIR]
"""
import os
import re
import sys

from corpus_util import (CLANG, LLD, arguments, check, compile_hip, compile_opencl, link_shared,
                         missing_tool, run_ok, summary, write)

DWARFDUMP = "llvm-dwarfdump-19"

OPENCL_SOURCE = r"""
typedef struct { int x; float y; short z[3]; } S;
typedef enum { RED = 1, GREEN = 2 } colour;

__attribute__((noinline)) int helper(int a, __local int *t)
{
  int r = a * 3;
  return r + t[a & 7];
}

static inline int twice(int v) { return v * 2; }

__kernel void k(__global int *out, __global const S *in, int n, colour c)
{
  __local int tile[64];
  int priv[8];
  int id = __builtin_amdgcn_workitem_id_x();
  S s = in[id];
  tile[id & 63] = s.x;
  for (int j = 0; j < 8; ++j)
    priv[j] = j * s.x + n;
  __builtin_amdgcn_s_barrier();
  int acc = 0;
  for (int j = 0; j < id % 5; ++j)
    acc += helper(j, tile) + priv[j & 7] + twice(j);
  out[id] = acc + (int)s.y + s.z[id % 3] + (c == GREEN);
}
"""

HIP_SOURCE = r"""
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

struct P { int a; float b; unsigned char tag; bool on; };
namespace ns { __device__ inline int sq(int v) { return v * v; } }

__device__ __attribute__((noinline)) int twice(int v) { return v * 2; }

__global__ void hk(int *out, P p, int n)
{
  __shared__ int sh[32];
  int loc[4];
  int tid = __builtin_amdgcn_workitem_id_x();
  for (int i = 0; i < 4; ++i)
    loc[i] = tid + i * p.a;
  sh[tid & 31] = loc[tid & 3];
  __builtin_amdgcn_s_barrier();
  int sum = 0;
  for (int i = 0; i < (tid & 7); ++i)
    sum += twice(sh[(tid + i) & 31]) + ns::sq(i);
  out[tid] = sum + (int)p.b + n + p.tag + p.on;
}
"""

def build(work):
    """[(label, path)] of every object."""
    cl = write(os.path.join(work, "kernels.cl"), OPENCL_SOURCE)
    hip = write(os.path.join(work, "kernels.hip"), HIP_SOURCE)
    out = []
    for opt in ("-O0", "-O2"):
        for dw in (4, 5):
            for lang, src in (("cl", cl), ("hip", hip)):
                label = "%s-%s-dwarf%d" % (lang, opt[1:], dw)
                obj = os.path.join(work, label + ".o")
                so = os.path.join(work, label + ".so")
                flags = ["-g", "-gdwarf-%d" % dw, opt]
                if lang == "cl":
                    compile_opencl(src, obj, "gfx90a", flags)
                else:
                    compile_hip(src, obj, "gfx90a", flags, hip_flags=["-fno-gpu-rdc"])
                link_shared(obj, so)
                out += [(label + ".o", obj), (label + ".so", so)]
    return out


ANONYMOUS = {"structure": "struct", "union": "union", "class": "class", "enumeration": "enum"}
DIE_LINE = re.compile(r"^0x[0-9a-f]{8}: ")


def body(lines):
    """The lines from the first DIE on, without blank lines."""
    for i, line in enumerate(lines):
        if DIE_LINE.match(line):
            return [l for l in lines[i:] if l.strip()]
    return []


def normalize_theirs(text):
    out = []
    for line in body(text.split("\n")):
        if re.match(r"^0x[0-9a-f]{8}: Compile Unit:", line) or re.match(r"^0x[0-9a-f]{8}:\s+NULL$", line):
            continue
        line = re.sub(r"\b([SVA]GPR\d+)_LO16\b", r"\1", line)
        line = re.sub(r'"(structure|union|class|enumeration) "', lambda m: '"<anonymous %s>"'
                      % ANONYMOUS[m.group(1)], line)
        out.append(line)
    return out


def normalize_ours(text):
    out = []
    for line in body(text.split("\n")):
        if line.startswith("unit ") or line.startswith("  name ") or line.startswith("  convention:"):
            continue
        out.append(line)
    return out


def compare(label, ours, theirs):
    if ours == theirs:
        check(True, label)
        return
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            check(False, "%s: line %d differs:\n  amddwarf:       %r\n  llvm-dwarfdump: %r"
                  % (label, i + 1, a, b))
            return
    check(False, "%s: %d lines, llvm-dwarfdump %d" % (label, len(ours), len(theirs)))


def main():
    args = arguments(__doc__)
    if missing_tool(CLANG, LLD, DWARFDUMP):
        return 0
    work = os.path.join(args.work, "dump_dwarfdump")
    os.makedirs(work, exist_ok=True)
    for label, path in build(work):
        ours = normalize_ours(run_ok([args.amddwarf, "dump", path]).stdout)
        theirs = normalize_theirs(run_ok([DWARFDUMP, "--debug-info", path]).stdout)
        check(len(theirs) > 50, "%s: llvm-dwarfdump lists the DIEs" % label)
        compare(label, ours, theirs)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
