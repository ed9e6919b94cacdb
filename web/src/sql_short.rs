//! A statement short enough for the SQL panel above the text, three lines
//! on a 375 px phone. It keeps every clause
//! that decides the story (the table, WHERE and its guards, ON CONFLICT,
//! FOR UPDATE, RETURNING) and drops what a reader skims: the column and
//! value lists of an INSERT, a long SELECT list, the middle of long
//! literals (keys cut as the board cuts them, JSON bodies as `{…}`), and
//! an UPDATE's SET list where it is long or the statement would not fit
//! (the board's row shows what it wrote).
//!
//! The statements are the model's own, in the few shapes `Stmt::to_sql`
//! writes, so a scan that only tells quoted literals from the rest is enough.

use crate::markup::short_key;

/// A SELECT or SET list longer than this is shown as `…`.
const LIST_CHARS: usize = 24;
/// A short form longer than this drops an UPDATE's short SET list too:
/// about three lines of a 375 px phone's panel.
const FITS_CHARS: usize = 96;
/// A literal longer than this is cut: a key, not a status or a scope.
const LITERAL_CHARS: usize = 16;

/// `sql` in its short form (see the module's doc).
pub fn short(sql: &str) -> String {
    let sql = short_literals(sql);
    if sql.starts_with("INSERT ") {
        elide_groups(&sql, 2)
    } else if sql.starts_with("SELECT ") {
        elide_list(&sql, "SELECT ", &[" FROM "], LIST_CHARS)
    } else if sql.starts_with("UPDATE ") {
        let ends = [" WHERE ", " RETURNING "];
        let kept = elide_list(&sql, " SET ", &ends, LIST_CHARS);
        if kept.chars().count() > FITS_CHARS {
            elide_list(&sql, " SET ", &ends, 0)
        } else {
            kept
        }
    } else {
        sql
    }
}

/// `sql` with the list between `start` and the first of `ends` (or the end)
/// shown as `…` when it is longer than `max` characters.
fn elide_list(sql: &str, start: &str, ends: &[&str], max: usize) -> String {
    let Some(from) = top_level(sql, start).map(|at| at + start.len()) else {
        return sql.to_string();
    };
    let rest = &sql[from..];
    let end = ends
        .iter()
        .filter_map(|clause| top_level(rest, clause))
        .min()
        .unwrap_or(rest.len());
    if rest[..end].chars().count() > max {
        format!("{}…{}", &sql[..from], &rest[end..])
    } else {
        sql.to_string()
    }
}

/// Each quoted literal longer than a key's short form cut to it; a JSON
/// body to `{…}`.
fn short_literals(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(open) = rest.find('\'') {
        out.push_str(&rest[..=open]);
        let body = &rest[open + 1..];
        let close = literal_end(body);
        let literal = &body[..close];
        if literal.starts_with('{') && literal.len() > 3 {
            out.push_str("{…}");
        } else if literal.chars().count() > LITERAL_CHARS {
            out.push_str(&short_key(literal));
        } else {
            out.push_str(literal);
        }
        rest = &body[close..];
        if let Some(after) = rest.strip_prefix('\'') {
            out.push('\'');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Where the literal that `body` starts ends: at its closing quote (a
/// doubled quote is one quote inside it), or at the end of the text.
fn literal_end(body: &str) -> usize {
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\'' {
            if bytes.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return i;
        }
        i += 1;
    }
    bytes.len()
}

/// Where `pattern` first occurs in `text` outside quoted literals.
fn top_level(text: &str, pattern: &str) -> Option<usize> {
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        if c == '\'' {
            quoted = !quoted;
        } else if !quoted && text[i..].starts_with(pattern) {
            return Some(i);
        }
    }
    None
}

/// `text` with the insides of its first `count` parenthesised groups
/// (outside literals) replaced by `…`.
fn elide_groups(text: &str, count: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut quoted, mut depth, mut done) = (false, 0, 0);
    for c in text.chars() {
        let eliding = depth > 0 && done < count;
        match c {
            '\'' => quoted = !quoted,
            '(' if !quoted => {
                depth += 1;
                if depth == 1 && done < count {
                    out.push_str("(…");
                    continue;
                }
            }
            ')' if !quoted => {
                depth -= 1;
                if depth == 0 && done < count {
                    done += 1;
                    out.push(')');
                    continue;
                }
            }
            _ => {}
        }
        if !eliding {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use lousa_core::Strategy;
    use lousa_core::builtins::{NAMES, builtin};
    use lousa_core::trace::EventKind;

    #[test]
    fn the_key_insert_keeps_its_conflict_clause_and_drops_its_lists() {
        let sql = "INSERT INTO cobranca (idempotency_key, pedido_id, valor_centavos, status) \
                   VALUES ('9d2f4c1a-6b3e-4f8a-b7c5-1e0d3a2b4c6f-r2', 123, 25000, 'PROCESSANDO') \
                   ON CONFLICT (idempotency_key) DO NOTHING RETURNING id";
        assert_eq!(
            short(sql),
            "INSERT INTO cobranca (…) VALUES (…) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id"
        );
    }

    #[test]
    fn a_select_list_goes_when_long_and_a_key_shows_what_tells_it_apart() {
        assert_eq!(
            short("SELECT id, status FROM cobranca_simples WHERE pedido_id = 123"),
            "SELECT id, status FROM cobranca_simples WHERE pedido_id = 123"
        );
        assert_eq!(
            short(
                "SELECT pedido_id, valor_centavos, status, resposta_http, resposta_corpo::text \
                 FROM cobranca WHERE idempotency_key = '9d2f4c1a-6b3e-4f8a-b7c5-1e0d3a2b4c6f-r3' FOR UPDATE"
            ),
            "SELECT … FROM cobranca WHERE idempotency_key = '9d2f4c…-r3' FOR UPDATE"
        );
    }

    #[test]
    fn an_update_keeps_a_short_assignment_and_every_guard() {
        let sql = "UPDATE chave_idempotencia SET estado = 'completed', expira_em_ms = 86404490, \
                   resposta_http = 201, resposta_corpo = '{\"status\": \"CAPTURADA\", \"cobranca_id\": 1}' \
                   WHERE id = 1 AND estado = 'processing' AND lease_ate_ms = 7085 RETURNING id";
        assert_eq!(
            short(sql),
            "UPDATE chave_idempotencia SET … \
             WHERE id = 1 AND estado = 'processing' AND lease_ate_ms = 7085 RETURNING id"
        );
        assert_eq!(
            short("UPDATE saldo SET versao = versao + 1 WHERE id = 1"),
            "UPDATE saldo SET versao = versao + 1 WHERE id = 1"
        );
        // A short SET list stays while the statement fits, and goes when not.
        assert_eq!(
            short("UPDATE cobranca_simples SET status = 'CAPTURADA' WHERE id = 2"),
            "UPDATE cobranca_simples SET status = 'CAPTURADA' WHERE id = 2"
        );
        assert_eq!(
            short(
                "UPDATE mensagem_processada SET estado = 'completed' WHERE id = 1 \
                 AND estado = 'processing' AND lease_ate_ms = 30025 RETURNING id"
            ),
            "UPDATE mensagem_processada SET … WHERE id = 1 \
             AND estado = 'processing' AND lease_ate_ms = 30025 RETURNING id"
        );
    }

    #[test]
    fn quotes_inside_a_literal_do_not_end_it_or_open_a_group() {
        assert_eq!(
            short("INSERT INTO t (a) VALUES ('it''s (odd), WHERE') ON CONFLICT (a) DO NOTHING"),
            "INSERT INTO t (…) VALUES (…) ON CONFLICT (a) DO NOTHING"
        );
        assert_eq!(short("COMMIT"), "COMMIT");
        assert_eq!(
            short("BEGIN ISOLATION LEVEL READ COMMITTED"),
            "BEGIN ISOLATION LEVEL READ COMMITTED"
        );
    }

    /// The clauses a reader must see, and how often each occurs.
    fn clauses(sql: &str) -> Vec<usize> {
        [
            " WHERE ",
            " AND ",
            " ON CONFLICT (",
            " DO NOTHING",
            " FOR UPDATE",
            " RETURNING ",
        ]
        .iter()
        .map(|c| sql.matches(c).count())
        .collect()
    }

    /// The verb and the table a statement names.
    fn table(sql: &str) -> (&str, Option<&str>) {
        let words: Vec<&str> = sql.split(' ').collect();
        let after = |w: &str| {
            words
                .iter()
                .position(|x| *x == w)
                .and_then(|i| words.get(i + 1).copied())
        };
        let table = match words[0] {
            "INSERT" => after("INTO"),
            "UPDATE" => words.get(1).copied(),
            _ => after("FROM"),
        };
        (words[0], table)
    }

    #[test]
    fn every_statement_of_every_builtin_keeps_its_clauses_in_three_phone_lines() {
        let mut longest = (0, String::new());
        for name in NAMES {
            for strategy in Strategy::ALL {
                let mut scenario = builtin(name).expect("built-in");
                scenario.strategy = strategy;
                let run = lousa_core::run(&scenario).expect("valid");
                for (_, event) in run.events() {
                    let (EventKind::Sql { sql, .. } | EventKind::SqlResumed { sql, .. }) =
                        &event.kind
                    else {
                        continue;
                    };
                    let s = short(sql);
                    assert_eq!(clauses(&s), clauses(sql), "{name} {strategy}: {sql} → {s}");
                    assert_eq!(table(&s), table(sql), "{sql} → {s}");
                    if s.chars().count() > longest.0 {
                        longest = (s.chars().count(), s);
                    }
                }
            }
        }
        // A 375 px phone's panel holds about 42 characters of its monospace
        // font a line (the browser test checks it); the longest full
        // statements take eight.
        assert!(longest.0 <= 3 * 38, "{longest:?}");
    }
}
