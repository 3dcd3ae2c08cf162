"""The package's public surface: every lazily exported name resolves, one version."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

import pytest

import trecbench
import trecbench.validation


def test_every_export_resolves():
    for name in trecbench.__all__:
        assert getattr(trecbench, name) is not None, name


@pytest.mark.parametrize("package", [trecbench, trecbench.validation])
def test_both_packages_export_lazily_through_one_helper(package):
    # trecbench.lazy: a name not exported is an AttributeError naming its package, and
    # dir() lists the exports before they are imported
    with pytest.raises(
        AttributeError, match=f"module '{package.__name__}' has no attribute 'nope'"
    ):
        package.nope  # noqa: B018
    assert {"Finding", "validate_run"} <= set(dir(package))
    child = (
        f"import sys, {package.__name__} as p; dir(p); p.Finding; "
        "print('numpy' in sys.modules, p.__dict__['Finding'].__module__)"
    )
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True)
    assert done.stdout.split() == ["False", "trecbench.validation.findings"], done.stderr


def test_installed_version_is_the_package_version():
    assert version("trecbench") == trecbench.__version__
