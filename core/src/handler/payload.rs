//! The request body an attempt carries, and the fingerprint the server
//! keeps of it (`impressao`): what decides whether a repeat of a key is the
//! same intent (a replay) or another one (422).

use crate::scenario::{ClientSpec, FingerprintPolicy, Intent};
use crate::store::jsonb;

/// The body of an attempt: the intent's fields, and `client_ts` when the
/// client stamps its requests. A retry of a client that reformats its
/// retries writes the same fields in another order, with extra whitespace.
pub fn request_body(it: &Intent, client: &ClientSpec, retry: bool, sent_ms: u64) -> String {
    let (order, cents, ts) = (
        it.order_id.to_string(),
        it.amount_cents.to_string(),
        sent_ms.to_string(),
    );
    let mut fields = vec![("order_id", &order), ("amount_cents", &cents)];
    if client.client_timestamp {
        fields.push(("client_ts", &ts));
    }
    // The rewritten form: last field first, a space after each colon and
    // two before the last field, spaces inside the braces.
    let rewritten = retry && client.reformat_retries;
    if rewritten {
        fields.reverse();
    }
    let mut body = String::from(if rewritten { "{ " } else { "{" });
    let last = fields.len() - 1;
    for (i, (name, value)) in fields.into_iter().enumerate() {
        if i > 0 {
            body.push_str(if !rewritten {
                ","
            } else if i == last {
                ",  "
            } else {
                ", "
            });
        }
        body.push('"');
        body.push_str(name);
        body.push_str(if rewritten { "\": " } else { "\":" });
        body.push_str(value);
    }
    body.push_str(if rewritten { " }" } else { "}" });
    body
}

/// The fingerprint of `body` under `policy`: the hash of the canonical JSON
/// of the fields the policy keeps (names sorted, no whitespace), or of the
/// bytes themselves. An error names the field that is missing.
pub fn payload_fingerprint(policy: FingerprintPolicy, body: &str) -> Result<String, String> {
    if policy == FingerprintPolicy::RawBody {
        return Ok(hash(body));
    }
    let fields = jsonb::object_fields(body).ok_or("payload: not a JSON object")?;
    let mut names = vec!["amount_cents", "order_id"];
    if policy == FingerprintPolicy::WithClientTimestamp {
        names.insert(1, "client_ts");
    }
    let mut canonical = String::from("{");
    for (i, name) in names.into_iter().enumerate() {
        let Some((_, value)) = fields.iter().find(|(k, _)| k == name) else {
            if name == "client_ts" {
                continue; // a client that sends none has none to hash
            }
            return Err(format!("payload.{name}: missing"));
        };
        if i > 0 {
            canonical.push(',');
        }
        canonical.push('"');
        canonical.push_str(name);
        canonical.push_str("\":");
        canonical.push_str(value);
    }
    canonical.push('}');
    Ok(hash(&canonical))
}

/// The fingerprint of an intent's defining fields: what the canonical
/// policy gives for any body of it.
pub fn intent_fingerprint(order_id: i64, amount_cents: i64) -> String {
    hash(&format!(
        r#"{{"amount_cents":{amount_cents},"order_id":{order_id}}}"#
    ))
}

fn hash(text: &str) -> String {
    format!("{:016x}", crate::text::fnv1a(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use FingerprintPolicy::*;

    fn client(ts: bool, reformat: bool) -> ClientSpec {
        let mut c = crate::builtins::builtin("timeout-retry").unwrap().clients[0].clone();
        c.client_timestamp = ts;
        c.reformat_retries = reformat;
        c
    }

    #[test]
    fn canonical_ignores_whitespace_key_order_and_other_fields() {
        let a = payload_fingerprint(Canonical, r#"{"order_id":123,"amount_cents":25000}"#).unwrap();
        let b = payload_fingerprint(
            Canonical,
            "{ \"amount_cents\" : 25000,\n \"order_id\": 123, \"client_ts\": 99 }",
        )
        .unwrap();
        let c = payload_fingerprint(Canonical, r#"{"order_id":123,"amount_cents":25001}"#).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a, intent_fingerprint(123, 25000), "the simulation agrees");
        assert_eq!(
            payload_fingerprint(Canonical, r#"{"amount_cents":1}"#).unwrap_err(),
            "payload.order_id: missing"
        );
        assert_eq!(
            payload_fingerprint(Canonical, "[1]").unwrap_err(),
            "payload: not a JSON object"
        );
    }

    #[test]
    fn a_retry_keeps_its_canonical_fingerprint_and_changes_the_others() {
        let it = crate::builtins::builtin("timeout-retry").unwrap().clients[0].intents[0].clone();
        let c = client(true, true);
        let first = request_body(&it, &c, false, 0);
        let retry = request_body(&it, &c, true, 2_500);
        assert_ne!(first, retry);
        let fp = |p, b: &str| payload_fingerprint(p, b).unwrap();
        assert_eq!(fp(Canonical, &first), fp(Canonical, &retry));
        assert_ne!(fp(RawBody, &first), fp(RawBody, &retry));
        assert_ne!(
            fp(WithClientTimestamp, &first),
            fp(WithClientTimestamp, &retry)
        );
        // Reformatted only, no timestamp: the timestamp policy sees one intent.
        let c = client(false, true);
        let (a, b) = (
            request_body(&it, &c, false, 0),
            request_body(&it, &c, true, 2_500),
        );
        assert_eq!(fp(WithClientTimestamp, &a), fp(WithClientTimestamp, &b));
        assert_ne!(fp(RawBody, &a), fp(RawBody, &b));
    }
}
