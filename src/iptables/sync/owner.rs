//! Who owns what.

use crate::iptables::Error;

/// Who owns what: chains by a name prefix, hook rules by a comment marker.
///
/// ```
/// use iptnl::sync::Owner;
/// let o = Owner::new("FLANNEL-", "flannel").unwrap();
/// assert!(o.owns_chain("FLANNEL-POSTRTG"));
/// assert!(o.owns_comment("flannel:1a2b3c4d"));
/// assert!(!o.owns_comment("flannelx:1a2b3c4d"));
/// assert!(Owner::new("", "x").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Owner {
    prefix: String,
    marker: String,
}

impl Owner {
    /// An owner of the chains named `prefix…` and of the rules commented `marker:…`. The
    /// prefix must not be empty; the marker must not be empty nor hold a `:` or a `"`.
    pub fn new(prefix: &str, marker: &str) -> Result<Owner, Error> {
        if prefix.is_empty() {
            return Err(Error::Invalid(
                "an owner's chain prefix must not be empty".into(),
            ));
        }
        if marker.is_empty() || marker.contains([':', '"', '\n']) || marker.len() > 200 {
            return Err(Error::Invalid(format!(
                "owner marker `{marker}': it must be 1 to 200 characters without `:', `\"' or a newline"
            )));
        }
        Ok(Owner {
            prefix: prefix.to_owned(),
            marker: marker.to_owned(),
        })
    }

    /// The chain name prefix.
    ///
    /// ```
    /// assert_eq!(iptnl::sync::Owner::new("X-", "x").unwrap().prefix(), "X-");
    /// ```
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The comment marker.
    ///
    /// ```
    /// assert_eq!(iptnl::sync::Owner::new("X-", "x").unwrap().marker(), "x");
    /// ```
    pub fn marker(&self) -> &str {
        &self.marker
    }

    /// Whether chain `name` is owned.
    ///
    /// ```
    /// assert!(!iptnl::sync::Owner::new("X-", "x").unwrap().owns_chain("INPUT"));
    /// ```
    pub fn owns_chain(&self, name: &str) -> bool {
        name.starts_with(&self.prefix)
    }

    /// Whether a rule with comment `comment` is an owned hook rule (`MARKER:…`).
    ///
    /// ```
    /// assert!(iptnl::sync::Owner::new("X-", "x").unwrap().owns_comment("x:00000000"));
    /// ```
    pub fn owns_comment(&self, comment: &str) -> bool {
        comment
            .strip_prefix(&self.marker)
            .is_some_and(|r| r.starts_with(':'))
    }
}
