//! Charts: one module per chart, each a `draw` function generic over Plotters'
//! `DrawingBackend`, so the page draws it to a canvas and exports the very same drawing
//! as SVG (and the native tests snapshot that SVG).
//!
//! Every `draw` fills its area, so a chart exported as PNG or SVG carries its background.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::{CoordTranslate, Shift};
use plotters::element::{DynElement, IntoDynElement};
use plotters::prelude::*;
use schedsim::Report;

pub mod cputime;
pub mod latency;
pub mod layout;
pub mod live_migrations;
pub mod live_throughput;
pub mod migrations;
pub mod throughput;

// Native only: the snapshots are files.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod snapshots;

/// Size of every chart, in CSS pixels (the canvas scales with the device's pixel ratio).
pub const WIDTH_PX: u32 = 720;
pub const HEIGHT_PX: u32 = 380;

/// A chart's outcome: drawing errors become text for the page.
pub type ChartResult = Result<(), String>;

/// Colours and type size.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartTheme {
    pub bg: RGBColor,
    pub fg: RGBColor,
    pub grid: RGBColor,
    /// Kernel A, B, C... in order (colour-blind-safe Okabe–Ito hues).
    pub series: [RGBColor; 6],
    pub font_px: u32,
    /// Multiplies every size that depends on the device pixel ratio.
    pub scale: f64,
}

impl ChartTheme {
    pub fn light() -> ChartTheme {
        ChartTheme {
            bg: RGBColor(255, 255, 255),
            fg: RGBColor(28, 30, 36),
            grid: RGBColor(220, 223, 230),
            series: [
                RGBColor(0, 114, 178),
                RGBColor(213, 94, 0),
                RGBColor(0, 158, 115),
                RGBColor(204, 121, 167),
                RGBColor(86, 180, 233),
                RGBColor(230, 159, 0),
            ],
            font_px: 13,
            scale: 1.0,
        }
    }

    pub fn dark() -> ChartTheme {
        ChartTheme {
            bg: RGBColor(24, 26, 32),
            fg: RGBColor(230, 232, 238),
            grid: RGBColor(60, 64, 74),
            series: [
                RGBColor(86, 180, 233),
                RGBColor(240, 140, 60),
                RGBColor(40, 200, 150),
                RGBColor(230, 150, 200),
                RGBColor(150, 200, 255),
                RGBColor(240, 200, 70),
            ],
            font_px: 13,
            scale: 1.0,
        }
    }

    /// Presenter mode: large type, pure black/white and thick lines.
    pub fn presenter(dark: bool) -> ChartTheme {
        let mut t = if dark { ChartTheme::dark() } else { ChartTheme::light() };
        if dark {
            t.bg = RGBColor(0, 0, 0);
            t.fg = RGBColor(255, 255, 255);
        } else {
            t.bg = RGBColor(255, 255, 255);
            t.fg = RGBColor(0, 0, 0);
        }
        t.font_px = 18;
        t
    }

    pub fn color(&self, i: usize) -> RGBColor {
        self.series[i % self.series.len()]
    }

    /// Pixel size `px` at this theme's scale.
    pub fn px(&self, px: f64) -> u32 {
        (px * self.scale).round().max(1.0) as u32
    }

    pub fn text(&self, rel: f64) -> TextStyle<'static> {
        ("sans-serif", self.font_px as f64 * rel * self.scale).into_font().color(&self.fg)
    }

    /// This theme's text metrics (label areas, wrapping).
    pub fn room(&self) -> layout::TextRoom {
        layout::TextRoom { font_px: self.font_px as f64, scale: self.scale }
    }
}

/// The share of the view between the sticky header and the Run bar a chart may take:
/// the results land with their heading, summary and notes above the headline chart
/// (about a third of that room in presenter type at 1920x1080), and the whole chart,
/// its "% vs A" panel included, must show above the Run bar.
pub const ROOM_SHARE: f64 = 0.6;

/// The size to draw a chart of standard size `base` (CSS pixels) at when it is shown
/// `shown_w` CSS pixels wide, with `room_h` CSS pixels of view between the page's
/// sticky header and Run bar: the width shown (so canvas pixels are device pixels and
/// text keeps its size), the standard aspect, but never so short that its text crowds
/// (at least `base`'s height at 600 wide) nor taller than [`ROOM_SHARE`] of the room.
/// Without a width (not laid out yet), `base`.
pub fn fit_size(base: (u32, u32), shown_w: Option<f64>, room_h: f64) -> (u32, u32) {
    let Some(w) = shown_w.filter(|w| w.is_finite() && *w >= 1.0) else { return base };
    let w = w.round().clamp(200.0, 4000.0);
    let (bw, bh) = (base.0 as f64, base.1 as f64);
    let low = bh * 600.0 / bw;
    let high = (room_h * ROOM_SHARE).max(low);
    let h = (w * bh / bw).clamp(low, high);
    (w as u32, h.round() as u32)
}

/// Draws `caption` centred at the top of `root`, wrapped to its width, and returns the
/// area under it.
pub(crate) fn titled<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    caption: &str,
    th: &ChartTheme,
    rel: f64,
) -> Result<DrawingArea<DB, Shift>, String> {
    let (w, _) = root.dim_in_pixel();
    let width = th.room().chars_in(w.saturating_sub(th.px(20.0)), rel);
    let mut area = root.clone();
    for line in layout::wrap(caption, width) {
        area = area.titled(&line, th.text(rel)).map_err(e2s)?;
    }
    Ok(area)
}

pub(crate) fn e2s<E: std::fmt::Display>(e: E) -> String {
    format!("chart: {e}")
}

/// Fills the chart's background.
pub(crate) fn frame<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, th: &ChartTheme) -> Result<(), String> {
    root.fill(&th.bg).map_err(e2s)
}

/// Axis and grid styling shared by every chart.
pub(crate) fn style_mesh<'a, 'b, X, Y, DB>(mesh: &mut plotters::chart::MeshStyle<'a, 'b, X, Y, DB>, th: &'b ChartTheme)
where
    X: plotters::coord::ranged1d::Ranged<ValueType = f64> + plotters::coord::ranged1d::ValueFormatter<f64>,
    Y: plotters::coord::ranged1d::Ranged<ValueType = f64> + plotters::coord::ranged1d::ValueFormatter<f64>,
    DB: DrawingBackend,
{
    mesh.axis_style(th.fg.stroke_width(th.px(1.0)))
        .bold_line_style(th.grid.stroke_width(th.px(1.0)))
        .light_line_style(th.grid.mix(0.35))
        .label_style(th.text(0.9))
        .axis_desc_style(th.text(1.0));
}

/// A legend swatch, 12 by 10 CSS pixels at the theme's scale, as a box from the left
/// middle Plotters gives (the swatch scales with the label beside it).
pub(crate) fn legend_swatch(th: &ChartTheme) -> impl Fn((i32, i32)) -> [(i32, i32); 2] + Clone {
    let (w, h) = (th.px(12.0) as i32, th.px(5.0) as i32);
    move |(x, y)| [(x, y - h), (x + w, y + h)]
}

/// The top of the summary axis: a seventh above the highest bar, and more when needed
/// so that the legend (one row a kernel, at the top of a plot `plot_px` high) has a band
/// of its own: a corner the points happen to leave free is not free at every width (one
/// client count on a phone puts every kernel's point under the middle of the legend).
pub(crate) fn legend_headroom(data_top: f64, kernels: usize, plot_px: u32, th: &ChartTheme) -> f64 {
    if data_top <= 0.0 {
        return 1.0;
    }
    // A legend row is its label's line (0.9 of the type, 1.5 lines) and the box has
    // `legend`'s 8 px margin and a few pixels of border and padding on each side.
    let row = th.font_px as f64 * 0.9 * 1.5 * th.scale;
    let band = kernels as f64 * row + th.px(8.0) as f64 + th.px(10.0) as f64;
    let free = (1.0 - band / (plot_px.max(1) as f64)).max(0.4);
    (data_top * 1.15).max(data_top * 1.03 / free)
}

/// A point in backend pixels (Plotters' `BackendCoord`).
type BackendCoord = (i32, i32);

/// A chart's legend: a label and a marker per series, drawn by [`Legend::draw`].
///
/// Plotters' own (`ChartContext::configure_series_labels`, 0.3.7) measures its labels
/// with the font itself (`MultiLineText::estimate_dimension` calls `FontDesc::box_size`),
/// which in a browser appends a `<span>` to the page and forces a layout per label
/// (0.2-1.2 ms each on a results page, measured in Chromium 2026-12-07, against
/// 0.04 ms for the canvas' `measureText`). This one lays the legend out exactly as
/// Plotters' `SeriesLabelStyle::draw` does, but asks the drawing backend
/// (`DrawingBackend::estimate_text_size`), which the page's canvas answers with
/// `measureText` and an SVG export as Plotters did.
pub(crate) struct Legend<'a, DB: DrawingBackend> {
    #[allow(clippy::type_complexity)]
    entries: Vec<(String, Box<dyn Fn(BackendCoord) -> DynElement<'a, DB, BackendCoord> + 'a>)>,
}

impl<'a, DB: DrawingBackend + 'a> Legend<'a, DB> {
    pub(crate) fn new() -> Self {
        Legend { entries: Vec::new() }
    }

    /// One series: its label and its marker, drawn at the left middle of its row.
    pub(crate) fn add<E, F>(&mut self, label: impl Into<String>, marker: F)
    where
        E: IntoDynElement<'a, DB, BackendCoord>,
        F: Fn(BackendCoord) -> E + 'a,
    {
        self.entries.push((label.into(), Box::new(move |p| marker(p).into_dyn())));
    }

    /// Draws the legend box at `pos` in `chart`'s plotting area: Plotters'
    /// `SeriesLabelStyle::draw` with the chart's background at 85%, a grid-coloured
    /// border, an 8 px margin, 26 px for the markers and labels at 0.9 of the text size.
    pub(crate) fn draw<CT: CoordTranslate>(
        &self,
        chart: &ChartContext<'_, DB, CT>,
        th: &ChartTheme,
        pos: SeriesLabelPosition,
    ) -> ChartResult {
        let area = chart.plotting_area().strip_coord_spec();
        let font = th.text(0.9);
        let (margin, marker_w) = (th.px(8.0) as i32, th.px(26.0) as i32);
        // MultiLineText's layout: rows 1.25 font sizes apart, each rounded.
        let line_h = font.font.get_size() * 1.25;
        let row_y = |i: usize, y0: i32| (f64::from(y0) + i as f64 * line_h).round() as i32;
        let sizes: Vec<(u32, u32)> = self
            .entries
            .iter()
            .map(|(l, _)| area.estimate_text_size(l, &font).map_err(e2s))
            .collect::<Result<_, _>>()?;
        let (mut w, mut h) = (0, 0);
        for (i, &(dx, dy)) in sizes.iter().enumerate() {
            w = w.max(dx as i32);
            h = h.max(row_y(i, 0) + dy as i32);
        }
        w += marker_w + margin * 2;
        h += margin * 2;
        let (area_w, area_h) = area.dim_in_pixel();
        let (area_w, area_h) = (area_w as i32, area_h as i32);
        use SeriesLabelPosition::*;
        let x = match pos {
            UpperLeft | MiddleLeft | LowerLeft => 5,
            UpperMiddle | MiddleMiddle | LowerMiddle => (area_w - w) / 2,
            UpperRight | MiddleRight | LowerRight => area_w - w - 5,
            Coordinate(x, _) => x,
        };
        let y = match pos {
            UpperLeft | UpperMiddle | UpperRight => 5,
            MiddleLeft | MiddleMiddle | MiddleRight => (area_h - h) / 2,
            LowerLeft | LowerMiddle | LowerRight => area_h - h - 5,
            Coordinate(_, y) => y,
        };
        area.draw(&Rectangle::new([(x, y), (x + w, y + h)], th.bg.mix(0.85).filled())).map_err(e2s)?;
        area.draw(&Rectangle::new([(x, y), (x + w, y + h)], ShapeStyle::from(th.grid))).map_err(e2s)?;
        let text_x = x + marker_w + margin;
        for (i, (label, _)) in self.entries.iter().enumerate() {
            area.draw(&Text::new(label.as_str(), (text_x, row_y(i, y + margin)), font.clone())).map_err(e2s)?;
        }
        for (i, ((_, marker), &(_, dy))) in self.entries.iter().zip(&sizes).enumerate() {
            let y0 = row_y(i, y + margin);
            area.draw(&marker((x + margin, (y0 + y0 + dy as i32) / 2))).map_err(e2s)?;
        }
        Ok(())
    }
}

/// The shortest span of simulated time a live chart's x axis shows, in ms: one tick at
/// HZ=1000, the period of the kernel's own accounting and balancing. A live run's first
/// wakeups come microseconds apart; an axis fitted to them read "0 - 0.001 ms" and
/// rescaled at every step, where this one fills from the left until the first tick.
pub(crate) const TIME_SPAN_MIN_MS: f64 = 1.0;

/// A chart over simulated time (live mode's), on `root` (under its caption:
/// [`titled`]): 0 to `t_max` ms (at least [`TIME_SPAN_MIN_MS`]) on x, 0 to `top` on y
/// titled `y_desc`, the axes labelled as densely as the width allows.
pub(crate) fn time_chart<'a, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    t_max: f64,
    top: f64,
    y_desc: &str,
    th: &ChartTheme,
) -> Result<GroupedBars<'a, DB>, String> {
    let t_max = t_max.max(TIME_SPAN_MIN_MS);
    let y_area = th.room().y_label_area(layout::linear_label_chars(0.0, top));
    let mut chart = ChartBuilder::on(root)
        .margin(th.px(10.0))
        .x_label_area_size(th.room().x_label_area(true))
        .y_label_area_size(y_area)
        .build_cartesian_2d(0f64..t_max, 0f64..top)
        .map_err(e2s)?;
    let plot_w = root.dim_in_pixel().0.saturating_sub(y_area + th.px(20.0));
    let x_labels = th.room().x_labels(plot_w, layout::linear_label_chars(0.0, t_max), 10);
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh, th);
    mesh.x_labels(x_labels).x_desc("simulated ms").y_desc(y_desc).draw().map_err(e2s)?;
    Ok(chart)
}

/// A legend entry for a line: a short stroke, scaled like the label beside it.
pub(crate) fn legend_line(th: &ChartTheme, color: RGBColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    let (w, stroke) = (th.px(20.0) as i32, th.px(3.0));
    move |(x, y)| PathElement::new(vec![(x, y), (x + w, y)], color.stroke_width(stroke))
}

/// A chart with linear axes: [`grouped_bars`]' and [`time_chart`]'s.
pub(crate) type GroupedBars<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A chart of four categories with one bar per kernel in each, on `root` (under its
/// caption: [`titled`]): the category names under the x axis, `y_desc` beside the y
/// axis, which reaches 15% above the largest value (1 when all are 0), and the bars of
/// `values[kernel]` labelled for the legend. Returns the chart, to add to and finish
/// with its legend, and the y axis' top.
pub(crate) fn grouped_bars<'a, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    r: &Report,
    th: &ChartTheme,
    names: [&str; 4],
    y_desc: &str,
    values: &[[f64; 4]],
) -> Result<(GroupedBars<'a, DB>, f64, Legend<'a, DB>), String> {
    let data_top = values.iter().flatten().copied().fold(0f64, f64::max);
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    // The legend (upper right) gets a band of its own above the bars: on a phone it
    // covered the top of the tallest bar, the very one a lesson is about.
    let y_area = th.room().y_label_area(layout::linear_label_chars(0.0, data_top * 1.5));
    let cats = Categories::new(&names, root.dim_in_pixel().0, y_area, th);
    let plot_px = root.dim_in_pixel().1.saturating_sub(cats.area(th) + th.px(20.0));
    let top = legend_headroom(data_top, values.len(), plot_px, th);
    let mut chart = ChartBuilder::on(root)
        .margin(th.px(10.0))
        .x_label_area_size(cats.area(th))
        .y_label_area_size(y_area)
        .build_cartesian_2d(-0.5f64..3.5, 0f64..top)
        .map_err(e2s)?;
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh, th);
    mesh.disable_x_mesh().x_labels(0).y_desc(y_desc).draw().map_err(e2s)?;
    cats.draw(root, &chart, th)?;
    let k = values.len().max(1) as f64;
    let bw = 0.8 / k;
    let swatch = legend_swatch(th);
    let mut legend = Legend::new();
    for (ci, (c, v)) in r.configs.iter().zip(values).enumerate() {
        let color = th.color(ci);
        chart
            .draw_series(v.iter().enumerate().map(|(i, &y)| {
                let x0 = i as f64 - 0.4 + ci as f64 * bw;
                Rectangle::new([(x0 + bw * 0.08, 0.0), (x0 + bw * 0.92, y)], color.filled())
            }))
            .map_err(e2s)?;
        let swatch = swatch.clone();
        legend.add(schedsim::kernel::name_with_label(&c.name, &c.label), move |p| {
            Rectangle::new(swatch(p), color.filled())
        });
    }
    Ok((chart, top, legend))
}

/// The names under a category axis (categories at 0, 1, ... n-1), each wrapped to the
/// width of its slot, so that on a narrow chart they stack rather than run into each
/// other.
pub(crate) struct Categories {
    lines: Vec<Vec<String>>,
}

impl Categories {
    /// For a chart `root_w` pixels wide whose y labels take `y_area`.
    pub(crate) fn new(names: &[String], root_w: u32, y_area: u32, th: &ChartTheme) -> Categories {
        let plot_w = root_w.saturating_sub(y_area + th.px(20.0));
        let slot = plot_w / names.len().max(1) as u32;
        let chars = th.room().chars_in(slot * 9 / 10, 0.9);
        Categories { lines: names.iter().map(|n| layout::wrap(n, chars)).collect() }
    }

    /// The x label area they need.
    pub(crate) fn area(&self, th: &ChartTheme) -> u32 {
        let rows = self.lines.iter().map(Vec::len).max().unwrap_or(1) as u32;
        th.px(8.0) + rows * th.room().line(0.9)
    }

    /// Draws them under `chart`'s x axis; `root` is the area the chart was built on.
    pub(crate) fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        chart: &ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
        th: &ChartTheme,
    ) -> ChartResult {
        use plotters::style::text_anchor::{HPos, Pos, VPos};
        let (bx, by) = root.get_base_pixel();
        let style = th.text(0.9).pos(Pos::new(HPos::Center, VPos::Top));
        let line = th.room().line(0.9) as i32;
        for (i, lines) in self.lines.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(i as f64, 0.0));
            for (j, text) in lines.iter().enumerate() {
                let at = (x - bx, y - by + th.px(6.0) as i32 + j as i32 * line);
                root.draw(&Text::new(text.clone(), at, style.clone())).map_err(e2s)?;
            }
        }
        Ok(())
    }
}

/// Draws `f` into an SVG string of the standard size.
pub fn to_svg(f: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> ChartResult) -> Result<String, String> {
    to_svg_sized((WIDTH_PX, HEIGHT_PX), f)
}

/// Draws `f` into an SVG string of `size` CSS pixels.
pub fn to_svg_sized(
    size: (u32, u32),
    f: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> ChartResult,
) -> Result<String, String> {
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, size).into_drawing_area();
        f(&root)?;
        root.present().map_err(e2s)?;
    }
    Ok(s)
}

/// Every report chart, by the name the page and the exports use.
pub const REPORT_CHARTS: [&str; 4] = ["throughput", "migrations", "cputime", "latency"];

/// The size of report chart `name` in CSS pixels: the throughput chart is taller, for
/// its "% vs A" panel.
pub fn report_chart_size(name: &str) -> (u32, u32) {
    match name {
        "throughput" => (WIDTH_PX, 540),
        _ => (WIDTH_PX, HEIGHT_PX),
    }
}

/// Draws report chart `name`; `point` picks the latency chart's client count.
pub fn draw_report_chart<DB: DrawingBackend>(
    name: &str,
    root: &DrawingArea<DB, Shift>,
    r: &Report,
    point: usize,
    th: &ChartTheme,
) -> ChartResult {
    if r.configs.is_empty() {
        return Err("chart: the report has no kernel".into());
    }
    match name {
        "throughput" => throughput::draw(root, r, th),
        "migrations" => migrations::draw(root, r, th),
        "cputime" => cputime::draw(root, r, th),
        "latency" => latency::draw(root, r, point, th),
        _ => Err(format!("chart: no chart named {name:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_report_chart_draws_to_svg() {
        let mut exp = schedsim::presets::experiment("demo").unwrap();
        exp.iterations = 1;
        exp.duration_ms = 20;
        exp.warmup_ms = 2;
        let r = exp.run(&mut |_| true).unwrap();
        for name in REPORT_CHARTS {
            for th in [ChartTheme::light(), ChartTheme::dark(), ChartTheme::presenter(true)] {
                let svg = to_svg(|a| draw_report_chart(name, a, &r, 9, &th)).unwrap();
                assert!(svg.starts_with("<svg"), "{name}");
                assert!(svg.contains("v5.15"), "{name} has no legend");
            }
        }
        assert!(to_svg(|a| draw_report_chart("nope", a, &r, 0, &ChartTheme::light())).is_err());
    }

    #[test]
    fn charts_are_drawn_for_the_width_they_are_shown_at() {
        let base = report_chart_size("migrations");
        assert_eq!(fit_size(base, None, 1080.0), base, "not laid out yet: the standard size");
        assert_eq!(fit_size(base, Some(720.0), 1080.0), base);
        // A projector's full width: wide, and no taller than 60% of the room between
        // the bars (1920x1080 in presenter mode: a 73 px header, a 96 px Run bar).
        assert_eq!(fit_size(base, Some(1858.4), 1080.0), (1858, 648));
        assert_eq!(fit_size(report_chart_size("throughput"), Some(1838.0), 1080.0 - 73.0 - 96.0), (1838, 547));
        // A phone: its width, and tall enough for its text.
        assert_eq!(fit_size(base, Some(350.0), 844.0), (350, 317));
        assert_eq!(fit_size(report_chart_size("throughput"), Some(350.0), 844.0), (350, 450));
        assert_eq!(fit_size(base, Some(f64::NAN), 844.0), base);
        assert_eq!(fit_size(base, Some(20.0), 844.0).0, 200, "never narrower than 200");
    }

    /// The texts of an SVG, in order: what a reader of the chart sees.
    pub(super) fn texts(svg: &str) -> String {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                t.split_once('>').and_then(|(_, rest)| rest.split_once("</text>")).map(|(x, _)| x.trim().to_string())
            })
            .filter(|x| !x.is_empty())
            .collect::<Vec<_>>()
            .join(" | ")
    }

    fn check(svg: &str, expect: expect_test::Expect) {
        expect.assert_eq(&texts(svg));
    }

    #[test]
    fn live_charts_snapshot() {
        use crate::model::live::LivePoint;
        let p = |t_us: u64, kb: u64, mig: u64| LivePoint {
            t_ns: t_us * 1000,
            bytes: kb * 1000,
            ops: kb,
            wakeups: kb,
            migrations: mig,
        };
        let series =
            vec![vec![p(0, 0, 0), p(100, 400, 2), p(200, 900, 3)], vec![p(0, 0, 0), p(100, 300, 5), p(200, 500, 9)]];
        let names = vec!["A".to_string(), "B".to_string()];
        let th = ChartTheme::light();
        check(
            &to_svg(|a| live_throughput::draw(a, &series, &names, &th)).unwrap(),
            expect_test::expect!["Work rate over simulated time (MB/s) | MB/s | simulated ms | 0.0 | 1000.0 | 2000.0 | 3000.0 | 4000.0 | 5000.0 | 0.0 | 0.2 | 0.4 | 0.6 | 0.8 | 1.0 | A | B"],
        );
        check(
            &to_svg(|a| live_migrations::draw(a, &series, &names, &th)).unwrap(),
            expect_test::expect!["Wakeup and balance migrations so far | migrations | simulated ms | 0.0 | 1.0 | 2.0 | 3.0 | 4.0 | 5.0 | 6.0 | 7.0 | 8.0 | 9.0 | 10.0 | 0.0 | 0.2 | 0.4 | 0.6 | 0.8 | 1.0 | A | B"],
        );
    }
}
