//! `redir` (placeholder).

super::placeholder!(Redir, "redir");
