#!/usr/bin/env python3
"""`amddwarf eval` expression paths on real clang-19 code objects.

Builds one -O0 HIP kernel (gfx900, wave64) with DWARF 5, 4, 3 and 2 (DWARF 3
and 2 describe bitfields with DW_AT_bit_offset counted from the storage
unit's most significant bit; DWARF 2 gives member locations as
DW_OP_plus_uconst expressions) and one OpenCL kernel whose private and
__local pointers are 4 bytes (DW_AT_address_class). Takes each variable's
frame offset and the bitfield layout from llvm-dwarfdump-19, writes chosen
values for lanes 0-3 into a snapshot's private memory (at SGPR33 / wave
size + offset), with generic pointers into the snapshot's private aperture,
and checks that `amddwarf eval` prints exactly those values for
multi-dimensional arrays and rows, bitfields, nested structs, unions, enums,
bools, chars, halves, doubles, vectors, arrays of structs, pointer chains,
pointer arithmetic, address-of, anonymous members, base classes and C++
references; that --explain names the bits; and that
bad expressions fail with messages naming what and where. The same kernels
built at -O2 for gfx900 and gfx1030: every variable held in VGPRs evaluates
to each lane's own dwords.

Usage: test_eval_paths.py --amddwarf PATH --work DIR [--build DIR]
"""
import json
import os
import re
import struct
import sys

from corpus_util import arguments, check, compile_device, missing_tool, run, summary, write

HIP = r"""
#define __global__ __attribute__((global))
typedef float float4 __attribute__((ext_vector_type(4)));
struct S { int x; float y; };
struct B { unsigned a : 3; int b : 5; unsigned c : 12; short d; long long e : 40; };
struct N { S inner; char tag; };
union U { int i; float f; };
enum E { RED, GREEN = 5, BLUE };
enum SE : int { NEG = -2, POS = 3 };
__global__ void k(int *out, const S *in, int n)
{
  int m[3][4];
  B bits;
  N nest;
  U un;
  E col = GREEN;
  SE sen = NEG;
  bool flag = n > 0;
  char ch = 'A';
  unsigned char uc = 200;
  _Float16 h = 1.5;
  double dd = 0.1;
  float4 v4 = {1.0f, 2.0f, 3.0f, 4.0f};
  S arr[3];
  int x = n;
  int *q = &x;
  int **pp = &q;
  S *ps = arr;
  int id = __builtin_amdgcn_workitem_id_x();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      m[i][j] = i * 4 + j + id;
  bits.a = id; bits.b = -id; bits.c = n; bits.d = 3; bits.e = -n;
  nest.inner = in[id]; nest.tag = 'z';
  un.i = n;
  arr[1] = in[0];
  out[id] = m[id & 1][2] + bits.a + bits.b + nest.inner.x + un.i + col + sen + flag + ch + uc
            + (int)h + (int)dd + (int)v4.y + arr[1].x + **pp + ps[1].x + (int)bits.e;
}
"""

OPENCL = r"""
__kernel void k(__global int *out, int n)
{
  int x = n;
  int *q = &x;
  int **pp = &q;
  __local int tile[16];
  __local int *lp = tile;
  tile[n & 15] = n;
  out[n] = **pp + lp[1];
}
"""

CPP = r"""
#define __global__ __attribute__((global))
struct A { union { int i; float f; }; struct { short lo, hi; }; int k; };
struct Base { int b; };
struct D : Base { int d; };
__global__ void k(int *out, int n)
{
  A a;
  D dd;
  int &r = n;
  a.i = n; a.lo = 1; a.hi = 2; a.k = 3;
  dd.b = n; dd.d = 2;
  out[0] = a.i + a.lo + a.hi + a.k + dd.b + dd.d + r;
}
"""

FRAME = 0x800          # each lane's private frame address (SGPR33 / 64)
PRIVATE_BASE = 0x1000000000000  # the private aperture of the snapshot
SHARED_BASE = 0x2000000000000
GLOBAL_OUT, GLOBAL_IN = 0x10000, 0x20000
LANES = range(4)

def build(work, lang, version, cpu="gfx900", opt="-O0"):
    src = write(os.path.join(work, "paths." + lang), {"hip": HIP, "cl": OPENCL, "cpp.hip": CPP}[lang])
    obj = os.path.join(work, "paths-%s-dwarf%d%s.o" % (
        lang.replace(".", "-"), version, "" if opt == "-O0" else "-%s%s" % (cpu, opt)))
    compile_device("cl" if lang == "cl" else "hip", src, obj, cpu,
                   [opt, "-g", "-gdwarf-%d" % version])
    return obj


def dwarf(path):
    """llvm-dwarfdump's view: {variable: fbreg offset}, {member of B: (bit
    offset, bit size)} (DWARF 4/5 data_bit_offset, or DWARF 2/3 bit_offset
    from the storage unit's top), and the attributes seen."""
    text = run(["llvm-dwarfdump-19", "--debug-info", path]).stdout
    offsets, bits, seen = {}, {}, set()
    for block in re.split(r"\n(?=0x[0-9a-f]+:)", text):
        name = re.search(r'DW_AT_name\s+\("(\w+)"\)', block)
        loc = re.search(r"DW_AT_location\s+\(DW_OP_fbreg ([+-]\d+)", block)
        if name and loc and ("DW_TAG_variable" in block or "DW_TAG_formal_parameter" in block):
            offsets[name.group(1)] = int(loc.group(1))
        size = re.search(r"DW_AT_bit_size\s+\((0x[0-9a-f]+)\)", block)
        if name and size and "DW_TAG_member" in block:
            width = int(size.group(1), 16)
            data = re.search(r"DW_AT_data_bit_offset\s+\((0x[0-9a-f]+)\)", block)
            if data:
                bits[name.group(1)] = (int(data.group(1), 16), width)
                seen.add("data_bit_offset")
            else:
                top = int(re.search(r"DW_AT_bit_offset\s+\((0x[0-9a-f]+)\)", block).group(1), 16)
                unit = int(re.search(r"DW_AT_byte_size\s+\((0x[0-9a-f]+)\)", block).group(1), 16)
                where = re.search(r"DW_AT_data_member_location\s+\((?:DW_OP_plus_uconst )?(0x[0-9a-f]+|\d+)\)", block)
                base = int(where.group(1), 0)
                bits[name.group(1)] = (base * 8 + unit * 8 - top - width, width)
                seen.add("bit_offset")
        if "DW_OP_plus_uconst" in block and "DW_TAG_member" in block:
            seen.add("plus_uconst")
    return offsets, bits, seen


def kernel_pc(amddwarf, path):
    """A statement row in the middle of the kernel: every variable is in scope."""
    tables = json.loads(run([amddwarf, "lines", path, "--all", "--json"]).stdout)["line_tables"]
    rows = [int(r["address"], 16) for t in tables for r in t["rows"] if "is_stmt" in r["flags"]]
    return rows[len(rows) // 2]


class Memory:
    """One lane's private frame, filled at llvm-dwarfdump's offsets."""

    def __init__(self, offsets):
        self.offsets = offsets
        self.buf = bytearray(max(offsets.values()) + 64)

    def put(self, name, fmt, value, extra=0):
        struct.pack_into(fmt, self.buf, self.offsets[name] + extra, value)

    def put_bits(self, name, bit, width, value):
        base = self.offsets[name] * 8 + bit
        for i in range(width):
            byte, shift = divmod(base + i, 8)
            if (value >> i) & 1:
                self.buf[byte] |= 1 << shift
            else:
                self.buf[byte] &= ~(1 << shift) & 0xff

    def addr(self, name, extra=0):
        return FRAME + self.offsets[name] + extra


def fill_hip(offsets, bits, lane):
    mem = Memory(offsets)
    for i in range(3):
        for j in range(4):
            mem.put("m", "<i", 1000 * lane + 10 * i + j, 16 * i + 4 * j)
    b = {"a": (lane + 1) & 7, "b": -(lane + 2), "c": 1000 + lane, "e": -(1 << 35) + lane}
    for f, v in b.items():
        bit, width = bits[f]
        mem.put_bits("bits", bit, width, v & ((1 << width) - 1))
    mem.put("bits", "<h", lane - 1, 4)
    mem.put("nest", "<i", -10 * lane - 1)
    mem.put("nest", "<f", 0.25 * lane, 4)
    mem.put("nest", "<b", ord("a") + lane, 8)
    mem.put("un", "<f", 1.5 + lane)
    mem.put("col", "<I", [0, 5, 6, 7][lane])
    mem.put("sen", "<i", [-2, 3, -5, 0][lane])
    mem.put("flag", "<B", lane % 2)
    mem.put("ch", "<b", ord("A") + lane)
    mem.put("uc", "<B", 200 + lane)
    mem.put("h", "<e", 1.5 + lane)
    mem.put("dd", "<d", 0.1 * (lane + 1))
    for i in range(4):
        mem.put("v4", "<f", lane + 0.5 * i, 4 * i)
    for k in range(3):
        mem.put("arr", "<i", 10 * k + lane, 8 * k)
        mem.put("arr", "<f", k + 0.5, 8 * k + 4)
    mem.put("x", "<i", 42 + lane)
    mem.put("q", "<Q", PRIVATE_BASE + mem.addr("x"))
    mem.put("pp", "<Q", PRIVATE_BASE + mem.addr("q"))
    mem.put("ps", "<Q", PRIVATE_BASE + mem.addr("arr"))
    mem.put("out", "<Q", GLOBAL_OUT)
    mem.put("in", "<Q", GLOBAL_IN)
    return mem


def hip_expected(mem, lane):
    """What eval must print for lane LANE, from the values fill_hip wrote."""
    m = [[1000 * lane + 10 * i + j for j in range(4)] for i in range(3)]
    row = lambda r: "{%s}" % ", ".join(str(v) for v in r)
    un_i = struct.unpack("<i", struct.pack("<f", 1.5 + lane))[0]
    arr = ["{x = %d, y = %g}" % (10 * k + lane, k + 0.5) for k in range(3)]
    bits = "{a = %d, b = %d, c = %d, d = %d, e = %d}" % (
        (lane + 1) & 7, -(lane + 2), 1000 + lane, lane - 1, -(1 << 35) + lane)
    return {
        "m": "{%s}" % ", ".join(row(r) for r in m),
        "m[1]": row(m[1]),
        "m[2][3]": str(m[2][3]),
        "*m[2]": str(m[2][0]),
        "bits": bits,
        "bits.a": str((lane + 1) & 7),
        "bits.b": str(-(lane + 2)),
        "bits.c": str(1000 + lane),
        "bits.e": str(-(1 << 35) + lane),
        "nest": "{inner = {x = %d, y = %g}, tag = %d '%c'}" % (
            -10 * lane - 1, 0.25 * lane, ord("a") + lane, ord("a") + lane),
        "nest.inner.y": "%g" % (0.25 * lane),
        "un": "{i = %d, f = %g}" % (un_i, 1.5 + lane),
        "col": ["RED", "GREEN", "BLUE", "7"][lane],
        "sen": ["NEG", "POS", "-5", "0"][lane],
        "flag": ["false", "true"][lane % 2],
        "ch": "%d '%c'" % (ord("A") + lane, ord("A") + lane),
        "uc": "%d '\\%o'" % (200 + lane, 200 + lane),
        "h": "%g" % (1.5 + lane),
        "dd": "%.17g" % (0.1 * (lane + 1)),
        "v4": "{%s}" % ", ".join("%g" % (lane + 0.5 * i) for i in range(4)),
        "v4[3]": "%g" % (lane + 1.5),
        "v4.y": "%g" % (lane + 0.5),
        "v4.s2": "%g" % (lane + 1.0),
        "v4.a": "%g" % (lane + 1.5),
        "arr": "{%s}" % ", ".join(arr),
        "arr[1].y": "1.5",
        "arr[2]": arr[2],
        "x": str(42 + lane),
        "*q": str(42 + lane),
        "**pp": str(42 + lane),
        "(*ps).x": str(lane),
        "ps->y": "0.5",
        "ps[2].x": str(20 + lane),
        "*&x": str(42 + lane),
        "(&nest)->tag": "%d '%c'" % (ord("a") + lane, ord("a") + lane),
        "q": "(int *) 0x%x" % (PRIVATE_BASE + mem.addr("x")),
        "&x": "(int *) 0x%x [private_lane]" % mem.addr("x"),
        "&arr[1]": "(S *) 0x%x [private_lane]" % mem.addr("arr", 8),
        "&m[1]": "(int (*)[4]) 0x%x [private_lane]" % mem.addr("m", 16),
        "in->y": "0.25",
        "in[2].y": "2.25",
        "in[1].x": str(-101),
        "out[3]": str(5003),
    }


def snapshot(path, memories, pc, lanes_global):
    snap = {"architecture": "gfx900", "wave_size": 64, "lane": 0, "pc": pc, "exec": "0xf",
            "registers": {"s33": FRAME * 64},
            "apertures": {"private": PRIVATE_BASE, "shared": SHARED_BASE},
            "memory": [{"address_space": "private_lane", "lane": lane, "address": FRAME,
                        "bytes": mem.buf.hex()} for lane, mem in memories.items()] + lanes_global}
    with open(path, "w") as f:
        json.dump(snap, f)


def global_memory():
    out = b"".join(struct.pack("<i", 5000 + i) for i in range(8))
    ins = b"".join(struct.pack("<if", -100 * i - 1, 0.25 + i) for i in range(4))
    return [{"address_space": "global", "address": GLOBAL_OUT, "bytes": out.hex()},
            {"address_space": "global", "address": GLOBAL_IN, "bytes": ins.hex()}]


def eval_lanes(amddwarf, obj, snap, expr, extra=()):
    r = run([amddwarf, "eval", obj, "--state", snap, "--lanes", "0-3", "--json"] + list(extra) + [expr])
    if r.returncode != 0:
        return "exit %d: %s%s" % (r.returncode, r.stdout[-300:], r.stderr[-300:])
    return json.loads(r.stdout)


def check_hip(amddwarf, work, version):
    obj = build(work, "hip", version)
    label = "hip dwarf%d" % version
    offsets, bits, seen = dwarf(obj)
    # The producer paths this version exercises.
    expect_seen = {"data_bit_offset"} if version >= 4 else {"bit_offset"}
    if version == 2:
        expect_seen.add("plus_uconst")
    check(expect_seen <= seen, "%s: expected %r in the DWARF, saw %r" % (label, expect_seen, seen))
    memories = {lane: fill_hip(offsets, bits, lane) for lane in LANES}
    snap = obj + ".wave.json"
    snapshot(snap, memories, kernel_pc(amddwarf, obj), global_memory())
    for expr in hip_expected(memories[0], 0):
        got = eval_lanes(amddwarf, obj, snap, expr)
        want = [hip_expected(memories[l], l)[expr] for l in LANES]
        values = got if isinstance(got, str) else [l.get("value") for l in got["lanes"]]
        check(values == want, "%s: %s: %r, expected %r" % (label, expr, values, want))

    # The type of the result, and where the bits of a bitfield come from.
    got = eval_lanes(amddwarf, obj, snap, "bits.b", ["--explain"])
    bit, width = bits["b"]
    base = FRAME + offsets["bits"] + bit // 8
    want = ["private_lane memory of lane %d at 0x%x bits %d-%d" % (l, base, bit % 8, bit % 8 + width - 1)
            for l in LANES]
    check(not isinstance(got, str) and got["type"] == "int" and
          [l["location"] for l in got["lanes"]] == want, "%s: explain bits.b: %r" % (label, got))
    got = eval_lanes(amddwarf, obj, snap, "**pp", ["--explain"])
    want = ["through pp = 0x%x [generic]: through *pp = 0x%x [generic]: "
            "generic 0x%x = private_lane memory of lane %d at 0x%x, 4 bytes"
            % (PRIVATE_BASE + memories[l].addr("q"), PRIVATE_BASE + memories[l].addr("x"),
               PRIVATE_BASE + memories[l].addr("x"), l, memories[l].addr("x")) for l in LANES]
    check(not isinstance(got, str) and [l["location"] for l in got["lanes"]] == want,
          "%s: explain **pp: %r" % (label, got))
    got = eval_lanes(amddwarf, obj, snap, "m[1]")
    check(not isinstance(got, str) and got["type"] == "int[4]", "%s: type of m[1]: %r" % (label, got))

    # Expressions the types do not allow: one message, exit 1, no lane read.
    errors = {
        "nest.z": "no member 'z' in struct N",
        "m[3]": "index 3 is out of bounds for 'm' (int[3][4]): valid indexes are 0 to 2",
        "m[1][-1]": "index -1 is out of bounds for 'm[1]' (int[4]): valid indexes are 0 to 3",
        "*x": "'*' needs a pointer, not 'x' (int)",
        "x[0]": "'[]' needs an array or pointer, not 'x' (int)",
        "ps.x": "'.x' needs a struct or union; use '->x' on the pointer 'ps' (S *)",
        "&bits.c": "'&' cannot take the address of the bitfield 'bits.c' (unsigned int)",
        "bits.a.x": "no operator applies to bitfield 'bits.a' (unsigned int)",
    }
    for expr, message in errors.items():
        r = run([amddwarf, "eval", obj, "--state", snap, expr])
        check(r.returncode == 1 and r.stdout == "" and message in r.stderr,
              "%s: %s: exit %d %r" % (label, expr, r.returncode, r.stderr))
    # A pointer into memory the snapshot does not have.
    r = run([amddwarf, "eval", obj, "--state", snap, "out[100]"])
    check(r.returncode == 0 and r.stdout.strip() ==
          "out[100] = <unavailable> (the target cannot read generic memory at 0x%x, where 'out' points)"
          % (GLOBAL_OUT + 400), "%s: out[100]: %r" % (label, r.stdout + r.stderr))


def check_opencl(amddwarf, work):
    obj = build(work, "cl", 5)
    label = "opencl"
    offsets, _, _ = dwarf(obj)
    memories = {}
    for lane in LANES:
        mem = Memory(offsets)
        mem.put("x", "<i", 7 + lane)
        mem.put("q", "<I", mem.addr("x"))      # private pointers: 4 bytes
        mem.put("pp", "<I", mem.addr("q"))
        mem.put("lp", "<I", 0x40)              # __local pointer: 4 bytes
        mem.put("out", "<Q", GLOBAL_OUT)
        memories[lane] = mem
    check(offsets["pp"] - offsets["q"] == 4, "%s: private pointers are 4 bytes apart: %r"
          % (label, offsets))
    local = b"".join(struct.pack("<i", -i) for i in range(32))
    snap = obj + ".wave.json"
    snapshot(snap, memories, kernel_pc(amddwarf, obj),
             global_memory() + [{"address_space": "local", "address": 0, "bytes": local.hex()}])
    want = {
        "q": ["(int *) 0x%x [private_lane]" % memories[l].addr("x") for l in LANES],
        "**pp": [str(7 + l) for l in LANES],
        "lp[1]": ["-17"] * 4,
        "*lp": ["-16"] * 4,
        "&lp[2]": ["(int *) 0x48 [local]"] * 4,
        "out[2]": ["5002"] * 4,
    }
    for expr, values in want.items():
        got = eval_lanes(amddwarf, obj, snap, expr)
        got = got if isinstance(got, str) else [l.get("value") for l in got["lanes"]]
        check(got == values, "%s: %s: %r, expected %r" % (label, expr, got, values))


def check_cpp(amddwarf, work):
    """Anonymous members, base classes and references (HIP is C++)."""
    obj = build(work, "cpp.hip", 5)
    label = "hip c++"
    offsets, _, _ = dwarf(obj)
    memories = {}
    for lane in LANES:
        mem = Memory(offsets)
        mem.put("n", "<i", 70 + lane)
        mem.put("a", "<f", 2.5 + lane)
        mem.put("a", "<h", 1 + lane, 4)
        mem.put("a", "<h", -2 - lane, 6)
        mem.put("a", "<i", 3, 8)
        mem.put("dd", "<i", 11 + lane)
        mem.put("dd", "<i", 12, 4)
        mem.put("r", "<Q", PRIVATE_BASE + mem.addr("n"))
        memories[lane] = mem
    snap = obj + ".wave.json"
    snapshot(snap, memories, kernel_pc(amddwarf, obj), [])
    ints = lambda f: struct.unpack("<i", struct.pack("<f", f))[0]
    want = {
        "a": ["{{i = %d, f = %g}, {lo = %d, hi = %d}, k = 3}" % (ints(2.5 + l), 2.5 + l, 1 + l, -2 - l)
              for l in LANES],
        "a.f": ["%g" % (2.5 + l) for l in LANES],
        "a.hi": [str(-2 - l) for l in LANES],
        "dd": ["{<Base> = {b = %d}, d = 12}" % (11 + l) for l in LANES],
        "dd.b": [str(11 + l) for l in LANES],
        "r": [str(70 + l) for l in LANES],
        "&r": ["(int *) 0x%x" % (PRIVATE_BASE + memories[l].addr("n")) for l in LANES],
    }
    for expr, values in want.items():
        got = eval_lanes(amddwarf, obj, snap, expr)
        got = got if isinstance(got, str) else [l.get("value") for l in got["lanes"]]
        check(got == values, "%s: %s: %r, expected %r" % (label, expr, got, values))


def check_o2(amddwarf, work):
    """The same kernels at -O2 (gfx900 wave64, gfx1030 wave32): every variable
    held in VGPRs reads each lane's own dwords (test_object_eval's check of
    the -O2 corpus, which owns the rule)."""
    import test_object_eval as object_eval  # its checks count in this test's totals
    for lang in ("hip", "cpp.hip", "cl"):
        for cpu, wave in (("gfx900", 64), ("gfx1030", 32)):
            obj = build(work, lang, 5, cpu, "-O2")
            _, count = object_eval.check_vgpr_held(amddwarf, obj, cpu, wave,
                                                   "-O2 %s %s" % (lang, cpu))
            if lang == "hip":
                check(count > 0, "-O2 hip %s: variables held in VGPRs" % cpu)


def main():
    args = arguments(__doc__)
    if missing_tool("clang-19", "llvm-dwarfdump-19"):
        return 0
    work = os.path.join(args.work, "eval_paths")
    os.makedirs(work, exist_ok=True)
    for version in (5, 4, 3, 2):
        check_hip(args.amddwarf, work, version)
    check_opencl(args.amddwarf, work)
    check_cpp(args.amddwarf, work)
    check_o2(args.amddwarf, work)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
