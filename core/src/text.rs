//! Leaf helpers every layer may use: the shared string type and a stable
//! hash. They live apart so that the handler, the world and the fingerprint
//! need not import one another to name a string (issue #20).

use std::sync::Arc;

/// Text a world keeps but never edits (keys, response bodies): shared, so
/// cloning a world, which explorers do millions of times, copies no string.
/// It hashes as `str` does, like `String`.
pub(crate) type Text = Arc<str>;

/// FNV-1a: a stable hash for sticky routing and fingerprints (std's hasher
/// is not guaranteed stable across releases).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
