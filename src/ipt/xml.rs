//! `iptables-xml`: iptables-save text to XML, as iptables 1.8.11's `iptables-xml` writes it.
//!
//! Pure: bytes in, bytes out. The input is read as `fgets` reads it into a 10240-byte buffer
//! (a longer line is taken in pieces, each counted as a line; a NUL ends what a piece says),
//! rule lines are split into words as iptables-restore splits them (double quotes, a
//! backslash escaping the next character inside them), and every quirk of the original
//! (a chain named only in a rule is never opened, names are cut to 32 bytes, every `-` of a
//! comment is written `*-` and every second one ` *-`) is kept, so that the output is the
//! same byte for byte. An error stops the conversion where iptables-xml stops: the output so
//! far is kept and [`XmlError`] says what iptables-xml prints on standard error.
//!
//! ```
//! use iptnl::ipt::xml::{to_xml, XmlOptions};
//! let (out, err) = to_xml(b"*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p tcp -j ACCEPT\nCOMMIT\n", &XmlOptions::default());
//! assert!(err.is_none());
//! let out = String::from_utf8(out).unwrap();
//! assert!(out.starts_with("<iptables-rules version=\"1.0\">\n  <table name=\"filter\" >\n"));
//! assert!(out.contains("        <match >\n          <p >tcp</p>\n        </match>\n"));
//! assert!(out.ends_with("</iptables-rules>\n"));
//! ```

/// The program name in messages.
const PROG: &str = "iptables-xml";
/// The version in messages of the `PARAMETER_PROBLEM` kind.
const VERSION: &str = "1.8.11";
/// `fgets`' buffer.
const BUFFER: usize = 10240;
/// `XT_TABLE_MAXNAMELEN`: table and chain names are kept to this many bytes.
const NAME_MAX: usize = 32;
/// Chains per table.
const MAX_CHAINS: usize = 10240;
/// `MAX_ARGC` of the word splitter.
const MAX_ARGC: usize = 255;
/// The word splitter's buffer.
const PARAM_MAX: usize = 1024;

/// Options of iptables-xml.
#[derive(Debug, Clone, Copy, Default)]
pub struct XmlOptions {
    /// `-c`/`--combine`: the actions of consecutive rules with the same conditions go into
    /// one `<rule>`.
    pub combine: bool,
    /// `-v`/`--verbose`: each input line is repeated as a comment before its XML.
    pub verbose: bool,
}

/// Why the conversion stopped: what iptables-xml prints on standard error, and its exit
/// status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XmlError {
    /// The text for standard error, newlines included.
    pub message: String,
    /// The exit status (1, or 2 for a parameter problem).
    pub status: i32,
}

impl XmlError {
    fn failed(message: String) -> XmlError {
        XmlError { message, status: 1 }
    }

    /// iptables' `xtables_error(PARAMETER_PROBLEM, …)`.
    fn parameter(msg: &str, line: usize) -> XmlError {
        XmlError {
            message: format!(
                "{PROG} v{VERSION}: {msg}\nError occurred at line: {line}\n\
                 Try `{PROG} -h' or '{PROG} --help' for more information.\n"
            ),
            status: 2,
        }
    }
}

/// A chain line, kept until its chain is opened.
struct SavedChain {
    name: Vec<u8>,
    policy: Vec<u8>,
    counters: (u64, u64),
    created: bool,
}

/// One word of a rule line, and whether it was quoted.
#[derive(Clone)]
struct Word {
    text: Vec<u8>,
    quoted: bool,
}

/// The converter's state (iptables-xml's globals).
struct Xml {
    out: Vec<u8>,
    opts: XmlOptions,
    close_action: bool,
    close_rule: bool,
    table: Vec<u8>,
    chain: Vec<u8>,
    chains: Vec<SavedChain>,
}

fn cut(name: &[u8]) -> Vec<u8> {
    name[..name.len().min(NAME_MAX)].to_vec()
}

fn is_target(w: &[u8]) -> bool {
    matches!(w, b"-j" | b"--jump" | b"-g" | b"--goto")
}

fn is_terminating(w: &[u8]) -> bool {
    matches!(w, b"ACCEPT" | b"DROP" | b"QUEUE" | b"RETURN")
}

fn first(w: &[u8]) -> u8 {
    w.first().copied().unwrap_or(0)
}

/// `sscanf("[%llu:%llu]")`: each number that reads, or 0.
fn parse_counters(s: Option<&[u8]>) -> (u64, u64) {
    use super::ext::base::libxt::scan_llu_prefix;
    let Some(s) = s.and_then(|s| s.strip_prefix(b"[")) else {
        return (0, 0);
    };
    let Some((p, rest)) = scan_llu_prefix(s) else {
        return (0, 0);
    };
    let b = rest
        .strip_prefix(b":")
        .and_then(scan_llu_prefix)
        .map_or(0, |(b, _)| b);
    (p, b)
}

/// [`strtok`], or iptables-xml's parameter problem `msg()` at `line` when no token is left.
fn strtok_or(
    buf: &mut [u8],
    from: &mut usize,
    delims: &[u8],
    line: usize,
    msg: impl FnOnce() -> String,
) -> Result<(usize, usize), XmlError> {
    strtok(buf, from, delims).ok_or_else(|| XmlError::parameter(&msg(), line))
}

/// C `strtok` over a NUL-terminated buffer: `from` is where the last call stopped.
fn strtok(buf: &mut [u8], from: &mut usize, delims: &[u8]) -> Option<(usize, usize)> {
    let mut i = *from;
    while i < buf.len() && buf[i] != 0 && delims.contains(&buf[i]) {
        i += 1;
    }
    if i >= buf.len() || buf[i] == 0 {
        *from = i;
        return None;
    }
    let start = i;
    while i < buf.len() && buf[i] != 0 && !delims.contains(&buf[i]) {
        i += 1;
    }
    if i < buf.len() && buf[i] != 0 {
        buf[i] = 0;
        *from = i + 1;
    } else {
        *from = i;
    }
    Some((start, i))
}

/// The C string at `at`.
fn cstr(buf: &[u8], at: usize) -> &[u8] {
    let s = buf.get(at..).unwrap_or_default();
    &s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())]
}

/// iptables-restore's word splitter (`add_param_to_argv`).
fn split_words(s: &[u8], line: usize) -> Result<Vec<Word>, XmlError> {
    let mut words = Vec::new();
    let mut param = Vec::new();
    let (mut open, mut escaped, mut quoted) = (false, false, false);
    let add = |words: &mut Vec<Word>, text: Vec<u8>, quoted: bool| {
        if words.len() + 1 >= MAX_ARGC {
            return Err(XmlError::parameter(
                "Parser cannot handle more arguments",
                line,
            ));
        }
        words.push(Word { text, quoted });
        Ok(())
    };
    let push = |param: &mut Vec<u8>, c: u8| {
        param.push(c);
        if param.len() >= PARAM_MAX {
            return Err(XmlError::parameter("Parameter too long!", line));
        }
        Ok(())
    };
    for &c in s {
        if open {
            if escaped {
                push(&mut param, c)?;
                escaped = false;
                continue;
            } else if c == b'\\' {
                escaped = true;
                continue;
            } else if c == b'"' {
                open = false;
            } else {
                push(&mut param, c)?;
                continue;
            }
        } else if c == b'"' {
            open = true;
            quoted = true;
            continue;
        }
        match c {
            b'"' => {}
            b' ' | b'\t' | b'\n' => {
                if param.is_empty() {
                    continue;
                }
            }
            _ => {
                push(&mut param, c)?;
                continue;
            }
        }
        add(&mut words, std::mem::take(&mut param), quoted)?;
        quoted = false;
    }
    if !param.is_empty() {
        add(&mut words, param, false)?;
    }
    Ok(words)
}

impl Xml {
    fn put(&mut self, s: &str) {
        self.out.extend_from_slice(s.as_bytes());
    }

    fn raw(&mut self, s: &[u8]) {
        self.out.extend_from_slice(s);
    }

    /// `xmlEncode`.
    fn encode(&mut self, s: &[u8]) {
        for &c in s {
            match c {
                127.. => self.put(&format!("&#{c};")),
                b'&' => self.put("&amp;"),
                b'<' => self.put("&lt;"),
                b'>' => self.put("&gt;"),
                b'"' => self.put("&quot;"),
                c => self.out.push(c),
            }
        }
    }

    /// `xmlCommentEscape`.
    fn comment_escape(&mut self, s: &[u8]) {
        let mut hyphens = 0;
        for (i, &c) in s.iter().enumerate() {
            if c == b'-' {
                hyphens += 1;
                if hyphens >= 2 {
                    hyphens = 0;
                    self.out.push(b' ');
                }
                self.out.push(b'*');
            }
            if !(c == b'\n' && i + 1 == s.len()) {
                self.out.push(c);
            }
        }
    }

    fn comment(&mut self, s: &[u8]) {
        self.put("<!-- ");
        self.comment_escape(s);
        self.put(" -->\n");
    }

    fn attr_s(&mut self, name: &str, value: &[u8]) {
        self.put(name);
        self.put("=\"");
        self.encode(value);
        self.put("\" ");
    }

    fn attr_i(&mut self, name: &str, v: u64) {
        // `%lld` of the unsigned counter.
        self.put(&format!("{name}=\"{}\" ", v as i64));
    }

    fn close_tags(&mut self) {
        if self.close_action {
            self.put("       </actions>\n\n");
            self.close_action = false;
        }
        if self.close_rule {
            self.put("      </rule>\n\n");
            self.close_rule = false;
        }
    }

    fn close_chain(&mut self) {
        if self.chain.is_empty() {
            return;
        }
        self.close_tags();
        self.put("    </chain>\n");
        self.chain.clear();
    }

    fn open_chain(&mut self, name: &[u8], policy: &[u8], counters: (u64, u64), close: bool) {
        self.close_chain();
        self.chain = cut(name);
        self.put("    <chain ");
        let c = self.chain.clone();
        self.attr_s("name", &c);
        if policy != b"-" {
            self.attr_s("policy", policy);
        }
        self.attr_i("packet-count", counters.0);
        self.attr_i("byte-count", counters.1);
        if close {
            self.put("/");
            self.chain.clear();
        }
        self.put(">\n");
    }

    fn exists_chain(&self, name: &[u8]) -> bool {
        self.chain == name || self.chains.iter().any(|c| c.name == name)
    }

    fn need_chain(&mut self, name: &[u8]) {
        if self.chain == name {
            return;
        }
        for i in 0..self.chains.len() {
            if self.chains[i].name == name {
                let (n, p, c) = (
                    self.chains[i].name.clone(),
                    self.chains[i].policy.clone(),
                    self.chains[i].counters,
                );
                self.open_chain(&n, &p, c, false);
                self.chains[i].created = true;
            }
        }
    }

    fn finish_chains(&mut self) {
        for c in std::mem::take(&mut self.chains) {
            if !c.created {
                self.open_chain(&c.name, &c.policy, c.counters, true);
            }
        }
    }

    fn close_table(&mut self) {
        self.close_chain();
        self.finish_chains();
        if !self.table.is_empty() {
            self.put("  </table>\n");
        }
        self.table.clear();
    }

    fn open_table(&mut self, name: &[u8]) {
        self.close_table();
        self.table = cut(name);
        self.put("  <table ");
        let t = self.table.clone();
        self.attr_s("name", &t);
        self.put(">\n");
    }

    /// `do_rule_part`: the conditions (`actions == false`) or the actions of a rule.
    fn rule_part(&mut self, actions: bool, argv: &[Word]) {
        const IND1: &str = "        ";
        const IND2: &str = "          ";
        let argc = argv.len();
        let mut arg = 2;
        let mut invert_next = false;
        let mut spacer = "";
        let mut level1: Option<Vec<u8>> = None;
        let mut level2: Option<Vec<u8>> = None;
        let w = |i: usize| argv[i].text.as_slice();
        let q = |i: usize| argv[i].quoted;
        if actions {
            while arg < argc && (q(arg) || !is_target(w(arg))) {
                arg += 1;
            }
        }
        let i = if arg < argc && w(arg) == b"!" {
            arg + 1
        } else {
            arg
        };
        if i < argc && first(w(i)) == b'-' && !is_target(w(i)) && w(i) != b"-m" {
            level1 = Some(b"match".to_vec());
            self.put(IND1);
            self.put("<match >\n");
        }
        fn close(x: &mut Xml, level: &mut Option<Vec<u8>>) {
            if let Some(l) = level.take() {
                x.put("</");
                x.raw(&l);
                x.put(">\n");
            }
        }
        fn open(x: &mut Xml, level: &mut Option<Vec<u8>>, ind: &str, tag: &[u8]) {
            *level = Some(tag.to_vec());
            x.put(ind);
            x.put("<");
            x.raw(tag);
            x.put(" ");
        }
        while arg < argc {
            if !actions && !q(arg) && is_target(w(arg)) {
                break;
            } else if !q(arg) && w(arg) == b"!" {
                if arg + 1 < argc && first(w(arg + 1)) == b'-' {
                    invert_next = true;
                } else {
                    self.put(spacer);
                    self.raw(w(arg));
                }
                spacer = " ";
            } else if !q(arg)
                && is_target(w(arg))
                && arg + 1 < argc
                && self.exists_chain(w(arg + 1))
            {
                close(self, &mut level2);
                if level1.is_some() {
                    self.put(IND1);
                }
                close(self, &mut level1);
                spacer = "";
                invert_next = false;
                let what: &[u8] = if matches!(w(arg), b"-g" | b"--goto") {
                    b"goto"
                } else {
                    b"call"
                };
                open(self, &mut level1, IND1, what);
                self.put(">\n");
                arg += 1;
                open(self, &mut level2, IND2, w(arg));
                self.put("/>\n");
                level2 = None;
            } else if !q(arg) && (is_target(w(arg)) || matches!(w(arg), b"-m" | b"--module")) {
                if arg + 1 >= argc {
                    break;
                }
                close(self, &mut level2);
                if level1.is_some() {
                    self.put(IND1);
                }
                close(self, &mut level1);
                spacer = "";
                invert_next = false;
                arg += 1;
                open(self, &mut level1, IND1, w(arg));
                if arg + 1 >= argc
                    || (!q(arg + 1)
                        && (is_target(w(arg + 1)) || matches!(w(arg + 1), b"-m" | b"--module")))
                {
                    self.put(" />\n");
                    level1 = None;
                } else {
                    self.put(">\n");
                }
            } else if !q(arg) && first(w(arg)) == b'-' {
                close(self, &mut level2);
                let tag = w(arg);
                let tag = &tag[tag.iter().position(|&c| c != b'-').unwrap_or(tag.len())..];
                spacer = "";
                open(self, &mut level2, IND2, tag);
                if invert_next {
                    self.put(" invert=\"1\"");
                }
                invert_next = false;
                if arg + 1 >= argc || first(w(arg + 1)) == b'-' {
                    self.put(" />\n");
                    level2 = None;
                } else {
                    self.put(">");
                }
            } else {
                let quote = w(arg).contains(&b' ') || q(arg);
                self.put(spacer);
                if quote {
                    self.put("&quot;");
                }
                self.encode(w(arg));
                if quote {
                    self.put("&quot;");
                }
                spacer = " ";
            }
            arg += 1;
        }
        close(self, &mut level2);
        if level1.is_some() {
            self.put(IND1);
        }
        close(self, &mut level1);
    }

    /// `do_rule`.
    fn rule(&mut self, counters: (Option<&[u8]>, Option<&[u8]>), argv: &[Word], last: &[Word]) {
        let conditions = argv.len() > 2 && !is_target(&argv[2].text);
        if self.opts.combine && conditions && same_conditions(argv, last) {
            self.comment(b"Combine action from next rule");
        } else {
            self.close_tags();
            self.put("      <rule ");
            if let Some(p) = counters.0 {
                self.attr_s("packet-count", p);
            }
            if let Some(b) = counters.1 {
                self.attr_s("byte-count", b);
            }
            self.put(">\n");
            self.close_rule = true;
            if argv.len() >= 3 && conditions {
                self.put("       <conditions>\n");
                self.rule_part(false, argv);
                self.put("       </conditions>\n");
            }
        }
        if !self.close_action {
            self.put("       <actions>\n");
            self.close_action = true;
        }
        self.rule_part(true, argv);
    }
}

/// `compareRules`: the same words up to the target of both, and the earlier rule's target
/// does not end the rule.
fn same_conditions(new: &[Word], old: &[Word]) -> bool {
    for (i, (n, o)) in new.iter().zip(old).enumerate() {
        if is_target(&o.text) && is_target(&n.text) {
            let jump = matches!(o.text.as_slice(), b"-j" | b"--jump");
            let ends = (jump && old.get(i + 1).is_some_and(|t| is_terminating(&t.text)))
                || matches!(o.text.as_slice(), b"-g" | b"--goto");
            return !ends;
        }
        if n.text != o.text {
            return false;
        }
    }
    false
}

/// The `fgets` pieces of `input`: each up to a newline (kept) or 10239 bytes.
fn pieces(input: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = input;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let max = rest.len().min(BUFFER - 1);
        let end = rest[..max]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(max, |i| i + 1);
        let (piece, r) = rest.split_at(end);
        rest = r;
        Some(piece)
    })
}

/// Converts iptables-save text to XML as iptables-xml does: the output, and the error that
/// stopped it, if one did (the output then holds what iptables-xml wrote before stopping;
/// `-v`'s `xptables-xml` line, printed while the options are read, is not part of it).
pub fn to_xml(input: &[u8], opts: &XmlOptions) -> (Vec<u8>, Option<XmlError>) {
    let mut x = Xml {
        out: Vec::new(),
        opts: *opts,
        close_action: false,
        close_rule: false,
        table: Vec::new(),
        chain: Vec::new(),
        chains: Vec::new(),
    };
    let err = convert(&mut x, input).err();
    (x.out, err)
}

fn convert(x: &mut Xml, input: &[u8]) -> Result<(), XmlError> {
    x.put("<iptables-rules version=\"1.0\">\n");
    let mut last: Vec<Word> = Vec::new();
    let mut line = 0;
    for piece in pieces(input) {
        line += 1;
        // What the C string holds: up to a NUL.
        let text = &piece[..piece.iter().position(|&b| b == 0).unwrap_or(piece.len())];
        let mut buf = text.to_vec();
        buf.push(0);
        if first(text) == b'\n' {
            continue;
        } else if first(text) == b'#' {
            x.comment(text);
            continue;
        }
        if x.opts.verbose {
            x.put(&format!("<!-- line {line} "));
            x.comment_escape(text);
            x.put(" -->\n");
        }
        let ok = if text == b"COMMIT\n" && !x.table.is_empty() {
            x.close_table();
            true
        } else if first(text) == b'*' {
            let mut at = 1;
            let (s, e) = strtok_or(&mut buf, &mut at, b" \t\n", line, || {
                format!("{PROG}: line {line} table name invalid")
            })?;
            let name = buf[s..e].to_vec();
            x.open_table(&name);
            true
        } else if first(text) == b':' && !x.table.is_empty() {
            let mut at = 1;
            let (s, e) = strtok_or(&mut buf, &mut at, b" \t\n", line, || {
                format!("{PROG}: line {line} chain name invalid")
            })?;
            let chain = buf[s..e].to_vec();
            let (s, e) = strtok_or(&mut buf, &mut at, b" \t\n", line, || {
                format!("{PROG}: line {line} policy invalid")
            })?;
            let policy = buf[s..e].to_vec();
            let ctrs = strtok(&mut buf, &mut at, b" \t\n").map(|(s, e)| buf[s..e].to_vec());
            let counters = parse_counters(ctrs.as_deref());
            if x.chains.len() >= MAX_CHAINS {
                return Err(XmlError::parameter(
                    &format!("{PROG}: line {line} chain name invalid"),
                    line,
                ));
            }
            x.chains.push(SavedChain {
                name: chain,
                policy,
                counters,
                created: false,
            });
            true
        } else if !x.table.is_empty() {
            // `tokenize_rule_counters`.
            let mut start = 0;
            let mut counters = (None, None);
            if first(text) == b'[' {
                let Some(close) = text.iter().position(|&b| b == b']') else {
                    return Err(XmlError::parameter(
                        &format!("Bad line {line}: need ]"),
                        line,
                    ));
                };
                let mut at = 1;
                let p = strtok_or(&mut buf, &mut at, b":", line, || {
                    format!("Bad line {line}: need :")
                })?;
                let b = strtok_or(&mut buf, &mut at, b"]", line, || {
                    format!("Bad line {line}: need ]")
                })?;
                counters = (Some(p), Some(b));
                start = close + 1;
            }
            let words = split_words(cstr(&buf, start), line)?;
            let Some(chain) = words
                .windows(2)
                .find(|w| w[0].text == b"-A")
                .map(|w| w[1].text.clone())
            else {
                return Err(XmlError::failed(format!(
                    "{PROG}: line {line} failed - no chain found\n"
                )));
            };
            x.need_chain(&chain);
            let p = counters.0.map(|(s, _)| cstr(&buf, s).to_vec());
            let b = counters.1.map(|(s, _)| cstr(&buf, s).to_vec());
            x.rule((p.as_deref(), b.as_deref()), &words, &last);
            last = words;
            true
        } else {
            false
        };
        if !ok {
            return Err(XmlError::failed(format!("{PROG}: line {line} failed\n")));
        }
    }
    if !x.table.is_empty() {
        return Err(XmlError::failed(format!(
            "{PROG}: COMMIT expected at line {}\n",
            line + 1
        )));
    }
    x.put("</iptables-rules>\n");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xml(input: &str, combine: bool) -> (String, Option<XmlError>) {
        let (o, e) = to_xml(
            input.as_bytes(),
            &XmlOptions {
                combine,
                verbose: false,
            },
        );
        (String::from_utf8_lossy(&o).into_owned(), e)
    }

    #[test]
    fn rules_calls_and_combined_actions() {
        let input = "# Generated by iptables-save v1.6.1\n*mangle\n:PREROUTING ACCEPT [0:0]\n\
                     :PRE_x - [0:0]\n[1:2] -A PREROUTING -j PRE_x\n\
                     [0:0] -A PREROUTING -o virbr0 -p udp -m udp --dport 68 -j CHECKSUM --checksum-fill\n\
                     COMMIT\n";
        let (out, err) = xml(input, false);
        assert!(err.is_none());
        assert_eq!(
            out,
            "<iptables-rules version=\"1.0\">\n\
             <!-- # Generated by iptables*-save v1.6.1 -->\n\
             \x20 <table name=\"mangle\" >\n\
             \x20   <chain name=\"PREROUTING\" policy=\"ACCEPT\" packet-count=\"0\" byte-count=\"0\" >\n\
             \x20     <rule packet-count=\"1\" byte-count=\"2\" >\n\
             \x20      <actions>\n\
             \x20       <call >\n\
             \x20         <PRE_x />\n\
             \x20       </call>\n\
             \x20      </actions>\n\n\
             \x20     </rule>\n\n\
             \x20     <rule packet-count=\"0\" byte-count=\"0\" >\n\
             \x20      <conditions>\n\
             \x20       <match >\n\
             \x20         <o >virbr0</o>\n\
             \x20         <p >udp</p>\n\
             \x20       </match>\n\
             \x20       <udp >\n\
             \x20         <dport >68</dport>\n\
             \x20       </udp>\n\
             \x20      </conditions>\n\
             \x20      <actions>\n\
             \x20       <CHECKSUM >\n\
             \x20         <checksum-fill  />\n\
             \x20       </CHECKSUM>\n\
             \x20      </actions>\n\n\
             \x20     </rule>\n\n\
             \x20   </chain>\n\
             \x20   <chain name=\"PRE_x\" packet-count=\"0\" byte-count=\"0\" />\n\
             \x20 </table>\n\
             </iptables-rules>\n"
        );
        let two = "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p tcp -j LOG\n-A INPUT -p tcp -j DROP\nCOMMIT\n";
        assert!(xml(two, true)
            .0
            .contains("<!-- Combine action from next rule -->"));
        assert!(!xml(two, false).0.contains("Combine"));
    }

    #[test]
    fn errors_as_iptables_xml_reports_them() {
        assert_eq!(
            xml("*filter\n", false).1.unwrap().message,
            "iptables-xml: COMMIT expected at line 2\n"
        );
        assert_eq!(
            xml("COMMIT\n", false).1.unwrap().message,
            "iptables-xml: line 1 failed\n"
        );
        let e = xml("*\n", false).1.unwrap();
        assert_eq!(e.status, 2);
        assert!(e.message.starts_with("iptables-xml v1.8.11: iptables-xml: line 1 table name invalid\nError occurred at line: 1\n"));
        assert_eq!(
            xml("*filter\n-I INPUT\n", false).1.unwrap().message,
            "iptables-xml: line 2 failed - no chain found\n"
        );
    }

    /// Odd lines never panic.
    #[test]
    fn odd_input_never_panics() {
        let odd = [
            "*filter\n[\n",
            "*filter\n[1\n",
            "*filter\n[1:2\n",
            "*filter\n[:]\n",
            "*filter\n[12] -A x:y\n",
            "*filter\n-A\n",
            "*filter\n-A x !\n",
            "*filter\n-A x ! -j\n",
            "*filter\n-A x -m\n",
            "*filter\n-A x -j\n",
            "*filter\n-A x \"\n",
            "*filter\n-A x \"a\\\n",
            "*filter\n:\n",
            "*filter\n:x\n",
            "*filter\n:x y [a:b]\n-A x -g x\n-A x -g x\n",
            "\0\n*\0\n",
            "\u{ff}\n",
            "*filter\n-A x \"\" -- - ! ! -\n",
            "*t\n*u\nCOMMIT",
            "*filter\n:c - [18446744073709551615:-1]\nCOMMIT\n",
        ];
        for o in odd {
            for combine in [false, true] {
                let _ = xml(o, combine);
                let _ = to_xml(
                    o.as_bytes(),
                    &XmlOptions {
                        combine,
                        verbose: true,
                    },
                );
            }
        }
        let long = format!("*filter\n-A x {}\n", "a".repeat(20000));
        assert!(xml(&long, false).1.is_some());
        let many = format!("*filter\n-A x {}\n", "a ".repeat(300));
        assert_eq!(xml(&many, false).1.unwrap().status, 2);
        // Every byte value and split point.
        let bytes: Vec<u8> = (0..=255u8).collect();
        for i in 0..bytes.len() {
            let mut input = b"*filter\n-A c ".to_vec();
            input.extend_from_slice(&bytes[i..]);
            let _ = to_xml(
                &input,
                &XmlOptions {
                    combine: true,
                    verbose: true,
                },
            );
        }
    }
}
