#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The module include graph of the tree: which module's files include which
other module's headers (src/<module>/..., cli, examples, service; tests
excluded), printed as edges, then checked for cycles.  Exit 1 when there is
a cycle.  Used to keep docs/ARCHITECTURE.md's layer drawing honest:
python3 scripts/include_graph.py
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(rel):
    """src/backend/cuda/gpu.c -> backend/cuda; cli/x.c -> cli."""
    parts = rel.split("/")
    if parts[0] == "src":
        if parts[1] == "backend" and len(parts) > 3:
            return "backend/" + parts[2]
        return parts[1] if len(parts) > 2 else "src"
    return parts[0]


# The folders CMakeLists.txt puts on include paths for a bare name
# ("store.h", "porep.h"), with the module each belongs to; include/ (the
# public headers) belongs to none.
BARE_NAME_DIRS = (("include", None), ("service", "service"),
                  ("service/client", "service"),
                  ("examples/porep", "examples"))


def header_module(inc, includer_dir):
    parts = inc.split("/")
    if len(parts) == 1:
        # beside the includer: its own module; else one of the folders on
        # the include path (cli's "store.h" is service's); else blst.h
        if os.path.exists(os.path.join(includer_dir, inc)):
            return None
        for folder, module in BARE_NAME_DIRS:
            if os.path.exists(os.path.join(ROOT, folder, inc)):
                return module
        return None
    # service's own folders ("store/store.h", "http/http.h")
    if os.path.exists(os.path.join(ROOT, "service", inc)):
        return "service"
    if parts[0] == "backend" and len(parts) > 2:
        return "backend/" + parts[1]
    return parts[0]


def main():
    edges = {}
    for top in ("src", "cli", "examples", "service"):
        base = os.path.join(ROOT, top)
        for dirpath, _, files in os.walk(base):
            for f in files:
                if not f.endswith((".c", ".h", ".cu")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, ROOT)
                src_mod = module_of(rel)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for inc in INCLUDE.findall(fh.read()):
                        dst = header_module(inc, dirpath)
                        if dst and dst != src_mod:
                            edges.setdefault(src_mod, set()).add(dst)
    for m in sorted(edges):
        print(f"{m} -> {' '.join(sorted(edges[m]))}")
    # cycles, by depth-first search
    state, stack, cycles = {}, [], []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in sorted(edges.get(m, ())):
            if state.get(d) == 1:
                cycles.append(stack[stack.index(d):] + [d])
            elif not state.get(d):
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if not state.get(m):
            visit(m)
    for c in cycles:
        print("cycle: " + " -> ".join(c))
    print("no cycle" if not cycles else f"{len(cycles)} cycle(s)")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
