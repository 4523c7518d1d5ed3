#!/usr/bin/env bash
# Builds the deployable iptnl: one static binary (no loader, no shared library), stripped, at
# target/static/iptnl; then runs it as `iptables` in a fresh network namespace with a root
# directory holding nothing but the binary.
#
# By default it links glibc statically (x86_64-unknown-linux-gnu, -C target-feature=+crt-static):
# glibc's allocator makes a restore and a big read a fifth to a third faster than musl's
# (BENCHMARKS.md, "The deployable build: glibc or musl"). glibc's name-service lookups cannot
# work in a static binary, which iptnl does not use: it reads /etc/protocols and the like
# itself. IPTNL_STATIC_LIBC=musl builds for x86_64-unknown-linux-musl instead (after
# `rustup target add`), which starts a process in less CPU: for nodes where storms of small
# `iptables` commands matter more than big restores and reads.
#
#   scripts/static-build.sh                          # build (glibc) and smoke-test
#   IPTNL_STATIC_LIBC=musl scripts/static-build.sh   # build for musl and smoke-test
#   SMOKE_ONLY=1 scripts/static-build.sh             # smoke-test target/static/iptnl as built
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/static
mkdir -p "$out"
# No debug information in the deployable binary: smaller, and quicker to build.
export CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_STRIP=true
if [ -z "${SMOKE_ONLY:-}" ]; then
  case "${IPTNL_STATIC_LIBC:-gnu}" in
    gnu)
      target=x86_64-unknown-linux-gnu
      # With --target, the flags apply to iptnl's own code and not to build scripts.
      RUSTFLAGS="-C target-feature=+crt-static" \
        cargo build --release --locked --target "$target" --bin iptnl
      ;;
    musl)
      target=x86_64-unknown-linux-musl
      rustup target list --installed 2>/dev/null | grep -qx "$target" \
        || rustup target add "$target" >/dev/null
      cargo build --release --locked --target "$target" --bin iptnl
      ;;
    *)
      echo "static-build: IPTNL_STATIC_LIBC is gnu (the default) or musl, not '$IPTNL_STATIC_LIBC'" >&2
      exit 2
      ;;
  esac
  cp "target/$target/release/iptnl" "$out/iptnl"
  echo "static-build: $out/iptnl built for $target, statically linked"
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
