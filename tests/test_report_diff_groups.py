"""diff of two score reports' grouped means (--strata, --group-by), and of two
comparisons' strata: the grouping is an option, the grouped values a section; an older
report's grouping is read from its groups."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, diff_reports

from trecbench.cli import run

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUN = str(ROOT / "runs" / "tfidf-word.run")
SIDECAR = str(ROOT / "qrels" / "hpo-demo.sidecar.json")


@pytest.fixture
def grouped(tmp_path, capsys):
    """A score report of the demo's run with the means grouped by ``fields`` of
    ``strata``."""

    def report(name: str, *fields: str, strata: str = SIDECAR) -> str:
        path = str(tmp_path / f"{name}.json")
        grouping = [arg for by in fields for arg in ("--group-by", by)]
        assert run(["score", "-m", "P.5", "--strata", strata, *grouping, "--report", path,
                    QRELS, RUN]) == 0  # fmt: skip
        capsys.readouterr()
        return path

    return report


def _older(path: str, tmp_path) -> str:
    """The report at ``path`` as one written before score recorded ``group_by``."""
    report = json.loads(open(path).read())
    del report["options"]["group_by"]
    older = tmp_path / f"older-{len(list(tmp_path.iterdir()))}.json"
    older.write_text(json.dumps(report))
    return str(older)


def test_the_fields_grouped_by_are_recorded(grouped):
    report = json.loads(open(grouped("a", "language", "difficulty")).read())
    assert report["options"]["group_by"] == ["language", "difficulty"]
    assert list(report["groups"]) == ["language", "difficulty"]


def test_another_group_by_is_an_option(grouped, tmp_path, capsys):
    """Reviewer 218: --group-by lang vs --group-by size, the same strata file: diff said
    "the evaluations are the same" (exit 0) of lang:macro 0.2500 vs size:macro 0.5000."""
    a, b = grouped("a", "language"), grouped("b", "difficulty")
    code, out = diff_reports(capsys, a, b)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == 'likely cause: the options differ: group_by ["language"] vs ["difficulty"]'
    # the groups of one grouping are not the other's: said by the option alone
    assert lines[1:] == ['option: group_by ["language"] -> ["difficulty"]']
    # older reports (no group_by recorded) say it by their groups
    code, out = diff_reports(capsys, _older(a, tmp_path), _older(b, tmp_path))
    assert code == 1 and 'option: group_by ["language"] -> ["difficulty"]' in out.splitlines()


def test_an_older_report_of_the_same_grouping_is_the_same(grouped, tmp_path, capsys):
    a = grouped("a", "language")
    assert diff_reports(capsys, _older(a, tmp_path), a) == (0, "the evaluations are the same\n")
    plain = tmp_path / "plain.json"
    assert run(["score", "-m", "P.5", "--report", str(plain), QRELS, RUN]) == 0
    capsys.readouterr()
    assert json.loads(plain.read_text())["options"]["group_by"] == []
    assert diff_reports(capsys, _older(str(plain), tmp_path), str(plain))[0] == 0
    code, out = diff_reports(capsys, str(plain), a)
    assert code == 1 and 'option: group_by [] -> ["language"]' in out.splitlines()


def test_the_order_of_the_fields_is_no_difference(grouped, capsys):
    a, b = grouped("a", "language", "difficulty"), grouped("b", "difficulty", "language")
    assert diff_reports(capsys, a, b) == (0, "the evaluations are the same\n")


def test_grouped_means_that_differ_are_listed(grouped, tmp_path, capsys):
    # the same field of another sidecar: every topic in one language, the means move
    sidecar = json.loads(open(SIDECAR).read())
    for fields in sidecar["strata"]["queries"].values():
        fields["language"] = "en"
    other = tmp_path / "one-language.sidecar.json"
    other.write_text(json.dumps(sidecar))
    a, b = grouped("a", "language"), grouped("b", "language", strata=str(other))
    code, out = diff_reports(capsys, a, b)
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("likely cause: the strata sidecar (--strata) differs: ")
    groups = json.loads(open(a).read())["groups"]["language"]["tfidf-word"]
    english = groups["groups"]["en"]
    # one group: every topic, its mean the run's
    result = json.loads(open(b).read())["results"][0]
    mean, topics = result["aggregates"]["P@5"], len(result["per_query"])
    assert f"groups: tfidf-word n language:macro {len(groups['groups'])} -> 1" in lines
    assert f"groups: tfidf-word n language=en {english['n']} -> {topics}" in lines
    assert f"groups: tfidf-word P@5 language=en {english['P@5']:.4f} -> {mean:.4f}" in lines
    # a group only one grouping holds (de) is not compared with nothing
    assert not any("language=de" in line for line in lines)
    code, out = diff_reports(capsys, a, b, "--format", "json")
    changed = {(c["measure"], c["field"]): c for c in json.loads(out)["sections"]}
    assert changed["n", "language:macro"] == {
        "section": "groups",
        "run": "tfidf-word",
        "measure": "n",
        "field": "language:macro",
        "a": len(groups["groups"]),
        "b": 1,
    }


def test_each_group_is_named_as_score_prints_it(tmp_path, capsys):
    """Reviewer 224: the field ``a``'s group ``b=c`` and the field ``a=b``'s group ``c``
    were both ``a=b=c`` (one change lost), and diff printed ``a=b:macro`` where score
    prints ``a%3Db:macro``."""
    strata = tmp_path / "s.json"
    strata.write_text('{"strata": {"queries": {"1": {"a": "b=c", "a=b": "x"}, '
                      '"2": {"a": "y", "a=b": "c"}}}}')  # fmt: skip
    (tmp_path / "r.run").write_text("1 Q0 d1 1 1 t\n2 Q0 d1 1 1 t\n")
    printed: set[str] = set()
    for name, relevant in (("a", 1), ("b", 0)):  # topic 1's document judged otherwise
        (tmp_path / f"{name}.qrels").write_text(f"1 0 d1 {relevant}\n2 0 d1 1\n")
        assert run(["score", "-m", "P.5", "--strata", str(strata), "--group-by", "a",
                    "--group-by", "a=b", "--report", str(tmp_path / f"{name}.json"),
                    str(tmp_path / f"{name}.qrels"), str(tmp_path / "r.run")]) == 0  # fmt: skip
        lines = capsys.readouterr().out.splitlines()
        printed |= {line.split("\t")[1] for line in lines if "\t" in line}
    code, out = diff_reports(capsys, str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    places = {line.split()[3] for line in out.splitlines() if line.startswith("groups: r P@5")}
    assert code == 1 and places <= printed
    assert {"a=b=c", "a%3Db=x", "a:macro", "a%3Db:macro"} <= places


def test_a_comparisons_strata_that_differ_are_listed(tmp_path, capsys):
    """compare --group-by's per-stratum means were not compared: of another sidecar diff
    named the input and nothing of what it moved. They are the groups section, named as
    score's are; a stratum only one report holds (de) is not compared with nothing."""
    sidecar = json.loads(open(SIDECAR).read())
    english = [
        q for q, fields in sidecar["strata"]["queries"].items() if fields["language"] == "en"
    ]
    for fields in sidecar["strata"]["queries"].values():
        fields["language"] = "en"
    other = tmp_path / "one-language.sidecar.json"
    other.write_text(json.dumps(sidecar))
    runs = [str(ROOT / "runs" / f"{stem}.run") for stem in ("tfidf-word", "tfidf-char")]
    paths = []
    for name, strata in (("a", SIDECAR), ("b", str(other))):
        assert run(["compare", QRELS, *runs, "-m", "P.5", "--strata", strata, "--group-by",
                    "language", "--format", "json"]) == 0  # fmt: skip
        (tmp_path / f"{name}.json").write_text(capsys.readouterr().out)
        paths.append(str(tmp_path / f"{name}.json"))
    code, out = diff_reports(capsys, *paths)
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("likely cause: the strata sidecar (--strata) differs: ")
    # the means recomputed from the reports' own per-topic values
    per_query = [json.loads(open(path).read())["per_query"] for path in paths]
    topics = list(per_query[1]["tfidf-word"])
    assert len(english) == 28 and len(topics) == 56
    for stem in ("tfidf-word", "tfidf-char"):
        a = sum(per_query[0][stem][q]["P@5"] for q in english) / len(english)
        b = sum(per_query[1][stem][q]["P@5"] for q in topics) / len(topics)
        assert f"groups: {stem} P@5 language=en {a:.4f} -> {b:.4f}" in lines
    assert "groups: n language=en 28 -> 56" in lines
    assert not any("language=de" in line for line in lines)
    assert diff_reports(capsys, paths[0], paths[0]) == (0, "the evaluations are the same\n")


def test_score_s_csv_names_each_group_once_as_its_trec_text_does(tmp_path, capsys):
    # csv wrote the field a=b's group c and the field a's group b=c both as a=b=c: two
    # rows of one place, P@1 1.0 and 0.0 (by hand: topic 1 retrieves its relevant
    # document first, topic 2 does not); trec text printed a%3Db=c
    strata = tmp_path / "s.json"
    strata.write_text('{"strata": {"queries": {"1": {"a=b": "c", "a": "x"}, '
                      '"2": {"a=b": "d", "a": "b=c"}}}}')  # fmt: skip
    (tmp_path / "r.run").write_text("1 Q0 a 1 2 r\n2 Q0 c 1 1 r\n")
    (tmp_path / "q.qrels").write_text("1 0 a 1\n2 0 b 1\n")
    args = ["score", "-m", "P.1", "--strata", str(strata), "--group-by", "a=b",
            "--group-by", "a", str(tmp_path / "q.qrels"), str(tmp_path / "r.run")]  # fmt: skip
    assert run([*args, "--format", "csv"]) == 0
    rows = [line.split(",") for line in capsys.readouterr().out.splitlines()[1:]]
    values = {(row[1], row[2]): row[4] for row in rows if row[2] == "P.1"}
    assert len(values) == len([row for row in rows if row[2] == "P.1"])  # one row a place
    assert values[("a%3Db=c", "P.1")] == "1.0" and values[("a=b=c", "P.1")] == "0.0"
    assert run(args) == 0
    printed = {line.split("\t")[1] for line in capsys.readouterr().out.splitlines() if "\t" in line}
    assert {place for place, _ in values} <= printed  # named as trec text names them
