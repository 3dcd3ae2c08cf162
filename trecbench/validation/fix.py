"""``--fix``: write the canonical form of a run and list every change made."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa

from .. import arrow, files, outputs
from .. import arrow_compute as pc
from ..errors import ExitCode, InputError, TrecbenchError, excerpt
from ..escaping import id_list
from ..inputs import ir_metadata, to_pandas, trec_text
from ..inputs.formats import TREC_TEXT
from ..inputs.streams import File, LabelledProgress, Source, path_of, steps
from ..naming import check_run_tag
from ..ranking import rank_table, truncate
from .api import validate_run, validate_tokens
from .checker import pair_text
from .findings import Finding, ValidationResult
from .fix_said import cut_said, runid_said
from .headers import classify
from .rules import FIXABLE, PROFILE_DEPTH, Default, resolve_depth, rule_sort_key
from .topic_order import ascending


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


# the steps of the rewrite its progress counts: the lines read (tokenized), ordered
# (ranked, deduplicated, cut), compared with the input's, the text made, verified, written
FIX_STEPS = 6

# what setting one tag on every line repairs: mixed tags, the tag's charset, its file name
TAG_CHECKS = frozenset({"R17", "R18", "R19"})

Verify = Callable[[trec_text.Tokens], ValidationResult]


def _unfixable(
    result: ValidationResult, dropped: Collection[int] = (), fixable: Collection[str] = FIXABLE
) -> list[Finding]:
    """The errors ``--fix`` cannot repair: of a check not in ``fixable``, on a line it
    does not drop (``dropped``: comment and header lines), or of a check with findings
    beyond those kept (their lines are unknown); and a malformed ir_metadata block, whose
    lines are comment lines to drop but the run's provenance, lost unsaid if dropped."""
    errors = [f for f in result.findings if f.severity == "error" and f.check not in fixable]
    kept = Counter(f.check for f in errors)
    return [
        f
        for f in errors
        if f.line not in dropped
        or result.check_counts.get(f.check, 0) > kept[f.check]
        or f.check == "R30.malformed"
    ]


def _refuse(path, errors: list[Finding]) -> None:
    if errors:
        rules = ", ".join(sorted({f.rule for f in errors}, key=rule_sort_key))
        hint = "; --fix-tag TAG sets one tag" if {f.check for f in errors} & TAG_CHECKS else ""
        raise UnfixableError(
            f"{path}: --fix cannot repair {rules}{hint}; first: {errors[0].format()}"
        )


def _refuse_whole_file(path, result: ValidationResult, fixable: Collection[str]) -> None:
    """Refuse a run with a whole-file problem (UTF-16, double gzip...), before its content
    is parsed: its lines mean nothing."""
    errors = _unfixable(result, fixable=fixable)
    # the run against --topics and the qrels (R5, X2, X3: topics, no line) is judged with
    # its content (_fix), where a byte-order mark's such errors are gone with the mark
    if any(f.line is None and not (f.rule == "R5" or f.rule.startswith("X")) for f in errors):
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
    tag: str | None = None,
    verify: Verify | None = None,
    progress: LabelledProgress | None = None,
) -> list[Change]:
    """Write the canonical form of a run to ``out`` and return every change made.

    Canonical: tab-separated ``qid Q0 docno rank score tag``; topics in the order they
    first appear when that is ascending (numerically or byte-wise: R20; a split topic
    joined at its first block), else in byte-wise qid order;
    documents in trec_eval order (score desc as float32, docno desc); the first
    occurrence of a duplicate kept; at most ``max_depth`` documents per topic (default: the
    profile's); ranks 1..n; scores in the fewest digits that read back as the same double
    (a zero as ``0``, ``-0`` too: :func:`~trecbench.files.format_scores`).
    Blank, comment and header lines and tokens after the tag are dropped; an ir_metadata
    block atop the run is kept, line ends LF (dropped, and said so, for a Parquet ``out``;
    a ``tag`` it gives that is not ``tag`` is refused). Refuses
    (:class:`UnfixableError`) if the run has errors that cannot be repaired safely (bad
    scores or ids, encoding, mixed tags...), and never overwrites ``path`` or any of
    ``inputs``.

    ``path``: the run file, or a :class:`~trecbench.inputs.streams.Source` the caller
    opened with ``spool=True`` (and ``result``: its validation from that Source), whose
    content is rewritten from its start; the caller closes it and records its checksum.
    A path is opened here, spooled, and validated (unless ``result`` is given) and
    rewritten from that one read.

    ``tag``: the run tag of every line (then mixed tags, R17, and the tag rules R18 and
    R19 are repaired too). ``verify``: how the fixed run is validated before it is written,
    given its tokens (default: ``validate_tokens`` with ``profile`` and ``max_depth``); if
    errors remain, :class:`UnfixableError` names their rules and nothing is written.

    ``progress(label, done, total)``: the steps of the rewrite done, of
    :data:`FIX_STEPS` (label ``fixing PATH``): the lines read, ordered, compared, the
    text made, verified, written; a bar with an ETA, for a run of millions of lines.
    """
    max_depth = resolve_depth(max_depth, profile)
    check_run_tag(tag)
    settings = _Settings(profile, max_depth, tuple(inputs), shown, tag, verify, progress)
    if result is not None:
        _refuse_whole_file(path_of(path), result, settings.fixable)  # before it is read
    if isinstance(path, Source):
        return _fix(path, out, result, settings)
    # spooled: the validation and the rewrite share one read, so the run that is rewritten
    # is the one that was validated, and a pipe is read once
    with Source(path, spool=True) as source:
        changes = _fix(source, out, result, settings)
        source.record()
    return changes


@dataclass(frozen=True)
class _Settings:
    """What :func:`fix_run` was asked, for :func:`_fix`."""

    profile: str
    max_depth: int | None
    inputs: tuple
    shown: int
    tag: str | None
    verify: Verify | None
    progress: LabelledProgress | None = None

    @property
    def fixable(self) -> frozenset[str]:
        return FIXABLE | TAG_CHECKS if self.tag is not None else FIXABLE


def _fix(
    source: Source, out: str | os.PathLike, result: ValidationResult | None, settings: _Settings
) -> list[Change]:
    """:func:`fix_run` on an open (spooled) source."""
    path, max_depth, shown = source.path, settings.max_depth, settings.shown
    if source.format is not TREC_TEXT:  # its lines are rewritten: they must be TREC text's
        what = f"--fix rewrites TREC text: a {source.format.name} run cannot be fixed"
        raise InputError(path, None, f"{what} (write it as TREC text first)")
    if result is None:
        result = validate_run(source, profile=settings.profile, max_depth=max_depth)
        _refuse_whole_file(path, result, settings.fixable)
    step = steps(settings.progress, f"fixing {path}", FIX_STEPS)
    # from the start of the spooled bytes: the file is not read again
    data, bom_changes = _without_bom(source.read())
    block, tokens, block_changes = _block_apart(data, path, out, settings)
    step()
    comment, header = classify(tokens, True, 4)
    dropped = set(tokens.line[comment | header].tolist())
    if tokens.ir_metadata is not None:
        # a block behind a byte-order mark: its lines were data then (R1, R22), the block
        # once the mark is dropped (R23's own advice, refused as "cannot repair R1")
        dropped.update(range(1, tokens.ir_metadata.lines + 1))
    if bom_changes:
        # the errors the mark made go with it (its first qid '\ufeffq1', in no --topics
        # or qrels: R4, R5, X3, refused as "cannot repair" after R23's advice to --fix):
        # judged on the run without it, as the fixed run is
        result = _verifier(settings)(tokens)
    _refuse(path, _unfixable(result, dropped, settings.fixable))
    keep = (tokens.nfields >= 6) & ~comment & ~header
    index = arrow.array(np.flatnonzero(keep))
    fields6 = [f.take(index) for f in tokens.fields[:6]]
    q0 = fields6[1]
    line = tokens.line[keep]
    final, duplicates, cut, split = _canonical_rows(fields6, line, max_depth)
    step()
    kept_lines = arrow.to_numpy(final.column("line"))
    renumbered, rescored, spaced = _rewritten_lines(data, fields6, line, final)
    # the text written ends its last line with LF: a run whose last line has none gains it
    # (R25; a last line dropped is said so alone); a Parquet run has no separators nor line ends
    unended = np.array([] if tokens.ends_with_newline else [tokens.n_physical_lines], np.int64)
    if files.parquet_named(out):
        spaced, unended = spaced[:0], unended[:0]
    step()
    nf = tokens.nfields

    def change(what: str, lines) -> Change:
        lines = np.sort(np.asarray(lines, np.int64))
        return Change(what, len(lines), tuple(int(n) for n in lines[:shown]))

    def written(lines: np.ndarray) -> np.ndarray:
        return lines[np.isin(lines, kept_lines)]

    # a line moved when its place among the kept lines changed: every line of a topic
    # sorted before topics read earlier, not only the line where the order breaks
    moved = kept_lines[kept_lines != np.sort(kept_lines)]
    candidates = [
        *bom_changes,
        *block_changes,
        change("dropped blank lines", tokens.blank_lines),
        change("dropped comment lines", tokens.line[comment & (nf < 6)]),
        change(_run_line_comments(tokens, comment & (nf >= 6)), tokens.line[comment & (nf >= 6)]),
        change("dropped the header line", tokens.line[header]),
        # of the lines written: a duplicate dropped, or a line cut, had no field set
        change("dropped tokens after the tag", written(tokens.line[keep & (nf > 6)])),
        change("dropped duplicate documents (kept the first in trec_eval order)", duplicates),
        # numbers trec_eval gives the run as it was, without -M, change: said
        change(cut_said(max_depth, split), cut),
        change("moved into trec_eval order (qid, score desc, docno desc)", moved),
        change(
            "set field 2 to Q0",
            written(line[arrow.to_numpy(pc.not_equal(q0, arrow.scalar("Q0", q0.type)))]),
        ),
        change("renumbered ranks 1..n", renumbered),
        change("rewrote scores in shortest round-trip form", rescored),
        change("normalised separators and line ends to single tabs and LF", spaced),
        change("added the final newline the run lacked", written(unended)),
    ]
    if settings.tag is None and final.num_rows:  # else every line's tag is set, and said
        read = np.flatnonzero((nf >= 6) & ~header)  # 9.x reads a comment line of 6 fields
        tags = (tokens.fields[5][int(read[-1])], fields6[5][-1], final.column("tag")[-1])
        said = runid_said(*(tag.as_py() for tag in tags))
        candidates.append(change(said, kept_lines[-1:] if said else []))
    elif settings.tag is not None:
        tags = final.column("tag")
        retagged = arrow.to_numpy(pc.not_equal(tags, arrow.scalar(settings.tag, tags.type)))
        candidates.append(change(f"set the run tag to {settings.tag}", kept_lines[retagged]))
        one_tag = pa.repeat(pa.scalar(settings.tag, pa.string()), final.num_rows)
        final = final.set_column(final.schema.get_field_index("tag"), "tag", one_tag)
    changes = [c for c in candidates if c.count]
    _write_verified(final, block, out, path, settings, step)
    return changes


def _float32_ties_cut(ranked: pa.Table, depth: int | None) -> int:
    """How many topics of ``ranked`` (trec_eval 9.x order, ranks 1..n) the cut at
    ``depth`` splits a tie of scores equal as float32 yet not as doubles (9.x keeps the
    tie's higher docnos, 10.0 its higher doubles)."""
    rank = arrow.to_numpy(ranked.column("rank"))
    if depth is None or not len(rank) or rank.max() <= depth:
        return 0
    topic = np.cumsum(rank == 1) - 1
    wide = arrow.to_numpy(ranked.column("score"))
    with np.errstate(over="ignore"):  # beyond float32's range: infinity, as 9.0.8 reads it
        narrow = wide.astype(np.float32)
    edge = np.full(topic[-1] + 1, np.nan, np.float32)  # each topic's first score cut
    edge[topic[rank == depth + 1]] = narrow[rank == depth + 1]
    tied = narrow == edge[topic]  # NaN (no cut) equals nothing
    kept = np.bincount(topic[tied & (rank <= depth)], minlength=len(edge)) > 0
    low, high = np.full(len(edge), np.inf), np.full(len(edge), -np.inf)
    np.minimum.at(low, topic[tied], wide[tied])
    np.maximum.at(high, topic[tied], wide[tied])
    return int(np.count_nonzero(kept & (low < high)))


def _canonical_rows(
    fields6: list[pa.Array], line: np.ndarray, max_depth: int | None
) -> tuple[pa.Table, np.ndarray, np.ndarray, int]:
    """The run's rows (``fields6``: the six fields of its run lines, ``line``: their line
    numbers) in canonical form: ranked in trec_eval order, the first of each duplicate
    document kept, cut at ``max_depth``, topics in :func:`_in_run_topic_order`. Also the
    line numbers of the duplicates dropped and of the rows cut, and how many topics the
    cut splits a float32-only tie in (:func:`_float32_ties_cut`)."""
    qid, _q0, docno, rank, score, tag = fields6
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
    ranked = rank_table(table)
    pair = pair_text(ranked.column("qid"), ranked.column("docno")).combine_chunks()
    # codes number the pairs in the order they first appear: a row is a pair's first
    # when its code exceeds every code before it (no hash of every row: numpy's unique,
    # setdiff1d and intersect1d took tens of seconds on a 1.8M-line run)
    codes = arrow.to_numpy(pc.dictionary_encode(pair).indices).astype(np.int64)
    first = np.ones(len(codes), bool)
    first[1:] = codes[1:] > np.maximum.accumulate(codes)[:-1]
    duplicates = np.sort(arrow.to_numpy(ranked.column("line"))[~first])
    deduped = ranked if first.all() else _renumbered(ranked.filter(arrow.array(first)))
    final = _in_run_topic_order(truncate(deduped, max_depth), qid)
    cut = np.sort(
        arrow.to_numpy(
            pc.filter(
                deduped.column("line"),
                pc.invert(pc.is_in(deduped.column("line"), value_set=final.column("line"))),
            )
        )
    )
    return final, duplicates, cut, _float32_ties_cut(deduped, max_depth)


def _renumbered(ranked: pa.Table) -> pa.Table:
    """``ranked`` (in trec_eval order; rows dropped from a table :func:`rank_table` ranked,
    so still in its order: not sorted again) with its ranks renumbered 1..n per topic."""
    from ..ranking import ranks_within

    ranks = ranks_within(ranked.column("qid"))
    where = ranked.column_names.index("rank")
    return ranked.set_column(where, "rank", arrow.array(ranks, pa.int64()))


def _rewritten_lines(
    data: bytes, fields6: list[pa.Array], line: np.ndarray, final: pa.Table
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kept lines whose text ``final`` rewrites, by what changed: the rank, the
    score's spelling, the separators or line end (the raw line is not its six fields
    joined by single tabs)."""
    _qid, _q0, _docno, rank, score, _tag = fields6
    kept_lines = arrow.to_numpy(final.column("line"))
    rows = np.searchsorted(line, kept_lines)  # line numbers are increasing: row of each
    raw_rank = arrow.to_numpy(rank.take(arrow.array(rows)))
    new_rank = arrow.to_numpy(pc.cast(final.column("rank"), pa.string()))
    raw_score = arrow.to_numpy(score.take(arrow.array(rows)))
    new_score = arrow.to_numpy(files.format_scores(arrow.to_numpy(final.column("score"))))
    canonical_input = pc.binary_join_element_wise(*fields6, arrow.scalar("\t", fields6[0].type))
    raw = trec_text.raw_lines(data)
    raw_kept = pc.utf8_rtrim(raw.take(arrow.array(line - 1)), "\n")
    kept = np.zeros(len(line), bool)
    kept[rows] = True
    spaced = line[~arrow.to_numpy(pc.equal(raw_kept, canonical_input.cast(raw_kept.type))) & kept]
    return kept_lines[raw_rank != new_rank], kept_lines[raw_score != new_score], spaced


def _in_run_topic_order(ranked: pa.Table, qid: pa.Array) -> pa.Table:
    """``ranked`` (topics in byte-wise order, each in trec_eval's) with its topics in the
    order they first appear in (``qid``: its rows' in file order; a split topic joined at
    its first block) when that is an ascending order R20 accepts (numeric: ``1, 2, 10``):
    --fix changes no order no rule flags. Otherwise the byte-wise order, trec_eval's."""
    listed = pc.unique(qid)  # in the order of first appearance
    if ranked.num_rows == 0 or not ascending(listed.to_pylist()):
        return ranked
    place = arrow.to_numpy(pc.index_in(ranked.column("qid"), value_set=listed))
    return ranked.take(arrow.array(np.argsort(place, kind="stable")))


def _without_bom(data: bytes) -> tuple[bytes, list[Change]]:
    """The run without a leading UTF-8 byte-order mark, and the change when it had one:
    a signature of the encoding, no data; trec_eval reads it as part of the first qid
    (R23), a topic of its own."""
    if not data.startswith(trec_text.BOM):
        return data, []
    what = (
        "dropped the UTF-8 byte-order mark (trec_eval read it into the first qid, a topic of "
        "its own: that topic's lines now score as the topic they name)"
    )
    return data[len(trec_text.BOM) :], [Change(what, 1, (1,))]


def _run_line_comments(tokens: trec_text.Tokens, rows: np.ndarray) -> str:
    """What dropping the ``#`` lines of six fields or more (``rows``) does: trec_eval 9.x
    reads each as a document of its topic (``#7``), which 10.0 skips (R22)."""
    topics = list(dict.fromkeys(tokens.fields[0].filter(arrow.array(rows)).to_pylist()))
    named = id_list(topics, limit=3)  # a topic read from the run as a list's item
    of = "topic" if len(topics) == 1 else "topics"
    return (
        f"dropped comment lines trec_eval 9.x reads as documents of {of} {named} (10.0 skips them)"
    )


def _block_apart(
    data: bytes, path: str, out: str | os.PathLike, settings: _Settings
) -> tuple[bytes, trec_text.Tokens, list[Change]]:
    """The run's ir_metadata block to keep atop the fixed run (b"" when none), the tokens
    of the lines after it, and what was changed of the block (its CRLF line ends made LF;
    dropped for a Parquet ``out``, which holds no such block).

    The block is metadata trecbench reads (R30), a run's provenance (``convert`` and
    ``fuse --ir-metadata`` write it): not comment lines to drop. A malformed block
    (R30.malformed) is no metadata: its lines are what trec_eval 9.x reads, comment lines
    (dropped). A ``--fix-tag`` the block's ``tag`` contradicts is refused."""
    tokens = trec_text.tokenize_run_start(data, path)
    found = tokens.ir_metadata
    if found is None or found.error is not None:  # a malformed block: its lines tokenized
        return b"", replace(tokens, ir_metadata=None), []
    if files.parquet_named(out):
        shown = tuple(range(1, min(found.lines, settings.shown) + 1))
        what = "dropped the ir_metadata block (a Parquet run holds none)"
        return b"", tokens, [Change(what, found.lines, shown)]
    given = found.value.get("tag")
    if settings.tag is not None and ir_metadata.contradicts_tag(given, settings.tag):
        raise UnfixableError(
            f"{path}: --fix-tag {settings.tag} would contradict the ir_metadata block "
            f"(lines 1-{found.lines}), whose tag is {excerpt(given)}: give it the new tag "
            "too, or remove the block"
        )
    lines = data[: found.size].split(b"\n")
    what = "normalised the ir_metadata block's line ends to LF"
    block = b"\n".join(line.removesuffix(b"\r") for line in lines)
    return block, tokens, [Change(what, len(found.crlf), found.crlf[: settings.shown])]


def _verifier(settings: _Settings) -> Verify:
    """How a run's tokens are validated as the fixed run is: ``settings.verify`` (with
    the command's qrels and topics), else alone."""
    return settings.verify or (
        lambda tokens: validate_tokens(
            tokens, "run", profile=settings.profile, max_depth=settings.max_depth
        )
    )


def _write_verified(
    final: pa.Table,
    block: bytes,
    out: str | os.PathLike,
    path: str,
    settings: _Settings,
    step: Callable[[], None],
) -> None:
    """Validate the fixed run (``final``: its rows in canonical order; its canonical text
    after the kept ir_metadata ``block``, in memory) and write it only if no error
    remains. The text is made from the Arrow table as it is (not through a DataFrame read
    back and checked anew: seconds on a large run, the same bytes)."""
    text = block + files.run_bytes(final, ids_read_from_text=True)
    step()
    tokens = trec_text.tokenize_run_start(text, os.fspath(out))
    remaining = [f for f in _verifier(settings)(tokens).findings if f.severity == "error"]
    step()
    if remaining:
        rules = ", ".join(sorted({f.rule for f in remaining}, key=rule_sort_key))
        # not "still": the run given may not fail them (its one line a comment --fix drops,
        # R26; a --fix-tag that breaks R18)
        why = " (--fix dropped every line)" if not final.num_rows else ""
        raise UnfixableError(
            f"{out}: the fixed run would fail {rules}{why}, which --fix cannot repair "
            f"(nothing written); first: {remaining[0].format()}"
        )
    if block or not files.parquet_named(out):  # the block as the run gave it, the lines
        outputs.write_file(out, text, [path, *settings.inputs])
    else:
        files.write_run(to_pandas(final), out, inputs=[path, *settings.inputs])
    step()
