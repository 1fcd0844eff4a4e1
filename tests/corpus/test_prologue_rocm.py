#!/usr/bin/env python3
"""Rows synthesized from prologues against the CFI ROCm's compiler writes.

ROCm's llvm/test/CodeGen/AMDGPU/debug-frame.ll checks the `.cfi_*`
directives its compiler emits for three prologue shapes, on gfx900 (wave64)
and gfx1010 (wave32):

  func_no_clobber      a leaf that writes nothing:
                       .cfi_llvm_def_aspace_cfa 64, 0, 6
                       .cfi_llvm_register_pair 16, 62, 32, 63, 32
  func_call_clobber    a callee that calls on: FP copied to an SGPR and then
                       into lane 2 of v40, v40 spilled under s_or_saveexec -1:
                       .cfi_undefined for s0-s29 and every caller-saved VGPR,
                       .cfi_offset 2600, 0 (wave32: 1576, 0),
                       .cfi_llvm_vector_registers 65, 2600, 2, 32,
                       .cfi_def_cfa_register 65;
                       and s30/s31 in lanes 0 and 1 of v40, which ROCm's
                       llvm/test/MC/AMDGPU/cfi-llvm-directives (dwarfdump)
                       spells .cfi_llvm_vector_registers 16, V, 0, 32, V, 1, 32
  callee_need_to_spill_fp_to_memory
                       the FP copied through a VGPR to scratch at offset 448:
                       .cfi_offset 65, 28672 (wave32: 14336)

This test assembles those instruction sequences (the CHECK lines' code) with
llvm-mc-19 into objects whose FDEs have no instructions, and compares the row
`amddwarf cfi --synthesize` shows in the function's body with the row those
directives make, written out here by hand in llvm-dwarfdump's spelling. The
synthesized rows have one rule more, SGPR32=CFA (the caller's SP), which
ROCm leaves implied; the test expects it.

It also checks that the analyzer refuses what it cannot prove: a call before
the return address is saved stops with the instruction and its address.

Usage: test_prologue_rocm.py --amddwarf PATH --work DIR [--build DIR]
"""
import json
import os

from corpus_util import arguments, check, missing_tool, run, run_ok, summary, write

PROLOGUES = {
    "func_no_clobber": """
  s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
  s_setpc_b64 s[30:31]
""",
    "func_call_clobber": """
  s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
  s_mov_b32 s16, s33
  s_mov_b32 s33, s32
  s_or_saveexec_b{B} s{SAVE}, -1
  buffer_store_dword v40, off, s[0:3], s33
  s_mov_b{B} {EXEC}, s{SAVE}
  v_writelane_b32 v40, s16, 2
  s_addk_i32 s32, 0x400
  v_writelane_b32 v40, s30, 0
  v_writelane_b32 v40, s31, 1
  s_getpc_b64 s[16:17]
  s_add_u32 s16, s16, ex@rel32@lo+4
  s_addc_u32 s17, s17, ex@rel32@hi+12
body:
  s_swappc_b64 s[30:31], s[16:17]
  v_readlane_b32 s31, v40, 1
  v_readlane_b32 s30, v40, 0
  v_readlane_b32 s4, v40, 2
  s_or_saveexec_b{B} s{SAVE}, -1
  buffer_load_dword v40, off, s[0:3], s33
  s_mov_b{B} {EXEC}, s{SAVE}
  s_addk_i32 s32, 0xfc00
  s_mov_b32 s33, s4
  s_waitcnt vmcnt(0)
  s_setpc_b64 s[30:31]
""",
    "callee_need_to_spill_fp_to_memory": """
  s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
  s_mov_b32 s4, s33
  s_mov_b32 s33, s32
  s_or_saveexec_b{B} s{SAVE}, -1
  v_mov_b32_e32 v0, s4
  buffer_store_dword v0, off, s[0:3], s33 offset:448
  s_mov_b{B} {EXEC}, s{SAVE}
  s_addk_i32 s32, 0x7400
body:
  s_nop 0
  s_addk_i32 s32, 0x8c00
  s_setpc_b64 s[30:31]
""",
    "call_before_saving": """
  s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
  s_getpc_b64 s[16:17]
  s_add_u32 s16, s16, ex@rel32@lo+4
  s_addc_u32 s17, s17, ex@rel32@hi+12
body:
  s_swappc_b64 s[30:31], s[16:17]
  s_setpc_b64 s[30:31]
""",
}

PAIR = "PC_REG=[DW_OP_regx SGPR30, DW_OP_piece 0x4, DW_OP_regx SGPR31, DW_OP_piece 0x4]"


def caller_saved_vgprs():
    """v0-v39, v48-55, v64-71, ..., v240-247 (AMDGPUUsage, "Call Convention")."""
    return [n for n in range(256) if n < 40 or (n - 40) % 16 >= 8]


def expected(shape, wave):
    """The row of the function's body that ROCm's directives make."""
    vbase = 2560 if wave == 64 else 1536
    v40 = "VGPR40"
    if shape == "func_no_clobber":
        return "CFA=SGPR32+0 in addrspace6: %s, SGPR32=CFA" % PAIR
    if shape == "func_call_clobber":
        rules = ["PC_REG=[DW_OP_regx %s, DW_OP_bit_piece 0x20 0x0, DW_OP_regx %s, "
                 "DW_OP_bit_piece 0x20 0x20]" % (v40, v40)]
        rules += ["SGPR%d=undefined" % n for n in range(30)]
        rules += ["SGPR32=CFA",
                  "SGPR33=[DW_OP_regx %s, DW_OP_LLVM_user DW_OP_LLVM_offset_uconst 0x8]" % v40]
        for n in range(256):
            if n == 40:
                rules.append("VGPR40=[CFA]")
            elif n in caller_saved_vgprs():
                rules.append("VGPR%d=undefined" % n)
        return "CFA=SGPR33+0 in addrspace6: " + ", ".join(rules)
    if shape == "callee_need_to_spill_fp_to_memory":
        # s4, the EXEC copy and v0 are written: undefined, as ROCm marks
        # what a function clobbers.
        exec_copy = "SGPR18=undefined, SGPR19=undefined" if wave == 64 else "SGPR18=undefined"
        return ("CFA=SGPR33+0 in addrspace6: %s, SGPR4=undefined, %s, SGPR32=CFA, "
                "SGPR33=[CFA+%d], VGPR0=undefined" % (PAIR, exec_copy, 448 * wave))
    return None


def assemble(work, shape, cpu, wave):
    b = "64" if wave == 64 else "32"
    code = PROLOGUES[shape].replace("{B}", b).replace(
        "{SAVE}", "[18:19]" if wave == 64 else "18").replace(
        "{EXEC}", "exec" if wave == 64 else "exec_lo")
    src = """.text
.cfi_sections .debug_frame
.globl %s
.p2align 8
.type %s,@function
%s:
  .cfi_startproc
%s
  .cfi_endproc
.Lend:
.size %s, .Lend-%s
.globl ex
.p2align 8
.type ex,@function
ex:
  s_setpc_b64 s[30:31]
""" % (shape, shape, shape, code.replace("body:", "body_%s:" % shape), shape, shape)
    path = os.path.join(work, "%s-%s.s" % (shape, cpu))
    write(path, src)
    obj = path[:-2] + ".o"
    attrs = ["-mattr=+wavefrontsize32"] if wave == 32 else []
    run_ok(["llvm-mc-19", "-triple", "amdgcn-amd-amdhsa", "-mcpu=" + cpu] + attrs +
           ["-filetype=obj", path, "-o", obj])
    return obj


def body_pc(obj, shape):
    out = run_ok(["llvm-nm-19", obj]).stdout
    for line in out.splitlines():
        parts = line.split()
        if parts[-1] == "body_" + shape:
            return int(parts[0], 16)
    return None


def main():
    args = arguments(__doc__)
    if missing_tool("llvm-mc-19", "llvm-nm-19"):
        return 0
    for cpu, wave in (("gfx900", 64), ("gfx1010", 32)):
        for shape in PROLOGUES:
            label = "%s %s" % (shape, cpu)
            obj = assemble(args.work, shape, cpu, wave)
            pc = body_pc(obj, shape) if shape != "func_no_clobber" else 0
            r = run([args.amddwarf, "cfi", obj, "--debug-frame", "--synthesize", "--pc", hex(pc),
                     "--json"])
            want = expected(shape, wave)
            if want is None:
                # The analyzer refuses: the FDE's rows are an error naming the call.
                text = r.stdout + r.stderr
                check(r.returncode == 1 and "cfi_prologue" in text and
                      "s_swappc_b64 s[30:31], s[16:17]" in text and hex(pc) in text,
                      "%s: expected a cfi_prologue error at %s naming the call, got %s"
                      % (label, hex(pc), text.strip()[:400]))
                continue
            if not check(r.returncode == 0, "%s: cfi exit %d: %s" % (label, r.returncode,
                                                                     r.stderr.strip())):
                continue
            doc = json.loads(r.stdout)
            fdes = doc[".debug_frame"]["fdes"]
            rows = [row for f in fdes for row in f.get("rows", [])]
            check(len(rows) == 1, "%s: one row at 0x%x, got %d" % (label, pc, len(rows)))
            if rows:
                check(rows[0]["text"] == want,
                      "%s: row at 0x%x\n  got:  %s\n  want: %s" % (label, pc, rows[0]["text"],
                                                                   want))
                check(rows[0].get("synthesized") is True, "%s: row marked synthesized" % label)
    return summary()


if __name__ == "__main__":
    raise SystemExit(main())
