"""What a port language is, and the languages there are.

A language is a subpackage of wander3d.port holding its checked-in sources (real files, which
tests compile and run as they are) and a module-level `LANGUAGE`. Its core file has a scene
block between a line containing `BEGIN SCENE` and one containing `END SCENE`, which the port
replaces with the scene's groups; every other source is copied as it is.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

from .licence import licensed
from .plan import PortError, PortPlan

#: --lang value -> the subpackage that defines it.
LANGUAGES: dict[str, str] = {
    "js": "wander3d.port.js",
    "csharp": "wander3d.port.csharp",
    "cpp": "wander3d.port.cpp",
    "gdscript": "wander3d.port.gdscript",
}

BEGIN_MARK = "BEGIN SCENE"
END_MARK = "END SCENE"


@dataclass(frozen=True)
class Language:
    """One port language.

    name:         the --lang value; title: how people call it ("JavaScript").
    package:      the subpackage whose files are the sources.
    core:         the core's file (relative to the package and to DIR), with the scene block.
    sources:      the other files, copied as they are (driver, adapter/...), relative paths.
    scene_block:  the scene block's lines for a plan (without the marker lines).
    readme:       DIR/README.md for a plan.
    conformance:  the command line that checks a port against the engine (README, messages).
    method_ids:   the wander methods the core declares, read from the core's text: name (as
                  scene files spell it) -> id, which must be wander3d.engine.methods.METHOD_TABLE's
                  (tests/test_port_framework.py); `declared_ids(...)` reads the usual block.
    """

    name: str
    title: str
    package: str
    core: str
    sources: tuple[str, ...]
    scene_block: Callable[[PortPlan], str]
    readme: Callable[[PortPlan], str]
    conformance: str
    method_ids: Callable[[str], dict[str, int]] | None = None

    def source(self, path: str) -> str:
        """The checked-in text of one of the language's files."""
        return resources.files(self.package).joinpath(path).read_text(encoding="utf-8")

    def files(self, plan: PortPlan) -> dict[str, str]:
        """Every file of the port of `plan` in this language: relative path -> text."""
        out = {self.core: with_scene_block(self.source(self.core), self.scene_block(plan))}
        out.update({path: self.source(path) for path in self.sources})
        generated = {
            "README.md": self.readme(plan),
            "start.txt": plan.start,
            "scene.toml": plan.scene.to_toml(),
        }
        out.update({path: licensed(path, text) for path, text in generated.items()})
        return out


def declared_ids(opening: str) -> Callable[[str], dict[str, int]]:
    """A `Language.method_ids` for a core that declares its methods in one block: the
    `Name = id` or `name: id` pairs from the text `opening` to the first `}` after it (comments
    after `//` or `#` ignored), names lower-cased."""

    def ids(core: str) -> dict[str, int]:
        start = core.index(opening)
        block = re.sub(r"(//|#).*", "", core[start : core.index("}", start)])
        return {name.lower(): int(i) for name, i in re.findall(r"(\w+)\s*[=:]\s*(\d+)", block)}

    return ids


def language(name: str) -> Language:
    """The language called `name`; PortError listing the known ones otherwise."""
    if name not in LANGUAGES:
        raise PortError(f"no port language {name!r} (languages: {', '.join(LANGUAGES)})")
    module = importlib.import_module(LANGUAGES[name])
    found: Language = module.LANGUAGE
    return found


def with_scene_block(source: str, block: str) -> str:
    """`source` with the lines between its BEGIN SCENE and END SCENE marker lines replaced by
    `block` (the markers stay, so a port can be regenerated from its own output)."""
    lines = source.splitlines(keepends=True)
    begin = [i for i, line in enumerate(lines) if BEGIN_MARK in line]
    end = [i for i, line in enumerate(lines) if END_MARK in line]
    if len(begin) != 1 or len(end) != 1 or begin[0] > end[0]:
        raise ValueError("a port core needs one BEGIN SCENE line before one END SCENE line")
    body = block if block.endswith("\n") else block + "\n"
    return "".join(lines[: begin[0] + 1]) + body + "".join(lines[end[0] :])
