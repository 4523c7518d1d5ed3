use super::table::slot;
use super::*;
use crate::ipt::error::ParseError;
use crate::ipt::IpFamily;

const ENTRIES: [Opt; 6] = [
    Opt::new("a", Ty::Uint { min: 1, max: 9 }).mand(),
    Opt::flag("b").inv().excl(&["c"]),
    Opt::flag("c"),
    Opt::flag("bee").alias("b"),
    Opt::flag("d").multi(),
    Opt::flag("e").also(&["c"]),
];
/// Checked by name.
static T: &[Opt] = &ENTRIES;
/// Checked by index.
static L: &[Opt] = &table(ENTRIES);

fn given(t: &'static [Opt], names: &[&str]) -> Given {
    let mut g = Given::new(t);
    for n in names {
        g.record(n);
    }
    g
}

#[test]
fn once_invert_and_aliases() {
    for t in [T, L] {
        let g = given(t, &["b"]);
        let e = precheck("x", t, &g, slot_at(t, 3).unwrap(), false).unwrap_err();
        assert_eq!(
            e,
            ParseError::bad("--b", "x: option \"--b\" can only be used once.")
        );
        assert!(precheck("x", t, &given(t, &["d"]), 4, false).is_ok());
        let e = precheck("x", t, &Given::new(t), 2, true).unwrap_err();
        assert_eq!(
            e,
            ParseError::bad("--c", "x: option \"--c\" cannot be inverted.")
        );
        assert!(given(t, &["bee"]).has("b"));
    }
}

#[test]
fn final_checks_in_table_order() {
    for t in [T, L] {
        assert_eq!(
            fcheck("x", t, &given(t, &["c"])),
            Err(ParseError::Invalid(
                "x: option \"--a\" must be specified".into()
            ))
        );
        assert_eq!(
            fcheck("x", t, &given(t, &["a", "c", "bee"])),
            Err(ParseError::Invalid(
                "x: option \"--b\" cannot be used together with \"--c\".".into()
            ))
        );
        assert_eq!(
            fcheck("x", t, &given(t, &["a", "e"])),
            Err(ParseError::Invalid(
                "x: option \"--e\" also requires \"--c\".".into()
            ))
        );
        assert!(fcheck("x", t, &given(t, &["a", "e", "c"])).is_ok());
    }
}

#[test]
fn every_extension_table_is_linked() {
    for d in crate::ipt::ext::all() {
        assert!(
            d.options.iter().all(|o| o.links.linked),
            "{}: option table not built with opts::table",
            d.name
        );
    }
}

/// The index masks say what the names say, for every extension.
#[test]
fn links_agree_with_names() {
    for d in crate::ipt::ext::all() {
        let t = d.options;
        for (i, e) in t.iter().enumerate() {
            assert_eq!(slot_at(t, i), slot(t, e.name).or(Some(i)), "{}", d.name);
            for (j, o) in t.iter().enumerate() {
                let counted = o.alias_of.is_none() && o.name != e.name;
                assert_eq!(
                    e.links.excl & (1 << j) != 0,
                    counted && e.excl.contains(&o.name),
                    "{} {} excl {}",
                    d.name,
                    e.name,
                    o.name
                );
                assert_eq!(
                    e.links.also & (1 << j) != 0,
                    counted && e.also.contains(&o.name),
                    "{} {} also {}",
                    d.name,
                    e.name,
                    o.name
                );
            }
        }
    }
}

#[test]
fn mark_masks() {
    assert_eq!(parse_mark_mask("X", "m", "0x1/0x1").unwrap(), (1, 1));
    assert_eq!(parse_mark_mask("X", "m", "16").unwrap(), (16, u32::MAX));
    assert!(parse_mark_mask("X", "m", "1/").is_err());
    assert!(parse_mark_mask("X", "m", "1x").is_err());
    assert!(parse_mark_mask("X", "m", "0x100000000").is_err());
    assert_eq!(
        parse_mark_mask("mark", "mark", "0x4000/0x4000").unwrap(),
        (0x4000, 0x4000)
    );
    assert!(parse_mark_mask("mark", "mark", "1/2/3").is_err());
}

#[test]
fn ranges_as_libxtables_1_8_11() {
    let r = |s| parse_range("esp", "espspi", s, 0, u32::MAX.into(), true);
    let max = u64::from(u32::MAX);
    assert_eq!(r("5").unwrap(), ([5, 5], 1));
    assert_eq!(r("5:").unwrap(), ([5, max], 2));
    assert_eq!(r(":5").unwrap(), ([0, 5], 2));
    assert_eq!(r(":").unwrap(), ([0, max], 2));
    assert_eq!(r("4:4").unwrap(), ([4, 4], 2));
    assert!(r("4:3").is_err());
    assert!(r("1:2:3").is_err());
    assert!(r("5x").is_err());
    assert!(r("4294967296").is_err());
}

#[test]
fn value_parsers() {
    assert_eq!(
        parse_range("frag", "fragid", "5:3", 0, u32::MAX.into(), true)
            .unwrap_err()
            .to_string(),
        "--fragid: frag: bad value for option \"--fragid\" near \"3\", or out of range (5-4294967295)."
    );
    assert_eq!(
        parse_range("length", "length", "5x", 0, 65535, true)
            .unwrap_err()
            .to_string(),
        "--length: length: Argument to \"--length\" has unexpected characters near \"x\"."
    );
    assert_eq!(
        parse_range("l", "l", ":", 0, 65535, true).unwrap(),
        ([0, 65535], 2)
    );
    assert!(parse_range("l", "l", "1:2:3", 0, 65535, true).is_err());
    assert_eq!(
        parse_mark_mask("mark", "mark", "1/x")
            .unwrap_err()
            .to_string(),
        "--mark: mark: bad integer value for option \"--mark\", or out of range."
    );
    let (len, mask) = parse_plen("r", "m", "ffff::", IpFamily::V6).unwrap();
    assert_eq!(len, Some(16));
    assert_eq!(&mask[..3], &[0xff, 0xff, 0]);
    assert_eq!(
        parse_plen("r", "m", "255.0.255.0", IpFamily::V4).unwrap().0,
        None
    );
    // Not a length: a mask in inet_aton's forms (0.0.0.33), as getaddrinfo reads it.
    assert_eq!(
        parse_plen("r", "m", "33", IpFamily::V4).unwrap(),
        (None, [0, 0, 0, 33, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    );
    assert!(parse_plen("r", "m", "x", IpFamily::V4).is_err());
    let names = Ty::OneOf {
        names: &["accept", "drop"],
        nocase: true,
        err: "Bad action type value \"%s\"",
    };
    let o = Opt::new("type", names);
    assert_eq!(
        parse_value("AUDIT", &o, &["DROP"], IpFamily::V4),
        Ok(Val::Name(1))
    );
    assert_eq!(
        parse_value("AUDIT", &o, &["x"], IpFamily::V4)
            .unwrap_err()
            .to_string(),
        "--type: Bad action type value \"x\""
    );
}
