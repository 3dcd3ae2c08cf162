"""The benchmark's validation: the qrels and every run file with the configured validator
profile before anything is scored, fused modes after their fusion; a failure stops the
benchmark with the findings and the R-task reference's recovery action
(:class:`InvalidRuns`)."""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..errors import ExitCode, TrecbenchError
from ..inputs.streams import LabelledProgress, labelled
from .settings import ACTIONS, BenchmarkSettings, Mode

FINDINGS_SHOWN = 20  # error findings listed per file

# ``progress(label, done, total)``, as :func:`~trecbench.benchmarking.run_benchmark` takes it
Progress = LabelledProgress


class InvalidRuns(TrecbenchError):
    """A run or the qrels failed validation; the message lists the findings, one per line
    (exit 2, as validate's)."""

    exit_code = ExitCode.INPUT

    def __init__(self, lines: list[str]):
        self.lines = lines
        super().__init__("\n".join(lines))


def validation_profile(config: BenchmarkSettings) -> str:
    """The configured validator profile, by default the R task's (``rtask``); the settings
    checked that the validator has it."""
    return config.profile


@dataclass
class Validated:
    """What :func:`validate_inputs` read: the qrels' and the runs' (by mode) validation
    results, the topic ids of the configured topics file, and the qrels' and runs' open
    sources, for the loader."""

    qrels: Any
    runs: dict[str, Any]
    topics: list[str] | None
    qrels_source: Any
    run_sources: dict[str, Any]


def validate_inputs(
    config: BenchmarkSettings, held: contextlib.ExitStack, progress: Progress | None = None
) -> Validated:
    """Validate the qrels and every run file; raise :class:`InvalidRuns` with all errors.

    Each file is opened once, into memory, and held open by ``held``: the loader parses
    what was validated, from the same read (a file could change between two reads, a pipe
    cannot be read twice; R-task runs are small). The topics file too is read once, for
    every run and fused mode. ``progress(label, done, total)`` is told the bytes of each
    file read (``reading FILE``) and validated (``validating FILE``). A file that cannot be
    read is refused naming the setting that names it (:meth:`BenchmarkSettings.reading`).
    """
    from ..validation import read_topics, validate_qrels, validate_run

    with config.reading(config.qrels, "qrels"):
        qrels_source = _opened(config.qrels, held, progress)
        qrels = validate_qrels(
            qrels_source,
            profile=config.profile,
            collect_judged=True,
            progress=_validating(qrels_source, progress),
        )
    _validated(qrels_source, progress)
    if not qrels.ok:
        raise InvalidRuns(_errors(qrels, ACTIONS["invalid_qrels"], config, ("qrels",)))
    # read where the first run's validation read it (there is one: fusions end in runs)
    with config.reading(config.topics, "topics"):
        topics = None if config.topics is None else read_topics(config.topics)
    results, sources, lines = {}, {}, []
    for mode in config.modes:
        if mode.run is None:
            continue
        with config.reading(mode.run, "modes", mode.name, "run"):
            source = sources[mode.name] = _opened(mode.run, held, progress)
            result = validate_run(
                source,
                profile=config.profile,
                qrels=qrels.qrels_info,
                topics=topics,
                max_depth=config.max_depth,
                progress=_validating(source, progress),
            )
        _validated(source, progress)
        results[mode.name] = result = _settings_named(result, config)
        if not result.ok:
            lines += _errors(result, ACTIONS["invalid_run"], config, ("modes", mode.name, "run"))
    if lines:
        raise InvalidRuns(lines)
    return Validated(qrels, results, topics, qrels_source, sources)


def _opened(path: Path, held: contextlib.ExitStack, progress: Progress | None):
    """``path`` opened and read into memory (its bytes told as ``reading PATH``)."""
    from ..inputs.streams import Source

    return held.enter_context(Source(path, labelled(progress, f"reading {path}"), spool=True))


def _validating(source, progress: Progress | None):
    """The validator's ``progress(path, lines)`` of a spooled ``source``, told as the
    bytes of it validated (``validating PATH``)."""
    if progress is None:
        return None
    label = f"validating {source.path}"

    def told(_path, _lines) -> None:
        progress(label, *source.spool_read())

    return told


def _validated(source, progress: Progress | None) -> None:
    """``source``'s validation told finished (the validator may stop before its end)."""
    if progress is not None:
        size = source.spool_read()[1]
        progress(f"validating {source.path}", size, size)


def check_fused(
    mode: Mode, ranked: pa.Table, output: Path, config: BenchmarkSettings, validated: Validated
) -> tuple[bytes, dict, list[str]]:
    """A fused mode's run file (its bytes, as written to ``output``), validated as the run
    files were: the bytes, the validation summary and the error lines (none when valid)."""
    from ..files import run_bytes
    from ..inputs.trec_text import tokenize
    from ..validation import validate_tokens

    data = run_bytes(ranked)
    result = validate_tokens(
        tokenize(data, path=str(output)),
        "run",
        profile=config.profile,
        max_depth=config.max_depth,
        topics=validated.topics,
        qrels_topics=validated.qrels.qrels_info,
    )
    result = _settings_named(result, config)
    errors = [f.format() for f in result.findings if f.severity == "error"]
    if errors:
        errors.append(f"{output}: recovery: check the fusion of mode {mode.name}")
    # the result's counts, as for the run files: its findings stop at the limit per check
    return data, summary(result), errors


def _settings_named(result, config: BenchmarkSettings):
    """``result`` whose findings name the configuration's settings they came from, not
    validate's flags: R8 its ``validation.max_depth`` (not ``--max-depth``), R4 and R5 its
    ``topics`` file (not ``--topics``)."""
    from ..validation import wording

    for index, finding in enumerate(result.findings):
        if finding.rule == "R8" and config.max_depth is not None:
            message = wording.depth_renamed(
                finding.message, config.max_depth, "validation.max_depth"
            )
        elif finding.rule in ("R4", "R5"):
            message = wording.topics_renamed(finding.message, f"topics ({config.topics})")
        else:
            continue
        result.findings[index] = dataclasses.replace(finding, message=message)
    return result


def summary(result) -> dict:
    """A validation result's counts, as the report records them."""
    counts = result.counts
    return {
        "errors": counts["error"],
        "warnings": counts["warning"],
        "infos": counts["info"],
        "rules": counts["rules"],
    }


# the file of the other kind (validate's R29 and Q11): what it looks like, what it is
OTHER_KIND = {
    "R29": ("qrels, not a run (every line has 4 fields, an integer last)", "a qrels file"),
    "Q11": ("a run, not qrels (every line has 6 or more fields)", "a run file"),
}


def _errors(result, action: str, config=None, keys=(), limit: int = FINDINGS_SHOWN) -> list[str]:
    """The file's error findings (at most ``limit``) and the recovery ``action``; a file of
    the other kind is named at the ``config``'s key ``keys`` and its line, as the
    configuration's other refusals are: there are no arguments to swap."""
    errors = [f for f in result.findings if f.severity == "error"]
    lines = [finding.format() for finding in errors[:limit]]
    other = next((f.rule for f in errors if f.rule in OTHER_KIND), None)
    if other is not None and config is not None:
        from ..toml_loader import key_path

        text = config.config_text
        where = text.where(keys) if text is not None else f"{config.path}: {key_path(keys)}"
        looks, kind = OTHER_KIND[other]
        lines = [f"{where}: {result.path} looks like {looks}: the key names {kind}"]
    if result.counts["error"] > len(lines):
        more = result.counts["error"] - len(lines)
        lines.append(f"{result.path}: ... {more} more {'error' if more == 1 else 'errors'}")
    return [*lines, f"{result.path}: recovery: {action} (TREC R-task reference)"]
