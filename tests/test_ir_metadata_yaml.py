"""ir_metadata blocks as YAML: written so that every reader reads back the same text (YAML
1.1 and 1.2, the TREC readers' lines), read with messages at the file's lines, refused when
a value cannot be read or two keys are one in the reports' JSON."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

import trecbench
from trecbench.cli import run
from trecbench.errors import InputError
from trecbench.inputs import ir_metadata
from trecbench.yaml_loader import load_yaml

LINE = b"301 Q0 d1 1 2.5 bm25\n"
# what some reader takes for the end of a line: TREC text's and trec_eval's \n; YAML 1.1's
# (PyYAML's) \r, U+0085, U+2028, U+2029; Python's str.splitlines() \x0b, \x0c, \x1c-\x1e
LINE_ENDS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
HOSTILE = [
    "lab\u2028two",
    "a\rb",
    "a\r\nb",
    "\n",
    "x\x0by\x0cz",
    "\x1c\x1d\x1e",
    "next\x85line",
    "p\u2029q",
    "nul\x00byte",
    "tab\there",
    "  lead and trail  ",
    "# ir_metadata.end",
    "\n# ir_metadata.end\n",
    "ir_metadata.end",
    "k: 60 # not a comment",
    "'\"\\",
    "\ufeffbom",
    "\x7f\x9f\xa0\u3000\u200b",
    "emoji \U0001f600",
    " ".join(["long"] * 30) + "\u2028" + " ".join(["words"] * 30),
]
_EXAMPLES = int(os.environ.get("TRECBENCH_HOSTILE_EXAMPLES", "60"))


def _round_trip(metadata: dict) -> dict:
    """``metadata`` written as a block atop a run and read back; the block's lines are
    lines to every reader: none holds a line end but its own \\n."""
    text = ir_metadata.block_text(metadata)
    lines = text.split("\n")[:-1]
    assert all(line.startswith("#") for line in lines)
    assert not any(end in line for line in lines for end in LINE_ENDS)
    block = ir_metadata.find_block(text.encode() + LINE, "run")
    assert (block.lines, block.size) == (len(lines), len(text.encode()))
    return ir_metadata.parse(block, "run")


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_text_is_written_on_the_blocks_lines_and_reads_back_as_itself(value):
    # `team: "lab\u2028two"` read back as 'lab two': PyYAML wrote U+2028 raw and
    # str.splitlines() broke the line there, giving the rest a "# " of its own
    metadata = {"actor": {"team": value}, value: [value], "tag": value}
    assert _round_trip(metadata) == metadata


def test_any_text_reads_back_as_itself():
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    characters = st.sampled_from(LINE_ENDS + "\x00\t #:'\"\\-?[]{}&*!|>%@` a1.e") | st.characters()
    text = st.text(characters, max_size=40)

    @settings(
        max_examples=_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(st.dictionaries(text, text | st.lists(text, max_size=3), max_size=4))
    def check(metadata):
        assert _round_trip(metadata) == metadata

    check()


def test_a_set_is_written_in_one_order_whatever_the_hash_seed():
    # a description's !!set came out in the order of the text hashes: two identical fuse
    # calls wrote two files, and diff said "a run file differs" (reviewer 731)
    import subprocess
    import sys

    code = (
        "from trecbench.inputs.ir_metadata import block_text\n"
        "print(block_text({'tags': {'alpha', 'beta', 'gamma', 'delta', 3, None, 'None'}}),"
        " end='')"
    )
    written = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3")
    }  # fmt: skip
    (block,) = written
    # kinds that do not compare by kind, then text: null and 'None' alike as text tied
    # and kept the hash order (reviewer 733)
    assert "# tags: !!set\n#   null: null\n#   3: null\n#   None: null\n#   alpha" in block


def test_fuse_writes_a_team_with_a_line_separator_as_given(tmp_path):
    about = tmp_path / "about.yaml"
    about.write_text('actor:\n  team: "lab\\u2028two"\n')
    runs = [str(ROOT / "runs" / "tfidf-char.run"), str(ROOT / "runs" / "tfidf-word.run")]
    fused = tmp_path / "f.run"
    assert run(["fuse", "--ir-metadata", str(about), *runs, "-o", str(fused)]) == 0
    assert trecbench.load_run(str(fused)).ir_metadata["actor"] == {"team": "lab\u2028two"}


# -- YAML 1.2 (the version the ir_metadata schema names; ruamel.yaml, repro_eval) -----------

# the core schema's tag resolution of plain scalars, YAML 1.2.2 section 10.3.2
# (https://yaml.org/spec/1.2.2/#1032-tag-resolution); a plain scalar matching none is text
CORE_SCHEMA = {
    "null": r"null|Null|NULL|~|",
    "bool": r"true|True|TRUE|false|False|FALSE",
    "int": r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+",
    "float": r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?"
    r"|[-+]?(\.inf|\.Inf|\.INF)|\.nan|\.NaN|\.NAN",
}
# text that YAML 1.1 (PyYAML) reads as text and YAML 1.2 as a number or null, or the reverse
NOT_TEXT_IN_ONE_VERSION = [
    "1e3", "2e-5", "1E3", "+1e3", "0o17", "0o7", "008", "09", ".5", ".5e3", "1.e3", "+.5",
    "-0", "0x1F", "0b101", "1_000", "1:30", "yes", "No", "on", "OFF", "y", "~", "null",
    "True", "FALSE", ".inf", "-.Inf", ".NaN", "2022-01-01", "1.50", "=", "<<", "",
]  # fmt: skip


def _yaml_1_2_text(block_text: str) -> None:
    """Every plain scalar of the YAML in ``block_text`` (a block as written) is text when
    YAML 1.2's core schema resolves it."""
    lines = block_text.split("\n")[1:-2]
    document = yaml.compose("\n".join(line[2:] if line != "#" else "" for line in lines))
    nodes = [document]
    while nodes:
        node = nodes.pop()
        if isinstance(node, yaml.MappingNode):
            nodes.extend(part for pair in node.value for part in pair)
        elif isinstance(node, yaml.SequenceNode):
            nodes.extend(node.value)
        elif node.style is None and node.tag == "tag:yaml.org,2002:str":
            for kind, pattern in CORE_SCHEMA.items():
                assert not re.fullmatch(pattern, node.value), f"{node.value!r}: {kind}"


@pytest.mark.parametrize("value", NOT_TEXT_IN_ONE_VERSION)
def test_text_is_text_to_yaml_1_1_and_1_2_readers(value):
    # PyYAML wrote `tag: 0o17` and `1e3` plain: text to YAML 1.1, 15 and 1000.0 to 1.2
    metadata = {"tag": value, "actor": {"team": value}, value: [value]}
    text = ir_metadata.block_text(metadata)
    _yaml_1_2_text(text)
    assert _round_trip(metadata) == metadata
    lines = "\n".join(line[2:] for line in text.split("\n")[1:-2])
    assert yaml.safe_load(lines) == metadata  # PyYAML alone, without trecbench's id keys


def _writing_a_block(command: str, about: Path, out: Path, converted: str) -> tuple[list, Path]:
    """The arguments of ``fuse`` (two bundled runs) or ``convert msmarco`` (the bundled
    MS MARCO run) writing ``about``'s ir_metadata block into ``out``, and the run file
    written (``converted``: its name in the folder ``convert`` writes)."""
    if command == "fuse":
        runs = [str(ROOT / "runs" / "tfidf-char.run"), str(ROOT / "runs" / "tfidf-word.run")]
        return ["fuse", "--ir-metadata", str(about), *runs, "-o", str(out)], out
    source = ROOT / "data" / "convert" / "msmarco-run.tsv"
    argv = ["convert", "--ir-metadata", str(about), "msmarco", str(source), "-o", str(out)]
    return argv, out / converted


@pytest.mark.parametrize(("command", "tag"), [("fuse", "1e3"), ("convert", "0o17")])
def test_a_run_tag_that_yaml_1_2_reads_as_a_number_is_written_quoted(tmp_path, command, tag):
    about = tmp_path / "about.yaml"
    about.write_text("actor:\n  team: lab\n")
    argv, written = _writing_a_block(command, about, tmp_path / "out", f"{tag}.run")
    assert run([*argv, "--tag", tag]) == 0
    text = written.read_text()
    assert f"\n# tag: '{tag}'\n" in text
    _yaml_1_2_text(text[: text.index("# ir_metadata.end\n") + len("# ir_metadata.end\n")])


# -- messages at the file's lines ----------------------------------------------------------


def _refused(block: bytes) -> InputError:
    with pytest.raises(InputError) as caught:
        ir_metadata.parse(ir_metadata.find_block(block + LINE, "r.run"), "r.run")
    assert "\n" not in str(caught.value) and "<unicode string>" not in str(caught.value)
    return caught.value


@pytest.mark.parametrize(
    ("block", "line", "message"),
    [
        # "(first on line 1)": the line in the YAML, not in the file
        (
            b"# ir_metadata.start\n# actor:\n#   team: x\n# tag: t\n# actor: y\n"
            b"# ir_metadata.end\n",
            5,
            "duplicate key 'actor' (first on line 2)",
        ),
        # PyYAML counts a lone CR and U+2028 as line ends; the readers do not
        (
            b"# ir_metadata.start\n# a: 'x\ry'\n# b: 1\n# b: 2\n# ir_metadata.end\n",
            4,
            "duplicate key 'b' (first on line 3)",
        ),
        (
            b'# ir_metadata.start\n# a: "x\xe2\x80\xa8y"\n# b: 1\n# b: 2\n# ir_metadata.end\n',
            4,
            "duplicate key 'b' (first on line 3)",
        ),
        # a NUL on line 3 was refused at line 2, "in "<unicode string>", position 10"
        (
            b"# ir_metadata.start\n# a: 1\n# b: x\x00\n# ir_metadata.end\n",
            3,
            "unacceptable character U+0000",
        ),
    ],
)
def test_messages_name_the_files_lines(block, line, message):
    error = _refused(block)
    assert error.line == line
    assert message in str(error)


# -- values YAML 1.1 and 1.2 read apart ---------------------------------------------------

READ_APART = [
    ("yes", "yes is read as true by YAML 1.1 and as text by YAML 1.2: write true"),
    ("Off", "Off is read as false by YAML 1.1 and as text by YAML 1.2: write false"),
    ("1:30", "1:30 is read as 90 by YAML 1.1 and as text by YAML 1.2: write 90"),
    ("0b101", "0b101 is read as 5 by YAML 1.1 and as text by YAML 1.2: write 5"),
    ("1_000", "1_000 is read as 1000 by YAML 1.1 and as text by YAML 1.2: write 1000"),
    ("010", "010 is read as 8 by YAML 1.1 and as 10 by YAML 1.2: write 8 or 10"),
    # text to YAML 1.1 (PyYAML), numbers to YAML 1.2's core schema (ruamel.yaml)
    ("1e3", "1e3 is read as text by YAML 1.1 and as the number 1000.0 by YAML 1.2: write 1.0e+3 or "
     "1000.0"),
    ("2e-5", "2e-5 is read as text by YAML 1.1 and as the number 2e-05 by YAML 1.2: write 2.0e-5"),
    ("0o17", "0o17 is read as text by YAML 1.1 and as the number 15 by YAML 1.2: write 15"),
    ("08", "08 is read as text by YAML 1.1 and as the number 8 by YAML 1.2: write 8"),
    ("-.5", "-.5 is read as text by YAML 1.1 and as the number -0.5 by YAML 1.2: write -0.5"),
    ("1e400", "1e400 is read as text by YAML 1.1 and as the number .inf by YAML 1.2: write .inf"),
    ("!!int 010", "010 is read as 8 by YAML 1.1 and as 10 by YAML 1.2: write 8 or 10, or "
     "drop the tag !!int and"),  # quoted and tagged, `!!int '010'` is still a number
    ("!!bool yes", "yes is read as true by YAML 1.1 and as text by YAML 1.2: write true, or "
     "drop the tag !!bool and"),
]  # fmt: skip


@pytest.mark.parametrize(("value", "said"), READ_APART)
@pytest.mark.parametrize("written", ["#   b: {}\n", "#   {}: b\n", "#   - [{}]\n"])
def test_a_value_or_key_yaml_1_1_and_1_2_read_apart_is_refused_at_its_line(value, said, written):
    # `time: 1:30` was recorded in the report as 90 and `gpu: yes` as true, and written
    # back so into the blocks convert and fuse write: one reading chosen without a word
    block = f"# ir_metadata.start\n# a: 1\n# m:\n{written.format(value)}# ir_metadata.end\n"
    error = _refused(block.encode())
    assert error.line == 4
    advice = " quote it" if said.endswith(" and") else ", or quote it"
    assert str(error) == f"r.run:4: ir_metadata: ambiguous YAML: {said}{advice} to keep it as text"


@pytest.mark.parametrize("block", ["tag: &a 1e3\n# b: *a", "a: &a 1e3\n# tag: *a"])
def test_a_value_sharing_the_tag_s_node_is_read_as_any_value(block):
    # `tag: &a 1e3` kept its node as the tag's text, and `b: *a` with it: YAML 1.2 reads
    # b as 1000.0, and b was recorded as '1e3' where `b: 1e3` alone is refused
    error = _refused(f"# ir_metadata.start\n# {block}\n# ir_metadata.end\n".encode())
    assert "ambiguous YAML: 1e3 is read as text by YAML 1.1" in str(error)


@pytest.mark.parametrize(("value", "said"), [case for case in READ_APART if "!!" not in case[0]])
def test_a_quoted_value_is_the_text_written_and_a_tag_keeps_its_id_as_written(value, said):
    block = f"# ir_metadata.start\n# tag: {value}\n# m: '{value}'\n# ir_metadata.end\n"
    metadata = ir_metadata.parse(ir_metadata.find_block(block.encode() + LINE, "r"), "r")
    assert metadata == {"tag": value, "m": value}


@pytest.mark.parametrize("command", ["fuse", "convert"])
def test_a_description_value_read_apart_is_refused_and_nothing_written(tmp_path, capsys, command):
    about = tmp_path / "about.yaml"
    about.write_text("platform:\n  hardware:\n    time: 1:30\n")
    argv, written = _writing_a_block(command, about, tmp_path / "out", "msmarco-run.run")
    assert run(argv) == 2
    assert capsys.readouterr().err == (
        f"trecbench: {about}:3: ir_metadata: ambiguous YAML: 1:30 is read as 90 by YAML 1.1 "
        "and as text by YAML 1.2: write 90, or quote it to keep it as text\n"
    )
    assert not written.exists()


def test_a_run_block_value_read_apart_is_a_finding_of_validate_and_refused_by_score(
    tmp_path, capsys
):
    path = tmp_path / "r.run"
    path.write_bytes(b"# ir_metadata.start\n# platform:\n#   gpu: yes\n# ir_metadata.end\n" + LINE)
    qrels = tmp_path / "q.qrels"
    qrels.write_text("301 0 d1 1\n")
    assert run(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert f"{path}:3:line: error[R30]: ir_metadata: ambiguous YAML: yes is read as" in out
    assert run(["score", str(qrels), str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"trecbench: {path}:3: ")
    assert "ambiguous YAML: yes is read as true by YAML 1.1 and as text by YAML 1.2" in err


# -- keys one in JSON; values YAML cannot construct ---------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("1", '"1"'),
        ("'true'", "true"),
        ("null", '"null"'),
        ("1.5", '"1.5"'),
        ("2022-01-01", '"2022-01-01"'),
        (".nan", "NaN"),
    ],
)
def test_keys_that_are_one_key_in_json_are_refused_at_their_line(first, second):
    # {1: x, "1": y} was recorded in the report's JSON as "1" twice: a reader kept one
    block = f"# ir_metadata.start\n# m:\n#   {first}: x\n#   {second}: y\n# ir_metadata.end\n"
    error = _refused(block.encode())
    assert error.line == 4
    assert "(line 3)" in str(error) and "one key in JSON" in str(error)


def test_keys_that_are_one_key_in_json_through_a_merge_are_refused():
    block = b'# ir_metadata.start\n# b: &b {1: x}\n# m: {<<: *b, "1": y}\n# ir_metadata.end\n'
    error = _refused(block)
    assert error.line == 3 and 'keys 1 (line 2) and "1" are one key in JSON' in str(error)
    # a key written out over a merged one it equals is the merge key's design, not a clash
    block = b"# ir_metadata.start\n# b: &b {1: x}\n# m: {<<: *b, 1: y}\n# ir_metadata.end\n"
    read = ir_metadata.parse(ir_metadata.find_block(block + LINE, "r"), "r")
    assert read["m"] == {1: "y"}


def test_keys_json_writes_apart_are_recorded_apart():
    # a NaN key was written as NaN (out of JSON): "cannot write JSON"
    block = b"# ir_metadata.start\n# .nan: 1\n# 1: 2\n# false: 3\n# ir_metadata.end\n"
    metadata = ir_metadata.parse(ir_metadata.find_block(block + LINE, "r"), "r")
    recorded = json.dumps(ir_metadata.recorded(metadata), allow_nan=False)
    assert json.loads(recorded) == {"ir_metadata": {"NaN": 1, "1": 2, "false": 3}}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2022-02-30", "'2022-02-30' is not a valid !!timestamp (day is out of range"),
        ("2022-01-01 25:00:00", "is not a valid !!timestamp (hour must be in 0..23)"),
        ("!!int x", "'x' is not a valid !!int"),
        ("!!int 0b2", "'0b2' is not a valid !!int"),
        ("!!float x", "'x' is not a valid !!float"),
        ("!!bool maybe", "'maybe' is not a valid !!bool"),
        ("!!timestamp x", "'x' is not a valid !!timestamp"),
        ("9" * 5000, "is not a valid !!int (more than the 4,300 digits Python reads)"),
        # read to any size, then written by no one: the block, the report's JSON, exit 70
        ("0x" + "f" * 5000, "is not a valid !!int (more than the 4,300 decimal digits Python"),
        ("-0b1" + "0" * 14300, "is not a valid !!int (more than the 4,300 decimal digits"),
        ("1:" * 2500 + "1", "is not a valid !!int (more than the 4,300 decimal digits"),
        ('!!int ""', "'' is not a valid !!int"),
        ("!!int", "'' is not a valid !!int"),
        ("!!int +", "'+' is not a valid !!int"),
        ("!!int +_", "'+_' is not a valid !!int"),
        ("!!float _", "'_' is not a valid !!float"),
        ("!!float ''", "'' is not a valid !!float"),
    ],
)
def test_a_value_yaml_cannot_construct_is_refused_at_its_line(value, message):
    # each was an internal error (ValueError, KeyError, AttributeError; IndexError when
    # no digit is left of a tagged `!!int ""`)
    block = f"# ir_metadata.start\n# a: 1\n# b: {value}\n# ir_metadata.end\n".encode()
    error = _refused(block)
    assert error.line == 3
    assert message in str(error)
    with pytest.raises(yaml.YAMLError):  # a configuration's YAML too
        load_yaml(f"b: {value}\n", text_keys=True)


TAGS = ["!!int", "!!float", "!!bool", "!!null", "!!str", "!!timestamp", "!!binary"]
TAGS += ["!!omap", "!!pairs", "!!set", "!!map", "!!seq", "!!merge", "!!value", "!x", ""]
UNREADABLE = ["", '""', "''", '"+"', '"-"', "+_", "_", "-_", '"+."', '"._"', '":"', '"1:_"']
UNREADABLE += ['"0x"', '"-0b"', '"0o"', '"1e1_"', '"=="', '"\\0"', '"0x\u0661"', "2022-02-30"]
UNREADABLE += ["0001-01-01 00:00:00+05:00", "2022-01-01 1:2:3.", "[]", "{}", "[1]", "{a: 1}"]


@pytest.mark.parametrize("tag", TAGS)
def test_any_tag_on_any_value_is_read_or_refused_as_yaml(tag):
    # `!!int ""` raised PyYAML's IndexError: an internal error, exit 70
    for value in UNREADABLE:
        for text in (f"a: {tag} {value}\n", f"{tag} {value}: 1\n", f"- [{tag} {value}]\n"):
            for text_keys in (False, True):
                try:
                    load_yaml(text, text_keys=text_keys, id_keys=frozenset({"a"}))
                except yaml.YAMLError:
                    pass


@pytest.mark.parametrize(
    ("value", "advice", "as_advised"),
    [
        ("2022-02-30", "quote it", "'2022-02-30'"),
        ("!!int x", "drop the tag !!int", "x"),
        ("!!int 'x'", "drop the tag !!int", "'x'"),  # quoted, still an int: refused
        ('!!float ""', "drop the tag !!float", '""'),
        ("!!timestamp 2022-02-30", "drop the tag !!timestamp and quote it", "'2022-02-30'"),
        # reviewer 228: untagged, each was not text (True, 1.5, 1, None, a date, inf)
        ("!!int yes", "drop the tag !!int and quote it", "'yes'"),
        ("!!int 1.5", "drop the tag !!int and quote it", "'1.5'"),
        ("!!bool 1", "drop the tag !!bool and quote it", "'1'"),
        ("!!int ~", "drop the tag !!int and quote it", "'~'"),
        ("!!float 2022-01-01", "drop the tag !!float and quote it", "'2022-01-01'"),
        ("!!int .inf", "drop the tag !!int and quote it", "'.inf'"),
    ],
)
def test_the_advice_keeps_the_value_as_text(value, advice, as_advised):
    # a tagged value was told to be quoted, and `!!int 'x'` is refused as `!!int x` is
    with pytest.raises(yaml.YAMLError) as error:
        load_yaml(f"a: {value}\n")
    assert f"; {advice} to keep it as text" in str(error.value)
    assert isinstance(load_yaml(f"a: {as_advised}\n")["a"], str)


def test_a_literal_block_scalar_ending_the_block_keeps_its_last_line_break(tmp_path):
    # reviewer 317: the YAML lines were joined with "\n", so the last line lost its break
    # and `b: |` read 'two lines\nhere' where YAML reads 'two lines\nhere\n'
    yaml_text = "a: |\n  two lines\n  here\nb: |\n  two lines\n  here\n"
    block = "".join(f"# {line}\n" for line in yaml_text.splitlines())
    path = tmp_path / "literal.run"
    path.write_bytes(f"# ir_metadata.start\n{block}# ir_metadata.end\n".encode() + LINE)
    expected = yaml.safe_load(yaml_text)
    assert expected == {"a": "two lines\nhere\n", "b": "two lines\nhere\n"}
    assert trecbench.load_run(path).ir_metadata == expected


def test_a_byte_not_utf8_in_the_block_is_refused_at_its_line(tmp_path, capsys):
    # reviewer 317: it was always blamed on line 1, the start marker
    path = tmp_path / "latin.run"
    path.write_bytes(b"# ir_metadata.start\n# lab: x\n# tag: caf\xe9\n# ir_metadata.end\n" + LINE)
    with pytest.raises(InputError) as caught:
        ir_metadata.find_block(path.read_bytes(), str(path))
    assert caught.value.line == 3
    assert run(["validate", str(path)]) == 2
    out = capsys.readouterr().out
    assert f"{path}:3:line: error[R30]: the ir_metadata block is not UTF-8" in out


@pytest.mark.parametrize(
    "data, line, message",
    [
        ("tag: x\n".encode("utf-16"), None, "the file is UTF-16; save it as UTF-8"),
        (b"tag: x\nactor:\n  team: caf\xe9\n", 3, "not UTF-8: invalid continuation byte"),
    ],
)
def test_a_description_not_utf8_is_refused_as_every_text_reader_refuses_it(
    tmp_path, data, line, message
):
    # --ir-metadata FILE said "not UTF-8" of a UTF-16 file, and of a bad byte at no line
    path = tmp_path / "about.yaml"
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        ir_metadata.read_file(path)
    assert (caught.value.line, caught.value.message) == (line, message)


@pytest.mark.parametrize("command", ["fuse", "convert"])
def test_a_description_s_nan_and_infinities_are_written_as_yaml_floats(tmp_path, command):
    # `x: .nan` in --ir-metadata stopped convert and fuse with an internal error (exit 70):
    # the loader's float subclass for a value not finite was nothing PyYAML could write
    about = tmp_path / "about.yaml"
    about.write_text("actor:\n  x: .nan\n  up: .Inf\n  down: -.inf\n  over: 1.0e+400\n")
    argv, written = _writing_a_block(command, about, tmp_path / "out", "msmarco-run.run")
    assert run(argv) == 0
    text = written.read_text()
    assert "#   x: .nan\n#   up: .inf\n#   down: -.inf\n#   over: .inf\n" in text
    block = ir_metadata.find_block(written.read_bytes(), str(written))
    actor = ir_metadata.parse(block, str(written))["actor"]
    assert actor["x"] != actor["x"] and actor["up"] == actor["over"] == float("inf")
    assert actor["down"] == float("-inf")


def test_a_description_s_integer_python_cannot_write_is_refused_at_its_line(tmp_path, capsys):
    # `a: 0xfff...` (5,000 digits) was read, then writing the block raised Python's
    # ValueError: convert stopped with an internal error (exit 70)
    about = tmp_path / "about.yaml"
    about.write_text("actor:\n  a: 0x" + "f" * 5000 + "\n")
    source = ROOT / "data" / "convert" / "msmarco-run.tsv"
    out = tmp_path / "out"
    argv = ["convert", "--ir-metadata", str(about), "msmarco", str(source), "-o", str(out)]
    assert run(argv) == 2
    said = capsys.readouterr().err
    assert f"{about}:2: ir_metadata: not valid YAML: " in said and "decimal digits" in said
    assert not out.exists()


def test_of_two_ambiguous_values_the_first_in_the_block_is_refused(tmp_path):
    # review 718: a top-level `on` (line 4) was refused before the nested `yes` above it
    # (line 3): PyYAML built the nested mapping last; fixed one by one, they came unordered
    path = tmp_path / "amb.run"
    block = "# ir_metadata.start\n# actor:\n#   name: yes\n# flag: on\n# ir_metadata.end\n"
    path.write_text(block + "1 Q0 d1 1 3.0 r\n")
    with pytest.raises(trecbench.InputError) as refused:
        trecbench.load_run(str(path))
    assert refused.value.line == 3 and "yes is read as true" in refused.value.message
