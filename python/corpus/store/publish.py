"""The publisher's last step: after the runner has published an output locally (staging renamed into place),
check that this process is still its root's one writer, then let the root's store copy the output to where
it is published (nothing to copy for a local root; the upload protocol of an s3 root: root.MountedStore).
The writer check is policy and lives here; the store only moves bytes."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

from corpus.store.lock import check_writer
from corpus.store.root import store_of


def push(final: Path, manifest: dict, *, owned: Iterable[str] | None = None,
         hook: Callable[[str], None] | None = None) -> None:
    store_of(final).push(final, manifest, owned=owned, hook=hook, still_writer=lambda: check_writer(final))
