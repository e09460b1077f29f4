//! The labels of one level in one buffer: a hierarchy's leaves can be
//! 100,000 ZIP codes, and a `String` each cost more to allocate and free
//! than building the tree over them.

use std::ops::Index;

/// The most bytes a level's labels may hold (ends are u32); `build`
/// refuses a hierarchy past it before any label is pushed.
pub const MAX_BYTES: usize = u32::MAX as usize;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Labels {
    text: String,
    /// End of each label in `text`; label `i` starts where `i - 1` ends.
    ends: Vec<u32>,
}

impl Labels {
    pub fn with_capacity(labels: usize, bytes: usize) -> Self {
        Labels {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(labels),
        }
    }
    pub fn push(&mut self, label: &str) {
        self.text.push_str(label);
        let end = u32::try_from(self.text.len()).expect("checked against MAX_BYTES by build");
        self.ends.push(end);
    }
    pub fn len(&self) -> usize {
        self.ends.len()
    }
    /// Bytes of all the labels together.
    pub fn bytes(&self) -> usize {
        self.text.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
    #[inline]
    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }
}

impl Index<usize> for Labels {
    type Output = str;
    fn index(&self, i: usize) -> &str {
        self.get(i)
    }
}

impl<S: AsRef<str>> PartialEq<[S]> for Labels {
    fn eq(&self, other: &[S]) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a == b.as_ref())
    }
}

impl<S: AsRef<str>> PartialEq<Vec<S>> for Labels {
    fn eq(&self, other: &Vec<S>) -> bool {
        *self == other[..]
    }
}

impl<S: AsRef<str>, const N: usize> PartialEq<[S; N]> for Labels {
    fn eq(&self, other: &[S; N]) -> bool {
        *self == other[..]
    }
}

impl<S: AsRef<str>> FromIterator<S> for Labels {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        let mut out = Labels::default();
        for s in iter {
            out.push(s.as_ref());
        }
        out
    }
}
