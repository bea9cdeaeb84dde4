//! Permalinks: the whole experiment and the view, in the URL fragment.
//!
//! Format: `#v1.` followed by base64url (no padding) of the zlib-compressed JSON of a
//! [`Shared`]. JSON rather than a binary format because the experiment's serde form uses
//! tagged and untagged enums, which only self-describing formats carry; zlib rather than
//! raw deflate for its Adler-32 checksum, so an altered link is caught before parsing.
//!
//! Decoding is strict and bounded: the fragment, the compressed bytes and the inflated
//! JSON each have a size limit, unknown fields are refused, and the experiment goes
//! through the library's own validation. Every failure is a [`LinkError`] whose message
//! is shown as text (never as HTML) while the default experiment loads.

use base64::Engine;
use schedsim::Experiment;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The version this build writes and reads.
pub const LINK_VERSION: u32 = 1;
/// Longest fragment accepted (after `#`). Real links are well under 4 KiB.
pub const FRAGMENT_LEN_MAX: usize = 32 * 1024;
/// Most bytes the compressed payload may inflate to (a zip bomb stops here).
pub const JSON_LEN_MAX: usize = 256 * 1024;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// Which part of the page is in front.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tab {
    #[default]
    Sweep,
    Live,
    Classroom,
    /// Kernel A's run with kernel B asked at every wakeup: where they differ.
    Diff,
}

/// Colour theme. `Auto` follows the system's preference.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    #[default]
    Auto,
    Light,
    Dark,
}

/// What the viewer sees, besides the experiment.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct View {
    pub tab: Tab,
    pub theme: Theme,
    /// Large type and high contrast, for a projector.
    pub presenter: bool,
    /// Live mode: the kernel stepped (index into `experiment.kernels`).
    pub live_kernel: u32,
    /// Live mode: the client count; 0 means the experiment's first.
    pub live_clients: u32,
    /// Latency chart: which client count (index into `experiment.clients`); the last if
    /// out of range.
    pub latency_point: u32,
    /// Live mode: wakeups stepped so far; opening the link steps that far again (the
    /// simulation is deterministic). Left out of links when 0, so links without it read
    /// the same in playgrounds that predate it.
    #[serde(skip_serializing_if = "is_zero")]
    pub live_steps: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Everything a link carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shared {
    pub experiment: Experiment,
    #[serde(default)]
    pub view: View,
}

/// Why a link could not be opened. Each message is a plain sentence for the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    TooLong {
        len: usize,
    },
    /// Not `vN.` at the start.
    NotALink,
    /// Made by a newer playground.
    FutureVersion {
        version: u32,
    },
    /// The link ends before its data does: cut off when copied, after `len` characters
    /// (of the part after `#`).
    Incomplete {
        len: usize,
    },
    /// The data is all there but its checksum does not match: changed by hand or by a
    /// program that rewrote the link.
    Altered,
    /// A character no playground link has, at a position (1-based, after `#`).
    BadCharacter {
        at: usize,
        ch: char,
    },
    /// Base64 or inflate failed otherwise.
    Damaged(String),
    /// Decoded, but the content is not a valid experiment.
    Invalid(String),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::TooLong { len } => {
                write!(
                    f,
                    "This link is {len} characters long, more than the {FRAGMENT_LEN_MAX} a playground link can be."
                )
            }
            LinkError::NotALink => {
                write!(f, "The part after # is not a playground link (they start with v{LINK_VERSION}.).")
            }
            LinkError::FutureVersion { version } => {
                write!(
                    f,
                    "This link was made by a newer playground (format v{version}); this one reads v{LINK_VERSION}."
                )
            }
            LinkError::Incomplete { len } => {
                write!(f, "This link is incomplete (cut off after {len} characters): copy the whole link again.")
            }
            LinkError::Altered => {
                write!(f, "This link has been changed since it was made: its checksum does not match.")
            }
            LinkError::BadCharacter { at, ch } => write!(
                f,
                "This link is damaged: character {at} after the # is {ch:?}, which no playground link contains."
            ),
            LinkError::Damaged(why) => write!(f, "This link is damaged: {why}."),
            LinkError::Invalid(why) => write!(f, "This link's experiment is not valid: {why}."),
        }
    }
}

/// Encodes `s` as a fragment (without the `#`).
///
/// ```
/// use schedsim_web::permalink::{decode, encode, Shared, View};
/// let s = Shared { experiment: schedsim::presets::experiment("demo").unwrap(), view: View::default() };
/// let f = encode(&s);
/// assert!(f.starts_with("v1."));
/// assert_eq!(decode(&f).unwrap(), Some(s));
/// ```
///
/// A replay whose programs are larger than `replay_view::LINK_REPLAY_JSON_MAX`, or
/// whose link would be longer than [`FRAGMENT_LEN_MAX`], goes in its reference form
/// (the trace's name and SHA-256): opening the link asks for the trace file.
pub fn encode(s: &Shared) -> String {
    if crate::replay_view::replay_of(&s.experiment).is_some() {
        if crate::replay_view::link_carries_programs(&s.experiment) {
            let f = encode_whole(s);
            if f.len() <= FRAGMENT_LEN_MAX {
                return f;
            }
        }
        let r = Shared { experiment: crate::replay_view::as_reference(&s.experiment), view: s.view.clone() };
        return encode_whole(&r);
    }
    encode_whole(s)
}

fn encode_whole(s: &Shared) -> String {
    let json = serde_json::to_vec(s).unwrap_or_default();
    let z = miniz_oxide::deflate::compress_to_vec_zlib(&json, 9);
    format!("v{LINK_VERSION}.{}", B64.encode(z))
}

/// Decodes a fragment (with or without the leading `#`). `Ok(None)`: there is no link.
pub fn decode(fragment: &str) -> Result<Option<Shared>, LinkError> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment).trim();
    if f.is_empty() {
        return Ok(None);
    }
    if f.len() > FRAGMENT_LEN_MAX {
        return Err(LinkError::TooLong { len: f.len() });
    }
    // "v", "v1": the start of a link and nothing more.
    let head = format!("v{LINK_VERSION}.");
    if head.starts_with(f) {
        return Err(LinkError::Incomplete { len: f.chars().count() });
    }
    let (tag, body) = f.split_once('.').ok_or(LinkError::NotALink)?;
    let version: u32 = tag
        .strip_prefix('v')
        .filter(|d| !d.is_empty() && d.len() <= 9 && d.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|d| d.parse().ok())
        .ok_or(LinkError::NotALink)?;
    if version > LINK_VERSION {
        return Err(LinkError::FutureVersion { version });
    }
    if version != LINK_VERSION {
        return Err(LinkError::NotALink);
    }
    let incomplete = LinkError::Incomplete { len: f.chars().count() };
    if let Some((i, ch)) = body.char_indices().find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_')) {
        return Err(LinkError::BadCharacter { at: tag.len() + 1 + body[..i].chars().count() + 1, ch });
    }
    // With the alphabet checked, base64 fails only on a length no encoding has: a cut.
    let z = B64.decode(body).map_err(|e| match e {
        base64::DecodeError::InvalidLength(_) | base64::DecodeError::InvalidLastSymbol { .. } => incomplete.clone(),
        _ => LinkError::Damaged("its text is not a playground link's encoding".into()),
    })?;
    let json = miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(&z, JSON_LEN_MAX).map_err(|e| {
        use miniz_oxide::inflate::TINFLStatus as S;
        match e.status {
            S::HasMoreOutput => LinkError::Damaged(format!("it inflates past {JSON_LEN_MAX} bytes")),
            S::Adler32Mismatch => LinkError::Altered,
            // The stream stops before its end: the data was cut.
            S::FailedCannotMakeProgress | S::NeedsMoreInput => incomplete.clone(),
            _ => LinkError::Damaged("its data cannot be unpacked".into()),
        }
    })?;
    let text = std::str::from_utf8(&json).map_err(|_| LinkError::Damaged("its data is not text".into()))?;
    parse_shared(text).map(Some)
}

/// Parses the JSON of a [`Shared`], naming the bad field and validating the experiment
/// with the library's own rules.
pub fn parse_shared(text: &str) -> Result<Shared, LinkError> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| LinkError::Invalid(e.to_string()))?;
    let obj = v.as_object().ok_or_else(|| LinkError::Invalid("expected an object".into()))?;
    if let Some(k) = obj.keys().find(|k| *k != "experiment" && *k != "view") {
        return Err(LinkError::Invalid(format!("unknown field {:?}", schedsim::input::clip(k))));
    }
    let exp_v = obj.get("experiment").ok_or_else(|| LinkError::Invalid("no experiment".into()))?;
    let experiment = match Experiment::from_json(&exp_v.to_string()) {
        Ok(e) => e,
        Err(e) => reference_experiment(&exp_v.to_string()).ok_or_else(|| LinkError::Invalid(e.to_string()))?,
    };
    let view = match obj.get("view") {
        None => View::default(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| LinkError::Invalid(format!("field view: {e}")))?,
    };
    Ok(Shared { experiment, view })
}

/// A link's experiment whose replay is in the reference form: kept as it is (the page
/// asks for the trace file), when everything else in it is valid — checked by
/// validating a copy that replays one trivial task in its place.
fn reference_experiment(text: &str) -> Option<Experiment> {
    let e = Experiment::parse_json(text).ok()?;
    let r = crate::replay_view::reference_of(&e)?;
    let stand_in = serde_json::json!([{ "name": "stand-in/1", "program": "r1000 x" }]);
    let mut probe = e.clone();
    let mut p = r.clone();
    p.tasks = serde_json::from_value(stand_in).ok()?;
    probe.workload = schedsim::Workload::Replay(p);
    probe.validate().ok()?;
    Some(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // No input panics: arbitrary text, and arbitrary bytes behind a valid prefix.
        #[test]
        fn decode_never_panics(s in ".{0,300}") {
            let _ = decode(&s);
        }

        #[test]
        fn decode_never_panics_on_bytes(b in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = decode(&format!("v1.{}", B64.encode(&b)));
            let z = miniz_oxide::deflate::compress_to_vec_zlib(&b, 6);
            let _ = decode(&format!("v1.{}", B64.encode(z)));
        }

        // Any seed and view survive the round trip exactly.
        #[test]
        fn round_trips(seed in any::<u64>(), kernel in 0u32..8, clients in any::<u32>(), presenter in any::<bool>(), steps in any::<u64>()) {
            let mut e = schedsim::presets::experiment("demo").unwrap();
            e.seed = seed;
            let view = View { live_kernel: kernel, live_clients: clients, presenter, live_steps: steps, ..View::default() };
            let s = Shared { experiment: e, view };
            prop_assert_eq!(decode(&encode(&s)).unwrap(), Some(s));
        }
    }

    fn demo() -> Shared {
        Shared {
            experiment: schedsim::presets::experiment("seed004").unwrap(),
            view: View {
                tab: Tab::Live,
                theme: Theme::Dark,
                presenter: true,
                live_kernel: 1,
                live_clients: 128,
                latency_point: 0,
                live_steps: 4321,
            },
        }
    }

    #[test]
    fn live_steps_are_left_out_at_zero_so_older_playgrounds_read_the_link() {
        let mut s = demo();
        let json = |s: &Shared| serde_json::to_string(&s.view).unwrap();
        assert!(json(&s).contains("\"live_steps\":4321"), "{}", json(&s));
        s.view.live_steps = 0;
        assert!(!json(&s).contains("live_steps"), "{}", json(&s));
        // A link made before the field existed opens at step 0.
        let old =
            r#"{"tab":"live","theme":"dark","presenter":true,"live_kernel":1,"live_clients":128,"latency_point":0}"#;
        assert_eq!(serde_json::from_str::<View>(old).unwrap(), s.view);
    }

    #[test]
    fn round_trip_and_compact() {
        let s = demo();
        let f = encode(&s);
        assert!(f.len() < 1200, "{} chars", f.len());
        assert_eq!(decode(&format!("#{f}")).unwrap(), Some(s));
        assert_eq!(decode("").unwrap(), None);
        assert_eq!(decode("#").unwrap(), None);
    }

    #[test]
    fn every_truncation_says_where_the_link_was_cut() {
        let f = encode(&demo());
        for n in 1..f.len() {
            match decode(&f[..n]) {
                Err(LinkError::Incomplete { len }) => assert_eq!(len, n),
                other => panic!("truncated after {n} of {} characters: {other:?}", f.len()),
            }
        }
        assert_eq!(decode("").unwrap(), None);
        assert_eq!(
            decode(&f[..100]).unwrap_err().to_string(),
            "This link is incomplete (cut off after 100 characters): copy the whole link again."
        );
    }

    #[test]
    fn altered_bytes_are_caught() {
        let f = encode(&demo());
        let mut flipped = 0;
        for i in 3..f.len() {
            let mut b = f.clone().into_bytes();
            b[i] = if b[i] == b'A' { b'B' } else { b'A' };
            let g = String::from_utf8(b).unwrap();
            if decode(&g).is_err() {
                flipped += 1;
            }
        }
        // A change in the last character's spare bits can be harmless; anything else fails.
        assert!(flipped >= f.len() - 5, "{flipped} of {}", f.len() - 3);
    }

    #[test]
    fn messages_name_the_problem() {
        assert_eq!(decode("v2.AAAA"), Err(LinkError::FutureVersion { version: 2 }));
        assert!(decode("v999.x").unwrap_err().to_string().contains("newer playground"));
        assert_eq!(decode("hello"), Err(LinkError::NotALink));
        assert_eq!(decode("v0.AAAA"), Err(LinkError::NotALink));
        assert_eq!(decode("v1.AB!C"), Err(LinkError::BadCharacter { at: 6, ch: '!' }));
        assert!(decode("v1.AB!C").unwrap_err().to_string().contains("character 6 after the # is '!'"));
        assert!(matches!(decode(&"v1.".repeat(20000)), Err(LinkError::TooLong { .. })));
        // A valid zlib stream of bad content.
        let bad =
            |json: &str| format!("v1.{}", B64.encode(miniz_oxide::deflate::compress_to_vec_zlib(json.as_bytes(), 6)));
        assert!(decode(&bad("[]")).unwrap_err().to_string().contains("expected an object"));
        assert!(decode(&bad("{\"experiment\":{},\"x\":1}")).unwrap_err().to_string().contains("unknown field \"x\""));
        let mut e = serde_json::to_value(&demo().experiment).unwrap();
        e["iterations"] = 0.into();
        let msg = decode(&bad(&format!("{{\"experiment\":{e}}}"))).unwrap_err().to_string();
        assert!(msg.contains("iterations"), "{msg}");
        // A zip bomb: a megabyte of spaces compresses to a few hundred bytes.
        let bomb = format!("{{\"experiment\":{}{}}}", " ".repeat(1 << 20), "1");
        assert!(decode(&bad(&bomb)).unwrap_err().to_string().contains("inflates past"));
    }
}
