"""The benchmark's typed settings (issue 26): :class:`BenchmarkSettings` is built and checked
once, from a configuration file or directly in Python, and what runs, writes and renders the
benchmark reads its fields; the command's ``-o`` and ``--meta`` go into it."""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from conftest import ROOT

from trecbench.benchmarking import (
    STATISTICS,
    BenchmarkConfig,
    BenchmarkSettings,
    Completeness,
    Mode,
    check_outputs,
    completeness,
    load_benchmark_config,
)
from trecbench.comparison import StatsSettings
from trecbench.errors import OutputError, UsageError

CONFIG = ROOT / "data" / "hpo-rtask" / "benchmark.toml"


def _settings(**changes) -> BenchmarkSettings:
    modes = [
        Mode("a", "A", run=Path("a.run")),
        Mode("d", "D", run=Path("d.run")),
        Mode("b", "B", fuse=["a", "d"], depth=10),
    ]
    fields = {"path": Path("bench.toml"), "name": "n", "qrels": Path("q"), "modes": modes}
    return BenchmarkSettings(**(fields | changes))


def test_the_configuration_becomes_typed_settings():
    settings = load_benchmark_config(CONFIG)
    assert BenchmarkConfig is BenchmarkSettings  # the earlier name still imports
    assert settings.statistics == StatsSettings(test="t", correction="holm", seed=42)
    assert settings.baseline == "lexical" and settings.profile == "rtask"
    assert settings.completeness == Completeness()
    assert settings.mode("hybrid").run_tag == "hybrid"
    assert settings.inputs[:2] == [CONFIG, CONFIG.parent / "hpo-rtask.qrels"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.baseline = "vector"


def test_settings_built_in_python_are_checked_as_a_file_is():
    assert _settings().baseline == "a"  # default: the first mode
    assert _settings(baseline="b").baseline == "b"
    with pytest.raises(UsageError, match=r"bench.toml: statistics.baseline: 'c' is not a mode"):
        _settings(baseline="c")
    with pytest.raises(UsageError, match=r"bench.toml: the validator has no profile 'rtsak'"):
        _settings(profile="rtsak")
    with pytest.raises(UsageError, match=r"mode 'b' refers to unknown mode 'x'"):
        _settings(modes=[Mode("a", "A", run=Path("a")), Mode("b", "B", fuse=["a", "x"])])
    # an empty name is unknown too (it was looked up as a mode, a KeyError)
    with pytest.raises(UsageError, match=r"modes.b.reranks: mode 'b' refers to unknown mode ''$"):
        _settings(modes=[Mode("a", "A", run=Path("a")), Mode("b", "B", run=Path("b"), reranks="")])
    circle = [Mode("a", "A", fuse=["b", "c"]), Mode("b", "B", fuse=["a", "c"]), Mode("c", "C")]
    # the key too, as a file's refusal names it (but no line: there is no text)
    with pytest.raises(UsageError, match=r"^bench.toml: modes.b.fuse\[0\]: modes fuse each oth"):
        _settings(modes=circle)
    # one label for two modes made two columns of one name in every table
    same_label = [Mode("a", "A", run=Path("a")), Mode("b", "A", run=Path("b"))]
    with pytest.raises(UsageError, match=r"modes 'a' and 'b' have one label 'A'"):
        _settings(modes=same_label)
    # a label that is another mode's name: the statistics (by name) and the R-task part
    # (by label) called the baseline 'a' and 'b' in one report (helper-599)
    swapped = [Mode("a", "b", run=Path("a")), Mode("b", "a", run=Path("b"))]
    with pytest.raises(UsageError, match=r"^bench.toml: modes.a.label: 'b' is the name of ano"):
        _settings(modes=swapped)
    _settings(modes=[Mode("a", "a", run=Path("a")), Mode("b", "B", run=Path("b"))])  # its own
    # a fusion of one mode ranks as its run: compared with itself, as two modes of one file
    alone = [Mode("a", "A", run=Path("a")), Mode("b", "B", fuse=["a"])]
    with pytest.raises(
        UsageError, match=r"^bench.toml: modes.b.fuse: mode 'b' fuses one mode, 'a'"
    ):
        _settings(modes=alone)
    fused_twice = [Mode("a", "A", run=Path("a")), Mode("b", "B", fuse=["a", "a"])]
    with pytest.raises(UsageError, match=r"mode 'b' fuses 'a' twice"):
        _settings(modes=fused_twice)
    # labels that print alike, one run file under two modes, weights all 0: all went through
    blank = [Mode("a", "Lex", run=Path("a")), Mode("b", " Lex ", run=Path("b"))]
    with pytest.raises(UsageError, match=r"modes 'a' and 'b' have one label ' Lex '$"):
        _settings(modes=blank)
    # é as one character and as e and an accent: two columns shown alike, exit 0
    written_twice = [Mode("a", "Lex\u00e9", run=Path("a")), Mode("b", "Lexe\u0301", run=Path("b"))]
    with pytest.raises(UsageError) as refused:
        _settings(modes=written_twice)
    assert str(refused.value).endswith(
        "modes 'a' and 'b' have one label 'Lexe\u0301' (written two ways in Unicode, shown alike)"
    )
    one_file = [
        Mode("a", "A", run=Path("x.run")),
        Mode("b", "B", run=Path("sub/../x.run")),
        Mode("h", "H", fuse=["a", "b"]),
    ]
    # each spelling named: a link's name alone read as if 'a' were it ('lexical' and 'lex2'
    # are both 'lexlink.run')
    with pytest.raises(
        UsageError,
        match=r"^bench.toml: modes.b.run: modes 'a' and 'b' are one run file \('x.run' and 'sub/",
    ):
        _settings(modes=one_file)
    zero = [
        Mode("a", "A", run=Path("a")),
        Mode("b", "B", run=Path("b")),
        Mode("h", "H", fuse=["a", "b"], method="combsum", weights=[0, 0.0]),
    ]
    with pytest.raises(UsageError, match=r"bench.toml: modes.h: the weights are all 0"):
        _settings(modes=zero)
    # each refused with the settings, as a configuration's are: only a negative weight and
    # all-0 weights were, by a copy of two of fuse's rules (reviewer 246)
    refused = [
        ({"weights": [1, -1]}, r"a weight must be a finite number >= 0, not -1"),
        ({"weights": [1]}, r"1 weight for 2 runs"),
        ({"method": "rrf", "k": -5}, r"k must be"),
        ({"norm": "bogus"}, r"bogus"),
        ({"method": "nope"}, r"nope"),
        ({"depth": 0}, r"depth must be a positive integer, not 0"),
        # k was dropped without a word: Mode's default of 60 hid whether one was given
        ({"k": 30}, r"k: combsum has no k \(it is RRF's constant\)"),
        ({"k": 60}, r"k: combsum has no k"),
    ]
    for fields, message in refused:
        fusion = Mode("h", "H", fuse=["a", "b"], **{"method": "combsum", **fields})
        with pytest.raises(UsageError, match=rf"^bench.toml: modes.h: .*{message}"):
            _settings(modes=[*zero[:2], fusion])


@pytest.mark.parametrize("second", ["./r.run", "r.run", "link.run", "hard.run"])
def test_two_modes_of_one_run_file_are_refused(tmp_path, second):
    """Two modes of one run file (any spelling, a link) compared the run with itself,
    exit 0, where compare refuses it and a fusion of the two was refused."""
    (tmp_path / "r.run").write_text("q Q0 d 1 1 t\n")
    (tmp_path / "link.run").symlink_to("r.run")
    (tmp_path / "hard.run").hardlink_to(tmp_path / "r.run")
    config = tmp_path / "same.yaml"
    config.write_text(f"qrels: q\nmodes:\n  one: {{run: r.run}}\n  two: {{run: {second}}}\n")
    one, other = tmp_path / "r.run", tmp_path / second
    named = f"'{one}'" if one == other else f"'{one}' and '{other}'"
    message = (
        # at the second mode's run, naming the first's line
        f"{config}:4: modes.two.run: modes 'one' (line 3) and 'two' are one run file ({named}): "
        "the run would be "
        "compared with itself; give it once"
    )
    with pytest.raises(UsageError) as refused:
        load_benchmark_config(config)
    assert str(refused.value) == message


def test_the_commands_options_go_into_the_settings(tmp_path):
    settings = load_benchmark_config(CONFIG)
    assert settings.output is None
    with pytest.raises(UsageError, match=r"give the output folder \(outdir\) or `output` in the"):
        check_outputs(settings)
    chosen = settings.with_options(tmp_path / "out", {"run": "2", "lexical": "mine"})
    assert chosen.output == tmp_path / "out"
    assert chosen.meta == settings.meta | {"run": "2", "lexical": "mine"}
    assert list(chosen.meta)[-1] == "run" and chosen.meta["lexical"] == "mine"
    assert chosen.with_options().output == chosen.output  # no -o keeps the output
    check_outputs(chosen)  # the output folder is taken from the settings
    fused_output = tmp_path / "out" / "runs" / "hybrid.run"  # where the hybrid mode goes
    fused_output.parent.mkdir(parents=True)
    fused_output.write_text("1 Q0 d 1 1 t\n")
    modes = [dataclasses.replace(chosen.modes[0], run=fused_output), *chosen.modes[1:]]
    with pytest.raises(OutputError, match="refusing to overwrite an input file"):
        check_outputs(dataclasses.replace(chosen, modes=modes))


def test_completeness_takes_typed_thresholds_or_their_mapping():
    ranked = pa.table({"qid": ["1", "1", "2"], "docno": ["d1", "d2", "d1"], "rank": [1, 2, 1]})
    qrels = pa.table({"qid": ["1", "2", "3"], "docno": ["d1", "d1", "d1"], "rel": [1, 0, 1]})
    typed = Completeness(min_coverage=0.5, min_pool_depth=1, max_unjudged=0.2, unjudged_at=2)
    info = completeness(ranked, qrels, ["1", "2", "3"], typed)
    assert info == completeness(ranked, qrels, ["1", "2", "3"], typed.to_json())
    assert info["coverage"] == 2 / 3 and info["pool_depth"] == {"median": 1.0, "min": 1}
    assert info["unjudged"] == 1 / 3 and info["unjudged_at"] == 2
    assert [problem["check"] for problem in info["problems"]] == ["unjudged"]


def test_the_configurations_statistics_defaults_are_compares():
    fields = {name: getattr(StatsSettings(), name) for name in STATISTICS}
    assert STATISTICS == fields and list(fields) == [
        "test", "correction", "samples", "seed", "confidence",
    ]  # fmt: skip
    assert _settings().statistics == StatsSettings()


def test_importing_the_benchmark_loads_no_pandas():
    # compare's package (pandas) is imported where settings are made, not on import
    import subprocess
    import sys

    code = "import sys, trecbench.benchmarking; print('pandas' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize("output", ["-", ""])
def test_a_configuration_output_of_dash_or_nothing_is_refused(tmp_path, output):
    from trecbench.benchmarking import load_benchmark_config
    from trecbench.errors import InputError, UsageError

    config = tmp_path / "b.toml"
    config.write_text(f'qrels = "q.qrels"\noutput = "{output}"\n[modes.a]\nrun = "a.run"\n')
    with pytest.raises((InputError, UsageError), match="no folder to write into|non-empty"):
        load_benchmark_config(config)


@pytest.mark.parametrize(
    ("name", "meta", "problem"),
    [
        # recorded as str(value): "1.1" for 1.10, "True" for true (YAML's 010 and yes,
        # which YAML 1.2 reads otherwise, are refused at their line: tests/test_configs.py)
        ("b.toml", "[meta]\nversion = 1.10\n",
         "meta.version: read as the number 1.1, not as written: quote it"),
        ("b.toml", "[meta]\nflag = true\n",
         "meta.flag: read as the boolean true, not as written: quote it"),
        ("b.yaml", "meta: {model: 1.50}\n",
         "meta.model: read as the number 1.5, not as written: quote it"),
        ("b.yaml", "meta: {cached: True}\n",
         "meta.cached: read as the boolean true, not as written: quote it"),
        # "read as a NoneType (a dict), not as written: quote it"
        ("b.yaml", "meta: {model: }\n", "meta.model: empty: give it a value, in quotes"),
        ("b.toml", '[meta.sub]\nx = "1"\n', "meta.sub: a table: a meta value is one piece of text"),
        ("b.toml", '[meta]\nx = ["1"]\n', "meta.x: a list: a meta value is one piece of text"),
        # a date was "a list" before
        ("b.yaml", "meta: {snapshot: 2024-01-01}\n",
         "meta.snapshot: read as the date 2024-01-01, not as written: quote it"),
        ("b.toml", "[meta]\nsnapshot = 2024-01-01\n",
         "meta.snapshot: read as the date 2024-01-01, not as written: quote it"),
    ],
)  # fmt: skip
def test_metadata_that_is_not_text_as_written_is_refused(tmp_path, name, meta, problem):
    config = tmp_path / name
    if name.endswith(".toml"):
        config.write_text(f'qrels = "q.qrels"\n[modes.a]\nrun = "a.run"\n{meta}')
    else:
        config.write_text(f"qrels: q.qrels\nmodes: {{a: {{run: a.run}}}}\n{meta}")
    with pytest.raises(UsageError) as raised:
        load_benchmark_config(config)
    key = problem.split(":")[0].removeprefix("meta.")
    head = 2 if name.endswith(".yaml") else 3  # the lines before the meta
    line = head + 1 + next(i for i, text in enumerate(meta.split("\n")) if key in text)
    assert str(raised.value) == f"{config}:{line}: {problem}"


@pytest.mark.parametrize("key", ['""', '"a b"', '"a=b"', '"1st"', '"é"'])
def test_a_metadata_key_is_held_to_the_rule_of_meta_keys(tmp_path, capsys, key):
    # the configuration's meta recorded any key ('' and 'a b' too), where --meta KEY=VALUE
    # refuses them: both follow one rule, each key refused at its line
    from trecbench.cli import run

    config = tmp_path / "b.toml"
    config.write_text(f'qrels = "q.qrels"\n[modes.a]\nrun = "a.run"\n[meta]\n{key} = "x"\n')
    rule = "must start with an ASCII letter or '_' and contain only ASCII letters and digits"
    with pytest.raises(
        UsageError, match=rf"^{re.escape(str(config))}:5: meta\..*: a meta key {rule}"
    ):
        load_benchmark_config(config)
    plain = key.strip('"')
    if "=" not in plain:  # --meta a=b=x is the key a (its value b=x)
        assert run(["compare", "q", "a", "b", "--meta", f"{plain}=x"]) == 1
        assert f"key {plain!r} {rule}" in capsys.readouterr().err
    config.write_text('qrels = "q.qrels"\n[modes.a]\nrun = "a.run"\n[meta]\n"model_v-1.2" = "x"\n')
    assert load_benchmark_config(config).meta == {"model_v-1.2": "x"}


def test_quoted_metadata_is_recorded_as_written(tmp_path):
    config = tmp_path / "b.toml"
    config.write_text('qrels = "q.qrels"\n[modes.a]\nrun = "a.run"\n[meta]\nversion = "1.10"\n')
    assert load_benchmark_config(config).meta == {"version": "1.10"}


@pytest.mark.parametrize(
    ("top", "table"),
    [("", '[statistics]\nsamples = "100"\n'), ("", "[statistics]\nsamples = 100.0\n"),
     ("", "[statistics]\nseed = -1\n"), ('measures = ["P@0"]\n', ""), ('output = "-"\n', ""),
     # trec_eval's own refusal (exit 2 on the command line), without the file's name
     ('measures = ["P.0"]\n', ""), ("", '[targets.measures."P.0"]\nbaseline = [0.1, 0.2]\n'
                                       "good = 0.3\n")],
)  # fmt: skip
def test_every_setting_refused_is_a_usage_error(tmp_path, top, table):
    # samples = "100" (the schema's) exited 1, samples = 100.0, seed = -1, P@0 and output
    # "-" (the loader's) 2: docs/cli-conventions.md says a configuration's setting is 1
    config = tmp_path / "b.toml"
    config.write_text(f'qrels = "q.qrels"\n{top}[modes.a]\nrun = "a.run"\n{table}')
    with pytest.raises(UsageError) as raised:
        load_benchmark_config(config)
    assert raised.value.exit_code == 1
    assert re.match(rf"{re.escape(str(config))}:\d+: ", str(raised.value))


@pytest.mark.parametrize(
    ("value", "mark"),
    [(11 / 20 - 2**-53, "good"), (0.5499999999999998, "good"), (0.5499, "baseline"),
     (0.45, "baseline"), (0.4499, "below-baseline"), (0.6, "strong"),
     (math.inf, "strong"), (-math.inf, "below-baseline"),
     (math.nan, None)],  # NaN passed every comparison: it was "strong"
)  # fmt: skip
def test_a_mean_equal_on_paper_to_a_threshold_reaches_it(value, mark):
    """11/20 summed in topic order is 0.5499999999999998, printed 0.5500: it is good,
    not typical, whichever order its sum was taken in (reviewer 188)."""
    from trecbench.benchmarking.settings import Target

    assert Target((0.45, 0.5), 0.55, 0.6).mark(value) == mark


def test_rrf_k_is_60_unless_given():
    """A mode built in Python fuses, records and describes k as a configuration's does."""
    default = Mode("h", "H", fuse=["a", "b"])
    given = Mode("h", "H", fuse=["a", "b"], k=30)
    assert (default.rrf_k, given.rrf_k) == (60, 30)
    assert (default.fusion()["k"], given.fusion()["k"]) == (60, 30)
    assert "rrf (k=60)" in default.describe() and "rrf (k=30)" in given.describe()
    assert Mode("h", "H", fuse=["a", "b"], method="combsum").fusion()["k"] is None


@pytest.mark.parametrize("k, shown", [(60.123456789, "60.123456789"), (1234567, "1234567")])
def test_a_mode_describes_its_rrf_k_as_set(k, shown):
    # "rrf (k=60.1235)" and "rrf (k=1.23457e+06)": six significant digits of the k used
    assert f"rrf (k={shown}) of a, b" in Mode("h", "H", fuse=["a", "b"], k=k).describe()


@pytest.mark.parametrize(
    "name, text",
    [
        ("b.toml", 'qrels = "q"\n[modes.a]\nrun = "r"\n\n[modes.b]\nfuse = ["a"]\n'),
        ("b.yaml", "qrels: q\nmodes:\n  a: {run: r}\n\n  b: {fuse: [a]}\n"),
    ],
)
def test_a_fusion_of_one_mode_is_refused_at_its_line(tmp_path, name, text):
    # it was fused and compared: the same ranking as its one mode's run, a column of
    # differences that are all 0
    config = tmp_path / name
    config.write_text(text)
    with pytest.raises(UsageError) as caught:
        load_benchmark_config(config)
    line = 6 if name.endswith("toml") else 5
    assert str(caught.value) == (
        f"{config}:{line}: modes.b.fuse: mode 'b' fuses one mode, 'a': it would rank as that "
        "mode's run, compared with itself; fuse two modes or more"
    )


def test_two_modes_of_one_fusion_are_refused(tmp_path):
    """Two modes fusing the same modes alike (in another order, weights unset or 1 each)
    made one run, compared with itself (exit 0), as two modes of one run file would."""
    (tmp_path / "a.run").write_text("q Q0 d 1 1 t\n")
    (tmp_path / "b.run").write_text("q Q0 e 1 1 u\n")
    config = tmp_path / "fused.yaml"
    head = "qrels: q\nmodes:\n  a: {run: a.run}\n  b: {run: b.run}\n  h: {fuse: [a, b]}\n"
    for second in ("{fuse: [b, a]}", "{fuse: [a, b], method: rrf, k: 60}"):
        config.write_text(head + f"  h2: {second}\n")
        with pytest.raises(UsageError) as refused:
            load_benchmark_config(config)
        assert str(refused.value) == (
            f"{config}:6: modes.h2.fuse: modes 'h' (line 5) and 'h2' are one fusion "
            f"({'rrf (k=60) of b, a' if 'b, a' in second else 'rrf (k=60) of a, b'}, depth "
            "100): the run would be compared with itself; give it once"
        )
    weighted = "qrels: q\nmodes:\n  a: {run: a.run}\n  b: {run: b.run}\n"
    weighted += "  h: {fuse: [a, b], method: combsum, weights: [1, 2]}\n"
    config.write_text(weighted + "  h2: {fuse: [b, a], method: combsum, weights: [2, 1]}\n")
    with pytest.raises(UsageError, match=r"modes 'h' \(line 5\) and 'h2' are one fusion"):
        load_benchmark_config(config)
    # wmnz weighs a document's sum by its runs' weights summed: 1 each, combmnz's count
    mnz = "qrels: q\nmodes:\n  a: {run: a.run}\n  b: {run: b.run}\n"
    mnz += "  h: {fuse: [a, b], method: combmnz}\n"
    config.write_text(mnz + "  h2: {fuse: [b, a], method: wmnz, weights: [1, 1]}\n")
    with pytest.raises(UsageError, match=r"modes 'h' \(line 5\) and 'h2' are one fusion"):
        load_benchmark_config(config)
    # the median of two values (or one) is their mean: combmed of two modes is combanz
    anz = "  h: {fuse: [a, b], method: combanz, norm: z-score}\n"
    config.write_text(
        head.replace("  h: {fuse: [a, b]}\n", anz)
        + "  h2: {fuse: [a, b], method: med, norm: zscore}\n"
    )
    with pytest.raises(UsageError, match=r"modes 'h' \(line 5\) and 'h2' are one fusion"):
        load_benchmark_config(config)
    # of three modes, the median is no mean: two fusions
    runs = [Mode(name, name.upper(), run=Path(f"{name}.run")) for name in "abc"]
    med, anz = ("combmed", "combanz")
    fusions = [Mode(f"h{m}", m, fuse=["a", "b", "c"], method=m, depth=10) for m in (med, anz)]
    assert len(_settings(modes=[*runs, *fusions]).modes) == 5
    # other settings, other fusions: taken
    for other in (
        "{fuse: [a, b], k: 30}",
        "{fuse: [a, b], depth: 50}",
        "{fuse: [a, b], method: combsum}",
    ):
        config.write_text(head + f"  h2: {other}\n")
        assert [m.name for m in load_benchmark_config(config).modes][-1] == "h2"
    config.write_text(weighted + "  h2: {fuse: [a, b], method: combsum, weights: [2, 1]}\n")
    assert len(load_benchmark_config(config).modes) == 4


def test_fusions_of_weights_in_proportion_are_one_fusion(tmp_path):
    """[0.3, 0.7] and [3, 7] (or no weights and 2 each) rank alike, the fused scores in
    proportion: they were taken as two modes, compared with each other (every test n/a)
    and widening the correction of the others (Holm p 0.0432 to 0.0540)."""
    config = tmp_path / "fused.yaml"
    head = "qrels: q\nmodes:\n  a: {run: a.run}\n  b: {run: b.run}\n"
    for first, second in (
        ("combsum, norm: z-score, weights: [0.3, 0.7]", "sum, norm: zmuv, weights: [7, 3]"),
        ("rrf", "rrf, weights: [3, 3]"),
        ("combsum", "combsum, weights: [2, 2]"),
        ("combmnz", "wmnz, weights: [2, 2]"),
        ("combsum, weights: [0.1, 0.2]", "combsum, weights: [2, 1]"),
    ):
        h, h2 = f"{{fuse: [a, b], method: {first}}}", f"{{fuse: [b, a], method: {second}}}"
        config.write_text(head + f"  h: {h}\n  h2: {h2}\n")
        with pytest.raises(UsageError) as refused:
            load_benchmark_config(config)
        assert str(refused.value).startswith(f"{config}:6: modes.h2.fuse: modes 'h' (line 5)")
        assert "weights in proportion rank alike): the run" in str(refused.value)
    # the same weight of each mode, named in another order: one fusion, in no proportion
    config.write_text(head + "  h: {fuse: [a, b], method: combsum, weights: [1, 2]}\n"
                      "  h2: {fuse: [b, a], method: combsum, weights: [2, 1]}\n")  # fmt: skip
    with pytest.raises(UsageError) as refused:
        load_benchmark_config(config)
    assert "one fusion (" in str(refused.value) and "in proportion" not in str(refused.value)
    config.write_text(head + "  h: {fuse: [a, b], method: combsum, weights: [1, 2]}\n"
                      "  h2: {fuse: [a, b], method: combsum, weights: [2, 3]}\n")  # fmt: skip
    assert len(load_benchmark_config(config).modes) == 4  # not in proportion: two fusions
    # weights whose sum is infinite: shares of it were 0 each, one fusion of both
    huge = "  h: {fuse: [a, b], method: combsum, weights: [1.0e+308, 1.0e+308]}\n"
    config.write_text(head + huge + huge.replace("h:", "h2:").replace("[1.0e", "[1.5e"))
    assert len(load_benchmark_config(config).modes) == 4
    # what the check assumes, on the bundled runs: fuse ranks them alike
    from trecbench import fuse

    runs = [ROOT / "runs/tfidf-word.run", ROOT / "runs/tfidf-char.run"]
    ranked = [
        fuse(runs, "combsum", norm="z-score", weights=w)[["qid", "docno", "rank"]]
        for w in ([0.3, 0.7], [3, 7])
    ]
    assert ranked[0].equals(ranked[1])


def test_a_fusion_weighing_a_mode_0_is_refused_at_that_weight(tmp_path):
    """weights [0, 1]: the fused run ranked as the other mode's (its means equal on every
    measure, every test against it n/a); fuse takes it, a benchmark's mode is refused."""
    config = tmp_path / "fused.toml"
    config.write_text(
        'qrels = "q"\n[modes.a]\nrun = "a.run"\n[modes.b]\nrun = "b.run"\n[modes.h]\n'
        'fuse = ["a", "b"]\nmethod = "combsum"\nweights = [0, 1]\n'
    )
    with pytest.raises(UsageError) as refused:
        load_benchmark_config(config)
    assert str(refused.value) == (
        f"{config}:9: modes.h.weights[0]: mode 'h' weighs 'a' 0, which so adds nothing but its "
        "documents at score 0 (beside one other mode: almost that mode's run, compared with "
        "it); leave it out of fuse"
    )


def test_weights_of_a_numpy_array_are_compared_as_numbers():
    """Weights built in Python as an array (fuse takes any sequence): told apart and alike by
    value, where their truth (`weights or ...`) raised ValueError (a traceback)."""
    weights = np.array([1.0, 2.0])
    modes = [Mode("a", "A", run=Path("a.run")), Mode("d", "D", run=Path("d.run"))]
    fused = {"method": "combsum", "depth": 10}
    h = Mode("h", "H", fuse=["a", "d"], weights=weights, **fused)
    settings = _settings(modes=[*modes, h])
    # kept as Python's floats: describe() and the report's JSON took no array
    assert settings.mode("h").weights == [1.0, 2.0]
    assert type(settings.mode("h").weights[0]) is float
    assert "weights [1.0, 2.0]" in settings.mode("h").describe()
    h_floats = Mode("h", "H", fuse=["a", "d"], weights=[np.float64(1.0), np.int64(2)], **fused)
    assert [type(w) for w in h_floats.weights] == [float, int]
    h2 = Mode("h2", "H2", fuse=["d", "a"], weights=[2, 1], **fused)
    with pytest.raises(UsageError, match=r"modes 'h' and 'h2' are one fusion"):
        _settings(modes=[*modes, h, h2])


def test_a_fusion_of_a_name_not_text_is_an_unknown_mode():
    """A fusion built in Python naming a mode by a number is refused as unknown, in one line:
    sorting its names beside text (to compare fusions in any order) raised TypeError."""
    modes = [Mode("a", "A", run=Path("a.run")), Mode("h", "H", fuse=[1, "a"], depth=10)]
    with pytest.raises(UsageError) as refused:
        _settings(modes=modes)
    assert str(refused.value) == "bench.toml: modes.h.fuse: mode 'h' refers to unknown mode 1"


@pytest.mark.parametrize("key", ["a b", "", "a=b"])
def test_a_meta_key_given_in_python_is_refused_before_the_benchmark_runs(key):
    # taken, it stopped the benchmark only as its reports were written, after every run
    rule = "a meta key must start with an ASCII letter or '_'"
    with pytest.raises(UsageError, match=rf"^bench\.toml: meta\..*: {rule}"):
        _settings(meta={key: "x"})
    with pytest.raises(UsageError, match=rf"^bench\.toml: meta\..*: {rule}"):
        _settings(meta={"model": "x"}).with_options(meta={key: "y"})
    assert _settings().with_options(meta={"model.v-2": "y"}).meta == {"model.v-2": "y"}


def test_a_meta_value_json_cannot_hold_is_refused_before_the_benchmark_runs():
    # recorded as its str() ("{1, 2}") as the reports were written; a value JSON holds
    # is kept as it is, for the reports to record it so (trecbench.report.recorded_meta)
    said = r"^bench\.toml: meta\.seeds: \{1, 2\} \(a set\): JSON cannot hold it; give text"
    with pytest.raises(UsageError, match=said):
        _settings(meta={"seeds": {1, 2}})
    with pytest.raises(UsageError, match=said):
        _settings().with_options(meta={"seeds": {1, 2}})
    assert _settings(meta={"k1": 0.9, "layers": [2, 3]}).meta == {"k1": 0.9, "layers": [2, 3]}


@pytest.mark.parametrize(
    "setting, key",
    [("method: combsum, weights: [1, 1{zeros}]", "weights"), ("k: 1{zeros}", "k")],
)
def test_a_weight_or_k_beyond_a_double_is_refused_at_its_line(tmp_path, setting, key):
    # an integer (YAML and TOML read any) of 401 digits: an internal OverflowError
    config = tmp_path / "big.yaml"
    fusion = setting.format(zeros="0" * 400)
    config.write_text(
        f"qrels: q\nmodes:\n  a: {{run: a}}\n  b: {{run: b}}\n  h: {{fuse: [a, b], {fusion}}}\n"
    )
    with pytest.raises(UsageError) as refused:
        load_benchmark_config(config)
    said = "a weight" if key == "weights" else "k"
    assert str(refused.value).startswith(
        f"{config}:5: modes.h.{key}: {said} must be a finite number >= 0, not 1000000000"
    )


@pytest.mark.parametrize("name", ["../x", "a/b", "a\nb", "", "x" * 26, "é", 7])
def test_a_mode_name_built_in_python_is_held_to_the_schemas_rule(name):
    """A mode made in Python took any name (``a/b`` named a file in another folder, ``a\\nb``
    split every message naming it), where a configuration's schema refuses them."""
    import json

    from trecbench.benchmarking.mode_checks import MODE_NAME

    schema = json.loads((ROOT / "trecbench/schemas/benchmark_config.schema.json").read_text())
    assert schema["properties"]["modes"]["propertyNames"]["pattern"] == f"^{MODE_NAME.pattern}$"
    modes = [Mode("a", "A", run=Path("a")), Mode(name, "B", run=Path("b"))]
    with pytest.raises(UsageError, match=r"^bench.toml: modes: .* is no mode name: 1 to 25 "):
        _settings(modes=modes)
    assert [m.name for m in _settings(modes=[modes[0], Mode("b-1.x_Y", "B", run=Path("b"))]).modes]
