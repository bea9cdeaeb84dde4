//! Reading what a user types or links: the size cap, a leading byte-order mark, error
//! messages that name the field, suggest the nearest known name and never echo more
//! than a short excerpt of the input.

/// Largest experiment JSON or topology text read: 2 MiB (the page's limit too).
pub const INPUT_BYTES_MAX: usize = 2 * 1024 * 1024;

/// Longest excerpt of the input an error message repeats.
pub const ECHO_CHARS_MAX: usize = 60;

/// Drops a UTF-8 byte-order mark (Windows editors write one).
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Refuses input over [`INPUT_BYTES_MAX`], saying what it is.
pub fn check_size(what: &str, len: usize) -> Result<(), String> {
    if len > INPUT_BYTES_MAX {
        return Err(format!(
            "{what} is {:.1} MB; at most {} MB is read",
            len as f64 / 1_048_576.0,
            INPUT_BYTES_MAX / 1_048_576
        ));
    }
    Ok(())
}

/// `s` cut to [`ECHO_CHARS_MAX`] characters, with "…" when cut.
pub fn clip(s: &str) -> String {
    match s.char_indices().nth(ECHO_CHARS_MAX) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Shortens every quoted span (between backticks or double quotes) of a message to
/// [`ECHO_CHARS_MAX`] characters, so a 100,000-character key is not echoed whole.
pub fn clip_quoted(msg: &str) -> String {
    clip_quoted_by(msg, &['`', '"'])
}

/// [`clip_quoted`] for spans between any of `quotes`.
pub fn clip_quoted_by(msg: &str, quotes: &[char]) -> String {
    let mut out = String::with_capacity(msg.len().min(512));
    let mut rest = msg;
    while let Some(open) = rest.find(quotes) {
        let q = rest[open..].chars().next().unwrap_or('"');
        out.push_str(&rest[..=open]);
        let after = &rest[open + 1..];
        match after.find(q) {
            Some(close) => {
                out.push_str(&clip(&after[..close]));
                out.push(q);
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&clip(after));
                rest = "";
            }
        }
    }
    out.push_str(rest);
    // Anything else long (an unquoted number or path) is cut too.
    if out.chars().count() > 1000 {
        let cut: String = out.chars().take(1000).collect();
        return format!("{cut}…");
    }
    out
}

/// Levenshtein distance, for suggestions (names are short).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The known name nearest to `word`, if it is near enough to be a misspelling.
pub fn nearest<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    if word.chars().count() > 64 {
        return None;
    }
    let w = word.to_ascii_lowercase();
    known
        .iter()
        .map(|k| (edit_distance(&w, &k.to_ascii_lowercase()), *k))
        .filter(|&(d, k)| d <= (k.len() / 3).max(2))
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

/// Adds "did you mean" to serde's "unknown field `x`, expected one of `a`, `b`" and
/// "unknown variant ..." messages.
pub fn suggest(msg: &str) -> String {
    for kind in ["unknown field `", "unknown variant `"] {
        let Some(start) = msg.find(kind) else { continue };
        let rest = &msg[start + kind.len()..];
        let Some(end) = rest.find('`') else { continue };
        let word = &rest[..end];
        let Some(exp) = rest.find("expected ") else { continue };
        let known: Vec<&str> = rest[exp..].split('`').skip(1).step_by(2).collect();
        if let Some(k) = nearest(word, &known) {
            let at = start + kind.len() + end + 1;
            return format!("{} (did you mean `{k}`?){}", &msg[..at], &msg[at..]);
        }
    }
    msg.to_string()
}

/// One line for a serde error at `path` ("." or "" for the top).
pub fn json_error(path: &str, msg: &str) -> String {
    let mut msg = clip_quoted(&suggest(msg));
    // serde_json reads a whole number past u64 as a float: say what was wanted.
    if msg.starts_with("invalid type: floating point") && ["expected u", "expected i"].iter().any(|e| msg.contains(e)) {
        let at = msg.rfind(" at line ").unwrap_or(msg.len());
        msg.insert_str(at, " (a whole number within the field's range)");
    }
    if msg.contains("EOF while parsing") {
        format!("the JSON ends early (truncated?): {msg}")
    } else if path == "." || path.is_empty() {
        msg
    } else {
        // serde_path_to_error ends the path with the unknown key itself: name the
        // object that holds it instead.
        let path = match msg.starts_with("unknown field") {
            true => path.rsplit_once('.').map_or(".", |(head, _)| head),
            false => path,
        };
        if path == "." || path.is_empty() {
            msg
        } else {
            format!("field {}: {msg}", clip(path))
        }
    }
}

/// Deserialises `T` from JSON text with field-path errors: the size cap, an optional
/// byte-order mark, no key given twice in any object, and `what` ("an experiment")
/// must be a JSON object.
pub fn from_json<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T, String> {
    check_size("the JSON", text.len())?;
    let text = strip_bom(text);
    match text.trim_start().chars().next() {
        None => return Err("the JSON ends early (truncated?): the text is empty".into()),
        Some('{') => {}
        Some(c) => {
            let kind = match c {
                '[' => "an array",
                '"' => "a string",
                't' | 'f' => "a boolean",
                'n' => "null",
                '-' | '0'..='9' => "a number",
                _ => "not JSON",
            };
            return Err(format!("{what} must be a JSON object {{...}}, this is {kind}"));
        }
    }
    no_duplicate_keys(text)?;
    let de = &mut serde_json::Deserializer::from_str(text);
    let v: T = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let path = e.path().to_string();
        json_error(&path, &e.into_inner().to_string())
    })?;
    // Only white space may follow the object: a second object, or text pasted after
    // it, would otherwise be ignored without a word.
    de.end().map_err(|e| format!("{what} is one JSON object, but more follows it: {e}"))?;
    Ok(v)
}

/// Walks `text` and fails on the first object with a key given twice, naming it by
/// its path. JSON parsers keep one of the two without a word (serde keeps the last,
/// others the first), so a file or link read twice could mean two experiments.
/// Syntax errors are left to the typed parse, which names their field.
pub fn no_duplicate_keys(text: &str) -> Result<(), String> {
    use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};

    /// One JSON value at `path` ("" at the top).
    struct Walk<'p>(&'p str);

    impl<'de> DeserializeSeed<'de> for Walk<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Walk<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let mut i = 0u64;
            while seq.next_element_seed(Walk(&format!("{}[{i}]", self.0)))?.is_some() {
                i += 1;
            }
            Ok(())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = std::collections::BTreeSet::new();
            while let Some(key) = map.next_key::<String>()? {
                let path = if self.0.is_empty() { key.clone() } else { format!("{}.{key}", self.0) };
                if !seen.insert(key) {
                    return Err(A::Error::custom(format!(
                        "field {} is given twice; give each field once",
                        clip(&path)
                    )));
                }
                map.next_value_seed(Walk(&path))?;
            }
            Ok(())
        }
    }

    let mut de = serde_json::Deserializer::from_str(text);
    match Walk("").deserialize(&mut de) {
        Err(e) if e.is_data() => Err(e.to_string().split(" at line ").next().unwrap_or_default().to_string()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_and_suggests() {
        assert_eq!(clip("abc"), "abc");
        let long = "x".repeat(100_000);
        assert_eq!(clip(&long).chars().count(), ECHO_CHARS_MAX + 1);
        let m = clip_quoted(&format!("unknown field `{long}`, expected `a`"));
        assert!(m.len() < 200, "{m}");
        assert_eq!(
            suggest("unknown field `numa_distances`, expected `nodes` or `numa_distance`"),
            "unknown field `numa_distances` (did you mean `numa_distance`?), expected `nodes` or `numa_distance`"
        );
        assert_eq!(nearest("zzzzzz", &["nodes"]), None);
        assert_eq!(strip_bom("\u{feff}{}"), "{}");
    }
}
