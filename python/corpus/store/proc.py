"""Whether a process on this host still runs: the rule the pool workers (is my parent gone?), the writer
lock and the s3 lease (is the holder gone?) share."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """Whether process `pid` runs. A zombie — killed but not yet reaped by its parent — does not, though
    `kill(pid, 0)` still answers for it; a process of another user does."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
            return True
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
