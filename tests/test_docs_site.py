"""The documentation site builds without a warning, and no page cites a file that is not there.

``mkdocs build --strict`` (mkdocs.yml: every page in the nav, every link and anchor valid)
into a scratch folder, about 1 s. The README is no page of the site (GitHub shows it), so its
links are checked here, and so is every ``docs/<page>.md`` that code or docs name.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import ROOT

LINK = re.compile(r"\]\(([^)\s]+)\)")
CITED_PAGE = re.compile(r"\bdocs/[\w./-]+\.md\b")


def test_site_builds_strictly_without_warnings(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra (part of the test extra) is absent")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    assert (tmp_path / "index.html").is_file()
    # offline: no page loads a script or stylesheet from elsewhere (highlight.js's CDN)
    outside = re.compile(r"<(?:script|link)[^>]+(?:src|href)=\"(?:https?:)?//", re.I)
    pages = {page.name: page.read_text(encoding="utf-8") for page in tmp_path.rglob("*.html")}
    assert [name for name, text in pages.items() if outside.search(text)] == []
    assert 'class="codehilite"' in pages["index.html"] or any(
        'class="codehilite"' in text for text in pages.values()
    )


def test_readme_links_resolve():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = [t.split("#")[0] for t in LINK.findall(readme) if "://" not in t]
    assert targets
    assert [t for t in targets if t and not (ROOT / t).exists()] == []


def test_every_cited_docs_page_exists():
    texts = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    for folder in ("trecbench", "tests", "scripts", "benchmarks"):
        texts += (ROOT / folder).rglob("*.py")
    missing = {
        f"{path.relative_to(ROOT)}: {page}"
        for path in texts
        for page in CITED_PAGE.findall(path.read_text(encoding="utf-8"))
        if not (ROOT / page).is_file()
    }
    assert sorted(missing) == []
