//! A part of a world that keeps its own fingerprint until it changes.
//!
//! Explorers fingerprint every world a step reaches, and a step changes one
//! or two parts of it (a client, one instance's jobs), so most of the hashing
//! would redo what the parent world already hashed. A part kept in
//! [`Fingerprinted`] is hashed once per version: every mutable borrow clears
//! the cached value, so no edit can leave a stale fingerprint behind.
//!
//! Equality and `Hash` see the value only, so worlds compare and hash (for
//! stateright, for tests) exactly as they would without the wrapper.
//!
//! Without the `part-fingerprints` feature (the page, which never explores)
//! nothing is cached and [`Fingerprinted::fingerprint`] computes every time:
//! the same fingerprints, at no cost to the code that edits worlds.

use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

#[derive(Clone, Debug, Default)]
pub struct Fingerprinted<T> {
    value: T,
    #[cfg(feature = "part-fingerprints")]
    /// Two words rather than a `u128`, so the part keeps 8-byte alignment.
    cached: Option<[u64; 2]>,
}

impl<T> Fingerprinted<T> {
    pub fn new(value: T) -> Self {
        Self {
            value,
            #[cfg(feature = "part-fingerprints")]
            cached: None,
        }
    }

    /// The value's fingerprint by `compute`, computed once per version.
    #[cfg(feature = "part-fingerprints")]
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

    #[cfg(not(feature = "part-fingerprints"))]
    pub fn fingerprint(&mut self, compute: impl FnOnce(&T) -> u128) -> u128 {
        compute(&self.value)
    }
}

impl<T> Deref for Fingerprinted<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> DerefMut for Fingerprinted<T> {
    fn deref_mut(&mut self) -> &mut T {
        #[cfg(feature = "part-fingerprints")]
        {
            self.cached = None;
        }
        &mut self.value
    }
}

impl<T: PartialEq> PartialEq for Fingerprinted<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: Eq> Eq for Fingerprinted<T> {}

impl<T: Hash> Hash for Fingerprinted<T> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.value.hash(h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "part-fingerprints")]
    fn a_mutable_borrow_forgets_the_fingerprint() {
        use std::cell::Cell;
        let computed = Cell::new(0);
        let fp = |p: &mut Fingerprinted<Vec<u32>>| {
            p.fingerprint(|v| {
                computed.set(computed.get() + 1);
                u128::from(v.iter().sum::<u32>()) << 70 | 7
            })
        };
        let mut part = Fingerprinted::new(vec![1u32]);
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
        // A clone keeps the fingerprint of its (equal) value.
        let mut copy = part.clone();
        assert_eq!(fp(&mut copy), 3 << 70 | 7);
        assert_eq!(computed.get(), 3 + 2 * computed_when_cached);
        assert_eq!(copy, part);
    }
}
