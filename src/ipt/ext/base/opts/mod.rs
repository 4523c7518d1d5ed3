//! Declarative option tables of the extensions, and the one place that enforces them.
//!
//! Each extension declares its options once, in a static table of [`Opt`] entries, as
//! libxtables' `struct xt_option_entry` tables do: the option's name, the type of its value
//! ([`Ty`]), whether it may be inverted, given more than once or must be given, and which
//! other options it cannot be combined with (`excl`) or needs (`also`). The rule parser then
//!
//! - refuses a second use of an option ([`once_error`]) and a `!` before an option that cannot
//!   be inverted ([`invert_error`]) as `xtables_option_parse` does,
//! - parses the value into a typed [`Val`] with libxtables' number, range, mark/mask, string,
//!   prefix-length and name-list parsers ([`parse_value`]), and
//! - once the rule is read, checks mandatory options, exclusions and dependencies in
//!   `xtables_options_fcheck`'s order ([`fcheck`]),
//!
//! so an extension's `parse` only stores the typed value it receives, and its `finish` only
//! checks what no table can say.
//!
//! ```
//! use iptnl::ipt::ext::base::opts::{Opt, Ty};
//! static OPTIONS: &[Opt] = &[
//!     Opt::new("ttl-eq", Ty::Uint { min: 0, max: 255 }).inv().excl(&["ttl-eq", "ttl-lt"]),
//!     Opt::new("ttl-lt", Ty::Uint { min: 0, max: 255 }).excl(&["ttl-eq", "ttl-lt"]),
//! ];
//! assert_eq!(OPTIONS[0].arity(), 1);
//! assert!(OPTIONS[0].invertible() && !OPTIONS[1].invertible());
//! ```

mod check;
mod table;
#[cfg(test)]
mod tests;
mod value;

pub use check::*;
pub use table::*;
pub use value::*;
