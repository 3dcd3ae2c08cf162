"""Benchmark configurations that cannot explode or mislead (issue 25, item 4): YAML aliases
bounded by what they expand to, duplicate keys refused with both lines, non-finite numbers
refused, and error messages that quote only an excerpt of an offending value."""

from __future__ import annotations

import re

import pytest
import yaml

from trecbench.benchmarking import load_benchmark_config
from trecbench.errors import InputError, UsageError, excerpt, shortened
from trecbench.yaml_loader import MAX_EXPANDED, load_yaml

HEAD = "qrels: q\nmodes: {a: {run: r}}\n"
# six levels of nine aliases: 9**6 = 531,441 strings of 8 characters, from 330 bytes
LAUGHS = (
    HEAD
    + "meta:\n  a: &a ["
    + ",".join(['"xxxxxxxx"'] * 9)
    + "]\n"
    + "".join(
        f"  {name}: &{name} [{','.join([f'*{prev}'] * 9)}]\n"
        for prev, name in zip("abcde", "bcdef", strict=True)
    )
)


def _config(tmp_path, text: str, name: str = "c.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return load_benchmark_config(path)


def test_billion_laughs_is_refused_at_once_with_its_line(tmp_path):
    with pytest.raises(
        InputError, match=r"c\.yaml:\d+: not valid YAML: .*aliases expanded"
    ) as error:
        _config(tmp_path, LAUGHS)
    assert len(str(error.value)) < 500  # one line, not the expansion (a 6.5 MB message once)


def test_aliases_within_the_bound_are_read():
    text = "base: &b {k: 60}\nuse: [*b, *b]\nmerged: {<<: *b, depth: 10}\n"
    assert load_yaml(text) == {
        "base": {"k": 60},
        "use": [{"k": 60}, {"k": 60}],
        "merged": {"k": 60, "depth": 10},
    }


def test_a_merged_mapping_with_a_merge_of_its_own_is_read_as_written():
    # its keys were checked after the outer merge had flattened it: "duplicate key 'depth'"
    text = "a: &a {depth: 1}\nb: &b {<<: *a, depth: 2}\n<<: *b\n"
    expected = {"depth": 2, "a": {"depth": 1}, "b": {"depth": 2}}
    assert load_yaml(text, text_keys=True) == yaml.safe_load(text) == expected


@pytest.mark.parametrize(
    "text", ["c: {<<: {x: 1}, <<: {y: 2}}\n", "a: &a {x: 1}\nc:\n  <<: *a\n  <<: {x: 2}\n"]
)
def test_a_merge_key_given_twice_is_refused_at_its_line(text):
    # reviewer 228: the second `<<` was merged after the first, silently
    with pytest.raises(yaml.YAMLError) as raised:
        load_yaml(text)
    first = text.count("\n", 0, text.index("<<")) + 1
    second = text.count("\n", 0, text.rindex("<<")) + 1
    assert raised.value.problem == (
        f"merge key << given twice (first on line {first}): "
        "merge several mappings with one, as <<: [*a, *b]"
    )
    assert raised.value.problem_mark.line + 1 == second


@pytest.mark.parametrize("key", ["x", "long key"])
def test_merged_mappings_earlier_in_the_list_win(key):
    # the YAML merge key: "keys in mapping nodes earlier in the sequence override keys
    # specified in later mapping nodes"; PyYAML compared the ids of the keys' texts, so
    # `x` (one interned text) followed it and `long key` read 'second'
    text = f"b: &b {{{key}: first}}\nc: &c {{{key}: second}}\nm: {{<<: [*b, *c]}}\n"
    assert load_yaml(text)["m"] == {key: "first"}
    # a merged mapping's own key over the one it merged, as it reads itself
    text = f"a: &a {{{key}: 1, y: 1}}\nb: &b {{<<: *a, {key}: 2}}\nm: {{<<: [*b, *a]}}\n"
    assert load_yaml(text)["m"] == load_yaml(text)["b"] == {key: 2, "y": 1}


def test_merged_keys_one_in_json_are_refused_and_equal_ones_merged():
    with pytest.raises(yaml.YAMLError, match='keys 1 .* and "1" are one key in JSON'):
        load_yaml('m: {<<: [{1: a}, {"1": b}]}\n')
    assert load_yaml("m: {<<: [{1: a}, {1.0: b}], z: 0}\n") == {"m": {1: "a", "z": 0}}
    assert load_yaml("=: 1\n") == yaml.safe_load("=: 1\n") == {"=": 1}  # YAML's value key


def test_an_unreadable_tagged_value_in_a_configuration_is_refused_at_its_line(tmp_path):
    # `!!int ""`: PyYAML's IndexError, an internal error
    with pytest.raises(InputError, match=r"c\.yaml:3: not valid YAML: '' is not a valid !!int"):
        _config(tmp_path, HEAD + 'meta: {a: !!int ""}\n')


def test_the_bound_counts_the_expansion_not_the_document():
    # one long scalar repeated: few nodes, many characters
    long = "x" * 1000
    text = f"a: &a '{long}'\nb: [{', '.join(['*a'] * (MAX_EXPANDED // 1000 + 10))}]\n"
    assert len(text) < MAX_EXPANDED // 50
    with pytest.raises(Exception, match="aliases expanded"):
        load_yaml(text)


def test_a_node_containing_itself_is_refused():
    with pytest.raises(Exception, match="contains it"):
        load_yaml("a: &a {x: *a}\n")


@pytest.mark.parametrize("levels", [65, 3000])
def test_deep_nesting_is_refused_not_a_recursion_error(tmp_path, levels):
    with pytest.raises(InputError, match="nested deeper than 64 levels"):
        _config(tmp_path, HEAD + "meta: {a: " + "[" * levels + "]" * levels + "}\n")
    toml = f'qrels = "q"\nx = {"[" * levels}{"]" * levels}\n'
    with pytest.raises(InputError, match=r"c.toml:2: nested deeper than 64 levels"):
        _config(tmp_path, toml, "c.toml")  # at its line (brackets in strings, comments not)
    toml = f'qrels = "q"\n# [[[[\ns = "[[\\"[["\nx = [{"{a=" * levels}1{"}" * levels}]\n'
    with pytest.raises(InputError, match=r"c.toml:4: nested deeper than 64 levels"):
        _config(tmp_path, toml, "c.toml")
    # a header's dotted keys count: the value 5 deep under 60 keys, not the deeper one
    # under [z] (the line of most brackets was named)
    head = ".".join(f"k{i}" for i in range(60))
    toml = f'qrels = "q"\n[{head}]\nx = [[[[[1]]]]]\n[z]\ny = [[[[[[[[1]]]]]]]]\n'
    with pytest.raises(InputError, match=r"c.toml:3: nested deeper than 64 levels"):
        _config(tmp_path, toml, "c.toml")
    # a leaderboard suite's TOML too: it ended in an internal RecursionError (exit 70)
    from trecbench.runstudy.suite import load_suite

    suite = tmp_path / "suite.toml"
    suite.write_text(f"x = {'[' * levels}{']' * levels}\n")
    with pytest.raises(InputError, match="suite.toml:1: nested deeper than 64 levels"):
        load_suite(suite)


def test_a_byte_order_mark_before_a_toml_configuration_is_skipped(tmp_path):
    # Notepad's BOM made both refused: "Invalid statement (at line 1, column 1)"
    import dataclasses

    from conftest import ROOT

    from trecbench.runstudy.suite import load_suite

    for source, load in (
        (ROOT / "data" / "hpo-rtask" / "benchmark.toml", load_benchmark_config),
        (ROOT / "data" / "leaderboard.toml", load_suite),
    ):
        plain, marked = tmp_path / source.name, tmp_path / f"bom-{source.name}"
        plain.write_bytes(source.read_bytes())
        marked.write_bytes(b"\xef\xbb\xbf" + source.read_bytes())
        assert dataclasses.replace(load(marked), path=plain) == load(plain)


@pytest.mark.parametrize(
    ("command", "name", "data"),
    [
        ("leaderboard", "e.toml", b""),
        ("leaderboard", "e.toml", b"\xef\xbb\xbf\n  \n# a comment only\n"),
        ("benchmark", "e.toml", b""),
        ("benchmark", "e.toml", b"\t\n# nothing set\n"),
        ("benchmark", "e.yaml", b""),
        ("benchmark", "e.yml", b"---\n# nothing set\n...\n"),
    ],
)
def test_an_empty_configuration_is_an_empty_file_as_every_input_is(
    tmp_path, monkeypatch, capsys, command, name, data
):
    # it was a setting refused, exit 1: "(top level): 'collections' is a required
    # property" (leaderboard), "null is not of type 'object'" (benchmark, YAML)
    from trecbench.cli import run

    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_bytes(data)
    assert run([command, name, *(["-o", "out"] if command == "benchmark" else [])]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", f"trecbench: {name}: empty file\n")
    assert not (tmp_path / "out").exists()


def test_an_empty_configuration_read_from_a_pipe_is_an_empty_file(tmp_path):
    import subprocess
    import sys

    args = [sys.executable, "-m", "trecbench", "benchmark", "/dev/stdin", "-o", "out"]
    done = subprocess.run(args, input=b"# c\n", capture_output=True, cwd=tmp_path, check=False)
    assert (done.returncode, done.stderr) == (2, b"trecbench: /dev/stdin: empty file\n")


_LATIN1 = ":3: not UTF-8: invalid continuation byte"
_UTF16 = ": the file is UTF-16; save it as UTF-8"


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("c.yaml", HEAD.encode() + b"name: caf\xe9\n", _LATIN1),
        ("c.toml", b'qrels = "q"\n\n# caf\xe9\n', _LATIN1),
        ("c.yaml", HEAD.encode("utf-16"), _UTF16),
        ("c.toml", 'qrels = "q"\n'.encode("utf-16"), _UTF16),
    ],
    ids=["latin-1 yaml", "latin-1 toml", "utf-16 yaml", "utf-16 toml"],
)
def test_text_that_is_not_utf8_is_refused_as_every_reader_refuses_it(tmp_path, name, data, message):
    # Python's codec message was quoted, with a byte position: "not valid YAML: 'utf-8'
    # codec can't decode byte 0xe9 in position 51: invalid continuation byte"
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError) as refused:
        load_benchmark_config(path)
    assert str(refused.value) == f"{path}{message}"


@pytest.mark.parametrize(
    ("text", "line", "key"),
    [
        ("qrels: q\nmodes:\n  a: {run: x.run}\n  a: {run: y.run}\n", 4, "'a' (first on line 3)"),
        ("qrels: q\nmodes:\n  a:\n    run: x\n    run: y\n", 5, "'run' (first on line 4)"),
        ("qrels: q\nqrels: p\nmodes: {a: {run: r}}\n", 2, "'qrels' (first on line 1)"),
        # on one line too: it was read as {run: y}
        ("qrels: q\nmodes:\n  a: {run: x, run: y}\n", 3, "'run' (first on line 3)"),
        # given again through an alias: one node, read as {run: y} (PyYAML keeps no line
        # of the alias: both are the anchor's)
        (
            "qrels: q\nmodes:\n  a:\n    ? &r run\n    : x\n    *r : y\n",
            4,
            "'run' (first on line 4)",
        ),
    ],
)
def test_duplicate_keys_are_refused_with_both_lines(tmp_path, text, line, key):
    expected = re.escape(f"c.yaml:{line}: not valid YAML: duplicate key {key}")
    with pytest.raises(InputError, match=expected):
        _config(tmp_path, text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # U+2028 in a value: PyYAML counts it as a line break ("c.yaml:4:", of 3 lines)
        (
            'qrels: "q\u2028x"\nmodes: {a: {run: r}}\nqrels: p\n',
            "c.yaml:3: not valid YAML: duplicate key 'qrels' (first on line 1)",
        ),
        # a control character: no line, and PyYAML's 'in "<unicode string>"' on a 2nd line
        (
            "qrels: q\nmodes: {a: {run: \x07r}}\n",
            "c.yaml:2: not valid YAML: unacceptable character U+0007: special characters "
            "are not allowed",
        ),
    ],
)
def test_yaml_errors_name_the_line_counted_at_newlines_only(tmp_path, text, expected):
    with pytest.raises(InputError) as raised:
        _config(tmp_path, text)
    assert str(raised.value) == f"{tmp_path}/{expected}"


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        # "c.yaml:3: not valid YAML: found unexpected end of stream": a line past the
        # file's two, and no word of the quote left open on line 1
        ('qrels: "q\nmodes: {a: {run: r}}\n', 2,
         "while scanning a quoted scalar (line 1): found unexpected end of stream"),
        # "c.yaml:3: not valid YAML: but found another document"
        ("qrels: q\nmodes: {a: {run: r}}\n---\nqrels: x\n", 3,
         "expected a single document in the stream (line 1): but found another document"),
        ("qrels: q\nmodes:\n  a: [run, r\n  b: {run: s}\n", 4,
         "while parsing a flow sequence (line 3): expected ',' or ']', but got ':'"),
    ],
)  # fmt: skip
def test_a_yaml_syntax_error_says_what_was_left_open_and_where(tmp_path, text, line, expected):
    with pytest.raises(InputError) as raised:
        _config(tmp_path, text)
    assert str(raised.value) == f"{tmp_path / 'c.yaml'}:{line}: not valid YAML: {expected}"
    # the context and its line are PyYAML's own (no line break but \n in these texts)
    with pytest.raises(yaml.MarkedYAMLError) as pyyaml:
        list(yaml.safe_load_all(text)) if "---" not in text else yaml.safe_load(text)
    context_line = pyyaml.value.context_mark.line + 1
    assert f"{pyyaml.value.context} (line {context_line}): {pyyaml.value.problem}" == expected


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("[broken", 1),  # "not valid TOML: ... (at end of document)", no line at all
        ('qrels = "q"\n[modes.a]\nrun = "r', 3),
        ('qrels = "q"\nx = """open\n\n', 3),  # the last line ends: not a 4th line
    ],
)
def test_a_toml_error_at_the_end_of_the_file_is_on_its_last_line(tmp_path, text, line):
    from trecbench.runstudy.suite import load_suite

    for name, load, refused in (
        ("c.toml", load_benchmark_config, "not valid TOML"),
        ("suite.toml", load_suite, "not a valid TOML suite"),
    ):
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(InputError) as raised:
            load(path)
        assert str(raised.value).startswith(f"{path}:{line}: {refused}: ")
        assert str(raised.value).endswith("(at end of document)")


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"])
def test_non_finite_targets_are_refused_in_yaml(tmp_path, value):
    text = HEAD + f"targets: {{measures: {{nDCG@10: {{baseline: [0.1, 0.2], good: {value}}}}}}}\n"
    with pytest.raises(UsageError, match="targets.measures.nDCG@10.good: .* not a finite number"):
        _config(tmp_path, text)


def test_non_finite_numbers_are_refused_in_toml(tmp_path):
    text = 'qrels = "q"\n[modes.a]\nrun = "r"\n[modes.f]\nfuse = ["a"]\nk = inf\n'
    with pytest.raises(UsageError, match="modes.f.k: inf is not a finite number"):
        _config(tmp_path, text, "c.toml")


def test_a_yaml_integer_beyond_64_bits_is_refused_by_the_schema(tmp_path):
    # 1e20 written as an integer: an OverflowError in the completeness check (exit 70)
    with pytest.raises(
        UsageError,
        match=r"c\.yaml:3: completeness\.min_pool_depth: 100000000000000000000 is greater than "
        r"the maximum of 9223372036854775807$",
    ):
        _config(tmp_path, HEAD + "completeness: {min_pool_depth: 100000000000000000000}\n")


def test_a_target_without_a_strong_level_may_say_so_with_null(tmp_path):
    # the schema's "null: no such level" ended in a TypeError comparing it (exit 70)
    text = (
        HEAD + "targets: {measures: {nDCG@10: {baseline: [0.1, 0.2], good: 0.5, strong: null}}}\n"
    )
    target = _config(tmp_path, text).targets["nDCG@10"]
    assert (target.baseline, target.good, target.strong) == ((0.1, 0.2), 0.5, None)
    assert target.mark(0.9) == "good"


@pytest.mark.parametrize(
    "settings, named",
    [
        ("method: rrf", "method is a fusion's setting, but the mode is a run file (`run`): "
         "drop it,"),
        ("k: 3, tag: x", "k, tag are a fusion's settings, but the mode is a run file (`run`): "
         "drop them,"),
        ("norm: none", "norm is"), ("weights: [1]", "weights is"), ("depth: 5", "depth is"),
    ],
)  # fmt: skip
def test_a_run_mode_given_a_fusion_setting_is_refused_naming_it(tmp_path, settings, named):
    # "modes/a: {...} is not valid under any of the given schemas"; at the (first) setting
    # itself, not the mode's table
    key = settings.split(":")[0]
    block = "".join(f"    {setting}\n" for setting in settings.split(", "))
    with pytest.raises(UsageError, match=rf"c\.yaml:4: modes\.a\.{key}: {re.escape(named)}"):
        _config(tmp_path, f"qrels: q\nmodes:\n  a:\n{block}    run: r\n")


def test_the_fusion_settings_named_are_those_the_schema_refuses_beside_run():
    from trecbench.benchmarking.loading import FUSION_KEYS
    from trecbench.json_schemas import load_schema

    run_mode = load_schema("benchmark_config")["$defs"]["mode"]["oneOf"][0]
    refused = [one["required"][0] for one in run_mode["not"]["anyOf"]]
    assert refused == ["fuse", *FUSION_KEYS]


def test_schema_errors_quote_an_excerpt_of_a_long_value(tmp_path):
    text = HEAD + "name: ['" + "y" * 100_000 + "']\n"
    with pytest.raises(UsageError, match="characters") as caught:
        _config(tmp_path, text)
    assert len(str(caught.value)) < 500


def test_excerpt_and_shortened():
    assert excerpt("ab") == "'ab'"
    long = excerpt("z" * 10_000)
    assert len(long) < 120 and "…(10,000 characters)…" in long  # its own, not its quotes
    assert shortened("x" * 10) == "x" * 10


def test_a_long_duplicate_key_is_quoted_as_an_excerpt(tmp_path):
    from trecbench.sources import read_json

    key = "k" * 10_000
    path = tmp_path / "d.json"
    path.write_text(f'{{"{key}": 1, "{key}": 2}}')
    with pytest.raises(InputError, match="duplicate key") as caught:
        read_json(path, "run dict")
    assert len(str(caught.value)) < 300
    with pytest.raises(InputError, match="duplicate key") as caught:
        _config(tmp_path, f"? {key}\n: 1\n? {key}\n: 2\n")  # explicit keys: no length limit
    assert len(str(caught.value)) < 300


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # "modes/a: {'label': 'X'} is not valid under any of the given schemas"
        ("qrels: q\nmodes:\n  a: {label: X}\n", "modes.a: give `run` (a run file) or `fuse`"),
        ("qrels: q\nmodes:\n  a: {run: r, fuse: [b]}\n", "one of them: both are given"),
        # "datetime.date(2024, 1, 1) is not of type 'string'"
        ("qrels: q\nname: 2024-01-01\nmodes: {a: {run: r}}\n", "name: 2024-01-01 is not of"),
    ],
)
def test_configuration_errors_say_what_is_wrong_in_its_words(tmp_path, text, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        _config(tmp_path, text)


def test_a_long_measure_name_is_quoted_short(tmp_path):
    text = f"qrels: q\nmeasures: [{'q' * 3000}]\nmodes: {{a: {{run: r}}}}\n"
    refused = r"measures\[0\]: illegal measure .*3,0\d\d characters"
    with pytest.raises(UsageError, match=refused) as e:
        _config(tmp_path, text)
    assert len(str(e.value)) < 400 + len(str(tmp_path))  # a 3,105-character line before


@pytest.mark.parametrize(
    ("command", "name", "text", "shown"),
    [
        ("benchmark", "b.toml", 'qrels = "q"\n[modes.a]\nrun = "a\\u0000.run"\n',
         r':3: modes.a.run: "a\u0000.run"'),
        ("benchmark", "b.yaml", 'qrels: q\nmodes: {a: {run: r}}\noutput: "o\\0ut"\n',
         r':3: output: "o\u0000ut"'),
        ("benchmark", "b.toml", 'qrels = "q"\n[modes.a]\nrun = "r"\n[strata]\n'
         'sidecar = "s\\u0000"\ngroup_by = "g"\n', r':5: strata.sidecar: "s\u0000"'),
        ("leaderboard", "s.toml", '[collections.c]\nqrels = "q\\u0000"\nruns = {a = "a"}\n',
         r':2: collections.c.qrels: "q\u0000"'),
        ("leaderboard", "s.toml", 'systems = ["a", "b\\u0000"]\n[collections.c]\nqrels = "q"\n'
         'runs = "{system}.run"\n', r':4: collections.c.runs: "b\u0000.run"'),
    ],
)  # fmt: skip
def test_a_nul_byte_in_a_configured_path_is_refused_naming_the_key(
    command, name, text, shown, tmp_path, capsys
):
    # it was exit 70 (ValueError: embedded null byte) where the path was first used
    from trecbench.cli import run

    config = tmp_path / name
    config.write_text(text)
    assert run([command, str(config)]) == 1
    error = capsys.readouterr().err
    assert error == f"trecbench: {config}{shown} holds a NUL byte: no path can\n"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ('qrels = true\n[modes.a]\nrun = "r"\n', ":1: qrels: true is not of type 'string'"),
        ("qrels: null\nmodes: {a: {run: r}}\n", ":1: qrels: null is not of type 'string'"),
        ('qrels = "q"\n[modes.a]\nrun = "r"\nlabel = {a = false}\n',
         ':4: modes.a.label: {"a": false} is not of type'),
        ('qrels: q\nmodes: {a: {run: r}}\nstatistics: {test: "False"}\n',
         ":3: statistics.test: \"False\" is not one of"),
        ('qrels = "q"\n[modes.a]\nrun = "r"\n[validation]\nprofile = "' + "p" * 300 + '"\n',
         ':5: validation.profile: "' + "p" * 40 + "…(300 characters)…" + "p" * 40 + '" is not'),
    ],
    ids=["toml true", "yaml null", "table", "text", "long text"],
)  # fmt: skip
def test_a_value_the_schema_refuses_is_quoted_as_the_configuration_spells_it(tmp_path, text, shown):
    # Python's spellings: True, None, {'a': False}, 'False'
    name = "c.toml" if " = " in text else "c.yaml"
    with pytest.raises(UsageError) as refused:
        _config(tmp_path, text, name)
    assert str(refused.value).startswith(f"{tmp_path / name}{shown}")


@pytest.mark.parametrize("written", ["1.0e-400", "-2.5E-400", "1.0e-999"])
@pytest.mark.parametrize("key", ["statistics.confidence", "completeness.max_unjudged"])
@pytest.mark.parametrize("name", ["c.toml", "c.yaml"])
def test_a_number_below_a_double_is_said_to_underflow(tmp_path, name, key, written):
    # 1e-400 was quoted as 0.0 ("0.0 is less than the minimum of 1e-12"), or taken as 0
    # where 0 is allowed (max_unjudged), without a word
    section, setting = key.split(".")
    text = (
        f"qrels = 'q'\n[modes.a]\nrun = 'r'\n[{section}]\n{setting} = {written}\n"
        if name == "c.toml"
        else f"qrels: q\nmodes: {{a: {{run: r}}}}\n{section}: {{{setting}: {written}}}\n"
    )
    with pytest.raises(UsageError) as refused:
        _config(tmp_path, text, name)
    line = 5 if name == "c.toml" else 3
    said = f"{tmp_path / name}:{line}: {key}: {written} underflows a double (reads as 0)"
    assert str(refused.value) == said
    if name == "c.yaml":  # without a dot: text to YAML 1.1, which was told to write 0.0
        with pytest.raises(UsageError) as refused:
            _config(tmp_path, text.replace(written, "1e-400"), name)
        assert str(refused.value).endswith(f"{key}: 1e-400 underflows a double (reads as 0)")
    if setting == "max_unjudged":  # where 0 is allowed, a zero written so is 0
        zero = _config(tmp_path, text.replace(written, "0.0e-400"), name)
        assert zero.completeness.max_unjudged == 0


@pytest.mark.parametrize(
    ("name", "k", "shown"),
    [
        ("c.toml", "1e400", "modes.f.k: 1e400 overflows a double"),
        ("c.toml", "1_0e400", "modes.f.k: 1_0e400 overflows a double"),
        # before the schema's bound: it was "1e400 is greater than the maximum of 1" where
        # the schema bounds the setting above (completeness.max_unjudged: below)
        ("c.toml", "-1e400", "modes.f.k: -1e400 overflows a double"),
        ("c.toml", "inf", "modes.f.k: inf is not a finite number"),
        ("c.yaml", "1.0e+400", "modes.f.k: 1.0e+400 overflows a double"),
        ("c.yaml", "1e400", "modes.f.k: 1e400 overflows a double"),  # YAML 1.1 reads text
        ("c.yaml", ".inf", "modes.f.k: .inf is not a finite number"),  # as written
    ],
)
def test_a_number_beyond_a_double_is_said_to_overflow(tmp_path, name, k, shown):
    # 1e400 was "inf is not a finite number": no infinity was written
    if name.endswith(".toml"):
        text = f'qrels = "q"\n[modes.a]\nrun = "r"\n[modes.f]\nfuse = ["a"]\nk = {k}\n'
    else:
        text = f"qrels: q\nmodes: {{a: {{run: r}}, f: {{fuse: [a], k: {k}}}}}\n"
    with pytest.raises(UsageError) as refused:
        _config(tmp_path, text, name)
    line = 6 if name.endswith(".toml") else 2
    assert str(refused.value) == f"{tmp_path / name}:{line}: {shown}"
    bounded = f"qrels = 'q'\n[modes.a]\nrun = 'r'\n[completeness]\nmax_unjudged = {k}\n"
    if name.endswith(".toml") and "e400" in k:  # in TOML as in YAML
        with pytest.raises(UsageError) as refused:
            _config(tmp_path, bounded, name)
        said = f"{tmp_path / name}:5: completeness.max_unjudged: {k} overflows a double"
        assert str(refused.value) == said


@pytest.mark.parametrize(
    ("setting", "shown"),
    [
        ("statistics: {confidence: 9e-1}", "statistics.confidence: 9e-1 is read as text by "
         "YAML 1.1; write 9.0e-1 or 0.9"),
        ("statistics: {samples: 1E4}", "statistics.samples: 1E4 is read as text by YAML 1.1; "
         "write 10000"),
        # no number to suggest where an integer is expected (0.5 is refused too)
        ("statistics: {samples: 5e-1}", "statistics.samples: 5e-1 is not an integer"),
        # as written, not as the double: 1e-400 is no 0, 1.00000000000000001e1 no 10
        ("statistics: {samples: 1e-400}", "statistics.samples: 1e-400 is not an integer"),
        ("statistics: {samples: 1.00000000000000001e1}",
         "statistics.samples: 1.00000000000000001e1 is not an integer"),
        ("completeness: {max_unjudged: .5e0}", "completeness.max_unjudged: .5e0 is read as "
         "text by YAML 1.1; write 0.5e+0 or 0.5"),
        ("completeness: {max_unjudged: -1.e5}", "completeness.max_unjudged: -1.e5 is read as "
         "text by YAML 1.1; write -1.0e+5 or -100000.0"),
        ("completeness: {max_unjudged: 1e-20}", "completeness.max_unjudged: 1e-20 is read as "
         "text by YAML 1.1; write 1.0e-20"),
    ],
)  # fmt: skip
def test_a_yaml_12_number_read_as_text_is_said_so(tmp_path, setting, shown):
    # it was quoted as text, '"9e-1" is not of type 'number'', as if the file said "9e-1"
    with pytest.raises(UsageError) as refused:
        _config(tmp_path, f"{HEAD}{setting}\n")
    assert str(refused.value) == f"{tmp_path / 'c.yaml'}:3: {shown}"  # after HEAD's 2


@pytest.mark.parametrize(
    "setting",
    ["name: !!binary aGVsbG8=", "name: [!!binary aGk=]", "meta: {a: !!set {x}}", "name: !!set {a}"],
)
def test_a_yaml_binary_or_set_value_is_refused_at_its_line(tmp_path, setting):
    # it was quoted as Python's text in JSON's quotes, "b'hello'" is not of type 'string',
    # as if a string were no string, and within a list too (helper-593, helper-600)
    kind = "binary" if "binary" in setting else "set"
    with pytest.raises(InputError) as refused:
        _config(tmp_path, f"{HEAD}{setting}\n")
    assert str(refused.value) == (
        f"{tmp_path / 'c.yaml'}:3: not valid YAML: a !!{kind} value: a setting is text, a "
        "number, a boolean, a list or a table"
    )


def test_a_yaml_12_number_is_text_where_text_is_taken(tmp_path):
    settings = _config(tmp_path, "qrels: q\nmodes: {a: {run: r, label: 1e5}}\nmeta: {v: 2e3}\n")
    assert settings.mode("a").label == "1e5" and settings.meta == {"v": "2e3"}
    # quoted, it is text as written: no hint
    with pytest.raises(UsageError, match=r"statistics.seed: \"1e5\" is not of type 'integer'"):
        _config(tmp_path, 'qrels: q\nmodes: {a: {run: r}}\nstatistics: {seed: "1e5"}\n')


# plain scalars YAML 1.1 (PyYAML) reads as a number or a boolean and YAML 1.2's core
# schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution) otherwise, each reading by
# hand: the octal 8 and the decimal 10, base 60 (1*60+40), binary, underscores, a signed
# hex number (1.2's hex has no sign), the booleans 1.2 does not know
_READ_OTHERWISE = [
    ("010", "8 by YAML 1.1 and as 10 by YAML 1.2: write 8 or 10"),
    ("1:40", "100 by YAML 1.1 and as text by YAML 1.2: write 100"),
    ("1:00", "60 by YAML 1.1 and as text by YAML 1.2: write 60"),
    ("0b101", "5 by YAML 1.1 and as text by YAML 1.2: write 5"),
    ("1_0", "10 by YAML 1.1 and as text by YAML 1.2: write 10"),
    ("-0x10", "-16 by YAML 1.1 and as text by YAML 1.2: write -16"),
    ("1_0.5", "10.5 by YAML 1.1 and as text by YAML 1.2: write 10.5"),
    ("1:30.5", "90.5 by YAML 1.1 and as text by YAML 1.2: write 90.5"),
    ("yes", "true by YAML 1.1 and as text by YAML 1.2: write true"),
    ("Off", "false by YAML 1.1 and as text by YAML 1.2: write false"),
]


@pytest.mark.parametrize(("value", "readings"), _READ_OTHERWISE)
@pytest.mark.parametrize(
    "where",
    [
        "statistics: {{seed: {}}}",
        "statistics: {{samples: {}}}",
        "modes: {{a: {{run: r, label: {}}}}}",
        "modes: {{a: {{run: r}}, f: {{fuse: [a], weights: [1, {}]}}}}",
        "meta: {{model: {}}}",
    ],
)
def test_a_yaml_11_value_yaml_12_reads_otherwise_is_refused_at_its_line(
    tmp_path, value, readings, where
):
    # statistics: {seed: 010, samples: 1:40} ran with seed 8 and 100 samples; a label 010
    # was refused as "8 is not of type 'string'", 1:00 as 60, yes as true
    text = f"qrels: q\nmodes: {{a: {{run: r}}}}\n{where.format(value)}\n"
    if where.startswith("modes"):
        text = f"qrels: q\n{where.format(value)}\n"
    line = text.count("\n")
    with pytest.raises(InputError) as refused:
        _config(tmp_path, text)
    assert str(refused.value) == (
        f"{tmp_path / 'c.yaml'}:{line}: ambiguous YAML: {value} is read as {readings}, or "
        "quote it to keep it as text"
    )


@pytest.mark.parametrize("value", [value for value, _ in _READ_OTHERWISE])
def test_a_quoted_value_is_read_as_written_a_tagged_one_refused_alike(tmp_path, value):
    settings = _config(tmp_path, f"qrels: q\nmodes: {{a: {{run: r, label: '{value}'}}}}\n")
    assert settings.mode("a").label == value
    # a tag does not say which YAML reads it: 1.1 reads `!!int 010` as 8, 1.2 as 10; it
    # was taken as 8 (reviewer 264)
    with pytest.raises(InputError, match=r"010 is read as 8 by YAML 1\.1 and as 10 by YAML"):
        _config(tmp_path, f"{HEAD}statistics: {{seed: !!int 010}}\n")


@pytest.mark.parametrize(
    ("value", "seed"),
    # one number to YAML 1.1 and 1.2 (JSON reads none of them; TOML reads 0x10 as 16)
    [("0x10", 16), ("007", 7), ("+1", 1), ("00", 0), ("-0", 0)],
)
def test_a_number_both_yaml_versions_read_alike_is_taken_and_quoted_as_written(
    tmp_path, value, seed
):
    assert _config(tmp_path, f"{HEAD}statistics: {{seed: {value}}}\n").statistics.seed == seed
    # a label 0x10 was refused as "16 is not of type 'string'"
    with pytest.raises(UsageError) as refused:
        _config(tmp_path, f"qrels: q\nmodes: {{a: {{run: r, label: {value}}}}}\n")
    assert str(refused.value) == (
        f"{tmp_path / 'c.yaml'}:2: modes.a.label: {value} is not of type 'string'"
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    # text to YAML 1.1, numbers to YAML 1.2: a leading zero before 8 or 9, its octal, a
    # signed fraction without a digit before the dot
    [("08", "write 8"), ("0o17", "write 15"), ("-.5", "write -0.5"), ("+.5", "write 0.5")],
)
def test_another_yaml_12_number_read_as_text_is_said_so(tmp_path, value, shown):
    # it was '"08" is not of type 'number'', as if the file said "08"
    with pytest.raises(UsageError) as refused:
        _config(tmp_path, f"{HEAD}completeness: {{max_unjudged: {value}}}\n")
    assert str(refused.value) == (
        f"{tmp_path / 'c.yaml'}:3: completeness.max_unjudged: {value} is read as text by "
        f"YAML 1.1; {shown}"
    )
    # where text is taken, text as written
    settings = _config(tmp_path, f"qrels: q\nmodes: {{a: {{run: r, label: {value}}}}}\n")
    assert settings.mode("a").label == value


def test_an_unknown_stratum_is_quoted_short(tmp_path):
    from conftest import ROOT

    from trecbench.benchmarking import run_benchmark

    (tmp_path / "q").write_text("q1 0 d1 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 1 t\n")
    sidecar = ROOT / "qrels" / "hpo-demo.sidecar.json"
    text = f'qrels = "q"\n[modes.a]\nrun = "r"\n[strata]\nsidecar = "{sidecar}"\n'
    settings = _config(tmp_path, text + f'group_by = "{"g" * 3000}"\n', "c.toml")
    with pytest.raises(UsageError) as refused:  # the 3,000 characters, all of them
        run_benchmark(settings)
    assert "unknown stratum 'gggg" in str(refused.value)
    assert "…(3,000 characters)…" in str(refused.value) and len(str(refused.value)) < 400


TOML_LINES = """\
# weights of the fusion below
qrels = "q"
[modes.hybrid]
run = "weights.run"
[modes.h]
fuse = ["a",
  "b"]
weights = [
  1,
  2,
]
[targets.measures."ndcg_cut.10"]
good = 0.5
[modes.d]
fuse.method = "rrf"
"""


@pytest.mark.parametrize(
    ("keys", "line"),
    [
        (("qrels",), 2),
        (("modes",), 3),  # where the table first appears
        (("modes", "h"), 5),
        (("modes", "h", "fuse"), 6),
        (("modes", "h", "weights"), 8),  # after a comment and a value naming it
        (("modes", "h", "weights", 0), 9),  # an item: its own line in a list of several
        (("modes", "h", "weights", 1), 10),
        (("modes", "h", "fuse", 1), 7),
        (("targets", "measures", "ndcg_cut.10", "good"), 13),
        (("modes", "d", "fuse", "method"), 15),  # a dotted key
        (("modes", "h", "k"), None),  # not written: a default
        (("statistics",), None),
    ],
)
def test_a_toml_keys_line_is_where_the_file_writes_it(keys, line):
    # counted by hand in TOML_LINES
    from trecbench.toml_loader import toml_key_line

    assert toml_key_line(TOML_LINES, keys) == line


YAML_LINES = """\
base: &base {method: rrf, k: 60}
qrels: q
modes:
  h:
    fuse:
      - a
      - b
    weights: [1,
      2]
  g: {<<: *base, fuse: [a]}
"""


@pytest.mark.parametrize(
    ("keys", "line"),
    [
        (("qrels",), 2),
        (("modes", "h"), 4),
        (("modes", "h", "fuse", 1), 7),  # an item: where it starts
        (("modes", "h", "weights", 1), 9),
        (("modes", "g", "fuse"), 10),
        (("modes", "g", "k"), 1),  # merged: where its mapping writes it
        (("modes", "h", "k"), None),
        (("modes", "h", "fuse", 5), None),
    ],
)
def test_a_yaml_keys_line_is_where_the_file_writes_it(keys, line):
    from trecbench.yaml_loader import key_line

    assert key_line(YAML_LINES, keys) == line


def test_config_errors_name_a_key_dotted_at_its_line(tmp_path):
    # "modes/h/weights/1" beside "modes.h:", and no line
    text = 'qrels = "q"\n[modes.a]\nrun = "r"\n[modes.h]\nfuse = ["a"]\nweights = [\n1,\n"x"]\n'
    with pytest.raises(UsageError) as refused:
        _config(tmp_path, text, "c.toml")
    assert str(refused.value) == (
        f"{tmp_path / 'c.toml'}:8: modes.h.weights[1]: \"x\" is not of type 'number'"
    )
    yaml_text = "qrels: q\nmodes:\n  a: {run: r}\n  h:\n    fuse: [a]\n    weights: [1, x]\n"
    with pytest.raises(UsageError) as refused:
        _config(tmp_path, yaml_text)
    assert str(refused.value) == (
        f"{tmp_path / 'c.yaml'}:6: modes.h.weights[1]: \"x\" is not of type 'number'"
    )


def test_a_key_written_with_escapes_is_named_without_a_line():
    # tomllib reads "w\u0065ights" as weights: no line holds the name, none is guessed
    from trecbench.toml_loader import toml_key_line

    text = 'qrels = "q"\n[modes.h]\n"w\\u0065ights" = [1]\nx = "weights"\n'
    assert toml_key_line(text, ("modes", "h", "weights")) is None


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("hello\n", "c.yaml:1: (top level): \"hello\" is not of type 'object'"),
        ("# a list\n---\n- qrels\n", 'c.yaml:3: (top level): ["qrels"] is not of type'),
        ("\n[q, r]\n", 'c.yaml:2: (top level): ["q", "r"] is not of type'),
    ],
)
def test_a_yaml_document_that_is_no_mapping_is_refused_at_its_line(tmp_path, text, said):
    # "c.yaml: (top level): ...": the one refusal of a setting said without a line
    with pytest.raises(UsageError) as caught:
        _config(tmp_path, text)
    assert str(caught.value).replace(f"{tmp_path}/", "").startswith(said)
