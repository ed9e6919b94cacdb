//! Every label the page itself shows, in its two languages. Sentences about
//! the simulation (what an event did, what a client knows) come from
//! `lousa_core::narrate` and `lousa_core::view`; this file only holds the
//! words of the page's own furniture.

use crate::url::{Problem, Problems, Reason};
use lousa_core::Strategy;
use lousa_core::choice::Misfit;
use lousa_core::narrate::Lang;

/// The labels of one language. Fields are plain strings so that a missing
/// translation is a compile error, not a blank button.
pub struct Ui {
    pub board_label: &'static str,
    pub step_word: &'static str,
    pub of_word: &'static str,
    pub back: &'static str,
    pub forward: &'static str,
    pub play: &'static str,
    pub pause: &'static str,
    pub speed: &'static str,
    pub scenario: &'static str,
    pub strategy: &'static str,
    pub other_language: &'static str,
    pub help_button: &'static str,
    pub help_keys: [(&'static str, &'static str); 6],
    pub close: &'static str,
    pub start_narration: &'static str,
    /// A step in which nothing the trace records happened: time passed.
    pub quiet_step: &'static str,
    /// A template: the number of events, then of steps (a step may show
    /// several events, or none the table lists).
    pub col_step: &'static str,
    pub col_time: &'static str,
    pub col_who: &'static str,
    pub col_what: &'static str,
    pub sql_none: &'static str,
    pub sql_now: &'static str,
    pub sql_earlier: &'static str,
    pub sql_waited: &'static str,
    pub controls_label: &'static str,
    /// A line of the problem list (`problem_lines`), both pages': "URL
    /// parameter", the parameter, its value, then why, then what stands.
    pub url_param: &'static str,
    pub unknown_param: &'static str,
    pub unknown_challenge: &'static str,
    pub unknown_scenario: &'static str,
    pub unknown_strategy: &'static str,
    pub not_a_number: &'static str,
    pub unknown_language: &'static str,
    pub unknown_lines: &'static str,
    pub too_large: &'static str,
    pub repeated: &'static str,
    pub not_a_switch: &'static str,
    pub unlisted: &'static str,
    pub frame_out_of_range: &'static str,
    pub falling_back: &'static str,
    /// The workshop's link problems that the core words, each before its
    /// words: a schedule that does not fit (and, after a misfit, what the
    /// board shows instead), refused edits, a fork that cannot be made.
    pub schedule_unfit: &'static str,
    pub choices_cut: &'static str,
    pub edits_refused: &'static str,
    pub fork_refused: &'static str,
    pub design_refused: &'static str,
    pub clients: &'static str,
    pub attempts: &'static str,
    pub instances: &'static str,
    pub down: &'static str,
    pub idle: &'static str,
    pub open_transaction: &'static str,
    /// An instance whose pool is full, and the jobs in its queue in their
    /// order ("pool: 0 livres · 3 na fila: #2 #3 #1").
    pub pool_free: &'static str,
    pub pool_queued: &'static str,
    pub connection: &'static str,
    pub waits_for: &'static str,
    pub acquirer: &'static str,
    pub captures: &'static str,
    /// What the acquirer box counts when every charge was an order paid in
    /// the database (`local-effect`), or when both kinds happened.
    pub paid_locally: &'static str,
    pub charges: &'static str,
    pub charged: &'static str,
    /// An account's balance, in a ledger of a run that debits one.
    pub balance: &'static str,
    pub database: &'static str,
    pub table: &'static str,
    pub no_unique: &'static str,
    pub empty_table: &'static str,
    pub uncommitted: &'static str,
    pub locked: &'static str,
    pub columns: [&'static str; 6],
    pub in_flight: &'static str,
    pub message_kinds: [&'static str; 4],
    pub twin_label: &'static str,
    /// Under the two lines' axis: that it keeps order, not durations.
    pub twin_scale: &'static str,
    pub top_line: &'static str,
    pub bottom_line: &'static str,
    pub divergence: &'static str,
    pub no_divergence: &'static str,
    pub cursor_label: &'static str,
    pub heard: &'static str,
    /// `heard` for a line whose messages come from a queue.
    pub queue_heard: &'static str,
    pub heard_none: &'static str,
    pub late: &'static str,
    pub last_answer: &'static str,
    pub shown_on_board: &'static str,
    /// The button that turns the questions on (`crate::quiz`), its title,
    /// and a question's name for a screen reader.
    pub predict: &'static str,
    pub predict_title: &'static str,
    pub question_label: &'static str,
    /// Said by the panic hook (see `show_panics_on_the_page`).
    #[cfg_attr(panic = "immediate-abort", allow(dead_code))]
    pub failure: &'static str,
}

pub const PT: Ui = Ui {
    board_label: "Lousa: o caminho da cobrança neste passo",
    step_word: "passo",
    of_word: "de",
    back: "Passo anterior",
    forward: "Próximo passo",
    play: "Reproduzir",
    pause: "Pausar",
    speed: "Velocidade",
    scenario: "Cenário",
    strategy: "Estratégia",
    other_language: "English",
    help_button: "Atalhos de teclado",
    help_keys: [
        ("← ou J", "volta um passo"),
        ("→ ou K", "avança um passo"),
        ("Espaço", "reproduz ou pausa"),
        ("1–3", "responde à pergunta da lousa"),
        ("?", "abre e fecha esta ajuda"),
        ("Esc", "fecha esta ajuda"),
    ],
    close: "Fechar",
    start_narration: "Início, nada aconteceu ainda.",
    quiet_step: "o tempo passa; nada acontece.",
    col_step: "passo",
    col_time: "tempo",
    col_who: "quem",
    col_what: "o que aconteceu",
    sql_none: "Nenhum comando SQL até aqui.",
    sql_now: "neste passo",
    sql_earlier: "último comando, em",
    sql_waited: "esperou",
    controls_label: "Controles da lousa",
    url_param: "Parâmetro da URL",
    unknown_param: "não é um parâmetro que esta página lê",
    unknown_challenge: "não é um desafio da oficina",
    unknown_scenario: "não é um cenário conhecido",
    unknown_strategy: "não é uma estratégia conhecida",
    not_a_number: "não é um número inteiro válido",
    unknown_language: "não é um idioma da página (pt ou en)",
    unknown_lines: "não diz o que as duas linhas comparam (designs ou pair)",
    too_large: "é grande demais",
    repeated: "aparece de novo; vale o primeiro valor",
    not_a_switch: "não é 1 (ligado) nem 0 (desligado)",
    unlisted: "Outros parâmetros com problema, não listados:",
    frame_out_of_range: "passa do último passo",
    falling_back: "usando o padrão",
    schedule_unfit: "O escalonamento do link não serve para este cenário:",
    choices_cut: "a lousa mostra as escolhas que servem",
    edits_refused: "O cenário do link foi recusado, e vale o cenário pronto:",
    fork_refused: "A falha do link não pôde ser injetada, e a lousa mostra a execução sem ela:",
    design_refused: "O projeto do link foi recusado, e roda o handler da estratégia:",
    clients: "Clientes",
    attempts: "tentativas",
    instances: "Instâncias do serviço",
    down: "fora do ar",
    idle: "livre",
    open_transaction: "transação aberta",
    pool_free: "livres",
    pool_queued: "na fila",
    connection: "conexão em uso",
    waits_for: "espera a linha da instância",
    acquirer: "adquirente",
    captures: "capturas",
    paid_locally: "pagos sem adquirente",
    charges: "cobranças",
    charged: "cobrado",
    balance: "saldo",
    database: "banco",
    table: "tabela",
    no_unique: "sem UNIQUE",
    empty_table: "(vazia)",
    uncommitted: "não confirmada",
    locked: "travada",
    columns: ["id", "chave", "pedido", "valor", "status", "http"],
    in_flight: "Mensagens a caminho",
    message_kinds: ["pedido", "resposta", "captura", "resposta da captura"],
    twin_label: "As duas linhas: a mesma falha em dois desenhos",
    twin_scale: "fora de escala: esperas longas encurtadas (//)",
    top_line: "Linha de cima",
    bottom_line: "Linha de baixo",
    divergence: "aqui os mundos se separam",
    no_divergence: "as duas linhas fazem exatamente o mesmo",
    cursor_label: "Cursor do tempo",
    heard: "o app ouviu",
    queue_heard: "a fila ouviu",
    heard_none: "nada ainda",
    late: "tarde, ignorada",
    last_answer: "ouviu",
    shown_on_board: "na lousa",
    predict: "Perguntar antes",
    predict_title: "Nos passos decisivos, a lousa para e pergunta o que vem a seguir antes de mostrar",
    question_label: "Pergunta da lousa",
    failure: "A lousa parou num erro interno; o texto segue valendo.",
};

pub const EN: Ui = Ui {
    board_label: "Lousa: the path of the charge at this step",
    step_word: "step",
    of_word: "of",
    back: "Previous step",
    forward: "Next step",
    play: "Play",
    pause: "Pause",
    speed: "Speed",
    scenario: "Scenario",
    strategy: "Strategy",
    other_language: "Português",
    help_button: "Keyboard shortcuts",
    help_keys: [
        ("← or J", "one step back"),
        ("→ or K", "one step forward"),
        ("Space", "play or pause"),
        ("1–3", "answer the board's question"),
        ("?", "open or close this help"),
        ("Esc", "close this help"),
    ],
    close: "Close",
    start_narration: "The start: nothing has happened yet.",
    quiet_step: "time passes; nothing happens.",
    col_step: "step",
    col_time: "time",
    col_who: "who",
    col_what: "what happened",
    sql_none: "No SQL statement so far.",
    sql_now: "in this step",
    sql_earlier: "latest statement, at",
    sql_waited: "waited",
    controls_label: "Board controls",
    url_param: "URL parameter",
    unknown_param: "is not a parameter this page reads",
    unknown_challenge: "is not a challenge of the workshop",
    unknown_scenario: "is not a known scenario",
    unknown_strategy: "is not a known strategy",
    not_a_number: "is not a valid whole number",
    unknown_language: "is not a language of the page (pt or en)",
    unknown_lines: "does not say what the two lines compare (designs or pair)",
    too_large: "is too large",
    repeated: "appears again; the first value stands",
    not_a_switch: "is neither 1 (on) nor 0 (off)",
    unlisted: "Other parameters with problems, not listed:",
    frame_out_of_range: "is past the last step",
    falling_back: "using the default",
    schedule_unfit: "The link's schedule does not fit this scenario:",
    choices_cut: "the board shows the choices that fit",
    edits_refused: "The link's scenario was refused, and the built-in stands:",
    fork_refused: "The link's fault could not be injected, and the board shows the run without it:",
    design_refused: "The link's design was refused, and the strategy's own handler runs:",
    clients: "Clients",
    attempts: "attempts",
    instances: "Service instances",
    down: "down",
    idle: "idle",
    open_transaction: "open transaction",
    pool_free: "free",
    pool_queued: "queued",
    connection: "connection in use",
    waits_for: "waits for the row of instance",
    acquirer: "acquirer",
    captures: "captures",
    paid_locally: "paid without the acquirer",
    charges: "charges",
    charged: "charged",
    balance: "balance",
    database: "database",
    table: "table",
    no_unique: "no UNIQUE",
    empty_table: "(empty)",
    uncommitted: "uncommitted",
    locked: "locked",
    columns: ["id", "key", "order", "amount", "status", "http"],
    in_flight: "Messages on the way",
    message_kinds: ["request", "response", "capture", "capture reply"],
    twin_label: "The two lines: one failure under two designs",
    twin_scale: "not to scale: long waits shortened (//)",
    top_line: "Top line",
    bottom_line: "Bottom line",
    divergence: "here the worlds split",
    no_divergence: "the two lines do exactly the same",
    cursor_label: "Time cursor",
    heard: "the app heard",
    queue_heard: "the queue heard",
    heard_none: "nothing yet",
    late: "late, ignored",
    last_answer: "heard",
    shown_on_board: "on the board",
    predict: "Ask first",
    predict_title: "At the decisive steps, the board stops and asks what comes next before it shows it",
    question_label: "The board's question",
    failure: "The board stopped on an internal error; the text still stands.",
};

pub fn ui(lang: Lang) -> &'static Ui {
    match lang {
        Lang::Pt => &PT,
        Lang::En => &EN,
    }
}

/// The lines of a page's problem list (`crate::url`), in `lang`: one a
/// problem, then the count of those not listed. Both pages show these.
pub fn problem_lines(problems: &Problems, lang: Lang) -> Vec<String> {
    let t = ui(lang);
    let mut lines: Vec<String> = problems
        .list
        .iter()
        .map(|p| problem_line(p, lang))
        .collect();
    if problems.unlisted > 0 {
        lines.push(format!("{} {}.", t.unlisted, problems.unlisted));
    }
    lines
}

/// One problem in words: the parameter, its value, why the page could not
/// use it and what stands instead. A refusal in the core's words is said
/// after what it refused, since those words quote the value themselves.
pub fn problem_line(p: &Problem, lang: Lang) -> String {
    let t = ui(lang);
    let why = match &p.reason {
        Reason::ScheduleUnreadable(words) => return format!("{} {words}", t.schedule_unfit),
        Reason::ScheduleMisfit(m) => {
            return format!(
                "{} {}; {}.",
                t.schedule_unfit,
                misfit(m, lang),
                t.choices_cut
            );
        }
        Reason::EditsRefused(words) => return format!("{} {words}", t.edits_refused),
        Reason::ForkRefused(words) => return format!("{} {words}", t.fork_refused),
        Reason::DesignRefused(words) => return format!("{} {words}", t.design_refused),
        Reason::UnknownParameter => t.unknown_param,
        Reason::Repeated => t.repeated,
        Reason::UnknownScenario => t.unknown_scenario,
        Reason::UnknownStrategy => t.unknown_strategy,
        Reason::UnknownLanguage => t.unknown_language,
        Reason::UnknownLines => t.unknown_lines,
        Reason::UnknownChallenge => t.unknown_challenge,
        Reason::NotANumber => t.not_a_number,
        Reason::TooLarge => t.too_large,
        Reason::NotASwitch => t.not_a_switch,
        Reason::FrameOutOfRange => t.frame_out_of_range,
    };
    // An unknown parameter is left alone and a repeated one keeps its
    // first value: no default stands in for them.
    let then = match p.reason {
        Reason::UnknownParameter | Reason::Repeated => String::new(),
        _ => format!("; {}", t.falling_back),
    };
    format!("{} “{}”: “{}” {why}{then}.", t.url_param, p.param, p.value)
}

/// Where a link's schedule stopped fitting, naming the position and the
/// limit.
pub fn misfit(m: &Misfit, lang: Lang) -> String {
    match (*m, lang) {
        (
            Misfit::PastAlternatives {
                position,
                choice,
                alternatives,
            },
            Lang::Pt,
        ) => format!(
            "a escolha {} é {choice}, mas esse ponto de escolha só tem as alternativas 0 a {}",
            position + 1,
            alternatives - 1
        ),
        (
            Misfit::PastAlternatives {
                position,
                choice,
                alternatives,
            },
            Lang::En,
        ) => format!(
            "choice {} is {choice}, but that choice point only has alternatives 0 to {}",
            position + 1,
            alternatives - 1
        ),
        (Misfit::TooLong { given, points }, Lang::Pt) => {
            format!("são {given} escolhas, mas esta execução só tem {points} pontos de escolha")
        }
        (Misfit::TooLong { given, points }, Lang::En) => {
            format!("{given} choices, but this run only has {points} choice points")
        }
    }
}

/// A short gloss of each design, shown next to its name. The names
/// themselves stay the same in every language, as in the code and the CLI.
pub fn strategy_gloss(strategy: Strategy, lang: Lang) -> &'static str {
    let (pt, en) = match strategy {
        Strategy::Naive => ("sem proteção", "no protection"),
        Strategy::CheckThenAct => ("consulta, depois grava", "check, then write"),
        Strategy::IdempotencyKey => (
            "chave, UNIQUE e resposta guardada",
            "key, UNIQUE and stored response",
        ),
        Strategy::IdempotencyKeyCatch => {
            ("chave, tratando o erro 23505", "key, catching error 23505")
        }
        Strategy::IdempotencyKeyHeldTx => (
            "chave com a transação aberta",
            "key with the transaction held open",
        ),
        Strategy::IdempotencyKeyLease => ("estados da chave com prazo", "key states with a lease"),
        Strategy::LocalEffect => (
            "efeito local na mesma transação",
            "local effect, same transaction",
        ),
    };
    match lang {
        Lang::Pt => pt,
        Lang::En => en,
    }
}

/// What the page says after a choice: right, the answer and the step that
/// shows it; wrong (`chosen` is what was picked), the choice too.
pub fn verdict(lang: Lang, answer: &str, chosen: Option<&str>, step: usize) -> String {
    match (lang, chosen) {
        (Lang::Pt, None) => format!("Acertou! A resposta é “{answer}”: veja o passo {step}."),
        (Lang::Pt, Some(c)) => {
            format!("Não foi dessa vez: a resposta é “{answer}”, e não “{c}”. Veja o passo {step}.")
        }
        (Lang::En, None) => format!("Right! The answer is “{answer}”: see step {step}."),
        (Lang::En, Some(c)) => {
            format!("Not this time: the answer is “{answer}”, not “{c}”. See step {step}.")
        }
    }
}

/// What the page says after a choice whose answer a later step shows: the
/// choice, then the step.
pub fn noted(lang: Lang, chosen: &str, step: usize) -> String {
    match lang {
        Lang::Pt => format!("Resposta anotada: “{chosen}”. O passo {step} mostra se você acertou."),
        Lang::En => format!("Answer noted: “{chosen}”. Step {step} shows whether you were right."),
    }
}

/// Below a question: how to answer it, with keys 1 to `choices`.
pub fn answer_hint(lang: Lang, choices: usize) -> String {
    match lang {
        Lang::Pt => format!("Escolha com as teclas 1 a {choices}; a lousa revela em seguida."),
        Lang::En => format!("Choose with keys 1 to {choices}; the board reveals it next."),
    }
}

/// The acquirer's alarm when one intent was captured `times` times (two
/// or more): "charged twice" names only the double charge.
pub fn charged_times(lang: Lang, times: u32) -> String {
    match (lang, times) {
        (Lang::Pt, 2) => "COBRANÇA EM DOBRO".into(),
        (Lang::En, 2) => "CHARGED TWICE".into(),
        (Lang::Pt, n) => format!("COBRADO {n} VEZES"),
        (Lang::En, n) => format!("CHARGED {n} TIMES"),
    }
}

/// A built-in's description, `about`, told for a run under `shown` when
/// the scenario was written for `own`: the story it tells is `own`'s.
pub fn told_for(lang: Lang, own: Strategy, shown: Strategy, about: &str) -> String {
    let (own, shown) = (own.name(), shown.name());
    match lang {
        Lang::Pt => format!(
            "Com {own}, o desenho para o qual o cenário foi escrito: {about} Aqui o desenho é {shown}, e o desfecho pode ser outro."
        ),
        Lang::En => format!(
            "Under {own}, the design this scenario was written for: {about} Here it runs under {shown}, which may end otherwise."
        ),
    }
}

/// The event table's summary: how many events in how many steps.
pub fn events_summary(lang: Lang, events: usize, steps: usize) -> String {
    match lang {
        Lang::Pt => format!("Tabela de eventos ({events} eventos em {steps} passos)"),
        Lang::En => format!("Event table ({events} events in {steps} steps)"),
    }
}

/// The value of `<html lang>` for a language.
pub fn html_lang(lang: Lang) -> &'static str {
    match lang {
        Lang::Pt => "pt-BR",
        Lang::En => "en",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_names_the_answer_and_only_a_wrong_one_names_the_choice() {
        assert_eq!(
            verdict(Lang::Pt, "Sim", None, 20),
            "Acertou! A resposta é “Sim”: veja o passo 20."
        );
        let wrong = verdict(Lang::En, "Yes", Some("No"), 20);
        assert!(wrong.contains("“Yes”, not “No”. See step 20."), "{wrong}");
        assert!(!verdict(Lang::En, "Yes", None, 20).contains("not"));
        assert_eq!(
            answer_hint(Lang::Pt, 3),
            "Escolha com as teclas 1 a 3; a lousa revela em seguida."
        );
        assert_eq!(
            events_summary(Lang::En, 31, 40),
            "Event table (31 events in 40 steps)"
        );
        assert!(noted(Lang::Pt, "Não", 12).contains("“Não”. O passo 12 mostra"));
    }

    #[test]
    fn a_misfit_names_the_position_and_the_limit() {
        let m = Misfit::PastAlternatives {
            position: 2,
            choice: 9,
            alternatives: 2,
        };
        assert!(misfit(&m, Lang::Pt).contains("escolha 3 é 9"));
        assert!(misfit(&m, Lang::En).contains("alternatives 0 to 1"));
        let m = Misfit::TooLong {
            given: 40,
            points: 12,
        };
        assert!(misfit(&m, Lang::En).contains("12 choice points"));
    }

    #[test]
    fn every_problem_names_its_parameter_and_value_and_says_what_stands() {
        let mut problems = Problems::default();
        for (param, value, reason) in [
            ("strategy", "magic", Reason::UnknownStrategy),
            ("frame", "4", Reason::Repeated),
            ("zz", "1", Reason::UnknownParameter),
            ("desafio", "nope", Reason::UnknownChallenge),
        ] {
            problems.report(param, value, reason);
        }
        problems.unlisted = 9_992;
        let en = problem_lines(&problems, Lang::En);
        assert_eq!(
            en,
            [
                "URL parameter “strategy”: “magic” is not a known strategy; using the default.",
                "URL parameter “frame”: “4” appears again; the first value stands.",
                "URL parameter “zz”: “1” is not a parameter this page reads.",
                "URL parameter “desafio”: “nope” is not a challenge of the workshop; using the default.",
                "Other parameters with problems, not listed: 9992.",
            ]
        );
        let pt = problem_lines(&problems, Lang::Pt);
        assert_eq!(
            pt[0],
            "Parâmetro da URL “strategy”: “magic” não é uma estratégia conhecida; usando o padrão."
        );
        assert_eq!(pt[4], "Outros parâmetros com problema, não listados: 9992.");
    }

    #[test]
    fn the_core_s_refusals_are_said_after_what_they_refused() {
        let line = |reason| {
            problem_line(
                &Problem {
                    param: "schedule".into(),
                    value: "1-0-9".into(),
                    reason,
                },
                Lang::Pt,
            )
        };
        let misfit = Misfit::PastAlternatives {
            position: 2,
            choice: 9,
            alternatives: 2,
        };
        assert_eq!(
            line(Reason::ScheduleMisfit(misfit)),
            "O escalonamento do link não serve para este cenário: a escolha 3 é 9, mas esse ponto de escolha só tem as alternativas 0 a 1; a lousa mostra as escolhas que servem."
        );
        assert!(
            line(Reason::ForkRefused("fork \"9:x\": not a fault".into()))
                .starts_with("A falha do link não pôde ser injetada")
        );
        assert!(
            line(Reason::EditsRefused("db_latency_ms: -1".into()))
                .ends_with("vale o cenário pronto: db_latency_ms: -1")
        );
    }
}
