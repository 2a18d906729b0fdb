# Independent test vectors for elo's exact one-sided bounds (TestExactBoundVectors).
# Run: python3 search/elo/testdata/clopper_pearson.py (needs only mpmath).
#
# Integer points: bisection on the binomial tail itself, summed term by term
# at 50 digits, so no incomplete-beta code is shared with the Go side.
# Half-integer points (games with draws): bisection on mpmath's regularized
# incomplete beta I_p(x, n-x+1), the continuous form of the same tail.
import mpmath as mp

mp.mp.dps = 50
ALPHA = mp.mpf("0.05")


def elo(s):
    return -400 * mp.log10(1 / s - 1)


def tail(x, n, p):
    """P(X >= x) for X ~ Binomial(n, p): the chance of scoring x or more."""
    if x == int(x):
        x = int(x)
        return mp.fsum(mp.binomial(n, k) * p**k * (1 - p) ** (n - k) for k in range(x, n + 1))
    return mp.betainc(x, n - x + 1, 0, p, regularized=True)


def bisect(f, lo, hi):
    # f is increasing in p; 200 halvings pin p far beyond float64.
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) < 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def lower(x, n):
    """The p with P(X >= x | p) = alpha: the one-sided 95 % lower bound."""
    return bisect(lambda p: tail(x, n, p) - ALPHA, mp.mpf(0), mp.mpf(1))


def upper(x, n):
    """The p with P(X <= x | p) = alpha: by symmetry 1 - lower(n - x, n)."""
    return 1 - lower(n - x, n)


for x, n in [(20, 20), (1, 1), (10, 10), (100, 100), (19, 20), (5.5, 6), (136 + 111 / 2, 343), (1, 2), (0.75, 3), (7.25, 10)]:
    lo = lower(x, n)
    print(f"points {x} of {n}: lower score {mp.nstr(lo, 12)} Elo {mp.nstr(elo(lo), 10)}", end="")
    if x < n:
        up = upper(x, n)
        print(f"; upper score {mp.nstr(up, 12)} Elo {mp.nstr(elo(up), 10)}", end="")
    print()
