"""Writing a port's files into a folder, each whole or not at all."""

from __future__ import annotations

from pathlib import Path

from wander3d.files import OutputError, output_file

from .language import Language
from .plan import PortPlan


def write_port(plan: PortPlan, lang: Language, out: Path) -> list[Path]:
    """Write the port of `plan` in `lang` into folder `out` (created if missing; its parent
    must exist); return the files written. Files of the port already there are replaced,
    others left alone. OutputError (naming the path) when a file cannot be written.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise OutputError(out, "is not a folder")
    if not out.parent.is_dir():
        raise OutputError(out, f"folder {out.parent} does not exist")
    written = []
    for relative, text in lang.files(plan).items():
        path = out / relative
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise OutputError(path.parent, f"cannot create: {e.strerror or e}") from None
        with output_file(path) as temporary:
            temporary.write_text(text, encoding="utf-8", newline="\n")
        written.append(path)
    return written
