//! `connlimit` (placeholder).

super::placeholder!(Connlimit, "connlimit");
