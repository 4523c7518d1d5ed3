//! `reject` (placeholder).

super::placeholder!(Reject, "reject");
