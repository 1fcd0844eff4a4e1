#!/usr/bin/env python3
"""Instruction indexes of real instrumented SPIR-V resolve to the right
instruction and source line.

Compiles compute and fragment shaders (functions, loops, #define, #if,
#line with and without file names, a source large enough for
OpSourceContinued) with Debian's glslangValidator -V -g / -gV / -gVS,
instruments each module with Debian's spirv-opt (2023.1) passes
--inst-desc-idx-check, --inst-buff-oob-check, --inst-buff-addr-check and
--inst-debug-printf (shader id 23, descriptor set 7: the values spirv-opt's
command-line flags use), and reads every instruction index the instrumented
code can write from the instrumented module's disassembly (spirv-dis): the
constant first argument of each call to an inst_*_stream_write_N function.

Each index is resolved with `amddwarf spirv-line ORIGINAL.spv INDEX --json`
against the module before instrumentation and checked against facts that
do not come from amddwarf:
  * spirv-opt's own view of the guarded instruction: in the instrumented
    module, the block that branches to the same merge block as the block
    making the stream-write call holds the guarded (cloned) instruction,
    preceded by the OpLine / DebugLine spirv-opt re-emits for it; the opcode
    and line must match;
  * for debug printf, the instruction must be the OpExtInst
    NonSemantic.DebugPrintf whose format string id is the call's argument;
  * the line, mapped through the original file's #line directives by a
    separate reading of the file, is a line marked "// @" (every line with a
    checked access carries the marker);
  * when the module embeds source text (-g, -gVS) the source line amddwarf
    reports is exactly that physical line of the original file.

A buffer of one record per index, symbolized with `amddwarf symbolize`,
names those lines; the instrumented module given with --instrumented gives
the record format. The same records at the start of a 3 GiB sparse buffer
are read with bounded memory (peak RSS against the small buffer's, and
within a 1 GiB address-space limit).

Descriptor input buffers: for every module the descriptor checks
(--inst-desc-idx-check, --inst-buff-oob-check) instrument, the input buffer
the validation layer writes for the original module's bindings is built as
its gpu_validation.cpp does (2019-2023: with the sizes when descriptor
indexing is on, word 0 = 1 and no sizes when it is off; sets without
bindings as zeros), decoded with `amddwarf symbolize --descriptors
--instrumented`, and compared with what the instrumented code itself reads:
every call of an inst_bindless_direct_read_N function is evaluated on the
buffer by interpreting that function's SPIR-V (access chains, loads and
adds on the input buffer), for every element the call can name.
"""
import json
import pathlib
import re
import struct
import sys

import corpus_util
from corpus_util import Checks, arguments

FRAG = r'''#version 450
#extension GL_EXT_nonuniform_qualifier : require
#extension GL_GOOGLE_cpp_style_line_directive : require
#define NTEX 6
layout(set = 0, binding = 1) uniform sampler2D tex[NTEX];
layout(set = 0, binding = 2) uniform sampler2D tex2[];
layout(set = 0, binding = 3) buffer SB { vec4 x[]; } sb;
layout(location = 0) in vec2 texcoord;
layout(location = 1) flat in int tex_ind;
layout(location = 0) out vec4 uFragColor;
#if NTEX > 4
vec4 pick(int i) {
    return texture(tex[i], texcoord); // @
}
#else
vec4 pick(int i) { return vec4(0.0); }
#endif
#line 100
void main() {
    vec4 light = vec4(0.5);
    uFragColor = light * pick(tex_ind);
#line 200 "other.glsl"
    if (tex_ind > 2) {
        uFragColor += texture(tex2[nonuniformEXT(tex_ind)], texcoord); // @
    }
#line 300 "frag.frag"
    for (int k = 0; k < tex_ind; k++) {
        uFragColor += sb.x[k]; // @
    }
}
'''

COMP = r'''#version 450
#extension GL_EXT_debug_printf : require
layout(local_size_x = 64) in;
#define SCALE 3
layout(set = 0, binding = 0) buffer Data { uint vals[]; } data;
layout(set = 0, binding = 1) uniform U { uint n; uint m; } u;
layout(set = 0, binding = 2, r32ui) uniform uimageBuffer tb;
layout(set = 0, binding = 3) uniform usamplerBuffer sbuf;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint acc = 0u;
    for (uint k = 0u; k < u.n; k++) { // @
        acc += data.vals[k] * uint(SCALE); // @
    }
#if SCALE > 2
    data.vals[i] = acc + texelFetch(sbuf, int(i)).x; // @
#endif
#line 50
    if (acc > 10u) {
        data.vals[i + 1u] = u.m; // @
    }
    imageStore(tb, int(i), uvec4(i)); // @
    debugPrintfEXT("i=%u n=%d f=%f v=%v2f\\n", i, int(u.n), float(i), vec2(i, 1.0)); // @
}
'''

# glslangValidator 12 emits an invalid DebugTypeComposite (id 0) for buffer
# references with -gV/-gVS, so buffer-device-address checks use -g only.
BDA = r'''#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 1) in;
layout(buffer_reference, std430) buffer Node { uint v; uint w; };
layout(set = 0, binding = 0) uniform U { uint n; Node p; } u;
void helper(Node p, uint x) {
    p.w = x; // @
}
void main() {
    uint i = gl_GlobalInvocationID.x;
    Node p = u.p; // @
    p.v = i; // @
    if (i > u.n) { // @
        helper(p, i);
    }
}
'''


def big_source():
    lines = ['#version 450', 'layout(local_size_x = 1) in;',
             'layout(set = 0, binding = 0) buffer B { uint v[]; } b;']
    # About 300 KB of text: more than one OpSource instruction can hold
    # (65535 words), so glslang continues it with OpSourceContinued.
    lines += ['// padding %05d ' % i + '.' * 48 for i in range(4500)]
    lines += ['void main() {',
              '    uint i = gl_GlobalInvocationID.x;',
              '    b.v[i] = b.v[i + 1u] + 1u; // @',
              '}']
    return '\n'.join(lines) + '\n'


# glslangValidator 12 crashes on -gVS with a file name in #line: the
# variant without file names covers -gVS.
PLAIN = FRAG.replace(' "other.glsl"', '').replace(' "frag.frag"', '')

SHADERS = [
    ('frag.frag', FRAG, ['-g', '-gV'], 'vulkan1.1'),
    ('plain.frag', PLAIN, ['-g', '-gVS'], 'vulkan1.1'),
    ('comp.comp', COMP, ['-g', '-gV', '-gVS'], 'vulkan1.2'),
    ('bda.comp', BDA, ['-g'], 'vulkan1.2'),
    ('big.comp', None, ['-g'], 'vulkan1.1'),
]
PASSES = ['--inst-desc-idx-check', '--inst-buff-oob-check', '--inst-buff-addr-check',
          '--inst-debug-printf']


def run(cmd, cwd):
    """CMD run in the folder CWD."""
    return corpus_util.run(cmd, cwd=cwd)


def logical_lines(path, main_name):
    """Maps (file, line) to the physical line text, following #line."""
    mapping = {}
    current, number = main_name, 1
    for text in path.read_text().split('\n'):
        m = re.match(r'^\s*#\s*line\s+(\d+)(?:\s+"(.+)")?', text)
        if m:
            number = int(m.group(1))
            if m.group(2):
                current = m.group(2)
            continue
        mapping[(current, number)] = text
        number += 1
    return mapping


def disassembly(path, cwd):
    """Instructions of `spirv-dis --raw-id`: (result, opcode, operands)."""
    out = run(['spirv-dis', '--raw-id', str(path)], cwd).stdout
    insts, pending = [], ''
    for line in out.split('\n'):
        pending = pending + '\n' + line if pending else line
        if (pending.count('"') - pending.count('\\"')) % 2:
            continue  # inside a string literal that spans lines
        text = pending.strip()
        pending = ''
        if not text or text.startswith(';'):
            continue
        m = re.match(r'^(%\d+) = (Op\w+)\s*(.*)$', text, re.S)
        if m:
            insts.append((m.group(1), m.group(2), m.group(3).split()))
        else:
            parts = text.split()
            insts.append((None, parts[0], parts[1:]))
    return insts


TERMINATORS = {'OpBranch', 'OpBranchConditional', 'OpSwitch', 'OpReturn', 'OpReturnValue',
               'OpKill', 'OpUnreachable', 'OpTerminateInvocation'}
LINE_EXT = {'DebugLine', 'DebugNoLine', 'DebugScope', 'DebugNoScope'}


def oracle(instrumented, cwd):
    """Index -> list of facts spirv-opt's output states about it."""
    insts = disassembly(instrumented, cwd)
    names, consts = {}, {}
    for res, op, ops in insts:
        if op == 'OpName':
            names[ops[0]] = ops[1].strip('"')
        elif op == 'OpConstant' and res:
            try:
                consts[res] = int(ops[1], 0)
            except ValueError:
                pass
    writers = {i for i, n in names.items() if re.match(r'inst_\w+_stream_write_\d+$', n)}
    # Split function bodies into blocks.
    blocks, current = [], None
    for res, op, ops in insts:
        if op == 'OpLabel':
            current = {'label': res, 'insts': []}
            continue
        if current is None:
            continue
        current['insts'].append((res, op, ops))
        if op in TERMINATORS:
            current['term'] = (op, ops)
            blocks.append(current)
            current = None

    def line_of(block_insts, upto):
        line = None
        for res, op, ops in block_insts[:upto]:
            if op == 'OpLine':
                line = int(ops[1])
            elif op == 'OpNoLine':
                line = None
            elif op == 'OpExtInst' and len(ops) > 2 and ops[2] == 'DebugLine':
                line = consts.get(ops[4])
            elif op == 'OpExtInst' and len(ops) > 2 and ops[2] == 'DebugNoLine':
                line = None
        return line

    facts = {}
    for b in blocks:
        for res, op, ops in b['insts']:
            if op != 'OpFunctionCall' or ops[1] not in writers:
                continue
            index = consts[ops[2]]
            fact = facts.setdefault(index, {'guarded': [], 'printf_string': None})
            if names[ops[1]].startswith('inst_printf_'):
                fact['printf_string'] = consts.get(ops[3])
            term = b.get('term')
            if not term or term[0] != 'OpBranch':
                continue
            merge = term[1][0]
            for other in blocks:
                if other is b or other.get('term') != ('OpBranch', [merge]):
                    continue
                seq = other['insts'][:-1]
                for k in range(len(seq) - 1, -1, -1):
                    r2, op2, ops2 = seq[k]
                    if op2 in ('OpLine', 'OpNoLine', 'OpPhi'):
                        continue
                    if op2 == 'OpExtInst' and len(ops2) > 2 and ops2[2] in LINE_EXT:
                        continue
                    fact['guarded'].append((op2, line_of(seq, k)))
                    break
    return facts


def float_bits(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


def symbolize_check(r, amddwarf, work, spv, inst, facts, locs, pass_flag):
    """A v2 buffer holding one record per emitted index, as the instrumented
    code writes it (shader id 23), symbolized against the original module."""
    words, expected = [], []
    for loc in locs:
        if 'error' in loc:
            continue
        stage = 4 if spv.name.startswith(('frag', 'plain')) else 5
        stage_words = [float_bits(419.5), float_bits(254.5), 0] if stage == 4 else [7, 1, 0]
        if facts[loc['index']]['printf_string'] is not None:
            payload = [facts[loc['index']]['printf_string'], 7, 0xfffffffe,
                       float_bits(2.5), float_bits(3.0), float_bits(1.0)]
            expected.append('printf: i=7 n=-2 f=2.500000 v=3.000000, 1.000000')
        else:
            payload = [0, 9, 6]
            expected.append('Index of 9 used to index descriptor array of length 6.')
        record = [7 + len(payload), 23, loc['index'], stage] + stage_words + payload
        words += record
        if loc.get('file'):
            expected.append(f'file: {loc["file"]} at line {loc["line"]}'
                            if 'printf' not in expected[-1] else
                            f'from {loc["file"]} at line {loc["line"]}')
    if not words:
        return
    buf = work / f'{inst.name}.out'
    buf.write_bytes(struct.pack(f'<{len(words) + 4}I', 0, len(words), *words, 0, 0))
    c = run([amddwarf, 'symbolize', '--spirv', f'{spv.name}=23', '--buffer', buf.name,
             '--instrumented', inst.name], work)
    r.check(c.returncode == 0, f'symbolize {buf.name}: exit {c.returncode} {c.stderr}')
    r.check(c.stdout.startswith('buffer: format v2,'), f'symbolize {buf.name}: the '
            f'instrumented module gives format v2:\n{c.stdout}')
    for e in expected:
        r.check(e in c.stdout, f'symbolize {buf.name}: {e!r} in output:\n{c.stdout}')
    return buf, c.stdout


def vvl_input(sets, indexing):
    """The input buffer the validation layer writes (gpu_validation.cpp,
    2019-2023). SETS: per set, None (no bindings) or {binding: [flags]}."""
    count = len(sets)
    bindings = sum(max(b) + 1 for b in sets if b)
    elements = sum(len(f) for b in sets if b for f in b.values())
    if indexing:
        words = [0] * (1 + 2 * count + 2 * bindings + elements)
        sizes = 1 + count
        to_bindings = sizes + bindings
        words[0] = to_bindings
    else:
        words = [0] * (1 + count + bindings + elements)
        sizes, to_bindings = None, 1
        words[0] = 1
    to_written = to_bindings + count
    written = to_written + bindings
    for k, b in enumerate(sets):
        if not b:
            continue
        if indexing:
            words[1 + k] = sizes
        words[to_bindings + k] = to_written
        for binding in sorted(b):
            if indexing:
                words[sizes + binding] = len(b[binding])
            words[to_written + binding] = written
            for flag in b[binding]:
                words[written] = flag
                written += 1
        if indexing:
            sizes += max(b) + 1
        to_written += max(b) + 1
    assert written == len(words)
    return words


def descriptor_bindings(insts):
    """(set, binding) -> element count of the module's descriptors (runtime
    arrays get 5 elements)."""
    decor, types, consts = {}, {}, {}
    for res, op, ops in insts:
        if op == 'OpDecorate' and ops[1] in ('DescriptorSet', 'Binding'):
            decor.setdefault(ops[0], {})[ops[1]] = int(ops[2])
        elif op == 'OpConstant' and res:
            try:
                consts[res] = int(ops[1], 0)
            except ValueError:
                pass
        elif res and op.startswith('OpType'):
            types[res] = (op, ops)
    out = {}
    for res, op, ops in insts:
        if op != 'OpVariable' or res not in decor or len(decor[res]) != 2:
            continue
        pointee = types[ops[0]][1][1]
        kind, tops = types.get(pointee, ('', []))
        count = consts[tops[1]] if kind == 'OpTypeArray' else 5 if kind == 'OpTypeRuntimeArray' else 1
        out[(decor[res]['DescriptorSet'], decor[res]['Binding'])] = count
    return out


def direct_reads(insts):
    """Calls of inst_bindless_direct_read_N: (arity, [constant or None]), and
    an evaluator of each such function over a word list."""
    names = {ops[0]: ops[1].strip('"') for res, op, ops in insts if op == 'OpName'}
    consts = {}
    for res, op, ops in insts:
        if op == 'OpConstant' and res:
            try:
                consts[res] = int(ops[1], 0)
            except ValueError:
                pass
    readers = {i for i, n in names.items() if re.match(r'inst_bindless_direct_read_\d+$', n)}
    bodies, calls, current = {}, [], None
    for res, op, ops in insts:
        if op == 'OpFunction':
            current = res if res in readers else None
            if current:
                bodies[current] = []
        elif op == 'OpFunctionEnd':
            current = None
        elif current:
            bodies[current].append((res, op, ops))
        elif op == 'OpFunctionCall' and ops[1] in readers:
            calls.append((ops[1], [consts.get(a) for a in ops[2:]]))

    def evaluate(function, args, data):
        values, params = {}, iter(args)
        for res, op, ops in bodies[function]:
            if op == 'OpFunctionParameter':
                values[res] = next(params)
            elif op == 'OpAccessChain':
                values[res] = values[ops[3]] if ops[3] in values else consts[ops[3]]
            elif op == 'OpLoad':
                at = values[ops[1]]
                values[res] = data[at] if at < len(data) else 0
            elif op == 'OpIAdd':
                a, b = (values[x] if x in values else consts[x] for x in ops[1:3])
                values[res] = (a + b) & 0xffffffff
            elif op == 'OpReturnValue':
                return values[ops[0]]
        raise ValueError('no OpReturnValue')
    return [(len(a), f, a) for f, a in calls], evaluate


def descriptor_check(r, amddwarf, work, spv, inst):
    """The validation layer's input buffer for SPV's bindings, decoded by
    amddwarf with the layout INST's reads need, against what INST reads."""
    calls, evaluate = direct_reads(disassembly(inst, work))
    if not calls:
        return
    bindings = descriptor_bindings(disassembly(spv, work))
    top = max(s for s, _ in bindings)
    # Set top + 1 stays empty (zeros) before one more set, as a pipeline
    # layout with an unused set gives.
    sets = [None] * (top + 3)
    for k, ((s, b), n) in enumerate(sorted(bindings.items())):
        sets[s] = sets[s] or {}
        sets[s][b] = [(k * 7 + i * 13) % 3 * 32 for i in range(n)]  # 0 (unwritten), 32, 64
    sets[top + 2] = {1: [1, 1]}
    reads_sizes = any(a == 2 for a, _, _ in calls)
    reads_word0 = any(a == 4 and args[0] == 0 for a, _, args in calls)
    layouts = [True] if reads_sizes else [True, False] if reads_word0 else [False]
    for indexing in layouts:
        words = vvl_input(sets, indexing)
        name = f'{inst.name}.input{"-sizes" if indexing else "-written"}.bin'
        (work / name).write_bytes(struct.pack(f'<{len(words)}I', *words))
        c = run([amddwarf, 'symbolize', '--descriptors', name, '--instrumented', inst.name,
                 '--json'], work)
        what = f'descriptors {name} with {inst.name}'
        r.check(c.returncode == 0, f'{what}: exit {c.returncode} {c.stdout} {c.stderr}')
        if c.returncode != 0:
            continue
        got = json.loads(c.stdout)
        r.check(got['layout'] == ('sizes' if indexing else 'written'), f'{what}: {got["layout"]}')
        table = {(row['set'], row['binding']): row for row in got['bindings']}
        want = {(s, b): f for s, bs in enumerate(sets) if bs for b, f in bs.items()}
        r.check({k for k, v in table.items() if v['array_size']} ==
                {k for k, v in want.items() if v}, f'{what}: bindings {sorted(table)}')
        for key, flags in want.items():
            row = table.get(key, {'array_size': None, 'written': None})
            r.check(row['array_size'] == len(flags) and row['written'] == flags,
                    f'{what}: {key} is {row}, want {flags}')
        # What the instrumented code reads, call by call.
        for arity, function, args in calls:
            if arity == 2:
                s, b = args[0] - 1, args[1]
                got_value = evaluate(function, args, words)
                r.check(got_value == table[(s, b)]['array_size'],
                        f'{what}: direct_read_2{tuple(args)} = {got_value}, amddwarf '
                        f'{table[(s, b)]}')
                continue
            s, b = (args[1], args[2]) if arity == 4 else (args[0] - 1, args[1])
            row = table[(s, b)]
            for i in range(row['array_size']) if args[-1] is None else [args[-1]]:
                value = evaluate(function, args[:-1] + [i], words)
                r.check(value == row['written'][i],
                        f'{what}: direct_read_{arity}({args[:-1]}, {i}) = {value}, amddwarf '
                        f'{row["written"][i]}')


PEAK_PROBE = ("import resource, subprocess, sys\n"
              "limit = int(sys.argv[1])\n"
              "def cap():\n"
              "    if limit:\n"
              "        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))\n"
              "done = subprocess.run(sys.argv[2:], capture_output=True, text=True,\n"
              "                      preexec_fn=cap)\n"
              "sys.stderr.write(done.stderr)\n"
              "print(done.stdout, end='')\n"
              "print('exit', done.returncode)\n"
              "print('peak', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")


def memory_check(r, amddwarf, work, spv, small, small_out):
    """`amddwarf symbolize` streams the buffer: a 3 GiB sparse buffer (the
    records of SMALL, then never-written zeros that the check of the words
    past the records reads to the end) takes at most 32 MiB more peak memory
    than SMALL itself, and, outside sanitizers, runs with its address space
    limited to 1 GiB, a third of the buffer."""
    if not small_out.startswith('buffer: '):
        r.check(False, f'memory check: {small.name} was not read:\n{small_out}')
        return
    big = work / 'big-symbolize.bin'
    with open(big, 'wb') as f:
        f.write(small.read_bytes())
        f.truncate(3 << 30)

    def probe(buffer, limit=0):
        done = run([sys.executable, '-c', PEAK_PROBE, str(limit), amddwarf, 'symbolize',
                    '--spirv', f'{spv.name}=23', '--buffer', buffer.name], work)
        return done, int(re.search(r'^peak (\d+)$', done.stdout, re.M).group(1))

    _, base_kib = probe(small)
    done, peak_kib = probe(big)
    words = ((3 << 30) - 8) // 4
    header = small_out.split('\n', 1)[0].rsplit('room for', 1)[0]
    r.check('exit 0' in done.stdout and f'{header}room for {words} words' in done.stdout and
            small_out.split('\n', 1)[1] in done.stdout,
            f'3 GiB sparse buffer: the records of the small one\n{done.stdout}{done.stderr}')
    r.check(peak_kib - base_kib <= 32 * 1024,
            f'3 GiB sparse buffer: peak {peak_kib} KiB against {base_kib} KiB')
    if b'__asan_init' not in pathlib.Path(amddwarf).read_bytes():
        done, _ = probe(big, 1 << 30)
        r.check('exit 0' in done.stdout,
                f'3 GiB sparse buffer in 1 GiB of address space\n{done.stdout}{done.stderr}')
    big.unlink()


def main():
    args = arguments(__doc__)
    work = pathlib.Path(args.work)
    r = Checks()
    seen_continued = False
    streamed = False
    for name, text, variants, env in SHADERS:
        src = work / name
        src.write_text(text if text is not None else big_source())
        lines = logical_lines(src, name)
        for flag in variants:
            spv = work / f'{name}{flag}.spv'
            c = run(['glslangValidator', '-V', flag, '--target-env', env, name, '-o', spv.name],
                    work)
            r.check(c.returncode == 0, f'glslangValidator {flag} {name}: {c.stdout}{c.stderr}')
            if c.returncode != 0:
                continue
            if name == 'big.comp':
                dis = run(['spirv-dis', spv.name], work).stdout
                seen_continued = 'OpSourceContinued' in dis
                r.check(seen_continued, f'{spv.name}: glslang emitted OpSourceContinued')
            for p in PASSES:
                inst = work / f'{spv.name}{p[6:]}.spv'
                c = run(['spirv-opt', p, spv.name, '-o', inst.name], work)
                r.check(c.returncode == 0, f'spirv-opt {p} {spv.name}: {c.stderr}')
                if c.returncode != 0:
                    continue
                facts = oracle(inst, work)
                if not facts:
                    continue
                indexes = sorted(facts)
                c = run([args.amddwarf, 'spirv-line', spv.name] + [str(i) for i in indexes]
                        + ['--json'], work)
                r.check(c.returncode == 0, f'amddwarf spirv-line {spv.name} {indexes}: '
                                           f'{c.stdout}{c.stderr}')
                try:
                    locs = json.loads(c.stdout)['locations']
                except (ValueError, KeyError):
                    r.check(False, f'JSON from spirv-line {spv.name}')
                    continue
                for loc in locs:
                    what = f'{inst.name} index {loc["index"]}'
                    fact = facts[loc['index']]
                    if 'error' in loc:
                        r.check(False, f'{what}: {loc["error"]}')
                        continue
                    instr = loc['instruction']
                    if fact['printf_string'] is not None:
                        r.check(instr.startswith('OpExtInst NonSemantic.DebugPrintf 1 '),
                                f'{what}: {instr} is the DebugPrintf instruction')
                    guarded = [g for g in fact['guarded'] if g[0] != 'OpFunctionCall']
                    if guarded:
                        ops = {g[0] for g in guarded}
                        r.check(instr.split()[0] in ops,
                                f'{what}: {instr} is the guarded instruction {ops}')
                        glines = {g[1] for g in guarded if g[1] is not None}
                        if glines:
                            r.check(loc.get('line') in glines,
                                    f'{what}: line {loc.get("line")} is spirv-opt\'s {glines}')
                    elif fact['printf_string'] is None:
                        r.check(False, f'{what}: no guarded instruction found in {inst.name}')
                    key = (loc.get('file'), loc.get('line'))
                    physical = lines.get(key)
                    r.check(physical is not None and '// @' in physical,
                            f'{what}: {key} is a checked line ({physical!r})')
                    if flag == '-gV':
                        r.check(loc.get('source') is None, f'{what}: -gV embeds no text')
                    else:
                        r.check(loc.get('source') == physical,
                                f'{what}: source {loc.get("source")!r} == {physical!r}')
                checked = symbolize_check(r, args.amddwarf, work, spv, inst, facts, locs, p)
                if checked and not streamed and name == 'frag.frag':
                    streamed = True
                    memory_check(r, args.amddwarf, work, spv, *checked)
                if p in ('--inst-desc-idx-check', '--inst-buff-oob-check'):
                    descriptor_check(r, args.amddwarf, work, spv, inst)
    r.check(seen_continued, 'the large source used OpSourceContinued')
    r.check(streamed, 'the memory check ran')
    return r.summary()


if __name__ == '__main__':
    sys.exit(main())
