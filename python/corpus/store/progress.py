"""Progress on long work: a redrawn bar on a terminal, a plain line every few seconds otherwise."""

from __future__ import annotations

import logging
import sys
import time

log = logging.getLogger("corpus")


class Progress:
    def __init__(self, total: int, desc: str, unit: str = "units", *, stream=None, every_s: float = 5.0,
                 scale: float = 1):
        """`scale`: counted units per shown unit (1e6 to count bytes and show MB, with one decimal)."""
        self.total, self.desc, self.unit, self.done, self.scale = total, desc, unit, 0, scale
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.every_s, self.t0 = every_s, time.monotonic()
        self._last = self.t0

    def __enter__(self) -> "Progress":
        return self

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self.tty:
            if now - self._last >= 0.1 or self.done >= self.total:
                self._draw()
                self._last = now
        elif now - self._last >= self.every_s and self.done < self.total:
            log.info("%s: %s %s (%.0fs)", self.desc, self._amounts(), self.unit, now - self.t0)
            self._last = now

    def _draw(self) -> None:
        width = 30
        frac = self.done / self.total if self.total else 1.0
        bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
        self.stream.write(f"\r{self.desc} [{bar}] {self._amounts()} {self.unit} "
                          f"{time.monotonic() - self.t0:.1f}s")
        self.stream.flush()

    def __exit__(self, *exc) -> None:
        if not self.total:  # nothing ran (a skipped phase, every unit reused): "0/0 done" is noise
            return
        if self.tty:
            self._draw()
            self.stream.write("\n")
            self.stream.flush()
        elif exc[0] is None:
            log.info("%s: %s %s done in %.1fs", self.desc, self._amounts(), self.unit, time.monotonic() - self.t0)

    def _amounts(self) -> str:
        if self.scale == 1:
            return f"{self.done}/{self.total}"
        return f"{self.done / self.scale:,.1f}/{self.total / self.scale:,.1f}"
