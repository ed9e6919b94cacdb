//! Which tables the lousa shows for a scenario's design.

use crate::scenario::{ClientKind, EventDelivery, Scenario, Strategy};

/// The tables a scenario's design writes, as the lousa shows them: the
/// strategy's for HTTP clients, the account and the outbox when its options
/// use them, and a queue consumer's dedupe table when a queue delivers.
pub fn tables_shown(scenario: &Scenario) -> Vec<&str> {
    let kind = |k| scenario.has_client(k);
    let mut tables = if kind(ClientKind::Http) {
        http_tables(scenario)
    } else {
        Vec::new()
    };
    if kind(ClientKind::Queue) {
        match scenario.program().filter(|p| p.serves_queue()) {
            Some(p) => tables.extend(p.tables().iter().map(|t| t.name.as_str())),
            None => tables.push("mensagem_processada"),
        }
    }
    tables
}

fn http_tables(scenario: &Scenario) -> Vec<&str> {
    match scenario.program().filter(|p| !p.serves_queue()) {
        Some(p) => p.tables().iter().map(|t| t.name.as_str()).collect(),
        None => builtin_tables(scenario).to_vec(),
    }
}

fn builtin_tables(scenario: &Scenario) -> &'static [&'static str] {
    const KEY: &str = "chave_idempotencia";
    const ORDER: &str = "pedido_pago";
    if scenario.strategy != Strategy::LocalEffect {
        return tables_of(scenario.strategy);
    }
    match (
        scenario.balance.is_some(),
        scenario.event == EventDelivery::Outbox,
    ) {
        (false, false) => tables_of(scenario.strategy),
        (true, false) if versioned(scenario) => &[KEY, ORDER, "conta_versionada"],
        (true, true) if versioned(scenario) => &[KEY, ORDER, "conta_versionada", "evento_outbox"],
        (true, false) => &[KEY, ORDER, "conta"],
        (false, true) => &[KEY, ORDER, "evento_outbox"],
        (true, true) => &[KEY, ORDER, "conta", "evento_outbox"],
    }
}

/// Whether the scenario debits the account with a version column.
fn versioned(scenario: &Scenario) -> bool {
    scenario.strategy == Strategy::LocalEffect
        && scenario.balance.as_ref().is_some_and(|b| b.version_column)
}

/// The tables a run's store creates: every design's, and the versioned
/// account where the scenario debits it; a design's own tables replace the
/// built-in ones of the same name, with the constraints it gives them, and
/// come after them when they are not among them.
pub fn store_tables(scenario: &Scenario) -> Vec<crate::store::TableDef> {
    let mut tables = crate::store::all_tables();
    if versioned(scenario) {
        tables.push(crate::store::conta_versionada_table());
    }
    if let Some(p) = scenario.program() {
        for own in p.tables() {
            match tables.iter_mut().find(|t| t.name == own.name) {
                Some(t) => *t = own.clone(),
                None => tables.push(own.clone()),
            }
        }
    }
    tables
}

/// The account a run debits, when its scenario has a balance: the one its
/// HTTP design names, or `local-effect`'s.
pub fn account_table(scenario: &Scenario) -> Option<&'static str> {
    let balance = scenario.balance.as_ref()?;
    match scenario.program().filter(|p| !p.serves_queue()) {
        Some(p) => ["conta", "conta_versionada"]
            .into_iter()
            .find(|a| p.account() == Some(*a)),
        None => (scenario.strategy == Strategy::LocalEffect).then(|| balance.table()),
    }
}

/// The tables a strategy writes, as the lousa shows them.
pub fn tables_of(strategy: Strategy) -> &'static [&'static str] {
    match strategy {
        Strategy::Naive | Strategy::CheckThenAct => &["cobranca_simples"],
        Strategy::IdempotencyKeyLease => &["chave_idempotencia"],
        Strategy::LocalEffect => &["chave_idempotencia", "pedido_pago"],
        _ => &["cobranca"],
    }
}
