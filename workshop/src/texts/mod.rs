//! Every sentence the workshop view shows that the reader's page does not,
//! in Brazilian Portuguese first and English second.

use lousa_core::choice::ChoiceKind;
use lousa_core::narrate::Lang;

mod en;
mod pt;

/// Every sentence of the workshop in one language: one table per language
/// (`pt.rs`, `en.rs`), a section per view.
pub struct Words {
    pub title: &'static str,
    pub intro: &'static str,
    pub scenario: &'static str,
    pub strategy: &'static str,
    pub other_language: &'static str,
    pub reader_page: &'static str,
    pub board_label: &'static str,
    pub frame_word: &'static str,
    pub of_word: &'static str,
    pub your_turn: &'static str,
    pub run_over: &'static str,
    pub choices_label: &'static str,
    pub undo: &'static str,
    pub redo: &'static str,
    pub first_come: &'static str,
    pub restart: &'static str,
    pub schedule_word: &'static str,
    pub no_choices_yet: &'static str,
    /// Beside a field for a choice the list only samples (a wide jitter).
    pub other_choice: &'static str,
    /// Above the alternatives when the board is stepped back before the
    /// choice point.
    pub rewound: &'static str,
    pub take_choice: &'static str,
    pub explore_title: &'static str,
    pub explore_button: &'static str,
    pub cancel: &'static str,
    pub cancelled: &'static str,
    pub exploring: &'static str,
    pub states_word: &'static str,
    pub transitions_word: &'static str,
    pub per_second: &'static str,
    /// A count cut at the state limit: "stopped at the limit of", the
    /// limit and `states_word`, then why that matters.
    pub state_limit: &'static str,
    pub state_limit_why: &'static str,
    /// After a cut-off exact count: the fast count may still get a verdict.
    pub state_limit_try_fast: &'static str,
    pub complete: &'static str,
    pub schedules_word: &'static str,
    pub captures_col: &'static str,
    pub answers_col: &'static str,
    pub schedules_col: &'static str,
    pub shortest_col: &'static str,
    pub no_answer: &'static str,
    pub properties_title: &'static str,
    pub always: &'static str,
    pub sometimes: &'static str,
    pub from_here: &'static str,
    pub charge_twice: &'static str,
    pub counting_here: &'static str,
    /// A count cut off at the state limit, where a number would stand.
    pub not_counted: &'static str,
    /// The fast count's switch, its sentence, and how its result is named.
    pub por_option: &'static str,
    pub por_hint: &'static str,
    pub por_complete: &'static str,
    pub schedules_not_counted: &'static str,
    pub outcomes_word: &'static str,
    pub here_state_limit: &'static str,
    pub from_step_start: &'static str,
    pub worker_failed: &'static str,
    pub exports_title: &'static str,
    pub download: &'static str,
    pub copy: &'static str,
    pub copied: &'static str,
    pub copy_failed: &'static str,
    /// Opens the list of an example schedule's picks.
    pub example_steps: &'static str,
    /// Before the built-in's title when the scenario is edited.
    pub edited_from: &'static str,
    pub lesson_title: &'static str,
    pub lesson_intro: &'static str,
    /// After "3 de 10": how many challenges are solved.
    pub lesson_progress: &'static str,
    pub lesson_reset: &'static str,
    /// Before "3 de 10" above a challenge.
    pub lesson_challenge: &'static str,
    pub lesson_by_picks: &'static str,
    pub lesson_by_edit: &'static str,
    pub lesson_by_explore: &'static str,
    pub lesson_hint: &'static str,
    pub lesson_solved: &'static str,
    pub lesson_next: &'static str,
    /// Beside "solved" when the picks already decide the ending but the
    /// board still stands at a choice point, before it shows it.
    pub lesson_not_shown_yet: &'static str,
    pub lesson_play_out: &'static str,
    pub lesson_done: &'static str,
    pub share_title: &'static str,
    /// Before the moment's link on a printed handout.
    pub handout_link: &'static str,
    /// After the schedule on a printed handout.
    pub handout_then: &'static str,
    pub copy_link: &'static str,
    pub link_copy_failed: &'static str,
    pub show_qr: &'static str,
    pub hide_qr: &'static str,
    pub qr_label: &'static str,
    pub qr_too_long: &'static str,
    pub export_names: [&'static str; 4],
    pub keys_title: &'static str,
    pub keys: [(&'static str, &'static str); 7],
    /// Presenter mode and its questions to the room.
    pub presenting: Presenting,
    pub sweep: SweepWords,
    pub editor: EditorWords,
    pub design: DesignWords,
    pub branch: BranchWords,
}

pub fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::Pt => &pt::PT,
        Lang::En => &en::EN,
    }
}

/// The sentences of presenter mode and of its questions.
pub struct Presenting {
    pub enter: &'static str,
    pub enter_title: &'static str,
    pub leave: &'static str,
    pub fullscreen: &'static str,
    pub back: &'static str,
    pub forward: &'static str,
    pub hint: &'static str,
    pub question_label: &'static str,
    pub blanked: &'static str,
}

/// The sweep and its heatmaps.
pub struct SweepWords {
    pub title: &'static str,
    pub intro: &'static str,
    pub across: &'static str,
    pub down: &'static str,
    pub values: &'static str,
    pub seeds: &'static str,
    pub designs: &'static str,
    pub button: &'static str,
    pub cancel: &'static str,
    pub cancelled: &'static str,
    pub failed: &'static str,
    pub sweeping: &'static str,
    pub of_word: &'static str,
    pub runs_word: &'static str,
    pub per_second: &'static str,
    pub swept: &'static str,
    pub seeds_per_cell: &'static str,
    pub from_seed: &'static str,
    pub in_word: &'static str,
    pub click_a_cell: &'static str,
    pub legend: &'static str,
    pub runs_charged_twice: &'static str,
    pub opens_seed: &'static str,
    pub refused: &'static str,
    pub map_of: &'static str,
    pub cells_word: &'static str,
    pub designs_word: &'static str,
    pub seeds_word: &'static str,
    pub no_design: &'static str,
    pub the_design: &'static str,
    pub outside: &'static str,
    pub to_word: &'static str,
    pub axis_refused: &'static str,
    /// Both axes on one field: the second would overwrite the first.
    pub same_field: &'static str,
    pub seeds_not_number: &'static str,
}

/// The scenario editor.
pub struct EditorWords {
    pub title: &'static str,
    pub world: &'static str,
    pub client: &'static str,
    pub faults: &'static str,
    pub more: &'static str,
    pub fewer: &'static str,
    pub reset: &'static str,
    pub export: &'static str,
    pub import: &'static str,
    pub edited: &'static str,
}

/// The design tab. The language's own names (`select`, `no-rows`,
/// `23505`) stay as they are: they are what the JSON and the CLI say.
pub struct DesignWords {
    pub title: &'static str,
    pub intro: &'static str,
    pub start_from: &'static str,
    pub builtins: &'static str,
    pub exercises: &'static str,
    pub name: &'static str,
    pub claims: &'static str,
    pub claims_once: &'static str,
    pub claims_nothing: &'static str,
    pub serves: &'static str,
    pub serves_http: &'static str,
    pub serves_queue: &'static str,
    pub isolation: &'static str,
    pub isolation_scenario: &'static str,
    pub tables: &'static str,
    pub unique_on: &'static str,
    pub unique_table: &'static str,
    pub steps: &'static str,
    pub label: &'static str,
    pub does: &'static str,
    pub table: &'static str,
    pub by: &'static str,
    pub by_order: &'static str,
    pub by_key: &'static str,
    pub by_id: &'static str,
    pub by_account: &'static str,
    pub columns: &'static str,
    pub for_update: &'static str,
    pub on_conflict: &'static str,
    pub returning: &'static str,
    pub set: &'static str,
    pub when: &'static str,
    pub answer: &'static str,
    pub goes_to: &'static str,
    pub respond: &'static str,
    pub then: &'static str,
    pub next_step: &'static str,
    pub up: &'static str,
    pub down: &'static str,
    pub remove: &'static str,
    pub add_step: &'static str,
    pub add_branch: &'static str,
    pub remove_branch: &'static str,
    pub refused: &'static str,
    pub checks: &'static str,
    pub run_on_board: &'static str,
    pub check_on: &'static str,
    pub check: &'static str,
    pub off: &'static str,
    pub on_board: &'static str,
    pub download: &'static str,
    pub json: &'static str,
    pub read_json: &'static str,
    pub found: &'static str,
    pub exploring: &'static str,
    pub load_example: &'static str,
    pub not_claimed: &'static str,
    /// A *sometimes* property the scenario need not lead to.
    pub not_required: &'static str,
    /// The built-in designs' and exercises' `about`, by name, where the
    /// language is not the design files' own (English): see
    /// [`design_about`].
    pub abouts: &'static [(&'static str, &'static str)],
    /// An update written only while the job's lease holds.
    pub fenced: &'static str,
    pub completed: &'static str,
    pub local: &'static str,
    /// Before a retake's state.
    pub from_state: &'static str,
    /// Before how many times a jump back may be taken, and its tooltip.
    pub again: &'static str,
    pub again_title: &'static str,
}

/// Faults injected at a step, and the branch they fork.
pub struct BranchWords {
    pub title: &'static str,
    pub intro: &'static str,
    pub none: &'static str,
    pub run: &'static str,
    pub branch: &'static str,
    pub drop: &'static str,
    pub at_frame: &'static str,
}

/// What kind of choice the scheduler makes now.
pub fn choice_kind(kind: ChoiceKind, lang: Lang) -> &'static str {
    match (kind, lang) {
        (ChoiceKind::Next, Lang::Pt) => "Qual evento acontece primeiro?",
        (ChoiceKind::Next, Lang::En) => "Which event happens first?",
        (ChoiceKind::Route, Lang::Pt) => "Para qual instância o load balancer manda?",
        (ChoiceKind::Route, Lang::En) => "Which instance does the load balancer send it to?",
        (ChoiceKind::Jitter, Lang::Pt) => "Quantos milissegundos a mais nesta ida pela rede?",
        (ChoiceKind::Jitter, Lang::En) => "How many extra milliseconds on this network hop?",
        (ChoiceKind::Backoff, Lang::Pt) => "Quantos milissegundos a mais antes deste reenvio?",
        (ChoiceKind::Backoff, Lang::En) => "How many extra milliseconds before this retry?",
    }
}

/// A count with the language's thousands separator: 1.472 or 1,472.
pub fn count(n: u128, lang: Lang) -> String {
    let digits = n.to_string();
    let sep = match lang {
        Lang::Pt => '.',
        Lang::En => ',',
    };
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

/// The core's refusal `text` (English: `instances: 9 is outside 1..=8`)
/// in `lang`. The core words its limits in a few fixed shapes
/// (`scenario.rs`'s `in_range` and `at_most`, the sweep's counts); those
/// are put in Portuguese, and the field path, the values and the limits
/// stay as they are. A message of another shape keeps its words.
pub fn refusal(text: &str, lang: Lang) -> String {
    if lang == Lang::En {
        return text.to_string();
    }
    const SHAPES: [(&str, &str); 9] = [
        (" values are outside ", " valores estão fora de "),
        (" is outside ", " está fora de "),
        (" exceeds the limit ", " passa do limite "),
        (" runs, outside ", " execuções, fora de "),
        (" cells x ", " células × "),
        (" designs x ", " estratégias × "),
        (" seeds = ", " sementes = "),
        ("..=", " a "),
        ("edit ", "edição "),
    ];
    let mut out = text.to_string();
    for (en, pt) in SHAPES {
        out = out.replace(en, pt);
    }
    out
}

/// What a design is about, in `lang`: a built-in's or an exercise's own
/// sentence in the language's table while the design still says what the
/// file says; otherwise (English, or a design someone wrote or edited) its
/// own `about`.
pub fn design_about(design: &lousa_core::design::Design, lang: Lang) -> String {
    let unchanged = lousa_core::design::builtin::named(&design.name)
        .is_some_and(|b| b.design().about == design.about);
    words(lang)
        .design
        .abouts
        .iter()
        .find(|(name, _)| unchanged && *name == design.name)
        .map_or_else(|| design.about.clone(), |(_, about)| about.to_string())
}

/// "3 passos, 1 transação" in words: how big a design that checks is.
pub fn checks_line(steps: usize, lang: Lang) -> String {
    let w = &words(lang).design;
    match lang {
        Lang::Pt => format!(
            "{} {steps} {}.",
            w.checks,
            if steps == 1 { "passo" } else { "passos" }
        ),
        Lang::En => format!(
            "{} {steps} {}.",
            w.checks,
            if steps == 1 { "step" } else { "steps" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_core_limit_refusals_read_in_portuguese() {
        use lousa_core::builtins::builtin;
        use lousa_core::link;
        let race = builtin("race-2").unwrap();
        let too_many = link::edit(&race, &[("instances", 99.into())]).unwrap_err();
        let jitter =
            link::edit(&race, &[("clients.0.backoff_jitter_ms", 100_001.into())]).unwrap_err();
        let axis = "instances=1..9:17"
            .parse::<lousa_core::sweep::Axis>()
            .unwrap_err();
        for en in [too_many.to_string(), jitter.to_string(), axis] {
            let pt = refusal(&en, Lang::Pt);
            for word in ["outside", "exceeds", "..=", "edit ", "values"] {
                assert!(!pt.contains(word), "{en} → {pt}");
            }
            assert_eq!(refusal(&en, Lang::En), en);
        }
        assert_eq!(
            refusal("edit 1, instances: 99 is outside 1..=8", Lang::Pt),
            "edição 1, instances: 99 está fora de 1 a 8"
        );
    }

    #[test]
    fn counts_group_thousands_by_language() {
        assert_eq!(count(1472, Lang::Pt), "1.472");
        assert_eq!(count(700_922, Lang::En), "700,922");
        assert_eq!(count(12, Lang::Pt), "12");
        assert_eq!(count(1_000_000, Lang::Pt), "1.000.000");
    }

    /// Every built-in design and exercise reads in Portuguese while it is
    /// unchanged, and in its own words once edited.
    #[test]
    fn every_builtin_design_says_what_it_is_about_in_portuguese() {
        use lousa_core::design::builtin;
        for name in builtin::names() {
            let d = builtin::named(name).unwrap().design().clone();
            let pt = design_about(&d, Lang::Pt);
            assert_ne!(pt, d.about, "{name} has no Portuguese about");
            assert_eq!(design_about(&d, Lang::En), d.about);
            let mut edited = d.clone();
            edited.about = "mine".into();
            assert_eq!(design_about(&edited, Lang::Pt), "mine");
        }
    }

    #[test]
    fn a_design_that_checks_is_counted_in_each_language() {
        assert_eq!(checks_line(1, Lang::Pt), "O projeto confere: 1 passo.");
        assert_eq!(checks_line(4, Lang::En), "The design checks: 4 steps.");
    }
}
