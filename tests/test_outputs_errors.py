"""A write that fails is said as the output it failed on, in the system's words for its
errno (reviewer 437): a folder on a read-only file system (a read-only bind mount) is
'Read-only file system', not 'Permission denied'; a target the rename cannot replace (a
read-only bind mount over the file itself: EBUSY) is named as the target, not as its
path in the staging folder."""

from __future__ import annotations

import errno
import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
from conftest import ROOT

from trecbench import publication
from trecbench.errors import OutputError
from trecbench.outputs import OutputSet, check_target


def _denied(monkeypatch, read_only: bool) -> None:
    """os.access() refusing every folder, statvfs() telling the file system read-only or
    not (a read-only bind mount cannot be made without privileges)."""
    refused = lambda *args, **kwargs: False  # noqa: E731
    monkeypatch.setattr(os, "access", refused)
    monkeypatch.setattr(os, "supports_effective_ids", {refused})
    flags = os.ST_RDONLY if read_only else 0
    monkeypatch.setattr(os, "statvfs", lambda path: types.SimpleNamespace(f_flag=flags))


def test_a_folder_on_a_read_only_file_system_is_said_so(tmp_path, monkeypatch):
    _denied(monkeypatch, read_only=True)
    with pytest.raises(OutputError) as refused:
        check_target(tmp_path / "reports" / "a.json")
    assert str(refused.value) == f"{tmp_path}: cannot write here (Read-only file system)"
    _denied(monkeypatch, read_only=False)  # a matter of rights: said as before
    with pytest.raises(OutputError) as refused:
        check_target(tmp_path / "a.json")
    assert str(refused.value) == f"{tmp_path}: cannot write here (Permission denied)"


def _failing_for(monkeypatch, module, name: str, target_name: str, code: int) -> None:
    """``module.name`` (os.replace, os.rename) failing with ``code`` on a path ending in
    ``target_name``, with the paths the system's error carries (source, then target)."""
    real = getattr(module, name)

    def failing(source, target, *args, **kwargs):
        if os.fspath(source).endswith(target_name):
            raise OSError(code, os.strerror(code), os.fspath(source), None, os.fspath(target))
        return real(source, target, *args, **kwargs)

    monkeypatch.setattr(module, name, failing)


def test_a_target_that_cannot_be_replaced_is_named_not_its_staged_file(tmp_path, monkeypatch):
    # a read-only bind mount over ro3/report.html: the rename onto it fails with EBUSY
    kept, target = tmp_path / "a.json", tmp_path / "report.html"
    kept.write_text("old a")
    target.write_text("old page")
    _failing_for(monkeypatch, publication.os, "replace", "/report.html", errno.EBUSY)
    with pytest.raises(OutputError) as refused:
        with OutputSet() as out:
            out.write(kept, "new a")
            out.write(target, "new page")
    assert str(refused.value) == f"{target}: cannot write (Device or resource busy)"
    assert (kept.read_text(), target.read_text()) == ("old a", "old page")  # none of it
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a.json", "report.html"]


def test_a_staging_folder_s_own_file_that_fails_is_said_as_the_folder(tmp_path, monkeypatch):
    # the journal renamed into place fails: the folder staged into is named, not the
    # journal's path inside the staging folder (which is removed)
    _failing_for(monkeypatch, publication.os, "rename", ".tmp", errno.EROFS)
    with pytest.raises(OutputError) as refused:
        with OutputSet() as out:
            out.write(tmp_path / "a.json", "new a")
    assert str(refused.value) == f"{tmp_path}: cannot write (Read-only file system)"
    assert list(tmp_path.iterdir()) == []


def test_a_read_only_bind_mount_is_said_so_by_the_command(tmp_path):
    # the real thing where a user namespace may bind-mount (Linux, unshare allowed)
    if shutil.which("unshare") is None or not sys.platform.startswith("linux"):
        pytest.skip("no unshare")
    (tmp_path / "ro").mkdir()
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=30, check=False)
    if probe.returncode != 0:
        pytest.skip("no user namespaces here")
    script = (
        f"mount --bind -o ro {tmp_path}/ro {tmp_path}/ro && "
        f'exec "$0" -m trecbench score -m map --manifest {tmp_path}/ro/m.json "$1" "$2"'
    )
    qrels, run = ROOT / "qrels" / "hpo-demo.qrels", ROOT / "runs" / "tfidf-word.run"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, sys.executable, str(qrels), str(run)],
        capture_output=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    said = f"trecbench: {tmp_path}/ro: cannot write here (Read-only file system)\n"
    assert done.stderr.decode() == said


def test_a_path_up_through_a_missing_folder_is_refused_before_the_work(tmp_path, monkeypatch):
    # compare -o sub/.. (sub missing) wrote into the working folder through a sub it made
    # and removed once empty: the paths printed and in the manifest, sub/../report.html,
    # opened nothing
    monkeypatch.chdir(tmp_path)
    qrels, run = ROOT / "qrels" / "hpo-demo.qrels", ROOT / "runs" / "tfidf-word.run"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    other = ROOT / "runs" / "tfidf-char.run"
    command = [sys.executable, "-m", "trecbench", "compare", str(qrels), str(run), str(other)]
    done = subprocess.run([*command, "-o", "sub/.."], capture_output=True, env=env, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stdout == b""  # refused before the work
    assert done.stderr.decode() == (
        "trecbench: sub/../BenchmarkReport.json: the folder sub does not exist, so sub/.. "
        "names no folder; give the path without it\n"
    )
    assert os.listdir(tmp_path) == []
    with pytest.raises(OutputError, match="^sub/a/../../x.json: the folder sub/a does not"):
        check_target("sub/a/../../x.json")
    (tmp_path / "sub").mkdir()  # through a folder that is there: written and opened
    with OutputSet() as out:
        out.write("sub/../x.json", b"{}")
    assert (tmp_path / "sub" / ".." / "x.json").read_bytes() == b"{}"


@pytest.mark.parametrize(
    "command, output",
    [
        (["compare", "{qrels}", "{run}", "{other}", "-o", "out"], "out"),
        (["convert", "msmarco", "{tsv}", "-o", "out"], "out"),
        (["fuse", "{run}", "{other}", "-o", "fused.run"], "fused.run"),
    ],
)
def test_a_relative_output_in_a_removed_working_folder_is_named(tmp_path, command, output):
    # cd gone && rmdir ../gone: compare and convert (after its work) said only "trecbench:
    # No such file or directory", a relative path spelled out (realpath) with no getcwd
    gone = tmp_path / "gone"
    gone.mkdir()
    files = {
        "qrels": ROOT / "qrels" / "hpo-demo.qrels",
        "run": ROOT / "runs" / "tfidf-word.run",
        "other": ROOT / "runs" / "tfidf-char.run",
        "tsv": ROOT / "data" / "convert" / "msmarco-run.tsv",
    }
    argv = [part.format(**files) for part in command]
    script = 'cd "$1" && rmdir "$1" && shift && exec "$@"'
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        ["sh", "-c", script, "sh", str(gone), sys.executable, "-m", "trecbench", *argv],
        capture_output=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.decode() == (
        f"trecbench: {output}: cannot write here (No such file or directory: the working "
        "folder was removed; give an absolute path)\n"
    )
    assert os.listdir(tmp_path) == []


# score's outputs under compressed names: the keyword (--option), the name, what is
# written there and the suffix the refusal suggests
COMPRESSED_OUTPUTS = [
    ("report", "r.json.gz", "JSON", ".json"),
    ("manifest", "m.JSON.zst", "JSON", ".json"),
    ("html", "p.html.bz2", "an HTML page", ".html"),
]


def _compressed_name_refusal(target: Path, what: str, suffix: str) -> str:
    """The refusal of ``target``, a name ending in a compression's suffix."""
    found = target.name.rsplit(".", 1)[1]
    return f"{target}: trecbench writes {what} here, uncompressed, not {found}: " + (
        f"name it otherwise ({suffix})"
    )


@pytest.mark.parametrize(("keyword", "name", "what", "suffix"), COMPRESSED_OUTPUTS)
def test_a_json_or_page_output_named_compressed_is_refused(
    tmp_path, capsys, keyword, name, what, suffix
):
    # score --report r.json.gz wrote plain JSON under a compressed name (zcat, a browser
    # then failed on it), where fuse -o f.run.gz and pool -o p.gz refuse such a name
    from trecbench.cli import run

    files = [str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-char.run")]
    target = tmp_path / name
    assert run(["score", "-m", "P.5", f"--{keyword}", str(target), *files]) == 1
    refusal = _compressed_name_refusal(target, what, suffix)
    assert capsys.readouterr().err == f"trecbench: {refusal}\n"
    assert not target.exists()


@pytest.mark.parametrize(("keyword", "name", "what", "suffix"), COMPRESSED_OUTPUTS)
def test_score_outputs_the_library_writes_named_compressed_are_refused(
    tmp_path, keyword, name, what, suffix
):
    # write_score_outputs(report="r.json.gz") wrote plain JSON under a compressed name,
    # where score --report r.json.gz refuses it; so did write_json
    import trecbench
    from trecbench.errors import UsageError
    from trecbench.report import write_json, write_score_outputs

    files = [str(ROOT / "qrels" / "hpo-demo.qrels"), str(ROOT / "runs" / "tfidf-char.run")]
    evaluation = trecbench.evaluate(*files, ["P.5"])
    target = tmp_path / name
    refusal = "^" + re.escape(_compressed_name_refusal(target, what, suffix)) + "$"
    given = (target, "<!DOCTYPE html>") if keyword == "html" else target
    with pytest.raises(UsageError, match=refusal):
        write_score_outputs(evaluation, **{keyword: given})
    if keyword != "html":
        with pytest.raises(UsageError, match=refusal):
            write_json(target, {})
    assert os.listdir(tmp_path) == []


def test_a_page_the_library_writes_named_compressed_is_refused(tmp_path):
    # comparison.to_html(path="p.html.gz") wrote plain HTML under a compressed name, where
    # score --html p.html.gz refuses it
    pytest.importorskip("bokeh")
    import trecbench
    from trecbench.errors import UsageError

    files = [str(ROOT / "runs" / name) for name in ("tfidf-char.run", "tfidf-word.run")]
    comparison = trecbench.compare(str(ROOT / "qrels" / "hpo-demo.qrels"), files, ["P.5"])
    target = tmp_path / "p.html.gz"
    refusal = _compressed_name_refusal(target, "an HTML page", ".html")
    with pytest.raises(UsageError, match="^" + re.escape(refusal) + "$"):
        comparison.to_html(path=target)
    assert os.listdir(tmp_path) == []
    assert comparison.to_html(path=tmp_path / "p.html").startswith("<!DOCTYPE html>")


def test_a_comparison_manifest_named_compressed_is_refused(tmp_path):
    # Comparison.write(manifest="m.json.gz") wrote plain JSON under a compressed name, where
    # compare --manifest m.json.gz refuses it (and write_score_outputs' manifest)
    import trecbench
    from trecbench.errors import UsageError

    files = [str(ROOT / "runs" / name) for name in ("tfidf-char.run", "tfidf-word.run")]
    comparison = trecbench.compare(str(ROOT / "qrels" / "hpo-demo.qrels"), files, ["P.5"])
    target = tmp_path / "m.json.gz"
    refusal = _compressed_name_refusal(target, "JSON", ".json")
    with pytest.raises(UsageError, match="^" + re.escape(refusal) + "$"):
        comparison.write(tmp_path / "out", manifest=target, plots=False)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("name", ["p.txt.gz", "p.jsonl"])
def test_pools_refusal_of_a_compressed_or_jsonl_name_suggests_no_parquet(tmp_path, capsys, name):
    # it suggested "(.run, .txt, .parquet)", fuse's names, and pool refuses .parquet
    from trecbench.cli import run

    target = tmp_path / name
    assert run(["pool", str(ROOT / "runs" / "tfidf-char.run"), "-o", str(target)]) == 1
    found = name.rsplit(".", 1)[1]
    assert capsys.readouterr().err == (
        f"trecbench: {target}: trecbench writes TREC text here, not {found}: name it "
        "otherwise (.qrels, .txt)\n"
    )
    assert not target.exists()


def test_a_folder_making_no_new_files_is_not_said_to_be_missing(tmp_path, monkeypatch):
    """/proc (root may write there, os.access() says) makes no file at a name asked:
    mkdir there fails with ENOENT, which of a folder that is there says the wrong thing
    (reviewer 688: "/proc: cannot write here (No such file or directory)")."""

    def no_such_file(*args, **kwargs):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))

    monkeypatch.setattr(publication.tempfile, "mkdtemp", no_such_file)
    with pytest.raises(OutputError) as raised, OutputSet() as out:
        out.write(tmp_path / "a.txt", "x")
    assert (
        str(raised.value) == f"{tmp_path}: cannot write here (this file system makes no new files)"
    )


@pytest.mark.skipif(
    not os.path.isdir("/proc/self") or os.geteuid() != 0, reason="needs Linux's /proc and root"
)
@pytest.mark.parametrize(
    "target, said",
    [
        ("/proc/pool.txt", "/proc: cannot write here"),
        # a folder to make there: "cannot create folder (No such file or directory)"
        # (reviewer 693)
        ("/proc/new/pool.txt", "/proc/new: cannot create folder"),
    ],
)
def test_proc_is_said_to_make_no_new_files(tmp_path, target, said):
    result = subprocess.run(
        [sys.executable, "-m", "trecbench", "pool", str(ROOT / "runs/tfidf-word.run"),
         "-o", target],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"},
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == f"trecbench: {said} (this file system makes no new files)\n"
