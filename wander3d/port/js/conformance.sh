#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The wander3d authors
# SPDX-License-Identifier: MIT
# conformance.sh: print this port's run as CSV, exactly as `wander3d run --out ref.csv` does.
#
#   bash conformance.sh SECONDS SAMPLE_RATE            # the hosted flock (conformance.mjs)
#   bash conformance.sh --compose SECONDS SAMPLE_RATE  # the composable call (compose.mjs)
#
# JavaScript needs no build: node runs the drivers as they are.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
driver=conformance.mjs
if [[ "${1:-}" == --compose ]]; then
    driver=compose.mjs
    shift
fi
if (($# != 2)); then
    echo "usage: bash conformance.sh [--compose] SECONDS SAMPLE_RATE" >&2
    exit 2
fi
exec node "$here/$driver" "$1" "$2"
