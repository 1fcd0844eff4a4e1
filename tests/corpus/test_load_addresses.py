#!/usr/bin/env python3
"""Loaded code objects and C++ names, on a hipcc-built code object.

Builds one HIP translation unit with hipcc (gfx90a, -O2 -g, device only): a
noinline `step(Particle*, float*, int, float)` called from the kernel
`advance`, and a `__device__` global `gscale`. Then:

Load addresses (specs/snapshot.md, specs/stop.md):
- a snapshot stopped in step with object addresses, and the same stop with the
  code object listed (its URI, load address 0x7f0000001000) and every PC and
  the global's memory at process addresses: eval, vars, lanes and unwind give
  the same values (the ones the snapshot's registers and memory hold, written
  here), lines (llvm-symbolizer-19 at the object address) and frames, the
  PCs shown moved by the load address; the global is read at its process
  address whether the DWARF gives it through .debug_addr (DWARF 5) or a
  DW_OP_addr operand (DWARF 4);
- the code objects named only by their URIs (OBJECT left out): the one
  roc-obj-ls prints for the code object inside a hipcc-built shared library,
  loaded second of two; a file given as OBJECT read in place of the URI's;
- the same through `amddwarf dap`, with the code objects listed once for the
  whole stop;
- refusals: a PC in no loaded code object, another processor, wave32 on gfx90a.

C++ names (the oracle is llvm-symbolizer-19, llvm-objdump-19, llvm-cxxfilt-19):
- `lines`, `unwind` and the adapter's stack name step and advance as
  llvm-symbolizer does; `dump` shows each mangled symbol with llvm-cxxfilt's
  demangling;
- `disasm --function` by the name without parameters, the demangled name and
  the mangled name disassembles the instructions llvm-objdump-19 shows for
  the symbol; a misspelt name names the nearest function.

Usage: test_load_addresses.py --amddwarf PATH --work DIR
"""
import json
import os
import re

from corpus_util import Dap, arguments, check, hipcc, missing_tool, run, run_ok, summary, write

HIP = r"""
#include <hip/hip_runtime.h>
struct Particle { float x, v; };
__device__ float gscale;
__device__ __attribute__((noinline)) void step(Particle *p, float *out, int n, float dt)
{
  int i = threadIdx.x;
  if (i < n) {
    p[i].x += p[i].v * dt * gscale;
    out[i] = p[i].x;
  }
}
__global__ void advance(Particle *p, float *out, int n, float dt)
{
  step(p, out, n, dt);
}
"""

LOAD = 0x7F0000001000
ONE = 0x3F800000            # 1.0f
ONE_AND_HALF = "0000c03f"   # 1.5f, little-endian


def symbols(path):
    """{name: (address, size)} of the function and object symbols, from llvm-readelf-19."""
    out = {}
    for line in run_ok(["llvm-readelf-19", "-s", "-W", path]).stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] in ("FUNC", "OBJECT"):
            out[f[7]] = (int(f[1], 16), int(f[2], 0))
    return out


def symbolize(path, address):
    """(function, file:line:column) llvm-symbolizer-19 gives for ADDRESS (outermost frame)."""
    lines = run_ok(["llvm-symbolizer-19", "--obj=" + path, hex(address)]).stdout.split("\n")
    return lines[0], lines[1]


def snapshot(pc, ret, gscale_at, extra=None):
    """The wave stopped in step: n = 10 (v4), dt = 1.0 (v5), i = lane (v6) in
    lanes 0-3 of EXEC 0xf, the return address in s[30:31]."""
    s = {"architecture": "gfx90a", "lane": 2, "exec": "0xf", "pc": hex(pc),
         "registers": {"v4": [10] * 4, "v5": [ONE] * 4, "v6": [0, 1, 2, 3],
                       "s30": hex(ret & 0xffffffff), "s31": hex(ret >> 32),
                       "s32": "0x0", "s33": "0x0"},
         "memory": [{"address_space": "global", "address": hex(gscale_at),
                     "bytes": ONE_AND_HALF}]}
    s.update(extra or {})
    return s


def cli(amddwarf, *argv):
    return run([amddwarf] + list(argv))


def shown(text, pc):
    """TEXT with the object-relative spelling of process address PC's hex."""
    return text.replace("0x%x" % pc, "0x%x" % (pc - LOAD))


def all_shown(text):
    """TEXT with every process address (LOAD and above) spelt object-relative:
    frames past the first name PCs and FDE ranges of their own."""
    return re.sub(r"0x([0-9a-f]+)",
                  lambda m: "0x%x" % (int(m.group(1), 16) - LOAD)
                  if int(m.group(1), 16) >= LOAD else m.group(0), text)


def dap_view(amddwarf, program, stop_path):
    """(frame 0's name, line, PC, n's value, the thread's name) of the stop's first wave."""
    d = Dap(amddwarf)
    d.request("initialize", {"adapterID": "amddwarf"})
    launch = d.request("launch", {"program": program, "stop": stop_path})
    if not launch.get("success"):
        d.close()
        return ("launch failed: " + launch.get("message", ""),)
    threads = d.request("threads")["body"]["threads"]
    trace = d.request("stackTrace", {"threadId": 1})
    frames = trace["body"]["stackFrames"] if trace.get("success") else []
    value = d.request("evaluate", {"expression": "n", "frameId": frames[0]["id"],
                                   "context": "watch"}) if frames else {}
    d.close()
    f = frames[0] if frames else {}
    return (f.get("name"), f.get("line"), f.get("instructionPointerReference"),
            value.get("body", {}).get("result"), threads[0]["name"] if threads else None)


def main():
    args = arguments(__doc__)
    if missing_tool("hipcc", "llvm-symbolizer-19", "llvm-objdump-19", "llvm-readelf-19",
                    "llvm-cxxfilt-19", "roc-obj-ls"):
        return 0
    work, amddwarf = args.work, args.amddwarf
    os.makedirs(work, exist_ok=True)
    src = write(os.path.join(work, "particle.hip"), HIP)
    co = os.path.join(work, "particle.co")
    hipcc(["--offload-arch=gfx90a", "--cuda-device-only", "--no-gpu-bundle-output", "-g", "-O2",
           "-c", src, "-o", co], work)
    syms = symbols(co)
    (step, step_size), (advance, _), (gscale, _) = (
        syms["_Z4stepP8ParticlePfif"], syms["_Z7advanceP8ParticlePfif"], syms["gscale"])
    # The stop: in step after i is computed (its location list starts 3
    # instructions in); the return address after the kernel's s_swappc.
    pc = step + 0x10
    ret = advance + 0x5c
    uri = "file://%s#offset=0&size=%d" % (co, os.path.getsize(co))
    rel = write(os.path.join(work, "rel.json"), json.dumps(snapshot(pc, ret, gscale)))
    loaded = {"code_objects": [{"uri": uri, "load_address": hex(LOAD)}]}
    absolute = write(os.path.join(work, "abs.json"),
                     json.dumps(snapshot(LOAD + pc, LOAD + ret, LOAD + gscale, loaded)))

    # ---- the same answers at process addresses ----
    expected = {"n": "n = 10", "dt": "dt = 1", "gscale": "gscale = 1.5"}
    for name, text in expected.items():
        for state in (rel, absolute):
            r = cli(amddwarf, "eval", co, "--state", state, name)
            check(r.returncode == 0 and r.stdout.strip() == text,
                  "eval %s %s: %r %r" % (os.path.basename(state), name, r.stdout, r.stderr))
    r1 = cli(amddwarf, "eval", co, "--state", rel, "i", "--lanes", "all", "--json")
    r2 = cli(amddwarf, "eval", co, "--state", absolute, "i", "--lanes", "all", "--json")
    if check(r1.returncode == 0 and r2.returncode == 0, "eval i --lanes all: %r" % r2.stderr):
        j1, j2 = json.loads(r1.stdout), json.loads(r2.stdout)
        values = [(l["lane"], l.get("value")) for l in j2["lanes"] if l["active"]]
        check(values == [(0, "0"), (1, "1"), (2, "2"), (3, "3")], "i per lane: %r" % values)
        check(int(j2["pc"], 16) == LOAD + pc and int(j1["pc"], 16) == pc,
              "eval --json pc: %s, %s" % (j1["pc"], j2["pc"]))
        check(j1["lanes"] == j2["lanes"], "eval lanes differ")
    v1 = cli(amddwarf, "vars", co, "--state", rel)
    v2 = cli(amddwarf, "vars", co, "--state", absolute)
    function, place = symbolize(co, pc)
    check(v1.returncode == 0 and v1.stdout == shown(v2.stdout, LOAD + pc),
          "vars differ:\n%s\n%s" % (v1.stdout, v2.stdout + v2.stderr))
    check(v2.stdout.startswith("pc 0x%x: %s" % (LOAD + pc, place)),
          "vars line %r, llvm-symbolizer %s" % (v2.stdout[:80], place))
    l1 = cli(amddwarf, "lanes", co, "--state", rel)
    l2 = cli(amddwarf, "lanes", co, "--state", absolute)
    base = "%s:%s" % (os.path.basename(place.split(":")[0]), ":".join(place.split(":")[1:]))
    check(l2.returncode == 0 and "0x%x" % (LOAD + pc) in l2.stdout and base in l2.stdout,
          "lanes: %r (llvm-symbolizer %s)" % (l2.stdout + l2.stderr, base))
    check(l1.stdout.split("\n")[1] == l2.stdout.split("\n")[1], "lanes masks differ")
    u1 = cli(amddwarf, "unwind", co, "--state", rel)
    u2 = cli(amddwarf, "unwind", co, "--state", absolute)
    check(u1.stdout.startswith("#0 pc 0x%x in %s " % (pc, function)),
          "unwind names frame 0 as llvm-symbolizer (%s): %r" % (function, u1.stdout))
    check(u2.returncode == u1.returncode and
          all_shown(u2.stdout) == u1.stdout,
          "unwind differs:\n%s\n%s" % (u1.stdout, u2.stdout + u2.stderr))

    # ---- DWARF 4: the global's address is a DW_OP_addr operand, relocated too ----
    co4 = os.path.join(work, "particle-dwarf4.co")
    hipcc(["--offload-arch=gfx90a", "--cuda-device-only", "--no-gpu-bundle-output", "-g",
           "-gdwarf-4", "-O2", "-c", src, "-o", co4], work)
    dump4 = run_ok(["llvm-dwarfdump-19", "--debug-info", co4]).stdout
    check("DW_OP_addr 0x" in dump4, "the DWARF 4 object gives gscale by DW_OP_addr")
    syms4 = symbols(co4)
    step4, advance4, gscale4 = (syms4["_Z4stepP8ParticlePfif"][0],
                                syms4["_Z7advanceP8ParticlePfif"][0], syms4["gscale"][0])
    uri4 = "file://%s#offset=0&size=%d" % (co4, os.path.getsize(co4))
    abs4 = write(os.path.join(work, "abs-dwarf4.json"), json.dumps(snapshot(
        LOAD + step4 + 0x10, LOAD + advance4 + 0x5c, LOAD + gscale4,
        {"code_objects": [{"uri": uri4, "load_address": hex(LOAD)}]})))
    for name, text in expected.items():
        r = cli(amddwarf, "eval", co4, "--state", abs4, name)
        check(r.returncode == 0 and r.stdout.strip() == text,
              "DWARF 4 eval %s: %r %r" % (name, r.stdout, r.stderr))

    # ---- code objects named by URI: inside a HIP shared library, among several ----
    so = os.path.join(work, "libparticle.so")
    hipcc(["--offload-arch=gfx90a", "-g", "-O2", "-fPIC", "-shared", src, "-o", so], work)
    listed = [l.split() for l in run_ok(["roc-obj-ls", so]).stdout.splitlines()]
    so_uri = [f[2] for f in listed if len(f) == 3 and f[1].endswith("--gfx90a")]
    LOAD2 = 0x7F0000100000
    if check(len(so_uri) == 1, "roc-obj-ls lists one gfx90a code object: %r" % listed):
        two = {"code_objects": [{"uri": uri, "load_address": hex(LOAD)},
                                {"uri": so_uri[0], "load_address": hex(LOAD2)}]}
        in_so = write(os.path.join(work, "in-so.json"), json.dumps(
            snapshot(LOAD2 + pc, LOAD2 + ret, LOAD2 + gscale, two)))
        for name, text in expected.items():
            r = cli(amddwarf, "eval", "--state", in_so, name)
            check(r.returncode == 0 and r.stdout.strip() == text,
                  "eval by URI in the second code object, %s: %r %r" % (name, r.stdout, r.stderr))
        r = cli(amddwarf, "vars", "--state", in_so)
        check(r.returncode == 0 and shown(r.stdout, LOAD2 + pc).replace(
                  "0x%x" % (LOAD2 + pc - LOAD), "") == shown(v2.stdout, LOAD + pc).replace(
                  "0x%x" % pc, ""),
              "vars by URI:\n%s\n%s" % (r.stdout + r.stderr, v2.stdout))
        r = cli(amddwarf, "unwind", "--state", in_so)
        check(r.stdout.startswith("#0 pc 0x%x in %s " % (LOAD2 + pc, function)),
              "unwind by URI: %r" % (r.stdout + r.stderr))
        # The file given on the command line, read in place of the URI's.
        moved = so_uri[0].replace("file://" + so, "file:///nonexistent/libparticle.so")
        elsewhere = write(os.path.join(work, "elsewhere.json"), json.dumps(snapshot(
            LOAD + pc, LOAD + ret, LOAD + gscale,
            {"code_objects": [{"uri": moved, "load_address": hex(LOAD)}]})))
        r = cli(amddwarf, "eval", so, "--state", elsewhere, "gscale")
        check(r.returncode == 0 and r.stdout.strip() == "gscale = 1.5",
              "eval OBJECT in place of the URI's file: %r %r" % (r.stdout, r.stderr))
        r = cli(amddwarf, "eval", "--state", elsewhere, "gscale")
        check(r.returncode == 1 and "/nonexistent/libparticle.so" in r.stderr,
              "a URI whose file is missing: %r" % r.stderr)

    # ---- the adapter: the stop's code objects listed once for its waves ----
    stop = write(os.path.join(work, "stop.json"), json.dumps(
        dict(loaded, waves=[{"wave_id": 0, "snapshot": snapshot(LOAD + pc, LOAD + ret,
                                                                LOAD + gscale)}])))
    d1 = dap_view(amddwarf, co, rel)
    d2 = dap_view(amddwarf, co, stop)
    line = int(place.split(":")[-2])
    check(d1[0] == function and d1[1] == line and d1[3] == "10",
          "dap stack %r, llvm-symbolizer %s at line %d" % (d1, function, line))
    check(d2[:2] == d1[:2] and d2[3] == d1[3] and int(d2[2], 16) == LOAD + pc,
          "dap loaded %r, unloaded %r" % (d2, d1))
    if so_uri:
        # Two listed code objects: each opened by its URI, the wave in the second.
        stop2 = write(os.path.join(work, "stop-two.json"), json.dumps(
            dict(two, waves=[{"snapshot": snapshot(LOAD2 + pc, LOAD2 + ret, LOAD2 + gscale)}])))
        d3 = dap_view(amddwarf, co, stop2)
        check(d3[:2] == d1[:2] and d3[3] == d1[3] and int(d3[2], 16) == LOAD2 + pc,
              "dap over two listed code objects %r, unloaded %r" % (d3, d1))

    # ---- refusals ----
    cases = [("pc", snapshot(pc, ret, gscale, loaded), "pc_not_loaded",
              "the wave's PC 0x%x lies in no loaded code object" % pc),
             ("arch", snapshot(LOAD + pc, LOAD + ret, LOAD + gscale,
                               dict(loaded, architecture="gfx1030")), "wave_mismatch",
              "the wave is a gfx1030, its code object is for gfx90a"),
             ("wave32", snapshot(LOAD + pc, LOAD + ret, LOAD + gscale,
                                 dict(loaded, wave_size=32)), "wave_mismatch",
              "the wave is wave32, its code object (gfx90a) has wave64 code only")]
    for name, snap, status, message in cases:
        path = write(os.path.join(work, "bad-%s.json" % name), json.dumps(snap))
        for command in ("eval", "vars", "lanes", "unwind"):
            argv = [command, co, "--state", path, "--json"] + (["n"] if command == "eval" else [])
            r = cli(amddwarf, *argv)
            err = json.loads(r.stdout).get("error", {}) if r.stdout.startswith("{") else {}
            check(r.returncode == 1 and err.get("status") == status and
                  err.get("message", "").startswith(message),
                  "%s refuses %s: %d %r" % (command, name, r.returncode, r.stdout + r.stderr))
        d = dap_view(amddwarf, co, path)
        check(d[4] is not None and "not opened" in d[4], "dap thread of %s: %r" % (name, d))

    # ---- C++ names ----
    demangled = run_ok(["llvm-cxxfilt-19"],
                       stdin="_Z4stepP8ParticlePfif\n_Z7advanceP8ParticlePfif\n").stdout.split("\n")
    r = cli(amddwarf, "lines", co, hex(pc), hex(ret - 4))
    for address, (name, where) in ((pc, symbolize(co, pc)), (ret - 4, symbolize(co, ret - 4))):
        check("0x%x:\n  %s at %s\n" % (address, name, where) in r.stdout,
              "lines 0x%x: %r, llvm-symbolizer %s at %s" % (address, r.stdout, name, where))
    dump = cli(amddwarf, "dump", co).stdout
    for mangled, name in zip(["_Z4stepP8ParticlePfif", "_Z7advanceP8ParticlePfif"], demangled):
        check("symbol %s (%s): " % (mangled, name) in dump,
              "dump shows %s as llvm-cxxfilt-19: %s" % (mangled, name))
    objdump = run_ok(["llvm-objdump-19", "-d", "--mcpu=gfx90a",
                      "--disassemble-symbols=_Z4stepP8ParticlePfif", co]).stdout
    # llvm-objdump goes on to the next symbol; the function is its symbol's size.
    theirs = [a for a in (int(m.group(1), 16) for m in re.finditer(r"// ([0-9A-F]{12}):", objdump))
              if a < step + step_size]
    for name in ("step", demangled[0], "_Z4stepP8ParticlePfif"):
        r = cli(amddwarf, "disasm", co, "--function", name, "--json")
        ours = []
        if r.returncode == 0:
            for section in json.loads(r.stdout)["sections"]:
                ours += [int(i["address"], 16) for i in section["instructions"]]
        check(ours and ours == theirs,
              "disasm --function %r: %d instructions, llvm-objdump %d" % (name, len(ours),
                                                                         len(theirs)))
    r = cli(amddwarf, "disasm", co, "--function", "stpe")
    check(r.returncode == 1 and "the nearest: %s (_Z4stepP8ParticlePfif)" % demangled[0]
          in r.stderr, "disasm --function stpe: %r" % r.stderr)
    r = cli(amddwarf, "disasm", co, "--function", "no_such_function_here")
    check(r.returncode == 1 and "no function named 'no_such_function_here' (not_found)"
          in r.stderr, "disasm --function with no near name: %r" % r.stderr)
    return summary()


if __name__ == "__main__":
    raise SystemExit(main())
