"""Shared fixtures: paths to ../shared data (tests skip cleanly without it)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
TREC_EVAL_SUITE = SHARED / "trec_eval-9.0.8-test"
PHENTRIEVE = SHARED / "phentrieve-benchmarks"
CODE_CHUNK = SHARED / "code-chunk"


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} not available (../shared is absent in a user's clone)")
    return path


@pytest.fixture
def trec_eval_suite() -> Path:
    """trec_eval 9.0.8's own test folder."""
    return _require(TREC_EVAL_SUITE)


@pytest.fixture
def phentrieve_data() -> Path:
    """The Phentrieve German HPO benchmark test cases."""
    return _require(PHENTRIEVE)


@pytest.fixture
def code_chunk_data() -> Path:
    """One real code-chunk eval output and its published summary."""
    return _require(CODE_CHUNK)
