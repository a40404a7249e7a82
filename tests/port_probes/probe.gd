# probe.gd: what tests/test_port_gdscript.py asks of the GDScript core beyond the conformance
# CSV, run in godot3-server beside the checked-in wander.gd and wander_csv.gd; the answer is
# written to the file OUT (Godot prints its banner to stdout):
#
#   probe.gd format F32.BIN F64.BIN OUT  every float32, then every double, one per line
#   probe.gd framerate OUT               steps compared at 144, 24 fps and jittery frames
#   probe.gd spawn OUT                   spawn: inside the margin, unit headings, seeded
#   probe.gd spawned OUT                 per agent of five_methods(30), spawned: position,
#                                        velocity, heading, target as hex doubles
#   probe.gd switch OUT                  set_method through every method: how far targets
#                                        moved per method, alignment from seek, inside, method
#   probe.gd edit OUT                    the fastest speed after max_speed = 5, one step on
#   probe.gd crlf START OUT              "same" if START read with \r\n line ends runs alike
#   probe.gd agents OUT                  the composable call's agents by id: words that hold
#   probe.gd edits EDITS START STEPS OUT the port's scene run from START with the edits of
#                                        file EDITS, hosted (edited as the Godot node applies
#                                        its settings) and composed: their end states
#                                        (port_support.check_edits_repeat_the_engines)
#   probe.gd adapter OUT                 the adapter's arithmetic (adapter/wander_view.gd)
#   probe.gd scene NAME... OUT           SCENE's numbers as hex doubles: dt, box low, high,
#                                        margin, then each group's parameters NAME...
#   probe.gd detmath IN.BIN OUT          for each pair of doubles (a, b) of IN: atan2(a, b),
#                                        asin(a / 4), exp(a), sin(b), cos(b), a mod 2 pi, and
#                                        shift_offsets(a, b, 0.3 b, 0.2 a) (yaw, pitch), as
#                                        doubles (binary, OUT)
extends SceneTree

const WanderCore = preload("wander.gd")
const WanderCsv = preload("wander_csv.gd")
const WanderView = preload("adapter/wander_view.gd")

var csv := WanderCsv.new()


func _init() -> void:
	quit(1)  # a script error does not end Godot 3's main loop; this does
	var args := OS.get_cmdline_args()
	var at := 0
	while at < args.size() and not args[at].ends_with("probe.gd"):
		at += 1
	var mode: String = args[at + 1]
	var out: String = args[args.size() - 1]
	var text := ""
	if mode == "format":
		text = _format(args[at + 2], args[at + 3])
	elif mode == "framerate":
		text = _frame_rate()
	elif mode == "spawn":
		text = _spawn()
	elif mode == "spawned":
		text = _spawned()
	elif mode == "switch":
		text = _switch()
	elif mode == "edit":
		text = _edit()
	elif mode == "crlf":
		text = _crlf(args[at + 2])
	elif mode == "agents":
		text = _agents()
	elif mode == "edits":
		text = _edits(args[at + 2], args[at + 3], int(args[at + 4]))
	elif mode == "adapter":
		text = _adapter()
	elif mode == "scene":
		var names := []
		for k in range(at + 2, args.size() - 1):
			names.append(args[k])
		text = _scene(names)
	elif mode == "detmath":
		_detmath(args[at + 2], out)
		quit(0)
		return
	var file := File.new()
	file.open(out, File.WRITE)
	file.store_string(text)
	file.close()
	quit(0)


func _format(f32: String, f64: String) -> String:
	var lines := []
	var file := File.new()
	file.open(f32, File.READ)
	for i in file.get_len() / 4:
		lines.append(csv.format_float32(file.get_float()))
	file.close()
	file.open(f64, File.READ)
	for i in file.get_len() / 8:
		lines.append(csv.format_double(file.get_double()))
	file.close()
	return _joined(lines, "\n") + "\n"


func _scene(names: Array) -> String:
	var scene: Dictionary = WanderCore.SCENE
	var numbers := [scene["dt"]]
	numbers += scene["box"]["low"] + scene["box"]["high"] + [scene["box"]["margin"]]
	for group in scene["groups"]:
		for name in names:
			numbers.append(group["params"][name])
	var words := []
	for x in numbers:
		words.append(_hex(x))
	return _joined(words, " ")


func _detmath(path: String, out: String) -> void:
	var math := WanderCore.WanderMath.new()
	var file := File.new()
	file.open(path, File.READ)
	var results := File.new()
	results.open(out, File.WRITE)
	for i in file.get_len() / 16:
		var a: float = file.get_double()
		var b: float = file.get_double()
		results.store_double(math.det_atan2(a, b))
		results.store_double(math.det_asin(a / 4.0))
		results.store_double(math.det_exp(a))
		results.store_double(math.sincos(b))
		results.store_double(math._cos)
		results.store_double(math.floor_mod(a, 2.0 * WanderCore._PI))
		results.store_double(math.shift_offsets(a, b, b * 0.3, a * 0.2))
		results.store_double(math._pitch)
	file.close()
	results.close()


static func _joined(parts: Array, separator: String) -> String:
	var text := ""
	for k in parts.size():
		text += (separator if k > 0 else "") + str(parts[k])
	return text


# The default scene with `count` agents.
static func _small(count: int) -> Dictionary:
	var scene: Dictionary = WanderCore.SCENE.duplicate(true)
	scene["groups"][0]["count"] = count
	return scene


# The default scene with `count` agents of each method, vertical 0.4, default parameters.
static func _five_methods(count: int) -> Dictionary:
	var scene: Dictionary = WanderCore.SCENE.duplicate(true)
	scene["groups"] = []
	for method in WanderCore.METHODS:
		var params := {"method": method, "vertical": 0.4}
		scene["groups"].append({"name": method, "count": count, "params": params})
	return scene


# "compared N alpha OK|BAD mid D": steps at which three frame rates' runs met and were equal,
# whether every alpha was in [0, 1), how far position_at(0, 0.5) is from the two steps' middle.
func _frame_rate() -> String:
	var a := WanderCore.Flock.new(_small(20))
	var b := WanderCore.Flock.new(_small(20))
	var c := WanderCore.Flock.new(_small(20))
	var compared := 0
	var alpha_ok := true
	var seed_number := 1
	while a.step < 1200:
		a.update(1.0 / 144.0)
		if b.step < a.step:
			b.update(1.0 / 24.0)
		if c.step < a.step:
			seed_number = seed_number * 16807 % 2147483647
			var alpha: float = c.update(seed_number / 2147483647.0 * 0.4)  # stalls too
			alpha_ok = alpha_ok and alpha >= 0.0 and alpha < 1.0
		for other in [b, c]:
			if other.step != a.step:
				continue
			compared += 1
			for i in a.count:
				if other.positions[i] != a.positions[i]:
					return "differs at step %d" % a.step
	var middle := [0.0, 0.0, 0.0]
	c.position_at(0, 0.5, middle)
	var mid: float = abs(middle[0] - (c.previous[0][0] + c.positions[0][0]) / 2.0)
	return "compared %d alpha %s mid %s" % [
		compared, "OK" if alpha_ok else "BAD", csv.format_double(mid)
	]


# The words that hold: inside (spawned inside the margin), unit (unit headings), same (a second
# flock of the seed is equal), differs (another seed's is not), stays (in the box after 60 s).
func _spawn() -> String:
	var scene := _five_methods(6)
	var a := WanderCore.Flock.new(scene)
	var b := WanderCore.Flock.new(scene)
	scene["seed"] = 8
	var other := WanderCore.Flock.new(scene)
	var inside := true
	var unit := true
	var same := true
	var differs := false
	var box: WanderCore.WanderBox = a.box
	for i in a.count:
		var h: Array = a.agents[i].heading
		unit = unit and abs(sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]) - 1.0) < 1e-12
		for k in 3:
			var x: float = a.positions[i][k]
			inside = inside and x >= box.low[k] + box.margin and x <= box.high[k] - box.margin
			same = same and x == b.positions[i][k]
			differs = differs or x != other.positions[i][k]
	a.advance(3600)
	var stays := true
	for i in a.count:
		for k in 3:
			var x: float = a.positions[i][k]
			stays = stays and x >= box.low[k] and x <= box.high[k]
	var words := []
	for word in [["inside", inside], ["unit", unit], ["same", same], ["differs", differs]]:
		if word[1]:
			words.append(word[0])
	if stays:
		words.append("stays")
	return _joined(words, " ")


func _spawned() -> String:
	var flock := WanderCore.Flock.new(_five_methods(30))
	var text := ""
	for i in flock.count:
		for v in [flock.positions[i], flock.velocities[i], flock.agents[i].heading, flock.target_of(i)]:
			for k in 3:
				text += _hex(v[k]) + " "
		text += "\n"
	return text


# The IEEE-754 bits of a double as 16 hex digits, by arithmetic (GDScript has no bit cast).
func _hex(x: float) -> String:
	var bits := 0
	if x != 0.0:
		csv._split(abs(x), 53)
		var significand: int = csv._f
		var exponent: int = csv._e + 1075
		if exponent <= 0:
			exponent = 0
		else:
			significand &= 0xFFFFFFFFFFFFF
		bits = (exponent << 52) | significand
	if x < 0.0 or (x == 0.0 and str(x).begins_with("-")):
		bits |= 1 << 63
	var digits := ""
	for k in 16:
		digits = "0123456789abcdef"[bits & 15] + digits
		bits >>= 4
	return digits


func _switch() -> String:
	var flock := WanderCore.Flock.new(_small(40))
	flock.advance(120)
	var moved := {}
	var aligned := 1.0
	for method in ["angle", "noise", "random", "seek", "sphere", "noise", "angle"]:
		var before := []
		for i in flock.count:
			before.append(flock.target_of(i))
		var from_seek: bool = flock.params_of(0).method == "seek"
		flock.set_method(0, method)
		var worst := 0.0
		for i in flock.count:
			var sphere: Array = flock.wander_sphere(i)
			var target: Array = flock.target_of(i)
			var d := [0.0, 0.0, 0.0]
			var t := [0.0, 0.0, 0.0]
			var b := [0.0, 0.0, 0.0]
			for k in 3:
				d[k] = target[k] - before[i][k]
				t[k] = target[k] - sphere[k]
				b[k] = before[i][k] - sphere[k]
			worst = max(worst, _norm(d))
			if from_seek:  # the sphere's point nearest the point sought
				var dot: float = t[0] * b[0] + t[1] * b[1] + t[2] * b[2]
				aligned = min(aligned, dot / (_norm(t) * _norm(b)))
		moved[method] = max(moved.get(method, 0.0), worst)
		flock.advance(60)
	var inside := true
	for i in flock.count:
		for k in 3:
			var x: float = flock.positions[i][k]
			inside = inside and x >= flock.box.low[k] and x <= flock.box.high[k]
	var words := []
	var names := moved.keys()
	names.sort()
	for name in names:
		words.append("%s %s" % [name, csv.format_double(moved[name])])
	words.append("aligned " + csv.format_double(aligned))
	words.append("inside " + ("yes" if inside else "no"))
	words.append("method " + flock.params_of(0).method)
	return _joined(words, " ")


static func _norm(v: Array) -> float:
	return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])


func _edit() -> String:
	var flock := WanderCore.Flock.new()
	flock.advance(30)
	flock.params_of(0).max_speed = 5.0
	flock.advance(1)
	var fastest := 0.0
	for i in flock.count:
		fastest = max(fastest, _norm(flock.velocities[i]))
	return csv.format_double(fastest)


func _crlf(path: String) -> String:
	var file := File.new()
	file.open(path, File.READ)
	var start := file.get_as_text()
	file.close()
	var unix := WanderCore.Flock.new(WanderCore.SCENE, start)
	var windows := WanderCore.Flock.new(WanderCore.SCENE, start.replace("\n", "\r\n"))
	if unix.agents.size() != unix.count or windows.positions != unix.positions:
		return "unread"
	unix.advance(60)
	windows.advance(60)
	for i in unix.count:
		if unix.positions[i] != windows.positions[i] or unix.velocities[i] != windows.velocities[i]:
			return "differs"
	return "same"


# One tick of a game's loop over characters {id, position, velocity, agent} of `wander`.
static func _tick(wander: WanderCore.Wander, box: WanderCore.WanderBox, characters: Array) -> void:
	var force := [0.0, 0.0, 0.0]
	var heading := [0.0, 0.0, 0.0]
	for c in characters:
		var agent: WanderCore.WanderAgent = c["agent"]
		wander.steer(agent, c["position"], c["velocity"], 1.0 / 60.0)
		for k in 3:
			force[k] = agent.force[k] + agent.containment[k]
		if WanderCore.Wander.integrate(c["position"], c["velocity"], force, wander.params, 1.0 / 60.0, heading):
			wander.follow(agent, heading)
		if box != null:
			box.reflect(agent, c["position"], c["velocity"])


static func _spawned_characters(wander: WanderCore.Wander, ids: Array) -> Array:
	var characters := []
	for id in ids:
		var position := [0.0, 0.0, 0.0]
		var velocity := [0.0, 0.0, 0.0]
		var agent: WanderCore.WanderAgent = wander.spawn(id, position, velocity)
		characters.append({"id": id, "position": position, "velocity": velocity, "agent": agent})
	return characters


# The composable call's agents, for each method: "removed" (dropping an agent mid-run leaves
# the others' runs unchanged), "readded" (an id spawned again later repeats its run from its
# start), "placed" (agent() faces the velocity, +x when still), "idle" (no box: containment is
# -0 on every axis), "edited" (a parameter edit acts from the next tick).
func _agents() -> String:
	var found := {"removed": true, "readded": true, "placed": true, "idle": true, "edited": true}
	for method in WanderCore.METHODS:
		var params := WanderCore.WanderParams.new({"method": method, "vertical": 0.6})
		var box := WanderCore.WanderBox.new([-40.0, -20.0, -40.0], [40.0, 20.0, 40.0], 6.0)
		var wander := WanderCore.Wander.new(params, 99, box)
		var all := _spawned_characters(wander, [0, 1, 2, 3, 4, 5])
		var fewer := _spawned_characters(wander, [0, 1, 2, 3, 4, 5])
		var again := []
		var first_run := []
		for tick in 400:
			if tick == 150:
				fewer.remove(3)
			if tick == 200:
				again = _spawned_characters(wander, [3])
			_tick(wander, box, all)
			_tick(wander, box, fewer)
			if tick < 200:
				first_run.append(all[3]["position"].duplicate())
			else:
				_tick(wander, box, again)
				if again[0]["position"] != first_run[tick - 200]:
					found["readded"] = false
		for c in fewer:
			var twin: Dictionary = all[c["id"]]
			if c["position"] != twin["position"] or c["velocity"] != twin["velocity"]:
				found["removed"] = false
		var agent: WanderCore.WanderAgent = wander.agent(7, [1.0, 2.0, 3.0], [0.0, 3.0, 4.0])
		found["placed"] = found["placed"] and agent.heading == [0.0, 0.6, 0.8]
		agent = wander.agent(8, [1.0, 2.0, 3.0], [0.0, 0.0, 0.0])
		found["placed"] = found["placed"] and agent.heading == [1.0, 0.0, 0.0]
		var free := WanderCore.Wander.new(params, 99, null)
		var loose: Dictionary = _spawned_characters(wander, [0])[0]
		var agent_free: WanderCore.WanderAgent = free.restore(0, _record_of(loose))
		free.steer(agent_free, loose["position"], loose["velocity"], 1.0 / 60.0)
		for k in 3:
			var c: float = agent_free.containment[k]
			found["idle"] = found["idle"] and c == 0.0 and str(c).begins_with("-")
		params.max_speed = 3.0
		_tick(wander, box, all)
		for c in all:
			found["edited"] = found["edited"] and _norm(c["velocity"]) <= 3.0 + 1e-9
	var words := []
	for word in ["removed", "readded", "placed", "idle", "edited"]:
		if found[word]:
			words.append(word)
	return _joined(words, " ")


# The port's scene from start.txt `start_path` for `steps` steps with the edits of file
# `edits_path` ("STEP GROUP KEY VALUE" lines in step order: before step STEP, group GROUP's KEY
# becomes VALUE), in the hosted flock, edited through the Godot node's path
# (WanderView.apply of its settings), and in a game's loop of the composable call, edited as a
# game sets its WanderParams: "hosted", a line per agent (position, velocity as hex doubles),
# "composed", the same.
func _edits(edits_path: String, start_path: String, steps: int) -> String:
	var file := File.new()
	file.open(start_path, File.READ)
	var start := file.get_as_text()
	file.close()
	file.open(edits_path, File.READ)
	var edits := []
	for line in file.get_as_text().split("\n", false):
		edits.append(line.split(" "))
	file.close()
	var scene: Dictionary = WanderCore.SCENE
	var dt: float = scene["dt"]
	var flock := WanderCore.Flock.new(scene, start)
	var b: Dictionary = scene["box"]
	var box := WanderCore.WanderBox.new(b["low"], b["high"], b["margin"])
	var kinds := []
	for group in scene["groups"]:
		kinds.append(WanderCore.Wander.new(WanderCore.WanderParams.new(group["params"]), scene["seed"], box))
	var characters := []
	var records: Array = WanderCore.WanderStart.read(start, flock.count)
	for i in records.size():
		var record: WanderCore.WanderStart = records[i]
		characters.append({
			"kind": record.group, "position": record.position.duplicate(),
			"velocity": record.velocity.duplicate(), "agent": kinds[record.group].restore(i, record),
		})
	var force := [0.0, 0.0, 0.0]
	var heading := [0.0, 0.0, 0.0]
	var next := 0
	for step in steps:
		while next < edits.size() and int(edits[next][0]) == step:
			var g := int(edits[next][1])
			var key: String = edits[next][2]
			var value = edits[next][3] if key == "steering" else _exact(edits[next][3])
			var values: Dictionary = WanderView.values_of(flock.params_of(g))
			values[key] = value
			WanderView.apply(values, flock, g)
			kinds[g].params.set(key, value)
			next += 1
		flock.advance(1)
		for c in characters:
			var wander: WanderCore.Wander = kinds[c["kind"]]
			var agent: WanderCore.WanderAgent = c["agent"]
			wander.steer(agent, c["position"], c["velocity"], dt)
			for k in 3:
				force[k] = agent.force[k] + agent.containment[k]
			if WanderCore.Wander.integrate(c["position"], c["velocity"], force, wander.params, dt, heading):
				wander.follow(agent, heading)
			box.reflect(agent, c["position"], c["velocity"])
	var text := "hosted\n"
	for i in flock.count:
		text += _state_line(flock.positions[i], flock.velocities[i])
	text += "composed\n"
	for c in characters:
		text += _state_line(c["position"], c["velocity"])
	return text


# A decimal as Python writes a short number ("1.7", "140.0", "0.05"), exactly: its digits over
# a power of ten, both exact doubles, divided once (correctly rounded), where Godot 3's own
# parser may be off by an ulp.
static func _exact(word: String) -> float:
	var places := 0
	if word.find(".") >= 0:
		places = word.length() - word.find(".") - 1
	assert(word.find("e") < 0 and places <= 22 and word.replace(".", "").length() <= 15)
	return float(word.replace(".", "").to_int()) / pow(10.0, places)


func _state_line(position: Array, velocity: Array) -> String:
	var words := []
	for v in [position, velocity]:
		for k in 3:
			words.append(_hex(v[k]))
	return _joined(words, " ") + "\n"


# A start record of a character's state (to give another Wander the same agent).
static func _record_of(c: Dictionary) -> WanderCore.WanderStart:
	var agent: WanderCore.WanderAgent = c["agent"]
	var record := WanderCore.WanderStart.new()
	record.position = c["position"].duplicate()
	record.velocity = c["velocity"].duplicate()
	record.heading = agent.heading.duplicate()
	record.side = agent.side.duplicate()
	record.wander_direction = agent.wander_direction.duplicate()
	record.angles = agent.angles.duplicate()
	record.noise_phase = agent.noise_phase.duplicate()
	record.noise_keys = agent.noise_keys.duplicate()
	record.seek_point = agent.seek_point.duplicate()
	record.seek_timer = agent.seek_timer
	return record


# The adapter's arithmetic, in the words that hold: "frames" (for 2,000 headings, vertical ones
# included, the model's basis is orthonormal, right-handed, -Z along the heading, +Y as high as
# it can be), "lines" (sphere, cross and box line lists have their sizes and stay on the
# sphere), "applied" (settings applied to a running flock change its parameters from the next
# step, a new method through set_method: targets stay; unknown keys are ignored).
func _adapter() -> String:
	var words := []
	var frames_ok := true
	var rng := RandomNumberGenerator.new()
	rng.seed = 5
	var right := [1.0, 0.0, 0.0]
	for n in 2000:
		var h := [rng.randfn(), rng.randfn(), rng.randfn()]
		if n % 100 == 0:
			h = [0.0, 1.0 if n % 200 == 0 else -1.0, 0.0]
		var length := _norm(h)
		h = [h[0] / length, h[1] / length, h[2] / length]
		var f: Array = WanderView.facing(h, right)
		var x := [f[0], f[1], f[2]]
		var y := [f[3], f[4], f[5]]
		var z := [f[6], f[7], f[8]]
		var cross := [
			x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]
		]
		for k in 3:
			frames_ok = frames_ok and abs(z[k] + h[k]) < 1e-12 and abs(cross[k] - z[k]) < 1e-9
		frames_ok = frames_ok and abs(_norm(x) - 1.0) < 1e-9 and abs(_norm(y) - 1.0) < 1e-9
		frames_ok = frames_ok and abs(x[0] * y[0] + x[1] * y[1] + x[2] * y[2]) < 1e-9
		# Up as high as the heading allows: y's height is the horizontal part of the heading.
		if abs(h[1]) < 0.999:
			frames_ok = frames_ok and abs(y[1] - sqrt(1.0 - h[1] * h[1])) < 1e-9
		right = x
	if frames_ok:
		words.append("frames")
	var sphere: Array = WanderView.sphere_lines([1.0, 2.0, 3.0], 5.0, 24)
	var lines_ok := sphere.size() == 3 * 24 * 2
	for p in sphere:
		lines_ok = lines_ok and abs(_norm([p[0] - 1.0, p[1] - 2.0, p[2] - 3.0]) - 5.0) < 1e-9
	lines_ok = lines_ok and WanderView.cross_lines([0.0, 0.0, 0.0], 1.0).size() == 6
	var edges: Array = WanderView.box_lines([-1.0, -2.0, -3.0], [1.0, 2.0, 3.0])
	lines_ok = lines_ok and edges.size() == 24
	for k in range(0, 24, 2):
		var d := [0.0, 0.0, 0.0]
		for a in 3:
			d[a] = abs(edges[k + 1][a] - edges[k][a])
		lines_ok = lines_ok and (d == [2.0, 0.0, 0.0] or d == [0.0, 4.0, 0.0] or d == [0.0, 0.0, 6.0])
	if lines_ok:
		words.append("lines")
	var flock := WanderCore.Flock.new(_small(12))
	flock.advance(30)
	var values: Dictionary = WanderView.values_of(flock.params_of(0))
	var unchanged: bool = not WanderView.apply(values, flock, 0)
	values["jitter"] = 25.0
	values["max_speed"] = 6.0
	values["colour"] = "ignored"
	var before := []
	for i in flock.count:
		before.append(flock.target_of(i))
	var changed: bool = WanderView.apply(values, flock, 0)
	var params: WanderCore.WanderParams = flock.params_of(0)
	var applied := unchanged and changed and params.jitter == 25.0 and params.max_speed == 6.0
	values["method"] = "noise"
	WanderView.apply(values, flock, 0)
	for i in flock.count:
		var t: Array = flock.target_of(i)
		applied = applied and _norm([t[0] - before[i][0], t[1] - before[i][1], t[2] - before[i][2]]) < 1e-9
	applied = applied and params.method == "noise"
	flock.advance(1)
	for i in flock.count:
		applied = applied and _norm(flock.velocities[i]) <= 6.0 + 1e-9
	if applied:
		words.append("applied")
	return _joined(words, " ")
