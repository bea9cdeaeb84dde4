//! Permalinks: the whole experiment and the view, in the URL fragment.
//!
//! Format: `#v1.` followed by base64url (no padding) of the zlib-compressed JSON of a
//! [`Shared`]. JSON rather than a binary format because the experiment's serde form uses
//! tagged and untagged enums, which only self-describing formats carry; zlib rather than
//! raw deflate for its Adler-32 checksum, so an altered link is caught before parsing;
//! nothing may follow the stream's end, and a stream that stops early is called cut
//! only if what it held so far is the start of valid JSON (a changed character
//! almost never leaves that).
//!
//! Decoding is strict and bounded: the fragment, the compressed bytes and the inflated
//! JSON each have a size limit, unknown fields and keys given twice are refused (naming
//! the field by its path), and the experiment goes through the library's own
//! validation. Every failure is a [`LinkError`] whose message is shown as text (never
//! as HTML) while the default experiment loads.

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
    /// Presenter mode was part of the view in links made before it became the device's
    /// own setting (the page keeps it in local storage): such a link still opens, and
    /// its `"presenter"` is read and dropped, never written.
    #[serde(rename = "presenter", skip_serializing)]
    pub old_presenter: Dropped,
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

/// A field old links carry and this page ignores: any boolean reads as `Dropped`, and
/// every `Dropped` is equal to every other, so it never makes two views differ. `seen`
/// says whether the link had it (the page then writes its link again without it).
#[derive(Clone, Copy, Debug, Default)]
pub struct Dropped {
    pub seen: bool,
}

impl PartialEq for Dropped {
    fn eq(&self, _: &Dropped) -> bool {
        true
    }
}

impl Eq for Dropped {}

impl<'de> Deserialize<'de> for Dropped {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Dropped, D::Error> {
        bool::deserialize(d).map(|_| Dropped { seen: true })
    }
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
    /// The data does not match its checksum, or stops early with bytes no cut leaves:
    /// changed by hand or by a program that rewrote the link.
    Altered,
    /// The data ends and `extra` characters follow it: something was appended to the
    /// link (pasted twice, a word typed after it). `tail` is their start, for the message.
    TrailingData {
        extra: usize,
        tail: String,
    },
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
            LinkError::TrailingData { extra, tail } => {
                let what = if *extra == 1 { "1 character".to_string() } else { format!("{extra} characters") };
                write!(
                    f,
                    "This link has {what} added after its end ({tail:?}): delete them from the address, or copy the link again."
                )
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
/// use schedsim_web::wire::permalink::{decode, encode, Shared, View};
/// let s = Shared { experiment: schedsim::presets::experiment("demo").unwrap(), view: View::default() };
/// let f = encode(&s);
/// assert!(f.starts_with("v1."));
/// assert_eq!(decode(&f).unwrap(), Some(s));
/// ```
///
/// A replay whose programs are larger than `replay::LINK_REPLAY_JSON_MAX`, or
/// whose link would be longer than [`FRAGMENT_LEN_MAX`], goes in its reference form
/// (the trace's name and SHA-256): opening the link asks for the trace file.
pub fn encode(s: &Shared) -> String {
    if crate::model::replay::replay_of(&s.experiment).is_some() {
        if crate::model::replay::link_carries_programs(&s.experiment) {
            let f = encode_whole(s);
            if f.len() <= FRAGMENT_LEN_MAX {
                return f;
            }
        }
        let r = Shared { experiment: crate::model::replay::as_reference(&s.experiment), view: s.view.clone() };
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
    // With the alphabet checked, base64 fails only on a length no encoding has (a cut)
    // or on a last character whose spare bits are set. Those bits carry no data: the
    // bytes before them decide between a cut and a changed character.
    let z = match B64.decode(body) {
        Ok(z) => z,
        Err(base64::DecodeError::InvalidLastSymbol { .. }) => {
            B64_LENIENT.decode(body).map_err(|_| incomplete.clone())?
        }
        // A length no encoding has: a cut, or a whole link with characters after it,
        // which the data's own end tells apart (below).
        Err(base64::DecodeError::InvalidLength(_)) => {
            let whole = B64_LENIENT.decode(&body[..body.len() - body.len() % 4]).ok();
            return Err(whole.and_then(|z| trailing(body, &z)).unwrap_or(incomplete));
        }
        Err(_) => return Err(LinkError::Damaged("its text is not a playground link's encoding".into())),
    };
    let json = match inflate(&z) {
        Ok(Inflated { json, unread: 0 }) => json,
        Ok(Inflated { .. }) => return Err(trailing(body, &z).unwrap_or(LinkError::Altered)),
        Err((status, partial)) => {
            use miniz_oxide::inflate::TINFLStatus as S;
            return Err(match status {
                S::HasMoreOutput => LinkError::Damaged(format!("it inflates past {JSON_LEN_MAX} bytes")),
                S::Adler32Mismatch => LinkError::Altered,
                // The stream stops before its end: cut, if what it holds so far is the
                // start of the JSON a link carries; changed, if it is not.
                S::FailedCannotMakeProgress | S::NeedsMoreInput if is_json_prefix(&partial) => incomplete,
                S::FailedCannotMakeProgress | S::NeedsMoreInput => LinkError::Altered,
                _ => LinkError::Damaged("its data cannot be unpacked".into()),
            });
        }
    };
    let text = std::str::from_utf8(&json).map_err(|_| LinkError::Damaged("its data is not text".into()))?;
    parse_shared(text).map(Some)
}

/// The characters of `body` after the end of the zlib stream its bytes `z` hold, if
/// the stream ends before them: what was appended to a whole link.
fn trailing(body: &str, z: &[u8]) -> Option<LinkError> {
    let Ok(Inflated { unread, .. }) = inflate(z) else { return None };
    // The stream's last byte ends inside the character that holds its last bits.
    let end = ((z.len() - unread) * 8).div_ceil(6);
    let extra = body.len().checked_sub(end).filter(|n| *n > 0)?;
    Some(LinkError::TrailingData { extra, tail: body[end..].chars().take(20).collect() })
}

/// Base64 that ignores the last character's spare bits.
const B64_LENIENT: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    base64::engine::general_purpose::NO_PAD.with_decode_allow_trailing_bits(true),
);

/// A zlib stream's content and how many bytes follow its end.
struct Inflated {
    json: Vec<u8>,
    unread: usize,
}

/// Inflates a zlib stream of at most [`JSON_LEN_MAX`] bytes, checking its Adler-32.
/// Unlike `decompress_to_vec_zlib`, it says how many input bytes follow the stream's
/// end (an appended tail must not pass unnoticed) and, on failure, gives the output
/// so far.
fn inflate(z: &[u8]) -> Result<Inflated, (miniz_oxide::inflate::TINFLStatus, Vec<u8>)> {
    use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
    use miniz_oxide::inflate::TINFLStatus as S;
    let flags = inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER | inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let mut out = vec![0u8; z.len().saturating_mul(4).clamp(1024, JSON_LEN_MAX)];
    let mut r = Box::<DecompressorOxide>::default();
    let (mut input, mut pos) = (z, 0);
    loop {
        let (status, read, written) = decompress(&mut r, input, &mut out, pos, flags);
        pos += written;
        input = input.get(read..).unwrap_or_default();
        match status {
            S::Done => {
                out.truncate(pos);
                return Ok(Inflated { json: out, unread: input.len() });
            }
            S::HasMoreOutput if out.len() < JSON_LEN_MAX => {
                let len = out.len().saturating_mul(2).min(JSON_LEN_MAX);
                out.resize(len, 0);
            }
            other => {
                out.truncate(pos);
                return Err((other, out));
            }
        }
    }
}

/// Whether `bytes` could be the start of a link's JSON: UTF-8 (but for a character cut
/// at the end) that is JSON as far as it goes. A cut link inflates to such a start; a
/// changed one, almost always, to bytes that are not.
fn is_json_prefix(bytes: &[u8]) -> bool {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
        Err(_) => return false,
    };
    match serde_json::from_str::<serde::de::IgnoredAny>(text) {
        // All of it, and only the stream's last bytes missing.
        Ok(_) => true,
        Err(e) => e.is_eof(),
    }
}

/// Parses the JSON of a [`Shared`], naming the bad field (its whole path, as
/// `view.tab` or `experiment.kernels[1].name`), refusing a key given twice in any
/// object (as the library's reader does for every JSON it reads), and validating the
/// experiment with the library's own rules.
pub fn parse_shared(text: &str) -> Result<Shared, LinkError> {
    let shared: Shared = schedsim::input::from_json(text, "a link's data").map_err(LinkError::Invalid)?;
    if let Err(e) = shared.experiment.validate() {
        // A replay in its reference form does not validate until its trace is loaded:
        // kept when everything else in it is valid.
        if !is_valid_reference(&shared.experiment) {
            return Err(LinkError::Invalid(e.to_string()));
        }
    }
    Ok(shared)
}

/// Whether `e` replays a trace in the reference form and is valid but for that:
/// checked by validating a copy that replays one trivial task in its place.
fn is_valid_reference(e: &Experiment) -> bool {
    let Some(r) = crate::model::replay::reference_of(e) else { return false };
    let stand_in = serde_json::json!([{ "name": "stand-in/1", "program": "r1000 x" }]);
    let mut probe = e.clone();
    let mut p = r.clone();
    let Ok(tasks) = serde_json::from_value(stand_in) else { return false };
    p.tasks = tasks;
    probe.workload = schedsim::Workload::Replay(p);
    probe.validate().is_ok()
}

/// Characters of a permalink the script takes: its zlib stream in base64 (the link's
/// encoding, [`encode`]), which compresses the script with the rest.
pub fn link_chars(source: &str) -> usize {
    miniz_oxide::deflate::compress_to_vec_zlib(source.as_bytes(), 9).len().div_ceil(3) * 4
}

/// What the policy-script editor says of the link: the script is in it, and the bounds.
pub fn link_note(source: &str) -> String {
    format!(
        "The script travels in the page's link: about {} of the {} characters a link may have \
         (a script is at most {} bytes; this one has {}).",
        crate::model::fmt::thousands(link_chars(source) as u64),
        crate::model::fmt::thousands(FRAGMENT_LEN_MAX as u64),
        crate::model::fmt::thousands(schedsim::policy::POLICY_SOURCE_MAX as u64),
        crate::model::fmt::thousands(source.len() as u64),
    )
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
        fn round_trips(seed in any::<u64>(), kernel in 0u32..8, clients in any::<u32>(), steps in any::<u64>()) {
            let mut e = schedsim::presets::experiment("demo").unwrap();
            e.seed = seed;
            let view = View { live_kernel: kernel, live_clients: clients, live_steps: steps, ..View::default() };
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
                old_presenter: Dropped::default(),
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
    fn presenter_mode_is_not_in_links_but_old_links_with_it_still_open() {
        let s = demo();
        let json = serde_json::to_string(&s).unwrap();
        assert!(!json.contains("presenter"), "{json}");
        for old in [true, false] {
            let text = json.replace("\"theme\":\"dark\",", &format!("\"theme\":\"dark\",\"presenter\":{old},"));
            assert!(text.contains("\"presenter\""), "{text}");
            let f = format!("v1.{}", B64.encode(miniz_oxide::deflate::compress_to_vec_zlib(text.as_bytes(), 9)));
            let got = decode(&f).unwrap().unwrap();
            assert_eq!(got, s, "an old link with presenter {old}");
            assert!(got.view.old_presenter.seen && !s.view.old_presenter.seen);
            assert!(!serde_json::to_string(&got).unwrap().contains("presenter"), "written again without it");
        }
        // A presenter that is not a boolean is still refused, naming the field.
        let text = json.replace("\"theme\":\"dark\",", "\"theme\":\"dark\",\"presenter\":\"on\",");
        let err = parse_shared(&text).unwrap_err().to_string();
        assert!(err.contains("view.presenter"), "{err}");
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

    /// The link of `json`, as `encode` would write it.
    fn link_of_json(json: &str) -> String {
        format!("v1.{}", B64.encode(miniz_oxide::deflate::compress_to_vec_zlib(json.as_bytes(), 9)))
    }

    #[test]
    fn bytes_after_the_stream_are_refused() {
        let s = demo();
        let z = B64.decode(&encode(&s)[3..]).unwrap();
        for extra in [&b"\0"[..], b"x", b"{\"view\":{}}", &[0u8; 300]] {
            let mut longer = z.clone();
            longer.extend_from_slice(extra);
            let got = decode(&format!("v1.{}", B64.encode(&longer)));
            assert!(matches!(got, Err(LinkError::TrailingData { .. })), "{extra:?}: {got:?}");
        }
    }

    /// Characters typed or pasted after a whole link are named as that, at every
    /// length (some lengths are no base64 encoding's, which alone used to read as a cut).
    #[test]
    fn characters_after_a_whole_link_are_named() {
        let f = encode(&demo());
        for tail in ["A", "Ab", "abc", "abcd", "x_-9Z", "v1.abc"] {
            let got = decode(&format!("{f}{}", tail.replace('.', "")));
            let tail = tail.replace('.', "");
            assert_eq!(got, Err(LinkError::TrailingData { extra: tail.len(), tail: tail.clone() }), "{tail}");
        }
        assert_eq!(
            decode(&format!("{f}xyz")).unwrap_err().to_string(),
            "This link has 3 characters added after its end (\"xyz\"): delete them from the address, or copy the link again."
        );
        assert!(decode(&format!("{f}A")).unwrap_err().to_string().starts_with("This link has 1 character added"));
    }

    // A changed character in the last few (the checksum and the stream's last bits) is
    // an alteration, never "incomplete": the link is all there. Anywhere else, a change
    // that still inflates to the start of valid JSON and stops early cannot be told from
    // a cut of another link; such changes are rare (2 of about 31,000 here).
    #[test]
    fn a_changed_character_near_the_end_is_altered_not_incomplete() {
        let s = demo();
        let f = encode(&s);
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let (mut changes, mut read_as_cut) = (0, Vec::new());
        for i in 3..f.len() {
            for &c in alphabet {
                let mut b = f.clone().into_bytes();
                if b[i] == c {
                    continue;
                }
                b[i] = c;
                changes += 1;
                let g = String::from_utf8(b).unwrap();
                match decode(&g) {
                    // Only the last character's spare bits, which carry no data.
                    Ok(Some(same)) => assert_eq!(same, s, "{i} {}", c as char),
                    Err(LinkError::Incomplete { .. }) => {
                        assert!(i + 12 < f.len(), "character {i} of {} changed to {}: incomplete", f.len(), c as char);
                        read_as_cut.push((i, c as char));
                    }
                    Err(_) => {}
                    Ok(None) => panic!("character {i} changed to {}: no link", c as char),
                }
            }
        }
        // A change in the stream's last deflate block (12 to 20 characters before the
        // end) can leave it wanting input with a valid JSON prefix, which a cut also
        // gives: without the JSON's length in the link the two cannot be told apart.
        // Measured on the demo's link: 46 of 30,870 changes (0.15%); the bound is 0.2%.
        assert!(read_as_cut.len() * 500 <= changes, "{} of {changes}: {read_as_cut:?}", read_as_cut.len());
    }

    #[test]
    fn duplicate_keys_are_refused_and_named() {
        let e = serde_json::to_string(&demo().experiment).unwrap();
        let msg = |json: &str| decode(&link_of_json(json)).unwrap_err().to_string();
        let m = msg(&format!("{{\"experiment\":{e},\"experiment\":{e}}}"));
        assert!(m.contains("field experiment is given twice"), "{m}");
        let m = msg(&format!("{{\"experiment\":{e},\"view\":{{\"tab\":\"live\",\"tab\":\"diff\"}}}}"));
        assert!(m.contains("field view.tab is given twice"), "{m}");
        let twice_seed = e.replacen("{", "{\"seed\":1,", 1);
        let m = msg(&format!("{{\"experiment\":{twice_seed}}}"));
        assert!(m.contains("field experiment.seed is given twice"), "{m}");
        // Inside a list, too: the second kernel's name.
        let mut v = serde_json::to_value(&demo().experiment).unwrap();
        v["kernels"][0]["name"] = "A".into();
        let k = v.to_string().replacen("\"name\":\"A\"", "\"name\":\"A\",\"name\":\"B\"", 1);
        let m = msg(&format!("{{\"experiment\":{k}}}"));
        assert!(m.contains("field experiment.kernels[0].name is given twice"), "{m}");
    }

    #[test]
    fn errors_name_the_sub_field() {
        let e = serde_json::to_string(&demo().experiment).unwrap();
        let msg = |json: &str| decode(&link_of_json(json)).unwrap_err().to_string();
        let m = msg(&format!("{{\"experiment\":{e},\"view\":{{\"tab\":\"nope\"}}}}"));
        assert!(m.contains("field view.tab"), "{m}");
        let m = msg(&format!("{{\"experiment\":{e},\"view\":{{\"live_kernel\":-1}}}}"));
        assert!(m.contains("field view.live_kernel"), "{m}");
        let m = msg(&format!("{{\"experiment\":{e},\"view\":{{\"tabs\":\"live\"}}}}"));
        assert!(m.contains("field view") && m.contains("did you mean `tab`"), "{m}");
        // A syntax error inside the experiment names where it is.
        let broken = e.replacen("\"seed\":", "\"seed\":,", 1);
        let m = msg(&format!("{{\"experiment\":{broken}}}"));
        assert!(m.contains("field experiment.seed"), "{m}");
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
        assert!(decode(&bad("[]")).unwrap_err().to_string().contains("must be a JSON object"));
        assert!(decode(&bad("{\"x\":1,\"experiment\":{}}")).unwrap_err().to_string().contains("unknown field `x`"));
        let mut e = serde_json::to_value(&demo().experiment).unwrap();
        e["iterations"] = 0.into();
        let msg = decode(&bad(&format!("{{\"experiment\":{e}}}"))).unwrap_err().to_string();
        assert!(msg.contains("iterations"), "{msg}");
        // A zip bomb: a megabyte of spaces compresses to a few hundred bytes.
        let bomb = format!("{{\"experiment\":{}{}}}", " ".repeat(1 << 20), "1");
        assert!(decode(&bad(&bomb)).unwrap_err().to_string().contains("inflates past"));
    }

    #[test]
    fn every_template_fits_a_link() {
        use crate::model::policy_editor::STARTER;
        use schedsim::policy::TEMPLATES;
        for t in TEMPLATES {
            assert!(link_chars(t.2) < FRAGMENT_LEN_MAX / 4, "{}", t.0);
        }
        // The largest script there may be fits a link with room for the experiment.
        let worst: String =
            (0..schedsim::policy::POLICY_SOURCE_MAX).map(|i| char::from(b'!' + ((i * 7919) % 90) as u8)).collect();
        assert!(link_chars(&worst) < FRAGMENT_LEN_MAX - 4096, "{}", link_chars(&worst));
        assert!(link_note(STARTER).contains("32,768"), "{}", link_note(STARTER));
    }

    // A replay's links (model::replay's reference form) and a policy script's.
    use crate::model::replay::{as_reference, replay_json_len, with_trace, LINK_REPLAY_JSON_MAX};

    const MAKE: &[u8] = include_bytes!("../../traces/make.perf.txt.gz");
    const DBENCH: &[u8] = include_bytes!("../../traces/dbench.perf.txt.gz");

    fn replay_of_trace(bytes: &[u8], name: &str) -> schedsim::Experiment {
        let t = schedsim::sched_trace::import(bytes, name).expect("a bundled trace imports");
        let demo = schedsim::presets::experiment("demo").expect("the demo preset");
        with_trace(&demo, &t).unwrap().experiment
    }

    #[test]
    fn a_large_replay_goes_into_links_by_reference_and_a_small_one_whole() {
        let make = replay_of_trace(MAKE, "make.perf.txt.gz");
        let dbench = replay_of_trace(DBENCH, "dbench.perf.txt.gz");
        let (m, d) = (replay_json_len(&make), replay_json_len(&dbench));
        assert!(m <= LINK_REPLAY_JSON_MAX && d > LINK_REPLAY_JSON_MAX, "make {m} B, dbench {d} B");
        let view = View::default();
        // make: the whole replay, runnable as opened.
        let s = Shared { experiment: make.clone(), view: view.clone() };
        assert_eq!(decode(&encode(&s)).unwrap(), Some(s));
        // dbench: the reference form, which opens (with its settings) but asks for the file.
        let s = Shared { experiment: dbench.clone(), view };
        let f = encode(&s);
        assert!(f.len() < 2000, "{} characters", f.len());
        let opened = decode(&f).unwrap().unwrap();
        assert_eq!(opened.experiment, as_reference(&dbench));
        let why = opened.experiment.validate().err().map(|e| e.to_string()).unwrap_or_default();
        assert!(why.contains("this experiment replays trace dbench.perf.txt.gz (sha256 "), "{why}");
        assert!(why.ends_with("load that trace file"), "{why}");
    }

    #[test]
    fn a_link_with_another_broken_field_is_refused_even_by_reference() {
        let mut e = as_reference(&replay_of_trace(DBENCH, "dbench.perf.txt.gz"));
        e.iterations = 0;
        let f = encode(&Shared { experiment: e, view: View::default() });
        assert!(matches!(decode(&f), Err(LinkError::Invalid(_))), "{:?}", decode(&f));
    }

    #[test]
    fn a_link_carries_the_script_and_opens_with_it() {
        let mut e = schedsim::presets::experiment("seed001").unwrap();
        e.kernels[1].policy = Some(schedsim::policy::template("seed001-v3.8").unwrap().into());
        let s = Shared { experiment: e, view: Default::default() };
        let f = encode(&s);
        assert_eq!(decode(&f).unwrap(), Some(s));
    }
}
