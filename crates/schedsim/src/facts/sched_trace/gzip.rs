//! Gzip (RFC 1952) read here: the member header is parsed by hand and the deflate
//! stream inflated by `miniz_oxide`, bounded by [`super::TRACE_BYTES_MAX`] so that a
//! small file cannot expand without limit ("zip bomb"). Members are read one after
//! another, as `gunzip` reads them: `cat a.gz b.gz` is the text of a then b (one
//! member was read and the rest dropped when the two trailers agreed).

use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

/// What inflating gave: the text, and whether the stream ended early (a file cut
/// while it was written: the text so far is kept and the summary says so).
#[derive(Debug)]
pub(super) struct Gunzipped {
    pub text: Vec<u8>,
    pub truncated: bool,
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

/// CRC-32 as gzip computes it (RFC 1952 §8: ISO 3309, reflected polynomial
/// 0xEDB88320), by `crc32fast` (several bytes a step, SIMD where the CPU has it).
fn crc32(data: &[u8]) -> u32 {
    crc32fast::hash(data)
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
fn whole_file_trailer(b: &[u8], inflated: usize) -> Option<u32> {
    let t = b.len().checked_sub(4).map(|at| &b[at..])?;
    let isize = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
    (u64::from(isize).abs_diff(inflated as u64) <= TRAILER_SLACK).then_some(isize)
}

/// The first size of a member's output buffer, bytes; it doubles as the text needs.
const INFLATE_START_MAX: usize = 64 << 10;

/// A deflate stream inflated into at most `limit` bytes, with how many bytes of `input`
/// it took (where its member's trailer starts), as `miniz_oxide`'s
/// `decompress_to_vec_with_limit` does it but for that count; an error gives the
/// status and the text so far.
fn inflate(input: &[u8], limit: usize) -> Result<(Vec<u8>, usize), (TINFLStatus, Vec<u8>)> {
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    // `input` is the rest of the file, every member after this one too: a buffer sized
    // from it, zeroed for each member, made `cat` of n small members take n squared
    // (the worst-case campaign's shape). It starts at most INFLATE_START_MAX and doubles.
    let mut out: Vec<u8> = vec![0; input.len().saturating_mul(2).min(limit).min(INFLATE_START_MAX)];
    let mut d = Box::<DecompressorOxide>::default();
    let (mut in_pos, mut out_pos) = (0usize, 0usize);
    loop {
        let (status, took, gave) = decompress(&mut d, input.get(in_pos..).unwrap_or(&[]), &mut out, out_pos, flags);
        in_pos += took;
        out_pos += gave;
        match status {
            TINFLStatus::Done => {
                out.truncate(out_pos);
                return Ok((out, in_pos));
            }
            TINFLStatus::HasMoreOutput if out.len() < limit => {
                let grown = out.len().saturating_mul(2).max(64).min(limit);
                out.resize(grown, 0);
            }
            _ => {
                out.truncate(out_pos);
                return Err((status, out));
            }
        }
    }
}

/// Inflates a gzip file of at most `limit` bytes of text: each member in turn.
pub(super) fn gunzip(b: &[u8], limit: usize) -> Result<Gunzipped, String> {
    let mut first = gunzip_member(b, limit)?;
    let mut at = first.1;
    while let Some(rest) = b.get(at..).filter(|r| !r.is_empty()) {
        if first.0.truncated {
            break;
        }
        if !rest.starts_with(&[0x1f, 0x8b]) {
            return Err(format!(
                "{} bytes after the gzip member that are not another member: a damaged file; run `gunzip -t` on it",
                rest.len()
            ));
        }
        let (more, used) = gunzip_member(rest, limit - first.0.text.len())?;
        first.0.text.extend_from_slice(&more.text);
        first.0.truncated = more.truncated;
        at += used;
    }
    Ok(first.0)
}

/// One member at the start of `b`: its text and the bytes it took, trailer included.
fn gunzip_member(b: &[u8], limit: usize) -> Result<(Gunzipped, usize), String> {
    let start = header_len(b)?;
    let body = b.get(start..).unwrap_or(&[]);
    match inflate(body, limit) {
        Ok((text, took)) => {
            // The member's trailer: CRC-32 and ISIZE, the text's length mod 2^32.
            let end = start + took + 8;
            if let Some(t) = b.get(end - 8..end) {
                let isize = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
                if isize != text.len() as u32 {
                    return Err(format!(
                        "gzip trailer gives {isize} bytes (mod 2^32), the stream gave {}: the file is corrupt; run \
                         `gunzip -t` on it",
                        text.len()
                    ));
                }
                // The CRC-32 of the text: a changed byte in the deflate data most often
                // still inflates, to a text of the same length and other numbers.
                let crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
                if crc != crc32(&text) {
                    return Err("gzip data is corrupt: its CRC-32 does not match the text it inflates to (a changed \
                                or damaged file); run `gunzip -t` on it"
                        .into());
                }
            }
            Ok((Gunzipped { text, truncated: false }, end.min(b.len())))
        }
        Err((TINFLStatus::HasMoreOutput, _)) => Err(format!(
            "the text is over {limit} bytes after gunzip (TRACE_BYTES_MAX, which keeps a browser tab's memory \
             bounded): cut the trace shorter (`perf script --time START,END`)"
        )),
        Err((TINFLStatus::FailedCannotMakeProgress, text)) => {
            if let Some(isize) = whole_file_trailer(b, text.len()) {
                return Err(format!(
                    "gzip data is damaged near its end: the deflate stream runs on past its last block, yet the \
                     file ends in a trailer giving {isize} bytes, about the {} inflated, so it is whole, not cut \
                     short; run `gunzip -t` on it",
                    text.len()
                ));
            }
            Ok((Gunzipped { text, truncated: true }, b.len()))
        }
        Err((status, _)) => Err(format!("gzip data is corrupt (inflate: {status:?})")),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

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
