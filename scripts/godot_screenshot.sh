#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The wander3d authors
# SPDX-License-Identifier: MIT
# Draw docs/port-godot.png: the GDScript port of the compare scene, SECONDS (default 20)
# simulated seconds in, drawn by Godot 3.2 (Debian's godot3, the editor build that draws; the
# headless godot3-server does not) on a virtual display with Mesa's llvmpipe. There is no
# Godot 4 here: the picture is the core's agents placed by the adapter's arithmetic, in a
# Godot 3 scene (scripts/godot_screenshot.gd).
#
#   bash scripts/godot_screenshot.sh [SECONDS] [OUT.png]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-20}"
out="$(realpath -m "${2:-$repo/docs/port-godot.png}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$repo/.venv/bin/python" -m wander3d port compare --lang gdscript --out "$work/port" >/dev/null
cp "$repo/scripts/godot_screenshot.gd" "$work/port/"
printf '%s\n' 'config_version=4' '' '[logging]' '' 'file_logging/enable_file_logging=false' \
    >"$work/port/project.godot"
xvfb-run -a -s "-screen 0 1280x720x24" godot3 --path "$work/port" --resolution 1280x720 \
    --video-driver GLES3 -s godot_screenshot.gd "$seconds" "$out" >"$work/log" 2>&1 || true
if [[ ! -s "$out" ]] || grep -q 'SCRIPT ERROR' "$work/log"; then
    cat "$work/log" >&2
    exit 1
fi
echo "wrote $out"
