//! What a handle remembers of the last restore it applied, so that the same input again
//! costs neither a parse nor a read of the ruleset.
//!
//! A restore that succeeded leaves the kernel holding what its input says at a generation
//! it knows exactly: the one after its commit (the batch carried the generation it was
//! planned against, and a commit moves it by one), or the one it read when nothing needed
//! changing. While the ruleset is still at that generation, nobody has changed anything
//! since, and the same input with the same options would find nothing to change: the handle
//! answers it from the memo after one generation read.
//!
//! Only inputs whose second application is a no-op are remembered: chain lines, appends
//! (with `--noflush`, only to user chains the same table block declares, which it empties
//! first; a built-in chain's line does not empty it), comments and `COMMIT`, and nothing
//! whose encoding depends on anything but the ruleset and the text: no ipset references (a set's index can change under its name, and no ruleset
//! generation says so), no counters of rules (`-c`, `[P:B]`) or, with `--counters`, of
//! built-in chains (a kube-proxy resync, `--noflush --counters` with user chains only, is
//! remembered), and neither `--test` nor `--verbose`. Anything else is restored as before.

use super::{RestoreOptions, RestoreReport};
use crate::ipt::tables::find_table;
use crate::iptables::fnv::FastSet;

/// Text that makes an input's encoding depend on more than the ruleset: ipset names (the
/// `set` match and the `SET` target) and a rule's own counters.
const CONTEXT: [&[u8]; 4] = [b"match-set", b"-j SET", b" -c ", b"--set-counters"];

/// The last restore applied through a handle.
#[derive(Debug)]
pub(crate) struct RestoreMemo {
    input: Box<str>,
    opts: RestoreOptions,
    /// The generation at which the kernel holds what `input` says.
    genid: u32,
    tables: Vec<String>,
    /// The rules the input put or kept in place.
    rules: usize,
}

impl RestoreMemo {
    /// The memo of a restore of `input` with `opts` that reported `report`, or `None` when
    /// it cannot answer a later restore (see the module's documentation).
    pub(crate) fn new(
        input: &str,
        opts: &RestoreOptions,
        report: &RestoreReport,
    ) -> Option<RestoreMemo> {
        let genid = report.generation?;
        if opts.test || opts.verbose || !idempotent(input, opts.noflush, opts.counters) {
            return None;
        }
        Some(RestoreMemo {
            input: input.into(),
            opts: opts.clone(),
            genid,
            tables: report.tables.clone(),
            rules: report.rules_added + report.rules_kept,
        })
    }

    /// Whether a restore of `input` with `opts` is the one remembered.
    pub(crate) fn same(&self, input: &str, opts: &RestoreOptions) -> bool {
        self.opts == *opts && *self.input == *input
    }

    /// What the restore remembered does again at generation `now`: nothing, when the
    /// ruleset has not moved since; `None` when it has.
    pub(crate) fn answer(&self, now: u32) -> Option<RestoreReport> {
        (now == self.genid).then(|| RestoreReport {
            tables: self.tables.clone(),
            rules_kept: self.rules,
            generation: Some(now),
            remembered: true,
            ..RestoreReport::default()
        })
    }
}

/// Whether applying `input` a second time, right after the first, changes nothing: it holds
/// only comments, table and chain lines (with `counters`, no built-in chain's line, which
/// sets the chain's counters again), `COMMIT` and appends (with `noflush`, appends only to
/// user chains that a chain line of the same table block empties first), and none of
/// [`CONTEXT`].
fn idempotent(input: &str, noflush: bool, counters: bool) -> bool {
    let bytes = input.as_bytes();
    if CONTEXT
        .iter()
        .any(|c| memchr::memmem::find(bytes, c).is_some())
    {
        return false;
    }
    let mut declared: FastSet<&str> = FastSet::default();
    let mut table = None;
    for line in input.split('\n') {
        match line.as_bytes().first() {
            None | Some(b'#') => {}
            Some(b'*') => {
                declared.clear();
                table = find_table(line[1..].trim_end());
            }
            Some(b':') => {
                let Some(name) = line[1..].split_ascii_whitespace().next() else {
                    return false;
                };
                // With --noflush a built-in chain's line sets its policy and leaves its
                // rules; a user chain's line empties it.
                match table.map(|t| t.builtin(name).is_some()) {
                    Some(false) => {
                        declared.insert(name);
                    }
                    Some(true) if counters => return false,
                    _ => {}
                }
            }
            _ if line.trim_end() == "COMMIT" => {}
            _ => {
                let Some(rest) = line.strip_prefix("-A ") else {
                    return false;
                };
                if noflush {
                    match rest.split_ascii_whitespace().next() {
                        Some(chain) if declared.contains(chain) => {}
                        _ => return false,
                    }
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_inputs_that_change_nothing_twice_are_remembered() {
        let full = "# c\n*nat\n:PREROUTING ACCEPT [0:0]\n:KUBE-SVC - [0:0]\n\
                    -A PREROUTING -j KUBE-SVC\n-A KUBE-SVC -p tcp -j DNAT --to-destination 10.0.0.1\n\
                    COMMIT\n";
        assert!(idempotent(full, false, false));
        // With --noflush, its appends to built-in chains add copies.
        assert!(!idempotent(full, true, false));
        let user = "*nat\n:KUBE-SVC - [0:0]\n-A KUBE-SVC -j RETURN\nCOMMIT\n";
        assert!(idempotent(user, true, false));
        // With --counters: user chains only (kube-proxy's resync), not a built-in chain's
        // line, which sets its counters again.
        assert!(idempotent(user, true, true));
        assert!(!idempotent(full, false, true));
        // With --noflush, an append to a chain the block does not empty adds a copy again.
        let undeclared = "*nat\n:KUBE-SVC - [0:0]\n-A OUTPUT -j KUBE-SVC\nCOMMIT\n";
        assert!(idempotent(undeclared, false, false));
        assert!(!idempotent(undeclared, true, false));
        // A built-in chain's line does not empty it.
        let builtin = "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -j ACCEPT\nCOMMIT\n";
        assert!(idempotent(builtin, false, false));
        assert!(!idempotent(builtin, true, false));
        // Declared in another table's block does not count.
        let other = "*filter\n:X - [0:0]\nCOMMIT\n*nat\n-A X -j RETURN\nCOMMIT\n";
        assert!(!idempotent(other, true, false));
        for line in [
            "-I INPUT -j ACCEPT",
            "-D INPUT -j ACCEPT",
            "-N X",
            "-X X",
            "-F INPUT",
            "-P INPUT DROP",
            "-p tcp -A INPUT -j ACCEPT",
            "[1:2] -A INPUT -j ACCEPT",
            "-A INPUT -m set --match-set s src -j DROP",
            "-A INPUT -j SET --add-set s src",
            "-A INPUT -c 1 2 -j ACCEPT",
        ] {
            let input = format!("*filter\n:INPUT ACCEPT [0:0]\n{line}\nCOMMIT\n");
            assert!(!idempotent(&input, false, false), "{line}");
        }
    }

    #[test]
    fn a_memo_answers_only_its_input_at_its_generation() {
        let input = "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -j ACCEPT\nCOMMIT\n";
        let opts = RestoreOptions::default();
        let report = RestoreReport {
            tables: vec!["filter".into()],
            rules_added: 1,
            generation: Some(7),
            ..RestoreReport::default()
        };
        let m = RestoreMemo::new(input, &opts, &report).unwrap();
        assert!(m.same(input, &opts));
        assert!(!m.same(&input.replace("ACCEPT\nCOMMIT", "DROP\nCOMMIT"), &opts));
        let noflush = RestoreOptions {
            noflush: true,
            ..RestoreOptions::default()
        };
        assert!(!m.same(input, &noflush));
        let again = m.answer(7).unwrap();
        assert_eq!((again.ops, again.rules_added, again.rules_kept), (0, 0, 1));
        assert!(again.remembered);
        assert_eq!(again.tables, ["filter"]);
        assert!(m.answer(8).is_none());
        // Nothing to remember without a known generation, or with options that make a
        // second application do something.
        let unknown = RestoreReport {
            generation: None,
            ..report.clone()
        };
        assert!(RestoreMemo::new(input, &opts, &unknown).is_none());
        for o in [
            RestoreOptions {
                test: true,
                ..RestoreOptions::default()
            },
            RestoreOptions {
                verbose: true,
                ..RestoreOptions::default()
            },
        ] {
            assert!(RestoreMemo::new(input, &o, &report).is_none(), "{o:?}");
        }
    }
}
