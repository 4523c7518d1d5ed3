//! The floor of the extensions: what every extension is given and shares, knowing no
//! extension. An extension file in `ext/` imports from here (and from the layers below
//! the rule model), never from another extension; nothing here imports an extension.
//!
//! - [`api`]: the [`api::Extension`] trait, its contexts and the x_tables helpers;
//! - [`opts`]: the option tables and their enforcement;
//! - [`libxt`]: libxtables' and glibc's parsers and printers, one file per kind of value;
//! - [`names`]: host, network, service and user names;
//! - [`ports`]: tcp/udp port ranges;
//! - [`xtbuf`]: x_tables structs as bytes (written with [`xtbuf::XtBuf`], read with
//!   [`xtbuf::XtView`]);
//! - [`xtstruct`]: one declarative field table per x_tables struct, which decodes and
//!   encodes it;
//! - [`ip6hdr`]: what the IPv6 and IPsec header matches share;
//! - [`conntrack_names`]: conntrack's state and status words and addresses, shared by
//!   `conntrack`, `state` and `ipvs`;
//! - [`help`]: the `-m NAME -h` help texts.

pub mod api;
pub mod conntrack_names;
pub mod help;
pub mod ip6hdr;
pub mod libxt;
pub mod names;
pub mod opts;
pub mod ports;
pub mod xtbuf;
pub mod xtstruct;
