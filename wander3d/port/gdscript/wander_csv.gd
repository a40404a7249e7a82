# SPDX-FileCopyrightText: 2026 The wander3d authors
# SPDX-License-Identifier: MIT
# wander_csv.gd: a run as `wander3d run --out ref.csv` writes it, for the conformance drivers
# (conformance.gd, compose.gd). Not needed in a game.
#
# The numbers are Apache Arrow's CSV writer's (docs/ports.md of wander3d, "The conformance
# driver's CSV"): positions and velocities rounded to float32, each number in the shortest
# digits that read back to the same float32 (or double, for the time), the nearest of those
# (halfway: the even one), plain for decimal exponents -6..9, else d.ddde+X. GDScript's str()
# is not that (it prints 6 decimals), so this is Burger and Dybvig's free-format algorithm:
# exact, in int64 where the numbers fit (most positions and speeds), else on a small bignum.

const HEADER = "\"particle\",\"group\",\"frame\",\"t\",\"x\",\"y\",\"z\",\"vx\",\"vy\",\"vz\"\n"
const _TWO_32 = 4294967296.0
const _TWO_M32 = 1.0 / 4294967296
const _SMALL_LIMIT = 0x400000000000000  # 2^58: 20 times it still fits an int64
const _LIMB_BITS = 28  # bignum limbs, little-endian; a limb times 10^8 fits an int64
const _LIMB_MASK = 0xFFFFFFF

# The number being formatted: value = f * 2^e, f < 2^precision.
var _f := 0
var _e := 0
var _significand := 0.0
# Digit generation (value = r / s, its rounding interval (r - minus) / s .. (r + plus) / s)
# on big integers: arrays of limbs.
var _r := []
var _s := []
var _plus := []
var _minus := []
var _sum := []
var _out: File = null  # the CSV being written


## Python's round() of a non-negative double: to the nearest integer, halves to even.
static func round_half_even(x: float) -> float:
	var r: float = floor(x)
	var rest := x - r
	if rest > 0.5 or (rest == 0.5 and fmod(r, 2.0) == 1.0):
		r += 1.0
	return r


## `wander3d run`'s sampling of `seconds` at `rate` samples/s for steps of dt:
## [steps, steps between samples, samples, seconds between samples].
static func sampling(seconds: float, rate: float, dt: float) -> Array:
	var steps := int(round_half_even(seconds / dt))
	var every := int(round_half_even(1.0 / (rate * dt)))
	steps = steps if steps > 1 else 1
	every = every if every > 1 else 1
	var samples := steps / every + 1
	return [steps, every, samples, every * dt]


## A group's name as the CSV quotes it.
static func quoted(name: String) -> String:
	return "\"" + name.replace("\"", "\"\"") + "\""


## One row: agent i of group `quoted_group` at sample `frame`, time `t` (formatted).
func row(i: int, quoted_group: String, frame: int, t: String, p: Array, v: Array) -> String:
	return "%d,%s,%d,%s,%s,%s,%s,%s,%s,%s\n" % [
		i, quoted_group, frame, t, format_float32(p[0]), format_float32(p[1]),
		format_float32(p[2]), format_float32(v[0]), format_float32(v[1]), format_float32(v[2]),
	]


## A double as the CSV writes it.
func format_double(x: float) -> String:
	if x == 0.0:
		return "-0" if str(x).begins_with("-") else "0"
	_split(abs(x), 53)
	return _format(x < 0.0, 53, -1074)


## A double rounded to float32 (to nearest, ties to even, as a C cast does), as the CSV
## writes a float32.
func format_float32(x: float) -> String:
	if x == 0.0:
		return "-0" if str(x).begins_with("-") else "0"
	_split(abs(x), 24)
	var scaled := _significand
	if _e < -149:  # float32's subnormals: fewer significant bits
		scaled = _times_pow2(scaled, _e + 149)
		_e = -149
	var r: float = floor(scaled)
	var rest := scaled - r
	if rest > 0.5 or (rest == 0.5 and fmod(r, 2.0) == 1.0):
		r += 1.0
	if r == 0.0:
		return "-0" if x < 0.0 else "0"
	if r == 16777216.0:
		r = 8388608.0
		_e += 1
	_f = int(r)
	return _format(x < 0.0, 24, -149)


# a * 2^n, exactly (a power-of-two scaling of a double that stays normal).
static func _times_pow2(a: float, n: int) -> float:
	while n >= 32:
		a *= _TWO_32
		n -= 32
	while n <= -32:
		a *= _TWO_M32
		n += 32
	while n > 0:
		a *= 2.0
		n -= 1
	while n < 0:
		a *= 0.5
		n += 1
	return a


# a = _significand * 2^_e with 2^(precision-1) <= _significand < 2^precision, exactly
# (scaled by powers of two); _f: its whole part (for a double, all of it).
func _split(a: float, precision: int) -> void:
	var top: float = (1 << precision) * 1.0
	var s := a
	var e := 0
	while s >= top * _TWO_32:
		s *= _TWO_M32
		e += 32
	while s * _TWO_32 < top:
		s *= _TWO_32
		e -= 32
	while s >= top:
		s *= 0.5
		e += 1
	while s * 2.0 < top:
		s *= 2.0
		e -= 1
	if precision == 53 and e < -1074:  # a double's subnormal: fewer significant bits
		s = _times_pow2(s, e + 1074)
		e = -1074
	_significand = s
	_f = int(floor(s))
	_e = e


# The shortest digits of _f * 2^_e and their layout.
func _format(negative: bool, precision: int, min_exponent: int) -> String:
	var even := (_f & 1) == 0
	# The gap below is half the gap above at a power of two (not at the smallest exponent).
	var unequal := _f == (1 << (precision - 1)) and _e > min_exponent
	# An estimate of k with value = 0.d1d2... * 10^k (log10 rounded up); the loops fix it.
	var k := int(ceil(log(_f * 1.0) / log(10.0) + _e * 0.30102999566398120))
	var digits := _digits_small(even, unequal, k, precision)
	if digits == "":
		digits = _digits_big(even, unequal, k)
	var point := digits.find("e")
	return _layout(negative, digits.substr(0, point), digits.substr(point + 1).to_int())


# "DIGITSeEXPONENT" (the exponent of the first digit) in int64, or "" if the numbers would
# not fit (then _digits_big does it): r, s, plus and minus stay below 20 * _SMALL_LIMIT.
func _digits_small(even: bool, unequal: bool, k: int, precision: int) -> String:
	var r := 0
	var s := 0
	var plus := 0
	var minus := 0
	var e := _e
	var fits := e < 0 and 2 - e <= 58 or e >= 0 and e <= 56 - precision and k >= 0 and k <= 16
	if not fits:
		return ""
	if e >= 0:
		r = _f << (e + 2 if unequal else e + 1)
		s = 4 if unequal else 2
		plus = 1 << (e + 1 if unequal else e)
		minus = 1 << e
	else:
		r = _f << 2 if unequal else _f << 1
		s = 1 << (2 - e if unequal else 1 - e)
		plus = 2 if unequal else 1
		minus = 1
	for i in -k if k < 0 else k:
		fits = fits and s <= _SMALL_LIMIT / 10 and r <= _SMALL_LIMIT / 10
		if k > 0:
			s *= 10
		else:
			r *= 10
			plus *= 10
			minus *= 10
	while fits and ((r + plus >= s) if even else (r + plus > s)):
		fits = s <= _SMALL_LIMIT / 10
		s *= 10
		k += 1
	while fits:
		var sum := (r + plus) * 10
		if (sum >= s) if even else (sum > s):
			break
		fits = r <= _SMALL_LIMIT / 10
		r *= 10
		plus *= 10
		minus *= 10
		k -= 1
	if not fits:
		return ""
	var digits := ""
	while true:
		r *= 10
		plus *= 10
		minus *= 10
		var d := 0
		while r >= s:
			r -= s
			d += 1
		var round_down := (r <= minus) if even else (r < minus)
		var round_up := (r + plus >= s) if even else (r + plus > s)
		if not round_down and not round_up:
			digits += str(d)
			continue
		if round_down and round_up:
			# Both ends are in reach: the nearer digit, halfway to even.
			if 2 * r > s or (2 * r == s and d % 2 == 1):
				d += 1
		elif round_up:
			d += 1
		digits += str(d)
		break
	return digits + "e" + str(k - 1)


# The same as _digits_small on big integers (any double or float32).
func _digits_big(even: bool, unequal: bool, k: int) -> String:
	var e := _e
	if e >= 0:
		_big_set(_r, _f)
		_big_shift(_r, e + 2 if unequal else e + 1)
		_big_set(_s, 4 if unequal else 2)
		_big_set(_plus, 1)
		_big_shift(_plus, e + 1 if unequal else e)
		_big_set(_minus, 1)
		_big_shift(_minus, e)
	else:
		_big_set(_r, _f << 2 if unequal else _f << 1)
		_big_set(_s, 1)
		_big_shift(_s, 2 - e if unequal else 1 - e)
		_big_set(_plus, 2 if unequal else 1)
		_big_set(_minus, 1)
	if k >= 0:
		_big_mul_pow10(_s, k)
	else:
		_big_mul_pow10(_r, -k)
		_big_mul_pow10(_plus, -k)
		_big_mul_pow10(_minus, -k)
	while _top_reaches(even):
		_big_mul(_s, 10)
		k += 1
	while true:
		_big_add(_sum, _r, _plus)
		_big_mul(_sum, 10)
		var c := _big_compare(_sum, _s)
		if (c >= 0) if even else (c > 0):
			break
		_big_mul(_r, 10)
		_big_mul(_plus, 10)
		_big_mul(_minus, 10)
		k -= 1
	var digits := ""
	while true:
		_big_mul(_r, 10)
		_big_mul(_plus, 10)
		_big_mul(_minus, 10)
		var d := _big_take_digit(_r, _s)
		var low := _big_compare(_r, _minus)
		var round_down := (low <= 0) if even else (low < 0)
		var round_up := _top_reaches(even)
		if not round_down and not round_up:
			digits += str(d)
			continue
		if round_down and round_up:
			_big_add(_sum, _r, _r)
			var half := _big_compare(_sum, _s)
			if half > 0 or (half == 0 and d % 2 == 1):
				d += 1
		elif round_up:
			d += 1
		digits += str(d)
		break
	return digits + "e" + str(k - 1)


# r + plus reaches s: the interval's top is at or past the next unit.
func _top_reaches(even: bool) -> bool:
	_big_add(_sum, _r, _plus)
	var c := _big_compare(_sum, _s)
	return c >= 0 if even else c > 0


static func _big_set(a: Array, value: int) -> void:
	a.clear()
	while value != 0:
		a.append(value & _LIMB_MASK)
		value >>= _LIMB_BITS


static func _big_shift(a: Array, bits: int) -> void:
	if a.size() == 0:
		return
	var whole := bits / _LIMB_BITS
	var part := bits % _LIMB_BITS
	if part != 0:
		var carry := 0
		for i in a.size():
			var t: int = (a[i] << part) | carry
			a[i] = t & _LIMB_MASK
			carry = t >> _LIMB_BITS
		if carry != 0:
			a.append(carry)
	for i in whole:
		a.push_front(0)


static func _big_mul(a: Array, factor: int) -> void:
	var carry := 0
	for i in a.size():
		var t: int = a[i] * factor + carry
		a[i] = t & _LIMB_MASK
		carry = t >> _LIMB_BITS
	while carry != 0:
		a.append(carry & _LIMB_MASK)
		carry >>= _LIMB_BITS


static func _big_mul_pow10(a: Array, power: int) -> void:
	while power >= 8:
		_big_mul(a, 100000000)
		power -= 8
	while power > 0:
		_big_mul(a, 10)
		power -= 1


# out = a + b (out may be neither a nor b).
static func _big_add(out: Array, a: Array, b: Array) -> void:
	var n: int = a.size() if a.size() > b.size() else b.size()
	out.resize(n)
	var carry := 0
	for i in n:
		var t: int = carry
		if i < a.size():
			t += a[i]
		if i < b.size():
			t += b[i]
		out[i] = t & _LIMB_MASK
		carry = t >> _LIMB_BITS
	if carry != 0:
		out.append(carry)


static func _big_compare(a: Array, b: Array) -> int:
	if a.size() != b.size():
		return -1 if a.size() < b.size() else 1
	for i in range(a.size() - 1, -1, -1):
		if a[i] != b[i]:
			return -1 if a[i] < b[i] else 1
	return 0


# The whole number of times s goes into r (below 10 here), subtracted from r.
static func _big_take_digit(r: Array, s: Array) -> int:
	var d := 0
	while _big_compare(r, s) >= 0:
		var borrow := 0
		for i in r.size():
			var t: int = r[i] - (s[i] if i < s.size() else 0) - borrow
			borrow = 1 if t < 0 else 0
			r[i] = t + (borrow << _LIMB_BITS)
		while r.size() > 0 and r[r.size() - 1] == 0:
			r.pop_back()
		d += 1
	return d


# Digits d1..dn at decimal exponent e of d1, laid out as double-conversion does for Arrow
# (shortest, plain for -6 <= e < 10, else exponential with "e+" / "e-").
static func _layout(negative: bool, digits: String, e: int) -> String:
	var d := digits
	while d.length() > 1 and d.ends_with("0"):
		d = d.substr(0, d.length() - 1)
	var n := d.length()
	var text := "-" if negative else ""
	if e >= -6 and e < 10:
		if e >= n - 1:
			return text + d + _zeros(e - n + 1)
		if e >= 0:
			return text + d.substr(0, e + 1) + "." + d.substr(e + 1)
		return text + "0." + _zeros(-e - 1) + d
	text += d.substr(0, 1)
	if n > 1:
		text += "." + d.substr(1)
	return text + "e" + ("-" if e < 0 else "+") + str(abs(e))


static func _zeros(n: int) -> String:
	var z := ""
	for i in n:
		z += "0"
	return z


# ---------------------------------------------------------------- the drivers' input and output
# (Godot 3's File: the conformance drivers run in godot3-server, Godot 3.2's headless build.)


## The drivers' arguments, the last three of the command line: [SECONDS, SAMPLE_RATE, OUT],
## or [] after a usage line on stderr.
func arguments(driver: String) -> Array:
	var args := OS.get_cmdline_args()
	var n := args.size()
	if n >= 3 and args[n - 3].is_valid_float() and args[n - 2].is_valid_float():
		# str2var reads a double; Godot 3's String.to_float() gives a float32.
		var seconds = str2var(args[n - 3]) * 1.0
		var rate = str2var(args[n - 2]) * 1.0
		if seconds > 0.0 and rate > 0.0:
			return [seconds, rate, args[n - 1]]
	printerr("usage: bash conformance.sh %sSECONDS SAMPLE_RATE (both > 0)" % driver)
	return []


## The text of start.txt beside the driver `script`.
static func start_text(script: Script) -> String:
	var file := File.new()
	var path := script.resource_path.get_base_dir().plus_file("start.txt")
	if file.open(path, File.READ) != OK:
		printerr("cannot read " + path)
		return ""
	var text := file.get_as_text()
	file.close()
	return text


func open(path: String) -> bool:
	_out = File.new()
	return _out.open(path, File.WRITE) == OK


func write(text: String) -> void:
	_out.store_string(text)


func close() -> void:
	_out.close()
