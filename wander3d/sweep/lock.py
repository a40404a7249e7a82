"""One sweep at a time per output: a lock file beside it, `OUT.lock`, naming its holder.

The lock is an advisory `flock` on that file, which the kernel drops when the holder exits
however it exits (kill -9 included), so a lock left by a dead sweep is simply taken over; the
file holds the holder's process id and host so that a refused sweep can say who has it. The
holder removes the file when done.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from collections.abc import Iterator
from pathlib import Path


class LockedError(RuntimeError):
    """Another live process holds the lock; str() is one line naming it and the lock file."""

    def __init__(self, lock: Path, holder: str) -> None:
        self.lock = lock
        self.holder = holder
        super().__init__(f"another sweep ({holder}) is writing it (lock file {lock})")

    def __reduce__(self) -> tuple[type, tuple[Path, str]]:
        return (type(self), (self.lock, self.holder))


def lock_path(out: Path) -> Path:
    """The lock file of a sweep writing `out`."""
    return out.with_name(out.name + ".lock")


@contextlib.contextmanager
def output_lock(out: Path) -> Iterator[Path]:
    """Hold the lock of `out` for the block; LockedError at once if a live process holds it.

    OSError if the lock file cannot be made (a missing or read-only folder).
    """
    path = lock_path(out)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise LockedError(path, holder) from None
        except BaseException:
            os.close(fd)
            raise
        # The previous holder may have removed the file between our open and our lock: then
        # we hold a lock on a file nobody else can see; start again with the path's file.
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode())
        yield path
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)  # while still holding it: a waiting opener then starts again
        os.close(fd)


def _read_holder(fd: int) -> str:
    """The holder line a lock file holds ("pid 123 on host"), or a stand-in if unreadable."""
    try:
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    return text.splitlines()[0] if text else "a process that has not written its pid yet"
