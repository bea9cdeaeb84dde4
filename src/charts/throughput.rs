//! The headline of every sweep: the summary (Hmean or Amean) against client count, one
//! series per kernel, with ±1 stddev error bars, and under it, as mmtests' graphs have
//! it, each kernel's change against kernel A in percent.
//!
//! Every series is drawn at the true client count (nothing is shifted sideways to keep
//! bars apart), each with its own marker shape so that series lying on top of each other
//! stay visible as such. Where a kernel's `mean ± stddev` range overlaps A's, the percent
//! panel draws a hollow marker and says "no difference beyond noise"; a point whose
//! window measured nothing is a cross on the axis with the reason, never a value.

use super::{e2s, frame, layout, legend_headroom, style_mesh, titled, ChartResult, ChartTheme, Legend};
use crate::model::compare::{self, Versus};
use crate::model::kernels::letter;
use plotters::coord::Shift;
use plotters::prelude::*;
use schedsim::Report;

/// The x axis: client counts on a log2 scale when they span a factor of 8 or more (1 2
/// 4 8 ... evenly apart, as they are usually chosen), else linear; ticks exactly at the
/// counts.
struct ClientAxis {
    log: bool,
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
    counts: Vec<u32>,
}

impl ClientAxis {
    fn new(clients: &[u32]) -> ClientAxis {
        let mut counts: Vec<u32> = clients.iter().copied().filter(|c| *c > 0).collect();
        counts.sort_unstable();
        counts.dedup();
        if counts.is_empty() {
            counts.push(1);
        }
        let (min, max) = (counts[0] as f64, counts[counts.len() - 1] as f64);
        let log = max / min >= 8.0;
        let pos = |c: u32| if log { (c as f64).log2() } else { c as f64 };
        let (a, b) = (pos(counts[0]), pos(counts[counts.len() - 1]));
        let pad = if b > a {
            (b - a) * 0.06
        } else if log {
            0.5
        } else {
            (a * 0.5).max(0.5)
        };
        let ticks = counts.iter().map(|c| pos(*c)).collect();
        ClientAxis { log, lo: a - pad, hi: b + pad, ticks, counts }
    }

    fn x(&self, c: u32) -> f64 {
        if self.log {
            (c.max(1) as f64).log2()
        } else {
            c as f64
        }
    }
}

/// The axis as a Plotters coordinate: linear in [`ClientAxis::x`], ticks at the counts
/// only, each labelled with its count.
#[derive(Clone)]
struct ClientCoord {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
    labels: Vec<String>,
}

impl ClientAxis {
    /// The coordinate of an axis `axis_px` long: a tick at every count, and a label at
    /// the counts whose labels fit beside their neighbours' ([`thin_labels`]).
    fn coord(&self, axis_px: f64, room: &layout::TextRoom) -> ClientCoord {
        let labels: Vec<String> = self.counts.iter().map(|c| c.to_string()).collect();
        let at: Vec<f64> = self.ticks.iter().map(|t| (t - self.lo) / (self.hi - self.lo) * axis_px).collect();
        let widths: Vec<f64> = labels.iter().map(|l| room.width(l.chars().count(), 0.9) as f64).collect();
        let keep = thin_labels(&at, &widths, room.width(1, 0.9) as f64);
        let labels = labels.into_iter().zip(keep).map(|(l, k)| if k { l } else { String::new() }).collect();
        ClientCoord { lo: self.lo, hi: self.hi, ticks: self.ticks.clone(), labels }
    }
}

/// Which tick labels to draw, centred at `at` (pixels, ascending) and `widths` wide, so
/// that no two come closer than `gap`: the first and the last always (the range of the
/// sweep), the others from the left where they fit. seed003-tbench's 256 and 320 sit a
/// label's width apart on a log axis and were drawn over each other.
fn thin_labels(at: &[f64], widths: &[f64], gap: f64) -> Vec<bool> {
    let n = at.len();
    let mut keep = vec![false; n];
    let apart = |i: usize, j: usize| (at[i] - at[j]).abs() >= (widths[i] + widths[j]) / 2.0 + gap;
    if n == 0 {
        return keep;
    }
    keep[0] = true;
    keep[n - 1] = n == 1 || apart(0, n - 1);
    let mut last = 0;
    for i in 1..n.saturating_sub(1) {
        if apart(last, i) && (!keep[n - 1] || apart(i, n - 1)) {
            keep[i] = true;
            last = i;
        }
    }
    keep
}

impl Ranged for ClientCoord {
    type ValueType = f64;
    type FormatOption = plotters::coord::ranged1d::NoDefaultFormatting;

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let f = (v - self.lo) / (self.hi - self.lo);
        limit.0 + (f * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }
}

impl plotters::coord::ranged1d::ValueFormatter<f64> for ClientCoord {
    fn format(v: &f64) -> String {
        format!("{v}")
    }

    fn format_ext(&self, v: &f64) -> String {
        self.ticks
            .iter()
            .zip(&self.labels)
            .find(|(t, _)| (**t - v).abs() < 1e-9)
            .map(|(_, l)| l.clone())
            .unwrap_or_default()
    }
}

/// Marker shapes, one per kernel in order, so coinciding series show each other.
#[derive(Clone, Copy)]
enum Shape {
    Ring,
    Dot,
    Square,
    Triangle,
    Cross,
    Diamond,
}

const SHAPES: [Shape; 6] = [Shape::Ring, Shape::Dot, Shape::Square, Shape::Triangle, Shape::Cross, Shape::Diamond];

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<ClientCoord, plotters::coord::types::RangedCoordf64>>;

/// Draws a marker of `shape` at each of `pts` (`hollow`: outlines only) and, with a
/// `label`, the legend entry: a line through the marker.
#[allow(clippy::too_many_arguments)]
fn draw_markers<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    pts: &[(f64, f64)],
    shape: Shape,
    color: RGBColor,
    th: &ChartTheme,
    hollow: bool,
    legend: Option<(&mut Legend<'a, DB>, String)>,
) -> ChartResult {
    let r = th.px(6.0) as i32;
    let line = color.stroke_width(th.px(2.0));
    let fill = if hollow { line } else { color.filled() };
    let lw = color.stroke_width(th.px(1.5));
    let half = th.px(10.0) as i32;
    macro_rules! go {
        ($e:ident => $body:expr) => {{
            chart
                .draw_series(pts.iter().map(|&$e| {
                    let $e = EmptyElement::at($e);
                    $body
                }))
                .map_err(e2s)?;
            if let Some((legend, l)) = legend {
                legend.add(l, move |$e: (i32, i32)| {
                    let $e = EmptyElement::at(($e.0 + half, $e.1)) + PathElement::new(vec![(-half, 0), (half, 0)], lw);
                    $body
                });
            }
        }};
    }
    match shape {
        Shape::Ring => go!(e => e + Circle::new((0, 0), r + 1, line)),
        Shape::Dot => go!(e => e + Circle::new((0, 0), r / 2 + 1, fill)),
        Shape::Square => go!(e => e + Rectangle::new([(-r + 1, -r + 1), (r - 1, r - 1)], line)),
        Shape::Triangle => go!(e => e + TriangleMarker::new((0, 0), r, fill)),
        Shape::Cross => {
            go!(e => e + PathElement::new(vec![(-r, -r), (r, r)], line) + PathElement::new(vec![(-r, r), (r, -r)], line))
        }
        Shape::Diamond => go!(e => e + Polygon::new(vec![(0, -r), (r, 0), (0, r), (-r, 0)], fill)),
    }
    Ok(())
}

/// The runs of consecutive `Some` points: the pieces of a line with holes.
fn runs(points: impl Iterator<Item = Option<(f64, f64)>>) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for p in points {
        match p {
            Some(p) => out.last_mut().map(|r| r.push(p)).unwrap_or(()),
            None if out.last().is_some_and(|r| !r.is_empty()) => out.push(Vec::new()),
            None => {}
        }
    }
    out.retain(|r| !r.is_empty());
    out
}

/// A tick of the percent axis: "0%" at zero (never "-0%"), one decimal on a narrow axis.
fn pct_label(y: f64, span: f64) -> String {
    let d = if span < 4.0 { 1 } else { 0 };
    if y.abs() < 0.5 * 10f64.powi(-d) {
        "0%".to_string()
    } else {
        format!("{y:+.d$}%", d = d as usize)
    }
}

/// The percent panel's half height: the largest change against A plus its spread, and a
/// quarter more (at least 1.25%).
fn percent_span(r: &Report) -> f64 {
    let mut span = 1f64;
    for v in compare::versus(r).iter().flatten() {
        if let Some(g) = v.gain_pct {
            span = span.max(g.abs() + v.spread_pct);
        }
    }
    span * 1.25
}

pub fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, r: &Report, th: &ChartTheme) -> ChartResult {
    frame(root, th)?;
    let m = &r.metric;
    let clients: Vec<u32> = r.configs[0].points.iter().map(|p| p.clients).collect();
    let axis = ClientAxis::new(&clients);
    let k = r.configs.len();
    let iters = r.experiment.iterations;
    let (upper, lower) = if k > 1 {
        let (_, h) = root.dim_in_pixel();
        let (u, l) = root.split_vertically((h as f64 * 0.62) as u32);
        (u, Some(l))
    } else {
        (root.clone(), None)
    };

    // Upper panel: the summary with its error bars.
    let mut top = 0f64;
    for c in &r.configs {
        for p in &c.points {
            let v = p.summary(m) + p.stddev();
            if v.is_finite() {
                top = top.max(v);
            }
        }
    }
    let data_top = top;
    let summary = if m.higher_is_better { "Hmean" } else { "Amean" };
    let better = if m.higher_is_better { "higher is better" } else { "lower is better" };
    let bars = if iters >= 2 {
        format!("bars ±1 stddev of {iters} iterations")
    } else {
        "1 iteration: no stddev".to_string()
    };
    let meaning = r.experiment.workload.clients_meaning();
    let upper = titled(&upper, &format!("{summary} {} ({}), {better}; {bars}", m.name, m.unit), th, 1.05)?;
    let x_area = th.room().x_label_area(lower.is_none());
    let top = legend_headroom(data_top, k, upper.dim_in_pixel().1.saturating_sub(x_area + th.px(20.0)), th);
    // Both panels' y labels take the room of the wider, so that their axes line up.
    let span = percent_span(r);
    let pct_chars = [-span, span].iter().map(|y| pct_label(*y, span).chars().count()).max().unwrap_or(1);
    let y_area = th.room().y_label_area(layout::linear_label_chars(0.0, top).max(pct_chars + 1));
    // The plot's width: the chart's less the y labels and the margins either side.
    let axis_px = root.dim_in_pixel().0.saturating_sub(y_area + th.px(20.0)) as f64;
    let mut chart = ChartBuilder::on(&upper)
        .margin(th.px(10.0))
        .x_label_area_size(x_area)
        .y_label_area_size(y_area)
        .build_cartesian_2d(axis.coord(axis_px, &th.room()), 0f64..top)
        .map_err(e2s)?;
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh, th);
    mesh.y_desc(format!("{} ({})", m.name, m.unit));
    if lower.is_none() {
        mesh.x_desc(if axis.log { format!("{meaning} (log scale)") } else { meaning.to_string() });
    }
    mesh.draw().map_err(e2s)?;
    let mut empties = 0;
    let mut legend = Legend::new();
    for (ci, c) in r.configs.iter().enumerate() {
        let color = th.color(ci);
        let shape = SHAPES[ci % SHAPES.len()];
        let mut pts: Vec<(f64, f64, f64, bool)> = c
            .points
            .iter()
            .enumerate()
            .map(|(pi, p)| (axis.x(p.clients), p.summary(m), p.stddev(), compare::is_empty_point(r, ci, pi)))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        // Lines join neighbouring measured points only: an empty window breaks the line.
        let measured: Vec<(f64, f64)> = pts.iter().filter(|p| !p.3).map(|p| (p.0, p.1)).collect();
        for run in runs(pts.iter().map(|p| (!p.3).then_some((p.0, p.1)))) {
            chart.draw_series(LineSeries::new(run, color.stroke_width(th.px(1.5)))).map_err(e2s)?;
        }
        for &(x, y, sd, empty) in &pts {
            if empty {
                empties += 1;
                continue;
            }
            if sd > 0.0 && sd.is_finite() {
                let (lo, hi) = ((y - sd).max(0.0), y + sd);
                let st = color.stroke_width(th.px(1.5));
                let w = th.px(5.0) as i32;
                chart.draw_series(std::iter::once(PathElement::new(vec![(x, lo), (x, hi)], st))).map_err(e2s)?;
                chart
                    .draw_series(
                        [lo, hi].map(|y| EmptyElement::at((x, y)) + PathElement::new(vec![(-w, 0), (w, 0)], st)),
                    )
                    .map_err(e2s)?;
            }
        }
        let label = format!("{} {}", letter(ci), schedsim::kernel::name_with_label(&c.name, &c.label));
        draw_markers(&mut chart, &measured, shape, color, th, false, Some((&mut legend, label)))?;
        // An empty window: a cross on the axis in the kernel's colour.
        let empty: Vec<(f64, f64)> = pts.iter().filter(|p| p.3).map(|p| (p.0, 0.0)).collect();
        draw_markers(&mut chart, &empty, Shape::Cross, color, th, false, None)?;
    }
    if empties > 0 {
        let nothing = compare::nothing_measured(&r.experiment.workload);
        chart
            .draw_series(std::iter::once(Text::new(
                format!("× on the axis: {nothing}"),
                (axis.lo + (axis.hi - axis.lo) * 0.02, top * 0.97),
                th.text(0.9),
            )))
            .map_err(e2s)?;
    }
    // In the band `legend_headroom` keeps free of points (the upper left holds the note
    // on empty windows).
    legend.draw(&chart, th, SeriesLabelPosition::UpperRight)?;

    // Lower panel: % against A, with this kernel's stddev as the bar.
    let Some(lower) = lower else { return Ok(()) };
    let vs = compare::versus(r);
    let lower =
        titled(&lower, &format!("% vs A ({}), + is better; {}", r.configs[0].name, compare::hollow_means(r)), th, 0.9)?;
    let mut pc = ChartBuilder::on(&lower)
        .margin(th.px(10.0))
        .margin_top(th.px(2.0))
        .x_label_area_size(th.room().x_label_area(true))
        .y_label_area_size(y_area)
        .build_cartesian_2d(axis.coord(axis_px, &th.room()), -span..span)
        .map_err(e2s)?;
    let mut mesh = pc.configure_mesh();
    style_mesh(&mut mesh, th);
    let pfmt = |y: &f64| pct_label(*y, span);
    mesh.y_label_formatter(&pfmt)
        .y_labels(5)
        .x_desc(if axis.log { format!("{meaning} (log scale)") } else { meaning.to_string() })
        .y_desc("% vs A")
        .draw()
        .map_err(e2s)?;
    pc.draw_series(std::iter::once(PathElement::new(
        vec![(axis.lo, 0.0), (axis.hi, 0.0)],
        th.color(0).stroke_width(th.px(1.5)),
    )))
    .map_err(e2s)?;
    let mut all_noise = iters >= 2;
    let mut any = false;
    for row in &vs {
        let Some(first) = row.first() else { continue };
        let ci = first.kernel;
        let color = th.color(ci);
        let shape = SHAPES[ci % SHAPES.len()];
        let mut pts: Vec<(f64, &Versus)> = row.iter().map(|v| (axis.x(v.clients), v)).collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        for run in runs(pts.iter().map(|(x, v)| v.gain_pct.map(|g| (*x, g)))) {
            pc.draw_series(LineSeries::new(run, color.stroke_width(th.px(1.5)))).map_err(e2s)?;
        }
        for (x, v) in &pts {
            let Some(g) = v.gain_pct else { continue };
            any = true;
            all_noise &= v.within_noise;
            if v.spread_pct > 0.0 {
                let st = color.stroke_width(th.px(1.0));
                pc.draw_series(std::iter::once(PathElement::new(
                    vec![(*x, g - v.spread_pct), (*x, g + v.spread_pct)],
                    st,
                )))
                .map_err(e2s)?;
            }
            draw_markers(&mut pc, &[(*x, g)], shape, color, th, v.within_noise, None)?;
        }
    }
    let exact = compare::deterministic(r);
    if any && all_noise {
        pc.draw_series(std::iter::once(Text::new(
            if exact { "no difference (stddev 0: deterministic runs)" } else { "no difference beyond noise" },
            (axis.lo + (axis.hi - axis.lo) * 0.02, span * 0.8),
            th.text(1.0),
        )))
        .map_err(e2s)?;
    } else if any && iters < 2 {
        pc.draw_series(std::iter::once(Text::new(
            "1 iteration: noise unknown",
            (axis.lo + (axis.hi - axis.lo) * 0.02, span * 0.8),
            th.text(0.9),
        )))
        .map_err(e2s)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_client_counts_do_not_draw_their_labels_over_each_other() {
        let room = layout::TextRoom { font_px: 13.0, scale: 1.0 };
        let axis = ClientAxis::new(&[1, 2, 4, 8, 16, 32, 64, 128, 256, 320]);
        // seed003-tbench's axis in a 640 px chart: 256 and 320 a label's width apart.
        let c = axis.coord(560.0, &room);
        assert_eq!(c.labels.first().map(String::as_str), Some("1"));
        assert_eq!(c.labels.last().map(String::as_str), Some("320"), "the sweep's end is labelled");
        assert_eq!(c.labels[8], "", "256 gives way to 320");
        assert_eq!(c.labels[7], "128");
        // Wide enough, every count is labelled.
        assert!(axis.coord(4000.0, &room).labels.iter().all(|l| !l.is_empty()));
        // Labels left are apart by at least a character.
        assert_eq!(thin_labels(&[0.0, 10.0, 100.0], &[20.0, 20.0, 20.0], 5.0), [true, false, true]);
        assert_eq!(thin_labels(&[0.0], &[20.0], 5.0), [true]);
    }
}
