//! `dynset` (placeholder).

super::placeholder!(Dynset, "dynset");
