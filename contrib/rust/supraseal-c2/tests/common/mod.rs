// SPDX-License-Identifier: Apache-2.0
//! What the crate's tests share: bellperson's side of the calls with no
//! dependency.  The assignments are our circuits' (proofline circuit
//! export, setup --dev --format bellperson), synthesized as bellperson
//! synthesizes and written by tests/supraseal_assignments.c into
//! PROOFLINE_SUPRASEAL_TEST_DIR (tests/cli_supraseal_rust.sh makes it);
//! blstrs's Scalar and bellperson's Proof<Bls12> are stand-ins of their
//! layouts.  The proofs go back there, with their inputs, for proofline's
//! verifier and tests/bp_verify.mjs.
#![allow(dead_code)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use supraseal_c2::Assignment;

/// A call of bellperson's shape (create_proof_batch_priority_inner,
/// prove_start): the pointer slices of `refs`, the first prover's sizes,
/// densities and popcounts, the circuits' count, then the rest given.
#[allow(unused_macros)] // (errors.rs calls the slice form only)
macro_rules! bellperson_call {
    ($f:path, $refs:ident, $p0:expr, $n:expr $(, $rest:expr)* $(,)?) => {
        $f(
            $refs.a.as_slice(),
            $refs.b.as_slice(),
            $refs.c.as_slice(),
            $p0.a.len(),
            $refs.inp.as_mut_slice(),
            $refs.aux.as_mut_slice(),
            $p0.inp.len(),
            $p0.aux.len(),
            $p0.a_aux.as_slice(),
            $p0.b_inp.as_slice(),
            $p0.b_aux.as_slice(),
            $p0.a_aux_pop,
            $p0.b_inp_pop,
            $p0.b_aux_pop,
            $n
            $(, $rest)*
        )
    };
}

/// blstrs::Scalar's layout: four little-endian limbs, Montgomery form.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Fr(pub [u64; 4]);

/// bellperson's Proof<Bls12> (#[repr(C)]): blstrs's G1Affine (48 bytes x,
/// 48 y), G2Affine (96, 96), G1Affine.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Proof {
    pub a: [u64; 12],
    pub b: [u64; 24],
    pub c: [u64; 12],
}

/// One synthesized circuit: what bellperson's ProvingAssignment holds.
pub struct Synth {
    pub a: Vec<Fr>,
    pub b: Vec<Fr>,
    pub c: Vec<Fr>,
    pub inp: Vec<Fr>,
    pub aux: Vec<Fr>,
    pub a_aux: Vec<usize>,
    pub b_inp: Vec<usize>,
    pub b_aux: Vec<usize>,
    pub a_aux_pop: usize,
    pub b_inp_pop: usize,
    pub b_aux_pop: usize,
    pub inputs: Vec<u8>, // standard form, for the verifiers
}

/// The process's calls one at a time: the library's figures are
/// process-wide, and each test reads them.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The folder of the test's files, or None (the test then says it is
/// skipped: run it through tests/cli_supraseal_rust.sh).
pub fn dir() -> Option<PathBuf> {
    match std::env::var_os("PROOFLINE_SUPRASEAL_TEST_DIR") {
        Some(d) => Some(PathBuf::from(d)),
        None => {
            eprintln!("skipped: PROOFLINE_SUPRASEAL_TEST_DIR is not set (tests/cli_supraseal_rust.sh sets it)");
            None
        }
    }
}

pub fn params(dir: &Path) -> PathBuf {
    dir.join("circuit.params")
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

fn scalars(b: &[u8], at: &mut usize, n: usize) -> Vec<Fr> {
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let mut l = [0u64; 4];
        for (k, limb) in l.iter_mut().enumerate() {
            *limb = u64_at(b, *at + 8 * k);
        }
        v.push(Fr(l));
        *at += 32;
    }
    v
}

fn words(b: &[u8], at: &mut usize, bits: usize) -> Vec<usize> {
    let n = bits.div_ceil(64);
    let v = (0..n).map(|i| u64_at(b, *at + 8 * i) as usize).collect();
    *at += 8 * n;
    v
}

/// Assignment i as tests/supraseal_assignments.c wrote it.
pub fn synth(dir: &Path, i: usize) -> Synth {
    let b = fs::read(dir.join(format!("p{i}.as"))).expect("an assignment file");
    assert_eq!(&b[..8], b"PLSSAS1\0");
    let h: Vec<usize> = (0..9).map(|k| u64_at(&b, 8 + 8 * k) as usize).collect();
    let (rows, ni, na) = (h[0], h[1], h[2]);
    let mut at = 8 + 72;
    let a = scalars(&b, &mut at, rows);
    let bb = scalars(&b, &mut at, rows);
    let c = scalars(&b, &mut at, rows);
    let inp = scalars(&b, &mut at, ni);
    let aux = scalars(&b, &mut at, na);
    assert_eq!(h[3], na);
    assert_eq!(h[5], ni);
    assert_eq!(h[7], na);
    let a_aux = words(&b, &mut at, h[3]);
    let b_inp = words(&b, &mut at, h[5]);
    let b_aux = words(&b, &mut at, h[7]);
    assert_eq!(at, b.len());
    let inputs = fs::read(dir.join(format!("p{i}.inputs"))).expect("an inputs file");
    Synth {
        a,
        b: bb,
        c,
        inp,
        aux,
        a_aux,
        b_inp,
        b_aux,
        a_aux_pop: h[4],
        b_inp_pop: h[6],
        b_aux_pop: h[8],
        inputs,
    }
}

pub fn synth_n(dir: &Path, n: usize) -> Vec<Synth> {
    (0..n).map(|i| synth(dir, i)).collect()
}

/// Random blinding in Montgomery form: any value below r is one (r >
/// 2^254, so four limbs with the top two bits clear are).
pub fn random_frs(state: &mut u64, n: usize) -> Vec<Fr> {
    let mut next = || {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    };
    (0..n)
        .map(|_| Fr([next(), next(), next(), next() & (u64::MAX >> 2)]))
        .collect()
}

/// Writes proofs (as they lie in memory) and their circuits' inputs as
/// NAME.raw and NAME.inputs, and lists NAME for the verifiers.
pub fn save(dir: &Path, name: &str, proofs: &[Proof], synths: &[&Synth]) {
    assert_eq!(proofs.len(), synths.len());
    let raw: Vec<u8> = proofs
        .iter()
        .flat_map(|p| {
            p.a.iter()
                .chain(p.b.iter())
                .chain(p.c.iter())
                .flat_map(|l| l.to_le_bytes())
                .collect::<Vec<u8>>()
        })
        .collect();
    fs::write(dir.join(format!("{name}.raw")), raw).unwrap();
    let inputs: Vec<u8> = synths.iter().flat_map(|s| s.inputs.clone()).collect();
    fs::write(dir.join(format!("{name}.inputs")), inputs).unwrap();
    let mut list = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("proofs.list"))
        .unwrap();
    writeln!(list, "{name}").unwrap();
}

/// The pointer slices bellperson's prove_start builds from its provers.
pub struct Refs {
    pub a: Vec<*const Fr>,
    pub b: Vec<*const Fr>,
    pub c: Vec<*const Fr>,
    pub inp: Vec<*const Fr>,
    pub aux: Vec<*const Fr>,
}

pub fn refs(s: &[&Synth]) -> Refs {
    Refs {
        a: s.iter().map(|x| x.a.as_ptr()).collect(),
        b: s.iter().map(|x| x.b.as_ptr()).collect(),
        c: s.iter().map(|x| x.c.as_ptr()).collect(),
        inp: s.iter().map(|x| x.inp.as_ptr()).collect(),
        aux: s.iter().map(|x| x.aux.as_ptr()).collect(),
    }
}

/// The serial lock, with the library's engine configured once per process
/// (the CPU, two threads: the test machine's).
pub fn setup() -> MutexGuard<'static, ()> {
    let guard = serial();
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        supraseal_c2::proofline::configure(0, Some("cpu"), 2, false)
            .expect("the engine is configured before its first use");
    });
    guard
}

/// One circuit's Assignment (generate_groth16_proofs' form), with its own
/// densities.
pub fn assignment(s: &Synth) -> Assignment<Fr> {
    Assignment {
        a_aux_density: s.a_aux.as_ptr(),
        a_aux_bit_len: s.aux.len(),
        a_aux_popcount: s.a_aux_pop,
        b_inp_density: s.b_inp.as_ptr(),
        b_inp_bit_len: s.inp.len(),
        b_inp_popcount: s.b_inp_pop,
        b_aux_density: s.b_aux.as_ptr(),
        b_aux_bit_len: s.aux.len(),
        b_aux_popcount: s.b_aux_pop,
        a: s.a.as_ptr(),
        b: s.b.as_ptr(),
        c: s.c.as_ptr(),
        abc_size: s.a.len(),
        inp_assignment_data: s.inp.as_ptr(),
        inp_assignment_size: s.inp.len(),
        aux_assignment_data: s.aux.as_ptr(),
        aux_assignment_size: s.aux.len(),
    }
}
