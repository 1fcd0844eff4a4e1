#!/usr/bin/env python3
"""Writes the amddwarf(1) man page from the CLI's own help texts.

The page is made at build time from `amddwarf --help` (the command list)
and `amddwarf COMMAND --help` for every command listed, so it says what the
binary says and never drifts from it.

usage: gen_man.py AMDDWARF OUTPUT
"""
import re
import subprocess
import sys


def help_text(amddwarf, *args):
    done = subprocess.run([amddwarf, *args, "--help"], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        sys.exit("gen_man.py: '%s' exited %d: %s"
                 % (" ".join([amddwarf, *args, "--help"]), done.returncode, done.stderr))
    return done.stdout


def roff_escape(line):
    """One line of help text, kept as it is in no-fill mode."""
    line = line.replace("\\", "\\e")
    if line.startswith((".", "'")):
        line = "\\&" + line
    return line


def preformatted(text):
    lines = [roff_escape(l) for l in text.rstrip("\n").split("\n")]
    return [".nf"] + [l if l else ".sp" for l in lines] + [".fi"]


def main():
    amddwarf, output = sys.argv[1], sys.argv[2]
    top = help_text(amddwarf)
    version = subprocess.run([amddwarf, "--version"], capture_output=True, text=True,
                             check=False).stdout.split("\n")[0]
    # "  NAME   summary" lines of the Commands: block.
    block = top.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    commands = [re.match(r"\s+(\S+)\s+(.*)", l).groups() for l in block.split("\n") if l.strip()]
    intro = top.split("\n\n", 1)[1].split("Commands:", 1)[0].strip()
    out = [
        '.TH AMDDWARF 1 "" "%s" "User Commands"' % version,
        ".SH NAME",
        "amddwarf \\- read, evaluate, check and produce AMDGPU DWARF",
        ".SH SYNOPSIS",
        ".B amddwarf",
        ".I COMMAND",
        "[\\fIOPTIONS\\fR] [\\fIARGS\\fR]",
        ".br",
        ".B amddwarf",
        "\\fICOMMAND\\fR \\fB\\-\\-help\\fR",
        ".SH DESCRIPTION",
    ]
    out += [roff_escape(l) for l in intro.split("\n")]
    out += [".SH COMMANDS"]
    for name, summary in commands:
        out += [".TP", ".B %s" % name, roff_escape(summary)]
    out += [".SH EXAMPLES"] + preformatted(top.split("Examples:\n", 1)[1].split("\n\n", 1)[0]
                                           if "Examples:\n" in top else "")
    for name, _ in commands:
        out += ['.SH "AMDDWARF %s"' % name.upper()] + preformatted(help_text(amddwarf, name))
    out += [
        ".SH EXIT STATUS",
        "0 success, 1 bad input or problems found, 2 bad usage.",
        ".SH SEE ALSO",
        ".BR llvm-dwarfdump (1),",
        ".BR rocgdb (1)",
    ]
    with open(output, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
