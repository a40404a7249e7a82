"""SceneError: every way a scene can be wrong, as one short line naming the file and key."""

from __future__ import annotations

#: What errors call a scene that was not read from a file.
NO_FILE = "<scene>"


class SceneError(ValueError):
    """An invalid scene.

    str() is one line: "FILE: KEY.PATH: problem", e.g.
    "scenes/bad.toml: groups[0].wander.radious: unknown key, did you mean 'radius'?".
    FILE is the path as the user gave it, or NO_FILE ("<scene>") for a dictionary; the key
    path is left out for problems of the file as a whole (missing, not UTF-8, bad TOML).

    Attributes: `file` (str), `key` (str or None), `problem` (str).
    """

    def __init__(self, file: str, key: str | None, problem: str) -> None:
        # A path or key may contain anything, newlines included: keep the message one line.
        self.file = _one_line(file)
        self.key = None if key is None else _one_line(key)
        # Messages are one line: a newline from an OS or parser message would break that.
        self.problem = " ".join(problem.split())
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.key:
            return f"{self.file}: {self.key}: {self.problem}"
        return f"{self.file}: {self.problem}"

    def __reduce__(self) -> tuple[type, tuple[str, str | None, str]]:
        # Keep pickling (multiprocessing, pytest-xdist) working with the 3-argument init.
        return (type(self), (self.file, self.key, self.problem))


def _one_line(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")
