"""requirements.lock covers pyproject.toml: a dependency added without `make lock` fails here, not in a user's
`make setup` (which installs the lock with --no-deps and would silently miss it)."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from conftest import REPO

PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^ \\]+)")


def pins(path) -> dict[str, tuple[Version, str]]:
    """{canonical name: (version, the pin's text with its hash lines)}."""
    out, name = {}, None
    for line in (REPO / path).read_text().splitlines():
        m = PIN.match(line)
        if m:
            name = canonicalize_name(m.group(1))
            out[name] = (Version(m.group(2)), line)
        elif name and line.strip().startswith("--hash=sha256:"):
            out[name] = (out[name][0], out[name][1] + "\n" + line)
    return out


def requirements(extras=("all", "test")) -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    todo, seen = list(extras), set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for r in map(Requirement, project["optional-dependencies"][extra]):
            if canonicalize_name(r.name) == "corpus":
                todo += sorted(r.extras)
            else:
                reqs.append(r)
    return reqs


def test_every_requirement_is_pinned_with_hashes_in_the_lock():
    locked = pins("requirements.lock")
    assert len(locked) > 50
    for req in requirements():
        name = canonicalize_name(req.name)
        assert name in locked, f"{req} is in pyproject.toml but not in requirements.lock: run `make lock`"
        version, text = locked[name]
        assert req.specifier.contains(version, prereleases=True), f"requirements.lock pins {name}=={version}, " \
                                                                  f"outside pyproject's {req}: run `make lock`"
    for name, (version, text) in locked.items():
        assert "--hash=sha256:" in text, f"{name}: no hash in requirements.lock"


def test_torch_is_the_cpu_build_and_streaming_is_locked_apart():
    locked = pins("requirements.lock")
    assert str(locked["torch"][0]) == "2.13.0+cpu"
    assert not any(n.startswith(("nvidia-", "triton", "torchvision")) for n in locked)  # no CUDA stack
    nodeps = pins("requirements-nodeps.lock")
    assert set(nodeps) == {"mosaicml-streaming"} and "--hash=sha256:" in nodeps["mosaicml-streaming"][1]


def test_installed_packages_are_the_locked_ones():
    """The environment the tests run in is the lock's (make setup), so the golden hashes mean something."""
    locked = pins("requirements.lock") | pins("requirements-nodeps.lock")
    for name in ("numpy", "pyarrow", "tokenizers", "zstandard", "datasketch", "presidio-analyzer", "phonenumbers",
                 "fasttext-predict", "transformers", "megatron-core", "datatrove", "mosaicml-streaming"):
        assert Version(metadata.version(name)) == locked[canonicalize_name(name)][0], name
