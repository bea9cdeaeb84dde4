//! The page's side of the A/B diff (`schedsim::diff`): which kernels and client count
//! to ask for, the texts of the counts and of the position among the differences, and
//! stepping from one difference to the next. Pure, tested natively; the component is
//! `web/components/diff.rs`.

use schedsim::diff::{distance_words, DiffAsk, DiffReport};
use schedsim::Experiment;

/// Wakeups compared by default, and the choices offered.
pub const COUNTS: [u32; 4] = [200, 1000, 3000, 10_000];
pub const COUNT_DEFAULT: u32 = 1000;
/// Differences kept in full for stepping through (every one is counted and listed).
pub const DETAILS: u32 = 300;

/// What the view asks: kernels `a` and `b` clamped to the experiment (B defaults to
/// the kernel after A), the client count if it is one of the experiment's (else its
/// first), wakeups from 0 at the start of the run (warm-up included). `None` when the experiment has fewer than
/// two kernels.
pub fn ask(exp: &Experiment, a: u32, b: u32, clients: u32, count: u32) -> Option<DiffAsk> {
    let n = exp.kernels.len() as u32;
    if n < 2 {
        return None;
    }
    let a = if a < n { a } else { 0 };
    let b = if b < n && b != a { b } else { (a + 1) % n };
    let clients = if exp.clients.contains(&clients) { clients } else { *exp.clients.first()? };
    let count = count.clamp(1, schedsim::trace::TRACE_WAKEUPS_MAX);
    Some(DiffAsk { a, b, clients, iteration: 0, from: 0, count, details: DETAILS })
}

/// "B differs at 140 of 200 compared wakeups (70.0%)", with the uncompared ones said.
pub fn summary(r: &DiffReport) -> String {
    let pct = if r.compared > 0 { r.differ as f64 * 100.0 / r.compared as f64 } else { 0.0 };
    let mut s = format!("B would choose another CPU at {} of {} compared wakeups ({pct:.1}%)", r.differ, r.compared);
    let skipped = r.wakeups - r.compared;
    if skipped > 0 {
        s += &format!("; {skipped} more were not compared (the wakee was still on its CPU: nothing was chosen)");
    }
    if r.wakeups < r.ask.count as u64 {
        s += &format!("; the run ended after {} of the {} wakeups asked", r.wakeups, r.ask.count);
    }
    s + "."
}

/// Rows of the counts table: (words, count, share of the compared wakeups in %).
pub fn relation_rows(r: &DiffReport) -> Vec<(&'static str, u64, f64)> {
    r.relation
        .rows()
        .iter()
        .map(|&(d, n)| {
            let words = match d {
                schedsim::topology::Distance::SameCpu => "same CPU (agree)",
                _ => distance_words(d),
            };
            (words, n, if r.compared > 0 { n as f64 * 100.0 / r.compared as f64 } else { 0.0 })
        })
        .collect()
}

/// "difference 3 of 140 · wakeup #5 at 40.741 ms", and how many are kept in full.
pub fn position(r: &DiffReport, i: usize) -> String {
    let Some(d) = r.details.get(i) else { return "no difference".into() };
    let mut s =
        format!("difference {} of {} · wakeup #{} at {:.3} ms", i + 1, r.differ, d.a.index, d.a.time_ns as f64 / 1e6);
    if (r.details.len() as u64) < r.differ {
        s += &format!(" (the first {} are shown in full)", r.details.len());
    }
    s
}

/// The index after moving `delta` from `i` among `len` differences, clamped.
pub fn step(i: usize, delta: i64, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    (i as i64 + delta).clamp(0, len as i64 - 1) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ask_clamps_to_the_experiment() {
        let mut e = schedsim::presets::experiment("demo").unwrap();
        let a = ask(&e, 0, 1, 4, 1000).unwrap();
        assert_eq!((a.a, a.b, a.clients, a.count), (0, 1, 4, 1000));
        // B out of range or equal to A: the next kernel; a client count not in the list:
        // the first.
        assert_eq!(ask(&e, 1, 1, 3, 10).map(|a| (a.a, a.b, a.clients)), Some((1, 0, 1)));
        assert_eq!(ask(&e, 7, 9, 2, 0).map(|a| (a.a, a.b, a.count)), Some((0, 1, 1)));
        e.kernels.truncate(1);
        assert!(ask(&e, 0, 1, 1, 10).is_none());
    }

    /// Against a real diff of seed 001: the texts say what the report holds, and
    /// stepping stays among the differences kept.
    #[test]
    fn texts_and_stepping_of_seed001() {
        let e = schedsim::presets::experiment("seed001").unwrap();
        let mut q = ask(&e, 0, 1, 1, 200).unwrap();
        q.details = 5;
        let r = e.diff(&q).unwrap();
        assert!(r.differ > 5);
        let s = summary(&r);
        assert!(
            s.starts_with(&format!("B would choose another CPU at {} of {} compared", r.differ, r.compared)),
            "{s}"
        );
        let rows = relation_rows(&r);
        assert_eq!(rows[0].0, "same CPU (agree)");
        assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), r.compared);
        let p = position(&r, 1);
        assert!(p.starts_with(&format!("difference 2 of {} · wakeup #{}", r.differ, r.details[1].a.index)), "{p}");
        assert!(p.ends_with("(the first 5 are shown in full)"), "{p}");
        assert_eq!(step(0, -1, 5), 0);
        assert_eq!(step(3, 1, 5), 4);
        assert_eq!(step(4, 1, 5), 4);
        assert_eq!(step(2, 1, 0), 0);
    }
}
