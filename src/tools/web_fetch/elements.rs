//! What the nesting pass (`nesting.rs`) needs to know of an element's name, as the HTML
//! parser (html5ever, through htmd) treats it: a tag name folded to lower case and hashed,
//! and its kind — the tags the tree builder closes implicitly, the scope boundaries of its
//! searches, the formatting elements it may open again, the void and raw-text elements.

/// A tag name: its hash (lower case) and, when it names an element of interest, which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Name {
    pub hash: u64,
    pub tag: Tag,
}

impl Name {
    /// The name in `raw` (any case).
    pub fn of(raw: &[u8]) -> Name {
        let mut lower = [0u8; 16];
        let tag = match lower.get_mut(..raw.len()) {
            Some(lower) => {
                lower.copy_from_slice(raw);
                lower.make_ascii_lowercase();
                Tag::of(lower)
            }
            None => Tag::Other,
        };
        Name { hash: hash(raw), tag }
    }
}

/// FNV-1a of `raw` folded to lower case.
pub const fn hash(raw: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < raw.len() {
        hash = (hash ^ raw[i].to_ascii_lowercase() as u64).wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

/// The elements the nesting pass treats apart; everything else is `Other`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tag {
    A,
    Applet,
    Body,
    Br,
    Button,
    Caption,
    Col,
    Colgroup,
    Dd,
    Dt,
    Font,
    Form,
    Formatting,
    Frameset,
    Head,
    Heading,
    Hr,
    Html,
    Li,
    Marquee,
    Math,
    Nobr,
    Object,
    Ol,
    Optgroup,
    Option,
    P,
    Plaintext,
    Select,
    Svg,
    Table,
    Tbody,
    Td,
    Template,
    Tfoot,
    Th,
    Thead,
    Tr,
    Ul,
    /// Read as raw text (or RCDATA) in HTML content: its content holds no tags.
    Raw(RawKind),
    /// Never has content.
    Void,
    /// Closes an open `<p>` (in button scope) when it starts.
    ClosesP,
    Other,
}

/// Which raw-text element (`xmp` also closes a `<p>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawKind {
    Xmp,
    Other,
}

impl Tag {
    fn of(lower: &[u8]) -> Tag {
        match lower {
            b"a" => Tag::A,
            b"applet" => Tag::Applet,
            b"body" => Tag::Body,
            b"br" => Tag::Br,
            b"button" => Tag::Button,
            b"caption" => Tag::Caption,
            b"col" => Tag::Col,
            b"colgroup" => Tag::Colgroup,
            b"dd" => Tag::Dd,
            b"dt" => Tag::Dt,
            b"font" => Tag::Font,
            b"b" | b"big" | b"code" | b"em" | b"i" | b"s" | b"small" | b"strike" | b"strong" | b"tt" | b"u" => {
                Tag::Formatting
            }
            b"form" => Tag::Form,
            b"frameset" => Tag::Frameset,
            b"head" => Tag::Head,
            b"h1" | b"h2" | b"h3" | b"h4" | b"h5" | b"h6" => Tag::Heading,
            b"hr" => Tag::Hr,
            b"html" => Tag::Html,
            b"li" => Tag::Li,
            b"marquee" => Tag::Marquee,
            b"math" => Tag::Math,
            b"nobr" => Tag::Nobr,
            b"object" => Tag::Object,
            b"ol" => Tag::Ol,
            b"optgroup" => Tag::Optgroup,
            b"option" => Tag::Option,
            b"p" => Tag::P,
            b"plaintext" => Tag::Plaintext,
            b"select" => Tag::Select,
            b"svg" => Tag::Svg,
            b"table" => Tag::Table,
            b"tbody" => Tag::Tbody,
            b"td" => Tag::Td,
            b"template" => Tag::Template,
            b"tfoot" => Tag::Tfoot,
            b"th" => Tag::Th,
            b"thead" => Tag::Thead,
            b"tr" => Tag::Tr,
            b"ul" => Tag::Ul,
            b"xmp" => Tag::Raw(RawKind::Xmp),
            b"script" | b"style" | b"iframe" | b"noembed" | b"noframes" | b"noscript" | b"textarea" | b"title" => {
                Tag::Raw(RawKind::Other)
            }
            b"area" | b"base" | b"basefont" | b"bgsound" | b"embed" | b"frame" | b"image" | b"img" | b"input"
            | b"keygen" | b"link" | b"meta" | b"param" | b"source" | b"track" | b"wbr" => Tag::Void,
            b"address" | b"article" | b"aside" | b"blockquote" | b"center" | b"details" | b"dialog" | b"dir"
            | b"div" | b"dl" | b"fieldset" | b"figcaption" | b"figure" | b"footer" | b"header" | b"hgroup"
            | b"listing" | b"main" | b"menu" | b"nav" | b"pre" | b"search" | b"section" | b"summary" => Tag::ClosesP,
            _ => Tag::Other,
        }
    }

    /// In the parser's "special" category (for HTML elements).
    pub fn special(self) -> bool {
        !matches!(
            self,
            Tag::A
                | Tag::Font
                | Tag::Formatting
                | Tag::Nobr
                | Tag::Optgroup
                | Tag::Option
                | Tag::Other
                | Tag::Math
                | Tag::Svg
        )
    }

    /// A boundary of the default scope (`applet`, `caption`, `html`, `table`, `td`, `th`,
    /// `marquee`, `object`, `template`, and in html5ever `select`).
    pub fn scope_boundary(self) -> bool {
        matches!(
            self,
            Tag::Applet
                | Tag::Caption
                | Tag::Html
                | Tag::Table
                | Tag::Td
                | Tag::Th
                | Tag::Marquee
                | Tag::Object
                | Tag::Select
                | Tag::Template
        )
    }

    /// Puts a marker in the list of active formatting elements.
    pub fn marker(self) -> bool {
        matches!(self, Tag::Applet | Tag::Caption | Tag::Td | Tag::Th | Tag::Marquee | Tag::Object | Tag::Template)
    }

    /// Part of a table's structure, for the nearest-table-context search.
    pub fn table_part(self) -> bool {
        matches!(
            self,
            Tag::Table
                | Tag::Tbody
                | Tag::Thead
                | Tag::Tfoot
                | Tag::Tr
                | Tag::Td
                | Tag::Th
                | Tag::Caption
                | Tag::Template
        )
    }
}

/// Start tags that leave foreign content (SVG, MathML) for HTML.
const BREAKOUTS: [u64; 44] = [
    hash(b"b"),
    hash(b"big"),
    hash(b"blockquote"),
    hash(b"body"),
    hash(b"br"),
    hash(b"center"),
    hash(b"code"),
    hash(b"dd"),
    hash(b"div"),
    hash(b"dl"),
    hash(b"dt"),
    hash(b"em"),
    hash(b"embed"),
    hash(b"h1"),
    hash(b"h2"),
    hash(b"h3"),
    hash(b"h4"),
    hash(b"h5"),
    hash(b"h6"),
    hash(b"head"),
    hash(b"hr"),
    hash(b"i"),
    hash(b"img"),
    hash(b"li"),
    hash(b"listing"),
    hash(b"menu"),
    hash(b"meta"),
    hash(b"nobr"),
    hash(b"ol"),
    hash(b"p"),
    hash(b"pre"),
    hash(b"ruby"),
    hash(b"s"),
    hash(b"small"),
    hash(b"span"),
    hash(b"strong"),
    hash(b"strike"),
    hash(b"sub"),
    hash(b"sup"),
    hash(b"table"),
    hash(b"tt"),
    hash(b"u"),
    hash(b"ul"),
    hash(b"var"),
];

/// Foreign elements where HTML content may start again (SVG `foreignObject`, `desc`,
/// `title`; MathML `mi`, `mo`, `mn`, `ms`, `mtext`, `annotation-xml`).
const INTEGRATION_POINTS: [u64; 9] = [
    hash(b"foreignobject"),
    hash(b"desc"),
    hash(b"title"),
    hash(b"mi"),
    hash(b"mo"),
    hash(b"mn"),
    hash(b"ms"),
    hash(b"mtext"),
    hash(b"annotation-xml"),
];

/// A start tag that leaves foreign content for HTML (`font` only with a `color`, `face`
/// or `size` attribute, which the caller checks).
pub fn breaks_out(name: &Name) -> bool {
    BREAKOUTS.contains(&name.hash)
}

/// A foreign element where HTML content may start again: special, and a boundary of every
/// scope.
pub fn integration_point(hash: u64) -> bool {
    INTEGRATION_POINTS.contains(&hash)
}
