//! A restore that refills chains sends only what changed.
//!
//! When a restore empties and refills a chain (a user chain line with `--noflush`, or any
//! chain of a table restored without `--noflush` that the kernel already has), the chain
//! lines and the appends that follow them are not planned one by one: their rules are
//! encoded and kept aside, per table. When the table's input is over (or a command comes
//! that depends on positions, `-I n`, `-D`, `-R`, `-X`, …: the table is then settled first
//! and planned as before from there on), the kernel's rules of those chains are read, each
//! chain's wanted rules are compared with them in order ([`ordered_edit`]: the longest run
//! of rules that stay, in place), and only the difference goes into the batch: rules that
//! go are deleted by handle, new rules are inserted before the next rule that stays (or
//! appended), so that each chain ends up exactly in the input's order. Chains the input
//! declares that the kernel lacks are created before any rule; policies are sent only when
//! they differ; a table restored without `--noflush` loses the chains its input does not
//! declare, after every rule that goes. The batch still carries the generation id of what
//! was read, so a concurrent change makes the restore plan again; a batch left empty is not
//! committed at all.
//!
//! Two rules are the same when their encoded form is: the expressions, in the form the
//! kernel takes on input, with the packet and byte values of counters left out, and the
//! user data (the comment); never the rules' iptables reading. A rule iptables cannot
//! express, or one that `nft` wrote, is compared the same way and so is kept only when the
//! input carries exactly its bytes.
//!
//! Counters: a rule that stays keeps its counters (a resync of a kube-proxy ruleset does not
//! reset them). A rule the input gives counters (its own `-c PACKETS BYTES`, or with
//! `--counters` a `[PACKETS:BYTES]` before it) is always written again, with them, and with
//! `--counters` a built-in chain whose line gives counters is sent with them, so that the
//! counters the input gives are the ones the kernel ends up holding. (kube-proxy restores
//! with `--noflush --counters` and gives no rule counters: its resync is compared like any
//! other.)
//!
//! The kernel's rules are read chain by chain, only for the chains the input refills, each
//! rule's key computed from its dump message as it comes (a chain the input only appends
//! to is not read: its appends go after whatever it holds, so that a `--noflush` restore
//! of a few rules costs the same beside chains of any length); with hundreds of chains, half of
//! them are read on a second connection by a helper thread meanwhile (the generation the
//! batch carries covers both). A table restored without
//! `--noflush` is listed whole only when its use count says it holds more than those chains:
//! what iptables cannot see there (named sets, stateful objects, flowtables, base chains
//! iptables calls incompatible) stays, and a chain the input does not declare that those
//! still jump to is emptied and kept, as when such a table is rebuilt.
//!
//! Limits: a rule with anonymous sets of its own (only a rule carried whole has them) is
//! always written again; a table named a second time in one input (without `--noflush` it
//! is deleted again there, as iptables-nft deletes it), and whatever comes in a table after
//! a command that reads positions, is planned as before (a chain line there empties its
//! chain and its rules are written again); an empty block of a table restored without
//! `--noflush`, or one that starts with `-F`, `-X` or `-Z` of the whole table, empties it as
//! before. A built-in chain is sent when the kernel's has no counters (an older iptables-nft
//! made it), so that it counts from then on.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use super::beside::Named;
use super::state::{Entry, FastSet};
use super::{builtin, At, ChainEdit, Op, Pending, PlanError, Planner, Refusal, RulesetView};
use crate::ipt::tables::is_foreign_base_chain;
use crate::ipt::{encode_rule_into_for, RuleTarget};
use crate::iptables::error::Error;
use crate::iptables::sync::diff::ordered_edit;
use crate::netlink::{DecodeError, DumpStatus, Message, MsgWriter};
use crate::nft::{Chain, Placement, Policy, Rule, RuleCompat};

mod keys;

use keys::{hash_bytes, key_bytes, Key, Keys, Match};

type Plan<T> = Result<T, PlanError>;

/// A map by chain name hashed with [`Fnv`](super::state::Fnv) (a restore looks a chain up
/// for each of its rules).
type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<super::state::Fnv>>;

/// The tables of a restore whose refilled chains are compared with the kernel's.
#[derive(Debug, Default)]
pub(crate) struct Rewrites {
    /// Tables whose rules are kept aside, in input order.
    pending: Vec<TableRewrite>,
    /// Tables already settled (named again in the input: planned as before).
    settled: FastSet<String>,
    /// Reused for encoding each rule's key.
    buf: MsgWriter,
}

/// One table's chain lines and appends, kept aside.
#[derive(Debug)]
struct TableRewrite {
    name: String,
    /// Restored without `--noflush`: the kernel's chains its input does not declare go.
    rebuilt: bool,
    /// The `*table` line.
    line: u32,
    /// The table's use count as listed (its chains, sets, objects and flowtables).
    use_count: Option<u32>,
    /// Whether any line of its block came (an empty block of a rebuilt table deletes it).
    items: bool,
    /// Chains in the order the input first names them.
    chains: Vec<ChainRewrite>,
    index: FastMap<String, usize>,
    /// The wanted rules, in input order.
    wanted: Vec<Wanted>,
    /// Their keys, one after another.
    arena: Vec<u8>,
}

/// One chain's wanted state.
#[derive(Debug)]
struct ChainRewrite {
    name: String,
    /// Its rules are to be exactly `rules` (declared by a user chain line, or any chain of
    /// a rebuilt table); otherwise `rules` are appended to what it holds.
    refill: bool,
    /// The policy the input sets (built-in chains).
    policy: Option<Policy>,
    /// The packet and byte counters the input gives a built-in chain (`--counters`): the
    /// chain is then sent with them.
    counters: Option<(u64, u64)>,
    /// The line that first named it.
    line: u32,
    /// Indexes into [`TableRewrite::wanted`].
    rules: Vec<u32>,
}

/// A wanted rule: its key in the arena (which is also what writes it back), the compat
/// attribute it is sent with, its input line, and whether the input gives its counters
/// (`-c PACKETS BYTES`): such a rule is written with them (its arena bytes keep their
/// values) and never stands for a rule the kernel holds, so that the kernel ends up holding
/// the counters given.
#[derive(Debug, Clone, Copy)]
struct Wanted {
    at: usize,
    len: usize,
    hash: u64,
    compat: Option<RuleCompat>,
    line: u32,
    counted: bool,
}

/// What the kernel holds of a chain, as read, and what to do to it.
#[derive(Debug, Default)]
struct Held {
    policy: Option<Policy>,
    steps: Steps,
    /// The rules decoded, when more is planned after the table is settled.
    rules: Option<Arc<Vec<Rule>>>,
    /// Not read: the chain is only appended to, so what it holds stays as it is, and its
    /// rules are not needed (nor are they known afterwards).
    unread: bool,
}

/// How a chain becomes what the input says: the handles of the rules that go, then, in the
/// chain's final order, each rule that stays and each one written.
#[derive(Debug, Default)]
struct Steps {
    delete: Vec<u64>,
    order: Vec<Step>,
}

#[derive(Debug, Clone, Copy)]
enum Step {
    /// The kernel's rule of this handle stays.
    Keep(u64),
    /// The chain's wanted rule of this index is written there.
    Write(usize, Placement),
}

/// Reads one chain's rules, handing each dump message to the callback (`None`: no such
/// chain).
type EachRule<'a> = dyn FnMut(
        &str,
        &mut dyn FnMut(&Message<'_>) -> Result<(), DecodeError>,
    ) -> Result<Option<DumpStatus>, Error>
    + 'a;

/// The steps of the chains `todo` names (indexes into `tw.chains`), each read with `each_rule`
/// and compared as its dump comes; `None` for a chain that does not exist.
fn read_steps(
    tw: &TableRewrite,
    todo: &[(usize, Option<Policy>)],
    buf: &mut MsgWriter,
    each_rule: &mut EachRule<'_>,
) -> Result<Vec<Option<Steps>>, Error> {
    // One buffer for every chain's keys, used again from chain to chain.
    let mut keys = Keys::default();
    let mut out = Vec::with_capacity(todo.len());
    for &(i, _) in todo {
        let Some(cw) = tw.chains.get(i) else {
            out.push(None);
            continue;
        };
        keys.clear();
        let st = each_rule(&cw.name, &mut |m| keys.push_msg(m, buf))?;
        out.push(st.map(|_| steps(tw, cw, &keys)));
    }
    Ok(out)
}

/// The steps that turn the rules `now` of a chain into the wanted ones of `cw`.
fn steps(tw: &TableRewrite, cw: &ChainRewrite, now: &Keys) -> Steps {
    let key_of = |i: u32| {
        let w = tw.wanted.get(i as usize).copied();
        Key {
            hash: w.map_or(0, |w| w.hash),
            bytes: w
                .and_then(|w| tw.arena.get(w.at..w.at + w.len))
                .unwrap_or(&[]),
        }
    };
    let mut out = Steps::default();
    if !cw.refill {
        out.order
            .extend(now.handles.iter().flatten().map(|&h| Step::Keep(h)));
        out.order
            .extend((0..cw.rules.len()).map(|j| Step::Write(j, Placement::Append)));
        return out;
    }
    let cur: Vec<Match<'_>> = (0..now.len()).map(|i| Match::Key(now.key(i))).collect();
    let des: Vec<Match<'_>> = cw
        .rules
        .iter()
        .enumerate()
        .map(|(j, &i)| match tw.wanted.get(i as usize) {
            Some(w) if w.counted => Match::Alone(j),
            _ => Match::Key(key_of(i)),
        })
        .collect();
    let edit = ordered_edit(&cur, &des);
    // A rule without a handle (never so in a dump) cannot be kept in place: it goes.
    let mut deleted = vec![false; now.len()];
    for &i in &edit.delete {
        if let Some(d) = deleted.get_mut(i) {
            *d = true;
        }
        if let Some(h) = now.handles.get(i).copied().flatten() {
            out.delete.push(h);
        }
    }
    // The kept rules, in order, pair up with the wanted rules not inserted.
    let mut inserted = vec![false; des.len()];
    for &j in &edit.insert {
        if let Some(d) = inserted.get_mut(j) {
            *d = true;
        }
    }
    let mut kept = now
        .handles
        .iter()
        .zip(&deleted)
        .filter(|(_, d)| !**d)
        .map(|(h, _)| *h);
    let handle_at: Vec<Option<u64>> = inserted
        .iter()
        .map(|&ins| if ins { None } else { kept.next().flatten() })
        .collect();
    // Each new rule goes before the next rule that stays, or at the end.
    let mut order = Vec::with_capacity(des.len());
    let mut next = None;
    for j in (0..des.len()).rev() {
        match handle_at[j] {
            Some(h) => {
                order.push(Step::Keep(h));
                next = Some(h);
            }
            None => order.push(Step::Write(
                j,
                next.map_or(Placement::Append, Placement::Before),
            )),
        }
    }
    order.reverse();
    out.order = order;
    out
}

/// What the kernel holds of a table's chains kept aside, and (rebuilt) what goes of the
/// others.
#[derive(Debug, Default)]
struct TableNow {
    held: FastMap<String, Held>,
    /// Chains the input does not declare, to empty and delete (kernel order).
    gone: Vec<String>,
    /// Chains the input does not declare that what iptables cannot see still jumps to:
    /// emptied, kept.
    emptied: Vec<String>,
    /// Built-in chains the kernel holds without counters (made by an older iptables-nft or
    /// `nft`): sent again, with counters.
    uncounted: Vec<String>,
}

impl Rewrites {
    /// Adds the tables and chains kept aside to what a restore names: a rebuilt table
    /// whole, and every chain named in a compared table.
    pub(crate) fn name_into(&self, n: &mut Named) {
        for tw in &self.pending {
            if tw.rebuilt {
                n.table(&tw.name);
            }
            for cw in &tw.chains {
                n.chain(&tw.name, &cw.name);
            }
        }
    }
}

impl<V: RulesetView + ?Sized> Planner<'_, V> {
    /// Starts comparing the refilled chains of `table`, which the kernel has (`rebuilt`: it
    /// is restored without `--noflush`). `false` when the table is planned as before: the
    /// plan does not compare, the table was named before in the input, or (rebuilt) it holds
    /// what iptables cannot see.
    pub(crate) fn rewrite_table(
        &mut self,
        table: &str,
        rebuilt: bool,
        line: u32,
        use_count: Option<u32>,
    ) -> Plan<bool> {
        let Some(rw) = self.rewrites.as_deref_mut() else {
            return Ok(false);
        };
        if rw.pending.iter().any(|t| t.name == table) {
            self.settle(table, false)?;
            return Ok(false);
        }
        if rw.settled.contains(table) {
            return Ok(false);
        }
        rw.pending.push(TableRewrite {
            name: table.to_owned(),
            rebuilt,
            line,
            use_count,
            items: false,
            chains: Vec::new(),
            index: FastMap::default(),
            wanted: Vec::new(),
            arena: Vec::new(),
        });
        // The table stays: it is not sent again.
        self.tables_added.insert(table.to_owned());
        if rebuilt {
            self.chains.remove(table);
            self.rebuilt.insert(table.to_owned());
        }
        Ok(true)
    }

    /// Takes `op` aside when it is a chain line or an append of a table whose chains are
    /// compared: `Some` with its outcome. Any other operation on such a table settles the
    /// table first (`None`: plan it as usual).
    pub(crate) fn rewrite_op(&mut self, op: &Op<'_>) -> Option<Plan<Pending>> {
        let with_counters = self.mode.counters;
        let rw = self.rewrites.as_deref_mut()?;
        let (t, c) = op.table_chain();
        let ti = rw.pending.iter().position(|x| x.name == t)?;
        // `-F`, `-X`, `-Z` of the whole table first: the block is still empty, and a
        // rebuilt table is emptied (deleted, as iptables deletes it) before they apply.
        let table_wide = matches!(
            op,
            Op::FlushTable { .. } | Op::DeleteAllChains { .. } | Op::ZeroTable { .. }
        );
        rw.pending[ti].items |= !table_wide;
        match op {
            Op::DeclareChain {
                policy, counters, ..
            } => {
                let tw = &mut rw.pending[ti];
                let is_builtin = builtin(t, c).is_some();
                let first = !tw.index.contains_key(c);
                let rebuilt = tw.rebuilt;
                let cw = tw.chain(c, self.line);
                if !is_builtin {
                    cw.refill = true;
                    cw.rules.clear();
                } else {
                    if rebuilt && first {
                        cw.refill = true;
                        cw.policy = Some(policy.unwrap_or(Policy::Accept));
                    } else if let Some(p) = policy {
                        cw.policy = Some(*p);
                    }
                    if with_counters && counters.is_some() {
                        cw.counters = *counters;
                    }
                }
                Some(Ok(Pending::Done))
            }
            Op::Add {
                specs,
                at: At::Append,
                unique: false,
                ..
            } => Some(self.rewrite_append(ti, t, c, specs)),
            _ => match self.settle(t, false) {
                Ok(()) => None,
                Err(e) => Some(Err(e)),
            },
        }
    }

    /// Encodes appended rules aside.
    fn rewrite_append(
        &mut self,
        ti: usize,
        t: &str,
        c: &str,
        specs: &[crate::ipt::RuleSpec],
    ) -> Plan<Pending> {
        let line = self.line;
        // A jump target a rebuilt table has not declared yet does not exist (iptables
        // refuses the rule); in any other table only one the plan knows is missing is.
        for s in specs {
            let Some(RuleTarget::Jump(target) | RuleTarget::Goto(target)) = &s.target else {
                continue;
            };
            if builtin(t, target).is_some() {
                continue;
            }
            let missing = match self.rewrites.as_deref().and_then(|rw| rw.pending.get(ti)) {
                Some(tw) if tw.rebuilt => !tw.index.contains_key(target.as_str()),
                _ => self.check_targets(t, std::slice::from_ref(s)).is_err(),
            };
            if missing {
                return Err(Refusal::TargetMissing {
                    table: t.to_owned(),
                    chain: target.clone(),
                }
                .into());
            }
        }
        let Some(rw) = self.rewrites.as_deref_mut() else {
            return Ok(Pending::Done);
        };
        let tw = &mut rw.pending[ti];
        if !tw.index.contains_key(c) {
            match builtin(t, c) {
                // As iptables-nft: a built-in chain a rule names is created, policy ACCEPT.
                Some(_) if tw.rebuilt => {
                    let cw = tw.chain(c, line);
                    cw.refill = true;
                    cw.policy = Some(Policy::Accept);
                }
                None if tw.rebuilt => {
                    return Err(Refusal::ChainMissing {
                        table: t.to_owned(),
                        chain: c.to_owned(),
                    }
                    .into())
                }
                _ => {
                    tw.chain(c, line);
                }
            }
        }
        for s in specs {
            encode_rule_into_for(
                s,
                self.family,
                t,
                c,
                &mut self.scratch,
                self.view.sets(),
                self.mode.floor,
            )
            .map_err(|e| Refusal::Invalid(e.0))?;
            let counted = s.counters.is_some();
            let bytes = if counted {
                Cow::Owned(self.scratch.content())
            } else {
                key_bytes(&self.scratch, &mut rw.buf)
            };
            let w = Wanted {
                at: tw.arena.len(),
                len: bytes.len(),
                hash: hash_bytes(&bytes),
                compat: self.scratch.compat,
                line,
                counted,
            };
            tw.arena.extend_from_slice(&bytes);
            let n = u32::try_from(tw.wanted.len())
                .map_err(|_| Refusal::Invalid("too many rules".into()))?;
            tw.wanted.push(w);
            let i = tw.index.get(c).copied().unwrap_or(0);
            if let Some(cw) = tw.chains.get_mut(i) {
                cw.rules.push(n);
            }
        }
        Ok(Pending::Added(Vec::new()))
    }

    /// Settles `table` if its lines are kept aside; from then on it is planned as before.
    pub(crate) fn settle_pending(&mut self, table: &str) -> Plan<()> {
        self.settle(table, false)
    }

    /// Settles every table still kept aside (the input is over).
    pub(crate) fn settle_all(&mut self) -> Plan<()> {
        while let Some(t) = self
            .rewrites
            .as_deref()
            .and_then(|rw| rw.pending.first())
            .map(|t| t.name.clone())
        {
            self.settle(&t, true)?;
        }
        Ok(())
    }

    /// Reads what the kernel holds of the chains of `table` kept aside and plans the
    /// difference. With `last`, nothing is planned after it, and the chains' states are not
    /// recorded.
    fn settle(&mut self, table: &str, last: bool) -> Plan<()> {
        let Some(rw) = self.rewrites.as_deref_mut() else {
            return Ok(());
        };
        let Some(i) = rw.pending.iter().position(|t| t.name == table) else {
            return Ok(());
        };
        let tw = rw.pending.remove(i);
        rw.settled.insert(table.to_owned());
        if tw.rebuilt && !tw.items {
            // An empty block: the table is emptied as before the comparison existed.
            let res = self.rebuild_table(table, true);
            self.own(tw.line);
            return res;
        }
        let mut buf = std::mem::take(&mut rw.buf);
        let res = self.settle_table(&tw, last, &mut buf);
        if let Some(rw) = self.rewrites.as_deref_mut() {
            rw.buf = buf;
        }
        res
    }

    /// What the kernel holds of `tw`'s chains: each read by itself (a dump filtered by
    /// table and chain). In a rebuilt table whose use count is more than the chains found,
    /// the chain list is read too, for the chains the input does not declare.
    fn held(&mut self, tw: &TableRewrite, last: bool, buf: &mut MsgWriter) -> Plan<TableNow> {
        let f = self.family;
        let t = tw.name.as_str();
        let g = self.view.genid()?;
        self.genid.get_or_insert(g);
        let mut now = TableNow::default();
        let mut foreign = false;
        // The chains to read, each with its policy (built-in chains the kernel lacks are not
        // read, nor are chains that are only appended to: what they hold stays, so a restore
        // of a few appends costs the same beside chains of any length).
        let mut todo = Vec::with_capacity(tw.chains.len());
        for (i, cw) in tw.chains.iter().enumerate() {
            let policy = match builtin(t, &cw.name) {
                Some(bc) => match self.view.chain(f, t, &cw.name)? {
                    Some(c) => {
                        foreign |= !bc.matches(&c);
                        if c.counters.is_none() {
                            now.uncounted.push(c.name);
                        }
                        c.hook.and_then(|h| h.policy)
                    }
                    None => continue,
                },
                None => None,
            };
            if !cw.refill {
                let held = Held {
                    policy,
                    steps: steps(tw, cw, &Keys::default()),
                    rules: None,
                    unread: true,
                };
                now.held.insert(cw.name.clone(), held);
                continue;
            }
            todo.push((i, policy));
        }
        if last {
            let read = self.steps_of_chains(tw, &todo, buf)?;
            for ((i, policy), steps) in todo.into_iter().zip(read) {
                let (Some(cw), Some(steps)) = (tw.chains.get(i), steps) else {
                    continue;
                };
                let held = Held {
                    policy,
                    steps,
                    ..Held::default()
                };
                now.held.insert(cw.name.clone(), held);
            }
        } else {
            for (i, policy) in todo {
                let Some(cw) = tw.chains.get(i) else { continue };
                let (rules, _) = self.view.chain_rules(f, t, &cw.name)?;
                let Some(rules) = rules else { continue };
                let held = Held {
                    policy,
                    steps: steps(tw, cw, &Keys::of_rules(&rules, buf)),
                    rules: Some(rules),
                    unread: false,
                };
                now.held.insert(cw.name.clone(), held);
            }
        }
        let complete = tw.use_count == Some(now.held.len() as u32) && !foreign;
        if tw.rebuilt && !complete {
            let (chains, _) = self.view.chains(f, t)?;
            let keep: std::collections::HashSet<String> = self
                .view
                .table_clear(f, t)?
                .map(|c| c.keep.into_iter().collect())
                .unwrap_or_default();
            for c in chains {
                if tw.index.contains_key(&c.name) || is_foreign_base_chain(t, &c) {
                    continue;
                }
                if keep.contains(&c.name) {
                    now.emptied.push(c.name);
                } else {
                    now.gone.push(c.name);
                }
            }
        }
        Ok(now)
    }

    /// The steps of the chains `todo` names (indexes into `tw.chains`), each chain read from
    /// the kernel and compared as its dump comes (`None`: the chain does not exist). Many
    /// chains are read half here and half on a second connection by a helper thread; when
    /// that fails, this connection reads the rest.
    fn steps_of_chains(
        &mut self,
        tw: &TableRewrite,
        todo: &[(usize, Option<Policy>)],
        buf: &mut MsgWriter,
    ) -> Plan<Vec<Option<Steps>>> {
        /// Fewer chains than this are all read here: a second connection is not worth it.
        const SPLIT_FROM: usize = 256;
        let f = self.family;
        let t = tw.name.as_str();
        let second = if todo.len() >= SPLIT_FROM {
            self.view.second_reader()
        } else {
            None
        };
        let half = if second.is_some() {
            todo.len() / 2
        } else {
            todo.len()
        };
        let (mine, theirs) = todo.split_at(half);
        let view = &mut *self.view;
        let (out, theirs_read) = std::thread::scope(|s| {
            let helper = second.map(|mut r| {
                s.spawn(move || {
                    let mut w = MsgWriter::with_capacity(4096);
                    read_steps(tw, theirs, &mut w, &mut |c, each| {
                        r.each_rule(f, t, c, each)
                    })
                })
            });
            let out = read_steps(tw, mine, buf, &mut |c, each| view.each_rule(f, t, c, each));
            let theirs_read = helper.map(|h| match h.join() {
                Ok(r) => r,
                Err(p) => std::panic::resume_unwind(p),
            });
            (out, theirs_read)
        });
        let mut out = out?;
        match theirs_read {
            None => {}
            Some(Ok(v)) => out.extend(v),
            // The second connection failed: this one reads its chains.
            Some(Err(_)) => {
                let view = &mut *self.view;
                out.extend(read_steps(tw, theirs, buf, &mut |c, each| {
                    view.each_rule(f, t, c, each)
                })?)
            }
        }
        Ok(out)
    }

    fn own(&mut self, line: u32) {
        self.owner
            .resize(self.batch.len().max(self.owner.len()), line);
    }

    fn settle_table(&mut self, tw: &TableRewrite, last: bool, buf: &mut MsgWriter) -> Plan<()> {
        let f = self.family.nft();
        let t = tw.name.as_str();
        let now = self.held(tw, last, buf)?;
        // Chains first: rules may jump to them.
        for cw in &tw.chains {
            let held = now.held.get(&cw.name);
            match builtin(t, &cw.name) {
                Some(bc) => {
                    // Sent when it is missing, its policy changes, the input gives its
                    // counters, or the kernel's has none (then they start at zero).
                    let send = cw.counters.is_some()
                        || now.uncounted.contains(&cw.name)
                        || match held {
                            None => true,
                            Some(h) => cw.policy.is_some_and(|p| Some(p) != h.policy),
                        };
                    if send {
                        let mut ch = bc.to_chain(
                            self.family,
                            t,
                            cw.policy.unwrap_or(Policy::Accept),
                            Some(cw.counters.unwrap_or((0, 0))),
                        );
                        if cw.policy.is_none() {
                            if let Some(h) = ch.hook.as_mut() {
                                h.policy = None;
                            }
                        }
                        self.batch.add_chain(&ch, false)?;
                        self.chain_list_edit(t, None);
                        self.own(cw.line);
                    }
                    if let Some(p) = cw.policy {
                        self.policies.insert((t.to_owned(), cw.name.clone()), p);
                    }
                    self.ensured.insert(t, &cw.name);
                }
                None if held.is_none() && cw.refill => {
                    self.batch.add_chain(&Chain::user(f, t, &cw.name), false)?;
                    self.chain_list_edit(t, Some(ChainEdit::Add(cw.name.clone())));
                    self.own(cw.line);
                }
                None => {}
            }
        }
        // Then each chain's rules.
        for cw in &tw.chains {
            let absent;
            let held = match now.held.get(&cw.name) {
                Some(h) => h,
                None => {
                    absent = Held {
                        steps: steps(tw, cw, &Keys::default()),
                        ..Held::default()
                    };
                    &absent
                }
            };
            let entries = self.rewrite_rules(tw, cw, &held.steps, last)?;
            if !last {
                let is_builtin = builtin(t, &cw.name).is_some();
                let exists = now.held.contains_key(&cw.name) || cw.refill || is_builtin;
                let st = self.state(t, &cw.name);
                if held.unread {
                    // The appends follow whatever the chain holds, read only if a later
                    // command needs its positions.
                    if is_builtin {
                        st.exists = Some(true);
                    }
                    match st.entries.as_mut() {
                        Some(v) => v.extend(entries),
                        None => st.more().pending_back.extend(entries),
                    }
                    continue;
                }
                st.load(Some(held.rules.clone().unwrap_or_default()), is_builtin);
                st.exists = Some(exists);
                st.entries = Some(entries);
            }
        }
        // Then, in a rebuilt table, the chains its input does not declare: emptied first,
        // so that no rule jumps to a chain when it goes.
        for n in now.gone.iter().chain(&now.emptied) {
            self.batch.flush_chain(f, t, n)?;
            self.own(tw.line);
            self.state(t, n).emptied(true);
        }
        for n in &now.gone {
            self.batch.del_chain(f, t, n)?;
            self.chain_list_edit(t, Some(ChainEdit::Del(n.clone())));
            self.policies.remove(&(t.to_owned(), n.clone()));
            self.state(t, n).emptied(false);
            self.own(tw.line);
        }
        Ok(())
    }

    /// Plans one chain's steps. The chain's entries after, unless `last`.
    fn rewrite_rules(
        &mut self,
        tw: &TableRewrite,
        cw: &ChainRewrite,
        steps: &Steps,
        last: bool,
    ) -> Plan<Vec<Entry>> {
        let f = self.family.nft();
        let t = tw.name.as_str();
        let c = cw.name.as_str();
        for &h in &steps.delete {
            self.batch.del_rule(f, t, c, h)?;
            self.rules_deleted += 1;
            self.own(cw.line);
        }
        let mut entries = Vec::new();
        for step in &steps.order {
            let e = match *step {
                Step::Keep(h) => {
                    if cw.refill {
                        self.rules_kept += 1;
                    }
                    Entry::Kernel(h)
                }
                Step::Write(j, pos) => {
                    let Some(w) = cw.rules.get(j).and_then(|&i| tw.wanted.get(i as usize)) else {
                        continue;
                    };
                    let bytes = tw.arena.get(w.at..w.at + w.len).unwrap_or(&[]);
                    self.write_wanted(t, c, w, bytes, pos)?
                }
            };
            if !last {
                entries.push(e);
            }
        }
        Ok(entries)
    }

    /// Adds a wanted rule to the batch from its key.
    fn write_wanted(
        &mut self,
        t: &str,
        c: &str,
        w: &Wanted,
        bytes: &[u8],
        pos: Placement,
    ) -> Plan<Entry> {
        let r = &mut self.scratch;
        r.family = self.family.nft();
        r.table.clear();
        r.table.push_str(t);
        r.chain.clear();
        r.chain.push_str(c);
        r.handle = None;
        r.position = None;
        r.set_content(bytes)
            .map_err(|e| Refusal::Invalid(format!("a rule read back: {e}")))?;
        r.compat = w.compat;
        let id = self.batch.new_id();
        let op = self
            .batch
            .add_rule_with_id(&self.scratch, pos, self.mode.echo, Some(id))?;
        self.rules_added += 1;
        self.own(w.line);
        Ok(Entry::New { id, op })
    }
}

impl TableRewrite {
    /// The chain named `c`, added (not refilled, no policy) when first named.
    fn chain(&mut self, c: &str, line: u32) -> &mut ChainRewrite {
        let i = match self.index.get(c) {
            Some(&i) => i,
            None => {
                self.chains.push(ChainRewrite {
                    name: c.to_owned(),
                    refill: false,
                    policy: None,
                    counters: None,
                    line,
                    rules: Vec::new(),
                });
                self.index.insert(c.to_owned(), self.chains.len() - 1);
                self.chains.len() - 1
            }
        };
        &mut self.chains[i]
    }
}
