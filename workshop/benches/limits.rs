//! What the workshop does natively at each documented limit (issue #34):
//! mounting a link (reading it, the choice point, the layout of the frames the
//! board can show, the frame on screen), a pick, and a step back. Medians
//! of several passes, printed; the browser test times the same links on
//! the page.

use lousa_core::at_limits;
use lousa_core::choice::Schedule;
use lousa_core::narrate::Lang;
use lousa_core::scheduling::{self, Turn};
use lousa_web::board;
use lousa_workshop::url;
use std::time::{Duration, Instant};

const PASSES: usize = 7;
const WIDTH: i32 = 760;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn time<T>(f: impl Fn() -> T) -> Duration {
    median(
        (0..PASSES)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(f());
                start.elapsed()
            })
            .collect(),
    )
}

/// What the board draws for a turn: the layout of the frames up to the
/// turn's, and that frame.
fn draw(t: &Turn) -> usize {
    let layout = board::layout_through(&t.run, t.frame, WIDTH, Lang::Pt);
    board::board(&t.run, t.frame, WIDTH, Lang::Pt, &layout)
        .parts
        .len()
}

fn main() {
    println!("the workshop at its limits (native, median of {PASSES}):");
    println!(
        "{:<16} {:>7} {:>7} {:>10} {:>10} {:>10} {:>10}",
        "link", "frames", "picks", "mount ms", "pick ms", "last ms", "step ms"
    );
    for (name, link) in at_limits::links() {
        let query = format!("?modo=oficina&scenario={}", url::encode(&link));
        let mount = || {
            let (setup, _) = url::parse(&query);
            let s = url::scenario_of(setup.scenario, &setup.edits).expect("valid");
            let t = scheduling::point(&s, &Schedule(setup.choices)).expect("fits");
            draw(&t);
            (s, t)
        };
        let (s, t) = mount();
        let picks = t.next.as_ref().map_or(0, |p| p.arity);
        let pick = || {
            let t = scheduling::point(&s, &Schedule(vec![0])).expect("fits");
            draw(&t)
        };
        let layout = board::layout_through(&t.run, t.frame, WIDTH, Lang::Pt);
        let step = || board::board(&t.run, t.frame.saturating_sub(1), WIDTH, Lang::Pt, &layout);
        // The last pick of a run the attendee took to its end.
        let (all, _) = scheduling::fit(&s, &Schedule(vec![0; 100_000]));
        let before_last = Schedule(all.0[..all.0.len().saturating_sub(1)].to_vec());
        // The page keeps the layout measured before the pick, and measures
        // only the frames the pick adds.
        let before = scheduling::point(&s, &before_last).expect("fits");
        let mut measured = board::Measured::new(&t.run, WIDTH);
        measured.extend(&before.run, before.frame, Lang::Pt);
        let last_pick = || {
            let t = scheduling::point(&s, &all).expect("fits");
            let mut m = measured.clone();
            m.extend(&t.run, t.frame, Lang::Pt);
            board::board(&t.run, t.frame, WIDTH, Lang::Pt, &m.layout())
                .parts
                .len()
        };
        println!(
            "{:<16} {:>7} {:>7} {:>10.1} {:>10.1} {:>10.1} {:>10.1}",
            name,
            lousa_core::run::run_schedule(&s, &Schedule::default())
                .expect("valid")
                .frame_count(),
            picks,
            time(mount).as_secs_f64() * 1e3,
            time(pick).as_secs_f64() * 1e3,
            time(last_pick).as_secs_f64() * 1e3,
            time(step).as_secs_f64() * 1e3,
        );
    }
}
