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

The -O2 corpus (OpenCL and HIP, gfx900 wave64 and gfx1030 wave32, .o and
.so): every variable whose location, or a location-list entry of it, is
made of VGPRs (llvm-dwarfdump-19: `DW_OP_regx VGPRn`, or pieces of them and
undefined pieces) is evaluated at that entry for lanes 0-3 of a snapshot
whose VGPRs hold a different dword in every lane; each lane must read its
own dwords (members of structs included), a scalar with undefined or
undescribed bytes must be optimized out (a struct's member likewise), and
--explain must name the lane's own dword of each register.

Usage: test_object_eval.py --amddwarf PATH --work DIR [--build DIR]
"""
import json
import os
import re
import shutil
import struct
import sys

from corpus_util import (arguments, check, compile_device, compile_hip, compile_opencl, hipcc,
                         link_shared, missing_tool, run, summary, write)

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

# -O2 HIP: clang-19 describes values kept in VGPRs as "DW_OP_regx VGPRn" (the
# lane's own dword; specs/conventions.md), pointers and doubles as pieces of
# two VGPRs, and half-known values as pieces with an undefined part.
HIP_O2 = r"""
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
struct S { int x; float y; };
__device__ __attribute__((noinline)) int helper(int *p, int a, long long b, float f, double d, S s)
{
  return p[a] + (int)b + (int)(f * 2.0f) + (int)d + s.x + (int)s.y;
}
__global__ void k(int *out, const S *in, int n)
{
  int id = __builtin_amdgcn_workitem_id_x();
  int v = id * 3 + n;
  float f = (float)v * 0.5f;
  double d = (double)v / 3.0;
  S s = in[id];
  int *p = out + id;
  out[id] = helper(p, v, (long long)id << 33, f, d, s);
}
"""

def build(work, lang, cpu, wave, extra):
    """The relocatable and linked objects of LANG (cl, hip or hipcc) for CPU;
    hipcc makes a linked device code object only (None for the .o)."""
    name = "k-hipcc.hip" if lang == "hipcc" else "k." + lang
    src = write(os.path.join(work, name), {"cl": OPENCL, "hip": HIP, "hipcc": HIPCC}[lang])
    base = os.path.join(work, "%s-%s-w%d" % (lang, cpu, wave))
    obj, so = base + ".o", base + ".so"
    if lang == "hipcc":
        co = base + ".co"
        hipcc(["--offload-arch=" + cpu, "--cuda-device-only", "--no-gpu-bundle-output", "-g",
               "-O0", "-c", src, "-o", co] + extra, work)
        return None, co
    compile_device(lang, src, obj, cpu, ["-g", "-O0"] + extra)
    link_shared(obj, so)
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
    tables = json.loads(run([amddwarf, "lines", path, "--all", "--json"]).stdout)["line_tables"]
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
    """id and v at a PC where both live in VGPRs, for lanes 0-3: clang's
    "bregx VGPRn+0, lit1, swap, xderef" is read through the promoted_register
    quirk (specs/conventions.md), so the values are the registers' and the
    decoys in private memory at the addresses a literal reading would use
    are not read; and tile[], whose address the object does not know."""
    src = write(os.path.join(work, "k-o2.cl"), OPENCL_O2)
    for cpu, wave, extra in (("gfx900", 64, []), ("gfx1030", 32, [])):
        base = os.path.join(work, "o2-%s-w%d" % (cpu, wave))
        compile_opencl(src, base + ".o", cpu, ["-g", "-O2"] + extra)
        link_shared(base + ".o", base + ".so")
        for path in (base + ".o", base + ".so"):
            label = "-O2 %s wave%d %s" % (cpu, wave, os.path.basename(path))
            check_vgpr_held(amddwarf, path, cpu, wave, label)
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

            check(lanes("id") == [str(0x100 + 16 * l) for l in range(4)],
                  "%s: id %r" % (label, lanes("id")))
            check(lanes("v") == [str(0x104 + 16 * l) for l in range(4)],
                  "%s: v %r" % (label, lanes("v")))
            # tile's address comes from k.tile, which clang leaves undefined: every
            # lane is unavailable and says so (specs/code-objects.md), local
            # memory is not read at a made-up 0.
            r = run([amddwarf, "eval", path, "--state", snap_path, "--lanes", "0-3", "--json",
                     "tile[3]"])
            tl = json.loads(r.stdout)["lanes"] if r.returncode == 0 else []
            check(len(tl) == 4 and all(l.get("status") == "unavailable" and
                                       "the symbol k.tile" in l.get("message", "") for l in tl),
                  "%s: tile[3] %r" % (label, tl or r.stderr))
            # Past the entries' end, v has no location.
            r = run([amddwarf, "eval", path, "--state", snap_path, "--pc", hex(both[0][1] + 0x1000),
                     "v"])
            check(r.returncode != 0 or "optimized out" in r.stdout or "unavailable" in r.stdout,
                  "%s: v outside its list entries: %r" % (label, r.stdout + r.stderr))


# ---- every VGPR-held variable of the -O2 corpus ----------------------------

# DWARF numbers of the vector registers (src/amdgpu/regs.def): first, name.
VECTOR_RANGES = ((1536, "VGPR"), (2048, "AGPR"), (2560, "VGPR"), (3072, "AGPR"))
REGX_RE = re.compile(r"^DW_OP_regx (?:(VGPR|AGPR)(\d+)(?:_LO16)?|(0x[0-9a-f]+))$")


def vector_register(op):
    """(DWARF number, "VGPRn") of "DW_OP_regx R" naming a vector register, else
    None. llvm-dwarfdump-19 names the wave64 ranges and prints wave32 ones as
    numbers."""
    m = REGX_RE.match(op)
    if not m:
        return None
    if m.group(1):
        number = (2560 if m.group(1) == "VGPR" else 3072) + int(m.group(2))
    else:
        number = int(m.group(3), 16)
    for first, name in VECTOR_RANGES:
        if first <= number < first + 256:
            return number, "%s%d" % (name, number - first)
    return None


def vgpr_pieces(expr):
    """The pieces [(bytes, register or None)] of a location made only of vector
    registers ("regx VGPRn" alone: its 4-byte dword) and undefined pieces,
    with at least one register; else None."""
    ops = expr.split(", ")
    if len(ops) == 1:
        reg = vector_register(ops[0])
        return [(4, reg)] if reg else None
    pieces, pending = [], None
    for op in ops:
        reg = vector_register(op)
        m = re.match(r"^DW_OP_piece (0x[0-9a-f]+|\d+)$", op)
        if reg and pending is None:
            pending = reg
        elif m:
            pieces.append((int(m.group(1), 0), pending))
            pending = None
        else:
            return None
    if pending is not None or all(r is None for _, r in pieces):
        return None
    return pieces


def dies(path):
    """llvm-dwarfdump-19's DIEs: [{offset, tag, depth, lines}]."""
    out = []
    for line in run(["llvm-dwarfdump-19", "--debug-info", path]).stdout.splitlines():
        m = re.match(r"^(0x[0-9a-f]+):(\s+)(DW_TAG_\w+)", line)
        if m:
            out.append({"offset": int(m.group(1), 16), "depth": len(m.group(2)),
                        "tag": m.group(3), "lines": []})
        elif out:
            out[-1]["lines"].append(line)
    return out


def attr(die, name):
    for line in die["lines"]:
        m = re.search(r"\b%s\s+\((.*)\)$" % name, line)
        if m:
            return m.group(1)
    return None


def type_info(by_offset, offset):
    """(kind, size, encoding, members) of the type DIE at OFFSET, through
    typedefs and qualifiers; members are [(name, byte offset, type offset)]."""
    die = by_offset[offset]
    while die["tag"] in ("DW_TAG_typedef", "DW_TAG_const_type", "DW_TAG_volatile_type"):
        die = by_offset[int(attr(die, "DW_AT_type").split()[0], 16)]
    size = attr(die, "DW_AT_byte_size")
    size = int(size, 16) if size else 8
    if die["tag"] == "DW_TAG_base_type":
        return "base", size, attr(die, "DW_AT_encoding"), []
    if die["tag"] in ("DW_TAG_pointer_type", "DW_TAG_reference_type"):
        return "pointer", size, None, []
    if die["tag"] == "DW_TAG_structure_type":
        members, others = [], 0
        i = [d["offset"] for d in by_offset.values()].index(die["offset"])
        for child in list(by_offset.values())[i + 1:]:
            if child["depth"] <= die["depth"]:
                break
            if child["depth"] != die["depth"] + 2 or child["tag"] != "DW_TAG_member":
                continue
            where = attr(child, "DW_AT_data_member_location")
            if where and attr(child, "DW_AT_bit_size") is None and attr(child, "DW_AT_name"):
                members.append((attr(child, "DW_AT_name").strip('"'), int(where, 0),
                                int(attr(child, "DW_AT_type").split()[0], 16)))
            else:
                others += 1
        # A struct with bitfields or anonymous members: its members are
        # checked one by one, not its text.
        return "struct" if not others else "other", size, None, members
    return "other", size, None, []


def vgpr_locations(path):
    """Every variable and parameter whose location (or a list entry of it) is
    made of VGPRs: [(die offset, name, pc, expression, pieces, type offset)], with the
    entry's first address or the enclosing subprogram's low_pc as PC."""
    all_dies = dies(path)
    out, scopes = [], []
    for die in all_dies:
        while scopes and scopes[-1]["depth"] >= die["depth"]:
            scopes.pop()
        if die["tag"] == "DW_TAG_subprogram":
            scopes.append(die)
        if die["tag"] not in ("DW_TAG_variable", "DW_TAG_formal_parameter"):
            continue
        name, typ = attr(die, "DW_AT_name"), attr(die, "DW_AT_type")
        if not name or not typ or not scopes:
            continue
        name, typ = name.strip('"'), int(typ.split()[0], 16)
        low = attr(scopes[-1], "DW_AT_low_pc")
        for line in die["lines"]:
            m = re.search(r"\[(0x[0-9a-f]+), (0x[0-9a-f]+)\): (DW_OP_.*?)\)?$", line)
            single = re.search(r"DW_AT_location\s+\((DW_OP_.*)\)$", line)
            if m:
                pc, expr = int(m.group(1), 16), m.group(3)
            elif single and low:
                pc, expr = int(low, 16), single.group(1)
            else:
                continue
            pieces = vgpr_pieces(expr)
            if pieces:
                out.append((die["offset"], name, pc, expr, pieces, typ))
    return out, {d["offset"]: d for d in all_dies}


def lane_dword(number, lane):
    """The distinct dword the snapshot puts in lane LANE of register NUMBER: a
    float between 2 and 4 and an int above 2^30, different for every register
    and lane."""
    return (0x40 + lane) << 24 | (number & 0xfff) << 8 | 0x5a


def expected_value(kind, size, encoding, data):
    """What eval prints for the little-endian bytes DATA of a value."""
    if kind == "pointer":
        return "0x%x" % int.from_bytes(data, "little")
    if kind != "base":
        return None
    if encoding == "DW_ATE_float":
        return "%.9g" % struct.unpack("<f", data)[0] if size == 4 else \
            "%.17g" % struct.unpack("<d", data)[0]
    if encoding in ("DW_ATE_signed", "DW_ATE_signed_char"):
        return str(int.from_bytes(data, "little", signed=True))
    if encoding in ("DW_ATE_unsigned", "DW_ATE_unsigned_char"):
        return str(int.from_bytes(data, "little"))
    return None


def check_vgpr_held(amddwarf, path, cpu, wave, label):
    """Every variable held in VGPRs (llvm-dwarfdump: "DW_OP_regx VGPRn", or
    pieces of them) evaluates for lanes 0-3, each lane to its own dwords, and
    --explain names lane N of each register. Returns the shapes seen."""
    found, by_offset = vgpr_locations(path)
    numbers = sorted({r[0] for _, _, _, _, pieces, _ in found for _, r in pieces if r})
    registers = {str(n): [lane_dword(n, lane) for lane in range(4)] for n in numbers}
    registers.update({"s32": 0, "s33": 0})
    snap_path = path + ".vgpr.json"
    with open(snap_path, "w") as f:
        json.dump({"architecture": cpu, "wave_size": wave, "lane": 0, "exec": "0xf",
                   "registers": registers}, f)
    shapes = set()
    for die, name, pc, expr, pieces, typ in found:
        if "," not in expr:
            shapes.add("alone")
        elif any(r is None for _, r in pieces):
            shapes.add("partial")
        elif len(pieces) > 1:
            shapes.add("pieces")
        what = "%s: %s at 0x%x (%s)" % (label, name, pc, expr)
        r = run([amddwarf, "eval", path, "--state", snap_path, "--pc", hex(pc), "--lanes", "0-3",
                 "--json", "--explain", name])
        # Exit 1 with the lanes' results when a lane has no value.
        if r.returncode not in (0, 1) or not r.stdout.startswith("{"):
            check(False, "%s: exit %d %s" % (what, r.returncode, r.stderr[-300:]))
            continue
        got = json.loads(r.stdout)
        check(int(got["variable"], 16) == die, "%s: evaluated DIE %s" % (what, got["variable"]))
        kind, size, encoding, members = type_info(by_offset, typ)
        for lane, result in enumerate(got["lanes"]):
            data = []
            for n, reg in pieces:
                dword = lane_dword(reg[0], lane).to_bytes(4, "little") if reg else None
                data.extend(dword[i] if dword and i < 4 else None for i in range(n))
            # --explain: every register of the location at this lane, no other lane.
            where = result.get("location", "")
            names = ["register %s lane %d " % (reg[1], lane) for _, reg in pieces if reg]
            check(all(n in where for n in names) and
                  set(re.findall(r"lane (\d+)", where)) == {str(lane)},
                  "%s: lane %d explained as %r" % (what, lane, where))
            value = data[:size]
            if kind == "struct" and members:
                # Members whose bytes the pieces do not all give are
                # <optimized out>; the others read the lane's dwords.
                texts = []
                for member, offset, mtype in members:
                    mkind, msize, mencoding, _ = type_info(by_offset, mtype)
                    mvalue = data[offset:offset + msize]
                    if len(mvalue) < msize or None in mvalue:
                        texts.append("%s = <optimized out>" % member)
                    else:
                        texts.append("%s = %s" % (member, expected_value(mkind, msize, mencoding,
                                                                         bytes(mvalue))))
                want = "{%s}" % ", ".join(texts)
                check(result.get("status", "ok") == "ok" and result.get("value") == want,
                      "%s: lane %d: %r, expected %r" % (what, lane, result, want))
            elif len(value) < size or None in value:
                # Pieces that leave bytes of a scalar undescribed.
                check(result.get("status", "ok") == "optimized_out", "%s: lane %d: %r" % (what, lane, result))
            else:
                want = expected_value(kind, size, encoding, bytes(value))
                got_value = result.get("value", "")
                check(result.get("status", "ok") == "ok" and (want is None or got_value == want or
                      (kind == "pointer" and got_value.split(" [")[0].endswith(") " + want))),
                      "%s: lane %d: %r, expected %r" % (what, lane, result, want))
            for member, offset, mtype in members:
                mkind, msize, mencoding, _ = type_info(by_offset, mtype)
                mvalue = data[offset:offset + msize]
                if len(mvalue) < msize or None in mvalue:
                    continue
                want = expected_value(mkind, msize, mencoding, bytes(mvalue))
                r = run([amddwarf, "eval", path, "--state", snap_path, "--pc", hex(pc),
                         "--lane", str(lane), "--json", "%s.%s" % (name, member)])
                mgot = json.loads(r.stdout)["lanes"][0] if r.returncode == 0 else r.stderr
                check(isinstance(mgot, dict) and mgot.get("value") == want,
                      "%s: lane %d: .%s = %r, expected %r" % (what, lane, member, mgot, want))
    return shapes, len(found)


def check_hip_o2(amddwarf, work):
    """The -O2 HIP kernel: its VGPR-held variables, alone, in pieces and in
    pieces with an undefined part, for gfx900 wave64 and gfx1030 wave32."""
    src = write(os.path.join(work, "k-o2.hip"), HIP_O2)
    for cpu, wave in (("gfx900", 64), ("gfx1030", 32)):
        base = os.path.join(work, "hip-o2-%s-w%d" % (cpu, wave))
        compile_hip(src, base + ".o", cpu, ["-g", "-O2"])
        link_shared(base + ".o", base + ".so")
        for path in (base + ".o", base + ".so"):
            label = "-O2 hip %s wave%d %s" % (cpu, wave, os.path.basename(path))
            shapes, count = check_vgpr_held(amddwarf, path, cpu, wave, label)
            check(shapes == {"alone", "pieces", "partial"} and count >= 10,
                  "%s: VGPR locations alone, in pieces and partial: %r, %d locations"
                  % (label, shapes, count))


def main():
    args = arguments(__doc__)
    if missing_tool("clang-19", "ld.lld-19", "llvm-dwarfdump-19"):
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
                # Lanes 0-3 have private memory; lane 5 is active without any.
                snap = {"architecture": cpu, "wave_size": wave, "lane": 0, "pc": pc,
                        "exec": "0x2f", "registers": {"s33": fp}, "memory": memory}
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
    check_hip_o2(args.amddwarf, work)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
