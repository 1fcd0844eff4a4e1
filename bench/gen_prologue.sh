#!/usr/bin/env bash
# Builds the two AMDGPU objects of bench_cfi's prologue rows (llvm-mc-19,
# gfx900): the same callee that calls on -- FP copied to s16 and into lane 2
# of v40, v40 spilled under s_or_saveexec -1, s30/s31 in lanes 0 and 1 --
# with a body of BODY instructions (default 10,000):
#   synth.o  an FDE without instructions, as clang emits (rows synthesized);
#   real.o   the rules ROCm's compiler writes, as .cfi directives.
# Also the address of an instruction in the body. Usage: gen_prologue.sh
# OUTDIR [BODY]; prints "SYNTH_PATH REAL_PATH BODY_PC".
set -euo pipefail
out=${1:?OUTDIR}
body=${2:-10000}
mkdir -p "$out"
cd "$out"
python3 - "$body" <<'PY'
import sys
body = int(sys.argv[1])

def uleb(v):
    out = []
    while True:
        b = v & 0x7f
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return out

def escape(bytes_):
    return "  .cfi_escape " + ", ".join("0x%02x" % b for b in bytes_)

def expression(reg, expr):
    return escape([0x10] + uleb(reg) + uleb(len(expr)) + expr)

V40 = [0x90] + uleb(2600)
caller_saved = [n for n in range(256) if n < 40 or (n - 40) % 16 >= 8]

def function(real):
    d = (lambda *lines: list(lines)) if real else (lambda *lines: [])
    out = [".globl callee", ".p2align 8", ".type callee,@function", "callee:", "  .cfi_startproc"]
    out += d("  .cfi_llvm_def_aspace_cfa 64, 0, 6",
             expression(16, [0x90] + uleb(62) + [0x93, 4] + [0x90] + uleb(63) + [0x93, 4]),
             escape([0x14] + uleb(64) + [0]))
    if real:
        out += ["  .cfi_undefined %d" % (2560 + n) for n in caller_saved]
        out += ["  .cfi_undefined %d" % (32 + n) for n in range(30)]
    out += ["  s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)",
            "  s_mov_b32 s16, s33"] + d("  .cfi_register 65, 48")
    out += ["  s_mov_b32 s33, s32"] + d("  .cfi_def_cfa_register 65")
    out += ["  s_or_saveexec_b64 s[18:19], -1",
            "  buffer_store_dword v40, off, s[0:3], s33"] + d("  .cfi_offset 2600, 0")
    out += ["  s_mov_b64 exec, s[18:19]",
            "  v_writelane_b32 v40, s16, 2"] + d(expression(65, V40 + [0xe9, 0x05, 0x08]))
    out += ["  s_addk_i32 s32, 0x400",
            "  v_writelane_b32 v40, s30, 0",
            "  v_writelane_b32 v40, s31, 1"]
    out += d(expression(16, V40 + [0x9d, 0x20, 0x00] + V40 + [0x9d, 0x20, 0x20]))
    for i in range(body):
        out.append("  v_add_u32_e32 v%d, v%d, v2" % (1 + i % 3, 1 + i % 3) if i % 2 else
                   "  s_add_u32 s%d, s%d, 1" % (4 + i % 8, 4 + i % 8))
        if i == body // 2:
            out.append("body_pc:")
    out += ["  s_getpc_b64 s[16:17]",
            "  s_swappc_b64 s[30:31], s[16:17]",
            "  v_readlane_b32 s31, v40, 1",
            "  v_readlane_b32 s30, v40, 0",
            "  v_readlane_b32 s4, v40, 2",
            "  s_or_saveexec_b64 s[6:7], -1",
            "  buffer_load_dword v40, off, s[0:3], s33",
            "  s_mov_b64 exec, s[6:7]",
            "  s_addk_i32 s32, 0xfc00"] + d("  .cfi_def_cfa_register 64")
    out += ["  s_mov_b32 s33, s4",
            "  s_waitcnt vmcnt(0)",
            "  s_setpc_b64 s[30:31]",
            "  .cfi_endproc", ".Lend:", ".size callee, .Lend-callee"]
    return "\n".join([".text", ".cfi_sections .debug_frame"] + out) + "\n"

open("synth.s", "w").write(function(False))
open("real.s", "w").write(function(True))
PY
for v in synth real; do
  llvm-mc-19 -triple amdgcn-amd-amdhsa -mcpu=gfx900 -filetype=obj $v.s -o $v.o
done
pc=$(llvm-nm-19 synth.o | awk '$3 == "body_pc" { print $1 }')
echo "$out/synth.o $out/real.o 0x$pc"
