//! The design tab's sentences and menu words, in Portuguese and English.
//! The language's own names (`select`, `no-rows`, `23505`) stay as they
//! are: they are what the JSON and the CLI say.

use lousa_core::narrate::Lang;

pub struct Words {
    pub title: &'static str,
    pub intro: &'static str,
    pub start_from: &'static str,
    pub builtins: &'static str,
    pub exercises: &'static str,
    pub name: &'static str,
    pub claims: &'static str,
    pub claims_once: &'static str,
    pub claims_nothing: &'static str,
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
}

const PT: Words = Words {
    title: "Seu projeto de handler",
    intro: "Escreva o handler passo a passo, ou parta de um pronto, e deixe o explorador procurar a ordem de eventos que o quebra.",
    start_from: "Partir de",
    builtins: "prontos",
    exercises: "exercícios",
    name: "Nome",
    claims: "Promete",
    claims_once: "cobrar cada pedido uma vez só",
    claims_nothing: "nada (é o anti-padrão)",
    isolation: "Isolamento",
    isolation_scenario: "o do cenário",
    tables: "Tabelas",
    unique_on: "UNIQUE em",
    unique_table: "as da tabela",
    steps: "Passos",
    label: "rótulo",
    does: "faz",
    table: "tabela",
    by: "onde",
    by_order: "o pedido",
    by_key: "a chave",
    by_id: "a linha inserida",
    columns: "colunas",
    for_update: "FOR UPDATE",
    on_conflict: "ON CONFLICT DO NOTHING em",
    returning: "RETURNING",
    set: "grava",
    when: "se",
    answer: "resposta",
    goes_to: "vai para",
    respond: "responder",
    then: "depois",
    next_step: "o passo de baixo",
    up: "Subir o passo",
    down: "Descer o passo",
    remove: "Remover o passo",
    add_step: "+ passo abaixo",
    add_branch: "+ desvio",
    remove_branch: "Remover o desvio",
    refused: "Recusado:",
    checks: "O projeto confere:",
    run_on_board: "Rodar na lousa",
    check_on: "Conferir em",
    check: "Conferir todas as ordens",
    off: "Voltar à estratégia",
    on_board: "Na lousa, o handler é o projeto",
    download: "Baixar o JSON",
    json: "O projeto em JSON",
    read_json: "Ler este JSON",
    found: "O que o explorador achou",
    exploring: "Explorando todas as ordens…",
    load_example: "Ver na lousa",
    not_claimed: "não prometido",
    not_required: "não exigido neste cenário",
};

const EN: Words = Words {
    title: "Your handler's design",
    intro: "Write the handler step by step, or start from a ready one, and let the explorer look for the order of events that breaks it.",
    start_from: "Start from",
    builtins: "built-in",
    exercises: "exercises",
    name: "Name",
    claims: "Claims",
    claims_once: "to charge each order once",
    claims_nothing: "nothing (it is the anti-pattern)",
    isolation: "Isolation",
    isolation_scenario: "the scenario's",
    tables: "Tables",
    unique_on: "UNIQUE on",
    unique_table: "the table's own",
    steps: "Steps",
    label: "label",
    does: "does",
    table: "table",
    by: "where",
    by_order: "the order",
    by_key: "the key",
    by_id: "the row inserted",
    columns: "columns",
    for_update: "FOR UPDATE",
    on_conflict: "ON CONFLICT DO NOTHING on",
    returning: "RETURNING",
    set: "writes",
    when: "if",
    answer: "answer",
    goes_to: "goes to",
    respond: "respond",
    then: "then",
    next_step: "the step below",
    up: "Move the step up",
    down: "Move the step down",
    remove: "Remove the step",
    add_step: "+ step below",
    add_branch: "+ branch",
    remove_branch: "Remove the branch",
    refused: "Refused:",
    checks: "The design checks:",
    run_on_board: "Run it on the board",
    check_on: "Check on",
    check: "Check every order",
    off: "Back to the strategy",
    on_board: "On the board, the handler is the design",
    download: "Download the JSON",
    json: "The design as JSON",
    read_json: "Read this JSON",
    found: "What the explorer found",
    exploring: "Exploring every order…",
    load_example: "See it on the board",
    not_claimed: "not claimed",
    not_required: "not required in this scenario",
};

pub fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::Pt => &PT,
        Lang::En => &EN,
    }
}

/// "3 passos, 1 transação" in words: how big a design that checks is.
pub fn checks_line(steps: usize, lang: Lang) -> String {
    let w = words(lang);
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
    fn a_design_that_checks_is_counted_in_each_language() {
        assert_eq!(checks_line(1, Lang::Pt), "O projeto confere: 1 passo.");
        assert_eq!(checks_line(4, Lang::En), "The design checks: 4 steps.");
    }
}
