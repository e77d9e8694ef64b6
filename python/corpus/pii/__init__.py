"""PII detection and scrubbing with presidio-analyzer. Importing the package imports nothing heavy:
corpus.pii.params holds the settings; the modules that use presidio import it through corpus.pii._presidio."""

import sys


def _import_presidio_without_torch() -> None:
    """Import presidio_analyzer with transformers and torch hidden, if neither is imported yet.

    presidio's package imports its Hugging Face NLP engine (transformers) and thinc's torch helpers
    at import time, both optional there (``try: import ... except ImportError``): ~9 s per process
    on this machine, paid again by every pool worker, for NLP engines this scrub never uses (its
    recognizers are regexes and phonenumbers; the engine path uses a blank spaCy tokenizer). They
    are hidden only while presidio imports; ``import torch`` works as usual afterwards.
    """
    if "presidio_analyzer" in sys.modules:
        return
    hidden = [name for name in ("transformers", "torch") if name not in sys.modules]
    if len(hidden) < 2:  # one is already loaded: nothing to save, do not make presidio see half of it
        hidden = []
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # makes `import name` raise ImportError
    try:
        import presidio_analyzer  # noqa: F401
    finally:
        for name in hidden:
            del sys.modules[name]
