#!/usr/bin/env python3
"""The example backend (examples/backend/) against the installed library.

1. `cmake --install BUILD --prefix TMP` installs the library, headers and
   CMake package; the example is configured with find_package(amddwarf)
   (CMAKE_PREFIX_PATH=TMP) and built with -Wall -Wextra -Werror.
2. A -O0 OpenCL kernel is built with clang-19 for gfx900 (wave64) and
   gfx1030 (wave32). Each variable's frame offset and type come from
   llvm-dwarfdump-19, the PC of line 10 from its line table; a wave snapshot
   puts chosen values for a few active lanes into their private memory
   (SGPR33 holds the wave-scaled frame offset, the MUBUF convention): the
   kernel arguments are the same in every lane, the other locals differ.
3. The seed's IF/THEN/ELSE nest (written by `amddwarf build` from
   tests/golden/produce/seed_nest.json, with DW_AT_LLVM_lane_pc procedures):
   lanes grouped by the lane PCs the seed's example gives, i per lane from
   VGPR1.
4. The example serves registers and memory from arrays of its own (filled
   from the snapshot at the stop), as a backend over amd-dbgapi would: its
   target callbacks, not the snapshot's, answer every read.
5. The example's whole output must equal the text this script derives from
   those inputs: wave line, breakpoint facts (s_trap 7, 4 bytes, adjust 4),
   the one-frame backtrace of a kernel (its FDE has no CFA rule, as
   llvm-dwarfdump-19 --debug-frame shows; a kernel is the outermost frame), then
   per group of lanes at one PC its frames, each local printed by its
   DWARF type as specs/eval-paths.md says, one line per set of lanes whose
   values agree, and the lanes without a PC.
"""
import json
import os
import pathlib
import re
import shutil
import struct
import sys

from corpus_util import arguments, check, compile_opencl, run, summary

KERNEL = r"""__kernel void k(__global int *out, int n)
{
  int priv[4];
  int id = __builtin_amdgcn_workitem_id_x();
  float f = n * 0.5f;
  priv[0] = id;
  priv[1] = n;
  priv[2] = id + n;
  priv[3] = 7;
  out[id] = priv[id & 3] + (int)f;
}
"""
STMT_LINE = 10


def variables(path):
    """[(name, fbreg offset, type name)] of the kernel in DIE order."""
    out, cur = [], None
    dump = run(["llvm-dwarfdump-19", "--debug-info", str(path)]).stdout
    for line in dump.splitlines() + ["0x0: DW_TAG_end"]:
        if re.match(r"^0x[0-9a-f]+:", line):
            if cur and cur.get("loc") is not None:
                out.append((cur["name"], cur["loc"], cur["type"]))
            cur = {"loc": None, "name": None, "type": None} if (
                "DW_TAG_variable" in line or "DW_TAG_formal_parameter" in line) else None
            continue
        if cur is None:
            continue
        m = re.search(r"DW_AT_name\s+\(\"(\w+)\"\)", line)
        if m:
            cur["name"] = m.group(1)
        m = re.search(r"DW_AT_location\s+\(DW_OP_fbreg ([+-]\d+)", line)
        if m:
            cur["loc"] = int(m.group(1))
        m = re.search(r"DW_AT_type\s+\(0x[0-9a-f]+ \"([^\"]+)\"\)", line)
        if m:
            cur["type"] = m.group(1)
    return out


def line_pc(path, line):
    dump = run(["llvm-dwarfdump-19", "--debug-line", str(path)]).stdout
    for row in dump.splitlines():
        m = re.match(r"^0x([0-9a-f]{16})\s+(\d+)\s+\d+\s+.*is_stmt", row)
        if m and int(m.group(2)) == line:
            return int(m.group(1), 16)
    return None


def lane_set(lanes):
    """"lanes 0-1,3" / "lane 5", as the example labels a set of lanes."""
    runs, out = [], []
    for lane in sorted(lanes):
        if runs and runs[-1][1] == lane - 1:
            runs[-1][1] = lane
        else:
            runs.append([lane, lane])
    for a, b in runs:
        out.append(f"{a}-{b}" if b > a else str(a))
    return ("lanes " if len(lanes) > 1 else "lane ") + ",".join(out)


def local_lines(names, shown, lanes):
    """A line per variable and set of lanes whose texts agree, in order of
    each set's lowest lane. SHOWN[lane][name] is the text of one lane."""
    lines = []
    for name in names:
        groups = {}
        for lane in lanes:
            groups.setdefault(shown[lane][name], []).append(lane)
        for text, group in groups.items():
            lines.append(f"    {name} = {text}  [{lane_set(group)}]")
    return lines


def show(type_name, raw):
    """RAW bytes printed by their C type as specs/eval-paths.md says."""
    if type_name.endswith("*"):      # a generic pointer: no address space suffix
        return f"({type_name}) {struct.unpack('<Q', raw)[0]:#x}"
    m = re.fullmatch(r"int\[(\d+)\]", type_name)
    if m:
        return "{" + ", ".join(str(v) for v in struct.unpack(f"<{m.group(1)}i", raw)) + "}"
    if type_name == "float":
        return "%.9g" % struct.unpack("<f", raw)[0]
    assert type_name == "int", type_name
    return str(struct.unpack("<i", raw)[0])


def main():
    args = arguments(__doc__, build_required=True)
    work = pathlib.Path(args.work) / "example_backend"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)

    source_dir = pathlib.Path(__file__).resolve().parents[2]
    prefix = work / "prefix"
    r = run(["cmake", "--install", args.build, "--prefix", str(prefix)])
    check(r.returncode == 0, f"cmake --install: {r.stderr[-500:]}")
    check((prefix / "include" / "amddwarf" / "amddwarf.h").exists(), "headers installed")
    build = work / "build"
    # Build the example like the library was built: same compiler, and the
    # sanitizer runtime when the library is instrumented (a clang ASan shared
    # library leaves the runtime to the executable).
    cache = (pathlib.Path(args.build) / "CMakeCache.txt").read_text()
    compiler = re.search(r"^CMAKE_C_COMPILER:\w+=(.*)$", cache, re.M)
    flags = "-Wall -Wextra -Werror"
    if re.search(r"^AMDDWARF_SANITIZE:BOOL=ON$", cache, re.M):
        flags += " -fsanitize=address,undefined"
    configure = ["cmake", "-S", str(source_dir / "examples" / "backend"), "-B", str(build),
                 f"-DCMAKE_PREFIX_PATH={prefix}", f"-DCMAKE_C_FLAGS={flags}"]
    if compiler:
        configure.append(f"-DCMAKE_C_COMPILER={compiler.group(1)}")
    r = run(configure)
    check(r.returncode == 0, f"configure example: {r.stdout[-500:]}{r.stderr[-800:]}")
    r = run(["cmake", "--build", str(build)])
    check(r.returncode == 0, f"build example: {r.stdout[-1500:]}{r.stderr[-500:]}")
    exe = build / "amddwarf-backend-example"
    if not check(exe.exists(), f"{exe} was built"):
        return summary()
    # The example must use the installed library, not the build tree's.
    ldd = run(["ldd", str(exe)]).stdout
    check(str(prefix) in ldd, f"example links the installed library: {ldd}")

    # pkg-config from the same prefix: the installed amddwarf.pc names the
    # prefix it was installed under, so a program built with its flags
    # compiles, links and runs against the installed library.
    pcs = sorted(prefix.glob("lib*/**/pkgconfig/amddwarf.pc")) + \
        sorted(prefix.glob("lib/pkgconfig/amddwarf.pc"))
    if check(bool(pcs), f"amddwarf.pc installed under {prefix}"):
        env = dict(os.environ, PKG_CONFIG_PATH=str(pcs[0].parent))
        include = run(["pkg-config", "--variable=includedir", "amddwarf"], env=env).stdout.strip()
        check(pathlib.Path(include).resolve() == (prefix / "include").resolve(),
              f"pkg-config includedir {include!r} is {prefix}/include")
        cflags = run(["pkg-config", "--cflags", "amddwarf"], env=env).stdout.split()
        libs = run(["pkg-config", "--libs", "amddwarf"], env=env).stdout.split()
        hello = work / "hello.c"
        hello.write_text('#include <stdio.h>\n#include <amddwarf/amddwarf.h>\n'
                         'int main(void) { puts(amddwarf_version()); return 0; }\n')
        cc = compiler.group(1) if compiler else "cc"
        r = run([cc] + flags.split() + cflags + [str(hello), "-o", str(work / "hello")] + libs)
        if check(r.returncode == 0, f"build with pkg-config flags {cflags} {libs}: {r.stderr[-800:]}"):
            libdir = run(["pkg-config", "--variable=libdir", "amddwarf"], env=env).stdout.strip()
            r = run([str(work / "hello")], env=dict(os.environ, LD_LIBRARY_PATH=libdir))
            project = re.search(r"project\(\w+\s+VERSION\s+([0-9.]+)",
                                (source_dir / "CMakeLists.txt").read_text())
            check(r.returncode == 0 and project is not None and
                  r.stdout.strip().startswith(project.group(1)),
                  f"the pkg-config build runs and prints the project's version: "
                  f"{r.stdout!r} {r.stderr[-300:]}")

    src = work / "k.cl"
    src.write_text(KERNEL)
    for cpu, wave, exec_mask in (("gfx900", 64, 0xb), ("gfx1030", 32, 0x15)):
        obj = work / f"k-{cpu}.o"
        try:
            compile_opencl(str(src), str(obj), cpu, ["-g", "-O0"])
        except RuntimeError as e:
            check(False, f"clang {cpu}: {e}")
            continue
        check(True, f"clang {cpu}")
        vs = variables(obj)
        check([v[0] for v in vs] == ["out", "n", "priv", "id", "f"], f"{cpu}: variables {vs}")
        pc = line_pc(obj, STMT_LINE)
        check(pc is not None, f"{cpu}: PC of line {STMT_LINE}")
        offs = {name: off for name, off, _ in vs}
        lo = min(offs.values())
        size = max(offs.values()) + 16 - lo
        lane_addr = 0x800
        types = {name: t for name, _, t in vs}
        memory, shown = [], {}
        lanes = [l for l in range(wave) if exec_mask >> l & 1]
        for lane in lanes:
            buf = bytearray(size)
            vals = {"out": struct.pack("<Q", 0x10000),
                    "n": struct.pack("<i", 40),
                    "priv": b"".join(struct.pack("<i", 10 * j + lane) for j in range(4)),
                    "id": struct.pack("<i", -100 - lane),
                    "f": struct.pack("<f", 0.5 + lane)}
            for name, b in vals.items():
                buf[offs[name] - lo:offs[name] - lo + len(b)] = b
            memory.append({"address_space": "private_lane", "lane": lane,
                           "address": lane_addr + lo, "bytes": buf.hex()})
            shown[lane] = {name: show(types[name], b) for name, b in vals.items()}
        snap = {"architecture": cpu, "wave_size": wave, "pc": pc, "exec": hex(exec_mask),
                "registers": {"s33": lane_addr * wave}, "memory": memory}
        snap_path = work / f"wave-{cpu}.json"
        snap_path.write_text(json.dumps(snap, indent=1))
        frames = run(["llvm-dwarfdump-19", "--debug-frame", str(obj)]).stdout
        check(" FDE " in frames and "DW_CFA_def_cfa" not in frames,
              f"{cpu}: the kernel's FDE has no CFA rule\n{frames}")
        frame0 = f"  #0 0x{pc:016x} in k () at k.cl:{STMT_LINE}"
        inactive = [l for l in range(wave) if l not in lanes]
        expected = "\n".join(
            [f"wave: {cpu}, {wave} lanes, pc {pc:#x}, exec {exec_mask:#x}",
             "breakpoint instruction: 4 bytes, pc adjust 4",
             "backtrace:", frame0,
             f"{lane_set(lanes)} at pc {pc:#x}:", frame0]
            + local_lines([n for n, _, _ in vs], shown, lanes)
            + [f"{lane_set(inactive)}: no PC (inactive)"]) + "\n"
        r = run([str(exe), str(obj), str(snap_path)])
        check(r.returncode == 0, f"{cpu}: example exit {r.returncode}: {r.stderr}")
        if r.stdout != expected:
            check(False, f"{cpu}: output differs\n--- expected\n{expected}--- got\n{r.stdout}")
        else:
            check(True, "")
    # The seed's IF/THEN/ELSE nest, written by `amddwarf build` with
    # DW_AT_LLVM_lane_pc procedures: stopped in the inner THEN (EXEC = lanes
    # 0-1), lanes 2-3 wait at the inner region start (0x1c, line 6), lanes 4-5
    # at the outer one (0x0c, line 4), as the seed's DW_AT_LLVM_lane_pc
    # example says (s[4:5] and s[6:7] hold EXEC saved at each region start).
    # The variable i lives in VGPR1, one dword per lane.
    nest = work / "seed_nest.elf"
    r = run([args.amddwarf, "build", str(source_dir / "tests" / "golden" / "produce" /
                                         "seed_nest.json"), "-o", str(nest)])
    check(r.returncode == 0, f"amddwarf build seed_nest: {r.stderr}")
    nest_wave = work / "seed_nest_wave.json"
    nest_wave.write_text(json.dumps({
        "architecture": "gfx900", "pc": "0x24", "exec": "0x3",
        "registers": {"s4": "0x3f", "s5": "0", "s6": "0xf", "s7": "0",
                      "v1": [10, 11, 12, 13, 14, 15]}}))
    # Every lane reads the same s[4:5] and s[6:7]: one line for the group.
    nest_lines = ["wave: gfx900, 64 lanes, pc 0x24, exec 0x3",
                  "breakpoint instruction: 4 bytes, pc adjust 4",
                  "backtrace:", "  #0 0x0000000000000024 in X () at x.cl:7"]
    for group, pc, line, waiting in (([0, 1], 0x24, 7, ""),
                                     ([2, 3], 0x1c, 6, " (waiting, not in EXEC)"),
                                     ([4, 5], 0xc, 4, " (waiting, not in EXEC)")):
        nest_lines += [f"{lane_set(group)} at pc {pc:#x}{waiting}:",
                       f"  #0 0x{pc:016x} in X () at x.cl:{line}"]
        # A lane outside EXEC read at its own lane PC is marked (specs/debug-api.md,
        # "Inactive lanes"): the text every view shows, amddwarf_lane_value_text.
        mark = " <inactive>" if waiting else ""
        nest_lines += [f"    i = {10 + l}{mark}  [lane {l}]" for l in group]
        nest_lines += [f"    __lex_1_save_exec = {0x3f}{mark}  [{lane_set(group)}]",
                       f"    __lex_1_1_save_exec = {0xf}{mark}  [{lane_set(group)}]"]
    expected = "\n".join(nest_lines + ["lanes 6-63: no PC (inactive)"]) + "\n"
    r = run([str(exe), str(nest), str(nest_wave)])
    check(r.returncode == 0 and r.stdout == expected,
          f"seed nest: output differs\n--- expected\n{expected}--- got\n{r.stdout}{r.stderr}")

    lines = (source_dir / "examples" / "backend" / "backend.c").read_text().count("\n")
    check(lines <= 150, f"examples/backend/backend.c has {lines} lines, at most 150")
    usage = run([str(exe)])
    check(usage.returncode == 2 and "usage:" in usage.stderr, "example usage message")

    return summary()


if __name__ == "__main__":
    sys.exit(main())
