//! How explorers fingerprint a world: a fast 128-bit hasher, and the words
//! each part of a world is fed to it as.
//!
//! An explorer fingerprints every world a transition reaches. Fed the way
//! `Hash` feeds them (a word per field, per flag, per enum tag and per
//! string's end), hashing took a large share of the explorer's time (see
//! docs/performance.md). Here the small fields of a value share a word
//! ([`Pack`]), about half the words; every encoding is
//! inlined, so the hasher's lanes stay in registers; a string's last bytes
//! are read as one word rather than copied through a buffer; and an agenda
//! event's code is worked out when it is scheduled (`world::Event`).
//!
//! Sound as long as equal words mean equal values: each encoding writes
//! every field `Eq` compares, a length or a presence flag before whatever
//! it describes (so the words can be read back in only one way), and each
//! destructures its type, so a field added to it must be encoded beside
//! it or left out on purpose. Each part's encoding (`impl Words`) lives
//! beside its type (world/, handler, store), so this module imports nothing
//! from the crate. Stateright and the tests still hash worlds by `Hash`.
//! `world/fingerprint_tests.rs` changes each field of each part in turn, and
//! compares fingerprint equality with `Eq` along runs of every built-in; the
//! explorer's state counts are checked against stateright's.

use std::hash::Hasher;

pub(crate) type Fingerprint = u128;

/// A 128-bit fingerprint hasher built for hashing many small words fast.
/// Words go round-robin into four multiply-rotate lanes, so four multiply
/// chains run side by side instead of one after another (about twice as
/// fast as ahash on a `World`), and every mixed word is also summed into a
/// fifth accumulator. Each lane step is a bijection of the lane for a given
/// word, so inputs that differ in one word always differ; otherwise two
/// states share a fingerprint only if a lane and the sum both collide, about
/// 2⁻¹²⁸ per pair. Stable across builds and platforms.
pub(crate) struct FingerprintHasher {
    lanes: [u64; 4],
    sum: u64,
}

impl FingerprintHasher {
    pub(crate) fn new() -> Self {
        Self {
            lanes: [
                0x243f_6a88_85a3_08d3,
                0x1319_8a2e_0370_7344,
                0xa409_3822_299f_31d0,
                0x082e_fa98_ec4e_6c89,
            ],
            sum: 0x4528_21e6_38d0_1377,
        }
    }

    #[inline(always)]
    pub(crate) fn word(&mut self, x: u64) {
        let m = (self.lanes[0] ^ x)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
        self.sum = self.sum.wrapping_add(m);
        self.lanes = [self.lanes[1], self.lanes[2], self.lanes[3], m];
    }

    pub(crate) fn finish128(&self) -> Fingerprint {
        let [a, b, c, d] = self.lanes;
        let hi = fmix64(a ^ b.rotate_left(17) ^ c.rotate_left(31) ^ d.rotate_left(47));
        let lo = fmix64(self.sum ^ fmix64(a.rotate_left(7) ^ c ^ d.rotate_left(53)) ^ b);
        (u128::from(hi) << 64) | u128::from(lo)
    }

    /// A part's fingerprint (or any other one folded into this), as two
    /// words.
    #[inline(always)]
    pub(crate) fn part(&mut self, fp: Fingerprint) {
        self.word((fp >> 64) as u64);
        self.word(fp as u64);
    }
}

/// The last `rest` (1 to 7) bytes of `bytes` as a little-endian word, zero
/// above them. Read in whole words that overlap bytes already hashed, not
/// copied into a buffer: a copy of a few bytes is a call to `memcpy`, and
/// reading the buffer back as a word stalls until the bytes land (keys and
/// bodies end in a partial word, and this was most of an attempt's hashing).
#[inline(always)]
fn tail(bytes: &[u8], rest: usize) -> u64 {
    let n = bytes.len();
    let at = |i: usize, w: usize| -> u64 {
        let mut b = [0u8; 8];
        b[..w].copy_from_slice(&bytes[i..i + w]);
        u64::from_le_bytes(b)
    };
    if n >= 8 {
        at(n - 8, 8) >> (8 * (8 - rest))
    } else if rest >= 4 {
        // Two 4-byte reads that overlap; the overlap has the same bytes in
        // the same places, so or-ing them is exact.
        at(0, 4) | at(n - 4, 4) << (8 * (rest - 4))
    } else {
        let (a, b, c) = (bytes[0], bytes[rest / 2], bytes[rest - 1]);
        u64::from(a) | u64::from(b) << (8 * (rest / 2)) | u64::from(c) << (8 * (rest - 1))
    }
}

/// MurmurHash3's finaliser: every input bit affects every output bit.
fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

impl Hasher for FingerprintHasher {
    /// Whole words, then the rest (if any) in one word that also holds its
    /// length.
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder().len();
        if rest != 0 {
            self.word(tail(bytes, rest) ^ ((rest as u64) << 59));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.word(u64::from(i));
    }
    fn write_u16(&mut self, i: u16) {
        self.word(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.word(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.word(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.word(i as u64);
    }
    fn finish(&self) -> u64 {
        self.finish128() as u64
    }
}

/// What an explorer feeds the hasher for a value: everything its `Eq`
/// compares, in as few words as can be read back unambiguously.
pub(crate) trait Words {
    fn words(&self, h: &mut FingerprintHasher);
}

/// The fingerprint of a value by its [`Words`].
pub(crate) fn of<T: Words>(value: &T) -> Fingerprint {
    let mut h = FingerprintHasher::new();
    value.words(&mut h);
    h.finish128()
}

/// Small fields packed into one word, lowest bits first.
///
/// A field wider than its slot panics instead of being cut, as a cut field
/// would merge different states. The widths leave a wide margin over what
/// the scenario limits allow (`scenario::limits`): at most 8 clients and 8
/// instances, 32 intents, 672 attempts (8 clients × 4 intents × 21 sends),
/// a few calls per attempt, times below 2⁴⁵ ms (20,000 events, none more
/// than 2³⁰ ms after the last), texts of kilobytes.
#[derive(Clone, Copy)]
#[must_use]
pub(crate) struct Pack {
    word: u64,
    used: u32,
}

impl Pack {
    pub(crate) const fn new() -> Pack {
        Pack { word: 0, used: 0 }
    }

    #[inline(always)]
    pub(crate) fn put(self, value: u64, bits: u32) -> Pack {
        assert!(self.used + bits <= 64, "a packed word holds 64 bits");
        assert!(
            bits == 64 || value >> bits == 0,
            "a fingerprint field outgrew its {bits} bits"
        );
        Pack {
            // `used` is below 64 whenever `bits` is not 0.
            word: self.word | value << (self.used % 64),
            used: self.used + bits,
        }
    }

    #[inline(always)]
    pub(crate) fn flag(self, b: bool) -> Pack {
        self.put(u64::from(b), 1)
    }

    /// `None` as 0, `Some(x)` as x + 1.
    #[inline(always)]
    pub(crate) fn opt(self, v: Option<u32>, bits: u32) -> Pack {
        self.put(v.map_or(0, |x| u64::from(x) + 1), bits)
    }

    #[inline(always)]
    pub(crate) fn len(self, n: usize, bits: u32) -> Pack {
        self.put(n as u64, bits)
    }

    pub(crate) fn word(self) -> u64 {
        self.word
    }
}

/// A string as its bytes; its length goes in a packed word before it.
#[inline(always)]
pub(crate) fn text(h: &mut FingerprintHasher, s: &str) {
    h.write(s.as_bytes());
}

#[cfg(test)]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_is_the_bytes_zero_padded() {
        let bytes: Vec<u8> = (1..=40u8).map(|b| b.wrapping_mul(37)).collect();
        for n in 1..=bytes.len() {
            let rest = n % 8;
            if rest == 0 {
                continue;
            }
            let mut buf = [0u8; 8];
            buf[..rest].copy_from_slice(&bytes[n - rest..n]);
            assert_eq!(
                tail(&bytes[..n], rest),
                u64::from_le_bytes(buf),
                "{n} bytes"
            );
        }
    }

    #[test]
    fn a_pack_puts_fields_lowest_first() {
        let p = Pack::new()
            .put(0b101, 3)
            .flag(true)
            .opt(None, 4)
            .opt(Some(2), 4);
        // 0b101, then the flag, then None as 0, then Some(2) as 3.
        assert_eq!(p.word(), 0b101 | (1 << 3) | (3 << 8));
        assert_ne!(
            Pack::new().opt(None, 8).word(),
            Pack::new().opt(Some(0), 8).word()
        );
    }

    #[test]
    #[should_panic(expected = "outgrew its 4 bits")]
    fn a_pack_refuses_to_cut_a_field() {
        let _ = Pack::new().put(16, 4);
    }

    #[test]
    #[should_panic(expected = "holds 64 bits")]
    fn a_pack_refuses_more_than_a_word() {
        let _ = Pack::new().put(1, 40).put(1, 40);
    }
}
