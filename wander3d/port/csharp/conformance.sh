#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The wander3d authors
# SPDX-License-Identifier: MIT
# Check this port against wander3d: print its run of scene.toml as `wander3d run` writes it.
#
#   bash conformance.sh SECONDS SAMPLE_RATE > out.csv            # the hosted flock
#   bash conformance.sh --compose SECONDS SAMPLE_RATE > out.csv  # the composable call
#   wander3d run scene.toml --seconds SECONDS --sample-rate SAMPLE_RATE --out ref.csv
#   cmp out.csv ref.csv
#
# Builds the driver with Mono's mcs into build/ beside this script (again only when a source
# changed) and runs it with mono; the CSV alone goes to stdout. Bad arguments: exit status 2.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage="usage: bash conformance.sh [--compose] SECONDS SAMPLE_RATE (both > 0)"
driver=Conformance
if [ "${1-}" = "--compose" ]; then
    driver=Compose
    shift
fi
if [ $# -ne 2 ]; then
    echo "$usage" >&2
    exit 2
fi
build="$here/build"
exe="$build/$driver.exe"
sources=("$here/Wander.cs" "$here/Conformance.cs")
[ "$driver" = Compose ] && sources+=("$here/Compose.cs")
stale=0
[ -f "$exe" ] || stale=1
for source in "${sources[@]}"; do
    [ "$source" -nt "$exe" ] && stale=1
done
if [ "$stale" = 1 ]; then
    mkdir -p "$build"
    # Built under a private name and moved into place, so two checks at once never run a
    # half-written program. -optimize+: a release build, as a game ships.
    partial="$build/.$driver.$$.exe"
    if ! mcs -optimize+ -main:"Wander3d.$driver" -out:"$partial" "${sources[@]}" >&2; then
        rm -f "$partial"
        exit 1
    fi
    mv -f "$partial" "$exe"
fi
exec mono "$exe" "$1" "$2" "$here/start.txt"
