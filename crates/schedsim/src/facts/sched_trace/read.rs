//! Reading a trace as a stream: the file's bytes hashed (on a thread of their own
//! natively), inflated if gzip, and its text cut into lines and parsed a piece at a time
//! by a [`Feeder`], so that memory holds the events, not the text.

use super::gzip;
use super::{finish, ImportSummary, LineState, Parsed, Trace, TraceError, PROGRESS_BYTES};
use sha2::{Digest, Sha256};
use std::io::Read;

/// Where an import's bytes come from.
pub(super) enum Input<'a> {
    Bytes(&'a [u8]),
    Read(&'a mut dyn Read),
}

/// Bytes read from a reader at a time, and the pieces of a text in memory are fed in.
const READ_BYTES: usize = 1 << 20;

/// [`import_with`] and [`import_read`] with the text bound as a parameter (tests use a
/// small one). The file is hashed as it is read (beside the parse: [`hashed`]),
/// inflated if it is gzip, and its text fed to a [`Feeder`] a piece at a time.
pub(super) fn import_inner(
    input: Input<'_>,
    name: &str,
    progress: &mut dyn FnMut(u64) -> bool,
    limit: u64,
) -> Result<Trace, TraceError> {
    let (parsed, sha256) = hashed(|hash| read_text(input, hash, progress, limit));
    let (p, summary) = parsed?;
    finish(p, name, sha256, summary)
}

/// Where the file's bytes go to be hashed: the caller's bytes (borrowed for the whole
/// import) or a piece just read (copied if kept).
trait HashSink<'a> {
    fn borrowed(&mut self, b: &'a [u8]);
    fn read(&mut self, b: &[u8]);
}

impl<'a> HashSink<'a> for Sha256 {
    fn borrowed(&mut self, b: &'a [u8]) {
        self.update(b);
    }
    fn read(&mut self, b: &[u8]) {
        self.update(b);
    }
}

/// Pieces sent to the hashing thread: at least [`HASH_BATCH`] bytes each, so that a
/// reader's small pieces do not cost a thread wake-up each.
#[cfg(not(target_arch = "wasm32"))]
struct ToThread<'a> {
    tx: std::sync::mpsc::SyncSender<Piece<'a>>,
    pending: Vec<u8>,
}

#[cfg(not(target_arch = "wasm32"))]
const HASH_BATCH: usize = 256 << 10;

#[cfg(not(target_arch = "wasm32"))]
enum Piece<'a> {
    Borrowed(&'a [u8]),
    Read(Vec<u8>),
}

#[cfg(not(target_arch = "wasm32"))]
impl<'a> ToThread<'a> {
    fn flush(&mut self) {
        if !self.pending.is_empty() {
            let _ = self.tx.send(Piece::Read(std::mem::take(&mut self.pending)));
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl<'a> HashSink<'a> for ToThread<'a> {
    fn borrowed(&mut self, b: &'a [u8]) {
        self.flush();
        let _ = self.tx.send(Piece::Borrowed(b));
    }
    fn read(&mut self, b: &[u8]) {
        self.pending.extend_from_slice(b);
        if self.pending.len() >= HASH_BATCH {
            self.flush();
        }
    }
}

/// Runs `body` with a sink for the file's bytes and gives their SHA-256 too. Natively
/// the hash is taken on a thread of its own while `body` parses (SHA-NI hashes about
/// 1.7 GB/s, a seventh of an import's time on one core); a browser's worker has no
/// threads, and hashes in line.
fn hashed<'a, R>(body: impl FnOnce(&mut dyn HashSink<'a>) -> R) -> (R, String) {
    let hex = super::sha256::hex;
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::thread::scope(|s| {
            // At most this many batches wait for the hash.
            let (tx, rx) = std::sync::mpsc::sync_channel::<Piece<'a>>(8);
            let spawned = std::thread::Builder::new().name("trace-sha256".into()).spawn_scoped(s, move || {
                let mut h = Sha256::new();
                for p in rx {
                    match p {
                        Piece::Borrowed(b) => h.update(b),
                        Piece::Read(b) => h.update(&b),
                    }
                }
                h.finalize()
            });
            let Ok(worker) = spawned else {
                let mut h = Sha256::new();
                let r = body(&mut h);
                return (r, hex(&h.finalize()));
            };
            let mut sink = ToThread { tx, pending: Vec::new() };
            let r = body(&mut sink);
            sink.flush();
            drop(sink);
            let digest = worker.join().map(|d| hex(&d)).unwrap_or_default();
            (r, digest)
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        let mut h = Sha256::new();
        let r = body(&mut h);
        (r, hex(&h.finalize()))
    }
}

/// Reads `input`, giving its bytes to `hash` and its text to a [`Feeder`]: the events
/// and the summary.
fn read_text<'a>(
    input: Input<'a>,
    hash: &mut dyn HashSink<'a>,
    progress: &mut dyn FnMut(u64) -> bool,
    limit: u64,
) -> Result<(Parsed, ImportSummary), TraceError> {
    let mut feed = Feeder::new(limit, progress);
    let read_err = |e: std::io::Error| TraceError::whole(format!("cannot read the file: {e}"));
    let held: Vec<u8>;
    let gz: Option<&[u8]> = match input {
        Input::Bytes(b) => {
            hash.borrowed(b);
            if b.starts_with(&GZIP_MAGIC) {
                Some(b)
            } else {
                for piece in b.chunks(READ_BYTES) {
                    feed.text(piece)?;
                }
                None
            }
        }
        Input::Read(r) => {
            let mut buf = vec![0u8; READ_BYTES];
            let mut n = 0;
            while n < GZIP_MAGIC.len() {
                match r.read(&mut buf[n..]).map_err(read_err)? {
                    0 => break,
                    k => n += k,
                }
            }
            if buf[..n].starts_with(&GZIP_MAGIC) {
                // The compressed bytes are held whole. A gzip file's text is at least
                // about its size (stored blocks add 5 bytes a 64 KiB), so a file over
                // `most` is over the text's bound.
                buf.truncate(n);
                let most = limit.saturating_add(limit / 8192).saturating_add(1 << 16);
                r.take(most.saturating_sub(n as u64).saturating_add(1)).read_to_end(&mut buf).map_err(read_err)?;
                if buf.len() as u64 > most {
                    return Err(feed.too_long());
                }
                hash.read(&buf);
                held = buf;
                Some(&held[..])
            } else {
                loop {
                    hash.read(&buf[..n]);
                    feed.text(&buf[..n])?;
                    n = loop {
                        match r.read(&mut buf) {
                            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                            r => break r.map_err(read_err)?,
                        }
                    };
                    if n == 0 {
                        break None;
                    }
                }
            }
        }
    };
    if let Some(b) = gz {
        let cut = gzip::gunzip_to(b, limit, &mut |piece: &[u8]| feed.text(piece)).map_err(|e| match e {
            gzip::GzStop::Bad(m) => TraceError::whole(m),
            gzip::GzStop::Sink(e) => e,
        })?;
        (feed.sum.gzip, feed.sum.gzip_truncated) = (true, cut);
    }
    feed.finish()
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The text's first bytes, enough to know a binary file by its magic.
const HEAD_BYTES: usize = 16;
/// Most bytes of a line kept: a longer one (no newline for megabytes: not a trace, or an
/// event the importer passes over) is read as its first this many bytes, so that memory
/// stays bounded whatever the file.
const LINE_BYTES_MAX: usize = 1 << 20;

/// Takes a trace's text a piece at a time, cuts it into lines (one line a piece leaves
/// unfinished is held until the next piece ends it) and parses each. A line that does not
/// read stops the parsing, not the reading: the rest is still counted, so that a text
/// over the bound, a binary file and an empty one are told as such whatever line failed
/// first, as when the text was read whole before it was parsed.
struct Feeder<'p> {
    parsed: Parsed,
    at: LineState,
    /// The start of a line the last piece left unfinished.
    carry: Vec<u8>,
    /// The last piece ended in `\r`: a `\n` opening the next one ends no line.
    skip_lf: bool,
    /// The first [`HEAD_BYTES`], until there are that many.
    head: Option<Vec<u8>>,
    /// Why the text is a binary file, from its head.
    binary: Option<TraceError>,
    /// The first line that did not read.
    failed: Option<TraceError>,
    text_bytes: u64,
    limit: u64,
    /// Whether a byte other than ASCII white space was seen.
    non_space: bool,
    next_progress: u64,
    progress: &'p mut dyn FnMut(u64) -> bool,
    /// The summary the lines (and the gzip layer) add to.
    sum: ImportSummary,
}

impl<'p> Feeder<'p> {
    fn new(limit: u64, progress: &'p mut dyn FnMut(u64) -> bool) -> Self {
        Feeder {
            parsed: Parsed::default(),
            at: LineState::default(),
            carry: Vec::new(),
            skip_lf: false,
            head: Some(Vec::with_capacity(HEAD_BYTES)),
            binary: None,
            failed: None,
            text_bytes: 0,
            limit,
            non_space: false,
            next_progress: PROGRESS_BYTES as u64,
            progress,
            sum: ImportSummary::default(),
        }
    }

    fn too_long(&self) -> TraceError {
        TraceError::whole(format!(
            "the text is over TRACE_BYTES_MAX ({}) bytes, the bound on a trace's text: cut the trace shorter (`perf \
             script --time START,END`)",
            self.limit
        ))
    }

    /// The next piece of the text. An error here ends the import: a cancel, or a text
    /// over the bound (a binary file's head said first).
    fn text(&mut self, piece: &[u8]) -> Result<(), TraceError> {
        self.text_bytes += piece.len() as u64;
        if self.text_bytes > self.limit {
            return Err(self.binary.take().unwrap_or_else(|| self.too_long()));
        }
        if !self.non_space {
            self.non_space = piece.iter().any(|c| !c.is_ascii_whitespace());
        }
        match self.head.as_mut() {
            Some(h) => {
                h.extend_from_slice(piece);
                if h.len() < HEAD_BYTES {
                    return Ok(());
                }
                let h = self.head.take().unwrap_or_default();
                self.binary = binary_kind(&h);
                self.lines(&h);
            }
            None => self.lines(piece),
        }
        if self.text_bytes >= self.next_progress {
            self.next_progress = self.text_bytes + PROGRESS_BYTES as u64;
            if !(self.progress)(self.text_bytes) {
                return Err(TraceError::at(self.at.line_no, "import cancelled".into()));
            }
        }
        Ok(())
    }

    /// Whether lines are still parsed.
    fn parsing(&self) -> bool {
        self.binary.is_none() && self.failed.is_none()
    }

    /// Cuts `piece` into lines: a line ends at `\n`, `\r\n` or a lone `\r` (old Mac line
    /// ends: such a file was one line).
    fn lines(&mut self, mut rest: &[u8]) {
        if self.skip_lf && !rest.is_empty() {
            self.skip_lf = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while self.parsing() {
            let Some(i) = memchr::memchr2(b'\n', b'\r', rest) else { break };
            if self.carry.is_empty() {
                self.line(&rest[..i.min(LINE_BYTES_MAX)], true);
            } else {
                let mut line = std::mem::take(&mut self.carry);
                keep_line(&mut line, &rest[..i]);
                self.line(&line, true);
                line.clear();
                self.carry = line;
            }
            let cr = rest[i] == b'\r';
            rest = &rest[i + 1..];
            if cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    None => self.skip_lf = true,
                    Some(_) => {}
                }
            }
        }
        if self.parsing() {
            keep_line(&mut self.carry, rest);
        }
    }

    fn line(&mut self, raw: &[u8], complete: bool) {
        if let Err(e) = self.parsed.line(raw, complete, &mut self.at, &mut self.sum) {
            self.failed = Some(e);
        }
    }

    /// The end of the text: its last line (if no newline ended it), then what stopped
    /// the parse, if anything did; else the events parsed.
    fn finish(mut self) -> Result<(Parsed, ImportSummary), TraceError> {
        if let Some(h) = self.head.take() {
            self.binary = binary_kind(&h);
            self.lines(&h);
        }
        if self.parsing() && !self.carry.is_empty() {
            let line = std::mem::take(&mut self.carry);
            self.line(&line, false);
        }
        if let Some(e) = self.binary {
            return Err(e);
        }
        if !self.non_space {
            return Err(TraceError::whole("the file is empty"));
        }
        if let Some(e) = self.failed {
            return Err(e);
        }
        self.sum.lines = self.at.line_no as u64;
        if !(self.progress)(self.text_bytes) {
            return Err(TraceError::at(self.at.line_no, "import cancelled".into()));
        }
        Ok((self.parsed, self.sum))
    }
}

/// Appends `part` to a line, keeping at most [`LINE_BYTES_MAX`] bytes of it.
fn keep_line(line: &mut Vec<u8>, part: &[u8]) {
    let room = LINE_BYTES_MAX.saturating_sub(line.len());
    line.extend_from_slice(&part[..part.len().min(room)]);
}

/// Why a text that starts with `head` is a binary file the importer cannot read.
fn binary_kind(head: &[u8]) -> Option<TraceError> {
    if head.starts_with(b"PERFILE2") || head.starts_with(b"PERFFILE") {
        return Some(TraceError::whole("binary perf.data: run `perf script -i FILE > FILE.txt` first"));
    }
    if head.starts_with(b"\x17\x08\x44tracing") {
        return Some(TraceError::whole("binary trace.dat: run `trace-cmd report -i FILE > FILE.txt` first"));
    }
    for (magic, tool) in [(&b"\xfd7zXZ\0"[..], "xz"), (&b"\x28\xb5\x2f\xfd"[..], "zstd"), (&b"BZh"[..], "bzip2")] {
        if head.starts_with(magic) {
            return Some(TraceError::whole(format!("{tool}-compressed: decompress it first (gzip is read as is)")));
        }
    }
    None
}
