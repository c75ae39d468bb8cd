#!/usr/bin/env python3
"""Normalises ftsim's GTKWave views (waves/*.gtkw) in place, idempotently.

usage: scripts/gtkw_decorate.py waves/*.gtkw

For every traced signal line it writes
- an alias that keeps the router, port and VC: "3,3 input_west vc0 occupancy"
  (the router is left out in a view of a single router);
- signed decimal for values where -1 means none (grant, parent, flit.src,
  flit.dst);
- the translate filters waves/filters/vc_state.txt (VC states) and
  waves/filters/flit_kind.txt (flit kinds), paths relative to the repository
  root (run gtkwave from there, as the README does);
and it adds, next to the signals already shown, the source and destination
node and the kind of each traced output flit and each output link's "alive"
line. In an Immunet view (one with .rm. signals) it puts one group first with
every router's emergency line stacked (every router of the mesh/torus named by
the experiment in the view's "[*] ./build/ftsim run" comment), so the
emergency is seen spreading at a glance.
"""
import itertools
import re
import sys

# GTKWave trace flags (src/analyzer.h, TraceEntFlagBits): bit 1 hex, 2 dec,
# 3 bin, 5 right-justify, 10 signed, 13 translated by a filter file.
RJ_DEC = 0x24
SIGNED_DEC = 0x424
TRANSLATED_DEC = 0x2024
FILTERS = {'vc_state': (1, 'waves/filters/vc_state.txt'), 'flit_kind': (2, 'waves/filters/flit_kind.txt')}
EMERGENCY_GROUP = '-emergency: every router, stacked'

SIG = re.compile(r'^(?:\+\{[^}]*\} )?(SystemC\.net\.(\S+?))(\[\d+:\d+\])?$')


def router_label(part):
    m = re.match(r'router_(\d+(?:_\d+)*)$', part)
    return '(' + m.group(1).replace('_', ',') + ')' if m else part


def alias(rel, single_router):
    parts = rel.split('.')
    if parts[0].startswith('router_'):
        head = [] if single_router else [router_label(parts[0])]
        return ' '.join(head + parts[1:])
    return ' '.join(parts)


def special(rel):
    """(flags, filter) for a signal that needs them, else None."""
    if rel.endswith('.state'):
        return TRANSLATED_DEC, 'vc_state'
    if rel.endswith('.flit.kind'):
        return TRANSLATED_DEC, 'flit_kind'
    if rel.endswith(('.grant', '.parent', '.flit.src', '.flit.dst')):
        return SIGNED_DEC, None
    return None


def widths(rel):
    if rel == 'clk' or rel.endswith(('.alive', '.req0', '.req1', '.stop', '.emergency', '.root', '.done', '.valid', '.head', '.tail')):
        return ''
    if rel.endswith(('.flit.kind', '.state', '.flit.vc')):
        return '[7:0]'
    return '[31:0]'


def topology_routers(lines):
    """SystemC names of every router of the experiment's mesh/torus, in
    router-id order (dimension 0 fastest)."""
    cmd = next(l for l in lines if l.startswith('[*] ./build/ftsim run '))
    experiment = cmd.split()[3]
    topo = next(l for l in open(experiment) if l.startswith('topology:')).split(':', 1)[1].strip().strip('"')
    dims = [int(k) for k in topo.split(':')[1].split('x')]
    return ['router_' + '_'.join(str(c) for c in reversed(coords))
            for coords in itertools.product(*[range(k) for k in reversed(dims)])]


def decorate(lines):
    routers = {m.group(2).split('.')[0] for m in (SIG.match(l) for l in lines) if m and m.group(2).startswith('router_')}
    single = len(routers) == 1
    immunet = any('.rm.' in l for l in lines)
    # Drop an earlier emergency group (idempotence); it is rebuilt below.
    out, skip = [], False
    for l in lines:
        if l.startswith(EMERGENCY_GROUP):
            skip = True
            out.pop() if out and out[-1].startswith('@') else None
            continue
        if skip and (l.startswith('@200') or l.startswith('-')):
            skip = False
        if skip:
            continue
        out.append(l)
    lines = out
    # Signals to add after existing ones (once).
    present = {m.group(2) for m in (SIG.match(l) for l in lines) if m}
    expanded = []
    for l in lines:
        expanded.append(l)
        m = SIG.match(l)
        if not m:
            continue
        rel = m.group(2)
        extra = []
        if rel.endswith('.stop'):
            extra = [rel[:-len('stop')] + 'alive']
        elif rel.endswith('.flit.vc') or (rel.endswith('.flit.packet') and rel[:-len('packet')] + 'vc' not in present):
            base = rel.rsplit('.', 1)[0]
            extra = [base + '.src', base + '.dst', base + '.kind']
        for e in extra:
            if e not in present:
                expanded.append('SystemC.net.' + e)
                present.add(e)
    # Rewrite each signal with alias, flags and filter.
    result = []
    flags = None    # flags given by the input for the lines that follow
    emitted = None  # flags in force in the output
    for l in expanded:
        if l.startswith('^'):
            continue  # filters are re-emitted below
        if l.startswith('@'):
            flags = int(l[1:], 16)
            if flags == 0x200:  # a group comment line follows
                result.append(l)
                emitted = flags
            continue
        m = SIG.match(l)
        if not m:
            result.append(l)
            continue
        full, rel = m.group(1), m.group(2)
        width = m.group(3) if m.group(3) is not None else widths(rel)
        sp = special(rel)
        want = sp[0] if sp else (flags if flags not in (None, 0x200, SIGNED_DEC, TRANSLATED_DEC) else
                                 (0x28 if width == '' else RJ_DEC))
        if width == '' and want in (RJ_DEC, SIGNED_DEC, TRANSLATED_DEC):
            want = 0x28
        if want != emitted:
            result.append(f'@{want:x}')
            emitted = want
        if sp and sp[1]:
            idx, path = FILTERS[sp[1]]
            result.append(f'^{idx} {path}')
        result.append(f'+{{{alias(rel, single)}}} {full}{width}')
    if immunet:
        all_routers = topology_routers(lines)
        group = ['@200', EMERGENCY_GROUP, '@28']
        group += [f'+{{{router_label(r)} emergency}} SystemC.net.{r}.rm.emergency' for r in all_routers]
        # After the clock line.
        at = next(i for i, l in enumerate(result) if l.endswith('SystemC.net.clk')) + 1
        result[at:at] = group
    return result


def main():
    for path in sys.argv[1:]:
        lines = open(path).read().splitlines()
        new = decorate(lines)
        open(path, 'w').write('\n'.join(new) + '\n')
        print(f'{path}: {sum(1 for l in new if SIG.match(l))} signals')


if __name__ == '__main__':
    main()
