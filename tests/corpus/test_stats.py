#!/usr/bin/env python3
"""amddwarf stats against independent oracles.

The corpus: OpenCL kernels (an inlined callee, location lists with gaps, LDS
arrays, a lexical block) built with clang-19 for gfx900 (wave64) and
gfx1030 (wave32) at -O0 and -O2, as .o and linked .so (and one DWARF 4
object, and one .so of three of these units); HIP kernels built with hipcc; and a hand-written object with every
kind of location (tests/corpus/stats/every_kind.json, `amddwarf build`).

* llvm_dwarfdump: the keys and values of `stats --json` equal those of
  `llvm-dwarfdump-19 --statistics` (all but version, file, format), on every
  object.
* Per variable: every_kind's numbers are computed by hand below; on the
  clang objects, each variable's scope and covered bytes, and the inlined
  subroutine it is in, are computed from `llvm-dwarfdump-19 --debug-info`'s
  text (ranges, location lists, the tree), not from the library.
* --diff on -O0 against -O2: the coverage of every function and variable,
  matched by name, declaration and inlining, from the same llvm-dwarfdump
  reading; --max-drop's exit status on either side of the largest drop.
* --why: each reason the object can decide, at PCs read from llvm-dwarfdump
  (quirk: clang's promoted_register, through the producer-quirk table).
* --svg: rendered by rsvg-convert; pixels at the positions the layout of
  specs/stats.md gives for segments read from llvm-dwarfdump are the kind's
  colour, the gaps white; with --diff (-O0 against -O2 both ways), each
  function of BASE above its NEW match, and a function of one side only
  under or over a grey row for the side that lacks it.
"""

import json
import os
import re
import shutil
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_util import (CLANG, HIPCC, LLD, arguments, check, compile_opencl, hipcc,  # noqa: E402
                         link_shared, missing_tool, run, run_ok, summary)

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stats")
DWARFDUMP = "llvm-dwarfdump-19"


def build(args):
    """[(label, path)] of every object of the corpus."""
    work = args.work
    out = []
    src = os.path.join(HERE, "inline_gaps.cl")
    for cpu, wave in (("gfx900", 64), ("gfx1030", 32)):
        for opt in ("-O0", "-O2"):
            label = "cl-%s-%s" % (cpu, opt[1:])
            obj = os.path.join(work, label + ".o")
            so = os.path.join(work, label + ".so")
            compile_opencl(src, obj, cpu, ["-g", opt])
            link_shared(obj, so)
            out += [(label + ".o", obj), (label + ".so", so)]
    obj = os.path.join(work, "cl-gfx900-O2-dwarf4.o")
    compile_opencl(src, obj, "gfx900", ["-g", "-gdwarf-4", "-O2"])
    out.append(("cl-gfx900-O2-dwarf4.o", obj))
    # Three units in one object (their kernels of the same names, kept by
    # --allow-multiple-definition): the statistics walk the units on two
    # threads, and a function of several units adds up.
    units = os.path.join(work, "cl-gfx900-units.so")
    run_ok([LLD, "-shared", "--allow-multiple-definition",
            os.path.join(work, "cl-gfx900-O0.o"), os.path.join(work, "cl-gfx900-O2.o"), obj,
            "-o", units])
    out.append(("cl-gfx900-units.so", units))
    if shutil.which(HIPCC):
        hip = os.path.join(HERE, "lds.hip")
        for cpu, opt in (("gfx900", "-O0"), ("gfx1030", "-O2")):
            co = os.path.join(work, "hipcc-%s-%s.co" % (cpu, opt[1:]))
            hipcc(["--offload-arch=" + cpu, "--cuda-device-only", "--no-gpu-bundle-output", "-g",
                   opt, "-c", hip, "-o", co], work)
            out.append((os.path.basename(co), co))
    every = os.path.join(work, "every_kind.o")
    run_ok([args.amddwarf, "build", os.path.join(HERE, "every_kind.json"), "-o", every])
    out.append(("every_kind.o", every))
    return out


def stats_json(args, path, *extra):
    return json.loads(run_ok([args.amddwarf, "stats", "--json", "--variables", path] +
                             list(extra)).stdout)


# ---- llvm-dwarfdump --debug-info, read as a tree ----

DIE_RE = re.compile(r"^(0x[0-9a-f]+):(\s+)(DW_TAG_\w+|NULL)")
ATTR_RE = re.compile(r"^\s+(DW_AT_\w+)\s+\((.*)$")
RANGE_RE = re.compile(r"\[(0x[0-9a-f]+),\s*(0x[0-9a-f]+)\)(?::\s*(.*?))?\)?\s*$")


def read_dies(path):
    """[die] in order; a die {"offset", "tag", "depth", "attrs": {name: [lines]},
    "parent": index or None}."""
    text = run_ok([DWARFDUMP, "--debug-info", path]).stdout
    dies, stack, attr = [], [], None
    for line in text.splitlines():
        m = DIE_RE.match(line)
        if m:
            depth = (len(m.group(2)) - 1) // 2
            attr = None
            if m.group(3) == "NULL":
                continue
            while stack and dies[stack[-1]]["depth"] >= depth:
                stack.pop()
            die = {"offset": int(m.group(1), 16), "tag": m.group(3), "depth": depth,
                   "attrs": {}, "parent": stack[-1] if stack else None}
            dies.append(die)
            stack.append(len(dies) - 1)
            continue
        m = ATTR_RE.match(line)
        if m and dies:
            attr = m.group(1)
            dies[-1]["attrs"][attr] = [m.group(2)]
        elif attr and dies and line.strip():
            dies[-1]["attrs"][attr].append(line.strip())
    return dies


def hexval(text):
    m = re.match(r"\s*(0x[0-9a-f]+)", text)
    return int(m.group(1), 16) if m else None


def die_ranges(die):
    """The [low, high) ranges of a scope DIE, or []."""
    a = die["attrs"]
    if "DW_AT_low_pc" in a and "DW_AT_high_pc" in a:
        low = hexval(a["DW_AT_low_pc"][0])
        high = hexval(a["DW_AT_high_pc"][0])
        return [(low, high)] if high > low else []
    if "DW_AT_ranges" in a:
        out = []
        for line in a["DW_AT_ranges"]:
            m = RANGE_RE.search(line)
            if m and int(m.group(2), 16) > int(m.group(1), 16):
                out.append((int(m.group(1), 16), int(m.group(2), 16)))
        return out
    return []


def location_entries(die):
    """None without DW_AT_location; "all" for an expression or a constant;
    else [(low, high, expression text)]."""
    a = die["attrs"]
    if "DW_AT_const_value" in a:
        return "all"
    if "DW_AT_location" not in a:
        return None
    lines = a["DW_AT_location"]
    if "loclist" not in lines[0] and "DW_AT_location" in a and not lines[0].startswith("0x"):
        return "all"
    out = []
    for line in lines[1:]:
        m = RANGE_RE.search(line)
        if m:
            out.append((int(m.group(1), 16), int(m.group(2), 16), (m.group(3) or "").strip()))
    return out


def overlap(ranges, low, high):
    return sum(max(0, min(high, h) - max(low, l)) for l, h in ranges)


def quoted_name(lines):
    m = re.search(r'"([^"]*)"', lines[0])
    return m.group(1) if m else None


def die_name(dies, by_offset, die, steps=8):
    """DW_AT_name, else that of the DIE its abstract origin or specification
    names (llvm-dwarfdump quotes the linkage name there, not the name)."""
    a = die["attrs"]
    if "DW_AT_name" in a:
        return quoted_name(a["DW_AT_name"])
    for attr in ("DW_AT_abstract_origin", "DW_AT_specification"):
        if attr in a and steps > 0:
            target = by_offset.get(hexval(a[attr][0]))
            if target is not None:
                return die_name(dies, by_offset, target, steps - 1)
    return ""


def expected_variables(path):
    """{die offset: {"name", "scope", "covered", "inlined_from", "function"}} for
    every variable and parameter of a concrete function, from llvm-dwarfdump."""
    dies = read_dies(path)
    by_offset = {d["offset"]: d for d in dies}
    out = {}
    for i, d in enumerate(dies):
        if d["tag"] not in ("DW_TAG_variable", "DW_TAG_formal_parameter"):
            continue
        if "DW_AT_declaration" in d["attrs"]:
            continue
        scope, inlined_from, function, p = None, None, None, d["parent"]
        while p is not None:
            anc = dies[p]
            if anc["tag"] in ("DW_TAG_lexical_block", "DW_TAG_inlined_subroutine",
                              "DW_TAG_subprogram"):
                r = die_ranges(anc)
                if scope is None and r:
                    scope = r
                if anc["tag"] == "DW_TAG_inlined_subroutine" and inlined_from is None:
                    inlined_from = die_name(dies, by_offset, anc)
                if anc["tag"] == "DW_TAG_subprogram":
                    function = anc
                    break
            p = anc["parent"]
        if function is None or "DW_AT_inline" in function["attrs"] or not die_ranges(function):
            continue
        loc = location_entries(d)
        total = sum(h - l for l, h in scope)
        if loc is None:
            covered = 0
        elif loc == "all":
            covered = total
        else:
            covered = sum(overlap(scope, l, h) for l, h, e in loc if e)
        out[d["offset"]] = {"name": die_name(dies, by_offset, d), "scope": total,
                            "covered": min(covered, total), "inlined_from": inlined_from,
                            "function": die_name(dies, by_offset, function),
                            "entries": loc, "scope_ranges": scope}
    return out


def our_variables(doc):
    out = {}
    for fn in doc["files"][0]["functions"]:
        for v in fn["variables"]:
            out[int(v["die"], 16)] = (fn, v)
    return out


# ---- checks ----

def check_llvm_keys(args, objects):
    for label, path in objects:
        doc = json.loads(run_ok([args.amddwarf, "stats", "--json", path]).stdout)
        ours = doc["files"][0]["llvm_dwarfdump"]
        theirs = json.loads(run_ok([DWARFDUMP, "--statistics", path]).stdout)
        for key in ("version", "file", "format"):
            theirs.pop(key)
        diff = {k: (ours.get(k), theirs.get(k)) for k in set(ours) | set(theirs)
                if ours.get(k) != theirs.get(k)}
        check(not diff, "%s: llvm_dwarfdump differs from llvm-dwarfdump-19 --statistics: %s"
              % (label, diff))


def check_per_variable(args, objects):
    for label, path in objects:
        if label == "every_kind.o":
            continue
        expected = expected_variables(path)
        ours = our_variables(stats_json(args, path))
        check(set(expected) == set(ours), "%s: variables %s against llvm-dwarfdump's %s"
              % (label, sorted(ours), sorted(expected)))
        for off, e in expected.items():
            if off not in ours:
                continue
            fn, v = ours[off]
            c = v["coverage"]
            check(v["name"] == e["name"] and c["scope"] == e["scope"] and
                  c["covered"] == e["covered"] and v["inlined_from"] == e["inlined_from"],
                  "%s: %s at 0x%x: ours (%s, scope %d, covered %d, inlined %s), llvm-dwarfdump "
                  "(%s, %d, %d, %s)" % (label, e["name"], off, v["name"], c["scope"],
                                        c["covered"], v["inlined_from"], e["name"], e["scope"],
                                        e["covered"], e["inlined_from"]))


EVERY_KIND = {
    # name: (scope, covered, lane_correct, {kind: bytes}, [(low, high, kind, lane)])
    "s": (64, 64, 64, {"sgpr": 64}, [(0, 64, "sgpr", "uniform")]),
    "v": (64, 64, 64, {"vgpr": 64}, [(0, 64, "vgpr", "selected")]),
    "vnolane": (64, 64, 0, {"vgpr": 64}, [(0, 64, "vgpr", "missing")]),
    "a": (64, 64, 64, {"agpr": 64}, [(0, 64, "agpr", "selected")]),
    "mem": (64, 44, 44, {"memory_local": 16, "memory_private": 16, "memory_global": 8,
                         "memory_region": 4},
            [(0, 16, "memory_local", "uniform"), (32, 48, "memory_private", "uniform"),
             (48, 56, "memory_global", "uniform"), (56, 60, "memory_region", "uniform")]),
    "imp": (64, 64, 64, {"implicit": 64}, [(0, 64, "implicit", "uniform")]),
    "c": (64, 64, 64, {"implicit": 64}, [(0, 64, "implicit", "uniform")]),
    "comp": (64, 64, 64, {"composite": 64}, [(0, 64, "composite", "selected")]),
    "u": (64, 16, 16, {"undefined": 8, "sgpr": 16},
          [(0, 8, "undefined", "none"), (8, 24, "sgpr", "uniform")]),
    "none": (64, 0, 0, {}, []),
    "blk": (32, 8, 8, {"sgpr": 8}, [(16, 24, "sgpr", "uniform")]),
}


def check_every_kind(args, path):
    doc = stats_json(args, path)
    fns = doc["files"][0]["functions"]
    check(len(fns) == 1 and fns[0]["name"] == "every_kind", "every_kind: one function")
    vars_ = {v["name"]: v for v in fns[0]["variables"]}
    check(set(vars_) == set(EVERY_KIND), "every_kind: variables %s" % sorted(vars_))
    for name, (scope, covered, lane, kinds, segments) in EVERY_KIND.items():
        v = vars_.get(name)
        if v is None:
            continue
        c = v["coverage"]
        got_kinds = {k: n for k, n in c["by_kind"].items() if n}
        got_segments = [(int(s["low"], 16), int(s["high"], 16), s["kind"], s["lane"])
                        for s in v["segments"]]
        check((c["scope"], c["covered"], c["lane_correct"]) == (scope, covered, lane),
              "every_kind %s: scope/covered/lane_correct %s, expected %s" %
              (name, (c["scope"], c["covered"], c["lane_correct"]), (scope, covered, lane)))
        check(got_kinds == kinds, "every_kind %s: by kind %s, expected %s" % (name, got_kinds, kinds))
        check(got_segments == segments, "every_kind %s: segments %s, expected %s" %
              (name, got_segments, segments))
    tot = fns[0]["coverage"]
    check(tot["lane_missing"] == 64 and tot["legacy"] == 0 and tot["unknown_address"] == 0,
          "every_kind: function lane_missing 64, legacy 0: %s" % tot)
    check(fns[0]["cfi"] == "none" and fns[0]["kind"] == "device",
          "every_kind: no CFI, a device function: %s %s" % (fns[0]["cfi"], fns[0]["kind"]))


def check_quirks_legacy_and_lds(args, objects):
    """clang-19 -O2 writes a promoted variable as DW_OP_bregx VGPR, lit1, swap,
    xderef (the producer quirk promoted_register): read through the quirk it
    is a VGPR, counted as quirk coverage; read literally (--no-quirks) it is
    private memory at the lane's VGPR value, by the legacy convention. The
    LDS arrays' addresses are left undefined by the object."""
    path = dict(objects)["cl-gfx900-O2.o"]
    for quirks in (True, False):
        extra = () if quirks else ("--no-quirks",)
        doc = stats_json(args, path, *extra)
        fns = {f["name"]: f for f in doc["files"][0]["functions"]}
        k = fns["k"]
        check(k["kind"] == "kernel" and fns["mix"]["kind"] == "device",
              "k is a kernel, mix a device function")
        v = {x["name"]: x for x in k["variables"]}
        b = v["buf"]["coverage"]
        check(b["unknown_address"] == b["scope"] > 0 and b["lane_correct"] == 0,
              "buf (LDS): all of its coverage at an undefined address: %s" % b)
        g = v["gid"]["coverage"]
        kinds = {s["kind"] for s in v["gid"]["segments"]}
        flags = {f for s in v["gid"]["segments"] for f in s["flags"]}
        if quirks:
            check(g["quirk"] == g["covered"] > 0 and g["lane_correct"] == 0 and
                  kinds == {"vgpr"} and flags == {"quirk"},
                  "gid through promoted_register: VGPR, quirk coverage: %s %s" % (g, kinds))
        else:
            check(g["legacy"] == g["covered"] > 0 and g["lane_correct"] == g["covered"] and
                  g["quirk"] == 0 and kinds == {"memory_private"},
                  "gid read literally: private memory, legacy: %s %s" % (g, kinds))
    first = min(int(s["low"], 16) for s in v["gid"]["segments"])
    w = why(args, path, "gid", first)
    check(w["reason"] == "quirk" and "promoted_register" in w["message"],
          "why gid: read through the quirk: %s" % w)


def check_container(args):
    """stats opens what the other commands open: a host object holding the
    device code in .hip_fatbin (hipcc -c), the code object chosen with
    --target. Its llvm_dwarfdump keys equal llvm-dwarfdump-19's on the code
    object clang-offload-bundler-19 unbundles from the same section."""
    if not shutil.which(HIPCC) or missing_tool("clang-offload-bundler-19", "llvm-objcopy-19"):
        return
    host = os.path.join(args.work, "host.o")
    hipcc(["--offload-arch=gfx900", "-g", "-O2", "-c", os.path.join(HERE, "lds.hip"), "-o", host],
          args.work)
    fatbin = os.path.join(args.work, "host.fatbin")
    run_ok(["llvm-objcopy-19", "--dump-section", ".hip_fatbin=" + fatbin, host])
    device = os.path.join(args.work, "host-gfx900.co")
    run_ok(["clang-offload-bundler-19", "--unbundle", "--type=o", "--input=" + fatbin,
            "--targets=hipv4-amdgcn-amd-amdhsa--gfx900", "--output=" + device])
    ours = json.loads(run_ok([args.amddwarf, "stats", "--json", host, "--target", "gfx900"]).stdout)
    theirs = json.loads(run_ok([DWARFDUMP, "--statistics", device]).stdout)
    for key in ("version", "file", "format"):
        theirs.pop(key)
    got = ours["files"][0]["llvm_dwarfdump"]
    check(got == theirs and got["#functions"] > 0,
          "host object --target gfx900: %s" %
          {k: (got.get(k), theirs.get(k)) for k in set(got) | set(theirs)
           if got.get(k) != theirs.get(k)})


def check_cfi(args, objects):
    """Call frame information per function: none for the hand-written object
    (no .debug_frame), real once it has an FDE with instructions, and for
    clang's functions, whose FDEs llvm-dwarfdump-19 shows without any
    instruction but DW_CFA_nop, synthesized from their prologues."""
    every = dict(objects)["every_kind.o"]
    f = stats_json(args, every)["files"][0]["functions"][0]
    check(f["cfi"] == "none", "every_kind without .debug_frame: cfi %s" % f["cfi"])
    desc = json.load(open(os.path.join(HERE, "every_kind.json")))
    desc["cfi"] = {"version": 4,
                   "cies": [{"instructions": [
                       {"op": "DW_CFA_LLVM_def_aspace_cfa", "operands": [64, 0, 6]}]}],
                   "fdes": [{"cie": 0, "start": 0, "length": 64, "instructions": [
                       {"op": "DW_CFA_advance_loc", "operands": [1]},
                       {"op": "DW_CFA_offset", "operands": [16, 2]}]}]}
    src = os.path.join(args.work, "every_kind_cfi.json")
    with open(src, "w") as out:
        json.dump(desc, out)
    obj = os.path.join(args.work, "every_kind_cfi.o")
    run_ok([args.amddwarf, "build", src, "-o", obj])
    f = stats_json(args, obj)["files"][0]["functions"][0]
    check(f["cfi"] == "real", "every_kind with an FDE of instructions: cfi %s" % f["cfi"])
    path = dict(objects)["cl-gfx900-O2.o"]
    frames = run_ok([DWARFDUMP, "--debug-frame", path]).stdout
    fdes = re.findall(r"FDE cie=\w+ pc=([0-9a-f]+)\.\.\.([0-9a-f]+)\n((?:  .*\n|\n)*?)(?=\S|\Z)", frames)
    empty = {int(lo, 16) for lo, hi, body in fdes if not re.search(r"DW_CFA_(?!nop)", body)}
    fns = stats_json(args, path)["files"][0]["functions"]
    check(fns and all(int(f["ranges"][0][0], 16) in empty and f["cfi"] == "none" for f in fns),
          "clang-19 -O2 functions, prologues not analyzed: cfi %s" %
          [(f["name"], f["cfi"]) for f in fns])
    fns = stats_json(args, path, "--prologues")["files"][0]["functions"]
    check(fns and all(int(f["ranges"][0][0], 16) in empty and f["cfi"] == "synthesized"
                      for f in fns),
          "clang-19 -O2 functions (empty FDEs at %s): cfi %s" %
          (sorted(hex(x) for x in empty), [(f["name"], f["cfi"]) for f in fns]))


def function_sums(expected):
    """Per function key (the inlined function for inlined variables) and per
    variable key: [scope, covered]."""
    fns, vars_ = {}, {}
    for e in expected.values():
        fkey = e["inlined_from"] or e["function"]
        vkey = (fkey, e["name"])
        for table, key in ((fns, fkey), (vars_, vkey)):
            s = table.setdefault(key, [0, 0])
            s[0] += e["scope"]
            s[1] += e["covered"]
    return fns, vars_


def per_mille(s):
    return (s[1] * 1000 + s[0] // 2) // s[0] if s and s[0] else 0


def check_diff(args, objects):
    paths = dict(objects)
    base, new = paths["cl-gfx900-O0.o"], paths["cl-gfx900-O2.o"]
    fb, vb = function_sums(expected_variables(base))
    fn_, vn = function_sums(expected_variables(new))
    doc = json.loads(run_ok([args.amddwarf, "stats", "--json", "--diff", base, new]).stdout)
    got_f = {f["name"]: f for f in doc["functions"]}
    for name in set(fb) | set(fn_):
        f = got_f.get(name)
        exp = (per_mille(fb.get(name)), per_mille(fn_.get(name)))
        check(f is not None and (f["base_covered_permille"], f["new_covered_permille"]) == exp,
              "diff: function %s: %s, expected %s" % (name, f, exp))
    got_v = {(v["inlined_from"] or v["function"], v["name"]): v for v in doc["variables"]}
    for key in set(vb) | set(vn):
        v = got_v.get(key)
        status = "matched" if key in vb and key in vn else "disappeared" if key in vb else "appeared"
        exp = (per_mille(vb.get(key)), per_mille(vn.get(key)), status)
        check(v is not None and
              (v["base_covered_permille"], v["new_covered_permille"], v["status"]) == exp,
              "diff: variable %s: %s, expected %s" % (key, v, exp))
    drops = [(f["base_covered_permille"] - f["new_covered_permille"]) / 10.0
             for f in doc["functions"] if f["status"] == "matched"]
    worst = max(drops)
    order = [v["new_covered_permille"] - v["base_covered_permille"] for v in doc["variables"]]
    check(order == sorted(order), "diff: variables worst first")
    r = run([args.amddwarf, "stats", "--diff", base, new, "--max-drop", str(worst - 0.5)])
    check(r.returncode == 1, "--max-drop below the worst drop (%.1f): exit %d" % (worst, r.returncode))
    r = run([args.amddwarf, "stats", "--diff", base, new, "--max-drop", str(worst + 0.5)])
    check(r.returncode == 0, "--max-drop above the worst drop: exit %d" % r.returncode)


def why(args, path, name, pc):
    return json.loads(run_ok([args.amddwarf, "stats", path, "--json", "--why", name,
                              "--pc", hex(pc)]).stdout)


def check_why(args, objects):
    paths = dict(objects)
    path = paths["cl-gfx900-O2.o"]
    exp = expected_variables(path)
    by_name = {}
    for off, e in exp.items():
        if e["function"] == "k" and e["inlined_from"] is None:
            by_name[e["name"]] = e
    # a list with a gap before its first entry: no_entry_at_pc, nearest after
    gid = by_name["gid"]
    entries = [x for x in gid["entries"] if x[2]]
    first = min(entries)
    fn_low = min(l for l, h in gid["scope_ranges"])
    if first[0] > fn_low:
        w = why(args, path, "gid", fn_low)
        check(w["reason"] == "no_entry_at_pc" and w["nearest_after"] == [[hex(first[0]), hex(first[1])]]
              and w["nearest_before"] is None, "why gid at the entry: %s" % w)
    # read literally, gid is private memory in a kernel without any
    w = json.loads(run_ok([args.amddwarf, "stats", path, "--json", "--no-quirks", "--why", "gid",
                           "--pc", hex(first[0])]).stdout)
    check(w["reason"] == "no_private_segment" and w["location_kind"] == "memory_private",
          "why gid inside its entry, read literally: %s" % w)
    # at -O0 the same variable is on the kernel's stack: available
    o0 = paths["cl-gfx900-O0.o"]
    e0 = [e for e in expected_variables(o0).values()
          if e["name"] == "gid" and e["function"] == "k"][0]
    w = why(args, o0, "gid", e0["scope_ranges"][0][0])
    check(w["reason"] == "available" and w["location_kind"] == "memory_private",
          "why gid at -O0: %s" % w)
    w = why(args, path, "out", fn_low)
    check(by_name["out"]["entries"] is None and w["reason"] == "no_location",
          "why out (no DW_AT_location): %s" % w)
    w = why(args, path, "buf", fn_low)
    check(w["reason"] == "undefined_address" and "k.buf" in w["message"],
          "why buf (LDS): %s" % w)
    w = why(args, path, "no_such_variable", fn_low)
    check(w["reason"] == "not_in_scope" and w["die"] is None, "why an unknown name: %s" % w)
    every = paths["every_kind.o"]
    w = why(args, every, "u", 4)
    check(w["reason"] == "optimized_out_at_pc", "why u at 4 (DW_OP_LLVM_undefined): %s" % w)
    w = why(args, every, "vnolane", 4)
    check(w["reason"] == "no_lane" and w["location_kind"] == "vgpr", "why vnolane: %s" % w)
    w = why(args, every, "mem", 20)
    check(w["reason"] == "no_entry_at_pc" and w["nearest_before"] == [["0x0", "0x10"]] and
          w["nearest_after"] == [["0x20", "0x30"]], "why mem in its gap: %s" % w)
    w = why(args, every, "c", 20)
    check(w["reason"] == "available" and w["location_kind"] == "implicit", "why c: %s" % w)


# ---- the picture ----

def png_pixels(path):
    """(width, height, rows of RGBA bytes) of an 8-bit RGBA or RGB PNG."""
    data = open(path, "rb").read()
    pos, idat, width, height, ctype = 8, b"", 0, 0, 6
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def pixel(img, x, y):
    width, height, bpp, rows = img
    if not (0 <= x < width and 0 <= y < height):
        return "outside the %dx%d picture" % (width, height)
    return "#%02x%02x%02x" % tuple(rows[y][x * bpp:x * bpp + 3])


COLOURS = {}  # kind -> colour, from the .def table the spec documents


def read_colours():
    text = open(os.path.join(HERE, "..", "..", "..", "libamddwarf", "include", "amddwarf",
                             "loc_kinds.def")).read()
    for m in re.finditer(r'AMDDWARF_LOC_KIND\(\w+,\s*"(\w+)",\s*"(#[0-9a-f]{6})"', text):
        COLOURS[m.group(1)] = m.group(2)


def check_band(img, label, fn, y, exp):
    """The band of FN (stats --json) drawn at Y: its range line, its inlined
    subroutines, each variable's segments (EXP: from llvm-dwarfdump, or None
    for every_kind's hand-made table) and widest gap. Returns its height."""
    # layout of specs/stats.md: bands from x 200, 780 wide; a function's title
    # row 20 high, then 12 per variable, bars 10 high; 8 after each band
    low = min(int(r[0], 16) for r in fn["ranges"])
    high = max(int(r[1], 16) for r in fn["ranges"])

    def x_of(pc):
        return 200 + (pc - low) * 780.0 / (high - low)
    lo, hi = (int(v, 16) for v in fn["ranges"][0])
    xm = int((x_of(lo) + x_of(hi)) / 2)
    check(pixel(img, xm, y + 6) == "#000000",
          "%s %s: range line at (%d, %d): %s" % (label, fn["name"], xm, y + 6,
                                                pixel(img, xm, y + 6)))
    for lo, hi in ((int(a, 16), int(b, 16)) for a, b in fn["inlined"]):
        xm = int((x_of(lo) + x_of(hi)) / 2)
        check(pixel(img, xm, y + 13) == "#ffbb00",
              "%s %s: inlined range marked at x %d: %s" % (label, fn["name"], xm,
                                                           pixel(img, xm, y + 13)))
    row = y + 20
    for v in fn["variables"]:
        # the segments as llvm-dwarfdump gives the entries (every_kind: by hand)
        if exp is not None:
            e = exp[int(v["die"], 16)]
            spans = ([(l, h) for l, h in e["scope_ranges"]] if e["entries"] == "all" else
                     [(max(l, sl), min(h, sh)) for l, h, t in (e["entries"] or []) if t
                      for sl, sh in e["scope_ranges"] if min(h, sh) > max(l, sl)])
        else:
            spans = [(l, h) for l, h, k, lane in EVERY_KIND[v["name"]][4]]
            kinds = [k for l, h, k, lane in EVERY_KIND[v["name"]][4]]
        for i, (lo, hi) in enumerate(spans):
            x0, x1 = x_of(lo), x_of(hi)
            if x1 - x0 < 3:
                continue
            kind = kinds[i] if exp is None else v["segments"][i]["kind"]
            xm = int((x0 + x1) / 2)
            check(pixel(img, xm, row + 5) == COLOURS[kind],
                  "%s %s.%s [0x%x, 0x%x): pixel (%d, %d) %s, expected %s (%s)" %
                  (label, fn["name"], v["name"], lo, hi, xm, row + 5,
                   pixel(img, xm, row + 5), COLOURS[kind], kind))
        # a gap: the middle of the widest uncovered stretch is white
        edges = sorted(spans)
        cursor, gap = low, None
        for lo, hi in edges + [(high, high)]:
            if lo - cursor > (high - low) // 20 and (gap is None or lo - cursor > gap[1] - gap[0]):
                gap = (cursor, lo)
            cursor = max(cursor, hi)
        if gap is not None:
            xm = int((x_of(gap[0]) + x_of(gap[1])) / 2)
            check(pixel(img, xm, row + 5) == "#ffffff",
                  "%s %s.%s: gap [0x%x, 0x%x) white at %d: %s" %
                  (label, fn["name"], v["name"], gap[0], gap[1], xm,
                   pixel(img, xm, row + 5)))
        row += 12
    return 20 + 12 * len(fn["variables"]) + 8


def check_missing_row(img, label, name, y):
    """The title row of a function the other build lacks: a grey bar over
    the whole band at y + 4, 6 high (specs/stats.md)."""
    for x in (201, 590, 979):
        check(pixel(img, x, y + 6) == "#bbbbbb",
              "%s: %s's missing row at (%d, %d): %s" % (label, name, x, y + 6,
                                                      pixel(img, x, y + 6)))
    return 20 + 8


def check_svg(args, objects):
    if missing_tool("rsvg-convert"):
        return
    read_colours()
    for label in ("every_kind.o", "cl-gfx900-O2.o"):
        path = dict(objects)[label]
        svg = os.path.join(args.work, label + ".svg")
        png = os.path.join(args.work, label + ".png")
        doc = stats_json(args, path, "--svg", svg)
        run_ok(["rsvg-convert", svg, "-o", png])
        img = png_pixels(png)
        exp = expected_variables(path) if label != "every_kind.o" else None
        y = 0
        for fn in doc["files"][0]["functions"]:
            y += check_band(img, label, fn, y, exp)
    check_svg_diff(args, objects)


def check_svg_diff(args, objects):
    """stats --diff --svg both ways between -O0 and -O2: -O2 inlines scale
    everywhere, so it is a function of BASE only one way and of NEW only the
    other. Each BASE function's band, its NEW match under it (matched here
    by name, declaration file's base name and line) or a grey missing row,
    then NEW's unmatched functions under a missing row."""
    objs = dict(objects)
    for base_label, new_label in (("cl-gfx900-O0.o", "cl-gfx900-O2.o"),
                                  ("cl-gfx900-O2.o", "cl-gfx900-O0.o")):
        label = "diff %s %s" % (base_label, new_label)
        svg = os.path.join(args.work, "diff-%s-%s.svg" % (base_label, new_label))
        png = svg[:-4] + ".png"
        run_ok([args.amddwarf, "stats", "--diff", objs[base_label], objs[new_label],
                "--svg", svg])
        run_ok(["rsvg-convert", svg, "-o", png])
        img = png_pixels(png)
        sides = [stats_json(args, objs[l])["files"][0]["functions"]
                 for l in (base_label, new_label)]
        exps = [expected_variables(objs[l]) for l in (base_label, new_label)]

        def key(fn):
            return (fn["name"], os.path.basename(fn["decl_file"]), fn["decl_line"])
        unmatched = list(sides[1])
        only = [[], []]
        y = 0
        for fn in sides[0]:
            y += check_band(img, label, fn, y, exps[0])
            match = [g for g in unmatched if key(g) == key(fn)]
            if match:
                unmatched.remove(match[0])
                y += check_band(img, label, match[0], y, exps[1])
            else:
                only[0].append(fn["name"])
                y += check_missing_row(img, label, fn["name"], y)
        for g in unmatched:
            only[1].append(g["name"])
            y += check_missing_row(img, label, g["name"], y)
            y += check_band(img, label, g, y, exps[1])
        width, height = img[0], img[1]
        check(height == y, "%s: picture %d high, the layout %d" % (label, height, y))
        expected_only = [["scale"], []] if base_label.endswith("O0.o") else [[], ["scale"]]
        check(only == expected_only, "%s: functions of one side only %s" % (label, only))


def main():
    args = arguments(__doc__)
    if missing_tool(CLANG, LLD, DWARFDUMP):
        return 0
    objects = build(args)
    check_llvm_keys(args, objects)
    check_per_variable(args, objects)
    check_every_kind(args, dict(objects)["every_kind.o"])
    check_quirks_legacy_and_lds(args, objects)
    check_cfi(args, objects)
    check_container(args)
    check_diff(args, objects)
    check_why(args, objects)
    check_svg(args, objects)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
