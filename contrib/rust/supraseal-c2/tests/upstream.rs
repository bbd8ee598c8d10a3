// SPDX-License-Identifier: Apache-2.0
//! supra_seal's form (`--features upstream`, libproofline_supraseal_upstream):
//! bellperson 0.26's call, generate_groth16_proof without a mutex or a
//! device index, and the SRS's calls.
#![cfg(feature = "upstream")]
#[macro_use]
mod common;

use common::*;
use supraseal_c2::{proofline, SRS};

#[test]
fn bellperson_0_26_proves_three() {
    let _g = setup();
    let Some(dir) = dir() else { return };
    let srs = SRS::try_new(params(&dir), false).expect("the SRS");
    let again = srs.clone();
    let all = synth_n(&dir, 3);
    let synths: Vec<&Synth> = all.iter().collect();
    let mut r = refs(&synths);
    let mut seed = 5;
    let r_s = random_frs(&mut seed, 3);
    let s_s = random_frs(&mut seed, 3);
    let mut proofs = vec![Proof::default(); 3];
    bellperson_call!(
        supraseal_c2::generate_groth16_proof,
        r,
        synths[0],
        3,
        &r_s,
        &s_s,
        proofs.as_mut_slice(),
        &again,
    );
    save(&dir, "upstream_3", &proofs, &synths);
    drop(again);
    drop(srs);
    proofline::shutdown().expect("a clean shutdown");
    assert_eq!(proofline::stats().srs_objects, 0);
}
