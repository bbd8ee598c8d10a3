#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# docs/ARCHITECTURE.md's layers stay the tree's: scripts/include_graph.py
# finds no cycle in the module include graph, and the copy of its output
# in ARCHITECTURE.md ("The graph as the script prints it today") is what it
# prints now, so a new edge (one module including another's header) shows
# up here until the drawing and its copy are updated; and error messages
# are written in one place.
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
# service/ and cli/ sit over the public API: of the library's internal
# headers they include only these (ARCHITECTURE.md, Layers); a header of
# their own folders, include/ and examples/ are not internal
allowed_service="util/alloc.h util/clock.h util/error.h util/file.h util/lock.h util/sha256.h formats/json.h formats/formats.h ledger/trace.h"
allowed_cli="util/error.h util/file.h"
internal() { # FOLDER: the src/ headers its files include
    grep -rhoE '#include "[a-z0-9_]+/[a-z0-9_]+\.h"' "$root/$1" |
        sed 's/#include "\(.*\)"/\1/' | while read -r h; do
            [ -e "$root/src/$h" ] && echo "$h"
        done | sort -u
}
for folder in service cli; do
    eval "allowed=\$allowed_$folder"
    for h in $(internal "$folder"); do
        case " $allowed " in *" $h "*) ;; *) fail "$folder/ includes src/$h, not among the headers it may use" ;; esac
    done
done
# a pl_error's message is written by pl__error_set alone, which fits a long
# text to the 255 bytes by dropping folders of the paths it names: a
# snprintf into err.msg with %.Ns cut a path's file name instead (CI's
# deeper build tree lost "multiplier.proof.json" so)
grep -rnE '(snprintf|memcpy|strcpy|strncpy)\((&?err(\.|->))msg' \
    "$root/src" "$root/cli" "$root/service" >"$work/direct" &&
    fail "a pl_error.msg written around pl__error_set: $(cat "$work/direct")"
finish "architecture_graph: ok"
