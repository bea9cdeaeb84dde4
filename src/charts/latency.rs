//! Wakeup latency percentiles (p50, p90, p95, p99) of every kernel at one client count.

use super::{e2s, frame, grouped_bars, titled, ChartResult, ChartTheme};
use plotters::coord::Shift;
use plotters::prelude::*;
use schedsim::Report;

pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    r: &Report,
    point: usize,
    th: &ChartTheme,
) -> ChartResult {
    frame(root, th)?;
    let npts = r.configs[0].points.len();
    if npts == 0 {
        return Err("chart: the report has no client count".into());
    }
    let pi = point.min(npts - 1);
    let clients = r.configs[0].points[pi].clients;
    let values: Vec<[f64; 4]> = r
        .configs
        .iter()
        .map(|c| {
            let l = c.points.get(pi).map(|p| p.wakeup_latency.clone()).unwrap_or_default();
            [l.p50_ns, l.p90_ns, l.p95_ns, l.p99_ns].map(|ns| ns as f64 / 1e3)
        })
        .collect();
    let area = titled(
        root,
        &format!(
            "Wakeup latency at {}",
            crate::model::fmt::count_of(clients as u64, r.experiment.workload.clients_meaning())
        ),
        th,
        1.1,
    )?;
    let (mut chart, top, legend) =
        grouped_bars(&area, r, th, ["p50", "p90", "p95", "p99"], "µs from wakeup to running", &values)?;
    // A window in which nothing completed still has wakeups; say so rather than let the
    // bars pass for the benchmark's latency.
    let empty: Vec<&str> = (0..r.configs.len())
        .filter(|k| crate::model::compare::is_empty_point(r, *k, pi))
        .map(|k| r.configs[k].name.as_str())
        .collect();
    if !empty.is_empty() {
        let nothing = crate::model::compare::nothing_measured(&r.experiment.workload);
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{}: {nothing}", empty.join(", ")),
                (1.0, top * 0.97),
                th.text(0.9),
            )))
            .map_err(e2s)?;
    }
    legend.draw(&chart, th, SeriesLabelPosition::UpperLeft)
}
