//! A part of a world (clients, attempts, one instance, the acquirer, the
//! store), as explorers need it.
//!
//! Explorers clone a world for every transition and fingerprint every world
//! a step reaches, but a step changes one or two parts (a client, one
//! instance's jobs). With the `shared-parts` feature a [`Part`] is shared by
//! the clones of a world until one of them edits it (copy on write), and it
//! keeps its fingerprint until it changes. Both hang on the one mutable
//! borrow, `deref_mut`: it unshares the value and clears the fingerprint, so
//! no edit can reach a shared value or leave a stale fingerprint behind.
//!
//! Equality and `Hash` see the value only, so worlds compare and hash (for
//! stateright, for tests) exactly as they would without the wrapper.
//!
//! Without the feature (the page, which never explores) a part is its value
//! and [`Part::fingerprint`] computes every time: the same fingerprints, at
//! no cost to the code that edits worlds.

use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

#[cfg(feature = "shared-parts")]
#[derive(Debug, Default)]
pub struct Part<T> {
    value: std::sync::Arc<T>,
    /// Two words rather than a `u128`, so the part keeps 8-byte alignment.
    cached: Option<[u64; 2]>,
}

#[cfg(not(feature = "shared-parts"))]
#[derive(Clone, Debug, Default)]
pub struct Part<T> {
    value: T,
}

impl<T> Part<T> {
    #[cfg(feature = "shared-parts")]
    pub fn new(value: T) -> Self {
        Self {
            value: std::sync::Arc::new(value),
            cached: None,
        }
    }

    #[cfg(not(feature = "shared-parts"))]
    pub fn new(value: T) -> Self {
        Self { value }
    }

    /// The value's fingerprint by `compute`, computed once per version.
    #[cfg(feature = "shared-parts")]
    pub fn fingerprint(&mut self, compute: impl FnOnce(&T) -> u128) -> u128 {
        if let Some([hi, lo]) = self.cached {
            let fp = (u128::from(hi) << 64) | u128::from(lo);
            // Tests run unoptimised: there, check that no edit slipped past
            // `deref_mut` (a stale fingerprint would merge different states).
            debug_assert_eq!(fp, compute(&self.value), "stale part fingerprint");
            return fp;
        }
        let fp = compute(&self.value);
        self.cached = Some([(fp >> 64) as u64, fp as u64]);
        fp
    }

    #[cfg(not(feature = "shared-parts"))]
    pub fn fingerprint(&mut self, compute: impl FnOnce(&T) -> u128) -> u128 {
        compute(&self.value)
    }
}

#[cfg(feature = "shared-parts")]
impl<T> Clone for Part<T> {
    fn clone(&self) -> Self {
        Self {
            value: std::sync::Arc::clone(&self.value),
            cached: self.cached,
        }
    }

    /// An explorer copies each world into a spare that mostly holds a
    /// sibling, whose parts are the very same values: then only the
    /// fingerprint is copied (see `share`).
    fn clone_from(&mut self, source: &Self) {
        share(&mut self.value, &source.value);
        self.cached = source.cached;
    }
}

/// Makes `to` share `from`'s value, skipping the two atomic reference-count
/// updates when it already does (the explorer's copies almost always do).
pub(crate) fn share<T>(to: &mut std::sync::Arc<T>, from: &std::sync::Arc<T>) {
    if !std::sync::Arc::ptr_eq(to, from) {
        *to = std::sync::Arc::clone(from);
    }
}

impl<T> Deref for Part<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: Clone> DerefMut for Part<T> {
    #[cfg(feature = "shared-parts")]
    fn deref_mut(&mut self) -> &mut T {
        self.cached = None;
        std::sync::Arc::make_mut(&mut self.value)
    }

    #[cfg(not(feature = "shared-parts"))]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T: PartialEq> PartialEq for Part<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: Eq> Eq for Part<T> {}

impl<T: Hash> Hash for Part<T> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.value.hash(h);
    }
}

#[cfg(all(test, feature = "shared-parts"))]
mod tests {
    use super::*;

    #[test]
    fn an_edit_unshares_the_value_and_forgets_the_fingerprint() {
        use std::cell::Cell;
        let computed = Cell::new(0);
        let fp = |p: &mut Part<Vec<u32>>| {
            p.fingerprint(|v| {
                computed.set(computed.get() + 1);
                u128::from(v.iter().sum::<u32>()) << 70 | 7
            })
        };
        let mut part = Part::new(vec![1u32]);
        let computed_when_cached = if cfg!(debug_assertions) { 1 } else { 0 };
        assert_eq!(fp(&mut part), 1 << 70 | 7);
        assert_eq!(fp(&mut part), 1 << 70 | 7);
        assert_eq!(computed.get(), 1 + computed_when_cached, "cached");
        part.push(2);
        assert_eq!(fp(&mut part), 3 << 70 | 7, "recomputed after an edit");
        let _ = &mut *part;
        assert_eq!(fp(&mut part), 3 << 70 | 7);
        assert_eq!(
            computed.get(),
            3 + computed_when_cached,
            "any mutable borrow clears the cache"
        );
        // A clone shares the value and keeps its fingerprint...
        let mut copy = part.clone();
        assert!(std::sync::Arc::ptr_eq(&copy.value, &part.value));
        assert_eq!(fp(&mut copy), 3 << 70 | 7);
        assert_eq!(computed.get(), 3 + 2 * computed_when_cached);
        assert_eq!(copy, part);
        // ...until it is edited: the edit reaches the clone only.
        copy.push(4);
        assert_eq!(*part, vec![1, 2]);
        assert_eq!(*copy, vec![1, 2, 4]);
        assert_eq!(fp(&mut copy), 7 << 70 | 7);
        assert_eq!(fp(&mut part), 3 << 70 | 7);
    }

    #[test]
    fn clone_from_takes_the_source_value_and_fingerprint_whether_shared_or_not() {
        let hash = |v: &Vec<u32>| u128::from(v.iter().sum::<u32>());
        let mut source = Part::new(vec![5u32]);
        source.fingerprint(hash);
        // Sharing the value already: the cached fingerprint still follows.
        let mut sibling = source.clone();
        sibling.cached = None;
        sibling.clone_from(&source);
        assert!(std::sync::Arc::ptr_eq(&sibling.value, &source.value));
        assert_eq!(sibling.cached, source.cached);
        // A different value: replaced by the source's, shared, fingerprint
        // included, and the old value is left to its other owner.
        let mut other = Part::new(vec![9u32]);
        let keep = other.clone();
        other.fingerprint(hash);
        other.clone_from(&source);
        assert!(std::sync::Arc::ptr_eq(&other.value, &source.value));
        assert_eq!(other.cached, source.cached);
        assert_eq!(*keep, vec![9]);
        assert_eq!(std::sync::Arc::strong_count(&source.value), 3);
        assert_eq!(std::sync::Arc::strong_count(&keep.value), 1);
    }
}
