#!/usr/bin/env bash
# Re-vendor three.js for `wander3d share` (wander3d/share/vendor/): one minified ES module with
# three and its OrbitControls, bundled by esbuild from npm's packages, and three's licence.
#
#   bash scripts/vendor_three.sh [THREE_VERSION [ESBUILD_VERSION]]
#
# Then update VERSIONS in wander3d/share/vendor/README.md (the test checks the page says the
# version the bundle reports) and run tests/test_share_page.py.
set -euo pipefail
THREE="${1:-0.187.0}"
ESBUILD="${2:-0.28.2}"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$REPO/wander3d/share/vendor"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
npm init -y >/dev/null
npm install --no-audit --no-fund --ignore-scripts "three@$THREE" "esbuild@$ESBUILD" >/dev/null
# --ignore-scripts skips esbuild's post-install check; its binary comes as an optional package.
cat >entry.mjs <<'JS'
export * from "three";
export { OrbitControls } from "three/addons/controls/OrbitControls.js";
JS
./node_modules/.bin/esbuild entry.mjs --bundle --minify --format=esm --legal-comments=none \
    --target=es2020 --outfile="$OUT/three.min.mjs"
cp node_modules/three/LICENSE "$OUT/LICENSE"
echo "vendored three $THREE (esbuild $ESBUILD) into $OUT"
