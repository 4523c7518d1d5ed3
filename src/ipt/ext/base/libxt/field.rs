//! The fixed-size string fields of x_tables structs: how a value is cut to fit, read back,
//! and refused when too long.

use crate::ipt::error::ParseError;

/// Copies a string into a NUL-terminated field of `cap` bytes as libxtables' string
/// options do (`XTTYPE_STRING` with `XTOPT_PUT`): silently cut to `cap - 1` bytes.
pub fn truncate_bytes(s: &str, cap: usize) -> Vec<u8> {
    let b = s.as_bytes();
    b[..b.len().min(cap.saturating_sub(1))].to_vec()
}

/// Reads a NUL-terminated byte string from a fixed field.
pub fn field_bytes(b: &[u8]) -> Vec<u8> {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    b[..end].to_vec()
}

/// The text of a byte string (lossy for bytes that are not UTF-8).
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The prefix of `--log-prefix` / `--nflog-prefix` as libxt_LOG and libxt_NFLOG take it:
/// refused when it holds a newline, otherwise cut to `cap - 1` bytes.
pub fn parse_log_prefix(option: &str, s: &str, cap: usize) -> Result<Vec<u8>, ParseError> {
    if s.contains('\n') {
        return Err(ParseError::bad(
            format!("--{option}"),
            format!("Newlines not allowed in --{option}"),
        ));
    }
    Ok(truncate_bytes(s, cap))
}

/// A string value put into a C buffer of `cap` bytes (`XTOPT_PUT` of `XTTYPE_STRING`): the
/// value up to its first NUL, as a C argument ends there. libxtables cuts a longer value to
/// `cap - 1` bytes, which names another object; it is refused instead, in the words of its
/// length check.
///
/// ```
/// use iptnl::ipt::ext::base::libxt::c_buffer_arg;
/// assert_eq!(c_buffer_arg("--genre", "linux\0x", 32), Ok("linux"));
/// assert!(c_buffer_arg("--genre", &"a".repeat(32), 32).is_err());
/// ```
pub fn c_buffer_arg<'a>(option: &str, value: &'a str, cap: usize) -> Result<&'a str, ParseError> {
    let v = value.split('\0').next().unwrap_or_default();
    if v.len() >= cap {
        return Err(ParseError::bad(
            option,
            format!(
                "Argument must have a maximum length of {} characters",
                cap.saturating_sub(1)
            ),
        ));
    }
    Ok(v)
}
