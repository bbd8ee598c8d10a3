// SPDX-License-Identifier: Apache-2.0
//! `supraseal-c2` over proofline: the public API of SupraSeal C2's Rust
//! crate (Curio's fork, which cuzk and Curio's bellperson call; with the
//! `upstream` feature, supranational/supra_seal's form, which bellperson
//! 0.26 calls), implemented by proofline's `libproofline_supraseal`
//! through the same `extern "C"` symbols and argument layouts.
//!
//! The items, their generics and their behaviour are the original's: the
//! reference-counted [`SRS`] (`try_new`, `evict`, `Clone`, `Drop`),
//! [`Assignment`], [`generate_groth16_proof`], [`generate_groth16_proofs`],
//! the split [`start_groth16_proof`] / [`finish_groth16_proof`] /
//! [`drop_pending_proof`], [`alloc_gpu_mutex`] / [`free_gpu_mutex`]; the
//! proving calls panic on a failure, with the library's message, as the
//! original's do, and `SRS::try_new` returns the error type, [`Error`]
//! (sppark's: a code and an owned C string).  The crate has no
//! dependencies: blstrs's types are the caller's generics (`S` is
//! `blstrs::Scalar`, `D` the density bit vectors' `usize` words, `PR`
//! `bellperson::groth16::Proof<Bls12>`), as they are in the original.
//!
//! What differs is underneath: every call is a job of proofline's engine,
//! under its byte budget and in its ledger (`PROOFLINE_SUPRASEAL_BUDGET`,
//! `PROOFLINE_SUPRASEAL_LOG=info`, ... or [`proofline::configure`]), each
//! proof verified before it is returned.  After [`start_groth16_proof`]
//! returns, the caller may drop a, b and c (bellperson does), the density
//! vectors, the input assignments and r, s; the auxiliary assignments must
//! live until [`finish_groth16_proof`] or [`drop_pending_proof`] returns.
//! docs/filecoin.md of proofline has the rest.

// The original's signatures: safe functions taking the raw handle and
// mutex pointers.  The library looks every such pointer up in its own
// lists instead of reading through it, so a stale or foreign one is an
// error (a panic here), not a wild read.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::ffi::c_void;
use std::path::PathBuf;
use std::ptr::NonNull;

/// The error of the C calls: sppark's `Error` (`#[repr(C)]`, a code and a
/// message the library allocated with malloc, freed here with free).
/// Code 0 is success; else proofline's status (`pl_status`).
#[repr(C)]
pub struct Error {
    pub code: i32,
    str: Option<NonNull<std::os::raw::c_char>>,
}

impl Drop for Error {
    fn drop(&mut self) {
        extern "C" {
            fn free(str: Option<NonNull<std::os::raw::c_char>>);
        }
        unsafe { free(self.str.take()) };
    }
}

impl From<&Error> for String {
    fn from(status: &Error) -> Self {
        match status.str {
            Some(p) => {
                let s = unsafe { std::ffi::CStr::from_ptr(p.as_ptr()) };
                String::from(s.to_str().unwrap_or("unintelligible"))
            }
            None => format!("sppark::Error #{}", status.code),
        }
    }
}

impl From<Error> for String {
    fn from(status: Error) -> Self {
        String::from(&status)
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}", String::from(self))
    }
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "Error {{ code: {}, message: {:?} }}",
            self.code,
            String::from(self)
        )
    }
}

impl std::error::Error for Error {}

/// The original's `cuda::Error` path (sppark's `cuda_error!` module).
mod cuda {
    pub type Error = super::Error;
}

/// A parameter file opened for proving: one pointer to the library's
/// reference-counted SRS.
#[repr(C)]
pub struct SRS {
    ptr: *const c_void,
}

impl Default for SRS {
    fn default() -> Self {
        Self {
            ptr: core::ptr::null(),
        }
    }
}

impl SRS {
    /// Opens `srs_path` (a bellperson `.params` file) on the library's
    /// engine; `cache`: kept in its cache of the last four paths, so a
    /// second `try_new` of the path shares it (`evict` drops the cache's
    /// hold).  Without the cache a new SRS is made, though the engine
    /// reads and holds the file once for all of them.
    pub fn try_new(srs_path: PathBuf, cache: bool) -> Result<Self, cuda::Error> {
        extern "C" {
            fn create_SRS(
                ret: &mut SRS,
                srs_path: *const std::os::raw::c_char,
                cache: bool,
            ) -> cuda::Error;
        }
        let c_srs_path = std::ffi::CString::new(srs_path.to_str().unwrap()).unwrap();

        let mut ret = SRS::default();
        let err = unsafe { create_SRS(&mut ret, c_srs_path.as_ptr(), cache) };
        if err.code != 0 {
            Err(err)
        } else {
            Ok(ret)
        }
    }

    pub fn evict(&self) {
        extern "C" {
            fn evict_SRS(by_ref: &SRS);
        }
        unsafe { evict_SRS(self) };
    }
}

impl Drop for SRS {
    fn drop(&mut self) {
        extern "C" {
            fn drop_SRS(by_ref: &SRS);
        }
        unsafe { drop_SRS(self) };
        self.ptr = core::ptr::null();
    }
}

impl Clone for SRS {
    fn clone(&self) -> Self {
        extern "C" {
            fn clone_SRS(by_ref: &SRS) -> SRS;
        }
        unsafe { clone_SRS(self) }
    }
}

unsafe impl Sync for SRS {}
unsafe impl Send for SRS {}

/// bellperson's proving assignment as SupraSeal takes it (`#[repr(C)]`,
/// field for field; scalars in blstrs's Montgomery form, densities of
/// 64-bit words).
#[repr(C)]
pub struct Assignment<Scalar> {
    // Density of queries
    pub a_aux_density: *const usize,
    pub a_aux_bit_len: usize,
    pub a_aux_popcount: usize,

    pub b_inp_density: *const usize,
    pub b_inp_bit_len: usize,
    pub b_inp_popcount: usize,

    pub b_aux_density: *const usize,
    pub b_aux_bit_len: usize,
    pub b_aux_popcount: usize,

    // Evaluations of A, B, C polynomials
    pub a: *const Scalar,
    pub b: *const Scalar,
    pub c: *const Scalar,
    pub abc_size: usize,

    // Assignments of variables
    pub inp_assignment_data: *const Scalar,
    pub inp_assignment_size: usize,

    pub aux_assignment_data: *const Scalar,
    pub aux_assignment_size: usize,
}

/// The sizes the C side reads: a scalar of 32 bytes (blstrs's Scalar), a
/// proof of 384 (Proof<Bls12>: G1Affine, G2Affine, G1Affine).  The
/// original writes through whatever it is given; a wrong type panics here
/// instead.
fn check_types<S, PR>() {
    assert_eq!(
        std::mem::size_of::<S>(),
        32,
        "a scalar is blstrs's Scalar: 32 bytes"
    );
    assert_eq!(
        std::mem::size_of::<PR>(),
        384,
        "a proof is Proof<Bls12>: 384 bytes"
    );
}

/// One Assignment per circuit, the densities and sizes shared (bellperson's
/// provers are all of one circuit).
#[allow(clippy::too_many_arguments)]
fn assignments<S, D>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
) -> Vec<Assignment<S>> {
    assert_eq!(ntt_a_scalars.len(), num_circuits);
    assert_eq!(ntt_b_scalars.len(), num_circuits);
    assert_eq!(ntt_c_scalars.len(), num_circuits);
    assert_eq!(input_assignments.len(), num_circuits);
    assert_eq!(aux_assignments.len(), num_circuits);

    let bv_element_size: usize = std::mem::size_of::<D>() * 8; // length of D in bits
    assert!(
        bv_element_size == 64,
        "only 64-bit elements in bit vectors are supported"
    );
    assert!(a_aux_density_bv.len() * bv_element_size >= aux_assignments_size);
    assert!(b_g1_aux_density_bv.len() * bv_element_size >= aux_assignments_size);

    (0..num_circuits)
        .map(|c| Assignment::<S> {
            a_aux_density: a_aux_density_bv.as_ptr() as *const _,
            a_aux_bit_len: aux_assignments_size,
            a_aux_popcount: a_aux_total_density,

            b_inp_density: b_g1_input_density_bv.as_ptr() as *const _,
            b_inp_bit_len: input_assignments_size,
            b_inp_popcount: b_g1_input_total_density,

            b_aux_density: b_g1_aux_density_bv.as_ptr() as *const _,
            b_aux_bit_len: aux_assignments_size,
            b_aux_popcount: b_g1_aux_total_density,

            a: ntt_a_scalars[c],
            b: ntt_b_scalars[c],
            c: ntt_c_scalars[c],
            abc_size: ntt_scalars_actual_size,

            inp_assignment_data: input_assignments[c],
            inp_assignment_size: input_assignments_size,

            aux_assignment_data: aux_assignments[c],
            aux_assignment_size: aux_assignments_size,
        })
        .collect()
}

#[cfg(not(feature = "upstream"))]
extern "C" {
    fn generate_groth16_proofs_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        proofs: *mut c_void,
        srs: &SRS,
        gpu_mtx: *mut c_void,
        gpu_index: i32,
    ) -> cuda::Error;

    fn generate_groth16_proofs_start_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        srs: &SRS,
        gpu_mtx: *mut c_void,
        gpu_index: i32,
        pending_out: *mut *mut c_void,
    ) -> cuda::Error;

    fn finalize_groth16_proof_c(handle: *mut c_void, proofs: *mut c_void) -> cuda::Error;

    fn destroy_pending_proof(handle: *mut c_void);

    fn create_gpu_mutex() -> *mut c_void;
    fn destroy_gpu_mutex(mtx: *mut c_void);
}

#[cfg(feature = "upstream")]
extern "C" {
    fn generate_groth16_proofs_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        proofs: *mut c_void,
        srs: &SRS,
    ) -> cuda::Error;
}

/// Proves `num_circuits` circuits of one shape (bellperson's
/// `generate_groth16_proof`): circuit `c`'s a, b, c and assignments from
/// the pointer arrays, the densities and sizes shared.  `gpu_mtx`:
/// [`alloc_gpu_mutex`]'s, or null; `gpu_index`: -1 for any device.
/// supra_seal's form (feature `upstream`) has neither.
#[allow(clippy::too_many_arguments)]
pub fn generate_groth16_proof<S, D, PR>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
    #[cfg(not(feature = "upstream"))] gpu_mtx: *mut c_void,
    #[cfg(not(feature = "upstream"))] gpu_index: i32,
) {
    check_types::<S, PR>();
    assert_eq!(r_s.len(), num_circuits);
    assert_eq!(s_s.len(), num_circuits);
    assert_eq!(proofs.len(), num_circuits);
    let provers = assignments(
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        a_aux_total_density,
        b_g1_input_total_density,
        b_g1_aux_total_density,
        num_circuits,
    );
    #[cfg(feature = "upstream")]
    let (gpu_mtx, gpu_index) = (core::ptr::null_mut(), -1);
    prove(&provers, r_s, s_s, proofs, srs, gpu_mtx, gpu_index);
}

/// The call of both forms (supra_seal's takes no mutex and no index).
fn prove<S, PR>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) {
    let err = unsafe {
        #[cfg(not(feature = "upstream"))]
        {
            generate_groth16_proofs_c(
                provers.as_ptr() as *const _,
                provers.len(),
                r_s.as_ptr() as *const _,
                s_s.as_ptr() as *const _,
                proofs.as_mut_ptr() as *mut _,
                srs,
                gpu_mtx,
                gpu_index,
            )
        }
        #[cfg(feature = "upstream")]
        {
            let _ = (gpu_mtx, gpu_index);
            generate_groth16_proofs_c(
                provers.as_ptr() as *const _,
                provers.len(),
                r_s.as_ptr() as *const _,
                s_s.as_ptr() as *const _,
                proofs.as_mut_ptr() as *mut _,
                srs,
            )
        }
    };
    if err.code != 0 {
        panic!("{}", String::from(err));
    }
}

/// Allocates a GPU mutex for `gpu_mtx` (one per GPU, shared by the workers
/// on it); free it with [`free_gpu_mutex`].
#[cfg(not(feature = "upstream"))]
pub fn alloc_gpu_mutex() -> *mut c_void {
    unsafe { create_gpu_mutex() }
}

/// Frees a mutex of [`alloc_gpu_mutex`].
///
/// # Safety
/// `ptr` must be a pointer returned by `alloc_gpu_mutex` and must not
/// have been freed already.
#[cfg(not(feature = "upstream"))]
pub unsafe fn free_gpu_mutex(ptr: *mut c_void) {
    destroy_gpu_mutex(ptr);
}

/// Starts the proofs and returns, with a pending handle, once every
/// circuit's a, b and c are read (the caller may drop them then); the
/// GPU mutex is held for that part.  [`finish_groth16_proof`] waits and
/// writes the proofs; [`drop_pending_proof`] abandons them.
#[cfg(not(feature = "upstream"))]
#[allow(clippy::too_many_arguments)]
pub fn start_groth16_proof<S, D>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) -> *mut c_void {
    assert_eq!(
        std::mem::size_of::<S>(),
        32,
        "a scalar is blstrs's Scalar: 32 bytes"
    );
    assert_eq!(r_s.len(), num_circuits);
    assert_eq!(s_s.len(), num_circuits);
    let provers = assignments(
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        a_aux_total_density,
        b_g1_input_total_density,
        b_g1_aux_total_density,
        num_circuits,
    );
    let mut pending: *mut c_void = core::ptr::null_mut();
    let err = unsafe {
        generate_groth16_proofs_start_c(
            provers.as_ptr() as *const _,
            num_circuits,
            r_s.as_ptr() as *const _,
            s_s.as_ptr() as *const _,
            srs,
            gpu_mtx,
            gpu_index,
            &mut pending,
        )
    };
    if err.code != 0 {
        panic!("{}", String::from(err));
    }
    pending
}

/// Waits for a pending proof and writes its proofs; consumes the handle
/// (also when it panics).
///
/// `handle` must come from [`start_groth16_proof`], not yet finished or
/// dropped; `proofs` must have room for its circuits.
#[cfg(not(feature = "upstream"))]
pub fn finish_groth16_proof<PR>(handle: *mut c_void, proofs: &mut [PR]) {
    assert_eq!(
        std::mem::size_of::<PR>(),
        384,
        "a proof is Proof<Bls12>: 384 bytes"
    );
    let err = unsafe { finalize_groth16_proof_c(handle, proofs.as_mut_ptr() as *mut _) };
    if err.code != 0 {
        panic!("{}", String::from(err));
    }
}

/// Abandons a pending proof: its job cancelled and waited for.
///
/// # Safety
/// `handle` must be a valid pointer returned by `start_groth16_proof`.
#[cfg(not(feature = "upstream"))]
pub unsafe fn drop_pending_proof(handle: *mut c_void) {
    destroy_pending_proof(handle);
}

/// Proves one circuit per [`Assignment`] (each with its own densities).
pub fn generate_groth16_proofs<S, PR>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) {
    check_types::<S, PR>();
    let num_circuits = provers.len();

    assert_eq!(r_s.len(), num_circuits);
    assert_eq!(s_s.len(), num_circuits);
    assert_eq!(proofs.len(), num_circuits);

    // no mutex, any device
    prove(provers, r_s, s_s, proofs, srs, core::ptr::null_mut(), -1);
}

/// proofline's own calls (not in the original crate): the engine behind
/// the calls, its settings and figures.
pub mod proofline {
    use std::ffi::{c_void, CString};
    use std::os::raw::c_char;

    /// `pl_supraseal_stats`: the library's figures.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Stats {
        pub engine: u64,
        pub budget_bytes: u64,
        pub reserved_bytes: u64,
        pub peak_reserved_bytes: u64,
        pub tracked_bytes: u64,
        pub peak_tracked_bytes: u64,
        pub events: u64,
        pub proofs: u64,
        pub failed: u64,
        pub params_allocs: u64,
        pub params_live_bytes: u64,
        pub srs_objects: u64,
        pub srs_cached: u64,
        pub srs_opens: u64,
        pub pending: u64,
        pub devices: u64,
    }

    #[repr(C)]
    struct Config {
        budget_bytes: u64,
        backend: *const c_char,
        threads: u32,
        synth_workers: u32,
        prover_workers: u32,
        log_level: i32,
        log_stream: *mut c_void,
        on_event: Option<unsafe extern "C" fn(*mut c_void, *const c_void)>,
        on_event_user: *mut c_void,
        check_params: bool,
    }

    #[repr(C)]
    struct PlError {
        code: i32,
        sys_errno: i32,
        cuda_code: i32,
        msg: [c_char; 256],
    }

    extern "C" {
        fn pl_supraseal_configure(cfg: *const Config, err: *mut PlError) -> i32;
        fn pl_supraseal_stats_read(out: *mut Stats);
        fn pl_supraseal_shutdown(err: *mut PlError) -> i32;
        #[cfg(not(feature = "upstream"))]
        fn pl_supraseal_gpu_mutex_stats(
            mtx: *mut c_void,
            acquired: *mut u64,
            waited: *mut u64,
            max_holders: *mut u64,
        );
    }

    fn message(e: &PlError) -> String {
        let s = unsafe { std::ffi::CStr::from_ptr(e.msg.as_ptr()) };
        s.to_string_lossy().into_owned()
    }

    /// The engine's settings, before its first use (0 / None: the
    /// environment's PROOFLINE_SUPRASEAL_*, then the defaults).
    pub fn configure(
        budget_bytes: u64,
        backend: Option<&str>,
        threads: u32,
        log_info: bool,
    ) -> Result<(), String> {
        let backend = backend
            .map(|b| CString::new(b).map_err(|e| e.to_string()))
            .transpose()?;
        let cfg = Config {
            budget_bytes,
            backend: backend.as_ref().map_or(std::ptr::null(), |b| b.as_ptr()),
            threads,
            synth_workers: 0,
            prover_workers: 0,
            log_level: if log_info { 1 } else { 0 },
            log_stream: std::ptr::null_mut(),
            on_event: None,
            on_event_user: std::ptr::null_mut(),
            check_params: false,
        };
        let mut err: PlError = unsafe { std::mem::zeroed() };
        match unsafe { pl_supraseal_configure(&cfg, &mut err) } {
            0 => Ok(()),
            _ => Err(message(&err)),
        }
    }

    pub fn stats() -> Stats {
        let mut s = Stats::default();
        unsafe { pl_supraseal_stats_read(&mut s) };
        s
    }

    /// The cache emptied and the engine destroyed (its summary written at
    /// the info level), when no SRS and no pending proof is left.
    pub fn shutdown() -> Result<(), String> {
        let mut err: PlError = unsafe { std::mem::zeroed() };
        match unsafe { pl_supraseal_shutdown(&mut err) } {
            0 => Ok(()),
            _ => Err(message(&err)),
        }
    }

    /// A GPU mutex's figures: (taken, taken after a wait, most holders at
    /// once).
    #[cfg(not(feature = "upstream"))]
    pub fn gpu_mutex_stats(mtx: *mut c_void) -> (u64, u64, u64) {
        let (mut a, mut w, mut h) = (0, 0, 0);
        unsafe { pl_supraseal_gpu_mutex_stats(mtx, &mut a, &mut w, &mut h) };
        (a, w, h)
    }
}
