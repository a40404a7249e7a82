# SPDX-FileCopyrightText: 2026 The wander3d authors
# SPDX-License-Identifier: MIT
# wander_view.gd: the arithmetic of the Godot adapter (wander_flock_3d.gd) that needs no
# engine: which way an agent's model faces, the debug drawing's lines, and a group's settings
# applied to a running flock. Plain GDScript that Godot 3.2 and 4 both run (wander3d's tests run
# it in Godot 3.2; the node around it is Godot 4's).
#
# Frames: wander3d's +y is Godot's +Y and both are right-handed, so positions and headings are
# used as they are. A Godot model faces its -Z (as Node3D.look_at turns it), so an agent's
# model has -Z along its heading, +X to its right and +Y up, as level as the heading allows.

const WanderCore = preload("../wander.gd")

## The group settings a flock's parameters are edited by, in WanderParams' names.
const SETTINGS = [
	"method", "steering", "max_speed", "max_force", "mass", "initial_speed", "distance",
	"radius", "jitter", "rate", "frequency", "interval", "vertical",
]


## The basis turning a model that faces -Z (up +Y) to face unit `heading`, its up as close to
## +Y as the heading allows: its columns x (right), y (up), z (= -heading), 9 floats. For a
## vertical heading, `right_hint` (e.g. last frame's right) keeps the roll.
static func facing(heading: Array, right_hint: Array) -> Array:
	var hx: float = heading[0]
	var hy: float = heading[1]
	var hz: float = heading[2]
	# right = heading x up, level; near vertical, the hint made perpendicular to the heading.
	var rx := -hz
	var ry := 0.0
	var rz := hx
	var n := sqrt(rx * rx + rz * rz)
	if n < 1e-6:
		var along: float = right_hint[0] * hx + right_hint[1] * hy + right_hint[2] * hz
		rx = right_hint[0] - along * hx
		ry = right_hint[1] - along * hy
		rz = right_hint[2] - along * hz
		n = sqrt(rx * rx + ry * ry + rz * rz)
		if n < 1e-6:
			rx = 1.0
			ry = 0.0
			rz = 0.0
			n = 1.0
	rx /= n
	ry /= n
	rz /= n
	# up = right x heading (unit: both are unit and perpendicular).
	var ux := ry * hz - rz * hy
	var uy := rz * hx - rx * hz
	var uz := rx * hy - ry * hx
	return [rx, ry, rz, ux, uy, uz, -hx, -hy, -hz]


## Line segments (consecutive pairs of [x, y, z] points) drawing a sphere as three great
## circles of `segments` pieces each.
static func sphere_lines(centre: Array, radius: float, segments: int) -> Array:
	var lines := []
	var step := TAU / segments
	for axis in 3:
		var previous := []
		for k in segments + 1:
			var angle: float = k * step
			var a: float = cos(angle) * radius
			var b: float = sin(angle) * radius
			var point: Array = centre.duplicate()
			point[(axis + 1) % 3] += a
			point[(axis + 2) % 3] += b
			if k > 0:
				lines.append(previous)
				lines.append(point)
			previous = point
	return lines


## Line segments of a small cross (half-size `size`) marking `point`.
static func cross_lines(point: Array, size: float) -> Array:
	var lines := []
	for axis in 3:
		var a: Array = point.duplicate()
		var b: Array = point.duplicate()
		a[axis] -= size
		b[axis] += size
		lines.append(a)
		lines.append(b)
	return lines


## Line segments of the 12 edges of the box from `low` to `high`.
static func box_lines(low: Array, high: Array) -> Array:
	var lines := []
	for axis in 3:
		var u: int = (axis + 1) % 3
		var v: int = (axis + 2) % 3
		for corner in 4:
			var a: Array = low.duplicate()
			a[u] = high[u] if corner & 1 else low[u]
			a[v] = high[v] if corner & 2 else low[v]
			var b: Array = a.duplicate()
			b[axis] = high[axis]
			lines.append(a)
			lines.append(b)
	return lines


## A group's parameters as settings values (SETTINGS' names).
static func values_of(params: WanderCore.WanderParams) -> Dictionary:
	var values := {}
	for name in SETTINGS:
		values[name] = params.get(name)
	return values


## Settings `values` (SETTINGS' names; others are ignored) applied to group g of a running
## flock: numbers at once (from the next step), a new method through set_method so that each
## agent's target stays where it is. Whether anything changed.
static func apply(values: Dictionary, flock: WanderCore.Flock, g: int) -> bool:
	var params: WanderCore.WanderParams = flock.params_of(g)
	var changed := false
	for name in SETTINGS:
		if name == "method" or not values.has(name) or values[name] == params.get(name):
			continue
		params.set(name, values[name])
		changed = true
	var method: String = values.get("method", params.method)
	if method != params.method and WanderCore.METHODS.has(method):
		flock.set_method(g, method)
		changed = true
	return changed
