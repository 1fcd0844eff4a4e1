#!/usr/bin/env python3
"""Evaluation trace switches of the CLI that golden cases cannot express:
the AMDDWARF_TRACE environment variable (same output as --trace; "0" and ""
turn it off) and --stats, whose counts are exact and whose phase times vary.
The wave snapshot is tests/golden/trace/wave.json."""
import os
import pathlib
import re
import sys

import corpus_util
from corpus_util import arguments, check, summary

HERE = pathlib.Path(__file__).resolve().parent
WAVE = HERE.parent / "golden" / "trace" / "wave.json"
EXPR = "DW_OP_regx s40; DW_OP_piece 4; DW_OP_regx s41; DW_OP_piece 4"


def main():
    args = arguments(__doc__)

    def run(extra, env_value=None):
        env = dict(os.environ)
        env.pop("AMDDWARF_TRACE", None)
        if env_value is not None:
            env["AMDDWARF_TRACE"] = env_value
        return corpus_util.run([args.amddwarf, "expr", "eval", "--state", str(WAVE), "--read",
                                "8"] + extra + [EXPR], env=env)

    flag = run(["--trace"])
    check(flag.returncode == 0 and "[0x6] DW_OP_piece 0x4" in flag.stderr, "--trace prints ops")
    env = run([], "1")
    check(env.stderr == flag.stderr and env.stdout == flag.stdout, "AMDDWARF_TRACE=1 equals --trace")
    for off in ("0", ""):
        quiet = run([], off)
        check(quiet.stderr == "" and quiet.stdout == flag.stdout, f"AMDDWARF_TRACE={off!r} is off")

    stats = run(["--stats"])
    expected = {"operations executed": 4, "deepest stack": 2, "register reads": 2,
                "memory reads": 0, "bytes read": 8, "failed accesses": 0}
    for name, value in expected.items():
        m = re.search(rf"^  {name}\s+(\d+)$", stats.stderr, re.M)
        check(m is not None and int(m.group(1)) == value, f"--stats {name} = {value}")
    for phase in ("load", "assemble", "evaluate", "read"):
        check(re.search(rf"^  phase {phase}\s+1 run, \d+\.\d{{3}} ms$", stats.stderr, re.M)
              is not None, f"--stats phase {phase}")
    check("DW_OP_piece" not in stats.stderr, "--stats alone does not trace")

    return summary()


if __name__ == "__main__":
    sys.exit(main())
