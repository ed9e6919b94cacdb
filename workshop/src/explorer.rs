//! The explorer's Web Worker (`lousa-worker`; its requests and messages
//! are `lousa-protocol`'s types), as the workshop drives it: one worker per
//! [`Slot`], started for a request (an exploration or a sweep) and
//! terminated to cancel, and asked again while it lives ([`Explorer::ask`]:
//! the whole count's worker answers the counts from here off the graph it
//! kept). [`use_explorer`] makes the workers' owner, which terminates them
//! when the component that called it is cleaned up. The worker's files are
//! fetched only when a slot first starts, so a page that never counts never
//! loads them.
//!
//! Requests and messages travel as JSON text both ways: the page writes the
//! typed request, the worker writes the typed message, and each side reads
//! the other's text with the same types, with no JavaScript object between.

use crate::texts::{refusal, words};
use leptos::prelude::*;
use lousa_core::narrate::Lang;
use lousa_protocol::{Figures, Message, Ready, Request};
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

impl Slot {
    fn index(self) -> usize {
        match self {
            Slot::Whole => 0,
            Slot::Here => 1,
            Slot::Sweep => 2,
        }
    }
}

/// What a run tells its starter: an exploration's figures and report by
/// default, a sweep's when it asked for a sweep.
pub enum Event<P = Figures, D = lousa_protocol::Done> {
    Progress(P),
    Done(Box<D>),
    Failed(Failure),
}

/// Why a run ended without its report.
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// The worker's own words: a refusal of the request, or what of its
    /// message did not read.
    Said(String),
    /// The worker did not start, or stopped on an uncaught error (a trap:
    /// out of memory, or a bug), saying nothing.
    Stopped,
    /// The browser would not post the request to the worker.
    Unposted,
}

impl Failure {
    /// What the page says of it: "O explorador não respondeu: ...".
    pub fn sentence(&self, lang: Lang) -> String {
        let w = words(lang);
        let why = match self {
            Failure::Said(m) => refusal(m, lang),
            Failure::Stopped => w.worker_stopped.into(),
            Failure::Unposted => w.worker_unposted.into(),
        };
        format!("{} {why}", w.worker_failed)
    }
}

/// The workers of the page, one per slot, and what the first of them said
/// in its `ready`. Copy: a handle to values the owning component holds.
#[derive(Clone, Copy)]
pub struct Explorer {
    slots: StoredValue<[Option<Running>; 3], LocalStorage>,
    /// The state limit the worker explores under when a request names
    /// none (all of the workshop's do), from its `ready`: None until a
    /// worker has said it.
    pub states_default: RwSignal<Option<u32>>,
}

/// The workers' owner for the component that calls it: none runs until a
/// slot starts, and every one is terminated when that component is
/// cleaned up.
pub fn use_explorer() -> Explorer {
    let explorer = Explorer {
        slots: StoredValue::new_local([None, None, None]),
        states_default: RwSignal::new(None),
    };
    on_cleanup(move || {
        for slot in [Slot::Whole, Slot::Here, Slot::Sweep] {
            explorer.cancel(slot);
        }
    });
    explorer
}

struct Running {
    worker: Worker,
    route: Rc<RefCell<Route>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

/// Hears a message's text, or what the page saw of the worker itself.
type Listener = Rc<dyn Fn(Result<&str, Failure>)>;

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

/// What a message from the worker calls for.
enum Heard {
    /// The worker is ready, with its limits: post the requests waiting.
    Ready(Ready, Vec<String>),
    /// Tell the last request's listener.
    Tell(Listener, String),
    /// A message of a request made stale: dropped.
    Stale,
}

impl Route {
    fn new(tell: Listener, request: String) -> Route {
        Route {
            pending: 1,
            tell,
            waiting: vec![request],
            ready: false,
        }
    }

    /// Routes `text`, read by its kind alone: progress and ends go to the
    /// last request's listener, if they are its.
    fn hear(&mut self, text: String) -> Heard {
        match serde_json::from_str::<Message<IgnoredAny, IgnoredAny>>(&text) {
            Ok(Message::Ready(ready)) => {
                self.ready = true;
                Heard::Ready(ready, std::mem::take(&mut self.waiting))
            }
            Ok(Message::Done(_) | Message::Error { .. }) => {
                let current = self.pending <= 1;
                self.pending = self.pending.saturating_sub(1);
                self.tell_if(current, text)
            }
            // Progress, and what does not read, which the listener names.
            _ => self.tell_if(self.pending <= 1, text),
        }
    }

    fn tell_if(&self, current: bool, text: String) -> Heard {
        if current {
            Heard::Tell(self.tell.clone(), text)
        } else {
            Heard::Stale
        }
    }
}

/// `tell`, hearing a message's text as `P` and `D`.
fn listener<P, D>(tell: impl Fn(Event<P, D>) + 'static) -> Listener
where
    P: DeserializeOwned + 'static,
    D: DeserializeOwned + 'static,
{
    Rc::new(move |heard: Result<&str, Failure>| {
        let text = match heard {
            Ok(text) => text,
            Err(failure) => return tell(Event::Failed(failure)),
        };
        match serde_json::from_str::<Message<P, D>>(text) {
            Ok(Message::Ready(_)) => {}
            Ok(Message::Progress(f)) => tell(Event::Progress(f)),
            Ok(Message::Done(d)) => tell(Event::Done(d)),
            Ok(Message::Error { message }) => tell(Event::Failed(Failure::Said(message))),
            Err(e) => tell(Event::Failed(Failure::Said(e.to_string()))),
        }
    })
}

impl Explorer {
    /// Starts `request` in a new worker in `slot`, cancelling what ran
    /// there; `tell` hears its progress and its end, read as `P` and `D`.
    pub fn start<P, D>(self, slot: Slot, request: &Request, tell: impl Fn(Event<P, D>) + 'static)
    where
        P: DeserializeOwned + 'static,
        D: DeserializeOwned + 'static,
    {
        self.cancel(slot);
        let tell = listener(tell);
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = match Worker::new_with_options(WORKER_URL, &options) {
            Ok(w) => w,
            Err(_) => {
                tell(Err(Failure::Stopped));
                return;
            }
        };
        let route = Rc::new(RefCell::new(Route::new(tell, request.to_json())));
        let on_message = {
            let (worker, route) = (worker.clone(), route.clone());
            let states_default = self.states_default;
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                let text = event.data().as_string().unwrap_or_default();
                // The route is let go of before anyone hears the message,
                // so that hearing it may ask the worker again.
                let heard = route.borrow_mut().hear(text);
                match heard {
                    Heard::Ready(ready, waiting) => {
                        // Set once: every worker started says the same, and
                        // a set would redraw what reads it.
                        let limit = Some(ready.states_default);
                        if states_default.get_untracked() != limit {
                            states_default.set(limit);
                        }
                        let posted = waiting
                            .iter()
                            .all(|r| worker.post_message(&JsValue::from_str(r)).is_ok());
                        if !posted {
                            let tell = route.borrow().tell.clone();
                            tell(Err(Failure::Unposted));
                        }
                    }
                    Heard::Tell(tell, text) => tell(Ok(&text)),
                    Heard::Stale => {}
                }
            })
        };
        let on_error = {
            let route = route.clone();
            Closure::<dyn FnMut(web_sys::Event)>::new(move |_event: web_sys::Event| {
                let tell = route.borrow().tell.clone();
                tell(Err(Failure::Stopped));
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        self.slots.update_value(|slots| {
            slots[slot.index()] = Some(Running {
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
    pub fn ask<P, D>(
        self,
        slot: Slot,
        request: &Request,
        tell: impl Fn(Event<P, D>) + 'static,
    ) -> bool
    where
        P: DeserializeOwned + 'static,
        D: DeserializeOwned + 'static,
    {
        let text = request.to_json();
        let asked = self.slots.with_value(|slots| {
            let running = slots[slot.index()].as_ref()?;
            let mut r = running.route.borrow_mut();
            r.tell = listener(tell);
            r.pending += 1;
            if !r.ready {
                r.waiting.push(text);
                return Some(None);
            }
            let posted = running
                .worker
                .post_message(&JsValue::from_str(&text))
                .is_ok();
            Some((!posted).then(|| r.tell.clone()))
        });
        match asked {
            None => false,
            Some(None) => true,
            Some(Some(tell)) => {
                tell(Err(Failure::Unposted));
                true
            }
        }
    }

    /// Stops the run in `slot` at once, if one runs.
    pub fn cancel(self, slot: Slot) {
        let running = self
            .slots
            .try_update_value(|slots| slots[slot.index()].take())
            .flatten();
        if let Some(running) = running {
            running.worker.terminate();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lousa_core::narrate::Lang;
    use std::cell::Cell;

    /// A route whose listener counts what it hears.
    fn route(heard: &Rc<Cell<u32>>) -> Route {
        let heard = heard.clone();
        Route::new(Rc::new(move |_| heard.set(heard.get() + 1)), "r1".into())
    }

    #[test]
    fn ready_posts_the_requests_waiting_and_names_the_default_limit() {
        let heard = Rc::new(Cell::new(0));
        let mut r = route(&heard);
        r.waiting.push("r2".into());
        // The worker's first message, as it writes it (its own test holds
        // the text), from a worker built with another default limit.
        let ready = r#"{"ready":{"states_default":1234,"states_max":50000000}}"#;
        let Heard::Ready(said, waiting) = r.hear(ready.into()) else {
            panic!("ready");
        };
        assert_eq!(waiting, ["r1", "r2"]);
        assert!(r.ready && r.waiting.is_empty());
        assert_eq!(heard.get(), 0, "ready tells no request");
        // The counts name that limit when a count stops at it: the
        // worker's, not the states this one reached.
        let cut = crate::counts::tests::counted(100);
        let said = crate::counts::state_limit(&cut, Some(said.states_default), Lang::En);
        assert!(said.contains("limit of 1,234 states"), "{said}");
    }

    #[test]
    fn only_the_last_requests_messages_are_told() {
        let heard = Rc::new(Cell::new(0));
        let mut r = route(&heard);
        r.pending = 2;
        let progress =
            r#"{"progress":{"states":1,"transitions":0,"states_per_s":0,"elapsed_ms":0.0}}"#;
        let error = r#"{"error":{"message":"m"}}"#;
        assert!(matches!(r.hear(progress.into()), Heard::Stale));
        assert!(
            matches!(r.hear(error.into()), Heard::Stale),
            "the first request's end"
        );
        assert!(matches!(r.hear(progress.into()), Heard::Tell(..)));
        assert!(matches!(r.hear(error.into()), Heard::Tell(..)));
    }

    #[test]
    fn a_message_is_read_as_the_kind_of_request_it_answers() {
        let got = Rc::new(RefCell::new(Vec::new()));
        let tell = listener({
            let got = got.clone();
            move |e: Event| {
                got.borrow_mut().push(match e {
                    Event::Progress(f) => format!("progress {}", f.states),
                    Event::Done(d) => format!("done {}", d.report.states),
                    Event::Failed(f) => format!("failed {f:?}"),
                })
            }
        });
        tell(Ok(
            r#"{"progress":{"states":7,"transitions":6,"states_per_s":0,"elapsed_ms":1.0}}"#,
        ));
        tell(Err(Failure::Stopped));
        tell(Ok(r#"{"error":{"message":"m"}}"#));
        // A sweep's progress is no exploration's: named, not misread.
        tell(Ok(
            r#"{"progress":{"runs":1,"runs_total":2,"runs_per_s":0,"elapsed_ms":1.0}}"#,
        ));
        let got = got.borrow();
        assert_eq!(
            got[..3],
            ["progress 7", "failed Stopped", r#"failed Said("m")"#]
        );
        assert!(
            got[3].starts_with(r#"failed Said("missing field `states`"#),
            "{got:?}"
        );
    }
}
