"""The console script's allocator policy (``trecbench.cli.main``): on glibc, arrays up to
``HEAP_ARRAYS`` come from the heap, where freed memory is reused without the kernel
zeroing it again (``_keep_freed_memory``), and Arrow's mimalloc takes no transparent huge
pages; a user's own settings of either are left alone."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import pytest

# a 100 MiB array allocated after the policy: the heap's end (sbrk(0)) moves by its size
# when it came from the heap, not at all when glibc mapped it on its own
_PROBE = """
import ctypes, numpy
from trecbench import cli
cli._keep_freed_memory()
libc = ctypes.CDLL(None)
libc.sbrk.restype = ctypes.c_void_p
before = libc.sbrk(0)
block = numpy.ones(100 << 17)
print((libc.sbrk(0) - before) >> 20)
"""


def _glibc() -> bool:
    try:
        return bool(ctypes.CDLL(None).gnu_get_libc_version)
    except (OSError, AttributeError):
        return False


glibc_only = pytest.mark.skipif(not _glibc(), reason="glibc's allocator only")


def _heap_growth(**env: str) -> int:
    clean = {name: value for name, value in os.environ.items() if not name.startswith("MALLOC_")}
    clean.pop("GLIBC_TUNABLES", None)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], env=clean | env, capture_output=True, text=True, check=True
    )
    return int(done.stdout)


@glibc_only
def test_a_large_array_comes_from_the_heap():
    from trecbench import cli

    assert cli.HEAP_ARRAYS > 100 << 20
    assert _heap_growth() >= 90


@glibc_only
def test_the_users_own_setting_is_left_alone():
    assert _heap_growth(MALLOC_ARENA_MAX="2") == 0


# what main() leaves in the environment of the process (and of those it starts) when
# pyarrow is loaded, its command stood in for by a print
_SETTING = """
import os, sys
from trecbench import cli
cli.run = lambda: print(os.environ.get("MIMALLOC_ALLOW_THP"), "pyarrow" in sys.modules) or 0
cli.main()
"""


def _main_sees(**env: str) -> str:
    clean = {name: value for name, value in os.environ.items() if name != "MIMALLOC_ALLOW_THP"}
    done = subprocess.run(
        [sys.executable, "-c", _SETTING], env=clean | env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_arrows_allocator_takes_no_huge_pages_unless_the_user_says():
    assert _main_sees() == "0 False"  # set before pyarrow is loaded, which reads it
    assert _main_sees(MIMALLOC_ALLOW_THP="1") == "1 False"
