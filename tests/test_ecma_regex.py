"""A JSON Schema pattern read as ECMA-262 means it, not as Python's re does."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from trecbench import json_schemas
from trecbench.ecma_regex import ecma_pattern

# (pattern, text, whether ECMA-262's RegExp.prototype.test finds the pattern in the text):
# each expectation from ECMA-262's definitions (22.2.2.9 CharacterClassEscape: \d [0-9],
# \w [0-9A-Z_a-z], \s WhiteSpace and LineTerminator; `.` no line terminator; [] empty)
ECMA_CASES = [
    # the leaderboard suite's systems: U+FEFF is ECMA's white space, \x1c-\x1f and U+0085
    # (Python's) are not, nor U+180E (a space separator no more)
    (r"^[^\s]+$", "bm25", True),
    (r"^[^\s]+$", "\ufeffbm25", False),
    (r"^[^\s]+$", "a\x1cb", True),
    (r"^[^\s]+$", "a\x1fb", True),
    (r"^[^\s]+$", "a\x85b", True),
    (r"^[^\s]+$", "a\u180eb", True),
    (r"^[^\s]+$", "a\u3000b", False),
    (r"^[^\s]+$", "a\u202fb", False),
    (r"^\s$", "\ufeff", True),
    (r"^\s$", "\x1c", False),
    (r"^\S$", "\x1c", True),
    (r"^\S$", "\ufeff", False),
    (r"^\S$", "\u2029", False),
    (r"^\d+$", "0123456789", True),
    (r"^\d+$", "\u0661\u0662", False),  # Arabic-Indic digits: Python's \d takes them
    (r"^\D$", "\u0661", True),
    (r"^\D$", "7", False),
    (r"^\w+$", "bm25_x", True),
    (r"^\w+$", "caf\xe9", False),
    (r"^\W$", "\xe9", True),
    (r"^\W$", "_", False),
    (r"^[\d\s]+$", "1 2\ufeff", True),
    (r"^[\d\s]+$", "1\x1c", False),
    (r"^[^\W]$", "\xe9", False),
    (r"^[^\W]$", "a", True),
    (r"^[\S]+$", "a\x1c\xe9", True),
    (r"^[\D-]+$", "a-\u0661", True),
    # \b and \B: boundaries of ECMA's \w, so between "a" and "é" lies one
    (r"a\b", "a\xe9", True),
    (r"\B\xe9", "a\xe9", False),
    (r"^\bx\b$", "x", True),
    (r"^[\b]$", "\b", True),  # in a class: the backspace, in both
    # `.` takes no line terminator
    (r"^a.b$", "axb", True),
    (r"^a.b$", "a\rb", False),
    (r"^a.b$", "a\u2028b", False),
    (r"^a.b$", "a\nb", False),
    (r"^[.]$", "\r", False),
    # $ is the end of the text, never before a final newline
    (r"^HP:[0-9]{7}$", "HP:0001250", True),
    (r"^HP:[0-9]{7}$", "HP:0001250\n", False),
    (r"^a$|[$]\$$", "$$", True),
    # [] matches nothing, [^] any character (Python would read `]` as a member)
    (r"a[]|b", "a]", False),
    (r"a[]|b", "b", True),
    (r"^a[^]b$", "a\nb", True),
    (r"^a[^]b$", "ab", False),
    # members a Python class would warn of as nested sets or set operations
    (r"^[[]$", "[", True),
    (r"^[a&&b~~|]+$", "a&b~|", True),
]

# ECMA-262 without the u flag (Annex B) reads the last `]` as itself; with it (JSON
# Schema's advice), these patterns are syntax errors. Either way they match nothing.
NEVER_MATCHING = [(r"[]$]", "]"), (r"[]$]", ""), (r"[^]$]", "x]"), (r"[^]$]", "]")]


@pytest.mark.parametrize(("pattern", "text", "matches"), ECMA_CASES)
def test_a_pattern_finds_what_ecma_262_finds(pattern, text, matches):
    assert bool(re.search(ecma_pattern(pattern), text)) is matches


@pytest.mark.parametrize(("pattern", "text"), NEVER_MATCHING)
def test_a_class_opening_with_a_bracket_is_empty_as_in_ecma_262(pattern, text):
    # it was translated to `[]\Z]`, which re refuses to compile
    assert re.search(ecma_pattern(pattern), text) is None


def test_node_agrees_with_every_case():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = """
    const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const compile = (p) => { try { return new RegExp(p, "u"); } catch { return new RegExp(p); } };
    console.log(JSON.stringify(cases.map(([p, t]) => compile(p).test(t))));
    """
    cases = [(p, t) for p, t, _ in ECMA_CASES] + NEVER_MATCHING
    answer = subprocess.run(
        [node, "-e", script], input=json.dumps(cases), capture_output=True, text=True, check=True
    )
    found = json.loads(answer.stdout)
    assert found == [m for _, _, m in ECMA_CASES] + [False] * len(NEVER_MATCHING)


@pytest.mark.parametrize("pattern", [r"^\Aa", r"a\Z", r"\a", r"\cJ", r"\p{L}", r"[\B]"])
def test_an_escaped_letter_read_otherwise_by_python_is_refused(pattern):
    with pytest.raises(ValueError, match="does not mean in Python's re what it means"):
        ecma_pattern(pattern)


def test_the_suite_schema_takes_the_system_names_ecma_262_takes():
    suite = json_schemas.load_schema("leaderboard_suite")
    schema = suite["properties"]["systems"] | {"$defs": suite["$defs"]}  # its names' $ref
    validator = json_schemas.schema_validator(schema)
    assert validator.is_valid(["bm25", "a\x1cb"])
    assert not validator.is_valid(["\ufeffbm25"])
    assert not validator.is_valid(["bm\u00a025"])
