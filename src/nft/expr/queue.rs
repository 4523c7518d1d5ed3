//! `queue` (placeholder).

super::placeholder!(Queue, "queue");
