"""``trecbench validate``: check runs and qrels against the rules; print findings."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import click

from ..errors import ExitCode
from .evaluation_options import memory_budget_option
from .group import cli, open_input_scope
from .paths import FIX_FILE, INPUT_FILE
from .progress import StderrProgress, drawn, wanted
from .shared_options import DEPTH, DecimalInt

if TYPE_CHECKING:
    from ..validation import DocidList
    from ..validation.rules import Default

# the library's profiles, named here so that `--help` does not import the validator
PROFILES = ("default", "strict", "lenient", "rtask")


def _spooled(held: contextlib.ExitStack, run, progress):
    """The run ``--fix`` rewrites, spooled (held open by ``held``): the fix rewrites the
    bytes that were validated, from memory, without reading the file (or pipe) again. Its
    bars show the spooling (reading FILE), then the bytes of the spool validated and the
    lines (validating FILE), as for a file read as it is checked."""
    from ..inputs.streams import Source

    spooling = None if progress is None else partial(progress.spooling, str(run))
    source = held.enter_context(Source(run, spooling, spool=True))
    if progress is not None:
        progress.spooled = source
    return source


@cli.command()
@click.argument("runs", nargs=-1, type=INPUT_FILE)
@click.option("--qrels", type=INPUT_FILE, help="Qrels to validate and to check the runs against.")
@click.option(
    "--topics",
    type=INPUT_FILE,
    help="Topic ids: one per line (first field; a header line such as qid or query_id is "
    'skipped), JSON lines queries (BEIR\'s queries.jsonl: "_id", "query_id" or "qid"), or a '
    "TREC topics file.",
)
@click.option(
    "--max-depth",
    type=DEPTH,
    help="Most documents per topic (R8); default 1000, TREC's usual depth (100 with "
    "--profile rtask).",
)
@click.option("--min-depth", type=DecimalInt(min=1), help="Fewest documents per topic (R9).")
@click.option(
    "--docid-regex",
    help="RE2 pattern every docno must match in full (R6); one that is not a valid "
    "pattern on its own is refused.",
)
@click.option(
    "--docids",
    type=INPUT_FILE,
    help="The docids a run may hold, one per line, plain or compressed (R6: compared exactly).",
)
@click.option(
    "-l",
    "--level_for_rel",  # -l's long name in score, compare, power, agree and pool
    "--relevance-level",
    "relevance_level",
    type=DecimalInt(min=1),
    default=1,
    show_default=True,
    help="Minimum grade counted as relevant, as score's -l: qrels topics with no grade "
    "reaching it are Q7.",
)
@click.option("--tag-is-filename", is_flag=True, help="The run tag must equal the file name (R19).")
@click.option(
    "--profile",
    type=click.Choice(PROFILES),
    default="default",
    show_default=True,
    help="strict: submission rules are errors; lenient: only what breaks trec_eval; "
    "rtask: the TREC R task's rules (six columns, Q0, unique ranks, every topic, depth 100).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.option(
    "--show",
    type=DecimalInt(min=0),
    default=5,
    show_default=True,
    help="Text output: findings printed per check and file (0: all that were kept).",
)
@click.option(
    "--fix",
    "fix_out",
    type=FIX_FILE,
    help="Write the canonical form of the (single) RUN here and list every change; the "
    "exit code is then the fixed run's (0: it validates clean). RUN must be TREC text: a "
    "JSONL or Parquet run is refused (exit 2, after its validation).",
)
@click.option(
    "--fix-tag",
    metavar="TAG",
    help="With --fix: set the run tag of every line to TAG (repairs mixed tags, R17-R19).",
)
@memory_budget_option(
    "Memory budget in MiB (default: half of the memory available); the duplicate "
    "check's keys beyond a quarter of it go to a temporary file (TMPDIR). Whatever it "
    "is, past 262,144 lines each line's topic, rank, score and line (28 bytes a line, up "
    "to twice while sorted into groups) go to TMPDIR too, to check split topics again "
    "whole.",
)
@click.option("--quiet", is_flag=True, help="No progress line on stderr for large files.")
def validate(
    runs,
    qrels,
    topics,
    max_depth,
    min_depth,
    docid_regex,
    docids,
    relevance_level,
    tag_is_filename,
    profile,
    fmt,
    show,
    fix_out,
    fix_tag,
    memory,
    quiet,
):
    """Check TREC runs and/or qrels; exit 2 if any error was found.

    Findings print as FILE:LINE:FIELD: severity[RULE]: message, with physical 1-based
    line numbers. The docs' validate.md describes the checks, the profiles and the JSON
    format, and validate-rules.md every rule.

    \b
    Examples:
      trecbench validate runs/tfidf-char.run --qrels qrels/hpo-demo.qrels
      trecbench validate --qrels qrels/hpo-demo.qrels
      trecbench validate --qrels qrels/hpo-demo.qrels -l 2    # Q7: topics without grade 2+
      trecbench validate runs/tfidf-char.run --profile strict --format json
      trecbench validate data/hpo-rtask/lexical.run --qrels data/hpo-rtask/hpo-rtask.qrels \\
        --profile rtask
      trecbench validate runs/tfidf-char.run --fix out/tfidf-char.fixed.run --fix-tag tfidf-char
      cat runs/tfidf-char.run | trecbench validate -
      trecbench validate run.txt --docids collection-ids.txt.gz    # not bundled: your files
    """
    _check_arguments(runs, qrels, fix_out, fix_tag)
    _check_depths(min_depth, max_depth, profile)
    if tag_is_filename and "-" in runs:  # R19 compared the tag with the name '-'
        raise click.UsageError("--tag-is-filename: standard input (-) has no file name")
    runs, qrels, topics, docids = _stdin_named([*runs, qrels, topics, docids], len(runs))
    progress = _FileProgress() if wanted(quiet) else None
    small = (runs, qrels, topics, profile, max_depth, min_depth, tag_is_filename, relevance_level)
    general = docid_regex is not None or docids is not None or fix_out is not None
    checked = _json_settings(small, docid_regex, docids)
    if not general and _small_path(*small, fmt, show, progress, checked):
        return
    open_input_scope(click.get_current_context())
    from .. import outputs
    from .. import validation as v
    from ..validation import report

    if fix_out is not None:  # before the validation: an input is never the fixed run
        outputs.check_target(fix_out, [*runs, qrels, topics, docids])
    _check_regex(v, docid_regex)
    depth = v.PROFILE_DEPTH if max_depth is None else max_depth
    with contextlib.ExitStack() as held:
        try:
            run_checks = _RunChecks.read(v, profile, topics, depth, min_depth, docid_regex, docids)
            source = None if fix_out is None else _spooled(held, runs[0], progress)
            results = v.validate_files(
                runs if source is None else [source],
                qrels=qrels,
                tag_is_filename=tag_is_filename,
                relevance_level=relevance_level,
                **run_checks.options(),
                progress=progress,
                read_progress=None if progress is None else progress.read,
                recheck_progress=None if progress is None else progress.recheck,
                memory=memory,
            )
            if source is not None:
                source.record()
        finally:
            if progress is not None:
                progress.close()
        fixed, failed = None, [r for r in results if not r.ok]
        if fmt == "text":
            _print_text(results, show)
        if source is not None:  # the exit code is then the fixed run's, not the input's
            checks = partial(v.validate_tokens, kind="run", **run_checks.options())
            verify = _Verify(checks, results[0].qrels_info if qrels else None, tag_is_filename)
            others = (qrels, topics, docids)
            try:  # the steps of the rewrite on a bar of their own (fixing FILE)
                with drawn(quiet) as steps:
                    fix = (fix_out, fix_tag, profile, depth, results, verify, steps)
                    fixed = _fix(v, source, others, *fix)
            except Exception as error:
                if fmt == "json":  # the findings still, as text prints them before the refusal
                    click.echo(report.to_json(results, _refused_fix(error), checked))
                raise
            failed = [result for result in failed if result is not results[-1]]
        if fmt == "json":
            click.echo(report.to_json(results, fixed, checked))
        elif fixed is not None:
            _print_fixed(runs[0], fix_out, fixed, report.summary_line([verify.result]))
    if failed:
        raise SystemExit(ExitCode.INPUT)  # the exit code of a malformed input everywhere


@dataclass(frozen=True)
class _RunChecks:
    """The settings of a run's checks, the input's and (``--fix``) the fixed run's alike,
    with ``--topics`` and ``--docids`` read once."""

    profile: str
    topics: list[str] | None
    max_depth: int | Default  # the profile's depth by default
    min_depth: int | None
    docid_regex: str | None
    docids: DocidList | None

    @classmethod
    def read(cls, v, profile, topics, max_depth, min_depth, docid_regex, docids) -> _RunChecks:
        """The settings of the command's options, the files read by the validator ``v``."""
        topic_ids = v.read_topics(topics) if topics else None
        docid_list = v.read_docids(docids) if docids else None
        return cls(profile, topic_ids, max_depth, min_depth, docid_regex, docid_list)

    def options(self) -> dict:
        """The settings as the validator's keyword arguments (not ``asdict``: it would
        copy the docid list)."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}


def _print_fixed(run, out, fixed: dict, summary: str) -> None:
    """What ``--fix`` wrote and its changes, on stderr as every command's ``wrote PATH``;
    then the fixed run's validation summary on stdout, with the input's."""
    from ..escaping import escape_text

    run, out = escape_text(run), escape_text(out)
    said = "changes:" if fixed["changes"] else "no changes"  # the run was canonical
    click.echo(f"{run}: wrote the canonical run to {out}; {said}", err=True)
    for change in fixed["changes"]:
        click.echo(f"  {change['text']}", err=True)
    click.echo(f"{out}: {summary}")


def _check_regex(v, docid_regex: str | None) -> None:
    """Refuse a ``--docid-regex`` that the validator (``v``) refuses (an empty one, or one
    it cannot use), as a usage error."""
    if docid_regex is None:
        return
    try:
        v.check_regex(docid_regex)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--docid-regex") from None


def _small_path(
    runs,
    qrels,
    topics,
    profile,
    max_depth,
    min_depth,
    tag_is_filename,
    relevance_level,
    fmt,
    show,
    progress,
    checked: dict,
) -> bool:
    """Whether the small path (:mod:`trecbench.validation.small`: small plain files, no
    Arrow) took the call, and printed what the general path would; exit 2 on errors.
    ``progress`` (on a terminal) is told of each file as the general path tells it (its
    bar is drawn after a second, so in practice never)."""
    from ..validation import report
    from ..validation.rules import PROFILES
    from ..validation.small import SmallSettings, validate_small

    depth = PROFILES[profile].max_depth if max_depth is None else max_depth
    settings = SmallSettings(profile, depth, min_depth, tag_is_filename, relevance_level)
    results = validate_small(runs, qrels, settings, topics)
    if results is None:
        return False
    if progress is not None:  # each file as the general path reports it, read whole
        for result in results:
            size = os.path.getsize(result.path)
            progress.read(result.path, size, size)
            progress(result.path, result.counts["lines"])
        progress.close()
    if fmt == "text":
        _print_text(results, show)
    else:
        click.echo(report.to_json(results, None, checked))
    if any(not result.ok for result in results):
        raise SystemExit(ExitCode.INPUT)
    return True


def _json_settings(small: tuple, docid_regex: str | None, docids) -> dict:
    """What the files were checked with, as ``--format json`` records it in each file's
    object: the profile, the files checked against (``qrels``, ``topics``, ``docids``:
    their paths, or null) and the options that change a finding (``max_depth``: the
    profile's unless given). ``small``: the ``_small_path`` arguments, the runs to the level."""
    from ..validation.rules import PROFILES

    _, qrels, topics, profile, max_depth, min_depth, tag_is_filename, level = small
    max_depth = PROFILES[profile].max_depth if max_depth is None else max_depth

    def path(given) -> str | None:
        return None if given is None else str(given)

    return {
        "profile": profile,
        "qrels": path(qrels),
        "topics": path(topics),
        "docids": path(docids),
        "docid_regex": docid_regex,
        "max_depth": max_depth,
        "min_depth": min_depth,
        "relevance_level": level,
        "tag_is_filename": tag_is_filename,
    }


def _check_depths(min_depth, max_depth, profile) -> None:
    """Refuse --min-depth above --max-depth, or above the profile's when none is given."""
    from ..validation.cross_checks import refuse_depths_at_odds
    from ..validation.rules import PROFILE_DEPTH

    most = PROFILE_DEPTH if max_depth is None else max_depth  # None: the profile's
    refuse_depths_at_odds(min_depth, most, profile)


def _check_arguments(runs, qrels, fix_out, fix_tag) -> None:
    if not runs and not qrels:
        raise click.UsageError("give at least one RUN or --qrels QRELS")
    if fix_out is not None and len(runs) != 1:
        raise click.UsageError("--fix needs exactly one RUN")
    if fix_tag is not None and fix_out is None:
        raise click.UsageError("--fix-tag needs --fix")
    if fix_out is not None:  # a name read as another format (x.jsonl, x.gz): not after "OK"
        from ..files import parquet_named

        parquet_named(fix_out)
    if fix_tag is not None:  # before the validation: not after an "OK"
        from ..naming import check_run_tag

        check_run_tag(fix_tag, "fix_tag")


def _print_text(results, show: int) -> None:
    from ..validation import report

    for result in results:
        for line in report.text_lines(result, show):
            click.echo(line)
    click.echo(report.summary_line(results))


def _stdin_named(paths: list, count: int) -> tuple:
    """RUNS (the first ``count`` of ``paths``), --qrels, --topics and --docids, with ``-``
    read as standard input: it, or a pipe, can be read once (given twice, the second read
    as an empty file)."""
    from ..naming import check_read_once

    check_read_once(paths)  # in score's words
    return tuple(paths[:count]), *paths[count:]


class _Verify:
    """The validation of the fixed run, with the checks the run was validated with (the
    qrels as they were read, not read again); keeps its result to print."""

    def __init__(self, checks, qrels_info, tag_is_filename: bool):
        self.checks, self.qrels_info = checks, qrels_info
        self.tag_is_filename = tag_is_filename
        self.result = None

    def __call__(self, tokens):
        from ..validation import file_name

        expected = file_name(tokens.path) if self.tag_is_filename else None
        self.result = self.checks(tokens, qrels_topics=self.qrels_info, expected_tag=expected)
        return self.result


class _FileProgress:
    """One progress line per file: ``validating FILE`` with the bytes read of its size,
    rate and ETA (a pipe: bytes and rate) and the lines read so far. ``--fix``'s run
    (``spooled``, its Source) is read into memory first: ``reading FILE`` shows those
    bytes, then ``validating FILE`` the bytes of the spool validated and the lines beside
    them, as for a file read as it is checked. The bar's delay counts from the first
    file's start: files of under a second each are drawn once the command has run a
    second (twelve such runs drew nothing for 11 s)."""

    def __init__(self):
        self.job, self.line = None, None
        self.spooled = None
        self.began: float | None = None  # the first file's start, whence the delay counts

    def spooling(self, path: str, done: int, total: int | None) -> None:
        """The bytes of ``--fix``'s run ``path`` read into memory, of ``total``."""
        self._to(("reading", path), "B")(done, total)

    def read(self, path: str, done: int, total: int | None) -> None:
        """``read_progress``: bytes of ``path`` read, of ``total``."""
        self._to(("validating", path), "B")(done, total)

    def __call__(self, path: str, lines: int) -> None:
        """``progress``: the physical lines of ``path`` read so far."""
        spooled = self.spooled is not None and path == self.spooled.path
        if spooled:  # the lines beside the bytes of the spool validated so far
            self._to(("validating", path), "B").note(f"{lines:,} lines")
            self.read(path, *self.spooled.spool_read())
        elif self.job == ("validating", path) and self.line.unit == "B":
            self.line.note(f"{lines:,} lines")
        else:
            self._to(("validating", path), " lines")(lines)

    def recheck(self, path: str, stage: str, done: int, total: int) -> None:
        """``recheck_progress``: the topics split over ``path`` checked again at the end,
        on a line of their own (the file's bar stays at 100% meanwhile): the rows kept
        sorted into groups (``routing``), then the groups checked."""
        if stage == "routing":
            self._to(("grouping the split topics' lines of", path), " lines")(done, total)
        else:
            self._to(("re-checking the split topics of", path), " groups")(done, total)

    def _to(self, job: tuple[str, str], unit: str) -> StderrProgress:
        if job != self.job:
            self.close()
            self.job = job
            self.line = StderrProgress(" ".join(job), unit=unit, since=self.began)
            if self.began is None:
                self.began = self.line.start
        return self.line

    def close(self) -> None:
        if self.line is not None:
            self.line.close()


def _refused_fix(error: Exception) -> dict | None:
    """The JSON ``fix`` of a run ``--fix`` refused (or failed to write): nothing written,
    and why, in the words stderr gives; None for an unexpected error (no message for it)."""
    from ..errors import InputError, TrecbenchError

    if not isinstance(error, TrecbenchError):
        return None
    why = error.cli_line() if isinstance(error, InputError) else str(error)
    return {"output": None, "changes": [], "counts": None, "refused": why}


def _fix(v, source, others, out, tag, profile, max_depth, results, verify, progress) -> dict:
    """Write the fixed run (verified by ``verify``); what it changed, for the report.
    ``progress``: a :class:`~.progress.TaskProgress` told of the rewrite's steps, or None."""
    others = [p for p in others if p]  # qrels, topics, docids (fix_run protects the run)
    changes = v.fix_run(
        source,
        out,
        profile=profile,
        max_depth=max_depth,
        result=results[-1],
        inputs=others,
        tag=tag,
        verify=verify,
        progress=progress,
    )
    changed = [c.to_dict() | {"text": c.format()} for c in changes]
    counts = verify.result.all_counts  # as the fixed run's own validation reports them
    # a Path is not JSON; refused: what a refused fix says instead (_refused_fix)
    return {"output": str(out), "changes": changed, "counts": counts, "refused": None}
