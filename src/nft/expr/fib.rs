//! `fib` (placeholder).

super::placeholder!(Fib, "fib");
