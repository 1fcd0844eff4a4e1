#!/usr/bin/env python3
"""Producer quirks and locations in private memory that cannot be, on real
producer output built here: Debian clang-19 OpenCL -O2 for gfx90a (wave64)
and gfx1030 (wave32), and hipcc's clang-15 (`hipcc -x cl -O2`, gfx1030).

clang keeps the private address-space suffix of a promoted variable's alloca
(specs/conventions.md, "Producer quirks"): "DW_OP_bregx VGPRn+0, DW_OP_lit1,
DW_OP_swap, DW_OP_xderef" where VGPRn holds the value, and "DW_OP_consts C,
DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_stack_value" for a constant.

The oracles: llvm-dwarfdump-19's decoding of every location (which entries
have the producer's pattern, so that the counts and the registers are the
real producer's), llvm-readelf-19's kernel metadata and symbols, and the
register values and decoys this test puts in its snapshots. Every VGPR lane
holds a distinct number; private memory at the address the literal reading
would use holds another (the decoy). With quirks the value must be the
register's, never the decoy's; `--no-quirks` must give the decoy; a write
must land in the register and leave memory as it was; in the kernel without
a private segment the literal reading is unavailable (no_private_segment)
and memory is never read.
"""

import json
import os
import re
import shutil
import sys

from corpus_util import (CLANG, LLD, arguments, check, compile_opencl, hipcc, link_shared,
                         missing_tool, run, summary, write)

SOURCE = r"""
__kernel void spill(__global int *out, int n)
{
  int lid = __builtin_amdgcn_workitem_id_x();
  int one = 1;
  volatile int priv[64];
  for (int i = 0; i < n; ++i)
    priv[(i * n) & 63] = out[i] + lid;
  int acc = lid * n;
  for (int i = 0; i < n; ++i)
    acc += priv[(i + lid) & 63] * one;
  out[lid] = acc;
}

__kernel void flat(__global int *out, int n)
{
  int lid = __builtin_amdgcn_workitem_id_x();
  int acc = lid * n;
  for (int i = 0; i < n; ++i)
    acc += out[i + lid];
  out[lid] = acc;
}
"""

DWARFDUMP = "llvm-dwarfdump-19"
READELF = "llvm-readelf-19"

REGISTER_RE = re.compile(r"^DW_OP_bregx (?:VGPR(\d+)_LO16|0x([0-9a-f]+)) ?\+0, DW_OP_lit1, "
                         r"DW_OP_swap, DW_OP_xderef$")
CONSTANT_RE = re.compile(r"^DW_OP_(?:consts \+?(-?\d+)|constu (0x[0-9a-f]+|\d+)|lit(\d+)), "
                         r"DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_stack_value$")
ENTRY_RE = re.compile(r"\[(0x[0-9a-f]+), (0x[0-9a-f]+)\): (.*?)\)?$")


def locations(path, wave):
    """The location entries of every variable and parameter, as
    llvm-dwarfdump-19 decodes them: [{name, kernel, low, high, expr, vgpr,
    constant}] (low None for a single expression)."""
    out = []
    text = run([DWARFDUMP, "--debug-info", path]).stdout
    kernel, die, entries = None, None, []
    for line in text.splitlines() + ["0x0: DW_TAG_end"]:
        m = re.match(r"^0x[0-9a-f]+:(\s+)(DW_TAG_\w+)", line)
        if m:
            if die and die["tag"] in ("DW_TAG_variable", "DW_TAG_formal_parameter"):
                for e in entries:
                    e.update(name=die.get("name"), kernel=kernel)
                    out.append(e)
            depth = len(m.group(1))
            die, entries = {"tag": m.group(2), "depth": depth}, []
            continue
        if die is None:
            continue
        m = re.search(r'DW_AT_name\s+\("(\w+)"\)', line)
        if m:
            die["name"] = m.group(1)
            if die["tag"] == "DW_TAG_subprogram":
                kernel = m.group(1)
        m = re.search(r"DW_AT_location\s+\((DW_OP[^\[]*)\)$", line)
        expr, low, high = None, None, None
        if m:
            expr = m.group(1)
        else:
            m = ENTRY_RE.search(line.strip())
            if m and "DW_OP" in m.group(3):
                low, high, expr = int(m.group(1), 16), int(m.group(2), 16), m.group(3)
        if expr is None:
            continue
        e = {"low": low, "high": high, "expr": expr, "vgpr": None, "constant": None}
        r = REGISTER_RE.match(expr)
        if r:
            e["vgpr"] = int(r.group(1)) if r.group(1) else int(r.group(2), 16) - 1536
        c = CONSTANT_RE.match(expr)
        if c:
            e["constant"] = int(c.group(1) or c.group(2) or c.group(3), 0)
        entries.append(e)
    return out


def kernels(path):
    """{name: (address, size, private_segment_fixed_size, uses_dynamic_stack)}
    from llvm-readelf-19's notes and symbols."""
    notes = run([READELF, "--notes", path]).stdout
    meta, name = {}, None
    for line in notes.splitlines():
        m = re.match(r"\s+\.name:\s+(\w+)", line)
        if m:
            name = m.group(1)
            meta[name] = {}
        m = re.match(r"\s+\.(private_segment_fixed_size|uses_dynamic_stack):\s+(\w+)", line)
        if m and name:
            meta[name][m.group(1)] = m.group(2)
    out = {}
    for line in run([READELF, "-s", path]).stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[7] in meta:
            k = meta[f[7]]
            out[f[7]] = (int(f[1], 16), int(f[2]), int(k["private_segment_fixed_size"]),
                         k["uses_dynamic_stack"] == "true")
    return out


def descriptor_file_offset(path, kernel):
    """File offset of KERNEL's descriptor (the symbol KERNEL.kd), from
    llvm-readelf-19's symbols and section headers."""
    sections = {}
    for line in run([READELF, "-S", "--wide", path]).stdout.splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+\S+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if m:
            sections[int(m.group(1))] = (int(m.group(2), 16), int(m.group(3), 16))
    for line in run([READELF, "-s", path]).stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[7] == kernel + ".kd" and f[6].isdigit():
            address, offset = sections[int(f[6])]
            return offset + int(f[1], 16) - address
    raise AssertionError("%s: no symbol %s.kd" % (path, kernel))


# Every VGPR lane distinct, and decoys distinct from every register value.
def vgpr_value(r, lane):
    return 0x10000 * (r + 1) + 0x100 * lane + 0x10


def decoy(r, lane):
    return 0x5000000 + 0x1000 * r + lane


def const_decoy(c, lane):
    return 0x6600000 + 0x100 * c + lane


def snapshot(cpu, wave, pc, regs, constants):
    """VGPRs 0-31 and SGPRs 0-33 distinct per register and lane; at the
    private address each quirk entry's literal reading uses (the lane's dword
    of its VGPR, or its constant), a decoy."""
    registers = {"v%d" % r: [vgpr_value(r, lane) for lane in range(wave)] for r in range(32)}
    registers.update({"s%d" % s: 0x70000 + s for s in range(34)})
    memory = []
    for lane in range(wave):
        for r in sorted(regs):
            memory.append({"address_space": "private_lane", "lane": lane,
                           "address": vgpr_value(r, lane),
                           "bytes": decoy(r, lane).to_bytes(4, "little").hex()})
        for c in sorted(constants):
            memory.append({"address_space": "private_lane", "lane": lane, "address": c,
                           "bytes": const_decoy(c, lane).to_bytes(4, "little").hex()})
    return {"architecture": cpu, "wave_size": wave, "pc": hex(pc),
            "exec": hex((1 << wave) - 1), "registers": registers, "memory": memory}


def eval_json(amddwarf, obj, state, name, extra=()):
    r = run([amddwarf, "eval", obj, "--state", state, "--lanes", "all", "--json", name]
            + list(extra))
    try:
        return json.loads(r.stdout)
    except ValueError:
        return {"error": r.stderr}


def lane_values(doc):
    return {l["lane"]: l.get("value", l.get("status")) for l in doc.get("lanes", [])}


def check_object(amddwarf, work, label, obj, cpu, wave, producer_prefix):
    locs = locations(obj, wave)
    kern = kernels(obj)
    reg_entries = [e for e in locs if e["vgpr"] is not None]
    const_entries = [e for e in locs if e["constant"] is not None]
    check(len(reg_entries) >= 2 and len(const_entries) >= 2,
          "%s: llvm-dwarfdump shows the producer's pattern (%d register, %d constant)"
          % (label, len(reg_entries), len(const_entries)))
    check(set(kern) == {"spill", "flat"} and kern["spill"][2] > 0 and kern["flat"][2] == 0
          and not kern["flat"][3], "%s: spill has private memory, flat none: %s" % (label, kern))

    # dump: the quirks on the unit's convention line, and in the JSON.
    dump = run([amddwarf, "dump", obj]).stdout
    line = [l for l in dump.splitlines() if l.startswith("  convention:")]
    check(line and line[0].endswith("; producer quirks promoted_register, promoted_constant"),
          "%s: dump's convention line names the quirks: %s" % (label, line))
    producer = re.search(r'producer "([^"]*)"', dump)
    check(producer and producer.group(1).startswith(producer_prefix),
          "%s: producer %s" % (label, producer and producer.group(1)))
    units = json.loads(run([amddwarf, "dump", obj, "--json"]).stdout)["units"]
    check(units[0]["quirks"] == ["promoted_register", "promoted_constant"],
          "%s: dump --json quirks %s" % (label, units[0]["quirks"]))
    units = json.loads(run([amddwarf, "dump", obj, "--json", "--no-quirks"]).stdout)["units"]
    check(units[0]["quirks"] == [], "%s: dump --json --no-quirks quirks %s"
          % (label, units[0]["quirks"]))

    # check: each use a warning with the word "quirk", counted per quirk.
    r = run([amddwarf, "check", obj])
    warnings = [l for l in r.stdout.splitlines() if l.startswith("warning:")]
    check(r.returncode == 0 and len(warnings) == len(reg_entries) + len(const_entries)
          and all("quirk" in w for w in warnings),
          "%s: check warns once per quirk use (%d lines, want %d; exit %d)"
          % (label, len(warnings), len(reg_entries) + len(const_entries), r.returncode))
    check("producer quirk promoted_register: %d location" % len(reg_entries) in r.stdout
          and "producer quirk promoted_constant: %d location" % len(const_entries) in r.stdout,
          "%s: check's counts: %s" % (label, r.stdout[-300:]))
    doc = json.loads(run([amddwarf, "check", obj, "--json"]).stdout)
    check(doc["quirk_uses"] == {"promoted_register": len(reg_entries),
                                "promoted_constant": len(const_entries)}
          and doc["count"] == 0 and doc["warnings"] == len(reg_entries) + len(const_entries),
          "%s: check --json quirk_uses %s" % (label, doc["quirk_uses"]))
    # --no-quirks: the literal reading puts flat's variables in private
    # memory, which flat does not have.
    in_flat = [e for e in reg_entries + const_entries if e["kernel"] == "flat"]
    r = run([amddwarf, "check", obj, "--json", "--no-quirks"])
    doc = json.loads(r.stdout)
    private = [p for p in doc["problems"] if p["kind"] == "private_without_segment"]
    check(r.returncode == 1 and doc["quirk_uses"] == {} and len(private) == len(in_flat) > 0
          and len(private) == doc["count"],
          "%s: check --no-quirks: %d private_without_segment, want %d (exit %d)"
          % (label, len(private), len(in_flat), r.returncode))

    # A kernel whose descriptor sets KERNEL_CODE_PROPERTY_USES_DYNAMIC_STACK
    # (bit 11 of the u16 at byte 56; AMDGPUUsage, "Kernel Descriptor") has
    # private memory though its fixed size is 0: nothing is reported there.
    dynamic = os.path.join(work, "%s-dynamic-stack.so" % label)
    image = bytearray(open(obj, "rb").read())
    at = descriptor_file_offset(obj, "flat") + 56
    check(image[at + 1] & 0x08 == 0, "%s: flat's descriptor already has a dynamic stack" % label)
    image[at + 1] |= 0x08
    open(dynamic, "wb").write(image)
    doc = json.loads(run([amddwarf, "check", dynamic, "--json", "--no-quirks"]).stdout)
    check(not [p for p in doc["problems"] if p["kind"] == "private_without_segment"],
          "%s: a dynamic stack is private memory: %s" % (label, doc["problems"][:2]))

    regs = {e["vgpr"] for e in reg_entries}
    constants = {e["constant"] for e in const_entries}
    # The variables read: each register entry whose name is unique in its
    # kernel at its first address, and the constant 'one'.
    chosen = [e for e in reg_entries if e["name"] in ("lid", "acc") and e["low"] is not None]
    chosen += [e for e in const_entries if e["low"] is not None
               and (e["name"] == "one" or (e["name"] == "i" and e["kernel"] == "flat"))]
    check(any(e["kernel"] == "flat" for e in chosen) and any(e["kernel"] == "spill" for e in chosen),
          "%s: variables to read in both kernels: %s" % (label, [(e["kernel"], e["name"]) for e in chosen]))
    for e in chosen:
        pc = e["low"]
        state = write(os.path.join(work, "%s-%s-%x.json" % (label, e["name"], pc)),
                      json.dumps(snapshot(cpu, wave, pc, regs, constants)))
        what = "%s: %s in %s at 0x%x (%s)" % (label, e["name"], e["kernel"], pc, e["expr"])
        quirk = "promoted_register" if e["vgpr"] is not None else "promoted_constant"
        if e["vgpr"] is not None:
            want = {lane: str(vgpr_value(e["vgpr"], lane)) for lane in range(wave)}
            literal = {lane: str(decoy(e["vgpr"], lane)) for lane in range(wave)}
        else:
            want = {lane: str(e["constant"]) for lane in range(wave)}
            literal = {lane: str(const_decoy(e["constant"], lane)) for lane in range(wave)}
        doc = eval_json(amddwarf, obj, state, e["name"])
        check(lane_values(doc) == want and doc.get("quirk") == quirk,
              "%s: the register's values through %s, got %s" % (what, quirk, doc))
        r = run([amddwarf, "eval", obj, "--state", state, "--lane", "3", "--explain", e["name"]])
        check(("read through producer quirk %s" % quirk) in r.stdout
              and ("= %s " % want[3]) in r.stdout, "%s: --explain names the quirk: %s"
              % (what, r.stdout))
        doc = eval_json(amddwarf, obj, state, e["name"], ["--no-quirks"])
        if e["kernel"] == "spill":
            check(lane_values(doc) == literal and doc.get("quirk") is None,
                  "%s: --no-quirks reads the decoys, got %s" % (what, lane_values(doc)))
        else:
            check(lane_values(doc) == {lane: "no_private_segment" for lane in range(wave)}
                  and doc.get("quirk") is None,
                  "%s: --no-quirks in a kernel without private memory: unavailable, got %s"
                  % (what, lane_values(doc)))
            r = run([amddwarf, "eval", obj, "--state", state, "--lane", "2", "--no-quirks",
                     "--trace", e["name"]])
            check("<unavailable>" in r.stdout and "DW_OP_LLVM_form_aspace_address" in r.stderr
                  and "read memory" not in r.stderr,
                  "%s: private memory is never read: %s" % (what, r.stderr[-400:]))
            saved = state + ".refused"
            if os.path.exists(saved):
                os.remove(saved)
            r = run([amddwarf, "eval", obj, "--state", state, "--lane", "2", "--no-quirks",
                     "--set", "%s=5" % e["name"], "--save-state", saved, e["name"]])
            check(r.returncode == 1 and "(no_private_segment)" in r.stderr
                  and not os.path.exists(saved),
                  "%s: --no-quirks write refused, nothing saved: %s" % (what, r.stderr))
        if e["vgpr"] is not None and e["kernel"] == "spill":
            check_write(amddwarf, work, obj, state, e, what)


def check_write(amddwarf, work, obj, state, e, what):
    """A write of 77 to lane 2 lands in the register's lane 2, and nothing
    else changes (the decoys in private memory included)."""
    saved = state + ".saved"
    r = run([amddwarf, "eval", obj, "--state", state, "--lane", "2", "--set",
             "%s=77" % e["name"], "--save-state", saved])
    if not check(r.returncode == 0, "%s: write: %s" % (what, r.stderr)):
        return
    before, after = json.load(open(state)), json.load(open(saved))

    def vgprs(doc):
        out = {}
        for k, v in doc["registers"].items():
            m = re.match(r"^(?:v|vgpr)(\d+)$", k.lower())
            if m:
                out[int(m.group(1))] = list(v) + [0] * (doc["wave_size"] - len(v))
        return out

    want = vgprs(before)
    want[e["vgpr"]][2] = 77
    check(vgprs(after) == want, "%s: the write changed lane 2 of VGPR%d only" % (what, e["vgpr"]))
    regions = lambda doc: [(m["lane"], int(str(m["address"]), 0), m["bytes"])
                           for m in doc["memory"]]
    check(regions(after) == regions(before), "%s: private memory unchanged by the write" % what)
    doc = eval_json(amddwarf, obj, saved, e["name"])
    check(lane_values(doc).get(2) == "77", "%s: reads 77 back in lane 2" % what)


def main():
    args = arguments(__doc__)
    if missing_tool(CLANG, LLD, DWARFDUMP, READELF):
        return 0
    src = write(os.path.join(args.work, "quirks.cl"), SOURCE)
    builds = []
    for cpu, wave in (("gfx90a", 64), ("gfx1030", 32)):
        obj = os.path.join(args.work, "quirks-%s.o" % cpu)
        compile_opencl(src, obj, cpu, ["-g", "-O2"])
        link_shared(obj, obj[:-2] + ".so")
        builds.append(("clang19-" + cpu, obj[:-2] + ".so", cpu, wave, "Debian clang version 19."))
    if shutil.which("hipcc"):
        obj = os.path.join(args.work, "quirks-hipcc-gfx1030.o")
        hipcc(["-x", "cl", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx1030", "-nogpulib", "-g",
               "-O2", "-c", src, "-o", obj], args.work)
        link_shared(obj, obj[:-2] + ".so")
        builds.append(("hipcc-gfx1030", obj[:-2] + ".so", "gfx1030", 32, "Debian clang version 15."))
    else:
        print("hipcc not found: its object is not checked")
    for label, so, cpu, wave, producer in builds:
        check_object(args.amddwarf, args.work, label, so, cpu, wave, producer)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
