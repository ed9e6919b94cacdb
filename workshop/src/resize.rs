//! A box's size, watched: what is drawn for the width its box has (the
//! board on a phone, the branch's two lines) is drawn again when that box
//! changes size, with the window or without it (leaving presenter mode
//! brings the side panel back).

use leptos::html::Div;
use leptos::prelude::*;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::ResizeObserver;

/// The observer of the box in place, and what it calls.
type Watch = (ResizeObserver, Closure<dyn FnMut()>);

/// Calls `changed` each time the box `node` holds changes size, and once
/// when it is first laid out (as a `ResizeObserver` does). A box put in its
/// place is watched instead; the caller's cleanup lets go of the last one.
pub fn on_resize(node: NodeRef<Div>, changed: impl Fn() + 'static) {
    watch(node, Rc::new(changed));
}

fn watch(node: NodeRef<Div>, changed: Rc<dyn Fn()>) {
    let watch = StoredValue::new_local(None::<Watch>);
    let stop = move || {
        watch.update_value(|w| {
            if let Some((observer, _)) = w.take() {
                observer.disconnect();
            }
        })
    };
    Effect::new(move |_| {
        let Some(el) = node.get() else {
            return;
        };
        stop();
        let changed = changed.clone();
        let callback = Closure::<dyn FnMut()>::new(move || changed());
        if let Ok(observer) = ResizeObserver::new(callback.as_ref().unchecked_ref()) {
            observer.observe(&el);
            watch.set_value(Some((observer, callback)));
        }
    });
    on_cleanup(stop);
}
