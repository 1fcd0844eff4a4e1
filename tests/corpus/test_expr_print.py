#!/usr/bin/env python3
"""Corpus test of the expression printer against llvm-dwarfdump-19.

Builds small OpenCL and HIP kernels with Debian's clang-19 for gfx900, gfx90a
and gfx1030, at -O0 and -O2, with DWARF 4 and 5 (private arrays, __local
arrays, a struct, a noinline call, a divergent loop so that -O2 produces
location lists). It then reads every DW_FORM_exprloc attribute and every
location-list entry straight from the object's bytes (a small ELF/DWARF
reader below, with RELA relocations applied), decodes the bytes with
`amddwarf expr decode --lines`, and checks that the text is identical to what
llvm-dwarfdump-19 prints for the same expression, after normalizing only the
AMDGPU register naming (specs/encodings.md, "Printing"):

  SGPR33_LO16 -> SGPR33     (llvm names a 16-bit part; we the whole register)
  PC_REG -> PC
  0x600 + n -> VGPRn_W32, 0x800 + n -> AGPRn_W32   (wave32 vector registers,
                                                    unnamed by llvm-dwarfdump-19)
  0 -> PC_32 (unnamed by llvm-dwarfdump-19)
and base type references, which llvm-dwarfdump-19 resolves through the unit
and the codec prints as the offset: <invalid base_type ref: 0x2a> -> 0x2a.
It also builds one object with llvm-mc-19 holding every standard operation of
ops.def with sample operands and every AMDGPU register range, and compares
those the same way (skipping the operations llvm-dwarfdump-19 cannot decode).

Prints how many expressions were compared and `N passed, N failed`.
"""
import pathlib
import re
import struct
import sys

from corpus_util import arguments, assemble, check, compile_opencl, run, run_ok, summary

OPENCL = r"""
struct pair { int a; float b; };

__attribute__((noinline)) int helper(int x, __local int *tile)
{
  int acc = 0;
  for (int i = 0; i < x; i++)
    acc += tile[i & 63] * i;
  return acc;
}

__kernel void kern(__global int *out, __global const int *in, int n)
{
  __local int tile[64];
  int priv[8];
  struct pair p;
  int gid = get_global_id(0);
  int lid = get_local_id(0);
  tile[lid & 63] = in[gid];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = 0; i < 8; i++)
    priv[i] = in[(gid + i) % n];
  p.a = priv[gid & 7];
  p.b = (float)p.a * 0.5f;
  int sum = 0;
  for (int i = 0; i < gid % 17; i++)
    sum += priv[i & 7] + (int)p.b;
  long wide = (long)sum * n;
  out[gid] = sum + helper(lid, tile) + (int)(wide >> 7);
}
"""

# HIP device code without the HIP headers: the attributes spelled out.
HIP = r"""
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
struct vec { float x, y, z; };
__device__ __attribute__((noinline)) float dot(struct vec a, struct vec b)
{
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
__global__ void hkern(float *out, const float *in, int n)
{
  __shared__ float tile[64];
  float priv[16];
  int tid = __builtin_amdgcn_workitem_id_x();
  int gid = __builtin_amdgcn_workgroup_id_x() * 64 + tid;
  tile[tid & 63] = in[gid];
  __builtin_amdgcn_s_barrier();
  for (int i = 0; i < 16; i++)
    priv[i] = in[(gid + i) % n];
  struct vec v = {priv[0], priv[1], priv[tid & 15]};
  float s = 0;
  for (int i = 0; i < tid % 13; i++)
    s += priv[i & 15] * tile[(tid + i) & 63];
  double d = s;
  out[gid] = s + dot(v, v) + (float)(d * 0.25);
}
"""

TARGETS = ["gfx900", "gfx90a", "gfx1030"]
OPTS = ["-O0", "-O2"]
VERSIONS = [4, 5]

# ---- A small ELF64 + DWARF reader ----------------------------------------

R_AMDGPU_ABS64, R_AMDGPU_ABS32 = 3, 6


def read_elf(path):
    data = bytearray(path.read_bytes())
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(f"{path}: not a little-endian ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = []
    for i in range(shnum):
        name, typ, flags, addr, off, size, link, info, align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, shoff + i * shentsize)
        headers.append(dict(name=name, type=typ, off=off, size=size, link=link, info=info,
                            entsize=entsize))
    strtab = headers[shstrndx]

    def name_of(h):
        start = strtab["off"] + h["name"]
        return data[start:data.index(0, start)].decode()

    sections = {}
    for i, h in enumerate(headers):
        h["index"] = i
        h["sname"] = name_of(h)
        sections[h["sname"]] = h
    contents = {h["sname"]: bytearray(data[h["off"]:h["off"] + h["size"]])
                for h in headers if h["type"] != 8}
    # Apply RELA relocations of debug sections (S + A).
    for h in headers:
        if h["type"] != 4:  # SHT_RELA
            continue
        target = headers[h["info"]]["sname"]
        if not target.startswith(".debug"):
            continue
        symtab = headers[h["link"]]
        for k in range(h["size"] // 24):
            r_offset, r_info, r_addend = struct.unpack_from("<QQq", data, h["off"] + 24 * k)
            sym, typ = r_info >> 32, r_info & 0xffffffff
            st_value, = struct.unpack_from("<Q", data, symtab["off"] + 24 * sym + 8)
            value = (st_value + r_addend) & 0xffffffffffffffff
            if typ == R_AMDGPU_ABS64:
                struct.pack_into("<Q", contents[target], r_offset, value)
            elif typ == R_AMDGPU_ABS32:
                struct.pack_into("<I", contents[target], r_offset, value & 0xffffffff)
            else:
                raise ValueError(f"{path}: relocation type {typ} in {target}")
    return contents


class Reader:
    def __init__(self, data, pos=0):
        self.data, self.pos = data, pos

    def u(self, n):
        v = int.from_bytes(self.data[self.pos:self.pos + n], "little")
        self.pos += n
        return v

    def uleb(self):
        v = shift = 0
        while True:
            b = self.data[self.pos]
            self.pos += 1
            v |= (b & 0x7f) << shift
            shift += 7
            if not b & 0x80:
                return v

    def sleb(self):
        v = shift = 0
        while True:
            b = self.data[self.pos]
            self.pos += 1
            v |= (b & 0x7f) << shift
            shift += 7
            if not b & 0x80:
                return v - (1 << shift) if b & 0x40 else v

    def bytes(self, n):
        v = bytes(self.data[self.pos:self.pos + n])
        self.pos += n
        return v

    def cstr(self):
        end = self.data.index(0, self.pos)
        self.pos = end + 1


def parse_abbrevs(data, offset):
    r, abbrevs = Reader(data, offset), {}
    while True:
        code = r.uleb()
        if code == 0:
            return abbrevs
        tag, children = r.uleb(), r.u(1)
        attrs = []
        while True:
            at, form = r.uleb(), r.uleb()
            if at == 0 and form == 0:
                break
            implicit = r.sleb() if form == 0x21 else None
            attrs.append((at, form, implicit))
        abbrevs[code] = attrs


FIXED = {0x0b: 1, 0x05: 2, 0x06: 4, 0x07: 8, 0x0c: 1, 0x11: 1, 0x12: 2, 0x13: 4, 0x14: 8,
         0x1c: 4, 0x1e: 16, 0x20: 8, 0x24: 8, 0x25: 1, 0x26: 2, 0x27: 3, 0x28: 4,
         0x29: 1, 0x2a: 2, 0x2b: 3, 0x2c: 4}


def unit_exprs(contents):
    """Yields (kind, format, bytes) for every exprloc in .debug_info and every
    location-list entry in .debug_loclists / .debug_loc, in section order."""
    info, abbrev = contents.get(".debug_info", b""), contents.get(".debug_abbrev", b"")
    formats = []
    r = Reader(info)
    while r.pos < len(info):
        length = r.u(4)
        offset_size = 4
        if length == 0xffffffff:
            length, offset_size = r.u(8), 8
        end = r.pos + length
        version = r.u(2)
        if version >= 5:
            unit_type, addr_size = r.u(1), r.u(1)
            abbrev_off = r.u(offset_size)
            if unit_type in (2, 6):
                r.u(8), r.u(offset_size)
            elif unit_type in (4, 5):
                r.u(8)
        else:
            abbrev_off, addr_size = r.u(offset_size), r.u(1)
        fmt = (version, addr_size, offset_size)
        formats.append(fmt)
        abbrevs = parse_abbrevs(abbrev, abbrev_off)
        while r.pos < end:
            code = r.uleb()
            if code == 0:
                continue
            for at, form, _ in abbrevs[code]:
                while form == 0x16:
                    form = r.uleb()
                if form == 0x18:
                    yield "exprloc", fmt, r.bytes(r.uleb())
                elif form in FIXED:
                    r.pos += FIXED[form]
                elif form in (0x01,):
                    r.pos += addr_size
                elif form in (0x10, 0x17, 0x0e, 0x1d, 0x1f):
                    r.pos += offset_size if version >= 3 or form != 0x10 else addr_size
                elif form in (0x0f, 0x15, 0x1a, 0x1b, 0x22, 0x23):
                    r.uleb()
                elif form == 0x0d:
                    r.sleb()
                elif form == 0x08:
                    r.cstr()
                elif form == 0x09:
                    r.pos += r.uleb()
                elif form == 0x0a:
                    r.pos += r.u(1)
                elif form == 0x03:
                    r.pos += r.u(2)
                elif form == 0x04:
                    r.pos += r.u(4)
                elif form in (0x19, 0x21):
                    pass
                else:
                    raise ValueError(f"unknown form 0x{form:x}")
        r.pos = end
    fmt5 = next((f for f in formats if f[0] >= 5), (5, 8, 4))
    fmt4 = next((f for f in formats if f[0] < 5), (4, 8, 4))
    loclists = contents.get(".debug_loclists")
    if loclists:
        r = Reader(loclists)
        while r.pos < len(loclists):
            length = r.u(4)
            offset_size = 4
            if length == 0xffffffff:
                length, offset_size = r.u(8), 8
            end = r.pos + length
            version, addr_size, _seg, count = r.u(2), r.u(1), r.u(1), r.u(4)
            r.pos += count * offset_size
            fmt = (version, addr_size, offset_size)
            while r.pos < end:
                kind = r.u(1)
                if kind == 0:
                    continue
                if kind == 1:
                    r.uleb()
                elif kind in (2, 3, 4):
                    r.uleb(), r.uleb()
                elif kind == 6:
                    r.u(addr_size)
                elif kind == 7:
                    r.u(addr_size), r.u(addr_size)
                elif kind == 8:
                    r.u(addr_size), r.uleb()
                if kind in (2, 3, 4, 5, 7, 8):
                    yield "loclists", fmt, r.bytes(r.uleb())
    loc = contents.get(".debug_loc")
    if loc:
        r, addr_size = Reader(loc), fmt4[1]
        all_ones = (1 << (8 * addr_size)) - 1
        while r.pos < len(loc):
            begin, end_addr = r.u(addr_size), r.u(addr_size)
            if begin == 0 and end_addr == 0:
                continue
            if begin == all_ones:
                continue
            yield "loc", fmt4, r.bytes(r.u(2))


# ---- llvm-dwarfdump-19's text ----------------------------------------------

def llvm_texts(obj):
    out = {"exprloc": [], "loclists": [], "loc": []}
    info = run_ok(["llvm-dwarfdump-19", "-v", "--debug-info", str(obj)]).stdout
    for line in info.splitlines():
        if "[DW_FORM_exprloc]" in line:
            text = line.split("[DW_FORM_exprloc]", 1)[1].strip()
            assert text.startswith("(") and text.endswith(")"), line
            out["exprloc"].append(text[1:-1])
    lists = run_ok(["llvm-dwarfdump-19", "--debug-loclists", "--debug-loc", str(obj)]).stdout
    section = None
    for line in lists.splitlines():
        if line.startswith(".debug_loclists contents"):
            section = "loclists"
        elif line.startswith(".debug_loc contents"):
            section = "loc"
        elif section and re.match(r"\s+(DW_LLE_\w+\s+)?\(.*\): ", line):
            out[section].append(line.split("): ", 1)[1])
    return out


def normalize_llvm(text):
    def reg_name(number):
        if number == 0:
            return "PC_32"
        if 1536 <= number < 1792:
            return f"VGPR{number - 1536}_W32"
        if 2048 <= number < 2304:
            return f"AGPR{number - 2048}_W32"
        return None

    def fix_regx(m):
        name = reg_name(int(m.group(2), 16))
        return f"{m.group(1)} {name}" if name else m.group(0)

    def fix_bregx(m):
        name = reg_name(int(m.group(2), 16))
        return f"{m.group(1)} {name}{m.group(3)}" if name else m.group(0)

    # Base type references: the codec has no DIEs and prints the offset.
    text = re.sub(r" <invalid base_type ref: (0x[0-9a-f]+)>", r" \1", text)
    text = re.sub(r"\b(\w+)_LO16\b", r"\1", text)
    text = re.sub(r"\bPC_REG\b", "PC", text)
    text = re.sub(r"(DW_OP_bregx|DW_OP_LLVM_aspace_bregx) 0x([0-9a-f]+) ([+-]\d+)", fix_bregx,
                  text)
    text = re.sub(r"(DW_OP_regx|DW_OP_regval_type|DW_OP_LLVM_call_frame_entry_reg) 0x([0-9a-f]+)",
                  fix_regx, text)
    text = re.sub(r"DW_OP_breg0 ([+-]\d+)", r"DW_OP_breg0 PC_32\1", text)
    text = re.sub(r"DW_OP_reg0\b(?! )", "DW_OP_reg0 PC_32", text)
    return text


# ---- Every operation of ops.def, through llvm-mc-19 ------------------------

SAMPLES = {"NONE": b"", "U8": b"\xab", "S8": b"\xfb", "U16": b"\xef\xbe", "S16": b"\xd4\xfe",
           "U32": b"\xef\xbe\xad\xde", "S32": b"\x90\xee\xfe\xff",
           "U64": bytes.fromhex("efcdab8967452301"), "S64": bytes.fromhex("feffffffffffffff"),
           "ULEB": b"\xe5\x8e\x26", "SLEB": b"\xc0\xbb\x78", "ADDR": bytes.fromhex("8877665544332211"),
           "DIE_REF": b"\x78\x56\x34\x12", "BLOCK": b"\x03\xde\xad\x01",
           "BLOCK_U8": b"\x03\xde\xad\x01", "TYPE": b"\x2a", "REG": b"\xc1\x00",
           "ENCODED_ADDR": b"\x03\x34\x12\x00\x00"}


def synthetic_expressions(ops_def):
    """One expression per standard operation of ops.def with sample operands
    (branches jump to the end; entry values hold DW_OP_regx SGPR33), plus
    register forms for every AMDGPU register range."""
    exprs = []
    for line in ops_def.read_text().splitlines():
        m = re.match(r'AMDDWARF_OP\((\w+),\s*"(\w+)",\s*(0x[0-9a-f]+),\s*(\w+),\s*(\w+),', line)
        if not m:
            continue
        _, name, code, a, b = m.groups()
        if a == "BRANCH":
            body = b"\x00\x00"
        elif name in ("DW_OP_entry_value", "DW_OP_GNU_entry_value"):
            body = b"\x02\x90\x41"
        else:
            body = SAMPLES[a] + SAMPLES[b]
        exprs.append(bytes([int(code, 16)]) + body)
    for reg in (0, 1, 16, 17, 32, 65, 95, 96, 1088, 1129, 1130, 1536, 1791, 2048, 2560, 2563,
                2815, 3072, 3327, 3328):
        uleb = bytearray()
        while True:
            byte, reg = reg & 0x7f, reg >> 7
            uleb.append(byte | (0x80 if reg else 0))
            if not reg:
                break
        exprs.append(b"\x90" + bytes(uleb))
        exprs.append(b"\x92" + bytes(uleb) + b"\x7c")
    exprs += [bytes([0x50 + r]) for r in (0, 1, 5)] + [bytes([0x70 + r, 0x08]) for r in (0, 1, 5)]
    return exprs


def synthetic_object(work, exprs):
    """An amdgcn object (gfx900) whose one unit has a variable per expression."""
    lines = ['.section .debug_abbrev,"",@progbits',
             ".byte 1,0x11,1,0x13,0x0b,0,0", ".byte 2,0x34,0,0x02,0x18,0,0", ".byte 0",
             '.section .debug_info,"",@progbits', ".long .Lend-.Lstart", ".Lstart:",
             ".short 5", ".byte 1,8", ".long 0", ".byte 1,0x0c"]
    for e in exprs:
        assert len(e) < 128
        lines.append(".byte 2," + ",".join(str(x) for x in bytes([len(e)]) + e))
    lines += [".byte 0", ".Lend:"]
    (work / "synthetic.s").write_text("\n".join(lines) + "\n")
    obj = work / "synthetic.o"
    assemble(str(work / "synthetic.s"), str(obj))
    return obj


def check_synthetic(args, work):
    """Checks every synthetic expression; returns how many were identical,
    how many differed, and how many llvm-dwarfdump-19 cannot decode."""
    ops_def = pathlib.Path(__file__).resolve().parents[2] / "libamddwarf/include/amddwarf/ops.def"
    exprs = synthetic_expressions(ops_def)
    obj = synthetic_object(work, exprs)
    theirs = llvm_texts(obj)["exprloc"]
    done = run([args.amddwarf, "expr", "decode", "--lines", "-"],
               stdin="".join(e.hex() + "\n" for e in exprs))
    ours = done.stdout.splitlines()
    if not check(len(theirs) == len(exprs) and len(ours) == len(exprs),
                 f"synthetic: {len(exprs)} expressions, llvm-dwarfdump-19 printed "
                 f"{len(theirs)}, amddwarf {len(ours)}"):
        return 0, 1, 0
    passed = failed = skipped = 0
    for e, mine, text in zip(exprs, ours, theirs):
        if text.startswith("<decoding error>"):
            skipped += 1
            continue
        if check(mine == normalize_llvm(text), f"synthetic {e.hex()}:\n  amddwarf:          "
                 f"{mine}\n  llvm-dwarfdump-19: {text}"):
            passed += 1
        else:
            failed += 1
    return passed, failed, skipped


# ---- The test ----------------------------------------------------------------

def build(work):
    (work / "k.cl").write_text(OPENCL)
    (work / "k.hip").write_text(HIP)
    objects = []
    for cpu in TARGETS:
        for opt in OPTS:
            for version in VERSIONS:
                obj = work / f"cl-{cpu}{opt}-dwarf{version}.o"
                compile_opencl(str(work / "k.cl"), str(obj), cpu,
                               ["-g", f"-gdwarf-{version}", opt, "-x", "cl", "-cl-std=CL2.0",
                                "-Xclang", "-finclude-default-header"])
                objects.append(obj)
                hobj = work / f"hip-{cpu}{opt}-dwarf{version}.o"
                done = run(["clang-19", "-x", "hip", "--cuda-device-only", "-nogpulib",
                            "-nogpuinc", f"--offload-arch={cpu}", "-g", f"-gdwarf-{version}", opt,
                            "-c", "--no-gpu-bundle-output", str(work / "k.hip"), "-o",
                            str(hobj)])
                if done.returncode == 0:
                    objects.append(hobj)
                else:
                    print(f"note: HIP build for {cpu} {opt} DWARF {version} failed: "
                          f"{done.stderr.strip().splitlines()[-1:]}")
    return objects


def main():
    args = arguments(__doc__)
    work = pathlib.Path(args.work)
    compared = {"exprloc": 0, "loclists": 0, "loc": 0}
    for obj in build(work):
        exprs = list(unit_exprs(read_elf(obj)))
        expected = llvm_texts(obj)
        for kind in ("exprloc", "loclists", "loc"):
            mine = [e for e in exprs if e[0] == kind]
            if not check(len(mine) == len(expected[kind]),
                         f"{obj.name}: {len(mine)} {kind} expressions read, "
                         f"llvm-dwarfdump-19 printed {len(expected[kind])}"):
                continue
            for fmt in sorted({e[1] for e in mine}):
                indexes = [i for i, e in enumerate(mine) if e[1] == fmt]
                lines = "".join(mine[i][2].hex() + "\n" for i in indexes)
                version, addr_size, offset_size = fmt
                cmd = [args.amddwarf, "expr", "decode", "--lines", "-", "--addr-size",
                       str(addr_size), "--dwarf-version", str(version)]
                if offset_size == 8:
                    cmd.append("--dwarf64")
                done = run(cmd, stdin=lines)
                got = done.stdout.splitlines()
                if not check(done.returncode == 0 and len(got) == len(indexes),
                             f"{obj.name}: amddwarf exited {done.returncode}: "
                             f"{done.stderr.strip()} "
                             f"{[g for g in got if g.startswith('error')][:3]}"):
                    continue
                for i, ours in zip(indexes, got):
                    theirs = normalize_llvm(expected[kind][i])
                    compared[kind] += 1
                    check(ours == theirs, f"{obj.name} {kind} #{i} bytes {mine[i][2].hex()}:\n"
                          f"  amddwarf:         {ours}\n"
                          f"  llvm-dwarfdump-19: {expected[kind][i]}")
    s_passed, s_failed, s_skipped = check_synthetic(args, work)
    print(f"synthetic: every standard operation and AMDGPU register range: {s_passed} identical, "
          f"{s_failed} different, {s_skipped} that llvm-dwarfdump-19 cannot decode")
    total = sum(compared.values())
    print(f"compared {total} expressions with llvm-dwarfdump-19 "
          f"({compared['exprloc']} DW_FORM_exprloc, {compared['loclists']} .debug_loclists "
          f"entries, {compared['loc']} .debug_loc entries)")
    check(total >= 100, f"only {total} expressions compared; the corpus is too small")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
