"""The Python API of the converters checks what the command line checks: the inputs a
conversion was read from are never written over, and ``depth``, list arguments and
line offsets are refused as the CLI refuses them."""

from __future__ import annotations

import pytest

from trecbench.convert.common import write_conversion
from trecbench.convert.msmarco import convert_msmarco
from trecbench.errors import OutputError


def test_a_conversion_never_replaces_the_file_it_was_read_from(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "apiprot").mkdir()
    source = tmp_path / "apiprot" / "m1.run"
    source.write_text("q1\td1\t1\nq1\td2\t2\n")
    before = source.read_bytes()
    conversion = convert_msmarco("apiprot/m1.run")  # its run is m1.run, beside its input
    with pytest.raises(OutputError, match="m1.run: refusing to overwrite an input file"):
        write_conversion(conversion, "apiprot", inputs=[])
    assert source.read_bytes() == before
    assert sorted(path.name for path in (tmp_path / "apiprot").iterdir()) == ["m1.run"]
