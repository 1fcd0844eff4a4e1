#!/usr/bin/env python3
"""The variables a frame lists (amddwarf_wave_frame_variables) on a clang-19
-O2 object, through `amddwarf vars --state` and the debug adapter.

At -O2 clang inlines `helper` into the kernel and keeps a concrete DIE only
for the variables whose value survives: the others (`a`, `s`, `priv`) are
declared only in the abstract origin. The oracle is llvm-dwarfdump-19
--debug-info: for the inlined subroutine holding the PC, the variables and
parameters of its DW_AT_abstract_origin that none of its children names as
abstract origin. Both views must list exactly those as optimized out, with
the same reason, arguments under Arguments and variables under Locals, and
the concrete ones as ordinary variables.
"""
import json
import os
import re
import sys

from corpus_util import Dap, arguments, check, compile_opencl, missing_tool, run_ok, summary, write

KERNEL = r"""global int gcount = 3;
static inline int helper(int a) {
  int s = a * 3;
  int priv[4] = {a, a + 1, a + 2, a + 3};
  int unused = 5;
  return s + priv[a & 3];
}
kernel void k(global int *out, int n) {
  int x = n + 1;
  out[get_global_id(0)] = helper(x) + x;
  out[n] = gcount;
}
"""


def dies(path):
    """{offset: {"tag", "attrs", "parent"}} from llvm-dwarfdump-19 --debug-info."""
    out, stack = {}, []
    for line in run_ok(["llvm-dwarfdump-19", "--debug-info", path]).stdout.splitlines():
        m = re.match(r"^0x([0-9a-f]+):( +)(DW_TAG_\w+|NULL)", line)
        if m:
            depth = len(m.group(2))
            while stack and stack[-1][1] >= depth:
                stack.pop()
            if m.group(3) == "NULL":
                continue
            offset = int(m.group(1), 16)
            out[offset] = {"tag": m.group(3), "attrs": {},
                           "parent": stack[-1][0] if stack else None}
            stack.append((offset, depth))
            continue
        a = re.match(r"^\s+(DW_AT_\w+)\s+\((.*)$", line)
        if a and stack:
            value = a.group(2)
            out[stack[-1][0]]["attrs"][a.group(1)] = value[:-1] if value.endswith(")") else value
    return out


def children(tree, offset):
    return [o for o, d in sorted(tree.items()) if d["parent"] == offset]


def ref(value):
    return int(re.match(r"0x([0-9a-f]+)", value).group(1), 16)


def name_of(d):
    return re.search(r'"([^"]*)"', d["attrs"].get("DW_AT_name", '""')).group(1)


def main():
    args = arguments(__doc__)
    if missing_tool("clang-19", "llvm-dwarfdump-19"):
        return 0
    work, amddwarf = args.work, args.amddwarf
    src = write(os.path.join(work, "inl.cl"), KERNEL)
    obj = os.path.join(work, "inl.o")
    compile_opencl(src, obj, flags=["-g", "-O2", "-cl-std=CL2.0"])
    tree = dies(obj)
    inlined = [o for o, d in tree.items() if d["tag"] == "DW_TAG_inlined_subroutine"]
    if not check(len(inlined) == 1, "one inlined subroutine: %r" % inlined):
        return summary()
    scope = tree[inlined[0]]
    origin = ref(scope["attrs"]["DW_AT_abstract_origin"])
    concrete = {ref(tree[c]["attrs"]["DW_AT_abstract_origin"]) for c in children(tree, inlined[0])
                if "DW_AT_abstract_origin" in tree[c]["attrs"]}
    declared = [(name_of(tree[c]), tree[c]["tag"]) for c in children(tree, origin)
                if tree[c]["tag"] in ("DW_TAG_variable", "DW_TAG_formal_parameter")]
    only_origin = [(name_of(tree[c]), tree[c]["tag"]) for c in children(tree, origin)
                   if tree[c]["tag"] in ("DW_TAG_variable", "DW_TAG_formal_parameter")
                   and c not in concrete]
    kept = [n for n, _ in declared if (n, _) not in only_origin]
    check(only_origin and kept, "the producer drops some locals and keeps some: %r, %r"
          % (only_origin, kept))
    low = int(scope["attrs"]["DW_AT_low_pc"], 16)
    state = write(os.path.join(work, "stop.json"), json.dumps(
        {"architecture": "gfx900", "wave_size": 64, "lane": 0, "exec": "0xf", "pc": low,
         "registers": {}}))

    # ---- vars --state ----
    r = run_ok([amddwarf, "vars", obj, "--state", state, "--json"])
    listed = json.loads(r.stdout)["vars"]
    missing = [(v["name"], "DW_TAG_formal_parameter" if v["kind"] == "parameter"
                else "DW_TAG_variable") for v in listed if "missing" in v]
    check(sorted(missing) == sorted(only_origin),
          "vars lists the origin-only ones: %r, want %r" % (missing, only_origin))
    reason = {v["name"]: v["missing"] for v in listed if "missing" in v}
    check(all(v["value"] == "<optimized out>" and "abstract origin (DIE 0x%x" % origin in v["missing"]
              for v in listed if "missing" in v), "vars: value and reason %r" % reason)
    check(all(any(v["name"] == n and "missing" not in v for v in listed) for n in kept),
          "vars keeps the concrete ones %r" % kept)
    text = run_ok([amddwarf, "vars", obj, "--state", state]).stdout
    for name, _ in only_origin:
        check(re.search(r"^  \w+ %s: .*\n    location: <optimized out> \(declared only in the "
                        r"abstract origin" % re.escape(name), text, re.M) is not None,
              "vars text lists %s: %s" % (name, text))

    # ---- the adapter: the same variables, the same reason ----
    d = Dap(amddwarf)
    d.request("initialize", {"adapterID": "amddwarf"})
    check(d.request("launch", {"program": obj, "stop": state}).get("success"), "launch")
    frame = d.request("stackTrace", {"threadId": 1})["body"]["stackFrames"][0]["id"]
    scopes = {s["name"]: s["variablesReference"]
              for s in d.request("scopes", {"frameId": frame})["body"]["scopes"]}
    shown = {}
    for scope_name, tag in (("Locals", "DW_TAG_variable"), ("Arguments", "DW_TAG_formal_parameter")):
        for v in d.request("variables", {"variablesReference": scopes[scope_name]})["body"]["variables"]:
            shown[(v["name"], tag)] = v["value"]
    for name, tag in only_origin:
        want = "<optimized out> (%s)" % reason.get(name)
        check(shown.get((name, tag)) == want,
              "adapter %s %s: %r, want %r" % (tag, name, shown.get((name, tag)), want))
    # The unit's program-scope variables (DW_TAG_variable children of the
    # unit DIE) are the Globals scope, and no other scope lists them.
    unit_vars = sorted(name_of(tree[c]) for c in children(tree, min(tree))
                       if tree[c]["tag"] == "DW_TAG_variable")
    globals_ = sorted(v["name"] for v in d.request(
        "variables", {"variablesReference": scopes["Globals"]})["body"]["variables"])
    check(unit_vars == ["gcount"] and globals_ == unit_vars,
          "Globals: %r, the unit's variables %r" % (globals_, unit_vars))
    check(not any(n == "gcount" for n, _ in shown), "gcount only under Globals")
    # The kernel's frame stands at the same PC as the inlined call's: it
    # lists the kernel subprogram's own variables and parameters, not the
    # inlined function's (the frames' lists are kept apart per scope).
    kernel = tree[inlined[0]]["parent"]
    while kernel is not None and tree[kernel]["tag"] != "DW_TAG_subprogram":
        kernel = tree[kernel]["parent"]
    kernel_names = sorted(name_of(tree[c]) for c in children(tree, kernel)
                          if tree[c]["tag"] in ("DW_TAG_variable", "DW_TAG_formal_parameter"))
    caller = d.request("stackTrace", {"threadId": 1})["body"]["stackFrames"][1]["id"]
    caller_scopes = {s["name"]: s["variablesReference"]
                     for s in d.request("scopes", {"frameId": caller})["body"]["scopes"]}
    caller_names = sorted(v["name"] for scope_name in ("Locals", "Arguments")
                          for v in d.request("variables", {"variablesReference":
                                                           caller_scopes[scope_name]})
                          ["body"]["variables"])
    check(kernel_names and caller_names == kernel_names,
          "the kernel's frame lists %r, the subprogram declares %r" % (caller_names, kernel_names))
    check(sorted(n for n, _ in shown) == sorted(n for n, _ in declared),
          "the inlined frame lists %r, its origin declares %r" % (sorted(shown), declared))
    w = d.request("setVariable", {"variablesReference": scopes["Locals"], "name": "s",
                                  "value": "1"})
    check(not w["success"] and "optimized out" in w.get("message", ""),
          "setVariable on an origin-only local: %r" % w.get("message"))
    d.close()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
