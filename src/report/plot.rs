//! `grundy octal --plot`: G(n) against n as an SVG scatter, the picture game theorists look at
//! first (periods show as repeating stripes, rare values as stray points).

use plotters::prelude::*;

/// Points drawn at most: a longer sequence is shown by evenly spaced samples of it.
const MOST_POINTS: usize = 20_000;

/// The SVG text of a plot of G(0..len), read through `value`, titled `title`. Only the
/// values drawn are read: a long sequence need not be held to be drawn.
pub fn svg(title: &str, len: usize, value: &dyn Fn(usize) -> u32) -> Result<String, String> {
    let step = len.div_ceil(MOST_POINTS).max(1);
    let points: Vec<(usize, u32)> = (0..len).step_by(step).map(|n| (n, value(n))).collect();
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (960, 540)).into_drawing_area();
        draw(&root, title, len, &points).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(text)
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    len: usize,
    points: &[(usize, u32)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let last = len.saturating_sub(1).max(1);
    let top = points.iter().map(|&(_, g)| g).max().unwrap_or(0).max(1);
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(0..last, 0..top + 1)?;
    chart.configure_mesh().x_desc("n").y_desc("G(n)").disable_mesh().draw()?;
    chart.draw_series(points.iter().map(|&p| Circle::new(p, 1, BLUE.filled())))?;
    Ok(())
}
