// SPDX-License-Identifier: Apache-2.0
//! Failures come back as the crate's error type (SRS::try_new) or as the
//! panics the original crate raises with the library's message (the
//! proving calls): a parameter file that is not there, an assignment that
//! does not fit the SRS; never a crash, and the SRS proves after.
#![cfg(not(feature = "upstream"))]
mod common;

use common::*;
use supraseal_c2::{proofline, SRS};

#[test]
fn a_bad_path_is_an_error_value() {
    let _g = setup();
    let Some(dir) = dir() else { return };
    let bad = dir.join("no-such.params");
    let err = SRS::try_new(bad, true).err().expect("an error");
    assert_ne!(err.code, 0);
    let text = err.to_string();
    assert!(text.contains("no-such.params"), "{text}");
    assert!(String::from(&err).contains("cannot open"), "{err:?}");
    // a .vk is no parameter file
    let err = SRS::try_new(dir.join("circuit.vk"), false)
        .err()
        .expect("an error");
    assert!(err.to_string().contains("circuit.vk"), "{err}");
}

fn panics_with(what: &str, f: impl FnOnce() + std::panic::UnwindSafe) {
    let msg = match std::panic::catch_unwind(f) {
        Ok(()) => panic!("no panic, wanted one with '{what}'"),
        Err(p) => p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default(),
    };
    assert!(msg.contains(what), "the panic '{msg}' lacks '{what}'");
}

#[test]
fn a_wrong_assignment_size_panics_with_the_message() {
    let _g = setup();
    let Some(dir) = dir() else { return };
    let srs = SRS::try_new(params(&dir), true).expect("the SRS");
    let s = synth(&dir, 0);
    let mut seed = 3;
    let r = random_frs(&mut seed, 1);
    let failed = proofline::stats().failed;
    let mut short = assignment(&s);
    short.aux_assignment_size -= 1;
    panics_with("aux_assignment_size", || {
        let mut proofs = vec![Proof::default(); 1];
        supraseal_c2::generate_groth16_proofs(&[short], &r, &r, &mut proofs, &srs);
    });
    let mut long = assignment(&s);
    long.abc_size = 1 << 24;
    panics_with("abc_size", || {
        let mut proofs = vec![Proof::default(); 1];
        supraseal_c2::generate_groth16_proofs(&[long], &r, &r, &mut proofs, &srs);
    });
    assert!(proofline::stats().failed > failed);
    // a wrong proof type is refused before the call
    panics_with("Proof<Bls12>", || {
        let mut proofs = vec![0u8; 1];
        supraseal_c2::generate_groth16_proofs(&[assignment(&s)], &r, &r, &mut proofs, &srs);
    });
    // and the SRS proves after all that
    let mut proofs = vec![Proof::default(); 1];
    supraseal_c2::generate_groth16_proofs(&[assignment(&s)], &r, &r, &mut proofs, &srs);
    save(&dir, "after_errors_1", &proofs, &[&s]);
    assert_eq!(proofline::stats().pending, 0);
}
