#!/usr/bin/env bash
# Builds the deployable iptnl: one static binary (x86_64-unknown-linux-musl, no loader, no
# shared library), stripped, at target/static/iptnl; then runs it as `iptables` in a fresh
# network namespace with a root directory holding nothing but the binary.
#
# When the musl target cannot be installed (no rustup, or offline), it builds a static glibc
# binary instead (-C target-feature=+crt-static; glibc's name-service lookups cannot work in
# a static binary, which iptnl does not use: it reads /etc/protocols and the like itself).
#
#   scripts/static-build.sh            # build and smoke-test
#   SMOKE_ONLY=1 scripts/static-build.sh   # smoke-test target/static/iptnl as built
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/static
mkdir -p "$out"
# No debug information in the deployable binary: smaller, and quicker to build.
export CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_STRIP=true
if [ -z "${SMOKE_ONLY:-}" ]; then
  musl=x86_64-unknown-linux-musl
  if rustup target list --installed 2>/dev/null | grep -qx "$musl" \
     || rustup target add "$musl" >/dev/null 2>&1; then
    cargo build --release --locked --target "$musl" --bin iptnl
    cp "target/$musl/release/iptnl" "$out/iptnl"
    echo "static-build: $out/iptnl built for $musl"
  else
    gnu=x86_64-unknown-linux-gnu
    RUSTFLAGS="-C target-feature=+crt-static" \
      cargo build --release --locked --target "$gnu" --bin iptnl
    cp "target/$gnu/release/iptnl" "$out/iptnl"
    echo "static-build: the musl target could not be installed; $out/iptnl is a static glibc build"
  fi
fi
bin="$out/iptnl"
ls -l "$bin"

# The smoke test: an empty root with the binary alone, in a network namespace of its own.
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
cp "$bin" "$root/iptables"
files=$(cd "$root" && find . -mindepth 1 | wc -l)
[ "$files" -eq 1 ] || { echo "static-build: the root holds $files entries"; exit 1; }
got=$(unshare -n sh -c "
  chroot '$root' /iptables -S &&
  chroot '$root' /iptables -A INPUT -p tcp --dport 22 -m comment --comment ssh -j ACCEPT &&
  chroot '$root' /iptables -S INPUT
")
want='-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
-P INPUT ACCEPT
-A INPUT -p tcp -m tcp --dport 22 -m comment --comment ssh -j ACCEPT'
if [ "$got" != "$want" ]; then
  printf 'static-build: smoke test failed:\n%s\n--- expected:\n%s\n' "$got" "$want"
  exit 1
fi
echo "static-build: iptables -S, -A and -S CHAIN ran in an empty root and namespace"
