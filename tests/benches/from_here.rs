//! `cargo bench -p lousa-tests --bench from_here`: the counts on from a
//! prefix (the workshop's "from here"), read off the graph a complete
//! exploration kept against explored anew, on race-3 check-then-act with
//! the workshop's options and with unordered ties, at prefixes along the
//! shortest double charge's run. Prints figures (and the graph's memory);
//! asserts nothing about time, only that both give the same report.

use lousa_core::builtins::race;
use lousa_core::explore::{self, Options, quiet_world};
use lousa_core::{Schedule, ScheduleChooser, Strategy};
use std::ops::ControlFlow;
use std::time::Instant;

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    let mut s = race(3);
    s.strategy = Strategy::CheckThenAct;
    for unordered_ties in [false, true] {
        let mut o = Options::for_scenario(&s);
        o.unordered_ties = unordered_ties;
        let t = Instant::now();
        let (whole, kept) =
            explore::explore_keeping(&s, &o, &mut |_| ControlFlow::Continue(())).unwrap();
        let whole_ms = ms(t);
        let kept = kept.expect("race-3 completes");
        println!(
            "race-3 check-then-act, unordered ties {unordered_ties}: {} states, {} transitions, explored and kept in {whole_ms:.0} ms; the graph kept holds {:.1} MB",
            whole.states,
            whole.transitions,
            kept.bytes() as f64 / 1e6
        );
        let (_, double) = whole
            .counterexample()
            .expect("check-then-act charges twice");
        let mut w = quiet_world(&s);
        let mut chooser = ScheduleChooser::new(&double.schedule);
        while !w.is_done() {
            w.step(&mut chooser);
        }
        let choices: Vec<u32> = chooser.taken.iter().map(|&(_, _, c)| c).collect();
        let n = choices.len();
        let mut at = vec![0, 1, 2, 3, 5, 8, 12, n / 2, n - 2];
        at.sort();
        at.dedup();
        for k in at {
            let prefix = Schedule(choices[..k].to_vec());
            // The best of three: the answer is short, and the first pays
            // for cold caches.
            let mut reuse_ms = f64::MAX;
            let mut reused = None;
            for _ in 0..3 {
                let t = Instant::now();
                reused = Some(kept.from_prefix(&prefix).unwrap());
                reuse_ms = reuse_ms.min(ms(t));
            }
            let t = Instant::now();
            let fresh =
                explore::explore_from(&s, &o, &prefix, &mut |_| ControlFlow::Continue(())).unwrap();
            let fresh_ms = ms(t);
            let reused = reused.unwrap();
            assert_eq!(reused, fresh, "prefix {}", prefix.exact_text());
            println!(
                "  prefix of {k:>2} choices ({:>12}): {:>9} states, {:>12} schedules: reuse {reuse_ms:>8.1} ms, fresh {fresh_ms:>8.1} ms ({:.0}x)",
                prefix.exact_text(),
                fresh.states,
                fresh.schedules,
                fresh_ms / reuse_ms
            );
        }
    }
}
