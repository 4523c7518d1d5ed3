//! Every expression decoder drops nothing: an expression read as a typed one encodes back to
//! exactly the attributes it was read from (each attribute once, the same types, lengths and
//! payload bytes; only the padding may differ). Anything else (a repeated attribute, one of
//! another length, a value the type cannot hold) is kept as a raw expression, which carries
//! its bytes whole. Every expression of the rule corpus (tests/corpus) in each writer's
//! layout, native or x_tables, is changed: each of its data attributes repeated (next to
//! itself, at the end, with a payload of another length), dropped, swapped with the next,
//! and each byte of its data set to boundary values. No kernel needed.

mod common;

use std::collections::BTreeSet;

use iptnl::ipt::ext::NoSets;
use iptnl::ipt::{encode_rule_for, parse_rule_str, ReaderFloor};
use iptnl::netlink::{Attrs, MsgWriter};
use iptnl::nft::Expr;

/// The distinct expressions of the corpus, as the bytes of one `NFTA_LIST_ELEM` each.
fn corpus_exprs() -> Vec<Vec<u8>> {
    let mut out = BTreeSet::new();
    for (fam, table, chain, text) in common::corpus_rules() {
        let Ok(specs) = parse_rule_str(fam, &text) else {
            continue;
        };
        for floor in ReaderFloor::LAYOUTS {
            let Ok(r) = encode_rule_for(&specs[0], fam, &table, &chain, &NoSets, floor) else {
                continue;
            };
            for e in &r.exprs {
                let mut w = MsgWriter::new();
                e.encode(&mut w);
                out.insert(w.as_bytes().to_vec());
            }
        }
    }
    out.into_iter().collect()
}

/// An attribute as (type, payload), in order; `None` if `b` is not a whole sequence of them.
fn attrs(b: &[u8]) -> Option<Vec<(u16, Vec<u8>)>> {
    let mut out = Vec::new();
    for a in Attrs::new(b) {
        let a = a.ok()?;
        out.push((a.kind(), a.data().to_vec()));
    }
    Some(out)
}

/// The bytes of attributes `list`, each padded with zeros.
fn put(list: &[(u16, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (ty, data) in list {
        let len = u16::try_from(4 + data.len()).unwrap();
        out.extend_from_slice(&len.to_ne_bytes());
        out.extend_from_slice(&ty.to_ne_bytes());
        out.extend_from_slice(data);
        out.resize(out.len().next_multiple_of(4), 0);
    }
    out
}

/// The expression element with the name attribute `name` and the data attributes `data`.
fn element(name: &[u8], data: &[u8]) -> Vec<u8> {
    let inner = put(&[(1, name.to_vec()), (2, data.to_vec())]);
    put(&[(1, inner)])
}

/// The element split into its name payload and its data payload.
fn split(elem: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let outer = attrs(elem)?;
    let inner = attrs(&outer.first()?.1)?;
    let name = inner.iter().find(|(t, _)| t & 0x3fff == 1)?.1.clone();
    let data = inner.iter().find(|(t, _)| t & 0x3fff == 2)?.1.clone();
    Some((name, data))
}

/// The attribute tree of `b` with every payload: a payload that is a whole sequence of
/// attributes is taken as a nest and compared by its own tree, so only padding (and the
/// nest flag, which the kernel's dumps leave out) is left out. The attributes of one nest are
/// taken in the order of their types (a list of one type keeps its order): netlink gives the
/// order of different types no meaning, and each decoder reads them by type.
fn tree(b: &[u8], depth: usize, out: &mut Vec<(usize, u16, Vec<u8>)>) {
    let Some(mut list) = attrs(b) else {
        out.push((depth, u16::MAX, b.to_vec()));
        return;
    };
    list.sort_by_key(|(ty, _)| ty & 0x3fff);
    for (ty, data) in list {
        let ty = ty & 0x3fff;
        let nested = depth < 8 && !data.is_empty() && attrs(&data).is_some();
        if nested {
            out.push((depth, ty, Vec::new()));
            tree(&data, depth + 1, out);
        } else {
            out.push((depth, ty, data));
        }
    }
}

/// What is wrong with decoding `elem`, or `None` if it is kept raw or reads back whole.
fn violation(elem: &[u8]) -> Option<String> {
    let a = Attrs::new(elem).next()?.ok()?;
    let e = Expr::decode(a).ok()?;
    if matches!(e, Expr::Raw(_)) {
        return None;
    }
    let mut w = MsgWriter::new();
    e.encode(&mut w);
    let (mut want, mut got) = (Vec::new(), Vec::new());
    tree(elem, 0, &mut want);
    tree(w.as_bytes(), 0, &mut got);
    (want != got).then(|| {
        format!(
            "`{e}' read from {:02x?}\n  encodes to {:02x?}",
            elem,
            w.as_bytes()
        )
    })
}

/// The changes of one expression's data attributes this test tries.
fn changed(data: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let Some(list) = attrs(data) else {
        return out;
    };
    for i in 0..list.len() {
        let mut l = list.clone();
        l.insert(i, list[i].clone());
        out.push(put(&l));
        let mut l = list.clone();
        l.push(list[i].clone());
        out.push(put(&l));
        for grown in [vec![0u8; 4], vec![1u8]] {
            let mut l = list.clone();
            let mut other = list[i].1.clone();
            other.extend_from_slice(&grown);
            l.insert(i, (list[i].0, other));
            out.push(put(&l));
        }
        let mut l = list.clone();
        l.remove(i);
        out.push(put(&l));
        if i + 1 < list.len() {
            let mut l = list.clone();
            l.swap(i, i + 1);
            out.push(put(&l));
        }
    }
    for at in 0..data.len() {
        for v in [0u8, 1, 0x7f, 0x80, 0xff, data[at] ^ 1] {
            if v != data[at] {
                let mut b = data.to_vec();
                b[at] = v;
                out.push(b);
            }
        }
    }
    out
}

#[test]
fn a_decoded_expression_encodes_back_to_its_own_attributes() {
    let exprs = corpus_exprs();
    assert!(exprs.len() > 300, "only {} expressions", exprs.len());
    let mut failures = BTreeSet::new();
    let mut checked = 0usize;
    for elem in &exprs {
        if let Some(why) = violation(elem) {
            failures.insert(format!("unchanged: {why}"));
        }
        let Some((name, data)) = split(elem) else {
            continue;
        };
        for d in changed(&data) {
            checked += 1;
            if let Some(why) = violation(&element(&name, &d)) {
                let kind = String::from_utf8_lossy(&name)
                    .trim_end_matches('\0')
                    .to_owned();
                failures.insert(format!("{kind}: {why}"));
            }
        }
    }
    assert!(
        checked > 50_000,
        "only {checked} changed expressions checked"
    );
    let n = failures.len();
    let shown: Vec<_> = failures.into_iter().take(40).collect();
    assert!(
        n == 0,
        "{n} of {checked} changed expressions decode to something else, e.g.:\n{}",
        shown.join("\n")
    );
}
