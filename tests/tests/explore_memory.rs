//! The explorer's memory at every limit at once: what a state costs
//! while the search runs, counted by an allocator that tracks the bytes
//! held, so that exploring a scenario inside the limits cannot exhaust a
//! browser tab (a wasm32 worker has 4 GiB at most) before its state limit.

use lousa_core::explore::{Explorer, Options, Status};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let held = HELD.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(held, Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// States explored: enough for a frontier of worlds to hold gigabytes.
const STATES: u32 = 200_000;
/// What a state may cost at the peak, besides `FIXED`: its node, index
/// slot, edges and frontier entry, with the vectors' spare capacity.
const BYTES_PER_STATE: usize = 400;
/// The worlds a search keeps whatever its size: the frontier's first
/// worlds (up to some 160 MB of the widest) and those its steps are
/// replayed from.
const FIXED: usize = 192 << 20;

#[path = "shared/every_limit.rs"]
mod every_limit;

/// One test, so that no other test's allocations are counted. The model
/// is a built-in at every limit at once: a random balancer and the widest
/// jitter give a state a successor for each millisecond of jitter and each
/// instance, the widest frontier the limits allow (the limit links of
/// `at_limits`, one limit each, keep narrow ones).
#[test]
fn exploring_at_every_limit_holds_a_bounded_memory_per_state() {
    let s = every_limit::scenario("timeout-retry");
    let mut o = Options::for_strategy(s.strategy);
    o.max_states = STATES;
    let before = HELD.load(Relaxed);
    PEAK.store(before, Relaxed);
    let mut ex = Explorer::new(&s, &o).expect("valid");
    // Slices, as the worker runs it: the peak is while it runs, before the
    // end lets the frontier go.
    while ex.run_for(1_000).status == Status::Running {}
    let states = ex.progress().states as usize;
    assert_eq!(states, STATES as usize, "cut by the state limit");
    let peak = PEAK.load(Relaxed) - before;
    println!(
        "{states} states, peak {} MB, {} B a state",
        peak >> 20,
        peak / states
    );
    assert!(
        peak <= FIXED + BYTES_PER_STATE * states,
        "{peak} B at the peak for {states} states"
    );
}
