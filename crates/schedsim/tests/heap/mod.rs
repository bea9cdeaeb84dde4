//! A global allocator that counts the heap a test binary holds and its peak, exactly,
//! for the tests that bound memory (`perfetto_memory.rs`, `worst_case.rs`): a page count
//! such as `VmHWM` keeps what the allocator retained from earlier work. A binary that
//! uses it declares `#[global_allocator] static A: heap::Counting = heap::Counting;`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

pub struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = NOW.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is passed to `System` unchanged; only sizes are counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        NOW.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            NOW.fetch_sub(l.size(), Relaxed);
            grew(new);
        }
        q
    }
}

/// The heap `run` takes at its peak above what was held before it, bytes (other
/// threads' allocations meanwhile count too: callers run one at a time).
pub fn peak_during<T>(run: impl FnOnce() -> T) -> (T, usize) {
    let base = NOW.load(Relaxed);
    PEAK.store(base, Relaxed);
    let r = run();
    (r, PEAK.load(Relaxed).saturating_sub(base))
}
