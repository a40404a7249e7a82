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


class _Buffer:
    """The .glb's one binary buffer as it is built: its bytes, the views into it (each
    4-byte aligned) and the accessors that read them; each method returns the new item's
    index."""

    def __init__(self) -> None:
        self.parts: list[bytes | memoryview] = []
        self.views: list[gl.BufferView] = []
        self.accessors: list[gl.Accessor] = []
        self.size = 0

    def view(self, data: Array, target: int | None = None) -> int:
        """A view of `data`, appended to the buffer; `target`: a vertex or index buffer."""
        padding = -self.size % 4
        self.parts.append(b"\0" * padding)
        self.size += padding
        self.views.append(
            gl.BufferView(buffer=0, byteOffset=self.size, byteLength=data.nbytes, target=target)
        )
        self.parts.append(np.ascontiguousarray(data).data.cast("B"))
        self.size += data.nbytes
        return len(self.views) - 1

    def accessor(
        self,
        view: int,
        kind: str,
        count: int,
        component: int = _FLOAT,
        offset: int = 0,
        bounds: tuple[list, list] | None = None,
    ) -> int:
        """`count` elements of type `kind` (gl.VEC3, ...) in view `view` from byte `offset`;
        `bounds`: their (min, max), which glTF requires of positions and animation times."""
        a = gl.Accessor(
            bufferView=view, byteOffset=offset, componentType=component, count=count, type=kind
        )
        if bounds is not None:
            a.min, a.max = bounds
        self.accessors.append(a)
        return len(self.accessors) - 1

    def blob(self) -> bytes:
        return b"".join(self.parts)


def _material(name: str, rgba: list[float], **pbr: float) -> gl.Material:
    """A non-metallic material of colour `rgba` (linear); `pbr`: more PbrMetallicRoughness."""
    return gl.Material(
        name=name,
        pbrMetallicRoughness=gl.PbrMetallicRoughness(
            baseColorFactor=rgba, metallicFactor=0.0, **pbr
        ),
    )


def _mesh(name: str, position: int, indices: int, material: int, **primitive: int) -> gl.Mesh:
    """A mesh of one primitive: accessors `position` and `indices`; `primitive`: its mode."""
    attributes = gl.Attributes(POSITION=position)
    return gl.Mesh(
        name=name,
        primitives=[
            gl.Primitive(attributes=attributes, indices=indices, material=material, **primitive)
        ],
    )


def _shape(buffer: _Buffer, vertices: Array, indices: Array) -> tuple[int, int]:
    """The accessors of a shape's (V, 3) float32 vertices and its uint16 indices."""
    bounds = (vertices.min(0).tolist(), vertices.max(0).tolist())
    position = buffer.accessor(buffer.view(vertices, _ARRAY), gl.VEC3, len(vertices), bounds=bounds)
    index = buffer.accessor(
        buffer.view(indices, _ELEMENTS), gl.SCALAR, len(indices), gl.UNSIGNED_SHORT
    )
    return position, index


def _meshes(
    scene: Scene, buffer: _Buffer, low: Array, high: Array
) -> tuple[list[gl.Mesh], list[gl.Material]]:
    """A cone in each group's colour (mesh and material i: group i), then the box's lines."""
    cone_at, cone_index_at = _shape(buffer, *cone(CONE_LENGTH * float(np.max(high - low))))
    box_at, box_index_at = _shape(buffer, *box_lines(low, high))
    materials = [_material(g.name, linear_rgba(g.color), roughnessFactor=0.8) for g in scene.groups]
    materials.append(_material("box", list(BOX_COLOR)))
    meshes = [
        _mesh(f"{g.name} cone", cone_at, cone_index_at, material=i)
        for i, g in enumerate(scene.groups)
    ]
    meshes.append(_mesh("box", box_at, box_index_at, len(scene.groups), mode=gl.LINES))
    return meshes, materials


def _agents(
    scene: Scene,
    buffer: _Buffer,
    positions: Array,
    turns: Array,
    views: tuple[int, int],
    times_at: int,
) -> tuple[list[gl.Node], gl.Animation]:
    """A node per agent, showing its group's cone (mesh = group) at its first pose, and the
    animation that moves it: a translation and a rotation channel per agent, at the times of
    accessor `times_at`, reading its keyframes from `views`, the buffer's views of
    `positions` (N, T, 3) and `turns` (N, T, 4)."""
    n, t = positions.shape[:2]
    positions_view, turns_view = views
    nodes: list[gl.Node] = []
    samplers: list[gl.AnimationSampler] = []
    channels: list[gl.AnimationChannel] = []
    group_of = np.repeat(np.arange(len(scene.groups)), [g.count for g in scene.groups])
    for agent in range(n):
        # One accessor per agent into the shared views (their byte offsets).
        moves = buffer.accessor(positions_view, gl.VEC3, t, offset=agent * t * 12)
        rotates = buffer.accessor(turns_view, gl.VEC4, t, offset=agent * t * 16)
        group = int(group_of[agent])
        nodes.append(
            gl.Node(
                name=f"{scene.groups[group].name} {agent}",
                mesh=group,
                translation=positions[agent, 0].tolist(),
                rotation=turns[agent, 0].tolist(),
            )
        )
        for target, output in (("translation", moves), ("rotation", rotates)):
            samplers.append(
                gl.AnimationSampler(input=times_at, output=output, interpolation=gl.LINEAR)
            )
            channels.append(
                gl.AnimationChannel(
                    sampler=len(samplers) - 1,
                    target=gl.AnimationChannelTarget(node=agent, path=target),
                )
            )
    return nodes, gl.Animation(name=scene.name, samplers=samplers, channels=channels)


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
        """Write the .glb: the agents' nodes and animation, the cones and the box, and the run
        record. The buffer holds the keyframes' times, positions and rotations, then the
        meshes' geometry."""
        scene, record = self._scene, self._provenance
        t = self._positions.shape[1]
        low = np.asarray(scene.enclosure.min, dtype=np.float32)
        high = np.asarray(scene.enclosure.max, dtype=np.float32)
        times = (np.arange(t) * record.sample_interval).astype(np.float32)
        turns = rotations(self._headings)
        del self._headings

        buffer = _Buffer()
        span = ([float(times[0])], [float(times[-1])])
        times_at = buffer.accessor(buffer.view(times), gl.SCALAR, t, bounds=span)
        views = buffer.view(self._positions), buffer.view(turns)
        meshes, materials = _meshes(scene, buffer, low, high)
        nodes, animation = _agents(scene, buffer, self._positions, turns, views, times_at)
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
            accessors=buffer.accessors,
            bufferViews=buffer.views,
            buffers=[gl.Buffer(byteLength=buffer.size)],
            animations=[animation],
        )
        gltf.set_binary_blob(buffer.blob())
        gltf.save_binary(str(self._path))
