//! Gzip (RFC 1952) read here: the member header is parsed by hand and the deflate
//! stream inflated by `miniz_oxide`, bounded by [`super::TRACE_BYTES_MAX`] so that a
//! small file cannot expand without limit ("zip bomb"). Members are read one after
//! another, as `gunzip` reads them: `cat a.gz b.gz` is the text of a then b (one
//! member was read and the rest dropped when the two trailers agreed).

use miniz_oxide::inflate::core::{decompress, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

/// Why inflating stopped short of the end: the gzip data (a message), or the sink that
/// takes the text (its own error: a cancel, or a text over its bound).
#[derive(Debug)]
pub(super) enum GzStop<E> {
    Bad(String),
    Sink(E),
}

const FHCRC: u8 = 2;
const FEXTRA: u8 = 4;
const FNAME: u8 = 8;
const FCOMMENT: u8 = 16;

/// The offset of the deflate data after a gzip member header (RFC 1952 §2.3).
fn header_len(b: &[u8]) -> Result<usize, String> {
    let short = || "gzip header is cut short".to_string();
    if b.len() < 10 {
        return Err(short());
    }
    if b[2] != 8 {
        return Err(format!("gzip compression method {} is not deflate (8)", b[2]));
    }
    let flg = b[3];
    let mut at = 10usize;
    if flg & FEXTRA != 0 {
        let xlen = b.get(at..at + 2).ok_or_else(short)?;
        at += 2 + u16::from_le_bytes([xlen[0], xlen[1]]) as usize;
    }
    for flag in [FNAME, FCOMMENT] {
        if flg & flag != 0 {
            let rest = b.get(at..).ok_or_else(short)?;
            let nul = rest.iter().position(|&c| c == 0).ok_or_else(short)?;
            at += nul + 1;
        }
    }
    if flg & FHCRC != 0 {
        at += 2;
    }
    if at > b.len() {
        return Err(short());
    }
    Ok(at)
}

/// How far (bytes) a whole file's trailer length may be from what a stream damaged near
/// its end inflates to, for [`whole_file_trailer`]. Gone astray at the changed byte, the
/// decoder reads the rest of the file, trailer included, as codes, at most 258 bytes of
/// text for 2 bits (RFC 1951 §3.2.5); what it gives differs from the whole text by at
/// most that plus the text the rest of the file held, 64 KiB for a change some 60 bytes
/// from the end (the measured ones were within 305 bytes of the end, 305 bytes off).
const TRAILER_SLACK: u64 = 65_536;

/// When a deflate stream wants more input than the file holds, tells a file cut short
/// from a whole one damaged near its end (a changed byte in the last block or its
/// end-of-block code makes the decoder run on into the trailer): a whole file's last 4
/// bytes are ISIZE, the text's length, close to the `inflated` bytes; a cut file's last
/// 4 bytes are compressed data, a length within [`TRAILER_SLACK`] of `inflated` with
/// chance about 2^17 / 2^32 = 3·10^-5. Every one of the 25,971 single-byte changes in
/// the last 300 bytes of seven bundled traces that leave the stream wanting more (all
/// 255 changes of each byte) is told damaged this way, and none of the 30,891 cuts of
/// `make.perf.txt.gz` (one at each byte) is.
fn whole_file_trailer(b: &[u8], inflated: u64) -> Option<u32> {
    let t = b.len().checked_sub(4).map(|at| &b[at..])?;
    let isize = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
    (u64::from(isize).abs_diff(inflated) <= TRAILER_SLACK).then_some(isize)
}

/// The inflater's output window, bytes: a power of two (it wraps) of at least deflate's
/// 32 KiB dictionary. The text goes to the sink a window at most at a time, so inflating
/// holds this much, however long the text.
const WINDOW: usize = 1 << 20;

/// How a member's deflate stream ended.
enum Ended {
    /// At its end-of-stream block, after `took` bytes of the input.
    Done { took: usize },
    /// The input ran out first (a file cut short, or damaged near its end).
    Short,
}

/// Inflates the deflate stream at the start of `input` into `window` (wrapping), giving
/// each piece of text to `sink` with its CRC-32 and length counted; `room` is the text
/// the member may still make.
fn inflate_to<E>(
    input: &[u8],
    room: u64,
    window: &mut [u8],
    made: &mut (crc32fast::Hasher, u64),
    sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
) -> Result<Ended, GzStop<E>> {
    let mut d = Box::<DecompressorOxide>::default();
    let (mut in_pos, mut out_pos) = (0usize, 0usize);
    loop {
        // Without TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF the window wraps; one call
        // writes `window[out_pos..out_pos + gave]`, never past its end.
        let (status, took, gave) = decompress(&mut d, input.get(in_pos..).unwrap_or(&[]), window, out_pos, 0);
        in_pos += took;
        let piece = &window[out_pos..out_pos + gave];
        if made.1 + gave as u64 > room {
            return Err(GzStop::Bad(format!(
                "the text is over {room} bytes after gunzip (TRACE_BYTES_MAX, the bound on a trace's text): cut \
                 the trace shorter (`perf script --time START,END`)"
            )));
        }
        made.0.update(piece);
        made.1 += gave as u64;
        sink(piece).map_err(GzStop::Sink)?;
        out_pos = (out_pos + gave) & (window.len() - 1);
        match status {
            TINFLStatus::Done => return Ok(Ended::Done { took: in_pos }),
            TINFLStatus::HasMoreOutput => {}
            TINFLStatus::FailedCannotMakeProgress => return Ok(Ended::Short),
            s => return Err(GzStop::Bad(format!("gzip data is corrupt (inflate: {s:?})"))),
        }
    }
}

/// Inflates a gzip file, each member in turn, giving its text to `sink` a piece at a
/// time, at most `limit` bytes of it in all. True when the file was cut short (the text
/// so far was given; the summary says so).
pub(super) fn gunzip_to<E>(
    b: &[u8],
    limit: u64,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
) -> Result<bool, GzStop<E>> {
    let mut window = vec![0u8; WINDOW];
    let mut at = 0usize;
    let mut given = 0u64;
    loop {
        let (used, cut, n) = member_to(&b[at..], limit - given, &mut window, sink)?;
        given += n;
        at += used;
        let rest = b.get(at..).unwrap_or(&[]);
        if cut || rest.is_empty() {
            return Ok(cut);
        }
        if !rest.starts_with(&[0x1f, 0x8b]) {
            return Err(GzStop::Bad(format!(
                "{} bytes after the gzip member that are not another member: a damaged file; run `gunzip -t` on it",
                rest.len()
            )));
        }
    }
}

/// One member at the start of `b`: the bytes it took (trailer included), whether it was
/// cut short, and the text it gave.
fn member_to<E>(
    b: &[u8],
    room: u64,
    window: &mut [u8],
    sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
) -> Result<(usize, bool, u64), GzStop<E>> {
    let start = header_len(b).map_err(GzStop::Bad)?;
    let body = b.get(start..).unwrap_or(&[]);
    let mut made = (crc32fast::Hasher::new(), 0u64);
    match inflate_to(body, room, window, &mut made, sink)? {
        Ended::Done { took } => {
            let (crc, len) = (made.0.finalize(), made.1);
            // The member's trailer: CRC-32 and ISIZE, the text's length mod 2^32.
            let end = start + took + 8;
            if let Some(t) = b.get(end - 8..end) {
                let isize = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
                if isize != len as u32 {
                    return Err(GzStop::Bad(format!(
                        "gzip trailer gives {isize} bytes (mod 2^32), the stream gave {len}: the file is corrupt; \
                         run `gunzip -t` on it"
                    )));
                }
                // The CRC-32 of the text: a changed byte in the deflate data most often
                // still inflates, to a text of the same length and other numbers.
                if u32::from_le_bytes([t[0], t[1], t[2], t[3]]) != crc {
                    return Err(GzStop::Bad(
                        "gzip data is corrupt: its CRC-32 does not match the text it inflates to (a changed or \
                         damaged file); run `gunzip -t` on it"
                            .into(),
                    ));
                }
            }
            Ok((end.min(b.len()), false, len))
        }
        Ended::Short => {
            if let Some(isize) = whole_file_trailer(b, made.1) {
                return Err(GzStop::Bad(format!(
                    "gzip data is damaged near its end: the deflate stream runs on past its last block, yet the \
                     file ends in a trailer giving {isize} bytes, about the {} inflated, so it is whole, not cut \
                     short; run `gunzip -t` on it",
                    made.1
                )));
            }
            Ok((b.len(), true, made.1))
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// CRC-32 as gzip computes it (RFC 1952 §8: ISO 3309, reflected polynomial
    /// 0xEDB88320).
    fn crc32(data: &[u8]) -> u32 {
        crc32fast::hash(data)
    }

    /// What inflating gave: the text, and whether the stream ended early.
    #[derive(Debug)]
    struct Gunzipped {
        text: Vec<u8>,
        truncated: bool,
    }

    /// [`gunzip_to`] with the text collected.
    fn gunzip(b: &[u8], limit: usize) -> Result<Gunzipped, String> {
        let mut text = Vec::new();
        let truncated = gunzip_to(b, limit as u64, &mut |piece: &[u8]| -> Result<(), ()> {
            text.extend_from_slice(piece);
            Ok(())
        })
        .map_err(|e| match e {
            GzStop::Bad(m) => m,
            GzStop::Sink(()) => unreachable!("the sink never stops"),
        })?;
        Ok(Gunzipped { text, truncated })
    }

    /// A text several windows long, deflated for real (back-references across the
    /// window's wrap): inflated piece by piece, it is the text, and a cut copy gives a
    /// prefix of it.
    #[test]
    fn a_text_longer_than_the_window_inflates_whole() {
        let mut text = Vec::new();
        let mut k = 0u64;
        while text.len() < 3 * WINDOW + 12_345 {
            k = k.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            text.extend_from_slice(format!("line {} value {}\n", text.len() % 977, k >> 52).as_bytes());
        }
        let deflated = miniz_oxide::deflate::compress_to_vec(&text, 6);
        let mut gz = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
        gz.extend_from_slice(&deflated);
        gz.extend_from_slice(&crc32(&text).to_le_bytes());
        gz.extend_from_slice(&(text.len() as u32).to_le_bytes());
        let g = gunzip(&gz, usize::MAX).unwrap();
        assert!(g.text == text && !g.truncated);
        let cut = gunzip(&gz[..gz.len() * 2 / 3], usize::MAX).unwrap();
        assert!(cut.truncated && cut.text.len() > WINDOW && text.starts_with(&cut.text));
        assert!(gunzip(&gz, text.len() - 1).unwrap_err().contains("TRACE_BYTES_MAX"));
    }

    /// A gzip file of `text` made with stored (uncompressed) deflate blocks, with an
    /// FNAME field, so that tests need no compressor.
    pub fn gzip_stored(text: &[u8]) -> Vec<u8> {
        let mut out = vec![0x1f, 0x8b, 8, FNAME, 0, 0, 0, 0, 0, 3];
        out.extend_from_slice(b"trace.txt\0");
        let chunks: Vec<&[u8]> = if text.is_empty() { vec![&[]] } else { text.chunks(65_535).collect() };
        for (k, c) in chunks.iter().enumerate() {
            out.push(u8::from(k + 1 == chunks.len()));
            let n = c.len() as u16;
            out.extend_from_slice(&n.to_le_bytes());
            out.extend_from_slice(&(!n).to_le_bytes());
            out.extend_from_slice(c);
        }
        out.extend_from_slice(&crc32(text).to_le_bytes());
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out
    }

    #[test]
    fn stored_blocks_round_trip_and_limits_hold() {
        let text = b"hello\n".repeat(20_000);
        let g = gunzip(&gzip_stored(&text), 1 << 20).unwrap();
        assert_eq!(g.text, text);
        assert!(!g.truncated);
        assert!(gunzip(&gzip_stored(&text), 1000).unwrap_err().contains("TRACE_BYTES_MAX"));
        let gz = gzip_stored(&text);
        let cut = gunzip(&gz[..gz.len() / 2], 1 << 20).unwrap();
        assert!(cut.truncated && !cut.text.is_empty() && text.starts_with(&cut.text));
        assert!(gunzip(&gz[..5], 1 << 20).unwrap_err().contains("cut short"));
        // A changed byte of a stored block inflates to a text of the same length: the
        // CRC-32 refuses it.
        let mut flipped = gz.clone();
        flipped[40] ^= 1;
        assert!(gunzip(&flipped, 1 << 20).unwrap_err().contains("CRC-32"));
        // A stored block's length made 12 longer (and its one's complement to match):
        // the decoder copies the trailer as text and wants more, as if the file were
        // cut; the trailer's length, 8 bytes short of what was inflated, says it is whole.
        let short = b"0123456789\n".repeat(3);
        let mut longer = gzip_stored(&short);
        let at = 10 + b"trace.txt\0".len() + 1;
        let n = short.len() as u16 + 12;
        longer[at..at + 4].copy_from_slice(&[n.to_le_bytes(), (!n).to_le_bytes()].concat());
        let e = gunzip(&longer, 1 << 20).unwrap_err();
        assert!(e.contains("damaged near its end") && e.contains("giving 33 bytes"), "{e}");
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926, "the check value of CRC-32/ISO-HDLC");
    }

    /// `cat a.gz a.gz` is a twice (issue 42: one member was read, the rest dropped, since
    /// the last trailer's length was the first member's), `cat a.gz b.gz` a then b, within
    /// the one limit; bytes after a member that are no member are refused.
    #[test]
    fn every_member_is_read() {
        let (a, b) = (b"first\n".repeat(1000), b"second\n".repeat(10));
        let aa = [gzip_stored(&a), gzip_stored(&a)].concat();
        assert_eq!(gunzip(&aa, 1 << 20).unwrap().text, [&a[..], &a[..]].concat());
        let ab = [gzip_stored(&a), gzip_stored(&b)].concat();
        assert_eq!(gunzip(&ab, 1 << 20).unwrap().text, [&a[..], &b[..]].concat());
        assert!(gunzip(&aa, a.len() + 10).unwrap_err().contains("TRACE_BYTES_MAX"));
        let junk = [gzip_stored(&a), b"junk".to_vec()].concat();
        assert!(gunzip(&junk, 1 << 20).unwrap_err().contains("4 bytes after the gzip member"));
        // The second member cut short: the text so far, marked.
        let cut = &ab[..ab.len() - 20];
        let g = gunzip(cut, 1 << 20).unwrap();
        assert!(g.truncated && g.text.starts_with(&a) && g.text.len() > a.len());
    }
}
