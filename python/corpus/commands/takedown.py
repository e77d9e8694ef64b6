"""`corpus takedown NAME/VERSION --to NEW`: a new version of a published dataset without the documents its
[takedown] lists (and --list) name, the base version left as it is.

The new version's config is the --config's, which must be the base's recorded config apart from
[takedown] and [dataset] version, with three keys set: [takedown] lists (the base's, the config's and
--list), [shard] first_ids (the base's shard cuts, so a shard no removed document was in keeps its bytes)
and, when the base trained its tokenizer, [tokenize] tokenizer/tokenizer_sha256 pinned to a copy of it
(retrained on the changed train split it would give every document other token ids). It is written
beside the --config, and a `corpus run` of it gives the same bytes."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from corpus.config import Config, config_slice, dump_toml, load_config
from corpus.config.layout import TOKENIZER_FILE
from corpus.engine.runner import read_stage_manifest
from corpus.errors import CorpusError
from corpus.formats.parts import read_parquet
from corpus.stages import config_keys
from corpus.store.atomic import sha256_file, write_bytes

IGNORED = ("takedown", "shard.first_ids", "dataset.version")  # what a takedown version may change


def _without(cfg: dict) -> dict:
    """A recorded config slice without the keys a takedown sets."""
    out = {k: dict(v) if isinstance(v, dict) else v for k, v in cfg.items() if k != "takedown"}
    out.get("dataset", {}).pop("version", None)
    out.get("shard", {}).pop("first_ids", None)
    return out


def base_manifest(config: Config, base: str) -> tuple[Path, dict]:
    """The base version's directory and its shard stage manifest; one-line errors for a wrong name."""
    name, sep, version = base.partition("/")
    if not sep or not name or not version or "/" in version:
        raise CorpusError(f"{base!r}: expected NAME/VERSION (e.g. {config.dataset}/{config.version})")
    if name != config.dataset:
        raise CorpusError(f"{base}: the config {config.path} makes dataset '{config.dataset}', not '{name}'")
    directory = config.artifacts / "corpus" / name / version
    manifest = read_stage_manifest(directory)
    if manifest is None:
        raise CorpusError(f"{directory}: no published version {base} (its shards and _STAGE.json)")
    return directory, manifest


def check_config(config: Config, base: str, manifest: dict) -> None:
    """The config must be the one the base was made with, [takedown] and the version aside."""
    recorded = _without(manifest["params"]["config"])
    mine = _without(config_slice(config.data, config_keys("shard")))
    differ = sorted({*recorded, *mine} - {k for k in recorded if recorded.get(k) == mine.get(k)})
    if differ:
        raise CorpusError(f"{config.path}: its config differs from the one {base} was made with in "
                          f"[{'], ['.join(differ)}]; a takedown changes only [takedown] lists (use the base's config)")


def base_cuts(directory: Path, manifest: dict) -> list[str]:
    """The base's shard cuts: its recorded [shard] first_ids, or the first id of each shard but the first."""
    recorded = manifest["params"]["config"].get("shard", {}).get("first_ids")
    if recorded:
        return list(recorded)
    shards = sorted(p["name"] for p in manifest["parts"] if p["name"].startswith("shard-"))
    return [read_parquet(directory / s, columns=["id"]).column("id")[0].as_py() for s in shards[1:]]


def base_tokenizer(config: Config, base: str) -> Path | None:
    """The tokenizer the base version trained (its unmixed token directory's), or None."""
    root = config.artifacts / "tokens" / base
    found = sorted(p for p in root.glob(f"*/{TOKENIZER_FILE}") if "-mix-" not in p.parent.name)
    if len(found) > 1:
        raise CorpusError(f"{root}: {len(found)} token directories; pin [tokenize] tokenizer in the config")
    return found[0] if found else None


def takedown_config(config: Config, base: str, new: str, lists: tuple[str, ...], out: Path | None) -> Path:
    """Write the new version's config (see the module docstring) and return its path."""
    directory, manifest = base_manifest(config, base)
    if new == base.partition("/")[2]:
        raise CorpusError(f"--to {new}: the new version must differ from the base {base}")
    check_config(config, base, manifest)
    raw = tomllib.loads(Path(config.path).read_text(encoding="utf-8"))
    recorded = manifest["params"]["config"].get("takedown", {}).get("lists", [])
    raw.setdefault("dataset", {})["version"] = new
    raw["takedown"] = {"lists": list(dict.fromkeys([*recorded, *config.data.get("takedown", {}).get("lists", []),
                                                    *lists]))}
    if not raw["takedown"]["lists"]:
        raise CorpusError(f"{config.path}: no takedown list: pass --list SOURCE_ID (a ledger row of role takedown)")
    raw.setdefault("shard", {})["first_ids"] = base_cuts(directory, manifest)
    out = out or config.path.with_name(f"{config.path.stem}-{new}.toml")
    if not config["tokenize"]["tokenizer"] and (tok := base_tokenizer(config, base)) is not None:
        # named as the base's token directory (<stem>-<sha>): the new version's tokens get the same name
        pinned = out.parent / f"{out.stem}.tokenizer" / f"{tok.parent.name.rsplit('-', 1)[0]}.json"
        pinned.parent.mkdir(exist_ok=True)
        shutil.copyfile(tok, pinned)
        if sha256_file(pinned) != sha256_file(tok):
            raise CorpusError(f"{pinned}: the copy of {tok} does not verify")
        raw.setdefault("tokenize", {}).update(tokenizer=str(pinned.resolve()), tokenizer_sha256=sha256_file(pinned))
    write_bytes(out, dump_toml(raw).encode("utf-8"))
    return out


def rewritten(config: Config, base: str) -> dict:
    """Bytes of the new version's shards and token files written anew vs the same bytes as the base's."""
    out = {"written": 0, "reused": 0, "files_written": 0, "files_reused": 0}
    pairs = [(config.dataset_dir, config.artifacts / "corpus" / base)]
    for d in sorted((config.artifacts / "tokens" / config.dataset / config.version).glob("*")):
        pairs.append((d, config.artifacts / "tokens" / base / d.name))
    for new_dir, old_dir in pairs:
        new_m, old_m = read_stage_manifest(new_dir), read_stage_manifest(old_dir)
        old = {p["name"]: p["sha256"] for p in (old_m or {}).get("parts", [])}
        for p in (new_m or {}).get("parts", []):
            if p["name"].endswith((".parquet", ".bin", ".idx")) and not p["name"].startswith("stages/"):
                same = old.get(p["name"]) == p["sha256"]
                out["reused" if same else "written"] += p.get("bytes") or (new_dir / p["name"]).stat().st_size
                out["files_reused" if same else "files_written"] += 1
    return out


def run_takedown(config: Config, base: str, new: str, lists: tuple[str, ...], out: Path | None, workers: int):
    """Write the config, run every stage of the new version; (its config, the run table, the bytes)."""
    from corpus.commands.pipeline import run_all

    path = takedown_config(config, base, new, lists, out)
    new_config = load_config(path, artifacts=config.remote or str(config.artifacts))
    rows = run_all(new_config, workers=workers)
    return new_config, rows, rewritten(new_config, base)
