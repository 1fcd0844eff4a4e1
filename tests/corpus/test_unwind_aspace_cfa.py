#!/usr/bin/env python3
"""`amddwarf unwind` on an llvm-mc-19 object whose CFA lives in address spaces.

A function pair written with .cfi_* directives is assembled by
llvm-mc-19 -triple amdgcn-amd-amdhsa (a relocatable .o, whose .debug_frame and
.debug_info carry RELA relocations, and an ld.lld-19 shared object that moves
.text): `callee` saves its caller's return address and SGPR33 at its CFA,
which .cfi_llvm_def_aspace_cfa puts at SGPR33 + 16 in private_wave, and
leaves VGPR5 and SGPR4 undefined; `caller` has its CFA at SGPR33 in
private_lane and an undefined return address. A hand-written DWARF 5 unit
gives both functions a frame base (SGPR33, wave-scaled, as clang writes it),
`callee` a variable in VGPR5 and `caller` three: in SGPR33, at the frame
base + 4, and in VGPR5.

A snapshot stops the wave in `callee` (SGPR33 = 0x1000, so the CFA is 0x1010:
the return address is in lanes 4-5 and the caller's SGPR33 in lane 6 of
private_lane dword 0x40). Checks, for both objects:
  * `amddwarf unwind --json`: two frames, their PCs and call-site PCs, each
    CFA with its address space (0x1010 private_wave, 0x800 private_lane), the
    caller's SGPR33 restored from memory, VGPR5 and SGPR4 "undefined", and the
    walk ending at the undefined return address; the text output says
    <undefined> for them;
  * the CFA rule (register, offset, address space) of the row each frame uses
    is the one llvm-dwarfdump-19 --debug-frame prints, and the registers
    amddwarf shows undefined in the caller are exactly those the callee's
    row of llvm-dwarfdump-19 says are undefined;
  * when `amddwarf eval` has --frame: the caller's variables in frame 1 read
    the restored SGPR33 (2048), the word at the restored frame base
    (0x12345678, not the callee's 0xdeadbeef) and <unavailable> for VGPR5;
    frame 0's VGPR5 variable is the snapshot's register, and each frame
    sees only its own function's variables.

Usage: test_unwind_aspace_cfa.py --amddwarf PATH --work DIR [--build DIR]
"""
import json
import os
import re
import sys

from corpus_util import arguments, assemble, check, link_shared, missing_tool, run, summary, write

SOURCE = r"""
.cfi_sections .debug_frame
.text
.globl callee
.p2align 8
callee:
  .cfi_startproc
  .cfi_llvm_def_aspace_cfa 64, 0, 6
  s_mov_b32 s33, s32
  .cfi_llvm_def_aspace_cfa 65, 16, 6
  .cfi_offset 16, 0
  .cfi_offset 65, 8
  .cfi_undefined 2565
  .cfi_undefined 36
  s_nop 0
  s_nop 0
  s_setpc_b64 s[30:31]
  .cfi_endproc
.Lcallee_end:
.globl caller
.p2align 8
caller:
  .cfi_startproc
  .cfi_llvm_def_aspace_cfa 65, 0, 5
  .cfi_undefined 16
  s_nop 0
  s_swappc_b64 s[30:31], s[4:5]
  s_nop 0
  s_endpgm
  .cfi_endproc
.Lcaller_end:

.section .debug_abbrev,"",@progbits
  .byte 1, 0x11, 1            // DW_TAG_compile_unit, children
  .byte 0x25, 0x08, 0x13, 0x05, 0x03, 0x08, 0x11, 0x01, 0x12, 0x06, 0, 0
  .byte 2, 0x2e, 1            // DW_TAG_subprogram, children
  .byte 0x03, 0x08, 0x11, 0x01, 0x12, 0x06, 0x40, 0x18, 0, 0
  .byte 3, 0x34, 0            // DW_TAG_variable
  .byte 0x03, 0x08, 0x49, 0x13, 0x02, 0x18, 0, 0
  .byte 4, 0x24, 0            // DW_TAG_base_type
  .byte 0x03, 0x08, 0x3e, 0x0b, 0x0b, 0x0b, 0, 0
  .byte 0
.section .debug_info,"",@progbits
.Linfo_start:
  .long .Linfo_end - .Linfo_version
.Linfo_version:
  .short 5
  .byte 1, 8                  // DW_UT_compile, address size 8
  .long .debug_abbrev
  .byte 1
  .asciz "llvm-mc-19, by hand"
  .short 0x0c                 // DW_LANG_C99
  .asciz "pair.s"
  .quad callee
  .long .Lcaller_end - callee
  .byte 2
  .asciz "callee"
  .quad callee
  .long .Lcallee_end - callee
  .byte 2, 0x90, 0x41         // frame base: DW_OP_regx SGPR33
  .byte 3
  .asciz "here"
  .long .Lint - .Linfo_start
  .byte 3, 0x90, 0x85, 0x14   // DW_OP_regx VGPR5
  .byte 0
  .byte 2
  .asciz "caller"
  .quad caller
  .long .Lcaller_end - caller
  .byte 2, 0x90, 0x41
  .byte 3
  .asciz "saved_fp"
  .long .Lint - .Linfo_start
  .byte 2, 0x90, 0x41         // DW_OP_regx SGPR33
  .byte 3
  .asciz "slot"
  .long .Lint - .Linfo_start
  .byte 2, 0x91, 0x04         // DW_OP_fbreg 4
  .byte 3
  .asciz "lost"
  .long .Lint - .Linfo_start
  .byte 3, 0x90, 0x85, 0x14   // DW_OP_regx VGPR5
  .byte 0
.Lint:
  .byte 4
  .asciz "int"
  .byte 0x05, 4               // DW_ATE_signed, 4 bytes
  .byte 0
.Linfo_end:
"""

CALLEE_FP = 0x1000      # the callee's SGPR33 at the stop
CALLER_FP = 0x800       # the caller's, saved at the callee's CFA + 8
STOP_OFFSET = 8         # the stop PC, from callee
RETURN_OFFSET = 8       # the return address, from caller (after s_swappc_b64)
SLOT = 0x12345678       # caller's slot: private_lane CALLER_FP / 64 + 4 of lane 0
DECOY = 0xdeadbeef      # what the callee's frame base + 4 holds
V5_LANE0 = 0x55000000

def build(work):
    obj, so = os.path.join(work, "pair.o"), os.path.join(work, "pair.so")
    assemble(write(os.path.join(work, "pair.s"), SOURCE), obj)
    link_shared(obj, so)
    return [obj, so]


def symbols(path):
    r = run(["llvm-nm-19", path])
    found = {}
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            found[parts[2]] = int(parts[0], 16)
    return found


def word(value):
    return value.to_bytes(4, "little").hex()


def private_lane_of_wave(address):
    """The (lane, lane address) of private_wave ADDRESS in a wave64 (specs/snapshot.md)."""
    return (address // 4) % 64, (address // 256) * 4 + address % 4


def write_snapshot(path, pc, return_address):
    cfa = CALLEE_FP + 16
    # Lane 0 from the caller's frame base (CALLER_FP / 64) to past the
    # callee's (CALLEE_FP / 64): each + 4 holds that frame's slot.
    words = [0] * ((CALLEE_FP - CALLER_FP) // 256 + 2)
    words[1] = SLOT
    words[-1] = DECOY
    memory = [{"address_space": "private_lane", "lane": 0, "address": CALLER_FP // 64,
               "bytes": "".join(word(w) for w in words)}]
    for offset, value in ((0, return_address & 0xffffffff), (4, return_address >> 32),
                          (8, CALLER_FP)):
        lane, address = private_lane_of_wave(cfa + offset)
        memory.append({"address_space": "private_lane", "lane": lane, "address": address,
                       "bytes": word(value)})
    snap = {"architecture": "gfx900", "wave_size": 64, "lane": 0,
            "exec": "0xffffffffffffffff", "pc": hex(pc),
            "registers": {"s32": "0x2000", "s33": hex(CALLEE_FP), "s4": 7,
                          "v5": [V5_LANE0 + lane for lane in range(64)]},
            "memory": memory}
    with open(path, "w") as f:
        json.dump(snap, f)


def dwarfdump_rows(path):
    """[(fde_low, fde_high, [(address, row text)])] from llvm-dwarfdump-19 --debug-frame."""
    out = run(["llvm-dwarfdump-19", "--debug-frame", path]).stdout
    fdes = []
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]{8} [0-9a-f]+ [0-9a-f]+ FDE .*pc=([0-9a-f]+)\.\.\.([0-9a-f]+)",
                     line)
        if m:
            fdes.append((int(m.group(1), 16), int(m.group(2), 16), []))
            continue
        m = re.match(r"^  0x([0-9a-f]+): (.*)$", line)
        if m and fdes:
            fdes[-1][2].append((int(m.group(1), 16), m.group(2)))
    return fdes


def row_at(fdes, pc):
    for low, high, rows in fdes:
        if low <= pc < high:
            text = None
            for address, row in rows:
                if address <= pc:
                    text = row
            return text
    return None


def llvm_register(name):
    """DWARF number of an llvm-dwarfdump-19 register name (SGPR33_LO16, VGPR5_LO16, PC_REG)."""
    if name == "PC_REG":
        return 16
    m = re.fullmatch(r"SGPR(\d+)(_LO16)?", name)
    if m:
        return 32 + int(m.group(1))
    m = re.fullmatch(r"VGPR(\d+)(_LO16)?", name)
    if m:
        return 2560 + int(m.group(1))
    raise ValueError(name)


def amddwarf_register(name):
    """DWARF number of an amddwarf register name (SGPR33, VGPR5, PC_64)."""
    if name == "PC_64":
        return 16
    m = re.fullmatch(r"(SGPR|VGPR)(\d+)", name)
    return (32 if m.group(1) == "SGPR" else 2560) + int(m.group(2))


def check_unwind(amddwarf, obj, snap, syms, label):
    callee, caller = syms["callee"], syms["caller"]
    r = run([amddwarf, "unwind", obj, "--state", snap, "--json"])
    check(r.returncode == 0, "%s: unwind exit %d: %s" % (label, r.returncode, r.stderr))
    if r.returncode != 0:
        return
    got = json.loads(r.stdout)
    frames = got["frames"]
    check(len(frames) == 2, "%s: %d frames, expected 2" % (label, len(frames)))
    if len(frames) != 2:
        return
    f0, f1 = frames
    expect = [
        (f0["pc"], hex(callee + STOP_OFFSET)), (f0["lookup_pc"], hex(callee + STOP_OFFSET)),
        (f0["cfa"], {"address": hex(CALLEE_FP + 16),
                     "address_space": "DW_ASPACE_AMDGPU_private_wave"}),
        (f1["pc"], hex(caller + RETURN_OFFSET)), (f1["lookup_pc"], hex(caller + RETURN_OFFSET - 1)),
        (f1["cfa"], {"address": hex(CALLER_FP),
                     "address_space": "DW_ASPACE_AMDGPU_private_lane"}),
        (f0["registers"], {"PC_64": hex(callee + STOP_OFFSET)}),
        (f1["registers"], {"PC_64": hex(caller + RETURN_OFFSET), "SGPR33": hex(CALLER_FP),
                           "SGPR4": "undefined", "VGPR5": "undefined"}),
        (got["end"]["status"], "end"),
    ]
    for i, (value, wanted) in enumerate(expect):
        check(value == wanted, "%s: unwind item %d: %r, expected %r" % (label, i, value, wanted))

    # The CFA of each frame is what the rule llvm-dwarfdump-19 prints gives
    # with the frame's SGPR32/33 (frame 0: the snapshot's; frame 1: restored).
    fdes = dwarfdump_rows(obj)
    regs = [{64: 0x2000, 65: CALLEE_FP}, {64: 0x2000, 65: CALLER_FP}]
    for i, frame in enumerate(frames):
        row = row_at(fdes, int(frame["lookup_pc"], 16))
        m = re.match(r"CFA=(\S+)([+-]\d+) in addrspace(\d+)", row or "")
        check(m is not None, "%s: frame %d: llvm-dwarfdump row %r" % (label, i, row))
        if m:
            cfa = regs[i][llvm_register(m.group(1))] + int(m.group(2))
            aspaces = {"DW_ASPACE_AMDGPU_private_lane": 5, "DW_ASPACE_AMDGPU_private_wave": 6}
            check(frame["cfa"]["address"] == hex(cfa) and
                  aspaces.get(frame["cfa"]["address_space"]) == int(m.group(3)),
                  "%s: frame %d: CFA %r, llvm-dwarfdump's rule %r gives 0x%x in %s" %
                  (label, i, frame["cfa"], row, cfa, m.group(3)))
    # The callee's row's undefined registers are the caller's undefined ones.
    row = row_at(fdes, int(f0["lookup_pc"], 16)) or ""
    llvm_undefined = {llvm_register(n) for n in re.findall(r"(\w+)=undefined", row)}
    ours = {amddwarf_register(n) for n, v in f1["registers"].items() if v == "undefined"}
    check(llvm_undefined == ours == {36, 2565},
          "%s: undefined in the caller: llvm-dwarfdump %r, amddwarf %r" %
          (label, sorted(llvm_undefined), sorted(ours)))

    r = run([amddwarf, "unwind", obj, "--state", snap])
    # Each frame is named as llvm-symbolizer-19 names its call site.
    name = run(["llvm-symbolizer-19", "--obj=" + obj,
                hex(caller + RETURN_OFFSET - 1)]).stdout.split("\n")[0]
    check(r.returncode == 0 and "VGPR5=<undefined>" in r.stdout and
          "SGPR4=<undefined>" in r.stdout and
          ("#1 pc 0x%x in %s cfa 0x%x (private_lane)" % (caller + RETURN_OFFSET, name, CALLER_FP))
          in r.stdout,
          "%s: unwind text (llvm-symbolizer: %s):\n%s%s" % (label, name, r.stdout, r.stderr))


def eval_lane0(amddwarf, obj, snap, frame, expr):
    r = run([amddwarf, "eval", obj, "--state", snap, "--frame", str(frame), "--json", expr])
    try:
        lanes = json.loads(r.stdout)["lanes"]
    except (ValueError, KeyError):
        return "exit %d: %s%s" % (r.returncode, r.stdout[-300:], r.stderr[-300:])
    return lanes[0].get("value", lanes[0].get("status"))


def check_eval(amddwarf, obj, snap, label):
    expect = [(1, "saved_fp", str(CALLER_FP)), (1, "slot", str(SLOT)),
              (1, "lost", "unavailable"), (0, "here", str(V5_LANE0)),
              (0, "lost", None), (1, "here", None)]
    for frame, expr, wanted in expect:
        got = eval_lane0(amddwarf, obj, snap, frame, expr)
        if wanted is None:
            # Not a variable of that frame's function.
            check(isinstance(got, str) and got.startswith("exit 1") and "not_found" in got,
                  "%s: eval --frame %d %s: %r, expected not found" % (label, frame, expr, got))
        else:
            check(got == wanted, "%s: eval --frame %d %s: %r, expected %r" %
                  (label, frame, expr, got, wanted))


def main():
    args = arguments(__doc__)
    if missing_tool("llvm-mc-19", "ld.lld-19", "llvm-nm-19", "llvm-dwarfdump-19",
                    "llvm-symbolizer-19"):
        return 0
    work = os.path.join(args.work, "unwind_aspace_cfa")
    os.makedirs(work, exist_ok=True)
    has_frame = "--frame" in run([args.amddwarf, "eval", "--help"]).stdout
    for obj in build(work):
        label = os.path.basename(obj)
        syms = symbols(obj)
        check(syms.get("caller", 0) - syms.get("callee", 0) == 0x100,
              "%s: symbols %r" % (label, syms))
        snap = obj + ".wave.json"
        write_snapshot(snap, syms["callee"] + STOP_OFFSET, syms["caller"] + RETURN_OFFSET)
        check_unwind(args.amddwarf, obj, snap, syms, label)
        if has_frame:
            check_eval(args.amddwarf, obj, snap, label)
    if not has_frame:
        print("note: amddwarf eval has no --frame; the variables of frame 1 were not checked")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
