"""Small numerical pieces the calibration scripts (scripts/calibrate.py, calibrate_local.py)
share: a dense linear solve and the Gauss-Newton step on relative errors they both take."""


def solve_linear(a, b):
    """x with a x = b, by Gaussian elimination with partial pivoting (small dense systems).
    Raises ZeroDivisionError when a is singular: the fitted keys do not move the targets."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-15:
            raise ZeroDivisionError("the fitted keys do not move the targets (singular Jacobian)")
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            for c in range(col, n + 1):
                m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for r in reversed(range(n)):
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x


def relative_error(y, want):
    """The sum of squared relative errors of y against want."""
    return sum((yi / wi - 1) ** 2 for yi, wi in zip(y, want))


def gauss_newton_step(jac, y, want):
    """The Gauss-Newton step for the relative errors of y against want, with jac[j][i] the
    derivative of y_i / want_i by the j-th fitted value."""
    n, m = len(jac), len(y)
    resid = [1 - yi / wi for yi, wi in zip(y, want)]
    normal = [[sum(jac[a][i] * jac[b][i] for i in range(m)) for b in range(n)] for a in range(n)]
    return solve_linear(normal, [sum(jac[a][i] * resid[i] for i in range(m)) for a in range(n)])


def line_search(f, x, y, step, want, floor):
    """Takes the step, halving it until the error falls (or the step is a tenth); no value below
    floor. Returns the candidate and f of it."""
    t = 1.0
    while True:
        cand = [max(floor, xi + t * si) for xi, si in zip(x, step)]
        yc = f(cand)
        if relative_error(yc, want) < relative_error(y, want) or t < 0.1:
            return cand, yc
        t /= 2
