#!/usr/bin/env python3
"""Unwinding through functions whose FDEs say nothing, against the machine.

clang-19 (OpenCL) and hipcc build a kernel k calling a noinline `middle`
that calls a noinline leaf `leaf` twice, at -O0 and -O2, for gfx90a (wave64)
and gfx1030 (wave32). Their FDEs have no instructions: the frames above the
innermost come from the rows the prologue analyzer synthesizes.

The oracle is a small emulator written here, independently of the
library: it runs the code llvm-objdump-19 disassembles from middle's entry
(every SGPR, every lane of every VGPR and AGPR, and every byte of private
memory distinct; EXEC with some lanes off) through its call into leaf,
stopping at an instruction in leaf's body. It follows the instructions a
prologue uses (moves, v_writelane/readlane, s_or/xor_saveexec, scratch
buffer stores and loads, s32/s33 arithmetic, s_getpc/s_swappc) exactly, and
gives every other instruction's destination a fresh value. Its state is the
snapshot. Then, from `amddwarf unwind --json` and `amddwarf vars --frame 1`:

  * `vars --frame 0` does not load the instruction decoder (libLLVM) and
    `unwind` does, as the dynamic loader's LD_DEBUG=files trace shows;

  * frame 1's PC is the instruction after middle's s_swappc_b64 and frame
    2's the return address middle received (llvm-objdump-19);
  * frame 1's line is the call site's as llvm-symbolizer-19 gives it;
  * frame 0's CFA is middle's SP at the call, frame 1's the SP k had;
  * the registers frame 2 gets back (s33, s32, every lane of the VGPRs
    middle saved, the inactive lanes of a caller-saved one saved under
    s_xor_saveexec) are those the emulator started middle with;
  * the walk ends at the kernel (status end), and middle's variable `a` in
    frame 1 (OpenCL -O0: in scratch at DW_OP_fbreg from middle's frame
    pointer, which leaf's rows restore) reads what the emulator stored.

Usage: test_prologue_unwind.py --amddwarf PATH --work DIR --build DIR
"""
import json
import os
import re
import subprocess

from corpus_util import (arguments, check, compile_device, hipcc, link_shared, missing_tool,
                         run, run_json, run_ok, summary, write)

OPENCL = r"""__attribute__((noinline)) int leaf(int x, int y)
{
  int t = x * y + 3;
  return t ^ (x >> 1);
}
__attribute__((noinline)) int middle(int x, int y)
{
  int a = x + 7;
  int b = leaf(a, y);
  int c = leaf(b, a);
  return a * b + c;
}
__kernel void k(__global int *out, int n)
{
  int id = __builtin_amdgcn_workitem_id_x();
  int v = n + id;
  int r = middle(v, id);
  out[id] = r + v;
}
"""

HIP = "#include <hip/hip_runtime.h>\n" + OPENCL.replace(
    "__attribute__((noinline))", "__device__ __attribute__((noinline))").replace(
    "__kernel void k(__global int *out", "__global__ void k(int *out").replace(
    "__builtin_amdgcn_workitem_id_x()", "threadIdx.x")

M32 = 0xffffffff


def disassemble(path):
    """{function: [(address, text)]} from llvm-objdump-19."""
    out = run_ok(["llvm-objdump-19", "-d", "--no-show-raw-insn", path]).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(2), [])
            continue
        m = re.match(r"^\s+(\S.*?)\s*// ([0-9A-F]+):", line)
        if m and cur is not None:
            cur.append((int(m.group(2), 16), m.group(1)))
    return funcs


def tokens(text):
    return [t for t in re.split(r"[ ,]+", text.strip()) if t]


def reg(tok):
    """('s'|'v'|'a', [indices]) or (name, None) for exec and others."""
    m = re.match(r"^([sva])(\d+)$", tok)
    if m:
        return m.group(1), [int(m.group(2))]
    m = re.match(r"^([sva])\[(\d+):(\d+)\]$", tok)
    if m:
        return m.group(1), list(range(int(m.group(2)), int(m.group(3)) + 1))
    return tok, None


class Machine:
    """The registers and private memory of one wave, and a program counter."""

    def __init__(self, wave):
        self.w = wave
        self.s = {n: 0x51000000 + n * 0x101 for n in range(106)}
        self.v = {n: [0x7000000 + n * 0x1000 + l for l in range(wave)] for n in range(256)}
        self.a = {n: [0x3000000 + n * 0x1000 + l for l in range(wave)] for n in range(256)}
        self.exec = ((1 << wave) - 1) & ~((1 << 3) | (1 << 17))  # lanes 3, 17 off
        self.mem = {}  # private_wave byte offset (dword aligned) -> dword
        self.fresh = 0x60000000

    def new(self):
        self.fresh += 1
        return self.fresh

    def sval(self, tok):
        kind, idx = reg(tok)
        if kind == "s":
            return sum(self.s[i] << (32 * k) for k, i in enumerate(idx))
        if tok in ("exec", "exec_lo"):
            return self.exec
        return int(tok, 0) & 0xffffffffffffffff

    def sset(self, tok, value):
        kind, idx = reg(tok)
        if tok in ("exec", "exec_lo"):
            self.exec = value & ((1 << self.w) - 1)
        elif kind == "s":
            for k, i in enumerate(idx):
                self.s[i] = (value >> (32 * k)) & M32

    def lanes(self):
        return [l for l in range(self.w) if self.exec >> l & 1]

    def slot(self, ops):
        """Wave offset of lane 0's dword of a scratch access `vN, off, s[0:3], sR offset:X`."""
        base = self.s[reg(ops[3])[1][0]]
        imm = 0
        for o in ops[4:]:
            if o.startswith("offset:"):
                imm = int(o[7:], 0)
        return base + imm * self.w

    def clobber(self, tok):
        kind, idx = reg(tok)
        if kind == "s":
            for i in idx:
                self.s[i] = self.new()
        elif kind in ("v", "a"):
            regs = self.v if kind == "v" else self.a
            for i in idx:
                for l in self.lanes():
                    regs[i][l] = self.new()
        elif tok in ("exec", "exec_lo"):
            raise RuntimeError("unmodelled write to EXEC")

    def step(self, pc, text):
        """Runs one instruction; returns the next PC, or a call target's tuple."""
        t = tokens(text)
        m, ops = t[0], t[1:]
        nxt = pc + self.size
        if m in ("s_waitcnt", "s_nop", "s_clause", "s_delay_alu") or m.startswith("s_waitcnt"):
            return nxt
        if m in ("s_mov_b32", "s_mov_b64"):
            self.sset(ops[0], self.sval(ops[1]))
        elif re.match(r"s_(or|xor)_saveexec_b(32|64)$", m):
            old = self.exec
            src = self.sval(ops[1]) & ((1 << self.w) - 1)
            self.sset(ops[0], old)
            self.exec = (old | src) if "_or_" in m else (old ^ src)
        elif m in ("s_add_i32", "s_add_u32", "s_sub_i32", "s_sub_u32", "s_addc_u32"):
            a, b = self.sval(ops[1]), self.sval(ops[2])
            r = a - b if "sub" in m else a + b
            self.sset(ops[0], r & M32)
        elif m == "s_addk_i32":
            imm = int(ops[1], 0)
            imm = imm - 0x10000 if imm & 0x8000 else imm
            self.sset(ops[0], (self.sval(ops[0]) + imm) & M32)
        elif m == "s_getpc_b64":
            self.sset(ops[0], nxt)
        elif m == "s_swappc_b64":
            target = self.sval(ops[1])
            self.sset(ops[0], nxt)
            return ("call", target, nxt)
        elif m == "v_writelane_b32":
            self.v[reg(ops[0])[1][0]][int(ops[2], 0)] = self.sval(ops[1]) & M32
        elif m == "v_readlane_b32":
            self.sset(ops[0], self.v[reg(ops[1])[1][0]][int(ops[2], 0)])
        elif m in ("v_mov_b32_e32", "v_accvgpr_write_b32", "v_accvgpr_read_b32"):
            dk, di = reg(ops[0])
            sk, si = reg(ops[1])
            dst = (self.v if dk == "v" else self.a)[di[0]]
            for l in self.lanes():
                if sk in ("v", "a"):
                    dst[l] = (self.v if sk == "v" else self.a)[si[0]][l]
                else:
                    dst[l] = self.sval(ops[1]) & M32
        elif m in ("buffer_store_dword", "buffer_load_dword") and ops[1] == "off":
            at = self.slot(ops)
            vk, vi = reg(ops[0])
            regs = self.v if vk == "v" else self.a
            for l in self.lanes():
                if m == "buffer_store_dword":
                    self.mem[at + 4 * l] = regs[vi[0]][l]
                else:
                    regs[vi[0]][l] = self.mem.get(at + 4 * l, self.private_byte_word(at + 4 * l))
        else:
            # Anything else: fresh values in its destinations.
            if ops and not m.startswith(("s_cmp", "s_cbranch", "s_branch", "buffer_store",
                                         "global_store", "s_setpc")):
                self.clobber(ops[0])
                if re.search(r"_co_|mad_u64|mad_i64", m) and len(ops) > 1:
                    self.clobber(ops[1])
        return nxt

    def private_byte_word(self, off):
        """The unwritten memory's distinct pattern: the dword at OFF."""
        return (0x9e000000 | off) & M32


def lane_memory(machine, span):
    """private_lane regions: every lane's bytes [0, SPAN), from the wave offsets."""
    w = machine.w
    regions = []
    for lane in range(w):
        data = bytearray()
        for a in range(0, span, 4):
            off = (a // 4) * w * 4 + lane * 4
            data += machine.mem.get(off, machine.private_byte_word(off)).to_bytes(4, "little")
        regions.append({"address_space": "private_lane", "lane": lane, "address": 0,
                        "bytes": data.hex()})
    return regions


def find(funcs, name):
    for f in funcs:
        if f == name or re.match(r"^_Z%d%s[A-Za-z]" % (len(name), name), f):
            return f
    return None


def emulate(funcs, wave, cpu, label):
    """Runs middle from its entry into leaf; returns (machine, facts)."""
    mid, leaf, kern = funcs[find(funcs, "middle")], funcs[find(funcs, "leaf")], funcs[find(funcs, "k")]
    sizes = {}
    for body in funcs.values():
        for i, (a, _) in enumerate(body):
            sizes[a] = body[i + 1][0] - a if i + 1 < len(body) else 4
    # k's call: the return address middle gets.
    k_call = [a for a, t in kern if t.startswith("s_swappc_b64")][0]
    mach = Machine(wave)
    mach.s[30], mach.s[31] = (k_call + 4) & M32, (k_call + 4) >> 32
    mach.s[32] = 0x800          # k's SP (wave-scaled)
    mach.s[33] = 0x140          # k's FP, distinct from every SP
    entry = {"s": dict(mach.s), "v": {n: list(l) for n, l in mach.v.items()}}
    code = {a: t for body in funcs.values() for a, t in body}
    pc = mid[0][0]
    call_return = None
    for _ in range(2000):
        mach.size = sizes[pc]
        r = mach.step(pc, code[pc])
        if isinstance(r, tuple):
            call_return = r[2]
            sp_at_call = mach.s[32]
            pc = leaf[0][0]
            break
        pc = r
    # Into leaf: stop at the middle of its body.
    stop = leaf[len(leaf) // 2][0]
    while pc != stop:
        mach.size = sizes[pc]
        pc = mach.step(pc, code[pc])
    return mach, {"pc": stop, "sp_at_entry": 0x800, "call_return": call_return, "middle_return": k_call + 4,
                  "sp_at_call": sp_at_call, "entry": entry,
                  "call_site": call_return - 4}


def snapshot(mach, cpu, pc, path):
    regs = {"s%d" % n: v for n, v in mach.s.items()}
    regs.update({"v%d" % n: l for n, l in mach.v.items()})
    regs.update({"a%d" % n: l for n, l in mach.a.items()} if cpu == "gfx90a" else {})
    doc = {"architecture": cpu, "wave_size": mach.w, "exec": hex(mach.exec), "pc": hex(pc),
           "registers": regs, "memory": lane_memory(mach, 0x100)}
    with open(path, "w") as f:
        json.dump(doc, f)


def symbolizer_line(path, address):
    r = run(["llvm-symbolizer-19", "--obj=" + path, "--output-style=JSON", hex(address)])
    doc = json.loads(r.stdout.splitlines()[0])
    sym = (doc[0] if isinstance(doc, list) else doc)["Symbol"]
    return sym[-1]["Line"] if sym else None


def check_variant(amddwarf, work, label, obj, cpu, wave, lang):
    funcs = disassemble(obj)
    mach, facts = emulate(funcs, wave, cpu, label)
    snap = os.path.join(work, label + ".json")
    snapshot(mach, cpu, facts["pc"], snap)
    r = run([amddwarf, "unwind", obj, "--state", snap, "--json"])
    if not check(r.returncode == 0, "%s: unwind exit %d: %s" % (label, r.returncode,
                                                                 r.stderr.strip()[:300])):
        return
    u = json.loads(r.stdout)
    frames = u["frames"]
    check(len(frames) == 3, "%s: %d frames, expected leaf, middle, k" % (label, len(frames)))
    check(u["end"]["status"] == "end", "%s: walk ended with %s" % (label, u["end"]))
    if len(frames) < 3:
        return
    f0, f1, f2 = frames
    check(int(f1["pc"], 16) == facts["call_return"],
          "%s: frame 1 pc %s, the instruction after middle's s_swappc_b64 is 0x%x"
          % (label, f1["pc"], facts["call_return"]))
    check(int(f2["pc"], 16) == facts["middle_return"],
          "%s: frame 2 pc %s, expected 0x%x" % (label, f2["pc"], facts["middle_return"]))
    check(int(f0["cfa"]["address"], 16) == facts["sp_at_call"],
          "%s: frame 0 CFA %s, middle's SP at the call is 0x%x"
          % (label, f0["cfa"]["address"], facts["sp_at_call"]))
    check(int(f1["cfa"]["address"], 16) == 0x800 and f1["cfa"]["address_space"] in ("private_wave", "DW_ASPACE_AMDGPU_private_wave"),
          "%s: frame 1 CFA %s, k's SP is 0x800 in private_wave" % (label, f1["cfa"]))
    check(f1.get("synthesized") is True and f0.get("synthesized") is True,
          "%s: frames 0 and 1 are marked synthesized" % label)
    regs2 = f2["registers"]
    entry = facts["entry"]
    got_fp = regs2.get("SGPR33")
    check(got_fp is not None and int(got_fp, 16) == entry["s"][33],
          "%s: frame 2 SGPR33 %s, k's FP was 0x%x" % (label, got_fp, entry["s"][33]))
    got_sp = regs2.get("SGPR32")
    check(got_sp is not None and int(got_sp, 16) == 0x800,
          "%s: frame 2 SGPR32 %s, k's SP was 0x800" % (label, got_sp))
    # Every VGPR middle's rows restore: each lane as k had it, where defined.
    saved = [k for k in regs2 if k.startswith("VGPR")]
    check(saved, "%s: middle's rows restore some VGPR" % label)
    for name in saved:
        n = int(name[4:])
        lanes = regs2[name]
        for l, v in enumerate(lanes if isinstance(lanes, list) else []):
            if v is None:
                # Undefined lanes: only the ones active in k (clobbered).
                check(mach_exec_at_entry(mach) >> l & 1,
                      "%s: frame 2 %s lane %d undefined but inactive in k" % (label, name, l))
                continue
            check(int(v, 16) == entry["v"][n][l],
                  "%s: frame 2 %s lane %d = %s, k had 0x%x" % (label, name, l, v,
                                                              entry["v"][n][l]))
    # The instruction decoder (libLLVM) is loaded only when a question needs
    # decoded instructions: frame 1 does (leaf's rows come from its
    # prologue), frame 0's variables do not. The dynamic loader says which.
    loaded = "file=" + "libLLVM"
    traced = dict(os.environ, LD_DEBUG="files")
    for args, want_loaded in ((["vars", "--frame", "0"], False), (["unwind"], True)):
        t = run([amddwarf] + args + [obj, "--state", snap], env=traced)
        check((loaded in t.stderr) == want_loaded,
              "%s: `%s` %s libLLVM" % (label, " ".join(args),
                                      "does not load" if want_loaded else "loads"))
    # The call site's line; middle's `a` read through the frame base that
    # leaf's rows restore (-O0: in scratch at DW_OP_fbreg from middle's FP).
    want = symbolizer_line(obj, facts["call_site"])
    v = run([amddwarf, "vars", obj, "--state", snap, "--frame", "1", "--json"])
    if not check(v.returncode == 0, "%s: vars --frame 1: %s" % (label, v.stderr.strip()[:300])):
        return
    doc = json.loads(v.stdout)
    check((doc.get("line") or {}).get("line") == want,
          "%s: frame 1 line %s, llvm-symbolizer-19 says %s" % (label, doc.get("line"), want))
    # HIP at -O0 stores its locals through flat addresses in the private
    # aperture, which the emulator does not follow: OpenCL's buffer stores.
    if "-O0" not in label or lang != "cl":
        return
    var = [x for x in doc["vars"] if x["name"] == "a"]
    expr = var[0]["location"]["expr"] if var and var[0].get("location") else ""
    m = re.search(r"DW_OP_fbreg ([+-]?\d+)", expr)
    if check(m, "%s: middle's `a` at -O0 is DW_OP_fbreg: %s" % (label, expr)):
        off = int(m.group(1))
        fp = facts["sp_at_entry"]  # middle's FP is its entry SP
        want_v = mach.mem.get(fp + off * wave, None)
        got = var[0].get("value")
        check(want_v is not None and got is not None and int(str(got), 0) == want_v,
              "%s: frame 1 `a` = %s, the emulator stored 0x%x at middle's FP %+d (lane 0)"
              % (label, got, want_v or 0, off))


def mach_exec_at_entry(mach):
    return ((1 << mach.w) - 1) & ~((1 << 3) | (1 << 17))


def main():
    args = arguments(__doc__, build_required=True)
    if missing_tool("clang-19", "ld.lld-19", "llvm-objdump-19", "llvm-symbolizer-19"):
        return 0
    cl = write(os.path.join(args.work, "chain.cl"), OPENCL)
    hip = write(os.path.join(args.work, "chain.hip"), HIP)
    have_hipcc = missing_tool("hipcc") is None
    for cpu, wave in (("gfx90a", 64), ("gfx1030", 32)):
        for opt in ("-O0", "-O2"):
            label = "cl%s-%s" % (opt, cpu)
            o = os.path.join(args.work, label + ".o")
            so = os.path.join(args.work, label + ".so")
            compile_device("cl", cl, o, cpu=cpu, flags=["-g", opt])
            link_shared(o, so)
            check_variant(args.amddwarf, args.work, label, so, cpu, wave, "cl")
            if have_hipcc:
                label = "hip%s-%s" % (opt, cpu)
                co = os.path.join(args.work, label + ".co")
                hipcc(["--offload-arch=" + cpu, "--cuda-device-only", "--no-gpu-bundle-output",
                       "-g", opt, "-c", hip, "-o", co], args.work)
                check_variant(args.amddwarf, args.work, label, co, cpu, wave, "hip")
    return summary()


if __name__ == "__main__":
    raise SystemExit(main())
