# SPDX-FileCopyrightText: 2026 The wander3d authors
# SPDX-License-Identifier: MIT
# wander_group_settings.gd: one group of a WanderFlock3D, its wander parameters as an inspector
# resource (Godot 4). Every edit emits `changed`; the flock applies it from its next step, in the
# editor's remote tree, from an AnimationPlayer or from code. `name`, `count` and `color` apply
# when the flock starts. The words of each tooltip are wander3d's (`wander3d check` explains a
# group's values: how far it roams, how often it turns).
@tool
class_name WanderGroupSettings
extends Resource

## The group's name (as in scene.toml).
@export var name := "wanderers"
## Agents in the group (applies when the flock starts).
@export_range(0, 100000) var count := 300
## The group's colour in the MultiMesh.
@export var color := Color(1.0, 0.69, 0.0)

@export_group("Wander")
## How the target moves: sphere (jittered on a sphere ahead), angle (yaw and pitch random walk),
## noise (smooth noise curves), seek (random points of the box), random (a fresh direction).
@export_enum("sphere", "angle", "noise", "seek", "random") var method := "sphere":
	set(value):
		method = value
		emit_changed()
## force: the vector to the target is the force; desired: steer the velocity towards it.
@export_enum("force", "desired") var steering := "force":
	set(value):
		steering = value
		emit_changed()
## The wander sphere's centre, this far ahead of the agent.
@export_range(0.0, 200.0, 0.1, "or_greater", "suffix:units") var distance := 30.0:
	set(value):
		distance = value
		emit_changed()
## The wander sphere's radius.
@export_range(0.0, 100.0, 0.1, "or_greater", "suffix:units") var radius := 12.0:
	set(value):
		radius = value
		emit_changed()
## sphere: the target's random displacement.
@export_range(0.0, 100.0, 0.1, "or_greater", "suffix:units/√s") var jitter := 10.0:
	set(value):
		jitter = value
		emit_changed()
## angle: the random walk of the target's yaw and pitch.
@export_range(0.0, 10.0, 0.01, "or_greater", "suffix:rad/√s") var rate := 0.8:
	set(value):
		rate = value
		emit_changed()
## noise: the pace of the noise curves.
@export_range(0.0, 10.0, 0.01, "or_greater", "suffix:1/s") var frequency := 0.3:
	set(value):
		frequency = value
		emit_changed()
## seek: seconds between new points.
@export_range(0.01, 60.0, 0.01, "or_greater", "suffix:s") var interval := 4.0:
	set(value):
		interval = value
		emit_changed()
## Up/down freedom: 1 isotropic, 0 level.
@export_range(0.0, 1.0, 0.01) var vertical := 1.0:
	set(value):
		vertical = value
		emit_changed()

@export_group("Vehicle")
## Top speed.
@export_range(0.1, 500.0, 0.1, "or_greater", "suffix:units/s") var max_speed := 40.0:
	set(value):
		max_speed = value
		emit_changed()
## The limit on the steering force.
@export_range(0.1, 1000.0, 0.1, "or_greater", "suffix:mass·units/s²") var max_force := 60.0:
	set(value):
		max_force = value
		emit_changed()
## Acceleration = force / mass.
@export_range(0.01, 100.0, 0.01, "or_greater") var mass := 1.0:
	set(value):
		mass = value
		emit_changed()
## Speed of spawned agents.
@export_range(0.0, 500.0, 0.1, "or_greater", "suffix:units/s") var initial_speed := 20.0:
	set(value):
		initial_speed = value
		emit_changed()


## Settings holding a SCENE group's values (a dictionary of wander.gd's scene block).
static func of_scene_group(group: Dictionary) -> WanderGroupSettings:
	var settings := WanderGroupSettings.new()
	settings.name = group["name"]
	settings.count = group["count"]
	if group.has("color"):
		settings.color = Color.html(group["color"])
	var params: Dictionary = group["params"]
	for key in params:
		settings.set(key, params[key])
	return settings


## The wander parameters, in WanderParams' names (WanderView.apply takes them).
func values() -> Dictionary:
	return {
		"method": method, "steering": steering, "max_speed": max_speed, "max_force": max_force,
		"mass": mass, "initial_speed": initial_speed, "distance": distance, "radius": radius,
		"jitter": jitter, "rate": rate, "frequency": frequency, "interval": interval,
		"vertical": vertical,
	}
