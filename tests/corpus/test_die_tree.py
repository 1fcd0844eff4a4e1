#!/usr/bin/env python3
"""The library's DIE summaries and variables at PCs agree with libdwarf.

Builds linked code objects with Debian's clang-19 and ld.lld-19: the
OpenCL and HIP kernels of test_dump_dwarfdump.py (gfx90a, -O0 and -O2,
DWARF 4 and 5) and bench/gen_object.sh's object (the input of
bench_object, two copies), and runs die_tree_check (tests/corpus/
die_tree_check.c) on each: every DIE's place in the tree, its links and the
attributes its summary keeps are compared with libdwarf's reading of the
object, and the variables amddwarf_object_vars_at lists at PCs spread over
the line tables with those of libdwarf's scopes. A check passes when the
helper finds no difference and compared a real amount (DIEs with
attributes, and PCs with variables).

Usage: test_die_tree.py --amddwarf PATH --work DIR --build DIR
"""
import os
import re
import sys

from corpus_util import (arguments, check, compile_device, link_shared, missing_tool, run,
                         run_ok, summary, write)
from test_dump_dwarfdump import HIP_SOURCE, OPENCL_SOURCE

HERE = os.path.dirname(os.path.abspath(__file__))
GEN_OBJECT = os.path.join(HERE, "..", "..", "bench", "gen_object.sh")


def build(work):
    """The linked objects to check: (label, path)."""
    objects = []
    sources = {"cl": write(os.path.join(work, "k.cl"), OPENCL_SOURCE),
               "hip": write(os.path.join(work, "k.hip"), HIP_SOURCE)}
    for lang, src in sources.items():
        for opt in ("-O0", "-O2"):
            for dwarf in ("-gdwarf-4", "-gdwarf-5"):
                stem = os.path.join(work, "%s%s%s" % (lang, opt, dwarf))
                compile_device(lang, src, stem + ".o", cpu="gfx90a", flags=("-g", dwarf, opt))
                link_shared(stem + ".o", stem + ".so")
                objects.append(("%s %s %s" % (lang, opt, dwarf), stem + ".so"))
    big = run_ok(["bash", GEN_OBJECT, os.path.join(work, "bench-object"), "2"]).stdout.strip()
    objects.append(("bench_object input (2 copies)", big))
    return objects


def main():
    args = arguments(__doc__, build_required=True)
    if missing_tool("clang-19", "ld.lld-19"):
        return 0
    helper = os.path.join(args.build, "tests", "die_tree_check")
    for label, path in build(args.work):
        r = run([helper, path])
        sys.stdout.write(r.stdout[-3000:])
        m = re.search(r"checked (\d+) DIEs, (\d+) attributes, (\d+) PCs, (\d+) variables: "
                      r"(\d+) differences", r.stdout)
        check(r.returncode == 0 and m is not None and m.group(5) == "0",
              "%s: summaries and variables agree with libdwarf (%s)"
              % (label, r.stderr.strip() or "see above"))
        check(m is not None and int(m.group(1)) > 20 and int(m.group(2)) > 100,
              "%s: DIEs and attributes were compared" % label)
        check(m is not None and int(m.group(3)) > 0 and int(m.group(4)) > 0,
              "%s: PCs with variables were compared" % label)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
