//! `lousa`: the terminal front end. Every command is a thin view over
//! `lousa-core`; bad input exits non-zero with the core's precise error.

use clap::{Parser, Subcommand, ValueEnum};
use lousa_core::explore::{self, Modality, Verdict};
use lousa_core::narrate::{self, Lang};
use lousa_core::property;
use lousa_core::text::counted;
use lousa_core::{Scenario, Schedule, Strategy, builtins, lesson, link, run, swarm, sweep};
use std::ops::ControlFlow;
use std::process::ExitCode;

/// `print!`, except that a closed stdout ends the program quietly (see
/// [`wrote`]).
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        $crate::wrote(write!(std::io::stdout().lock(), $($arg)*));
    }};
}

/// `println!`, except that a closed stdout ends the program quietly.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        $crate::wrote(writeln!(std::io::stdout().lock(), $($arg)*));
    }};
}

mod designs;
mod fault_swarm;
mod replay;

/// Whoever pipes a report into `head` has read what they wanted: a closed
/// stdout ends the program with success. Rust ignores SIGPIPE, so a plain
/// `println!` would panic there instead.
fn wrote(result: std::io::Result<()>) {
    match result {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => panic!("cannot write to stdout: {e}"),
    }
}

/// Lousa: simulate duplicate charges on retry and the designs that prevent them.
#[derive(Parser)]
#[command(name = "lousa", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum ScenarioFormat {
    Text,
    Json,
    /// The built-in it starts from and the edits that make it, as the page's
    /// URL carries it (`timeout-retry;clients.0.timeout_ms=1500`).
    Link,
}

/// `--reduction`, as `explore::Reduction` names them.
#[derive(Clone, Copy, ValueEnum)]
enum ReductionArg {
    None,
    Symmetry,
    Por,
    Flows,
}

#[derive(Clone, Copy, ValueEnum)]
enum SearchArg {
    Bfs,
    Dfs,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExportFormat {
    Psql,
    RustTest,
    History,
    Mermaid,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum LangArg {
    Pt,
    En,
}

#[derive(Subcommand)]
enum Command {
    /// Replay a run's database traffic on a real PostgreSQL 15, one
    /// connection per terminal (A, B, ...) in a schema of its own, and print
    /// the model's outcome of every statement beside the server's. Exits 0
    /// when they agree, 1 at the first disagreement, 2 when it cannot
    /// compare (server unreachable, no CREATE, not version 15, timeout).
    Replay(replay::ReplayArgs),
    /// List the built-in scenarios, or print one as scenario JSON to edit
    /// and run back (`lousa scenarios timeout-retry --format json > my.json`).
    Scenarios {
        /// A built-in name, a scenario link or a path to scenario JSON;
        /// without it, the list.
        scenario: Option<String>,
        /// `json` prints the scenario as JSON that `lousa run` reads back
        /// unchanged (every field, defaults included); `link` prints it as
        /// edits of the built-in its `name` names, which `lousa run` reads too.
        #[arg(long, value_enum, default_value = "text")]
        format: ScenarioFormat,
    },
    /// List the built-in designs (the strategies written as data), or print
    /// one, a step a line or as JSON to edit and run back with `--design`
    /// (`lousa designs idempotency-key --format json > mine.json`).
    Designs {
        /// A built-in design's name or a path to design JSON; without it,
        /// the list.
        design: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// List the workshop's lesson, challenge by challenge: how it is
    /// solved, its goal, and a solution found and checked on the spot.
    Lesson,
    /// Run a scenario and print its timeline and outcome.
    Run {
        /// A built-in name (see `lousa scenarios`) or a path to scenario JSON.
        scenario: String,
        /// Override the scenario's strategy (naive, check-then-act, idempotency-key, ...).
        #[arg(long)]
        strategy: Option<String>,
        /// Run the HTTP handler as this design: a built-in's name (see
        /// `lousa designs`) or a path to design JSON.
        #[arg(long)]
        design: Option<String>,
        /// Override the scenario's seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Replay this schedule instead of drawing choices from the seed.
        #[arg(long)]
        schedule: Option<String>,
        /// Apply variant N of the swarm family first (timeout, jitter, retry
        /// policy, key lifetime and seed, all from N), as `lousa swarm` ran it.
        #[arg(long)]
        variant: Option<u64>,
        /// Branch the run: FRAME:FAULT injects a fault at that frame of the
        /// run (12:crash-2+3000, 5:lose-response-1, 8:silence-acquirer-1,
        /// 6:delay-1+500, 3:lose-request-2) and runs on from there.
        #[arg(long)]
        fork: Option<String>,
        /// List the faults that can be injected at this frame, as --fork
        /// texts, instead of running.
        #[arg(long)]
        palette: Option<usize>,
        /// Print the run's predict-then-reveal questions (the frame each
        /// waits at, its choices, the answer marked *) instead of the run.
        #[arg(long)]
        prompts: bool,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// The language of the timeline, the summary and the prompts.
        #[arg(long, value_enum, default_value = "en")]
        lang: LangArg,
    },
    /// Run many seeded variants of a scenario and print the double-charge
    /// rate per bucket, with a seed per bucket that reproduces with
    /// `lousa run <scenario> --variant <seed>`. With --faults, the fault
    /// swarm: per seed, faults and timings drawn for the scenario (or for
    /// every built-in, `all`), each design that makes sense for it run, and
    /// every property the design claims there checked; each violation with
    /// its seed, a link `lousa run` replays and a shrunk link. Exits 1 when
    /// a claimed property broke; Ctrl-C stops it with the report so far.
    Swarm {
        /// A built-in name, a scenario link or a path to scenario JSON;
        /// with --faults, also `all` (every built-in).
        scenario: String,
        /// Override the scenario's strategy (with --faults: run only this design).
        #[arg(long)]
        strategy: Option<String>,
        /// Run the HTTP handler as this design (see `lousa designs`); with
        /// --faults, every target under its own strategy's claims, or
        /// --strategy's.
        #[arg(long)]
        design: Option<String>,
        /// How many seeds to run (at most 100000; with --faults at most
        /// 1000000, default 100).
        #[arg(long)]
        seeds: Option<u64>,
        /// Draw faults and timings and check the designs' claimed properties.
        #[arg(long)]
        faults: bool,
        /// The first seed; seeds run from it upwards.
        #[arg(long, default_value_t = 0)]
        first_seed: u64,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Sweep two fields of a scenario over a grid and count, in each cell
    /// and under each design, the seeded runs that charged twice
    /// (`--x clients.0.timeout_ms=500..4000:8 --y acquirer.latency_ms=1000,3000`).
    Sweep {
        /// A built-in name, a scenario link or a path to scenario JSON.
        scenario: String,
        /// The field across: a link's dotted path, then `=v1,v2,...` (JSON
        /// values) or `=from..to:n` (n whole numbers, ends included).
        #[arg(long)]
        x: String,
        /// The field down, written as --x is.
        #[arg(long)]
        y: String,
        /// The designs, one heatmap each, comma-separated (default: the
        /// scenario's own and idempotency-key).
        #[arg(long, value_delimiter = ',')]
        strategies: Vec<String>,
        /// One heatmap of this design instead (see `lousa designs`), under
        /// the scenario's strategy's claims.
        #[arg(long, conflicts_with = "strategies")]
        design: Option<String>,
        /// Seeds per cell and design.
        #[arg(long, default_value_t = 10)]
        seeds: u64,
        #[arg(long, default_value_t = 0)]
        first_seed: u64,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Write a run to take home: its database traffic as a script for one
    /// psql terminal per connection (labels A, B, ...; WAITS marks a block),
    /// a Rust test that replays it, its JSON history, or a Mermaid diagram.
    Export {
        /// A built-in name or a path to scenario JSON.
        scenario: String,
        #[arg(long)]
        strategy: Option<String>,
        /// Run the HTTP handler as this design: a built-in's name (see
        /// `lousa designs`) or a path to design JSON.
        #[arg(long)]
        design: Option<String>,
        #[arg(long)]
        seed: Option<u64>,
        /// Replay this schedule instead of drawing choices from the seed.
        #[arg(long)]
        schedule: Option<String>,
        /// Export the branch: FRAME:FAULT injects a fault at that frame, as
        /// `lousa run --fork`.
        #[arg(long)]
        fork: Option<String>,
        /// psql: the script for psql terminals; rust-test: a #[test] asserting
        /// the run's outcome; history: invoke/ok/fail/info operations as
        /// JSON; mermaid: a sequenceDiagram of the messages.
        #[arg(long, value_enum, default_value = "psql")]
        format: ExportFormat,
        /// The language of the psql script's comments and of the Mermaid diagram's labels.
        #[arg(long, value_enum, default_value = "en")]
        lang: LangArg,
    },
    /// Explore every schedule of a scenario and check the properties.
    Explore {
        /// A built-in name (race-2 and race-3 are the small models) or a path
        /// to scenario JSON.
        scenario: String,
        /// Override the scenario's strategy.
        #[arg(long)]
        strategy: Option<String>,
        /// Run the HTTP handler as this design: a built-in's name (see
        /// `lousa designs`) or a path to design JSON.
        #[arg(long)]
        design: Option<String>,
        /// Distinct states to explore at most; reaching it is reported as
        /// state-limit and the run fails.
        #[arg(long, default_value_t = explore::limits::STATES_DEFAULT)]
        max_states: u32,
        /// How much to reduce. `none`: every state, clients and capture
        /// calls told apart. `symmetry` (the default): interchangeable
        /// clients and capture calls merged, the same counts. `por`: symmetry, unordered ties, and one order of
        /// steps that touch different parts of the world: the same
        /// outcomes, verdicts and shortest examples (in steps), far fewer
        /// states, and no schedule counts. `flows`: `por`, and attempts
        /// that differ only by name (their instances and sessions with
        /// them) merged, where every client sends once alike (race-N): the
        /// same verdicts and shortest examples, outcomes up to which
        /// attempt is which.
        #[arg(long, value_enum, conflicts_with = "no_symmetry")]
        reduction: Option<ReductionArg>,
        /// Turn off the client-symmetry reduction (fingerprinting stays on):
        /// `--reduction none`.
        #[arg(long)]
        no_symmetry: bool,
        /// Also merge states that differ only in the order of events due at
        /// the same instant: about half the states, but the shortest
        /// counterexample is then the one with the fewest steps rather than
        /// the shortest schedule text.
        #[arg(long)]
        unordered_ties: bool,
        /// Depth-first (default) or breadth-first: a complete run has the same
        /// graph and the same figures either way; depth-first needs far less
        /// memory, breadth-first sees the states nearest the start first
        /// when --max-states cuts the run.
        #[arg(long, value_enum, default_value = "dfs")]
        search: SearchArg,
        /// The *sometimes* properties to require. Without it, the one the
        /// strategy is expected to show (double-charge-reachable,
        /// 409-reachable or replay-reachable) is reported but not required:
        /// not every scenario can lead there.
        #[arg(long, value_delimiter = ',')]
        sometimes: Vec<String>,
        /// Explore only the ways on from where this schedule prefix leaves
        /// the run (its choices, then the steps that need none): the counts
        /// are of the schedules from there, the examples whole schedules.
        #[arg(long)]
        from: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// The language of the text report and of the counterexample's
        /// narration; property names stay as they are, and JSON is the same
        /// in both.
        #[arg(long, value_enum, default_value = "en")]
        lang: LangArg,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Replay has exit codes of its own (1 is a disagreement).
    if let Command::Replay(args) = cli.command {
        return replay::execute(args);
    }
    match execute(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The run a command names, branched at `fork` (`--fork`) when given: the
/// schedule's choices, or the seeded run's, up to the fork's frame, the
/// fault, then the choices left. A typed schedule must fit the branch (a
/// branch's export carries the branch's own schedule, which runs past the
/// unforked run's).
fn run_of(
    s: &Scenario,
    schedule: Option<&str>,
    fork: Option<&str>,
) -> Result<lousa_core::Run, String> {
    let Some(text) = fork else {
        return run_seeded_or_scheduled(s, schedule);
    };
    let at: lousa_core::fork::Fork = text.parse().map_err(|e| format!("--fork: {e}"))?;
    let forked = match schedule {
        Some(typed) => {
            let sched: Schedule = typed.parse().map_err(|e| format!("--schedule: {e}"))?;
            run::run_forked_exact(s, &sched, at.frame, at.injection)
        }
        None => {
            let seeded = run(s).map_err(|e| e.to_string())?;
            let sched: Schedule = seeded.schedule.parse().map_err(|e| format!("{e}"))?;
            run::run_forked(s, &sched, at.frame, at.injection)
        }
    };
    forked.map_err(|e| format!("--fork {text}: {e}"))
}

/// Runs with the scenario's seed, or replays `--schedule` when given.
fn run_seeded_or_scheduled(
    s: &Scenario,
    schedule: Option<&str>,
) -> Result<lousa_core::Run, String> {
    match schedule {
        Some(text) => {
            let sched: Schedule = text.parse().map_err(|e| format!("--schedule: {e}"))?;
            // A schedule from the reader must fit: a choice past the
            // alternatives would otherwise be clamped without a word.
            run::run_schedule_exact(s, &sched).map_err(|e| format!("--schedule: {e}"))
        }
        None => run(s).map_err(|e| e.to_string()),
    }
}

/// A built-in by name, a scenario link (a built-in's name, then `;` and
/// edits), or scenario JSON from a file, with overrides applied.
pub fn load(name: &str, strategy: Option<&str>, seed: Option<u64>) -> Result<Scenario, String> {
    let mut s = match builtins::builtin(name) {
        Some(s) => s,
        None if name.contains(';') => {
            link::decode(name).map_err(|e| format!("scenario link: {e}"))?
        }
        None if name.ends_with(".json") || std::path::Path::new(name).exists() => {
            let text = std::fs::read_to_string(name).map_err(|e| format!("{name}: {e}"))?;
            Scenario::from_json(&text).map_err(|e| format!("{name}: {e}"))?
        }
        None => {
            // NAMES lists the two races the page offers; any size in
            // RACE_SIZES runs, so the message names the family instead.
            let fixed: Vec<&str> = builtins::NAMES
                .iter()
                .copied()
                .filter(|n| !n.starts_with("race-"))
                .collect();
            return Err(format!(
                "scenario: unknown built-in {name:?}; built-ins are {}, and race-N for N from {} to {}",
                fixed.join(", "),
                builtins::RACE_SIZES.start(),
                builtins::RACE_SIZES.end()
            ));
        }
    };
    if let Some(st) = strategy {
        s.strategy = Strategy::from_name(st).ok_or_else(|| {
            let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
            format!(
                "--strategy: unknown strategy {st:?}; choose one of {}",
                names.join(", ")
            )
        })?;
    }
    if let Some(seed) = seed {
        s.seed = seed;
    }
    s.validate().map_err(|e| e.to_string())?;
    Ok(s)
}

/// A solution as the lesson's table shows it: an edit names the fields it
/// sets before the link it makes, since an edit back to the built-in's own
/// value leaves no trace in the link.
fn solution_text(c: &lesson::Challenge, solution: &lesson::solve::Solution) -> String {
    match (solution, lesson::solve::known_edit(c.id)) {
        (lesson::solve::Solution::Edit(link), Some(edits)) => {
            let set: Vec<String> = edits.iter().map(|(p, v)| format!("{p}={v}")).collect();
            format!("{} → {link}", set.join(", "))
        }
        _ => solution.text(),
    }
}

fn execute(cmd: Command) -> Result<(), String> {
    match cmd {
        Command::Replay(_) => unreachable!("main runs replay"),
        Command::Lesson => {
            let mut rows = Vec::new();
            for c in lesson::LESSON {
                let solved = lesson::solve::solve(c)?;
                rows.push([
                    c.id.to_string(),
                    c.how.name().to_string(),
                    c.goal.label(),
                    solution_text(c, &solved.solution),
                    solved.picks.to_string(),
                ]);
            }
            let head = ["id", "how", "goal", "solution", "picks"].map(String::from);
            let width = |i: usize| {
                rows.iter()
                    .chain([&head])
                    .map(|r| r[i].chars().count())
                    .max()
            };
            let widths: Vec<usize> = (0..4).map(|i| width(i).unwrap_or(0)).collect();
            for row in [&head].into_iter().chain(&rows) {
                outln!(
                    "{:<w0$}  {:<w1$}  {:<w2$}  {:<w3$}  {}",
                    row[0],
                    row[1],
                    row[2],
                    row[3],
                    row[4],
                    w0 = widths[0],
                    w1 = widths[1],
                    w2 = widths[2],
                    w3 = widths[3]
                );
            }
            Ok(())
        }
        Command::Scenarios { scenario, format } => {
            let list = match &scenario {
                Some(name) => vec![load(name, None, None)?],
                None => builtins::all(),
            };
            match (format, &list[..]) {
                (ScenarioFormat::Json, [one]) if scenario.is_some() => outln!("{}", one.to_json()),
                (ScenarioFormat::Json, all) => outln!(
                    "{}",
                    serde_json::to_string_pretty(all).expect("scenarios serialize")
                ),
                (ScenarioFormat::Link, all) => {
                    for s in all {
                        let link = link::encode(&s.name, s).ok_or_else(|| {
                            format!(
                                "--format link: the scenario's name {:?} names no built-in to start the link from",
                                s.name
                            )
                        })?;
                        outln!("{link}");
                    }
                }
                (ScenarioFormat::Text, all) => {
                    for s in all {
                        outln!("{:<30} {:<24} {}", s.name, s.strategy.name(), s.title.en);
                    }
                }
            }
            Ok(())
        }
        Command::Designs { design, format } => {
            designs::execute(design.as_deref(), matches!(format, Format::Json))
        }
        Command::Run {
            scenario,
            strategy,
            design,
            seed,
            schedule,
            variant,
            fork,
            palette,
            prompts,
            format,
            lang,
        } => {
            let mut s = load(&scenario, strategy.as_deref(), seed)?;
            designs::attach(&mut s, design.as_deref())?;
            if let Some(v) = variant {
                s = swarm::apply(&s, &swarm::variant(v));
                if let Some(seed) = seed {
                    s.seed = seed;
                }
                s.validate().map_err(|e| format!("--variant {v}: {e}"))?;
            }
            let lang = lang_of(lang);
            if let Some(frame) = palette {
                let r = run_seeded_or_scheduled(&s, schedule.as_deref())?;
                let last = r.frame_count() - 1;
                let world = lousa_core::fork::world_at(&s, &r, frame).ok_or_else(|| {
                    format!(
                        "--palette: frame {frame} is past the run's end: it has frames 0 to {last}"
                    )
                })?;
                for offer in lousa_core::fork::palette(&world, frame, lang) {
                    outln!("{:<24} {}", offer.fork.to_string(), offer.label);
                }
                return Ok(());
            }
            let r = run_of(&s, schedule.as_deref(), fork.as_deref())?;
            if prompts {
                for p in lousa_core::predict::prompts(&r) {
                    outln!(
                        "frame {} → {}: {}",
                        p.ask_at,
                        p.reveal_at,
                        p.question.get(lang)
                    );
                    for (i, c) in p.choices.iter().enumerate() {
                        let mark = if i == p.answer { '*' } else { ' ' };
                        outln!("  {mark} {}. {}", i + 1, c.get(lang));
                    }
                }
                return Ok(());
            }
            match format {
                Format::Json => {
                    let mut v = run_json(&r);
                    designs::label(&mut v, &s);
                    outln!("{}", serde_json::to_string_pretty(&v).expect("serializes"))
                }
                Format::Text => print_run(&s, &r, lang),
            }
            Ok(())
        }
        Command::Export {
            scenario,
            strategy,
            design,
            seed,
            schedule,
            fork,
            format,
            lang,
        } => {
            use lousa_core::export::{self, Format as F};
            let mut s = load(&scenario, strategy.as_deref(), seed)?;
            designs::attach(&mut s, design.as_deref())?;
            let r = run_of(&s, schedule.as_deref(), fork.as_deref())?;
            let format = match format {
                ExportFormat::Psql => F::Psql,
                ExportFormat::RustTest => F::RustTest,
                ExportFormat::History => F::History,
                ExportFormat::Mermaid => F::Mermaid,
            };
            out!("{}", export::render(format, &s, &r, lang_of(lang)));
            Ok(())
        }
        Command::Swarm {
            scenario,
            strategy,
            design,
            seeds,
            faults,
            first_seed,
            format,
        } => {
            if faults {
                return fault_swarm::execute(fault_swarm::Args {
                    scenario: &scenario,
                    strategy: strategy.as_deref(),
                    design: design.as_deref(),
                    seeds,
                    first_seed,
                    format,
                });
            }
            if scenario == "all" {
                return Err(
                    "scenario: `all` (every built-in) runs only with --faults; name one scenario otherwise"
                        .into(),
                );
            }
            let seeds = seeds.ok_or_else(|| {
                format!(
                    "--seeds: required without --faults (1..={})",
                    swarm::limits::SEEDS_MAX
                )
            })?;
            if seeds == 0 || seeds > swarm::limits::SEEDS_MAX {
                return Err(format!(
                    "--seeds: {seeds} is outside 1..={}",
                    swarm::limits::SEEDS_MAX
                ));
            }
            let mut s = load(&scenario, strategy.as_deref(), None)?;
            designs::attach(&mut s, design.as_deref())?;
            let scenario = designs::with_flag(scenario, design.as_deref());
            let report = swarm::swarm(&s, first_seed, seeds)
                .map_err(|e| format!("--{}: {}", e.field.replace('_', "-"), e.message))?;
            match format {
                Format::Json => outln!(
                    "{}",
                    serde_json::to_string_pretty(&swarm_json(&s, &scenario, &report))
                        .expect("serializes")
                ),
                Format::Text => print_swarm(&s, &scenario, &report),
            }
            Ok(())
        }
        Command::Sweep {
            scenario,
            x,
            y,
            strategies,
            design,
            seeds,
            first_seed,
            format,
        } => {
            let mut s = load(&scenario, None, None)?;
            designs::attach(&mut s, design.as_deref())?;
            let x: sweep::Axis = x.parse().map_err(|e| format!("--x: {e}"))?;
            let y: sweep::Axis = y.parse().map_err(|e| format!("--y: {e}"))?;
            let designs = if s.design.is_some() {
                vec![s.strategy]
            } else if strategies.is_empty() {
                sweep::default_strategies(&s)
            } else {
                strategies
                    .iter()
                    .map(|name| {
                        Strategy::from_name(name).ok_or_else(|| {
                            let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
                            format!(
                                "--strategies: unknown strategy {name:?}; choose from {}",
                                names.join(", ")
                            )
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?
            };
            // The core reports every run; a line every 2000 runs is enough
            // to see it move.
            let mut shown = 0;
            // Each cell keeps the scenario's design (`link::edit`).
            let grid = sweep::cells(&s, &x, &y);
            let report =
                sweep::sweep_cells(&s, &x, &y, &grid, &designs, first_seed, seeds, &mut |p| {
                    if p.runs_done - shown >= 2000 || p.runs_done == p.runs_total {
                        shown = p.runs_done;
                        eprint!("\rsweep: {} of {} runs", p.runs_done, p.runs_total);
                    }
                    ControlFlow::Continue(())
                })
                .map_err(|e| match e.field.as_str() {
                    "seeds" | "strategies" | "y" => format!("--{}: {}", e.field, e.message),
                    _ => format!("--x/--y: {e}"),
                })?
                .expect("the sweep is never stopped here");
            eprintln!();
            match format {
                // Through a Value (which sorts keys) only to name the design.
                Format::Json if s.design.is_some() => {
                    let mut v = serde_json::to_value(&report).expect("serializes");
                    designs::label(&mut v, &s);
                    outln!("{}", serde_json::to_string_pretty(&v).expect("serializes"))
                }
                Format::Json => outln!(
                    "{}",
                    serde_json::to_string_pretty(&report).expect("serializes")
                ),
                Format::Text => print_sweep(&report, design.as_deref()),
            }
            Ok(())
        }
        Command::Explore {
            scenario,
            strategy,
            design,
            max_states,
            reduction,
            no_symmetry,
            unordered_ties,
            search,
            sometimes,
            from,
            format,
            lang,
        } => {
            let (s, report) = explore_cmd(&ExploreArgs {
                scenario: &scenario,
                strategy: strategy.as_deref(),
                design: design.as_deref(),
                max_states,
                reduction,
                no_symmetry,
                unordered_ties,
                search,
                sometimes: &sometimes,
                from: from.as_deref(),
            })?;
            if let (Some(prefix), Format::Text) = (&from, format) {
                let double: u128 = report
                    .outcomes
                    .iter()
                    .filter(|o| o.double_charge)
                    .map(|o| o.schedules)
                    .sum();
                if report.schedules_counted {
                    outln!(
                        "from {prefix}: {} complete schedules on from here, {double} of them charge twice\n",
                        report.schedules
                    );
                }
            }
            // The commands printed to replay an example carry the design.
            let scenario = designs::with_flag(scenario, design.as_deref());
            match format {
                Format::Json => outln!(
                    "{}",
                    serde_json::to_string_pretty(&explore_json(&s, &scenario, &report))
                        .expect("serializes")
                ),
                Format::Text => print_explore(&s, &scenario, &report, lang_of(lang)),
            }
            match report.failure("--max-states") {
                None => Ok(()),
                Some(why) => Err(why),
            }
        }
    }
}

fn variant_command(s: &Scenario, scenario_arg: &str, seed: u64) -> String {
    format!(
        "lousa run {scenario_arg} --strategy {} --variant {seed}",
        s.strategy.name()
    )
}

fn swarm_json(s: &Scenario, scenario_arg: &str, r: &swarm::SwarmReport) -> serde_json::Value {
    let mut v = serde_json::to_value(r).expect("report serializes");
    designs::label(&mut v, s);
    for (b, out) in r
        .buckets
        .iter()
        .zip(v["buckets"].as_array_mut().expect("buckets is a list"))
    {
        out["rate"] = b.rate().into();
        out["variant"] =
            serde_json::to_value(swarm::variant_for(s, b.representative_seed)).expect("serializes");
        out["reproduce"] = variant_command(s, scenario_arg, b.representative_seed).into();
    }
    v
}

fn print_swarm(s: &Scenario, scenario_arg: &str, r: &swarm::SwarmReport) {
    outln!(
        "{} — strategy {} — seeds {}..{} ({} runs)",
        s.name,
        r.strategy,
        r.first_seed,
        r.first_seed + r.runs - 1,
        r.runs
    );
    outln!(
        "double-charged: {} of {} runs ({:.1}%); other invariant failures: {}",
        r.double_charged,
        r.runs,
        100.0 * r.double_charged as f64 / r.runs.max(1) as f64,
        r.invariant_failures
    );
    outln!();
    outln!(
        "{:<72} {:>7} {:>9} {:>7}   representative",
        "bucket",
        "runs",
        "doubled",
        "rate"
    );
    for b in &r.buckets {
        let v = swarm::variant_for(s, b.representative_seed);
        outln!(
            "{:<72} {:>7} {:>9} {:>6.1}%   seed {} (timeout {} ms, jitter {} ms, {}, backoff {} ms, key ttl {} ms){}",
            b.label,
            b.runs,
            b.double_charged,
            100.0 * b.rate(),
            b.representative_seed,
            v.timeout_ms,
            v.jitter_ms,
            counted(v.retries_max, "retry", "retries"),
            v.backoff_ms,
            v.key_ttl_ms,
            if b.representative_double_charged {
                ", double charges"
            } else {
                ""
            },
        );
        outln!(
            "{:<72} {}",
            "",
            variant_command(s, scenario_arg, b.representative_seed)
        );
    }
}

pub(crate) fn lang_of(lang: LangArg) -> Lang {
    match lang {
        LangArg::Pt => Lang::Pt,
        LangArg::En => Lang::En,
    }
}

/// Explores, printing progress on stderr when it takes a while.
struct ExploreArgs<'a> {
    scenario: &'a str,
    strategy: Option<&'a str>,
    design: Option<&'a str>,
    max_states: u32,
    reduction: Option<ReductionArg>,
    no_symmetry: bool,
    unordered_ties: bool,
    search: SearchArg,
    sometimes: &'a [String],
    from: Option<&'a str>,
}

fn explore_cmd(args: &ExploreArgs) -> Result<(Scenario, explore::Report), String> {
    let ExploreArgs {
        scenario,
        strategy,
        design,
        max_states,
        reduction,
        no_symmetry,
        unordered_ties,
        search,
        sometimes,
        from,
    } = *args;
    let mut s = load(scenario, strategy, None)?;
    designs::attach(&mut s, design)?;
    if max_states == 0 || max_states > explore::limits::STATES_MAX {
        return Err(format!(
            "--max-states: {max_states} is outside 1..={}",
            explore::limits::STATES_MAX
        ));
    }
    let mut options = explore::Options::for_scenario(&s);
    options.max_states = max_states;
    options.set_reduction(match (reduction, no_symmetry) {
        (Some(ReductionArg::None), _) | (None, true) => explore::Reduction::None,
        (Some(ReductionArg::Symmetry), _) | (None, false) => explore::Reduction::Symmetry,
        (Some(ReductionArg::Por), _) => explore::Reduction::Por,
        (Some(ReductionArg::Flows), _) => explore::Reduction::Flows,
    });
    options.unordered_ties = unordered_ties;
    options.search = match search {
        SearchArg::Bfs => explore::Search::BreadthFirst,
        SearchArg::Dfs => explore::Search::DepthFirst,
    };
    if !sometimes.is_empty() {
        options
            .properties
            .retain(|c| c.property.modality == Modality::Always);
        for name in sometimes {
            let Some(p) = property::named(name).filter(|p| p.modality == Modality::Sometimes)
            else {
                let names: Vec<&str> = property::sometimes().map(|p| p.name).collect();
                return Err(format!(
                    "--sometimes: unknown property {name:?}; choose from {}",
                    names.join(", ")
                ));
            };
            options.properties.push(explore::Claim::sometimes(p));
        }
    }
    let prefix: Option<Schedule> = from
        .map(|text| text.parse().map_err(|e| format!("--from: {e}")))
        .transpose()?;
    let mut last_report = 0u64;
    let mut progress = |p: &explore::Progress| {
        if p.states >= last_report + 500_000 {
            last_report = p.states;
            eprintln!(
                "  … {} states, {} transitions, depth {}, frontier {}",
                p.states, p.transitions, p.depth, p.frontier
            );
        }
        ControlFlow::Continue(())
    };
    let report = match &prefix {
        Some(prefix) => explore::explore_from(&s, &options, prefix, &mut progress),
        None => explore::explore_with(&s, &options, &mut progress),
    }
    .map_err(|e| match e {
        explore::ExploreError::Prefix(_) | explore::ExploreError::PrefixInsideStep { .. } => {
            format!("--from: {e}")
        }
        explore::ExploreError::Scenario(e) => {
            format!("--{}: {}", e.field.replace('_', "-"), e.message)
        }
        explore::ExploreError::Options(explore::OptionsError::MaxStates(n)) => format!(
            "--max-states: {n} is outside 1..={}",
            explore::limits::STATES_MAX
        ),
    })?;
    Ok((s, report))
}

fn replay_command(s: &Scenario, scenario_arg: &str, schedule: &str) -> String {
    format!(
        "lousa run {scenario_arg} --strategy {} --schedule {schedule}",
        s.strategy.name()
    )
}

fn explore_json(s: &Scenario, scenario_arg: &str, r: &explore::Report) -> serde_json::Value {
    let mut v = serde_json::to_value(r).expect("report serializes");
    designs::label(&mut v, s);
    let counterexample = r.counterexample().map(|(p, e)| {
        let run = run::run_schedule(s, &e.schedule).expect("the scenario is valid");
        let events: Vec<&lousa_core::trace::TraceEvent> = run.events().map(|(_, e)| e).collect();
        serde_json::json!({
            "property": p.name,
            "schedule": e.text,
            "choices": e.choices,
            "steps": e.steps,
            "replay": replay_command(s, scenario_arg, &e.text),
            "summary": run.summary,
            "events": events,
        })
    });
    v["counterexample"] = counterexample.unwrap_or(serde_json::Value::Null);
    v["passed"] = r.passed().into();
    v
}

fn answers_text(answers: &[Option<u16>]) -> String {
    let parts: Vec<String> = answers
        .iter()
        .map(|a| a.map_or("-".into(), |s| s.to_string()))
        .collect();
    format!("[{}]", parts.join(", "))
}

fn print_explore(s: &Scenario, scenario_arg: &str, r: &explore::Report, lang: Lang) {
    let pick = |pt: &'static str, en: &'static str| match lang {
        Lang::Pt => pt,
        Lang::En => en,
    };
    outln!(
        "{} — {} — {}: {}",
        s.name,
        designs::named(s, lang),
        pick("reduções", "reductions"),
        r.reductions.join(", ")
    );
    outln!(
        "{}: {}",
        pick("situação", "status"),
        explore::words::status(r.status, lang)
    );
    outln!(
        "{}: {}   {}: {}   {}: {}   {}: {} {}",
        pick("estados", "states"),
        r.states,
        pick("transições", "transitions"),
        r.transitions,
        pick("estados finais", "terminal states"),
        r.terminal_states,
        pick("execução mais longa", "longest run"),
        r.max_depth,
        pick("passos", "steps")
    );
    let exact = if r.status == explore::Status::Complete && !r.schedules_saturated {
        ""
    } else if r.schedules_saturated {
        pick(
            " (saturado: pelo menos isso)",
            " (saturated: at least this many)",
        )
    } else {
        pick(
            " (incompleto: só os escalonamentos até os estados explorados)",
            " (incomplete: schedules to the states explored so far)",
        )
    };
    let complete = pick("escalonamentos completos", "complete schedules");
    if r.schedules_counted {
        outln!("{complete}: {}{exact}", r.schedules);
    } else {
        outln!(
            "{complete}: {}",
            pick(
                "não contados (a redução de ordem parcial explora uma só ordem de passos independentes; --reduction symmetry os conta)",
                "not counted (the partial-order reduction explores one order of independent steps; --reduction symmetry counts them)"
            )
        );
    }
    let count = |n: u128| {
        if r.schedules_counted {
            n.to_string()
        } else {
            "-".to_string()
        }
    };
    let schedules = pick("escalonamentos", "schedules");
    let states = pick("estados", "states");
    outln!();
    if r.reductions.iter().any(|n| n == "flow-symmetry") {
        outln!(
            "{}",
            pick(
                "desfechos (capturas por intenção, resposta por tentativa; tentativas que só diferem no nome se juntam, então uma linha vale por toda ordem das suas respostas):",
                "outcomes (captures per intent, answer per attempt; attempts that differ only by name are merged, so a line stands for every order of its answers):"
            )
        );
    } else {
        outln!(
            "{}",
            pick(
                "desfechos (capturas por intenção, resposta por tentativa):",
                "outcomes (captures per intent, answer per attempt):"
            )
        );
    }
    let mut outcomes: Vec<&explore::Outcome> = r.outcomes.iter().collect();
    outcomes.sort_by_key(|o| std::cmp::Reverse(o.schedules));
    for o in outcomes {
        let broken = if o.broken.is_empty() {
            String::new()
        } else {
            format!("   {} {}", pick("quebra", "breaks"), o.broken.join(", "))
        };
        let example = o.example.as_ref().map_or("-".into(), |e| e.text.clone());
        outln!(
            "  {} {:<6} {} {:<16} {:>12} {schedules} {:>8} {states}   {} {example}{broken}",
            pick("capturas", "captures"),
            format!("{:?}", o.captures),
            pick("respostas", "answers"),
            answers_text(&o.answers),
            count(o.schedules),
            o.states,
            pick("o mais curto", "shortest"),
        );
    }
    outln!();
    outln!(
        "{}",
        pick("por capturas por intenção:", "by captures per intent:")
    );
    for t in &r.by_captures {
        outln!(
            "  {:<12} {:>16} {schedules} {:>8} {states}",
            format!("{:?}", t.value),
            count(t.schedules),
            t.states
        );
    }
    outln!("{}", pick("por respostas finais:", "by final answers:"));
    for t in &r.by_answers {
        outln!(
            "  {:<24} {:>16} {schedules} {:>8} {states}",
            answers_text(&t.value),
            count(t.schedules),
            t.states
        );
    }
    outln!();
    outln!("{}", pick("propriedades:", "properties:"));
    for p in &r.properties {
        let modality = match (p.claim.property.modality, lang) {
            (Modality::Always, Lang::En) => "always",
            (Modality::Sometimes, Lang::En) => "sometimes",
            (Modality::Always, Lang::Pt) => "sempre",
            (Modality::Sometimes, Lang::Pt) => "às vezes",
        };
        // The property names are identifiers and stay as they are; in
        // Portuguese each is followed by what it promises.
        let note = match (p.claim.required, p.verdict) {
            (false, Verdict::Violated) => format!(
                " ({} {})",
                pick("não prometida por", "not claimed by"),
                s.design.as_ref().map_or_else(
                    || r.strategy.name().to_string(),
                    |p| format!("design {}", p.design().name)
                )
            ),
            (false, Verdict::NeverReached) => format!(
                " ({} --sometimes {} {})",
                pick("não exigida:", "not required:"),
                p.claim.property.name,
                pick("a exige", "requires it")
            ),
            _ => String::new(),
        };
        let example = p.example.as_ref().map_or(String::new(), |e| {
            format!(" — {}: {}", pick("o mais curto", "shortest"), e.text)
        });
        let verdict = match lang {
            Lang::En => p.verdict.name(),
            Lang::Pt => explore::words::verdict(p.verdict, lang).1,
        };
        let promise = match lang {
            Lang::En => String::new(),
            Lang::Pt => explore::words::sentence(p.claim.property.name, lang)
                .map_or(String::new(), |said| format!(" ({said})")),
        };
        outln!(
            "  [{}] {modality:<9} {}{promise}: {verdict}{note}{example}",
            if p.ok { "ok" } else { pick("FALHA", "FAIL") },
            p.claim.property.name,
        );
    }
    if let Some((p, e)) = r.counterexample() {
        outln!();
        let by = match (r.shortest, lang) {
            (explore::Shortest::Choices, Lang::En) => "fewest choices",
            (explore::Shortest::Steps, Lang::En) => "fewest steps",
            (explore::Shortest::Choices, Lang::Pt) => "menos escolhas",
            (explore::Shortest::Steps, Lang::Pt) => "menos passos",
        };
        outln!(
            "{} {} ({by}): {} {} ({} {}, {} {})",
            pick("o contraexemplo mais curto a", "shortest counterexample to"),
            p.name,
            pick("escalonamento", "schedule"),
            e.text,
            e.choices,
            pick("escolhas", "choices"),
            e.steps,
            pick("passos", "steps"),
        );
        let run = run::run_schedule(s, &e.schedule).expect("the scenario is valid");
        for (_, ev) in run.events() {
            outln!("{}", narrate::line(ev, lang));
        }
        outln!(
            "{}: {}",
            pick("repetir", "replay"),
            replay_command(s, scenario_arg, &e.text)
        );
    } else {
        outln!();
        outln!("{}", pick("nenhum contraexemplo", "no counterexample"));
    }
    outln!();
    outln!(
        "{}: {}",
        pick("veredito", "verdict"),
        match (r.passed(), lang) {
            (true, Lang::En) => "pass",
            (false, Lang::En) => "FAIL",
            (true, Lang::Pt) => "passou",
            (false, Lang::Pt) => "FALHOU",
        }
    );
}

fn run_json(r: &lousa_core::Run) -> serde_json::Value {
    let events: Vec<&lousa_core::trace::TraceEvent> = r.events().map(|(_, e)| e).collect();
    serde_json::json!({
        "strategy": r.strategy.name(),
        "seed": r.seed,
        "schedule": r.schedule,
        "events": events,
        "summary": {
            "captures": r.summary.captures,
            "charged_cents": r.summary.charged_cents,
            "double_charged_intents": r.summary.double_charged_intents,
            "intents": r.summary.intents,
            "attempts": r.summary.attempts,
            "blocked_ms": r.summary.blocked_ms,
            "invariants": r.summary.invariants,
            "end": r.summary.end,
            "end_ms": r.summary.end_ms,
        },
    })
}

fn print_run(s: &Scenario, r: &lousa_core::Run, lang: Lang) {
    let pick = |pt: &'static str, en: &'static str| match lang {
        Lang::Pt => pt,
        Lang::En => en,
    };
    let title = match lang {
        Lang::Pt => &s.title.pt,
        Lang::En => &s.title.en,
    };
    let design = match &s.design {
        Some(p) => format!("design {}", p.design().name),
        None => format!("{} {}", pick("estratégia", "strategy"), r.strategy),
    };
    outln!(
        "{} ({}) — {design}, {} {}",
        s.name,
        title,
        pick("semente", "seed"),
        r.seed
    );
    for (_, e) in r.events() {
        outln!("{}", narrate::line(e, lang));
    }
    let sm = &r.summary;
    outln!();
    outln!(
        "{}: {}   {}: {}   {}: {:?}   {}: {} ms",
        pick("capturas", "captures"),
        sm.captures,
        pick("cobrado", "charged"),
        narrate::amount(sm.charged_cents, lang),
        pick("intenções cobradas em dobro", "double-charged intents"),
        sm.double_charged_intents,
        pick("bloqueado", "blocked"),
        sm.blocked_ms
    );
    for a in &sm.attempts {
        // A queue's attempts are deliveries of its message.
        let queue = s.clients[a.client as usize].kind == lousa_core::scenario::ClientKind::Queue;
        let (attempt, client) = if queue {
            (pick("entrega", "delivery"), pick("fila", "queue"))
        } else {
            (pick("tentativa", "attempt"), pick("cliente", "client"))
        };
        let answer = match (a.status, a.body.as_deref()) {
            (None, _) => pick("sem resposta", "no answer").to_string(),
            (Some(status), None | Some("")) => status.to_string(),
            (Some(status), Some(body)) => format!("{status} {body}"),
        };
        outln!(
            "  {} {} ({} {}, {} {}, {} {}): {answer}",
            attempt,
            a.attempt + 1,
            client,
            a.client + 1,
            pick("chave", "key"),
            a.key,
            pick("instância", "instance"),
            a.instance.map_or("-".into(), |i| (i + 1).to_string()),
        );
    }
    // The property names are identifiers and stay as they are; a broken
    // property's detail is the core's sentence, shared with the JSON output.
    for v in &sm.invariants {
        outln!(
            "  [{}] {}: {}",
            if v.holds { "ok" } else { "FAIL" },
            v.name,
            if v.holds {
                pick("vale", "holds")
            } else {
                &v.detail
            }
        );
    }
    outln!("{}: {}", pick("escalonamento", "schedule"), r.schedule);
    if let Some(fork) = r.fork {
        outln!("{}: {fork}", pick("falha injetada", "fault injected"));
    }
}

/// One table per design: rows down the y values, columns across the x
/// values, each cell "double-charged/runs"; then the cell that charged twice
/// most often, as a command that opens it.
/// A sweep's heatmaps; `design`, when the sweep ran one, names its map.
fn print_sweep(r: &sweep::SweepReport, design: Option<&str>) {
    let under = |map: &sweep::Heatmap| match design {
        Some(d) => format!("--design {d}"),
        None => format!("--strategy {}", map.strategy.name()),
    };
    let shown = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let width = r.x.values.len();
    outln!(
        "sweep of {}: {} across, {} down, {} per cell from {}",
        r.scenario,
        r.x.path,
        r.y.path,
        counted(r.seeds, "seed", "seeds"),
        r.first_seed
    );
    for map in &r.maps {
        let title = design.map_or_else(
            || map.strategy.name().to_string(),
            |d| format!("design {d}"),
        );
        outln!("\n{title} (double-charged runs / runs)");
        out!("{:>14} |", "");
        for v in &r.x.values {
            out!(" {:>9}", shown(v));
        }
        outln!();
        for (yi, yv) in r.y.values.iter().enumerate() {
            out!("{:>14} |", shown(yv));
            for xi in 0..width {
                let c = map.cell(xi, yi, width);
                let text = match c.refused {
                    Some(_) => "refused".to_string(),
                    None => format!("{}/{}", c.double_charged, c.runs),
                };
                out!(" {text:>9}");
            }
            outln!();
        }
        for c in map.cells.iter().filter(|c| c.refused.is_some()) {
            outln!(
                "  refused at {}={}, {}={}: {}",
                r.x.path,
                shown(&r.x.values[c.x]),
                r.y.path,
                shown(&r.y.values[c.y]),
                c.refused.as_deref().unwrap_or_default()
            );
        }
        if let Some(worst) = map
            .cells
            .iter()
            .filter(|c| c.double_charged > 0)
            .max_by_key(|c| {
                (
                    c.double_charged * 1000 / c.runs.max(1),
                    std::cmp::Reverse((c.y, c.x)),
                )
            })
        {
            match worst.link.as_deref() {
                Some(link) => outln!(
                    "  open the hottest cell: lousa run '{link}' {} --seed {}",
                    under(map),
                    worst.representative_seed
                ),
                // A link starts from a built-in; a scenario from a file has
                // none, so say which values and seed to set in the file.
                None => outln!(
                    "  the hottest cell: {}={}, {}={}, seed {} (set them in the scenario's file and run it {})",
                    r.x.path,
                    shown(&r.x.values[worst.x]),
                    r.y.path,
                    shown(&r.y.values[worst.y]),
                    worst.representative_seed,
                    under(map)
                ),
            }
        }
    }
}
