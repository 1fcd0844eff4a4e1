#!/usr/bin/env python3
"""Code objects inside what users have (specs/containers.md), built at test
time with hipcc and clang-offload-bundler-19:

* a HIP executable of two translation units for gfx90a and gfx1030, a HIP
  shared library and an -fgpu-rdc build: `objects` lists what roc-obj-ls
  lists (entry IDs and URIs), `--extract` writes what roc-obj-extract and
  clang-offload-bundler-19 --unbundle write, byte for byte;
* bundles compressed by clang-offload-bundler-19 --compress (zstd), and
  compressed bundles of versions 1, 2 and 3, zlib and zstd, written here
  from the documented layout (the bundler reads back those its version
  knows); a host ELF file whose .hip_fatbin holds a compressed bundle;
* `lines` and `dump` give the same answer on the container (--target or
  --object), on the code object's URI and on the extracted file;
* an ambiguous choice exits 2 naming every candidate; a memory:// URI and
  lying headers are refused with the offset.

hipcc is slow: each program is compiled once, two at a time.
"""

import concurrent.futures
import hashlib
import os
import re
import shutil
import struct
import subprocess
import time
import zlib

from corpus_util import arguments, check, hipcc, missing_tool, run, run_ok, summary, write

BUNDLER = "clang-offload-bundler-19"
OBJCOPY = "llvm-objcopy-19"

# What the kernels need of the HIP headers, declared here: without the headers
# (-nogpuinc) hipcc compiles a translation unit in about a second.
PRELUDE = r"""#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *f, dim3 g, dim3 b, void **args, unsigned long shmem,
                               hipStream_t s);
"""

A_HIP = PRELUDE + r"""
__global__ void add_one(float *x, int n)
{
  int i = __builtin_amdgcn_workitem_id_x();
  if (i < n)
    x[i] += 1.0f;
}
"""

B_HIP = PRELUDE + r"""
__global__ void scale(float *x, float s, int n)
{
  int i = __builtin_amdgcn_workitem_id_x();
  float t = x[i] * s;
  if (i < n)
    x[i] = t;
}
int main() { return 0; }
"""

RDC_HIP = PRELUDE + r"""
__device__ float twice(float v) { return 2.0f * v; }
__global__ void rdc_kernel(float *x)
{
  int i = __builtin_amdgcn_workitem_id_x();
  x[i] = twice(x[i]);
}
int main() { return 0; }
"""

TARGETS = ("gfx90a", "gfx1030")


def build(work):
    """Compiles the three translation units (two at a time), then links the
    executable, the shared library and the -fgpu-rdc program."""
    a, b, c = (write(os.path.join(work, n), t)
               for n, t in (("a.hip", A_HIP), ("b.hip", B_HIP), ("rdc.hip", RDC_HIP)))
    arch = ["--offload-arch=" + t for t in TARGETS]
    flags = ["-g", "-O1", "-nogpuinc"]
    jobs = [flags + ["-fPIC"] + arch + ["-c", a, "-o", a + ".o"],
            flags + ["-fPIC"] + arch + ["-c", b, "-o", b + ".o"],
            flags + ["-fgpu-rdc", "--offload-arch=gfx90a", "-c", c, "-o", c + ".o"]]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda argv: hipcc(argv, work), jobs))
    out = {"exe": os.path.join(work, "two"), "so": os.path.join(work, "libk.so"),
           "rdc": os.path.join(work, "rdc"), "rdc_o": c + ".o"}
    # hipcc's device link finds Debian's default lld (14), which cannot read
    # the bitcode of its clang (15): -B points it at lld 15.
    links = [arch + [a + ".o", b + ".o", "-o", out["exe"]],
             arch + ["-shared", a + ".o", "-o", out["so"]],
             ["-fgpu-rdc", "--offload-arch=gfx90a", "-B/usr/lib/llvm-15/bin", c + ".o",
              "-o", out["rdc"]]]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda argv: hipcc(argv, work), links))
    return out


def objects_json(amddwarf, path):
    r = run([amddwarf, "objects", path, "--json"])
    import json
    doc = json.loads(r.stdout) if r.stdout else {}
    return r.returncode, doc.get("files", [{}])[0]


def roc_obj_ls(path):
    """(entry ID, URI) of every device entry roc-obj-ls -v prints."""
    rows = []
    for line in run_ok(["roc-obj-ls", "-v", path]).stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[0].isdigit() and not fields[1].startswith("host-"):
            rows.append((fields[1], fields[2]))
    return rows


def check_against_roc_obj_ls(amddwarf, path, what):
    rc, doc = objects_json(amddwarf, path)
    ours = [(o["entry_id"], o["uri"]) for o in doc.get("objects", [])]
    theirs = roc_obj_ls(path)
    check(rc == 0 and ours == theirs and len(ours) > 0,
          f"{what}: objects lists {ours}, roc-obj-ls {theirs}")
    return doc.get("objects", [])


def check_extract(amddwarf, path, objects, work, what):
    """--extract writes what roc-obj-extract writes for each URI."""
    ours_dir = os.path.join(work, "ours-" + what)
    theirs_dir = os.path.join(work, "theirs-" + what)
    for d in (ours_dir, theirs_dir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    written = run_ok([amddwarf, "objects", path, "--extract", ours_dir]).stdout.split()
    run_ok(["roc-obj-extract", "-o", theirs_dir] + [o["uri"] for o in objects])
    names = sorted(os.path.basename(p) for p in written)
    check(names == sorted(os.listdir(theirs_dir)),
          f"{what}: --extract names {names}, roc-obj-extract {sorted(os.listdir(theirs_dir))}")
    for name in names:
        a = open(os.path.join(ours_dir, name), "rb").read()
        b_path = os.path.join(theirs_dir, name)
        check(os.path.exists(b_path) and a == open(b_path, "rb").read(),
              f"{what}: {name} differs from roc-obj-extract's")
    return [os.path.join(ours_dir, n) for n in names]


def bundler_list(path):
    r = run_ok([BUNDLER, "--list", "--type=o", "--input=" + path])
    return sorted(i for i in r.stdout.split() if not i.startswith("host-"))


def bundler_unbundle(path, entry_id, out):
    run_ok([BUNDLER, "--unbundle", "--type=o", "--input=" + path, "--targets=" + entry_id,
            "--output=" + out])
    return open(out, "rb").read()


def same_answers(amddwarf, views, what):
    """`lines --all` and `dump` agree on every view (argv prefix, path shown)."""
    for command in (["lines", "--all"], ["dump"]):
        answers = []
        for argv, shown in views:
            r = run([amddwarf, command[0], argv[0]] + argv[1:] + command[1:])
            answers.append((r.returncode, r.stdout.replace(shown, "<input>")))
        ok = all(a == answers[0] for a in answers) and answers[0][0] == 0
        check(ok and len(answers[0][1]) > 100,
              f"{what}: {command[0]} differs between {[v[1] for v in views]}")


# ---- compressed bundles from the documented layout ----

def ccob(plain, version, method, work):
    """A compressed bundle of VERSION (1-3) and METHOD (0 zlib, 1 zstd) over
    PLAIN: magic, version, method, sizes, the first 8 bytes of PLAIN's MD5."""
    if method == 0:
        packed = zlib.compress(plain, 6)
    else:
        packed = subprocess.run(["zstd", "-q", "-c", "-3"], input=plain, capture_output=True,
                                check=True).stdout
    digest = hashlib.md5(plain).digest()[:8]
    header_size = {1: 20, 2: 24, 3: 32}[version]
    total = header_size + len(packed)
    if version == 1:
        header = struct.pack("<4sHHI", b"CCOB", 1, method, len(plain))
    elif version == 2:
        header = struct.pack("<4sHHII", b"CCOB", 2, method, total, len(plain))
    else:
        header = struct.pack("<4sHHQQ", b"CCOB", 3, method, total, len(plain))
    return header + digest + packed


def main():
    args = arguments(__doc__)
    if missing_tool("hipcc", "roc-obj-ls", "roc-obj-extract", BUNDLER, OBJCOPY, "zstd"):
        return 0
    amddwarf, work = args.amddwarf, args.work
    started = time.monotonic()
    out = build(work)
    print(f"built in {time.monotonic() - started:.1f} s")

    # The executable: two bundles (one per translation unit), two targets each.
    exe = out["exe"]
    objs = check_against_roc_obj_ls(amddwarf, exe, "executable")
    check([o["target_id"] for o in objs] == ["gfx1030", "gfx90a"] * 2 or
          sorted(o["target_id"] for o in objs) == ["gfx1030", "gfx1030", "gfx90a", "gfx90a"],
          f"executable: target IDs {[o['target_id'] for o in objs]}")
    extracted = check_extract(amddwarf, exe, objs, work, "exe")
    # --unbundle of the first bundle of .hip_fatbin (the bundler reads the first)
    fatbin = os.path.join(work, "fatbin.bin")
    run_ok([OBJCOPY, "--dump-section", ".hip_fatbin=" + fatbin, exe])
    check(bundler_list(fatbin) == sorted(o["entry_id"] for o in objs[:2]),
          f"executable: --list {bundler_list(fatbin)}")
    for o in objs[:2]:
        data = bundler_unbundle(fatbin, o["entry_id"], os.path.join(work, "unbundled.co"))
        ours = [p for p in extracted if f"-offset{int(o['offset'], 16)}-" in p]
        check(len(ours) == 1 and open(ours[0], "rb").read() == data,
              f"executable: {o['entry_id']} differs from --unbundle")

    # Choosing: ambiguous without a choice, every candidate named.
    r = run([amddwarf, "lines", exe, "--all"])
    named = re.findall(r"--object (\d+) +(\S+)", r.stderr)
    check(r.returncode == 2 and named == [(str(o["index"]), o["entry_id"]) for o in objs],
          f"ambiguous: exit {r.returncode}, candidates {named}: {r.stderr}")
    r = run([amddwarf, "lines", exe, "--target", "gfx90a", "--all"])
    named = re.findall(r"--object (\d+)", r.stderr)
    check(r.returncode == 2 and named == [str(o["index"]) for o in objs if o["target_id"] == "gfx90a"],
          f"ambiguous target: exit {r.returncode}: {r.stderr}")
    r = run([amddwarf, "lines", exe, "--target", "gfx90a:xnack+:bogus+", "--all"])
    check(r.returncode == 2 and "bogus+" in r.stderr, f"bad --target: {r.returncode} {r.stderr}")
    # The same answers on the container, the URI and the extracted file.
    for o in objs:
        path = [p for p in extracted if f"-offset{int(o['offset'], 16)}-" in p][0]
        same_answers(amddwarf, [([exe, "--object", str(o["index"])], exe),
                                ([o["uri"]], o["uri"]), ([path], path)],
                     f"executable object {o['index']}")
    # A one-translation-unit choice by target on the shared library.
    so = out["so"]
    so_objs = check_against_roc_obj_ls(amddwarf, so, "shared library")
    so_extracted = check_extract(amddwarf, so, so_objs, work, "so")
    for o, path in zip(so_objs, so_extracted):
        same_answers(amddwarf, [([so, "--target", o["target_id"]], so), ([path], path)],
                     f"shared library {o['target_id']}")

    # -fgpu-rdc: the linked program's one bundle, and the .o's bundle sections.
    rdc_objs = check_against_roc_obj_ls(amddwarf, out["rdc"], "-fgpu-rdc program")
    check_extract(amddwarf, out["rdc"], rdc_objs, work, "rdc")
    rc, doc = objects_json(amddwarf, out["rdc_o"])
    ids = sorted(o["entry_id"] for o in doc.get("objects", []))
    check(rc == 0 and ids == bundler_list(out["rdc_o"]) and
          all(o["section"].startswith("__CLANG_OFFLOAD_BUNDLE__") for o in doc["objects"]),
          f"-fgpu-rdc .o: {ids} vs --list {bundler_list(out['rdc_o'])}")

    # Compressed by the bundler (zstd, version 2 in LLVM 19).
    co = {o["target_id"]: p for o, p in zip(objs[:2], extracted[:2])}
    host = write(os.path.join(work, "empty.host"), "")
    ids = ["host-x86_64-unknown-linux-gnu"] + ["hipv4-amdgcn-amd-amdhsa--" + t for t in TARGETS]
    compressed = os.path.join(work, "bundle.ccob")
    run_ok([BUNDLER, "--type=o", "--compress", "--targets=" + ",".join(ids),
            "--input=" + host] + ["--input=" + co[t] for t in TARGETS] +
           ["--output=" + compressed])
    rc, doc = objects_json(amddwarf, compressed)
    check(rc == 0 and doc["kind"] == "compressed_bundle" and
          sorted(o["entry_id"] for o in doc["objects"]) == bundler_list(compressed) and
          all(o["compressed"] and o["compression"] == {"method": "zstd", "version": 2}
              for o in doc["objects"]),
          f"bundler --compress: {doc}")
    cdir = os.path.join(work, "ccob-extract")
    shutil.rmtree(cdir, ignore_errors=True)
    os.makedirs(cdir)
    written = run_ok([amddwarf, "objects", compressed, "--extract", cdir]).stdout.split()
    for o, path in zip(doc["objects"], written):
        data = bundler_unbundle(compressed, o["entry_id"], os.path.join(work, "u.co"))
        check(open(path, "rb").read() == data, f"compressed: {path} differs from --unbundle")
        same_answers(amddwarf, [([compressed, "--target", o["target_id"]], compressed),
                                ([co[o["target_id"]]], co[o["target_id"]])],
                     f"compressed bundle {o['target_id']}")

    # Versions 1-3, zlib and zstd, from the documented layout.
    plain = os.path.join(work, "bundle.plain")
    run_ok([BUNDLER, "--type=o", "--targets=" + ",".join(ids), "--input=" + host] +
           ["--input=" + co[t] for t in TARGETS] + ["--output=" + plain])
    plain_bytes = open(plain, "rb").read()
    for version in (1, 2, 3):
        for method, name in ((0, "zlib"), (1, "zstd")):
            path = os.path.join(work, f"bundle.v{version}.{name}")
            open(path, "wb").write(ccob(plain_bytes, version, method, work))
            rc, doc = objects_json(amddwarf, path)
            objs_v = doc.get("objects", [])
            check(rc == 0 and [o["compression"] for o in objs_v] ==
                  [{"method": name, "version": version}] * 2,
                  f"v{version} {name}: {doc}")
            if version <= 2:  # what clang-offload-bundler-19 reads itself
                check(sorted(o["entry_id"] for o in objs_v) == bundler_list(path),
                      f"v{version} {name}: --list disagrees")
            r = run([amddwarf, "lines", path, "--target", "gfx90a", "--all"])
            want = run([amddwarf, "lines", co["gfx90a"], "--all"])
            check(r.returncode == 0 and r.stdout.replace(path, "") ==
                  want.stdout.replace(co["gfx90a"], ""), f"v{version} {name}: lines differ")
    # A lying header: 4 GiB over a few bytes.
    liar = bytearray(ccob(plain_bytes, 3, 1, work))
    liar[16:24] = struct.pack("<Q", 4 << 30)
    liar_path = os.path.join(work, "liar.ccob")
    open(liar_path, "wb").write(liar)
    r = run([amddwarf, "objects", liar_path])
    check(r.returncode == 1 and "offset 0: compressed bundle claims 4294967296 bytes" in r.stderr,
          f"lying header: {r.returncode} {r.stderr}")

    # A host ELF file whose .hip_fatbin holds a compressed bundle.
    zexe = os.path.join(work, "two-compressed")
    run_ok([OBJCOPY, "--update-section", ".hip_fatbin=" + compressed, exe, zexe])
    rc, doc = objects_json(amddwarf, zexe)
    check(rc == 0 and doc["kind"] == "host_elf" and len(doc["objects"]) == 2 and
          all(o["compressed"] and o["section"] == ".hip_fatbin" for o in doc["objects"]),
          f"compressed .hip_fatbin: {doc}")
    for o in doc.get("objects", []):
        same_answers(amddwarf, [([zexe, "--object", str(o["index"])], zexe),
                                ([o["uri"], "--target", o["target_id"]], o["uri"]),
                                ([co[o["target_id"]]], co[o["target_id"]])],
                     f"compressed .hip_fatbin {o['target_id']}")

    # URIs the library refuses.
    r = run([amddwarf, "dump", "memory://4242#offset=0x1000&size=4096"])
    check(r.returncode == 1 and "live process or a core file" in r.stderr,
          f"memory URI: {r.returncode} {r.stderr}")
    r = run([amddwarf, "dump", "file://" + exe + "#offset=12q&size=1"])
    check(r.returncode == 1 and "not a base-10 digit" in r.stderr and "(container_bad_uri)" in r.stderr,
          f"bad URI number: {r.returncode} {r.stderr}")
    print(f"test time {time.monotonic() - started:.1f} s")
    return summary()


if __name__ == "__main__":
    raise SystemExit(main())
