"""What a trajectory file records about the run that made it, so the run can be repeated."""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wander3d.scene import Scene, SceneError

#: Bumped when the files' columns or this record change incompatibly.
FORMAT_VERSION = 1
#: The key of the record in a Parquet file's schema metadata and a glTF asset's extras.
METADATA_KEY = "wander3d"


class ExportError(ValueError):
    """A trajectory file cannot be written or read back; the message is one line."""


def _version() -> str:
    from wander3d import __version__

    return __version__


@dataclass(frozen=True)
class Provenance:
    """A run as a trajectory file describes it.

    scene_text:        the scene's TOML text (the file's, or the scene written back);
    scene_name:        its name; scene_source: the file it came from, or None;
    seed:              the seed; dt: seconds per step;
    steps_per_sample:  simulation steps between samples; samples: how many (the first at t=0);
    steps:             simulation steps the run took (the last sample may come before the end);
    wander3d_version:  the version that wrote the file.
    """

    scene_text: str
    scene_name: str
    scene_source: str | None
    seed: int
    dt: float
    steps_per_sample: int
    samples: int
    steps: int
    wander3d_version: str

    @classmethod
    def of_run(cls, scene: Scene, steps_per_sample: int, samples: int, steps: int) -> Provenance:
        return cls(
            scene_text=scene.text if scene.text is not None else scene.to_toml(),
            scene_name=scene.name,
            scene_source=None if scene.source is None else str(scene.source),
            seed=scene.seed,
            dt=scene.dt,
            steps_per_sample=steps_per_sample,
            samples=samples,
            steps=steps,
            wander3d_version=_version(),
        )

    @property
    def sample_interval(self) -> float:
        """Seconds between samples."""
        return self.steps_per_sample * self.dt

    def to_dict(self) -> dict[str, Any]:
        return {
            "format_version": FORMAT_VERSION,
            "wander3d_version": self.wander3d_version,
            "scene_name": self.scene_name,
            "scene_source": self.scene_source,
            "seed": self.seed,
            "dt_s": self.dt,
            "steps_per_sample": self.steps_per_sample,
            "sample_interval_s": self.sample_interval,
            "samples": self.samples,
            "steps": self.steps,
            "scene_toml": self.scene_text,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_dict(cls, d: Any, where: str) -> Provenance:
        """Read a record back; ExportError naming `where` if it is not one."""
        try:
            if d["format_version"] != FORMAT_VERSION:
                raise ExportError(
                    f"{where}: trajectory format version {d['format_version']}, this wander3d "
                    f"reads version {FORMAT_VERSION}"
                )
            record = cls(
                scene_text=str(d["scene_toml"]),
                scene_name=str(d["scene_name"]),
                scene_source=None if d.get("scene_source") is None else str(d["scene_source"]),
                seed=int(d["seed"]),
                dt=float(d["dt_s"]),
                steps_per_sample=int(d["steps_per_sample"]),
                samples=int(d["samples"]),
                steps=int(d["steps"]),
                wander3d_version=str(d["wander3d_version"]),
            )
        except (KeyError, TypeError, ValueError, OverflowError) as e:
            if isinstance(e, ExportError):
                raise
            raise ExportError(f"{where}: not a wander3d run record ({e})") from None
        if (
            record.steps_per_sample < 1
            or record.samples != record.steps // record.steps_per_sample + 1
            or not 0 < record.dt < math.inf
        ):
            raise ExportError(f"{where}: not a wander3d run record (bad sampling)")
        return record

    def scene(self, where: str) -> Scene:
        """The Scene the record describes (SceneError naming `where` if it is invalid)."""
        try:
            doc = tomllib.loads(self.scene_text)
        except tomllib.TOMLDecodeError as e:
            raise SceneError(where, None, f"recorded scene is not TOML: {e}") from None
        source = Path(self.scene_source) if self.scene_source else Path(where)
        return Scene.from_dict(doc, source=source, text=self.scene_text)


def read_provenance(path: Path) -> Provenance | None:
    """The record in a trajectory file wander3d wrote: Parquet metadata, the CSV's FILE.json
    sidecar, or an .npz's arrays. None if the file has none (tracks from elsewhere)."""
    path = Path(path)
    suffix = path.suffix.lower()
    where = str(path)
    if not path.is_file():
        raise ExportError(f"{path}: {missing_file_problem(path)}")
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        try:
            metadata = pq.read_schema(path).metadata or {}
        except (OSError, ValueError) as e:
            raise ExportError(f"{path}: not a Parquet file ({_first_line(e)})") from None
        raw = metadata.get(METADATA_KEY.encode())
        return None if raw is None else Provenance.from_dict(_json(raw, where), where)
    if suffix == ".csv":
        sidecar = sidecar_path(path)
        if not sidecar.is_file():
            return None
        where = str(sidecar)
        return Provenance.from_dict(_json(sidecar.read_bytes(), where), where)
    if suffix == ".npz":
        return _npz_provenance(path)
    if suffix == ".glb":
        from pygltflib import GLTF2

        try:
            extras = GLTF2().load_binary(str(path)).asset.extras or {}
        except Exception as e:  # pygltflib raises whatever its parser meets
            raise ExportError(f"{path}: not a glTF binary ({_first_line(e)})") from None
        record = extras.get(METADATA_KEY)
        return None if record is None else Provenance.from_dict(record, where)
    raise ExportError(f"{path}: no run record in a {suffix or 'suffix-less'} file")


def _npz_provenance(path: Path) -> Provenance | None:
    import zipfile

    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            if "scene_text" not in data.files:
                return None
            steps = np.asarray(data["steps"])
            every = int(steps[1] - steps[0]) if len(steps) > 1 else 1
            return Provenance(
                scene_text=str(data["scene_text"]),
                scene_name=str(data["scene_name"]),
                scene_source=None,
                seed=int(data["seed"]),
                dt=float(data["dt"]),
                steps_per_sample=every,
                samples=len(steps),
                steps=int(data["run_steps"]) if "run_steps" in data.files else int(steps[-1]),
                wander3d_version=str(data["wander3d_version"])
                if "wander3d_version" in data.files
                else "unknown",
            )
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as e:
        raise ExportError(f"{path}: not a wander3d .npz ({_first_line(e)})") from None


def missing_file_problem(path: Path) -> str:
    """Why `path`, not a regular file, cannot be read: "no such file", "is a directory"..."""
    if path.is_dir():
        return "is a directory"
    if path.exists():
        return "not a regular file"
    return "no such file"


def sidecar_path(path: Path) -> Path:
    """Where a CSV's record goes: FILE.json beside FILE (e.g. run.csv -> run.csv.json)."""
    return path.with_name(path.name + ".json")


def _json(raw: bytes, where: str) -> Any:
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ExportError(f"{where}: run record is not JSON ({e})") from None


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__
