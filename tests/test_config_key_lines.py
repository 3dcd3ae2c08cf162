"""Benchmark configuration refusals checked after the schema (and a mode's name the schema
refuses) cite the refused key at the line the file writes it, not its table's or section's
line under the table's key (docs/benchmark.md: a refusal names the key at its line)."""

from __future__ import annotations

import pytest

from trecbench.benchmarking import load_benchmark_config
from trecbench.errors import UsageError

TOML_HEAD = 'qrels = "q"\n[modes.a]\nrun = "a.run"\n[modes.b]\nrun = "b.run"\n'
YAML_HEAD = "qrels: q\nmodes:\n  a: {run: a.run}\n  b: {run: b.run}\n"


def _refusal(tmp_path, text: str, name: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(UsageError) as refused:
        load_benchmark_config(path)
    return str(refused.value).removeprefix(f"{tmp_path}/")


PATTERN = "does not match '^[A-Za-z0-9_.-]{1,25}$'"


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        (
            TOML_HEAD + "[modes.abcdefghijklmnopqrstuvwxyz]\nrun = 'c.run'\n",
            "c.toml",
            f'c.toml:6: modes.abcdefghijklmnopqrstuvwxyz: "abcdefghijklmnopqrstuvwxyz" {PATTERN}',
        ),
        (
            TOML_HEAD + "[modes.\"a b\"]\nrun = 'c.run'\n",
            "c.toml",
            f'c.toml:6: modes."a b": "a b" {PATTERN}',
        ),
        (
            YAML_HEAD + '  "x y":\n    run: c.run\n',
            "c.yaml",
            f'c.yaml:5: modes."x y": "x y" {PATTERN}',
        ),
    ],
)
def test_a_bad_mode_name_is_cited_at_its_own_table(tmp_path, text, name, expected):
    assert _refusal(tmp_path, text, name) == expected


FUSED = TOML_HEAD + '[modes.h]\nfuse = ["a", "b"]\n'
FUSED_YAML = YAML_HEAD + "  h:\n    fuse: [a, b]\n"


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        (
            FUSED + 'method = "combsum"\nweights = [0, 0]\n',
            "c.toml",
            "c.toml:9: modes.h.weights: the weights are all 0: every fused score would be 0",
        ),
        (
            FUSED + 'norm = "z-score"\n',
            "c.toml",
            "c.toml:8: modes.h.norm: rrf fuses ranks: a score normalisation (z-score) does "
            "not apply",
        ),
        (
            FUSED + "weights = [1, 2, 3]\nk = 1\n",
            "c.toml",
            "c.toml:8: modes.h.weights: 3 weights for 2 runs: give one per run",
        ),
        (
            FUSED_YAML + "    method: combsum\n    k: 60\n",
            "c.yaml",
            "c.yaml:8: modes.h.k: combsum has no k (it is RRF's constant)",
        ),
    ],
)
def test_a_fusion_setting_is_cited_at_its_own_line(tmp_path, text, name, expected):
    assert _refusal(tmp_path, text, name) == expected


TOO_FEW = (
    "resamples are too few for a {} percentile interval (alpha = {}): each tail of alpha/2 "
    "must hold a resample, so it needs 2/alpha = {} or more"
)


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        (
            TOML_HEAD + "[statistics]\nsamples = 10\n",
            "c.toml",
            "c.toml:7: statistics.samples: 10 " + TOO_FEW.format("95%", "0.05", "40"),
        ),
        # spelt as written, not as 16, 8 or 10 (helper-593): YAML keeps the text, TOML's
        # is the rest of the key's line
        (
            TOML_HEAD + "[statistics]\nsamples = 0x10  # hex\n",
            "c.toml",
            "c.toml:7: statistics.samples: 0x10 " + TOO_FEW.format("95%", "0.05", "40"),
        ),
        (
            "statistics.samples = 1_0\n" + TOML_HEAD,
            "c.toml",
            "c.toml:1: statistics.samples: 1_0 " + TOO_FEW.format("95%", "0.05", "40"),
        ),
        (
            YAML_HEAD + "statistics: {samples: 0x10}\n",
            "c.yaml",
            "c.yaml:5: statistics.samples: 0x10 " + TOO_FEW.format("95%", "0.05", "40"),
        ),
        (  # the default samples: the confidence needing more is the key refused
            YAML_HEAD + "statistics:\n  test: t\n  confidence: 0.9999\n",
            "c.yaml",
            "c.yaml:7: statistics.confidence: 10,000 "
            + TOO_FEW.format("99.99%", "0.0001", "20,000"),
        ),
        (
            "qrels: q\nstatistics: {seed: -1}\nmodes: {a: {run: a.run}}\n",
            "c.yaml",
            "c.yaml:2: statistics.seed: -1 is less than the minimum of 0",
        ),
        (
            TOML_HEAD + "[statistics]\ntest = 't'\nseed = -1\n",
            "c.toml",
            "c.toml:8: statistics.seed: -1 is less than the minimum of 0",
        ),
        # beyond what the schema bounds: at the [statistics] table's line, without the key
        (
            TOML_HEAD + "[statistics]\ntest = 't'\nseed = 1" + "0" * 100 + "\n",
            "c.toml",
            "c.toml:8: statistics.seed: seed must be an integer of at most 100 digits, not a "
            "longer one",
        ),
        (
            YAML_HEAD + "statistics:\n  test: t\n  seed: 1" + "0" * 100 + "\n",
            "c.yaml",
            "c.yaml:7: statistics.seed: seed must be an integer of at most 100 digits, not a "
            "longer one",
        ),
    ],
)
def test_a_statistics_setting_is_cited_at_its_own_line(tmp_path, text, name, expected):
    assert _refusal(tmp_path, text, name) == expected


@pytest.mark.parametrize(
    ("text", "line", "key"),
    [
        ('qrels = "q"\nqrels = "x"\n[modes.a]\nrun = "a.run"\n', 2, "'qrels' (first on line 1)"),
        # tomllib says "(at end of document)" when the last line has no newline
        ('[modes.a]\nrun = "a.run"\n\nrun = "b.run"', 4, "'run' (first on line 2)"),
        (TOML_HEAD + '[modes.a]\nlabel = "A"\n', 6, "'a' (first on line 2)"),
        ('[modes]\na.run = "a.run"\na.run = "b.run"\n', 3, "'run' (first on line 2)"),
    ],
)
def test_a_toml_key_given_twice_is_named_with_its_first_line_as_in_yaml(tmp_path, text, line, key):
    from trecbench.errors import InputError

    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(InputError) as refused:
        load_benchmark_config(path)
    assert str(refused.value) == f"{path}:{line}: not valid TOML: duplicate key {key}"


COMPLETE = "an inline table ({...}) is complete where it is written"


@pytest.mark.parametrize(
    ("text", "name", "said"),
    [
        # tomllib's "Cannot mutate immutable namespace ('lex',)"
        (
            'qrels = "q"\nmodes = {lex = {run = "a.run"}, lex = {run = "b.run"}}\n',
            "c.toml",
            "c.toml:2: not valid TOML: 'lex' is written again or added to an inline table: "
            f"{COMPLETE} (column 54)",
        ),
        (
            'qrels = "q"\nmodes = {lex = {run = "a.run"}}\nmodes.lex.label = "L"\n',
            "c.toml",
            "c.toml:3: not valid TOML: 'modes.lex' is written again or added to an inline "
            f"table: {COMPLETE} (column 22)",
        ),
        (  # tomllib's "Cannot declare ('modes', 'b') twice": it is declared once
            'qrels = "q"\nmodes = {a = {run = "a.run"}}\n[modes.b]\nrun = "b.run"\n',
            "c.toml",
            "c.toml:3: not valid TOML: table 'modes.b' is declared twice, or inside an "
            f"inline table: {COMPLETE} (column 9)",
        ),
        # a list as a key: PyYAML's nodes were shown ("key [ScalarNode(tag=...")
        (
            YAML_HEAD + "? [a, b]\n: c\n",
            "c.yaml",
            "c.yaml:5: not valid YAML: key ['a', 'b'] is a list, not a name: give a name "
            "(text) as the key",
        ),
        (
            YAML_HEAD + "? {a: 1}\n: c\n",
            "c.yaml",
            "c.yaml:5: not valid YAML: key {'a': 1} is a table, not a name: give a name "
            "(text) as the key",
        ),
    ],
)
def test_a_key_no_configuration_can_hold_is_said_in_words(tmp_path, text, name, said):
    from trecbench.errors import InputError

    (tmp_path / name).write_text(text)
    with pytest.raises(InputError) as refused:
        load_benchmark_config(tmp_path / name)
    assert str(refused.value) == f"{tmp_path}/{said}"


def _first_finding(folder, settings: str, files: dict[str, str]) -> str:
    """The first line of the refusal of a benchmark of modes a and b (``a.run``,
    ``b.run``) over ``q.qrels`` with the configuration's ``settings``, its ``files``
    written in ``folder``."""
    from trecbench.benchmarking import InvalidRuns, run_benchmark

    for name, text in files.items():
        (folder / name).write_text(text)
    path = folder / "c.toml"
    modes = '[modes.a]\nrun = "a.run"\n[modes.b]\nrun = "b.run"\n'
    path.write_text(f'qrels = "q.qrels"\n{settings}' + modes)
    with pytest.raises(InvalidRuns) as refused:
        run_benchmark(load_benchmark_config(path))
    return str(refused.value).splitlines()[0]


def test_r8_names_the_configurations_max_depth_not_validates_flag(tmp_path):
    found = _first_finding(tmp_path, "[validation]\nmax_depth = 2\n", {
        "q.qrels": "t1 0 A 1\n",
        "a.run": "t1 Q0 A 1 3 a\nt1 Q0 B 2 2 a\nt1 Q0 C 3 1 a\n",
        "b.run": "t1 Q0 A 1 2 b\n",
    })  # fmt: skip
    assert found == (
        f"{tmp_path / 'a.run'}:3:docno: error[R8]: topic t1 has more than 2 documents "
        "(validation.max_depth 2); trec_eval scores them all unless run with -M2"
    )


def test_r4_and_r5_name_the_configurations_topics_not_validates_flag(tmp_path):
    """benchmark has no --topics: its findings named validate's flag for the file its
    topics key names."""
    from trecbench.validation import wording

    found = _first_finding(tmp_path, 'topics = "topics.txt"\n', {
        "q.qrels": "t1 0 A 1\nt2 0 A 1\n",
        "topics.txt": "t1\n",
        "a.run": "t1 Q0 A 1 3 a\nt2 Q0 A 1 2 a\n",
        "b.run": "t1 Q0 A 1 2 b\n",
    })  # fmt: skip
    assert found == (
        f"{tmp_path / 'a.run'}:2:qid: error[R4]: topic 't2' is not in topics "
        f"({tmp_path / 'topics.txt'})"
    )
    r5 = "topic '7' of --topics has no document in the run (did you mean '07'?): when ..."
    assert wording.topics_renamed(r5, "topics (t.txt)") == (
        "topic '7' of topics (t.txt) has no document in the run (did you mean '07'?): when ..."
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            TOML_HEAD + "[statistics]\ntest = 't'\nbaseline = 'c'\n",
            "c.toml:8: statistics.baseline: 'c' is not a mode",
        ),
        (
            FUSED + "depth = 200\n[validation]\nmax_depth = 50\n",
            "c.toml:8: modes.h.depth: the fusion is 200 deep, beyond validation.max_depth 50: "
            "its run would fail R8; give a depth of at most 50",
        ),
        (
            TOML_HEAD + '[modes.h]\nfuse = ["a", "x"]\n',
            "c.toml:7: modes.h.fuse: mode 'h' refers to unknown mode 'x'",
        ),
        (
            TOML_HEAD + '[modes.h]\nfuse = ["a", "a"]\n',
            "c.toml:7: modes.h.fuse: mode 'h' fuses 'a' twice",
        ),
        (
            TOML_HEAD + '[modes.c]\nrun = "c.run"\nreranks = "c"\n',
            "c.toml:8: modes.c.reranks: mode 'c' refers to itself",
        ),
        (
            TOML_HEAD + '[modes.c]\nrun = "c.run"\nreranks = ""\n',
            "c.toml:8: modes.c.reranks: mode 'c' refers to unknown mode ''",
        ),
    ],
)
def test_a_setting_checked_once_built_is_cited_at_its_line(tmp_path, text, expected):
    assert _refusal(tmp_path, text, "c.toml") == expected


CIRCLE = 'qrels = "q"\n[modes.a]\nrun = "a.run"\n[modes.x]\nfuse = ["a", "y"]\n[modes.y]\n'
CIRCLE_YAML = "qrels: q\nmodes:\n  a: {run: a.run}\n  x:\n    fuse: [a, y]\n  y:\n    fuse:\n"
ANOTHER_MODE = (
    "is the name of another mode: the statistics call each mode by its name, the R-task part "
    "by its label; give another label"
)
ONE_RUN = "are one run file ('a.run'): the run would be compared with itself; give it once"


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        (  # the second label, naming the first's line
            TOML_HEAD.replace('"b.run"\n', '"b.run"\nlabel = "A"\n')
            + "[modes.c]\nrun = 'c.run'\nlabel = 'A'\n",
            "c.toml",
            "c.toml:9: modes.c.label: modes 'b' (line 6) and 'c' have one label 'A'",
        ),
        (  # a label that is another mode's name: at that label, whichever mode comes first
            YAML_HEAD + "  c:\n    run: c.run\n    label: b\n",
            "c.yaml",
            f"c.yaml:7: modes.c.label: 'b' {ANOTHER_MODE}",
        ),
        (  # it was said at mode b's table (b has no label), "modes 'a' and 'b' have one label"
            'qrels = "q"\n[modes.a]\nrun = "a.run"\nlabel = "b"\n[modes.b]\nrun = "b.run"\n',
            "c.toml",
            f"c.toml:4: modes.a.label: 'b' {ANOTHER_MODE}",
        ),
        (  # the second mode of one run file, naming the first's line
            TOML_HEAD + '[modes.c]\nrun = "./a.run"\n',
            "c.toml",
            f"c.toml:7: modes.c.run: modes 'a' (line 3) and 'c' {ONE_RUN}",
        ),
        (
            "qrels: q\nmodes:\n  a:\n    run: a.run\n  c:\n    label: C\n    run: a.run\n",
            "c.yaml",
            f"c.yaml:7: modes.c.run: modes 'a' (line 4) and 'c' {ONE_RUN}",
        ),
        (  # names apart only in case: reports/A.json and reports/a.json, one file on macOS
            TOML_HEAD + '[modes.A]\nrun = "c.run"\n',
            "c.toml",
            "c.toml:6: modes.A: modes 'a' (line 2) and 'A' would write one file where case "
            "is not told apart (macOS, Windows: reports/<mode>.json): rename one",
        ),
        (  # the edge closing the circle: y's fuse naming x, at its item's line
            CIRCLE + 'fuse = [\n  "a",\n  "x",\n]\n',
            "c.toml",
            "c.toml:9: modes.y.fuse[1]: modes fuse each other in a circle: x -> y -> x",
        ),
        (
            CIRCLE + 'fuse = ["x", "a"]\n',
            "c.toml",
            "c.toml:7: modes.y.fuse[0]: modes fuse each other in a circle: x -> y -> x",
        ),
        (
            CIRCLE_YAML + "      - a\n      - x\n",
            "c.yaml",
            "c.yaml:9: modes.y.fuse[1]: modes fuse each other in a circle: x -> y -> x",
        ),
        (  # reranking in a circle: each run made from the other's, both improvements shown
            'qrels = "q"\nmeasures = ["nDCG@10"]\n[modes.a]\nrun = "a.run"\nreranks = "b"\n'
            '[modes.b]\nrun = "b.run"\nreranks = "a"\n',
            "c.toml",
            "c.toml:8: modes.b.reranks: modes rerank each other in a circle: a -> b -> a",
        ),
        (  # a circle further on than the first mode: at the edge closing it
            "qrels: q\nmeasures: [nDCG@10]\nmodes:\n  a: {run: a.run, reranks: b}\n"
            "  b: {run: b.run, reranks: c}\n  c: {run: c.run, reranks: b}\n",
            "c.yaml",
            "c.yaml:6: modes.c.reranks: modes rerank each other in a circle: b -> c -> b",
        ),
    ],
)
def test_modes_alike_or_in_a_circle_are_cited_at_the_second_or_closing_line(
    tmp_path, text, name, expected
):
    (tmp_path / "a.run").write_text("t1 Q0 A 1 2 a\n")  # a run file named by its path
    assert _refusal(tmp_path, text, name).replace(f"{tmp_path}/", "") == expected


NO_SUCH = "illegal measure 'Foo@3': no such measure; `trecbench measures` lists them all"


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        (  # an entry of a list over several lines, at its own line
            'qrels = "q"\nmeasures = [\n  "map",\n  # a comment\n  "Foo@3",\n]\n'
            '[modes.a]\nrun = "a.run"\n',
            "c.toml",
            f"c.toml:5: measures[1]: {NO_SUCH}",
        ),
        (
            'qrels = "q"\nmeasures = ["map", "Foo@3"]\n[modes.a]\nrun = "a.run"\n',
            "c.toml",
            f"c.toml:2: measures[1]: {NO_SUCH}",
        ),
        (
            "qrels: q\nmeasures:\n  - map\n  - Foo@3\nmodes:\n  a: {run: a.run}\n",
            "c.yaml",
            f"c.yaml:4: measures[1]: {NO_SUCH}",
        ),
        (  # no value per topic: the entry asking it
            "qrels: q\nmeasures:\n  - map\n  - P@5\n  - gm_map\nmodes:\n  a: {run: a.run}\n",
            "c.yaml",
            "c.yaml:5: measures[2]: gm_map: no value per topic (a summary over topics), which "
            "the benchmark's comparison is computed from: leave them out (a nickname such as "
            "all_trec holds some: name the measures)",
        ),
        (  # 10.0's unj.10, which the default 9.0.8 scoring refuses: here, not by the scoring
            'qrels = "q"\nmeasures = ["map", "unj.10"]\n[modes.a]\nrun = "a.run"\n',
            "c.toml",
            "c.toml:2: measures[1]: illegal measure 'unj.10': trec_eval 10.0's unj with "
            "parameters (score reads it with --compat 10.0, which compare, power, agree, "
            "benchmark and leaderboard do not take)",
        ),
    ],
)
def test_a_refused_measures_entry_is_cited_at_its_own_line(tmp_path, text, name, expected):
    assert _refusal(tmp_path, text, name) == expected


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        (
            TOML_HEAD.replace('"b.run"\n', '"b.run"\nlabel = " \\t "\n'),
            "c.toml",
            "c.toml:6: modes.b.label: ' \\t ' is blank: the label titles the mode's column",
        ),
        (
            "qrels: q\nmodes:\n  a:\n    run: a.run\n    label: '  '\n",
            "c.yaml",
            "c.yaml:5: modes.a.label: '  ' is blank: the label titles the mode's column",
        ),
    ],
)
def test_a_blank_label_is_refused_as_an_empty_one(tmp_path, text, name, expected):
    # label = "   " (shown as it is compared, blanks collapsed: empty) titled the mode's
    # column, its best-mode cells and the statistics' baseline with nothing readable,
    # where label = "" is refused by the schema
    assert _refusal(tmp_path, text, name) == expected


def test_a_blank_name_is_refused_as_an_empty_one(tmp_path):
    # name = "   " titled the outputs "# Benchmark:    ", where name = "" is refused
    expected = "c.toml:1: name: '   ' is blank: the name titles the benchmark's outputs"
    assert _refusal(tmp_path, 'name = "   "\n' + TOML_HEAD, "c.toml") == expected


def test_resamples_beyond_the_memory_are_cited_at_the_samples_line(tmp_path, capsys):
    # refused once the runs were scored: "c.toml: statistics: 4,294,967,296 resamples
    # ... need 384.0 GiB", without the line or the key
    from trecbench.cli import run

    (tmp_path / "q").write_text("1 0 d1 1\n2 0 d1 1\n")
    for name in ("a", "b"):
        (tmp_path / f"{name}.run").write_text(f"1 Q0 d1 1 2 {name}\n2 Q0 d2 1 2 {name}\n")
    config = tmp_path / "c.toml"
    config.write_text(TOML_HEAD + "[statistics]\ntest = 't'\nsamples = 4_294_967_296\n")
    assert run(["benchmark", str(config), "-o", str(tmp_path / "out"), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"trecbench: {config}:8: statistics.samples: 4,294,967,296 resamples")
    assert err.count("\n") == 1 and err.endswith(": ask for fewer samples\n"), err


def test_a_refusal_of_the_values_is_not_cited_at_the_samples(tmp_path, capsys):
    # helper-629: once the memory refusal cited statistics.samples, every refusal of the
    # statistics step did, although the file never wrote the key (a measure's values)
    from trecbench.cli import run

    (tmp_path / "q").write_text("1 0 d1 1\n2 0 d1 1\n")
    for name in ("a", "b"):
        (tmp_path / f"{name}.run").write_text(f"1 Q0 d1 1 2 {name}\n2 Q0 d2 1 2 {name}\n")
    config = tmp_path / "c.toml"
    config.write_text('measures = ["utility.1e300,-1,0,0"]\n' + TOML_HEAD)
    assert run(["benchmark", str(config), "-o", str(tmp_path / "out"), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"trecbench: {config}: statistics: utility_1e300,-1,0,0: "), err
