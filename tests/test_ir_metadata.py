"""ir_metadata blocks at the top of a run: found, parsed, refused at their line, written."""

from __future__ import annotations

import datetime
import hashlib

import pytest

from trecbench.errors import InputError
from trecbench.inputs import ir_metadata

BLOCK = (
    b"# ir_metadata.start\n"
    b"# tag: bm25\n"
    b"# method:\n"
    b"#   retrieval:\n"
    b"#     - name: bm25\n"
    b"#       k1: 0.9\n"
    b"# ir_metadata.end\n"
)
LINE = b"301 Q0 d1 1 2.5 bm25\n"


def test_a_block_is_found_with_its_lines_and_yaml():
    block = ir_metadata.find_block(BLOCK + LINE, "run")
    assert (block.lines, block.size) == (7, len(BLOCK))
    assert ir_metadata.parse(block, "run") == {
        "tag": "bm25",
        "method": {"retrieval": [{"name": "bm25", "k1": 0.9}]},
    }


@pytest.mark.parametrize("text", [LINE, b"# ir_metadata.started\n" + LINE, b"#ir_metadata.start\n"])
def test_text_without_a_block_has_none(text):
    assert ir_metadata.find_block(text, "run") is None


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (BLOCK.replace(b"# ir_metadata.end\n", b""), 7, "has no '# ir_metadata.end' before"),
        (BLOCK.replace(b"#       k1", b"        k1"), 6, "not a '#' line inside the ir_metadata"),
        (  # its end marker with a form feed after it: the marker still, as find_block reads
            BLOCK.replace(b"#       k1", b"        k1").replace(b".end\n", b".end\x0c\n"),
            6,
            "not a '#' line inside the ir_metadata",
        ),
        (BLOCK.replace(b"#   retrieval:", b"# retrieval: [unclosed"), 5, "not valid YAML"),
        (b"# ir_metadata.start\n# - a list\n# ir_metadata.end\n", 2, "not a mapping"),
    ],
)
def test_malformed_blocks_are_refused_at_their_line(text, line, message):
    with pytest.raises(InputError) as caught:
        block = ir_metadata.find_block(text + LINE, "run.txt")
        ir_metadata.parse(block, "run.txt")
    assert caught.value.line == line
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("lines", "value"),
    [
        ([b"# a:", b"#   b: 1", b"# c: 2"], {"a": {"b": 1}, "c": 2}),  # ir_metadata's examples
        ([b"#a:", b"#  b: 1", b"#c: 2"], {"a": {"b": 1}, "c": 2}),
        ([b"# a:", b"#", b"#   b: 1"], {"a": {"b": 1}}),  # a bare '#' line is blank
        # mixed: each line without its '#' alone, as repro_eval reads it (line.strip('#'))
        ([b"#a:", b"# b: 1"], {"a": {"b": 1}}),
        ([b"#a: 1", b"#", b"#b: 2"], {"a": 1, "b": 2}),
    ],
)
def test_a_blocks_yaml_is_its_lines_as_repro_eval_reads_them(lines, value):
    import yaml

    text = b"\n".join([b"# ir_metadata.start", *lines, b"# ir_metadata.end", b""])
    block = ir_metadata.find_block(text + LINE, "run")
    assert ir_metadata.parse(block, "run") == value
    as_repro_eval = "\n".join(line.decode().strip("#") for line in lines)
    assert yaml.safe_load(as_repro_eval) == value


def test_a_mixed_blocks_yaml_refused_says_why():
    """``#a: 1`` over ``# b: 2`` is `` b: 2`` inside ``a: 1`` to repro_eval: not YAML,
    refused at its line, saying why; ``# a:`` over ``#b: 1`` likewise."""
    for text in (b"#a: 1\n# b: 2\n", b"# a:\n#b: 1\n"):
        block = b"# ir_metadata.start\n" + text + b"# ir_metadata.end\n"
        with pytest.raises(InputError) as caught:
            ir_metadata.parse(ir_metadata.find_block(block + LINE, "run"), "run")
        assert caught.value.line == 3
        assert "start with '#' and with '# ' both" in caught.value.message
    same = b"# ir_metadata.start\n# a: 1\n#  b: 2\n# ir_metadata.end\n"  # one prefix
    with pytest.raises(InputError) as caught:
        ir_metadata.parse(ir_metadata.find_block(same + LINE, "run"), "run")
    assert "not valid YAML" in caught.value.message and "both" not in caught.value.message


def test_a_block_broken_otherwise_than_by_its_prefixes_is_not_said_to_be_mixed():
    # review 718: a `## comment` line mixes the prefixes; the hint "give every line the
    # same prefix" came with YAML that no prefix mends (an unclosed bracket)
    text = b"## a comment\n# tag: r\n# a: [1,\n"
    block = b"# ir_metadata.start\n" + text + b"# ir_metadata.end\n"
    with pytest.raises(InputError) as caught:
        ir_metadata.parse(ir_metadata.find_block(block + LINE, "run"), "run")
    assert "not valid YAML" in caught.value.message and "both" not in caught.value.message


def test_a_block_at_the_end_of_the_text_without_its_end_marker_never_ends():
    with pytest.raises(InputError, match="never ends"):
        ir_metadata.find_block(b"# ir_metadata.start\n# tag: x\n", "run")


def test_a_written_block_reads_back():
    metadata = {"tag": "rrf", "inputs": ["a.run", "b.run"], "note": "k: 60 # not a comment"}
    text = ir_metadata.block_text(metadata).encode()
    block = ir_metadata.find_block(text + LINE, "run")
    assert block.size == len(text)
    assert ir_metadata.parse(block, "run") == metadata


# -- the block atop a run file, read by score, validate, reports and fuse ------------------

import bz2  # noqa: E402
import gzip  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402

from conftest import ROOT  # noqa: E402

import trecbench  # noqa: E402
from trecbench.cli import run  # noqa: E402

QRELS = ROOT / "qrels" / "hpo-demo.qrels"
RUN = ROOT / "runs" / "tfidf-char.run"
OTHER = ROOT / "runs" / "tfidf-word.run"
MEASURES = ["-m", "map", "-m", "P.5", "-m", "ndcg_cut.10", "-q"]


@pytest.fixture
def with_block(tmp_path):
    path = tmp_path / "meta.run"
    path.write_bytes(BLOCK + RUN.read_bytes())
    return path


def _score(capsys, *args) -> tuple[int, str]:
    code = run(["score", *args])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("compat", [[], ["--compat", "10.0"]])
def test_score_reads_the_body_as_the_file_without_the_block(with_block, tmp_path, capsys, compat):
    gz = tmp_path / "meta.run.gz"
    gz.write_bytes(gzip.compress(with_block.read_bytes()))
    expected = _score(capsys, *compat, *MEASURES, str(QRELS), str(RUN))
    assert expected[0] == 0
    assert _score(capsys, *compat, *MEASURES, str(QRELS), str(with_block)) == expected
    assert _score(capsys, *compat, *MEASURES, str(QRELS), str(gz)) == expected


def test_a_block_below_the_top_is_said_under_compat_10(with_block, tmp_path, capsys):
    """10.0 reads every '#' line of a run as a comment: a block below the top (its YAML
    invalid too) was dropped without a word, the scores trec_eval 10.0's, no metadata
    recorded. It is said, once, at its line; the block on top is the run's metadata."""
    lines = RUN.read_bytes().splitlines(keepends=True)
    lower = tmp_path / "lower.run"
    lower.write_bytes(
        BLOCK + b"".join(lines[:5]) + BLOCK.replace(b"bm25\n", b"[1\n") + b"".join(lines[5:])
    )
    args = ["--compat", "10.0", *MEASURES, str(QRELS)]
    expected = _score(capsys, *args, str(RUN))
    assert _score(capsys, *args, str(with_block)) == expected  # the top block: metadata
    assert capsys.readouterr().err == ""
    assert run(["score", *args, str(lower)]) == 0
    said = capsys.readouterr()
    assert said.out == expected[1]
    at = len(BLOCK.splitlines()) + 6  # the top block's lines, five of the run's, then it
    assert said.err == (
        f"trecbench: warning: {lower}:{at}: an ir_metadata block below "
        "the top of the run: comment lines to trec_eval 10.0 and to trecbench, not the run's "
        "metadata (only a block on its first line is)\n"
    )
    comment = tmp_path / "comment.run"  # a comment of more fields is no block's marker
    comment.write_bytes(
        b"".join(lines[:5]) + b"# ir_metadata.start b 2 1 r\n" + b"".join(lines[5:])
    )
    assert run(["score", *args, str(comment)]) == 0
    assert capsys.readouterr() == (expected[1], "")


def test_a_run_read_in_blocks_takes_the_block_out_too(with_block, monkeypatch):
    from trecbench import memory
    from trecbench.inputs import blocks, trec_text_format

    whole = trecbench.evaluate(str(QRELS), str(RUN), ["map", "P.5"]).per_query
    monkeypatch.setattr(memory, "BLOCK_LINES", 7)
    monkeypatch.setattr(memory, "READ_BYTES", 300)
    monkeypatch.setattr(blocks, "READ_BYTES", 300)
    scored = []
    original = trec_text_format.read_blocks
    monkeypatch.setattr(
        trec_text_format, "read_blocks", lambda *a: scored.append(1) or original(*a)
    )
    blocked = trecbench.evaluate(str(QRELS), str(with_block), ["map", "P.5"], memory=1)
    assert scored  # read in blocks
    assert blocked.per_query.drop(columns="run").equals(whole.drop(columns="run"))


def test_reports_and_the_api_record_the_metadata(with_block, tmp_path, capsys):
    from trecbench.report import validate_against_schema

    report = tmp_path / "report.json"
    assert run(["score", "--report", str(report), str(QRELS), str(with_block)]) == 0
    document = json.loads(report.read_text())
    validate_against_schema(document, "evaluation_report")
    recorded = next(i for i in document["inputs"] if i["kind"] == "run")
    expected = {"tag": "bm25", "method": {"retrieval": [{"name": "bm25", "k1": 0.9}]}}
    assert recorded["ir_metadata"] == expected
    assert trecbench.load_run(str(with_block)).ir_metadata == expected
    assert trecbench.load_run(str(RUN)).ir_metadata is None


@pytest.mark.parametrize("read", ["whole", "in blocks"])
def test_every_read_path_records_the_same_metadata(with_block, tmp_path, capsys, monkeypatch, read):
    # the block reader parsed the block (a malformed one is refused) but dropped it: the
    # records of a run read in blocks (--memory, any run over ~16 MB) had no ir_metadata
    from trecbench import memory as budgets
    from trecbench.inputs import trec_text_format

    expected = {"tag": "bm25", "method": {"retrieval": [{"name": "bm25", "k1": 0.9}]}}
    memory = ["--memory", "1"] if read == "in blocks" else []
    if memory:  # the smallest budget's blocks still hold 16,384 lines, this run 2,800
        monkeypatch.setattr(budgets, "BLOCK_LINES", 7)
    in_blocks = []
    original = trec_text_format.read_blocks
    monkeypatch.setattr(
        trec_text_format, "read_blocks", lambda *a: in_blocks.append(1) or original(*a)
    )
    evaluation = trecbench.evaluate(
        str(QRELS), str(with_block), ["map"], memory=1 if memory else None
    )
    assert bool(in_blocks) == bool(memory)  # the read path each case is about
    assert evaluation.runs[0].record["ir_metadata"] == expected
    assert evaluation.input_records[(str(with_block), "run")]["ir_metadata"] == expected
    report = tmp_path / "report.json"
    assert run(["score", *memory, "--report", str(report), str(QRELS), str(with_block)]) == 0
    records = json.loads(report.read_text())["inputs"]
    assert [i.get("ir_metadata") for i in records if i["kind"] == "run"] == [expected]
    out = tmp_path / "compare"
    arguments = [*memory, "-m", "map", "-o", str(out), str(QRELS), str(with_block), str(RUN)]
    assert run(["compare", *arguments]) == 0
    records = json.loads((out / "BenchmarkReport.json").read_text())["inputs"]
    assert [i.get("ir_metadata") for i in records if i["kind"] == "run"] == [expected, None]
    capsys.readouterr()


def test_validate_notes_the_block_and_checks_the_body_as_usual(with_block, capsys):
    tagged = with_block.read_bytes().replace(b"# tag: bm25", b"# tag: tfidf-char", 1)
    with_block.write_bytes(tagged)  # the run's own tag (another is R30.tag, below)
    assert run(["validate", str(with_block)]) == 0
    out = capsys.readouterr().out
    # trec_eval 9.0.8 stops at the block ('Malformed line 1', exit 2; checked with the
    # binary), 10.0 skips it: a warning, a note under lenient
    found = f"{with_block}:1:line: warning[R30]: ir_metadata block (lines 1-7) read as metadata; "
    assert found + "trec_eval 9.0.8 cannot read the file ('Malformed line 1')" in out
    assert "R1]" not in out and "R22" not in out and "R25" not in out
    assert run(["validate", "--profile", "strict", str(with_block)]) == 0
    assert "warning[R30]" in capsys.readouterr().out
    assert run(["validate", "--profile", "lenient", str(with_block)]) == 0
    assert "info[R30]" in capsys.readouterr().out
    # a block whose tag is not the run's describes another run (--fix-tag refuses to
    # make one): it validated clean
    with_block.write_bytes(BLOCK + RUN.read_bytes())
    assert run(["validate", str(with_block)]) == 0
    said = f"{with_block}:8:tag: warning[R30]: the ir_metadata block's tag 'bm25' is not the "
    assert said + "run's tag 'tfidf-char': the block describes another" in capsys.readouterr().out
    assert run(["validate", "--profile", "strict", str(with_block)]) == 2
    capsys.readouterr()
    for tag, said in ((b"''", "tag '' is not the run's tag"), (b"[a]", "tag is a list, not")):
        with_block.write_bytes(BLOCK.replace(b"bm25\n", tag + b"\n", 1) + RUN.read_bytes())
        assert run(["validate", str(with_block)]) == 0
        assert said in capsys.readouterr().out  # '' was printed as nothing, [a] as ['a']


@pytest.mark.parametrize(
    ("block", "line"),
    [
        (BLOCK.replace(b"#   retrieval:", b"# retrieval: [unclosed"), 5),
        (BLOCK.replace(b"# ir_metadata.end\n", b""), 7),
        (b"# ir_metadata.start\n# tag: a\n# tag: b\n# ir_metadata.end\n", 3),  # a key twice
        (b"# ir_metadata.start\n# - a list\n# ir_metadata.end\n", 2),  # no mapping
    ],
)
def test_a_malformed_block_is_an_error_at_its_line(tmp_path, capsys, block, line):
    """... and, being no metadata, its lines are checked as trec_eval 9.x reads them
    (R1, R22), whatever makes it malformed (only a block without its end marker was)."""
    path = tmp_path / "bad.run"
    path.write_bytes(block + RUN.read_bytes())
    assert run(["validate", str(path)]) == 2
    assert f"{path}:{line}:line: error[R30]" in capsys.readouterr().out
    findings = trecbench.validate_run(path).findings
    block_lines = list(range(1, block.count(b"\n") + 1))
    assert [f.line for f in findings if f.rule == "R22"] == block_lines
    assert [f.line for f in findings if f.rule == "R1"] == block_lines  # each too short
    assert run(["score", str(QRELS), str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"trecbench: {path}:{line}") or f"{path}:{line}:" in err
    # --fix dropped a block with a key twice as "comment lines", the run's provenance
    # lost unsaid, where it refused one without its end marker: each is refused
    fixed = tmp_path / "fixed.run"
    assert run(["validate", "--fix", str(fixed), str(path)]) == 2
    said = f"trecbench: {path}: --fix cannot repair R30; first: {path}:{line}:line: error[R30]"
    assert capsys.readouterr().err.startswith(said) and not fixed.exists()


def test_a_block_atop_qrels_is_no_metadata(tmp_path, capsys):
    path = tmp_path / "meta.qrels"
    path.write_bytes(BLOCK + QRELS.read_bytes())
    assert run(["validate", "--qrels", str(path), str(RUN)]) == 2
    assert "R30" not in capsys.readouterr().out


def test_fuse_writes_a_block_with_what_it_knows_under_the_given_description(tmp_path, capsys):
    about = tmp_path / "about.yaml"
    about.write_text("actor:\n  team: lab\nmethod:\n  fusion:\n    note: tuned by hand\n")
    runs = [str(RUN), str(ROOT / "runs" / "tfidf-word.run")]
    plain, tagged = tmp_path / "plain.run", tmp_path / "tagged.run"
    assert run(["fuse", *runs, "-o", str(plain)]) == 0
    assert run(["fuse", "--ir-metadata", str(about), *runs, "-o", str(tagged)]) == 0
    loaded = trecbench.load_run(str(tagged))
    metadata = loaded.ir_metadata
    assert metadata["actor"] == {"team": "lab"}
    assert metadata["method"]["fusion"]["note"] == "tuned by hand"
    assert metadata["method"]["fusion"]["name"] == "rrf"
    assert [r["path"] for r in metadata["method"]["fusion"]["runs"]] == runs
    assert metadata["implementation"]["source"]["name"] == "trecbench"
    block = ir_metadata.find_block(tagged.read_bytes(), str(tagged))
    assert tagged.read_bytes()[block.size :] == plain.read_bytes()


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (5, "5"),
        (60.0, "60.0"),
        (1e38, "1e+38"),
        (float("nan"), ".nan"),
        (float("-inf"), "-.inf"),
        ("rrf", '"rrf"'),
        ('it\'s "x"\n', '"it\'s \\"x\\"\\n"'),
        ("007", '"007"'),
        ([1, None, "a"], '[1, null, "a"]'),
        ({"name": "rrf", 2022: [True]}, '{"name": "rrf", 2022: [true]}'),
        (datetime.date(2022, 1, 1), "2022-01-01"),
        (b"\x00\xff", "!!binary AP8="),
        pytest.param(10**5000, "1.000000E+5000", id="an-int-python-cannot-write"),
    ],
)
def test_values_are_quoted_as_yaml_and_json_write_them(value, written):
    # messages quoted Python's None, True and 'rrf' where the description said null, yes, rrf
    assert ir_metadata.as_written(value) == written


def test_a_long_value_is_quoted_on_one_line_and_cut():
    quoted = ir_metadata.as_written(["x" * 500, "line\u2028break"])
    assert "\n" not in quoted and "\u2028" not in quoted and len(quoted) < 200
    assert quoted.startswith('["xxx') and "characters)" in quoted and quoted.endswith('break"]')


@pytest.mark.parametrize(
    ("description", "refused"),
    [
        ("method:\n  fusion:\n    name: bogus\n", "method.fusion.name: the description gives"),
        ("method:\n  fusion:\n    runs: []\n", "method.fusion.runs: the description gives []"),
        ("implementation:\n  source:\n    version: 9.9.9\n", "implementation.source.version"),
        ("method: RRF of two\n", 'method: the description gives "RRF of two" where trecbench '
         "records a mapping (method.fusion)"),
        ("tag: other\n", 'tag "other" is not the fused run\'s tag "rrf"'),
        # the values as YAML writes them, not as Python does (None, True, 'none')
        ("method:\n  fusion:\n    k: 5\n", "method.fusion.k: the description gives 5 where "
         "trecbench records 60;"),
        ("method:\n  fusion:\n    norm: null\n", "method.fusion.norm: the description gives "
         'null where trecbench records "none";'),
        ("method:\n  fusion:\n    depth: true\n", "method.fusion.depth: the description gives "
         "true where trecbench records null;"),
        # a search this call did not make (no --optimize) was taken into the block
        ("method:\n  fusion:\n    optimized:\n      measure: P@3\n", "method.fusion.optimized: "
         'the description gives {"measure": "P@3"} where trecbench records null;'),
    ],
)  # fmt: skip
def test_a_description_clashing_with_what_fuse_records_is_refused(tmp_path, capsys, description,
                                                                   refused):  # fmt: skip
    # the YAML's name, runs, version and tag replaced what trecbench did (5c35a44 kept
    # trecbench's and dropped the user's text without a word): neither is dropped
    about = tmp_path / "about.yaml"
    about.write_text(description)
    runs = [str(RUN), str(ROOT / "runs" / "tfidf-word.run")]
    assert run(["fuse", "--ir-metadata", str(about), *runs, "-o", str(tmp_path / "g.run")]) == 2
    assert refused in capsys.readouterr().err
    assert not (tmp_path / "g.run").exists()


@pytest.mark.parametrize(
    ("description", "line"),
    [("implementation:\n  source:\n    version: 9.9.9\n", 3), ("# why\nmethod: RRF of two\n", 2)],
)
def test_a_clash_known_before_the_fusion_is_refused_before_the_runs_are_read(
    tmp_path, capsys, description, line
):
    # it was refused once the runs were read and fused (after a whole --optimize search):
    # a run that cannot be read shows which came first; at the key's line (it named none)
    about, bad = tmp_path / "about.yaml", tmp_path / "bad.run"
    about.write_text(description)
    bad.write_text("q1 Q0 d1 1 not-a-score t\n")
    args = ["fuse", "--ir-metadata", str(about), str(RUN), str(bad), "-o", str(tmp_path / "g.run")]
    assert run(args) == 2
    err = capsys.readouterr().err
    assert f"{about}:{line}: " in err and "the description gives" in err
    assert str(bad) not in err


def test_convert_records_its_conversion_and_leaves_the_implementation_to_the_description(
    tmp_path, capsys
):
    # convert wrote trecbench as the run's implementation.source, and then either kept the
    # user's pyserini or replaced it: the run's implementation is the system that made it
    about = tmp_path / "about.yaml"
    about.write_text("implementation:\n  source:\n    name: pyserini\n    version: 0.22.0\n")
    source = ROOT / "data" / "convert" / "msmarco-run.tsv"
    out = tmp_path / "out"
    assert (
        run(["convert", "--ir-metadata", str(about), "msmarco", str(source), "-o", str(out)]) == 0
    )
    (written,) = out.glob("*.run")
    metadata = trecbench.load_run(str(written)).ir_metadata
    assert metadata["implementation"]["source"] == {"name": "pyserini", "version": "0.22.0"}
    assert metadata["method"]["conversion"]["tool"] == {
        "name": "trecbench", "version": trecbench.__version__
    }  # fmt: skip


def test_convert_writes_a_block_atop_every_run_it_writes(tmp_path, capsys):
    about = tmp_path / "about.yaml"
    about.write_text("actor:\n  team: lab\n")
    source = ROOT / "data" / "convert" / "msmarco-run.tsv"
    plain, tagged = tmp_path / "plain", tmp_path / "tagged"
    assert run(["convert", "msmarco", str(source), "-o", str(plain)]) == 0
    assert (
        run(["convert", "--ir-metadata", str(about), "msmarco", str(source), "-o", str(tagged)])
        == 0
    )
    written = tagged / "msmarco-run.run"
    metadata = trecbench.load_run(str(written)).ir_metadata
    assert metadata["tag"] == "msmarco-run" and metadata["actor"] == {"team": "lab"}
    assert metadata["method"]["conversion"]["converter"] == "msmarco"
    assert metadata["data"]["converted"][0]["path"] == str(source)
    block = ir_metadata.find_block(written.read_bytes(), str(written))
    assert written.read_bytes()[block.size :] == (plain / "msmarco-run.run").read_bytes()
    # said where it is seen (reviewer 324: in the sidecar only): 9.0.8 cannot read the file
    said = capsys.readouterr().err  # on stderr, with what was written
    note = "note: each run begins with its ir_metadata block: trecbench and trec_eval 10.0 skip"
    assert said.count(note) == 1 and "trec_eval 9.0.8 cannot read the file (R30)" in said
    # the description is an input of the call: the sidecar records it as it records the
    # file converted (it recorded the file converted alone: reviewer 678)
    sidecar = json.loads((tagged / "msmarco-run.sidecar.json").read_text())
    recorded = sidecar["provenance"]["inputs"][-1]
    data = about.read_bytes()
    assert recorded == {"path": str(about), "kind": "ir_metadata", "size": len(data),
                        "sha256": hashlib.sha256(data).hexdigest()}  # fmt: skip
    plain_sidecar = json.loads((plain / "msmarco-run.sidecar.json").read_text())
    assert [r["kind"] for r in plain_sidecar["provenance"]["inputs"]] == ["msmarco run"]


def test_convert_takes_ir_metadata_after_the_converter_too_and_once(tmp_path, capsys):
    # after the converter's name it was "No such option" (reviewer 337)
    about = tmp_path / "about.yaml"
    about.write_text("actor:\n  team: lab\n")
    source = str(ROOT / "data" / "convert" / "msmarco-run.tsv")
    before, after = tmp_path / "before", tmp_path / "after"
    flag = ["--ir-metadata", str(about)]
    assert run(["convert", *flag, "msmarco", source, "-o", str(before)]) == 0
    assert run(["convert", "msmarco", source, "-o", str(after), *flag]) == 0
    written = (after / "msmarco-run.run").read_bytes()
    assert written == (before / "msmarco-run.run").read_bytes() and b"team: lab" in written
    capsys.readouterr()
    twice = tmp_path / "twice"
    assert run(["convert", *flag, "msmarco", source, "-o", str(twice), *flag]) == 1
    assert "--ir-metadata is given twice: give it once" in capsys.readouterr().err
    assert not twice.exists()


def test_convert_refuses_ir_metadata_naming_an_input(tmp_path, capsys):
    # the run's own data ({"q": {"d": 1}}, a mapping) was written atop it as its metadata
    source = tmp_path / "both.json"
    source.write_text('{"q": {"d": 1, "e": 2}}')
    link = tmp_path / "link.json"
    link.symlink_to(source)
    out = tmp_path / "out"
    for metadata in (source, link):
        argv = ["convert", "--ir-metadata", str(metadata), "dict", str(source), "-o", str(out)]
        assert run(argv) == 1
        said = capsys.readouterr().err
        assert f"--ir-metadata names an input of the conversion, {source}" in said
        assert not out.exists()


def test_convert_hints_tag_only_to_a_converter_that_takes_one(tmp_path, capsys):
    about = tmp_path / "about.yaml"
    about.write_text("tag: ast\n")
    source = ROOT / "data" / "convert" / "code-chunk-detailed.json"
    argv = ["convert", "--ir-metadata", str(about), "code-chunk", str(source)]
    assert run([*argv, "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "leave the tag out (each run's block names its own)\n" in err and "--tag" not in err


@pytest.mark.parametrize(
    "text", ["", "\n\n", "# about this run\n", "  # x\n\n# y", "---\n", "---\n# x\n...\n"]
)
def test_a_description_of_blanks_and_comments_is_an_empty_one(tmp_path, text):
    about = tmp_path / "about.yaml"
    about.write_text(text)
    assert ir_metadata.read_file(about) == {}


@pytest.mark.parametrize("text", ["~\n", "null\n", "# x\n~\n", "- a\n"])
def test_a_description_that_is_no_mapping_is_refused(tmp_path, text):
    about = tmp_path / "about.yaml"
    about.write_text(text)
    with pytest.raises(InputError, match="the YAML is not a mapping"):
        ir_metadata.read_file(about)


@pytest.mark.parametrize(("compress", "name"), [(gzip.compress, "gzip"), (bz2.compress, "bz2")])
def test_a_compressed_description_is_refused_as_compressed(tmp_path, capsys, compress, name):
    # about.yaml.gz was refused as "about.yaml.gz:1: not UTF-8: invalid start byte"
    about = tmp_path / "about.yaml.gz"
    about.write_bytes(compress(b"tag: x\n"))
    said = f"{about}: {name}-compressed: an ir_metadata description is YAML text: decompress"
    with pytest.raises(InputError, match="^" + re.escape(said) + " it first$"):
        ir_metadata.read_file(about)
    tsv = ROOT / "data" / "convert" / "msmarco-run.tsv"
    argv = ["convert", "--ir-metadata", str(about), "msmarco", str(tsv), "-o", str(tmp_path / "o")]
    assert run(argv) == 2
    assert capsys.readouterr().err == f"trecbench: {said} it first\n"
    assert not (tmp_path / "o").exists()


def test_convert_refuses_a_block_tag_that_is_not_the_runs(tmp_path, capsys):
    source = ROOT / "data" / "convert" / "msmarco-run.tsv"
    about = tmp_path / "about.yaml"
    about.write_text("# about the run\ntag: other\n")
    out = tmp_path / "out"
    argv = ["convert", "--ir-metadata", str(about), "msmarco", str(source), "-o", str(out)]
    assert run(argv) == 2
    said = 'about.yaml:2: tag "other" is not the tag of run "msmarco-run"'  # at its line
    assert said in capsys.readouterr().err
    assert not out.exists()
    assert run([*argv, "--tag", "other"]) == 0  # the same tag: written
    assert trecbench.load_run(str(out / "other.run")).ir_metadata["tag"] == "other"


@pytest.mark.parametrize("tag", ["007", "1:30", "1.50", "yes"])
def test_a_tag_yaml_reads_as_another_type_is_kept_as_written(tmp_path, capsys, tag):
    """YAML (1.1 and 1.2 alike) reads `tag: 007` as the number 7 (1:30 as 90, 1.50 as
    1.5, yes as true): `validate --fix-tag 007` was refused, the block's tag "is 7",
    reports recorded 7, and `fuse --tag 007 --ir-metadata` with that description was
    refused. A tag is an id: the text written."""
    path = tmp_path / "t.run"
    path.write_text(f"# ir_metadata.start\n# tag: {tag}\n# ir_metadata.end\n" + LINE.decode())
    assert trecbench.load_run(str(path)).ir_metadata == {"tag": tag}
    fixed = tmp_path / "fixed.run"
    assert run(["validate", "--fix-tag", tag, "--fix", str(fixed), str(path)]) == 0
    assert fixed.read_text().splitlines()[1:3] == [f"# tag: {tag}", "# ir_metadata.end"]
    assert run(["validate", "--fix-tag", "other", "--fix", str(fixed), str(path)]) != 0
    assert f"whose tag is '{tag}': give it the new tag too" in capsys.readouterr().err
    about = tmp_path / "about.yaml"
    about.write_text(f"tag: {tag}\n")
    fused = tmp_path / "fused.run"
    argv = ["fuse", "--tag", tag, "--ir-metadata", str(about), str(RUN), str(OTHER), "-o"]
    assert run([*argv, str(fused)]) == 0
    assert trecbench.load_run(str(fused)).ir_metadata["tag"] == tag


@pytest.mark.parametrize(
    ("block", "metadata"),
    [
        ("base: &b {tag: 007}\n# <<: *b", {"tag": "007", "base": {"tag": 7}}),
        ("a: &a {x: 1}\n# b: &b {tag: 007}\n# <<: [*a, *b]", None),  # a list of mappings
        # a merged mapping's own merge: its tag
        ("a: &a {tag: 1}\n# b: &b {<<: *a, tag: 007}\n# <<: *b", None),
    ],
)
def test_a_tag_reached_through_a_merge_key_is_kept_as_written(tmp_path, block, metadata):
    # `<<: *b` gave {'tag': 7}: only the top mapping's own scalars were read as text, and
    # `validate --fix-tag 007` was refused, the block's tag "is 7"
    path = tmp_path / "m.run"
    path.write_text(f"# ir_metadata.start\n# {block}\n# ir_metadata.end\n" + LINE.decode())
    read = trecbench.load_run(str(path)).ir_metadata
    assert read["tag"] == "007"
    assert metadata is None or read == metadata  # the merged mapping's own: as YAML reads it
    fixed = tmp_path / "fixed.run"
    assert run(["validate", "--fix-tag", "007", "--fix", str(fixed), str(path)]) == 0
    assert trecbench.load_run(str(fixed)).ir_metadata["tag"] == "007"


def test_a_block_whose_keys_are_numbers_is_read(tmp_path):
    # ir_metadata is the producer's YAML: "2022:" is an ordinary key there (only
    # trecbench's own configurations refuse keys that are not text)
    block = (
        b"# ir_metadata.start\n# tag: r1\n# method:\n#   2022: first version\n# ir_metadata.end\n"
    )
    path = tmp_path / "md.run"
    path.write_bytes(block + RUN.read_bytes())
    assert trecbench.load_run(str(path)).ir_metadata["method"] == {2022: "first version"}


def test_a_block_tag_written_as_a_number_is_the_tag_as_text(tmp_path):
    source = ROOT / "data" / "convert" / "msmarco-run.tsv"
    about = tmp_path / "about.yaml"
    about.write_text("tag: 2024\n")
    out = tmp_path / "out"
    argv = ["convert", "--ir-metadata", str(about), "msmarco", str(source), "-o", str(out)]
    assert run([*argv, "--tag", "2024"]) == 0


def test_a_block_larger_than_a_chunk_of_a_whole_read_is_read(with_block, monkeypatch):
    """A file read whole is tokenized a chunk at a time: a block longer than a chunk is
    read whole all the same (it was refused as never ending)."""
    from trecbench.inputs import trec_text

    expected = trecbench.load_run(str(with_block), full=True)
    monkeypatch.setattr(trec_text, "WHOLE_CHUNK_BYTES", 40)  # the block is 130 bytes
    loaded = trecbench.load_run(str(with_block), full=True)
    assert loaded.ir_metadata == expected.ir_metadata
    assert loaded.ir_metadata["method"] == {"retrieval": [{"name": "bm25", "k1": 0.9}]}
    assert loaded.table.to_pydict() == expected.table.to_pydict()
    assert loaded.table.column("line")[0].as_py() == 8


def test_a_block_of_any_yaml_values_is_recorded_in_reports(tmp_path, capsys):
    # a YAML date, !!binary, !!set and .nan made score --report and compare -o exit 70
    # (not JSON serializable) after the scores were printed
    block = (
        "# ir_metadata.start\n# tag: bm25\n# actor:\n#   date: 2024-05-01\n"
        "#   when: 2024-05-01T10:00:00Z\n#   raw: !!binary aGVsbG8=\n#   kinds: !!set {b, a}\n"
        "#   x: .nan\n#   2024-01-02: day\n#   7: seven\n# ir_metadata.end\n"
    )
    path = tmp_path / "md.run"
    path.write_text(block + RUN.read_text())
    expected = {
        "date": "2024-05-01",
        "when": "2024-05-01T10:00:00+00:00",
        "raw": "aGVsbG8=",  # b"hello" in base64
        "kinds": ["a", "b"],
        "x": None,
        "2024-01-02": "day",
        7: "seven",
    }
    assert trecbench.load_run(str(path)).ir_metadata["actor"] == expected
    report = tmp_path / "report.json"
    assert run(["score", "--report", str(report), str(QRELS), str(path)]) == 0
    recorded = next(i for i in json.loads(report.read_text())["inputs"] if i["kind"] == "run")
    in_json = {str(key): value for key, value in expected.items()}
    assert recorded["ir_metadata"]["actor"] == in_json
    out = tmp_path / "cmp"
    assert run(["compare", str(QRELS), str(path), str(RUN), "-m", "map", "-o", str(out)]) == 0
    assert "2024-05-01T10:00:00+00:00" in (out / "BenchmarkReport.json").read_text()


def test_fuse_records_the_fusion_as_applied(tmp_path, capsys):
    # combsum recorded norm null (it applied min-max) and RRF's k 60; a run read from
    # standard input was recorded with sha256 null
    import hashlib
    import subprocess
    import sys

    about = tmp_path / "about.yaml"
    about.write_text("a: 1\n")
    other = ROOT / "runs" / "tfidf-word.run"
    fused = tmp_path / "f.run"
    recorded = {}
    for method, norm in (("combsum", None), ("sum", "zmuv"), ("rrf", None)):
        argv = ["fuse", "--method", method, "--ir-metadata", str(about), str(RUN), str(other)]
        assert run([*argv, *(["--norm", norm] if norm else []), "-o", str(fused)]) == 0
        recorded[method] = trecbench.load_run(str(fused)).ir_metadata["method"]["fusion"]
    assert recorded["combsum"] | {"runs": None} == {
        "name": "combsum", "k": None, "norm": "min-max", "weights": None, "depth": None,
        "optimized": None, "runs": None,
    }  # fmt: skip
    assert (recorded["sum"]["name"], recorded["sum"]["norm"]) == ("combsum", "z-score")
    assert (recorded["rrf"]["k"], recorded["rrf"]["norm"]) == (60, "none")
    # the default k, 60, as given: it was written 60.0 (reviewer 379); --k 2.5 stays
    assert type(recorded["rrf"]["k"]) is int and "k: 60\n" in fused.read_text()
    assert run(["fuse", "--k", "2.5", "--ir-metadata", str(about), str(RUN), str(other),
                "-o", str(fused)]) == 0  # fmt: skip
    assert trecbench.load_run(str(fused)).ir_metadata["method"]["fusion"]["k"] == 2.5
    argv = ["fuse", "--ir-metadata", str(about), "-", str(other), "-o", str(fused)]
    with RUN.open("rb") as stdin:  # the reader reads descriptor 0: another process
        subprocess.run([sys.executable, "-m", "trecbench", *argv], stdin=stdin, check=True)
    (piped, _) = trecbench.load_run(str(fused)).ir_metadata["method"]["fusion"]["runs"]
    assert piped == {"path": "-", "sha256": hashlib.sha256(RUN.read_bytes()).hexdigest()}


def test_fuse_names_its_block_s_tag_as_its_lines_and_writes_what_the_name_says(tmp_path):
    # --method wsum wrote "# tag: wsum" atop lines tagged combsum; -o x.jsonl wrote TREC
    # text that trecbench then read as JSONL and refused, x.gz plain text, X.PARQUET text
    about = tmp_path / "about.yaml"
    about.write_text("a: 1\n")
    runs = [str(RUN), str(ROOT / "runs" / "tfidf-word.run")]
    fused = tmp_path / "w.run"
    assert (
        run(["fuse", "--method", "wsum", "--ir-metadata", str(about), *runs, "-o", str(fused)]) == 0
    )
    loaded = trecbench.load_run(str(fused))
    assert loaded.ir_metadata["tag"] == "combsum" == loaded.table.column("tag")[0].as_py()
    for name in ("x.jsonl", "x.run.gz", "x.jsonl.bz2"):
        assert run(["fuse", *runs, "-o", str(tmp_path / name)]) == 1
        assert not (tmp_path / name).exists()
    assert run(["fuse", *runs, "-o", str(tmp_path / "X.PARQUET")]) == 0
    assert (tmp_path / "X.PARQUET").read_bytes()[:4] == b"PAR1"
    for name in ("out.jsonl.txt", "out.v1.gz.run"):  # read as text: the endings tell
        assert run(["fuse", *runs, "-o", str(tmp_path / name)]) == 0
        assert trecbench.load_run(str(tmp_path / name)).table.num_rows
    with pytest.raises(trecbench.UsageError, match="not jsonl: name it otherwise"):
        trecbench.write_run(str(RUN), str(tmp_path / "api.jsonl"))


@pytest.mark.parametrize("newline", [True, False], ids=["final newline", "none"])
def test_a_file_of_a_block_alone_has_no_run_lines(tmp_path, capsys, newline):
    """With its final newline the file was said to lack one (R25); without it, its end
    marker (the last line, a chunk of its own) went unseen: "an ir_metadata block that
    never ends" and R1 on every line, which --fix then quoted. trec_eval 9.0.8 stops at
    its first line ('Malformed line 1'), 10.0 finds no results: both fail, as on a run of
    blank lines (checked with the binaries)."""
    path = tmp_path / "block.run"
    path.write_bytes(b"# ir_metadata.start\n# tag: t\n# ir_metadata.end" + b"\n" * newline)
    assert run(["validate", str(path)]) == 2
    lines = capsys.readouterr().out.splitlines()
    expected = [
        f"{path}: error[R9]: no data lines",
        f"{path}:1:line: warning[R30]: ir_metadata block (lines 1-3) read as metadata; trec_eval "
        "9.0.8 cannot read the file ('Malformed line 1'), 10.0 and trecbench skip the block",
    ]
    if not newline:
        expected.append(f"{path}:3:line: info[R25]: no newline at the end of file")
    assert lines[:-1] == expected
    assert run(["validate", "--fix", str(tmp_path / "fixed.run"), str(path)]) == 2
    assert "--fix cannot repair R9; first: " in capsys.readouterr().err  # R1, R30 before
    assert not (tmp_path / "fixed.run").exists()


def test_a_streamed_block_across_a_chunks_end_is_read(with_block):
    """The validator streams a run: a block its first chunk does not hold whole was "an
    ir_metadata block that never ends"."""
    from trecbench.validation import validate_run

    findings = validate_run(with_block, chunk_bytes=100).findings  # the block is 130 bytes
    assert findings == validate_run(with_block).findings  # in one chunk
    assert findings[0].rule == "R30"
    assert findings[0].message.startswith("ir_metadata block (lines 1-7) read as metadata")


def test_a_streamed_block_longer_than_a_chunk_is_read_whatever_the_memory(with_block):
    """A block longer than the streamed chunk (its size set by --memory) was refused as
    "never ends" while the same file read whole was read: --memory decided."""
    from trecbench.inputs import trec_text
    from trecbench.inputs.streams import Source
    from trecbench.validation import validate_run

    findings = validate_run(with_block, chunk_bytes=40).findings  # the block is 130 bytes
    assert findings == validate_run(with_block).findings
    with Source(with_block) as source:
        first = next(trec_text._source_tokens(source, 6, 40, metadata=True))
    assert first.ir_metadata.value["method"] == {"retrieval": [{"name": "bm25", "k1": 0.9}]}


def test_a_block_past_the_bounds_read_is_found_bad_naming_them(with_block, monkeypatch):
    # it does end, further down: "never ends" was untrue
    from trecbench.inputs import trec_text
    from trecbench.inputs.streams import Source

    monkeypatch.setattr(ir_metadata, "MOST_BYTES", 60)
    for chunk_bytes in (40, 60, 1 << 20):  # by where the block ends, not the chunks
        with Source(with_block) as source:
            first = next(trec_text._source_tokens(source, 6, chunk_bytes, metadata=True))
        assert str(first.ir_metadata.error).endswith(
            ":1: an ir_metadata block longer than 60 bytes, the most read"
        )
    monkeypatch.setattr(ir_metadata, "MOST_BYTES", len(BLOCK) - 1)  # its end, newline aside
    assert trecbench.load_run(str(with_block)).ir_metadata["tag"] == "bm25"
    monkeypatch.setattr(ir_metadata, "MOST_LINES", 3)
    with pytest.raises(InputError, match=r":1: an ir_metadata block longer than 3 lines"):
        trecbench.load_run(str(with_block))


def test_the_rules_name_the_bounds_read():
    # the rules are data, imported without the readers (validate of a small file imports
    # no Arrow): the bounds are written out in them, and must be the readers' own
    from trecbench.validation.rules import CHECKS

    named = f"({ir_metadata.MOST_LINES:,} lines or {ir_metadata.MOST_BYTES >> 20} MiB)"
    assert named in CHECKS["R30.malformed"].summary


@pytest.mark.parametrize(
    ("bound", "most", "named"), [("MOST_BYTES", 60, "60 bytes"), ("MOST_LINES", 3, "3 lines")]
)
def test_a_block_past_a_bound_is_a_finding_of_validate_and_refused_by_score(
    tmp_path, capsys, monkeypatch, bound, most, named
):
    """A block longer than the bytes read stopped `validate` with one line, the run's
    other findings unsaid; now both bounds are an R30.malformed finding among the others
    (the block's lines are checked as trec_eval 9.x reads them, as for a block that never
    ends), and `score` refuses the run in one line at file:line."""
    from trecbench.validation import validate_run

    path = tmp_path / "long.run"
    path.write_bytes(BLOCK + LINE + LINE.replace(b"d1 1 2.5", b"d1 2 2.4"))  # d1 twice
    qrels = tmp_path / "qrels"
    qrels.write_text("301 0 d1 1\n")
    monkeypatch.setattr(ir_metadata, bound, most)
    too_long = f"an ir_metadata block longer than {named}, the most read"
    assert run(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert f"{path}:1:line: error[R30]: {too_long}" in out.splitlines()
    assert f"{path}:9:docno: error[R7]: duplicate docno d1 in topic 301" in out
    assert err == ""
    for chunk_bytes in (40, 1 << 20):  # streamed or in one chunk: alike
        findings = validate_run(path, chunk_bytes=chunk_bytes).findings
        keys = {(finding.check, finding.line) for finding in findings}
        assert {("R30.malformed", 1), ("R7", 9)} <= keys
    assert run(["score", str(qrels), str(path)]) != 0
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"trecbench: {path}:1: error[R30]: {too_long}\n")


def test_a_description_s_tag_at_odds_is_refused_before_any_run_is_read(
    tmp_path, capsys, monkeypatch
):
    """fuse --optimize searched every candidate (and said which it chose) before the
    description's tag was found at odds with the fused run's, and nothing was written
    (reviewer 374): the tag is known before any run is read, and checked then."""
    from trecbench import fusion

    def no_run_read(*args, **kwargs):
        raise AssertionError("a run was read")

    monkeypatch.setattr(fusion, "ranked_tables", no_run_read)
    about = tmp_path / "about.yaml"
    about.write_text("tag: hybrid\n")
    rtask = ROOT / "data" / "hpo-rtask"
    argv = ["fuse", "--ir-metadata", str(about), "--method", "combsum", "--optimize",
            "MAP@100", "--qrels", str(rtask / "hpo-rtask.qrels"), str(rtask / "lexical.run"),
            str(rtask / "vector.run"), "-o", str(tmp_path / "f.run")]  # fmt: skip
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert 'tag "hybrid" is not the fused run\'s tag "combsum"' in err and "chose" not in err


def test_fuse_refuses_a_block_tag_that_is_not_the_fused_run_s_at_its_line(tmp_path, capsys):
    # refused as "about.yaml: tag ...", with no line
    about = tmp_path / "about.yaml"
    about.write_text("# about the fusion\ntag: other\n")
    runs = [str(RUN), str(ROOT / "runs" / "tfidf-word.run")]
    out = tmp_path / "g.run"
    argv = ["fuse", "--ir-metadata", str(about), "--tag", "mine", *runs, "-o", str(out)]
    assert run(argv) == 2
    said = f'{about}:2: tag "other" is not the fused run\'s tag "mine": leave the tag out'
    assert said in capsys.readouterr().err
    assert not out.exists()


# ruamel.yaml 0.19.1's YAML 1.2 resolvers (ruamel/yaml/resolver.py, implicit_resolvers of
# version (1, 2)), as repro_eval reads a block: what they match is a number to it
_RUAMEL_1_2_NUMBER = re.compile(
    r"""[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
    |[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
    |[-+]?0b[0-1_]+|[-+]?0o?[0-7_]+|[-+]?[0-9_]+|[-+]?0x[0-9a-fA-F_]+""",
    re.X,
)


def test_text_a_yaml_1_2_reader_takes_for_a_number_is_written_quoted():
    """fuse --ir-metadata wrote 1_0e5, +0o7 and 0o_7 plain, which ruamel.yaml (repro_eval's
    reader) reads as numbers (100000.0, 7, 7), and +_ plain, which it cannot read (a
    ValueError): beyond YAML 1.2's core schema, which the writer followed. Every text of
    up to three characters of these reads back as itself (PyYAML), and none is left
    plain where ruamel.yaml's resolvers read a number."""
    import itertools

    import yaml

    alphabet = "017_.eE+-oxb"
    texts = ["".join(t) for n in (1, 2, 3) for t in itertools.product(alphabet, repeat=n)]
    texts += ["1_0e5", "+0o7", "0o_7", "0_e1", "+_1", "0o7_"]
    for text in texts:
        (line,) = ir_metadata.block_text({"k": text}).splitlines()[1:-1]
        written = line.removeprefix("# k: ")
        assert yaml.safe_load(written) == text
        if not written.startswith(("'", '"')):
            assert not _RUAMEL_1_2_NUMBER.fullmatch(written), written


def test_write_run_keeps_the_block_a_run_was_read_with(tmp_path):
    """write_run of a run read with an ir_metadata block (its file, or load_run's run of
    it) wrote the lines alone: the block was dropped without a word. It is now written
    atop the text, reading back as the same metadata and lines; a Parquet file, which
    holds none, drops it with an InputWarning."""
    from trecbench.errors import InputWarning

    source = tmp_path / "in.run"
    source.write_bytes(BLOCK + LINE)
    loaded = trecbench.load_run(source)
    for given, name in ((loaded, "a.run"), (str(source), "b.run")):
        trecbench.write_run(given, tmp_path / name)
        again = trecbench.load_run(tmp_path / name)
        assert again.ir_metadata == loaded.ir_metadata
        assert again.table.equals(loaded.table)
    with pytest.warns(InputWarning, match="ir_metadata block is dropped"):
        trecbench.write_run(loaded, tmp_path / "c.parquet")
    assert trecbench.load_run(tmp_path / "c.parquet").ir_metadata is None
    # the lines alone, as trec_eval 9.0.8 reads them (it stops at a block's first line)
    with pytest.raises(trecbench.UsageError, match="metadata must be True or False, not 'no'"):
        trecbench.write_run(loaded, tmp_path / "e.run", metadata="no")  # truthy: kept
    assert not (tmp_path / "e.run").exists()
    trecbench.write_run(loaded, tmp_path / "d.run", metadata=False)
    assert (tmp_path / "d.run").read_bytes() == LINE.replace(b" ", b"\t")
