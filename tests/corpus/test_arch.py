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
import argparse
import json
import pathlib
import re
import subprocess
import sys

LLVM_MC = "llvm-mc-19"
CLANG = "clang-19"
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


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def mc_encoding(processor, text):
    done = run([LLVM_MC, "-arch=amdgcn", f"-mcpu={processor}", "-show-encoding"],
               input=text + "\n")
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
    ap = argparse.ArgumentParser()
    ap.add_argument("--amddwarf", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--build")
    args = ap.parse_args()
    work = pathlib.Path(args.work) / "arch"
    work.mkdir(parents=True, exist_ok=True)
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print(f"FAIL: {what}")

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
        done = run([CLANG, "-target", "amdgcn-amd-amdhsa", f"-mcpu={target}", "-nogpulib",
                    "-O1", "-g", "-c", str(src), "-o", str(obj)] + flags)
        if done.returncode != 0:
            check(False, f"clang {target}: {done.stderr.strip()}")
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

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
