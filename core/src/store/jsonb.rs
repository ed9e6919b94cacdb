//! The text PostgreSQL gives back for a `jsonb` value.
//!
//! jsonb does not keep the text it was given: it parses it, keeps the last
//! value of a duplicated key, orders object keys by length and then by bytes,
//! stores numbers as `numeric`, and prints with `", "` between items and
//! `": "` after keys. A body written `{"cobranca_id":1,"status":"X"}` reads
//! back as `{"status": "X", "cobranca_id": 1}`, so the model stores that form
//! too (found by the conformance suite, case `stored_response_replay`).

/// The canonical text of `input`, or `None` when PostgreSQL would refuse it
/// (`invalid input syntax for type json`, or a `\u0000` escape, which jsonb
/// cannot store).
pub fn canonical(input: &str) -> Option<String> {
    let mut p = Parser {
        s: input.as_bytes(),
        i: 0,
    };
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return None;
    }
    let mut out = String::new();
    write(&v, &mut out);
    Some(out)
}

/// The members of a JSON object, each value in its canonical text, in
/// jsonb's key order (a duplicated key keeps its last value); `None` when
/// `input` is not one well-formed object. What a server reads a request
/// body with before it picks the fields that define the intent.
pub fn object_fields(input: &str) -> Option<Vec<(String, String)>> {
    let mut p = Parser {
        s: input.as_bytes(),
        i: 0,
    };
    let v = p.value()?;
    p.ws();
    let (Json::Object(pairs), true) = (v, p.i == p.s.len()) else {
        return None;
    };
    Some(
        pairs
            .into_iter()
            .map(|(k, v)| {
                let mut text = String::new();
                write(&v, &mut text);
                (k, text)
            })
            .collect(),
    )
}

enum Json {
    Null,
    Bool(bool),
    /// Already in `numeric` output form.
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Option<Json> {
        self.ws();
        match *self.s.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut pairs: Vec<(String, Json)> = Vec::new();
                self.ws();
                if !self.eat(b'}') {
                    loop {
                        self.ws();
                        let k = self.string()?;
                        self.ws();
                        if !self.eat(b':') {
                            return None;
                        }
                        let v = self.value()?;
                        pairs.push((k, v));
                        self.ws();
                        if self.eat(b'}') {
                            break;
                        }
                        if !self.eat(b',') {
                            return None;
                        }
                    }
                }
                // Last value of a duplicated key wins; then length, bytes.
                // Each key goes straight to its place (a binary search in
                // the kept keys, which finds a duplicate too): objects are
                // small, and a sort would add a whole driftsort to the page.
                let mut kept: Vec<(String, Json)> = Vec::new();
                for (k, v) in pairs.into_iter().rev() {
                    let place = kept.binary_search_by(|(kk, _)| {
                        (kk.len(), kk.as_bytes()).cmp(&(k.len(), k.as_bytes()))
                    });
                    if let Err(at) = place {
                        kept.insert(at, (k, v));
                    }
                }
                Some(Json::Object(kept))
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if !self.eat(b']') {
                    loop {
                        items.push(self.value()?);
                        self.ws();
                        if self.eat(b']') {
                            break;
                        }
                        if !self.eat(b',') {
                            return None;
                        }
                    }
                }
                Some(Json::Array(items))
            }
            b'"' => self.string().map(Json::String),
            b't' => self.word("true", Json::Bool(true)),
            b'f' => self.word("false", Json::Bool(false)),
            b'n' => self.word("null", Json::Null),
            _ => self.number().map(Json::Number),
        }
    }

    fn word(&mut self, w: &str, v: Json) -> Option<Json> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Some(v)
        } else {
            None
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let h = self.s.get(self.i..self.i + 4)?;
        self.i += 4;
        u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    }

    fn string(&mut self) -> Option<String> {
        if !self.eat(b'"') {
            return None;
        }
        let mut out = Vec::new();
        loop {
            let b = *self.s.get(self.i)?;
            self.i += 1;
            match b {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let e = *self.s.get(self.i)?;
                    self.i += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                if !(self.eat(b'\\') && self.eat(b'u')) {
                                    return None;
                                }
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return None;
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            // jsonb refuses \u0000 (text cannot hold it).
                            if code == 0 {
                                return None;
                            }
                            char::from_u32(code)?
                        }
                        _ => return None,
                    };
                    let mut buf = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                0..=0x1f => return None,
                _ => out.push(b),
            }
        }
    }

    /// A JSON number, printed as `numeric` prints it: no exponent, as many
    /// decimals as the input had (less the exponent), no negative zero.
    fn number(&mut self) -> Option<String> {
        let digits = |p: &mut Self| {
            let start = p.i;
            while p.i < p.s.len() && p.s[p.i].is_ascii_digit() {
                p.i += 1;
            }
            // ASCII digits, so each byte is its char.
            p.s[start..p.i]
                .iter()
                .map(|&b| char::from(b))
                .collect::<String>()
        };
        let negative = self.eat(b'-');
        let int = digits(self);
        if int.is_empty() || (int.len() > 1 && int.starts_with('0')) {
            return None;
        }
        let frac = if self.eat(b'.') {
            let f = digits(self);
            if f.is_empty() {
                return None;
            }
            f
        } else {
            String::new()
        };
        let exp: i64 = if self.eat(b'e') || self.eat(b'E') {
            let neg = self.eat(b'-');
            if !neg {
                self.eat(b'+');
            }
            let e = digits(self);
            let e: i64 = e.parse().ok()?;
            if neg { -e } else { e }
        } else {
            0
        };
        let all = format!("{int}{frac}");
        let point = int.len() as i64 + exp;
        let (int_part, frac_part) = if point <= 0 {
            (
                "0".to_string(),
                format!("{}{all}", "0".repeat((-point) as usize)),
            )
        } else if point as usize >= all.len() {
            (
                format!("{all}{}", "0".repeat(point as usize - all.len())),
                String::new(),
            )
        } else {
            // `split_off`, not `&all[..point]`: a str slice would bring the
            // char-boundary panic, with its char Debug and Unicode tables,
            // into the page's wasm (`all` is ASCII digits, so it never fires).
            let mut int_part = all;
            let frac_part = int_part.split_off(point as usize);
            (int_part, frac_part)
        };
        let int_part = int_part.trim_start_matches('0');
        let int_part = if int_part.is_empty() { "0" } else { int_part };
        let zero = int_part == "0" && frac_part.bytes().all(|b| b == b'0');
        let sign = if negative && !zero { "-" } else { "" };
        Some(if frac_part.is_empty() {
            format!("{sign}{int_part}")
        } else {
            format!("{sign}{int_part}.{frac_part}")
        })
    }
}

/// PostgreSQL's `escape_json`.
fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write(v: &Json, out: &mut String) {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(n),
        Json::String(s) => write_string(s, out),
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(item, out);
            }
            out.push(']');
        }
        Json::Object(pairs) => {
            out.push('{');
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_string(k, out);
                out.push_str(": ");
                write(v, out);
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::canonical;

    /// Outputs checked against `SELECT '...'::jsonb::text` on PostgreSQL 15.
    #[test]
    fn matches_postgresql_output() {
        let cases = [
            (
                r#"{"cobranca_id":1,"status":"CAPTURADA"}"#,
                r#"{"status": "CAPTURADA", "cobranca_id": 1}"#,
            ),
            (r#"{"b":1,"a":2,"b":3}"#, r#"{"a": 2, "b": 3}"#),
            (
                r#" [1,2 ,{"bb":null,"a":[]}, {}] "#,
                r#"[1, 2, {"a": [], "bb": null}, {}]"#,
            ),
            (r#""x/y\u00e9\n""#, r#""x/yé\n""#),
            (r#"{"k":"\u0001"}"#, r#"{"k": "\u0001"}"#),
            (
                "[1.50, 1e2, 1.5E+1, 1e-2, -0, -0.0, 0.0e0, 12.345e1, -1.5e-3]",
                "[1.50, 100, 15, 0.01, 0, 0.0, 0.0, 123.45, -0.0015]",
            ),
            ("true", "true"),
        ];
        for (input, want) in cases {
            assert_eq!(canonical(input).as_deref(), Some(want), "{input}");
        }
    }

    #[test]
    fn refuses_what_postgresql_refuses() {
        for bad in [
            "",
            "{",
            "{\"a\" 1}",
            "[1,]",
            "01",
            "1.",
            "'x'",
            "{\"a\":1} x",
            r#""\u0000""#,
            "nul",
        ] {
            assert_eq!(canonical(bad), None, "{bad}");
        }
    }
}
