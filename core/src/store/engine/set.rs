//! A small sorted set: the transaction ids a snapshot or a lock holds.

/// An ordered set kept as a sorted `Vec`: the sets here hold a few
/// transactions or read targets, and a `BTreeSet` would put several kB of
/// B-tree code into the page's wasm. Iterates in the same order as a
/// `BTreeSet`, and equality and `Hash` see the same elements in the same
/// order (a length, then each element), so fingerprints do not change.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) struct Set<T>(pub(super) Vec<T>);

impl<T: Ord> Set<T> {
    pub(super) const fn new() -> Self {
        Set(Vec::new())
    }

    pub(super) fn insert(&mut self, x: T) {
        if let Err(at) = self.0.binary_search(&x) {
            self.0.insert(at, x);
        }
    }

    pub(super) fn remove(&mut self, x: &T) {
        if let Ok(at) = self.0.binary_search(x) {
            self.0.remove(at);
        }
    }

    pub(super) fn contains(&self, x: &T) -> bool {
        self.0.binary_search(x).is_ok()
    }

    pub(super) fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    pub(super) fn clear(&mut self) {
        self.0.clear();
    }
}

impl<T: Ord> Default for Set<T> {
    fn default() -> Self {
        Set::new()
    }
}

impl<T: Ord> Extend<T> for Set<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        for x in items {
            self.insert(x);
        }
    }
}

impl<T> IntoIterator for Set<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// Printed as a `BTreeSet` prints: `{a, b}`.
impl<T: std::fmt::Debug> std::fmt::Debug for Set<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(&self.0).finish()
    }
}

#[cfg(test)]
mod set_tests {
    use super::super::TxId;
    use super::Set;
    use std::collections::BTreeSet;
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

    #[test]
    fn a_set_orders_hashes_and_prints_as_a_btreeset_does() {
        let mut set = Set::new();
        let mut tree = BTreeSet::new();
        for t in [5, 1, 3, 1, 9, 5, 0] {
            set.insert(TxId(t));
            tree.insert(TxId(t));
        }
        set.remove(&TxId(3));
        tree.remove(&TxId(3));
        set.remove(&TxId(4));
        assert!(set.contains(&TxId(9)) && !set.contains(&TxId(3)));
        assert!(set.iter().eq(tree.iter()));
        let hasher = BuildHasherDefault::<DefaultHasher>::default();
        assert_eq!(hasher.hash_one(&set), hasher.hash_one(&tree));
        assert_eq!(format!("{set:?}"), format!("{tree:?}"));
        assert!(set.into_iter().eq(tree));
    }
}
