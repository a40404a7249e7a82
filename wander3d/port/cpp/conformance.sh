#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The wander3d authors
# SPDX-License-Identifier: MIT
# conformance.sh: build this port's conformance driver and print its run as CSV, exactly as
# `wander3d run scene.toml --seconds SECONDS --sample-rate SAMPLE_RATE --out ref.csv` writes it.
#
#   bash conformance.sh [--compose] SECONDS SAMPLE_RATE > out.csv
#
# Without --compose it runs the hosted flock (conformance.cpp), with it the composable call
# (compose.cpp). It builds into build/ beside this file with $CXX $CXXFLAGS (default g++ and
# -std=c++17 -O2) and adds no floating-point flag: wander.hpp keeps the run identical on its
# own. The compiler's messages go to stderr; only the CSV goes to stdout.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage="usage: bash $0 [--compose] SECONDS SAMPLE_RATE (numbers > 0)"
driver=conformance
if [[ "${1-}" == "--compose" ]]; then
    driver=compose
    shift
fi
number='^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$'
if [[ $# -ne 2 || ! "$1" =~ $number || ! "$2" =~ $number ]]; then
    echo "$usage" >&2
    exit 2
fi

cxx="${CXX:-g++}"
read -r -a flags <<<"${CXXFLAGS:--std=c++17 -O2}"
build="$here/build"
program="$build/$driver"
# Rebuild when a source is newer than the program or the compiler or its flags changed.
built_with="$cxx ${flags[*]}"
stale=0
if [[ ! -x "$program" || "$(cat "$program.flags" 2>/dev/null)" != "$built_with" ]]; then
    stale=1
else
    for source in "$here/$driver.cpp" "$here/wander.hpp" "$here/csv.hpp"; do
        [[ "$source" -nt "$program" ]] && stale=1
    done
fi
if ((stale)); then
    mkdir -p "$build"
    "$cxx" "${flags[@]}" -o "$program" "$here/$driver.cpp" 1>&2
    printf '%s' "$built_with" >"$program.flags"
fi
exec "$program" "$1" "$2" "$here/start.txt"
