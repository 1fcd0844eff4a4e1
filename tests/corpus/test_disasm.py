#!/usr/bin/env python3
"""`amddwarf disasm` against llvm-objdump-19.

Builds OpenCL kernels (with a non-inlined helper function and a loop) with
clang-19 -target amdgcn-amd-amdhsa for gfx900, gfx90a (xnack+) and gfx1030 at
-O0 and -O2, relocatable and linked with ld.lld-19, and checks:

1. every instruction `amddwarf disasm OBJ` prints equals, address for address
   and text for text, what `llvm-objdump-19 -d --mcpu=PROCESSOR OBJ` prints
   (whitespace normalized), with the same function labels;
2. `--function NAME` prints exactly the instructions objdump prints under
   <NAME>, and `--pc ADDR --count N` exactly N instructions from ADDR;
3. `--source` names, before an instruction, the file and line that
   llvm-symbolizer-19 gives for that address (first instruction of each run);
4. when the build has no disassembler the command says so and exits 1.
"""
import pathlib
import re
import sys

from corpus_util import arguments, check, compile_opencl, link_shared, run, summary

OBJDUMP = "llvm-objdump-19"
SYMBOLIZER = "llvm-symbolizer-19"

KERNEL = r"""
__attribute__((noinline)) int helper(int a, int b) {
  int s = 0;
  for (int i = 0; i < a; i++)
    s += i * b;
  return s;
}
__kernel void k2(__global int *p, int n) {
  int id = __builtin_amdgcn_workitem_id_x();
  int v = helper(n, id);
  p[id] = v + 1;
}
__kernel void k3(__global float *x, __local float *tmp) {
  int l = __builtin_amdgcn_workitem_id_x();
  tmp[l] = x[l] * 2.0f;
  __builtin_amdgcn_s_barrier();
  x[l] = tmp[(l + 1) % 64];
}
"""

TARGETS = ["gfx900", "gfx90a:xnack+", "gfx1030"]

OURS_INSN = re.compile(r"^\s+([0-9a-f]+):\s+(.*?)\s+//")
OURS_LABEL = re.compile(r"^([0-9a-f]{16}) <(.*)>:$")
OBJDUMP_INSN = re.compile(r"^\t(.*?)\s*// ([0-9A-Fa-f]+):")
OBJDUMP_LABEL = re.compile(r"^([0-9a-f]{16}) <(.*)>:$")


def norm(text):
    return " ".join(text.split())


def parse_ours(out):
    insns, labels = [], []
    for line in out.splitlines():
        m = OURS_LABEL.match(line)
        if m:
            labels.append((int(m.group(1), 16), m.group(2)))
            continue
        m = OURS_INSN.match(line)
        if m:
            insns.append((int(m.group(1), 16), norm(m.group(2))))
    return insns, labels


def parse_objdump(out):
    insns, labels, by_function, current = [], [], {}, None
    for line in out.splitlines():
        m = OBJDUMP_LABEL.match(line)
        if m:
            current = m.group(2)
            labels.append((int(m.group(1), 16), current))
            by_function[current] = []
            continue
        m = OBJDUMP_INSN.match(line)
        if m:
            insn = (int(m.group(2), 16), norm(m.group(1)))
            insns.append(insn)
            if current is not None:
                by_function[current].append(insn)
    return insns, labels, by_function


def main():
    args = arguments(__doc__)
    work = pathlib.Path(args.work) / "disasm"
    work.mkdir(parents=True, exist_ok=True)

    probe = run([args.amddwarf, "--version"])
    if "disassembler: not built" in probe.stdout:
        out = run([args.amddwarf, "disasm", "x.o"])
        check(out.returncode == 1 and "not available" in out.stderr, "unbuilt disasm says so")
        return summary()

    src = work / "k.cl"
    src.write_text(KERNEL)
    objects = []
    for target in TARGETS:
        processor = target.split(":")[0]
        for opt in ("-O0", "-O2"):
            obj = work / f"k-{processor}{opt}.o"
            try:
                compile_opencl(str(src), str(obj), target, [opt, "-g"])
            except RuntimeError as e:
                check(False, f"clang {target} {opt}: {e}")
                continue
            objects.append((processor, obj))
            so = obj.with_suffix(".so")
            try:
                link_shared(str(obj), str(so))
                objects.append((processor, so))
            except RuntimeError as e:
                check(False, f"ld.lld {obj.name}: {e}")

    for processor, obj in objects:
        name = obj.name
        ours = run([args.amddwarf, "disasm", str(obj)])
        theirs = run([OBJDUMP, "-d", f"--mcpu={processor}", str(obj)])
        check(ours.returncode == 0, f"{name}: disasm exit {ours.returncode} {ours.stderr}")
        our_insns, our_labels = parse_ours(ours.stdout)
        their_insns, their_labels, by_function = parse_objdump(theirs.stdout)
        check(len(their_insns) > 10, f"{name}: objdump printed instructions")
        check(our_labels == their_labels, f"{name}: labels {our_labels} vs {their_labels}")
        if our_insns != their_insns:
            first = next((i for i, (a, b) in enumerate(zip(our_insns, their_insns)) if a != b),
                         min(len(our_insns), len(their_insns)))
            check(False, f"{name}: instruction {first} differs: "
                         f"{our_insns[first:first + 1]} vs {their_insns[first:first + 1]} "
                         f"({len(our_insns)} vs {len(their_insns)} instructions)")
        else:
            check(True, "")

        for function, insns in by_function.items():
            out = run([args.amddwarf, "disasm", str(obj), "--function", function])
            got, _ = parse_ours(out.stdout)
            # objdump runs a function's listing up to the next label (padding included);
            # --function stops at the symbol's size, so compare that prefix.
            check(len(got) > 0 and got == insns[:len(got)],
                  f"{name}: --function {function}: {len(got)} instructions differ")

        if len(their_insns) > 8:
            start = their_insns[3][0]
            out = run([args.amddwarf, "disasm", str(obj), "--pc", hex(start), "--count", "5"])
            got, _ = parse_ours(out.stdout)
            check(got == their_insns[3:8], f"{name}: --pc {start:#x} --count 5: {got}")

        src_out = run([args.amddwarf, "disasm", str(obj), "--source"])
        pending, checked = None, 0
        for line in src_out.stdout.splitlines():
            m = re.match(r"^; (.*):(\d+):(\d+)$", line)
            if m:
                pending = (m.group(1), int(m.group(2)))
                continue
            m = OURS_INSN.match(line)
            if m and pending and checked < 12:
                addr = int(m.group(1), 16)
                sym = run([SYMBOLIZER, f"--obj={obj}", "--no-inlines", hex(addr)])
                lines = [l for l in sym.stdout.splitlines() if l.strip()]
                where = lines[1] if len(lines) > 1 else ""
                mm = re.match(r"^(.*):(\d+):(\d+)$", where)
                if mm and int(mm.group(2)) != 0:
                    check(mm.group(1) == pending[0] and int(mm.group(2)) == pending[1],
                          f"{name}: --source at {addr:#x}: {pending} vs {where}")
                    checked += 1
                pending = None
        check(checked > 0, f"{name}: --source lines checked against llvm-symbolizer")

    bad = run([args.amddwarf, "disasm", str(objects[0][1]), "--function", "nope"])
    check(bad.returncode == 1 and "no function named 'nope'" in bad.stderr, "unknown function")
    usage = run([args.amddwarf, "disasm", str(objects[0][1]), "--count", "3"])
    check(usage.returncode == 2, "--count without --pc is a usage error")

    return summary()


if __name__ == "__main__":
    sys.exit(main())
