//! Wakeup latency percentiles (p50, p90, p95, p99) of every kernel at one client count.

use super::{category_label, e2s, frame, legend, style_mesh, ChartResult, ChartTheme};
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
    let top = values.iter().flatten().copied().fold(0f64, f64::max);
    let top = if top > 0.0 { top * 1.15 } else { 1.0 };
    let names: Vec<String> = ["p50", "p90", "p95", "p99"].iter().map(|s| s.to_string()).collect();
    let n = names.len();
    let mut chart = ChartBuilder::on(root)
        .caption(format!("Wakeup latency at {clients} {}", r.experiment.workload.clients_meaning()), th.text(1.1))
        .margin(th.px(10.0))
        .x_label_area_size(th.px(44.0))
        .y_label_area_size(th.px(70.0))
        .build_cartesian_2d(-0.5f64..3.5, 0f64..top)
        .map_err(e2s)?;
    let fmt = |x: &f64| category_label(*x, &names);
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh, th);
    mesh.disable_x_mesh()
        .x_labels(2 * n + 2)
        .x_label_formatter(&fmt)
        .y_desc("µs from wakeup to running")
        .draw()
        .map_err(e2s)?;
    let k = values.len().max(1) as f64;
    let bw = 0.8 / k;
    for (ci, (c, v)) in r.configs.iter().zip(&values).enumerate() {
        let color = th.color(ci);
        chart
            .draw_series(v.iter().enumerate().map(|(i, &y)| {
                let x0 = i as f64 - 0.4 + ci as f64 * bw;
                Rectangle::new([(x0 + bw * 0.08, 0.0), (x0 + bw * 0.92, y)], color.filled())
            }))
            .map_err(e2s)?
            .label(schedsim::kernel::name_with_label(&c.name, &c.label))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    // A window in which nothing completed still has wakeups; say so rather than let the
    // bars pass for the benchmark's latency.
    let empty: Vec<&str> = (0..r.configs.len())
        .filter(|k| crate::compare::is_empty_point(r, *k, pi))
        .map(|k| r.configs[k].name.as_str())
        .collect();
    if !empty.is_empty() {
        let nothing = crate::compare::nothing_measured(&r.experiment.workload);
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{}: {nothing}", empty.join(", ")),
                (1.0, top * 0.97),
                th.text(0.9),
            )))
            .map_err(e2s)?;
    }
    legend(&mut chart, th, SeriesLabelPosition::UpperLeft)
}
