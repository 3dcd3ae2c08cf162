"""HPO converter: real Phentrieve test cases, faithful terms/cases/Chroma result fixtures."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from pathlib import Path
from urllib.parse import unquote_to_bytes

import pandas as pd
import pytest
from conftest import DUPLICATE

from trecbench.convert.common import Report, write_conversion
from trecbench.convert.hpo import convert_hpo, read_cases, read_results
from trecbench.errors import InputError, UsageError

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "hpo-demo"

# HPO 2025-01-16 lacks these two ids cited by the 200-case files (input-formats.md).
NEW_IN_2025_11 = {"HP:0025802", "HP:6001186"}


def write_json(path: Path, data) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


RICH = {
    "metadata": {"dataset_id": "t", "version": "1", "language": "de"},
    "test_cases": [
        {"case_id": "a", "text": "x", "expected_hpo_ids": ["HP:0001250", "HP:0001250"],
         "difficulty": "easy", "category": "exact_match"},
        {"case_id": "b", "text": "y", "expected_hpo_ids": ["HP:0004322"],
         "difficulty": "hard", "category": "layperson", "language": "en"},
        {"case_id": "c", "text": "z", "expected_hpo_ids": [], "difficulty": "hard"},
    ],
}  # fmt: skip


def test_real_phentrieve_files(phentrieve_data):
    for path in sorted(phentrieve_data.glob("*.json")):
        cases = json.loads(path.read_text())
        conversion = convert_hpo(path, check_ids=False)
        qrels = conversion.qrels[path.stem]
        expected = {(str(i), t) for i, c in enumerate(cases) for t in c["expected_hpo_ids"]}
        assert set(zip(qrels["qid"], qrels["docno"], strict=True)) == expected, path.name
        assert len(qrels) == len(expected)
        assert conversion.runs == []
    german = convert_hpo(phentrieve_data / "570terms_german.json", check_ids=False)
    assert set(german.strata["language"]) == {"de"}


@pytest.mark.parametrize(
    ("where", "language", "note"),
    [
        ("570terms_german.json", "de", "language 'de' inferred from the file's path"),
        ("german/cases.json", "de", "language 'de' inferred from the file's path"),
        ("german/cases_en-english.json", "en", "language 'en' inferred from the file's path"),
        # a file of both: it said de, the last language word of its name
        ("english_vs_german.json", None, "no language inferred: the file's name names de and en"),
        ("german/english_vs_german.json", None, "no language inferred: the file's name names "
         "de and en"),
        ("germany/cases.json", None, None),
    ],
)  # fmt: skip
def test_the_language_a_path_names(tmp_path, where, language, note):
    path = tmp_path / where
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, [{"text": "x", "expected_hpo_ids": ["HP:0000001"]}])
    report = Report()
    strata = read_cases(path, report)[1]
    assert strata.get("language", pd.Series([None])).tolist() == [language]
    assert report.notes == ([note] if note else [])


def test_ids_checked_against_the_bundled_release(phentrieve_data):
    conversion = convert_hpo(phentrieve_data / "200cases_o3_v1.json")
    ontology = conversion.provenance["ontology"]
    assert ontology["checked"] and ontology["release"] == "2025-11-24"
    # present in 2025-11-24, but three expected ids are obsolete there
    assert ontology["unknown"] == []
    assert ontology["obsolete"] == ["HP:0005365", "HP:0005807", "HP:6001156"]
    assert NEW_IN_2025_11 <= set(conversion.qrels["200cases_o3_v1"]["docno"])


def test_unknown_and_obsolete_ids_reported_against_an_older_obo(tmp_path):
    obo = tmp_path / "hp.obo"
    obo.write_text(
        "format-version: 1.2\ndata-version: hp/releases/2025-01-16\n\n"
        "[Term]\nid: HP:0000001\nname: All\n\n"
        "[Term]\nid: HP:0001250\nname: Seizure\nis_a: HP:0000001 ! All\n\n"
        "[Term]\nid: HP:0004322\nname: Short stature\nis_obsolete: true\n"
    )
    cases = write_json(tmp_path / "cases.json", RICH)
    terms = write_jsonl(
        tmp_path / "terms.jsonl",
        [{"case_id": "a", "hpo_id": "HP:0025802", "rank": 1, "score": 0.5}],
    )
    conversion = convert_hpo(cases, [terms], ontology=obo)
    info = conversion.provenance["ontology"]
    assert info["release"] == "2025-01-16"
    assert info["unknown"] == ["HP:0025802"]
    assert info["obsolete"] == ["HP:0004322"]
    assert any("1 unknown HPO id in HPO 2025-01-16" in n for n in conversion.report.notes)
    # an id written escaped (a blank: HP%200001250) is named as the run writes it; the note
    # escaped it again (HP%25200001250, in no file: reviewer 678)
    blank = write_jsonl(
        tmp_path / "blank.jsonl",
        [{"case_id": "a", "hpo_id": "HP 0001250", "rank": 1, "score": 0.5}],
    )
    conversion = convert_hpo(cases, [blank], ontology=obo)
    assert conversion.runs[0].table["docno"].tolist() == ["HP%200001250"]
    assert conversion.provenance["ontology"]["unknown"] == ["HP%200001250"]
    (note,) = [n for n in conversion.report.notes if "unknown HPO id" in n]
    assert note.endswith(": HP%200001250")


def test_rich_schema_strata_not_evaluable_and_duplicates(tmp_path):
    conversion = convert_hpo(write_json(tmp_path / "cases.json", RICH), check_ids=False)
    assert conversion.qrels["cases"].values.tolist() == [
        ["a", "HP:0001250", 1],
        ["b", "HP:0004322", 1],
    ]
    assert conversion.strata.fillna("-").values.tolist() == [
        ["a", "de", "easy", "exact_match"],
        ["b", "en", "hard", "layperson"],
        ["c", "de", "hard", "-"],
    ]
    counts = conversion.report.counts
    assert counts["duplicate judgment (cases; the highest grade is kept)"] == 1
    reason = "case without expected ids (not evaluable: not in the qrels, so no measure counts it)"
    assert counts[reason] == 1
    assert conversion.qrels_info["cases"]["without_relevant"] == ["c"]


def test_bad_case_files(tmp_path):
    case = {"case_id": "a", "text": "x", "expected_hpo_ids": []}
    with pytest.raises(InputError, match=r"d.json:\d+: \[1\].case_id: 'a' is used tw"):
        read_cases(write_json(tmp_path / "d.json", [case, case]), Report())
    # a float case_id was made qid "1.0" while the terms' case_id 1 is "1"
    floating = [case, {**case, "case_id": 1.0}]
    with pytest.raises(InputError, match=r"f.json:\d+: \[1\].case_id: expected a non-empty str"):
        read_cases(write_json(tmp_path / "f.json", floating), Report())
    bad = tmp_path / "g.json"
    bad.write_text('[{"text": "x",\n "expected_hpo_ids": [}]')
    with pytest.raises(InputError, match=r"g.json:2: invalid JSON"):
        read_cases(bad, Report())


def test_a_cases_file_on_one_line_is_parsed_once(tmp_path, monkeypatch):
    """Its first line, parsed to tell results given as cases, was all of it: a minified
    file was parsed twice. A one-line result record is still told as results."""
    import trecbench.convert.hpo_results as hpo_results
    import trecbench.sources as sources

    parsed = []

    def counted(parse):
        return lambda text, *args, **kwargs: parsed.append(text) or parse(text, *args, **kwargs)

    monkeypatch.setattr(sources, "parse_json", counted(sources.parse_json))
    monkeypatch.setattr(hpo_results, "parse_json", counted(hpo_results.parse_json))
    expected, *_ = read_cases(write_json(tmp_path / "one.json", RICH), Report())
    assert len(parsed) == 1
    assert list(expected["qid"]) == ["a", "a", "b"]
    terms = tmp_path / "terms.json"
    terms.write_text('\n {"case_id": "0", "hpo_id": "HP:0000001"}\r\n\n')
    with pytest.raises(InputError, match="JSON lines of results, not test cases"):
        read_cases(terms, Report())
    assert len(parsed) == 2


def cases_text(*cases, metadata=None) -> str:
    """A test-case file laid out one key per line, as Phentrieve writes them."""
    document = {"metadata": metadata or {"language": "de"}, "test_cases": list(cases)}
    return json.dumps(document, indent=2)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        # the three the issue names, accepted before (issue 15)
        ({"text": "x", "expected_hpo_ids": ["HP:123"]},
         r'c.json:16: test_cases\[1\].expected_hpo_ids\[0\]: "HP:123" does not match'),
        ({"expected_hpo_ids": ["HP:0001250"]},
         r"c.json:13: test_cases\[1\]: 'text' is a required property"),
        ({"text": "x", "expected_hpo_ids": [], "difficulty": "impossible"},
         r"c.json:16: test_cases\[1\].difficulty: \"impossible\" is not one of \['easy'"),
        ({"text": "x", "expected_hpo_ids": [], "category": "guess"},
         r"test_cases\[1\].category: \"guess\" is not one of \['exact_match'"),
        ({"text": "x"}, r"test_cases\[1\]: 'expected_hpo_ids' is a required property"),
        ({"text": "x", "expected_hpo_ids": "HP:0001250"},
         r"expected_hpo_ids: \"HP:0001250\" is not of type 'array'"),
        ({"text": "", "expected_hpo_ids": []}, r'test_cases\[1\].text: "" should be non-empty'),
        ({"text": "x", "expected_hpo_ids": ["HP:\u0661\u0662\u0663\u0664\u0665\u0666\u0667"]},
         r"does not match"),  # Arabic-Indic digits: \d would take them, [0-9] does not
        ({"text": "x", "expected_hpo_ids": [], "language": "klingon"}, r'language: "klingon"'),
        # Python's $ matches before a final newline, JSON Schema's (ECMA-262's) does not: it
        # was written as a relevant document HP:0001250%0A, a perfect run's MAP 0.5
        ({"text": "x", "expected_hpo_ids": ["HP:0001250\n"]},
         r'c.json:16: test_cases\[1\].expected_hpo_ids\[0\]: "HP:0001250\\n" does not match '

         r"'\^HP:\[0-9\]\{7\}\$'"),
    ],
)  # fmt: skip
def test_the_phentrieve_schema_is_enforced_with_the_line(tmp_path, case, message):
    good = {"case_id": "ok", "text": "Krampfanfälle", "expected_hpo_ids": ["HP:0001250"]}
    path = tmp_path / "c.json"
    path.write_text(cases_text(good, case))
    with pytest.raises(InputError, match=message):
        read_cases(path, Report())


def test_the_schema_covers_both_shapes(tmp_path):
    bare = write_json(tmp_path / "bare.json", [{"text": "x", "expected_hpo_ids": ["HP:12"]}])
    with pytest.raises(InputError, match=r"bare.json:1: \[0\].expected_hpo_ids\[0\]"):
        read_cases(bare, Report())
    meta = tmp_path / "meta.json"
    meta.write_text(cases_text(metadata={"language": "en+de"}))
    with pytest.raises(InputError, match=r'metadata.language: "en\+de" is not one of'):
        read_cases(meta, Report())
    for data, message in (({"cases": []}, "'test_cases' is a required property"),
                          (7, "7 is not of type 'object'")):  # fmt: skip
        with pytest.raises(InputError, match=message):
            read_cases(write_json(tmp_path / "x.json", data), Report())


@pytest.mark.parametrize(
    ("cases", "refused"),
    [
        ('[{"text": null, "expected_hpo_ids": []}]', "[0].text: null is not of type 'string'"),
        ("[true]", "[0]: true is not of type 'object'"),
        (
            '[{"text": {"a": null}, "expected_hpo_ids": []}]',
            "[0].text: {\"a\": null} is not of type 'string'",
        ),
        ('[{"text": "x", "expected_hpo_ids": [false]}]', "[0].expected_hpo_ids[0]: false is"),
    ],
)
def test_a_refused_value_is_quoted_as_the_json_writes_it(tmp_path, capsys, cases, refused):
    # it was quoted in Python's syntax: "None is not of type 'string'", True, {'a': None}
    from trecbench.cli import run

    path = tmp_path / "c.json"
    path.write_text(cases)
    assert run(["convert", "hpo", str(path), "-o", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.startswith(f"trecbench: {path}:1: {refused}")


TINY_OBO = (
    "format-version: 1.2\ndata-version: hp/releases/2099-01-31\n\n"
    "[Term]\nid: HP:0000001\nname: All\n\n"
    "[Term]\nid: HP:0000118\nname: Phenotypic abnormality\nis_a: HP:0000001\n\n"
    "[Term]\nid: HP:0001250\nname: Seizure\nis_a: HP:0000118\n\n"
    "[Term]\nid: HP:0002069\nname: Bilateral tonic-clonic seizure\nis_a: HP:0001250\n\n"
    "[Term]\nid: HP:0007359\nname: Focal-onset seizure\nis_a: HP:0001250\n\n"
    "[Term]\nid: HP:0004322\nname: Short stature\nis_a: HP:0000118\n"
)


def test_graded_relevance_from_the_ontology(tmp_path):
    """--graded ontology: 2 for the expected term, 1 for its is_a parents and children."""
    obo = tmp_path / "hp.obo"
    obo.write_text(TINY_OBO)
    cases = write_json(
        tmp_path / "cases.json",
        [{"case_id": "a", "text": "Anfall", "expected_hpo_ids": ["HP:0001250"]},
         {"case_id": "b", "text": "klein", "expected_hpo_ids": ["HP:0004322", "HP:0000118"]}],
    )  # fmt: skip
    terms = write_jsonl(
        tmp_path / "terms.jsonl",
        [{"case_id": "a", "hpo_id": h, "rank": r, "score": 1 / r}
         for r, h in enumerate(["HP:0000118", "HP:0001250", "HP:0004322"], 1)],
    )  # fmt: skip
    conversion = convert_hpo(cases, [terms], ontology=obo, graded="ontology")
    qrels = conversion.qrels["cases"]
    assert qrels.values.tolist() == [
        ["a", "HP:0001250", 2],
        ["a", "HP:0000118", 1],
        ["a", "HP:0002069", 1],
        ["a", "HP:0007359", 1],
        # an expected term that is also the parent of another keeps its higher grade
        ["b", "HP:0004322", 2],
        ["b", "HP:0000118", 2],
        ["b", "HP:0000001", 1],
        ["b", "HP:0001250", 1],
    ]
    info = conversion.qrels_info["cases"]["graded"]
    assert info == {"by": "ontology", "grades": {"exact": 2, "parent": 1, "child": 1},
                    "release": "2099-01-31"}  # fmt: skip
    # trec_eval's nDCG takes the grade as gain: by hand, run [1, 2, 0] against [2, 1, 1, 1]
    from trecbench.evaluation import evaluate

    result = evaluate(qrels, conversion.runs[0].table, ["nDCG@3"])
    by_hand = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3) + 1 / math.log2(4))
    assert result.per_query["value"].tolist() == [pytest.approx(by_hand, abs=1e-12)]
    assert not [d for d in conversion.report.repaired if "gold" in d["reason"]]

    no_children = convert_hpo(
        cases, ontology=obo, graded="ontology", grades={"child": 0, "parent": 3, "exact": 4}
    )
    assert no_children.qrels["cases"].values.tolist()[:2] == [
        ["a", "HP:0001250", 4],
        ["a", "HP:0000118", 3],
    ]
    with pytest.raises(UsageError, match="unknown grade 'sibling'"):
        convert_hpo(cases, ontology=obo, graded="ontology", grades={"sibling": 1})
    with pytest.raises(UsageError, match="exact term's grade must be at least 1"):
        convert_hpo(cases, ontology=obo, graded="ontology", grades={"exact": 0})


def test_an_id_listed_twice_is_reported_graded_or_not(tmp_path):
    # graded, the second copy vanished without a word; a neighbour two terms share is none
    obo = tmp_path / "hp.obo"
    obo.write_text(TINY_OBO)
    cases = write_json(
        tmp_path / "cases.json",
        [{"case_id": "a 1", "text": "x", "expected_hpo_ids": ["HP:0004322", "HP:0001250",
                                                             "HP:0004322"]}],
    )  # fmt: skip
    reason = "duplicate judgment (cases; the highest grade is kept)"
    for graded in (None, "ontology"):
        conversion = convert_hpo(cases, ontology=obo, graded=graded)
        assert conversion.report.counts[reason] == 1
        (entry,) = [d for d in conversion.report.dropped if d["reason"] == reason]
        assert (entry["qid"], entry["docno"]) == ("a%201", "HP:0004322")


@pytest.mark.parametrize("hostile", ["a\u2028b", "a\u00a0b"])
def test_a_duplicate_judgments_reason_names_the_qrels_escaped(tmp_path, hostile):
    # the reason, which convert's summary prints, held the qrels' name as given: a line
    # break of --name split the line; escaped as "wrote PATH" shows it, graded or not (a
    # name with a control character or a byte not UTF-8 is refused before: no file name)
    obo = tmp_path / "hp.obo"
    obo.write_text(TINY_OBO)
    cases = write_json(
        tmp_path / "cases.json",
        [{"case_id": "a", "text": "x", "expected_hpo_ids": ["HP:0001250", "HP:0001250"]}],
    )
    for graded in (None, "ontology"):
        conversion = convert_hpo(cases, ontology=obo, graded=graded, name=hostile)
        (reason,) = conversion.report.counts
        assert reason.isprintable(), reason
        named = reason.removeprefix("duplicate judgment (").split(";")[0]
        assert os.fsdecode(unquote_to_bytes(named)) == hostile


def test_an_ontology_release_holding_a_line_break_is_noted_in_one_line(tmp_path, capsys):
    # the release an OBO Graphs file gives (meta.version, JSON text) was copied into the
    # note of unknown ids, which convert's summary printed on two lines
    from trecbench.cli import run

    ontology = write_json(
        tmp_path / "hp.json",
        {"graphs": [{"id": "hp", "meta": {"version": "evil\nrelease\tx"},
                     "nodes": [{"id": "http://purl.obolibrary.org/obo/HP_0000001",
                                "type": "CLASS"}],
                     "edges": []}]},
    )  # fmt: skip
    cases = write_json(
        tmp_path / "cases.json",
        [{"case_id": "a", "text": "x", "expected_hpo_ids": ["HP:0000001", "HP:0004322"]}],
    )
    assert run(["convert", "hpo", str(cases), "--ontology", str(ontology),
                "-o", str(tmp_path / "out")]) == 0  # fmt: skip
    err = capsys.readouterr().err
    (note,) = [line for line in err.splitlines() if "note:" in line]
    assert note == (
        "  note: 1 unknown HPO id in HPO evil%0Arelease%09x (mistyped, or absent from this "
        "release: a newer one may have them): HP:0004322"
    )


def test_terms_jsonl_keeps_rank_order_and_reports_problems(tmp_path):
    cases = write_json(tmp_path / "cases.json", RICH)
    # lines out of order, a tie (0.5/0.5) in rank order against docno order, a duplicate
    # candidate and a case the test set does not have
    (tmp_path / "bm25").mkdir()
    terms = write_jsonl(
        tmp_path / "bm25" / "terms.jsonl",
        [
            {"case_id": "a", "hpo_id": "HP:0000002", "rank": 2, "score": 0.5, "is_gold": False},
            {"case_id": "a", "hpo_id": "HP:0000001", "rank": 1, "score": 0.9, "is_gold": False},
            {"case_id": "a", "hpo_id": "HP:0001250", "rank": 3, "score": 0.5, "is_gold": True},
            {"case_id": "a", "hpo_id": "HP:0000002", "rank": 4, "score": 0.1, "is_gold": False},
            {"case_id": "zz", "hpo_id": "HP:0000001", "rank": 1, "score": 0.3, "is_gold": False},
        ],
    )
    conversion = convert_hpo(cases, [terms], check_ids=False)
    (run,) = conversion.runs
    assert run.tag == "bm25"  # generic stem: the folder names the run
    table = run.table
    assert table[table["qid"] == "a"]["docno"].tolist() == [
        "HP:0000001",
        "HP:0000002",
        "HP:0001250",
    ]
    assert table["score"].tolist() == [3.0, 2.0, 1.0, 1.0]
    assert run.original_scores == [0.9, 0.5, 0.5, 0.3]
    assert run.stats["tied_adjacent_scores"] == 1
    counts = conversion.report.counts
    assert counts[DUPLICATE.format("bm25")] == 1
    assert counts["run query not among the test cases (bm25; kept, but no measure counts it)"] == 1
    assert any("1 evaluable case has no results" in n for n in conversion.report.notes)


def test_cases_without_results_are_counted_on_the_written_ids(tmp_path):
    """The "evaluable case(s) have no results" note compares escaped ids with escaped
    ids: a case without expected ids is not evaluable even when its id needs escaping
    ("x 1" is written x%201), and an evaluable "x%201" is not mistaken for it."""

    def case(qid, *expected):
        return {"case_id": qid, "text": "t", "expected_hpo_ids": list(expected)}

    def notes(cases, answered):
        path = write_json(tmp_path / "cases.json", {"test_cases": cases})
        records = [{"case_id": q, "hpo_id": "HP:0000001", "rank": 1} for q in answered]
        terms = write_jsonl(tmp_path / "terms.jsonl", records)
        conversion = convert_hpo(path, [terms], tags=["t"], check_ids=False)
        return [n for n in conversion.report.notes if "evaluable case" in n]

    # "x 1" has no expected id: the one evaluable case has results
    assert notes([case("x 1"), case("y", "HP:0000001")], ["y"]) == []
    # "x%201" (written x%25201) is evaluable and has no results, though the written id of
    # the case without expected ids, "x 1", is x%201
    missing = notes([case("x 1"), case("x%201", "HP:0000001")], ["x 1"])
    assert [n.split(";")[0] for n in missing] == ["t: 1 evaluable case has no results"]


@pytest.mark.parametrize("name", ["terms.json", "tz.gz", "63"])
@pytest.mark.parametrize("lines", [1, 2])
def test_json_lines_of_records_are_told_by_their_content(tmp_path, name, lines):
    import gzip

    records = [{"case_id": "a", "hpo_id": f"HP:000000{i}", "rank": i} for i in (1, 2)][:lines]
    text = "".join(json.dumps(r) + "\n" for r in records).encode()
    path = tmp_path / name
    path.write_bytes(gzip.compress(text) if name.endswith(".gz") else text)
    kind, doc = read_results(path, None)
    assert kind == "terms" and [r for _, r in doc.records] == records
    one_line_chroma = write_json(tmp_path / "c.txt", {"a": {"ids": [["HP:0000001"]]}})
    assert read_results(one_line_chroma, None)[0] == "chroma"


@pytest.mark.parametrize(
    ("name", "compress"),
    [("o.jsonl.bz2", "bz2"), ("o.jsonl.xz", "lzma"), ("o.JSONL.GZ", "gzip")],
)
def test_a_compressed_jsonl_is_json_lines_by_its_name(tmp_path, name, compress):
    # only ".jsonl.gz" was: o.jsonl.bz2 of a misspelt first record was read as one JSON
    # text, refused at line 2 ("invalid JSON: Extra data") of a file whose line 1 is wrong
    import importlib

    records = [{"case_id": "a", "id": f"HP:000000{i}"} for i in (1, 2)]
    text = "".join(json.dumps(r) + "\n" for r in records).encode()
    path = tmp_path / name
    path.write_bytes(importlib.import_module(compress).compress(text))
    with pytest.raises(InputError, match=rf"{re.escape(name)}:1: neither a terms.jsonl"):
        read_results(path, None)


def test_results_read_from_a_pipe_are_named_like_other_pipes(tmp_path):
    from trecbench.convert.hpo_results import results_name

    read, write = os.pipe()  # /dev/fd/N links to pipe:[inode], a new name every time
    try:  # its number names nothing either: named as standard input is
        assert results_name(f"/dev/fd/{read}", Report()) == "stdin"
    finally:
        os.close(read)
        os.close(write)
    assert results_name(tmp_path / "bm25" / "terms.jsonl", Report()) == "bm25"


def test_two_results_whose_names_make_one_tag_are_refused(tmp_path):
    # their files differ ("my run.run", "my_run.run") but the sidecar keys runs by tag
    from trecbench.convert.common import write_conversion

    terms = (DEMO / "results" / "tfidf-word" / "terms.jsonl").read_bytes()
    results = []
    for folder in ("my run", "my_run"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "terms.jsonl").write_bytes(terms)
        results.append(tmp_path / folder / "terms.jsonl")
    conversion = convert_hpo(DEMO / "cases.json", results, check_ids=False)
    assert [(run.name, run.tag) for run in conversion.runs] == [
        ("my run", "my_run"),
        ("my_run", "my_run"),
    ]
    with pytest.raises(UsageError, match="two runs would both be tagged my_run: give each"):
        write_conversion(conversion, tmp_path / "out", inputs=[])
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["deep.json", "deep.jsonl"])
def test_deep_results_are_refused_with_the_limit_not_a_recursion_error(tmp_path, name):
    """Telling JSON lines from JSON parsed the first line without the depth limit: an
    internal error (RecursionError) before the parse that says so."""
    deep = tmp_path / name
    deep.write_text("[" * 100_000 + "\n")
    with pytest.raises(InputError, match=r"deep.jsonl?:1: JSON nested deeper than 100 levels"):
        read_results(deep, None)


def test_results_format_from_the_name_and_the_first_record(tmp_path):
    import gzip

    chroma = write_json(tmp_path / "results.json", {"a": {"ids": [[]]}})
    assert read_results(chroma, None)[0] == "chroma"  # by extension
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n  \n", encoding="utf-8")
    with pytest.raises(InputError, match="blank.jsonl: no records"):
        read_results(blank, None)
    other = write_jsonl(tmp_path / "other.jsonl", [{"case_id": "a", "id": "HP:0000001"}])
    with pytest.raises(InputError, match="other.jsonl:1: neither a terms.jsonl"):
        read_results(other, None)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('\n{"case_id": "a", "hpo_id": "HP:0000001", "rank": 1}\n{"case_id"\n')
    cases = write_json(tmp_path / "cases.json", RICH)
    with pytest.raises(InputError, match="broken.jsonl:3: invalid JSON"):
        convert_hpo(cases, [broken], check_ids=False)
    packed = tmp_path / "terms.jsonl.gz"
    packed.write_bytes(gzip.compress(b'{"case_id": "a", "hpo_id": "HP:0000001", "rank": 1}\n'))
    assert read_results(packed, None)[0] == "terms"
    (run,) = convert_hpo(cases, [packed], check_ids=False).runs
    assert run.tag == "tmp_path" or run.table["docno"].tolist() == ["HP:0000001"]


@pytest.mark.parametrize(
    ("record", "message"),
    [
        # issue 9.4: rank -1 ranked first
        ({"case_id": "a", "hpo_id": "HP:0000001", "rank": -1}, r"t.jsonl:2: rank: expected an "
         r"integer of at least 1, found -1"),
        ({"case_id": "a", "hpo_id": "HP:0000001", "rank": 1.5}, r"rank: expected an integer"),
        ({"case_id": "a", "hpo_id": "HP:0000001", "rank": 2, "score": "0.5"},
         r"score: expected a number"),
        ({"case_id": "a", "hpo_id": "HP:0000001", "rank": 2, "is_gold": "yes"},
         r"is_gold: expected true"),
        # a rank given and one not: ordered by rank and by line at once, without a word
        ({"case_id": "a", "hpo_id": "HP:0000001"}, r"t.jsonl:2: rank: gives no rank, unlike "
         r"the first record \(line 1\): give every record its rank, or none"),
        ({"case_id": "a", "hpo_id": ["HP:0000001"]}, r"t.jsonl:2: hpo_id: expected a non-empty"),
        ({"hpo_id": "HP:0000001"},
         r"t.jsonl:2: case_id: missing \(expected a non-empty string id; the object has "
         r'"hpo_id"\)$'),
        ({"case_id": None, "hpo_id": "HP:0000001"},
         r"t.jsonl:2: case_id: expected a non-empty string id, found null$"),
    ],
)  # fmt: skip
def test_terms_records_are_checked(tmp_path, record, message):
    cases = write_json(tmp_path / "cases.json", RICH)
    first = {"case_id": "a", "hpo_id": "HP:0000002", "rank": 1, "score": 0.5}
    terms = write_jsonl(tmp_path / "t.jsonl", [first, record])
    with pytest.raises(InputError, match=message):
        convert_hpo(cases, [terms], check_ids=False)


def test_cases_jsonl_failed_and_not_evaluable(tmp_path):
    cases = write_json(tmp_path / "cases.json", RICH)
    records = write_jsonl(
        tmp_path / "cases.jsonl",
        [
            {"case_id": "a", "status": "complete", "expected_hpo_ids": ["HP:0001250"],
             "retrieved_hpo_ids": ["HP:0000003", "HP:0001250", "HP:0000002"]},
            {"case_id": "b", "status": "failed", "error": "timeout"},
            {"case_id": "c", "status": "not_evaluable"},
        ],
    )  # fmt: skip
    assert read_results(records, None)[0] == "cases"
    conversion = convert_hpo(cases, [records], tags=["dense"], check_ids=False)
    (run,) = conversion.runs
    assert run.tag == "dense"
    assert run.table["docno"].tolist() == ["HP:0000003", "HP:0001250", "HP:0000002"]
    assert run.original_scores is None
    failed = [d for d in conversion.report.dropped if d["reason"].startswith("failed case")]
    assert failed == [
        {"reason": "failed case (no results; -c counts it as 0)", "qid": "b", "line": 2,
         "error": "timeout"}
    ]  # fmt: skip
    assert conversion.report.counts["case marked not_evaluable by the producer"] == 1


def test_a_failed_case_beside_one_completed_without_a_term_is_noted(tmp_path):
    """Reviewer 678: Phentrieve's MRR over completed cases counts the one without a term
    0 and leaves the failed one out, (0.5 + 0) / 2 = 0.25, where trec_eval 9.0.8 gives
    0.5 and with -c 0.1667 (checked by hand on these files): no mode gives it, and no
    note said so. One case of a kind alone gets no such note."""
    cases = write_json(
        tmp_path / "cases.json",
        [{"text": t, "expected_hpo_ids": [h]}
         for t, h in (("a", "HP:0001250"), ("b", "HP:0004322"), ("c", "HP:0000252"))],
    )  # fmt: skip
    done = {"case_id": 0, "status": "complete", "retrieved_hpo_ids": ["HP:0000252", "HP:0001250"]}
    failed = {"case_id": 1, "status": "failed", "error": "boom"}
    empty = {"case_id": 2, "status": "complete", "retrieved_hpo_ids": []}
    said = (
        "cj: Phentrieve's means over completed cases count the 1 completed without a term as 0 "
        "and leave out the 1 without results: no trec_eval mode does both (-c counts every "
        "one as 0, without it neither is counted)"
    )
    failed_too, empty_too = {**failed, "case_id": 2}, {**empty, "case_id": 1}
    # a case the file lacks is no completed one either: [done, empty] is noted too
    for records, noted in [([done, failed, empty], True), ([done, empty], True),
                           ([done, failed, failed_too], False),
                           ([done, empty_too, empty], False)]:  # fmt: skip
        path = write_jsonl(tmp_path / "cases.jsonl", records)
        notes = convert_hpo(cases, [path], tags=["cj"], check_ids=False).report.notes
        assert (said in notes) == noted, notes


FAILED_A = {"case_id": "a", "status": "failed", "error": "timeout"}
COMPLETE_A = {"case_id": "a", "status": "complete", "retrieved_hpo_ids": ["HP:0000002"]}


@pytest.mark.parametrize(
    "records",
    [
        # the run had the case's documents and the report said it failed
        [FAILED_A, COMPLETE_A],
        # two rankings were concatenated into one
        [COMPLETE_A, {**COMPLETE_A, "retrieved_hpo_ids": ["HP:0001250"]}],
        [COMPLETE_A, {"case_id": "a", "status": "not_evaluable"}],
    ],
)
def test_a_case_twice_in_cases_jsonl_is_refused_at_its_line(tmp_path, records):
    cases = write_json(tmp_path / "cases.json", RICH)
    path = write_jsonl(tmp_path / "dup.jsonl", records)
    with pytest.raises(InputError) as error:
        convert_hpo(cases, [path], check_ids=False)
    assert str(error.value) == f"{path}:2: case_id: 'a' is used twice (first at line 1)"


@pytest.mark.parametrize(
    ("status", "said"),
    [(None, "null"), (True, "a boolean (true)"), (2, "a number (2)"), ("done", "'done'")],
)
def test_an_unknown_status_is_said_in_json_s_words(tmp_path, status, said):
    # status null was "unknown status None", true "True": Python's words for JSON's values
    cases = write_json(tmp_path / "cases.json", RICH)
    path = write_jsonl(tmp_path / "s.jsonl", [{**COMPLETE_A, "status": status}])
    with pytest.raises(InputError) as error:
        convert_hpo(cases, [path], check_ids=False)
    assert str(error.value) == (
        f"{path}:1: status: unknown status {said} (complete, failed or not_evaluable)"
    )


UNUSED = " (a failed case's retrieved_hpo_ids are not used)"


@pytest.mark.parametrize(
    ("records", "line", "counts", "unused"),
    [
        ([{**FAILED_A, "retrieved_hpo_ids": ["HP:0001250"]}], 1, "1 failed", UNUSED),
        ([{"case_id": "b", "status": "not_evaluable"}, FAILED_A], 1, "1 failed and 1 "
         "not_evaluable", UNUSED),
        # no case failed: no failed case's ids to speak of
        ([{"case_id": "b", "status": "not_evaluable"}], 1, "1 not_evaluable", ""),
    ],
)  # fmt: skip
def test_cases_jsonl_with_no_completed_case_says_so_at_its_line(tmp_path, records, line, counts,
                                                                unused):  # fmt: skip
    # it said "run f: no retrieved document", of the file, when every case had failed
    cases = write_json(tmp_path / "cases.json", RICH)
    path = write_jsonl(tmp_path / "f.jsonl", records)
    with pytest.raises(InputError) as error:
        convert_hpo(cases, [path], check_ids=False)
    assert str(error.value) == (
        f"{path}:{line}: no case completed ({counts}): no result to write as a run{unused}"
    )


def chroma_result(ids, distances):
    return {
        "ids": [[f"chunk-{i}" for i in ids]],
        "metadatas": [[{"hpo_id": i, "label": "..."} for i in ids]],
        "distances": [distances],
    }


def test_chroma_results_in_three_layouts(tmp_path):
    cases = write_json(tmp_path / "cases.json", RICH)
    per_case = [
        chroma_result(["HP:0001250", "HP:0000002"], [0.1, 1.4]),
        chroma_result(["HP:0004322"], [0.2]),
        chroma_result([], []),
    ]
    batched = {key: [r[key][0] for r in per_case] for key in ("ids", "metadatas", "distances")}
    keyed = {"b": per_case[1], "a": per_case[0]}
    expected = [("a", "HP:0001250", 0.9), ("a", "HP:0000002", 0.0), ("b", "HP:0004322", 0.8)]
    for label, data in (("list", per_case), ("batched", batched), ("keyed", keyed)):
        path = write_json(tmp_path / f"{label}.json", data)
        (run,) = convert_hpo(cases, [path], check_ids=False).runs
        got = sorted(zip(run.table["qid"], run.table["docno"], run.original_scores, strict=True))
        assert [(q, d, pytest.approx(s)) for q, d, s in got] == sorted(expected), label
    sims = {"ids": [["x"]], "metadatas": [[{"hpo_id": "HP:1"}]], "similarities": [[0.7]]}
    path = write_json(tmp_path / "sims.json", {"a": sims})
    (run,) = convert_hpo(cases, [path], check_ids=False).runs
    assert run.original_scores == [0.7]
    with pytest.raises(InputError, match="2 results for 3 cases"):
        convert_hpo(cases, [write_json(tmp_path / "short.json", per_case[:2])], check_ids=False)


def test_a_score_clamped_from_a_distance_outside_0_1_is_reported(tmp_path):
    """Phentrieve's clamp(1 - distance, 0, 1): rounding gives an exact match a distance
    just below 0, an unrelated term one above 1; the clamped scores tie documents the
    retriever ranked apart, which trec_eval then ranks by docno. It was done without a
    word; each is now a repair of the sidecar, with its distance, saying what the run
    keeps (the producer's order; the message said the run ranked them by docno)."""
    cases = write_json(tmp_path / "cases.json", RICH)
    ids = ["HP:0000001", "HP:0000002", "HP:0000003", "HP:0000004", "HP:0000005"]
    result = chroma_result(ids, [-2e-7, -1e-7, 0.3, 1.4, 1.6])
    path = write_json(tmp_path / "ch.json", {"a": result})
    conversion = convert_hpo(cases, [path], check_ids=False)
    (run,) = conversion.runs
    assert run.original_scores == [1.0, 1.0, pytest.approx(0.7), 0.0, 0.0]
    clamped = [d for d in conversion.report.repaired if "clamped" in d["reason"]]
    assert [(d["qid"], d["docno"], d["distance"]) for d in clamped] == [
        ("a", "HP:0000001", -2e-7),
        ("a", "HP:0000002", -1e-7),
        ("a", "HP:0000004", 1.4),
        ("a", "HP:0000005", 1.6),
    ]
    assert conversion.report.counts[clamped[0]["reason"]] == 4
    assert "(the run keeps the producer's order;" in clamped[0]["reason"]
    assert run.table["docno"].tolist() == ids  # as the producer ranked them


def test_a_null_distance_is_no_score_not_a_clamped_nan(tmp_path):
    """A null distance is a score the producer did not give (null in the sidecar, as a
    null similarity is). It was clamped to NaN and reported as clamped with the distance
    NaN, which the sidecar cannot hold: internal error, exit 70."""
    from trecbench.cli import run

    cases = write_json(tmp_path / "cases.json", RICH)
    path = write_json(
        tmp_path / "ch.json", {"a": chroma_result(["HP:0000001", "HP:0000002"], [None, 0.25])}
    )
    conversion = convert_hpo(cases, [path], check_ids=False)
    (run_written,) = conversion.runs
    assert run_written.original_scores[0] is None
    assert run_written.original_scores[1] == 0.75
    assert not [d for d in conversion.report.repaired if "clamped" in d["reason"]]
    out = tmp_path / "o"
    assert (
        run(["convert", "hpo", str(cases), "--results", str(path), "--no-id-check", "-o", str(out)])
        == 0
    )
    sidecar = json.loads((out / "cases.sidecar.json").read_text(encoding="utf-8"))
    assert sidecar["runs"]["ch"]["original_scores"] == [None, 0.75]


def two_queries(result):
    """A case's Chroma result holding a second query's lists (one more of each column)."""
    return {key: value + value for key, value in result.items()}


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        # only the first list was read: the second query vanished without a word
        (lambda r: [two_queries(r)] + [chroma_result([], [])] * 2,
         "[0].ids: 2 query lists in one case's result (one expected)"),
        (lambda r: {"a": two_queries(r)},
         "a.ids: 2 query lists in one case's result (one expected)"),
        (lambda r: {"a": {**r, "ids": []}},
         "a.ids: 0 query lists in one case's result (one expected)"),
        # a column with more lists than ids: the extra ones were never read
        (lambda r: {"a": {**r, "distances": r["distances"] * 2}},
         "a.distances: 2 lists where ids has 1 (one per query)"),
        (lambda r: {**{key: value * 3 for key, value in r.items()}, "distances": [[0.1]] * 4},
         "distances: 4 lists where ids has 3 (one per query)"),
    ],
)  # fmt: skip
def test_chroma_lists_that_would_go_unread_are_refused(tmp_path, layout, message):
    cases = write_json(tmp_path / "cases.json", RICH)
    path = write_json(tmp_path / "chroma.json", layout(chroma_result(["HP:0001250"], [0.1])))
    with pytest.raises(InputError) as error:
        convert_hpo(cases, [path], check_ids=False)
    assert str(error.value) == f"{path}:1: {message}"


def test_an_empty_case_id_key_in_keyed_chroma_results_is_an_input_error(tmp_path):
    cases = write_json(tmp_path / "cases.json", RICH)
    keyed = tmp_path / "keyed.json"
    keyed.write_text(
        json.dumps({"a": chroma_result(["HP:0001250"], [0.1])})[:-1]
        + ',\n"": '
        + json.dumps(chroma_result(["HP:0000002"], [0.2]))
        + "}"
    )
    with pytest.raises(InputError) as error:
        convert_hpo(cases, [keyed], check_ids=False)
    assert str(error.value) == (
        f'{keyed}:2: [""]: expected a non-empty string id, found a string ("")'
    )


def test_demo_runs_agree_with_is_gold_and_depth_cut():
    cases = DEMO / "cases.json"
    results = sorted((DEMO / "results").glob("*/terms.jsonl"))
    if not results:
        pytest.skip("demo data not generated")
    conversion = convert_hpo(cases, results, depth=10)
    assert [r.tag for r in conversion.runs] == [p.parent.name for p in results]
    qrels = set(zip(*conversion.qrels["cases"][["qid", "docno"]].T.values, strict=True))
    for path, run in zip(results, conversion.runs, strict=True):
        lines = [json.loads(t) for t in path.read_text().splitlines()]
        gold = {(r["case_id"], r["hpo_id"]) for r in lines if r["is_gold"]}
        assert gold <= qrels
        top = pd.DataFrame(lines).sort_values(["case_id", "rank"]).groupby("case_id").head(10)
        assert set(zip(top["case_id"], top["hpo_id"], strict=True)) == set(
            zip(run.table["qid"], run.table["docno"], strict=True)
        )
        assert run.table.groupby("qid").size().max() == 10
    assert conversion.provenance["ontology"]["unknown"] == []


def test_producer_gold_that_disagrees_with_the_test_cases_is_reported(tmp_path):
    cases = write_json(tmp_path / "cases.json", RICH)
    terms = write_jsonl(
        tmp_path / "t.jsonl",
        [
            {"case_id": "a", "hpo_id": "HP:0001250", "rank": 1, "score": 0.9, "is_gold": False},
            {"case_id": "a", "hpo_id": "HP:0000118", "rank": 2, "score": 0.8, "is_gold": True},
            {"case_id": "b", "hpo_id": "HP:0004322", "rank": 1, "score": 0.9, "is_gold": True},
        ],
    )
    records = write_jsonl(
        tmp_path / "c.jsonl",
        [
            {"case_id": "a", "status": "complete", "retrieved_hpo_ids": ["HP:0000118"],
             "expected_hpo_ids": ["HP:0001250"]},
            {"case_id": "b", "status": "complete", "retrieved_hpo_ids": ["HP:0000118"],
             "expected_hpo_ids": ["HP:0004322", "HP:0000005"]},
        ],
    )  # fmt: skip
    conversion = convert_hpo(cases, [terms, records], tags=["t", "c"], check_ids=False)
    found = [
        (d["run"], d["qid"], d["producer_only"], d["test_cases_only"])
        for d in conversion.report.repaired
        if d["reason"].startswith("producer's gold ids differ")
    ]
    assert found == [
        ("t", "a", ["HP:0000118"], ["HP:0001250"]),
        ("c", "b", ["HP:0000005"], []),
    ]


def test_a_results_file_without_a_retrieved_term_is_named_as_the_file_at_fault(tmp_path):
    # 'one.json: run ch: no retrieved document' named the cases, not the results file
    from trecbench.convert.common import write_conversion

    cases = write_json(tmp_path / "one.json", [{"text": "x", "expected_hpo_ids": ["HP:0001250"]}])
    empty = write_json(
        tmp_path / "ch.json", {"0": {"ids": [[]], "metadatas": [[]], "distances": [[]]}}
    )
    conversion = convert_hpo(cases, [empty], check_ids=False)
    with pytest.raises(InputError) as error:
        write_conversion(conversion, tmp_path / "out", [cases, empty])
    assert str(error.value) == f"{empty}: run ch: no retrieved document"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("domain", "problem"),
    [
        ("", "empty group name: a topic without a hpo_domain goes in (none) "
         "(leave its hpo_domain out)"),
        (" \t", r"blank group name ' \t': a topic without a hpo_domain goes in (none) "
         "(leave its hpo_domain out)"),
        ("(none)", "(none) names the topics without a hpo_domain"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("rich", [True, False])
def test_an_hpo_domain_no_group_can_have_is_refused_at_its_line(
    tmp_path, capsys, domain, problem, rich
):
    # it went into the sidecar's strata, which score --strata then refused
    from trecbench.cli import run

    cases = [
        {"case_id": "a", "text": "x", "expected_hpo_ids": ["HP:0001250"], "hpo_domain": "CNS"},
        {"case_id": "b", "text": "y", "expected_hpo_ids": ["HP:0004322"], "hpo_domain": domain},
    ]
    path = tmp_path / "cases.json"
    path.write_text(
        json.dumps({"test_cases": cases} if rich else cases, indent=1), encoding="utf-8"
    )
    lines = [text.strip() for text in path.read_text().splitlines()]
    line = lines.index(f'"hpo_domain": {json.dumps(domain)}') + 1
    out = tmp_path / "out"
    assert run(["convert", "hpo", str(path), "--no-id-check", "-o", str(out)]) == 2
    field = "test_cases[1].hpo_domain" if rich else "[1].hpo_domain"
    assert capsys.readouterr().err == f"trecbench: {path}:{line}: {field}: {problem}\n"
    assert not out.exists()


def test_a_trailing_newline_in_an_hpo_id_is_refused_on_the_command_line(tmp_path, capsys):
    from trecbench.cli import run

    path = tmp_path / "nl.json"
    path.write_text('[{"text": "Epilepsie", "expected_hpo_ids": ["HP:0001250\\n", "HP:0001250"]}]')
    assert run(["convert", "hpo", str(path), "--no-id-check", "-o", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == (
        f'trecbench: {path}:1: [0].expected_hpo_ids[0]: "HP:0001250\\n" does not match '
        "'^HP:[0-9]{7}$'\n"
    )
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("language", ["", " ", "(none)", "klingon", "it", "de\n"])
def test_a_language_no_group_can_have_is_refused(tmp_path, capsys, language):
    from trecbench.cli import run

    path = write_json(tmp_path / "c.json", [{"text": "x", "expected_hpo_ids": ["HP:0001250"]}])
    out = tmp_path / "out"
    code = run(
        ["convert", "hpo", str(path), "--no-id-check", "--language", language, "-o", str(out)]
    )
    assert code == 1
    assert capsys.readouterr().err.startswith(f"trecbench: --language {language!r}: ")
    assert not out.exists()


def test_the_languages_are_the_schemas_whatever_gives_them(tmp_path):
    # the path rule inferred 'it' and 'pt' and --language took any name, where the schema
    # refused a case's or the metadata's "it"
    from trecbench.convert.hpo import LANGUAGE_WORDS, languages

    assert languages() == ("de", "en", "fr", "es", "nl")
    assert sorted(set(LANGUAGE_WORDS.values())) == sorted(languages())
    for word in ("italian", "portuguese"):
        path = write_json(
            tmp_path / f"570terms_{word}.json", [{"text": "x", "expected_hpo_ids": []}]
        )
        assert "language" not in read_cases(path, Report())[1]
    meta = tmp_path / "meta.json"
    meta.write_text(cases_text(metadata={"language": "it"}))
    with pytest.raises(InputError, match=r'metadata.language: "it" is not one of'):
        read_cases(meta, Report())
    with pytest.raises(UsageError, match=r"^language='it': not a language of the test cases' "
                       r"schema \(de, en, fr, es, nl\)"):  # fmt: skip
        read_cases(write_json(tmp_path / "c.json", []), Report(), language="it")
    meta.write_text(cases_text({"text": "x", "expected_hpo_ids": []}))
    assert read_cases(meta, Report(), language="nl")[1]["language"].tolist() == ["nl"]


@pytest.mark.parametrize(
    ("hpo_id", "outcome"),
    [
        ("HP:0000252", "HP:0000252"),
        (5, "5"),  # an integer is its decimal text (an unknown HPO id: reported, not fatal)
        (0, "0"),
        (None, "chunk-HP:0001250"),  # null, as the key left out: the Chroma id
        ("", r"metadatas\[0\]\[0\].hpo_id: expected a non-empty string id, found a string"),
        (False, r"metadatas\[0\]\[0\].hpo_id: expected a non-empty string id, found a bool"),
        (True, r"metadatas\[0\]\[0\].hpo_id: expected a non-empty string id, found a bool"),
    ],
)
def test_a_chroma_hpo_id_is_read_as_every_id(tmp_path, hpo_id, outcome):
    # "", 0 and false were taken as absent: the Chroma id became the docno, silently
    cases = write_json(tmp_path / "cases.json", RICH)
    result = chroma_result(["HP:0001250"], [0.1])
    result["metadatas"][0][0]["hpo_id"] = hpo_id
    path = write_json(tmp_path / "chroma.json", {"a": result})
    if outcome.startswith("metadatas"):
        with pytest.raises(InputError, match=f"^{path}:1: a.{outcome}"):
            convert_hpo(cases, [path], check_ids=False)
        return
    (run,) = convert_hpo(cases, [path], check_ids=False).runs
    assert run.table["docno"].tolist() == [outcome]
    del result["metadatas"][0][0]["hpo_id"]
    (run,) = convert_hpo(cases, [write_json(path, {"a": result})], check_ids=False).runs
    assert run.table["docno"].tolist() == ["chunk-HP:0001250"]


def test_the_sidecar_names_every_case_as_written(tmp_path):
    # failed and not_evaluable cases, the producer's gold and unknown queries were listed
    # as "c 9" where every other entry (and the files) say c%209
    cases = write_json(
        tmp_path / "cases.json",
        [{"case_id": f"c {i}", "text": "x", "expected_hpo_ids": ["HP:0001250"]} for i in (1, 8, 9)],
    )
    records = write_jsonl(
        tmp_path / "cases.jsonl",
        [
            {"case_id": "c 1", "status": "complete", "retrieved_hpo_ids": ["HP:0001250"],
             "expected_hpo_ids": ["HP:0000118 x"]},
            {"case_id": "c 9", "status": "failed", "error": {"timeout": True}},
            {"case_id": "c 8", "status": "not_evaluable"},
            {"case_id": "x 2", "status": "complete", "retrieved_hpo_ids": ["HP:0001250"]},
        ],
    )  # fmt: skip
    report = convert_hpo(cases, [records], tags=["dense"], check_ids=False).report
    named = {
        entry["reason"].split(" (")[0]: {key: entry[key] for key in entry if key != "reason"}
        for entry in report.dropped + report.repaired
        if "percent-escaped" not in entry["reason"]
    }
    assert named == {
        # a JSON value as JSON spells it (str() gave Python's: {'timeout': True})
        "failed case": {"qid": "c%209", "line": 2, "error": '{"timeout": true}'},
        "case marked not_evaluable by the producer": {"qid": "c%208", "line": 3},
        "run query not among the test cases": {"run": "dense", "qid": "x%202"},
        "producer's gold ids differ from the test cases": {
            "run": "dense", "qid": "c%201", "producer_only": ["HP:0000118%20x"],
            "test_cases_only": ["HP:0001250"],
        },
    }  # fmt: skip


def test_the_language_help_names_the_schemas_languages_read_once():
    # the help hard-codes them; languages() parsed the schema's JSON at each call
    from trecbench.cli.convert import convert
    from trecbench.convert import hpo

    (option,) = [p for p in convert.commands["hpo"].params if p.name == "language"]
    *most, last = hpo.languages()
    assert option.help.endswith(f": {', '.join(most)} or {last}.")
    assert hpo.languages() is hpo.languages()


@pytest.mark.parametrize(
    ("grade", "said"),
    [
        ("exact=0", "the exact term's grade must be at least 1"),
        ("sibling=1", "unknown grade 'sibling': expected exact, parent, child"),
        ("parent=1001", "grade parent=1001 must be an integer from 0 to 1000"),
        # an expected term that is another's child was graded 3, above the exact grade
        (
            "child=3",
            "grade child=3 is above exact=2: a neighbouring term would be judged more "
            "relevant than an expected one",
        ),
    ],
)
def test_a_grade_refused_names_the_option(tmp_path, capsys, grade, said):
    # "trecbench: the exact term's grade must be at least 1" named no option (a usage
    # error names the option or the file: docs/cli-conventions.md)
    from trecbench.cli import run

    cases = write_json(tmp_path / "cases.json", RICH)
    args = ["convert", "hpo", str(cases), "--graded", "ontology", "--grade", grade]
    assert run([*args, "--no-id-check", "-o", str(tmp_path / "out")]) == 1
    assert capsys.readouterr().err == f"trecbench: --grade: {said}\n"
    key, value = grade.split("=")
    with pytest.raises(UsageError) as raised:
        convert_hpo(cases, graded="ontology", grades={key: int(value)}, check_ids=False)
    assert str(raised.value) == f"grades: {said}"


def test_two_results_whose_run_files_differ_only_in_case_are_refused(tmp_path):
    # --results a/Tfidf/terms.jsonl --results b/tfidf/terms.jsonl wrote Tfidf.run and
    # tfidf.run, one file on macOS and Windows, where the second replaced the first
    from trecbench.convert.common import write_conversion

    terms = (DEMO / "results" / "tfidf-word" / "terms.jsonl").read_bytes()
    results = []
    for folder in ("a/Tfidf", "b/tfidf"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "terms.jsonl").write_bytes(terms)
        results.append(tmp_path / folder / "terms.jsonl")
    conversion = convert_hpo(DEMO / "cases.json", results, check_ids=False)
    message = "two runs would be written as Tfidf.run and tfidf.run, one file where case"
    with pytest.raises(UsageError, match=message) as raised:
        write_conversion(conversion, tmp_path / "out", inputs=[])
    assert not (tmp_path / "out").exists()
    # tags given that differ in case alone were told to "give each its --tag" (reviewer 687)
    assert str(raised.value).endswith("give them tag values that differ in more than case")


def test_a_case_named_by_its_index_that_another_case_id_holds_is_said_so(tmp_path):
    # case [2] has no case_id: its qid is its index, "2", which case [0] holds; the error
    # named "[2].case_id", a key the case does not have
    cases = write_json(
        tmp_path / "cases.json",
        [
            {"case_id": "2", "text": "a", "expected_hpo_ids": ["HP:0001250"]},
            {"text": "b", "expected_hpo_ids": ["HP:0001251"]},
            {"text": "c", "expected_hpo_ids": ["HP:0001252"]},
        ],
    )
    with pytest.raises(InputError) as error:
        convert_hpo(cases)
    assert str(error.value) == (
        f"{cases}:1: [2]: '2' (its index: it has no case_id) is used twice (first at [0])"
    )
    # the other way round: the first case is named by its index
    cases = write_json(
        tmp_path / "cases.json",
        [
            {"text": "a", "expected_hpo_ids": ["HP:0001250"]},
            {"case_id": "0", "text": "b", "expected_hpo_ids": ["HP:0001251"]},
        ],
    )
    with pytest.raises(InputError) as error:
        convert_hpo(cases)
    assert str(error.value) == (
        f"{cases}:1: [1].case_id: '0' is used twice (first at [0], by its index: it has no case_id)"
    )


@pytest.mark.parametrize(
    ("cases", "results", "said"),
    [
        # the cases give no case_id (numbered 0, 1...): the results' ids are another set's
        (
            [{"text": "a", "expected_hpo_ids": ["HP:0001250"]}],
            [{"case_id": 9, "hpo_id": "HP:0000002", "rank": 1, "score": 0.5}],
            "t.jsonl:1: case_id: '9' matches no test case of {cases}, nor does any other case "
            "id these results name (the test cases: 0; a case without a case_id is numbered "
            "by its position, from 0)",
        ),
        (
            [{"case_id": "a", "text": "a", "expected_hpo_ids": ["HP:0001250"]}],
            [
                {"case_id": "x", "status": "failed", "error": "boom"},
                {"case_id": "y", "retrieved_hpo_ids": ["HP:0000002"]},
            ],
            "t.jsonl:1: case_id: 'x' matches no test case of {cases}, nor does any other case "
            "id these results name (the test cases: a)",
        ),
        # a test case's id, failed: "nor does any other case id" was false of it
        (
            [{"case_id": "a", "text": "a", "expected_hpo_ids": ["HP:0001250"]}],
            [
                {"case_id": "a", "status": "failed", "error": "boom"},
                {"case_id": "y", "retrieved_hpo_ids": ["HP:0000002"]},
            ],
            "t.jsonl: run x has no query in common with qrels c",
        ),
        # ids shown once escaped, as a message shows them (%25 twice was '%2523a%25201')
        (
            [{"case_id": "#a 1", "text": "a", "expected_hpo_ids": ["HP:0001250"]}],
            [{"case_id": "50%", "retrieved_hpo_ids": ["HP:0000002"]}],
            "t.jsonl:1: case_id: '50%25' matches no test case of {cases}, nor does any other "
            "case id these results name (the test cases: #a 1)",
        ),
        # a test case, but one without an expected id: in no qrels, and no run's either
        (
            [
                {"text": "a", "expected_hpo_ids": ["HP:0001250"]},
                {"text": "b", "expected_hpo_ids": []},
            ],
            [{"case_id": 1, "hpo_id": "HP:0000002", "rank": 1, "score": 0.5}],
            "t.jsonl: run x has no query in common with qrels c",
        ),
    ],
)
def test_results_none_of_whose_case_ids_is_a_test_case_are_blamed(tmp_path, cases, results, said):
    # it blamed the cases file, with no line: "c.json: run x has no query in common with
    # qrels c", where the results file is the one at fault
    path = write_json(tmp_path / "c.json", cases)
    terms = write_jsonl(tmp_path / "t.jsonl", results)
    with pytest.raises(InputError) as raised:  # on converting, or before writing
        conversion = convert_hpo(path, [terms], tags=["x"], language="en", check_ids=False)
        write_conversion(conversion, tmp_path / "out", [path, terms])
    assert str(raised.value) == f"{terms.parent}/{said.format(cases=path)}"
    assert not (tmp_path / "out").exists()


DANGLING_OBO = """format-version: 1.2
data-version: hp/releases/2099-01-01

[Term]
id: HP:0000001
name: All

[Term]
id: HP:0000002
name: a
is_a: HP:0000001

[Term]
id: HP:0000010
name: dangling
is_a: HP:0000099
"""


def test_an_ontology_convert_reads_is_said_of_and_recorded_one_unread_refused(tmp_path, capsys):
    # convert hpo --ontology kept the file's own warning (an is_a edge to an undefined id)
    # to itself where score says it; grading with --no-id-check recorded no checksum of
    # the file it graded by; with neither, a file nothing read was taken (reviewer 670)
    from trecbench.cli import run

    obo, cases = tmp_path / "s.obo", tmp_path / "c.json"
    obo.write_text(DANGLING_OBO)
    cases.write_text('[{"text": "x", "expected_hpo_ids": ["HP:0000002"]}]')
    said = "1 is_a edge to an id the file does not define, left out"
    conversion = convert_hpo(cases, ontology=obo)
    assert any(said in note for note in conversion.report.notes)
    graded = convert_hpo(cases, ontology=obo, check_ids=False, graded="ontology")
    recorded = graded.provenance["ontology"]
    assert (recorded["checked"], recorded["source"]) == (False, str(obo))
    assert recorded["sha256"] == hashlib.sha256(DANGLING_OBO.encode()).hexdigest()
    with pytest.raises(UsageError, match="^ontology: nothing reads it"):
        convert_hpo(cases, ontology=obo, check_ids=False)
    args = ["convert", "hpo", str(cases), "-o", str(tmp_path / "n"), "--no-id-check"]
    assert run([*args, "--ontology", str(obo)]) == 1
    assert "(--graded ontology)" in capsys.readouterr().err
    assert not (tmp_path / "n").exists()
