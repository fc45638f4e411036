//! A small element tree over quick-xml, for reading our result files back.
//!
//! ```text
//!   text ──quick-xml events──▶ stack of open elements ──End──▶ parent.children
//!   Start/Empty  name, attributes (unescaped: `&amp;` -> `&`), line of the `<`
//!   Text/CDATA   appended to the innermost open element (entity references resolved)
//!   Eof          every element closed, exactly one root
//! ```
//! Well-formedness is checked here (quick-xml's end-name and attribute checks,
//! plus unclosed elements at the end of input); what the elements mean is
//! [`super::read`]'s business. Errors are [`Error::ResultFile`] naming the file
//! and the line and column of the problem.

use std::path::Path;

use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use crate::error::{Error, Result};

/// One element: its name, unescaped attributes, child elements and the
/// character data directly inside it.
#[derive(Debug, Default)]
pub(super) struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
    pub text: String,
    /// 1-based line of the start tag.
    pub line: usize,
}

impl Element {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    pub fn children<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a Element> {
        self.children.iter().filter(move |c| c.name == name)
    }
}

/// An error about `path`.
pub(super) fn bad(path: &Path, message: impl Into<String>) -> Error {
    Error::ResultFile {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// 1-based line and column (in bytes) of byte `pos` of `text`.
fn line_col(text: &str, pos: u64) -> (usize, usize) {
    let pos = usize::try_from(pos).unwrap_or(usize::MAX).min(text.len());
    let before = &text.as_bytes()[..pos];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = pos - before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

fn at(path: &Path, text: &str, pos: u64, message: impl std::fmt::Display) -> Error {
    let (line, col) = line_col(text, pos);
    bad(path, format!("line {line}, column {col}: {message}"))
}

/// Parse `text` (the contents of `path`) into its root element.
pub(super) fn parse(path: &Path, text: &str) -> Result<Element> {
    let mut reader = Reader::from_str(text);
    let mut open: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    loop {
        let pos = reader.buffer_position();
        let event = reader
            .read_event()
            .map_err(|e| at(path, text, reader.error_position(), format!("malformed XML: {e}")))?;
        let line = || line_col(text, pos).0;
        match event {
            Event::Start(tag) => open.push(element(path, text, pos, &tag, line())?),
            Event::Empty(tag) => {
                let el = element(path, text, pos, &tag, line())?;
                close(path, text, pos, el, &mut open, &mut root)?;
            }
            Event::End(_) => {
                // quick-xml has checked that the name matches the open element.
                let el = open
                    .pop()
                    .ok_or_else(|| at(path, text, pos, "closing tag with no open element"))?;
                close(path, text, pos, el, &mut open, &mut root)?;
            }
            Event::Text(t) => push_text(path, text, pos, &mut open, &t.xml10_content())?,
            Event::CData(t) => push_text(path, text, pos, &mut open, &t.xml10_content())?,
            Event::GeneralRef(r) => {
                let c = resolve(&r).ok_or_else(|| {
                    at(
                        path,
                        text,
                        pos,
                        format!("unknown entity reference `&{};`", r.xml10_content()),
                    )
                })?;
                push_text(path, text, pos, &mut open, &c)?;
            }
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {}
            Event::Eof => break,
        }
    }
    if let Some(el) = open.last() {
        let (end, _) = line_col(text, text.len() as u64);
        return Err(bad(
            path,
            format!(
                "truncated: `<{}>` opened on line {} is not closed when the file ends (line {end})",
                el.name, el.line
            ),
        ));
    }
    root.ok_or_else(|| bad(path, "no XML element in the file (empty, or not XML)"))
}

fn element(path: &Path, text: &str, pos: u64, tag: &BytesStart, line: usize) -> Result<Element> {
    let mut attrs = Vec::new();
    for a in tag.attributes() {
        let a = a.map_err(|e| at(path, text, pos, format!("malformed attribute: {e}")))?;
        let value = a
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| at(path, text, pos, format!("attribute `{}`: {e}", a.key.as_ref())))?;
        attrs.push((a.key.as_ref().to_string(), value.into_owned()));
    }
    Ok(Element {
        name: tag.name().as_ref().to_string(),
        attrs,
        line,
        ..Element::default()
    })
}

/// `el` is complete: attach it to its parent, or make it the root.
fn close(
    path: &Path,
    text: &str,
    pos: u64,
    el: Element,
    open: &mut [Element],
    root: &mut Option<Element>,
) -> Result<()> {
    match open.last_mut() {
        Some(parent) => parent.children.push(el),
        None if root.is_some() => return Err(at(path, text, pos, "a second root element")),
        None => *root = Some(el),
    }
    Ok(())
}

fn push_text(path: &Path, text: &str, pos: u64, open: &mut [Element], s: &str) -> Result<()> {
    match open.last_mut() {
        Some(el) => el.text.push_str(s),
        None if s.trim().is_empty() => {}
        None => return Err(at(path, text, pos, "text outside the root element (not an XML file?)")),
    }
    Ok(())
}

/// A character reference or one of the five predefined entities.
fn resolve(r: &BytesRef) -> Option<String> {
    match r.resolve_char_ref() {
        Ok(Some(c)) => Some(c.to_string()),
        Ok(None) => quick_xml::escape::resolve_predefined_entity(&r.xml10_content()).map(str::to_string),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_from_one() {
        let t = "ab\ncd\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 4), (2, 2));
        assert_eq!(line_col(t, 99), (3, 1));
    }

    #[test]
    fn attributes_and_text_are_unescaped() {
        let p = Path::new("x.xml");
        let root = parse(p, "<a f=\"x &amp; &quot;y&quot;\">1 &#50; <![CDATA[3]]></a>").unwrap();
        assert_eq!(root.attr("f"), Some("x & \"y\""));
        assert_eq!(root.text, "1 2 3");
    }
}
