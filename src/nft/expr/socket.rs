//! `socket` (placeholder).

super::placeholder!(Socket, "socket");
