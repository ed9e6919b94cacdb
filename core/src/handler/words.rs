//! How a job is fingerprinted: kept beside `Job`, apart from the steps
//! (see `crate::fingerprint`).

use super::Job;
use crate::fingerprint::{self, FingerprintHasher, Pack, Words};

/// A word of numbers and presence flags, then what is present: the row,
/// the time it started waiting, a word of the texts' lengths and the
/// response's status, and the texts.
impl Words for Job {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        let Job {
            attempt,
            pc,
            row_id,
            call,
            capture_result,
            waiting_since_ms,
            waiting_sql,
            waiting_shape,
            response,
            headers,
            reclaims,
            balance,
            version,
            lease_token,
        } = self;
        let captured = match capture_result {
            None => 0,
            Some(false) => 1,
            Some(true) => 2,
        };
        h.word(
            Pack::new()
                // 12 bits: far more than a scenario's attempts limit.
                .put(u64::from(*attempt), 12)
                .put(pc.code(), 9)
                // 21 bits: more calls than a run's events limit allows.
                .opt(*call, 21)
                .put(captured, 2)
                // 2 bits: the three kinds of answer.
                .put(*waiting_shape as u64, 2)
                // A design's 2-bit loop counts, four steps' worth.
                .put(u64::from(*reclaims), 8)
                .flag(version.is_some())
                .flag(row_id.is_some())
                .flag(waiting_since_ms.is_some())
                .flag(waiting_sql.is_some())
                .flag(response.is_some())
                .flag(headers.is_some())
                .flag(balance.is_some())
                .flag(lease_token.is_some())
                .word(),
        );
        if let Some(row) = row_id {
            h.word(*row as u64);
        }
        if let Some(balance) = balance {
            h.word(*balance as u64);
        }
        if let Some(version) = version {
            h.word(*version as u64);
        }
        if let Some(lease) = lease_token {
            h.word(*lease as u64);
        }
        if let Some(since) = waiting_since_ms {
            h.word(*since);
        }
        if waiting_sql.is_some() || response.is_some() {
            h.word(
                Pack::new()
                    .len(waiting_sql.as_ref().map_or(0, |s| s.len()), 24)
                    .len(response.as_ref().map_or(0, |(_, b)| b.len()), 24)
                    .put(response.as_ref().map_or(0, |(s, _)| u64::from(*s)), 16)
                    .word(),
            );
        }
        if let Some(sql) = waiting_sql {
            fingerprint::text(h, sql);
        }
        if let Some((_, body)) = response {
            fingerprint::text(h, body);
        }
        if let Some(headers) = headers {
            h.word(headers.len() as u64);
            fingerprint::text(h, headers);
        }
    }
}
