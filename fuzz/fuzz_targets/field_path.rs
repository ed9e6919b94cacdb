//! The check both decoders' fuzz targets make of a refusal's field path:
//! names, `[indexes]`, and `["quoted keys"]` for keys that are not plain
//! names (a quote or a control character inside is escaped with `\`), with
//! no space outside the quotes.

/// Whether `path` reads as a field path.
pub fn is_field_path(path: &str) -> bool {
    let mut chars = path.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => loop {
                match chars.next() {
                    None => return false,
                    Some('"') => break,
                    Some('\\') => {
                        if chars.next().is_none() {
                            return false;
                        }
                    }
                    Some(_) => {}
                }
            },
            c if c.is_whitespace() => return false,
            _ => {}
        }
    }
    !path.is_empty()
}
