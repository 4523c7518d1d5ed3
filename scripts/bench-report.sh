#!/bin/sh
# Runs every bench, then draws the plots of BENCHMARKS.md into docs/.
#
#   scripts/bench-report.sh            all benches, default sizes (as root; 20 minutes to an hour)
#   QUICK=1 scripts/bench-report.sh    small sizes only (a few minutes)
#
# Knobs (environment), passed to the benches:
#   IPTNL_BENCH_RULES    restore: ruleset sizes, comma list   (default 10000,50000,100000,200000)
#   IPTNL_BENCH_SAMPLES  restore: runs of each tool per size  (default and minimum 10)
#   IPTNL_BENCH_NFT_RUNS restore: runs of nft -f per size      (default 3)
#   IPTNL_BENCH_SETTLE_SECS restore: longest wait for an idle machine before a run (default 10)
#   IPTNL_BENCH_SIZES    ops, group_commit, cold: sizes       (each bench has its default)
#   IPTNL_BENCH_CALLERS  group_commit: concurrent callers K   (default 1,10,100,1000)
#   IPTNL_BENCH_RUNS     cold: runs of each command           (default 5)
#   IPTNL_BENCH_OUT      where the figures go (default $CARGO_TARGET_DIR/iptnl-bench)
#   BENCHES              which benches (default: all of them)
#   PLOTS_OUT            where the SVG plots go (default docs)
# The machine-readable figures are JSON lines, one file per bench, read by scripts/plots.py.
set -eu
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
out=${IPTNL_BENCH_OUT:-$target/iptnl-bench}
export IPTNL_BENCH_OUT="$out"
if [ "${QUICK:-0}" = 1 ]; then
    export IPTNL_BENCH_RULES=${IPTNL_BENCH_RULES:-10000,50000}
    export IPTNL_BENCH_NFT_RUNS=${IPTNL_BENCH_NFT_RUNS:-1}
    export IPTNL_BENCH_SIZES=${IPTNL_BENCH_SIZES:-0,10000}
    export IPTNL_BENCH_CALLERS=${IPTNL_BENCH_CALLERS:-1,10,100}
    export IPTNL_BENCH_RUNS=${IPTNL_BENCH_RUNS:-3}
    export IPTNL_BENCH_SETTLE_SECS=${IPTNL_BENCH_SETTLE_SECS:-2}
fi
benches=${BENCHES:-netlink rule_model restore ops group_commit cold}
rm -rf "$out"
mkdir -p "$out"
cargo build --release --bin iptnl --example restore_file
{
    date -u '+date: %Y-%m-%d %H:%M UTC'
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "kernel: $(uname -r), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
    echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/run.txt"
for b in $benches; do
    echo "== cargo bench --bench $b" >&2
    cargo bench --bench "$b" 2>&1 | tee "$out/$b.log"
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/run.txt"
python3 scripts/plots.py --in "$out" --out "${PLOTS_OUT:-docs}"
