//! The worker's two hosts. In a browser (wasm32) it is the Web Worker:
//! each message event is a request, each message posted back JSON text,
//! which the page reads as it is (a string is cloned to the page as is; an
//! object would be parsed here only to be written as text again there).
//! Natively it serves the same protocol on standard input and output, one
//! JSON message a line, `ready` first: the browser bench runs it as the
//! native explorer, so both sides time the same code. Both serve every
//! request through one `Worker`, which keeps the last complete
//! exploration's graph for the counts from a prefix of it.

#[cfg(target_arch = "wasm32")]
fn main() {
    browser::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::serve_lines();
}

#[cfg(target_arch = "wasm32")]
mod browser {
    use lousa_worker::{Message, Posted, Worker};
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    pub fn start() {
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let performance = scope.performance().expect("a worker has performance.now()");
        let on_message = {
            let scope = scope.clone();
            // It lives as long as the worker, as the handler does; leaked,
            // the handler's drop code (which never runs) leaves the wasm.
            let worker: &'static mut Worker = Box::leak(Box::default());
            Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                let mut reply = |message: Posted| post(&scope, &message);
                match request_text(&event.data()) {
                    Some(text) => worker.serve(&text, &mut || performance.now(), &mut reply),
                    None => reply(Posted::Explore(Message::Error {
                        message: "request: expected a JSON object such as {\"explore\": {\"scenario\": \"race-2\"}}, or its text".into(),
                    })),
                }
            })
        };
        scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // The handler lives as long as the worker.
        on_message.forget();
        post(&scope, &Posted::ready());
    }

    /// A request as JSON text: a string as it is, anything else as
    /// `JSON.stringify` writes it (None for what it cannot write).
    fn request_text(data: &JsValue) -> Option<String> {
        if let Some(text) = data.as_string() {
            return Some(text);
        }
        js_sys::JSON::stringify(data)
            .ok()
            .and_then(|text| JsValue::from(text).as_string())
    }

    fn post(scope: &DedicatedWorkerGlobalScope, message: &Posted) {
        scope
            .post_message(&JsValue::from_str(&message.to_json()))
            .expect("a string can be cloned");
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use lousa_worker::{Posted, Worker};
    use std::io::{BufRead, Write};
    use std::time::Instant;

    pub fn serve_lines() {
        let origin = Instant::now();
        let mut clock = || origin.elapsed().as_secs_f64() * 1000.0;
        let stdout = std::io::stdout();
        let mut post = |message: Posted| {
            let mut out = stdout.lock();
            // A closed pipe ends the run; there is no one left to tell.
            if writeln!(out, "{}", message.to_json())
                .and_then(|()| out.flush())
                .is_err()
            {
                std::process::exit(0);
            }
        };
        post(Posted::ready());
        let mut worker = Worker::default();
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if !line.trim().is_empty() {
                worker.serve(&line, &mut clock, &mut post);
            }
        }
    }
}
