#!/usr/bin/env bash
# Rebuilds ../three-units.elf: three OpenCL units of different sizes (the
# largest first) linked into one code object, for test_object_load_order.
set -euo pipefail
cd "$(dirname "$0")"
for unit in big small mid; do
  clang-19 -target amdgcn-amd-amdhsa -mcpu=gfx900 -nogpulib -g -O0 -c "$unit.cl" -o "/tmp/$unit.o"
done
ld.lld-19 -shared /tmp/big.o /tmp/small.o /tmp/mid.o -o ../three-units.elf
