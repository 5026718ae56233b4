"""The chi-square test, from first principles (the standard library has no gamma function's tail)."""

from __future__ import annotations

import math
from collections.abc import Sequence


def upper_gamma_regularized(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a): a series below a + 1, a continued fraction above (Lentz)."""
    if x <= 0:
        return 1.0
    log_prefix = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return 1.0 - total * math.exp(log_prefix)
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(log_prefix) * h


def chi_square_p(observed: Sequence[int]) -> float:
    """The p-value of observed counts against equal expected counts."""
    total = sum(observed)
    expected = total / len(observed)
    statistic = sum((count - expected) ** 2 / expected for count in observed)
    return upper_gamma_regularized((len(observed) - 1) / 2, statistic / 2)
