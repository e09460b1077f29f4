//! The packed group key of the native kernel: every attribute's code in a
//! fixed bit field of one `u64`.

/// Where each attribute's code sits in a packed 64-bit group key: a fixed bit
/// field wide enough for its leaf codes (codes at every level are smaller).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub(crate) shift: Vec<u32>,
    pub(crate) mask: Vec<u64>,
    /// Every key fits in 32 bits and none is all ones (the field of a domain
    /// that is not a power of two never is): keys can sit in 32-bit slots.
    pub(crate) narrow: bool,
}

impl Layout {
    /// One field per domain (the QIs' leaves, then the sensitive attributes'
    /// values); `None` when the fields need more than 63 bits.
    pub fn new(domain_sizes: &[usize]) -> Option<Self> {
        let mut shift = Vec::with_capacity(domain_sizes.len());
        let mut mask = Vec::with_capacity(domain_sizes.len());
        let mut at = 0u32;
        for &size in domain_sizes {
            let size = size.max(1) as u64;
            let bits = 64 - (size - 1).leading_zeros();
            shift.push(at);
            mask.push(if bits == 0 { 0 } else { (1u64 << bits) - 1 });
            at += bits;
        }
        let never_all_ones = domain_sizes.iter().any(|&d| !d.max(1).is_power_of_two());
        let narrow = at < 32 || (at == 32 && never_all_ones);
        (at <= 63).then_some(Layout {
            shift,
            mask,
            narrow,
        })
    }
    /// The bits of `attr`'s field in a key.
    #[inline]
    pub fn field(&self, attr: usize) -> u64 {
        self.mask[attr] << self.shift[attr]
    }
    #[inline]
    pub fn get(&self, key: u64, attr: usize) -> u32 {
        ((key >> self.shift[attr]) & self.mask[attr]) as u32
    }
}

/// Whether a table of `rows` tuples can group in 32-bit slots: the keys fit
/// (`Layout::narrow`) and so does any count.
pub(crate) fn narrow(layout: &Layout, rows: u64) -> bool {
    layout.narrow && rows < u32::MAX as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_narrow_only_where_no_key_reaches_the_empty_slot() {
        // 31 bits; 32 bits with a field that is never all ones (5 values);
        // 32 bits of powers of two (a key may be all ones); 33 bits
        assert!(Layout::new(&[1 << 31]).unwrap().narrow);
        assert!(Layout::new(&[5, 1 << 29]).unwrap().narrow);
        assert!(!Layout::new(&[8, 1 << 29]).unwrap().narrow);
        assert!(!Layout::new(&[1 << 30, 8]).unwrap().narrow);
    }
}
