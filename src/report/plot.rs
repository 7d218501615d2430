//! `grundy octal --plot`: G(n) against n as an SVG scatter, the picture game theorists look at
//! first (periods show as repeating stripes, rare values as stray points).

use plotters::prelude::*;

/// Points drawn at most: a longer sequence is shown by evenly spaced samples of it.
const MOST_POINTS: usize = 20_000;

/// The SVG text of a plot of `values` (G(0), G(1), ...) titled `title`.
pub fn svg(title: &str, values: &[u32]) -> Result<String, String> {
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (960, 540)).into_drawing_area();
        draw(&root, title, values).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(text)
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    values: &[u32],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let last = values.len().saturating_sub(1).max(1);
    let top = values.iter().copied().max().unwrap_or(0).max(1);
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(0..last, 0..top + 1)?;
    chart.configure_mesh().x_desc("n").y_desc("G(n)").disable_mesh().draw()?;
    let step = values.len().div_ceil(MOST_POINTS).max(1);
    let points = values.iter().enumerate().step_by(step).map(|(n, &g)| (n, g));
    chart.draw_series(points.map(|p| Circle::new(p, 1, BLUE.filled())))?;
    Ok(())
}
