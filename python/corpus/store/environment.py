"""Settings read from environment variables, checked: a wrong value is one line naming the variable."""

from __future__ import annotations

import math
import os

from corpus.errors import CorpusError


def seconds_from_env(name: str, default: float) -> float:
    """A timeout in seconds from `name`, or `default` when it is unset or empty: a positive finite number."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise CorpusError(f"{name}={raw!r}: not a number of seconds above 0 (unset it for the default, {default:g})")
    return value
