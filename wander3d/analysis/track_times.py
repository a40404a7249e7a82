"""A tracks file's time column as seconds: numbers in a unit, or date-times in common forms.

Numbers are seconds unless `--time-unit` says ms, us or ns; epoch numbers in milliseconds,
microseconds or nanoseconds (values that would be years 2000 to 2286 in that unit) are read
so and said. Date-times are ISO 8601 (as Movebank, AIS and most loggers write them: `2020-05-01
06:00:00.000`, `2020-05-01T06:00:00Z`, with an offset or without; without one they are taken
as UTC) or one of DATE_FORMATS, found from the first rows; a form that reads both day-first
and month-first is refused, asking for `--time-format`. Times become seconds after the first
row's, float64, so epoch values keep their sub-millisecond digits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .track_source import as_numpy

Array = np.ndarray

#: Seconds per unit of `--time-unit`.
TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
#: Epoch numbers in these units span years 2000 to 2286: [low, high) per unit.
_EPOCH_RANGES = (("ms", 9.46e11, 1e13), ("us", 9.46e14, 1e16), ("ns", 9.46e17, 1e19))
#: Date-time forms tried after ISO 8601 (strptime; fractional seconds after %S are read too).
DATE_FORMATS = (
    "%Y/%m/%d %H:%M:%S",
    "%Y/%m/%d %H:%M",
    "%d/%m/%Y %H:%M:%S",
    "%m/%d/%Y %H:%M:%S",
    "%d/%m/%Y %H:%M",
    "%m/%d/%Y %H:%M",
    "%d.%m.%Y %H:%M:%S",
    "%d.%m.%Y %H:%M",
    "%d-%m-%Y %H:%M:%S",
    "%m-%d-%Y %H:%M:%S",
    "%Y%m%d %H%M%S",
    "%Y%m%dT%H%M%S",
    "%d %b %Y %H:%M:%S",
    "%b %d %Y %H:%M:%S",
)
_FRACTION = r"[.,](\d+)$"


class TimeError(ValueError):
    """A time value that cannot be read: `row` (0-based in the values given, or None) and a
    message without the place; `option` names the `TrackOptions` field that helps."""

    def __init__(self, message: str, row: int | None, option: str | None = None) -> None:
        self.row = row
        self.option = option
        super().__init__(message)


@dataclass
class TimeReader:
    """Reads a time column's batches as seconds after the first value read.

    kind: "number" or "date"; unit: seconds per number (numbers); form: None for ISO 8601,
    else a strptime format (dates); note: what was assumed, in words, or "".
    """

    name: str
    kind: str
    unit: float = 1.0
    form: str | None = None
    note: str = ""
    _origin: float | int | None = None

    def seconds(self, column: Any) -> Array:
        """A batch's column as float64 seconds after the first value ever read; TimeError
        naming the first value that is not a time."""
        if self.kind == "number":
            raw = _numbers(column, self.name)
            if self._origin is None:
                finite = raw[np.isfinite(raw)]
                self._origin = float(finite[0]) if len(finite) else None
            return (raw - (self._origin or 0.0)) * self.unit
        # Nanoseconds since 1970 are integers beyond float64's 2^53: subtract first.
        ns, missing = _nanoseconds(column, self.form, self.name)
        if self._origin is None and (~missing).any():
            self._origin = int(ns[np.argmin(missing)])
        seconds = (ns - np.int64(self._origin or 0)).astype(np.float64) * 1e-9
        seconds[missing] = np.nan
        return seconds


def time_reader(
    name: str, head: list[str | None], unit: str | None, form: str | None
) -> TimeReader:
    """How to read the column `name` from its first values `head` (text, None for empty):
    numbers (in `unit`, or an epoch unit found from their size), or date-times (in `form`, or
    the form found). TimeError, naming the option that helps, for values of neither kind or
    of an ambiguous form."""
    values = [v.strip() for v in head if v is not None and v.strip()]
    if form is None and all(_is_number(v) for v in values):
        if unit is not None:
            return TimeReader(name, "number", TIME_UNITS[unit])
        numbers = np.array([float(v) for v in values]) if values else np.zeros(0)
        for epoch_unit, low, high in _EPOCH_RANGES:
            if len(numbers) and ((numbers >= low) & (numbers < high)).all():
                return TimeReader(
                    name,
                    "number",
                    TIME_UNITS[epoch_unit],
                    note=f"{name} read as epoch {_UNIT_WORDS[epoch_unit]} (values near "
                    f"{numbers[0]:.4g}; --time-unit s reads them as seconds)",
                )
        return TimeReader(name, "number", 1.0)
    if unit is not None:
        raise TimeError(f"{name} is {values[0]!r}, not a number (a time unit is for numbers)", 0)
    if form is not None:
        return TimeReader(name, "date", form=form)
    return _date_reader(name, values)


_UNIT_WORDS = {"ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text)) or text.lower() in ("nan", "inf", "-inf")
    except ValueError:
        return False


def _date_reader(name: str, values: list[str]) -> TimeReader:
    import pyarrow as pa

    if not values:
        return TimeReader(name, "date")
    column = pa.array(values, pa.string())
    try:
        _nanoseconds(column, None, name)
        return TimeReader(name, "date")
    except TimeError:
        pass
    fits = []
    for candidate in DATE_FORMATS:
        try:
            _nanoseconds(column, candidate, name)
        except TimeError:
            continue
        fits.append(candidate)
    if not fits:
        raise TimeError(
            f"{name} is {values[0]!r}: not a number, nor a date-time in a form recognised "
            "(ISO 8601 such as 2020-05-01 06:00:00, or 2020/05/01 06:00:00, "
            "01.05.2020 06:00:00, ...); give its form, e.g. '%d/%m/%Y %H:%M:%S',",
            0,
            "time_format",
        )
    day_first = [f for f in fits if f.startswith("%d")]
    month_first = [f for f in fits if f.startswith(("%m", "%b"))]
    if day_first and month_first:
        raise TimeError(
            f"{name} values such as {values[0]!r} read both day-first and month-first; "
            f"give the form, e.g. {day_first[0]!r},",
            0,
            "time_format",
        )
    return TimeReader(name, "date", form=fits[0], note=f"{name} read as {fits[0]!r}")


def _numbers(column: Any, name: str) -> Array:
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        values = as_numpy(pc.cast(column, pa.float64()), np.float64, math.nan)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        texts = column.to_pylist()
        for row, value in enumerate(texts):
            if value is not None and not _is_number(str(value)):
                raise TimeError(f"{name} is {value!r}, not a number", row) from None
        raise TimeError(f"{name} is not numeric ({column.type})", None) from None
    return np.asarray(values, dtype=np.float64)


def _nanoseconds(column: Any, form: str | None, name: str) -> tuple[Array, Array]:
    """Date-times as int64 nanoseconds since 1970 and where they are empty (bool); TimeError
    naming the first value that is not one."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_timestamp(column.type):
        stamps = column
    elif not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        raise TimeError(f"{name} holds {column.type}, not times", None)
    elif form is None:
        stamps = None
        for unit in (pa.timestamp("ns", tz="UTC"), pa.timestamp("ns")):
            try:
                stamps = pc.cast(column, unit)
                break
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                continue
        if stamps is None:
            _first_bad(column, None, name)
    else:
        stamps = _strptime(column, form, name)
    assert stamps is not None
    ns = pc.cast(pc.cast(stamps, pa.timestamp("ns")), pa.int64())
    missing = np.asarray(pc.is_null(ns)) if ns.null_count else np.zeros(len(ns), dtype=bool)
    return as_numpy(ns, np.int64, 0), missing


def _strptime(column: Any, form: str, name: str) -> Any:
    """`form` with fractional seconds after its last field read too (strptime has no %f)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    whole = pc.replace_substring_regex(pc.utf8_trim_whitespace(column), _FRACTION, "")
    try:
        stamps = pc.strptime(whole, format=form.replace("%f", ""), unit="ns", error_is_null=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        _first_bad(column, form, name)
    bad = pc.and_(pc.is_null(stamps), pc.is_valid(column))
    if pc.any(bad).as_py():
        row = int(np.argmax(np.asarray(bad)))
        raise TimeError(_not_a_time(name, column[row].as_py(), form), row, "time_format")
    digits = pc.extract_regex(pc.utf8_trim_whitespace(column), r"[.,](?P<f>\d+)$")
    text = pc.fill_null(pc.struct_field(digits, [0]), "0")
    seconds = pc.cast(pc.binary_join_element_wise("0.", text, ""), pa.float64())
    fraction = pc.cast(pc.round(pc.multiply(seconds, 1e9)), pa.int64())
    return pc.cast(pc.add(pc.cast(stamps, pa.int64()), fraction), pa.timestamp("ns"))


def _first_bad(column: Any, form: str | None, name: str) -> None:
    """TimeError naming the first value of `column` that `form` (None: ISO) cannot read."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for row, value in enumerate(column.to_pylist()):
        if value is None:
            continue
        one = pa.array([value], pa.string())
        try:
            if form is None:
                try:
                    pc.cast(one, pa.timestamp("ns", tz="UTC"))
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                    pc.cast(one, pa.timestamp("ns"))
            else:
                pc.strptime(one, format=form, unit="ns")
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise TimeError(_not_a_time(name, value, form), row, "time_format") from None
    raise TimeError(f"{name} is not a date-time column", None, "time_format")


def _not_a_time(name: str, value: Any, form: str | None) -> str:
    if form is None:
        return f"{name} is {value!r}, not an ISO 8601 date-time such as 2020-05-01 06:00:00"
    return f"{name} is {value!r}, not a date-time of the form {form!r}"


__all__ = ["DATE_FORMATS", "TIME_UNITS", "TimeError", "TimeReader", "time_reader"]
