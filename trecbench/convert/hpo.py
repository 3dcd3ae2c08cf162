"""Phentrieve's HPO term-retrieval benchmark: test cases → qrels, result artefacts → runs.

Test cases are a bare JSON array of ``{"text", "expected_hpo_ids", ...}`` or the richer
``{"metadata": {...}, "test_cases": [...]}`` with optional ``case_id``, ``difficulty``,
``category``, ``hpo_domain`` and ``language``; both are checked against the shipped JSON
Schema ``phentrieve_test_cases`` (the plan's schema), errors naming the line and the case.
The qid is ``case_id`` when present, else the 0-based index (what Phentrieve's runner uses).
Runs come from ``terms.jsonl`` (one line per candidate), ``cases.jsonl`` (one record per
case with ``retrieved_hpo_ids``) or Chroma-style query results, plain or compressed.

Relevance is binary (1 per expected id) or, with ``graded="ontology"``, graded: the expected
term gets ``exact`` (2), its direct is_a parents ``parent`` (1) and children ``child`` (1)
(:data:`GRADES`; a term reached several ways keeps its highest grade).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path

import pandas as pd

from ..errors import InputError, Setting, TrecbenchError, UsageError
from ..escaping import escape_text, id_list
from ..ids import STR
from ..naming import check_read_once, check_runs_once, listed, path_argument
from ..plurals import counted
from ..resource_bounds import depth_from
from ..sources import (
    JSON_SPACE,
    At,
    Content,
    JsonDocument,
    json_document,
    read_source,
    source_text,
)
from ..strata import group_name_problem
from ..type_names import flag_from, python_type
from .common import (
    Conversion,
    Report,
    default_name,
    escaped,
    given_name,
    given_tag,
    input_stem,
    make_qrels,
    qrels_summary,
    ranked_run,
    refuse_repeat,
    run_naming,
)
from .hpo_results import (  # read_results and RESULT_FORMATS: also this module's names
    RESULT_FORMATS,
    cases_rows,
    check_gold,
    chroma_rows,
    lines_of_results,
    read_results,
    refuse_unmatched,
    result_record,
    results_name,
    terms_rows,
)
from .tables import duplicate_judgment

__all__ = [
    "CASES_SCHEMA", "GRADES", "GRADINGS", "RESULT_FORMATS", "STRATA_FIELDS",
    "check_cases", "check_ontology", "convert_hpo", "graded_qrels", "read_cases",
    "read_results",
]  # fmt: skip

CASES_SCHEMA = "phentrieve_test_cases"
STRATA_FIELDS = ("language", "difficulty", "category", "hpo_domain")
GRADINGS = ("ontology",)
GRADES = {"exact": 2, "parent": 1, "child": 1}
# Folder or file-name words that name the benchmark's language (Phentrieve keeps each
# language's cases in its own folder, e.g. ``german/``, or names it: 570terms_german.json):
# one for each language the schema's ``language`` takes (:func:`languages`), the one rule
# of the language stratum, whether a case, the metadata, --language or the path gives it.
LANGUAGE_WORDS = {
    "german": "de",
    "english": "en",
    "french": "fr",
    "spanish": "es",
    "dutch": "nl",
}


def _path_language(path: Path) -> tuple[str | None, str]:
    """``(language, what to note)`` of a test-case file's path: the language its name's
    words (split at ``_`` and ``-``: ``570terms_german``) name, else its nearest folder
    that names one (``german/``). A name naming two (``english_vs_german``) is a file of
    both: no language, whatever its folders say."""
    words = input_stem(path).lower().replace("-", "_").split("_")
    named = sorted({LANGUAGE_WORDS[word] for word in words if word in LANGUAGE_WORDS})
    if len(named) > 1:
        return None, f"no language inferred: the file's name names {' and '.join(named)}"
    folders = [part.lower() for part in reversed(path.parent.parts)]
    found = named or [LANGUAGE_WORDS[part] for part in folders if part in LANGUAGE_WORDS]
    if not found:
        return None, ""
    return found[0], f"language {found[0]!r} inferred from the file's path"


@cache
def languages() -> tuple[str, ...]:
    """The languages a case, the metadata and ``--language`` may name: the test-case
    schema's (``$defs.language``), read once."""
    from ..json_schemas import load_schema

    return tuple(load_schema(CASES_SCHEMA)["$defs"]["language"]["enum"])


def check_cases(doc: JsonDocument) -> None:
    """Check test cases against the shipped schema; the first problem (in file order)
    becomes an error naming its line and path."""
    from ..json_schemas import load_schema, schema_message, schema_validator

    validator = schema_validator(load_schema(CASES_SCHEMA))
    errors = list(validator.iter_errors(doc.value))
    if errors:
        key = lambda e: [(isinstance(s, str), s) for s in e.absolute_path]  # noqa: E731
        first = min(errors, key=key)
        raise At(doc, tuple(first.absolute_path)).error(schema_message(first))


def read_cases(path: str | os.PathLike, report: Report, language: str | None = None):
    """Parse a test-case file into ``(qrels rows, strata, qids in order, metadata, the
    input's record)``."""
    path = Path(path)
    doc = _cases_document(read_source(path, "cases"))
    check_cases(doc)
    data = doc.value
    if isinstance(data, dict):
        metadata, cases = data.get("metadata") or {}, data["test_cases"]
        at = doc.root / "test_cases"
    else:
        metadata, cases, at = {}, data, doc.root
    if language is not None and language not in languages():
        raise UsageError(
            Setting("language", language, quoted=True),
            f": not a language of the test cases' schema ({', '.join(languages())})",
        )
    default_language = metadata.get("language") if language is None else language
    if default_language is None:
        default_language, inferred = _path_language(path)
        if inferred:
            report.note(inferred)

    qids, rows, strata, places = [], [], [], {}
    for index, case in enumerate(cases):
        # the same id rule as the terms file's case_id: the schema lets 1.0 through as an
        # integer, and str() made it qid "1.0" where the terms' case_id 1 is "1"
        place = at / index / "case_id"
        given = "case_id" in case
        qid = place.expect_id(case["case_id"]) if given else str(index)
        # a case without one is named by its index, which may be another's case_id
        what = repr(qid) if given else f"{qid!r} (its index: it has no case_id)"
        refuse_repeat(places, qid, at / index, "case_id" if given else None, what)
        if not given:  # a later case_id of that value is told where this id came from
            places[qid] += ", by its index: it has no case_id"
        qids.append(qid)
        rows += [(qid, term) for term in case["expected_hpo_ids"]]
        fields = {"qid": qid, **{name: _stratum(case, at / index, name) for name in STRATA_FIELDS}}
        if fields["language"] is None:
            fields["language"] = default_language
        strata.append(fields)
    if not qids:
        raise doc.root.error("no test cases")
    expected = pd.DataFrame(rows, columns=["qid", "docno"], dtype=STR).assign(rel=1)
    strata = pd.DataFrame(strata, dtype=STR)
    strata = strata[["qid"] + [c for c in STRATA_FIELDS if strata[c].notna().any()]]
    return expected, strata, qids, metadata, doc.source.record


def _cases_document(source: Content) -> JsonDocument:
    """The test cases' JSON; refused, saying so, when it is JSON lines of results
    (:func:`lines_of_results`; JSON's own words would be "Extra data" at line 2).

    Only JSON on several lines has its first line parsed alone to tell: on one line (past
    JSON's white space), that line is the whole document, parsed once, and results when it
    is a result record."""
    text = source_text(source)
    one_line = "\n" not in text.strip(JSON_SPACE)
    if not one_line and lines_of_results(text):
        raise _results_as_cases(source)
    doc = json_document(source, text)
    if one_line and result_record(doc.value):
        raise _results_as_cases(source)
    return doc


def _results_as_cases(source: Content) -> InputError:
    return InputError(
        source.path, None, "JSON lines of results, not test cases: give it with --results"
    )


def _stratum(case: dict, place: At, field: str) -> str | None:
    """A case's value of the stratum ``field`` (None: not given), refused where it cannot
    name a group in the sidecar (``score --strata`` refuses an empty, blank or ``(none)``
    one: the schema cannot tell them from a name)."""
    value = case.get(field)
    problem = None if value is None else group_name_problem(field, value, f"leave its {field} out")
    if problem is not None:
        raise (place / field).error(problem)
    return value


def graded_qrels(expected: pd.DataFrame, ontology, grades: Mapping[str, int]) -> pd.DataFrame:
    """Graded judgments: each expected term ``grades["exact"]``, its direct is_a parents
    ``grades["parent"]`` and children ``grades["child"]`` (zero grades are left out);
    a term reached several ways keeps its highest grade, in order of first appearance."""
    rows = []
    for qid, term in zip(expected["qid"], expected["docno"], strict=True):
        rows.append((qid, term, grades["exact"]))
        rows += [(qid, parent, grades["parent"]) for parent in ontology.parents(term)]
        rows += [(qid, child, grades["child"]) for child in ontology.children(term)]
    frame = pd.DataFrame(rows, columns=["qid", "docno", "rel"]).astype({"qid": STR, "docno": STR})
    frame = frame[frame["rel"] > 0]
    best = frame.groupby(["qid", "docno"], sort=False)["rel"].max().reset_index()
    return best


# ---------------------------------------------------------------------------------------
# ontology


def _load_ontology(ontology: str | os.PathLike | None, report: Report):
    """The ontology, what its file's reading warns of (an is_a edge to an undefined id, a
    term without a path to the root) kept as the report's notes, as score says it."""
    from .. import input_warnings
    from ..ontology import load_ontology

    with input_warnings.collected() as said:
        loaded = load_ontology(ontology)
    for line in said:
        report.note(line)
    return loaded


def check_ontology(ids: pd.Series, loaded, report: Report) -> dict:
    """Check HPO ids against the ontology release; report unknown and obsolete ones."""
    status = loaded.status(pd.unique(ids.dropna()))
    found = {s: sorted(t for t, v in status.items() if v == s) for s in ("unknown", "obsolete")}
    for kind, terms in found.items():
        if terms:
            # HP_0000010 is HP:0000010 mistyped, no term of a newer release
            hint = " (mistyped, or absent from this release: a newer one may have them)" * (
                kind == "unknown"
            )
            report.note(
                # the release as the ontology file gives it (a JSON version may hold a line break)
                f"{counted(len(terms), f'{kind} HPO id')} in HPO {escape_text(loaded.release)}"
                f"{hint}: " + id_list(terms, shown=_as_written, limit=10)
            )
    return {"checked": True, **loaded.info(), **found}


def _as_written(docno: str) -> str:
    """An id as the qrels and runs write it: escaped already (a note's list escaped it
    again: HP%200001250 as HP%25200001250, in no file)."""
    return docno


def _grades(grades: Mapping[str, int] | None) -> dict[str, int]:
    if grades is not None and not isinstance(grades, Mapping):  # a list of pairs, say
        raise UsageError(
            Setting("grades"),
            f": give a mapping of {', '.join(GRADES)} to a grade, not {python_type(grades)}",
        )
    chosen = {**GRADES, **(grades or {})}
    unknown = sorted(set(chosen) - set(GRADES))
    if unknown:
        raise UsageError(
            Setting("grades"), f": unknown grade {unknown[0]!r}: expected {', '.join(GRADES)}"
        )
    for key, value in chosen.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1000:
            raise UsageError(
                Setting("grades"), f": grade {key}={value!r} must be an integer from 0 to 1000"
            )
    if chosen["exact"] < 1:
        raise UsageError(Setting("grades"), ": the exact term's grade must be at least 1")
    above = next((key for key in ("parent", "child") if chosen[key] > chosen["exact"]), None)
    if above is not None:  # an expected term that is another's neighbour would take it
        raise UsageError(
            Setting("grades"),
            f": grade {above}={chosen[above]} is above exact={chosen['exact']}: a neighbouring "
            "term would be judged more relevant than an expected one",
        )
    return chosen


# ---------------------------------------------------------------------------------------
# conversion


def convert_hpo(
    cases: str | os.PathLike,
    results: list[str | os.PathLike] = (),
    *,
    tags: list[str] = (),
    name: str | None = None,
    depth: int | None = None,
    results_format: str | None = None,
    language: str | None = None,
    ontology: str | os.PathLike | None = None,
    check_ids: bool = True,
    graded: str | None = None,
    grades: Mapping[str, int] | None = None,
) -> Conversion:
    """Convert Phentrieve test cases (and optionally result artefacts) to qrels and runs.

    ``results`` are ``terms.jsonl``, ``cases.jsonl`` or Chroma JSON files, plain or compressed
    (format detected unless ``results_format`` is given); ``tags`` name the runs (default:
    from each path); each is a list, None for none (a single path or tag given alone is
    refused, not read as the characters it is made of). ``check_ids`` checks every HPO id against
    ``ontology`` (hpo3's release when None). ``graded="ontology"`` grades the qrels by
    ontology neighbourhood with ``grades`` (default :data:`GRADES`). ``name`` names the
    qrels and sidecar files (default: made of the cases file's name); ``depth``: the
    first terms kept per case (default: all); ``language``: the language stratum where
    the cases do not say (``de``, ``en``, ``fr``, ``es`` or ``nl``).
    Returns the :class:`~trecbench.convert.model.Conversion` (qrels, runs, sidecar) that
    :func:`trecbench.write_conversion` writes.
    """
    depth, name = depth_from(depth), given_name(name)
    # "r.json": not six files; None: none, as the defaults
    results = [] if results is None else listed(results, "results", "result files")
    tags = [] if tags is None else listed(tags, "tags", "tags, one per result file")
    grade_map, tags = _checked_options(graded, grades, tags, results)
    path_argument(cases, "cases")  # None: pathlib's TypeError naming nothing, in its name
    for index, result in enumerate(results):
        path_argument(result, f"results[{index}]")
    if ontology is not None:  # load_ontology's own refusal named its path=
        path_argument(ontology, "ontology")
    check_read_once([cases, *results, ontology])  # one pipe twice: its second read is empty
    check_runs_once(results)  # a results file twice: two runs of one, under two tags
    check_ids = flag_from("check_ids", check_ids)  # "no" was taken as true
    report = Report()
    name = default_name(cases, report) if name is None else name
    expected, strata, qids, metadata, record = read_cases(cases, report, language)
    loaded, ontology_info = _ontology_wanted(ontology, check_ids, graded, report)
    qrels, info = _case_qrels(expected, qids, name, loaded, graded, grade_map, report)
    # evaluable cases as written (escaped, like info["without_relevant"]), in order
    empty = set(info["without_relevant"])
    evaluable = [q for q in escaped(qids) if q not in empty]
    runs, result_records, formats = _result_runs(
        results, tags, results_format, name, depth, expected, qids, evaluable, report, str(cases)
    )
    inputs = [record, *result_records]
    if check_ids and loaded is not None:
        ids = pd.concat([qrels["docno"]] + [r.table["docno"] for r in runs])
        ontology_info = check_ontology(ids, loaded, report)
    return Conversion(
        name=name,
        converter="hpo",
        qrels={name: qrels},
        runs=runs,
        report=report,
        strata=strata,
        provenance={
            "inputs": inputs,
            "metadata": metadata,
            "ontology": ontology_info,
            "options": {  # as in effect: each run's format as read, the grading by name
                "depth": depth,
                "results_format": formats,
                "language": language,
                "graded": graded or "binary",
                "grades": grade_map,
            },
        },
        qrels_info={name: info},
    )


def _checked_options(
    graded: str | None, grades: Mapping[str, int] | None, tags: list[str], results: list
) -> tuple[dict[str, int] | None, list[str]]:
    """``(the grades when graded, the tags as a list)``; an unknown grading, grades
    without one, tags not one per result file, or one no run tag (None, 5, "a b"), refused
    before any file is read."""
    if graded is not None and graded not in GRADINGS:
        raise UsageError(f"unknown grading {graded!r}: expected {', '.join(GRADINGS)}")
    if grades and not graded:  # taken and dropped: the qrels were binary
        raise UsageError(Setting("grades"), " apply only with graded='ontology'")
    grade_map = _grades(grades) if graded else None
    tags = [given_tag(tag, index) for index, tag in enumerate(tags)]  # None: a TypeError
    if tags and len(tags) != len(results):
        raise UsageError(
            f"{len(tags)} ", Setting("tags"), f" for {len(results)} ", Setting("results")
        )
    return grade_map, tags


def _case_qrels(
    expected: pd.DataFrame, qids, name: str, loaded, graded, grade_map, report: Report
) -> tuple[pd.DataFrame, dict]:
    """``(the qrels, their sidecar summary)`` of the test cases' expected ids, graded by
    ontology neighbourhood when ``graded``."""
    judged = expected
    if graded:  # an id a case lists twice: graded_qrels keeps it once, without a word
        judged = graded_qrels(_once(expected, name, report), loaded, grade_map)
    qrels = make_qrels(judged, name, report)
    info = qrels_summary(
        qrels,
        qids,
        report,
        "case without expected ids (not evaluable: not in the qrels, so no measure counts it)",
    )
    if graded:
        info["graded"] = {"by": graded, "grades": grade_map, "release": loaded.release}
    return qrels, info


def _once(expected: pd.DataFrame, name: str, report: Report) -> pd.DataFrame:
    """``expected`` with each id a case lists twice kept once, reported as the binary
    qrels report it (a duplicate judgment); the neighbours two terms share are none."""
    repeated = expected.duplicated(["qid", "docno"])
    rows = expected[repeated]
    report.drop(
        duplicate_judgment(name),
        (
            {"qrels": name, "qid": qid, "docno": docno}
            for qid, docno in zip(
                escaped(rows["qid"]), escaped(rows["docno"], "docno"), strict=True
            )
        ),
    )
    return expected[~repeated]


def _result_runs(
    results,
    tags: list[str],
    results_format,
    name: str,
    depth,
    expected,
    qids,
    evaluable: list[str],
    report: Report,
    cases: str,
) -> tuple[list, list[dict], dict[str, str]]:
    """``(a run per result file, their input records, each run's format by tag)``: each
    read (as ``results_format``, or detected), named (``tags``, or after its path) and
    ranked; evaluable cases it does not answer noted. ``cases``: the test cases' file,
    which a file none of whose case ids is theirs is refused against."""
    runs, inputs, formats = [], [], {}
    for index, path in enumerate(results):
        kind, doc = read_results(path, results_format)
        default = None if tags else results_name(path, report)
        run_name, tag = run_naming(tags[index] if tags else None, default, report)
        rows, answered = _result_rows(kind, doc, tag, expected, qids, report)
        refuse_unmatched(kind, doc, answered, qids, cases)
        run = ranked_run(rows, tag, name, report, depth, queries=answered, name=run_name)
        runs.append(dataclasses.replace(run, source=str(path)))
        inputs.append({**doc.source.record, "kind": f"results ({kind})"})
        formats[tag] = kind
        _note_missing(tag, answered, evaluable, report, set(run.table["qid"]))
    return runs, inputs, formats


def _ontology_wanted(ontology, check_ids: bool, graded: str | None, report: Report):
    """``(the ontology or None, the sidecar's ontology record)``: loaded when ids are
    checked or graded; without one, ids go unchecked (said in a note) unless grading needs
    it or it was named."""
    loaded, ontology_info = None, {"checked": False, "reason": "disabled"}
    if ontology is not None and not (check_ids or graded):  # as score refuses one unused
        raise UsageError(
            Setting("ontology"),
            ": nothing reads it: the ids are not checked, nor the qrels graded by it (",
            Setting("graded", "ontology"),
            ")",
        )
    if check_ids or graded:
        try:
            loaded = _load_ontology(ontology, report)
        except (ImportError, TrecbenchError, OSError) as exc:
            if graded or ontology is not None:
                raise
            report.note(f"HPO ids not checked: no ontology available ({exc})")
            ontology_info = {"checked": False, "reason": str(exc)}
        else:  # grading alone uses it too: its release and checksum recorded
            ontology_info = {**ontology_info, **loaded.info()}
    return loaded, ontology_info


def _result_rows(kind: str, doc, tag: str, expected: pd.DataFrame, qids, report: Report):
    """``(run rows, cases answered)`` of one result file of ``kind``; the producer's gold
    ids checked against the test cases, queries not among them reported."""
    if kind == "terms":
        rows, gold, answered = terms_rows(doc)
        check_gold(gold, expected, rows, tag, report, retrieved_only=True)
    elif kind == "cases":
        rows, gold, answered = cases_rows(doc, report)
        check_gold(gold, expected, rows, tag, report, retrieved_only=False)
    else:
        rows, answered = chroma_rows(doc, qids, tag, report)
    unknown = escaped(sorted(set(answered) - set(qids)))
    report.drop(
        f"run query not among the test cases ({tag}; kept, but no measure counts it)",
        ({"run": tag, "qid": q} for q in unknown),
    )
    return rows, answered


def _note_missing(tag: str, answered, evaluable: list[str], report: Report, present) -> None:
    """A note when evaluable cases (as written) have no results in the run ``tag``, and
    when some it answered without a term (``present``: the run's queries) are beside
    them: Phentrieve's means over completed cases count those 0 and leave these out."""
    written = set(escaped(answered))
    missing = [q for q in evaluable if q not in written]
    if missing:
        report.note(
            f"{tag}: {counted(len(missing), 'evaluable case')} "
            f"{'has' if len(missing) == 1 else 'have'} no results; trec_eval averages "
            "over the run's queries unless -c counts them as 0"
        )
    empty = [q for q in evaluable if q in written and q not in present]
    if missing and empty:
        report.note(
            f"{tag}: Phentrieve's means over completed cases count the {len(empty)} "
            f"completed without a term as 0 and leave out the {len(missing)} without "
            "results: no trec_eval mode does both (-c counts every one as 0, without it "
            "neither is counted)"
        )
