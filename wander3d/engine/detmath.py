"""sin, cos, atan2, asin and exp built from + - * / sqrt floor and comparisons only.

Math libraries differ in the last bit of these functions (glibc, musl, MSVC, V8, .NET), so a
run that calls them would differ between the engine and its ports (wander3d port). These are
the engine's own, written so that every language computes them bit for bit alike: IEEE-754
double arithmetic in a fixed evaluation order, no fused multiply-add, no table of the platform,
no bit twiddling. They follow fdlibm's algorithms and coefficients (Sun Microsystems, 1993),
with the word-level tests replaced by comparisons of values; each is within a few ulp of the
exact result (tests/test_engine_detmath.py measures it against numpy). The ports carry a line
by line translation (wander3d/port/*/); docs/ports.md says what must not change.

numba caches the compiled kernel with these functions inlined and refreshes that cache when
kernel.py changes, not when this file does: after editing here, touch kernel.py (or clear its
__pycache__) so the kernel recompiles.
"""

from __future__ import annotations

import math

import numba

_jit = numba.njit(cache=True, fastmath=False, error_model="numpy")

# pi/2 in three parts: the first two have trailing zero bits, so n * part is exact for the
# |n| < 2^20 quarter turns the reduction handles exactly (fdlibm's pio2_1, pio2_2, pio2_2t).
_PIO2_1 = 1.57079632673412561417e00
_PIO2_2 = 6.07710050630396597660e-11
_PIO2_2T = 2.02226624879595063154e-21
_INV_PIO2 = 6.36619772367581382433e-01
_PIO4 = 7.85398163397448278999e-01

_S1 = -1.66666666666666324348e-01
_S2 = 8.33333333332248946124e-03
_S3 = -1.98412698298579493134e-04
_S4 = 2.75573137070700676789e-06
_S5 = -2.50507602534068634195e-08
_S6 = 1.58969099521155010221e-10

_C1 = 4.16666666666666019037e-02
_C2 = -1.38888888888741095749e-03
_C3 = 2.48015872894767294178e-05
_C4 = -2.75573143513906633035e-07
_C5 = 2.08757232129817482790e-09
_C6 = -1.13596475577881948265e-11


@_jit
def _sin_kernel(x: float) -> float:
    """sin on [-pi/4, pi/4]."""
    z = x * x
    w = z * z
    r = _S2 + z * (_S3 + z * _S4) + z * w * (_S5 + z * _S6)
    return x + z * x * (_S1 + z * r)


@_jit
def _cos_kernel(x: float) -> float:
    """cos on [-pi/4, pi/4]."""
    z = x * x
    w = z * z
    r = z * (_C1 + z * (_C2 + z * _C3)) + w * w * (_C4 + z * (_C5 + z * _C6))
    hz = 0.5 * z
    w = 1.0 - hz
    return w + (((1.0 - w) - hz) + z * r)


@_jit
def _reduce(x: float) -> tuple[float, float]:
    """(r, q): x = r + n pi/2 with |r| <= about pi/4 and q = n mod 4 in {0, 1, 2, 3}."""
    if -_PIO4 <= x <= _PIO4:
        return x, 0.0
    n = math.floor(x * _INV_PIO2 + 0.5)
    t = x - n * _PIO2_1
    w = n * _PIO2_2
    r = t - w
    w = n * _PIO2_2T - ((t - r) - w)
    return r - w, n - 4.0 * math.floor(n * 0.25)


@_jit
def sin(x: float) -> float:
    """sin(x), x in radians; within 2 ulp for |x| < 2^20 pi/2, NaN for infinities and NaN."""
    r, q = _reduce(x)
    if q == 0.0:
        return _sin_kernel(r)
    if q == 1.0:
        return _cos_kernel(r)
    if q == 2.0:
        return -_sin_kernel(r)
    return -_cos_kernel(r)


@_jit
def cos(x: float) -> float:
    """cos(x), x in radians; within 2 ulp for |x| < 2^20 pi/2, NaN for infinities and NaN."""
    r, q = _reduce(x)
    if q == 0.0:
        return _cos_kernel(r)
    if q == 1.0:
        return -_sin_kernel(r)
    if q == 2.0:
        return -_cos_kernel(r)
    return _sin_kernel(r)


@_jit
def sincos(x: float) -> tuple[float, float]:
    """(sin(x), cos(x)) sharing one reduction: bit for bit `sin` and `cos`."""
    r, q = _reduce(x)
    s = _sin_kernel(r)
    c = _cos_kernel(r)
    if q == 0.0:
        return s, c
    if q == 1.0:
        return c, -s
    if q == 2.0:
        return -s, -c
    return -c, s


_ATAN_HI0 = 4.63647609000806093515e-01  # atan(0.5), atan(1), atan(1.5), atan(inf), high parts
_ATAN_HI1 = 7.85398163397448278999e-01
_ATAN_HI2 = 9.82793723247329054082e-01
_ATAN_HI3 = 1.57079632679489655800e00
_ATAN_LO0 = 2.26987774529616870924e-17  # and their low parts
_ATAN_LO1 = 3.06161699786838301793e-17
_ATAN_LO2 = 1.39033110312309984516e-17
_ATAN_LO3 = 6.12323399573676603587e-17
_AT0 = 3.33333333333329318027e-01
_AT1 = -1.99999999998764832476e-01
_AT2 = 1.42857142725034663711e-01
_AT3 = -1.11111104054623557880e-01
_AT4 = 9.09088713343650656196e-02
_AT5 = -7.69187620504482999495e-02
_AT6 = 6.66107313738753120669e-02
_AT7 = -5.83357013379057348645e-02
_AT8 = 4.97687799461593236017e-02
_AT9 = -3.65315727442169155270e-02
_AT10 = 1.62858201153657823623e-02


@_jit
def _atan_positive(a: float) -> float:
    """atan(a) for a >= 0 (or NaN)."""
    if a != a:
        return a
    if a >= 7.378697629483821e19:  # 2^66: atan is pi/2 to the last bit
        return _ATAN_HI3 + _ATAN_LO3
    if a < 0.4375:
        if a < 7.450580596923828e-09:  # 2^-27: atan(a) = a to the last bit
            return a
        part = -1
        x = a
    elif a < 0.6875:
        part = 0
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
    z = x * x
    w = z * z
    s1 = z * (_AT0 + w * (_AT2 + w * (_AT4 + w * (_AT6 + w * (_AT8 + w * _AT10)))))
    s2 = w * (_AT1 + w * (_AT3 + w * (_AT5 + w * (_AT7 + w * _AT9))))
    if part < 0:
        return x - x * (s1 + s2)
    if part == 0:
        hi, lo = _ATAN_HI0, _ATAN_LO0
    elif part == 1:
        hi, lo = _ATAN_HI1, _ATAN_LO1
    elif part == 2:
        hi, lo = _ATAN_HI2, _ATAN_LO2
    else:
        hi, lo = _ATAN_HI3, _ATAN_LO3
    return hi - ((x * (s1 + s2) - lo) - x)


_PI = 3.1415926535897931160e00
_PI_LO = 1.2246467991473531772e-16
_PIO2_HI = 1.57079632679489655800e00
_PIO2_LO = 6.12323399573676603587e-17


@_jit
def atan2(y: float, x: float) -> float:
    """The angle of (x, y) in [-pi, pi], as math.atan2 (signed zeros and infinities included);
    within 2 ulp."""
    if x != x or y != y:
        return x + y
    negative_y = y < 0.0 or (y == 0.0 and math.copysign(1.0, y) < 0.0)
    negative_x = x < 0.0 or (x == 0.0 and math.copysign(1.0, x) < 0.0)
    ay = -y if negative_y else y
    ax = -x if negative_x else x
    if ay == 0.0:
        z = _PI if negative_x else 0.0
    elif ax == 0.0:
        z = _PIO2_HI
    elif ax == math.inf:
        if ay == math.inf:
            z = 0.75 * _PI if negative_x else 0.25 * _PI
        else:
            z = _PI if negative_x else 0.0
    elif ay == math.inf:
        z = _PIO2_HI
    else:
        ratio = ay / ax
        if ratio > 1.152921504606847e18:  # 2^60: |y| dwarfs |x|
            z = _PIO2_HI + 0.5 * _PI_LO
        elif negative_x and ratio < 8.673617379884035e-19:  # 2^-60: y vanishes beside x
            z = _PI
        else:
            z = _atan_positive(ratio)
            if negative_x:
                z = _PI - (z - _PI_LO)
    return -z if negative_y else z


_PS0 = 1.66666666666666657415e-01
_PS1 = -3.25565818622400915405e-01
_PS2 = 2.01212532134862925881e-01
_PS3 = -4.00555345006794114027e-02
_PS4 = 7.91534994289814532176e-04
_PS5 = 3.47933107596021167570e-05
_QS1 = -2.40339491173441421878e00
_QS2 = 2.02094576023350569471e00
_QS3 = -6.88283971605453293030e-01
_QS4 = 7.70381505559019352791e-02
_SPLIT = 134217729.0  # 2^27 + 1: Veltkamp's split of a double into 26 + 27 bits


@_jit
def asin(x: float) -> float:
    """asin(x) in [-pi/2, pi/2] for x in [-1, 1] (NaN outside); within 2 ulp."""
    a = -x if x < 0.0 else x
    if a >= 1.0:
        if a == 1.0:
            return x * _PIO2_HI + x * _PIO2_LO
        return (x - x) / (x - x)
    if a < 0.5:
        if a < 7.450580596923828e-09:  # 2^-27
            return x
        t = x * x
        p = t * (_PS0 + t * (_PS1 + t * (_PS2 + t * (_PS3 + t * (_PS4 + t * _PS5)))))
        q = 1.0 + t * (_QS1 + t * (_QS2 + t * (_QS3 + t * _QS4)))
        return x + x * (p / q)
    w = 1.0 - a
    t = w * 0.5
    p = t * (_PS0 + t * (_PS1 + t * (_PS2 + t * (_PS3 + t * (_PS4 + t * _PS5)))))
    q = 1.0 + t * (_QS1 + t * (_QS2 + t * (_QS3 + t * _QS4)))
    s = math.sqrt(t)
    if a >= 0.975:
        r = _PIO2_HI - (2.0 * (s + s * (p / q)) - _PIO2_LO)
    else:
        # s's leading 26 bits (fdlibm zeroes its low word), so that w * w is exact.
        c = _SPLIT * s
        w = c - (c - s)
        c = (t - w * w) / (s + w)
        p = 2.0 * s * (p / q) - (_PIO2_LO - 2.0 * c)
        q = _PIO4 - 2.0 * w
        r = _PIO4 - (p - q)
    return -r if x < 0.0 else r


_LN2_HI = 6.93147180369123816490e-01  # trailing zero bits: k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e00
_HALF_LN2 = 0.34657359027997264
_P1 = 1.66666666666666019037e-01
_P2 = -2.77777777770155933842e-03
_P3 = 6.61375632143793436117e-05
_P4 = -1.65339022054652515390e-06
_P5 = 4.13813679705723846039e-08


@_jit
def pow2(k: float) -> float:
    """2^k for a whole number k in [-1074, 1023], exactly, by squaring exact powers of two."""
    base = 2.0
    if k < 0.0:
        base = 0.5
        k = -k
    result = 1.0
    while k > 0.0:
        half = math.floor(k * 0.5)
        if k - 2.0 * half == 1.0:
            result *= base
        base *= base
        k = half
    return result


@_jit
def exp(x: float) -> float:
    """e^x; within 2 ulp. 0 below -745.2, infinity above 709.8, NaN for NaN."""
    if x != x:
        return x
    if x > 709.782712893384:
        return math.inf
    if x < -745.1332191019411:
        return 0.0
    a = -x if x < 0.0 else x
    if a < 3.725290298461914e-09:  # 2^-28: 1 + x to the last bit
        return 1.0 + x
    if a <= _HALF_LN2:
        t = x * x
        c = x - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
        return 1.0 - ((x * c) / (c - 2.0) - x)
    k = math.floor(x * _INV_LN2 + 0.5)
    hi = x - k * _LN2_HI
    lo = k * _LN2_LO
    r = hi - lo
    t = r * r
    c = r - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
    y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
    if k < -1021.0:
        # 2^k alone would be subnormal: scale in two exact steps before the final rounding.
        return y * pow2(k + 1000.0) * pow2(-1000.0)
    if k > 1023.0:
        return y * 2.0 * pow2(k - 1.0)
    return y * pow2(k)
