"""Writing a conversion: its files checked, staged, validated with the strict profile
and put in place as a unit (:func:`write_conversion`), and the ``compare`` command for
the runs written (:func:`compare_command`)."""

from __future__ import annotations

import itertools
import os
import shlex
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from .. import output_identity, outputs
from ..callbacks import refuse_uncallable
from ..errors import InputError, OutputError, Setting, UsageError
from ..escaping import escape_text
from ..inputs.streams import LabelledProgress as Progress
from ..inputs.streams import labelled
from ..inputs.tokens import MOST_LINE_BYTES
from ..naming import listed, path_argument
from ..plurals import counted
from ..provenance import Digest
from ..text_bytes import utf8
from ..trec_eval.negative_topics import unevaluable
from ..type_names import python_type
from .identifiers import check_name
from .model import Conversion, RunOutput
from .sidecar import described_checksums, json_text, listed_files, sidecar_dict


def check_judgeable(conversion: Conversion) -> None:
    """Refuse, naming the input, what would make an invalid or unscorable output: an empty
    qrels or run, a run with no query in its qrels, or a query whose judgments are all
    negative where trec_eval 9.0.8 cannot evaluate it: among a run's queries, or, for
    qrels no run of the conversion is judged by, among all of theirs (a run of every
    judged query, as BEIR retrieves for every query)."""
    source = conversion.source
    for name, table in conversion.qrels.items():
        if table.empty:
            origin = conversion.qrels_sources.get(name, source)
            raise InputError(origin, None, f"no judgment to write as qrels {name}")
    for run in conversion.runs:
        if run.table.empty:
            raise InputError(run.source or source, None, f"run {run.tag}: no retrieved document")
        if run.qrels is None:
            continue
        asked = set(run.table["qid"])
        if asked.isdisjoint(conversion.qrels[run.qrels]["qid"]):
            raise InputError(  # the run's file, whose queries are not the qrels'
                run.source or source,
                None,
                f"run {run.tag} has no query in common with qrels {run.qrels}",
            )
        _check_negative(conversion, run.qrels, asked)
    judging = {run.qrels for run in conversion.runs}
    for name, table in conversion.qrels.items():
        if name not in judging:
            _check_negative(conversion, name, set(table["qid"]))


def _check_negative(conversion: Conversion, name: str, asked: set[str]) -> None:
    """Refuse a query of ``asked`` whose judgments in qrels ``name`` are all negative and
    that trec_eval 9.0.8 cannot evaluate when given those queries."""
    qrels = conversion.qrels[name]
    line_of = conversion.qrels_lines.get(name)
    best = qrels[qrels["qid"].isin(asked)].groupby("qid")["rel"].max()
    # in trec_eval's order of topics (byte-wise): it evaluates a later one graded -1
    for position, (qid, grade) in enumerate(sorted(best.items())):
        outcome = unevaluable(position, int(grade))
        if outcome is not None:
            raise InputError(
                conversion.qrels_sources.get(name, conversion.source),
                None if line_of is None else line_of(qid),
                f"qrels {name}: query {qid!r} has only negative judgments (largest "
                f"{int(grade)}), which trec_eval 9.0.8 cannot evaluate (it {outcome})",
            )


def compare_command(conversion: Conversion, paths: dict[str, Path]) -> str | None:
    """The ``trecbench compare`` command for the runs written: ``compare QRELS RUN...``
    when they share their qrels, else each with its own (``--run-qrels RUN QRELS``);
    None with fewer than two runs or a run without qrels."""
    runs = conversion.runs
    if len(runs) < 2 or any(run.qrels is None for run in runs):
        return None
    files = [str(paths[f"run:{run.tag}"]) for run in runs]
    qrels = [str(paths[f"qrels:{run.qrels}"]) for run in runs]
    if len(set(qrels)) == 1:
        return shlex.join(["trecbench", "compare", qrels[0], *files])
    pairs = [part for pair in zip(files, qrels, strict=True) for part in ("--run-qrels", *pair)]
    return shlex.join(["trecbench", "compare", *pairs])


# what a converted run may hold that validate refuses: more documents a topic than a TREC
# submission takes (R8; the input had them, trec_eval scores them all). Said, not refused.
SAID_NOT_REFUSED = frozenset({"R8"})


def _validate(
    kind: str,
    path: Path,
    label: str,
    read_from: Sequence[str],
    qrels=None,
    progress: Progress | None = None,
) -> tuple[dict, object]:
    """Validate a staged output (``label``: its final name) with the strict profile, as
    ``trecbench validate --profile strict`` would; raise on any error but those of
    :data:`SAID_NOT_REFUSED` (the converters check their inputs first: any other error
    here is a bug).

    ``read_from``: the conversion's inputs, which ids too long to write are refused at.
    Returns the sidecar's summary (counts and the findings) and, for qrels, the
    ``QrelsInfo`` the run checks need. ``progress``: told ``validating LABEL`` in bytes.
    """
    from ..validation import validate_qrels, validate_run

    validating = labelled(progress, f"validating {label}")
    told = None if validating is None else lambda _path, done, total: validating(done, total)
    if kind == "run":
        result = validate_run(path, profile="strict", qrels=qrels, read_progress=told)
    else:
        result = validate_qrels(path, profile="strict", collect_judged=True, read_progress=told)
    refused = [
        f for f in result.findings if f.severity == "error" and f.rule not in SAID_NOT_REFUSED
    ]
    if refused:
        first = refused[0]
        if first.check == "R27.long":  # ids too long to write: the input's, no bug
            raise InputError(
                " and ".join(read_from) or label,
                None,
                f"ids so long that line {first.line} of the converted {kind} {label} would "
                f"be longer than {MOST_LINE_BYTES >> 20} MiB, which validate refuses (R27)",
            )
        raise InputError(
            label,
            first.line,
            f"converted {kind} fails validation: {first.rule}: {first.message} "
            f"({counted(result.errors, 'error')}); this is a trecbench bug, please report it",
        )
    summary = {"counts": result.counts, "findings": [f.to_dict() for f in result.findings]}
    return summary, result.qrels_info


def _say_deep(conversion: Conversion, name: str, summary: dict) -> None:
    """A note of a run's topics over validate's depth (R8): the run is written as the input
    holds it, and validate will refuse it as a TREC submission."""
    from ..validation.rules import PROFILES

    # the totals: findings are kept up to validation.DEFAULT_LIMIT per check
    deep = summary["counts"]["rules"].get("R8", 0)
    if deep:
        conversion.report.notes.append(
            f"{escape_text(name)}: {counted(deep, 'topic')} "
            f"{'holds' if deep == 1 else 'hold'} more than "
            f"{PROFILES['strict'].max_depth} documents (R8: validate refuses it as a TREC "
            "submission; trec_eval scores every document)"
        )


def _headed(conversion: Conversion, run: RunOutput) -> bytes:
    """The ir_metadata block a run's file begins with (none without metadata)."""
    if conversion.ir_metadata is None:
        return b""
    from ..inputs import ir_metadata

    return utf8(ir_metadata.block_text({"tag": run.tag, **conversion.ir_metadata}))


def _digested(pieces: Iterable[bytes], digest: Digest) -> Iterator[bytes]:
    """``pieces`` as they are, each counted and checksummed by ``digest`` on its way to the
    staged file: an output's size and sha256 without reading it again."""
    for piece in pieces:
        digest.update(piece)
        yield piece


def _written(path: str, kind: str, digest: Digest) -> dict:
    """The sidecar's ``provenance.outputs`` record of a file written (``path`` as the
    sidecar names it), as ``provenance.inputs`` records an input."""
    return {"path": path, "kind": kind, **digest.record()}


def _output_words(key: str) -> str:
    """What the output of ``key`` (``qrels:NAME``, ``run:TAG``, ``sidecar``) is, in words."""
    kind, _, name = key.partition(":")
    return {"qrels": f"the qrels {name}", "run": f"the run tagged {name}"}.get(kind, "the sidecar")


def _refuse_earlier_files(targets: dict[str, Path], inputs: Sequence[str | os.PathLike]) -> None:
    """Refuse to replace a sidecar describing files this conversion does not write (an
    earlier conversion's runs into the same folder, ``--tag char`` then ``--tag word``):
    they would stay, described by no sidecar. Converting system by system into one folder
    is no workflow of convert's: one call converts every system (``--results`` repeated)."""
    earlier = [path for path in listed_files(targets["sidecar"]) if path.is_file()]
    for folder in dict.fromkeys(path.parent for path in earlier):
        shown = _plainly(folder)
        found = [shown / path.name for path in earlier if path.parent == folder]
        outputs.refuse_strays(shown, found, targets.values(), inputs, "this conversion's")


def _refuse_changing_described(targets: dict[str, Path], written: list[dict]) -> None:
    """Refuse to change a file another sidecar describes, one in the folder of a file this
    conversion writes (an earlier conversion of another input with the same ``--tag``,
    into ``-o`` or ``--runs-dir``): that sidecar would go on describing the file as it was,
    its checksum wrong. ``written``: this conversion's ``provenance.outputs`` records
    (their paths from the sidecar's folder); a file written as it was is no change. A
    sidecar in a folder this call writes nothing into is not looked for."""
    sidecar = targets["sidecar"]
    ours = {os.path.realpath(sidecar.parent / r["path"]): r["sha256"] for r in written}
    own = os.path.realpath(sidecar)
    folders = dict.fromkeys(_plainly(path.parent) for path in targets.values())
    others = {os.path.realpath(p): p for f in folders for p in sorted(f.glob("*.sidecar.json"))}
    for other in (path for real, path in others.items() if real != own):
        for path, checksum in described_checksums(other).items():
            if ours.get(os.path.realpath(path), checksum) != checksum:
                raise OutputError(
                    f"{_plainly(path.parent) / path.name}: described by {other}, an earlier "
                    "conversion's sidecar, and this conversion would change it: remove that "
                    "sidecar and its files, or write to another folder"
                )


def _plainly(folder: Path) -> Path:
    """``folder`` without ``..`` (``qrels/../runs``, as a sidecar names ``--runs-dir``,
    said ``runs``) where that is the same folder, not one reached through a link."""
    plain = Path(os.path.normpath(folder))
    try:
        return plain if os.path.samefile(plain, folder) else folder
    except OSError:  # the plain spelling names no folder: a link on the way
        return folder


def _converted_from(conversion: Conversion) -> list[str]:
    """The paths of the files ``conversion`` was read from (its provenance's inputs, each
    as given): none of them is ever written over."""
    records = conversion.provenance.get("inputs") or []
    paths = [record.get("path") for record in records if isinstance(record, dict)]
    return [path for path in paths if isinstance(path, str) and path]


def _refuse_case_twins(names: list[str]) -> None:
    """Refuse two runs whose file names (``names``) differ only in case: ``x.run`` and
    ``X.run`` are one file on macOS's and Windows' file systems, where the second replaced
    the first (hpo's ``--results a/X/...`` and ``--results b/x/...``)."""
    files: dict[str, str] = {}  # a name in lower case -> the name
    for name in names:
        first = files.setdefault(name.lower(), name)
        if first != name:
            raise UsageError(
                f"two runs would be written as {first}.run and {name}.run, one file where "
                "case is not told apart (macOS, Windows): give them ",
                Setting("tag"),
                " values that differ in more than case",
            )


def _folder_argument(value: object, keyword: str) -> Path:
    """``value`` given to ``keyword=`` as a folder to write into: an empty name is refused,
    as ``convert -o ''`` refuses it (pathlib read it as the current folder)."""
    if value == "":
        raise UsageError(f"{keyword}: an empty folder name: give the folder to write into")
    return path_argument(value, keyword)


def write_conversion(
    conversion: Conversion,
    outdir: str | os.PathLike,
    inputs: Sequence[str | os.PathLike],
    runs_dir: str | os.PathLike | None = None,
    announce: Callable[[dict[str, Path]], None] | None = None,
    progress: Progress | None = None,
) -> dict[str, Path]:
    """Validate and write the qrels and sidecar of ``conversion`` (a converter's result)
    into ``outdir``, runs into ``runs_dir``
    (default ``outdir``); return the paths. The sidecar names the files relative to itself.
    ``announce(paths)`` is called once every file is in place (``wrote PATH``, as every
    command says it: a failing rename said "wrote" of files never written).

    Files are staged (:class:`trecbench.outputs.OutputSet`) and validated with
    :mod:`trecbench.validation`; only if every file passes are they all put in place, as a
    unit, never over an input (those of ``inputs``, the files read during the call, and
    the files the conversion was read from, as its provenance names them). File names
    come from the conversion's name, qrels names and run names, which must be plain file
    names (:func:`check_name`); run tags are unique (the sidecar keys its runs by them).
    ``progress(label, done, total)`` is told of each run written (``writing NAME``, in
    lines) and each file validated (``validating NAME``, in bytes).
    """
    refuse_uncallable(progress)
    # announce is called once the files are in place: a bad one refused before, not after
    refuse_uncallable(announce, "announce(paths)")
    if not isinstance(conversion, Conversion):
        raise UsageError(f"conversion: give a converter's result, not {python_type(conversion)}")
    outdir = _folder_argument(outdir, "outdir")
    runs_dir = outdir if runs_dir is None else _folder_argument(runs_dir, "runs_dir")
    import pyarrow as pa

    from ..files import qrels_bytes, run_pieces

    check_name(conversion.name)
    for name in conversion.qrels:
        check_name(name, "qrels name")
    for run in conversion.runs:
        check_name(run.name, "run name")
    check_judgeable(conversion)
    # the files it was converted from are protected whether or not the caller names them
    # a path alone is refused, not protected as the characters it is made of
    inputs = [*listed(inputs, "inputs", "input paths", unordered=True)]
    for index, given in enumerate(inputs):  # pathlib's TypeError named no argument
        path_argument(given, f"inputs[{index}]")
    read_from = _converted_from(conversion)
    inputs += read_from
    targets: dict[str, Path] = {}
    for name in conversion.qrels:
        targets[f"qrels:{name}"] = outdir / f"{name}.qrels"
    _refuse_case_twins([run.name for run in conversion.runs])
    for run in conversion.runs:
        key = f"run:{run.tag}"
        if key in targets:
            raise UsageError(
                f"two runs would both be tagged {run.tag}: give each its ", Setting("tag")
            )
        targets[key] = runs_dir / f"{run.name}.run"
    targets["sidecar"] = outdir / f"{conversion.name}.sidecar.json"
    # runs of two tags, one name
    output_identity.refuse_one_file_twice(
        [(_output_words(key), path) for key, path in targets.items()]
    )

    names = {key: Path(os.path.relpath(path, outdir)).as_posix() for key, path in targets.items()}
    with outputs.OutputSet(inputs) as out:
        for path in targets.values():  # every target is checked before any work
            out.check(path)
        for folder in dict.fromkeys(path.parent for path in targets.values()):
            out.hold(folder)  # locked before the check: a call into it meanwhile waits
        _refuse_earlier_files(targets, inputs)
        validation, judged, written = {}, {}, []
        for name, table in conversion.qrels.items():
            key = f"qrels:{name}"
            digest = Digest(checksum=True)
            staged = out.write(targets[key], _digested([qrels_bytes(table)], digest))
            written.append(_written(names[key], "qrels", digest))
            validation[names[key]], judged[name] = _validate(
                "qrels", staged, names[key], read_from, progress=progress
            )
        for run in conversion.runs:
            key = f"run:{run.tag}"
            # the converter's table as made (run_bytes checks no table trecbench made): a
            # failing one is told by the validation below, a bug of trecbench's, not the input's
            made = pa.Table.from_pandas(run.table, preserve_index=False)
            pieces = run_pieces(made, labelled(progress, f"writing {names[key]}"))
            digest = Digest(checksum=True)
            pieces = itertools.chain([_headed(conversion, run)], pieces)
            staged = out.write(targets[key], _digested(pieces, digest))
            written.append(_written(names[key], "run", digest))
            validation[names[key]], _ = _validate(
                "run", staged, names[key], read_from, judged.get(run.qrels), progress
            )
            _say_deep(conversion, names[key], validation[names[key]])
        _refuse_changing_described(targets, written)
        sidecar = sidecar_dict(conversion, names, validation, written)
        out.write(targets["sidecar"], json_text(sidecar) + "\n")
    if announce is not None:  # what was written, once it is in place (a rename may fail)
        announce(targets)
    return targets
