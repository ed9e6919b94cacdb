//! A built-in stretched to every limit at once: the most clients, each
//! with the most intents and the most retries the attempts limit leaves,
//! the most instances and connections, a random balancer, the widest
//! jitter, recovery as often as allowed, the longest horizon and the most
//! faults.

use lousa_core::Scenario;
use lousa_core::builtins;
use lousa_core::scenario::{Fault, LoadBalancerPolicy, limits};

/// The built-in `name` at every limit at once.
pub fn scenario(name: &str) -> Scenario {
    let mut s = builtins::builtin(name).expect("a built-in");
    s.instances = limits::INSTANCES_MAX;
    s.pool_size = limits::POOL_SIZE_MAX;
    s.load_balancer = LoadBalancerPolicy::Random;
    s.network.jitter_ms = limits::JITTER_MS_MAX;
    s.recovery_every_ms = 100;
    s.horizon_ms = limits::TIME_MS_MAX;
    s.key_ttl_ms = 1;
    let template = s.clients[0].clone();
    let intent = template.intents[0].clone();
    s.clients = (0..limits::CLIENTS_MAX)
        .map(|i| {
            let mut c = template.clone();
            c.name = format!("c{i}");
            c.timeout_ms = 1;
            // The most retries the attempts limit leaves each intent.
            c.retries_max = (limits::ATTEMPTS_MAX
                / (limits::CLIENTS_MAX * limits::INTENTS_PER_CLIENT_MAX) as u64
                - 1) as u32;
            c.backoff_ms = 0;
            c.intents = (0..limits::INTENTS_PER_CLIENT_MAX)
                .map(|j| {
                    let mut it = intent.clone();
                    it.order_id = (i * 10 + j + 1) as i64;
                    it.key = format!("k{i}-{j}");
                    it
                })
                .collect();
            c
        })
        .collect();
    s.faults = (0..limits::FAULTS_MAX as u32)
        .map(|k| match k % 4 {
            0 => Fault::DropResponse { attempt: k + 1 },
            1 => Fault::DropRequest { attempt: k + 1 },
            2 => Fault::Crash {
                instance: k % limits::INSTANCES_MAX,
                at_ms: Some(u64::from(k)),
                at_point: None,
                restart_after_ms: 1,
            },
            _ => Fault::AcquirerTimeoutAfterAccept { call: k },
        })
        .collect();
    s
}
