"""The package's public surface: every lazily exported name resolves, one version."""

from __future__ import annotations

from importlib.metadata import version

import trecbench


def test_every_export_resolves():
    for name in trecbench.__all__:
        assert getattr(trecbench, name) is not None, name


def test_installed_version_is_the_package_version():
    assert version("trecbench") == trecbench.__version__
