"""``--fix``: write the canonical form of a run and list every change made."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import arrow, files
from ..errors import ExitCode, TrecbenchError
from ..inputs import to_pandas, trec_text
from ..inputs.streams import File, Source, path_of
from ..ranking import rank_run, truncate
from .api import validate_run
from .checker import classify, pair_text
from .findings import Finding, ValidationResult
from .rules import FIXABLE, PROFILE_DEPTH, Default, resolve_depth, rule_sort_key


class UnfixableError(TrecbenchError):
    """``--fix`` met errors it cannot repair (bad scores, encoding, mixed tags, ...)."""

    exit_code = ExitCode.INPUT


@dataclass(frozen=True)
class Change:
    """One kind of change ``--fix`` made: how many lines, and the first of them."""

    what: str
    count: int
    lines: tuple[int, ...]

    def format(self) -> str:
        shown = ", ".join(map(str, self.lines))
        more = ", ..." if self.count > len(self.lines) else ""
        return f"{self.what}: {self.count} line(s) ({shown}{more})" if shown else self.what

    def to_dict(self) -> dict:
        return {"change": self.what, "count": self.count, "lines": list(self.lines)}


def _unfixable(result: ValidationResult, dropped: Collection[int] = ()) -> list[Finding]:
    """The errors ``--fix`` cannot repair: of a check it does not fix, on a line it does
    not drop (``dropped``: comment and header lines), or of a check with findings beyond
    those kept (their lines are unknown)."""
    errors = [f for f in result.findings if f.severity == "error" and f.check not in FIXABLE]
    kept = Counter(f.check for f in errors)
    return [
        f
        for f in errors
        if f.line not in dropped or result.check_counts.get(f.check, 0) > kept[f.check]
    ]


def _refuse(path, errors: list[Finding]) -> None:
    if errors:
        rules = ", ".join(sorted({f.rule for f in errors}, key=rule_sort_key))
        raise UnfixableError(f"{path}: --fix cannot repair {rules}; first: {errors[0].format()}")


def _refuse_whole_file(path, result: ValidationResult) -> None:
    """Refuse a run with a whole-file problem (UTF-16, double gzip...), before its content
    is parsed: its lines mean nothing."""
    errors = _unfixable(result)
    if any(f.line is None for f in errors):
        _refuse(path, errors)


def fix_run(
    path: File,
    out: str | os.PathLike,
    *,
    profile: str = "default",
    max_depth: int | None | Default = PROFILE_DEPTH,
    result: ValidationResult | None = None,
    inputs: Sequence[str | os.PathLike] = (),
    shown: int = 20,
) -> list[Change]:
    """Write the canonical form of a run to ``out`` and return every change made.

    Canonical: tab-separated ``qid Q0 docno rank score tag``; topics in byte-wise qid
    order, documents in trec_eval order (score desc as float32, docno desc); the first
    occurrence of a duplicate kept; at most ``max_depth`` documents per topic (default: the
    profile's); ranks 1..n; scores in the shortest text that reads back as the same double.
    Blank, comment and header lines and tokens after the tag are dropped. Refuses
    (:class:`UnfixableError`) if the run has errors that cannot be repaired safely (bad
    scores or ids, encoding, mixed tags...), and never overwrites ``path`` or any of
    ``inputs``.

    ``path``: the run file, or a :class:`~trecbench.inputs.streams.Source` the caller
    opened with ``spool=True`` (and ``result``: its validation from that Source), whose
    content is rewritten from its start; the caller closes it and records its checksum.
    A path is opened here, spooled, and validated (unless ``result`` is given) and
    rewritten from that one read.
    """
    max_depth = resolve_depth(max_depth, profile)
    if result is not None:
        _refuse_whole_file(path_of(path), result)  # before a path is even read
    if isinstance(path, Source):
        return _fix(path, out, profile, max_depth, result, inputs, shown)
    # spooled: the validation and the rewrite share one read, so the run that is rewritten
    # is the one that was validated, and a pipe is read once
    with Source(path, spool=True) as source:
        changes = _fix(source, out, profile, max_depth, result, inputs, shown)
        source.record()
    return changes


def _fix(
    source: Source,
    out: str | os.PathLike,
    profile: str,
    max_depth: int | None,
    result: ValidationResult | None,
    inputs: Sequence[str | os.PathLike],
    shown: int,
) -> list[Change]:
    """:func:`fix_run` on an open (spooled) source."""
    path = source.path
    if result is None:
        result = validate_run(source, profile=profile, max_depth=max_depth)
        _refuse_whole_file(path, result)
    data = source.read()  # from the start of the spooled bytes: the file is not read again
    tokens = trec_text.tokenize(data, path)
    comment, header = classify(tokens, True, 4)
    _refuse(path, _unfixable(result, set(tokens.line[comment | header].tolist())))
    keep = (tokens.nfields >= 6) & ~comment & ~header
    index = arrow.array(np.flatnonzero(keep))
    qid, q0, docno, rank, score, tag = (f.take(index) for f in tokens.fields[:6])
    line = tokens.line[keep]
    table = pa.table(
        {
            "qid": qid,
            "docno": docno,
            "score": pc.cast(score, pa.float64()),
            "tag": tag,
            "line": arrow.array(line),
            "rank": rank,
        }
    )
    ranked = rank_run(table)
    pair = pair_text(ranked.column("qid"), ranked.column("docno")).combine_chunks()
    codes = arrow.to_numpy(pc.dictionary_encode(pair).indices)
    _, first = np.unique(codes, return_index=True)
    dropped = np.setdiff1d(np.arange(ranked.num_rows), first)
    duplicates = np.sort(arrow.to_numpy(ranked.column("line"))[dropped])
    deduped = rank_run(ranked.take(arrow.array(np.sort(first))).drop_columns(["rank"]))
    final = truncate(deduped, max_depth)
    cut = np.sort(
        arrow.to_numpy(
            pc.filter(
                deduped.column("line"),
                pc.invert(pc.is_in(deduped.column("line"), value_set=final.column("line"))),
            )
        )
    )

    kept_lines = arrow.to_numpy(final.column("line"))
    rows = np.searchsorted(line, kept_lines)  # line numbers are increasing: row of each
    raw_rank = arrow.to_numpy(rank.take(arrow.array(rows)))
    new_rank = arrow.to_numpy(pc.cast(final.column("rank"), pa.string()))
    raw_score = arrow.to_numpy(score.take(arrow.array(rows)))
    new_score = arrow.to_numpy(files.format_scores(arrow.to_numpy(final.column("score"))))
    fields6 = [f.take(index) for f in tokens.fields[:6]]
    canonical_input = pc.binary_join_element_wise(*fields6, arrow.scalar("\t", fields6[0].type))
    raw = trec_text.raw_lines(data)
    raw_kept = pc.utf8_rtrim(raw.take(arrow.array(line - 1)), "\n")
    spaced = line[~arrow.to_numpy(pc.equal(raw_kept, canonical_input.cast(raw_kept.type)))]
    spaced = np.intersect1d(spaced, kept_lines)
    nf = tokens.nfields

    def change(what: str, lines) -> Change:
        lines = np.sort(np.asarray(lines, np.int64))
        return Change(what, len(lines), tuple(int(n) for n in lines[:shown]))

    moved = kept_lines[1:][np.diff(kept_lines) < 0]
    candidates = [
        change("dropped blank lines", tokens.blank_lines),
        change("dropped comment lines", tokens.line[comment]),
        change("dropped the header line", tokens.line[header]),
        change("dropped tokens after the tag", tokens.line[keep & (nf > 6)]),
        change("dropped duplicate documents (kept the first in trec_eval order)", duplicates),
        change(f"dropped documents beyond --max-depth {max_depth}", cut),
        change("moved into trec_eval order (qid, score desc, docno desc)", moved),
        change(
            "set field 2 to Q0", line[arrow.to_numpy(pc.not_equal(q0, arrow.scalar("Q0", q0.type)))]
        ),
        change("renumbered ranks 1..n", kept_lines[raw_rank != new_rank]),
        change("rewrote scores in shortest round-trip form", kept_lines[raw_score != new_score]),
        change("normalised separators and line ends to single tabs and LF", spaced),
    ]
    changes = [c for c in candidates if c.count]
    files.write_run(to_pandas(final), out, inputs=[path, *inputs])
    return changes
