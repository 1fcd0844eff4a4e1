#!/usr/bin/env python3
"""Code objects written by `amddwarf build`, read back by independent tools.

Every description in tests/golden/produce/*.json is built in every variant
(DWARF 4 and 5, 32- and 64-bit DWARF, relocatable and shared; the extension
descriptions also in the user, vendor and auto dialects and with the old and
current attribute codes), and each object must be:

1. readable by llvm-readelf-19: EM_AMDGPU, the right ELF type, e_flags naming
   the processor, the expected sections and symbols;
2. clean under `llvm-dwarfdump-19 --verify`, except "invalid DWARF
   expression" reports whose expression stops at an AMDGPU extension opcode
   (llvm-dwarfdump-19 cannot decode DW_OP_LLVM_user or the vendor range);
   descriptions without extension operations must verify with no error;
3. readable by libdwarf's dwarfdump (-a, with an AMDGPU register table
   configuration) with no ERROR;
4. what was described, as llvm-dwarfdump-19 prints it: the lane-PC location
   list of the seed's IF/THEN/ELSE nest maps each PC range to the procedures
   the seed's text names, each procedure's bytes are those the DWARF 5
   opcode table and the extension encodings (DESIGN.md section 6) give, and
   DW_CFA_LLVM_def_aspace_cfa(_sf) rows show the register, offset and
   address space written;
5. read by our own consumer: `amddwarf check` finds no problem, `amddwarf
   lines` agrees with llvm-dwarfdump-19 --debug-line, `amddwarf eval` gives
   the values a snapshot holds for every location idiom (VGPR lane, SGPR in a
   VGPR lane, private_lane off a private frame base, local, a pointer into
   local), and `amddwarf unwind` finds the CFA the CFI describes
   (DW_CFA_LLVM_def_aspace_cfa and _sf) and a caller's PC saved in memory.
"""
import functools
import json
import pathlib
import re
import sys

import corpus_util
from corpus_util import arguments, check, summary

DWARFDUMP = "llvm-dwarfdump-19"
READELF = "llvm-readelf-19"
LIBDWARF_DUMP = "dwarfdump"
HERE = pathlib.Path(__file__).resolve().parent
GOLDEN = HERE.parent / "golden" / "produce"

# No command of this test runs longer than this: a hang stops the test with
# an error instead of waiting for ctest's limit.
run = functools.partial(corpus_util.run, timeout=120)

OP_CALL_REF = 0x9a
OP_ADDR = 0x03
OP_STACK_VALUE = 0x9f
OP_DEREF_TYPE = 0xa6
OP_REGX = 0x90
OP_REGVAL_TYPE = 0xa5
EXT = {  # name -> (vendor opcode, user sub-opcode)
    "undefined": (0xe7, 0x08),
    "extend": (0xeb, 0x0b),
    "select_bit_piece": (0xec, 0x0c),
}


def uleb(v):
    out = []
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return out


def ext(name, dialect):
    vendor, user = EXT[name]
    if dialect in ("user", "auto"):  # auto encodes as current LLVM does
        return [0xE9] + uleb(user)
    return [vendor]


def le(v, size):
    return [(v >> (8 * i)) & 0xFF for i in range(size)]


# ---- parsing llvm-dwarfdump-19 output ---------------------------------------

DIE_RE = re.compile(r"^(0x[0-9a-f]+):\s+(DW_TAG_\w+|NULL)")
ATTR_RE = re.compile(r"^\s+(DW_AT_\w+)\s+\((.*)\)\s*$")


def parse_dies(text):
    """DIEs as dicts {offset, tag, attrs} from --debug-info output."""
    dies, current = [], None
    for line in text.splitlines():
        m = DIE_RE.match(line)
        if m:
            current = {"offset": int(m.group(1), 16), "tag": m.group(2), "attrs": {}}
            dies.append(current)
            continue
        m = ATTR_RE.match(line)
        if m and current is not None:
            current["attrs"][m.group(1)] = m.group(2)
    return dies


def die_named(dies, name):
    for d in dies:
        if d["attrs"].get("DW_AT_name") == f'"{name}"':
            return d
    return None


def expr_bytes(printed, format_size):
    """Bytes of an expression printed by llvm-dwarfdump-19 when it decodes
    only standard operations we use here, then gives up with
    '<decoding error> XX XX'."""
    out = []
    for part in printed.split(", "):
        part = part.strip()
        if part.startswith("<decoding error>"):
            out += [int(x, 16) for x in part.split()[2:]]
        elif part.startswith("DW_OP_call_ref "):
            out += [OP_CALL_REF] + le(int(part.split()[1], 16), format_size)
        elif part.startswith("DW_OP_addr "):
            out += [OP_ADDR] + le(int(part.split()[1], 16), 8)
        elif part == "DW_OP_stack_value":
            out += [OP_STACK_VALUE]
        elif part.startswith("DW_OP_regx "):
            # only PC_64 (llvm: PC_REG) appears in the procedures checked
            out += [OP_REGX] + uleb(16)
        else:
            raise ValueError("unexpected operation " + part)
    return out


def parse_list(text, list_offset):
    """Entries (kind, a, b, printed expression) of the list at LIST_OFFSET
    in --debug-loclists / --debug-loc output."""
    entries, inside = [], False
    for line in text.splitlines():
        if re.match(r"^0x[0-9a-f]+:\s*$", line.strip()) or re.match(r"^0x[0-9a-f]+: *$", line):
            inside = int(line.strip().rstrip(":"), 16) == list_offset
            continue
        if not inside:
            continue
        m = re.match(r"^\s+(DW_LLE_\w+)?\s*\((0x[0-9a-f]+), (0x[0-9a-f]+)\): (.*)$", line)
        if m:
            entries.append((m.group(1), int(m.group(2), 16), int(m.group(3), 16), m.group(4)))
        elif re.match(r"^\s+\[(0x[0-9a-f]+), (0x[0-9a-f]+)\): (.*)$", line):
            m = re.match(r"^\s+\[(0x[0-9a-f]+), (0x[0-9a-f]+)\): (.*)$", line)
            entries.append(("range", int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
        elif line.strip() == "" and entries:
            inside = False
    return entries


def addr_table(text):
    m = re.search(r"Addrs: \[\n(.*?)\]", text, re.S)
    return [int(x, 16) for x in m.group(1).split()] if m else []


# ---- variants ------------------------------------------------------------------


def variants(name, desc):
    extension = name != "plain"
    for version in (4, 5):
        for fmt in ("dwarf32", "dwarf64"):
            for kind in ("relocatable", "shared"):
                dialects = (("draft",) if name == "draft" else
                            ("user", "vendor", "auto") if extension else ("user",))
                for dialect in dialects:
                    for codes in (("current", "old") if extension else ("current",)):
                        d = json.loads(json.dumps(desc))
                        d.setdefault("dwarf", {})
                        d["dwarf"].update(version=version, format=fmt, dialect=dialect,
                                          attribute_codes=codes)
                        d["object"]["type"] = kind
                        yield f"{name}-v{version}-{fmt}-{kind}-{dialect}-{codes}", d


def line_rows(obj, tag, desc):
    """llvm-dwarfdump-19's rows are the described rows (sorted, the default
    file 1, column 0, is_stmt true), then an end_sequence at the end of the
    unit's range; the file table names the described files."""
    base = 0x1000 if desc["object"]["type"] == "shared" else 0
    text = run([DWARFDUMP, "--debug-line", str(obj)]).stdout
    got = [(int(a, 16), int(l), int(c), int(f), "is_stmt" in flags, "end_sequence" in flags)
           for a, l, c, f, flags in re.findall(
               r"^0x([0-9a-f]{16})[ \t]+(\d+)[ \t]+(\d+)[ \t]+(\d+)[ \t]+\d+[ \t]+\d+[ \t]+\d+[ \t]*(.*)$",
               text, re.M)]
    unit = desc["units"][0]
    rows = sorted(unit.get("lines", []), key=lambda r: r["offset"])
    want = [(base + r["offset"], r["line"], r.get("column", 0), r.get("file", 1),
             r.get("is_stmt", True), False) for r in rows]
    if want:
        funcs = unit.get("functions", [])
        end = max(f["high"] for f in funcs) if funcs else None
        last = want[-1]
        want.append((base + end, last[1], last[2], last[3], last[4], True))
    check(got == want, f"{tag}: line rows {got} != {want}")
    for index, f in enumerate(unit.get("files", []), start=1):
        m = re.search(rf"file_names\[\s*{index}\]:\n\s+name: \"([^\"]*)\"\n\s+dir_index: (\d+)",
                      text)
        ok = m is not None and m.group(1) == f["name"]
        if ok and f.get("dir") and f["dir"] != unit.get("comp_dir"):
            d = re.search(rf"include_directories\[\s*{m.group(2)}\] = \"([^\"]*)\"", text)
            ok = d is not None and d.group(1) == f["dir"]
        check(ok, f"{tag}: file {index} {f}")


def verify(obj, tag, expect_clean):
    done = run([DWARFDUMP, "--verify", str(obj)])
    text = done.stdout + done.stderr
    if expect_clean:
        return check(done.returncode == 0 and "No errors." in text,
                     f"{tag}: llvm-dwarfdump --verify: {text[-600:]}")
    # Every error must be an expression that stops at an extension opcode.
    blocks = re.findall(r"error: DIE contains invalid DWARF expression:\n\n(.*?)\n\n", text,
                        re.S)
    ok = True
    for block in blocks:
        m = re.search(r"DW_AT_location \[DW_FORM_exprloc\]\s*\((.*)\)", block)
        stop = re.search(r"<decoding error> ([0-9a-f]{2})", m.group(1)) if m else None
        if not stop or not 0xE1 <= int(stop.group(1), 16) <= 0xEC:
            ok = False
            print("  unexpected:", block)
    others = [l for l in text.splitlines() if l.startswith("error:") and
              "invalid DWARF expression" not in l and "Aggregated" not in l and
              "Invalid DWARF expressions occurred" not in l]
    return check(ok and not others, f"{tag}: verify errors other than extension opcodes: "
                 f"{others[:3]}")


def readelf(obj, tag, desc):
    done = run([READELF, "-h", "-S", "-s", str(obj)])
    text = done.stdout
    proc = desc["object"].get("processor", "gfx900")
    kind = "DYN" if desc["object"]["type"] == "shared" else "REL"
    check(done.returncode == 0 and "EM_AMDGPU" in text, f"{tag}: readelf machine")
    check(re.search(rf"Type:\s+{kind}", text) is not None, f"{tag}: readelf type {kind}")
    check(re.search(rf"Flags:\s+0x[0-9a-fA-F]+, {proc}\b", text) is not None,
          f"{tag}: readelf flags name {proc}")
    version = desc["dwarf"]["version"]
    want = [".text", ".debug_info", ".debug_abbrev", ".debug_str", ".debug_line", ".symtab"]
    want.append(".debug_addr" if version == 5 else ".debug_info")
    for section in want:
        check(f" {section} " in text, f"{tag}: section {section}")
    for sym in desc.get("symbols", []):
        check(re.search(rf"\s{re.escape(sym['name'])}$", text, re.M) is not None,
              f"{tag}: symbol {sym['name']}")


def libdwarf(obj, tag, cie_augmented):
    """libdwarf's dwarfdump reads everything; the only errors allowed are
    location expressions it stops in at an AMDGPU extension opcode (it knows
    neither DW_OP_LLVM_user nor the vendor range) and, when the CIE carries
    the "[amd:v0.0]" augmentation, its refusal of an augmentation it does not
    know (the plain descriptions check its reading of .debug_frame)."""
    conf = HERE / "produce" / "dwarfdump.conf"
    done = run([LIBDWARF_DUMP, "-a", "-x", f"name={conf}", "-x", "abi=amdgpu", str(obj)])
    text = done.stdout + done.stderr
    bad = []
    for line in text.splitlines():
        if "ERROR" not in line or line.startswith("There were"):
            continue
        m = re.search(r"DW_DLE_LOC_EXPR_BAD as DW_OP atom (0x[0-9a-f]+)", line)
        if m and 0xE1 <= int(m.group(1), 16) <= 0xEC:
            continue
        if cie_augmented and ("DW_DLE_FRAME_AUGMENTATION_UNKNOWN" in line or
                              "printing standard frame data had a problem" in line):
            continue
        bad.append(line)
    check(done.returncode == 0 and not bad, f"{tag}: dwarfdump: rc {done.returncode} {bad[:3]}")


# The seed's nest (seed_nest.json): $lex_1_start 0x0c, $lex_1_then 0x10,
# $lex_1_1_start 0x1c, $lex_1_1_then 0x20, $lex_1_1_else 0x28,
# $lex_1_1_end 0x30, $lex_1_else 0x38, $lex_1_end 0x40, $lex_end 0x44.
# The procedure each range uses, from the seed's DBG_VALUEs; at $lex_1_1_end
# the enclosing THEN region's procedure (the lanes that go to ELSE wait at
# $lex_1_start, as the seed's text says), where the seed's listing writes
# __divergent_lane_pc.
SEED_RANGES = [
    (0x00, 0x10, "__divergent_lane_pc"),
    (0x10, 0x20, "__divergent_lane_pc_1_then"),
    (0x20, 0x28, "__divergent_lane_pc_1_1_then"),
    (0x28, 0x30, "__divergent_lane_pc_1_1_else"),
    (0x30, 0x38, "__divergent_lane_pc_1_then"),
    (0x38, 0x40, "__divergent_lane_pc_1_else"),
    (0x40, 0x44, "__divergent_lane_pc"),
]
# procedure -> (enclosing procedure, seed label offset, saved-EXEC variable)
SEED_PROCS = {
    "__divergent_lane_pc_1_then": ("__divergent_lane_pc", 0x0C, "__lex_1_save_exec"),
    "__divergent_lane_pc_1_else": ("__divergent_lane_pc", 0x40, "__lex_1_save_exec"),
    "__divergent_lane_pc_1_1_then": ("__divergent_lane_pc_1_then", 0x1C, "__lex_1_1_save_exec"),
    "__divergent_lane_pc_1_1_else": ("__divergent_lane_pc_1_then", 0x30, "__lex_1_1_save_exec"),
}


def seed_content(obj, tag, desc):
    version = desc["dwarf"]["version"]
    dialect = desc["dwarf"]["dialect"]
    osz = 8 if desc["dwarf"]["format"] == "dwarf64" else 4
    base = 0x1000 if desc["object"]["type"] == "shared" else 0
    lane_pc_at = "DW_AT_unknown_3e0b" if desc["dwarf"]["attribute_codes"] == "old" \
        else "DW_AT_unknown_3e12"
    info = run([DWARFDUMP, "--debug-info", str(obj)]).stdout
    dies = parse_dies(info)
    sub = die_named(dies, "X")
    if not check(sub is not None and lane_pc_at in sub["attrs"], f"{tag}: {lane_pc_at} on X"):
        return
    list_offset = int(sub["attrs"][lane_pc_at], 16)
    lists = run([DWARFDUMP, "--debug-loclists" if version == 5 else "--debug-loc",
                 "--debug-addr", str(obj)]).stdout
    entries = parse_list(lists, list_offset)
    addrs = addr_table(lists)
    active = die_named(dies, "__active_lane_pc")
    got = []
    for kind, a, b, printed in entries:
        if kind == "DW_LLE_startx_length":
            start, end = addrs[a], addrs[a] + b
        else:  # DWARF 4: offsets from the unit's base address (low_pc = text start)
            start, end = base + a, base + b
        got.append((start, end, expr_bytes(printed, osz)))
    want = []
    for start, end, proc in SEED_RANGES:
        p = die_named(dies, proc)
        want.append((base + start, base + end,
                     [OP_CALL_REF] + le(p["offset"] if p else 0, osz) +
                     [OP_CALL_REF] + le(active["offset"] if active else 0, osz)))
    check(got == want, f"{tag}: lane-PC list {got} != {want}")
    # the procedures, byte for byte
    u64 = die_named(dies, "__uint64")
    cu_off = 0  # the single unit starts at 0
    for proc, (parent, label, var) in SEED_PROCS.items():
        d, p, v = die_named(dies, proc), die_named(dies, parent), die_named(dies, var)
        if not check(d and p and v and u64, f"{tag}: DIEs of {proc}"):
            continue
        printed = re.sub(r"^\(|\)$", "", d["attrs"]["DW_AT_location"])
        want = ([OP_CALL_REF] + le(p["offset"], osz) + [OP_ADDR] + le(base + label, 8) +
                [OP_STACK_VALUE] + ext("extend", dialect) + [64, 64] +
                [OP_CALL_REF] + le(v["offset"], osz) +
                [OP_DEREF_TYPE, 8] + uleb(u64["offset"] - cu_off) +
                ext("select_bit_piece", dialect) + [64, 64])
        check(expr_bytes(d["attrs"]["DW_AT_location"], osz) == want,
              f"{tag}: {proc} bytes {printed}")
    d = die_named(dies, "__divergent_lane_pc")
    check(d is not None and expr_bytes(d["attrs"]["DW_AT_location"], osz) ==
          ext("undefined", dialect) + ext("extend", dialect) + [64, 64],
          f"{tag}: __divergent_lane_pc bytes")
    check(active is not None and expr_bytes(active["attrs"]["DW_AT_location"], osz) ==
          [OP_REGX, 16] + ext("extend", dialect) + [64, 64] +
          [OP_REGVAL_TYPE, 17] + uleb(u64["offset"] - cu_off) +
          ext("select_bit_piece", dialect) + [64, 64], f"{tag}: __active_lane_pc bytes")
    # CFI: what llvm-dwarfdump-19 prints of the AMDGPU CFA instructions
    frame = run([DWARFDUMP, "--debug-frame", str(obj)]).stdout
    check("DW_CFA_LLVM_def_aspace_cfa: SGPR32_LO16 +0 in addrspace6" in frame,
          f"{tag}: def_aspace_cfa printed")
    check("DW_CFA_LLVM_def_aspace_cfa_sf: SGPR33_LO16 -8 in addrspace5" in frame,
          f"{tag}: def_aspace_cfa_sf printed (-2 x data alignment 4)")
    check(re.search(rf"0x{base + 4:x}: CFA=SGPR33_LO16-8 in addrspace5", frame) is not None,
          f"{tag}: CFA row after advance_loc 1 (x code alignment 4)")
    check("Augmentation:          \"[amd:v0.0]\"" in frame, f"{tag}: CIE augmentation")


def plain_content(obj, tag, desc, amddwarf):  # noqa: C901
    frame = run([DWARFDUMP, "--debug-frame", str(obj)]).stdout
    base = 0x1000 if desc["object"]["type"] == "shared" else 0
    # DWARF registers 64-67 are SGPR32-35, 16 is PC_64, 17 EXEC_MASK_64;
    # offsets are factored by the data alignment 4, advances by the code
    # alignment 4.
    for text in ("DW_CFA_def_cfa: SGPR32_LO16 +0", "DW_CFA_same_value: SGPR33_LO16",
                 "DW_CFA_offset: PC_REG 8", f"DW_CFA_advance_loc: 8 to 0x{base + 0x88:x}",
                 "DW_CFA_def_cfa_offset: +16", "DW_CFA_register: SGPR33_LO16 SGPR34_LO16",
                 f"DW_CFA_advance_loc1: 32 to 0x{base + 0xa8:x}",
                 "DW_CFA_remember_state:", "DW_CFA_restore_state:",
                 "DW_CFA_val_offset: EXEC 4", "DW_CFA_expression: SGPR35_LO16 "
                 "DW_OP_bregx SGPR32_LO16+4", "Return address column: 16",
                 "Code alignment factor: 4", "Data alignment factor: 4",
                 f"0x{base + 0x88:x}: CFA=SGPR32_LO16+16: PC_REG=[CFA+8]",
                 f"0x{base + 0xa8:x}: CFA=SGPR32_LO16+16: PC_REG=[CFA+8], EXEC=CFA+4"):
        check(text in frame, f"{tag}: debug-frame has '{text}'")
    # our consumer's line table against llvm-dwarfdump-19's
    lines = run([DWARFDUMP, "--debug-line", str(obj)]).stdout
    rows = re.findall(r"^0x([0-9a-f]{16})[ \t]+(\d+)[ \t]+(\d+)[ \t]+(\d+)[ \t]+\d+[ \t]+\d+[ \t]+\d+[ \t]*(.*)$",
                      lines, re.M)
    for address, line, column, file_index, flags in rows:
        if "end_sequence" in flags:
            continue
        done = run([amddwarf, "lines", str(obj), f"0x{int(address, 16):x}"])
        check(done.returncode == 0 and f":{int(line)}:{int(column)}" in done.stdout,
              f"{tag}: amddwarf lines 0x{address} -> line {line}:{column}: {done.stdout}"
              f"{done.stderr}")


def snapshot(work, tag, doc):
    path = work / f"{tag}.state.json"
    path.write_text(json.dumps(doc))
    return str(path)


def round_trip(obj, tag, desc, amddwarf, work, name):
    """Our consumer on what we wrote: check, eval of every idiom, unwind."""
    base = 0x1000 if desc["object"]["type"] == "shared" else 0
    dialect = ["--dialect", "draft"] if name == "draft" else []
    done = run([amddwarf, "check", str(obj)] + dialect)
    check(done.returncode == 0, f"{tag}: amddwarf check: {done.stdout[-300:]}{done.stderr[-300:]}")
    if name == "regions":
        # wave32, lane 2 in focus; values chosen here, locations from the
        # description: v3 lane dword, s spilled to v40 lane 3 (byte 12),
        # private_lane at (s33 >> 5) + 16, local 0x100, a local pointer in s10
        state = snapshot(work, tag, {
            "architecture": "gfx1030", "wave_size": 32, "pc": hex(base + 0x20),
            "exec": "0x0f", "lane": 2,
            "registers": {"v3": [100, 101, 102, 103], "v40": [0, 0, 0, 77],
                          "s33": "0x800", "s10": "0x40", "s20": "0xf", "s21": "0x3"},
            "memory": [
                {"address_space": "private_lane", "lane": 2, "address": "0x50",
                 "bytes": "0000803f000000400000404000008040"},
                {"address_space": "local", "address": "0x100", "bytes": "2a000000"},
                {"address_space": "local", "address": "0x40", "bytes": "07000000"}]})
        for expr, want in (("lane_val", "lane_val = 102"), ("spilled_s", "spilled_s = 77"),
                           ("priv", "priv = {1, 2, 3, 4}"), ("shared", "shared = 42"),
                           ("ptr", "ptr = (int *) 0x40 [local]"), ("*ptr", "*ptr = 7")):
            done = run([amddwarf, "eval", str(obj), "--state", state, expr])
            check(done.returncode == 0 and done.stdout.strip() == want,
                  f"{tag}: eval {expr}: {done.stdout.strip()!r} {done.stderr.strip()}")
    if name == "draft":
        # the seed draft's encodings (push_lane 0xea, offset 0xe9,
        # form_aspace_address 0xe7) need an explicit --dialect draft
        state = snapshot(work, tag, {
            "architecture": "gfx906", "pc": hex(base + 0x10), "exec": "0xf", "lane": 1,
            "registers": {"v3": [100, 101], "v40": [0, 0, 0, 55]},
            "memory": [{"address_space": "local", "address": "0x100", "bytes": "2b000000"}]})
        for expr, want in (("lane_val", "lane_val = 101"), ("spilled_s", "spilled_s = 55"),
                           ("shared", "shared = 43")):
            done = run([amddwarf, "eval", str(obj), "--dialect", "draft", "--state", state, expr])
            check(done.returncode == 0 and done.stdout.strip() == want,
                  f"{tag}: eval {expr}: {done.stdout.strip()!r} {done.stderr.strip()}")
    if name == "seed_nest":
        state = snapshot(work, tag, {
            "architecture": "gfx900", "pc": hex(base + 8), "exec": "0xf",
            "registers": {"s32": "0x100", "s33": "0x40", "v1": [10, 11, 12, 13]}})
        done = run([amddwarf, "eval", str(obj), "--state", state, "--lanes", "0,1,2,3", "i"])
        rows = re.findall(r"^\s+(\d+)\s+(\d+)$", done.stdout, re.M)
        check(rows == [("0", "10"), ("1", "11"), ("2", "12"), ("3", "13")],
              f"{tag}: eval i for lanes 0-3: {done.stdout} {done.stderr}")
        # after DW_CFA_advance_loc 1: CFA = s33 - 2 * 4 in private_lane
        done = run([amddwarf, "unwind", str(obj), "--state", state, "--json"])
        try:
            frames = json.loads(done.stdout)["frames"]
            cfa = frames[0]["cfa"]
            ok = (cfa["address"], cfa["address_space"]) == ("0x38",
                                                             "DW_ASPACE_AMDGPU_private_lane")
        except (ValueError, KeyError, IndexError):
            ok = False
        check(ok, f"{tag}: unwind CFA at +8: {done.stdout[:300]} {done.stderr}")
        # before it: the CIE's CFA = s32 + 0 in private_wave
        state = snapshot(work, tag + "-0", {
            "architecture": "gfx900", "pc": hex(base), "exec": "0x3",
            "registers": {"s32": "0x100", "s33": "0x40"}})
        done = run([amddwarf, "unwind", str(obj), "--state", state, "--json"])
        try:
            cfa = json.loads(done.stdout)["frames"][0]["cfa"]
            ok = (cfa["address"], cfa["address_space"]) == ("0x100",
                                                             "DW_ASPACE_AMDGPU_private_wave")
        except (ValueError, KeyError, IndexError):
            ok = False
        check(ok, f"{tag}: unwind CFA at +0: {done.stdout[:300]} {done.stderr}")
    if name == "plain":
        # helper at +0x90: CFA = s32 + 16 (global), PC_64 saved at CFA + 8
        state = snapshot(work, tag, {
            "architecture": "gfx90a", "pc": hex(base + 0x90), "exec": "0x3",
            "registers": {"s32": "0x100", "s33": "0x40"},
            "memory": [{"address_space": "global", "address": "0x118",
                        "bytes": (base + 0x10).to_bytes(8, "little").hex()}]})
        done = run([amddwarf, "unwind", str(obj), "--state", state, "--json"])
        try:
            frames = json.loads(done.stdout)["frames"]
            ok = (frames[0]["cfa"]["address"] == "0x110" and
                  frames[1]["pc"] == hex(base + 0x10))
        except (ValueError, KeyError, IndexError):
            ok = False
        check(ok, f"{tag}: unwind to the caller: {done.stdout[:400]} {done.stderr}")


def main():
    args = arguments(__doc__)
    work = pathlib.Path(args.work)
    for path in sorted(GOLDEN.glob("*.json")):
        if path.name.startswith("bad_"):
            continue
        desc = json.loads(path.read_text())
        for tag, d in variants(path.stem, desc):
            src = work / f"{tag}.json"
            obj = work / f"{tag}.o"
            src.write_text(json.dumps(d))
            done = run([args.amddwarf, "build", str(src), "-o", str(obj)])
            if not check(done.returncode == 0, f"{tag}: build: {done.stderr}"):
                continue
            readelf(obj, tag, d)
            line_rows(obj, tag, d)
            verify(obj, tag, expect_clean=path.stem == "plain")
            augmented = any(c.get("augmentation") for c in d.get("cfi", {}).get("cies", []))
            libdwarf(obj, tag, augmented)
            if path.stem == "seed_nest":
                seed_content(obj, tag, d)
            if path.stem == "plain":
                plain_content(obj, tag, d, args.amddwarf)
            round_trip(obj, tag, d, args.amddwarf, work, path.stem)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
