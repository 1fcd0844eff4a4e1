#!/usr/bin/env python3
"""Architecture queries against independent tools.

1. For every processor `amddwarf arch --json` lists, the breakpoint
   instruction bytes must be what llvm-mc-19 -mcpu=PROCESSOR encodes for the
   instruction text we report ("s_trap 7"), and its size the encoding's size
   (processors newer than LLVM 19 are skipped and listed).
2. Real code objects built by clang-19 -target amdgcn-amd-amdhsa for target
   IDs with and without xnack/sramecc settings: `amddwarf arch OBJECT --json`
   must name the processor and feature settings that llvm-readelf-19 -h
   prints for the same e_flags, and the wave size clang compiled for.
"""
import json
import pathlib
import re
import sys

from corpus_util import LLVM_MC, arguments, check, compile_opencl, run, summary

READELF = "llvm-readelf-19"

# (target ID given to clang, extra clang flags, expected wave size)
OBJECTS = [
    ("gfx900", [], 64),
    ("gfx906:sramecc+:xnack-", [], 64),
    ("gfx90a:xnack+", [], 64),
    ("gfx90a:sramecc-", [], 64),
    ("gfx1030", [], 32),
    ("gfx1030", ["-mwavefrontsize64"], 64),
    ("gfx1100", [], 32),
]

KERNEL = "__kernel void k(__global int *p) { p[get_global_id(0)] *= 2; }\n"


def mc_encoding(processor, text):
    done = run([LLVM_MC, "-arch=amdgcn", f"-mcpu={processor}", "-show-encoding"],
               stdin=text + "\n")
    if "not a recognized processor" in done.stderr:
        return "unknown"
    m = re.search(r"encoding: \[([^\]]*)\]", done.stdout)
    if not m:
        return None
    return bytes(int(b, 16) for b in m.group(1).split(","))


def readelf_features(path):
    """(processor, {feature: '+'|'-'|'any'}) from llvm-readelf -h's Flags line."""
    out = run([READELF, "-h", str(path)]).stdout
    m = re.search(r"Flags:\s+0x[0-9a-fA-F]+, ([^\n]*)", out)
    items = [s.strip() for s in m.group(1).split(",")]
    feats = {}
    for item in items[1:]:
        if item.endswith("+") or item.endswith("-"):
            feats[item[:-1]] = "on" if item.endswith("+") else "off"
        else:
            feats[item] = "any"
    return items[0], feats


def main():
    args = arguments(__doc__)
    work = pathlib.Path(args.work) / "arch"
    work.mkdir(parents=True, exist_ok=True)

    listing = json.loads(run([args.amddwarf, "arch", "--json"]).stdout)["architectures"]
    check(len(listing) == 31, f"31 processors listed, got {len(listing)}")
    for a in listing:
        enc = mc_encoding(a["processor"], a["breakpoint_instruction_text"])
        if enc == "unknown":
            # Newer than LLVM 19 (gfx950, gfx1153): nothing to compare with.
            print(f"skip: llvm-mc-19 does not know {a['processor']}")
            continue
        ours = bytes.fromhex(a["breakpoint_instruction"])
        check(enc is not None and enc == ours,
              f"{a['processor']}: breakpoint {ours.hex()} vs llvm-mc {enc.hex() if enc else None}")
        check(a["breakpoint_instruction_size"] == len(ours),
              f"{a['processor']}: breakpoint size")

    src = work / "k.cl"
    src.write_text(KERNEL)
    for i, (target, flags, wave) in enumerate(OBJECTS):
        obj = work / f"k{i}.o"
        try:
            compile_opencl(str(src), str(obj), target, ["-O1", "-g"] + flags)
        except RuntimeError as e:
            check(False, f"clang {target}: {e}")
            continue
        processor, feats = readelf_features(obj)
        out = run([args.amddwarf, "arch", str(obj), "--json"])
        if out.returncode != 0:
            check(False, f"{target}: amddwarf arch failed: {out.stderr}")
            continue
        a = json.loads(out.stdout)["architectures"][0]
        check(a["processor"] == processor, f"{target}: processor {a['processor']} vs {processor}")
        for feature in ("xnack", "sramecc"):
            expected = feats.get(feature, "unsupported")
            check(a[feature] == expected,
                  f"{target}: {feature} {a[feature]} vs llvm-readelf {expected}")
        check(a["wave_size"] == wave, f"{target} {flags}: wave size {a['wave_size']} vs {wave}")

    return summary()


if __name__ == "__main__":
    sys.exit(main())
