# SPDX-FileCopyrightText: 2026 The wander3d authors
# SPDX-License-Identifier: MIT
# compose.gd: the same run as conformance.gd, driven through the composable call the way a
# game drives its own characters (README.md, "Your own character"): each character keeps its
# position and velocity, asks its Wander for the steering force, adds it up, integrates and
# tells the behaviour where it now faces. Run it with `bash conformance.sh --compose SECONDS
# SAMPLE_RATE`; it prints what `wander3d run scene.toml --out ref.csv` writes. Not needed in
# a game.
extends SceneTree

const WanderCore = preload("wander.gd")
const WanderCsv = preload("wander_csv.gd")


func _init() -> void:
	quit(1)  # asked first: a script error does not end Godot 3's main loop, this does
	quit(_run())


func _run() -> int:
	var csv := WanderCsv.new()
	var run: Array = csv.arguments("--compose ")
	if run.size() == 0:
		return 2
	var scene: Dictionary = WanderCore.SCENE
	var dt: float = scene["dt"]
	var b: Dictionary = scene["box"]
	var box := WanderCore.WanderBox.new(b["low"], b["high"], b["margin"])
	# One behaviour per kind of character (a group of the scene), sharing the box.
	var kinds := []
	var names := []
	var count := 0
	for group in scene["groups"]:
		var params := WanderCore.WanderParams.new(group["params"])
		kinds.append(WanderCore.Wander.new(params, scene["seed"], box))
		names.append(WanderCsv.quoted(group["name"]))
		count += group["count"]
	# The game's characters: where they are, how they move, their wander state (id: index).
	var characters := []
	var records: Array = WanderCore.WanderStart.read(WanderCsv.start_text(get_script()), count)
	if records.size() != count:
		return 1
	for i in count:
		var record: WanderCore.WanderStart = records[i]
		var wander: WanderCore.Wander = kinds[record.group]
		characters.append({
			"kind": record.group,
			"position": record.position.duplicate(),
			"velocity": record.velocity.duplicate(),
			"wander": wander.restore(i, record),
		})
	var force := [0.0, 0.0, 0.0]
	var heading := [0.0, 0.0, 0.0]
	var sampling: Array = WanderCsv.sampling(run[0], run[1], dt)
	if not csv.open(run[2]):
		return 1
	csv.write(WanderCsv.HEADER)
	for k in sampling[2]:
		for n in sampling[1] if k > 0 else 0:
			for character in characters:  # a physics tick
				var wander: WanderCore.Wander = kinds[character["kind"]]
				var agent: WanderCore.WanderAgent = character["wander"]
				var position: Array = character["position"]
				var velocity: Array = character["velocity"]
				wander.steer(agent, position, velocity, dt)
				# The wander force plus the box's push first (their sum is the engine's force
				# to the bit), then the game's own forces (none here).
				for a in 3:
					force[a] = agent.force[a] + agent.containment[a]
				if WanderCore.Wander.integrate(position, velocity, force, wander.params, dt, heading):
					wander.follow(agent, heading)
				box.reflect(agent, position, velocity)
		var t: String = csv.format_double(k * sampling[3])
		for i in count:
			var character: Dictionary = characters[i]
			var group: String = names[character["kind"]]
			csv.write(csv.row(i, group, k, t, character["position"], character["velocity"]))
	csv.close()
	return 0
