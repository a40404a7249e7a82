#!/usr/bin/env bash
# Set up wander3d on a Debian/Ubuntu machine, then launch the app or run the tests.
#
#   bash scripts/bootstrap.sh app [ARGS...]     set up, then run `wander3d ARGS...`
#   bash scripts/bootstrap.sh test [ARGS...]    set up, then run pytest ARGS... (on a virtual X display)
#   bash scripts/bootstrap.sh setup             set up only
#
# "Set up" means: the system libraries Qt 6 and Mesa need (apt, only when something is missing),
# then .venv/ in the repository root with `pip install -e ".[app,test]"`, which is everything:
# the core, drawing, the desktop app and every test tool (re-run only when pyproject.toml
# changed), and the JavaScript packages of package.json (npm ci, when its lock changed). The
# script is idempotent and takes well under a second when all is in place. It needs nothing but
# python3 (>= 3.11) to start with.
#
# Environment knobs:
#   PYTHON=/path/to/python3      interpreter used to create .venv (default: python3)
#   WANDER3D_SKIP_APT=1          never touch system packages (e.g. no root and no sudo)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$REPO/.venv"
# The stamp records which pyproject.toml the venv was last installed from. It lives inside .venv
# so that deleting .venv (the usual "start again") also forgets the stamp.
STAMP="$VENV/.wander3d-install-stamp"
PYTHON="${PYTHON:-python3}"

say() { printf 'bootstrap: %s\n' "$*" >&2; }
die() {
    say "error: $*"
    exit 1
}

# --- system packages -------------------------------------------------------------------------
# Why each is here:
#   python3-venv       Debian/Ubuntu split `venv`/ensurepip out of python3; without it
#                      `python3 -m venv` fails.
#   xvfb xauth         virtual X server for the tests (pytest-xvfb starts it) and `xvfb-run -a`.
#   libxkbcommon-x11-0 libxcb-*
#                      what PyQt6's bundled xcb platform plugin (libqxcb.so) links against but
#                      does not ship; missing ones make Qt abort with "Could not load the Qt
#                      platform plugin xcb" (check: ldd .venv/lib/python3*/site-packages/PyQt6/
#                      Qt6/plugins/platforms/libqxcb.so | grep 'not found').
#   libegl1 libgl1 libgl1-mesa-dri
#                      OpenGL through glvnd, and Mesa's drivers (llvmpipe when there is no GPU,
#                      which is the case under Xvfb). libegl1 also lets vispy's `egl` backend
#                      render with no X server at all (EGL_PLATFORM=surfaceless).
#   libglib2.0-0 libfontconfig1 libdbus-1-3
#                      QtCore/QtGui/QtDBus dependencies that PyQt6's wheel does not bundle.
#   fonts-dejavu-core  without any font Qt draws no text (and warns about a missing font dir).
#   x11-utils          xdpyinfo: vispy asks it for the screen's DPI and otherwise logs
#                      "WARNING: could not determine DPI" for every canvas.
#   nodejs             runs the JavaScript port's conformance driver (tests/test_port_js.py).
#   mono-mcs mono-runtime
#                      mcs and mono: build and run the C# port's driver (tests/test_port_csharp.py).
#   g++                builds the C++ port's driver (tests/test_port_cpp.py; C++17, to_chars).
#   clang              clang++: the C++ port must stay identical under clang's flags too
#                      (-march=native, -ffp-contract=fast) and the Unreal component must
#                      compile with it, as Unreal builds with clang on Linux, Mac and consoles.
#   chromium           runs the page `wander3d share` writes, headless (tests/test_share_page.py,
#                      benchmarks/share_bench.py).
#   godot3-server      Godot 3.2's headless build: runs the GDScript port's core and conformance
#                      drivers (tests/test_port_gdscript.py; there is no Godot 4 package).
SYSTEM_PACKAGES=(
    python3-venv
    xvfb xauth
    libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0
    libxcb-xinerama0 libxcb-image0 libxcb-render-util0
    libegl1 libgl1 libgl1-mesa-dri
    libglib2.0-0 libfontconfig1 libdbus-1-3
    fonts-dejavu-core x11-utils
    nodejs
    mono-mcs mono-runtime g++ clang
    chromium
    godot3-server
)

# dpkg's view of one package. Ubuntu 24.04 renamed some libraries for the 64-bit time_t
# transition (libglib2.0-0 -> libglib2.0-0t64); apt installs the new name when asked for the old
# one, so accept either, or the script would run apt on every call.
is_installed() {
    local p
    for p in "$1" "${1}t64"; do
        if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
            return 0
        fi
    done
    return 1
}

ensure_system_packages() {
    if [[ "${WANDER3D_SKIP_APT:-}" == 1 ]]; then
        return 0
    fi
    if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
        say "not a Debian/Ubuntu system: skipping system packages (install Xvfb, Mesa GL/EGL and"
        say "Qt 6's xcb libraries yourself)"
        return 0
    fi

    local missing=() p
    for p in "${SYSTEM_PACKAGES[@]}"; do
        is_installed "$p" || missing+=("$p")
    done
    # npm installs the JavaScript packages below (p5.js). Debian ships it apart from nodejs;
    # NodeSource's nodejs, which conflicts with Debian's npm, brings its own: ask only if none.
    command -v npm >/dev/null || missing+=(npm)
    if ((${#missing[@]} == 0)); then
        return 0
    fi

    local sudo=""
    if [[ "$(id -u)" -ne 0 ]]; then
        command -v sudo >/dev/null ||
            die "missing system packages and no sudo; as root run: apt-get install ${missing[*]}"
        sudo=sudo
    fi
    say "installing system packages: ${missing[*]}"
    # apt is chatty (and debconf warns about apt-utils on minimal images): keep its output in a
    # log and show it only if something goes wrong.
    local log
    log="$(mktemp)"
    # DPkg::Lock::Timeout: a fresh Ubuntu often runs unattended-upgrades right after boot; wait
    # for its lock instead of failing at once. The update is needed because a fresh machine (or
    # container) may have no package lists at all.
    local apt_opts=(-y -q --no-install-recommends -o DPkg::Lock::Timeout=600)
    if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600 update >"$log" 2>&1 ||
        ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install "${apt_opts[@]}" "${missing[@]}" >>"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        die "apt-get failed (output above)"
    fi
    rm -f "$log"
}

# --- Python environment ----------------------------------------------------------------------
ensure_venv() {
    # A venv is usable if its python runs and has pip; a half-made one (e.g. `python3 -m venv`
    # interrupted, or made before python3-venv was installed) is rebuilt.
    # (The stamp is written only after a successful install, so with it `pip --version`, which
    # costs a few tenths of a second, is not needed.)
    if [[ -x "$VENV/bin/python" ]] && "$VENV/bin/python" -c '' 2>/dev/null &&
        { [[ -f "$STAMP" ]] || "$VENV/bin/python" -m pip --version >/dev/null 2>&1; }; then
        return 0
    fi
    command -v "$PYTHON" >/dev/null || die "$PYTHON not found; install python3 (>= 3.11)"
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
        die "wander3d needs Python >= 3.11, $PYTHON is $("$PYTHON" -V 2>&1); set PYTHON=/path/to/python3.11+"
    if [[ -e "$VENV" ]]; then
        say "rebuilding the broken virtual environment in $VENV"
        rm -rf "$VENV"
    else
        say "creating the virtual environment in $VENV"
    fi
    "$PYTHON" -m venv "$VENV"
    rm -f "$STAMP"
}

ensure_installed() {
    local want
    want="$(sha256sum "$REPO/pyproject.toml" | cut -d' ' -f1)"
    if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
        return 0
    fi
    say "installing wander3d, its app and its test tools into .venv (pip install -e \".[app,test]\"; first time takes a minute)"
    # Editable, so edits to wander3d/ take effect without re-running this script.
    (cd "$REPO" && "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[app,test]") ||
        die "pip install failed (see above)"
    printf '%s\n' "$want" >"$STAMP"
}

# --- JavaScript packages ---------------------------------------------------------------------
# package.json pins what the tests take from npm: p5.js, whose lib/p5.min.js the JS port's p5
# sketch tests copy beside the sketch. `npm ci` installs exactly package-lock.json into
# node_modules/ (git-ignored), again only when the lock changed. Failing (no registry) is a
# warning, not an error: the app and the other tests do not need it, and the p5 tests say what
# is missing (and fail in CI).
NODE_STAMP="$REPO/node_modules/.wander3d-install-stamp"

ensure_node_packages() {
    if ! command -v npm >/dev/null; then
        say "npm not found: the JavaScript packages (p5.js) are not installed"
        return 0
    fi
    local want
    want="$(sha256sum "$REPO/package-lock.json" | cut -d' ' -f1)"
    if [[ -f "$NODE_STAMP" && "$(cat "$NODE_STAMP")" == "$want" ]]; then
        return 0
    fi
    say "installing the JavaScript packages (npm ci: p5.js for the JS port's sketch tests)"
    if (cd "$REPO" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >&2); then
        printf '%s\n' "$want" >"$NODE_STAMP"
    else
        say "warning: npm ci failed; the p5.js sketch tests will say what is missing"
    fi
}

setup() {
    ensure_system_packages
    ensure_venv
    ensure_installed
    ensure_node_packages
}

# --- commands --------------------------------------------------------------------------------
run_app() {
    if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
        say "no display found: run this from a desktop session, or without one: xvfb-run -a bash scripts/bootstrap.sh app"
    fi
    # In a Wayland session Qt 6 picks its wayland platform, where vispy's GL canvas is known to
    # come up black or flicker (vispy issues #2489, PR #2665); napari and vispy's own developers
    # run Qt on XWayland instead. So prefer xcb whenever an X display exists, unless the user
    # chose a platform.
    if [[ -z "${QT_QPA_PLATFORM:-}" && -n "${DISPLAY:-}" ]]; then
        export QT_QPA_PLATFORM=xcb
    fi
    exec "$VENV/bin/wander3d" "$@"
}

run_tests() {
    # How the tests run (the virtual X display pytest-xvfb starts, at 24-bit colour, Qt on it,
    # a per-test timeout) lives in the pytest configuration (pyproject.toml, tests/conftest.py),
    # so a plain `pytest` in .venv behaves the same. A user's arguments go to pytest as given.
    local rc=0
    (cd "$REPO" && "$VENV/bin/python" -m pytest "$@") || rc=$?
    if ((rc == 5)); then
        say "error: pytest collected no tests; that counts as a failure"
        exit 1
    fi
    exit "$rc"
}

cmd="${1:-}"
shift || true
case "$cmd" in
setup)
    setup
    ;;
app)
    setup
    run_app "$@"
    ;;
test)
    setup
    run_tests "$@"
    ;;
*)
    echo "usage: bash scripts/bootstrap.sh {app|test|setup} [ARGS...]" >&2
    exit 2
    ;;
esac
