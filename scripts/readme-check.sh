#!/usr/bin/env bash
# Runs the README's library example and its first test as a newcomer would: in a new crate
# that depends on this one, the code copied from the README as it stands. The program runs in
# a fresh network namespace and must print what the README says it prints.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
# Outside the repository, so that the new crate is no member of its workspace.
dir=$(mktemp -d)/first
trap 'rm -rf "$(dirname "$dir")"' EXIT
export CARGO_TARGET_DIR="$repo/target/readme-check"
cargo new --quiet --name first "$dir"
cp Cargo.lock "$dir/"                      # the versions this checkout is tested with
(cd "$dir" && cargo add --quiet --path "$repo")
# The README's first ```rust block is the program, the second the test, the third the test
# on an in-memory ruleset.
awk '/^```rust/{n++; on=1; next} /^```/{on=0} on && n==1' README.md >"$dir/src/main.rs"
mkdir -p "$dir/tests"
awk '/^```rust/{n++; on=1; next} /^```/{on=0} on && n==2' README.md >"$dir/tests/first.rs"
awk '/^```rust/{n++; on=1; next} /^```/{on=0} on && n==3' README.md >"$dir/tests/in_memory.rs"
grep -q 'fn main' "$dir/src/main.rs" && grep -q '#\[test\]' "$dir/tests/first.rs" &&
  grep -q 'in_memory' "$dir/tests/in_memory.rs"
(cd "$dir" && cargo build --quiet && cargo test --quiet --no-run)
# What the README says the program prints: the backquoted lines of "It prints ...".
want=$(grep '^It prints `' README.md | grep -o '`[^`]*`' | tr -d '`')
got=$(cd "$dir" && unshare -n cargo run --quiet)
if [ "$got" != "$want" ]; then
  printf 'readme-check: the example printed:\n%s\n--- the README says:\n%s\n' "$got" "$want"
  exit 1
fi
(cd "$dir" && unshare -n cargo test --quiet --test first)
# The in-memory test needs no namespace (and no root).
(cd "$dir" && cargo test --quiet --test in_memory)
echo "readme-check: the README's example and first test ran as written"
