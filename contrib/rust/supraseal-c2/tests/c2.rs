// SPDX-License-Identifier: Apache-2.0
//! bellperson's calls (src/groth16/prover/supraseal.rs and
//! supraseal_params.rs of Curio's bellperson): the SRS opened as
//! SuprasealParameters opens it, and as a cache would; 1, 3 and 10
//! circuits proved in one call with the densities of the first, as
//! create_proof_batch_priority_inner passes them; the Assignment-slice
//! form.  The proofs are checked by tests/cli_supraseal_rust.sh.
#![cfg(not(feature = "upstream"))]
#[macro_use]
mod common;

use common::*;
use supraseal_c2::{proofline, Assignment, SRS};

#[test]
fn srs_created_twice_loaded_once_cloned_evicted_dropped() {
    let _g = setup();
    let Some(dir) = dir() else { return };
    // the path out of the cache, whatever ran before
    SRS::try_new(params(&dir), true).expect("the SRS").evict();
    let before = proofline::stats();
    let a = SRS::try_new(params(&dir), true).expect("the SRS");
    let one = proofline::stats();
    assert_eq!(one.engine, 1);
    assert_eq!(one.srs_opens, before.srs_opens + 1);
    assert!(
        one.params_allocs > before.params_allocs,
        "the file was read"
    );
    // the same path again, cached: nothing read
    let b = SRS::try_new(params(&dir), true).expect("the cached SRS");
    let two = proofline::stats();
    assert_eq!(two.srs_opens, one.srs_opens);
    assert_eq!(two.params_allocs, one.params_allocs);
    assert_eq!(two.params_live_bytes, one.params_live_bytes);
    // as SuprasealParameters::new does (no cache): the engine's one open
    let c = SRS::try_new(params(&dir), false).expect("an SRS of its own");
    let three = proofline::stats();
    assert_eq!(three.params_allocs, one.params_allocs);
    assert_eq!(three.srs_objects, before.srs_objects + 2);
    let d = a.clone();
    a.evict();
    assert_eq!(proofline::stats().srs_cached, 0);
    drop(a);
    drop(b);
    assert_eq!(proofline::stats().srs_objects, before.srs_objects + 2);
    drop(d);
    assert_eq!(proofline::stats().srs_objects, before.srs_objects + 1);
    drop(c);
    let end = proofline::stats();
    assert_eq!(end.srs_objects, before.srs_objects);
    assert_eq!(end.params_live_bytes, before.params_live_bytes);
    assert_eq!(
        end.reserved_bytes, before.reserved_bytes,
        "the SRS's bytes back"
    );
}

/// create_proof_batch_priority_inner: pointer slices of the provers' a,
/// b, c and assignments, the first prover's densities and sizes.
fn bellperson_call(srs: &SRS, synths: &[&Synth], r_s: &[Fr], s_s: &[Fr]) -> Vec<Proof> {
    let mut r = refs(synths);
    let mut proofs = vec![Proof::default(); synths.len()];
    bellperson_call!(
        supraseal_c2::generate_groth16_proof,
        r,
        synths[0],
        synths.len(),
        r_s,
        s_s,
        proofs.as_mut_slice(),
        srs,
        core::ptr::null_mut(), // no external mutex, as bellperson passes
        -1,
    );
    proofs
}

#[test]
fn one_three_and_ten_circuits_in_one_call() {
    let _g = setup();
    let Some(dir) = dir() else { return };
    let srs = SRS::try_new(params(&dir), false).expect("the SRS");
    let all = synth_n(&dir, 10);
    let mut seed = 0x5eed;
    let before = proofline::stats();
    for n in [1usize, 3, 10] {
        let synths: Vec<&Synth> = all.iter().take(n).collect();
        let r_s = random_frs(&mut seed, n);
        let s_s = random_frs(&mut seed, n);
        let proofs = bellperson_call(&srs, &synths, &r_s, &s_s);
        save(&dir, &format!("bellperson_{n}"), &proofs, &synths);
    }
    let after = proofline::stats();
    assert_eq!(after.proofs - before.proofs, 14);
    assert_eq!(after.failed, before.failed);
}

#[test]
fn the_assignment_slice_form() {
    let _g = setup();
    let Some(dir) = dir() else { return };
    let srs = SRS::try_new(params(&dir), true).expect("the SRS");
    let all = synth_n(&dir, 3);
    let provers: Vec<Assignment<Fr>> = all.iter().map(assignment).collect();
    let mut seed = 7;
    let r_s = random_frs(&mut seed, 3);
    let s_s = random_frs(&mut seed, 3);
    let mut proofs = vec![Proof::default(); 3];
    supraseal_c2::generate_groth16_proofs(&provers, &r_s, &s_s, &mut proofs, &srs);
    save(
        &dir,
        "assignments_3",
        &proofs,
        &all.iter().collect::<Vec<_>>(),
    );
    // r = s = 0: the unblinded proof, the same twice
    let zero = vec![Fr::default(); 3];
    let mut p1 = vec![Proof::default(); 3];
    let mut p2 = vec![Proof::default(); 3];
    supraseal_c2::generate_groth16_proofs(&provers, &zero, &zero, &mut p1, &srs);
    supraseal_c2::generate_groth16_proofs(&provers, &zero, &zero, &mut p2, &srs);
    for i in 0..3 {
        assert!(p1[i].a == p2[i].a && p1[i].b == p2[i].b && p1[i].c == p2[i].c);
    }
    save(&dir, "unblinded_3", &p1, &all.iter().collect::<Vec<_>>());
}
