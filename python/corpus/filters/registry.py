"""The filter registry: every module in this package that declares `FILTER = FilterSpec(...)`.

A filter is a name, a parameter dataclass built from its config table ([filters.<name>], minus
`enabled`), and two halves:

- *measure*: a checker built once per worker (`make`) whose `measure(text)` (or `measure(url)`, or
  `measure(doc)`: `reads`) returns the document's *signals*, a tuple of the values named by
  `signals(params)` (Gopher's word count and ratios, the LID label and score, the perplexity...). They
  depend on the document and on the filter's measuring settings only: its table minus `thresholds`
  (or what `memo_table` keeps of it), and its models (sha256);
- *decide*: `decide(params, signals, context)`, a pure function of the signals and the thresholds, gives
  `(annotation or None, failure or None)`: the annotation columns' values (language ID adds `lang` and
  `lang_score`) and `(rule, value)` or `(rule, value, detail)` for the first rule the document fails.

filters.memo keeps the signals per document under the measuring identity, so a threshold edit decides
again from stored values and reads no text; `corpus tune` decides from them for other threshold values.
A cleaning filter (`cleans`, C4's line rules) is not split: its `clean(text)` is the measured step (it
changes the text every later filter measures). A filter may prepare a resource in the staging directory
first (the perplexity filter trains its model). The default order is the order of the filter tables in
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
from corpus.filters.languages import known_languages, languages_table_sha256
from corpus.filters.memo import CLEAN_COLUMNS, clean_result, clean_row, document_digest
from corpus.store.atomic import canonical_json

CONFIG_SCHEMA = "corpus-config.schema.json"
JSON_PARAMS = ("languages", "labels")  # table keys whose parameter is their value as canonical JSON


@dataclass(frozen=True)
class FilterSpec:
    name: str
    params: type                                       # a frozen dataclass of the table's keys
    make: Callable[[Any, dict], Any]                   # (params, resources) -> checker, with measure(x)
    # (params, signals, Decided) -> (annotation or None, failure or None); None for a cleaning filter
    decide: Callable[[Any, tuple, Any], tuple] | None = None
    # params -> the names and pyarrow types of the signals measure() returns, in its order
    signals: Callable[[Any], dict] = lambda params: {}
    thresholds: tuple[str, ...] = ()                   # config keys that only decide: not in the measuring identity
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
    # its table -> the part of it the signals depend on (filters.memo's identity; default: all but thresholds)
    memo_table: Callable[[dict], dict] | None = None
    # it measures and decides with the settings of the document's language (filters.languages)
    languages: bool = False

    def measuring_table(self, table: dict) -> dict:
        """The part of the filter's table its signals depend on."""
        if self.memo_table is not None:
            return self.memo_table(table)
        return {k: v for k, v in table.items() if k not in self.thresholds}


class RuleFunction:
    """A checker over a pure `measure(text, params) -> signals` (the Gopher rule modules)."""

    def __init__(self, fn: Callable[[str, Any], tuple], params: Any):
        self.fn, self.params = fn, params

    def measure(self, text: str) -> tuple:
        return self.fn(text, self.params)


def rule_function(fn: Callable[[str, Any], tuple]) -> Callable[[Any, dict], RuleFunction]:
    """A FilterSpec `make` for a pure measuring function."""
    return lambda params, resources: RuleFunction(fn, params)


def rule_decision(fn: Callable[[tuple, Any], tuple | None]) -> Callable[[Any, tuple, Any], tuple]:
    """A FilterSpec `decide` for a pure `fn(signals, params) -> failure | None` that annotates nothing."""
    return lambda params, signals, decided: (None, fn(signals, params))


@dataclass
class Decided:
    """What a decision may read besides the filter's own signals: the document's id (a seeded draw) and
    the language the lang filter decided so far (its default when it is off or comes later)."""
    doc_id: str
    lang: str


def _tupled(value: Any) -> Any:
    return tuple(_tupled(v) for v in value) if isinstance(value, list) else value


def build_params(spec: FilterSpec, table: dict) -> Any:
    """The filter's parameter dataclass from its config table (lists become tuples: hashable, frozen)."""
    names = {f.name for f in dataclasses.fields(spec.params)}
    # a table inside the table ([filters.gopher.languages], lang's labels) as canonical JSON: hashable too
    return spec.params(**{k: canonical_json(v) if k in JSON_PARAMS else _tupled(v)
                          for k, v in table.items() if k in names})


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
    # what the consecutive doc readers of one document compute from its text once and share (the words
    # under a segmentation, the lines: gopher and repetition both split them), dropped with the Doc
    shared: dict = field(default_factory=dict, repr=False, compare=False)


@dataclass
class Outcome:
    """A document through the chain: its annotations (annotation_columns() order), the first failure
    (filter, rule, value, detail) or None, its text after every cleaning filter, and the lines those
    removed: (filter, rule, line number in the text that filter saw, the line)."""
    annotations: tuple
    failed: tuple[str, str, float, str | None] | None
    text: str
    removed: list = field(default_factory=list)


@dataclass(frozen=True)
class Step:
    """One enabled filter of a chain, as its decisions need it: no model, no list (`corpus tune` builds
    these alone)."""
    name: str
    spec: FilterSpec
    params: Any
    slot: int | None   # where its annotation values start (annotation_columns() order), or None
    width: int


@functools.cache
def annotation_slots() -> tuple[tuple, dict[str, int]]:
    """(the annotation columns' values when their filter is off, where each annotating filter's start)."""
    defaults: tuple = ()
    slots: dict[str, int] = {}
    for name, spec in registry().items():
        if spec.columns:
            slots[name] = len(defaults)
            defaults += tuple(spec.defaults)
    return defaults, slots


def chain_steps(filters_cfg: dict) -> list[Step]:
    """The enabled filters of a [filters] table, in their order."""
    _, slots = annotation_slots()
    steps = []
    for name in filter_order(filters_cfg):
        spec = registry()[name]
        if filters_cfg[name]["enabled"]:
            steps.append(Step(name, spec, build_params(spec, filters_cfg[name]), slots.get(name), len(spec.columns)))
    return steps


def decide_document(steps: list[Step], measured: list, doc_id: str) -> tuple[tuple, tuple | None, int]:
    """A document's (annotations, first failure (filter, rule, value, detail) or None, index of the step
    that failed it or len(steps)) from what each step measured: a cleaning step's failure or None, another
    step's signals (None only after a cleaning step that dropped the document). The one place decisions
    are made, for a run and for `corpus tune`."""
    defaults, slots = annotation_slots()
    values = list(defaults)
    lang_slot = slots.get("lang")
    decided = Decided(doc_id, "")
    for k, step in enumerate(steps):
        if step.spec.cleans:
            if measured[k] is not None:
                return tuple(values), _failure(step.name, measured[k]), k
            continue
        decided.lang = (values[lang_slot] if lang_slot is not None else "") or ""
        annotation, fail = step.spec.decide(step.params, measured[k], decided)
        if annotation is not None:
            values[step.slot:step.slot + step.width] = annotation
        if fail is not None:
            return tuple(values), _failure(step.name, fail), k
    return tuple(values), None, len(steps)


@dataclass
class Measured:
    """One document through a chain's measuring half: its text after each cleaning step, the lines each
    removed, and per step its signals (or a cleaning step's failure)."""
    text: str
    removed: list = field(default_factory=list)   # per step: [(filter, rule, line number, line)]
    values: list = field(default_factory=list)    # per step: signals, or a cleaning step's failure or None
    dropped_by_cleaning: bool = False


class FilterChain:
    """The enabled filters of a config in order, built once per worker. `check_many(texts, urls, ids)`
    gives each document's Outcome in two halves: `measure_many` takes every step's signals of every
    document (from filters.memo when known), whatever an earlier step decides, so that any threshold
    can be decided again from them (`corpus tune`); `decide_document` then applies the thresholds in
    chain order, a document leaving at its first failure. A cleaning filter (`cleans`) removes lines: its
    `clean(text)` returns the text left, [(rule, line number, line)] and None or a (rule, value) that
    drops the document; the filters after it measure the cleaned text (none measures a document it
    dropped); a document left empty is dropped with the rule that removed its last line."""

    def __init__(self, filters_cfg: dict, resources: dict):
        self.order = filter_order(filters_cfg)
        self.defaults, slots = annotation_slots()
        self.lang_slot = slots.get("lang")
        self.steps = chain_steps(filters_cfg)
        self.resources = resources
        # the filters before the first rule set per language that sees the lang filter's language, and the
        # languages with word rules: what unknown_language() needs
        names = [s.name for s in self.steps]
        first = next((k for k, s in enumerate(self.steps) if s.spec.languages and "lang" in names[:k]), None)
        self.before_word_rules = None if first is None else set(names[:first])
        self.known_languages = known_languages(filters_cfg)

    @functools.cached_property
    def checkers(self) -> list:
        """Each step's checker, its models loaded when a document is first measured (a run deciding from
        stored signals loads none)."""
        return [s.spec.make(s.params, self.resources) for s in self.steps]

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
        """Per step: the identity filters.memo files its signals under (the measuring part of its table:
        not its thresholds; the models; and what the cleaning and annotating filters before it measure
        by: they change what it sees); a cleaning filter's result is filed under its whole table (every key
        of it changes the text)."""
        models = {k: v for k, v in sorted(resources.items()) if k.endswith("sha256")}
        seen: list = []
        out: list[str | None] = []
        for step in self.steps:
            table = filters_cfg[step.name]
            measuring = step.spec.measuring_table(table)
            key = {"filter": step.name, "cleans" if step.spec.cleans else "signals": measuring, "models": models,
                   "before": seen}
            if step.spec.languages:  # the derived per-language table decides its signals too
                key["languages"] = languages_table_sha256()
            out.append(cache_key(key))
            if step.spec.cleans:
                seen = seen + [[step.name, table]]
            elif step.slot is not None:
                seen = seen + [[step.name, measuring]]
        return out

    def signal_columns(self) -> list[dict]:
        """Per step: the names and pyarrow types of its signals, or of a cleaning step's result."""
        return [CLEAN_COLUMNS if s.spec.cleans else s.spec.signals(s.params) for s in self.steps]

    def check(self, text: str, url: str = "", doc_id: str = "", memo=None) -> Outcome:
        """The document's Outcome; with a filters.memo.ChainMemo, each step's signals are taken from it
        when known and given to it when measured."""
        return self.check_many([text], [url], [doc_id], memo)[0]

    def check_many(self, texts: list[str], urls: list[str], doc_ids: list[str], memo=None,
                   measured: list | None = None) -> list[Outcome]:
        """check() of each document; `measured`, when a list, gets each document's Measured."""
        found = self.measure_many(texts, urls, doc_ids, memo)
        if measured is not None:
            measured.extend(found)
        out = []
        for m, doc_id in zip(found, doc_ids):
            values, failed, at = decide_document(self.steps, m.values, doc_id)
            # the lines removed by the cleaning steps the document reached (a later one's never show)
            removed = [line for k in range(min(at + 1, len(self.steps))) for line in m.removed[k]]
            out.append(Outcome(values, failed, m.text, removed))
        return out

    @property
    def cleans(self) -> bool:
        return any(s.spec.cleans for s in self.steps)

    def decide_many(self, texts: list[str], measured: list, doc_ids: list[str]) -> list[Outcome]:
        """check_many's Outcomes from what each step measured of each document (filters.signals' stored
        values), for a chain without cleaning filters: the texts are as given and no line is removed."""
        assert not self.cleans, "a cleaning filter's text is not in its stored values"
        out = []
        for text, values, doc_id in zip(texts, measured, doc_ids):
            annotations, failed, _ = decide_document(self.steps, values, doc_id)
            out.append(Outcome(annotations, failed, text, []))
        return out

    def measure_many(self, texts: list[str], urls: list[str], doc_ids: list[str], memo=None) -> list[Measured]:
        """Every step's signals of each document, one step at a time over the documents (a text-reading
        checker with `measure_many` gets them all in one call: the perplexity model looks up a whole
        batch's n-grams at once, the quality classifier scores a batch at once)."""
        n = len(texts)
        docs = [Measured(t, [[] for _ in self.steps], [None] * len(self.steps)) for t in texts]
        digests: list[bytes | None] = [None] * n
        langs = [""] * n  # what a Doc reader sees: no language until the lang filter has measured one
        done: set[int] = set()  # steps measured with the doc readers before them (_measure_docs)
        for k, (step, checker) in enumerate(zip(self.steps, self.checkers)):
            alive = [i for i in range(n) if not docs[i].dropped_by_cleaning]
            if step.spec.cleans:  # clean(text) -> (text kept, removed lines, None or the rule dropping it)
                for i in alive:
                    cleaned, lines, fail = self._clean(k, checker, docs[i].text, urls[i], doc_ids[i], digests, i, memo,
                                                       langs[i] if step.spec.languages else None)
                    docs[i].removed[k] = [(step.name, rule, count, line) for rule, count, line in lines]
                    if fail is None and lines and not cleaned.strip():
                        fail = (lines[-1][0], float(len(lines)), "every line removed")
                    if fail is not None:
                        docs[i].values[k], docs[i].dropped_by_cleaning = fail, True
                    elif cleaned != docs[i].text:
                        docs[i].text, digests[i] = cleaned, None
                continue
            if k in done:
                continue
            group = self._doc_readers(k)
            if len(group) > 1:  # document by document, so the steps share what they split its text into
                self._measure_docs(group, alive, docs, urls, doc_ids, langs, digests, memo)
                done.update(group)
                continue
            todo = alive
            if memo is not None:
                todo = []
                for i in alive:
                    if digests[i] is None:
                        digests[i] = document_digest(docs[i].text, urls[i], doc_ids[i])
                    known = memo.get(k, digests[i])
                    if known is None:
                        todo.append(i)
                    else:
                        docs[i].values[k] = known
            for i, signals in zip(todo, self._measure(checker, step, todo, docs, urls, doc_ids, langs)):
                docs[i].values[k] = signals
                if memo is not None:
                    memo.put(k, digests[i], signals)
            if step.name == "lang":  # a later Doc reader measures by the label the model gave
                for i in alive:
                    langs[i] = docs[i].values[k][0]
        return docs

    def _doc_readers(self, k: int) -> list[int]:
        """Step k and the steps right after it that also read a "doc" (none cleaning): measured together."""
        group = []
        while k < len(self.steps) and self.steps[k].spec.reads == "doc" and not self.steps[k].spec.cleans:
            group.append(k)
            k += 1
        return group

    def _measure_docs(self, group: list[int], alive: list[int], docs: list[Measured], urls, doc_ids, langs,
                      digests: list, memo) -> None:
        """The group's steps one document at a time, on one Doc: what one splits the text into, the next
        takes from Doc.shared (held for one document, not a batch). Memo as in measure_many."""
        for i in alive:
            doc = Doc(docs[i].text, urls[i], doc_ids[i], langs[i])
            for k in group:
                if memo is not None:
                    if digests[i] is None:
                        digests[i] = document_digest(docs[i].text, urls[i], doc_ids[i])
                    known = memo.get(k, digests[i])
                    if known is not None:
                        docs[i].values[k] = known
                        continue
                docs[i].values[k] = signals = self.checkers[k].measure(doc)
                if memo is not None:
                    memo.put(k, digests[i], signals)

    def _clean(self, k: int, checker, text: str, url: str, doc_id: str, digests: list, i: int, memo,
               lang: str | None) -> tuple:
        """A cleaning step's clean(text) (clean(text, lang) for one set per language), from the memo when
        known."""
        clean = checker.clean if lang is None else functools.partial(checker.clean, lang=lang)
        if memo is None:
            return clean(text)
        if digests[i] is None:
            digests[i] = document_digest(text, url, doc_id)
        known = memo.get(k, digests[i])
        if known is not None:
            return clean_result(text, known)
        cleaned, lines, fail = clean(text)
        memo.put(k, digests[i], clean_row(text, cleaned, lines, fail))
        return cleaned, lines, fail

    def _measure(self, checker, step: Step, todo: list[int], docs: list[Measured], urls, doc_ids, langs) -> list:
        reads = step.spec.reads
        if reads == "text" and hasattr(checker, "measure_many"):
            return checker.measure_many([docs[i].text for i in todo])
        if reads == "url":
            return [checker.measure(urls[i]) for i in todo]
        if reads == "doc":
            return [checker.measure(Doc(docs[i].text, urls[i], doc_ids[i], langs[i])) for i in todo]
        return [checker.measure(docs[i].text) for i in todo]


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
