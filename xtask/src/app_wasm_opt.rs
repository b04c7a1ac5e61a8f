//! The wasm-opt arguments the app's wasm is built with, read from the
//! rust link of index.html, where Trunk reads them: `cargo xtask dist`
//! runs them once more over Trunk's output (`glue.rs`), and `cargo xtask
//! bench` passes its examples through them as the app's wasm is.

use anyhow::{Context, Result};

use crate::root;

/// [`app_wasm_opt_args`] of the repository's index.html; none when Trunk
/// runs no wasm-opt.
pub(crate) fn of_index() -> Result<Vec<String>> {
    let html = std::fs::read_to_string(root().join("index.html")).context("reading index.html")?;
    Ok(app_wasm_opt_args(&html)?.unwrap_or_default())
}

/// The arguments Trunk gives wasm-opt for the app's wasm, from the rust
/// link of `html` (index.html): `-O` and its `data-wasm-opt` level, then
/// its `data-wasm-opt-params`. None at level 0, where Trunk runs no
/// wasm-opt.
fn app_wasm_opt_args(html: &str) -> Result<Option<Vec<String>>> {
    let link = rust_link(html).context("index.html has no rust link for Trunk")?;
    let level = attribute(link, "data-wasm-opt")
        .context("index.html's rust link has no data-wasm-opt: the bench times the app's level")?;
    if level == "0" {
        return Ok(None);
    }
    let params = attribute(link, "data-wasm-opt-params").unwrap_or_default();
    let mut args = vec![format!("-O{level}")];
    args.extend(params.split_whitespace().map(String::from));
    Ok(Some(args))
}

/// The tag of the page's rust link for Trunk, over as many lines as it
/// takes.
fn rust_link(html: &str) -> Option<&str> {
    let at = html.find("rel=\"rust\"")?;
    let start = html[..at].rfind("<link")?;
    let end = at + html[at..].find('>')?;
    Some(&html[start..=end])
}

/// The value of `name="..."` in an HTML tag's text.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let key = format!("{name}=\"");
    let at = tag
        .match_indices(&key)
        .map(|(i, _)| i)
        .find(|&i| tag[..i].ends_with(char::is_whitespace))?;
    let start = at + key.len();
    let len = tag[start..].find('"')?;
    Some(tag[start..start + len].to_string())
}

#[cfg(test)]
mod tests {
    use super::{app_wasm_opt_args, attribute, rust_link};

    #[test]
    fn attribute_reads_a_value_by_its_whole_name() {
        let tag =
            "<link data-trunk rel=\"rust\" data-wasm-opt=\"z\"\n  data-wasm-opt-params=\"-a 0\" />";
        assert_eq!(attribute(tag, "data-wasm-opt").as_deref(), Some("z"));
        assert_eq!(
            attribute(tag, "data-wasm-opt-params").as_deref(),
            Some("-a 0")
        );
        assert_eq!(attribute(tag, "wasm-opt"), None);
        assert_eq!(attribute(tag, "data-bin"), None);
    }

    #[test]
    fn the_rust_link_is_read_whole_from_index_html() {
        let html = std::fs::read_to_string(crate::root().join("index.html")).unwrap();
        let link = rust_link(&html).unwrap();
        assert!(link.starts_with("<link") && link.ends_with("/>"), "{link}");
        let level = attribute(link, "data-wasm-opt").unwrap();
        assert!(
            ["1", "2", "3", "4", "s", "z"].contains(&level.as_str()),
            "{level}"
        );
        // Every attribute the page gives Trunk's wasm-opt reaches the bench.
        for name in ["data-wasm-opt", "data-wasm-opt-params"] {
            assert_eq!(
                html.matches(&format!("{name}=")).count(),
                usize::from(attribute(link, name).is_some()),
                "{name}"
            );
        }
    }

    #[test]
    fn wasm_opt_is_given_the_level_then_the_params_and_not_run_at_level_0() {
        let page = |level: &str| {
            format!("<link data-trunk rel=\"rust\" data-wasm-opt=\"{level}\"\n  data-wasm-opt-params=\"--a=0 --b\" />")
        };
        assert_eq!(
            app_wasm_opt_args(&page("z")).unwrap(),
            Some(vec!["-Oz".to_string(), "--a=0".into(), "--b".into()])
        );
        assert_eq!(app_wasm_opt_args(&page("0")).unwrap(), None);
        assert!(app_wasm_opt_args("<link data-trunk rel=\"rust\" />").is_err());
    }
}
