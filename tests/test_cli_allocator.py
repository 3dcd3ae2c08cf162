"""The console script's allocator policy (``trecbench.cli.main``): on glibc, arrays below
``MMAP_THRESHOLD`` come from the heap, where freed memory is reused without the kernel
zeroing it again (``_keep_freed_memory``), and the process takes no transparent huge pages
(``_no_huge_pages``: Arrow's mimalloc turns them off when pyarrow loads); a user's own
settings of either are left alone."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import pytest

from trecbench import cli

# a 100 MiB array allocated after the policy: the heap's end (sbrk(0)) moves by its size
# when it came from the heap, not at all when glibc mapped it on its own; then whether
# this glibc takes MMAP_THRESHOLD at all (its releases up to 2.34 refuse more than 32 MiB)
_PROBE = """
import ctypes, numpy
from trecbench import cli
cli._keep_freed_memory()
libc = ctypes.CDLL(None)
libc.sbrk.restype, libc.sbrk.argtypes = ctypes.c_void_p, [ctypes.c_ssize_t]
before = libc.sbrk(0)
block = numpy.ones(100 << 17)
print((libc.sbrk(0) - before) >> 20, libc.mallopt(-3, cli.MMAP_THRESHOLD))
"""


def _glibc() -> bool:
    try:
        return bool(ctypes.CDLL(None).gnu_get_libc_version)
    except (OSError, AttributeError, TypeError):
        return False


glibc_only = pytest.mark.skipif(not _glibc(), reason="glibc's allocator only")
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's prctl")
# what the child's environment must not hold: a user's allocator settings, or another
# allocator preloaded
_ALLOCATOR_SETTINGS = ("MALLOC_", "GLIBC_TUNABLES", "LD_PRELOAD", "MIMALLOC_", "NUMPY_MADVISE")


def _child(script: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(_ALLOCATOR_SETTINGS)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=clean | env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _heap_growth(**env: str) -> int:
    """The probe's heap growth in MiB; skipped where this glibc refuses the threshold
    (nothing then comes from the heap, with or without the policy)."""
    growth, taken = map(int, _child(_PROBE, **env).split())
    if not taken:
        pytest.skip("this glibc takes no mmap threshold above 32 MiB")
    return growth


@glibc_only
def test_a_large_array_comes_from_the_heap():
    assert cli.MMAP_THRESHOLD > 100 << 20
    assert _heap_growth() >= 90


@glibc_only
@pytest.mark.parametrize(
    "setting", [{"MALLOC_ARENA_MAX": "2"}, {"GLIBC_TUNABLES": "glibc.malloc.arena_max=2"}]
)
def test_the_users_own_setting_is_left_alone(setting):
    assert _heap_growth(**setting) == 0


@pytest.mark.skipif(os.name != "posix", reason="glibc's allocator only")
def test_a_glibc_that_refuses_the_threshold_keeps_32_mib(monkeypatch):
    calls = []

    class OldGlibc:
        def __init__(self, name):
            pass

        def mallopt(self, parameter, value):
            calls.append((parameter, value))
            return int(parameter != -3 or value <= 32 << 20)

    for name in [n for n in os.environ if n.startswith("MALLOC_")] + ["GLIBC_TUNABLES"]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(ctypes, "CDLL", OldGlibc)
    cli._keep_freed_memory()
    assert calls == [(-3, cli.MMAP_THRESHOLD), (-3, 32 << 20), (-1, cli.TRIM_THRESHOLD)]


# what main() leaves in the environment, and whether the process may take transparent
# huge pages (prctl PR_GET_THP_DISABLE, 42) once pyarrow is loaded, its command stood in
# for by a print
_SETTING = """
import ctypes, os, sys
from trecbench import cli
def stand_in():
    loaded = "pyarrow" in sys.modules
    import pyarrow
    disabled = ctypes.CDLL(None).prctl(42, 0, 0, 0, 0)
    print(os.environ.get("MIMALLOC_ALLOW_THP"), loaded, disabled)
    return 0
cli.run = stand_in
cli.main()
"""


def _thp_disabled_here() -> bool:
    return ctypes.CDLL(None).prctl(42, 0, 0, 0, 0) == 1


@linux_only
@pytest.mark.skipif(
    sys.platform.startswith("linux") and _thp_disabled_here(),
    reason="this process already takes no transparent huge pages",
)
@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ({}, "0 False 1"),  # set before pyarrow is loaded, which reads it
        ({"MIMALLOC_ALLOW_THP": "1"}, "1 False 0"),
        ({"NUMPY_MADVISE_HUGEPAGE": "1"}, "None False 0"),
        ({"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}, "None False 0"),
        ({"NUMPY_MADVISE_HUGEPAGE": "0", "GLIBC_TUNABLES": "glibc.malloc.hugetlb=0"}, "0 False 1"),
    ],
)
def test_no_huge_pages_unless_the_user_asks(setting, expected):
    assert _child(_SETTING, **setting) == expected
