"""How alike two orderings of systems are (Kendall's τ-b, τ_AP) and how alike two sets of
judgments are (Cohen's κ, linearly weighted κ).

* τ-b: ``scipy.stats.kendalltau``'s value on the systems' scores under the two
  orderings (:mod:`trecbench.kendall`: the same bits without importing scipy.stats).
* τ_AP (Yilmaz, Aslam & Robertson, SIGIR 2008), asymmetric, top-weighted: order the
  systems by the *evaluated* ordering; for each position ``i = 2..N`` let ``C(i)`` be how
  many of the ``i − 1`` systems above it are above it in the *reference* ordering too;
  ``τ_AP = 2/(N − 1) · Σ_{i=2..N} C(i)/(i − 1) − 1``.

  Ties (equal scores) are not in the paper's definition. Here τ_AP is the **mean over
  every order of the tied systems**, each equally likely, in both orderings, computed
  exactly without enumerating orders: a system tied with ``i`` in the reference counts
  as half a system above it, and a system in a group of ``g`` systems tied in the
  evaluated ordering stands at each of the group's positions with probability ``1/g``,
  with on average ``k/(g − 1)`` of the group's other systems' credit above it at the
  group's ``k``-th position. Without ties it is the paper's τ_AP.
* κ (Cohen 1960) on two labelings of the same items: ``κ = 1 − Σ w·O / Σ w·E`` with
  ``O`` the observed and ``E`` the chance confusion matrix (outer product of the
  margins); ``w = 1`` off the diagonal for κ, ``w = |i − j|`` (linear, ``i``, ``j`` the
  ranks of the two labels among the labels that occur) for weighted κ; as
  ``sklearn.metrics.cohen_kappa_score``. Undefined (None) when both labelings use one
  label only.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..kendall import tau_b


def kendall_tau(a, b) -> float | None:
    """Kendall's τ-b of two score vectors (``scipy.stats.kendalltau``'s value, computed
    by :func:`trecbench.kendall.tau_b`); None when one of them is constant (τ is then
    undefined)."""
    if len(a) < 2:
        return None
    value = tau_b(a, b)
    return None if np.isnan(value) else value


def tau_ap(reference, evaluated) -> float | None:
    """τ_AP of the ``evaluated`` ordering against the ``reference`` one, both given as
    scores per system (higher first), ties averaged over their orders (module
    docstring); None with fewer than two systems, or when one ordering ties them all (no
    order to agree with: the mean over its orders is 0 whatever the other says).

    Summed in fractions, then rounded once: the floats' sum of the tie groups' shares
    left ``-1.1e-16`` where the value is 0 on paper."""
    ref = np.asarray(reference, dtype=np.float64)
    ev = np.asarray(evaluated, dtype=np.float64)
    n = len(ev)
    if n < 2 or np.all(ref == ref[0]) or np.all(ev == ev[0]):
        return None
    # credit[i, j]: twice what j above i counts: 2 if the reference puts it above, 1 if
    # tied there (whole numbers: summed exactly)
    credit = 2 * (ref[None, :] > ref[:, None]) + (ref[None, :] == ref[:, None]).astype(int)
    np.fill_diagonal(credit, 0)
    total = Fraction(0)
    for value in np.unique(ev):
        members, above = ev == value, ev > value
        first, group = int(above.sum()) + 1, int(members.sum())
        fixed = int(credit[np.ix_(members, above)].sum())  # the group's, over its members
        shared = int(credit[np.ix_(members, members)].sum())
        # a member at the group's k-th place (position first + k) has the systems above
        # the group and, on average, k / (group - 1) of the others' credit above it
        places = [(k, first + k - 1) for k in range(group) if first + k > 1]
        by_place = sum((Fraction(1, below) for _, below in places), Fraction(0))
        by_k = sum((Fraction(k, below) for k, below in places), Fraction(0))
        within = Fraction(shared, group - 1) * by_k if group > 1 else 0
        total += (fixed * by_place + within) / (2 * group)
    return float(2 * total / (n - 1) - 1)


def cohen_kappa(a, b, weights: str | None = None) -> float | None:
    """Cohen's κ of two integer labelings of the same items; ``weights="linear"`` for the
    linearly weighted κ. None when undefined (one label only, or no item)."""
    a = np.asarray(a)
    b = np.asarray(b)
    if len(a) == 0:
        return None
    labels, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
    k = len(labels)
    codes = codes.ravel()
    observed = np.bincount(codes[: len(a)] * k + codes[len(a) :], minlength=k * k)
    observed = observed.reshape(k, k).astype(np.float64)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / observed.sum()
    ranks = np.arange(k)
    if weights is None:
        weight = 1.0 - np.eye(k)
    elif weights == "linear":
        weight = np.abs(ranks[:, None] - ranks[None, :]).astype(np.float64)
    else:
        raise ValueError(f"unknown weights {weights!r}")
    chance = (weight * expected).sum()
    if chance == 0:
        return None
    return float(1.0 - (weight * observed).sum() / chance)
