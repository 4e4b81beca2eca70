//! producer.rs - a synthesizer in Rust that proves through a running zkarena pipeline, with
//! libzkarena over its C interface (include/zkarena.h) and no crates.
//!
//!   rust-producer ARENA KEY WITNESS.wtns PROOF.json PUBLIC.json
//!
//! Its "synthesis" reads the witness values of a .wtns file (snarkjs's format) and writes them
//! straight into the leased slot (the pinned memory the prover reads); zkarena computes a and b
//! at commit. Build: rustc --edition 2021 -O producer.rs -l zkarena (-L the library's folder).
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int};
use std::process::exit;

#[repr(C)]
struct Opaque {
    _private: [u8; 0],
}

#[repr(C)]
struct Regions {
    witness: *mut u8,
    n_witness: u64,
    a: *mut u8,
    b: *mut u8,
    n_ab: u64,
}

const ZKA_LIB_WITNESS: c_int = 0;
const ZKA_LIB_FAILED: c_int = 1;

#[link(name = "zkarena")]
extern "C" {
    fn zka_lib_error() -> *const c_char;
    fn zka_lib_open(name: *const c_char, out: *mut *mut Opaque) -> c_int;
    fn zka_lib_close(lib: *mut Opaque);
    fn zka_lib_key_open(lib: *mut Opaque, path: *const c_char, out: *mut *mut Opaque) -> c_int;
    fn zka_lib_begin(
        key: *mut Opaque,
        shape: c_int,
        out_dir: *const c_char,
        timeout_ms: c_int,
        job: *mut *mut Opaque,
        regions: *mut Regions,
    ) -> c_int;
    fn zka_lib_commit(job: *mut Opaque, n_witness: u64, n_a: u64, n_b: u64) -> c_int;
    fn zka_lib_abort(job: *mut Opaque, reason: *const c_char) -> c_int;
    fn zka_lib_wait(job: *mut Opaque, timeout_ms: c_int) -> c_int;
    fn zka_lib_job_id(job: *const Opaque) -> u64;
    fn zka_lib_job_proof(job: *const Opaque) -> *const c_char;
    fn zka_lib_job_public(job: *const Opaque) -> *const c_char;
    fn zka_lib_job_reason(job: *const Opaque) -> *const c_char;
    fn zka_lib_job_free(job: *mut Opaque);
}

/// The thread's last libzkarena reason.
fn last_error() -> String {
    unsafe { CStr::from_ptr(zka_lib_error()).to_string_lossy().into_owned() }
}

fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// The witness values of a .wtns file (32 bytes each, little-endian standard form).
fn witness_values(path: &str) -> Result<Vec<u8>, String> {
    let f = std::fs::read(path).map_err(|e| format!("{}: {}", path, e))?;
    if f.len() < 12 || &f[0..4] != b"wtns" {
        return Err(format!("{}: not a .wtns file", path));
    }
    let (mut at, mut n8, mut nw) = (12usize, 0u32, 0u32);
    for _ in 0..le32(&f[8..12]) {
        if at + 12 > f.len() {
            break;
        }
        let id = le32(&f[at..]);
        let size = u64::from_le_bytes(f[at + 4..at + 12].try_into().unwrap()) as usize;
        at += 12;
        if at + size > f.len() {
            break;
        }
        if id == 1 && size >= 8 {
            n8 = le32(&f[at..]);
            nw = le32(&f[at + 4 + n8 as usize..]);
        } else if id == 2 {
            if n8 != 32 || size != nw as usize * 32 {
                return Err(format!("{}: {} values of {} bytes", path, nw, n8));
            }
            return Ok(f[at..at + size].to_vec());
        }
        at += size;
    }
    Err(format!("{}: no witness values", path))
}

fn run(args: &[String]) -> Result<(), String> {
    let name = CString::new(args[1].as_str()).unwrap();
    let key_path = CString::new(args[2].as_str()).unwrap();
    let mut lib: *mut Opaque = std::ptr::null_mut();
    let mut key: *mut Opaque = std::ptr::null_mut();
    let mut job: *mut Opaque = std::ptr::null_mut();
    unsafe {
        if zka_lib_open(name.as_ptr(), &mut lib) != 0 {
            return Err(last_error());
        }
        let result = (|| {
            if zka_lib_key_open(lib, key_path.as_ptr(), &mut key) != 0 {
                return Err(last_error());
            }
            let mut r = Regions {
                witness: std::ptr::null_mut(),
                n_witness: 0,
                a: std::ptr::null_mut(),
                b: std::ptr::null_mut(),
                n_ab: 0,
            };
            if zka_lib_begin(key, ZKA_LIB_WITNESS, std::ptr::null(), 60000, &mut job, &mut r) != 0 {
                return Err(last_error());
            }
            // the synthesis writes straight into the slot (here: values read from a file)
            let w = match witness_values(&args[3]) {
                Ok(w) if (w.len() / 32) as u64 <= r.n_witness => w,
                Ok(w) => {
                    zka_lib_abort(job, std::ptr::null());
                    return Err(format!("{} values; the key takes {}", w.len() / 32, r.n_witness));
                }
                Err(e) => {
                    zka_lib_abort(job, std::ptr::null());
                    return Err(e);
                }
            };
            let slot = std::slice::from_raw_parts_mut(r.witness, (r.n_witness * 32) as usize);
            slot[..w.len()].copy_from_slice(&w);
            if zka_lib_commit(job, (w.len() / 32) as u64, 0, 0) != 0 {
                return Err(last_error());
            }
            let rc = zka_lib_wait(job, -1);
            if rc == ZKA_LIB_FAILED {
                let why = CStr::from_ptr(zka_lib_job_reason(job)).to_string_lossy();
                return Err(format!("job {} FAILED: {}", zka_lib_job_id(job), why));
            }
            if rc < 0 {
                return Err(last_error());
            }
            let proof = CStr::from_ptr(zka_lib_job_proof(job)).to_bytes();
            let public = CStr::from_ptr(zka_lib_job_public(job)).to_bytes();
            std::fs::write(&args[4], proof).map_err(|e| format!("{}: {}", args[4], e))?;
            std::fs::write(&args[5], public).map_err(|e| format!("{}: {}", args[5], e))?;
            println!("job {} DONE", zka_lib_job_id(job));
            Ok(())
        })();
        zka_lib_job_free(job);
        zka_lib_close(lib);
        result
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 6 {
        eprintln!("usage: rust-producer ARENA KEY WITNESS.wtns PROOF.json PUBLIC.json");
        exit(2);
    }
    if let Err(e) = run(&args) {
        eprintln!("rust-producer: {}", e);
        exit(1);
    }
}
