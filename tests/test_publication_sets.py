"""An output set spanning several folders, its process killed at each step of its commit
(trecbench.publication): once the next call has locked any one folder of the set, or
looked at it before writing, every folder holds the old set or every one the new, and
the set's manifest names its files' sha256 (computed here with hashlib)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from trecbench import outputs, publication
from trecbench.cli import run as run_cli
from trecbench.errors import OutputError

FOLDERS = (".", "reports", "runs")  # as `benchmark -o out` writes them
FILES = {".": ["BenchmarkReport.json", "ExperimentManifest.json"], "reports": ["a.json", "b.json"]}
FILES["runs"] = ["hybrid.run"]

# commits the generation ``generation`` into the folder ``out`` (the other files' sha256
# in the manifest), as `benchmark -o out` does: every folder held, then the files staged
_WRITE = """
with outputs.OutputSet() as staged:
    manifest = {}
    for folder in files:
        staged.hold(os.path.join(out, folder))
    for folder, names in files.items():
        for name in names:
            if name != "ExperimentManifest.json":
                data = f"{generation} {folder}/{name}\\n".encode()
                manifest[f"{folder}/{name}"] = hashlib.sha256(data).hexdigest()
                staged.write(os.path.join(out, folder, name), data)
    staged.write(os.path.join(out, "ExperimentManifest.json"), json.dumps(manifest))
"""
# the same, killed (os._exit, as SIGKILL: nothing cleaned up) at the step-th change to the
# file system in publication.publish (old files kept, notes and journal written, renames)
_KILLED_AT_STEP = (
    """
import hashlib, json, os, sys
from trecbench import outputs, publication
from trecbench.cli import run as run_cli
out, generation, step, files = sys.argv[1], "new", int(sys.argv[2]), json.loads(sys.argv[3])
count = [0]
def counted(call):
    def changed(*args, **kwargs):
        count[0] += 1
        if count[0] == step:
            os._exit(137)
        return call(*args, **kwargs)
    return changed
publish = publication.publish
def publish_counted(stages):
    real = {name: getattr(os, name) for name in ("replace", "rename", "link", "mkdir")}
    for name, call in real.items():
        setattr(os, name, counted(call))
    try:
        publish(stages)
    finally:
        for name, call in real.items():
            setattr(os, name, call)
publication.publish = publish_counted
"""
    + _WRITE
)


def _commit(out: Path, generation: str, step: int | None = None) -> int:
    """Commit ``generation`` here, or (``step`` given) "new" in a process killed at
    ``step``; its exit code."""
    if step is None:
        names = {"out": str(out), "generation": generation, "files": FILES}
        exec(_WRITE, {"outputs": outputs, "os": os, "hashlib": hashlib, "json": json, **names})
        return 0
    argv = [sys.executable, "-c", _KILLED_AT_STEP, str(out), str(step), json.dumps(FILES)]
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(argv, env=env, timeout=60).returncode


def _generations(out: Path) -> set[str]:
    """The generation each file holds; and checks the manifest's sha256 against them."""
    manifest = json.loads((out / "ExperimentManifest.json").read_text())
    seen = set()
    for folder, names in FILES.items():
        for name in names:
            if name == "ExperimentManifest.json":
                continue
            data = (out / folder / name).read_bytes()
            assert hashlib.sha256(data).hexdigest() == manifest[f"{folder}/{name}"], name
            seen.add(data.split()[0].decode())
    return seen


@pytest.mark.parametrize("locked", [".", "runs"])  # the journal's folder, and another
def test_a_set_over_three_folders_killed_at_any_step_is_old_or_new_everywhere(tmp_path, locked):
    """Killed at every step (a hard link kept, a note or the journal written, a file
    renamed), then one folder of the three locked by another set (``locked``): the whole
    set is old or new. Before one journal for the set, each folder had its own: killed
    between two folders' renames, the set stayed half new until every folder was written
    into again, and a folder whose journal was written first was finished alone."""
    out = tmp_path / "out"
    assert _commit(out, "old") == 0
    assert _generations(out) == {"old"}
    finals = []
    for step in range(1, 100):
        code = _commit(out, "new", step)
        outputs.write_file(out / locked / "other", "x")  # the next call into one folder
        generations = _generations(out)
        assert len(generations) == 1, (step, generations)
        finals.append(generations.pop())
        if code == 0:
            break
        assert code == 137
        _commit(out, "old")  # back to the old set for the next step
    assert finals[-1] == "new" and "old" in finals and len(finals) > 15, finals
    # and nothing is left, once every folder has been written into again
    for folder in FOLDERS:
        outputs.write_file(out / folder / "other", "x")
    assert not list(out.rglob(f"{publication.STAGE_PREFIX}*"))


def test_a_rerun_refused_for_an_earlier_call_s_files_finishes_the_set_first(tmp_path, capsys):
    """`benchmark -o out` killed between two folders' renames (the top folder new,
    reports/ old), then a `benchmark -o out` refused for the earlier call's files: the
    check finishes the set before it looks (it used to look at the mix, refuse it, and
    leave it mixed)."""
    out = tmp_path / "out"
    _commit(out, "old")
    for step in range(1, 100):  # the first step leaving the top folder new, reports/ old
        assert _commit(out, "new", step) == 137
        top = (out / "BenchmarkReport.json").read_text()
        if top.startswith("new") and (out / "reports/a.json").read_text().startswith("old"):
            break
        _commit(out, "old")
    demo = ROOT / "data" / "hpo-rtask"
    config = tmp_path / "one.toml"
    config.write_text(
        f'qrels = "{demo / "hpo-rtask.qrels"}"\n[modes.lexical]\nrun = "{demo / "lexical.run"}"\n'
    )
    assert run_cli(["benchmark", str(config), "-o", str(out), "--quiet"]) == 2
    assert "would stay beside" in capsys.readouterr().err
    assert _generations(out) == {"new"}


def test_a_set_finished_while_another_call_holds_one_of_its_folders_says_so(tmp_path, monkeypatch):
    # the call writing into out/reports was told "out: another trecbench call has been
    # writing here for 10 s", naming a folder it did not write into (review 442)
    import threading

    out = tmp_path / "out"
    assert _commit(out, "old") == 0
    for step in range(1, 100):  # killed once the set's journal is written: committed
        assert _commit(out, "new", step) == 137
        if list(out.glob(f"{publication.STAGE_PREFIX}*/{publication.JOURNAL}")):
            break
    holder = publication.FolderLock(out)
    held, done = threading.Event(), threading.Event()

    def hold() -> None:
        holder.acquire(holding_others=False)
        held.set()
        done.wait(30)
        holder.release()

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait(30)
    monkeypatch.setattr(publication, "WAIT_HOLDING", 0.2)
    try:
        with pytest.raises(OutputError) as refused:
            outputs.write_file(out / "reports" / "other", "x")
    finally:
        done.set()
        thread.join()
    assert str(refused.value).startswith(f"{out / 'reports'}: an interrupted trecbench call")
    assert f"spans {out} too" in str(refused.value)
    outputs.write_file(out / "reports" / "other", "x")  # once it ends, the set is finished
    assert _generations(out) == {"new"}
