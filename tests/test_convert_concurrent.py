"""Two conversions into one folder at once: the second checks the folder for an earlier
conversion's files only once the first is done with it (the folder's lock taken first),
and is refused as it is when run after the first."""

from __future__ import annotations

import shutil
import threading

from trecbench import publication
from trecbench.convert.common import write_conversion
from trecbench.convert.msmarco import convert_msmarco
from trecbench.errors import OutputError


def test_a_conversion_checks_for_earlier_files_once_it_holds_the_folder(tmp_path, monkeypatch):
    source = tmp_path / "big.tsv"
    source.write_text("q1\td1\t1\nq1\td2\t2\n")
    first = tmp_path / "first"
    write_conversion(convert_msmarco(source, tag="aa"), first, inputs=[source])
    folder = tmp_path / "conc"
    folder.mkdir()

    waiting = threading.Event()
    real_flock = publication._flock

    def flock(fd, locked, timeout):
        if threading.current_thread() is not threading.main_thread():
            waiting.set()  # the second call is about to wait for the folder
        return real_flock(fd, locked, timeout)

    monkeypatch.setattr(publication, "_flock", flock)
    held = publication.FolderLock(folder)  # the first conversion, writing into the folder
    held.acquire(False)
    outcome = []

    def second():
        try:
            write_conversion(convert_msmarco(source, tag="bb"), folder, inputs=[source])
            outcome.append(None)
        except OutputError as error:
            outcome.append(error)

    thread = threading.Thread(target=second)
    thread.start()
    try:
        assert waiting.wait(30)
        # the first conversion's files put in place, then its lock released
        for name in ("aa.run", "big.sidecar.json"):
            shutil.copy(first / name, folder / name)
    finally:
        held.release()
        thread.join(60)
    assert not thread.is_alive()
    assert outcome and outcome[0] is not None, "the second conversion replaced the sidecar"
    assert "aa.run would stay beside this conversion's files" in str(outcome[0])
    assert sorted(path.name for path in folder.iterdir()) == ["aa.run", "big.sidecar.json"]
