//! SVG paths built once and drawn many times: the plots' curves and the
//! scrubber's density. The props compare by pointer, so a render that
//! keeps the same memoised paths skips them; comparing path strings of
//! hundreds of kilobytes took milliseconds on every step.

use std::rc::Rc;

use yew::prelude::*;

/// Paths with their CSS classes.
pub type Paths = Vec<(AttrValue, &'static str)>;

#[derive(Properties)]
pub struct SvgPathsProps {
    pub paths: Rc<Paths>,
}

impl PartialEq for SvgPathsProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.paths, &other.paths)
    }
}

#[component]
pub fn SvgPaths(props: &SvgPathsProps) -> Html {
    props
        .paths
        .iter()
        .map(|(d, class)| html! { <path d={d.clone()} class={*class} /> })
        .collect()
}

/// Appends `v` with `decimals` digits after the point, as `{:.N}` writes
/// it but rounding halves away from zero: the scaled value's digits, as
/// integers. A view's paths hold tens of thousands of numbers, and the
/// exact float formatting behind `{:.N}` cost milliseconds of the render
/// that first draws a built view; so did `write!` of the integers, the
/// formatting machinery's own work (8.5 ms of the 16 GiB link's last
/// 250 ms before it was drawn, in a profile of a load).
pub fn push_fixed(out: &mut String, v: f64, decimals: u32) {
    let scale = 10u64.pow(decimals);
    let scaled = (v * scale as f64).round();
    if scaled < 0.0 {
        out.push('-');
    }
    let n = scaled.abs() as u64;
    let mut digits = itoa::Buffer::new();
    out.push_str(digits.format(n / scale));
    if decimals > 0 {
        out.push('.');
        let frac = digits.format(n % scale);
        for _ in frac.len()..decimals as usize {
            out.push('0');
        }
        out.push_str(frac);
    }
}

#[cfg(test)]
mod tests {
    use super::push_fixed;

    #[test]
    fn fixed_numbers_read_as_format_writes_them() {
        for decimals in [1, 2] {
            let scale = 10f64.powi(decimals as i32);
            for i in -30_000..30_000 {
                let v = i as f64 * 0.0137;
                let frac = (v.abs() * scale).fract();
                // Halves round differently, and `{:.N}` writes "-0.0".
                if (frac - 0.5).abs() < 1e-6 || (v < 0.0 && (v * scale).round() == 0.0) {
                    continue;
                }
                let mut mine = String::new();
                push_fixed(&mut mine, v, decimals);
                assert_eq!(mine, format!("{v:.*}", decimals as usize), "{v}");
            }
        }
    }
}
