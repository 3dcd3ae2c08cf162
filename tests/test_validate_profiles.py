"""TREC defaults (depth 1,000) and the R task's profile."""

from __future__ import annotations

import pytest

from trecbench.cli.validate import PROFILES as CLI_PROFILES
from trecbench.files import tokenize
from trecbench.validation import CHECKS, PROFILES, validate_tokens

E, W, I = "error", "warning", "info"  # noqa: E741


def run(lines: int, topic: str = "q1", **options):
    data = b"".join(
        b"%s Q0 d%d %d %d t\n" % (topic.encode(), i, i + 1, lines - i) for i in range(lines)
    )
    return validate_tokens(tokenize(data, "r"), "run", **options)


def triples(result):
    return {(f.rule, f.severity, f.line) for f in result.findings}


def test_default_depth_is_1000_and_rtask_is_100():
    assert run(1000).ok and run(101, profile="strict").ok
    deep = run(1001)
    (finding,) = deep.findings
    assert (finding.rule, finding.severity, finding.line) == ("R8", E, 1001)
    # trec_eval 9.0.8 scores every document (-M defaults to MAX_LONG): the message says so
    assert finding.message == (
        "topic q1 has more than 1000 documents (--max-depth 1000); trec_eval scores them "
        "all unless run with -M1000"
    )
    assert ("R8", E, 101) in triples(run(101, profile="rtask"))
    assert run(101, profile="rtask", max_depth=200).ok
    assert run(5000, max_depth=None).ok


def test_profiles_are_named_once():
    assert CLI_PROFILES == tuple(PROFILES)
    assert (PROFILES["default"].max_depth, PROFILES["rtask"].max_depth) == (1000, 100)
    order = {E: 0, W: 1, I: 2}
    for check in CHECKS.values():
        assert order[check.rtask] <= order[check.default], check.key  # rtask only adds


RTASK_CASES = [
    # the R task's list: non-empty, all queries covered, six columns, unique ranks, Q0
    ("empty run", b"", {}, ("R26", E, None)),
    ("whitespace only", b" \n", {}, ("R9", E, None)),
    ("query not covered", b"1 Q0 a 1 2 t\n", {"qrels_topics": ["1", "2"]}, ("X2", E, None)),
    ("seven columns", b"1 Q0 a 1 2 my tag\n", {}, ("R1", E, 1)),
    ("five columns", b"1 a 1 2 t\n", {}, ("R1", E, 1)),
    ("rank twice", b"1 Q0 a 1 2 t\n1 Q0 b 1 1 t\n", {}, ("R11", E, 2)),
    ("not Q0", b"1 QO a 1 2 t\n", {}, ("R3", E, 1)),
]


@pytest.mark.parametrize(
    ("data", "options", "expected"), [c[1:] for c in RTASK_CASES], ids=[c[0] for c in RTASK_CASES]
)
def test_rtask_rules(data, options, expected):
    result = validate_tokens(tokenize(data, "r"), "run", profile="rtask", **options)
    assert expected in triples(result)
    if expected[0] in ("X2", "R11", "R3"):  # the R task's additions: warnings by default
        default = validate_tokens(tokenize(data, "r"), "run", **options)
        assert default.ok and (expected[0], W, expected[2]) in triples(default)


def test_rtask_accepts_zero_based_unique_ranks():
    # "rank uniqueness per query", not numbering: R11.sequence stays a warning
    result = validate_tokens(tokenize(b"1 Q0 a 0 2 t\n1 Q0 b 1 1 t\n", "r"), "run", profile="rtask")
    assert result.ok and ("R11", W, 1) in triples(result)
    both = validate_tokens(tokenize(b"1 Q0 a 0 3 t\n1 Q0 b 0 2 t\n1 Q0 c 5 1 t\n", "r"), "run")
    assert {f.check for f in both.findings if f.rule == "R11"} == {"R11.unique", "R11.sequence"}
