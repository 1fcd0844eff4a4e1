#!/usr/bin/env python3
"""Golden tests of the amddwarf CLI: one case per .test file.

A case file reads like a terminal session:

    # What this case shows (comment lines start with '#').
    $ amddwarf expr decode 91 7f
    exit: 0
    --- stdout
    DW_OP_fbreg -1
    --- stderr
    (optional; when absent, stderr is not compared)

The command is split like a shell would (no expansion) and runs in the case
file's directory, so data files sit next to their cases; `amddwarf` is
replaced by the binary under test. `exit:` defaults to 0. A line
`requires: disasm` skips the case when `amddwarf --version` says the
disassembler was not built. With --update the expected sections are
rewritten from the actual output (review the diff!).
"""
import argparse
import pathlib
import shlex
import subprocess
import sys


def parse_case(path):
    command, exit_status, sections, current, requires = None, 0, {}, None, []
    for line in path.read_text().splitlines():
        if current is not None and not line.startswith("--- "):
            sections[current].append(line)
        elif line.startswith("--- "):
            current = line[4:].strip()
            if current not in ("stdout", "stderr"):
                raise ValueError(f"{path}: unknown section '{current}'")
            sections[current] = []
        elif line.startswith("$ "):
            command = line[2:]
        elif line.startswith("exit:"):
            exit_status = int(line[5:].strip())
        elif line.startswith("requires:"):
            requires += line[9:].split()
        elif line.startswith("#") or not line.strip():
            continue
        else:
            raise ValueError(f"{path}: unexpected line '{line}'")
    if command is None:
        raise ValueError(f"{path}: no '$ command' line")
    return command, exit_status, {k: "\n".join(v) for k, v in sections.items()}, requires


def run_case(path, amddwarf):
    command, exit_status, expected, _ = parse_case(path)
    argv = shlex.split(command)
    if argv and argv[0] == "amddwarf":
        argv[0] = amddwarf
    done = subprocess.run(argv, cwd=path.parent, capture_output=True, text=True,
                          timeout=120)
    actual = {"stdout": done.stdout.rstrip("\n"), "stderr": done.stderr.rstrip("\n")}
    problems = []
    if done.returncode != exit_status:
        problems.append(f"exit status {done.returncode}, expected {exit_status}")
    for name, text in expected.items():
        if actual[name] != text.rstrip("\n"):
            problems.append(f"{name} differs:\n--- expected\n{text}\n--- actual\n{actual[name]}")
    return command, exit_status, expected, actual, done.returncode, problems


def write_case(path, command, actual, returncode, expected):
    lines = [l for l in path.read_text().splitlines()
             if l.startswith("#") or l.startswith("requires:")]
    lines += [f"$ {command}", f"exit: {returncode}", "--- stdout", actual["stdout"]]
    if "stderr" in expected or actual["stderr"]:
        lines += ["--- stderr", actual["stderr"]]
    path.write_text("\n".join(lines).rstrip("\n") + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--amddwarf", required=True)
    parser.add_argument("--update", action="store_true")
    parser.add_argument("root", type=pathlib.Path)
    parser.add_argument("filter", nargs="?", default="")
    args = parser.parse_args()

    cases = sorted(p for p in args.root.rglob("*.test") if args.filter in str(p))
    version = subprocess.run([args.amddwarf, "--version"], capture_output=True, text=True)
    features = set() if "disassembler: not built" in version.stdout else {"disasm"}
    passed = failed = skipped = 0
    for path in cases:
        name = path.relative_to(args.root)
        try:
            if not set(parse_case(path)[3]) <= features:
                skipped += 1
                continue
            command, _, expected, actual, returncode, problems = run_case(path, args.amddwarf)
        except (ValueError, subprocess.TimeoutExpired) as error:
            print(f"FAIL {name}: {error}")
            failed += 1
            continue
        if problems and args.update:
            write_case(path, command, actual, returncode, expected)
            print(f"UPDATED {name}")
            passed += 1
        elif problems:
            print(f"FAIL {name}")
            for problem in problems:
                print("  " + problem.replace("\n", "\n  "))
            failed += 1
        else:
            passed += 1
    print(f"golden: {passed} passed, {failed} failed" +
          (f", {skipped} skipped (not built: disasm)" if skipped else ""))
    return 1 if failed or not cases else 0


if __name__ == "__main__":
    sys.exit(main())
