//! Reading a view back from mail text: an export as sent, a reply that
//! quotes it (`> `, `>> `), text a mail client re-wrapped at its own
//! width, or a bare permalink.
//!
//! Exports never wrap the link, but mail clients may: some cut a long
//! line wherever it reaches their width, so the link's tail starts the
//! next line. A line is taken as the link's continuation only when the
//! link's line is long enough to have been cut, the next line starts with
//! characters a URL may hold, and the joined link reads no worse than
//! the link alone (with the lines after it joined too, when they are
//! tails as well), so that a word on the next line is never glued to a
//! whole link. Older exports wrapped long links inside `<...>` with indented
//! lines (RFC 3986, appendix C); those are read too.

use crate::link::{parse_link, Parsed};

/// A line shorter than this was not cut by a mail client: its next line
/// starts something new. Clients wrap at 66 to 80 columns; narrow phone
/// clients lower still.
const WRAPPED_MIN: usize = 40;

/// Rebuilds a view from an exported text, or from a bare permalink. The
/// error names what is missing.
pub fn parse_text(text: &str) -> Result<Parsed, String> {
    let lines: Vec<Line> = text.lines().map(Line::new).collect();
    if let Some(p) = bracketed(&lines) {
        return Ok(p);
    }
    for (i, line) in lines.iter().enumerate() {
        let words: Vec<&str> = line.text.split_whitespace().collect();
        let Some(at) = words.iter().position(|w| starts_link(w)) else {
            continue;
        };
        // Punctuation is trimmed off the end only once the link is whole:
        // a cut link may end in a comma of its own.
        let mut link = words[at].trim_start_matches(OPENERS).to_string();
        // The link joined with 0, 1, 2, ... of the lines after it, while
        // each could be a cut line's tail; the longest that ignores the
        // fewest parameters wins, since a line cut inside a value reads
        // badly until its own tail is joined too.
        let mut joins = vec![link.clone()];
        let mut last = at + 1 == words.len();
        let mut here = i;
        while last && lines[here].width >= WRAPPED_MIN && !link.ends_with(ENDS) {
            let Some(next) = lines.get(here + 1) else {
                break;
            };
            let rest: Vec<&str> = next.text.split_whitespace().collect();
            let Some(first) = rest.first().filter(|w| w.chars().all(url_char)) else {
                break;
            };
            link.push_str(first);
            joins.push(link.clone());
            last = rest.len() == 1;
            here += 1;
        }
        let ignored = |l: &String| parse_link(l).ignored.len();
        let fewest = joins.iter().map(ignored).min().unwrap_or(0);
        let Some(link) = joins.iter().rev().find(|l| ignored(l) == fewest) else {
            continue;
        };
        return Ok(parse_link(link.trim_end_matches(CLOSERS)));
    }
    Err("text: no folioscope link in it (a line with ?v=1&...)".into())
}

/// A line of the text without its quote marks, and how wide it was.
struct Line {
    text: String,
    width: usize,
}

impl Line {
    fn new(raw: &str) -> Line {
        Line {
            text: unquote(raw).to_string(),
            width: raw.trim_end().chars().count(),
        }
    }
}

/// The line without the `>` marks (and the spaces between them) that
/// replies put before quoted lines.
fn unquote(line: &str) -> &str {
    let mut rest = line;
    loop {
        let t = rest.trim_start();
        match t.strip_prefix('>') {
            Some(after) => rest = after,
            None => return if rest.len() == line.len() { line } else { t },
        }
    }
}

/// Whether a word begins a folioscope link.
fn starts_link(word: &str) -> bool {
    word.contains("?v=") || word.starts_with("v=") || word.contains("?preset=")
}

/// What prose puts before a link, and after it.
const OPENERS: [char; 4] = ['<', '(', '"', '\''];
const CLOSERS: [char; 7] = ['>', ')', '.', ',', ';', '"', '\''];
/// Closers a link never holds itself (links percent-encode them): a link
/// ending in one is whole. A '.' or ',' may be where a cut fell.
const ENDS: [char; 5] = ['>', ')', ';', '"', '\''];

/// A character a URL may hold (RFC 3986's unreserved, reserved and `%`).
fn url_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~:/?#[]@!$&'()*+,;=%".contains(c)
}

/// A link an older export wrapped inside `<...>` over several lines.
fn bracketed(lines: &[Line]) -> Option<Parsed> {
    let start = lines.iter().position(|l| {
        l.text
            .find('<')
            .is_some_and(|i| starts_link(&l.text[i..]) || l.text[i..].starts_with("<http"))
    })?;
    let mut inner = String::new();
    for (k, line) in lines[start..].iter().enumerate() {
        let t = if k == 0 {
            &line.text[line.text.find('<')? + 1..]
        } else {
            line.text.as_str()
        };
        match t.find('>') {
            Some(end) => {
                inner.extend(t[..end].chars().filter(|c| !c.is_whitespace()));
                return (inner.contains("?v=") || inner.contains("&v="))
                    .then(|| parse_link(&inner));
            }
            None => inner.extend(t.chars().filter(|c| !c.is_whitespace())),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINK: &str = "https://folioscope.example/app/?v=1&preset=seed000-rev-huge\
                        &kernel=v7.4-rc2,v7.4-rc2+desc-ra&step=51234&zoom=100-5000&mark=readahead";

    /// The view the link opens, to compare readings with.
    fn want() -> Parsed {
        let p = parse_link(LINK);
        assert_eq!(p.ignored, vec![]);
        p
    }

    /// Cuts every line longer than `width` as a mail client does: at
    /// the last space that fits, or where the width ends, keeping the
    /// line's quote marks on the lines it makes.
    fn rewrap(text: &str, width: usize) -> String {
        let mut out = Vec::new();
        for line in text.lines() {
            let quote = &line[..line.len() - unquote(line).len()];
            let mut rest = line.to_string();
            while rest.chars().count() > width {
                let cut = rest[..width]
                    .rfind(' ')
                    .filter(|&i| i > quote.len())
                    .unwrap_or(width);
                out.push(rest[..cut].to_string());
                rest = format!("{quote}{}", rest[cut..].trim_start());
            }
            out.push(rest);
        }
        out.join("\n")
    }

    fn quote(text: &str, marks: &str) -> String {
        text.lines()
            .map(|l| format!("{marks}{l}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_quoted_reply_opens_the_same_view() {
        let mail = format!("Look at this:\n{LINK}\n\nThanks.\n");
        for marks in ["> ", ">> ", "> > ", ">"] {
            assert_eq!(parse_text(&quote(&mail, marks)), Ok(want()), "{marks:?}");
        }
    }

    #[test]
    fn a_link_a_mail_client_cut_is_joined() {
        let mail = format!("Look at this:\n{LINK}\nThanks for the report.\n");
        for width in [40, 66, 72, 78] {
            for marks in ["", "> ", ">> "] {
                let text = rewrap(&quote(&mail, marks), width);
                assert!(text.lines().count() > 3, "{text}");
                assert_eq!(parse_text(&text), Ok(want()), "{text}");
            }
        }
    }

    /// The case: the kernel cut as `v7.4-rc2+des` / `c-ra`.
    #[test]
    fn a_link_cut_inside_a_kernel_keeps_the_kernel() {
        let (head, tail) = LINK.split_at(LINK.find("des").unwrap() + 3);
        assert!(head.ends_with("+des"));
        let text = format!("> {head}\n> {tail}\n>\n> thanks\n");
        assert_eq!(parse_text(&text), Ok(want()));
    }

    #[test]
    fn a_word_after_a_whole_link_is_not_glued_to_it() {
        for after in ["Thanks.", "&", "34", "ok"] {
            let text = format!("{LINK}\n{after}\n");
            assert_eq!(parse_text(&text), Ok(want()), "{after}");
        }
        // A short line was not cut: what follows it is not its tail.
        let text = "?v=1&step=5\n0\n";
        assert_eq!(parse_text(text).unwrap().view.step, Some(5));
    }

    #[test]
    fn an_older_exports_bracketed_link_opens_quoted_too() {
        let (a, b) = LINK.split_at(70);
        let old = format!("folioscope: a scenario\n<{a}\n {b}>\n\nrev 2G file\n");
        assert_eq!(parse_text(&old), Ok(want()));
        assert_eq!(parse_text(&quote(&old, "> ")), Ok(want()));
    }

    #[test]
    fn prose_around_a_bare_link_is_left_out() {
        let text = "See (?v=1&preset=seed000-rev-huge&step=7).";
        assert_eq!(parse_text(text).unwrap().view.step, Some(7));
        // Closed by a bracket, a long line's link takes nothing more.
        let text = format!("Have a look at this one ({LINK})\nok\n");
        assert_eq!(parse_text(&text), Ok(want()));
        assert!(parse_text("> hello\n>> there")
            .unwrap_err()
            .starts_with("text:"));
    }
}
