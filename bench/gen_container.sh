#!/usr/bin/env bash
# Builds the host ELF file of bench_container: TUS translation units, each its
# own compressed offload bundle (clang-offload-bundler-19 --compress, zstd) in
# .hip_fatbin, 4096-aligned with zero padding, as hipcc lays them out. Each
# bundle holds one code object: gen_object.sh's object of COPIES copies
# (about 4.7 MB for 2), so 200 units hold about 0.94 GB uncompressed; the bundles
# are the same bytes (one real code object, replicated).
# Usage: gen_container.sh OUTDIR [TUS] [COPIES]; prints the paths of the
# host file, the code object, and the bundles' zstd frames concatenated.
set -euo pipefail
out=${1:?OUTDIR}
tus=${2:-200}
copies=${3:-2}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
object=$("$here/gen_object.sh" "$out" "$copies")
cd "$out"
host="host-$tus-$copies.elf"
if [ ! -f "$host" ]; then
  : > empty.host
  clang-offload-bundler-19 --type=o --compress \
    --targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx900 \
    --input=empty.host --input="$object" --output=unit.ccob
  python3 - "$tus" <<'PY'
import struct, sys
tus = int(sys.argv[1])
unit = open("unit.ccob", "rb").read()
header = 24 if struct.unpack_from("<H", unit, 4)[0] == 2 else 32
pad = (-len(unit)) % 4096
with open("fatbin.bin", "wb") as f:
    for i in range(tus):
        f.write(unit)
        if i + 1 < tus:
            f.write(bytes(pad))
with open("frames.zst", "wb") as f:
    for i in range(tus):
        f.write(unit[header:])
PY
  echo 'int host_main(void) { return 0; }' > host.c
  cc -c host.c -o host.o
  llvm-objcopy-19 --add-section .hip_fatbin=fatbin.bin \
    --set-section-alignment .hip_fatbin=4096 host.o "$host"
  rm -f fatbin.bin
fi
echo "$out/$host"
echo "$object"
echo "$out/frames.zst"
