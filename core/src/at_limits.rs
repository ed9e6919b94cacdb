//! Scenarios at each documented limit, as links: what the benches and the
//! browser tests open to show that a view's cost stays bounded by what it
//! shows, however long a run inside the limits grows.

use crate::builtins;
use crate::link;
use crate::scenario::limits::{
    ATTEMPTS_MAX, CLIENTS_MAX, INTENTS_PER_CLIENT_MAX, JITTER_MS_MAX, TIME_MS_MAX,
};
use crate::scenario::{Intent, Scenario};

/// The built-in every limit link edits: a client that times out and
/// retries, so retries and timeouts have something to do.
pub const BASE: &str = "timeout-retry";

/// `(name, link)` for each limit: most clients; most retries with the
/// smallest timeout; most intents; the longest horizon with retries spread
/// over it; the widest network jitter. Every link is valid, and each stays
/// inside the link limit.
pub fn links() -> Vec<(&'static str, String)> {
    let base = builtins::builtin(BASE).expect("a built-in");
    let per_client = |s: &Scenario| u32::try_from(ATTEMPTS_MAX / s.clients.len() as u64);
    let mut out = Vec::new();
    let mut most = with_clients(&base, CLIENTS_MAX);
    out.push(("most-clients", most.clone()));
    for c in &mut most.clients {
        c.timeout_ms = 1;
        c.backoff_ms = 0;
    }
    let retries = per_client(&most).expect("small") - 1;
    let mut retrying = most.clone();
    for c in &mut retrying.clients {
        c.retries_max = retries;
    }
    out.push(("most-retries", retrying.clone()));
    let mut intents = most.clone();
    for (i, c) in intents.clients.iter_mut().enumerate() {
        c.intents = (0..INTENTS_PER_CLIENT_MAX)
            .map(|j| Intent {
                order_id: (100 * i + j) as i64 + 1,
                key: format!("limit-{i}-{j}"),
                ..c.intents[0].clone()
            })
            .collect();
        c.retries_max = u32::try_from(ATTEMPTS_MAX / (CLIENTS_MAX * INTENTS_PER_CLIENT_MAX) as u64)
            .expect("small")
            - 1;
    }
    out.push(("most-intents", intents));
    let mut long = retrying;
    long.horizon_ms = TIME_MS_MAX;
    long.key_ttl_ms = TIME_MS_MAX;
    for c in &mut long.clients {
        c.backoff_ms = TIME_MS_MAX / u64::from(retries + 1);
    }
    out.push(("longest-horizon", long));
    let mut jitter = base;
    jitter.network.jitter_ms = JITTER_MS_MAX;
    jitter.horizon_ms = TIME_MS_MAX;
    out.push(("widest-jitter", jitter));
    out.into_iter()
        .map(|(name, s)| (name, link::encode(BASE, &s).expect("a built-in")))
        .collect()
}

/// `base` with `n` clients, each a copy of the first under its own name.
fn with_clients(base: &Scenario, n: usize) -> Scenario {
    let mut s = base.clone();
    s.clients = (0..n)
        .map(|i| {
            let mut c = base.clients[0].clone();
            c.name = format!("c{}", i + 1);
            c
        })
        .collect();
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_limit_link_is_valid_and_fits_a_link() {
        let links = links();
        assert_eq!(links.len(), 5);
        for (name, text) in links {
            assert!(text.len() <= link::limits::LINK_BYTES_MAX, "{name}");
            let s = link::decode(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            s.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
