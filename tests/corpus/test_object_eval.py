#!/usr/bin/env python3
"""`amddwarf eval` on real code objects and wave snapshots built for them.

Builds -O0 OpenCL and HIP kernels with clang-19 (gfx900 wave64, gfx1030
wave32 and wave64, .o and linked .so) and the HIP kernel with hipcc
(clang-15 and the HIP runtime headers; gfx900 wave64, gfx1030 wave32, a
linked device code object), takes each private variable's frame
offset from llvm-dwarfdump-19 (`DW_OP_fbreg +N`, with or without the
`lit1, swap, xderef` private suffix), writes chosen values for lanes 0-3 into
the private memory of a snapshot at SGPR33 / wave_size + N (the MUBUF frame
convention of specs/conventions.md), and checks that `amddwarf eval --lanes`
prints exactly those values: ints, floats, struct members, array elements
and pointers followed into global memory.

Usage: test_object_eval.py --amddwarf PATH --work DIR [--build DIR]
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys

OPENCL = r"""
typedef struct { int x; float y; } S;
__kernel void k(__global int *out, __global const S *in, int n)
{
  int priv[4];
  S s = in[n];
  int id = __builtin_amdgcn_workitem_id_x();
  float f = s.y * 2.0f;
  for (int j = 0; j < 4; ++j)
    priv[j] = j + id;
  out[id] = priv[id & 3] + s.x + (int)f;
}
"""

HIP = r"""
#define __global__ __attribute__((global))
struct S { int x; float y; };
__global__ void k(int *out, S in, int n)
{
  int priv[4];
  S s = in;
  int id = __builtin_amdgcn_workitem_id_x();
  float f = s.y * 2.0f;
  for (int j = 0; j < 4; ++j)
    priv[j] = j + id + n;
  out[id] = priv[id & 3] + s.x + (int)f;
}
"""

HIPCC = r"""
#include <hip/hip_runtime.h>
struct S { int x; float y; };
__global__ void k(int *out, S in, int n)
{
  int priv[4];
  S s = in;
  int id = threadIdx.x;
  float f = s.y * 2.0f;
  for (int j = 0; j < 4; ++j)
    priv[j] = j + id + n;
  out[id] = priv[id & 3] + s.x + (int)f;
}
"""

# -O2: clang-19 describes values kept in VGPRs as "DW_OP_bregx VGPRn+0, lit1,
# swap, xderef" (the lane's private address is in its dword of VGPR n; see
# specs/conventions.md) in location lists; tile is __local (lit2 ... xderef).
OPENCL_O2 = r"""
__kernel void k(__global int *out, int n)
{
  __local int tile[16];
  int id = __builtin_amdgcn_workitem_id_x();
  int v = id * 3 + n;
  tile[id & 15] = v;
  __builtin_amdgcn_s_barrier();
  int w = tile[(id + 1) & 15] + v;
  out[id] = w;
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


def run(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, **kw)


def build(work, lang, cpu, wave, extra):
    src = os.path.join(work, "k." + ("hip" if lang == "hipcc" else lang))
    if lang == "hipcc":
        src = os.path.join(work, "k-hipcc.hip")
    with open(src, "w") as f:
        f.write({"cl": OPENCL, "hip": HIP, "hipcc": HIPCC}[lang])
    base = os.path.join(work, "%s-%s-w%d" % (lang, cpu, wave))
    obj, so = base + ".o", base + ".so"
    if lang == "hipcc":  # a linked device code object, no relocatable one
        co = base + ".co"
        r = run(["hipcc", "--offload-arch=" + cpu, "--cuda-device-only",
                 "--no-gpu-bundle-output", "-g", "-O0", "-c", src, "-o", co] + extra,
                env=dict(os.environ, TMPDIR=work))  # hipcc leaves temporary directories
        if r.returncode != 0:
            raise RuntimeError(r.stderr)
        return None, co
    common = ["-target", "amdgcn-amd-amdhsa", "-mcpu=" + cpu, "-nogpulib", "-g", "-O0"] + extra
    if lang == "cl":
        r = run(["clang-19"] + common + ["-c", src, "-o", obj])
    else:
        r = run(["clang-19", "-x", "hip", "--cuda-device-only", "-nogpuinc", "-nogpulib",
                 "--offload-arch=" + cpu, "-g", "-O0", "-emit-llvm", "-c", src, "-o",
                 obj + ".bc"] + extra)
        if r.returncode == 0:
            r = run(["clang-19"] + common + ["-c", obj + ".bc", "-o", obj])
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    r = run(["ld.lld-19", "-shared", obj, "-o", so])
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    return obj, so


def frame_offsets(path):
    """{name: (fbreg offset, type name)} of the kernel's variables, from llvm-dwarfdump."""
    r = run(["llvm-dwarfdump-19", "--debug-info", path])
    out = {}
    name = loc = typ = None
    for line in r.stdout.splitlines() + ["0x0: DW_TAG_end"]:
        if re.match(r"^0x[0-9a-f]+:", line):
            if name and loc is not None:
                out[name] = (loc, typ)
            name = loc = typ = None
            continue
        m = re.search(r"DW_AT_name\s+\(\"(\w+)\"\)", line)
        if m:
            name = m.group(1)
        m = re.search(r"DW_AT_location\s+\(DW_OP_fbreg ([+-]\d+)(, DW_OP_lit1, DW_OP_swap, DW_OP_xderef)?\)$", line)
        if m:
            loc = int(m.group(1))
        m = re.search(r"DW_AT_type\s+\(0x[0-9a-f]+ \"([^\"]+)\"\)", line)
        if m:
            typ = m.group(1)
    return out


def kernel_pc(amddwarf, path):
    """The address of the last statement row of the kernel's line program
    before its end: every variable is in scope there."""
    tables = json.loads(run([amddwarf, "lines", path, "--all", "--json"]).stdout)
    dump = json.loads(run([amddwarf, "dump", path, "--json"]).stdout)
    k = [s for s in dump["symbols"] if s["kind"] == "kernel"][0]  # the one kernel (HIP: mangled)
    lo, hi = int(k["address"], 16), int(k["address"], 16) + k["size"]
    rows = [int(r["address"], 16) for t in tables for r in t["rows"]
            if "is_stmt" in r["flags"] and lo <= int(r["address"], 16) < hi]
    return rows[len(rows) // 2]


LIST_ENTRY_RE = re.compile(r"\[(0x[0-9a-f]+), (0x[0-9a-f]+)\): DW_OP_bregx "
                           r"(?:VGPR(\d+)_LO16|0x([0-9a-f]+)) ?\+0, "
                           r"DW_OP_lit1, DW_OP_swap, DW_OP_xderef")


def vgpr_entries(path):
    """{name: [(low, high, vgpr)]} of location list entries naming a VGPR
    (llvm-dwarfdump names wave64 VGPRs; wave32 ones, DWARF 1536 + n, are
    printed as numbers)."""
    r = run(["llvm-dwarfdump-19", "--debug-info", path])
    out, name, found = {}, None, []
    for line in r.stdout.splitlines() + ["0x0: DW_TAG_end"]:
        if re.match(r"^0x[0-9a-f]+:", line):
            if name and found:
                out.setdefault(name, []).extend(found)
            name, found = None, []
            continue
        m = re.search(r"DW_AT_name\s+\(\"(\w+)\"\)", line)
        if m:
            name = m.group(1)
        m = LIST_ENTRY_RE.search(line)
        if m:
            vgpr = int(m.group(3)) if m.group(3) else int(m.group(4), 16) - 1536
            found.append((int(m.group(1), 16), int(m.group(2), 16), vgpr))
    return out


def check_o2(amddwarf, work):
    """id and v at a PC where both live in VGPRs (values in private memory at
    the lanes' addresses), and tile[] in local memory, for lanes 0-3."""
    src = os.path.join(work, "k-o2.cl")
    with open(src, "w") as f:
        f.write(OPENCL_O2)
    for cpu, wave, extra in (("gfx900", 64, []), ("gfx1030", 32, [])):
        base = os.path.join(work, "o2-%s-w%d" % (cpu, wave))
        r = run(["clang-19", "-target", "amdgcn-amd-amdhsa", "-mcpu=" + cpu, "-nogpulib", "-g",
                 "-O2", "-c", src, "-o", base + ".o"] + extra)
        if r.returncode == 0:
            r = run(["ld.lld-19", "-shared", base + ".o", "-o", base + ".so"])
        if r.returncode != 0:
            raise RuntimeError(r.stderr)
        for path in (base + ".o", base + ".so"):
            label = "-O2 %s wave%d %s" % (cpu, wave, os.path.basename(path))
            entries = vgpr_entries(path)
            both = [(max(a[0], b[0]), min(a[1], b[1]), a[2], b[2])
                    for a in entries.get("id", []) for b in entries.get("v", [])
                    if max(a[0], b[0]) < min(a[1], b[1])]
            check(len(both) > 0, "%s: a PC where id and v are both in VGPRs: %r" % (label, entries))
            if not both:
                continue
            pc, _, id_vgpr, v_vgpr = both[0]
            memory, registers = [], {}
            # Lane L's private addresses: id at 0x100 + 16 L, v at 0x104 + 16 L.
            registers["v%d" % id_vgpr] = [0x100 + 16 * lane for lane in range(4)]
            registers["v%d" % v_vgpr] = [0x104 + 16 * lane for lane in range(4)]
            for lane in range(4):
                memory.append({"address_space": "private_lane", "lane": lane,
                               "address": 0x100 + 16 * lane,
                               "bytes": struct.pack("<ii", 40 + lane, -300 - lane).hex()})
            tile = b"".join(struct.pack("<i", 1000 + i) for i in range(16))
            memory.append({"address_space": "local", "address": 0, "bytes": tile.hex()})
            snap = {"architecture": cpu, "wave_size": wave, "lane": 0, "pc": pc, "exec": "0xf",
                    "registers": registers, "memory": memory}
            snap_path = path + ".o2.json"
            with open(snap_path, "w") as f:
                json.dump(snap, f)

            def lanes(expr):
                r = run([amddwarf, "eval", path, "--state", snap_path, "--lanes", "0-3", "--json",
                         expr])
                if r.returncode != 0:
                    return "exit %d: %s%s" % (r.returncode, r.stdout[-300:], r.stderr[-300:])
                return [l.get("value") for l in json.loads(r.stdout)["lanes"]]

            check(lanes("id") == [str(40 + l) for l in range(4)], "%s: id %r" % (label, lanes("id")))
            check(lanes("v") == [str(-300 - l) for l in range(4)], "%s: v %r" % (label, lanes("v")))
            check(lanes("tile[3]") == ["1003"] * 4, "%s: tile[3] %r" % (label, lanes("tile[3]")))
            # Past the entries' end, v has no location.
            r = run([amddwarf, "eval", path, "--state", snap_path, "--pc", hex(both[0][1] + 0x1000),
                     "v"])
            check(r.returncode != 0 or "optimized out" in r.stdout or "unavailable" in r.stdout,
                  "%s: v outside its list entries: %r" % (label, r.stdout + r.stderr))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--amddwarf", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--build", default=None)
    args = ap.parse_args()
    for tool in ("clang-19", "ld.lld-19", "llvm-dwarfdump-19"):
        if shutil.which(tool) is None:
            print("skipped: %s not found\n0 passed, 0 failed" % tool)
            return 0
    work = os.path.join(args.work, "object_eval")
    os.makedirs(work, exist_ok=True)
    check(shutil.which("hipcc") is not None, "hipcc (Debian's hipcc package) is installed")
    for lang in ("cl", "hip", "hipcc"):
        for cpu, wave, extra in (("gfx900", 64, []), ("gfx1030", 32, []),
                                 ("gfx1030", 64, ["-mwavefrontsize64"])):
            if lang == "hipcc" and (shutil.which("hipcc") is None or wave == 64 and cpu == "gfx1030"):
                continue  # HIP does not support gfx10 in wave64
            obj, so = build(work, lang, cpu, wave, extra)
            for path in (p for p in (obj, so) if p is not None):
                label = "%s %s wave%d %s" % (lang, cpu, wave, os.path.basename(path))
                offs = frame_offsets(path)
                check(all(v in offs for v in ("priv", "s", "id", "f")),
                      "%s: frame offsets of priv, s, id, f: %r" % (label, offs))
                if not all(v in offs for v in ("priv", "s", "id", "f")):
                    continue
                fp = 0x800 * wave  # SGPR33: wave-scaled; lane address 0x800
                lane_base = fp // wave
                lo = min(o for o, _ in offs.values())
                hi = max(o for o, _ in offs.values()) + 16
                memory = []
                expected = {}
                for lane in range(4):
                    buf = bytearray(hi - lo)
                    def put(off, fmt, value):
                        struct.pack_into(fmt, buf, off - lo, value)
                    put(offs["id"][0], "<i", 100 + lane)
                    put(offs["f"][0], "<f", 0.5 + lane)
                    put(offs["s"][0], "<i", -7 * (lane + 1))
                    put(offs["s"][0] + 4, "<f", 1.25 * lane)
                    for j in range(4):
                        put(offs["priv"][0] + 4 * j, "<i", 10 * j + lane)
                    if "out" in offs:
                        put(offs["out"][0], "<Q", 0x10000 + 16 * lane)
                    memory.append({"address_space": "private_lane", "lane": lane,
                                   "address": lane_base + lo, "bytes": buf.hex()})
                    expected[lane] = lane
                g = bytearray(128)
                for i in range(32):
                    struct.pack_into("<i", g, 4 * i, 5000 + i)
                memory.append({"address_space": "global", "address": 0x10000, "bytes": g.hex()})
                pc = kernel_pc(args.amddwarf, path)
                snap = {"architecture": cpu, "wave_size": wave, "lane": 0, "pc": pc,
                        "exec": "0xf", "registers": {"s33": fp}, "memory": memory}
                snap_path = path + ".wave.json"
                with open(snap_path, "w") as f:
                    json.dump(snap, f)

                def lanes(expr):
                    r = run([args.amddwarf, "eval", path, "--state", snap_path, "--lanes", "0-3",
                             "--json", expr])
                    if r.returncode != 0:
                        return "exit %d: %s%s" % (r.returncode, r.stdout[-300:], r.stderr[-300:])
                    return [l.get("value") for l in json.loads(r.stdout)["lanes"]]

                check(lanes("id") == [str(100 + l) for l in range(4)], "%s: id %r" % (label, lanes("id")))
                check(lanes("f") == ["%g" % (0.5 + l) for l in range(4)], "%s: f %r" % (label, lanes("f")))
                check(lanes("s.x") == [str(-7 * (l + 1)) for l in range(4)], "%s: s.x %r" % (label, lanes("s.x")))
                check(lanes("s") == ["{x = %d, y = %g}" % (-7 * (l + 1), 1.25 * l) for l in range(4)],
                      "%s: s %r" % (label, lanes("s")))
                check(lanes("priv[2]") == [str(20 + l) for l in range(4)],
                      "%s: priv[2] %r" % (label, lanes("priv[2]")))
                check(lanes("priv") == ["{%s}" % ", ".join(str(10 * j + l) for j in range(4))
                                        for l in range(4)], "%s: priv %r" % (label, lanes("priv")))
                if "out" in offs:
                    check(lanes("out[1]") == [str(5000 + 4 * l + 1) for l in range(4)],
                          "%s: out[1] %r" % (label, lanes("out[1]")))
                # A lane without private memory in the snapshot is unavailable.
                r = run([args.amddwarf, "eval", path, "--state", snap_path, "--lane", "5", "id"])
                check(r.returncode == 0 and r.stdout.strip() == "id = <unavailable>",
                      "%s: lane 5: %r" % (label, r.stdout + r.stderr))
    check_o2(args.amddwarf, work)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
