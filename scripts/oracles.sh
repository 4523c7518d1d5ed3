#!/bin/sh
# Installs older and newer iptables-nft releases from Debian's archive into a private prefix,
# beside the system's iptables (which is never touched), for the reader-floor and interop
# tests: iptables 1.8.7 (Debian 11, bullseye), 1.8.11 (Debian 13, trixie) and 1.8.13
# (Debian unstable, sid).
#
#   scripts/oracles.sh                 install (or check) everything; prints the prefix
#   IPTNL_ORACLES=/some/dir scripts/oracles.sh
#
# How: apt with a private sources list (the suites above, on the mirror the system's own
# sources name) and private lists and cache, `apt-get download` of each release's packages,
# `dpkg-deb -x` into PREFIX/VERSION/root. Each release runs with the libc of its own suite,
# through that libc's loader (`ld.so --library-path`), so a release built for a newer glibc
# than the system's runs too; XTABLES_LIBDIR points at its own extensions. The commands are
# PREFIX/VERSION/bin/{iptables,ip6tables}{,-save,-restore} (wrappers of xtables-nft-multi).
#
# iptables 1.8.11's release sources are unpacked in PREFIX/src/iptables-1.8.11 (the `.t` rules
# of its extensions are what the reader-floor matrix writes and reads); the tarball is Debian's
# copy of the release, checked against its SHA-256.
#
# Downloads are kept in PREFIX (about 40 MB of package lists and 9 MB of packages): a second run
# downloads nothing and takes a second. Indexes older than IPTNL_ORACLES_MAX_AGE_DAYS (30)
# are fetched again. Needs apt-get, dpkg-deb, tar and xz (Debian's base system).
# Exit status 0 when every release runs, 1 otherwise (the tests skip what is missing).
set -eu

PREFIX=${IPTNL_ORACLES:-/var/cache/iptnl-oracles}
RELEASES="1.8.7:bullseye 1.8.11:trixie 1.8.13:sid"
MAX_AGE=${IPTNL_ORACLES_MAX_AGE_DAYS:-30}
ARCH=$(dpkg --print-architecture)
case "$ARCH" in
amd64) TRIPLET=x86_64-linux-gnu LDSO=ld-linux-x86-64.so.2 ;;
arm64) TRIPLET=aarch64-linux-gnu LDSO=ld-linux-aarch64.so.1 ;;
*) echo "oracles: architecture $ARCH is not handled" >&2; exit 1 ;;
esac

# The Debian mirror the system's own sources use (deb822 or one-line format).
mirror() {
    if [ -n "${IPTNL_DEBIAN_MIRROR:-}" ]; then echo "$IPTNL_DEBIAN_MIRROR"; return; fi
    m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' | grep -v security | head -n1)
    if [ -z "$m" ]; then
        m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
            awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' |
            grep -v security | head -n1)
    fi
    echo "${m:-http://deb.debian.org/debian}"
}

APT="$PREFIX/apt"
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$PREFIX/debs"
M=$(mirror)
KEY=/usr/share/keyrings/debian-archive-keyring.gpg
{
    for r in $RELEASES; do
        echo "deb [signed-by=$KEY] $M ${r#*:} main"
    done
} >"$APT/sources.list.new"
OPTS="-o Dir::Etc::sourcelist=$APT/sources.list -o Dir::Etc::sourceparts=- \
 -o Dir::State::Lists=$APT/lists -o Dir::Cache=$APT/cache -o Dir::State::status=/dev/null \
 -o APT::Get::List-Cleanup=0 -o Acquire::Languages=none \
 -o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false \
 -o Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false \
 -o Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false \
 -o Acquire::IndexTargets::deb::CNF::DefaultEnabled=false \
 -o Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false \
 -o Debug::NoLocking=1 -q"

fresh() { # whether $1 exists and is younger than MAX_AGE days
    [ -e "$1" ] && [ -z "$(find "$1" -mtime +"$MAX_AGE" -print)" ]
}

need_update=0
if ! cmp -s "$APT/sources.list.new" "$APT/sources.list" 2>/dev/null || ! fresh "$APT/updated"; then
    need_update=1
fi
for r in $RELEASES; do
    v=${r%%:*}
    [ -x "$PREFIX/$v/bin/iptables" ] && [ -e "$PREFIX/$v/.complete" ] || need_update=1
done

if [ "$need_update" = 1 ]; then
    mv "$APT/sources.list.new" "$APT/sources.list"
    echo "oracles: reading the package lists of $M ($RELEASES)" >&2
    # shellcheck disable=SC2086
    apt-get $OPTS update >&2
    touch "$APT/updated"
else
    rm -f "$APT/sources.list.new"
fi

# The packages xtables-nft-multi and its extensions load, and the suite's libc.
PKGS="iptables libxtables12 libip4tc2 libip6tc2 libnftnl11 libmnl0 libnetfilter-conntrack3 libnfnetlink0 libc6"

install_release() { # VERSION SUITE
    v=$1 suite=$2 dir="$PREFIX/$1"
    if [ -e "$dir/.complete" ]; then return 0; fi
    rm -rf "$dir" && mkdir -p "$dir/root" "$dir/bin"
    debs="$PREFIX/debs/$suite"
    mkdir -p "$debs"
    for p in $PKGS; do
        if ! ls "$debs/${p}_"*.deb >/dev/null 2>&1; then
            # shellcheck disable=SC2086
            (cd "$debs" && apt-get $OPTS download "$p/$suite" >&2)
        fi
        for d in "$debs/${p}_"*.deb; do dpkg-deb -x "$d" "$dir/root"; done
    done
    got=$(ls "$debs"/iptables_*.deb)
    case "$got" in
    *"_$v-"*) ;;
    *) echo "oracles: $suite has $(basename "$got"), not iptables $v" >&2; return 1 ;;
    esac
    root="$dir/root"
    libs="$root/lib/$TRIPLET:$root/usr/lib/$TRIPLET"
    # The loader of the suite's libc (in /usr/lib on suites with a merged /usr).
    ldso=
    for l in "$root/lib/$TRIPLET/$LDSO" "$root/usr/lib/$TRIPLET/$LDSO"; do
        [ -e "$l" ] && { ldso=$l; break; }
    done
    [ -n "$ldso" ] || { echo "oracles: no $LDSO in $suite's libc6" >&2; return 1; }
    for n in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
        cat >"$dir/bin/$n" <<EOF
#!/bin/sh
# iptables-nft $v from Debian $suite, with its own libc (scripts/oracles.sh).
XTABLES_LIBDIR=$root/usr/lib/$TRIPLET/xtables
export XTABLES_LIBDIR
exec $ldso --library-path $libs $root/usr/sbin/xtables-nft-multi $n "\$@"
EOF
        chmod +x "$dir/bin/$n"
    done
    out=$("$dir/bin/iptables" -V 2>&1) || { echo "oracles: $v does not run: $out" >&2; return 1; }
    case "$out" in
    *"v$v (nf_tables)"*) ;;
    *) echo "oracles: $v says: $out" >&2; return 1 ;;
    esac
    echo "$out" >"$dir/.complete"
}

# iptables' release sources (the .t rules of its extensions), from the mirror's pool.
SRC_VERSION=1.8.11
SRC_SHA256=d87303d55ef8c92bcad4dd3f978b26d272013642b029425775f5bad1009fe7b2
install_sources() {
    dir="$PREFIX/src/iptables-$SRC_VERSION"
    [ -d "$dir/extensions" ] && return 0
    tarball="$PREFIX/debs/iptables_$SRC_VERSION.orig.tar.xz"
    if ! echo "$SRC_SHA256  $tarball" | sha256sum -c - >/dev/null 2>&1; then
        /usr/lib/apt/apt-helper download-file \
            "$M/pool/main/i/iptables/iptables_$SRC_VERSION.orig.tar.xz" "$tarball" >&2 || return 1
        echo "$SRC_SHA256  $tarball" | sha256sum -c - >/dev/null ||
            { echo "oracles: $tarball does not have the expected SHA-256" >&2; rm -f "$tarball"; return 1; }
    fi
    mkdir -p "$PREFIX/src"
    rm -rf "$dir.partial" && mkdir -p "$dir.partial"
    tar -C "$dir.partial" --strip-components=1 -xJf "$tarball" && mv "$dir.partial" "$dir"
}

status=0
install_sources || { echo "oracles: iptables $SRC_VERSION sources could not be had" >&2; status=1; }
for r in $RELEASES; do
    install_release "${r%%:*}" "${r#*:}" || status=1
done
for r in $RELEASES; do
    v=${r%%:*}
    [ -e "$PREFIX/$v/.complete" ] && echo "oracles: $(cat "$PREFIX/$v/.complete") in $PREFIX/$v/bin" >&2
done
[ -d "$PREFIX/src/iptables-$SRC_VERSION/extensions" ] &&
    echo "oracles: iptables $SRC_VERSION sources in $PREFIX/src/iptables-$SRC_VERSION" >&2
echo "$PREFIX"
exit $status
