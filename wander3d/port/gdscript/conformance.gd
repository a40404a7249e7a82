# SPDX-FileCopyrightText: 2026 The wander3d authors
# SPDX-License-Identifier: MIT
# conformance.gd: this port's hosted flock as CSV, exactly as `wander3d run --out ref.csv`
# writes it. Run it with conformance.sh (it needs godot3-server, Godot 3.2's headless build):
#
#   bash conformance.sh SECONDS SAMPLE_RATE > out.csv
#   wander3d run scene.toml --seconds SECONDS --sample-rate SAMPLE_RATE --out ref.csv
#   cmp out.csv ref.csv
#
# It starts from start.txt (wander3d's exact start of scene.toml) and steps the Flock of
# wander.gd; the rows are every agent at every sample. Not needed in a game.
extends SceneTree

const WanderCore = preload("wander.gd")
const WanderCsv = preload("wander_csv.gd")


func _init() -> void:
	quit(1)  # asked first: a script error does not end Godot 3's main loop, this does
	quit(_run())


func _run() -> int:
	var csv := WanderCsv.new()
	var run: Array = csv.arguments("")
	if run.size() == 0:
		return 2
	var start: String = WanderCsv.start_text(get_script())
	var flock := WanderCore.Flock.new(WanderCore.SCENE, start)
	var sampling: Array = WanderCsv.sampling(run[0], run[1], flock.dt)
	var names := []
	for group in flock.groups:
		names.append(WanderCsv.quoted(group.name))
	if not csv.open(run[2]):
		return 1
	csv.write(WanderCsv.HEADER)
	for k in sampling[2]:
		if k > 0:
			flock.advance(sampling[1])
		var t: String = csv.format_double(k * sampling[3])
		for i in flock.count:
			var group: String = names[flock.group_of[i]]
			csv.write(csv.row(i, group, k, t, flock.positions[i], flock.velocities[i]))
	csv.close()
	return 0
