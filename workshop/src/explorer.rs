//! The explorer's Web Worker (`lousa-worker`, see its crate doc for the
//! protocol), as the workshop drives it: one worker per [`Slot`], started
//! for a request (an exploration or a sweep) and terminated to cancel, and
//! asked again while it lives ([`ask`]: the whole count's worker answers
//! the counts from here off the graph it kept). The worker's files are
//! fetched only when a slot first starts, so a page that never counts
//! never loads them.

use lousa_core::Scenario;
use serde::Deserialize;
use serde::de::{DeserializeOwned, IgnoredAny};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

/// The loader Trunk writes for the worker, next to the page.
const WORKER_URL: &str = "./lousa-worker_loader.js";

/// Three runs may overlap: the count of every schedule, the count from
/// where the attendee stands, which restarts at every choice, and a sweep.
/// Once the count of every schedule is done, its worker answers the counts
/// from here; `Here` starts a worker of its own only if that one is gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    Whole,
    Here,
    Sweep,
}

/// Progress of a run, as the worker posts it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
pub struct Figures {
    pub states: u64,
    pub transitions: u64,
    pub states_per_s: u64,
    pub elapsed_ms: f64,
}

/// The part of `explore::Report` the workshop shows.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Report {
    pub status: String,
    pub states: u64,
    pub transitions: u64,
    pub schedules: Count,
    pub outcomes: Vec<Outcome>,
    pub properties: Vec<PropertyReport>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Outcome {
    pub captures: Vec<u32>,
    pub answers: Vec<Option<u16>>,
    pub double_charge: bool,
    pub schedules: Count,
    pub example: Option<Example>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Example {
    pub text: String,
    pub schedule: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct PropertyReport {
    pub property: Claim,
    pub verdict: String,
    pub ok: bool,
    pub example: Option<Example>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Claim {
    pub modality: String,
    pub name: String,
    /// Whether the design promises it: a verdict on one it does not is
    /// shown, but is no failure.
    #[serde(default = "claimed")]
    pub required: bool,
}

fn claimed() -> bool {
    true
}

/// A schedule count: a JSON number below 2^53, a decimal string above (so
/// that JavaScript keeps it exact).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count(pub u128);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Count, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            Number(u64),
            Text(String),
        }
        match Either::deserialize(d)? {
            Either::Number(n) => Ok(Count(n.into())),
            Either::Text(t) => t.parse().map(Count).map_err(serde::de::Error::custom),
        }
    }
}

impl Report {
    /// Schedules that end charging some intent twice.
    pub fn double_charging(&self) -> u128 {
        self.outcomes
            .iter()
            .filter(|o| o.double_charge)
            .map(|o| o.schedules.0)
            .fold(0u128, u128::saturating_add)
    }
}

/// A message from the worker, with the figures `P` and the report `D` of
/// the kind of request it answers.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Message<P, D> {
    Ready {},
    Progress(P),
    Done { report: D },
    Error { message: String },
}

/// What a run tells its starter: an exploration's figures and report by
/// default, a sweep's when it asked for a sweep.
pub enum Event<P = Figures, D = Report> {
    Progress(P),
    Done(Box<D>),
    Failed(String),
}

struct Running {
    worker: Worker,
    route: Rc<RefCell<Route>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

/// Where a worker's messages go. It serves requests in the order posted,
/// answering each with one `done` or `error`, so counting those says which
/// request a message belongs to.
struct Route {
    /// Requests posted (or waiting for `ready`) not yet answered.
    pending: u32,
    /// Hears the messages of the last request asked; those of earlier
    /// ones, which it made stale, are dropped.
    tell: Listener,
    /// Requests asked before the worker was ready, posted once it is.
    waiting: Vec<String>,
    ready: bool,
}

/// Hears a message's text.
type Listener = Rc<dyn Fn(&str)>;

/// A message's kind alone, to route it before reading it as a `P` or `D`.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Ready(IgnoredAny),
    Progress(IgnoredAny),
    Done(IgnoredAny),
    Error(IgnoredAny),
}

thread_local! {
    static SLOTS: RefCell<[Option<Running>; 3]> = const { RefCell::new([None, None, None]) };
}

fn index(slot: Slot) -> usize {
    match slot {
        Slot::Whole => 0,
        Slot::Here => 1,
        Slot::Sweep => 2,
    }
}

/// `tell`, hearing a message's text as `P` and `D`.
fn listener<P, D>(tell: impl Fn(Event<P, D>) + 'static) -> Listener
where
    P: DeserializeOwned + 'static,
    D: DeserializeOwned + 'static,
{
    Rc::new(
        move |text: &str| match serde_json::from_str::<Message<P, D>>(text) {
            Ok(Message::Ready {}) => {}
            Ok(Message::Progress(f)) => tell(Event::Progress(f)),
            Ok(Message::Done { report }) => tell(Event::Done(Box::new(report))),
            Ok(Message::Error { message }) => tell(Event::Failed(message)),
            Err(e) => tell(Event::Failed(e.to_string())),
        },
    )
}

/// Starts `request` (the worker's JSON request) in a new worker in `slot`,
/// cancelling what ran there; `tell` hears its progress and its end, read
/// as `P` and `D`.
pub fn start<P, D>(slot: Slot, request: String, tell: impl Fn(Event<P, D>) + 'static)
where
    P: DeserializeOwned + 'static,
    D: DeserializeOwned + 'static,
{
    cancel(slot);
    let tell = listener(tell);
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = match Worker::new_with_options(WORKER_URL, &options) {
        Ok(w) => w,
        Err(e) => {
            tell(&failed(&format!("{e:?}")));
            return;
        }
    };
    let route = Rc::new(RefCell::new(Route {
        pending: 1,
        tell,
        waiting: vec![request],
        ready: false,
    }));
    let on_message = {
        let (worker, route) = (worker.clone(), route.clone());
        Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let text = js_sys::JSON::stringify(&event.data())
                .ok()
                .and_then(|t| JsValue::from(t).as_string())
                .unwrap_or_default();
            // The route is let go of before anyone hears the message, so
            // that hearing it may ask the worker again.
            let heard: Option<(Listener, String)> = {
                let mut r = route.borrow_mut();
                match serde_json::from_str::<Kind>(&text) {
                    Ok(Kind::Ready(_)) => {
                        r.ready = true;
                        let posted = std::mem::take(&mut r.waiting).iter().all(|request| {
                            worker.post_message(&JsValue::from_str(request)).is_ok()
                        });
                        (!posted).then(|| (r.tell.clone(), failed("postMessage")))
                    }
                    Ok(Kind::Done(_) | Kind::Error(_)) => {
                        let current = r.pending <= 1;
                        r.pending = r.pending.saturating_sub(1);
                        current.then(|| (r.tell.clone(), text))
                    }
                    _ => (r.pending <= 1).then(|| (r.tell.clone(), text)),
                }
            };
            if let Some((tell, text)) = heard {
                tell(&text);
            }
        })
    };
    let on_error = {
        let route = route.clone();
        Closure::<dyn FnMut(web_sys::Event)>::new(move |_event: web_sys::Event| {
            let tell = route.borrow().tell.clone();
            tell(&failed("the worker stopped on an error"));
        })
    };
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    SLOTS.with(|slots| {
        slots.borrow_mut()[index(slot)] = Some(Running {
            worker,
            route,
            _on_message: on_message,
            _on_error: on_error,
        })
    });
}

/// Posts `request` to the worker already in `slot`, after what it was
/// asked before: `tell` hears its answer, and no earlier request's
/// anymore. False when no worker is there. The whole count's worker
/// keeps its graph, and answers the counts from here off it at once.
pub fn ask<P, D>(slot: Slot, request: String, tell: impl Fn(Event<P, D>) + 'static) -> bool
where
    P: DeserializeOwned + 'static,
    D: DeserializeOwned + 'static,
{
    let asked = SLOTS.with(|slots| {
        let slots = slots.borrow();
        let running = slots[index(slot)].as_ref()?;
        let mut r = running.route.borrow_mut();
        r.tell = listener(tell);
        r.pending += 1;
        if !r.ready {
            r.waiting.push(request);
            return Some(None);
        }
        let posted = running
            .worker
            .post_message(&JsValue::from_str(&request))
            .is_ok();
        Some((!posted).then(|| r.tell.clone()))
    });
    match asked {
        None => false,
        Some(None) => true,
        Some(Some(tell)) => {
            tell(&failed("postMessage"));
            true
        }
    }
}

/// The text of an `error` message saying `message`.
fn failed(message: &str) -> String {
    serde_json::json!({ "error": { "message": message } }).to_string()
}

/// Stops the run in `slot` at once, if one runs.
pub fn cancel(slot: Slot) {
    let running = SLOTS.with(|slots| slots.borrow_mut()[index(slot)].take());
    if let Some(running) = running {
        running.worker.terminate();
    }
}

/// The worker's request to explore `scenario` (the page's, decoded and
/// checked: the worker reads no links) under a strategy, on from `prefix`
/// (exact schedule text) when given.
pub fn request(scenario: &Scenario, strategy: &str, prefix: Option<String>) -> String {
    let mut explore = serde_json::json!({ "scenario": scenario, "strategy": strategy });
    if let Some(prefix) = prefix {
        explore["prefix"] = prefix.into();
    }
    serde_json::json!({ "explore": explore }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_reads_counts_as_numbers_and_as_text() {
        let text = r#"{"status": "complete", "states": 3, "transitions": 2, "schedules": "18014398509481985",
            "outcomes": [{"captures": [2], "answers": [201, null], "double_charge": true,
                          "schedules": "18014398509481984", "example": {"text": "0", "schedule": []}},
                         {"captures": [1], "answers": [201, 200], "double_charge": false,
                          "schedules": 1, "example": null}],
            "properties": [{"property": {"modality": "always", "name": "x", "required": true},
                            "verdict": "holds", "ok": true, "example": null}]}"#;
        let r: Report = serde_json::from_str(text).unwrap();
        assert_eq!(r.schedules, Count(18_014_398_509_481_985));
        assert_eq!(r.double_charging(), 18_014_398_509_481_984);
        assert_eq!(r.outcomes[0].answers, vec![Some(201), None]);
    }

    #[test]
    fn a_request_carries_the_scenario_and_the_prefix_only_when_given() {
        let s = lousa_core::link::decode("race-2;db_latency_ms=5").unwrap();
        let r: serde_json::Value = serde_json::from_str(&request(&s, "naive", None)).unwrap();
        assert_eq!(
            r,
            serde_json::json!({"explore": {"scenario": s, "strategy": "naive"}})
        );
        assert_eq!(r["explore"]["scenario"]["db_latency_ms"], 5);
        assert!(request(&s, "naive", Some("1-0".into())).contains(r#""prefix":"1-0""#));
    }
}
