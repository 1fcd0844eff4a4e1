"""What every corpus test shares: its command line, counting checks, running
tools, and building AMDGPU code objects with Debian's LLVM 19 tools and hipcc.

A corpus test imports it (its folder is the script's, so it is on sys.path):

    from corpus_util import check, run, summary
    ...
    return summary()     # prints "N passed, N failed"; 1 when any failed

Checks made by modules that a test imports (test_eval_paths runs parts of
test_object_eval) count in the same totals.
"""

import argparse
import json
import os
import shutil
import subprocess
import tempfile

CLANG = "clang-19"
LLD = "ld.lld-19"
LLVM_MC = "llvm-mc-19"
HIPCC = "hipcc"
TRIPLE = "amdgcn-amd-amdhsa"


class Checks:
    """Counts passed and failed checks; prints each failure as it happens."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: " + what)
        return bool(ok)

    def summary(self):
        """Prints the closing line that ctest's log shows; the exit status."""
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


CHECKS = Checks()


def check(ok, what):
    """Counts one check in the test's totals; returns OK as a bool."""
    return CHECKS.check(ok, what)


def summary():
    return CHECKS.summary()


def argument_parser(description, build_required=False):
    """The options every corpus test takes (tests/CMakeLists.txt passes them):
    --amddwarf (the CLI), --work (a folder of its own) and --build (the build
    tree, for helper programs). A test adds its own options to it."""
    ap = argparse.ArgumentParser(description=description,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--amddwarf", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--build", required=build_required)
    return ap


def arguments(description, build_required=False, parser=None):
    """The parsed options of PARSER (argument_parser's by default); makes the
    work folder."""
    args = (parser or argument_parser(description, build_required)).parse_args()
    os.makedirs(args.work, exist_ok=True)
    return args


def missing_tool(*tools):
    """The first of TOOLS that is not installed, after saying that the test is
    skipped for it; None when all are there."""
    for tool in tools:
        if shutil.which(tool) is None:
            print(f"skipped: {tool} not found\n0 passed, 0 failed")
            return tool
    return None


def run(argv, stdin=None, **kw):
    """Runs ARGV with STDIN as its input text; output captured as text."""
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, input=stdin,
                          universal_newlines=True, **kw)


def run_ok(argv, **kw):
    """run(), raising RuntimeError with the command and its stderr if it fails."""
    r = run(argv, **kw)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(argv), r.returncode,
                                                (r.stderr.strip() + r.stdout[:400]).strip()))
    return r


def run_json(argv):
    """The JSON document that ARGV prints."""
    return json.loads(run_ok(argv).stdout)


def compile_opencl(src, obj, cpu="gfx900", flags=()):
    """OpenCL C SRC (or C: clang-19 goes by the extension) to a relocatable
    device object OBJ; FLAGS such as -g, -gdwarf-N, -O2."""
    run_ok([CLANG, "-target", TRIPLE, "-mcpu=" + cpu, "-nogpulib"] + list(flags)
           + ["-c", src, "-o", obj])


def compile_hip(src, obj, cpu="gfx900", flags=(), hip_flags=()):
    """HIP SRC to a relocatable device object OBJ with clang-19, in two steps:
    device-only bitcode (OBJ + ".bc"), then the object. FLAGS go to both,
    HIP_FLAGS (-fno-gpu-rdc) to the first."""
    bitcode = obj + ".bc"
    run_ok([CLANG, "-x", "hip", "--cuda-device-only", "-nogpuinc", "-nogpulib",
            "--offload-arch=" + cpu] + list(flags) + list(hip_flags)
           + ["-emit-llvm", "-c", src, "-o", bitcode])
    run_ok([CLANG, "-target", TRIPLE, "-mcpu=" + cpu, "-nogpulib"] + list(flags)
           + ["-c", bitcode, "-o", obj])


def compile_device(lang, src, obj, cpu="gfx900", flags=()):
    """compile_opencl for LANG "cl", compile_hip for "hip"."""
    (compile_opencl if lang == "cl" else compile_hip)(src, obj, cpu, flags)


def assemble(src, obj, cpu="gfx900"):
    """AMDGPU assembly SRC to a relocatable object OBJ with llvm-mc-19."""
    run_ok([LLVM_MC, "-triple", TRIPLE, "-mcpu=" + cpu, "-filetype=obj", src, "-o", obj])


def link_shared(obj, so):
    """Links OBJ into the code object SO with ld.lld-19."""
    run_ok([LLD, "-shared", obj, "-o", so])


def hipcc(argv, work):
    """Runs hipcc with ARGV. hipcc leaves temporary folders behind in TMPDIR:
    it gets a private one under WORK, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="hipcc-tmp-", dir=work) as tmp:
        return run_ok([HIPCC] + list(argv), env=dict(os.environ, TMPDIR=tmp))


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def demangled_function_names(path):
    """{DW_AT_name: demangled DW_AT_linkage_name} of the subprograms of PATH
    that have both, from llvm-dwarfdump-19 and llvm-cxxfilt-19 (LLVM's
    demangler, the one llvm-symbolizer shows names with): the C++ names
    llvm-symbolizer's default --functions=linkage shows for a function."""
    import re
    r = run(["llvm-dwarfdump-19", "--debug-info", path])
    pairs, tag, name, linkage = [], None, None, None
    for line in r.stdout.splitlines() + ["0x0: DW_TAG_end"]:
        m = re.match(r"^0x[0-9a-f]+:\s+(DW_TAG_\w+)", line)
        if m:
            if tag == "DW_TAG_subprogram" and name and linkage:
                pairs.append((name, linkage))
            tag, name, linkage = m.group(1), None, None
            continue
        m = re.search(r"DW_AT_(linkage_name|name)\s+\(\"([^\"]*)\"\)", line)
        if m:
            if m.group(1) == "name":
                name = m.group(2)
            else:
                linkage = m.group(2)
    if not pairs:
        return {}
    out = run(["llvm-cxxfilt-19"], "\n".join(l for _, l in pairs) + "\n").stdout.splitlines()
    return {n: d for (n, _), d in zip(pairs, out)}


class Dap:
    """A minimal DAP client over `amddwarf dap`'s stdin and stdout."""

    def __init__(self, amddwarf):
        self.p = subprocess.Popen([amddwarf, "dap"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)
        self.seq = 0

    def request(self, command, arguments=None):
        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command,
                           "arguments": arguments or {}}).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()
        while True:
            length = 0
            while True:
                line = self.p.stdout.readline()
                if line in (b"\r\n", b""):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            message = json.loads(self.p.stdout.read(length))
            if message.get("type") == "response" and message.get("request_seq") == self.seq:
                return message

    def close(self):
        self.request("disconnect")
        self.p.stdin.close()
        self.p.wait(timeout=30)
