#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# docs/ARCHITECTURE.md's layers stay the tree's: scripts/include_graph.py
# finds no cycle in the module include graph, and the copy of its output
# in ARCHITECTURE.md ("The graph as the script prints it today") is what it
# prints now, so a new edge (one module including another's header) shows
# up here until the drawing and its copy are updated.
. "$(dirname "$0")/lib.sh"
root="$(dirname "$0")/.."
python3 "$root/scripts/include_graph.py" >"$work/graph" ||
    fail "include_graph.py: $(tail -n 3 "$work/graph")"
awk '/^The graph as the script prints it today/ { on = 1; next }
     on && /^```/ { if (++fences == 2) exit; next }
     on && fences == 1' "$root/docs/ARCHITECTURE.md" >"$work/doc"
[ -s "$work/doc" ] || fail "ARCHITECTURE.md has no copy of the graph"
diff -u "$work/doc" "$work/graph" >"$work/diff" ||
    fail "ARCHITECTURE.md's graph is not the tree's (< doc, > tree): $(cat "$work/diff")"
finish "architecture_graph: ok"
