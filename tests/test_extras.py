"""A missing extra names both ways to install it (issue 27 item 7)."""

from __future__ import annotations

import pytest

from trecbench import extras
from trecbench.errors import MissingExtraError


@pytest.mark.parametrize("module", sorted(extras.PACKAGES))
def test_the_hint_names_pypi_and_a_checkout(module):
    package, extra = extras.PACKAGES[module]
    message = str(extras.missing(module, "a feature", "give --other"))
    assert message == (
        f"a feature needs {package}, which is not installed: pip install 'trecbench[{extra}]' "
        f"(from a checkout: pip install '.[{extra}]'), or give --other"
    )


def test_require_raises_the_hint_for_an_absent_module(monkeypatch):
    monkeypatch.setitem(extras.PACKAGES, "trecbench_no_such_module", ("nothing", "none"))
    with pytest.raises(MissingExtraError, match=r"pip install '\.\[none\]'"):
        extras.require("trecbench_no_such_module", "a feature")
