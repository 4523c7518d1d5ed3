//! `byteorder` (placeholder).

super::placeholder!(Byteorder, "byteorder");
