# SPDX-FileCopyrightText: 2026 The wander3d authors
# SPDX-License-Identifier: MIT
# wander_flock_3d.gd: wander3d's flock as a Godot 4 node. Add a WanderFlock3D to a 3D scene:
# the scene's agents wander in its box, drawn with one MultiMeshInstance3D (or one node per
# agent), each group's parameters in the inspector (Groups), applied while the game runs.
#
# The node's transform places the box: wander3d's origin is the node's, its +y the node's +Y
# (both right-handed, so no coordinate is flipped). A model faces its -Z, as Node3D.look_at
# turns nodes: the agent's heading becomes the model's -Z, its up kept as close to +Y as the
# heading allows. The flock steps at the scene's fixed dt in _process (update(): sub-steps
# and interpolation), so the run is wander3d's at any frame rate.
@tool
class_name WanderFlock3D
extends Node3D

const WanderCore = preload("../wander.gd")
const WanderView = preload("wander_view.gd")

## One per group of the scene, filled with its values when the node is added. Edits apply from
## the next step while the game runs; a new method keeps each agent's target where it is.
@export var groups: Array[WanderGroupSettings] = []:
	set(value):
		groups = value
		_watch_groups()
## wander3d's exact start of the scene (the port's start.txt); empty: spawned from the seed.
@export_file("*.txt") var start_file := ""
## Seeds every random number of the run (applies when the flock starts).
@export var random_seed: int = WanderCore.SCENE["seed"]

@export_group("Drawing")
## Drawn once per agent with one MultiMeshInstance3D, coloured per group (faces -Z). Empty: a
## cone 4 units long.
@export var agent_mesh: Mesh
## Instead of the MultiMesh: a node of this scene per agent (faces -Z), for a few agents that
## have scripts or animations of their own.
@export var agent_scene: PackedScene

@export_group("Debug")
## Draw the wander sphere, the line to the target and the target of the first agents, and the
## box.
@export var debug_draw := false:
	set(value):
		debug_draw = value
		if _debug != null:
			_debug.visible = value
## How many agents' spheres the debug drawing shows.
@export_range(0, 256) var debug_agents := 8

## The running flock (wander.gd's Flock), from the game's start.
var flock: WanderCore.Flock
var _multimesh: MultiMeshInstance3D
var _nodes: Array[Node3D] = []
var _debug: MeshInstance3D
var _watched: Array[WanderGroupSettings] = []
var _position := [0.0, 0.0, 0.0]
var _heading := [0.0, 0.0, 0.0]
var _rights := []  # each agent's last right vector: keeps its roll through a vertical heading


func _ready() -> void:
	if groups.is_empty():
		var settings: Array[WanderGroupSettings] = []
		for group in WanderCore.SCENE["groups"]:
			settings.append(WanderGroupSettings.of_scene_group(group))
		groups = settings
	if Engine.is_editor_hint():
		return
	start()


## (Re)start the flock from the settings as they are now (count, seed and start included).
func start() -> void:
	var scene: Dictionary = WanderCore.SCENE.duplicate(true)
	scene["seed"] = random_seed
	var scene_groups := []
	for settings in groups:
		scene_groups.append(
			{"name": settings.name, "count": settings.count, "params": settings.values()}
		)
	scene["groups"] = scene_groups
	var text := ""
	if start_file != "":
		text = FileAccess.get_file_as_string(start_file)
		if text == "":
			push_error("WanderFlock3D: cannot read %s; spawning from the seed" % start_file)
	flock = WanderCore.Flock.new(scene, text)
	_rights.clear()
	for i in flock.count:
		_rights.append([1.0, 0.0, 0.0])
	_build_drawing()


func _process(delta: float) -> void:
	if flock == null:
		return
	var alpha: float = flock.update(delta)
	if agent_scene != null:
		for i in flock.count:
			_nodes[i].transform = _agent_transform(i, alpha)
	else:
		var multimesh := _multimesh.multimesh
		for i in flock.count:
			multimesh.set_instance_transform(i, _agent_transform(i, alpha))
	if debug_draw:
		_draw_debug()


## Agent i's transform in the node's space, `alpha` between its last two steps.
func _agent_transform(i: int, alpha: float) -> Transform3D:
	flock.position_at(i, alpha, _position)
	flock.heading_at(i, alpha, _heading)
	var f: Array = WanderView.facing(_heading, _rights[i])
	var right: Array = _rights[i]
	right[0] = f[0]
	right[1] = f[1]
	right[2] = f[2]
	var basis := Basis(Vector3(f[0], f[1], f[2]), Vector3(f[3], f[4], f[5]), Vector3(f[6], f[7], f[8]))
	return Transform3D(basis, Vector3(_position[0], _position[1], _position[2]))


func _build_drawing() -> void:
	for node in _nodes:
		node.queue_free()
	_nodes.clear()
	if _multimesh != null:
		_multimesh.queue_free()
		_multimesh = null
	if agent_scene != null:
		for i in flock.count:
			var node: Node3D = agent_scene.instantiate()
			add_child(node)
			_nodes.append(node)
	else:
		var multimesh := MultiMesh.new()
		multimesh.transform_format = MultiMesh.TRANSFORM_3D  # before instance_count
		multimesh.use_colors = true
		multimesh.mesh = agent_mesh if agent_mesh != null else _cone()
		multimesh.instance_count = flock.count
		var box: WanderCore.WanderBox = flock.box
		var low := Vector3(box.low[0], box.low[1], box.low[2])
		var high := Vector3(box.high[0], box.high[1], box.high[2])
		multimesh.custom_aabb = AABB(low, high - low).grow(10.0)  # agents never leave the box
		for i in flock.count:
			multimesh.set_instance_color(i, groups[flock.group_of[i]].color)
		_multimesh = MultiMeshInstance3D.new()
		_multimesh.multimesh = multimesh
		add_child(_multimesh)
	if _debug == null:
		_debug = MeshInstance3D.new()
		_debug.mesh = ImmediateMesh.new()
		var material := StandardMaterial3D.new()
		material.shading_mode = BaseMaterial3D.SHADING_MODE_UNSHADED
		material.vertex_color_use_as_albedo = true
		_debug.material_override = material
		add_child(_debug)
	_debug.visible = debug_draw


## A cone 4 units long, 1.2 across, pointing along -Z; vertex colours take the group's.
func _cone() -> Mesh:
	var cone := CylinderMesh.new()
	cone.top_radius = 0.0
	cone.bottom_radius = 0.6
	cone.height = 4.0
	cone.radial_segments = 8
	cone.rings = 1
	var arrays := cone.get_mesh_arrays()
	var to_forward := Basis(Vector3.RIGHT, -PI / 2.0)  # its tip (+Y) to -Z
	var vertices: PackedVector3Array = arrays[Mesh.ARRAY_VERTEX]
	var normals: PackedVector3Array = arrays[Mesh.ARRAY_NORMAL]
	for k in vertices.size():
		vertices[k] = to_forward * vertices[k]
		normals[k] = to_forward * normals[k]
	arrays[Mesh.ARRAY_VERTEX] = vertices
	arrays[Mesh.ARRAY_NORMAL] = normals
	arrays[Mesh.ARRAY_TANGENT] = null
	var mesh := ArrayMesh.new()
	mesh.add_surface_from_arrays(Mesh.PRIMITIVE_TRIANGLES, arrays)
	var material := StandardMaterial3D.new()
	material.vertex_color_use_as_albedo = true
	mesh.surface_set_material(0, material)
	return mesh


## The wander sphere, the line to the target and the target of the first debug_agents agents,
## and the box, as lines (WanderView's arithmetic) in an ImmediateMesh.
func _draw_debug() -> void:
	var mesh: ImmediateMesh = _debug.mesh
	mesh.clear_surfaces()
	mesh.surface_begin(Mesh.PRIMITIVE_LINES)
	_lines(mesh, WanderView.box_lines(flock.box.low, flock.box.high), Color(0.6, 0.6, 0.6))
	for i in mini(debug_agents, flock.count):
		var sphere: Array = flock.wander_sphere(i)
		var target: Array = flock.target_of(i)
		var colour: Color = groups[flock.group_of[i]].color
		if sphere[3] > 0.0:
			_lines(mesh, WanderView.sphere_lines(sphere.slice(0, 3), sphere[3], 24), colour)
		_lines(mesh, [flock.positions[i], target], Color.WHITE)
		_lines(mesh, WanderView.cross_lines(target, 1.5), Color.RED)
	mesh.surface_end()


func _lines(mesh: ImmediateMesh, points: Array, colour: Color) -> void:
	for point in points:
		mesh.surface_set_color(colour)
		mesh.surface_add_vertex(Vector3(point[0], point[1], point[2]))


# Apply each group's edits as they happen (the inspector, an AnimationPlayer, code).
func _watch_groups() -> void:
	for settings in _watched:
		if settings != null and settings.changed.is_connected(_on_group_changed):
			settings.changed.disconnect(_on_group_changed)
	_watched = groups.duplicate()
	for settings in _watched:
		if settings != null:
			settings.changed.connect(_on_group_changed)


func _on_group_changed() -> void:
	if flock == null:
		return
	for g in mini(groups.size(), flock.groups.size()):
		if groups[g] != null:
			WanderView.apply(groups[g].values(), flock, g)
