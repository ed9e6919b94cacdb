//! The explorer's fixed-hasher maps: the state index keyed by
//! fingerprints, and the store memo that answers a statement already run
//! on an equal store. The only hash maps in the core (core/clippy.toml).

use super::*;
// The aliases below are the only hash maps in the core (core/clippy.toml);
// every other map is ordered.
#[allow(clippy::disallowed_types)]
use std::collections::{HashMap, HashSet};

/// The index's keys are fingerprints already: use their low bits as is.
#[derive(Default)]
pub(super) struct PassThrough(u64);

impl Hasher for PassThrough {
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u128 fingerprints are hashed")
    }
    fn write_u128(&mut self, i: u128) {
        self.0 = i as u64;
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

#[allow(clippy::disallowed_types)]
pub(super) type Index = HashMap<IndexKey, u32, BuildHasherDefault<PassThrough>>;

/// The index's key: 96 of a fingerprint's 128 bits (its low word whole, the
/// top half of its high word), as three 4-byte words. Aligned to 4 bytes, a
/// slot of the index (key and state number) takes 16 bytes instead of the
/// 24 two 8-byte words took (or the 32 of a `u128`), so the index, the one
/// structure every transition looks up at random, spans a third fewer
/// memory pages and cache lines (measured in docs/performance.md). Two
/// states then share a key with
/// probability about n²/2⁹⁷ for n states (10⁻¹⁴ at the 50-million-state
/// limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct IndexKey([u32; 3]);

impl IndexKey {
    pub(super) fn new(fp: Fingerprint) -> IndexKey {
        IndexKey([fp as u32, (fp >> 32) as u32, (fp >> 96) as u32])
    }
}

impl Hash for IndexKey {
    /// The low word, whole: hashbrown picks the slot from its low bits and
    /// the tag it compares first from its top ones.
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(u64::from(self.0[0]) | (u64::from(self.0[1]) << 32));
    }
}

/// What each statement did to each store the explorer met: the store it
/// left (shared, with its fingerprint) and what it returned. Most
/// transitions run a statement on a store some other transition already
/// ran it on (a step of one instance leaves the store the others see as it
/// was), and a hit skips the engine, the copy of the store and its
/// fingerprint. The key is the fingerprint of (store, session, what the
/// statement is built from), which determines everything `Store::execute`
/// reads: the statement is a function of its `StmtInputs` and the
/// scenario, and the scenario, like the store's schema (left out of its
/// `Hash`), is the same in every world an explorer meets. Keying on the
/// inputs rather than the statement hashes a dozen words instead of some
/// fifty, and a hit builds no statement. Keys are whole 128-bit
/// fingerprints: two collide with probability about 2⁻¹²⁸ per pair.
/// The memo's map, keyed by fingerprints used as their own hash.
#[allow(clippy::disallowed_types)]
pub(super) type MemoMap =
    HashMap<Fingerprint, (Part<Store>, Exec), BuildHasherDefault<PassThrough>>;

#[derive(Default)]
pub(super) struct StoreMemo {
    pub(super) map: MemoMap,
    /// Statements answered from the memo, for the tests.
    pub(super) hits: u64,
}

/// Entries the memo holds at most; it starts over when full, so its memory
/// stays bounded whatever the model (the stores it holds are mostly shared
/// with the worlds waiting in the frontier).
pub(super) const STORE_MEMO_MAX: usize = 1 << 16;

/// The explorer's executor: the memo when it is on, else the plain engine
/// (the stateright peer and the memo's own tests run without one).
impl StoreExec for Option<StoreMemo> {
    #[inline]
    fn execute(
        &mut self,
        store: &mut Part<Store>,
        session: SessionId,
        inputs: &StmtInputs,
        stmt: &dyn Fn() -> Stmt,
    ) -> std::borrow::Cow<'_, Exec> {
        match self {
            Some(memo) => memo.execute(store, session, inputs, stmt),
            None => {
                std::borrow::Cow::Owned(Engine.execute(store, session, inputs, stmt).into_owned())
            }
        }
    }
}

impl StoreExec for StoreMemo {
    fn execute(
        &mut self,
        store: &mut Part<Store>,
        session: SessionId,
        inputs: &StmtInputs,
        stmt: &dyn Fn() -> Stmt,
    ) -> std::borrow::Cow<'_, Exec> {
        let mut h = FingerprintHasher::new();
        h.part(store.fingerprint(fingerprint::of));
        session.hash(&mut h);
        inputs.hash(&mut h);
        let key = h.finish128();
        if self.map.len() >= STORE_MEMO_MAX {
            self.map.clear();
        }
        let (after, exec) = match self.map.entry(key) {
            Entry::Occupied(e) => {
                self.hits += 1;
                e.into_mut()
            }
            Entry::Vacant(e) => {
                let exec = store.execute(session, stmt());
                store.fingerprint(fingerprint::of);
                e.insert((store.clone(), exec))
            }
        };
        store.clone_from(after);
        std::borrow::Cow::Borrowed(exec)
    }
}

/// Maps with std's fixed-key SipHash: no random keys to ask the platform
/// for (wasm32-unknown-unknown has none), and the same behaviour every run.
#[allow(clippy::disallowed_types)]
pub(super) type FixedMap<K, V> = HashMap<K, V, BuildHasherDefault<DefaultHasher>>;

#[allow(clippy::disallowed_types)]
pub(super) type FixedSet<K> = HashSet<K, BuildHasherDefault<DefaultHasher>>;
