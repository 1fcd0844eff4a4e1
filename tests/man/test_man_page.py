#!/usr/bin/env python3
"""The amddwarf(1) man page: it renders with man(1) without a warning, it
has a section for every command `amddwarf --help` lists, holding that
command's help, and every command's help shows an example.

usage: test_man_page.py AMDDWARF MAN_PAGE
"""
import os
import re
import subprocess
import sys


def main():
    amddwarf, page = sys.argv[1], sys.argv[2]
    failures = []
    top = subprocess.run([amddwarf, "--help"], capture_output=True, text=True).stdout
    block = top.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    commands = [l.split()[0] for l in block.split("\n") if l.strip()]
    if len(commands) < 10:
        failures.append("only %d commands in 'amddwarf --help'" % len(commands))
    env = dict(os.environ, MANWIDTH="100", MAN_KEEP_FORMATTING="0", LC_ALL="C.UTF-8")
    done = subprocess.run(["man", "--warnings=w", "-l", page], capture_output=True, text=True,
                          env=env)
    if done.returncode != 0 or done.stderr.strip():
        failures.append("man -l %s: exit %d: %s" % (page, done.returncode, done.stderr.strip()))
    rendered = re.sub(r".\x08", "", done.stdout)
    if "Examples:" not in top:
        failures.append("'amddwarf --help' shows no example")
    for name in commands:
        if not re.search(r"^AMDDWARF %s$" % re.escape(name.upper()), rendered, re.M):
            failures.append("no section AMDDWARF %s in the man page" % name.upper())
        usage = subprocess.run([amddwarf, name, "--help"], capture_output=True, text=True)
        if usage.returncode != 0:
            failures.append("'amddwarf %s --help' exits %d" % (name, usage.returncode))
        if "example" not in usage.stdout.lower():
            failures.append("'amddwarf %s --help' shows no example" % name)
        first = usage.stdout.strip().split("\n")[0].strip()
        if first and first not in rendered:
            failures.append("the man page lacks '%s' of 'amddwarf %s --help'" % (first, name))
    for f in failures:
        print("FAIL", f)
    print("%d passed, %d failed" % (0 if failures else 1, 1 if failures else 0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
