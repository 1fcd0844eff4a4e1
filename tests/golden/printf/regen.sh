#!/bin/sh
# Regenerates the binary inputs of these cases from their JSON descriptions
# (run from this directory with the amddwarf under test as $1).
set -e
A=${1:-amddwarf}
"$A" printf-build pipeline.json --elf pipeline.elf --metadata pipeline.msgpack --buffer basic.bin
"$A" printf-build bad-entries.json --buffer bad-entries.bin
"$A" printf-build overflow.json --buffer overflow.bin
"$A" printf-build other-pipeline.json --elf other-pipeline.elf
"$A" printf-build bytes.json --elf bytes.elf --buffer bytes.bin
