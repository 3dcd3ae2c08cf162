"""Benchmark configuration files (TOML or YAML) read and checked into
:class:`~trecbench.benchmarking.settings.BenchmarkSettings`.

This is the one place that reads the configuration's keys: the document is checked against
the shipped JSON Schema ``benchmark_config``, then turned into typed settings, which check
what a schema cannot say.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import outputs
from ..errors import InputError, TooFewSamplesError, UsageError, shortened
from ..naming import config_title, nameless, path_argument
from ..toml_loader import (
    ConfigText,
    config_folder,
    config_path,
    key_path,
    piped,
    refuse_empty,
)
from ..type_names import not_text
from ..yaml_loader import WrittenFloat
from .settings import (
    COMPLETENESS,
    DEFAULT_PRESET,
    DEFAULT_PROFILE,
    PRESETS,
    RTASK_MAX_DEPTH,
    STATISTICS,
    BenchmarkSettings,
    Completeness,
    Mode,
    Target,
    reranking_measure,
)

CONFIG_SCHEMA = "benchmark_config"


def load_benchmark_config(path: str | os.PathLike) -> BenchmarkSettings:
    """Read and check the benchmark configuration at ``path`` (TOML or YAML; see
    ``docs/benchmark.md``) into its :class:`BenchmarkSettings`.

    The document is checked against the shipped JSON Schema ``benchmark_config`` (one-line
    error naming the offending key), then for what a schema cannot say: modes refer to
    modes, fusions do not go in circles, the baseline is a mode. Relative paths are
    resolved against the file's folder.
    """
    path = path_argument(path, "path")
    document, source = _read_document(path)
    _check_schema(document, source)
    base = config_folder(path)

    def resolve(value: str | None, *keys: str, folder: bool = False) -> Path | None:
        return None if value is None else config_path(source, base, value, keys, folder=folder)

    validation = document.get("validation", {})
    max_depth = validation.get("max_depth", RTASK_MAX_DEPTH)
    profile = validation.get("profile") or DEFAULT_PROFILE
    statistics = dict(STATISTICS) | document.get("statistics", {})
    baseline = statistics.pop("baseline", None)
    targets = document.get("targets", {})
    preset = targets.get("preset", DEFAULT_PRESET)
    strata = document.get("strata", {})
    _check_strata(strata, source)
    measures, parsed = _measures(document.get("measures"), source)
    _check_maxontsim_used(document, parsed, source)
    _check_reranking_reported(document, parsed, source)
    settings = BenchmarkSettings(
        path=path,
        name=document.get("name", config_title(path)),
        description=document.get("description"),
        qrels=resolve(document["qrels"], "qrels"),
        modes=[
            _checked_fusion(_mode(name, spec, resolve, max_depth), spec, source)
            for name, spec in document["modes"].items()
        ],
        measures=measures,
        topics=resolve(document.get("topics"), "topics"),
        output=resolve(_output(document.get("output"), source), "output", folder=True),
        meta={str(key): value for key, value in document.get("meta", {}).items()},
        profile=profile,
        max_depth=max_depth,
        preset=preset,
        targets=_targets(preset, targets.get("measures", {}), parsed, source),
        statistics=_statistics(statistics, document.get("statistics", {}), source),
        baseline=baseline,
        strata=resolve(strata.get("sidecar"), "strata", "sidecar"),
        group_by=strata.get("group_by"),
        completeness=Completeness(**(dict(COMPLETENESS) | document.get("completeness", {}))),
        routing=resolve(document.get("routing"), "routing"),
        maxontsim_formula=document.get("maxontsim_formula"),
        ontology=resolve(document.get("ontology"), "ontology"),
        config_text=source,  # the lines of the settings naming a file that cannot be read
    )
    _check_read_once(settings, source)
    return settings


def _check_read_once(settings: BenchmarkSettings, source: ConfigText) -> None:
    """A configuration from standard input or a pipe naming it again (qrels
    ``/dev/stdin``), or two settings naming one pipe, would find it read: refused as
    leaderboard refuses its suite's, at the key and line of the setting naming it again,
    as other file refusals name their setting."""
    from ..naming import first_read_twice

    named = [
        (settings.path, ()),
        (settings.qrels, ("qrels",)),
        (settings.topics, ("topics",)),
        (settings.strata, ("strata", "sidecar")),
        (settings.routing, ("routing",)),
        (settings.ontology, ("ontology",)),
        *((mode.run, ("modes", mode.name, "run")) for mode in settings.modes),
    ]
    named = [(path, keys) for path, keys in named if path]
    found = first_read_twice([path for path, _ in named])  # the first setting naming one again
    if found is not None:
        raise _setting_error(source, named[found[0]][1], found[1])


def _setting_error(source: ConfigText, keys: tuple, message: str) -> UsageError:
    """A setting of the configuration ``source`` at ``keys`` the command refuses: a usage
    error (exit 1) naming the file, the key and its line (:meth:`ConfigText.where`), as a
    bad option value is (what its parser refuses is an input error, at its line)."""
    return UsageError(f"{source.where(keys)}: {message}")


def _output(value, source: ConfigText):
    """The configuration's ``output`` folder, never empty nor ``-`` (the configuration's
    own folder, or standard output, by accident)."""
    if value is not None and str(value) in ("", "-"):
        raise _setting_error(source, ("output",), f"{value!r} is no folder to write into")
    return value


def _statistics(statistics: dict[str, Any], written: Mapping[str, Any], source: ConfigText):
    """compare's typed statistics settings (``written``: the ones the file writes); too
    few resamples for the level (a bound the schema cannot say: it depends on the
    confidence) are refused at ``samples``' line (at ``confidence``'s when the samples are
    the default), and a ``correction`` given with a family-wise test (it would not be
    applied) at its own, by the settings' one rule (:data:`STATISTICS` leaves it unset)."""
    from ..comparison.settings import StatsSettings
    from ..resampling_bounds import confidence_refusal, seed_refusal
    from ..statistical_tests import refuse_correction_of_family_wise

    try:  # the test is one the schema lists
        refuse_correction_of_family_wise(statistics["test"], statistics["correction"])
    except UsageError as error:
        raise _setting_error(source, ("statistics", "correction"), str(error)) from None
    # what the schema cannot bound, at the key's own line (was the [statistics] table's)
    for key, refusal in (("seed", seed_refusal), ("confidence", confidence_refusal)):
        problem = refusal(statistics[key])
        if problem is not None:
            raise _setting_error(source, ("statistics", key), problem)
    try:
        return StatsSettings(**statistics)
    except TooFewSamplesError as error:
        # at the samples' line; not written (the default), at the confidence's that needs more
        key = "samples" if "samples" in written else "confidence"
        message, samples = str(error), statistics["samples"]
        if key == "samples":  # spelt as written: 0x10 resamples, not 16
            shown = f"{samples:,}"
            message = source.written(("statistics", "samples"), samples) + message[len(shown) :]
        raise TooFewSamplesError(f"{source.where(('statistics', key))}: {message}") from None
    except UsageError as error:
        raise _setting_error(source, ("statistics",), str(error)) from None


def _mode(name: str, spec: Mapping[str, Any], resolve, max_depth: int | None) -> Mode:
    """One ``modes.NAME`` table; a fusion is ``max_depth`` deep unless it says otherwise."""
    fused = spec.get("fuse")
    return Mode(
        name=name,
        label=spec.get("label", name),
        run=resolve(spec.get("run"), "modes", name, "run"),
        fuse=None if fused is None else list(fused),
        method=spec.get("method", "rrf"),
        k=spec.get("k"),
        norm=spec.get("norm"),
        weights=spec.get("weights"),
        depth=spec.get("depth", max_depth) if fused is not None else None,
        tag=spec.get("tag"),
        reranks=spec.get("reranks"),
    )


def _check_strata(strata: Mapping[str, Any], source: ConfigText) -> None:
    """A stratum field to group by (not ``qid-prefix``) needs the sidecar holding it:
    refused before any run is read, naming the configuration's keys, not the command's
    options (``--group-by language needs --strata SIDECAR``)."""
    if "group_by" not in strata or "sidecar" in strata:
        return
    from ..strata import QID_PREFIX, strata_missing

    if strata["group_by"] != QID_PREFIX:
        message = str(strata_missing(strata["group_by"], configured=True))
        raise _setting_error(source, ("strata", "group_by"), message)


def _measures(measures: list[str] | None, source: ConfigText) -> tuple[list[str] | None, list]:
    """The configuration's ``measures``, as names one by one (each entry a ``-m`` value:
    ``"P@5 map"`` is two), and parsed (None: the KPI preset's), each name checked before
    any run is read (refused naming the file), as is a measure with no value per topic
    (``gm_map``, ``num_q``: the comparison is of per-topic values, it would vanish): at
    the refused entry's key and line (``measures[2]``)."""
    from ..measures import parse_measures
    from ..measures.per_topic import listed_measures, refused_entry_index

    if measures is None:
        return None, parse_measures(None)
    from ..measures.trec_params import MeasureParameterError

    computed = "the benchmark's comparison is"
    try:
        return listed_measures(measures, computed)
    except (UsageError, MeasureParameterError) as error:  # the latter trec_eval's exit 2
        # the entry refused, at its own line (a list over several lines, a YAML block list)
        keys = ("measures", refused_entry_index(measures, computed))
        message = str(error).removeprefix("measures: ")  # the key, named by where()
        raise _setting_error(source, keys, message) from None


def _check_maxontsim_used(
    document: Mapping[str, Any], benchmarked: list, source: ConfigText
) -> None:
    """MaxOntSim's options (``maxontsim_formula``, ``ontology``) with no MaxOntSim measure
    ``benchmarked`` (parsed) would change nothing, without a word: refused, as a target
    of a measure not benchmarked is. A formula MaxOntSim does not know is refused at its
    line, as the key's other errors are (the settings refuse one too, with no line)."""
    if "maxontsim_formula" in document:
        from ..maxontsim_formulas import resolve_formula

        try:
            resolve_formula(document["maxontsim_formula"])
        except UsageError as error:
            raise _setting_error(source, ("maxontsim_formula",), str(error)) from None
    if any(measure.family == "MaxOntSim" for measure in benchmarked):
        return
    for key in ("maxontsim_formula", "ontology"):
        if key in document:
            raise _unused_setting(source, (key,), "MaxOntSim", "MaxOntSim@10", benchmarked)


def _check_reranking_reported(
    document: Mapping[str, Any], benchmarked: list, source: ConfigText
) -> None:
    """A mode's ``reranks`` with no nDCG measure ``benchmarked`` (parsed) would report no
    improvement, without a word: refused, as MaxOntSim's options without its measure."""
    from ..measures.labels import value_names

    shown = [display for m in benchmarked for _, display in value_names(m) or ()]
    if any(reranking_measure(name) for name in shown):
        return
    for name, spec in document["modes"].items():
        if "reranks" in spec:
            keys = ("modes", name, "reranks")
            raise _unused_setting(source, keys, "nDCG", "nDCG@10", benchmarked)


def _unused_setting(source: ConfigText, keys: tuple, kind: str, example: str, benchmarked: list):
    """The error refusing the setting at ``keys``, which only a ``kind`` measure (as
    ``example``) reads, when none of the ``benchmarked`` measures (parsed) is one."""
    measures = ", ".join(m.requested or str(m) for m in benchmarked)
    return _setting_error(
        source,
        keys,
        f"no {kind} measure is benchmarked (measures: {measures}); add one ({example}) or drop it",
    )


def _checked_fusion(mode: Mode, spec: Mapping[str, Any], source: ConfigText) -> Mode:
    """``mode``, whose fusion settings (if it fuses) are refused before any run is read,
    each at its own key and line (``modes.h.weights``, not the mode's table); a ``k``
    given to a method without one (as ``fuse``'s ``--k``: it would be left out without a
    word). A depth not written is ``validation.max_depth``'s."""
    if mode.fuse is None:
        return mode
    from ..fusion import (
        check_depth,
        check_number,
        check_run_tag,
        checked_settings,
        method_name,
        norm_name,
    )

    def check(keys: tuple, test):
        try:
            return test()
        except UsageError as error:
            raise _setting_error(source, keys, str(error)) from None

    def key(name: str) -> tuple:
        return ("modes", mode.name, name)

    method = check(key("method"), lambda: method_name(mode.method))
    if "k" in spec and method != "rrf":
        raise _setting_error(source, key("k"), f"{method} has no k (it is RRF's constant)")
    check(key("norm"), lambda: norm_name(mode.norm, method))
    if mode.k is not None:
        check(key("k"), lambda: check_number("k", mode.k, 0))
    depth = key("depth") if "depth" in spec else ("validation", "max_depth")
    check(depth, lambda: check_depth(mode.depth))
    check(key("tag"), lambda: check_run_tag(mode.run_tag))
    weights = (mode.method, mode.norm, mode.k, mode.weights, len(mode.fuse), mode.depth)
    # the others checked above, what fuse still refuses is the weights
    check(key("weights"), lambda: checked_settings(*weights, mode.run_tag))
    return mode


def _named_levels(spec: Mapping[str, Any]) -> list[tuple[tuple, float]]:
    """A target's levels, each with its keys within the target (``("baseline", 1)``)."""
    low, high = spec["baseline"]
    named = [(("baseline", 0), low), (("baseline", 1), high), (("good",), spec["good"])]
    return named + ([] if spec.get("strong") is None else [(("strong",), spec["strong"])])


def _level_key(keys: tuple) -> str:
    """``baseline[1]``, ``good``: a level's keys as a message names them."""
    return keys[0] + "".join(f"[{index}]" for index in keys[1:])


def _targets(
    preset: str, measures: Mapping[str, Mapping[str, Any]], benchmarked: list, source: ConfigText
) -> dict[str, Target]:
    """The preset's targets, with ``targets.measures`` added or replacing them: each
    keyed by the one value it names in any spelling ``measures`` takes (``ndcg_cut.10``
    is nDCG@10), its levels in order (baseline low <= high <= good <= strong) and within
    the measure's values where the registry bounds them (nDCG@10 in [0, 1]: a good of 1.5
    is never reached), of a measure whose lower values are better refused (the levels are
    reached upward: num_nonrel_judged_ret's worst means would be strong), and a value of
    the ``benchmarked`` measures (parsed): a target for another would mark nothing,
    without a word."""
    from ..measures import LOWER, parse_measure
    from ..measures.labels import better, past_unit_span, span, value_names

    shown = {display for m in benchmarked for _, display in value_names(m) or ()}
    # a family of decimal cutoffs asked without them (iprec_at_recall) names its values
    # only when computed: a target of any of them is taken
    whole = {m.family for m in benchmarked if value_names(m) is None}
    chosen = dict(PRESETS[preset])
    keys: dict[str, str] = {}  # display name -> the key that gave its target
    for key, spec in measures.items():
        where = ("targets", "measures", key)
        low, high = spec["baseline"]
        strong = spec.get("strong")  # null (YAML): no such level, as the schema says
        levels = [low, high, spec["good"], *([] if strong is None else [strong])]
        if any(a > b for a, b in zip(levels, levels[1:], strict=False)):
            raise _setting_error(
                source,
                where,
                "the levels are not in order "
                f"(baseline low <= high <= good <= strong): {', '.join(map(str, levels))}",
            )
        target = Target((low, high), spec["good"], strong, spec.get("note", ""))
        name = _target_name(key, source)
        if span(key) == 1.0 and past_unit_span(levels[0], levels[-1]):  # in order
            outside = [(k, v) for k, v in _named_levels(spec) if past_unit_span(v, v)]
            raise _setting_error(
                source,
                (*where, *outside[0][0]),
                f"{name} lies in [0, 1], a level outside it is never reached or always "
                f"passed: {', '.join(f'{_level_key(k)} = {v}' for k, v in outside)}",
            )
        if better(key) == LOWER:  # the levels are reached upward: the worst would be strong
            raise _setting_error(
                source,
                where,
                f"lower values of {name} are better, and a target's levels are reached upward "
                "(good and strong at or above them): the worst means would be marked strong",
            )
        if name not in shown and parse_measure(key).family not in whole:
            raise _setting_error(
                source,
                where,
                f"{name} is not benchmarked (measures: "
                f"{', '.join(sorted(shown))}); add it to measures or drop its target",
            )
        if keys.setdefault(name, key) != key:
            message = f"{keys[name]} and {key} are both {name}'s target: keep one"
            raise _setting_error(source, where, message)
        chosen[name] = target
    return chosen


def _target_name(key: str, source: ConfigText) -> str:
    """The display name of the one value ``key`` names (as the KPI table shows it)."""
    from ..measures import parse_measure
    from ..measures.labels import value_names
    from ..measures.trec_params import MeasureParameterError

    try:
        values = value_names(parse_measure(key))
    except (UsageError, MeasureParameterError) as error:
        raise _setting_error(source, ("targets", "measures", key), str(error)) from None
    if values is None or len(values) != 1:
        raise _setting_error(
            source, ("targets", "measures", key), "a target is for one value, not several"
        )
    return values[0][1]


def _read_document(path: Path) -> tuple[Any, ConfigText]:
    """The configuration's document and text: TOML by ``.toml``, YAML by
    ``.yaml``/``.yml``; one read from a pipe (no name to go by) is TOML if it parses as
    TOML, else YAML."""
    from .. import provenance
    from ..text_encoding import utf8_text

    outputs.note_input(path)
    suffix = path.suffix.lower()
    # standard input (`-`, /dev/stdin) or a descriptor (/dev/fd/3), redirected from a
    # file or not, is read as a pipe is: no name to go by
    from_pipe = nameless(str(path)) or piped(path)
    if not from_pipe and suffix not in (".toml", ".yaml", ".yml"):
        raise UsageError(f"{path}: a benchmark configuration is .toml, .yaml or .yml")
    data = provenance.read_file(path)  # checksum taken on the way
    not_toml = None
    if suffix == ".toml" or from_pipe:
        from ..toml_loader import load_toml

        try:
            document = load_toml(data, path, "valid TOML")
        except InputError as error:
            if not from_pipe:
                raise
            not_toml = error
        else:
            return document, ConfigText(path, utf8_text(data, str(path)))
    text = utf8_text(data, str(path))  # UTF-16, or a byte not UTF-8: at its line
    refuse_empty(text, path, yaml=True)
    refused = "neither TOML nor YAML" if from_pipe else "not valid YAML"
    document = _yaml_document(text, path, refused)
    if not_toml is not None and isinstance(document, str):
        # YAML reads most broken TOML as one string (`seed =` and all): no configuration,
        # so TOML's error and its line say what is wrong (a YAML list is YAML's to refuse)
        raise not_toml
    return document, ConfigText(path, text, yaml=True)


def _yaml_document(text: str, path: Path, refused: str) -> Any:
    """A YAML configuration's document (keys read as text only)."""
    import yaml

    from ..yaml_loader import error_line, error_problem, load_yaml
    from ..yaml_versions import read_apart

    try:
        return load_yaml(text, text_keys=True)
    except yaml.YAMLError as error:
        # lines counted at "\n" as everywhere else (PyYAML's also break at U+2028, ...);
        # an error without a place (nesting too deep for PyYAML's recursion) names none
        placed = isinstance(error, (yaml.MarkedYAMLError, yaml.reader.ReaderError))
        line = error_line(error, text) if placed else None
        refused = "ambiguous YAML" if read_apart(error) else refused
        message = f"{refused}: {shortened(error_problem(error, text))}"
        raise InputError(str(path), line, message) from None


def _document_line(text: str) -> int | None:
    """The line (counted at ``\\n``) where a YAML ``text``'s document starts, past comments
    and a ``---``; None for none."""
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        return None
    return None if node is None else 1 + text.count("\n", 0, node.start_mark.index)


def _check_schema(document: Any, source: ConfigText) -> None:
    from ..json_schemas import schema_refusal

    _check_modes(document, source)
    _check_meta(document, source)
    _refuse_non_finite(document, source, overflows_only=True)
    # a whole float (10.0) is no integer setting: each refused alike, at its own key
    refused = schema_refusal(document, CONFIG_SCHEMA, exact_integers=True)
    if refused is not None:
        keys, message = refused
        where = source.where(keys)
        if not keys and source.yaml and not isinstance(document, Mapping):
            line = _document_line(source.text)  # a list or text: at its line, as a setting
            where = where if line is None else f"{source.path}:{line}: {key_path(())}"
        raise UsageError(f"{where}: {shortened(message)}")
    _refuse_non_finite(document, source)


# the settings of a fused mode only (the schema's mode refuses them beside `run`)
FUSION_KEYS = ("method", "k", "norm", "weights", "depth", "tag")


def _check_modes(document: Any, source: ConfigText) -> None:
    """A mode gives a run file or the modes it fuses, one of the two, and a run file's mode
    no fusion settings, refused at the first one's key and line, as every setting is (the
    schema's "not valid under any of the given schemas" said neither which nor why)."""
    modes = document.get("modes") if isinstance(document, Mapping) else None
    for name, spec in modes.items() if isinstance(modes, Mapping) else ():
        if not isinstance(spec, Mapping):
            continue
        if ("run" in spec) == ("fuse" in spec):
            given = "both are given" if "run" in spec else "neither is given"
            raise UsageError(
                f"{source.where(('modes', name))}: give `run` (a run file) or `fuse` (the "
                f"modes it fuses), one of them: {given}"
            )
        fusing = [key for key in FUSION_KEYS if key in spec and "run" in spec]
        if fusing:
            settings = ", ".join(fusing)
            one = len(fusing) == 1
            are = "is a fusion's setting" if one else "are a fusion's settings"
            raise UsageError(
                f"{source.where(('modes', name, fusing[0]))}: {settings} {are}, but the mode "
                f"is a run file (`run`): drop {'it' if one else 'them'}, or give `fuse` (the "
                "modes it fuses) instead of `run`"
            )


def _check_meta(document: Any, source: ConfigText) -> None:
    """Metadata values are text, written as given: a number or boolean the file's parser
    made of them (TOML ``1.10`` is 1.1, YAML ``1.50`` is 1.5, ``True`` is True) would be
    recorded as something else than was written (YAML's ``010`` and ``yes``, read otherwise
    by YAML 1.2, are refused at their line as the file is read). Keys follow ``--meta``'s
    rule (an empty key, a blank or ``=`` in one, were recorded)."""
    from ..meta_values import META_KEY_RULE, meta_key_taken

    meta = document.get("meta") if isinstance(document, Mapping) else None
    for key, value in meta.items() if isinstance(meta, Mapping) else ():
        if not meta_key_taken(key):
            raise UsageError(f"{source.where(('meta', key))}: a meta key {META_KEY_RULE}")
        problem = not_text(value, "a meta value")
        if problem is not None:
            raise UsageError(f"{source.where(('meta', key))}: {problem}")


def _refuse_non_finite(
    value: Any, source: ConfigText, keys: tuple = (), overflows_only: bool = False
) -> None:
    """A NaN or infinite number (YAML ``.nan``/``.inf``, TOML ``nan``/``inf``) means nothing
    as a target, weight or threshold: every mean would be marked ``≥ nan``. Said as the
    file writes it (``.nan``, ``-inf``: :class:`~trecbench.yaml_loader.WrittenFloat`).
    ``overflows_only``: only a number too large or too small for a double (``1e400``,
    ``1e-400``), said to overflow or underflow before the schema bounds it (TOML's was
    "greater than the maximum", YAML's not; ``1e-400`` was quoted as 0.0)."""
    if isinstance(value, WrittenFloat) and value.underflows:  # read as 0: not what it says
        where = source.where(keys)
        raise UsageError(f"{where}: {shortened(value.text)} underflows a double (reads as 0)")
    if isinstance(value, float) and not math.isfinite(value):
        where = source.where(keys)
        written = value.text if isinstance(value, WrittenFloat) else repr(value)
        if isinstance(value, WrittenFloat) and value.overflows:  # 1e400: no infinity written
            raise UsageError(f"{where}: {shortened(written)} overflows a double")
        if not overflows_only:
            raise UsageError(f"{where}: {shortened(written)} is not a finite number")
    if isinstance(value, Mapping):
        for key, item in value.items():
            _refuse_non_finite(item, source, (*keys, str(key)), overflows_only)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _refuse_non_finite(item, source, (*keys, index), overflows_only)
