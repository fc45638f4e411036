//! Byte cursor shared by the MSH readers: whitespace-separated ASCII tokens
//! with line numbers, fixed-size binary scalars, and the name of the section
//! being read so that running out of bytes reports which section was cut.
//!
//! `size`, `int` and `float` read one value in the file's encoding (a token in
//! ASCII files, raw bytes after `set_binary`); `ascii` always reads a token,
//! for the parts of binary files that stay text (`$PhysicalNames`, headers).

use std::path::Path;
use std::str::FromStr;

use super::{Location, MeshError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Endian {
    Little,
    Big,
}

/// `sizeof(size_t)` of the machine that wrote a binary file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SizeT {
    Four,
    Eight,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Binary {
    pub endian: Endian,
    pub size_t: SizeT,
}

pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    /// Next unread byte; always `<= bytes.len()`.
    pos: usize,
    /// 1-based line of `pos` (only reported in ASCII files).
    line: usize,
    path: &'a Path,
    /// Section being read, without `$`; empty between sections.
    section: &'a str,
    /// Set once `$MeshFormat` declared a binary file.
    binary: Option<Binary>,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8], path: &'a Path) -> Self {
        Self {
            bytes,
            pos: 0,
            line: 1,
            path,
            section: "",
            binary: None,
        }
    }

    pub fn path(&self) -> &'a Path {
        self.path
    }

    pub fn is_binary(&self) -> bool {
        self.binary.is_some()
    }

    pub fn set_binary(&mut self, binary: Binary) {
        self.binary = Some(binary);
    }

    /// Location of the next value (in ASCII files, of the next token).
    pub fn here(&mut self) -> Location {
        if self.binary.is_none() {
            self.skip_whitespace();
        }
        self.location()
    }

    fn location(&self) -> Location {
        match self.binary {
            Some(_) => Location::Byte(self.pos),
            None => Location::Line(self.line),
        }
    }

    pub fn error(&self, at: Location, message: impl Into<String>) -> MeshError {
        MeshError::Parse {
            path: self.path.to_owned(),
            at,
            message: message.into(),
        }
    }

    fn truncated(&self) -> MeshError {
        MeshError::Truncated {
            path: self.path.to_owned(),
            section: self.section.to_owned(),
            at: self.location(),
        }
    }

    fn skip_whitespace(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if b == b'\n' {
                self.line += 1;
            } else if !b.is_ascii_whitespace() {
                break;
            }
            self.pos += 1;
        }
    }

    /// Next whitespace-delimited token, or `None` at the end of the file.
    pub fn try_token(&mut self) -> Option<(&'a [u8], Location)> {
        self.skip_whitespace();
        let at = self.location();
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        let len = rest.iter().position(u8::is_ascii_whitespace).unwrap_or(rest.len());
        self.pos += len;
        rest.get(..len)
            .filter(|token| !token.is_empty())
            .map(|token| (token, at))
    }

    pub fn token(&mut self) -> Result<(&'a [u8], Location), MeshError> {
        self.try_token().ok_or_else(|| self.truncated())
    }

    /// One token parsed as `T`; `what` names it in the error ("a node tag").
    pub fn ascii<T: FromStr>(&mut self, what: &str) -> Result<T, MeshError> {
        let (token, at) = self.token()?;
        std::str::from_utf8(token)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| self.error(at, format!("expected {what}, found `{}`", show(token))))
    }

    /// The rest of the current line, trimmed; consumes its newline.
    pub fn rest_of_line(&mut self) -> Result<(&'a [u8], Location), MeshError> {
        let at = self.location();
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        if rest.is_empty() {
            return Err(self.truncated());
        }
        let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        self.pos += len;
        if self.pos < self.bytes.len() {
            self.pos += 1;
            self.line += 1;
        }
        Ok((rest.get(..len).unwrap_or_default().trim_ascii(), at))
    }

    /// The next non-blank line, trimmed.
    pub fn line(&mut self) -> Result<(&'a [u8], Location), MeshError> {
        self.skip_whitespace();
        self.rest_of_line()
    }

    /// Consumes trailing blanks and the newline that ends a header line
    /// (binary data starts right after it).
    pub fn end_line(&mut self) -> Result<(), MeshError> {
        while let Some(&b) = self.bytes.get(self.pos) {
            let at = self.location();
            self.pos += 1;
            match b {
                b'\n' => {
                    self.line += 1;
                    return Ok(());
                }
                b' ' | b'\t' | b'\r' => {}
                _ => {
                    let found = show(&[b]);
                    return Err(self.error(at, format!("unexpected `{found}` after a header")));
                }
            }
        }
        Err(self.truncated())
    }

    /// Enters `$name`, whose header token was just read.
    pub fn begin_section(&mut self, name: &'a str) -> Result<(), MeshError> {
        self.section = name;
        self.end_line()
    }

    /// Reads the next `$Name` header and enters that section; `None` at the end of the file.
    pub fn next_section(&mut self) -> Result<Option<&'a str>, MeshError> {
        let Some((token, at)) = self.try_token() else {
            return Ok(None);
        };
        let name = token
            .strip_prefix(b"$")
            .and_then(|name| std::str::from_utf8(name).ok())
            .filter(|name| !name.is_empty() && !name.starts_with("End"));
        let Some(name) = name else {
            let found = show(token);
            return Err(self.error(at, format!("expected a `$Section` header, found `{found}`")));
        };
        self.begin_section(name)?;
        Ok(Some(name))
    }

    /// Reads the `$EndName` marker of the current section.
    pub fn end_section(&mut self) -> Result<(), MeshError> {
        let (token, at) = self.token()?;
        if token.strip_prefix(b"$End") == Some(self.section.as_bytes()) {
            self.section = "";
            return Ok(());
        }
        let found = show(token);
        let section = self.section;
        Err(self.error(at, format!("expected `$End{section}`, found `{found}`")))
    }

    /// Skips the current section, whatever it holds, past its `$EndName` marker.
    pub fn skip_section(&mut self) -> Result<(), MeshError> {
        let marker = format!("$End{}", self.section);
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        let found = rest
            .windows(marker.len())
            .position(|window| window == marker.as_bytes());
        let skipped = found.map_or(rest.len(), |start| start + marker.len());
        let newlines = rest.get(..skipped).unwrap_or_default();
        self.line += newlines.iter().filter(|&&b| b == b'\n').count();
        self.pos += skipped;
        if found.is_none() {
            return Err(self.truncated());
        }
        self.section = "";
        Ok(())
    }

    /// The next `N` raw bytes.
    pub fn raw<const N: usize>(&mut self) -> Result<[u8; N], MeshError> {
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        let bytes = *rest.first_chunk::<N>().ok_or_else(|| self.truncated())?;
        self.pos += N;
        Ok(bytes)
    }

    /// A `size_t` (tags, counts).
    pub fn size(&mut self, what: &str) -> Result<u64, MeshError> {
        let Some(binary) = self.binary else {
            return self.ascii(what);
        };
        Ok(match (binary.size_t, binary.endian) {
            (SizeT::Four, Endian::Little) => u32::from_le_bytes(self.raw()?).into(),
            (SizeT::Four, Endian::Big) => u32::from_be_bytes(self.raw()?).into(),
            (SizeT::Eight, Endian::Little) => u64::from_le_bytes(self.raw()?),
            (SizeT::Eight, Endian::Big) => u64::from_be_bytes(self.raw()?),
        })
    }

    /// A `size_t` used as a count.
    pub fn count(&mut self, what: &str) -> Result<usize, MeshError> {
        let at = self.here();
        let n = self.size(what)?;
        usize::try_from(n).map_err(|_| self.error(at, format!("{what} {n} is too large")))
    }

    /// An `int` (entity tags, element types, flags).
    pub fn int(&mut self, what: &str) -> Result<i32, MeshError> {
        match self.binary.map(|binary| binary.endian) {
            None => self.ascii(what),
            Some(Endian::Little) => Ok(i32::from_le_bytes(self.raw()?)),
            Some(Endian::Big) => Ok(i32::from_be_bytes(self.raw()?)),
        }
    }

    /// A `double`, any value (bounding boxes, parametric and z coordinates).
    pub fn float(&mut self, what: &str) -> Result<f64, MeshError> {
        match self.binary.map(|binary| binary.endian) {
            None => self.ascii(what),
            Some(Endian::Little) => Ok(f64::from_le_bytes(self.raw()?)),
            Some(Endian::Big) => Ok(f64::from_be_bytes(self.raw()?)),
        }
    }

    /// A `double` that must be finite (node x and y).
    pub fn coordinate(&mut self) -> Result<f64, MeshError> {
        let at = self.here();
        let value = self.float("a coordinate")?;
        if value.is_finite() {
            Ok(value)
        } else {
            Err(self.error(at, format!("coordinate {value} is not finite")))
        }
    }
}

/// A token as it may appear in a one-line message: escaped, at most 40 characters.
pub(super) fn show(token: &[u8]) -> String {
    const MAX: usize = 40;
    let text = String::from_utf8_lossy(token);
    let mut shown: String = text.escape_debug().take(MAX).collect();
    if text.escape_debug().nth(MAX).is_some() {
        shown.push_str("...");
    }
    shown
}
