"""The filter registry: every module in this package that declares `FILTER = FilterSpec(...)`.

A filter is a name, a parameter dataclass built from its config table ([filters.<name>], minus
`enabled`), and a checker built once per worker whose `check(text)` (or `check(url)`: `reads`) returns
`(rule, value)` or `(rule, value, detail)` for the first rule the document fails, or None. A filter may also annotate every document (language ID adds
`lang` and `lang_score`) and may prepare a resource in the staging directory first (the perplexity
filter trains its model). The default order is the order of the filter tables in
schemas/corpus-config.schema.json; `[filters] order` changes it. Adding a filter is one module here
plus its schema table."""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from corpus.errors import CorpusError
from corpus.config.schemas import load_schema
from corpus.engine.cache import cache_key
from corpus.filters.memo import document_digest
from corpus.filters.languages import known_languages, languages_table_sha256

CONFIG_SCHEMA = "corpus-config.schema.json"


@dataclass(frozen=True)
class FilterSpec:
    name: str
    params: type                                       # a frozen dataclass of the table's keys
    make: Callable[[Any, dict], Any]                   # (params, resources) -> checker
    # (config, staging dir) -> (published file entries, resources for `make`), before any part runs
    prepare: Callable[[Any, Path], tuple[list[dict], dict]] | None = None
    # config -> further stage params that decide the output (e.g. the reference sources' sha256)
    identity: Callable[[Any], dict] | None = None
    columns: dict = field(default_factory=dict)        # annotation columns (name -> pyarrow type)
    defaults: tuple = ()                               # their values when the filter is off
    # params -> every rule name its check can return (what `corpus rejects --rule` accepts)
    rules: Callable[[Any], tuple[str, ...]] = lambda params: ()
    reads: str = "text"                                # what its check() gets: "text", "url" or "doc" (a Doc)
    cleans: bool = False                               # its checker has clean(text): it removes lines first
    # config -> the ledger sources it reads (lists), which fetch fetches when the filter is enabled
    sources: Callable[[Any], list[str]] | None = None
    # its table -> the part of it a document's result depends on (filters.memo's identity; default: all)
    memo_table: Callable[[dict], dict] | None = None
    # its rules differ per language (filters.languages): `make` also gets the table's `languages` overrides
    languages: bool = False


class RuleFunction:
    """A checker over a pure `fn(text, params) -> (rule, value) | None` (the Gopher rule modules). A check
    may also return (rule, value, detail): what matched (the URL filter's list entry)."""

    def __init__(self, fn: Callable[[str, Any], tuple[str, float] | None], params: Any):
        self.fn, self.params = fn, params

    def check(self, text: str) -> tuple[str, float] | None:
        return self.fn(text, self.params)


def rule_function(fn: Callable[[str, Any], tuple[str, float] | None]) -> Callable[[Any, dict], RuleFunction]:
    """A FilterSpec `make` for a pure rule function."""
    return lambda params, resources: RuleFunction(fn, params)


def _tupled(value: Any) -> Any:
    return tuple(_tupled(v) for v in value) if isinstance(value, list) else value


def build_params(spec: FilterSpec, table: dict) -> Any:
    """The filter's parameter dataclass from its config table (lists become tuples: hashable, frozen)."""
    names = {f.name for f in dataclasses.fields(spec.params)}
    return spec.params(**{k: _tupled(v) for k, v in table.items() if k in names})


@functools.cache
def registry() -> dict[str, FilterSpec]:
    """Every registered filter, in the default order (the schema's)."""
    found: dict[str, FilterSpec] = {}
    for mod in pkgutil.iter_modules([str(Path(__file__).parent)]):
        spec = getattr(importlib.import_module(f"{__package__}.{mod.name}"), "FILTER", None)
        if isinstance(spec, FilterSpec):
            found[spec.name] = spec
    order = [k for k in schema_filter_tables() if k in found]
    return {name: found[name] for name in order + sorted(set(found) - set(order))}


def schema_filter_tables() -> dict[str, dict]:
    """The [filters.<name>] tables of the config schema, in their order there."""
    props = load_schema(CONFIG_SCHEMA)["properties"]["filters"]["properties"]
    return {k: v for k, v in props.items() if v.get("type") == "object"}


def filter_order(filters_cfg: dict) -> list[str]:
    names = list(registry())
    order = list(filters_cfg.get("order") or names)
    unknown = [n for n in order if n not in registry()]
    if unknown:
        raise CorpusError(f"filters.order: unknown filter '{unknown[0]}' (known: {', '.join(names)})")
    return order + [n for n in names if n not in order]


def annotation_columns() -> dict:
    out: dict = {}
    for spec in registry().values():
        out.update(spec.columns)
    return out


@dataclass
class Doc:
    """What a checker that reads "doc" sees: the text (as cleaned so far), the URL, the id, and the
    language the lang filter found ("" when it is off or comes later)."""
    text: str
    url: str = ""
    id: str = ""
    lang: str = ""


@dataclass
class Outcome:
    """A document through the chain: its annotations (annotation_columns() order), the first failure
    (filter, rule, value, detail) or None, its text after every cleaning filter, and the lines those
    removed: (filter, rule, line number in the text that filter saw, the line)."""
    annotations: tuple
    failed: tuple[str, str, float, str | None] | None
    text: str
    removed: list = field(default_factory=list)


class FilterChain:
    """The enabled filters of a config in order, built once per worker. `check(text, url, id)` gives the
    document's Outcome. A cleaning filter (`cleans`) removes lines: its `clean(text)` returns the text
    left, [(rule, line number, line)] and None or a (rule, value) that drops the document; the filters
    after it see the cleaned text; a document left empty is dropped with the rule that removed its last
    line."""

    def __init__(self, filters_cfg: dict, resources: dict):
        self.order = filter_order(filters_cfg)
        self.defaults: tuple = ()
        slots: dict[str, int] = {}  # where each annotating filter's values start
        for name, spec in registry().items():
            if spec.columns:
                slots[name] = len(self.defaults)
                self.defaults += tuple(spec.defaults)
        self.lang_slot = slots.get("lang")
        self.checkers = []  # (name, checker, annotation slot or None, its width, what it reads, cleans)
        # per checker: the language filter ran before it (else a Doc's lang is "": not known)
        self.sees_lang: list[bool] = []
        for name in self.order:
            spec = registry()[name]
            if filters_cfg[name]["enabled"]:
                self.sees_lang.append(any(c[0] == "lang" for c in self.checkers))
                params = build_params(spec, filters_cfg[name])
                checker = (spec.make(params, resources, filters_cfg[name].get("languages")) if spec.languages
                           else spec.make(params, resources))
                self.checkers.append((name, checker, slots.get(name), len(spec.columns), spec.reads, spec.cleans))

        # the first checker with rules per language that knows the language, the filters before it, and the
        # languages with word rules: what unknown_language() needs
        first = next((k for k, c in enumerate(self.checkers) if registry()[c[0]].languages and self.sees_lang[k]),
                     None)
        self.before_word_rules = None if first is None else {c[0] for c in self.checkers[:first]}
        self.known_languages = known_languages(filters_cfg)

    def unknown_language(self, outcome: "Outcome") -> str | None:
        """The document's language when it reached a rule set per language that has no entry for it (it
        got the language-agnostic settings: filters.languages), else None."""
        if self.before_word_rules is None:
            return None
        lang = outcome.annotations[self.lang_slot]
        if lang in self.known_languages or (outcome.failed is not None and outcome.failed[0] in self.before_word_rules):
            return None
        return lang

    def memo_identities(self, filters_cfg: dict, resources: dict) -> list[str | None]:
        """Per checker: the identity filters.memo files its results under (its table, or the part of it
        a result depends on, its models, and the tables of the cleaning and annotating filters before it:
        they change what it sees), or None for a cleaning filter (not memoised: cheap, and its result is
        the text itself)."""
        models = {k: v for k, v in sorted(resources.items()) if k.endswith("sha256")}
        seen: list = []
        out: list[str | None] = []
        for name, _, slot, _, _, cleans in self.checkers:
            narrow = registry()[name].memo_table
            table = narrow(filters_cfg[name]) if narrow is not None else filters_cfg[name]
            key = {"filter": name, "table": table, "models": models, "before": seen}
            if registry()[name].languages:  # the derived per-language table decides its results too
                key["languages"] = languages_table_sha256()
            out.append(None if cleans else cache_key(key))
            if cleans or slot is not None:
                seen = seen + [[name, filters_cfg[name]]]
        return out

    def check(self, text: str, url: str = "", doc_id: str = "", memo=None) -> Outcome:
        """The document's Outcome; with a filters.memo.ChainMemo, each memoised filter's result is taken
        from it when known and given to it when computed."""
        return self.check_many([text], [url], [doc_id], memo)[0]

    def check_many(self, texts: list[str], urls: list[str], doc_ids: list[str], memo=None) -> list[Outcome]:
        """check() of each document, one filter at a time over the documents still in: each sees what it
        would see alone (filters run in chain order, a document leaves at its first failure), and a
        text-reading checker with `check_many` gets them all in one call (the perplexity model looks up a
        whole batch's n-grams at once), as does an annotating one with `annotate_many` (the quality
        classifier scores a batch at once)."""
        n = len(texts)
        values = [list(self.defaults) for _ in range(n)]
        removed: list[list] = [[] for _ in range(n)]
        texts = list(texts)
        digests: list[bytes | None] = [None] * n
        failed: list[tuple | None] = [None] * n
        alive = list(range(n))
        for k, (name, checker, slot, width, reads, cleans) in enumerate(self.checkers):
            if not alive:
                break
            if cleans:  # clean(text) -> (text kept, removed lines, None or the rule dropping the document)
                for i in alive:
                    cleaned, lines, fail = checker.clean(texts[i])
                    removed[i] += [(name, rule, count, line) for rule, count, line in lines]
                    if fail is None and lines and not cleaned.strip():
                        fail = (lines[-1][0], float(len(lines)), "every line removed")
                    if fail is not None:
                        failed[i] = _failure(name, fail)
                    elif cleaned != texts[i]:
                        texts[i], digests[i] = cleaned, None
                alive = [i for i in alive if failed[i] is None]
                continue
            results: dict[int, tuple] = {}
            if memo is not None:
                for i in alive:
                    if digests[i] is None:
                        digests[i] = document_digest(texts[i], urls[i], doc_ids[i])
                    found = memo.get(k, digests[i])
                    if found is not None:
                        results[i] = found
            todo = [i for i in alive if i not in results]
            lang_slot = self.lang_slot if self.sees_lang[k] else None
            for i, result in zip(todo, self._apply_many(checker, slot, reads, todo, texts, urls, doc_ids, values,
                                                        lang_slot)):
                results[i] = result
                if memo is not None:
                    memo.put(k, digests[i], *result)
            for i in alive:
                annotation, fail = results[i]
                if annotation is not None:
                    values[i][slot:slot + width] = annotation
                if fail is not None:
                    failed[i] = _failure(name, fail)
            alive = [i for i in alive if failed[i] is None]
        return [Outcome(tuple(values[i]), failed[i], texts[i], removed[i]) for i in range(n)]

    def _apply_many(self, checker, slot, reads, todo, texts, urls, doc_ids, values, lang_slot) -> list[tuple]:
        """(annotation or None, failure or None) of one filter on each document of `todo`."""
        if slot is None and reads == "text" and hasattr(checker, "check_many"):
            return [(None, fail) for fail in checker.check_many([texts[i] for i in todo])]
        if slot is not None and hasattr(checker, "annotate_many"):
            return checker.annotate_many([texts[i] for i in todo])
        return [self._apply(checker, slot, reads, texts[i], urls[i], doc_ids[i], values[i], lang_slot) for i in todo]

    @staticmethod
    def _apply(checker, slot, reads, text, url, doc_id, values, lang_slot) -> tuple:
        """(annotation or None, failure or None) of one filter on the document."""
        if slot is not None:
            return checker.annotate(text)
        if reads == "url":
            return None, checker.check(url)
        if reads == "doc":
            lang = values[lang_slot] if lang_slot is not None else ""
            return None, checker.check(Doc(text, url, doc_id, lang or ""))
        return None, checker.check(text)


def _failure(name: str, fail: tuple) -> tuple[str, str, float, str | None]:
    """(filter, rule, value, detail) of a checker's (rule, value) or (rule, value, detail)."""
    return name, fail[0], fail[1], fail[2] if len(fail) > 2 else None


@functools.cache
def chain_for(filters_json: str, resources_json: str) -> FilterChain:
    """One chain per worker process and configuration (models load once)."""
    return FilterChain(json.loads(filters_json), json.loads(resources_json))


def filter_sources(config) -> list[tuple[str, str]]:
    """(source id, the config key naming it) of every ledger source the enabled filters read (lists, the
    perplexity reference, the quality model or its labelled sources), each once, in filter order."""
    out: dict[str, str] = {}
    for name, spec in registry().items():
        if spec.sources is not None and config["filters"][name]["enabled"]:
            for sid in spec.sources(config):
                out.setdefault(sid, f"filters.{name}")
    ppl = config["filters"]["ppl"]
    if ppl["enabled"]:  # the perplexity reference may be any ledger source
        for sid in ppl["reference"] if isinstance(ppl["reference"], list) else [ppl["reference"]]:
            out.setdefault(sid, "filters.ppl.reference")
    return list(out.items())
