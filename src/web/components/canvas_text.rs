//! Plotters' canvas backend with text measured by the canvas itself.
//!
//! `plotters_canvas::CanvasBackend` (0.3.1) keeps `DrawingBackend`'s default
//! `estimate_text_size`, which asks the font (`plotters::style::font::web`, 0.3.7): it
//! appends a `<span>` to the page's body, reads its `offsetHeight`/`offsetWidth` and
//! removes it, a forced layout of the whole page for every tick label and legend entry.
//! With a sweep's results on the page that was most of the main thread's time while a
//! chart drew (Chromium's profiler, seed004 on 8 workers, 2026-12-07: forced layouts
//! and the browser's own work 70-100 ms of each 70-135 ms stretch), and the page's
//! long tasks. `CanvasRenderingContext2D.measureText` measures the same font string the
//! backend draws with and lays nothing out.

use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind};
use plotters_canvas::CanvasBackend;

/// The canvas backend's error (not exported by name).
type CanvasError = <CanvasBackend as DrawingBackend>::ErrorType;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// A [`CanvasBackend`] whose text is measured with `measureText`.
pub struct MeasuredCanvas {
    inner: CanvasBackend,
    context: CanvasRenderingContext2d,
}

impl MeasuredCanvas {
    pub fn new(canvas: &HtmlCanvasElement) -> Option<MeasuredCanvas> {
        let context = canvas.get_context("2d").ok()??.dyn_into::<CanvasRenderingContext2d>().ok()?;
        let inner = CanvasBackend::with_canvas_object(canvas.clone())?;
        Some(MeasuredCanvas { inner, context })
    }
}

impl DrawingBackend for MeasuredCanvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.present()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_path(path, style)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.fill_polygon(vert, style)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_circle(center, radius, style, fill)
    }
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_text(text, style, pos)
    }

    /// The text's advance width and its font's ascent plus descent (what a `<span>` of
    /// `line-height: normal` measured before), rounded to pixels as `offsetWidth` was.
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        // The font string `CanvasBackend::draw_text` sets.
        self.context.set_font(&format!("{} {}px {}", style.style().as_str(), style.size(), style.family().as_str()));
        let m = self
            .context
            .measure_text(text)
            .map_err(|e| DrawingErrorKind::FontError(format!("measureText: {e:?}").into()))?;
        let height = m.font_bounding_box_ascent() + m.font_bounding_box_descent();
        Ok((m.width().round().max(0.0) as u32, height.round().max(0.0) as u32))
    }
}
