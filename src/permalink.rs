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
}

/// Everything a link carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shared {
    pub experiment: Experiment,
    #[serde(default)]
    pub view: View,
}

/// Why a link could not be opened.
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
    /// Base64, checksum or inflate failed: truncated or altered.
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
                    "the link is {len} characters long, more than the {FRAGMENT_LEN_MAX} a playground link can be"
                )
            }
            LinkError::NotALink => {
                write!(f, "the part after # is not a playground link (they start with v{LINK_VERSION}.)")
            }
            LinkError::FutureVersion { version } => {
                write!(f, "the link was made by a newer playground (format v{version}); this one reads v{LINK_VERSION}")
            }
            LinkError::Damaged(why) => write!(f, "the link is damaged, perhaps cut short when copied ({why})"),
            LinkError::Invalid(why) => write!(f, "the link's experiment is not valid: {why}"),
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
pub fn encode(s: &Shared) -> String {
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
    let z = B64.decode(body).map_err(|e| LinkError::Damaged(format!("not base64url: {e}")))?;
    let json = miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(&z, JSON_LEN_MAX).map_err(|e| {
        LinkError::Damaged(match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => format!("it inflates past {JSON_LEN_MAX} bytes"),
            miniz_oxide::inflate::TINFLStatus::Adler32Mismatch => "checksum mismatch".into(),
            s => format!("cannot inflate: {s:?}"),
        })
    })?;
    let text = std::str::from_utf8(&json).map_err(|_| LinkError::Damaged("not UTF-8".into()))?;
    parse_shared(text).map(Some)
}

/// Parses the JSON of a [`Shared`], naming the bad field and validating the experiment
/// with the library's own rules.
pub fn parse_shared(text: &str) -> Result<Shared, LinkError> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| LinkError::Invalid(e.to_string()))?;
    let obj = v.as_object().ok_or_else(|| LinkError::Invalid("expected an object".into()))?;
    if let Some(k) = obj.keys().find(|k| *k != "experiment" && *k != "view") {
        return Err(LinkError::Invalid(format!("unknown field {k:?}")));
    }
    let exp_v = obj.get("experiment").ok_or_else(|| LinkError::Invalid("no experiment".into()))?;
    let experiment = Experiment::from_json(&exp_v.to_string()).map_err(|e| LinkError::Invalid(e.to_string()))?;
    let view = match obj.get("view") {
        None => View::default(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| LinkError::Invalid(format!("field view: {e}")))?,
    };
    Ok(Shared { experiment, view })
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
        fn round_trips(seed in any::<u64>(), kernel in 0u32..8, clients in any::<u32>(), presenter in any::<bool>()) {
            let mut e = schedsim::presets::experiment("demo").unwrap();
            e.seed = seed;
            let s = Shared { experiment: e, view: View { live_kernel: kernel, live_clients: clients, presenter, ..View::default() } };
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
            },
        }
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
    fn every_truncation_is_an_error_not_a_panic() {
        let f = encode(&demo());
        for n in 0..f.len() {
            match decode(&f[..n]) {
                Ok(None) => assert_eq!(n, 0),
                Ok(Some(_)) => panic!("truncated at {n} decoded"),
                Err(_) => {}
            }
        }
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
        assert!(matches!(decode("v1.!!!"), Err(LinkError::Damaged(_))));
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
