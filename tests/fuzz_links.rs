//! Fuzzing links (`src/wire/permalink.rs`): every built-in experiment's link, with views,
//! spoilt as a user or a program might (a character changed, dropped, doubled or
//! swapped, the link cut or added to), and links whose JSON is spoilt before it is
//! compressed (so their checksum holds): a key doubled or dropped, a value replaced,
//! text added. Each case is opened, or refused with one sentence that says what is
//! wrong (for the JSON, the field). What is accepted must not be wrong: a spoilt link
//! opens only to the very state it was made from (its checksum guards it), and a
//! spoilt JSON only to a state that is valid and survives its own link unchanged.
//! The figures are printed.

#[path = "../crates/schedsim/tests/campaign/mod.rs"]
mod campaign;

use base64::Engine;
use proptest::prelude::*;
use schedsim_web::wire::permalink::{decode, encode, LinkError, Shared, Tab, Theme, View};
use std::time::Duration;

const CASES: u32 = 1500;
const CASE_TIME_MAX: Duration = Duration::from_secs(5);
const B64_URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn states() -> Vec<Shared> {
    let views = [
        View::default(),
        View { tab: Tab::Live, live_steps: 7, ..View::default() },
        View { tab: Tab::Diff, theme: Theme::Dark, ..View::default() },
    ];
    schedsim::presets::presets()
        .into_iter()
        .enumerate()
        .map(|(i, p)| Shared { experiment: p.experiment, view: views[i % views.len()].clone() })
        // Each state as its own link opens it: a replay preset whose programs pass the
        // link's bound travels in its reference form (the trace's name and SHA-256), as
        // with the CLI's bundled traces when the workspace builds the library with them.
        .map(|s| decode(&encode(&s)).expect("a preset's link opens").expect("a preset's link is a link"))
        .collect()
}

type Tally = campaign::Tally;

fn class(e: &LinkError) -> String {
    match e {
        LinkError::TooLong { .. } => "too long".into(),
        LinkError::NotALink => "not a link".into(),
        LinkError::FutureVersion { .. } => "future version".into(),
        LinkError::Incomplete { .. } => "incomplete".into(),
        LinkError::Altered => "altered".into(),
        LinkError::TrailingData { .. } => "trailing data".into(),
        LinkError::BadCharacter { .. } => "bad character".into(),
        LinkError::Damaged(_) => "damaged".into(),
        LinkError::Invalid(m) => {
            let field = m.strip_prefix("field ").map(|r| r.split([':', '[', ' ']).next().unwrap_or("").to_string());
            let top = field.map(|f| f.split('.').take(2).collect::<Vec<_>>().join("."));
            format!(
                "invalid: {}",
                top.unwrap_or_else(|| m.split([':', ',', '(']).next().unwrap_or("").chars().take(40).collect())
            )
        }
    }
}

/// One sentence; an invalid experiment names its field (or the JSON's own problem).
fn check_refusal(e: &LinkError) {
    let msg = e.to_string();
    assert!(!msg.contains('\n') && msg.chars().count() <= 1200, "not one short line: {msg}");
    if let LinkError::Invalid(m) = e {
        let named = m.starts_with("field ") || m.contains("field `") || m.contains("JSON") || m.contains("link's data");
        assert!(named, "a refusal that names no field: {m}");
    }
}

/// (kind, position, pick): one change to a link's text.
fn spoil(link: &str, (kind, pos, pick): (u8, u32, u8)) -> String {
    let mut b = link.as_bytes().to_vec();
    let at = pos as usize % b.len();
    let c = B64_URL[pick as usize % B64_URL.len()];
    match kind % 8 {
        0 => b[at] = if b[at] == c { B64_URL[(pick as usize + 1) % B64_URL.len()] } else { c },
        1 => {
            b.remove(at);
        }
        2 => b.insert(at, c),
        3 => b.truncate(at.max(1)),
        4 => b.extend(std::iter::repeat_n(c, pick as usize % 9 + 1)),
        5 => {
            let j = (at + 1 + pick as usize % 7) % b.len();
            b.swap(at, j);
        }
        6 => b.insert(at, [b' ', b'%', b'#', b'=', b'.', 0xc3][pick as usize % 6]),
        _ => b[at] = b[at].to_ascii_uppercase(),
    }
    String::from_utf8_lossy(&b).into_owned()
}

#[test]
fn spoilt_links_open_to_their_own_state_or_say_why_not() {
    let states = states();
    let links: Vec<String> = states.iter().map(encode).collect();
    let strategy = (0..states.len(), prop::collection::vec((any::<u8>(), any::<u32>(), any::<u8>()), 1..3));
    let t = campaign::campaign("links", CASES, CASE_TIME_MAX, strategy, |(i, spoils), t: &mut Tally| {
        let mut link = links[i].clone();
        for s in spoils {
            link = spoil(&link, s);
        }
        match decode(&link) {
            Ok(Some(got)) => {
                // A link that still opens is its own state, not another (the checksum).
                assert_eq!(got, states[i], "a spoilt link opened to another state: {link}");
                t.accepted += 1;
            }
            Ok(None) => t.refuse("empty"),
            Err(e) => {
                check_refusal(&e);
                t.refuse(class(&e));
            }
        }
    });
    t.report("links", CASES, "");
}

/// A link made the page's way from any JSON text.
fn link_of_json(json: &str) -> String {
    let z = miniz_oxide::deflate::compress_to_vec_zlib(json.as_bytes(), 6);
    format!("v1.{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(z))
}

const VALUES: &[&str] = &[
    "0",
    "-1",
    "4294967296",
    "1e400",
    "1.5",
    "\"\"",
    "\"x\"",
    "null",
    "true",
    "[]",
    "{}",
    "[1,1]",
    "\"v9.9\"",
    "\"live\"",
    "2",
    "7",
    "100",
];

/// (kind, position, pick): one change to a link's JSON text, at a key or a value.
fn spoil_json(json: &str, (kind, pos, pick): (u8, u32, u8)) -> String {
    // The spots: the start of every key (a quote followed by text, a quote and a colon).
    let keys: Vec<(usize, usize)> =
        json.match_indices("\":").filter_map(|(end, _)| json[..end].rfind('"').map(|start| (start, end + 1))).collect();
    if keys.is_empty() {
        return json.to_string();
    }
    let (ks, ke) = keys[pos as usize % keys.len()];
    let key = &json[ks..ke];
    // The value after the key: up to the next comma or closing bracket (for a scalar).
    let vs = ke + 1;
    let ve = json[vs..].find([',', '}', ']']).map_or(json.len(), |n| vs + n);
    let v = VALUES[pick as usize % VALUES.len()];
    match kind % 7 {
        // The key again, with another value: a key given twice.
        0 => format!("{}{key}:{v},{}", &json[..ks], &json[ks..]),
        // The value replaced (a scalar's, or the start of an object's).
        1 if !json[vs..].starts_with(['{', '[']) => format!("{}{v}{}", &json[..vs], &json[ve..]),
        // A key renamed (a typo).
        2 => format!("{}\"{}s\"{}", &json[..ks], &key[1..key.len() - 1], &json[ke..]),
        // Text after the object.
        3 => format!("{json}{v}"),
        // White space after a key (changes nothing).
        4 => format!("{} \n\t{}", &json[..ke + 1], &json[ke + 1..]),
        // A small number for a number (often valid: another seed, duration, count).
        5 if json[vs..].starts_with(|c: char| c.is_ascii_digit()) => {
            format!("{}{}{}", &json[..vs], 1 + pick % 9, &json[ve..])
        }
        // The object cut short.
        _ => json[..(pos as usize % json.len()).max(1)].to_string(),
    }
}

#[test]
fn links_of_spoilt_json_open_valid_or_name_the_field() {
    let states = states();
    let jsons: Vec<String> = states.iter().map(|s| serde_json::to_string(s).unwrap()).collect();
    let strategy = (0..states.len(), prop::collection::vec((any::<u8>(), any::<u32>(), any::<u8>()), 1..3));
    let t = campaign::campaign("links' JSON", CASES, CASE_TIME_MAX, strategy, |(i, spoils), t: &mut Tally| {
        let mut json = jsons[i].clone();
        for s in spoils {
            json = spoil_json(&json, s);
        }
        match decode(&link_of_json(&json)) {
            Ok(Some(got)) => {
                // Valid, and its own link gives it back unchanged.
                // (A replay in its reference form is valid but for its trace, asked for.)
                if let Err(e) = got.experiment.validate() {
                    let reference = schedsim_web::model::replay::reference_of(&got.experiment).is_some();
                    assert!(reference, "accepted but not valid: {e}\n{json}");
                }
                assert_eq!(decode(&encode(&got)).unwrap(), Some(got.clone()), "does not survive its own link");
                t.accepted += 1;
            }
            Ok(None) => unreachable!("a link is never empty"),
            Err(e) => {
                check_refusal(&e);
                t.refuse(class(&e));
            }
        }
    });
    t.report("links' JSON", CASES, "");
}
