//! What a page could not use from its link, one line per parameter, and
//! what took its place.

use crate::text::problem_lines;
use crate::url::Problems;
use leptos::prelude::*;
use lousa_core::narrate::Lang;

/// The problems of the page's link, as an alert; hidden when there are
/// none, so the list's place does not move the page when one appears.
#[component]
pub fn ProblemList(
    /// What the page's URL reader found (a signal or memo).
    problems: impl With<Value = Problems> + Copy + Send + Sync + 'static,
    lang: impl Get<Value = Lang> + Copy + Send + Sync + 'static,
) -> impl IntoView {
    // Rebuilt whole: a link's problems change all at once, if ever.
    let lines = move || {
        problems
            .with(|p| problem_lines(p, lang.get()))
            .into_iter()
            .map(|line| view! { <p>{line}</p> })
            .collect_view()
    };
    view! {
        <div
            class="problems"
            role="alert"
            data-testid="problems"
            hidden=move || problems.with(|p| p.list.is_empty())
        >
            {lines}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::parse_query;

    fn lines(query: &str, lang: Lang) -> Vec<String> {
        problem_lines(&parse_query(query).problems, lang)
    }

    /// Issue #35: a repeated parameter said both that its first value
    /// stands and that the default does; a value came back still escaped.
    #[test]
    fn a_problem_line_says_what_stands_and_quotes_the_value_decoded() {
        let l = lines("?frame=3&frame=4&scenario=race%2D9", Lang::En);
        assert!(l[0].contains("the first value stands"), "{}", l[0]);
        assert!(!l[0].contains("default"), "{}", l[0]);
        assert!(
            l[1].contains("“race-9”") && l[1].contains("using the default"),
            "{}",
            l[1]
        );
        let pt = lines("?strategy=%E2%80%AEx", Lang::Pt);
        assert!(
            pt[0].contains("“\\u{202e}x”") && pt[0].contains("usando o padrão"),
            "{}",
            pt[0]
        );
    }
}
