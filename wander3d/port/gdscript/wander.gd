# SPDX-FileCopyrightText: 2026 The wander3d authors
# SPDX-License-Identifier: MIT
# wander.gd: wander3d's wander steering for Godot (GDScript), identical to the engine.
#
# A port of wander3d's step (wander3d/engine/kernel.py) that repeats its runs bit for bit: the
# same scene, start and seed give the same positions at every step. Plain GDScript in the part
# of the language Godot 3.2 and Godot 4 share: no engine class, no `extends`, no typed arrays.
# The contract it follows is docs/ports.md of wander3d: IEEE doubles evaluated in the engine's
# order (GDScript's float is a double; state lives in plain Arrays of floats, never in Vector3
# or Godot 3's PoolRealArray, which are float32), the engine's own sin/cos/atan2/asin/exp
# (detmath, below), and a counter-based random stream of 64-bit integers keyed by (seed,
# agent, step, draw): GDScript's int is a wrapping int64, and unsigned right shifts are masked.
#
# Two ways in (const WanderCore = preload("res://wander/wander.gd")):
#
#   The hosted flock: every agent of the scene below, stepped at the scene's dt.
#     var flock = WanderCore.Flock.new(WanderCore.SCENE)   # or .new(SCENE, start_text)
#     var alpha = flock.update(delta)                        # fixed steps; alpha for drawing
#     flock.position_at(i, alpha, out)                       # agent i's position, interpolated
#
#   The composable call: a wander force your own character adds to its own forces.
#     var wander = WanderCore.Wander.new(WanderCore.WanderParams.new(), seed_number, box_or_null)
#     var agent = wander.agent(id, position, velocity)     # position, velocity: [x, y, z] floats
#     # each physics tick:
#     wander.steer(agent, position, velocity, dt)          # agent.force, agent.containment
#     # force = agent.force + agent.containment (that sum first), + your own forces; then
#     # integrate yourself, or: if WanderCore.Wander.integrate(position, velocity, force,
#     #     wander.params, dt, heading): wander.follow(agent, heading)
#     # box.reflect(agent, position, velocity)             # unless your collisions keep it in
#
# Parameters are objects (WanderParams) that may be changed at any time; they act from the next
# step. Units: lengths in world units, times in seconds, +y up, right-handed (Godot's frame).
# Numbers in this file are written so that no float parser can round them differently: Godot's
# is not correctly rounded past 15 digits, so long constants are an integer times a power of two.
# An int becomes a float only by arithmetic (i * 1.0, or an int times a float): Godot 3's
# float(i), and an int assigned to a `float` variable or parameter, go through float32.

# ---------------------------------------------------------------- the scene (generated)
# BEGIN SCENE: `wander3d port` writes the scene's parameters here.
const SCENE = {
	"name": "Default",
	"seed": 7,  # any integer in [0, 2^32): seeds every random number of the run
	"dt": 0.0166667,  # seconds per fixed step
	"box": {
		"low": [-100.0, -60.0, -100.0],  # lowest corner (units)
		"high": [100.0, 60.0, 100.0],  # highest corner (units)
		"margin": 15.0,  # agents start turning back this far inside a wall (units)
	},
	"groups": [
		{
			"name": "wanderers",
			"count": 300,  # agents
			"color": "#ffb000",  # for drawing (the adapter's MultiMesh)
			"params": {
				"method": "sphere",  # sphere | angle | noise | seek | random
				# force: the vector to the target is the force; desired: velocity towards it
				"steering": "force",
				"max_speed": 40.0,  # units/s
				"max_force": 60.0,  # mass*units/s^2: limit on the steering force
				"mass": 1.0,  # acceleration = force / mass
				"initial_speed": 20.0,  # units/s, for agents spawned by the port
				"distance": 30.0,  # units: the wander sphere's centre ahead of the agent
				"radius": 12.0,  # units: the wander sphere's radius
				"jitter": 10.0,  # units/sqrt(s): sphere's random displacement
				"rate": 0.8,  # rad/sqrt(s): angle's random walk of yaw and pitch
				"frequency": 0.3,  # 1/s: noise's pace
				"interval": 4.0,  # s: seek's time between new points
				"vertical": 1.0,  # 0..1: up/down freedom (1 isotropic, 0 level)
			},
		},
	],
}
# END SCENE

# ---------------------------------------------------------------- the methods and constants

const METHODS = ["sphere", "angle", "noise", "seek", "random"]
const SPHERE = 0
const ANGLE = 1
const NOISE = 2
const SEEK = 3
const RANDOM = 4
const STEERING_MODES = ["force", "desired"]

const _RAMP_FRACTION = 0.25  # the containment push ramps to full over this part of the margin
const _LOOKAHEAD = 0.25  # s: agents look this far ahead (plus their stopping time) for walls
const _RANDOM_HOLD = 1.0 / 30.0  # s: the random method's force is held this long
const _PITCH_SPREAD = 0.7  # rad: the angle method's pitch spread at vertical 1
const _LEVEL_SECONDS = 0.14  # s: at most this often the side vector is pulled level
const _TINY = 1e-12
## A frame longer than this (s) counts as this long: a stalled game makes no burst of steps.
const MAX_FRAME_SECONDS = 0.25

# 64-bit constants as GDScript's int64 spells them (the unsigned value in the comment).
const _GOLDEN = -0x61C8864680B583EB  # 0x9E3779B97F4A7C15
const _MIX1 = -0x40A7B892E31B1A47  # 0xBF58476D1CE4E5B9
const _MIX2 = -0x6B2FB644ECCEEE15  # 0x94D049BB133111EB
const _STEP_STRIDE = -0x2E4AB5CD2E6D12FD  # 0xD1B54A32D192ED03
const _OCTAVE_SALT = -0x5F89E29B87429BD1  # 0xA0761D6478BD642F
const _SEED_SALT = 0x5DEECE66D
const _SPAWN_SALT = 0x2545F4914F6CDD1D  # the port's own spawn stream (not the engine's start)
const _LOW21 = 0x1FFFFF
const _LOW33 = 0x1FFFFFFFF  # what is left of 64 bits after >> 31: masks make shifts unsigned
const _LOW34 = 0x3FFFFFFFF
const _LOW37 = 0x1FFFFFFFFF
const _LOW53 = 0x1FFFFFFFFFFFFF
const _LOW63 = 0x7FFFFFFFFFFFFFFF  # noise keys are below 2^63, as the engine draws them
const _UNIT = 1.0 / 9007199254740992  # 2^-53
const _UNIT20 = 2.0 * (1.0 / 2097152)  # 2 * 2^-21
const _OCTAVE_RATIO = 2.0 * 1.0693  # an octave, nudged off 2 so the two lattices never align
const _NO_CELL = 0.5  # a noise cache's cell before any: floor() never gives it
const _NEGATIVE_ZERO = 0.0 * -1.0  # Godot 3 reads the literal -0.0 as +0.0

# detmath's constants (wander3d/engine/detmath.py, fdlibm's), each exact: an integer times a
# power of two (the decimal in the comment is Python's repr of the same double).
const _TWO_M62 = 1.0 / 4611686018427387904
const _PI = 884279719003555 * (1.0 / 281474976710656)  # 3.141592653589793
const _HALF_PI = _PI / 2.0
const _TWO_PI = 2.0 * _PI
const _PIO2_1 = 1686629713 * (1.0 / 1073741824)  # 1.5707963267341256
const _PIO2_2 = 2242054355 * _TWO_M62 * (1.0 / 8)  # 6.077100506303966e-11
const _PIO2_2T = 5376105825661043 * _TWO_M62 * (1.0 / 576460752303423488)  # 2.02226...e-21
const _INV_PIO2 = 5734161139222659 * (1.0 / 9007199254740992)  # 0.6366197723675814
const _PIO4 = 884279719003555 * (1.0 / 1125899906842624)  # 0.7853981633974483
const _S1 = -6004799503160649 * (1.0 / 36028797018963968)  # -0.16666666666666632
const _S2 = 2401919801261139 * (1.0 / 288230376151711744)  # 0.00833333333332249
const _S3 = -7320136532976085 * _TWO_M62 * (1.0 / 8)  # -0.0001984126982985795
const _S4 = 6506786730409597 * _TWO_M62 * (1.0 / 512)  # 2.7557313707070068e-06
const _S5 = -7571127717829867 * _TWO_M62 * (1.0 / 65536)  # -2.5050760253406863e-08
const _S6 = 1537454791456095 * _TWO_M62 * (1.0 / 2097152)  # 1.58969099521155e-10
const _C1 = 1501199875790163 * (1.0 / 36028797018963968)  # 0.0416666666666666
const _C2 = -6405119470031223 * (1.0 / 4611686018427387904)  # -0.001388888888887411
const _C3 = 457508533350745 * _TWO_M62 * (1.0 / 4)  # 2.480158728947673e-05
const _C4 = -5205429506036397 * _TWO_M62 * (1.0 / 4096)  # -2.7557314351390663e-07
const _C5 = 1261860039765105 * _TWO_M62 * (1.0 / 131072)  # 2.087572321298175e-09
const _C6 = -1757820317994549 * _TWO_M62 * (1.0 / 33554432)  # -1.1359647557788195e-11
const _ATAN_HI = [
	8352332796509007 * (1.0 / 18014398509481984),  # 0.4636476090008061: atan(0.5), high part
	884279719003555 * (1.0 / 1125899906842624),  # 0.7853981633974483: atan(1)
	8852218891597467 * (1.0 / 9007199254740992),  # 0.982793723247329: atan(1.5)
	884279719003555 * (1.0 / 562949953421312),  # 1.5707963267948966: atan(inf)
]
const _ATAN_LO = [
	3683087214424817 * _TWO_M62 * (1.0 / 35184372088832),  # 2.2698777452961687e-17
	4967757600021511 * _TWO_M62 * (1.0 / 35184372088832),  # 3.061616997868383e-17
	4511882386918333 * _TWO_M62 * (1.0 / 70368744177664),  # 1.3903311031230998e-17
	4967757600021511 * _TWO_M62 * (1.0 / 17592186044416),  # 6.123233995736766e-17
]
const _AT0 = 6004799503160589 * (1.0 / 18014398509481984)  # 0.3333333333333293
const _AT1 = -1801439850937073 * (1.0 / 9007199254740992)  # -0.19999999999876483
const _AT2 = 5146970997949439 * (1.0 / 36028797018963968)  # 0.14285714272503466
const _AT3 = -8006398829074033 * (1.0 / 72057594037927936)  # -0.11111110405462356
const _AT4 = 3275337272528951 * (1.0 / 36028797018963968)  # 0.09090887133436507
const _AT5 = -5542580929731181 * (1.0 / 72057594037927936)  # -0.0769187620504483
const _AT6 = 4799809039908177 * (1.0 / 72057594037927936)  # 0.06661073137387531
const _AT7 = -4203530284924621 * (1.0 / 72057594037927936)  # -0.058335701337905735
const _AT8 = 7172437082246635 * (1.0 / 144115188075855872)  # 0.049768779946159324
const _AT9 = -5264754476739631 * (1.0 / 144115188075855872)  # -0.036531572744216916
const _AT10 = 4694068057790993 * (1.0 / 288230376151711744)  # 0.016285820115365782
const _PI_LO = 4967757600021511 * _TWO_M62 * (1.0 / 8796093022208)  # 1.2246467991473532e-16
const _PIO2_HI = 884279719003555 * (1.0 / 562949953421312)  # 1.5707963267948966
const _PIO2_LO = 4967757600021511 * _TWO_M62 * (1.0 / 17592186044416)  # 6.12323...e-17
const _PS0 = 6004799503160661 * (1.0 / 36028797018963968)  # 0.16666666666666666
const _PS1 = -5864872397729661 * (1.0 / 18014398509481984)  # -0.3255658186224009
const _PS2 = 7249445477958741 * (1.0 / 36028797018963968)  # 0.20121253213486293
const _PS3 = -5772610888044347 * (1.0 / 144115188075855872)  # -0.04005553450067941
const _PS4 = 912577716565585 * (1.0 / 1152921504606846976)  # 0.0007915349942898145
const _PS5 = 5134586392475401 * _TWO_M62 * (1.0 / 32)  # 3.479331075960212e-05
const _QS1 = -5411964214455627 * (1.0 / 2251799813685248)  # -2.403394911734414
const _QS2 = 568845660795225 * (1.0 / 281474976710656)  # 2.0209457602335057
const _QS3 = -6199510876094809 * (1.0 / 9007199254740992)  # -0.6882839716054533
const _QS4 = 2775591889094977 * (1.0 / 36028797018963968)  # 0.07703815055590194
const _SPLIT = 134217729.0  # 2^27 + 1: Veltkamp's split of a double into 26 + 27 bits
const _LN2_HI = 2977044471 * (1.0 / 4294967296)  # 0.6931471803691238
const _LN2_LO = 3691024475790907 * _TWO_M62 * (1.0 / 4194304)  # 1.9082149292705877e-10
const _INV_LN2 = 3248660424278399 * (1.0 / 2251799813685248)  # 1.4426950408889634
const _HALF_LN2 = 6243314768165359 * (1.0 / 18014398509481984)  # 0.34657359027997264
const _P1 = 3002399751580319 * (1.0 / 18014398509481984)  # 0.16666666666666602
const _P2 = -6405119469862291 * (1.0 / 2305843009213693952)  # -0.0027777777777015593
const _P3 = 1220022702274443 * _TWO_M62 * (1.0 / 4)  # 6.613756321437934e-05
const _P4 = -7807914560613361 * _TWO_M62 * (1.0 / 1024)  # -1.6533902205465252e-06
const _P5 = 390835970239053 * _TWO_M62 * (1.0 / 2048)  # 4.1381367970572385e-08
const _EXP_OVERFLOW = 6243314768165359 * (1.0 / 8796093022208)  # 709.782712893384
const _EXP_UNDERFLOW = -6554261109157969 * (1.0 / 8796093022208)  # -745.1332191019411
const _TWO_66 = 4294967296.0 * 4294967296.0 * 4.0
const _TWO_60 = 4294967296.0 * 268435456.0
const _TWO_M60 = 1.0 / _TWO_60
const _TWO_M27 = 1.0 / 134217728
const _TWO_M28 = 1.0 / 268435456


## The engine's arithmetic: detmath, the random stream, frames and angles. Functions that give
## several numbers return the first and leave the rest in the fields below (no allocation).
class WanderMath:
	var _cos := 0.0  # the cosine of the last sincos()
	var _quarter := 0.0  # the quarter turn of the last _reduce(): n mod 4
	var _y := 0.0  # y and z of the last function returning a vector (x is its return value)
	var _z := 0.0
	var _pitch := 0.0  # the pitch of the last function returning angles (yaw is returned)
	var _ball_y := 0.0  # y and z of the last in_unit_ball()
	var _ball_z := 0.0
	var _pair := [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]  # transport_pair's result: v then w

	# ------------------------------------------------------------ detmath (engine/detmath.py)
	# sin, cos, atan2, asin and exp from + - * / sqrt floor only, line for line the engine's.

	static func _sin_kernel(x: float) -> float:
		var z := x * x
		var w := z * z
		var r := _S2 + z * (_S3 + z * _S4) + z * w * (_S5 + z * _S6)
		return x + z * x * (_S1 + z * r)

	static func _cos_kernel(x: float) -> float:
		var z := x * x
		var w := z * z
		var r := z * (_C1 + z * (_C2 + z * _C3)) + w * w * (_C4 + z * (_C5 + z * _C6))
		var hz := 0.5 * z
		w = 1.0 - hz
		return w + (((1.0 - w) - hz) + z * r)

	func _reduce(x: float) -> float:
		if -_PIO4 <= x and x <= _PIO4:
			_quarter = 0.0
			return x
		var n: float = floor(x * _INV_PIO2 + 0.5)
		var t := x - n * _PIO2_1
		var w := n * _PIO2_2
		var r := t - w
		w = n * _PIO2_2T - ((t - r) - w)
		_quarter = n - 4.0 * floor(n * 0.25)
		return r - w

	## sin(x), leaving cos(x) in _cos: one shared reduction (bit for bit sin and cos).
	func sincos(x: float) -> float:
		var r := _reduce(x)
		var s := _sin_kernel(r)
		var c := _cos_kernel(r)
		if _quarter == 0.0:
			_cos = c
			return s
		if _quarter == 1.0:
			_cos = -s
			return c
		if _quarter == 2.0:
			_cos = -c
			return -s
		_cos = s
		return -c

	static func _atan_positive(a: float) -> float:
		if is_nan(a):
			return a
		if a >= _TWO_66:
			return _ATAN_HI[3] + _ATAN_LO[3]
		var part := 0
		var x := a
		if a < 0.4375:
			if a < _TWO_M27:
				return a
			part = -1
		elif a < 0.6875:
			x = (2.0 * a - 1.0) / (2.0 + a)
		elif a < 1.1875:
			part = 1
			x = (a - 1.0) / (a + 1.0)
		elif a < 2.4375:
			part = 2
			x = (a - 1.5) / (1.0 + 1.5 * a)
		else:
			part = 3
			x = -1.0 / a
		var z := x * x
		var w := z * z
		var s1 := z * (_AT0 + w * (_AT2 + w * (_AT4 + w * (_AT6 + w * (_AT8 + w * _AT10)))))
		var s2 := w * (_AT1 + w * (_AT3 + w * (_AT5 + w * (_AT7 + w * _AT9))))
		if part < 0:
			return x - x * (s1 + s2)
		return _ATAN_HI[part] - ((x * (s1 + s2) - _ATAN_LO[part]) - x)

	## The angle of (x, y) in [-pi, pi], signed zeros included; never the platform's atan2.
	static func det_atan2(y: float, x: float) -> float:
		if is_nan(x) or is_nan(y):
			return x + y
		var negative_y := y < 0.0 or (y == 0.0 and is_negative_zero(y))
		var negative_x := x < 0.0 or (x == 0.0 and is_negative_zero(x))
		var ay := -y if negative_y else y
		var ax := -x if negative_x else x
		var z := 0.0
		if ay == 0.0:
			z = _PI if negative_x else 0.0
		elif ax == 0.0:
			z = _PIO2_HI
		elif is_inf(ax):
			if is_inf(ay):
				z = 0.75 * _PI if negative_x else 0.25 * _PI
			else:
				z = _PI if negative_x else 0.0
		elif is_inf(ay):
			z = _PIO2_HI
		else:
			var ratio := ay / ax
			if ratio > _TWO_60:
				z = _PIO2_HI + 0.5 * _PI_LO
			elif negative_x and ratio < _TWO_M60:
				z = _PI
			else:
				z = _atan_positive(ratio)
				if negative_x:
					z = _PI - (z - _PI_LO)
		return -z if negative_y else z

	## Whether a zero is -0.0 (GDScript has no copysign, and Godot 3 refuses 1 / 0.0).
	static func is_negative_zero(zero: float) -> bool:
		return str(zero).begins_with("-")

	## asin(x) in [-pi/2, pi/2] for x in [-1, 1]; never the platform's asin.
	static func det_asin(x: float) -> float:
		var a := -x if x < 0.0 else x
		if a >= 1.0:
			if a == 1.0:
				return x * _PIO2_HI + x * _PIO2_LO
			return NAN  # detmath's (x - x) / (x - x): Godot 3 refuses a division by zero
		var t := 0.0
		var p := 0.0
		var q := 0.0
		if a < 0.5:
			if a < _TWO_M27:
				return x
			t = x * x
			p = t * (_PS0 + t * (_PS1 + t * (_PS2 + t * (_PS3 + t * (_PS4 + t * _PS5)))))
			q = 1.0 + t * (_QS1 + t * (_QS2 + t * (_QS3 + t * _QS4)))
			return x + x * (p / q)
		var w := 1.0 - a
		t = w * 0.5
		p = t * (_PS0 + t * (_PS1 + t * (_PS2 + t * (_PS3 + t * (_PS4 + t * _PS5)))))
		q = 1.0 + t * (_QS1 + t * (_QS2 + t * (_QS3 + t * _QS4)))
		var s := sqrt(t)
		var r := 0.0
		if a >= 0.975:
			r = _PIO2_HI - (2.0 * (s + s * (p / q)) - _PIO2_LO)
		else:
			var c := _SPLIT * s
			w = c - (c - s)
			c = (t - w * w) / (s + w)
			p = 2.0 * s * (p / q) - (_PIO2_LO - 2.0 * c)
			q = _PIO4 - 2.0 * w
			r = _PIO4 - (p - q)
		return -r if x < 0.0 else r

	## 2^k for a whole number k in [-1074, 1023], exactly.
	static func pow2(k: float) -> float:
		var base := 2.0
		if k < 0.0:
			base = 0.5
			k = -k
		var result := 1.0
		while k > 0.0:
			var half: float = floor(k * 0.5)
			if k - 2.0 * half == 1.0:
				result *= base
			base *= base
			k = half
		return result

	## e^x; never the platform's exp.
	static func det_exp(x: float) -> float:
		if is_nan(x):
			return x
		if x > _EXP_OVERFLOW:
			return INF
		if x < _EXP_UNDERFLOW:
			return 0.0
		var a := -x if x < 0.0 else x
		if a < _TWO_M28:
			return 1.0 + x
		var t := 0.0
		var c := 0.0
		if a <= _HALF_LN2:
			t = x * x
			c = x - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
			return 1.0 - ((x * c) / (c - 2.0) - x)
		var k: float = floor(x * _INV_LN2 + 0.5)
		var hi := x - k * _LN2_HI
		var lo := k * _LN2_LO
		var r := hi - lo
		t = r * r
		c = r - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
		var y := 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
		if k < -1021.0:
			return y * pow2(k + 1000.0) * pow2(-1000.0)
		if k > 1023.0:
			return y * 2.0 * pow2(k - 1.0)
		return y * pow2(k)

	## Python's float % (a floor modulo) for b > 0; fmod truncates. Exact, like the engine's.
	static func floor_mod(a: float, b: float) -> float:
		var m: float = fmod(a, b)
		if m != 0.0 and (m < 0.0) != (b < 0.0):
			m += b
		elif m == 0.0:
			m = 0.0
		return m

	## numba's min(a, b): the first argument on ties (never the platform's min, for -0).
	static func least(a: float, b: float) -> float:
		return b if b < a else a

	## numba's max(a, b): the first argument on ties.
	static func most(a: float, b: float) -> float:
		return b if b > a else a

	# ------------------------------------------------------------ the random stream (kernel.py)

	## splitmix64's finaliser: >> on an int64 is arithmetic, so each shift is masked.
	static func mix(x: int) -> int:
		x = (x ^ ((x >> 30) & _LOW34)) * _MIX1
		x = (x ^ ((x >> 27) & _LOW37)) * _MIX2
		return x ^ ((x >> 31) & _LOW33)

	## The key of a seed's run, and of agent `id`'s random numbers in it.
	static func seed_key(seed_number: int) -> int:
		return mix(seed_number ^ _SEED_SALT)

	static func agent_key(key_of_seed: int, id: int) -> int:
		return mix(key_of_seed ^ (id * _GOLDEN))

	## The draw-th uniform double in [0, 1) of stream `key`.
	static func uniform(key: int, draw: int) -> float:
		return ((mix(key + (draw + 1) * _GOLDEN) >> 11) & _LOW53) * _UNIT

	## A point uniform in the unit ball (not within 1e-3 of its centre): x, with _ball_y, _ball_z.
	func in_unit_ball(key: int) -> float:
		var draw := 0
		while true:
			draw += 1
			var bits := mix(key + draw * _GOLDEN)
			var x: float = (bits & _LOW21) * _UNIT20 - 1.0
			var y: float = ((bits >> 21) & _LOW21) * _UNIT20 - 1.0
			var z: float = ((bits >> 42) & _LOW21) * _UNIT20 - 1.0
			var r2 := x * x + y * y + z * z
			if 1e-6 < r2 and r2 <= 1.0:
				_ball_y = y
				_ball_z = z
				return x
		return 0.0

	## Gradient noise of curve `key` at x. The gradients at the cell's two ends depend on the
	## key and the cell only, and a curve stays in one cell for many steps, so they are kept in
	## cache[at..at+2] (cell, g0, g1): the same values, a fraction of the hashing.
	static func gradient_noise(key: int, x: float, cache: Array, at: int) -> float:
		var cell: float = floor(x)
		var f := x - cell
		if cache[at] != cell:
			var c := int(cell)
			cache[at + 1] = ((mix(key + c * _GOLDEN) >> 11) & _LOW53) * _UNIT * 2.0 - 1.0
			var next := mix(key + (c + 1) * _GOLDEN)
			cache[at + 2] = ((next >> 11) & _LOW53) * _UNIT * 2.0 - 1.0
			cache[at] = cell
		var g0: float = cache[at + 1]
		var g1: float = cache[at + 2]
		var fade := f * f * f * (f * (f * 6.0 - 15.0) + 10.0)
		return 2.0 * ((1.0 - fade) * g0 * f + fade * g1 * (f - 1.0))

	## Two octaves of gradient noise (cache[at..at+5] holds both octaves' gradients).
	static func smooth_noise(key: int, x: float, cache: Array, at: int) -> float:
		var second := gradient_noise(key ^ _OCTAVE_SALT, x * _OCTAVE_RATIO + 0.5, cache, at + 3)
		return (gradient_noise(key, x, cache, at) + 0.5 * second) * (1.0 / 1.5)

	# ------------------------------------------------------------ frames and angles

	static func reflect_pitch(pitch: float) -> float:
		if pitch > _HALF_PI:
			return _PI - pitch
		if pitch < -_HALF_PI:
			return -_PI - pitch
		return pitch

	## The noise method's target yaw (and _pitch) of an agent at noise coordinate t.
	func noise_angles(
		keys: Array, phase: Array, t: float, vertical: float, offset_yaw: float,
		offset_pitch: float, cache: Array
	) -> float:
		var yaw := _PI * smooth_noise(keys[0], phase[0] + t, cache, 0) + offset_yaw
		var curve := smooth_noise(keys[1], phase[1] + t, cache, 6)
		var pitch := _HALF_PI * least(1.0, most(-1.0, curve)) * vertical
		_pitch = reflect_pitch(pitch + offset_pitch)
		return yaw

	## Noise offsets moved by the deltas: the yaw (returned) wrapped, _pitch kept in [-pi, pi].
	func shift_offsets(
		offset_yaw: float, offset_pitch: float, delta_yaw: float, delta_pitch: float
	) -> float:
		_pitch = least(_PI, most(-_PI, offset_pitch + delta_pitch))
		return floor_mod(offset_yaw + delta_yaw + _PI, _TWO_PI) - _PI

	## The unit direction at yaw (towards side) and pitch (towards up = side x heading): x, _y, _z.
	func direction_from_angles(
		yaw: float, pitch: float, hx: float, hy: float, hz: float, sx: float, sy: float, sz: float
	) -> float:
		var ux := sy * hz - sz * hy
		var uy := sz * hx - sx * hz
		var uz := sx * hy - sy * hx
		var sin_pitch := sincos(pitch)
		var cos_pitch := _cos
		var sin_yaw := sincos(yaw)
		var cos_yaw := _cos
		var a := cos_pitch * cos_yaw
		var b := cos_pitch * sin_yaw
		var c := sin_pitch
		_y = a * hy + b * sy + c * uy
		_z = a * hz + b * sz + c * uz
		return a * hx + b * sx + c * ux

	## The yaw (returned) and _pitch of unit direction w in the frame (h, s).
	func angles_from_direction(
		wx: float, wy: float, wz: float, hx: float, hy: float, hz: float, sx: float, sy: float,
		sz: float
	) -> float:
		var ux := sy * hz - sz * hy
		var uy := sz * hx - sx * hz
		var uz := sx * hy - sy * hx
		var yaw := det_atan2(wx * sx + wy * sy + wz * sz, wx * hx + wy * hy + wz * hz)
		var up := wx * ux + wy * uy + wz * uz
		_pitch = det_asin(least(1.0, most(-1.0, up)))
		return yaw

	## A unit vector perpendicular to unit a (a crossed with its least-aligned axis): x, _y, _z.
	func perpendicular(ax: float, ay: float, az: float) -> float:
		var px := 0.0
		var py := 0.0
		var pz := 0.0
		if abs(ax) <= abs(ay) and abs(ax) <= abs(az):
			py = az
			pz = -ay
		elif abs(ay) <= abs(az):
			px = -az
			pz = ax
		else:
			px = ay
			py = -ax
		var n := sqrt(px * px + py * py + pz * pz)
		_y = py / n
		_z = pz / n
		return px / n

	## v rotated by the minimal rotation taking unit a onto unit b (parallel transport).
	func transport(
		vx: float, vy: float, vz: float, ax: float, ay: float, az: float, bx: float, by: float,
		bz: float
	) -> float:
		var c := ax * bx + ay * by + az * bz
		if c < -1.0 + 1e-9:
			var px := perpendicular(ax, ay, az)
			var py := _y
			var pz := _z
			var d := 2.0 * (px * vx + py * vy + pz * vz)
			_y = d * py - vy
			_z = d * pz - vz
			return d * px - vx
		var kx := ay * bz - az * by
		var ky := az * bx - ax * bz
		var kz := ax * by - ay * bx
		var s := (kx * vx + ky * vy + kz * vz) / (1.0 + c)
		_y = c * vy + (kz * vx - kx * vz) + s * ky
		_z = c * vz + (kx * vy - ky * vx) + s * kz
		return c * vx + (ky * vz - kz * vy) + s * kx

	## `transport` of v and w by the same rotation, into _pair (v then w).
	func transport_pair(v: Array, w: Array, a: Array, b: Array) -> void:
		var ax: float = a[0]
		var ay: float = a[1]
		var az: float = a[2]
		var bx: float = b[0]
		var by: float = b[1]
		var bz: float = b[2]
		var c := ax * bx + ay * by + az * bz
		if c < -1.0 + 1e-9:
			_pair[0] = transport(v[0], v[1], v[2], ax, ay, az, bx, by, bz)
			_pair[1] = _y
			_pair[2] = _z
			_pair[3] = transport(w[0], w[1], w[2], ax, ay, az, bx, by, bz)
			_pair[4] = _y
			_pair[5] = _z
			return
		var vx: float = v[0]
		var vy: float = v[1]
		var vz: float = v[2]
		var wx: float = w[0]
		var wy: float = w[1]
		var wz: float = w[2]
		var kx := ay * bz - az * by
		var ky := az * bx - ax * bz
		var kz := ax * by - ay * bx
		var inverse := 1.0 / (1.0 + c)
		var s := (kx * vx + ky * vy + kz * vz) * inverse
		var t := (kx * wx + ky * wy + kz * wz) * inverse
		_pair[0] = c * vx + (ky * vz - kz * vy) + s * kx
		_pair[1] = c * vy + (kz * vx - kx * vz) + s * ky
		_pair[2] = c * vz + (kx * vy - ky * vx) + s * kz
		_pair[3] = c * wx + (ky * wz - kz * wy) + t * kx
		_pair[4] = c * wy + (kz * wx - kx * wz) + t * ky
		_pair[5] = c * wz + (kx * wy - ky * wx) + t * kz

	## The level side of unit heading h (h x up, normalised): x, _y, _z; any perpendicular for
	## a vertical heading.
	func level_side(hx: float, hy: float, hz: float) -> float:
		var sx := -hz
		var sz := hx
		var level := sqrt(sx * sx + sz * sz)
		if level > 1e-9:
			_y = 0.0
			_z = sz / level
			return sx / level
		return perpendicular(hx, hy, hz)

	## The angle method's pitch walk per step: [decay, kick] (engine: kernel.pitch_walk).
	static func pitch_walk(rate: float, vertical: float, dt: float) -> Array:
		var spread := vertical * _PITCH_SPREAD
		if rate <= 0.0:
			return [1.0, 0.0]
		if spread <= 0.0:
			return [0.0, 0.0]
		var decay := det_exp((-dt * rate * rate) / (6.0 * spread * spread))
		return [decay, spread * sqrt(3.0 * (1.0 - decay * decay))]


## One kind of character's parameters (a group of the scene). Change any of them at any time:
## what depends on them is recomputed at the next step. As in wander3d's app, a new frequency
## keeps each noise agent where it is on its curves, and a new interval shortens a longer seek
## countdown at once.
class WanderParams:
	var method := "sphere"  # sphere | angle | noise | seek | random
	var steering := "force"  # force: the vector to the target; desired: velocity towards it
	var max_speed := 40.0  # units/s
	var max_force := 60.0  # mass*units/s^2: limit on the steering force
	var mass := 1.0  # acceleration = force / mass
	var initial_speed := 20.0  # units/s, for agents spawned by the port
	var distance := 30.0  # units: the wander sphere's centre ahead of the agent
	var radius := 12.0  # units: the wander sphere's radius
	var jitter := 10.0  # units/sqrt(s): sphere's random displacement
	var rate := 0.8  # rad/sqrt(s): angle's random walk of yaw and pitch
	var frequency := 0.3  # 1/s: noise's pace
	var interval := 4.0  # s: seek's time between new points
	var vertical := 1.0  # 0..1: up/down freedom (1 isotropic, 0 level)

	## From a SCENE group's "params" dictionary (keys as above; missing ones keep the defaults).
	func _init(values: Dictionary = {}) -> void:
		method = values.get("method", method)
		steering = values.get("steering", steering)
		max_speed = values.get("max_speed", max_speed)
		max_force = values.get("max_force", max_force)
		mass = values.get("mass", mass)
		initial_speed = values.get("initial_speed", max_speed / 2.0)
		distance = values.get("distance", distance)
		radius = values.get("radius", radius)
		jitter = values.get("jitter", jitter)
		rate = values.get("rate", rate)
		frequency = values.get("frequency", frequency)
		interval = values.get("interval", interval)
		vertical = values.get("vertical", vertical)

	func copy() -> WanderParams:
		var other := WanderParams.new()
		other.method = method
		other.steering = steering
		other.max_speed = max_speed
		other.max_force = max_force
		other.mass = mass
		other.initial_speed = initial_speed
		other.distance = distance
		other.radius = radius
		other.jitter = jitter
		other.rate = rate
		other.frequency = frequency
		other.interval = interval
		other.vertical = vertical
		return other


## One agent's wander state: what the behaviour carries from tick to tick (the game keeps the
## agent's position and velocity). Made by Wander.agent(), Wander.spawn() or Wander.restore().
class WanderAgent:
	var id := 0  # unique among the live agents of one seed: picks the agent's random stream
	var key := 0  # its random stream's key (Wander.agent_key of the seed and id)
	var step := 0  # ticks steered so far: the stream's and the noise curves' clock
	var heading := [1.0, 0.0, 0.0]  # unit: where it faces
	var side := [0.0, 0.0, 1.0]  # unit: its right (angle and noise methods keep it level)
	var wander_direction := [1.0, 0.0, 0.0]  # unit: the target's direction from the sphere's centre
	var angles := [0.0, 0.0]  # angle: the target's yaw, pitch; noise: offsets added to its curves
	var noise_keys := [0, 0]  # the noise method's two curves
	var noise_phase := [0.0, 0.0]
	# The noise curves' cells and gradients (two curves of two octaves: cell, g0, g1 each).
	var noise_cache := [
		_NO_CELL, 0.0, 0.0, _NO_CELL, 0.0, 0.0, _NO_CELL, 0.0, 0.0, _NO_CELL, 0.0, 0.0,
	]
	var seek_point := [0.0, 0.0, 0.0]  # the seek method's point and seconds until the next
	var seek_timer := 0.0
	# The params' frequency the noise phases follow and interval the seek timer follows: a
	# steer that finds others carries the phases and the timer over (see Wander.steer).
	var frequency := 0.3
	var interval := 4.0
	var held := -1  # the random method's hold (-1: none yet) and its direction
	var held_direction := [0.0, 0.0, 0.0]
	# The last steer's outputs.
	var force := [0.0, 0.0, 0.0]  # the wander steering force
	var containment := [_NEGATIVE_ZERO, _NEGATIVE_ZERO, _NEGATIVE_ZERO]  # the box's push (-0: none)
	var target := [0.0, 0.0, 0.0]  # the point steered towards (debug drawing)
	var used_angles := [0.0, 0.0]  # the noise method's angles this tick (reflect needs them)
	var method_id := SPHERE  # the method of the last steer
	var level_now := false  # whether the last steer's tick pulls the side level


## The region seek draws its points from and the box that keeps agents in: containment (in
## Wander.steer) and reflection (reflect()).
class WanderBox extends WanderMath:
	var low := [-100.0, -60.0, -100.0]  # lowest corner (units)
	var high := [100.0, 60.0, 100.0]  # highest corner (units)
	var margin := 15.0  # agents start turning back this far inside a wall (units)

	func _init(
		low_corner := [-100.0, -60.0, -100.0], high_corner := [100.0, 60.0, 100.0],
		margin_units := 15.0
	) -> void:
		low = low_corner.duplicate()
		high = high_corner.duplicate()
		margin = margin_units

	## The hard guarantee (stage 6): an agent that left the box is mirrored back in (position,
	## velocity, its frame and target). Whether it was.
	func reflect(agent: WanderAgent, position: Array, velocity: Array) -> bool:
		var x: float = position[0]
		var y: float = position[1]
		var z: float = position[2]
		if x >= low[0] and x <= high[0] and y >= low[1] and y <= high[1] and z >= low[2] and z <= high[2]:
			return false  # inside, as nearly always
		var h: Array = agent.heading
		var s: Array = agent.side
		var w: Array = agent.wander_direction
		var crossed := false
		for a in 3:
			var p: float = position[a]
			var lo: float = low[a]
			var hi: float = high[a]
			if p < lo or p > hi:
				p = 2.0 * lo - p if p < lo else 2.0 * hi - p
				position[a] = least(hi, most(lo, p))
				velocity[a] = -velocity[a]
				h[a] = -h[a]
				s[a] = -s[a]
				w[a] = -w[a]
				crossed = true
		var method: int = agent.method_id
		if crossed and (method == ANGLE or method == NOISE):
			# The mirror flips the frame's handedness; re-express the target in it.
			var wx: float = w[0]
			var wy: float = w[1]
			var wz: float = w[2]
			var n := sqrt(wx * wx + wy * wy + wz * wz)
			var yaw := angles_from_direction(
				wx / n, wy / n, wz / n, h[0], h[1], h[2], s[0], s[1], s[2]
			)
			var pitch := _pitch
			var angles: Array = agent.angles
			if method == ANGLE:
				angles[0] = yaw
				angles[1] = pitch
			else:
				var used: Array = agent.used_angles
				angles[0] = shift_offsets(angles[0], angles[1], yaw - used[0], pitch - used[1])
				angles[1] = _pitch
		return crossed


## The behaviour: one kind of character's parameters, the seed of its random streams and the
## box (or null: no containment, and no seek). Many agents share one.
class Wander extends WanderMath:
	var params: WanderParams
	var random_seed := 0  # in [0, 2^32): with an agent's id, picks its random stream
	var box: WanderBox = null
	var _seed_key := 0
	# What steer derives from the parameters, dt and the box, and what it was derived from.
	var _derived_from := ["", "", 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
	var _method := SPHERE
	var _desired := false
	var _dt := 0.0
	var _jitter_step := 0.0
	var _rate_step := 0.0
	var _offset_fade := 1.0
	var _stop_time := 0.0
	var _pitch_decay := 1.0
	var _pitch_kick := 0.0
	var _random_holds := 1.0
	var _random_gain := 1.0
	var _level_mask := 0
	var _inverse_ramp := 0.0

	func _init(
		wander_params: WanderParams = null, seed_number := 0, wander_box: WanderBox = null
	) -> void:
		params = wander_params if wander_params != null else WanderParams.new()
		random_seed = seed_number
		box = wander_box
		_seed_key = seed_key(seed_number)

	## A new agent the game placed, facing its velocity (+x when it is still); the rest of its
	## state from its spawn stream (docs/ports.md, "Start", steps 3-6).
	func agent(id: int, position: Array, velocity: Array) -> WanderAgent:
		var one := WanderAgent.new()
		one.id = id
		one.key = agent_key(_seed_key, id)
		var k := mix(one.key ^ _SPAWN_SALT)
		var vx: float = velocity[0]
		var vy: float = velocity[1]
		var vz: float = velocity[2]
		var speed := sqrt(vx * vx + vy * vy + vz * vz)
		if speed > 0.0:
			one.heading = [vx / speed, vy / speed, vz / speed]
		one.seek_point = position.duplicate()
		if box != null:
			for a in 3:
				var lo: float = box.low[a] + box.margin
				one.seek_point[a] = lo + uniform(k, 3 + a) * ((box.high[a] - box.margin) - lo)
		_start_state(one, k)
		return one

	## A new agent started by the port's own rule (docs/ports.md, "Start"), the same in every
	## port for the same seed and id: its position and velocity are written into the arrays.
	func spawn(id: int, position: Array, velocity: Array) -> WanderAgent:
		var one := WanderAgent.new()
		one.id = id
		one.key = agent_key(_seed_key, id)
		var k := mix(one.key ^ _SPAWN_SALT)
		var low: Array = box.low if box != null else [0.0, 0.0, 0.0]
		var high: Array = box.high if box != null else [0.0, 0.0, 0.0]
		var margin: float = box.margin if box != null else 0.0
		for a in 3:
			var a0: float = low[a] + margin
			var a1: float = (high[a] - margin) - a0
			position[a] = a0 + uniform(k, a) * a1
			one.seek_point[a] = a0 + uniform(k, 3 + a) * a1
		var hx := in_unit_ball(k)
		var hy := _ball_y * params.vertical
		var hz := _ball_z
		var h := sqrt(hx * hx + hy * hy + hz * hz)
		if h < 1e-9:
			hx = 1.0
			hy = 0.0
			hz = 0.0
			h = 1.0
		one.heading = [hx / h, hy / h, hz / h]
		var speed := params.initial_speed
		for a in 3:
			velocity[a] = one.heading[a] * speed
		_start_state(one, k)
		return one

	## An agent from a start.txt record (WanderStart): wander3d's exact start.
	func restore(id: int, record: WanderStart) -> WanderAgent:
		var one := WanderAgent.new()
		one.id = id
		one.key = agent_key(_seed_key, id)
		one.heading = record.heading.duplicate()
		one.side = record.side.duplicate()
		one.wander_direction = record.wander_direction.duplicate()
		one.angles = record.angles.duplicate()
		one.noise_phase = record.noise_phase.duplicate()
		one.noise_keys = record.noise_keys.duplicate()
		one.seek_point = record.seek_point.duplicate()
		one.seek_timer = record.seek_timer
		one.frequency = params.frequency
		one.interval = params.interval
		return one

	# Steps 3-6 of the start: side, angles, noise curves, seek timer, wander direction.
	func _start_state(one: WanderAgent, k: int) -> void:
		var h: Array = one.heading
		var sx := level_side(h[0], h[1], h[2])
		one.side = [sx, _y, _z]
		var yaw := (2.0 * uniform(k, 6) - 1.0) * _PI
		var pitch := (2.0 * uniform(k, 7) - 1.0) * _HALF_PI * params.vertical
		var method := METHODS.find(params.method)
		one.angles = [yaw, pitch] if method == ANGLE else [0.0, 0.0]
		for j in 2:
			one.noise_keys[j] = mix(k + (9 + j) * _GOLDEN) & _LOW63
			one.noise_phase[j] = uniform(k, 11 + j) * 1024.0
		one.seek_timer = uniform(k, 13) * params.interval
		one.frequency = params.frequency
		one.interval = params.interval
		one.wander_direction = h.duplicate()
		if method == ANGLE:
			var wx := direction_from_angles(yaw, pitch, h[0], h[1], h[2], sx, _y, _z)
			one.wander_direction = [wx, _y, _z]
		elif method == NOISE:
			var s: Array = one.side
			var curve_yaw := noise_angles(
				one.noise_keys, one.noise_phase, 0.0, params.vertical, 0.0, 0.0, one.noise_cache
			)
			var wx := direction_from_angles(curve_yaw, _pitch, h[0], h[1], h[2], s[0], s[1], s[2])
			one.wander_direction = [wx, _y, _z]
		one.method_id = method

	## Stages 1-3 of a tick (the kernel's order): the box's look-ahead, the method's target,
	## steering. Writes agent.force (the wander steering) and agent.containment (the box's push,
	## -0 on every axis when it does not push: force + containment is the engine's force to the
	## bit) and counts the agent's step. position, velocity: the agent's, [x, y, z] floats.
	func steer(agent: WanderAgent, position: Array, velocity: Array, dt: float) -> void:
		_derive(dt)
		var step: int = agent.step
		var key: int = agent.key + step * _STEP_STRIDE
		var px: float = position[0]
		var py: float = position[1]
		var pz: float = position[2]
		var vx: float = velocity[0]
		var vy: float = velocity[1]
		var vz: float = velocity[2]
		var heading: Array = agent.heading
		var hx: float = heading[0]
		var hy: float = heading[1]
		var hz: float = heading[2]
		var wander_direction: Array = agent.wander_direction
		var wx: float = wander_direction[0]
		var wy: float = wander_direction[1]
		var wz: float = wander_direction[2]
		var angles: Array = agent.angles
		var yaw: float = angles[0]
		var pitch: float = angles[1]
		var method := _method
		var distance := params.distance
		var radius := params.radius
		var vertical := params.vertical
		var max_speed := params.max_speed
		var max_force := params.max_force

		# 1. Containment, per axis: + pushes towards high, - towards low.
		var ix := 0.0
		var iy := 0.0
		var iz := 0.0
		if box != null and box.margin > 0.0:
			var margin := box.margin
			var low: Array = box.low
			var high: Array = box.high
			var ahead_x := px + vx * (_LOOKAHEAD + abs(vx) * _stop_time)
			var ahead_y := py + vy * (_LOOKAHEAD + abs(vy) * _stop_time)
			var ahead_z := pz + vz * (_LOOKAHEAD + abs(vz) * _stop_time)
			# numba's min(1, max(0, r)), written out: r if 0 < r < 1, else 1 or 0.
			var r := 0.0
			if hx < 0.0:
				r = (low[0] + margin - ahead_x) * _inverse_ramp
				ix = (r if r < 1.0 else 1.0) if r > 0.0 else 0.0
			elif hx > 0.0:
				r = (ahead_x - (high[0] - margin)) * _inverse_ramp
				ix = -((r if r < 1.0 else 1.0) if r > 0.0 else 0.0)
			if hy < 0.0:
				r = (low[1] + margin - ahead_y) * _inverse_ramp
				iy = (r if r < 1.0 else 1.0) if r > 0.0 else 0.0
			elif hy > 0.0:
				r = (ahead_y - (high[1] - margin)) * _inverse_ramp
				iy = -((r if r < 1.0 else 1.0) if r > 0.0 else 0.0)
			if hz < 0.0:
				r = (low[2] + margin - ahead_z) * _inverse_ramp
				iz = (r if r < 1.0 else 1.0) if r > 0.0 else 0.0
			elif hz > 0.0:
				r = (ahead_z - (high[2] - margin)) * _inverse_ramp
				iz = -((r if r < 1.0 else 1.0) if r > 0.0 else 0.0)
		var weight := most(abs(ix), most(abs(iy), abs(iz)))

		# 2. The wander target.
		var used_yaw := 0.0
		var used_pitch := 0.0
		var tx := 0.0
		var ty := 0.0
		var tz := 0.0
		if method == SEEK:
			var point: Array = agent.seek_point
			if params.interval != agent.interval:
				# A shorter interval applies now, not after the current (longer) countdown.
				agent.seek_timer = least(agent.seek_timer, params.interval)
				agent.interval = params.interval
			agent.seek_timer -= dt
			if agent.seek_timer <= 0.0 and box != null:
				var m: float = box.margin
				for a in 3:
					var lo: float = box.low[a]
					point[a] = lo + m + uniform(key, a) * (box.high[a] - lo - 2 * m)
				agent.seek_timer += params.interval
			tx = point[0]
			ty = point[1]
			tz = point[2]
		else:
			if method == SPHERE:
				var ux := in_unit_ball(key)
				var qx := wx * radius + ux * _jitter_step
				var qy := wy * radius + _ball_y * _jitter_step * vertical
				var qz := wz * radius + _ball_z * _jitter_step
				var q := sqrt(qx * qx + qy * qy + qz * qz)
				if q > 1e-9 * radius:
					var inverse := 1.0 / q
					wx = qx * inverse
					wy = qy * inverse
					wz = qz * inverse
			elif method == ANGLE or method == NOISE:
				var side: Array = agent.side
				if method == ANGLE:
					yaw += (2.0 * uniform(key, 0) - 1.0) * _rate_step
					pitch = pitch * _pitch_decay + (2.0 * uniform(key, 1) - 1.0) * _pitch_kick
					if yaw >= _PI or yaw < -_PI:
						yaw = floor_mod(yaw + _PI, _TWO_PI) - _PI
					pitch = reflect_pitch(pitch)
					wx = direction_from_angles(yaw, pitch, hx, hy, hz, side[0], side[1], side[2])
				else:
					if params.frequency != agent.frequency:
						# The noise coordinate is time * frequency: keep it where it is, or a
						# new frequency would move the agent to an unrelated point of its
						# curves (the engine's Simulation.update_group does the same).
						var shift: float = step * dt * (agent.frequency - params.frequency)
						agent.noise_phase[0] += shift
						agent.noise_phase[1] += shift
						agent.frequency = params.frequency
					# Offsets from wall turns fade, so the agent returns to its own curve.
					yaw *= _offset_fade
					pitch *= _offset_fade
					used_yaw = noise_angles(
						agent.noise_keys, agent.noise_phase, step * dt * params.frequency,
						vertical, yaw, pitch, agent.noise_cache
					)
					used_pitch = _pitch
					wx = direction_from_angles(
						used_yaw, used_pitch, hx, hy, hz, side[0], side[1], side[2]
					)
				wy = _y
				wz = _z
			else:
				# RANDOM: a fresh uniform direction every _RANDOM_HOLD s.
				var held: Array = agent.held_direction
				var hold := int((step + 0.5) * _random_holds)
				if hold != agent.held:
					agent.held = hold
					var ux := in_unit_ball(agent.key + hold * _STEP_STRIDE)
					var uy := _ball_y * vertical
					var uz := _ball_z
					var u := sqrt(ux * ux + uy * uy + uz * uz)
					if u < 1e-9:
						ux = 1.0
						uy = 0.0
						uz = 0.0
						u = 1.0
					var gain := _random_gain / u
					held[0] = ux * gain
					held[1] = uy * gain
					held[2] = uz * gain
				wx = held[0]
				wy = held[1]
				wz = held[2]
			# Turn the target inward on axes heading into a wall (a mirror keeps it on the sphere).
			var turned := false
			if (ix > 0.0 and wx < 0.0) or (ix < 0.0 and wx > 0.0):
				wx = -wx
				turned = true
			if (iy > 0.0 and wy < 0.0) or (iy < 0.0 and wy > 0.0):
				wy = -wy
				turned = true
			if (iz > 0.0 and wz < 0.0) or (iz < 0.0 and wz > 0.0):
				wz = -wz
				turned = true
			if turned and (method == ANGLE or method == NOISE):
				var s: Array = agent.side
				var turned_yaw := angles_from_direction(wx, wy, wz, hx, hy, hz, s[0], s[1], s[2])
				var turned_pitch := _pitch
				if method == ANGLE:
					yaw = turned_yaw
					pitch = turned_pitch
				else:
					yaw = shift_offsets(yaw, pitch, turned_yaw - used_yaw, turned_pitch - used_pitch)
					pitch = _pitch
					used_yaw = turned_yaw
					used_pitch = turned_pitch
			tx = px + hx * distance + wx * radius
			ty = py + hy * distance + wy * radius
			tz = pz + hz * distance + wz * radius

		# 3. Steering, and containment apart (the kernel's blend is their sum).
		var dx := tx - px
		var dy := ty - py
		var dz := tz - pz
		if _desired:
			var d := sqrt(dx * dx + dy * dy + dz * dz)
			if d > _TINY:
				var inverse := 1.0 / d
				dx *= inverse
				dy *= inverse
				dz *= inverse
			else:
				dx = hx
				dy = hy
				dz = hz
			dx = dx * max_speed - vx
			dy = dy * max_speed - vy
			dz = dz * max_speed - vz
		dy *= vertical
		var keep := 1.0 - weight
		var force: Array = agent.force
		force[0] = dx * keep
		force[1] = dy * keep
		force[2] = dz * keep
		var containment: Array = agent.containment
		if weight > 0.0:
			var c := max_force * weight / sqrt(ix * ix + iy * iy + iz * iz)
			containment[0] = ix * c
			containment[1] = iy * c
			containment[2] = iz * c
		else:
			containment[0] = _NEGATIVE_ZERO
			containment[1] = _NEGATIVE_ZERO
			containment[2] = _NEGATIVE_ZERO

		wander_direction[0] = wx
		wander_direction[1] = wy
		wander_direction[2] = wz
		angles[0] = yaw
		angles[1] = pitch
		agent.used_angles[0] = used_yaw
		agent.used_angles[1] = used_pitch
		agent.target[0] = tx
		agent.target[1] = ty
		agent.target[2] = tz
		agent.method_id = method
		agent.level_now = (step & _level_mask) == 0
		agent.step = step + 1

	## Stage 4, the vehicle model, for games without their own: truncate `force` to max_force,
	## velocity += force / mass * dt, clamp to max_speed, position += velocity * dt. Whether
	## the agent moves; if it does, its new unit heading (taken before the speed clamp) is
	## written into `heading` (for follow()).
	static func integrate(
		position: Array, velocity: Array, force: Array, wander_params: WanderParams, dt: float,
		heading: Array
	) -> bool:
		var max_force := wander_params.max_force
		var max_speed := wander_params.max_speed
		var fx: float = force[0]
		var fy: float = force[1]
		var fz: float = force[2]
		var f2 := fx * fx + fy * fy + fz * fz
		if f2 > max_force * max_force:
			var scale := max_force / sqrt(f2)
			fx *= scale
			fy *= scale
			fz *= scale
		var gain := (1.0 / wander_params.mass) * dt
		var vx: float = velocity[0] + fx * gain
		var vy: float = velocity[1] + fy * gain
		var vz: float = velocity[2] + fz * gain
		var speed2 := vx * vx + vy * vy + vz * vz
		var moving := speed2 > 1e-18
		if moving:
			var inverse := 1.0 / sqrt(speed2)
			var nx := vx * inverse
			var ny := vy * inverse
			var nz := vz * inverse
			heading[0] = nx
			heading[1] = ny
			heading[2] = nz
			if speed2 > max_speed * max_speed:
				vx = nx * max_speed
				vy = ny * max_speed
				vz = nz * max_speed
		velocity[0] = vx
		velocity[1] = vy
		velocity[2] = vz
		position[0] += vx * dt
		position[1] += vy * dt
		position[2] += vz * dt
		return moving

	## Stage 5: the agent now faces unit `heading`; its frame and wander target are carried
	## with it (parallel transport; the side pulled level on level ticks). Call it every tick
	## the agent moved, after steer().
	func follow(agent: WanderAgent, heading: Array) -> void:
		var old: Array = agent.heading
		var w: Array = agent.wander_direction
		var nx: float = heading[0]
		var ny: float = heading[1]
		var nz: float = heading[2]
		var method: int = agent.method_id
		if method == ANGLE or method == NOISE:
			var s: Array = agent.side
			transport_pair(s, w, old, heading)
			var sx: float = _pair[0]
			var sy: float = _pair[1]
			var sz: float = _pair[2]
			w[0] = _pair[3]
			w[1] = _pair[4]
			w[2] = _pair[5]
			# Pull the side level (fully for a level heading, less towards vertical).
			var level2 := nx * nx + nz * nz
			if agent.level_now and level2 > 1e-12:
				var inverse := 1.0 / sqrt(level2)
				var lx := -nz * inverse
				var lz := nx * inverse
				if lx * sx + lz * sz < 0.0:
					lx = -lx
					lz = -lz
				sx += level2 * (lx - sx)
				sy -= level2 * sy
				sz += level2 * (lz - sz)
				inverse = 1.0 / sqrt(sx * sx + sy * sy + sz * sz)
				sx *= inverse
				sy *= inverse
				sz *= inverse
			s[0] = sx
			s[1] = sy
			s[2] = sz
		else:
			w[0] = transport(w[0], w[1], w[2], old[0], old[1], old[2], nx, ny, nz)
			w[1] = _y
			w[2] = _z
		old[0] = nx
		old[1] = ny
		old[2] = nz

	## Switch to wander `method`, each agent (with its position) continuing from where its
	## target is now, as wander3d's app does: the wander direction keeps pointing where it did
	## (from seek: from the sphere's centre to the point sought); angle and noise measure it in
	## a fresh level frame (noise: new curves, offset to pass through it); seek seeks the shown
	## target, kept inside the margin. New draws come from each agent's spawn stream at its
	## step. Setting params.method directly switches without this care.
	func set_method(method: String, agents: Array, positions: Array) -> void:
		var to := METHODS.find(method)
		assert(to >= 0, "no wander method " + method)
		var old := METHODS.find(params.method)
		if to < 0 or to == old:
			return
		for i in agents.size():
			_switch(agents[i], positions[i], old, to)
		params.method = method

	func _switch(one: WanderAgent, position: Array, old: int, to: int) -> void:
		var h: Array = one.heading
		var w: Array = one.wander_direction
		var wx: float = w[0]
		var wy: float = w[1]
		var wz: float = w[2]
		if old == SEEK:
			wx = one.seek_point[0] - (position[0] + h[0] * params.distance)
			wy = one.seek_point[1] - (position[1] + h[1] * params.distance)
			wz = one.seek_point[2] - (position[2] + h[2] * params.distance)
		var n := sqrt(wx * wx + wy * wy + wz * wz)
		if n > _TINY:
			w[0] = wx / n
			w[1] = wy / n
			w[2] = wz / n
		else:
			w[0] = h[0]
			w[1] = h[1]
			w[2] = h[2]
		var k: int = mix(one.key ^ _SPAWN_SALT) + one.step * _STEP_STRIDE
		if to == ANGLE or to == NOISE:
			var sx := level_side(h[0], h[1], h[2])
			one.side = [sx, _y, _z]
			var yaw := angles_from_direction(w[0], w[1], w[2], h[0], h[1], h[2], sx, _y, _z)
			var pitch := _pitch
			if to == ANGLE:
				one.angles = [yaw, pitch]
			else:
				for j in 2:
					one.noise_keys[j] = mix(k + (1 + j) * _GOLDEN) & _LOW63
					one.noise_phase[j] = uniform(k, 3 + j) * 1024.0
				for c in range(0, 12, 3):
					one.noise_cache[c] = _NO_CELL
				one.frequency = params.frequency
				var t := one.step * _dt * params.frequency
				var curve_yaw := noise_angles(
					one.noise_keys, one.noise_phase, t, params.vertical, 0.0, 0.0, one.noise_cache
				)
				var offset_yaw := shift_offsets(0.0, 0.0, yaw - curve_yaw, pitch - _pitch)
				one.angles = [offset_yaw, _pitch]
		elif to == SEEK:
			for a in 3:
				var shown: float = one.seek_point[a]
				if old != SEEK:
					shown = position[a] + h[a] * params.distance + w[a] * params.radius
				if box != null:
					shown = least(box.high[a] - box.margin, most(box.low[a] + box.margin, shown))
				one.seek_point[a] = shown
			one.seek_timer = uniform(k, 5) * params.interval
			one.interval = params.interval
		one.held = -1
		one.method_id = to

	## The wander sphere of an agent at `position` for debug drawing: [centre x, y, z, radius]
	## (radius 0 for seek, which has none).
	func wander_sphere(one: WanderAgent, position: Array) -> Array:
		var h: Array = one.heading
		var r := 0.0 if params.method == "seek" else params.radius
		return [
			position[0] + h[0] * params.distance, position[1] + h[1] * params.distance,
			position[2] + h[2] * params.distance, r,
		]

	## The shown target of an agent at `position`: its seek point, or its point on the sphere.
	func shown_target(one: WanderAgent, position: Array) -> Array:
		if params.method == "seek":
			return one.seek_point.duplicate()
		var h: Array = one.heading
		var w: Array = one.wander_direction
		var out := [0.0, 0.0, 0.0]
		for a in 3:
			out[a] = position[a] + h[a] * params.distance + w[a] * params.radius
		return out

	# The per-tick constants of the parameters, dt and box, recomputed only when one changed.
	func _derive(dt: float) -> void:
		var margin: float = box.margin if box != null else 0.0
		var inputs: Array = _derived_from
		if (
			dt == inputs[2] and params.method == inputs[0] and params.steering == inputs[1]
			and params.jitter == inputs[3] and params.rate == inputs[4]
			and params.frequency == inputs[5] and params.mass == inputs[6]
			and params.max_force == inputs[7] and params.vertical == inputs[8]
			and margin == inputs[9]
		):
			return
		_derived_from = [
			params.method, params.steering, dt, params.jitter, params.rate, params.frequency,
			params.mass, params.max_force, params.vertical, margin,
		]
		_method = METHODS.find(params.method)
		assert(_method >= 0, "no wander method " + params.method)
		_desired = params.steering == "desired"
		_dt = dt
		var root_dt := sqrt(dt)
		_jitter_step = params.jitter * root_dt
		_rate_step = params.rate * root_dt
		_offset_fade = det_exp(-dt * params.frequency)
		_stop_time = 0.5 * params.mass / params.max_force
		var walk := pitch_walk(params.rate, params.vertical, dt)
		_pitch_decay = walk[0]
		_pitch_kick = walk[1]
		_random_holds = least(1.0, dt / _RANDOM_HOLD)
		_random_gain = sqrt(least(1.0, _RANDOM_HOLD / dt))
		var level_steps := 1
		while 2 * level_steps * dt <= _LEVEL_SECONDS:
			level_steps *= 2
		_level_mask = level_steps - 1
		_inverse_ramp = 1.0 / (margin * _RAMP_FRACTION) if margin > 0.0 else 0.0


## One agent's line of a start.txt: wander3d's exact starting state (docs/ports.md, "Start").
class WanderStart:
	var group := 0
	var position := [0.0, 0.0, 0.0]
	var velocity := [0.0, 0.0, 0.0]
	var heading := [0.0, 0.0, 0.0]
	var side := [0.0, 0.0, 0.0]
	var wander_direction := [0.0, 0.0, 0.0]
	var angles := [0.0, 0.0]
	var noise_phase := [0.0, 0.0]
	var seek_point := [0.0, 0.0, 0.0]
	var seek_timer := 0.0
	var noise_keys := [0, 0]

	## The records of a start.txt's text, or [] (with the reason pushed as an error) when it is
	## not a start of `count` agents.
	static func read(text: String, count: int) -> Array:
		var lines = text.replace("\r\n", "\n").split("\n")
		var first := 0
		while first < lines.size() and lines[first].begins_with("#"):
			first += 1  # the licence lines
		if lines.size() < first + 2 + count or lines[first] != "wander3d-start 1":
			push_error("not a wander3d start")
			return []
		if lines[first + 1] != "agents " + str(count):
			push_error("not a wander3d start of %d agents" % count)
			return []
		var records := []
		for i in count:
			var fields = lines[first + 2 + i].split(" ")
			if fields.size() != 26:
				push_error("start line %d is not an agent's" % (first + 3 + i))
				return []
			var one := WanderStart.new()
			one.group = fields[0].to_int()
			var doubles := []
			for f in range(1, 24):
				doubles.append(double_from_hex(fields[f]))
			for a in 3:
				one.position[a] = doubles[a]
				one.velocity[a] = doubles[3 + a]
				one.heading[a] = doubles[6 + a]
				one.side[a] = doubles[9 + a]
				one.wander_direction[a] = doubles[12 + a]
				one.seek_point[a] = doubles[19 + a]
			one.angles = [doubles[15], doubles[16]]
			one.noise_phase = [doubles[17], doubles[18]]
			one.seek_timer = doubles[22]
			one.noise_keys = [int_from_hex(fields[24]), int_from_hex(fields[25])]
			records.append(one)
		return records

	## 16 hex digits as the int64 of their bits (in 16-bit pieces: Godot 3's hex_to_int is 32-bit).
	static func int_from_hex(hex: String) -> int:
		var bits := 0
		for piece in range(0, 16, 4):
			bits = (bits << 16) | ("0x" + hex.substr(piece, 4)).hex_to_int()
		return bits

	## The double whose IEEE-754 bits are 16 hex digits, exactly, by arithmetic (sign,
	## significand, a power of two; GDScript cannot reinterpret bits).
	static func double_from_hex(hex: String) -> float:
		var bits := int_from_hex(hex)
		var exponent := (bits >> 52) & 0x7FF
		var significand := bits & 0xFFFFFFFFFFFFF
		var value := 0.0
		if exponent == 0:
			value = significand * WanderMath.pow2(-1074.0)
		else:
			value = (significand | (1 << 52)) * WanderMath.pow2(exponent - 1075.0)
		return -value if bits < 0 else value


## The hosted flock: every agent of a scene (SCENE's form) in its box, stepped at the scene's
## dt through the composable call (steer, integrate, follow, reflect; no second copy of the
## step). positions[i], velocities[i] are agent i's [x, y, z] (units, units/s); groups[g]
## holds each group's name, count, first agent and Wander (its params).
class Flock:
	var random_seed := 0
	var dt := 1.0 / 60.0
	var box: WanderBox
	var groups := []  # FlockGroup
	var count := 0
	var step := 0  # steps taken since the start
	var group_of := []  # each agent's group
	var agents := []  # WanderAgent
	var positions := []
	var velocities := []
	var previous := []  # the positions before the last step, for drawing
	var previous_headings := []  # and the headings
	var accumulator := 0.0  # s of frame time not yet stepped
	var _force := [0.0, 0.0, 0.0]
	var _heading := [0.0, 0.0, 0.0]

	## `scene`: {seed, dt, box: {low, high, margin}, groups: [{name, count, params}]}, e.g.
	## SCENE (the parameters are copied). `start`: a start.txt's text for wander3d's exact
	## start; without one (or a bad one, pushed as an error) agents are spawned from the seed.
	func _init(scene: Dictionary = SCENE, start := "") -> void:
		random_seed = scene["seed"]
		dt = scene["dt"]
		var b: Dictionary = scene["box"]
		box = WanderBox.new(b["low"], b["high"], b["margin"])
		for g in scene["groups"]:
			var group := FlockGroup.new()
			group.name = g["name"]
			group.count = g["count"]
			group.first = count
			group.wander = Wander.new(WanderParams.new(g["params"]), random_seed, box)
			for i in group.count:
				group_of.append(groups.size())
				positions.append([0.0, 0.0, 0.0])
				velocities.append([0.0, 0.0, 0.0])
			groups.append(group)
			count += group.count
		var records: Array = WanderStart.read(start, count) if start != "" else []
		if records.size() == count and count > 0:
			for i in count:
				var record: WanderStart = records[i]
				agents.append(groups[group_of[i]].wander.restore(i, record))
				positions[i] = record.position.duplicate()
				velocities[i] = record.velocity.duplicate()
			_keep_previous()
		else:
			spawn()

	## Start every agent afresh by the port's own rule (from the seed; not wander3d's start,
	## which start.txt carries): positions uniform inside the margin, headings uniform in
	## direction with their up component scaled by `vertical`, speed `initial_speed`.
	func spawn() -> void:
		agents.clear()
		for i in count:
			agents.append(groups[group_of[i]].wander.spawn(i, positions[i], velocities[i]))
		step = 0
		_keep_previous()

	# Drawing starts where the agents are.
	func _keep_previous() -> void:
		previous.clear()
		previous_headings.clear()
		for i in count:
			previous.append(positions[i].duplicate())
			previous_headings.append(agents[i].heading.duplicate())

	## Take `steps` fixed steps of dt: per agent, in index order, steer, the forces' sum,
	## integrate, follow (when it moved) and reflect.
	func advance(steps := 1) -> void:
		for n in steps:
			for i in count:
				var wander: Wander = groups[group_of[i]].wander
				var agent: WanderAgent = agents[i]
				var position: Array = positions[i]
				var velocity: Array = velocities[i]
				var before: Array = previous[i]
				before[0] = position[0]
				before[1] = position[1]
				before[2] = position[2]
				var heading: Array = agent.heading
				before = previous_headings[i]
				before[0] = heading[0]
				before[1] = heading[1]
				before[2] = heading[2]
				wander.steer(agent, position, velocity, dt)
				var force: Array = agent.force
				var containment: Array = agent.containment
				_force[0] = force[0] + containment[0]
				_force[1] = force[1] + containment[1]
				_force[2] = force[2] + containment[2]
				if Wander.integrate(position, velocity, _force, wander.params, dt, _heading):
					wander.follow(agent, _heading)
				box.reflect(agent, position, velocity)
			step += 1

	## Advance by a frame of `frame_seconds` (capped at MAX_FRAME_SECONDS): as many fixed steps
	## as the accumulated time holds. Returns alpha in [0, 1): how far the display time is
	## between the last two steps, for position_at(). The run is the same at any frame rate.
	func update(frame_seconds: float) -> float:
		accumulator += WanderMath.least(WanderMath.most(frame_seconds, 0.0), MAX_FRAME_SECONDS)
		while accumulator >= dt:
			advance(1)
			accumulator -= dt
		return accumulator / dt

	## Agent i's position at `alpha` between its last two steps (0: the one before the last,
	## 1: the last), into out[0..2]; returns out.
	func position_at(i: int, alpha: float, out: Array) -> Array:
		var before: Array = previous[i]
		var now: Array = positions[i]
		for a in 3:
			out[a] = before[a] + (now[a] - before[a]) * alpha
		return out

	## Agent i's heading at `alpha` between its last two steps (normalised), into out[0..2].
	func heading_at(i: int, alpha: float, out: Array) -> Array:
		var before: Array = previous_headings[i]
		var now: Array = agents[i].heading
		for a in 3:
			out[a] = before[a] + (now[a] - before[a]) * alpha
		var n: float = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2])
		if n > 1e-9:
			for a in 3:
				out[a] /= n
		else:
			for a in 3:
				out[a] = now[a]
		return out

	func params_of(g: int) -> WanderParams:
		return groups[g].wander.params

	## Switch group g to wander `method`, each target staying where it is (Wander.set_method).
	func set_method(g: int, method: String) -> void:
		var group: FlockGroup = groups[g]
		var members := []
		var at := []
		for i in range(group.first, group.first + group.count):
			members.append(agents[i])
			at.append(positions[i])
		group.wander.set_method(method, members, at)

	## Agent i's wander sphere, for debug drawing: [centre x, y, z, radius] (seek: radius 0).
	func wander_sphere(i: int) -> Array:
		return groups[group_of[i]].wander.wander_sphere(agents[i], positions[i])

	## Agent i's shown target: its point on the wander sphere, or its seek point.
	func target_of(i: int) -> Array:
		return groups[group_of[i]].wander.shown_target(agents[i], positions[i])


## A group of the hosted flock: its name, its agents first..first+count-1, its behaviour.
class FlockGroup:
	var name := ""
	var count := 0
	var first := 0
	var wander: Wander
