//! `bitwise` (placeholder).

super::placeholder!(Bitwise, "bitwise");
