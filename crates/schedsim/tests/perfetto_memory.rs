//! The Perfetto export streams: writing a window's JSON holds neither the whole text
//! nor a copy of it, only the recording it is made from. Heap use is counted by this
//! test binary's own allocator, so this file holds one test.

use std::io::Write;

mod heap;

#[global_allocator]
static A: heap::Counting = heap::Counting;

/// Counts and hashes what is written, keeping none of it.
#[derive(Default)]
struct Sink {
    bytes: usize,
    hash: u64,
}

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        for &x in b {
            self.hash = (self.hash ^ x as u64).wrapping_mul(0x100_0000_01b3);
        }
        self.bytes += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn writing_a_window_holds_no_copy_of_the_text() {
    // 256 CPUs and 256 tasks for 3 ms: about 20 MB of JSON.
    let e = schedsim::presets::experiment("seed004").unwrap();
    let w = e.perfetto_window(0, 128, 0, 0, 3_000_000).unwrap();
    let mut sink = Sink::default();
    let (events, extra) = heap::peak_during(|| w.write_json(&mut sink).unwrap());
    eprintln!("heap while writing: {extra} bytes for {} bytes of JSON", sink.bytes);
    assert!(sink.bytes > 10_000_000, "{} bytes", sink.bytes);
    // Events are made one at a time: a few kilobytes each, and nothing that grows with
    // the output (a whole text, then the document around it, was twice the output).
    assert!(extra <= sink.bytes / 50, "{extra} bytes of heap while writing {} bytes", sink.bytes);
    // The same bytes as the whole text.
    let whole = e.perfetto(0, 128, 0, 0, 3_000_000).unwrap();
    let mut again = Sink::default();
    again.write_all(whole.json.as_bytes()).unwrap();
    assert_eq!((again.bytes, again.hash, whole.events), (sink.bytes, sink.hash, events));
}
