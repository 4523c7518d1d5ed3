//! Words of option values and of printed flags: libxtables' abbreviations, comma-separated
//! lists, flag names and the invert flags an extension does not know.

/// `strncasecmp(word, name, len(word)) == 0` with a non-empty word: `word` is a
/// case-insensitive prefix of `name`, as iptables' name-list parsers take abbreviations.
///
/// ```
/// use iptnl::ipt::ext::base::libxt::abbrev_of;
/// assert!(abbrev_of("est", "ESTABLISHED"));
/// assert!(!abbrev_of("", "ESTABLISHED"));
/// ```
pub fn abbrev_of(word: &str, name: &str) -> bool {
    !word.is_empty()
        && word.len() <= name.len()
        && name.as_bytes()[..word.len()].eq_ignore_ascii_case(word.as_bytes())
}

/// Calls `each` with every word of the comma-separated list `s` and the list from that word
/// on (which iptables quotes when a word is bad); the first error stops the walk.
///
/// ```
/// use iptnl::ipt::ext::base::libxt::for_each_listed;
/// let mut seen = Vec::new();
/// for_each_listed("a,b,c", |w, rest| -> Result<(), ()> {
///     seen.push((w.to_owned(), rest.to_owned()));
///     Ok(())
/// })
/// .unwrap();
/// assert_eq!(seen[1], ("b".to_owned(), "b,c".to_owned()));
/// ```
pub fn for_each_listed<E>(
    s: &str,
    mut each: impl FnMut(&str, &str) -> Result<(), E>,
) -> Result<(), E> {
    let mut rest = s;
    loop {
        match rest.split_once(',') {
            Some((word, next)) => {
                each(word, rest)?;
                rest = next;
            }
            None => return each(rest, rest),
        }
    }
}

/// `bit` when `on`, else no bit: what a negated option adds to a match's invert flags
/// (`invflags |= bit_if(inv, XT_TCP_INV_SRCPT)`).
///
/// ```
/// use iptnl::ipt::ext::base::libxt::bit_if;
/// assert_eq!(bit_if(true, 0x04u8), 0x04);
/// assert_eq!(bit_if(false, 0x04u8), 0);
/// ```
pub fn bit_if<T: Default>(on: bool, bit: T) -> T {
    if on {
        bit
    } else {
        T::default()
    }
}

/// Appends ` Unknown invflags: 0xN` when `invflags` has bits outside `known`, as the print
/// functions of tcp, udp, icmp and the IPv6 header matches end.
///
/// ```
/// use iptnl::ipt::ext::base::libxt::print_unknown_invflags;
/// let mut s = String::new();
/// print_unknown_invflags(&mut s, 0x13, 0x03);
/// assert_eq!(s, " Unknown invflags: 0x10");
/// ```
pub fn print_unknown_invflags(out: &mut String, invflags: u8, known: u8) {
    let unknown = invflags & !known;
    if unknown != 0 {
        out.push_str(&format!(" Unknown invflags: 0x{unknown:X}"));
    }
}

/// The bit of the flag option `name` in a table of (option, bit), 0 when it is not there.
///
/// ```
/// use iptnl::ipt::ext::base::libxt::flag_bit;
/// const FLAGS: &[(&str, u8)] = &[("loose", 1), ("invert", 8)];
/// assert_eq!(flag_bit(FLAGS, "invert"), 8);
/// assert_eq!(flag_bit(FLAGS, "strict"), 0);
/// ```
pub fn flag_bit(names: &[(&str, u8)], name: &str) -> u8 {
    names
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(0, |(_, b)| *b)
}

/// Appends `{lead}{option}` for each (option, bit) of `names` set in `flags`, in table order:
/// how flag options are saved (`lead` ` --`) and listed (`lead` ` `).
///
/// ```
/// use iptnl::ipt::ext::base::libxt::push_flags;
/// const FLAGS: &[(&str, u8)] = &[("loose", 1), ("validmark", 2), ("invert", 8)];
/// let mut s = String::new();
/// push_flags(&mut s, FLAGS, 9, " --");
/// assert_eq!(s, " --loose --invert");
/// ```
pub fn push_flags(out: &mut String, names: &[(&str, u8)], flags: u8, lead: &str) {
    for (name, bit) in names {
        if flags & bit != 0 {
            out.push_str(lead);
            out.push_str(name);
        }
    }
}
