//! `numgen` (placeholder).

super::placeholder!(Numgen, "numgen");
