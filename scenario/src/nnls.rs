//! Non-negative least squares (Lawson and Hanson's active-set method), for
//! fitting cost models whose constants are times and cannot be negative.
//! The systems here have a handful of columns, so the inner least-squares
//! solves use the normal equations with partial-pivot elimination, on
//! columns scaled to unit length.

/// Minimises |A x - b| subject to x >= 0. `a` is row-major, `m` rows of
/// `n` columns. Returns `x`.
pub fn nnls(a: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    let m = a.len();
    let n = a.first().map_or(0, |r| r.len());
    // Scale columns so that the tolerance means the same for each.
    let scale: Vec<f64> = (0..n)
        .map(|j| {
            let s = (0..m).map(|i| a[i][j] * a[i][j]).sum::<f64>().sqrt();
            if s > 0.0 {
                s
            } else {
                1.0
            }
        })
        .collect();
    let a: Vec<Vec<f64>> = a
        .iter()
        .map(|r| r.iter().zip(&scale).map(|(v, s)| v / s).collect())
        .collect();
    let mut x = vec![0.0; n];
    let mut passive = vec![false; n];
    let tol = 1e-10 * b.iter().map(|v| v.abs()).fold(1.0, f64::max);
    for _ in 0..(3 * n + 3) {
        let w = gradient(&a, b, &x);
        let Some(t) = (0..n)
            .filter(|&j| !passive[j] && w[j] > tol)
            .max_by(|&i, &j| w[i].total_cmp(&w[j]))
        else {
            break;
        };
        passive[t] = true;
        for _ in 0..(3 * n + 3) {
            let z = solve_on(&a, b, &passive);
            if (0..n).all(|j| !passive[j] || z[j] > 0.0) {
                x = z;
                break;
            }
            let alpha = (0..n)
                .filter(|&j| passive[j] && z[j] <= 0.0)
                .map(|j| x[j] / (x[j] - z[j]))
                .fold(f64::INFINITY, f64::min);
            for j in 0..n {
                x[j] += alpha * (z[j] - x[j]);
                if passive[j] && x[j] <= tol {
                    passive[j] = false;
                    x[j] = 0.0;
                }
            }
        }
    }
    x.iter().zip(&scale).map(|(v, s)| v / s).collect()
}

/// Aᵀ(b − Ax).
fn gradient(a: &[Vec<f64>], b: &[f64], x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut w = vec![0.0; n];
    for (row, bi) in a.iter().zip(b) {
        let r = bi - row.iter().zip(x).map(|(v, xj)| v * xj).sum::<f64>();
        for j in 0..n {
            w[j] += row[j] * r;
        }
    }
    w
}

/// Unconstrained least squares on the passive columns; zero elsewhere.
fn solve_on(a: &[Vec<f64>], b: &[f64], passive: &[bool]) -> Vec<f64> {
    let cols: Vec<usize> = (0..passive.len()).filter(|&j| passive[j]).collect();
    let k = cols.len();
    // Normal equations: (AᵀA) z = Aᵀb over the chosen columns.
    let mut g = vec![vec![0.0; k + 1]; k];
    for (row, bi) in a.iter().zip(b) {
        for (p, &cp) in cols.iter().enumerate() {
            for (q, &cq) in cols.iter().enumerate() {
                g[p][q] += row[cp] * row[cq];
            }
            g[p][k] += row[cp] * bi;
        }
    }
    for c in 0..k {
        let piv = (c..k)
            .max_by(|&i, &j| g[i][c].abs().total_cmp(&g[j][c].abs()))
            .unwrap_or(c);
        g.swap(c, piv);
        let d = g[c][c];
        if d.abs() < 1e-300 {
            continue;
        }
        let pivot = g[c].clone();
        for (r, row) in g.iter_mut().enumerate() {
            if r != c {
                let f = row[c] / d;
                for (v, p) in row.iter_mut().zip(&pivot).skip(c) {
                    *v -= f * p;
                }
            }
        }
    }
    let mut z = vec![0.0; passive.len()];
    for (p, &cp) in cols.iter().enumerate() {
        z[cp] = if g[p][p].abs() < 1e-300 {
            0.0
        } else {
            g[p][k] / g[p][p]
        };
    }
    z
}

#[cfg(test)]
mod tests {
    use super::nnls;

    #[test]
    fn an_exact_non_negative_solution_is_found() {
        let a = vec![
            vec![1.0, 0.0, 2.0],
            vec![0.0, 1.0, 1.0],
            vec![1.0, 1.0, 0.0],
            vec![2.0, 0.0, 1.0],
        ];
        let x_true = [3.0, 0.5, 2.0];
        let b: Vec<f64> = a
            .iter()
            .map(|r| r.iter().zip(&x_true).map(|(v, x)| v * x).sum())
            .collect();
        let x = nnls(&a, &b);
        for (got, want) in x.iter().zip(x_true) {
            assert!((got - want).abs() < 1e-9, "{x:?}");
        }
    }

    #[test]
    fn a_negative_least_squares_answer_is_clamped_to_zero() {
        // Unconstrained, y = 2 - x fits exactly; with x >= 0 the slope is 0.
        let a = vec![vec![1.0, 0.0], vec![1.0, 1.0], vec![1.0, 2.0]];
        let b = vec![2.0, 1.0, 0.0];
        let x = nnls(&a, &b);
        assert!(x[1].abs() < 1e-12, "{x:?}");
        assert!((x[0] - 1.0).abs() < 1e-9, "{x:?}");
        assert!(x.iter().all(|v| *v >= 0.0));
    }
}
