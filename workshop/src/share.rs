//! Sharing a moment: the link that reopens the board exactly as it stands
//! (the scenario, the choices, the frame on screen), copied with one click
//! or shown as a QR code a room can scan from the projector.

use crate::exports::copy;
use crate::state::Ws;
use crate::texts::words;
use crate::url::{self, Setup};
use leptos::prelude::*;
use qrcode::{Color, EcLevel, QrCode};

/// Modules of light margin around the code: the quiet zone a reader needs.
const QUIET: usize = 4;

/// A QR code drawn as SVG: its width in modules and one path of its dark
/// modules, a rectangle per run of dark modules in a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Qr {
    pub width: usize,
    pub path: String,
}

/// The QR code of `link` at error correction M (a projected code read from
/// a seat), or `None` when the link is longer than a QR code holds.
pub fn qr(link: &str) -> Option<Qr> {
    let code = QrCode::with_error_correction_level(link, EcLevel::M).ok()?;
    let width = code.width();
    let colors = code.to_colors();
    let mut path = String::new();
    for (y, row) in colors.chunks(width).enumerate() {
        let mut x = 0;
        while x < width {
            if row[x] == Color::Light {
                x += 1;
                continue;
            }
            let run = row[x..].iter().take_while(|c| **c == Color::Dark).count();
            path.push_str(&format!("M{x} {y}h{run}v1h-{run}z"));
            x += run;
        }
    }
    Some(Qr { width, path })
}

/// The link that reopens `setup` on this page: its origin and path, then
/// the state's query.
pub fn moment_link(setup: &Setup) -> String {
    let at = window().location();
    format!(
        "{}{}{}",
        at.origin().unwrap_or_default(),
        at.pathname().unwrap_or_default(),
        url::query(setup)
    )
}

#[component]
pub fn Share() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let link = Memo::new(move |_| moment_link(&ws.setup()));
    let showing = RwSignal::new(false);
    let said = RwSignal::new(None::<&'static str>);
    let code = Memo::new(move |_| showing.get().then(|| link.with(|l| qr(l))));
    let picture = move || {
        code.get().map(|code| match code {
            Some(q) => {
                let side = q.width + 2 * QUIET;
                let m = -(QUIET as i64);
                view! {
                    <svg
                        class="qr"
                        data-testid="qr"
                        data-link=move || link.get()
                        viewBox=format!("{m} {m} {side} {side}")
                        role="img"
                        aria-label=move || words(ws.lang.get()).qr_label
                    >
                        <rect x=m y=m width=side height=side fill="#fff" />
                        <path d=q.path fill="#000" shape-rendering="crispEdges" />
                    </svg>
                }
                .into_any()
            }
            None => view! {
                <p data-testid="qr-too-long" role="status">
                    {move || words(ws.lang.get()).qr_too_long}
                </p>
            }
            .into_any(),
        })
    };
    view! {
        <section class="share" aria-labelledby="share-title">
            <h2 id="share-title">{move || words(ws.lang.get()).share_title}</h2>
            <p>
                <button
                    data-testid="copy-link"
                    on:click=move |_| copy(&link.get_untracked(), said, ws, |w| w.copied, |w| w.link_copy_failed)
                >
                    {move || words(ws.lang.get()).copy_link}
                </button>
                " "
                <button
                    data-testid="show-qr"
                    aria-expanded=move || showing.get().to_string()
                    on:click=move |_| showing.update(|s| *s = !*s)
                >
                    {move || {
                        let w = words(ws.lang.get());
                        if showing.get() { w.hide_qr } else { w.show_qr }
                    }}
                </button>
            </p>
            <p data-testid="share-status" aria-live="polite">{move || said.get()}</p>
            {picture}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `q` back as a scanner would: drawn at 4 px a module with its
    /// quiet zone, then decoded.
    fn read_back(q: &Qr) -> String {
        const PX: usize = 4;
        let side = (q.width + 2 * QUIET) * PX;
        let mut dark = vec![false; (q.width + 2 * QUIET).pow(2)];
        let row = q.width + 2 * QUIET;
        for part in q.path.split('M').filter(|p| !p.is_empty()) {
            let (xy, rest) = part.split_once('h').unwrap();
            let (x, y) = xy.split_once(' ').unwrap();
            let (x, y): (usize, usize) = (x.parse().unwrap(), y.parse().unwrap());
            let run: usize = rest.split_once('v').unwrap().0.parse().unwrap();
            for dx in 0..run {
                dark[(y + QUIET) * row + x + dx + QUIET] = true;
            }
        }
        let mut image = rqrr::PreparedImage::prepare_from_greyscale(side, side, |x, y| {
            if dark[(y / PX) * row + x / PX] {
                0
            } else {
                255
            }
        });
        let grids = image.detect_grids();
        assert_eq!(grids.len(), 1, "one code in the picture");
        grids[0].decode().expect("the code decodes").1
    }

    #[test]
    fn the_code_reads_back_as_the_link() {
        for link in [
            "http://127.0.0.1:8080/?modo=oficina&scenario=race-2&strategy=check-then-act",
            "http://127.0.0.1:8080/?modo=oficina&scenario=race-3;db_latency_ms=7&strategy=idempotency-key&schedule=0-1x6-2&frame=12&lang=en",
        ] {
            let q = qr(link).expect("fits a code");
            assert_eq!(read_back(&q), link);
        }
    }

    #[test]
    fn a_link_longer_than_a_code_holds_has_none() {
        let long = format!("http://x/?{}", "a".repeat(3_000));
        assert_eq!(qr(&long), None);
        assert!(qr(&format!("http://x/?{}", "a".repeat(1_000))).is_some());
    }
}
