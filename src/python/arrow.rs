//! Integer columns from any object exporting the Arrow PyCapsule stream
//! interface (`__arrow_c_stream__`: Polars Series, pyarrow arrays, ...), read
//! through the Arrow C stream ABI. The bindings take code and count columns
//! this way so that the Python side needs neither numpy nor pyarrow (importing
//! either is a noticeable part of a short run).

use std::ffi::{c_char, c_int, c_void, CStr};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyCapsule, PyCapsuleMethods};

use crate::hierarchy::Encoder;

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

/// An unsigned integer column. Bytes are read as `width`-byte little-endian
/// values; a string column is an error.
pub fn column(obj: &Bound<'_, PyAny>, width: usize) -> PyResult<UIntColumn> {
    Ok(take(obj, width)?
        .decode(None)?
        .expect("without a string callback strings are an error"))
}

/// A column taken from Python (`take`) and not decoded yet: little-endian
/// bytes already read as integers, or the chunks of its Arrow stream. Decoding
/// needs no Python, so several columns can be decoded at once on the pool.
pub struct Taken(TakenData);

enum TakenData {
    Ints(Vec<u64>),
    Arrow {
        format: Vec<u8>,
        chunks: Vec<Owned<ArrowArray>>,
    },
}

// SAFETY: the chunks are Arrow C arrays whose buffers nobody writes while we
// hold them; a `Taken` is only read through shared references (one thread
// decodes each column) and is released by its owner, as the C data interface
// allows from any thread.
unsafe impl Send for Taken {}
unsafe impl Sync for Taken {}

/// Take `obj`'s values out of Python: bytes of `width`-byte little-endian
/// values, or the chunks of its Arrow stream (the stream is opened once).
pub fn take(obj: &Bound<'_, PyAny>, width: usize) -> PyResult<Taken> {
    if let Ok(b) = obj.extract::<PyBackedBytes>() {
        return Ok(Taken(TakenData::Ints(match width {
            4 => b
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u64)
                .collect(),
            _ => b
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect(),
        })));
    }
    let (stream, format) = open(obj)?;
    let mut chunks = Vec::new();
    each_chunk(stream, |a| {
        chunks.push(a);
        Ok(())
    })?;
    Ok(Taken(TakenData::Arrow { format, chunks }))
}

impl Taken {
    /// An unsigned integer column (as `column`), or, for an Arrow string
    /// column (`string_view`, `string`, `large_string`) when there is an
    /// encoder, `None` after giving it every value in order (its bytes, or a
    /// null; UTF-8 is not checked: the bytes are only looked up) with its
    /// weight (`weights[row]`, or 1 when there are none). Signed integer
    /// columns (`int8` to `int64`) are values too, given as integers (which
    /// stand for their decimal strings, as Polars writes them when it casts to
    /// strings). Without an encoder values are an error.
    /// The encoder's calls are inlined into the per-value loops: a closure
    /// called for each value costs as much as the lookup itself.
    pub fn decode(&self, into: Option<(&mut Encoder<'_>, &[u64])>) -> PyResult<Option<UIntColumn>> {
        let (format, chunks) = match &self.0 {
            TakenData::Ints(v) => return Ok(Some(UIntColumn(v.clone()))),
            TakenData::Arrow { format, chunks } => (format, chunks),
        };
        if let (Some((e, weights)), b"vu" | b"u" | b"U" | b"c" | b"s" | b"i" | b"l") =
            (into, format.as_slice())
        {
            let mut row = 0;
            for a in chunks {
                if weights.is_empty() {
                    strings(format, &a.0, e, |_| 1)?;
                } else {
                    strings(format, &a.0, e, |i| weights[row + i])?;
                }
                row += a.0.length as usize;
            }
            return Ok(None);
        }
        let mut out = Vec::new();
        for a in chunks {
            uints(format, &a.0, &mut out)?;
        }
        Ok(Some(UIntColumn(out)))
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        match &self.0 {
            TakenData::Ints(v) => v.len(),
            TakenData::Arrow { chunks, .. } => chunks.iter().map(|a| a.0.length as usize).sum(),
        }
    }
}

/// Appends the values of one chunk of an unsigned integer column to `out`.
fn uints(format: &[u8], a: &ArrowArray, out: &mut Vec<u64>) -> PyResult<()> {
    let size = match format {
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
    if a.null_count != 0 {
        return Err(bad("the column has nulls"));
    }
    if a.length == 0 {
        return Ok(());
    }
    let data = values(a, size)?;
    let (off, len) = (a.offset as usize, a.length as usize);
    out.reserve(len);
    // SAFETY: a primitive array's buffers[1] holds offset + length values
    // of the schema's width, aligned (checked)
    unsafe {
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
    Ok(())
}

/// Gives `e` every value of one chunk of a string (or signed integer)
/// column, value `i` with weight `weight(i)`.
#[inline(always)]
fn strings<'a>(
    format: &[u8],
    a: &'a ArrowArray,
    e: &mut Encoder<'_>,
    weight: impl Fn(usize) -> u64,
) -> PyResult<()> {
    let (off, len) = (a.offset as usize, a.length as usize);
    if len == 0 {
        return Ok(());
    }
    let validity = if a.null_count == 0 {
        std::ptr::null()
    } else {
        buffer(a, 0)?
    };
    // SAFETY: bit `off + i` of a validity bitmap of offset + length bits
    let valid = |i: usize| {
        validity.is_null() || unsafe { (*validity.add((off + i) / 8) >> ((off + i) % 8)) & 1 == 1 }
    };
    match format {
        b"vu" => {
            let views = buffer(a, 1)? as *const [u8; 16];
            // the data buffers (after the validity and views buffers) and,
            // in the last buffer, their sizes
            let n_data = (a.n_buffers.max(3) - 3) as usize;
            let sizes = match n_data {
                0 => std::ptr::null(),
                _ => buffer(a, 2 + n_data)? as *const i64,
            };
            let data = (0..n_data)
                .map(|i| {
                    // SAFETY: the last buffer holds one i64 size per data buffer
                    let size = unsafe { *sizes.add(i) };
                    Ok((buffer(a, 2 + i)?, size.max(0) as usize))
                })
                .collect::<PyResult<Vec<_>>>()?;
            // the bytes a view of more than 12 bytes points to, checked to
            // lie inside its buffer
            let long = |v: &[u8; 16]| -> Option<&'a [u8]> {
                let n = i32::from_le_bytes([v[0], v[1], v[2], v[3]]);
                let b = i32::from_le_bytes([v[8], v[9], v[10], v[11]]);
                let o = i32::from_le_bytes([v[12], v[13], v[14], v[15]]);
                let (n, b, o) = (
                    usize::try_from(n).ok()?,
                    usize::try_from(b).ok()?,
                    usize::try_from(o).ok()?,
                );
                let &(buf, size) = data.get(b)?;
                // SAFETY: the range was checked against the buffer's size, and
                // the buffer lives as long as the chunk `a`
                (o.checked_add(n)? <= size)
                    .then(|| unsafe { std::slice::from_raw_parts(buf.add(o), n) })
            };
            // SAFETY: buffers[1] holds offset + length 16-byte views
            let views = unsafe { std::slice::from_raw_parts(views.add(off), len) };
            if validity.is_null() {
                if !e.push_views(views, long) {
                    return Err(bad("a string view points outside its buffers"));
                }
                return Ok(());
            }
            for (i, v) in views.iter().enumerate() {
                if !valid(i) {
                    e.push_bytes(None, weight(i));
                    continue;
                }
                let n = u32::from_le_bytes([v[0], v[1], v[2], v[3]]) as usize;
                let bytes = if n <= 12 {
                    &v[4..4 + n]
                } else {
                    long(v).ok_or_else(|| bad("a string view points outside its buffers"))?
                };
                e.push_bytes(Some(bytes), weight(i));
            }
        }
        b"u" | b"U" => {
            let offsets = buffer(a, 1)?;
            let data = buffer(a, 2)?;
            let at = |i: usize| -> usize {
                // SAFETY: offset + length + 1 offsets of the format's width
                unsafe {
                    if format == b"u" {
                        *(offsets as *const i32).add(off + i) as usize
                    } else {
                        *(offsets as *const i64).add(off + i) as usize
                    }
                }
            };
            for i in 0..len {
                if !valid(i) {
                    e.push_bytes(None, weight(i));
                    continue;
                }
                let (start, end) = (at(i), at(i + 1));
                // SAFETY: offsets index the data buffer
                let bytes = unsafe { std::slice::from_raw_parts(data.add(start), end - start) };
                e.push_bytes(Some(bytes), weight(i));
            }
        }
        b"c" | b"s" | b"i" | b"l" => {
            let size = match format {
                b"c" => 1,
                b"s" => 2,
                b"i" => 4,
                _ => 8,
            };
            let data = values(a, size)?;
            if validity.is_null() {
                // SAFETY: a primitive array's buffers[1] holds offset + length
                // values of the schema's width, aligned (checked)
                unsafe {
                    match size {
                        1 => e.push_ints(std::slice::from_raw_parts(
                            (data as *const i8).add(off),
                            len,
                        )),
                        2 => e.push_ints(std::slice::from_raw_parts(
                            (data as *const i16).add(off),
                            len,
                        )),
                        4 => e.push_ints(std::slice::from_raw_parts(
                            (data as *const i32).add(off),
                            len,
                        )),
                        _ => e.push_ints(std::slice::from_raw_parts(
                            (data as *const i64).add(off),
                            len,
                        )),
                    }
                }
                return Ok(());
            }
            for i in 0..len {
                if !valid(i) {
                    e.push_bytes(None, weight(i));
                    continue;
                }
                // SAFETY: as above
                let v = unsafe {
                    match size {
                        1 => *(data as *const i8).add(off + i) as i64,
                        2 => *(data as *const i16).add(off + i) as i64,
                        4 => *(data as *const i32).add(off + i) as i64,
                        _ => *(data as *const i64).add(off + i),
                    }
                };
                e.push_int(v);
            }
        }
        other => {
            return Err(bad(&format!(
                "expected a string column, got Arrow format {:?}",
                String::from_utf8_lossy(other)
            )))
        }
    }
    Ok(())
}

/// The values buffer of a primitive array of `size`-byte values (checked to
/// be aligned to them).
fn values(a: &ArrowArray, size: usize) -> PyResult<*const u8> {
    let data = buffer(a, 1)?;
    if !(data as usize).is_multiple_of(size) {
        return Err(bad("a data buffer that is not aligned"));
    }
    Ok(data)
}

/// Buffer `i` of an array (checked to exist and be non-null).
fn buffer(a: &ArrowArray, i: usize) -> PyResult<*const u8> {
    if a.buffers.is_null() || i as i64 >= a.n_buffers {
        return Err(bad("a chunk lacks a buffer"));
    }
    // SAFETY: `buffers` holds `n_buffers` pointers
    let p = unsafe { *a.buffers.add(i) } as *const u8;
    if p.is_null() {
        return Err(bad("a chunk has a null buffer"));
    }
    Ok(p)
}

/// `obj`'s Arrow stream, opened: the stream and its schema's format.
fn open(obj: &Bound<'_, PyAny>) -> PyResult<(Owned<ArrowArrayStream>, Vec<u8>)> {
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
    Ok((stream, format))
}

/// Runs `f` on each chunk of an opened stream, handing it over.
fn each_chunk(
    mut stream: Owned<ArrowArrayStream>,
    mut f: impl FnMut(Owned<ArrowArray>) -> PyResult<()>,
) -> PyResult<()> {
    let get_next = stream.0.get_next.ok_or_else(|| bad("no get_next"))?;
    loop {
        let mut array = Owned(empty_array());
        // SAFETY: a live stream's callback, given a struct it fills
        if unsafe { get_next(&mut stream.0, &mut array.0) } != 0 {
            return Err(bad("could not read a chunk of the column"));
        }
        if array.0.release.is_none() {
            return Ok(()); // end of stream
        }
        f(array)?;
    }
}

fn bad(msg: &str) -> PyErr {
    PyTypeError::new_err(format!("reading an Arrow column: {msg}"))
}
