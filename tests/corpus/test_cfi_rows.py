#!/usr/bin/env python3
"""Call frame information rows against llvm-dwarfdump-19.

1. AMDGPU: functions written with .cfi_* directives (including
   .cfi_llvm_def_aspace_cfa and .cfi_escape'd DW_CFA_expression /
   val_expression / LLVM_def_aspace_cfa_sf using DW_OP_LLVM_* operations) are
   assembled by llvm-mc-19 -triple amdgcn-amd-amdhsa (relocatable .o, whose
   .debug_frame carries RELA relocations, and an ld.lld-19 shared object with
   .debug_frame and .eh_frame). Every row of every FDE printed by
   `amddwarf cfi` must equal the row llvm-dwarfdump-19 --debug-frame /
   --eh-frame prints.
2. x86-64: the same comparison on the .eh_frame of real binaries of this
   machine: a fixed list of large ones, then others from /usr/bin until the
   time budget is spent.

Register names differ between the tools (LLVM calls DWARF register 33
"SGPR1_LO16"), so a probe object that sets `.cfi_undefined N` for every
register number used is dumped by both tools to learn each tool's name of
each number; rows are compared after mapping names to numbers. Operations
llvm-dwarfdump-19 cannot decode (DW_OP_LLVM_user) are compared up to where
it stops, and their bytes are checked against the bytes the test encoded.
"""
import json
import os
import pathlib
import re
import sys
import time

from corpus_util import (LLVM_MC, argument_parser, arguments, assemble, compile_opencl,
                         link_shared, run)

DWARFDUMP = "llvm-dwarfdump-19"

AMDGPU_REGS = (list(range(0, 100)) + list(range(1088, 1130)) +
               [2560, 2561, 2600, 2815, 3072, 3100])
X86_REGS = list(range(0, 49))

# (name, body) of AMDGPU functions; the escapes are checked byte for byte.
ESCAPES = {
    # DW_CFA_expression SGPR40: DW_OP_regx VGPR40; DW_OP_LLVM_user offset_uconst 8
    "expr_user_offset": "0x10, 0x48, 0x06, 0x90, 0xa8, 0x14, 0xe9, 0x05, 0x08",
    # DW_CFA_val_expression SGPR41: DW_OP_LLVM_user aspace_bregx SGPR33 16
    "val_expr_aspace_bregx": "0x16, 0x49, 0x04, 0xe9, 0x09, 0x21, 0x10",
    # DW_CFA_expression SGPR42: DW_OP_regx VGPR40
    "expr_regx": "0x10, 0x4a, 0x03, 0x90, 0xa8, 0x14",
    # DW_CFA_LLVM_def_aspace_cfa_sf SGPR32, -2 (factored), private_wave
    "def_aspace_cfa_sf": "0x31, 0x40, 0x7e, 0x06",
    # DW_CFA_val_expression SGPR43: DW_OP_bregx SGPR32 -8 (LLVM decodes it)
    "val_expr_bregx": "0x16, 0x4b, 0x04, 0x92, 0x40, 0x78, 0x9f",
    # DW_CFA_val_offset_sf SGPR44 -1 (factored)
    "val_offset_sf": "0x15, 0x4c, 0x7f",
    # DW_CFA_def_cfa_offset_sf 4 (factored)
    "def_cfa_offset_sf": "0x13, 0x04",
    # DW_CFA_GNU_args_size 16
    "args_size": "0x2e, 0x10",
    # DW_CFA_expression SGPR45: DW_OP_regx VGPR40; DW_OP_LLVM_push_lane; DW_OP_lit4;
    # DW_OP_mul; DW_OP_LLVM_offset (user sub-ops 3 and 4)
    "expr_push_lane": "0x10, 0x4d, 0x09, 0x90, 0xa8, 0x14, 0xe9, 0x03, 0x34, 0x1e, 0xe9, 0x04",
}

AMDGPU_SOURCE = """
.text
.p2align 8
{sections}
f_aspace:
  .cfi_startproc
  s_nop 0
  .cfi_llvm_def_aspace_cfa 64, 16, 6
  s_nop 0
  .cfi_offset 33, 8
  .cfi_escape {expr_user_offset}
  .cfi_remember_state
  .cfi_undefined 16
  s_nop 0
  .cfi_restore_state
  .cfi_escape {val_expr_aspace_bregx}
  .cfi_register 34, 35
  s_nop 0
  .cfi_escape {val_expr_bregx}
  .cfi_escape {val_offset_sf}
  s_setpc_b64 s[30:31]
  .cfi_endproc

f_plain:
  .cfi_startproc
  .cfi_def_cfa 64, 0
  .cfi_undefined 16
  s_mov_b32 s33, s32
  .cfi_def_cfa_register 65
  s_add_u32 s32, s32, 0x400
  .cfi_def_cfa_offset 64
  .cfi_offset 48, -4
  .cfi_rel_offset 36, 8
  .cfi_same_value 40
  .skip 300
  .cfi_escape {def_cfa_offset_sf}
  .cfi_restore 48
  .cfi_escape {args_size}
  .skip 70000
  .cfi_remember_state
  .cfi_remember_state
  .cfi_offset 63, 12
  s_nop 0
  .cfi_restore_state
  s_nop 0
  .cfi_restore_state
  .cfi_escape {expr_regx}
  .cfi_escape {def_aspace_cfa_sf}
  s_nop 0
  .cfi_escape {expr_push_lane}
  .cfi_undefined 2600
  .cfi_same_value 1100
  s_setpc_b64 s[30:31]
  .cfi_endproc

f_empty:
  .cfi_startproc
  s_setpc_b64 s[30:31]
  .cfi_endproc

f_long:
  .cfi_startproc
  .cfi_llvm_def_aspace_cfa 64, 0, 6
{long_body}
  .cfi_endproc
"""


def probe_names(amddwarf, work, triple, regs, extra):
    """Each tool's name for each register number, learned from a probe object."""
    lines = [".cfi_sections .debug_frame", ".text", "probe:", ".cfi_startproc"]
    nop = "s_nop 0" if "amdgcn" in triple else "nop"
    for r in regs:
        lines += [nop, f".cfi_undefined {r}"]
    lines += [nop, ".cfi_endproc"]
    src = work / f"probe-{triple}.s"
    obj = work / f"probe-{triple}.o"
    src.write_text("\n".join(lines) + "\n")
    done = run([LLVM_MC, "-triple", triple] + extra + ["-filetype=obj", str(src), "-o", str(obj)])
    if done.returncode:
        raise SystemExit(f"llvm-mc failed on the probe: {done.stderr}")
    maps = []
    for argv in ([DWARFDUMP, "--debug-frame", str(obj)],
                 [amddwarf, "cfi", "--debug-frame", str(obj)]):
        out = run(argv).stdout
        names = re.findall(r"DW_CFA_undefined: (\S+)", out)
        if len(names) != len(regs):
            raise SystemExit(f"probe: expected {len(regs)} names from {argv[0]}, got {len(names)}")
        mapping = {}
        for name, number in zip(names, regs):
            mapping[name] = number
        maps.append(mapping)
    return maps


def normalize(text, names):
    """Register names to r<N>; a breg's name is dropped (LLVM omits unnamed ones)."""
    text = re.sub(r"(DW_OP_breg\d+) [A-Za-z_][A-Za-z0-9_]*?([+-]\d+)", r"\1 \2", text)
    text = re.sub(r"(DW_OP_breg\d+) ([+-]\d+)", r"\1 \2", text)
    text = re.sub(r"(DW_OP_reg\d+) [A-Za-z_][A-Za-z0-9_]*", r"\1", text)

    def repl(m):
        word = m.group(0)
        if word in names:
            return f"r{names[word]}"
        m2 = re.fullmatch(r"reg(\d+)", word)
        return f"r{m2.group(1)}" if m2 else word
    return re.sub(r"[A-Za-z_][A-Za-z0-9_]*", repl, text)


def parse_rows(text):
    """{section: {fde_offset: [(addr, row text)]}} from a dump."""
    result, section, fde = {}, None, None
    for line in text.splitlines():
        m = re.match(r"^\.(debug_frame|eh_frame) contents:", line)
        if m:
            section = m.group(1)
            result.setdefault(section, {})
            fde = None
            continue
        m = re.match(r"^([0-9a-f]{8}) [0-9a-f]+ [0-9a-f]+ (FDE|CIE)", line)
        if m:
            fde = int(m.group(1), 16) if m.group(2) == "FDE" else None
            if fde is not None:
                result[section][fde] = []
                end = int(re.search(r"pc=[0-9a-f]+\.\.\.([0-9a-f]+)", line).group(1), 16)
            continue
        m = re.match(r"^  0x([0-9a-f]+): (.*)$", line)
        if m and fde is not None:
            address = int(m.group(1), 16)
            # llvm-dwarfdump also lists a row that starts at the FDE's end
            # (it covers no address); ours covers [start, end) only.
            if address < end:
                result[section][fde].append((address, m.group(2)))
    return result


def split_rules(row):
    """'CFA=X: A=B, C=[D, E]' -> ('X', {'A': 'B', 'C': '[D, E]'})."""
    cfa, _, rest = row.partition(": ")
    rules, depth, current = {}, 0, ""
    parts = []
    for ch in rest:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    # A rule value may itself contain ", " outside brackets (val_expression):
    # glue pieces without '=' to the previous rule.
    merged = []
    for p in parts:
        if "=" in p.split(" ")[0] or not merged:
            merged.append(p)
        else:
            merged[-1] += ", " + p
    for p in merged:
        k, _, v = p.partition("=")
        rules[k] = v
    return cfa, rules


def same_expr(ours, theirs):
    """Equal, or equal up to where LLVM reports <decoding error>."""
    if "<decoding error>" not in theirs:
        return ours == theirs
    prefix = theirs.split("<decoding error>")[0].rstrip(", ").lstrip("[")
    return ours.lstrip("[").startswith(prefix)


def compare(label, ours_text, llvm_text, our_names, llvm_names, stats, failures):
    ours = parse_rows(ours_text)
    theirs = parse_rows(llvm_text)
    for section, fdes in theirs.items():
        mine = ours.get(section, {})
        if set(mine) != set(fdes):
            failures.append(f"{label} {section}: FDE offsets differ: ours {sorted(mine)[:5]} "
                            f"llvm {sorted(fdes)[:5]} ({len(mine)} vs {len(fdes)})")
            continue
        for offset, rows in fdes.items():
            stats["fdes"] += 1
            got = mine[offset]
            # Neither shows a last row without a CFA or a rule (an FDE
            # without instructions has no row at all).
            if len(got) != len(rows):
                failures.append(f"{label} {section} FDE 0x{offset:x}: {len(got)} rows, "
                                f"llvm {len(rows)}")
                continue
            for (a1, t1), (a2, t2) in zip(got, rows):
                stats["rows"] += 1
                c1, r1 = split_rules(normalize(t1, our_names))
                c2, r2 = split_rules(normalize(t2, llvm_names))
                ok = a1 == a2 and same_expr(c1, c2) and set(r1) == set(r2) and all(
                    same_expr(r1[k], r2[k]) for k in r2)
                if "<decoding error>" in t2:
                    stats["partial"] += 1
                if not ok:
                    failures.append(f"{label} {section} FDE 0x{offset:x} row 0x{a2:x}:\n"
                                    f"    ours: {t1}\n    llvm: {t2}")


def check_escapes(amddwarf, obj, failures, stats):
    """Our decoded expression bytes are exactly the bytes the source encoded."""
    out = run([amddwarf, "cfi", "--debug-frame", "--json", str(obj)]).stdout
    doc = json.loads(out)
    seen = set()
    for fde in doc[".debug_frame"]["fdes"]:
        for row in fde.get("rows", []):
            for rule in row["rules"]:
                if "expression" in rule:
                    seen.add(rule["expression"])
    for name, escape in ESCAPES.items():
        data = [int(x, 16) for x in escape.split(",")]
        if data[0] not in (0x10, 0x16):
            continue
        expr = bytes(data[3:3 + data[2]]).hex()
        stats["escapes"] += 1
        if expr not in seen:
            failures.append(f"escape {name}: expression {expr} not found in our rows")


def amdgpu_part(amddwarf, work, failures, stats):
    our_names_llvm = probe_names(amddwarf, work, "amdgcn-amd-amdhsa", AMDGPU_REGS,
                                 ["-mcpu=gfx900"])
    llvm_names, our_names = our_names_llvm
    # The names themselves: where LLVM names the register, ours is LLVM's
    # (PC_REG, EXEC, SGPR1), without the _LO16 of the 16-bit sub-register LLVM
    # lists first for the number; where it prints reg<N>, ours may say more.
    # The probe is wave64 (gfx900): the wave32-only numbers (EXEC_MASK_32,
    # the wave32 VGPRs and AGPRs) name no register of its waves, and ours
    # says reg<N> for them whatever LLVM says.
    wave32_only = {1} | set(range(1536, 1792)) | set(range(2048, 2304))
    ours_by_number = {n: name for name, n in our_names.items()}
    for name, number in sorted(llvm_names.items(), key=lambda item: item[1]):
        stats["register names"] = stats.get("register names", 0) + 1
        if re.fullmatch(r"reg\d+", name) or number in wave32_only:
            continue
        want = re.sub(r"_LO16$", "", name)
        if ours_by_number.get(number) != want:
            failures.append(f"register {number}: amddwarf cfi prints {ours_by_number.get(number)}, "
                            f"llvm-dwarfdump-19 {name}")
    clang_part(amddwarf, work, our_names_llvm, failures, stats)
    long_body = "\n".join(
        f"  s_nop 0\n  .cfi_offset {32 + (i % 60)}, {4 * (i % 13)}" for i in range(200))
    for sections in (".cfi_sections .debug_frame", ".cfi_sections .debug_frame, .eh_frame"):
        tag = "df" if "eh_frame" not in sections else "both"
        src = work / f"amdgpu-{tag}.s"
        obj = work / f"amdgpu-{tag}.o"
        so = work / f"amdgpu-{tag}.so"
        src.write_text(AMDGPU_SOURCE.format(sections=sections, long_body=long_body, **ESCAPES))
        try:
            assemble(str(src), str(obj))
            link_shared(str(obj), str(so))
        except RuntimeError as e:
            failures.append(str(e))
            return
        targets = [(obj, ["--debug-frame"])] if tag == "df" else [(so, ["--debug-frame", "--eh-frame"])]
        if tag == "df":
            targets.append((so, ["--debug-frame"]))
        for path, flags in targets:
            ours = run([amddwarf, "cfi"] + flags + [str(path)])
            llvm = run([DWARFDUMP] + flags + [str(path)])
            if ours.returncode != 0:
                failures.append(f"{path.name}: amddwarf cfi exit {ours.returncode}: {ours.stderr}"
                                f"{ours.stdout[-2000:]}")
                continue
            compare(path.name, ours.stdout, llvm.stdout, our_names, llvm_names, stats, failures)
        if tag == "df":
            check_escapes(amddwarf, obj, failures, stats)


CLANG_SOURCE = r"""
__attribute__((noinline)) int leaf(int *p, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += p[i] * i;
  return s;
}
__attribute__((noinline)) int mid(int *p, int n) {
  int a[16];
  for (int i = 0; i < 16; i++) a[i] = p[i] + n;
  return leaf(a, 16) + leaf(p, n);
}
int top(int *p, int n) { return mid(p, n) * 2; }
"""


def clang_part(amddwarf, work, names, failures, stats):
    """What clang-19 itself emits for AMDGPU functions (FDEs without instructions today)."""
    llvm_names, our_names = names
    src = work / "calls.c"
    src.write_text(CLANG_SOURCE)
    for opt in ("-O0", "-O2"):
        obj = work / f"calls{opt}.o"
        try:
            compile_opencl(str(src), str(obj), "gfx900", ["-g", opt])
        except RuntimeError as e:
            failures.append(str(e))
            continue
        ours = run([amddwarf, "cfi", "--debug-frame", str(obj)])
        llvm = run([DWARFDUMP, "--debug-frame", str(obj)])
        if ours.returncode != 0:
            failures.append(f"{obj.name}: amddwarf cfi exit {ours.returncode}: {ours.stderr}")
            continue
        before = stats["fdes"]
        compare(obj.name, ours.stdout, llvm.stdout, our_names, llvm_names, stats, failures)
        if stats["fdes"] == before:
            failures.append(f"{obj.name}: no FDE compared")


FIXED_X86 = ["/usr/bin/cmake", "/usr/bin/gdb", "/usr/bin/python3.11", "/usr/bin/perl",
             "/usr/bin/git", "/usr/bin/ctest", "/usr/bin/spirv-opt", "/usr/bin/strace"]


def has_eh_frame(path):
    done = run(["llvm-readelf-19", "-S", "-h", path])
    return done.returncode == 0 and "X86-64" in done.stdout and " .eh_frame " in done.stdout


def x86_part(amddwarf, work, failures, stats, budget):
    llvm_names, our_names = probe_names(amddwarf, work, "x86_64-linux-gnu", X86_REGS, [])
    start = time.time()
    candidates = [p for p in FIXED_X86 if os.path.exists(p)]
    others = sorted(str(p) for p in pathlib.Path("/usr/bin").iterdir()
                    if p.is_file() and not p.is_symlink() and str(p) not in candidates)
    checked = 0
    for i, path in enumerate(candidates + others):
        if i == len(candidates):
            start = time.time()  # the budget is for binaries beyond the fixed list
        if i >= len(candidates) and time.time() - start > budget:
            break
        if not has_eh_frame(path):
            continue
        ours = run([amddwarf, "cfi", "--eh-frame", path])
        llvm = run([DWARFDUMP, "--eh-frame", path])
        if llvm.returncode != 0 or "error:" in llvm.stderr:
            continue  # LLVM itself could not read it: nothing to compare against
        if ours.returncode != 0:
            failures.append(f"{path}: amddwarf cfi exit {ours.returncode}: "
                            f"{ours.stderr.strip()} {ours.stdout[-300:]}")
            continue
        before = stats["rows"]
        compare(path, ours.stdout, llvm.stdout, our_names, llvm_names, stats, failures)
        stats["x86_rows"] += stats["rows"] - before
        checked += 1
    stats["x86_binaries"] = checked


def lookup_part(amddwarf, failures, stats):
    """The FDE index: `--pc` finds, for PCs spread over a binary whose FDEs
    are in many unsorted runs (gdb), the FDE llvm-dwarfdump lists for them."""
    path = next((p for p in ("/usr/bin/gdb", "/usr/bin/cmake", "/usr/bin/perl")
                 if os.path.exists(p) and has_eh_frame(p)), None)
    if not path:
        return
    out = run([DWARFDUMP, "--eh-frame", path]).stdout
    ranges = [(int(a, 16), int(b, 16)) for a, b in
              re.findall(r"FDE cie=\S+ pc=([0-9a-f]+)\.\.\.([0-9a-f]+)", out)]
    ranges = [r for r in ranges if r[1] > r[0]]
    for start, end in ranges[:: max(1, len(ranges) // 25)]:
        pc = start + (end - start) // 2
        done = run([amddwarf, "cfi", "--eh-frame", "--json", "--pc", hex(pc), path])
        stats["lookups"] += 1
        try:
            fdes = json.loads(done.stdout)[".eh_frame"]["fdes"]
        except (ValueError, KeyError):
            failures.append(f"--pc {pc:#x} on {path}: bad output {done.stdout[:200]}")
            continue
        if len(fdes) != 1 or (int(fdes[0]["pc_begin"], 16), int(fdes[0]["pc_end"], 16)) != (start, end):
            failures.append(f"--pc {pc:#x} on {path}: found {[(f['pc_begin'], f['pc_end']) for f in fdes]}, "
                            f"llvm-dwarfdump lists [{start:#x}, {end:#x})")
        elif len(fdes[0].get("rows", [])) != 1:
            failures.append(f"--pc {pc:#x} on {path}: {len(fdes[0].get('rows', []))} rows, expected 1")


def main():
    ap = argument_parser(__doc__)
    ap.add_argument("--x86-seconds", type=float, default=60.0)
    args = arguments(__doc__, parser=ap)
    work = pathlib.Path(args.work)
    failures = []
    stats = {"fdes": 0, "rows": 0, "partial": 0, "escapes": 0, "x86_rows": 0, "x86_binaries": 0,
             "lookups": 0}
    amdgpu_part(args.amddwarf, work, failures, stats)
    amdgpu_rows = stats["rows"]
    x86_part(args.amddwarf, work, failures, stats, args.x86_seconds)
    lookup_part(args.amddwarf, failures, stats)
    for f in failures[:40]:
        print("FAIL:", f)
    if len(failures) > 40:
        print(f"... and {len(failures) - 40} more failures")
    print(f"AMDGPU: {amdgpu_rows} rows compared ({stats['partial']} with operations "
          f"llvm-dwarfdump cannot decode, checked up to there), {stats['escapes']} "
          f"escaped expressions checked byte for byte")
    print(f"x86-64: {stats['x86_binaries']} binaries, {stats['x86_rows']} rows compared, "
          f"{stats['fdes']} FDEs in all; {stats['lookups']} --pc look-ups checked")
    passed = stats["rows"] - len([f for f in failures if " row 0x" in f])
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures or stats["rows"] == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
