//! `cargo bench -p lousa-tests --bench core`: simulated events per second
//! over every built-in and strategy, and seek latency (p50/p99) on a run of
//! at least 1,000 events. Prints figures; asserts nothing about time.

use lousa_core::builtins::{self, NAMES};
use lousa_core::run::outcome_with;
use lousa_core::{RngChooser, Scenario, Strategy, World};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// A busy variant of the story: 8 clients with 4 intents each, a slow
/// acquirer and short timeouts, so retries pile up.
pub fn busy_scenario() -> Scenario {
    let mut s = builtins::builtin("timeout-retry").unwrap();
    s.name = "busy".into();
    s.strategy = Strategy::IdempotencyKey;
    s.instances = 4;
    s.network.jitter_ms = 30;
    let template = s.clients[0].clone();
    s.clients = (0..8)
        .map(|c| {
            let mut cl = template.clone();
            cl.name = format!("c{c}");
            cl.retries_max = 6;
            cl.timeout_ms = 900;
            cl.backoff_ms = 100;
            cl.start_ms = c * 37;
            cl.intents = (0..4)
                .map(|i| {
                    let mut it = template.intents[0].clone();
                    it.order_id = 1000 + c as i64 * 10 + i;
                    it.key = format!("k-{c}-{i}");
                    it
                })
                .collect();
            cl
        })
        .collect();
    s
}

fn events_per_second() {
    let mut scenarios = Vec::new();
    for name in NAMES {
        for strategy in Strategy::ALL {
            let mut s = builtins::builtin(name).unwrap();
            s.strategy = strategy;
            scenarios.push(s);
        }
    }
    let mut events = 0u64;
    let mut rounds = 0u32;
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(2) {
        for s in &scenarios {
            let mut w = World::new(s);
            let mut chooser = RngChooser::new(s.seed);
            while !w.is_done() {
                events += w.step(&mut chooser).len() as u64;
            }
            black_box(&w);
        }
        rounds += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "simulate: {} scenario runs ({} built-ins x {} strategies x {rounds} rounds), {events} events in {secs:.2} s = {:.0} events/s",
        scenarios.len() as u32 * rounds,
        NAMES.len(),
        Strategy::ALL.len(),
        events as f64 / secs
    );
    // The same without building trace events' frames, for comparison.
    let start = Instant::now();
    let mut runs = 0u32;
    while start.elapsed() < Duration::from_secs(1) {
        for s in &scenarios {
            black_box(outcome_with(s, &mut RngChooser::new(s.seed)));
            runs += 1;
        }
    }
    println!(
        "outcome only: {:.0} scenario runs/s",
        f64::from(runs) / start.elapsed().as_secs_f64()
    );
}

fn seek_latency() {
    let s = busy_scenario();
    let build = Instant::now();
    let run = lousa_core::run(&s).unwrap();
    let build = build.elapsed();
    let events: usize = run.steps.iter().map(|st| st.events.len()).sum();
    assert!(events >= 1_000, "the busy scenario has only {events} events");
    // Seeks in a scattered but repeatable order, as a scrubbing reader makes.
    let n = run.frame_count();
    let mut samples = Vec::with_capacity(20_000);
    let mut frame = 0usize;
    for _ in 0..20_000 {
        frame = (frame * 7919 + 104_729) % n;
        let t = Instant::now();
        black_box(run.state_at(black_box(frame)));
        samples.push(t.elapsed());
    }
    samples.sort();
    let p = |q: f64| samples[((samples.len() as f64 - 1.0) * q) as usize];
    println!(
        "seek: {events} events, {n} frames, run+frames built in {:.1} ms; state_at p50 {:?}, p99 {:?}, max {:?}",
        build.as_secs_f64() * 1e3,
        p(0.50),
        p(0.99),
        samples.last().unwrap()
    );
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is accepted and ignored.
    events_per_second();
    seek_latency();
}
