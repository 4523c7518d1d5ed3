//! A guard keeps a declaration in force: it subscribes to the kernel's ruleset events
//! (`NFNLGRP_NFTABLES`) and re-syncs when a commit of someone else touches what is owned.
//!
//! - Every commit's events are looked at when its `NEWGEN` arrives: a commit that touched
//!   an owned chain, a chain that holds hooks (or a built-in chain), or a managed table
//!   triggers a sync; the guard's own commits (known by the generation they created) and
//!   commits elsewhere do not.
//! - A burst is coalesced: after a relevant commit the guard reads every event queued
//!   already (and, with [`GuardOptions::settle`], those that follow within it), then syncs
//!   once.
//! - Lost events (the receive buffer overflowed) make it forget the handle's cache and
//!   re-read everything.
//! - A slow timer ([`GuardOptions::resync_every`]) re-syncs anyway, as a safety net. Between
//!   events the guard sleeps in the kernel: it never polls the ruleset.
//!
//! The guard runs on a thread of its own ([`Guard::spawn`]), which suits a plain program and
//! an async runtime alike (spawning it does not block; nothing in it needs a runtime). A
//! program that prefers to give the guard a thread it manages itself, such as tokio's
//! `spawn_blocking`, calls [`Guard::run`] there:
//!
//! ```no_run
//! use std::sync::{atomic::AtomicBool, Arc};
//! use iptnl::sync::{Desired, Guard, GuardOptions, Owner};
//! let ipt = iptnl::IpTables::new(iptnl::ipt::IpFamily::V4)?;
//! let desired = Desired::new(iptnl::ipt::IpFamily::V4, Owner::new("X-", "x")?);
//! let stop = Arc::new(AtomicBool::new(false));
//! // e.g. inside tokio::task::spawn_blocking(move || …); set `stop` to end it.
//! let stats = Guard::run(&ipt, desired, &GuardOptions::default(), stop)?;
//! println!("{} repairs", stats.repairs);
//! # Ok::<(), iptnl::iptables::Error>(())
//! ```

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{sync, Desired, SyncReport};
use crate::iptables::error::from_nft;
use crate::iptables::{Error, IpTables};
use crate::nft::monitor::{Event, Monitor};

/// A callback given each sync that changed something.
pub type OnRepair = Arc<dyn Fn(&SyncReport) + Send + Sync>;

/// How a guard works.
///
/// ```
/// use std::time::Duration;
/// let o = iptnl::sync::GuardOptions { resync_every: Duration::from_secs(60), ..Default::default() };
/// assert_eq!(o.settle, Duration::ZERO);
/// ```
#[derive(Clone)]
pub struct GuardOptions {
    /// The slow timer: a sync at least this often, events or not (default 30 s).
    pub resync_every: Duration,
    /// How long to wait for more events after a relevant commit before syncing (default 0:
    /// the guard syncs as soon as the events already queued are read, and a burst that
    /// goes on is coalesced at the next sync). The kernel counts the wait in clock ticks.
    pub settle: Duration,
    /// Called after each sync that changed something (from the guard's thread).
    pub on_repair: Option<OnRepair>,
}

impl Default for GuardOptions {
    fn default() -> Self {
        GuardOptions {
            resync_every: Duration::from_secs(30),
            settle: Duration::ZERO,
            on_repair: None,
        }
    }
}

impl std::fmt::Debug for GuardOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuardOptions")
            .field("resync_every", &self.resync_every)
            .field("settle", &self.settle)
            .field("on_repair", &self.on_repair.is_some())
            .finish()
    }
}

/// What a guard did so far.
///
/// ```
/// let s = iptnl::sync::GuardStats::default();
/// assert_eq!(s.repairs, 0);
/// ```
#[derive(Debug, Clone, Default)]
pub struct GuardStats {
    /// Syncs run (each reads through the cache; only a change sends a batch).
    pub syncs: u64,
    /// Syncs that changed something.
    pub repairs: u64,
    /// Syncs run by the slow timer.
    pub timer_syncs: u64,
    /// Commits of others that touched what is owned.
    pub relevant_commits: u64,
    /// Commits of the guard itself, seen and ignored.
    pub own_commits: u64,
    /// Times events were lost and everything was read again.
    pub lost: u64,
    /// Syncs that failed (the last error is kept).
    pub errors: u64,
    /// The last error, in words.
    pub last_error: Option<String>,
    /// The last repair.
    pub last_repair: Option<SyncReport>,
    /// The latest ruleset generation at which the guard knows the declaration is in force:
    /// every commit up to it was looked at, and synced after when it touched what is owned.
    pub generation: Option<u32>,
}

/// A running guard (see the [module](self) documentation); stopped by [`stop`](Self::stop)
/// or when dropped.
///
/// ```no_run
/// use std::sync::Arc;
/// use iptnl::sync::{Desired, Guard, GuardOptions, Owner};
/// use iptnl::Position;
/// let ipt = Arc::new(iptnl::IpTables::new(iptnl::ipt::IpFamily::V4)?);
/// let mut d = Desired::new(iptnl::ipt::IpFamily::V4, Owner::new("FLANNEL-", "flannel")?);
/// d.chain("nat", "FLANNEL-POSTRTG", &["-s 10.244.0.0/16 -d 10.244.0.0/16 -j RETURN"])?
///     .hook("nat", "POSTROUTING", Position::First, "-j FLANNEL-POSTRTG")?;
/// let guard = Guard::spawn(ipt, d, GuardOptions::default())?;
/// // … the agent runs; the rules stay as declared …
/// let stats = guard.stop();
/// # Ok::<(), iptnl::iptables::Error>(())
/// ```
#[derive(Debug)]
pub struct Guard {
    desired: Arc<Mutex<Desired>>,
    version: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    stats: Arc<Mutex<GuardStats>>,
    thread: Option<JoinHandle<()>>,
}

/// How often a waiting guard looks at its stop flag (and its declaration).
const TICK: Duration = Duration::from_millis(250);

impl Guard {
    /// Syncs `desired` once (its error, if any, is returned here), then keeps it in force on
    /// a thread of its own. Turns on event following for `ipt`'s cache
    /// ([`IpTables::set_follow_events`]) so that re-reads after a change cost no dump.
    pub fn spawn(ipt: Arc<IpTables>, desired: Desired, opts: GuardOptions) -> Result<Guard, Error> {
        let (monitor, names, own, stats) = start(&ipt, &desired, &opts)?;
        let stats = Arc::new(Mutex::new(stats));
        let desired = Arc::new(Mutex::new(desired));
        let version = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let shared = Shared {
            desired: desired.clone(),
            version: version.clone(),
            stop: stop.clone(),
            stats: stats.clone(),
        };
        let thread = std::thread::Builder::new()
            .name("iptnl-guard".into())
            .spawn(move || run_loop(&ipt, &opts, &shared, (monitor, names), own))
            .map_err(|e| Error::Invalid(format!("cannot start the guard's thread: {e}")))?;
        Ok(Guard {
            desired,
            version,
            stop,
            stats,
            thread: Some(thread),
        })
    }

    /// Runs a guard on the calling thread until `stop` is set (checked at least every
    /// 250 ms); returns what it did. The first sync's error is returned at once; later
    /// errors are counted in the stats and retried at the next event or timer.
    pub fn run(
        ipt: &IpTables,
        desired: Desired,
        opts: &GuardOptions,
        stop: Arc<AtomicBool>,
    ) -> Result<GuardStats, Error> {
        let (monitor, names, own, stats) = start(ipt, &desired, opts)?;
        let shared = Shared {
            desired: Arc::new(Mutex::new(desired)),
            version: Arc::new(AtomicU64::new(0)),
            stop,
            stats: Arc::new(Mutex::new(stats)),
        };
        run_loop(ipt, opts, &shared, (monitor, names), own);
        let s = shared
            .stats
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        Ok(s)
    }

    /// Replaces the declaration; the guard syncs it within 250 ms.
    pub fn set_desired(&self, desired: Desired) {
        *self.desired.lock().unwrap_or_else(|e| e.into_inner()) = desired;
        self.version.fetch_add(1, Ordering::Relaxed);
    }

    /// What the guard did so far.
    pub fn stats(&self) -> GuardStats {
        self.stats.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Stops the guard (within 250 ms) and returns what it did. The owned rules stay; call
    /// [`remove`](super::remove) to delete them.
    pub fn stop(mut self) -> GuardStats {
        self.halt();
        self.stats()
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.halt();
    }
}

/// What a guard does before its loop: subscribe (before reading, so that no commit after
/// the first sync is missed), follow the events in the handle's cache, and sync once (a
/// repair like any other: `on_repair` hears of it).
/// Returns the subscription, the chains of the managed tables, the generation the first
/// sync committed, and the stats so far.
fn start(
    ipt: &IpTables,
    desired: &Desired,
    opts: &GuardOptions,
) -> Result<(Monitor, ChainNames, Option<u32>, GuardStats), Error> {
    let monitor = open_monitor(ipt)?;
    ipt.set_follow_events(true);
    let names = ChainNames::read(ipt, desired);
    let first = sync(ipt, desired)?;
    if let (true, Some(cb)) = (first.changed(), &opts.on_repair) {
        cb(&first);
    }
    let stats = GuardStats {
        syncs: 1,
        repairs: u64::from(first.changed()),
        last_repair: first.changed().then(|| first.clone()),
        generation: first.generation,
        ..GuardStats::default()
    };
    Ok((monitor, names, first.committed, stats))
}

fn open_monitor(ipt: &IpTables) -> Result<Monitor, Error> {
    ipt.with_conn(|c| Monitor::beside(c))
        .map_err(|e| from_nft(e, "subscribing to ruleset events"))
}

/// The chains of the managed tables by handle, kept current from the events, to tell a
/// chain renamed (an existing handle under a new name) from one created: a rename in a
/// managed table can take an owned chain or a hook's chain away under another name, and
/// renames every jump to the chain, hooks and owned rules included, with no rule event.
#[derive(Debug, Default)]
struct ChainNames(HashMap<(String, u64), String>);

impl ChainNames {
    /// Reads the chains of `d`'s tables (call it after subscribing, so that no later
    /// change is missed).
    fn read(ipt: &IpTables, d: &Desired) -> ChainNames {
        let mut names = HashMap::new();
        for t in d.tables.keys() {
            let chains =
                ipt.with_conn(|c| crate::nft::list_chains(c, Some(d.family.nft()), Some(t)));
            for c in chains.map(|(v, _)| v).unwrap_or_default() {
                if let Some(h) = c.handle {
                    names.insert((t.clone(), h), c.name);
                }
            }
        }
        ChainNames(names)
    }

    /// Whether a ruleset event touches what `d` declares: a chain it watches (see
    /// [`Desired::watches`]), a chain of its tables renamed, or one of its tables.
    fn touches(&mut self, d: &Desired, ev: &Event) -> bool {
        let family = d.family.nft();
        match ev {
            Event::NewRule(r) | Event::DelRule(r) => {
                r.family == family && d.watches(&r.table, &r.chain)
            }
            Event::NewChain(c) if c.family == family && d.tables.contains_key(&c.table) => {
                let old = c
                    .handle
                    .and_then(|h| self.0.insert((c.table.clone(), h), c.name.clone()));
                d.watches(&c.table, &c.name) || old.is_some_and(|o| o != c.name)
            }
            Event::DelChain(c) if c.family == family && d.tables.contains_key(&c.table) => {
                if let Some(h) = c.handle {
                    self.0.remove(&(c.table.clone(), h));
                }
                d.watches(&c.table, &c.name)
            }
            Event::NewTable(t) | Event::DelTable(t) => {
                let ours = t.family == family && d.tables.contains_key(&t.name);
                if ours && matches!(ev, Event::DelTable(_)) {
                    self.0.retain(|k, _| k.0 != t.name);
                }
                ours
            }
            _ => false,
        }
    }
}

/// What the guard's loop shares with its [`Guard`].
struct Shared {
    desired: Arc<Mutex<Desired>>,
    version: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    stats: Arc<Mutex<GuardStats>>,
}

/// How many of its own commits a guard remembers (to ignore their events).
const OWN: usize = 8;

fn run_loop(
    ipt: &IpTables,
    opts: &GuardOptions,
    sh: &Shared,
    (mut monitor, mut names): (Monitor, ChainNames),
    own: Option<u32>,
) {
    let snapshot = || sh.desired.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let stat = |f: &mut dyn FnMut(&mut GuardStats)| {
        f(&mut sh.stats.lock().unwrap_or_else(|e| e.into_inner()))
    };
    let mut version = sh.version.load(Ordering::Relaxed);
    let mut d = snapshot();
    let mut own: std::collections::VecDeque<u32> = own.into_iter().collect();
    let mut next_timer = Instant::now() + opts.resync_every;
    // Whether the commit whose events are being read touched what is owned.
    let mut touched = false;
    // The last commit whose events were all read.
    let mut seen: Option<u32> = None;
    while !sh.stop.load(Ordering::Relaxed) {
        let mut dirty = false;
        // Events were lost: the commit that overflowed the buffer may still be running.
        let mut lost = false;
        let mut timer = false;
        let now = Instant::now();
        if now >= next_timer {
            timer = true;
        } else {
            let wait = (next_timer - now).min(TICK);
            let mut ev = match monitor.next(Some(wait)) {
                Ok(ev) => ev,
                Err(_) => {
                    // The subscription broke: read everything again.
                    ipt.forget_cache();
                    names = ChainNames::read(ipt, &d);
                    dirty = true;
                    lost = true;
                    None
                }
            };
            // The event, and the rest of its burst.
            while let Some(e) = ev.take() {
                match e {
                    Event::Lost => {
                        stat(&mut |s| s.lost += 1);
                        ipt.forget_cache();
                        names = ChainNames::read(ipt, &d);
                        dirty = true;
                        lost = true;
                        touched = false;
                    }
                    Event::NewGen { genid, .. } => {
                        seen = Some(genid);
                        if own.contains(&genid) {
                            stat(&mut |s| s.own_commits += 1);
                        } else if touched {
                            stat(&mut |s| s.relevant_commits += 1);
                            dirty = true;
                        }
                        touched = false;
                    }
                    e => touched |= names.touches(&d, &e),
                }
                // What is queued already; then, after a relevant commit, what follows
                // within the settle time.
                ev = monitor.try_next().unwrap_or(None);
                if ev.is_none() && dirty && !opts.settle.is_zero() {
                    ev = monitor.next(Some(opts.settle)).unwrap_or(None);
                }
            }
        }
        let v = sh.version.load(Ordering::Relaxed);
        if v != version {
            version = v;
            d = snapshot();
            names = ChainNames::read(ipt, &d);
            dirty = true;
        }
        if !(dirty || timer) {
            // Every commit read so far left the declaration in force.
            if let Some(g) = seen.take() {
                stat(&mut |s| s.generation = Some(g));
            }
            continue;
        }
        seen = None;
        next_timer = Instant::now() + opts.resync_every;
        if lost {
            // The generation moves when a commit starts and its changes are read as they
            // are made: wait for it to end before reading. An empty batch waits for the
            // kernel's commit lock and changes nothing.
            let _ = ipt.with_conn(|c| crate::nft::Batch::new().commit(c));
        }
        match sync(ipt, &d) {
            Ok(r) => {
                if let Some(g) = r.committed {
                    if own.len() == OWN {
                        own.pop_front();
                    }
                    own.push_back(g);
                    if let Some(cb) = &opts.on_repair {
                        cb(&r);
                    }
                }
                stat(&mut |s| {
                    s.syncs += 1;
                    s.generation = r.generation;
                    s.timer_syncs += u64::from(timer);
                    if r.changed() {
                        s.repairs += 1;
                        s.last_repair = Some(r.clone());
                    }
                });
            }
            Err(e) => stat(&mut |s| {
                s.syncs += 1;
                s.errors += 1;
                s.last_error = Some(e.to_string());
            }),
        }
    }
}
