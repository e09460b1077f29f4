//! A column as it arrives from outside the core: little-endian integers, or
//! the chunks of an Arrow stream imported through polars-arrow's C stream
//! reader (`polars_arrow::ffi`, which the bindings call). Decoded here, with
//! no Python and no pointer of our own: to unsigned integers (codes, counts),
//! or, for a column of values, to leaf codes through an [`Encoder`].
//!
//! Values are strings (`Utf8View`, `Utf8`, `LargeUtf8`) or signed integers
//! (`Int8` to `Int64`, standing for their decimal strings, as Polars writes
//! them when it casts to strings). Unsigned integers (`UInt8` to `UInt64`)
//! are codes and may hold no null. Any other type is an error naming it.

use polars_arrow::array::{Array, PrimitiveArray, Utf8Array, Utf8ViewArray, View};
use polars_arrow::datatypes::ArrowDataType;
use polars_arrow::ffi::{ArrowArrayStream, ArrowArrayStreamReader};
use polars_arrow::offset::Offset;
use polars_arrow::types::NativeType;

use super::Encoder;
use crate::error::{AnonError, Result};

/// An incoming column, not decoded yet. Decoding needs nothing but the
/// column, so several columns can be decoded at once on the pool.
pub struct Column(Data);

enum Data {
    Ints(Vec<u64>),
    /// The stream's type (from its schema, so that a stream of no chunks
    /// has one too) and its chunks.
    Arrow(ArrowDataType, Vec<Box<dyn Array>>),
}

fn bad(msg: String) -> AnonError {
    AnonError::Column(msg)
}

impl Column {
    /// `bytes` read as `width`-byte (4 or 8) little-endian unsigned values; a
    /// trailing partial value is an error.
    pub fn from_le_bytes(bytes: &[u8], width: usize) -> Result<Self> {
        if !matches!(width, 4 | 8) || !bytes.len().is_multiple_of(width) {
            return Err(bad(format!(
                "{} bytes are not a whole number of {width}-byte values",
                bytes.len()
            )));
        }
        Ok(Column(Data::Ints(match width {
            4 => bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")) as u64)
                .collect(),
            _ => bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect(),
        })))
    }

    /// The chunks of an Arrow C stream, read through polars-arrow's reader
    /// (which releases the stream when done).
    ///
    /// # Safety
    /// `stream` must be a valid Arrow C stream, as
    /// `ArrowArrayStreamReader::try_new` requires.
    pub unsafe fn from_stream(stream: Box<ArrowArrayStream>) -> Result<Self> {
        let mut reader = ArrowArrayStreamReader::try_new(stream)
            .map_err(|e| bad(format!("could not read the column's schema: {e}")))?;
        let dtype = reader.field().dtype().clone();
        let mut chunks = Vec::new();
        while let Some(chunk) = reader.next() {
            chunks.push(
                chunk.map_err(|e| bad(format!("could not read a chunk of the column: {e}")))?,
            );
        }
        Ok(Column::from_arrow(dtype, chunks))
    }

    /// The chunks of an Arrow stream of type `dtype`, in order.
    pub fn from_arrow(dtype: ArrowDataType, chunks: Vec<Box<dyn Array>>) -> Self {
        Column(Data::Arrow(dtype, chunks))
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        match &self.0 {
            Data::Ints(v) => v.len(),
            Data::Arrow(_, chunks) => chunks.iter().map(|a| a.len()).sum(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An unsigned integer column without nulls.
    pub fn uints(&self) -> Result<Vec<u64>> {
        let (dtype, chunks) = match &self.0 {
            Data::Ints(v) => return Ok(v.clone()),
            Data::Arrow(dtype, chunks) => (dtype, chunks),
        };
        let extend = match dtype {
            ArrowDataType::UInt8 => extend::<u8>,
            ArrowDataType::UInt16 => extend::<u16>,
            ArrowDataType::UInt32 => extend::<u32>,
            ArrowDataType::UInt64 => extend::<u64>,
            other => {
                return Err(bad(format!(
                    "expected an unsigned integer column, got Arrow type {other:?}"
                )))
            }
        };
        let mut out = Vec::with_capacity(self.len());
        for a in chunks {
            same_type(dtype, a.as_ref())?;
            extend(a.as_ref(), &mut out)?;
        }
        Ok(out)
    }

    /// `uints`, each checked to fit 32 bits (`what` names the column).
    pub fn u32s(&self, what: &str) -> Result<Vec<u32>> {
        self.uints()?
            .into_iter()
            .map(|v| u32::try_from(v).map_err(|_| bad(format!("{what}: value {v} exceeds u32"))))
            .collect()
    }

    /// Whether the column holds values (strings or signed integers) rather
    /// than codes.
    pub fn holds_values(&self) -> bool {
        match &self.0 {
            Data::Ints(_) => false,
            Data::Arrow(dtype, _) => is_value_type(dtype),
        }
    }

    /// Gives `e` every value in order (a string's bytes, or a null; UTF-8 is
    /// not checked: the bytes are only looked up), a null counting
    /// `weights[row]` (1 when there are no weights). The column must hold
    /// values (`holds_values`). The encoder's calls sit inside the per-value
    /// loops: a closure called for each value costs as much as the lookup.
    pub fn encode(&self, e: &mut Encoder<'_>, weights: &[u64]) -> Result<()> {
        let Data::Arrow(dtype, chunks) = &self.0 else {
            return Err(bad("expected a column of values, got codes".into()));
        };
        if !is_value_type(dtype) {
            return Err(bad(format!(
                "expected a string or integer column, got Arrow type {dtype:?}"
            )));
        }
        if !weights.is_empty() && weights.len() != self.len() {
            return Err(bad(format!(
                "{} values for {} counts",
                self.len(),
                weights.len()
            )));
        }
        let mut row = 0;
        for a in chunks {
            same_type(dtype, a.as_ref())?;
            if weights.is_empty() {
                values(a.as_ref(), e, |_| 1)?;
            } else {
                values(a.as_ref(), e, |i| weights[row + i])?;
            }
            row += a.len();
        }
        Ok(())
    }
}

fn is_value_type(t: &ArrowDataType) -> bool {
    matches!(
        t,
        ArrowDataType::Utf8View
            | ArrowDataType::Utf8
            | ArrowDataType::LargeUtf8
            | ArrowDataType::Int8
            | ArrowDataType::Int16
            | ArrowDataType::Int32
            | ArrowDataType::Int64
    )
}

/// A chunk of the stream's own type (the C stream interface promises it).
fn same_type(dtype: &ArrowDataType, a: &dyn Array) -> Result<()> {
    match a.dtype() == dtype {
        true => Ok(()),
        false => Err(bad(format!(
            "a chunk of Arrow type {:?} in a stream of {dtype:?}",
            a.dtype()
        ))),
    }
}

fn downcast<T: 'static>(a: &dyn Array) -> Result<&T> {
    a.as_any().downcast_ref::<T>().ok_or_else(|| {
        bad(format!(
            "a chunk of Arrow type {:?} of another layout",
            a.dtype()
        ))
    })
}

/// Appends one chunk of an unsigned integer column to `out`.
fn extend<T: NativeType + Into<u64>>(a: &dyn Array, out: &mut Vec<u64>) -> Result<()> {
    if a.null_count() != 0 {
        return Err(bad("the column has nulls".into()));
    }
    let a = downcast::<PrimitiveArray<T>>(a)?;
    out.extend(a.values().iter().map(|&v| v.into()));
    Ok(())
}

/// Gives `e` every value of one chunk, value `i` with weight `weight(i)`.
#[inline(always)]
fn values(a: &dyn Array, e: &mut Encoder<'_>, weight: impl Fn(usize) -> u64) -> Result<()> {
    match a.dtype() {
        ArrowDataType::Utf8View => views(downcast::<Utf8ViewArray>(a)?, e, weight),
        ArrowDataType::Utf8 => offsets(downcast::<Utf8Array<i32>>(a)?, e, weight),
        ArrowDataType::LargeUtf8 => offsets(downcast::<Utf8Array<i64>>(a)?, e, weight),
        ArrowDataType::Int8 => ints::<i8>(a, e, weight),
        ArrowDataType::Int16 => ints::<i16>(a, e, weight),
        ArrowDataType::Int32 => ints::<i32>(a, e, weight),
        ArrowDataType::Int64 => ints::<i64>(a, e, weight),
        other => Err(bad(format!(
            "expected a string column, got Arrow type {other:?}"
        ))),
    }
}

/// A chunk of string views. Without nulls the views go to the encoder as
/// they are (a view of at most 12 bytes is its own key there); the bytes a
/// longer view points to are checked to lie inside their buffer.
fn views(a: &Utf8ViewArray, e: &mut Encoder<'_>, weight: impl Fn(usize) -> u64) -> Result<()> {
    let buffers = &a.data_buffers()[..];
    let long = |v: &View| long_bytes(buffers, v);
    let outside = || bad("a string view points outside its buffers".into());
    let views: &[View] = a.views();
    if a.null_count() == 0 {
        let raw: &[[u8; 16]] = bytemuck::cast_slice(views);
        return match e.push_views(raw, |v| long(bytemuck::from_bytes::<View>(v))) {
            true => Ok(()),
            false => Err(outside()),
        };
    }
    for (i, v) in views.iter().enumerate() {
        if !a.is_valid(i) {
            e.push_bytes(None, weight(i));
            continue;
        }
        let bytes = match v.get_inlined_slice() {
            Some(b) => b,
            None => long(v).ok_or_else(outside)?,
        };
        e.push_bytes(Some(bytes), weight(i));
    }
    Ok(())
}

/// The bytes a view of more than 12 bytes points to, if they lie inside
/// its buffer.
fn long_bytes<'b, B: std::ops::Deref<Target = [u8]>>(
    buffers: &'b [B],
    v: &View,
) -> Option<&'b [u8]> {
    let buffer: &[u8] = buffers.get(v.buffer_idx as usize)?;
    let start = v.offset as usize;
    buffer.get(start..start.checked_add(v.length as usize)?)
}

/// A chunk of strings with offsets.
fn offsets<O: Offset>(
    a: &Utf8Array<O>,
    e: &mut Encoder<'_>,
    weight: impl Fn(usize) -> u64,
) -> Result<()> {
    for (i, v) in a.iter().enumerate() {
        match v {
            Some(s) => e.push_bytes(Some(s.as_bytes()), 1),
            None => e.push_bytes(None, weight(i)),
        }
    }
    Ok(())
}

/// A chunk of signed integers, each standing for its decimal string.
fn ints<T: NativeType + Into<i64>>(
    a: &dyn Array,
    e: &mut Encoder<'_>,
    weight: impl Fn(usize) -> u64,
) -> Result<()> {
    let p = downcast::<PrimitiveArray<T>>(a)?;
    if p.null_count() == 0 {
        e.push_ints(p.values());
        return Ok(());
    }
    for (i, v) in p.iter().enumerate() {
        match v {
            Some(&v) => e.push_int(v.into()),
            None => e.push_bytes(None, weight(i)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use polars_arrow::array::{PrimitiveArray, Utf8Array, Utf8ViewArray};
    use polars_arrow::datatypes::Field;
    use polars_arrow::ffi::{export_iterator, ArrowArrayStream};

    use super::*;
    use crate::hierarchy::Hierarchy;

    const LONG: &str = "a value well over twelve bytes";

    fn hierarchy() -> Hierarchy {
        let rows = ["a", "b", "-7", "300", LONG, "ünïcode"]
            .iter()
            .map(|v| vec![v.to_string(), "*".to_string()])
            .collect();
        Hierarchy::from_rows(rows, "test").unwrap()
    }

    /// The codes of `values` pushed one by one: what every layout must give.
    fn reference(h: &Hierarchy, values: &[Option<&str>]) -> Result<Vec<u32>> {
        let mut e = h.encoder("c", values.len());
        for v in values {
            e.push_bytes(v.map(str::as_bytes), 1);
        }
        e.finish()
    }

    fn encoded(h: &Hierarchy, c: &Column, weights: &[u64]) -> Result<Vec<u32>> {
        assert!(c.holds_values());
        let mut e = h.encoder("c", c.len());
        c.encode(&mut e, weights)?;
        e.finish()
    }

    /// A column of chunks, of the first chunk's type.
    fn arrow(chunks: Vec<Box<dyn Array>>) -> Column {
        Column::from_arrow(chunks[0].dtype().clone(), chunks)
    }

    /// The same chunks through polars-arrow's C stream export and reader,
    /// as a Python producer hands them over.
    fn through_stream(chunks: Vec<Box<dyn Array>>) -> Column {
        let field = Field::new("c".into(), chunks[0].dtype().clone(), true);
        let stream = export_iterator(Box::new(chunks.into_iter().map(Ok)), field);
        // SAFETY: a stream polars-arrow exported
        unsafe { Column::from_stream(Box::new(stream)) }.unwrap()
    }

    #[test]
    fn unsigned_integers_of_every_width_chunked_and_sliced() {
        fn chunks<T: NativeType>(v: &[T]) -> Vec<Box<dyn Array>> {
            let a = PrimitiveArray::<T>::from_slice(v);
            vec![a.clone().sliced(1, 3).boxed(), a.sliced(0, 2).boxed()]
        }
        let want = vec![2u64, 3, 4, 1, 2];
        for c in [
            chunks::<u8>(&[1, 2, 3, 4]),
            chunks::<u16>(&[1, 2, 3, 4]),
            chunks::<u32>(&[1, 2, 3, 4]),
            chunks::<u64>(&[1, 2, 3, 4]),
        ] {
            assert_eq!(arrow(c.clone()).uints().unwrap(), want);
            let streamed = through_stream(c);
            assert_eq!(streamed.len(), 5);
            assert_eq!(streamed.uints().unwrap(), want);
        }
        let bytes: Vec<u8> = [7u32, 1 << 31]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let c = Column::from_le_bytes(&bytes, 4).unwrap();
        assert_eq!(c.u32s("x").unwrap(), vec![7, 1 << 31]);
        let bytes: Vec<u8> = [u64::MAX].iter().flat_map(|v| v.to_le_bytes()).collect();
        let c = Column::from_le_bytes(&bytes, 8).unwrap();
        assert_eq!(c.uints().unwrap(), vec![u64::MAX]);
        let err = c.u32s("counts of 'x'").unwrap_err().to_string();
        assert!(
            err.contains("counts of 'x'") && err.contains("exceeds u32"),
            "{err}"
        );
        assert!(Column::from_le_bytes(&bytes[..5], 4).is_err());
    }

    #[test]
    fn codes_with_nulls_or_of_another_type_are_errors_naming_it() {
        let nulls = PrimitiveArray::<u32>::from([Some(1), None]).boxed();
        let err = arrow(vec![nulls]).uints().unwrap_err();
        assert!(matches!(err, AnonError::Column(_)) && err.to_string().contains("nulls"));
        let floats = PrimitiveArray::<f64>::from_slice([1.0]).boxed();
        let err = through_stream(vec![floats])
            .uints()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unsigned integer") && err.contains("Float64"),
            "{err}"
        );
        let floats = PrimitiveArray::<f64>::from_slice([1.0]).boxed();
        let c = arrow(vec![floats]);
        assert!(!c.holds_values());
        let h = hierarchy();
        let mut e = h.encoder("c", 1);
        let err = c.encode(&mut e, &[]).unwrap_err().to_string();
        assert!(
            err.contains("string or integer column") && err.contains("Float64"),
            "{err}"
        );
    }

    #[test]
    fn strings_of_every_layout_encode_as_their_bytes() {
        let h = hierarchy();
        let values = [Some("a"), Some(LONG), Some("ünïcode"), Some("b"), Some("a")];
        let want = reference(&h, &values).unwrap();
        let view = Utf8ViewArray::from_slice(values);
        let small = Utf8Array::<i32>::from(values);
        let large = Utf8Array::<i64>::from(values);
        for chunks in [
            vec![view.clone().boxed()],
            vec![view.clone().sliced(0, 2).boxed(), view.sliced(2, 3).boxed()],
            vec![small.clone().boxed()],
            vec![large.clone().boxed()],
        ] {
            let c = arrow(chunks.clone());
            assert_eq!(encoded(&h, &c, &[]).unwrap(), want);
            assert_eq!(encoded(&h, &through_stream(chunks), &[]).unwrap(), want);
        }
        // sliced offset arrays, decoded as imported (polars-arrow's own
        // export of one gives its offset twice, so pyarrow's streams of
        // them are tested from Python, tests/test_arrow.py)
        for chunks in [
            vec![
                small.clone().sliced(0, 1).boxed(),
                small.sliced(1, 4).boxed(),
            ],
            vec![
                large.clone().sliced(0, 3).boxed(),
                large.sliced(3, 2).boxed(),
            ],
        ] {
            assert_eq!(encoded(&h, &arrow(chunks), &[]).unwrap(), want);
        }
    }

    #[test]
    fn nulls_count_their_rows_weight_and_unknown_values_are_named() {
        let h = hierarchy();
        let values = [Some("b"), None, Some(LONG), None];
        let view = Utf8ViewArray::from_slice(values).sliced(0, 4);
        for chunks in [
            vec![view.clone().boxed()],
            vec![Utf8Array::<i64>::from(values).boxed()],
        ] {
            let c = through_stream(chunks);
            // rows weighing 1, 5, 1, 7: the two nulls stand for 12 rows
            let err = encoded(&h, &c, &[1, 5, 1, 7]).unwrap_err();
            assert!(
                matches!(err, AnonError::NullValues { count: 12, .. }),
                "{err}"
            );
            let err = encoded(&h, &c, &[]).unwrap_err();
            assert!(
                matches!(err, AnonError::NullValues { count: 2, .. }),
                "{err}"
            );
        }
        let unknown = Utf8ViewArray::from_slice_values(["a", "zzz", "a long unknown value, too"]);
        let err = encoded(&h, &through_stream(vec![unknown.boxed()]), &[])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("\"zzz\"") && err.contains("2 distinct"),
            "{err}"
        );
    }

    #[test]
    fn signed_integers_stand_for_their_decimal_strings() {
        let h = hierarchy();
        let want = reference(&h, &[Some("-7"), Some("300"), Some("-7")]).unwrap();
        let chunks: Vec<Vec<Box<dyn Array>>> = vec![
            vec![PrimitiveArray::<i16>::from_slice([-7, 300, -7]).boxed()],
            vec![PrimitiveArray::<i32>::from_slice([0, -7, 300, -7])
                .sliced(1, 3)
                .boxed()],
            vec![PrimitiveArray::<i64>::from_slice([-7, 300, -7]).boxed()],
            vec![PrimitiveArray::<i64>::from([Some(-7), Some(300), Some(-7)]).boxed()],
        ];
        for c in chunks {
            assert_eq!(encoded(&h, &through_stream(c), &[]).unwrap(), want);
        }
        let int8 = PrimitiveArray::<i8>::from([Some(-7), None]).boxed();
        let err = encoded(&h, &through_stream(vec![int8]), &[3, 4]).unwrap_err();
        assert!(
            matches!(err, AnonError::NullValues { count: 4, .. }),
            "{err}"
        );
    }

    #[test]
    fn a_view_outside_its_buffers_is_an_error_not_a_read() {
        let h = hierarchy();
        let good = Utf8ViewArray::from_slice_values([LONG]);
        let mut view = good.views()[0];
        view.offset = 1_000;
        for validity in [None, Some([true, false].into_iter().collect())] {
            // SAFETY: deliberately malformed; the decoder must not trust it
            let bad = unsafe {
                Utf8ViewArray::new_unchecked_unknown_md(
                    ArrowDataType::Utf8View,
                    vec![view, view].into(),
                    good.data_buffers().clone(),
                    validity,
                    None,
                )
            };
            let err = encoded(&h, &arrow(vec![bad.boxed()]), &[]).unwrap_err();
            assert!(err.to_string().contains("outside its buffers"), "{err}");
        }
    }

    #[test]
    fn the_type_is_the_streams_even_without_chunks_and_counts_must_match() {
        let floats = Column::from_arrow(ArrowDataType::Float64, vec![]);
        let err = floats.uints().unwrap_err().to_string();
        assert!(err.contains("Float64"), "{err}");
        let strings = Column::from_arrow(ArrowDataType::Utf8View, vec![]);
        assert!(strings.holds_values() && strings.is_empty());
        let mixed = Column::from_arrow(
            ArrowDataType::UInt32,
            vec![PrimitiveArray::<u64>::from_slice([1]).boxed()],
        );
        let err = mixed.uints().unwrap_err().to_string();
        assert!(err.contains("UInt64") && err.contains("UInt32"), "{err}");
        let h = hierarchy();
        let c = arrow(vec![Utf8ViewArray::from_slice([
            Some("a"),
            Some("b"),
            None,
        ])
        .boxed()]);
        let mut e = h.encoder("c", 3);
        let err = c.encode(&mut e, &[1, 2]).unwrap_err().to_string();
        assert!(err.contains("3 values for 2 counts"), "{err}");
    }

    #[test]
    fn a_released_stream_is_an_error() {
        // SAFETY: an empty (released) stream is refused before it is read
        let err = unsafe { Column::from_stream(Box::new(ArrowArrayStream::empty())) };
        assert!(err.is_err());
    }
}
