"""Every rule id the package raises is in the validator's rule table (issue 26: X6, raised
by score, was missing, so the generated rule page never mentioned it)."""

from __future__ import annotations

import ast
import re

from conftest import ROOT

from trecbench.validation.rules import CHECKS

PACKAGE = ROOT / "trecbench"
# the table's namespaces (R runs, Q qrels, X a run against qrels): a number and maybe a
# named check (R1.short), or a made-up name (Q-DUP, which a rule id must never be)
RULE_ID = re.compile(r"[RQX](\d+(\.[a-z0-9]+)?|-[A-Z]+)")
NOT_RULES = {"Q0"}  # the literal second field of a run line


def rule_ids_in_the_package() -> dict[str, set[str]]:
    """``rule id -> files`` of every string in the code shaped like a rule id (errors'
    ``rule`` arguments, the validator's checks, the gate's exceptions)."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path == PACKAGE / "validation" / "rules.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if RULE_ID.fullmatch(node.value) and node.value not in NOT_RULES:
                    found.setdefault(node.value, set()).add(path.name)
    return found


def test_every_rule_id_raised_is_in_the_rule_table():
    found = rule_ids_in_the_package()
    assert {"R7", "R27", "Q5", "X5", "X6", "R23.utf8"} <= set(found)  # the scan sees them
    known = set(CHECKS) | {check.rule for check in CHECKS.values()}
    assert {rule: sorted(files) for rule, files in found.items() if rule not in known} == {}


def test_the_empty_file_refusal_is_worded_in_one_place():
    """R26's refusal ("empty file"), said by the validator, score on Dask and the JSON
    readers, is one constant (trecbench.errors.EMPTY_FILE, read as streams.EMPTY_FILE
    too: the configurations' loaders may not import the input package): a string of the code
    that spells it again could drift from the others. The rule table's summary is the
    rule's documentation, not a message, and is left out."""
    spelt = []
    for path in PACKAGE.rglob("*.py"):
        if path == PACKAGE / "validation" / "rules.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if node.value.startswith("empty file"):
                    spelt.append(path.relative_to(PACKAGE).as_posix())
    assert spelt == ["errors.py"]
