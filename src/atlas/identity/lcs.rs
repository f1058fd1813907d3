//! The edits from one sequence to another (a longest common subsequence), grouped into hunks:
//! what two states' elements or texts have in common, and what was taken out and put in
//! between; and, apart, what only moved (taken out in one place, put in at another).

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

/// The edits from one sequence to another, less what only moved: each hunk's items taken out
/// and put in (in order), and the items that are both taken out somewhere and put in
/// somewhere else (a row that is now first), once each. A longest common subsequence keeps
/// one of two stretches that swapped places; the other would be listed as taken out and put
/// in, though nothing in it changed.
pub(crate) struct Edits<'t, T> {
    pub(crate) hunks: Vec<(Vec<&'t T>, Vec<&'t T>)>,
    pub(crate) moved: Vec<&'t T>,
}

/// The [`Edits`] that turn `a` into `b`.
pub(crate) fn edits<'t, T: PartialEq>(a: &'t [T], b: &'t [T]) -> Edits<'t, T> {
    let hs = hunks(a, b);
    let mut taken: Vec<(usize, Option<&T>)> = Vec::new();
    let mut put: Vec<(usize, Option<&T>)> = Vec::new();
    for (k, h) in hs.iter().enumerate() {
        taken.extend(h.removed.iter().map(|&i| (k, Some(&a[i]))));
        put.extend(h.added.iter().map(|&j| (k, Some(&b[j]))));
    }
    let mut moved = Vec::new();
    for (_, t) in &mut taken {
        let Some(x) = *t else { continue };
        if let Some(p) = put.iter_mut().find(|(_, p)| p.is_some_and(|y| y == x)) {
            p.1 = None;
            *t = None;
            moved.push(x);
        }
    }
    // Past a move the hunks' places say little (the subsequence kept may be the stretch that
    // moved): what is left of them is one hunk, so a row renamed beside one that moved is still
    // a change, not a text taken out in one place and another put in elsewhere.
    let parts = if moved.is_empty() { hs.len() } else { 1 };
    let mut out: Vec<(Vec<&T>, Vec<&T>)> = (0..parts).map(|_| (Vec::new(), Vec::new())).collect();
    for (k, t) in taken {
        out[k.min(parts - 1)].0.extend(t);
    }
    for (k, p) in put {
        out[k.min(parts - 1)].1.extend(p);
    }
    out.retain(|(t, p)| !t.is_empty() || !p.is_empty());
    Edits { hunks: out, moved }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_only_moved_is_told_apart_from_what_changed() {
        // A row that is now first, and a row renamed.
        let a = ["x", "Dune", "Emma", "Neuromancer", "y"];
        let b = ["x", "Neuromancer", "Dune", "Persuasion", "y"];
        let e = edits(&a, &b);
        assert_eq!(e.hunks, [(vec![&"Emma"], vec![&"Persuasion"])]);
        assert_eq!(e.moved.len(), 1);
        // Several of one value: as many as moved.
        let e = edits(&["a", "b", "b"], &["b", "a", "b", "c"]);
        let listed: Vec<&str> = e
            .hunks
            .iter()
            .flat_map(|(t, p)| t.iter().chain(p))
            .map(|s| **s)
            .collect();
        assert_eq!(listed, ["c"]);
        assert!(edits(&a, &a).hunks.is_empty());
    }

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
