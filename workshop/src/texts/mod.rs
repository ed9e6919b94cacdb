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
    /// Above the alternatives while the board shows the branch.
    pub branch_choices: &'static str,
    pub take_choice: &'static str,
    pub explore_title: &'static str,
    pub explore_button: &'static str,
    pub cancel: &'static str,
    pub cancelled: &'static str,
    pub exploring: &'static str,
    pub states_word: Plural,
    pub transitions_word: Plural,
    pub per_second: &'static str,
    /// A count cut at the state limit: "stopped at the limit of", the
    /// limit and `states_word`, then why that matters.
    pub state_limit: &'static str,
    pub state_limit_why: &'static str,
    /// After a cut-off exact count: the fast count may still get a verdict.
    pub state_limit_try_fast: &'static str,
    pub complete: &'static str,
    pub schedules_word: Plural,
    pub captures_col: &'static str,
    pub answers_col: &'static str,
    pub schedules_col: &'static str,
    pub shortest_col: &'static str,
    pub no_answer: &'static str,
    /// Beside an outcome's answers when two attempts of one intent got the
    /// same 2xx: otherwise two outcomes can read alike.
    pub replayed: &'static str,
    pub properties_title: &'static str,
    pub always: &'static str,
    pub sometimes: &'static str,
    pub from_here: &'static str,
    pub charge_twice: Plural,
    pub counting_here: &'static str,
    /// A count cut off at the state limit, where a number would stand.
    pub not_counted: &'static str,
    /// The fast count's switch, its sentence, and how its result is named.
    pub por_option: &'static str,
    pub por_hint: &'static str,
    pub por_complete: &'static str,
    pub schedules_not_counted: &'static str,
    pub outcomes_word: Plural,
    pub here_state_limit: &'static str,
    pub from_step_start: &'static str,
    pub worker_failed: &'static str,
    pub worker_stopped: &'static str,
    pub worker_unposted: &'static str,
    pub exports_title: &'static str,
    pub download: &'static str,
    pub copy: &'static str,
    pub copied: &'static str,
    /// Before the name of the export that went to the clipboard.
    pub copied_file: &'static str,
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
    /// Beside "solved" when the board has moved on to a run that no
    /// longer meets the goal: the success text is about the run that did.
    pub lesson_moved_on: &'static str,
    pub lesson_done: &'static str,
    /// After the last challenge, before the first one still unsolved.
    pub lesson_left: &'static str,
    /// Why an edit does not count for its challenge: a fault, more than
    /// the one value (followed by the paths changed), a field outside the
    /// clients or a time (followed by it).
    pub edit_misfit_faults: &'static str,
    pub edit_misfit_one_value: &'static str,
    pub edit_misfit_client: &'static str,
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
    /// Above the exports while the board shows the branch: they take the
    /// branch, fault and all.
    pub exports_with_fault: &'static str,
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
    pub runs_word: Plural,
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
    pub cells_word: Plural,
    pub designs_word: Plural,
    pub seeds_word: Plural,
    pub no_design: &'static str,
    pub the_design: &'static str,
    /// Before the range of runs a sweep may make: the limit is on runs,
    /// whatever the seeds per cell.
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
    /// After an edit that started the run over while it had an injected
    /// fault or choices made.
    pub restarted: &'static str,
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
    /// Before a built-in's name, when the design on the tab was edited
    /// from it: its `about` then says what the original did.
    pub edited_from: &'static str,
    /// Before the original's `about`, after [`DesignWords::edited_from`].
    pub original: &'static str,
    /// The built-in designs' and exercises' `about`, by name, where the
    /// language is not the design files' own (English): see
    /// [`design_about`].
    pub abouts: &'static [(&'static str, &'static str)],
    /// The step menu's kinds (`select`, `capture`, `retake`…) in words, by
    /// the name the design's JSON gives them: see [`menu_word`].
    pub kinds: &'static [(&'static str, &'static str)],
    /// The branch menu's conditions (`no-rows`, `other-request`…) in words.
    pub whens: &'static [(&'static str, &'static str)],
    /// The branch menu's answers (`stored`, `capture`…) in words.
    pub answers: &'static [(&'static str, &'static str)],
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
/// A word after a count, singular for one and plural otherwise (zero
/// takes the plural in both languages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plural(pub &'static str, pub &'static str);

impl Plural {
    /// The form that follows `n`.
    pub fn of(self, n: u128) -> &'static str {
        if n == 1 { self.0 } else { self.1 }
    }
}

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
/// in `lang`. The core words its refusals in a few fixed shapes (the
/// limits of `scenario.rs`, the strict JSON reader's `json.rs`, the
/// sweep's axes and counts, the design check's commonest); those are put
/// in Portuguese, and the field path, the values and the limits stay as
/// they are. A message of another shape keeps its words.
pub fn refusal(text: &str, lang: Lang) -> String {
    if lang == Lang::En {
        return text.to_string();
    }
    // Longer shapes first: a later, shorter one must not split them.
    const SHAPES: &[(&str, &str)] = &[
        // A design's check (lousa_core::design): whole sentences first.
        (
            ", so PostgreSQL refuses this ON CONFLICT (42P10); add it to tables[].unique",
            ", e o PostgreSQL recusa este ON CONFLICT (42P10); inclua-a em tables[].unique",
        ),
        (
            " has no UNIQUE constraint on ",
            " não tem restrição UNIQUE em ",
        ),
        (
            " is never reached from the first step",
            " nunca é alcançado a partir do primeiro passo",
        ),
        (
            "answers with the transaction still open",
            "responde com a transação ainda aberta",
        ),
        (
            "no transaction is open here to end",
            "não há transação aberta aqui para encerrar",
        ),
        (
            "BEGIN inside a transaction already open",
            "BEGIN dentro de uma transação já aberta",
        ),
        (
            " is reached inside a transaction (from ",
            " é alcançado dentro de uma transação (vindo de ",
        ),
        (") and outside one (from ", ") e fora dela (vindo de "),
        (
            "the last step needs a \"next\" (or a branch with \"if\": \"always\"): it would run off the end without responding",
            "o último passo precisa de um \"next\" (ou de um ramo com \"if\": \"always\"): sem isso o handler terminaria sem responder",
        ),
        (
            "a jump back needs \"again\" (how many times at most), so that the loop ends",
            "uma volta precisa de \"again\" (quantas vezes no máximo), para que o laço termine",
        ),
        ("jumps back to ", "volta para "),
        (
            "only a capture's branches ask what the acquirer said",
            "só os ramos de uma captura perguntam o que o adquirente disse",
        ),
        (
            "a capture runs no statement: ask ",
            "uma captura não roda comando: pergunte ",
        ),
        (
            "the statement returns no rows: a select, an insert with \"returning\", an update or a delete does",
            "o comando não devolve linhas: um select, um insert com \"returning\", um update ou um delete devolvem",
        ),
        (
            "this answer reads the row: give it under ",
            "esta resposta lê a linha: ponha-a sob ",
        ),
        ("the row read has no ", "a linha lida não tem a coluna "),
        (
            " is not an HTTP status (100 to 599)",
            " não é um status HTTP (100 a 599)",
        ),
        ("unknown SQLSTATE ", "SQLSTATE desconhecido "),
        ("unknown table ", "tabela desconhecida "),
        (
            " is not among the design's tables",
            " não está entre as tabelas do projeto",
        ),
        (" has no column ", " não tem a coluna "),
        (" (it has: ", " (ela tem: "),
        (" is named twice", " aparece duas vezes"),
        (" already labels steps[", " já é o rótulo de steps["),
        (
            "a design needs at least one step",
            "um projeto precisa de ao menos um passo",
        ),
        (
            "a design names at least one table",
            "um projeto usa ao menos uma tabela",
        ),
        (
            "a select reads at least one column",
            "um select lê ao menos uma coluna",
        ),
        (
            "an update sets at least one column",
            "um update grava ao menos uma coluna",
        ),
        (
            "name the columns of a UNIQUE constraint",
            "nomeie as colunas de uma restrição UNIQUE",
        ),
        (
            " appears twice: each value is a column or a row of its own",
            " aparece duas vezes: cada valor ocupa uma coluna ou uma linha só sua",
        ),
        (" values are outside ", " valores estão fora de "),
        (" is outside ", " está fora de "),
        (" exceeds the limit ", " passa do limite "),
        (" clients exceed the limit ", " clientes passam do limite "),
        (" intents exceed the limit ", " intenções passam do limite "),
        (" faults exceed the limit ", " falhas passam do limite "),
        (
            " characters exceed the limit ",
            " caracteres passam do limite ",
        ),
        (
            " attempts in all (each client's intents x (retries_max + 1)) exceed the limit ",
            " tentativas ao todo (as intenções de cada cliente × (retries_max + 1)) passam do limite ",
        ),
        (" exceed the limit ", " passam do limite "),
        (" runs, outside ", " execuções, fora de "),
        (" run, outside ", " execução, fora de "),
        (" cells x ", " células × "),
        (" cell x ", " célula × "),
        (" designs x ", " estratégias × "),
        (" design x ", " estratégia × "),
        (" seeds = ", " sementes = "),
        (" seed = ", " semente = "),
        (
            "at least one client is needed",
            "é preciso ao menos um cliente",
        ),
        (
            "at least one intent is needed",
            "é preciso ao menos uma intenção",
        ),
        ("must not be empty", "não pode ficar vazio"),
        (
            "holds the control character ",
            "tem o caractere de controle ",
        ),
        (": write it without one", ": escreva sem ele"),
        (
            "missing field (required)",
            "falta este campo, que é obrigatório",
        ),
        ("duplicate field", "campo repetido"),
        ("unknown field ", "campo desconhecido "),
        ("unknown value ", "valor desconhecido "),
        ("(expected one of: ", "(os aceitos: "),
        ("expected a name", "esperava um nome"),
        (
            "expected a whole number of milliseconds",
            "esperava um número inteiro de milissegundos",
        ),
        ("expected a whole number", "esperava um número inteiro"),
        ("expected an integer", "esperava um número inteiro"),
        ("expected an object with a ", "esperava um objeto com "),
        ("expected an object", "esperava um objeto"),
        ("expected a list", "esperava uma lista"),
        ("expected a string", "esperava um texto"),
        ("expected true or false", "esperava true ou false"),
        (" up to ", " até "),
        (", got a string ", ", veio o texto "),
        (", got a list", ", veio uma lista"),
        (", got an object", ", veio um objeto"),
        (", got ", ", veio "),
        ("invalid JSON: ", "JSON inválido: "),
        (
            "EOF while parsing a list",
            "o texto acaba no meio de uma lista",
        ),
        (
            "EOF while parsing an object",
            "o texto acaba no meio de um objeto",
        ),
        (
            "EOF while parsing a string",
            "o texto acaba no meio de um texto entre aspas",
        ),
        (
            "EOF while parsing a value",
            "o texto acaba antes de um valor",
        ),
        ("trailing characters", "há texto depois do fim"),
        ("expected value", "esperava um valor"),
        // serde_json, on a word that is not null, true or false.
        ("expected ident", "esperava null, true ou false"),
        (
            "key must be a string",
            "uma chave precisa ser um texto entre aspas",
        ),
        (" at line ", " na linha "),
        (" column ", " coluna "),
        ("too deeply nested: more than ", "aninhado demais: mais de "),
        (
            " levels of lists and objects",
            " níveis de listas e objetos",
        ),
        ("no step is labelled ", "nenhum passo tem o rótulo "),
        (" is not a JSON value", " não é um valor JSON"),
        (" is not a whole number", " não é um número inteiro"),
        ("the range ", "o intervalo "),
        (" runs backwards", " vai do maior para o menor"),
        (" holds only ", " só tem "),
        (
            " whole numbers, fewer than the ",
            " números inteiros, menos que os ",
        ),
        (" asked", " pedidos"),
        (
            "a range needs a count: from..to:n",
            "um intervalo precisa de uma contagem: de..até:n",
        ),
        (
            "give exactly one of at_ms and at_point",
            "dê um só entre at_ms e at_point",
        ),
        ("..=", " a "),
        ("edit ", "edição "),
        // Last: short pieces the sentences above may hold.
        ("\" (or \"estado\") column", "\" (ou \"estado\")"),
        ("\" column", "\""),
        (" or ", " ou "),
    ];
    let mut out = text.to_string();
    for (en, pt) in SHAPES {
        out = out.replace(en, pt);
    }
    large_numbers_grouped(&out, lang)
}

/// `text` with each number of six digits or more grouped by thousands as
/// `lang` writes them (a limit of 100000 reads 100.000): shorter ones may
/// be codes (SQLSTATE 23505), and a number inside quotes or a name is what
/// somebody typed, so it stays as it is.
fn large_numbers_grouped(text: &str, lang: Lang) -> String {
    let bytes = text.as_bytes();
    let byte = |i: Option<usize>| i.and_then(|i| bytes.get(i)).copied();
    let digit = |i: Option<usize>| byte(i).is_some_and(|b| b.is_ascii_digit());
    // Part of a name, a quote, a negative or a decimal number.
    let joined = |i: Option<usize>, beyond: Option<usize>| {
        byte(i).is_some_and(|b| {
            b.is_ascii_alphanumeric()
                || b"_\"'-".contains(&b)
                || (b".,".contains(&b) && digit(beyond))
        })
    };
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < text.len() {
        let end = at
            + bytes[at..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
        if end == at {
            let next = text[at..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&text[at..at + next]);
            at += next;
            continue;
        }
        let alone =
            !joined(at.checked_sub(1), at.checked_sub(2)) && !joined(Some(end), Some(end + 1));
        match text[at..end].parse::<u128>() {
            Ok(n) if alone && end - at >= 6 => out.push_str(&count(n, lang)),
            _ => out.push_str(&text[at..end]),
        }
        at = end;
    }
    out
}

/// A link's problems with the core's words in them (a refused edit,
/// design, fork or schedule) put in `lang` by [`refusal`].
pub fn problems_in(problems: &lousa_web::url::Problems, lang: Lang) -> lousa_web::url::Problems {
    use lousa_web::url::Reason;
    let mut out = problems.clone();
    for p in &mut out.list {
        if let Reason::EditsRefused(words)
        | Reason::ScheduleUnreadable(words)
        | Reason::ForkRefused(words)
        | Reason::DesignRefused(words) = &mut p.reason
        {
            *words = refusal(words, lang);
        }
    }
    out
}

/// What a design is about, in `lang`: a built-in's or an exercise's own
/// sentence in the language's table while the design still says what the
/// file says; otherwise (English, or a design someone wrote) its own
/// `about`. A built-in edited on the tab but not its `about` says so
/// first: the sentence is the original's, not the draft's.
pub fn design_about(design: &lousa_core::design::Design, lang: Lang) -> String {
    let Some(builtin) = lousa_core::design::builtin::named(&design.name) else {
        return design.about.clone();
    };
    let original = builtin.design();
    if original.about != design.about {
        return design.about.clone();
    }
    let w = &words(lang).design;
    let about = w
        .abouts
        .iter()
        .find(|(name, _)| *name == design.name)
        .map_or(design.about.as_str(), |(_, about)| about);
    if *original == *design {
        about.to_string()
    } else {
        format!(
            "{} “{}”. {} {about}",
            w.edited_from, design.name, w.original
        )
    }
}

/// What a design menu shows for the JSON name `key`: the words `list`
/// gives it, or the name itself when the list lacks it.
pub fn menu_word(list: &'static [(&'static str, &'static str)], key: &'static str) -> &'static str {
    list.iter()
        .find(|(k, _)| *k == key)
        .map_or(key, |(_, said)| said)
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
    fn every_design_menu_entry_has_its_own_words_in_both_languages() {
        use crate::design_edit::{ANSWERS, Kind, WHENS};
        let kinds: Vec<&'static str> = Kind::ALL.iter().map(|k| k.name()).collect();
        for lang in [Lang::Pt, Lang::En] {
            let d = &words(lang).design;
            for (list, keys) in [
                (d.kinds, &kinds[..]),
                (d.whens, &WHENS[..]),
                (d.answers, &ANSWERS[..]),
            ] {
                let said: Vec<&str> = keys.iter().map(|k| menu_word(list, k)).collect();
                // Every key listed, none twice, and no entry for a key the menu lacks.
                assert_eq!(list.len(), keys.len(), "{lang:?}: {said:?}");
                for (k, _) in list {
                    assert!(keys.contains(k), "{lang:?}: {k} is in no menu");
                }
                let distinct: std::collections::BTreeSet<&str> = said.iter().copied().collect();
                assert_eq!(distinct.len(), keys.len(), "{lang:?}: {said:?}");
            }
        }
        // The Portuguese menus say the conditions in Portuguese.
        assert_eq!(
            menu_word(words(Lang::Pt).design.whens, "no-rows"),
            "não veio linha"
        );
        assert_eq!(
            menu_word(words(Lang::Pt).design.whens, "no-such"),
            "no-such"
        );
    }

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
        // The sweep's count, one of each in the singular.
        assert_eq!(
            refusal(
                "seeds: 1 cell x 1 design x 0 seeds = 0 runs, outside 1..=100000",
                Lang::Pt
            ),
            "seeds: 1 célula × 1 estratégia × 0 sementes = 0 execuções, fora de 1 a 100.000"
        );
        // Limits group their thousands; codes, names and what was typed
        // between quotes keep their digits.
        assert_eq!(
            refusal("states: 9000000 exceeds the limit 5000000", Lang::Pt),
            "states: 9.000.000 passa do limite 5.000.000"
        );
        assert_eq!(
            refusal(
                "unknown value \"1234567\" at 23505, race-1234567, seed_1234567, 1.234567, 1234567.",
                Lang::Pt
            ),
            "valor desconhecido \"1234567\" at 23505, race-1234567, seed_1234567, 1.234567, 1.234.567."
        );
        // A file that is no JSON at all, as serde_json words it.
        let word = lousa_core::Scenario::from_json("not json")
            .unwrap_err()
            .to_string();
        assert_eq!(
            refusal(&word, Lang::Pt),
            "scenario: JSON inválido: esperava null, true ou false na linha 1 coluna 2"
        );
    }

    /// What an attendee meets most in the editor, the design's JSON, the
    /// sweep's axes and a link: each of the core's refusals, as the core
    /// words it, reads in Portuguese with no English word left.
    #[test]
    fn the_core_refusals_an_attendee_meets_read_in_portuguese() {
        use lousa_core::Scenario;
        use lousa_core::builtins::builtin;
        use lousa_core::link;
        use serde_json::json;
        let race = builtin("race-2").unwrap();
        let scenario = serde_json::to_value(&race).unwrap();
        let edited = |f: &dyn Fn(&mut serde_json::Value)| {
            let mut v = scenario.clone();
            f(&mut v);
            Scenario::from_json(&v.to_string()).unwrap_err().to_string()
        };
        let edit = |path: &str, value: serde_json::Value| {
            link::edit(&race, &[(path, value)]).unwrap_err().to_string()
        };
        let client = scenario["clients"][0].clone();
        let design = |text: &str| {
            crate::design_tab::read_design(text)
                .and_then(lousa_core::design::check)
                .unwrap_err()
                .to_string()
        };
        let mut goto = serde_json::to_value(
            lousa_core::design::builtin::named("idempotency-key")
                .unwrap()
                .design(),
        )
        .unwrap();
        goto["steps"][0]["on"][0]["goto"] = json!("nowhere");
        // The key design, broken one way at a time.
        let broken = |f: &dyn Fn(&mut serde_json::Value)| {
            let mut d = serde_json::to_value(
                lousa_core::design::builtin::named("idempotency-key")
                    .unwrap()
                    .design(),
            )
            .unwrap();
            f(&mut d);
            d.to_string()
        };
        let mut unnamed = goto.clone();
        unnamed["name"] = json!("");
        let axis = |t: &str| t.parse::<lousa_core::sweep::Axis>().unwrap_err();
        let messages = [
            edit("instances", json!("abc")),
            edit("instances", json!(-1)),
            edit("clients", json!(vec![client.clone(); 9])),
            edit("clients", json!([])),
            edit("clients.0.intents", json!([])),
            edit("db_latency_ms", json!(70_000)),
            edit("clients.0.intents.0.key", json!("a\tb")),
            edit("title.pt", json!("x".repeat(2_001))),
            edit("faults", json!([{"kind": "bogus"}])),
            edit(
                "faults",
                json!([{"kind": "crash", "instance": 0, "at_point": "x", "restart_after_ms": 1}]),
            ),
            edit(
                "faults",
                json!([{"kind": "crash", "instance": 0, "at_ms": 1, "at_point": "after-commit", "restart_after_ms": 1}]),
            ),
            edited(&|v| v["name"] = json!("")),
            edited(&|v| v["extra"] = json!(1)),
            edited(&|v| {
                v.as_object_mut().unwrap().remove("name");
            }),
            edited(&|v| v["clients"][0]["timeout_ms"] = json!("soon")),
            edited(&|v| {
                let mut c = client.clone();
                c["retries_max"] = json!(20);
                v["clients"] = json!(vec![c; 8]);
            }),
            Scenario::from_json("{}").unwrap_err().to_string(),
            Scenario::from_json(r#"{"clients": [1, 2"#)
                .unwrap_err()
                .to_string(),
            Scenario::from_json(&"[".repeat(40))
                .unwrap_err()
                .to_string(),
            design("{"),
            design("null"),
            design(&goto.to_string()),
            design(&unnamed.to_string()),
            design(&broken(&|d| d["tables"][0]["unique"] = json!([]))),
            design(&broken(&|d| d["steps"][0]["on"] = json!([]))),
            design(&broken(&|d| d["tables"][0]["name"] = json!("nope"))),
            design(&broken(&|d| d["steps"] = json!([]))),
            design(&broken(&|d| d["tables"] = json!([]))),
            design(&"x".repeat(70_000)),
            axis("abc=x"),
            axis("instances=4..1:2"),
            axis("instances=-5..10:2"),
            axis("instances=1..4"),
            axis("instances=1..3:8"),
            axis("clients.0.timeout_ms=500,500"),
        ];
        // English words, as whole words: field paths keep theirs.
        let english = [
            "expected", "exceed", "exceeds", "outside", "missing", "unknown", "invalid", "must",
            "least", "runs", "is", "not", "got", "while", "line", "limit", "field", "needs",
            "give", "edit", "nested", "the", "of", "and",
        ];
        for en in messages {
            let pt = refusal(&en, Lang::Pt);
            let words: Vec<&str> = pt
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .collect();
            let left: Vec<&str> = english
                .iter()
                .copied()
                .filter(|w| words.contains(w))
                .collect();
            assert!(left.is_empty(), "{en}\n  → {pt}\n  still English: {left:?}");
        }
        let unique = refusal(
            &design(&broken(&|d| d["tables"][0]["unique"] = json!([]))),
            Lang::Pt,
        );
        assert!(
            unique.ends_with("cobranca não tem restrição UNIQUE em (idempotency_key), e o PostgreSQL recusa este ON CONFLICT (42P10); inclua-a em tables[].unique"),
            "{unique}"
        );
        let unreached = refusal(
            &design(&broken(&|d| d["steps"][0]["on"] = json!([]))),
            Lang::Pt,
        );
        assert!(
            unreached.contains("\" nunca é alcançado a partir do primeiro passo"),
            "{unreached}"
        );
        assert_eq!(
            refusal(&edit("clients", json!([])), Lang::Pt),
            "edição 1, clients: é preciso ao menos um cliente"
        );
    }

    #[test]
    fn a_links_refused_edit_reads_in_portuguese() {
        let (_, problems) = crate::url::parse("?modo=oficina&scenario=race-2;instances=99");
        let line = |lang| lousa_web::text::problem_lines(&problems_in(&problems, lang), lang);
        assert_eq!(line(Lang::Pt).len(), 1);
        assert!(
            line(Lang::Pt)[0].ends_with("edição 1, instances: 99 está fora de 1 a 8"),
            "{:?}",
            line(Lang::Pt)
        );
        assert!(
            line(Lang::En)[0].ends_with("edit 1, instances: 99 is outside 1..=8"),
            "{:?}",
            line(Lang::En)
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
            edited.isolation = Some(lousa_core::store::Isolation::Serializable);
            if edited != d {
                let said = design_about(&edited, Lang::Pt);
                assert_eq!(
                    said,
                    format!("Editado a partir de “{name}”. O original: {pt}")
                );
                let said = design_about(&edited, Lang::En);
                assert_eq!(
                    said,
                    format!("Edited from “{name}”. The original: {}", d.about)
                );
            }
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
