"""Measure parameters are checked against the domains the registry declares (issue 25):
refused in ir_measures and display spellings, warned about in trec_eval's (whose numbers
stay trec_eval's). Every registered parameter is walked: each numeric one has a domain, a
value just outside is refused and a value just inside accepted."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from trecbench.errors import ParameterDomainError, ParameterDomainWarning, UsageError
from trecbench.measures import parse_measure, parse_measures, registry
from trecbench.measures.names import Measure
from trecbench.measures.registry import (
    FLOAT_CUTOFF,
    FLOAT_CUTOFFS,
    FLOAT_PARAMS,
    INT_CUTOFF,
    LONG_CUTOFFS,
    LONG_MAX,
    PAIRS,
    Domain,
)
from trecbench.measures.trec_params import numbers_outside

HERE = Path(__file__).resolve().parent
RANDOM = HERE / "fixtures" / "trec_eval_random"
NUMERIC = (int, float, dict)


def _outside(domain: Domain, integer: bool) -> list:
    """Values just outside ``domain`` (and non-finite ones for floats)."""
    values = []
    if not math.isinf(domain.low):
        step = domain.low if domain.low_open else _before(domain.low, integer)
        values.append(int(step) if integer else float(step))
    if not math.isinf(domain.high):
        step = domain.high if domain.high_open else _after(domain.high, integer)
        values.append(int(step) if integer else float(step))
    if not integer:
        values.append(math.inf)
    return values


def _inside(domain: Domain, integer: bool) -> list:
    """Values just inside ``domain``'s ends (or any finite number)."""
    low = domain.low if not domain.low_open else _after(domain.low, integer)
    high = domain.high if not domain.high_open else _before(domain.high, integer)
    values = [v for v in (low, high) if not math.isinf(v)] or [-12345, 12345]
    return [int(v) if integer else float(v) for v in values]


def _before(x, integer):
    return x - 1 if integer else math.nextafter(x, -math.inf)


def _after(x, integer):
    return x + 1 if integer else math.nextafter(x, math.inf)


def _literal(value) -> str:
    return "1e400" if value == math.inf else repr(value)


def _named(definition: registry.Definition) -> str | None:
    """A spelling (with its cutoff) that the named parser reads as this family."""
    at = {INT_CUTOFF: "@5", FLOAT_CUTOFF: "@0.5"}.get(definition.cutoff, "")
    when = [(k, v) for k, v in definition.ir_measures_when if v is not ...]
    for name in (definition.ir_measures, definition.display, definition.name):
        if name is None:
            continue
        for suffix in [at, ""] if not definition.cutoff_required else [at]:
            params = "".join(f"{k}={v!r}," for k, v in when)
            try:
                measure = parse_measure(f"{name}({params})" + suffix)
            except UsageError:
                continue
            if measure.family == definition.name:
                return name + f"({params}{{}})" + suffix
    return None


def _params_with_domains():
    for definition in registry.definitions():
        for param in definition.params:
            if param.domain is not None:
                yield definition, param


def test_every_numeric_parameter_declares_a_domain_with_its_reason():
    for definition in registry.definitions():
        for param in definition.params:
            if param.type in NUMERIC:
                assert param.domain is not None, (definition.name, param.name)
                assert param.domain.reason, (definition.name, param.name)
        has_numbers = definition.cutoff is not None or definition.trec_params in (
            LONG_CUTOFFS,
            FLOAT_CUTOFFS,
            FLOAT_PARAMS,
            PAIRS,
        )
        assert (definition.numbers is not None) == has_numbers, definition.name
        if definition.numbers is not None:
            assert definition.numbers.reason, definition.name


@pytest.mark.parametrize(
    ("definition", "param"),
    list(_params_with_domains()),
    ids=[f"{d.name}.{p.name}" for d, p in _params_with_domains()],
)
def test_every_parameter_refuses_just_outside_and_accepts_just_inside(definition, param):
    integer = param.type is int or bool(param.domain.integer)
    wrap = (lambda v: {1: v}) if param.type is dict else (lambda v: v)
    for value in _outside(param.domain, integer):
        assert str(param.domain) in (param.check(wrap(value)) or ""), value
    for value in _inside(param.domain, integer):
        assert param.check(wrap(value)) is None, value
    spelled = _named(definition)
    if spelled is not None:  # as the user writes it: refused in one line, exit 1

        def text(value):
            shown = f"{{1:{_literal(value)}}}" if param.type is dict else _literal(value)
            return spelled.format(f"{param.name}={shown}")

        for value in _outside(param.domain, integer):
            with pytest.raises(ParameterDomainError) as error:
                parse_measure(text(value))
            assert str(param.domain) in str(error.value) and error.value.exit_code == 1
        for value in _inside(param.domain, integer):
            assert parse_measure(text(value)).family == definition.name
    elif definition.trec_params == PAIRS:  # rbp.p=...: trec_eval's number, and a warning
        for value in _outside(param.domain, integer):
            with pytest.warns(ParameterDomainWarning, match=f"{param.name} must be"):
                parse_measure(f"{definition.trec_name}.{param.name}={_literal(value)}")
        for value in _inside(param.domain, integer):
            with warnings.catch_warnings():
                warnings.simplefilter("error", ParameterDomainWarning)
                parse_measure(f"{definition.trec_name}.{param.name}={_literal(value)}")


def _numbers_cases():
    for definition in registry.definitions():
        if definition.numbers is not None:
            yield definition


@pytest.mark.parametrize("definition", list(_numbers_cases()), ids=lambda d: d.name)
def test_every_cutoff_and_trec_eval_number_has_its_domain_checked(definition):
    domain = definition.numbers
    integer = definition.cutoff == INT_CUTOFF
    if definition.trec_name is None or definition.cutoff is not None:
        spelled = _named(definition)
        if spelled is not None and "@" in spelled:
            at = spelled.replace("({})", "").split("@")[0]
            for value in _outside(domain, integer):
                with pytest.raises(ParameterDomainError, match=re.escape(str(domain))):
                    parse_measure(f"{at}@{_literal(value)}")
            for value in _inside(domain, integer):
                assert parse_measure(f"{at}@{_literal(value)}").family == definition.name
    if definition.trec_name is None or definition.trec_params == LONG_CUTOFFS:
        return  # trec_eval itself refuses cutoffs below 1; atol holds the rest in a long
    count = 4 if definition.name == "utility" else 1
    for value in _outside(domain, False):
        number = ",".join([_literal(value)] * count)
        text = f"{definition.trec_name}.{'1=' if definition.trec_params == PAIRS else ''}{number}"
        with pytest.warns(ParameterDomainWarning, match="computed as trec_eval computes it"):
            parse_measure(text)


@pytest.mark.parametrize(
    ("text", "domain"),
    [
        ("RBP(p=1.5)", "in (0, 1)"),
        ("RBP(p=-0.5)", "in (0, 1)"),
        ("RBP(p=1)", "in (0, 1)"),
        ("Q(beta=-2)", "in [0, 1e+09]"),
        ("INST(T=-1)", "in [1e-09, 1e+09]"),
        ("INST(T=0)", "in [1e-09, 1e+09]"),
        ("Compat(p=2)", "in (0, 1)"),
        ("Compat(p=0)", "in (0, 1)"),
        ("SetF(beta=-1)", "> 0"),
        ("SetF(beta=0)", "> 0"),
        ("Judged@9223372036854775808", f"in [1, {LONG_MAX}]"),
        ("nDCG@0", f"in [1, {LONG_MAX}]"),
        ("alpha_nDCG@21", "in [1, 20]"),
        ("nDCG(gains={1:1.5})@10", "an integer in [-2147483648, 2147483647]"),
        ("RBP(max_rel=0)", "in [1, 2147483647]"),
        ("SDCG(min_rel=3,max_rel=1)@10", "min_rel must be below max_rel"),
        ("RBP(p=1e400)", "in (0, 1)"),
    ],
)
def test_the_issue_cases_are_refused_naming_the_domain(text, domain):
    with pytest.raises(ParameterDomainError) as error:
        parse_measure(text)
    assert domain in str(error.value) and "\n" not in str(error.value)


def test_measure_objects_are_checked_too():
    with pytest.raises(ParameterDomainError, match=r"in \(0, 1\)"):
        parse_measures([Measure("RBP", None, (("p", 1.5),), "RBP(p=1.5)")])


def test_huge_trec_eval_cutoffs_are_held_in_a_long_as_atol_does():
    from trecbench.errors import ParameterDomainWarning

    with pytest.warns(ParameterDomainWarning, match="as 9223372036854775807"):
        assert parse_measure("P.99999999999999999999999").cutoffs == (LONG_MAX,)
    with pytest.warns(ParameterDomainWarning) as said:  # beyond int()'s limit
        assert parse_measure(f"P.{'9' * 5000}").cutoffs == (LONG_MAX,)
    assert len(str(said[0].message)) < 800  # the value quoted in part (it was 10,000 long)


def _trecbench(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "trecbench", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)


def _case(name: str) -> dict:
    import json

    cases = json.loads((RANDOM / "cases.json").read_text())["cases"]
    return next(case for case in cases if case["name"] == name)


@pytest.mark.parametrize("measure", ["RBP(p=1.5)", "Judged@9223372036854775808", "INST(T=0)"])
def test_cli_refuses_in_one_line_with_nothing_on_stdout(measure, capsys, monkeypatch):
    from trecbench.cli import run

    monkeypatch.chdir(RANDOM)
    qrels, results = _case("mixed__negative_cutoffs")["trecbench_argv"][-2:]
    assert run(["score", "-m", measure, qrels, results]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and " must be " in err, err


def test_trec_eval_spellings_print_trec_eval_bytes_and_warn_in_one_line_each():
    """The stored output of the trec_eval binary for Rprec_mult.-1 and iprec_at_recall.-0.5
    (fixtures/trec_eval_random, case mixed__negative_cutoffs), byte for byte."""
    case = _case("mixed__negative_cutoffs")
    done = _trecbench("score", *case["trecbench_argv"], cwd=RANDOM)
    assert done.returncode == case["exit_code"] == 0
    assert done.stdout == (RANDOM / case["stdout"]).read_text()
    lines = [line for line in done.stderr.splitlines() if "ParameterDomainWarning" in line]
    assert len(lines) == 2 and all(line.startswith("trecbench: warning: ") for line in lines)
    assert "the multiplier must be > 0" in lines[0] and "recall level must be in [0, 1]" in lines[1]
    assert "Traceback" not in done.stderr and ".py:" not in done.stderr


def test_rbp_outside_its_domain_prints_trec_eval_10s_number(capsys, monkeypatch):
    """Issue 25: trec_eval 10.0 itself prints -511.8476 for rbp.p=1.5 on the demo data."""
    from trecbench.cli import run

    monkeypatch.chdir(HERE.parent)
    argv = ["score", "--compat", "10.0", "-m", "rbp.p=1.5"]
    assert run([*argv, "qrels/hpo-demo.qrels", "runs/tfidf-char.run"]) == 0
    out, err = capsys.readouterr()
    assert out == "rbp_p=1.5             \tall\t-511.8476\n"
    warned = [line for line in err.splitlines() if "ParameterDomainWarning" in line]
    assert warned == [
        "trecbench: warning: ParameterDomainWarning: measure 'rbp.p=1.5': p must be in (0, 1) "
        f"({registry.get('rbp').param('p').domain.reason}), not 1.5; computed as trec_eval "
        "computes it"
    ]


# ---------------------------------------------------------------------------------------
# the adversarial suite (issue 25 item 11): hostile names and numbers

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FUZZ = settings(derandomize=True, deadline=None, database=None, max_examples=120)
PIECES = st.sampled_from(
    ["nDCG", "RBP", "P", "rbp", "ndcg", "IPrec", "SetF", "INST", "Judged", "alpha_nDCG",
     "(", ")", "=", "@", ".", ",", "{", "}", ":", "'", '"', "\\", " ", "p", "beta", "gains",
     "1", "0", "-", "1e400", "9" * 30, "0x10", "ish", "if", "_", "α", "\x00", "\n", "nan"]
)  # fmt: skip


@FUZZ
@given(st.one_of(st.lists(PIECES, max_size=8).map("".join), st.text(max_size=20)))
def test_any_text_is_a_measure_or_a_one_line_refusal(text):
    from trecbench.errors import TrecbenchError

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            measure = parse_measure(text, "10.0")
        except TrecbenchError as error:
            assert error.exit_code in (1, 2)
        else:  # parsed: its numbers are in their domains, or it is trec_eval's and warned
            outside = numbers_outside(measure.definition, measure.params)
            warned = [w for w in caught if w.category is ParameterDomainWarning]
            assert len(warned) == len(outside) and (not outside or measure.trec_spelled)
    assert all(w.category is ParameterDomainWarning for w in caught), [
        str(w.message) for w in caught
    ]


@FUZZ
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_persistence_is_accepted_exactly_inside_its_domain(p):
    text = f"RBP(p={'1e400' if p == math.inf else '-1e400' if p == -math.inf else repr(p)})"
    if math.isnan(p):
        text = "RBP(p=nan)"  # not a literal: refused as such
    inside = 0 < p < 1
    try:
        measure = parse_measure(text)
    except UsageError:
        assert not inside
    else:
        assert inside and measure.option("p") == p


def test_min_rel_at_or_above_the_qrels_largest_grade_is_refused_in_one_line():
    """max_rel comes from the qrels when not given, so only scoring can tell (it was an
    internal error in cwl_eval: a division by zero)."""
    pytest.importorskip("cwl")
    from conftest import ROOT

    import trecbench

    with pytest.raises(
        trecbench.errors.UnevaluableTopicError,
        match=r"hpo-demo.qrels:1: INST\(min_rel=5\): min_rel=5 must be below max_rel, which is "
        r"the largest grade in the qrels when not given: 1 \(document ",
    ):
        trecbench.evaluate(
            str(ROOT / "qrels" / "hpo-demo.qrels"),
            str(ROOT / "runs" / "tfidf-word.run"),
            ["INST(min_rel=5)"],
        )


# one topic: d1 and d3 relevant, d2 judged not; the run ranks dX (unjudged), d1, d3
ONE_TOPIC_QRELS = {"1": {"d1": 1, "d2": 0, "d3": 1}}
ONE_TOPIC_RUN = {"1": {"dX": 3.0, "d1": 2.0, "d3": 1.0}}


@pytest.mark.parametrize(
    ("spelling", "said", "te908", "te100"),
    [  # te908, te100: what trec_eval 9.0.8 and 10.0 print for it on these inputs
        ("ndcg.x=5", "the grade 'x' is not an integer: trec_eval 9.0.8 reads it as grade 0", 0.1845,
         0.6934),
        ("ndcg.1.5=2", "the grade '1.5' is not an integer: trec_eval 9.0.8 reads it as grade 1",
         0.6934, 0.6934),
        ("ndcg.=3", "the grade '' is not an integer: trec_eval 9.0.8 reads it as grade 0", 0.2738,
         0.6934),
        ("ndcg.99999999999=1", r"a grade of the gain map must be in \[-2147483648, 2147483647\]",
         0.6934, 0.6934),
    ],
)  # fmt: skip
def test_a_gain_map_grade_trec_eval_misreads_is_warned_of(spelling, said, te908, te100):
    """The gain side of a pair read in part was warned of, the grade side not: ndcg.x=5
    printed 9.0.8's ndcg.0=5 (atol reads x as 0; 10.0 leaves the pair out) without a word."""
    import trecbench

    for compat, printed in (("9.0.8", te908), ("10.0", te100)):
        with pytest.warns(ParameterDomainWarning, match=said):
            got = trecbench.evaluate(ONE_TOPIC_QRELS, ONE_TOPIC_RUN, [spelling], compat=compat)
        assert round(got.to_frame().iloc[0, 0], 4) == printed
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an integer grade in a C int says nothing
        parse_measure("ndcg.0=5,2147483647=1,-2147483648=2")


# ---------------------------------------------------------------------------------------
# said once: a configuration's measure, and the labels looked up for each table


def _domain_warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if "ParameterDomainWarning" in line]


@pytest.mark.parametrize(
    ("measure", "said"),
    [
        ("Rprec_mult.0", "the multiplier must be > 0"),
        ("ndcg_cut.1.5", "trec_eval reads '1.5' only in part"),
        ("iprec_at_recall.1.5", "the recall level must be in [0, 1]"),
    ],
)
def test_a_benchmark_measure_outside_its_domain_is_warned_of_once(
    tmp_path, capsys, monkeypatch, measure, said
):
    """The configuration's reading warned, then evaluate's own reading of the names, then
    each table's lookup of the label (Rprec_mult_0.00): twice, up to twelve times."""
    from trecbench.cli import run

    for name in ("hpo-rtask.qrels", "lexical.run", "vector.run"):
        (tmp_path / name).write_bytes((HERE.parent / "data" / "hpo-rtask" / name).read_bytes())
    (tmp_path / "two.toml").write_text(
        f'measures = ["{measure}", "P_5"]\nqrels = "hpo-rtask.qrels"\n'
        '[modes.lexical]\nrun = "lexical.run"\n[modes.vector]\nrun = "vector.run"\n'
    )
    monkeypatch.chdir(tmp_path)
    assert run(["benchmark", "two.toml", "-o", "out"]) == 0
    warned = _domain_warnings(capsys.readouterr().err)
    assert len(warned) == 1 and f"measure '{measure}': {said}" in warned[0], warned
    assert (tmp_path / "out" / "report.html").exists()


@pytest.mark.parametrize("output", [["--format", "table"], ["--format", "latex"], ["-o", "out"]])
def test_a_compared_measure_outside_its_domain_is_warned_of_once(
    tmp_path, capsys, monkeypatch, output
):
    from trecbench.cli import run

    monkeypatch.chdir(HERE.parent)
    runs = ["qrels/hpo-demo.qrels", "runs/tfidf-char.run", "runs/tfidf-word.run"]
    if output[0] == "-o":
        output = ["-o", str(tmp_path / "out")]
    assert run(["compare", "-m", "Rprec_mult.0", *output, *runs]) == 0
    warned = _domain_warnings(capsys.readouterr().err)
    assert len(warned) == 1 and "measure 'Rprec_mult.0': the multiplier" in warned[0], warned


def test_a_leaderboard_measure_outside_its_domain_is_warned_of_once(tmp_path, capsys, monkeypatch):
    from trecbench.cli import run

    monkeypatch.chdir(HERE.parent)
    suite = tmp_path / "suite.toml"
    suite.write_text(
        'systems = ["tfidf-char", "tfidf-word"]\nmeasures = ["ndcg_cut.1.5"]\n'
        f'[collections.demo]\nqrels = "{HERE.parent}/qrels/hpo-demo.qrels"\n'
        f'runs = "{HERE.parent}/runs/{{system}}.run"\n'
    )
    assert run(["leaderboard", str(suite)]) == 0
    warned = _domain_warnings(capsys.readouterr().err)
    assert len(warned) == 1 and "measure 'ndcg_cut.1.5': trec_eval reads" in warned[0], warned
