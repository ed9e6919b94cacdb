//! The words for a choice point's alternatives: what the step each one
//! picks would do, said by lousa-core's narration, with what tells two
//! alternatives apart. A client's send is counted among its own sends
//! (the global attempt number depends on which client sent first), its key
//! shown only as far as the alternatives' keys differ; two alternatives
//! that would still read the same get the acquirer's call or a number.

use lousa_core::Scenario;
use lousa_core::choice::{ChoiceKind, Schedule};
use lousa_core::narrate::{self, Lang};
use lousa_core::scheduling;
use lousa_core::scheduling::{Alternative, Turn};
use lousa_core::trace::{Actor, EventKind, TraceEvent};

/// One alternative, as the list and the badges show it.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub choice: u32,
    pub actor: Actor,
    pub text: String,
}

/// The alternatives of the turn's choice point; none when the run is over.
pub fn labels(turn: &Turn, lang: Lang) -> Vec<Label> {
    let Some(point) = &turn.next else {
        return Vec::new();
    };
    let events: Vec<Option<&TraceEvent>> = point
        .alternatives
        .iter()
        .map(|a| shown_event(point.kind, a))
        .collect();
    let keys: Vec<&str> = events
        .iter()
        .filter_map(|e| match e.map(|e| &e.kind) {
            Some(EventKind::AttemptSent { key, .. }) => Some(key.as_str()),
            _ => None,
        })
        .collect();
    let mut out: Vec<Label> = point
        .alternatives
        .iter()
        .zip(&events)
        .map(|(a, e)| {
            let said = e.map_or_else(String::new, |e| match &e.kind {
                EventKind::AttemptSent { client, key, .. }
                    if matches!(e.actor, Actor::Client(_)) =>
                {
                    send(turn, e.actor, *client, key_shown(key, &keys), lang)
                }
                EventKind::Routed { attempt, instance } => {
                    route(turn, *attempt, *instance, lang).unwrap_or_else(|| sentence(e, lang))
                }
                _ => sentence(e, lang),
            });
            let text = match point.kind {
                ChoiceKind::Jitter | ChoiceKind::Backoff => format!("+{} ms: {said}", a.choice),
                _ => said,
            };
            Label {
                choice: a.choice,
                actor: a.actor,
                text,
            }
        })
        .collect();
    tell_apart(&mut out, &events, lang);
    out
}

/// Each choice of `choices` in words, as the scheduler would have listed
/// it at its choice point; a choice the list only samples (a wide jitter)
/// by its value. Stops where the choices stop fitting the scenario.
pub fn taken(scenario: &Scenario, choices: &[u32], lang: Lang) -> Vec<String> {
    let mut out = Vec::with_capacity(choices.len());
    for (k, &choice) in choices.iter().enumerate() {
        let Ok(turn) = scheduling::point(scenario, &Schedule(choices[..k].to_vec())) else {
            break;
        };
        let said = labels(&turn, lang)
            .into_iter()
            .find(|l| l.choice == choice)
            .map_or_else(|| format!("+{choice}"), |l| l.text);
        out.push(said);
    }
    out
}

/// The event an alternative is named after: the route for a routing
/// choice, else its first.
fn shown_event(kind: ChoiceKind, a: &Alternative) -> Option<&TraceEvent> {
    match kind {
        ChoiceKind::Route => a
            .events
            .iter()
            .find(|e| matches!(e.kind, EventKind::Routed { .. })),
        _ => a.events.first(),
    }
}

/// `key` as far as the sends' `keys` differ: nothing when they are all the
/// same key (the story's single key), its first eight characters when
/// those tell it apart, else the whole key.
fn key_shown<'a>(key: &'a str, keys: &[&str]) -> Option<&'a str> {
    if keys.iter().all(|k| *k == key) {
        return None;
    }
    let head = key.get(..8).unwrap_or(key);
    let unique = keys
        .iter()
        .filter(|k| **k != key)
        .all(|k| k.get(..8).unwrap_or(k) != head);
    Some(if unique { head } else { key })
}

/// How many sends `client` has made in `turn`'s run up to `frame`.
fn sends_of(turn: &Turn, client: u32, frame: usize) -> usize {
    turn.run
        .events()
        .take_while(|(f, _)| *f <= frame)
        .filter(|(_, e)| matches!(e.kind, EventKind::AttemptSent { client: c, .. } if c == client))
        .count()
}

/// A routing: the attempt named by its sender and its place among that
/// sender's sends, as the sends are listed; `None` if the send is not in
/// the run.
fn route(turn: &Turn, attempt: u32, instance: u32, lang: Lang) -> Option<String> {
    let (frame, actor, client) = turn.run.events().find_map(|(f, e)| match e.kind {
        EventKind::AttemptSent {
            attempt: a, client, ..
        } if a == attempt => Some((f, e.actor, client)),
        _ => None,
    })?;
    let nth = sends_of(turn, client, frame);
    let who = narrate::actor(actor, lang);
    let lb = narrate::actor(Actor::LoadBalancer, lang);
    Some(match lang {
        Lang::Pt => format!(
            "{lb}: manda para a instância {} a {nth}ª tentativa ({who})",
            instance + 1
        ),
        Lang::En => format!("{lb}: sends try {nth} ({who}) to instance {}", instance + 1),
    })
}

/// A client's send, counted among that client's own sends so far.
fn send(turn: &Turn, actor: Actor, client: u32, key: Option<&str>, lang: Lang) -> String {
    let nth = 1 + sends_of(turn, client, turn.frame);
    let who = narrate::actor(actor, lang);
    let what = match (nth, lang) {
        (1, Lang::Pt) => "envia o pedido (1ª tentativa)".to_string(),
        (_, Lang::Pt) => format!("reenvia o pedido ({nth}ª tentativa)"),
        (1, Lang::En) => "sends the request (try 1)".to_string(),
        (_, Lang::En) => format!("sends the request again (try {nth})"),
    };
    match (key, lang) {
        (None, _) => format!("{who}: {what}"),
        (Some(k), Lang::Pt) => format!("{who}: {what}, chave {k}…"),
        (Some(k), Lang::En) => format!("{who}: {what}, key {k}…"),
    }
}

/// Labels that would read the same get what tells them apart: the
/// acquirer's call number, or else their place among the alike.
fn tell_apart(out: &mut [Label], events: &[Option<&TraceEvent>], lang: Lang) {
    for i in 0..out.len() {
        let alike: Vec<usize> = (0..out.len())
            .filter(|&j| out[j].text == out[i].text)
            .collect();
        if alike.len() < 2 {
            continue;
        }
        for (k, &j) in alike.iter().enumerate() {
            let call = events[j].and_then(|e| match e.kind {
                EventKind::CaptureRequested { call, .. }
                | EventKind::Captured { call, .. }
                | EventKind::Declined { call, .. } => Some(call),
                _ => None,
            });
            let extra = match (call, lang) {
                (Some(c), Lang::Pt) => format!(" (chamada {})", c + 1),
                (Some(c), Lang::En) => format!(" (call {})", c + 1),
                (None, Lang::Pt) => format!(" (alternativa {} de {})", k + 1, alike.len()),
                (None, Lang::En) => format!(" (alternative {} of {})", k + 1, alike.len()),
            };
            out[j].text.push_str(&extra);
        }
    }
}

fn sentence(e: &TraceEvent, lang: Lang) -> String {
    format!(
        "{}: {}",
        narrate::actor(e.actor, lang),
        narrate::describe(e, lang)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use lousa_core::builtins::builtin;
    use lousa_core::choice::Schedule;
    use lousa_core::scheduling::turn;

    #[test]
    fn each_alternative_of_race_2_says_a_different_thing() {
        let s = builtin("race-2").unwrap();
        let t = turn(&s, &Schedule::default()).unwrap();
        for lang in [Lang::Pt, Lang::En] {
            let l = labels(&t, lang);
            assert!(l.len() >= 2);
            assert!(l.iter().all(|l| !l.text.is_empty()));
            assert_ne!(l[0].text, l[1].text, "{l:?}");
        }
    }

    /// Walks `name` by always taking the alternative `pick` says, and
    /// checks every choice point's labels on the way.
    fn walk(name: &str, pick: impl Fn(usize, usize) -> usize, check: impl Fn(&[Label])) {
        let s = builtin(name).unwrap();
        let mut choices = Vec::new();
        for step in 0..200 {
            let t = turn(&s, &Schedule(choices.clone())).unwrap();
            let l = labels(&t, Lang::Pt);
            if l.is_empty() {
                return;
            }
            check(&l);
            choices.push(l[pick(step, l.len())].choice);
        }
    }

    #[test]
    fn no_two_alternatives_read_the_same_and_no_prompt_ends_in_a_whole_uuid() {
        for name in lousa_core::builtins::NAMES {
            for pick in [
                |_: usize, _: usize| 0,
                |_, n: usize| n - 1,
                |i, n: usize| i % n,
            ] {
                walk(name, pick, |l| {
                    for (i, a) in l.iter().enumerate() {
                        assert!(l[i + 1..].iter().all(|b| b.text != a.text), "{name}: {l:?}");
                        for key in [
                            lousa_core::builtins::STORY_KEY,
                            lousa_core::builtins::SECOND_KEY,
                        ] {
                            assert!(!a.text.ends_with(key), "{name}: {}", a.text);
                        }
                    }
                });
            }
        }
    }

    #[test]
    fn a_send_is_numbered_among_its_clients_own() {
        // race-2: whichever client sends first, each one's first send is its try 1.
        let s = builtin("race-2").unwrap();
        for first in [0, 1] {
            let t = turn(&s, &Schedule(vec![first])).unwrap();
            let l = labels(&t, Lang::Pt);
            let other = l
                .iter()
                .find(|l| l.text.starts_with("cliente"))
                .expect("the other send");
            assert!(other.text.contains("(1ª tentativa)"), "{l:?}");
        }
    }

    #[test]
    fn a_route_names_the_try_by_its_sender_not_by_the_send_order() {
        // race-2 with client 2 sending first: its send is attempt 1 in the
        // run, but to the reader it is client 2's first try.
        let s = lousa_core::link::decode("race-2;load_balancer=\"random\"").unwrap();
        let t = turn(&s, &Schedule(vec![1])).unwrap();
        let routes: Vec<String> = labels(&t, Lang::Pt)
            .into_iter()
            .map(|l| l.text)
            .filter(|t| t.starts_with("load balancer"))
            .collect();
        assert!(!routes.is_empty(), "a routing choice after one send");
        for r in &routes {
            assert!(r.ends_with("a 1ª tentativa (cliente 2)"), "{routes:?}");
        }
    }

    #[test]
    fn a_schedule_reads_as_its_picks() {
        let s = builtin("race-2").unwrap();
        let steps = taken(&s, &[1, 0], Lang::Pt);
        assert_eq!(steps.len(), 2);
        assert!(
            steps[0].starts_with("cliente 2: envia o pedido"),
            "{steps:?}"
        );
        assert!(
            steps[1].starts_with("cliente 1: envia o pedido"),
            "{steps:?}"
        );
    }

    #[test]
    fn keys_show_only_where_they_differ() {
        let story = "9d2f4c1a-6b3e-4f8a-b7c5-1e0d3a2b4c6f";
        assert_eq!(key_shown(story, &[story, story]), None);
        let other = "3c7e9b20-5d41-4a8f-9e62-7b1f0c4d8a35";
        assert_eq!(key_shown(story, &[story, other]), Some("9d2f4c1a"));
        let twin = "9d2f4c1a-0000-4f8a-b7c5-1e0d3a2b4c6f";
        assert_eq!(key_shown(story, &[story, twin]), Some(story));
    }
}
