"""The Python API of the converters checks what the command line checks: the inputs a
conversion was read from are never written over, and ``depth``, list arguments and
line offsets are refused as the CLI refuses them."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from trecbench.convert.beir import convert_beir_qrels
from trecbench.convert.codechunk import convert_codechunk
from trecbench.convert.common import write_conversion
from trecbench.convert.dicts import convert_dict
from trecbench.convert.hpo import convert_hpo
from trecbench.convert.lists import convert_lists
from trecbench.convert.memorybench import convert_memorybench
from trecbench.convert.msmarco import convert_msmarco
from trecbench.errors import OutputError, UsageError
from trecbench.resource_bounds import depth_from


def test_a_conversion_never_replaces_the_file_it_was_read_from(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "apiprot").mkdir()
    source = tmp_path / "apiprot" / "m1.run"
    source.write_text("q1\td1\t1\nq1\td2\t2\n")
    before = source.read_bytes()
    conversion = convert_msmarco("apiprot/m1.run")  # its run is m1.run, beside its input
    with pytest.raises(OutputError, match="m1.run: refusing to overwrite an input file"):
        write_conversion(conversion, "apiprot", inputs=[])
    assert source.read_bytes() == before
    assert sorted(path.name for path in (tmp_path / "apiprot").iterdir()) == ["m1.run"]


DATA = Path(__file__).resolve().parents[1] / "data"
CONVERTERS = {
    "msmarco": lambda depth: convert_msmarco(DATA / "convert" / "msmarco-run.tsv", depth=depth),
    "dict": lambda depth: convert_dict(DATA / "convert" / "bm25-results.json", depth=depth),
    "lists": lambda depth: convert_lists(
        DATA / "convert" / "remem-chunks.json", match="chunks", depth=depth
    ),
    "hpo": lambda depth: convert_hpo(
        DATA / "hpo-demo" / "cases.json",
        [DATA / "hpo-demo" / "results" / "tfidf-word" / "terms.jsonl"],
        depth=depth,
    ),
}


@pytest.mark.parametrize("converter", sorted(CONVERTERS))
@pytest.mark.parametrize("depth", [-1, 0, 2.5, "3", True, 2**63, np.float64(2)])
def test_a_depth_the_command_line_refuses_is_refused(converter, depth):
    with pytest.raises(
        UsageError, match=r"depth must be a whole number from 1 to 9223372036854775807"
    ):
        CONVERTERS[converter](depth)


@pytest.mark.parametrize("converter", sorted(CONVERTERS))
def test_a_numpy_depth_is_taken_as_a_python_int(converter):
    conversion = CONVERTERS[converter](np.int64(1))
    assert type(conversion.provenance["options"]["depth"]) is int
    for run in conversion.runs:
        assert run.table.groupby("qid").size().max() == 1


def test_the_command_line_and_the_library_share_the_depth_bounds():
    from trecbench.cli.shared_options import DEPTH

    assert (DEPTH.min, DEPTH.max) == (1, 2**63 - 1)  # a C long, as trec_eval reads ranks
    assert depth_from(2**63 - 1) == 2**63 - 1 and depth_from(None) is None


HPO_CASES = DATA / "hpo-demo" / "cases.json"
HPO_RESULTS = DATA / "hpo-demo" / "results" / "tfidf-word" / "terms.jsonl"


@pytest.mark.parametrize(
    "options, message",
    [
        ({"results": str(HPO_RESULTS)}, "results=.*: give a list of result files, not text"),
        ({"results": HPO_RESULTS}, "results=.*: give a list of result files, not a PosixPath"),
        (
            {"results": [HPO_RESULTS, HPO_RESULTS], "tags": "xy"},
            "tags='xy': give a list of tags, one per result file, not text",
        ),
    ],
)
def test_a_single_path_or_tag_where_a_list_is_expected_is_refused(options, message):
    with pytest.raises(UsageError, match=message):
        convert_hpo(HPO_CASES, **options)


def test_none_for_results_or_tags_is_none_given():
    # they were refused "not a NoneType" (second reading 435), where listed_names takes
    # None as the default
    none = convert_hpo(HPO_CASES, results=None, tags=None)
    assert none.runs == [] and len(none.qrels) == 1
    [run] = convert_hpo(HPO_CASES, results=[HPO_RESULTS], tags=None).runs
    assert run.tag == "tfidf-word"


MEMORYBENCH = DATA / "convert" / "memorybench-export.json"


@pytest.mark.parametrize(
    "offsets, message",
    [
        ({"chonkie": 1.5}, "line offset 'chonkie': 1.5 is not an integer"),
        ({"chonkie": "-1"}, "line offset 'chonkie': '-1' is not an integer"),
        ({"chonkie": True}, "line offset 'chonkie': True is not an integer"),
        ({1: -1}, "line offset 1: a provider is named by a string"),
        ([("chonkie", -1)], "line_offsets must map providers to integers"),
        # taken and recorded in the sidecar, where every other integer option stops at 2**63-1
        ({"chonkie": 10**23}, f"line offset 'chonkie': {10**23} is beyond ±{2**63 - 1}"),
        ({"chonkie": -(2**63)}, f"line offset 'chonkie': {-(2**63)} is beyond ±{2**63 - 1}"),
    ],
)
def test_a_line_offset_the_command_line_refuses_is_refused(offsets, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        convert_memorybench(MEMORYBENCH, line_offsets=offsets)


def test_a_numpy_line_offset_is_kept_as_a_python_int():
    conversion = convert_memorybench(MEMORYBENCH, line_offsets={"chonkie": np.int64(-1)})
    assert type(conversion.provenance["options"]["line_offsets"]["chonkie"]) is int


def test_the_largest_line_offsets_are_taken():
    for offset in (2**63 - 1, -(2**63 - 1)):
        conversion = convert_memorybench(MEMORYBENCH, line_offsets={"chonkie": offset})
        assert conversion.provenance["options"]["line_offsets"] == {"chonkie": offset}


@pytest.mark.parametrize(
    "options, message",
    [
        ({"iou": "0.5"}, "the IoU threshold must be a number between 0 and 1, not '0.5'"),
        ({"iou": True}, "the IoU threshold must be a number between 0 and 1, not True"),
        (
            {"relevance": "token-f1", "f1_threshold": "0.5"},
            "the F1 threshold must be a number between 0 and 1, not '0.5'",
        ),
    ],
)
def test_a_threshold_of_no_number_is_refused(options, message):
    # a TypeError ("'<=' not supported between instances of 'int' and 'str'") came out
    with pytest.raises(UsageError, match=re.escape(message)):
        convert_memorybench(MEMORYBENCH, **options)


def test_a_numpy_threshold_is_kept_as_the_float_it_prints_as(tmp_path):
    # np.float32(0.5) passed, then the sidecar's JSON failed: not JSON serializable
    conversion = convert_memorybench(MEMORYBENCH, iou=np.float32(0.3))
    assert type(conversion.provenance["options"]["iou"]) is float
    assert conversion.provenance["options"]["iou"] == 0.3
    write_conversion(conversion, tmp_path, inputs=[])


def test_a_results_file_given_twice_is_refused():
    # two identical runs were written, one per tag
    with pytest.raises(UsageError, match="terms.jsonl: the same run is given twice"):
        convert_hpo(HPO_CASES, [HPO_RESULTS, HPO_RESULTS], tags=["a", "b"])


def test_grades_without_the_ontology_grading_are_refused():
    # the grades were dropped and the qrels written binary; the command line refuses
    # --grade without --graded ontology
    with pytest.raises(UsageError, match="grades apply only with graded='ontology'"):
        convert_hpo(HPO_CASES, grades={"exact": 3})


def test_check_ids_is_true_or_false():
    # "no" was taken as true
    with pytest.raises(UsageError, match="check_ids must be True or False, not 'no'"):
        convert_hpo(HPO_CASES, check_ids="no")


@pytest.mark.parametrize("inputs", ["x.run", Path("x.run")])
def test_one_path_for_the_inputs_is_refused_not_read_as_its_characters(tmp_path, inputs):
    # the characters were protected and x.run, the input named, written over
    conversion = convert_msmarco(DATA / "convert" / "msmarco-run.tsv")
    with pytest.raises(UsageError, match=r"inputs=.*: give a list of input paths, not"):
        write_conversion(conversion, tmp_path, inputs=inputs)
    assert list(tmp_path.iterdir()) == []


def test_arguments_of_no_path_or_mapping_are_refused_naming_them(tmp_path, monkeypatch):
    """Reviewer 727: pathlib's and dict's TypeErrors named no argument; an empty folder
    name wrote into the current folder, which convert -o '' refuses."""
    monkeypatch.chdir(tmp_path)
    conversion = convert_msmarco(DATA / "convert" / "msmarco-run.tsv")
    with pytest.raises(UsageError, match=r"^inputs\[1\]=None: give a path \(text or os.Path"):
        write_conversion(conversion, tmp_path / "o", inputs=["x", None])
    for keyword in ("outdir", "runs_dir"):
        folders = {"outdir": tmp_path / "o", keyword: ""}
        with pytest.raises(UsageError, match=f"^{keyword}: an empty folder name: give the"):
            write_conversion(conversion, inputs=[], **folders)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(UsageError, match="^grades: give a mapping of exact, parent, child to a"):
        convert_hpo(HPO_CASES, graded="ontology", grades=[("child", 0)])
    with pytest.raises(UsageError, match=r"^results\[0\]=None: give a path"):
        convert_hpo(HPO_CASES, results=[None])
    with pytest.raises(UsageError, match="^ontology=5: give a path"):
        convert_hpo(HPO_CASES, graded="ontology", ontology=5)


def test_escaped_ids_are_text_and_their_escapes_utf_8():
    from trecbench.ids import escape_id, unescape_id

    with pytest.raises(UsageError, match="^escape_id: give an id as text, not an int"):
        escape_id(5)
    with pytest.raises(UsageError, match="^unescape_id: give an id as text, not None"):
        unescape_id(None)
    with pytest.raises(UsageError, match="^unescape_id: '%FF' is no id escape_id makes"):
        unescape_id("%FF")  # a UnicodeDecodeError
    assert unescape_id(escape_id("a b%41é")) == "a b%41é"


def test_a_tab_separated_file_of_lone_cr_line_ends_is_said_to_be_one(tmp_path):
    """BEIR's qrels with old Macs' line ends: 'found 7 fields', the cause unsaid."""
    from trecbench.errors import InputError

    path = tmp_path / "cr.tsv"
    path.write_bytes(b"query-id\tcorpus-id\tscore\rq1\td1\t1\rq2\td4\t2\r")
    with pytest.raises(InputError, match="found 7 .lines end in a lone CR here: only LF or CRLF"):
        convert_beir_qrels(path)


NAMED = {
    "msmarco": lambda name: convert_msmarco(DATA / "convert" / "msmarco-run.tsv", name=name),
    "dict": lambda name: convert_dict(DATA / "convert" / "bm25-results.json", name=name),
    "lists": lambda name: convert_lists(
        DATA / "convert" / "remem-chunks.json", match="chunks", name=name
    ),
    "hpo": lambda name: convert_hpo(DATA / "hpo-demo" / "cases.json", name=name),
    "beir": lambda name: convert_beir_qrels(DATA / "convert" / "beir-test.tsv", name=name),
    "codechunk": lambda name: convert_codechunk(DATA / "convert" / "none.json", name=name),
    "memorybench": lambda name: convert_memorybench(DATA / "convert" / "none.json", name=name),
}


@pytest.mark.parametrize("converter", sorted(NAMED))
@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("../x", r"^name='\.\./x' is not a plain file name"),
        ("", r"^name='' is not a plain file name"),
        ("a\nb", r"^name='a\\nb' is not a plain file name"),
        (5, r"^name must be text, not an int$"),
    ],
)
def test_a_name_the_command_line_refuses_is_refused_before_reading(converter, name, message):
    # a Conversion named "../x" was returned, refused by write_conversion alone (and 5
    # raised Python's TypeError there); the codechunk and memorybench inputs do not exist:
    # the name is refused before anything is read
    with pytest.raises(UsageError, match=message):
        NAMED[converter](name)


def test_a_tag_of_no_text_is_refused(capsys):
    with pytest.raises(UsageError, match=r"^tag must be text, not an int$"):
        convert_dict(DATA / "convert" / "bm25-results.json", tag=5)
    # convert_hpo's tags=[None] raised a TypeError once the files were read; the one of
    # several that is no text is named by its index (it was "tag must be text")
    with pytest.raises(UsageError, match=r"^tags\[1\]='a b' is not a run tag: "):
        convert_hpo(DATA / "hpo-demo" / "cases.json", ["a.jsonl", "b.jsonl"], tags=["ok", "a b"])
    # the command line's --tag, given once per result file, says its own flag
    from trecbench.cli import run

    results = DATA / "hpo-demo" / "results" / "tfidf-word" / "terms.jsonl"
    args = ["convert", "hpo", str(DATA / "hpo-demo" / "cases.json"), "--results", str(results)]
    assert run([*args, "--tag", "a b", "-o", "out"]) == 1
    assert capsys.readouterr().err.startswith("trecbench: --tag 'a b' is not a run tag: ")
    for tag, shown in ((None, "None"), (5, "an int")):
        with pytest.raises(UsageError, match=rf"^tags\[1\] must be text, not {shown}$"):
            convert_hpo(DATA / "hpo-demo" / "cases.json", ["a.jsonl", "b.jsonl"], tags=["ok", tag])


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"announce": 5}, "announce must be a function announce(paths) or None, not an int"),
        ({"outdir": 5}, "outdir=5: give a path (text or os.PathLike), not an int"),
        ({"runs_dir": 5}, "runs_dir=5: give a path (text or os.PathLike), not an int"),
        ({"conversion": 5}, "conversion: give a converter's result, not an int"),
    ],
)
def test_write_conversion_refuses_a_bad_argument_before_writing(tmp_path, arguments, said):
    """Reviewer 677: announce=5 raised TypeError once the files were in place (the call
    failed after writing); the others were pathlib's TypeError or an AttributeError."""
    given = {"conversion": CONVERTERS["msmarco"](None), "outdir": tmp_path / "out"}
    with pytest.raises(UsageError) as refused:
        write_conversion(**{**given, "inputs": [], **arguments})
    assert str(refused.value) == said
    assert not (tmp_path / "out").exists()


def test_convert_msmarco_refuses_a_path_of_no_path_as_the_other_converters():
    with pytest.raises(UsageError, match=r"^path=5: give a path \(text or os.PathLike\)"):
        convert_msmarco(5)
