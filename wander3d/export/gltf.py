"""Binary glTF 2.0 (.glb): the run as an animation for Blender, three.js and game engines.

One node per agent, each with a small cone (pointing along its local +Z) in its group's
colour and an animation channel each for translation and rotation, with a keyframe at every
sample (LINEAR interpolation: straight lines and slerp between samples); the enclosure is a
node of LINES. glTF's units are metres and its +Y is up, as wander3d's. The run record is in
the asset's extras under "wander3d". Written with pygltflib.

A glTF animation is one block of data, so the whole run is held in memory until it is
written: about BYTES_PER_AGENT_SAMPLE bytes per agent and sample, plus the nodes' JSON.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pygltflib as gl

from wander3d.scene import Scene, rgb

from .base import Array
from .provenance import METADATA_KEY, Provenance

#: Peak bytes per agent and sample: positions and headings kept, rotations, the binary blob
#: and pygltflib's copy of it.
BYTES_PER_AGENT_SAMPLE = 12 + 12 + 16 + 28 + 28
#: Bytes of glTF JSON per agent (node, two samplers, two channels, two accessors).
BYTES_PER_AGENT = 1200
#: The cone's length as a share of the box's largest side, and its radius as a share of that.
CONE_LENGTH = 0.02
CONE_RADIUS = 0.3
CONE_SEGMENTS = 12
BOX_COLOR = (0.6, 0.65, 0.7, 1.0)

_FLOAT = gl.FLOAT
_ARRAY = gl.ARRAY_BUFFER
_ELEMENTS = gl.ELEMENT_ARRAY_BUFFER


def memory_bytes(samples: int, agents: int) -> int:
    """About the most memory writing a .glb of this size takes."""
    return samples * agents * BYTES_PER_AGENT_SAMPLE + agents * BYTES_PER_AGENT


def cone(length: float) -> tuple[Array, Array]:
    """A closed cone along +Z, tip at 0.75 length, base centred at -0.25 length.

    Returns (vertices (S + 2, 3) float32, triangle indices (4 S,) uint16), S = CONE_SEGMENTS;
    triangles wind anticlockwise seen from outside.
    """
    angles = np.linspace(0.0, 2.0 * np.pi, CONE_SEGMENTS, endpoint=False)
    r = CONE_RADIUS * length
    ring = np.stack([r * np.cos(angles), r * np.sin(angles), np.full_like(angles, -0.25 * length)])
    tip = [0.0, 0.0, 0.75 * length]
    base = [0.0, 0.0, -0.25 * length]
    vertices = np.vstack([ring.T, tip, base]).astype(np.float32)
    i = np.arange(CONE_SEGMENTS)
    j = (i + 1) % CONE_SEGMENTS
    sides = np.stack([i, j, np.full_like(i, CONE_SEGMENTS)], axis=1)
    bottom = np.stack([j, i, np.full_like(i, CONE_SEGMENTS + 1)], axis=1)
    return vertices, np.concatenate([sides, bottom]).ravel().astype(np.uint16)


def box_lines(low: Array, high: Array) -> tuple[Array, Array]:
    """The box's 12 edges: (vertices (8, 3) float32, line indices (24,) uint16)."""
    corners = np.array(
        [[(high if (c >> a) & 1 else low)[a] for a in range(3)] for c in range(8)],
        dtype=np.float32,
    )
    edges = [(c, c | 1 << a) for c in range(8) for a in range(3) if not (c >> a) & 1]
    return corners, np.array(edges, dtype=np.uint16).ravel()


def linear_rgba(color: str) -> list[float]:
    """A "#rrggbb" sRGB colour as glTF's linear baseColorFactor (r, g, b, 1)."""
    c = np.asarray(rgb(color), dtype=np.float64)
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return [*(float(x) for x in linear), 1.0]


def rotations(headings: Array) -> Array:
    """Unit quaternions (x, y, z, w) turning +Z onto each heading: (..., 3) -> (..., 4) float32.

    The shortest arc, q = normalise(+Z x h, 1 + Z . h); a heading of exactly -Z (where that
    arc is not unique) gets a half turn about +X. A cone has no roll to keep.
    """
    h = np.asarray(headings, dtype=np.float64)
    q = np.stack([-h[..., 1], h[..., 0], np.zeros(h.shape[:-1]), 1.0 + h[..., 2]], axis=-1)
    norm = np.linalg.norm(q, axis=-1, keepdims=True)
    flipped = norm[..., 0] < 1e-6
    q = np.divide(q, norm, out=np.zeros_like(q), where=~flipped[..., None])
    q[flipped] = (1.0, 0.0, 0.0, 0.0)
    return q.astype(np.float32)


class GlbWriter:
    """Collects the samples agent-major (each agent's keyframes contiguous, as glTF's
    animation accessors must be) and writes the .glb in `finish`."""

    def __init__(self, path: Path, scene: Scene, provenance: Provenance) -> None:
        self._path = path
        self._scene = scene
        self._provenance = provenance
        n, t = scene.agent_count, provenance.samples
        self._positions = np.empty((n, t, 3), dtype=np.float32)
        self._headings = np.empty((n, t, 3), dtype=np.float32)

    def write(self, first: int, positions: Array, velocities: Array, headings: Array) -> None:
        stop = first + len(positions)
        self._positions[:, first:stop] = np.swapaxes(positions, 0, 1)
        self._headings[:, first:stop] = np.swapaxes(headings, 0, 1)

    def close(self) -> None:
        """Nothing is open between `write` calls."""

    def finish(self) -> None:
        scene, record = self._scene, self._provenance
        n, t = self._positions.shape[:2]
        low = np.asarray(scene.enclosure.min, dtype=np.float32)
        high = np.asarray(scene.enclosure.max, dtype=np.float32)
        times = (np.arange(t) * record.sample_interval).astype(np.float32)
        quats = rotations(self._headings)
        del self._headings
        first_turns = quats[:, 0]  # the pose before the animation plays
        cone_vertices, cone_indices = cone(CONE_LENGTH * float(np.max(high - low)))
        box_vertices, box_indices = box_lines(low, high)

        parts: list[bytes | memoryview] = []
        views: list[gl.BufferView] = []
        size = 0

        def view(data: Array, target: int | None = None) -> int:
            nonlocal size
            parts.append(b"\0" * (-size % 4))  # every view starts 4-byte aligned
            size += -size % 4
            views.append(
                gl.BufferView(buffer=0, byteOffset=size, byteLength=data.nbytes, target=target)
            )
            parts.append(np.ascontiguousarray(data).data.cast("B"))
            size += data.nbytes
            return len(views) - 1

        accessors: list[gl.Accessor] = []

        def accessor(
            view_index: int,
            kind: str,
            count: int,
            component: int = _FLOAT,
            offset: int = 0,
            bounds: tuple[list, list] | None = None,
        ) -> int:
            a = gl.Accessor(
                bufferView=view_index,
                byteOffset=offset,
                componentType=component,
                count=count,
                type=kind,
            )
            if bounds is not None:
                a.min, a.max = bounds
            accessors.append(a)
            return len(accessors) - 1

        span = ([float(times[0])], [float(times[-1])])
        times_at = accessor(view(times), gl.SCALAR, t, bounds=span)
        positions_view = view(self._positions)
        rotations_view = view(quats)
        cone_at = accessor(
            view(cone_vertices, _ARRAY),
            gl.VEC3,
            len(cone_vertices),
            bounds=(cone_vertices.min(0).tolist(), cone_vertices.max(0).tolist()),
        )
        cone_index_at = accessor(
            view(cone_indices, _ELEMENTS), gl.SCALAR, len(cone_indices), gl.UNSIGNED_SHORT
        )
        box_at = accessor(
            view(box_vertices, _ARRAY),
            gl.VEC3,
            len(box_vertices),
            bounds=(low.tolist(), high.tolist()),
        )
        box_index_at = accessor(
            view(box_indices, _ELEMENTS), gl.SCALAR, len(box_indices), gl.UNSIGNED_SHORT
        )

        materials = [
            gl.Material(
                name=g.name,
                pbrMetallicRoughness=gl.PbrMetallicRoughness(
                    baseColorFactor=linear_rgba(g.color), metallicFactor=0.0, roughnessFactor=0.8
                ),
            )
            for g in scene.groups
        ]
        materials.append(
            gl.Material(
                name="box",
                pbrMetallicRoughness=gl.PbrMetallicRoughness(
                    baseColorFactor=list(BOX_COLOR), metallicFactor=0.0
                ),
            )
        )
        meshes = [
            gl.Mesh(
                name=f"{g.name} cone",
                primitives=[
                    gl.Primitive(
                        attributes=gl.Attributes(POSITION=cone_at),
                        indices=cone_index_at,
                        material=i,
                    )
                ],
            )
            for i, g in enumerate(scene.groups)
        ]
        meshes.append(
            gl.Mesh(
                name="box",
                primitives=[
                    gl.Primitive(
                        attributes=gl.Attributes(POSITION=box_at),
                        indices=box_index_at,
                        mode=gl.LINES,
                        material=len(scene.groups),
                    )
                ],
            )
        )

        nodes: list[gl.Node] = []
        samplers: list[gl.AnimationSampler] = []
        channels: list[gl.AnimationChannel] = []
        group_of = np.repeat(np.arange(len(scene.groups)), [g.count for g in scene.groups])
        for agent in range(n):
            # One accessor per agent into the shared views (their byte offsets).
            moves = accessor(positions_view, gl.VEC3, t, offset=agent * t * 12)
            turns = accessor(rotations_view, gl.VEC4, t, offset=agent * t * 16)
            group = int(group_of[agent])
            nodes.append(
                gl.Node(
                    name=f"{scene.groups[group].name} {agent}",
                    mesh=group,
                    translation=self._positions[agent, 0].tolist(),
                    rotation=first_turns[agent].tolist(),
                )
            )
            for target, output in (("translation", moves), ("rotation", turns)):
                samplers.append(
                    gl.AnimationSampler(input=times_at, output=output, interpolation=gl.LINEAR)
                )
                channels.append(
                    gl.AnimationChannel(
                        sampler=len(samplers) - 1,
                        target=gl.AnimationChannelTarget(node=agent, path=target),
                    )
                )
        nodes.append(gl.Node(name="box", mesh=len(meshes) - 1))

        gltf = gl.GLTF2(
            asset=gl.Asset(
                generator=f"wander3d {record.wander3d_version}",
                extras={METADATA_KEY: record.to_dict()},
            ),
            scene=0,
            scenes=[gl.Scene(name=scene.name, nodes=list(range(len(nodes))))],
            nodes=nodes,
            meshes=meshes,
            materials=materials,
            accessors=accessors,
            bufferViews=views,
            buffers=[gl.Buffer(byteLength=size)],
            animations=[gl.Animation(name=scene.name, samplers=samplers, channels=channels)],
        )
        gltf.set_binary_blob(b"".join(parts))
        gltf.save_binary(str(self._path))
