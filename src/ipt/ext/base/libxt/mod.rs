//! What libxtables and glibc do with numbers, addresses, masks and names, written once for
//! every extension: `xtables_strtoul`'s number syntax and the `XTTYPE_*` option parsers built
//! on it (integers, ranges, marks, prefix lengths), `strtod`, `inet_aton`, glibc's
//! `inet_ntop`, the fixed-size string fields of x_tables structs, the DiffServ class names of
//! `dscp_helper.c` and the TOS names of `tos_values.c`.
//!
//! One file per kind of value, below the option tables ([`super::opts`]) where they need
//! none: [`num`], [`inet`], [`words`], [`field`], [`qos`]; above them: [`marks`], [`value`].
//! Everything is re-exported here, so an extension names `libxt::strtoul_prefix`.

pub mod field;
pub mod inet;
pub mod marks;
pub mod num;
pub mod qos;
pub mod value;
pub mod words;

pub use field::*;
pub use inet::*;
pub use marks::*;
pub use num::*;
pub use qos::*;
pub use value::*;
pub use words::*;

#[cfg(test)]
mod tests;
