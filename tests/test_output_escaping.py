"""No text from an input can inject lines into an output: run names, stratum values and
ids are escaped reversibly (``%XX``) in every line-based format."""

from __future__ import annotations

import json
import re
from urllib.parse import unquote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trecbench.cli import run
from trecbench.escaping import escape_text
from trecbench.renderers import trec_format

HOSTILE = ["de\nP_1                   \tall\t1.0000", "a b", "50%", "x|y", "tab\there", "nul\0"]


def _read(text: str) -> str:
    """An escaped text read back: Markdown's backslash escapes dropped, then unquoted."""
    return unquote(re.sub(r"\\([\\`_~<>&\[\]$])", r"\1", text))


@pytest.mark.parametrize("text", [*HOSTILE, "plain", "é\u2028", "", "%41"])
def test_escaping_is_reversible_and_one_line(text):
    for also in ("", " ", "|", " ="):
        escaped = escape_text(text, also)
        assert unquote(escaped) == text
        assert escaped.isprintable() and not any(c in escaped for c in also)
    assert escape_text("plain-id_1.2/x") == "plain-id_1.2/x"


# printable to Python, yet each draws nothing (Unicode's default ignorables, R2's invisible
# characters): "r" and "r" + one of them read as one id on a page, in a table, in a message
DRAWS_NOTHING = ["\u034f", "\ufe0f", "\u17b4", "\u115f", "\u1160", "\u3164", "\uffa0", "\U000e0100"]


@pytest.mark.parametrize("char", DRAWS_NOTHING)
def test_a_character_that_draws_nothing_is_escaped_where_input_text_is_shown(char):
    from urllib.parse import quote

    from trecbench.escaping import escaper
    from trecbench.html_report.json_text import json_shown

    assert char.isprintable()  # what escaped only Python's unprintable characters missed
    for output_format in ("table", "markdown", "html", "latex", "text"):
        assert quote(char) in escaper(output_format)("r" + char), output_format
    assert unquote(escape_text("r" + char)) == "r" + char
    assert char not in json_shown({"qid": "r" + char})  # the page's provenance JSON


def test_ids_differing_by_a_character_that_draws_nothing_read_as_two(capsys, tmp_path):
    # reviewer 664: three topics r, r+U+034F and r+U+FE0F all read "r" in the table
    qids = ["r", "r\u034f", "r\ufe0f"]
    (tmp_path / "q").write_text("".join(f"{q} 0 d 1\n" for q in qids))
    (tmp_path / "a.run").write_text("".join(f"{q} Q0 d 1 1 t\n" for q in qids))
    page = tmp_path / "p.html"
    args = ["score", "-m", "P.1", str(tmp_path / "q"), str(tmp_path / "a.run")]
    assert run([*args, "--html", str(page), "--html-depth", "0"]) == 0
    shown = page.read_text(encoding="utf-8")
    assert "r%CD%8F" in shown and "r%EF%B8%8F" in shown
    assert not any(char in shown for char in DRAWS_NOTHING)
    assert run(["validate", str(tmp_path / "a.run")]) == 2  # R2: an error in a run's qid
    assert "the qid 'r%CD%8F': invisible" in capsys.readouterr().out


@pytest.fixture
def hostile(tmp_path):
    """Four topics, each in a stratum named by a hostile value, and two runs, one of them
    named with a newline and a fake trec_eval line."""
    (tmp_path / "q").write_text("".join(f"{i} 0 d 1\n" for i in range(len(HOSTILE))))
    lines = "".join(f"{i} Q0 d 1 1.0 t\n" for i in range(len(HOSTILE)))
    (tmp_path / "plain.run").write_text(lines)
    (tmp_path / "fake\nP_1 all 1.0.run").write_text(lines)
    queries = {str(i): {"lang": value} for i, value in enumerate(HOSTILE)}
    sidecar = {"strata": {"fields": ["lang"], "queries": queries}}
    (tmp_path / "s.json").write_text(json.dumps(sidecar))
    return tmp_path


def _score(capsys, folder, output_format):
    args = ["score", "-m", "P.1", "--strata", "s.json", "--group-by", "lang"]
    args += ["--format", output_format, "q", "plain.run", "fake\nP_1 all 1.0.run"]
    code = run(args)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out.splitlines()


def test_trec_format(capsys, hostile, monkeypatch):
    monkeypatch.chdir(hostile)
    lines = _score(capsys, hostile, "trec")
    assert "# fake%0AP_1 all 1.0" in lines
    groups = []
    for line in lines:
        if not line or line.startswith("#"):
            continue
        name, where, value = line.split("\t")  # three fields, always
        assert " " not in where and " " not in value.strip()
        if where.startswith("lang="):
            groups.append(unquote(where.removeprefix("lang=")))
    assert sorted(set(groups)) == sorted(HOSTILE)
    # per run: the overall P_1, then per group (and macro, micro, spread) num_q and P_1
    assert sum(line.startswith("P_1 ") for line in lines) == 2 * (1 + len(HOSTILE) + 3)
    assert sum(line.startswith("#") for line in lines) == 4


def test_table_and_markdown(capsys, hostile, monkeypatch):
    monkeypatch.chdir(hostile)
    table = _score(capsys, hostile, "table")
    assert len(table) == 3 + 2 + 2 * (len(HOSTILE) + 3) + 1  # runs, title + groups
    markdown = _score(capsys, hostile, "markdown")
    rows = [line for line in markdown if line.startswith("|")]
    assert {line.count("|") for line in rows[:4]} == {4}  # run, topics, P@1
    assert {line.count("|") for line in rows[4:]} == {5}  # run, group, n, P@1
    assert any("x%7Cy" in line for line in rows)


@pytest.mark.parametrize("command", ["score", "compare"])
def test_a_star_in_a_name_is_escaped_in_markdown_not_emphasis(capsys, tmp_path, command):
    """``*`` in a Markdown cell emphasises (``a*b*`` showed as a<em>b</em>) and, in
    compare, reads as its significance stars: it is ``%2A``, as score and compare show it."""
    (tmp_path / "q").write_text("1 0 d 1\n2 0 d 1\n")
    for name in ("a*b*.run", "plain.run"):
        (tmp_path / name).write_text("1 Q0 d 1 1.0 t\n2 Q0 d 1 1.0 t\n")
    args = [command, "-m", "P.1", "--format", "markdown", str(tmp_path / "q")]
    assert run([*args, str(tmp_path / "plain.run"), str(tmp_path / "a*b*.run")]) == 0
    out = capsys.readouterr().out
    assert "a%2Ab%2A" in out and "a*b*" not in out and "a\\*b" not in out


def test_ids_no_trec_file_can_hold_are_refused_in_trec_text():
    """A blank or NUL in an id (only a table or a dict can hold one) is refused in trec_eval's
    text, in one line: as it is it breaks the line; escaped it would print as another id
    (``a b`` printed as ``a%20b``, the spelling of a literal ``a%20b``)."""
    import pandas as pd

    import trecbench
    from trecbench.errors import OutputError
    from trecbench.renderers.trec_format import render_trec

    for qid, tag, shown in [("a b", "t", "qid 'a b'"), ("c", "my\ntag", "run tag 'my\\ntag'")]:
        qrels = pd.DataFrame({"qid": [qid], "docno": ["x"], "rel": [1]})
        frame = pd.DataFrame({"qid": [qid], "docno": ["x"], "score": [1.0], "tag": [tag]})
        evaluation = trecbench.evaluate(qrels, frame, ["P.1", "runid"])
        with pytest.raises(
            OutputError, match=re.escape(f"trec_eval's text cannot hold the {shown} ")
        ):
            render_trec(evaluation, per_query=True)
        # the other formats hold it as it is
        document = json.loads(trec_format.render_json(evaluation))
        assert (list(document["runs"][0]["per_query"]), document["runs"][0]["runid"]) == (
            [qid],
            tag,
        )


def test_invisible_characters_print_as_they_are(capsys, tmp_path):
    """trec_eval prints a qid or tag's bytes as they are: U+200F, U+00A0 and \\x01 too, so a
    literal ``q%E2%80%8F1`` and ``q\\u200f1`` are two topics (they printed as one)."""
    qids = ["q%E2%80%8F1", "q\u200f1", "q\x011", "q\u00a01"]
    (tmp_path / "q").write_text("".join(f"{q} 0 d 1\n" for q in qids))
    (tmp_path / "r").write_text("".join(f"{q} Q0 d 1 1 t\u00a0x\x01\n" for q in qids))
    assert (
        run(["score", "-q", "-m", "P.1", "-m", "runid", str(tmp_path / "q"), str(tmp_path / "r")])
        == 0
    )
    out = capsys.readouterr().out
    expected = (
        "".join(f"{'P_1':<22}\t{q}\t{1.0:6.4f}\n" for q in sorted(qids, key=str.encode))
        + "runid                 \tall\tt\u00a0x\x01\nP_1                   \tall\t1.0000\n"
    )
    assert out == expected


def test_a_percent_sign_in_ids_and_tags_prints_as_trec_eval_prints_it(capsys, tmp_path):
    """Text a TREC file can hold is printed as it is: only what needs escaping is escaped."""
    (tmp_path / "pct.run").write_text("q1 Q0 d1 1 1 r%1\nq%2 Q0 d1 1 1 r%1\n")
    (tmp_path / "pct.qrels").write_text("q1 0 d1 1\nq%2 0 d1 1\n")
    args = ["score", "-q", "-m", "runid", "-m", "P.1", "--format", "trec"]
    assert run([*args, str(tmp_path / "pct.qrels"), str(tmp_path / "pct.run")]) == 0
    # trec_eval 9.0.8 -q -m runid -m P.1 pct.qrels pct.run
    assert capsys.readouterr().out == (
        "P_1                   \tq%2\t1.0000\n"
        "P_1                   \tq1\t1.0000\n"
        "runid                 \tall\tr%1\n"
        "P_1                   \tall\t1.0000\n"
    )


# ids from all of Unicode but the surrogates: control, format and space characters too
ID = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=6)
C_BLANKS = frozenset(" \t\n\v\f\r\0")  # where trec_eval's reader ends a field


def _trec_eval_printf(qids: list[str], tag: str) -> bytes:
    """What trec_eval -q -m P.1 -m runid prints for one relevant document retrieved first
    in every topic: its printf formats, topics in strcmp (UTF-8 byte) order."""
    lines = [
        b"%-22s\t%s\t%6.4f\n" % (b"P_1", q.encode(), 1.0) for q in sorted(qids, key=str.encode)
    ]
    lines.append(b"%-22s\tall\t%s\n" % (b"runid", tag.encode()))
    lines.append(b"%-22s\tall\t%6.4f\n" % (b"P_1", 1.0))
    return b"".join(lines)


@settings(derandomize=True, database=None, deadline=None, max_examples=60)
@given(st.lists(ID, min_size=1, max_size=4, unique=True), ID)
def test_distinct_ids_stay_distinct_in_every_format(qids, tag):
    import csv
    import io

    import pandas as pd

    import trecbench
    from trecbench.errors import OutputError

    qrels = pd.DataFrame({"qid": qids, "docno": "d", "rel": 1})
    frame = pd.DataFrame({"qid": qids, "docno": "d", "score": 1.0, "tag": tag})
    if any("\0" in text for text in [*qids, tag]):  # C strings end there: refused as read
        with pytest.raises(trecbench.InputError, match=r"holds a NUL \(R31\)"):
            trecbench.evaluate(qrels, frame, ["P.1", "runid"])
        return
    evaluation = trecbench.evaluate(qrels, frame, ["P.1", "runid"])
    ordered = sorted(qids, key=str.encode)
    if any(not C_BLANKS.isdisjoint(text) for text in [*qids, tag]):
        with pytest.raises(OutputError, match="trec_eval's text cannot hold the "):
            trec_format.render_trec(evaluation, per_query=True)
    else:  # what a TREC file can hold: printed as trec_eval prints it
        text = trec_format.render_trec(evaluation, per_query=True)
        assert text.encode() == _trec_eval_printf(qids, tag)
    rows = list(
        csv.reader(io.StringIO(trec_format.render_csv(evaluation, per_query=True), newline=""))
    )
    assert [row[1] for row in rows[1:-1]] == ordered and rows[-1][1] == "all"
    document = json.loads(trec_format.render_json(evaluation))["runs"][0]
    assert (list(document["per_query"]), document["runid"]) == (ordered, tag)


def test_similarity_and_pool_tables_escape_run_names_and_qids(capsys, hostile, monkeypatch):
    # they printed a name's newline raw: the row broke in two
    monkeypatch.chdir(hostile)
    name = "fake\nP_1 all 1.0"
    code = run(["similarity", "-q", "plain.run", f"{name}.run"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert len(out) == 1 + len(HOSTILE) + 1  # the header, each topic, all
    # columns stand two blanks or more apart; the name keeps its one blank
    assert all(unquote(re.split(" {2,}", line)[1]) == name for line in out[1:])
    code = run(["pool", "plain.run", f"{name}.run", "-o", "pool.txt"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert [unquote(re.split(" {2,}", line)[0]) for line in out[1:3]] == ["plain", name]


NAME = "fake\nP_1 all 1.0"  # the hostile fixture's second run


def test_compare_keeps_a_stratum_value_s_trailing_nul():
    # numpy's fixed-width strings cut it: "b\0" was shown as the stratum "b", merged with it
    from trecbench.comparison.tables import sections_of

    parts = sections_of(["q0", "q1", "q2"], {"f": {"q0": "b\0", "q1": "a", "q2": "b"}})
    strata = [(part.section.value, part.rows.tolist()) for part in parts[2:]]
    assert strata == [("a", [1]), ("b", [2]), ("b\0", [0])]
    assert parts[1].strata.tolist() == ["b\0", "a", "b"]


def _command(capsys, *args: str) -> list[str]:
    """What a command prints, checked to hold no line a name or a stratum injected: the
    run's name and the first stratum's value each hold a line that looks like trec_eval's,
    which, printed as it is, starts a line of its own."""
    code = run(list(args))
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert not any(line.lstrip("|> -").startswith(("P_1", r"P\_1")) for line in lines)
    return lines


def _compare(capsys, output_format: str) -> list[str]:
    args = ["q", "plain.run", f"{NAME}.run", "-m", "P.1", "--samples", "40", "--strata"]
    args += ["s.json", "--group-by", "lang", "--format", output_format]
    return _command(capsys, "compare", *args)


def _unlatex(text: str) -> str:
    for latex, char in ((r"\%", "%"), (r"\_", "_"), (r"\textbar{}", "|")):
        text = text.replace(latex, char)
    return text


def _bars(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


def _markdown_tables_keep_their_columns(lines: list[str]) -> None:
    """Each row of each Markdown table has as many cells as the table's header."""
    width = None
    for line in lines:
        if not line.startswith("|"):
            width = None
            continue
        width = width or _bars(line)
        assert _bars(line) == width, line


def test_compare_text_escapes_run_names_and_strata(capsys, hostile, monkeypatch):
    # the text turned a newline into a blank (a name of its own: silently another name);
    # a stratum's newline split its row
    monkeypatch.chdir(hostile)
    lines = _compare(capsys, "table")
    assert lines[0] == "Runs: plain (baseline), fake%0AP_1 all 1.0"
    assert unquote(lines[0].split(", ")[1]) == NAME
    rows = [line for line in lines if re.search(r"  1  P@1  +1\.0000  +1\.0000$", line)]
    assert [unquote(row[: row.rindex("  1  P@1")].rstrip()) for row in rows] == sorted(HOSTILE)
    assert sum(line.startswith("P@1      fake%0AP_1 all 1.0  ") for line in lines) == 1  # Welch


def test_compare_markdown_escapes_as_score_does(capsys, hostile, monkeypatch):
    # its Markdown printed the newline as it is (the row broke in two) and a | as \|
    monkeypatch.chdir(hostile)
    lines = _compare(capsys, "markdown")
    _markdown_tables_keep_their_columns(lines)
    assert lines[2] == "- Runs: plain (baseline), fake%0AP\\_1 all 1.0"  # P\\_1: not emphasis
    titles = [line for line in lines if line.startswith("## lang = ")]
    values = [_read(line.removeprefix("## lang = ").rsplit(" (", 1)[0]) for line in titles]
    assert values == sorted(HOSTILE)
    assert "## lang = x%7Cy (1 topic)" in lines and "\\|" not in "\n".join(lines)
    differences = [line for line in lines if line.startswith("| P@1 | fake")]
    assert {_read(line.split(" | ")[1]) for line in differences} == {NAME}


def test_compare_latex_escapes_names_reversibly(capsys, hostile, monkeypatch):
    # LaTeX read a newline in a name as a blank: the name came back as another name
    monkeypatch.chdir(hostile)
    lines = _compare(capsys, "latex")
    rows = [line for line in lines if line.startswith("b & ")]
    assert rows and {row.split(" & ")[1] for row in rows} == {r"fake\%0AP\_1 all 1.0"}
    assert unquote(_unlatex(rows[0].split(" & ")[1])) == NAME


@pytest.mark.parametrize("output_format", ["table", "markdown", "latex"])
def test_power_and_agree_escape_run_names(capsys, hostile, monkeypatch, output_format):
    # they printed a name's newline as it is: the row (and the baseline line) broke in two
    monkeypatch.chdir(hostile)

    def names(lines):  # the first cell of each row
        cells = [re.split(r" {2,}| \| | & ", line.strip("| "))[0] for line in lines]
        return [_read(_unlatex(cell)) for cell in cells if "fake" in cell]

    args = ["-m", "P.1", "--format", output_format]
    power = _command(capsys, "power", "q", f"{NAME}.run", "plain.run", *args)
    _markdown_tables_keep_their_columns(power)
    if output_format != "latex":
        assert _read(power[0].removeprefix("Baseline: ").split(";")[0]) == NAME
    power = _command(capsys, "power", "q", "plain.run", f"{NAME}.run", *args)
    _markdown_tables_keep_their_columns(power)
    rows = [line for line in power if "P@1" in line and "fake" in line]
    assert rows and names(rows[:1]) == [NAME]
    agree = _command(capsys, "agree", "q", "plain.run", f"{NAME}.run", "--qrels-b", "q", *args)
    _markdown_tables_keep_their_columns(agree)
    # its means under the first judgments and under the second (--qrels-b), each escaped
    assert names([line for line in agree if "1.0000" in line]) == [NAME, NAME]


@pytest.mark.parametrize("output_format", ["table", "markdown"])
def test_unjudged_bounds_escape_run_names(capsys, hostile, monkeypatch, output_format):
    # score's and compare's bounds tables printed a name's newline as it is
    monkeypatch.chdir(hostile)
    runs, args = ["plain.run", f"{NAME}.run"], ["-m", "P.1", "--format", output_format]
    score = _command(capsys, "score", "q", *runs, "--unjudged-bounds", *args)
    # nDCG@1's could flip is n/a, its pairs named (P@1's: none, nothing being unjudged)
    compare = _command(
        capsys, "compare", "q", *runs, "--unjudged-bounds", "--samples", "40", "-m", "nDCG@1", *args
    )
    for lines in (score, compare):
        _markdown_tables_keep_their_columns(lines)
        rows = [
            line.strip("| ")
            for line in lines
            if re.search(r"P[@.]1\W+1\.0000\W+1\.0000\W+0\.0%", line)  # as the scores name it
        ]
        assert [_read(re.split(r" {2,}| \| ", row)[0]) for row in rows] == ["plain", NAME]
    flips = "differences whose sign could flip within the ranges: "
    assert f"{flips}none" in compare
    undefined = next(line for line in compare if line.startswith("could flip n/a: "))
    assert _read(undefined.split(" — ")[1].split(" vs ")[0]) == NAME


@pytest.mark.parametrize("output_format", ["table", "markdown", "latex"])
def test_leaderboard_escapes_system_and_collection_names(
    capsys, hostile, monkeypatch, output_format
):
    # a collection's name printed as it is broke the title and the header in two; a
    # system's name (no blank: the suite's schema) kept its control characters and "|"
    monkeypatch.chdir(hostile)
    system, collection = "x|y%1\a", "c|d\nP_1 all 1.0"
    (hostile / f"{system}.run").write_text((hostile / "plain.run").read_text())

    # the second collection has topics of its own (collections sharing one are refused)
    def other_topics(path) -> str:
        return "".join(f"e{line}" for line in (hostile / path).read_text().splitlines(True))

    (hostile / "e.qrels").write_text(other_topics("q"))
    for name in ("plain", system):
        (hostile / f"e-{name}.run").write_text(other_topics("plain.run"))
    (hostile / "suite.toml").write_text(
        'systems = ["plain", "x|y%1\\u0007"]\nmeasures = ["P@1"]\n'
        '[collections."c|d\\nP_1 all 1.0"]\nqrels = "q"\nruns = "{system}.run"\n'
        '[collections.e]\nqrels = "e.qrels"\nruns = "e-{system}.run"\n'
    )
    lines = _command(capsys, "leaderboard", "suite.toml", "--format", output_format)
    _markdown_tables_keep_their_columns(lines)
    header = next(line for line in lines if line.lstrip("| ").startswith("system"))
    cells = [_unlatex(cell) for cell in re.split(r" {2,}| \| | & ", header.strip("| "))]
    assert unquote(cells[1]) == collection and cells[2] == "e"
    rows = [_unlatex(line.strip("| ")) for line in lines if "1.0000 (" in line]
    assert [unquote(re.split(r" {2,}| \| | & ", row)[0]) for row in rows] == ["plain", system]


def test_score_tie_bounds_escape_run_names(capsys, hostile, monkeypatch):
    # score's tie bounds printed a name's newline as it is, in every format
    monkeypatch.chdir(hostile)
    args = ["score", "q", "plain.run", f"{NAME}.run", "-m", "P.1", "--tie-bounds", "--format"]
    for output_format in ("table", "markdown"):
        lines = _command(capsys, *args, output_format)
        _markdown_tables_keep_their_columns(lines)
        rows = [line.strip("| ") for line in lines if "  fixed  " in line or "| fixed |" in line]
        assert [_read(re.split(r" {2,}| \| ", row)[0]) for row in rows] == ["plain", NAME]
    assert run([*args, "trec"]) == 0
    lines = capsys.readouterr().out.splitlines()
    titles = [line.split(": tie bounds")[0] for line in lines if ": tie bounds: " in line]
    assert [_read(title.removeprefix("# ")) for title in titles] == ["plain", NAME]
    assert all(line.startswith("#") or len(line.split("\t")) == 3 for line in lines if line)


def test_compare_csv_holds_a_name_with_a_lone_carriage_return():
    # Python 3.11's csv writer left a lone CR bare (pandas' to_csv too): a reader ended the
    # record there. CSV holds names as they are: quoted, they read back
    import csv
    import io

    import pandas as pd

    from trecbench.comparison import compare_scores

    names = ["a\rb", "c\nd", 'e"\r\n,f']
    per_query = pd.DataFrame(
        [(n, q, "P@5", v) for n in names for q, v in zip("xyz", (0.2, 0.4, 0.6), strict=True)],
        columns=["run", "qid", "measure", "value"],
    )
    text = compare_scores(per_query, samples=40).render("csv")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert [row["run"] for row in rows] == names
    records = list(csv.reader(io.StringIO(text, newline="")))
    assert {len(record) for record in records} == {len(records[0])}
    assert text.endswith(",\n") and not text.split("\n", 1)[0].endswith("\r")  # LF-ended


UNJUDGED_QRELS = "j|%\nP_1 all 1.0"  # a qrels file's name that would start a line


@pytest.mark.parametrize("output_format", ["table", "markdown"])
def test_compare_allow_unjudged_warning_escapes_the_run_and_the_qrels(
    capsys, hostile, monkeypatch, output_format
):
    # the header's "Warning (--allow-unjudged)" line was built once with the raw name and
    # path: Markdown split it in two, the text turned the newline into a blank
    monkeypatch.chdir(hostile)
    (hostile / UNJUDGED_QRELS).write_text((hostile / "q").read_text())
    (hostile / f"{NAME}.run").write_text(
        "".join(f"{i} Q0 other 1 1.0 t\n" for i in range(len(HOSTILE)))
    )
    args = [UNJUDGED_QRELS, "plain.run", f"{NAME}.run", "-m", "P.1", "--samples", "40"]
    lines = _command(capsys, "compare", *args, "--allow-unjudged", "--format", output_format)
    _markdown_tables_keep_their_columns(lines)
    start = next(i for i, line in enumerate(lines) if "Warning (--allow-unjudged)" in line)
    end = next(i for i in range(start + 1, len(lines) + 1) if not lines[i].startswith("  "))
    warning = " ".join(line.strip() for line in lines[start:end])  # the text wraps it
    name, said = warning.split(": ", 1)[1].split(": ", 1)
    assert _read(name) == NAME
    qrels = said.split(" are unjudged in ", 1)[1].split(" (", 1)[0]
    assert _read(qrels) == UNJUDGED_QRELS
    assert said.startswith("100.0% of the documents it retrieved within rank 1 are unjudged in ")


def test_benchmark_escapes_its_name_mode_labels_and_qids(capsys, tmp_path):
    # the benchmark printed its name, mode labels and qids as they are: a newline started
    # a line of its own, a "|" split a KPI row's cells, a "*" read as emphasis
    import shutil

    from conftest import ROOT

    demo = tmp_path / "demo"
    shutil.copytree(ROOT / "data" / "hpo-rtask", demo)
    sidecar = (ROOT / "qrels" / "hpo-demo.sidecar.json").as_posix()
    config = (demo / "benchmark.toml").read_text()
    config = config.replace('"../../qrels/hpo-demo.sidecar.json"', json.dumps(sidecar))
    config = config.replace('name = "hpo-rtask"', 'name = "hpo\\nP_1 all 1.0"')
    config = config.replace('"Lexical-Only"', '"Lex|ical *one*"')
    config = config.replace('"Hybrid"', '"Hy\\nP_1 all 1.0"')
    config = config.replace("samples = 10000", "samples = 100")
    (demo / "benchmark.toml").write_text(config)
    qid = "q|*0"  # a topic without a relevant document: listed among the qrels' problems
    with open(demo / "hpo-rtask.qrels", "a") as qrels:
        qrels.write(f"{qid} 0 HP:0000001 0\n")
    for name in ("lexical", "vector", "reranked"):
        run_file = demo / f"{name}.run"
        tag = run_file.read_text().split()[-1]
        run_file.write_text(run_file.read_text() + f"{qid} Q0 HP:0000001 1 1.0 {tag}\n")
    lines = _command(capsys, "benchmark", str(demo / "benchmark.toml"), "-o", str(tmp_path / "o"))
    _markdown_tables_keep_their_columns(lines)
    assert _read(lines[0].removeprefix("# Benchmark: ")) == "hpo\nP_1 all 1.0"
    header = next(line for line in lines if line.startswith("| Metric | "))
    labels = [_read(cell) for cell in header.strip("| ").split(" | ")[1:-1]]
    assert labels == [
        "Lex|ical *one* (baseline)",
        "Vector-Only",
        "Hy\nP_1 all 1.0",
        "Lexical+Rerank",
    ]
    (flagged,) = [line for line in lines if line.startswith("- qrels: 1 topic without")]
    assert "(q%7C%2A0)" in flagged
    written = (tmp_path / "o" / "BenchmarkComparison.md").read_text().splitlines()
    assert written[0] == lines[0]


def test_validate_escapes_the_paths_it_prints(capsys, tmp_path, monkeypatch):
    # a finding's FILE:LINE and --fix's lines printed a path as it is: a newline in it
    # split the finding in two
    monkeypatch.chdir(tmp_path)
    name = "a\nP_1 all 1.0%.run"
    bad = "".join(f"1 Q0 d{i} {i} x t\n" for i in range(1, 8))  # 7 R12 errors: a note too
    (tmp_path / name).write_text(bad)
    assert run(["validate", name]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 7 and lines[-1].startswith("FAILED: 1 file(s)")
    assert all(unquote(line.split(":1:")[0].split(":")[0]) == name for line in lines[:5])
    assert lines[5].startswith("a%0AP_1 all 1.0%25.run: note: 2 more [R12]")
    (tmp_path / name).write_text("1 Q0 d1 1 3 t\n1 Q0 d2 2 1.0 t\n")
    assert run(["validate", name, "--fix", f"fixed\n{name}"]) == 0
    out, err = capsys.readouterr()  # what was written on stderr, as every wrote PATH
    assert err.splitlines()[0] == (
        "a%0AP_1 all 1.0%25.run: wrote the canonical run to "
        "fixed%0Aa%0AP_1 all 1.0%25.run; changes:"
    )
    assert unquote(out.splitlines()[-1].split(": OK: ")[0]) == f"fixed\n{name}"


def test_convert_escapes_the_paths_it_wrote(capsys, tmp_path, monkeypatch):
    # "wrote PATH" printed the output folder as it is: a newline split the line
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.tsv").write_text("1\td1\t1\n1\td2\t2\n")
    outdir = "o\nP_1 all 1.0%"
    assert run(["convert", "msmarco", "m.tsv", "-o", outdir]) == 0
    out, err = capsys.readouterr()
    assert out == ""  # said on stderr, as every wrote PATH
    assert err.splitlines() == [
        "wrote o%0AP_1 all 1.0%25/m.run: 1 query, 2 documents",
        "wrote o%0AP_1 all 1.0%25/m.sidecar.json",
    ]
    assert (tmp_path / outdir / "m.run").is_file()


@pytest.mark.parametrize("command", ["fuse", "pool"])
def test_the_written_line_on_stderr_is_one_line(capsys, hostile, monkeypatch, command):
    # "wrote PATH" printed the path as it is: a newline in it split the message in two
    monkeypatch.chdir(hostile)
    output = "o\nP_1 all 1.0"
    other = hostile / f"{NAME}.run"  # another run (fuse refuses a copy of plain.run)
    other.write_text(other.read_text().replace(" t\n", " u\n"))
    assert run([command, "plain.run", f"{NAME}.run", "-o", output]) == 0
    err = capsys.readouterr().err
    (line,) = [line for line in err.splitlines() if line.startswith("wrote ")]
    assert line.startswith("wrote o\\nP_1 all 1.0: ") and err.count("\n") == len(err.splitlines())
    assert (hostile / output).is_file()


def test_a_file_name_that_is_not_utf8_is_escaped_never_an_internal_error(
    tmp_path, capsys, monkeypatch
):
    import os

    from conftest import ROOT

    from trecbench.naming import run_names

    monkeypatch.chdir(tmp_path)
    name = os.fsdecode(b"\xffw.run")  # a byte no UTF-8 decodes: a lone surrogate in Python
    (tmp_path / name).write_bytes((ROOT / "runs" / "tfidf-word.run").read_bytes())
    bad = tmp_path / os.fsdecode(b"\xffbad.run")
    bad.write_text("q1 Q0 a 1 nan t\n")
    qrels = str(ROOT / "qrels" / "hpo-demo.qrels")
    other = str(ROOT / "runs" / "tfidf-char.run")
    assert escape_text(name) == "%FFw.run" and run_names([name]) == ["%FFw"]
    commands = [
        (["validate", str(bad)], 2),
        (["validate", other, "--fix", os.fsdecode(b"\xfe.out")], 0),
        (["score", qrels, name, other, "--format", "table"], 0),
        (["score", qrels, name, "--report", os.fsdecode(b"\xffr.json")], 0),
        (["score", "--html", os.fsdecode(b"\xffh.html"), qrels, name, other], 0),
        (["compare", qrels, name, other, "-m", "P@5", "-o", os.fsdecode(b"\xffout")], 0),
    ]
    for command, status in commands:
        assert run(command) == status, command
        captured = capsys.readouterr()
        assert "internal error" not in captured.err, command
    assert "%FFbad.run:1:score: error[R12]" in run_and_capture(capsys, ["validate", str(bad)])
    # the report records the path as JSON's escape of the byte: the same name read back
    report = json.loads((tmp_path / os.fsdecode(b"\xffr.json")).read_bytes())
    assert name in {item.get("path") for item in report["inputs"]}


def run_and_capture(capsys, command) -> str:
    run(command)
    return capsys.readouterr().out


def test_compare_json_of_a_run_file_named_with_a_byte_not_utf8_is_utf8(tmp_path):
    # under a strict UTF-8 standard output (an en_US.UTF-8 locale) compare --format json
    # was an internal error; under C.UTF-8 it wrote the raw byte, no JSON reader's text
    import os
    import subprocess
    import sys

    from conftest import ROOT

    name = tmp_path / os.fsdecode(b"x\xff.run")
    name.write_bytes((ROOT / "runs" / "tfidf-word.run").read_bytes())
    command = [sys.executable, "-m", "trecbench", "compare", str(ROOT / "qrels" / "hpo-demo.qrels")]
    command += [str(name), str(ROOT / "runs" / "tfidf-char.run"), "-m", "P@5", "--format", "json"]
    env = os.environ | {"PYTHONIOENCODING": "utf-8:strict"}
    done = subprocess.run(command, capture_output=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.decode("utf-8"))  # strict: every byte UTF-8
    assert os.fsdecode(b"x\xff.run") in {os.path.basename(i["path"]) for i in report["inputs"]}


@pytest.mark.parametrize("command", ["similarity", "pool", "power", "agree", "leaderboard"])
def test_every_json_printed_of_an_input_named_with_a_byte_not_utf8_is_utf8(tmp_path, command):
    # similarity, pool, power, agree and leaderboard printed the raw byte in the path of
    # their JSON's inputs: no UTF-8, no JSON text (RFC 8259 section 8.1)
    import os
    import subprocess
    import sys

    from conftest import ROOT

    named = os.fsdecode(b"x\xff")
    run_file = tmp_path / f"{named}.run"
    run_file.write_bytes((ROOT / "runs" / "tfidf-word.run").read_bytes())
    qrels, other = str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-char.run")
    suite = tmp_path / f"{named}.toml"
    suite.write_text(
        f'name = "s"\nmeasures = ["P@5"]\nsystems = ["tfidf-char", "tfidf-word"]\n'
        f'[collections.c]\nqrels = "{qrels}"\nruns = "{ROOT / "runs"}/{{system}}.run"\n'
    )
    arguments = {
        "similarity": [str(run_file), other],
        "pool": [str(run_file), other, "-o", str(tmp_path / "pool.txt")],
        "power": [qrels, str(run_file), other, "-m", "P@5"],
        "agree": [qrels, str(run_file), other, "-m", "P@5", "-m", "P@10"],
        "leaderboard": [str(suite)],
    }[command]
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", command, *arguments, "--format", "json"],
        capture_output=True,
        env=os.environ | {"PYTHONIOENCODING": "utf-8:surrogateescape"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout.decode("utf-8"))  # strict: every byte UTF-8
    assert os.fsdecode(b"x\xff") in json.dumps(document, ensure_ascii=False)


@pytest.mark.parametrize(
    "name", ["<!--a", "a&amp;b", "`c`", "_e_", "~~s~~", "[l](http://u)", "b\\c", "<i>x</i>"]
)
def test_a_markdown_cell_renders_the_name_as_given(tmp_path, capsys, monkeypatch, name):
    # only | and * were escaped: a comment hid the cell, an entity, code, emphasis or a
    # link showed other text than the run's name (CommonMark with GFM tables renders it)
    markdown_it = pytest.importorskip("markdown_it")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q").write_text("1 0 d 1\n")
    (tmp_path / "r.run").write_text("1 Q0 d 1 1.0 t\n")
    assert run(["score", "-m", "P.1", "--format", "markdown", "--names", f"{name}=r.run",
                "q", "r.run"]) == 0  # fmt: skip
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(capsys.readouterr().out)
    cells = re.findall(r"<td>(.*?)</td>", html)
    from html import unescape

    assert unquote(unescape(cells[0])) == name


@pytest.mark.parametrize("name", ["# h", "1. z", "- x", "+ y"])
def test_a_name_that_starts_a_list_item_stays_text(name, tmp_path, capsys, monkeypatch):
    # compare's "- NAME: no results for ..." made a heading or a nested list of the name
    markdown_it = pytest.importorskip("markdown_it")
    from trecbench.escaping import markdown_text

    html = markdown_it.MarkdownIt("commonmark").render(f"- {markdown_text(name)}: note\n")
    assert html == f"<ul>\n<li>{name}: note</li>\n</ul>\n"
    assert markdown_text("1.50") == "1.50" and markdown_text("tfidf-word") == "tfidf-word"


@pytest.mark.parametrize("text", ["---", "-- -", " ---", "  - a", "   # h", "  1. x"])
def test_a_text_alone_on_its_line_stays_a_paragraph(text):
    # a benchmark's description is a line of its own: "---" drew a rule in its place and
    # "  - a" a list of "a" (CommonMark takes up to three blanks before a block's marker)
    markdown_it = pytest.importorskip("markdown_it")
    from trecbench.escaping import markdown_text

    html = markdown_it.MarkdownIt("commonmark").render(f"# B\n\n{markdown_text(text)}\n")
    assert html.startswith("<h1>B</h1>\n<p>") and html.endswith("</p>\n")
    assert unquote(html[len("<h1>B</h1>\n<p>") : -len("</p>\n")]) == text  # its blanks too
    assert markdown_text("---x") == "---x" and markdown_text("--") == "--"


@pytest.mark.parametrize("text", ["    code", "     x", " a ", "a  ", "\u00a0  b"])
def test_a_text_s_blanks_at_its_ends_are_shown_as_given(text):
    # four blanks at a line's start made the text an indented code block, and a table's
    # cell is trimmed: an id " a " showed as "a", another id's name
    markdown_it = pytest.importorskip("markdown_it")
    from html import unescape

    from trecbench.escaping import markdown_text

    shown = markdown_text(text)
    page = markdown_it.MarkdownIt("commonmark").enable("table")
    html = page.render(f"# B\n\n{shown}\n\n| id |\n|---|\n| {shown} |\n")
    assert "<pre>" not in html and "<code>" not in html
    paragraph = re.search(r"<p>(.*?)</p>", html, re.S).group(1)
    cell = re.search(r"<td>(.*?)</td>", html, re.S).group(1)
    assert unquote(unescape(paragraph)) == unquote(unescape(cell)) == text


@pytest.mark.parametrize(
    "warning",
    [
        pytest.param(("trecbench.evaluation.unjudged", "UnjudgedWarning"), id="unjudged"),
        pytest.param(("trecbench.comparison.tables", "OneStratumWarning"), id="one-stratum"),
    ],
)
def test_a_warning_quoting_input_text_is_plain_text_escaped_by_each_output(warning):
    # a warning that quotes a run's name or a stratum's value is the plain message as a
    # str (what stderr prints), the quoted text escaped as each output escapes input text,
    # and copied or pickled (a worker process's comparison) by its parts
    import copy
    import importlib
    import pickle

    from trecbench.escaping import escaper

    module, name = warning
    kind = getattr(importlib.import_module(module), name)
    if name == "UnjudgedWarning":
        from trecbench.evaluation.unjudged import Unjudged

        values = ("run\nb|c", "q rels", Unjudged(10, 100, 90, 5, 5), False)
    else:
        values = ("lang\nx", "d|e*", 7)
    made = kind(*values)
    assert "run\nb|c" in made or "d|e*" in made  # the plain message quotes as given
    markdown = made.text(escaper("markdown"))
    assert "\n" not in markdown and ("run%0Ab%7Cc" in markdown or "d%7Ce%2A" in markdown)
    for again in (pickle.loads(pickle.dumps(made)), copy.deepcopy(made)):
        assert again == made and type(again) is kind
        assert again.text(escaper("markdown")) == markdown


def test_a_long_topic_id_is_never_broken_across_compare_lines(tmp_path, capsys, monkeypatch):
    # the movers' line is wrapped at 100 characters: a longer id was cut in two, a line
    # break and ten blanks inside it
    monkeypatch.chdir(tmp_path)
    long = "q" * 150 + "|end"
    (tmp_path / "q").write_text(f"{long} 0 a 1\n{long} 0 b 1\nt 0 a 1\n")
    (tmp_path / "a.run").write_text(f"{long} Q0 a 1 2 a\n{long} Q0 c 2 1 a\nt Q0 a 1 1 a\n")
    (tmp_path / "b.run").write_text(f"{long} Q0 c 1 2 b\n{long} Q0 d 2 1 b\nt Q0 a 1 1 b\n")
    assert run(["compare", "q", "a.run", "b.run", "-m", "P.1", "--samples", "40"]) == 0
    out = capsys.readouterr().out
    assert any(long in line for line in out.splitlines()), out


def test_a_name_ending_a_markdown_heading_keeps_its_hashes(tmp_path, capsys, monkeypatch):
    # "### Differences against b ##": CommonMark reads a final run of '#' after a blank as
    # the heading's closing sequence, and showed the baseline as "b"
    markdown_it = pytest.importorskip("markdown_it")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q").write_text("1 0 d 1\n2 0 d 1\n")
    (tmp_path / "b ##.run").write_text("1 Q0 d 1 1.0 t\n2 Q0 e 1 1.0 t\n")
    (tmp_path / "c.run").write_text("1 Q0 e 1 1.0 t\n2 Q0 d 1 1.0 t\n")
    args = ["compare", "q", "b ##.run", "c.run", "-m", "P.1", "--samples", "40"]
    assert run([*args, "--format", "markdown"]) == 0
    html = markdown_it.MarkdownIt("commonmark").render(capsys.readouterr().out)
    assert "<h3>Differences against b ##</h3>" in html


def test_a_dollar_in_a_markdown_cell_opens_no_math(tmp_path, capsys, monkeypatch):
    # GitHub's Markdown sets $...$ as math: a run named $x$ showed as an italic x; every $
    # is backslash-escaped, which CommonMark renders as the $ itself
    markdown_it = pytest.importorskip("markdown_it")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q").write_text("1 0 d 1\n")
    (tmp_path / "r.run").write_text("1 Q0 d 1 1.0 t\n")
    args = ["score", "-m", "P.1", "--format", "markdown", "--names", "$x$ $$y$$=r.run"]
    assert run([*args, "q", "r.run"]) == 0
    out = capsys.readouterr().out
    assert "$" in out and not re.search(r"(?<!\\)\$", out)
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(out)
    assert re.findall(r"<td>(.*?)</td>", html)[0] == "$x$ $$y$$"


def test_the_terminal_table_tells_a_name_ending_in_a_blank_from_one_without(tmp_path):
    # runs 'r ' and 'r' (groups 'x ' and 'x') printed as one name: the table pads its
    # cells with blanks; the end's blank is %20 there, as Markdown prints it
    import json

    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    _register()
    (tmp_path / "q").write_text("a 0 d1 1\nb 0 d1 1\n")
    (tmp_path / "r").write_text("a Q0 d1 1 3 t\nb Q0 d2 1 3 t\n")
    (tmp_path / "s").write_text("a Q0 d2 1 3 t\nb Q0 d1 1 3 t\n")
    strata = {"strata": {"queries": {"a": {"f": "x "}, "b": {"f": "x"}}}}
    (tmp_path / "side.json").write_text(json.dumps(strata))
    argv = ["score", "-m", "P.1", "--format", "table", "--tie-bounds", "--group-by", "f"]
    argv += ["--strata", str(tmp_path / "side.json"), "--names", f"r ={tmp_path / 'r'}"]
    argv += ["--names", f"r={tmp_path / 's'}", str(tmp_path / "q")]
    result = CliRunner().invoke(cli, [*argv, str(tmp_path / "r"), str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.stdout.splitlines()]
    assert ["r%20", "2", "0.5000"] in rows and ["r", "2", "0.5000"] in rows
    assert ["r%20", "x%20", "1", "1.0000"] in rows and ["r%20", "x", "1", "0.0000"] in rows
    assert ["r", "x%20", "1", "0.0000"] in rows  # groups: the end's blank, as trec text
    assert ["r%20", "P.1", "0.5000", "0.5000", "0.5000", "fixed", "0"] in rows


def test_similarity_and_pool_tables_tell_a_name_ending_in_a_blank_from_one_without(
    tmp_path, capsys, monkeypatch
):
    # runs 'r ' and 'r' printed as one name: the tables pad their cells with blanks
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r").write_text("a Q0 d1 1 3 t\n")
    (tmp_path / "r ").write_text("a Q0 d2 1 3 t\n")
    assert run(["similarity", "-q", "r ", "r"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert [row[:3] for row in rows] == [["r%20", "r", "a"], ["r%20", "r", "all"]]
    assert run(["pool", "r ", "r", "-o", "pool.txt"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:3]]
    assert [row[0] for row in rows] == ["r%20", "r"]


def test_an_option_value_of_a_byte_not_utf8_is_shown_as_a_file_name_is(tmp_path, capsys):
    """``--tag``, ``--baseline`` and ``--names`` values quoted by repr showed a byte that
    is not UTF-8 as Python's escape ``'\\udcff'``, where a file name shows ``\\xff``."""
    import os

    from conftest import ROOT

    byte = os.fsdecode(b"\xff")
    (tmp_path / "m.tsv").write_text("1\t2\t1\n")
    qrels, run_file = str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-word.run")
    other = str(ROOT / "runs" / "tfidf-char.run")
    commands = [
        ["convert", "msmarco", str(tmp_path / "m.tsv"), "--tag", byte, "-o", str(tmp_path / "o")],
        ["compare", qrels, run_file, other, "-m", "P@5", "--baseline", byte],
        ["score", qrels, run_file, "--names", byte],
        ["score", qrels, run_file, "--names", f"a={byte}"],
        ["similarity", run_file, other, "--names", f"{byte}={run_file}"],
        ["pool", run_file, other, "--names", f"{byte}={run_file}", "-o", str(tmp_path / "p")],
        ["pool", run_file, other, "--unjudged-grade", byte, "-o", str(tmp_path / "p")],
    ]
    for command in commands:
        assert run(command) == 1, command
        err = capsys.readouterr().err
        assert "'\\xff'" in err or "'a=\\xff'" in err, (command, err)
        assert "udc" not in err, (command, err)


def test_an_escape_written_as_text_is_quoted_as_written():
    """A backslash the value holds is repr's ``\\\\``: ``\\udcff`` typed is not a byte."""
    from trecbench.errors import option_excerpt

    assert option_excerpt("\\udcff") == repr("\\udcff") == "'\\\\udcff'"
    assert option_excerpt("\\" + "\udcff") == "'\\\\\\xff'"


def test_click_s_and_other_option_messages_show_a_byte_not_utf8_as_xff(tmp_path, capsys):
    """click's own messages (a choice: --compat, --profile), --group-by's and --meta's
    quoted a byte that is not UTF-8 as '\\udcff', where a file name shows \\xff."""
    import os

    from conftest import ROOT

    byte = os.fsdecode(b"\xff")
    qrels, run_file = str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-word.run")
    sidecar = str(ROOT / "qrels" / "hpo-demo.sidecar.json")
    commands = [
        ["score", qrels, run_file, "--compat", byte],
        ["validate", run_file, "--profile", byte],
        ["score", qrels, run_file, "--strata", sidecar, "--group-by", byte],
        ["score", qrels, run_file, "--meta", byte],
        ["score", qrels, run_file, "--meta", f"{byte}=1"],
    ]
    for command in commands:
        assert run(command) == 1, command
        err = capsys.readouterr().err
        assert "\\xff" in err and "udc" not in err, (command, err)


@pytest.mark.parametrize("output_format", ["table", "markdown"])
def test_compare_header_lists_runs_each_as_one_item(tmp_path, capsys, output_format):
    """'Runs: a, b (baseline),  c, d ' read as four runs for 'a, b', ' c' and 'd '
    (helper-601): a run's comma and end blanks are %XX, as cli-conventions.md has every
    list of names."""
    from conftest import ROOT

    from trecbench.cli import run

    runs = []
    sources = (("a, b", "tfidf-word"), (" c", "tfidf-char"), ("d ", "tfidf-word-parents"))
    for name, source in sources:
        runs.append(str(tmp_path / f"{name}.run"))
        (tmp_path / f"{name}.run").write_bytes((ROOT / "runs" / f"{source}.run").read_bytes())
    qrels = str(ROOT / "qrels" / "hpo-demo.qrels")
    args = ["compare", qrels, *runs, "-m", "P@5", "--samples", "100", "--format", output_format]
    assert run(args) == 0
    header = next(line for line in capsys.readouterr().out.splitlines() if "Runs: " in line)
    assert header.endswith("Runs: a%2C b (baseline), %20c, d%20")


@pytest.mark.parametrize("command", ["power", "agree"])
def test_latex_keeps_a_name_s_end_blanks_as_percent_20(tmp_path, capsys, command):
    """LaTeX drops a cell's blanks at either end: runs named 'r' and ' r' printed two
    rows of 'r' (helper-601). They are %20, as Markdown writes them."""
    from conftest import ROOT

    from trecbench.cli import run

    runs = []
    for name, source in (("base", "tfidf-word"), ("r", "tfidf-char"), (" r", "tfidf-word-parents")):
        runs.append(str(tmp_path / f"{name}.run"))
        (tmp_path / f"{name}.run").write_bytes((ROOT / "runs" / f"{source}.run").read_bytes())
    qrels = str(ROOT / "qrels" / "hpo-demo.qrels")
    measures = ["-m", "nDCG@10"] + (["-m", "P@5"] if command == "agree" else [])
    assert run([command, qrels, *runs, *measures, "--format", "latex"]) == 0
    firsts = [
        line.split(" & ")[0] for line in capsys.readouterr().out.splitlines() if " & " in line
    ]
    assert "r" in firsts and "\\%20r" in firsts and " r" not in firsts


@pytest.mark.parametrize("char", DRAWS_NOTHING)
def test_a_message_quotes_a_character_that_draws_nothing_escaped(char):
    # the CLI's warnings (errors.one_line) printed it raw: two strata fields g and g+U+034F
    # warned alike on a terminal (reviewer 668)
    from trecbench.errors import one_line

    shown = one_line("g" + char)
    assert shown != "g" and char not in shown
    assert shown == "g" + char.encode("unicode_escape").decode()
    assert one_line("plain é") == "plain é"
