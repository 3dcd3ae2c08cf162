"""Randomised Tukey HSD draws its permutations once per call for every family (measure) of
one size: they depend on the seed and the sizes only, and a compare of many measures drew
and argsorted the same ones once per measure (5-7x the time of the other tests)."""

from __future__ import annotations

import numpy as np
import pytest

from trecbench import stats, tukey

FAMILIES = (np.arange(0, 2), np.arange(2, 4), np.arange(4, 7), np.arange(7, 9))
LEFT, RIGHT = np.array([0, 2, 4, 4, 5, 7]), np.array([1, 3, 5, 6, 6, 8])
STRATA = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2])
# (count + 1) of 120 draws, seed 4, as trecbench computed them before the draws were
# shared (each family drew its own); pinned: p-values are recorded with their seed
COUNTS = {False: [1, 117, 112, 54, 81, 111], True: [1, 108, 121, 92, 88, 107]}


def _paired(macro: bool) -> stats.Paired:
    rng = np.random.default_rng(21)
    values = rng.random((9, 9))
    values[:, 0] += 0.2
    values[:, 4] += 0.1
    strata = STRATA if macro else None
    return stats.Paired(values, LEFT, RIGHT, 120, 4, strata=strata, families=FAMILIES)


def test_the_p_values_are_the_ones_each_family_got_with_draws_of_its_own():
    for macro in (False, True):
        p = stats.pair_p_values("tukey", _paired(macro))
        assert (p == np.array(COUNTS[macro]) / 121).all(), macro
        # and each family's own tukey_hsd, the function tested against a plain reference
        paired = _paired(macro)
        for f, columns in enumerate(FAMILIES):
            alone = tukey.tukey_hsd(paired.values[:, columns], 120, 4, paired.weights)
            for i in np.flatnonzero(np.isin(LEFT, columns)):
                a, b = np.searchsorted(columns, [LEFT[i], RIGHT[i]])
                assert p[i] == alone[a, b], (macro, f)


def test_the_draws_are_made_once_per_size_of_family(monkeypatch):
    made = []
    real = tukey.generator

    def counting(*args):
        made.append(args)
        return real(*args)

    monkeypatch.setattr(tukey, "generator", counting)
    stats.pair_p_values("tukey", _paired(False))
    # three families of two runs share one stream, the family of three runs has its own
    assert len(made) == 2


def test_two_runs_are_ordered_as_argsort_orders_them_ties_included():
    class Fixed:
        def __init__(self, uniforms):
            self.uniforms = uniforms

        def random(self, shape):
            assert shape == self.uniforms.shape
            return self.uniforms.copy()

    rng = np.random.default_rng(0)
    uniforms = rng.random((5, 7, 2))
    for case in (uniforms, np.where(np.arange(7)[None, :, None] == 3, 0.5, uniforms)):
        order = tukey._draw_orders(Fixed(case), 5, 7, 2)
        assert order.dtype == np.intp
        assert (order == np.argsort(case, axis=-1)).all()


def test_families_of_other_shapes_are_refused_not_drawn_for_the_first():
    # a 10 x 4 family got p-values from draws made for 10 x 3 (wrong, without an error)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="differ in shape"):
        tukey.tukey_hsd_shared([rng.random((10, 3)), rng.random((10, 4))], samples=50)
