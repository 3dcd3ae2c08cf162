"""The settings of one benchmark, typed and checked once: :class:`BenchmarkSettings`.

:func:`~trecbench.benchmarking.load_benchmark_config` builds one from a configuration file
(and ``trecbench benchmark`` from the file plus its options); the Python API may build one
directly. Everything that runs, writes or renders the benchmark reads its fields: the
modes (:class:`Mode`), the targets (:class:`Target`, :data:`PRESETS`), the statistics
(:class:`~trecbench.comparison.StatsSettings`) and the completeness thresholds
(:class:`Completeness`). The modes are checked as the settings are made
(:mod:`~trecbench.benchmarking.mode_checks`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, UsageError, excerpt
from ..number_text import exact_number
from .mode_checks import check_fusion_depths, check_modes, refused

if TYPE_CHECKING:  # compare's package loads pandas: imported where settings are made
    from ..comparison.settings import StatsSettings
    from ..toml_loader import ConfigText

RTASK_MAX_DEPTH = 100  # the TREC R task's submission cap
DEFAULT_PROFILE = "rtask"  # the validator's profile for R-task runs
DEFAULT_PRESET = "trec2025-rtask"

# The R-task reference's recovery actions, quoted, per kind of problem.
ACTIONS = {
    "invalid_run": "Empty/invalid runs: re-run generation, check query format",
    "invalid_qrels": "Validation failures: rebuild qrels, verify rank ordering",
    "shallow_pool": "Shallow pools: mark runs as incomplete, document coverage",
}


@dataclass(frozen=True)
class Target:
    """Target ranges of one measure: ``baseline`` (low, high) is the typical baseline (BM25);
    a value below ``low`` is below-baseline, from ``low`` up to ``good`` baseline, from
    ``good`` good, from ``strong`` (if any) strong."""

    baseline: tuple[float, float]
    good: float
    strong: float | None = None
    note: str = ""

    @property
    def levels(self) -> tuple[float, ...]:
        """The levels a mark is decided by: the baseline's low end, good, strong (if any)."""
        return (self.baseline[0], self.good, *(() if self.strong is None else (self.strong,)))

    def mark(self, value: float, exact: bool = False) -> str | None:
        """``below-baseline``, ``baseline``, ``good`` or ``strong``; None for a value that
        is no number (NaN passed every comparison: "strong"). A mean equal on paper to a
        threshold reaches it (:mod:`trecbench.rounding`): 11/20 summed as
        0.5499999999999998 is 0.55, and printed so. ``exact``: the mark of ``value`` as
        it reads, a printed mean's (no rounding noise: 0.33333333333333 is below a level
        of 0.3333333333333333)."""
        from ..rounding import rounding_noise, value_scale

        if math.isnan(value):
            return None
        noise = 0.0 if exact else float(rounding_noise([value], value_scale([value]))[0])
        reached = value + noise
        if reached < self.baseline[0]:
            return "below-baseline"
        if reached < self.good:
            return "baseline"
        if self.strong is None or reached < self.strong:
            return "good"
        return "strong"

    def to_dict(self) -> dict:
        """The target as the report's ``targets.measures`` entry."""
        return {
            "baseline": list(self.baseline),
            "good": self.good,
            "strong": self.strong,
            "note": self.note,
        }


# The TREC 2025 R-task KPI reference's summary table. MAP@100 gives a baseline of
# 0.25-0.27 and "+0.03-0.05 uplift is meaningful": good and strong are the top of the
# baseline plus 0.03 and 0.05. Measures with a single "competitive target" have no strong
# level; "~0.45" is the point 0.45.
PRESETS: dict[str, dict[str, Target]] = {
    DEFAULT_PRESET: {
        "nDCG@10": Target((0.30, 0.32), 0.35, 0.40, "good >= 0.35, strong >= 0.40"),
        "MAP@100": Target((0.25, 0.27), 0.30, 0.32, "+0.03-0.05 over the baseline's 0.27"),
        "MRR@10": Target((0.45, 0.45), 0.55, None, "baseline ~0.45, target >= 0.55"),
        "Recall@50": Target((0.55, 0.60), 0.62, None, "target >= 0.62"),
        "Recall@100": Target((0.60, 0.65), 0.70, None, "target >= 0.70"),
        "HitRate@10": Target((0.70, 0.75), 0.80, None, "target >= 0.80"),
    },
    "none": {},
}


@dataclass(frozen=True)
class Completeness:
    """When a mode's evaluation counts as complete (:func:`~trecbench.benchmarking.completeness`):
    results for at least ``min_coverage`` of the qrels topics, a median judged depth of at
    least ``min_pool_depth``, at most ``max_unjudged`` unjudged documents in the top
    ``unjudged_at``. Numbers stay as the configuration wrote them (the report shows them)."""

    min_coverage: float = 1.0
    min_pool_depth: int = 10
    max_unjudged: float = 0.1
    unjudged_at: int = 10

    def to_json(self) -> dict:
        """The report's ``completeness_settings``."""
        return dataclasses.asdict(self)


# The defaults of the schema's ``completeness`` and ``statistics`` tables, as the loader
# fills them in; the statistics' are StatsSettings' (a test keeps them equal): the
# correction None, as no configuration writes it (Holm unless given; a family-wise test
# takes none given)
COMPLETENESS = Completeness().to_json()
STATISTICS = {"test": "t", "correction": None, "samples": 10_000, "seed": 0, "confidence": 0.95}


def reranking_measure(name: str) -> bool:
    """Whether the improvement of a mode that reranks another is reported for the measure
    the KPI table names ``name``: every nDCG measure (RAG spec §4.3), told by the registry's
    family of the name (nDCG@10 is ndcg_cut's; ndcg, ndcg_rel, Rndcg, alpha_nDCG), not by
    its spelling, whose prefix left Rndcg out; DCG, ideal_dcg and SDCG are no nDCG."""
    from ..errors import TrecbenchError
    from ..measures.labels import looked_up

    try:
        family = looked_up(name).family
    except TrecbenchError:  # a name the registry does not know: no nDCG of its
        return False
    return "ndcg" in family.lower()


def default_statistics() -> StatsSettings:
    """compare's default statistics settings."""
    from ..comparison.settings import StatsSettings

    return StatsSettings(**STATISTICS)


@dataclass(frozen=True)
class Mode:
    """One retrieval mode: a run file, or a fusion of other modes (``fuse``, with its
    method, ``k`` (RRF's alone; None: 60), normalisation, weights, depth and run tag);
    ``reranks``: the mode this one reranks (its nDCG improvement is reported)."""

    name: str
    label: str
    run: Path | None = None
    fuse: list[str] | None = None
    method: str = "rrf"
    k: float | None = None
    norm: str | None = None
    weights: list[float] | None = None
    depth: int | None = None
    tag: str | None = None
    reranks: str | None = None

    def __post_init__(self) -> None:
        # weights as a list of Python's numbers: an array (fuse takes any sequence) broke
        # describe() and the JSON report (a TypeError once every mode was scored); what
        # is no sequence of numbers is left to the fusion's checks, which refuse it
        weights = self.weights
        if weights is not None and not isinstance(weights, (str, bytes, list)):
            try:
                values = weights.tolist() if hasattr(weights, "tolist") else list(weights)
            except TypeError:
                return
            object.__setattr__(self, "weights", values)
        if isinstance(self.weights, list):
            items = [w.item() if hasattr(w, "item") else w for w in self.weights]
            object.__setattr__(self, "weights", items)

    @property
    def run_tag(self) -> str:
        """The tag a fused mode's run is written with."""
        return self.tag or self.name

    def fusion(self) -> dict | None:
        """The fusion as the report records it (None for a run file)."""
        if self.fuse is None:
            return None
        from ..fusion import k_as_given, method_name, norm_name

        method = method_name(self.method)
        return {  # k as fuse records it: `k = 60.0` and the default both say 60
            "of": self.fuse,
            "method": method,
            "k": k_as_given(self.rrf_k) if method == "rrf" else None,
            "norm": norm_name(self.norm, method),
            "weights": self.weights,
            "depth": self.depth,
            "tag": self.run_tag,
        }

    @property
    def rrf_k(self) -> float:
        """RRF's ``k``: the one given, else 60."""
        from ..fusion_plan import DEFAULT_K

        return DEFAULT_K if self.k is None else self.k

    def describe(self) -> str:
        """One phrase: the run file, or the fusion and its parameters."""
        if self.fuse is None:
            return f"run {self.run}"
        from ..fusion import method_name, norm_name

        method = method_name(self.method)
        detail = (
            f"k={exact_number(self.rrf_k)}"
            if method == "rrf"
            else f"norm {norm_name(self.norm, method)}"
        )
        weights = f", weights {self.weights}" if self.weights else ""
        # no depth (validation.max_depth null): the fused run keeps every document
        depth = "every document kept" if self.depth is None else f"depth {self.depth}"
        return f"{method} ({detail}{weights}) of {', '.join(self.fuse)}, {depth}"


@dataclass(frozen=True)
class BenchmarkSettings:
    """A checked benchmark (see :func:`~trecbench.benchmarking.load_benchmark_config`);
    paths are resolved.

    ``path``: the configuration file; ``name`` and ``description`` (None: none), shown in
    the outputs; ``qrels``, ``modes`` (in table order), ``measures``
    (None: :data:`trecbench.measures.KPI_PRESET`), ``topics`` (a topics file the runs are
    validated against), ``output`` (the output folder), ``meta`` (for the reports and the
    manifest); ``profile`` and ``max_depth`` of the validation; ``preset`` and ``targets``
    (the preset's, with the configured ones added or replacing them); ``statistics`` and
    ``baseline`` (a mode's name; None: the first mode); ``strata`` and ``group_by``;
    ``completeness``; ``routing`` (a routing log); ``maxontsim_formula`` and ``ontology``
    (an HPO file), the MaxOntSim measures' options as ``score --maxontsim-formula`` and
    ``--ontology`` take them (None: ``hybrid``, hpo3's bundled release); ``config_text``
    (None for settings built in Python): the configuration's text, whose lines name the
    setting of an input file that cannot be read (:meth:`reading`).

    Raises :class:`~trecbench.errors.UsageError`, naming the configuration file (and the
    key and its line, read from ``config_text``), for modes
    that refer to unknown modes, to themselves or to each other in a circle (fusing or
    reranking), two modes of
    one run file, a baseline
    that is no mode, a meta key outside ``--meta``'s rule or a meta value JSON cannot hold,
    a validator profile that does not
    exist, an unknown MaxOntSim formula and a measure asked by two spellings
    (``nDCG@10`` and ``ndcg_cut.10``, as compare refuses them), before any run is read.
    """

    path: Path
    name: str
    qrels: Path
    modes: list[Mode]
    measures: list[str] | None = None
    topics: Path | None = None
    output: Path | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    profile: str = DEFAULT_PROFILE
    max_depth: int | None = RTASK_MAX_DEPTH
    preset: str = DEFAULT_PRESET
    targets: dict[str, Target] = field(default_factory=dict)
    statistics: StatsSettings = field(default_factory=default_statistics)
    baseline: str | None = None
    strata: Path | None = None
    group_by: str | None = None
    completeness: Completeness = field(default_factory=Completeness)
    routing: Path | None = None
    maxontsim_formula: str | None = None
    ontology: Path | None = None
    description: str | None = None
    config_text: ConfigText | None = field(default=None, compare=False, repr=False)

    @property
    def configured_targets(self) -> list[str]:
        """The measures whose targets the configuration gives, added to its preset's or
        other than them (the outputs name them beside the preset)."""
        preset = PRESETS.get(self.preset, {})
        return [name for name, target in self.targets.items() if preset.get(name) != target]

    def __post_init__(self) -> None:
        if not self.name.strip():  # shown as the empty name the schema refuses
            message = f"{excerpt(self.name)} is blank: the name titles the benchmark's outputs"
            raise self.refused(("name",), message)
        check_modes(self.modes, self.path, self.config_text)
        _check_meta(self.meta, self.path)
        names = [mode.name for mode in self.modes]
        if self.baseline is None:
            object.__setattr__(self, "baseline", names[0])
        elif self.baseline not in names:
            message = f"{excerpt(self.baseline)} is not a mode"
            raise self.refused(("statistics", "baseline"), message)
        from ..validation.rules import CHECKS, PROFILES

        if self.profile not in PROFILES:
            raise UsageError(f"{self.path}: the validator has no profile {self.profile!r}")
        if self.max_depth is not None and CHECKS["R8"].severity(self.profile) == "error":
            check_fusion_depths(self.modes, self.max_depth, self.path, self.config_text)
        if self.maxontsim_formula is not None:
            from ..maxontsim_formulas import resolve_formula

            try:
                resolve_formula(self.maxontsim_formula)
            except UsageError as error:
                raise UsageError(f"{self.path}: maxontsim_formula: {error}") from None
        from ..measures.spellings import refuse_two_spellings

        try:  # the tables show and test each measure once, by one name
            refuse_two_spellings(self.measures, "benchmark")
        except UsageError as error:  # at the measures' line, as the loader's refusals are
            raise self.refused(("measures",), str(error)) from None

    def mode(self, name: str) -> Mode:
        """The mode called ``name``."""
        return next(mode for mode in self.modes if mode.name == name)

    def refused(self, keys: tuple, message: str) -> UsageError:
        """The error refusing the setting at ``keys`` (``("strata", "sidecar")``): the
        configuration file, the key and the line that writes it (no line for settings
        built in Python), then ``message``."""
        return refused(self.path, self.config_text, keys, message)

    @contextlib.contextmanager
    def reading(self, path: Path | None, *keys: str | int) -> Iterator[None]:
        """Reads of ``path``, the input file the setting at ``keys`` names (``"modes",
        "b", "run"``): one that cannot be read (missing, a folder, no permission) is
        refused naming the configuration file, the key and the line that writes it
        (``bench.toml:8: modes.b.run: cannot read 'b.run': No such file or directory``; no
        line for settings built in Python), as its other settings are named; its reader
        named the path only. Checked as the file is read, not when the configuration is:
        a file may appear after the settings are made. Other errors pass unchanged."""
        try:
            yield
        except InputError as error:
            from ..toml_loader import unreadable_setting

            moved = None
            if path is not None:
                moved = unreadable_setting(error, self.config_text, self.path, path, keys)
            if moved is None:
                raise
            raise moved from None

    @property
    def inputs(self) -> list[Path]:
        """Every file the benchmark reads (none of them may be written)."""
        paths = [self.path, self.qrels, self.topics, self.strata, self.routing, self.ontology]
        return [path for path in [*paths, *(mode.run for mode in self.modes)] if path]

    @property
    def measure_options(self) -> dict:
        """The local measures' options, as :func:`trecbench.evaluate` takes them and
        ``score`` gives them (MaxOntSim's formula and ontology file; None: the default)."""
        return {"maxontsim_formula": self.maxontsim_formula, "ontology": self.ontology}

    def with_options(self, output=None, meta=None) -> BenchmarkSettings:
        """These settings with the command's ``-o`` (replacing ``output``) and ``--meta``
        (added to ``meta``, a key it sets replaced: the command line says last)."""
        output = self.output if output is None else Path(output)
        return dataclasses.replace(self, output=output, meta=self.meta | dict(meta or {}))


BenchmarkConfig = BenchmarkSettings  # the name of earlier versions


def _check_meta(meta: dict, path: Path) -> None:
    """A meta key outside ``--meta``'s rule, or a value JSON cannot hold
    (:func:`trecbench.meta_values.meta_json`), given in Python (``meta=``, ``with_options``;
    the loader refuses a configuration's at its line), refused before any run is read, not
    as the reports are written (:func:`trecbench.meta_values.recorded_meta`)."""
    from ..meta_values import META_KEY_RULE, meta_json, meta_key_taken

    for key, value in meta.items():
        if not meta_key_taken(key):  # no line: the key is not the configuration's
            raise refused(path, None, ("meta", str(key)), f"a meta key {META_KEY_RULE}")
        try:
            meta_json(value)
        except UsageError as error:
            raise refused(path, None, ("meta", key), str(error)) from None
