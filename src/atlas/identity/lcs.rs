//! The edits from one sequence to another (a longest common subsequence), grouped into hunks:
//! what two states' elements or texts have in common, and what was taken out and put in
//! between.

/// A run of edits between two stretches the sequences share: the indices of what the first
/// has and the second lacks (`removed`), and of what the second has instead (`added`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Hunk {
    pub(crate) removed: Vec<usize>,
    pub(crate) added: Vec<usize>,
}

/// Past this many cells the middle of two sequences (after their common start and end) is
/// taken as replaced whole: the table stays small on any page.
const MAX_CELLS: usize = 4_000_000;

/// The hunks that turn `a` into `b`, in order.
pub(crate) fn hunks<T: PartialEq>(a: &[T], b: &[T]) -> Vec<Hunk> {
    let start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let end = a[start..]
        .iter()
        .rev()
        .zip(b[start..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a_mid, b_mid) = (&a[start..a.len() - end], &b[start..b.len() - end]);
    let (n, m) = (a_mid.len(), b_mid.len());
    if n == 0 && m == 0 {
        return Vec::new();
    }
    if n.saturating_mul(m) > MAX_CELLS || n == 0 || m == 0 {
        return vec![Hunk {
            removed: (start..start + n).collect(),
            added: (start..start + m).collect(),
        }];
    }
    // lengths[i][j]: the longest common subsequence of a_mid[i..] and b_mid[j..].
    let width = m + 1;
    let mut lengths = vec![0u32; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lengths[i * width + j] = if a_mid[i] == b_mid[j] {
                lengths[(i + 1) * width + j + 1] + 1
            } else {
                lengths[(i + 1) * width + j].max(lengths[i * width + j + 1])
            };
        }
    }
    let mut out = Vec::new();
    let mut current = Hunk::default();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a_mid[i] == b_mid[j] {
            if current != Hunk::default() {
                out.push(std::mem::take(&mut current));
            }
            i += 1;
            j += 1;
        } else if j == m || (i < n && lengths[(i + 1) * width + j] >= lengths[i * width + j + 1]) {
            current.removed.push(start + i);
            i += 1;
        } else {
            current.added.push(start + j);
            j += 1;
        }
    }
    if current != Hunk::default() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_hold_what_was_taken_out_and_put_in() {
        let a = ["nav", "h1", "Save", "Cancel", "footer"];
        let b = ["nav", "h1", "Store", "Cancel", "Help", "footer"];
        assert_eq!(
            hunks(&a, &b),
            [
                Hunk {
                    removed: vec![2],
                    added: vec![2]
                },
                Hunk {
                    removed: vec![],
                    added: vec![4]
                }
            ]
        );
        assert!(hunks(&a, &a).is_empty());
        assert_eq!(
            hunks(&a, &[]),
            [Hunk {
                removed: (0..5).collect(),
                added: vec![]
            }]
        );
        assert_eq!(
            hunks(&["x"], &["y", "x", "z"]),
            [
                Hunk {
                    removed: vec![],
                    added: vec![0]
                },
                Hunk {
                    removed: vec![],
                    added: vec![2]
                }
            ]
        );
    }
}
