//! Integer columns from any object exporting the Arrow PyCapsule stream
//! interface (`__arrow_c_stream__`: Polars Series, pyarrow arrays, ...), read
//! through the Arrow C stream ABI. The bindings take code and count columns
//! this way so that the Python side needs neither numpy nor pyarrow (importing
//! numpy alone cost ~60 ms of a 0.6 s end-to-end run).

use std::ffi::{c_char, c_int, c_void, CStr};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyCapsule, PyCapsuleMethods};

#[repr(C)]
struct ArrowSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut ArrowSchema,
    dictionary: *mut ArrowSchema,
    release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    private_data: *mut c_void,
}

#[repr(C)]
struct ArrowArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut ArrowArray,
    dictionary: *mut ArrowArray,
    release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    private_data: *mut c_void,
}

#[repr(C)]
struct ArrowArrayStream {
    get_schema: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowSchema) -> c_int>,
    get_next: Option<unsafe extern "C" fn(*mut ArrowArrayStream, *mut ArrowArray) -> c_int>,
    get_last_error: Option<unsafe extern "C" fn(*mut ArrowArrayStream) -> *const c_char>,
    release: Option<unsafe extern "C" fn(*mut ArrowArrayStream)>,
    private_data: *mut c_void,
}

/// Releases what it owns when dropped (on every error path too).
struct Owned<T: Release>(T);

trait Release {
    fn release(&mut self);
}

impl Release for ArrowArrayStream {
    fn release(&mut self) {
        if let Some(r) = self.release {
            // SAFETY: the producer's release callback, called once on the struct it filled
            unsafe { r(self) }
        }
    }
}
impl Release for ArrowSchema {
    fn release(&mut self) {
        if let Some(r) = self.release {
            // SAFETY: as above
            unsafe { r(self) }
        }
    }
}
impl Release for ArrowArray {
    fn release(&mut self) {
        if let Some(r) = self.release {
            // SAFETY: as above
            unsafe { r(self) }
        }
    }
}
impl<T: Release> Drop for Owned<T> {
    fn drop(&mut self) {
        self.0.release();
    }
}

fn empty_schema() -> ArrowSchema {
    ArrowSchema {
        format: std::ptr::null(),
        name: std::ptr::null(),
        metadata: std::ptr::null(),
        flags: 0,
        n_children: 0,
        children: std::ptr::null_mut(),
        dictionary: std::ptr::null_mut(),
        release: None,
        private_data: std::ptr::null_mut(),
    }
}

fn empty_array() -> ArrowArray {
    ArrowArray {
        length: 0,
        null_count: 0,
        offset: 0,
        n_buffers: 0,
        n_children: 0,
        buffers: std::ptr::null_mut(),
        children: std::ptr::null_mut(),
        dictionary: std::ptr::null_mut(),
        release: None,
        private_data: std::ptr::null_mut(),
    }
}

/// An unsigned integer column: little-endian bytes (`u32` or `u64` per value,
/// as the caller expects) or an Arrow stream of `uint8/16/32/64` without nulls.
pub struct UIntColumn(pub Vec<u64>);

impl UIntColumn {
    pub fn u32s(self, what: &str) -> PyResult<Vec<u32>> {
        self.0
            .into_iter()
            .map(|v| {
                u32::try_from(v)
                    .map_err(|_| PyTypeError::new_err(format!("{what}: value {v} exceeds u32")))
            })
            .collect()
    }
}

/// Bytes are read as `width`-byte little-endian values.
pub fn column(obj: &Bound<'_, PyAny>, width: usize) -> PyResult<UIntColumn> {
    if let Ok(b) = obj.extract::<PyBackedBytes>() {
        return Ok(UIntColumn(match width {
            4 => b
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u64)
                .collect(),
            _ => b
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect(),
        }));
    }
    if !obj.hasattr("__arrow_c_stream__")? {
        return Err(PyTypeError::new_err(format!(
            "expected bytes or an Arrow-exporting column (e.g. a polars Series), got {}",
            obj.get_type().name()?
        )));
    }
    let capsule = obj.call_method0("__arrow_c_stream__")?;
    let capsule = capsule.cast::<PyCapsule>()?;
    let ptr = capsule
        .pointer_checked(Some(c"arrow_array_stream"))?
        .cast::<ArrowArrayStream>()
        .as_ptr();
    // SAFETY: the capsule holds an ArrowArrayStream (checked by its name); we
    // move it out and mark the capsule's copy released, as the protocol asks.
    let mut stream = Owned(unsafe {
        let s = std::ptr::read(ptr);
        (*ptr).release = None;
        s
    });
    let mut schema = Owned(empty_schema());
    let get_schema = stream.0.get_schema.ok_or_else(|| bad("no get_schema"))?;
    // SAFETY: callbacks of a live stream, given structs they fill
    if unsafe { get_schema(&mut stream.0, &mut schema.0) } != 0 || schema.0.format.is_null() {
        return Err(bad("could not read the column's schema"));
    }
    // SAFETY: a valid schema's format is a NUL-terminated string
    let format = unsafe { CStr::from_ptr(schema.0.format) }
        .to_bytes()
        .to_vec();
    let size = match format.as_slice() {
        b"C" => 1,
        b"S" => 2,
        b"I" => 4,
        b"L" => 8,
        f => {
            return Err(bad(&format!(
                "expected an unsigned integer column, got Arrow format {:?}",
                String::from_utf8_lossy(f)
            )))
        }
    };
    let get_next = stream.0.get_next.ok_or_else(|| bad("no get_next"))?;
    let mut out = Vec::new();
    loop {
        let mut array = Owned(empty_array());
        // SAFETY: as above
        if unsafe { get_next(&mut stream.0, &mut array.0) } != 0 {
            return Err(bad("could not read a chunk of the column"));
        }
        if array.0.release.is_none() {
            break; // end of stream
        }
        let a = &array.0;
        if a.null_count != 0 {
            return Err(bad("the column has nulls"));
        }
        if a.length == 0 {
            continue;
        }
        if a.n_buffers < 2 || a.buffers.is_null() {
            return Err(bad("a chunk without a data buffer"));
        }
        // SAFETY: a primitive array's buffers[1] holds offset + length values
        // of the schema's width, aligned as the Arrow format requires (checked)
        unsafe {
            let data = *a.buffers.add(1) as *const u8;
            if data.is_null() || !(data as usize).is_multiple_of(size) {
                return Err(bad("a data buffer that is null or not aligned"));
            }
            let (off, len) = (a.offset as usize, a.length as usize);
            out.reserve(len);
            match size {
                1 => out.extend(
                    std::slice::from_raw_parts(data.add(off), len)
                        .iter()
                        .map(|&v| v as u64),
                ),
                2 => out.extend(
                    std::slice::from_raw_parts((data as *const u16).add(off), len)
                        .iter()
                        .map(|&v| v as u64),
                ),
                4 => out.extend(
                    std::slice::from_raw_parts((data as *const u32).add(off), len)
                        .iter()
                        .map(|&v| v as u64),
                ),
                _ => out.extend_from_slice(std::slice::from_raw_parts(
                    (data as *const u64).add(off),
                    len,
                )),
            }
        }
    }
    Ok(UIntColumn(out))
}

fn bad(msg: &str) -> PyErr {
    PyTypeError::new_err(format!("reading an Arrow column: {msg}"))
}
