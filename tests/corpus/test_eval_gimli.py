#!/usr/bin/env python3
"""Differential test of the evaluator against an independent one: gimli's
Evaluation (Rust, built offline from Debian's librust-gimli-dev with cargo, in
tests/corpus/gimli_eval) and `amddwarf expr eval` evaluate the same standard
DWARF expressions in the same environment (registers, memory, frame base) and
must agree on the resulting location, value or described bytes.

Hand-written cases cover every standard operation family; random arithmetic
expressions (fixed seed) cover the value semantics (signedness, wrapping,
shifts, comparisons). Prints `N passed, N failed`.
"""
import json
import os
import pathlib
import random
import shutil
import sys

from corpus_util import arguments, check, run, run_ok, summary

HERE = pathlib.Path(__file__).resolve().parent


def uleb(v):
    out = []
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return out


def sleb(v):
    out = []
    while True:
        b = v & 0x7F
        v >>= 7
        if (v == 0 and not b & 0x40) or (v == -1 and b & 0x40):
            out.append(b)
            return out
        out.append(b | 0x80)


def lit(n):
    return [0x30 + n] if 0 <= n < 32 else [0x11] + sleb(n)


def u64(n):
    return [0x0E] + list((n & (2**64 - 1)).to_bytes(8, "little"))


OPS = {name: code for name, code in [
    ("deref", 0x06), ("dup", 0x12), ("drop", 0x13), ("over", 0x14), ("swap", 0x16),
    ("rot", 0x17), ("abs", 0x19), ("and", 0x1A), ("div", 0x1B), ("minus", 0x1C), ("mod", 0x1D),
    ("mul", 0x1E), ("neg", 0x1F), ("not", 0x20), ("or", 0x21), ("plus", 0x22), ("shl", 0x24),
    ("shr", 0x25), ("shra", 0x26), ("xor", 0x27), ("eq", 0x29), ("ge", 0x2A), ("gt", 0x2B),
    ("le", 0x2C), ("lt", 0x2D), ("ne", 0x2E), ("stack_value", 0x9F), ("nop", 0x96)]}


def o(name):
    return [OPS[name]]


def addr(a):
    return [0x03] + list(a.to_bytes(8, "little"))


def regx(r):
    return [0x90] + uleb(r)


def bregx(r, d):
    return [0x92] + uleb(r) + sleb(d)


def piece(n):
    return [0x93] + uleb(n)


def bit_piece(n, off):
    return [0x9D] + uleb(n) + uleb(off)


def branch(code, delta):
    return [code] + list((delta & 0xFFFF).to_bytes(2, "little"))


def hand_cases():
    sv = o("stack_value")
    cases = [
        lit(1) + lit(2) + o("plus"),
        lit(7) + sv,
        [0x08, 0xFF] + sv, [0x09, 0xFF] + sv, [0x0A, 0x34, 0x12] + sv, [0x0B, 0xFE, 0xFF] + sv,
        [0x0C, 1, 2, 3, 4] + sv, [0x0D, 0xFF, 0xFF, 0xFF, 0xFF] + sv, u64(2**63 + 5) + sv,
        [0x10] + uleb(123456789) + sv, [0x11] + sleb(-98765) + sv,
        lit(3) + lit(4) + o("over") + sv, lit(3) + lit(4) + lit(5) + o("rot") + sv,
        lit(3) + lit(4) + o("swap") + o("minus") + sv, lit(3) + o("dup") + o("mul") + sv,
        lit(3) + lit(4) + [0x15, 1] + sv, lit(9) + lit(4) + o("drop") + sv,
        lit(-7) + lit(2) + o("div") + sv, lit(7) + lit(-2) + o("div") + sv,
        lit(-7) + lit(3) + o("mod") + sv, lit(17) + lit(5) + o("mod") + sv,
        lit(-5) + o("abs") + sv, lit(5) + o("neg") + sv, lit(0) + o("not") + sv,
        lit(-16) + lit(2) + o("shr") + sv, lit(-16) + lit(2) + o("shra") + sv,
        lit(1) + lit(63) + o("shl") + sv, lit(1) + [0x08, 64] + o("shl") + sv,
        lit(-1) + lit(1) + o("lt") + sv, lit(-1) + lit(1) + o("gt") + sv,
        lit(2) + lit(2) + o("le") + sv, lit(2) + lit(3) + o("ge") + sv,
        lit(2) + lit(3) + o("eq") + sv, lit(2) + lit(3) + o("ne") + sv,
        lit(12) + [0x23] + uleb(1000) + sv,
        lit(1) + lit(0) + o("div") + sv,
        # control flow: if/else and a loop summing 5..1
        lit(1) + branch(0x28, 4) + lit(5) + branch(0x2F, 1) + lit(9) + sv,
        lit(0) + branch(0x28, 4) + lit(5) + branch(0x2F, 1) + lit(9) + sv,
        lit(0) + lit(5) + o("dup") + o("rot") + o("plus") + o("swap") + lit(1) + o("minus")
        + o("dup") + branch(0x28, -10) + o("drop") + sv,
        # memory
        addr(0x100), addr(0x100) + o("deref") + sv, addr(0x101) + [0x94, 3] + sv,
        lit(8) + lit(9) + o("plus") + [0x94, 2] + sv,
        # registers
        regx(40), bregx(40, 8), bregx(40, -8) + o("deref") + sv,
        [0x70 + 16] + sleb(4), [0x70 + 16] + sleb(-0x1010) + o("deref") + sv,
        # frame base
        [0x91] + sleb(16), [0x91] + sleb(-16) + [0x94, 1] + sv,
        # implicit
        [0x9E, 3, 0xAA, 0xBB, 0xCC],
        # pieces
        addr(0x100) + piece(4) + addr(0x200) + piece(2),
        addr(0x100) + piece(2) + addr(0x102) + piece(2),
        regx(40) + piece(4) + regx(41) + piece(4),
        regx(40) + piece(2) + addr(0x300) + piece(3) + lit(7) + sv + piece(1),
        regx(40) + bit_piece(4, 8) + addr(0x300) + bit_piece(12, 3),
        lit(9) + sv + bit_piece(6, 2) + [0x9E, 2, 0x12, 0x34] + bit_piece(10, 3),
    ]
    return cases


def random_arith(rng):
    """A random well-formed arithmetic expression ending in stack_value."""
    ops = ["plus", "minus", "mul", "and", "or", "xor", "shl", "shr", "shra", "div", "mod",
           "eq", "ne", "lt", "gt", "le", "ge"]
    unary = ["neg", "not", "abs"]
    code = []
    depth = 0
    for _ in range(rng.randrange(2, 12)):
        if depth < 2 or rng.random() < 0.45:
            choice = rng.random()
            if choice < 0.4:
                code += lit(rng.randrange(32))
            elif choice < 0.7:
                code += [0x11] + sleb(rng.randrange(-2**20, 2**20))
            else:
                code += u64(rng.getrandbits(64))
            depth += 1
        elif rng.random() < 0.2:
            code += o(rng.choice(unary))
        else:
            name = rng.choice(ops)
            if name in ("shl", "shr", "shra"):
                code += o("drop") + lit(rng.randrange(70))
            code += o(name)
            depth -= 1
    return code + o("stack_value")


def ours(amddwarf, state, hexcode, read_bytes):
    argv = [amddwarf, "expr", "eval", "--state", str(state), "--json", "--hex", hexcode]
    if read_bytes:
        argv[3:3] = ["--read", str(read_bytes)]
    done = run(argv, timeout=60)
    return json.loads(done.stdout) if done.stdout.strip() else {"error": done.stderr}


def agree(gimli, mine):
    kind, _, arg = gimli.partition(" ")
    if kind == "error":
        return "error" in mine
    if "error" in mine:
        return False
    r = mine["result"]
    if kind == "address":
        return (r["kind"] == "memory" and r["address_space"] == "DW_ASPACE_none"
                and int(r["address"], 16) == int(arg) and r["bit_offset"] == 0)
    if kind == "register":
        return r["kind"] == "register" and r["register"] == int(arg) and r["bit_offset"] == 0
    if kind == "value":
        return r["kind"] == "implicit" and r["bytes"] == int(arg).to_bytes(8, "little").hex()
    if kind == "implicit":
        return r["kind"] == "implicit" and r["bytes"] == arg
    if kind == "pieces":
        return r.get("read") == arg
    return False


def main():
    args = arguments(__doc__, build_required=True)
    work = pathlib.Path(args.work)
    registry = pathlib.Path("/usr/share/cargo/registry")
    if not shutil.which("cargo") or not list(registry.glob("gimli-*")):
        print("skipped: needs cargo and librust-gimli-dev (Debian)")
        print("0 passed, 0 failed")
        return 0
    crate = work / "gimli_eval"
    if crate.exists():
        shutil.rmtree(crate)
    shutil.copytree(HERE / "gimli_eval", crate)
    env = dict(os.environ, CARGO_TARGET_DIR=str(work / "target"))
    run_ok(["cargo", "build", "--release", "--quiet"], cwd=crate, env=env)
    gimli_bin = work / "target" / "release" / "amddwarf-gimli-eval"

    # The environment of main.rs as a snapshot.
    state = {
        "registers": dict({str(n): hex(0x1000 + n) for n in range(32, 96)}, **{"16": hex(0x1010)}),
        "memory": [{"address": 0, "bytes": bytes(((a * 7 + 3) & 0xFF) for a in range(0x3000)).hex()}],
        "frame_base": {"hex": "0a0020"},  # DW_OP_const2u 0x2000
    }
    (work / "env.json").write_text(json.dumps(state))

    rng = random.Random(20261122)
    cases = hand_cases() + [random_arith(rng) for _ in range(300)]
    hexes = [bytes(c).hex() for c in cases]
    done = run_ok([str(gimli_bin)], stdin="\n".join(hexes) + "\n")
    answers = done.stdout.splitlines()
    assert len(answers) == len(hexes)
    for hexcode, answer in zip(hexes, answers):
        read = len(answer.split(" ", 1)[1]) // 2 if answer.startswith("pieces ") else 0
        mine = ours(args.amddwarf, work / "env.json", hexcode, read)
        check(agree(answer, mine), f"{hexcode}: gimli: {answer}; amddwarf: {json.dumps(mine)}")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
