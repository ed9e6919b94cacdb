//! `lousa replay`: a run's store traffic on the reader's own PostgreSQL,
//! the model's outcome beside the server's. The work is lousa-pg's
//! (`lousa_pg::replay`); this is its command line: arguments, Ctrl-C,
//! printing and the exit code.

use crate::{load, run_of};
use clap::{Args, ValueEnum};
use lousa_core::narrate::Lang;
use lousa_pg::PgError;
use lousa_pg::replay::{self, Finished, Options, Plan, SchemaFate, text};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// `--timeout`'s bounds, in seconds: a statement that blocks is seen at
/// once, so this only bounds a wedged server or a lock held outside the
/// replay; an hour is more than any of those deserves.
const TIMEOUT_S_MAX: u64 = 3600;

/// The exit code when the replay could not compare: bad arguments, a
/// server it cannot reach or use, a timeout, a lost connection.
const EXIT_CANNOT_COMPARE: u8 = 2;
/// The shell's code for a process ended by SIGINT (128 + 2).
const EXIT_INTERRUPTED: u8 = 130;

#[derive(Clone, Copy, ValueEnum)]
pub enum ReplayFormat {
    Text,
    Json,
}

#[derive(Args)]
pub struct ReplayArgs {
    /// A built-in name, a scenario link or a path to scenario JSON.
    scenario: String,
    /// Override the scenario's strategy.
    #[arg(long)]
    strategy: Option<String>,
    /// Run the HTTP handler as this design (see `lousa designs`): its
    /// statements, and its tables with the constraints it gives them.
    #[arg(long)]
    design: Option<String>,
    /// Override the scenario's seed.
    #[arg(long, conflicts_with = "schedule")]
    seed: Option<u64>,
    /// Replay this schedule instead of drawing choices from the seed.
    #[arg(long)]
    schedule: Option<String>,
    /// Replay the branch: FRAME:FAULT injects a fault at that frame, as
    /// `lousa run --fork`.
    #[arg(long)]
    fork: Option<String>,
    /// The server: postgres://USER[:PASSWORD]@HOST:PORT/DATABASE (default:
    /// $DATABASE_URL). PostgreSQL 15; the role needs CREATE on the database.
    #[arg(long)]
    database_url: Option<String>,
    /// Seconds a statement may neither finish nor block on a lock before the
    /// replay stops (1 to 3600).
    #[arg(long, default_value_t = 30)]
    timeout: u64,
    #[arg(long, value_enum, default_value = "text")]
    format: ReplayFormat,
    /// The language of the report's words; the SQL and the server's answers
    /// are the same in both.
    #[arg(long, value_enum, default_value = "en")]
    lang: crate::LangArg,
}

/// Exit 0 when every outcome agrees, 1 at the first disagreement, 2 when
/// the replay could not compare, 130 on Ctrl-C.
pub fn execute(args: ReplayArgs) -> ExitCode {
    match replay_cmd(args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(EXIT_CANNOT_COMPARE)
        }
    }
}

/// Prints to stdout, ignoring a closed one: the other commands end at once
/// when a reader stops reading (`lousa ... | head`), but a replay must go
/// on to drop its schema, so it keeps running and prints nothing more.
fn say(text: &str) {
    use std::io::Write as _;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

fn database_url(flag: Option<String>) -> Result<String, String> {
    match flag {
        Some(url) if url.is_empty() => Err("--database-url: the URL is empty".into()),
        Some(url) => Ok(url),
        None => match std::env::var("DATABASE_URL") {
            Ok(url) if !url.is_empty() => Ok(url),
            _ => Err(
                "--database-url: not given, and DATABASE_URL is not set; give the \
                      server to replay on, e.g. --database-url \
                      postgres://postgres@127.0.0.1:5432/postgres"
                    .into(),
            ),
        },
    }
}

fn replay_cmd(args: ReplayArgs) -> Result<u8, String> {
    if !(1..=TIMEOUT_S_MAX).contains(&args.timeout) {
        return Err(format!(
            "--timeout: {} is outside 1..={TIMEOUT_S_MAX} seconds",
            args.timeout
        ));
    }
    let url = database_url(args.database_url)?;
    let mut s = load(&args.scenario, args.strategy.as_deref(), args.seed)?;
    crate::designs::attach(&mut s, args.design.as_deref())?;
    let run = run_of(&s, args.schedule.as_deref(), args.fork.as_deref())?;
    let lang = crate::lang_of(args.lang);
    let plan = Plan::new(&s, &run, lang);
    if plan.statements.is_empty() {
        let (scenario, handler) = (&plan.scenario, plan.handler());
        say(&match lang {
            Lang::Pt => format!(
                "{scenario} com {handler} não mandou comando nenhum ao banco: não há o que \
                 repetir\n"
            ),
            Lang::En => format!(
                "{scenario} under {handler} sent no statement to the database: there is nothing \
                 to replay\n"
            ),
        });
        return Ok(0);
    }
    let config = lousa_pg::server::config(&url).map_err(|e| e.to_string())?;
    let server = lousa_pg::server::preflight(&config).map_err(|e| e.to_string())?;
    let schema = replay::schema_name();
    let interrupt = Arc::new(AtomicBool::new(false));
    let flag = interrupt.clone();
    let named = schema.clone();
    // The first Ctrl-C asks the replay to stop at its next poll, which
    // drops the schema; a second one quits at once, for a replay stuck
    // where it cannot poll, and says how to drop what may be left.
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            eprintln!(
                "\nquit: schema {named} may be left; drop it with DROP SCHEMA IF EXISTS {named} CASCADE;"
            );
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        }
        eprintln!(
            "\ninterrupted: stopping the replay and dropping its schema (Ctrl-C again quits at once)"
        );
    })
    .map_err(|e| format!("cannot handle Ctrl-C: {e}"))?;
    let model = replay::model_record(&plan);
    let width = text::model_width(&plan, &model);
    match args.format {
        ReplayFormat::Text => say(&text::header(&plan, &server, &schema, width)),
        // stdout is the JSON alone; what will be created still shows first.
        ReplayFormat::Json => eprint!("{}", text::intro(&plan, &server, &schema)),
    }
    let options = Options {
        timeout: Duration::from_secs(args.timeout),
        interrupt: Some(interrupt),
    };
    let Finished {
        result,
        schema: fate,
    } = replay::replay(
        &plan,
        &model,
        &config,
        &server,
        &schema,
        &options,
        &mut |line| {
            if let ReplayFormat::Text = args.format {
                say(&text::step(line, width, lang));
            }
        },
    );
    let report = match result {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: {e}");
            eprint!("{}", text::schema_line(&schema, &fate, lang));
            return Ok(match e {
                PgError::Interrupted => EXIT_INTERRUPTED,
                _ => EXIT_CANNOT_COMPARE,
            });
        }
    };
    match args.format {
        ReplayFormat::Text => say(&text::footer(&report, lang)),
        ReplayFormat::Json => {
            say(&(serde_json::to_string_pretty(&report).expect("the report serializes") + "\n"))
        }
    }
    // A schema left behind is an error, on stderr in either format; JSON's
    // stdout is the report alone.
    match (&fate, args.format) {
        (SchemaFate::NotDropped(_), _) | (_, ReplayFormat::Json) => {
            eprint!("{}", text::schema_line(&schema, &fate, lang))
        }
        (_, ReplayFormat::Text) => say(&text::schema_line(&schema, &fate, lang)),
    }
    Ok(match fate {
        SchemaFate::NotDropped(_) => EXIT_CANNOT_COMPARE,
        _ => report.verdict.exit_code(),
    })
}
