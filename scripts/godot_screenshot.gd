# SPDX-FileCopyrightText: 2026 The wander3d authors
# SPDX-License-Identifier: MIT
# godot_screenshot.gd: docs/port-godot.png, drawn by Godot 3.2 (scripts/godot_screenshot.sh runs
# it in a GDScript port's folder under Xvfb). The GDScript core's flock after SECONDS simulated
# seconds from wander3d's exact start, drawn as the Godot 4 adapter draws it, with Godot 3's
# names: one MultiMesh of cones coloured per group, each turned by adapter/wander_view.gd's
# facing() (-Z along the heading), and the debug lines (the box, and the wander sphere, the line
# to the target and the target of a few agents).
extends SceneTree

const WanderCore = preload("wander.gd")
const WanderCsv = preload("wander_csv.gd")
const WanderView = preload("adapter/wander_view.gd")
const DEBUG_AGENTS = [3, 64, 130, 190, 250]  # one of each group of the compare scene

var _frames := 0
var _out := ""


func _init() -> void:
	var args := OS.get_cmdline_args()
	var seconds: float = str2var(args[args.size() - 2]) * 1.0
	_out = args[args.size() - 1]
	var flock := WanderCore.Flock.new(WanderCore.SCENE, WanderCsv.start_text(get_script()))
	flock.advance(int(round(seconds / flock.dt)))
	var world := Spatial.new()
	get_root().add_child(world)
	var environment := Environment.new()
	environment.background_mode = Environment.BG_COLOR
	environment.background_color = Color("#15171d")
	environment.ambient_light_color = Color(0.55, 0.55, 0.6)
	var world_environment := WorldEnvironment.new()
	world_environment.environment = environment
	world.add_child(world_environment)
	var light := DirectionalLight.new()
	light.rotation_degrees = Vector3(-55.0, -35.0, 0.0)
	world.add_child(light)
	var camera := Camera.new()
	camera.far = 2000.0
	camera.fov = 42.0
	world.add_child(camera)
	camera.look_at_from_position(Vector3(330.0, 175.0, 420.0), Vector3(0.0, -22.0, 0.0), Vector3.UP)
	camera.current = true
	world.add_child(_agents(flock))
	world.add_child(_debug_lines(flock))


func _idle(_delta: float) -> bool:
	_frames += 1
	if _frames == 4:
		var image := get_root().get_texture().get_data()
		image.flip_y()
		image.save_png(_out)
		return true
	return false


func _agents(flock) -> MultiMeshInstance:
	var cone := CylinderMesh.new()
	cone.top_radius = 0.0
	cone.bottom_radius = 2.0
	cone.height = 8.0
	cone.radial_segments = 12
	cone.rings = 1
	var material := SpatialMaterial.new()
	material.vertex_color_use_as_albedo = true
	cone.material = material
	var multimesh := MultiMesh.new()
	multimesh.transform_format = MultiMesh.TRANSFORM_3D
	multimesh.color_format = MultiMesh.COLOR_FLOAT
	multimesh.mesh = cone
	multimesh.instance_count = flock.count
	var tip_forward := Basis(Vector3.RIGHT, -PI / 2.0)  # the cone's tip (+Y) along -Z
	for i in flock.count:
		var f: Array = WanderView.facing(flock.agents[i].heading, [1.0, 0.0, 0.0])
		var basis := Basis(Vector3(f[0], f[1], f[2]), Vector3(f[3], f[4], f[5]), Vector3(f[6], f[7], f[8]))
		var p: Array = flock.positions[i]
		multimesh.set_instance_transform(i, Transform(basis * tip_forward, Vector3(p[0], p[1], p[2])))
		multimesh.set_instance_color(i, Color(WanderCore.SCENE["groups"][flock.group_of[i]]["color"]))
	var instance := MultiMeshInstance.new()
	instance.multimesh = multimesh
	return instance


func _debug_lines(flock) -> ImmediateGeometry:
	var lines := ImmediateGeometry.new()
	var material := SpatialMaterial.new()
	material.flags_unshaded = true
	material.vertex_color_use_as_albedo = true
	lines.material_override = material
	lines.begin(Mesh.PRIMITIVE_LINES)
	var low: Array = flock.box.low
	var high: Array = flock.box.high
	for k in range(1, 10):  # a floor grid, as wander3d draws one
		var x: float = low[0] + (high[0] - low[0]) * k / 10.0
		var z: float = low[2] + (high[2] - low[2]) * k / 10.0
		var grid := [[x, low[1], low[2]], [x, low[1], high[2]], [low[0], low[1], z], [high[0], low[1], z]]
		_add(lines, grid, Color(0.24, 0.25, 0.29))
	_add(lines, WanderView.box_lines(low, high), Color(0.5, 0.52, 0.58))
	for i in DEBUG_AGENTS:
		if i >= flock.count:
			continue
		var sphere: Array = flock.wander_sphere(i)
		var target: Array = flock.target_of(i)
		if sphere[3] > 0.0:
			var colour := Color(0.8, 0.85, 0.95)
			_add(lines, WanderView.sphere_lines([sphere[0], sphere[1], sphere[2]], sphere[3], 32), colour)
		_add(lines, [flock.positions[i], target], Color(1.0, 1.0, 1.0))
		_add(lines, WanderView.cross_lines(target, 2.5), Color(1.0, 0.25, 0.25))
	lines.end()
	return lines


static func _add(lines: ImmediateGeometry, points: Array, colour: Color) -> void:
	for p in points:
		lines.set_color(colour)
		lines.add_vertex(Vector3(p[0], p[1], p[2]))
