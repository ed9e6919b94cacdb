//! `cargo bench -p lousa-tests --bench core`: simulated events per second
//! over every built-in and strategy, and seek latency (p50/p99) on a run of
//! at least 1,000 events. Prints figures; asserts nothing about time.

use lousa_core::builtins::{self, NAMES};
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

/// Steps (scheduler events) per second, traced and quiet, in one run so the
/// ratio is measured under the same load.
fn events_per_second() {
    let mut scenarios = Vec::new();
    for name in NAMES {
        for strategy in Strategy::ALL {
            let mut s = builtins::builtin(name).unwrap();
            s.strategy = strategy;
            scenarios.push(s);
        }
    }
    let mut rates = Vec::new();
    for quiet in [false, true] {
        let mut steps = 0u64;
        let mut trace_events = 0u64;
        let mut runs = 0u32;
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(2) {
            for s in &scenarios {
                let mut w = World::new(s);
                if quiet {
                    w.set_quiet();
                }
                let mut chooser = RngChooser::new(s.seed);
                while !w.is_done() {
                    trace_events += w.step(&mut chooser).len() as u64;
                    steps += 1;
                }
                black_box(outcome_of(&w));
                runs += 1;
            }
        }
        let secs = start.elapsed().as_secs_f64();
        let rate = steps as f64 / secs;
        rates.push(rate);
        println!(
            "simulate ({}): {runs} runs of {} built-ins x {} strategies, {steps} events ({trace_events} trace lines) in {secs:.2} s = {rate:.0} events/s",
            if quiet { "quiet" } else { "traced" },
            NAMES.len(),
            Strategy::ALL.len(),
        );
    }
    println!("quiet/traced throughput ratio: {:.2}", rates[1] / rates[0]);
}

fn outcome_of(w: &World) -> u32 {
    lousa_core::run::summarize(w).captures
}

fn seek_latency() {
    let s = busy_scenario();
    let build = Instant::now();
    let run = lousa_core::run(&s).unwrap();
    let build = build.elapsed();
    let events: usize = run.steps.iter().map(|st| st.events.len()).sum();
    assert!(
        events >= 1_000,
        "the busy scenario has only {events} events"
    );
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
