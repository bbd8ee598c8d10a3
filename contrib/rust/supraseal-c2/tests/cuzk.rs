// SPDX-License-Identifier: Apache-2.0
//! cuzk's calls (extern/cuzk/cuzk-core: engine.rs's GPU workers, one C++
//! mutex per GPU from alloc_gpu_mutex shared by the workers on it;
//! bellperson's prove_start / finish_pending_proof): the split prove with
//! a, b, c dropped as soon as start returns and the finish on another
//! thread; a pending handle dropped unfinished (PendingProofHandle's
//! Drop); two workers on one GPU mutex, their handles finished by a third
//! thread.
#![cfg(not(feature = "upstream"))]
#[macro_use]
mod common;

use common::*;
use std::ffi::c_void;
use std::sync::mpsc;
use supraseal_c2::{proofline, SRS};

/// A raw handle or mutex sent to another thread (cuzk's SendableGpuMutex).
#[derive(Clone, Copy)]
struct Sendable(*mut c_void);
unsafe impl Send for Sendable {}

fn prove_start(
    srs: &SRS,
    synths: &[&Synth],
    r_s: &[Fr],
    s_s: &[Fr],
    mtx: *mut c_void,
    gpu: i32,
) -> *mut c_void {
    let mut r = refs(synths);
    bellperson_call!(
        supraseal_c2::start_groth16_proof,
        r,
        synths[0],
        synths.len(),
        r_s,
        s_s,
        srs,
        mtx,
        gpu,
    )
}

#[test]
fn split_prove_finished_on_another_thread() {
    let _g = setup();
    let Some(dir) = dir() else { return };
    let srs = SRS::try_new(params(&dir), true).expect("the SRS");
    let mut all = synth_n(&dir, 3);
    let mut seed = 99;
    let r_s = random_frs(&mut seed, 3);
    let s_s = random_frs(&mut seed, 3);
    let handle = {
        let synths: Vec<&Synth> = all.iter().collect();
        prove_start(&srs, &synths, &r_s, &s_s, core::ptr::null_mut(), -1)
    };
    assert!(!handle.is_null());
    // as prove_start does: a, b, c dropped now (poisoned first), r and s too
    for s in all.iter_mut() {
        for v in [&mut s.a, &mut s.b, &mut s.c] {
            v.iter_mut().for_each(|x| *x = Fr([u64::MAX; 4]));
            *v = Vec::new();
        }
    }
    drop(r_s);
    drop(s_s);
    let h = Sendable(handle);
    let proofs = std::thread::spawn(move || {
        let h = h;
        let mut proofs = vec![Proof::default(); 3];
        supraseal_c2::finish_groth16_proof(h.0, &mut proofs);
        proofs
    })
    .join()
    .expect("the finish");
    save(&dir, "split_3", &proofs, &all.iter().collect::<Vec<_>>());
    assert_eq!(proofline::stats().pending, 0);
}

#[test]
fn a_pending_proof_dropped_unfinished() {
    let _g = setup();
    let Some(dir) = dir() else { return };
    let srs = SRS::try_new(params(&dir), false).expect("the SRS");
    let all = synth_n(&dir, 10);
    let synths: Vec<&Synth> = all.iter().collect();
    let mut seed = 1234;
    let r_s = random_frs(&mut seed, 10);
    let s_s = random_frs(&mut seed, 10);
    for _ in 0..2 {
        let handle = prove_start(&srs, &synths, &r_s, &s_s, core::ptr::null_mut(), -1);
        assert_eq!(proofline::stats().pending, 1);
        unsafe { supraseal_c2::drop_pending_proof(handle) };
        assert_eq!(proofline::stats().pending, 0);
    }
    drop(srs);
    // nothing left: the engine destroyed (its leak check run) and made
    // again by the next call
    proofline::shutdown().expect("a clean shutdown");
    let st = proofline::stats();
    assert_eq!(st.engine, 0);
    assert_eq!(st.srs_objects, 0);
    assert_eq!(st.params_live_bytes, 0);
}

#[test]
fn two_workers_share_one_gpu_mutex() {
    let _g = setup();
    let Some(dir) = dir() else { return };
    let srs = SRS::try_new(params(&dir), true).expect("the SRS");
    let mtx = Sendable(supraseal_c2::alloc_gpu_mutex());
    assert!(!mtx.0.is_null());
    let (tx, rx) = mpsc::channel::<(usize, usize, Sendable)>();
    const ROUNDS: usize = 3;
    let finisher = std::thread::spawn(move || {
        let mut out = Vec::new();
        for (worker, round, h) in rx {
            let mut proofs = vec![Proof::default(); 2];
            supraseal_c2::finish_groth16_proof(h.0, &mut proofs);
            out.push((worker, round, proofs));
        }
        out
    });
    let workers: Vec<_> = (0..2usize)
        .map(|w| {
            let tx = tx.clone();
            let srs = srs.clone();
            let dir = dir.clone();
            std::thread::spawn(move || {
                let m = mtx;
                let all = vec![synth(&dir, 2 * w), synth(&dir, 2 * w + 1)];
                let synths: Vec<&Synth> = all.iter().collect();
                let mut seed = 17 + w as u64;
                for round in 0..ROUNDS {
                    let r_s = random_frs(&mut seed, 2);
                    let s_s = random_frs(&mut seed, 2);
                    let h = prove_start(&srs, &synths, &r_s, &s_s, m.0, w as i32);
                    tx.send((w, round, Sendable(h))).unwrap();
                }
                all // the auxiliary assignments live until the finishes
            })
        })
        .collect();
    drop(tx);
    let kept: Vec<Vec<Synth>> = workers.into_iter().map(|t| t.join().unwrap()).collect();
    let done = finisher.join().unwrap();
    assert_eq!(done.len(), 2 * ROUNDS);
    for (w, round, proofs) in &done {
        let synths: Vec<&Synth> = kept[*w].iter().collect();
        save(&dir, &format!("mutex_w{w}_r{round}"), proofs, &synths);
    }
    let (taken, waited, holders) = proofline::gpu_mutex_stats(mtx.0);
    assert_eq!(taken, 2 * ROUNDS as u64);
    assert_eq!(holders, 1);
    eprintln!("gpu mutex: taken {taken} times, {waited} after a wait");
    unsafe { supraseal_c2::free_gpu_mutex(mtx.0) };
}
