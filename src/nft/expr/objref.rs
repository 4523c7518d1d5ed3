//! `objref` (placeholder).

super::placeholder!(Objref, "objref");
