"""Headless Chromium driven over its DevTools pipe, for the shared page's tests and benchmark.

`--remote-debugging-pipe` speaks the DevTools protocol as NUL-terminated JSON messages over file
descriptors 3 (commands in) and 4 (replies and events out): no port, no websocket, no library.
The driver records every console message, uncaught exception and network request the page
makes, so a test can say "no console error and no network request".

Chromium is required where this is used: `chromium()` fails (never skips) when it is missing,
as CI must run the page (scripts/bootstrap.sh installs Debian's `chromium`).
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

#: Flags for a quiet, reproducible headless browser drawing with software GL (SwiftShader).
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--mute-audio",
    "--hide-scrollbars",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--ignore-gpu-blocklist",
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
)


def chromium_path() -> str:
    """The browser's path; a test failure (not a skip) when there is none."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("chromium is not installed; the shared page's tests need it (scripts/bootstrap.sh)")


class Browser:
    """One headless Chromium with one page, driven over the DevTools pipe.

    events: every protocol event received so far (method, params), in order.
    """

    def __init__(self, width: int = 1366, height: int = 768, executable: str | None = None):
        self.profile = tempfile.TemporaryDirectory(prefix="wander3d-chromium-")
        commands_r, commands_w = os.pipe()
        replies_r, replies_w = os.pipe()
        os.set_inheritable(commands_r, True)
        os.set_inheritable(replies_w, True)
        args = [
            executable or chromium_path(),
            *FLAGS,
            "--remote-debugging-pipe",
            f"--user-data-dir={self.profile.name}",
            f"--window-size={width},{height}",
            "about:blank",
        ]

        def child_fds() -> None:
            # Out of the way first, so neither end lands on the other's number.
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (commands_r, replies_w)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # Not close_fds: it would close 3 and 4 after child_fds made them (Python's own
            # descriptors are not inheritable, so nothing else leaks).
            close_fds=False,
            preexec_fn=child_fds,
            start_new_session=True,  # its renderer and GPU processes end with it (close)
        )
        os.close(commands_r)
        os.close(replies_w)
        self.out = os.fdopen(commands_w, "wb")
        self.inp = os.fdopen(replies_r, "rb")
        self.buffer = b""
        self.next_id = 0
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.session = ""
        targets = self.send("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", targetId=page["targetId"], flatten=True)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            chunk = os.read(self.inp.fileno(), 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed its DevTools pipe")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        found: dict[str, Any] = json.loads(message)
        return found

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """Call a DevTools method on the page (the browser before attaching); its result."""
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if self.session:
            message["sessionId"] = self.session
        self.out.write(json.dumps(message).encode() + b"\0")
        self.out.flush()
        while True:
            reply = self._read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply["result"]
                return result
            if "method" in reply:
                self.events.append((reply["method"], reply.get("params", {})))

    def open(self, path: Path, query: str = "", timeout: float = 60.0) -> None:
        """Load a file (with ?query) and wait for its load event."""
        url = path.resolve().as_uri() + (f"?{query}" if query else "")
        seen = len(self.events)
        self.send("Page.navigate", url=url)
        deadline = time.monotonic() + timeout
        while not any(m == "Page.loadEventFired" for m, _ in self.events[seen:]):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not load in {timeout} s")
            self.evaluate("1")  # pumps events

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited if a promise)."""
        result = self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60.0) -> Any:
        """Evaluate `expression` until it is truthy (the page's time, not a sleep's)."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"{expression} stayed false for {timeout} s")
            self.evaluate("new Promise((r) => requestAnimationFrame(() => r(1)))")

    def screenshot(self) -> bytes:
        """The page as PNG bytes."""
        return base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"])

    def click(self, x: float, y: float) -> None:
        """A left click at CSS pixel (x, y)."""
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def tap(self, x: float, y: float) -> None:
        """A one-finger tap at CSS pixel (x, y), as a touch screen sends it."""
        self.send("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=5)
        self.send("Input.dispatchTouchEvent", type="touchStart", touchPoints=[{"x": x, "y": y}])
        self.send("Input.dispatchTouchEvent", type="touchEnd", touchPoints=[])

    def problems(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions and log errors so far."""
        found = []
        for method, params in self.events:
            if method == "Runtime.consoleAPICalled" and params["type"] in ("error", "warning"):
                words = (str(a.get("value", a.get("description"))) for a in params["args"])
                found.append(" ".join(words))
            elif method == "Runtime.exceptionThrown":
                found.append(json.dumps(params["exceptionDetails"])[:400])
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                found.append(params["entry"]["text"])
        return found

    def requests(self) -> list[str]:
        """URLs of every request the page made (data: and the page's own file excluded)."""
        urls = [p["request"]["url"] for m, p in self.events if m == "Network.requestWillBeSent"]
        return [u for u in urls if not u.startswith("data:")]

    def close(self) -> None:
        """End the browser and every process it started (its own process group)."""
        self.out.close()
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            try:
                self.process.wait(timeout=10)
                break
            except subprocess.TimeoutExpired:
                continue
        self.inp.close()
        self.profile.cleanup()
