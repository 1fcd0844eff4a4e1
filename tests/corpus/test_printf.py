#!/usr/bin/env python3
"""Debug-printf metadata in real ELF files, checked with independent tools.

1. `amddwarf printf-build` writes PAL metadata, an ELF carrying it and a
   printf buffer from a JSON description. `llvm-readelf-19 --notes` must decode
   the note as AMDGPU metadata and show every string with its .index,
   .argument_count and .64bit_arguments as described.
2. The note section is cut out of that ELF with `llvm-objcopy-19 --dump-section`
   and added with `llvm-objcopy-19 --add-section .note.pal=...` to an object
   that clang-19 compiled for amdgcn-amd-amdhsa (which already carries its own
   NT_AMDGPU_METADATA note with amdhsa.* metadata and no format strings).
   llvm-readelf-19 must list both notes, and `amddwarf printf --elf` on that
   object must find the strings.
3. The messages `amddwarf printf --json` prints are compared with Python's
   own %-formatting (C printf semantics) of the same values: an oracle that
   shares no code with the library.
4. A 3 GiB sparse buffer file is decoded by the CLI with a peak RSS at most
   32 MiB above the CLI's own on the small buffer (measured by a separate
   interpreter around the CLI alone; the difference, not the total, so that
   a sanitizer's fixed overhead does not count).
"""
import json
import pathlib
import re
import struct
import sys

import corpus_util
from corpus_util import CLANG, LLD, arguments, run, summary

READELF = "llvm-readelf-19"
OBJCOPY = "llvm-objcopy-19"

# (id, format, kinds, values); Python's % operator is the oracle, so only
# directives it shares with C are used (it has no %a and no ll).
STRINGS = [
    (12345678, "Sample %i format %f", ["i32", "f32"], [-42, 0.25]),
    (31415926, "Another format string: %f %f", ["f32", "f32"], [1.5, -2.0]),
    (0x1234ABCD5678, "w=%-8d|%08.3f|%+e|%#x|%o|%c|%5.1g%%", ["i32", "f64", "f32", "u32", "u32", "i32", "f64"],
     [-17, 3.14159, 1024.5, 48879, 8, 65, 0.000123]),
    (0xFFFFFFFFFFFF, "wide %ld %lu %lX", ["i64", "u64", "u64"], [-9000000000, 2**64 - 1, 0xDEADBEEFCAFE]),
    (7, "bytes %u %d halves %.4f", ["i8", "i16", "f16"], [200, 65535, 0.5]),
]


def c_value(kind, value):
    """The value as the shader packs it and the format reads it back."""
    if kind == "f32":
        return struct.unpack("<f", struct.pack("<f", value))[0]
    if kind in ("i8", "u8"):
        return value & 0xFF
    if kind in ("i16", "u16"):
        return value & 0xFFFF
    if kind in ("i32", "u32"):
        v = value & 0xFFFFFFFF
        return v
    if kind in ("i64", "u64"):
        return value & (2**64 - 1)
    return value


def oracle(fmt, kinds, values):
    """Python % formatting with C's argument conversions applied."""
    args = []
    conversions = re.findall(r"%[-+ #0]*\d*(?:\.\d+)?l*([a-zA-Z%])", fmt)
    conversions = [c for c in conversions if c != "%"]
    for conv, kind, value in zip(conversions, kinds, values):
        v = c_value(kind, value)
        if conv in "di":
            bits = 64 if kind in ("i64", "u64") else 32
            if v >= 2 ** (bits - 1):
                v -= 2**bits
        elif conv == "c":
            v = chr(v & 0xFF)
        args.append(v)
    return fmt.replace("%ld", "%d").replace("%lu", "%u").replace("%lX", "%X") % tuple(args)


def description():
    strings, entries = [], []
    for ident, fmt, kinds, values in STRINGS:
        strings.append({"id": hex(ident), "format": fmt, "args": kinds})
        args = []
        for kind, value in zip(kinds, values):
            if kind in ("u64", "i64"):
                value = hex(value & (2**64 - 1))
            args.append({kind: value})
        entries.append({"id": hex(ident), "args": args})
    return {"strings": strings, "buffer": {"entries": entries}}


def check(name, ok, detail=""):
    """One check named NAME; DETAIL says what was seen when it fails."""
    corpus_util.check(ok, name + ": " + detail)


def main():
    args = arguments(__doc__)
    work = pathlib.Path(args.work)

    desc = work / "desc.json"
    desc.write_text(json.dumps(description()))
    ours, meta, buf = work / "ours.elf", work / "meta.msgpack", work / "buffer.bin"
    done = run([args.amddwarf, "printf-build", str(desc), "--elf", str(ours), "--metadata",
                str(meta), "--buffer", str(buf)])
    check("printf-build", done.returncode == 0, done.stderr)

    # 1. llvm-readelf decodes our note.
    notes = run([READELF, "--notes", str(ours)]).stdout
    check("readelf sees NT_AMDGPU_METADATA", "NT_AMDGPU_METADATA" in notes, notes)
    indexes = [int(x) for x in re.findall(r"\.index:\s*(\d+)", notes)]
    for ident, fmt, _, _ in STRINGS:
        check(f"readelf shows .index {ident}", ident in indexes, str(indexes))
        # YAML quotes the string with ' (doubling ') or with " (escaping).
        check(f"readelf shows the string of {hex(ident)}",
              f"'{fmt}'" in notes or f'"{fmt}"' in notes, fmt)
    counts = [int(x) for x in re.findall(r"\.argument_count:\s*(\d+)", notes)]
    check("readelf argument counts", sorted(counts) == sorted(len(k) for _, _, k, _ in STRINGS),
          str(counts))
    masks = re.findall(r"\.64bit_arguments:\s*\n\s*-\s*(\d+)", notes)
    expected_masks = sorted(sum(1 << i for i, k in enumerate(kinds) if k in ("i64", "u64", "f64"))
                            for _, _, kinds, _ in STRINGS)
    check("readelf 64-bit masks", sorted(int(m) for m in masks) == expected_masks,
          f"{masks} vs {expected_masks}")

    # 2. The note added to a clang-19 object.
    source = work / "kernel.cl"
    source.write_text("__kernel void k(__global int *p) { p[0] = 1; }\n")
    obj = work / "kernel.o"
    done = run([CLANG, "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx900", "-nogpulib", "-c", "-O1",
                "-o", str(obj), str(source)])
    check("clang-19 compiles the kernel", done.returncode == 0, done.stderr)
    note = work / "note.bin"
    done = run([OBJCOPY, f"--dump-section=.note={note}", str(ours), str(work / "scratch.elf")])
    check("objcopy extracts .note", done.returncode == 0 and note.stat().st_size > 20,
          done.stderr)
    combined = work / "combined.o"
    done = run([OBJCOPY, "--add-section", f".note.pal={note}", str(obj), str(combined)])
    check("objcopy adds .note.pal", done.returncode == 0, done.stderr)
    notes = run([READELF, "--notes", str(combined)]).stdout
    check("readelf: two AMDGPU metadata notes",
          notes.count("NT_AMDGPU_METADATA") == 2 and "amdhsa.version" in notes
          and "amdpal.format_strings" in notes, notes[:2000])
    done = run([args.amddwarf, "printf", "--elf", str(combined), "--buffer", str(buf), "--json"])
    entries = json.loads(done.stdout)["entries"] if done.stdout.strip() else []
    messages = [entry["message"] for entry in entries if "message" in entry]
    check("amddwarf printf on the clang object", done.returncode == 0, done.stderr)
    # The clang object alone has metadata but no format strings.
    done = run([args.amddwarf, "printf", "--elf", str(obj), "--buffer", str(buf)])
    check("clang object alone: no strings, every entry unknown",
          "has no amdpal.format_strings" in done.stderr and done.returncode == 1
          and "summary: 0 messages" in done.stdout, done.stdout + done.stderr)

    # 2b. Program headers only: the note made allocatable, the object linked by
    # ld.lld-19 (the note lands in a PT_NOTE segment), then the section headers
    # stripped; the strings must be found through PT_NOTE.
    alloc, shared, stripped = work / "alloc.o", work / "alloc.so", work / "stripped.so"
    done = run([OBJCOPY, "--add-section", f".note.pal={note}", "--set-section-flags",
                ".note.pal=alloc,readonly", str(obj), str(alloc)])
    if done.returncode == 0:
        done = run([LLD, "-shared", str(alloc), "-o", str(shared)])
    if done.returncode == 0:
        done = run([OBJCOPY, "--strip-sections", str(shared), str(stripped)])
    check("ld.lld + strip-sections", done.returncode == 0, done.stderr)
    headers = run([READELF, "-S", "-l", str(stripped)]).stdout
    check("stripped object: no sections, PT_NOTE segments",
          "There are no sections" in headers and headers.count("NOTE") >= 2, headers)
    done = run([args.amddwarf, "printf", "--elf", str(stripped), "--buffer", str(buf)])
    check("amddwarf printf finds the strings through PT_NOTE",
          done.returncode == 0 and f"summary: {len(STRINGS)} messages" in done.stdout,
          done.stdout + done.stderr)

    # 3. Messages against Python's % formatting.
    for (ident, fmt, kinds, values), got in zip(STRINGS, messages):
        want = oracle(fmt, kinds, values)
        check(f"message {hex(ident)}", got == want, f"{got!r} != {want!r}")
    check("message count", len(messages) == len(STRINGS), str(messages))

    # 4. A 3 GiB sparse buffer file: the entries, then never-written (zero)
    # space; bufferOffset asks for 2.5 GiB, the clamp allows 2 GiB. The CLI
    # must stream it with bounded memory: one report for the zero run, the
    # messages, and 0.5 GiB lost.
    big = work / "big.bin"
    data = bytearray(buf.read_bytes())
    data[0:8] = struct.pack("<Q", (5 << 29) // 4)
    with open(big, "wb") as f:
        f.write(data)
        f.truncate(16 + (3 << 30))
    # A fresh interpreter runs the CLI, so the peak RSS is the CLI's alone.
    probe = ("import resource, subprocess, sys\n"
             "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
             "sys.stderr.write(done.stderr)\n"
             "print(done.stdout, end='')\n"
             "print('exit', done.returncode)\n"
             "print('peak', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    def peak_kib_of(buffer):
        done = run([sys.executable, "-c", probe, args.amddwarf, "printf", "--elf", str(ours),
                    "--buffer", str(buffer)], timeout=600)
        return done, int(re.search(r"^peak (\d+)$", done.stdout, re.M).group(1))

    _, base_kib = peak_kib_of(buf)
    done, peak_kib = peak_kib_of(big)
    big.unlink()
    want = f"summary: {len(STRINGS)} messages, {1 << 31} bytes, {1 << 29} lost, 1 errors"
    check("3 GiB sparse buffer: streamed", "exit 1" in done.stdout and want in done.stdout
          and "zero bytes" in done.stderr, done.stdout + done.stderr)
    check("3 GiB sparse buffer: peak memory at most 32 MiB above the small buffer's",
          peak_kib - base_kib <= 32 * 1024, f"{peak_kib} KiB against {base_kib} KiB")

    return summary()


if __name__ == "__main__":
    sys.exit(main())
