//! Every sentence the workshop view shows that the reader's page does not,
//! in Brazilian Portuguese first and English second.

use lousa_core::choice::ChoiceKind;
use lousa_core::narrate::Lang;

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
}

pub const PT: Words = Words {
    title: "Oficina: você é o escalonador",
    intro: "A cada ponto de escolha a lousa para e mostra as alternativas: qual evento acontece primeiro, para qual instância o load balancer manda o pedido. Escolha até a cobrança sair duas vezes, depois conte todos os escalonamentos possíveis.",
    scenario: "Cenário",
    strategy: "Estratégia",
    other_language: "English",
    reader_page: "Voltar ao texto",
    board_label: "A lousa no ponto de escolha",
    frame_word: "Passo",
    of_word: "de",
    your_turn: "Sua vez: escolha o que acontece agora.",
    run_over: "A execução terminou: não há mais escolhas.",
    choices_label: "Alternativas",
    undo: "Desfazer",
    redo: "Refazer",
    first_come: "Primeiro a chegar até o fim",
    restart: "Recomeçar",
    schedule_word: "Escalonamento",
    no_choices_yet: "nenhuma escolha ainda",
    other_choice: "Ou outro valor, de 0 a",
    rewound: "Você voltou para antes do ponto de escolha: uma escolha aqui muda a execução a partir deste passo, e as escolhas seguintes ficam em Refazer.",
    take_choice: "Escolher",
    explore_title: "Todos os escalonamentos",
    explore_button: "Contar todos",
    cancel: "Cancelar",
    cancelled: "Contagem cancelada.",
    exploring: "Explorando…",
    states_word: "estados",
    transitions_word: "transições",
    per_second: "estados/s",
    state_limit: "A exploração parou no limite de",
    state_limit_why: "nada pode ser afirmado sobre os escalonamentos que faltaram.",
    complete: "Exploração completa",
    schedules_word: "escalonamentos",
    captures_col: "Capturas por intenção",
    answers_col: "Respostas finais",
    schedules_col: "Escalonamentos",
    shortest_col: "O mais curto",
    no_answer: "sem resposta",
    properties_title: "Propriedades",
    always: "sempre",
    sometimes: "às vezes",
    from_here: "daqui",
    charge_twice: "cobram duas vezes",
    counting_here: "contando daqui…",
    not_counted: "não contado",
    por_option: "Contagem rápida: uma ordem só para passos independentes",
    por_hint: "Dois passos que mexem em coisas diferentes (o banco, o adquirente, um cliente, uma instância) chegam ao mesmo lugar em qualquer ordem, e a contagem rápida segue uma delas. Os desfechos, as propriedades e os exemplos mais curtos saem iguais; o número de escalonamentos não é contado.",
    por_complete: " (contagem rápida)",
    schedules_not_counted: "escalonamentos não contados",
    outcomes_word: "desfechos possíveis",
    here_state_limit: "daqui: a contagem de todos parou no limite de estados, então não se conta daqui.",
    from_step_start: "a partir do início deste passo",
    worker_failed: "O explorador não respondeu:",
    exports_title: "Levar para casa",
    download: "Baixar",
    copy: "Copiar",
    copied: "Copiado.",
    copy_failed: "O navegador não deixou copiar; use o download.",
    example_steps: "os passos",
    edited_from: "Editado a partir de",
    lesson_title: "Lição",
    lesson_intro: "Dez desafios, da corrida do primeiro texto à máquina de estados do segundo. Cada um é um link; a página confere o objetivo enquanto você joga e guarda neste navegador o que você já resolveu.",
    lesson_progress: "resolvidos",
    lesson_reset: "Apagar o progresso",
    lesson_challenge: "Desafio",
    lesson_by_picks: "Resolva escolhendo as alternativas do escalonador.",
    lesson_by_edit: "Resolva editando o cenário, sem escolher nada à mão.",
    lesson_by_explore: "Resolva com a contagem de todos os escalonamentos.",
    lesson_hint: "Mostrar uma dica",
    lesson_solved: "Resolvido!",
    lesson_next: "Próximo desafio →",
    lesson_not_shown_yet: "A lousa ainda está parada numa escolha: com as suas, o resto do caminho, primeiro a chegar, já chega lá.",
    lesson_play_out: "Ver o resto do caminho",
    lesson_done: "Lição concluída: você passou por todos os desafios.",
    share_title: "Compartilhar este momento",
    handout_link: "Este momento:",
    handout_then: "(depois, primeiro a chegar até o fim)",
    copy_link: "Copiar link",
    link_copy_failed: "O navegador não deixou copiar; o link está na barra de endereço.",
    show_qr: "Mostrar QR code",
    hide_qr: "Esconder QR code",
    qr_label: "QR code do link deste momento da lousa",
    qr_too_long: "Este link é longo demais para um QR code; copie o link.",
    export_names: [
        "Script psql (dois terminais)",
        "Teste em Rust",
        "Histórico JSON",
        "Diagrama Mermaid",
    ],
    keys_title: "Atalhos",
    keys: [
        ("1–9", "escolhe a alternativa"),
        ("U", "desfaz"),
        ("R", "refaz"),
        ("F", "primeiro a chegar até o fim"),
        ("← →", "passo anterior e seguinte"),
        ("Espaço", "toca ou pausa os passos"),
        ("E", "conta todos os escalonamentos"),
    ],
};

pub const EN: Words = Words {
    title: "Workshop: you are the scheduler",
    intro: "At each choice point the board stops and shows the alternatives: which event happens first, which instance the load balancer sends the request to. Choose until the charge goes through twice, then count every possible schedule.",
    scenario: "Scenario",
    strategy: "Strategy",
    other_language: "Português",
    reader_page: "Back to the article",
    board_label: "The board at the choice point",
    frame_word: "Step",
    of_word: "of",
    your_turn: "Your turn: choose what happens now.",
    run_over: "The run is over: no choices are left.",
    choices_label: "Alternatives",
    undo: "Undo",
    redo: "Redo",
    first_come: "First come, first served to the end",
    restart: "Start over",
    schedule_word: "Schedule",
    no_choices_yet: "no choices yet",
    other_choice: "Or another value, from 0 to",
    rewound: "You stepped back before the choice point: a pick here changes the run from this step on, and the later choices wait under Redo.",
    take_choice: "Pick",
    explore_title: "Every schedule",
    explore_button: "Count them all",
    cancel: "Cancel",
    cancelled: "Count cancelled.",
    exploring: "Exploring…",
    states_word: "states",
    transitions_word: "transitions",
    per_second: "states/s",
    state_limit: "The exploration stopped at the limit of",
    state_limit_why: "nothing can be said about the schedules it did not reach.",
    complete: "Exploration complete",
    schedules_word: "schedules",
    captures_col: "Captures per intent",
    answers_col: "Final answers",
    schedules_col: "Schedules",
    shortest_col: "Shortest",
    no_answer: "no answer",
    properties_title: "Properties",
    always: "always",
    sometimes: "sometimes",
    from_here: "from here",
    charge_twice: "charge twice",
    counting_here: "counting from here…",
    not_counted: "not counted",
    por_option: "Fast count: one order for independent steps",
    por_hint: "Two steps that touch different things (the database, the acquirer, one client, one instance) end in the same place in either order, and the fast count follows one of them. The outcomes, the properties and the shortest examples come out the same; the number of schedules is not counted.",
    por_complete: " (fast count)",
    schedules_not_counted: "schedules not counted",
    outcomes_word: "possible outcomes",
    here_state_limit: "from here: the whole count stopped at the state limit, so none is made from here.",
    from_step_start: "from the start of this step",
    worker_failed: "The explorer did not answer:",
    exports_title: "Take it home",
    download: "Download",
    copy: "Copy",
    copied: "Copied.",
    copy_failed: "The browser would not copy; use the download.",
    example_steps: "the steps",
    edited_from: "Edited from",
    lesson_title: "Lesson",
    lesson_intro: "Ten challenges, from the first post's race to the second post's state machine. Each is a link; the page checks the goal as you play and keeps what you have solved in this browser.",
    lesson_progress: "solved",
    lesson_reset: "Clear the progress",
    lesson_challenge: "Challenge",
    lesson_by_picks: "Solve it by picking the scheduler's alternatives.",
    lesson_by_edit: "Solve it by editing the scenario, without picking anything by hand.",
    lesson_by_explore: "Solve it with the count of every schedule.",
    lesson_hint: "Show a hint",
    lesson_solved: "Solved!",
    lesson_next: "Next challenge →",
    lesson_not_shown_yet: "The board still stands at a choice: after yours, the rest of the way, first come first served, already gets there.",
    lesson_play_out: "Play out the rest",
    lesson_done: "Lesson complete: you went through every challenge.",
    share_title: "Share this moment",
    handout_link: "This moment:",
    handout_then: "(then first come, first served to the end)",
    copy_link: "Copy link",
    link_copy_failed: "The browser would not copy; the link is in the address bar.",
    show_qr: "Show QR code",
    hide_qr: "Hide QR code",
    qr_label: "QR code of the link to this moment on the board",
    qr_too_long: "This link is too long for a QR code; copy the link instead.",
    export_names: [
        "psql script (two terminals)",
        "Rust test",
        "JSON history",
        "Mermaid diagram",
    ],
    keys_title: "Shortcuts",
    keys: [
        ("1–9", "picks the alternative"),
        ("U", "undoes"),
        ("R", "redoes"),
        ("F", "first come, first served to the end"),
        ("← →", "previous and next step"),
        ("Space", "plays or pauses the steps"),
        ("E", "counts every schedule"),
    ],
};

pub fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::Pt => &PT,
        Lang::En => &EN,
    }
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

pub const PRESENTING_PT: Presenting = Presenting {
    enter: "Apresentar",
    enter_title: "A lousa ocupa a tela, em letra grande, e pergunta à sala antes dos passos decisivos",
    leave: "Sair",
    fullscreen: "Tela cheia",
    back: "Passo anterior (P)",
    forward: "Próximo passo (N)",
    hint: "N ou → avança · P ou ← volta · 1–3 responde · B apaga a tela · F tela cheia · Esc sai",
    question_label: "Pergunta à sala",
    blanked: "Tela apagada: qualquer tecla a traz de volta",
};

pub const PRESENTING_EN: Presenting = Presenting {
    enter: "Present",
    enter_title: "The board fills the screen in large type and asks the room before the decisive steps",
    leave: "Leave",
    fullscreen: "Full screen",
    back: "Previous step (P)",
    forward: "Next step (N)",
    hint: "N or → next · P or ← back · 1–3 answers · B blanks the screen · F full screen · Esc leaves",
    question_label: "A question for the room",
    blanked: "Screen blanked: any key brings it back",
};

pub fn presenting(lang: Lang) -> &'static Presenting {
    match lang {
        Lang::Pt => &PRESENTING_PT,
        Lang::En => &PRESENTING_EN,
    }
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
}
