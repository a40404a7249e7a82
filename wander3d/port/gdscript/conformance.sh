#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The wander3d authors
# SPDX-License-Identifier: MIT
# conformance.sh: print this port's run as CSV, exactly as `wander3d run --out ref.csv` does.
#
#   bash conformance.sh [--compose] SECONDS SAMPLE_RATE > out.csv
#
# Runs conformance.gd (the hosted flock) or, with --compose, compose.gd (the composable call)
# in godot3-server, Godot 3.2's headless build (Debian/Ubuntu: apt install godot3-server; set
# GODOT to use another Godot 3 binary). Godot's own output (its banner, its log) goes to
# stderr only when it fails; its project folder and log files stay in build/ here.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
driver=conformance.gd
if [[ "${1:-}" == "--compose" ]]; then
    driver=compose.gd
    shift
fi
if [[ $# -ne 2 ]]; then
    echo "usage: bash conformance.sh [--compose] SECONDS SAMPLE_RATE (both > 0)" >&2
    exit 2
fi
godot="${GODOT:-godot3-server}"
if ! command -v "$godot" >/dev/null; then
    echo "conformance.sh: $godot not found (Godot 3.2's headless build: apt install godot3-server)" >&2
    exit 1
fi

build="$here/build"
mkdir -p "$build"
out="$(mktemp "$build/out.XXXXXX")"
log="$(mktemp "$build/log.XXXXXX")"
project="$build/.project.$$.godot"
trap 'rm -f "$out" "$log" "$project"' EXIT
# An empty project for Godot to run the script in, without log files; written aside and moved
# into place, so that two checks at once (both modes) never read a half-written one.
printf '%s\n' 'config_version=4' '' '[logging]' '' 'file_logging/enable_file_logging=false' \
    >"$project"
mv -f "$project" "$build/project.godot"

"$godot" --no-window --path "$build" -s "$here/$driver" "$1" "$2" "$out" >"$log" 2>&1
status=$?
if [[ $status -eq 2 ]]; then
    grep '^usage:' "$log" >&2
    exit 2
fi
# Godot 3 goes on after a script error (the failing function returns null, its caller
# carries on) and exits 0 after a parse error: a run is good only with its CSV written and no
# script error in its log.
if [[ $status -ne 0 || ! -s "$out" ]] || grep -q 'SCRIPT ERROR' "$log"; then
    cat "$log" >&2
    exit $(( status == 0 ? 1 : status ))
fi
cat "$out"
