//! RuleSpec → the line iptables-nft-save prints.

use std::fmt::Write;

use super::ext::save_inv;
use super::proto::proto_name;
use super::spec::{RuleSpec, RuleTarget};

impl RuleSpec {
    /// The rule's arguments as iptables-save prints them after `-A CHAIN`.
    ///
    /// ```
    /// use iptnl::ipt::{parse_rule, IpFamily};
    /// let r = &parse_rule(IpFamily::V4, &["!", "-s", "10.0.0.1", "-i", "eth+", "-j", "DROP"]).unwrap()[0];
    /// assert_eq!(r.to_save_args(), "! -s 10.0.0.1/32 -i eth+ -j DROP");
    /// ```
    pub fn to_save_args(&self) -> String {
        if let Some(v) = &self.view {
            return v.to_save_args();
        }
        if let Some(raw) = &self.raw {
            return format!(
                "-m {} {} {}",
                super::raw::RAW_MATCH,
                super::raw::RAW_OPTION,
                raw.to_hex()
            );
        }
        let mut out = String::with_capacity(64);
        self.save_addrs(&mut out);
        self.save_core(&mut out);
        for m in &self.matches {
            let _ = write!(out, " -m {}", m.save_name());
            m.save(self.family, &mut out);
        }
        if !self.save_core_target(&mut out) {
            if let Some(RuleTarget::Ext(t)) = &self.target {
                let _ = write!(out, " -j {}", t.save_name());
                t.save(self.family, &mut out);
            }
        }
        if out.starts_with(' ') {
            out.remove(0);
        }
        out
    }

    /// Appends ` -s ADDR` and ` -d ADDR`, each after its ` !`.
    fn save_addrs(&self, out: &mut String) {
        if let Some(s) = &self.src {
            save_inv(out, s.inv);
            let _ = write!(out, " -s {}", s.addr);
        }
        if let Some(d) = &self.dst {
            save_inv(out, d.inv);
            let _ = write!(out, " -d {}", d.addr);
        }
    }

    /// Appends the other fields of `ipt_entry` as a save prints them: `-i`, `-o`, `-p`, `-f`.
    pub(crate) fn save_core(&self, out: &mut String) {
        // `-i +` matches every interface: iptables-nft does not print it.
        if let Some(i) = self.in_iface.as_ref().filter(|i| i.inv || i.name != "+") {
            save_inv(out, i.inv);
            let _ = write!(out, " -i {}", i.name);
        }
        if let Some(o) = self.out_iface.as_ref().filter(|o| o.inv || o.name != "+") {
            save_inv(out, o.inv);
            let _ = write!(out, " -o {}", o.name);
        }
        if let Some(p) = self.proto.filter(|p| p.num != 0) {
            save_inv(out, p.inv);
            match proto_name(p.num, self.family) {
                Some(n) => {
                    let _ = write!(out, " -p {n}");
                }
                None => {
                    let _ = write!(out, " -p {}", p.num);
                }
            }
        }
        if let Some(f) = self.frag {
            save_inv(out, !f);
            out.push_str(" -f");
        }
    }

    /// Appends the target when it is a verdict or a chain (`-j ACCEPT`, `-g CHAIN`); false
    /// when it is an extension or there is none.
    pub(crate) fn save_core_target(&self, out: &mut String) -> bool {
        match &self.target {
            None | Some(RuleTarget::Ext(_)) => return false,
            Some(RuleTarget::Accept) => out.push_str(" -j ACCEPT"),
            Some(RuleTarget::Drop) => out.push_str(" -j DROP"),
            Some(RuleTarget::Return) => out.push_str(" -j RETURN"),
            Some(RuleTarget::Queue) => out.push_str(" -j QUEUE"),
            Some(RuleTarget::Jump(c)) => {
                let _ = write!(out, " -j {c}");
            }
            Some(RuleTarget::Goto(c)) => {
                let _ = write!(out, " -g {c}");
            }
        }
        true
    }

    /// The whole save line: `-A CHAIN …`, with `[packets:bytes] ` in front when `counters`.
    pub fn to_save_line(&self, chain: &str, counters: bool) -> String {
        let args = self.to_save_args();
        let mut out = String::with_capacity(args.len() + chain.len() + 24);
        if counters {
            let (p, b) = self.counters.unwrap_or((0, 0));
            let _ = write!(out, "[{p}:{b}] ");
        }
        out.push_str("-A ");
        out.push_str(chain);
        if !args.is_empty() {
            out.push(' ');
            out.push_str(&args);
        }
        out
    }
}
