"""Command-line argument types shared by the commands: bad values become argparse errors."""

from __future__ import annotations

import argparse
import math

#: Upper bound for any numeric option: far beyond any sensible run, far below overflow.
LARGEST = 1e9


def finite_float(text: str) -> float:
    """A finite number within +-LARGEST."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value) or abs(value) > LARGEST:
        raise argparse.ArgumentTypeError(f"must be a number within +-{LARGEST:g}, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """A number above 0 and at most LARGEST."""
    value = finite_float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """A whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {text!r}")
    return value
