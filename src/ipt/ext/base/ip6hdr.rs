//! What the matches of IPv6 extension headers and IPsec headers share (`frag`, `rt`, `hbh`
//! and `dst`, `ah` and `esp`, `mh`): the option type of their 32-bit id ranges, and how they
//! save and list an id range, a single id or length, and their invert flags.

use super::api::save_inv;
use super::libxt::save_u32_range;
use super::opts::Ty;

/// An id range option (`XTTYPE_UINT32RC`: `N`, `N:M`, `N:`, `:M`), refused when reversed, as
/// `--fragid`, `--rt-segsleft`, `--ahspi` and `--espspi` take it.
pub const ID_RANGE: Ty = Ty::Range {
    min: 0,
    max: u32::MAX as u64,
    ordered: true,
};

/// Appends ` [!] --OPTION N[:M]`: how a range test is saved, nothing for an uninverted full
/// range.
///
/// ```
/// use iptnl::ipt::ext::base::ip6hdr::save_id_range;
/// let mut s = String::new();
/// save_id_range(&mut s, "fragid", [0, u32::MAX], false);
/// save_id_range(&mut s, "fragid", [1, 2], true);
/// assert_eq!(s, " ! --fragid 1:2");
/// ```
pub fn save_id_range(out: &mut String, option: &str, r: [u32; 2], inv: bool) {
    if r == [0, u32::MAX] && !inv {
        return;
    }
    save_inv(out, inv);
    out.push_str(" --");
    out.push_str(option);
    out.push(' ');
    save_u32_range(out, r);
}

/// Appends ` [!] --OPTION N`: how a single-value test (a length, a type) is saved.
///
/// ```
/// use iptnl::ipt::ext::base::ip6hdr::save_id;
/// let mut s = String::new();
/// save_id(&mut s, "rt-len", 8, true);
/// assert_eq!(s, " ! --rt-len 8");
/// ```
pub fn save_id(out: &mut String, option: &str, v: u32, inv: bool) {
    save_inv(out, inv);
    out.push_str(&format!(" --{option} {v}"));
}

/// Appends `{lead}length:[!]N`: how a length test is listed (`lead` is ` `, or nothing
/// where the header's word ends with its own space, as libip6t_ah's does).
///
/// ```
/// use iptnl::ipt::ext::base::ip6hdr::print_length;
/// let mut s = String::new();
/// print_length(&mut s, " ", 8, true);
/// assert_eq!(s, " length:!8");
/// ```
pub fn print_length(out: &mut String, lead: &str, len: u32, inv: bool) {
    let i = if inv { "!" } else { "" };
    out.push_str(&format!("{lead}length:{i}{len}"));
}
