//! `synproxy` (placeholder).

super::placeholder!(Synproxy, "synproxy");
