//! The still markup of the two panels: labels, buttons and the options of
//! each picker, in one language. It is written once, and again when the
//! reader switches language; everything that follows the frame is filled in
//! by `app::App::render`. Elements the app updates or the browser tests read
//! carry `data-testid`, and buttons name their action in `data-action`.
//!
//! The markup is kept as templates (`markup::fill`).

use crate::markup::fill;
use crate::state::{Moment, SPEEDS};
use crate::text::{html_lang, strategy_gloss, ui};
use lousa_core::Strategy;
use lousa_core::builtins::{NAMES, builtin};
use lousa_core::narrate::Lang;

/// A scenario's title in `lang`.
pub fn scenario_title(name: &str, lang: Lang) -> String {
    builtin(name).map_or_else(
        || name.to_string(),
        |s| match lang {
            Lang::Pt => s.title.pt,
            Lang::En => s.title.en,
        },
    )
}

fn option(out: &mut String, value: &str, text: &str, selected: bool) {
    let template = if selected {
        r#"<option value="§" selected>§</option>"#
    } else {
        r#"<option value="§">§</option>"#
    };
    fill(out, template, &[value, text]);
}

fn strategy_options(out: &mut String, selected: Strategy, lang: Lang) {
    for strategy in Strategy::ALL {
        let text = format!("{} · {}", strategy.name(), strategy_gloss(strategy, lang));
        option(out, strategy.name(), &text, strategy == selected);
    }
}

const STICKY: &str = r#"<section class="lousa-sticky" data-testid="sticky" lang="§" aria-label="§">
<div class="lousa-head"><p class="lousa-title" data-testid="scenario-title"></p>
<p class="lousa-meta"><span class="chip" data-testid="board-strategy"></span><span data-testid="clock"></span><span data-testid="step-counter"></span></p></div>
<div class="problems" role="alert" data-testid="problems" hidden></div>
<div class="board-wrap" data-testid="board-wrap"><svg data-testid="lousa" class="board" role="group" aria-label="§" viewBox="0 0 560 320" preserveAspectRatio="xMidYMin meet"></svg></div>
<div class="quiz-slot" data-testid="quiz" aria-live="polite"></div>
<div class="sql-panel" data-testid="sql"></div>
<div class="transport" role="group" aria-label="§">
<button type="button" data-action="back" data-testid="step-back" aria-label="§" title="§ (← J)">◀</button>
<button type="button" class="play" data-action="play" data-testid="play" aria-pressed="false"></button>
<button type="button" data-action="forward" data-testid="step-forward" aria-label="§" title="§ (→ K)">▶</button>
<label class="speed"><span>§</span><select data-testid="speed">"#;

const SETTINGS: &str = r#"</section>
<section class="lousa-extra" lang="§" aria-label="§"><div class="settings">
<label><span>§</span><select data-testid="scenario">"#;

const STRATEGY: &str = r#"</select></label><label><span>§</span><select data-testid="strategy">"#;

const BUTTONS: &str = r#"</select></label>
<button type="button" class="predict" data-action="predict" data-testid="predict" aria-pressed="false" title="§">§</button>
<button type="button" data-action="lang" data-testid="language" lang="§">§</button>
<button type="button" data-action="help" data-testid="help" aria-keyshortcuts="?" aria-expanded="false">? §</button></div>"#;

const HELP: &str = r#"<div class="help" role="dialog" aria-labelledby="lousa-help-title" data-testid="help-panel" hidden><p id="lousa-help-title" class="help-title">§</p><dl>"#;

const KEY: &str = "<dt><kbd>§</kbd></dt><dd>§</dd>";

const HELP_END: &str = r#"</dl><button type="button" data-action="help-close" data-testid="help-close">§</button></div>"#;

const TEXT: &str = r#"<p class="narration" aria-live="polite" aria-atomic="true" data-testid="narration"></p>
<details class="events" data-testid="events"><summary data-testid="events-summary"></summary><div class="table-scroll"><table>
<thead><tr><th scope="col">§</th><th scope="col">§</th><th scope="col">§</th></tr></thead>
<tbody data-testid="event-rows"></tbody></table></div></details></section>"#;

/// The lousa panel: the part that stays on screen (heading, board, SQL,
/// playback) and the part that may follow the article on a phone (settings,
/// help, narration, event table).
pub fn lousa_panel(moment: &Moment, lang: Lang, speed: usize) -> String {
    let t = ui(lang);
    let code = html_lang(lang);
    let mut out = String::with_capacity(8_192);
    fill(
        &mut out,
        STICKY,
        &[
            code,
            t.board_label,
            t.board_label,
            t.controls_label,
            t.back,
            t.back,
            t.forward,
            t.forward,
            t.speed,
        ],
    );
    for (i, (name, _)) in SPEEDS.iter().enumerate() {
        option(&mut out, &i.to_string(), name, i == speed);
    }
    // The help opens next to the controls, where the reader already is:
    // moving focus to it then never scrolls the article (and the lousa).
    out.push_str("</select></label></div>");
    fill(&mut out, HELP, &[t.help_button]);
    for (key, what) in t.help_keys {
        fill(&mut out, KEY, &[key, what]);
    }
    fill(&mut out, HELP_END, &[t.close]);
    fill(&mut out, SETTINGS, &[code, t.controls_label, t.scenario]);
    for name in NAMES {
        option(
            &mut out,
            name,
            &scenario_title(name, lang),
            name == moment.scenario,
        );
    }
    fill(&mut out, STRATEGY, &[t.strategy]);
    strategy_options(&mut out, moment.strategy, lang);
    let other = if lang == Lang::Pt { "en" } else { "pt-BR" };
    fill(
        &mut out,
        BUTTONS,
        &[
            t.predict_title,
            t.predict,
            other,
            t.other_language,
            t.help_button,
        ],
    );
    fill(&mut out, TEXT, &[t.col_time, t.col_who, t.col_what]);
    out
}

const TWIN: &str = r#"<section class="twin" lang="§" aria-label="§"><div class="twin-wrap" data-testid="twin-wrap">
<svg class="twin-svg" data-testid="twin" role="slider" tabindex="0" aria-label="§" aria-valuemin="0" viewBox="0 0 560 204">
<g data-testid="twin-still"></g><g data-testid="twin-cursor"><line class="cursor" x1="0" x2="0" y1="40" y2="168"></line><circle class="cursor-knob" cx="0" cy="104" r="7"></circle></g></svg></div>"#;

const LEDGER: &str = r#"<div class="ledger" data-testid="ledger-§"><label class="line-pick"><span>§</span><select data-testid="line-§">"#;

const LEDGER_END: &str = r#"</select></label><span class="chip" data-testid="onboard-§" hidden>§</span><p class="ledger-figures" data-testid="figures-§"></p></div>"#;

/// The twin timeline: the drawing (its still part is filled in later), the
/// cursor, and a ledger with a design picker under it for each line.
pub fn twin_panel(moment: &Moment, lang: Lang) -> String {
    let t = ui(lang);
    let mut out = String::with_capacity(4_096);
    fill(
        &mut out,
        TWIN,
        &[html_lang(lang), t.twin_label, t.cursor_label],
    );
    let [top, bottom] = moment.lines();
    for (side, label, selected) in [
        ("top", t.top_line, top.strategy),
        ("bottom", t.bottom_line, bottom.strategy),
    ] {
        fill(&mut out, LEDGER, &[side, label, side]);
        strategy_options(&mut out, selected, lang);
        fill(&mut out, LEDGER_END, &[side, t.shown_on_board, side]);
    }
    out.push_str("</section>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mark_of_the_panels_is_filled() {
        for lang in [Lang::Pt, Lang::En] {
            let lousa = lousa_panel(&Moment::default(), lang, 1);
            let twin = twin_panel(&Moment::default(), lang);
            assert!(!lousa.contains('§') && !twin.contains('§'));
            assert_eq!(
                lousa.matches("<section").count(),
                lousa.matches("</section>").count()
            );
            for id in [
                "lousa",
                "play",
                "step-back",
                "step-forward",
                "scenario",
                "strategy",
                "narration",
                "events",
                "quiz",
                "predict",
            ] {
                assert!(lousa.contains(&format!(r#"data-testid="{id}""#)), "{id}");
            }
            assert!(
                twin.contains(r#"data-testid="line-top""#)
                    && twin.contains(r#"data-testid="figures-bottom""#)
            );
        }
    }

    #[test]
    fn the_pickers_show_the_moment_s_choices() {
        let moment = Moment {
            scenario: "race-2",
            strategy: Strategy::Naive,
            ..Moment::default()
        };
        let lousa = lousa_panel(&moment, Lang::Pt, 2);
        assert!(lousa.contains(r#"<option value="race-2" selected>"#));
        assert!(lousa.contains(r#"<option value="naive" selected>"#));
        assert!(lousa.contains(r#"<option value="2" selected>2×</option>"#));
    }
}
