"""Imported before presidio_analyzer by every module that uses it: presidio, with transformers and torch
hidden while it imports (corpus.pii._import_presidio_without_torch)."""

from corpus.pii import _import_presidio_without_torch

_import_presidio_without_torch()
