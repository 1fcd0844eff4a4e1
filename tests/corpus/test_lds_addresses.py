#!/usr/bin/env python3
"""__local / __shared__ variables: no made-up addresses.

clang-19 lowers LDS variables itself (module LDS lowering) and leaves the
symbols its DWARF names (k.a, _ZZ4kernPiE3buf) undefined: in a .o the
.debug_addr entry (DWARF 5) or DW_OP_addr operand (DWARF 4) is relocated
against an undefined symbol, in the linked .so it holds 0 and the symbol
table still lists the symbol as undefined. Builds OpenCL and HIP kernels
with several LDS arrays at -O0 and -O2, DWARF 5 and 4, .o and .so, and
checks against llvm-dwarfdump-19 and llvm-readelf-19 that:

- no two distinct LDS variables evaluate to the same address unless the
  object says so (their relocations' symbols are defined and equal);
- a variable whose address comes from an undefined symbol evaluates to
  <unavailable> ("unavailable" in JSON) with a message naming that symbol,
  for its value and its address, in the .o and the .so;
- `amddwarf check` reports exactly those variables as undefined_address,
  and nothing else.

Usage: test_lds_addresses.py --amddwarf PATH --work DIR [--build DIR]
"""
import json
import os
import re
import sys

from corpus_util import arguments, check, compile_device, link_shared, run, summary, write

OPENCL = r"""
__kernel void k(__global int *out, int n)
{
  __local int a[16];
  __local float b[8];
  __local short c[32];
  __local int *p = a;
  int id = __builtin_amdgcn_workitem_id_x();
  a[id & 15] = id + n; b[id & 7] = id * 0.5f; c[id & 31] = (short)id;
  __builtin_amdgcn_s_barrier();
  out[id] = a[15 - (id & 15)] + (int)b[id & 7] + c[31 - (id & 31)] + p[id & 15];
}
"""

HIP = r"""
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
__shared__ int gbuf[8];
__global__ void kern(int *out, int n)
{
  __shared__ int buf[16];
  __shared__ float other[4];
  int id = __builtin_amdgcn_workitem_id_x();
  buf[id & 15] = id + n; other[id & 3] = id; gbuf[id & 7] = id;
  __builtin_amdgcn_s_barrier();
  out[id] = buf[15 - (id & 15)] + (int)other[0] + gbuf[1];
}
"""

def build(work, lang, opt, dwarf):
    """The .o and linked .so of LANG at OPT with DWARF version DWARF."""
    base = os.path.join(work, "%s-%s-dwarf%d" % (lang, opt[1:], dwarf))
    src = write(base + (".cl" if lang == "cl" else ".hip"), OPENCL if lang == "cl" else HIP)
    compile_device(lang, src, base + ".o", flags=["-g", "-gdwarf-%d" % dwarf, opt])
    link_shared(base + ".o", base + ".so")
    return base + ".o", base + ".so"


def dies(path):
    """[(offset, tag, {attribute: text})] of every DIE, from llvm-dwarfdump-19."""
    out = []
    for line in run(["llvm-dwarfdump-19", "--debug-info", path]).stdout.splitlines():
        m = re.match(r"^0x([0-9a-f]+):\s+(DW_TAG_\w+)", line)
        if m:
            out.append((int(m.group(1), 16), m.group(2), {}))
            continue
        m = re.match(r"^\s+(DW_AT_\w+)\s+\((.*)\)$", line)
        if m and out:
            out[-1][2][m.group(1)] = m.group(2)
    return out


LDS_LOCATION = re.compile(r"^DW_OP_(addrx|addr) (0x[0-9a-f]+), DW_OP_lit2, DW_OP_swap, "
                          r"DW_OP_xderef$")


def lds_variables(all_dies):
    """[(die offset, name, op, operand, next DIE offset)] of the variables whose
    location is an address in the local space (lit2 ... xderef)."""
    out = []
    for i, (off, tag, attrs) in enumerate(all_dies):
        m = LDS_LOCATION.match(attrs.get("DW_AT_location", ""))
        if tag == "DW_TAG_variable" and m:
            name = attrs.get("DW_AT_name", "").strip('"')
            end = all_dies[i + 1][0] if i + 1 < len(all_dies) else 1 << 62
            out.append((off, name, m.group(1), int(m.group(2), 16), end))
    return out


def relocations(path):
    """{section: [(offset, type, symbol, addend)]} of a relocatable object."""
    out, section = {}, None
    for line in run(["llvm-readelf-19", "-r", "--wide", path]).stdout.splitlines():
        m = re.match(r"^Relocation section '\.rela(\S+)'", line)
        if m:
            section = m.group(1)
            out[section] = []
            continue
        m = re.match(r"^([0-9a-f]{16})\s+[0-9a-f]{16}\s+(\S+)\s+[0-9a-f]{16}\s+(\S+) \+ ([0-9a-f]+)",
                     line)
        if m and section:
            out[section].append((int(m.group(1), 16), m.group(2), m.group(3),
                                 int(m.group(4), 16)))
    return out


def symbols(path):
    """{name: (value, section index or 'UND')} from every symbol table."""
    out = {}
    for line in run(["llvm-readelf-19", "-s", "--wide", path]).stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[0][:-1].isdigit():
            out.setdefault(f[7], (int(f[1], 16), f[6]))
    return out


def kernel_pc(path, kernel):
    value, _ = symbols(path)[kernel]
    return value + 4


def addr_base(all_dies):
    for _, tag, attrs in all_dies:
        if tag == "DW_TAG_compile_unit" and "DW_AT_addr_base" in attrs:
            return int(attrs["DW_AT_addr_base"], 16)
    return 0


def truth(obj, all_dies, variables):
    """{die offset: (symbol, defined, value)}: what the relocatable object says
    each LDS variable's address is."""
    relocs, syms = relocations(obj), symbols(obj)
    base = addr_base(all_dies)
    out = {}
    for off, name, op, operand, end in variables:
        # The 64-bit address field: the .debug_addr entry, or the DW_OP_addr
        # operand inside the DIE (its strings are 32-bit .debug_str offsets).
        if op == "addrx":
            hits = [r for r in relocs.get(".debug_addr", []) if r[0] == base + 8 * operand]
        else:
            hits = [r for r in relocs.get(".debug_info", [])
                    if off < r[0] < end and r[1] == "R_AMDGPU_ABS64"]
        if len(hits) != 1:
            check(False, "%s %s: %d relocations for its address" % (obj, name, len(hits)))
            continue
        _, _, sym, addend = hits[0]
        value, ndx = syms.get(sym, (0, "UND"))
        out[off] = (sym, ndx not in ("UND", "COM") and not ndx.startswith("0xff"), value + addend)
    return out


def snapshot(path, pc):
    local = b"".join((0x1000 + i).to_bytes(4, "little") for i in range(512))
    doc = {"architecture": "gfx900", "lane": 0, "pc": hex(pc), "exec": "0x1",
           "registers": {"s33": "0x0", "s32": "0x0"},
           "memory": [{"address_space": "local", "address": 0, "bytes": local.hex()}]}
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def eval_lane(amddwarf, path, state, expr):
    r = run([amddwarf, "eval", path, "--state", state, "--json", expr])
    try:
        return json.loads(r.stdout)["lanes"][0]
    except (ValueError, KeyError, IndexError):
        check(False, "%s: eval %s failed: %s" % (path, expr, r.stderr.strip()))
        return {}


def check_object(amddwarf, work, label, path, kernel, variables, facts, linked):
    state = snapshot(os.path.join(work, label + ".json"), kernel_pc(path, kernel))
    addresses = {}
    for off, name, _, _, _ in variables:
        sym, defined, value = facts[off]
        for expr in (name, "&%s[0]" % name):
            lane = eval_lane(amddwarf, path, state, expr)
            what = "%s: %s (from %s)" % (label, expr, sym)
            if defined and not linked:
                check(lane.get("value", "").startswith("(") is (expr[0] == "&"),
                      "%s: the object gives its address, expected a value: %r" % (what, lane))
                if expr[0] == "&":
                    m = re.search(r"0x([0-9a-f]+) \[local\]", lane.get("value", ""))
                    check(m is not None and int(m.group(1), 16) == value,
                          "%s: expected address 0x%x, got %r" % (what, value, lane))
                    if m:
                        addresses[off] = int(m.group(1), 16)
                continue
            if defined:
                continue  # the linked object's entry is the linker's: not checked here
            message = lane.get("message", "")
            check(lane.get("status") == "unavailable" and "value" not in lane,
                  "%s: an undefined symbol's address must be unavailable, got %r" % (what, lane))
            reason = "which the link left undefined" if linked else \
                "which is undefined in this relocatable object"
            check(("the symbol %s, %s" % (sym, reason)) in message and
                  "this local (LDS) variable" in message,
                  "%s: the message must name the symbol and why: %r" % (what, message))
    # No two distinct variables at one address unless the object says so.
    for x in addresses:
        for y in addresses:
            if x < y and addresses[x] == addresses[y]:
                check(facts[x][2] == facts[y][2],
                      "%s: DIEs 0x%x and 0x%x both at 0x%x" % (label, x, y, addresses[x]))
    # check reports exactly the variables whose symbol is undefined.
    r = run([amddwarf, "check", path, "--json"])
    try:
        problems = json.loads(r.stdout)["problems"]
    except (ValueError, KeyError):
        check(False, "%s: check --json: %s" % (label, r.stderr.strip()))
        return
    reported = {int(p["die"], 16) for p in problems if p["kind"] == "undefined_address"}
    expected = {off for off, _, _, _, _ in variables if not facts[off][1]}
    check(reported == expected, "%s: check reports undefined_address for %s, expected %s"
          % (label, sorted(hex(x) for x in reported), sorted(hex(x) for x in expected)))
    # Producer quirk uses are warnings, not problems.
    others = [p for p in problems if p["kind"] != "undefined_address"
              and p["severity"] != "warning"]
    check(not others, "%s: check reports other problems: %r" % (label, others[:3]))


def main():
    args = arguments(__doc__)
    work = os.path.join(args.work, "lds")
    os.makedirs(work, exist_ok=True)
    seen = 0
    for lang, kernel, expect in (("cl", "k", {"a", "b", "c"}),
                                 ("hip", "_Z4kernPii", {"buf", "other", "gbuf"})):
        for opt in ("-O0", "-O2"):
            for dwarf in (5, 4):
                label = "%s-%s-dwarf%d" % (lang, opt[1:], dwarf)
                obj, so = build(work, lang, opt, dwarf)
                all_dies = dies(obj)
                variables = lds_variables(all_dies)
                names = {v[1] for v in variables}
                check(names == expect, "%s: LDS variables %s, expected %s"
                      % (label, sorted(names), sorted(expect)))
                # The .so is the .o linked: its DIEs are where they were.
                check([v[:2] for v in lds_variables(dies(so))] == [v[:2] for v in variables],
                      "%s: the .so's LDS variables differ from the .o's" % label)
                facts = truth(obj, all_dies, variables)
                if len(facts) != len(variables):
                    continue
                # What this test is about: clang leaves these symbols undefined.
                check(all(not f[1] for f in facts.values()),
                      "%s: a defined LDS symbol (now tested as known): %r" % (label, facts))
                und = {n for n, (_, ndx) in symbols(so).items() if ndx == "UND"}
                check(all(f[0] in und for f in facts.values()),
                      "%s: the .so does not list %s as undefined"
                      % (label, sorted(f[0] for f in facts.values())))
                check_object(args.amddwarf, work, label + ".o", obj, kernel, variables, facts,
                             False)
                check_object(args.amddwarf, work, label + ".so", so, kernel, variables, facts,
                             True)
                seen += len(variables)
    check(seen >= 24, "%d LDS variables looked at (expected 24)" % seen)
    print("%d LDS variables in %d objects" % (seen, 16))
    return summary()


if __name__ == "__main__":
    sys.exit(main())
